//! What the queries say when the target is unusual, and how the type
//! hierarchy is drawn: cases from the new-user trial of the index (errors
//! printed as Rust debug values, "no definition found" for everything, a
//! subtype drawn under the wrong parent, a second index built in a
//! subdirectory, stale ids re-targeted silently).

use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn out(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).expect("pkg");
    std::fs::write(pkg.join("__init__.py"), "").expect("init");
    std::fs::write(
        pkg.join("shapes.py"),
        "class A:\n    pass\nclass B(A):\n    pass\nclass C(A):\n    pass\nclass D(B):\n    pass\nclass E(C):\n    pass\n\n\ndef area(x):\n    return unknown(x)\n",
    )
    .expect("shapes");
    let built = run(dir.path(), &["index", "."]);
    assert!(built.status.success(), "{built:?}");
    dir
}

#[test]
fn the_hierarchy_is_a_tree_each_type_under_the_one_it_derives_from() {
    let dir = project();
    assert_eq!(
        out(&run(dir.path(), &["hierarchy", "pkg/shapes.py:A"])),
        "hierarchy of pkg/shapes.py:1:A (class A, L1-2, module pkg.shapes)\n\
         supertypes: 0\n\
         subtypes: 4\n  \
         pkg/shapes.py:3:B (class B, L3-4, module pkg.shapes)\n    \
         pkg/shapes.py:7:D (class D, L7-8, module pkg.shapes)\n  \
         pkg/shapes.py:5:C (class C, L5-6, module pkg.shapes)\n    \
         pkg/shapes.py:9:E (class E, L9-10, module pkg.shapes)\n"
    );
    let json: serde_json::Value = serde_json::from_str(&out(&run(
        dir.path(),
        &["hierarchy", "pkg/shapes.py:A", "--format", "json"],
    )))
    .expect("JSON");
    let e = &json["hierarchy"]["subtypes"][3];
    assert_eq!(e["symbol"]["id"], "pkg/shapes.py:9:E");
    assert_eq!(e["depth"], 2);
    assert_eq!(e["via"], "pkg/shapes.py:5:C");
    let function = out(&run(dir.path(), &["hierarchy", "pkg/shapes.py:area"]));
    assert!(
        function.contains("(a function has no type hierarchy"),
        "{function}"
    );
}

#[test]
fn bad_targets_say_what_is_wrong() {
    let dir = project();
    let cases = [
        ("pkg/shapes.py:0", "line 0: lines are 1-based"),
        ("pkg/shapes.py:-1", "`-1` is not a line or a range"),
        ("pkg/shapes.py", "a file; say which definition in it"),
        (
            "pkg/shapes.py:999",
            "no definition contains line 999 of pkg/shapes.py (its definitions span lines 1-14)",
        ),
        ("pkg/shapes.py:3:0", "column 0: columns are 1-based"),
        ("pkg/shapes.py:3:7:9", "malformed"),
        // Case matters: `a` is not `A`.
        (
            "pkg/shapes.py:a",
            "no definition named a in pkg/shapes.py; did you mean pkg/shapes.py:1:A",
        ),
        (
            "pkg/shapes.py:14:12",
            "`unknown` there is not resolved to a definition of the project",
        ),
        ("nope.py:A", "no indexed file is named before a `:`"),
    ];
    for (target, expected) in cases {
        let message = err(&run(dir.path(), &["refs", target]));
        assert!(message.contains(expected), "{target}: {message}");
        assert!(!message.contains("ZeroLine") && !message.contains("NotALine"));
    }
    // `./` and an absolute path inside the root name the same file.
    let absolute = format!(
        "{}/pkg/shapes.py:B",
        std::fs::canonicalize(dir.path()).expect("root").display()
    );
    for target in ["./pkg/shapes.py:B", absolute.as_str()] {
        let refs = out(&run(dir.path(), &["refs", target]));
        assert!(
            refs.starts_with("refs to pkg/shapes.py:3:B (class B"),
            "{target}: {refs}"
        );
    }
}

