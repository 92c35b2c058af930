//! Calibrated counting (issue 32): the sidecar counts exact o200k_base, but the provider bills
//! and limits with its own tokenizer (Claude's is up to 1.35–1.46× o200k, and differently so for
//! code, prose, CJK and JSON). The host reports the provider's input count of each request; this
//! module keeps, per (provider, model), a ratio per content class with a confidence, starts from
//! a prior per model family, and turns an exact count into the provider's figure.
//!
//! One owner: [`Calibration::apply`] is the only function that scales a count. Every budget
//! decision counts through [`Calibrated`], a [`TokenCounter`] that calls it, so thresholds,
//! allowed tokens, the condense request's size check and truncation all see the same figure.

use std::cell::Cell;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::conversation::TokenCounter;

/// What kind of text a count is of: tokenizers differ most between these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContentClass {
    /// Source code.
    Code,
    /// Natural-language text in Latin-like scripts.
    Prose,
    /// Chinese, Japanese, Korean text.
    Cjk,
    /// JSON and other machine output (tool results, logs).
    Json,
    /// Korean: tokenizers split Hangul very differently from Han and kana.
    Hangul,
}

/// Every class, in the order of [`ClassTokens`].
pub const CONTENT_CLASSES: [ContentClass; 5] = [
    ContentClass::Code,
    ContentClass::Prose,
    ContentClass::Cjk,
    ContentClass::Json,
    ContentClass::Hangul,
];

impl ContentClass {
    fn index(self) -> usize {
        self as usize
    }
}

/// How many bytes of a text [`classify`] looks at: a class is a property of the whole block, and
/// a bounded sample keeps classification O(1) beside the linear count.
const CLASSIFY_SAMPLE_BYTES: usize = 4096;

/// What [`classify`] and [`split_by_class`] read of a sample.
struct Scan {
    visible: u32,
    cjk: u32,
    hangul: u32,
    code_marks: u32,
    json_marks: u32,
    letters: u32,
    starts_like_json: bool,
}

fn scan(text: &str) -> Scan {
    let mut end = text.len().min(CLASSIFY_SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let sample = &text[..end];
    let trimmed = sample.trim_start();
    let mut scan = Scan {
        visible: 0,
        cjk: 0,
        hangul: 0,
        code_marks: 0,
        json_marks: 0,
        letters: 0,
        starts_like_json: trimmed.starts_with('{') || trimmed.starts_with('['),
    };
    for c in sample.chars() {
        if c.is_whitespace() {
            continue;
        }
        scan.visible += 1;
        match c {
            '\u{1100}'..='\u{11ff}' | '\u{3130}'..='\u{318f}' | '\u{ac00}'..='\u{d7af}' => {
                scan.hangul += 1
            }
            '\u{3040}'..='\u{30ff}'
            | '\u{3400}'..='\u{4dbf}'
            | '\u{4e00}'..='\u{9fff}'
            | '\u{f900}'..='\u{faff}'
            | '\u{ff00}'..='\u{ffef}' => scan.cjk += 1,
            '"' | ':' | ',' => scan.json_marks += 1,
            '{' | '}' | '(' | ')' | ';' | '=' | '<' | '>' | '[' | ']' | '_' | '&' | '|' => {
                scan.code_marks += 1
            }
            c if c.is_alphabetic() => scan.letters += 1,
            _ => {}
        }
    }
    scan
}

/// The class of what is not CJK in the sample.
fn base_class(scan: &Scan) -> ContentClass {
    let rest = scan.visible - scan.cjk - scan.hangul;
    if rest == 0 {
        return ContentClass::Prose;
    }
    let share = |n: u32| n as f64 / rest as f64;
    if scan.starts_like_json && share(scan.json_marks) >= 0.08 {
        ContentClass::Json
    } else if share(scan.code_marks) >= 0.04 {
        ContentClass::Code
    } else if share(scan.letters) < 0.6 {
        // Mostly digits, paths and punctuation: logs and listings behave like JSON.
        ContentClass::Json
    } else {
        ContentClass::Prose
    }
}

/// The dominant class of a text, from a bounded sample of its start.
pub fn classify(text: &str) -> ContentClass {
    let scan = scan(text);
    let asian = scan.cjk + scan.hangul;
    if scan.visible > 0 && asian as f64 / scan.visible as f64 >= 0.15 {
        if scan.hangul > scan.cjk {
            ContentClass::Hangul
        } else {
            ContentClass::Cjk
        }
    } else {
        base_class(&scan)
    }
}

/// Visible non-CJK characters per token in o200k (Latin text, code, JSON): how the CJK share of
/// a text's *tokens* is told from its share of characters (a CJK character is about one token).
const LATIN_CHARS_PER_TOKEN: f64 = 3.5;

/// `exact` tokens of `text` split between CJK and the class of the rest, by their estimated
/// share of the tokens: CJK documents are full of Latin markup, links and code, which tokenize
/// like the rest, not like the CJK around them.
pub fn split_by_class(text: &str, exact: u64) -> ClassTokens {
    let scan = scan(text);
    let base = base_class(&scan);
    let asian = scan.cjk + scan.hangul;
    if asian == 0 {
        return ClassTokens::of(base, exact);
    }
    let rest_tokens = (scan.visible - asian) as f64 / LATIN_CHARS_PER_TOKEN;
    let share = |chars: u32| chars as f64 / (asian as f64 + rest_tokens);
    let cjk = ((exact as f64 * share(scan.cjk)).round() as u64).min(exact);
    let hangul = ((exact as f64 * share(scan.hangul)).round() as u64).min(exact - cjk);
    let mut counts = ClassTokens::of(base, exact - cjk - hangul);
    counts.cjk += cjk;
    counts.hangul += hangul;
    counts
}

/// Exact o200k counts split by class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassTokens {
    /// Tokens of code.
    pub code: u64,
    /// Tokens of prose.
    pub prose: u64,
    /// Tokens of CJK text.
    pub cjk: u64,
    /// Tokens of JSON and machine output.
    pub json: u64,
    /// Tokens of Korean text.
    #[serde(default)]
    pub hangul: u64,
}

