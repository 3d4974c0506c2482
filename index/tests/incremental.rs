//! An incremental refresh gives the same index as a rebuild from scratch:
//! after each kind of edit (add, remove and rename a definition, change a
//! base, change an import and a re-export, add and delete a file, a new
//! `__init__.py`; edits that only move lines, in Python, TypeScript and
//! Rust; a definition removed that an alias elsewhere resolved to), the
//! export of the refreshed index equals the export of a fresh index of the
//! same files. Also: the export round-trips through serde
//! and matches the counts of the index.

use std::fs;
use std::path::Path;

use index::export::{Export, write_json};
use index::{Index, RefreshStats, SourceEntry};
use outline_core::xref::Facts;
use outline_core::{FileOutline, Language, Outline, OutlineOptions};

fn parse(path: &str, language: Language, bytes: Vec<u8>) -> Result<(FileOutline, Facts), String> {
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    let options = OutlineOptions::default();
    Ok(match language {
        Language::Python => {
            lang_python::PythonOutline.outline_with_facts(path, language, &text, &options)
        }
        Language::Rust => {
            lang_rust::RustOutline.outline_with_facts(path, language, &text, &options)
        }
        _ => lang_ts::TypeScriptOutline.outline_with_facts(path, language, &text, &options),
    })
}

