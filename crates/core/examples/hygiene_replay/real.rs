//! Trajectories over real repositories (issue 31's replay corpus).
//!
//! **How they are made.** Not recorded from a model: a seeded player walks real source trees
//! (the Roo Code 3.52.1 and Zoo Code 3.80.0 snapshots, or any folders given) and
//! writes each tool result as the agent would receive it from Roo Code 3.52.1, from the real
//! bytes of the files:
//! - `read_file`: `File: <path>\nLines 1-<n>:\n` and the content numbered as Roo's
//!   `addLineNumbers` does (files over Roo's 2,000-line default limit are not chosen);
//! - `apply_diff` of a real line of a file read before (Roo's search/replace diff as input, the
//!   JSON notice of `DiffViewProvider` as result), and `write_to_file` of a file's whole new
//!   content: the player keeps each file's current content, so a re-read returns the edited text;
//! - `search_files`: a regex (an identifier from a file read before) run over the task's folder,
//!   formatted as Roo's ripgrep wrapper does (one context line, `----` between groups, 300
//!   results at most);
//! - test runs: vitest- or cargo-shaped reports naming the repository's real test files and real
//!   test names, 60 % failing with an assertion, a stack line and a code frame of the test's real
//!   lines (the run itself is not executed: these repositories' suites need installs);
//! - large command outputs: a recursive listing with sizes, a line count of every file, or a
//!   `grep -rn` over the whole repository, cut by `preview_output` to what `roo/output/ingest`
//!   lets into the history (8,000 tokens), as the host's ingest would.
//!
//! Each task works in one folder of one repository (chosen among folders of at least six files),
//! 40-300 steps with the synthetic replay's mix: 20 % reads of a new file, 15 % re-reads,
//! 15 % `apply_diff`, 5 % `write_to_file`, 15 % test runs, 15 % searches, 15 % large commands.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use roo_context_core::context::{OutputKind, preview_output};
use roo_context_core::conversation::{ApiMessage, TokenCounter};
use serde_json::{Value, json};

use super::message;
use super::synthetic::Rng;

/// Roo's `read_file` default line limit; longer files would come back truncated.
const READ_LINE_LIMIT: usize = 2_000;
/// Roo's ripgrep wrapper stops at this many results.
const SEARCH_MAX_RESULTS: usize = 300;
/// Folders skipped when loading a tree: dependencies, build output, history.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "dist",
    "out",
    ".turbo",
    ".next",
    "coverage",
];
const EXTENSIONS: &[&str] = &[
    "ts", "tsx", "js", "mjs", "rs", "md", "json", "toml", "yaml", "yml", "css", "py", "sh", "lua",
];

pub struct SourceFile {
    pub path: String,
    pub text: String,
}

pub struct Repo {
    pub name: String,
    pub files: Vec<SourceFile>,
}

impl Repo {
    /// The text files of `root` (sorted by path, 200 B to 100 KB, UTF-8, at most
    /// [`READ_LINE_LIMIT`] lines).
    pub fn load(root: &Path) -> std::io::Result<Repo> {
        let mut files = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(relative) = stack.pop() {
            let mut entries: Vec<_> = std::fs::read_dir(root.join(&relative))?
                .filter_map(Result::ok)
                .collect();
            entries.sort_by_key(|entry| entry.file_name());
            for entry in entries {
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = relative.join(&name);
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    if !SKIPPED_DIRS.contains(&name.as_str()) {
                        stack.push(path);
                    }
                    continue;
                }
                let extension = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
                if !kind.is_file() || !EXTENSIONS.contains(&extension) {
                    continue;
                }
                let Ok(bytes) = std::fs::read(root.join(&path)) else {
                    continue;
                };
                if !(200..=100_000).contains(&bytes.len()) {
                    continue;
                }
                let Ok(text) = String::from_utf8(bytes) else {
                    continue;
                };
                if text.lines().count() > READ_LINE_LIMIT || name.ends_with(".lock") {
                    continue;
                }
                let path = path.to_string_lossy().replace('\\', "/");
                files.push(SourceFile { path, text });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Repo { name, files })
    }