#[test]
fn a_query_in_a_subdirectory_uses_the_enclosing_index_and_a_moved_id_is_noted() {
    let dir = project();
    let sub = dir.path().join("pkg");
    let refs = run(&sub, &["refs", "shapes.py:A"]);
    assert!(
        out(&refs).starts_with(
            "refs to pkg/shapes.py:1:A (class A, L1-2, module pkg.shapes): 2 in 1 file\n"
        ),
        "{}",
        out(&refs)
    );
    assert!(!sub.join(".ast-outline").exists(), "no second index");
    // `..` steps are resolved (found by the new-user trial: "no indexed
    // file is named", while `index --changed` took the same path).
    for (from, target) in [
        (&sub, "../pkg/shapes.py:A"),
        (&dir.path().to_owned(), "pkg/../pkg/./shapes.py:A"),
    ] {
        let refs = run(from, &["refs", target]);
        assert!(
            out(&refs).starts_with("refs to pkg/shapes.py:1:A (class A"),
            "{target}: {}",
            out(&refs)
        );
    }

    let moved = run(dir.path(), &["refs", "pkg/shapes.py:5:B"]);
    assert!(out(&moved).starts_with("refs to pkg/shapes.py:3:B"));
    assert!(
        String::from_utf8_lossy(&moved.stderr)
            .contains("found by qualname: the id said line 5, B now starts at line 3"),
        "{moved:?}"
    );
}

#[test]
fn a_rust_method_is_named_without_its_impl_block() {
    // Rust methods are qualified by their impl block (`impl Error.chain`):
    // `refs src/error.rs:Error.chain` said "no definition found".
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("lib.rs"),
        "pub struct Error;\nimpl Error {\n    pub fn chain(&self) {}\n    pub fn root(&self) { self.chain() }\n}\n\
         impl std::fmt::Display for Error {\n    fn fmt(&self) {}\n}\n\
         impl std::fmt::Debug for Error {\n    fn fmt(&self) {}\n}\n",
    )
    .expect("written");
    let text = out(&run(dir.path(), &["refs", "lib.rs:Error.chain"]));
    assert!(
        text.starts_with("refs to lib.rs:3:impl Error.chain (method impl Error.chain, L3-3"),
        "{text}"
    );
    assert!(
        text.contains("L4:31 call self.chain in impl Error.root"),
        "{text}"
    );
    assert_eq!(
        err(&run(dir.path(), &["refs", "lib.rs:Error.fmt"])),
        "ast-outline: lib.rs:Error.fmt: 2 definitions match: \
         lib.rs:7:impl std::fmt::Display for Error.fmt (method L7-7), \
         lib.rs:10:impl std::fmt::Debug for Error.fmt (method L10-10)\n"
    );
}

/// A new user's trial: `refs core.py:Context.invoke` of a method with two
/// `@overload`s refused ("3 definitions match"); one function declared
/// several times is the last declaration, where its references resolve.
#[test]
fn an_overloaded_python_method_is_its_implementation() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("core.py"),
        "from typing import overload


class Context:
    @overload
    def invoke(self, x: int) -> int: ...
    @overload
    def invoke(self, x: str) -> str: ...
    def invoke(self, x):
        return x


def go(ctx: Context):
    ctx.invoke(1)
",
    )
    .expect("written");
    assert!(run(dir.path(), &["index", "."]).status.success());
    let text = out(&run(dir.path(), &["refs", "core.py:Context.invoke"]));
    assert!(
        text.starts_with("refs to core.py:9:Context.invoke (method Context.invoke, L9-10"),
        "{text}"
    );
    assert!(text.contains("L14:9 call ctx.invoke in go"), "{text}");
}

