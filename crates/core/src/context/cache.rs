//! Prompt-cache economics of a history change (issue 30): what a condense, a truncation or a
//! tool-result shrink costs in cache writes and saves on every later request
//! ([`cache_impact`], the one function every change is priced by), whether a non-emergency
//! change is worth breaking the cached prefix now or should wait for a bigger batch
//! ([`defer_reason`]), and where to put cache breakpoints ([`cache_breakpoints`]).
//!
//! Providers bill a previously seen, byte-identical prompt prefix at a fraction (Anthropic:
//! reads 0.1×, writes 1.25×). A change to the middle of the history makes the next request pay
//! the write price for everything after the first changed message, and only later requests,
//! now shorter, win it back.
//!
//! ## Decision: Condensing at cache-read prices (issue 30)
//!
//! A host that can replay its last model request opts in (`prefixReuseCondense` at `initialize`,
//! `cache.prefixReuse` per call); the summarize request is then that replay plus only our
//! instructions, so the provider reads the prefix from its cache (median 0.986 of the condense
//! request's tokens in BENCHMARKS.md). The request appends nothing of the history: the messages the
//! last request did not hold are not summarized and stay after the summary verbatim
//! (`CondenseRequest::summary_at`, `insert_summary`), which keeps the share high after a big newest
//! tool result, and the model sees that result exactly. The fit check of a continuation drops the
//! 10 % buffer (the provider already accepted the replay); an emergency is never a continuation.
//! Every result that changes the history carries `cacheImpact` from the one `cache_impact` (the
//! example's replay checks it against measured prefixes), and deferral only ever holds back an
//! automatic condense below the budget with a warm cache: manual runs, emergencies, over-budget
//! truncation and shrinking never wait. `roo/history/truncate` and `roo/context/condense` carry
//! `cacheImpact` too (messages only: those requests have no system prompt), and
//! `roo/context/cacheBreakpoints` answers `cache_breakpoints`. The server's `handlers/context.rs`
//! maps `cache` (`cache_options`), builds both request shapes (`host_request`) and makes the one
//! fallback call (`fallback_once`).

use crate::conversation::{ApiMessage, HistoryTokens, effective_api_history};

/// Price multipliers of cached input, relative to uncached input (1.0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CachePrices {
    /// A token written to the cache (Anthropic 1.25).
    pub write: f64,
    /// A token read from the cache (Anthropic 0.1).
    pub read: f64,
}

impl Default for CachePrices {
    fn default() -> Self {
        CachePrices {
            write: 1.25,
            read: 0.1,
        }
    }
}

/// Whether the provider's cache still holds the host's last request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheClock {
    /// When the host sent its last model request (ms since the epoch).
    pub last_request_at_ms: Option<u64>,
    /// How long the provider keeps a prefix (Anthropic: 300000).
    pub ttl_ms: Option<u64>,
}

impl CacheClock {
    /// The cache is cold when both times are known and the TTL has passed: a change then costs
    /// no extra write (everything is written afresh anyway).
    pub fn is_cold(&self, now_ms: u64) -> bool {
        match (self.last_request_at_ms, self.ttl_ms) {
            (Some(last), Some(ttl)) => now_ms.saturating_sub(last) > ttl,
            _ => false,
        }
    }
}

/// When a non-emergency change waits (deferral, opt-in).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeferPolicy {
    /// A change must free at least this many tokens per later request; `None`:
    /// `max(20000, contextWindow / 10)`.
    pub min_freed_tokens: Option<u64>,
    /// A change whose break-even is more requests than this waits.
    pub max_break_even_requests: f64,
}

impl Default for DeferPolicy {
    fn default() -> Self {
        DeferPolicy {
            min_freed_tokens: None,
            max_break_even_requests: DEFAULT_MAX_BREAK_EVEN_REQUESTS,
        }
    }
}

/// Default [`DeferPolicy::max_break_even_requests`].
pub const DEFAULT_MAX_BREAK_EVEN_REQUESTS: f64 = 5.0;
/// Floor of the default [`DeferPolicy::min_freed_tokens`].
pub const MIN_FREED_TOKENS_FLOOR: u64 = 20_000;

impl DeferPolicy {
    /// The tokens a change must free for a window of `context_window` tokens.
    pub fn min_freed(&self, context_window: u64) -> u64 {
        self.min_freed_tokens
            .unwrap_or_else(|| MIN_FREED_TOKENS_FLOOR.max(context_window / 10))
    }
}

