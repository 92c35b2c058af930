//! The one table of languages: extension -> grammar -> definition query -> how to fold. Adding a
//! language is one row in `languages!` below plus one `queries/<name>.scm` file; the kinds of its
//! symbols are the `@definition.<kind>` capture names in that file.
//! One file on purpose: it is that table (the `languages!` rows, about 345 lines, make both
//! `Language` and `TABLE`); its unit tests, about 95 lines, sit below the code.

use std::sync::OnceLock;

use tree_sitter::Query;

/// One row of the language table.
pub(crate) struct LanguageRow {
    /// Short lowercase name, also the query file's stem.
    pub(crate) name: &'static str,
    /// File extensions (lowercase, without the dot).
    pub(crate) extensions: &'static [&'static str],
    /// The tree-sitter grammar; `None` for a language read by a line parser (Markdown).
    pub(crate) grammar: Option<fn() -> tree_sitter::Language>,
    /// The definition query, as parts concatenated in order (TSX = TypeScript + `tsx.scm`).
    pub(crate) query: &'static [&'static str],
    /// Node kinds that are imports: runs of them fold as one `imports` range.
    pub(crate) imports: &'static [&'static str],
    /// Node kinds that fold when they span several lines, for languages whose blocks have no
    /// brackets (Python's compound statements, Ruby's `do ... end`, ...). Matched as suffixes.
    pub(crate) block_suffixes: &'static [&'static str],
    /// Node kinds of annotations, attributes and decorators: when they lead a definition, the
    /// definition's range starts after them, so its first line is the declaration itself.
    pub(crate) attributes: &'static [&'static str],
    /// For a language embedded in another document (Vue's `<script>` blocks): finds the byte
    /// ranges the grammar parses; positions stay those of the whole file.
    #[cfg(any(feature = "more", feature = "rare"))]
    pub(crate) regions: Option<RegionFinder>,
}

/// Finds the byte ranges of a file that an embedded language's grammar parses (Vue's
/// `<script>` blocks), within the parse's limits.
pub(crate) type RegionFinder = fn(
    &str,
    &crate::engine::ParseLimits,
) -> Result<Vec<tree_sitter::Range>, crate::engine::ParseStop>;

/// `Some(finder)` for a row that names one, else `None`.
#[cfg(any(feature = "more", feature = "rare"))]
macro_rules! optional {
    () => {
        None
    };
    ($value:expr) => {
        Some($value)
    };
}

