//! Parse workers (issue 25, class 2b): tree-sitter runs in a child process with an address-space
//! cap (`RLIMIT_AS`) and a CPU-time cap (`RLIMIT_CPU`), killed at the file's deadline or when
//! its request is cancelled, because one tree-sitter operation in error recovery can take seconds
//! and gigabytes between two progress callbacks (nothing inside the parsing process can stop
//! it). The child is this binary again (`roo-context parse-worker`); it answers one job after
//! another, so a warm worker costs a pipe round trip, not a process start. [`ParseWorkers`] is
//! the fold crate's [`Isolate`]: the job and answer encoding is the fold crate's, this module
//! only moves bytes and owns the processes.
//! One file on purpose: both ends of the worker pipe (`ParseWorkers::exchange`, `serve_worker`)
//! write and read the frames below, and `unsafe` stays allowed in this module alone (and
//! `stdio.rs`); a split would widen that allowance.
//!
//! Frames on the worker's stdin: `job length (u64 LE)`, `CPU seconds for the job (u64 LE)`, the
//! job. On its stdout: `R` once the job's query is compiled (the file's clock starts there), then
//! `body length`, `resident KiB now`, `peak resident KiB` (u64 LE each),
//! `1` (answer) or `0` (error text), the body.
//!
//! One of the two modules of the workspace that may use `unsafe` (the other is `stdio.rs`): capping a child before it runs
//! (`CommandExt::pre_exec`), reaping it with its resource usage (`wait4`), waiting on its output
//! with a timeout (`poll`), its CPU cap per job and glibc's `malloc_trim`. Each block is a plain
//! system call on stack values.
//!
//! ## Decision: Parse workers: tree-sitter runs in capped child processes (issue 25, class 2b)
//!
//! Error recovery can take seconds and gigabytes inside one tree-sitter operation (Python on 64 KB
//! of `/*` passed 8 GiB between two progress callbacks), so no check inside the parsing process
//! bounds it. Every parse of the server (`outline`, `folding_ranges`, `document_symbols`, the
//! folded context's files) goes to `parse_worker::ParseWorkers`: the binary re-executed as
//! `roo-context parse-worker` (dispatched before argument parsing and logging), with `RLIMIT_AS`
//! (an equal share of 1 GiB, `ROO_CONTEXT_PARSE_MEMORY_MIB`: 512 MiB each with two workers), no
//! core files, `RLIMIT_STACK` raised so jobs run on its main thread (one stack, one heap in the
//! address space), and a CPU cap re-armed per job. The whole reader runs there (parse, query,
//! walks) and only its plain answer comes back, so the server holds no tree. The file's clock
//! starts when the worker says its query is compiled (`R`); the worker is killed 400 ms past the
//! budget, or within 10 ms of a cancel (the waiting thread polls the pipe and the request's flag),
//! and reaped with `wait4`: no zombie. How it ended becomes the error: an allocation failure on
//! stderr is `MemoryLimit`, SIGXCPU or the kill at the deadline `Timeout`, anything else
//! `ParseWorkerFailed` with the status and the worker's last words; a missing or unstartable binary
//! fails closed the same way (never a fallback to parsing in the server). Workers answer job after
//! job; one left holding a quarter of its cap is retired. A worker the pool killed (deadline,
//! cancel, memory cap) is replaced at once by one started with `--warm <languages served so far>`,
//! which compiles those queries before it reads a job: the start and the compile happen while no
//! request waits. At most as many as cores (1 to 4, `ROO_CONTEXT_PARSE_WORKERS`) work at once,
//! whatever the number of requests, so the server's parsing holds at most 1 GiB. A single-file
//! request whose parse was stopped answers -32803 naming the cause (`data.kind`); the folded
//! context lists the file with its reason. `unsafe` is denied, not forbidden, in the workspace, and
//! allowed in this module (`pre_exec`, `wait4`, `poll`, `setrlimit`): std has no safe way to cap a
//! child or wait on a pipe with a timeout; and in `stdio.rs` (`fcntl`, `read`, `write` on a
//! non-blocking stdin/stdout polled by the runtime, no blocking-pool hop per message). The
//! in-process memory sampler stays inside the worker and still stops most runaway parses early with
//! a diagnostic.
#![allow(unsafe_code)]

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use roo_context_fold::{Isolate, Isolation, IsolationError, Language};

