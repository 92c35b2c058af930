//! Data-driven tests of mentions and slash commands: each fixture is a small workspace (files
//! under `//- /path` headers, global command files under `//- ~/path`), the user's message under
//! `//- message`, and answers for git and host-only mentions under `//- answer <kind>`
//! (`//- error <kind>` for a failed fetch). The snapshot is the JSON the server returns.
//! One file on purpose: the fixtures of one feature and their one `check` helper.

use std::path::Path;
use std::sync::Arc;

use expect_test::{Expect, expect};
use roo_context_core::access::{Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules};
use roo_context_core::fs::OsFs;
use roo_context_core::mentions::{
    Fetch, Fetched, FolderCommandCatalog, MentionReader, TextExpansion, assemble, plan_mentions,
    walk_user_content,
};
use roo_context_core::path::{Resolver, WorkspaceRoot};
use serde_json::Value;

/// Test names carry the `mentions::` prefix so `cargo test mentions` selects them.
mod mentions {
    use super::*;

    struct Workspace {
        _dir: tempfile::TempDir,
        root: std::path::PathBuf,
        home: std::path::PathBuf,
        message: String,
        answers: Vec<(String, Result<String, String>)>,
        show_ignored: bool,
    }

    fn write(path: &Path, content: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// Builds the fixture. Bodies lose one trailing newline (the one before the next header).
    fn workspace(fixture: &str) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let mut ws = Workspace {
            root,
            home,
            _dir: dir,
            message: String::new(),
            answers: Vec::new(),
            show_ignored: false,
        };
        let mut sections: Vec<(String, String)> = Vec::new();
        for line in fixture.split_inclusive('\n') {
            if let Some(header) = line.strip_prefix("//- ") {
                sections.push((header.trim_end().to_owned(), String::new()));
            } else if let Some((_, body)) = sections.last_mut() {
                body.push_str(line);
            }
        }
        for (header, mut body) in sections {
            if body.ends_with('\n') {
                body.pop();
            }
            if let Some(path) = header.strip_prefix('/') {
                write(&ws.root.join(path), &body);
            } else if let Some(path) = header.strip_prefix("~/") {
                write(&ws.home.join(path), &body);
            } else if header == "message" {
                ws.message = body;
            } else if let Some(kind) = header.strip_prefix("answer ") {
                ws.answers.push((kind.to_owned(), Ok(body)));
            } else if let Some(kind) = header.strip_prefix("error ") {
                ws.answers.push((kind.to_owned(), Err(body)));
            } else if header == "option showRooIgnoredFiles" {
                ws.show_ignored = true;
            } else {
                panic!("unknown fixture header {header}");
            }
        }
        ws
    }