/// `defs` with an empty name is an error, and with a name nothing has it
/// says so (both printed "definitions of : 0" and exited 0: a new-user trial).
#[test]
fn defs_of_no_name_is_an_error_and_of_an_unknown_name_says_so() {
    let dir = project();
    let empty = err(&run(dir.path(), &["defs", ""]));
    assert!(
        empty.starts_with("ast-outline: give a name: `defs NAME`"),
        "{empty}"
    );
    assert_eq!(
        out(&run(dir.path(), &["defs", "*"])),
        "definitions of *: 0\n(none has this name or qualified name, exactly and with this \
         case; no patterns: give a whole name such as total or Cart.total)\n"
    );
    assert_eq!(
        out(&run(dir.path(), &["defs", "area"])),
        "definitions of area: 1\n  pkg/shapes.py:13:area (function area, L13-14, module pkg.shapes)\n"
    );
}

/// `defs` without an index walks the tree and gives the answer the index
/// gives (text and JSON, modules included: Python packages, Rust modules
/// from `mod` declarations and `Cargo.toml`), without building an index;
/// with one, it answers from it.
#[test]
fn defs_without_an_index_walks_and_answers_as_the_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, text).expect("write");
    };
    write("app/__init__.py", "");
    write(
        "app/models.py",
        "class User:\n    def save(self):\n        pass\n\n\ndef save():\n    pass\n",
    );
    write("scripts/tool.py", "class User:\n    pass\n");
    write("web/user.ts", "export class User {\n  save(): void {}\n}\n");
    write("crate/Cargo.toml", "[package]\nname = \"shop_core\"\n");
    write(
        "crate/src/lib.rs",
        "pub mod users;\n#[path = \"odd.rs\"]\nmod other;\n",
    );
    write(
        "crate/src/users.rs",
        "pub struct User;\n\nimpl User {\n    pub fn save(&self) {}\n}\n",
    );
    write("crate/src/odd.rs", "pub fn save() {}\n");
    let calls: &[&[&str]] = &[
        &["defs", "User"],
        &["defs", "save"],
        &["defs", "User.save"],
        &["defs", "impl User.save"],
        &["defs", "nothing"],
        &["defs", "User", "--format", "json"],
        &["defs", "save", "--format", "json"],
    ];
    let walked: Vec<String> = calls.iter().map(|args| out(&run(root, args))).collect();
    assert!(!root.join(".ast-outline/index.sqlite").exists());
    assert!(
        walked[1].contains("crate/src/odd.rs:1:save (function save, L1-1, module shop_core.other)"),
        "{}",
        walked[1]
    );
    assert!(
        walked[1].contains("app/models.py:2:User.save (method User.save, L2-3, module app.models)"),
        "{}",
        walked[1]
    );
    assert!(
        walked[0].starts_with("definitions of User: 4\n"),
        "{}",
        walked[0]
    );
    let built = run(root, &["index", "."]);
    assert!(built.status.success(), "{built:?}");
    for (args, walked) in calls.iter().zip(&walked) {
        assert_eq!(&out(&run(root, args)), walked, "{args:?}");
    }
    // An empty name is refused either way.
    std::fs::remove_dir_all(root.join(".ast-outline")).expect("remove");
    assert!(err(&run(root, &["defs", " "])).contains("give a name"));
}

/// A new user's trial: a 50,000-character target reached SQLite (`LIKE or
/// GLOB pattern too complex`) and the MCP server echoed it whole; a target
/// or `defs` name over 1,000 characters is refused, without repeating it.
#[test]
fn a_target_over_a_thousand_characters_is_refused_without_being_echoed() {
    let dir = project();
    let long = format!("pkg/shapes.py:{}", "x".repeat(50_000));
    for args in [
        vec!["refs", long.as_str()],
        vec!["callers", long.as_str()],
        vec!["defs", &long[14..]],
    ] {
        let message = err(&run(dir.path(), &args));
        assert!(message.contains("at most 1000"), "{message}");
        assert!(message.len() < 300, "{message}");
    }
}

