//! `find_symbol(pattern)` answered from the index against the same call
//! answered by walking the files: the same text, byte for byte, over
//! substrings, globs, scopes, names that are not ASCII, callbacks and more
//! matches than are shown; also after edits made while the server runs,
//! and with no index (a walk, and no index is built). The trees are twins:
//! one indexed, one never (paths in answers are relative to the root).

use std::path::{Path, PathBuf};

use ast_outline_live::LiveOptions;
use ast_outline_mcp::jail::Jail;
use ast_outline_mcp::tools::{FindSymbolArgs, Workspace};

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("directory");
    }
    std::fs::write(path, text).expect("write");
}

/// A tree of Python, TypeScript and Rust files: classes, decorated
/// methods, nested and non-ASCII names, callbacks, a long function with
/// blocks holding definitions, more than 50 names alike, an ignored and a
/// hidden directory.
fn fill(root: &Path) {
    write(&root.join(".gitignore"), "build/\n");
    write(
        &root.join("shop/cart.py"),
        "import functools\n\n\nclass Cart:\n    \"\"\"A cart.\"\"\"\n\n    def __init__(self):\n        \
         self.items = []\n\n    @property\n    def total(self):\n        return 0\n\n    \
         @functools.lru_cache(maxsize=None)\n    def subtotal(self, tax=0.2):\n        return 1\n\n\n\
         def straße(x):\n    return x\n\n\nclass Ünïcode:\n    def größe(self):\n        return 1\n",
    );
    let mut long = String::from("def long_function(items):\n");
    long.push_str("    for item in items:\n        def inner_total():\n            return item\n");
    for i in 0..110 {
        long.push_str(&format!("        x{i} = item\n"));
    }
    long.push_str("    if items:\n        class Local:\n            pass\n    return None\n");
    write(&root.join("shop/long.py"), &long);
    let mut many = String::new();
    for i in 0..70 {
        many.push_str(&format!("def get_item_{i}(x):\n    return x\n\n\n"));
    }
    many.push_str("def get_item(x):\n    return x\n");
    write(&root.join("shop/many.py"), &many);
    write(
        &root.join("web/api.ts"),
        "export interface CartProps {\n  id: number;\n  total: number;\n}\n\nexport class Api {\n  \
         constructor() {}\n  getTotal(): number {\n    return 1;\n  }\n}\n\nexport function \
         getUser(id: string): string {\n  return id;\n}\n",
    );
    write(
        &root.join("web/cart.spec.ts"),
        "describe('cart', () => {\n  it('adds items', () => {\n    function helperInTest() {}\n    \
         if (x) { y(); }\n  });\n  beforeEach(() => {});\n});\n\
         app.get('/users/:id', (req, res) => res.send(1));\n",
    );
    write(
        &root.join("src/lib.rs"),
        "pub struct Total;\n\nimpl Total {\n    pub fn new() -> Self {\n        Total\n    }\n}\n\n\
         pub trait Summable {\n    fn total(&self) -> u32;\n}\n\nmod inner {\n    pub fn total() {}\n}\n",
    );
    write(
        &root.join("données/mod.py"),
        "def total_données():\n    pass\n",
    );
    write(
        &root.join("build/gen.py"),
        "def total_generated():\n    pass\n",
    );
    write(
        &root.join(".hidden/h.py"),
        "def total_hidden():\n    pass\n",
    );
}

/// The pattern and path of each call compared.
const CALLS: &[(&str, Option<&str>)] = &[
    ("total", None),
    ("TOTAL", None),
    ("Cart.", None),
    ("cart", None),
    ("get_*", None),
    ("get_item_1?", None),
    ("get_item", None),
    ("*.total", None),
    ("Total*", None),
    ("[a-c]*", None),
    ("{get,set}*", None),
    ("*", None),
    ("*", Some("web/api.ts")),
    ("straße", None),
    ("STRASSE", None),
    ("größe", None),
    ("ü*", None),
    ("*ße", None),
    ("Ü", None),
    ("adds", None),
    ("it(*", None),
    ("describe*", None),
    ("/users", None),
    ("if (x)", None),
    ("zzz", None),
    ("inner", None),
    ("e", None),
    ("new", None),
    ("impl*", None),
    ("Summable.*", None),
    ("__init__", None),
    ("a?d*", None),
    ("*[!a-z]", None),
    ("total", Some("shop")),
    ("total", Some("web")),
    ("total", Some("données")),
    ("get_*", Some("shop/many.py")),
    ("total", Some("build")),
    ("total", Some(".hidden")),
    ("total", Some("build/gen.py")),
];

