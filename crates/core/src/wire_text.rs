//! Lone UTF-16 surrogates on the wire: the one reversible encoding that lets JSON written by
//! JavaScript (`"a\ud83d b"`, legal JSON) live in Rust strings and go back out byte for byte.
//!
//! A Rust `String` (and so serde_json's `Value`) cannot hold a lone surrogate. Before a body is
//! parsed, [`encode_json`] rewrites each *lone* surrogate escape `\uD8xx`..`\uDFxx` into two
//! ordinary characters, [`SENTINEL`] (U+FDD0, a Unicode noncharacter reserved for internal use)
//! followed by a tag in U+F0000..=U+F7FFF (plane-15 private use) that records the code unit and
//! the case of each hex digit. A sentinel the host sent itself is doubled. After a body is
//! serialized, [`decode_json`] turns both back, so the host reads exactly the escape it wrote.
//! A valid escaped pair (`\ud83d\ude00`) is left to the parser: it is the character itself, and
//! comes back as that character (JSON.stringify never escapes a pair).
//!
//! Inside the process a text is therefore "encoded"; what the model sees of it is
//! [`model_text`] (each lone surrogate is U+FFFD, as the original's tokenizer encodes it), and
//! what JSON.stringify would have produced from a serialized value is [`decode_json_str`].

use std::borrow::Cow;

/// Marks an encoded lone surrogate (followed by a tag) or, doubled, a literal U+FDD0.
pub const SENTINEL: char = '\u{FDD0}';
const SENTINEL_UTF8: [u8; 3] = [0xEF, 0xB7, 0x90];
const TAG_BASE: u32 = 0xF0000;
/// 2048 surrogate code units × 16 letter-case masks of the four hex digits.
const TAG_COUNT: u32 = 0x800 * 16;

fn hex_value(byte: u8) -> Option<u32> {
    (byte as char).to_digit(16)
}

/// The code unit of `\uXXXX` at `bytes[at..]` (which starts with the backslash), with the
/// letter-case mask of its digits (bit i set when digit i is an upper-case letter).
fn escape_at(bytes: &[u8], at: usize) -> Option<(u32, u32)> {
    let digits = bytes.get(at + 2..at + 6)?;
    if bytes.get(at + 1) != Some(&b'u') {
        return None;
    }
    let mut unit = 0;
    let mut mask = 0;
    for (i, digit) in digits.iter().enumerate() {
        unit = unit * 16 + hex_value(*digit)?;
        if digit.is_ascii_uppercase() {
            mask |= 1 << i;
        }
    }
    Some((unit, mask))
}

fn tag_of(unit: u32, mask: u32) -> char {
    char::from_u32(TAG_BASE + (unit - 0xD800) + 0x800 * mask).expect("plane-15 code point")
}

/// The code unit and case mask a tag stands for.
fn untag(tag: char) -> Option<(u32, u32)> {
    let offset = (tag as u32).checked_sub(TAG_BASE)?;
    (offset < TAG_COUNT).then_some((0xD800 + offset % 0x800, offset / 0x800))
}

