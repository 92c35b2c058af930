//! Verified summaries (issue 19, part 1): checks the host model's summary against the history it
//! replaces, with no model call, and repairs what it lost with one bounded, deterministic
//! addendum placed after the summary.
//! One file on purpose: the checks and the addendum keep one invariant (verifying `summary +
//! addendum` passes every check it repaired): `latest_check` looks for the very `neutralize`d
//! quote that `render` writes, and both sides fill and read one `Findings`.
//!
//! Checks (ids as on the wire): `sections` (the default template's nine headings in order),
//! `files` (every file the task edited is named; read files are named or folded),
//! `latestUserMessage`, `userMessages` (a metric), `constraints` (the user's explicit
//! constraints, extracted by [`extract_constraints`]), `todos` (pending items of the latest TODO
//! list; completed ones must not come back as pending), `size` (a warning). The addendum is a
//! pure function of the inputs: the same inputs give the same bytes, and verifying
//! `summary + addendum` passes every check the addendum repaired.
//!
//! ## Decision: Verified summaries (issue 19) are opt-in per request and never call a model
//!
//! A `verify` object on `roo/context/manage` (or `roo/context/verifySummary` for hosts that
//! summarize themselves) checks the summary deterministically and appends one addendum block after
//! the summary; without it the result is byte-for-byte today's. Per request rather than a
//! capability negotiated at `initialize` (the design's proposal), so a host opts in where it shows
//! the report, no state is kept, and existing hosts' summaries never change silently. The addendum
//! is a pure function of (history, tracker records, summary, options): quoted texts are verbatim (a
//! `</system-reminder>` inside them is defused), the latest message is cut by characters (head and
//! tail, never splitting a character or an encoded lone surrogate), not by tokens, so its bytes do
//! not depend on the count mode. What must never be lost (edited files, the latest message, open
//! TODOs) is never cut: when it exceeds `maxAddendumTokens` or the budget, the condense is refused
//! like any summary that does not fit (a limit reached is never a pass), and automatic runs
//! truncate. Constraints must keep their polarity ("never X" is not kept by "X"), and a word counts
//! once per window. Files and constraints come from the whole stored history (condensed messages
//! are still stored), so a nested condense still requires them. The one retry is decided by the
//! core (`retry_request`) and made by the shell; the state `PendingCondense::retries` makes a
//! second one impossible. Measured in `BENCHMARKS.md`.

mod constraints;
mod history;
mod text;

use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

pub use constraints::{extract_constraints, is_constraint, sentences};
pub use history::parse_todo_checklist;
pub(crate) use history::{is_edit_tool, is_read_tool, paths_in_input};

use crate::conversation::{ApiMessage, TokenCounter};
use text::{
    ANY_WINDOW, LineIndex, content_words, contradicts, has_negation, normalize_ws, path_forms,
    path_tokens, safe_cut, safe_cut_up,
};

/// The default template's required sections, in order.
pub const DEFAULT_SECTIONS: [&str; 9] = [
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and fixes",
    "Problem Solving",
    "All user messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
];

/// Default cap of the addendum, in tokens.
pub const DEFAULT_MAX_ADDENDUM_TOKENS: u64 = 2_000;
/// The latest user message is kept whole up to this many characters (about 1,500 tokens);
/// longer ones keep their head and tail with an explicit omission note.
pub const LATEST_MESSAGE_MAX_CHARS: usize = 6_000;
/// Heading line of the addendum: the summarizer did not write what follows.
pub const ADDENDUM_HEADING: &str =
    "## Preserved from the conversation (added by roo-context; not written by the summarizer)";
/// Items listed per check in a report (the count says how many there were).
pub const REPORT_LIST_LIMIT: usize = 50;
/// Overlap a constraint or TODO needs with one place of the summary to count as kept.
pub const COVERAGE_THRESHOLD: f64 = 0.7;
/// Overlap a long latest message needs when it is not quoted verbatim.
pub const LATEST_RECALL_THRESHOLD: f64 = 0.9;
/// Overlap a user message needs for the `userMessages` metric.
pub const USER_MESSAGE_RECALL_THRESHOLD: f64 = 0.6;

/// How the task touched a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileAction {
    /// The agent wrote it.
    Edited,
    /// The user changed it while it was in context.
    EditedByUser,
    /// The agent read it (or it was mentioned).
    Read,
}

impl FileAction {
    fn label(self) -> &'static str {
        match self {
            FileAction::Edited => "edited by you",
            FileAction::EditedByUser => "edited by the user",
            FileAction::Read => "read",
        }
    }

    fn is_edit(self) -> bool {
        !matches!(self, FileAction::Read)
    }
}

/// A file of the task, from the tracker (`task_metadata.json`) or the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRecord {
    /// The path as recorded (relative to `cwd`, or absolute).
    pub path: String,
    /// What happened to it.
    pub action: FileAction,
    /// When, in milliseconds since the epoch, when known.
    pub date_ms: Option<i64>,
}

/// The files of a task's `task_metadata.json` records: written by the agent (its source is
/// `roo_edited` or it carries a Roo edit date), changed by the user (`user_edited`), else read.
pub fn tracked_file_records(metadata: &crate::tracker::TaskMetadata) -> Vec<FileRecord> {
    use crate::tracker::RecordSource;
    metadata
        .files_in_context
        .iter()
        .map(|entry| {
            let (action, date_ms) = if entry.record_source == RecordSource::RooEdited
                || entry.roo_edit_date.is_some_and(|d| d != 0)
            {
                (
                    FileAction::Edited,
                    entry.roo_edit_date.or(entry.roo_read_date),
                )
            } else if entry.record_source == RecordSource::UserEdited {
                (FileAction::EditedByUser, entry.user_edit_date)
            } else {
                (FileAction::Read, entry.roo_read_date)
            };
            FileRecord {
                path: entry.path.clone(),
                action,
                date_ms: date_ms.filter(|d| *d != 0),
            }
        })
        .collect()
}

/// A TODO item's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TodoStatus {
    /// `[ ]`.
    Pending,
    /// `[-]`.
    InProgress,
    /// `[x]`.
    Completed,
}

impl TodoStatus {
    /// Reads `pending`, `in_progress` / `in progress`, `completed` (anything else is pending).
    pub fn parse(text: &str) -> TodoStatus {
        match text.trim().to_lowercase().replace(['_', '-'], " ").as_str() {
            "completed" | "done" | "complete" => TodoStatus::Completed,
            "in progress" | "inprogress" | "active" => TodoStatus::InProgress,
            _ => TodoStatus::Pending,
        }
    }