/// The calls answered by a walk even with an index: the index holds no
/// file at those paths (ignored, hidden).
fn walks_anyway(path: Option<&str>) -> bool {
    path.is_some_and(|p| p.starts_with("build") || p.starts_with(".hidden"))
}

fn workspace(root: &Path) -> Workspace {
    let jail = Jail::new(root).expect("jail");
    Workspace::new(jail, LiveOptions::default())
}

fn find(workspace: &Workspace, pattern: &str, path: Option<&str>) -> String {
    let args = FindSymbolArgs {
        pattern: Some(pattern.to_owned()),
        path: path.map(str::to_owned),
        line: None,
    };
    workspace
        .find_symbol(&args)
        .unwrap_or_else(|error| format!("error: {error}"))
}

fn build_index(root: &Path) {
    index::open::open_and_refresh(root, None, &|_| {}).expect("index");
}

/// Two twin trees: the first indexed, the second not.
fn twins() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let indexed = dir.path().join("indexed");
    let walked = dir.path().join("walked");
    for root in [&indexed, &walked] {
        fill(root);
    }
    build_index(&indexed);
    (dir, indexed, walked)
}

/// Asserts that every call of `calls` answers the same in both trees.
fn assert_same(index: &Workspace, walk: &Workspace, calls: &[(&str, Option<&str>)]) {
    for (pattern, path) in calls {
        let from_index = find(index, pattern, *path);
        let walking = find(walk, pattern, *path);
        assert_eq!(from_index, walking, "find_symbol({pattern:?}, {path:?})");
    }
}

#[test]
fn answers_from_the_index_are_the_walks() {
    let (_dir, indexed, walked) = twins();
    let index = workspace(&indexed);
    let walk = workspace(&walked);
    assert_same(&index, &walk, CALLS);
    let walking = CALLS.iter().filter(|(_, path)| walks_anyway(*path)).count();
    assert_eq!(
        index.find_symbol_answers(),
        (CALLS.len() - walking, walking)
    );
    assert_eq!(walk.find_symbol_answers(), (0, CALLS.len()));
    // What the comparison covers: more matches than shown, exact names
    // first, callbacks, names that are not ASCII, the ignored directory.
    let many = find(&index, "get_item", None);
    assert!(
        many.starts_with("71 matches for `get_item` in 1 file under . (searched 7 files;"),
        "{many}"
    );
    assert!(
        many.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("shop/many.py:281:get_item  L281-282 def get_item(x)")),
        "{many}"
    );
    assert!(
        many.contains("(first 50 shown; narrow the pattern or the path)"),
        "{many}"
    );
    let total = find(&index, "total", None);
    assert!(
        total.contains("shop/cart.py:10:Cart.total  L10-12 @property def total(self)"),
        "{total}"
    );
    assert!(
        total.contains("shop/long.py:3:long_function.inner_total  "),
        "{total}"
    );
    assert!(
        total.contains("données/mod.py:1:total_données  "),
        "{total}"
    );
    assert!(!total.contains("total_generated"), "{total}");
    let adds = find(&index, "adds", None);
    assert!(
        adds.contains("web/cart.spec.ts:2:  L2-5 block `it('adds items')` in module level"),
        "{adds}"
    );
    let german = find(&index, "STRASSE", None);
    assert!(german.starts_with("no symbol matches"), "{german}");
    let ignored = find(&index, "total", Some("build"));
    assert!(
        ignored.contains("build/gen.py:1:total_generated"),
        "{ignored}"
    );
}

