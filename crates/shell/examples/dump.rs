//! Prints the tree-sitter-bash tree of a command line (a debugging aid for the walker).
fn main() {
    let text = std::env::args().nth(1).unwrap_or_default();
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("bash grammar");
    let tree = parser.parse(&text, None).expect("parse");
    println!("{}", tree.root_node().to_sexp());
}
