//! What programs do with their operands: readers, recursive readers, pattern-first programs,
//! wrappers, shells, interpreters, remote runners, build tools that run workspace code, and
//! PowerShell's named parameters. Option tables live in `options.rs`.
//! One file on purpose: it is the table of program knowledge (lists and small predicates looked up
//! by name), read top to bottom; splitting it would scatter one list.

/// Programs whose operands name files they read, copy, execute or write (the original's 13
/// readers plus the common ones it missed). Interpreters are read from [`INTERPRETERS`], which
/// the walk also counts as readers.
pub const READERS: &[&str] = &[
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "grep",
    "awk",
    "sed",
    "get-content",
    "gc",
    "type",
    "select-string",
    "sls",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "gawk",
    "mawk",
    "nawk",
    "nl",
    "tac",
    "od",
    "xxd",
    "hexdump",
    "hd",
    "strings",
    "base64",
    "base32",
    "basenc",
    "bat",
    "batcat",
    "jq",
    "yq",
    "cut",
    "sort",
    "uniq",
    "diff",
    "cmp",
    "comm",
    "wc",
    "paste",
    "join",
    "fold",
    "fmt",
    "pr",
    "expand",
    "unexpand",
    "rev",
    "tr",
    "column",
    "iconv",
    "file",
    "stat",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "zcat",
    "bzcat",
    "xzcat",
    "zstdcat",
    "lz4cat",
    "zless",
    "zmore",
    "zgrep",
    "zegrep",
    "zfgrep",
    "zdiff",
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "zstd",
    "lz4",
    "zip",
    "unzip",
    "tar",
    "7z",
    "7za",
    "cpio",
    "ar",
    "cp",
    "mv",
    "ln",
    "rsync",
    "scp",
    "sftp",
    "install",
    "dd",
    "tee",
    "split",
    "csplit",
    "vi",
    "vim",
    "nvim",
    "view",
    "nano",
    "emacs",
    "ed",
    "ex",
    "code",
    "open",
    "xdg-open",
    "source",
    ".",
    "curl",
    "wget",
    "openssl",
    "gpg",
    "readlink",
    "realpath",
    "git",
    "patch",
    "xmllint",
    "plutil",
    "look",
    "shuf",
    "truncate",
    "rm",
    "shred",
    "touch",
    "chmod",
    "chown",
    "ls",
    "find",
    "du",
    "tree",
    "pandoc",
    "pdftotext",
    "exiftool",
    "mail",
    "mutt",
    "nc",
    "ncat",
    "socat",
    "xclip",
    "xsel",
    "pbcopy",
    "vimdiff",
    "colordiff",
    "sdiff",
    "diff3",
    "wdiff",
    "bsdtar",
    "pigz",
    "pv",
    "dos2unix",
    "unix2dos",
    "envsubst",
    "m4",
    "cpp",
    "tidy",
    "yamllint",
    "jsonlint",
    "csvlook",
    "mlr",
    "import-csv",
    "import-clixml",
    "get-filehash",
    "format-hex",
    "copy-item",
    "copy",
    "move-item",
    "gci",
    "get-childitem",
    "cpi",
    "mi",
    "ipcsv",
    "more.com",
    "findstr",
    "find.exe",
    "certutil",
    "compress-archive",
    "expand-archive",
    "get-item",
    "gi",
    "out-file",
    "set-content",
    "add-content",
    "sc",
    "ac",
];

/// Programs whose first operand is a pattern or script rather than a file, unless one is given
/// through an option (`-e`, `-f`, `--regexp`).
pub const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "zegrep", "zfgrep", "awk", "gawk",
    "mawk", "nawk", "sed", "jq", "yq", "gojq", "jaq", "look", "tr", "findstr",
];