/// The hidden subcommand that makes this binary a parse worker.
pub const SUBCOMMAND: &str = "parse-worker";

/// Default address space of all workers together, shared out equally: with two workers each
/// is capped at 512 MiB, so however many requests come, parsing holds at most 1 GiB.
pub const DEFAULT_MEMORY_LIMIT: usize = 1 << 30;

/// How long after a file's budget a worker is killed: its own deadline (checked in tree-sitter's
/// progress callback) normally answers first, with a timeout diagnostic.
const GRACE: Duration = Duration::from_millis(400);

/// Longest a worker may take to start and compile the job's query (fixed work, not the file's:
/// the file's clock starts after it).
const STARTUP: Duration = Duration::from_secs(60);

/// The worker's option naming the languages whose queries it compiles before its first job
/// (comma-separated [`Language::name`]s).
const WARM_OPTION: &str = "--warm";

/// How often a waiting caller looks at its request's cancellation flag.
const POLL: Duration = Duration::from_millis(10);

/// A worker left holding more than this share of its cap after a job is retired, so the next
/// file starts with (almost) the whole cap.
const RETIRE_AT_RESIDENT_SHARE: usize = 4;

/// Longest job or answer frame (the engine refuses sources over 16 MiB; an answer is capped at
/// 20,000 items).
const MAX_FRAME: u64 = 1 << 30;

/// Parse workers: at most `slots` at work at once (more callers wait, cancellable), each capped
/// at an equal share of the total memory given, so the whole server's parsing holds at most
/// that total however many requests come.
pub struct ParseWorkers {
    program: PathBuf,
    memory_limit: usize,
    slots: usize,
    pool: Mutex<Pool>,
    freed: Condvar,
    /// Largest peak resident set (KiB) a worker reported or was reaped with: for benchmarks.
    peak_child_kib: AtomicU64,
}

#[derive(Default)]
struct Pool {
    idle: Vec<Worker>,
    busy: usize,
    /// The languages this pool has served, in first-use order: a worker started later compiles
    /// their queries first (see [`ParseWorkers::replace`]).
    served: Vec<Language>,
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: ChildStderr,
}

/// How an exchange with a worker ended without an answer.
enum Failure {
    /// Writing the job failed: a warm worker had died while idle (try a fresh one).
    Stale(std::io::Error),
    /// The deadline passed; the worker is to be killed.
    Deadline,
    /// The request was cancelled; the worker is to be killed.
    Cancelled,
    /// The worker closed its stdout or sent garbage: it died or is broken.
    Broken(String),
    /// The worker answered with an error text (it could not read the job).
    Refused(String),
}

impl ParseWorkers {
    /// Workers running `program parse-worker`, `slots` at once, each capped at
    /// `total_memory / slots` bytes of address space.
    pub fn new(program: PathBuf, slots: usize, total_memory: usize) -> ParseWorkers {
        let slots = slots.max(1);
        ParseWorkers {
            program,
            memory_limit: total_memory / slots,
            slots,
            pool: Mutex::new(Pool::default()),
            freed: Condvar::new(),
            peak_child_kib: AtomicU64::new(0),
        }
    }

