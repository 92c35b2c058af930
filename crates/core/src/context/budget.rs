//! The threshold decision and the token budget (spec §5.3–5.5): how full the context is, how much
//! the model may see, and whether to condense, truncate or do nothing.

use std::collections::BTreeMap;

/// Smallest valid per-profile condense threshold, in percent.
pub const MIN_CONDENSE_THRESHOLD: f64 = 5.0;
/// Largest valid per-profile condense threshold, in percent.
pub const MAX_CONDENSE_THRESHOLD: f64 = 100.0;
/// A per-profile threshold of `-1` inherits the global one.
pub const INHERIT_THRESHOLD: f64 = -1.0;
/// Share of the context window held back, in percent (`TOKEN_BUFFER_PERCENTAGE` = 0.1).
pub const TOKEN_BUFFER_PERCENT: u64 = 10;
/// Output reserve when the model's `maxTokens` is missing or not positive.
pub const DEFAULT_RESERVED_OUTPUT_TOKENS: u64 = 8192;
/// The threshold of the emergency path (after a context-window error); it wins over profiles.
pub const FORCED_CONTEXT_REDUCTION_PERCENT: f64 = 75.0;
/// How many emergency retries a host should attempt after context-window errors.
pub const MAX_CONTEXT_WINDOW_RETRIES: u32 = 3;

/// The host's condense settings: global switch and threshold, and per-profile thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct ThresholdSettings {
    /// `autoCondenseContext` (default `true`).
    pub auto_condense_context: bool,
    /// `autoCondenseContextPercent`, the global threshold (default 100).
    pub auto_condense_context_percent: f64,
    /// `profileThresholds`: profile id → threshold (`-1` inherits; valid range 5–100).
    pub profile_thresholds: BTreeMap<String, f64>,
    /// The current profile's id (`"default"` when the host knows no better).
    pub current_profile_id: String,
    /// Zoo Code's `useAvailableInputForContextPercent` (set for VS Code LM): the condense
    /// percentage is of the input space, the window minus the reserved output, instead of the
    /// whole window (default `false`). See [`condense_percent`].
    pub use_available_input: bool,
}

impl Default for ThresholdSettings {
    fn default() -> Self {
        ThresholdSettings {
            auto_condense_context: true,
            auto_condense_context_percent: 100.0,
            profile_thresholds: BTreeMap::new(),
            current_profile_id: "default".into(),
            use_available_input: false,
        }
    }
}

/// Where the effective threshold came from.
#[derive(Clone, Debug, PartialEq)]
pub enum ThresholdSource {
    /// The global `autoCondenseContextPercent`.
    Global,
    /// The current profile's own valid threshold.
    Profile,
    /// The profile's value was out of range; the global one applies (the original logs a warning).
    InvalidProfile {
        /// The rejected value.
        value: f64,
    },
    /// The forced emergency threshold, which wins over any profile threshold.
    Forced,
}

/// The threshold that applies (spec §5.3) and why.
pub fn effective_threshold(settings: &ThresholdSettings) -> (f64, ThresholdSource) {
    let global = settings.auto_condense_context_percent;
    match settings
        .profile_thresholds
        .get(&settings.current_profile_id)
    {
        None => (global, ThresholdSource::Global),
        Some(&value) if value == INHERIT_THRESHOLD => (global, ThresholdSource::Global),
        Some(&value) if (MIN_CONDENSE_THRESHOLD..=MAX_CONDENSE_THRESHOLD).contains(&value) => {
            (value, ThresholdSource::Profile)
        }
        Some(&value) => (global, ThresholdSource::InvalidProfile { value }),
    }
}

/// The warning the original logs for an out-of-range profile threshold.
pub fn invalid_profile_threshold_warning(value: f64, profile_id: &str, global: f64) -> String {
    format!(
        "Invalid profile threshold {} for profile \"{profile_id}\". Using global default of {}%",
        js_number(value),
        js_number(global)
    )
}

/// Output tokens reserved: `maxTokens` when positive, else 8192 (Zoo's rule, so VS Code LM's
/// `-1` "unlimited" does not reserve nothing).
pub fn reserved_output_tokens(max_tokens: Option<i64>) -> u64 {
    match max_tokens {
        Some(n) if n > 0 => n as u64,
        _ => DEFAULT_RESERVED_OUTPUT_TOKENS,
    }
}