/// Programs that read every file under their folder operands (with `recursive_flag` for some).
pub fn is_recursive(program: &str, options: &[String]) -> bool {
    let has = |short: &[char], long: &[&str]| {
        options.iter().any(|o| {
            long.contains(&o.as_str())
                || (o.starts_with('-')
                    && !o.starts_with("--")
                    && o.chars().skip(1).any(|c| short.contains(&c)))
        })
    };
    match program {
        // A link to a folder exposes its tree to whatever reads through the link next.
        "rg" | "ag" | "ack" | "rsync" | "mv" | "tar" | "bsdtar" | "7z" | "7za" | "cpio" | "ln"
        | "move-item" | "mi" | "compress-archive" => true,
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            has(
                &['r', 'R'],
                &[
                    "--recursive",
                    "--dereference-recursive",
                    "--directories=recurse",
                ],
            ) || options
                .windows(2)
                .any(|w| w[0] == "-d" && w[1] == "recurse")
        }
        "cp" | "scp" | "zip" | "diff" | "colordiff" | "chmod" | "gzip" | "bzip2" | "xz" => {
            has(&['r', 'R', 'a'], &["--recursive", "--archive"])
        }
        "copy-item" | "cpi" | "copy" | "get-childitem" | "gci" | "select-string" | "sls"
        | "get-content" | "gc" => options.iter().any(|o| o.eq_ignore_ascii_case("-recurse")),
        _ => false,
    }
}

/// Programs that read more arguments from `@file` (GCC's and the JDK's response files,
/// rustc, binutils, MSVC, .NET): the file's words are operands too.
pub const RESPONSE_FILE_PROGRAMS: &[&str] = &[
    "gcc",
    "g++",
    "cc",
    "c++",
    "clang",
    "clang++",
    "clang-cl",
    "cpp",
    "ld",
    "ld.lld",
    "ld.gold",
    "lld",
    "as",
    "ar",
    "nm",
    "objdump",
    "objcopy",
    "strip",
    "readelf",
    "size",
    "strings",
    "ranlib",
    "addr2line",
    "rustc",
    "rustdoc",
    "javac",
    "java",
    "javadoc",
    "jar",
    "kotlinc",
    "scalac",
    "cl",
    "link",
    "lib",
    "csc",
    "vbc",
    "dotnet",
    "msbuild",
    "nvcc",
    "gfortran",
    "swiftc",
    "zig",
    "tcc",
    "emcc",
    "wasm-ld",
    "go",
    "ghc",
];

/// The file a curl data or form value reads: `@file`, `name=@file`, `name=<file`, and
/// `--data-urlencode`'s `name@file` (any `@` counts: a read of a name that is no file is clear).
pub fn curl_file_in(value: &str) -> Option<&str> {
    let file = if let Some(rest) = value.strip_prefix('@') {
        rest
    } else if let Some(i) = value.find("=<") {
        &value[i + 2..]
    } else if let Some(i) = value.find('@') {
        &value[i + 1..]
    } else {
        return None;
    };
    let file = file.split(";type=").next().unwrap_or(file);
    let file = file.split(";filename=").next().unwrap_or(file);
    (!file.is_empty() && file != "-").then_some(file)
}

/// Programs that run the rest of their operands as a command, after their own options.
pub const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "xargs",
    "nice",
    "nohup",
    "time",
    "command",
    "exec",
    "builtin",
    "stdbuf",
    "timeout",
    "ionice",
    "taskset",
    "busybox",
    "unbuffer",
    "chronic",
    "watch",
    "caffeinate",
    "strace",
    "ltrace",
    "setsid",
    "flock",
    "gdb",
    "valgrind",
    "firejail",
    "chroot",
    "unshare",
    "nsenter",
    "runuser",
    "sg",
    "xvfb-run",
    "proxychains",
    "proxychains4",
    "torsocks",
    "faketime",
    "catchsegv",
    "coproc",
    "then",
    "do",
    "else",
    "fakeroot",
    "systemd-run",
    "chrt",
    "prlimit",
    "numactl",
    "cgexec",
    "pkexec",
    "script",
    "su",
    "tsp",
    "entr",
    "parallel",
    "start-process",
    "start",
    "call",
    "npx",
    "bunx",
    "pnpx",
    "uvx",
    "dotenv",
    "with-contenv",
    "rlwrap",
    "expect",
    "sem",
    "cmd",
    "cmd.exe",
    "command.com",
    // reserved words a wrapper turns into program names (`sudo ! cat x`)
    "!",
    "{",
    "if",
    "while",
    "until",
    "elif",
];

/// Wrappers whose command is a whole script when given as one word (`watch 'cat .env'`).
pub const SCRIPT_WRAPPERS: &[&str] = &["watch", "script", "su", "entr", "parallel", "sem", "tsp"];

pub const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "ash",
    "csh",
    "tcsh",
    "busybox-sh",
    "pwsh",
    "powershell",
    "rbash",
];

