//! File and folder mentions: the read_file-style content blocks of the original, byte for byte,
//! with its limits (2000 lines, 2000 characters per line), truncation notice, binary sniff,
//! notes and errors. Files are streamed, so a huge file costs only what the limits allow in
//! memory; every path goes through the one access rule first.
//! One file because every read here (files, folders, notebooks) shares one set of limits and
//! the one gated open; its unit tests sit below the code.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::access::{BlockReason, Policy};
use crate::fs::{EntryKind, FileSystem, GateRefusal, GatedFile, list_gated, open_gated};
use crate::path::{Resolver, normalize_lexically};

use super::scan::unescape_spaces;

/// Lines shown of a mentioned file (`DEFAULT_LINE_LIMIT`).
pub const DEFAULT_LINE_LIMIT: usize = 2000;
/// Longest line shown, in UTF-16 code units like the JavaScript host (`MAX_LINE_LENGTH`).
pub const MAX_LINE_LENGTH: usize = 2000;
/// Bytes the binary sniff looks at (isbinaryfile's `MAX_BYTES`), plus a split UTF-8 reserve.
pub const BINARY_SNIFF_BYTES: usize = 512;
const UTF8_BOUNDARY_RESERVE: usize = 3;
/// Bytes kept of one line: more than any 2000-unit line can need, so the rest can be skipped.
const LINE_BYTE_CAP: usize = MAX_LINE_LENGTH * 4 + 4;
/// Bytes a mention reads of one file at most (lines past the limits are only counted, so this
/// bounds time, not memory).
pub const MENTION_READ_BOUND: u64 = 256 * 1024 * 1024;

/// `file` or `folder` (the only block types the original produces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BlockType {
    /// A file mention.
    File,
    /// A folder mention.
    Folder,
}

/// Line statistics of a successfully read file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentMetadata {
    /// Lines in the file (`\n`-separated pieces).
    pub total_lines: usize,
    /// Lines rendered.
    pub returned_lines: usize,
    /// Whether lines were left out.
    pub was_truncated: bool,
    /// `[first, last]` rendered line (absent for notebooks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_shown: Option<[usize; 2]>,
}

/// A content block (`MentionContentBlock`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentBlock {
    /// `file` or `folder`.
    #[serde(rename = "type")]
    pub block_type: BlockType,
    /// The mention path without the leading `/`, escapes kept.
    pub path: String,
    /// The read_file-style text.
    pub content: String,
    /// Only on successfully read single files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ContentMetadata>,
}

/// A file's text, line-numbered within the limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberedText {
    /// `N | line` rows.
    pub text: String,
    /// Statistics.
    pub metadata: ContentMetadata,
}

/// Shortens a line longer than [`MAX_LINE_LENGTH`] UTF-16 units to its first 1997 units plus
/// `...`, never splitting a character.
pub fn truncate_line(line: &str) -> String {
    let units: usize = line.chars().map(char::len_utf16).sum();
    if units <= MAX_LINE_LENGTH {
        return line.to_owned();
    }
    let keep = MAX_LINE_LENGTH - 3;
    let mut used = 0;
    let mut out = String::new();
    for c in line.chars() {
        used += c.len_utf16();
        if used > keep {
            break;
        }
        out.push(c);
    }
    out.push_str("...");
    out
}

fn render_numbered(lines: &[String]) -> String {
    let width = lines.len().to_string().len();
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:>width$} | {line}", index + 1));
    }
    out
}

