//! The judgement of one simple command once its words are expanded: wrappers, shells and
//! `eval`, `cd`, then what each program does with its operands (via [`crate::programs`]); the
//! tree walk in `mod.rs` hands every simple command here.
//! One file on purpose (just over 700 lines): `judge_wrapped`, `wrapper_options`,
//! `wrapped_after` and `split_string` are one recursion that peels wrappers layer by layer,
//! carrying the private `Wrapping` and `Then`.

use super::*;
use crate::options::{self, At, Item, Opt, Value};

/// What a wrapper's options said about the command it runs.
#[derive(Debug, Clone)]
struct Wrapping {
    /// The command's operands come from input or a list file (`xargs`, `xargs -a`).
    xargs: bool,
    /// Where it runs, when a wrapper moved it (`env -C`, `sudo -D`); `cd` changes the folders
    /// themselves.
    moved: Option<Folders>,
    /// `watch -x`: the words are a command, not a script for `sh -c`.
    exec: bool,
    /// Readings of unknown options still allowed to be tried both ways.
    forks: usize,
}

impl Default for Wrapping {
    fn default() -> Self {
        Wrapping {
            xargs: false,
            moved: None,
            exec: false,
            forks: 4,
        }
    }
}

/// What follows a wrapper's options.
#[derive(Debug, Clone, Copy)]
enum Then {
    /// The wrapped command.
    Command,
    /// A command line for a shell (`sudo -s`, `sudo -i`).
    Shell,
    /// Files the wrapper opens (`sudo -e`).
    Files,
}