/// Interpreters and the options that take inline code.
pub fn inline_code_option(program: &str, option: &str) -> bool {
    let option_lower = option.to_ascii_lowercase();
    match program {
        "python" | "python2" | "python3" | "pypy" | "pypy3" => option.starts_with("-c"),
        "node" | "nodejs" | "bun" => {
            matches!(option, "-e" | "--eval" | "-p" | "--print") || option.starts_with("--eval=")
        }
        "deno" => matches!(option, "eval"),
        "perl" => {
            option.starts_with("-e") || option.starts_with("-E") || {
                // bundled switches such as `-ne`, `-lne`, `-pe`
                option.starts_with('-')
                    && !option.starts_with("--")
                    && option.len() > 2
                    && option[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && (option.ends_with('e') || option.ends_with('E'))
            }
        }
        "ruby" => option.starts_with("-e") || (option.starts_with('-') && option.ends_with('e')),
        "php" => matches!(option, "-r" | "-R" | "-B" | "-E"),
        "lua" | "luajit" => option == "-e",
        "rscript" | "r" => option == "-e",
        "osascript" => option == "-e",
        "vi" | "vim" | "nvim" | "view" | "ex" | "gvim" => {
            // `-l`: nvim runs a Lua script; `-e`/`-E`/`-es`: Ex mode runs what its input says.
            matches!(
                option,
                "-c" | "--cmd" | "-S" | "-s" | "-u" | "-l" | "-e" | "-E" | "-es" | "-Es"
            ) || option.starts_with('+')
        }
        "emacs" => {
            option.starts_with("--eval")
                || matches!(option, "-l" | "--load" | "--script" | "-script" | "-x")
        }
        // SQL can read files (`.read`, `.import`, `readfile()`, `pg_read_file`) and run shells.
        "sqlite3" | "duckdb" => matches!(option, "-cmd" | "--cmd"),
        "psql" => matches!(option, "-c" | "--command") || option.starts_with("--command="),
        "mysql" | "mariadb" => {
            matches!(option, "-e" | "--execute") || option.starts_with("--execute=")
        }
        "tclsh" | "wish" => false,
        "pwsh" | "powershell" => matches!(
            option_lower.as_str(),
            "-encodedcommand" | "-enc" | "-e" | "-ec"
        ),
        _ => false,
    }
}

/// Whether `arg` makes `program` take the names of the files it reads from a list file or its
/// input (`tar -T list`, `rsync --files-from=list`, `zip -@`, `curl -K config`, `7z @list`):
/// like `xargs`, what is read is not in the command's text.
pub fn names_from_list(program: &str, arg: &str) -> bool {
    let long = |name: &str| arg == name || arg.starts_with(&format!("{name}="));
    let bundle =
        |letter: char| arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letter);
    if long("--files-from") || long("--files0-from") || long("--pathspec-from-file") {
        return true;
    }
    match program {
        "tar" | "bsdtar" | "gtar" => bundle('T'),
        "zip" => bundle('@') || arg == "--names-stdin",
        "cpio" => bundle('o') || bundle('p') || long("--create") || long("--pass-through"),
        "curl" => arg == "-K" || long("--config") || (bundle('K') && arg.len() > 2),
        "7z" | "7za" | "7zr" => {
            arg.starts_with('@') || (arg.starts_with("-i") && arg.contains('@'))
        }
        "gpg" | "gpg2" => arg == "--multifile",
        _ => false,
    }
}

/// Commands that list files or folders (PowerShell names and aliases).
pub const POWERSHELL_LISTERS: &[&str] = &[
    "get-childitem",
    "gci",
    "dir",
    "ls",
    "get-item",
    "gi",
    "resolve-path",
    "rvpa",
];

/// PowerShell commands that open the paths of the items piped to them.
pub const POWERSHELL_PIPE_READERS: &[&str] = &[
    "get-content",
    "gc",
    "cat",
    "type",
    "select-string",
    "sls",
    "copy-item",
    "cpi",
    "copy",
    "cp",
    "move-item",
    "mi",
    "mv",
    "compress-archive",
    "get-filehash",
    "format-hex",
    "import-csv",
    "ipcsv",
    "invoke-item",
    "ii",
    // A script block run per item may open it (`gci secrets | % { gc $_ }`).
    "foreach-object",
    "foreach",
    "%",
];

/// Programs whose argument after the database is SQL, which can read files.
pub const SQL_SHELLS: &[&str] = &["sqlite3", "duckdb"];

