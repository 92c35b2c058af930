//! Data-driven tests of the folded context's priority order and test summaries: each
//! `tests/informs/scenarios/*.scenario` names the files read (most recent first), the files
//! edited (most recent first) and a budget over the realistic fixtures in
//! `tests/informs/workspace`; the folded context is compared with
//! `tests/informs/snapshots/<scenario>.txt`.
//! `UPDATE_EXPECT=1 cargo test -p roo-context-fold --test informs` rewrites the snapshots.

use std::path::{Path, PathBuf};

use expect_test::ExpectFile;
use roo_context_fold::{
    FoldContent, FoldInput, FoldOptions, context_paths, folded_file_context_with,
};

struct Scenario {
    budget: usize,
    read: Vec<String>,
    edited: Vec<String>,
}

fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

fn parse_scenario(text: &str) -> Scenario {
    let mut scenario = Scenario {
        budget: 0,
        read: Vec::new(),
        edited: Vec::new(),
    };
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (key, value) = line.split_once(':').expect("`key: value` lines");
        match key.trim() {
            "budget" => scenario.budget = value.trim().parse().expect("a number"),
            "read" => scenario.read = list(value),
            "edited" => scenario.edited = list(value),
            other => panic!("unknown key {other}"),
        }
    }
    scenario
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/informs")
}

fn run(scenario: &Scenario) -> String {
    let inputs: Vec<FoldInput> = context_paths(&scenario.read, &scenario.edited)
        .into_iter()
        .map(|path| FoldInput {
            content: FoldContent::Text(
                std::fs::read_to_string(root().join("workspace").join(&path))
                    .expect("fixture is readable"),
            ),
            display_path: path,
        })
        .collect();
    let options = FoldOptions {
        max_chars: scenario.budget,
        edited_paths: scenario.edited.clone(),
        ..FoldOptions::default()
    };
    let result = folded_file_context_with(&inputs, &options, None);
    let mut rendered = format!(
        "processed={} skipped={} chars={} (budget {})\n",
        result.files_processed, result.files_skipped, result.character_count, scenario.budget
    );
    for diagnostic in &result.diagnostics {
        rendered.push_str(&format!(
            "! {} {:?} included={} {}\n",
            diagnostic.display_path, diagnostic.kind, diagnostic.included, diagnostic.message
        ));
    }
    rendered.push_str("===\n");
    rendered.push_str(&result.content);
    rendered.push('\n');
    rendered
}

#[test]
fn every_scenario_matches_its_snapshot() {
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .expect("scenarios folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "scenario"))
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 4, "scenarios found: {}", scenarios.len());
    for path in scenarios {
        let scenario = parse_scenario(&std::fs::read_to_string(&path).expect("readable"));
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        ExpectFile {
            path: root().join("snapshots").join(format!("{stem}.txt")),
            position: file!(),
        }
        .assert_eq(&run(&scenario));
    }
}

// ---- Attacks on the summaries, the data definitions and the priority order ----

use roo_context_fold::{
    DefinitionKind, FileDiagnosticKind, Language, OutlineDiagnostic, OutlineOptions,
    SMALL_TEST_FILE_CASES, outline,
};

fn text_input(path: &str, text: &str) -> FoldInput {
    FoldInput {
        display_path: path.to_owned(),
        content: FoldContent::Text(text.to_owned()),
    }
}

fn fold(inputs: &[FoldInput], edited: &[&str], budget: usize) -> roo_context_fold::FoldedContext {
    let options = FoldOptions {
        max_chars: budget,
        // Huge generated files parse slowly in unoptimised test builds: no time limit here.
        outline: OutlineOptions {
            parse_timeout: std::time::Duration::from_secs(600),
            ..OutlineOptions::default()
        },
        edited_paths: edited.iter().map(|p| (*p).to_owned()).collect(),
        ..FoldOptions::default()
    };
    folded_file_context_with(inputs, &options, None)
}

/// `it(...)` blocks of four lines each.
fn its(count: usize, indent: &str) -> String {
    (0..count)
        .map(|i| format!("{indent}it(\"case {i}\", () => {{\n{indent}  const v = {i};\n{indent}  expect(v).toBe({i});\n{indent}}});\n"))
        .collect()
}

#[test]
fn a_describe_with_ten_thousand_its_is_one_line_with_its_count() {
    let spec = format!("describe(\"huge\", () => {{\n{}}});\n", its(10_000, "  "));
    let result = fold(&[text_input("huge.spec.ts", &spec)], &[], 50_000);
    assert_eq!(result.sections.len(), 1, "{:?}", result.diagnostics);
    let section = &result.sections[0];
    assert!(
        section.contains("1--40002 | describe(\"huge\", () => { (10000 tests)"),
        "{section}"
    );
    assert_eq!(section.lines().count(), 6, "{section}");
}

