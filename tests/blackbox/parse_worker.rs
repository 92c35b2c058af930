//! Parse workers (issue 25, class 2b): every tree-sitter parse of the server runs in a capped
//! child process. A file whose parse hits a cap answers a -32803 error naming the cause (never a
//! crash, never a hang), a cancelled request kills its worker, N parallel requests hold at most
//! the configured number of workers, and a worker that cannot start or dies fails closed with an
//! error saying so. Stand-in workers (`ROO_CONTEXT_PARSE_WORKER` naming a script) make each way a
//! worker can end certain; no test asserts how long anything took.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{DEADLINE, Fixture, Server, file_uri};

/// 64 KiB of `open` then as many `close`: the hostile-input shape of issue 25.
fn nested(open: &str, close: &str) -> String {
    let n = 64 * 1024 / (open.len() + close.len());
    format!("{}{}", open.repeat(n), close.repeat(n))
}

const ORDINARY: &str = "export class Cart {\n  add(item: string): void {\n    if (item) {\n      console.log(item);\n    }\n  }\n}\n";

/// Writes an executable stand-in worker that reads nothing and runs `body` (sh).
fn script(folder: &Path, name: &str, body: &str) -> String {
    let path = folder.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}

/// The processes whose parent is `pid` (from `/proc/*/stat`), as (pid, command line).
fn children(pid: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: the command may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
            continue;
        };
        let parent = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if parent == Some(pid) {
            let command = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push((child, String::from_utf8_lossy(&command).replace('\0', " ")));
        }
    }
    found
}

/// Polls `probe` until it returns `Some` (processes give no event to wait on), failing after the
/// harness's deadline.
fn poll_until<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "{what}: not reached before the deadline"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn server_pid(server: &mut Server) -> u32 {
    server.child().expect("a spawned server").id()
}

fn symbols(server: &mut Server, path: &Path) -> Value {
    let id = server.send_request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": file_uri(path)}}),
    );
    server.response(id)
}

fn failure_kind(response: &Value) -> &str {
    assert_eq!(response["error"]["code"], -32803, "{response}");
    response["error"]["data"]["kind"].as_str().unwrap_or("")
}

