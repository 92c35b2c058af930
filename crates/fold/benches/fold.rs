//! Benchmarks of the fold engine on generated TypeScript: cold outlines on one thread and on all
//! cores, and a folded context cold (fresh cache) against warm (unchanged files, cached).

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

fn sources() -> Vec<String> {
    (0..FILES).map(typescript_file).collect()
}

fn inputs() -> Vec<FoldInput> {
    sources()
        .into_iter()
        .enumerate()
        .map(|(index, text)| FoldInput {
            display_path: format!("src/module{index}/service.ts"),
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

#[divan::bench(sample_count = 10, sample_size = 1)]
fn cold_outlines_one_thread(bencher: divan::Bencher) {
    let sources = sources();
    let jobs: Vec<OutlineJob<'_>> = sources
        .iter()
        .map(|source| OutlineJob {
            language: roo_context_fold::Language::TypeScript,
            source,
        })
        .collect();
    bencher
        .counter(divan::counter::ItemsCount::new(FILES))
        .bench(|| outline_many(&jobs, &OutlineOptions::default(), 1));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn cold_outlines_all_cores(bencher: divan::Bencher) {
    let sources = sources();
    let jobs: Vec<OutlineJob<'_>> = sources
        .iter()
        .map(|source| OutlineJob {
            language: roo_context_fold::Language::TypeScript,
            source,
        })
        .collect();
    bencher
        .counter(divan::counter::ItemsCount::new(FILES))
        .bench(|| outline_many(&jobs, &OutlineOptions::default(), 0));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn folded_context_cold(bencher: divan::Bencher) {
    let inputs = inputs();
    let options = unlimited();
    bencher
        .counter(divan::counter::ItemsCount::new(FILES))
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
        .counter(divan::counter::ItemsCount::new(FILES))
        .bench(|| folded_file_context_with(&inputs, &options, Some(&cache)));
}