/// Reads text lines from a stream, keeping at most `limit` lines of at most
/// [`MAX_LINE_LENGTH`] units; the rest is only counted. Memory stays bounded on any input.
pub fn read_numbered_lines(reader: impl Read, limit: usize) -> io::Result<NumberedText> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut kept: Vec<String> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut newlines = 0usize;
    let finish_line = |current: &mut Vec<u8>, kept: &mut Vec<String>| {
        if kept.len() < limit {
            // The file's own U+FDD0 must not read as an encoded lone surrogate on the wire.
            let line = truncate_line(&String::from_utf8_lossy(current));
            kept.push(crate::wire_text::encode_text(&line).into_owned());
        }
        current.clear();
    };
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let length = buffer.len();
        if kept.len() >= limit {
            newlines += memchr::memchr_iter(b'\n', buffer).count();
        } else {
            let mut start = 0;
            for newline in memchr::memchr_iter(b'\n', buffer) {
                if kept.len() < limit {
                    let room = LINE_BYTE_CAP.saturating_sub(current.len());
                    let piece = &buffer[start..newline];
                    current.extend_from_slice(&piece[..piece.len().min(room)]);
                    finish_line(&mut current, &mut kept);
                }
                newlines += 1;
                start = newline + 1;
            }
            if kept.len() < limit {
                let room = LINE_BYTE_CAP.saturating_sub(current.len());
                let piece = &buffer[start..];
                current.extend_from_slice(&piece[..piece.len().min(room)]);
            }
        }
        reader.consume(length);
    }
    finish_line(&mut current, &mut kept);
    let total_lines = newlines + 1;
    let returned_lines = kept.len();
    Ok(NumberedText {
        text: render_numbered(&kept),
        metadata: ContentMetadata {
            total_lines,
            returned_lines,
            was_truncated: total_lines > returned_lines,
            lines_shown: Some([1, returned_lines]),
        },
    })
}

/// The original's `addLineNumbers` (used for extracted document text): right-aligned numbers,
/// a trailing newline, empty text stays empty.
pub fn add_line_numbers(content: &str) -> String {
    if content.is_empty() {
        return String::new();
    }
    let mut lines: Vec<&str> = content.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let width = lines.len().to_string().len();
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        out.push_str(&format!("{:>width$} | {line}\n", index + 1));
    }
    out
}

/// The text of a Jupyter notebook: markdown and code cells, each cell's source lines joined
/// with `\n` and followed by a newline, line-numbered (never truncated).
pub fn notebook_text(json: &str) -> Result<NumberedText, String> {
    // Read as the wire reads the host's JSON: a lone surrogate escape (JavaScript writes them)
    // parses, and the notebook's own U+FDD0 stays itself on the way out.
    let notebook: serde_json::Value =
        serde_json::from_slice(&crate::wire_text::encode_json(json.as_bytes()))
            .map_err(|e| format!("Invalid notebook: {e}"))?;
    let mut text = String::new();
    for cell in notebook["cells"].as_array().into_iter().flatten() {
        let kind = cell["cell_type"].as_str();
        if !matches!(kind, Some("markdown" | "code")) {
            continue;
        }
        match &cell["source"] {
            serde_json::Value::Array(parts) if !parts.is_empty() => {
                let parts: Vec<&str> = parts.iter().filter_map(|p| p.as_str()).collect();
                text.push_str(&parts.join("\n"));
                text.push('\n');
            }
            serde_json::Value::String(source) if !source.is_empty() => {
                text.push_str(source);
                text.push('\n');
            }
            _ => {}
        }
    }
    let pieces = text.split('\n').count();
    Ok(NumberedText {
        text: add_line_numbers(&text),
        metadata: ContentMetadata {
            total_lines: pieces,
            returned_lines: pieces,
            was_truncated: false,
            lines_shown: None,
        },
    })
}

