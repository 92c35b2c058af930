//! Measures what the folded context spends its characters on over a real repository checkout:
//! files, outline characters by category (tests, definitions, data), files with an empty
//! outline that define something, non-test definition recall against the grammar's own
//! top-level declarations, and diagnostics. Nothing is fetched: it reads the path it is given.
//!
//! ```sh
//! cargo run --release -p roo-context-fold --example fold_report -- /path/to/checkout
//! ```
//!
//! Each file is folded alone with an unlimited budget, as an unedited read file (so test files
//! get the summary form). Uses only API that predates issue 17, so the same file runs against
//! an older checkout of the crate for before/after figures (BENCHMARKS.md).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use roo_context_fold::{
    DefinitionKind, FoldContent, FoldInput, FoldOptions, Language, OutlineOptions,
    folded_file_context_with, outline,
};

/// Folders that hold generated or vendored code, not the repository's own.
const SKIPPED_FOLDERS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "dist",
    "build",
    "out",
    "vendor",
    ".next",
    "coverage",
    ".turbo",
];

/// Definitions shorter than this never appear in an outline (the original's minimum).
const MIN_LINES: usize = 4;

fn main() {
    let Some(root) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fold_report <repository checkout>");
        std::process::exit(2);
    };
    let files = walk(&root);
    let mut report = Report::default();
    for path in &files {
        report.file(&root, path);
    }
    report.print(&root);
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            if kind.is_dir() && !SKIPPED_FOLDERS.contains(&name.as_str()) {
                stack.push(path);
            } else if kind.is_file() && Language::from_path(&name).is_some() {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Test file by name, the same rule as the fold crate's (kept here so this file also runs
/// against versions of the crate without it).
fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut parts: Vec<&str> = lower.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
    let Some(file) = parts.pop() else {
        return false;
    };
    if parts
        .iter()
        .any(|f| matches!(*f, "__tests__" | "__mocks__" | "tests" | "test" | "spec"))
    {
        return true;
    }
    let pieces: Vec<&str> = file.split('.').collect();
    if pieces.len() >= 3
        && pieces[1..pieces.len() - 1]
            .iter()
            .any(|p| matches!(*p, "test" | "spec" | "tests" | "e2e"))
    {
        return true;
    }
    let stem = pieces[0];
    match pieces.last().copied().unwrap_or("") {
        "go" => stem.ends_with("_test"),
        "py" | "pyi" => stem.starts_with("test_") || stem.ends_with("_test"),
        "rb" => stem.ends_with("_spec") || stem.ends_with("_test"),
        _ => false,
    }
}

#[derive(Default)]
struct Category {
    lines: usize,
    chars: usize,
}

#[derive(Default)]
struct Report {
    files: usize,
    by_language: BTreeMap<&'static str, usize>,
    tests: Category,
    definitions: Category,
    data: Category,
    empty_but_defining: Vec<String>,
    /// Top-level declarations of at least four lines in non-test files, per the grammar.
    declarations: usize,
    /// Those whose first line starts an outline line.
    declarations_found: usize,
    diagnostics: BTreeMap<String, usize>,
    /// Test characters per file (`FOLD_REPORT_TOP=N` prints the N largest).
    test_chars_by_file: Vec<(usize, String)>,
    diagnostic_examples: BTreeMap<String, Vec<String>>,
}

impl Report {
    fn file(&mut self, root: &Path, path: &Path) {
        let Ok(bytes) = std::fs::read(path) else {
            return;
        };
        let relative = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let Some(language) = Language::from_path(&relative) else {
            return;
        };
        self.files += 1;
        *self.by_language.entry(language.name()).or_default() += 1;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let folded = folded_file_context_with(
            &[FoldInput {
                display_path: relative.clone(),
                content: FoldContent::Bytes(bytes),
            }],
            &FoldOptions {
                max_chars: usize::MAX,
                ..FoldOptions::default()
            },
            None,
        );
        for diagnostic in &folded.diagnostics {
            let kind = format!("{:?}", diagnostic.kind);
            *self.diagnostics.entry(kind.clone()).or_default() += 1;
            let examples = self.diagnostic_examples.entry(kind).or_default();
            if examples.len() < 5 {
                examples.push(format!("{relative}: {}", diagnostic.message));
            }
        }
        let found = outline(language, &text, &OutlineOptions::default());
        let kinds: HashMap<(usize, usize), (DefinitionKind, bool)> = found
            .definitions
            .iter()
            .map(|d| {
                let in_test_module = ancestors_named_tests(&found.definitions, d.parent);
                (
                    (d.start_line() as usize + 1, d.end_line() as usize + 1),
                    (d.kind, in_test_module),
                )
            })
            .collect();
        let test_file = is_test_path(&relative);
        let tests_before = self.tests.chars;
        let section = folded.sections.first().map(String::as_str).unwrap_or("");
        let mut outline_starts = std::collections::HashSet::new();
        for line in section.lines() {
            let Some((range, _)) = line.split_once(" | ") else {
                continue;
            };
            let Some((start, end)) = range.split_once("--") else {
                continue;
            };
            let (Ok(start), Ok(end)) = (start.parse::<usize>(), end.parse::<usize>()) else {
                continue;
            };
            outline_starts.insert(start);
            let chars = line.chars().count() + 1;
            let category = match kinds.get(&(start, end)) {
                // Summary lines (`a--b | N tests`) are no definition of the outline.
                None => &mut self.tests,
                Some(_) if line.ends_with(" tests)") || line.ends_with(" test)") => &mut self.tests,
                Some((kind, in_test_module)) => {
                    if *kind == DefinitionKind::Test || *in_test_module || test_file {
                        &mut self.tests
                    } else if matches!(
                        kind,
                        DefinitionKind::Constant
                            | DefinitionKind::Variable
                            | DefinitionKind::Field
                            | DefinitionKind::Property
                    ) {
                        &mut self.data
                    } else {
                        &mut self.definitions
                    }
                }
            };
            category.lines += 1;
            category.chars += chars;
        }
        self.test_chars_by_file
            .push((self.tests.chars - tests_before, relative.clone()));
        let declared = top_level_declarations(language, &text);
        if section.is_empty() && !declared.is_empty() {
            self.empty_but_defining.push(relative.clone());
        }
        if !test_file {
            self.declarations += declared.len();
            self.declarations_found += declared
                .iter()
                .filter(|line| outline_starts.contains(line))
                .count();
        }
    }