    /// Folders with at least six files below them, as (folder, indices of its files).
    fn folders(&self) -> Vec<(String, Vec<usize>)> {
        let mut below: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (index, file) in self.files.iter().enumerate() {
            let mut folder = file.path.as_str();
            while let Some((parent, _)) = folder.rsplit_once('/') {
                below.entry(parent.to_owned()).or_default().push(index);
                folder = parent;
            }
        }
        below
            .into_iter()
            .filter(|(_, files)| (6..=400).contains(&files.len()))
            .collect()
    }
}

fn is_test_file(path: &str) -> bool {
    path.contains(".spec.")
        || path.contains(".test.")
        || path.contains("__tests__/")
        || (path.ends_with(".rs") && path.contains("tests/"))
}

/// Roo's `addLineNumbers` for a whole file.
fn numbered(text: &str) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let width = lines.len().to_string().len();
    let mut out = String::with_capacity(text.len() + lines.len() * (width + 3));
    for (index, line) in lines.iter().enumerate() {
        out.push_str(&format!("{:>width$} | {line}\n", index + 1));
    }
    out
}

/// The names of the tests a file declares, with their 0-based line.
fn test_names(text: &str) -> Vec<(usize, String)> {
    let mut names = Vec::new();
    let mut rust_test_next = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[test]") || trimmed.starts_with("#[tokio::test") {
            rust_test_next = true;
            continue;
        }
        if rust_test_next && let Some(rest) = trimmed.split("fn ").nth(1) {
            names.push((index, rest.split('(').next().unwrap_or(rest).to_owned()));
            rust_test_next = false;
            continue;
        }
        for opener in ["it(", "test(", "it.each(", "it.only("] {
            if let Some(rest) = trimmed.strip_prefix(opener) {
                let rest = rest.trim_start();
                let quote = rest.chars().next().unwrap_or(' ');
                if matches!(quote, '"' | '\'' | '`')
                    && let Some(end) = rest[1..].find(quote)
                {
                    names.push((index, rest[1..1 + end].to_owned()));
                }
            }
        }
    }
    names
}

/// An identifier worth searching for in `text` (at least 6 characters, not a keyword).
fn identifier(text: &str, rng: &mut Rng) -> Option<String> {
    const COMMON: &[&str] = &[
        "return", "export", "import", "const", "string", "number", "function", "private", "public",
        "static", "struct", "async", "await",
    ];
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 6 && !w.as_bytes()[0].is_ascii_digit() && !COMMON.contains(w))
        .collect();
    (!words.is_empty()).then(|| words[rng.range(0, words.len())].to_owned())
}

/// Roo's `search_files` output for `needle` over `files` (one line of context each side).
fn search(needle: &str, files: &[(&str, &str)]) -> String {
    let mut results = 0;
    let mut body = String::new();
    for (path, text) in files {
        if results >= SEARCH_MAX_RESULTS {
            break;
        }
        let lines: Vec<&str> = text.lines().collect();
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            if !line.contains(needle) || results >= SEARCH_MAX_RESULTS {
                continue;
            }
            results += 1;
            let (from, to) = (index.saturating_sub(1), (index + 1).min(lines.len() - 1));
            match groups.last_mut() {
                Some(last) if from <= last.1 + 1 => last.1 = to,
                _ => groups.push((from, to)),
            }
        }
        if groups.is_empty() {
            continue;
        }
        body.push_str(&format!("# {path}\n"));
        for (from, to) in groups {
            for (offset, line) in lines[from..=to].iter().enumerate() {
                body.push_str(&format!("{:>3} | {}\n", from + offset + 1, line.trim_end()));
            }
            body.push_str("----\n");
        }
        body.push('\n');
    }
    let head = if results >= SEARCH_MAX_RESULTS {
        format!(
            "Showing first {SEARCH_MAX_RESULTS} of {SEARCH_MAX_RESULTS}+ results. Use a more specific search if necessary.\n\n"
        )
    } else if results == 1 {
        "Found 1 result.\n\n".to_owned()
    } else {
        format!("Found {results} results.\n\n")
    };
    format!("{head}{body}").trim().to_owned()
}