impl ClassTokens {
    /// `tokens` of one class.
    pub fn of(class: ContentClass, tokens: u64) -> Self {
        let mut counts = ClassTokens::default();
        *counts.get_mut(class) = tokens;
        counts
    }

    /// The count of one class.
    pub fn get(&self, class: ContentClass) -> u64 {
        match class {
            ContentClass::Code => self.code,
            ContentClass::Prose => self.prose,
            ContentClass::Cjk => self.cjk,
            ContentClass::Json => self.json,
            ContentClass::Hangul => self.hangul,
        }
    }

    fn get_mut(&mut self, class: ContentClass) -> &mut u64 {
        match class {
            ContentClass::Code => &mut self.code,
            ContentClass::Prose => &mut self.prose,
            ContentClass::Cjk => &mut self.cjk,
            ContentClass::Json => &mut self.json,
            ContentClass::Hangul => &mut self.hangul,
        }
    }

    /// Adds `other` class by class.
    pub fn add(&mut self, other: &ClassTokens) {
        for class in CONTENT_CLASSES {
            *self.get_mut(class) = self.get(class).saturating_add(other.get(class));
        }
    }

    /// Sum over classes.
    pub fn total(&self) -> u64 {
        CONTENT_CLASSES
            .iter()
            .fold(0u64, |sum, class| sum.saturating_add(self.get(*class)))
    }
}

/// One class's ratio (provider tokens per o200k token) and the evidence behind it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassRatio {
    /// Provider tokens per exact o200k token.
    pub ratio: f64,
    /// Observed weight (requests' share of this class, summed); 0 while only the prior speaks.
    pub weight: f64,
}

/// How much the prior counts against observations, in requests: small, so one request of a
/// class leaves it a fifth of the say and three about 6 % (the prior is a family average, the
/// observation is this model on this task).
const PRIOR_WEIGHT: f64 = 0.25;

/// The most evidence a class keeps, in requests (see [`Calibration::observe`]).
const MAX_CLASS_WEIGHT: f64 = 1.0;

/// A single observation's ratio outside this range is not the tokenizer talking (a cached
/// prompt reported apart, a host that sent the output count): it is ignored.
const PLAUSIBLE_OBSERVED_RATIO: std::ops::RangeInclusive<f64> = 0.4..=4.0;

/// The calibration of one (provider, model).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    /// The family prior's name (`claude`, `cl100k`, `o200k`, `gemini`, `default`).
    pub family: String,
    /// Ratios in the order of [`CONTENT_CLASSES`].
    pub classes: [ClassRatio; 5],
    /// Requests observed.
    pub observations: u32,
    /// The last observation `(counted exact total, provider tokens)`, so the same request
    /// reported twice (a `willManage` then a `manage`) is counted once.
    #[serde(default)]
    pub last_observation: Option<(u64, u64)>,
}

