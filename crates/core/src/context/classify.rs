//! Context-window-exceeded detection (spec §9), offered to hosts so every provider error is
//! classified the same way before the emergency path runs.

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

fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn openai(error: &Value) -> bool {
    if str_at(error, &["name"]) == Some("LengthFinishReasonError") {
        return true;
    }
    // An OpenAI SDK `APIError` (or subclass): code 400 and a message about tokens.
    let is_api_error = str_at(error, &["name"]).is_some_and(|name| name.ends_with("Error"))
        && error
            .get("code")
            .is_some_and(|code| js_string(code) == "400");
    let message = str_at(error, &["message"]).unwrap_or("");
    is_api_error && (message.contains("token") || message.contains("context length"))
}

fn generic(error: &Value) -> bool {
    let status = [
        error.get("status"),
        error.get("code"),
        error.get("error").and_then(|e| e.get("status")),
        error.get("response").and_then(|r| r.get("status")),
    ]
    .into_iter()
    .flatten()
    .find(|value| !value.is_null());
    if status.is_none_or(|status| js_string(status) != "400") {
        return false;
    }
    let message = str_at(error, &["message"])
        .filter(|m| !m.is_empty())
        .or_else(|| str_at(error, &["error", "message"]))
        .unwrap_or("")
        .to_lowercase();
    message.lines().any(|line| {
        followed_by(line, "context", &["length", "window"])
            || followed_by(line, "maximum", &["context"])
            || followed_by(line, "token", &["exceed"])
            || followed_by(line, "tokens", &["exceed"])
            || too_many_tokens(line)
    })
}

/// `word\s*(one of next)` somewhere in the line.
fn followed_by(line: &str, word: &str, next: &[&str]) -> bool {
    line.match_indices(word).any(|(start, _)| {
        let rest = line[start + word.len()..].trim_start();
        next.iter().any(|n| rest.starts_with(n))
    })
}

/// `too\s*many\s*tokens?`.
fn too_many_tokens(line: &str) -> bool {
    line.match_indices("too").any(|(start, _)| {
        let rest = line[start + 3..].trim_start();
        rest.strip_prefix("many")
            .is_some_and(|rest| rest.trim_start().starts_with("token"))
    })
}

/// The words appear in this order on one line (the original's `a.*b.*c` without the `s` flag).
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

fn anthropic(error: &Value) -> bool {
    if str_at(error, &["error", "type"]) != Some("invalid_request_error") {
        return false;
    }
    let Some(message) = str_at(error, &["error", "message"]) else {
        return false;
    };
    let message = message.to_lowercase();
    message.contains("prompt is too long")
        || message.contains("context_length_exceeded")
        || message.contains("max_tokens_to_sample")
        || message.lines().any(|line| {
            in_order(line, &["maximum", "tokens"])
                || in_order(line, &["context", "too", "long"])
                || in_order(line, &["exceeds", "context"])
                || in_order(line, &["token", "limit"])
        })
}
