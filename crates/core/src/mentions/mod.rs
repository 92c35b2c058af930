//! @-mentions and slash commands (spec: mentions.md, decisions.md "Mentions"): the grammar as a
//! linear-time scanner, the command catalog, the read_file-style blocks for files and folders,
//! the git texts, and `parseMentions` / `processUserContentMentions` as pure functions around
//! the I/O the server does (git processes, requests to the host).
//!
//! ## Decision: Mentions
//!
//! `core/mentions/` splits `parseMentions` around the I/O: `plan_mentions` (scan, substitute, look
//! commands up) and `assemble` (sections, help) are pure; the server reads files on the blocking
//! pool, runs `git`, and asks the host (`roo/host/resolveMention`, with a timeout) for `@problems`,
//! `@terminal` and URLs. The scanner is hand-written and linear (a failed path tail memoises where
//! it failed, so `@/a\ @/a\ …\x` is not quadratic); a proptest checks it against the original
//! regexes run by fancy-regex. Only user-authored spans are parsed (`<user_message>` insides;
//! inside tool results only texts that start with the marker). File and folder mentions pass the
//! access rule before anything is read (an ignored binary says "ignored", not "binary"), paths
//! outside the workspace get a note, files are streamed within the 2000×2000 limits, folder
//! listings are sorted. Deliberately absent: the original's isbinaryfile protobuf heuristic. Skills
//! (`mentions/skills.rs`) are the catalog's fallback when no command has the name: no skills
//! manager and no cache, each lookup reads at most four `SKILL.md` candidates (project before home,
//! `skills-<mode>` before `skills`, `.zoo` over `.roo` as for commands) through the same gated
//! reader as command files, and validates them as the original's manager does before registering
//! (an invalid or unreadable candidate is skipped, so the next one can answer). Image mentions
//! (`roo/mentions/resolveImages`, `mentions/images.rs`) are a separate pure pass over the same
//! scanner and user spans: the original's limits (5 MB, 20 MB, 20 images), Zoo's normalisation of
//! supplied images, and the stricter of both rules: strictly inside `cwd` like the original, and
//! the access rule by name and by the opened file's real path (which must also lie inside `cwd`'s
//! real path), read once through the gate with the per-image limit as bound. Base64 is a few lines
//! in the core rather than a new dependency.

pub mod commands;
pub mod git;
pub mod images;
pub mod parse;
pub mod read;
pub mod scan;
pub mod skills;

pub use commands::{
    Command, CommandCatalog, CommandLookup, CommandSource, FolderCommandCatalog, Skill, built_in,
};
pub use images::{ImageOptions, resolve_image_mentions};
pub use parse::{
    Fetch, Fetched, MentionDiagnostic, MentionPlan, ParsedMentions, TextExpansion, assemble,
    plan_mentions, slash_command_help, user_content_texts, user_spans, walk_user_content,
};
pub use read::{BlockType, ContentBlock, ContentMetadata, MentionReader, PathMention};
pub use scan::{
    CommandMatch, MentionKind, MentionMatch, ScanStats, scan_commands, scan_mentions,
    scan_mentions_with_stats, unescape_spaces,
};
pub use skills::{DEFAULT_MODE, SkillFolders, find_skill, is_valid_skill_name};
