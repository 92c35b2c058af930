//! A bounded, thread-safe cache of exact text counts keyed by content, so recounting a growing
//! conversation only tokenizes what is new.
//!
//! Keys are the text's length plus two independent 64-bit SipHash values (128 bits), so a false hit
//! needs a 128-bit collision between two texts of equal length. Each shard keeps two generations:
//! new and recently used entries live in `hot`; when `hot` is full it becomes `cold` and the old
//! `cold` is dropped. A hit in `cold` moves the entry back to `hot`. That approximates LRU with
//! O(1) work per access and at most `capacity` entries. Counting happens outside the lock.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::count_exact;

/// Number of independently locked shards.
const SHARDS: usize = 8;

/// Cache key: text length in bytes and two independent hashes of the text.
type Key = (usize, u64, u64);

/// Hit and miss counters and the current size of a [`TokenCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to tokenize the text.
    pub misses: u64,
    /// Bytes of text tokenized because of misses.
    pub bytes_counted: u64,
    /// Entries currently held.
    pub entries: usize,
}

#[derive(Debug, Default)]
struct Shard {
    hot: HashMap<Key, usize>,
    cold: HashMap<Key, usize>,
}

/// A bounded, thread-safe, content-keyed cache of exact o200k_base counts.
///
/// Share one per process (or per task) behind an `Arc`; all methods take `&self`.
#[derive(Debug)]
pub struct TokenCache {
    shards: Box<[Mutex<Shard>]>,
    /// Entries per shard generation; a shard holds at most twice this.
    generation_capacity: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    bytes_counted: AtomicU64,
}

impl Default for TokenCache {
    /// A cache of up to [`TokenCache::DEFAULT_CAPACITY`] entries.
    fn default() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }
}

impl TokenCache {
    /// Default maximum number of entries (about 5 MB of bookkeeping when full).
    pub const DEFAULT_CAPACITY: usize = 65_536;

    /// A cache holding at most about `capacity` entries (at least a few per shard).
    pub fn with_capacity(capacity: usize) -> Self {
        let generation_capacity = (capacity / (2 * SHARDS)).max(1);
        TokenCache {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            generation_capacity,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            bytes_counted: AtomicU64::new(0),
        }
    }

    /// The exact o200k_base count of `text` ([`crate::count_exact`]), from the cache when known.
    pub fn count_exact(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let key = key_of(text);
        let shard = &self.shards[(key.1 as usize) % SHARDS];
        if let Some(count) = lock(shard).get(&key, self.generation_capacity) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return count;
        }
        let count = count_exact(text);
        self.misses.fetch_add(1, Ordering::Relaxed);
        self.bytes_counted
            .fetch_add(text.len() as u64, Ordering::Relaxed);
        lock(shard).insert(key, count, self.generation_capacity);
        count
    }

    /// Hit and miss counters since creation (or the last [`TokenCache::clear`]) and the size.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes_counted: self.bytes_counted.load(Ordering::Relaxed),
            entries: self.len(),
        }
    }

    /// Number of entries currently held.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| {
                let shard = lock(shard);
                shard.hot.len() + shard.cold.len()
            })
            .sum()
    }

    /// Whether the cache holds no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every entry and resets the counters.
    pub fn clear(&self) {
        for shard in self.shards.iter() {
            *lock(shard) = Shard::default();
        }
        self.hits.store(0, Ordering::Relaxed);
        self.misses.store(0, Ordering::Relaxed);
        self.bytes_counted.store(0, Ordering::Relaxed);
    }
}

impl Shard {
    fn get(&mut self, key: &Key, generation_capacity: usize) -> Option<usize> {
        if let Some(&count) = self.hot.get(key) {
            return Some(count);
        }
        // Recently used again: promote so the next rotation keeps it.
        let count = self.cold.remove(key)?;
        self.insert(*key, count, generation_capacity);
        Some(count)
    }

