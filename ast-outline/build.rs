//! Computes the build id the outline cache keys its entries with: a hash of
//! the sources that decide what an outline holds (the model, the language
//! adapters, this crate) and of `Cargo.lock` (the parsers' versions). Two
//! builds from the same sources share their cache entries; a build with a
//! changed extraction never reads another's. (`index` adds its own sources
//! and `xref`'s to it for the index's build id.)

include!("source_hash.rs");

fn main() {
    let id = source_hash(&[
        "ast-outline/src",
        "Cargo.lock",
        "outline-core/src",
        "lang-python/src",
        "lang-ts/src",
        "lang-rust/src",
    ]);
    println!("cargo:rustc-env=AST_OUTLINE_BUILD_ID={id:016x}");
}
