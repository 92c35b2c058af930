//! The one option walk every command's words go through, wrappers (`env`, `xargs`, `sudo`, …)
//! and programs alike: short bundles (`-abc`), a value glued to its letter (`-a.env`) or given as
//! the next word, `--long=value`, unique prefixes of long options (`--arg=.env` is
//! `--arg-file`), single-dash long options (`-include`), and `--`. The table of what each known
//! program's options take lives here too, so a value glued to an option means the same thing
//! wherever it appears. An option the table does not know yields its possible glued values, to be
//! judged as paths when they name one.
//! One file on purpose: the walk and the tables it reads (one `Spec` per wrapper and program,
//! about 1,750 lines) are one contract, a glued value means the same thing wherever it appears;
//! its unit tests, about 105 lines, sit below the code.
//!
//! ## Decision: One option walk for wrappers and programs; running agent-writable code is undecidable (issue 26, round 5)
//!
//! Wrappers (`env`, `xargs`, `sudo`, `nice`, `timeout`, `flock`, ...) used to parse their own
//! options, so a value glued to an option (`xargs -a.env`, `env -Csecrets`, `--arg-file=.env`)
//! meant something else there than in a program's operands. `options.rs` now reads every command's
//! words with one walk and one table per program: a value is judged as what it is (`xargs -a FILE`
//! is read, `env -C`/`sudo -D`/`unshare -w` move everything after them and the last one wins,
//! `chroot`/`sudo -R` make paths unknown, `env -S` is split as GNU env splits it and its words are
//! read again as env's own (options included, as env does), `su -c`/`flock -c` run a script); an
//! option the table does not know yields every possible glued value as a path, and a wrapper's
//! unknown option is read both as taking the next word and not (a bounded number of times). A
//! script, program file or build the agent may have written can read anything, exactly as inline
//! code can, so it is `scriptFile`: an interpreter or shell with a script (`bash -n` and
//! `--version` excepted), a program named by a path outside the system folders (`./x.sh`), a shell
//! or interpreter reading `< file`, `make`, `npm`/`yarn`/`pnpm` scripts, `cargo`/`go` builds and
//! tests, test runners, JavaScript-configured tools, other languages' runtimes, compilers and
//! preprocessors of sources (they read what `#include` names), document processors (`\input`,
//! `include::`), `awk -f`, `sed -f`, `jq -f`; a `PATH` with a relative or empty entry is
//! `shellState`. This makes everyday builds and tests ask: the honest answer, since a test can
//! print `.env`; hosts can tell it apart by the construct. jq's `import`/`include` and yq's `load`
//! are `inlineCode`. git commands that copy the tree where rules do not reach (`clone` of a local
//! repository, `worktree add`, `checkout-index --prefix`, `read-tree -u --prefix`,
//! `push`/`fetch`/`pull`/ `remote add` with a path, `--work-tree=DIR` checkouts) and reads of
//! `.git/objects` or packs are `recursiveRead`. A regular file with more than one name is
//! `hardLink` while rules exist (the read gate already refuses such files, `Policy::allows_links`;
//! the oracle stats each judged operand, glob match and tree entry, one `stat` each).

/// What an option's value is to the program that takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// Text that names no file (a user, a count, a signal).
    Text,
    /// A file (or folder) the program opens, reads or writes.
    File,
    /// A file whose content is more arguments or names of files to read (`xargs -a`,
    /// `tar -T`): the file is read, and what it names is not in the command's text.
    ListFile,
    /// A shell command line the program runs (`su -c`, `flock -c`).
    Script,
    /// `env -S`: a string split into the words of the command to run.
    SplitString,
    /// The folder the program (or the command it wraps) runs in (`env -C`, `make -C`).
    Chdir,
    /// A new root folder (`chroot`, `sudo -R`, `unshare -R`): every path means another file.
    Root,
    /// The pattern or script of a pattern-first program (`grep -e`, `sed -e`, `awk --source`).
    Pattern,
    /// A file holding the pattern or program (`grep -f`, `sed -f`, `awk -f`, `jq -f`).
    PatternFile,
    /// curl's data and form values (`@file`, `name=<file`).
    CurlData,
    /// A file curl opens (curl expands its own globs).
    CurlFile,
    /// A git setting `key=value` (`git -c`), which may run a command.
    GitSetting,
    /// Text a program runs as code (`make --eval`, `git --exec-path`).
    Code,
    /// A variable name, then a file (`jq --rawfile NAME FILE`).
    NamedFile,
    /// A variable name, then text (`jq --arg NAME VALUE`).
    NamedText,
}

/// What one option is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// No value.
    Flag,
    /// No value; the operands are then a command line for a shell (`sudo -s`, `sudo -i`).
    ShellFlag,
    /// No value; the operands are then files the program opens (`sudo -e`).
    FilesFlag,
    /// No value; the wrapped command follows (`gdb --args`).
    Stop,
    /// A value glued to the option (`-n5`, `--user=x`) or the next word.
    Takes(Value),
    /// A value only when glued (`xargs -i{}`, `--eof=x`).
    Optional(Value),
}

/// The options of one program. A wrapper's options end at its first operand (as its getopt
/// string's `+` says); a program's go on to `--` (GNU getopt permutes).
#[derive(Debug)]
pub struct Spec {
    /// Letters of short options.
    pub short: &'static [(char, Opt)],
    /// Long options with their dashes (`--chdir`; `-include` for a single-dash one).
    pub long: &'static [(&'static str, Opt)],
    /// `-19`, `-5`: a word of digits is an option (nice, head, xargs' old forms).
    pub numeric: bool,
}

/// Where an option's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At<'w> {
    /// Glued to the option word.
    Glued(&'w str),
    /// The word at this index.
    Word(usize),
    /// Not given (an optional value, or the words ended).
    Missing,
}

/// One reading of (part of) a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'w> {
    /// An option without a value that matters (`Opt::Flag` and the effects of the others).
    Flag { at: usize, opt: Opt },
    /// An option with a value.
    Value {
        at: usize,
        option: &'w str,
        value: Value,
        place: At<'w>,
    },
    /// An option the table does not know: its possible glued values (every tail of a short
    /// bundle from the unknown letter on, a long option's `=value`), and whether it may take
    /// the next word as its value.
    Unknown {
        at: usize,
        tails: Vec<&'w str>,
        may_take_next: bool,
    },
    /// `--`: options end.
    DoubleDash { at: usize },
    /// A word that is not an option.
    Operand { at: usize },
}

/// Whether `word` is read as an option word (not `-`, not an operand).
pub fn is_option_word(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-')
}

/// The items of the word at `at` (options still being read), and the index of the next word
/// to read. `spec` is `None` for a program the table does not know.
pub fn items<'w>(spec: Option<&Spec>, words: &[&'w str], at: usize) -> (Vec<Item<'w>>, usize) {
    let Some(&word) = words.get(at) else {
        return (Vec::new(), at + 1);
    };
    if word == "--" {
        return (vec![Item::DoubleDash { at }], at + 1);
    }
    if !is_option_word(word) {
        return (vec![Item::Operand { at }], at + 1);
    }
    let Some(spec) = spec else {
        return (
            vec![Item::Unknown {
                at,
                tails: unknown_tails(word, 2),
                may_take_next: true,
            }],
            at + 1,
        );
    };
    if spec.numeric && word[1..].bytes().all(|b| b.is_ascii_digit()) {
        return (vec![Item::Flag { at, opt: Opt::Flag }], at + 1);
    }
    if let Some(long) = word.strip_prefix("--") {
        let (name, glued) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        return match long_option(spec, name) {
            Some((option, opt)) => option_items(option, opt, glued, words, at),
            None => (
                vec![Item::Unknown {
                    at,
                    tails: glued.filter(|v| !v.is_empty()).into_iter().collect(),
                    may_take_next: glued.is_none(),
                }],
                at + 1,
            ),
        };
    }
    // A single-dash long option: the whole word, or one that takes a value glued to it
    // (gcc's `-includeFILE`), the longest first.
    if let Some((option, opt)) = spec.long.iter().find(|(name, _)| *name == word) {
        return option_items(option, *opt, None, words, at);
    }
    if let Some((option, opt)) = spec
        .long
        .iter()
        .filter(|(name, opt)| {
            !name.starts_with("--")
                && matches!(opt, Opt::Takes(_))
                && word.len() > name.len()
                && word.starts_with(*name)
        })
        .max_by_key(|(name, _)| name.len())
    {
        let rest = &word[option.len()..];
        return option_items(
            option,
            *opt,
            Some(rest.strip_prefix('=').unwrap_or(rest)),
            words,
            at,
        );
    }
    let mut out = Vec::new();
    for (offset, letter) in word.char_indices().skip(1) {
        let after = offset + letter.len_utf8();
        let rest = &word[after..];
        let option = &word[offset..after];
        match spec
            .short
            .iter()
            .find(|(c, _)| *c == letter)
            .map(|(_, o)| *o)
        {
            Some(Opt::Takes(value)) => {
                let place = if rest.is_empty() {
                    At::Word(at + 1)
                } else {
                    At::Glued(rest)
                };
                let next = taken(value, place, words, at);
                out.push(Item::Value {
                    at,
                    option,
                    value,
                    place: fix_place(place, words),
                });
                return (out, next);
            }
            Some(Opt::Optional(value)) => {
                let place = if rest.is_empty() {
                    At::Missing
                } else {
                    At::Glued(rest)
                };
                out.push(Item::Value {
                    at,
                    option,
                    value,
                    place,
                });
                return (out, at + 1);
            }
            Some(opt) => out.push(Item::Flag { at, opt }),
            None => {
                out.push(Item::Unknown {
                    at,
                    tails: unknown_tails(word, after),
                    may_take_next: rest.is_empty(),
                });
                return (out, at + 1);
            }
        }
    }
    (out, at + 1)
}

