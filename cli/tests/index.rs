//! `ast-outline index` and the queries over it, run through the binary on
//! temporary Python projects: output grouped by file and sorted by line, JSON
//! shapes, exit codes, the default database location and refresh on query.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8")
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("directory");
    }
    std::fs::write(path, text).expect("written");
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(
        root,
        "app/accounts.py",
        "class User:\n    def save(self):\n        pass\n",
    );
    write(
        root,
        "app/billing.py",
        "class User:\n    def save(self):\n        pass\n\nclass Admin(User):\n    def promote(self):\n        self.save()\n",
    );
    write(
        root,
        "app/signup.py",
        "from app.accounts import User\n\ndef signup() -> User:\n    u = User()\n    u.save()\n",
    );
    write(
        root,
        "app/invoice.py",
        "from .billing import User, Admin\n\ndef charge(user: User):\n    user.save()\n\ndef go():\n    charge(Admin())\n",
    );
    dir
}

#[test]
fn index_then_refs_of_each_user() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    let summary: Value =
        serde_json::from_str(&stdout(&run(&["index", root, "--format", "json"]))).expect("JSON");
    assert_eq!(summary["files"], 5);
    assert_eq!(summary["parsed"], 5);
    assert!(dir.path().join(".ast-outline/index.sqlite").is_file());

    let text = stdout(&run(&["refs", "--root", root, "app/accounts.py:User"]));
    assert_eq!(
        text,
        "refs to app/accounts.py:1:User (class User, L1-3, module app.accounts): 3 in 1 file\n\
         app/signup.py\n  \
         L1:26 import User in <module> [exact via import]\n  \
         L3:17 type_use User in <module> [exact via import]\n  \
         L4:9 instantiate User in signup [exact via import]\n"
    );
    let json: Value = serde_json::from_str(&stdout(&run(&[
        "refs",
        "--root",
        root,
        "--format",
        "json",
        "app/billing.py:1:User",
    ])))
    .expect("JSON");
    let refs: Vec<String> = json["refs"]
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            format!(
                "{}:{} {}",
                r["path"].as_str().unwrap_or(""),
                r["line"],
                r["role"]
            )
        })
        .collect();
    assert_eq!(
        refs,
        [
            "app/billing.py:5 \"inherit\"",
            "app/invoice.py:1 \"import\"",
            "app/invoice.py:3 \"type_use\""
        ]
    );
    assert_eq!(json["target"]["module"], "app.billing");
}

#[test]
fn callers_callees_hierarchy_defs() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    let text = stdout(&run(&[
        "callers",
        "--root",
        root,
        "--depth",
        "2",
        "app/billing.py:User.save",
    ]));
    assert_eq!(
        text,
        "callers of app/billing.py:2:User.save (method User.save, L2-3, module app.billing): 3 calls\n\
         depth 1:\n\
         app/billing.py\n  \
         L7:14 call self.save in Admin.promote [inferred via receiver]\n\
         app/invoice.py\n  \
         L4:10 call user.save in charge [inferred via receiver]\n\
         depth 2:\n\
         app/invoice.py\n  \
         L7:5 call charge in go [exact via module]\n"
    );
    let text = stdout(&run(&["callees", "--root", root, "app/invoice.py:go"]));
    assert!(text.contains("-> app/invoice.py:3:charge"), "{text}");
    assert!(
        text.contains("instantiate Admin in go [exact via import] -> app/billing.py:5:Admin"),
        "{text}"
    );
    let text = stdout(&run(&["hierarchy", "--root", root, "app/billing.py:Admin"]));
    assert!(
        text.contains("supertypes: 1\n  app/billing.py:1:User (class User"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&stdout(&run(&[
        "defs", "--root", root, "--format", "json", "User",
    ])))
    .expect("JSON");
    let modules: Vec<&str> = json["defs"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|d| d["module"].as_str())
        .collect();
    assert_eq!(modules, ["app.accounts", "app.billing"]);
    // An external call has no target: no empty arrow after it.
    write(root.as_ref(), "app/tools.py", "def run():\n    print(1)\n");
    let text = stdout(&run(&["callees", "--root", root, "app/tools.py:run"]));
    assert_eq!(
        text,
        "callees of app/tools.py:1:run (function run, L1-2, module app.tools): 1 call\n  \
         L2:5 call print in run [external via scope]\n"
    );
}

