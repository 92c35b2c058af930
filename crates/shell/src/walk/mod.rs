//! The walk over the tree-sitter-bash tree: every statement (lists, pipelines, loops,
//! conditionals, groups, functions, subshells, substitutions, here-documents, redirections), the
//! folder each command runs in, and the judgement of each simple command's words.

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use crate::programs::*;
use crate::words::{self, Chars};
use crate::{BlockedArgument, Construct, Judgement, Oracle, Undecidable, Verdict};

/// Deepest nesting of scripts given as text (`bash -c`, `eval`, `su -c`, here-documents to a shell).
const MAX_SCRIPT_DEPTH: usize = 16;
/// Deepest recursion through the tree (statements inside substitutions inside words ...).
const MAX_NODE_DEPTH: usize = 200;
/// Most folders a command may be in after `cd`s whose success is unknown.
const MAX_FOLDERS: usize = 8;
/// Reserved words that open or close a compound command; never a program's name in bash.
const COMPOUND_KEYWORDS: &[&str] = &[
    "case", "esac", "if", "then", "elif", "else", "fi", "while", "until", "for", "select", "do",
    "done", "in", "function",
];
/// Longest snippet reported with an undecidable verdict.
const SNIPPET_BYTES: usize = 200;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse(text: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        // The grammar's scanner is not safe on every code point: parse the ASCII shadow, whose
        // byte ranges are the text's.
        let shadow = roo_context_core::grammar_input::ascii_shadow(text);
        slot.as_mut()?.parse(shadow.as_bytes(), None)
    })
}

pub fn vet(command: &str, oracle: &dyn Oracle) -> Verdict {
    let mut walker = Walker {
        oracle,
        // With CDPATH set, `cd name` may go anywhere on it.
        cdpath: command.contains("CDPATH"),
        home: oracle.home(),
        blocked: None,
        undecidable: None,
        listing_feeds_reader: false,
    };
    if command.len() > crate::MAX_COMMAND_BYTES {
        walker.words_only(command, &Folders::start());
        walker.undecide(Construct::Limit, prefix(command, 64));
    } else if command.contains('\0') {
        // No shell takes a NUL inside a command; the grammar might stop reading at it.
        walker.words_only(&command.replace('\0', " "), &Folders::start());
        walker.undecide(Construct::Unparsed, prefix(command, 64));
    } else {
        walker.script(command, &mut Folders::start(), &Stdin::Terminal, 0);
    }
    match (walker.blocked, walker.undecidable) {
        (Some(hit), _) => Verdict::Blocked(hit),
        (None, Some(why)) => Verdict::Undecidable(why),
        (None, None) => Verdict::Allowed,
    }
}

/// The folders a command may run in, relative to where the line starts ("" is the start).
#[derive(Debug, Clone)]
struct Folders {
    dirs: Vec<String>,
    /// A `cd` to a folder that is not literal happened.
    unknown: bool,
}

impl Folders {
    fn start() -> Self {
        Folders {
            dirs: vec![String::new()],
            unknown: false,
        }
    }

    /// A `cd`: the command after it runs in the new folder, or (when the `cd` failed) the old one.
    fn change(&mut self, target: Option<&str>) {
        let Some(target) = target else {
            self.unknown = true;
            return;
        };
        let mut next: Vec<String> = self.dirs.iter().map(|d| join(d, target)).collect();
        for dir in &self.dirs {
            if !next.contains(dir) {
                next.push(dir.clone());
            }
        }
        if next.len() > MAX_FOLDERS {
            next.truncate(MAX_FOLDERS);
            self.unknown = true;
        }
        self.dirs = next;
    }
}

fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

fn join(dir: &str, path: &str) -> String {
    if dir.is_empty() || is_absolute(path) {
        path.to_owned()
    } else if path.is_empty() {
        dir.to_owned()
    } else {
        format!("{dir}/{path}")
    }
}

fn snippet(text: &str) -> String {
    prefix(text, SNIPPET_BYTES).to_owned()
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone)]
enum Stdin {
    Terminal,
    /// The previous command of a pipeline.
    Pipe,
    /// A here-document or here-string: its text, or `None` when it expands variables.
    Text(Option<String>),
}

/// One word as the program receives it.
#[derive(Debug, Clone)]
struct Val {
    typed: String,
    text: String,
    glob: bool,
    dynamic: Option<Construct>,
}

impl Val {
    fn literal(typed: &str, text: &str) -> Val {
        Val {
            typed: typed.to_owned(),
            text: text.to_owned(),
            glob: false,
            dynamic: None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A file the program opens (or writes).
    Read,
    /// A folder read recursively.
    Tree,
    /// Any operand: only an existing blocked path counts.
    Existing,
}

struct Walker<'a> {
    oracle: &'a dyn Oracle,
    cdpath: bool,
    home: Option<String>,
    blocked: Option<BlockedArgument>,
    undecidable: Option<Undecidable>,
    /// The command being walked is a pipeline stage whose output a later PowerShell reader
    /// takes as paths (`gci secrets | gc`).
    listing_feeds_reader: bool,
}

impl Walker<'_> {
    fn done(&self) -> bool {
        self.blocked.is_some()
    }

    fn block(&mut self, typed: &str, path: String) {
        if self.blocked.is_none() {
            self.blocked = Some(BlockedArgument {
                typed: typed.to_owned(),
                path,
            });
        }
    }

    fn undecide(&mut self, construct: Construct, text: &str) {
        if self.undecidable.is_none() {
            self.undecidable = Some(Undecidable {
                construct,
                snippet: snippet(text),
            });
        }
    }

