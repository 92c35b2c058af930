//! Bad input must give a diagnostic or a best-effort result, never a crash or a hang: deep
//! nesting, huge minified files, parse timeouts, binary and invalid UTF-8 content.

use std::time::{Duration, Instant};

use roo_context_fold::{
    FileDiagnosticKind, FoldContent, FoldInput, Language, MAX_SYMBOL_DEPTH, OutlineDiagnostic,
    OutlineOptions, document_symbols, folded_file_context, folding_ranges, outline,
};

const DEPTH: usize = 10_000;

/// `function f0() {` ... nested `DEPTH` levels, one per line, each closed on its own line.
fn deeply_nested_functions() -> String {
    let mut source = String::new();
    for level in 0..DEPTH {
        source.push_str(&format!("function f{level}() {{\n"));
    }
    for _ in 0..DEPTH {
        source.push_str("}\n");
    }
    source
}

/// Run `work` on a thread with a small (256 KiB) stack, so recursion over the tree would fail.
fn on_small_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(work)
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic")
}

#[test]
fn ten_thousand_nested_functions_outline_on_a_small_stack() {
    let source = deeply_nested_functions();
    let result = on_small_stack(move || {
        let options = OutlineOptions {
            parse_timeout: Duration::from_secs(60),
            ..OutlineOptions::default()
        };
        outline(Language::TypeScript, &source, &options)
    });
    // Every function but the innermost two spans at least 4 lines.
    assert_eq!(result.definitions.len(), DEPTH - 1);
    assert_eq!(result.definitions[0].name, "f0");
    assert_eq!(result.definitions[1].parent, Some(0));
    assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
}

#[test]
fn ten_thousand_nested_functions_give_depth_capped_symbols_and_folding_ranges() {
    let source = deeply_nested_functions();
    let (symbols, ranges) = on_small_stack(move || {
        let options = OutlineOptions {
            parse_timeout: Duration::from_secs(60),
            ..OutlineOptions::default()
        };
        (
            document_symbols(Language::TypeScript, &source, &options),
            folding_ranges(Language::TypeScript, &source, &options),
        )
    });
    let mut depth = 1;
    let mut level = &symbols.symbols;
    while let [only] = level.as_slice() {
        if only.children.is_empty() {
            break;
        }
        depth += 1;
        level = &only.children;
    }
    assert_eq!(depth, MAX_SYMBOL_DEPTH);
    assert_eq!(level.len(), DEPTH - MAX_SYMBOL_DEPTH + 1);
    // One range per function except the innermost (its body is on one line).
    assert_eq!(ranges.ranges.len(), DEPTH - 1);
}

#[test]
fn deeply_nested_brackets_in_every_language_do_not_crash() {
    let brackets = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let parens = format!("x = {}1{}\n", "(".repeat(DEPTH), ")".repeat(DEPTH));
    let cases = [
        (Language::TypeScript, format!("const a = {brackets};\n")),
        (Language::Tsx, format!("const a = {brackets};\n")),
        (Language::JavaScript, format!("const a = {brackets};\n")),
        (
            Language::Rust,
            format!(
                "const A: () = {};\n",
                parens.trim_start_matches("x = ").trim_end()
            ),
        ),
        (Language::Python, parens.clone()),
        (
            Language::Go,
            format!(
                "package main\nvar a = {}1{}\n",
                "(".repeat(DEPTH),
                ")".repeat(DEPTH)
            ),
        ),
    ];
    on_small_stack(move || {
        for (language, source) in cases {
            let result = outline(language, &source, &OutlineOptions::default());
            assert!(result.definitions.is_empty(), "{language:?}");
            let _ = folding_ranges(language, &source, &OutlineOptions::default());
            let _ = document_symbols(language, &source, &OutlineOptions::default());
        }
    });
}

/// About `bytes` of minified JavaScript on a single line.
fn minified(bytes: usize) -> String {
    let unit = "var a=function(b){return b+1},c={d:[1,2,3],e:function(){if(a){return c}}};";
    unit.repeat(bytes / unit.len() + 1)
}

