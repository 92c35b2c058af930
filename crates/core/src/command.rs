//! Shell-command vetting: finds the first argument of a command line that would read (or write)
//! a path the access rule blocks. The command is parsed like a shell does (quotes, escapes,
//! chains, pipes, redirections, subshells, command substitution, wrappers such as `sudo`, `env`,
//! `xargs`, `bash -c`), so the original's token heuristic and its bypasses are gone.

/// A word of a command line: what the user typed and what the shell would pass.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    raw: String,
    value: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(Word),
    /// A separator between simple commands: `|`, `||`, `&&`, `;`, `&`, newline, `(`, `)`.
    Separator,
    /// A redirection operator; the next word is its target.
    Redirect {
        heredoc: bool,
    },
}

#[derive(Debug)]
struct Lexed {
    tokens: Vec<Token>,
    /// Bodies of `$(...)`, backticks and `<(...)`, vetted as commands of their own.
    substitutions: Vec<String>,
}

#[derive(Debug)]
struct Unbalanced;

fn lex(input: &str) -> Result<Lexed, Unbalanced> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut substitutions = Vec::new();
    let mut i = 0;
    let mut raw = String::new();
    let mut value = String::new();
    let mut in_word = false;

    fn flush(tokens: &mut Vec<Token>, raw: &mut String, value: &mut String, in_word: &mut bool) {
        if *in_word {
            tokens.push(Token::Word(Word {
                raw: std::mem::take(raw),
                value: std::mem::take(value),
            }));
            *in_word = false;
        }
    }

    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => {
                flush(&mut tokens, &mut raw, &mut value, &mut in_word);
                i += 1;
            }
            '\n' | ';' | '|' | '&' | '(' | ')' => {
                // `&>` and `&>>` redirect both streams.
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    flush(&mut tokens, &mut raw, &mut value, &mut in_word);
                    i += 2;
                    if chars.get(i) == Some(&'>') {
                        i += 1;
                    }
                    tokens.push(Token::Redirect { heredoc: false });
                    continue;
                }
                flush(&mut tokens, &mut raw, &mut value, &mut in_word);
                tokens.push(Token::Separator);
                i += 1;
                while i < chars.len() && matches!(chars[i], '|' | '&' | ';') {
                    i += 1;
                }
            }
            '<' | '>' => {
                // Process substitution `<(...)` / `>(...)`.
                if chars.get(i + 1) == Some(&'(') {
                    flush(&mut tokens, &mut raw, &mut value, &mut in_word);
                    let (body, next) = balanced(&chars, i + 2)?;
                    substitutions.push(body);
                    i = next;
                    continue;
                }
                // A file-descriptor number right before the operator belongs to it (`2>`).
                if in_word && raw.chars().all(|d| d.is_ascii_digit()) {
                    raw.clear();
                    value.clear();
                    in_word = false;
                }
                flush(&mut tokens, &mut raw, &mut value, &mut in_word);
                let mut heredoc = false;
                i += 1;
                while i < chars.len() && matches!(chars[i], '<' | '>' | '&' | '|') {
                    if c == '<' && chars[i] == '<' {
                        heredoc = !heredoc || chars.get(i + 1) != Some(&'<');
                    }
                    i += 1;
                }
                // `2>&1`: duplicating a descriptor names no file.
                if chars.get(i - 1) == Some(&'&') {
                    let start = i;
                    while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '-') {
                        i += 1;
                    }
                    if i > start {
                        continue;
                    }
                }
                tokens.push(Token::Redirect { heredoc });
            }
            '\'' => {
                in_word = true;
                let start = i;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    value.push(chars[i]);
                    i += 1;
                }
                if i >= chars.len() {
                    return Err(Unbalanced);
                }
                i += 1;
                raw.extend(&chars[start..i]);
            }
            '"' => {
                in_word = true;
                let start = i;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(Unbalanced),
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') => {
                            if let Some(next) = chars.get(i + 1) {
                                if !matches!(next, '"' | '\\' | '$' | '`' | '\n') {
                                    value.push('\\');
                                }
                                value.push(*next);
                            }
                            i += 2;
                        }
                        Some('$') if chars.get(i + 1) == Some(&'(') => {
                            let (body, next) = balanced(&chars, i + 2)?;
                            substitutions.push(body);
                            value.push('$');
                            i = next;
                        }
                        Some('`') => {
                            let (body, next) = backtick(&chars, i + 1)?;
                            substitutions.push(body);
                            value.push('$');
                            i = next;
                        }
                        Some(other) => {
                            value.push(*other);
                            i += 1;
                        }
                    }
                }
                raw.extend(&chars[start..i]);
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.get(i + 1) {
                    if *next != '\n' {
                        value.push(*next);
                    }
                    raw.push('\\');
                    raw.push(*next);
                }
                i += 2;
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                in_word = true;
                let (body, next) = balanced(&chars, i + 2)?;
                substitutions.push(body);
                raw.extend(&chars[i..next]);
                value.push('$');
                i = next;
            }
            '`' => {
                in_word = true;
                let (body, next) = backtick(&chars, i + 1)?;
                substitutions.push(body);
                raw.extend(&chars[i..next]);
                value.push('$');
                i = next;
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            _ => {
                in_word = true;
                raw.push(c);
                value.push(c);
                i += 1;
            }
        }
    }
    flush(&mut tokens, &mut raw, &mut value, &mut in_word);
    Ok(Lexed {
        tokens,
        substitutions,
    })
}