#[test]
fn an_edited_spec_lists_every_test() {
    let spec = format!("describe(\"huge\", () => {{\n{}}});\n", its(20, "  "));
    let result = fold(&[text_input("a.spec.ts", &spec)], &["a.spec.ts"], 50_000);
    assert_eq!(result.sections[0].matches("  it(\"case").count(), 20);
    // Not edited and over the small-file limit: summarised.
    let result = fold(&[text_input("a.spec.ts", &spec)], &[], 50_000);
    assert_eq!(result.sections[0].matches("  it(\"case").count(), 0);
    assert!(result.sections[0].contains("(20 tests)"));
}

#[test]
fn a_small_spec_is_listed_in_full_without_its_helpers() {
    let helper = "const mockProvider = {\n  a: 1,\n  b: 2,\n};\n";
    let small = its(SMALL_TEST_FILE_CASES, "  ");
    let spec = format!("{helper}describe(\"small\", () => {{\n{small}}});\n");
    let result = fold(&[text_input("a.spec.ts", &spec)], &[], 50_000);
    let section = &result.sections[0];
    assert_eq!(
        section.matches("  it(\"case").count(),
        SMALL_TEST_FILE_CASES
    );
    assert!(!section.contains("mockProvider"), "{section}");
    // One more test and it is summarised.
    let more = its(SMALL_TEST_FILE_CASES + 1, "  ");
    let spec = format!("describe(\"small\", () => {{\n{more}}});\n");
    let result = fold(&[text_input("a.spec.ts", &spec)], &[], 50_000);
    assert_eq!(result.sections[0].matches("  it(\"case").count(), 0);
    // A file named as a test that holds no test (a mock module) keeps its definitions.
    let result = fold(
        &[text_input("src/__mocks__/vscode.ts", helper)],
        &[],
        50_000,
    );
    assert!(result.sections[0].contains("mockProvider"));
}

#[test]
fn short_tests_count_in_the_summary_although_they_are_too_short_to_list() {
    let short: String = (0..12)
        .map(|i| format!("  it(\"s{i}\", () => {{\n    ok();\n  }});\n"))
        .collect();
    let spec =
        format!("describe(\"short\", () => {{\n{short}}});\ntest(\"a\", () => {{\n  ok();\n}});\n");
    let result = fold(&[text_input("short.test.ts", &spec)], &[], 50_000);
    let section = &result.sections[0];
    assert!(
        section.contains("describe(\"short\", () => { (12 tests)"),
        "{section}"
    );
    assert!(section.contains("| 1 test\n"), "{section}");
}

#[test]
fn template_computed_and_each_names_are_tests() {
    let body = "() => {\n    const v = 1;\n    expect(v).toBe(1);\n  }";
    let spec = format!(
        "describe.each([1, 2])(\"table %i\", (n) => {{\n  it(`template ${{n}}`, {body});\n  it(cases[0].title, {body});\n  it(name, {body});\n  it.only(\"only\", {body});\n  test.concurrent(\"conc\", {body});\n  it.each([1])(\"each %i\", {body});\n}});\n"
    );
    let found = outline(Language::TypeScript, &spec, &OutlineOptions::default());
    let tests = found
        .definitions
        .iter()
        .filter(|d| d.kind == DefinitionKind::Test)
        .count();
    assert_eq!(tests, 7, "{}", found.to_text());
}

#[test]
fn a_describe_nested_a_thousand_deep_is_summarised_without_recursion() {
    let depth = 1000;
    let mut spec = String::new();
    for level in 0..depth {
        spec.push_str(&format!("describe(\"level {level}\", () => {{\n"));
    }
    spec.push_str(&its(9, ""));
    for _ in 0..depth {
        spec.push_str("});\n");
    }
    let result = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || fold(&[text_input("deep.spec.ts", &spec)], &[], usize::MAX))
        .expect("thread")
        .join()
        .expect("no stack overflow");
    let section = &result.sections[0];
    // The outermost group holds the nine tests; nothing inside it is listed.
    assert!(
        section.contains("1--2036 | describe(\"level 0\", () => { (9 tests)"),
        "{section}"
    );
    assert_eq!(section.lines().count(), 6, "{section}");
    // Edited, every level and every test is listed, still without recursion.
    let spec_again = (0..depth)
        .map(|level| format!("describe(\"level {level}\", () => {{\n"))
        .collect::<String>()
        + &its(9, "")
        + &"});\n".repeat(depth);
    let edited = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            fold(
                &[text_input("deep.spec.ts", &spec_again)],
                &["deep.spec.ts"],
                usize::MAX,
            )
        })
        .expect("thread")
        .join()
        .expect("no stack overflow");
    assert_eq!(
        edited.sections[0].matches("describe(\"level").count(),
        depth
    );
}

