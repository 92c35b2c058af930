//! Tool-output hygiene (issue 31): old observations masked and superseded file reads elided,
//! non-destructively, in batches.
//! Over 700 lines because its unit tests, about 675 lines, sit below the code; the code keeps
//! the one writer of the `contextHygiene` entry (`entry_for`) beside its readers (`hygiene_view`,
//! `drop_undone_hygiene`) and the planner `decide`, whose private helpers `entry_for` reuses.
//!
//! A decision never edits a message's content. It adds an entry to the message's
//! `contextHygiene` field (unknown to the original, so it round-trips like any other field):
//! which `tool_result` (by `toolUseId`) the model sees as which one-line text. The effective
//! history ([`crate::conversation::effective_api_history`]) applies the entries, so every
//! model-facing path (the request, budgets, condense requests, truncation) sees the placeholders
//! and the stored message keeps its bytes. A rewind that removes the newest message a decision
//! saw removes the decision ([`drop_undone_hygiene`], run by `cleanup_after_truncation`).
//!
//! The rules, in order:
//! - Nothing in the last `keep_recent_turns` assistant turns is touched (the model is still
//!   working with it), and a decision once made stays (the cache prefix changes only when a new
//!   batch is made; a pin lifts it, the host's explicit choice).
//! - File content is elided only when superseded: a read of a file is replaced by a pointer when
//!   a later full read or a later successful `write_to_file` of the same file holds newer
//!   content (a partial read also when a later partial read covers its ranges). File reads are
//!   never masked by size, so the latest content the model saw of every file stays in context
//!   (the latest read of a file the agent edits included).
//! - Other tool results (commands, searches, MCP, listings) larger than `mask_above_tokens` are
//!   masked: a typed placeholder with the tool, its arguments, the size and the stored output id
//!   when the result carries one (from `roo/output/ingest`), so nothing is lost. The last failing
//!   result and pinned results never are.
//! - New decisions are made only when what they would free reaches `batch_tokens`: until then the
//!   request's prefix stays byte-identical (`pending_tokens` says how much waits).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::conversation::message::field;
use crate::conversation::{
    ApiMessage, Block, Content, HistoryTokens, TokenCounter, block_tokens, effective_api_history,
};

use super::ingest::is_line_that_matters;
// One owner of which tools read and edit files, and of the paths a tool input names: the
// summary verification's.
use super::verify::{is_edit_tool, is_read_tool, paths_in_input};

/// The message field holding the hygiene decisions (an array of entries, one per tool result).
pub const HYGIENE_FIELD: &str = "contextHygiene";

/// Default of [`HygieneOptions::keep_recent_turns`].
pub const DEFAULT_KEEP_RECENT_TURNS: usize = 3;
/// Default of [`HygieneOptions::mask_above_tokens`].
pub const DEFAULT_MASK_ABOVE_TOKENS: usize = 500;
/// Default of [`HygieneOptions::batch_tokens`]: a batch must free at least this much, so a
/// decision (which rewrites the prompt cache from its first message) pays for itself.
pub const DEFAULT_BATCH_TOKENS: usize = 4_000;
/// Arguments in a placeholder are cut to this many bytes.
pub const MAX_PLACEHOLDER_ARGUMENT_BYTES: usize = 300;

/// Tools whose input holds a file's whole new content (`path`, `content`).
const FULL_WRITE_TOOLS: &[&str] = &["write_to_file"];

/// What the host asks of one shaping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HygieneOptions {
    /// Results in the last this-many assistant turns are untouched (at least 1: the newest
    /// results have not been seen by the model yet).
    pub keep_recent_turns: usize,
    /// A non-file result is masked when its content counts more tokens than this.
    pub mask_above_tokens: usize,
    /// New decisions are made only when they free at least this many tokens together.
    pub batch_tokens: usize,
    /// Mask large old observations.
    pub mask: bool,
    /// Elide superseded file reads.
    pub elide_superseded: bool,
    /// `tool_use` ids never masked or elided (a pin also lifts an earlier decision).
    pub pinned: HashSet<String>,
    /// Paths the agent edited (the tracker's records), beside the edit tools of the history;
    /// reported in [`HygieneOutcome::edited_paths`], their latest reads kept.
    pub edited_paths: Vec<String>,
}

impl Default for HygieneOptions {
    fn default() -> Self {
        HygieneOptions {
            keep_recent_turns: DEFAULT_KEEP_RECENT_TURNS,
            mask_above_tokens: DEFAULT_MASK_ABOVE_TOKENS,
            batch_tokens: DEFAULT_BATCH_TOKENS,
            mask: true,
            elide_superseded: true,
            pinned: HashSet::new(),
            edited_paths: Vec::new(),
        }
    }
}

/// Why a tool result is shown as a placeholder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HygieneKind {
    /// A large old observation.
    Masked,
    /// A file read with newer content later in the history.
    Superseded,
}

impl HygieneKind {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HygieneKind::Masked => "masked",
            HygieneKind::Superseded => "superseded",
        }
    }
}

/// One new decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HygieneDecision {
    /// The `tool_use_id` of the result.
    pub tool_use_id: String,
    /// Masked or superseded.
    pub kind: HygieneKind,
    /// The stored index of the message holding the result.
    pub message_index: usize,
    /// The tool's name.
    pub tool: String,
    /// Tokens of the result as it was.
    pub tokens: usize,
    /// The stored output id the result names, when it names one.
    pub output_id: Option<String>,
    /// For a superseded read, the `tool_use` id holding the newer content.
    pub superseded_by: Option<String>,
}

/// What one shaping did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HygieneOutcome {
    /// The stored history with the decisions added (content untouched).
    pub messages: Vec<ApiMessage>,
    /// Whether any message changed.
    pub changed: bool,
    /// The new decisions, in history order.
    pub decisions: Vec<HygieneDecision>,
    /// Earlier decisions lifted by a pin.
    pub unpinned: Vec<String>,
    /// Model-facing tokens of the effective history before and after.
    pub tokens_before: usize,
    /// See `tokens_before`.
    pub tokens_after: usize,
    /// Leading messages of the effective history that stayed byte-identical (the prompt-cache
    /// prefix kept); the whole effective history when nothing changed.
    pub kept_prefix_messages: usize,
    /// The stored index of the first message the model sees differently, if any.
    pub first_changed_index: Option<usize>,
    /// Tokens the eligible results not decided yet would free (below `batch_tokens`).
    pub pending_tokens: usize,
    /// Whether eligible results wait for a larger batch.
    pub deferred: bool,
    /// The paths whose files the agent edits (options and history), sorted.
    pub edited_paths: Vec<String>,
}