/// Reads up to the `)` matching an already consumed `(`; returns the body and the index after it.
fn balanced(chars: &[char], mut i: usize) -> Result<(String, usize), Unbalanced> {
    let start = i;
    let mut depth = 1usize;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => i += 1,
            (Some('"'), '"') => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Ok((chars[start..i].iter().collect(), i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(Unbalanced)
}

fn backtick(chars: &[char], mut i: usize) -> Result<(String, usize), Unbalanced> {
    let start = i;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '`' => return Ok((chars[start..i].iter().collect(), i + 1)),
            _ => i += 1,
        }
    }
    Err(Unbalanced)
}

/// Programs whose operands name files they read (or copy, or execute). The original's 13
/// readers plus the common ones it missed.
const READERS: &[&str] = &[
    // the original's list
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "grep",
    "awk",
    "sed",
    "get-content",
    "gc",
    "type",
    "select-string",
    "sls",
    // more readers
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "gawk",
    "mawk",
    "nawk",
    "nl",
    "tac",
    "od",
    "xxd",
    "hexdump",
    "hd",
    "strings",
    "base64",
    "base32",
    "bat",
    "batcat",
    "jq",
    "yq",
    "cut",
    "sort",
    "uniq",
    "diff",
    "cmp",
    "comm",
    "wc",
    "paste",
    "join",
    "fold",
    "fmt",
    "pr",
    "expand",
    "rev",
    "tr",
    "column",
    "iconv",
    "file",
    "stat",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "zcat",
    "bzcat",
    "xzcat",
    "zless",
    "zmore",
    "zgrep",
    "gzip",
    "gunzip",
    "bzip2",
    "xz",
    "unxz",
    "zip",
    "unzip",
    "tar",
    "7z",
    "cpio",
    "cp",
    "mv",
    "ln",
    "rsync",
    "scp",
    "install",
    "dd",
    "tee",
    "split",
    "csplit",
    "vi",
    "vim",
    "nvim",
    "view",
    "nano",
    "emacs",
    "ed",
    "ex",
    "code",
    "open",
    "xdg-open",
    "python",
    "python3",
    "node",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "lua",
    "source",
    ".",
    "curl",
    "wget",
    "openssl",
    "gpg",
    "sqlite3",
    "readlink",
    "realpath",
    "git",
    "patch",
    "xmllint",
    "plutil",
    "look",
    "shuf",
    "truncate",
    "rm",
    "touch",
    "chmod",
    "chown",
    "printf",
    "ls",
    "find",
    "du",
    "tree",
    // PowerShell readers
    "import-csv",
    "import-clixml",
    "get-filehash",
    "format-hex",
    "copy-item",
    "cp",
    "copy",
    "move-item",
    "gci",
    "get-childitem",
];

