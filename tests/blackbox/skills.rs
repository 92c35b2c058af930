//! Skills over stdio: `/name` that is no command names a skill of the project or home
//! configuration folder (`skills-<mode>` before `skills`, project before global, `.zoo` before
//! `.roo`), validated as the original does, formatted byte for byte in `slashCommandHelp`, and
//! read only through the read gate (a link to an ignored file never leaks).

use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, binary};

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
}

/// A server whose home folder is `home` (the global skills live there).
fn start(fixture: &Fixture, home: &Fixture) -> Server {
    let home_path = home.root().to_string_lossy().into_owned();
    let mut server = Server::spawn_with_env(&[("HOME", home_path.as_str())]);
    server
        .initialize(&[fixture.root()], Value::Null)
        .expect("initialize");
    server
}

fn parse(server: &mut Server, text: &str, mode: Option<&str>) -> Value {
    let mut params = json!({ "text": text });
    if let Some(mode) = mode {
        params["currentMode"] = json!(mode);
    }
    server.call("roo/mentions/parse", params)
}

fn help(result: &Value) -> Option<&str> {
    result.get("slashCommandHelp").and_then(Value::as_str)
}

#[test]
fn a_project_skill_gives_the_originals_help_block_and_no_mode() {
    let ws = Fixture::new(&[(
        ".roo/skills/pdf-tools/SKILL.md",
        &skill_md(
            "pdf-tools",
            "  Work with PDF files  ",
            "# PDF\n\nUse pdftotext.",
        ),
    )]);
    let home = Fixture::new(&[]);
    let mut server = start(&ws, &home);
    let result = parse(&mut server, "Please /pdf-tools now", None);
    assert_eq!(
        result["text"],
        "Please Command 'pdf-tools' (see below for command content) now"
    );
    assert_eq!(
        help(&result),
        Some(
            "Skill: pdf-tools\nDescription: Work with PDF files\nSource: project\n\n--- Skill Instructions ---\n\n# PDF\n\nUse pdftotext."
        )
    );
    assert!(result.get("mode").is_none(), "skills never set a mode");
}

#[test]
fn commands_win_over_skills_and_come_first_in_the_help() {
    let ws = Fixture::new(&[
        (".roo/commands/review.md", "Review it."),
        (
            ".roo/skills/review/SKILL.md",
            &skill_md("review", "Skill review", "Skill body."),
        ),
        (
            ".roo/skills/deploy/SKILL.md",
            &skill_md("deploy", "Ship it", "Deploy body."),
        ),
    ]);
    let home = Fixture::new(&[]);
    let mut server = start(&ws, &home);
    let result = parse(&mut server, "/deploy then /review", None);
    assert_eq!(
        help(&result),
        Some(
            "<command name=\"review\">\nReview it.\n</command>\n\nSkill: deploy\nDescription: Ship it\nSource: project\n\n--- Skill Instructions ---\n\nDeploy body."
        )
    );
}

#[test]
fn project_beats_global_and_the_mode_folder_beats_the_generic_one() {
    let ws = Fixture::new(&[
        (
            ".roo/skills/lint/SKILL.md",
            &skill_md("lint", "project generic", "P."),
        ),
        (
            ".roo/skills-architect/lint/SKILL.md",
            &skill_md("lint", "project architect", "PA."),
        ),
    ]);
    let home = Fixture::new(&[
        (
            ".roo/skills/lint/SKILL.md",
            &skill_md("lint", "global generic", "G."),
        ),
        (
            ".roo/skills-code/lint/SKILL.md",
            &skill_md("lint", "global code", "GC."),
        ),
        (
            ".roo/skills/only-global/SKILL.md",
            &skill_md("only-global", "from home", "Home body."),
        ),
    ]);
    let mut server = start(&ws, &home);
    let description = |result: &Value| {
        help(result)
            .and_then(|h| h.lines().nth(1))
            .map(str::to_owned)
    };
    // Default mode `code`: the project's generic skill beats the home's code-mode skill.
    let result = parse(&mut server, "/lint", None);
    assert_eq!(
        description(&result).as_deref(),
        Some("Description: project generic")
    );
    let result = parse(&mut server, "/lint", Some("architect"));
    assert_eq!(
        description(&result).as_deref(),
        Some("Description: project architect")
    );
    let result = parse(&mut server, "/only-global", None);
    assert_eq!(
        help(&result),
        Some(
            "Skill: only-global\nDescription: from home\nSource: global\n\n--- Skill Instructions ---\n\nHome body."
        )
    );
    // A mode that cannot name a folder gets the generic skills only.
    let result = parse(&mut server, "/lint", Some("../skills-architect"));
    assert_eq!(
        description(&result).as_deref(),
        Some("Description: project generic")
    );

    std::fs::remove_dir_all(ws.path(".roo/skills")).unwrap();
    let result = parse(&mut server, "/lint", None);
    assert_eq!(
        description(&result).as_deref(),
        Some("Description: global code")
    );
    let result = parse(&mut server, "/lint", Some("ask"));
    assert_eq!(
        description(&result).as_deref(),
        Some("Description: global generic")
    );
}