/// A file access seen in the history.
#[derive(Clone, Debug)]
enum Access {
    /// A read of these ranges (`None`: the whole file; an empty list: ranges unknown).
    Read(Option<Vec<(u64, u64)>>),
    /// The whole new content, in the `tool_use` input.
    FullWrite,
}

/// One tool call answered in the visible history.
struct Call<'a> {
    id: &'a str,
    name: &'a str,
    input: Option<&'a Value>,
    /// Stored index of the message holding the result.
    result_index: usize,
    result: &'a Value,
    is_error: bool,
}

/// Applies a message's hygiene entries: the model-facing copy, or `None` when no entry names
/// one of its tool results (the message is seen as stored).
pub fn hygiene_view(message: &ApiMessage) -> Option<ApiMessage> {
    let entries = field(&message.fields, HYGIENE_FIELD)?.as_array()?;
    let Content::Blocks(blocks) = message.content() else {
        return None;
    };
    let texts: HashMap<&str, &str> = entries
        .iter()
        .filter_map(|entry| {
            Some((
                entry.get("toolUseId")?.as_str()?,
                entry.get("text")?.as_str()?,
            ))
        })
        .collect();
    if texts.is_empty() {
        return None;
    }
    let mut changed = false;
    let shaped: Vec<Value> = blocks
        .iter()
        .map(|block| match Block::view(block) {
            Block::ToolResult {
                tool_use_id: Some(id),
                ..
            } if texts.contains_key(id) => {
                let mut block = block.clone();
                if let Some(object) = block.as_object_mut() {
                    object.insert("content".into(), Value::String(texts[id].to_owned()));
                    changed = true;
                }
                block
            }
            _ => block.clone(),
        })
        .collect();
    changed.then(|| {
        let mut copy = message.clone();
        copy.set_content(Value::Array(shaped));
        copy
    })
}

/// Each message as the model sees it once its hygiene entries apply, borrowed where none does
/// (for requests built from the stored history rather than the effective one).
pub(crate) fn hygiene_views<M: AsRef<ApiMessage>>(messages: &[M]) -> Vec<Cow<'_, ApiMessage>> {
    messages
        .iter()
        .map(|message| {
            let message = message.as_ref();
            match has_hygiene(message)
                .then(|| hygiene_view(message))
                .flatten()
            {
                Some(shaped) => Cow::Owned(shaped),
                None => Cow::Borrowed(message),
            }
        })
        .collect()
}

/// Whether one of the message's hygiene entries names the tool result `tool_use_id`.
pub(crate) fn has_placeholder(message: &ApiMessage, tool_use_id: &str) -> bool {
    field(&message.fields, HYGIENE_FIELD)
        .and_then(Value::as_array)
        .is_some_and(|entries| {
            entries.iter().any(|entry| {
                entry.get("toolUseId").and_then(Value::as_str) == Some(tool_use_id)
                    && entry.get("text").is_some_and(Value::is_string)
            })
        })
}

/// Whether a message carries a hygiene field (cheap: the effective history asks every message).
pub(crate) fn has_hygiene(message: &ApiMessage) -> bool {
    field(&message.fields, HYGIENE_FIELD).is_some()
}

/// Removes the decisions a rewind undid: an entry made when the history's newest timestamp was
/// `decidedAtTs` is undone once no message that new is left (a rewind cuts by timestamp); one
/// made without timestamps is undone once the history is shorter than `decidedAtLength`.
/// Returns whether anything changed.
pub fn drop_undone_hygiene(messages: &mut [ApiMessage]) -> bool {
    if !messages.iter().any(has_hygiene) {
        return false;
    }
    let newest = newest_ts(messages);
    let length = messages.len() as f64;
    let mut changed = false;
    for message in messages.iter_mut() {
        let Some(Value::Array(entries)) = message.fields.get_mut(HYGIENE_FIELD) else {
            continue;
        };
        let before = entries.len();
        entries.retain(|entry| {
            match (
                entry.get("decidedAtTs").and_then(Value::as_f64),
                entry.get("decidedAtLength").and_then(Value::as_f64),
            ) {
                (Some(ts), _) => newest.is_some_and(|newest| newest >= ts),
                (None, Some(at)) => length >= at,
                // An entry that does not say when it was made is not ours to judge: kept.
                (None, None) => true,
            }
        });
        if entries.len() != before {
            changed = true;
            if entries.is_empty() {
                message.remove_field(HYGIENE_FIELD);
            }
        }
    }
    changed
}

fn newest_ts(messages: &[ApiMessage]) -> Option<f64> {
    messages
        .iter()
        .filter(|message| message.has_truthy_ts())
        .filter_map(ApiMessage::ts)
        .fold(None, |newest, ts| {
            Some(newest.map_or(ts, |n: f64| n.max(ts)))
        })
}

/// A path as compared: `\` as `/`, no leading `./`.
fn normalize_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut rest = path.as_str();
    while let Some(stripped) = rest.strip_prefix("./") {
        rest = stripped;
    }
    rest.to_owned()
}

/// `a-b` or `[a, b]` line ranges; `None` when one cannot be read.
fn parse_ranges(value: &Value) -> Option<Vec<(u64, u64)>> {
    let items = value.as_array()?;
    items
        .iter()
        .map(|item| match item {
            Value::String(text) => {
                let (start, end) = text.split_once('-')?;
                Some((start.trim().parse().ok()?, end.trim().parse().ok()?))
            }
            Value::Array(pair) if pair.len() == 2 => Some((pair[0].as_u64()?, pair[1].as_u64()?)),
            _ => None,
        })
        .collect()
}

/// The ranges one file entry of a read asks for (`None`: the whole file).
fn read_ranges(entry: &Map<String, Value>) -> Option<Vec<(u64, u64)>> {
    if let Some(ranges) = entry.get("line_ranges").filter(|r| !r.is_null()) {
        if ranges.as_array().is_some_and(Vec::is_empty) {
            return None;
        }
        return Some(parse_ranges(ranges).unwrap_or_default());
    }
    let start = entry.get("start_line").and_then(Value::as_u64);
    let end = entry.get("end_line").and_then(Value::as_u64);
    match (start, end) {
        (None, None) => None,
        (start, end) => Some(vec![(start.unwrap_or(1), end.unwrap_or(u64::MAX))]),
    }
}

/// The files a call reads or writes, with what it does to each.
fn accesses(name: &str, input: Option<&Value>) -> Vec<(String, Access)> {
    let Some(input) = input.and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut entries: Vec<&Map<String, Value>> = vec![input];
    if let Some(files) = input.get("files").and_then(Value::as_array) {
        entries.extend(files.iter().filter_map(Value::as_object));
    }
    let mut found = Vec::new();
    for entry in entries {
        let Some(path) = entry.get("path").and_then(Value::as_str) else {
            continue;
        };
        let access = if is_read_tool(name) {
            Access::Read(read_ranges(entry))
        } else if FULL_WRITE_TOOLS.contains(&name) && entry.get("content").is_some() {
            Access::FullWrite
        } else {
            continue;
        };
        found.push((normalize_path(path), access));
    }
    found
}