#[test]
fn test_files_by_name_and_by_content_come_after_implementation() {
    let tests_by_content = format!("describe(\"x\", () => {{\n{}}});\n", its(9, "  "));
    let implementation = "export function f() {\n  const a = 1;\n  return a;\n}\n";
    let result = fold(
        &[
            text_input("src/a.spec.tsx", implementation),
            text_input("src/helpers.ts", &tests_by_content),
            text_input("src/impl.ts", implementation),
        ],
        &[],
        50_000,
    );
    let order: Vec<&str> = result
        .sections
        .iter()
        .map(|s| s.lines().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        order,
        [
            "## File Context: src/impl.ts",
            "## File Context: src/a.spec.tsx",
            "## File Context: src/helpers.ts"
        ]
    );
    // A spec by content is summarised; a file named as a test without tests is listed as is.
    assert!(result.sections[2].contains("(9 tests)"));
    assert!(result.sections[1].contains("export function f()"));
}

#[test]
fn edited_files_come_first_most_recent_edit_first() {
    let implementation = "export function f() {\n  const a = 1;\n  return a;\n}\n";
    let inputs = [
        text_input("read1.ts", implementation),
        text_input("edited_old.ts", implementation),
        text_input("read2.test.ts", implementation),
        text_input("edited_new.test.ts", implementation),
        text_input("edited_new.ts", implementation),
        text_input("read3.ts", implementation),
    ];
    let result = fold(
        &inputs,
        &["edited_new.ts", "edited_new.test.ts", "edited_old.ts"],
        50_000,
    );
    let order: Vec<&str> = result
        .sections
        .iter()
        .map(|s| {
            s.lines()
                .nth(1)
                .unwrap_or("")
                .trim_start_matches("## File Context: ")
        })
        .collect();
    assert_eq!(
        order,
        [
            "edited_new.ts",
            "edited_old.ts",
            "edited_new.test.ts",
            "read1.ts",
            "read3.ts",
            "read2.test.ts"
        ]
    );
    // The original order without priorities.
    let options = FoldOptions {
        prioritize: false,
        ..FoldOptions::default()
    };
    let plain = folded_file_context_with(&inputs, &options, None);
    assert!(plain.sections[0].contains("read1.ts"));
}

#[test]
fn a_go_const_block_with_iota_and_a_thousand_names_stays_within_the_line_cap() {
    let names: String = (0..1000).map(|i| format!("\tName{i}\n")).collect();
    let source = format!("package p\n\nconst (\n\tFirst Kind = iota\n{names})\n");
    let found = outline(Language::Go, &source, &OutlineOptions::default());
    let line = &found.definitions[0].first_line;
    assert!(line.starts_with("const ( First, Name0, Name1,"), "{line}");
    assert!(line.ends_with(", …+986 )") || line.contains("…+"), "{line}");
    assert!(line.chars().count() <= 140, "{line}");
    // A block of one line per name in a var group too.
    let source = "package p\n\nvar (\n\tx = 1\n\ty, z = 2, 3\n)\n";
    let found = outline(Language::Go, source, &OutlineOptions::default());
    assert_eq!(found.definitions.len(), 1, "{:?}", found);
    assert_eq!(found.definitions[0].first_line, "var ( x, y, z )");
}

#[test]
fn values_that_are_not_functions_are_never_labelled_as_functions() {
    let source = "export function View() {\n  const lines = useMemo(\n    () => compute(),\n    [],\n  );\n  const rows = Array.from(\n    { length: 3 },\n    (_, i) => i,\n  );\n  return lines;\n}\n\nconst timer = setTimeout(\n  () => {\n    tick();\n  },\n  5,\n);\n\nexport const Button = React.memo((props: Props) => {\n  const a = 1;\n  return a;\n});\n";
    for language in [Language::TypeScript, Language::Tsx, Language::JavaScript] {
        let source = if language == Language::JavaScript {
            source.replace("(props: Props)", "(props)")
        } else {
            source.to_owned()
        };
        let found = outline(language, &source, &OutlineOptions::default());
        let kinds: Vec<(String, DefinitionKind)> = found
            .definitions
            .iter()
            .map(|d| (d.name.clone(), d.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("View".to_owned(), DefinitionKind::Function),
                ("timer".to_owned(), DefinitionKind::Constant),
                ("Button".to_owned(), DefinitionKind::Function)
            ],
            "{language:?}"
        );
    }
}

