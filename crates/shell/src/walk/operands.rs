//! What a program that is not a wrapper, shell or `cd` does with its operands: readers, writers,
//! `find`, `git` settings, interpreters' inline scripts and PowerShell, judged through
//! [`crate::programs`] and checked against the oracle.

use super::*;

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
        if matches!(name, "tig" | "lazygit" | "gitui" | "gitk") {
            // Terminal git browsers show every tracked file's diffs and blobs.
            self.check(&Val::literal(name, "."), folders, Mode::Tree);
            self.undecide(Construct::RecursiveRead, &command_text());
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
        if let Some((at, sub)) = &git_sub {
            self.git_content(sub, &args[at + 1..], folders);
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
                if is_file && name == "curl" && val.dynamic.is_none() {
                    self.curl_file(&val.typed, &val.text, &folder);
                } else if is_file {
                    self.check(val, &folder, Mode::Read);
                } else if matches!(name, "sed" | "awk" | "gawk" | "mawk" | "nawk")
                    && matches!(
                        args[k - 2].text.as_str(),
                        "-e" | "--expression" | "--source"
                    )
                    && (val.dynamic.is_some() || script_reads_files(name, &val.text))
                {
                    self.undecide(Construct::InlineCode, &val.typed);
                } else if name == "curl"
                    && let Some(file) = curl_file_in(&val.text)
                {
                    self.curl_file(&val.typed, file, &folder);
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
                if let Some(attached) = self.attached_option_value(name, val, &folder) {
                    if attached {
                        pattern_pending = false;
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
                    self.curl_file(&val.typed, file, &folder);
                    continue;
                }
                if val.dynamic.is_none() && !never_open {
                    self.check(val, &folder, Mode::Read);
                    // A value glued to an option whose syntax is not modelled (`make -pnf.env`,
                    // `--arg-file=.env`): every tail of a short-option bundle and the value of a
                    // long option is judged as a path when it names one.
                    for tail in option_tails(value) {
                        let tail = Val {
                            text: tail.to_owned(),
                            ..val.clone()
                        };
                        self.check(&tail, &folder, Mode::Existing);
                    }
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

    /// A value glued to a short option of a program whose options are known (`curl -d@f`,
    /// `curl -sT.env`, `sed -e1r.env`, `grep -e.env`): judged as that option's value.
    /// `Some(is_script)` when the word was handled.
    fn attached_option_value(&mut self, name: &str, val: &Val, folder: &Folders) -> Option<bool> {
        let text = val.text.as_str();
        if let Some((option, rest)) = text.split_once('=').filter(|_| text.starts_with("--")) {
            // `sed --expression=1r.env`, `awk --source=…`: a script glued with `=`.
            if matches!(name, "sed" | "awk" | "gawk" | "mawk" | "nawk")
                && matches!(option, "--expression" | "--source")
            {
                if val.dynamic.is_some() || script_reads_files(name, rest) {
                    self.undecide(Construct::InlineCode, &val.typed);
                }
                return Some(true);
            }
            return None;
        }
        if text.starts_with("--") || text.len() <= 2 || !text.starts_with('-') {
            return None;
        }
        if name == "curl" {
            // A bundle of flags: the first letter that takes a value takes the rest.
            for (at, letter) in text.char_indices().skip(1) {
                let rest = &text[at + letter.len_utf8()..];
                match curl_option(&format!("-{letter}")) {
                    None => continue,
                    Some(_) if rest.is_empty() => return None,
                    Some(true) => {
                        self.curl_file(&val.typed, rest, folder);
                        return Some(false);
                    }
                    Some(false) => {
                        if let Some(file) = curl_file_in(rest) {
                            self.curl_file(&val.typed, file, folder);
                        }
                        return Some(false);
                    }
                }
            }
            return None;
        }
        let (option, rest) = text.split_at_checked(2)?;
        let is_file = option_value(name, option)?;
        if is_file {
            let file = Val {
                text: rest.to_owned(),
                ..val.clone()
            };
            self.check(&file, folder, Mode::Read);
            return Some(matches!(option, "-f"));
        }
        let script = matches!(option, "-e") || (name == "grep" && option == "-e");
        if matches!(name, "sed" | "awk" | "gawk" | "mawk" | "nawk")
            && option == "-e"
            && (val.dynamic.is_some() || script_reads_files(name, rest))
        {
            self.undecide(Construct::InlineCode, &val.typed);
        }
        Some(script)
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
        let object_by_hash = matches!(sub, "show" | "cat-file")
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
            || matches!(sub, "fast-export" | "bundle" | "instaweb" | "daemon");
        if whole {
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

/// `git -c key=value` settings whose value git runs as a command.
/// The parts of an option word that may be a glued value: after each letter of a short-option
/// bundle (`-pnf.env`: `nf.env`, `f.env`, `.env`), or after the `=` of a long option.
fn option_tails(word: &str) -> Vec<&str> {
    if let Some(long) = word.strip_prefix("--") {
        return long
            .split_once('=')
            .map(|(_, value)| value)
            .filter(|value| !value.is_empty())
            .into_iter()
            .collect();
    }
    word.char_indices()
        .skip(2)
        .map(|(at, _)| &word[at..])
        .filter(|tail| !tail.is_empty())
        .collect()
}

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
        // `ARGV[1]=".env"` makes awk open a file named in the program; `@include` loads one.
        return [
            "getline", "system", "|", "ARGV", "ARGC", "@include", "@load", "ENVIRON",
        ]
        .iter()
        .any(|word| script.contains(word));
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
            // GNU sed takes the file name glued to the command too (`1r.env`).
            Some('r' | 'R' | 'w' | 'W' | 'e' | 'F' | 'v') => true,
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