    /// Workers configured from the environment: `ROO_CONTEXT_PARSE_WORKER` (the program; this
    /// executable by default, through `/proc/self/exe`, so a binary replaced or deleted by an
    /// update still starts workers of its own build), `ROO_CONTEXT_PARSE_WORKERS` (how many at
    /// once; the number of cores, 1 to 4) and `ROO_CONTEXT_PARSE_MEMORY_MIB` (all of them
    /// together; 1024).
    pub fn from_environment() -> ParseWorkers {
        let own = PathBuf::from("/proc/self/exe");
        let program = std::env::var_os("ROO_CONTEXT_PARSE_WORKER")
            .map(PathBuf::from)
            .or_else(|| own.exists().then_some(own))
            .or_else(|| std::env::current_exe().ok())
            .unwrap_or_else(|| PathBuf::from("roo-context"));
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|value| value.parse::<usize>().ok())
                .filter(|value| *value > 0)
        };
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        ParseWorkers::new(
            program,
            number("ROO_CONTEXT_PARSE_WORKERS").unwrap_or(cores.clamp(1, 4)),
            number("ROO_CONTEXT_PARSE_MEMORY_MIB").map_or(DEFAULT_MEMORY_LIMIT, |mib| mib << 20),
        )
    }

    /// The address-space cap of each worker, in bytes.
    pub fn memory_limit(&self) -> usize {
        self.memory_limit
    }

    /// How many workers may work at once.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The largest peak resident set (KiB) of any worker so far (reported after a job, or read
    /// from the kernel when one was reaped).
    pub fn peak_child_kib(&self) -> u64 {
        self.peak_child_kib.load(Ordering::Relaxed)
    }

    /// Ends every idle worker and reaps it. An idle worker holds no state, and one started as a
    /// replacement may still be compiling queries, so it is killed rather than asked to finish.
    pub fn shutdown(&self) {
        let idle = std::mem::take(&mut self.lock().idle);
        for worker in idle {
            let Worker {
                mut child, stdin, ..
            } = worker;
            drop(stdin);
            let _ = child.kill();
            self.reap(child);
        }
    }

    /// How many workers are idle now (for tests and benchmarks).
    pub fn idle_workers(&self) -> usize {
        self.lock().idle.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for a free slot (the request may be cancelled meanwhile) and takes an idle worker
    /// if there is one.
    fn acquire(&self) -> Result<(Slot<'_>, Option<Worker>), IsolationError> {
        let mut pool = self.lock();
        while pool.busy >= self.slots {
            if roo_context_core::cancel::cancelled() {
                return Err(IsolationError::Cancelled);
            }
            pool = self
                .freed
                .wait_timeout(pool, POLL)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        pool.busy += 1;
        let worker = pool.idle.pop();
        Ok((Slot { workers: self }, worker))
    }

    fn spawn(&self) -> Result<Worker, IsolationError> {
        let limit = self.memory_limit;
        let served = self.lock().served.clone();
        let mut command = Command::new(&self.program);
        command.arg(SUBCOMMAND);
        if !served.is_empty() {
            let names: Vec<&str> = served.iter().map(|language| language.name()).collect();
            command.arg(WARM_OPTION).arg(names.join(","));
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: the closure runs in the child between fork and exec and only makes
        // async-signal-safe system calls (getrlimit/setrlimit) on stack values.
        unsafe {
            command.pre_exec(move || cap_this_process(limit));
        }
        let mut child = command.spawn().map_err(|error| {
            IsolationError::WorkerFailed(format!(
                "cannot start `{} {SUBCOMMAND}`: {error}",
                self.program.display()
            ))
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            self.reap(child);
            return Err(IsolationError::WorkerFailed(
                "the worker's pipes were not made".into(),
            ));
        };
        Ok(Worker {
            child,
            stdin,
            stdout,
            stderr,
        })
    }

    /// Starts a worker in place of one this pool killed (a deadline, a cancel, its memory cap),
    /// with the queries of every language served so far compiled before it reads a job: the
    /// start and the compile happen while no one waits, so the next file's answer is not late
    /// by them. Called while the caller still holds its slot; a worker that cannot start is
    /// left to the next request, which reports why.
    fn replace(&self) {
        let Ok(mut worker) = self.spawn() else {
            return;
        };
        let mut pool = self.lock();
        if pool.idle.len() + pool.busy <= self.slots {
            pool.idle.push(worker);
            return;
        }
        drop(pool);
        let _ = worker.child.kill();
        self.reap(worker.child);
    }

    /// Remembers the language of `job` for the workers started later.
    fn note_served(&self, job: &[u8]) {
        let Some(language) = roo_context_fold::isolation::job_language(job) else {
            return;
        };
        let mut pool = self.lock();
        if !pool.served.contains(&language) {
            pool.served.push(language);
        }
    }

    /// Kills (if still running) and reaps a worker; no zombie is left. Returns how it ended.
    fn reap(&self, child: Child) -> Ended {
        let pid = child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: plain system calls on a child of this process that no one else waits for
        // (std's `Child` is dropped without waiting).
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let reaped = loop {
            let result = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            if result == -1
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            break result == pid;
        };
        drop(child);
        if !reaped {
            return Ended::Unknown;
        }
        let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0);
        self.peak_child_kib.fetch_max(peak, Ordering::Relaxed);
        if libc::WIFSIGNALED(status) {
            Ended::Signal(libc::WTERMSIG(status))
        } else {
            Ended::Exit(libc::WEXITSTATUS(status))
        }
    }

    /// Sends one job and reads its answer, within `deadline`.
    fn exchange(
        &self,
        worker: &mut Worker,
        job: &[u8],
        cpu_seconds: u64,
        budget: Duration,
    ) -> Result<(Vec<u8>, u64), Failure> {
        let mut header = Vec::with_capacity(16);
        header.extend_from_slice(&(job.len() as u64).to_le_bytes());
        header.extend_from_slice(&cpu_seconds.to_le_bytes());
        // A worker reads the whole job before anything else, but one that does not (broken, or
        // not ours) must not hold this thread: the write waits as the reads do.
        let startup = deadline_after(STARTUP);
        write_until(&mut worker.stdin, &header, startup)?;
        write_until(&mut worker.stdin, job, startup)?;
        let mut ready = [0u8; 1];
        read_until(&mut worker.stdout, &mut ready, deadline_after(STARTUP))?;
        if ready != *b"R" {
            return Err(Failure::Broken("no ready mark".into()));
        }
        let deadline = deadline_after(budget + GRACE);
        let mut head = [0u8; 25];
        read_until(&mut worker.stdout, &mut head, deadline)?;
        let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
        let (length, resident_kib, peak_kib, ok) = (word(0), word(8), word(16), head[24]);
        if length > MAX_FRAME {
            return Err(Failure::Broken(format!("an answer of {length} bytes")));
        }
        self.peak_child_kib.fetch_max(peak_kib, Ordering::Relaxed);
        let mut body = vec![0u8; length as usize];
        read_until(&mut worker.stdout, &mut body, deadline)?;
        match ok {
            1 => Ok((body, resident_kib)),
            _ => Err(Failure::Refused(
                String::from_utf8_lossy(&body).into_owned(),
            )),
        }
    }

    /// What a dead or killed worker means for the file.
    fn failure(&self, worker: Worker, failure: Failure, budget: Duration) -> IsolationError {
        let Worker {
            mut child,
            stdin,
            stdout,
            mut stderr,
        } = worker;
        drop(stdin);
        drop(stdout);
        let _ = child.kill();
        let ended = self.reap(child);
        // The worker is gone, so its stderr ends: its last words say why (an allocation failure
        // under the address-space cap is how a parse that wanted more memory ends).
        let mut words = Vec::new();
        let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut words);
        let words = String::from_utf8_lossy(&words);
        let last_words = words.trim().lines().last().unwrap_or("").to_owned();
        match failure {
            Failure::Deadline => IsolationError::Timeout { budget },
            Failure::Cancelled => IsolationError::Cancelled,
            Failure::Refused(text) => {
                IsolationError::WorkerFailed(format!("refused the job: {text}"))
            }
            Failure::Stale(_) | Failure::Broken(_)
                if matches!(ended, Ended::Signal(libc::SIGXCPU)) =>
            {
                IsolationError::Timeout { budget }
            }
            Failure::Stale(_) | Failure::Broken(_) if out_of_memory(&words) => {
                IsolationError::MemoryLimit {
                    limit: self.memory_limit,
                }
            }
            Failure::Stale(error) => IsolationError::WorkerFailed(format!(
                "the worker {ended} before reading the job ({error}){}",
                said(&last_words)
            )),
            Failure::Broken(what) => IsolationError::WorkerFailed(format!(
                "the worker {ended} ({what}){}",
                said(&last_words)
            )),
        }
    }
}

impl Isolate for ParseWorkers {
    fn run(&self, job: &[u8], budget: Duration) -> Result<Vec<u8>, IsolationError> {
        self.note_served(job);
        let (_slot, idle) = self.acquire()?;
        let (mut worker, mut fresh) = match idle {
            Some(worker) => (worker, false),
            None => (self.spawn()?, true),
        };
        // The CPU cap is the wall budget and the grace, rounded up, plus a second: the kill at
        // the deadline comes first; the cap holds if this process cannot kill (it died).
        let cpu_seconds = (budget + GRACE).as_secs() + 2;
        loop {
            match self.exchange(&mut worker, job, cpu_seconds, budget) {
                Ok((answer, resident_kib)) => {
                    let resident = usize::try_from(resident_kib).unwrap_or(usize::MAX) << 10;
                    if resident > self.memory_limit / RETIRE_AT_RESIDENT_SHARE {
                        let Worker { child, stdin, .. } = worker;
                        drop(stdin);
                        self.reap(child);
                    } else {
                        self.lock().idle.push(worker);
                    }
                    return Ok(answer);
                }
                // A warm worker that died while idle (the kernel's OOM killer, a signal): one
                // fresh worker gets the job.
                Err(Failure::Stale(_)) if !fresh => {
                    let Worker { child, .. } = worker;
                    self.reap(child);
                    worker = self.spawn()?;
                    fresh = true;
                }
                Err(failure) => {
                    let error = self.failure(worker, failure, budget);
                    // A worker this pool ended on purpose is replaced at once; one that broke
                    // on its own is not (the next request starts one and reports what happens).
                    if matches!(
                        error,
                        IsolationError::Timeout { .. }
                            | IsolationError::Cancelled
                            | IsolationError::MemoryLimit { .. }
                    ) {
                        self.replace();
                    }
                    return Err(error);
                }
            }
        }
    }
}

/// The instant `budget` from now (far away for absurd budgets).
fn deadline_after(budget: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(budget)
        .unwrap_or_else(|| now + Duration::from_secs(60 * 60 * 24))
}

/// A busy slot; freed (and a waiter woken) when dropped.
struct Slot<'a> {
    workers: &'a ParseWorkers,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.workers.lock().busy -= 1;
        self.workers.freed.notify_one();
    }
}

