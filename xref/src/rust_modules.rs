//! Rust module paths from the crate layout (the Cargo book, "Package
//! Layout"; the Rust reference, "Modules"): a crate's root is `src/lib.rs`
//! (or `src/main.rs` without a library), `src/bin/NAME.rs` and
//! `src/bin/NAME/main.rs` are binary crates, and so are the files directly
//! in `tests/`, `examples/` and `benches/`; below a root, `a/b.rs` and
//! `a/b/mod.rs` are the module `a::b`. Module paths are written with dots
//! (`my_crate.a.b`), as Python's are, so the resolver treats both alike; a
//! crate's name has its `-` made `_`, as Cargo does.
//!
//! [`rust_modules`] walks the module tree the `mod x;` declarations make
//! from each crate root, `#[path]` attributes included; a file no
//! declaration reaches keeps its layout module ([`rust_module`]).

use std::collections::{HashMap, HashSet};

use outline_core::xref::ModuleDecl;

use crate::ts_modules::join;

/// A crate of the project, from its `Cargo.toml` (read at the edge).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// The dotted module path of each Rust file of `files` (its `/`-separated
/// project-relative path and the `mod x;` declarations it holds, see
/// [`ModuleDecl`]), in the order given: the module tree walked from each
/// crate root (a file whose layout module, [`rust_module`], is a crate, the
/// libraries' `lib.rs` first, then by path) through the declarations, as
/// rustc finds module files (the Rust reference, "Modules"; rustc's
/// `rustc_expand::module`):
///
/// - a crate root, a `mod.rs` and a file loaded through `#[path]` are
///   "mod-rs" files: `mod x;` in them is `x.rs` or `x/mod.rs` beside
///   them; in any other file `a.rs` it is `a/x.rs` or `a/x/mod.rs`;
/// - `#[path = "p"] mod x;` is the file `p` relative to the directory of
///   the declaring file (inside inline modules, see below);
/// - an inline `mod m { … }` adds the directory `m` (after `a/` in a
///   non-mod-rs file `a.rs`) for the declarations inside it; with
///   `#[path = "p"]` it is the directory `p` relative to the current one
///   instead (rustc ignores the `a/` then).
///
/// A file no root reaches has its declarations walked from its layout
/// module (a `mod` inside a brace-delimited macro invocation, such as
/// `cfg_rt! { mod x; }` or a branch of `cfg_if!`, is a declaration like
/// any other since facts version 7). A file
/// reached twice keeps its first module (two `#[cfg]`-gated
/// declarations of one module give both files its module); a declaration
/// whose file is not among `files`, or whose `#[path]` is absolute or leaves
/// the project, reaches nothing. A file nothing reaches keeps its layout
/// module unless the tree gives that module to another file (then it has
/// none). `#[cfg_attr(…, path = …)]` is not read.
pub fn rust_modules(files: &[(&str, &[ModuleDecl])], crates: &[RustCrate]) -> Vec<Option<String>> {
    let all: HashSet<&str> = files.iter().map(|(p, _)| *p).collect();
    let by_path: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (*p, i))
        .collect();
    let layout: Vec<Option<String>> = files
        .iter()
        .map(|(path, _)| rust_module(path, crates, &all))
        .collect();
    let mut roots: Vec<usize> = layout
        .iter()
        .enumerate()
        .filter(|(i, module)| {
            let path = files.get(*i).map_or("", |(p, _)| *p);
            module.as_ref().is_some_and(|m| !m.contains('.')) && !path.ends_with("mod.rs")
        })
        .map(|(i, _)| i)
        .collect();
    roots.sort_by_key(|&i| {
        let path = files.get(i).map_or("", |(p, _)| *p);
        (!path.ends_with("src/lib.rs"), path)
    });
    let mut tree: Vec<Option<String>> = vec![None; files.len()];
    for &root in &roots {
        if tree.get(root).is_some_and(Option::is_some) {
            continue;
        }
        let Some(module) = layout.get(root).cloned().flatten() else {
            continue;
        };
        let path = files.get(root).map_or("", |(p, _)| *p);
        if let Some(slot) = tree.get_mut(root) {
            *slot = Some(module.clone());
        }
        walk(
            files,
            &by_path,
            &roots,
            &mut tree,
            (root, module, Owner::new(parent(path), None)),
        );
    }
    // A file no root reaches (its `mod` may sit in a macro such as
    // `cfg_if!`) has its own declarations walked from its layout module.
    for (f, (path, decls)) in files.iter().enumerate() {
        if decls.is_empty() || roots.contains(&f) || tree.get(f).is_some_and(Option::is_some) {
            continue;
        }
        let Some(module) = layout.get(f).cloned().flatten() else {
            continue;
        };
        let owner = match path.strip_suffix(".rs").and_then(|s| s.rsplit('/').next()) {
            Some(stem) if stem != "mod" => Owner::new(parent(path), Some(stem.to_owned())),
            _ => Owner::new(parent(path), None),
        };
        walk(files, &by_path, &roots, &mut tree, (f, module, owner));
    }
    // A file the tree does not reach loses a layout module that the tree
    // gives another file (`src/sys.rs` beside `#[path = "imp.rs"] mod sys;`).
    let taken: HashSet<String> = tree.iter().flatten().cloned().collect();
    tree.into_iter()
        .zip(layout)
        .map(|(tree, layout)| tree.or(layout.filter(|m| !taken.contains(m))))
        .collect()
}

