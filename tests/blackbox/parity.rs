//! Black-box tests of parity with the original (issue 13): provider error shapes as each SDK
//! throws them (data files in `fixtures/provider-errors`), condense-request sizing, error details,
//! hosts without a summarizer, and the other items, each over stdio against the built binary.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::harness::Server;

fn provider_error_fixtures() -> Vec<(String, Value)> {
    let folder = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/blackbox/fixtures/provider-errors"
    ));
    let mut cases: Vec<(String, Value)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                case,
            )
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

#[test]
fn parity_classify_error_matches_the_original_on_every_provider_shape() {
    let cases = provider_error_fixtures();
    assert!(cases.len() >= 30, "fixtures found: {}", cases.len());
    assert!(
        cases
            .iter()
            .any(|(_, case)| case["isContextWindowError"] == true)
    );
    assert!(
        cases
            .iter()
            .any(|(_, case)| case["isContextWindowError"] == false)
    );
    let mut server = Server::start(&[], Value::Null);
    let mut wrong = Vec::new();
    for (name, case) in &cases {
        let result = server.call(
            "roo/context/classifyError",
            json!({"error": case["error"].clone()}),
        );
        if result["isContextWindowError"] != case["isContextWindowError"] {
            wrong.push(format!(
                "{name} ({}): got {result}",
                case["description"].as_str().unwrap_or("")
            ));
        }
    }
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}
