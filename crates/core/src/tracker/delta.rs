//! One batch's change to `task_metadata.json`'s records, as the journal keeps it (issue 25):
//! the records made stale and the records appended. History is append-only and only `track`
//! changes it (older active records of a path become stale, one record is appended), so a
//! record of `{"len": L, "stale": [indices below L], "append": [records]}` describes any
//! batch, and applying it checks that the history has exactly `L` records first.

use serde_json::{Value, json};

use super::metadata::{FileMetadataEntry, MetadataError, RecordState, TaskMetadata};

/// The change since the records were last saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataDelta {
    /// How many records were saved before it.
    pub len: usize,
    /// Saved records made stale since, by index (each below `len`).
    pub stale: Vec<usize>,
    /// The records appended since, as they are now.
    pub append: Vec<FileMetadataEntry>,
}

impl MetadataDelta {
    /// The journal record.
    pub fn to_record(&self) -> Value {
        json!({
            "len": self.len,
            "stale": self.stale,
            "append": self.append.iter().map(FileMetadataEntry::to_value).collect::<Vec<_>>(),
        })
    }
}

/// Applies one journal record to `metadata`, or changes nothing and says why it cannot.
pub fn apply_record(metadata: &mut TaskMetadata, record: &Value) -> Result<(), MetadataError> {
    let invalid = |reason: String| MetadataError::InvalidEntry {
        index: metadata.files_in_context.len(),
        reason: format!("journal record: {reason}"),
    };
    let len = record.get("len").and_then(Value::as_u64);
    if len != Some(metadata.files_in_context.len() as u64) {
        return Err(invalid(format!(
            "continues {len:?} records, the history has {}",
            metadata.files_in_context.len()
        )));
    }
    let stale: Vec<usize> = match record.get("stale") {
        Some(Value::Array(indices)) => indices
            .iter()
            .map(|i| {
                i.as_u64()
                    .map(|i| i as usize)
                    .filter(|i| *i < metadata.files_in_context.len())
            })
            .collect::<Option<_>>()
            .ok_or_else(|| invalid("a stale index is not a record".into()))?,
        _ => return Err(invalid("`stale` is not an array".into())),
    };
    let base = metadata.files_in_context.len();
    let append: Vec<FileMetadataEntry> = match record.get("append") {
        Some(Value::Array(entries)) => entries
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, entry)| FileMetadataEntry::from_value(base + i, entry))
            .collect::<Result<_, _>>()?,
        _ => return Err(invalid("`append` is not an array".into())),
    };
    for index in stale {
        metadata.files_in_context[index].record_state = RecordState::Stale;
    }
    metadata.files_in_context.extend(append);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracker::{RecordSource, TaskFiles};

    fn saved_and_reloaded(task: &mut TaskFiles, on_disk: &mut TaskMetadata) {
        if let Some(delta) = task.metadata_delta() {
            // Through the journal's text, as a load sees it.
            let record: Value = serde_json::from_str(&delta.to_record().to_string()).unwrap();
            apply_record(on_disk, &record).unwrap();
        }
        task.metadata_saved();
        assert_eq!(on_disk.to_json(), task.metadata.to_json());
    }

    /// The original's file with unknown keys at both levels: records appended and made stale
    /// through the journal come back exactly as the whole file would hold them.
    #[test]
    fn journal_records_replayed_on_the_whole_file_give_the_state_and_keep_unknown_keys() {
        let original = r#"{"schema":"roo-3.52","files_in_context":[{"path":"a.ts","record_state":"active","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"x_future":[1]}],"tail":{"k":null}}"#;
        let mut on_disk = TaskMetadata::parse(original).unwrap();
        let mut task = TaskFiles::new(on_disk.clone());
        assert_eq!(task.metadata_delta(), None);
        task.track("b.ts", RecordSource::ReadTool, None, 1);
        saved_and_reloaded(&mut task, &mut on_disk);
        assert_eq!(task.metadata_delta(), None);
        task.track("a.ts", RecordSource::RooEdited, None, 2);
        task.track("b.ts", RecordSource::UserEdited, None, 3);
        task.track("b.ts", RecordSource::ReadTool, None, 4);
        saved_and_reloaded(&mut task, &mut on_disk);
        let json = on_disk.to_json();
        assert!(json.starts_with(r#"{"schema":"roo-3.52","files_in_context":[{"path":"a.ts","record_state":"stale","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"x_future":[1]},"#), "{json}");
        assert!(json.ends_with(r#"],"tail":{"k":null}}"#), "{json}");
    }

    #[test]
    fn a_record_that_does_not_continue_the_history_changes_nothing() {
        let mut task = TaskFiles::default();
        task.track("a.ts", RecordSource::ReadTool, None, 1);
        let first = task.metadata_delta().unwrap().to_record();
        task.metadata_saved();
        task.track("a.ts", RecordSource::ReadTool, None, 2);
        let second = task.metadata_delta().unwrap().to_record();
        let mut metadata = TaskMetadata::default();
        // Out of order, or applied twice.
        assert!(apply_record(&mut metadata, &second).is_err());
        apply_record(&mut metadata, &first).unwrap();
        assert!(apply_record(&mut metadata, &first).is_err());
        let before = metadata.clone();
        for bad in [
            json!({"len": 1, "stale": [5], "append": []}),
            json!({"len": 1, "stale": [0], "append": [{"path": 1}]}),
            json!({"len": 1, "stale": "x", "append": []}),
            json!({"len": 1, "stale": []}),
            json!([]),
        ] {
            assert!(apply_record(&mut metadata, &bad).is_err(), "{bad}");
            assert_eq!(metadata, before, "{bad}");
        }
        apply_record(&mut metadata, &second).unwrap();
        assert_eq!(metadata.to_json(), task.metadata.to_json());
    }
}