/// Every tail of `word` from byte `from` on (each a possible glued value); for a long option,
/// the value after `=`.
fn unknown_tails(word: &str, from: usize) -> Vec<&str> {
    if let Some(long) = word.strip_prefix("--") {
        return long
            .split_once('=')
            .map(|(_, value)| value)
            .filter(|value| !value.is_empty())
            .into_iter()
            .collect();
    }
    word.char_indices()
        .map(|(at, _)| at)
        .filter(|&at| at >= from)
        .map(|at| &word[at..])
        .filter(|tail| !tail.is_empty())
        .collect()
}

/// A long option by its name (without the dashes): exact, or a unique prefix as GNU getopt
/// takes it (several candidates that mean the same are one).
fn long_option(spec: &Spec, name: &str) -> Option<(&'static str, Opt)> {
    if name.is_empty() {
        return None;
    }
    let long = |n: &&str| n.strip_prefix("--").map(|n| n.to_owned());
    if let Some((option, opt)) = spec
        .long
        .iter()
        .find(|(n, _)| long(n).as_deref() == Some(name))
    {
        return Some((option, *opt));
    }
    let candidates: Vec<&(&str, Opt)> = spec
        .long
        .iter()
        .filter(|(n, _)| long(n).is_some_and(|n| n.starts_with(name)))
        .collect();
    let first = candidates.first()?;
    candidates
        .iter()
        .all(|(_, opt)| *opt == first.1)
        .then_some((first.0, first.1))
}

fn option_items<'w>(
    option: &'w str,
    opt: Opt,
    glued: Option<&'w str>,
    words: &[&'w str],
    at: usize,
) -> (Vec<Item<'w>>, usize) {
    match opt {
        Opt::Takes(value) => {
            let place = glued.map_or(At::Word(at + 1), At::Glued);
            let next = taken(value, place, words, at);
            (
                vec![Item::Value {
                    at,
                    option,
                    value,
                    place: fix_place(place, words),
                }],
                next,
            )
        }
        Opt::Optional(value) => (
            vec![Item::Value {
                at,
                option,
                value,
                place: glued.map_or(At::Missing, At::Glued),
            }],
            at + 1,
        ),
        _ => {
            let mut out = vec![Item::Flag { at, opt }];
            // `--flag=value`: not a value the program takes, but it may name a file.
            if let Some(value) = glued.filter(|v| !v.is_empty()) {
                out.push(Item::Unknown {
                    at,
                    tails: vec![value],
                    may_take_next: false,
                });
            }
            (out, at + 1)
        }
    }
}

/// The index after an option's value (a named value takes two words).
fn taken(value: Value, place: At, words: &[&str], at: usize) -> usize {
    let words_taken = match (value, place) {
        (Value::NamedFile | Value::NamedText, At::Word(_)) => 2,
        (Value::NamedFile | Value::NamedText, _) => 1,
        (_, At::Word(_)) => 1,
        _ => 0,
    };
    (at + 1 + words_taken).min(words.len().max(at + 1))
}

fn fix_place<'w>(place: At<'w>, words: &[&str]) -> At<'w> {
    match place {
        At::Word(i) if i >= words.len() => At::Missing,
        other => other,
    }
}

/// The words `env -S STRING` makes of its string, as GNU env splits it: blanks separate,
/// single and double quotes group, `\_` is a blank, `\c` ends the string, `#` at a word's start
/// begins a comment, and `${NAME}` is replaced by a variable (`true`: the word is not literal).
/// `None` when the string is one env refuses (an unknown escape, an open quote, `$NAME`).
pub fn env_split_string(text: &str) -> Option<Vec<(String, bool)>> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut word = String::new();
    let mut dynamic = false;
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c') => {
                if in_word {
                    out.push((std::mem::take(&mut word), dynamic));
                    dynamic = false;
                    in_word = false;
                }
            }
            (None, '#') if !in_word => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), _) if c == q => quote = None,
            (Some('\''), '\\') => match chars.next() {
                Some(next @ ('\\' | '\'')) => word.push(next),
                Some(next) => {
                    word.push('\\');
                    word.push(next);
                }
                None => return None,
            },
            (_, '\\') => match chars.next()? {
                '_' if quote.is_none() => {
                    if in_word {
                        out.push((std::mem::take(&mut word), dynamic));
                        dynamic = false;
                        in_word = false;
                    }
                }
                '_' => word.push(' '),
                'c' => break,
                'f' => word.push('\x0c'),
                'n' => word.push('\n'),
                'r' => word.push('\r'),
                't' => word.push('\t'),
                'v' => word.push('\x0b'),
                next @ ('\\' | '\'' | '"' | '$' | '#' | ' ') => {
                    word.push(next);
                    in_word = true;
                }
                _ => return None,
            },
            (Some('\''), _) => word.push(c),
            (_, '$') => {
                if chars.peek() != Some(&'{') {
                    return None;
                }
                for next in chars.by_ref() {
                    if next == '}' {
                        break;
                    }
                }
                dynamic = true;
                in_word = true;
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        out.push((word, dynamic));
    }
    Some(out)
}

use Opt::{FilesFlag, Flag, Optional, ShellFlag, Stop, Takes};
use Value::*;

const FLAGS_ONLY: Spec = Spec {
    short: &[],
    long: &[("--help", Flag), ("--version", Flag)],
    numeric: false,
};

