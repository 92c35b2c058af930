//! docs/protocol.md documents every method: each request of the method table and each other
//! name in `methods` has a `### ` heading.

#[test]
fn every_method_has_a_section_in_docs_protocol_md() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let docs =
        std::fs::read_to_string(format!("{root}/docs/protocol.md")).expect("docs/protocol.md");
    let source =
        std::fs::read_to_string(format!("{root}/crates/protocol/src/lib.rs")).expect("lib.rs");
    let mut names: Vec<&str> = source
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pub const "))
        .filter_map(|rest| rest.split('"').nth(1))
        .collect();
    names.extend(roo_context_protocol::requests::ALL);
    assert!(names.len() > 20, "found only {names:?}");
    let headings: Vec<&str> = docs.lines().filter(|l| l.starts_with("### ")).collect();
    let missing: Vec<&&str> = names
        .iter()
        .filter(|name| !headings.iter().any(|h| h.contains(&format!("`{name}`"))))
        .collect();
    assert!(
        missing.is_empty(),
        "methods without a section in docs/protocol.md: {missing:?}"
    );
}
