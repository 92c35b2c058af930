//! The walk over the tree-sitter-bash tree: every statement (lists, pipelines, loops,
//! conditionals, groups, functions, subshells, substitutions, here-documents, redirections) and
//! the folder each command runs in; words are expanded in `expand`, each simple command is judged
//! in `judge` and a program's operands in `operands`; `changes` keeps what the line does to names
//! (links it makes, names it replaces). Substitutions are walked wherever they are, and a net
//! under the grammar walks openers it left in plain text. The statement walk stays one file:
//! each statement kind recurses into the others.
//! One file on purpose (about 1,290 lines): besides that recursion, the types and helpers here
//! (`Walker`, `Val`, `Folders`, `Stdin`, `Mode`, `join`, `named`) are what its five submodules
//! share through `use super::*`.
//!
//! ## Decision: The vetter walks every substitution and models what the line does to names (issue 26)
//!
//! Substitutions are found by kind wherever they are (`substitutions` recurses through any node
//! kind, known or not), a backtick body is parsed again once its escapes are removed (as bash
//! does), and a net under the grammar (`hidden_substitutions`) walks any `` ` ``/`$(`/`<(` opener
//! left in text the grammar did not parse as one (`${x:-`cat .env`}`). The line's own changes are
//! state: `ln -s T L` makes `L` read `dirname(L)/T` (judged at the `ln` and at every later read), a
//! copy reads its source, and a name a move, `tar x`, `unzip` or a git checkout may have replaced
//! is undecidable (`changedFile`); since loops and functions run statements again, a line with
//! changes is walked twice, the second time knowing all of them. Paths under `/proc/self`,
//! `/proc/<pid>` or `/dev/fd` other than a plain descriptor are the reader's view (`processFile`);
//! an assignment to `HOME`, `CDPATH`, `BASH_ENV`, `OLDPWD`, ... (by `=`, `export`, `read`, `printf
//! -v`, `for`, a nameref), `shopt -s`/`-u`, `set` beyond `-euxv`/ `-o pipefail`, `cd -P` and a
//! function named like a builtin make the line undecidable (`shellState`). git subcommands that
//! print content with no pathspec (`diff`, `show`, `log -p`, `stash show -p`, `format-patch`,
//! `cat-file --batch`, `fast-export`) read the whole tree, as `git grep`: undecidable at least
//! (history holds files no longer on disk). A link to a write-protected file is `protectedLink`
//! (the server hands `check_protection` to the oracle).

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

mod changes;
mod evaluated;
mod expand;
mod judge;
mod operands;

use changes::Changes;
use evaluated::Evaluated;

use crate::programs::*;
use crate::words::{self, Chars};
use crate::{BlockedArgument, Construct, Judgement, Oracle, Undecidable, Verdict};

/// Deepest nesting of scripts given as text (`bash -c`, `eval`, `su -c`, here-documents to a shell).
const MAX_SCRIPT_DEPTH: usize = 16;
/// Deepest recursion through the tree (statements inside substitutions inside words ...).
const MAX_NODE_DEPTH: usize = 200;
/// Most folders a command may be in after `cd`s whose success is unknown.
const MAX_FOLDERS: usize = 8;
/// Most calls of the line's own functions, and extra rounds of loops, walked (a body may call
/// others, a loop may hold loops).
const MAX_FUNCTION_CALLS: usize = 64;
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
    let verdict = vet_line(command, oracle);
    // Bash removes a backslash-newline (a line continuation) before it splits words, anywhere
    // but inside single quotes, so `cat .e\<newline>nv` reads `.env`; the grammar keeps both
    // bytes in the word. The line is judged again with every continuation joined and the
    // stricter verdict wins (a continuation joined inside single quotes judges a line bash
    // would not run, which can only add a verdict that blocks or asks).
    if matches!(verdict, Verdict::Blocked(_)) || !command.contains("\\\n") {
        return verdict;
    }
    match vet_line(&command.replace("\\\n", ""), oracle) {
        Verdict::Allowed => verdict,
        joined @ Verdict::Blocked(_) => joined,
        joined @ Verdict::Undecidable(_) => match verdict {
            Verdict::Allowed => joined,
            verdict => verdict,
        },
    }
}

