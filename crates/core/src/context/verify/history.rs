//! What the verification needs from the stored history: the user-authored texts, the files the
//! agent's tool calls read or edited, and the latest TODO list.

use serde_json::Value;

use super::{FileAction, TodoItem, TodoStatus};
use crate::conversation::{ApiMessage, Block, Content, MessageHead, Role};

/// Tags whose insides are the user's own words in Roo-style histories.
const USER_TAGS: &[&str] = &["task", "user_message", "feedback", "answer"];

/// Tools whose `path`-like inputs name a file the agent changed (also tool-output hygiene's).
pub(crate) fn is_edit_tool(name: &str) -> bool {
    matches!(
        name,
        "write_to_file"
            | "apply_diff"
            | "multi_apply_diff"
            | "insert_content"
            | "search_and_replace"
            | "search_replace"
            | "edit_file"
            | "apply_patch"
            | "edit"
            | "write"
            | "create_file"
            | "str_replace_editor"
    )
}

/// Tools whose inputs name a file the agent read (also tool-output hygiene's).
pub(crate) fn is_read_tool(name: &str) -> bool {
    matches!(name, "read_file" | "view" | "read" | "simple_read_file")
}

/// A piece of user-authored text and the message it came from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UserText {
    pub(crate) message: usize,
    pub(crate) text: String,
}

/// The insides of `<tag>…</tag>` for the user tags, in order.
fn tagged_spans(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find('<') {
        let start = at + open;
        let rest = &text[start + 1..];
        let Some(tag) = USER_TAGS
            .iter()
            .find(|tag| rest.starts_with(*tag) && rest[tag.len()..].starts_with('>'))
        else {
            at = start + 1;
            continue;
        };
        let body = start + tag.len() + 2;
        let close = format!("</{tag}>");
        match text[body..].find(&close) {
            Some(end) => {
                spans.push(text[body..body + end].trim());
                at = body + end + close.len();
            }
            None => {
                spans.push(text[body..].trim());
                break;
            }
        }
    }
    spans
}

/// Plain text with the sidecar's and host's own sections removed.
fn plain_user_text(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    // Tool-result echoes (`[read_file for 'a'] Result:`), nags (`[ERROR] ...`), environment
    // details and reminders are not the user's words.
    if trimmed.is_empty()
        || trimmed.starts_with('[')
        || trimmed.starts_with("<environment_details>")
        || trimmed.starts_with("<system-reminder>")
        || trimmed.starts_with("<file_content")
        || trimmed.starts_with("## Conversation Summary")
    {
        return None;
    }
    Some(match trimmed.find("<environment_details>") {
        Some(cut) => trimmed[..cut].trim_end(),
        None => trimmed,
    })
}

/// How far into a tool result a user tag may start (Roo puts `<feedback>` / `<answer>` after a
/// one-line header), so the bulk of tool output is never scanned.
const TOOL_RESULT_TAG_WINDOW: usize = 512;

fn push_text(out: &mut Vec<UserText>, message: usize, text: &str, plain_allowed: bool) {
    if !plain_allowed {
        // One scan of the head's bytes for `<`, each checked against every tag (not one scan
        // per tag). A cut inside a character needs no care: `<` is never part of one.
        let head = TOOL_RESULT_TAG_WINDOW.min(text.len());
        let opens_a_tag = memchr::memchr_iter(b'<', &text.as_bytes()[..head])
            .any(|at| USER_TAGS.iter().any(|tag| text[at + 1..].starts_with(tag)));
        if !opens_a_tag {
            return;
        }
    }
    let spans = tagged_spans(text);
    if !spans.is_empty() {
        for span in spans {
            if !span.is_empty() {
                out.push(UserText {
                    message,
                    text: span.to_owned(),
                });
            }
        }
    } else if plain_allowed && let Some(plain) = plain_user_text(text) {
        out.push(UserText {
            message,
            text: plain.to_owned(),
        });
    }
}

