//! The black-box tests' side of the shared stdio client (`roo_context::stdio_client`): spawns
//! the built `roo-context` binary and turns every missing answer into a test failure. Waiting has
//! a generous deadline so a broken server fails the test instead of hanging it; nothing asserts
//! on time. Also the fixture workspaces the tests build.

#![allow(dead_code)]

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use roo_context::stdio_client::{Client, ClientError};
use serde_json::{Value, json};

pub use roo_context::stdio_client::read_bodies;

/// How long any single wait may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Path of the binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_roo-context"))
}

/// Encodes one frame.
pub fn frame(body: &str) -> Vec<u8> {
    roo_context::stdio_client::frame(body.as_bytes())
}

/// A running server and its client side (the shared stdio client; here every failure to get
/// an answer fails the test).
pub struct Server {
    client: Client,
}

impl std::ops::Deref for Server {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl std::ops::DerefMut for Server {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

fn must<T>(result: Result<T, ClientError>) -> T {
    result.unwrap_or_else(|e| panic!("{e}"))
}

impl Server {
    /// Spawns `roo-context` with extra environment variables.
    pub fn spawn_with_env(env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(binary());
        command
            .stderr(std::process::Stdio::inherit())
            .env("ROO_CONTEXT_LOG", "warn");
        for (k, v) in env {
            command.env(k, v);
        }
        let client = Client::spawn(command, DEADLINE).expect("spawn roo-context");
        Server { client }
    }

    /// Serves in this process for tests that need no process features (environment, exit
    /// status, stderr, kill): `roo_context::run` on its own thread and runtime (the one the
    /// binary uses), over OS pipes, so framing and answers are the binary's. The server ends
    /// when the client closes its input (dropping the `Server` does).
    pub fn in_process() -> Server {
        let (server_reads, client_writes) = std::io::pipe().expect("pipe");
        let (client_reads, server_writes) = std::io::pipe().expect("pipe");
        std::thread::Builder::new()
            .name("in-process roo-context".into())
            .spawn(move || {
                let runtime = roo_context::cli::runtime("serve").expect("runtime");
                runtime.block_on(async {
                    let input = tokio::fs::File::from_std(OwnedFd::from(server_reads).into());
                    let output = tokio::fs::File::from_std(OwnedFd::from(server_writes).into());
                    roo_context::run(input, output, None, Arc::new(AtomicBool::new(false))).await
                });
                // As the binary does: a read of the input may still be blocked on a thread.
                runtime.shutdown_background();
            })
            .expect("server thread");
        Server {
            client: Client::new(client_writes, client_reads, DEADLINE),
        }
    }

    /// [`Server::start`] served in this process (see [`Server::in_process`]).
    pub fn start_in_process(folders: &[&Path], options: Value) -> Server {
        let mut server = Server::in_process();
        server.initialize(folders, options).expect("initialize");
        server
    }

    /// Spawns `roo-context` with default settings.
    pub fn spawn() -> Server {
        Server::spawn_with_env(&[])
    }

    /// Spawns and initializes with these workspace folders and `initializationOptions`.
    pub fn start(folders: &[&Path], options: Value) -> Server {
        let mut server = Server::spawn();
        server.initialize(folders, options).expect("initialize");
        server
    }

    /// `initialize` + `initialized`.
    pub fn initialize(&mut self, folders: &[&Path], options: Value) -> Result<Value, Value> {
        let folders: Vec<Value> = folders
            .iter()
            .map(|f| {
                json!({"uri": file_uri(f), "name": f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()})
            })
            .collect();
        let mut params =
            json!({"processId": null, "capabilities": {}, "workspaceFolders": folders});
        if !options.is_null() {
            params["initializationOptions"] = options;
        }
        let result = self.request("initialize", params)?;
        self.notify("initialized", json!({}));
        Ok(result)
    }

    /// Writes raw bytes to the server's stdin.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        must(self.client.send_raw(bytes))
    }

    /// Sends a message object.
    pub fn send(&mut self, message: &Value) {
        must(self.client.send(message))
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        must(self.client.send_request(method, params))
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        must(self.client.notify(method, params))
    }

    /// Receives the next message, answering server-to-client requests on the way.
    pub fn next_message(&mut self) -> Value {
        must(self.client.next_message())
    }