/// How a reaped worker ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    Exit(i32),
    Signal(i32),
    Unknown,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Exit(code) => write!(formatter, "exited with code {code}"),
            Ended::Signal(signal) => write!(formatter, "was killed by signal {signal}"),
            Ended::Unknown => formatter.write_str("ended"),
        }
    }
}

/// `: "<text>"` when the worker said something.
fn said(last_words: &str) -> String {
    if last_words.is_empty() {
        String::new()
    } else {
        format!(": \"{}\"", last_words.chars().take(300).collect::<String>())
    }
}

/// True when a worker's stderr says an allocation failed (Rust's and tree-sitter's messages).
fn out_of_memory(stderr: &str) -> bool {
    [
        "memory allocation of",
        "failed to allocate",
        // tree-sitter's own allocator aborts with this when a growing buffer hits the cap
        // (which allocation fails first depends on timing: seen under load in CI).
        "failed to reallocate",
        "out of memory",
        "Cannot allocate memory",
    ]
    .iter()
    .any(|needle| stderr.contains(needle))
}

/// Waits until `fd` is ready for `events` or a [`POLL`] passed; `Err` for the deadline, a cancel
/// or a failed poll.
fn wait_ready(fd: libc::c_int, events: libc::c_short, deadline: Instant) -> Result<bool, Failure> {
    if roo_context_core::cancel::cancelled() {
        return Err(Failure::Cancelled);
    }
    let now = Instant::now();
    if now >= deadline {
        return Err(Failure::Deadline);
    }
    let wait = (deadline - now).min(POLL);
    let mut poll = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd on the stack.
    let ready = unsafe { libc::poll(&mut poll, 1, wait.as_millis().max(1) as libc::c_int) };
    if ready < 0 {
        let error = std::io::Error::last_os_error();
        if error.kind() == std::io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(Failure::Broken(format!("poll: {error}")));
    }
    Ok(ready > 0)
}