#[test]
fn queries_refresh_first_and_report_bad_targets() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    // No index yet and --no-refresh: said clearly, exit 1.
    let output = run(&[
        "refs",
        "--root",
        root,
        "--no-refresh",
        "app/accounts.py:User",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no index"));
    // A query builds the index; an edit is seen by the next query.
    stdout(&run(&["refs", "--root", root, "app/accounts.py:User"]));
    write(
        dir.path(),
        "app/late.py",
        "from app.accounts import User\nUser()\n",
    );
    let text = stdout(&run(&["refs", "--root", root, "app/accounts.py:User"]));
    assert!(text.contains("app/late.py\n  L1:26 import User"), "{text}");
    let output = run(&["refs", "--root", root, "app/accounts.py:Nobody"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "app/accounts.py:Nobody: no definition named Nobody in app/accounts.py; \
             `ast-outline outline app/accounts.py` lists its definitions"
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A name close to one the file defines is suggested (as `read` does);
    // a position with no name there says so (found by the new-user trial:
    // "no definition found (…definitions are on lines 2-3…)" for line 3).
    let output = run(&["refs", "--root", root, "app/accounts.py:Usr"]);
    let message = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        message
            .contains("no definition named Usr in app/accounts.py; did you mean app/accounts.py:")
            && message.contains(":User"),
        "{message}"
    );
    let output = run(&["refs", "--root", root, "app/accounts.py:1:200"]);
    let message = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        message.contains("app/accounts.py:1:200: no name at line 1, column 200 of app/accounts.py"),
        "{message}"
    );
    let output = run(&["refs", "--root", root, "nowhere.py:User"]);
    assert_eq!(output.status.code(), Some(1));
}

/// `index --changed PATH…` refreshes only the files named, when it can; a
/// new source file or a settings file makes it a refresh of every file.
#[test]
fn index_changed_refreshes_only_the_named_files() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    let summary =
        |output: &Output| -> Value { serde_json::from_str(&stdout(output)).expect("JSON summary") };
    let built = summary(&run(&["index", root, "--format", "json"]));
    assert_eq!(built["named_only"], false);
    // An edit and a deletion, named relative to the working directory.
    write(
        dir.path(),
        "app/signup.py",
        "from app.accounts import User\n\ndef signup() -> User:\n    u = User()\n    u.save()\n    return User()\n",
    );
    std::fs::remove_file(dir.path().join("app/invoice.py")).expect("deleted");
    write(dir.path(), "README.md", "notes\n");
    let output = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .current_dir(dir.path())
        .args(["index", ".", "--format", "json", "--changed"])
        .args(["app/signup.py", "app/invoice.py", "README.md"])
        .output()
        .expect("the binary runs");
    let named = summary(&output);
    assert_eq!(
        (
            &named["named_only"],
            &named["parsed"],
            &named["removed"],
            &named["files"]
        ),
        (
            &Value::Bool(true),
            &Value::from(1),
            &Value::from(1),
            &Value::from(4)
        ),
        "{named}"
    );
    let text = stdout(&run(&[
        "refs",
        "--root",
        root,
        "--no-refresh",
        "app/billing.py:User",
    ]));
    assert!(!text.contains("invoice"), "{text}");
    let text = stdout(&run(&[
        "refs",
        "--root",
        root,
        "--no-refresh",
        "app/accounts.py:User",
    ]));
    assert!(text.contains("L6:12 instantiate User"), "{text}");
    // A file the index does not hold yet: every file is looked at.
    write(
        dir.path(),
        "app/late.py",
        "from app.accounts import User\nUser()\n",
    );
    let late = dir.path().join("app/late.py");
    let output = run(&[
        "index",
        root,
        "--format",
        "json",
        "--changed",
        late.to_str().expect("UTF-8 path"),
    ]);
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("not indexed yet: every file is looked at"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let whole = summary(&output);
    assert_eq!(
        (&whole["named_only"], &whole["files"]),
        (&Value::Bool(false), &Value::from(5))
    );
}

/// The default database directory, `ROOT/.ast-outline/`, is kept out of git
/// and backups (as the outline cache is), and a link in its place is never
/// followed.
#[test]
fn the_default_database_directory_is_marked_and_never_a_link() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    stdout(&run(&["index", root, "-q"]));
    let marker = dir.path().join(".ast-outline");
    assert_eq!(
        std::fs::read_to_string(marker.join(".gitignore")).expect(".gitignore"),
        "# Made by ast-outline: its cache.\n*\n"
    );
    assert!(marker.join("CACHEDIR.TAG").is_file());

    #[cfg(unix)]
    {
        let other = project();
        let victim = tempfile::tempdir().expect("victim");
        std::os::unix::fs::symlink(victim.path(), other.path().join(".ast-outline")).expect("link");
        let root = other.path().to_str().expect("UTF-8 path");
        let output = run(&["index", root, "-q"]);
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("is a symbolic link; not followed (use --db FILE)"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_dir(victim.path()).expect("victim").count(), 0);
    }
}

/// The number of o200k_base tokens of `text`.
fn tokens(text: &str) -> usize {
    ast_outline_budget::count(text).expect("o200k_base loads")
}