/// What a change to the model-facing history costs and saves (all tokens by the run's counter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheImpact {
    /// Index, in the effective history before the change, of the first message the model sees
    /// differently (the system prompt and tools are never changed). Equal to the effective
    /// history's length when the change only appends.
    pub first_changed_index: usize,
    /// Tokens of the prefix that stays cached: system prompt, tools and the effective messages
    /// before `first_changed_index`.
    pub kept_prefix_tokens: u64,
    /// Tokens the next request must write again: the effective messages after the change from
    /// `first_changed_index` on.
    pub rewrite_tokens: u64,
    /// Tokens every later request no longer sends (before minus after; 0 when it grew).
    pub saved_tokens_per_request: u64,
    /// Requests after which the change has paid for its extra write: 0 when it costs nothing
    /// extra (a cold cache, or a write cheaper than the reads it saves at once), `None` when it
    /// never does.
    pub break_even_requests: Option<u64>,
    /// Whether the cache was cold (the change then breaks nothing).
    pub cold: bool,
}

/// The one pricing rule, on totals: `before` and `after` are the model-facing tokens of the
/// request without and with the change, `kept` the unchanged prefix of both.
pub fn price_change(
    first_changed_index: usize,
    kept: u64,
    before: u64,
    after: u64,
    prices: &CachePrices,
    cold: bool,
) -> CacheImpact {
    let rewrite = after.saturating_sub(kept);
    let saved = before.saturating_sub(after);
    // The next request with the change, minus the same request without it.
    let extra = if cold {
        (after as f64 - before as f64) * prices.write
    } else {
        kept as f64 * prices.read + rewrite as f64 * prices.write - before as f64 * prices.read
    };
    let saving_per_request = saved as f64 * prices.read;
    let break_even_requests = if extra <= 0.0 {
        Some(0)
    } else if saving_per_request <= 0.0 {
        None
    } else {
        Some((extra / saving_per_request).ceil() as u64)
    };
    CacheImpact {
        first_changed_index,
        kept_prefix_tokens: kept,
        rewrite_tokens: rewrite,
        saved_tokens_per_request: saved,
        break_even_requests,
        cold,
    }
}

/// Whether two messages look the same to the model (role and content; tags and `ts` are not
/// sent).
fn same_to_the_model(a: &ApiMessage, b: &ApiMessage) -> bool {
    a.fields.get("role") == b.fields.get("role")
        && a.fields.get("content") == b.fields.get("content")
}

/// The cache impact of replacing the stored history `before` by `after` (both stored
/// histories; each is reduced to its effective history here). `fixed_tokens` are the system
/// prompt and tool definitions, sent unchanged before every message.
pub fn cache_impact<M: AsRef<ApiMessage>, N: AsRef<ApiMessage>>(
    before: &[M],
    after: &[N],
    fixed_tokens: u64,
    tokens: &HistoryTokens<'_>,
    prices: &CachePrices,
    cold: bool,
) -> CacheImpact {
    let before = effective_api_history(before).messages;
    let after = effective_api_history(after).messages;
    let first = before
        .iter()
        .zip(after.iter())
        .position(|(a, b)| !same_to_the_model(a, b))
        .unwrap_or(before.len().min(after.len()));
    let kept = fixed_tokens + tokens.total(&before[..first]) as u64;
    let before_total = kept + tokens.total(&before[first..]) as u64;
    let after_total = kept + tokens.total(&after[first..]) as u64;
    price_change(first, kept, before_total, after_total, prices, cold)
}

/// Why a change waits for a later batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferReason {
    /// It would free fewer tokens per request than the policy's minimum.
    FreesTooLittle {
        /// The minimum in force.
        min_freed_tokens: u64,
    },
    /// It would take more requests than the policy allows to pay for its write.
    BreakEvenTooFar,
}

/// Whether a change with `impact` waits. Only non-emergency changes can: `urgent` (an
/// emergency, a context over budget, a manual request) and a cold cache never wait.
pub fn defer_reason(
    impact: &CacheImpact,
    policy: &DeferPolicy,
    context_window: u64,
    urgent: bool,
) -> Option<DeferReason> {
    if urgent || impact.cold {
        return None;
    }
    let min_freed_tokens = policy.min_freed(context_window);
    if impact.saved_tokens_per_request < min_freed_tokens {
        return Some(DeferReason::FreesTooLittle { min_freed_tokens });
    }
    match impact.break_even_requests {
        Some(n) if n as f64 <= policy.max_break_even_requests => None,
        _ => Some(DeferReason::BreakEvenTooFar),
    }
}

/// Most cache breakpoints a provider accepts in one request (Anthropic: 4).
pub const MAX_CACHE_BREAKPOINTS: usize = 4;

