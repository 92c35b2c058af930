//! Text helpers: UTF-16 lengths (the host's notion of "characters"), decoding file bytes, line lookup.

/// The length of `text` in UTF-16 code units, as JavaScript's `string.length` counts it.
pub fn utf16_len(text: &str) -> usize {
    // ASCII fast path: one byte is one unit.
    if text.is_ascii() {
        return text.len();
    }
    text.chars().map(char::len_utf16).sum()
}

/// The longest prefix of `text` whose UTF-16 length is at most `max_units`, never splitting a
/// character (a surrogate pair that would be cut in half is left out entirely).
pub fn truncate_utf16(text: &str, max_units: usize) -> &str {
    // ASCII fast path on the kept prefix only: called once per definition, a scan of the whole
    // text made a 1 MB one-line file quadratic (every definition's line is that line).
    let head = &text.as_bytes()[..text.len().min(max_units)];
    if head.is_ascii() {
        return &text[..head.len()];
    }
    let mut units = 0;
    for (byte_index, character) in text.char_indices() {
        units += character.len_utf16();
        if units > max_units {
            return &text[..byte_index];
        }
    }
    text
}

/// How file bytes were turned into text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decoded<'bytes> {
    /// Valid UTF-8 text.
    Text(&'bytes str),
    /// Invalid UTF-8, decoded with U+FFFD replacement characters.
    Lossy(String),
    /// Looks binary (a NUL byte near the start), not decoded.
    Binary,
}

/// How many leading bytes are inspected for a NUL byte, as git does to call a file binary.
const BINARY_SNIFF_BYTES: usize = 8000;

/// True when the first bytes contain a NUL byte (git's heuristic for binary content).
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// Decode file bytes: binary content is refused, invalid UTF-8 is replaced (best effort).
pub(crate) fn decode(bytes: &[u8]) -> Decoded<'_> {
    if looks_binary(bytes) {
        return Decoded::Binary;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Decoded::Text(text),
        Err(_) => Decoded::Lossy(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// Byte offsets of line starts (lines split on `\n` only, as the original's `split("\n")`).
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, byte)| byte == b'\n')
                .map(|(index, _)| index + 1),
        );
        LineIndex { starts }
    }

    /// The text of line `row` (0-based) without its `\n` (nor a trailing `\r`).
    pub(crate) fn line<'text>(&self, text: &'text str, row: usize) -> &'text str {
        let Some(&start) = self.starts.get(row) else {
            return "";
        };
        let end = self
            .starts
            .get(row + 1)
            .map_or(text.len(), |next_start| next_start - 1);
        let mut line = &text[start..end];
        if row == 0 {
            // A byte-order mark is not part of the first line a reader sees.
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        line.strip_suffix('\r').unwrap_or(line)
    }
}

/// Cut `line` to at most `max_units` UTF-16 units, marking the cut with ` …`.
pub(crate) fn shorten_line(line: &str, max_units: usize) -> String {
    if line.len() <= max_units {
        // Byte length bounds the UTF-16 length from above.
        return line.to_owned();
    }
    let kept = truncate_utf16(line, max_units);
    if kept.len() == line.len() {
        line.to_owned()
    } else {
        format!("{kept} …")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_len_counts_surrogate_pairs_as_two() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀b"), 4);
    }

    #[test]
    fn truncate_utf16_never_splits_a_surrogate_pair() {
        assert_eq!(truncate_utf16("a😀b", 1), "a");
        assert_eq!(truncate_utf16("a😀b", 2), "a");
        assert_eq!(truncate_utf16("a😀b", 3), "a😀");
        assert_eq!(truncate_utf16("a😀b", 10), "a😀b");
        assert_eq!(truncate_utf16("abcdef", 4), "abcd");
    }

    #[test]
    fn decode_refuses_nul_bytes_and_replaces_invalid_utf8() {
        assert_eq!(decode(b"a\0b"), Decoded::Binary);
        assert_eq!(decode(b"ok"), Decoded::Text("ok"));
        assert_eq!(decode(b"a\xffb"), Decoded::Lossy("a\u{fffd}b".into()));
    }

    #[test]
    fn line_index_strips_carriage_returns_and_handles_the_last_line() {
        let text = "one\r\ntwo\nthree";
        let index = LineIndex::new(text);
        assert_eq!(index.line(text, 0), "one");
        assert_eq!(index.line(text, 1), "two");
        assert_eq!(index.line(text, 2), "three");
        assert_eq!(index.line(text, 3), "");
    }
}