/// Whether the command serves the files of a folder over the network (the folder is read as a
/// tree): `python3 -m http.server`, `php -S`, `busybox httpd`.
pub fn serves_folder(program: &str, args: &[&str]) -> bool {
    match program {
        "python" | "python2" | "python3" | "pypy" | "pypy3" => args
            .windows(2)
            .any(|w| w[0] == "-m" && matches!(w[1], "http.server" | "SimpleHTTPServer")),
        "php" => args.contains(&"-S"),
        "busybox" => args.first() == Some(&"httpd"),
        "httpd" | "http-server" | "serve" | "live-server" => true,
        _ => false,
    }
}

/// Interpreters that read a script from a file operand or from their input.
pub const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "lua",
    "luajit",
    "rscript",
    "r",
    "osascript",
    "tclsh",
    "wish",
    "irb",
    "jshell",
    "ghci",
    "sqlite3",
    "psql",
    "mysql",
    "gdb",
    "awk",
    "gawk",
];

/// Programs that run a command on another machine or in a container.
pub fn is_remote(program: &str, first_operand: Option<&str>) -> bool {
    match program {
        "ssh" | "mosh" | "rsh" | "telnet" | "autossh" => true,
        "docker" | "podman" | "nerdctl" => matches!(
            first_operand,
            Some("exec" | "run" | "compose" | "container" | "start" | "attach")
        ),
        "kubectl" | "oc" => matches!(first_operand, Some("exec" | "run" | "debug" | "attach")),
        "vagrant" | "adb" => matches!(first_operand, Some("ssh" | "shell")),
        "gcloud" | "aws" | "az" => true,
        _ => false,
    }
}

/// Programs whose operands never name files they open, so even an existing blocked name among
/// them is harmless (`echo .env`).
pub const NEVER_OPEN: &[&str] = &[
    "echo",
    "printf",
    "test",
    "[",
    "[[",
    ":",
    "true",
    "false",
    "exit",
    "return",
    "export",
    "unset",
    "local",
    "declare",
    "readonly",
    "typeset",
    "set",
    "shift",
    "alias",
    "unalias",
    "write-host",
    "write-output",
    "echo.",
    "which",
    "whereis",
    "type-name",
    "hash",
    "let",
];

/// PowerShell cmdlets (and aliases) that run code from a file, compile it, or start a program
/// whose arguments are not the command's words: what they read cannot be judged.
pub const POWERSHELL_CODE_RUNNERS: &[&str] = &[
    "invoke-command",
    "icm",
    "start-job",
    "sajb",
    "start-threadjob",
    "import-module",
    "ipmo",
    "add-type",
    "start-process",
    "saps",
    "start",
    "invoke-item",
    "ii",
    "new-module",
    "nmo",
    "import-powershelldatafile",
    "register-scheduledjob",
    "register-engineevent",
    "register-objectevent",
    "invoke-pester",
    "invoke-psake",
    "invoke-build",
    "new-pssession",
    "enter-pssession",
    "etsn",
];

/// PowerShell cmdlets (and aliases) whose parameters are read by name.
pub fn is_powershell(program: &str) -> bool {
    const VERBS: &[&str] = &[
        "get-",
        "select-",
        "copy-",
        "move-",
        "import-",
        "format-",
        "out-",
        "set-",
        "add-",
        "remove-",
        "new-",
        "invoke-",
        "export-",
        "compare-",
        "compress-",
        "expand-",
        "test-",
        "rename-",
        "clear-",
        "convertfrom-",
        "convertto-",
        "start-",
        "write-",
    ];
    VERBS.iter().any(|v| program.starts_with(v))
        || matches!(
            program,
            "sls" | "gc" | "gci" | "cpi" | "mi" | "ipcsv" | "gi" | "sc" | "ac" | "ni"
        )
}

/// Switch parameters (no value) of the PowerShell cmdlets we judge.
pub fn powershell_switch(param: &str) -> bool {
    matches!(
        param,
        "-recurse"
            | "-force"
            | "-raw"
            | "-casesensitive"
            | "-simplematch"
            | "-list"
            | "-notmatch"
            | "-quiet"
            | "-allmatches"
            | "-wait"
            | "-asbytestream"
            | "-noemphasis"
            | "-nonewline"
            | "-passthru"
            | "-whatif"
            | "-confirm"
            | "-directory"
            | "-file"
            | "-hidden"
            | "-name"
            | "-followsymlink"
            | "-container"
            | "-update"
    )
}

