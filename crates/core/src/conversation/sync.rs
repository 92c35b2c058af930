//! A history that lives in the sidecar (issue 29): the host sends a task's history once, then
//! only what changes, and both sides check they hold the same thing by a digest that is cheap
//! to keep up to date on either side (`docs/protocol.md`, "History sync").
//! Over 700 lines only because its unit tests, about 285 lines, sit below the code; the code
//! keeps one invariant: `HistoryDoc`'s private digests equal the digest computed afresh.
//!
//! The digest of a history of n messages is `Σ term(i) mod 2^64`, where
//! - `content(i)` is the first 8 bytes (big-endian) of SHA-256 over the message's compact JSON
//!   *without* its six tag fields ([`TAG_FIELDS`]), as `JSON.stringify` writes it; whoever
//!   creates a message computes it once (the host over the string it sends);
//! - `head(i)` is the first 8 bytes of SHA-256 over `content(i)` (8 bytes, big-endian) and the
//!   tag string: for each tag field present, in [`TAG_FIELDS`] order, `name=<compact JSON>\n`;
//! - `term(i)` is the first 8 bytes of SHA-256 over `i` (8 bytes, big-endian) and `head(i)`.
//!
//! So re-tagging a range (a condense, a truncation) never re-serialises a message body, an
//! append adds terms, a truncation subtracts them, and only an insert in the middle renumbers
//! the terms after it. A batch of operations is checked whole before any of it applies: it
//! applies completely or not at all.

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::message::ApiMessage;
use crate::wire_text;

/// The fields context management writes on messages: a tag change never changes a message's
/// content digest.
pub const TAG_FIELDS: [&str; 6] = [
    "condenseParent",
    "condenseId",
    "isSummary",
    "truncationParent",
    "truncationId",
    "isTruncationMarker",
];

fn first_u64(bytes: &[u8]) -> u64 {
    u64::from_be_bytes(bytes[..8].try_into().expect("a SHA-256 has 32 bytes"))
}

/// The message's fields without its tags, serialised in order.
struct Untagged<'a>(&'a Map<String, Value>);

impl Serialize for Untagged<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.0
                .iter()
                .filter(|(key, _)| !TAG_FIELDS.contains(&key.as_str())),
        )
    }
}

/// `content(i)`: the digest of what the message says, its tags left out. The JSON is the one
/// `JSON.stringify` writes for the message the host sent (lone surrogates as the host escaped
/// them; see [`wire_text`]).
pub fn content_digest(message: &ApiMessage) -> u64 {
    first_u64(&Sha256::digest(wire_text::javascript_json(&Untagged(
        &message.fields,
    ))))
}

/// `head(i)`: the content digest joined with the message's tags.
pub fn head_digest(content: u64, message: &ApiMessage) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(content.to_be_bytes());
    for name in TAG_FIELDS {
        if let Some(value) = message.fields.get(name) {
            hasher.update(name.as_bytes());
            hasher.update(b"=");
            hasher.update(wire_text::javascript_json(value));
            hasher.update(b"\n");
        }
    }
    first_u64(&hasher.finalize())
}

/// `term(i)`: the head digest at its position.
pub fn term_digest(index: usize, head: u64) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update((index as u64).to_be_bytes());
    hasher.update(head.to_be_bytes());
    first_u64(&hasher.finalize())
}

/// A digest as it is written on the wire: 16 lowercase hex digits.
pub fn digest_hex(digest: u64) -> String {
    format!("{digest:016x}")
}

/// Reads a digest written by [`digest_hex`] (any case).
pub fn parse_digest(text: &str) -> Option<u64> {
    // `from_str_radix` alone also takes a leading `+` (`+123456789abcdef`).
    (text.len() == 16 && text.bytes().all(|byte| byte.is_ascii_hexdigit()))
        .then(|| u64::from_str_radix(text, 16).ok())
        .flatten()
}

