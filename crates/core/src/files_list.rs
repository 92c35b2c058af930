//! The file list a list-files tool shows the model (the original's `formatFilesList`): entries
//! relative to the listed folder, files before folders at every level, ignored entries hidden or
//! locked, protected entries shielded, the limit notice and "No files found.". The access and
//! protection decisions come from the caller (the one access rule); this module only formats.

use std::cmp::Ordering;

/// The lock shown before an ignored entry when ignored entries are shown (U+1F512).
pub const LOCK_TEXT_SYMBOL: &str = "\u{1F512}";
/// The shield before a write-protected entry in a file list (U+1F6E1 with U+FE0F, as the
/// original writes it here).
pub const FILE_LIST_SHIELD: &str = "\u{1F6E1}\u{FE0F}";
/// Appended (after a blank line) when the listing stopped at its limit.
pub const FILE_LIST_TRUNCATED: &str = "(File list truncated. Use list_files on specific subdirectories if you need to explore further.)";
/// The whole output when nothing is listed.
pub const NO_FILES_FOUND: &str = "No files found.";

/// What the access rule says about one entry (checked without a folder's trailing `/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryAccess {
    /// Blocked by the ignore file (or outside the workspace when that is denied).
    pub blocked: bool,
    /// Write-protected.
    pub protected: bool,
}

/// Formats a file list. `entries` are relative to the listed folder (folders end with `/`);
/// `judge` is asked about each entry (without the trailing `/`) unless `judge` is `None`, in which
/// case no entry is hidden or marked, as in the original without an ignore controller.
pub fn format_files_list(
    entries: &[String],
    did_hit_limit: bool,
    show_ignored: bool,
    judge: Option<&dyn Fn(&str) -> EntryAccess>,
) -> String {
    let mut sorted: Vec<&String> = entries.iter().collect();
    // A stable sort, as JavaScript's: entries equal under the collation keep their order.
    sorted.sort_by(|a, b| compare_entries(a, b));
    let mut lines: Vec<String> = Vec::with_capacity(sorted.len());
    for entry in sorted {
        let Some(judge) = judge else {
            lines.push(entry.clone());
            continue;
        };
        let checked = entry.strip_suffix('/').unwrap_or(entry);
        let access = judge(checked);
        if access.blocked {
            if show_ignored {
                lines.push(format!("{LOCK_TEXT_SYMBOL} {entry}"));
            }
        } else if access.protected {
            lines.push(format!("{FILE_LIST_SHIELD} {entry}"));
        } else {
            lines.push(entry.clone());
        }
    }
    if did_hit_limit {
        format!("{}\n\n{FILE_LIST_TRUNCATED}", lines.join("\n"))
    } else if lines.is_empty() || (lines.len() == 1 && lines[0].is_empty()) {
        NO_FILES_FOUND.to_owned()
    } else {
        lines.join("\n")
    }
}

/// The original's order: segment by segment; at the first differing segment an entry that ends
/// there (a file at that level) comes first; otherwise a natural, case- and accent-insensitive
/// comparison of the segments; a prefix comes first.
pub fn compare_entries(a: &str, b: &str) -> Ordering {
    let a_parts: Vec<&str> = a.split('/').collect();
    let b_parts: Vec<&str> = b.split('/').collect();
    for index in 0..a_parts.len().min(b_parts.len()) {
        if a_parts[index] != b_parts[index] {
            if index + 1 == a_parts.len() && index + 1 < b_parts.len() {
                return Ordering::Less;
            }
            if index + 1 == b_parts.len() && index + 1 < a_parts.len() {
                return Ordering::Greater;
            }
            return natural_base_compare(a_parts[index], b_parts[index]);
        }
    }
    a_parts.len().cmp(&b_parts.len())
}

/// `localeCompare(b, undefined, {numeric: true, sensitivity: "base"})`, approximated without ICU:
/// digit runs compare by value; letters by their base letter (case and common Latin accents
/// ignored); punctuation and spaces sort before digits, digits before letters.
pub fn natural_base_compare(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (a.peek().copied(), b.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let digits = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                    let mut run = String::new();
                    while let Some(c) = it.peek().copied().filter(char::is_ascii_digit) {
                        run.push(c);
                        it.next();
                    }
                    run.trim_start_matches('0').to_owned()
                };
                let (x, y) = (digits(&mut a), digits(&mut b));
                let order = x.len().cmp(&y.len()).then_with(|| x.cmp(&y));
                if order != Ordering::Equal {
                    return order;
                }
            }
            (Some(x), Some(y)) => {
                let order = collation_key(x).cmp(&collation_key(y));
                if order != Ordering::Equal {
                    return order;
                }
                a.next();
                b.next();
            }
        }
    }
}

/// (class, base character): punctuation and spaces, then digits, then letters.
fn collation_key(c: char) -> (u8, char) {
    if c.is_ascii_digit() {
        return (1, c);
    }
    let base = base_letter(c);
    if base.is_alphabetic() {
        (2, base)
    } else {
        (0, c)
    }
}

/// The lower-case letter without its accent, for the common Latin letters.
fn base_letter(c: char) -> char {
    let lower = c.to_lowercase().next().unwrap_or(c);
    match lower {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' => 'i',
        'ñ' | 'ń' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ř' => 'r',
        'ś' | 'š' => 's',
        'ť' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(entries: &[&str], expect: &[&str]) {
        let entries: Vec<String> = entries.iter().map(|e| (*e).to_owned()).collect();
        let text = format_files_list(&entries, false, false, None);
        assert_eq!(text, expect.join("\n"));
    }

    #[test]
    fn files_come_before_folders_with_a_natural_order() {
        check(
            &[
                "src/app.ts",
                "Zeta",
                "a/x.ts",
                "file10",
                "README.md",
                "src/",
                "a/",
                "file2",
                "b.txt",
                "alpha",
            ],
            &[
                "alpha",
                "b.txt",
                "file2",
                "file10",
                "README.md",
                "Zeta",
                "a/",
                "a/x.ts",
                "src/",
                "src/app.ts",
            ],
        );
    }

    #[test]
    fn empty_and_limit() {
        assert_eq!(format_files_list(&[], false, false, None), NO_FILES_FOUND);
        assert_eq!(
            format_files_list(&["".into()], false, false, None),
            NO_FILES_FOUND
        );
        assert_eq!(
            format_files_list(&[], true, false, None),
            format!("\n\n{FILE_LIST_TRUNCATED}")
        );
    }
}