    fn print(&self, root: &Path) {
        let total = self.tests.chars + self.definitions.chars + self.data.chars;
        let share = |part: usize| 100.0 * part as f64 / total.max(1) as f64;
        println!("repository: {}", root.display());
        println!("files: {}", self.files);
        for (language, count) in &self.by_language {
            println!("  {language}: {count}");
        }
        println!("outline characters: {total}");
        for (name, category) in [
            ("tests", &self.tests),
            ("definitions", &self.definitions),
            ("data", &self.data),
        ] {
            println!(
                "  {name}: {} chars ({:.1}%), {} lines",
                category.chars,
                share(category.chars),
                category.lines
            );
        }
        println!(
            "non-test top-level declarations (>= {MIN_LINES} lines) found: {} of {} ({:.2}%)",
            self.declarations_found,
            self.declarations,
            100.0 * self.declarations_found as f64 / self.declarations.max(1) as f64
        );
        println!(
            "files with an empty outline that define something: {} ({:.1}%)",
            self.empty_but_defining.len(),
            100.0 * self.empty_but_defining.len() as f64 / self.files.max(1) as f64
        );
        for path in self.empty_but_defining.iter().take(10) {
            println!("  {path}");
        }
        if let Some(top) = std::env::var("FOLD_REPORT_TOP")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
        {
            let mut largest = self.test_chars_by_file.clone();
            largest.sort_by(|a, b| b.cmp(a));
            println!("largest test outlines:");
            for (chars, path) in largest.iter().take(top) {
                println!("  {chars} {path}");
            }
        }
        println!("diagnostics:");
        for (kind, count) in &self.diagnostics {
            println!("  {kind}: {count}");
            for example in &self.diagnostic_examples[kind] {
                println!("    {example}");
            }
        }
    }
}

fn ancestors_named_tests(
    definitions: &[roo_context_fold::Definition],
    mut parent: Option<usize>,
) -> bool {
    while let Some(index) = parent {
        let definition = &definitions[index];
        if definition.kind == DefinitionKind::Module
            && (definition.name == "tests" || definition.name.ends_with("_tests"))
        {
            return true;
        }
        parent = definition.parent;
    }
    false
}

/// 1-based first lines of the top-level declarations spanning at least [`MIN_LINES`] lines,
/// read from the grammar's tree directly (the oracle the outline is measured against).
fn top_level_declarations(language: Language, text: &str) -> Vec<usize> {
    let (grammar, kinds): (tree_sitter::Language, &[&str]) = match language {
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            TS_DECLARATIONS,
        ),
        Language::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), TS_DECLARATIONS),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), TS_DECLARATIONS),
        Language::Rust => (
            tree_sitter_rust::LANGUAGE.into(),
            &[
                "function_item",
                "struct_item",
                "enum_item",
                "union_item",
                "trait_item",
                "impl_item",
                "mod_item",
                "macro_definition",
                "const_item",
                "static_item",
                "type_item",
            ],
        ),
        Language::Go => (
            tree_sitter_go::LANGUAGE.into(),
            &[
                "function_declaration",
                "method_declaration",
                "type_declaration",
                "const_declaration",
                "var_declaration",
            ],
        ),
        _ => return Vec::new(),
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&grammar).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut lines = Vec::new();
    for child in root.named_children(&mut cursor) {
        // `export ...` wraps the declaration.
        let node = match child.kind() {
            "export_statement" => match child.child_by_field_name("declaration") {
                Some(declaration) => declaration,
                None => continue,
            },
            _ => child,
        };
        if !kinds.contains(&node.kind()) {
            continue;
        }
        let (start, end) = (node.start_position().row, node.end_position().row);
        if end - start + 1 >= MIN_LINES {
            lines.push(start + 1);
        }
    }
    lines
}

const TS_DECLARATIONS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "lexical_declaration",
    "variable_declaration",
    "internal_module",
];
