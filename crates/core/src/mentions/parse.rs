//! `parseMentions` split in two pure halves around the I/O: [`plan_mentions`] substitutes
//! references for commands and mentions and lists what must be fetched; the caller fetches
//! (files through [`super::read::MentionReader`], git and host-only kinds itself); then
//! [`assemble`] appends the sections and builds the command help, exactly as the original.

use std::collections::HashMap;
use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use super::commands::{Command, CommandCatalog, CommandLookup, Skill};
use super::read::{ContentBlock, PathMention};
use super::scan::{MentionKind, scan_commands, scan_mentions};

/// The marker production wraps user-authored text in.
pub const USER_MESSAGE_OPEN: &str = "<user_message>";
/// The closing marker.
pub const USER_MESSAGE_CLOSE: &str = "</user_message>";

/// Something a mention needs fetched, once per distinct body, in first-appearance order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "camelCase")]
pub enum Fetch {
    /// A file or folder: the mention path without its leading `/`, escapes kept.
    Path(String),
    /// An `http...` URL (only the host can fetch it).
    Url(String),
    /// `@problems` (host).
    Problems,
    /// `@git-changes`.
    GitChanges,
    /// A commit hash.
    Commit(String),
    /// `@terminal` (host).
    Terminal,
}

/// A non-fatal finding while parsing (degraded input is not an error).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MentionDiagnostic {
    /// Stable machine-readable code.
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
}

impl MentionDiagnostic {
    /// A diagnostic with `code` and `message`.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        MentionDiagnostic {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// The first half of `parseMentions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionPlan {
    /// The text with command and mention references substituted (no sections yet).
    pub text: String,
    /// What to fetch, in first-appearance order.
    pub fetches: Vec<Fetch>,
    /// Recognised commands, in first-appearance order.
    pub commands: Vec<Command>,
    /// Recognised skills, in first-appearance order.
    pub skills: Vec<Skill>,
    /// Findings so far.
    pub diagnostics: Vec<MentionDiagnostic>,
}

/// The fetched value for one [`Fetch`], in the same order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// A path mention's block.
    Path(PathMention),
    /// The text of a git or host-resolved mention, or the error message.
    Text(Result<String, String>),
}

/// The result of `parseMentions` (`ParseMentionsResult`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedMentions {
    /// The user's text with references substituted and sections appended.
    pub text: String,
    /// One block per distinct file or folder mention.
    pub content_blocks: Vec<ContentBlock>,
    /// The command and skill instructions, never merged into `text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slash_command_help: Option<String>,
    /// The mode of the first command that has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Findings (unanswered host requests, unclosed markers, ...).
    pub diagnostics: Vec<MentionDiagnostic>,
    /// Workspace-relative files that were read (recorded as `file_mentioned`).
    pub mentioned_files: Vec<String>,
}

/// The spans of `text` the user wrote: the insides of `<user_message>...</user_message>`, or the
/// whole text when the marker does not occur. An unclosed marker runs to the end of the text.
pub fn user_spans(text: &str) -> (Vec<Range<usize>>, Vec<MentionDiagnostic>) {
    if !text.contains(USER_MESSAGE_OPEN) {
        #[allow(clippy::single_range_in_vec_init)]
        return (vec![0..text.len()], Vec::new());
    }
    let mut spans = Vec::new();
    let mut diagnostics = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find(USER_MESSAGE_OPEN) {
        let start = from + open + USER_MESSAGE_OPEN.len();
        match text[start..].find(USER_MESSAGE_CLOSE) {
            Some(close) => {
                spans.push(start..start + close);
                from = start + close + USER_MESSAGE_CLOSE.len();
            }
            None => {
                spans.push(start..text.len());
                diagnostics.push(MentionDiagnostic::new(
                    "unclosedUserMessage",
                    "<user_message> has no closing tag; parsed to the end of the text",
                ));
                break;
            }
        }
    }
    (spans, diagnostics)
}

fn reference_for(body: &str, kind: MentionKind) -> Option<(String, Option<Fetch>)> {
    Some(match kind {
        MentionKind::Path => {
            let p = &body[1..];
            (format!("'{p}'"), Some(Fetch::Path(p.to_owned())))
        }
        MentionKind::Url if body.starts_with("http") => {
            (format!("'{body}'"), Some(Fetch::Url(body.to_owned())))
        }
        MentionKind::Url => return None,
        MentionKind::CommitHash => (
            format!("Git commit '{body}' (see below for commit info)"),
            Some(Fetch::Commit(body.to_owned())),
        ),
        MentionKind::Problems => (
            "Workspace Problems (see below for diagnostics)".to_owned(),
            Some(Fetch::Problems),
        ),
        MentionKind::GitChanges => (
            "Working directory changes (see below for details)".to_owned(),
            Some(Fetch::GitChanges),
        ),
        MentionKind::Terminal => (
            "Terminal Output (see below for output)".to_owned(),
            Some(Fetch::Terminal),
        ),
    })
}

