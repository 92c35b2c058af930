//! Proves the o200k_base tables load only on first use (its own process: no other test counts first).

use roo_context_tokens::{count_exact, is_loaded};

#[test]
fn tables_load_on_first_count_not_before() {
    assert!(!is_loaded(), "nothing loads at startup");
    assert_eq!(count_exact(""), 0);
    assert!(!is_loaded(), "an empty text needs no tables");
    assert_eq!(count_exact("Hello world"), 2);
    assert!(is_loaded());
}
