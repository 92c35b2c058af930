//! Reading a file in another process (issue 25, class 2b): tree-sitter's error recovery can take
//! seconds and gigabytes inside one operation, between two progress callbacks, so no bound kept
//! inside the process that parses holds. The readers ([`crate::outline`],
//! [`crate::folding_ranges`], [`crate::document_symbols`]) hand a file to the [`Isolate`] set in
//! [`crate::OutlineOptions::isolation`]: it runs [`serve`] in a capped worker process and gives
//! back the encoded answer, or why there is none ([`IsolationError`]). This crate owns what
//! crosses the boundary (the job and answer encoding, the worker's side) and stays free of
//! processes; the server crate owns the workers.
//! One file on purpose: `Encoder` and `Decoder` write and read one format field by field in the
//! same order, so they change together; its unit tests, about 195 lines, sit below the code.
//!
//! The encoding is a small length-prefixed binary form (little-endian integers, UTF-8 strings):
//! an answer of 20,000 symbols is a few hundred kilobytes and decodes without a parser.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::{
    DefinitionKind, DocumentSymbol, DocumentSymbols, FoldingKind, FoldingRange, FoldingRanges,
    Language, Outline, OutlineDiagnostic, OutlineOptions, Position, Span,
};

/// Why an isolated reader gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IsolationError {
    /// The worker ran out of its memory cap (its address-space limit, in bytes).
    MemoryLimit {
        /// The cap.
        limit: usize,
    },
    /// The worker outlived the file's budget and was stopped (killed, or its CPU limit).
    Timeout {
        /// The budget that ran out.
        budget: Duration,
    },
    /// The request was cancelled; the worker was stopped.
    Cancelled,
    /// The worker could not be started, died, or answered something unreadable.
    WorkerFailed(String),
}

impl fmt::Display for IsolationError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsolationError::MemoryLimit { limit } => write!(
                formatter,
                "parse worker stopped at its memory limit ({} MiB)",
                limit >> 20
            ),
            IsolationError::Timeout { budget } => write!(
                formatter,
                "parse worker stopped after the file's budget of {} ms",
                budget.as_millis()
            ),
            IsolationError::Cancelled => formatter.write_str("the request was cancelled"),
            IsolationError::WorkerFailed(reason) => {
                write!(formatter, "parse worker failed: {reason}")
            }
        }
    }
}

impl std::error::Error for IsolationError {}

impl IsolationError {
    /// The diagnostic an outline, folding ranges or symbols carry instead of an answer.
    pub(crate) fn diagnostic(self) -> OutlineDiagnostic {
        match self {
            IsolationError::MemoryLimit { limit } => OutlineDiagnostic::MemoryLimit { limit },
            IsolationError::Timeout { budget } => OutlineDiagnostic::Timeout {
                budget,
                during_query: false,
            },
            IsolationError::Cancelled => OutlineDiagnostic::Cancelled,
            IsolationError::WorkerFailed(reason) => OutlineDiagnostic::ParseWorkerFailed { reason },
        }
    }
}

/// Runs encoded jobs somewhere the parse cannot take the caller down (a capped child process).
pub trait Isolate: Send + Sync {
    /// Runs `job` (made by this crate) through [`serve`] and returns what it returned. `budget`
    /// is the file's time budget ([`OutlineOptions::parse_timeout`]); the worker is stopped a
    /// little after it, and whenever the calling thread's request is cancelled
    /// ([`roo_context_core::cancel::cancelled`]).
    fn run(&self, job: &[u8], budget: Duration) -> Result<Vec<u8>, IsolationError>;
}

/// Where the readers parse: here (the default), or through an [`Isolate`] for every source of at
/// least `min_bytes` bytes. Compared and hashed by identity, so options stay comparable.
#[derive(Clone, Default)]
pub struct Isolation {
    isolate: Option<Arc<dyn Isolate>>,
    min_bytes: usize,
}

impl Isolation {
    /// Parse here, in this process (tests, the worker itself).
    pub fn in_process() -> Isolation {
        Isolation::default()
    }