/// The edit result Roo's `DiffViewProvider` reports.
fn edit_notice(path: &str) -> String {
    json!({
        "path": path,
        "operation": "modified",
        "notice": "You do not need to re-read the file, as you have seen all changes Proceed with the task using these changes as the new baseline."
    })
    .to_string()
}

/// A test report over `tests` (indices into the repo's files), failing on one real test when
/// `failing`.
fn test_report(repo: &Repo, tests: &[usize], failing: bool, rng: &mut Rng) -> (String, String) {
    let rust = repo.files[tests[0]].path.ends_with(".rs");
    let mut out = String::new();
    let mut passed = 0;
    let mut failure = None;
    for (position, &index) in tests.iter().enumerate() {
        let file = &repo.files[index];
        let names = test_names(&file.text);
        let fails_here = failing && failure.is_none() && position == tests.len() - 1;
        let failing_test = (fails_here && !names.is_empty()).then(|| rng.range(0, names.len()));
        if rust {
            out.push_str(&format!(
                "     Running {} (target/debug/deps/{})\n\nrunning {} tests\n",
                file.path,
                file.path
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .replace(".rs", "-0f3a9c"),
                names.len()
            ));
            for (n, (_, name)) in names.iter().enumerate() {
                let verdict = if failing_test == Some(n) {
                    "FAILED"
                } else {
                    "ok"
                };
                out.push_str(&format!("test {name} ... {verdict}\n"));
            }
        } else {
            let mark = if failing_test.is_some() { "❯" } else { "✓" };
            out.push_str(&format!(
                " {mark} {} ({} tests{}) {}ms\n",
                file.path,
                names.len(),
                if failing_test.is_some() {
                    " | 1 failed"
                } else {
                    ""
                },
                20 + rng.range(0, 900)
            ));
        }
        passed += names.len() - usize::from(failing_test.is_some());
        if let Some(n) = failing_test {
            failure = Some((index, names[n].clone()));
        }
    }
    let Some((index, (line, name))) = failure else {
        if rust {
            out.push_str(&format!(
                "\ntest result: ok. {passed} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n",
                rng.range(1, 99)
            ));
        } else {
            out.push_str(&format!(
                "\n Test Files  {} passed ({})\n      Tests  {passed} passed ({passed})\n",
                tests.len(),
                tests.len()
            ));
        }
        return (out, String::new());
    };
    let file = &repo.files[index];
    let lines: Vec<&str> = file.text.lines().collect();
    let frame_from = line.saturating_sub(2);
    let frame_to = (line + 6).min(lines.len());
    let mut frame = String::new();
    for (offset, text) in lines[frame_from..frame_to].iter().enumerate() {
        let number = frame_from + offset + 1;
        let marker = if number == line + 3 { ">" } else { " " };
        frame.push_str(&format!("{marker} {number:>4}| {text}\n"));
    }
    if rust {
        out.push_str(&format!(
            "\nfailures:\n\n---- {name} stdout ----\n\nthread '{name}' panicked at {}:{}:9:\nassertion `left == right` failed\n  left: {}\n right: {}\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    {name}\n\ntest result: FAILED. {passed} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n\nerror: test failed, to rerun pass `--test {}`\n",
            file.path,
            line + 3,
            rng.range(0, 100),
            rng.range(100, 200),
            rng.range(1, 99),
            file.path.rsplit('/').next().unwrap_or("").trim_end_matches(".rs")
        ));
    } else {
        out.push_str(&format!(
            "\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n FAIL  {} > {name}\nAssertionError: expected {} to be {} // Object.is equality\n ❯ {}:{}:7\n{frame}\n⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯\n\n Test Files  1 failed | {} passed ({})\n      Tests  1 failed | {passed} passed ({})\n",
            file.path,
            rng.range(0, 100),
            rng.range(100, 200),
            file.path,
            line + 3,
            tests.len() - 1,
            tests.len(),
            passed + 1
        ));
    }
    (out, name)
}

