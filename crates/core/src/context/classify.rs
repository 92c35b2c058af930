//! Context-window-exceeded detection (spec §9), offered to hosts so every provider error is
//! classified the same way before the emergency path runs.
//!
//! The original's checks are JavaScript regexes over error objects as each SDK throws them; this
//! module reproduces them exactly (ASCII case folding, `\b` word boundaries, `\s` spanning lines,
//! `.` stopping at line terminators, JavaScript's `String(...)` and truthiness), so a shape the
//! original misses is missed here too, with one documented addition: Anthropic's bare response
//! body (`{type: "error", error: {type: "invalid_request_error", ...}}`), which an earlier version
//! of our protocol documentation told hosts to send, is recognised as well as the SDK's
//! `APIError` (which carries that body under `error`).

use serde_json::Value;

/// Whether a provider error (the host's error object as JSON) says the context window was
/// exceeded: the OR of the OpenAI, generic (OpenRouter and others) and Anthropic checks.
/// Non-objects are never context-window errors.
pub fn is_context_window_exceeded_error(error: &Value) -> bool {
    error.is_object() && (openai(error) || generic(error) || anthropic(error))
}

fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |value, key| value.get(key))?
        .as_str()
}

use crate::conversation::message::is_truthy as js_truthy;
use crate::conversation::shaping::js_string;

/// `a ?? b`: the value unless it is absent or null.
fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|value| !value.is_null())
}

fn openai(error: &Value) -> bool {
    if str_at(error, &["name"]) == Some("LengthFinishReasonError") {
        return true;
    }
    // `error instanceof APIError`: over JSON, an error whose `name` says it is one of the SDK's
    // error classes (`APIError`, `BadRequestError`, ...).
    let is_api_error = str_at(error, &["name"]).is_some_and(|name| name.ends_with("Error"));
    // `error.code?.toString() === "400"`, then `error.message.includes(...)` (case-sensitive).
    let code_is_400 = present(error.get("code")).is_some_and(|code| js_string(code) == "400");
    let message = error.get("message").map(js_string).unwrap_or_default();
    is_api_error && code_is_400 && (message.contains("token") || message.contains("context length"))
}

fn generic(error: &Value) -> bool {
    // `err.status ?? err.code ?? err.error?.status ?? err.response?.status`
    let status = present(error.get("status"))
        .or_else(|| present(error.get("code")))
        .or_else(|| present(error.get("error").and_then(|e| e.get("status"))))
        .or_else(|| present(error.get("response").and_then(|r| r.get("status"))));
    // `String(undefined)` is "undefined", never "400".
    if status.is_none_or(|status| js_string(status) != "400") {
        return false;
    }
    // `String(err.message || err.error?.message || "")`
    let message = [
        error.get("message"),
        error.get("error").and_then(|e| e.get("message")),
    ]
    .into_iter()
    .flatten()
    .find(|value| js_truthy(value))
    .map(js_string)
    .unwrap_or_default();
    let text = JsText::new(&message);
    use Pattern::*;
    // /\bcontext\s*(?:length|window)\b/i
    text.search(&[Boundary, Lit("context"), Spaces, OneOf(&["length", "window"]), Boundary])
        // /\bmaximum\s*context\b/i
        || text.search(&[Boundary, Lit("maximum"), Spaces, Lit("context"), Boundary])
        // /\b(?:input\s*)?tokens?\s*exceed/i
        || text.search(&[Boundary, Lit("input"), Spaces, Lit("token"), OptionalS, Spaces, Lit("exceed")])
        || text.search(&[Boundary, Lit("token"), OptionalS, Spaces, Lit("exceed")])
        // /\btoo\s*many\s*tokens?\b/i
        || text.search(&[Boundary, Lit("too"), Spaces, Lit("many"), Spaces, Lit("token"), OptionalS, Boundary])
}

fn anthropic(error: &Value) -> bool {
    // The SDK's `APIError` keeps the response body under `error`, so the original looks at
    // `error.error.error`; the bare body has it one level up.
    [error.get("error"), Some(error)]
        .into_iter()
        .flatten()
        .any(anthropic_body)
}