fn edited_paths_of(name: &str, input: Option<&Value>) -> Vec<String> {
    let Some(input) = input.filter(|_| is_edit_tool(name)) else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    paths_in_input(input, &mut paths);
    paths.into_iter().map(normalize_path).collect()
}

/// Whether `later` shows at least what `earlier` showed of a file.
fn covers(later: &Access, earlier: &Access) -> bool {
    match (later, earlier) {
        (Access::FullWrite | Access::Read(None), _) => true,
        (Access::Read(Some(later)), Access::Read(Some(earlier))) => {
            !earlier.is_empty()
                && earlier.iter().all(|(start, end)| {
                    later
                        .iter()
                        .any(|(l_start, l_end)| l_start <= start && end <= l_end)
                })
        }
        _ => false,
    }
}

/// The text lines of a tool result's content.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| match Block::view(item) {
                Block::Text { text } => text,
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Whether a line reports a failure: among the lines ingest keeps, those that say something
/// failed (a summary line such as `test result: ok. 3 passed` does not).
fn is_failure_line(line: &str) -> bool {
    if !is_line_that_matters(line) {
        return false;
    }
    let lower = line.to_lowercase();
    let failed = [
        "error",
        "fail",
        "panicked",
        "traceback",
        "exception",
        "not ok",
    ]
    .iter()
    .any(|word| lower.contains(word))
        || line.contains('✗')
        || line.contains('✘');
    failed && !lower.contains(" 0 failed") && !lower.contains("failed: 0")
}

/// The stored output id a result names: a block's `outputId`, or the note of an ingest preview
/// (`... stored as outputId "<id>" ...`).
fn output_id_of(block: &Value, text: &str) -> Option<String> {
    if let Some(id) = block.get("outputId").and_then(Value::as_str) {
        return Some(id.to_owned());
    }
    let marker = "stored as outputId \"";
    let start = text.rfind(marker)? + marker.len();
    let end = text[start..].find('"')?;
    Some(text[start..start + end].to_owned()).filter(|id| !id.is_empty())
}

/// A tool's input as compact JSON, cut to [`MAX_PLACEHOLDER_ARGUMENT_BYTES`].
fn arguments(input: Option<&Value>) -> String {
    let Some(input) = input else {
        return "{}".into();
    };
    let text = serde_json::to_string(input).unwrap_or_default();
    if text.len() <= MAX_PLACEHOLDER_ARGUMENT_BYTES {
        return text;
    }
    let mut cut = MAX_PLACEHOLDER_ARGUMENT_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

/// The text the model sees in place of a masked result.
pub fn masked_text(
    tool: &str,
    input: Option<&Value>,
    tokens: usize,
    output_id: Option<&str>,
) -> String {
    let how = match output_id {
        Some(id) => format!(
            "The full output is stored as outputId \"{id}\": page it with roo/output/read {{\"outputId\": \"{id}\"}}."
        ),
        None => "Run the tool again if you need it.".into(),
    };
    format!(
        "[Old tool output masked to save context: {tool} {args} returned {tokens} tokens. {how}]",
        args = arguments(input)
    )
}

/// The one-line pointer shown in place of a superseded read.
pub fn superseded_text(paths: &[String], later_tool: &str, later_id: &str) -> String {
    format!(
        "[Superseded read of {}: the later {later_tool} (tool_use_id {later_id}) has this file's newer content.]",
        paths.join(", ")
    )
}

/// What a shaping will do, decided on a borrowed history ([`plan_hygiene`]); nothing to do
/// when [`HygienePlan::is_empty`], so a caller holding the history need not copy it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HygienePlan {
    /// The new decisions, in history order.
    pub decisions: Vec<HygieneDecision>,
    /// Earlier decisions a pin lifts: (stored message index, `tool_use` id).
    pub unpins: Vec<(usize, String)>,
    /// Model-facing tokens of the effective history as it is.
    pub tokens_before: usize,
    /// See [`HygieneOutcome::pending_tokens`].
    pub pending_tokens: usize,
    /// See [`HygieneOutcome::deferred`].
    pub deferred: bool,
    /// See [`HygieneOutcome::edited_paths`].
    pub edited_paths: Vec<String>,
    /// Stored indices of the visible messages (hygiene never changes which are visible).
    visible: Vec<usize>,
}

impl HygienePlan {
    /// Whether the plan changes nothing.
    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty() && self.unpins.is_empty()
    }
}

/// Decides which old tool results the model sees as placeholders (see the module
/// documentation for the rules), without changing anything. Pure; `counter` is the one token
/// counter of the request.
pub fn plan_hygiene(
    messages: &[ApiMessage],
    options: &HygieneOptions,
    counter: &dyn TokenCounter,
) -> HygienePlan {
    let before = effective_api_history(messages);
    let tokens_before = HistoryTokens::new(messages, counter).total(&before.messages);
    let visible = before.source_indices;
    let unpins = pins_to_lift(messages, &options.pinned);
    let (decisions, pending_tokens, deferred, edited_paths) =
        decide(messages, &visible, options, counter);
    HygienePlan {
        decisions,
        unpins,
        tokens_before,
        pending_tokens,
        deferred,
        edited_paths,
        visible,
    }
}