/// Parameters whose value is a path (`-Path a,b` names two).
pub const POWERSHELL_PATH_PARAMS: &[&str] = &[
    "-path",
    "-literalpath",
    "-lp",
    "-pspath",
    "-filepath",
    "-destination",
    "-destinationpath",
    "-inputfile",
    "-infile",
    "-fullname",
    "-attachments",
];

/// Parameters whose value is text, never a path (`-Pattern .env` searches for the text).
pub fn powershell_text_param(param: &str) -> bool {
    matches!(
        param,
        "-pattern" | "-filter" | "-include" | "-exclude" | "-encoding" | "-delimiter" | "-value"
    )
}

/// Whether `param` (lower case) is one of [`POWERSHELL_PATH_PARAMS`].
pub fn powershell_path_param(param: &str) -> bool {
    POWERSHELL_PATH_PARAMS.contains(&param)
}

/// The positional parameters of a cmdlet, in order: `true` for a path.
pub fn powershell_positionals(program: &str) -> &'static [bool] {
    match program {
        "select-string" | "sls" => &[false, true],
        "copy-item" | "cpi" | "move-item" | "mi" | "compress-archive" => &[true, true],
        "set-content" | "sc" | "add-content" | "ac" | "out-file" => &[true, false],
        _ => &[true],
    }
}

/// The name a program is known by: no folder, lower case, no `.exe`.
pub fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let base = base.to_lowercase();
    let base = base.strip_suffix(".exe").map(str::to_owned).unwrap_or(base);
    unversioned_interpreter(&base).unwrap_or(base)
}

/// An interpreter named with its version (`python3.12`, `node18`, `perl5.36`, `php8.2`,
/// `pypy3.10`) is that interpreter: the name it is judged by.
fn unversioned_interpreter(name: &str) -> Option<String> {
    const STEMS: &[&str] = &[
        "python", "pypy", "node", "ruby", "perl", "php", "lua", "luajit", "tclsh", "wish",
    ];
    let stem = STEMS
        .iter()
        .filter(|stem| name.starts_with(**stem))
        .max_by_key(|stem| stem.len())?;
    let version = &name[stem.len()..];
    if version.is_empty()
        || !version.starts_with(|c: char| c.is_ascii_digit())
        || !version.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return None;
    }
    Some(match *stem {
        "python" | "pypy" if version.starts_with('3') => format!("{stem}3"),
        "python" if version.starts_with('2') => "python2".to_owned(),
        other => other.to_owned(),
    })
}

pub fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Build tools, task runners, test runners, linters and bundlers: every run of one runs code the
/// workspace holds (a `Makefile`'s recipes, a config file, the tests, plugins).
pub const BUILD_AND_TEST_RUNNERS: &[&str] = &[
    "make",
    "gmake",
    "bmake",
    "ninja",
    "just",
    "task",
    "rake",
    "gradle",
    "gradlew",
    "mvn",
    "mvnw",
    "ant",
    "sbt",
    "lein",
    "bazel",
    "bazelisk",
    "buck",
    "buck2",
    "scons",
    "waf",
    "meson",
    "cmake",
    "ctest",
    "pytest",
    "py.test",
    "tox",
    "nox",
    "jest",
    "vitest",
    "mocha",
    "ava",
    "tap",
    "karma",
    "rspec",
    "phpunit",
    "nodemon",
    "ts-node",
    "tsx",
    "esno",
    "vite",
    "webpack",
    "rollup",
    "next",
    "nuxt",
    "turbo",
    "nx",
    "lerna",
    "grunt",
    "gulp",
    "playwright",
    "cypress",
    "invoke",
    "fab",
    "doit",
    "behave",
    "cucumber",
    "ctest3",
    "xcodebuild",
    "msbuild",
    "devenv",
    "eslint",
    "prettier",
    "stylelint",
    "babel",
    "tsc",
    "mypy",
    "pylint",
    "vue-cli-service",
    "ng",
    "astro",
    "remix",
    "parcel",
    "tsup",
    "unbuild",
    "fx",
    "mix",
    "elixir",
    "npx",
    "pnpx",
    "bunx",
];

/// Runtimes and compilers of other languages: with any argument, a source or program file the
/// agent may have written runs (`java Main.java`, `julia x.jl`).
pub const RUNTIMES: &[&str] = &[
    "java",
    "javac",
    "kotlin",
    "kotlinc",
    "scala",
    "scalac",
    "groovy",
    "julia",
    "erl",
    "escript",
    "guile",
    "racket",
    "sbcl",
    "ocaml",
    "runghc",
    "runhaskell",
    "stack",
    "cabal",
    "crystal",
    "nim",
    "dart",
    "flutter",
    "clojure",
    "clj",
    "bb",
    "octave",
    "wscript",
    "cscript",
    "mshta",
    "jbang",
    "py",
];

