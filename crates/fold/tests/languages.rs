//! One snapshot per language fixture (`tests/fixtures/*`, written for this project): its outline,
//! folding ranges and document symbols, so a reviewer reads what a user would see. The same
//! fixtures, rewritten with CRLF line ends and with a byte-order mark, must give the same answers.
//!
//! `UPDATE_EXPECT=1 cargo test -p roo-context-fold --test languages` rewrites the snapshots.

use std::path::{Path, PathBuf};

use expect_test::ExpectFile;
use roo_context_fold::{
    DocumentSymbol, Language, OutlineDiagnostic, OutlineOptions, document_symbols, folding_ranges,
    outline,
};

fn fixtures() -> Vec<(PathBuf, Language, String)> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found: Vec<(PathBuf, Language, String)> = std::fs::read_dir(&directory)
        .expect("tests/fixtures exists")
        .map(|entry| entry.expect("readable fixture directory").path())
        .filter_map(|path| {
            // A fixture whose grammar group is switched off (cargo feature) is not checked.
            let language = Language::from_path(&path.to_string_lossy())?;
            let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
            Some((path, language, text))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Outline text, then folding ranges (`start..end Kind | first line`), then the symbol tree
/// (`kind name [start..end] @name-line:column`), then diagnostics. Lines are 1-based.
fn render(language: Language, source: &str) -> String {
    let options = OutlineOptions::default();
    let lines: Vec<&str> = source.lines().collect();
    let mut rendered = format!("language: {}\n\n## outline\n", language.name());
    let result = outline(language, source, &options);
    rendered.push_str(&result.to_text());

    rendered.push_str("\n## folding ranges\n");
    let folds = folding_ranges(language, source, &options);
    for range in &folds.ranges {
        rendered.push_str(&format!(
            "{}..{} {:?} | {}\n",
            range.start_line + 1,
            range.end_line + 1,
            range.kind,
            lines[range.start_line as usize].trim_end_matches('\r')
        ));
    }

    rendered.push_str("\n## symbols\n");
    let symbols = document_symbols(language, source, &options);
    let mut stack: Vec<(&DocumentSymbol, usize)> = symbols
        .symbols
        .iter()
        .rev()
        .map(|symbol| (symbol, 0))
        .collect();
    while let Some((symbol, depth)) = stack.pop() {
        rendered.push_str(&format!(
            "{}{} {} [{}..{}] @{}:{}\n",
            "  ".repeat(depth),
            symbol.kind.as_str(),
            symbol.name,
            symbol.range.start.line + 1,
            symbol.range.end.line + 1,
            symbol.selection_range.start.line + 1,
            symbol.selection_range.start.column,
        ));
        stack.extend(symbol.children.iter().rev().map(|child| (child, depth + 1)));
    }
    let diagnostics: Vec<&OutlineDiagnostic> = result
        .diagnostics
        .iter()
        .chain(&folds.diagnostics)
        .chain(&symbols.diagnostics)
        .collect();
    if !diagnostics.is_empty() {
        rendered.push_str("\n## diagnostics\n");
        for diagnostic in diagnostics {
            rendered.push_str(&format!("{diagnostic}\n"));
        }
    }
    rendered
}

#[test]
fn every_fixture_matches_its_snapshot() {
    let fixtures = fixtures();
    if cfg!(all(feature = "mainstream", feature = "extra")) {
        assert!(fixtures.len() >= 14, "fixtures found: {}", fixtures.len());
    }
    for (path, language, text) in fixtures {
        let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
        let snapshot = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/snapshots")
            .join(format!("{file_name}.txt"));
        ExpectFile {
            path: snapshot,
            position: file!(),
        }
        .assert_eq(&render(language, &text));
    }
}

#[test]
fn every_language_with_a_grammar_has_a_fixture_with_definitions() {
    let fixtures = fixtures();
    let originals = [
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Rust,
        Language::Python,
        Language::Go,
        Language::Markdown,
    ];
    for &language in Language::ALL {
        if originals.contains(&language) {
            // Covered by the inline snapshots in tests/outline.rs and tests/symbols.rs.
            continue;
        }
        let fixture = fixtures
            .iter()
            .find(|(_, fixture_language, _)| *fixture_language == language)
            .unwrap_or_else(|| panic!("{} has no fixture", language.name()));
        let lines = fixture.2.lines().count();
        assert!(
            (80..=200).contains(&lines),
            "{}: {lines} lines",
            fixture.0.display()
        );
        let result = outline(language, &fixture.2, &OutlineOptions::default());
        assert!(
            result.definitions.len() >= 5,
            "{}: {:?}",
            language.name(),
            result.definitions
        );
        assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
    }
}

/// Everything a user sees, minus columns: columns on the first line shift by the mark's bytes.
fn lines_and_names(language: Language, source: &str) -> String {
    let options = OutlineOptions::default();
    let mut rendered = outline(language, source, &options).to_text();
    for range in folding_ranges(language, source, &options).ranges {
        rendered.push_str(&format!("{range:?}\n"));
    }
    let symbols = document_symbols(language, source, &options);
    let mut stack: Vec<&DocumentSymbol> = symbols.symbols.iter().collect();
    while let Some(symbol) = stack.pop() {
        rendered.push_str(&format!(
            "{:?} {} {}..{}\n",
            symbol.kind, symbol.name, symbol.range.start.line, symbol.range.end.line
        ));
        stack.extend(&symbol.children);
    }
    for diagnostic in symbols.diagnostics {
        rendered.push_str(&format!("{diagnostic}\n"));
    }
    rendered
}

#[test]
fn crlf_fixtures_give_the_same_outline_folds_and_symbols() {
    for (path, language, text) in fixtures() {
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(
            lines_and_names(language, &crlf),
            lines_and_names(language, &text),
            "{}",
            path.display()
        );
        let outline_text = outline(language, &crlf, &OutlineOptions::default()).to_text();
        assert!(!outline_text.contains('\r'), "{}", path.display());
    }
}

#[test]
fn fixtures_with_a_byte_order_mark_give_the_same_outline_folds_and_symbols() {
    for (path, language, text) in fixtures() {
        let with_mark = format!("\u{feff}{text}");
        assert_eq!(
            lines_and_names(language, &with_mark),
            lines_and_names(language, &text),
            "{}",
            path.display()
        );
    }
}

#[test]
fn decorated_typescript_classes_and_methods_start_at_the_declaration() {
    let source = "@Injectable({\n  providedIn: \"root\",\n})\nclass Store {\n  @Memoize()\n  @Log\n  total(items: number[]): number {\n    let sum = 0;\n    for (const item of items) sum += item;\n    return sum;\n  }\n}\n";
    let result = outline(Language::TypeScript, source, &OutlineOptions::default());
    assert_eq!(
        result.to_text(),
        "4--12 | class Store {\n7--11 |   total(items: number[]): number {\n"
    );
}

/// A definition on the first line of a file with a byte-order mark: the mark leaked into the
/// outline line (found with TLA+, whose module header is line 1).
#[test]
fn a_byte_order_mark_is_not_part_of_a_first_line_definition() {
    let source = "\u{feff}class Store {\n  total(): number {\n    return 0;\n  }\n}\n";
    let result = outline(Language::TypeScript, source, &OutlineOptions::default());
    assert_eq!(result.to_text(), "1--5 | class Store {\n");
}

#[test]
fn a_one_line_c_macro_neither_folds_nor_spans_the_next_line() {
    #[cfg(feature = "mainstream")]
    {
        let source = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint x;\n";
        let symbols = document_symbols(Language::C, source, &OutlineOptions::default());
        assert_eq!(symbols.symbols[0].range.end.line, 0);
        assert_eq!(symbols.symbols[0].range.end.column, 41);
        let folds = folding_ranges(Language::C, source, &OutlineOptions::default());
        assert_eq!(folds.ranges, []);
    }
}

#[test]
fn degenerate_inputs_never_panic_in_any_language() {
    let deep_brackets = format!("{}{}", "{[(".repeat(100), ")]}".repeat(100));
    let deep_tags = format!("{}{}", "<div>\n".repeat(100), "</div>\n".repeat(100));
    let inputs = [
        String::new(),
        "\u{feff}".to_owned(),
        "\r\n\r\n".to_owned(),
        "\n".repeat(1_000),
        deep_brackets,
        deep_tags,
        "end\nfi\ndone\n}\n".to_owned(),
    ];
    let options = OutlineOptions::default();
    for &language in Language::ALL {
        for input in &inputs {
            let result = outline(language, input, &options);
            for definition in &result.definitions {
                assert!(definition.range.start_byte <= definition.range.end_byte);
                assert!(definition.range.end_byte <= input.len());
            }
            for range in folding_ranges(language, input, &options).ranges {
                assert!(range.start_line < range.end_line, "{}", language.name());
            }
            let _ = document_symbols(language, input, &options);
        }
    }
}

/// Grammar scanners are C code: tree-sitter-bash 0.25.1 crashed the whole process (SIGSEGV) on
/// `{` followed by a plane-14 character. Every language gets every ASCII byte followed by
/// characters from every plane (and on their own), in files of one line and inside a
/// definition; the test process itself is what would die.
#[test]
fn any_code_point_after_any_ascii_byte_never_crashes_a_grammar() {
    let samples = [
        '\u{80}',
        '\u{a0}',
        '\u{e9}',
        '\u{2028}',
        '\u{3000}',
        '\u{feff}',
        '\u{fffd}',
        '\u{10000}',
        '\u{1f600}',
        '\u{20000}',
        '\u{e0000}',
        '\u{e011f}',
        '\u{e01ef}',
        '\u{f0000}',
        '\u{10ffff}',
    ];
    let options = OutlineOptions::default();
    for &language in Language::ALL {
        for ascii in (0x20u8..0x7f).map(char::from).chain(['\n', '\t']) {
            let mut text = String::new();
            for sample in samples {
                text.push(ascii);
                text.push(sample);
                text.push(' ');
            }
            let wrapped = format!("{text}\nfunction f {{\n{text}\n}}\nclass C {{ {text} }}\n");
            for input in [&text, &wrapped] {
                let result = outline(language, input, &options);
                for definition in &result.definitions {
                    assert!(definition.range.end_byte <= input.len());
                    assert!(input.is_char_boundary(definition.range.start_byte));
                    assert!(input.is_char_boundary(definition.range.end_byte));
                }
                let _ = folding_ranges(language, input, &options);
                let _ = document_symbols(language, input, &options);
            }
        }
    }
}

/// Found by the roo-family differential suite (the original's Solidity and Emacs Lisp fixtures):
/// multi-line events and custom errors, and `defadvice`, are definitions the original lists.
#[test]
fn solidity_events_and_errors_and_elisp_advice_are_definitions() {
    #[cfg(feature = "more")]
    {
        let source = "contract Token {\n    event Transfer(\n        address indexed from,\n        address indexed to,\n        uint256 value\n    );\n    error InsufficientBalance(\n        uint256 available,\n        uint256 required\n    );\n}\n";
        let result = outline(Language::Solidity, source, &OutlineOptions::default());
        assert_eq!(
            result.to_text(),
            "1--11 | contract Token {\n2--6 |     event Transfer(\n7--10 |     error InsufficientBalance(\n"
        );
    }
    #[cfg(feature = "rare")]
    {
        let source = "(defadvice save-buffer (around quiet-save)\n  \"Save quietly.\"\n  (let ((inhibit-message t))\n    ad-do-it))\n";
        let result = outline(Language::Elisp, source, &OutlineOptions::default());
        assert_eq!(
            result.to_text(),
            "1--4 | (defadvice save-buffer (around quiet-save)\n"
        );
    }
}

/// Found by the roo-family differential suite (the original's Python and Java fixtures): a named
/// multi-line lambda is a function, a `module-info.java` declaration a module.
#[test]
fn python_named_lambdas_and_java_modules_are_definitions() {
    #[cfg(feature = "mainstream")]
    {
        let source = "square = (\n    lambda x:\n    x * x\n)\n\nnot_a_function = (\n    1 +\n    2 +\n    3\n)\n";
        let result = outline(Language::Python, source, &OutlineOptions::default());
        assert_eq!(result.to_text(), "1--4 | square = (\n");
        let source =
            "module com.example.app {\n    requires java.sql;\n    exports com.example.api;\n}\n";
        let result = outline(Language::Java, source, &OutlineOptions::default());
        assert_eq!(result.to_text(), "1--4 | module com.example.app {\n");
    }
}