/// Every `.py`, `.ts` and `.rs` file under `root`, sorted, with paths
/// relative to it.
fn entries(root: &Path) -> Vec<SourceEntry> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if let Some(language) = Language::from_path(&path.to_string_lossy())
                && ["py", "ts", "rs"]
                    .iter()
                    .any(|e| path.extension().is_some_and(|x| x == *e))
            {
                let display = path
                    .strip_prefix(root)
                    .expect("below root")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(SourceEntry {
                    path,
                    display,
                    language,
                    text: None,
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
    compare(index, &stats, root, fresh_db, step);
    stats
}

/// Refreshes only the files at the display paths `named` (changed, new or
/// deleted) and checks `index` against a fresh index of the same files.
fn refresh_named_and_compare(
    index: &mut Index,
    root: &Path,
    fresh_db: &Path,
    step: &str,
    named: &[&str],
) -> RefreshStats {
    let changed: Vec<SourceEntry> = entries(root)
        .into_iter()
        .filter(|e| named.contains(&e.display.as_str()))
        .collect();
    let gone: Vec<String> = named
        .iter()
        .filter(|n| !root.join(n).exists())
        .map(|n| (*n).to_owned())
        .collect();
    let stats = index
        .refresh_files(&changed, &gone, &parse)
        .expect("refresh")
        .expect("settings of an earlier refresh");
    assert!(stats.named_only, "{step}");
    compare(index, &stats, root, fresh_db, step);
    stats
}

/// The rows `find_symbol` answers from, as text, in path and outline order:
/// each symbol's position, qualname, kind, lines and detail, then each
/// callback's.
fn lookups(index: &Index) -> Vec<String> {
    let conn = index.connection();
    let mut rows = Vec::new();
    for sql in [
        "SELECT f.path || ' ' || s.ord || ' ' || s.qualname || ' ' || s.kind || ' ' || \
         s.start_line || '-' || s.end_line || ' ' || s.detail \
         FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.ord",
        "SELECT f.path || ' ' || c.seq || ' ' || c.ord || ' ' || c.name || ' ' || c.qualname \
         || ' ' || c.start_line || '-' || c.end_line || ' ' || c.detail \
         FROM callbacks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.seq",
    ] {
        let mut statement = conn.prepare(sql).expect("statement");
        let found = statement
            .query_map([], |row| row.get::<_, String>(0))
            .expect("query");
        rows.extend(found.map(|row| row.expect("row")));
    }
    rows
}

/// Checks `index`, after a refresh that gave `stats`, against a fresh
/// index of the files under `root`.
fn compare(index: &Index, stats: &RefreshStats, root: &Path, fresh_db: &Path, step: &str) {
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
    // What `find_symbol` reads and the export leaves out: each symbol's
    // place and detail, and the callbacks.
    assert_eq!(
        lookups(index),
        lookups(&fresh),
        "{step}: symbols' details, callbacks"
    );
    // Hierarchies list subtypes in the same order as a fresh index does
    // (not in the order a refresh wrote them).
    let mut supertypes: Vec<&str> = want
        .relations
        .iter()
        .map(|r| r.supertype.as_str())
        .collect();
    supertypes.sort_unstable();
    supertypes.dedup();
    for id in supertypes.into_iter().take(40) {
        assert_eq!(
            index::query::hierarchy(index.connection(), id).expect("hierarchy"),
            index::query::hierarchy(fresh.connection(), id).expect("hierarchy"),
            "{step}: hierarchy of {id}"
        );
    }
    assert_eq!(
        (stats.references, stats.resolved, stats.relations),
        (full.references, full.resolved, full.relations),
        "{step}: counts"
    );
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
    write(
        root,
        "scripts/alias.py",
        "from pkg.star import helper as h\n\ndef go():\n    h()\n",
    );
}

#[test]
fn incremental_refreshes_equal_full_rebuilds() {
    edits_equal_rebuilds(false);
}

#[test]
fn refreshes_of_named_files_equal_full_rebuilds() {
    edits_equal_rebuilds(true);
}

/// A sequence of edits, each refreshed (every file, or with `named` only
/// the files the edit touched) and compared with a fresh index.
fn edits_equal_rebuilds(named: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    let fresh_db = dir.path().join("fresh.sqlite");
    project(&root);
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let first = refresh_and_compare(&mut index, &root, &fresh_db, "build");
    let step = |index: &mut Index, step: &str, files: &[&str]| {
        let stats = if named {
            refresh_named_and_compare(index, &root, &fresh_db, step, files)
        } else {
            refresh_and_compare(index, &root, &fresh_db, step)
        };
        // Every edit below but the new package (its modules change: the
        // full mode) is resolved reading only the files the rule names.
        if step != "new __init__.py" {
            assert!(stats.files_read < stats.files, "{step}: {stats:?}");
        }
        stats
    };
    assert!(first.references > 20, "{first:?}");
    assert!(first.relations >= 2, "{first:?}");

    // Add a definition that a bare name elsewhere now finds (project-unique).
    write(
        &root,
        "scripts/more.py",
        "def unrelated():\n    pass\n\ndef unique_thing():\n    pass\n",
    );
    let stats = step(&mut index, "add a definition", &["scripts/more.py"]);
    assert!(stats.resolved_files < stats.files, "incremental: {stats:?}");

    // Move definitions down (their ids change) and remove one.
    write(
        &root,
        "pkg/models.py",
        "import os\n\nclass Base:\n    def save(self):\n        pass\n\n\
         class Other:\n    def save(self):\n        pass\n\n\
         def helper():\n    return 1\n",
    );
    let stats = step(&mut index, "remove a method", &["pkg/models.py"]);
    assert!(stats.resolved_files < stats.files, "incremental: {stats:?}");

    // Rename a definition.
    write(
        &root,
        "scripts/tool.py",
        "def main():\n    unique_thing()\n    compute2()\n\ndef compute2():\n    return 2\n",
    );
    step(&mut index, "rename a definition", &["scripts/tool.py"]);

    // Change a base: User now derives from Other (Admin inherits through it).
    write(
        &root,
        "pkg/users.py",
        "from pkg.models import Base, Other\n\nclass User(Other):\n    def run(self):\n        \
         self.save()\n        self.close()\n",
    );
    step(&mut index, "change a base", &["pkg/users.py"]);

    // Give Other a base in the module: subclasses elsewhere find new members.
    write(
        &root,
        "pkg/models.py",
        "import os\n\nclass Base:\n    def save(self):\n        pass\n    def close(self):\n        \
         pass\n\nclass Other(Base):\n    def save(self):\n        pass\n\n\
         def helper():\n    return 1\n",
    );
    step(&mut index, "a base of a base", &["pkg/models.py"]);

    // Change a re-export: pkg.Base is now Other.
    write(
        &root,
        "pkg/__init__.py",
        "from .models import Other as Base\n",
    );
    step(&mut index, "change a re-export", &["pkg/__init__.py"]);

    // Change an import.
    write(
        &root,
        "pkg/api.py",
        "from pkg.models import Other as Base\nfrom pkg.models import helper\nimport pkg.models\n\n\
         def make() -> Base:\n    b: Base = Base()\n    b.save()\n    helper()\n    \
         pkg.models.helper()\n    return b\n",
    );
    step(&mut index, "change an import", &["pkg/api.py"]);

    // Add a module that others can import, and an importer.
    write(&root, "pkg/extra.py", "def helper():\n    return 3\n");
    write(
        &root,
        "scripts/more.py",
        "from pkg.extra import helper\n\ndef unrelated():\n    helper()\n",
    );
    step(
        &mut index,
        "add a file",
        &["pkg/extra.py", "scripts/more.py"],
    );

    // Delete a file others import.
    fs::remove_file(root.join("pkg/extra.py")).expect("delete");
    step(&mut index, "delete a file", &["pkg/extra.py"]);

    // Remove a function imported under another name (`h()` names it).
    write(
        &root,
        "pkg/models.py",
        "import os\n\nclass Base:\n    def save(self):\n        pass\n    def close(self):\n        \
         pass\n\nclass Other(Base):\n    def save(self):\n        pass\n",
    );
    step(&mut index, "remove an aliased function", &["pkg/models.py"]);
    // And add it back: `h()` resolves again (through the star import).
    write(
        &root,
        "pkg/models.py",
        "import os\n\nclass Base:\n    def save(self):\n        pass\n    def close(self):\n        \
         pass\n\nclass Other(Base):\n    def save(self):\n        pass\n\n\
         def helper():\n    return 1\n",
    );
    step(
        &mut index,
        "add an aliased function back",
        &["pkg/models.py"],
    );

    // A subclass in a file whose path sorts first: listed first.
    write(
        &root,
        "pkg/aaa.py",
        "from pkg.models import Base\n\nclass Early(Base):\n    pass\n",
    );
    step(&mut index, "an early subclass", &["pkg/aaa.py"]);

    // A new package: scripts/ becomes one (module names change).
    write(&root, "scripts/__init__.py", "");
    step(&mut index, "new __init__.py", &["scripts/__init__.py"]);

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

/// Inserts `text` before line `line` (1-based) of `path` under `root`.
fn insert_at(root: &Path, path: &str, line: usize, text: &str) {
    let old = fs::read_to_string(root.join(path)).expect("readable");
    let mut lines: Vec<&str> = old.lines().collect();
    lines.insert(line - 1, text);
    write(root, path, &(lines.join("\n") + "\n"));
}

#[test]
fn edits_that_only_move_lines_resolve_one_file_and_equal_full_rebuilds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    let fresh_db = dir.path().join("fresh.sqlite");
    project(&root);
    write(
        &root,
        "pkg/alias.py",
        "from pkg.models import helper as assist\n",
    );
    write(
        &root,
        "scripts/user2.py",
        "from pkg.alias import assist\n\ndef go():\n    assist()\n",
    );
    write(
        &root,
        "web/a.ts",
        "export function f() {\n  return 1;\n}\n\nexport class K {\n  m() {}\n}\n",
    );
    write(
        &root,
        "web/b.ts",
        "import { f, K } from './a';\n\nexport function use() {\n  f();\n  new K().m();\n}\n",
    );
    write(&root, "rs/Cargo.toml", "[package]\nname = \"demo\"\n");
    write(
        &root,
        "rs/src/lib.rs",
        "pub mod m;\nuse other::prelude::*;\nuse another::Thing;\n\npub fn top() {\n    m::helper();\n    let s = m::S;\n    s.go();\n}\n",
    );
    write(
        &root,
        "rs/src/m.rs",
        "pub fn helper() {}\n\npub struct S;\n\nimpl S {\n    pub fn go(&self) {}\n}\n",
    );
    // (`use other::prelude::*` of an extern crate led the lookup back into
    // its own module without end: a stack overflow.)
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let first = refresh_and_compare(&mut index, &root, &fresh_db, "build");
    let files = first.files;
    assert!(files >= 13, "{first:?}");

    // A comment above everything: every definition of the file moves down,
    // nothing another file reads changes.
    for (path, comment) in [
        ("pkg/models.py", "# moved"),
        ("web/a.ts", "// moved"),
        ("rs/src/m.rs", "// moved"),
    ] {
        insert_at(&root, path, 1, comment);
        let stats = refresh_and_compare(&mut index, &root, &fresh_db, path);
        assert_eq!(
            (stats.parsed, stats.resolved_files),
            (1, 1),
            "{path}: only the file itself is resolved again: {stats:?}"
        );
        // Python and TypeScript read only the files their lookups reach; a
        // Rust file loads every file (an impl block can be anywhere).
        let on_demand = !path.ends_with(".rs");
        assert_eq!(
            stats.files_read < files,
            on_demand,
            "{path}: files read {} of {files}",
            stats.files_read
        );
    }
    // A line inside a method body.
    insert_at(&root, "pkg/users.py", 5, "        pass");
    let stats = refresh_and_compare(&mut index, &root, &fresh_db, "body line");
    assert_eq!(stats.resolved_files, 1, "{stats:?}");
    assert!(stats.files_read < files, "{stats:?}");

    // The same names and imports in another order: the base `B` is bound by
    // the other import now. Quiet by its facts, but its relation changed:
    // the refresh on demand gives up and every file is loaded.
    write(&root, "bases/one.py", "class B:\n    pass\n");
    write(&root, "bases/two.py", "class B:\n    pass\n");
    write(
        &root,
        "bases/child.py",
        "from bases.one import B\n\nclass C(B):\n    pass\n\nfrom bases.two import B\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "bases");
    write(
        &root,
        "bases/child.py",
        "from bases.one import B\n\nfrom bases.two import B\n\nclass C(B):\n    pass\n",
    );
    let stats = refresh_and_compare(
        &mut index,
        &root,
        &fresh_db,
        "base bound by the other import",
    );
    assert_eq!(stats.files_read, stats.files, "{stats:?}");

    // Two functions swap places (same definitions, another order).
    write(
        &root,
        "scripts/tool.py",
        "def compute():\n    return 2\n\ndef main():\n    unique_thing()\n    compute()\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "swap two functions");

    // A definition goes away that `assist` (an alias of it, imported through
    // another module) resolved to.
    write(
        &root,
        "pkg/models.py",
        "class Base:\n    def save(self):\n        pass\n",
    );
    refresh_and_compare(&mut index, &root, &fresh_db, "aliased definition removed");

    // A new definition in TypeScript and in Rust (not quiet).
    insert_at(&root, "web/a.ts", 1, "export function g() {}");
    refresh_and_compare(&mut index, &root, &fresh_db, "new TypeScript function");
    insert_at(&root, "rs/src/m.rs", 1, "pub fn other() {}");
    refresh_and_compare(&mut index, &root, &fresh_db, "new Rust function");
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

/// The Python standard library directory of the `python3` on `PATH`.
fn stdlib_dir() -> std::path::PathBuf {
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('stdlib'))",
        ])
        .output()
        .expect("this test needs python3 on PATH to find the standard library");
    assert!(output.status.success(), "python3 failed");
    std::path::PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// Every row of the tables `symbols`, `refs` and `relations`, as text, in
/// key order (keys stay when only lines move).
fn rows(index: &Index) -> [Vec<String>; 3] {
    let table = |sql: &str| -> Vec<String> {
        let mut statement = index.connection().prepare(sql).expect("query");
        let columns = statement.column_count();
        statement
            .query_map([], |row| {
                (0..columns)
                    .map(|i| {
                        Ok(match row.get_ref(i)? {
                            rusqlite::types::ValueRef::Text(text) => {
                                String::from_utf8_lossy(text).into_owned()
                            }
                            other => format!("{other:?}"),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(|v| v.join("|"))
            })
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read")
    };
    [
        table("SELECT * FROM symbols ORDER BY key"),
        table("SELECT * FROM refs ORDER BY file_id, seq"),
        table("SELECT * FROM relations ORDER BY subtype, supertype, kind"),
    ]
}

/// Copies the files of `from` (recursively) to `to`.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("directory");
    for entry in fs::read_dir(from).expect("readable directory") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "__pycache__") {
                copy_tree(&path, &target);
            }
        } else if path.extension().is_some_and(|e| e == "py") {
            fs::copy(&path, &target).expect("copied");
        }
    }
}

/// Quiet edits of real code, resolved against files read on demand, give
/// exactly the rows of the full resolution: a comment appended to each
/// file of four standard library packages (relative imports, packages,
/// class hierarchies across modules, star imports) leaves every symbol,
/// reference and relation of the index as it was, and reads only some of
/// the files.
#[test]
fn quiet_edits_of_the_standard_library_change_nothing_and_read_few_files() {
    let stdlib = stdlib_dir();
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("lib");
    for package in ["json", "email", "logging", "concurrent"] {
        copy_tree(&stdlib.join(package), &root.join(package));
    }
    let entries = entries(&root);
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let first = index.refresh(&entries, &parse).expect("build");
    assert!(first.files > 40 && first.resolved > 1000, "{first:?}");
    let before = rows(&index);
    let mut read = Vec::new();
    for entry in &entries {
        let text = fs::read_to_string(&entry.path).expect("readable");
        fs::write(&entry.path, text + "\n# a quiet edit\n").expect("written");
        let stats = index.refresh(&entries, &parse).expect("refresh");
        assert_eq!(
            (stats.parsed, stats.resolved_files),
            (1, 1),
            "{}: {stats:?}",
            entry.display
        );
        assert!(
            stats.files_read < first.files,
            "{}: read every file: {stats:?}",
            entry.display
        );
        read.push(stats.files_read);
        let after = rows(&index);
        for (table, (a, b)) in ["symbols", "refs", "relations"]
            .iter()
            .zip(after.iter().zip(&before))
        {
            if let Some((x, y)) = a.iter().zip(b).find(|(x, y)| x != y) {
                panic!(
                    "{}: first differing row of {table}:\n{x}\n{y}",
                    entry.display
                );
            }
            assert_eq!(a.len(), b.len(), "{}: rows of {table}", entry.display);
        }
        assert_eq!(
            (stats.references, stats.resolved, stats.relations),
            (first.references, first.resolved, first.relations),
            "{}: counts",
            entry.display
        );
    }
    read.sort_unstable();
    let median = read.get(read.len() / 2).copied().unwrap_or_default();
    assert!(
        median * 4 < first.files,
        "a quiet edit reads a median {median} of {} files",
        first.files
    );
}

#[test]
fn rust_path_attributes_give_modules_and_follow_edits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root_dir = dir.path().join("src");
    let root = root_dir.as_path();
    write(root, "Cargo.toml", "[package]\nname = \"demo\"\n");
    write(
        root,
        "src/lib.rs",
        "#[path = \"platform/unix.rs\"]\nmod sys;\npub mod api;\n",
    );
    write(
        root,
        "src/platform/unix.rs",
        "pub fn open() {}\nmod util;\n",
    );
    write(root, "src/platform/util.rs", "pub fn fd() {}\n");
    write(root, "src/platform/windows.rs", "pub fn open() {}\n");
    write(
        root,
        "src/api.rs",
        "pub fn run() {\n    crate::sys::open();\n    crate::sys::util::fd();\n}\n",
    );
    let fresh_db = dir.path().join("fresh.sqlite");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    refresh_and_compare(&mut index, root, &fresh_db, "build");
    let module = |index: &Index, path: &str| -> Option<String> {
        index
            .connection()
            .query_row("SELECT module FROM files WHERE path = ?1", [path], |row| {
                row.get(0)
            })
            .expect("file row")
    };
    assert_eq!(
        module(&index, "src/platform/unix.rs").as_deref(),
        Some("demo.sys")
    );
    // A `#[path]` file is mod-rs: its `mod util;` is beside it.
    assert_eq!(
        module(&index, "src/platform/util.rs").as_deref(),
        Some("demo.sys.util")
    );
    assert_eq!(
        module(&index, "src/platform/windows.rs").as_deref(),
        Some("demo.platform.windows")
    );
    let target = |index: &Index, at: &str| {
        index::query::find_target(index.connection(), at)
            .expect("target")
            .id
    };
    assert_eq!(
        target(&index, "src/api.rs:2:17"),
        "src/platform/unix.rs:1:open"
    );
    assert_eq!(
        target(&index, "src/api.rs:3:23"),
        "src/platform/util.rs:1:fd"
    );
    // The attribute now names the other file: the modules and the
    // references follow.
    write(
        root,
        "src/lib.rs",
        "#[path = \"platform/windows.rs\"]\nmod sys;\npub mod api;\n",
    );
    refresh_and_compare(&mut index, root, &fresh_db, "another #[path]");
    assert_eq!(
        module(&index, "src/platform/windows.rs").as_deref(),
        Some("demo.sys")
    );
    assert_eq!(
        module(&index, "src/platform/unix.rs").as_deref(),
        Some("demo.platform.unix")
    );
    assert_eq!(
        target(&index, "src/api.rs:2:17"),
        "src/platform/windows.rs:1:open"
    );
}

#[test]
fn a_refresh_of_named_files_needs_the_settings_of_a_whole_refresh() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    write(&root, "a.py", "def f():\n    pass\n");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let declined = index
        .refresh_files(&entries(&root), &[], &parse)
        .expect("refresh");
    assert_eq!(declined, None, "a new index has no stored settings");
    assert!(!index.holds_file("a.py").expect("query"), "nothing written");
    index.refresh(&entries(&root), &parse).expect("refresh");
    assert!(index.holds_file("a.py").expect("query"));
    // A path that is not stored is ignored; the stored file is kept.
    let stats = index
        .refresh_files(&[], &["b.py".to_owned()], &parse)
        .expect("refresh")
        .expect("settings stored");
    assert_eq!((stats.removed, stats.files), (0, 1));
}

/// Edits other files can see (a function and a class added to a module,
/// then another function instead, then an import instead, then none),
/// refreshed with files read on demand, give the rows of a
/// rebuild from scratch: the same four standard library packages, six of
/// their modules edited in turn, each step refreshed by name only.
#[test]
fn visible_edits_of_the_standard_library_equal_rebuilds_and_read_few_files() {
    let stdlib = stdlib_dir();
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("lib");
    for package in ["json", "email", "logging", "concurrent"] {
        copy_tree(&stdlib.join(package), &root.join(package));
    }
    let fresh_db = dir.path().join("fresh.sqlite");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let first = refresh_and_compare(&mut index, &root, &fresh_db, "build");
    let edited = [
        "json/decoder.py",
        "json/__init__.py",
        "email/message.py",
        "email/_policybase.py",
        "logging/__init__.py",
        "concurrent/futures/_base.py",
    ];
    for path in edited {
        let original = fs::read_to_string(root.join(path)).expect("readable");
        // A name that other modules use (a project-unique bare name, and
        // one class member), then another name, then neither.
        let versions = [
            format!(
                "{original}\n\ndef loads(s):\n    return s\n\nclass Added:\n    def encode(self):\n        pass\n"
            ),
            format!("{original}\n\ndef renamed_for_test(s):\n    return s\n"),
            format!("import os as renamed_for_test\n{original}"),
            original.clone(),
        ];
        for (step, text) in versions.iter().enumerate() {
            fs::write(root.join(path), text).expect("written");
            let label = format!("{path}, step {step}");
            let stats = refresh_named_and_compare(&mut index, &root, &fresh_db, &label, &[path]);
            assert!(
                stats.files_read < first.files,
                "{label}: read every file: {stats:?}"
            );
        }
    }
}

/// Copies the Rust sources and the `Cargo.toml` of the workspace crate
/// `name` to `to/name`.
fn copy_crate(name: &str, to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name);
    fs::create_dir_all(to.join(name)).expect("directory");
    fs::copy(from.join("Cargo.toml"), to.join(name).join("Cargo.toml")).expect("copied");
    let mut stack = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = stack.pop() {
        fs::create_dir_all(to.join(name).join(&dir)).expect("directory");
        for entry in fs::read_dir(from.join(&dir)).expect("readable directory") {
            let path = entry.expect("entry").path();
            let relative = dir.join(path.file_name().expect("a name"));
            if path.is_dir() {
                stack.push(relative);
            } else if path.extension().is_some_and(|e| e == "rs") {
                fs::copy(&path, to.join(name).join(&relative)).expect("copied");
            }
        }
    }
}

