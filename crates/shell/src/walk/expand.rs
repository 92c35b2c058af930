//! Word expansion (quotes, escapes, braces, substitutions walked on the way) and the check of
//! each expanded word against the oracle in every folder the command may run in.

use super::*;

impl Walker<'_> {
    /// The words a node stands for (several after brace expansion); substitutions are walked.
    pub(super) fn word(&mut self, node: Node, folders: &Folders, cx: &mut Cx) -> Vec<Val> {
        self.word_run(&[node], folders, cx)
    }

    /// The words of nodes with nothing between them: one word to bash, which the grammar may
    /// split (`.e{\n,x}v` is two arguments to it).
    pub(super) fn word_run(&mut self, nodes: &[Node], folders: &Folders, cx: &mut Cx) -> Vec<Val> {
        let (Some(first), Some(last)) = (nodes.first(), nodes.last()) else {
            return Vec::new();
        };
        let typed = cx.slice(first.start_byte(), last.end_byte()).to_owned();
        let mut chars = Chars::new();
        let mut dynamic = None;
        for (j, node) in nodes.iter().enumerate() {
            if j > 0 && node.kind() == "string" {
                drop_translation_dollar(&mut chars);
            }
            self.chars(*node, &mut chars, &mut dynamic, folders, cx);
        }
        // `~` and `~/x` are the home folder.
        if chars.first() == Some(&('~', false)) && matches!(chars.get(1), None | Some(('/', _))) {
            match &self.home {
                Some(home) => {
                    let rest = chars.split_off(1);
                    chars = home.chars().map(|c| (c, true)).collect();
                    chars.extend(rest);
                }
                None => dynamic = dynamic.or(Some(Construct::Variable)),
            }
        } else if chars.first() == Some(&('~', false)) {
            dynamic = dynamic.or(Some(Construct::Variable));
        }
        // Extended globs (`@(.env)`, `!(x)`) match files in ways the expansion here does not.
        if chars.windows(2).any(
            |w| matches!(w, [(c, false), ('(', false)] if matches!(c, '@' | '!' | '+' | '*' | '?')),
        ) {
            dynamic = dynamic.or(Some(Construct::Unparsed));
        }
        let expanded = match words::brace_expand(&chars) {
            Ok(list) => list,
            Err(construct) => {
                self.undecide(construct, &typed);
                vec![chars]
            }
        };
        expanded
            .iter()
            .map(|w| Val {
                typed: typed.clone(),
                text: words::text(w),
                glob: words::has_glob(w),
                dynamic,
            })
            .collect()
    }

    pub(super) fn word_children(&mut self, node: Node, folders: &Folders, cx: &mut Cx) -> Vec<Val> {
        let mut out = Vec::new();
        for child in named(node) {
            out.extend(self.word(child, folders, cx));
        }
        out
    }

    fn chars(
        &mut self,
        node: Node,
        out: &mut Chars,
        dynamic: &mut Option<Construct>,
        folders: &Folders,
        cx: &mut Cx,
    ) {
        if cx.node_depth > MAX_NODE_DEPTH {
            self.undecide(Construct::Limit, cx.text(node));
            *dynamic = Some(Construct::Limit);
            return;
        }
        cx.node_depth += 1;
        let text = cx.text(node);
        match node.kind() {
            "raw_string" => {
                let inner = text.strip_prefix('\'').unwrap_or(text);
                let inner = inner.strip_suffix('\'').unwrap_or(inner);
                out.extend(inner.chars().map(|c| (c, true)));
            }
            "ansi_c_string" => {
                let inner = text.strip_prefix("$'").unwrap_or(text);
                let inner = inner.strip_suffix('\'').unwrap_or(inner);
                words::ansi_c(inner, out);
            }
            "string" | "translated_string" => {
                let start = node.start_byte() + if text.starts_with('$') { 2 } else { 1 };
                let end = if text.len() > 1 && text.ends_with('"') {
                    node.end_byte() - 1
                } else {
                    node.end_byte()
                };
                let mut at = start;
                for child in named(node) {
                    if child.start_byte() > at {
                        words::double_quoted(cx.slice(at, child.start_byte()), out);
                    }
                    if child.kind() == "string_content" {
                        words::double_quoted(cx.text(child), out);
                    } else {
                        self.chars(child, out, dynamic, folders, cx);
                    }
                    at = child.end_byte().max(at);
                }
                if end > at {
                    words::double_quoted(cx.slice(at, end), out);
                }
            }
            "concatenation" => {
                let mut at = node.start_byte();
                for child in children(node) {
                    if child.start_byte() > at {
                        words::unquoted(cx.slice(at, child.start_byte()), out);
                    }
                    if child.kind() == "string" {
                        drop_translation_dollar(out);
                    }
                    self.chars(child, out, dynamic, folders, cx);
                    at = child.end_byte().max(at);
                }
                if node.end_byte() > at {
                    words::unquoted(cx.slice(at, node.end_byte()), out);
                }
            }
            "simple_expansion" | "expansion" | "arithmetic_expansion" | "array" => {
                self.substitutions(node, folders, cx);
                *dynamic = dynamic.or(Some(Construct::Variable));
            }
            "command_substitution" => {
                self.substitution(node, folders, cx);
                *dynamic = Some(Construct::Substitution);
            }
            "process_substitution" => {
                self.substitution(node, folders, cx);
                out.extend("/dev/fd/63".chars().map(|c| (c, true)));
            }
            "word"
            | "number"
            | "brace_expression"
            | "extglob_pattern"
            | "regex"
            | "variable_name"
            | "special_variable_name"
            | "test_operator"
            | "file_descriptor" => words::unquoted(text, out),
            _ if !node.is_named() => words::unquoted(text, out),
            _ => {
                self.substitutions(node, folders, cx);
                words::unquoted(text, out);
                *dynamic = dynamic.or(Some(Construct::Unparsed));
            }
        }
        cx.node_depth -= 1;
    }

    /// Judges one reading of `val` (joined to every folder the command may run in).
    pub(super) fn check(&mut self, val: &Val, folders: &Folders, mode: Mode) {
        if self.done() {
            return;
        }
        if let Some(construct) = val.dynamic {
            if mode != Mode::Existing {
                self.undecide(construct, &val.typed);
            }
            return;
        }
        if val.text.is_empty() {
            return;
        }
        let mut readings = Vec::new();
        // Readings that count only when they name an existing blocked path, whatever the
        // program: the value glued to a short option (`-f.env`), of `key=value`, after `@`.
        let mut existing = Vec::new();
        if !val.text.starts_with('-') {
            readings.push((val.text.clone(), val.glob));
        }
        if let Some(rest) = val.text.strip_prefix('@').filter(|r| !r.is_empty()) {
            // A response file (`gcc @args`, `curl -d @file`): the program opens it.
            existing.push((rest.to_owned(), val.glob));
            if mode != Mode::Existing {
                readings.push((rest.to_owned(), val.glob));
            }
        }
        if !val.text.starts_with("--")
            && let Some(glued) = val.text.strip_prefix('-')
            && let Some((_, letter)) = glued.char_indices().next()
            && let Some(rest) = glued.get(letter.len_utf8()..)
            && !rest.is_empty()
        {
            existing.push((rest.to_owned(), val.glob));
        }
        if !val.text.starts_with('-')
            && let Some((_, v)) = val.text.split_once('=')
            && !v.is_empty()
        {
            existing.push((v.to_owned(), val.glob));
        }
        if mode != Mode::Existing {
            if val.text.starts_with('-')
                && let Some((_, v)) = val.text.split_once('=')
                && !v.is_empty()
            {
                readings.push((v.to_owned(), val.glob));
            }
            if let Some((_, after)) = val.text.split_once(':')
                && !after.is_empty()
                && !after.starts_with("//")
            {
                readings.push((after.trim_start_matches('\\').to_owned(), val.glob));
            }
            // A Windows path typed unquoted: the shell ate its backslashes.
            if val.typed.contains('\\') && !val.typed.contains(['\'', '"', '$']) {
                readings.push((val.typed.replace('\\', "/"), val.glob));
            }
        }
        // `file:///ws/.env` (curl, git, browsers, pandoc): the path of a file URL is opened.
        for (reading, _) in readings.clone().iter().chain(existing.clone().iter()) {
            if let Some(url) = file_url_start(reading) {
                match file_url_path(url) {
                    Some(path) => readings.push((path, false)),
                    None => self.undecide(Construct::Unparsed, &val.typed),
                }
            }
        }
        // cmd's escape character: `type .e^nv` opens `.env`.
        let escaped: Vec<(String, bool)> = readings
            .iter()
            .filter(|(r, _)| r.contains('^'))
            .map(|(r, g)| (cmd_unescape(r), *g))
            .collect();
        readings.extend(escaped);
        let judged = readings
            .into_iter()
            .map(|r| (r, mode))
            .chain(existing.into_iter().map(|r| (r, Mode::Existing)));
        for ((reading, glob), mode) in judged {
            for dir in &folders.dirs {
                let path = join(dir, &reading);
                // `/proc/sys/../self/cwd` is `/proc/self/cwd` to the kernel.
                if process_view(&path) || process_view(&super::changes::clean(&path)) {
                    self.undecide(Construct::ProcessFile, &val.typed);
                    continue;
                }
                if git_object_store(&path, mode) {
                    // Every tracked file's content, blocked ones included, compressed
                    // (`pigz -dz < .git/objects/ab/…`, `cp -r .git /tmp/g`).
                    self.undecide(Construct::RecursiveRead, &val.typed);
                }
                if !self.changes_exempt
                    && let Some(what) = self.changes.unknown_at(&path)
                {
                    let what = what.to_owned();
                    self.undecide(Construct::ChangedFile, &format!("{what} … {}", val.typed));
                }
                let mut paths = vec![path.clone()];
                match self.changes.through_links(&path) {
                    Ok(more) => paths.extend(more),
                    Err(construct) => self.undecide(construct, &val.typed),
                }
                for path in paths {
                    if !glob && self.oracle.hard_linked(&path) {
                        // `ln .env src/x` made before this line: `src/x` is `.env`.
                        self.undecide(Construct::HardLink, &val.typed);
                    }
                    let judgement = match mode {
                        Mode::Read => self.oracle.path(&path, glob),
                        Mode::Tree => self.oracle.tree(&path, glob),
                        Mode::Existing => {
                            if self.oracle.existing_blocked(&path) {
                                Judgement::Blocked(path)
                            } else {
                                Judgement::Clear
                            }
                        }
                    };
                    match judgement {
                        Judgement::Clear => {}
                        Judgement::Blocked(path) => {
                            self.block(&val.typed, path);
                            return;
                        }
                        Judgement::Unknown(construct) => self.undecide(construct, &val.typed),
                    }
                }
            }
        }
        if folders.unknown && mode != Mode::Existing {
            self.undecide(Construct::DynamicDirectory, &val.typed);
        }
    }
}

