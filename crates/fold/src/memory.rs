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

/// How much a parse grew memory since it started: the larger of two measures, each of which can
/// only over-count. (1) The bytes tree-sitter's core library holds, counted exactly on this thread
/// by [`counted_heap`] (the parse stack whose error recovery goes quadratic lives there). (2) The
/// growth of the process's resident set, which also sees grammar scanners' own `malloc`s and
/// other threads' growth (that can only stop a parse early). The resident set alone misses heap
/// pages the allocator kept from earlier work and hands out again: a parse right after a stopped
/// one grew no pages and ran past its limit (a CI failure of
/// `a_parse_growing_past_its_memory_limit_is_stopped_and_reported_by_every_reader`).
pub(crate) struct Growth {
    resident_start: Option<usize>,
    counted_start: isize,
}

impl Growth {
    /// Samples both measures now.
    pub(crate) fn start() -> Growth {
        counted_heap::install();
        counted_heap::reset_peak();
        Growth {
            resident_start: resident_bytes(),
            counted_start: counted_heap::held_on_this_thread(),
        }
    }

    /// Bytes grown since [`Growth::start`]: the larger measure (the resident set counts 0 where
    /// it cannot be read).
    pub(crate) fn grown(&self) -> usize {
        let resident = match (self.resident_start, resident_bytes()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => 0,
        };
        resident.max(self.counted_peak())
    }

    /// The most bytes tree-sitter held on this thread at any moment since [`Growth::start`],
    /// over what it held then (a thread-local read: cheap enough for every progress callback).
    pub(crate) fn counted_peak(&self) -> usize {
        let peak = counted_heap::peak_on_this_thread().saturating_sub(self.counted_start);
        usize::try_from(peak).unwrap_or(0)
    }
}

/// Decision: count tree-sitter's heap through its allocator hook (`ts_set_allocator`) with thin
/// wrappers over the C library's own `malloc` family, each adding or taking
/// `malloc_usable_size` bytes from a counter of the calling thread. Wrappers of the same
/// allocator, not a new one, so a block allocated before the hook was installed (or by a
/// grammar scanner) is still freed correctly, and installing it late or twice is harmless; a
/// parse runs on one thread, so the thread's counter is the parse's. A block freed on another
/// thread than it was allocated on lowers that thread's count (which may go below zero): a
/// measure is only ever taken as a difference on one thread. glibc only (`malloc_usable_size`);
/// elsewhere the count stays zero and the resident set is the measure.
#[allow(unsafe_code)]
pub(crate) mod counted_heap {
    use std::cell::Cell;

