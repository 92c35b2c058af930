//! What a hostile file may cost (issue 25): the stack tree-sitter work runs on, and the memory a
//! parse may grow the process by. Some grammars' error recovery grows memory with the square of
//! the input (tree-sitter-python on `(op *)` x n then `(* op)` x n: 16 KB took 1 GB), and some
//! grammar scanners recurse once per nesting level, so neither time nor the caller's stack is a
//! bound on its own.

use std::cell::Cell;
use std::sync::Mutex;

/// Stack of the threads that run tree-sitter and the walks over its trees. Only the pages a
/// parse touches are ever committed; the size bounds the C recursion of grammar scanners with the
/// nesting limit ([`crate::OutlineOptions::max_nesting`]) far below it.
pub(crate) const GRAMMAR_STACK_BYTES: usize = 256 << 20;

thread_local! {
    /// Set on threads started with [`GRAMMAR_STACK_BYTES`] of stack.
    static ON_GRAMMAR_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Marks the current thread as one with a grammar-sized stack (threads this crate starts with
/// [`grammar_thread`]).
fn mark_grammar_stack() {
    ON_GRAMMAR_STACK.set(true);
}

/// A thread builder with a grammar-sized stack; the thread must call its work through
/// [`on_grammar_thread`].
pub(crate) fn grammar_thread() -> std::thread::Builder {
    std::thread::Builder::new()
        .name("roo-fold".into())
        .stack_size(GRAMMAR_STACK_BYTES)
}

/// Body of a thread built by [`grammar_thread`]: marks it, then runs `work`.
pub(crate) fn on_grammar_thread<R>(work: impl FnOnce() -> R) -> R {
    mark_grammar_stack();
    work()
}

/// Runs `work` on a stack of [`GRAMMAR_STACK_BYTES`]: here when this thread has one, else on a
/// scoped thread that has (with the caller's cancellation flag). A panic in `work` is resumed in
/// the caller. When no thread can be started, `work` runs here.
pub(crate) fn on_grammar_stack<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    if ON_GRAMMAR_STACK.get() {
        return work();
    }
    let flag = roo_context_core::cancel::current_flag();
    let slot = Mutex::new(Some(work));
    let ran = std::thread::scope(|scope| {
        let spawned = grammar_thread().spawn_scoped(scope, || {
            let work = slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
                .expect("the work is taken once");
            on_grammar_thread(|| roo_context_core::cancel::with_flag(flag, work))
        });
        spawned.map(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    });
    match ran {
        Ok(result) => result,
        Err(_) => {
            let work = slot
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .expect("the thread did not start, so the work is still here");
            work()
        }
    }
}

/// The process's resident set in bytes (Linux: `/proc/self/statm`, read with one `pread` on a
/// handle kept per thread); `None` where it cannot be read.
fn resident_bytes() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::FileExt;
        thread_local! {
            static STATM: Option<std::fs::File> = std::fs::File::open("/proc/self/statm").ok();
        }
        let mut buffer = [0u8; 128];
        let read = STATM.with(|file| file.as_ref()?.read_at(&mut buffer, 0).ok())?;
        let text = std::str::from_utf8(&buffer[..read]).ok()?;
        let pages: usize = text.split_whitespace().nth(1)?.parse().ok()?;
        Some(pages * page_size())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The system's page size, from the auxiliary vector the kernel gave the process (`AT_PAGESZ`);
/// 4 KiB when it cannot be read.
#[cfg(target_os = "linux")]
fn page_size() -> usize {
    static PAGE_SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PAGE_SIZE.get_or_init(|| {
        const AT_PAGESZ: u64 = 6;
        let auxv = std::fs::read("/proc/self/auxv").unwrap_or_default();
        auxv.chunks_exact(16)
            .map(|pair| {
                let word = |bytes: &[u8]| u64::from_ne_bytes(bytes.try_into().unwrap_or([0; 8]));
                (word(&pair[..8]), word(&pair[8..]))
            })
            .find(|(key, _)| *key == AT_PAGESZ)
            .and_then(|(_, size)| usize::try_from(size).ok())
            .filter(|size| size.is_power_of_two())
            .unwrap_or(4096)
    })
}

/// How much the process grew since a parse started: a proxy for what the parse holds. It counts
/// other threads' growth too, which can only stop a parse early. It misses heap pages the
/// allocator kept from earlier work and hands out again (glibc keeps freed small blocks), so a
/// parse right after a stopped one may hold up to that much more than the limit.
pub(crate) struct Growth {
    start: Option<usize>,
}

impl Growth {
    /// Samples the resident set now.
    pub(crate) fn start() -> Growth {
        Growth {
            start: resident_bytes(),
        }
    }

    /// Bytes grown since [`Growth::start`] (0 where the resident set cannot be read).
    pub(crate) fn grown(&self) -> usize {
        match (self.start, resident_bytes()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => 0,
        }
    }
}