    /// The label of Roo's REMINDERS table.
    pub fn label(self) -> &'static str {
        match self {
            TodoStatus::Pending => "Pending",
            TodoStatus::InProgress => "In Progress",
            TodoStatus::Completed => "Completed",
        }
    }

    fn is_open(self) -> bool {
        !matches!(self, TodoStatus::Completed)
    }
}

/// One TODO item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TodoItem {
    /// Its text.
    pub content: String,
    /// Its status.
    pub status: TodoStatus,
}

/// A check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckId {
    /// The required sections.
    Sections,
    /// Edited and read files.
    Files,
    /// The latest user request.
    LatestUserMessage,
    /// All user messages (a metric only).
    UserMessages,
    /// The user's explicit constraints.
    Constraints,
    /// Pending TODOs.
    Todos,
    /// Size sanity (a warning only).
    Size,
}

impl CheckId {
    /// Every check, in report order.
    pub const ALL: [CheckId; 7] = [
        CheckId::Sections,
        CheckId::Files,
        CheckId::LatestUserMessage,
        CheckId::UserMessages,
        CheckId::Constraints,
        CheckId::Todos,
        CheckId::Size,
    ];

    /// The id on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckId::Sections => "sections",
            CheckId::Files => "files",
            CheckId::LatestUserMessage => "latestUserMessage",
            CheckId::UserMessages => "userMessages",
            CheckId::Constraints => "constraints",
            CheckId::Todos => "todos",
            CheckId::Size => "size",
        }
    }

    /// Whether a failure of this check makes the verification fail (the others are metrics or
    /// warnings).
    pub fn is_gating(self) -> bool {
        !matches!(self, CheckId::UserMessages | CheckId::Size)
    }
}

/// What to do when a check fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnFail {
    /// Report only: no addendum, never refuse.
    Report,
    /// Append the addendum (default).
    #[default]
    Repair,
    /// When sections are missing, ask the summarizer once more, then repair.
    RetryThenRepair,
}

/// The verification settings.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifySettings {
    /// The checks to run.
    pub checks: Vec<CheckId>,
    /// Sections required instead of the default template's (a custom prompt's own headings).
    pub required_sections: Option<Vec<String>>,
    /// Whether a custom condense prompt was used (sections are then skipped unless listed).
    pub custom_prompt: bool,
    /// What to do on failure.
    pub on_fail: OnFail,
    /// Cap of the addendum, in tokens.
    pub max_addendum_tokens: u64,
    /// Also take files from the tool calls of the history (besides the tracker records).
    pub files_from_history: bool,
}

impl Default for VerifySettings {
    fn default() -> Self {
        VerifySettings {
            checks: CheckId::ALL.to_vec(),
            required_sections: None,
            custom_prompt: false,
            on_fail: OnFail::Repair,
            max_addendum_tokens: DEFAULT_MAX_ADDENDUM_TOKENS,
            files_from_history: true,
        }
    }
}

/// Everything a verification reads. Borrowed: the caller owns the history.
#[derive(Clone, Copy, Debug)]
pub struct VerifyInput<'a> {
    /// The summarizer's text (trimmed by the caller).
    pub summary: &'a str,
    /// The full stored history (condensed messages included, so files and constraints from
    /// before an earlier summary are still required).
    pub messages: &'a [ApiMessage],
    /// The task's tracked files.
    pub tracked_files: &'a [FileRecord],
    /// Paths whose folded `## File Context` section goes with the summary (reads covered).
    pub folded_paths: &'a [String],
    /// Base folder of absolute paths.
    pub cwd: Option<&'a str>,
    /// A TODO list supplied by the host (wins over the history's).
    pub host_todos: Option<&'a [TodoItem]>,
    /// Constraints supplied by the host (besides the extracted ones).
    pub extra_constraints: &'a [String],
    /// Tokens of the context before the condense (for the size check; 0 when unknown).
    pub previous_context_tokens: u64,
    /// The settings.
    pub settings: &'a VerifySettings,
}

/// The report of one check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    /// Which check (`None` only in `Default`).
    pub id: Option<CheckId>,
    /// Whether it passed (before any repair).
    pub passed: bool,
    /// Why it did not run, when it did not.
    pub skipped: Option<String>,
    /// Sections found, in order.
    pub found: Option<usize>,
    /// Sections required.
    pub required: Option<usize>,
    /// Share of the checked items kept by the summary.
    pub recall: Option<f64>,
    /// Share of edited files named.
    pub edited_recall: Option<f64>,
    /// Share of read files named or folded.
    pub read_recall: Option<f64>,
    /// What is missing (at most [`REPORT_LIST_LIMIT`]).
    pub missing: Vec<String>,
    /// How many are missing in all.
    pub missing_count: usize,
    /// Files named only by their base name.
    pub weak: Vec<String>,
    /// Completed TODOs the summary lists as pending.
    pub reopened: Vec<String>,
    /// Constraint-like summary sentences with no source in the user's words.
    pub unsupported: Vec<String>,
    /// Tokens of the summary.
    pub summary_tokens: Option<u64>,
}

impl CheckReport {
    fn new(id: CheckId) -> Self {
        CheckReport {
            id: Some(id),
            passed: true,
            ..CheckReport::default()
        }
    }

    fn skip(id: CheckId, reason: &str) -> Self {
        CheckReport {
            skipped: Some(reason.to_owned()),
            ..CheckReport::new(id)
        }
    }

    fn set_missing(&mut self, missing: &[String]) {
        self.missing_count = missing.len();
        self.missing = missing.iter().take(REPORT_LIST_LIMIT).cloned().collect();
        if !missing.is_empty() {
            self.passed = false;
        }
    }
}

/// A file the summary lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingFile {
    /// Display path.
    pub path: String,
    /// The strongest thing that happened to it.
    pub action: FileAction,
    /// The latest date known.
    pub date_ms: Option<i64>,
}

/// What the addendum must restore.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Findings {
    /// Lost files: edited ones first, then read ones, each in first-seen order.
    pub files: Vec<MissingFile>,
    /// The latest user message as the addendum quotes it, when lost.
    pub latest_user_message: Option<String>,
    /// Lost constraints, oldest first.
    pub constraints: Vec<String>,
    /// The whole latest TODO list, when a pending item was lost or a completed one reopened.
    pub todos: Option<Vec<TodoItem>>,
}

impl Findings {
    /// Whether nothing needs restoring.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
            && self.latest_user_message.is_none()
            && self.constraints.is_empty()
            && self.todos.is_none()
    }
}