/// isbinaryfile 5's decision on the first bytes of a file (its protobuf heuristic is not
/// reproduced: it only matters for files that are mostly control bytes already).
pub fn is_binary(prefix: &[u8]) -> bool {
    let read = prefix.len();
    if read == 0 {
        return false;
    }
    let b = prefix;
    let starts = |pattern: &[u8]| b.starts_with(pattern);
    if starts(&[0xEF, 0xBB, 0xBF])
        || starts(&[0x00, 0x00, 0xFE, 0xFF])
        || starts(&[0xFF, 0xFE, 0x00, 0x00])
        || starts(&[0x84, 0x31, 0x95, 0x33])
    {
        return false;
    }
    if starts(b"%PDF-") {
        return true;
    }
    if starts(&[0xFE, 0xFF]) || starts(&[0xFF, 0xFE]) {
        return false;
    }
    let total = read.min(BINARY_SNIFF_BYTES + UTF8_BOUNDARY_RESERVE);
    let scan_end = read.min(BINARY_SNIFF_BYTES);
    let continuation = |i: usize| i < total && (0x80..=0xBF).contains(&b[i]);
    let mut suspicious = 0usize;
    let mut i = 0;
    while i < scan_end {
        let byte = b[i];
        if byte == 0 {
            return true;
        }
        if !(7..=14).contains(&byte) && !(32..=127).contains(&byte) {
            let sequence = match byte {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 0,
            };
            if sequence > 0 && (1..sequence).all(|k| continuation(i + k)) {
                i += sequence;
                continue;
            }
            // A sequence cut by the end of what was read is not evidence of binary content.
            if sequence > 0 && i + sequence > total && total == read {
                i += 1;
                continue;
            }
            suspicious += 1;
            if i >= 32 && suspicious * 100 / scan_end > 10 {
                return true;
            }
        }
        i += 1;
    }
    suspicious * 100 / scan_end > 10
}

/// Reads the first bytes of an opened file for [`is_binary`]; the bytes are handed back so the
/// same open serves the sniff and the read.
fn sniff_prefix(file: &mut GatedFile) -> io::Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(BINARY_SNIFF_BYTES + UTF8_BOUNDARY_RESERVE);
    file.take((BINARY_SNIFF_BYTES + UTF8_BOUNDARY_RESERVE) as u64)
        .read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// The original's read_file-style text of a read file (`p` as in the mention).
pub fn format_file_content(p: &str, numbered: &NumberedText) -> String {
    let meta = &numbered.metadata;
    if meta.was_truncated {
        let last = meta.returned_lines;
        format!(
            "[read_file for '{p}']\nIMPORTANT: File content truncated.\nStatus: Showing lines 1-{last} of {total} total lines.\nTo read more: Use the read_file tool with offset={next} and limit={DEFAULT_LINE_LIMIT}.\n\nFile: {p}\n{text}",
            total = meta.total_lines,
            next = last + 1,
            text = numbered.text
        )
    } else {
        format!("[read_file for '{p}']\nFile: {p}\n{}", numbered.text)
    }
}

/// What reading a mentioned file gave.
enum FileText {
    Text(NumberedText),
    Binary,
    Error(String),
}

/// Opens an allowed file through the read gate once, sniffs it and extracts its text by
/// extension (`extractTextFromFileWithMetadata`). `Err` carries the gate's refusal.
fn read_file_text(
    fs: &dyn FileSystem,
    policy: &Policy,
    absolute: &Path,
    limit: usize,
) -> Result<FileText, GateRefusal> {
    let mut file = open_gated(fs, absolute, MENTION_READ_BOUND, false, &|opened| {
        policy.allows_opened(opened)
    })?;
    let extension = absolute
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_lowercase()))
        .unwrap_or_default();
    // Sniff errors count as "not binary", as in the original.
    let prefix = sniff_prefix(&mut file).unwrap_or_default();
    if is_binary(&prefix) {
        return Ok(FileText::Binary);
    }
    Ok(match extension.as_str() {
        ".ipynb" => {
            let mut bytes = prefix;
            match file.read_to_end(&mut bytes) {
                Ok(_) => match String::from_utf8(bytes) {
                    Ok(json) => notebook_text(&json).map_or_else(FileText::Error, FileText::Text),
                    Err(e) => FileText::Error(format!("Invalid notebook: {e}")),
                },
                Err(e) => FileText::Error(e.to_string()),
            }
        }
        ".pdf" | ".docx" | ".xlsx" => FileText::Error(format!(
            "Unable to extract text from {extension} file: it is not a valid document"
        )),
        _ => match read_numbered_lines(io::Cursor::new(prefix).chain(file), limit) {
            Ok(numbered) => FileText::Text(numbered),
            Err(e) => FileText::Error(e.to_string()),
        },
    })
}

