//! Shell-command vetting: parses a command line with the tree-sitter-bash grammar, walks every
//! command it would run and judges their file operands through an [`Oracle`] that knows the access
//! rule. Three answers: allowed, blocked (with the argument as typed) or undecidable (with the
//! construct that hides what would be read). Grammars compile C, so this lives outside the core.
//!
//! ## Decision: Command vetting on a real shell grammar, in its own crate, with three verdicts
//!
//! `crates/shell` parses with tree-sitter-bash and judges; the core gains no C dependency and
//! rebuilds fast (decision of issue 12: the grammar walk and the program knowledge sit together,
//! because nested scripts such as `bash -c '…'` and `eval` must be parsed again in the middle of a
//! judgement, so a neutral representation handed to the core would need a call back into the parser
//! anyway). Where the grammar misreads bash (a command it names `case`, `if`, ... is a keyword bash
//! would have obeyed), the verdict is `undecidable`. The access rule stays the core's one function
//! (`Policy::check_access`): the server hands it to the shell crate's `FsOracle` as a closure, so
//! the shell crate decides nothing about paths itself. `FsOracle` does the file-system work (glob
//! expansion through symlinked folders, recursive-reader tree walks, "does this operand exist")
//! with one budget per command (256 glob words, 50,000 entries), past which the answer is
//! `undecidable`, never `allowed`. A folder operand of a recursive reader is blocked when the rule
//! blocks everything inside it (a probe name under it is blocked) and undecidable when only some
//! files inside are. `cd` and `pushd` with literal operands are tracked as a set of possible
//! folders (a `cd` may fail, so the old folder stays possible); a non-literal one makes later reads
//! undecidable. Walk depth, script nesting, brace expansion and input size are bounded; tests count
//! oracle calls to show the work is linear. The old two-answer `blockedPath` field is kept;
//! `verdict`, `reason`, `construct` and `snippet` are new. `check --command` exits 0/1/3.

mod fs_oracle;
mod options;
mod programs;
mod walk;
mod words;

pub use fs_oracle::{FsOracle, GLOB_WORD_BUDGET, VISIT_BUDGET};

/// The answer for one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing the command names is blocked, and everything it would read is known.
    Allowed,
    /// An argument names a blocked path.
    Blocked(BlockedArgument),
    /// What the command would read cannot be known from its text.
    Undecidable(Undecidable),
}

impl Verdict {
    /// `allowed`, `blocked` or `undecidable`, as on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Blocked(_) => "blocked",
            Verdict::Undecidable(_) => "undecidable",
        }
    }
}

/// An argument that names a blocked path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedArgument {
    /// The argument as the user typed it (quotes included).
    pub typed: String,
    /// The reading of it that the oracle refused: the unquoted word (joined to the folder a
    /// literal `cd` moved to), the value of `--opt=value`, the path of `REV:path`, a glob match.
    pub path: String,
}

/// Why a command cannot be judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecidable {
    /// The kind of construct.
    pub construct: Construct,
    /// The source text of the construct (at most 200 bytes).
    pub snippet: String,
}

/// Constructs that hide what a command reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Construct {
    /// A variable or parameter expansion in an operand (`cat $f`).
    Variable,
    /// A command substitution in an operand (`cat $(echo .env)`).
    Substitution,
    /// Code given inline to an interpreter (`python3 -c`, `node -e`, a here-document to `python`).
    InlineCode,
    /// `eval` (or `Invoke-Expression`) of text that is not literal.
    Eval,
    /// `xargs` building operands from its input, or a program reading a list of files to read
    /// (`tar -T list`, `rsync --files-from`).
    XargsInput,
    /// A shell reading its script from a pipe or another unknown source.
    ScriptFromInput,
    /// `cd`/`pushd`/`popd` to a folder that is not literal.
    DynamicDirectory,
    /// The program's name is not literal (`$EDITOR x`).
    DynamicProgram,
    /// A command that runs on another machine or in a container.
    Remote,
    /// A recursive read of a folder tree that contains blocked paths.
    RecursiveRead,
    /// A size, depth or file-system walk limit was reached.
    Limit,
    /// The command does not parse as shell syntax.
    Unparsed,
    /// Shell state the vetting does not model changes (`HOME=x`, `CDPATH`, `BASH_ENV`,
    /// `shopt -s cdable_vars`, a function named `cd`), so later names mean something else.
    ShellState,
    /// A name an earlier command may have created or replaced (`ln`, `mv`, `tar x`, `unzip`,
    /// `git checkout`) is read, and what it is now cannot be judged.
    ChangedFile,
    /// A path under `/proc/self`, `/proc/<pid>` or `/dev/fd` other than a plain descriptor: it
    /// is seen from the process that opens it (its folder, its root), not from the sidecar.
    ProcessFile,
    /// A link (hard or symbolic) to a write-protected file: writes through the new name would
    /// change the protected file.
    ProtectedLink,
    /// A script or program file runs (`./x.sh`, `python x.py`, `awk -f x`, `make`, `npm run`,
    /// a compiler's `#include`s): the file can be written by the agent and can read any file.
    ScriptFile,
    /// A regular file with more than one name (hard link) while rules block some files: one
    /// of its other names may be blocked, and finding them means walking every folder.
    HardLink,
    /// While rules block something, a program whose file access the vetting does not know (it
    /// is on none of its tables): it may run code the agent wrote or read files its arguments
    /// do not name.
    UnknownProgram,
}