fn push_escape(out: &mut Vec<u8>, unit: u32, mask: u32) {
    out.extend_from_slice(b"\\u");
    for i in 0..4 {
        let digit = (unit >> (12 - 4 * i)) & 0xF;
        let c = char::from_digit(digit, 16).expect("hex digit") as u8;
        out.push(if mask & (1 << i) != 0 {
            c.to_ascii_uppercase()
        } else {
            c
        });
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buffer = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
}

/// Rewrites a raw JSON body so every lone surrogate escape becomes an encoded pair of ordinary
/// characters and every literal U+FDD0 (raw or escaped) is doubled. Linear; borrows when
/// nothing needs rewriting. Invalid JSON stays invalid (the parser reports it).
pub fn encode_json(raw: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0; // raw[..copied] is already in `out`
    let mut at = 0;
    while let Some(found) = memchr::memchr2(b'\\', SENTINEL_UTF8[0], &raw[at..]) {
        let i = at + found;
        if raw[i] == SENTINEL_UTF8[0] {
            if raw[i..].starts_with(&SENTINEL_UTF8) {
                let out = out.get_or_insert_with(|| Vec::with_capacity(raw.len() + 16));
                out.extend_from_slice(&raw[copied..i + 3]);
                out.extend_from_slice(&SENTINEL_UTF8);
                copied = i + 3;
                at = i + 3;
            } else {
                at = i + 1;
            }
            continue;
        }
        // A backslash: always consume the escaped character, so `\\ud800` is not an escape.
        match escape_at(raw, i) {
            Some((0xD800..=0xDBFF, _))
                if matches!(escape_at(raw, i + 6), Some((0xDC00..=0xDFFF, _))) =>
            {
                at = i + 12; // a valid pair: the parser makes it one character
            }
            Some((unit @ 0xD800..=0xDFFF, mask)) => {
                let out = out.get_or_insert_with(|| Vec::with_capacity(raw.len() + 16));
                out.extend_from_slice(&raw[copied..i]);
                push_char(out, SENTINEL);
                push_char(out, tag_of(unit, mask));
                copied = i + 6;
                at = i + 6;
            }
            Some((0xFDD0, _)) => {
                let out = out.get_or_insert_with(|| Vec::with_capacity(raw.len() + 16));
                out.extend_from_slice(&raw[copied..i]);
                out.extend_from_slice(&SENTINEL_UTF8);
                out.extend_from_slice(&SENTINEL_UTF8);
                copied = i + 6;
                at = i + 6;
            }
            Some(_) => at = i + 6,
            None => at = (i + 2).min(raw.len()),
        }
    }
    match out {
        None => Cow::Borrowed(raw),
        Some(mut out) => {
            out.extend_from_slice(&raw[copied..]);
            Cow::Owned(out)
        }
    }
}

/// Turns serialized JSON (as serde_json writes it: non-ASCII characters raw) back into the
/// host's spelling: an encoded lone surrogate becomes its original `\uXXXX` escape, a doubled
/// sentinel one U+FDD0. Linear; borrows when there is no sentinel.
pub fn decode_json(serialized: &[u8]) -> Cow<'_, [u8]> {
    let finder = memchr::memmem::Finder::new(&SENTINEL_UTF8);
    let Some(first) = finder.find(serialized) else {
        return Cow::Borrowed(serialized);
    };
    let mut out = Vec::with_capacity(serialized.len());
    let mut copied = 0;
    let mut at = first;
    loop {
        out.extend_from_slice(&serialized[copied..at]);
        let next = at + 3;
        let following = char_at(serialized, next);
        match following {
            Some(SENTINEL) => {
                out.extend_from_slice(&SENTINEL_UTF8);
                copied = next + 3;
            }
            Some(tag) if untag(tag).is_some() => {
                let (unit, mask) = untag(tag).expect("checked");
                push_escape(&mut out, unit, mask);
                copied = next + tag.len_utf8();
            }
            _ => {
                out.extend_from_slice(&SENTINEL_UTF8);
                copied = next;
            }
        }
        match finder.find(&serialized[copied..]) {
            Some(found) => at = copied + found,
            None => break,
        }
    }
    out.extend_from_slice(&serialized[copied..]);
    Cow::Owned(out)
}

/// The character starting at `bytes[at]`, when one does.
fn char_at(bytes: &[u8], at: usize) -> Option<char> {
    let lead = *bytes.get(at)?;
    let len = match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    let slice = bytes.get(at..at + len)?;
    std::str::from_utf8(slice).ok()?.chars().next()
}

/// [`decode_json`] of a serialized JSON text: what JSON.stringify would have written.
pub fn decode_json_str(serialized: &str) -> Cow<'_, str> {
    match decode_json(serialized.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(serialized),
        Cow::Owned(bytes) => {
            Cow::Owned(String::from_utf8(bytes).expect("only ASCII escapes are inserted"))
        }
    }
}

/// A value serialized by serde_json, as the text JSON.stringify would have made of it (a lone
/// surrogate is the six characters of its escape), encoded as an internal text so that
/// [`model_text`] reads it back exactly. For texts built from JSON for the model to read.
pub fn stringified(serialized: String) -> String {
    match decode_json_str(&serialized) {
        Cow::Borrowed(_) => serialized,
        Cow::Owned(host) => encode_text(&host).into_owned(),
    }
}

/// The text as the model sees it: each encoded lone surrogate is U+FFFD (the original's
/// tokenizer encodes a lone surrogate so), a doubled sentinel is one U+FDD0.
pub fn model_text(text: &str) -> Cow<'_, str> {
    if !text.contains(SENTINEL) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != SENTINEL {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some(&SENTINEL) => {
                chars.next();
                out.push(SENTINEL);
            }
            Some(&tag) if untag(tag).is_some() => {
                chars.next();
                out.push(char::REPLACEMENT_CHARACTER);
            }
            _ => out.push(SENTINEL),
        }
    }
    Cow::Owned(out)
}

/// Encodes a text that did not come through [`encode_json`] (a file read by the command line)
/// so [`model_text`] and [`decode_json`] read it back unchanged: each U+FDD0 is doubled.
pub fn encode_text(text: &str) -> Cow<'_, str> {
    if !text.contains(SENTINEL) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 6);
    for c in text.chars() {
        out.push(c);
        if c == SENTINEL {
            out.push(SENTINEL);
        }
    }
    Cow::Owned(out)
}

