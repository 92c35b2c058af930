//! Cooperative cancellation of heavy work: the server marks the thread doing a request's work
//! with that request's flag, and long loops in the core ask [`cancelled`] between items, so a
//! `$/cancelRequest` frees the worker instead of running to the end.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `work` with `flag` as this thread's cancellation flag.
pub fn with_flag<R>(flag: Option<Arc<AtomicBool>>, work: impl FnOnce() -> R) -> R {
    let previous = CURRENT.with(|current| current.replace(flag));
    let result = work();
    CURRENT.with(|current| *current.borrow_mut() = previous);
    result
}

/// This thread's flag, to hand to worker threads it starts.
pub fn current_flag() -> Option<Arc<AtomicBool>> {
    CURRENT.with(|current| current.borrow().clone())
}

/// Whether the work on this thread was cancelled; loops stop at the next item when it was.
pub fn cancelled() -> bool {
    CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    })
}