/// Applies a plan made by [`plan_hygiene`] on these same messages: the decisions become
/// `contextHygiene` entries, lifted pins lose theirs; the report of what changed.
pub fn apply_hygiene(
    mut messages: Vec<ApiMessage>,
    plan: HygienePlan,
    counter: &dyn TokenCounter,
) -> HygieneOutcome {
    // The messages the model sees differently are exactly those whose entries change, and
    // which messages are visible does not change, so no copy of the history is compared.
    let mut first_changed: Option<usize> = None;
    let mut touched = |index: usize| {
        first_changed = Some(first_changed.map_or(index, |first| first.min(index)));
    };
    for (index, id) in &plan.unpins {
        let message = &mut messages[*index];
        if let Some(Value::Array(entries)) = message.fields.get_mut(HYGIENE_FIELD) {
            entries.retain(|entry| entry.get("toolUseId").and_then(Value::as_str) != Some(id));
            if entries.is_empty() {
                message.remove_field(HYGIENE_FIELD);
            }
        }
        touched(*index);
    }
    let newest = newest_ts(&messages);
    let length = messages.len();
    for decision in &plan.decisions {
        let entry = entry_for(&messages, decision, newest, length);
        let message = &mut messages[decision.message_index];
        match message.fields.get_mut(HYGIENE_FIELD) {
            Some(Value::Array(entries)) => entries.push(entry),
            _ => {
                message
                    .fields
                    .insert(HYGIENE_FIELD.into(), Value::Array(vec![entry]));
            }
        }
        touched(decision.message_index);
    }
    let tokens_after = if first_changed.is_some() {
        let after = effective_api_history(&messages);
        HistoryTokens::new(&messages, counter).total(&after.messages)
    } else {
        plan.tokens_before
    };
    let kept = match first_changed {
        Some(first) => plan
            .visible
            .iter()
            .take_while(|&&index| index < first)
            .count(),
        None => plan.visible.len(),
    };
    HygieneOutcome {
        changed: first_changed.is_some(),
        decisions: plan.decisions,
        unpinned: plan.unpins.into_iter().map(|(_, id)| id).collect(),
        tokens_before: plan.tokens_before,
        tokens_after,
        kept_prefix_messages: kept,
        first_changed_index: first_changed,
        pending_tokens: plan.pending_tokens,
        deferred: plan.deferred,
        edited_paths: plan.edited_paths,
        messages,
    }
}

/// [`plan_hygiene`] then [`apply_hygiene`].
pub fn shape_history(
    messages: Vec<ApiMessage>,
    options: &HygieneOptions,
    counter: &dyn TokenCounter,
) -> HygieneOutcome {
    let plan = plan_hygiene(&messages, options, counter);
    apply_hygiene(messages, plan, counter)
}

/// The entries of pinned results: (message index, `tool_use` id).
fn pins_to_lift(messages: &[ApiMessage], pinned: &HashSet<String>) -> Vec<(usize, String)> {
    if pinned.is_empty() {
        return Vec::new();
    }
    let mut lifted = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let Some(Value::Array(entries)) = field(&message.fields, HYGIENE_FIELD) else {
            continue;
        };
        for entry in entries {
            if let Some(id) = entry.get("toolUseId").and_then(Value::as_str)
                && pinned.contains(id)
            {
                lifted.push((index, id.to_owned()));
            }
        }
    }
    lifted
}

fn entry_for(
    messages: &[ApiMessage],
    decision: &HygieneDecision,
    newest: Option<f64>,
    length: usize,
) -> Value {
    let input = tool_input(messages, &decision.tool_use_id);
    let text = match (decision.kind, &decision.superseded_by) {
        (HygieneKind::Superseded, Some(later)) => {
            let paths: Vec<String> = accesses(&decision.tool, input)
                .into_iter()
                .map(|(path, _)| path)
                .collect();
            let later_tool = tool_name(messages, later).unwrap_or("tool");
            superseded_text(&paths, later_tool, later)
        }
        _ => masked_text(
            &decision.tool,
            input,
            decision.tokens,
            decision.output_id.as_deref(),
        ),
    };
    let mut entry = json!({
        "toolUseId": decision.tool_use_id,
        "kind": decision.kind.as_str(),
        "tool": decision.tool,
        "tokens": decision.tokens,
    });
    let object = entry.as_object_mut().expect("an object literal");
    if let Some(id) = &decision.output_id {
        object.insert("outputId".into(), json!(id));
    }
    if let Some(later) = &decision.superseded_by {
        object.insert("supersededBy".into(), json!(later));
    }
    object.insert("text".into(), json!(text));
    match newest {
        // An integral timestamp is written as an integer, as the host (JavaScript) writes it.
        Some(ts) if ts.fract() == 0.0 && ts.abs() < 9e15 => {
            object.insert("decidedAtTs".into(), json!(ts as i64))
        }
        Some(ts) => object.insert("decidedAtTs".into(), json!(ts)),
        None => object.insert("decidedAtLength".into(), json!(length)),
    };
    entry
}

fn tool_use_block<'a>(messages: &'a [ApiMessage], id: &str) -> Option<Block<'a>> {
    messages
        .iter()
        .filter(|m| m.is_assistant())
        .flat_map(ApiMessage::blocks)
        .map(Block::view)
        .find(|block| matches!(block, Block::ToolUse { id: Some(found), .. } if *found == id))
}

fn tool_input<'a>(messages: &'a [ApiMessage], id: &str) -> Option<&'a Value> {
    match tool_use_block(messages, id)? {
        Block::ToolUse { input, .. } => input,
        _ => None,
    }
}

fn tool_name<'a>(messages: &'a [ApiMessage], id: &str) -> Option<&'a str> {
    match tool_use_block(messages, id)? {
        Block::ToolUse { name, .. } => name,
        _ => None,
    }
}

/// The ids of results that already carry a decision.
fn decided_ids(messages: &[ApiMessage]) -> HashSet<&str> {
    messages
        .iter()
        .filter_map(|m| field(&m.fields, HYGIENE_FIELD))
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|entry| entry.get("toolUseId").and_then(Value::as_str))
        .collect()
}

