//! The one token counter of the server: exact o200k_base counts through a shared content cache,
//! adapted to the conversation core's `TokenCounter`. Every feature that counts uses this.

use roo_context_core::context::calibrate::{Calibrated, Calibration};
use roo_context_core::conversation::{Estimate, TokenCounter};
use roo_context_core::wire_text;
pub use roo_context_protocol::context::TokenCountMode as Mode;
use roo_context_tokens::TokenCache;

/// Exact counts, cached by content.
pub struct CachedCounter<'a>(pub &'a TokenCache);

impl TokenCounter for CachedCounter<'_> {
    fn count_text(&self, text: &str) -> usize {
        // A cancelled request's answer is never sent: every count left costs nothing (and is
        // not cached), so `$/cancelRequest` frees the blocking-pool slot of a token count, a
        // context management or a threshold check at the next text.
        if roo_context_core::cancel::cancelled() {
            return 0;
        }
        // What the model sees: a lone surrogate the host sent is U+FFFD, as in the original.
        self.0.count_exact(&wire_text::model_text(text))
    }
}

/// Runs `f` with the counter for `mode`.
pub fn with_counter<R>(
    cache: &TokenCache,
    mode: Mode,
    f: impl FnOnce(&dyn TokenCounter) -> R,
) -> R {
    match mode {
        // Without a model to calibrate for, a calibrated count is the exact one (the `default`
        // family's ratios are 1).
        Mode::Exact | Mode::Calibrated => f(&CachedCounter(cache)),
        Mode::Estimate => f(&Estimate(CachedCounter(cache))),
    }
}

/// Runs `f` with the counter for `mode`, calibrated with `calibration` in `calibrated` mode:
/// the one place a budget's counter is scaled to the provider (`Calibration::apply` does it).
pub fn with_model_counter<R>(
    cache: &TokenCache,
    mode: Mode,
    calibration: Option<&Calibration>,
    f: impl FnOnce(&dyn TokenCounter) -> R,
) -> R {
    match (mode, calibration) {
        (Mode::Calibrated, Some(calibration)) => f(&Calibrated {
            inner: &CachedCounter(cache),
            calibration,
        }),
        (mode, _) => with_counter(cache, mode, f),
    }
}
