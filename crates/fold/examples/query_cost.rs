//! Times the compile of a pattern against the Swift grammar (the slowest query to compile).
//! `cargo run --release -p roo-context-fold --example query_cost`
fn main() {
    let grammar: tree_sitter::Language = tree_sitter_swift::LANGUAGE.into();
    for pattern in [
        "(function_declaration name: (_) @name) @definition.function",
        "((function_declaration) @definition.function (#set! name.field \"name\"))",
    ] {
        let started = std::time::Instant::now();
        tree_sitter::Query::new(&grammar, pattern).expect("compiles");
        println!("{:>10.1?}  {pattern}", started.elapsed());
    }
}