/// Writes `bytes` to the worker's stdin a pipe-atomic chunk at a time, each after the pipe said
/// it has room, so a worker that stops reading cannot block this thread past `deadline`.
fn write_until(to: &mut ChildStdin, bytes: &[u8], deadline: Instant) -> Result<(), Failure> {
    /// POSIX: with `POLLOUT`, at least `PIPE_BUF` bytes can be written without blocking.
    const CHUNK: usize = libc::PIPE_BUF;
    let mut written = 0;
    while written < bytes.len() {
        if !wait_ready(to.as_raw_fd(), libc::POLLOUT, deadline)? {
            continue;
        }
        let end = (written + CHUNK).min(bytes.len());
        match to.write(&bytes[written..end]) {
            Ok(0) => return Err(Failure::Stale(std::io::ErrorKind::WriteZero.into())),
            Ok(count) => written += count,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(Failure::Stale(error)),
        }
    }
    Ok(())
}

/// Fills `buffer` from `from`, waiting at most until `deadline` and giving up when this thread's
/// request is cancelled (checked every [`POLL`]).
fn read_until(from: &mut ChildStdout, buffer: &mut [u8], deadline: Instant) -> Result<(), Failure> {
    let mut filled = 0;
    while filled < buffer.len() {
        if !wait_ready(from.as_raw_fd(), libc::POLLIN, deadline)? {
            continue;
        }
        // Readable or hung up: a read returns at once.
        match from.read(&mut buffer[filled..]) {
            Ok(0) => return Err(Failure::Broken("its output ended".into())),
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(Failure::Broken(format!("read: {error}"))),
        }
    }
    Ok(())
}