    /// Inserts into `hot`, rotating first when it is full, so each generation stays within
    /// `generation_capacity` entries.
    fn insert(&mut self, key: Key, count: usize, generation_capacity: usize) {
        if self.hot.len() >= generation_capacity && !self.hot.contains_key(&key) {
            self.cold = std::mem::take(&mut self.hot);
        }
        self.hot.insert(key, count);
    }
}

/// Locks a shard; a poisoned lock only means another thread panicked mid-update of a plain
/// map of counts, which is still consistent, so it is used as is.
fn lock(shard: &Mutex<Shard>) -> std::sync::MutexGuard<'_, Shard> {
    shard
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn key_of(text: &str) -> Key {
    // Two independently seeded foldhash hashes (plus the length): tens of GB/s, so a 50 MB
    // history costs milliseconds to look up, and a false hit needs a 128-bit collision.
    const FIRST: foldhash::quality::FixedState =
        foldhash::quality::FixedState::with_seed(0x243F_6A88_85A3_08D3);
    const SECOND: foldhash::quality::FixedState =
        foldhash::quality::FixedState::with_seed(0x9E37_79B9_7F4A_7C15);
    (text.len(), FIRST.hash_one(text), SECOND.hash_one(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_count_of_the_same_text_is_a_hit() {
        let cache = TokenCache::default();
        let text = "let x = 1;\n".repeat(100);
        assert_eq!(cache.count_exact(&text), count_exact(&text));
        assert_eq!(cache.count_exact(&text), count_exact(&text));
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses, stats.entries), (1, 1, 1));
        assert_eq!(stats.bytes_counted, text.len() as u64);
    }

    #[test]
    fn growing_conversation_only_counts_new_messages() {
        let cache = TokenCache::default();
        let mut messages: Vec<String> = Vec::new();
        let mut total_bytes = 0u64;
        for turn in 0..50 {
            let message = format!("turn {turn}: {}", "some tool output\n".repeat(turn + 1));
            total_bytes += message.len() as u64;
            messages.push(message);
            let total: usize = messages.iter().map(|m| cache.count_exact(m)).sum();
            let expected: usize = messages.iter().map(|m| count_exact(m)).sum();
            assert_eq!(total, expected);
        }
        let stats = cache.stats();
        assert_eq!(stats.misses, 50);
        assert_eq!(
            stats.bytes_counted, total_bytes,
            "each message tokenized once"
        );
        assert_eq!(stats.hits, (0..50).sum::<u64>());
    }

    #[test]
    fn empty_text_is_not_cached() {
        let cache = TokenCache::default();
        assert_eq!(cache.count_exact(""), 0);
        assert!(cache.is_empty());
        assert_eq!(cache.stats(), CacheStats::default());
    }

    #[test]
    fn size_stays_bounded_and_recent_entries_survive() {
        let cache = TokenCache::with_capacity(64);
        for i in 0..1_000 {
            cache.count_exact(&format!("entry number {i}"));
            // Keep touching one entry so it stays hot across rotations.
            cache.count_exact("the recently used one");
            assert!(cache.len() <= 64, "len {} after {i}", cache.len());
        }
        let misses_before = cache.stats().misses;
        cache.count_exact("the recently used one");
        assert_eq!(cache.stats().misses, misses_before, "recent entry was kept");
    }

    #[test]
    fn clear_drops_entries_and_counters() {
        let cache = TokenCache::default();
        cache.count_exact("hello");
        cache.clear();
        assert!(cache.is_empty());
        assert_eq!(cache.stats(), CacheStats::default());
    }

    #[test]
    fn shared_across_threads() {
        let cache = std::sync::Arc::new(TokenCache::default());
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let cache = cache.clone();
                std::thread::spawn(move || {
                    (0..100)
                        .map(|i| cache.count_exact(&format!("text {}", (i + t) % 50)))
                        .sum::<usize>()
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("no panic");
        }
        assert_eq!(cache.len(), 50);
    }
}