#[test]
fn a_parse_that_outlives_its_budget_answers_a_timeout_error_and_serving_goes_on() {
    // Java's grammar on `{-` x n `-}` x n: 12 s in one tree-sitter operation before workers.
    let fixture = Fixture::new(&[("Hostile.java", &nested("{-", "-}")), ("cart.ts", ORDINARY)]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let response = symbols(&mut server, &fixture.path("Hostile.java"));
    assert_eq!(failure_kind(&response), "timeout", "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("timed out") || message.contains("budget"),
        "{message}"
    );
    let outline = server.request("roo/fold/outline", json!({"path": "Hostile.java"}));
    let error = outline.expect_err("a timeout is an error");
    assert_eq!(error["data"]["kind"], "timeout", "{error}");
    // The next file is read by a worker as usual.
    let fine = symbols(&mut server, &fixture.path("cart.ts"));
    assert_eq!(fine["result"][0]["name"], "Cart", "{fine}");
}

#[test]
fn hostile_inputs_of_every_grammar_family_answer_or_name_a_cap_and_never_end_the_server() {
    let files = [
        ("comments.py", nested("/*", "*/")),
        ("ops.py", nested("(op *", "* op)")),
        ("comments.ts", nested("/*", "*/")),
        ("tags.tsx", nested("<a>", "</a>")),
        ("comments.ml", nested("(*", "*)")),
        ("page.html", nested("<a>", "</a>")),
        ("strings.rb", nested("\"", "\"")),
        ("blocks.c", nested("f(", ")")),
        ("templates.ejs", nested("<%", "%>")),
    ];
    let fixture = Fixture::new(
        &files
            .iter()
            .map(|(name, body)| (*name, body.as_str()))
            .collect::<Vec<_>>(),
    );
    let mut server = Server::start(&[fixture.root()], Value::Null);
    for (name, _) in &files {
        let response = symbols(&mut server, &fixture.path(name));
        if response.get("error").is_some() {
            assert!(
                ["timeout", "memoryLimit"].contains(&failure_kind(&response)),
                "{name}: {response}"
            );
        } else {
            assert!(response["result"].is_array(), "{name}: {response}");
        }
    }
    let folded = server.call(
        "roo/fold/context",
        json!({"paths": files.iter().map(|(name, _)| *name).collect::<Vec<_>>()}),
    );
    assert!(folded["diagnostics"].is_array(), "{folded}");
}

#[test]
fn a_worker_that_runs_out_of_memory_answers_a_memory_limit_error() {
    let fixture = Fixture::new(&[("cart.ts", ORDINARY)]);
    // What a worker does when an allocation fails under its address-space cap: the message of
    // Rust's (or tree-sitter's) allocator, then abort.
    let worker = script(
        fixture.root(),
        "oom-worker",
        "printf R\necho 'memory allocation of 1073741824 bytes failed' >&2\nkill -ABRT $$",
    );
    let mut server = Server::spawn_with_env(&[("ROO_CONTEXT_PARSE_WORKER", &worker)]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    let response = symbols(&mut server, &fixture.path("cart.ts"));
    assert_eq!(failure_kind(&response), "memoryLimit", "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("memory limit"),
        "{response}"
    );
}

#[test]
fn a_missing_or_dying_worker_fails_closed_with_an_error_that_says_so() {
    let fixture = Fixture::new(&[("cart.ts", ORDINARY)]);
    let dying = script(
        fixture.root(),
        "dying-worker",
        "echo 'worker broke' >&2\nexit 3",
    );
    let missing = fixture.root().join("no-such-worker");
    for (worker, says) in [
        (missing.to_string_lossy().into_owned(), "cannot start"),
        (dying, "worker broke"),
    ] {
        let mut server = Server::spawn_with_env(&[("ROO_CONTEXT_PARSE_WORKER", &worker)]);
        server.initialize(&[fixture.root()], Value::Null).unwrap();
        let response = symbols(&mut server, &fixture.path("cart.ts"));
        assert_eq!(failure_kind(&response), "parseWorkerFailed", "{response}");
        let message = response["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
        // The folded context names the file and why it is missing; it does not parse here.
        let folded = server.call("roo/fold/context", json!({"paths": ["cart.ts"]}));
        assert_eq!(folded["filesProcessed"], 0, "{folded}");
        assert_eq!(
            folded["diagnostics"][0]["kind"], "parseWorkerFailed",
            "{folded}"
        );
        // The worker that failed was reaped.
        let pid = server_pid(&mut server);
        assert!(children(pid).is_empty(), "{:?}", children(pid));
    }
}

#[test]
fn a_cancelled_parse_kills_its_worker_and_parallel_requests_hold_at_most_the_configured_workers() {
    let fixture = Fixture::new(&[("cart.ts", ORDINARY)]);
    // A worker that never answers; the file's budget is longer than any test waits, so only the
    // cancel can end it.
    let stuck = script(fixture.root(), "stuck-worker", "printf R\nexec sleep 600");
    let mut server = Server::spawn_with_env(&[
        ("ROO_CONTEXT_PARSE_WORKER", &stuck),
        ("ROO_CONTEXT_PARSE_WORKERS", "2"),
        ("ROO_CONTEXT_HEAVY_SLOTS", "8"),
        ("ROO_CONTEXT_PARSE_TIMEOUT_MS", "600000"),
    ]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    let pid = server_pid(&mut server);
    let uri = file_uri(&fixture.path("cart.ts"));
    let ids: Vec<i64> = (0..6)
        .map(|_| {
            server.send_request(
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": uri}}),
            )
        })
        .collect();
    // Two workers start (each is the stand-in once its shell has exec'd `sleep`); the other
    // four requests wait for a slot.
    let workers = poll_until("two workers", || {
        let running = children(pid);
        let started = running
            .iter()
            .all(|(_, command)| command.contains("sleep 600"));
        (running.len() >= 2 && started).then_some(running)
    });
    assert_eq!(workers.len(), 2, "{workers:?}");
    // A waiting request is answered once the folded context asks too: still no third worker.
    let folded = server.send_request("roo/fold/context", json!({"paths": ["cart.ts"]}));
    for id in ids.iter().chain([&folded]) {
        server.notify("$/cancelRequest", json!({"id": id}));
    }
    for id in ids.iter().chain([&folded]) {
        let response = server.response(*id);
        assert_eq!(response["error"]["code"], -32800, "{response}");
    }
    assert!(children(pid).len() <= 2);
    // Every cancelled worker is killed and reaped: none is left running or as a zombie. Their
    // replacements (started warm, waiting idle) are new processes, never more than the slots.
    let cancelled: Vec<u32> = workers.iter().map(|(worker, _)| *worker).collect();
    poll_until("the cancelled workers are gone", || {
        let running = children(pid);
        assert!(running.len() <= 2, "{running:?}");
        running
            .iter()
            .all(|(worker, _)| !cancelled.contains(worker))
            .then_some(())
    });
    let outline = server.request("roo/fold/outline", json!({"path": "notes.md"}));
    assert!(outline.is_err(), "no such file: {outline:?}");
}

#[test]
fn a_worker_killed_at_its_deadline_is_replaced_at_once_by_one_warming_the_languages_served() {
    let fixture = Fixture::new(&[("cart.ts", ORDINARY)]);
    // A worker that logs how it was started and never answers; a budget that ends it makes the
    // kill certain.
    let log = fixture.root().join("started.log");
    let stuck = script(
        fixture.root(),
        "stuck-worker",
        &format!(
            "echo \"$@\" >> '{}'\nprintf R\nexec sleep 600",
            log.display()
        ),
    );
    let mut server = Server::spawn_with_env(&[
        ("ROO_CONTEXT_PARSE_WORKER", &stuck),
        ("ROO_CONTEXT_PARSE_TIMEOUT_MS", "100"),
    ]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    let pid = server_pid(&mut server);
    let started = || std::fs::read_to_string(&log).unwrap_or_default();
    let response = symbols(&mut server, &fixture.path("cart.ts"));
    assert_eq!(failure_kind(&response), "timeout", "{response}");
    // No request is pending, yet a second worker has started, told to compile the query of the
    // language it will be asked for before it reads a job (the real worker's side of `--warm`
    // is exercised by the timeout test above, whose next file goes to such a worker).
    let replacement = poll_until("a replacement worker", || {
        let lines: Vec<String> = started().lines().map(str::to_owned).collect();
        (lines.len() == 2).then(|| lines[1].clone())
    });
    assert_eq!(replacement, "parse-worker --warm typescript");
    let waiting = poll_until("the replacement waits", || {
        let running = children(pid);
        (running.len() == 1).then(|| running[0].0)
    });
    // The next file goes to it (no third start before the next kill).
    let next = symbols(&mut server, &fixture.path("cart.ts"));
    assert_eq!(failure_kind(&next), "timeout", "{next}");
    poll_until("the replacement is used and reaped", || {
        children(pid)
            .iter()
            .all(|(worker, _)| *worker != waiting)
            .then_some(())
    });
    // ... and its own replacement is the only start since: two kills, three starts.
    poll_until("the second replacement", || {
        (started().lines().count() == 3).then_some(())
    });
    assert!(children(pid).len() <= 1, "{:?}", children(pid));
}
