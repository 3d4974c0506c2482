//! Computes the part of the index's build id that is the resolver's and the
//! index's own (`xref`, `index`); the rest is the outline's
//! (`ast_outline::BUILD_ID`). An index built by other code is rebuilt.

include!("../ast-outline/source_hash.rs");

fn main() {
    let id = source_hash(&["xref/src", "index/src"]);
    println!("cargo:rustc-env=AST_OUTLINE_INDEX_SOURCES_ID={id:016x}");
}