/// A path the sidecar resolved (a real file name, or the host's name as the file system reads it)
/// as a text for the host: its own U+FDD0 must not read as an encoded lone surrogate on the wire.
fn wire_path(path: &Path) -> String {
    crate::wire_text::encode_text(&path.display().to_string()).into_owned()
}

/// Node's wording of a failed `stat` (`ENOENT: no such file or directory, stat '<abs>'`).
pub fn node_stat_error(error: &io::Error, absolute: &Path) -> String {
    let code = match error.kind() {
        io::ErrorKind::NotFound => "ENOENT: no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "EACCES: permission denied".to_owned(),
        io::ErrorKind::NotADirectory => "ENOTDIR: not a directory".to_owned(),
        _ => match error.raw_os_error() {
            Some(40) => "ELOOP: too many symbolic links encountered".to_owned(),
            Some(36) => "ENAMETOOLONG: name too long".to_owned(),
            _ => error.to_string(),
        },
    };
    format!("{code}, stat '{}'", wire_path(absolute))
}

/// Where and how mentions are read: the workspace's access policy and the mention's base folder.
#[derive(Debug, Clone, Copy)]
pub struct MentionReader<'a> {
    /// The file system.
    pub fs: &'a dyn FileSystem,
    /// The access rule.
    pub policy: &'a Policy,
    /// The shared path resolver.
    pub resolver: &'a Resolver,
    /// The folder mention paths are relative to (absolute).
    pub cwd: &'a Path,
    /// Show ignored folder entries with a lock instead of hiding them (`showRooIgnoredFiles`).
    pub show_ignored_files: bool,
    /// Use Zoo's wording for the ignored-file note.
    pub zoo_wording: bool,
}

/// A resolved path mention: the block and, when a file was read, the file to track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathMention {
    /// The content block.
    pub block: ContentBlock,
    /// The unescaped workspace-relative path of a file that was read (`file_mentioned`).
    pub tracked_file: Option<String>,
}

enum Access {
    Allowed,
    Ignored { zoo: bool },
    Outside,
}