/// Rust edits that only add, remove or rename definitions keep the
/// incremental rule (references named by them, not every file), and equal
/// a rebuild: three crates of this repository, three of their modules
/// given a method `get` in an existing impl block, a function and a struct
/// named like items of other modules, then another function, then
/// an impl block (a change other files see otherwise: everything is
/// resolved again), then their original text.
#[test]
fn rust_definitions_added_to_this_repository_equal_rebuilds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("repo");
    for name in ["outline-core", "xref", "index"] {
        copy_crate(name, &root);
    }
    let fresh_db = dir.path().join("fresh.sqlite");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    let first = refresh_and_compare(&mut index, &root, &fresh_db, "build");
    assert!(first.files > 30 && first.resolved > 3000, "{first:?}");
    for path in [
        "xref/src/modules.rs",
        "outline-core/src/model.rs",
        "outline-core/src/id.rs",
    ] {
        let original = fs::read_to_string(root.join(path)).expect("readable");
        // A method `get` in the file's first impl block, if any.
        let mut with_method = String::new();
        let mut added = false;
        for line in original.lines() {
            with_method.push_str(line);
            with_method.push('\n');
            if !added && line.starts_with("impl") && line.ends_with('{') {
                with_method.push_str("    pub fn get(&self) -> usize {\n        0\n    }\n");
                added = true;
            }
        }
        let versions = [
            format!(
                "{with_method}\npub fn resolve_with() {{}}\n\npub struct Keys;\n\nfn symbol_id() {{}}\n"
            ),
            format!("{original}\npub fn renamed_for_test() {{}}\n"),
            format!(
                "{original}\npub struct Unit;\n\nimpl Unit {{\n    pub fn decode(&self) {{}}\n}}\n"
            ),
            original.clone(),
        ];
        for (step, text) in versions.iter().enumerate() {
            fs::write(root.join(path), text).expect("written");
            let label = format!("{path}, step {step}");
            let stats = refresh_named_and_compare(&mut index, &root, &fresh_db, &label, &[path]);
            if step < 2 {
                assert!(
                    stats.resolved_files < stats.files,
                    "{label}: resolved every file: {stats:?}"
                );
            }
        }
    }
}