/// [`encode_text`] of raw bytes the sidecar read itself (a file), before they are decoded:
/// each complete U+FDD0 is doubled, every other byte (invalid UTF-8 included) is kept, so a
/// lossy decode afterwards sees the same text with each U+FDD0 doubled.
pub fn encode_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    let finder = memchr::memmem::Finder::new(&SENTINEL_UTF8);
    if finder.find(bytes).is_none() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 6);
    let mut copied = 0;
    for found in finder.find_iter(bytes) {
        out.extend_from_slice(&bytes[copied..found + 3]);
        out.extend_from_slice(&SENTINEL_UTF8);
        copied = found + 3;
    }
    out.extend_from_slice(&bytes[copied..]);
    Cow::Owned(out)
}

/// The JSON `JSON.stringify` writes for a value the host parsed: compact, lone surrogates as
/// the host escaped them ([`decode_json`]) and numbers as JavaScript writes them (every number
/// is an IEEE double there: `1e+21`, not `1e21`; `1`, not `1.0`; `0` for `-0`; an integer past
/// 2^53 rounded to its double, `18446744073709552000`).
pub fn javascript_json<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, JavaScriptNumbers);
    value
        .serialize(&mut serializer)
        .expect("a JSON value serialises");
    match decode_json(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(decoded) => decoded,
    }
}

/// Compact JSON with JavaScript's number formatting.
struct JavaScriptNumbers;

/// `Number.MAX_SAFE_INTEGER`: every integer up to it is a double exactly.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

impl serde_json::ser::Formatter for JavaScriptNumbers {
    fn write_i64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: i64) -> std::io::Result<()> {
        if v.unsigned_abs() <= MAX_SAFE_INTEGER {
            // Exactly a double: written as Rust writes it.
            return write!(w, "{v}");
        }
        w.write_all(javascript_number(v as f64).as_bytes())
    }
    fn write_u64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: u64) -> std::io::Result<()> {
        if v <= MAX_SAFE_INTEGER {
            return write!(w, "{v}");
        }
        w.write_all(javascript_number(v as f64).as_bytes())
    }
    fn write_i128<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        v: i128,
    ) -> std::io::Result<()> {
        w.write_all(javascript_number(v as f64).as_bytes())
    }
    fn write_u128<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        v: u128,
    ) -> std::io::Result<()> {
        w.write_all(javascript_number(v as f64).as_bytes())
    }
    fn write_f32<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f32) -> std::io::Result<()> {
        w.write_all(javascript_number(f64::from(v)).as_bytes())
    }
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        w.write_all(javascript_number(v).as_bytes())
    }
}

