//! `roo/files/read` at scale: the answer for a task with many records must grow linearly with
//! them (it was quadratic: 100k records took 18.7 s). Run:
//! `cargo bench -p roo-context-core --bench tracker`; compare the per-record time across sizes.

use divan::Bencher;
use divan::counter::ItemsCount;
use roo_context_core::tracker::files_read_by_agent;
use roo_context_core::tracker::metadata::{
    FileMetadataEntry, RecordSource, RecordState, TaskMetadata,
};

fn main() {
    divan::main();
}

fn metadata(records: usize) -> TaskMetadata {
    let mut metadata = TaskMetadata::default();
    metadata.files_in_context = (0..records)
        .map(|i| {
            let mut entry = FileMetadataEntry::new(
                &format!("src/file{i}.ts"),
                RecordState::Active,
                RecordSource::ReadTool,
                [None, None, None],
            );
            entry.roo_read_date = Some(i as i64);
            entry
        })
        .collect();
    metadata
}

/// Distinct paths, one record each: per-record time should stay flat from 1k to 100k.
#[divan::bench(args = [1_000, 10_000, 100_000])]
fn files_read_by_agent_distinct_records(bencher: Bencher, records: usize) {
    let metadata = metadata(records);
    bencher
        .counter(ItemsCount::new(records))
        .bench(|| files_read_by_agent(&metadata, None).len());
}