/// `contextWindow × 0.9 − reserved`, floored at 0 (exact integer arithmetic; comparing an integer
/// token count with `>` gives the same answer as the original's floating point).
pub fn allowed_tokens(context_window: u64, max_tokens: Option<i64>) -> u64 {
    let usable = context_window.saturating_mul(100 - TOKEN_BUFFER_PERCENT) / 100;
    usable.saturating_sub(reserved_output_tokens(max_tokens))
}

/// `100 × tokens / contextWindow` (100 when the window is unknown).
pub fn context_percent(tokens: u64, context_window: u64) -> f64 {
    if context_window == 0 {
        return 100.0;
    }
    100.0 * tokens as f64 / context_window as f64
}

/// The percentage the condense threshold is compared with: of the context window, or with
/// [`ThresholdSettings::use_available_input`] of the window minus the output (`maxTokens` when
/// positive; an unknown or unlimited reserve, `-1`, reserves nothing), 100 when no input space is
/// left. Zoo Code 3.80's `computeContextPercent`.
pub fn condense_percent(
    tokens: u64,
    context_window: u64,
    max_tokens: Option<i64>,
    settings: &ThresholdSettings,
) -> f64 {
    if !settings.use_available_input {
        return context_percent(tokens, context_window);
    }
    let reserved = match max_tokens {
        Some(n) if n > 0 => n as u64,
        _ => 0,
    };
    match context_window.checked_sub(reserved) {
        Some(available) if available > 0 => 100.0 * tokens as f64 / available as f64,
        _ => 100.0,
    }
}

/// Inputs of [`will_manage_context`] (spec §5.5).
#[derive(Clone, Debug, PartialEq)]
pub struct WillManageInput {
    /// Context size of the previous request (host usage), without the newest message.
    pub total_tokens: u64,
    /// Tokens of the last stored message.
    pub last_message_tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// The model's output limit (`None`, 0 or negative → 8192 reserved).
    pub max_tokens: Option<i64>,
    /// Condense settings.
    pub settings: ThresholdSettings,
    /// The task's termination guard (issue 32), when the host reports usage: the plan then
    /// condenses only when `roo/context/manage` would ask for a summary. `None`: today's plan.
    pub guard: Option<super::progress::ProgressGuard>,
}

/// What an automatic `manageContext` would do with these numbers: the one owner of the
/// pre-check, which `roo/context/willManage` reports whole.
#[derive(Clone, Debug, PartialEq)]
pub struct WillManagePlan {
    /// `totalTokens + lastMessageTokens`.
    pub prev_context_tokens: u64,
    /// See [`allowed_tokens`].
    pub allowed_tokens: u64,
    /// See [`condense_percent`].
    pub context_percent: f64,
    /// The effective threshold and where it came from.
    pub threshold: f64,
    pub threshold_source: ThresholdSource,
    /// Auto-condense is on and the percentage reached the threshold or the budget is exceeded.
    pub should_condense: bool,
    /// More than the allowed tokens (a truncation is due when no condense succeeds).
    pub over_budget: bool,
}

impl WillManagePlan {
    /// Whether `manageContext` would act (condense or truncate).
    pub fn will_manage(&self) -> bool {
        self.should_condense || self.over_budget
    }
}

/// The plan of an automatic run for these numbers (spec §5.5).
pub fn will_manage_plan(input: &WillManageInput) -> WillManagePlan {
    let prev = input.total_tokens.saturating_add(input.last_message_tokens);
    let allowed = allowed_tokens(input.context_window, input.max_tokens);
    let (threshold, threshold_source) = effective_threshold(&input.settings);
    let percent = condense_percent(
        prev,
        input.context_window,
        input.max_tokens,
        &input.settings,
    );
    let over_budget = prev > allowed;
    let grew_enough = input.guard.is_none_or(|guard| {
        guard.allows_condense(super::Trigger::Automatic, prev, input.context_window)
    });
    WillManagePlan {
        prev_context_tokens: prev,
        allowed_tokens: allowed,
        context_percent: percent,
        threshold,
        threshold_source,
        should_condense: input.settings.auto_condense_context
            && grew_enough
            && (percent >= threshold || over_budget),
        over_budget,
    }
}

/// Whether `manageContext` would act (condense or truncate): the host's cheap pre-check.
pub fn will_manage_context(input: &WillManageInput) -> bool {
    will_manage_plan(input).will_manage()
}

/// JavaScript's `String(number)` for the numbers that appear in messages.
pub(crate) fn js_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e21 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}