    /// Parse every source of at least `min_bytes` through `isolate`.
    pub fn through(isolate: Arc<dyn Isolate>, min_bytes: usize) -> Isolation {
        Isolation {
            isolate: Some(isolate),
            min_bytes,
        }
    }

    /// True when sources are parsed through an isolate.
    pub fn is_isolated(&self) -> bool {
        self.isolate.is_some()
    }

    /// The isolate that should read `source`, if any. Sources no grammar reads (too large,
    /// blank, Markdown's line parser) are answered here: they never reach tree-sitter.
    fn for_source(
        &self,
        language: Language,
        source: &str,
        options: &OutlineOptions,
    ) -> Option<&dyn Isolate> {
        let isolate = self.isolate.as_deref()?;
        let grammar_reads = language != Language::Markdown
            && source.len() <= options.max_source_bytes
            && source.len() >= self.min_bytes
            && !crate::engine::is_blank(source);
        grammar_reads.then_some(isolate)
    }
}

impl fmt::Debug for Isolation {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.isolate {
            None => formatter.write_str("Isolation::InProcess"),
            Some(_) => write!(
                formatter,
                "Isolation::Worker(min_bytes: {})",
                self.min_bytes
            ),
        }
    }
}

impl PartialEq for Isolation {
    fn eq(&self, other: &Isolation) -> bool {
        let same = match (&self.isolate, &other.isolate) {
            (None, None) => true,
            (Some(a), Some(b)) => std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b)),
            _ => false,
        };
        same && self.min_bytes == other.min_bytes
    }
}

impl Eq for Isolation {}

impl std::hash::Hash for Isolation {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.isolate
            .as_ref()
            .map(|isolate| Arc::as_ptr(isolate).cast::<()>() as usize)
            .hash(state);
        self.min_bytes.hash(state);
    }
}

/// Which reader a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    Outline,
    FoldingRanges,
    DocumentSymbols,
}

/// A reader's answer.
#[derive(Debug)]
pub(crate) enum Answer {
    Outline(Outline),
    FoldingRanges(FoldingRanges),
    DocumentSymbols(DocumentSymbols),
}

