//! `use` declarations (and `extern crate`) at the top level of the file, as
//! imports: `use a::b::{c, d as e};` is module `a::b` with names `c` and
//! `d as e`; `use a::b as c;` is module `a::b` with alias `c`; `use a::*;` is
//! module `a` with the name `*`. Paths are written with `::`.

use outline_core::{Import, ImportedName};
use syn::{Item, UseTree};

use crate::source::Region;

/// Imports of the top-level `items`, in source order.
pub(crate) fn imports(region: &Region<'_, '_>, items: &[Item]) -> Vec<Import> {
    let mut out = Vec::new();
    for item in items {
        let range = region.node_range(item);
        let (line, end_line) = (region.line(range.start), region.end_line(&range));
        match item {
            Item::Use(u) => {
                let mut prefix = Vec::new();
                if u.leading_colon.is_some() {
                    prefix.push(String::new());
                }
                let mut tree = &u.tree;
                while let UseTree::Path(path) = tree {
                    prefix.push(path.ident.to_string());
                    tree = &path.tree;
                }
                let (module, alias, names) = match tree {
                    UseTree::Name(name) => {
                        prefix.push(name.ident.to_string());
                        (prefix.join("::"), None, Vec::new())
                    }
                    UseTree::Rename(rename) => {
                        prefix.push(rename.ident.to_string());
                        (
                            prefix.join("::"),
                            Some(rename.rename.to_string()),
                            Vec::new(),
                        )
                    }
                    UseTree::Glob(_) => (prefix.join("::"), None, vec![name("*", None)]),
                    UseTree::Group(group) => {
                        let mut names = Vec::new();
                        for tree in &group.items {
                            flatten(tree, "", &mut names);
                        }
                        (prefix.join("::"), None, names)
                    }
                    UseTree::Path(_) => continue,
                };
                out.push(Import {
                    line,
                    end_line,
                    module: (!module.is_empty()).then_some(module),
                    level: 0,
                    alias,
                    names,
                });
            }
            Item::ExternCrate(e) => out.push(Import {
                line,
                end_line,
                module: Some(e.ident.to_string()),
                level: 0,
                alias: e.rename.as_ref().map(|(_, alias)| alias.to_string()),
                names: Vec::new(),
            }),
            _ => {}
        }
    }
    out
}

fn name(text: &str, alias: Option<String>) -> ImportedName {
    ImportedName {
        name: text.to_owned(),
        alias,
    }
}

/// The names of a use tree inside a group, with their paths: `b::{c, d}`
/// gives `b::c`, `b::d`.
fn flatten(tree: &UseTree, prefix: &str, out: &mut Vec<ImportedName>) {
    let join = |last: &str| {
        if prefix.is_empty() {
            last.to_owned()
        } else {
            format!("{prefix}::{last}")
        }
    };
    match tree {
        UseTree::Path(path) => flatten(&path.tree, &join(&path.ident.to_string()), out),
        UseTree::Name(n) => out.push(name(&join(&n.ident.to_string()), None)),
        UseTree::Rename(r) => out.push(name(
            &join(&r.ident.to_string()),
            Some(r.rename.to_string()),
        )),
        UseTree::Glob(_) => out.push(name(&join("*"), None)),
        UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, out);
            }
        }
    }
}
