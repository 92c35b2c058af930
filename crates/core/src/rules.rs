//! Gitignore-syntax rule sets with the original's semantics (npm `ignore` defaults):
//! case-insensitive, directory-only patterns match contents but not the bare folder, negation as in
//! git (nothing inside an excluded folder can be re-included), and each match says which line of
//! which file decided it.

use rustc_hash::FxHashMap as HashMap;
use std::sync::RwLock;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::Serialize;

/// Where a rule came from: a line of an ignore file, or a pattern the controller adds itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleOrigin {
    /// The file the pattern was read from (`.rooignore`), or `None` for implicit/built-in patterns.
    pub file: Option<String>,
    /// 1-based line number in `file`.
    pub line: Option<usize>,
    /// The pattern as written (trailing spaces trimmed).
    pub pattern: String,
}

/// A line that could not be compiled; it is skipped, as the original's matcher does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleDiagnostic {
    /// 1-based line number.
    pub line: usize,
    /// Why the line was skipped.
    pub message: String,
}

/// A compiled set of gitignore-syntax rules, matched against posix paths relative to the root.
pub struct RuleSet {
    matcher: Gitignore,
    origins: HashMap<String, RuleOrigin>,
    /// Compilation problems (skipped lines).
    pub diagnostics: Vec<RuleDiagnostic>,
    // Verdicts of ancestor folders, memoised: a batch of paths shares few folders.
    folder_memo: RwLock<HashMap<String, Option<RuleOrigin>>>,
}

impl std::fmt::Debug for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleSet")
            .field("rules", &self.matcher.num_ignores())
            .field("diagnostics", &self.diagnostics)
            .finish()
    }
}

impl RuleSet {
    /// Compiles `content` (read from `file`, if any) followed by `implicit` patterns.
    pub fn new(file: Option<&str>, content: &str, implicit: &[&str]) -> RuleSet {
        // The root is never used: only relative paths are ever matched.
        let mut builder = GitignoreBuilder::new("/");
        builder
            .case_insensitive(true)
            .expect("case-insensitive flag");
        let mut origins = HashMap::default();
        let mut diagnostics = Vec::new();
        for (index, raw_line) in content.lines().enumerate() {
            let line = raw_line.trim_end_matches('\r');
            let trimmed = line.trim_end_matches(' ');
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            match builder.add_line(None, line) {
                Ok(_) => {
                    // A later identical line wins, as the later rule does in gitignore.
                    origins.insert(
                        trimmed.to_owned(),
                        RuleOrigin {
                            file: file.map(str::to_owned),
                            line: Some(index + 1),
                            pattern: trimmed.to_owned(),
                        },
                    );
                }
                Err(error) => diagnostics.push(RuleDiagnostic {
                    line: index + 1,
                    message: error.to_string(),
                }),
            }
        }
        for pattern in implicit {
            builder
                .add_line(None, pattern)
                .expect("implicit patterns are valid");
            origins.entry((*pattern).to_owned()).or_insert(RuleOrigin {
                file: None,
                line: None,
                pattern: (*pattern).to_owned(),
            });
        }
        let matcher = builder.build().unwrap_or_else(|_| Gitignore::empty());
        RuleSet {
            matcher,
            origins,
            diagnostics,
            folder_memo: RwLock::new(HashMap::default()),
        }
    }

    /// Number of compiled patterns.
    pub fn len(&self) -> usize {
        self.matcher.len()
    }

    /// Whether no pattern was compiled.
    pub fn is_empty(&self) -> bool {
        self.matcher.is_empty()
    }

    /// Matches a relative posix path (no leading `/`, no `.`/`..` segments, no trailing slash).
    /// Ancestors are checked top-down as folders first, so an excluded folder's contents stay
    /// excluded whatever later negations say (git's rule). The empty path (the root) never matches.
    pub fn matched(&self, relative: &str) -> Option<RuleOrigin> {
        if relative.is_empty() {
            return None;
        }
        let mut end = 0;
        while let Some(offset) = relative[end..].find('/') {
            let folder = &relative[..end + offset];
            if let Some(origin) = self.folder_verdict(folder) {
                return Some(origin);
            }
            end += offset + 1;
        }
        self.verdict(relative, false)
    }

    fn folder_verdict(&self, folder: &str) -> Option<RuleOrigin> {
        if let Some(hit) = self
            .folder_memo
            .read()
            .ok()
            .and_then(|m| m.get(folder).cloned())
        {
            return hit;
        }
        let verdict = self.verdict(folder, true);
        if let Ok(mut memo) = self.folder_memo.write() {
            memo.insert(folder.to_owned(), verdict.clone());
        }
        verdict
    }

    fn verdict(&self, path: &str, is_dir: bool) -> Option<RuleOrigin> {
        match self.matcher.matched(path, is_dir) {
            Match::Ignore(glob) => Some(self.origins.get(glob.original()).cloned().unwrap_or(
                RuleOrigin {
                    file: None,
                    line: None,
                    pattern: glob.original().to_owned(),
                },
            )),
            Match::Whitelist(_) | Match::None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(content: &str, cases: &[(&str, bool)]) {
        let rules = RuleSet::new(Some(".rooignore"), content, &[".rooignore"]);
        for (path, blocked) in cases {
            assert_eq!(rules.matched(path).is_some(), *blocked, "path {path:?}");
        }
    }

    #[test]
    fn original_semantics_from_the_spec_table() {
        check(
            "node_modules\n.git\nsecrets/**\n*.log\n",
            &[
                ("node_modules", true),
                ("node_modules/package.json", true),
                ("src/node_modules/file.js", true),
                (".git/HEAD", true),
                ("secrets/api-keys.json", true),
                ("logs/app.log", true),
                ("src/app.ts", false),
                ("package.json", false),
                ("secret-file.json", false),
                ("NODE_MODULES/a", true),
                ("secrets", false),
                (".rooignore", true),
                ("sub/.rooignore", true),
                ("", false),
            ],
        );
    }

    #[test]
    fn directory_only_pattern_matches_contents_not_the_bare_folder() {
        check(
            "private/\n",
            &[
                ("private", false),
                ("private/a", true),
                ("x/private/a", true),
            ],
        );
    }

    #[test]
    fn negation_cannot_reinclude_inside_an_excluded_folder() {
        check(
            "build/\n!build/keep.txt\nsecrets/**\n!secrets/public.json\n",
            &[
                ("build/keep.txt", true),
                ("secrets/public.json", false),
                ("secrets/private.json", true),
            ],
        );
    }

    #[test]
    fn matches_report_file_line_and_pattern() {
        let rules = RuleSet::new(Some(".rooignore"), "# c\n\n*.pem  \n", &[".rooignore"]);
        let origin = rules.matched("keys/a.PEM").expect("blocked");
        assert_eq!(
            origin,
            RuleOrigin {
                file: Some(".rooignore".into()),
                line: Some(3),
                pattern: "*.pem".into()
            }
        );
        let implicit = rules.matched(".rooignore").expect("blocked");
        assert_eq!(implicit.file, None);
        assert_eq!(implicit.pattern, ".rooignore");
    }

    #[test]
    fn invalid_lines_are_skipped_with_a_diagnostic() {
        let rules = RuleSet::new(Some(".rooignore"), "a[\n{x\n[z-a]\n*.log\n", &[]);
        assert!(!rules.diagnostics.is_empty(), "{:?}", rules.diagnostics);
        assert!(rules.diagnostics.iter().all(|d| d.line < 4));
        assert!(rules.matched("x.log").is_some());
    }
}
