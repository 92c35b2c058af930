//! Folding over stdio: folded file context (ignored files never leak), single-file outlines, and
//! standard LSP folding ranges and document symbols for files on disk and open documents.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, file_uri};

const APP: &str = "export interface Config {\n  name: string;\n  port: number;\n}\n\nexport class App {\n  constructor(private config: Config) {}\n\n  start(): string {\n    const greeting = `hi ${this.config.name}`;\n    console.log(greeting);\n    return greeting;\n  }\n}\n";

fn fixture() -> Fixture {
    Fixture::new(&[
        (".rooignore", "secret/**\n"),
        ("src/app.ts", APP),
        (
            "secret/hidden.ts",
            "export class HiddenTreasure {\n  a = 1;\n  b = 2;\n  c = 3;\n}\n",
        ),
        ("notes.txt", "plain text\n"),
    ])
}

#[test]
fn folded_context_outlines_allowed_files_and_never_leaks_ignored_ones() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call(
        "roo/fold/context",
        json!({"paths": ["secret/hidden.ts", "src/app.ts", "notes.txt", "missing.ts"]}),
    );
    let content = result["content"].as_str().unwrap();
    assert_eq!(
        content,
        "<system-reminder>\n## File Context: src/app.ts\n# app.ts\n1--4 | export interface Config {\n6--14 | export class App {\n9--13 |   start(): string {\n\n</system-reminder>"
    );
    assert!(!content.contains("HiddenTreasure"));
    assert_eq!(result["filesProcessed"], 1);
    let kinds: Vec<(&str, &str)> = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["path"].as_str().unwrap(), d["kind"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("secret/hidden.ts", "blocked")),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("notes.txt", "unsupportedLanguage")),
        "{kinds:?}"
    );
    assert!(kinds.contains(&("missing.ts", "unreadable")), "{kinds:?}");
}

#[test]
fn folded_context_honours_the_character_budget() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call(
        "roo/fold/context",
        json!({"paths": ["src/app.ts"], "maxChars": 10}),
    );
    assert!(result["characterCount"].as_u64().unwrap() <= 10, "{result}");
}

#[test]
fn outline_of_one_file_and_its_errors() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let outline = server.call("roo/fold/outline", json!({"path": "src/app.ts"}));
    assert_eq!(outline["language"], "typescript");
    assert_eq!(outline["definitions"][1]["name"], "App");
    assert_eq!(outline["definitions"][1]["startLine"], 6);
    assert_eq!(
        outline["text"],
        "1--4 | export interface Config {\n6--14 | export class App {\n9--13 |   start(): string {\n"
    );
    let blocked = server
        .request("roo/fold/outline", json!({"path": "secret/hidden.ts"}))
        .unwrap_err();
    assert!(
        blocked["message"].as_str().unwrap().contains("blocked"),
        "{blocked}"
    );
    let unsupported = server
        .request("roo/fold/outline", json!({"path": "notes.txt"}))
        .unwrap_err();
    assert!(
        unsupported["message"].as_str().unwrap().contains("grammar"),
        "{unsupported}"
    );
}

#[test]
fn lsp_folding_ranges_and_symbols_for_files_on_disk() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let uri = file_uri(&fixture.path("src/app.ts"));
    let ranges = server.call(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    let ranges = ranges.as_array().unwrap();
    assert!(
        ranges.iter().any(|r| r["startLine"] == 5),
        "class App folds: {ranges:?}"
    );
    let symbols = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(symbols[1]["name"], "App");
    // The declaration starts at `class`, after `export `.
    assert_eq!(
        symbols[1]["range"]["start"],
        json!({"line": 5, "character": 7})
    );
    let children: Vec<&str> = symbols[1]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(children.contains(&"start"), "{children:?}");
    // Ignored files get nothing.
    let hidden = file_uri(&fixture.path("secret/hidden.ts"));
    let nothing = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": hidden}}),
    );
    assert_eq!(nothing, Value::Null);
}

#[test]
fn open_documents_win_over_disk_and_columns_are_utf16() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let uri = file_uri(&fixture.path("src/app.ts"));
    let text = "const s = \"😀\"; export function shout(a: string) {\n  const b = a;\n  const c = b;\n  return c;\n}\n";
    server.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "typescript", "version": 1, "text": text}}));
    let symbols = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(symbols[0]["name"], "shout");
    // `function` is at byte 25 but UTF-16 column 23: the emoji is 4 bytes and 2 units.
    assert_eq!(
        symbols[0]["range"]["start"],
        json!({"line": 0, "character": 23})
    );
    let changed = "export class Changed {\n  a = 1;\n  b = 2;\n  c = 3;\n}\n";
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": changed}]}),
    );
    let symbols = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(symbols[0]["name"], "Changed");
    let folded = server.call("roo/fold/context", json!({"paths": ["src/app.ts"]}));
    assert!(
        folded["content"]
            .as_str()
            .unwrap()
            .contains("1--5 | export class Changed {")
    );
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    let symbols = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(symbols[1]["name"], "App", "back to the file on disk");
}

#[test]
fn initialize_advertises_folding_and_symbols() {
    let fixture = fixture();
    let mut server = Server::spawn();
    let result = server.initialize(&[fixture.root()], Value::Null).unwrap();
    assert_eq!(result["capabilities"]["foldingRangeProvider"], true);
    assert_eq!(result["capabilities"]["documentSymbolProvider"], true);
}

