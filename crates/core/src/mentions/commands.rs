//! Slash commands: the built-in ones, custom ones from the project and global command folders
//! (`.roo/commands`, `.zoo/commands` preferred when `.zoo` exists), and their front matter.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::access::{BlockReason, Policy};
use crate::fs::{EntryKind, FileSystem, OpenedObject, open_gated};
use crate::path::Resolver;

use super::skills::{DEFAULT_MODE, SkillFolders, find_skill};

/// Where a command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandSource {
    /// `<cwd>/.roo/commands` or `<cwd>/.zoo/commands`.
    Project,
    /// `<home>/.roo/commands` or `<home>/.zoo/commands`.
    Global,
    /// Compiled into roo-context.
    BuiltIn,
}

/// A slash command (the original's `Command`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Command {
    /// The name typed after `/`.
    pub name: String,
    /// The instructions (the body after the front matter, trimmed).
    pub content: String,
    /// Project, global or built-in.
    pub source: CommandSource,
    /// The file it was read from (`<built-in:NAME>` for built-ins).
    pub file_path: String,
    /// Front matter `description`, trimmed, when non-empty.
    pub description: Option<String>,
    /// Front matter `argument-hint`, trimmed, when non-empty.
    pub argument_hint: Option<String>,
    /// Front matter `mode`, trimmed, when non-empty: the mode to switch to.
    pub mode: Option<String>,
}

/// A skill (found only when no command has the name; see `skills.rs` for where skills live).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// The skill name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Where it comes from (shown as `Source:`): `project` or `global`.
    pub source: String,
    /// The `SKILL.md` file it was read from.
    pub path: String,
    /// The instructions (the body after the front matter, trimmed).
    pub instructions: String,
}

/// What a slash-command name resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLookup {
    /// A command (project, global or built-in).
    Command(Command),
    /// A skill.
    Skill(Skill),
}

/// Resolves slash-command names. The parser calls it once per distinct name.
pub trait CommandCatalog {
    /// The command or skill called `name`, if any.
    fn lookup(&self, name: &str) -> Option<CommandLookup>;
}

/// Name of the only built-in command.
pub const BUILT_IN_INIT: &str = "init";

const INIT_DESCRIPTION: &str =
    "Analyze codebase and create concise AGENTS.md files for AI assistants";

const INIT_CONTENT: &str = r#"<task>
Study this repository and write concise AGENTS.md files that tell AI coding assistants what they
cannot easily work out by themselves.
</task>

<scope>
- Create or update `AGENTS.md` at the repository root.
- Add mode-specific files only when they carry real, non-obvious guidance:
  `.roo/rules-code/AGENTS.md`, `.roo/rules-debug/AGENTS.md`, `.roo/rules-ask/AGENTS.md`,
  `.roo/rules-architect/AGENTS.md`.
</scope>

<method>
1. Read the build and package files, the CI configuration, the linters and formatters, and any
   existing AGENTS.md, CLAUDE.md, .cursorrules, .roorules or copilot instructions.
2. Find the exact commands to build, test (including how to run a single test), lint and format.
3. Note conventions that differ from what the language's defaults would suggest: unusual layout,
   generated code that must not be edited, custom wrappers, required environment variables,
   ordering constraints, known traps.
4. Keep only what a capable engineer new to this codebase would get wrong without being told.
</method>

<output>
- Short sections with bullet points; commands in code spans.
- No generic advice, no restating of what the code or README already makes obvious.
- When an AGENTS.md already exists, improve it instead of replacing useful content.
</output>"#;

/// The built-in command called `name`. Only real built-ins exist: names inherited from a
/// JavaScript object (`toString`, `constructor`, ...) are not commands (a fix over the original).
pub fn built_in_command(name: &str) -> Option<Command> {
    (name == BUILT_IN_INIT).then(|| Command {
        name: BUILT_IN_INIT.to_owned(),
        content: INIT_CONTENT.to_owned(),
        source: CommandSource::BuiltIn,
        file_path: format!("<built-in:{BUILT_IN_INIT}>"),
        description: Some(INIT_DESCRIPTION.to_owned()),
        argument_hint: None,
        mode: None,
    })
}

/// [`built_in_command`] as a catalog answer.
pub fn built_in(name: &str) -> Option<CommandLookup> {
    built_in_command(name).map(CommandLookup::Command)
}

/// The command folder under `base` (the workspace or the home folder): `.zoo/commands` when
/// `.zoo` exists, else `.roo/commands` when `.roo` exists, else `.zoo/commands` (Zoo 3.82; for a
/// Roo-only tree this is Roo's `.roo/commands`).
pub fn command_folder(base: &Path, fs: &dyn FileSystem) -> PathBuf {
    config_folder(base, fs).join("commands")
}