#[test]
fn zoo_folder_wins_over_roo_when_it_exists() {
    let ws = Fixture::new(&[
        (
            ".roo/skills/fmt/SKILL.md",
            &skill_md("fmt", "from roo", "R."),
        ),
        (
            ".zoo/skills/fmt/SKILL.md",
            &skill_md("fmt", "from zoo", "Z."),
        ),
    ]);
    let home = Fixture::new(&[]);
    let mut server = start(&ws, &home);
    let result = parse(&mut server, "/fmt", None);
    assert!(help(&result).unwrap().contains("Description: from zoo\n"));
}

#[test]
fn invalid_skills_are_not_skills_and_their_names_stay_in_the_text() {
    let ws = Fixture::new(&[
        // The front matter name must equal the folder name.
        (
            ".roo/skills/wrong-name/SKILL.md",
            &skill_md("other", "D", "B."),
        ),
        // A description is required, non-blank, at most 1024 characters.
        (
            ".roo/skills/no-desc/SKILL.md",
            "---\nname: no-desc\n---\nB.\n",
        ),
        (
            ".roo/skills/blank-desc/SKILL.md",
            "---\nname: blank-desc\ndescription: \"   \"\n---\nB.\n",
        ),
        (
            ".roo/skills/long-desc/SKILL.md",
            &skill_md("long-desc", &"d".repeat(1025), "B."),
        ),
        // No front matter at all.
        (".roo/skills/bare/SKILL.md", "Just text.\n"),
        // Upper case, underscores and double hyphens are not skill names.
        (".roo/skills/Upper/SKILL.md", &skill_md("Upper", "D", "B.")),
        (".roo/skills/a--b/SKILL.md", &skill_md("a--b", "D", "B.")),
        // A file where the skill folder should be.
        (".roo/skills/file-not-dir", "x"),
        // The limit itself is fine.
        (
            ".roo/skills/max-desc/SKILL.md",
            &skill_md("max-desc", &"d".repeat(1024), "Max."),
        ),
    ]);
    let home = Fixture::new(&[]);
    let mut server = start(&ws, &home);
    let text =
        "/wrong-name /other /no-desc /blank-desc /long-desc /bare /Upper /a--b /file-not-dir";
    let result = parse(&mut server, text, None);
    assert_eq!(result["text"], text);
    assert!(help(&result).is_none(), "{result}");
    let result = parse(&mut server, "/max-desc", None);
    assert!(help(&result).unwrap().ends_with("\n\nMax."));
}

#[test]
fn a_skill_linked_to_an_ignored_file_or_folder_never_leaks() {
    let secret = skill_md("leak", "SECRET-DESCRIPTION", "SECRET-BODY");
    let ws = Fixture::new(&[
        (".rooignore", "secrets/\n.roo/skills/hidden/\n"),
        ("secrets/SKILL.md", &secret),
        ("secrets/leak-dir/SKILL.md", &secret),
        (
            ".roo/skills/hidden/SKILL.md",
            &skill_md("hidden", "SECRET-DESCRIPTION", "SECRET-BODY"),
        ),
    ]);
    // The SKILL.md file is a link to an ignored file; a whole skill folder links to an
    // ignored folder; and a skill lives in a folder the rules ignore by name.
    ws.symlink(ws.path("secrets/SKILL.md"), ".roo/skills/leak/SKILL.md");
    ws.symlink(ws.path("secrets/leak-dir"), ".roo/skills/leak-dir");
    let home = Fixture::new(&[]);
    // A global skill linking into the workspace's ignored folder does not leak either.
    home.symlink(ws.path("secrets/SKILL.md"), ".roo/skills/leak/SKILL.md");
    let mut server = start(&ws, &home);
    for name in ["leak", "leak-dir", "hidden"] {
        let result = parse(&mut server, &format!("/{name}"), None);
        assert_eq!(result["text"], format!("/{name}"), "{name}");
        assert!(!result.to_string().contains("SECRET"), "{name}: {result}");
    }
}

#[test]
fn a_fifo_skill_file_is_skipped_without_waiting() {
    let ws = Fixture::new(&[(".roo/skills/pipe/.keep", "")]);
    let status = Command::new("mkfifo")
        .arg(ws.path(".roo/skills/pipe/SKILL.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let home = Fixture::new(&[]);
    let mut server = start(&ws, &home);
    let result = parse(&mut server, "/pipe", None);
    assert_eq!(result["text"], "/pipe");
}

#[test]
fn the_mentions_command_line_takes_the_mode() {
    let ws = Fixture::new(&[(
        ".roo/skills-debug/trace/SKILL.md",
        &skill_md("trace", "Trace it", "T."),
    )]);
    let home = Fixture::new(&[]);
    let run = |extra: &[&str]| -> Value {
        let output = Command::new(binary())
            .args(["mentions", "--workspace"])
            .arg(ws.root())
            .args(extra)
            .arg("/trace")
            .env("HOME", home.root())
            .output()
            .unwrap();
        assert!(output.status.success());
        serde_json::from_slice(&output.stdout).unwrap()
    };
    assert!(run(&[]).get("slashCommandHelp").is_none());
    assert_eq!(
        run(&["--mode", "debug"])["slashCommandHelp"],
        "Skill: trace\nDescription: Trace it\nSource: project\n\n--- Skill Instructions ---\n\nT."
    );
}