/// `$"…"` is a string bash translates (its text, without the `$`); the grammar leaves the `$`
/// at the end of the word before the string (`.e$""nv` is `.env`).
fn drop_translation_dollar(chars: &mut Chars) {
    if chars.last() == Some(&('$', false)) {
        chars.pop();
    }
}

/// The rest of `text` after a `file:` scheme (any case), if it is a file URL.
fn file_url_start(text: &str) -> Option<&str> {
    let scheme = text.get(..5)?;
    scheme.eq_ignore_ascii_case("file:").then(|| &text[5..])
}

/// The path a file URL opens (`file:///x`, `file://localhost/x`, `file:x`); `None` when it
/// cannot be told: another host, percent-escapes, or curl's URL globs (`{a,b}`, `[a-z]`).
fn file_url_path(rest: &str) -> Option<String> {
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return None;
            }
            path
        }
        None => rest,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    if path.contains(['%', '{', '}', '[', ']']) || path.is_empty() {
        return None;
    }
    Some(path.to_owned())
}

/// Whether `path` reads a git object store: a file under `.git/objects` (or a pack file), or
/// a `.git` folder read as a tree.
pub(super) fn git_object_store(path: &str, mode: Mode) -> bool {
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    match parts.iter().position(|p| p.eq_ignore_ascii_case(".git")) {
        Some(at) => {
            let rest = &parts[at + 1..];
            // `.git/lost-found` holds blobs `git fsck --lost-found` wrote out.
            (rest.is_empty() && mode == Mode::Tree)
                || rest.first().is_some_and(|p| {
                    p.eq_ignore_ascii_case("objects") || p.eq_ignore_ascii_case("lost-found")
                })
        }
        None => path.to_ascii_lowercase().ends_with(".pack"),
    }
}