/// The configuration folder under `base`: `.zoo` when it exists, else `.roo` when it exists,
/// else `.zoo`. Commands and skills both live under it.
pub fn config_folder(base: &Path, fs: &dyn FileSystem) -> PathBuf {
    let is_dir = |p: &Path| matches!(fs.kind(p), Ok(EntryKind::Directory));
    if is_dir(&base.join(".zoo")) {
        base.join(".zoo")
    } else if is_dir(&base.join(".roo")) {
        base.join(".roo")
    } else {
        base.join(".zoo")
    }
}

/// Command lookup over the file system: project folder, then global folder, then built-ins.
#[derive(Debug, Clone)]
pub struct FolderCommandCatalog<'a> {
    /// The file system.
    pub fs: &'a dyn FileSystem,
    /// The project command folder (see [`command_folder`]).
    pub project: Option<PathBuf>,
    /// The global command folder.
    pub global: Option<PathBuf>,
    /// The access rule: command files pass the read gate like mentions.
    pub policy: &'a Policy,
    /// The shared path resolver.
    pub resolver: &'a Resolver,
    /// Where skills are looked up when no command has the name.
    pub skills: SkillFolders,
}

/// Command files larger than this are not commands (they would flood the prompt).
pub const COMMAND_FILE_BOUND: u64 = 1024 * 1024;

impl<'a> FolderCommandCatalog<'a> {
    /// The catalog for workspace folder `cwd` and home folder `home`, judged by `policy`.
    pub fn new(
        fs: &'a dyn FileSystem,
        policy: &'a Policy,
        resolver: &'a Resolver,
        cwd: Option<&Path>,
        home: Option<&Path>,
    ) -> Self {
        FolderCommandCatalog {
            fs,
            project: cwd.map(|c| command_folder(c, fs)),
            global: home.map(|h| command_folder(h, fs)),
            policy,
            resolver,
            skills: SkillFolders {
                project: cwd.map(|c| config_folder(c, fs)),
                global: home.map(|h| config_folder(h, fs)),
                mode: DEFAULT_MODE.to_owned(),
            },
        }
    }

    /// The same catalog with skills chosen for `mode` (the original's `currentMode`).
    pub fn with_mode(mut self, mode: &str) -> Self {
        self.skills.mode = mode.to_owned();
        self
    }

    /// The command `name`, with its source.
    pub fn command(&self, name: &str) -> Option<Command> {
        let folders = [
            (self.project.as_deref(), CommandSource::Project),
            (self.global.as_deref(), CommandSource::Global),
        ];
        for (folder, source) in folders {
            let Some(folder) = folder else { continue };
            if let Some(command) = self.load_command(folder, name, source) {
                return Some(command);
            }
        }
        built_in_command(name)
    }
}

impl CommandCatalog for FolderCommandCatalog<'_> {
    fn lookup(&self, name: &str) -> Option<CommandLookup> {
        if let Some(command) = self.command(name) {
            return Some(CommandLookup::Command(command));
        }
        find_skill(self.fs, self.policy, self.resolver, &self.skills, name)
            .map(CommandLookup::Skill)
    }
}

impl FolderCommandCatalog<'_> {
    /// Reads `<folder>/<name>.md` through the read gate. A file the ignore rules block, by its
    /// name or by what it links to, is no command; the global folder lies outside the
    /// workspace by design, so `denyOutsideWorkspace` does not apply to files really inside it.
    fn load_command(&self, folder: &Path, name: &str, source: CommandSource) -> Option<Command> {
        let path = folder.join(format!("{name}.md"));
        let global = source == CommandSource::Global;
        let text = read_settings_file(self.fs, self.policy, self.resolver, folder, &path, global)?;
        if text.is_empty() {
            return None;
        }
        let parsed = parse_front_matter(&text);
        Some(Command {
            name: name.to_owned(),
            content: parsed.body.trim().to_owned(),
            source,
            file_path: path.to_string_lossy().into_owned(),
            description: parsed.field("description"),
            argument_hint: parsed.field("argument-hint"),
            mode: parsed.field("mode"),
        })
    }
}

/// Reads a command or skill file under `folder` through the read gate, as UTF-8, bounded by
/// [`COMMAND_FILE_BOUND`]. A file the ignore rules block, by its name or by what it links to,
/// reads as absent; the global folder lies outside the workspace by design, so
/// `denyOutsideWorkspace` does not apply to files (really) inside it when `global` is set.
pub(crate) fn read_settings_file(
    fs: &dyn FileSystem,
    policy: &Policy,
    resolver: &Resolver,
    folder: &Path,
    path: &Path,
    global: bool,
) -> Option<String> {
    if !matches!(fs.kind(folder), Ok(EntryKind::Directory)) {
        return None;
    }
    let by_name = policy.check_access(resolver, fs, None, &path.to_string_lossy());
    match by_name.blocked {
        None => {}
        Some(BlockReason::OutsideWorkspace) if global => {}
        Some(_) => return None,
    }
    let global_folder = global.then(|| fs.canonicalize(folder).ok()).flatten();
    let allowed = |opened: &OpenedObject<'_>| {
        policy.allows_opened(opened)
            || (policy.allows_links(opened.links)
                && !policy.real_path_blocked_by_rules(opened.real_path)
                && global_folder
                    .as_deref()
                    .is_some_and(|g| opened.real_path.starts_with(g)))
    };
    // The gate follows links, which covers the original's "read the link target" fallback.
    let bytes = open_gated(fs, path, COMMAND_FILE_BOUND, true, &allowed)
        .ok()?
        .read_all()
        .ok()?;
    // The file's own U+FDD0 must not read as an encoded lone surrogate on the wire.
    let text = String::from_utf8(bytes).ok()?;
    Some(crate::wire_text::encode_text(&text).into_owned())
}