/// Runs `reader` on `source` through the options' isolate, or `None` when the source is read
/// here. A failure is an empty answer with the failure's diagnostic.
pub(crate) fn isolated(
    reader: Reader,
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> Option<Answer> {
    let isolate = options.isolation.for_source(language, source, options)?;
    let job = encode_job(reader, language, source, options);
    let answer = isolate
        .run(&job, options.parse_timeout)
        .and_then(|bytes| {
            decode_answer(&bytes).map_err(|error| {
                IsolationError::WorkerFailed(format!("unreadable answer: {error}"))
            })
        })
        .and_then(|answer| match (reader, &answer) {
            (Reader::Outline, Answer::Outline(_))
            | (Reader::FoldingRanges, Answer::FoldingRanges(_))
            | (Reader::DocumentSymbols, Answer::DocumentSymbols(_)) => Ok(answer),
            _ => Err(IsolationError::WorkerFailed(
                "answer for another reader".to_owned(),
            )),
        });
    Some(answer.unwrap_or_else(|error| {
        let diagnostics = vec![error.diagnostic()];
        match reader {
            Reader::Outline => Answer::Outline(Outline {
                language,
                definitions: Vec::new(),
                diagnostics,
                short_tests_outside: None,
            }),
            Reader::FoldingRanges => Answer::FoldingRanges(FoldingRanges {
                ranges: Vec::new(),
                diagnostics,
            }),
            Reader::DocumentSymbols => Answer::DocumentSymbols(DocumentSymbols {
                symbols: Vec::new(),
                diagnostics,
            }),
        }
    }))
}

/// Stack a worker's thread must have for [`serve_on_this_stack`]: the readers' own.
pub const WORKER_STACK_BYTES: usize = crate::memory::GRAMMAR_STACK_BYTES;

/// The worker's first step: compiles the job's query (once per process, as slow as the query is
/// large and not the file's cost), so the caller can start the file's clock after it.
pub fn prepare(job: &[u8]) -> Result<(), String> {
    let (_, language, _, _) = decode_job(job).map_err(|e| e.to_string())?;
    if language != Language::Markdown {
        language.query();
    }
    Ok(())
}

/// The language a job is for (`None` for a job this build cannot read): a pool of workers
/// remembers the languages it served, so a worker started to replace a killed one compiles
/// their queries before anyone waits on it.
pub fn job_language(job: &[u8]) -> Option<Language> {
    decode_job(job).ok().map(|(_, language, _, _)| language)
}

/// Compiles the queries of `languages` now (a fresh worker's first step, before it reads a job).
pub fn warm(languages: &[Language]) {
    for language in languages {
        if *language != Language::Markdown {
            language.query();
        }
    }
}

/// [`serve`] on the calling thread, which the caller promises has [`WORKER_STACK_BYTES`] of
/// stack (a worker's main thread under that `RLIMIT_STACK`): no thread is started per job, so
/// a worker's address space holds one stack and one heap.
pub fn serve_on_this_stack(job: &[u8]) -> Result<Vec<u8>, String> {
    crate::memory::on_grammar_thread(|| serve(job))
}

/// The worker's side: decodes a job, runs its reader here, encodes the answer. An unreadable
/// job is answered with an error text (the caller reports it as a failed worker).
pub fn serve(job: &[u8]) -> Result<Vec<u8>, String> {
    let (reader, language, source, options) = decode_job(job).map_err(|e| e.to_string())?;
    let source = std::str::from_utf8(source).map_err(|e| format!("source is not UTF-8: {e}"))?;
    let mut out = Encoder::default();
    match reader {
        Reader::Outline => {
            out.u8(0);
            out.outline(&crate::outline(language, source, &options));
        }
        Reader::FoldingRanges => {
            out.u8(1);
            out.folding_ranges(&crate::folding_ranges(language, source, &options));
        }
        Reader::DocumentSymbols => {
            out.u8(2);
            out.document_symbols(&crate::document_symbols(language, source, &options));
        }
    }
    Ok(out.bytes)
}

/// Marks the encoding's version: a worker from another build answers nothing it cannot read.
const JOB_MAGIC: &[u8; 4] = b"RCF1";

fn encode_job(
    reader: Reader,
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> Vec<u8> {
    let mut out = Encoder {
        bytes: Vec::with_capacity(source.len() + 96),
    };
    out.bytes.extend_from_slice(JOB_MAGIC);
    out.u8(match reader {
        Reader::Outline => 0,
        Reader::FoldingRanges => 1,
        Reader::DocumentSymbols => 2,
    });
    out.str(language.name());
    out.u64(options.min_lines.into());
    out.duration(options.parse_timeout);
    out.usize(options.max_source_bytes);
    out.usize(options.max_line_chars);
    out.usize(options.max_parse_memory);
    out.usize(options.max_nesting);
    out.usize(options.max_results);
    out.bytes_field(source.as_bytes());
    out.bytes
}

fn decode_job(job: &[u8]) -> Result<(Reader, Language, &[u8], OutlineOptions), DecodeError> {
    let mut input = Decoder { bytes: job };
    if input.take(4)? != JOB_MAGIC {
        return Err(DecodeError("not a job of this build"));
    }
    let reader = match input.u8()? {
        0 => Reader::Outline,
        1 => Reader::FoldingRanges,
        2 => Reader::DocumentSymbols,
        _ => return Err(DecodeError("unknown reader")),
    };
    let name = input.str()?;
    let language = Language::ALL
        .iter()
        .copied()
        .find(|language| language.name() == name)
        .ok_or(DecodeError("unknown language"))?;
    let options = OutlineOptions {
        min_lines: u32::try_from(input.u64()?).map_err(|_| DecodeError("min_lines"))?,
        parse_timeout: input.duration()?,
        max_source_bytes: input.usize()?,
        max_line_chars: input.usize()?,
        max_parse_memory: input.usize()?,
        max_nesting: input.usize()?,
        max_results: input.usize()?,
        isolation: Isolation::in_process(),
    };
    let source = input.bytes_field()?;
    Ok((reader, language, source, options))
}

fn decode_answer(bytes: &[u8]) -> Result<Answer, DecodeError> {
    let mut input = Decoder { bytes };
    let answer = match input.u8()? {
        0 => Answer::Outline(input.outline()?),
        1 => Answer::FoldingRanges(input.folding_ranges()?),
        2 => Answer::DocumentSymbols(input.document_symbols()?),
        _ => return Err(DecodeError("unknown answer")),
    };
    if !input.bytes.is_empty() {
        return Err(DecodeError("trailing bytes"));
    }
    Ok(answer)
}

/// What was wrong with an encoded job or answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DecodeError(&'static str);

impl fmt::Display for DecodeError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "malformed at {}", self.0)
    }
}

