//! Skills, the slash-command fallback: `/name` that is no command names the skill
//! `<config>/skills/name/SKILL.md` (or `skills-<mode>/name`) of the project or the home folder,
//! read through the read gate and validated as the original's skills manager does.

use std::path::{Path, PathBuf};

use crate::access::Policy;
use crate::fs::{EntryKind, FileSystem};
use crate::path::Resolver;

use super::commands::{Skill, parse_front_matter, read_settings_file};

/// The mode skills are chosen for when the request names none (the original's default).
pub const DEFAULT_MODE: &str = "code";

/// Longest skill name (agentskills.io: 1-64 characters).
pub const MAX_SKILL_NAME_LEN: usize = 64;

/// Longest skill description, in UTF-16 code units after trimming (1-1024).
pub const MAX_SKILL_DESCRIPTION_LEN: usize = 1024;

/// Where skills are looked up: the configuration folders (`.zoo` or `.roo`, chosen like the
/// command folders) of the project and of the home folder, and the current mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFolders {
    /// `<cwd>/.zoo` or `<cwd>/.roo` (see `commands::config_folder`).
    pub project: Option<PathBuf>,
    /// `<home>/.zoo` or `<home>/.roo`.
    pub global: Option<PathBuf>,
    /// The current mode: `skills-<mode>` folders are searched before `skills`.
    pub mode: String,
}

/// Whether `name` is a valid skill name: 1-64 characters of `a-z`, `0-9` and single inner
/// hyphens. Other names are never skills, which also keeps a name from leaving its folder.
pub fn is_valid_skill_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SKILL_NAME_LEN
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Whether `mode` can name a `skills-<mode>` folder: a mode slug (letters, digits, hyphens).
/// Anything else (a slash, `..`) gets no mode-specific folder.
fn is_mode_slug(mode: &str) -> bool {
    !mode.is_empty()
        && mode.len() <= 128
        && mode.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The skill `name` for `folders.mode`, or `None`. Priority as the original resolves
/// overrides: the project before the home folder, and within one, `skills-<mode>` before
/// `skills`. A candidate that is missing, unreadable, blocked by the ignore rules (by name or
/// by what a link points at) or invalid (no front matter, `name` not equal to its folder name,
/// no description or one over 1024 characters) is skipped, as the original never registers it.
pub fn find_skill(
    fs: &dyn FileSystem,
    policy: &Policy,
    resolver: &Resolver,
    folders: &SkillFolders,
    name: &str,
) -> Option<Skill> {
    if !is_valid_skill_name(name) {
        return None;
    }
    let mode_folder = is_mode_slug(&folders.mode).then(|| format!("skills-{}", folders.mode));
    let sources = [
        (folders.project.as_deref(), "project"),
        (folders.global.as_deref(), "global"),
    ];
    for (config, source) in sources {
        let Some(config) = config else { continue };
        let skill_folders = mode_folder.iter().map(String::as_str).chain(["skills"]);
        for skills in skill_folders {
            if let Some(skill) = load_skill(
                fs,
                policy,
                resolver,
                &config.join(skills),
                name,
                source == "global",
            ) {
                return Some(skill);
            }
        }
    }
    None
}

fn load_skill(
    fs: &dyn FileSystem,
    policy: &Policy,
    resolver: &Resolver,
    skills_folder: &Path,
    name: &str,
    global: bool,
) -> Option<Skill> {
    if !matches!(fs.kind(skills_folder), Ok(EntryKind::Directory)) {
        return None;
    }
    let skill_folder = skills_folder.join(name);
    let path = skill_folder.join("SKILL.md");
    let text = read_settings_file(fs, policy, resolver, &skill_folder, &path, global)?;
    let parsed = parse_front_matter(&text);
    if parsed.raw_field("name")? != name {
        return None;
    }
    let description = parsed.raw_field("description")?.trim();
    let description_len = description.encode_utf16().count();
    if description_len == 0 || description_len > MAX_SKILL_DESCRIPTION_LEN {
        return None;
    }
    Some(Skill {
        name: name.to_owned(),
        description: Some(description.to_owned()),
        source: if global { "global" } else { "project" }.to_owned(),
        path: path.to_string_lossy().into_owned(),
        instructions: parsed.body.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_names_follow_the_agent_skills_rule() {
        for good in ["a", "pdf", "mcp-builder", "x1-y2", &"a".repeat(64)] {
            assert!(is_valid_skill_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "Pdf",
            "a_b",
            "a.b",
            "..",
            "a/b",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn only_mode_slugs_get_a_mode_folder() {
        assert!(is_mode_slug("code"));
        assert!(is_mode_slug("my-Mode2"));
        for bad in ["", "../x", "a/b", "a.b", "a b"] {
            assert!(!is_mode_slug(bad), "{bad}");
        }
    }
}