/// The new decisions, the tokens waiting for a batch, whether they wait, and the edited paths.
fn decide(
    messages: &[ApiMessage],
    visible: &[usize],
    options: &HygieneOptions,
    counter: &dyn TokenCounter,
) -> (Vec<HygieneDecision>, usize, bool, Vec<String>) {
    // The tool uses the model sees, then the calls answered in the visible history, in order.
    let mut uses: HashMap<&str, (&str, Option<&Value>)> = HashMap::new();
    for &index in visible {
        let message = &messages[index];
        if !message.is_assistant() {
            continue;
        }
        for block in message.blocks() {
            if let Block::ToolUse {
                id: Some(id),
                name,
                input,
            } = Block::view(block)
            {
                uses.insert(id, (name.unwrap_or("undefined"), input));
            }
        }
    }
    let mut calls: Vec<Call<'_>> = Vec::new();
    for &index in visible {
        let message = &messages[index];
        if !message.is_user() {
            continue;
        }
        for block in message.blocks() {
            if let Block::ToolResult {
                tool_use_id: Some(id),
                is_error,
                ..
            } = Block::view(block)
                && let Some((name, input)) = uses.get(id)
            {
                calls.push(Call {
                    id,
                    name,
                    input: *input,
                    result_index: index,
                    result: block,
                    is_error,
                });
            }
        }
    }

    let mut edited: Vec<String> = options
        .edited_paths
        .iter()
        .map(|p| normalize_path(p))
        .collect();
    for call in calls.iter().filter(|c| !c.is_error) {
        edited.extend(edited_paths_of(call.name, call.input));
    }
    edited.sort();
    edited.dedup();

    // The keep window: from the Nth-last visible assistant message on.
    let assistants: Vec<usize> = visible
        .iter()
        .copied()
        .filter(|&i| messages[i].is_assistant())
        .collect();
    let keep = options.keep_recent_turns.max(1);
    if assistants.len() < keep {
        return (Vec::new(), 0, false, edited);
    }
    let window_start = assistants[assistants.len() - keep];

    // Each successful call's file accesses, in order.
    let file_events: Vec<(usize, String, Access)> = calls
        .iter()
        .enumerate()
        .filter(|(_, call)| !call.is_error)
        .flat_map(|(position, call)| {
            accesses(call.name, call.input)
                .into_iter()
                .map(move |(path, access)| (position, path, access))
        })
        .collect();

    let last_failure = calls
        .iter()
        .rposition(|call| {
            !is_read_tool(call.name)
                && (call.is_error
                    || result_text(call.result.get("content"))
                        .lines()
                        .any(is_failure_line))
        })
        .map(|position| calls[position].id);

    let decided = decided_ids(messages);
    let mut candidates = Vec::new();
    for (position, call) in calls.iter().enumerate() {
        if call.result_index >= window_start
            || decided.contains(call.id)
            || options.pinned.contains(call.id)
        {
            continue;
        }
        let tokens = block_tokens(call.result, counter);
        let is_read = is_read_tool(call.name);
        if is_read {
            if !options.elide_superseded || call.is_error {
                continue;
            }
            let own: Vec<&(usize, String, Access)> = file_events
                .iter()
                .filter(|(p, _, access)| *p == position && matches!(access, Access::Read(_)))
                .collect();
            if own.is_empty() {
                continue;
            }
            // Every file of the read must have newer content later; the pointer names the
            // newest call that has it.
            let mut later_ids = Vec::new();
            let all_superseded = own.iter().all(|(_, path, access)| {
                let later = file_events
                    .iter()
                    .filter(|(p, other, later)| {
                        *p > position && other == path && covers(later, access)
                    })
                    .map(|(p, _, _)| *p)
                    .max();
                later_ids.extend(later);
                later.is_some()
            });
            if !all_superseded {
                continue;
            }
            let later = later_ids.into_iter().max().expect("one per file");
            candidates.push(HygieneDecision {
                tool_use_id: call.id.to_owned(),
                kind: HygieneKind::Superseded,
                message_index: call.result_index,
                tool: call.name.to_owned(),
                tokens,
                output_id: None,
                superseded_by: Some(calls[later].id.to_owned()),
            });
        } else {
            if !options.mask || tokens <= options.mask_above_tokens || last_failure == Some(call.id)
            {
                continue;
            }
            let text = result_text(call.result.get("content"));
            candidates.push(HygieneDecision {
                tool_use_id: call.id.to_owned(),
                kind: HygieneKind::Masked,
                message_index: call.result_index,
                tool: call.name.to_owned(),
                tokens,
                output_id: output_id_of(call.result, &text),
                superseded_by: None,
            });
        }
    }
    let pending: usize = candidates
        .iter()
        .fold(0, |sum, c| sum.saturating_add(c.tokens));
    if pending < options.batch_tokens.max(1) {
        let deferred = !candidates.is_empty();
        return (Vec::new(), pending, deferred, edited);
    }
    (candidates, 0, false, edited)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use proptest::prelude::*;

    use super::*;
    use crate::conversation::{RemovedContextIds, Role, rewind_api_history};

    /// One token per whitespace-separated word.
    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    /// One step of a synthetic trajectory: an assistant tool call and its result.
    #[derive(Clone, Debug)]
    enum Step {
        /// A full read of a file (result of `words` words).
        Read(&'static str, usize),
        /// A read of lines `a..=b`.
        ReadLines(&'static str, u64, u64, usize),
        /// `write_to_file` with the whole content.
        Write(&'static str),
        /// `apply_diff` on a file.
        Edit(&'static str),
        /// A command printing `words` words, failing or not.
        Cmd(usize, bool),
        /// A command whose output was bounded at ingest (its preview names a stored id).
        Ingested(usize, &'static str),
    }

    fn call(
        id: &str,
        name: &str,
        input: Value,
        result: String,
        is_error: bool,
        ts: u64,
    ) -> [ApiMessage; 2] {
        let mut assistant = ApiMessage::new(
            Role::Assistant,
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        );
        assistant.fields.insert("ts".into(), json!(ts));
        let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": result});
        if is_error {
            block["is_error"] = json!(true);
        }
        let mut user = ApiMessage::new(Role::User, json!([block]));
        user.fields.insert("ts".into(), json!(ts + 1));
        [assistant, user]
    }

    fn filler(label: &str, size: usize) -> String {
        let mut text = label.to_owned();
        for _ in 0..size {
            text.push_str(" w");
        }
        text
    }

    fn trajectory(steps: &[Step]) -> Vec<ApiMessage> {
        let mut first = ApiMessage::new(Role::User, json!("<task>fix the bug</task>"));
        first.fields.insert("ts".into(), json!(1000));
        let mut messages = vec![first];
        for (n, step) in steps.iter().enumerate() {
            let id = format!("t{n}");
            let ts = 1002 + 2 * n as u64;
            let pair = match step {
                Step::Read(path, size) => call(
                    &id,
                    "read_file",
                    json!({"path": path}),
                    filler(&format!("{path}@{n}"), *size),
                    false,
                    ts,
                ),
                Step::ReadLines(path, a, b, size) => call(
                    &id,
                    "read_file",
                    json!({"files": [{"path": path, "line_ranges": [format!("{a}-{b}")]}]}),
                    filler(&format!("{path}@{n}"), *size),
                    false,
                    ts,
                ),
                Step::Write(path) => call(
                    &id,
                    "write_to_file",
                    json!({"path": path, "content": format!("{path} written at {n}")}),
                    "File written".into(),
                    false,
                    ts,
                ),
                Step::Edit(path) => call(
                    &id,
                    "apply_diff",
                    json!({"path": path, "diff": "<<<<<<< SEARCH"}),
                    "Diff applied".into(),
                    false,
                    ts,
                ),
                Step::Cmd(size, failing) => {
                    let mut out = filler("output", *size);
                    if *failing {
                        out.push_str("\nerror[E0308]: mismatched types");
                    }
                    call(
                        &id,
                        "execute_command",
                        json!({"command": "cargo test"}),
                        out,
                        *failing,
                        ts,
                    )
                }
                Step::Ingested(size, output_id) => {
                    let out = format!(
                        "{}\n[Output truncated: ... The full output is stored as outputId \"{output_id}\": page it with roo/output/read]",
                        filler("head", *size)
                    );
                    call(
                        &id,
                        "execute_command",
                        json!({"command": "npm test"}),
                        out,
                        false,
                        ts,
                    )
                }
            };
            messages.extend(pair);
        }
        messages
    }

    fn options(keep: usize, mask_above: usize, batch: usize) -> HygieneOptions {
        HygieneOptions {
            keep_recent_turns: keep,
            mask_above_tokens: mask_above,
            batch_tokens: batch,
            ..HygieneOptions::default()
        }
    }

    fn render(outcome: &HygieneOutcome) -> String {
        let mut out = format!(
            "tokens {} -> {}, kept prefix {}, first changed {:?}, pending {}, deferred {}\n",
            outcome.tokens_before,
            outcome.tokens_after,
            outcome.kept_prefix_messages,
            outcome.first_changed_index,
            outcome.pending_tokens,
            outcome.deferred
        );
        for decision in &outcome.decisions {
            out.push_str(&format!(
                "{} {} {} at {} ({} tokens){}{}\n",
                decision.tool_use_id,
                decision.kind.as_str(),
                decision.tool,
                decision.message_index,
                decision.tokens,
                decision
                    .superseded_by
                    .as_deref()
                    .map(|by| format!(" by {by}"))
                    .unwrap_or_default(),
                decision
                    .output_id
                    .as_deref()
                    .map(|id| format!(" output {id}"))
                    .unwrap_or_default(),
            ));
        }
        if !outcome.unpinned.is_empty() {
            out.push_str(&format!("unpinned {:?}\n", outcome.unpinned));
        }
        out
    }

    fn check(steps: &[Step], options: HygieneOptions, expect: Expect) {
        let messages = trajectory(steps);
        let outcome = shape_history(messages.clone(), &options, &words);
        expect.assert_eq(&render(&outcome));
        assert_content_untouched(&messages, &outcome.messages);
        // Sticky and idempotent: the same call again decides nothing new, changes nothing.
        let again = shape_history(outcome.messages.clone(), &options, &words);
        assert!(again.decisions.is_empty(), "{}", render(&again));
        assert_eq!(again.messages, outcome.messages);
        assert_eq!(again.first_changed_index, None);
    }

    /// The stored messages differ from the input only by their hygiene field.
    fn assert_content_untouched(before: &[ApiMessage], after: &[ApiMessage]) {
        assert_eq!(before.len(), after.len());
        for (old, new) in before.iter().zip(after) {
            let (mut old, mut new) = (old.clone(), new.clone());
            old.remove_field(HYGIENE_FIELD);
            new.remove_field(HYGIENE_FIELD);
            assert_eq!(old, new);
        }
    }

    #[test]
    fn decisions_by_scenario() {
        use Step::*;
        // Old large command outputs are masked; the keep window (last 2 turns) is not.
        check(
            &[
                Cmd(600, false),
                Cmd(700, false),
                Cmd(800, false),
                Cmd(900, false),
            ],
            options(2, 500, 1000),
            expect![[r#"
                tokens 3039 -> 1779, kept prefix 2, first changed Some(2), pending 0, deferred false
                t0 masked execute_command at 2 (604 tokens)
                t1 masked execute_command at 4 (704 tokens)
            "#]],
        );
        // Small outputs stay; below the batch threshold nothing happens yet.
        check(
            &[
                Cmd(100, false),
                Cmd(600, false),
                Cmd(10, false),
                Cmd(10, false),
            ],
            options(2, 500, 1000),
            expect![[r#"
                tokens 759 -> 759, kept prefix 9, first changed None, pending 604, deferred true
            "#]],
        );
        // A re-read supersedes the first read; the latest read stays.
        check(
            &[
                Read("src/a.rs", 300),
                Read("src/a.rs", 300),
                Cmd(1, false),
                Cmd(1, false),
            ],
            options(2, 500, 100),
            expect![[r#"
                tokens 639 -> 352, kept prefix 2, first changed Some(2), pending 0, deferred false
                t0 superseded read_file at 2 (304 tokens) by t1
            "#]],
        );
        // A full write supersedes every earlier read; an apply_diff does not (the latest read of
        // an edited file is what the model's edit rests on).
        check(
            &[
                Read("a.rs", 300),
                Write("a.rs"),
                Read("b.rs", 300),
                Edit("b.rs"),
                Cmd(1, false),
                Cmd(1, false),
            ],
            options(2, 500, 100),
            expect![[r#"
                tokens 661 -> 374, kept prefix 2, first changed Some(2), pending 0, deferred false
                t0 superseded read_file at 2 (304 tokens) by t1
            "#]],
        );
        // File reads are never masked by size, even large and old: only superseded.
        check(
            &[
                Read("big.rs", 5000),
                Cmd(1, false),
                Cmd(1, false),
                Cmd(1, false),
            ],
            options(1, 500, 100),
            expect![[r#"
                tokens 5041 -> 5041, kept prefix 9, first changed None, pending 0, deferred false
            "#]],
        );
        // A partial read is superseded by a later read covering its range, not by one that
        // does not; a full read supersedes both.
        check(
            &[
                ReadLines("c.rs", 10, 20, 200),
                ReadLines("c.rs", 1, 50, 200),
                ReadLines("c.rs", 100, 120, 200),
                Cmd(1, false),
                Cmd(1, false),
            ],
            options(2, 500, 100),
            expect![[r#"
                tokens 647 -> 460, kept prefix 2, first changed Some(2), pending 0, deferred false
                t0 superseded read_file at 2 (204 tokens) by t1
            "#]],
        );
        // The last failing command is never masked; an earlier failure is.
        check(
            &[
                Cmd(600, true),
                Cmd(600, true),
                Cmd(600, false),
                Cmd(1, false),
                Cmd(1, false),
            ],
            options(2, 500, 100),
            expect![[r#"
                tokens 1858 -> 695, kept prefix 2, first changed Some(2), pending 0, deferred false
                t0 masked execute_command at 2 (608 tokens)
                t2 masked execute_command at 6 (604 tokens)
            "#]],
        );
        // A result bounded at ingest keeps its stored id in the placeholder.
        check(
            &[Ingested(800, "9f2c"), Cmd(1, false), Cmd(1, false)],
            options(2, 500, 100),
            expect![[r#"
                tokens 847 -> 58, kept prefix 2, first changed Some(2), pending 0, deferred false
                t0 masked execute_command at 2 (819 tokens) output 9f2c
            "#]],
        );
        // Fewer assistant turns than the window: nothing to decide.
        check(
            &[Cmd(900, false), Cmd(900, false)],
            options(3, 500, 100),
            expect![[r#"
                tokens 1821 -> 1821, kept prefix 5, first changed None, pending 0, deferred false
            "#]],
        );
    }

    #[test]
    fn the_model_sees_placeholders_and_the_store_keeps_the_bytes() {
        use Step::*;
        let messages = trajectory(&[
            Ingested(800, "9f2c"),
            Read("a.rs", 5),
            Read("a.rs", 5),
            Cmd(1, false),
            Cmd(1, false),
        ]);
        let outcome = shape_history(messages.clone(), &options(2, 500, 100), &words);
        let effective = effective_api_history(&outcome.messages);
        let texts: Vec<String> = effective
            .messages
            .iter()
            .filter(|m| m.is_user())
            .filter_map(|m| m.blocks().first().map(|b| result_text(b.get("content"))))
            .collect();
        expect![[r#"
            [
                "[Old tool output masked to save context: execute_command {\"command\":\"npm test\"} returned 819 tokens. The full output is stored as outputId \"9f2c\": page it with roo/output/read {\"outputId\": \"9f2c\"}.]",
                "[Superseded read of a.rs: the later read_file (tool_use_id t2) has this file's newer content.]",
                "a.rs@2 w w w w w",
                "output w",
                "output w",
            ]
        "#]]
        .assert_debug_eq(&texts);
        assert_eq!(
            outcome.messages[2].fields.get(HYGIENE_FIELD).unwrap()[0]["decidedAtTs"],
            json!(1011)
        );
        // The stored content is the host's.
        assert_eq!(
            outcome.messages[2].fields["content"],
            messages[2].fields["content"]
        );
    }

    #[test]
    fn the_condense_request_sees_placeholders() {
        use Step::*;
        let messages = trajectory(&[
            Cmd(600, false),
            Read("a.rs", 5),
            Read("a.rs", 5),
            Cmd(1, false),
            Cmd(1, false),
        ]);
        let outcome = shape_history(messages, &options(2, 500, 100), &words);
        assert_eq!(outcome.decisions.len(), 2);
        let summarizer = crate::context::SummarizerInfo {
            context_window: 1_000_000,
            max_tokens: None,
            supports_images: false,
        };
        let request = crate::context::build_condense_request(
            &outcome.messages,
            None,
            &summarizer,
            &words,
            &|| 5_000u64,
        )
        .unwrap();
        let text = serde_json::to_string(&request.messages).unwrap();
        assert!(!text.contains("output w w"), "masked bytes sent: {text}");
        assert!(!text.contains("a.rs@1"), "superseded read sent");
        assert!(text.contains("Old tool output masked") && text.contains("a.rs@2"));
    }

    #[test]
    fn truncation_never_shrinks_a_masked_result() {
        use Step::*;
        let messages = trajectory(&[
            Cmd(900, false),
            Cmd(600, false),
            Cmd(1, false),
            Cmd(1, false),
        ]);
        let mut shaped: Vec<Cow<'_, ApiMessage>> =
            shape_history(messages, &options(3, 700, 100), &words)
                .messages
                .into_iter()
                .map(Cow::Owned)
                .collect();
        assert!(has_placeholder(&shaped[2], "t0"));
        let shrunk = crate::context::shrink_largest_texts(
            &mut shaped,
            &|_| true,
            10_000,
            crate::context::ShrinkScope::ToolResults,
            &words,
        );
        let indices: Vec<usize> = shrunk.iter().map(|block| block.message).collect();
        assert_eq!(
            indices,
            [4],
            "the 900-word result is masked, the 600-word one is cut"
        );
    }

    #[test]
    fn pins_keep_results_and_lift_decisions() {
        use Step::*;
        let steps = [
            Cmd(600, false),
            Cmd(600, false),
            Cmd(1, false),
            Cmd(1, false),
        ];
        let mut pinned = options(2, 500, 100);
        pinned.pinned.insert("t0".into());
        check(
            &steps,
            pinned.clone(),
            expect![[r#"
                tokens 1241 -> 661, kept prefix 4, first changed Some(4), pending 0, deferred false
                t1 masked execute_command at 4 (604 tokens)
            "#]],
        );
        let masked = shape_history(trajectory(&steps), &options(2, 500, 100), &words);
        assert_eq!(masked.decisions.len(), 2);
        let lifted = shape_history(masked.messages, &pinned, &words);
        expect![[r#"
            tokens 81 -> 661, kept prefix 2, first changed Some(2), pending 0, deferred false
            unpinned ["t0"]
        "#]]
        .assert_eq(&render(&lifted));
    }

    #[test]
    fn decisions_are_batched_and_sticky() {
        use Step::*;
        let opts = options(1, 500, 1500);
        let mut steps = vec![Cmd(600, false), Cmd(1, false)];
        let first = shape_history(trajectory(&steps), &opts, &words);
        assert!(first.deferred && first.decisions.is_empty());
        assert_eq!(first.pending_tokens, 604);
        steps.extend([Cmd(600, false), Cmd(600, false), Cmd(1, false)]);
        let second = shape_history(trajectory(&steps), &opts, &words);
        assert_eq!(second.decisions.len(), 3, "{}", render(&second));
        // Later turns: the old decisions stay as they were; the prefix up to the next batch is
        // byte-identical.
        steps.extend([Cmd(600, false), Cmd(1, false)]);
        let mut grown = second.messages.clone();
        grown.extend(trajectory(&steps).split_off(second.messages.len()));
        let third = shape_history(grown.clone(), &opts, &words);
        assert!(third.decisions.is_empty() && third.deferred);
        assert_eq!(third.messages, grown);
        assert_eq!(
            third.kept_prefix_messages,
            effective_api_history(&grown).messages.len()
        );
    }

    #[test]
    fn a_rewind_before_a_decision_undoes_it() {
        use Step::*;
        let steps = [
            Cmd(600, false),
            Cmd(600, false),
            Cmd(1, false),
            Cmd(1, false),
            Cmd(1, false),
        ];
        let messages = trajectory(&steps);
        // Decided on the first eight messages (newest ts 1008), t0 alone outside the window ...
        let early = shape_history(messages[..8].to_vec(), &options(3, 500, 100), &words);
        assert_eq!(early.decisions.len(), 1);
        let mut history = early.messages.clone();
        history.extend_from_slice(&messages[8..]);
        // ... then again on the whole history (newest ts 1011): t1 too.
        let late = shape_history(history, &options(2, 500, 100), &words);
        assert_eq!(late.decisions.len(), 1);
        // A rewind to ts 1009 keeps the first decision and undoes the second.
        let (rewound, _) = rewind_api_history(
            late.messages.clone(),
            1009.0,
            &RemovedContextIds::default(),
            false,
        );
        assert!(rewound.changed);
        let masked: Vec<&str> = rewound
            .messages
            .iter()
            .filter_map(|m| m.fields.get(HYGIENE_FIELD))
            .flat_map(|entries| entries.as_array().unwrap())
            .map(|entry| entry["toolUseId"].as_str().unwrap())
            .collect();
        assert_eq!(masked, ["t0"]);
        // A rewind before both: the stored history is the host's again.
        let (rewound, _) =
            rewind_api_history(late.messages, 1004.0, &RemovedContextIds::default(), false);
        assert_eq!(rewound.messages, messages[..3].to_vec());
    }

    #[test]
    fn decisions_without_timestamps_are_undone_by_length() {
        use Step::*;
        let mut messages = trajectory(&[Cmd(600, false), Cmd(1, false), Cmd(1, false)]);
        for message in &mut messages {
            message.remove_field("ts");
        }
        let outcome = shape_history(messages.clone(), &options(2, 500, 100), &words);
        assert_eq!(
            outcome.messages[2].fields[HYGIENE_FIELD][0]["decidedAtLength"],
            json!(7)
        );
        let mut cut = outcome.messages.clone();
        assert!(!drop_undone_hygiene(&mut cut));
        cut.truncate(6);
        assert!(drop_undone_hygiene(&mut cut));
        assert_eq!(cut, messages[..6].to_vec());
    }

    #[test]
    fn hidden_messages_are_not_decided_and_unknown_fields_survive() {
        use Step::*;
        let mut messages = trajectory(&[
            Cmd(600, false),
            Cmd(600, false),
            Cmd(1, false),
            Cmd(1, false),
        ]);
        messages[2]
            .fields
            .insert("providerField".into(), json!({"x": 1.5}));
        // A summary hides everything before it: nothing there is the model's any more.
        let mut summary = ApiMessage::new(Role::User, json!("## Conversation Summary\n..."));
        summary.fields.insert("isSummary".into(), json!(true));
        summary.fields.insert("condenseId".into(), json!("c1"));
        messages.insert(5, summary);
        let outcome = shape_history(messages, &options(1, 500, 100), &words);
        assert!(outcome.decisions.is_empty(), "{}", render(&outcome));
        assert_eq!(
            outcome.messages[2].fields["providerField"],
            json!({"x": 1.5})
        );
    }

    fn arb_step() -> impl Strategy<Value = Step> {
        let path = prop_oneof![Just("a.rs"), Just("b.rs"), Just("c.rs")];
        prop_oneof![
            (path.clone(), 1usize..400).prop_map(|(p, n)| Step::Read(p, n)),
            (path.clone(), 1u64..100, 0u64..100, 1usize..400)
                .prop_map(|(p, a, len, n)| Step::ReadLines(p, a, a + len, n)),
            path.clone().prop_map(Step::Write),
            path.prop_map(Step::Edit),
            (1usize..900, any::<bool>()).prop_map(|(n, f)| Step::Cmd(n, f)),
            (1usize..900).prop_map(|n| Step::Ingested(n, "id")),
        ]
    }

    /// For each file, the id of the call holding the latest content the model saw of it, and
    /// whether that is a read (a write's content is its tool_use input, never touched).
    fn latest_content(steps: &[Step]) -> HashMap<&'static str, (String, bool)> {
        let mut latest = HashMap::new();
        for (n, step) in steps.iter().enumerate() {
            match step {
                Step::Read(p, _) | Step::ReadLines(p, ..) => {
                    latest.insert(*p, (format!("t{n}"), true));
                }
                Step::Write(p) => {
                    latest.insert(*p, (format!("t{n}"), false));
                }
                _ => {}
            }
        }
        latest
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn invariants(
            steps in proptest::collection::vec(arb_step(), 0..40),
            keep in 1usize..5,
            mask_above in 0usize..600,
            batch in 0usize..3000,
            rounds in 1usize..4,
            cut in 0usize..1000,
        ) {
            let opts = options(keep, mask_above, batch);
            let full = trajectory(&steps);
            // Shape as the history grows, a few times, the way a host calls before requests.
            let mut history: Vec<ApiMessage> = Vec::new();
            let mut outcome = None;
            for round in 1..=rounds {
                let end = full.len() * round / rounds;
                history.extend_from_slice(&full[history.len()..end]);
                let before = effective_api_history(&history).into_owned();
                let shaped = shape_history(history.clone(), &opts, &words);
                assert_content_untouched(&history, &shaped.messages);
                // Nothing in the keep window changes; the reported prefix is exact.
                let after = effective_api_history(&shaped.messages).into_owned();
                prop_assert_eq!(before.len(), after.len());
                let assistants: Vec<usize> = (0..after.len()).filter(|&i| after[i].is_assistant()).collect();
                if assistants.len() >= keep {
                    let start = assistants[assistants.len() - keep];
                    prop_assert_eq!(&before[start..], &after[start..]);
                }
                let kept = before.iter().zip(&after).take_while(|(a, b)| a == b).count();
                prop_assert_eq!(kept, shaped.kept_prefix_messages);
                // Sticky: every earlier decision is still there.
                for (old, new) in history.iter().zip(&shaped.messages) {
                    if let Some(entries) = old.fields.get(HYGIENE_FIELD) {
                        prop_assert_eq!(Some(entries), new.fields.get(HYGIENE_FIELD));
                    }
                }
                history = shaped.messages.clone();
                outcome = Some(shaped);
            }
            let Some(outcome) = outcome else { return Ok(()); };
            // A rewind to any message's timestamp leaves only decisions made on what is left.
            let at = cut % outcome.messages.len();
            let cutoff = outcome.messages[at].ts().unwrap();
            let (rewound, _) = rewind_api_history(
                outcome.messages.clone(),
                cutoff,
                &RemovedContextIds::default(),
                false,
            );
            prop_assert_eq!(rewound.messages.len(), at);
            let newest = newest_ts(&rewound.messages).unwrap_or(0.0);
            for message in &rewound.messages {
                for entry in message.fields.get(HYGIENE_FIELD).and_then(Value::as_array).into_iter().flatten() {
                    prop_assert!(entry["decidedAtTs"].as_f64().unwrap() <= newest);
                }
            }
            // The latest content the model saw of every file is in the shaped request.
            let shaped = effective_api_history(&outcome.messages).into_owned();
            for (path, (id, is_read)) in latest_content(&steps) {
                if !is_read {
                    continue;
                }
                let n: usize = id[1..].parse().unwrap();
                let expected = format!("{path}@{n}");
                let seen = shaped.iter().flat_map(|m| m.blocks()).any(|block| matches!(
                    Block::view(block),
                    Block::ToolResult { tool_use_id: Some(found), content, .. }
                        if found == id && result_text(content).starts_with(&expected)
                ));
                prop_assert!(seen, "latest read {} of {} is gone", id, path);
            }
        }
    }
}