/// One change to a history. Indices are of the history as it is when the op applies (after the
/// batch's earlier ops); ranges are half-open, `[start, end)`.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryOp {
    /// Messages added at the end, with their content digests when their creator computed them.
    Append {
        /// The new messages.
        messages: Vec<ApiMessage>,
        /// One per message, or `None` to let the sidecar compute them.
        content_digests: Option<Vec<u64>>,
    },
    /// The last message removed (the original's `pop` when the model answered nothing).
    RemoveLast {
        /// Refuse unless the last message has this role.
        expect_role: Option<String>,
    },
    /// One message replaced (the env-details rewrite on resume, a shrunk tool result).
    Replace {
        /// Its index.
        index: usize,
        /// The new message.
        message: ApiMessage,
        /// Its content digest, when its creator computed it.
        content_digest: Option<u64>,
    },
    /// Everything from `length` on removed (edit a message, rewind).
    Truncate {
        /// The new length.
        length: usize,
    },
    /// The whole history replaced (a resync).
    Reset {
        /// The new history.
        messages: Vec<ApiMessage>,
        /// One per message, or `None`.
        content_digests: Option<Vec<u64>>,
    },
    /// The tag fields of every message in `ranges` become exactly `tags` (a tag not named is
    /// removed; one named keeps its key position when present, else goes last, as a
    /// JavaScript assignment does).
    SetTags {
        /// Half-open ranges of indices.
        ranges: Vec<(usize, usize)>,
        /// Tag fields and their values (only names of [`TAG_FIELDS`]).
        tags: Map<String, Value>,
    },
    /// One message inserted before `index` (a summary, a truncation marker).
    Insert {
        /// Where it goes (`length` appends).
        index: usize,
        /// The message.
        message: ApiMessage,
        /// Its content digest, when its creator computed it.
        content_digest: Option<u64>,
    },
}

impl HistoryOp {
    /// The op's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            HistoryOp::Append { .. } => "append",
            HistoryOp::RemoveLast { .. } => "removeLast",
            HistoryOp::Replace { .. } => "replace",
            HistoryOp::Truncate { .. } => "truncate",
            HistoryOp::Reset { .. } => "reset",
            HistoryOp::SetTags { .. } => "setTags",
            HistoryOp::Insert { .. } => "insert",
        }
    }

    /// Whether the op only adds at the end: an append commutes with a condense that waits for
    /// its summary (the condense's ops touch only what was there before).
    pub fn is_append(&self) -> bool {
        matches!(self, HistoryOp::Append { .. })
    }
}

/// Why a batch was refused (nothing of it applied).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ops[{op}].{field}: {message}")]
pub struct OpError {
    /// The op's position in the batch.
    pub op: usize,
    /// The field at fault, as the wire names it.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

fn op_error(op: usize, field: &'static str, message: impl Into<String>) -> OpError {
    OpError {
        op,
        field,
        message: message.into(),
    }
}

/// The agreed state of a history: what every answer carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryState {
    /// Increases with every applied batch.
    pub version: u64,
    /// The number of messages.
    pub length: usize,
    /// The digest.
    pub digest: u64,
}

/// One task's history with its digests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryDoc {
    messages: Vec<ApiMessage>,
    contents: Vec<u64>,
    heads: Vec<u64>,
    digest: u64,
    version: u64,
}

fn digests_for(
    messages: &[ApiMessage],
    given: Option<Vec<u64>>,
    op: usize,
) -> Result<Vec<u64>, OpError> {
    match given {
        Some(given) if given.len() != messages.len() => Err(op_error(
            op,
            "contentDigests",
            format!(
                "{} digests for {} messages (one per message)",
                given.len(),
                messages.len()
            ),
        )),
        Some(given) => Ok(given),
        None => Ok(messages.iter().map(content_digest).collect()),
    }
}