/// Programs whose first operand is a pattern or script rather than a file, unless it is given
/// through an option (`-e`, `-f`, `--regexp`).
const PATTERN_FIRST: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "zgrep",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "select-string",
    "sls",
    "jq",
    "yq",
    "look",
    "tr",
    "printf",
];

/// Options that take the next word as their value, per program family (value is checked as a
/// path when the option reads a file).
fn option_takes_value(program: &str, option: &str) -> Option<bool> {
    // Some(true): value is a file to check; Some(false): value is not a path.
    match (program, option) {
        ("grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack", "-e" | "--regexp") => {
            Some(false)
        }
        ("grep" | "egrep" | "fgrep" | "zgrep" | "rg", "-f" | "--file") => Some(true),
        ("sed", "-e" | "--expression") => Some(false),
        ("sed", "-f" | "--file") => Some(true),
        ("awk" | "gawk" | "mawk" | "nawk", "-f" | "--file") => Some(true),
        ("awk" | "gawk" | "mawk" | "nawk", "-v" | "-F") => Some(false),
        ("head" | "tail", "-n" | "-c") => Some(false),
        ("jq", "--arg" | "--argjson") => Some(false),
        _ => None,
    }
}

/// Options of wrapper programs that take a value (so the value is not the wrapped command).
fn wrapper_option_takes_value(wrapper: &str, option: &str) -> bool {
    matches!(
        (wrapper, option),
        (
            "sudo" | "doas",
            "-u" | "-g" | "-C" | "-p" | "-h" | "-r" | "-t" | "-D" | "-U"
        ) | (
            "env",
            "-u" | "-C" | "-S" | "--unset" | "--chdir" | "--split-string"
        ) | (
            "xargs",
            "-I" | "-i" | "-n" | "-d" | "-P" | "-s" | "-L" | "-E" | "-a" | "--arg-file"
        ) | ("nice", "-n")
            | ("stdbuf", "-i" | "-o" | "-e")
            | ("timeout", "-s" | "-k" | "--signal" | "--kill-after")
            | ("ionice", "-c" | "-n" | "-p")
            | ("taskset", "-p")
    )
}

const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "xargs",
    "nice",
    "nohup",
    "time",
    "command",
    "exec",
    "builtin",
    "stdbuf",
    "timeout",
    "ionice",
    "taskset",
    "busybox",
    "unbuffer",
    "chronic",
    "watch",
    "caffeinate",
];

const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "pwsh",
    "powershell",
];

fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let base = base.to_lowercase();
    base.strip_suffix(".exe").map(str::to_owned).unwrap_or(base)
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// An argument that names a blocked path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedArgument {
    /// The argument as the user typed it (quotes included).
    pub typed: String,
    /// The reading of it that `is_blocked` refused: the unquoted word, the value of
    /// `--opt=value`, or the path of `REV:path`.
    pub path: String,
}

/// Returns the first argument of `command` that names a path for which `is_blocked` says yes;
/// `None` when the command may run. Never panics; a command that cannot be parsed (unbalanced
/// quotes) is checked word by word instead of being allowed.
pub fn first_blocked_argument(
    command: &str,
    is_blocked: &dyn Fn(&str) -> bool,
) -> Option<BlockedArgument> {
    vet(command, is_blocked, 0)
}

const MAX_NESTING: usize = 16;

