//! `roo-context demo`: a scripted host that spawns the real server, talks to it over stdio and
//! prints a readable transcript of the whole product on the bundled example workspace. Each step
//! names the JSON-RPC method it uses, so a newcomer learns the protocol by running it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::stdio_client::Client;

/// Arguments of `roo-context demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// The example workspace (copied to a temp folder first, so the demo's edits leave it as is).
    #[arg(long, short = 'w', default_value = "examples/demo-workspace")]
    workspace: PathBuf,
}

/// How long the demo waits for any one answer or notification.
const WAIT: Duration = Duration::from_secs(20);

type DemoResult<T> = Result<T, String>;

/// Starts the real server (this same executable) behind the shared stdio client, with the
/// built-in summarizer answering its `roo/host/summarize` requests.
fn spawn_host() -> DemoResult<Client> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find roo-context: {e}"))?;
    let mut command = Command::new(exe);
    command
        .args(["serve", "--log-level", "error"])
        .stderr(Stdio::inherit());
    let mut host =
        Client::spawn(command, WAIT).map_err(|e| format!("cannot start the server: {e}"))?;
    host.set_host(Box::new(|method, params| {
        answer_host_request(method, params).map_err(|text| (-32601, text))
    }));
    Ok(host)
}

/// A request the transcript shows: prints the method and its params, then waits for the result.
fn call(host: &mut Client, method: &str, params: Value) -> DemoResult<Value> {
    out!("  → {method} {}", preview(&params));
    host.call(method, params).map_err(|e| e.to_string())
}

