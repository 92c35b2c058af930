//! One batch's change to `seen.json`, as its journal keeps it (issue 25): per map of the index,
//! each key whose value changed (its new value) or went (`null`). Keyed upserts and removals,
//! so replaying records in order gives the state whatever it started from among the states
//! they passed through. Pure: `diff` walks both indexes in key order, `apply` replays.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Entry, Index, StoredChange, WatchedEntry, valid_entry};

/// The change from one index to another.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct IndexDelta {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    files: BTreeMap<String, Option<Entry>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    watched: BTreeMap<String, Option<WatchedEntry>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pending: BTreeMap<String, Option<StoredChange>>,
    /// The new `fingerprints` value (`null`: none), when it changed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    fingerprints: Option<Value>,
}

/// A key that is present is a change, even to `null` (serde reads a `null` option as absent).
fn present<'de, D: serde::Deserializer<'de>>(value: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(value).map(Some)
}

impl IndexDelta {
    /// Whether nothing changed.
    pub(super) fn is_empty(&self) -> bool {
        self.files.is_empty()
            && self.watched.is_empty()
            && self.pending.is_empty()
            && self.fingerprints.is_none()
    }
}

fn diff_map<V: Clone + PartialEq>(
    old: &BTreeMap<String, V>,
    new: &BTreeMap<String, V>,
) -> BTreeMap<String, Option<V>> {
    use std::cmp::Ordering;
    let mut out = BTreeMap::new();
    let (mut old, mut new) = (old.iter().peekable(), new.iter().peekable());
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((a, _)), Some((b, _))) => a.cmp(b),
        };
        match order {
            Ordering::Less => {
                let (key, _) = old.next().expect("peeked");
                out.insert(key.clone(), None);
            }
            Ordering::Greater => {
                let (key, value) = new.next().expect("peeked");
                out.insert(key.clone(), Some(value.clone()));
            }
            Ordering::Equal => {
                let ((_, a), (key, b)) = (old.next().expect("peeked"), new.next().expect("peeked"));
                if a != b {
                    out.insert(key.clone(), Some(b.clone()));
                }
            }
        }
    }
    out
}

fn apply_map<V>(map: &mut BTreeMap<String, V>, delta: BTreeMap<String, Option<V>>) {
    for (key, value) in delta {
        match value {
            Some(value) => map.insert(key, value),
            None => map.remove(&key),
        };
    }
}

/// What changed from `old` to `new` (linear in their sizes, allocating only for the changes).
pub(super) fn diff(old: &Index, new: &Index) -> IndexDelta {
    IndexDelta {
        files: diff_map(&old.files, &new.files),
        watched: diff_map(&old.watched, &new.watched),
        pending: diff_map(&old.pending, &new.pending),
        fingerprints: (old.fingerprints != new.fingerprints)
            .then(|| new.fingerprints.clone().map_or(Value::Null, Value::String)),
    }
}

/// Applies `delta` to `index`.
pub(super) fn apply(index: &mut Index, delta: IndexDelta) {
    apply_map(&mut index.files, delta.files);
    apply_map(&mut index.watched, delta.watched);
    apply_map(&mut index.pending, delta.pending);
    if let Some(fingerprints) = delta.fingerprints {
        index.fingerprints = fingerprints.as_str().map(str::to_owned);
    }
}

/// Applies one journal record read back, or changes nothing when it is not a valid delta (the
/// journal is as untrusted as `seen.json`: a blob name must be one, as when the index loads).
pub(super) fn apply_record(index: &mut Index, record: Value) -> Result<(), String> {
    let delta: IndexDelta = serde_json::from_value(record).map_err(|e| e.to_string())?;
    if !delta.files.values().flatten().all(valid_entry) {
        return Err("a baseline entry is invalid".into());
    }
    apply(index, delta);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(blob: u8, used: u64) -> Entry {
        Entry {
            blob: format!("{blob:02x}").repeat(32),
            bytes: u64::from(blob),
            source: "read_tool".into(),
            at: 1,
            used,
            partial: false,
        }
    }

    fn index(files: &[(u8, u8, u64)], pending: &[u8], fingerprints: bool) -> Index {
        Index {
            version: 1,
            files: files
                .iter()
                .map(|(key, blob, used)| (format!("k{key}"), entry(*blob, *used)))
                .collect(),
            watched: files
                .iter()
                .map(|(key, blob, _)| {
                    let watched = WatchedEntry {
                        base: format!("/b{blob}"),
                        ..WatchedEntry::default()
                    };
                    (format!("k{key}"), watched)
                })
                .collect(),
            fingerprints: fingerprints.then(|| "check".to_owned()),
            pending: pending
                .iter()
                .map(|key| {
                    let change = StoredChange {
                        kind: "modified".into(),
                        new_path: None,
                    };
                    (format!("k{key}"), change)
                })
                .collect(),
        }
    }

    fn arb_index() -> impl Strategy<Value = Index> {
        (
            proptest::collection::vec((0u8..12, 0u8..4, 0u64..3), 0..12),
            proptest::collection::vec(0u8..12, 0..5),
            any::<bool>(),
        )
            .prop_map(|(files, pending, fingerprints)| index(&files, &pending, fingerprints))
    }

    proptest! {
        /// The journal's record of a batch, through its text, turns the index on disk into
        /// the index in memory; and again on top of that (a record replayed twice) changes
        /// nothing.
        #[test]
        fn a_delta_through_its_text_turns_the_old_index_into_the_new(old in arb_index(), new in arb_index()) {
            let delta = diff(&old, &new);
            prop_assert_eq!(delta.is_empty(), old == new);
            let text = serde_json::to_string(&delta).unwrap();
            let mut replayed = old.clone();
            apply_record(&mut replayed, serde_json::from_str(&text).unwrap()).unwrap();
            prop_assert_eq!(&replayed, &new);
            apply_record(&mut replayed, serde_json::from_str(&text).unwrap()).unwrap();
            prop_assert_eq!(&replayed, &new);
        }
    }

    #[test]
    fn a_record_naming_a_blob_outside_the_store_changes_nothing() {
        let mut replayed = index(&[(1, 1, 1)], &[], false);
        let before = replayed.clone();
        let bad = serde_json::json!({"files": {"k2": {"blob": "../../etc/passwd", "bytes": 1,
            "source": "read_tool", "at": 1, "used": 1}}, "pending": {"k1": null}});
        assert!(apply_record(&mut replayed, bad).is_err());
        assert!(apply_record(&mut replayed, serde_json::json!({"files": 7})).is_err());
        assert_eq!(replayed, before);
    }

    #[test]
    fn a_small_change_to_a_large_index_is_a_small_record() {
        let keys: Vec<(u8, u8, u64)> = (0..200).map(|k| (k, 1, 1)).collect();
        let old = index(&keys, &[], true);
        let mut new = old.clone();
        new.files.get_mut("k7").unwrap().used = 9;
        let text = serde_json::to_string(&diff(&old, &new)).unwrap();
        assert!(text.len() < 200, "{text}");
        let whole = serde_json::to_string(&new).unwrap();
        assert!(whole.len() > 50 * text.len());
    }
}