fn vet(command: &str, is_blocked: &dyn Fn(&str) -> bool, depth: usize) -> Option<BlockedArgument> {
    if depth > MAX_NESTING {
        return None;
    }
    let lexed = match lex(command) {
        Ok(lexed) => lexed,
        Err(Unbalanced) => return vet_word_by_word(command, is_blocked),
    };
    let mut simple: Vec<Word> = Vec::new();
    let mut expect_target: Option<bool> = None;
    for token in lexed.tokens {
        match token {
            Token::Separator => {
                if let Some(hit) = vet_simple(&simple, is_blocked, depth) {
                    return Some(hit);
                }
                simple.clear();
                expect_target = None;
            }
            Token::Redirect { heredoc } => expect_target = Some(heredoc),
            Token::Word(word) => match expect_target.take() {
                Some(false) => {
                    if let Some(hit) = checks(&word, is_blocked) {
                        return Some(hit);
                    }
                }
                Some(true) => {} // a heredoc delimiter names no file
                None => simple.push(word),
            },
        }
    }
    if let Some(hit) = vet_simple(&simple, is_blocked, depth) {
        return Some(hit);
    }
    lexed
        .substitutions
        .iter()
        .find_map(|body| vet(body, is_blocked, depth + 1))
}

fn vet_word_by_word(command: &str, is_blocked: &dyn Fn(&str) -> bool) -> Option<BlockedArgument> {
    command
        .split(|c: char| c.is_whitespace() || "|;&<>()`".contains(c))
        .filter(|w| !w.is_empty())
        .find_map(|w| {
            let unquoted: String = w.chars().filter(|c| !matches!(c, '\'' | '"')).collect();
            candidates(&unquoted)
                .find(|c| is_blocked(c))
                .map(|path| BlockedArgument {
                    typed: w.to_owned(),
                    path,
                })
        })
}

/// The path-like readings of a word: itself, the value of `--opt=value`, the path of `REV:path`.
fn candidates(value: &str) -> impl Iterator<Item = String> {
    let mut out = Vec::new();
    if !value.is_empty() && !value.starts_with('-') {
        out.push(value.to_owned());
    }
    if value.starts_with('-')
        && let Some((_, v)) = value.split_once('=')
        && !v.is_empty()
    {
        out.push(v.to_owned());
    }
    if let Some((_, after)) = value.split_once(':')
        && !after.is_empty()
        && !after.starts_with("//")
    {
        out.push(after.trim_start_matches('\\').to_owned());
    }
    out.into_iter()
}

/// The first blocked reading of `word`, if any.
fn checks(word: &Word, is_blocked: &dyn Fn(&str) -> bool) -> Option<BlockedArgument> {
    candidates(&word.value)
        .find(|c| is_blocked(c))
        .map(|path| BlockedArgument {
            typed: word.raw.clone(),
            path,
        })
}

