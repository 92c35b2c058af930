//! The walk over the tree-sitter-bash tree: every statement (lists, pipelines, loops,
//! conditionals, groups, functions, subshells, substitutions, here-documents, redirections) and
//! the folder each command runs in; words are expanded in `expand`, each simple command is judged
//! in `judge` and a program's operands in `operands`. The statement walk stays one file: each
//! statement kind recurses into the others.

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

mod expand;
mod judge;
mod operands;

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

/// A file that is another command's output (`<(…)` reads as `/dev/fd/63`).
fn is_pipe_file(operand: &str) -> bool {
    operand.starts_with("/dev/fd/") || operand.starts_with("/proc/self/fd/")
}

/// Operands that name the standard input.
fn reads_stdin(operand: &str) -> bool {
    matches!(
        operand,
        "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
    )
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