/// A file named twice (and also as gone) is read once, and the refresh
/// equals a rebuild.
#[test]
fn a_file_named_twice_is_read_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    let fresh_db = dir.path().join("fresh.sqlite");
    project(&root);
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    refresh_and_compare(&mut index, &root, &fresh_db, "build");
    let models = fs::read_to_string(root.join("pkg/models.py")).expect("readable");
    write(
        &root,
        "pkg/models.py",
        &format!("{models}\ndef unique_thing():\n    pass\n"),
    );
    let entry = entries(&root)
        .into_iter()
        .find(|e| e.display == "pkg/models.py")
        .expect("entry");
    let stats = index
        .refresh_files(
            &[entry.clone(), entry],
            &["pkg/models.py".to_owned()],
            &parse,
        )
        .expect("refresh")
        .expect("settings stored");
    assert_eq!((stats.parsed, stats.removed), (1, 0), "{stats:?}");
    compare(&index, &stats, &root, &fresh_db, "named twice");
}

/// A change to a settings file alone (`tsconfig.json` paths) resolves
/// everything again, as a rebuild would.
#[test]
fn a_settings_change_alone_resolves_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    let fresh_db = dir.path().join("fresh.sqlite");
    let tsconfig = |to: &str| {
        format!(
            "{{\"compilerOptions\": {{\"baseUrl\": \".\", \"paths\": {{\"@lib/*\": [\"{to}/*\"]}}}}}}\n"
        )
    };
    write(&root, "tsconfig.json", &tsconfig("a"));
    write(&root, "a/m.ts", "export function f() {}\n");
    write(&root, "b/m.ts", "export function f() {}\n");
    write(&root, "use.ts", "import { f } from '@lib/m';\nf();\n");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    refresh_and_compare(&mut index, &root, &fresh_db, "build");
    let target = |index: &Index, path: &str| {
        index::query::refs(index.connection(), &format!("{path}:1:f"), false)
            .expect("refs")
            .len()
    };
    assert_eq!((target(&index, "a/m.ts"), target(&index, "b/m.ts")), (2, 0));
    write(&root, "tsconfig.json", &tsconfig("b"));
    let stats = refresh_and_compare(&mut index, &root, &fresh_db, "paths changed");
    assert!(stats.resolved_again, "{stats:?}");
    assert_eq!((target(&index, "a/m.ts"), target(&index, "b/m.ts")), (0, 2));
}

