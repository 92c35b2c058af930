//! The append-only journal kept beside a whole file (`task_metadata.json`, `seen.json`), so a
//! batch writes the size of its change, not the size of the state (issue 25): the encoding of
//! its lines, their checks, which records a load replays, and when to compact. Pure: the
//! server's `journal_file.rs` does the I/O.
//!
//! A journal is text, one line per entry: eight lowercase hex digits (the CRC-32 of the JSON
//! that follows), a space, one JSON object, `\n`. The first line is the header, naming the
//! whole file the journal continues by its [`base_id`]; then records `{"seq":n,"record":…}`
//! numbered from 1; before each compaction a marker `{"compacting":"<id>"}` names the whole
//! file about to be written. A load applies the records after the last point whose id is the
//! whole file's on disk (the header or a marker), so a kill between the whole file's rename and
//! the journal's reset never applies a record twice. A line without its `\n` (a kill during the
//! append) or whose check fails ends the journal: nothing after it is trusted.

use serde_json::{Map, Value};

/// The header's `journal` value (the format's version).
const VERSION: u64 = 1;

/// Whole files up to this size (with their journal) are rewritten at every batch, so a small
/// task's original-format file is current after every answer; past it, records are appended.
pub const SMALL_STATE_BYTES: u64 = 16 * 1024;

/// The id of a whole file's bytes (`None`: the file does not exist), which a journal's header
/// and markers name: its length and CRC-32.
pub fn base_id(bytes: Option<&[u8]>) -> String {
    match bytes {
        None => "none".to_owned(),
        Some(bytes) => format!("{}-{:08x}", bytes.len(), crc32(bytes)),
    }
}

/// CRC-32 (IEEE 802.3, the zlib one), table-driven.
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &b in bytes {
        crc = TABLE[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

fn line(value: &Value) -> Vec<u8> {
    framed(&value.to_string())
}

/// `json` with its checksum in front and a newline after.
fn framed(json: &str) -> Vec<u8> {
    let mut out = format!("{:08x} ", crc32(json.as_bytes())).into_bytes();
    out.extend_from_slice(json.as_bytes());
    out.push(b'\n');
    out
}

/// The first line of a journal continuing the whole file whose id is `base`.
pub fn header_line(base: &str) -> Vec<u8> {
    line(&serde_json::json!({"journal": VERSION, "base": base}))
}

/// The line of record number `seq` (1 for the first after the header).
pub fn record_line(seq: u64, record: &Value) -> Vec<u8> {
    // Spelled out rather than built with `json!`, which would copy the record (a history append
    // can be megabytes) before serializing it; the same bytes either way.
    framed(&format!("{{\"seq\":{seq},\"record\":{record}}}"))
}

/// The line written before a compaction writes the whole file whose id is `to`.
pub fn marker_line(to: &str) -> Vec<u8> {
    line(&serde_json::json!({"compacting": to}))
}

/// What ended a journal before its last byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// The last line has no `\n`: an append cut short (a kill, a full disk). Expected.
    TornTail {
        /// Bytes dropped.
        bytes: usize,
    },
    /// A complete line whose check, JSON or sequence number is wrong: nothing from it on is
    /// trusted.
    Corrupt {
        /// Where the bad line starts.
        offset: usize,
        /// Bytes dropped (that line and everything after it).
        bytes: usize,
    },
}

/// One entry after the header.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A record (its `record` value).
    Record(Value),
    /// A compaction was about to write the whole file with this id.
    Compacting(String),
}

/// A journal as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Journal {
    /// The id of the whole file it continues.
    pub base: String,
    /// Its entries, in order, up to the first damage.
    pub entries: Vec<Entry>,
    /// Bytes of valid lines (header included): where the next append goes.
    pub valid_len: usize,
    /// What ended it early, if anything.
    pub damage: Option<Damage>,
    /// Records read (the next record's `seq` is one more).
    pub records: u64,
}

/// Why a journal cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// Its first line is not a header this version writes.
    #[error("the journal has no valid header")]
    NoHeader,
}