/// Document processors: they follow includes in their sources (`\\input{../.env}`,
/// `include::../.env[]`, `@import`, `.so`, `!include`, `document()`).
pub const DOCUMENT_PROCESSORS: &[&str] = &[
    "latex",
    "pdflatex",
    "xelatex",
    "lualatex",
    "tex",
    "latexmk",
    "tectonic",
    "asciidoctor",
    "asciidoc",
    "sass",
    "scss",
    "lessc",
    "stylus",
    "postcss",
    "groff",
    "troff",
    "nroff",
    "xsltproc",
    "plantuml",
    "protoc",
    "sphinx-build",
    "mkdocs",
    "hugo",
    "jekyll",
    "mdbook",
    "typst",
    "quarto",
];

/// Configuration languages and provisioners that read files (`file("../.env")`, `.Files.Get`,
/// `builtins.readFile`, `.envrc`) and print what they read.
pub const CONFIG_LANGUAGES: &[&str] = &[
    "terraform",
    "tofu",
    "terragrunt",
    "pulumi",
    "ansible",
    "ansible-playbook",
    "helm",
    "kustomize",
    "packer",
    "vagrant",
    "nix",
    "nix-build",
    "nix-shell",
    "nix-instantiate",
    "direnv",
    "jsonnet",
    "cue",
    "dhall",
];

/// JavaScript package managers: everything but these subcommands runs `package.json` scripts
/// (`npm version` runs the version scripts, `npm config edit` an editor)
/// (`npm run x`, `npm test`, `npm install`'s lifecycle scripts, `npm exec`).
pub const JS_PACKAGE_MANAGERS: &[&str] = &["npm", "pnpm", "yarn", "bun", "deno", "corepack"];
const JS_PACKAGE_QUERIES: &[&str] = &[
    "view",
    "info",
    "ls",
    "list",
    "outdated",
    "whoami",
    "search",
    "help",
    "--version",
    "fmt",
    "lint",
    "why",
    "bin",
    "root",
    "prefix",
    "get",
];

/// Programs whose subcommands decide whether workspace code runs: the subcommands that run it,
/// and the ones known not to (anything else is not known: see [`is_known_program`]).
const SUBCOMMAND_RUNNERS: &[(&[&str], &[&str], &[&str])] = &[
    (
        // `.cargo/config.toml`'s `rustc-wrapper` runs on `metadata`, `tree`, `fetch`, `clean`
        // and `update` too: only the registry's commands stay clear of it.
        &["cargo"],
        &[
            "run",
            "r",
            "test",
            "t",
            "build",
            "b",
            "check",
            "c",
            "bench",
            "clippy",
            "doc",
            "d",
            "install",
            "rustc",
            "rustdoc",
            "fix",
            "miri",
            "nextest",
            "llvm-cov",
            "tarpaulin",
            "expand",
            "publish",
            "package",
            "watch",
        ],
        &[
            "fmt",
            "search",
            "version",
            "help",
            "owner",
            "yank",
            "login",
            "logout",
            "--version",
            "-V",
            "--list",
        ],
    ),
    (
        &["go"],
        &[
            "run", "test", "build", "generate", "install", "vet", "tool", "get",
        ],
        &[
            "version",
            "env",
            "fmt",
            "mod",
            "list",
            "doc",
            "help",
            "clean",
            "work",
            "telemetry",
        ],
    ),
    (
        &["dotnet", "swift"],
        &[
            "run", "test", "build", "publish", "pack", "watch", "msbuild",
        ],
        &[
            "--version",
            "--info",
            "--list-sdks",
            "--list-runtimes",
            "new",
            "nuget",
            "sln",
            "format",
            "package",
        ],
    ),
    (
        &[
            "pip", "pip3", "uv", "poetry", "pipenv", "hatch", "pdm", "rye", "conda",
        ],
        &[
            "install", "run", "sync", "build", "wheel", "develop", "shell", "exec",
        ],
        &[
            "list",
            "show",
            "freeze",
            "check",
            "search",
            "cache",
            "help",
            "version",
            "--version",
            "remove",
            "uninstall",
            "env",
            "info",
            "python",
            "venv",
            "tree",
            "outdated",
        ],
    ),
    (
        &["bundle", "bundler"],
        &["exec", "install"],
        &[
            "list",
            "show",
            "info",
            "outdated",
            "version",
            "--version",
            "help",
            "config",
            "lock",
            "check",
        ],
    ),
    (
        &["pipx"],
        &["run", "runpip", "install"],
        &[
            "list",
            "uninstall",
            "upgrade",
            "ensurepath",
            "environment",
            "--version",
        ],
    ),
    // An image build runs the workspace's Dockerfile over its whole folder.
    (
        &["docker", "podman", "nerdctl", "buildah"],
        &["build", "buildx", "bake", "image", "cp"],
        &[
            "ps",
            "images",
            "version",
            "info",
            "logs",
            "inspect",
            "pull",
            "push",
            "login",
            "logout",
            "stop",
            "rm",
            "rmi",
            "kill",
            "tag",
            "top",
            "stats",
            "port",
            "events",
            "history",
            "search",
            "restart",
            "pause",
            "unpause",
            "wait",
            "diff",
            "--version",
        ],
    ),
    (
        &["kubectl", "oc"],
        &[],
        &[
            "get",
            "describe",
            "logs",
            "version",
            "top",
            "explain",
            "api-resources",
            "api-versions",
            "cluster-info",
            "delete",
            "scale",
            "rollout",
            "port-forward",
            "auth",
            "events",
        ],
    ),
];

