//! `find_symbol` patterns answered from the index ([`index::names`]) against
//! the same patterns matched over the outlines of the files (the walk), as
//! the index changes: a first build (every table read at once), refreshes of
//! named files and of the whole tree (files read again one by one, or all
//! at once past a threshold), and a commit by another connection.

use std::path::Path;

use ast_outline::find::{Found, Pattern, answer_line, findable, render};
use ast_outline::read::summary_detail;
use index::Index;
use index::names::Names;
use outline_core::{OutlineOptions, SymbolKind};

const PATTERNS: &[&str] = &[
    "total", "Total", "get_*", "*.save", "Cart.", "é", "größe", "it(*", "adds", "zzz", "e", "*",
];

const SCOPES: &[&str] = &[".", "pkg", "pkg/m007.py", "web", "nothing"];

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("directory");
    }
    std::fs::write(path, text).expect("write");
}

/// A Python module of the generated tree; `version` changes its names.
fn module(i: usize, version: usize) -> String {
    format!(
        "class Cart{i}:\n    def save(self):\n        pass\n\n    def total_{version}(self):\n        \
         return {i}\n\n\ndef get_{i}_{version}():\n    pass\n"
    )
}

/// 250 generated modules (more than a refresh reads one by one) and a few
/// other files: TypeScript callbacks, names that are not ASCII.
fn fill(root: &Path) {
    for i in 0..250 {
        write(&root.join(format!("pkg/m{i:03}.py")), &module(i, 0));
    }
    write(
        &root.join("web/cart.spec.ts"),
        "describe('cart', () => {\n  it('adds items', () => {\n    function inTest() {}\n  });\n});\n\
         export class Cart {\n  total(): number {\n    return 0;\n  }\n}\n",
    );
    write(
        &root.join("é/größe.py"),
        "def größe():\n    pass\n\n\nclass Été:\n    def total(self):\n        pass\n",
    );
}

/// The answer of a walk: every file under `under` outlined, its findable
/// symbols matched in source order.
fn walk(root: &Path, pattern: &Pattern, under: &str) -> String {
    let (entries, _) = index::open::entries(root);
    let prefix = format!("{under}/");
    let mut found: Found<String> = Found::default();
    for entry in entries
        .iter()
        .filter(|e| under == "." || e.display == under || e.display.starts_with(&prefix))
    {
        let text = std::fs::read_to_string(&entry.path).expect("read");
        let outline =
            ast_outline::outline_source(&entry.display, &text, &OutlineOptions::default())
                .expect("outline");
        found.searched += 1;
        let before = found.total;
        outline.walk(|s| {
            if findable(s) && pattern.matches(&s.name, &s.qualname, s.kind == SymbolKind::Block) {
                found.add(pattern.is_exact(&s.name), || {
                    answer_line(&s.id, s.start_line, s.end_line, &summary_detail(s))
                });
            }
        });
        if found.total > before {
            found.files += 1;
        }
    }
    render(&found, pattern, under, &[])
}

/// The answer from the index through `names`, synced first.
fn from_index(names: &mut Names, index: &Index, pattern: &Pattern, under: &str) -> String {
    names.sync(index).expect("sync");
    let found = names
        .find(index, pattern, under)
        .expect("find")
        .try_map(|shown| Ok::<_, ()>(shown.line))
        .expect("lines");
    render(&found, pattern, under, &[])
}

/// Every pattern in every scope answers the same from `names` (kept across
/// changes), from new names, and by walking.
fn assert_same(root: &Path, index: &Index, names: &mut Names) {
    for text in PATTERNS {
        let pattern = Pattern::new(text).expect("pattern");
        for under in SCOPES {
            let walked = walk(root, &pattern, under);
            assert_eq!(
                from_index(names, index, &pattern, under),
                walked,
                "kept: {text} under {under}"
            );
            assert_eq!(
                from_index(&mut Names::new(), index, &pattern, under),
                walked,
                "new: {text} under {under}"
            );
        }
    }
}

fn refresh(root: &Path, changed: &[std::path::PathBuf]) -> Index {
    let (index, stats, _) =
        index::open::open_and_refresh_waiting(root, None, None, changed, &|_| {}).expect("index");
    assert_eq!(stats.named_only, !changed.is_empty());
    index
}

#[test]
fn names_follow_the_index_through_refreshes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    fill(root);
    let mut names = Names::new();
    let index = refresh(root, &[]);
    assert_same(root, &index, &mut names);
    assert_eq!(names.counts(), (252, 1_008));
    drop(index);

    // Named files: two changed, one gone (a new file makes the refresh
    // look at every file).
    write(&root.join("pkg/m007.py"), &module(7, 1));
    write(&root.join("pkg/m100.py"), "def total_only():\n    pass\n");
    std::fs::remove_file(root.join("pkg/m008.py")).expect("remove");
    let changed: Vec<_> = ["pkg/m007.py", "pkg/m100.py", "pkg/m008.py"]
        .iter()
        .map(|p| root.join(p))
        .collect();
    let index = refresh(root, &changed);
    assert_same(root, &index, &mut names);
    drop(index);

    // The whole tree: most modules changed (read again all at once), one
    // renamed, one new, the callbacks changed.
    write(
        &root.join("pkg/new.py"),
        "class NewCart:\n    def save(self):\n        pass\n",
    );
    for i in 20..250 {
        if i != 100 {
            write(&root.join(format!("pkg/m{i:03}.py")), &module(i, 2));
        }
    }
    std::fs::rename(root.join("pkg/m001.py"), root.join("pkg/z001.py")).expect("rename");
    write(
        &root.join("web/cart.spec.ts"),
        "describe('cart', () => {\n  it('adds more items', () => {});\n  it('removes', () => {});\n});\n",
    );
    let index = refresh(root, &[]);
    assert_same(root, &index, &mut names);
}

/// A refresh committed by another connection (another process) is seen by
/// names read through the first one.
#[test]
fn names_see_another_connections_commit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    fill(root);
    write(&root.join("pkg/blob.py"), "x = 1\n\0");
    drop(refresh(root, &[]));
    // A refresh with nothing changed writes nothing (so names are not
    // read again), a file left out of the index included.
    let index = refresh(root, &[]);
    assert_eq!(index.connection().total_changes(), 0);
    assert_eq!(index.left_out(".").expect("left out").len(), 1);
    drop(index);
    std::fs::remove_file(root.join("pkg/blob.py")).expect("remove");
    let index = refresh(root, &[]);
    assert!(index.left_out(".").expect("left out").is_empty());
    let mut names = Names::new();
    assert_same(root, &index, &mut names);
    write(&root.join("pkg/m003.py"), &module(3, 9));
    drop(refresh(root, &[root.join("pkg/m003.py")]));
    let total = Pattern::new("total_9").expect("pattern");
    let answer = from_index(&mut names, &index, &total, ".");
    assert!(
        answer.starts_with("1 match for `total_9` in 1 file under . (searched 252 files;"),
        "{answer}"
    );
    assert_same(root, &index, &mut names);
}
