//! Computes the build id the outline cache keys its entries with: a hash of
//! the sources that decide what an outline holds (the model, the language
//! adapters, this crate) and of `Cargo.lock` (the parsers' versions). Two
//! builds from the same sources share their cache entries; a build with a
//! changed extraction never reads another's. A second id adds the
//! resolver and the index (`xref`, `index`): an index built by other code is
//! rebuilt.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let workspace = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut inputs = vec![manifest.join("src"), workspace.join("Cargo.lock")];
    for crate_dir in ["outline-core", "lang-python", "lang-ts", "lang-rust"] {
        inputs.push(workspace.join(crate_dir).join("src"));
    }
    println!(
        "cargo:rustc-env=AST_OUTLINE_BUILD_ID={:016x}",
        hash(&workspace, &inputs)
    );
    // The cross-file index also depends on resolution and storage.
    for crate_dir in ["xref", "index"] {
        inputs.push(workspace.join(crate_dir).join("src"));
    }
    println!(
        "cargo:rustc-env=AST_OUTLINE_INDEX_BUILD_ID={:016x}",
        hash(&workspace, &inputs)
    );
}

/// A hash of the paths (relative to `workspace`) and bytes of every file
/// under `inputs`.
fn hash(workspace: &Path, inputs: &[PathBuf]) -> u64 {
    let mut files = Vec::new();
    for input in inputs {
        if input.exists() {
            println!("cargo:rerun-if-changed={}", input.display());
            collect(input, &mut files);
        }
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        if let Ok(bytes) = std::fs::read(file) {
            hasher.write(
                file.strip_prefix(workspace)
                    .unwrap_or(file)
                    .as_os_str()
                    .as_encoded_bytes(),
            );
            hasher.write(&bytes);
        }
    }
    hasher.finish()
}

/// Every file under `path` (or `path` itself when it is a file).
fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    match std::fs::read_dir(path) {
        Ok(listing) => {
            for entry in listing.flatten() {
                collect(&entry.path(), files);
            }
        }
        Err(_) if path.is_file() => files.push(path.to_path_buf()),
        Err(_) => {}
    }
}
