//! An incremental refresh gives the same index as a rebuild from scratch:
//! after each kind of edit (add, remove and rename a definition, change a
//! base, change an import and a re-export, add and delete a file, a new
//! `__init__.py`), the export of the refreshed index equals the export of a
//! fresh index of the same files. Also: the export round-trips through serde
//! and matches the counts of the index.

use std::fs;
use std::path::Path;

use index::export::{Export, write_json};
use index::{Index, RefreshStats, SourceEntry};
use outline_core::xref::Facts;
use outline_core::{FileOutline, Language, Outline, OutlineOptions};

fn parse(path: &str, language: Language, bytes: Vec<u8>) -> Result<(FileOutline, Facts), String> {
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    Ok(lang_python::PythonOutline.outline_with_facts(
        path,
        language,
        &text,
        &OutlineOptions::default(),
    ))
}

/// Every `.py` file under `root`, sorted, with paths relative to it.
fn entries(root: &Path) -> Vec<SourceEntry> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "py") {
                let display = path
                    .strip_prefix(root)
                    .expect("below root")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(SourceEntry {
                    path,
                    display,
                    language: Language::Python,
                });
            }
        }
    }
    out.sort_by(|a, b| a.display.cmp(&b.display));
    out
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("directory");
    }
    fs::write(path, text).expect("written");
}

fn export(index: &Index) -> Export {
    let mut bytes = Vec::new();
    let counts = write_json(index.connection(), &mut bytes).expect("export");
    let export: Export = serde_json::from_slice(&bytes).expect("the export reads back");
    assert_eq!(export.files.len(), counts.files);
    assert_eq!(export.references.len(), counts.references);
    export
}

/// Refreshes `index` and checks it against a fresh index of the same files;
/// returns the refresh's stats.
fn refresh_and_compare(
    index: &mut Index,
    root: &Path,
    fresh_db: &Path,
    step: &str,
) -> RefreshStats {
    let stats = index.refresh(&entries(root), &parse).expect("refresh");
    let _ = fs::remove_file(fresh_db);
    let mut fresh = Index::open(fresh_db).expect("open fresh");
    let full = fresh.refresh(&entries(root), &parse).expect("full build");
    let (got, want) = (export(index), export(&fresh));
    assert_eq!(got.files, want.files, "{step}: files");
    assert_eq!(got.symbols, want.symbols, "{step}: symbols");
    for (g, w) in got.references.iter().zip(&want.references) {
        assert_eq!(g, w, "{step}: first differing reference");
    }
    assert_eq!(
        got.references.len(),
        want.references.len(),
        "{step}: references"
    );
    assert_eq!(got.relations, want.relations, "{step}: relations");
    assert_eq!(
        (stats.references, stats.resolved, stats.relations),
        (full.references, full.resolved, full.relations),
        "{step}: counts"
    );
    stats
}

fn project(root: &Path) {
    write(root, "pkg/__init__.py", "from .models import Base\n");
    write(
        root,
        "pkg/models.py",
        "class Base:\n    def save(self):\n        pass\n\n\
         class Other:\n    def save(self):\n        pass\n    def close(self):\n        pass\n\n\
         def helper():\n    return 1\n",
    );
    write(
        root,
        "pkg/users.py",
        "from pkg.models import Base\n\nclass User(Base):\n    def run(self):\n        \
         self.save()\n        self.close()\n",
    );
    write(
        root,
        "pkg/admin.py",
        "from .users import User\n\nclass Admin(User):\n    def go(self):\n        \
         self.close()\n        self.save()\n",
    );
    write(
        root,
        "pkg/api.py",
        "from pkg import Base\nfrom pkg.models import helper\nimport pkg.models\n\n\
         def make() -> Base:\n    b: Base = Base()\n    b.save()\n    helper()\n    \
         pkg.models.helper()\n    return b\n",
    );
    write(
        root,
        "pkg/star.py",
        "from pkg.models import *\n\ndef use():\n    Other().close()\n    helper()\n",
    );
    write(
        root,
        "scripts/tool.py",
        "def main():\n    unique_thing()\n    compute()\n\ndef compute():\n    return 2\n",
    );
    write(root, "scripts/more.py", "def unrelated():\n    pass\n");
}