/// One complete, checked line's JSON; `None` when the check or the JSON fails.
fn checked(line: &[u8]) -> Option<Map<String, Value>> {
    let (check, json) = (line.get(..8)?, line.get(9..)?);
    if line.get(8) != Some(&b' ') {
        return None;
    }
    let check = u32::from_str_radix(std::str::from_utf8(check).ok()?, 16).ok()?;
    if check != crc32(json) {
        return None;
    }
    match serde_json::from_slice(json).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// Reads a journal's bytes.
pub fn parse(bytes: &[u8]) -> Result<Journal, JournalError> {
    let mut offset = 0;
    let mut lines = std::iter::from_fn(|| {
        if offset >= bytes.len() {
            return None;
        }
        let start = offset;
        let rest = &bytes[start..];
        match memchr::memchr(b'\n', rest) {
            Some(end) => {
                offset = start + end + 1;
                Some((start, Some(&rest[..end])))
            }
            None => {
                offset = bytes.len();
                Some((start, None))
            }
        }
    });
    let header = match lines.next() {
        Some((_, Some(line))) => checked(line).ok_or(JournalError::NoHeader)?,
        _ => return Err(JournalError::NoHeader),
    };
    let base = match (
        header.get("journal").and_then(Value::as_u64),
        header.get("base"),
    ) {
        (Some(VERSION), Some(Value::String(base))) => base.clone(),
        _ => return Err(JournalError::NoHeader),
    };
    let mut journal = Journal {
        base,
        entries: Vec::new(),
        valid_len: 0,
        damage: None,
        records: 0,
    };
    journal.valid_len = memchr::memchr(b'\n', bytes).map_or(0, |end| end + 1);
    for (start, line) in lines {
        let Some(line) = line else {
            journal.damage = Some(Damage::TornTail {
                bytes: bytes.len() - start,
            });
            break;
        };
        let entry = checked(line).and_then(|mut object| {
            if let Some(Value::String(to)) = object.get("compacting") {
                return Some(Entry::Compacting(to.clone()));
            }
            let seq = object.get("seq")?.as_u64()?;
            (seq == journal.records + 1).then_some(())?;
            Some(Entry::Record(object.remove("record")?))
        });
        let Some(entry) = entry else {
            journal.damage = Some(Damage::Corrupt {
                offset: start,
                bytes: bytes.len() - start,
            });
            break;
        };
        if matches!(entry, Entry::Record(_)) {
            journal.records += 1;
        }
        journal.entries.push(entry);
        journal.valid_len = start + line.len() + 1;
    }
    Ok(journal)
}

/// What a load does with a journal, given the id of the whole file on disk.
#[derive(Debug, Clone, PartialEq)]
pub enum Replay {
    /// Apply these records to the whole file, in order.
    Apply(Vec<Value>),
    /// The journal continues another file (the whole file was replaced by someone else, or a
    /// compaction's reset failed after the file was written): its records cannot be placed.
    Mismatch,
}

/// The records to apply to the whole file whose id is `whole`: those after the last point of
/// the journal (its header or a compaction marker) that names `whole`. Ids name bytes, so two
/// points naming the same id hold the same state and either gives the same result.
pub fn plan(journal: &Journal, whole: &str) -> Replay {
    let start = journal
        .entries
        .iter()
        .rposition(|e| matches!(e, Entry::Compacting(to) if to == whole))
        .map(|marker| marker + 1)
        .or((journal.base == whole).then_some(0));
    let Some(start) = start else {
        return Replay::Mismatch;
    };
    Replay::Apply(
        journal.entries[start..]
            .iter()
            .filter_map(|e| match e {
                Entry::Record(record) => Some(record.clone()),
                Entry::Compacting(_) => None,
            })
            .collect(),
    )
}

/// Whether a batch whose record is `record_len` bytes rewrites the whole file instead of
/// appending: always while the state is small ([`SMALL_STATE_BYTES`], estimated as the whole
/// file plus its journal), else once the journal would outgrow the whole file. Each
/// compaction then writes at most about twice the journal bytes since the last one, so the
/// bytes written stay linear in the bytes of the changes.
pub fn should_compact(whole_len: u64, journal_len: u64, record_len: u64) -> bool {
    let journal_after = journal_len.saturating_add(record_len);
    whole_len.saturating_add(journal_after) <= SMALL_STATE_BYTES
        || journal_after > whole_len.max(SMALL_STATE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn journal(lines: &[Vec<u8>]) -> Vec<u8> {
        lines.concat()
    }

    #[test]
    fn a_record_line_is_the_checksummed_json_of_its_seq_and_record() {
        let record = json!({"ops": [{"op": "append", "text": "quote \" newline \n \u{1F600} \u{7}"}],
                            "version": 7, "digest": "00ff"});
        assert_eq!(
            record_line(12, &record),
            line(&json!({"seq": 12, "record": record.clone()}))
        );
        let parsed = parse(&journal(&[header_line("1-2"), record_line(1, &record)])).unwrap();
        assert_eq!(parsed.entries, [Entry::Record(record)]);
        assert_eq!(parsed.damage, None);
    }

    #[test]
    fn crc32_is_the_zlib_one() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn records_are_read_back_in_order_after_the_header() {
        let bytes = journal(&[
            header_line("12-00000001"),
            record_line(1, &json!({"a": 1})),
            record_line(2, &json!(["b"])),
        ]);
        let parsed = parse(&bytes).unwrap();
        assert_eq!(parsed.base, "12-00000001");
        assert_eq!(parsed.damage, None);
        assert_eq!(parsed.valid_len, bytes.len());
        assert_eq!(parsed.records, 2);
        assert_eq!(
            plan(&parsed, "12-00000001"),
            Replay::Apply(vec![json!({"a": 1}), json!(["b"])])
        );
    }

    #[test]
    fn a_torn_tail_is_dropped_and_the_next_append_goes_where_it_began() {
        let good = journal(&[header_line("none"), record_line(1, &json!(1))]);
        let torn = record_line(2, &json!(2));
        for cut in 1..torn.len() {
            let mut bytes = good.clone();
            bytes.extend_from_slice(&torn[..cut]);
            let parsed = parse(&bytes).unwrap();
            assert_eq!(parsed.valid_len, good.len(), "cut at {cut}");
            assert_eq!(parsed.records, 1);
            // A cut just before the `\n` is a complete-looking line only without it.
            assert_eq!(
                parsed.damage,
                Some(Damage::TornTail {
                    bytes: bytes.len() - good.len()
                })
            );
            assert_eq!(plan(&parsed, "none"), Replay::Apply(vec![json!(1)]));
        }
    }

    #[test]
    fn garbage_or_a_bad_check_ends_the_journal_and_nothing_after_it_is_applied() {
        let head = journal(&[header_line("none"), record_line(1, &json!(1))]);
        let mut flipped = record_line(2, &json!({"x": "abc"}));
        flipped[15] ^= 0x01;
        for bad in [
            b"garbage\n".to_vec(),
            b"\n".to_vec(),
            flipped,
            // A valid line out of sequence (a record duplicated by a bad copy).
            record_line(1, &json!(1)),
            record_line(3, &json!(3)),
            // Checked JSON that is not an object.
            line(&json!([1])),
        ] {
            let mut bytes = head.clone();
            bytes.extend_from_slice(&bad);
            bytes.extend_from_slice(&record_line(2, &json!(2)));
            let parsed = parse(&bytes).unwrap();
            assert_eq!(
                parsed.damage,
                Some(Damage::Corrupt {
                    offset: head.len(),
                    bytes: bytes.len() - head.len()
                }),
                "{}",
                String::from_utf8_lossy(&bad)
            );
            assert_eq!(plan(&parsed, "none"), Replay::Apply(vec![json!(1)]));
        }
    }

    #[test]
    fn a_journal_without_a_valid_header_is_unusable() {
        for bytes in [
            Vec::new(),
            b"{}\n".to_vec(),
            header_line("none")[..10].to_vec(),
            line(&json!({"journal": 2, "base": "none"})),
            record_line(1, &json!(1)),
        ] {
            assert_eq!(parse(&bytes), Err(JournalError::NoHeader));
        }
    }

    /// A kill after the compaction renamed the whole file but before the journal was reset:
    /// the marker names the file now on disk, so the records before it are not applied again.
    #[test]
    fn records_before_a_marker_naming_the_whole_file_are_not_applied_twice() {
        let bytes = journal(&[
            header_line("old"),
            record_line(1, &json!(1)),
            marker_line("new"),
            // A failed reset left the old journal: appends went on after the marker.
            record_line(2, &json!(2)),
        ]);
        let parsed = parse(&bytes).unwrap();
        assert_eq!(plan(&parsed, "new"), Replay::Apply(vec![json!(2)]));
        // The compaction's write failed: the old file is there, every record applies.
        assert_eq!(
            plan(&parsed, "old"),
            Replay::Apply(vec![json!(1), json!(2)])
        );
        // Another file entirely.
        assert_eq!(plan(&parsed, "other"), Replay::Mismatch);
    }

    #[test]
    fn the_base_id_tells_bytes_apart_and_a_missing_file_from_an_empty_one() {
        assert_eq!(base_id(None), "none");
        assert_eq!(base_id(Some(b"")), "0-00000000");
        assert_ne!(base_id(Some(b"ab")), base_id(Some(b"ba")));
    }

    #[test]
    fn compaction_is_at_every_batch_while_small_then_amortized() {
        assert!(should_compact(0, 0, 200));
        assert!(should_compact(10_000, 6_000, 200));
        // Past the small bound: appended until the journal outgrows the whole file.
        assert!(!should_compact(100_000, 0, 200));
        assert!(!should_compact(100_000, 99_000, 1_000));
        assert!(should_compact(100_000, 99_000, 1_001));
        // A journal beside a small file is bounded by the small bound.
        assert!(!should_compact(20_000, 0, 200));
        assert!(should_compact(2_000, 16_000, 1_000));
        // Simulated growth: total bytes written stay linear in the records' bytes.
        let (mut whole, mut journal, mut written, record) = (0u64, 0u64, 0u64, 300u64);
        for _ in 0..100_000 {
            if should_compact(whole, journal, record) {
                whole += journal + record;
                journal = 0;
                written += whole;
            } else {
                journal += record;
                written += record;
            }
        }
        let changes = 100_000 * record;
        assert!(written < 4 * changes, "{written} for {changes}");
    }
}