fn vet_line(command: &str, oracle: &dyn Oracle) -> Verdict {
    let first = vet_pass(command, oracle, Changes::default());
    match first {
        // A name the line creates or replaces may be read before, in a loop, or by a function
        // defined earlier: judge every read again, knowing all of them.
        (Verdict::Allowed | Verdict::Undecidable(_), changes) if !changes.is_empty() => {
            vet_pass(command, oracle, changes).0
        }
        (verdict, _) => verdict,
    }
}

fn vet_pass(command: &str, oracle: &dyn Oracle, mut changes: Changes) -> (Verdict, Changes) {
    changes.seen = 0;
    changes.current = 0;
    let mut walker = Walker {
        oracle,
        // With CDPATH set, `cd name` may go anywhere on it.
        cdpath: command.contains("CDPATH"),
        home: oracle.home(),
        blocked: None,
        undecidable: None,
        listing_feeds_reader: false,
        changes,
        changes_exempt: false,
        functions: Vec::new(),
        function_bodies: Vec::new(),
        calls: 0,
        traps: Vec::new(),
        evaluated: Evaluated::default(),
    };
    if command.len() > crate::MAX_COMMAND_BYTES {
        walker.words_only(command, &Folders::start());
        walker.undecide(Construct::Limit, prefix(command, 64));
    } else if command.contains('\0') {
        // No shell takes a NUL inside a command; the grammar might stop reading at it.
        walker.words_only(&command.replace('\0', " "), &Folders::start());
        walker.undecide(Construct::Unparsed, prefix(command, 64));
    } else {
        let mut folders = Folders::start();
        walker.script(command, &mut folders, &Stdin::Terminal, 0);
        // An EXIT (or any) trap runs where the line ended, not where it was set.
        for trap in std::mem::take(&mut walker.traps) {
            let mut inner = folders.clone();
            walker.nested(&trap, &mut inner, &Stdin::Terminal, 1);
        }
    }
    walker.evaluated_verdict();
    let verdict = match (walker.blocked, walker.undecidable) {
        (Some(hit), _) => Verdict::Blocked(hit),
        (None, Some(why)) => Verdict::Undecidable(why),
        (None, None) => Verdict::Allowed,
    };
    (verdict, walker.changes)
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
    /// What the line does to names (links it makes, names it replaces).
    changes: Changes,
    /// The operands being checked are git's (revisions, pathspecs), not files read from the
    /// work tree, so replaced names do not matter to them.
    changes_exempt: bool,
    /// Functions the line defines: their bodies are walked where they are defined, so a call
    /// of one is a known program.
    functions: Vec<String>,
    /// `(name, body)`: a call runs the body again where it is called (its reads are relative
    /// to the caller's folder, its `cd` moves the caller).
    function_bodies: Vec<(String, String)>,
    /// Function calls and extra loop rounds walked so far (bounded: a body may call others, a
    /// loop may hold loops).
    calls: usize,
    /// Trap actions, walked again in the folders the line ends in.
    traps: Vec<Val>,
    /// What the line evaluates a second time (arithmetic, `${x@P}`, `${!x}`) and the values it
    /// cannot see.
    evaluated: Evaluated,
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
        self.evaluation_sites(root, folders, &cx);
        self.statement(root, folders, stdin, &mut cx);
        let start = Folders {
            dirs: folders.dirs.clone(),
            unknown: folders.unknown,
        };
        self.hidden_substitutions(root, &start, &mut cx);
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
            "file_redirect" => {
                self.redirect(node, folders, cx);
            }
            "heredoc_redirect" | "herestring_redirect" => self.substitutions(node, folders, cx),
            "command_substitution" | "process_substitution" => self.substitution(node, folders, cx),
            "comment" => {}
            "variable_assignment" | "variable_assignments" | "declaration_command" => {
                self.state_assignments(node, cx);
                if node.kind() == "declaration_command" {
                    // `export {HOME,X}=y`, `declare "HOME=y"`: the words as bash expands them.
                    for child in named(node).filter(|c| c.kind() != "variable_assignment") {
                        for val in self.word(child, folders, cx) {
                            let name = val.text.trim_start_matches('-');
                            self.state_name(name.split('=').next().unwrap_or(""), &val.typed);
                            // `declare 'a[$(cat .env)]=1'`: the subscript is evaluated.
                            self.evaluated_literal(&val, folders, cx.depth);
                        }
                    }
                }
                self.assigned_values(node, folders, cx);
                self.substitutions(node, folders, cx)
            }
            "unset_command" => {
                for child in named(node) {
                    self.state_name(cx.text(child), cx.text(node));
                    // `unset 'a[$(cat .env)]'`: the subscript is evaluated.
                    for val in self.word(child, folders, cx) {
                        self.evaluated_literal(&val, folders, cx.depth);
                    }
                }
                self.substitutions(node, folders, cx)
            }
            "test_command" => {
                // `[[ -v 'a[$(cat .env)]' ]]`: the name's subscript is evaluated.
                let mut stack = vec![node];
                while let Some(n) = stack.pop() {
                    match n.kind() {
                        "unary_expression"
                            if named(n)
                                .next()
                                .is_some_and(|o| matches!(cx.text(o), "-v" | "-R")) =>
                        {
                            for operand in named(n).skip(1) {
                                for val in self.word(operand, folders, cx) {
                                    self.evaluated_literal(&val, folders, cx.depth);
                                }
                            }
                        }
                        "command_substitution" | "process_substitution" => {}
                        _ => stack.extend(named(n)),
                    }
                }
                self.children(node, folders, stdin, cx)
            }
            "function_definition" => {
                let name = node.child_by_field_name("name").map_or("", |n| cx.text(n));
                if shadows_builtin(name) {
                    self.undecide(Construct::ShellState, cx.text(node));
                }
                if !self.functions.iter().any(|known| known == name) {
                    self.functions.push(name.to_owned());
                }
                if let Some(body) = node.child_by_field_name("body") {
                    self.function_bodies
                        .push((name.to_owned(), cx.text(body).to_owned()));
                }
                // Walked where it is defined too (a function may never be called), in a copy
                // of the folders: its `cd` moves the caller only when it is called.
                let mut inner = folders.clone();
                self.children(node, &mut inner, stdin, cx)
            }
            "for_statement" => {
                if let Some(variable) = node.child_by_field_name("variable") {
                    self.state_name(cx.text(variable), cx.text(node));
                }
                self.looped(node, folders, stdin, cx)
            }
            "while_statement" | "c_style_for_statement" => self.looped(node, folders, stdin, cx),
            "program" | "list" | "compound_statement" | "do_group" | "if_statement"
            | "elif_clause" | "else_clause" | "case_statement" | "case_item"
            | "negated_command" | "ERROR" => self.children(node, folders, stdin, cx),
            _ => self.substitutions(node, folders, cx),
        }
        cx.node_depth -= 1;
    }

    /// A loop: its body runs again in the folders a `cd` of the last round left it in
    /// (`for i in 1 2; do cat key.json; cd secrets; done` reads `secrets/key.json`), so it is
    /// walked again until the folders stop changing (they are bounded by MAX_FOLDERS).
    fn looped(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        for round in 0..=MAX_FOLDERS {
            // Nested loops would multiply their rounds: the line has one budget for them.
            if round > 0 {
                self.calls += 1;
                if self.calls > MAX_FUNCTION_CALLS {
                    self.undecide(Construct::Limit, cx.text(node));
                    return;
                }
            }
            let before = (folders.dirs.clone(), folders.unknown);
            self.children(node, folders, stdin, cx);
            if self.done() || (folders.dirs.clone(), folders.unknown) == before {
                return;
            }
        }
        self.undecide(Construct::Limit, cx.text(node));
    }

    /// A call of a function the line defined: its body runs here.
    pub(super) fn call(&mut self, name: &str, folders: &mut Folders, stdin: &Stdin, depth: usize) {
        let Some(body) = self
            .function_bodies
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, body)| body.clone())
        else {
            return;
        };
        self.calls += 1;
        if self.calls > MAX_FUNCTION_CALLS || depth >= MAX_SCRIPT_DEPTH {
            self.undecide(Construct::Limit, name);
            return;
        }
        self.script(&body, folders, stdin, depth + 1);
    }

    fn children(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        for child in named(node) {
            self.statement(child, folders, stdin, cx);
        }
    }

    /// Walks the commands in every substitution at or under `node`, whatever the kinds between
    /// (words, assignments, loops' lists, test expressions, arithmetic, kinds not known here).
    fn substitutions(&mut self, node: Node, folders: &Folders, cx: &mut Cx) {
        if self.done() {
            return;
        }
        if cx.node_depth > MAX_NODE_DEPTH {
            self.undecide(Construct::Limit, cx.text(node));
            return;
        }
        cx.node_depth += 1;
        match node.kind() {
            "command_substitution" | "process_substitution" => self.substitution(node, folders, cx),
            _ => {
                for child in named(node) {
                    if self.done() {
                        break;
                    }
                    self.substitutions(child, folders, cx);
                }
            }
        }
        cx.node_depth -= 1;
    }

    /// The commands of one `$(…)`, `` `…` `` or `<(…)`, run in a subshell. A backtick body is
    /// shell text that bash parses again once `\\`, `` \` `` and `\$` lose their backslash
    /// (so `` `echo \`cat x\`` `` runs `cat x`): it is parsed again here too.
    pub(super) fn substitution(&mut self, node: Node, folders: &Folders, cx: &mut Cx) {
        let mut inner = folders.clone();
        let text = cx.text(node);
        if let Some(body) = text.strip_prefix('`') {
            let body = body.strip_suffix('`').unwrap_or(body);
            let body = backtick_body(body);
            self.script(&body, &mut inner, &Stdin::Terminal, cx.depth + 1);
        } else {
            self.children(node, &mut inner, &Stdin::Terminal, cx);
        }
    }

    /// The net under the grammar: an opener of a substitution (`` ` ``, `$(`, `<(`, `>(`) in
    /// text the grammar did not parse as one (`${x:-`cat .env`}` is a plain word to it) still
    /// runs in bash. Its body is walked as a script, and what it yields is unknown.
    fn hidden_substitutions(&mut self, root: Node, folders: &Folders, cx: &mut Cx) {
        // Inside `${…}` the word is a variable's already (dynamic wherever it is used), so
        // only the body matters there.
        let mut stack = vec![(root, false)];
        let mut seen = Vec::new();
        while let Some((node, in_expansion)) = stack.pop() {
            if self.done() {
                return;
            }
            if is_literal_region(node, cx) {
                continue;
            }
            let in_expansion = in_expansion || node.kind() == "expansion";
            let kids: Vec<Node> = children(node).collect();
            let mut gaps = Vec::new();
            if kids.is_empty() {
                gaps.push((node.start_byte(), node.end_byte(), node.is_named()));
            } else {
                let mut at = node.start_byte();
                for kid in &kids {
                    gaps.push((at, kid.start_byte(), true));
                    at = kid.end_byte().max(at);
                }
                gaps.push((at, node.end_byte(), true));
                stack.extend(kids.iter().rev().map(|kid| (*kid, in_expansion)));
            }
            for (from, to, dollar) in gaps {
                for opener in hidden_openers(cx.src, from, to, dollar) {
                    if seen.contains(&opener) {
                        continue;
                    }
                    seen.push(opener);
                    let body = opened_body(cx.src, opener);
                    let mut inner = folders.clone();
                    self.script(&body, &mut inner, &Stdin::Terminal, cx.depth + 1);
                    if !in_expansion {
                        self.undecide(Construct::Substitution, &cx.src[opener..]);
                    }
                }
            }
        }
    }

    fn redirected(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        let mut input = stdin.clone();
        let mut body = None;
        let mut after = Vec::new();
        for child in named(node) {
            match child.kind() {
                "file_redirect" => {
                    if self.redirect(child, folders, cx) {
                        input = Stdin::Pipe;
                    }
                }
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

    /// Judges a redirection's file; `true` when it is the command's standard input (`< x.sh`:
    /// what a shell or interpreter then runs is a file's content, not known here).
    fn redirect(&mut self, node: Node, folders: &Folders, cx: &mut Cx) -> bool {
        let operator = children(node)
            .find(|c| !c.is_named())
            .map_or("", |c| cx.text(c));
        let descriptor = named(node)
            .find(|c| c.kind() == "file_descriptor")
            .map(|c| cx.text(c));
        let is_stdin = operator.starts_with('<') && matches!(descriptor, None | Some("0"));
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
            // `> .git/hooks/x`, `>> $HOME/.gitconfig`: judged by the word as typed too, since a
            // variable's value is not known here.
            if operator.contains('>')
                && (loads_as_configuration(&val.text) || loads_as_configuration(&val.typed))
            {
                self.undecide(Construct::ScriptFile, &val.typed);
            }
            if let Some(construct) = val.dynamic {
                if operator.contains('<') {
                    self.undecide(construct, &val.typed);
                }
                continue;
            }
            self.check(&val, folders, Mode::Read);
        }
        is_stdin
    }

    fn command(&mut self, node: Node, folders: &mut Folders, stdin: &Stdin, cx: &mut Cx) {
        let mut input = stdin.clone();
        let mut words: Vec<Val> = Vec::new();
        let mut has_name = false;
        let mut assignments = Vec::new();
        let mut pending = named(node).peekable();
        while let Some(child) = pending.next() {
            match child.kind() {
                "variable_assignment" => assignments.push(child),
                "file_redirect" => {
                    if self.redirect(child, folders, cx) {
                        input = Stdin::Pipe;
                    }
                }
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
                    // Nodes with nothing between them are one word to bash.
                    let mut run = vec![child];
                    while let Some(next) = pending.peek()
                        && next.start_byte() == run[run.len() - 1].end_byte()
                        && !matches!(
                            next.kind(),
                            "variable_assignment"
                                | "file_redirect"
                                | "herestring_redirect"
                                | "comment"
                                | "subshell"
                                | "command_name"
                        )
                    {
                        run.push(*next);
                        pending.next();
                    }
                    let vals = self.word_run(&run, folders, cx);
                    words.extend(vals);
                }
            }
        }
        for assignment in assignments {
            self.state_assignments(assignment, cx);
            self.assigned_values(assignment, folders, cx);
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

    /// Every assignment at or under `node` (`HOME=x`, `export BASH_ENV=y`, `declare -n r=HOME`)
    /// to a variable that decides what names mean.
    fn state_assignments(&mut self, node: Node, cx: &Cx) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "variable_assignment" => {
                    let name = node.child_by_field_name("name").map_or("", |n| cx.text(n));
                    self.state_name(name, cx.text(node));
                    let value = node.child_by_field_name("value").map_or("", |n| cx.text(n));
                    if name == "PATH" && path_searches_relative(value) {
                        self.undecide(Construct::ShellState, cx.text(node));
                    }
                }
                "variable_name" | "word"
                    if node
                        .parent()
                        .is_some_and(|p| p.kind() == "declaration_command") =>
                {
                    let text = cx.text(node);
                    // `declare -n ref=HOME`: later assignments to `ref` set HOME.
                    if text.starts_with('-') && text.contains('n') {
                        self.undecide(
                            Construct::ShellState,
                            cx.text(node.parent().unwrap_or(node)),
                        );
                    }
                    self.state_name(text.split('=').next().unwrap_or(""), text);
                }
                "command_substitution" | "process_substitution" => continue,
                _ => {}
            }
            stack.extend(named(node));
        }
    }

    /// The values of the assignments at or under `node`: a literal value holding a substitution
    /// opener is code to whatever evaluates it again (arithmetic, `${x@P}`, `declare -a
    /// x='(…)'`, a prompt), so its commands are judged and the line is undecidable.
    fn assigned_values(&mut self, node: Node, folders: &Folders, cx: &mut Cx) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "variable_assignment" => {
                    if let Some(value) = node.child_by_field_name("value") {
                        // `a=('a[$(cat .env)]' x)`: each element is a value.
                        let elements: Vec<Node> = if value.kind() == "array" {
                            named(value).collect()
                        } else {
                            vec![value]
                        };
                        for element in elements {
                            for val in self.word(element, folders, cx) {
                                self.evaluated_literal(&val, folders, cx.depth);
                            }
                        }
                    }
                }
                "command_substitution" | "process_substitution" => {}
                _ => stack.extend(named(node)),
            }
        }
    }

    /// An assignment to `name` (or `name[...]`) makes the line undecidable when the variable
    /// changes what later names mean: `~`, `cd`, the files a shell loads.
    pub(super) fn state_name(&mut self, name: &str, text: &str) {
        let name = name.split(['[', '+']).next().unwrap_or(name);
        if STATE_VARIABLES.contains(&name) {
            self.undecide(Construct::ShellState, text);
        }
        // `export LESSOPEN='|cat .env %s'`, `env PAGER=… git log`, `declare -x GIT_PAGER=…`:
        // a value later programs run, however it is set.
        if runs_commands(name) {
            self.undecide(Construct::InlineCode, text);
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
/// Variables that decide what a later name means (`~`, `cd`, `cd -`, the file a shell loads,
/// shell options), so an assignment to one makes the rest of the line undecidable.
const STATE_VARIABLES: &[&str] = &[
    "HOME",
    "BASH_ENV",
    "ENV",
    "CDPATH",
    "OLDPWD",
    "PWD",
    "BASHOPTS",
    "SHELLOPTS",
    "ZDOTDIR",
    "GLOBIGNORE",
    // `history -r` reads it and `history` prints it (`HISTFILE=.env; history -r; history`).
    "HISTFILE",
    "BASH_COMPAT",
    "POSIXLY_CORRECT",
    // git reads these before its options: another work tree, repository or configuration
    // (`GIT_CONFIG_PARAMETERS="'core.pager=cat .env'"`).
    "GIT_WORK_TREE",
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    // Where programs find the configuration or code they load (a folder the agent wrote:
    // `XDG_CONFIG_HOME=x git status` reads `x/git/config`, `GIT_EXEC_PATH=. git foo` runs
    // `./git-foo`).
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CONFIG_DIRS",
    "CURL_HOME",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "LESSKEY",
    "LESSKEYIN",
    "LESSKEYIN_SYSTEM",
    "MYVIMRC",
    "VIMRUNTIME",
    "CARGO_HOME",
    "PIP_CONFIG_FILE",
    "NPM_CONFIG_USERCONFIG",
    "NPM_CONFIG_GLOBALCONFIG",
    "PYTHONPATH",
    "NODE_PATH",
    "PERL5LIB",
    "RUBYLIB",
    "LD_LIBRARY_PATH",
    "GDBINIT",
    "INPUTRC",
    "WGETRC",
    "SSH_CONFIG",
    "OPENSSL_CONF",
    "OPENSSL_MODULES",
    "GNUPGHOME",
    "SSL_CERT_FILE",
];

/// Whether a `PATH` value has an entry that is empty or relative (`.:$PATH`, `bin:$PATH`,
/// `$PATH:`): a program name then runs a file of the working folder, which the agent may
/// have written, instead of the program the walk judged.
pub(super) fn path_searches_relative(value: &str) -> bool {
    value
        .replace(['"', '\''], "")
        .split(':')
        .any(|entry| entry.is_empty() || !entry.starts_with(['/', '$', '~']))
}

/// Builtins whose meaning the walk models; a function of that name replaces it.
fn shadows_builtin(name: &str) -> bool {
    matches!(
        name,
        "cd" | "pushd"
            | "popd"
            | "builtin"
            | "command"
            | "source"
            | "."
            | "eval"
            | "exec"
            | "set"
            | "shopt"
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "unset"
            | "alias"
            | "enable"
            | "trap"
    )
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
                // Prompt strings are expanded, substitutions included, each time they are shown:
                // PS4 before every command under `set -x`, PS0-PS2 in an interactive shell.
                | "PS0"
                | "PS1"
                | "PS2"
                | "PS3"
                | "PS4"
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
                | "VIMINIT"
                | "GVIMINIT"
                | "EXINIT"
                | "GIT_SSH"
                | "GIT_PROXY_COMMAND"
                | "RUSTC_WRAPPER"
                | "RUSTC_WORKSPACE_WRAPPER"
                | "RUSTC"
                | "CARGO_BUILD_RUSTC_WRAPPER"
                | "LD_AUDIT_PATH"
        )
}

/// Whether a write to `path` changes what a later program of the line (or of a later turn)
/// loads and runs: anything under a `.git` folder (hooks, config), a dotfile of the home
/// folder, a `.config` folder, or a configuration file a tool reads from the working folder.
pub(super) fn loads_as_configuration(path: &str) -> bool {
    let path = path.trim_matches(['"', '\'']);
    let components: Vec<&str> = path.split(['/', '\\']).collect();
    let base = components.last().copied().unwrap_or("");
    let in_home =
        path.starts_with("~/") || path.starts_with("$HOME/") || path.starts_with("${HOME}/");
    components
        .iter()
        .any(|c| *c == ".git" || *c == ".config" || *c == ".cargo")
        || (in_home && components.len() == 2 && base.starts_with('.'))
        || matches!(
            base,
            ".npmrc"
                | ".yarnrc"
                | ".yarnrc.yml"
                | ".curlrc"
                | ".wgetrc"
                | ".lesskey"
                | ".gdbinit"
                | ".lldbinit"
                | ".vimrc"
                | ".exrc"
                | ".nvimrc"
                | ".gitconfig"
                | ".bashrc"
                | ".bash_profile"
                | ".profile"
                | ".zshrc"
                | ".zshenv"
                | ".inputrc"
                | ".envrc"
                | ".pythonrc"
                | "pip.conf"
                | ".pypirc"
                | ".irbrc"
                | ".pryrc"
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

/// A backtick body as bash reads it again: a backslash before `$`, `` ` `` or `\\` is removed.
fn backtick_body(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '$' | '`' | '\\')
        {
            chars.next();
            out.push(next);
            continue;
        }
        out.push(c);
    }
    out
}

/// Nodes whose text is literal to bash (quotes, comments, a quoted here-document's body) or
/// whose body is walked already (a backtick substitution is parsed again).
fn is_literal_region(node: Node, cx: &Cx) -> bool {
    match node.kind() {
        "raw_string" | "ansi_c_string" | "comment" => true,
        "command_substitution" => cx.text(node).starts_with('`'),
        "heredoc_body" => node.parent().is_some_and(|redirect| {
            named(redirect)
                .find(|c| c.kind() == "heredoc_start")
                .is_some_and(|start| cx.text(start).contains(['\'', '"', '\\']))
        }),
        _ => false,
    }
}

/// Byte offsets of unescaped substitution openers in `src[from..to]` (`$(`, `<(`, `>(` only
/// when `dollar`: the grammar's own tokens for them are unnamed leaves).
fn hidden_openers(src: &str, from: usize, to: usize, dollar: bool) -> Vec<usize> {
    let Some(text) = src.get(from..to) else {
        return Vec::new();
    };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'`' => {
                // The body runs to the next unescaped backtick, which closes it (it opens
                // nothing: `${x:-`date`}` has one substitution, not a second one of `}`).
                out.push(from + i);
                i += 1;
                while i < bytes.len() && bytes[i] != b'`' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            // `$((` is arithmetic: its substitutions are nodes of their own.
            b'$' | b'<' | b'>'
                if dollar
                    && bytes.get(i + 1) == Some(&b'(')
                    && !(bytes[i] == b'$' && bytes.get(i + 2) == Some(&b'(')) =>
            {
                out.push(from + i);
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The body of the substitution opened at `at`: up to the next unescaped backtick, or to the
/// parenthesis that balances the opener's (the rest of the text when there is none).
fn opened_body(src: &str, at: usize) -> String {
    let rest = &src[at..];
    if let Some(body) = rest.strip_prefix('`') {
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() && bytes[i] != b'`' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        return backtick_body(body.get(..i.min(body.len())).unwrap_or(body));
    }
    let body = rest.get(2..).unwrap_or("");
    let mut depth = 1usize;
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return body[..i].to_owned();
                }
            }
            _ => {}
        }
        i += 1;
    }
    body.to_owned()
}