#[test]
fn context_gives_the_definition_then_the_relations_within_the_budget() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    // Line 2, column 9 of billing.py is the name `save` of User.save.
    let text = stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:2:9",
        "--kind",
        "callers",
    ]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("context of app/billing.py:2:User.save (method User.save), callers")
    );
    assert!(
        text.contains(
            "[definition] User.save app/billing.py:2-3\n    def save(self):\n        pass\n"
        ),
        "{text}"
    );
    // Both callers, the one in the same file first.
    let promote = text
        .find("[caller] Admin.promote app/billing.py:6-7")
        .expect(&text);
    let charge = text
        .find("[caller] charge app/invoice.py:3-4 (calls at L4:10)")
        .expect(&text);
    assert!(promote < charge, "{text}");

    // References, as JSON.
    let json: Value = serde_json::from_str(&stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:1:7",
        "--kind",
        "references",
        "--format",
        "json",
    ])))
    .expect("JSON");
    assert_eq!(json["target"]["id"], "app/billing.py:1:User");
    let blocks = json["blocks"].as_array().expect("blocks");
    assert_eq!(blocks[0]["relation"], "definition");
    assert_eq!(blocks[1]["relation"], "reference");
    assert_eq!(blocks[1]["path"], "app/billing.py");
    assert!(blocks.iter().any(|b| {
        b["path"] == "app/invoice.py"
            && b["start_line"] == 1
            && b["code"]
                .as_str()
                .is_some_and(|c| c.contains("def charge(user: User):"))
    }));

    // Type hierarchy of Admin: its base.
    let text = stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:5:7",
        "--kind",
        "type_hierarchy",
    ]));
    assert!(
        text.contains("[supertype] User app/billing.py:1-3 (depth 1, supertype of Admin)"),
        "{text}"
    );

    // A small budget: never over it, and it says what was cut.
    let full = stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:2:9",
        "--kind",
        "callers",
    ]));
    let budget = tokens(&full) - 5;
    let budget_arg = budget.to_string();
    let cut = stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:2:9",
        "--kind",
        "callers",
        "--max-tokens",
        &budget_arg,
    ]));
    assert!(tokens(&cut) <= budget, "{} > {budget}: {cut}", tokens(&cut));
    assert!(cut.contains("[cut: "), "{cut}");
    // Not even the header fits: an error, nothing printed.
    let tiny = run(&[
        "context",
        "--root",
        root,
        "app/billing.py:2:9",
        "--max-tokens",
        "3",
    ]);
    assert!(!tiny.status.success());
    assert!(tiny.stdout.is_empty());
}

#[test]
fn export_writes_the_whole_index_as_versioned_json() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    let summary: Value =
        serde_json::from_str(&stdout(&run(&["index", root, "--format", "json"]))).expect("JSON");
    let out = stdout(&run(&["export", "--root", root, "--format", "json"]));
    let export: index::export::Export = serde_json::from_str(&out).expect("reads back");
    assert_eq!(export.version, index::export::EXPORT_VERSION);
    assert_eq!(Value::from(export.files.len()), summary["files"]);
    assert_eq!(Value::from(export.references.len()), summary["references"]);
    assert_eq!(Value::from(export.relations.len()), summary["relations"]);
    assert!(
        export
            .symbols
            .iter()
            .any(|s| s.id == "app/billing.py:6:Admin.promote"
                && s.parent.as_deref() == Some("app/billing.py:5:Admin"))
    );
}