/// The result of [`verify_summary`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verification {
    /// Whether every gating check passed.
    pub passed: bool,
    /// One report per check, in [`CheckId::ALL`] order.
    pub checks: Vec<CheckReport>,
    /// What the addendum must restore.
    pub findings: Findings,
    /// Notes for the user (sections missing, a summary too short).
    pub warnings: Vec<String>,
}

impl Verification {
    /// The report of one check.
    pub fn check(&self, id: CheckId) -> Option<&CheckReport> {
        self.checks.iter().find(|check| check.id == Some(id))
    }

    /// The sections the summary lacks (the retry names them).
    pub fn missing_sections(&self) -> &[String] {
        self.check(CheckId::Sections)
            .map_or(&[], |check| check.missing.as_slice())
    }
}

struct SectionScan {
    /// Line of each required section's heading.
    lines: Vec<Option<usize>>,
    /// End line (exclusive) of the sectioned region.
    end: usize,
}

impl SectionScan {
    fn body(&self, section: usize) -> Option<std::ops::Range<usize>> {
        let start = self.lines.get(section).copied().flatten()?;
        let end = self.lines[section + 1..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or(self.end);
        Some(start..end.max(start + 1))
    }
}

/// A line without its heading marks and number (`## 3. Files` is `Files`).
fn heading_text(line: &str) -> &str {
    line.trim()
        .trim_start_matches(['#', '*', '_', ' ', '\t', '>'])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', ':', ' ', '*', '_', '#'])
        .trim_start()
}

/// Whether the heading text, lower-cased, starts with `wanted` (lower case). Without lower-
/// casing the whole line when the compared prefix is ASCII (every line of the summary is tried,
/// and most are long prose): ASCII characters lower-case one to one, so the answer is the same.
fn heading_starts_with(text: &str, wanted: &str) -> bool {
    match text.as_bytes().get(..wanted.len()) {
        Some(prefix) if prefix.is_ascii() && wanted.is_ascii() => {
            prefix.eq_ignore_ascii_case(wanted.as_bytes())
        }
        _ => text.to_lowercase().starts_with(wanted),
    }
}

/// Finds the required headings in order, inside `<summary>` when the text has one.
fn scan_sections(lines: &[&str], required: &[String]) -> SectionScan {
    let open = lines.iter().position(|line| line.contains("<summary>"));
    let (start, mut end) = match open {
        Some(open) => {
            let close = lines[open..]
                .iter()
                .position(|line| line.contains("</summary>"))
                .map_or(lines.len(), |offset| open + offset + 1);
            (open, close)
        }
        None => (0, lines.len()),
    };
    // The addendum (or any reminder block) ends the summarizer's sections.
    if let Some(reminder) = lines[start..end]
        .iter()
        .position(|line| line.trim_start().starts_with("<system-reminder>"))
    {
        end = start + reminder;
    }
    let titles: Vec<String> = required.iter().map(|t| t.to_lowercase()).collect();
    let mut found = vec![None; required.len()];
    let mut next = 0;
    for (number, line) in lines.iter().enumerate().take(end).skip(start) {
        if next >= titles.len() {
            break;
        }
        let title = heading_text(line);
        if title.is_empty() {
            continue;
        }
        if let Some(offset) = titles[next..]
            .iter()
            .position(|wanted| heading_starts_with(title, wanted))
        {
            found[next + offset] = Some(number);
            next += offset + 1;
        }
    }
    SectionScan { lines: found, end }
}

fn section_has_body(lines: &[&str], scan: &SectionScan, section: usize, title: &str) -> bool {
    let Some(range) = scan.body(section) else {
        return false;
    };
    let heading = lines[range.start];
    let after_title = heading
        .to_lowercase()
        .find(&title.to_lowercase())
        .map(|at| heading[(at + title.len()).min(heading.len())..].to_owned())
        .unwrap_or_default();
    let inline = after_title
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '*' | '_' | '#'))
        .to_owned();
    !inline.is_empty()
        || lines[range.start + 1..range.end.min(lines.len())]
            .iter()
            .any(|line| !line.trim().is_empty())
}