/// The family of a model from its provider and id, for the prior.
pub fn model_family(provider: &str, model: &str) -> &'static str {
    let (provider, model) = (provider.to_ascii_lowercase(), model.to_ascii_lowercase());
    if model.contains("claude") || provider == "anthropic" {
        "claude"
    } else if model.contains("gpt-4o")
        || model.contains("gpt-4.1")
        || model.contains("gpt-5")
        || model.starts_with("o1")
        || model.starts_with("o3")
        || model.starts_with("o4")
    {
        "o200k"
    } else if model.contains("gpt-4") || model.contains("gpt-3.5") || model.contains("cl100k") {
        "cl100k"
    } else if model.contains("gemini") || provider == "gemini" || provider == "vertex" {
        "gemini"
    } else {
        "default"
    }
}

/// Ratios per class `[code, prose, cjk, json, hangul]` of each family's prior. `cl100k` was
/// measured with cl100k_base against o200k_base on this repository's Rust sources, docs and
/// JSON fixtures and on Zoo Code's zh-TW and ko documents, all held apart from the benchmark's
/// corpora (`cargo run --release -p roo-context-core --example calibration -- --priors`);
/// `claude` from the published 1.35–1.46× o200k and the same shape; `gemini` and `default` are
/// flat and honest about knowing little.
fn family_ratios(family: &str) -> [f64; 5] {
    match family {
        "o200k" => [1.0, 1.0, 1.0, 1.0, 1.0],
        "cl100k" => [1.00, 1.00, 1.47, 1.00, 1.60],
        "claude" => [1.30, 1.20, 1.46, 1.35, 1.60],
        "gemini" => [1.05, 1.05, 1.05, 1.05, 1.05],
        _ => [1.0, 1.0, 1.0, 1.0, 1.0],
    }
}

impl Calibration {
    /// The prior of the model's family, before any observation.
    pub fn prior(provider: &str, model: &str) -> Calibration {
        Calibration::of_family(model_family(provider, model))
    }

    /// The prior of a named family.
    pub fn of_family(family: &str) -> Calibration {
        let ratios = family_ratios(family);
        Calibration {
            family: family.to_owned(),
            classes: ratios.map(|ratio| ClassRatio { ratio, weight: 0.0 }),
            observations: 0,
            last_observation: None,
        }
    }

    /// THE one function that turns exact o200k counts into the provider's figure. Every budget
    /// decision reaches it through [`Calibrated`]; nothing else scales a count.
    pub fn apply(&self, exact: &ClassTokens) -> u64 {
        let scaled: f64 = CONTENT_CLASSES
            .iter()
            .map(|class| exact.get(*class) as f64 * self.classes[class.index()].ratio)
            .sum();
        scaled.round() as u64
    }

    /// The single ratio over a mix of classes (1 when the mix is empty).
    pub fn ratio_for(&self, exact: &ClassTokens) -> f64 {
        let total = exact.total();
        if total == 0 {
            return 1.0;
        }
        self.apply(exact) as f64 / total as f64
    }

    /// How far observations, rather than the prior, speak for this mix: 0 cold, towards 1.
    pub fn confidence(&self, exact: &ClassTokens) -> f64 {
        let total = exact.total();
        let weights: Vec<(f64, f64)> = CONTENT_CLASSES
            .iter()
            .map(|class| {
                let share = if total == 0 {
                    0.25
                } else {
                    exact.get(*class) as f64 / total as f64
                };
                let weight = self.classes[class.index()].weight;
                (share, weight / (weight + PRIOR_WEIGHT))
            })
            .collect();
        weights.iter().map(|(share, conf)| share * conf).sum()
    }