/// A new user's trial: `refs` of a method only name-only calls reach said
/// "0 in 0 files" with nothing about the candidates left out; the answer
/// now counts them and says how to list them.
#[test]
fn an_answer_says_how_many_name_only_candidates_it_leaves_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("a.py"),
        "class A:\n    def forward(self):\n        pass\n",
    )
    .expect("a");
    std::fs::write(
        dir.path().join("b.py"),
        "class B:\n    def forward(self):\n        pass\n",
    )
    .expect("b");
    std::fs::write(dir.path().join("c.py"), "def go(x):\n    x.forward()\n").expect("c");
    assert!(run(dir.path(), &["index", "."]).status.success());
    let text = out(&run(dir.path(), &["refs", "a.py:A.forward"]));
    assert_eq!(
        text,
        "refs to a.py:2:A.forward (method A.forward, L2-3, module a): 0 in 0 files\n\
         (not shown: 1 reference whose receiver's type is unknown and that name it only as a \
         candidate, by its name: `refs --candidates` / include_candidates lists them)\n"
    );
    let text = out(&run(
        dir.path(),
        &["refs", "a.py:A.forward", "--candidates"],
    ));
    assert!(
        text.contains("L2:7 call x.forward in go [candidate via name_only, 2 candidates]"),
        "{text}"
    );
}

/// A new user's trial: `callers` of `Environment.__init__` found only a
/// `super().__init__`, not the `Environment()` calls; a constructor's
/// callers are the instantiations of its class (Python and TypeScript).
#[test]
fn a_constructors_callers_are_the_instantiations_of_its_class() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("env.py"),
        "class Environment:\n    def __init__(self):\n        pass\n\n\ndef main():\n    return Environment()\n",
    )
    .expect("py");
    std::fs::write(
        dir.path().join("box.ts"),
        "export class Box {\n  constructor() {}\n}\nexport function make() {\n  return new Box();\n}\n",
    )
    .expect("ts");
    assert!(run(dir.path(), &["index", "."]).status.success());
    let text = out(&run(
        dir.path(),
        &["callers", "env.py:Environment.__init__"],
    ));
    assert!(
        text.contains("1 call\n") && text.contains("L7:12 instantiate Environment in main"),
        "{text}"
    );
    let text = out(&run(dir.path(), &["callers", "box.ts:Box.constructor"]));
    assert!(
        text.contains("1 call\n") && text.contains("L5:14 instantiate Box in make"),
        "{text}"
    );
}

/// A new user's trial: with a directory at `.ast-outline/index.sqlite`,
/// `refs` said SQLite could not open it and promised answers "from it as it
/// is", then failed; it now says what is in the way.
#[test]
fn a_directory_where_the_index_file_goes_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n").expect("a");
    std::fs::create_dir_all(dir.path().join(".ast-outline/index.sqlite")).expect("dir");
    let message = err(&run(dir.path(), &["refs", "a.py:f"]));
    assert!(
        message.contains("index.sqlite: a directory where the index's file goes"),
        "{message}"
    );
}

/// A new user's trial: `callers` of a `@property` said "0 calls" while
/// `refs` found its reads; a getter's callers are its reads (Python
/// `@property`, TypeScript `get`).
#[test]
fn a_getters_callers_are_its_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("env.py"),
        "class Env:\n    @property\n    def config(self):\n        return 1\n\n\ndef main(env: Env):\n    return env.config\n",
    )
    .expect("py");
    std::fs::write(
        dir.path().join("box.ts"),
        "export class Box {\n  get size() { return 1; }\n}\nexport function measure(b: Box) {\n  return b.size;\n}\n",
    )
    .expect("ts");
    assert!(run(dir.path(), &["index", "."]).status.success());
    let text = out(&run(dir.path(), &["callers", "env.py:Env.config"]));
    assert!(
        text.contains("1 call\n") && text.contains("in main"),
        "{text}"
    );
    let text = out(&run(dir.path(), &["callers", "box.ts:Box.size"]));
    assert!(
        text.contains("1 call\n") && text.contains("in measure"),
        "{text}"
    );
}