/// Generates the public [`Language`] enum and the table from one list of rows, so the two can
/// never disagree and no count is written by hand. A row's `cfg` (its grammar group's cargo
/// feature) applies to both its enum variant and its table entry.
macro_rules! languages {
    ($(
        $(#[doc = $doc:literal])*
        $(#[cfg($cfg:meta)])?
        $variant:ident {
            name: $name:literal,
            extensions: [$($extension:literal),* $(,)?],
            grammar: $grammar:expr,
            query: [$($query:expr),* $(,)?],
            imports: [$($import:literal),* $(,)?],
            blocks: [$($block:literal),* $(,)?],
            attributes: [$($attribute_kind:literal),* $(,)?]
            $(, regions: $regions:expr)? $(,)?
        }
    )*) => {
        /// A language the fold engine can outline (one row of the language table).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Language {
            $($(#[doc = $doc])* $(#[cfg($cfg)])? $variant,)*
        }

        /// The rows, in the order of [`Language`]'s variants (a variant's discriminant is its row).
        const TABLE: &[LanguageRow] = &[
            $($(#[cfg($cfg)])? LanguageRow {
                name: $name,
                extensions: &[$($extension),*],
                grammar: $grammar,
                query: &[$($query),*],
                imports: &[$($import),*],
                block_suffixes: &[$($block),*],
                attributes: &[$($attribute_kind),*],
                #[cfg(any(feature = "more", feature = "rare"))]
                regions: optional!($($regions)?),
            },)*
        ];

        impl Language {
            /// Every language compiled in, in table order.
            pub const ALL: &[Language] = &[$($(#[cfg($cfg)])? Language::$variant,)*];
        }
    };
}

/// How many languages are compiled in (sizes the per-language parser and query caches).
pub(crate) const COUNT: usize = TABLE.len();

const TYPESCRIPT_QUERY: &str = include_str!("../queries/typescript.scm");

languages! {
    /// `.ts`, `.mts`, `.cts` (including `.d.ts`).
    TypeScript {
        name: "typescript",
        extensions: ["ts", "mts", "cts"],
        grammar: Some(|| tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
        query: [TYPESCRIPT_QUERY],
        imports: ["import_statement"],
        blocks: [],
        attributes: ["decorator"],
    }
    /// `.tsx`.
    Tsx {
        name: "tsx",
        extensions: ["tsx"],
        grammar: Some(|| tree_sitter_typescript::LANGUAGE_TSX.into()),
        query: [TYPESCRIPT_QUERY, "\n", include_str!("../queries/tsx.scm")],
        imports: ["import_statement"],
        blocks: [],
        attributes: ["decorator"],
    }
    /// `.js`, `.jsx`, `.mjs`, `.cjs` (the JavaScript grammar parses JSX).
    JavaScript {
        name: "javascript",
        extensions: ["js", "jsx", "mjs", "cjs"],
        grammar: Some(|| tree_sitter_javascript::LANGUAGE.into()),
        query: [include_str!("../queries/javascript.scm")],
        imports: ["import_statement"],
        blocks: [],
        attributes: ["decorator"],
    }
    /// `.rs`.
    Rust {
        name: "rust",
        extensions: ["rs"],
        grammar: Some(|| tree_sitter_rust::LANGUAGE.into()),
        query: [include_str!("../queries/rust.scm")],
        imports: ["use_declaration", "extern_crate_declaration"],
        blocks: [],
        attributes: [],
    }
    /// `.py`, `.pyi`.
    Python {
        name: "python",
        extensions: ["py", "pyi"],
        grammar: Some(|| tree_sitter_python::LANGUAGE.into()),
        query: [include_str!("../queries/python.scm")],
        imports: ["import_statement", "import_from_statement"],
        blocks: ["_statement", "_clause", "_definition"],
        attributes: [],
    }
    /// `.go`.
    Go {
        name: "go",
        extensions: ["go"],
        grammar: Some(|| tree_sitter_go::LANGUAGE.into()),
        query: [include_str!("../queries/go.scm")],
        imports: ["import_declaration"],
        blocks: [],
        attributes: [],
    }
    /// `.md`, `.markdown`: headers and their sections, by a line parser (no grammar).
    Markdown {
        name: "markdown",
        extensions: ["md", "markdown"],
        grammar: None,
        query: [],
        imports: [],
        blocks: [],
        attributes: [],
    }
    /// `.java`.
    #[cfg(feature = "mainstream")]
    Java {
        name: "java",
        extensions: ["java"],
        grammar: Some(|| tree_sitter_java::LANGUAGE.into()),
        query: [include_str!("../queries/java.scm")],
        imports: ["import_declaration"],
        blocks: [],
        attributes: ["annotation", "marker_annotation"],
    }
    /// `.c`, `.h` (headers are read as C, like the original; C++ headers use `.hpp`/`.hh`).
    #[cfg(feature = "mainstream")]
    C {
        name: "c",
        extensions: ["c", "h"],
        grammar: Some(|| tree_sitter_c::LANGUAGE.into()),
        query: [include_str!("../queries/c.scm")],
        imports: ["preproc_include"],
        blocks: [],
        attributes: [],
    }
    /// `.cpp`, `.cc`, `.cxx`, `.c++`, `.hpp`, `.hh`, `.hxx`, `.h++`, `.ipp`, `.tpp`.
    #[cfg(feature = "mainstream")]
    Cpp {
        name: "cpp",
        extensions: ["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp"],
        grammar: Some(|| tree_sitter_cpp::LANGUAGE.into()),
        query: [include_str!("../queries/cpp.scm")],
        imports: ["preproc_include", "using_declaration"],
        blocks: [],
        attributes: ["attribute_declaration"],
    }
    /// `.cs`.
    #[cfg(feature = "mainstream")]
    CSharp {
        name: "c_sharp",
        extensions: ["cs"],
        grammar: Some(|| tree_sitter_c_sharp::LANGUAGE.into()),
        query: [include_str!("../queries/c_sharp.scm")],
        imports: ["using_directive"],
        blocks: [],
        attributes: ["attribute_list"],
    }
    /// `.rb`, `.rake`, `.gemspec`, `.ru`.
    #[cfg(feature = "mainstream")]
    Ruby {
        name: "ruby",
        extensions: ["rb", "rake", "gemspec", "ru"],
        grammar: Some(|| tree_sitter_ruby::LANGUAGE.into()),
        query: [include_str!("../queries/ruby.scm")],
        imports: [],
        blocks: ["do_block", "if", "unless", "case", "while", "until", "for", "begin", "heredoc_body"],
        attributes: [],
    }
    /// `.php` (PHP with embedded HTML), `.phtml`.
    #[cfg(feature = "mainstream")]
    Php {
        name: "php",
        extensions: ["php", "phtml"],
        grammar: Some(|| tree_sitter_php::LANGUAGE_PHP.into()),
        query: [include_str!("../queries/php.scm")],
        imports: ["namespace_use_declaration"],
        blocks: [],
        attributes: ["attribute_list"],
    }
    /// `.css`.
    #[cfg(feature = "mainstream")]
    Css {
        name: "css",
        extensions: ["css"],
        grammar: Some(|| tree_sitter_css::LANGUAGE.into()),
        query: [include_str!("../queries/css.scm")],
        imports: ["import_statement"],
        blocks: [],
        attributes: [],
    }
    /// `.html`, `.htm`, `.xhtml`.
    #[cfg(feature = "mainstream")]
    Html {
        name: "html",
        extensions: ["html", "htm", "xhtml"],
        grammar: Some(|| tree_sitter_html::LANGUAGE.into()),
        query: [include_str!("../queries/html.scm")],
        imports: [],
        blocks: ["element", "script_element", "style_element"],
        attributes: [],
    }
    /// `.json` and JSON-with-comments files (`.jsonc`, `.json5` is not JSON and stays out).
    #[cfg(feature = "mainstream")]
    Json {
        name: "json",
        extensions: ["json", "jsonc"],
        grammar: Some(|| tree_sitter_json::LANGUAGE.into()),
        query: [include_str!("../queries/json.scm")],
        imports: [],
        blocks: [],
        attributes: [],
    }
    /// `.sh`, `.bash`.
    #[cfg(feature = "mainstream")]
    Bash {
        name: "bash",
        extensions: ["sh", "bash"],
        grammar: Some(|| tree_sitter_bash::LANGUAGE.into()),
        query: [include_str!("../queries/bash.scm")],
        imports: [],
        blocks: ["if_statement", "case_statement", "do_group", "heredoc_body"],
        attributes: [],
    }
    /// `.kt`, `.kts`.
    #[cfg(feature = "extra")]
    Kotlin {
        name: "kotlin",
        extensions: ["kt", "kts"],
        grammar: Some(|| tree_sitter_kotlin_ng::LANGUAGE.into()),
        query: [include_str!("../queries/kotlin.scm")],
        imports: ["import"],
        blocks: [],
        attributes: ["annotation"],
    }
    /// `.swift`.
    #[cfg(feature = "extra")]
    Swift {
        name: "swift",
        extensions: ["swift"],
        grammar: Some(|| tree_sitter_swift::LANGUAGE.into()),
        query: [include_str!("../queries/swift.scm")],
        imports: ["import_declaration"],
        blocks: [],
        attributes: ["attribute"],
    }
    /// `.lua`.
    #[cfg(feature = "extra")]
    Lua {
        name: "lua",
        extensions: ["lua"],
        grammar: Some(|| tree_sitter_lua::LANGUAGE.into()),
        query: [include_str!("../queries/lua.scm")],
        imports: [],
        blocks: [
            "function_declaration", "function_definition", "if_statement", "for_statement",
            "while_statement", "repeat_statement", "do_statement",
        ],
        attributes: [],
    }
    /// `.toml`.
    #[cfg(feature = "extra")]
    Toml {
        name: "toml",
        extensions: ["toml"],
        grammar: Some(|| tree_sitter_toml_ng::LANGUAGE.into()),
        query: [include_str!("../queries/toml.scm")],
        imports: [],
        blocks: ["table", "table_array_element"],
        attributes: [],
    }
    /// `.scala`, `.sc`.
    #[cfg(feature = "more")]
    Scala {
        name: "scala",
        extensions: ["scala", "sc"],
        grammar: Some(|| tree_sitter_scala::LANGUAGE.into()),
        query: [include_str!("../queries/scala.scm")],
        imports: ["import_declaration"],
        blocks: [],
        attributes: ["annotation"],
    }
    /// `.ex`, `.exs`.
    #[cfg(feature = "more")]
    Elixir {
        name: "elixir",
        extensions: ["ex", "exs"],
        grammar: Some(|| tree_sitter_elixir::LANGUAGE.into()),
        query: [include_str!("../queries/elixir.scm")],
        imports: [],
        blocks: ["do_block", "anonymous_function", "string"],
        attributes: [],
    }
    /// `.dart`.
    #[cfg(feature = "more")]
    Dart {
        name: "dart",
        extensions: ["dart"],
        grammar: Some(|| tree_sitter_dart::LANGUAGE.into()),
        query: [include_str!("../queries/dart.scm")],
        imports: ["import_or_export"],
        blocks: [],
        attributes: ["annotation", "marker_annotation"],
    }
    /// `.zig`.
    #[cfg(feature = "more")]
    Zig {
        name: "zig",
        extensions: ["zig"],
        grammar: Some(|| tree_sitter_zig::LANGUAGE.into()),
        query: [include_str!("../queries/zig.scm")],
        imports: [],
        blocks: [
            "struct_declaration", "enum_declaration", "union_declaration", "error_set_declaration",
            "switch_expression",
        ],
        attributes: [],
    }
    /// `.ml` (implementations).
    #[cfg(feature = "more")]
    OCaml {
        name: "ocaml",
        extensions: ["ml"],
        grammar: Some(|| tree_sitter_ocaml::LANGUAGE_OCAML.into()),
        query: [include_str!("../queries/ocaml.scm")],
        imports: ["open_module"],
        blocks: [],
        attributes: [],
    }
    /// `.sol`.
    #[cfg(feature = "more")]
    Solidity {
        name: "solidity",
        extensions: ["sol"],
        grammar: Some(|| tree_sitter_solidity::LANGUAGE.into()),
        query: [include_str!("../queries/solidity.scm")],
        imports: ["import_directive"],
        blocks: [],
        attributes: [],
    }
    /// `.vue`: the `<script>` and `<script setup>` blocks, read by the TSX grammar (TypeScript
    /// and JavaScript both parse) with the TypeScript query; positions are the `.vue` file's.
    #[cfg(feature = "more")]
    Vue {
        name: "vue",
        extensions: ["vue"],
        grammar: Some(|| tree_sitter_typescript::LANGUAGE_TSX.into()),
        query: [TYPESCRIPT_QUERY],
        imports: ["import_statement"],
        blocks: [],
        attributes: ["decorator"],
        regions: crate::embedded::vue_scripts,
    }
    /// `.el` (Emacs Lisp).
    #[cfg(feature = "rare")]
    Elisp {
        name: "elisp",
        extensions: ["el"],
        grammar: Some(|| tree_sitter_elisp::LANGUAGE.into()),
        query: [include_str!("../queries/elisp.scm")],
        imports: [],
        blocks: [],
        attributes: [],
    }
    /// `.ejs`, `.erb`: the template text (outside `<% ... %>`) read as HTML.
    #[cfg(feature = "rare")]
    EmbeddedTemplate {
        name: "embedded_template",
        extensions: ["ejs", "erb"],
        grammar: Some(|| tree_sitter_html::LANGUAGE.into()),
        query: [include_str!("../queries/html.scm")],
        imports: [],
        blocks: ["element", "script_element", "style_element"],
        attributes: [],
        regions: crate::embedded::template_text,
    }
    /// `.tla` (TLA+).
    #[cfg(feature = "tlaplus")]
    TlaPlus {
        name: "tlaplus",
        extensions: ["tla"],
        grammar: Some(|| tree_sitter_tlaplus::LANGUAGE.into()),
        query: [include_str!("../queries/tlaplus.scm")],
        imports: ["extends"],
        blocks: [],
        attributes: [],
    }
}

impl Language {
    fn row(self) -> &'static LanguageRow {
        &TABLE[self as usize]
    }

    /// The language for a file extension (without the dot, any case), or `None` when unsupported.
    pub fn from_extension(extension: &str) -> Option<Language> {
        let extension = extension.to_ascii_lowercase();
        Language::ALL.iter().copied().find(|language| {
            language
                .row()
                .extensions
                .iter()
                .any(|known| *known == extension)
        })
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

    /// A short lowercase name (`typescript`, `tsx`, `java`, `c_sharp`, ...), the stem of its query file.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The language of a [`Language::name`] (how a parse worker is told what to warm).
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL
            .iter()
            .copied()
            .find(|language| language.name() == name)
    }

    /// The file extensions (lowercase, without the dot) read as this language.
    pub fn extensions(self) -> &'static [&'static str] {
        self.row().extensions
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// True for languages read by a line parser instead of a grammar (Markdown).
    #[cfg(test)]
    pub(crate) fn has_grammar(self) -> bool {
        self.row().grammar.is_some()
    }

    /// The tree-sitter grammar for this language.
    pub(crate) fn grammar(self) -> tree_sitter::Language {
        let grammar = self
            .row()
            .grammar
            .unwrap_or_else(|| unreachable!("{} is read by a line parser", self.name()));
        grammar()
    }

    /// The region finder of a language embedded in another document, if it is one.
    pub(crate) fn region_finder(self) -> Option<RegionFinder> {
        #[cfg(any(feature = "more", feature = "rare"))]
        return self.row().regions;
        #[cfg(not(any(feature = "more", feature = "rare")))]
        return None;
    }

    /// Node kinds that are imports (their runs fold as `imports`).
    pub(crate) fn is_import(self, kind: &str) -> bool {
        self.row().imports.contains(&kind)
    }

    /// Node kinds that fold when multi-line although they have no brackets.
    pub(crate) fn is_unbracketed_block(self, kind: &str) -> bool {
        self.row()
            .block_suffixes
            .iter()
            .any(|suffix| kind.ends_with(suffix))
    }

    /// Node kinds of annotations/attributes/decorators that do not start a definition.
    pub(crate) fn attribute_kinds(self) -> &'static [&'static str] {
        self.row().attributes
    }

    /// The query source text: the row's parts, concatenated.
    pub(crate) fn query_source(self) -> String {
        self.row().query.concat()
    }

    /// The compiled definition query, compiled once per language per process.
    pub(crate) fn query(self) -> &'static CompiledQuery {
        static QUERIES: [OnceLock<CompiledQuery>; COUNT] = [const { OnceLock::new() }; COUNT];
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
    /// Per pattern, the field that holds the definition's name when the pattern sets
    /// [`NAME_FIELD_SETTING`] instead of capturing `@name`.
    pub(crate) name_fields: Vec<Option<String>>,
}

/// `(#set! name.field "name")`: the definition's name is its node's named child in that field
/// (a pattern without one does not match). It stands for `name: (_) @name` where a grammar
/// makes that pattern slow to compile: Swift's `(function_declaration name: (_) @name)` took
/// 1.2 s of a release build's first parse (every state a function's children can be in is
/// analysed), `(function_declaration)` alone a few milliseconds.
pub(crate) const NAME_FIELD_SETTING: &str = "name.field";

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
        let name_fields = (0..query.pattern_count())
            .map(|pattern| {
                query
                    .property_settings(pattern)
                    .iter()
                    .find(|setting| &*setting.key == NAME_FIELD_SETTING)
                    .and_then(|setting| setting.value.as_deref().map(str::to_owned))
            })
            .collect();
        CompiledQuery {
            query,
            roles,
            name_fields,
        }
    }
}

/// The last component of a path, splitting on `/` and `\`.
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DefinitionKind;

    #[test]
    fn every_grammar_loads_into_a_parser_and_every_query_compiles() {
        for &language in Language::ALL.iter().filter(|l| l.has_grammar()) {
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
            // A misspelt kind in a query would silently become `other`.
            for role in &compiled.roles {
                assert_ne!(
                    *role,
                    CaptureRole::Definition(DefinitionKind::Other),
                    "{} query has an unknown @definition kind",
                    language.name()
                );
            }
        }
    }

    #[test]
    fn table_rows_are_consistent() {
        let mut seen_extensions = std::collections::HashSet::new();
        let mut seen_names = std::collections::HashSet::new();
        for (index, &language) in Language::ALL.iter().enumerate() {
            assert_eq!(language.index(), index, "{}", language.name());
            assert!(seen_names.insert(language.name()), "{}", language.name());
            assert_eq!(Language::from_name(language.name()), Some(language));
            assert!(!language.extensions().is_empty(), "{}", language.name());
            for extension in language.extensions() {
                assert_eq!(*extension, extension.to_ascii_lowercase());
                assert!(
                    seen_extensions.insert(*extension),
                    "extension {extension} is claimed twice"
                );
                assert_eq!(Language::from_extension(extension), Some(language));
            }
        }
        assert_eq!(Language::ALL.len(), COUNT);
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

    #[cfg(feature = "mainstream")]
    #[test]
    fn mainstream_extensions_map_to_their_languages() {
        assert_eq!(Language::from_path("A.java"), Some(Language::Java));
        assert_eq!(Language::from_path("a.h"), Some(Language::C));
        assert_eq!(Language::from_path("a.HPP"), Some(Language::Cpp));
        assert_eq!(Language::from_path("a.c++"), Some(Language::Cpp));
        assert_eq!(Language::from_path("A.cs"), Some(Language::CSharp));
        assert_eq!(Language::from_path("Rakefile.rake"), Some(Language::Ruby));
        assert_eq!(Language::from_path("index.php"), Some(Language::Php));
        assert_eq!(Language::from_path("site.css"), Some(Language::Css));
        assert_eq!(Language::from_path("index.htm"), Some(Language::Html));
        assert_eq!(Language::from_path("package.json"), Some(Language::Json));
        assert_eq!(Language::from_path("run.sh"), Some(Language::Bash));
    }
}