    /// Learns from one request: `counted` is what the sidecar counted (exact, by class) of the
    /// request the provider reported `provider_tokens` for. Each class moves geometrically
    /// towards the observed factor by its share of the request over its accumulated weight, so a
    /// pure-code request teaches only the code ratio. Returns whether it was used.
    pub fn observe(&mut self, counted: &ClassTokens, provider_tokens: u64) -> bool {
        let total = counted.total();
        if total == 0 || provider_tokens == 0 {
            return false;
        }
        if self.last_observation == Some((total, provider_tokens)) {
            return false;
        }
        let observed_ratio = provider_tokens as f64 / total as f64;
        if !PLAUSIBLE_OBSERVED_RATIO.contains(&observed_ratio) {
            return false;
        }
        let predicted = self.apply(counted).max(1) as f64;
        let factor = provider_tokens as f64 / predicted;
        for class in CONTENT_CLASSES {
            let tokens = counted.get(class) as f64;
            if tokens == 0.0 {
                continue;
            }
            let entry = &mut self.classes[class.index()];
            let share = tokens * entry.ratio / predicted;
            // A running weighted geometric mean (the prior weighs PRIOR_WEIGHT, each request
            // its share): a class whose share is tiny learns little, the one dominating the
            // request takes most of the correction.
            let rate = share / (entry.weight + PRIOR_WEIGHT + share);
            entry.ratio *= factor.powf(rate);
            entry.ratio = entry.ratio.clamp(*PLAUSIBLE_OBSERVED_RATIO.start(), 4.0);
            // Capped, so the latest requests keep a say: each request holds the previous ones
            // (the history grows), and the newest is the best picture of the next.
            entry.weight = (entry.weight + share).min(MAX_CLASS_WEIGHT);
        }
        self.observations = self.observations.saturating_add(1);
        self.last_observation = Some((total, provider_tokens));
        true
    }
}

/// The calibrations of every (provider, model) seen: small (a few numbers per model), so the
/// whole book is what persistence writes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CalibrationBook {
    /// `provider/model` → calibration.
    pub models: BTreeMap<String, Calibration>,
}

/// The book's key of a (provider, model).
pub fn model_key(provider: &str, model: &str) -> String {
    format!("{provider}/{model}")
}

impl CalibrationBook {
    /// The model's calibration, or its family prior when it was never observed.
    pub fn get(&self, provider: &str, model: &str) -> Calibration {
        self.models
            .get(&model_key(provider, model))
            .cloned()
            .unwrap_or_else(|| Calibration::prior(provider, model))
    }

    /// Records one request's provider count against what was counted; whether it was used.
    pub fn observe(
        &mut self,
        provider: &str,
        model: &str,
        counted: &ClassTokens,
        provider_tokens: u64,
    ) -> bool {
        let key = model_key(provider, model);
        let entry = self
            .models
            .entry(key)
            .or_insert_with(|| Calibration::prior(provider, model));
        entry.observe(counted, provider_tokens)
    }
}

/// A counter whose every count is the calibrated figure: exact counts from `inner`, split by
/// class and scaled by [`Calibration::apply`]. Images (the original's size formula, no
/// tokenizer) go with the JSON class, as [`ClassRecorder`] records them, so what is learned and
/// what is applied agree.
pub struct Calibrated<'a> {
    /// The exact counter.
    pub inner: &'a dyn TokenCounter,
    /// The model's calibration.
    pub calibration: &'a Calibration,
}

impl TokenCounter for Calibrated<'_> {
    fn count_text(&self, text: &str) -> usize {
        let exact = self.inner.count_text(text) as u64;
        self.calibration.apply(&split_by_class(text, exact)) as usize
    }

    fn count_image(&self, data: Option<&str>) -> usize {
        let exact = self.inner.count_image(data) as u64;
        self.calibration
            .apply(&ClassTokens::of(ContentClass::Json, exact)) as usize
    }

    fn finish(&self, raw: usize) -> usize {
        self.inner.finish(raw)
    }
}

/// A counter that counts exactly through `inner` and records the counts by class: how the
/// sidecar knows the class mix of a request it observes.
pub struct ClassRecorder<'a> {
    /// The exact counter.
    pub inner: &'a dyn TokenCounter,
    /// What was counted so far.
    pub counted: Cell<ClassTokens>,
}

impl<'a> ClassRecorder<'a> {
    /// A recorder over `inner`, empty.
    pub fn new(inner: &'a dyn TokenCounter) -> Self {
        ClassRecorder {
            inner,
            counted: Cell::new(ClassTokens::default()),
        }
    }
}