impl MentionReader<'_> {
    fn access(&self, requested: &str) -> Access {
        let decision = self
            .policy
            .check_access(self.resolver, self.fs, Some(self.cwd), requested);
        match decision.blocked {
            Some(BlockReason::IgnoreRule { origin, .. }) => Access::Ignored {
                zoo: self.zoo_wording || origin.file.as_deref() == Some(".zooignore"),
            },
            Some(BlockReason::OutsideWorkspace) => Access::Outside,
            None if decision.folder.is_none() => Access::Outside,
            None => Access::Allowed,
        }
    }

    fn ignored_note(zoo: bool) -> &'static str {
        if zoo {
            "Note: File is ignored by the project ignore file (.zooignore preferred, .rooignore fallback)."
        } else {
            "Note: File is ignored by .rooignore."
        }
    }

    /// Resolves the path mention `p` (the body without its leading `/`, escapes kept).
    pub fn read_path_mention(&self, p: &str) -> PathMention {
        let unescaped = unescape_spaces(p);
        let absolute = normalize_lexically(self.cwd, &unescaped);
        let guessed_type = if p.ends_with('/') {
            BlockType::Folder
        } else {
            BlockType::File
        };
        let block = |block_type, content: String| PathMention {
            block: ContentBlock {
                block_type,
                path: p.to_owned(),
                content,
                metadata: None,
            },
            tracked_file: None,
        };
        // The access rule comes first: an ignored or outside path reveals nothing about itself.
        match self.access(&unescaped) {
            Access::Allowed => {}
            Access::Outside => {
                let what = if guessed_type == BlockType::Folder {
                    "Folder"
                } else {
                    "File"
                };
                let folder = if guessed_type == BlockType::Folder {
                    "folder "
                } else {
                    ""
                };
                return block(
                    guessed_type,
                    format!(
                        "[read_file for {folder}'{p}']\nNote: {what} is outside the workspace and was not read."
                    ),
                );
            }
            Access::Ignored { zoo } => {
                return block(
                    BlockType::File,
                    format!("[read_file for '{p}']\n{}", Self::ignored_note(zoo)),
                );
            }
        }
        match self.fs.kind(&absolute) {
            Err(error) => block(
                guessed_type,
                format!(
                    "[read_file for '{p}']\nError: Failed to access path \"{p}\": {}",
                    node_stat_error(&error, &absolute)
                ),
            ),
            Ok(EntryKind::File) => self.read_file(p, &unescaped, &absolute),
            Ok(EntryKind::Directory) => block(BlockType::Folder, self.read_folder(p, &absolute)),
            Ok(EntryKind::Symlink | EntryKind::Other) => block(
                guessed_type,
                format!("[read_file for '{p}']\nError: Unable to read (not a file or directory)"),
            ),
        }
    }

    fn read_file(&self, p: &str, unescaped: &str, absolute: &Path) -> PathMention {
        let error_block = |content: String| PathMention {
            block: ContentBlock {
                block_type: BlockType::File,
                path: p.to_owned(),
                content,
                metadata: None,
            },
            tracked_file: None,
        };
        match read_file_text(self.fs, self.policy, absolute, DEFAULT_LINE_LIMIT) {
            Err(GateRefusal::Blocked) => error_block(format!(
                "[read_file for '{p}']\n{}",
                Self::ignored_note(self.zoo_wording)
            )),
            Err(refusal @ GateRefusal::HardLinked { .. }) => error_block(format!(
                "[read_file for '{p}']\nError: Unable to read ({refusal})"
            )),
            Err(GateRefusal::NotRegular | GateRefusal::Directory) => error_block(format!(
                "[read_file for '{p}']\nError: Unable to read (not a file or directory)"
            )),
            Err(GateRefusal::Io(_) | GateRefusal::TooLarge { .. }) => error_block(format!(
                "[read_file for '{p}']\nError: File not found: {}",
                wire_path(absolute)
            )),
            Ok(FileText::Binary) => error_block(format!(
                "[read_file for '{p}']\nNote: Binary file omitted from context."
            )),
            Ok(FileText::Error(message)) => {
                error_block(format!("[read_file for '{p}']\nError: {message}"))
            }
            Ok(FileText::Text(numbered)) => {
                let tracked = self
                    .policy
                    .folders
                    .iter()
                    .find_map(|f| f.root.relative(absolute))
                    .unwrap_or_else(|| unescaped.trim_start_matches('/').to_owned());
                PathMention {
                    block: ContentBlock {
                        block_type: BlockType::File,
                        path: p.to_owned(),
                        content: format_file_content(p, &numbered),
                        metadata: Some(numbered.metadata),
                    },
                    tracked_file: Some(tracked),
                }
            }
        }
    }

    fn read_folder(&self, p: &str, absolute: &Path) -> String {
        let (real_folder, entries) = match list_gated(self.fs, absolute, &|real| {
            self.policy.allows_real_path(real)
        }) {
            Ok(listed) => listed,
            Err(GateRefusal::Io(error)) => {
                return format!(
                    "[read_file for folder '{p}']\nError: Failed to access path \"{p}\": {}",
                    node_stat_error(&error, absolute)
                );
            }
            Err(_) => {
                return format!(
                    "[read_file for folder '{p}']\n{}",
                    Self::ignored_note(self.zoo_wording)
                );
            }
        };
        // Children are judged by both names, and read on the real folder: a later swap of the
        // name changes nothing.
        let lexical = absolute;
        let absolute = real_folder.as_path();
        // Decide visibility first so the last shown line gets `└── ` (the original keys it to
        // the last entry of the unfiltered list, leaving no closing branch when that is hidden).
        let shown: Vec<(&crate::fs::DirEntry, bool)> = entries
            .iter()
            .filter_map(|entry| {
                let allowed = |folder: &Path| {
                    let child: PathBuf = folder.join(&entry.name);
                    matches!(self.access(&child.to_string_lossy()), Access::Allowed)
                };
                let ignored = !allowed(lexical) || !allowed(absolute);
                (!ignored || self.show_ignored_files).then_some((entry, ignored))
            })
            .collect();
        let mut listing = String::new();
        let mut contents: Vec<String> = Vec::new();
        for (index, (entry, ignored)) in shown.iter().enumerate() {
            let prefix = if index + 1 == shown.len() {
                "└── "
            } else {
                "├── "
            };
            // A real file name, not the host's text (see `wire_path`).
            let shown_name = crate::wire_text::encode_text(&entry.name);
            let name = if *ignored {
                format!("{} {}", crate::access::LOCK_SYMBOL, shown_name)
            } else {
                shown_name.clone().into_owned()
            };
            match entry.kind {
                EntryKind::Directory => listing.push_str(&format!("{prefix}{name}/\n")),
                EntryKind::File => {
                    listing.push_str(&format!("{prefix}{name}\n"));
                    let child = absolute.join(&entry.name);
                    if !*ignored
                        && let Ok(FileText::Text(numbered)) =
                            read_file_text(self.fs, self.policy, &child, DEFAULT_LINE_LIMIT)
                    {
                        let child_p = join_mention_path(p, &shown_name);
                        contents.push(format_file_content(&child_p, &numbered));
                    }
                }
                EntryKind::Symlink | EntryKind::Other => {
                    listing.push_str(&format!("{prefix}{name}\n"))
                }
            }
        }
        let mut content = format!("[read_file for folder '{p}']\nFolder listing:\n{listing}");
        if !contents.is_empty() {
            content.push_str("\n\n--- File Contents ---\n\n");
            content.push_str(&contents.join("\n\n"));
        }
        content
    }
}