/// The built-in deterministic summarizer: what an editor's model would do, done by rules so the
/// demo runs offline and always prints the same thing.
fn answer_host_request(method: &str, params: &Value) -> Result<Value, String> {
    if method != "roo/host/summarize" {
        return Err(format!("the demo host does not implement {method}"));
    }
    let messages = params["messages"].as_array().cloned().unwrap_or_default();
    let first_user_text = messages
        .iter()
        .find(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .unwrap_or_default();
    let task = first_user_text
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(120)
        .collect::<String>();
    let text = format!(
        "1. Previous Conversation: the user asked: \"{task}\". {} messages were exchanged.\n\
         2. Current Work: reviewing src/app.ts and its Greeter dependency.\n\
         3. Key Technical Concepts: TypeScript classes, interfaces.\n\
         4. Relevant Files and Code: src/app.ts, src/components/greeter.ts.\n\
         5. Problem Solving: none yet.\n\
         6. Pending Tasks and Next Steps: add a farewell message to App.start.\n\
         (written by roo-context's built-in deterministic demo summarizer; in an editor, the host's model writes this)",
        messages.len()
    );
    Ok(json!({"text": text, "cost": 0.0}))
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn preview(params: &Value) -> String {
    let text = params.to_string();
    if text.chars().count() > 110 {
        format!("{}…", text.chars().take(110).collect::<String>())
    } else {
        text
    }
}

fn heading(number: usize, title: &str) {
    out!(
        "\n── {number}. {title} {}",
        "─".repeat(60usize.saturating_sub(title.len()))
    );
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Runs the demo.
pub fn run(args: DemoArgs) -> ExitCode {
    match demo(&args) {
        Ok(()) => {
            out!("\nDone: every step above was a real JSON-RPC exchange with `roo-context serve`.");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("\nroo-context demo failed: {error}");
            ExitCode::from(1)
        }
    }
}

fn demo(args: &DemoArgs) -> DemoResult<()> {
    if !args.workspace.is_dir() {
        return Err(format!(
            "{} is not a folder (run from the repository root, or pass --workspace)",
            args.workspace.display()
        ));
    }
    let scratch = std::env::temp_dir().join(format!("roo-context-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let workspace = scratch.join("workspace");
    let storage = scratch.join("task-storage");
    copy_tree(&args.workspace, &workspace)
        .map_err(|e| format!("cannot copy the workspace: {e}"))?;
    std::fs::create_dir_all(&storage).map_err(|e| e.to_string())?;
    let result = script(&workspace, &storage);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn script(workspace: &Path, storage: &Path) -> DemoResult<()> {
    out!("roo-context demo: a scripted host talking to the real server over stdio");
    out!("workspace: {} (a copy of the example)", workspace.display());
    let mut host = spawn_host()?;

    heading(1, "Start");
    let root_uri = format!("file://{}", workspace.display());
    let init = call(
        &mut host,
        "initialize",
        json!({"processId": null, "capabilities": {}, "workspaceFolders": [{"uri": root_uri, "name": "demo"}],
               "initializationOptions": {"logLevel": "error"}}),
    )?;
    host.notify("initialized", json!({}))
        .map_err(|e| e.to_string())?;
    let methods = init["capabilities"]["experimental"]["rooContext"]["methods"]
        .as_array()
        .map_or(0, Vec::len);
    out!(
        "  ← {} {} with {methods} custom methods, folding ranges and document symbols",
        init["serverInfo"]["name"].as_str().unwrap_or("?"),
        init["serverInfo"]["version"].as_str().unwrap_or("?")
    );

    heading(2, "What may the agent read? (.rooignore)");
    let paths = [
        "src/app.ts",
        ".env",
        ".env.example",
        "secrets/deploy.pem",
        "src/config-link.json",
        "docs/internal/notes.md",
        "docs/internal/PUBLIC.md",
    ];
    let access = call(
        &mut host,
        "roo/ignore/validateAccess",
        json!({"paths": paths}),
    )?;
    for result in access["results"].as_array().into_iter().flatten() {
        let path = result["path"].as_str().unwrap_or("");
        match result.get("blockedBy") {
            None => out!("  ← allowed  {path}"),
            Some(by) => {
                let via = if by["via"] == "canonical" {
                    format!(
                        " (symlink to {})",
                        by["matchedPath"].as_str().unwrap_or("?")
                    )
                } else {
                    String::new()
                };
                out!(
                    "  ← blocked  {path:<24} {}:{} {}{via}",
                    by["file"].as_str().unwrap_or("implicit"),
                    by["line"],
                    by["pattern"].as_str().unwrap_or("")
                );
            }
        }
    }
    let command = "git log -1 && sudo cat \"secrets/api.json\" | head";
    let vetted = call(
        &mut host,
        "roo/ignore/validateCommand",
        json!({"command": command}),
    )?;
    out!(
        "  ← the command is blocked by its argument {}",
        vetted["blockedPath"]
    );

    heading(3, "What needs approval before writing? (write protection)");
    let protect = call(
        &mut host,
        "roo/protect/check",
        json!({"paths": [".roo/mcp.json", "AGENTS.md", "src/app.ts"]}),
    )?;
    for result in protect["results"].as_array().into_iter().flatten() {
        match result["pattern"].as_str() {
            Some(pattern) => out!(
                "  ← protected {} ({pattern})",
                result["path"].as_str().unwrap_or("")
            ),
            None => out!("  ← writable  {}", result["path"].as_str().unwrap_or("")),
        }
    }

    heading(4, "A user message with a mention and a command");
    let message = "Add a farewell to @/src/app.ts and do not touch @/.env please";
    match call(
        &mut host,
        "roo/mentions/parse",
        json!({"text": message, "options": {"taskId": "demo-task", "storageDir": storage}}),
    ) {
        Ok(parsed) => {
            out!(
                "  ← text: {}",
                parsed["text"]
                    .as_str()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("")
            );
            for block in parsed["contentBlocks"].as_array().into_iter().flatten() {
                let first = block["content"]
                    .as_str()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("");
                out!(
                    "  ← block for {}: {first}",
                    block["path"].as_str().unwrap_or("?")
                );
            }
        }
        Err(error) => out!("  (mentions unavailable: {error})"),
    }

    heading(
        5,
        "Files in the task's context, and a user edit behind the agent's back",
    );
    let app = workspace.join("src/app.ts");
    let original = std::fs::read_to_string(&app).map_err(|e| e.to_string())?;
    call(
        &mut host,
        "roo/files/track",
        json!({"taskId": "demo-task", "storageDir": storage, "path": "src/app.ts", "source": "read_tool", "content": original}),
    )?;
    out!("  ✎ the user edits src/app.ts on disk");
    std::fs::write(&app, format!("{original}\n// edited by the user\n"))
        .map_err(|e| e.to_string())?;
    let change = host
        .notification("roo/files/didChange")
        .map_err(|e| e.to_string())?;
    out!(
        "  ← roo/files/didChange (notification): task {} file {} was {}",
        change["taskId"].as_str().unwrap_or("?"),
        change["path"].as_str().unwrap_or("?"),
        change["kind"].as_str().unwrap_or("?")
    );
    let modified = call(
        &mut host,
        "roo/files/takeRecentlyModified",
        json!({"taskId": "demo-task"}),
    )?;
    out!("  ← recently modified: {}", modified["paths"]);

    heading(6, "The folded view of the files read (definitions only)");
    let folded = call(
        &mut host,
        "roo/fold/context",
        json!({"paths": ["src/app.ts", "src/components/greeter.ts", ".env"]}),
    )?;
    for line in folded["content"].as_str().unwrap_or("").lines() {
        out!("  │ {line}");
    }
    out!(
        "  ← {} files folded, {} skipped (.env is ignored and never shown)",
        folded["filesProcessed"],
        folded["filesSkipped"]
    );

    heading(7, "Token counts (o200k_base)");
    let conversation = json!([
        {"role": "user", "content": [{"type": "text", "text": "<task>Add a farewell message to App.start in src/app.ts</task>"}], "ts": 1000},
        {"role": "assistant", "content": [{"type": "text", "text": "I'll read the file first."}, {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "src/app.ts"}}], "ts": 1001},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": original}], "ts": 1002},
        {"role": "assistant", "content": [{"type": "text", "text": "App.start greets the world; I will add a farewell after the greeting."}], "ts": 1003},
        {"role": "user", "content": [{"type": "text", "text": "Also keep the Greeter API unchanged."}], "ts": 1004},
        {"role": "assistant", "content": [{"type": "text", "text": "Understood. Planning the edit now."}], "ts": 1005}
    ]);
    let exact = call(
        &mut host,
        "roo/tokens/count",
        json!({"messages": conversation}),
    )?;
    let estimate = call(
        &mut host,
        "roo/tokens/count",
        json!({"messages": conversation, "mode": "estimate"}),
    )?;
    out!(
        "  ← {} tokens exactly; the original's estimate says {}",
        exact["total"],
        estimate["total"]
    );

    heading(
        8,
        "Condense the conversation (the host's model is asked over JSON-RPC)",
    );
    match call(
        &mut host,
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation, "systemPrompt": "You are Roo.", "contextWindow": 200000,
               "filesReadByRoo": ["src/app.ts"], "cwd": workspace, "taskId": "demo-task"}),
    ) {
        Ok(managed) => {
            out!(
                "  ← the server asked roo/host/summarize; the demo's built-in summarizer answered"
            );
            out!(
                "  ← action {}, changed {}, tokens {} → {}, condenseId {}",
                managed["action"],
                managed["changed"],
                managed["prevContextTokens"],
                managed["newContextTokens"],
                managed["condenseId"]
            );
            if let Some(summary) = managed["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["isSummary"] == true))
            {
                for line in text_of(&summary["content"]).lines().take(12) {
                    out!("  │ {line}");
                }
            }
        }
        Err(error) => out!("  (context management unavailable: {error})"),
    }

    heading(9, "Shut down");
    call(&mut host, "shutdown", Value::Null)?;
    host.notify("exit", Value::Null)
        .map_err(|e| e.to_string())?;
    let status = host
        .child()
        .ok_or("no server process")?
        .wait()
        .map_err(|e| e.to_string())?;
    out!("  ← exit code {}", status.code().unwrap_or(-1));
    Ok(())
}
