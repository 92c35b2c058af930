//! Reuse and parallelism for outlines: a cache keyed by path and content, and a batch outliner
//! that spreads cold files over all cores.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::{Language, Outline, OutlineDiagnostic, OutlineOptions, outline};

/// One file to outline.
#[derive(Debug, Clone, Copy)]
pub struct OutlineJob<'a> {
    /// Its language.
    pub language: Language,
    /// Its text.
    pub source: &'a str,
}

/// Outline many files, spreading them over up to `threads` threads (0 = all cores). Results are
/// in input order. Threads take the next file from a shared counter, so a few big files do not
/// leave a core idle.
pub fn outline_many(
    jobs: &[OutlineJob<'_>],
    options: &OutlineOptions,
    threads: usize,
) -> Vec<Outline> {
    let threads = effective_threads(threads).min(jobs.len());
    if threads <= 1 {
        return jobs
            .iter()
            .map(|job| outline(job.language, job.source, options))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Outline>> = vec![None; jobs.len()];
    // Workers inherit the request's cancellation flag, so a cancelled request stops every parse.
    let flag = roo_context_core::cancel::current_flag();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let flag = flag.clone();
                // Grammar-sized stacks: every outline runs on the worker itself.
                crate::memory::grammar_thread()
                    .spawn_scoped(scope, || {
                        crate::memory::on_grammar_thread(|| {
                            roo_context_core::cancel::with_flag(flag, || {
                                let mut done = Vec::new();
                                loop {
                                    let index = next.fetch_add(1, Ordering::Relaxed);
                                    let Some(job) = jobs.get(index) else { break };
                                    done.push((index, outline(job.language, job.source, options)));
                                }
                                done
                            })
                        })
                    })
                    .expect("a worker thread")
            })
            .collect();
        for worker in workers {
            // A panic in a worker is a bug in the engine; surface it to the caller.
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (index, result) in done {
                results[index] = Some(result);
            }
        }
    });
    results
        .into_iter()
        .map(|result| result.expect("every job is taken by exactly one worker"))
        .collect()
}

pub(crate) fn effective_threads(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        threads
    }
}

/// Identity of a file's content: its length and a 64-bit hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ContentKey {
    language: Language,
    length: usize,
    hash: u64,
}

impl ContentKey {
    fn of(language: Language, source: &str) -> ContentKey {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        source.as_bytes().hash(&mut hasher);
        ContentKey {
            language,
            length: source.len(),
            hash: hasher.finish(),
        }
    }
}

struct CacheEntry {
    key: ContentKey,
    outline: Arc<Outline>,
}

/// Outlines by path, reused while the content is unchanged (same language, length and hash).
/// One entry per path: new content replaces the old entry. Timed-out outlines are not kept, so a
/// file that was slow under load is tried again. Shareable between threads.
pub struct OutlineCache {
    options: OutlineOptions,
    entries: Mutex<HashMap<String, CacheEntry>>,
}

impl Default for OutlineCache {
    fn default() -> OutlineCache {
        OutlineCache::new(OutlineOptions::default())
    }
}

impl std::fmt::Debug for OutlineCache {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("OutlineCache")
            .field("options", &self.options)
            .field("entries", &self.len())
            .finish()
    }
}

impl OutlineCache {
    /// A cache whose outlines are computed with `options`.
    pub fn new(options: OutlineOptions) -> OutlineCache {
        OutlineCache {
            options,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The options outlines are computed with.
    pub fn options(&self) -> &OutlineOptions {
        &self.options
    }

    /// The outline of `source` at `path`, from the cache when the content is unchanged.
    pub fn outline(&self, path: &str, language: Language, source: &str) -> Arc<Outline> {
        self.outline_many(&[(path, OutlineJob { language, source })], 1)
            .pop()
            .expect("one job gives one outline")
    }

    /// Outlines for many files (in input order): hits come from the cache, misses are computed
    /// in parallel with [`outline_many`] and stored.
    pub fn outline_many(
        &self,
        jobs: &[(&str, OutlineJob<'_>)],
        threads: usize,
    ) -> Vec<Arc<Outline>> {
        let keys: Vec<ContentKey> = jobs
            .iter()
            .map(|(_, job)| ContentKey::of(job.language, job.source))
            .collect();
        let mut results: Vec<Option<Arc<Outline>>> = {
            let entries = self.lock();
            jobs.iter()
                .zip(&keys)
                .map(|((path, _), key)| {
                    entries
                        .get(*path)
                        .filter(|entry| entry.key == *key)
                        .map(|entry| Arc::clone(&entry.outline))
                })
                .collect()
        };
        let misses: Vec<usize> = (0..jobs.len()).filter(|&i| results[i].is_none()).collect();
        if misses.is_empty() {
            return results.into_iter().flatten().collect();
        }
        let miss_jobs: Vec<OutlineJob<'_>> = misses.iter().map(|&i| jobs[i].1).collect();
        let computed = outline_many(&miss_jobs, &self.options, threads);
        let mut entries = self.lock();
        for (index, outline) in misses.into_iter().zip(computed) {
            let outline = Arc::new(outline);
            // What depends on the moment (time, a cancel, a worker that could not start) is
            // tried again next time.
            let transient = outline.diagnostics.iter().any(|diagnostic| {
                matches!(
                    diagnostic,
                    OutlineDiagnostic::Timeout { .. }
                        | OutlineDiagnostic::Cancelled
                        | OutlineDiagnostic::ParseWorkerFailed { .. }
                )
            });
            if !transient {
                entries.insert(
                    jobs[index].0.to_owned(),
                    CacheEntry {
                        key: keys[index],
                        outline: Arc::clone(&outline),
                    },
                );
            }
            results[index] = Some(outline);
        }
        results.into_iter().flatten().collect()
    }

    /// Forget the outline of `path` (the file changed or was deleted).
    pub fn invalidate(&self, path: &str) {
        self.lock().remove(path);
    }

    /// Forget everything.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Number of cached outlines.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CacheEntry>> {
        // The map stays consistent even if a holder panicked: every update is a single insert.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