/// `path.join(p, name)` in posix form, as the original builds a folder file's path.
fn join_mention_path(p: &str, name: &str) -> String {
    let mut joined = p.trim_end_matches('/').to_owned();
    if !joined.is_empty() {
        joined.push('/');
    }
    joined.push_str(name);
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_match_the_spec_examples() {
        let read = read_numbered_lines("a\nb\n".as_bytes(), 2000).unwrap();
        assert_eq!(read.text, "1 | a\n2 | b\n3 | ");
        assert_eq!(read.metadata.total_lines, 3);
        let empty = read_numbered_lines("".as_bytes(), 2000).unwrap();
        assert_eq!(empty.text, "1 | ");
        assert_eq!(empty.metadata.total_lines, 1);
    }

    #[test]
    fn long_lines_keep_1997_units_and_never_split_a_character() {
        let line = "x".repeat(1996) + "😀" + "tail";
        let truncated = truncate_line(&line);
        assert_eq!(truncated, "x".repeat(1996) + "...");
        assert_eq!(truncate_line(&"y".repeat(2000)), "y".repeat(2000));
    }

    #[test]
    fn binary_sniff_follows_isbinaryfile() {
        assert!(!is_binary(b""));
        assert!(is_binary(b"%PDF-1.7"));
        assert!(is_binary(b"abc\0def"));
        assert!(!is_binary("héllo wörld ✓".as_bytes()));
        assert!(!is_binary(&[0xFF, 0xFE, 0x41, 0x00]));
        let mut noisy = vec![b'a'; 40];
        noisy.extend(std::iter::repeat_n(0x81u8, 20));
        assert!(is_binary(&noisy));
    }
}
