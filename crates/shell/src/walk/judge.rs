//! The judgement of one simple command once its words are expanded: wrappers, shells and
//! `eval`, `cd`, then what each program does with its operands (via [`crate::programs`]); the
//! tree walk in `mod.rs` hands every simple command here.

use super::*;

impl Walker<'_> {
    /// One simple command, after expansion: wrappers, shells, `eval`, `cd`, then the program.
    pub(super) fn judge(
        &mut self,
        words: &[Val],
        folders: &mut Folders,
        stdin: &Stdin,
        depth: usize,
    ) {
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
            self.state_command(&name, args);
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
                    self.state_name(value.split('=').next().unwrap_or(""), &val.typed);
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
