//! The one client of the sidecar's JSON-RPC over stdio, shared by `roo-context demo`, the stdio
//! bench and the black-box tests: frames messages with `Content-Length`, reads the server's output
//! on a thread, answers server-to-client requests through a callback, and never waits longer than
//! its bound for anything, so a broken server becomes an error instead of a hang.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use crate::framing::frame;

/// Answers the server's requests to the client: (method, params) → result or (code, message).
pub type HostHandler = Box<dyn FnMut(&str, &Value) -> Result<Value, (i64, String)> + Send>;

/// Why a client call did not give an answer.
#[derive(Debug)]
pub enum ClientError {
    /// Nothing (or not the awaited message) arrived within the client's bound.
    Silent(String),
    /// The server closed its output.
    Closed,
    /// The server wrote a body that is not JSON.
    InvalidJson(String),
    /// Writing to the server failed (it went away).
    Write(std::io::Error),
    /// The server answered the request with an error object.
    Rpc { method: String, error: Value },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Silent(what) => write!(f, "the server sent {what} before the deadline"),
            ClientError::Closed => write!(f, "the server closed its output"),
            ClientError::InvalidJson(e) => write!(f, "the server wrote invalid JSON: {e}"),
            ClientError::Write(e) => write!(f, "the server went away: {e}"),
            ClientError::Rpc { method, error } => write!(f, "{method} failed: {error}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// Reads `Content-Length` frames from `output` and sends each body, decoded by `decode`, until
/// the stream or the receiver ends. The one frame reader of the clients (the byte-level test
/// client decodes nothing; this client parses JSON).
pub fn read_bodies<T>(output: impl Read, tx: mpsc::Sender<T>, decode: impl Fn(Vec<u8>) -> T) {
    let mut reader = BufReader::new(output);
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

/// A client of one server: its input (the server's stdin) and the messages it wrote.
pub struct Client {
    input: Option<Box<dyn Write + Send>>,
    incoming: mpsc::Receiver<Result<Value, String>>,
    /// The server process when this client spawned it; killed when the client is dropped.
    child: Option<Child>,
    wait: Duration,
    next_id: i64,
    /// Messages received while waiting for something else.
    pub backlog: VecDeque<Value>,
    host: Option<HostHandler>,
    /// Server-to-client request methods received but never answered.
    silent_methods: Vec<String>,
    /// The server-to-client requests left unanswered, in arrival order.
    pub unanswered: Vec<Value>,
}

impl Client {
    /// A client over any pair of streams: `input` is what the server reads, `output` what it
    /// writes. `wait` bounds every wait for a message.
    pub fn new(
        input: impl Write + Send + 'static,
        output: impl Read + Send + 'static,
        wait: Duration,
    ) -> Client {
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            read_bodies(output, tx, |body| {
                serde_json::from_slice::<Value>(&body).map_err(|e| {
                    format!(
                        "{e}: {}",
                        String::from_utf8_lossy(&body[..body.len().min(400)])
                    )
                })
            })
        });
        Client {
            input: Some(Box::new(input)),
            incoming,
            child: None,
            wait,
            next_id: 1,
            backlog: VecDeque::new(),
            host: None,
            silent_methods: Vec::new(),
            unanswered: Vec::new(),
        }
    }

    /// Spawns `command` with piped stdin/stdout (stderr as the command says) and talks to it.
    pub fn spawn(mut command: Command, wait: Duration) -> std::io::Result<Client> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("no stdio pipes"));
        };
        let mut client = Client::new(stdin, stdout, wait);
        client.child = Some(child);
        Ok(client)
    }

    /// The spawned server process, if this client spawned one.
    pub fn child(&mut self) -> Option<&mut Child> {
        self.child.as_mut()
    }

    /// Installs the answerer for server-to-client requests (unset: they get -32601).
    pub fn set_host(&mut self, host: HostHandler) {
        self.host = Some(host);
    }

    /// Receives server-to-client requests named `method` without ever answering them (they
    /// are kept in [`Client::unanswered`]), like a host whose call never comes back.
    pub fn leave_unanswered(&mut self, method: &str) {
        self.silent_methods.push(method.to_owned());
    }

    /// Writes raw bytes to the server.
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let input = self.input.as_mut().ok_or_else(|| {
            ClientError::Write(std::io::Error::other("the client closed its side"))
        })?;
        input
            .write_all(bytes)
            .and_then(|()| input.flush())
            .map_err(ClientError::Write)
    }

    /// Frames and sends a message object.
    pub fn send(&mut self, message: &Value) -> Result<(), ClientError> {
        self.send_raw(&frame(message.to_string().as_bytes()))
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Result<i64, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), ClientError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Closes the server's input (its end of stream).
    pub fn close_input(&mut self) {
        self.input.take();
    }

    /// The next message as written, before `deadline`; `what` names it in the error.
    fn receive(&mut self, deadline: Instant, what: &str) -> Result<Value, ClientError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(left) {
            Ok(Ok(message)) => Ok(message),
            Ok(Err(e)) => Err(ClientError::InvalidJson(e)),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(ClientError::Silent(what.to_owned())),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(ClientError::Closed),
        }
    }

    fn is_host_request(message: &Value) -> bool {
        message.get("method").is_some() && message.get("id").is_some()
    }

    /// Waits for the first message `wanted` accepts; server-to-client requests it does not
    /// accept are answered, other messages go to the backlog. `what` names it in the error.
    fn wait_for(
        &mut self,
        what: &str,
        wanted: impl Fn(&Value) -> bool,
    ) -> Result<Value, ClientError> {
        let deadline = Instant::now() + self.wait;
        loop {
            let message = self.receive(deadline, what)?;
            if wanted(&message) {
                return Ok(message);
            }
            if Self::is_host_request(&message) {
                self.answer_host_request(&message)?;
            } else {
                self.backlog.push_back(message);
            }
        }
    }

    /// Receives the next message that is not a server-to-client request, answering those on
    /// the way.
    pub fn next_message(&mut self) -> Result<Value, ClientError> {
        self.wait_for("nothing", |m| !Self::is_host_request(m))
    }

    /// Waits for a server-to-client request named `method` and returns it unanswered; other
    /// messages go to the backlog (other host requests are answered as usual).
    pub fn host_request(&mut self, method: &str) -> Result<Value, ClientError> {
        if let Some(index) = self.unanswered.iter().position(|m| m["method"] == method) {
            return Ok(self.unanswered.remove(index));
        }
        self.wait_for(&format!("no {method} request"), |m| {
            Self::is_host_request(m) && m["method"] == method
        })
    }

    fn answer_host_request(&mut self, message: &Value) -> Result<(), ClientError> {
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        if self.silent_methods.contains(&method) {
            self.unanswered.push(message.clone());
            return Ok(());
        }
        let reply = match self.host.as_mut() {
            Some(host) => host(&method, &message["params"]),
            None => Err((-32601, format!("this host does not implement {method}"))),
        };
        let id = message["id"].clone();
        let response = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, text)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})
            }
        };
        self.send(&response)
    }

    /// Waits for the response to `id`; other messages go to the backlog.
    pub fn response(&mut self, id: i64) -> Result<Value, ClientError> {
        if let Some(index) = self.backlog.iter().position(|m| m["id"] == json!(id)) {
            return Ok(self.backlog.remove(index).unwrap_or_default());
        }
        self.wait_for(&format!("no response to {id}"), |m| {
            !Self::is_host_request(m) && m["id"] == json!(id)
        })
    }

    /// Sends a request and waits for its result; an error response is [`ClientError::Rpc`].
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let id = self.send_request(method, params)?;
        let response = self.response(id)?;
        match response.get("error") {
            Some(error) => Err(ClientError::Rpc {
                method: method.to_owned(),
                error: error.clone(),
            }),
            None => Ok(response["result"].clone()),
        }
    }

    /// Waits for a notification named `method` (from the backlog first) and returns its params.
    pub fn notification(&mut self, method: &str) -> Result<Value, ClientError> {
        if let Some(index) = self.backlog.iter().position(|m| m["method"] == method) {
            return Ok(self.backlog.remove(index).unwrap_or_default()["params"].clone());
        }
        let message = self.wait_for(&format!("no {method} notification"), |m| {
            !Self::is_host_request(m) && m["method"] == method
        })?;
        Ok(message["params"].clone())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client over OS pipes with a scripted "server" on the other ends: the bodies the server
    /// reads and the writer of what the client reads.
    fn client(wait: Duration) -> (Client, mpsc::Receiver<Vec<u8>>, std::io::PipeWriter) {
        let (server_reads, client_writes) = std::io::pipe().unwrap();
        let (client_reads, server_writes) = std::io::pipe().unwrap();
        let (tx, bodies) = mpsc::channel();
        std::thread::spawn(move || read_bodies(server_reads, tx, |body| body));
        (
            Client::new(client_writes, client_reads, wait),
            bodies,
            server_writes,
        )
    }

    fn write(to: &mut std::io::PipeWriter, message: Value) {
        to.write_all(&frame(message.to_string().as_bytes()))
            .unwrap();
    }

    fn read_one(bodies: &mpsc::Receiver<Vec<u8>>) -> Value {
        serde_json::from_slice(&bodies.recv_timeout(Duration::from_secs(30)).unwrap()).unwrap()
    }

    #[test]
    fn a_silent_server_is_an_error_not_a_hang() {
        let (mut client, _reads, _writes) = client(Duration::from_millis(50));
        let error = client.call("roo/workspace/status", json!({})).unwrap_err();
        assert!(matches!(error, ClientError::Silent(_)), "{error}");
        let error = client.notification("roo/files/didChange").unwrap_err();
        assert!(matches!(error, ClientError::Silent(_)), "{error}");
    }

    #[test]
    fn a_closed_output_and_invalid_json_are_errors() {
        let (mut client, _reads, mut writes) = client(Duration::from_secs(30));
        writes.write_all(&frame(b"{not json")).unwrap();
        let error = client.next_message().unwrap_err();
        assert!(matches!(error, ClientError::InvalidJson(_)), "{error}");
        let (mut client, _reads, writes) = self::client(Duration::from_secs(30));
        drop(writes);
        assert!(matches!(client.next_message(), Err(ClientError::Closed)));
    }

    #[test]
    fn host_requests_are_answered_notifications_kept_and_errors_typed() {
        let (mut client, reads, mut writes) = client(Duration::from_secs(30));
        client.set_host(Box::new(|method, params| match method {
            "roo/host/summarize" => Ok(json!({"text": params["n"]})),
            _ => Err((-32601, "no".into())),
        }));
        let id = client.send_request("x", json!({})).unwrap();
        assert_eq!(read_one(&reads)["method"], "x");
        write(
            &mut writes,
            json!({"jsonrpc": "2.0", "id": "h1", "method": "roo/host/summarize", "params": {"n": 7}}),
        );
        write(
            &mut writes,
            json!({"jsonrpc": "2.0", "method": "roo/files/didChange", "params": {"p": 1}}),
        );
        write(
            &mut writes,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "bad"}}),
        );
        match client.response(id) {
            Ok(response) => assert_eq!(response["error"]["code"], -32602),
            Err(e) => panic!("{e}"),
        }
        assert_eq!(
            read_one(&reads),
            json!({"jsonrpc": "2.0", "id": "h1", "result": {"text": 7}})
        );
        assert_eq!(
            client.notification("roo/files/didChange").unwrap(),
            json!({"p": 1})
        );
    }
}
