//! Benchmarks of the fold engine on generated TypeScript: cold outlines on one thread and on all
//! cores, and a folded context cold (fresh cache) against warm (unchanged files, cached), warm
//! also without the priority order and test summaries (`prioritize: false`); and cold
//! outline throughput per language on its fixture repeated to 5 MiB, against the generated
//! TypeScript as the baseline of the same run.
//!
//! `ROO_FOLD_BENCH_LIST=corpus/ts_files.txt ROO_FOLD_BENCH_BASE=corpus/repo` measures the anchors'
//! corpus instead (../shared/bench), side by side with `node node/ts_bench.mjs` there.

use roo_context_fold::{
    FoldContent, FoldInput, FoldOptions, OutlineCache, OutlineJob, OutlineOptions,
    folded_file_context_with, outline_many,
};

const FILES: usize = 200;

fn main() {
    divan::main();
}

/// A deterministic TypeScript file of about 3 KB (like the shared bench corpus's average).
fn typescript_file(index: usize) -> String {
    let mut source = format!("import {{ Base{index} }} from \"./base{index}\";\n\n");
    source.push_str(&format!(
        "export interface Options{index} {{\n  name: string;\n  retries: number;\n  verbose?: boolean;\n}}\n\n"
    ));
    source.push_str(&format!(
        "export class Service{index} extends Base{index} {{\n"
    ));
    for method in 0..6 {
        source.push_str(&format!(
            "  async method{method}(input: Options{index}): Promise<number> {{\n    const value = input.retries * {method};\n    if (input.verbose) {{\n      console.log(input.name, value);\n    }}\n    return value;\n  }}\n\n"
        ));
    }
    source.push_str("}\n\n");
    for function in 0..4 {
        source.push_str(&format!(
            "export const helper{function} = (items: string[]): string[] => {{\n  return items\n    .filter((item) => item.length > {function})\n    .map((item) => item.trim());\n}};\n\n"
        ));
    }
    source.push_str(&format!(
        "export type Result{index} =\n  | {{ ok: true; value: number }}\n  | {{ ok: false; error: string }}\n  | {{ ok: null }};\n"
    ));
    source
}

/// (path, language, text) of every benchmarked file.
fn corpus() -> Vec<(String, roo_context_fold::Language, String)> {
    if let (Ok(list), Ok(base)) = (
        std::env::var("ROO_FOLD_BENCH_LIST"),
        std::env::var("ROO_FOLD_BENCH_BASE"),
    ) {
        let list = std::fs::read_to_string(list).expect("ROO_FOLD_BENCH_LIST is readable");
        return list
            .lines()
            .filter(|l| !l.is_empty())
            .map(|path| {
                let language =
                    roo_context_fold::Language::from_path(path).expect("a .ts/.tsx path");
                let text = std::fs::read_to_string(std::path::Path::new(&base).join(path))
                    .expect("corpus file is readable");
                (path.to_owned(), language, text)
            })
            .collect();
    }
    (0..FILES)
        .map(|index| {
            (
                format!("src/module{index}/service.ts"),
                roo_context_fold::Language::TypeScript,
                typescript_file(index),
            )
        })
        .collect()
}

fn inputs() -> Vec<FoldInput> {
    corpus()
        .into_iter()
        .map(|(display_path, _, text)| FoldInput {
            display_path,
            content: FoldContent::Text(text),
        })
        .collect()
}

fn unlimited() -> FoldOptions {
    FoldOptions {
        max_chars: usize::MAX,
        ..FoldOptions::default()
    }
}

/// Cold outlines on one thread (1) and on every core (0).
#[divan::bench(sample_count = 10, sample_size = 1, args = [1, 0])]
fn cold_outlines(bencher: divan::Bencher, threads: usize) {
    let files = corpus();
    let count = files.len();
    let jobs: Vec<OutlineJob<'_>> = files
        .iter()
        .map(|(_, language, source)| OutlineJob {
            language: *language,
            source,
        })
        .collect();
    bencher
        .counter(divan::counter::ItemsCount::new(count))
        .bench(|| outline_many(&jobs, &OutlineOptions::default(), threads));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn folded_context_cold(bencher: divan::Bencher) {
    let inputs = inputs();
    let options = unlimited();
    bencher
        .counter(divan::counter::ItemsCount::new(inputs.len()))
        .with_inputs(OutlineCache::default)
        .bench_refs(|cache| folded_file_context_with(&inputs, &options, Some(cache)));
}

#[divan::bench(sample_count = 50, sample_size = 1)]
fn folded_context_warm(bencher: divan::Bencher) {
    let inputs = inputs();
    let options = unlimited();
    let cache = OutlineCache::default();
    folded_file_context_with(&inputs, &options, Some(&cache));
    bencher
        .counter(divan::counter::ItemsCount::new(inputs.len()))
        .bench(|| folded_file_context_with(&inputs, &options, Some(&cache)));
}

/// The warm folded context without the priority order and test summaries (the original's
/// input order and full outlines): the baseline of `folded_context_warm` in the same run.
#[divan::bench(sample_count = 50, sample_size = 1)]
fn folded_context_warm_original_order(bencher: divan::Bencher) {
    let inputs = inputs();
    let options = FoldOptions {
        prioritize: false,
        ..unlimited()
    };
    let cache = OutlineCache::default();
    folded_file_context_with(&inputs, &options, Some(&cache));
    bencher
        .counter(divan::counter::ItemsCount::new(inputs.len()))
        .bench(|| folded_file_context_with(&inputs, &options, Some(&cache)));
}

/// Bytes of source per language in `cold_outline_per_language`.
const PER_LANGUAGE_BYTES: usize = 5 * 1024 * 1024;

/// Cold outlines (no cache) on one thread of each language fixture (`tests/fixtures`) repeated
/// as separate files to 5 MiB. `generated.ts` is the TypeScript file above, the baseline.
#[divan::bench(
    sample_count = 5,
    sample_size = 1,
    args = [
        "generated.ts", "OrderService.java", "ring_buffer.c", "lru_cache.cpp",
        "InventoryController.cs", "subscription.rb", "UserRepository.php", "theme.css",
        "index.html", "package.json", "deploy.sh", "TaskScheduler.kt", "ImageCache.swift",
        "inventory.lua", "syncd.toml", "RateLimiter.scala", "mailer.ex", "cart_repository.dart",
        "arena.zig", "interval_map.ml", "Vesting.sol", "TodoList.vue", "project-notes.el",
        "TokenRing.tla", "invoice.html.erb", "dashboard.ejs",
    ]
)]
fn cold_outline_per_language(bencher: divan::Bencher, fixture: &str) {
    let Some(language) = roo_context_fold::Language::from_path(fixture) else {
        // The fixture's grammar group is switched off (cargo feature).
        return;
    };
    let text = if fixture == "generated.ts" {
        typescript_file(0)
    } else {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture);
        std::fs::read_to_string(path).expect("fixture is readable")
    };
    let copies = PER_LANGUAGE_BYTES.div_ceil(text.len());
    let jobs: Vec<OutlineJob<'_>> = (0..copies)
        .map(|_| OutlineJob {
            language,
            source: &text,
        })
        .collect();
    // Compile the query before timing: that is once per process, not per file.
    outline_many(&jobs[..1], &OutlineOptions::default(), 1);
    bencher
        .counter(divan::counter::BytesCount::new(copies * text.len()))
        .counter(divan::counter::ItemsCount::new(copies))
        .bench(|| outline_many(&jobs, &OutlineOptions::default(), 1));
}
