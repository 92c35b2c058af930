//! Text bash evaluates a second time, after the expansion the walk models: arithmetic (`$((x))`,
//! `(( ))`, `let`, `[[ x -eq y ]]`, array subscripts, `${s:off}`) evaluates a variable's value as
//! an expression, and a subscript inside it (`a[$(cat .env)]`) runs its substitution; `${x@P}`
//! expands a value as a prompt; `${!x}` takes a value as a name, subscript included; builtins
//! that take a variable name (`printf -v`, `read`, `unset`, `test -v`, `declare`) evaluate the
//! subscript of the name they are given; `declare -a a='(…)'` expands a compound assignment
//! given as a string; `mapfile -C` runs a callback. So a literal that holds a substitution
//! opener at one of these places is code, and a value the walk cannot see (read from a file or a
//! pipe, a substitution's output) reaching an evaluation site is undecidable (issue 26, red team
//! round 7).

use super::*;

/// Names a line assigns values the walk cannot see, names whose value is another name, and the
/// names evaluation sites evaluate.
#[derive(Debug, Clone, Default)]
pub(super) struct Evaluated {
    /// Variables set to a value not known from the text (`read x`, `x=$(cat f)`, `for x in *`).
    runtime: Vec<String>,
    /// `(name, names)`: a literal value that mentions other names (`y=x`), which arithmetic
    /// evaluates in turn.
    edges: Vec<(String, Vec<String>)>,
    /// `(name, snippet)`: a name an evaluation site evaluates.
    refs: Vec<(String, String)>,
    /// A substitution whose output an evaluation site evaluates (`$(( $(cat f) ))`).
    direct: Option<String>,
}

/// Whether a substitution prints only numbers whatever the files it reads hold (`$(nproc)`,
/// `$(wc -l < f)`, `$(date +%s)`), so arithmetic over its output evaluates no text the agent
/// chose. `date +FORMAT`, `seq -f`, `expr STRING` and a file name `wc` prints are text.
fn numeric_output(substitution: &str) -> bool {
    let inner = substitution
        .strip_prefix("$(")
        .and_then(|b| b.strip_suffix(')'))
        .or_else(|| {
            substitution
                .strip_prefix('`')
                .and_then(|b| b.strip_suffix('`'))
        })
        .unwrap_or(substitution);
    if inner.contains(['|', ';', '&', '$', '`', '\n', '(', '\'', '"']) {
        return false;
    }
    let mut words = inner.split_whitespace();
    let program = words.next().unwrap_or("");
    let mut after_redirect = false;
    matches!(program, "nproc" | "wc" | "date")
        && words.all(|w| {
            let ok = after_redirect
                || w == "<"
                || (w.starts_with('-') && !w.contains('='))
                || (program == "date"
                    && w.strip_prefix("+%")
                        .is_some_and(|f| f.chars().all(|c| c.is_ascii_alphabetic() || c == '%')));
            after_redirect = w == "<";
            ok
        })
}

/// Builtins that take variable names (an indexed name's subscript is evaluated as arithmetic,
/// so a literal subscript holding `$(…)` runs it) or arithmetic expressions.
const NAME_TAKERS: &[&str] = &[
    "read",
    "mapfile",
    "readarray",
    "unset",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "getopts",
    "wait",
    "let",
];

impl Evaluated {
    /// The first evaluated name whose value the walk cannot see (directly or through names).
    fn tainted_ref(&self) -> Option<&str> {
        let mut tainted: Vec<&str> = self.runtime.iter().map(String::as_str).collect();
        loop {
            let before = tainted.len();
            for (name, names) in &self.edges {
                if !tainted.contains(&name.as_str())
                    && names.iter().any(|n| tainted.contains(&n.as_str()))
                {
                    tainted.push(name);
                }
            }
            if tainted.len() == before {
                break;
            }
        }
        self.refs
            .iter()
            .find(|(name, _)| tainted.contains(&name.as_str()))
            .map(|(_, snippet)| snippet.as_str())
    }
}

/// The identifiers of an arithmetic text (`a[i] + $n` names `a`, `i` and `n`).
fn identifiers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut leading_digit = false;
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            if current.is_empty() {
                leading_digit = c.is_ascii_digit();
            }
            current.push(c);
        } else {
            if !current.is_empty() && !leading_digit && !out.contains(&current) {
                out.push(current.clone());
            }
            current.clear();
        }
    }
    out
}