/// Whether `path` is seen from the process that opens it: under `/proc/self`,
/// `/proc/thread-self`, `/proc/<pid>` or `/dev/fd`, except a plain descriptor of the reader
/// (`/dev/fd/3`, `/proc/self/fd/3`). Found anywhere in the path (`../../proc/self/cwd`).
pub(super) fn process_view(path: &str) -> bool {
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    // A glob component is each name it may match (`/proc/[s]elf`, `/proc/*/cwd`, `/pro?/self`):
    // the shell expands it where the reader runs. One that would stand for `proc` or `dev`
    // counts only where a literal one could be the root's (first, or after `..`s of an
    // absolute path), so `src/*/*` is not taken for `/proc/self`.
    let absolute = path.starts_with(['/', '\\']);
    for (i, pair) in parts.windows(2).enumerate() {
        let rest = &parts[i + 2..];
        let at_root = absolute && parts[..i].iter().all(|p| *p == "..");
        let is = |part: &str, names: &[&str]| {
            names.contains(&part) || (at_root && may_match(part, names))
        };
        let who_is_reader = |who: &str| {
            matches!(who, "self" | "thread-self")
                || digits(who)
                || may_match(
                    who,
                    &[
                        "self",
                        "thread-self",
                        "1",
                        "12",
                        "123",
                        "1234",
                        "12345",
                        "1234567",
                    ],
                )
        };
        let plain_fd = matches!(rest, [fd, n] if *fd == "fd" && digits(n));
        let seen_from_reader = if is(pair[0], &["proc"]) && who_is_reader(pair[1]) {
            !(plain_fd && matches!(pair[1], "self" | "thread-self") && i == 0)
        } else if is(pair[0], &["dev"]) && (pair[1] == "fd" || may_match(pair[1], &["fd"])) {
            !(i == 0 && pair[1] == "fd" && matches!(rest, [n] if digits(n)))
        } else {
            false
        };
        if seen_from_reader {
            return true;
        }
    }
    false
}

/// Whether a component with glob characters may match one of `names` (an unreadable pattern
/// may match anything).
fn may_match(component: &str, names: &[&str]) -> bool {
    if !component.contains(['*', '?', '[']) {
        return false;
    }
    match globset::Glob::new(component) {
        Ok(glob) => {
            let matcher = glob.compile_matcher();
            names.iter().any(|name| matcher.is_match(name))
        }
        Err(_) => true,
    }
}