    fn answer(ws: &Workspace, fetch: &Fetch) -> Result<String, String> {
        let kind = match fetch {
            Fetch::Path(_) => unreachable!(),
            Fetch::Url(url) => format!("url {url}"),
            Fetch::Problems => "problems".to_owned(),
            Fetch::GitChanges => "git-changes".to_owned(),
            Fetch::Commit(hash) => format!("commit {hash}"),
            Fetch::Terminal => "terminal".to_owned(),
        };
        ws.answers
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| Err(format!("no answer for {kind} in this fixture")))
    }

    fn policy(ws: &Workspace) -> Policy {
        let ignore = std::fs::read_to_string(ws.root.join(".rooignore"))
            .ok()
            .map(|content| Arc::new(IgnoreFile::new(".rooignore", &content)));
        Policy {
            folders: vec![FolderPolicy {
                root: WorkspaceRoot::new(&ws.root, &OsFs),
                ignore,
            }],
            protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
            deny_outside_workspace: false,
        }
    }

    /// Parses one text the way the server does, with the fixture's answers for non-file kinds.
    fn parse(ws: &Workspace, text: &str) -> roo_context_core::mentions::ParsedMentions {
        let fs = OsFs;
        let policy = policy(ws);
        let resolver = Resolver::default();
        let catalog =
            FolderCommandCatalog::new(&fs, &policy, &resolver, Some(&ws.root), Some(&ws.home));
        let plan = plan_mentions(text, &catalog);
        let reader = MentionReader {
            fs: &fs,
            policy: &policy,
            resolver: &resolver,
            cwd: &ws.root,
            show_ignored_files: ws.show_ignored,
            zoo_wording: false,
        };
        let fetched = plan
            .fetches
            .iter()
            .map(|fetch| match fetch {
                Fetch::Path(p) => Fetched::Path(reader.read_path_mention(p)),
                other => Fetched::Text(answer(ws, other)),
            })
            .collect();
        assemble(plan, fetched)
    }

    fn render(ws: &Workspace, value: &impl serde::Serialize) -> String {
        let json = serde_json::to_string_pretty(value).unwrap();
        json.replace(&ws.root.to_string_lossy().into_owned(), "$WS")
            .replace(&ws.home.to_string_lossy().into_owned(), "$HOME")
    }

    fn check(fixture: &str, expect: Expect) {
        let ws = workspace(fixture);
        let parsed = parse(&ws, &ws.message);
        expect.assert_eq(&render(&ws, &parsed));
    }

    /// Runs `processUserContentMentions` over the JSON array under `//- message`.
    fn check_content(fixture: &str, expect: Expect) {
        let ws = workspace(fixture);
        let content: Vec<Value> = serde_json::from_str(&ws.message).unwrap();
        let mut mode = None;
        let out = walk_user_content(&content, &mut |text| {
            let parsed = parse(&ws, text);
            mode = mode.take().or(parsed.mode.clone());
            Some(TextExpansion::from(&parsed))
        });
        let rendered = render(&ws, &serde_json::json!({"content": out, "mode": mode}));
        expect.assert_eq(&rendered);
    }

    // ------------------------------------------------------------------ files and commands

    #[test]
    fn file_mention_and_custom_command_with_front_matter() {
        check(
            r#"
//- /src/app.ts
export const answer = 42;
console.log(answer);
//- /.roo/commands/review.md
---
description: Review the change
argument-hint: <path>
mode: architect
---

Review for bugs. @/src/app.ts is not expanded here.
//- message
Fix @/src/app.ts using /review"#,
            expect![[r#"
                {
                  "text": "Fix 'src/app.ts' using Command 'review' (see below for command content)",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "src/app.ts",
                      "content": "[read_file for 'src/app.ts']\nFile: src/app.ts\n1 | export const answer = 42;\n2 | console.log(answer);",
                      "metadata": {
                        "totalLines": 2,
                        "returnedLines": 2,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          2
                        ]
                      }
                    }
                  ],
                  "slashCommandHelp": "<command name=\"review\">\nDescription: Review the change\n\nReview for bugs. @/src/app.ts is not expanded here.\n</command>",
                  "mode": "architect",
                  "diagnostics": [],
                  "mentionedFiles": [
                    "src/app.ts"
                  ]
                }"#]],
        );
    }

    #[test]
    fn folder_mention_lists_entries_sorted_and_inlines_text_files() {
        check(
            r#"
//- /.rooignore
secret.txt
//- /src/a.ts
let a = 1;
//- /src/b.bin
//- /src/nested/c.ts
deep
//- /src/secret.txt
hidden
//- message
Look at @/src/ please"#,
            expect![[r#"
                {
                  "text": "Look at 'src/' please",
                  "contentBlocks": [
                    {
                      "type": "folder",
                      "path": "src/",
                      "content": "[read_file for folder 'src/']\nFolder listing:\n├── a.ts\n├── b.bin\n└── nested/\n\n\n--- File Contents ---\n\n[read_file for 'src/a.ts']\nFile: src/a.ts\n1 | let a = 1;\n\n[read_file for 'src/b.bin']\nFile: src/b.bin\n1 | "
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn folder_mention_without_trailing_slash_and_shown_ignored_entries() {
        check(
            r#"
//- /.rooignore
z-secret.txt
//- /src/a.ts
a
//- /src/z-secret.txt
hidden
//- option showRooIgnoredFiles
//- message
@/src"#,
            expect![[r#"
                {
                  "text": "'src'",
                  "contentBlocks": [
                    {
                      "type": "folder",
                      "path": "src",
                      "content": "[read_file for folder 'src']\nFolder listing:\n├── a.ts\n└── 🔒 z-secret.txt\n\n\n--- File Contents ---\n\n[read_file for 'src/a.ts']\nFile: src/a.ts\n1 | a"
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn escaped_spaces_resolve_to_the_real_file_and_stay_escaped_in_the_text() {
        check(
            r#"
//- /my file.txt
hello
//- message
Read @/my\ file.txt, then stop."#,
            expect![[r#"
                {
                  "text": "Read 'my\\ file.txt', then stop.",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "my\\ file.txt",
                      "content": "[read_file for 'my\\ file.txt']\nFile: my\\ file.txt\n1 | hello",
                      "metadata": {
                        "totalLines": 1,
                        "returnedLines": 1,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          1
                        ]
                      }
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": [
                    "my file.txt"
                  ]
                }"#]],
        );
    }

    #[test]
    fn missing_file_gets_the_access_error() {
        check(
            r#"
//- message
@/nope.ts and @/gone/"#,
            expect![[r#"
                {
                  "text": "'nope.ts' and 'gone/'",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "nope.ts",
                      "content": "[read_file for 'nope.ts']\nError: Failed to access path \"nope.ts\": ENOENT: no such file or directory, stat '$WS/nope.ts'"
                    },
                    {
                      "type": "folder",
                      "path": "gone/",
                      "content": "[read_file for 'gone/']\nError: Failed to access path \"gone/\": ENOENT: no such file or directory, stat '$WS/gone'"
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn ignored_file_gets_the_note_even_when_binary() {
        check(
            r#"
//- /.rooignore
*.env
*.bin
//- /prod.env
KEY=secret
//- /blob.bin
bin
//- message
@/prod.env @/blob.bin"#,
            expect![[r#"
                {
                  "text": "'prod.env' 'blob.bin'",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "prod.env",
                      "content": "[read_file for 'prod.env']\nNote: File is ignored by .rooignore."
                    },
                    {
                      "type": "file",
                      "path": "blob.bin",
                      "content": "[read_file for 'blob.bin']\nNote: File is ignored by .rooignore."
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn paths_outside_the_workspace_are_not_read() {
        check(
            r#"
//- ~/outside.txt
private
//- message
@/../home/outside.txt and @//etc/passwd"#,
            expect![[r#"
                {
                  "text": "'../home/outside.txt' and '/etc/passwd'",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "../home/outside.txt",
                      "content": "[read_file for '../home/outside.txt']\nNote: File is outside the workspace and was not read."
                    },
                    {
                      "type": "file",
                      "path": "/etc/passwd",
                      "content": "[read_file for '/etc/passwd']\nNote: File is outside the workspace and was not read."
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn binary_file_is_omitted() {
        let ws = workspace("//- message\n@/image.png\n");
        std::fs::write(ws.root.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        let parsed = parse(&ws, &ws.message);
        expect![[r#"
            {
              "text": "'image.png'",
              "contentBlocks": [
                {
                  "type": "file",
                  "path": "image.png",
                  "content": "[read_file for 'image.png']\nNote: Binary file omitted from context."
                }
              ],
              "diagnostics": [],
              "mentionedFiles": []
            }"#]]
        .assert_eq(&render(&ws, &parsed));
    }

    #[test]
    fn line_limit_truncates_with_the_notice() {
        let ws = workspace("//- message\n@/big.txt @/exact.txt\n");
        let big: Vec<String> = (1..=2001).map(|i| format!("line {i}")).collect();
        std::fs::write(ws.root.join("big.txt"), big.join("\n")).unwrap();
        let exact: Vec<String> = (1..=2000).map(|i| format!("x{i}")).collect();
        std::fs::write(ws.root.join("exact.txt"), exact.join("\n")).unwrap();
        let parsed = parse(&ws, &ws.message);
        let big_block = &parsed.content_blocks[0];
        expect![[r#"
            [read_file for 'big.txt']
            IMPORTANT: File content truncated.
            Status: Showing lines 1-2000 of 2001 total lines.
            To read more: Use the read_file tool with offset=2001 and limit=2000.

            File: big.txt
               1 | line 1
               2 | line 2
               3 | line 3
               4 | line 4
               5 | line 5
               6 | line 6
               7 | line 7
               8 | line 8
               9 | line 9
              10 | l"#]]
        .assert_eq(&big_block.content[..330]);
        assert!(big_block.content.ends_with("\n2000 | line 2000"));
        expect![[
            r#"{"totalLines":2001,"returnedLines":2000,"wasTruncated":true,"linesShown":[1,2000]}"#
        ]]
        .assert_eq(&serde_json::to_string(&big_block.metadata).unwrap());
        let exact_block = &parsed.content_blocks[1];
        assert!(
            exact_block
                .content
                .starts_with("[read_file for 'exact.txt']\nFile: exact.txt\n   1 | x1\n")
        );
        expect![[
            r#"{"totalLines":2000,"returnedLines":2000,"wasTruncated":false,"linesShown":[1,2000]}"#
        ]]
        .assert_eq(&serde_json::to_string(&exact_block.metadata).unwrap());
    }

    #[test]
    fn line_length_limit_keeps_1997_characters_and_an_ellipsis() {
        let ws = workspace("//- message\n@/wide.txt\n");
        let line = "a".repeat(2000) + "\n" + &"b".repeat(2001) + "\n" + &"é".repeat(2500);
        std::fs::write(ws.root.join("wide.txt"), line).unwrap();
        let parsed = parse(&ws, &ws.message);
        let lines: Vec<&str> = parsed.content_blocks[0].content.lines().collect();
        assert_eq!(lines[2], format!("1 | {}", "a".repeat(2000)));
        assert_eq!(lines[3], format!("2 | {}...", "b".repeat(1997)));
        assert_eq!(lines[4], format!("3 | {}...", "é".repeat(1997)));
    }

    #[test]
    fn trailing_newline_counts_as_an_empty_last_line_and_empty_files_have_one_line() {
        check(
            r#"
//- /two.txt
a
b

//- /empty.txt
//- message
@/two.txt @/empty.txt"#,
            expect![[r#"
                {
                  "text": "'two.txt' 'empty.txt'",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "two.txt",
                      "content": "[read_file for 'two.txt']\nFile: two.txt\n1 | a\n2 | b\n3 | ",
                      "metadata": {
                        "totalLines": 3,
                        "returnedLines": 3,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          3
                        ]
                      }
                    },
                    {
                      "type": "file",
                      "path": "empty.txt",
                      "content": "[read_file for 'empty.txt']\nFile: empty.txt\n1 | ",
                      "metadata": {
                        "totalLines": 1,
                        "returnedLines": 1,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          1
                        ]
                      }
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": [
                    "two.txt",
                    "empty.txt"
                  ]
                }"#]],
        );
    }

    #[test]
    fn notebook_cells_are_extracted_and_numbered() {
        check(
            r##"
//- /nb.ipynb
{"cells": [{"cell_type": "markdown", "source": ["# Title"]}, {"cell_type": "code", "source": ["x = 1", "print(x)"]}, {"cell_type": "raw", "source": ["skip"]}]}
//- message
@/nb.ipynb"##,
            expect![[r#"
                {
                  "text": "'nb.ipynb'",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "nb.ipynb",
                      "content": "[read_file for 'nb.ipynb']\nFile: nb.ipynb\n1 | # Title\n2 | x = 1\n3 | print(x)\n",
                      "metadata": {
                        "totalLines": 4,
                        "returnedLines": 4,
                        "wasTruncated": false
                      }
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": [
                    "nb.ipynb"
                  ]
                }"#]],
        );
    }

    #[test]
    fn each_distinct_mention_is_fetched_once_and_every_occurrence_replaced() {
        check(
            r#"
//- /a.txt
A
//- message
@/a.txt and again @/a.txt; trailing punctuation: @/a.txt..."#,
            expect![[r#"
                {
                  "text": "'a.txt' and again 'a.txt'; trailing punctuation: 'a.txt..'.",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "a.txt",
                      "content": "[read_file for 'a.txt']\nFile: a.txt\n1 | A",
                      "metadata": {
                        "totalLines": 1,
                        "returnedLines": 1,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          1
                        ]
                      }
                    },
                    {
                      "type": "file",
                      "path": "a.txt..",
                      "content": "[read_file for 'a.txt..']\nError: Failed to access path \"a.txt..\": ENOENT: no such file or directory, stat '$WS/a.txt..'"
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": [
                    "a.txt"
                  ]
                }"#]],
        );
    }

    // ------------------------------------------------------------------ git and host kinds

    #[test]
    fn git_and_host_sections_are_appended_in_first_appearance_order() {
        check(
            r#"
//- answer terminal
$ cargo test
ok
//- answer problems
src/app.ts
- [ts Error] 1 | x : boom
//- answer git-changes
Working directory changes:

 M a.txt
//- answer commit abc1234
Commit: abc1234 (abc1234full)
//- answer url https://example.com/doc
Doc text
//- message
See @terminal, @problems, @git-changes and @abc1234 plus @https://example.com/doc"#,
            expect![[r#"
                {
                  "text": "See Terminal Output (see below for output), Workspace Problems (see below for diagnostics), Working directory changes (see below for details) and Git commit 'abc1234' (see below for commit info) plus 'https://example.com/doc'\n\n<terminal_output>\n$ cargo test\nok\n</terminal_output>\n\n<workspace_diagnostics>\nsrc/app.ts\n- [ts Error] 1 | x : boom\n</workspace_diagnostics>\n\n<git_working_state>\nWorking directory changes:\n\n M a.txt\n</git_working_state>\n\n<git_commit hash=\"abc1234\">\nCommit: abc1234 (abc1234full)\n</git_commit>\n\n<url_content url=\"https://example.com/doc\">\nDoc text\n</url_content>",
                  "contentBlocks": [],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn failed_host_and_git_fetches_get_the_error_texts_and_the_rest_still_works() {
        check(
            r#"
//- /a.txt
A
//- error problems
host did not answer roo/host/resolveMention within 5000 ms
//- error terminal
host error -32601: method not found
//- error git-changes
spawn failed
//- error commit deadbee
boom
//- error url http://x.y
no host
//- message
@problems @terminal @git-changes @deadbee @http://x.y @/a.txt"#,
            expect![[r#"
                {
                  "text": "Workspace Problems (see below for diagnostics) Terminal Output (see below for output) Working directory changes (see below for details) Git commit 'deadbee' (see below for commit info) 'http://x.y' 'a.txt'\n\n<workspace_diagnostics>\nError fetching diagnostics: host did not answer roo/host/resolveMention within 5000 ms\n</workspace_diagnostics>\n\n<terminal_output>\nError fetching terminal output: host error -32601: method not found\n</terminal_output>\n\n<git_working_state>\nError fetching working state: spawn failed\n</git_working_state>\n\n<git_commit hash=\"deadbee\">\nError fetching commit info: boom\n</git_commit>\n\n<url_content url=\"http://x.y\">\nError fetching content: no host\n</url_content>",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "a.txt",
                      "content": "[read_file for 'a.txt']\nFile: a.txt\n1 | A",
                      "metadata": {
                        "totalLines": 1,
                        "returnedLines": 1,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          1
                        ]
                      }
                    }
                  ],
                  "diagnostics": [],
                  "mentionedFiles": [
                    "a.txt"
                  ]
                }"#]],
        );
    }

    #[test]
    fn other_schemes_are_left_as_typed() {
        check(
            r#"
//- message
@ftp://x.y/z and mail@example.com and @problemsX and @ABCDEF1"#,
            expect![[r#"
                {
                  "text": "@ftp://x.y/z and mail@example.com and @problemsX and @ABCDEF1",
                  "contentBlocks": [],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    // ------------------------------------------------------------------ slash commands

    #[test]
    fn whitespace_before_a_command_is_kept() {
        check(
            r#"
//- /.roo/commands/setup.md
Set it up.
//- /.roo/commands/deploy.md
---
description: Ship it
mode: code
---
Deploy.
//- message
First line
/setup the project
Then /deploy later"#,
            expect![[r#"
                {
                  "text": "First line\nCommand 'setup' (see below for command content) the project\nThen Command 'deploy' (see below for command content) later",
                  "contentBlocks": [],
                  "slashCommandHelp": "<command name=\"setup\">\nSet it up.\n</command>\n\n<command name=\"deploy\">\nDescription: Ship it\n\nDeploy.\n</command>",
                  "mode": "code",
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn inherited_object_names_and_unknown_names_are_not_commands() {
        check(
            r#"
//- message
Try /toString and /constructor and /nope and /__proto__"#,
            expect![[r#"
                {
                  "text": "Try /toString and /constructor and /nope and /__proto__",
                  "contentBlocks": [],
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn a_command_token_is_replaced_where_it_was_found() {
        check(
            r#"
//- /.roo/commands/setup.md
S
//- message
x /setupfoo /setup"#,
            expect![[r#"
                {
                  "text": "x /setupfoo Command 'setup' (see below for command content)",
                  "contentBlocks": [],
                  "slashCommandHelp": "<command name=\"setup\">\nS\n</command>",
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn built_in_init_and_trailing_dot_names() {
        let ws =
            workspace("//- /.roo/commands/build..md\nBuild.\n//- message\n/init then /build.\n");
        let parsed = parse(&ws, &ws.message);
        expect!["Command 'init' (see below for command content) then Command 'build.' (see below for command content)"].assert_eq(&parsed.text);
        let help = parsed.slash_command_help.unwrap();
        assert!(help.starts_with("<command name=\"init\">\nDescription: Analyze codebase and create concise AGENTS.md files for AI assistants\n\n<task>"));
        assert!(help.ends_with("</command>\n\n<command name=\"build.\">\nBuild.\n</command>"));
    }

    #[test]
    fn project_commands_win_over_global_and_zoo_folder_wins_over_roo() {
        check(
            r#"
//- /.zoo/commands/a.md
project zoo a
//- /.roo/commands/a.md
project roo a
//- ~/.roo/commands/a.md
global a
//- ~/.roo/commands/b.md
---
mode: debug
---
global b
//- message
/b /a"#,
            expect![[r#"
                {
                  "text": "Command 'b' (see below for command content) Command 'a' (see below for command content)",
                  "contentBlocks": [],
                  "slashCommandHelp": "<command name=\"b\">\nglobal b\n</command>\n\n<command name=\"a\">\nproject zoo a\n</command>",
                  "mode": "debug",
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    #[test]
    fn empty_command_file_and_broken_front_matter() {
        check(
            r#"
//- /.roo/commands/empty.md
//- /.roo/commands/broken.md
---
this is: [not closed
just words
---
Body
//- message
/empty /broken"#,
            expect![[r#"
                {
                  "text": "/empty Command 'broken' (see below for command content)",
                  "contentBlocks": [],
                  "slashCommandHelp": "<command name=\"broken\">\n---\nthis is: [not closed\njust words\n---\nBody\n</command>",
                  "diagnostics": [],
                  "mentionedFiles": []
                }"#]],
        );
    }

    // ------------------------------------------------------------------ user-authored spans

    #[test]
    fn only_the_user_message_span_is_parsed() {
        check(
            r#"
//- /a.txt
A
//- /.roo/commands/setup.md
S
//- message
[read_file for 'x'] Result: @/a.txt /setup
<user_message>
/setup with @/a.txt
</user_message>
tool output @/a.txt"#,
            expect![[r#"
                {
                  "text": "[read_file for 'x'] Result: @/a.txt /setup\n<user_message>\nCommand 'setup' (see below for command content) with 'a.txt'\n</user_message>\ntool output @/a.txt",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "a.txt",
                      "content": "[read_file for 'a.txt']\nFile: a.txt\n1 | A",
                      "metadata": {
                        "totalLines": 1,
                        "returnedLines": 1,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          1
                        ]
                      }
                    }
                  ],
                  "slashCommandHelp": "<command name=\"setup\">\nS\n</command>",
                  "diagnostics": [],
                  "mentionedFiles": [
                    "a.txt"
                  ]
                }"#]],
        );
    }

    #[test]
    fn unclosed_user_message_is_parsed_to_the_end_with_a_diagnostic() {
        check(
            r#"
//- /a.txt
A
//- message
<user_message>
@/a.txt"#,
            expect![[r#"
                {
                  "text": "<user_message>\n'a.txt'",
                  "contentBlocks": [
                    {
                      "type": "file",
                      "path": "a.txt",
                      "content": "[read_file for 'a.txt']\nFile: a.txt\n1 | A",
                      "metadata": {
                        "totalLines": 1,
                        "returnedLines": 1,
                        "wasTruncated": false,
                        "linesShown": [
                          1,
                          1
                        ]
                      }
                    }
                  ],
                  "diagnostics": [
                    {
                      "code": "unclosedUserMessage",
                      "message": "<user_message> has no closing tag; parsed to the end of the text"
                    }
                  ],
                  "mentionedFiles": [
                    "a.txt"
                  ]
                }"#]],
        );
    }

    #[test]
    fn user_content_array_expands_text_blocks_and_user_tool_results_only() {
        check_content(
            r#"
//- /a.txt
A
//- /.roo/commands/m.md
---
mode: ask
---
M
//- message
[
  {"type": "text", "text": "<user_message>\n/m @/a.txt\n</user_message>", "cache_control": {"type": "ephemeral"}},
  {"type": "text", "text": "<environment_details>@/a.txt</environment_details>"},
  {"type": "tool_result", "tool_use_id": "t1", "content": "<user_message>\nok @/a.txt\n</user_message>"},
  {"type": "tool_result", "tool_use_id": "t2", "content": "file says <user_message>\n@/a.txt\n</user_message>"},
  {"type": "tool_result", "tool_use_id": "t3", "content": [
    {"type": "text", "text": "<user_message>\nsee @/a.txt\n</user_message>"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
    {"type": "text", "text": "output: <user_message>@/a.txt</user_message>"}
  ]},
  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
  {"type": "tool_use", "id": "u1", "name": "x", "input": {}}
]"#,
            expect![[r#"
                {
                  "content": [
                    {
                      "type": "text",
                      "text": "<user_message>\nCommand 'm' (see below for command content) 'a.txt'\n</user_message>",
                      "cache_control": {
                        "type": "ephemeral"
                      }
                    },
                    {
                      "type": "text",
                      "text": "[read_file for 'a.txt']\nFile: a.txt\n1 | A"
                    },
                    {
                      "type": "text",
                      "text": "<command name=\"m\">\nM\n</command>"
                    },
                    {
                      "type": "text",
                      "text": "<environment_details>@/a.txt</environment_details>"
                    },
                    {
                      "type": "tool_result",
                      "tool_use_id": "t1",
                      "content": [
                        {
                          "type": "text",
                          "text": "<user_message>\nok 'a.txt'\n</user_message>"
                        },
                        {
                          "type": "text",
                          "text": "[read_file for 'a.txt']\nFile: a.txt\n1 | A"
                        }
                      ]
                    },
                    {
                      "type": "tool_result",
                      "tool_use_id": "t2",
                      "content": "file says <user_message>\n@/a.txt\n</user_message>"
                    },
                    {
                      "type": "tool_result",
                      "tool_use_id": "t3",
                      "content": [
                        {
                          "type": "text",
                          "text": "<user_message>\nsee 'a.txt'\n</user_message>"
                        },
                        {
                          "type": "text",
                          "text": "[read_file for 'a.txt']\nFile: a.txt\n1 | A"
                        },
                        {
                          "type": "image",
                          "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": "AAAA"
                          }
                        },
                        {
                          "type": "text",
                          "text": "output: <user_message>@/a.txt</user_message>"
                        }
                      ]
                    },
                    {
                      "type": "image",
                      "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": "AAAA"
                      }
                    },
                    {
                      "type": "tool_use",
                      "id": "u1",
                      "name": "x",
                      "input": {}
                    }
                  ],
                  "mode": "ask"
                }"#]],
        );
    }
}
