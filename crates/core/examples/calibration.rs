//! Calibration benchmark (issue 32): how close the calibrated count comes to a provider's own
//! tokenizer. cl100k_base (bpe-openai) stands in for the provider, o200k_base is what the
//! sidecar counts. For each corpus (code, prose, CJK, tool output, and a mix) it simulates
//! conversations whose requests grow chunk by chunk; before each request it predicts the
//! provider's count with the calibration (the family prior when cold), then observes the
//! provider's figure, as the server does with `lastRequest`. Prints the p95 relative error cold
//! (request 1, prior only), after 3 requests (requests 4–6), and today's error (exact o200k, and
//! the original's o200k × 1.5 estimate) on the same requests.
//!
//! ```sh
//! mkdir -p /tmp/calib && tar xzf ../shared/upstream/roo-code-3.52.1-cb836567.tar.gz -C /tmp/calib
//! tar xzf ../shared/upstream/zoo-code-3.80.0-f7ec103c.tar.gz -C /tmp/calib zoo-code-3.80.0/locales
//! ROO_CALIBRATION_CORPUS=/tmp/calib/roo-code-3.52.1 cargo run --release -p roo-context-core --example calibration
//! ```
//!
//! The priors were taken from this repository's own files (Rust, docs, JSON) and Roo's zh-TW
//! locale, none of which is in the evaluation corpora: `--priors` prints those ratios.

use std::path::{Path, PathBuf};

use roo_context_core::context::calibrate::{
    CONTENT_CLASSES, Calibration, ClassTokens, ContentClass, split_by_class,
};

const CONVERSATIONS: usize = 300;
const REQUESTS: usize = 6;

struct Chunk {
    split: ClassTokens,
    o200k: u64,
    provider: u64,
}

fn files(root: &Path, accept: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "node_modules" || name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            files(&path, accept, out);
        } else if accept(&path) {
            out.push(path);
        }
    }
}

/// Chunks of about `size` bytes on line boundaries: the size of a message or a tool result.
fn chunks(text: &str, size: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.split_inclusive('\n') {
        current.push_str(line);
        if current.len() >= size {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

fn load(paths: &[PathBuf], size: usize) -> Vec<String> {
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|text| chunks(&text, size))
        .collect()
}

fn measure(texts: Vec<String>) -> Vec<Chunk> {
    let o200k = bpe_openai::o200k_base();
    let cl100k = bpe_openai::cl100k_base();
    texts
        .iter()
        .map(|text| {
            let exact = o200k.count(text) as u64;
            Chunk {
                split: split_by_class(text, exact),
                o200k: exact,
                provider: cl100k.count(text) as u64,
            }
        })
        .collect()
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize
    }
}

fn p95(mut errors: Vec<f64>) -> f64 {
    errors.sort_by(f64::total_cmp);
    errors[((errors.len() as f64 * 0.95).ceil() as usize).saturating_sub(1)]
}

struct Errors {
    cold: Vec<f64>,
    warm: Vec<f64>,
    exact_today: Vec<f64>,
    estimate_today: Vec<f64>,
}

fn simulate(chunks: &[Chunk], seed: u64) -> Errors {
    let mut rng = Rng(seed | 1);
    let mut errors = Errors {
        cold: vec![],
        warm: vec![],
        exact_today: vec![],
        estimate_today: vec![],
    };
    for _ in 0..CONVERSATIONS {
        // A model whose family is cl100k (gpt-4-turbo): the prior applies while cold.
        let mut calibration = Calibration::prior("openai", "gpt-4-turbo");
        let mut counted = ClassTokens::default();
        let mut provider = 0u64;
        // A task reads on from where it is: consecutive chunks from a random start (a file, the
        // next file, their tool outputs), in one language.
        let mut next = rng.below(chunks.len());
        for request in 0..REQUESTS {
            for _ in 0..2 + rng.below(5) {
                let chunk = &chunks[next % chunks.len()];
                next += 1;
                counted.add(&chunk.split);
                provider += chunk.provider;
            }
            let relative = |estimate: f64| (estimate - provider as f64).abs() / provider as f64;
            let predicted = calibration.apply(&counted) as f64;
            if request == 0 {
                errors.cold.push(relative(predicted));
            }
            if request >= 3 {
                errors.warm.push(relative(predicted));
            }
            errors.exact_today.push(relative(counted.total() as f64));
            errors
                .estimate_today
                .push(relative((counted.total() as f64 * 1.5).ceil()));
            calibration.observe(&counted, provider);
        }
    }
    errors
}

fn dominant(split: &ClassTokens) -> ContentClass {
    CONTENT_CLASSES
        .into_iter()
        .max_by_key(|class| split.get(*class))
        .unwrap_or(ContentClass::Prose)
}

fn main() {
    let root = std::env::var_os("ROO_CALIBRATION_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/calib/roo-code-3.52.1"));
    if std::env::args().any(|a| a == "--priors") {
        return print_priors();
    }
    let ext = |e: &'static str| move |p: &Path| p.extension().is_some_and(|x| x == e);
    let mut code = Vec::new();
    files(
        &root.join("src"),
        &|p: &Path| {
            ext("ts")(p)
                && !p.to_string_lossy().contains("__tests__")
                && !p.to_string_lossy().contains(".spec.")
        },
        &mut code,
    );
    let mut prose = Vec::new();
    for name in [
        "README.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "PRIVACY.md",
        "SECURITY.md",
    ] {
        prose.push(root.join(name));
    }
    // One corpus per language: a conversation is in one language, and the three tokenize
    // differently (Korean most of all).
    let cjk: Vec<(&str, Vec<PathBuf>)> =
        [("cjk zh-CN", "zh-CN"), ("cjk ja", "ja"), ("cjk ko", "ko")]
            .into_iter()
            .map(|(name, locale)| {
                let mut paths = Vec::new();
                files(&root.join("locales").join(locale), &ext("md"), &mut paths);
                (name, paths)
            })
            .collect();
    let mut tool = Vec::new();
    files(&root.join("src/i18n/locales/en"), &ext("json"), &mut tool);
    files(
        &root.join("packages"),
        &|p: &Path| p.ends_with("package.json"),
        &mut tool,
    );
    let mut corpora = vec![
        ("code", measure(load(&code, 3000))),
        ("prose", measure(load(&prose, 3000))),
        ("tool output", measure(load(&tool, 3000))),
    ];
    // Tool output is also listings and search hits: the paths of the tree, as list_files shows.
    let mut listing = String::new();
    for path in &code {
        listing.push_str(&path.strip_prefix(&root).unwrap_or(path).to_string_lossy());
        listing.push('\n');
    }
    corpora[2].1.extend(measure(chunks(&listing, 3000)));
    for (name, paths) in &cjk {
        corpora.push((name, measure(load(paths, 1000))));
    }
    let mixed: Vec<Chunk> = corpora
        .iter()
        .flat_map(|(_, chunks)| chunks.iter())
        .map(|c| Chunk {
            split: c.split,
            o200k: c.o200k,
            provider: c.provider,
        })
        .collect();
    corpora.push(("mixed", mixed));
    println!(
        "| corpus | chunks | calibrated p95, cold (prior) | calibrated p95, after 3 | today exact o200k p95 | today estimate ×1.5 p95 |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let row = |name: &str, chunks: usize, errors: &Errors| {
        println!(
            "| {name} | {chunks} | {:.2} % | {:.2} % | {:.2} % | {:.2} % |",
            100.0 * p95(errors.cold.clone()),
            100.0 * p95(errors.warm.clone()),
            100.0 * p95(errors.exact_today.clone()),
            100.0 * p95(errors.estimate_today.clone()),
        )
    };
    let mut all_cjk = Errors {
        cold: vec![],
        warm: vec![],
        exact_today: vec![],
        estimate_today: vec![],
    };
    let mut cjk_chunks = 0;
    for (index, (name, chunks)) in corpora.iter().enumerate() {
        let errors = simulate(chunks, 0x5eed + index as u64);
        row(name, chunks.len(), &errors);
        if name.starts_with("cjk") {
            cjk_chunks += chunks.len();
            all_cjk.cold.extend(&errors.cold);
            all_cjk.warm.extend(&errors.warm);
            all_cjk.exact_today.extend(&errors.exact_today);
            all_cjk.estimate_today.extend(&errors.estimate_today);
        }
    }
    row("cjk (the three pooled)", cjk_chunks, &all_cjk);
}