/// `body.error.type === "invalid_request_error"` and `String(body.error.message || "")` matches.
fn anthropic_body(body: &Value) -> bool {
    let Some(inner) = body.get("error") else {
        return false;
    };
    if str_at(inner, &["type"]) != Some("invalid_request_error") {
        return false;
    }
    let message = inner
        .get("message")
        .filter(|value| js_truthy(value))
        .map(js_string)
        .unwrap_or_default();
    // `a.*b.*c` without the `s` flag: the words in this order on one line. The earliest
    // occurrence of each word is the best start for the next, so one pass per line suffices.
    let message = message.to_ascii_lowercase();
    message.contains("prompt is too long")
        || message.contains("context_length_exceeded")
        || message.contains("max_tokens_to_sample")
        || message.split(js_line_terminator).any(|line| {
            in_order(line, &["maximum", "tokens"])
                || in_order(line, &["context", "too", "long"])
                || in_order(line, &["exceeds", "context"])
                || in_order(line, &["token", "limit"])
        })
}

fn in_order(line: &str, words: &[&str]) -> bool {
    let mut rest = line;
    for word in words {
        match rest.find(word) {
            Some(at) => rest = &rest[at + word.len()..],
            None => return false,
        }
    }
    true
}

/// One element of the few regular-expression shapes the original uses.
#[derive(Clone, Copy)]
enum Pattern {
    /// `\b` (ASCII word characters, as JavaScript without the `u` flag).
    Boundary,
    /// A lower-case ASCII literal, matched case-insensitively.
    Lit(&'static str),
    /// `(?:a|b)`.
    OneOf(&'static [&'static str]),
    /// `s?`.
    OptionalS,
    /// `\s*` (JavaScript's whitespace, line breaks included).
    Spaces,
}

/// A message as JavaScript sees it for an ASCII `/i` regex: non-ASCII characters never fold to
/// ASCII letters, so lower-casing ASCII alone is exact.
struct JsText {
    chars: Vec<char>,
}

impl JsText {
    fn new(message: &str) -> JsText {
        JsText {
            chars: message.chars().map(|c| c.to_ascii_lowercase()).collect(),
        }
    }

    /// Whether the pattern matches anywhere (a regex `test`). A `\s*` is always followed by a
    /// literal, so giving back spaces fails at once: linear in the message for these patterns.
    fn search(&self, pattern: &[Pattern]) -> bool {
        (0..=self.chars.len()).any(|start| self.match_at(pattern, start))
    }

    fn is_word(&self, at: usize) -> bool {
        self.chars
            .get(at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    }

    fn literal_at(&self, literal: &str, at: usize) -> Option<usize> {
        let mut end = at;
        for expected in literal.chars() {
            if self.chars.get(end) != Some(&expected) {
                return None;
            }
            end += 1;
        }
        Some(end)
    }

    fn match_at(&self, pattern: &[Pattern], at: usize) -> bool {
        let Some((first, rest)) = pattern.split_first() else {
            return true;
        };
        match *first {
            Pattern::Boundary => {
                let before = at > 0 && self.is_word(at - 1);
                before != self.is_word(at) && self.match_at(rest, at)
            }
            Pattern::Lit(literal) => self
                .literal_at(literal, at)
                .is_some_and(|end| self.match_at(rest, end)),
            Pattern::OneOf(literals) => literals.iter().any(|literal| {
                self.literal_at(literal, at)
                    .is_some_and(|end| self.match_at(rest, end))
            }),
            Pattern::OptionalS => {
                (self.chars.get(at) == Some(&'s') && self.match_at(rest, at + 1))
                    || self.match_at(rest, at)
            }
            Pattern::Spaces => {
                let mut end = at;
                while self.chars.get(end).is_some_and(|c| js_space(*c)) {
                    end += 1;
                }
                (at..=end).rev().any(|stop| self.match_at(rest, stop))
            }
        }
    }
}

/// JavaScript's `\s`.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// What JavaScript's `.` does not match without the `s` flag.
fn js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}