/// Whether literal text holds an opener bash would run if it evaluated the text again.
pub(super) fn has_opener(text: &str) -> bool {
    text.contains("$(") || text.contains('`') || text.contains("<(") || text.contains(">(")
}

impl Walker<'_> {
    /// Literal text (`val.text`, quotes removed) at a place bash evaluates again: the commands of
    /// its substitutions are judged, and what they yield is unknown.
    pub(super) fn evaluated_literal(&mut self, val: &Val, folders: &Folders, depth: usize) {
        if !has_opener(&val.text) {
            return;
        }
        for at in hidden_openers(&val.text, 0, val.text.len(), true) {
            let body = opened_body(&val.text, at);
            let mut inner = folders.clone();
            self.script(&body, &mut inner, &Stdin::Terminal, depth + 1);
        }
        self.undecide(Construct::InlineCode, &val.typed);
    }

    /// The words of a builtin that takes names or expressions (`printf -v NAME`, `read NAME`,
    /// `test -v NAME`, `let EXPR`, `mapfile -C CALLBACK`).
    pub(super) fn evaluated_arguments(
        &mut self,
        name: &str,
        args: &[Val],
        folders: &Folders,
        depth: usize,
    ) {
        let takes_names = NAME_TAKERS.contains(&name)
            || (matches!(name, "test" | "[" | "[[")
                && args.iter().any(|v| v.text == "-v" || v.text == "-R"));
        if takes_names {
            for arg in args {
                self.evaluated_literal(arg, folders, depth);
            }
        }
        if matches!(name, "env" | "sudo" | "doas") {
            // `env x='a[$(cat .env)]' bash -c 'echo $((x))'`: a value the command gets.
            for arg in args.iter().filter(|v| !v.text.starts_with('-')) {
                if let Some((_, value)) = arg.text.split_once('=') {
                    let value = Val {
                        text: value.to_owned(),
                        ..arg.clone()
                    };
                    self.evaluated_literal(&value, folders, depth);
                }
            }
        }
        if name == "printf"
            && let Some(at) = args.iter().position(|v| v.text.starts_with("-v"))
        {
            let target = if args[at].text == "-v" {
                args.get(at + 1).cloned()
            } else {
                Some(args[at].clone())
            };
            if let Some(target) = target {
                self.evaluated_literal(&target, folders, depth);
            }
        }
        if matches!(name, "mapfile" | "readarray") {
            // `mapfile -C 'cat .env #' -c 1 a`: the callback is evaluated for every line.
            for (j, arg) in args.iter().enumerate() {
                let callback = match arg.text.strip_prefix("-C") {
                    Some("") => args.get(j + 1).cloned(),
                    Some(rest) if !arg.text.starts_with("--") => Some(Val {
                        text: rest.to_owned(),
                        ..arg.clone()
                    }),
                    _ => None,
                };
                if let Some(callback) = callback {
                    let mut inner = folders.clone();
                    self.nested(&callback, &mut inner, &Stdin::Terminal, depth);
                    self.undecide(Construct::InlineCode, &callback.typed);
                }
            }
        }
    }

    /// Records the evaluation sites and the assignments of a parsed script (see [`Evaluated`]);
    /// literal code inside an arithmetic expression (`$(( 'a[$(cat .env)]' ))`) is judged.
    pub(super) fn evaluation_sites(&mut self, root: Node, folders: &Folders, cx: &Cx) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            stack.extend(named(node));
            let text = cx.text(node);
            let arithmetic = match node.kind() {
                "arithmetic_expansion" => true,
                "compound_statement" => text.starts_with("(("),
                "c_style_for_statement" => true,
                "subscript" => true,
                _ => false,
            };
            if arithmetic {
                let expression: String = if node.kind() == "c_style_for_statement" {
                    named(node)
                        .filter(|c| !matches!(c.kind(), "do_group" | "compound_statement"))
                        .map(|c| cx.text(c))
                        .collect::<Vec<_>>()
                        .join(" ")
                } else if node.kind() == "subscript" {
                    node.child_by_field_name("index")
                        .map_or(String::new(), |i| cx.text(i).to_owned())
                } else {
                    text.to_owned()
                };
                self.arithmetic_text(&expression, text, node, folders, cx);
                continue;
            }
            match node.kind() {
                "expansion" => {
                    // `${!x}` takes the value as a name, `${x@P}` as a prompt, `${s:x:y}`
                    // evaluates its offsets.
                    let inner = text.trim_start_matches("${").trim_end_matches('}');
                    let indirect = inner.strip_prefix('!');
                    let name: String = indirect
                        .unwrap_or(inner)
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    let rest = &indirect.unwrap_or(inner)[name.len().min(inner.len())..];
                    if indirect.is_some() || rest.contains("@P") {
                        let positional =
                            name.is_empty() || name.bytes().all(|b| b.is_ascii_digit());
                        if positional && self.evaluated.direct.is_none() {
                            // `${!1}`, `${1@P}`, `${@@P}`: the words the line or a call passed.
                            self.evaluated.direct = Some(text.to_owned());
                        }
                        self.evaluated.refs.push((name.clone(), text.to_owned()));
                    }
                    if rest.starts_with(":=") || rest.starts_with('=') {
                        // `${x:='a[$(cat .env)]'}` assigns the word.
                        self.evaluated.runtime.push(name.clone());
                    }
                    if let Some(offsets) = rest.strip_prefix(':')
                        && !offsets.starts_with(['-', '=', '?', '+'])
                    {
                        for id in identifiers(offsets) {
                            self.evaluated.refs.push((id, text.to_owned()));
                        }
                    }
                }
                "binary_expression" => {
                    let operator = node
                        .child_by_field_name("operator")
                        .map_or("", |o| cx.text(o));
                    if matches!(operator, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")
                        && node.parent().is_some_and(|p| cx.text(p).starts_with("[["))
                    {
                        self.arithmetic_text(text, text, node, folders, cx);
                    }
                }
                "variable_assignment" => {
                    let name = node
                        .child_by_field_name("name")
                        .map_or("", |n| cx.text(n))
                        .to_owned();
                    let value = node.child_by_field_name("value");
                    let seen = value.is_some_and(|v| {
                        let mut stack = vec![v];
                        while let Some(n) = stack.pop() {
                            if matches!(
                                n.kind(),
                                "simple_expansion"
                                    | "expansion"
                                    | "command_substitution"
                                    | "process_substitution"
                                    | "arithmetic_expansion"
                            ) {
                                return false;
                            }
                            stack.extend(named(n));
                        }
                        true
                    });
                    let value_text = value.map_or("", |v| cx.text(v));
                    // `n=$(nproc)`, `n=$(wc -l < f)`: a number whatever the files hold.
                    let numeric = value.is_some_and(|v| {
                        v.kind() == "command_substitution" && numeric_output(cx.text(v))
                    });
                    if seen {
                        self.evaluated.edges.push((name, identifiers(value_text)));
                    } else if !numeric {
                        self.evaluated.runtime.push(name);
                    }
                }
                "for_statement" => {
                    if let Some(variable) = node.child_by_field_name("variable") {
                        // Any value but a literal number may be a file's name or a word the
                        // agent wrote (`for f in *`).
                        let numbers = node
                            .children_by_field_name("value", &mut node.walk())
                            .all(|v| cx.text(v).bytes().all(|b| b.is_ascii_digit()));
                        if !numbers {
                            self.evaluated.runtime.push(cx.text(variable).to_owned());
                        }
                    }
                }
                "command" => self.command_sites(node, folders, cx),
                "declaration_command" => {
                    // `declare -i x`: every assignment to x is evaluated as arithmetic.
                    let integer = named(node).any(|c| {
                        let t = cx.text(c);
                        t.starts_with('-') && t.contains('i')
                    });
                    if integer {
                        for child in named(node) {
                            let name = match child.kind() {
                                "variable_assignment" => {
                                    if let Some(value) = child.child_by_field_name("value") {
                                        let value_text = cx.text(value);
                                        self.arithmetic_text(value_text, text, value, folders, cx);
                                    }
                                    child.child_by_field_name("name").map(|n| cx.text(n))
                                }
                                "variable_name" | "word" => Some(cx.text(child)),
                                _ => None,
                            };
                            if let Some(name) = name.filter(|n| !n.starts_with('-')) {
                                self.evaluated.refs.push((name.to_owned(), text.to_owned()));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `read x`, `mapfile a`, `printf -v x`, `getopts o x`: names set from what is read;
    /// `let EXPR`, `declare -i x=EXPR`: expressions evaluated.
    fn command_sites(&mut self, node: Node, folders: &Folders, cx: &Cx) {
        let name = node
            .child_by_field_name("name")
            .map_or("", |n| cx.text(n))
            .trim_matches(['"', '\'', '\\']);
        let args: Vec<&str> = node
            .children_by_field_name("argument", &mut node.walk())
            .map(|a| cx.text(a))
            .collect();
        match name {
            "read" | "mapfile" | "readarray" | "getopts" | "wait" | "printf" => {
                let names: Vec<&str> = if name == "printf" {
                    args.iter()
                        .enumerate()
                        .filter_map(|(j, a)| match a.strip_prefix("-v") {
                            Some("") => args.get(j + 1).copied(),
                            Some(rest) => Some(rest),
                            None => None,
                        })
                        .collect()
                } else {
                    args.clone()
                };
                for word in names {
                    for id in identifiers(word) {
                        self.evaluated.runtime.push(id);
                    }
                }
                if matches!(name, "mapfile" | "readarray") {
                    self.evaluated.runtime.push("MAPFILE".to_owned());
                }
                if name == "read" {
                    self.evaluated.runtime.push("REPLY".to_owned());
                }
            }
            "let" => {
                let argument_nodes: Vec<Node> = node
                    .children_by_field_name("argument", &mut node.walk())
                    .collect();
                for arg in argument_nodes {
                    self.arithmetic_text(cx.text(arg), cx.text(node), arg, folders, cx);
                }
            }
            _ => {}
        }
    }

    /// One arithmetic expression: its names are evaluated, a substitution's output is evaluated,
    /// and a quoted literal with a substitution opener is code.
    fn arithmetic_text(
        &mut self,
        expression: &str,
        snippet: &str,
        node: Node,
        folders: &Folders,
        cx: &Cx,
    ) {
        for id in identifiers(expression) {
            self.evaluated.refs.push((id, snippet.to_owned()));
        }
        // `$(( $1 ))`, `$(( ${@} ))`: words the line or a call of a function passed.
        let bytes = expression.as_bytes();
        let positional = bytes
            .windows(2)
            .any(|w| w[0] == b'$' && (w[1].is_ascii_digit() || matches!(w[1], b'@' | b'*')))
            || bytes.windows(3).any(|w| {
                w[0] == b'$'
                    && w[1] == b'{'
                    && (w[2].is_ascii_digit() || matches!(w[2], b'@' | b'*'))
            });
        if positional && self.evaluated.direct.is_none() {
            self.evaluated.direct = Some(snippet.to_owned());
        }
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "command_substitution" => {
                    if !numeric_output(cx.text(n)) && self.evaluated.direct.is_none() {
                        self.evaluated.direct = Some(snippet.to_owned());
                    }
                    continue;
                }
                "raw_string" | "string" | "ansi_c_string" => {
                    let mut chars = Chars::new();
                    match n.kind() {
                        "ansi_c_string" => {
                            let inner = cx.text(n).trim_start_matches("$'").trim_end_matches('\'');
                            words::ansi_c(inner, &mut chars);
                        }
                        _ => words::unquoted(cx.text(n).trim_matches(['\'', '"']), &mut chars),
                    }
                    let text = words::text(&chars);
                    if has_opener(&text) {
                        let val = Val::literal(cx.text(n), &text);
                        self.evaluated_literal(&val, folders, cx.depth);
                    }
                    continue;
                }
                _ => {}
            }
            stack.extend(named(n));
        }
    }

    /// At the end of a pass: an evaluation site that evaluates a value the walk cannot see.
    pub(super) fn evaluated_verdict(&mut self) {
        if let Some(snippet) = self.evaluated.direct.clone() {
            self.undecide(Construct::Eval, &snippet);
        }
        if let Some(snippet) = self.evaluated.tainted_ref().map(str::to_owned) {
            self.undecide(Construct::Eval, &snippet);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_skip_numbers_and_operators() {
        assert_eq!(identifiers("a[i] + $n*2 - 0x1f"), ["a", "i", "n"]);
        assert!(identifiers("1 + 2").is_empty());
    }

    #[test]
    fn a_name_reaching_a_runtime_value_through_names_is_tainted() {
        let mut e = Evaluated::default();
        e.runtime.push("x".into());
        e.edges.push(("y".into(), vec!["x".into()]));
        e.edges.push(("z".into(), vec!["y".into()]));
        e.refs.push(("z".into(), "$((z))".into()));
        assert_eq!(e.tainted_ref(), Some("$((z))"));
        let mut clean = Evaluated::default();
        clean.edges.push(("y".into(), vec!["x".into()]));
        clean.refs.push(("y".into(), "$((y))".into()));
        assert_eq!(clean.tainted_ref(), None);
    }
}