#[test]
fn markdown_files_fold_by_headers() {
    let fixture = Fixture::new(&[(
        "docs/guide.md",
        "# Guide\nintro\nmore\nmore\n## Install\nrun it\nthen\nthis\n",
    )]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call("roo/fold/context", json!({"paths": ["docs/guide.md"]}));
    assert_eq!(
        result["content"],
        "<system-reminder>\n## File Context: docs/guide.md\n# guide.md\n1--4 | # Guide\n5--9 | ## Install\n\n</system-reminder>"
    );
    let uri = file_uri(&fixture.path("docs/guide.md"));
    let symbols = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(symbols[1]["name"], "Install");
    assert_eq!(symbols[1]["kind"], 15);
}

/// For each language fixture of the fold crate: a symbol path (outer to inner) that the
/// `textDocument/documentSymbol` answer must contain and a 1-based line where a fold must start.
const LANGUAGE_FIXTURES: &[(&str, &[&str], u32)] = &[
    (
        "OrderService.java",
        &["OrderService", "Listener", "onChange"],
        71,
    ),
    ("ring_buffer.c", &["rb_write"], 74),
    ("lru_cache.cpp", &["assets", "LruCache", "get"], 37),
    (
        "InventoryController.cs",
        &[
            "Warehouse.Api.Controllers",
            "InventoryController",
            "Adjust",
            "Describe",
        ],
        49,
    ),
    (
        "subscription.rb",
        &["Billing", "Subscription", "renew!"],
        53,
    ),
    ("UserRepository.php", &["UserRepository", "find"], 53),
    ("theme.css", &["(prefers-color-scheme: dark)", ".card"], 74),
    (
        "index.html",
        &[
            "<html lang=\"en\">",
            "<body>",
            "<main>",
            "<section id=\"products\">",
        ],
        36,
    ),
    ("package.json", &["eslintConfig", "rules"], 28),
    ("deploy.sh", &["upload"], 46),
    ("TaskScheduler.kt", &["TaskScheduler", "runWithRetry"], 44),
    ("ImageCache.swift", &["ImageCache", "image"], 46),
    ("inventory.lua", &["Inventory:add"], 23),
    (
        "syncd.toml",
        &["workspace.metadata.release", "pre-release-hook"],
        2,
    ),
    (
        "RateLimiter.scala",
        &["TokenBucketLimiter", "tryAcquire"],
        54,
    ),
    ("mailer.ex", &["Courier.Mailer", "Retry", "delay"], 99),
    ("cart_repository.dart", &["CartRepository", "offline"], 100),
    ("arena.zig", &["Arena", "alloc"], 49),
    ("interval_map.ml", &["Make", "Debug", "dump"], 43),
    ("Vesting.sol", &["TokenVesting", "Schedule"], 90),
    // Vue: the `<script setup>` block's class, on the .vue file's own lines.
    ("TodoList.vue", &["UndoStack", "pop"], 65),
    ("project-notes.el", &["project-notes-open"], 82),
    ("TokenRing.tla", &["TokenRing", "PassToken"], 57),
    (
        "invoice.html.erb",
        &[
            "<html lang=\"en\">",
            "<body>",
            "<main>",
            "<section id=\"totals\">",
        ],
        56,
    ),
    (
        "dashboard.ejs",
        &[
            "<html lang=\"<%= locale %>\">",
            "<body>",
            "<main id=\"dashboard\">",
            "<section id=\"users\">",
            "<table>",
        ],
        30,
    ),
];

/// Every language fixture, served from disk over stdio: the symbols and folding ranges carry
/// the expected entries, and their lines equal the fold engine's own answer.
#[test]
fn every_language_fixture_gets_symbols_and_folding_ranges_over_stdio() {
    use roo_context_fold::{Language, OutlineOptions, document_symbols, folding_ranges};

    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fold/tests/fixtures");
    let fixtures: Vec<(String, String)> = LANGUAGE_FIXTURES
        .iter()
        .map(|(file, _, _)| {
            let text = std::fs::read_to_string(directory.join(file)).expect("fixture exists");
            ((*file).to_owned(), text)
        })
        .collect();
    let files: Vec<(&str, &str)> = fixtures
        .iter()
        .map(|(file, text)| (file.as_str(), text.as_str()))
        .collect();
    let fixture = Fixture::new(&files);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    for ((file, symbol_path, fold_line), (_, text)) in LANGUAGE_FIXTURES.iter().zip(&fixtures) {
        let language = Language::from_path(file).expect("a supported language");
        let uri = file_uri(&fixture.path(file));
        let symbols = server.call(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        let mut level = &symbols;
        for name in *symbol_path {
            let found = level
                .as_array()
                .and_then(|list| list.iter().find(|symbol| symbol["name"] == *name))
                .unwrap_or_else(|| panic!("{file}: no symbol {name} in {level}"));
            level = &found["children"];
        }
        let expected = document_symbols(language, text, &OutlineOptions::default());
        let top_lines: Vec<(u64, u64)> = symbols
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["range"]["start"]["line"].as_u64().unwrap(),
                    s["range"]["end"]["line"].as_u64().unwrap(),
                )
            })
            .collect();
        let expected_lines: Vec<(u64, u64)> = expected
            .symbols
            .iter()
            .map(|s| (u64::from(s.range.start.line), u64::from(s.range.end.line)))
            .collect();
        assert_eq!(top_lines, expected_lines, "{file}");

        let ranges = server.call(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        );
        let lines: Vec<(u64, u64)> = ranges
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["startLine"].as_u64().unwrap(),
                    r["endLine"].as_u64().unwrap(),
                )
            })
            .collect();
        let expected_ranges: Vec<(u64, u64)> =
            folding_ranges(language, text, &OutlineOptions::default())
                .ranges
                .iter()
                .map(|r| (u64::from(r.start_line), u64::from(r.end_line)))
                .collect();
        assert_eq!(lines, expected_ranges, "{file}");
        assert!(
            lines
                .iter()
                .any(|(start, _)| *start + 1 == u64::from(*fold_line)),
            "{file}: no fold starts on line {fold_line}: {lines:?}"
        );
    }
}