/// A named file is read even when its size and mtime are the stored ones
/// (an edit of the same length within the file system's time resolution).
#[test]
fn a_named_file_is_read_even_with_the_same_size_and_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("src");
    let fresh_db = dir.path().join("fresh.sqlite");
    write(&root, "a.py", "def aaaa():\n    pass\n");
    write(&root, "b.py", "from a import *\nbbbb()\n");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    refresh_and_compare(&mut index, &root, &fresh_db, "build");
    let path = root.join("a.py");
    let time = fs::metadata(&path)
        .expect("a.py")
        .modified()
        .expect("mtime");
    write(&root, "a.py", "def bbbb():\n    pass\n");
    fs::File::options()
        .write(true)
        .open(&path)
        .expect("a.py")
        .set_modified(time)
        .expect("mtime set back");
    let stats = refresh_named_and_compare(&mut index, &root, &fresh_db, "same size", &["a.py"]);
    assert_eq!(stats.parsed, 1, "{stats:?}");
}

/// Rust items a project `macro_rules!` makes are dynamic references whose
/// target is the macro, across files, and follow edits of the invocation
/// and of the macro (a whole refresh and a refresh of the named file alike
/// equal a rebuild).
#[test]
fn rust_items_made_by_macros_are_dynamic_and_follow_edits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root_dir = dir.path().join("src");
    let root = root_dir.as_path();
    write(root, "Cargo.toml", "[package]\nname = \"demo\"\n");
    let macro_def = "macro_rules! make_getter {\n    ($name:ident) => {\n        pub fn $name() -> u32 { 1 }\n    };\n}\n\npub mod shapes;\npub mod user;\n";
    write(root, "src/lib.rs", macro_def);
    write(root, "src/shapes.rs", "make_getter!(area);\n");
    write(
        root,
        "src/user.rs",
        "use crate::shapes::area;\n\npub fn measure() -> u32 {\n    area()\n}\n",
    );
    let fresh_db = dir.path().join("fresh.sqlite");
    let mut index = Index::open(&dir.path().join("index.sqlite")).expect("open");
    // (status, target, via) of the reference to `name` at `path:line`.
    let row = |index: &Index, path: &str, line: u32, name: &str| {
        let export = export(index);
        let found = export
            .references
            .iter()
            .find(|r| r.path == path && r.line == line && r.name == name)
            .map(|r| (r.status.clone(), r.target.clone(), r.via.clone()));
        found.unwrap_or_else(|| panic!("no reference to {name} at {path}:{line}"))
    };
    let dynamic = (
        "dynamic".to_owned(),
        Some("src/lib.rs:1:make_getter".to_owned()),
        "macro".to_owned(),
    );
    refresh_and_compare(&mut index, root, &fresh_db, "build");
    assert_eq!(row(&index, "src/user.rs", 4, "area"), dynamic);
    assert_eq!(row(&index, "src/user.rs", 1, "area"), dynamic);

    // The invocation makes another name: `area` is made no more.
    write(root, "src/shapes.rs", "make_getter!(surface);\n");
    refresh_named_and_compare(
        &mut index,
        root,
        &fresh_db,
        "invocation renamed",
        &["src/shapes.rs"],
    );
    assert_eq!(row(&index, "src/user.rs", 4, "area").0, "external");
    write(root, "src/shapes.rs", "make_getter!(area);\n");
    refresh_and_compare(&mut index, root, &fresh_db, "invocation back");
    assert_eq!(row(&index, "src/user.rs", 4, "area"), dynamic);

    // The macro's body defines no item any more.
    write(
        root,
        "src/lib.rs",
        &macro_def.replace("pub fn $name() -> u32 { 1 }", "let _ = $name;"),
    );
    refresh_named_and_compare(&mut index, root, &fresh_db, "body", &["src/lib.rs"]);
    assert_eq!(row(&index, "src/user.rs", 4, "area").0, "external");

    // The same with the macro in a file of its own, which holds no module:
    // a change of its body alone reaches the names its invocations
    // elsewhere pass.
    let lib = "#[macro_use]
mod macros;
pub mod shapes;
pub mod user;
";
    let body = "macro_rules! make_getter {
    ($name:ident) => {
        pub fn $name() -> u32 { 1 }
    };
}
";
    write(root, "src/lib.rs", lib);
    write(root, "src/macros.rs", body);
    refresh_and_compare(&mut index, root, &fresh_db, "macro moved");
    let moved = (
        "dynamic".to_owned(),
        Some("src/macros.rs:1:make_getter".to_owned()),
        "macro".to_owned(),
    );
    assert_eq!(row(&index, "src/user.rs", 4, "area"), moved);
    write(
        root,
        "src/macros.rs",
        &body.replace("pub fn $name() -> u32 { 1 }", "let _ = $name;"),
    );
    refresh_named_and_compare(
        &mut index,
        root,
        &fresh_db,
        "body alone",
        &["src/macros.rs"],
    );
    assert_eq!(row(&index, "src/user.rs", 4, "area").0, "external");
    write(root, "src/macros.rs", body);
    refresh_named_and_compare(&mut index, root, &fresh_db, "body back", &["src/macros.rs"]);
    assert_eq!(row(&index, "src/user.rs", 4, "area"), moved);
}