fn check_tags(tags: &Map<String, Value>, op: usize) -> Result<(), OpError> {
    match tags.keys().find(|key| !TAG_FIELDS.contains(&key.as_str())) {
        Some(key) => Err(op_error(
            op,
            "tags",
            format!(
                "`{key}` is not a tag field (one of {})",
                TAG_FIELDS.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// Sets a message's tags to exactly `tags` (see [`HistoryOp::SetTags`]).
pub fn set_tags(message: &mut ApiMessage, tags: &Map<String, Value>) {
    for name in TAG_FIELDS {
        match tags.get(name) {
            Some(value) => {
                message.fields.insert(name.to_owned(), value.clone());
            }
            None => {
                message.fields.shift_remove(name);
            }
        }
    }
}

/// A message's tag fields.
pub fn tags_of(message: &ApiMessage) -> Map<String, Value> {
    TAG_FIELDS
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), message.fields.get(*name)?.clone())))
        .collect()
}

impl HistoryDoc {
    /// A history at version 1 (`content_digests`: the creator's, one per message).
    pub fn new(
        messages: Vec<ApiMessage>,
        content_digests: Option<Vec<u64>>,
    ) -> Result<HistoryDoc, OpError> {
        let contents = digests_for(&messages, content_digests, 0)?;
        let mut doc = HistoryDoc {
            heads: Vec::with_capacity(messages.len()),
            messages,
            contents,
            digest: 0,
            version: 1,
        };
        doc.rehash_from(0);
        Ok(doc)
    }

    /// Recomputes heads from `start` on, and the digest.
    fn rehash_from(&mut self, start: usize) {
        self.heads.truncate(start);
        for index in start..self.messages.len() {
            let head = head_digest(self.contents[index], &self.messages[index]);
            self.heads.push(head);
        }
        self.digest = self
            .heads
            .iter()
            .enumerate()
            .fold(0u64, |sum, (index, head)| {
                sum.wrapping_add(term_digest(index, *head))
            });
    }

    /// The agreed state.
    pub fn state(&self) -> HistoryState {
        HistoryState {
            version: self.version,
            length: self.messages.len(),
            digest: self.digest,
        }
    }

    /// The messages.
    pub fn messages(&self) -> &[ApiMessage] {
        &self.messages
    }

    /// The content digest of each message.
    pub fn content_digests(&self) -> &[u64] {
        &self.contents
    }

    /// Moves the messages out (for a computation that consumes them); give them back with
    /// [`HistoryDoc::restore_messages`] before anything else reads the doc.
    pub fn take_messages(&mut self) -> Vec<ApiMessage> {
        std::mem::take(&mut self.messages)
    }

    /// Gives back what [`HistoryDoc::take_messages`] took, unchanged.
    pub fn restore_messages(&mut self, messages: Vec<ApiMessage>) {
        debug_assert_eq!(messages.len(), self.contents.len());
        self.messages = messages;
    }

    /// Applies a batch: every op is checked against the history as the earlier ops leave it
    /// before any applies, so a refused batch changes nothing. The version goes up by one.
    pub fn apply(&mut self, ops: Vec<HistoryOp>) -> Result<HistoryState, OpError> {
        let mut ops = ops;
        self.check(&mut ops)?;
        // Terms before the first index a batch touches are kept; the rest are recomputed.
        let mut first_changed = self.messages.len();
        let touch = |index: usize, first: &mut usize| *first = (*first).min(index);
        for op in ops {
            match op {
                HistoryOp::Append {
                    messages,
                    content_digests,
                } => {
                    touch(self.messages.len(), &mut first_changed);
                    let digests = content_digests.expect("checked: digests filled in");
                    self.messages.extend(messages);
                    self.contents.extend(digests);
                }
                HistoryOp::RemoveLast { .. } => {
                    self.messages.pop();
                    self.contents.pop();
                    touch(self.messages.len(), &mut first_changed);
                }
                HistoryOp::Replace {
                    index,
                    message,
                    content_digest,
                } => {
                    self.messages[index] = message;
                    self.contents[index] = content_digest.expect("checked: digest filled in");
                    touch(index, &mut first_changed);
                }
                HistoryOp::Truncate { length } => {
                    self.messages.truncate(length);
                    self.contents.truncate(length);
                    touch(length, &mut first_changed);
                }
                HistoryOp::Reset {
                    messages,
                    content_digests,
                } => {
                    self.messages = messages;
                    self.contents = content_digests.expect("checked: digests filled in");
                    first_changed = 0;
                }
                HistoryOp::SetTags { ranges, tags } => {
                    for (start, end) in ranges {
                        for message in &mut self.messages[start..end] {
                            set_tags(message, &tags);
                        }
                        touch(start, &mut first_changed);
                    }
                }
                HistoryOp::Insert {
                    index,
                    message,
                    content_digest,
                } => {
                    self.messages.insert(index, message);
                    self.contents
                        .insert(index, content_digest.expect("checked: digest filled in"));
                    touch(index, &mut first_changed);
                }
            }
        }
        self.rehash_tail(first_changed);
        self.version += 1;
        Ok(self.state())
    }

    /// Recomputes heads and terms from `start` on: the digest keeps the terms before it.
    fn rehash_tail(&mut self, start: usize) {
        let start = start.min(self.heads.len());
        let term_sum = |heads: &[u64], first: usize| {
            heads.iter().enumerate().fold(0u64, |sum, (offset, head)| {
                sum.wrapping_add(term_digest(first + offset, *head))
            })
        };
        // Subtract the tail's old terms or sum the kept prefix again, whichever is shorter:
        // an append or a tag change near the end costs O(change), not O(history).
        let prefix = if self.heads.len() - start < start {
            self.digest
                .wrapping_sub(term_sum(&self.heads[start..], start))
        } else {
            term_sum(&self.heads[..start], 0)
        };
        self.heads.truncate(start);
        let mut digest = prefix;
        for index in start..self.messages.len() {
            let head = head_digest(self.contents[index], &self.messages[index]);
            digest = digest.wrapping_add(term_digest(index, head));
            self.heads.push(head);
        }
        self.digest = digest;
    }

    /// Checks a batch against the length each op sees, and fills in missing content digests.
    fn check(&self, ops: &mut [HistoryOp]) -> Result<(), OpError> {
        let mut length = self.messages.len();
        for (at, op) in ops.iter_mut().enumerate() {
            match op {
                HistoryOp::Append {
                    messages,
                    content_digests,
                } => {
                    *content_digests = Some(digests_for(messages, content_digests.take(), at)?);
                    length += messages.len();
                }
                HistoryOp::RemoveLast { expect_role } => {
                    if length == 0 {
                        return Err(op_error(at, "op", "removeLast on an empty history"));
                    }
                    if let Some(role) = expect_role {
                        let last = self.role_at(length - 1, at);
                        if last.as_deref() != Some(role.as_str()) {
                            return Err(op_error(
                                at,
                                "expectRole",
                                match last {
                                    Some(last) => {
                                        format!("the last message's role is `{last}`, not `{role}`")
                                    }
                                    None if at > 0 => "cannot be checked after an earlier op of \
                                        the same batch; send removeLast first"
                                        .to_owned(),
                                    None => format!("the last message has no role, not `{role}`"),
                                },
                            ));
                        }
                    }
                    length -= 1;
                }
                HistoryOp::Replace {
                    index,
                    message,
                    content_digest,
                } => {
                    if *index >= length {
                        return Err(op_error(
                            at,
                            "index",
                            format!("{index} is past the history's {length} messages"),
                        ));
                    }
                    content_digest.get_or_insert_with(|| self::content_digest(message));
                }
                HistoryOp::Truncate { length: new } => {
                    if *new > length {
                        return Err(op_error(
                            at,
                            "length",
                            format!("{new} is longer than the history's {length} messages"),
                        ));
                    }
                    length = *new;
                }
                HistoryOp::Reset {
                    messages,
                    content_digests,
                } => {
                    *content_digests = Some(digests_for(messages, content_digests.take(), at)?);
                    length = messages.len();
                }
                HistoryOp::SetTags { ranges, tags } => {
                    check_tags(tags, at)?;
                    if let Some((start, end)) = ranges
                        .iter()
                        .find(|(start, end)| start > end || *end > length)
                    {
                        return Err(op_error(
                            at,
                            "ranges",
                            format!(
                                "[{start}, {end}) is not a range of the history's {length} messages"
                            ),
                        ));
                    }
                }
                HistoryOp::Insert {
                    index,
                    message,
                    content_digest,
                } => {
                    if *index > length {
                        return Err(op_error(
                            at,
                            "index",
                            format!("{index} is past the history's {length} messages"),
                        ));
                    }
                    content_digest.get_or_insert_with(|| self::content_digest(message));
                    length += 1;
                }
            }
        }
        Ok(())
    }

    /// The role of the message at `index` before the batch; `None` after an earlier op of the
    /// batch (`op_index` > 0), which may have changed the end.
    fn role_at(&self, index: usize, op_index: usize) -> Option<String> {
        if op_index > 0 {
            return None;
        }
        self.messages.get(index)?.role_str().map(str::to_owned)
    }

    /// The ops that turn this history into `new` ([`ops_between`]).
    pub fn ops_to(&self, new: &[ApiMessage], new_contents: &[u64]) -> Option<Vec<HistoryOp>> {
        ops_between(&self.contents, &self.heads, new, new_contents)
    }

    /// The head digest of each message.
    pub fn head_digests(&self) -> &[u64] {
        &self.heads
    }

    /// Sets the version (a journal replay restores the one recorded); never lowers it.
    pub fn set_version(&mut self, version: u64) {
        self.version = self.version.max(version);
    }

    /// Takes `messages` (with their content digests) as the new history, one version up: the
    /// result of applying ops that touched nothing before `first_changed`, which the caller
    /// computed from them. Terms before it are kept.
    pub fn adopt(&mut self, messages: Vec<ApiMessage>, contents: Vec<u64>, first_changed: usize) {
        debug_assert_eq!(messages.len(), contents.len());
        self.messages = messages;
        self.contents = contents;
        self.rehash_tail(first_changed);
        self.version += 1;
    }
}

/// The first index an op touches (the history before it is unchanged).
pub fn first_touched(ops: &[HistoryOp], length: usize) -> usize {
    ops.iter()
        .map(|op| match op {
            HistoryOp::Append { .. } => length,
            HistoryOp::RemoveLast { .. } => length.saturating_sub(1),
            HistoryOp::Replace { index, .. } | HistoryOp::Insert { index, .. } => *index,
            HistoryOp::Truncate { length } => *length,
            HistoryOp::Reset { .. } => 0,
            HistoryOp::SetTags { ranges, .. } => ranges
                .iter()
                .map(|(start, _)| *start)
                .min()
                .unwrap_or(length),
        })
        .min()
        .unwrap_or(length)
}

/// Indices whose tags all became one tag set.
type TagGroup = (Map<String, Value>, Vec<(usize, usize)>);

/// The ops that turn a history (its content and head digests) into `new`, the same history after context management
/// changed it: messages matched by content digest, in order; one `setTags` per distinct
/// tag set that changed, one `insert` per message that is new, one `replace` per message
/// whose content changed; a shorter `new` (a rewind) starts with a `truncate`. `None` when
/// the messages cannot be matched (the caller resets).
/// `new_contents` are `new`'s content digests.
pub fn ops_between(
    contents: &[u64],
    heads: &[u64],
    new: &[ApiMessage],
    new_contents: &[u64],
) -> Option<Vec<HistoryOp>> {
    let old_len = contents.len();
    if new.len() < old_len {
        // Shorter (a rewind): cut to its length, then what changed in what is kept.
        let kept = new.len();
        let mut ops = ops_between(&contents[..kept], &heads[..kept], new, new_contents)?;
        ops.insert(0, HistoryOp::Truncate { length: kept });
        return Some(ops);
    }
    let mut old = 0;
    let mut replaces = Vec::new();
    let mut inserts = Vec::new();
    // Tag changes grouped by the tag set they set, in order of first appearance.
    let mut tag_groups: Vec<TagGroup> = Vec::new();
    let inserts_left = new.len().checked_sub(old_len)?;
    let mut inserted = 0;
    for (index, message) in new.iter().enumerate() {
        let content = new_contents[index];
        let matches_old = old < old_len && contents[old] == content;
        if !matches_old && inserted < inserts_left {
            inserts.push(HistoryOp::Insert {
                index,
                message: message.clone(),
                content_digest: Some(content),
            });
            inserted += 1;
            continue;
        }
        if old >= old_len {
            return None;
        }
        if !matches_old {
            replaces.push((index, message.clone(), content));
        } else if head_digest(content, message) != heads[old] {
            let tags = tags_of(message);
            match tag_groups.iter_mut().find(|(set, _)| *set == tags) {
                Some((_, ranges)) => match ranges.last_mut() {
                    Some((_, end)) if *end == index => *end = index + 1,
                    _ => ranges.push((index, index + 1)),
                },
                None => tag_groups.push((tags, vec![(index, index + 1)])),
            }
        }
        old += 1;
    }
    if old != old_len {
        return None;
    }
    // Inserts first (indices of `new`, ascending, so each sees the earlier ones), then the
    // tags and replaces, whose indices are `new`'s.
    let mut ops = inserts;
    ops.extend(
        tag_groups
            .into_iter()
            .map(|(tags, ranges)| HistoryOp::SetTags { ranges, tags }),
    );
    ops.extend(
        replaces
            .into_iter()
            .map(|(index, message, content)| HistoryOp::Replace {
                index,
                message,
                content_digest: Some(content),
            }),
    );
    Some(ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(value: Value) -> ApiMessage {
        match value {
            Value::Object(fields) => ApiMessage { fields },
            _ => unreachable!(),
        }
    }

    fn user(text: &str) -> ApiMessage {
        message(json!({"role": "user", "content": text, "ts": 1}))
    }

    fn assistant(text: &str) -> ApiMessage {
        message(json!({"role": "assistant", "content": [{"type": "text", "text": text}]}))
    }

    fn fresh_digest(messages: &[ApiMessage]) -> u64 {
        HistoryDoc::new(messages.to_vec(), None).unwrap().digest
    }

    #[test]
    fn the_content_digest_ignores_tags_and_reads_the_bytes_javascript_writes() {
        let plain = user("hello");
        let mut tagged = plain.clone();
        tagged.set_condense_parent("c1");
        assert_eq!(content_digest(&plain), content_digest(&tagged));
        assert_ne!(
            head_digest(content_digest(&plain), &plain),
            head_digest(content_digest(&tagged), &tagged)
        );
        // SHA-256 of `{"role":"user","content":"hello","ts":1}`, JSON.stringify's bytes.
        let expected = Sha256::digest(br#"{"role":"user","content":"hello","ts":1}"#);
        assert_eq!(content_digest(&plain), first_u64(&expected));
    }

    /// Red team (class a): numbers that serde_json writes differently than `JSON.stringify`
    /// (`1e21` vs `1e+21`, `1e-7`, integers past 2^53 and past u64, `-0`) must digest as the
    /// JavaScript host's bytes, or the host can never agree with the sidecar's digest.
    #[test]
    fn numbers_are_digested_as_json_stringify_writes_them() {
        for (wire, javascript) in [
            (r#"{"n":1e+21}"#, r#"{"n":1e+21}"#),
            (r#"{"n":1e21}"#, r#"{"n":1e+21}"#),
            (r#"{"n":1.5e-7}"#, r#"{"n":1.5e-7}"#),
            (r#"{"n":0.000001}"#, r#"{"n":0.000001}"#),
            (
                r#"{"n":123456789012345680000}"#,
                r#"{"n":123456789012345680000}"#,
            ),
            (r#"{"n":9007199254740993}"#, r#"{"n":9007199254740992}"#),
            (
                r#"{"n":18446744073709551615}"#,
                r#"{"n":18446744073709552000}"#,
            ),
            (
                r#"{"n":-9223372036854775808}"#,
                r#"{"n":-9223372036854776000}"#,
            ),
            (r#"{"n":1.0}"#, r#"{"n":1}"#),
            (r#"{"n":-0}"#, r#"{"n":0}"#),
            (r#"{"n":-0.0}"#, r#"{"n":0}"#),
            (r#"{"n":1e300}"#, r#"{"n":1e+300}"#),
            (r#"{"n":-2.5e-300}"#, r#"{"n":-2.5e-300}"#),
            (r#"{"n":100}"#, r#"{"n":100}"#),
            (r#"{"n":0.1}"#, r#"{"n":0.1}"#),
            (r#"{"n":123.456}"#, r#"{"n":123.456}"#),
            (r#"{"n":1e20}"#, r#"{"n":100000000000000000000}"#),
            (
                r#"{"n":1180591620717411303424}"#,
                r#"{"n":1.1805916207174113e+21}"#,
            ),
            (r#"{"n":5e-324}"#, r#"{"n":5e-324}"#),
            (
                r#"{"n":1.7976931348623157e308}"#,
                r#"{"n":1.7976931348623157e+308}"#,
            ),
            (r#"{"n":0.0000001}"#, r#"{"n":1e-7}"#),
            (r#"{"__proto__":{"x":1}}"#, r#"{"__proto__":{"x":1}}"#),
        ] {
            let parsed: ApiMessage = serde_json::from_str(wire).unwrap();
            assert_eq!(
                content_digest(&parsed),
                first_u64(&Sha256::digest(javascript.as_bytes())),
                "{wire} should digest as {javascript}"
            );
        }
        // And a tag's value.
        let tagged: ApiMessage = serde_json::from_str(r#"{"isSummary":1e21}"#).unwrap();
        let mut expected = Sha256::new();
        expected.update(content_digest(&tagged).to_be_bytes());
        expected.update(b"isSummary=1e+21\n");
        assert_eq!(
            head_digest(content_digest(&tagged), &tagged),
            first_u64(&expected.finalize())
        );
    }

    #[test]
    fn a_lone_surrogate_is_digested_as_the_host_escaped_it() {
        let raw = br#"{"role":"user","content":"a\ud83d b"}"#;
        let encoded = wire_text::encode_json(raw);
        let parsed: ApiMessage = serde_json::from_slice(&encoded).unwrap();
        assert_eq!(content_digest(&parsed), first_u64(&Sha256::digest(raw)));
    }

    #[test]
    fn every_op_keeps_the_digest_equal_to_one_computed_afresh() {
        let mut doc = HistoryDoc::new(vec![user("a"), assistant("b")], None).unwrap();
        let batches = vec![
            vec![HistoryOp::Append {
                messages: vec![user("c"), assistant("d")],
                content_digests: None,
            }],
            vec![HistoryOp::RemoveLast {
                expect_role: Some("assistant".into()),
            }],
            vec![HistoryOp::Replace {
                index: 0,
                message: user("a2"),
                content_digest: None,
            }],
            vec![HistoryOp::SetTags {
                ranges: vec![(0, 2)],
                tags: json!({"condenseParent": "x"}).as_object().unwrap().clone(),
            }],
            vec![HistoryOp::Insert {
                index: 1,
                message: user("marker"),
                content_digest: None,
            }],
            vec![HistoryOp::Truncate { length: 2 }],
            vec![HistoryOp::Reset {
                messages: vec![user("z")],
                content_digests: None,
            }],
        ];
        for (step, batch) in batches.into_iter().enumerate() {
            let before = doc.state().version;
            let state = doc.apply(batch).unwrap();
            assert_eq!(state.version, before + 1);
            assert_eq!(state.digest, fresh_digest(doc.messages()), "step {step}");
            assert_eq!(state.length, doc.messages().len());
        }
    }

    #[test]
    fn a_refused_batch_changes_nothing_and_names_the_op_and_field() {
        let mut doc = HistoryDoc::new(vec![user("a")], None).unwrap();
        let before = doc.clone();
        let error = doc
            .apply(vec![
                HistoryOp::Append {
                    messages: vec![assistant("b")],
                    content_digests: None,
                },
                HistoryOp::Truncate { length: 5 },
            ])
            .unwrap_err();
        assert_eq!(error.op, 1);
        assert_eq!(error.field, "length");
        assert_eq!(doc, before);
        let error = doc
            .apply(vec![HistoryOp::RemoveLast {
                expect_role: Some("assistant".into()),
            }])
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "ops[0].expectRole: the last message's role is `user`, not `assistant`"
        );
        let error = doc
            .apply(vec![HistoryOp::SetTags {
                ranges: vec![(0, 1)],
                tags: json!({"role": "x"}).as_object().unwrap().clone(),
            }])
            .unwrap_err();
        assert_eq!(error.field, "tags");
        assert_eq!(doc, before);
    }

    #[test]
    fn set_tags_keeps_key_positions_like_a_javascript_assignment() {
        let mut m = message(json!({"role": "user", "condenseParent": "old", "content": "x"}));
        let tags = json!({"condenseParent": "new", "truncationParent": "t"});
        set_tags(&mut m, tags.as_object().unwrap());
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"role":"user","condenseParent":"new","content":"x","truncationParent":"t"}"#
        );
        set_tags(&mut m, &Map::new());
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"role":"user","content":"x"}"#
        );
    }

    fn replay(doc: &HistoryDoc, new: &[ApiMessage]) -> HistoryDoc {
        let contents: Vec<u64> = new.iter().map(content_digest).collect();
        let ops = doc.ops_to(new, &contents).expect("ops");
        let mut replayed = doc.clone();
        replayed.apply(ops).unwrap();
        replayed
    }

    #[test]
    fn ops_to_a_condensed_history_are_one_tag_range_and_one_insert() {
        let old = vec![user("a"), assistant("b"), user("c")];
        let doc = HistoryDoc::new(old.clone(), None).unwrap();
        let mut new = old.clone();
        for m in &mut new {
            m.set_condense_parent("c1");
        }
        let summary = message(
            json!({"role": "user", "content": "sum", "isSummary": true, "condenseId": "c1"}),
        );
        new.push(summary);
        let contents: Vec<u64> = new.iter().map(content_digest).collect();
        let ops = doc.ops_to(&new, &contents).unwrap();
        assert_eq!(ops.len(), 2);
        assert!(matches!(&ops[0], HistoryOp::Insert { index: 3, .. }));
        assert!(matches!(&ops[1], HistoryOp::SetTags { ranges, .. } if ranges == &[(0, 3)]));
        let replayed = replay(&doc, &new);
        assert_eq!(replayed.messages(), new.as_slice());
    }

    #[test]
    fn ops_to_a_truncated_history_insert_the_marker_in_the_middle() {
        let old: Vec<ApiMessage> = (0..6)
            .map(|i| {
                if i % 2 == 0 {
                    user(&i.to_string())
                } else {
                    assistant(&i.to_string())
                }
            })
            .collect();
        let doc = HistoryDoc::new(old.clone(), None).unwrap();
        let mut new = old.clone();
        for m in &mut new[1..3] {
            m.set_truncation_parent("t1");
        }
        let marker = message(
            json!({"role": "user", "content": "[truncated]", "isTruncationMarker": true, "truncationId": "t1"}),
        );
        new.insert(3, marker);
        // And a tool result shrunk in place.
        new[5] = user("shrunk");
        let replayed = replay(&doc, &new);
        assert_eq!(replayed.messages(), new.as_slice());
        assert_eq!(replayed.state().digest, fresh_digest(&new));
    }

    #[test]
    fn ops_to_a_shorter_history_truncate_then_fix_what_is_kept() {
        let mut old = vec![user("a"), assistant("b"), user("c"), assistant("d")];
        old[1].set_condense_parent("gone");
        let doc = HistoryDoc::new(old.clone(), None).unwrap();
        // A rewind to two messages that also clears a dangling tag.
        let mut new = old[..2].to_vec();
        new[1].remove_field("condenseParent");
        let contents: Vec<u64> = new.iter().map(content_digest).collect();
        let ops = doc.ops_to(&new, &contents).unwrap();
        assert!(matches!(ops[0], HistoryOp::Truncate { length: 2 }));
        assert_eq!(replay(&doc, &new).messages(), new.as_slice());
        // Messages dropped from the middle still come out right (as replaces).
        let new = vec![old[0].clone(), old[2].clone()];
        assert_eq!(replay(&doc, &new).messages(), new.as_slice());
    }

    #[test]
    fn digests_are_written_as_sixteen_hex_digits() {
        assert_eq!(digest_hex(0xab), "00000000000000ab");
        assert_eq!(parse_digest("00000000000000AB"), Some(0xab));
        assert_eq!(parse_digest("ab"), None);
        // Red team (class f): sixteen characters that are not sixteen hex digits.
        assert_eq!(parse_digest("+123456789abcdef"), None);
        assert_eq!(parse_digest("-123456789abcdef"), None);
        assert_eq!(parse_digest(" 123456789abcdef"), None);
        assert_eq!(parse_digest("0x3456789abcdef0"), None);
    }
}
