//! Tests of the outline cache (reuse while content is unchanged, explicit invalidation) and of
//! parallel batch outlines (same results as one thread, in input order).

use std::sync::Arc;

use roo_context_fold::{Language, OutlineCache, OutlineJob, OutlineOptions, outline, outline_many};

fn functions(count: usize, prefix: &str) -> String {
    (0..count)
        .map(|i| format!("function {prefix}{i}() {{\n  const a = {i};\n  return a;\n}}\n"))
        .collect()
}

#[test]
fn unchanged_content_is_served_from_the_cache_and_changed_content_is_not() {
    let cache = OutlineCache::default();
    let source = functions(3, "f");
    let first = cache.outline("a.ts", Language::TypeScript, &source);
    let second = cache.outline("a.ts", Language::TypeScript, &source);
    assert!(Arc::ptr_eq(&first, &second));

    let edited = functions(4, "f");
    let third = cache.outline("a.ts", Language::TypeScript, &edited);
    assert!(!Arc::ptr_eq(&second, &third));
    assert_eq!(third.definitions.len(), 4);
    assert_eq!(cache.len(), 1, "one entry per path");

    // Same length, different bytes: still a miss.
    let same_length = functions(4, "g");
    assert_eq!(same_length.len(), edited.len());
    let fourth = cache.outline("a.ts", Language::TypeScript, &same_length);
    assert_eq!(fourth.definitions[0].name, "g0");
}

#[test]
fn invalidate_forces_a_fresh_outline() {
    let cache = OutlineCache::default();
    let source = functions(2, "f");
    let first = cache.outline("a.ts", Language::TypeScript, &source);
    cache.invalidate("a.ts");
    assert!(cache.is_empty());
    let second = cache.outline("a.ts", Language::TypeScript, &source);
    assert!(!Arc::ptr_eq(&first, &second));
    assert_eq!(first, second);
    cache.clear();
    assert!(cache.is_empty());
}

#[test]
fn parallel_outlines_equal_sequential_ones_in_input_order() {
    let sources: Vec<(Language, String)> = (0..37)
        .map(|i| {
            if i % 2 == 0 {
                (
                    Language::TypeScript,
                    functions(i % 5 + 1, &format!("t{i}_")),
                )
            } else {
                (
                    Language::Rust,
                    format!("fn r{i}() {{\n    let a = 1;\n    let b = 2;\n}}\n"),
                )
            }
        })
        .collect();
    let jobs: Vec<OutlineJob<'_>> = sources
        .iter()
        .map(|(language, source)| OutlineJob {
            language: *language,
            source,
        })
        .collect();
    let options = OutlineOptions::default();
    let parallel = outline_many(&jobs, &options, 4);
    let sequential: Vec<_> = jobs
        .iter()
        .map(|job| outline(job.language, job.source, &options))
        .collect();
    assert_eq!(parallel, sequential);
    assert_eq!(parallel[3].definitions[0].name, "r3");
}