#[test]
fn a_50_mb_minified_file_is_refused_quickly_by_default() {
    let source = minified(50 * 1024 * 1024);
    let started = Instant::now();
    let result = outline(Language::JavaScript, &source, &OutlineOptions::default());
    assert!(matches!(
        result.diagnostics[..],
        [OutlineDiagnostic::TooLarge { .. }]
    ));
    assert!(result.failed());
    let ranges = folding_ranges(Language::JavaScript, &source, &OutlineOptions::default());
    assert!(ranges.ranges.is_empty());
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_50_mb_minified_file_without_size_limit_stops_at_the_parse_budget() {
    let source = minified(50 * 1024 * 1024);
    let options = OutlineOptions {
        max_source_bytes: usize::MAX,
        parse_timeout: Duration::from_millis(300),
        ..OutlineOptions::default()
    };
    let started = Instant::now();
    let result = outline(Language::JavaScript, &source, &options);
    let elapsed = started.elapsed();
    assert_eq!(
        result.diagnostics,
        vec![OutlineDiagnostic::Timeout {
            budget: Duration::from_millis(300),
            during_query: false
        }]
    );
    assert!(result.definitions.is_empty());
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    // The parser is reset after a cancelled parse: the next file parses normally.
    let next = outline(
        Language::JavaScript,
        "function ok() {\n  a();\n  b();\n}\n",
        &options,
    );
    assert_eq!(next.definitions.len(), 1);
    assert!(next.diagnostics.is_empty());
}

#[test]
fn a_parse_timeout_in_folded_context_skips_the_file_with_a_diagnostic() {
    let source = minified(8 * 1024 * 1024).replace(';', ";\n");
    let inputs = [
        FoldInput {
            display_path: "big.min.js".to_owned(),
            content: FoldContent::Text(source),
        },
        FoldInput {
            display_path: "small.js".to_owned(),
            content: FoldContent::Text("function ok() {\n  a();\n  b();\n}\n".to_owned()),
        },
    ];
    let options = roo_context_fold::FoldOptions {
        outline: OutlineOptions {
            parse_timeout: Duration::from_millis(50),
            ..OutlineOptions::default()
        },
        ..roo_context_fold::FoldOptions::default()
    };
    let result = roo_context_fold::folded_file_context_with(&inputs, &options, None);
    assert_eq!(result.files_processed, 1);
    assert_eq!(result.files_skipped, 1);
    assert_eq!(result.diagnostics[0].kind, FileDiagnosticKind::ParseTimeout);
    assert!(!result.content.contains("big.min.js"));
    assert!(result.content.contains("small.js"));
}

#[test]
fn binary_and_invalid_utf8_bytes_never_crash() {
    let mut noise: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 | 0x80)
        .collect();
    noise.extend_from_slice(b"\nfunction f() {\n  a();\n  b();\n}\n");
    let with_nul = [b"function f() {}\0".as_slice(), &noise].concat();
    let result = folded_file_context(
        &[
            FoldInput {
                display_path: "noise.ts".to_owned(),
                content: FoldContent::Bytes(noise.clone()),
            },
            FoldInput {
                display_path: "binary.ts".to_owned(),
                content: FoldContent::Bytes(with_nul),
            },
            FoldInput {
                display_path: "nul.ts".to_owned(),
                content: FoldContent::Text("a\0b".to_owned()),
            },
        ],
        50_000,
    );
    let kinds: Vec<(&str, FileDiagnosticKind)> = result
        .diagnostics
        .iter()
        .map(|d| (d.display_path.as_str(), d.kind))
        .collect();
    assert!(kinds.contains(&("binary.ts", FileDiagnosticKind::Binary)));
    assert!(kinds.contains(&("nul.ts", FileDiagnosticKind::Binary)));
    assert!(kinds.contains(&("noise.ts", FileDiagnosticKind::InvalidUtf8)));
    assert!(result.content.contains("function f() {"));
    // Lossy text also outlines directly.
    let lossy = String::from_utf8_lossy(&noise).into_owned();
    for &language in Language::ALL {
        let _ = outline(language, &lossy, &OutlineOptions::default());
    }
}

#[test]
fn very_long_first_lines_are_cut() {
    let long = "x".repeat(5_000);
    let source = format!("function f() {{ /* {long} */\n  a();\n  b();\n}}\n");
    let result = outline(Language::TypeScript, &source, &OutlineOptions::default());
    let first_line = &result.definitions[0].first_line;
    assert!(first_line.ends_with(" …"));
    assert_eq!(first_line.chars().count(), 1000 + 2);
}