    /// Receives the next answer (a message without a `method`), dropping notifications the server
    /// sends on its own meanwhile (`roo/workspace/didWatch` after `initialize`).
    pub fn next_reply(&mut self) -> Value {
        loop {
            let message = self.next_message();
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Waits for a server-to-client request named `method` and returns it unanswered; other
    /// messages go to the backlog (other host requests are answered as usual).
    pub fn host_request(&mut self, method: &str) -> Value {
        must(self.client.host_request(method))
    }

    /// Waits for the response to `id`; notifications go to the backlog.
    pub fn response(&mut self, id: i64) -> Value {
        must(self.client.response(id))
    }

    /// Sends a request and waits: `Ok(result)` or `Err(error object)`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        match self.client.call(method, params) {
            Ok(result) => Ok(result),
            Err(ClientError::Rpc { error, .. }) => Err(error),
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`Server::request`] but panics on an error response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        must(self.client.call(method, params))
    }

    /// Waits for a notification named `method` (from the backlog first).
    pub fn notification(&mut self, method: &str) -> Value {
        must(self.client.notification(method))
    }

    /// Waits until `probe` returns `Some`, consuming notifications named `method` in between
    /// (each one is a moment when state may have changed).
    pub fn wait_until<T>(
        &mut self,
        method: &str,
        mut probe: impl FnMut(&mut Server) -> Option<T>,
    ) -> T {
        let start = Instant::now();
        loop {
            if let Some(value) = probe(self) {
                return value;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "condition not reached before the deadline"
            );
            self.notification(method);
        }
    }

    /// `shutdown` then `exit`; returns the exit status.
    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        self.call("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.wait()
    }