fn char_before(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

/// Steps 1-3 of `parseMentions` over the user-authored spans of `text` (see [`user_spans`]).
/// Text outside the spans is copied unchanged. Fixes over the original: the whitespace before a
/// command is kept, each command token is replaced where it was found, and only names the
/// catalog knows are commands.
pub fn plan_mentions(text: &str, catalog: &dyn CommandCatalog) -> MentionPlan {
    let (spans, mut diagnostics) = user_spans(text);
    let mut known: HashMap<String, bool> = HashMap::new();
    let mut commands = Vec::new();
    let mut skills = Vec::new();
    let mut fetch_index: HashMap<String, usize> = HashMap::new();
    let mut fetches = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for span in spans {
        out.push_str(&text[copied..span.start]);
        copied = span.end;
        let before = char_before(text, span.start);
        let slice = &text[span.clone()];

        // Commands first (in the original text of the span).
        let mut with_commands = String::with_capacity(slice.len());
        let mut last = 0;
        for token in scan_commands(slice, before) {
            let name = &slice[token.name.clone()];
            let is_known =
                *known
                    .entry(name.to_owned())
                    .or_insert_with(|| match catalog.lookup(name) {
                        Some(CommandLookup::Command(command)) => {
                            commands.push(command);
                            true
                        }
                        Some(CommandLookup::Skill(skill)) => {
                            skills.push(skill);
                            true
                        }
                        None => false,
                    });
            if is_known {
                with_commands.push_str(&slice[last..token.token.start]);
                with_commands
                    .push_str(&format!("Command '{name}' (see below for command content)"));
                last = token.token.end;
            }
        }
        with_commands.push_str(&slice[last..]);

        // Then mentions, in the text with commands replaced.
        let mut last = 0;
        for mention in scan_mentions(&with_commands, before) {
            let body = &with_commands[mention.body.clone()];
            let Some((reference, fetch)) = reference_for(body, mention.kind) else {
                continue;
            };
            out.push_str(&with_commands[last..mention.range.start]);
            out.push_str(&reference);
            last = mention.range.end;
            if let Some(fetch) = fetch
                && !fetch_index.contains_key(body)
            {
                fetch_index.insert(body.to_owned(), fetches.len());
                fetches.push(fetch);
            }
        }
        out.push_str(&with_commands[last..]);
    }
    out.push_str(&text[copied..]);
    if fetches.len() > 10_000 {
        diagnostics.push(MentionDiagnostic::new(
            "manyMentions",
            format!("{} distinct mentions in one message", fetches.len()),
        ));
    }
    MentionPlan {
        text: out,
        fetches,
        commands,
        skills,
        diagnostics,
    }
}

/// Appends the section of a non-path fetch (step 4 of `parseMentions`).
fn push_section(text: &mut String, fetch: &Fetch, value: &Result<String, String>) {
    let (open, close, error_prefix) = match fetch {
        Fetch::Path(_) => return,
        Fetch::Url(url) => (
            format!("<url_content url=\"{url}\">"),
            "</url_content>",
            "Error fetching content",
        ),
        Fetch::Problems => (
            "<workspace_diagnostics>".to_owned(),
            "</workspace_diagnostics>",
            "Error fetching diagnostics",
        ),
        Fetch::GitChanges => (
            "<git_working_state>".to_owned(),
            "</git_working_state>",
            "Error fetching working state",
        ),
        Fetch::Commit(hash) => (
            format!("<git_commit hash=\"{hash}\">"),
            "</git_commit>",
            "Error fetching commit info",
        ),
        Fetch::Terminal => (
            "<terminal_output>".to_owned(),
            "</terminal_output>",
            "Error fetching terminal output",
        ),
    };
    let inner = match value {
        Ok(content) => content.clone(),
        Err(message) => format!("{error_prefix}: {message}"),
    };
    text.push_str(&format!("\n\n{open}\n{inner}\n{close}"));
}

/// The `slashCommandHelp` text: commands, then skills, trimmed; `None` when empty.
pub fn slash_command_help(commands: &[Command], skills: &[Skill]) -> Option<String> {
    let mut help = String::new();
    for command in commands {
        help.push_str(&format!("\n\n<command name=\"{}\">\n", command.name));
        if let Some(description) = &command.description {
            help.push_str(&format!("Description: {description}\n\n"));
        }
        help.push_str(&command.content);
        help.push_str("\n</command>");
    }
    for skill in skills {
        help.push_str(&format!("\n\nSkill: {}", skill.name));
        if let Some(description) = &skill.description {
            help.push_str(&format!("\nDescription: {description}"));
        }
        help.push_str(&format!(
            "\nSource: {}\n\n--- Skill Instructions ---\n\n{}",
            skill.source, skill.instructions
        ));
    }
    let trimmed = help.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// Steps 4-5 of `parseMentions`: `fetched` holds one value per `plan.fetches`, in order (a
/// missing value counts as an error). Sections are appended in first-appearance order.
pub fn assemble(plan: MentionPlan, fetched: Vec<Fetched>) -> ParsedMentions {
    let mut text = plan.text;
    let mut content_blocks = Vec::new();
    let mut mentioned_files = Vec::new();
    let mut diagnostics = plan.diagnostics;
    let mut fetched = fetched.into_iter();
    for fetch in &plan.fetches {
        match (fetch, fetched.next()) {
            (Fetch::Path(_), Some(Fetched::Path(mention))) => {
                content_blocks.push(mention.block);
                if let Some(file) = mention.tracked_file
                    && !mentioned_files.contains(&file)
                {
                    mentioned_files.push(file);
                }
            }
            (Fetch::Path(p), _) => {
                diagnostics.push(MentionDiagnostic::new(
                    "notFetched",
                    format!("no value was fetched for @/{p}"),
                ));
            }
            (_, Some(Fetched::Text(value))) => push_section(&mut text, fetch, &value),
            (_, _) => push_section(&mut text, fetch, &Err("not fetched".to_owned())),
        }
    }
    let mode = plan.commands.iter().find_map(|c| c.mode.clone());
    ParsedMentions {
        text,
        content_blocks,
        slash_command_help: slash_command_help(&plan.commands, &plan.skills),
        mode,
        diagnostics,
        mentioned_files,
    }
}

/// What replaces one user-authored text of a content array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextExpansion {
    /// The parsed text.
    pub text: String,
    /// The content blocks' texts, then the command help, each becoming a `text` block.
    pub extra_texts: Vec<String>,
}

impl From<&ParsedMentions> for TextExpansion {
    fn from(parsed: &ParsedMentions) -> Self {
        let mut extra_texts: Vec<String> = parsed
            .content_blocks
            .iter()
            .map(|b| b.content.clone())
            .collect();
        extra_texts.extend(parsed.slash_command_help.clone());
        TextExpansion {
            text: parsed.text.clone(),
            extra_texts,
        }
    }
}

fn starts_user_message(text: &str) -> bool {
    text.trim_start().starts_with(USER_MESSAGE_OPEN)
}

fn text_block(text: String) -> Value {
    serde_json::json!({"type": "text", "text": text})
}

/// `processUserContentMentions`' walk over an Anthropic-style content array. `expand` is called
/// once per user-authored text, in input order, and may decline (`None`: left unchanged).
///
/// A top-level `text` block is user-authored when it contains `<user_message>`; inside tool
/// results (which carry tool output that may quote anything) only a text that *starts* with
/// `<user_message>` is, so a file or command output that merely contains the marker never
/// triggers mentions or commands. Unknown fields and block types are kept untouched.
pub fn walk_user_content(
    content: &[Value],
    expand: &mut dyn FnMut(&str) -> Option<TextExpansion>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(content.len());
    for block in content {
        let kind = block.get("type").and_then(Value::as_str);
        match kind {
            Some("text") => {
                let Some(text) = block.get("text").and_then(Value::as_str) else {
                    out.push(block.clone());
                    continue;
                };
                if !text.contains(USER_MESSAGE_OPEN) {
                    out.push(block.clone());
                    continue;
                }
                match expand(text) {
                    Some(expansion) => {
                        let mut replaced = block.clone();
                        replaced["text"] = Value::String(expansion.text);
                        out.push(replaced);
                        out.extend(expansion.extra_texts.into_iter().map(text_block));
                    }
                    None => out.push(block.clone()),
                }
            }
            Some("tool_result") => match block.get("content") {
                Some(Value::String(text)) if starts_user_message(text) => match expand(text) {
                    Some(expansion) => {
                        let mut parts = vec![text_block(expansion.text)];
                        parts.extend(expansion.extra_texts.into_iter().map(text_block));
                        let mut replaced = block.clone();
                        replaced["content"] = Value::Array(parts);
                        out.push(replaced);
                    }
                    None => out.push(block.clone()),
                },
                Some(Value::Array(elements)) => {
                    let mut parts = Vec::with_capacity(elements.len());
                    for element in elements {
                        let text = (element.get("type").and_then(Value::as_str) == Some("text"))
                            .then(|| element.get("text").and_then(Value::as_str))
                            .flatten()
                            .filter(|t| starts_user_message(t));
                        match text.and_then(&mut *expand) {
                            Some(expansion) => {
                                let mut replaced = element.clone();
                                replaced["text"] = Value::String(expansion.text);
                                parts.push(replaced);
                                parts.extend(expansion.extra_texts.into_iter().map(text_block));
                            }
                            None => parts.push(element.clone()),
                        }
                    }
                    let mut replaced = block.clone();
                    replaced["content"] = Value::Array(parts);
                    out.push(replaced);
                }
                _ => out.push(block.clone()),
            },
            _ => out.push(block.clone()),
        }
    }
    out
}

/// The texts [`walk_user_content`] would expand, in the order it would ask for them.
pub fn user_content_texts(content: &[Value]) -> Vec<String> {
    let mut texts = Vec::new();
    walk_user_content(content, &mut |text| {
        texts.push(text.to_owned());
        None
    });
    texts
}
