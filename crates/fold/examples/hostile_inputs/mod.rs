//! The hostile inputs of issue 25, shared by the fold crate's `hostile` example (in-process
//! parses) and the server's `hostile_workers` example (the same inputs through parse workers).

/// Opener/closer pairs: the input is `prefix + open * n + close * n`, cut to the size asked.
pub const PATTERNS: &[(&str, &str, &str)] = &[
    ("", "/*", "*/"),
    ("", "(*", "*)"),
    ("", "{-", "-}"),
    ("", "#|", "|#"),
    ("", "--[[", "]]"),
    ("", "<%", "%>"),
    ("", "<!--", "-->"),
    ("", "(", ")"),
    ("", "[", "]"),
    ("", "{", "}"),
    ("x = ", "(", ")"),
    ("x = ", "[", "]"),
    ("x = ", "{", "}"),
    ("", "<a>", "</a>"),
    ("const a = ", "<a>", "</a>"),
    ("", "`${", "}`"),
    ("", "\"", "\""),
    ("", "'", "'"),
    ("", "\"\"\"", "\"\"\""),
    ("", "(op *", "* op)"),
    ("", "(a *", "* a)"),
    ("", "f(", ")"),
    ("", "if (a) {", "}"),
    ("", "[[", "]]"),
    ("", "<script>", "</script>"),
    ("", "# ", "\n"),
    ("", "\\begin{", "}"),
];

/// The languages and the extension that names each.
pub const LANGUAGES: &[&str] = &[
    "ts", "tsx", "js", "rs", "py", "go", "md", "java", "c", "cpp", "cs", "rb", "php", "css",
    "html", "json", "sh", "kt", "swift", "lua", "toml", "scala", "ex", "dart", "zig", "ml", "sol",
    "vue", "el", "ejs", "tla",
];

pub fn input(pattern: usize, bytes: usize) -> String {
    let (prefix, open, close) = PATTERNS[pattern];
    let n = bytes.saturating_sub(prefix.len()) / (open.len() + close.len()).max(1);
    let mut source = String::with_capacity(bytes);
    source.push_str(prefix);
    source.push_str(&open.repeat(n));
    source.push_str(&close.repeat(n));
    source
}

/// The input's shape, for tables (`/*…*/`).
pub fn describe(pattern: usize) -> String {
    let (prefix, open, close) = PATTERNS[pattern];
    format!("{prefix}{open}…{close}").escape_debug().to_string()
}

/// This process's peak resident set (VmHWM, KiB; 0 where unreadable). Linux only.
pub fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The kinds of `diagnostics` (their variant names, repeats in a row merged), comma-joined, or
/// `-` for none: one word of the tables' outcome column.
pub fn outcome<D: std::fmt::Debug>(diagnostics: &[D]) -> String {
    let mut names: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            format!("{d:?}")
                .split([' ', '{', '('])
                .next()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    names.dedup();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(",")
    }
}
