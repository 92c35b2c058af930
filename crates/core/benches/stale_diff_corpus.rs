//! What a user's-diff notice costs on real code, the data behind the default `contextLines`:
//! seeded random edits (3-line replacements, 1-line and 3-line insertions) of real files of at
//! least 100 lines, each shown as a notice with 3, 2 and 1 context lines, counted in o200k
//! tokens next to a full re-read of the file. Not a timing bench. Run:
//! `cargo bench -p roo-context-core --bench stale_diff_corpus`
//! with `ROO_DIFF_CORPUS` a `:`-separated list of folders (default
//! `/work/corpus/roo-code:/work/corpus/ripgrep`), `ROO_DIFF_EDITS` edits per kind and folder
//! (default 600) and `ROO_DIFF_SEED` (default 19). A missing folder is skipped with a message.

use std::path::{Path, PathBuf};

use roo_context_core::stale_diff::{self, DiffLimits, NoticeBuilder, Side};
use roo_context_core::tracker::ChangeKind;
use roo_context_tokens::count_exact;

const DEFAULT_CORPUS: &str = "/work/corpus/roo-code:/work/corpus/ripgrep";
const CODE_EXTENSIONS: &[&str] = &["ts", "tsx", "js", "jsx", "mjs", "rs"];
const MIN_LINES: usize = 100;
const CONTEXTS: [usize; 3] = [3, 2, 1];

/// splitmix64: a seeded generator, so a run can be repeated exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

#[derive(Clone, Copy)]
enum EditKind {
    Replace3,
    Insert1,
    Insert3,
}

impl EditKind {
    fn name(self) -> &'static str {
        match self {
            EditKind::Replace3 => "3-line replacement",
            EditKind::Insert1 => "1-line insertion",
            EditKind::Insert3 => "3-line insertion",
        }
    }
}

struct SourceFile {
    relative: String,
    text: String,
}

fn code_files(root: &Path) -> Vec<SourceFile> {
    let mut paths: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .require_git(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .map(|entry| entry.into_path())
        .filter(|path| {
            path.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| CODE_EXTENSIONS.contains(&e))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let text = stale_diff::text_of(&bytes, stale_diff::MAX_FILE_BYTES).ok()?;
            (text.lines().count() >= MIN_LINES).then(|| SourceFile {
                relative: path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .into_owned(),
                text: text.to_owned(),
            })
        })
        .collect()
}

/// `text` with one edit at a random line: the new lines are other lines of the same file, so
/// they are as dense as the file's own code.
fn edit(text: &str, kind: EditKind, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let donor = |rng: &mut Rng, lines: &[&str]| -> String {
        let line = lines[rng.below(lines.len())];
        if line.ends_with('\n') {
            line.to_owned()
        } else {
            format!("{line}\n")
        }
    };
    let count = lines.len();
    let picked: Vec<String> = match kind {
        EditKind::Replace3 | EditKind::Insert3 => (0..3).map(|_| donor(rng, &lines)).collect(),
        EditKind::Insert1 => vec![donor(rng, &lines)],
    };
    match kind {
        EditKind::Replace3 => {
            let at = rng.below(count - 3);
            lines.splice(at..at + 3, picked.iter().map(String::as_str));
        }
        EditKind::Insert1 | EditKind::Insert3 => {
            let at = rng.below(count - 1);
            lines.splice(at..at, picked.iter().map(String::as_str));
        }
    }
    lines.concat()
}

fn percentiles(mut samples: Vec<usize>) -> [usize; 3] {
    samples.sort_unstable();
    [0.5, 0.75, 0.9].map(|q| samples[((samples.len() - 1) as f64 * q).round() as usize])
}

fn main() {
    let corpus = std::env::var("ROO_DIFF_CORPUS").unwrap_or_else(|_| DEFAULT_CORPUS.to_owned());
    let edits: usize = std::env::var("ROO_DIFF_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let seed: u64 = std::env::var("ROO_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(19);
    let mut measured_any = false;
    for root in corpus.split(':').filter(|r| !r.is_empty()) {
        let root = Path::new(root);
        if !root.is_dir() {
            println!(
                "skipped {}: no such folder (set ROO_DIFF_CORPUS)",
                root.display()
            );
            continue;
        }
        let files = code_files(root);
        if files.is_empty() {
            println!(
                "skipped {}: no code file of {MIN_LINES} lines or more",
                root.display()
            );
            continue;
        }
        measured_any = true;
        println!(
            "{}: {} files of >= {MIN_LINES} lines, {edits} edits per kind, seed {seed}",
            root.display(),
            files.len()
        );
        println!(
            "  {:<20} {:>8} {:>16} {:>9}",
            "edit", "context", "p50/p75/p90", "fallback"
        );
        for kind in [EditKind::Replace3, EditKind::Insert1, EditKind::Insert3] {
            let mut rng = Rng(seed);
            let mut notices: [Vec<usize>; 3] = Default::default();
            let mut fallbacks = [0usize; 3];
            let mut rereads = Vec::new();
            for _ in 0..edits {
                // A replacement by the same lines is no edit: draw again.
                let (file, new) = loop {
                    let file = &files[rng.below(files.len())];
                    let new = edit(&file.text, kind, &mut rng);
                    if new != file.text {
                        break (file, new);
                    }
                };
                rereads.push(count_exact(&new));
                for (slot, context) in CONTEXTS.into_iter().enumerate() {
                    let mut builder = NoticeBuilder::new(DiffLimits {
                        context_lines: context,
                        timeout: std::time::Duration::from_secs(60),
                        ..DiffLimits::default()
                    });
                    builder.add(
                        &file.relative,
                        ChangeKind::Modified,
                        Side::Text(&file.text),
                        Side::Text(&new),
                    );
                    let notice = builder.finish();
                    fallbacks[slot] += usize::from(notice.files[0].fallback.is_some());
                    notices[slot].push(count_exact(&notice.text));
                }
            }
            for (slot, context) in CONTEXTS.into_iter().enumerate() {
                let [p50, p75, p90] = percentiles(notices[slot].clone());
                println!(
                    "  {:<20} {:>8} {:>16} {:>9}",
                    kind.name(),
                    context,
                    format!("{p50}/{p75}/{p90}"),
                    fallbacks[slot]
                );
            }
            let [p50, p75, p90] = percentiles(rereads);
            println!(
                "  {:<20} {:>8} {:>16}",
                kind.name(),
                "re-read",
                format!("{p50}/{p75}/{p90}")
            );
        }
    }
    if !measured_any {
        println!("stale_diff_corpus: no corpus folder found in {corpus:?}; nothing measured");
    }
}