/// One of three large command outputs over the whole repository.
fn large_output(repo: &Repo, folder: &str, rng: &mut Rng) -> (String, String) {
    match rng.range(0, 3) {
        0 => {
            let mut out = String::new();
            for file in &repo.files {
                out.push_str(&format!(
                    "-rw-r--r-- 1 dev dev {:>7} Nov 30 12:{:02} {}\n",
                    file.text.len(),
                    file.text.len() % 60,
                    file.path
                ));
            }
            ("ls -lR .".to_owned(), out)
        }
        1 => {
            let mut out = String::new();
            let mut total = 0;
            for file in &repo.files {
                let count = file.text.lines().count();
                total += count;
                out.push_str(&format!("{count:>7} ./{}\n", file.path));
            }
            out.push_str(&format!("{total:>7} total\n"));
            ("find . -type f | xargs wc -l".to_owned(), out)
        }
        _ => {
            // An import that the task's folder uses, searched for everywhere.
            let needle = if folder.contains("src") {
                "import"
            } else {
                "use "
            };
            let mut out = String::new();
            for file in &repo.files {
                for (index, line) in file.text.lines().enumerate() {
                    if line.contains(needle) {
                        out.push_str(&format!("./{}:{}:{}\n", file.path, index + 1, line));
                    }
                }
            }
            (format!("grep -rn \"{needle}\" ."), out)
        }
    }
}

