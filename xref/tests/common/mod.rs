//! What the language test files share: finding a reference's resolution.

// Each test file uses its own subset of these.
#![allow(dead_code)]

use outline_core::xref::Role;
use xref::{FileInput, Resolved, Status, Via};

/// (status, target or candidates joined, role, via) of the reference to
/// `name` at `path:line` (the first on that line).
pub fn at(
    (files, resolved): &(Vec<FileInput>, Resolved),
    path: &str,
    line: u32,
    name: &str,
) -> (Status, String, Role, Via) {
    let found = resolved.references.iter().find(|r| {
        let file = &files[r.file];
        let reference = &file.facts.references[r.reference];
        file.path == path && reference.line == line && reference.name == name
    });
    let Some(r) = found else {
        panic!("no reference to {name} at {path}:{line}");
    };
    let target = r.target.clone().unwrap_or_else(|| r.candidates.join(" "));
    (r.status, target, r.role, r.via)
}

/// The target of the reference to `name` at `path:line`, which must be
/// resolved.
pub fn target(p: &(Vec<FileInput>, Resolved), path: &str, line: u32, name: &str) -> String {
    let (status, target, _, _) = at(p, path, line, name);
    assert_eq!(
        status,
        Status::Resolved,
        "{name} at {path}:{line}: {target}"
    );
    target
}

/// Whether any reported (non-local) reference to `name` sits on `line`.
pub fn reported(p: &(Vec<FileInput>, Resolved), path: &str, line: u32, name: &str) -> bool {
    p.1.references.iter().any(|r| {
        let file = &p.0[r.file];
        let reference = &file.facts.references[r.reference];
        file.path == path && reference.line == line && reference.name == name
    })
}
