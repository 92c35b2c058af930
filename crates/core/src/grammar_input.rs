//! The text handed to a tree-sitter grammar: an ASCII shadow of the input with the same byte
//! offsets, because grammar scanners are C code that is not safe on every code point.
//!
//! tree-sitter-bash 0.25.1's external scanner crashes the process (SIGSEGV) on `{` followed by a
//! character from planes 14 to 16 (`"{\u{E011F}"`), so one command or one `.sh` file could end
//! the sidecar. Shells and the languages we fold treat every non-ASCII character as part of a
//! word, identifier, string or comment, so replacing each one with as many `x` bytes as its
//! UTF-8 encoding has keeps the tree's structure and every node's byte range; callers slice the
//! original text with those ranges. No grammar keyword contains `xx`, so no new keyword appears.
//! Whitespace characters (and the byte-order mark, which grammars skip as an extra) become
//! spaces instead, so a BOM-first file or a no-break space keeps its meaning for the grammar.
//!
//! ## Decision: Grammars read an ASCII shadow
//!
//! Grammar scanners are C code: tree-sitter-bash 0.25.1's crashes the process (SIGSEGV, which no
//! panic guard catches) on `{` before a plane-14 character, so one command or one `.sh` file could
//! end the sidecar. Every parse (fold engine, command vetting) reads
//! `core::grammar_input::ascii_shadow`: each non-ASCII character becomes as many `x` bytes as it
//! has (spaces for whitespace and the BOM), so byte ranges, lines and columns are the original's
//! and names are sliced from the original. Non-ASCII characters are word or identifier characters
//! in every language we parse, so the trees keep their shape; tests run every ASCII byte before
//! characters of every plane through every grammar.

use std::borrow::Cow;

/// The byte that stands in for every byte of a non-ASCII character.
pub const SHADOW_BYTE: u8 = b'x';

/// `text` with every non-ASCII character replaced by [`SHADOW_BYTE`] (a space for whitespace and
/// the byte-order mark) repeated to its UTF-8 length: same length, same byte offsets, same lines,
/// ASCII only. Borrows when `text` is ASCII.
pub fn ascii_shadow(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut shadow = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_ascii() {
            shadow.push(character);
            continue;
        }
        let stand_in = if character.is_whitespace() || character == '\u{feff}' {
            ' '
        } else {
            char::from(SHADOW_BYTE)
        };
        shadow.extend(std::iter::repeat_n(stand_in, character.len_utf8()));
    }
    Cow::Owned(shadow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_text_is_borrowed_unchanged() {
        assert!(matches!(
            ascii_shadow("cat .env"),
            Cow::Borrowed("cat .env")
        ));
    }

    #[test]
    fn non_ascii_characters_keep_their_byte_length_and_offsets() {
        let text = "\u{feff}é{\u{E011F}}\n日本\u{a0}ok";
        let shadow = ascii_shadow(text);
        assert_eq!(shadow.len(), text.len());
        assert!(shadow.is_ascii());
        assert_eq!(shadow, "   xx{xxxx}\nxxxxxx  ok");
        for (index, character) in text.char_indices() {
            if character.is_ascii() {
                assert_eq!(shadow.as_bytes()[index], character as u8);
            }
        }
    }
}