/// Edits made while the server runs are in the next answer: a method
/// renamed and one added, a new file, a file deleted, a file renamed.
#[test]
fn answers_from_the_index_follow_edits_while_the_server_runs() {
    let (_dir, indexed, walked) = twins();
    let index = workspace(&indexed);
    let walk = workspace(&walked);
    // Opens the index and starts following the tree.
    assert_same(&index, &walk, &[("total", None)]);
    assert_eq!(index.find_symbol_answers(), (1, 0));
    for root in [&indexed, &walked] {
        let cart = root.join("shop/cart.py");
        let text = std::fs::read_to_string(&cart).expect("read");
        let text = text.replace("def total(self)", "def grand_total(self)")
            + "\n\ndef checkout_total(cart):\n    return cart\n";
        write(&cart, &text);
        write(
            &root.join("web/orders.ts"),
            "export class Orders {\n  total(): number {\n    return 0;\n  }\n}\n\
             test('totals orders', () => {});\n",
        );
        std::fs::remove_file(root.join("src/lib.rs")).expect("remove");
        std::fs::rename(root.join("shop/many.py"), root.join("shop/more.py")).expect("rename");
    }
    let calls: &[(&str, Option<&str>)] = &[
        ("total", None),
        ("grand", None),
        ("*_total", None),
        ("Orders.*", None),
        ("totals", None),
        ("get_item", None),
        ("Summable", None),
        ("total", Some("web")),
        ("*", Some("web/orders.ts")),
    ];
    assert_same(&index, &walk, calls);
    assert_eq!(index.find_symbol_answers(), (1 + calls.len(), 0));
    let total = find(&index, "total", None);
    assert!(
        total.contains("shop/cart.py:10:Cart.grand_total  "),
        "{total}"
    );
    assert!(total.contains("web/orders.ts:2:Orders.total  "), "{total}");
    assert!(!total.contains("src/lib.rs"), "{total}");
}

/// Without an index, `find_symbol` walks, and does not build one.
#[test]
fn without_an_index_the_files_are_walked_and_no_index_is_built() {
    let dir = tempfile::tempdir().expect("temp dir");
    fill(dir.path());
    let walk = workspace(dir.path());
    let total = find(&walk, "total", None);
    assert!(
        total.starts_with("11 matches for `total` in 5 files under . (searched 7 files;"),
        "{total}"
    );
    assert_eq!(walk.find_symbol_answers(), (0, 1));
    assert!(!dir.path().join(".ast-outline/index.sqlite").exists());
}

/// A file the index left out (binary) or a link the walk could not follow
/// is named by the walk's answer: those answers walk, the others still
/// come from the index.
#[test]
fn files_the_index_left_out_are_walked() {
    let (_dir, indexed, walked) = twins();
    for root in [&indexed, &walked] {
        write(&root.join("shop/blob.py"), "def x():\n    pass\n\0\0\0");
    }
    build_index(&indexed);
    let index = workspace(&indexed);
    let walk = workspace(&walked);
    assert_same(
        &index,
        &walk,
        &[
            ("total", None),
            ("total", Some("shop")),
            ("total", Some("web")),
        ],
    );
    assert_eq!(index.find_symbol_answers(), (1, 2));
    let shop = find(&walk, "total", Some("shop"));
    assert!(
        shop.contains("! shop/blob.py: looks binary (contains NUL bytes); not outlined"),
        "{shop}"
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(indexed.join("nowhere.py"), indexed.join("web/gone.py"))
            .expect("link");
        std::fs::remove_file(indexed.join("shop/blob.py")).expect("remove");
        build_index(&indexed);
        let index = workspace(&indexed);
        let web = find(&index, "total", Some("web"));
        assert!(
            web.contains("web/gone.py: broken symbolic link; not read"),
            "{web}"
        );
        assert_eq!(index.find_symbol_answers(), (0, 1));
    }
}