/// A new user's trial: `read loop1:1` on a symbolic link loop said "no such
/// file"; it now says what the system says.
#[cfg(unix)]
#[test]
fn reading_through_a_symbolic_link_loop_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink("loop2", dir.path().join("loop1")).expect("link");
    std::os::unix::fs::symlink("loop1", dir.path().join("loop2")).expect("link");
    let message = err(&run(dir.path(), &["read", "loop1:1"]));
    assert!(
        message.contains("loop1: Too many levels of symbolic links"),
        "{message}"
    );
}

/// A new user's trial: `context --max-tokens 0` exited 1 where `outline
/// --max-tokens 0` exits 2; a bad flag value is a usage error (2) on both.
#[test]
fn a_zero_token_budget_is_a_usage_error_on_context_too() {
    let dir = project();
    for args in [
        ["context", "pkg/shapes.py:area", "--max-tokens", "0"],
        ["outline", "pkg/shapes.py", "--max-tokens", "0"],
    ] {
        let output = run(dir.path(), &args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
    }
}

/// Dynamic references (`getattr(obj, "name")`, a dispatch table called by
/// a computed key) are shown by `refs`, `callers` and `context`, labelled
/// `dynamic`, beside the static ones: a run has to confirm them.
#[test]
fn dynamic_references_are_labelled_dynamic_in_refs_callers_and_context() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).expect("pkg");
    std::fs::create_dir_all(root.join("web")).expect("web");
    std::fs::write(root.join("pkg/__init__.py"), "").expect("init");
    std::fs::write(
        root.join("pkg/store.py"),
        "class Store:\n    def save(self):\n        pass\n",
    )
    .expect("store");
    std::fs::write(
        root.join("pkg/app.py"),
        "import importlib\nfrom pkg.store import Store\n\n\ndef run(store: Store):\n    \
         store.save()\n    getattr(store, \"save\")()\n    importlib.import_module(\"pkg.store\")\n",
    )
    .expect("app");
    std::fs::write(
        root.join("web/handlers.ts"),
        "export function createUser() {}\n",
    )
    .expect("handlers");
    std::fs::write(
        root.join("web/api.ts"),
        "import { createUser } from \"./handlers\";\nconst handlers = { create: createUser };\n\
         export function dispatch(action: string) {\n  return handlers[action]();\n}\n",
    )
    .expect("api");
    assert!(run(root, &["index", "."]).status.success());

    let text = out(&run(root, &["refs", "pkg/store.py:Store.save"]));
    assert_eq!(
        text,
        "refs to pkg/store.py:2:Store.save (method Store.save, L2-3, module pkg.store): \
         2 (1 resolved, 1 dynamic) in 1 file\n\
         pkg/app.py\n  \
         L6:11 call store.save in run [inferred via receiver]\n  \
         L7:21 call store.save in run [dynamic via receiver]\n"
    );

    let text = out(&run(root, &["callers", "web/handlers.ts:createUser"]));
    assert!(
        text.contains("1 call\n")
            && text.contains("  L4:19 call createUser in dispatch [dynamic via import]\n"),
        "{text}"
    );

    let text = out(&run(
        root,
        &["context", "pkg/store.py:Store.save", "--kind", "references"],
    ));
    assert!(
        text.contains("L7:21 call (dynamic: made at run time, a run confirms it)"),
        "{text}"
    );
}