impl Walker<'_> {
    /// One simple command, after expansion: wrappers, shells, `eval`, `cd`, then the program.
    pub(super) fn judge(
        &mut self,
        words: &[Val],
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
    ) {
        self.judge_wrapped(words, folders, stdin, depth, Wrapping::default());
    }

    fn judge_wrapped(
        &mut self,
        words: &[Val],
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
        mut wrap: Wrapping,
    ) {
        let mut i = 0;
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
            if runs_a_file(&first.text) {
                // `./x.sh`, `src/tool`, `/tmp/x`: a program file the agent may have written.
                self.undecide(Construct::ScriptFile, &first.typed);
            }
            let args = &words[i + 1..];
            self.state_command(&name, args);
            self.evaluated_arguments(&name, args, folders, depth);
            if SHELLS.contains(&name.as_str()) {
                if wrap.xargs {
                    // `printf 'cat .env' | xargs -0 bash -c`: the script (or its operands)
                    // comes from the input.
                    self.undecide(Construct::XargsInput, &first.typed);
                }
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
                        self.traps.push(script);
                        break;
                    }
                }
                return;
            }
            if name == "jobs"
                && let Some(at) = args.iter().position(|v| v.text == "-x")
            {
                // `jobs -x cmd args`: runs the command (job specs in its words replaced).
                let command = args[at + 1..].to_vec();
                self.judge_wrapped(&command, folders, stdin, depth, wrap.clone());
                return;
            }
            if matches!(name.as_str(), "eval" | "invoke-expression" | "iex") {
                let script = joined_script(args);
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
            wrap.xargs |= wrapper == "xargs"
                || (matches!(wrapper.as_str(), "parallel" | "sem")
                    && (!rest.iter().any(|w| w.text == ":::")
                        || rest.iter().any(|w| {
                            matches!(w.text.as_str(), "::::" | "::::+" | "-a" | "--arg-file")
                                || w.text.starts_with("--arg-file=")
                        })));
            i += 1;
            match self.wrapper_options(&wrapper, words, i, folders, stdin, depth, &mut wrap) {
                Some(next) => i = next,
                None => return,
            }
            if let Some(mut moved) = wrap.moved.take() {
                // `env -C DIR`, `sudo -D DIR`: everything after runs there (shells, `eval`,
                // further wrappers' options, the program's operands).
                if wrapper == "watch" && !wrap.exec && words.len() > i {
                    let script = joined_script(&words[i..]);
                    self.nested(&script, &mut moved, stdin, depth);
                    return;
                }
                self.judge_wrapped(&words[i..], &mut moved, stdin, depth, wrap);
                return;
            }
            if i >= words.len() {
                return;
            }
            if SCRIPT_WRAPPERS.contains(&wrapper.as_str()) && words.len() == i + 1 {
                let mut inner = folders.clone();
                let script = words[i].clone();
                if wrap.xargs {
                    // `echo .env | parallel cat`: the script's operands come from the input.
                    self.undecide(Construct::XargsInput, &script.typed);
                }
                self.nested(&script, &mut inner, stdin, depth);
                return;
            }
            if wrapper == "watch" && !wrap.exec {
                // watch joins its words and hands them to `sh -c` (`watch echo '$(cat .env)'`).
                let script = joined_script(&words[i..]);
                let mut inner = wrap.moved.clone().unwrap_or_else(|| folders.clone());
                self.nested(&script, &mut inner, stdin, depth);
                return;
            }
        }
        let program = program_name(&words[i].text);
        if self.functions.iter().any(|f| *f == words[i].text) {
            // A function runs its body where it is called, and its `cd` moves the caller.
            match wrap.moved.as_mut() {
                Some(moved) => self.call(&words[i].text, moved, stdin, depth),
                None => self.call(&words[i].text, folders, stdin, depth),
            }
        }
        let place = wrap.moved.unwrap_or_else(|| folders.clone());
        self.program(&program, &words[i + 1..], &place, stdin, wrap.xargs);
    }

    /// A wrapper's options, read by the one option walk, from `words[at]` on; the index of the
    /// wrapped command, or `None` when the wrapper was judged whole (a script option, `env -S`,
    /// `sudo -s`). An option the table does not know is read both ways: as taking the next
    /// word, and not.
    #[allow(clippy::too_many_arguments)]
    fn wrapper_options(
        &mut self,
        wrapper: &str,
        words: &[Val],
        at: usize,
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
        wrap: &mut Wrapping,
    ) -> Option<usize> {
        let spec = options::wrapper_spec(wrapper);
        let texts: Vec<&str> = words.iter().map(|v| v.text.as_str()).collect();
        let mut positionals = options::wrapper_positionals(wrapper);
        let mut then = Then::Command;
        let mut i = at;
        while i < words.len() {
            let val = &words[i];
            let value = val.text.as_str();
            if matches!(wrapper, "cmd" | "cmd.exe" | "command.com") {
                if cmd_script_option(value) {
                    let mut inner = folders.clone();
                    self.nested(&windows_script(&words[i + 1..]), &mut inner, stdin, depth);
                    return None;
                }
                if value.starts_with('/') {
                    i += 1;
                    continue;
                }
                break;
            }
            if wrapper == "env" && value == "-" {
                i += 1;
                continue;
            }
            if val.dynamic.is_some() && value.starts_with('-') {
                // `sudo -$x cat .env`: an option whose letters are not known.
                self.undecide(val.dynamic.unwrap_or(Construct::Variable), &val.typed);
            }
            let (found, next) = options::items(spec, &texts, i);
            let mut operand = false;
            for item in found {
                match item {
                    Item::Operand { .. } => operand = true,
                    Item::DoubleDash { .. } | Item::Flag { opt: Opt::Stop, .. } => {
                        return self.wrapped_after(words, next, then, folders, stdin, depth, wrap);
                    }
                    Item::Flag {
                        opt: Opt::ShellFlag,
                        ..
                    } => then = Then::Shell,
                    Item::Flag {
                        opt: Opt::FilesFlag,
                        ..
                    } => then = Then::Files,
                    Item::Flag { at, .. } => {
                        if matches!(wrapper, "watch") && matches!(texts[at], "-x" | "--exec")
                            || (texts[at].starts_with('-')
                                && !texts[at].starts_with("--")
                                && wrapper == "watch"
                                && texts[at].contains('x'))
                        {
                            wrap.exec = true;
                        }
                    }
                    Item::Value {
                        value: kind, place, ..
                    } => {
                        let given = match place {
                            At::Glued(text) => Some(Val {
                                text: text.to_owned(),
                                ..val.clone()
                            }),
                            At::Word(j) => words.get(j).cloned(),
                            At::Missing => None,
                        };
                        let Some(given) = given else { continue };
                        match kind {
                            Value::Text => {}
                            Value::Script => {
                                let mut inner =
                                    wrap.moved.clone().unwrap_or_else(|| folders.clone());
                                if wrap.xargs {
                                    self.undecide(Construct::XargsInput, &given.typed);
                                }
                                self.nested(&given, &mut inner, stdin, depth);
                                return None;
                            }
                            Value::SplitString => {
                                self.split_string(
                                    &given,
                                    &words[next.min(words.len())..],
                                    folders,
                                    stdin,
                                    depth,
                                    wrap,
                                );
                                return None;
                            }
                            Value::Chdir | Value::Root => {
                                // The last one wins, from where the wrapper started.
                                let place = wrap.moved.insert(folders.clone());
                                let literal = given.dynamic.is_none() && !given.glob;
                                match kind {
                                    Value::Chdir if literal => {
                                        place.change(Some(&given.text));
                                        place.dirs.truncate(1);
                                    }
                                    Value::Root
                                        if literal
                                            && given.text.trim_end_matches('/').is_empty() => {}
                                    _ => place.unknown = true,
                                }
                            }
                            Value::ListFile => {
                                // `xargs -a FILE`: the file is read, and names what runs.
                                self.check(&given, folders, Mode::Read);
                                wrap.xargs = true;
                            }
                            Value::Code => {
                                self.words_only(&given.text, folders);
                                self.undecide(Construct::InlineCode, &given.typed);
                            }
                            Value::PatternFile => {
                                self.check(&given, folders, Mode::Read);
                                self.undecide(Construct::ScriptFile, &given.typed);
                            }
                            _ => self.check(&given, folders, Mode::Read),
                        }
                    }
                    Item::Unknown {
                        at,
                        tails,
                        may_take_next,
                    } => {
                        for tail in tails {
                            let tail = Val {
                                text: tail.to_owned(),
                                ..words[at].clone()
                            };
                            self.check(&tail, folders, Mode::Existing);
                        }
                        if may_take_next && at + 1 < words.len() {
                            // The other reading: the option took the next word.
                            if wrap.forks == 0 {
                                self.undecide(Construct::Limit, &words[at].typed);
                            } else {
                                let mut other: Vec<Val> = words[..=at].to_vec();
                                other.extend_from_slice(&words[at + 2..]);
                                let mut inner = folders.clone();
                                let fresh = Wrapping {
                                    forks: wrap.forks - 1,
                                    ..Wrapping::default()
                                };
                                self.judge_wrapped(&other, &mut inner, stdin, depth, fresh);
                                wrap.forks -= 1;
                            }
                        }
                    }
                }
            }
            if !operand {
                i = next;
                continue;
            }
            if matches!(wrapper, "env" | "sudo" | "doas" | "dotenv") && is_assignment(value) {
                self.state_name(value.split('=').next().unwrap_or(""), &val.typed);
                if let Some(("PATH", v)) = value.split_once('=')
                    && path_searches_relative(v)
                {
                    self.undecide(Construct::ShellState, &val.typed);
                }
                if let Some((_, v)) = value.split_once('=')
                    && v.contains('/')
                {
                    self.check(&Val::literal(&val.typed, v), folders, Mode::Read);
                }
                i += 1;
                continue;
            }
            if positionals > 0 {
                // `flock FILE cmd`, `chroot DIR cmd`: the operand is opened.
                self.check(val, folders, Mode::Existing);
                if wrapper == "chroot"
                    && (val.dynamic.is_some() || !val.text.trim_end_matches('/').is_empty())
                {
                    // Every path of the wrapped command means a file under the new root.
                    wrap.moved.get_or_insert_with(|| folders.clone()).unknown = true;
                }
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
        self.wrapped_after(words, i, then, folders, stdin, depth, wrap)
    }

    /// What follows a wrapper's options: the wrapped command, or a shell command line
    /// (`sudo -s`), or files it edits (`sudo -e`).
    #[allow(clippy::too_many_arguments)]
    fn wrapped_after(
        &mut self,
        words: &[Val],
        at: usize,
        then: Then,
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
        wrap: &mut Wrapping,
    ) -> Option<usize> {
        let rest = &words[at.min(words.len())..];
        let place = wrap.moved.clone().unwrap_or_else(|| folders.clone());
        match then {
            Then::Command => Some(at),
            Then::Shell => {
                if !rest.is_empty() {
                    let mut inner = place;
                    self.nested(&windows_script(rest), &mut inner, stdin, depth);
                }
                None
            }
            Then::Files => {
                for file in rest {
                    self.check(file, &place, Mode::Read);
                }
                None
            }
        }
    }

    /// `env -S STRING ARGS…`: the string split as env splits it, then the rest, is the command.
    fn split_string(
        &mut self,
        given: &Val,
        rest: &[Val],
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
        wrap: &mut Wrapping,
    ) {
        if let Some(construct) = given.dynamic {
            self.words_only(&given.text, folders);
            self.undecide(construct, &given.typed);
            return;
        }
        let Some(split) = options::env_split_string(&given.text) else {
            // A string env would refuse; judged as shell words all the same.
            self.words_only(&given.text, folders);
            self.undecide(Construct::Unparsed, &given.typed);
            return;
        };
        // GNU env puts the words in place of `-S STRING` and reads its options again, so the
        // string may hold options too (`env -S '-C secrets cat key.json'`).
        let mut words: Vec<Val> = vec![Val::literal(&given.typed, "env")];
        words.extend(split.into_iter().map(|(text, dynamic)| Val {
            typed: given.typed.clone(),
            text,
            glob: false,
            dynamic: dynamic.then_some(Construct::Variable),
        }));
        words.extend_from_slice(rest);
        // Where env started; a `-C` before `-S` still applies unless the string has another.
        let mut inner = folders.clone();
        let again = Wrapping {
            xargs: wrap.xargs,
            forks: wrap.forks,
            moved: wrap.moved.clone(),
            ..Wrapping::default()
        };
        if depth > MAX_SCRIPT_DEPTH {
            self.undecide(Construct::Limit, &given.typed);
            return;
        }
        self.judge_wrapped(&words, &mut inner, stdin, depth + 1, again);
    }

    /// Builtins that set variables or shell options the walk relies on (`read HOME`,
    /// `shopt -s cdable_vars`, `set -P`, `cd -P`): what follows is undecidable.
    fn state_command(&mut self, name: &str, args: &[Val]) {
        let text = || {
            std::iter::once(name)
                .chain(args.iter().map(|v| v.typed.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        match name {
            "read" | "mapfile" | "readarray" | "getopts" | "printf" | "unset" | "export"
            | "declare" | "typeset" | "local" | "readonly" | "let" | "print" => {
                let assigns = name != "printf" || args.iter().any(|v| v.text.starts_with("-v"));
                if matches!(
                    name,
                    "read" | "mapfile" | "readarray" | "getopts" | "printf"
                ) && assigns
                    && args.iter().any(|v| v.text == "PATH")
                {
                    // `read PATH <<< .`: a value the walk does not see.
                    self.undecide(Construct::ShellState, &text());
                }
                for arg in args {
                    if matches!(name, "declare" | "typeset" | "local")
                        && arg.text.starts_with('-')
                        && arg.text.contains('n')
                    {
                        self.undecide(Construct::ShellState, &text());
                    }
                    let variable = arg.text.trim_start_matches('-');
                    self.state_name(variable.split('=').next().unwrap_or(""), &text());
                }
            }
            "set" => {
                let mut k = 0;
                while k < args.len() {
                    let option = args[k].text.as_str();
                    k += 1;
                    if option == "--" || option == "-" || !option.starts_with(['-', '+']) {
                        break;
                    }
                    let letters = &option[1..];
                    let mut safe = letters.chars().all(|c| "euxvfnCETbo".contains(c));
                    if letters.contains('o') {
                        // `-o name`, `-euo pipefail`: the option's name is the next word.
                        let value = args.get(k).map_or("", |v| v.text.as_str());
                        k += 1;
                        safe &= matches!(
                            value,
                            "" | "pipefail"
                                | "errexit"
                                | "nounset"
                                | "xtrace"
                                | "verbose"
                                | "noglob"
                                | "noclobber"
                                | "errtrace"
                                | "functrace"
                                | "noexec"
                                | "notify"
                        );
                    }
                    if !safe
                        || args[..k.min(args.len())]
                            .iter()
                            .any(|v| v.dynamic.is_some())
                    {
                        self.undecide(Construct::ShellState, &text());
                    }
                }
            }
            "shopt"
                if args.iter().any(|v| {
                    v.dynamic.is_some()
                        || (v.text.starts_with('-') && v.text.contains(['s', 'u', 'o']))
                }) =>
            {
                self.undecide(Construct::ShellState, &text());
            }
            "enable" if !args.is_empty() => self.undecide(Construct::ShellState, &text()),
            // `hash -p /bin/cat which`: a name now runs another program than the one judged.
            "hash"
                if args
                    .iter()
                    .any(|v| v.dynamic.is_some() || v.text.starts_with("-p")) =>
            {
                self.undecide(Construct::ShellState, &text())
            }
            // `cd -P`/`-e`/`-@`: the folder is resolved physically, not as the walk does.
            "cd" | "pushd"
                if args.iter().take_while(|v| v.text != "--").any(|v| {
                    v.text.starts_with('-') && v.text.len() > 1 && v.text.contains(['P', '@', 'e'])
                }) =>
            {
                self.undecide(Construct::ShellState, &text());
            }
            _ => {}
        }
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
            // `-File` and any prefix of it (`-f`, `-fi`, `-fil`): pwsh runs the script named.
            if powershell && value.len() >= 2 && "-file".starts_with(value.as_str()) {
                if let Some(file) = args.get(i + 1) {
                    self.check(file, folders, Mode::Read);
                    self.undecide(Construct::ScriptFile, &file.typed);
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
                // A script file the agent may have written can read any file (`bash -n` only
                // reads it for its syntax; pwsh's words are a command unless a script is named).
                let no_exec = args[..i].iter().any(|v| {
                    v.text.starts_with('-') && !v.text.starts_with("--") && v.text.contains('n')
                        || v.text == "--noexec"
                });
                let script = !powershell
                    || args[i].text.to_ascii_lowercase().ends_with(".ps1")
                    || folders
                        .dirs
                        .iter()
                        .any(|d| self.oracle.exists(&join(d, &args[i].text)));
                if !no_exec && script {
                    self.undecide(Construct::ScriptFile, &args[i].typed);
                }
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
}

/// Whether a program word names a file by its path rather than a program found on `PATH`
/// (system folders excepted): the file may be one the agent wrote.
fn runs_a_file(word: &str) -> bool {
    if !word.contains(['/', '\\']) {
        return false;
    }
    const SYSTEM: &[&str] = &[
        "/usr/",
        "/bin/",
        "/sbin/",
        "/lib/",
        "/opt/",
        "/nix/store/",
        "/snap/",
        "/etc/",
        "/System/",
        "/Library/",
        "/Applications/",
        "/run/current-system/",
    ];
    !SYSTEM.iter().any(|s| word.starts_with(s)) || word.contains("/../")
}

/// `cmd /c`, `/k`, `/r`: the rest is a script for cmd.
fn cmd_script_option(option: &str) -> bool {
    matches!(option.to_ascii_lowercase().as_str(), "/c" | "/k" | "/r")
}

/// Words joined with spaces into the script they make (`eval`'s words, what `watch` hands to
/// `sh -c`).
fn joined_script(rest: &[Val]) -> Val {
    Val {
        typed: rest
            .iter()
            .map(|v| v.typed.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        text: rest
            .iter()
            .map(|v| v.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        glob: false,
        dynamic: rest.iter().find_map(|v| v.dynamic),
    }
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
        text: rest.iter().map(piece).collect::<Vec<_>>().join(" "),
        ..joined_script(rest)
    }
}
