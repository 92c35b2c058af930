//! @-mentions and slash commands (spec: mentions.md, decisions.md "Mentions"): the grammar as a
//! linear-time scanner, the command catalog, the read_file-style blocks for files and folders,
//! the git texts, and `parseMentions` / `processUserContentMentions` as pure functions around
//! the I/O the server does (git processes, requests to the host).

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