/// One task over `repo`: its messages, and the folder it worked in.
pub fn task(
    repo: &Repo,
    seed: u64,
    counter: &dyn TokenCounter,
    words: &mut Rng,
) -> (Vec<ApiMessage>, String) {
    let mut rng = Rng(seed);
    let folders = repo.folders();
    let (folder, members) = &folders[rng.range(0, folders.len())];
    let tests: Vec<usize> = {
        let near: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| is_test_file(&repo.files[i].path))
            .filter(|&i| !test_names(&repo.files[i].text).is_empty())
            .collect();
        if near.is_empty() {
            (0..repo.files.len())
                .filter(|&i| is_test_file(&repo.files[i].path))
                .filter(|&i| !test_names(&repo.files[i].text).is_empty())
                .collect()
        } else {
            near
        }
    };
    let steps = rng.range(40, 301);
    let mut ts = 1_000u64;
    let mut messages = vec![message(json!({"role": "user", "content": format!(
        "<task>In {folder} of {}: {}</task>", repo.name, words.words(60)), "ts": ts}))];
    // The current content of every file the task touched, by repository index.
    let mut current: HashMap<usize, String> = HashMap::new();
    let mut read: Vec<usize> = Vec::new();
    let mut unread: Vec<usize> = members.clone();
    for step in 0..steps {
        let id = format!("toolu_{seed}_{step}");
        let roll = rng.range(0, 100);
        let (name, input, output, is_error) = if roll < 20 || read.is_empty() {
            let index = if unread.is_empty() {
                rng.range(0, repo.files.len())
            } else {
                unread.remove(rng.range(0, unread.len()))
            };
            if !read.contains(&index) {
                read.push(index);
            }
            let path = &repo.files[index].path;
            let text = current
                .entry(index)
                .or_insert_with(|| repo.files[index].text.clone());
            let lines = text.lines().count();
            (
                "read_file",
                json!({"path": path}),
                format!("File: {path}\nLines 1-{lines}:\n{}", numbered(text)),
                false,
            )
        } else if roll < 35 {
            let index = read[rng.range(0, read.len())];
            let path = &repo.files[index].path;
            let text = &current[&index];
            (
                "read_file",
                json!({"path": path}),
                format!(
                    "File: {path}\nLines 1-{}:\n{}",
                    text.lines().count(),
                    numbered(text)
                ),
                false,
            )
        } else if roll < 50 {
            let index = read[rng.range(0, read.len())];
            let path = repo.files[index].path.clone();
            let text = current.get_mut(&index).expect("a read file has content");
            let mut lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                lines.push("");
            }
            let candidates: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].trim().len() > 3)
                .collect();
            let at = if candidates.is_empty() {
                0
            } else {
                candidates[rng.range(0, candidates.len())]
            };
            let old = lines[at].to_owned();
            let new = format!("{old} // step {step}");
            let diff = format!(
                "<<<<<<< SEARCH\n:start_line:{}\n-------\n{old}\n=======\n{new}\n>>>>>>> REPLACE",
                at + 1
            );
            let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
            edited[at] = new;
            *text = edited.join("\n") + "\n";
            (
                "apply_diff",
                json!({"path": path, "diff": diff}),
                edit_notice(&path),
                false,
            )
        } else if roll < 55 {
            let index = read[rng.range(0, read.len())];
            let path = repo.files[index].path.clone();
            let text = current.get_mut(&index).expect("a read file has content");
            *text = format!("// rewritten at step {step}\n{text}");
            (
                "write_to_file",
                json!({"path": path, "content": text.clone(), "line_count": text.lines().count()}),
                edit_notice(&path),
                false,
            )
        } else if roll < 70 && !tests.is_empty() {
            let failing = rng.range(0, 10) < 6;
            let count = rng.range(1, 5).min(tests.len());
            let first = rng.range(0, tests.len());
            let chosen: Vec<usize> = (0..count)
                .map(|k| tests[(first + k) % tests.len()])
                .collect();
            let (report, _) = test_report(repo, &chosen, failing, &mut rng);
            let rust = repo.files[chosen[0]].path.ends_with(".rs");
            let command = if rust {
                "cargo test".to_owned()
            } else {
                let paths: Vec<&str> = chosen
                    .iter()
                    .map(|&i| repo.files[i].path.as_str())
                    .collect();
                format!("npx vitest run {}", paths.join(" "))
            };
            let preview = preview_output(
                &report,
                OutputKind::Command,
                8_000,
                &format!("out_{seed}_{step}"),
                "roo/output/read",
                counter,
            );
            (
                "execute_command",
                json!({"command": command}),
                preview.text,
                failing,
            )
        } else if roll < 85 {
            let index = read[rng.range(0, read.len())];
            let needle = identifier(&current[&index], &mut rng).unwrap_or_else(|| "TODO".into());
            let texts: Vec<(&str, &str)> = members
                .iter()
                .map(|&i| {
                    (
                        repo.files[i].path.as_str(),
                        current
                            .get(&i)
                            .map_or(repo.files[i].text.as_str(), String::as_str),
                    )
                })
                .collect();
            (
                "search_files",
                json!({"path": folder, "regex": needle}),
                search(&needle, &texts),
                false,
            )
        } else {
            let (command, output) = large_output(repo, folder, &mut rng);
            let preview = preview_output(
                &output,
                OutputKind::Command,
                8_000,
                &format!("out_{seed}_{step}"),
                "roo/output/read",
                counter,
            );
            (
                "execute_command",
                json!({"command": command}),
                preview.text,
                false,
            )
        };
        ts += 1;
        messages.push(message(json!({"role": "assistant", "content": [
            {"type": "text", "text": words.text(30, 100)},
            {"type": "tool_use", "id": id, "name": name, "input": input}], "ts": ts})));
        ts += 1;
        let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": output});
        if is_error {
            result["is_error"] = Value::Bool(true);
        }
        messages.push(message(
            json!({"role": "user", "content": [result], "ts": ts}),
        ));
    }
    (messages, format!("{}:{folder}", repo.name))
}