impl TokenCounter for ClassRecorder<'_> {
    fn count_text(&self, text: &str) -> usize {
        let exact = self.inner.count_text(text);
        let mut counted = self.counted.get();
        counted.add(&split_by_class(text, exact as u64));
        self.counted.set(counted);
        exact
    }

    fn count_image(&self, data: Option<&str>) -> usize {
        let tokens = self.inner.count_image(data);
        let mut counted = self.counted.get();
        counted.add(&ClassTokens::of(ContentClass::Json, tokens as u64));
        self.counted.set(counted);
        tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_class(text: &str, expect: ContentClass) {
        assert_eq!(classify(text), expect, "{text:?}");
    }

    #[test]
    fn classify_tells_the_classes_apart() {
        check_class(
            "fn main() { let x = vec![1, 2]; println!(\"{x:?}\"); }",
            ContentClass::Code,
        );
        check_class(
            "The user asked to refactor the parser and keep the public API unchanged.",
            ContentClass::Prose,
        );
        check_class(
            "用户要求重构解析器，并保持公共接口不变。",
            ContentClass::Cjk,
        );
        check_class(
            r#"{"name": "roo", "version": "1.0", "files": ["a", "b"]}"#,
            ContentClass::Json,
        );
        check_class(
            "사용자가 파서를 리팩터링하라고 요청했습니다.",
            ContentClass::Hangul,
        );
        check_class("", ContentClass::Prose);
    }

    #[test]
    fn apply_scales_each_class_by_its_ratio() {
        let calibration = Calibration::of_family("claude");
        let counts = ClassTokens {
            code: 1000,
            prose: 1000,
            ..ClassTokens::default()
        };
        assert_eq!(calibration.apply(&counts), 2500);
        assert_eq!(Calibration::of_family("default").apply(&counts), 2000);
    }

    #[test]
    fn split_gives_cjk_its_share_and_the_markup_its_own_class() {
        let split = split_by_class("## 安装\nRun `npm install roo-code` then 打开设置。", 30);
        assert_eq!(split.total(), 30);
        assert!(split.cjk > 0 && split.cjk < 30, "{split:?}");
        assert_eq!(
            split_by_class("plain words", 2),
            ClassTokens::of(ContentClass::Prose, 2)
        );
    }

    #[test]
    fn observing_converges_to_the_provider_ratio() {
        let mut calibration = Calibration::of_family("default");
        let counted = ClassTokens::of(ContentClass::Code, 10_000);
        for provider in [14_100, 14_200, 14_150] {
            assert!(calibration.observe(&counted, provider));
        }
        let estimate = calibration.apply(&ClassTokens::of(ContentClass::Code, 1000));
        assert!((1330..=1450).contains(&estimate), "{estimate}");
        assert!(calibration.confidence(&counted) > 0.75);
        assert_eq!(Calibration::of_family("default").confidence(&counted), 0.0);
        // A pure code request taught nothing about CJK.
        assert_eq!(calibration.classes[ContentClass::Cjk as usize].ratio, 1.0);
    }

    #[test]
    fn the_same_report_twice_is_observed_once_and_nonsense_is_ignored() {
        let mut calibration = Calibration::of_family("default");
        let counted = ClassTokens::of(ContentClass::Prose, 1000);
        assert!(calibration.observe(&counted, 1200));
        assert!(!calibration.observe(&counted, 1200));
        assert!(!calibration.observe(&counted, 100_000));
        assert!(!calibration.observe(&ClassTokens::default(), 5));
        assert_eq!(calibration.observations, 1);
    }

    #[test]
    fn the_book_starts_from_the_family_prior() {
        let mut book = CalibrationBook::default();
        assert_eq!(book.get("anthropic", "claude-sonnet-4-5").family, "claude");
        assert_eq!(book.get("openai", "gpt-4-turbo").family, "cl100k");
        assert_eq!(book.get("openai", "gpt-4o").family, "o200k");
        book.observe("x", "m", &ClassTokens::of(ContentClass::Json, 100), 150);
        assert_eq!(book.get("x", "m").observations, 1);
    }

    #[test]
    fn the_calibrated_counter_scales_text_and_the_recorder_splits_it() {
        let exact = |text: &str| text.len();
        let calibration = Calibration::of_family("claude");
        let calibrated = Calibrated {
            inner: &exact,
            calibration: &calibration,
        };
        assert_eq!(calibrated.count_text("用户要求重构"), 26); // 18 bytes × 1.46
        let recorder = ClassRecorder::new(&exact);
        recorder.count_text("fn a() { b(); }");
        recorder.count_text("plain words here");
        assert_eq!(recorder.counted.get().code, 15);
        assert_eq!(recorder.counted.get().prose, 16);
    }
}
