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

/// Every file ARCHITECTURE.md names exists (issue 33: a map with stale paths misleads). A name
/// in backticks that ends like a source file must be some file's path or path suffix; data
/// files written at run time (`seen.json`) and placeholders (`<family>.rs`) are not checked.
#[test]
fn every_file_architecture_md_names_exists() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let files = repository_files(root);
    let named = names_missing_from(root, "ARCHITECTURE.md", &files);
    assert!(named.0 > 50, "found only {} names", named.0);
    assert!(
        named.1.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {:?}",
        named.1
    );
}

/// The same for every decision record under docs/decisions/ (the text that left the map).
#[test]
fn every_file_a_decision_record_names_exists() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let files = repository_files(root);
    let mut records: Vec<String> = files
        .iter()
        .filter(|file| file.starts_with("docs/decisions/") && file.ends_with(".md"))
        .cloned()
        .collect();
    records.sort();
    assert!(records.len() >= 5, "found only {records:?}");
    for record in &records {
        let (_, missing) = names_missing_from(root, record, &files);
        assert!(
            missing.is_empty(),
            "{record} names files that do not exist: {missing:?}"
        );
    }
}

/// Every file under `root` (relative, `/`-separated), build output and dependencies left out.
fn repository_files(root: &std::path::Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if matches!(
                name.to_str(),
                Some("target" | "node_modules" | ".git" | "out")
            ) {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(relative) = path.strip_prefix(root) {
                files.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files
}

/// How many file names `document` names in backticks, and those that are no file's path or
/// path suffix.
fn names_missing_from(
    root: &std::path::Path,
    document: &str,
    files: &[String],
) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(root.join(document)).expect(document);
    let code = [".rs", ".ts", ".sh", ".mjs", ".scm", ".lua", ".py"];
    // Code spans, line by line (fences left out, so their backticks do not shift the parity).
    let named: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("```"))
        .flat_map(|line| line.split('`').skip(1).step_by(2))
        .filter(|name| !name.contains(['<', ' ', '*']) && !name.starts_with('.'))
        .filter(|name| {
            code.iter().any(|ext| name.ends_with(ext))
                || (name.contains('/') && [".md", ".toml"].iter().any(|ext| name.ends_with(ext)))
        })
        .collect();
    let missing = named
        .iter()
        .filter(|name| {
            !files
                .iter()
                .any(|file| file == *name || file.ends_with(&format!("/{name}")))
        })
        .map(|name| name.to_string())
        .collect();
    (named.len(), missing)
}
