//! A real JSON-RPC client for black-box tests: spawns the built `roo-context` binary, frames
//! messages with `Content-Length`, and reads its stdout on a thread. Waiting has a generous
//! deadline so a broken server fails the test instead of hanging it; nothing asserts on time.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single wait may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// Path of the binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_roo-context"))
}

/// Encodes one frame.
pub fn frame(body: &str) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Answers the server's requests to the client (method, params) → result or (code, message).
pub type HostHandler = Box<dyn FnMut(&str, &Value) -> Result<Value, (i64, String)> + Send>;

/// A running server and its client side.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: mpsc::Receiver<Value>,
    next_id: i64,
    /// Notifications (and unanswered messages) received while waiting for something else.
    pub backlog: VecDeque<Value>,
    host: Option<HostHandler>,
    /// Server-to-client request methods the test host receives but never answers.
    silent_methods: Vec<String>,
    /// The server-to-client requests left unanswered, in arrival order.
    pub unanswered: Vec<Value>,
}

/// Reads `Content-Length` frames from the server's stdout and sends each body, decoded by
/// `decode`, until the stream or the receiver ends. The one frame reader of the test clients.
pub(crate) fn read_bodies<T>(
    stdout: impl Read,
    tx: mpsc::Sender<T>,
    decode: impl Fn(Vec<u8>) -> T,
) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length:") {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let Some(length) = length else { return };
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() || tx.send(decode(body)).is_err() {
            return;
        }
    }
}

impl Server {
    /// Spawns `roo-context` with extra environment variables.
    pub fn spawn_with_env(env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(binary());
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .env("ROO_CONTEXT_LOG", "warn");
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("spawn roo-context");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            read_bodies(stdout, tx, |body| {
                serde_json::from_slice::<Value>(&body).expect("server wrote invalid JSON")
            })
        });
        Server {
            stdin: child.stdin.take(),
            child,
            incoming: rx,
            next_id: 1,
            backlog: VecDeque::new(),
            host: None,
            silent_methods: Vec::new(),
            unanswered: Vec::new(),
        }
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

    /// Installs the answerer for server-to-client requests.
    pub fn set_host(&mut self, host: HostHandler) {
        self.host = Some(host);
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
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Sends a message object.
    pub fn send(&mut self, message: &Value) {
        self.send_raw(&frame(&message.to_string()));
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Receives the next message, answering server-to-client requests on the way.
    pub fn next_message(&mut self) -> Value {
        loop {
            let message = self
                .incoming
                .recv_timeout(DEADLINE)
                .expect("server sent nothing before the deadline");
            if message.get("method").is_some() && message.get("id").is_some() {
                self.answer_host_request(&message);
                continue;
            }
            return message;
        }
    }

    /// Receives server-to-client requests named `method` without ever answering them (they
    /// are kept in [`Server::unanswered`]), like a host whose call never comes back.
    pub fn leave_unanswered(&mut self, method: &str) {
        self.silent_methods.push(method.to_owned());
    }

    /// Waits for a server-to-client request named `method` and returns it unanswered; other
    /// messages go to the backlog (other host requests are answered as usual).
    pub fn host_request(&mut self, method: &str) -> Value {
        if let Some(index) = self.unanswered.iter().position(|m| m["method"] == method) {
            return self.unanswered.remove(index);
        }
        loop {
            let message = self
                .incoming
                .recv_timeout(DEADLINE)
                .expect("server sent nothing before the deadline");
            if message.get("method").is_some() && message.get("id").is_some() {
                if message["method"] == method {
                    return message;
                }
                self.answer_host_request(&message);
                continue;
            }
            self.backlog.push_back(message);
        }
    }

    fn answer_host_request(&mut self, message: &Value) {
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        if self.silent_methods.contains(&method) {
            self.unanswered.push(message.clone());
            return;
        }
        let reply = match self.host.as_mut() {
            Some(host) => host(&method, &message["params"]),
            None => Err((-32601, format!("test host does not implement {method}"))),
        };
        let id = message["id"].clone();
        let response = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, text)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})
            }
        };
        self.send(&response);
    }

    /// Waits for the response to `id`; notifications go to the backlog.
    pub fn response(&mut self, id: i64) -> Value {
        if let Some(index) = self.backlog.iter().position(|m| m["id"] == json!(id)) {
            return self.backlog.remove(index).unwrap();
        }
        loop {
            let message = self.next_message();
            if message["id"] == json!(id) {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Sends a request and waits: `Ok(result)` or `Err(error object)`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params);
        let response = self.response(id);
        match response.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(response["result"].clone()),
        }
    }

    /// Like [`Server::request`] but panics on an error response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.request(method, params)
            .unwrap_or_else(|e| panic!("{method} failed: {e}"))
    }

    /// Waits for a notification named `method` (from the backlog first).
    pub fn notification(&mut self, method: &str) -> Value {
        if let Some(index) = self.backlog.iter().position(|m| m["method"] == method) {
            return self.backlog.remove(index).unwrap()["params"].clone();
        }
        loop {
            let message = self.next_message();
            if message["method"] == method {
                return message["params"].clone();
            }
            self.backlog.push_back(message);
        }
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
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(start.elapsed() < DEADLINE, "server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes stdin.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