fn vet_simple(
    words: &[Word],
    is_blocked: &dyn Fn(&str) -> bool,
    depth: usize,
) -> Option<BlockedArgument> {
    let mut index = 0;
    // Leading assignments (`VAR=value cmd`): values that look like paths are checked too.
    while index < words.len() && is_assignment(&words[index].value) {
        let value = words[index]
            .value
            .split_once('=')
            .map(|(_, v)| v)
            .unwrap_or("");
        if value.contains('/') && is_blocked(value) {
            return Some(BlockedArgument {
                typed: words[index].raw.clone(),
                path: value.to_owned(),
            });
        }
        index += 1;
    }
    // Unwrap wrappers until the real program.
    while index < words.len() {
        let program = program_name(&words[index].value);
        if SHELLS.contains(&program.as_str()) {
            return vet_shell(&words[index + 1..], is_blocked, depth);
        }
        if program == "eval" {
            let script: Vec<&str> = words[index + 1..]
                .iter()
                .map(|w| w.value.as_str())
                .collect();
            return vet(&script.join(" "), is_blocked, depth + 1);
        }
        if !WRAPPERS.contains(&program.as_str()) {
            break;
        }
        index += 1;
        while index < words.len() {
            let value = &words[index].value;
            if value.starts_with('-') {
                if program == "xargs"
                    && matches!(value.as_str(), "-a" | "--arg-file")
                    && let Some(file) = words.get(index + 1)
                    && let Some(hit) = checks(file, is_blocked)
                {
                    return Some(hit);
                }
                index += if wrapper_option_takes_value(&program, value) {
                    2
                } else {
                    1
                };
            } else if (program == "env" || program == "sudo") && is_assignment(value) {
                index += 1;
            } else if program == "timeout" || (program == "watch" && value.parse::<f64>().is_ok()) {
                // timeout's duration
                index += 1;
                break;
            } else {
                break;
            }
        }
    }
    let first = words.get(index)?;
    let program = program_name(&first.value);
    let operands = &words[index + 1..];
    let reader = READERS.contains(&program.as_str());
    let mut pattern_pending = PATTERN_FIRST.contains(&program.as_str());
    let mut skip_next: Option<bool> = None;
    let mut after_double_dash = false;
    for (position, word) in operands.iter().enumerate() {
        if let Some(is_file) = skip_next.take() {
            if is_file && let Some(hit) = checks(word, is_blocked) {
                return Some(hit);
            }
            continue;
        }
        let value = &word.value;
        if !after_double_dash && value == "--" {
            after_double_dash = true;
            continue;
        }
        if !after_double_dash && value.starts_with('-') && value.len() > 1 {
            if let Some(is_file) = option_takes_value(&program, value) {
                skip_next = Some(is_file);
                pattern_pending = false;
                continue;
            }
            // `--file=secret`, `-Path:secret`
            if let Some(hit) = checks(word, is_blocked) {
                return Some(hit);
            }
            continue;
        }
        if pattern_pending {
            pattern_pending = false;
            continue;
        }
        // Interpreters' scripts and readers' operands are paths; for any other program, only
        // words that look like paths are.
        let path_like = value.contains('/') || value.contains('\\');
        if (reader || path_like || position == 0 && program == "git")
            && let Some(hit) = checks(word, is_blocked)
        {
            return Some(hit);
        }
    }
    None
}

