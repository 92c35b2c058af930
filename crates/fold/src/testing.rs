//! Test files in the folded context: which files are tests (by name or by content), and their
//! summary form, one line per test group with its test count, so spec files do not crowd out
//! the implementation they test.

use crate::{Definition, DefinitionKind, Language, Outline};

/// A test file with at most this many test cases is listed in full (it is small).
pub const SMALL_TEST_FILE_CASES: usize = 3;

/// True when the path names a test file: `*.test.*`, `*.spec.*`, `*_test.go`, `test_*.py`,
/// `*_test.py`, `*_spec.rb`, or a file under a `__tests__`, `__mocks__`, `tests`, `test` or
/// `spec` folder. Both separators are accepted; case does not matter.
pub fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut components: Vec<&str> = lower.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
    let Some(file) = components.pop() else {
        return false;
    };
    if components.iter().any(|folder| {
        matches!(
            *folder,
            "__tests__" | "__mocks__" | "tests" | "test" | "spec"
        )
    }) {
        return true;
    }
    let stem_parts: Vec<&str> = file.split('.').collect();
    // `name.test.ts`, `name.spec.tsx`, `name.test.d.ts`: a middle part says so.
    if stem_parts.len() >= 3
        && stem_parts[1..stem_parts.len() - 1]
            .iter()
            .any(|part| matches!(*part, "test" | "spec" | "tests" | "e2e"))
    {
        return true;
    }
    let stem = stem_parts[0];
    let extension = stem_parts.last().copied().unwrap_or("");
    match extension {
        "go" => stem.ends_with("_test"),
        "py" | "pyi" => stem.starts_with("test_") || stem.ends_with("_test"),
        "rb" => stem.ends_with("_spec") || stem.ends_with("_test"),
        _ => false,
    }
}

/// True when some definition could be a test or a test group (a cheap pre-check, so files
/// without tests cost nothing more than before).
pub(crate) fn may_hold_tests(outline: &Outline, test_file_by_name: bool) -> bool {
    test_file_by_name
        || outline.short_tests_outside.is_some()
        || outline.definitions.iter().any(|d| {
            d.kind == DefinitionKind::Test
                || d.short_tests > 0
                || (d.kind == DefinitionKind::Module
                    && (d.name == "tests" || d.name.ends_with("_tests")))
        })
}

/// What each definition of an outline is, as far as tests go.
pub(crate) struct TestShape {
    /// A single test (`it`, `test`, a Go `TestX`, a Python `test_x`, a function in Rust `mod tests`).
    pub(crate) case: Vec<bool>,
    /// A group of tests (`describe`, Rust `mod tests`, a Python `Test*` class).
    pub(crate) group: Vec<bool>,
    /// Test cases in the definition's subtree (itself included).
    pub(crate) count: Vec<usize>,
    /// Some ancestor is a test case (helpers inside a test body).
    pub(crate) inside_case: Vec<bool>,
    /// Some ancestor is a test group.
    pub(crate) inside_group: Vec<bool>,
    /// Some ancestor is a function, method or constructor (hooks, local helpers).
    pub(crate) inside_function: Vec<bool>,
    /// Test cases in the file, listed or too short to be.
    pub(crate) cases: usize,
    /// Test cases too short to be listed, inside listed definitions.
    short_cases: usize,
}

fn is_function(kind: DefinitionKind) -> bool {
    matches!(
        kind,
        DefinitionKind::Function | DefinitionKind::Method | DefinitionKind::Constructor
    )
}

/// Classify an outline's definitions in one forward and one backward pass (linear, no
/// recursion: a describe nested 10,000 deep costs as much as 10,000 siblings).
pub(crate) fn test_shape(outline: &Outline, test_file_by_name: bool) -> TestShape {
    let definitions = &outline.definitions;
    let count = definitions.len();
    let mut has_test_child: Vec<bool> = definitions.iter().map(|d| d.short_tests > 0).collect();
    for definition in definitions {
        if let (DefinitionKind::Test, Some(parent)) = (definition.kind, definition.parent) {
            has_test_child[parent] = true;
        }
    }
    let mut shape = TestShape {
        case: vec![false; count],
        group: vec![false; count],
        count: vec![0; count],
        inside_case: vec![false; count],
        inside_group: vec![false; count],
        inside_function: vec![false; count],
        cases: 0,
        short_cases: 0,
    };
    for (index, definition) in definitions.iter().enumerate() {
        if let Some(parent) = definition.parent {
            shape.inside_case[index] = shape.inside_case[parent] || shape.case[parent];
            shape.inside_group[index] = shape.inside_group[parent] || shape.group[parent];
            shape.inside_function[index] =
                shape.inside_function[parent] || is_function(definitions[parent].kind);
        }
        let (case, group) = classify(
            outline.language,
            definition,
            has_test_child[index],
            shape.inside_group[index],
            test_file_by_name,
        );
        shape.case[index] = case && !shape.inside_case[index];
        shape.group[index] = group && !shape.inside_case[index];
    }
    for index in (0..count).rev() {
        let short = if shape.inside_case[index] {
            0
        } else {
            definitions[index].short_tests as usize
        };
        shape.count[index] += usize::from(shape.case[index]) + short;
        shape.short_cases += short;
        if let Some(parent) = definitions[index].parent {
            shape.count[parent] += shape.count[index];
        }
    }
    let outside = outline
        .short_tests_outside
        .map_or(0, |(count, _, _)| count as usize);
    shape.cases = shape.case.iter().filter(|case| **case).count() + shape.short_cases + outside;
    shape
}