/// Programs every one of whose runs is known not to run code from the workspace or read files
/// other than its operands (which the walk judges as paths): the shell's own builtins and the
/// common system and process tools. Together with the tables above it is the allow-list of
/// [`is_known_program`].
pub const INERT: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "dirs",
    "pwd",
    "mkdir",
    "rmdir",
    "ps",
    "kill",
    "pkill",
    "killall",
    "pgrep",
    "sleep",
    "date",
    "whoami",
    "id",
    "uname",
    "hostname",
    "uptime",
    "free",
    "df",
    "basename",
    "dirname",
    "seq",
    "yes",
    "clear",
    "history",
    "jobs",
    "wait",
    "umask",
    "ulimit",
    "getconf",
    "locale",
    "tput",
    "stty",
    "lsof",
    "netstat",
    "ss",
    "ifconfig",
    "ping",
    "dig",
    "nslookup",
    "host",
    "traceroute",
    "top",
    "htop",
    "apropos",
    "whatis",
    "sync",
    "mktemp",
    "cal",
    "bc",
    "expr",
    "nproc",
    "arch",
    "lscpu",
    "lsblk",
    "w",
    "who",
    "groups",
    "tty",
    "logname",
    "users",
    "read",
    "getopts",
    "disown",
    "bg",
    "fg",
    "times",
    "break",
    "continue",
    "cmp",
    "tldr",
    "sl",
    "figlet",
    "column",
    "numfmt",
    "factor",
    "ulimit",
    "shopt",
    "caller",
    "trap",
    "mapfile",
    "readarray",
    "printenv",
];

/// The system's package managers: they run the scripts of the packages they install, which come
/// from the distribution, not the workspace (a package file operand is judged as a path).
pub const SYSTEM_PACKAGE_MANAGERS: &[&str] = &[
    "apt",
    "apt-get",
    "apt-cache",
    "dpkg-query",
    "dnf",
    "yum",
    "brew",
    "pacman",
    "apk",
    "snap",
    "zypper",
    "port",
    "choco",
    "winget",
    "scoop",
    "flatpak",
    "nala",
    "emerge",
];

/// Whether the walk knows what `program` does with files (given its first operand that is not
/// an option or a `+toolchain`, for programs whose subcommands decide it). While rules block something, a program it does not know is not
/// judged allowed: it may read files its arguments do not name or run code the agent wrote
/// (`uvicorn app:app`, `pants test ::`, `docker compose config`), and no list of such programs
/// is ever complete, so the list is of the programs known not to.
pub fn is_known_program(program: &str, first_operand: Option<&str>) -> bool {
    if let Some((_, runs, safe)) = SUBCOMMAND_RUNNERS
        .iter()
        .find(|(names, _, _)| names.contains(&program))
    {
        return match first_operand {
            None => true,
            Some(sub) => {
                runs.contains(&sub) || safe.contains(&sub) || is_remote(program, first_operand)
            }
        };
    }
    [
        READERS,
        NEVER_OPEN,
        INERT,
        SYSTEM_PACKAGE_MANAGERS,
        INTERPRETERS,
        SQL_SHELLS,
        SHELLS,
        WRAPPERS,
        SCRIPT_WRAPPERS,
        PATTERN_FIRST,
        RESPONSE_FILE_PROGRAMS,
        POWERSHELL_LISTERS,
        POWERSHELL_PIPE_READERS,
        BUILD_AND_TEST_RUNNERS,
        RUNTIMES,
        DOCUMENT_PROCESSORS,
        CONFIG_LANGUAGES,
        JS_PACKAGE_MANAGERS,
    ]
    .iter()
    .any(|list| list.contains(&program))
        || crate::options::is_compiler(program)
        || is_powershell(program)
        || is_remote(program, first_operand)
        || matches!(
            program,
            "find" | "tig" | "lazygit" | "gitui" | "gitk" | "mail" | "gpg" | "eval"
        )
}