/// In the child, before exec: the address-space cap, a first CPU cap (the worker sets one per
/// job), and no core files (an allocation failure aborts).
fn cap_this_process(memory_limit: usize) -> std::io::Result<()> {
    let set = |resource, soft: libc::rlim_t, hard: Option<libc::rlim_t>| {
        let mut current = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit on a stack value; async-signal-safe.
        if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let max = hard.map_or(current.rlim_max, |hard| hard.min(current.rlim_max));
        let limit = libc::rlimit {
            rlim_cur: soft.min(max),
            rlim_max: max,
        };
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    let memory = memory_limit as libc::rlim_t;
    set(libc::RLIMIT_AS, memory, Some(memory))?;
    // Room for the readers on the main thread (only touched pages count); a hard limit below
    // it leaves the worker starting a thread per job instead.
    set(
        libc::RLIMIT_STACK,
        (roo_context_fold::isolation::WORKER_STACK_BYTES + (1 << 20)) as libc::rlim_t,
        None,
    )?;
    set(libc::RLIMIT_CORE, 0, Some(0))?;
    set(libc::RLIMIT_CPU, 30, None)
}

/// The workers the server parses with, once configured by [`install`].
static INSTALLED: OnceLock<Arc<ParseWorkers>> = OnceLock::new();

/// Makes every later server in this process parse through `workers` (the binary installs the
/// workers from the environment before serving; tests that run the library in-process parse
/// in-process).
pub fn install(workers: Arc<ParseWorkers>) {
    let _ = INSTALLED.set(workers);
}

/// Where the server's readers parse: through the installed workers, or here.
pub fn isolation() -> Isolation {
    match INSTALLED.get() {
        Some(workers) => Isolation::through(workers.clone(), 0),
        None => Isolation::in_process(),
    }
}

/// The server's outline options: the defaults, parsing through [`isolation`], with the time
/// budget of one file from `ROO_CONTEXT_PARSE_TIMEOUT_MS` when set (tests of cancellation give
/// a budget no test waits for).
pub fn outline_options() -> roo_context_fold::OutlineOptions {
    let defaults = roo_context_fold::OutlineOptions::default();
    let parse_timeout = std::env::var("ROO_CONTEXT_PARSE_TIMEOUT_MS")
        .ok()
        .and_then(|value| value.parse::<u64>().ok())
        .filter(|millis| *millis > 0)
        .map_or(defaults.parse_timeout, Duration::from_millis);
    roo_context_fold::OutlineOptions {
        isolation: isolation(),
        parse_timeout,
        ..defaults
    }
}

/// The worker's side (`roo-context parse-worker`): answers jobs from stdin until it ends.
pub fn serve_worker() -> ExitCode {
    // The parent raised this thread's stack limit before exec; jobs run here then, so the
    // address space holds one stack and one heap (no 256 MiB thread stack per job).
    let main_stack_fits = stack_soft_limit()
        .is_some_and(|limit| limit >= roo_context_fold::isolation::WORKER_STACK_BYTES as u64);
    let arguments: Vec<String> = std::env::args().collect();
    if let Some(at) = arguments
        .iter()
        .position(|argument| argument == WARM_OPTION)
    {
        let languages: Vec<Language> = arguments
            .get(at + 1)
            .map(|names| names.split(',').filter_map(Language::from_name).collect())
            .unwrap_or_default();
        roo_context_fold::isolation::warm(&languages);
    }
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    loop {
        let mut head = [0u8; 16];
        match input.read_exact(&mut head) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => {
                return ExitCode::SUCCESS;
            }
            Err(_) => return ExitCode::from(2),
        }
        let length = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let cpu_seconds = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
        if length > MAX_FRAME {
            return ExitCode::from(2);
        }
        let mut job = vec![0u8; length as usize];
        if input.read_exact(&mut job).is_err() {
            return ExitCode::from(2);
        }
        let _ = roo_context_fold::isolation::prepare(&job);
        if output
            .write_all(b"R")
            .and_then(|()| output.flush())
            .is_err()
        {
            return ExitCode::SUCCESS;
        }
        arm_cpu_limit(cpu_seconds);
        let answer = if main_stack_fits {
            roo_context_fold::isolation::serve_on_this_stack(&job)
        } else {
            roo_context_fold::isolation::serve(&job)
        };
        drop(job);
        release_free_memory();
        let (ok, body) = match &answer {
            Ok(bytes) => (1u8, bytes.as_slice()),
            Err(text) => (0u8, text.as_bytes()),
        };
        let (resident, peak) = resident_kib();
        let mut frame = Vec::with_capacity(25 + body.len());
        frame.extend_from_slice(&(body.len() as u64).to_le_bytes());
        frame.extend_from_slice(&resident.to_le_bytes());
        frame.extend_from_slice(&peak.to_le_bytes());
        frame.push(ok);
        frame.extend_from_slice(body);
        if output
            .write_all(&frame)
            .and_then(|()| output.flush())
            .is_err()
        {
            // The server is gone.
            return ExitCode::SUCCESS;
        }
    }
}