impl Construct {
    /// The camelCase wire name.
    pub fn name(self) -> &'static str {
        match self {
            Construct::Variable => "variable",
            Construct::Substitution => "commandSubstitution",
            Construct::InlineCode => "inlineCode",
            Construct::Eval => "eval",
            Construct::XargsInput => "xargsInput",
            Construct::ScriptFromInput => "scriptFromInput",
            Construct::DynamicDirectory => "dynamicDirectory",
            Construct::DynamicProgram => "dynamicProgram",
            Construct::Remote => "remote",
            Construct::RecursiveRead => "recursiveRead",
            Construct::Limit => "limit",
            Construct::Unparsed => "unparsed",
            Construct::ShellState => "shellState",
            Construct::ChangedFile => "changedFile",
            Construct::ProcessFile => "processFile",
            Construct::ProtectedLink => "protectedLink",
            Construct::ScriptFile => "scriptFile",
            Construct::HardLink => "hardLink",
            Construct::UnknownProgram => "unknownProgram",
        }
    }

    /// A sentence for the user.
    pub fn reason(self) -> &'static str {
        match self {
            Construct::Variable => "an operand depends on a variable, so what is read is unknown",
            Construct::Substitution => {
                "an operand depends on a command substitution, so what is read is unknown"
            }
            Construct::InlineCode => "inline interpreter code can read any file",
            Construct::Eval => "eval of text that is not literal can run anything",
            Construct::XargsInput => {
                "the files to read come from its input or a list file (xargs, tar -T)"
            }
            Construct::ScriptFromInput => "a shell runs a script from its input",
            Construct::DynamicDirectory => "the working folder changes to one that is not literal",
            Construct::DynamicProgram => "the program's name is not literal",
            Construct::Remote => "the command runs on another machine or in a container",
            Construct::RecursiveRead => "a recursive read covers a folder with blocked files",
            Construct::Limit => "a size, depth or walk limit was reached",
            Construct::Unparsed => "the command does not parse as shell syntax",
            Construct::ShellState => {
                "the command changes shell state (HOME, CDPATH, BASH_ENV, shell options) that decides what names mean"
            }
            Construct::ChangedFile => {
                "a file is read after the command may have created or replaced it (a link, a move, an unpacked archive, a checkout)"
            }
            Construct::ProcessFile => {
                "a /proc or /dev/fd path is seen from the reading process, not from the workspace"
            }
            Construct::ProtectedLink => "a link to a write-protected file would let writes through",
            Construct::HardLink => {
                "the file has more than one name (a hard link), and another name may be blocked"
            }
            Construct::ScriptFile => {
                "a script or source file in the workspace runs or is compiled, and what it reads is not in the command"
            }
            Construct::UnknownProgram => {
                "the program is not one whose file access is known: it may run workspace code or read files its arguments do not name"
            }
        }
    }
}

/// What the oracle says about one reading of an operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// Readable (or nothing readable matches).
    Clear,
    /// Blocked; the path that is blocked (for a glob or a tree, the first blocked match).
    Blocked(String),
    /// Cannot tell (a walk limit, a tree with some blocked files).
    Unknown(Construct),
}

/// The access rule as the vetting sees it. Paths are relative to the folder the command starts in
/// (joined to any literal `cd`), or absolute.
pub trait Oracle {
    /// A file operand. `glob` says the word has unquoted glob characters the shell would expand.
    fn path(&self, path: &str, glob: bool) -> Judgement;
    /// A folder operand of a recursive reader or copier: blocked when the folder's contents are
    /// blocked, unknown when only some are.
    fn tree(&self, path: &str, glob: bool) -> Judgement;
    /// Whether `path` names an existing file or folder that is blocked (operands of any program).
    fn existing_blocked(&self, path: &str) -> bool;
    /// The home folder for `~`, when known.
    fn home(&self) -> Option<String> {
        None
    }
    /// Whether `path` names an existing file or folder (links followed or not): a git operand
    /// that exists is a pathspec, one that does not is a revision.
    fn exists(&self, path: &str) -> bool {
        let _ = path;
        false
    }
    /// Whether `path` is an existing regular file with more than one name (hard links) while
    /// rules block some files: another of its names may be blocked, so a read of it is not
    /// judged by this name alone.
    fn hard_linked(&self, path: &str) -> bool {
        let _ = path;
        false
    }
    /// Whether `git <subcommand>` run in `dir` may run code the repository holds, which the
    /// agent may have written in an earlier turn: a setting git runs as a command in its config
    /// (`core.fsmonitor`, `filter.*`, `*.textconv`, `core.pager`, an alias of that name, ...)
    /// or, for a subcommand that may run hooks, a hook (a file of its hooks folder not named
    /// `*.sample`, or a `core.hooksPath`). `false` when `dir` is in no repository this oracle
    /// can see.
    fn git_runs_workspace_code(&self, dir: &str, subcommand: &str) -> bool {
        let _ = (dir, subcommand);
        false
    }
    /// Whether `path` is write-protected (a link to it must not be made without asking).
    fn protected(&self, path: &str) -> bool {
        let _ = path;
        false
    }
}

/// Longest command line judged; past it the answer is undecidable.
pub const MAX_COMMAND_BYTES: usize = 1 << 20;

/// Judges `command`. Never panics; linear in the size of the command (nested scripts such as
/// `bash -c '…'` are parsed again, to a bounded depth).
pub fn vet(command: &str, oracle: &dyn Oracle) -> Verdict {
    walk::vet(command, oracle)
}
