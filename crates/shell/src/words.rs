//! What the shell passes for a word: quote removal (plain, double, ANSI-C `$'…'`, locale `$"…"`),
//! escapes, brace expansion and glob detection; expansions mark the word dynamic.

use crate::Construct;

/// One character of a word after quote removal, and whether it was quoted (quoted characters
/// never expand as globs or braces).
pub type Chars = Vec<(char, bool)>;

/// Most words one brace expansion may produce; past it the word is undecidable.
pub const MAX_BRACE_WORDS: usize = 256;

/// Decodes the inside of `$'…'`.
pub fn ansi_c(inner: &str, out: &mut Chars) {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push((c, true));
            continue;
        }
        let Some(e) = chars.next() else {
            out.push(('\\', true));
            break;
        };
        let decoded = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                let mut digits = 0;
                while digits < max
                    && let Some(d) = chars.peek().and_then(|d| d.to_digit(16))
                {
                    value = value * 16 + d;
                    chars.next();
                    digits += 1;
                }
                if digits == 0 {
                    out.push(('\\', true));
                    Some(e)
                } else {
                    char::from_u32(value).or(Some('\u{fffd}'))
                }
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                let mut digits = 1;
                while digits < 3
                    && let Some(d) = chars.peek().and_then(|d| d.to_digit(8))
                {
                    value = value * 8 + d;
                    chars.next();
                    digits += 1;
                }
                char::from_u32(value)
            }
            'c' => chars
                .next()
                .map(|c| char::from_u32((c as u32) & 0x1f).unwrap_or('?')),
            other => {
                out.push(('\\', true));
                Some(other)
            }
        };
        // Bash keeps the string as C text: a NUL ends what `$'…'` yields (`$'.env\x00x'` is
        // `.env`).
        if decoded == Some('\0') {
            return;
        }
        if let Some(d) = decoded {
            out.push((d, true));
        }
    }
}

/// Decodes literal text inside double quotes (backslash escapes only `"`, `\`, `$`, `` ` ``).
pub fn double_quoted(inner: &str, out: &mut Chars) {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '"' | '\\' | '$' | '`' | '\n')
        {
            chars.next();
            if next != '\n' {
                out.push((next, true));
            }
            continue;
        }
        out.push((c, true));
    }
}

/// Decodes an unquoted word: a backslash quotes the next character.
pub fn unquoted(text: &str, out: &mut Chars) {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push((next, true)),
            }
        } else {
            out.push((c, false));
        }
    }
}

/// Brace expansion of one word (`a{b,c}d`, `{1..3}`, `.e{m..o}v`), bounded.
pub fn brace_expand(word: &Chars) -> Result<Vec<Chars>, Construct> {
    let mut done = Vec::new();
    let mut pending = vec![word.clone()];
    let mut steps = 0usize;
    while let Some(w) = pending.pop() {
        steps += 1;
        if steps > MAX_BRACE_WORDS * 4 || done.len() + pending.len() > MAX_BRACE_WORDS {
            return Err(Construct::Limit);
        }
        match first_brace(&w) {
            None => done.push(w),
            Some((open, close, parts)) => {
                for part in parts.into_iter().rev() {
                    let mut next: Chars = w[..open].to_vec();
                    next.extend(part);
                    next.extend_from_slice(&w[close + 1..]);
                    pending.push(next);
                }
                if done.len() + pending.len() > MAX_BRACE_WORDS {
                    return Err(Construct::Limit);
                }
            }
        }
    }
    Ok(done)
}

/// The first expandable unquoted `{…}` group: its bounds and alternatives.
fn first_brace(w: &Chars) -> Option<(usize, usize, Vec<Chars>)> {
    let mut search = 0;
    while search < w.len() {
        let open = (search..w.len()).find(|&i| w[i] == ('{', false))?;
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &(c, quoted)) in w.iter().enumerate().skip(open) {
            if quoted {
                continue;
            }
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                ',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else {
            search = open + 1;
            continue;
        };
        if !commas.is_empty() {
            let mut parts = Vec::new();
            let mut start = open + 1;
            for &comma in commas.iter().chain(std::iter::once(&close)) {
                parts.push(w[start..comma].to_vec());
                start = comma + 1;
            }
            return Some((open, close, parts));
        }
        let inner: String = w[open + 1..close].iter().map(|&(c, _)| c).collect();
        if let Some(parts) = range(&inner) {
            return Some((open, close, parts));
        }
        search = open + 1;
    }
    None
}

/// `{a..e}`, `{1..10}`, `{1..10..2}`: bounded.
fn range(inner: &str) -> Option<Vec<Chars>> {
    let mut pieces = inner.split("..");
    let (from, to) = (pieces.next()?, pieces.next()?);
    let step: i64 = match pieces.next() {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    if pieces.next().is_some() {
        return None;
    }
    let as_chars = |s: String| s.chars().map(|c| (c, true)).collect::<Chars>();
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let count = a.abs_diff(b) / step as u64 + 1;
        if count > MAX_BRACE_WORDS as u64 {
            return Some(vec![Vec::new(); MAX_BRACE_WORDS + 1]);
        }
        let dir = if b >= a { step } else { -step };
        return Some(
            (0..count as i64)
                .map(|k| as_chars((a + k * dir).to_string()))
                .collect(),
        );
    }
    let (mut fa, mut fb) = (from.chars(), to.chars());
    let (a, b) = (fa.next()?, fb.next()?);
    if fa.next().is_some() || fb.next().is_some() || !a.is_ascii() || !b.is_ascii() {
        return None;
    }
    let (a, b) = (a as i64, b as i64);
    let dir = if b >= a { step } else { -step };
    let count = (a - b).unsigned_abs() / step as u64 + 1;
    Some(
        (0..count as i64)
            .filter_map(|k| char::from_u32((a + k * dir) as u32))
            .map(|c| vec![(c, true)])
            .collect(),
    )
}

/// Whether unquoted glob characters remain.
pub fn has_glob(w: &Chars) -> bool {
    w.iter()
        .any(|&(c, quoted)| !quoted && matches!(c, '*' | '?' | '['))
}

/// The plain text of decoded characters.
pub fn text(w: &Chars) -> String {
    w.iter().map(|&(c, _)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(s: &str) -> Vec<String> {
        let mut w = Chars::new();
        unquoted(s, &mut w);
        brace_expand(&w).unwrap().iter().map(text).collect()
    }

    #[test]
    fn braces_expand_like_bash() {
        assert_eq!(expand("{cat,.env}"), ["cat", ".env"]);
        assert_eq!(expand(".e{m..o}v"), [".emv", ".env", ".eov"]);
        assert_eq!(expand("a{b,c{d,e}}f"), ["abf", "acdf", "acef"]);
        assert_eq!(expand("{1..3}"), ["1", "2", "3"]);
        assert_eq!(expand("x{}y"), ["x{}y"]);
        assert_eq!(expand("\\{a,b\\}"), ["{a,b}"]);
        let mut w = Chars::new();
        unquoted("{1..100000}", &mut w);
        assert_eq!(brace_expand(&w), Err(Construct::Limit));
    }

    #[test]
    fn ansi_c_quotes_decode() {
        let mut w = Chars::new();
        ansi_c("\\x2eenv\\056x\\u0041\\'", &mut w);
        assert_eq!(text(&w), ".env.xA'");
    }
}
