//! Markdown headers as definitions (the original's `markdownParser.ts`, spec §4.5): ATX and setext
//! headers, each owning the lines up to the next header. Line based; no grammar.

use crate::engine::Candidate;
use crate::{DefinitionKind, Position, Span};

/// One line of the source: its text (without `\n`, and without a trailing `\r`) and byte offset.
struct Line<'a> {
    text: &'a str,
    start: usize,
}

fn lines(source: &str) -> Vec<Line<'_>> {
    // Split on `\n` only, as the original: a trailing newline yields a final empty line, which
    // counts toward the last section.
    let mut out = Vec::new();
    let mut start = 0;
    for piece in source.split('\n') {
        out.push(Line {
            text: piece.strip_suffix('\r').unwrap_or(piece),
            start,
        });
        start += piece.len() + 1;
    }
    out
}

/// The text of an ATX header (`#`..`######`, whitespace, text), if `line` is one.
fn atx_text(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let text = rest.trim();
    (!text.is_empty()).then_some(text)
}

/// Whether `line` underlines the previous one as a setext header (`===` or `---`, three or more).
fn is_setext_underline(line: &str) -> bool {
    let trimmed = line.trim_end();
    trimmed.len() >= 3 && (trimmed.bytes().all(|b| b == b'=') || trimmed.bytes().all(|b| b == b'-'))
}

/// Whether `line` can be the text of a setext header: non-empty plain text.
fn is_plain_text(line: &str) -> bool {
    !line.trim().is_empty() && !line.starts_with(['#', '<', '>', '!', '[', ']', '`', '\t'])
}

/// Header sections of `source` as definition candidates, in order.
pub(crate) fn header_candidates(source: &str) -> Vec<Candidate> {
    if source.trim().is_empty() {
        return Vec::new();
    }
    let lines = lines(source);
    // (row of the header text, the text)
    let mut headers: Vec<(usize, &str)> = Vec::new();
    for (row, line) in lines.iter().enumerate() {
        if let Some(text) = atx_text(line.text) {
            headers.push((row, text));
        } else if row > 0
            && is_setext_underline(line.text)
            && is_plain_text(lines[row - 1].text)
            && headers.last().is_none_or(|(last, _)| *last != row - 1)
        {
            headers.push((row - 1, lines[row - 1].text.trim()));
        }
    }
    let last_row = lines.len() - 1;
    headers
        .iter()
        .enumerate()
        .map(|(index, &(row, text))| {
            let end_row = headers
                .get(index + 1)
                .map_or(last_row, |(next, _)| next - 1);
            let line = &lines[row];
            let end_line = &lines[end_row];
            let name_offset = line.text.find(text).unwrap_or(0);
            let position = |line: usize, column: usize| Position {
                line: line as u32,
                column: column as u32,
            };
            Candidate {
                kind: DefinitionKind::Heading,
                range: Span {
                    start: position(row, 0),
                    end: position(end_row, end_line.text.len()),
                    start_byte: line.start,
                    end_byte: end_line.start + end_line.text.len(),
                },
                name: Some(Span {
                    start: position(row, name_offset),
                    end: position(row, name_offset + text.len()),
                    start_byte: line.start + name_offset,
                    end_byte: line.start + name_offset + text.len(),
                }),
                trait_bytes: None,
                pattern_index: 0,
                group_names: None,
            }
        })
        .collect()
}