const ENV: Spec = Spec {
    short: &[
        ('i', Flag),
        ('0', Flag),
        ('v', Flag),
        ('u', Takes(Text)),
        ('C', Takes(Chdir)),
        ('S', Takes(SplitString)),
        ('P', Takes(Text)),
        ('a', Takes(Text)),
    ],
    long: &[
        ("--ignore-environment", Flag),
        ("--null", Flag),
        ("--unset", Takes(Text)),
        ("--chdir", Takes(Chdir)),
        ("--split-string", Takes(SplitString)),
        ("--argv0", Takes(Text)),
        ("--debug", Flag),
        ("--block-signal", Optional(Text)),
        ("--default-signal", Optional(Text)),
        ("--ignore-signal", Optional(Text)),
        ("--list-signal-handling", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const XARGS: Spec = Spec {
    short: &[
        ('0', Flag),
        ('a', Takes(ListFile)),
        ('d', Takes(Text)),
        ('E', Takes(Text)),
        ('e', Optional(Text)),
        ('I', Takes(Text)),
        ('i', Optional(Text)),
        ('L', Takes(Text)),
        ('l', Optional(Text)),
        ('n', Takes(Text)),
        ('o', Flag),
        ('p', Flag),
        ('P', Takes(Text)),
        ('r', Flag),
        ('s', Takes(Text)),
        ('t', Flag),
        ('x', Flag),
    ],
    long: &[
        ("--null", Flag),
        ("--arg-file", Takes(ListFile)),
        ("--delimiter", Takes(Text)),
        ("--eof", Optional(Text)),
        ("--replace", Optional(Text)),
        ("--max-lines", Optional(Text)),
        ("--max-args", Takes(Text)),
        ("--open-tty", Flag),
        ("--interactive", Flag),
        ("--max-procs", Takes(Text)),
        ("--no-run-if-empty", Flag),
        ("--max-chars", Takes(Text)),
        ("--show-limits", Flag),
        ("--verbose", Flag),
        ("--exit", Flag),
        ("--process-slot-var", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const SUDO: Spec = Spec {
    short: &[
        ('A', Flag),
        ('B', Flag),
        ('b', Flag),
        ('E', Flag),
        ('e', FilesFlag),
        ('H', Flag),
        ('h', Optional(Text)),
        ('a', Takes(Text)),
        ('c', Takes(Text)),
        ('i', ShellFlag),
        ('K', Flag),
        ('k', Flag),
        ('l', Flag),
        ('N', Flag),
        ('n', Flag),
        ('P', Flag),
        ('S', Flag),
        ('s', ShellFlag),
        ('V', Flag),
        ('v', Flag),
        ('C', Takes(Text)),
        ('D', Takes(Chdir)),
        ('g', Takes(Text)),
        ('p', Takes(Text)),
        ('R', Takes(Root)),
        ('r', Takes(Text)),
        ('t', Takes(Text)),
        ('T', Takes(Text)),
        ('U', Takes(Text)),
        ('u', Takes(Text)),
    ],
    long: &[
        ("--askpass", Flag),
        ("--background", Flag),
        ("--bell", Flag),
        ("--close-from", Takes(Text)),
        ("--chdir", Takes(Chdir)),
        ("--preserve-env", Optional(Text)),
        ("--edit", FilesFlag),
        ("--group", Takes(Text)),
        ("--set-home", Flag),
        ("--help", Flag),
        ("--host", Takes(Text)),
        ("--login", ShellFlag),
        ("--remove-timestamp", Flag),
        ("--reset-timestamp", Flag),
        ("--list", Flag),
        ("--non-interactive", Flag),
        ("--preserve-groups", Flag),
        ("--prompt", Takes(Text)),
        ("--chroot", Takes(Root)),
        ("--role", Takes(Text)),
        ("--stdin", Flag),
        ("--shell", ShellFlag),
        ("--type", Takes(Text)),
        ("--command-timeout", Takes(Text)),
        ("--other-user", Takes(Text)),
        ("--user", Takes(Text)),
        ("--version", Flag),
        ("--validate", Flag),
    ],
    numeric: false,
};

const DOAS: Spec = Spec {
    short: &[
        ('a', Takes(Text)),
        ('C', Takes(File)),
        ('L', Flag),
        ('n', Flag),
        ('s', ShellFlag),
        ('u', Takes(Text)),
    ],
    long: &[],
    numeric: false,
};

const NICE: Spec = Spec {
    short: &[('n', Takes(Text))],
    long: &[
        ("--adjustment", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: true,
};

const TIME: Spec = Spec {
    short: &[
        ('a', Flag),
        ('f', Takes(Text)),
        ('o', Takes(File)),
        ('p', Flag),
        ('q', Flag),
        ('v', Flag),
        ('V', Flag),
    ],
    long: &[
        ("--append", Flag),
        ("--format", Takes(Text)),
        ("--output", Takes(File)),
        ("--portability", Flag),
        ("--quiet", Flag),
        ("--verbose", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const COMMAND: Spec = Spec {
    short: &[('p', Flag), ('v', Flag), ('V', Flag)],
    long: &[],
    numeric: false,
};

const EXEC: Spec = Spec {
    short: &[('c', Flag), ('l', Flag), ('a', Takes(Text))],
    long: &[],
    numeric: false,
};

const STDBUF: Spec = Spec {
    short: &[('i', Takes(Text)), ('o', Takes(Text)), ('e', Takes(Text))],
    long: &[
        ("--input", Takes(Text)),
        ("--output", Takes(Text)),
        ("--error", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const TIMEOUT: Spec = Spec {
    short: &[
        ('f', Flag),
        ('p', Flag),
        ('v', Flag),
        ('k', Takes(Text)),
        ('s', Takes(Text)),
    ],
    long: &[
        ("--foreground", Flag),
        ("--preserve-status", Flag),
        ("--verbose", Flag),
        ("--kill-after", Takes(Text)),
        ("--signal", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const IONICE: Spec = Spec {
    short: &[
        ('c', Takes(Text)),
        ('n', Takes(Text)),
        ('p', Flag),
        ('P', Flag),
        ('u', Flag),
        ('t', Flag),
    ],
    long: &[
        ("--class", Takes(Text)),
        ("--classdata", Takes(Text)),
        ("--pid", Flag),
        ("--pgid", Flag),
        ("--uid", Flag),
        ("--ignore", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const TASKSET: Spec = Spec {
    short: &[('a', Flag), ('c', Flag), ('p', Flag)],
    long: &[
        ("--all-tasks", Flag),
        ("--cpu-list", Flag),
        ("--pid", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const SETSID: Spec = Spec {
    short: &[('c', Flag), ('f', Flag), ('w', Flag)],
    long: &[
        ("--ctty", Flag),
        ("--fork", Flag),
        ("--wait", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const FLOCK: Spec = Spec {
    short: &[
        ('s', Flag),
        ('x', Flag),
        ('e', Flag),
        ('u', Flag),
        ('n', Flag),
        ('o', Flag),
        ('F', Flag),
        ('w', Takes(Text)),
        ('E', Takes(Text)),
        ('c', Takes(Script)),
    ],
    long: &[
        ("--shared", Flag),
        ("--exclusive", Flag),
        ("--unlock", Flag),
        ("--nonblock", Flag),
        ("--nb", Flag),
        ("--close", Flag),
        ("--no-fork", Flag),
        ("--verbose", Flag),
        ("--timeout", Takes(Text)),
        ("--wait", Takes(Text)),
        ("--conflict-exit-code", Takes(Text)),
        ("--command", Takes(Script)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const WATCH: Spec = Spec {
    short: &[
        ('b', Flag),
        ('c', Flag),
        ('C', Flag),
        ('d', Optional(Text)),
        ('e', Flag),
        ('g', Flag),
        ('n', Takes(Text)),
        ('p', Flag),
        ('q', Takes(Text)),
        ('r', Flag),
        ('s', Takes(Text)),
        ('t', Flag),
        ('w', Flag),
        ('x', Flag),
    ],
    long: &[
        ("--beep", Flag),
        ("--color", Flag),
        ("--no-color", Flag),
        ("--differences", Optional(Text)),
        ("--errexit", Flag),
        ("--chgexit", Flag),
        ("--interval", Takes(Text)),
        ("--precise", Flag),
        ("--equexit", Takes(Text)),
        ("--no-rerun", Flag),
        ("--shotsdir", Takes(File)),
        ("--no-title", Flag),
        ("--no-wrap", Flag),
        ("--no-linewrap", Flag),
        ("--exec", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const CHROOT: Spec = Spec {
    short: &[],
    long: &[
        ("--userspec", Takes(Text)),
        ("--groups", Takes(Text)),
        ("--skip-chdir", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const UNSHARE: Spec = Spec {
    short: &[
        ('m', Flag),
        ('u', Flag),
        ('i', Flag),
        ('n', Flag),
        ('p', Flag),
        ('U', Flag),
        ('C', Flag),
        ('T', Flag),
        ('f', Flag),
        ('r', Flag),
        ('c', Flag),
        ('R', Takes(Root)),
        ('w', Takes(Chdir)),
        ('S', Takes(Text)),
        ('G', Takes(Text)),
        ('l', Flag),
    ],
    long: &[
        ("--mount", Optional(File)),
        ("--uts", Optional(File)),
        ("--ipc", Optional(File)),
        ("--net", Optional(File)),
        ("--pid", Optional(File)),
        ("--user", Optional(File)),
        ("--cgroup", Optional(File)),
        ("--time", Optional(File)),
        ("--fork", Flag),
        ("--kill-child", Optional(Text)),
        ("--mount-proc", Optional(File)),
        ("--map-root-user", Flag),
        ("--map-current-user", Flag),
        ("--map-user", Takes(Text)),
        ("--map-group", Takes(Text)),
        ("--map-users", Takes(Text)),
        ("--map-groups", Takes(Text)),
        ("--map-auto", Flag),
        ("--propagation", Takes(Text)),
        ("--setgroups", Takes(Text)),
        ("--keep-caps", Flag),
        ("--setuid", Takes(Text)),
        ("--setgid", Takes(Text)),
        ("--root", Takes(Root)),
        ("--wd", Takes(Chdir)),
        ("--monotonic", Takes(Text)),
        ("--boottime", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const SU: Spec = Spec {
    short: &[
        ('c', Takes(Script)),
        ('l', Flag),
        ('m', Flag),
        ('p', Flag),
        ('P', Flag),
        ('f', Flag),
        ('s', Takes(Text)),
        ('g', Takes(Text)),
        ('G', Takes(Text)),
        ('u', Takes(Text)),
        ('w', Takes(Text)),
    ],
    long: &[
        ("--command", Takes(Script)),
        ("--session-command", Takes(Script)),
        ("--login", Flag),
        ("--preserve-environment", Flag),
        ("--pty", Flag),
        ("--fast", Flag),
        ("--shell", Takes(Text)),
        ("--group", Takes(Text)),
        ("--supp-group", Takes(Text)),
        ("--user", Takes(Text)),
        ("--whitelist-environment", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const SCRIPT: Spec = Spec {
    short: &[
        ('a', Flag),
        ('c', Takes(Script)),
        ('e', Flag),
        ('f', Flag),
        ('q', Flag),
        ('E', Takes(Text)),
        ('I', Takes(File)),
        ('O', Takes(File)),
        ('B', Takes(File)),
        ('T', Takes(File)),
        ('t', Optional(File)),
        ('m', Takes(Text)),
        ('o', Takes(Text)),
    ],
    long: &[
        ("--append", Flag),
        ("--command", Takes(Script)),
        ("--return", Flag),
        ("--flush", Flag),
        ("--force", Flag),
        ("--quiet", Flag),
        ("--echo", Takes(Text)),
        ("--log-in", Takes(File)),
        ("--log-out", Takes(File)),
        ("--log-io", Takes(File)),
        ("--log-timing", Takes(File)),
        ("--timing", Optional(File)),
        ("--logging-format", Takes(Text)),
        ("--output-limit", Takes(Text)),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const STRACE: Spec = Spec {
    short: &[
        ('o', Takes(File)),
        ('e', Takes(Text)),
        ('p', Takes(Text)),
        ('s', Takes(Text)),
        ('u', Takes(Text)),
        ('E', Takes(Text)),
        ('a', Takes(Text)),
        ('P', Takes(File)),
        ('I', Takes(Text)),
        ('b', Takes(Text)),
        ('O', Takes(Text)),
        ('S', Takes(Text)),
        ('X', Takes(Text)),
        ('f', Flag),
        ('F', Flag),
        ('c', Flag),
        ('C', Flag),
        ('t', Flag),
        ('T', Flag),
        ('r', Flag),
        ('v', Flag),
        ('x', Flag),
        ('y', Flag),
        ('q', Flag),
        ('i', Flag),
        ('k', Flag),
        ('w', Flag),
        ('z', Flag),
        ('Z', Flag),
        ('d', Flag),
        ('D', Flag),
        ('h', Flag),
        ('V', Flag),
        ('n', Flag),
    ],
    long: &[("--output", Takes(File)), ("--help", Flag)],
    numeric: false,
};

const GDB: Spec = Spec {
    short: &[
        ('x', Takes(PatternFile)),
        ('p', Takes(Text)),
        ('c', Takes(File)),
        ('d', Takes(File)),
        ('s', Takes(File)),
        ('e', Takes(File)),
        ('q', Flag),
        ('n', Flag),
    ],
    long: &[
        ("--args", Stop),
        ("-args", Stop),
        ("--batch", Flag),
        ("-batch", Flag),
        ("--command", Takes(PatternFile)),
        ("-ex", Takes(Code)),
        ("-iex", Takes(Code)),
        ("--eval-command", Takes(Code)),
        ("-ix", Takes(PatternFile)),
        ("--init-command", Takes(PatternFile)),
        ("--pid", Takes(Text)),
        ("--quiet", Flag),
        ("--nx", Flag),
        ("-nx", Flag),
    ],
    numeric: false,
};

const NPX: Spec = Spec {
    short: &[
        ('c', Takes(Script)),
        ('p', Takes(Text)),
        ('y', Flag),
        ('q', Flag),
    ],
    long: &[
        ("--call", Takes(Script)),
        ("--package", Takes(Text)),
        ("--yes", Flag),
        ("--no", Flag),
        ("--quiet", Flag),
        ("--no-install", Flag),
        ("--ignore-existing", Flag),
        ("--shell", Takes(Text)),
        ("--workspace", Takes(Chdir)),
        ("--prefix", Takes(Chdir)),
    ],
    numeric: false,
};

const DOTENV: Spec = Spec {
    short: &[
        ('e', Takes(File)),
        ('f', Takes(File)),
        ('c', Optional(Text)),
        ('v', Takes(Text)),
        ('p', Takes(Text)),
        ('o', Flag),
        ('q', Takes(Text)),
        ('x', Takes(Text)),
    ],
    long: &[
        ("--file", Takes(File)),
        ("--debug", Flag),
        ("--override", Flag),
        ("--quiet", Takes(Text)),
        ("--export", Takes(Text)),
    ],
    numeric: false,
};

const PARALLEL: Spec = Spec {
    short: &[
        ('a', Takes(ListFile)),
        ('j', Takes(Text)),
        ('S', Takes(Text)),
        ('k', Flag),
        ('q', Flag),
        ('v', Flag),
        ('X', Flag),
        ('m', Flag),
        ('0', Flag),
        ('u', Flag),
        ('g', Flag),
        ('I', Takes(Text)),
        ('n', Takes(Text)),
        ('N', Takes(Text)),
        ('d', Takes(Text)),
        ('E', Takes(Text)),
        ('C', Takes(Text)),
        ('L', Takes(Text)),
        ('l', Optional(Text)),
        ('e', Optional(Text)),
        ('i', Optional(Text)),
        ('P', Takes(Text)),
        ('s', Takes(Text)),
        ('t', Flag),
        ('r', Flag),
        ('x', Flag),
    ],
    long: &[
        ("--arg-file", Takes(ListFile)),
        ("--jobs", Takes(Text)),
        ("--sshlogin", Takes(Text)),
        ("--workdir", Takes(Chdir)),
        ("--wd", Takes(Chdir)),
        ("--keep-order", Flag),
        ("--quote", Flag),
        ("--verbose", Flag),
        ("--dry-run", Flag),
        ("--will-cite", Flag),
        ("--bar", Flag),
        ("--progress", Flag),
        ("--halt", Takes(Text)),
        ("--delay", Takes(Text)),
        ("--timeout", Takes(Text)),
        ("--results", Takes(File)),
        ("--joblog", Takes(File)),
        ("--colsep", Takes(Text)),
        ("--tag", Flag),
        ("--line-buffer", Flag),
    ],
    numeric: false,
};

const NOHUP_LIKE: Spec = FLAGS_ONLY;

const FIREJAIL: Spec = Spec {
    short: &[],
    long: &[
        ("--profile", Takes(File)),
        ("--private", Optional(File)),
        ("--quiet", Flag),
        ("--noprofile", Flag),
        ("--chroot", Takes(Root)),
        ("--whitelist", Takes(File)),
        ("--blacklist", Takes(File)),
        ("--read-only", Takes(File)),
        ("--read-write", Takes(File)),
        ("--net", Takes(Text)),
        ("--env", Takes(Text)),
        ("--private-cwd", Optional(Chdir)),
        ("--private-home", Takes(File)),
    ],
    numeric: false,
};

const RUNUSER: Spec = SU;

const SG: Spec = Spec {
    short: &[('c', Takes(Script))],
    long: &[("--help", Flag), ("--version", Flag)],
    numeric: false,
};

const XVFB_RUN: Spec = Spec {
    short: &[
        ('a', Flag),
        ('e', Takes(File)),
        ('f', Takes(File)),
        ('n', Takes(Text)),
        ('l', Flag),
        ('p', Takes(Text)),
        ('s', Takes(Text)),
        ('w', Takes(Text)),
    ],
    long: &[
        ("--auto-servernum", Flag),
        ("--error-file", Takes(File)),
        ("--auth-file", Takes(File)),
        ("--server-num", Takes(Text)),
        ("--listen-tcp", Flag),
        ("--xauth-protocol", Takes(Text)),
        ("--server-args", Takes(Text)),
        ("--wait", Takes(Text)),
    ],
    numeric: false,
};

const SYSTEMD_RUN: Spec = Spec {
    short: &[
        ('p', Takes(Text)),
        ('u', Takes(Text)),
        ('E', Takes(Text)),
        ('t', Flag),
        ('P', Flag),
        ('q', Flag),
        ('G', Flag),
        ('S', Flag),
        ('d', Flag),
        ('r', Flag),
        ('H', Takes(Text)),
        ('M', Takes(Text)),
    ],
    long: &[
        ("--property", Takes(Text)),
        ("--unit", Takes(Text)),
        ("--setenv", Takes(Text)),
        ("--working-directory", Takes(Chdir)),
        ("--same-dir", Flag),
        ("--user", Flag),
        ("--scope", Flag),
        ("--pty", Flag),
        ("--pipe", Flag),
        ("--wait", Flag),
        ("--quiet", Flag),
        ("--collect", Flag),
        ("--shell", ShellFlag),
        ("--uid", Takes(Text)),
        ("--gid", Takes(Text)),
        ("--nice", Takes(Text)),
        ("--description", Takes(Text)),
        ("--slice", Takes(Text)),
        ("--host", Takes(Text)),
        ("--machine", Takes(Text)),
    ],
    numeric: false,
};

const VALGRIND: Spec = Spec {
    short: &[('q', Flag), ('v', Flag), ('s', Flag)],
    long: &[
        ("--log-file", Takes(File)),
        ("--tool", Takes(Text)),
        ("--suppressions", Takes(File)),
        ("--quiet", Flag),
        ("--verbose", Flag),
    ],
    numeric: false,
};

const CHRT: Spec = Spec {
    short: &[
        ('a', Flag),
        ('b', Flag),
        ('d', Flag),
        ('e', Flag),
        ('f', Flag),
        ('i', Flag),
        ('m', Flag),
        ('o', Flag),
        ('p', Flag),
        ('r', Flag),
        ('R', Flag),
        ('v', Flag),
        ('T', Takes(Text)),
        ('P', Takes(Text)),
        ('D', Takes(Text)),
    ],
    long: &[],
    numeric: false,
};

const PRLIMIT: Spec = Spec {
    short: &[('p', Takes(Text)), ('o', Takes(Text))],
    long: &[("--pid", Takes(Text)), ("--output", Takes(Text))],
    numeric: false,
};

const NUMACTL: Spec = Spec {
    short: &[
        ('a', Flag),
        ('b', Flag),
        ('l', Flag),
        ('s', Flag),
        ('H', Flag),
        ('i', Takes(Text)),
        ('m', Takes(Text)),
        ('N', Takes(Text)),
        ('C', Takes(Text)),
        ('p', Takes(Text)),
        ('P', Takes(Text)),
        ('w', Takes(Text)),
    ],
    long: &[],
    numeric: false,
};

const CGEXEC: Spec = Spec {
    short: &[('g', Takes(Text))],
    long: &[("--sticky", Flag)],
    numeric: false,
};

const START_PROCESS: Spec = Spec {
    short: &[],
    long: &[
        ("-argumentlist", Takes(Text)),
        ("-workingdirectory", Takes(Chdir)),
        ("-verb", Takes(Text)),
        ("-filepath", Takes(Text)),
        ("-wait", Flag),
        ("-nonewwindow", Flag),
        ("-passthru", Flag),
    ],
    numeric: false,
};

const FAKETIME: Spec = Spec {
    short: &[('f', Flag), ('m', Flag), ('p', Takes(Text))],
    long: &[("--exclude-monotonic", Flag), ("--date-prog", Takes(Text))],
    numeric: false,
};

/// The option table of a wrapper (the programs in [`crate::programs::WRAPPERS`]); `None` when
/// its options are not modelled, so each is read both as taking the next word and not.
pub fn wrapper_spec(wrapper: &str) -> Option<&'static Spec> {
    Some(match wrapper {
        "env" => &ENV,
        "xargs" => &XARGS,
        "sudo" => &SUDO,
        "doas" => &DOAS,
        "nice" => &NICE,
        "nohup" | "builtin" | "busybox" | "unbuffer" | "chronic" | "caffeinate" | "catchsegv"
        | "coproc" | "fakeroot" | "torsocks" | "proxychains" | "proxychains4" | "pkexec"
        | "with-contenv" | "rlwrap" | "tsp" => &NOHUP_LIKE,
        "time" => &TIME,
        "command" => &COMMAND,
        "exec" => &EXEC,
        "stdbuf" => &STDBUF,
        "timeout" => &TIMEOUT,
        "ionice" => &IONICE,
        "taskset" => &TASKSET,
        "setsid" => &SETSID,
        "flock" => &FLOCK,
        "watch" => &WATCH,
        "chroot" => &CHROOT,
        "unshare" => &UNSHARE,
        "su" => &SU,
        "runuser" => &RUNUSER,
        "sg" => &SG,
        "script" => &SCRIPT,
        "strace" | "ltrace" => &STRACE,
        "gdb" => &GDB,
        "npx" | "bunx" | "pnpx" => &NPX,
        "dotenv" => &DOTENV,
        "parallel" | "sem" => &PARALLEL,
        "firejail" => &FIREJAIL,
        "xvfb-run" => &XVFB_RUN,
        "systemd-run" => &SYSTEMD_RUN,
        "valgrind" => &VALGRIND,
        "chrt" => &CHRT,
        "prlimit" => &PRLIMIT,
        "numactl" => &NUMACTL,
        "cgexec" => &CGEXEC,
        "start-process" => &START_PROCESS,
        "faketime" => &FAKETIME,
        _ => return None,
    })
}

/// Wrappers that take fixed positional operands before the command (`timeout 5 cmd`,
/// `chroot DIR cmd`, `flock FILE cmd`, `sg GROUP cmd`).
pub fn wrapper_positionals(wrapper: &str) -> usize {
    match wrapper {
        "timeout" | "chroot" | "flock" | "sg" | "taskset" | "chrt" | "su" | "runuser"
        | "faketime" => 1,
        _ => 0,
    }
}

const GREP: Spec = Spec {
    short: &[
        ('e', Takes(Pattern)),
        ('f', Takes(PatternFile)),
        ('m', Takes(Text)),
        ('A', Takes(Text)),
        ('B', Takes(Text)),
        ('C', Takes(Text)),
        ('d', Takes(Text)),
        ('D', Takes(Text)),
        ('E', Flag),
        ('F', Flag),
        ('G', Flag),
        ('P', Flag),
        ('i', Flag),
        ('y', Flag),
        ('v', Flag),
        ('w', Flag),
        ('x', Flag),
        ('c', Flag),
        ('L', Flag),
        ('l', Flag),
        ('o', Flag),
        ('q', Flag),
        ('s', Flag),
        ('b', Flag),
        ('H', Flag),
        ('h', Flag),
        ('n', Flag),
        ('T', Flag),
        ('Z', Flag),
        ('z', Flag),
        ('a', Flag),
        ('I', Flag),
        ('r', Flag),
        ('R', Flag),
        ('U', Flag),
        ('V', Flag),
    ],
    long: &[
        ("--regexp", Takes(Pattern)),
        ("--file", Takes(PatternFile)),
        ("--max-count", Takes(Text)),
        ("--after-context", Takes(Text)),
        ("--before-context", Takes(Text)),
        ("--context", Takes(Text)),
        ("--directories", Takes(Text)),
        ("--devices", Takes(Text)),
        ("--include", Takes(Text)),
        ("--exclude", Takes(Text)),
        ("--exclude-dir", Takes(Text)),
        ("--exclude-from", Takes(File)),
        ("--label", Takes(Text)),
        ("--color", Optional(Text)),
        ("--colour", Optional(Text)),
        ("--binary-files", Takes(Text)),
        ("--recursive", Flag),
        ("--dereference-recursive", Flag),
        ("--ignore-case", Flag),
        ("--no-ignore-case", Flag),
        ("--invert-match", Flag),
        ("--word-regexp", Flag),
        ("--line-regexp", Flag),
        ("--count", Flag),
        ("--files-with-matches", Flag),
        ("--files-without-match", Flag),
        ("--only-matching", Flag),
        ("--quiet", Flag),
        ("--silent", Flag),
        ("--no-messages", Flag),
        ("--byte-offset", Flag),
        ("--with-filename", Flag),
        ("--no-filename", Flag),
        ("--line-number", Flag),
        ("--null", Flag),
        ("--null-data", Flag),
        ("--text", Flag),
        ("--extended-regexp", Flag),
        ("--fixed-strings", Flag),
        ("--basic-regexp", Flag),
        ("--perl-regexp", Flag),
        ("--line-buffered", Flag),
        ("--help", Flag),
        ("--version", Flag),
    ],
    numeric: false,
};

const RG: Spec = Spec {
    short: &[
        ('e', Takes(Pattern)),
        ('f', Takes(PatternFile)),
        ('g', Takes(Text)),
        ('t', Takes(Text)),
        ('T', Takes(Text)),
        ('m', Takes(Text)),
        ('A', Takes(Text)),
        ('B', Takes(Text)),
        ('C', Takes(Text)),
        ('j', Takes(Text)),
        ('M', Takes(Text)),
        ('E', Takes(Text)),
        ('r', Takes(Text)),
        ('d', Takes(Text)),
    ],
    long: &[
        ("--regexp", Takes(Pattern)),
        ("--file", Takes(PatternFile)),
        ("--glob", Takes(Text)),
        ("--iglob", Takes(Text)),
        ("--type", Takes(Text)),
        ("--type-not", Takes(Text)),
        ("--max-count", Takes(Text)),
        ("--ignore-file", Takes(File)),
        ("--replace", Takes(Text)),
        ("--pre", Takes(Code)),
    ],
    numeric: false,
};

const SED: Spec = Spec {
    short: &[
        ('e', Takes(Pattern)),
        ('f', Takes(PatternFile)),
        ('l', Takes(Text)),
        ('n', Flag),
        ('E', Flag),
        ('r', Flag),
        ('s', Flag),
        ('u', Flag),
        ('z', Flag),
        ('i', Optional(Text)),
        ('b', Flag),
    ],
    long: &[
        ("--expression", Takes(Pattern)),
        ("--file", Takes(PatternFile)),
        ("--line-length", Takes(Text)),
        ("--in-place", Optional(Text)),
        ("--quiet", Flag),
        ("--silent", Flag),
        ("--regexp-extended", Flag),
        ("--separate", Flag),
        ("--sandbox", Flag),
        ("--debug", Flag),
        ("--posix", Flag),
        ("--null-data", Flag),
        ("--unbuffered", Flag),
        ("--follow-symlinks", Flag),
    ],
    numeric: false,
};

const AWK: Spec = Spec {
    short: &[
        ('f', Takes(PatternFile)),
        ('v', Takes(Text)),
        ('F', Takes(Text)),
        ('e', Takes(Pattern)),
        ('i', Takes(PatternFile)),
        ('l', Takes(PatternFile)),
        ('E', Takes(PatternFile)),
    ],
    long: &[
        ("--file", Takes(PatternFile)),
        ("--source", Takes(Pattern)),
        ("--include", Takes(PatternFile)),
        ("--load", Takes(PatternFile)),
        ("--exec", Takes(PatternFile)),
        ("--assign", Takes(Text)),
        ("--field-separator", Takes(Text)),
    ],
    numeric: false,
};

const HEAD: Spec = Spec {
    short: &[
        ('n', Takes(Text)),
        ('c', Takes(Text)),
        ('s', Takes(Text)),
        ('q', Flag),
        ('v', Flag),
        ('z', Flag),
        ('f', Flag),
        ('F', Flag),
    ],
    long: &[
        ("--lines", Takes(Text)),
        ("--bytes", Takes(Text)),
        ("--pid", Takes(Text)),
        ("--sleep-interval", Takes(Text)),
        ("--follow", Optional(Text)),
    ],
    numeric: true,
};

const JQ: Spec = Spec {
    short: &[
        ('f', Takes(PatternFile)),
        ('L', Takes(File)),
        ('n', Flag),
        ('r', Flag),
        ('j', Flag),
        ('a', Flag),
        ('s', Flag),
        ('c', Flag),
        ('C', Flag),
        ('M', Flag),
        ('S', Flag),
        ('e', Flag),
        ('R', Flag),
        ('h', Flag),
        ('V', Flag),
    ],
    long: &[
        ("--from-file", Takes(PatternFile)),
        ("--library-path", Takes(File)),
        ("--arg", Takes(NamedText)),
        ("--argjson", Takes(NamedText)),
        ("--slurpfile", Takes(NamedFile)),
        ("--rawfile", Takes(NamedFile)),
        ("--indent", Takes(Text)),
        ("--tab", Flag),
        ("--args", Flag),
        ("--jsonargs", Flag),
        ("--seq", Flag),
        ("--stream", Flag),
        ("--slurp", Flag),
        ("--raw-input", Flag),
        ("--null-input", Flag),
        ("--raw-output", Flag),
        ("--compact-output", Flag),
        ("--exit-status", Flag),
    ],
    numeric: false,
};

const YQ: Spec = Spec {
    short: &[
        ('I', Takes(Text)),
        ('o', Takes(Text)),
        ('p', Takes(Text)),
        ('s', Takes(Text)),
        ('f', Takes(Text)),
        ('L', Takes(File)),
        ('i', Flag),
        ('n', Flag),
        ('e', Flag),
        ('r', Flag),
        ('C', Flag),
        ('M', Flag),
        ('P', Flag),
        ('N', Flag),
        ('j', Flag),
        ('y', Flag),
        ('c', Flag),
    ],
    long: &[
        ("--from-file", Takes(PatternFile)),
        ("--arg", Takes(NamedText)),
        ("--argjson", Takes(NamedText)),
        ("--slurpfile", Takes(NamedFile)),
        ("--rawfile", Takes(NamedFile)),
        ("--indent", Takes(Text)),
        ("--output-format", Takes(Text)),
        ("--input-format", Takes(Text)),
        ("--split-exp", Takes(Text)),
        ("--front-matter", Takes(Text)),
        ("--expression", Takes(Pattern)),
    ],
    numeric: false,
};

const CUT: Spec = Spec {
    short: &[
        ('d', Takes(Text)),
        ('f', Takes(Text)),
        ('c', Takes(Text)),
        ('b', Takes(Text)),
        ('s', Flag),
        ('n', Flag),
        ('z', Flag),
    ],
    long: &[
        ("--delimiter", Takes(Text)),
        ("--fields", Takes(Text)),
        ("--characters", Takes(Text)),
        ("--bytes", Takes(Text)),
        ("--output-delimiter", Takes(Text)),
    ],
    numeric: false,
};

const SORT: Spec = Spec {
    short: &[
        ('t', Takes(Text)),
        ('k', Takes(Text)),
        ('S', Takes(Text)),
        ('o', Takes(File)),
        ('T', Takes(Text)),
    ],
    long: &[
        ("--field-separator", Takes(Text)),
        ("--key", Takes(Text)),
        ("--buffer-size", Takes(Text)),
        ("--output", Takes(File)),
        ("--temporary-directory", Takes(Text)),
        ("--files0-from", Takes(ListFile)),
        ("--random-source", Takes(File)),
        // Temporary files go through this command.
        ("--compress-program", Takes(Code)),
    ],
    numeric: false,
};

const TAR: Spec = Spec {
    short: &[
        ('f', Takes(File)),
        ('T', Takes(ListFile)),
        ('X', Takes(File)),
        ('C', Takes(Chdir)),
        ('I', Takes(Code)),
        ('K', Takes(Text)),
        ('N', Takes(Text)),
        ('V', Takes(Text)),
        ('b', Takes(Text)),
        ('L', Takes(Text)),
        ('g', Takes(File)),
        ('F', Takes(Code)),
    ],
    long: &[
        ("--file", Takes(File)),
        ("--files-from", Takes(ListFile)),
        ("--exclude-from", Takes(File)),
        ("--directory", Takes(Chdir)),
        ("--use-compress-program", Takes(Code)),
        ("--to-command", Takes(Code)),
        ("--info-script", Takes(Code)),
        ("--new-volume-script", Takes(Code)),
        ("--rsh-command", Takes(Code)),
        ("--checkpoint-action", Takes(Code)),
        ("--listed-incremental", Takes(File)),
        ("--exclude", Takes(Text)),
        ("--transform", Takes(Text)),
        ("--xform", Takes(Text)),
    ],
    numeric: false,
};

const ZIP: Spec = Spec {
    short: &[('x', Takes(Text)), ('i', Takes(Text)), ('P', Takes(Text))],
    // `-T -TT cmd` / `--unzip-command cmd`: the archive test runs the command.
    long: &[("-TT", Takes(Code)), ("--unzip-command", Takes(Code))],
    numeric: false,
};

/// rsync runs its remote shell and remote rsync as commands, locally too.
const RSYNC: Spec = Spec {
    short: &[('e', Takes(Code))],
    long: &[("--rsh", Takes(Code)), ("--rsync-path", Takes(Code))],
    numeric: false,
};

/// `split --filter=cmd` runs the command on each piece.
const SPLIT: Spec = Spec {
    short: &[],
    long: &[("--filter", Takes(Code))],
    numeric: false,
};

const OPENSSL: Spec = Spec {
    short: &[],
    long: &[
        ("-in", Takes(File)),
        ("-inkey", Takes(File)),
        ("-key", Takes(File)),
        ("-cert", Takes(File)),
        // A configuration file's `.include` reads any file, as a source's `#include` does.
        ("-config", Takes(Code)),
        ("-kfile", Takes(File)),
        ("-pass", Takes(File)),
        ("-passin", Takes(File)),
        ("-out", Takes(File)),
        ("-signkey", Takes(File)),
        ("-CAfile", Takes(File)),
        ("-CA", Takes(File)),
        ("-CAkey", Takes(File)),
        ("-rand", Takes(File)),
        ("-writerand", Takes(File)),
        ("-secret", Takes(File)),
    ],
    numeric: false,
};

const GPG: Spec = Spec {
    short: &[('r', Takes(Text)), ('u', Takes(Text)), ('o', Takes(File))],
    long: &[
        ("--recipient", Takes(Text)),
        ("--local-user", Takes(Text)),
        ("--output", Takes(File)),
        ("--passphrase-file", Takes(File)),
        ("--homedir", Takes(File)),
    ],
    numeric: false,
};

const CURL: Spec = Spec {
    short: &[
        ('T', Takes(CurlFile)),
        ('K', Takes(ListFile)),
        ('E', Takes(CurlFile)),
        ('b', Takes(CurlFile)),
        ('c', Takes(CurlFile)),
        ('o', Takes(CurlFile)),
        ('D', Takes(CurlFile)),
        ('d', Takes(CurlData)),
        ('F', Takes(CurlData)),
        ('H', Takes(CurlData)),
        ('X', Takes(Text)),
        ('u', Takes(Text)),
        ('A', Takes(Text)),
        ('e', Takes(Text)),
        ('x', Takes(Text)),
        ('m', Takes(Text)),
        ('w', Takes(CurlData)),
        ('r', Takes(Text)),
        ('C', Takes(Text)),
        ('Y', Takes(Text)),
        ('y', Takes(Text)),
        ('z', Takes(CurlData)),
        ('Q', Takes(Text)),
        ('t', Takes(Text)),
        ('U', Takes(Text)),
        ('P', Takes(Text)),
        ('s', Flag),
        ('S', Flag),
        ('L', Flag),
        ('f', Flag),
        ('k', Flag),
        ('v', Flag),
        ('i', Flag),
        ('I', Flag),
        ('O', Flag),
        ('J', Flag),
        ('g', Flag),
        ('G', Flag),
        ('n', Flag),
        ('N', Flag),
        ('l', Flag),
        ('R', Flag),
        ('q', Flag),
        ('Z', Flag),
        ('0', Flag),
        ('1', Flag),
        ('2', Flag),
        ('3', Flag),
        ('4', Flag),
        ('6', Flag),
        ('#', Flag),
    ],
    long: &[
        ("--upload-file", Takes(CurlFile)),
        ("--config", Takes(ListFile)),
        ("--cacert", Takes(CurlFile)),
        ("--cert", Takes(CurlFile)),
        ("--key", Takes(CurlFile)),
        ("--netrc-file", Takes(CurlFile)),
        ("--cookie", Takes(CurlFile)),
        ("--cookie-jar", Takes(CurlFile)),
        ("--output", Takes(CurlFile)),
        ("--dump-header", Takes(CurlFile)),
        ("--url", Takes(CurlFile)),
        ("--capath", Takes(CurlFile)),
        ("--crlfile", Takes(CurlFile)),
        ("--key-type", Takes(CurlFile)),
        ("--proxy-cacert", Takes(CurlFile)),
        ("--proxy-cert", Takes(CurlFile)),
        ("--proxy-key", Takes(CurlFile)),
        ("--etag-compare", Takes(CurlFile)),
        ("--etag-save", Takes(CurlFile)),
        ("--trace", Takes(CurlFile)),
        ("--trace-ascii", Takes(CurlFile)),
        ("--stderr", Takes(CurlFile)),
        ("--libcurl", Takes(CurlFile)),
        ("--unix-socket", Takes(CurlFile)),
        ("--abstract-unix-socket", Takes(CurlFile)),
        ("--expand-url", Takes(CurlFile)),
        ("--output-dir", Takes(CurlFile)),
        ("--data", Takes(CurlData)),
        ("--data-binary", Takes(CurlData)),
        ("--data-ascii", Takes(CurlData)),
        ("--data-urlencode", Takes(CurlData)),
        ("--data-raw", Takes(CurlData)),
        ("--json", Takes(CurlData)),
        ("--form", Takes(CurlData)),
        ("--form-string", Takes(CurlData)),
        ("--header", Takes(CurlData)),
        ("--proxy-header", Takes(CurlData)),
        ("--write-out", Takes(CurlData)),
        ("--time-cond", Takes(CurlData)),
        ("--variable", Takes(CurlData)),
        ("--expand-data", Takes(CurlData)),
        ("--expand-header", Takes(CurlData)),
        ("--request", Takes(Text)),
        ("--user", Takes(Text)),
        ("--user-agent", Takes(Text)),
        ("--referer", Takes(Text)),
        ("--proxy", Takes(Text)),
        ("--max-time", Takes(Text)),
        ("--range", Takes(Text)),
        ("--continue-at", Takes(Text)),
        ("--quote", Takes(Text)),
        ("--telnet-option", Takes(Text)),
        ("--retry", Takes(Text)),
        ("--connect-timeout", Takes(Text)),
        ("--resolve", Takes(Text)),
        ("--connect-to", Takes(Text)),
    ],
    numeric: false,
};

const WGET: Spec = Spec {
    short: &[
        ('i', Takes(ListFile)),
        ('O', Takes(Text)),
        ('o', Takes(Text)),
        ('P', Takes(Text)),
        ('U', Takes(Text)),
        ('e', Takes(Code)),
    ],
    long: &[
        ("--input-file", Takes(ListFile)),
        ("--post-file", Takes(File)),
        ("--body-file", Takes(File)),
        ("--header", Takes(Text)),
        ("--user-agent", Takes(Text)),
        ("--execute", Takes(Code)),
        ("--config", Takes(File)),
        ("--load-cookies", Takes(File)),
        ("--certificate", Takes(File)),
        ("--private-key", Takes(File)),
        ("--ca-certificate", Takes(File)),
        ("--use-askpass", Takes(Code)),
    ],
    numeric: false,
};

/// git's own options, before the subcommand.
const GIT: Spec = Spec {
    short: &[
        ('C', Takes(Chdir)),
        ('c', Takes(GitSetting)),
        ('p', Flag),
        ('P', Flag),
        ('v', Flag),
        ('h', Flag),
    ],
    long: &[
        ("--git-dir", Takes(File)),
        ("--work-tree", Takes(File)),
        ("--namespace", Takes(Text)),
        ("--exec-path", Optional(Code)),
        ("--config-env", Takes(GitSetting)),
        ("--super-prefix", Takes(Text)),
        ("--list-cmds", Takes(Text)),
        ("--attr-source", Takes(Text)),
        ("--paginate", Flag),
        ("--no-pager", Flag),
        ("--bare", Flag),
        ("--no-replace-objects", Flag),
        ("--no-lazy-fetch", Flag),
        ("--no-optional-locks", Flag),
        ("--no-advice", Flag),
        ("--literal-pathspecs", Flag),
        ("--glob-pathspecs", Flag),
        ("--noglob-pathspecs", Flag),
        ("--icase-pathspecs", Flag),
        ("--html-path", Flag),
        ("--man-path", Flag),
        ("--info-path", Flag),
        ("--version", Flag),
        ("--help", Flag),
    ],
    numeric: false,
};

/// Options of git subcommands whose values are not pathspecs.
const GIT_SUBCOMMAND: Spec = Spec {
    short: &[
        ('m', Takes(Text)),
        ('b', Takes(Text)),
        ('B', Takes(Text)),
        ('F', Takes(File)),
        ('e', Takes(Pattern)),
        ('f', Takes(PatternFile)),
        ('n', Flag),
        ('i', Flag),
        ('l', Flag),
        ('w', Flag),
        ('v', Flag),
        ('q', Flag),
        ('a', Flag),
        ('s', Flag),
        ('u', Flag),
        ('p', Flag),
    ],
    long: &[
        ("--message", Takes(Text)),
        ("--author", Takes(Text)),
        ("--format", Takes(Text)),
        ("--pretty", Optional(Text)),
        ("--file", Takes(File)),
        ("--upload-pack", Takes(Code)),
        ("--receive-pack", Takes(Code)),
        ("--exec", Takes(Code)),
        ("--template", Takes(File)),
        ("--separate-git-dir", Takes(File)),
        ("--reference", Takes(File)),
        ("--prefix", Takes(File)),
        ("--output", Takes(File)),
        ("--output-directory", Takes(File)),
    ],
    numeric: false,
};

const MAKE: Spec = Spec {
    short: &[
        ('C', Takes(Chdir)),
        ('f', Takes(File)),
        ('I', Takes(File)),
        ('j', Optional(Text)),
        ('l', Optional(Text)),
        ('o', Takes(File)),
        ('W', Takes(File)),
        ('E', Takes(Code)),
        ('O', Optional(Text)),
        ('b', Flag),
        ('B', Flag),
        ('d', Flag),
        ('e', Flag),
        ('i', Flag),
        ('k', Flag),
        ('L', Flag),
        ('n', Flag),
        ('p', Flag),
        ('q', Flag),
        ('r', Flag),
        ('R', Flag),
        ('s', Flag),
        ('S', Flag),
        ('t', Flag),
        ('v', Flag),
        ('w', Flag),
    ],
    long: &[
        ("--directory", Takes(Chdir)),
        ("--file", Takes(File)),
        ("--makefile", Takes(File)),
        ("--include-dir", Takes(File)),
        ("--jobs", Optional(Text)),
        ("--load-average", Optional(Text)),
        ("--old-file", Takes(File)),
        ("--assume-old", Takes(File)),
        ("--what-if", Takes(File)),
        ("--new-file", Takes(File)),
        ("--assume-new", Takes(File)),
        ("--eval", Takes(Code)),
        ("--output-sync", Optional(Text)),
        ("--debug", Optional(Text)),
        ("--shuffle", Optional(Text)),
        ("--jobserver-style", Takes(Text)),
    ],
    numeric: false,
};

const COMPILER: Spec = Spec {
    short: &[
        ('o', Takes(File)),
        ('x', Takes(Text)),
        ('D', Takes(Text)),
        ('U', Takes(Text)),
        ('I', Takes(File)),
        ('L', Takes(File)),
        ('l', Takes(Text)),
        ('B', Takes(File)),
        ('T', Takes(File)),
        ('u', Takes(Text)),
        ('z', Takes(Text)),
        ('e', Takes(Text)),
    ],
    long: &[
        ("-include", Takes(File)),
        ("-imacros", Takes(File)),
        ("-isystem", Takes(File)),
        ("-iquote", Takes(File)),
        ("-idirafter", Takes(File)),
        ("-iprefix", Takes(File)),
        ("-iwithprefix", Takes(File)),
        ("-iwithprefixbefore", Takes(File)),
        ("-isysroot", Takes(File)),
        ("-imultilib", Takes(File)),
        ("-MF", Takes(File)),
        ("-MT", Takes(Text)),
        ("-MQ", Takes(Text)),
        ("-Xlinker", Takes(Text)),
        ("-Xassembler", Takes(Text)),
        ("-Xpreprocessor", Takes(Text)),
        ("-Xclang", Takes(Text)),
        ("-aux-info", Takes(File)),
        ("-dumpdir", Takes(File)),
        ("-dumpbase", Takes(Text)),
        ("-wrapper", Takes(Code)),
        ("-fplugin", Takes(Code)),
        ("-specs", Takes(File)),
        ("--sysroot", Takes(File)),
        ("--include", Takes(File)),
        ("--include-directory", Takes(File)),
        ("--output", Takes(File)),
        ("--imacros", Takes(File)),
    ],
    numeric: false,
};

const SSH: Spec = Spec {
    short: &[
        ('i', Takes(File)),
        ('F', Takes(File)),
        // scp's and sftp's `-S program`, and `-o ProxyCommand=…` / `LocalCommand` /
        // `KnownHostsCommand`: commands the client runs here.
        ('S', Takes(Code)),
        ('E', Takes(File)),
        ('p', Takes(Text)),
        ('P', Takes(Text)),
        ('o', Takes(Code)),
        ('l', Takes(Text)),
        ('J', Takes(Text)),
        ('L', Takes(Text)),
        ('R', Takes(Text)),
        ('D', Takes(Text)),
        ('c', Takes(Text)),
        ('b', Takes(Text)),
        ('e', Takes(Text)),
        ('m', Takes(Text)),
        ('O', Takes(Text)),
        ('Q', Takes(Text)),
        ('W', Takes(Text)),
        ('w', Takes(Text)),
        ('B', Takes(Text)),
        ('I', Takes(Text)),
    ],
    long: &[],
    numeric: false,
};

/// The option table of a program that is not a wrapper; `None` when its options are not
/// modelled (each option word then yields its possible glued values).
pub fn program_spec(program: &str) -> Option<&'static Spec> {
    Some(match program {
        "grep" | "egrep" | "fgrep" | "zgrep" | "zegrep" | "zfgrep" => &GREP,
        "rg" => &RG,
        "sed" => &SED,
        "awk" | "gawk" | "mawk" | "nawk" => &AWK,
        "head" | "tail" => &HEAD,
        "jq" | "gojq" | "jaq" => &JQ,
        "yq" => &YQ,
        "cut" => &CUT,
        "sort" => &SORT,
        "tar" | "bsdtar" | "gtar" => &TAR,
        "zip" => &ZIP,
        "openssl" => &OPENSSL,
        "gpg" | "gpg2" => &GPG,
        "curl" => &CURL,
        "wget" => &WGET,
        "make" | "gmake" => &MAKE,
        "ssh" | "scp" | "sftp" => &SSH,
        "rsync" => &RSYNC,
        "split" => &SPLIT,
        _ if is_compiler(program) => &COMPILER,
        _ => return None,
    })
}

/// The options of git before its subcommand, and of the subcommand.
pub fn git_specs() -> (&'static Spec, &'static Spec) {
    (&GIT, &GIT_SUBCOMMAND)
}

/// The index of git's subcommand in `args` (the words after `git`), read with git's own
/// options (the one table both the operand walk and the change record use).
pub fn git_subcommand(args: &[&str]) -> Option<usize> {
    let mut at = 0;
    while at < args.len() {
        let (found, next) = items(Some(&GIT), args, at);
        if found
            .iter()
            .any(|item| matches!(item, Item::Operand { .. }))
        {
            return Some(at);
        }
        if found
            .iter()
            .any(|item| matches!(item, Item::DoubleDash { .. }))
        {
            return None;
        }
        at = next;
    }
    None
}

/// C-family compilers, preprocessors and assemblers: they read every file their sources
/// `#include` (and `-include`), found through folders they search.
pub fn is_compiler(program: &str) -> bool {
    matches!(
        program,
        "gcc"
            | "g++"
            | "cc"
            | "c++"
            | "c89"
            | "c99"
            | "clang"
            | "clang++"
            | "clang-cl"
            | "cpp"
            | "tcc"
            | "icc"
            | "icx"
            | "nvcc"
            | "emcc"
            | "em++"
            | "zig"
            | "gfortran"
            | "as"
            | "gas"
            | "nasm"
            | "yasm"
            | "m4"
            | "gm4"
            | "clang-tidy"
            | "clang-check"
            | "cppcheck"
            | "bindgen"
            | "swig"
            | "windres"
            | "rustc"
            | "rustdoc"
            | "ghc"
            | "ld"
            | "ld.lld"
            | "ld.gold"
            | "ld.bfd"
            | "lld"
    ) || program.starts_with("gcc-")
        || program.starts_with("clang-1")
        || program.starts_with("g++-")
        || program.ends_with("-gcc")
        || program.ends_with("-g++")
        || program.ends_with("-cc")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(spec: Option<&Spec>, words: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < words.len() {
            let (found, next) = items(spec, words, at);
            for item in found {
                out.push(match item {
                    Item::Flag { at, .. } => format!("flag {}", words[at]),
                    Item::Value {
                        option,
                        value,
                        place,
                        ..
                    } => match place {
                        At::Glued(v) => format!("{option}={v} {value:?}"),
                        At::Word(i) => format!("{option} {} {value:?}", words[i]),
                        At::Missing => format!("{option} {value:?}"),
                    },
                    Item::Unknown {
                        tails,
                        may_take_next,
                        ..
                    } => format!("unknown {tails:?} {may_take_next}"),
                    Item::DoubleDash { .. } => "--".to_owned(),
                    Item::Operand { at } => format!("operand {}", words[at]),
                });
            }
            at = next;
        }
        out
    }

    #[test]
    fn glued_values_long_values_prefixes_and_bundles_read_alike() {
        let xargs = wrapper_spec("xargs");
        assert_eq!(
            read(xargs, &["-a.env", "cat"]),
            ["a=.env ListFile", "operand cat"]
        );
        assert_eq!(
            read(xargs, &["-0a", ".env"]),
            ["flag -0a", "a .env ListFile"]
        );
        assert_eq!(
            read(xargs, &["--arg-file=.env"]),
            ["--arg-file=.env ListFile"]
        );
        assert_eq!(read(xargs, &["--arg=.env"]), ["--arg-file=.env ListFile"]);
        assert_eq!(read(xargs, &["-i{}"]), ["i={} Text"]);
        let env = wrapper_spec("env");
        assert_eq!(read(env, &["-Csecrets"]), ["C=secrets Chdir"]);
        assert_eq!(
            read(env, &["-iCsecrets"]),
            ["flag -iCsecrets", "C=secrets Chdir"]
        );
        assert_eq!(read(env, &["--ch=x"]), ["--chdir=x Chdir"]);
        assert_eq!(
            read(env, &["-Z.env"]),
            ["unknown [\".env\", \"env\", \"nv\", \"v\"] false"]
        );
        assert_eq!(read(None, &["-pnf.env"]).len(), 1);
        let gcc = program_spec("gcc");
        assert_eq!(read(gcc, &["-include.env"]), ["-include=.env File"]);
        assert_eq!(read(gcc, &["-include", ".env"]), ["-include .env File"]);
        let jq = program_spec("jq");
        assert_eq!(
            read(jq, &["--rawfile", "a", ".env", "."]),
            ["--rawfile a NamedFile", "operand ."]
        );
    }

    #[test]
    fn env_split_string_splits_as_gnu_env_does() {
        let words = |t: &str| {
            env_split_string(t).map(|w| w.into_iter().map(|(w, _)| w).collect::<Vec<_>>())
        };
        assert_eq!(words("cat .env"), Some(vec!["cat".into(), ".env".into()]));
        assert_eq!(words("cat\\_.env"), Some(vec!["cat".into(), ".env".into()]));
        assert_eq!(
            words("cat '.e'\"nv\""),
            Some(vec!["cat".into(), ".env".into()])
        );
        assert_eq!(
            words("cat .env\\c x"),
            Some(vec!["cat".into(), ".env".into()])
        );
        assert_eq!(words("cat #.env"), Some(vec!["cat".into()]));
        assert_eq!(words("cat \\q"), None);
        assert_eq!(
            env_split_string("cat ${X}"),
            Some(vec![("cat".into(), false), ("".into(), true)])
        );
    }

    #[test]
    fn git_subcommand_skips_git_options_and_their_values() {
        assert_eq!(git_subcommand(&["-C", "x", "-c", "a=b", "log"]), Some(4));
        assert_eq!(git_subcommand(&["-Cx", "log"]), Some(1));
        assert_eq!(git_subcommand(&["--git-dir=x", "show"]), Some(1));
        assert_eq!(git_subcommand(&["--no-pager"]), None);
    }
}