/// A Markdown file split into YAML front matter (string scalars only) and body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrontMatter {
    /// `key: value` pairs whose value is a string scalar, in file order.
    pub fields: Vec<(String, String)>,
    /// The text after the closing `---` line (the whole text when there is no valid front matter).
    pub body: String,
}

impl FrontMatter {
    /// The value of `key` as written (the last one wins, as in YAML parsers).
    pub fn raw_field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The trimmed value of `key`, when it is a non-empty string.
    pub fn field(&self, key: &str) -> Option<String> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }
}

/// Parses front matter the way gray-matter does for the cases command files use: the text must
/// start with a `---` line and have a closing `---` line; top-level `key: value` pairs with
/// plain, single- or double-quoted string values are read; numbers, booleans, null, lists and
/// nested maps are valid but not strings, so they are skipped. A line that is not YAML makes the
/// whole text the body, with no fields (as the original does when parsing throws).
pub fn parse_front_matter(text: &str) -> FrontMatter {
    let whole = || FrontMatter {
        fields: Vec::new(),
        body: text.to_owned(),
    };
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return whole();
    };
    let mut offset = 0;
    let mut close = None;
    for line in after_open.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end() == "---" {
            close = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((yaml_end, body_start)) = close else {
        return whole();
    };
    let yaml = &after_open[..yaml_end];
    let mut fields = Vec::new();
    for line in yaml.lines() {
        let trimmed = line.trim_end();
        if trimmed.trim_start().is_empty() || trimmed.trim_start().starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) || trimmed.starts_with("- ") {
            // Continuation of a list or map: valid YAML, not a top-level string field.
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return whole();
        };
        let key = key.trim();
        if key.is_empty() {
            return whole();
        }
        match yaml_string_scalar(value.trim()) {
            Ok(Some(value)) => fields.push((key.to_owned(), value)),
            Ok(None) => {}
            Err(()) => return whole(),
        }
    }
    FrontMatter {
        fields,
        body: after_open[body_start..].to_owned(),
    }
}

/// `Ok(Some(s))` for a string scalar, `Ok(None)` for other valid values, `Err` for broken quoting.
fn yaml_string_scalar(value: &str) -> Result<Option<String>, ()> {
    let without_comment = |v: &str| -> String {
        match v.find(" #") {
            Some(i) => v[..i].trim_end().to_owned(),
            None => v.to_owned(),
        }
    };
    if let Some(rest) = value.strip_prefix('"') {
        let end = rest.rfind('"').ok_or(())?;
        let inner = &rest[..end];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some(other) => {
                        out.push('\\');
                        out.push(other);
                    }
                    None => return Err(()),
                }
            } else {
                out.push(c);
            }
        }
        return Ok(Some(out));
    }
    if let Some(rest) = value.strip_prefix('\'') {
        let end = rest.rfind('\'').ok_or(())?;
        return Ok(Some(rest[..end].replace("''", "'")));
    }
    let plain = without_comment(value);
    if plain.is_empty()
        || plain.starts_with(['[', '{', '|', '>', '&', '*', '!'])
        || matches!(
            plain.as_str(),
            "~" | "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
        )
        || plain.parse::<f64>().is_ok()
    {
        return Ok(None);
    }
    Ok(Some(plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_fields_and_body() {
        let parsed = parse_front_matter(
            "---\ndescription: \"Review code\"\nargument-hint: <file>\nmode: code\ncount: 3\n---\n\nBody here\n",
        );
        assert_eq!(parsed.field("description").as_deref(), Some("Review code"));
        assert_eq!(parsed.field("argument-hint").as_deref(), Some("<file>"));
        assert_eq!(parsed.field("mode").as_deref(), Some("code"));
        assert_eq!(parsed.field("count"), None);
        assert_eq!(parsed.body, "\nBody here\n");
    }

    #[test]
    fn broken_front_matter_keeps_the_whole_file_as_body() {
        let text = "---\nnot yaml at all\n---\nBody";
        let parsed = parse_front_matter(text);
        assert!(parsed.fields.is_empty());
        assert_eq!(parsed.body, text);
    }

    #[test]
    fn inherited_object_names_are_not_built_in_commands() {
        for name in [
            "toString",
            "constructor",
            "__proto__",
            "valueOf",
            "hasOwnProperty",
        ] {
            assert!(built_in_command(name).is_none(), "{name}");
        }
        assert!(built_in_command("init").is_some());
    }
}