    thread_local! {
        static HELD: Cell<isize> = const { Cell::new(0) };
        /// The highest [`HELD`] since the last [`reset_peak`].
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    /// Bytes this thread allocated through tree-sitter minus those it freed.
    pub(crate) fn held_on_this_thread() -> isize {
        HELD.try_with(Cell::get).unwrap_or(0)
    }

    /// The highest [`held_on_this_thread`] since the last [`reset_peak`] on this thread.
    pub(crate) fn peak_on_this_thread() -> isize {
        PEAK.try_with(Cell::get).unwrap_or(0)
    }

    /// Starts a new high-water mark at what this thread holds now.
    pub(crate) fn reset_peak() {
        let _ = PEAK.try_with(|peak| peak.set(held_on_this_thread()));
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    mod hooks {
        use std::ffi::c_void;

        unsafe extern "C" {
            fn malloc(size: usize) -> *mut c_void;
            fn calloc(count: usize, size: usize) -> *mut c_void;
            fn realloc(block: *mut c_void, size: usize) -> *mut c_void;
            fn free(block: *mut c_void);
            fn malloc_usable_size(block: *mut c_void) -> usize;
        }

        fn add(bytes: usize, sign: isize) {
            let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
            // `try_with`: a free during thread teardown, after the counter is gone, is not
            // counted rather than aborting.
            let _ = super::HELD.try_with(|held| {
                let now = held.get().saturating_add(sign * bytes);
                held.set(now);
                let _ = super::PEAK.try_with(|peak| peak.set(peak.get().max(now)));
            });
        }

        /// The usable size of `block` (0 for null).
        fn size_of(block: *mut c_void) -> usize {
            if block.is_null() {
                return 0;
            }
            // SAFETY: `block` is a live block of the C library's allocator.
            unsafe { malloc_usable_size(block) }
        }

        /// What tree-sitter's own allocator does when the C library has no memory left (the
        /// hook must never return null): say so on stderr and abort. The parse worker's parent
        /// reads these words as a memory cap (`parse_worker::out_of_memory`); returning null
        /// instead made tree-sitter dereference it (a worker killed by SIGSEGV in CI).
        fn out_of_memory(message: &'static [u8]) -> ! {
            use std::io::Write;
            // Static bytes to the unbuffered stderr: nothing to allocate.
            let _ = std::io::stderr().write_all(message);
            std::process::abort()
        }

        pub(super) unsafe extern "C" fn counted_malloc(size: usize) -> *mut c_void {
            // SAFETY: forwarded to the C library's malloc.
            let block = unsafe { malloc(size) };
            if block.is_null() && size > 0 {
                out_of_memory(b"tree-sitter failed to allocate memory\n");
            }
            add(size_of(block), 1);
            block
        }

        pub(super) unsafe extern "C" fn counted_calloc(count: usize, size: usize) -> *mut c_void {
            // SAFETY: forwarded to the C library's calloc.
            let block = unsafe { calloc(count, size) };
            if block.is_null() && count > 0 && size > 0 {
                out_of_memory(b"tree-sitter failed to allocate memory\n");
            }
            add(size_of(block), 1);
            block
        }

        pub(super) unsafe extern "C" fn counted_realloc(
            block: *mut c_void,
            size: usize,
        ) -> *mut c_void {
            let before = size_of(block);
            // SAFETY: forwarded to the C library's realloc with a block of its own.
            let moved = unsafe { realloc(block, size) };
            if moved.is_null() && size > 0 {
                out_of_memory(b"tree-sitter failed to reallocate memory\n");
            }
            add(before, -1);
            add(size_of(moved), 1);
            moved
        }

        pub(super) unsafe extern "C" fn counted_free(block: *mut c_void) {
            add(size_of(block), -1);
            // SAFETY: forwarded to the C library's free with a block of its own.
            unsafe { free(block) }
        }
    }

    /// Installs the counting hooks once per process (a no-op where they are not built).
    pub(crate) fn install() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            static INSTALLED: std::sync::Once = std::sync::Once::new();
            INSTALLED.call_once(|| {
                // SAFETY: the hooks forward to the C library's own allocator, the one
                // tree-sitter used before, so blocks from before the call stay valid to free
                // and realloc; the pointers are swapped once, under `Once`.
                unsafe {
                    tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                        malloc: hooks::counted_malloc,
                        calloc: hooks::counted_calloc,
                        realloc: hooks::counted_realloc,
                        free: hooks::counted_free,
                    }));
                }
            });
        }
    }

    /// Allocates `bytes` through the installed hook and frees it when dropped: a test's stand-in
    /// for a parse that holds memory without touching it.
    #[cfg(all(test, target_os = "linux", target_env = "gnu"))]
    pub(crate) struct TestBlock(*mut std::ffi::c_void);

    #[cfg(all(test, target_os = "linux", target_env = "gnu"))]
    impl TestBlock {
        pub(crate) fn new(bytes: usize) -> TestBlock {
            // SAFETY: the hook is the C library's malloc, counted.
            TestBlock(unsafe { hooks::counted_malloc(bytes) })
        }
    }

    #[cfg(all(test, target_os = "linux", target_env = "gnu"))]
    impl Drop for TestBlock {
        fn drop(&mut self) {
            // SAFETY: allocated by `counted_malloc` above, freed once.
            unsafe { hooks::counted_free(self.0) }
        }
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// A parse that holds memory the resident set does not show (pages reused from a freed
    /// parse, here pages never touched) is still measured: the bug behind the CI failure.
    #[test]
    fn growth_counts_heap_the_resident_set_does_not_show() {
        let growth = Growth::start();
        let held = counted_heap::TestBlock::new(64 << 20);
        assert!(growth.grown() >= 64 << 20, "grown {}", growth.grown());
        drop(held);
        // Freed, but the peak is what the parse held at its worst.
        assert!(growth.counted_peak() >= 64 << 20);
        assert_eq!(counted_heap::held_on_this_thread(), growth.counted_start);
    }

    /// Installing the hooks after tree-sitter already allocated (a parser made before) is safe:
    /// the old blocks are freed by the same allocator.
    #[test]
    fn hooks_installed_after_a_parser_exists_free_its_blocks() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&crate::Language::Python.grammar())
            .expect("grammar");
        counted_heap::install();
        let tree = parser.parse("def f():\n    pass\n", None).expect("tree");
        assert_eq!(tree.root_node().kind(), "module");
        drop(tree);
        drop(parser);
    }
}
