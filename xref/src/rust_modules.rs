//! Rust module paths from the crate layout (the Cargo book, "Package
//! Layout"; the Rust reference, "Modules"): a crate's root is `src/lib.rs`
//! (or `src/main.rs` without a library), `src/bin/NAME.rs` and
//! `src/bin/NAME/main.rs` are binary crates, and so are the files directly
//! in `tests/`, `examples/` and `benches/`; below a root, `a/b.rs` and
//! `a/b/mod.rs` are the module `a::b`. Module paths are written with dots
//! (`my_crate.a.b`), as Python's are, so the resolver treats both alike; a
//! crate's name has its `-` made `_`, as Cargo does.
//!
//! The layout is taken as the module tree: a `mod x;` with a `#[path]`
//! attribute, or a file no `mod` declares, is not told apart.

use std::collections::HashSet;

/// A crate of the project, from its `Cargo.toml` (read at the edge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RustCrate {
    /// The package name (`[package] name`, or `[lib] name`).
    pub name: String,
    /// The project-relative directory of its `Cargo.toml` (`""`: the root).
    pub dir: String,
}

/// The dotted module path of the Rust file `path` (`/`-separated, project
/// relative), given the project's crates and every file path (to tell
/// whether a package has a library); `None` when the file is not in a
/// crate's `src/`, `tests/`, `examples/` or `benches/`.
pub fn rust_module(path: &str, crates: &[RustCrate], all_paths: &HashSet<&str>) -> Option<String> {
    let stem = path.strip_suffix(".rs")?;
    let krate = crates
        .iter()
        .filter(|c| c.dir.is_empty() || path.starts_with(&format!("{}/", c.dir)))
        .max_by_key(|c| c.dir.len())?;
    let prefix = if krate.dir.is_empty() {
        String::new()
    } else {
        format!("{}/", krate.dir)
    };
    let relative = stem.strip_prefix(&prefix)?;
    let name = krate.name.replace('-', "_");
    let mut parts: Vec<&str> = relative.split('/').collect();
    let first = parts.first().copied()?;
    let (root, rest): (String, Vec<&str>) = match first {
        "src" => {
            parts.remove(0);
            if parts.first() == Some(&"bin") && parts.len() >= 2 {
                parts.remove(0);
                let bin = parts.remove(0).replace('-', "_");
                (bin, parts)
            } else if parts == ["main"] {
                let lib = format!("{prefix}src/lib.rs");
                if all_paths.contains(lib.as_str()) {
                    // A binary beside a library: its own crate.
                    (format!("{name}_main"), Vec::new())
                } else {
                    (name, Vec::new())
                }
            } else if parts == ["lib"] {
                (name, Vec::new())
            } else {
                (name, parts)
            }
        }
        "tests" | "examples" | "benches" if parts.len() >= 2 => {
            parts.remove(0);
            let own = parts.remove(0).replace('-', "_");
            (own, parts)
        }
        _ => return None,
    };
    let mut module = vec![root];
    for (i, part) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        if last && (*part == "mod" || *part == "main") {
            break;
        }
        module.push((*part).to_owned());
    }
    Some(module.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_follow_the_crate_layout() {
        let paths: HashSet<&str> = [
            "core/src/lib.rs",
            "core/src/a/mod.rs",
            "core/src/a/b.rs",
            "core/src/main.rs",
            "cli/src/main.rs",
            "cli/src/bin/tool.rs",
            "core/tests/it.rs",
        ]
        .into_iter()
        .collect();
        let crates = [
            RustCrate {
                name: "my-core".into(),
                dir: "core".into(),
            },
            RustCrate {
                name: "cli".into(),
                dir: "cli".into(),
            },
        ];
        let m = |p| rust_module(p, &crates, &paths);
        assert_eq!(m("core/src/lib.rs").as_deref(), Some("my_core"));
        assert_eq!(m("core/src/a/mod.rs").as_deref(), Some("my_core.a"));
        assert_eq!(m("core/src/a/b.rs").as_deref(), Some("my_core.a.b"));
        assert_eq!(m("core/src/main.rs").as_deref(), Some("my_core_main"));
        assert_eq!(m("cli/src/main.rs").as_deref(), Some("cli"));
        assert_eq!(m("cli/src/bin/tool.rs").as_deref(), Some("tool"));
        assert_eq!(m("core/tests/it.rs").as_deref(), Some("it"));
        assert_eq!(m("core/build.rs"), None);
        assert_eq!(m("other/x.rs"), None);
    }
}