/// The ratios the `cl100k` prior comes from, on files kept out of the evaluation.
fn print_priors() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut rust = Vec::new();
    files(
        &repo.join("crates"),
        &|p: &Path| p.extension().is_some_and(|x| x == "rs"),
        &mut rust,
    );
    let mut docs = Vec::new();
    files(
        &repo.join("docs"),
        &|p: &Path| p.extension().is_some_and(|x| x == "md"),
        &mut docs,
    );
    let mut json = Vec::new();
    files(
        &repo.join("tests"),
        &|p: &Path| p.extension().is_some_and(|x| x == "json"),
        &mut json,
    );
    files(
        &repo.join("editors/vscode"),
        &|p: &Path| p.ends_with("package.json"),
        &mut json,
    );
    // CJK and Hangul: documents, like what a conversation holds (UI strings tokenize
    // differently: short, many placeholders).
    let (mut cjk, mut hangul) = (Vec::new(), Vec::new());
    // Zoo Code's locale documents were rewritten since the fork (most lines differ from Roo's):
    // the held-out documents of each script.
    let zoo = std::env::var_os("ROO_CALIBRATION_PRIOR_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/calib/zoo-code-3.80.0"));
    let md = |p: &Path| p.extension().is_some_and(|x| x == "md");
    files(&zoo.join("locales/zh-TW"), &md, &mut cjk);
    files(&zoo.join("locales/ko"), &md, &mut hangul);
    let mut totals = [(0u64, 0u64); 5];
    for paths in [&rust, &docs, &json, &cjk] {
        for chunk in measure(load(paths, 3000)) {
            let entry = &mut totals[dominant(&chunk.split) as usize];
            entry.0 += chunk.o200k;
            entry.1 += chunk.provider;
        }
    }
    // The CJK part of mixed texts: what the provider counted beyond the rest at ratio 1.
    let (mut cjk_tokens, mut rest_tokens, mut provider_tokens) = (0u64, 0u64, 0u64);
    for (name, paths) in [("Cjk", &cjk), ("Hangul", &hangul)] {
        for chunk in measure(load(paths, 3000)) {
            let part = chunk.split.cjk + chunk.split.hangul;
            cjk_tokens += part;
            rest_tokens += chunk.o200k - part;
            provider_tokens += chunk.provider;
        }
        println!(
            "{name} part: {:.3} ({cjk_tokens} o200k tokens beside {rest_tokens} others)",
            (provider_tokens - rest_tokens) as f64 / cjk_tokens.max(1) as f64
        );
        (cjk_tokens, rest_tokens, provider_tokens) = (0, 0, 0);
    }
    for class in CONTENT_CLASSES {
        let (o200k, cl100k) = totals[class as usize];
        println!(
            "{class:?}: cl100k/o200k = {:.3} ({o200k} o200k tokens)",
            cl100k as f64 / o200k.max(1) as f64
        );
    }
}