/// (is a test case, is a test group) for one definition.
fn classify(
    language: Language,
    definition: &Definition,
    has_test_child: bool,
    inside_group: bool,
    test_file_by_name: bool,
) -> (bool, bool) {
    let name = definition.name.as_str();
    match definition.kind {
        DefinitionKind::Test => (!has_test_child, has_test_child),
        DefinitionKind::Module if language == Language::Rust => {
            (false, name == "tests" || name.ends_with("_tests"))
        }
        DefinitionKind::Class if language == Language::Python => {
            (false, test_file_by_name && name.starts_with("Test"))
        }
        DefinitionKind::Function | DefinitionKind::Method => {
            let case = match language {
                Language::Rust => inside_group || test_file_by_name,
                Language::Go => {
                    test_file_by_name
                        && ["Test", "Benchmark", "Fuzz", "Example"]
                            .iter()
                            .any(|prefix| name.starts_with(prefix))
                }
                Language::Python => test_file_by_name && name.starts_with("test"),
                _ => false,
            };
            (case, false)
        }
        _ => (false, false),
    }
}

/// True when an outline is mostly tests: at least one test case, and test calls
/// (`describe`/`it`/`test`) are at least half of its definitions (a spec file not named as
/// one). A Rust file with a big `mod tests` is still its implementation.
pub(crate) fn is_test_content(outline: &Outline, shape: &TestShape) -> bool {
    let test_calls = outline
        .definitions
        .iter()
        .enumerate()
        .filter(|(index, d)| {
            d.kind == DefinitionKind::Test && (shape.case[*index] || shape.group[*index])
        })
        .count();
    shape.cases > 0 && test_calls * 2 >= shape.case.len()
}

/// The outline text of a file for the folded context. With `summarize_tests`, each outermost
/// test group is one line ending in `(N tests)` (nested groups count in it), single tests outside any group are one
/// line `a--b | N tests` where the first of them stands, and nothing else inside a group or a
/// test is listed; other definitions stay unless `only_tests` (a test file: its helpers, mocks
/// and fixtures are left out, summarised or not). With `drop_locals`, definitions nested
/// in a function body (hooks, local helpers) are left out. Lines keep the outline's
/// `start--end | first line` form and source order.
pub(crate) fn render(
    outline: &Outline,
    shape: &TestShape,
    summarize_tests: bool,
    drop_locals: bool,
    only_tests: bool,
) -> String {
    if !summarize_tests && !drop_locals && !only_tests {
        return outline.to_text();
    }
    let definitions = &outline.definitions;
    let loose: Vec<usize> = if summarize_tests {
        (0..definitions.len())
            .filter(|&index| shape.case[index] && !shape.inside_group[index])
            .collect()
    } else {
        Vec::new()
    };
    // One line for every test outside a group, listed or too short to be, where the first is.
    let mut loose_line = None;
    if summarize_tests {
        let listed = loose.first().zip(loose.last()).map(|(&first, &last)| {
            (
                loose.len(),
                definitions[first].start_line(),
                definitions[last].end_line(),
            )
        });
        loose_line = match (listed, outline.short_tests_outside) {
            (Some((a, a_start, a_end)), Some((b, b_start, b_end))) => {
                Some((a + b as usize, a_start.min(b_start), a_end.max(b_end)))
            }
            (Some(line), None) => Some(line),
            (None, Some((b, start, end))) => Some((b as usize, start, end)),
            (None, None) => None,
        };
    }
    let mut push_loose = |text: &mut String, before_line: Option<u32>| {
        if let Some((count, start, end)) = loose_line
            && before_line.is_none_or(|line| start <= line)
        {
            text.push_str(&format!(
                "{}--{} | {}\n",
                start + 1,
                end + 1,
                tests_phrase(count)
            ));
            loose_line = None;
        }
    };
    let mut text = String::new();
    for (index, definition) in definitions.iter().enumerate() {
        let is_test = shape.case[index] || shape.group[index];
        if drop_locals && shape.inside_function[index] && !is_test {
            continue;
        }
        if only_tests && (!is_test || shape.inside_case[index]) {
            // A test file is its tests: helpers, mocks and fixtures are left out.
            continue;
        }
        if !summarize_tests {
            text.push_str(&definition.outline_line());
            continue;
        }
        // One line per outermost `describe`; what is inside counts in its number.
        if shape.inside_case[index] || shape.inside_group[index] {
            continue;
        }
        push_loose(&mut text, Some(definition.start_line()));
        if shape.case[index] {
            continue;
        }
        if shape.group[index] {
            let line = definition.outline_line();
            text.push_str(line.trim_end_matches('\n'));
            text.push_str(&format!(" ({})\n", tests_phrase(shape.count[index])));
            continue;
        }
        text.push_str(&definition.outline_line());
    }
    push_loose(&mut text, None);
    text
}

fn tests_phrase(count: usize) -> String {
    if count == 1 {
        "1 test".to_owned()
    } else {
        format!("{count} tests")
    }
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn test_paths_are_recognised_by_name() {
        for path in [
            "src/a.test.ts",
            "src/a.spec.tsx",
            "a.test.js",
            "pkg/a_test.go",
            "tests/cli.rs",
            "src/__tests__/x.ts",
            "test_utils.py",
            "C:\\repo\\__tests__\\x.ts",
            "a.e2e.ts",
            "SRC/A.SPEC.TS",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "src/test.ts",
            "src/spec.ts",
            "src/latest.ts",
            "src/testing.rs",
            "contest_test.rs",
            "attest.go",
            "",
            "/",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
