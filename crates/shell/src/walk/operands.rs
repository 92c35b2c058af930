//! What a program that is not a wrapper, shell or `cd` does with its operands: readers, writers,
//! `find`, `git` settings, interpreters' inline scripts and PowerShell, judged through
//! [`crate::programs`] and checked against the oracle.
//! One file on purpose: `program_operands` is one ordered pass of checks over a program's
//! words (some end it early, so the order is behaviour), and the methods below (options, git,
//! `find`, PowerShell) are its steps, called from this file alone.

use super::*;
use crate::options::{self, At, Item, Value};

impl Walker<'_> {
    /// The operands of a program that is not a wrapper, shell or `cd`; what it does to names
    /// is recorded first, and applies to every other command's operands.
    pub(super) fn program(
        &mut self,
        name: &str,
        args: &[Val],
        folders: &Folders,
        stdin: &Stdin,
        xargs: bool,
    ) {
        self.record_changes(name, args, folders);
        self.program_operands(name, args, folders, stdin, xargs);
        self.changes.current = 0;
    }

    fn program_operands(
        &mut self,
        name: &str,
        args: &[Val],
        folders: &Folders,
        stdin: &Stdin,
        xargs: bool,
    ) {
        let command_text = || {
            std::iter::once(name)
                .chain(args.iter().map(|v| v.typed.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if xargs && !NEVER_OPEN.contains(&name) {
            self.undecide(Construct::XargsInput, &command_text());
        }
        if RESPONSE_FILE_PROGRAMS.contains(&name)
            && let Some(list) = args.iter().find(|v| v.text.starts_with('@'))
        {
            // `gcc @args`: more arguments (files among them) come from the file.
            self.undecide(Construct::XargsInput, &list.typed);
        }
        let subcommand = args
            .iter()
            .map(|v| v.text.as_str())
            .find(|text| !text.starts_with(['-', '+']));
        if !is_known_program(name, subcommand) && !self.functions.iter().any(|f| f == name) {
            self.undecide(Construct::UnknownProgram, &command_text());
        }
        if matches!(
            name,
            "tee" | "cp" | "mv" | "install" | "ln" | "rsync" | "scp" | "dd" | "touch" | "truncate"
        ) && let Some(target) = args.iter().find(|v| {
            let path = v.text.strip_prefix("of=").unwrap_or(&v.text);
            !path.starts_with('-')
                && (super::loads_as_configuration(path) || super::loads_as_configuration(&v.typed))
        }) {
            // A hook, a git config, a dotfile: what later programs load and run.
            self.undecide(Construct::ScriptFile, &target.typed);
        }
        if name == "rsync"
            && let Some(option) = args.iter().find(|v| v.text.starts_with("--link-dest"))
        {
            // Unchanged files become hard links to the folder's (relative to the destination,
            // which the walk does not resolve): a protected or blocked file may get a new name.
            self.undecide(Construct::HardLink, &option.typed);
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
        if POWERSHELL_CODE_RUNNERS.contains(&name) {
            // `Invoke-Command -FilePath x.ps1`, `Import-Module ./m.psm1`, `Add-Type -Path x.dll`,
            // `Start-Process tool`: code from a file (or a program with hidden arguments) runs.
            self.undecide(Construct::ScriptFile, &command_text());
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
        if matches!(name, "curl" | "wget")
            && let Some(url) = args.iter().find(|v| {
                v.dynamic.is_some()
                    && !v
                        .typed
                        .trim_start_matches(['"', '\''])
                        .to_ascii_lowercase()
                        .starts_with("http")
            })
        {
            // `curl file://$(pwd)/.env`, `curl "$u"`: a URL whose scheme and path are not both
            // literal may be a file URL of any file.
            self.undecide(url.dynamic.unwrap_or(Construct::Variable), &url.typed);
        }
        // Includes their sources name (`<!ENTITY e SYSTEM ".env">` with `--noent`, XInclude,
        // an external DTD; LaTeX's `\input`, RST's `include`, `--embed-resources`) and DSLs
        // that run commands (`mlr put 'system(…)'`).
        let follows_includes = match name {
            "xmllint" => args.iter().any(|v| {
                matches!(
                    v.text.trim_start_matches('-'),
                    "noent"
                        | "xinclude"
                        | "loaddtd"
                        | "valid"
                        | "dtdattr"
                        | "postvalid"
                        | "dtdvalid"
                        | "schema"
                        | "relaxng"
                        | "schematron"
                        | "catalogs"
                        | "huge"
                )
            }),
            "pandoc" => !args.is_empty(),
            "mlr" => args.iter().any(|v| {
                matches!(v.text.as_str(), "put" | "filter" | "-s" | "--from-file")
                    || v.text.contains("system")
                    || v.text.contains("exec")
            }),
            _ => false,
        };
        if follows_includes {
            self.undecide(Construct::ScriptFile, &command_text());
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
        if matches!(
            name,
            "ed" | "red" | "ex" | "vi" | "vim" | "nvim" | "view" | "gvim"
        ) && !matches!(stdin, Stdin::Terminal)
        {
            // An editor fed from a pipe or a here-string runs its input as commands
            // (`ed -s x <<< '!cat .env'`, `printf 'r .env' | vi -es x`).
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
        // A script or source file runs or is compiled (`python x.py`, `node x.js`,
        // `source x.sh`, `make`, `npm run x`, `gcc -E x.c`): the agent may have written it, and
        // it can read any file (a compiler reads what its sources `#include`).
        if let Some(what) = self.runs_files(name, args, stdin, interpreter) {
            self.undecide(Construct::ScriptFile, &what);
        }
        if name == "find" {
            self.find(args, folders, stdin);
            return;
        }
        if matches!(name, "tig" | "lazygit" | "gitui" | "gitk") {
            // Terminal git browsers show every tracked file's diffs and blobs.
            self.check(&Val::literal(name, "."), folders, Mode::Tree);
            self.undecide(Construct::RecursiveRead, &command_text());
        }
        let git_sub = if name == "git" {
            options::git_subcommand(&texts).map(|at| (at, args[at].text.clone()))
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
        if let Some((at, sub)) = &git_sub {
            // Code an earlier turn may have written into the repository runs: a hook, or a
            // config setting git runs as a command (`core.fsmonitor` on `git status`).
            if folders
                .dirs
                .iter()
                .any(|dir| self.oracle.git_runs_workspace_code(dir, sub))
            {
                self.undecide(Construct::ScriptFile, &command_text());
            }
            // `git rebase -x 'cat .env'`, `git bisect run cmd`: git runs a command it is given.
            let rest: Vec<&str> = texts[at + 1..].to_vec();
            let runs_given = match sub.as_str() {
                // `--tree-filter`, `--index-filter`, `--msg-filter`, ...: shell commands.
                "filter-branch" => true,
                "rebase" => rest
                    .iter()
                    .any(|t| *t == "-x" || t.starts_with("-x") || t.starts_with("--exec")),
                "bisect" => rest.contains(&"run"),
                "submodule" => rest.contains(&"foreach"),
                _ => false,
            };
            if runs_given {
                self.undecide(Construct::InlineCode, &command_text());
            }
        }
        if let Some((at, sub)) = &git_sub {
            self.git_content(sub, &args[at + 1..], folders);
            self.git_copies(sub, &args[..*at], &args[at + 1..], folders);
            // `git config alias.st '!cat .env'`, `core.pager`, `core.fsmonitor`,
            // `diff.external`: a setting that runs a command changes what every later git
            // command of this line, or of the next one, does.
            let rest = &args[at + 1..];
            let reads_only = rest.iter().any(|v| {
                matches!(
                    v.text.as_str(),
                    "--get" | "--get-all" | "--get-regexp" | "-l" | "--list" | "--show-origin"
                )
            });
            if sub == "config"
                && !reads_only
                && let Some(setting) = rest.iter().find(|v| {
                    !v.text.starts_with('-')
                        && (v.dynamic.is_some() || git_setting_runs_commands(&v.text))
                })
            {
                self.undecide(Construct::InlineCode, &setting.typed);
            }
        }
        let exempt = self.changes_exempt;
        self.changes_exempt = name == "git";
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
            let value = val.text.as_str();
            if git_sub.as_ref().is_some_and(|(at, _)| *at + 1 == k) {
                continue; // the subcommand itself
            }
            if !after_double_dash && value == "--" {
                after_double_dash = true;
                continue;
            }
            if !after_double_dash && options::is_option_word(value) {
                let before_sub = git_sub.as_ref().is_none_or(|(at, _)| k - 1 < *at);
                let spec = match name {
                    "git" if before_sub => Some(options::git_specs().0),
                    "git" => Some(options::git_specs().1),
                    _ => options::program_spec(name),
                };
                if spec.is_none()
                    && (value.eq_ignore_ascii_case("-path")
                        || value.eq_ignore_ascii_case("-literalpath"))
                {
                    if let Some(file) = args.get(k) {
                        self.check(file, &folder, Mode::Read);
                    }
                    k += 1;
                    continue;
                }
                let (found, next) = options::items(spec, &texts, k - 1);
                k = next;
                for item in found {
                    self.program_option(name, args, item, &mut folder, &mut pattern_pending);
                }
                continue;
            }
            if pattern_pending && name == "yq" && matches!(value, "eval" | "e" | "eval-all" | "ea")
            {
                continue; // yq's subcommand: the filter follows
            }
            if pattern_pending {
                pattern_pending = false;
                if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "sed")
                    && (val.dynamic.is_some() || script_reads_files(name, value))
                {
                    self.undecide(Construct::InlineCode, &val.typed);
                }
                if is_jq(name) && (val.dynamic.is_some() || jq_loads_files(value)) {
                    // `jq 'import "secrets/key" as $k; .'`, `yq 'load(".env")'`: the filter
                    // opens files found through `-L` folders and the default search path.
                    self.undecide(Construct::InlineCode, &val.typed);
                }
                // An option before it may have given the pattern or script in a form not
                // modelled (`grep -ieS .env`, `--regexp=S`, `--reg=S`, `sed -nep .env`,
                // `--expr=p`): then this word is a file. Judged as one when it exists.
                let option_before = args[..k - 1]
                    .iter()
                    .any(|v| v.text.starts_with('-') && v.text.len() > 1);
                if option_before && val.dynamic.is_none() && !never_open {
                    self.check(val, &folder, Mode::Existing);
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
                self.curl_file(&val.typed, file, &folder);
                continue;
            }
            let path_like = value.contains('/') || value.contains('\\');
            if never_open {
                continue;
            }
            // `git grep S HEAD`, `git grep S '*.json'`, `git archive HEAD ':!x'`: an operand that
            // names no existing path is a revision (every blob of it) or a pathspec with globs
            // or magic, which the walk does not expand: what it reads cannot be judged.
            if git_tree
                && val.dynamic.is_none()
                && !folder
                    .dirs
                    .iter()
                    .any(|d| self.oracle.exists(&join(d, value)))
            {
                self.undecide(Construct::RecursiveRead, &val.typed);
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
        self.changes_exempt = exempt;
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
        // `rg x`, `git grep x`: no folder operand means the whole tree; so does `grep -r x`,
        // whatever its input (GNU grep searches the working folder).
        let grep_recursive = matches!(name, "grep" | "egrep" | "fgrep" | "zgrep") && recursive;
        if operands == 0
            && (grep_recursive
                || (matches!(stdin, Stdin::Terminal)
                    && (matches!(name, "rg" | "ag" | "ack") || git_tree)))
        {
            self.check(&Val::literal(name, "."), &folder, Mode::Tree);
        }
    }

    /// The command text when `name` runs a script or source file (or a build that does).
    fn runs_files(
        &self,
        name: &str,
        args: &[Val],
        stdin: &Stdin,
        interpreter: bool,
    ) -> Option<String> {
        let text = || {
            std::iter::once(name)
                .chain(args.iter().map(|v| v.typed.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let informational = |v: &Val| {
            matches!(
                v.text.as_str(),
                "--version"
                    | "-V"
                    | "-v"
                    | "--help"
                    | "-h"
                    | "-VV"
                    | "-dumpversion"
                    | "-dumpmachine"
            ) || v.text.starts_with("-print-")
                || v.text.starts_with("--print")
        };
        let operands = args
            .iter()
            .filter(|v| !options::is_option_word(&v.text) || v.text == "-")
            .count();
        let runs = if interpreter && !matches!(name, "sqlite3" | "psql" | "mysql" | "duckdb") {
            !args.is_empty() && !args.iter().all(informational)
        } else if matches!(name, "source" | ".") {
            !args.is_empty()
        } else if options::is_compiler(name) {
            // Sources named, or read from the input (`cpp < x.c`, `gcc -E -x c -`).
            (operands > 0 || !matches!(stdin, Stdin::Terminal))
                && (args.is_empty() || !args.iter().all(informational))
        } else {
            let texts: Vec<&str> = args.iter().map(|v| v.text.as_str()).collect();
            runs_workspace_code(name, &texts)
        };
        runs.then(text)
    }

    /// One item of the option walk for a program's word: a value is judged as what the
    /// program makes of it (a file, a list of files, a script, a folder to move to, code); an
    /// option the table does not know has every possible glued value judged as a path.
    fn program_option(
        &mut self,
        name: &str,
        args: &[Val],
        item: Item,
        folder: &mut Folders,
        pattern_pending: &mut bool,
    ) {
        let never_open = NEVER_OPEN.contains(&name);
        match item {
            Item::Value {
                at, value, place, ..
            } => {
                let word = &args[at];
                let given = match place {
                    At::Glued(text) => Val {
                        text: text.to_owned(),
                        ..word.clone()
                    },
                    At::Word(j) => match value {
                        // `jq --rawfile NAME FILE`: the file is the word after the name.
                        Value::NamedFile => match args.get(j + 1) {
                            Some(file) => file.clone(),
                            None => return,
                        },
                        _ => args[j].clone(),
                    },
                    At::Missing => return,
                };
                self.option_value(name, value, &given, folder, pattern_pending);
            }
            Item::Unknown { at, tails, .. } => {
                let val = &args[at];
                if val.dynamic.is_some() || never_open {
                    return;
                }
                self.check(val, folder, Mode::Read);
                // A value glued to an option whose syntax is not modelled (`make -pnf.env`,
                // `--arg-file=.env`): every tail of a short-option bundle and the value of a
                // long option is judged as a path when it names one.
                for tail in tails {
                    if name == "curl"
                        && let Some(file) = curl_file_in(tail)
                    {
                        self.curl_file(&val.typed, file, folder);
                    }
                    let tail = Val {
                        text: tail.to_owned(),
                        ..val.clone()
                    };
                    self.check(&tail, folder, Mode::Existing);
                }
            }
            Item::Flag { .. } | Item::DoubleDash { .. } | Item::Operand { .. } => {}
        }
    }

    /// The value of a program's option, judged as what the table says it is.
    fn option_value(
        &mut self,
        name: &str,
        value: Value,
        given: &Val,
        folder: &mut Folders,
        pattern_pending: &mut bool,
    ) {
        let script_program = matches!(name, "sed" | "awk" | "gawk" | "mawk" | "nawk");
        match value {
            Value::Text | Value::NamedText => {}
            Value::File | Value::NamedFile | Value::Script | Value::SplitString => {
                self.check(given, folder, Mode::Read)
            }
            Value::ListFile => {
                self.check(given, folder, Mode::Read);
                if name != "wget" {
                    self.undecide(Construct::XargsInput, &given.typed);
                }
            }
            Value::Pattern => {
                *pattern_pending = false;
                if script_program
                    && (given.dynamic.is_some() || script_reads_files(name, &given.text))
                {
                    self.undecide(Construct::InlineCode, &given.typed);
                }
                if is_jq(name) && (given.dynamic.is_some() || jq_loads_files(&given.text)) {
                    self.undecide(Construct::InlineCode, &given.typed);
                }
            }
            Value::PatternFile => {
                *pattern_pending = false;
                self.check(given, folder, Mode::Read);
                if script_program || is_jq(name) {
                    // `awk -f prog.awk`, `sed -f x.sed`, `jq -f x.jq`: a program in a file the
                    // agent may have written, which can open any file.
                    self.undecide(Construct::ScriptFile, &given.typed);
                }
            }
            Value::CurlData => {
                if given.dynamic.is_none()
                    && let Some(file) = curl_file_in(&given.text)
                {
                    self.curl_file(&given.typed, file, folder);
                }
            }
            Value::CurlFile => {
                if given.dynamic.is_some() {
                    self.check(given, folder, Mode::Read);
                } else {
                    self.curl_file(&given.typed, &given.text, folder);
                }
            }
            Value::GitSetting => {
                if git_setting_runs_commands(&given.text) || given.dynamic.is_some() {
                    self.words_only(&given.text, folder);
                    self.undecide(Construct::InlineCode, &given.typed);
                }
            }
            Value::Code => {
                self.words_only(&given.text, folder);
                self.undecide(Construct::InlineCode, &given.typed);
            }
            Value::Chdir => {
                if given.dynamic.is_some() || given.glob {
                    folder.unknown = true;
                } else {
                    folder.change(Some(&given.text));
                    folder.dirs.truncate(1);
                }
            }
            Value::Root => folder.unknown = true,
        }
    }

    /// A file curl opens: curl expands `{a,b}` and `[a-z]` in upload names and URLs itself, and
    /// takes `-F` file names in double quotes.
    fn curl_file(&mut self, typed: &str, file: &str, folder: &Folders) {
        let file = match file.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(quoted),
            None => file,
        };
        if file.contains(['{', '[']) {
            self.undecide(Construct::Unparsed, typed);
        }
        self.check(&Val::literal(typed, file), folder, Mode::Read);
    }

    /// git subcommands that print file contents (`diff`, `show`, `log -p`, `stash show -p`,
    /// `format-patch`, `cat-file --batch-all-objects`, `fast-export`): with no pathspec they
    /// print every tracked file's, blocked ones included (`.rooignore` is not `.gitignore`), so
    /// they are a read of the whole tree, as `git grep` is: undecidable, or blocked when the
    /// tree's contents are.
    fn git_content(&mut self, sub: &str, args: &[Val], folders: &Folders) {
        let texts: Vec<&str> = args.iter().map(|v| v.text.as_str()).collect();
        let has = |list: &[&str]| {
            texts.iter().take_while(|t| **t != "--").any(|t| {
                list.iter()
                    .any(|o| t == o || (o.starts_with("--") && t.starts_with(&format!("{o}="))))
            })
        };
        let patch = has(&[
            "-p",
            "-u",
            "--patch",
            "-W",
            "--function-context",
            "--word-diff",
            "--color-words",
            "--patch-with-stat",
            "--patch-with-raw",
            "--cc",
            "-c",
            "--full-diff",
            "--binary",
            "--ext-diff",
            "--textconv",
            "-S",
            "-G",
            "--pickaxe-regex",
            "-L",
            "--unified",
            "--interactive",
            "-i",
        ]) || texts.iter().take_while(|t| **t != "--").any(|t| {
            (t.starts_with("-U")
                || t.starts_with("-S")
                || t.starts_with("-G")
                || t.starts_with("-L"))
                && t.len() > 2
        });
        let quiet = has(&[
            "--stat",
            "--numstat",
            "--shortstat",
            "--name-only",
            "--name-status",
            "--summary",
            "--raw",
            "--quiet",
            "-s",
            "--no-patch",
            "--dirstat",
            "--compact-summary",
            "--check",
        ]);
        let first = texts.iter().find(|t| !t.starts_with('-')).copied();
        let prints = match sub {
            "diff" | "difftool" | "diff-files" => patch || !quiet,
            "diff-tree" | "diff-index" | "log" | "whatchanged" | "reflog" | "request-pull" => patch,
            "show" | "format-patch" | "fast-export" | "range-diff" | "bundle" | "instaweb"
            | "send-email" | "daemon" => true,
            // Objects of the whole repository on the output, uncompressed with
            // `pack.compression=0` (`git -c pack.compression=0 pack-objects --stdout --revs`),
            // served, or merged with their contents printed (`merge-tree BASE A B`); a blob
            // written to a file (`unpack-file`) or to an editor (`replace --edit`).
            "pack-objects" | "upload-pack" | "upload-archive" | "http-backend" | "merge-tree"
            | "unpack-file" | "replace" => true,
            "stash" => match first {
                Some("show") => patch,
                Some("list") => patch,
                _ => false,
            },
            "cat-file" => {
                has(&["--batch", "--batch-all-objects", "--batch-command"])
                    || !has(&["-t", "-s", "-e", "--batch-check"])
            }
            "add" | "checkout" | "reset" | "restore" | "commit" => {
                has(&["-p", "--patch", "-i", "--interactive"])
            }
            "am" => has(&["--show-current-patch"]),
            _ => false,
        };
        if !prints {
            return;
        }
        // A pathspec after `--`, an operand that names an existing path, or `REV:path`
        // limits what is printed; the operands are judged as trees by the caller.
        let dashes = texts.iter().position(|t| *t == "--");
        // Pathspec magic (`:!src`, `:(exclude)`, `:/`) and globs (`*.json` crosses folders in
        // git) do not limit the way a path does.
        let magic = args.iter().skip(dashes.map_or(0, |at| at + 1)).any(|v| {
            // Quoted or not: git matches the glob itself.
            v.text.contains(['*', '?', '[']) || v.text.starts_with(':') || v.dynamic.is_some()
        });
        let limited = !magic
            && match dashes {
                Some(at) => texts[at + 1..].iter().any(|t| !t.is_empty()),
                None => args.iter().any(|v| {
                    !v.text.starts_with('-')
                        && v.dynamic.is_none()
                        && (v.text.split_once(':').is_some_and(|(rev, path)| {
                            !rev.is_empty() && !path.is_empty() && !path.starts_with('/')
                        }) || folders
                            .dirs
                            .iter()
                            .any(|d| self.oracle.exists(&join(d, &v.text))))
                }),
            };
        // An object named by hash (`git show 1a2b3c`, `git cat-file -p 1a2b3c`) may be any
        // blob, whatever the pathspec.
        let object_by_hash = matches!(sub, "show" | "cat-file" | "unpack-file")
            && texts.iter().take(dashes.unwrap_or(texts.len())).any(|t| {
                t.len() >= 4
                    && !t.starts_with('-')
                    && t.split(['^', '~', ':'])
                        .next()
                        .is_some_and(|h| h.len() >= 4 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                    && !t.contains(':')
            });
        let whole = !limited
            || object_by_hash
            || matches!(
                sub,
                "fast-export"
                    | "bundle"
                    | "instaweb"
                    | "daemon"
                    | "pack-objects"
                    | "upload-pack"
                    | "upload-archive"
                    | "http-backend"
            );
        if whole {
            let snippet = format!("git {sub} {}", texts.join(" "));
            self.check(&Val::literal(&snippet, "."), folders, Mode::Tree);
            self.undecide(Construct::RecursiveRead, snippet.trim_end());
        }
    }

    /// git subcommands that copy tracked files (blocked ones included: `.rooignore` is not
    /// `.gitignore`) to where the rules do not reach them: outside the workspace, or under a
    /// new prefix that anchored rules (`config/private.json`) do not match. `git clone .`,
    /// `git worktree add`, `git checkout-index --prefix=`, `git read-tree -u --prefix=`,
    /// `git push`/`git remote add` to a local path, `--work-tree=DIR` of a checkout. Read as
    /// the whole tree, as `git archive` is: undecidable at least.
    fn git_copies(&mut self, sub: &str, global: &[Val], args: &[Val], folders: &Folders) {
        let texts: Vec<&str> = args.iter().map(|v| v.text.as_str()).collect();
        let operands: Vec<&Val> = args
            .iter()
            .filter(|v| !options::is_option_word(&v.text))
            .collect();
        let has = |name: &str| {
            texts
                .iter()
                .any(|t| *t == name || t.starts_with(&format!("{name}=")))
        };
        let local = |v: &Val| {
            if v.dynamic.is_some() {
                return true;
            }
            let t = v.text.as_str();
            if t.to_ascii_lowercase().starts_with("file:") {
                return true;
            }
            if t.contains("://") {
                return false;
            }
            // `host:path` and `user@host:path` are remote (scp syntax), unless a `/` comes
            // before the colon.
            let scp_like = t
                .find(':')
                .is_some_and(|colon| !t[..colon].contains('/') && colon > 1);
            !scp_like
        };
        let first = operands.first().map(|v| v.text.as_str());
        let copies = match sub {
            "clone" => operands.first().is_some_and(|v| local(v)) || has("--reference"),
            "worktree" => first == Some("add"),
            "checkout-index" => has("--prefix"),
            "read-tree" => has("--prefix") && (has("-u") || has("--reset")),
            "submodule" => first == Some("add") && operands.get(1).is_some_and(|v| local(v)),
            "push" | "send-pack" | "fetch" | "pull" => operands.iter().any(|v| {
                local(v)
                    && (v.text.starts_with(['/', '.', '~'])
                        || v.text.to_ascii_lowercase().starts_with("file:")
                        || folders
                            .dirs
                            .iter()
                            .any(|d| self.oracle.exists(&join(d, &v.text))))
            }),
            "remote" => {
                matches!(first, Some("add" | "set-url"))
                    && operands
                        .last()
                        .is_some_and(|v| local(v) && operands.len() >= 3)
            }
            _ => false,
        };
        let work_tree_write = matches!(
            sub,
            "checkout"
                | "restore"
                | "reset"
                | "switch"
                | "stash"
                | "merge"
                | "pull"
                | "rebase"
                | "cherry-pick"
                | "revert"
                | "checkout-index"
                | "read-tree"
                | "am"
                | "apply"
        ) && global
            .iter()
            .any(|v| v.text == "--work-tree" || v.text.starts_with("--work-tree="));
        if copies || work_tree_write {
            let snippet = format!("git {sub} {}", texts.join(" "));
            self.check(&Val::literal(&snippet, "."), folders, Mode::Tree);
            self.undecide(Construct::RecursiveRead, snippet.trim_end());
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
            if matches!(v.text.as_str(), "-execdir" | "-okdir") {
                // The command runs in each match's folder: its relative names are not the
                // start folder's.
                self.undecide(Construct::DynamicDirectory, &v.typed);
            }
            if v.text == "-files0-from"
                && let Some(list) = args.get(k)
            {
                self.check(list, folders, Mode::Read);
                self.undecide(Construct::XargsInput, &list.typed);
                k += 1;
                continue;
            }
            if matches!(v.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let end = args[k..]
                    .iter()
                    .position(|w| matches!(w.text.as_str(), ";" | "+"))
                    .map_or(args.len(), |p| k + p);
                let inner: Vec<Val> = args[k..end].to_vec();
                // `{}` is each path under a start point: the command is judged with the start
                // point in its place too, so what it does to the tree is seen (`find .roo
                // -exec ln {} x \;` links protected files).
                let places: Vec<Val> = if starts.is_empty() {
                    vec![Val::literal("find", ".")]
                } else {
                    starts.iter().map(|v| (*v).clone()).collect()
                };
                let mut readings = vec![inner.clone()];
                if inner.iter().any(|v| v.text.contains("{}")) {
                    for place in &places {
                        readings.push(
                            inner
                                .iter()
                                .map(|v| {
                                    if v.text.contains("{}") {
                                        Val {
                                            text: v.text.replace("{}", &place.text),
                                            dynamic: v.dynamic.or(place.dynamic),
                                            glob: v.glob || place.glob,
                                            ..v.clone()
                                        }
                                    } else {
                                        v.clone()
                                    }
                                })
                                .collect(),
                        );
                    }
                }
                for reading in readings {
                    let mut inner_folders = folders.clone();
                    self.judge(&reading, &mut inner_folders, stdin, 0);
                }
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
                // `New-Item -ItemType SymbolicLink -Path x -Value .env`: the value of a new
                // link (or of a new file's text, judged the same way: blocking more is safe)
                // is the target it names.
                let link_target = matches!(name, "new-item" | "ni")
                    && matches!(param.as_str(), "-value" | "-target");
                if path_param || link_target {
                    let mode = if link_target {
                        // A link to a folder opens the whole tree under the new name.
                        Mode::Tree
                    } else if param.starts_with("-destination") {
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
        // Each piece keeps its own typed form when the word splits alike both ways, so a
        // Windows path (`.\README.md,.\.e*`, backslashes the shell ate) is judged per piece.
        let texts: Vec<&str> = val.text.split(',').collect();
        let typed: Vec<&str> = val.typed.split(',').collect();
        for (index, piece) in texts.iter().enumerate() {
            let piece = piece.trim().trim_matches(['\'', '"']);
            if piece.is_empty() {
                continue;
            }
            let typed_piece = match typed.get(index) {
                Some(typed_piece) if typed.len() == texts.len() => typed_piece.trim(),
                _ => val.typed.as_str(),
            };
            let glob = val.glob || piece.contains(['*', '?', '[']);
            let mut one = Val::literal(typed_piece, piece);
            one.glob = glob;
            self.check(&one, folders, mode);
        }
    }
}

/// jq and the programs that read its filter language (yq wraps jq or has its own `load`).
fn is_jq(program: &str) -> bool {
    matches!(program, "jq" | "gojq" | "jaq" | "yq" | "xq" | "tomlq")
}

/// Whether a jq (or yq) filter can open files by itself: `import`/`include` of a module or
/// data file, yq's `load`/`load_str`/..., `input_filename`-free `$__loc__` tricks aside.
fn jq_loads_files(filter: &str) -> bool {
    ["import", "include", "load", "modulemeta", "get_search_list"]
        .iter()
        .any(|word| filter.contains(word))
}

/// Whether an awk or sed program can open files by itself (`getline < f`, `system()`, sed's
/// `r`/`R`/`w`/`W`/`e` commands and the `e`/`w` flags of `s`).
fn script_reads_files(program: &str, script: &str) -> bool {
    if program != "sed" {
        // `ARGV[1]=".env"` makes awk open a file named in the program; `@include` loads one.
        return [
            "getline", "system", "|", "ARGV", "ARGC", "@include", "@load", "ENVIRON",
        ]
        .iter()
        .any(|word| script.contains(word));
    }
    sed_opens_files(script)
}

/// Whether a sed script reads or writes a file or runs a command (`r`, `R`, `w`, `W`, `e`, the
/// `e` and `w` flags of `s`), read as GNU sed parses it: addresses (`1`, `$`, `0~2`, `/re/I`,
/// `\%re%`, ranges with `+N` and `~N`), `!`, blocks, and the commands whose arguments run to
/// the end of the line. A script it cannot follow counts as one that does.
fn sed_opens_files(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    // Skips a regex closed by `delim` from `i` (after the opener); `false` when it never closes.
    let skip_regex = |i: &mut usize, delim: char| -> bool {
        while *i < chars.len() {
            match chars[*i] {
                '\\' => *i += 2,
                c if c == delim => {
                    *i += 1;
                    return true;
                }
                '\n' if delim != '\n' => return false,
                _ => *i += 1,
            }
        }
        false
    };
    let skip_blanks = |i: &mut usize| {
        while *i < chars.len() && matches!(chars[*i], ' ' | '\t') {
            *i += 1;
        }
    };
    let skip_line = |i: &mut usize| {
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
    };
    // One address at `i`; `false` when it is not one sed takes.
    let address = |i: &mut usize, second: bool| -> bool {
        match chars.get(*i) {
            Some(c) if c.is_ascii_digit() => {
                while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
                    *i += 1;
                }
                if chars.get(*i) == Some(&'~') {
                    *i += 1;
                    while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
                        *i += 1;
                    }
                }
                true
            }
            Some('+' | '~') if second => {
                *i += 1;
                while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
                    *i += 1;
                }
                true
            }
            Some('$') => {
                *i += 1;
                true
            }
            Some('/') | Some('\\') => {
                let delim = if chars[*i] == '/' {
                    *i += 1;
                    '/'
                } else {
                    let Some(&d) = chars.get(*i + 1) else {
                        return false;
                    };
                    *i += 2;
                    d
                };
                if !skip_regex(i, delim) {
                    return false;
                }
                while chars.get(*i).is_some_and(|c| matches!(c, 'I' | 'M')) {
                    *i += 1;
                }
                true
            }
            _ => true, // no address
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || matches!(c, ';' | '}') {
            i += 1;
            continue;
        }
        if c == '#' {
            skip_line(&mut i);
            continue;
        }
        if !address(&mut i, false) {
            return true;
        }
        skip_blanks(&mut i);
        if chars.get(i) == Some(&',') {
            i += 1;
            skip_blanks(&mut i);
            let before = i;
            if !address(&mut i, true) || i == before {
                return true;
            }
        }
        skip_blanks(&mut i);
        while chars.get(i) == Some(&'!') {
            i += 1;
            skip_blanks(&mut i);
        }
        let Some(&command) = chars.get(i) else {
            return false;
        };
        i += 1;
        match command {
            '{' | '}' | ';' => {}
            'r' | 'R' | 'w' | 'W' | 'e' => return true,
            // Text to the end of the line (and lines continued with a backslash).
            'a' | 'i' | 'c' => loop {
                skip_line(&mut i);
                if i >= 1 && chars.get(i - 1) == Some(&'\\') && i < chars.len() {
                    i += 1;
                    continue;
                }
                break;
            },
            ':' | 'b' | 't' | 'T' => {
                while i < chars.len() && !matches!(chars[i], '\n' | ';') {
                    i += 1;
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                skip_blanks(&mut i);
                while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
            's' | 'y' => {
                let Some(&delim) = chars.get(i) else {
                    return true;
                };
                if delim == '\n' || delim == '\\' {
                    return true;
                }
                i += 1;
                if !skip_regex(&mut i, delim) || !skip_regex(&mut i, delim) {
                    return true;
                }
                if command == 's' {
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                        if matches!(chars[i], 'e' | 'w' | 'W') {
                            return true;
                        }
                        if !(chars[i].is_ascii_digit()
                            || matches!(chars[i], 'g' | 'p' | 'i' | 'I' | 'm' | 'M' | ' ' | '\t'))
                        {
                            return true;
                        }
                        i += 1;
                    }
                }
            }
            _ => return true,
        }
    }
    false
}