/// The latest user message as the addendum quotes it: whole up to
/// [`LATEST_MESSAGE_MAX_CHARS`], else its head and tail around an omission note.
pub fn quoted_latest_message(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= LATEST_MESSAGE_MAX_CHARS {
        return text.to_owned();
    }
    let half = LATEST_MESSAGE_MAX_CHARS / 2;
    let head_end = safe_cut(
        text,
        text.char_indices().nth(half).map_or(text.len(), |(i, _)| i),
    );
    let tail_start_chars = text.chars().count() - half;
    let tail_start = safe_cut_up(
        text,
        text.char_indices()
            .nth(tail_start_chars)
            .map_or(text.len(), |(i, _)| i),
    );
    let omitted = text[head_end..tail_start].encode_utf16().count();
    format!(
        "{}\n[… {omitted} characters omitted …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// Characters a reader skips inside a tag name: whitespace and controls, every dash and
/// hyphen (soft hyphen included), connector punctuation (`_`), dots and middle dots, and
/// invisible format characters (zero-width, joiners, direction marks, variation selectors, tag
/// characters). `</system reminder>`, `<system_reminder>` and `<sys\u{AD}tem‑reminder>` all
/// read as the tag to a model.
fn is_tag_filler(c: char) -> bool {
    // Any character that is not a letter or digit (a bracket or slash is read before this):
    // a reader takes `</system~reminder>`, `</system:reminder>` and `</system⁓reminder>` for the
    // tag as readily as `</system-reminder>`, and no list of dashes is complete. Letters that
    // look like a dash (CJK 一, katakana ー, Hangul ㅡ) are listed.
    !c.is_alphanumeric()
        || c.is_whitespace()
        || c.is_control()
        || unicode_normalization::char::is_combining_mark(c)
        || matches!(
            c,
            '\u{30FC}' | '\u{FF70}' | '\u{4E00}' | '\u{3161}' | '\u{1173}' | '\u{FFDA}'
        )
        || matches!(
            c,
            '-' | '_'
                | '.'
                | '\u{00AD}'
                | '\u{00B7}'
                | '\u{034F}'
                | '\u{058A}'
                | '\u{05BE}'
                | '\u{061C}'
                | '\u{1400}'
                | '\u{1806}'
                | '\u{180E}'
                | '\u{2010}'..='\u{2015}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2022}'
                | '\u{2027}'
                | '\u{202A}'..='\u{202E}'
                | '\u{203F}'
                | '\u{2040}'
                | '\u{2043}'
                | '\u{2054}'
                | '\u{2060}'..='\u{206F}'
                | '\u{2212}'
                | '\u{2219}'
                | '\u{22C5}'
                | '\u{2E17}'
                | '\u{2E1A}'
                | '\u{2E3A}'
                | '\u{2E3B}'
                | '\u{2E40}'
                | '\u{301C}'
                | '\u{3030}'
                | '\u{30A0}'
                | '\u{30FB}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FE33}'
                | '\u{FE34}'
                | '\u{FE4D}'..='\u{FE4F}'
                | '\u{FE58}'
                | '\u{FE63}'
                | '\u{FEFF}'
                | '\u{FF0D}'
                | '\u{FF3F}'
                | '\u{FF65}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// Angle brackets and their look-alikes (fullwidth, small, single guillemets, mathematical and
/// CJK angle brackets, modifier arrowheads, Canadian syllabics): `Some(true)` opens a tag.
fn tag_bracket(c: char) -> Option<bool> {
    match c {
        '<' | '\u{FF1C}' | '\u{FE64}' | '\u{2039}' | '\u{00AB}' | '\u{3008}' | '\u{300A}'
        | '\u{27E8}' | '\u{27EA}' | '\u{2329}' | '\u{02C2}' | '\u{1438}' | '\u{276E}' => Some(true),
        '>' | '\u{FF1E}' | '\u{FE65}' | '\u{203A}' | '\u{00BB}' | '\u{3009}' | '\u{300B}'
        | '\u{27E9}' | '\u{27EB}' | '\u{232A}' | '\u{02C3}' | '\u{1433}' | '\u{276F}' => {
            Some(false)
        }
        _ => None,
    }
}

/// Slashes (and backslashes, as in a JSON-escaped `<\/tag>`) between a bracket and a name.
fn is_tag_slash(c: char) -> bool {
    matches!(
        c,
        '/' | '\\' | '\u{FF0F}' | '\u{FF3C}' | '\u{2044}' | '\u{2215}' | '\u{29F8}' | '\u{29F5}'
    )
}

/// Letters that look like the Latin letters of `systemreminder` (Cyrillic, small capitals,
/// dotless i), after lower-casing; compatibility forms (fullwidth, mathematical, circled) are
/// folded by NFKC before.
fn latin_look_alike(c: char) -> char {
    // Greek capitals lower-case to letters that do not look Latin (`Τ` to `τ`, `Μ` to `μ`),
    // Cherokee capitals to its small letters, and Lisu has no case: each is listed by the
    // Latin letter its capital (or itself) looks like.
    match c {
        '\u{0455}' | '\u{A731}' | '\u{ABAA}' | '\u{A4E2}' => 's',
        '\u{0443}' | '\u{028F}' | '\u{04AF}' | '\u{03C5}' | '\u{03B3}' | '\u{AB79}'
        | '\u{A4EC}' => 'y',
        '\u{0442}' | '\u{1D1B}' | '\u{03C4}' | '\u{AB72}' | '\u{A4D4}' => 't',
        '\u{0435}' | '\u{1D07}' | '\u{03B5}' | '\u{04BD}' | '\u{AB7C}' | '\u{A4F0}' => 'e',
        '\u{043C}' | '\u{1D0D}' | '\u{03BC}' | '\u{AB87}' | '\u{A4DF}' => 'm',
        '\u{0280}' | '\u{0433}' | '\u{ABA2}' | '\u{A4E3}' => 'r',
        '\u{0456}' | '\u{026A}' | '\u{0131}' | '\u{0269}' | '\u{03B9}' | '\u{AB75}'
        | '\u{A4F2}' | '\u{A647}' | '\u{04CF}' => 'i',
        '\u{0274}' | '\u{043F}' | '\u{03BD}' | '\u{03B7}' | '\u{0578}' | '\u{A4E0}' => 'n',
        '\u{0501}' | '\u{1D05}' | '\u{AB70}' | '\u{A4D3}' => 'd',
        other => other,
    }
}

/// The addendum's block delimiters must not be opened or closed by quoted text. Every
/// candidate tag is found on a skeleton of the text: NFKC, lower case, look-alike letters as
/// Latin, brackets as `<`/`>`, slashes as `/`, and tag fillers ([`is_tag_filler`]) dropped;
/// `systemreminder` with a bracket before it or after it (slashes between) is a tag, and its
/// brackets become `&lt;` / `&gt;`. So `</System-Reminder >`, `< / system reminder >`,
/// `＜／ｓｙｓｔｅｍ—ｒｅｍｉｎｄｅｒ＞` and `<\/system_reminder>` are all defused, the name is
/// kept as written, and the result has no candidate left (neutralising twice changes nothing).
fn neutralize(text: &str) -> String {
    const NAME: &str = "systemreminder";
    // How far past the name an opened tag's closing bracket is looked for (skeleton chars).
    const TAG_ATTRIBUTES_WINDOW: usize = 256;
    if !text.chars().any(|c| tag_bracket(c).is_some()) {
        return text.to_owned();
    }
    // Skeleton characters with the byte range of the character each came from.
    let mut skeleton: Vec<(char, usize, usize)> = Vec::new();
    for (at, c) in text.char_indices() {
        let end = at + c.len_utf8();
        if let Some(open) = tag_bracket(c) {
            skeleton.push((if open { '<' } else { '>' }, at, end));
        } else if is_tag_slash(c) {
            skeleton.push(('/', at, end));
        } else {
            // Decomposed before the fillers go: a symbol may stand for letters (`⒮` is `(s)`).
            unicode_normalization::char::decompose_compatible(c, |d| {
                if is_tag_filler(d) {
                    return;
                }
                for lower in d.to_lowercase() {
                    skeleton.push((latin_look_alike(lower), at, end));
                }
            });
        }
    }
    let letters: Vec<char> = NAME.chars().collect();
    let mut brackets: Vec<(usize, usize, &str)> = Vec::new();
    let mut index = 0;
    while index + letters.len() <= skeleton.len() {
        let matches = skeleton[index..index + letters.len()]
            .iter()
            .zip(&letters)
            .all(|((c, _, _), wanted)| c == wanted);
        if !matches {
            index += 1;
            continue;
        }
        let before = skeleton[..index].iter().rev().find(|(c, _, _)| *c != '/');
        let opened = matches!(before, Some(('<', _, _)));
        if let Some(&('<', from, to)) = before {
            brackets.push((from, to, "&lt;"));
        }
        let rest = &skeleton[index + letters.len()..];
        let adjacent = rest.iter().find(|(c, _, _)| *c != '/');
        // An opened tag ends at its next bracket (after attributes); a bare name only at
        // one right after it.
        let end = if opened {
            rest.iter()
                .take(TAG_ATTRIBUTES_WINDOW)
                .find(|(c, _, _)| matches!(c, '<' | '>'))
        } else {
            adjacent
        };
        if let Some(&('>', from, to)) = end {
            brackets.push((from, to, "&gt;"));
        }
        index += letters.len();
    }
    if brackets.is_empty() {
        return text.to_owned();
    }
    brackets.sort_unstable();
    brackets.dedup();
    let mut out = String::with_capacity(text.len() + 4 * brackets.len());
    let mut copied = 0;
    for (from, to, escape) in brackets {
        if from < copied {
            continue;
        }
        out.push_str(&text[copied..from]);
        out.push_str(escape);
        copied = to;
    }
    out.push_str(&text[copied..]);
    out
}

/// Quoted text on one line of the addendum (a table cell, a bullet): every line break,
/// control character and line separator becomes a space, so it cannot start a line of its own.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// A file the task touched, merged over its sources.
struct TouchedFile {
    display: String,
    action: FileAction,
    date: Option<i64>,
    order: usize,
}

fn files_check(
    input: &VerifyInput<'_>,
    history_files: &[(&str, FileAction)],
    summary_paths: &FxHashSet<String>,
    findings: &mut Findings,
) -> CheckReport {
    let mut report = CheckReport::new(CheckId::Files);
    let mut files: FxHashMap<String, TouchedFile> = FxHashMap::default();
    let mut note = |path: &str, action: FileAction, date: Option<i64>| {
        let (display, key) = path_forms(path, input.cwd);
        if key.is_empty() {
            return;
        }
        let order = files.len();
        let entry = files.entry(key).or_insert_with(|| TouchedFile {
            display,
            action,
            date,
            order,
        });
        entry.action = entry.action.min(action);
        entry.date = entry.date.max(date);
    };
    for record in input.tracked_files {
        note(&record.path, record.action, record.date_ms);
    }
    if input.settings.files_from_history {
        for (path, action) in history_files {
            note(path, *action, None);
        }
    }
    if files.is_empty() {
        return CheckReport::skip(CheckId::Files, "no files touched");
    }
    let folded: FxHashSet<String> = input
        .folded_paths
        .iter()
        .map(|path| path_forms(path, input.cwd).1)
        .collect();
    let mut ordered: Vec<(String, TouchedFile)> = files.into_iter().collect();
    ordered.sort_by_key(|(_, file)| (!file.action.is_edit(), file.order));
    let (mut edited, mut edited_named, mut read, mut read_covered) = (0, 0, 0, 0);
    let mut missing = Vec::new();
    for (key, file) in ordered {
        let TouchedFile {
            display,
            action,
            date,
            ..
        } = file;
        let named = summary_paths.contains(&key);
        let base = key.rsplit('/').next().unwrap_or(&key);
        if !named && base != key && summary_paths.contains(base) {
            report.weak.push(display.clone());
        }
        let covered = if action.is_edit() {
            edited += 1;
            edited_named += usize::from(named);
            named
        } else {
            read += 1;
            let covered = named || folded.contains(&key);
            read_covered += usize::from(covered);
            covered
        };
        if !covered {
            missing.push(display.clone());
            findings.files.push(MissingFile {
                path: display,
                action,
                date_ms: date,
            });
        }
    }
    report.weak.truncate(REPORT_LIST_LIMIT);
    let ratio = |hit: usize, all: usize| {
        if all == 0 {
            1.0
        } else {
            hit as f64 / all as f64
        }
    };
    report.edited_recall = Some(ratio(edited_named, edited));
    report.read_recall = Some(ratio(read_covered, read));
    report.recall = Some(ratio(edited_named + read_covered, edited + read));
    report.set_missing(&missing);
    report
}

fn latest_check(
    user_texts: &[history::UserText],
    summary_normalized: &str,
    index: &LineIndex<'_>,
    findings: &mut Findings,
) -> CheckReport {
    let Some(latest) = user_texts.last() else {
        return CheckReport::skip(CheckId::LatestUserMessage, "no user message");
    };
    let mut report = CheckReport::new(CheckId::LatestUserMessage);
    let quoted = quoted_latest_message(&latest.text);
    let forms = [normalize_ws(&quoted), normalize_ws(&neutralize(&quoted))];
    let contained = forms.iter().any(|form| {
        !form.is_empty()
            && memchr::memmem::find(summary_normalized.as_bytes(), form.as_bytes()).is_some()
    });
    let words = content_words(&latest.text);
    let (close, recall) = if contained {
        (true, 1.0)
    } else {
        index.covered(&words, 5, false, None, LATEST_RECALL_THRESHOLD, ANY_WINDOW)
    };
    report.recall = Some(recall);
    if !close {
        report.passed = false;
        report.missing_count = 1;
        report.missing = vec![first_chars(&latest.text, 200)];
        findings.latest_user_message = Some(neutralize(&quoted));
    }
    report
}

fn first_chars(text: &str, limit: usize) -> String {
    let normalized = normalize_ws(text);
    match normalized.char_indices().nth(limit) {
        Some((cut, _)) => format!("{}…", &normalized[..safe_cut(&normalized, cut)]),
        None => normalized,
    }
}

fn user_messages_check(user_texts: &[history::UserText], index: &LineIndex<'_>) -> CheckReport {
    if user_texts.is_empty() {
        return CheckReport::skip(CheckId::UserMessages, "no user message");
    }
    let mut report = CheckReport::new(CheckId::UserMessages);
    let kept = user_texts
        .iter()
        .filter(|text| index.content_recall_anywhere(&text.text) >= USER_MESSAGE_RECALL_THRESHOLD)
        .count();
    let recall = kept as f64 / user_texts.len() as f64;
    report.recall = Some(recall);
    report.passed = kept == user_texts.len();
    report.missing_count = user_texts.len() - kept;
    report
}

/// Words that mark a summary sentence as constraint-like for the precision warning.
const CONSTRAINT_CUES: &[&str] = &["must", "never", "always", "don't", "forbidden"];

/// The lines of the summary holding a [`CONSTRAINT_CUES`] word, in order: one pass per cue over
/// the ASCII-lower-cased summary (which keeps byte offsets), not a lower-cased copy and five
/// searches per line. The cues are ASCII, so ASCII case folding finds what full folding found.
fn cue_lines<'a>(summary: &'a str, lines: &[&'a str]) -> Vec<&'a str> {
    let lowered = summary.to_ascii_lowercase();
    let base = summary.as_ptr() as usize;
    let starts: Vec<usize> = lines
        .iter()
        .map(|line| line.as_ptr() as usize - base)
        .collect();
    let mut marked = vec![false; lines.len()];
    for cue in CONSTRAINT_CUES {
        for at in memchr::memmem::find_iter(lowered.as_bytes(), cue) {
            let line = starts
                .partition_point(|&start| start <= at)
                .saturating_sub(1);
            if let Some(flag) = marked.get_mut(line) {
                *flag = true;
            }
        }
    }
    lines
        .iter()
        .zip(marked)
        .filter_map(|(line, marked)| marked.then_some(*line))
        .collect()
}

fn constraints_check(
    input: &VerifyInput<'_>,
    user_texts: &[history::UserText],
    index: &LineIndex<'_>,
    findings: &mut Findings,
) -> CheckReport {
    let mut report = CheckReport::new(CheckId::Constraints);
    let mut seen = FxHashSet::default();
    let mut all = Vec::new();
    for text in user_texts {
        for constraint in extract_constraints(&text.text) {
            if seen.insert(constraint.to_lowercase()) {
                all.push(constraint);
            }
        }
    }
    for extra in input.extra_constraints {
        let extra = normalize_ws(extra);
        if !extra.is_empty() && seen.insert(extra.to_lowercase()) {
            all.push(extra);
        }
    }
    // The precision warning: constraint-like lines the user never said.
    let user_words: FxHashSet<std::borrow::Cow<'_, str>> = user_texts
        .iter()
        .flat_map(|text| text::words_borrowed(&text.text))
        .collect();
    for line in cue_lines(input.summary, &index.lines) {
        if report.unsupported.len() >= REPORT_LIST_LIMIT {
            break;
        }
        for sentence in sentences(line) {
            if !is_constraint(&sentence) {
                continue;
            }
            let words = content_words(&sentence);
            let known = words
                .iter()
                .filter(|w| user_words.contains(w.as_str()))
                .count();
            if !words.is_empty() && (known as f64) < 0.5 * words.len() as f64 {
                report.unsupported.push(sentence);
            }
        }
    }
    if all.is_empty() {
        report.skipped = Some("no constraints found".into());
        return report;
    }
    let mut missing = Vec::new();
    for constraint in &all {
        let words = content_words(constraint);
        let (kept, _) = index.covered(
            &words,
            2,
            has_negation(constraint),
            None,
            COVERAGE_THRESHOLD,
            &|window| !contradicts(constraint, window),
        );
        if !kept {
            missing.push(constraint.clone());
        }
    }
    report.recall = Some(1.0 - missing.len() as f64 / all.len() as f64);
    report.set_missing(&missing);
    findings.constraints = missing;
    report
}

fn todos_check(
    input: &VerifyInput<'_>,
    index: &LineIndex<'_>,
    sections: Option<(&SectionScan, usize)>,
    findings: &mut Findings,
) -> CheckReport {
    let items = match input.host_todos {
        Some(items) => items.to_vec(),
        None => match history::latest_todos(input.messages) {
            Some(items) => items,
            None => return CheckReport::skip(CheckId::Todos, "no TODO list"),
        },
    };
    let mut report = CheckReport::new(CheckId::Todos);
    let pending_section = sections.and_then(|(scan, pending)| scan.body(pending));
    let (mut open, mut kept) = (0, 0);
    let mut missing = Vec::new();
    for item in &items {
        let words = content_words(&item.content);
        if item.status.is_open() {
            open += 1;
            let consistent = |window: &[&str]| !contradicts(&item.content, window);
            if index
                .covered(&words, 2, false, None, COVERAGE_THRESHOLD, &consistent)
                .0
            {
                kept += 1;
            } else {
                missing.push(item.content.clone());
            }
        } else if let Some(range) = pending_section.clone() {
            // Every word of the completed item on one line of Pending Tasks: near-identical
            // items ("step 3" / "step 13") must not read as reopened.
            let (listed, _) = index.covered(&words, 1, false, Some(range), 1.0, ANY_WINDOW);
            // A table row marking it completed (the addendum's) settles it. Searched only for
            // a listed item: a search of the whole summary per completed item was most of
            // this check's time.
            let settled = || {
                let row = format!(
                    " | {} | {} |",
                    todo_cell(&item.content),
                    TodoStatus::Completed.label()
                );
                memchr::memmem::find(input.summary.as_bytes(), row.as_bytes()).is_some()
            };
            if listed && !words.is_empty() && !settled() {
                report.reopened.push(item.content.clone());
            }
        }
    }
    report.recall = Some(if open == 0 {
        1.0
    } else {
        kept as f64 / open as f64
    });
    report.set_missing(&missing);
    let reopened = !report.reopened.is_empty();
    report.reopened.truncate(REPORT_LIST_LIMIT);
    if reopened {
        report.passed = false;
    }
    if !missing.is_empty() || reopened {
        findings.todos = Some(items);
    }
    report
}

/// Checks a summary (see the module doc). Pure: no model call, no I/O.
pub fn verify_summary(input: &VerifyInput<'_>, counter: &dyn TokenCounter) -> Verification {
    let enabled = |id: CheckId| input.settings.checks.contains(&id);
    let index = LineIndex::new(input.summary);
    let mut findings = Findings::default();
    let mut warnings = Vec::new();
    let required: Option<Vec<String>> = match (
        &input.settings.required_sections,
        input.settings.custom_prompt,
    ) {
        (Some(list), _) => Some(list.clone()),
        (None, false) => Some(DEFAULT_SECTIONS.iter().map(|s| (*s).to_owned()).collect()),
        (None, true) => None,
    };
    let scan = required
        .as_ref()
        .map(|required| scan_sections(&index.lines, required));
    let history::HistoryScan {
        user_texts,
        touched_files,
    } = history::scan(
        input.messages,
        enabled(CheckId::LatestUserMessage)
            || enabled(CheckId::UserMessages)
            || enabled(CheckId::Constraints),
        enabled(CheckId::Files) && input.settings.files_from_history,
    );
    let summary_tokens = counter.finish(counter.count_text(input.summary)) as u64;
    let default_template =
        input.settings.required_sections.is_none() && !input.settings.custom_prompt;
    let tail_empty = default_template
        && scan.as_ref().is_some_and(|scan| {
            !section_has_body(&index.lines, scan, 7, DEFAULT_SECTIONS[7])
                && !section_has_body(&index.lines, scan, 8, DEFAULT_SECTIONS[8])
        });

    let mut checks = Vec::new();
    for id in CheckId::ALL {
        if !enabled(id) {
            continue;
        }
        let report = match id {
            CheckId::Sections => match (&required, &scan) {
                (Some(required), Some(scan)) => {
                    let mut report = CheckReport::new(id);
                    let missing: Vec<String> = required
                        .iter()
                        .zip(&scan.lines)
                        .filter(|(_, line)| line.is_none())
                        .map(|(title, _)| title.clone())
                        .collect();
                    report.found = Some(required.len() - missing.len());
                    report.required = Some(required.len());
                    report.set_missing(&missing);
                    if tail_empty {
                        report.passed = false;
                    }
                    if !report.passed {
                        warnings.push(if missing.is_empty() {
                            "The summary's Current Work and Optional Next Step sections are both empty".to_owned()
                        } else {
                            format!("The summary lacks the sections: {}", missing.join(", "))
                        });
                    }
                    report
                }
                _ => CheckReport::skip(id, "custom prompt without requiredSections"),
            },
            CheckId::Files => files_check(
                input,
                &touched_files,
                &path_tokens(input.summary),
                &mut findings,
            ),
            CheckId::LatestUserMessage => latest_check(
                &user_texts,
                &normalize_ws(input.summary),
                &index,
                &mut findings,
            ),
            CheckId::UserMessages => user_messages_check(&user_texts, &index),
            CheckId::Constraints => constraints_check(input, &user_texts, &index, &mut findings),
            CheckId::Todos => {
                let pending = required.as_ref().and_then(|required| {
                    required
                        .iter()
                        .position(|title| title.eq_ignore_ascii_case(DEFAULT_SECTIONS[6]))
                });
                let sections = scan.as_ref().zip(pending);
                todos_check(input, &index, sections, &mut findings)
            }
            CheckId::Size => {
                let mut report = CheckReport::new(id);
                report.summary_tokens = Some(summary_tokens);
                let floor = 500.min(input.previous_context_tokens / 50);
                if summary_tokens < floor || tail_empty {
                    report.passed = false;
                    warnings.push(format!(
                        "The summary is very short ({summary_tokens} tokens; expected at least {floor})"
                    ));
                }
                report
            }
        };
        checks.push(report);
    }
    if index.exhausted() {
        warnings.push(format!(
            "The summary is too large to verify within the work limit ({} probes); items it could not check count as missing",
            text::WORK_BUDGET
        ));
    }
    // A constraint inside the latest message is restored with it, verbatim.
    if let Some(latest) = &findings.latest_user_message {
        let latest = normalize_ws(latest);
        findings
            .constraints
            .retain(|constraint| !latest.contains(constraint.as_str()));
    }
    let passed = checks
        .iter()
        .all(|check| check.passed || !check.id.is_some_and(CheckId::is_gating));
    Verification {
        passed,
        checks,
        findings,
        warnings,
    }
}

/// The addendum block that restores the findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addendum {
    /// The block's text (`<system-reminder>…</system-reminder>`).
    pub text: String,
    /// Its tokens.
    pub tokens: u64,
    /// Items left out to respect the cap, per kind (`constraints`, `readFiles`,
    /// `completedTodos`).
    pub omitted: Vec<(&'static str, usize)>,
}

/// The restoration the cap cannot hold: the never-cut items (edited files, the latest
/// message, open TODOs) alone exceed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddendumOverflow {
    /// Tokens the never-cut items need.
    pub required_tokens: u64,
    /// The cap.
    pub cap_tokens: u64,
}

fn format_date(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

fn file_line(file: &MissingFile) -> String {
    // A path (from a tool input the model wrote) stays on its line: escaped, not collapsed,
    // so it still names the file.
    let path = neutralize(&crate::stale_diff::notice_path(&file.path));
    match file.date_ms {
        Some(ms) => format!("- {path} ({}, {})\n", file.action.label(), format_date(ms)),
        None => format!("- {path} ({})\n", file.action.label()),
    }
}

fn todo_cell(content: &str) -> String {
    one_line(&neutralize(content)).replace('|', "\\|")
}

fn todo_row(number: usize, item: &TodoItem) -> String {
    let content = todo_cell(&item.content);
    format!("| {number} | {content} | {} |\n", item.status.label())
}

/// Which optional items are kept.
struct Keep {
    constraints_from: usize,
    read_files: usize,
    completed: bool,
}

fn render(findings: &Findings, keep: &Keep) -> String {
    let mut out = String::from("<system-reminder>\n");
    out.push_str(ADDENDUM_HEADING);
    out.push('\n');
    let edited: Vec<&MissingFile> = findings
        .files
        .iter()
        .filter(|f| f.action.is_edit())
        .collect();
    let read: Vec<&MissingFile> = findings
        .files
        .iter()
        .filter(|f| !f.action.is_edit())
        .collect();
    let read_kept = keep.read_files.min(read.len());
    if !edited.is_empty() || read_kept > 0 || read.len() > read_kept {
        out.push_str("### Files you edited or read\n");
        for file in edited.iter().chain(read.iter().take(read_kept)) {
            out.push_str(&file_line(file));
        }
        if read.len() > read_kept {
            let _ = writeln!(
                out,
                "[… {} more read files omitted …]",
                read.len() - read_kept
            );
        }
    }
    if let Some(latest) = &findings.latest_user_message {
        out.push_str("### Latest user message (verbatim)\n");
        // Already neutralised by the check; again here for findings built elsewhere (it
        // changes nothing the second time).
        out.push_str(&neutralize(latest));
        out.push('\n');
    }
    let constraints = &findings.constraints;
    if !constraints.is_empty() {
        out.push_str("### User constraints (verbatim)\n");
        let from = keep.constraints_from.min(constraints.len());
        if from > 0 {
            let _ = writeln!(out, "[… {from} older constraints omitted …]");
        }
        for constraint in &constraints[from..] {
            let _ = writeln!(out, "- \"{}\"", one_line(&neutralize(constraint)));
        }
    }
    if let Some(items) = &findings.todos {
        out.push_str("### Open TODOs\n| # | Content | Status |\n|---|---------|--------|\n");
        let mut hidden = 0;
        for (number, item) in items.iter().enumerate() {
            if item.status.is_open() || keep.completed {
                out.push_str(&todo_row(number + 1, item));
            } else {
                hidden += 1;
            }
        }
        if hidden > 0 {
            let _ = writeln!(
                out,
                "[… {hidden} completed items omitted; they stay completed …]"
            );
        }
    }
    out.push_str("</system-reminder>");
    out
}

/// Builds the addendum for `findings` within `cap_tokens`, cutting optional items in this
/// order: constraints (oldest first), read files, completed TODO rows. Edited files, the latest
/// user message and open TODOs are never cut: when they alone exceed the cap, the result is
/// [`AddendumOverflow`]. `Ok(None)` when there is nothing to restore.
pub fn build_addendum(
    findings: &Findings,
    cap_tokens: u64,
    counter: &dyn TokenCounter,
) -> Result<Option<Addendum>, AddendumOverflow> {
    if findings.is_empty() {
        return Ok(None);
    }
    let tokens = |text: &str| counter.finish(counter.count_text(text)) as u64;
    let read_count = findings
        .files
        .iter()
        .filter(|f| !f.action.is_edit())
        .count();
    let mut keep = Keep {
        constraints_from: 0,
        read_files: read_count,
        completed: true,
    };
    let mut text = render(findings, &keep);
    let mut used = tokens(&text);
    if used > cap_tokens {
        // Cut in order, estimating each item's share by its own count (lines are nearly
        // additive), then confirm with one full count; repeat while the estimate was short.
        let line_tokens = |line: String| counter.finish(counter.count_text(&line)) as u64;
        let constraint_costs: Vec<u64> = findings
            .constraints
            .iter()
            .map(|c| line_tokens(format!("- \"{}\"\n", one_line(&neutralize(c)))))
            .collect();
        let read_costs: Vec<u64> = findings
            .files
            .iter()
            .filter(|f| !f.action.is_edit())
            .map(|f| line_tokens(file_line(f)))
            .collect();
        let completed_cost: u64 = findings.todos.as_ref().map_or(0, |items| {
            items
                .iter()
                .enumerate()
                .filter(|(_, item)| !item.status.is_open())
                .map(|(n, item)| line_tokens(todo_row(n + 1, item)))
                .sum()
        });
        let mut excess = (used - cap_tokens) as i64;
        for _ in 0..8 {
            while excess > 0 && keep.constraints_from < constraint_costs.len() {
                excess -= constraint_costs[keep.constraints_from] as i64;
                keep.constraints_from += 1;
            }
            while excess > 0 && keep.read_files > 0 {
                keep.read_files -= 1;
                excess -= read_costs[keep.read_files] as i64;
            }
            if excess > 0 && keep.completed && completed_cost > 0 {
                keep.completed = false;
            }
            text = render(findings, &keep);
            used = tokens(&text);
            if used <= cap_tokens {
                break;
            }
            excess = (used - cap_tokens) as i64;
            let nothing_left = keep.constraints_from >= constraint_costs.len()
                && keep.read_files == 0
                && (!keep.completed || completed_cost == 0);
            if nothing_left {
                break;
            }
        }
        if used > cap_tokens {
            return Err(AddendumOverflow {
                required_tokens: used,
                cap_tokens,
            });
        }
    }
    let mut omitted = Vec::new();
    if keep.constraints_from > 0 {
        omitted.push(("constraints", keep.constraints_from));
    }
    if keep.read_files < read_count {
        omitted.push(("readFiles", read_count - keep.read_files));
    }
    if !keep.completed {
        let completed = findings.todos.as_ref().map_or(0, |items| {
            items.iter().filter(|item| !item.status.is_open()).count()
        });
        omitted.push(("completedTodos", completed));
    }
    Ok(Some(Addendum {
        text,
        tokens: used,
        omitted,
    }))
}

/// The text a repaired summary is verified as: the summary, a blank line, the addendum.
pub fn repaired_text(summary: &str, addendum: &Addendum) -> String {
    format!("{summary}\n\n{}", addendum.text)
}

/// The corrective message of the one retry: names the missing sections (and, briefly, the
/// items the summary lost). `None` when no section is missing.
pub fn retry_instructions(verification: &Verification) -> Option<String> {
    let missing = verification.missing_sections();
    if missing.is_empty() {
        return None;
    }
    let mut text = String::from(
        "Your summary above is incomplete. Write the whole summary again, with every required section in order",
    );
    let _ = write!(text, "; it lacks: {}.", missing.join(", "));
    let findings = &verification.findings;
    if !findings.files.is_empty() {
        let names: Vec<std::borrow::Cow<'_, str>> = findings
            .files
            .iter()
            .take(20)
            .map(|f| crate::stale_diff::notice_path(&f.path))
            .collect();
        let _ = write!(text, " Name these files: {}.", names.join(", "));
    }
    if findings.todos.is_some() {
        text.push_str(" List every pending TODO item under Pending Tasks.");
    }
    if findings.latest_user_message.is_some() {
        text.push_str(" Quote the user's most recent message.");
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII shortcut of the heading match agrees with lower-casing the whole line,
    /// including characters whose lower case is ASCII (the Kelvin sign) or longer (`İ`).
    #[test]
    fn heading_match_agrees_with_full_lower_casing() {
        for (text, wanted) in [
            ("Key Technical Concepts: x", "key technical concepts"),
            ("\u{212A}ey Technical Concepts", "key technical concepts"),
            ("İmportant", "i\u{307}mportant"),
            ("Key", "key technical concepts"),
            ("Pending Tasks", ""),
            ("Pénding", "pénding"),
        ] {
            assert_eq!(
                heading_starts_with(text, wanted),
                text.to_lowercase().starts_with(wanted),
                "{text:?} {wanted:?}"
            );
        }
    }

    #[test]
    fn neutralizing_twice_changes_nothing_and_stays_linear() {
        for text in [
            "</system reminder>",
            "<<system-reminder>>",
            "</system-reminder></system-reminder>",
            "a </sys\u{AD}tem_reminder x=\"1\"> b",
            "&lt;/system-reminder&gt;",
            "<system-reminder",
            "system-reminder>",
        ] {
            let once = neutralize(text);
            assert_eq!(neutralize(&once), once, "{text:?}");
            for tag_edge in ["<system", "</system", "reminder>", "reminder x=\"1\">"] {
                assert!(!once.contains(tag_edge), "{text:?}: {once}");
            }
        }
        let long =
            format!("<{}", "/".repeat(200_000)).repeat(4) + &"system reminder>".repeat(20_000);
        let started = std::time::Instant::now();
        let out = neutralize(&long);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(!out.contains("reminder>"));
    }

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(format_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_date(1_733_000_000_000), "2024-11-30 20:53 UTC");
        assert_eq!(format_date(-1), "1969-12-31 23:59 UTC");
    }

    #[test]
    fn long_latest_message_keeps_head_and_tail_with_the_omitted_count() {
        let text = format!("{}{}", "a".repeat(5_000), "b".repeat(5_000));
        let quoted = quoted_latest_message(&text);
        assert!(quoted.starts_with(&"a".repeat(3_000)));
        assert!(quoted.ends_with(&"b".repeat(3_000)));
        assert!(
            quoted.contains("[… 4000 characters omitted …]"),
            "{}",
            &quoted[2990..3050]
        );
    }
}
