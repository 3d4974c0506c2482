// Shared by the build scripts of `ast-outline` and `index` (`include!`d):
// a hash of the sources that decide what their outputs hold.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

/// The workspace root: the parent of the building crate's directory.
fn workspace() -> PathBuf {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A hash of the paths (relative to the workspace) and bytes of every file
/// under `inputs` (each relative to the workspace: a crate's `src`, or a
/// file such as `Cargo.lock`); each is also a `rerun-if-changed`.
fn source_hash(inputs: &[&str]) -> u64 {
    let workspace = workspace();
    let mut files = Vec::new();
    for input in inputs {
        let input = workspace.join(input);
        if input.exists() {
            println!("cargo:rerun-if-changed={}", input.display());
            collect(&input, &mut files);
        }
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        if let Ok(bytes) = std::fs::read(file) {
            hasher.write(
                file.strip_prefix(&workspace)
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