#[derive(Default)]
struct Encoder {
    bytes: Vec<u8>,
}

impl Encoder {
    fn u8(&mut self, value: u8) {
        self.bytes.push(value);
    }

    fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    fn u64(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    fn usize(&mut self, value: usize) {
        self.u64(value as u64);
    }

    fn duration(&mut self, value: Duration) {
        self.u64(value.as_secs());
        self.u32(value.subsec_nanos());
    }

    fn bytes_field(&mut self, value: &[u8]) {
        self.usize(value.len());
        self.bytes.extend_from_slice(value);
    }

    fn str(&mut self, value: &str) {
        self.bytes_field(value.as_bytes());
    }

    fn span(&mut self, span: &Span) {
        for position in [span.start, span.end] {
            self.u32(position.line);
            self.u32(position.column);
        }
        self.usize(span.start_byte);
        self.usize(span.end_byte);
    }

    fn kind(&mut self, kind: DefinitionKind) {
        self.str(kind.as_str());
    }

    fn diagnostics(&mut self, diagnostics: &[OutlineDiagnostic]) {
        self.usize(diagnostics.len());
        for diagnostic in diagnostics {
            match diagnostic {
                OutlineDiagnostic::TooLarge { bytes, limit } => {
                    self.u8(0);
                    self.usize(*bytes);
                    self.usize(*limit);
                }
                OutlineDiagnostic::Timeout {
                    budget,
                    during_query,
                } => {
                    self.u8(1);
                    self.duration(*budget);
                    self.u8(u8::from(*during_query));
                }
                OutlineDiagnostic::MemoryLimit { limit } => {
                    self.u8(2);
                    self.usize(*limit);
                }
                OutlineDiagnostic::TooDeep { limit } => {
                    self.u8(3);
                    self.usize(*limit);
                }
                OutlineDiagnostic::Truncated { kept } => {
                    self.u8(4);
                    self.usize(*kept);
                }
                OutlineDiagnostic::SyntaxErrors { first_error_line } => {
                    self.u8(5);
                    self.u32(*first_error_line);
                }
                OutlineDiagnostic::GrammarLimitation { line, construct } => {
                    self.u8(6);
                    self.u32(*line);
                    let index = crate::engine::GRAMMAR_LIMITATIONS
                        .iter()
                        .position(|known| known == construct)
                        .unwrap_or(usize::MAX);
                    self.usize(index);
                }
                OutlineDiagnostic::Cancelled => self.u8(7),
                OutlineDiagnostic::ParseWorkerFailed { reason } => {
                    self.u8(8);
                    self.str(reason);
                }
            }
        }
    }

    fn outline(&mut self, outline: &Outline) {
        self.str(outline.language.name());
        self.usize(outline.definitions.len());
        for definition in &outline.definitions {
            self.kind(definition.kind);
            self.str(&definition.name);
            self.span(&definition.range);
            self.span(&definition.selection_range);
            self.str(&definition.first_line);
            self.u64(definition.parent.map_or(u64::MAX, |parent| parent as u64));
            self.u32(definition.short_tests);
        }
        self.diagnostics(&outline.diagnostics);
        match outline.short_tests_outside {
            None => self.u8(0),
            Some((count, start, end)) => {
                self.u8(1);
                self.u32(count);
                self.u32(start);
                self.u32(end);
            }
        }
    }

    fn folding_ranges(&mut self, ranges: &FoldingRanges) {
        self.usize(ranges.ranges.len());
        for range in &ranges.ranges {
            self.u32(range.start_line);
            self.u32(range.end_line);
            self.u8(match range.kind {
                FoldingKind::Comment => 0,
                FoldingKind::Imports => 1,
                FoldingKind::Region => 2,
            });
        }
        self.diagnostics(&ranges.diagnostics);
    }

    /// Symbols in pre-order, each with its number of children: no recursion either way.
    fn document_symbols(&mut self, symbols: &DocumentSymbols) {
        let mut stack: Vec<std::slice::Iter<'_, DocumentSymbol>> = vec![symbols.symbols.iter()];
        self.usize(symbols.symbols.len());
        while let Some(level) = stack.last_mut() {
            let Some(symbol) = level.next() else {
                stack.pop();
                continue;
            };
            self.str(&symbol.name);
            self.kind(symbol.kind);
            self.span(&symbol.range);
            self.span(&symbol.selection_range);
            self.usize(symbol.children.len());
            stack.push(symbol.children.iter());
        }
        self.diagnostics(&symbols.diagnostics);
    }
}

struct Decoder<'a> {
    bytes: &'a [u8],
}