fn vet_shell(
    args: &[Word],
    is_blocked: &dyn Fn(&str) -> bool,
    depth: usize,
) -> Option<BlockedArgument> {
    let mut index = 0;
    while index < args.len() {
        let value = args[index].value.to_lowercase();
        if value == "-c" || value == "-command" || value == "--command" {
            return args
                .get(index + 1)
                .and_then(|script| vet(&script.value, is_blocked, depth + 1));
        }
        if value.starts_with('-') {
            index += 1;
            continue;
        }
        // `bash script.sh`: the script is read.
        return checks(&args[index], is_blocked);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(path: &str) -> bool {
        let p = path.trim_start_matches("./").to_lowercase();
        p.starts_with("secrets/")
            || p == "secrets"
            || p.ends_with(".pem")
            || p.starts_with("/ws/secrets/")
            || p == ".env"
    }

    fn check(command: &str, expected: Option<&str>) {
        assert_eq!(
            first_blocked_argument(command, &blocked)
                .map(|hit| hit.typed)
                .as_deref(),
            expected,
            "command {command:?}"
        );
    }

    #[test]
    fn original_readers_are_checked() {
        check("cat secrets/a.txt", Some("secrets/a.txt"));
        check("cat src/a.txt", None);
        check("CAT .env", Some(".env"));
        check("Get-Content .env", Some(".env"));
        check("", None);
        check("   ", None);
    }

    #[test]
    fn chains_pipes_and_subshells_are_all_checked() {
        check("echo hi && cat .env", Some(".env"));
        check("ls; head -n 5 secrets/k", Some("secrets/k"));
        check("true || tail .env", Some(".env"));
        check("echo x | grep foo secrets/a", Some("secrets/a"));
        check("(cd src && cat ../.env)", None); // `../.env` is outside from src's view
        check("(cat .env)", Some(".env"));
        check("echo $(cat .env)", Some(".env"));
        check("echo `cat .env`", Some(".env"));
        check("echo \"$(cat secrets/x)\"", Some("secrets/x"));
        check("diff <(cat .env) a", Some(".env"));
        check("echo a\ncat .env", Some(".env"));
    }

    #[test]
    fn quotes_and_escapes_are_understood() {
        check("cat \"secrets/a b\"", Some("\"secrets/a b\""));
        check("cat 'secrets/x'", Some("'secrets/x'"));
        check("cat secrets\\/x", Some("secrets\\/x"));
        check("cat \"src/a\"", None);
    }

    #[test]
    fn redirections_are_checked_for_any_program() {
        check("cat<.env", Some(".env"));
        check("wc -l < secrets/x", Some("secrets/x"));
        check("python3 app.py > .env", Some(".env"));
        check("sort 2>secrets/err", Some("secrets/err"));
        check("cmd 2>&1 | tee log.txt", None);
        check("cat <<EOF\nsecrets\nEOF", None);
    }

    #[test]
    fn wrappers_are_unwrapped() {
        check("sudo cat .env", Some(".env"));
        check("sudo -u root cat .env", Some(".env"));
        check("env FOO=1 cat .env", Some(".env"));
        check("FOO=bar cat .env", Some(".env"));
        check("xargs cat < list.txt", None);
        check("echo .env | xargs cat secrets/a", Some("secrets/a"));
        check("xargs -a secrets/list cat", Some("secrets/list"));
        check("/bin/cat .env", Some(".env"));
        check("busybox cat .env", Some(".env"));
        check("nice -n 5 cat .env", Some(".env"));
        check("timeout 5 cat .env", Some(".env"));
        check("bash -c 'cat .env'", Some(".env"));
        check("sh -c \"head secrets/x\"", Some("secrets/x"));
        check("eval cat .env", Some(".env"));
        check("bash secrets/run.sh", Some("secrets/run.sh"));
    }

    #[test]
    fn absolute_paths_and_options_with_values_are_checked() {
        check("cat /ws/secrets/k", Some("/ws/secrets/k"));
        check("grep --file=secrets/p x", Some("--file=secrets/p"));
        check("grep -f secrets/p x", Some("secrets/p"));
        check("git show HEAD:secrets/k", Some("HEAD:secrets/k"));
        check("cp key.pem /tmp/x", Some("key.pem"));
        check("node ./secrets/x.js", Some("./secrets/x.js"));
    }

    #[test]
    fn the_blocked_reading_of_an_argument_is_reported_with_it() {
        let hit = |command: &str| {
            let found = first_blocked_argument(command, &blocked).expect("blocked");
            (found.typed, found.path)
        };
        assert_eq!(
            hit("git show HEAD:secrets/k"),
            ("HEAD:secrets/k".into(), "secrets/k".into())
        );
        assert_eq!(
            hit("grep --file=secrets/p x"),
            ("--file=secrets/p".into(), "secrets/p".into())
        );
        assert_eq!(
            hit("cat \"secrets/a b\""),
            ("\"secrets/a b\"".into(), "secrets/a b".into())
        );
        assert_eq!(
            hit("FOO=secrets/x run"),
            ("FOO=secrets/x".into(), "secrets/x".into())
        );
        assert_eq!(
            hit("cat \"secrets/x"),
            ("\"secrets/x".into(), "secrets/x".into())
        );
    }

    #[test]
    fn patterns_are_not_mistaken_for_paths() {
        check("grep secrets src/a.ts", None);
        check("grep -e secrets/x src/a.ts", None);
        check("sed 's/.env/x/' src/a", None);
        check("head -n 10 src/a", None);
        check("echo .env", None); // echo reads nothing
    }

    #[test]
    fn unbalanced_commands_are_checked_word_by_word() {
        check("cat \"secrets/x", Some("\"secrets/x"));
        check("echo 'unterminated .env", Some(".env"));
        check("echo $(cat src/a", None);
    }
}