/// (path:line role status target) of each JSON `refs` entry.
fn refs_json(root: &str, target: &str) -> Vec<String> {
    let json: Value = serde_json::from_str(&stdout(&run(&[
        "refs", "--root", root, "--format", "json", target,
    ])))
    .expect("JSON");
    json["refs"]
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            format!(
                "{}:{} {}",
                r["path"].as_str().unwrap_or(""),
                r["line"],
                r["role"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// A TypeScript project with a tsconfig `paths` alias, a barrel `index.ts`
/// and `implements`: references, callers and the hierarchy through the CLI.
#[test]
fn typescript_project_end_to_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root_path = dir.path();
    write(
        root_path,
        "tsconfig.json",
        "{\n  // paths are relative to baseUrl\n  \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@models/*\": [\"src/models/*\"] } },\n}\n",
    );
    write(
        root_path,
        "src/models/user.ts",
        "export interface Saves {\n  save(): void;\n}\nexport class User implements Saves {\n  save(): void {}\n}\n",
    );
    write(
        root_path,
        "src/models/index.ts",
        "export * from './user';\n",
    );
    write(
        root_path,
        "src/app.ts",
        "import { User } from '@models/user';\nimport * as models from './models';\n\nexport function run(): void {\n  const u = new User();\n  u.save();\n  new models.User().save();\n}\n",
    );
    let root = root_path.to_str().expect("UTF-8 path");
    stdout(&run(&["index", root]));
    assert_eq!(
        refs_json(root, "src/models/user.ts:User"),
        [
            "src/app.ts:1 import",
            "src/app.ts:5 instantiate",
            "src/app.ts:7 instantiate"
        ]
    );
    let text = stdout(&run(&[
        "callers",
        "--root",
        root,
        "src/models/user.ts:User.save",
    ]));
    assert!(
        text.contains("L6:5 call u.save in run [inferred via receiver]"),
        "{text}"
    );
    let text = stdout(&run(&[
        "hierarchy",
        "--root",
        root,
        "src/models/user.ts:User",
    ]));
    assert!(text.contains("src/models/user.ts:1:Saves"), "{text}");
}

/// A Cargo workspace of two crates: `use` of the other crate by name, an
/// impl of a trait, `self.m()`.
#[test]
fn rust_workspace_end_to_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root_path = dir.path();
    write(
        root_path,
        "Cargo.toml",
        "[workspace]\nmembers = [\"core\", \"app\"]\n",
    );
    write(
        root_path,
        "core/Cargo.toml",
        "[package]\nname = \"my-core\"\n",
    );
    write(root_path, "core/src/lib.rs", "pub mod shapes;\n");
    write(
        root_path,
        "core/src/shapes.rs",
        "pub trait Area {\n    fn area(&self) -> f64;\n}\npub struct Square(pub f64);\nimpl Area for Square {\n    fn area(&self) -> f64 {\n        self.0 * self.0\n    }\n}\n",
    );
    write(root_path, "app/Cargo.toml", "[package]\nname = \"app\"\n");
    write(
        root_path,
        "app/src/main.rs",
        "use my_core::shapes::{Area, Square};\n\nfn main() {\n    let s = Square(2.0);\n    s.area();\n}\n",
    );
    let root = root_path.to_str().expect("UTF-8 path");
    stdout(&run(&["index", root]));
    assert_eq!(
        refs_json(root, "core/src/shapes.rs:Square"),
        [
            "app/src/main.rs:1 import",
            "app/src/main.rs:4 instantiate",
            "core/src/shapes.rs:5 type_use"
        ]
    );
    let text = stdout(&run(&[
        "hierarchy",
        "--root",
        root,
        "core/src/shapes.rs:Square",
    ]));
    assert!(text.contains("core/src/shapes.rs:1:Area"), "{text}");
    let json: Value = serde_json::from_str(&stdout(&run(&[
        "callers",
        "--root",
        root,
        "--format",
        "json",
        "core/src/shapes.rs:impl Area for Square.area",
    ])))
    .expect("JSON");
    let text = json.to_string();
    assert!(text.contains("app/src/main.rs"), "{text}");
}

#[test]
fn context_kind_siblings_lists_the_code_shaped_like_the_target() {
    let dir = project();
    let root = dir.path().to_str().expect("UTF-8 path");
    let text = stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:Admin.promote",
        "--kind",
        "siblings",
    ]));
    assert!(
        text.starts_with(
            "context of app/billing.py:6:Admin.promote (method Admin.promote), siblings\n\
             target: def promote(self)\n\
             2 siblings in app/billing.py and the other files of app/, best first:\n\n\
             1. app/billing.py:2:User.save L2-3\n   \
             def save(self)\n   \
             why (8): same kind · in base class User · arity 0 · same file\n    \
             def save(self):\n        pass\n"
        ),
        "{text}"
    );
    // The other class's method next; the package's functions, which share
    // only their family and arity with it, are left out.
    assert!(
        text.contains("\n2. app/accounts.py:2:User.save L2-3\n"),
        "{text}"
    );
    assert!(!text.contains("app/invoice.py:3:charge"), "{text}");

    let json: Value = serde_json::from_str(&stdout(&run(&[
        "context",
        "--root",
        root,
        "app/billing.py:Admin.promote",
        "--kind",
        "siblings",
        "--format",
        "json",
    ])))
    .expect("JSON");
    assert_eq!(json["kind"], "siblings");
    assert_eq!(json["siblings"][0]["id"], "app/billing.py:2:User.save");
    assert_eq!(json["siblings"][0]["score"], 8);

    // An id whose line moved is found by qualname, and stderr says so (from
    // a new-user trial: `refs` said it, `context` did not).
    let moved = run(&[
        "context",
        "--root",
        root,
        "app/billing.py:5:Admin.promote",
        "--kind",
        "siblings",
    ]);
    assert!(stdout(&moved).starts_with("context of app/billing.py:6:Admin.promote"));
    assert_eq!(
        String::from_utf8_lossy(&moved.stderr),
        "ast-outline: note: found by qualname: the id said line 5, Admin.promote now starts at line 6\n"
    );
}