    /// Parses and walks a script.
    fn script(&mut self, text: &str, folders: &mut Folders, stdin: &Stdin, depth: usize) {
        if self.done() {
            return;
        }
        if depth > MAX_SCRIPT_DEPTH {
            self.words_only(text, folders);
            self.undecide(Construct::Limit, text);
            return;
        }
        let Some(tree) = parse(text) else {
            self.words_only(text, folders);
            self.undecide(Construct::Unparsed, text);
            return;
        };
        let root = tree.root_node();
        let mut cx = Cx {
            src: text,
            depth,
            node_depth: 0,
        };
        self.statement(root, folders, stdin, &mut cx);
        if root.has_error() && !self.done() {
            self.words_only(text, folders);
            let at = first_error(root).map_or(text, |n| cx.text(n));
            let at = if at.trim().is_empty() { text } else { at };
            self.undecide(Construct::Unparsed, at);
        }
    }

    /// The fallback for text that does not parse: every word's path-like readings are judged.
    fn words_only(&mut self, text: &str, folders: &Folders) {
        for word in text
            .split(|c: char| c.is_whitespace() || "|;&<>()`".contains(c))
            .filter(|w| !w.is_empty())
        {
            let mut chars = Chars::new();
            words::unquoted(&word.replace(['\'', '"'], ""), &mut chars);
            let expanded = words::brace_expand(&chars).unwrap_or_else(|_| vec![chars]);
            for piece in &expanded {
                let val = Val {
                    typed: word.to_owned(),
                    text: words::text(piece),
                    glob: words::has_glob(piece),
                    dynamic: None,
                };
                self.check(&val, folders, Mode::Read);
                if self.done() {
                    return;
                }
            }
        }
    }

    fn statement(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        if self.done() {
            return;
        }
        if cx.node_depth > MAX_NODE_DEPTH {
            self.undecide(Construct::Limit, cx.text(node));
            return;
        }
        cx.node_depth += 1;
        match node.kind() {
            "command" => self.command(node, folders, stdin, cx),
            "subshell" => {
                let mut inner = folders.clone();
                self.children(node, &mut inner, stdin, cx);
            }
            "pipeline" => {
                let stages: Vec<Node> = named(node).collect();
                // In PowerShell, items listed into a reader are opened by their path.
                let readers: Vec<bool> = stages
                    .iter()
                    .map(|stage| {
                        let text = cx.text(*stage).trim_start_matches(['&', '.', ' ']);
                        let first = text.split_whitespace().next().unwrap_or("");
                        POWERSHELL_PIPE_READERS.contains(&program_name(first).as_str())
                    })
                    .collect();
                let outer = self.listing_feeds_reader;
                for (j, child) in stages.iter().enumerate() {
                    let mut inner = folders.clone();
                    let input = if j == 0 { stdin.clone() } else { Stdin::Pipe };
                    self.listing_feeds_reader = outer || readers[j + 1..].iter().any(|r| *r);
                    self.statement(*child, &mut inner, &input, cx);
                }
                self.listing_feeds_reader = outer;
            }
            "redirected_statement" => self.redirected(node, folders, stdin, cx),
            "file_redirect" => self.redirect(node, folders, cx),
            "heredoc_redirect" | "herestring_redirect" => self.substitutions(node, folders, cx),
            "comment" => {}
            "variable_assignment" | "variable_assignments" | "declaration_command" => {
                self.substitutions(node, folders, cx)
            }
            "program"
            | "list"
            | "compound_statement"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "case_statement"
            | "case_item"
            | "for_statement"
            | "c_style_for_statement"
            | "function_definition"
            | "negated_command"
            | "test_command"
            | "ERROR" => self.children(node, folders, stdin, cx),
            _ => self.substitutions(node, folders, cx),
        }
        cx.node_depth -= 1;
    }

    fn children(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        for child in named(node) {
            self.statement(child, folders, stdin, cx);
        }
    }

