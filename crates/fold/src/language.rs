//! Which grammar and which definition query serve a file, decided by its extension.

use std::sync::OnceLock;

use tree_sitter::Query;

/// A language the fold engine can outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// `.ts`, `.mts`, `.cts` (including `.d.ts`).
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.js`, `.jsx`, `.mjs`, `.cjs` (the JavaScript grammar parses JSX).
    JavaScript,
    /// `.rs`.
    Rust,
    /// `.py`, `.pyi`.
    Python,
    /// `.go`.
    Go,
    /// `.md`, `.markdown`: headers and their sections, by a line parser (no grammar).
    Markdown,
}

impl Language {
    /// Every supported language, in a fixed order.
    pub const ALL: [Language; 7] = [
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Rust,
        Language::Python,
        Language::Go,
        Language::Markdown,
    ];

    /// The language for a file extension (without the dot, any case), or `None` when unsupported.
    pub fn from_extension(extension: &str) -> Option<Language> {
        let language = match extension.to_ascii_lowercase().as_str() {
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "go" => Language::Go,
            "md" | "markdown" => Language::Markdown,
            _ => return None,
        };
        Some(language)
    }

    /// The language for a path (either separator), decided by the extension of its last component.
    pub fn from_path(path: &str) -> Option<Language> {
        let file_name = base_name(path);
        let (stem, extension) = file_name.rsplit_once('.')?;
        if stem.is_empty() {
            // ".ts" alone is a hidden file named "ts", not a TypeScript file.
            return None;
        }
        Language::from_extension(extension)
    }

    /// A short lowercase name (`typescript`, `tsx`, `javascript`, `rust`, `python`, `go`).
    pub fn name(self) -> &'static str {
        match self {
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::JavaScript => "javascript",
            Language::Rust => "rust",
            Language::Python => "python",
            Language::Go => "go",
            Language::Markdown => "markdown",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The tree-sitter grammar for this language.
    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Markdown => unreachable!("Markdown is parsed by the header parser"),
        }
    }

    /// The query source text (`queries/<lang>.scm`; TSX is the TypeScript query plus `tsx.scm`).
    pub(crate) fn query_source(self) -> String {
        const TYPESCRIPT: &str = include_str!("../queries/typescript.scm");
        match self {
            Language::TypeScript => TYPESCRIPT.to_owned(),
            Language::Tsx => format!("{TYPESCRIPT}\n{}", include_str!("../queries/tsx.scm")),
            Language::JavaScript => include_str!("../queries/javascript.scm").to_owned(),
            Language::Rust => include_str!("../queries/rust.scm").to_owned(),
            Language::Python => include_str!("../queries/python.scm").to_owned(),
            Language::Go => include_str!("../queries/go.scm").to_owned(),
            Language::Markdown => unreachable!("Markdown has no query"),
        }
    }

    /// The compiled definition query, compiled once per language per process.
    pub(crate) fn query(self) -> &'static CompiledQuery {
        static QUERIES: [OnceLock<CompiledQuery>; 6] = [const { OnceLock::new() }; 6];
        QUERIES[self.index()].get_or_init(|| {
            let query = Query::new(&self.grammar(), &self.query_source()).unwrap_or_else(|error| {
                // The queries are data compiled into the binary and checked by a unit test.
                panic!(
                    "the bundled {} query does not compile: {error}",
                    self.name()
                )
            });
            CompiledQuery::new(query)
        })
    }
}

/// What a capture of the definition query means to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureRole {
    /// `@definition.<kind>`: the whole definition node.
    Definition(crate::DefinitionKind),
    /// `@name`: the definition's name.
    Name,
    /// `@trait`: the trait of a Rust `impl Trait for Type`.
    Trait,
    /// Helper captures used by predicates (`@_exports`) or unknown names: ignored.
    Ignored,
}

/// A compiled query with its capture names resolved once.
pub(crate) struct CompiledQuery {
    pub(crate) query: Query,
    pub(crate) roles: Vec<CaptureRole>,
}

impl CompiledQuery {
    fn new(query: Query) -> CompiledQuery {
        let roles = query
            .capture_names()
            .iter()
            .map(|name| {
                if let Some(kind) = name.strip_prefix("definition.") {
                    CaptureRole::Definition(crate::DefinitionKind::from_capture_suffix(kind))
                } else if *name == "name" {
                    CaptureRole::Name
                } else if *name == "trait" {
                    CaptureRole::Trait
                } else {
                    CaptureRole::Ignored
                }
            })
            .collect();
        CompiledQuery { query, roles }
    }
}

/// The last component of a path, splitting on `/` and `\`.
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_into_a_parser_and_every_query_compiles() {
        // Markdown has no grammar: its headers are read by a line parser.
        for language in Language::ALL
            .into_iter()
            .filter(|l| *l != Language::Markdown)
        {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&language.grammar())
                .unwrap_or_else(|error| panic!("{}: {error}", language.name()));
            let compiled = language.query();
            assert!(
                compiled
                    .roles
                    .iter()
                    .any(|role| matches!(role, CaptureRole::Definition(_))),
                "{} query has no definition capture",
                language.name()
            );
            assert!(compiled.roles.contains(&CaptureRole::Name));
        }
    }

    #[test]
    fn extensions_map_to_languages_case_insensitively() {
        assert_eq!(Language::from_path("src/a.TS"), Some(Language::TypeScript));
        assert_eq!(
            Language::from_path("src/a.d.ts"),
            Some(Language::TypeScript)
        );
        assert_eq!(Language::from_path("a.tsx"), Some(Language::Tsx));
        assert_eq!(Language::from_path("x/y.mjs"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("x\\y.cjs"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("lib.rs"), Some(Language::Rust));
        assert_eq!(Language::from_path("m.py"), Some(Language::Python));
        assert_eq!(Language::from_path("main.go"), Some(Language::Go));
        assert_eq!(Language::from_path("README.md"), Some(Language::Markdown));
        assert_eq!(
            Language::from_path("notes.MARKDOWN"),
            Some(Language::Markdown)
        );
        assert_eq!(Language::from_path("notes.txt"), None);
        assert_eq!(Language::from_path("Makefile"), None);
        assert_eq!(Language::from_path("dir.ts/file"), None);
        assert_eq!(Language::from_path(".ts"), None);
    }
}