/// `Number.prototype.toString()` of a double (ECMA-262 Number::toString, radix 10): the
/// shortest digits that round-trip, in plain notation for exponents -7 < n <= 21, else
/// `d.ddde±n`. `JSON.stringify` writes a non-finite number as `null`.
pub fn javascript_number(value: f64) -> String {
    if !value.is_finite() {
        return "null".to_owned();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    // Rust's `{:e}` writes the shortest round-trip digits: `-1.2345e-7`.
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("`{:e}` writes an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exponent: i64 = exponent.parse().expect("an integer exponent");
    let k = digits.len() as i64;
    let n = exponent + 1;
    let mut out = String::new();
    if value < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n > 0 { '+' } else { '-' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Parses a raw JSON text the way the server does.
    fn parse(raw: &str) -> Value {
        serde_json::from_slice(&encode_json(raw.as_bytes())).expect("encoded JSON parses")
    }

    fn round_trip(raw: &str) -> String {
        let value = parse(raw);
        String::from_utf8(decode_json(value.to_string().as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn lone_surrogates_round_trip_byte_for_byte() {
        for raw in [
            r#""a\ud83d b""#,
            r#""x\udc00y""#,
            r#""\uD83D""#,
            r#""\uDc0f\ud8Ff""#,
            r#""\ude00\ud83d""#,
            r#"{"k\ud800":["\udfff",1,"\ud83d"]}"#,
            r#""\\ud83d""#,
            r#""\\\ud83d""#,
            "\"\u{FDD0}\u{FDD0}\u{FDD0}\"",
            "\"\u{FDD0}\\ud800\u{FDD0}\"",
            "\"\u{F0000}\u{FDD0}\u{F0001}\"",
        ] {
            assert_eq!(round_trip(raw), raw, "{raw}");
        }
    }

    #[test]
    fn valid_pairs_are_the_character() {
        assert_eq!(parse(r#""\ud83d\ude00""#), Value::String("😀".into()));
        assert_eq!(round_trip(r#""\ud83d\ude00""#), "\"😀\"");
        assert_eq!(round_trip(r#""\ud83d\ud83d\ude00""#), r#""\ud83d😀""#);
    }

    #[test]
    fn escaped_sentinel_is_a_literal_sentinel() {
        assert_eq!(
            parse(r#""\ufdd0""#),
            Value::String("\u{FDD0}\u{FDD0}".into())
        );
        assert_eq!(round_trip(r#""\ufdd0""#), "\"\u{FDD0}\"");
    }

    #[test]
    fn the_model_sees_a_replacement_character() {
        let Value::String(text) = parse(r#""a\ud83d b\udc00\ufdd0😀""#) else {
            panic!()
        };
        assert_eq!(model_text(&text), "a\u{FFFD} b\u{FFFD}\u{FDD0}😀");
        assert_eq!(model_text("plain"), "plain");
        assert!(matches!(model_text("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn serialized_values_decode_to_json_stringify_output() {
        let value = parse(r#"{"q":"a\ud83d","n":"\u0000"}"#);
        assert_eq!(
            decode_json_str(&value.to_string()),
            r#"{"q":"a\ud83d","n":"\u0000"}"#
        );
    }

    #[test]
    fn stringified_values_read_as_json_stringify_wrote_them() {
        let value = parse("{\"q\":\"a\\ud83d\\ufdd0\"}");
        let text = stringified(value.to_string());
        assert_eq!(model_text(&text), "{\"q\":\"a\\ud83d\u{FDD0}\"}");
    }

    #[test]
    fn invalid_escapes_stay_invalid() {
        for raw in [r#""\ud83""#, r#""\uZZZZ""#, r#""\"#, r#""\u"#] {
            assert!(serde_json::from_slice::<Value>(&encode_json(raw.as_bytes())).is_err());
        }
    }

    #[test]
    fn read_bytes_round_trip_through_the_wire() {
        for bytes in [
            &b""[..],
            "a\u{FDD0}\u{F0000}b\n\u{FDD0}\u{FDD0}c".as_bytes(),
            b"\xef\xb7\x90\xef\xb7",
            b"\xff\xef\xb7\x90\xf3\xb0\x80\x80",
        ] {
            let encoded = encode_bytes(bytes);
            let text = String::from_utf8_lossy(&encoded);
            assert_eq!(model_text(&text), String::from_utf8_lossy(bytes));
            let json = Value::String(text.into_owned()).to_string();
            assert_eq!(
                decode_json_str(&json),
                Value::String(String::from_utf8_lossy(bytes).into_owned()).to_string()
            );
        }
    }

    #[test]
    fn text_encoding_round_trips_through_the_model_view() {
        for text in [
            "",
            "a",
            "\u{FDD0}",
            "x\u{FDD0}\u{F0000}y",
            "\u{FDD0}\u{FDD0}",
        ] {
            assert_eq!(model_text(&encode_text(text)), text);
            let json = Value::String(encode_text(text).into_owned()).to_string();
            assert_eq!(
                decode_json_str(&json),
                Value::String(text.into()).to_string()
            );
        }
    }

    /// A random string as JavaScript may hold it: UTF-16 units, some of them lone surrogates.
    fn js_units() -> impl Strategy<Value = Vec<u16>> {
        prop::collection::vec(
            prop_oneof![
                4 => any::<char>().prop_map(|c| c as u32),
                2 => 0xD800u32..0xE000,
                1 => Just(0xFDD0u32),
                1 => 0xF0000u32..0xF8000,
                1 => prop::sample::select(vec![0u32, 0x22, 0x5C, 0x2F, 0x0A]),
            ],
            0..24,
        )
        .prop_map(|codes| {
            let mut units = Vec::new();
            for code in codes {
                match char::from_u32(code) {
                    Some(c) => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
                    None => units.push(code as u16),
                }
            }
            units
        })
    }

    /// JSON.stringify of a UTF-16 string: raw characters, lone surrogates as lower-case escapes.
    fn js_stringify(units: &[u16]) -> String {
        let mut out = String::from("\"");
        for unit in char::decode_utf16(units.iter().copied()) {
            match unit {
                Ok('"') => out.push_str("\\\""),
                Ok('\\') => out.push_str("\\\\"),
                Ok('\n') => out.push_str("\\n"),
                Ok('\t') => out.push_str("\\t"),
                Ok('\r') => out.push_str("\\r"),
                Ok('\u{8}') => out.push_str("\\b"),
                Ok('\u{c}') => out.push_str("\\f"),
                Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                Ok(c) => out.push(c),
                Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
            }
        }
        out.push('"');
        out
    }

    proptest! {
        #[test]
        fn any_js_string_round_trips(units in js_units()) {
            let raw = js_stringify(&units);
            prop_assert_eq!(round_trip(&raw), raw.clone());
            let Value::String(text) = parse(&raw) else { panic!() };
            prop_assert_eq!(model_text(&text), String::from_utf16_lossy(&units));
        }

        #[test]
        fn any_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = encode_json(&bytes);
            let _ = decode_json(&bytes);
        }
    }
}
