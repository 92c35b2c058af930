//! The summarization request's fixed texts (our own wording, the spec's structure, §3.2) and the
//! user-visible error strings of context management (§3.1, §5.8).

/// System prompt of every summarization request; not user-overridable.
pub const SUMMARY_PROMPT: &str = "\
You are a helpful AI assistant tasked with summarizing conversations.

CRITICAL: This is a summarization-only request. Do not call any tools and do not ask to call any. \
Respond with plain text only: any tool call you make will not be processed.

CRITICAL: This summarization request is a SYSTEM OPERATION, not a message from the user. When you \
work out the user's requests and intent, leave this summarization message out. The \"most recent \
user request\" and the \"next step\" must describe what the user was doing before this message \
arrived, so that the work can continue seamlessly as if the condensation never happened.";

/// The default condense instructions (the final user message when no custom prompt is set).
///
/// It opens with the sentence clients look for, then the nine required sections.
pub const CONDENSE_TEMPLATE: &str = "\
Your task is to create a detailed summary of the conversation so far, paying close attention to \
the user's explicit requests and your previous actions.

This request is a SYSTEM OPERATION issued to condense the context; it is not a request from the \
user. Leave it out when you determine the user's requests, the current work and the Optional Next \
Step: they must reflect the conversation as it stood before this message.

The summary must be thorough in capturing technical details, code patterns and architectural \
decisions that are essential for continuing the work without losing context.

Before writing the summary, wrap your analysis in <analysis> tags to organize your thoughts and \
make sure you cover everything. In the analysis:
1. Go through the conversation chronologically. For each part, identify:
   - the user's explicit requests and intents
   - your approach to those requests
   - key decisions, technical concepts and code patterns
   - specific details such as file names, full code snippets, function signatures and file edits
   - errors you ran into and how you fixed them
   - user feedback, especially where the user asked you to do something differently
2. Double-check the technical accuracy and completeness of every element.

Your summary must contain the following sections, in this order:

1. Primary Request and Intent: every explicit request and intent of the user, in detail.
2. Key Technical Concepts: the technologies, frameworks and concepts discussed.
3. Files and Code Sections: the files examined, modified or created, with why each matters, \
the changes made, and full code snippets where they apply.
4. Errors and fixes: every error met and how it was fixed, including user feedback on it.
5. Problem Solving: problems solved and troubleshooting still under way.
6. All user messages: every user message that is not a tool result, in order.
7. Pending Tasks: tasks you were explicitly asked to do that are not finished.
8. Current Work: precisely what was being worked on immediately before this summary request, \
with file names and code snippets.
9. Optional Next Step: the next step, directly in line with the user's most recent explicit \
request and the work just before this message. If there is a next step, quote the most recent \
conversation verbatim to show exactly where you left off, so there is no drift in interpretation.

Here is an example of how your output should be structured:

<example>
<analysis>
[Your thought process, making sure every point is covered thoroughly and accurately]
</analysis>

<summary>
1. Primary Request and Intent:
   [Detailed description]

2. Key Technical Concepts:
   - [Concept 1]
   - [Concept 2]

3. Files and Code Sections:
   - [File Name 1]
      - [Why this file matters]
      - [Changes made to this file, if any]
      - [Important code snippet]

4. Errors and fixes:
   - [Error 1]: [How it was fixed; user feedback, if any]

5. Problem Solving:
   [Problems solved and ongoing troubleshooting]

6. All user messages:
   - [User message 1]

7. Pending Tasks:
   - [Task 1]

8. Current Work:
   [Precise description of the current work]

9. Optional Next Step:
   [Next step, with verbatim quotes of the most recent conversation]
</summary>
</example>

The <command> blocks of the original task are appended to the summary automatically inside \
<system-reminder> tags; you do not need to repeat them.

The conversation may contain additional summarization instructions. If it does, follow them too \
when writing the summary. Examples of such instructions:
<example>
## Compact Instructions
When summarizing the conversation, focus on the TypeScript code changes and remember the mistakes \
you made and how you fixed them.
</example>

<example>
# Summary instructions
When you summarize, focus on the test output and the code changes, and include file reads verbatim.
</example>";

/// Guard A with a history of at most one message.
pub const ERROR_NOT_ENOUGH_MESSAGES: &str = "Not enough messages to condense context";
/// Guard A/B: the last summary is (almost) the last message.
pub const ERROR_CONDENSED_RECENTLY: &str = "Context was condensed recently; skipping this attempt";
/// The summarizer is not usable (kept for wire parity; the host reports it as an error).
pub const ERROR_HANDLER_INVALID: &str = "API handler for condensing context is invalid";
/// The summarizer answered with nothing.
pub const ERROR_CONDENSE_FAILED: &str = "Failed to condense context";
/// The summary did not make the context smaller (the original's `condense_context_grew`).
pub const ERROR_CONTEXT_GREW: &str =
    "Context size increased during condensing; skipping this attempt";
/// `Condensing API call failed: {message}`.
pub fn condense_api_failed(message: &str) -> String {
    format!("Condensing API call failed: {message}")
}