#[test]
fn incremental_refreshes_equal_full_rebuilds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    let fresh_db = dir.path().join("fresh.sqlite");
    project(&root);
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let first = refresh_and_compare(&mut index, &root, &fresh_db, "build");
    assert!(first.references > 20, "{first:?}");
    assert!(first.relations >= 2, "{first:?}");

    // Add a definition that a bare name elsewhere now finds (project-unique).
    write(
        &root,
        "scripts/more.py",
        "def unrelated():\n    pass\n\ndef unique_thing():\n    pass\n",
    );
    let stats = refresh_and_compare(&mut index, &root, &fresh_db, "add a definition");
    assert!(stats.resolved_files < stats.files, "incremental: {stats:?}");

    // Move definitions down (their ids change) and remove one.
    write(
        &root,
        "pkg/models.py",
        "import os\n\nclass Base:\n    def save(self):\n        pass\n\n\
         class Other:\n    def save(self):\n        pass\n\n\
         def helper():\n    return 1\n",
    );
    let stats = refresh_and_compare(&mut index, &root, &fresh_db, "remove a method");
    assert!(stats.resolved_files < stats.files, "incremental: {stats:?}");

    // Rename a definition.
    write(
        &root,
        "scripts/tool.py",
        "def main():\n    unique_thing()\n    compute2()\n\ndef compute2():\n    return 2\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "rename a definition");

    // Change a base: User now derives from Other (Admin inherits through it).
    write(
        &root,
        "pkg/users.py",
        "from pkg.models import Base, Other\n\nclass User(Other):\n    def run(self):\n        \
         self.save()\n        self.close()\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "change a base");

    // Give Other a base in the module: subclasses elsewhere find new members.
    write(
        &root,
        "pkg/models.py",
        "import os\n\nclass Base:\n    def save(self):\n        pass\n    def close(self):\n        \
         pass\n\nclass Other(Base):\n    def save(self):\n        pass\n\n\
         def helper():\n    return 1\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "a base of a base");

    // Change a re-export: pkg.Base is now Other.
    write(
        &root,
        "pkg/__init__.py",
        "from .models import Other as Base\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "change a re-export");

    // Change an import.
    write(
        &root,
        "pkg/api.py",
        "from pkg.models import Other as Base\nfrom pkg.models import helper\nimport pkg.models\n\n\
         def make() -> Base:\n    b: Base = Base()\n    b.save()\n    helper()\n    \
         pkg.models.helper()\n    return b\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "change an import");

    // Add a module that others can import, and an importer.
    write(&root, "pkg/extra.py", "def helper():\n    return 3\n");
    write(
        &root,
        "scripts/more.py",
        "from pkg.extra import helper\n\ndef unrelated():\n    helper()\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "add a file");

    // Delete a file others import.
    fs::remove_file(root.join("pkg/extra.py")).expect("delete");
    refresh_and_compare(&mut index, &root, &fresh_db, "delete a file");

    // A new package: scripts/ becomes one (module names change).
    write(&root, "scripts/__init__.py", "");
    refresh_and_compare(&mut index, &root, &fresh_db, "new __init__.py");

    // Nothing changed: nothing resolved again, the counts are kept.
    let before = export(&index);
    let stats = index.refresh(&entries(&root), &parse).expect("refresh");
    assert_eq!(
        (stats.parsed, stats.resolved_again, stats.re_resolved),
        (0, false, 0)
    );
    assert_eq!(stats.references, before.references.len());
    assert_eq!(stats.relations, before.relations.len());
}

#[test]
fn the_export_reads_back_and_matches_the_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    project(&root);
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let stats = index.refresh(&entries(&root), &parse).expect("refresh");
    let export = export(&index);
    assert_eq!(export.format, index::export::FORMAT);
    assert_eq!(export.version, index::export::EXPORT_VERSION);
    assert_eq!(export.files.len(), stats.files);
    assert_eq!(export.references.len(), stats.references);
    assert_eq!(
        export
            .references
            .iter()
            .filter(|r| r.status == "resolved")
            .count(),
        stats.resolved
    );
    assert_eq!(export.relations.len(), stats.relations);
    let symbols: i64 = index
        .connection()
        .query_row("SELECT count(*) FROM symbols", [], |row| row.get(0))
        .expect("count");
    assert_eq!(
        export.symbols.len(),
        usize::try_from(symbols).expect("count")
    );
    // Ids are the outline's: User.run in pkg/users.py, with its parent.
    let run = export
        .symbols
        .iter()
        .find(|s| s.qualname == "User.run")
        .expect("User.run");
    assert_eq!(run.id, "pkg/users.py:4:User.run");
    assert_eq!(run.parent.as_deref(), Some("pkg/users.py:3:User"));
    // A resolved call names its target and its caller by id.
    let save = export
        .references
        .iter()
        .find(|r| r.path == "pkg/users.py" && r.name == "save")
        .expect("self.save()");
    assert_eq!(save.target.as_deref(), Some("pkg/models.py:2:Base.save"));
    assert_eq!(save.caller.as_deref(), Some("pkg/users.py:4:User.run"));
    assert!(
        export
            .relations
            .iter()
            .any(|r| r.subtype == "pkg/admin.py:3:Admin" && r.supertype == "pkg/users.py:3:User")
    );
}