/// Where to put up to `max` cache breakpoints in the effective history of `messages`: indices
/// (into the effective history) of the messages whose last block should carry one. The last
/// message always gets one (the next request reads everything before it); the others go to the
/// most recent summary or truncation marker (the history before it never changes again) and
/// then evenly over the rest, so a later change in the middle still finds a cached prefix close
/// before it. Ascending, no duplicates.
pub fn cache_breakpoints<M: AsRef<ApiMessage>>(messages: &[M], max: usize) -> Vec<usize> {
    let effective = effective_api_history(messages).messages;
    let len = effective.len();
    let max = max.min(MAX_CACHE_BREAKPOINTS);
    if len == 0 || max == 0 {
        return Vec::new();
    }
    let mut points = vec![len - 1];
    if let Some(anchor) = effective
        .iter()
        .rposition(|m| m.is_summary() || m.is_truncation_marker())
        && points.len() < max
        && anchor != len - 1
    {
        points.push(anchor);
    }
    let mut step = 1;
    while points.len() < max && step < max {
        let candidate = len * step / max;
        if candidate > 0 && !points.contains(&(candidate - 1)) {
            points.push(candidate - 1);
        }
        step += 1;
    }
    points.sort_unstable();
    points.dedup();
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{ApiMessage, HistoryTokens};
    use serde_json::json;

    fn counter(text: &str) -> usize {
        text.len().div_ceil(4)
    }

    fn history(values: serde_json::Value) -> Vec<ApiMessage> {
        serde_json::from_value(values).unwrap()
    }

    fn check(before: &[ApiMessage], after: &[ApiMessage], cold: bool) -> CacheImpact {
        let tokens = HistoryTokens::new(before, &counter);
        cache_impact(before, after, 100, &tokens, &CachePrices::default(), cold)
    }

    #[test]
    fn a_truncation_rewrites_everything_after_the_first_hidden_message() {
        let before = history(json!([
            {"role": "user", "content": "a".repeat(400)},
            {"role": "assistant", "content": "b".repeat(400)},
            {"role": "user", "content": "c".repeat(400)},
            {"role": "assistant", "content": "d".repeat(400)},
        ]));
        let mut after = before.clone();
        after[1]
            .fields
            .insert("truncationParent".into(), json!("t"));
        after.insert(
            1,
            history(json!([{"role": "user", "content": "[marker]", "isTruncationMarker": true, "truncationId": "t"}]))
                .remove(0),
        );
        let impact = check(&before, &after, false);
        assert_eq!(impact.first_changed_index, 1);
        assert_eq!(impact.kept_prefix_tokens, 200);
        assert_eq!(impact.rewrite_tokens, 2 + 200);
        assert_eq!(impact.saved_tokens_per_request, 98);
        // extra = 200×0.1 + 202×1.25 − 500×0.1 = 222.5; saving 9.8 per request.
        assert_eq!(impact.break_even_requests, Some(23));
    }

    #[test]
    fn an_append_only_change_breaks_nothing() {
        let before = history(json!([{"role": "user", "content": "a".repeat(400)}]));
        let impact = check(&before, &before, false);
        assert_eq!(impact.first_changed_index, 1);
        assert_eq!(impact.rewrite_tokens, 0);
        assert_eq!(impact.break_even_requests, Some(0));
    }

    #[test]
    fn a_cold_cache_makes_a_shrinking_change_free() {
        let before = history(json!([
            {"role": "user", "content": "a".repeat(400)},
            {"role": "assistant", "content": "b".repeat(4000)},
        ]));
        let after = history(json!([
            {"role": "user", "content": "a".repeat(400)},
            {"role": "assistant", "content": "b".repeat(40)},
        ]));
        let impact = check(&before, &after, true);
        assert!(impact.cold);
        assert_eq!(impact.break_even_requests, Some(0));
        assert_eq!(
            defer_reason(&impact, &DeferPolicy::default(), 1000, false),
            None
        );
    }

    #[test]
    fn small_changes_wait_and_urgent_ones_never_do() {
        let impact = price_change(0, 1000, 30_000, 25_000, &CachePrices::default(), false);
        let policy = DeferPolicy::default();
        assert_eq!(
            defer_reason(&impact, &policy, 100_000, false),
            Some(DeferReason::FreesTooLittle {
                min_freed_tokens: 20_000
            })
        );
        assert_eq!(defer_reason(&impact, &policy, 100_000, true), None);
        let big = price_change(0, 1000, 150_000, 3_000, &CachePrices::default(), false);
        assert_eq!(big.break_even_requests, Some(0));
        assert_eq!(defer_reason(&big, &policy, 200_000, false), None);
    }

    #[test]
    fn a_change_that_saves_nothing_never_breaks_even() {
        let impact = price_change(0, 10, 1000, 1000, &CachePrices::default(), false);
        assert_eq!(impact.break_even_requests, None);
    }

    #[test]
    fn breakpoints_go_to_the_last_message_the_anchor_and_spread() {
        let mut values = Vec::new();
        for i in 0..12 {
            values.push(json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("m{i}")}));
        }
        let messages = history(serde_json::Value::Array(values));
        assert_eq!(cache_breakpoints(&messages, 4), vec![2, 5, 8, 11]);
        assert_eq!(cache_breakpoints(&messages, 1), vec![11]);
        assert!(cache_breakpoints(&Vec::<ApiMessage>::new(), 4).is_empty());
    }
}