/// Issue 25: `/*` x 6000 then `*/` x 6000 made a tree 4,000 levels deep with a zero-width
/// `MISSING` node at the bottom; asking that node for its parent recursed in tree-sitter's C
/// code once per level and overflowed a blocking thread's stack (SIGABRT). Likewise `<%` in
/// TSX and OCaml's nested comments. Every reader, called from a small stack, must answer.
#[test]
fn nested_comment_openers_do_not_overflow_the_stack_of_any_reader() {
    let cases = [
        (Language::TypeScript, "/*".repeat(6000) + &"*/".repeat(6000)),
        (Language::Tsx, "<%".repeat(6000) + &"%>".repeat(6000)),
        (
            Language::from_extension("ml").expect("OCaml"),
            "(*".repeat(6000) + &"*)".repeat(6000),
        ),
    ];
    for (language, source) in cases {
        let (outlined, ranges, symbols) = on_small_stack(move || {
            let options = OutlineOptions {
                parse_timeout: Duration::from_secs(120),
                ..OutlineOptions::default()
            };
            (
                outline(language, &source, &options),
                folding_ranges(language, &source, &options),
                document_symbols(language, &source, &options),
            )
        });
        assert!(
            !outlined.failed(),
            "{language:?}: {:?}",
            outlined.diagnostics
        );
        assert!(
            ranges.diagnostics.iter().all(|d| !d.is_fatal()),
            "{language:?}"
        );
        assert!(
            symbols.diagnostics.iter().all(|d| !d.is_fatal()),
            "{language:?}"
        );
    }
}

/// Brackets nested deeper than `max_nesting` are not handed to a grammar (a scanner that
/// recurses per level could outrun any stack): every reader reports it.
#[test]
fn brackets_nested_past_the_limit_are_refused_with_a_diagnostic() {
    let source = format!("x = {}1{}\n", "(".repeat(2_001), ")".repeat(2_001));
    let options = OutlineOptions {
        max_nesting: 2_000,
        ..OutlineOptions::default()
    };
    let expected = OutlineDiagnostic::TooDeep { limit: 2_000 };
    let outlined = outline(Language::Python, &source, &options);
    assert_eq!(outlined.diagnostics, vec![expected.clone()]);
    assert!(outlined.failed());
    assert_eq!(
        folding_ranges(Language::Python, &source, &options).diagnostics,
        vec![expected.clone()]
    );
    assert_eq!(
        document_symbols(Language::Python, &source, &options).diagnostics,
        vec![expected]
    );
    // At the limit it parses.
    let at_limit = format!("x = {}1{}\n", "(".repeat(2_000), ")".repeat(2_000));
    assert!(!outline(Language::Python, &at_limit, &options).failed());
}

/// Issue 25, class 3: 4 MB of Markdown headers made a million symbols (3.6 KB each in the
/// answer). Symbols, folding ranges and outline definitions stop at `max_results`, the first in
/// source order, with a diagnostic saying so.
#[test]
fn symbols_folding_ranges_and_outlines_are_capped_with_a_truncated_diagnostic() {
    let markdown = "# header\ntext\n\n\n".repeat(1_000);
    let typescript = "function f() {\n  a();\n  b();\n}\n".repeat(1_000);
    let options = OutlineOptions {
        max_results: 100,
        parse_timeout: Duration::from_secs(120),
        ..OutlineOptions::default()
    };
    let truncated = vec![OutlineDiagnostic::Truncated { kept: 100 }];
    for (language, source) in [
        (Language::Markdown, &markdown),
        (Language::TypeScript, &typescript),
    ] {
        let symbols = document_symbols(language, source, &options);
        assert_eq!(symbols.symbols.len(), 100, "{language:?}");
        assert_eq!(symbols.symbols[0].range.start.line, 0);
        assert_eq!(symbols.diagnostics, truncated, "{language:?}");
        let ranges = folding_ranges(language, source, &options);
        assert_eq!(ranges.ranges.len(), 100, "{language:?}");
        assert_eq!(ranges.diagnostics, truncated, "{language:?}");
        let outlined = outline(language, source, &options);
        assert_eq!(outlined.definitions.len(), 100, "{language:?}");
        assert_eq!(outlined.diagnostics, truncated, "{language:?}");
    }
    // Under the cap nothing is said.
    let few = document_symbols(Language::Markdown, &"# h\n".repeat(50), &options);
    assert_eq!(few.symbols.len(), 50);
    assert!(few.diagnostics.is_empty());
}