    /// Walks the commands in any substitution inside `node` (words, assignments, loops' lists).
    fn substitutions(&mut self, node: Node, folders: &Folders, cx: &mut Cx) {
        if cx.node_depth > MAX_NODE_DEPTH {
            self.undecide(Construct::Limit, cx.text(node));
            return;
        }
        cx.node_depth += 1;
        for child in named(node) {
            if self.done() {
                break;
            }
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    let mut inner = folders.clone();
                    self.children(child, &mut inner, &Stdin::Terminal, cx);
                }
                _ => self.substitutions(child, folders, cx),
            }
        }
        cx.node_depth -= 1;
    }

    fn redirected(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        let mut input = stdin.clone();
        let mut body = None;
        let mut after = Vec::new();
        for child in named(node) {
            match child.kind() {
                "file_redirect" => self.redirect(child, folders, cx),
                "herestring_redirect" => {
                    let vals = self.word_children(child, folders, cx);
                    input = Stdin::Text(joined(&vals));
                }
                "heredoc_redirect" => {
                    self.substitutions(child, folders, cx);
                    let quoted = named(child)
                        .find(|c| c.kind() == "heredoc_start")
                        .is_some_and(|s| cx.text(s).contains(['\'', '"', '\\']));
                    let body_node = named(child).find(|c| c.kind() == "heredoc_body");
                    let expands =
                        body_node.is_some_and(|b| named(b).any(|c| c.kind() != "heredoc_content"));
                    input = Stdin::Text(if expands && !quoted {
                        None
                    } else {
                        Some(body_node.map_or(String::new(), |b| cx.text(b).to_owned()))
                    });
                    for c in named(child) {
                        if !matches!(
                            c.kind(),
                            "heredoc_start" | "heredoc_body" | "heredoc_end" | "heredoc_content"
                        ) {
                            after.push(c);
                        }
                    }
                }
                _ if body.is_none() => body = Some(child),
                _ => after.push(child),
            }
        }
        if let Some(body) = body {
            self.statement(body, folders, &input, cx);
        }
        for node in after {
            // `cat <<EOF | sh`: what follows the here-document reads the pipe.
            let mut inner = folders.clone();
            self.statement(node, &mut inner, &Stdin::Pipe, cx);
        }
    }

    fn redirect(&mut self, node: Node, folders: &Folders, cx: &mut Cx) {
        let operator = children(node)
            .find(|c| !c.is_named())
            .map_or("", |c| cx.text(c));
        let destinations: Vec<Node> = named(node)
            .filter(|c| c.kind() != "file_descriptor")
            .collect();
        let mut vals = Vec::new();
        for destination in destinations {
            vals.extend(self.word(destination, folders, cx));
        }
        for val in vals {
            let duplicate = operator.ends_with('&') || operator == ">&" || operator == "<&";
            if duplicate && val.text.chars().all(|c| c.is_ascii_digit() || c == '-') {
                continue;
            }
            if let Some(construct) = val.dynamic {
                if operator.contains('<') {
                    self.undecide(construct, &val.typed);
                }
                continue;
            }
            self.check(&val, folders, Mode::Read);
        }
    }

    fn command(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        let mut input = stdin.clone();
        let mut words: Vec<Val> = Vec::new();
        let mut has_name = false;
        let mut assignments = Vec::new();
        for child in named(node) {
            match child.kind() {
                "variable_assignment" => assignments.push(child),
                "file_redirect" => self.redirect(child, folders, cx),
                "herestring_redirect" => {
                    let vals = self.word_children(child, folders, cx);
                    input = Stdin::Text(joined(&vals));
                }
                "comment" => {}
                "subshell" => {
                    let mut inner = folders.clone();
                    self.statement(child, &mut inner, stdin, cx);
                    // `gc ('.e'+'nv')`, `iex (gc x -Raw)`: a PowerShell expression is an
                    // argument whose value is computed.
                    if has_name {
                        let text = cx.text(child);
                        words.push(Val {
                            typed: text.to_owned(),
                            text: text.to_owned(),
                            glob: false,
                            dynamic: Some(Construct::Substitution),
                        });
                    }
                }
                "command_name" => {
                    has_name = true;
                    // Bash reads a reserved word at a command's start as the keyword, never as a
                    // program: a command named `case` is the grammar misreading the line
                    // (`$(! case a in a) cat .env;; esac)` ends the substitution at the
                    // pattern's `)`), so what really runs is not known.
                    if COMPOUND_KEYWORDS.contains(&cx.text(child)) {
                        self.undecide(Construct::Unparsed, cx.text(node));
                    }
                    let vals = self.word_children(child, folders, cx);
                    words.extend(vals);
                }
                _ => {
                    let vals = self.word(child, folders, cx);
                    words.extend(vals);
                }
            }
        }
        for assignment in assignments {
            self.substitutions(assignment, folders, cx);
            let name = assignment
                .child_by_field_name("name")
                .map_or("", |n| cx.text(n));
            if let Some(value) = assignment.child_by_field_name("value") {
                for val in self.word(value, folders, cx) {
                    if has_name && runs_commands(name) {
                        // `PAGER='cat .env' git log`: the program runs the value.
                        self.words_only(&val.text, folders);
                        self.undecide(Construct::InlineCode, cx.text(assignment));
                    }
                    if val.dynamic.is_none() && val.text.contains('/') {
                        let typed = Val {
                            typed: cx.text(assignment).to_owned(),
                            ..val
                        };
                        self.check(&typed, folders, Mode::Read);
                    }
                }
            }
        }
        if has_name && !self.done() {
            self.judge(&words, folders, &input, cx.depth);
        }
    }

    /// The words a node stands for (several after brace expansion); substitutions are walked.
    fn word(&mut self, node: Node, folders: &Folders, cx: &mut Cx) -> Vec<Val> {
        let typed = cx.text(node).to_owned();
        let mut chars = Chars::new();
        let mut dynamic = None;
        self.chars(node, &mut chars, &mut dynamic, folders, cx);
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

    fn word_children(&mut self, node: Node, folders: &Folders, cx: &mut Cx) -> Vec<Val> {
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
                let mut inner = folders.clone();
                self.children(node, &mut inner, &Stdin::Terminal, cx);
                *dynamic = Some(Construct::Substitution);
            }
            "process_substitution" => {
                let mut inner = folders.clone();
                self.children(node, &mut inner, &Stdin::Terminal, cx);
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
    fn check(&mut self, val: &Val, folders: &Folders, mode: Mode) {
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
        if !val.text.starts_with('-') {
            readings.push((val.text.clone(), val.glob));
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
        // cmd's escape character: `type .e^nv` opens `.env`.
        let escaped: Vec<(String, bool)> = readings
            .iter()
            .filter(|(r, _)| r.contains('^'))
            .map(|(r, g)| (cmd_unescape(r), *g))
            .collect();
        readings.extend(escaped);
        for (reading, glob) in readings {
            for dir in &folders.dirs {
                let path = join(dir, &reading);
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
        if folders.unknown && mode != Mode::Existing {
            self.undecide(Construct::DynamicDirectory, &val.typed);
        }
    }

    /// Runs `text` as a nested script (`bash -c`, `eval`, `su -c`).
    fn nested(&mut self, val: &Val, folders: &mut Folders, stdin: &Stdin, depth: usize) {
        match val.dynamic {
            Some(construct) => {
                // The literal parts of the script still name what they name.
                self.words_only(&val.text, folders);
                let construct = match construct {
                    Construct::Variable | Construct::Substitution => Construct::Eval,
                    other => other,
                };
                self.undecide(construct, &val.typed);
            }
            None => self.script(&val.text.clone(), folders, stdin, depth + 1),
        }
    }

    /// One simple command, after expansion: wrappers, shells, `eval`, `cd`, then the program.
    fn judge(&mut self, words: &[Val], folders: &mut Folders, stdin: &Stdin, depth: usize) {
        let mut i = 0;
        let mut xargs = false;
        // Where a wrapper (`env -C`, `sudo -D`) runs its command; `cd` changes `folders` itself.
        let mut moved: Option<Folders> = None;
        loop {
            let Some(first) = words.get(i) else { return };
            if first.dynamic.is_some() {
                self.undecide(Construct::DynamicProgram, &first.typed);
                for val in &words[i + 1..] {
                    if val.dynamic.is_none() {
                        self.check(val, folders, Mode::Read);
                    }
                }
                return;
            }
            let name = program_name(&first.text);
            let args = &words[i + 1..];
            if SHELLS.contains(&name.as_str()) {
                self.shell(&name, args, folders, stdin, depth);
                return;
            }
            if name == "trap" || name == "alias" {
                // `trap 'cat .env' EXIT`, `alias x='cat .env'`: the text runs later.
                for arg in args.iter().filter(|v| !v.text.starts_with('-')) {
                    let text = match arg.text.split_once('=') {
                        Some((_, value)) if name == "alias" => value.to_owned(),
                        _ => arg.text.clone(),
                    };
                    let script = Val {
                        text,
                        ..arg.clone()
                    };
                    let mut inner = folders.clone();
                    self.nested(&script, &mut inner, &Stdin::Terminal, depth);
                    if name == "trap" {
                        break;
                    }
                }
                return;
            }
            if matches!(name.as_str(), "eval" | "invoke-expression" | "iex") {
                let script = Val {
                    typed: args
                        .iter()
                        .map(|v| v.typed.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    text: args
                        .iter()
                        .map(|v| v.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    glob: false,
                    dynamic: args.iter().find_map(|v| v.dynamic),
                };
                self.nested(&script, folders, stdin, depth);
                return;
            }
            if matches!(
                name.as_str(),
                "cd" | "pushd" | "popd" | "chdir" | "set-location" | "sl" | "push-location"
            ) {
                let target = args
                    .iter()
                    .find(|v| !v.text.starts_with('-') || v.text == "-");
                let target = match target {
                    Some(v)
                        if v.dynamic.is_none()
                            && !v.glob
                            && !self.cdpath
                            && v.text != "-"
                            && name != "popd" =>
                    {
                        Some(v.text.as_str())
                    }
                    _ => None,
                };
                folders.change(target);
                return;
            }
            if !WRAPPERS.contains(&name.as_str()) {
                break;
            }
            let wrapper = name;
            // `parallel` takes its arguments from its input unless given after `:::`, and from
            // files after `::::` or `-a`.
            let rest = &words[(i + 1).min(words.len())..];
            xargs |= wrapper == "xargs"
                || (matches!(wrapper.as_str(), "parallel" | "sem")
                    && (!rest.iter().any(|w| w.text == ":::")
                        || rest.iter().any(|w| {
                            matches!(w.text.as_str(), "::::" | "::::+" | "-a" | "--arg-file")
                                || w.text.starts_with("--arg-file=")
                        })));
            i += 1;
            let mut positionals = wrapper_positionals(&wrapper);
            while i < words.len() {
                let val = &words[i];
                let value = val.text.as_str();
                if wrapper_script_option(&wrapper, value) {
                    let rest = &words[(i + 1).min(words.len())..];
                    let script = if matches!(wrapper.as_str(), "cmd" | "cmd.exe" | "command.com")
                        || wrapper == "sudo"
                    {
                        windows_script(rest)
                    } else {
                        match rest.first() {
                            Some(v) => v.clone(),
                            None => return,
                        }
                    };
                    let mut inner = folders.clone();
                    self.nested(&script, &mut inner, stdin, depth);
                    return;
                }
                if let Some(script) = value
                    .strip_prefix("-S")
                    .filter(|s| wrapper == "env" && !s.is_empty())
                {
                    let script = Val::literal(&val.typed, script);
                    self.nested(
                        &Val {
                            dynamic: val.dynamic,
                            ..script
                        },
                        &mut folders.clone(),
                        stdin,
                        depth,
                    );
                    return;
                }
                if value.starts_with('-') && value.len() > 1 {
                    let chdir = match (wrapper.as_str(), value) {
                        ("env", "-C" | "--chdir") | ("sudo", "-D" | "--chdir") => {
                            Some(words.get(i + 1).cloned())
                        }
                        ("env" | "sudo", _) if value.starts_with("--chdir=") => Some(Some(Val {
                            text: value["--chdir=".len()..].to_owned(),
                            ..val.clone()
                        })),
                        _ => None,
                    };
                    if let Some(dir) = chdir {
                        let target = dir.as_ref().filter(|d| d.dynamic.is_none() && !d.glob);
                        let place = moved.get_or_insert_with(|| folders.clone());
                        match target {
                            Some(d) => {
                                place.change(Some(&d.text));
                                place.dirs.truncate(1);
                            }
                            None => place.unknown = true,
                        }
                    }
                    if xargs
                        && matches!(value, "-a" | "--arg-file")
                        && let Some(file) = words.get(i + 1)
                    {
                        self.check(file, folders, Mode::Read);
                    }
                    if value == "--" || (wrapper == "gdb" && value == "--args") {
                        i += 1;
                        break;
                    }
                    i += if wrapper_option_value(&wrapper, value) {
                        2
                    } else {
                        1
                    };
                    continue;
                }
                if matches!(wrapper.as_str(), "env" | "sudo" | "doas" | "dotenv")
                    && is_assignment(value)
                {
                    if let Some((_, v)) = value.split_once('=')
                        && v.contains('/')
                    {
                        self.check(&Val::literal(&val.typed, v), folders, Mode::Read);
                    }
                    i += 1;
                    continue;
                }
                if matches!(wrapper.as_str(), "cmd" | "cmd.exe" | "command.com")
                    && value.starts_with('/')
                {
                    i += 1;
                    continue;
                }
                if positionals > 0 {
                    // `flock FILE cmd`, `chroot DIR cmd`: the operand is opened.
                    self.check(val, folders, Mode::Existing);
                    positionals -= 1;
                    i += 1;
                    continue;
                }
                if wrapper == "watch" && value.parse::<f64>().is_ok() {
                    i += 1;
                    continue;
                }
                break;
            }
            if SCRIPT_WRAPPERS.contains(&wrapper.as_str()) && words.len() == i + 1 {
                let mut inner = folders.clone();
                let script = words[i].clone();
                if xargs {
                    // `echo .env | parallel cat`: the script's operands come from the input.
                    self.undecide(Construct::XargsInput, &script.typed);
                }
                self.nested(&script, &mut inner, stdin, depth);
                return;
            }
        }
        let program = program_name(&words[i].text);
        let place = moved.unwrap_or_else(|| folders.clone());
        self.program(&program, &words[i + 1..], &place, stdin, xargs);
    }

    fn shell(
        &mut self,
        name: &str,
        args: &[Val],
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
    ) {
        let powershell = matches!(name, "pwsh" | "powershell");
        let mut i = 0;
        while i < args.len() {
            let value = args[i].text.to_lowercase();
            let bundled_c = !powershell
                && value.starts_with('-')
                && !value.starts_with("--")
                && value.contains('c');
            if matches!(value.as_str(), "-c" | "-command" | "--command") || bundled_c {
                if let Some(script) = args.get(i + 1) {
                    let mut inner = folders.clone();
                    let script = if powershell {
                        windows_script(&args[i + 1..])
                    } else {
                        script.clone()
                    };
                    self.nested(&script, &mut inner, stdin, depth);
                }
                return;
            }
            if inline_code_option(name, &value) {
                self.undecide(Construct::InlineCode, &args[i].typed);
                return;
            }
            if powershell && matches!(value.as_str(), "-file" | "-f") {
                if let Some(file) = args.get(i + 1) {
                    self.check(file, folders, Mode::Read);
                }
                return;
            }
            if value == "-s" {
                break;
            }
            if value.starts_with('-') || value.starts_with('+') {
                let takes_value = powershell
                    && matches!(
                        value.as_str(),
                        "-executionpolicy"
                            | "-ex"
                            | "-ep"
                            | "-workingdirectory"
                            | "-wd"
                            | "-configurationname"
                            | "-outputformat"
                            | "-inputformat"
                            | "-windowstyle"
                            | "-settingsfile"
                    );
                i += if takes_value { 2 } else { 1 };
                if !powershell && matches!(value.as_str(), "-o" | "+o" | "--rcfile" | "--init-file")
                {
                    if value.ends_with("file")
                        && let Some(file) = args.get(i)
                    {
                        self.check(file, folders, Mode::Read);
                    }
                    i += 1;
                }
                continue;
            }
            if is_pipe_file(&args[i].text) {
                // `bash <(curl …)`: the script is another command's output.
                self.undecide(Construct::ScriptFromInput, &args[i].typed);
                return;
            }
            if !reads_stdin(&args[i].text) {
                // `bash script.sh`: the script is read.
                self.check(&args[i], folders, Mode::Read);
                if powershell {
                    // `powershell Get-Content .env`: Windows PowerShell runs the words as a
                    // command (pwsh would open a script file of that name, judged above).
                    let mut inner = folders.clone();
                    self.nested(&windows_script(&args[i..]), &mut inner, stdin, depth);
                }
                return;
            }
            break;
        }
        match stdin {
            Stdin::Text(Some(text)) => {
                let mut inner = folders.clone();
                self.nested(
                    &Val::literal(text, text),
                    &mut inner,
                    &Stdin::Terminal,
                    depth,
                );
            }
            Stdin::Text(None) => self.undecide(Construct::ScriptFromInput, name),
            Stdin::Pipe => self.undecide(Construct::ScriptFromInput, name),
            Stdin::Terminal => {}
        }
    }

    /// The operands of a program that is not a wrapper, shell or `cd`.
    fn program(&mut self, name: &str, args: &[Val], folders: &Folders, stdin: &Stdin, xargs: bool) {
        let command_text = || {
            std::iter::once(name)
                .chain(args.iter().map(|v| v.typed.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if xargs && !NEVER_OPEN.contains(&name) {
            self.undecide(Construct::XargsInput, &command_text());
        }
        if is_remote(name, args.first().map(|v| v.text.as_str())) {
            self.undecide(Construct::Remote, &command_text());
        }
        if self.listing_feeds_reader && POWERSHELL_LISTERS.contains(&name) {
            let operands: Vec<&Val> = args
                .iter()
                .filter(|v| !v.text.starts_with('-') && v.dynamic.is_none())
                .collect();
            if operands.is_empty() {
                self.check(&Val::literal(name, "."), folders, Mode::Tree);
            }
            for operand in operands {
                self.check(operand, folders, Mode::Tree);
            }
        }
        if is_powershell(name) {
            self.powershell(name, args, folders);
            return;
        }
        let options: Vec<String> = args
            .iter()
            .take_while(|v| v.text != "--")
            .map(|v| v.text.clone())
            .collect();
        if args.iter().any(|v| inline_code_option(name, &v.text)) {
            self.undecide(Construct::InlineCode, &command_text());
        }
        if args.iter().any(|v| names_from_list(name, &v.text))
            || (matches!(name, "tar" | "bsdtar" | "gtar")
                && args.first().is_some_and(|v| {
                    !v.text.starts_with('-')
                        && v.text.contains('T')
                        && v.text.chars().all(|c| c.is_ascii_alphabetic())
                }))
        {
            self.undecide(Construct::XargsInput, &command_text());
        }
        let sql_shell = SQL_SHELLS.contains(&name) || matches!(name, "psql" | "mysql" | "mariadb");
        let sql_operands = args.iter().filter(|v| !v.text.starts_with('-')).count();
        if sql_shell
            && ((SQL_SHELLS.contains(&name) && sql_operands >= 2)
                || !matches!(stdin, Stdin::Terminal))
        {
            self.undecide(Construct::InlineCode, &command_text());
        }
        if matches!(name, "at" | "batch") && !matches!(stdin, Stdin::Terminal) {
            // `at now <<< 'cat .env'`: the job is read from the input.
            self.undecide(Construct::ScriptFromInput, &command_text());
        }
        if matches!(name, "hyperfine" | "tmux" | "screen" | "watchexec") {
            // Their operands are shell commands run later (`tmux new 'cat .env'`).
            for arg in args {
                self.words_only(&arg.text, folders);
                if arg.dynamic.is_some() || arg.text.contains(['$', '`', '(', '<']) {
                    self.undecide(Construct::InlineCode, &arg.typed);
                }
            }
        }
        let texts: Vec<&str> = args.iter().map(|v| v.text.as_str()).collect();
        if serves_folder(name, &texts) {
            self.check(&Val::literal(name, "."), folders, Mode::Tree);
        }
        let interpreter = INTERPRETERS.contains(&name) && !matches!(name, "awk" | "gawk");
        let script_from_stdin = !args
            .iter()
            .any(|v| !v.text.starts_with('-') && !reads_stdin(&v.text));
        if (interpreter || matches!(name, "source" | "."))
            && !matches!(stdin, Stdin::Terminal)
            && script_from_stdin
        {
            self.undecide(Construct::InlineCode, &command_text());
        }
        if (interpreter || matches!(name, "source" | "."))
            && args
                .iter()
                .find(|v| !v.text.starts_with('-'))
                .is_some_and(|v| is_pipe_file(&v.text))
        {
            // `source <(echo cat .env)`: the script is another command's output.
            self.undecide(Construct::ScriptFromInput, &command_text());
        }
        if name == "find" {
            self.find(args, folders, stdin);
            return;
        }
        let git_sub = if name == "git" {
            args.iter()
                .enumerate()
                .scan(false, |skip, (k, v)| {
                    let out = if *skip {
                        *skip = false;
                        None
                    } else if matches!(v.text.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
                        *skip = true;
                        None
                    } else if v.text.starts_with('-') {
                        None
                    } else {
                        Some(Some((k, v.text.clone())))
                    };
                    Some(out.unwrap_or(None))
                })
                .flatten()
                .next()
        } else {
            None
        };
        let git_tree = matches!(
            git_sub.as_ref().map(|(_, s)| s.as_str()),
            Some("grep" | "archive")
        );
        let reader = (READERS.contains(&name) || interpreter || git_tree)
            && !matches!(name, "curl" | "wget");
        // A folder pathspec of a subcommand that prints file contents (`git log -p -- secrets`)
        // reads every file under it, as history.
        let git_shows = matches!(
            git_sub.as_ref().map(|(_, s)| s.as_str()),
            Some(
                "log"
                    | "show"
                    | "diff"
                    | "whatchanged"
                    | "blame"
                    | "annotate"
                    | "format-patch"
                    | "stash"
                    | "difftool"
                    | "cat-file"
            )
        );
        let recursive = is_recursive(name, &options) || git_tree || git_shows;
        if name == "git"
            && let Some(work_tree) = args.iter().enumerate().find_map(|(j, v)| {
                if v.text == "--work-tree" {
                    args.get(j + 1).cloned()
                } else {
                    v.text.strip_prefix("--work-tree=").map(|t| Val {
                        text: t.to_owned(),
                        ..v.clone()
                    })
                }
            })
        {
            self.check(&work_tree, folders, Mode::Tree);
        }
        let mut pattern_pending =
            PATTERN_FIRST.contains(&name) || git_sub.as_ref().is_some_and(|(_, s)| s == "grep");
        let mut skip_archive_rev = git_sub.as_ref().is_some_and(|(_, s)| s == "archive");
        let mut folder = Folders {
            dirs: folders.dirs.clone(),
            unknown: folders.unknown,
        };
        let mut skip_next: Option<bool> = None;
        let mut after_double_dash = false;
        let mut operands = 0;
        let never_open = NEVER_OPEN.contains(&name);
        // A copier's last operand is where it writes: judged as a path, never walked.
        let destination = if matches!(name, "cp" | "mv" | "rsync" | "scp" | "install" | "ln") {
            let operands: Vec<usize> = (0..args.len())
                .filter(|&j| !args[j].text.starts_with('-'))
                .collect();
            operands.last().copied().filter(|_| operands.len() > 1)
        } else {
            None
        };
        let mut k = 0;
        while k < args.len() {
            let val = &args[k];
            k += 1;
            if let Some(is_file) = skip_next.take() {
                if is_file {
                    self.check(val, &folder, Mode::Read);
                } else if name == "curl"
                    && let Some(file) = curl_file_in(&val.text)
                {
                    self.check(&Val::literal(&val.typed, file), &folder, Mode::Read);
                }
                continue;
            }
            let value = val.text.as_str();
            if git_sub.as_ref().is_some_and(|(at, _)| *at + 1 == k) {
                continue; // the subcommand itself
            }
            if !after_double_dash && value == "--" {
                after_double_dash = true;
                continue;
            }
            if !after_double_dash && value.starts_with('-') && value.len() > 1 {
                if name == "git"
                    && value == "-c"
                    && let Some(setting) = args.get(k)
                {
                    k += 1;
                    if git_setting_runs_commands(&setting.text) || setting.dynamic.is_some() {
                        self.words_only(&setting.text, &folder);
                        self.undecide(Construct::InlineCode, &setting.typed);
                    }
                    continue;
                }
                // `-C DIR` moves where the operands are (tar, git, make).
                if matches!(value, "-C" | "--directory")
                    && matches!(name, "tar" | "bsdtar" | "git" | "make" | "gmake")
                    && let Some(dir) = args.get(k)
                {
                    k += 1;
                    if dir.dynamic.is_some() {
                        folder.unknown = true;
                    } else {
                        folder.change(Some(&dir.text));
                        folder.dirs.truncate(1);
                    }
                    continue;
                }
                if let Some(is_file) = option_value(name, value) {
                    if name == "jq" && matches!(value, "--rawfile" | "--slurpfile") {
                        k += 1; // the variable name comes first
                    }
                    skip_next = Some(is_file);
                    if matches!(value, "-e" | "--regexp" | "-f" | "--file" | "--expression") {
                        pattern_pending = false;
                    }
                    continue;
                }
                if value.eq_ignore_ascii_case("-path") || value.eq_ignore_ascii_case("-literalpath")
                {
                    skip_next = Some(true);
                    continue;
                }
                if name == "curl"
                    && let Some(file) = curl_file_in(value.split_once('=').map_or("", |(_, v)| v))
                {
                    self.check(&Val::literal(&val.typed, file), &folder, Mode::Read);
                    continue;
                }
                if val.dynamic.is_none() && !never_open {
                    self.check(val, &folder, Mode::Read);
                }
                continue;
            }
            if pattern_pending {
                pattern_pending = false;
                if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "sed")
                    && (val.dynamic.is_some() || script_reads_files(name, value))
                {
                    self.undecide(Construct::InlineCode, &val.typed);
                }
                continue;
            }
            if skip_archive_rev {
                skip_archive_rev = false;
                continue;
            }
            operands += 1;
            if name == "dd" {
                if let Some(file) = value
                    .strip_prefix("if=")
                    .or_else(|| value.strip_prefix("of="))
                {
                    self.check(
                        &Val {
                            text: file.to_owned(),
                            ..val.clone()
                        },
                        &folder,
                        Mode::Read,
                    );
                }
                continue;
            }
            if name == "curl"
                && let Some(file) = curl_file_in(value)
            {
                self.check(&Val::literal(&val.typed, file), &folder, Mode::Read);
                continue;
            }
            let path_like = value.contains('/') || value.contains('\\');
            if never_open {
                continue;
            }
            let mode = if recursive && Some(k - 1) != destination {
                Mode::Tree
            } else if reader || (val.dynamic.is_none() && path_like) {
                Mode::Read
            } else {
                Mode::Existing
            };
            if val.dynamic.is_some() && !reader {
                continue;
            }
            self.check(val, &folder, mode);
        }
        // `make` reads the makefile of the folder it runs in (`make -C secrets`).
        if matches!(name, "make" | "gmake")
            && !args
                .iter()
                .any(|v| v.text.starts_with("-f") || v.text.starts_with("--file"))
        {
            for makefile in ["GNUmakefile", "makefile", "Makefile"] {
                self.check(&Val::literal(name, makefile), &folder, Mode::Read);
            }
        }
        // `rg x`, `git grep x`: no folder operand means the whole tree.
        if operands == 0
            && matches!(stdin, Stdin::Terminal)
            && (matches!(name, "rg" | "ag" | "ack") || git_tree)
        {
            self.check(&Val::literal(name, "."), &folder, Mode::Tree);
        }
    }

    fn find(&mut self, args: &[Val], folders: &Folders, stdin: &Stdin) {
        let starts: Vec<&Val> = args
            .iter()
            .take_while(|v| !v.text.starts_with('-') && !matches!(v.text.as_str(), "(" | "!" | ")"))
            .collect();
        let execs = args
            .iter()
            .any(|v| matches!(v.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
        let mode = if execs { Mode::Tree } else { Mode::Read };
        if starts.is_empty() {
            if execs {
                self.check(&Val::literal("find", "."), folders, Mode::Tree);
            }
        } else {
            for start in &starts {
                self.check(start, folders, mode);
            }
        }
        // The commands `-exec` runs: `{}` is a path under a start point, judged above as a tree.
        let mut k = starts.len();
        while k < args.len() {
            let v = &args[k];
            k += 1;
            if matches!(v.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let end = args[k..]
                    .iter()
                    .position(|w| matches!(w.text.as_str(), ";" | "+"))
                    .map_or(args.len(), |p| k + p);
                let inner: Vec<Val> = args[k..end].to_vec();
                let mut inner_folders = folders.clone();
                self.judge(&inner, &mut inner_folders, stdin, 0);
                k = end + 1;
            } else if matches!(
                v.text.as_str(),
                "-newer"
                    | "-anewer"
                    | "-cnewer"
                    | "-samefile"
                    | "-fprint"
                    | "-fprint0"
                    | "-fls"
                    | "-fprintf"
            ) && let Some(file) = args.get(k)
            {
                self.check(file, folders, Mode::Read);
                k += 1;
            }
        }
    }

    /// PowerShell cmdlets read their parameters by name; positions only for the rest.
    fn powershell(&mut self, name: &str, args: &[Val], folders: &Folders) {
        let positionals = powershell_positionals(name);
        let recursive = (args.iter().any(|v| v.text.eq_ignore_ascii_case("-recurse"))
            && is_recursive(name, &["-recurse".to_owned()]))
            || is_recursive(name, &[]);
        let mode = if recursive { Mode::Tree } else { Mode::Read };
        let mut position = 0;
        let mut k = 0;
        while k < args.len() {
            let val = &args[k];
            k += 1;
            let lower = val.text.to_lowercase();
            if lower.starts_with('-')
                && lower.len() > 1
                && lower[1..].starts_with(|c: char| c.is_ascii_alphabetic())
            {
                let (param, attached) = match lower.split_once(':') {
                    Some((p, _)) => (
                        p.to_owned(),
                        val.text.split_once(':').map(|(_, v)| v.to_owned()),
                    ),
                    None => (lower.clone(), None),
                };
                if powershell_switch(&param) {
                    continue;
                }
                // A prefix of a path parameter is that parameter (`-Pa` is `-Path`).
                let path_param = powershell_path_param(&param)
                    || (param.len() > 2
                        && POWERSHELL_PATH_PARAMS.iter().any(|p| p.starts_with(&param)));
                let value = match attached {
                    Some(v) => Val {
                        text: v,
                        ..val.clone()
                    },
                    None => match args.get(k) {
                        Some(v) => {
                            k += 1;
                            v.clone()
                        }
                        None => continue,
                    },
                };
                if path_param {
                    let mode = if param.starts_with("-destination") {
                        Mode::Read
                    } else {
                        mode
                    };
                    self.powershell_paths(&value, folders, mode);
                } else if !powershell_text_param(&param) {
                    // Any other parameter's value: an existing blocked path still blocks.
                    self.powershell_paths(&value, folders, Mode::Existing);
                }
                continue;
            }
            let is_path = positionals.get(position).copied().unwrap_or(true);
            position += 1;
            if is_path {
                self.powershell_paths(val, folders, mode);
            }
        }
    }

    fn powershell_paths(&mut self, val: &Val, folders: &Folders, mode: Mode) {
        if val.dynamic.is_some() {
            self.check(val, folders, mode);
            return;
        }
        for piece in val.text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let piece = piece.trim_matches(['\'', '"']);
            let glob = val.glob || piece.contains(['*', '?', '[']);
            let mut one = Val::literal(&val.typed, piece);
            one.glob = glob;
            self.check(&one, folders, mode);
        }
    }
}

/// Environment variables whose value a program runs as a command or loads as code.
fn runs_commands(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("PAGER")
        || upper.ends_with("EDITOR")
        || upper.ends_with("_COMMAND")
        || matches!(
            upper.as_str(),
            "BASH_ENV"
                | "ENV"
                | "LESSOPEN"
                | "LESSCLOSE"
                | "LD_PRELOAD"
                | "LD_AUDIT"
                | "PROMPT_COMMAND"
                | "GIT_EXTERNAL_DIFF"
                | "GIT_ASKPASS"
                | "SSH_ASKPASS"
                | "PYTHONSTARTUP"
                | "PERL5OPT"
                | "NODE_OPTIONS"
                | "RUBYOPT"
                | "BROWSER"
                | "VISUAL"
                | "SHELL"
        )
}

/// `git -c key=value` settings whose value git runs as a command.
fn git_setting_runs_commands(setting: &str) -> bool {
    let key = setting.split('=').next().unwrap_or("").to_ascii_lowercase();
    key.starts_with("alias.")
        || key.starts_with("filter.")
        || key.ends_with(".textconv")
        || key.ends_with("command")
        || key.ends_with(".pager")
        || matches!(
            key.as_str(),
            "core.pager"
                | "core.editor"
                | "core.fsmonitor"
                | "core.hookspath"
                | "diff.external"
                | "sequence.editor"
                | "credential.helper"
                | "gpg.program"
                | "include.path"
        )
}

/// Whether an awk or sed program can open files by itself (`getline < f`, `system()`, sed's
/// `r`/`R`/`w`/`W`/`e` commands and the `e`/`w` flags of `s`).
fn script_reads_files(program: &str, script: &str) -> bool {
    if program != "sed" {
        return script.contains("getline") || script.contains("system") || script.contains('|');
    }
    script.split([';', '\n', '{', '}']).any(|command| {
        let command = command.trim_start();
        // Drop an address: line numbers, `$`, ranges, `/regex/`.
        let mut rest = command.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '$' | ',' | '!' | '~' | ' ')
        });
        while let Some(after) = rest.strip_prefix('/') {
            rest = after.split_once('/').map_or("", |(_, r)| r);
            rest = rest.trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '$' | ',' | '!' | '~' | ' ' | 'I' | 'M')
            });
        }
        let mut chars = rest.chars();
        match chars.next() {
            Some('r' | 'R' | 'w' | 'W' | 'e') => {
                matches!(chars.next(), None | Some(' ' | '\t'))
            }
            Some('s') => {
                let Some(delim) = chars.next() else {
                    return false;
                };
                let parts: Vec<&str> = rest[1 + delim.len_utf8()..].split(delim).collect();
                parts.len() >= 3 && parts[2].contains(['e', 'w'])
            }
            _ => false,
        }
    })
}

/// The script after `cmd /c` or `pwsh -Command`: words joined, each as typed when it carries
/// Windows backslashes the POSIX reading would have eaten.
fn windows_script(rest: &[Val]) -> Val {
    let piece = |v: &Val| {
        if v.typed.contains('\\') && !v.typed.contains(['\'', '"', '$']) {
            v.typed.clone()
        } else {
            v.text.clone()
        }
    };
    Val {
        typed: rest
            .iter()
            .map(|v| v.typed.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        text: rest.iter().map(piece).collect::<Vec<_>>().join(" "),
        glob: false,
        dynamic: rest.iter().find_map(|v| v.dynamic),
    }
}

/// A file that is another command's output (`<(…)` reads as `/dev/fd/63`).
fn is_pipe_file(operand: &str) -> bool {
    operand.starts_with("/dev/fd/") || operand.starts_with("/proc/self/fd/")
}

/// A word as cmd reads it: `^x` is `x`.
fn cmd_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '^' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Operands that name the standard input.
fn reads_stdin(operand: &str) -> bool {
    matches!(
        operand,
        "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
    )
}

fn joined(vals: &[Val]) -> Option<String> {
    if vals.iter().any(|v| v.dynamic.is_some()) {
        return None;
    }
    Some(
        vals.iter()
            .map(|v| v.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

struct Cx<'s> {
    src: &'s str,
    /// Script nesting depth.
    depth: usize,
    /// Recursion depth through nodes.
    node_depth: usize,
}

impl<'s> Cx<'s> {
    fn text(&self, node: Node) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    fn slice(&self, from: usize, to: usize) -> &'s str {
        self.src.get(from..to).unwrap_or("")
    }
}

fn named(node: Node<'_>) -> std::vec::IntoIter<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .collect::<Vec<_>>()
        .into_iter()
}

fn children(node: Node<'_>) -> std::vec::IntoIter<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect::<Vec<_>>().into_iter()
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn first_error(root: Node) -> Option<Node> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}