/// This process's soft stack limit (`u64::MAX` when unlimited, `None` when unreadable).
#[allow(
    clippy::unnecessary_cast,
    reason = "rlim_t is u64 on Linux, not everywhere"
)]
fn stack_soft_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit on a stack value.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return None;
    }
    Some(if limit.rlim_cur == libc::RLIM_INFINITY {
        u64::MAX
    } else {
        limit.rlim_cur as u64
    })
}

/// The CPU-time cap for the next job: what this worker used so far plus `seconds` (past it the
/// kernel sends SIGXCPU, which ends the worker).
fn arm_cpu_limit(seconds: u64) {
    // SAFETY: plain system calls on stack values.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return;
        }
        let used = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) as u64 + 1;
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_CPU, &mut limit) != 0 {
            return;
        }
        limit.rlim_cur = (used + seconds).min(limit.rlim_max);
        libc::setrlimit(libc::RLIMIT_CPU, &limit);
    }
}

/// Gives freed heap back to the kernel between jobs, so a warm worker's resident set is what it
/// holds, not what its largest job once needed.
fn release_free_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: glibc's malloc_trim has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// This process's resident set and its peak, in KiB (`/proc/self/status`; 0 where unreadable).
fn resident_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[cfg(test)]
mod tests {
    use super::out_of_memory;

    /// Each way a worker's allocator says the address-space cap was hit is a memory limit, not
    /// a broken worker (tree-sitter's `realloc` failure was missed and, under load, reported as
    /// `parseWorkerFailed`).
    #[test]
    fn every_allocator_last_word_under_the_cap_is_out_of_memory() {
        for words in [
            "memory allocation of 1048576 bytes failed",
            "tree-sitter failed to allocate 4096 bytes",
            "tree-sitter failed to reallocate 502296 bytes",
            "fatal runtime error: out of memory",
            "Cannot allocate memory (os error 12)",
        ] {
            assert!(out_of_memory(words), "{words}");
        }
        assert!(!out_of_memory(
            "thread 'main' panicked at src/lib.rs:1:1: boom"
        ));
    }
}