/// Rust items a project `macro_rules!` makes (no definition is written) are
/// dynamic references to the macro: `refs` and `callers` of the macro list
/// them labelled `dynamic via macro`, `context` says a macro makes them; a
/// real function beside them stays exact, a macro of another crate makes
/// nothing.
#[test]
fn rust_items_made_by_macros_are_labelled_dynamic_in_refs_callers_and_context() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).expect("src");
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"demo\"\n").expect("cargo");
    std::fs::write(
        root.join("src/lib.rs"),
        "pub struct State { pub count: u32 }\n\
         \n\
         macro_rules! make_getter {\n\
         \x20   ($name:ident, $field:ident) => {\n\
         \x20       pub fn $name(s: &State) -> u32 { s.$field }\n\
         \x20   };\n\
         }\n\
         make_getter!(get_count, count);\n\
         \n\
         macro_rules! make_unit { () => { pub struct Unit; } }\n\
         make_unit!();\n\
         thread_local!(static LOCAL: u32 = 1);\n\
         \n\
         pub fn plain() -> u32 { 1 }\n\
         \n\
         pub fn use_them(s: &State) -> u32 {\n\
         \x20   let _u = Unit;\n\
         \x20   let _l = LOCAL;\n\
         \x20   get_count(s) + plain()\n\
         }\n",
    )
    .expect("lib");
    assert!(run(root, &["index", "."]).status.success());

    let text = out(&run(root, &["refs", "src/lib.rs:make_getter"]));
    assert_eq!(
        text,
        "refs to src/lib.rs:3:make_getter (macro make_getter, L3-7, module demo): \
         2 (1 resolved, 1 dynamic) in 1 file\n\
         src/lib.rs\n  \
         L8:1 call make_getter in <module> [exact via module]\n  \
         L19:5 call get_count in use_them [dynamic via macro]\n"
    );
    let text = out(&run(root, &["callers", "src/lib.rs:make_getter"]));
    assert_eq!(
        text,
        "callers of src/lib.rs:3:make_getter (macro make_getter, L3-7, module demo): 2 calls\n\
         depth 1:\n\
         src/lib.rs\n  \
         L8:1 call make_getter in <module> [exact via module]\n  \
         L19:5 call get_count in use_them [dynamic via macro]\n"
    );
    let text = out(&run(root, &["refs", "src/lib.rs:make_unit"]));
    assert_eq!(
        text,
        "refs to src/lib.rs:10:make_unit (macro make_unit, L10-10, module demo): \
         2 (1 resolved, 1 dynamic) in 1 file\n\
         src/lib.rs\n  \
         L11:1 call make_unit in <module> [exact via module]\n  \
         L17:14 read Unit in use_them [dynamic via macro]\n"
    );
    let text = out(&run(root, &["callees", "src/lib.rs:use_them"]));
    assert_eq!(
        text,
        "callees of src/lib.rs:16:use_them (function use_them, L16-20, module demo): 2 calls\n  \
         L19:5 call get_count in use_them [dynamic via macro] -> src/lib.rs:3:make_getter\n  \
         L19:20 call plain in use_them [exact via module] -> src/lib.rs:14:plain\n"
    );
    let text = out(&run(
        root,
        &["context", "src/lib.rs:make_getter", "--kind", "references"],
    ));
    assert!(
        text.contains(
            "[reference] use_them src/lib.rs:17-20 (L19:5 call \
             (dynamic: an item this macro makes, no definition written))\n"
        ),
        "{text}"
    );
    // Like every dynamic edge, half the confidence of a certain one.
    let json: serde_json::Value = serde_json::from_str(&out(&run(
        root,
        &["refs", "src/lib.rs:make_getter", "--format", "json"],
    )))
    .expect("json");
    let confidences: Vec<(u64, f64)> = json["refs"]
        .as_array()
        .map(|refs| {
            refs.iter()
                .filter_map(|r| Some((r["line"].as_u64()?, r["confidence"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(confidences, vec![(8, 1.0), (19, 0.5)]);
    // `thread_local!` is no macro of the project: `LOCAL` stays external.
    let text = out(&run(root, &["export"]));
    assert!(
        text.contains(
            "\"line\":18,\"column\":14,\"end_column\":19,\"name\":\"LOCAL\",\"receiver\":\"\",\
             \"role\":\"read\",\"caller\":\"src/lib.rs:16:use_them\",\"status\":\"external\""
        ),
        "{text}"
    );
}

/// From a user trial: calls through a module loaded at run time were
/// `external`, a literal key's call was an attribute read, a literal
/// `import("./x")` recorded nothing, `callees` left dynamic imports out and
/// dynamic edges carried confidence 1.0.
#[test]
fn modules_loaded_at_run_time_literal_keys_and_dynamic_imports_in_refs_and_callees() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).expect("pkg");
    std::fs::create_dir_all(root.join("web")).expect("web");
    std::fs::write(root.join("pkg/__init__.py"), "").expect("init");
    std::fs::write(root.join("pkg/mod.py"), "def helper():\n    pass\n").expect("mod");
    std::fs::write(
        root.join("pkg/app.py"),
        "import importlib as il\nimport pkg.mod as pm\n\n\ndef run(name):\n    \
         m = il.import_module(\"pkg.mod\")\n    m.helper()\n    \
         il.import_module(\"pkg.mod\").helper()\n    il.reload(pm).helper()\n    \
         il.import_module(name)\n",
    )
    .expect("app");
    std::fs::write(
        root.join("web/handlers.ts"),
        "export function createUser() {}\nexport function later() {}\n",
    )
    .expect("handlers");
    std::fs::write(
        root.join("web/api.ts"),
        "import { createUser } from \"./handlers\";\nconst handlers = { create: createUser };\n\
         export async function dispatch() {\n  handlers[\"create\"]();\n  \
         const m = await import(`./handlers`);\n  m.later();\n}\n",
    )
    .expect("api");
    assert!(run(root, &["index", "."]).status.success());

    assert_eq!(
        out(&run(root, &["callees", "pkg/app.py:run"])),
        "callees of pkg/app.py:5:run (function run, L5-10, module pkg.app): \
         7 calls, 3 dynamic imports\n  \
         L6:12 call il.import_module in run [external via import]\n  \
         L6:27 import pkg.mod in run [dynamic via import] -> pkg/mod.py\n  \
         L7:7 call m.helper in run [dynamic via import] -> pkg/mod.py:1:helper\n  \
         L8:8 call il.import_module in run [external via import]\n  \
         L8:23 import pkg.mod in run [dynamic via import] -> pkg/mod.py\n  \
         L8:33 call il.import_module().helper in run [dynamic via import] -> pkg/mod.py:1:helper\n  \
         L9:8 call il.reload in run [external via import]\n  \
         L9:19 call il.reload().helper in run [dynamic via import] -> pkg/mod.py:1:helper\n  \
         L10:8 call il.import_module in run [external via import]\n  \
         L10:22 import ? in run [dynamic via none]\n"
    );
    assert_eq!(
        out(&run(root, &["refs", "pkg/mod.py:helper"])),
        "refs to pkg/mod.py:1:helper (function helper, L1-2, module pkg.mod): \
         3 (0 resolved, 3 dynamic) in 1 file\n\
         pkg/app.py\n  \
         L7:7 call m.helper in run [dynamic via import]\n  \
         L8:33 call il.import_module().helper in run [dynamic via import]\n  \
         L9:19 call il.reload().helper in run [dynamic via import]\n"
    );
    assert_eq!(
        out(&run(root, &["callees", "web/api.ts:dispatch"])),
        "callees of web/api.ts:3:dispatch (function dispatch, L3-7): 3 calls\n  \
         L4:13 call handlers.create in dispatch [candidate via none]\n  \
         L4:13 call createUser in dispatch [dynamic via import] -> web/handlers.ts:1:createUser\n  \
         L6:5 call m.later in dispatch [inferred via receiver] -> web/handlers.ts:2:later\n"
    );
    // A dynamic edge's confidence is half its static reading's.
    let json: serde_json::Value = serde_json::from_str(&out(&run(
        root,
        &["refs", "pkg/mod.py:helper", "--format", "json"],
    )))
    .expect("json");
    let confidences: Vec<(u64, f64)> = json["refs"]
        .as_array()
        .map(|refs| {
            refs.iter()
                .filter_map(|r| Some((r["line"].as_u64()?, r["confidence"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(confidences, vec![(7, 0.5), (8, 0.5), (9, 0.5)]);
}