/// Gives each file the declarations reach from `start` (a file, its module
/// and owner) its module in `tree`, depth first; roots and files that
/// already have one are left as they are.
fn walk(
    files: &[(&str, &[ModuleDecl])],
    by_path: &HashMap<&str, usize>,
    roots: &[usize],
    tree: &mut [Option<String>],
    start: (usize, String, Owner),
) {
    let mut stack = vec![start];
    while let Some((f, module, owner)) = stack.pop() {
        let Some((_, decls)) = files.get(f) else {
            continue;
        };
        for decl in decls.iter() {
            let Some((file, child_owner, child_module)) =
                declared_file(decl, &owner, &module, by_path)
            else {
                continue;
            };
            if roots.contains(&file) {
                continue;
            }
            if let Some(slot) = tree.get_mut(file)
                && slot.is_none()
            {
                *slot = Some(child_module.clone());
                stack.push((file, child_module, child_owner));
            }
        }
    }
}

/// Where the declarations of a module's file are looked for (rustc's
/// `dir_path` and `DirOwnership::Owned { relative }`).
#[derive(Debug, Clone)]
struct Owner {
    /// The directory (project relative, `""` the root).
    dir: String,
    /// The name of a non-mod-rs file (`a` of `a.rs`): its children are in
    /// `dir/a/`.
    relative: Option<String>,
}

impl Owner {
    fn new(dir: &str, relative: Option<String>) -> Self {
        Owner {
            dir: dir.to_owned(),
            relative,
        }
    }

    /// The directory of children declared without `#[path]`.
    fn children_dir(&self) -> String {
        match &self.relative {
            Some(name) => join_dir(&self.dir, name),
            None => self.dir.clone(),
        }
    }
}

/// The file (index in `by_path`) that `decl` in a file of module `module`
/// owned as `owner` names, with the owner of that file's declarations and
/// its module.
fn declared_file(
    decl: &ModuleDecl,
    owner: &Owner,
    module: &str,
    by_path: &HashMap<&str, usize>,
) -> Option<(usize, Owner, String)> {
    let (last, inline) = decl.steps.split_last()?;
    let mut owner = owner.clone();
    let mut module = module.to_owned();
    for step in inline {
        let dir = match &step.path {
            Some(p) => relative_path(&owner.dir, p)?,
            None => join_dir(&owner.children_dir(), &step.name),
        };
        owner = Owner::new(&dir, None);
        module = format!("{module}.{}", step.name);
    }
    module = format!("{module}.{}", last.name);
    if let Some(p) = &last.path {
        let file = relative_path(&owner.dir, p)?;
        let index = *by_path.get(file.as_str())?;
        return Some((index, Owner::new(parent(&file), None), module));
    }
    let dir = owner.children_dir();
    let flat = join_dir(&dir, &format!("{}.rs", last.name));
    if let Some(&index) = by_path.get(flat.as_str()) {
        return Some((index, Owner::new(&dir, Some(last.name.clone())), module));
    }
    let nested = join_dir(&dir, &format!("{}/mod.rs", last.name));
    let index = *by_path.get(nested.as_str())?;
    Some((index, Owner::new(parent(&nested), None), module))
}

/// `p` (a `#[path]` value, `\\` read as `/`) relative to `dir`; `None`
/// when absolute or leaving the project.
fn relative_path(dir: &str, p: &str) -> Option<String> {
    let p = p.replace('\\', "/");
    if p.starts_with('/') || p.get(1..2) == Some(":") {
        return None;
    }
    join(dir, &p)
}