/// The user-authored texts of one user message (see [`scan`]), and the ids of its failed tool
/// results (when `failed` is given), viewing each block once.
fn read_user_message<'a>(
    texts: Option<&mut Vec<UserText>>,
    mut failed: Option<&mut rustc_hash::FxHashSet<&'a str>>,
    index: usize,
    head: &MessageHead<'a>,
) {
    let mut texts = texts.filter(|_| !head.is_summary && !head.is_truncation_marker);
    match head.content {
        Content::Text(text) => {
            if let Some(out) = texts.as_deref_mut() {
                push_text(out, index, text, true);
            }
        }
        Content::Blocks(blocks) => {
            for block in blocks {
                match Block::view(block) {
                    Block::Text { text: Some(text) } => {
                        if let Some(out) = texts.as_deref_mut() {
                            push_text(out, index, text, true);
                        }
                    }
                    Block::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } => {
                        if is_error
                            && let (Some(id), Some(failed)) = (tool_use_id, failed.as_deref_mut())
                        {
                            failed.insert(id);
                        }
                        let Some(out) = texts.as_deref_mut() else {
                            continue;
                        };
                        match content {
                            Some(Value::String(text)) => push_text(out, index, text, false),
                            Some(Value::Array(items)) => {
                                for item in items {
                                    if let Block::Text { text: Some(text) } = Block::view(item) {
                                        push_text(out, index, text, false);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The paths a tool input names (`path`-like keys, `files`, Roo's XML `args`, patches).
pub(crate) fn paths_in_input<'a>(input: &'a Value, out: &mut Vec<&'a str>) {
    let Some(object) = input.as_object() else {
        return;
    };
    // The keys this reads, in one pass over the input's keys (eleven lookups compared every key
    // eleven times, on every tool call of the history).
    let mut direct: [Option<&'a Value>; 5] = [None; 5];
    let (mut list, mut files, mut args) = (None, None, None);
    let mut patches: [Option<&'a Value>; 3] = [None; 3];
    let mut visit = |key: &str, value: &'a Value| match key {
        "path" => direct[0] = Some(value),
        "file_path" => direct[1] = Some(value),
        "filePath" => direct[2] = Some(value),
        "target_file" => direct[3] = Some(value),
        "file" => direct[4] = Some(value),
        "paths" => list = Some(value),
        "files" => files = Some(value),
        "args" => args = Some(value),
        "patch" => patches[0] = Some(value),
        "input" => patches[1] = Some(value),
        "diff" => patches[2] = Some(value),
        _ => {}
    };
    for (key, value) in object {
        visit(key, value);
    }
    for path in direct.into_iter().flatten().filter_map(Value::as_str) {
        out.push(path);
    }
    if let Some(list) = list.and_then(Value::as_array) {
        out.extend(list.iter().filter_map(Value::as_str));
    }
    if let Some(files) = files.and_then(Value::as_array) {
        for file in files {
            match file {
                Value::String(path) => out.push(path),
                other => paths_in_input(other, out),
            }
        }
    }
    // Roo's XML `args` (`<file><path>a.ts</path></file>`).
    if let Some(args) = args.and_then(Value::as_str) {
        let mut rest = args;
        while let Some(open) = rest.find("<path>") {
            let body = &rest[open + 6..];
            let Some(close) = body.find("</path>") else {
                break;
            };
            out.push(body[..close].trim());
            rest = &body[close + 7..];
        }
    }
    // apply_patch: `*** Update File: a.ts`.
    for patch in patches {
        if let Some(patch) = patch.and_then(Value::as_str) {
            for line in patch.lines() {
                for marker in ["*** Update File: ", "*** Add File: ", "*** Delete File: "] {
                    if let Some(path) = line.strip_prefix(marker) {
                        out.push(path.trim());
                    }
                }
            }
        }
    }
}

/// What the verification reads from the history, gathered in one pass (a pass over a long
/// history costs mostly memory traffic, so each extra pass was milliseconds).
#[derive(Debug, Default)]
pub(crate) struct HistoryScan<'a> {
    /// Every user-authored text, oldest first: tagged spans anywhere in user messages (tool
    /// results included), plain user text outside tool results. Summaries and truncation
    /// markers are not the user's.
    pub(crate) user_texts: Vec<UserText>,
    /// The files named by the agent's tool calls, each once in first-seen order with its
    /// strongest action: edits (unless their result was an error) and reads.
    pub(crate) touched_files: Vec<(&'a str, FileAction)>,
}

/// Scans the history once for the user's texts (when `texts`) and the touched files (when
/// `files`).
pub(crate) fn scan(messages: &[ApiMessage], texts: bool, files: bool) -> HistoryScan<'_> {
    let mut user_texts = Vec::new();
    let mut failed = rustc_hash::FxHashSet::default();
    // Per edit or read call in order: its id when an edit, its action, its first path's index
    // in `paths`. Failed edits (whose results come later) are dropped at the end.
    let mut calls: Vec<(Option<&str>, FileAction, usize)> = Vec::new();
    let mut paths: Vec<&str> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let head = message.head();
        match head.role {
            Some(Role::User) => read_user_message(
                texts.then_some(&mut user_texts),
                files.then_some(&mut failed),
                index,
                &head,
            ),
            Some(Role::Assistant) if files => {
                let Content::Blocks(blocks) = head.content else {
                    continue;
                };
                for block in blocks {
                    // Text and reasoning blocks are skipped on their `type` alone.
                    if Block::kind(block) != Some("tool_use") {
                        continue;
                    }
                    let Block::ToolUse {
                        id,
                        name: Some(name),
                        input: Some(input),
                    } = Block::view(block)
                    else {
                        continue;
                    };
                    let (action, id) = if is_edit_tool(name) {
                        (FileAction::Edited, id)
                    } else if is_read_tool(name) {
                        (FileAction::Read, None)
                    } else {
                        continue;
                    };
                    calls.push((id, action, paths.len()));
                    paths_in_input(input, &mut paths);
                }
            }
            _ => {}
        }
    }
    let mut touched_files: Vec<(&str, FileAction)> = Vec::new();
    let mut seen: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    let total = paths.len();
    let mut paths = paths.into_iter();
    for (at, &(id, action, first)) in calls.iter().enumerate() {
        let end = calls.get(at + 1).map_or(total, |next| next.2);
        let call_paths = paths.by_ref().take(end - first);
        if id.is_some_and(|id| failed.contains(id)) {
            call_paths.for_each(drop);
            continue;
        }
        for path in call_paths.filter(|p| !p.trim().is_empty()) {
            match seen.get(path) {
                Some(&at) => touched_files[at].1 = touched_files[at].1.min(action),
                None => {
                    seen.insert(path, touched_files.len());
                    touched_files.push((path, action));
                }
            }
        }
    }
    HistoryScan {
        user_texts,
        touched_files,
    }
}

/// Parses a markdown checklist (`[ ]` pending, `[-]`/`[~]` in progress, `[x]` completed).
pub fn parse_todo_checklist(text: &str) -> Vec<TodoItem> {
    let mut items = Vec::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '+']).trim_start();
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let mut chars = rest.chars();
        let (mark, close) = (chars.next(), chars.next());
        let status = match (mark, close) {
            (Some(' '), Some(']')) => TodoStatus::Pending,
            (Some('-' | '~'), Some(']')) => TodoStatus::InProgress,
            (Some('x' | 'X'), Some(']')) => TodoStatus::Completed,
            _ => continue,
        };
        let content = rest[2..].trim();
        if !content.is_empty() {
            items.push(TodoItem {
                content: content.to_owned(),
                status,
            });
        }
    }
    items
}

/// Parses the last `REMINDERS` table of an environment-details text (`| # | Content | Status |`).
fn parse_reminders(text: &str) -> Option<Vec<TodoItem>> {
    let at = text.rfind("REMINDERS")?;
    let mut items = Vec::new();
    for line in text[at..].lines().skip(1) {
        let line = line.trim();
        if !line.starts_with('|') {
            if !items.is_empty() {
                break;
            }
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 3 || cells[0] == "#" || cells[0].starts_with("--") {
            continue;
        }
        let status = match cells[cells.len() - 1].to_lowercase().as_str() {
            "completed" | "done" => TodoStatus::Completed,
            "in progress" | "in_progress" | "inprogress" => TodoStatus::InProgress,
            _ => TodoStatus::Pending,
        };
        let content = cells[1..cells.len() - 1].join(" | ");
        items.push(TodoItem { content, status });
    }
    (!items.is_empty()).then_some(items)
}

/// The latest TODO list: the last `update_todo_list` call (its `todos` checklist), else the last
/// `REMINDERS` table the host showed the model.
pub(crate) fn latest_todos(messages: &[ApiMessage]) -> Option<Vec<TodoItem>> {
    for message in messages.iter().rev() {
        if message.is_assistant() {
            for block in message.blocks().iter().rev() {
                if let Block::ToolUse {
                    name: Some("update_todo_list"),
                    input: Some(input),
                    ..
                } = Block::view(block)
                {
                    let todos = input.get("todos");
                    let items = match todos {
                        Some(Value::String(text)) => parse_todo_checklist(text),
                        Some(Value::Array(list)) => list
                            .iter()
                            .filter_map(|item| {
                                let content = item.get("content")?.as_str()?.to_owned();
                                let status = TodoStatus::parse(
                                    item.get("status").and_then(Value::as_str).unwrap_or(""),
                                );
                                Some(TodoItem { content, status })
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    return Some(items);
                }
            }
        } else if message.is_user() && !message.is_summary() {
            let texts: Vec<&str> = match message.content() {
                Content::Text(text) => vec![text],
                Content::Blocks(blocks) => blocks
                    .iter()
                    .filter_map(|block| match Block::view(block) {
                        Block::Text { text } => text,
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for text in texts.iter().rev() {
                if text.contains("REMINDERS")
                    && let Some(items) = parse_reminders(text)
                {
                    return Some(items);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::conversation::Role;

    fn call(id: &str, name: &str, input: Value) -> ApiMessage {
        ApiMessage::new(
            Role::Assistant,
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        )
    }

    fn result(id: &str, is_error: bool, text: &str) -> ApiMessage {
        ApiMessage::new(
            Role::User,
            json!([{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": text}]),
        )
    }

    /// The one-pass scan drops a failed edit's paths (its result comes after the call) and
    /// only those: the calls around it keep theirs, in first-seen order.
    #[test]
    fn a_failed_edit_drops_only_its_own_paths() {
        let messages = vec![
            call(
                "1",
                "read_file",
                json!({"args": "<file><path>r.ts</path></file><file><path>s.ts</path></file>"}),
            ),
            result("1", false, "ok"),
            call("2", "write_to_file", json!({"paths": ["f.ts", "g.ts"]})),
            result("2", true, "<feedback>no</feedback>"),
            call("3", "apply_diff", json!({"path": "s.ts"})),
            result("3", false, "ok"),
            call("4", "write_to_file", json!({"path": "g.ts"})),
            result("4", false, "ok"),
        ];
        let scan = scan(&messages, true, true);
        assert_eq!(
            scan.touched_files,
            vec![
                ("r.ts", FileAction::Read),
                ("s.ts", FileAction::Edited),
                ("g.ts", FileAction::Edited),
            ]
        );
        assert_eq!(
            scan.user_texts,
            vec![UserText {
                message: 3,
                text: "no".into()
            }]
        );
        let files_only = super::scan(&messages, false, true);
        assert!(files_only.user_texts.is_empty());
        assert_eq!(files_only.touched_files, scan.touched_files);
    }
}