impl<'a> Decoder<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], DecodeError> {
        if count > self.bytes.len() {
            return Err(DecodeError("end of input"));
        }
        let (taken, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        Ok(taken)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("four bytes")))
    }

    fn u64(&mut self) -> Result<u64, DecodeError> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("eight bytes")))
    }

    fn usize(&mut self) -> Result<usize, DecodeError> {
        usize::try_from(self.u64()?).map_err(|_| DecodeError("a size"))
    }

    /// A count of items each at least `item_bytes` long: never more than the input can hold,
    /// so a corrupt count cannot make a huge allocation.
    fn count(&mut self, item_bytes: usize) -> Result<usize, DecodeError> {
        let count = self.usize()?;
        if count.saturating_mul(item_bytes) > self.bytes.len() {
            return Err(DecodeError("a count"));
        }
        Ok(count)
    }

    fn duration(&mut self) -> Result<Duration, DecodeError> {
        let seconds = self.u64()?;
        let nanos = self.u32()?;
        if nanos >= 1_000_000_000 {
            return Err(DecodeError("a duration"));
        }
        Ok(Duration::new(seconds, nanos))
    }

    fn bytes_field(&mut self) -> Result<&'a [u8], DecodeError> {
        let length = self.usize()?;
        self.take(length)
    }

    fn str(&mut self) -> Result<&'a str, DecodeError> {
        std::str::from_utf8(self.bytes_field()?).map_err(|_| DecodeError("a string"))
    }

    fn string(&mut self) -> Result<String, DecodeError> {
        self.str().map(str::to_owned)
    }

    fn span(&mut self) -> Result<Span, DecodeError> {
        let mut position = || -> Result<Position, DecodeError> {
            Ok(Position {
                line: self.u32()?,
                column: self.u32()?,
            })
        };
        let start = position()?;
        let end = position()?;
        Ok(Span {
            start,
            end,
            start_byte: self.usize()?,
            end_byte: self.usize()?,
        })
    }

    fn kind(&mut self) -> Result<DefinitionKind, DecodeError> {
        Ok(match self.str()? {
            "heading" => DefinitionKind::Heading,
            suffix => DefinitionKind::from_capture_suffix(suffix),
        })
    }

    fn language(&mut self) -> Result<Language, DecodeError> {
        let name = self.str()?;
        Language::ALL
            .iter()
            .copied()
            .find(|language| language.name() == name)
            .ok_or(DecodeError("a language"))
    }

    fn diagnostics(&mut self) -> Result<Vec<OutlineDiagnostic>, DecodeError> {
        let count = self.count(1)?;
        let mut diagnostics = Vec::with_capacity(count);
        for _ in 0..count {
            diagnostics.push(match self.u8()? {
                0 => OutlineDiagnostic::TooLarge {
                    bytes: self.usize()?,
                    limit: self.usize()?,
                },
                1 => OutlineDiagnostic::Timeout {
                    budget: self.duration()?,
                    during_query: self.u8()? != 0,
                },
                2 => OutlineDiagnostic::MemoryLimit {
                    limit: self.usize()?,
                },
                3 => OutlineDiagnostic::TooDeep {
                    limit: self.usize()?,
                },
                4 => OutlineDiagnostic::Truncated {
                    kept: self.usize()?,
                },
                5 => OutlineDiagnostic::SyntaxErrors {
                    first_error_line: self.u32()?,
                },
                6 => OutlineDiagnostic::GrammarLimitation {
                    line: self.u32()?,
                    construct: crate::engine::GRAMMAR_LIMITATIONS
                        .get(self.usize()?)
                        .copied()
                        .ok_or(DecodeError("a grammar limitation"))?,
                },
                7 => OutlineDiagnostic::Cancelled,
                8 => OutlineDiagnostic::ParseWorkerFailed {
                    reason: self.string()?,
                },
                _ => return Err(DecodeError("a diagnostic")),
            });
        }
        Ok(diagnostics)
    }

    fn outline(&mut self) -> Result<Outline, DecodeError> {
        let language = self.language()?;
        let count = self.count(8)?;
        let mut definitions = Vec::with_capacity(count);
        for _ in 0..count {
            let kind = self.kind()?;
            let name = self.string()?;
            let range = self.span()?;
            let selection_range = self.span()?;
            let first_line = self.string()?;
            let parent = match self.u64()? {
                u64::MAX => None,
                parent => Some(
                    usize::try_from(parent)
                        .ok()
                        .filter(|parent| *parent < definitions.len())
                        .ok_or(DecodeError("a parent"))?,
                ),
            };
            definitions.push(crate::Definition {
                kind,
                name,
                range,
                selection_range,
                first_line,
                parent,
                short_tests: self.u32()?,
            });
        }
        let diagnostics = self.diagnostics()?;
        let short_tests_outside = match self.u8()? {
            0 => None,
            _ => Some((self.u32()?, self.u32()?, self.u32()?)),
        };
        Ok(Outline {
            language,
            definitions,
            diagnostics,
            short_tests_outside,
        })
    }

    fn folding_ranges(&mut self) -> Result<FoldingRanges, DecodeError> {
        let count = self.count(9)?;
        let mut ranges = Vec::with_capacity(count);
        for _ in 0..count {
            ranges.push(FoldingRange {
                start_line: self.u32()?,
                end_line: self.u32()?,
                kind: match self.u8()? {
                    0 => FoldingKind::Comment,
                    1 => FoldingKind::Imports,
                    2 => FoldingKind::Region,
                    _ => return Err(DecodeError("a folding kind")),
                },
            });
        }
        Ok(FoldingRanges {
            ranges,
            diagnostics: self.diagnostics()?,
        })
    }

    /// The pre-order of [`Encoder::document_symbols`], rebuilt with a stack of open parents
    /// (depth bounded by [`crate::MAX_SYMBOL_DEPTH`]).
    fn document_symbols(&mut self) -> Result<DocumentSymbols, DecodeError> {
        // Each open level: the symbols read so far, how many it holds, and its owner.
        struct Level {
            owner: Option<DocumentSymbol>,
            children: Vec<DocumentSymbol>,
            left: usize,
        }
        let roots = self.count(8)?;
        let mut stack = vec![Level {
            owner: None,
            children: Vec::with_capacity(roots),
            left: roots,
        }];
        loop {
            let top = stack.last_mut().expect("the root level stays");
            if top.left == 0 {
                let done = stack.pop().expect("a level");
                let Some(mut owner) = done.owner else {
                    return Ok(DocumentSymbols {
                        symbols: done.children,
                        diagnostics: self.diagnostics()?,
                    });
                };
                owner.children = done.children;
                stack
                    .last_mut()
                    .expect("an owner has a parent level")
                    .children
                    .push(owner);
                continue;
            }
            top.left -= 1;
            let symbol = DocumentSymbol {
                name: self.string()?,
                kind: self.kind()?,
                range: self.span()?,
                selection_range: self.span()?,
                children: Vec::new(),
            };
            let children = self.count(8)?;
            if stack.len() > crate::MAX_SYMBOL_DEPTH + 1 {
                return Err(DecodeError("symbol depth"));
            }
            stack.push(Level {
                owner: Some(symbol),
                children: Vec::with_capacity(children),
                left: children,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An isolate that serves jobs in this process: the encoding's round trip.
    struct Here;

    impl Isolate for Here {
        fn run(&self, job: &[u8], _budget: Duration) -> Result<Vec<u8>, IsolationError> {
            serve(job).map_err(IsolationError::WorkerFailed)
        }
    }

    struct Failing(IsolationError);

    impl Isolate for Failing {
        fn run(&self, _job: &[u8], _budget: Duration) -> Result<Vec<u8>, IsolationError> {
            Err(self.0.clone())
        }
    }

    fn through(isolate: impl Isolate + 'static) -> OutlineOptions {
        OutlineOptions {
            isolation: Isolation::through(Arc::new(isolate), 0),
            ..OutlineOptions::default()
        }
    }

    const SOURCE: &str = "import { a } from 'a';\nimport { b } from 'b';\n\n/**\n * Docs.\n */\nexport class Cart {\n  add(item: string): void {\n    if (item) {\n      console.log(item);\n    }\n  }\n}\n\ndescribe('cart', () => {\n  it('adds', () => {});\n});\nfunction broken( {\n";

    #[test]
    fn every_reader_answers_the_same_through_an_isolate_as_here() {
        let here = OutlineOptions::default();
        let isolated = through(Here);
        for language in [Language::TypeScript, Language::Python, Language::Rust] {
            assert_eq!(
                crate::outline(language, SOURCE, &isolated),
                crate::outline(language, SOURCE, &here)
            );
            assert_eq!(
                crate::folding_ranges(language, SOURCE, &isolated),
                crate::folding_ranges(language, SOURCE, &here)
            );
            assert_eq!(
                crate::document_symbols(language, SOURCE, &isolated),
                crate::document_symbols(language, SOURCE, &here)
            );
        }
        let outline = crate::outline(Language::TypeScript, SOURCE, &isolated);
        assert!(!outline.definitions.is_empty());
        assert!(outline.short_tests_outside.is_some() || outline.definitions.len() > 1);
    }

    #[test]
    fn nested_symbols_and_every_diagnostic_survive_the_encoding() {
        let mut source = String::new();
        for depth in 0..80 {
            source.push_str(&format!("{}mod m{depth} {{\n", " ".repeat(depth)));
        }
        source.push_str(&"}\n".repeat(80));
        let symbols = crate::document_symbols(Language::Rust, &source, &OutlineOptions::default());
        let mut out = Encoder::default();
        out.u8(2);
        out.document_symbols(&symbols);
        let Ok(Answer::DocumentSymbols(decoded)) = decode_answer(&out.bytes) else {
            panic!("decodes");
        };
        assert_eq!(decoded, symbols);

        let every = vec![
            OutlineDiagnostic::TooLarge { bytes: 9, limit: 8 },
            OutlineDiagnostic::Timeout {
                budget: Duration::from_millis(1500),
                during_query: true,
            },
            OutlineDiagnostic::MemoryLimit { limit: 1 << 30 },
            OutlineDiagnostic::TooDeep { limit: 7 },
            OutlineDiagnostic::Truncated { kept: 3 },
            OutlineDiagnostic::SyntaxErrors {
                first_error_line: 4,
            },
            OutlineDiagnostic::GrammarLimitation {
                line: 2,
                construct: crate::engine::GRAMMAR_LIMITATIONS[1],
            },
            OutlineDiagnostic::Cancelled,
            OutlineDiagnostic::ParseWorkerFailed {
                reason: "signal 11".into(),
            },
        ];
        let ranges = FoldingRanges {
            ranges: vec![FoldingRange {
                start_line: 1,
                end_line: 5,
                kind: FoldingKind::Imports,
            }],
            diagnostics: every,
        };
        let mut out = Encoder::default();
        out.u8(1);
        out.folding_ranges(&ranges);
        let Ok(Answer::FoldingRanges(decoded)) = decode_answer(&out.bytes) else {
            panic!("decodes");
        };
        assert_eq!(decoded, ranges);
    }

    #[test]
    fn a_truncated_or_corrupt_answer_is_an_error_not_a_panic_or_a_huge_allocation() {
        let outline = crate::outline(Language::TypeScript, SOURCE, &OutlineOptions::default());
        let mut out = Encoder::default();
        out.u8(0);
        out.outline(&outline);
        for cut in 0..out.bytes.len() {
            assert!(decode_answer(&out.bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut huge_count = vec![0u8];
        huge_count.extend_from_slice(&"typescript".len().to_le_bytes());
        huge_count.extend_from_slice(b"typescript");
        huge_count.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode_answer(&huge_count).is_err());
    }

    #[test]
    fn a_failed_isolate_gives_an_empty_answer_with_its_cause() {
        let cases = [
            (
                IsolationError::MemoryLimit { limit: 1 << 30 },
                OutlineDiagnostic::MemoryLimit { limit: 1 << 30 },
            ),
            (
                IsolationError::Timeout {
                    budget: Duration::from_secs(2),
                },
                OutlineDiagnostic::Timeout {
                    budget: Duration::from_secs(2),
                    during_query: false,
                },
            ),
            (IsolationError::Cancelled, OutlineDiagnostic::Cancelled),
            (
                IsolationError::WorkerFailed("cannot start".into()),
                OutlineDiagnostic::ParseWorkerFailed {
                    reason: "cannot start".into(),
                },
            ),
        ];
        for (error, diagnostic) in cases {
            let options = through(Failing(error));
            let outline = crate::outline(Language::TypeScript, SOURCE, &options);
            assert!(outline.definitions.is_empty() && outline.failed());
            assert_eq!(outline.diagnostics, vec![diagnostic.clone()]);
            let symbols = crate::document_symbols(Language::TypeScript, SOURCE, &options);
            assert_eq!(symbols.diagnostics, vec![diagnostic.clone()]);
            let ranges = crate::folding_ranges(Language::TypeScript, SOURCE, &options);
            assert_eq!(ranges.diagnostics, vec![diagnostic]);
        }
    }

    #[test]
    fn sources_no_grammar_reads_never_reach_the_isolate() {
        let options = through(Failing(IsolationError::Cancelled));
        assert!(
            crate::outline(Language::Markdown, "# a\n\nb\nc\nd\n", &options)
                .diagnostics
                .is_empty()
        );
        assert!(
            crate::outline(Language::TypeScript, " \n\t\n", &options)
                .diagnostics
                .is_empty()
        );
        let small = OutlineOptions {
            isolation: Isolation::through(Arc::new(Failing(IsolationError::Cancelled)), 1024),
            ..OutlineOptions::default()
        };
        assert!(!crate::outline(Language::TypeScript, SOURCE, &small).failed());
    }

    #[test]
    fn a_job_of_another_build_or_a_cut_job_is_refused() {
        let job = encode_job(
            Reader::Outline,
            Language::Go,
            "package a\n",
            &OutlineOptions::default(),
        );
        assert!(serve(&job).is_ok());
        assert!(serve(&job[..job.len() - 1]).is_err());
        let mut other = job.clone();
        other[3] = b'9';
        assert!(serve(&other).is_err());
    }
}