/// `name` in the directory `dir` (`""` the root).
fn join_dir(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// The directory of the file `path` (`""` at the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
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

    /// A declaration: inline modules (name, `#[path]`) then the declared one.
    fn decl(steps: &[(&str, Option<&str>)]) -> ModuleDecl {
        ModuleDecl {
            steps: steps
                .iter()
                .map(|(name, path)| outline_core::xref::ModuleStep {
                    name: (*name).to_owned(),
                    path: path.map(str::to_owned),
                })
                .collect(),
        }
    }

    #[test]
    fn path_attributes_follow_the_reference_examples() {
        // The Rust reference, "Modules", the path attribute: `#[path =
        // "foo.rs"] mod c;` in `src/a/b.rs` and in `src/a/mod.rs`; `mod
        // inline { #[path = "other.rs"] mod inner; }` in both; and
        // `#[path = "thread_files"] mod thread { #[path = "tls.rs"] mod
        // local_data; }` in the root.
        let lib = [
            decl(&[("a", None)]),
            decl(&[
                ("thread", Some("thread_files")),
                ("local_data", Some("tls.rs")),
            ]),
            decl(&[("d", None)]),
        ];
        let a = [decl(&[("b", None)])];
        let b = [
            decl(&[("c", Some("foo.rs"))]),
            decl(&[("inline", None), ("inner", Some("other.rs"))]),
        ];
        let d = [
            decl(&[("c", Some("foo.rs"))]),
            decl(&[("inline", None), ("inner", Some("other.rs"))]),
            decl(&[("up", Some("../shared/up.rs"))]),
        ];
        let up = [decl(&[("sibling", None)])];
        let files: Vec<(&str, &[ModuleDecl])> = vec![
            ("src/lib.rs", &lib),
            ("src/a/mod.rs", &a),
            ("src/a/b.rs", &b),
            ("src/a/foo.rs", &[]),
            ("src/a/b/inline/other.rs", &[]),
            ("src/thread_files/tls.rs", &[]),
            ("src/d/mod.rs", &d),
            ("src/d/foo.rs", &[]),
            ("src/d/inline/other.rs", &[]),
            ("src/shared/up.rs", &up),
            ("src/shared/sibling.rs", &[]),
            ("src/unreached.rs", &[]),
        ];
        let crates = [RustCrate {
            name: "app".into(),
            dir: String::new(),
        }];
        let modules = rust_modules(&files, &crates);
        let got: Vec<(&str, Option<&str>)> = files
            .iter()
            .zip(&modules)
            .map(|((p, _), m)| (*p, m.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("src/lib.rs", Some("app")),
                ("src/a/mod.rs", Some("app.a")),
                ("src/a/b.rs", Some("app.a.b")),
                ("src/a/foo.rs", Some("app.a.b.c")),
                ("src/a/b/inline/other.rs", Some("app.a.b.inline.inner")),
                ("src/thread_files/tls.rs", Some("app.thread.local_data")),
                ("src/d/mod.rs", Some("app.d")),
                ("src/d/foo.rs", Some("app.d.c")),
                ("src/d/inline/other.rs", Some("app.d.inline.inner")),
                // A `#[path]` file is mod-rs: its `mod sibling;` is beside it.
                ("src/shared/up.rs", Some("app.d.up")),
                ("src/shared/sibling.rs", Some("app.d.up.sibling")),
                // No declaration reaches it: the layout's module.
                ("src/unreached.rs", Some("app.unreached")),
            ]
        );
    }

    #[test]
    fn a_path_out_of_the_project_or_to_a_missing_file_reaches_nothing() {
        let lib = [
            decl(&[("gone", Some("../../outside.rs"))]),
            decl(&[("abs", Some("/etc/x.rs"))]),
            decl(&[("missing", None)]),
            decl(&[("shared", Some("util.rs"))]),
        ];
        let main = [decl(&[("util", None)])];
        let files: Vec<(&str, &[ModuleDecl])> = vec![
            ("src/main.rs", &main),
            ("src/lib.rs", &lib),
            ("src/util.rs", &[]),
        ];
        let crates = [RustCrate {
            name: "app".into(),
            dir: String::new(),
        }];
        // The library is walked first: `src/util.rs` is its `shared`.
        assert_eq!(
            rust_modules(&files, &crates),
            [
                Some("app_main".to_owned()),
                Some("app".to_owned()),
                Some("app.shared".to_owned()),
            ]
        );
    }

    #[test]
    fn a_file_no_root_reaches_has_its_declarations_walked() {
        // `backends.rs` declares `use_file` inside `cfg_if!` (unseen);
        // `use_file.rs` declares `#[path = "../util_libc.rs"] mod util_libc;`.
        let lib = [decl(&[("backends", None)])];
        let use_file = [decl(&[("util_libc", Some("../util_libc.rs"))])];
        let files: Vec<(&str, &[ModuleDecl])> = vec![
            ("src/backends.rs", &[]),
            ("src/backends/use_file.rs", &use_file),
            ("src/lib.rs", &lib),
            ("src/util_libc.rs", &[]),
        ];
        let crates = [RustCrate {
            name: "getrandom".into(),
            dir: String::new(),
        }];
        assert_eq!(
            rust_modules(&files, &crates),
            [
                Some("getrandom.backends".to_owned()),
                Some("getrandom.backends.use_file".to_owned()),
                Some("getrandom".to_owned()),
                Some("getrandom.backends.use_file.util_libc".to_owned()),
            ]
        );
    }
}