#[test]
fn grammar_limitations_are_reported_where_they_are() {
    let source = "export function platform(): typeof import(\"os\") {\n  const a = 1;\n  return a;\n}\n\nexport async function load(): Promise<import(\"x\").T[]> {\n  const b = 2;\n  return [];\n}\n";
    let found = outline(Language::TypeScript, source, &OutlineOptions::default());
    assert_eq!(found.definitions.len(), 2);
    match &found.diagnostics[..] {
        [OutlineDiagnostic::GrammarLimitation { line, .. }] => assert_eq!(*line, 5),
        other => panic!("{other:?}"),
    }
    let jsx = "export function Link() {\n  const q = 1;\n  return <a href=\"https://x.com/?a=1&name=foo\">x</a>;\n}\n";
    let found = outline(Language::Tsx, jsx, &OutlineOptions::default());
    match &found.diagnostics[..] {
        [OutlineDiagnostic::GrammarLimitation { line, construct }] => {
            assert_eq!(line, &2);
            assert!(construct.contains("JSX"));
        }
        other => panic!("{other:?}"),
    }
    let result = fold(&[text_input("link.tsx", jsx)], &[], 50_000);
    assert_eq!(
        result.diagnostics[0].kind,
        FileDiagnosticKind::GrammarLimitation
    );
    assert!(
        result.diagnostics[0].message.contains("line 3"),
        "{}",
        result.diagnostics[0].message
    );
}

#[test]
fn import_types_in_call_type_arguments_and_bare_ampersands_in_jsx_text_are_limitations() {
    let mock = "vi.mock(\"os\", async (importOriginal) => {\n  const actual = await importOriginal<typeof import(\"os\")>()\n  return actual\n})\n";
    let found = outline(Language::TypeScript, mock, &OutlineOptions::default());
    assert!(
        matches!(
            found.diagnostics[..],
            [OutlineDiagnostic::GrammarLimitation { line: 1, .. }]
        ),
        "{:?}",
        found.diagnostics
    );
    let annotation = "export interface Collection {\n  name: string\n  set(uri: Uri, diagnostics: import(\"./a.js\").Diagnostic[] | undefined): void\n  clear(): void\n}\n";
    let found = outline(Language::TypeScript, annotation, &OutlineOptions::default());
    assert!(
        matches!(
            found.diagnostics[..],
            [OutlineDiagnostic::GrammarLimitation { line: 2, .. }]
        ),
        "{:?}",
        found.diagnostics
    );
    // The cascade after a limitation in a `vi.mock(...)` call reaches past its block.
    let cascade = format!(
        "{mock}\ndescribe(\"x\", () => {{\n  it(\"y\", () => {{\n    ok();\n  }});\n}});\n"
    );
    let found = outline(Language::TypeScript, &cascade, &OutlineOptions::default());
    assert!(
        matches!(
            found.diagnostics[..],
            [] | [OutlineDiagnostic::GrammarLimitation { line: 1, .. }]
        ),
        "{:?}",
        found.diagnostics
    );
    let page = "export function Page() {\n  return (\n    <td>\n      Prompts, Snippets & Token Counts, \u{e9}t\u{e9} &\n    </td>\n  );\n}\n";
    let found = outline(Language::Tsx, page, &OutlineOptions::default());
    assert!(
        matches!(
            found.diagnostics[..],
            [OutlineDiagnostic::GrammarLimitation { line: 3, .. }]
        ),
        "{:?}",
        found.diagnostics
    );
}

#[test]
fn a_real_syntax_error_is_not_a_grammar_limitation_and_not_put_on_line_one() {
    let source = "export function ok() {\n  const a = 1;\n  return a;\n}\n\nexport function broken( {\n  const b = ;\n  return b;\n}\n";
    let found = outline(Language::TypeScript, source, &OutlineOptions::default());
    match &found.diagnostics[..] {
        [OutlineDiagnostic::SyntaxErrors { first_error_line }] => assert!(*first_error_line >= 5),
        other => panic!("{other:?}"),
    }
    // A limitation and a real error in one file: a syntax error.
    let mixed = "type A = Promise<import(\"x\").T[]>;\nconst b = ;\n";
    let found = outline(Language::TypeScript, mixed, &OutlineOptions::default());
    assert!(
        matches!(
            found.diagnostics[..],
            [OutlineDiagnostic::SyntaxErrors { .. }]
        ),
        "{:?}",
        found.diagnostics
    );
}