/// Whether this run of `program` runs code the workspace holds (see the lists above), which the
/// agent may have written and which can read any file. Asking about version or help is not
/// running it.
pub fn runs_workspace_code(program: &str, args: &[&str]) -> bool {
    let texts: Vec<&str> = args
        .iter()
        .copied()
        .filter(|t| !t.starts_with('-'))
        .collect();
    let first = texts.first().copied();
    let informational = args.iter().all(|v| {
        matches!(
            *v,
            "--version" | "-V" | "-v" | "--help" | "-h" | "version" | "help"
        )
    }) && !args.is_empty();
    if informational {
        return false;
    }
    if BUILD_AND_TEST_RUNNERS.contains(&program) {
        return true;
    }
    if RUNTIMES.contains(&program) || CONFIG_LANGUAGES.contains(&program) {
        return !args.is_empty();
    }
    if DOCUMENT_PROCESSORS.contains(&program) {
        return !texts.is_empty();
    }
    if JS_PACKAGE_MANAGERS.contains(&program) {
        // `--browser=cmd`, `--editor=cmd`, `--script-shell=cmd`: npm runs the command.
        if args.iter().any(|arg| {
            [
                "--browser",
                "--editor",
                "--script-shell",
                "--shell",
                "--viewer",
                "--node-options",
            ]
            .iter()
            .any(|option| arg.starts_with(option))
        }) {
            return true;
        }
        return !first.is_some_and(|first| JS_PACKAGE_QUERIES.contains(&first));
    }
    SUBCOMMAND_RUNNERS
        .iter()
        .find(|(names, _, _)| names.contains(&program))
        .is_some_and(|(_, runs, _)| match first {
            Some(sub) => runs.contains(&sub),
            // `cargo` alone builds nothing, but the original table counted it as running.
            None => program == "cargo",
        })
}

/// `git -c key=value` settings whose value git runs as a command.
pub fn git_setting_runs_commands(setting: &str) -> bool {
    let key = setting.split('=').next().unwrap_or("").to_ascii_lowercase();
    key.starts_with("alias.")
        || key.starts_with("filter.")
        || key.starts_with("pager.")
        || (key.starts_with("protocol.") && key.ends_with("allow"))
        || key.ends_with(".template")
        || key.ends_with("file")
        || key.starts_with("includeif.")
        || key.ends_with(".driver")
        || key.ends_with(".cmd")
        || key.ends_with(".program")
        || key.ends_with(".helper")
        || key.ends_with("hook")
        || key.ends_with(".receivepack")
        || key.ends_with(".uploadpack")
        || (key.starts_with("submodule.") && key.ends_with(".update"))
        || matches!(
            key.as_str(),
            "core.askpass" | "core.gitproxy" | "imap.tunnel" | "core.worktree"
        )
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

/// git subcommands that update no ref and make no commit, so run no hook (`reference-transaction`
/// runs on any ref update, `post-checkout` on checkouts, the commit hooks on commits).
pub const GIT_RUNS_NO_HOOK: &[&str] = &[
    "status",
    "log",
    "show",
    "diff",
    "grep",
    "blame",
    "annotate",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "cat-file",
    "help",
    "version",
    "whatchanged",
    "show-ref",
    "for-each-ref",
    "name-rev",
    "count-objects",
    "check-ignore",
    "check-attr",
    "var",
    "config",
    "diff-tree",
    "diff-files",
    "diff-index",
    "merge-base",
    "archive",
    "format-patch",
    "cherry",
    "range-diff",
    "show-branch",
    "verify-commit",
    "verify-tag",
];