    /// Waits for the process to end (after `exit` or closed stdin).
    pub fn wait(mut self) -> ExitStatus {
        let start = Instant::now();
        let child = self.client.child().expect("a spawned server");
        loop {
            if let Some(status) = child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(start.elapsed() < DEADLINE, "server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills the process (SIGKILL: nothing is flushed) and waits for it.
    pub fn kill(mut self) {
        let child = self.client.child().expect("a spawned server");
        child.kill().expect("kill");
        child.wait().expect("wait");
    }

    /// Closes stdin.
    pub fn close_stdin(&mut self) {
        self.client.close_input();
    }
}

/// `file://` URI of an absolute path.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

/// A temporary workspace built from `(relative path, content)` pairs.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// Creates the files (parents included).
    pub fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let fixture = Fixture { dir };
        for (path, content) in files {
            fixture.write(path, content);
        }
        fixture
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Absolute path of a relative one.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// Writes a file, creating parent folders.
    pub fn write(&self, relative: &str, content: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// Replaces a file atomically (write a sibling, rename over), as editors save.
    pub fn replace(&self, relative: &str, content: &str) {
        let path = self.path(relative);
        let temp = path.with_extension("tmp-save");
        std::fs::write(&temp, content).unwrap();
        std::fs::rename(temp, path).unwrap();
    }

    /// Creates a symlink at `link` (relative) pointing to `target` (as given).
    pub fn symlink(&self, target: impl AsRef<Path>, link: &str) {
        let link = self.path(link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
    }
}

impl Fixture {
    /// Creates or atomically replaces a file.
    pub fn replace_or_create(&self, relative: &str, content: &str) {
        if self.path(relative).exists() {
            self.replace(relative, content);
        } else {
            self.write(relative, content);
        }
    }
}

/// A workspace, a storage folder for task state and a server on the workspace: what every test
/// of the file tracker starts from. Test modules add the helpers only they need in their own
/// `impl TaskSetup` blocks.
pub struct TaskSetup {
    pub workspace: Fixture,
    pub storage: tempfile::TempDir,
    pub server: Server,
}

impl TaskSetup {
    pub fn new(files: &[(&str, &str)]) -> TaskSetup {
        TaskSetup::with_env(files, &[])
    }

    /// The same, with the server spawned with these environment variables.
    pub fn with_env(files: &[(&str, &str)], env: &[(&str, &str)]) -> TaskSetup {
        let workspace = Fixture::new(files);
        let storage = tempfile::tempdir().expect("tempdir");
        let mut server = Server::spawn_with_env(env);
        server
            .initialize(&[workspace.root()], Value::Null)
            .expect("initialize");
        // A rename made before the recursive watch is up is found by the rescan that follows
        // it, and reads as a delete: the tests of this setup start once the folder is watched.
        let watching = server.notification("roo/workspace/didWatch");
        assert_eq!(
            watching["folders"][0]["recursive"], true,
            "the folder is watched recursively: {watching}"
        );
        TaskSetup {
            workspace,
            storage,
            server,
        }
    }

    /// The task's folder, created (as the agents lay it out: `tasks/<id>`).
    pub fn task_dir(&self, task: &str) -> PathBuf {
        let dir = self.storage.path().join("tasks").join(task);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A read of `path` by the read tool.
    pub fn track(&mut self, task: &str, path: &str) -> Value {
        self.track_with(task, path, None)
    }

    /// A read by the read tool, with the content the host says it read when given.
    pub fn track_with(&mut self, task: &str, path: &str, content: Option<&str>) -> Value {
        let mut params = json!({
            "taskId": task, "storageDir": self.task_dir(task), "path": path, "source": "read_tool"
        });
        if let Some(content) = content {
            params["content"] = json!(content);
        }
        self.server.call("roo/files/track", params)
    }

    /// A track from another source (`user_edited`, `roo_edited`, `file_mentioned`, ...).
    pub fn track_from(&mut self, task: &str, path: &str, source: &str) -> Value {
        let dir = self.task_dir(task);
        self.server.call(
            "roo/files/track",
            json!({"taskId": task, "storageDir": dir, "path": path, "source": source}),
        )
    }

    /// The task's `task_metadata.json`, parsed.
    pub fn metadata(&self, task: &str) -> Value {
        let text = std::fs::read_to_string(self.task_dir(task).join("task_metadata.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// Waits for the `didChange` of `path` (of any task), dropping others.
    pub fn changed(&mut self, path: &str) -> Value {
        self.changed_in(None, path)
    }

    /// Waits for the `didChange` of `path` for `task` (any task when `None`), dropping others.
    pub fn changed_in(&mut self, task: Option<&str>, path: &str) -> Value {
        loop {
            let change = self.server.notification("roo/files/didChange");
            if change["path"] == path && task.is_none_or(|t| change["taskId"] == t) {
                return change;
            }
        }
    }

    /// Changes `path` on disk as an editor saves and waits until the server reported it.
    pub fn user_edit(&mut self, path: &str, content: &str) {
        self.workspace.replace(path, content);
        self.changed(path);
    }

    /// The paths of the task's recently modified files (taken: the set is cleared).
    pub fn take_paths(&mut self, task: &str) -> Value {
        self.server
            .call("roo/files/takeRecentlyModified", json!({"taskId": task}))["paths"]
            .clone()
    }

    /// A take with the users' diffs; the deadline is long (tests never depend on wall-clock time).
    pub fn take_with_diffs(&mut self, task: &str) -> Value {
        self.server.call(
            "roo/files/takeRecentlyModified",
            json!({"taskId": task, "withDiffs": true, "limits": {"timeoutMs": 10_000}}),
        )
    }

    /// Opens the task from its folder without tracking anything (a resumed task).
    pub fn open(&mut self, task: &str) -> Value {
        let dir = self.task_dir(task);
        self.server
            .call("roo/files/read", json!({"taskId": task, "storageDir": dir}))
    }

    /// Ends the server with `stop`, runs `while_down` on the workspace, then serves the same
    /// workspace from a new server.
    pub fn restart_with(&mut self, stop: impl FnOnce(Server), while_down: impl FnOnce(&Fixture)) {
        let old = std::mem::replace(&mut self.server, Server::spawn());
        stop(old);
        while_down(&self.workspace);
        self.server
            .initialize(&[self.workspace.root()], Value::Null)
            .expect("initialize");
    }

    /// A clean shutdown, `while_down`, a new server.
    pub fn restart(&mut self, while_down: impl FnOnce(&Fixture)) {
        self.restart_with(|old| assert!(old.shutdown_and_exit().success()), while_down);
    }
}

/// An invalid-params error (-32602) whose message names `field` first:
/// ``invalid params: field `field`: …``, the one form every handler answers with.
pub fn assert_invalid_field(error: &Value, field: &str) {
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with(&format!("invalid params: field `{field}`: ")),
        "{error}"
    );
}
