//! `context --kind siblings` on small projects: a Python `handlers/`
//! package with a family of handler classes and unrelated helpers, a
//! TypeScript folder of hooks, Rust structs implementing the same trait;
//! the order, the reasons, the budget, and the answers without siblings.

use std::path::Path;

use index::Index;
use index::context::{ContextKind, Format, context_answer};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("directory");
    }
    std::fs::write(path, text).expect("written");
}

/// The project's files indexed, with the CLI's walk and parser.
fn indexed(root: &Path) -> Index {
    let mut index = Index::open(&root.join(index::DEFAULT_DB)).expect("open");
    let (entries, _) = index::open::entries(root);
    index
        .refresh(&entries, &index::open::parse)
        .expect("refresh");
    index
}

fn siblings(index: &Index, root: &Path, target: &str, budget: usize) -> String {
    context_answer(
        index,
        root,
        target,
        ContextKind::Siblings,
        budget,
        Format::Text,
    )
    .expect("answer")
}

/// A `handlers/` package: two handlers on a base class with `@route`, a
/// third in the target's own file, and helpers that are no handlers.
fn handlers(root: &Path) {
    write(root, "handlers/__init__.py", "");
    write(
        root,
        "handlers/base.py",
        "class BaseHandler:\n    def get(self, request):\n        raise NotImplementedError\n",
    );
    write(
        root,
        "handlers/routing.py",
        "def route(path):\n    def wrap(cls):\n        return cls\n    return wrap\n",
    );
    write(
        root,
        "handlers/user.py",
        "from .base import BaseHandler\n\
         from .routing import route\n\
         \n\
         \n\
         @route(\"/users\")\n\
         class UserHandler(BaseHandler):\n\
         \x20   def get(self, request, user_id):\n\
         \x20       return {\"user\": user_id}\n\
         \n\
         \x20   def post(self, request):\n\
         \x20       return {\"created\": True}\n\
         \n\
         \n\
         class UserCache:\n\
         \x20   def lookup(self, key):\n\
         \x20       return None\n",
    );
    write(
        root,
        "handlers/order.py",
        "from .base import BaseHandler\n\
         from .routing import route\n\
         \n\
         \n\
         @route(\"/orders\")\n\
         class OrderHandler(BaseHandler):\n\
         \x20   \"\"\"Orders by id.\"\"\"\n\
         \n\
         \x20   def get(self, request, order_id):\n\
         \x20       return {\"order\": order_id}\n\
         \n\
         \x20   def post(self, request):\n\
         \x20       return {\"created\": True}\n",
    );
    write(
        root,
        "handlers/health.py",
        "from .base import BaseHandler\n\
         \n\
         \n\
         class HealthHandler(BaseHandler):\n\
         \x20   def get(self, request):\n\
         \x20       return {\"ok\": True}\n",
    );
    write(
        root,
        "handlers/helpers.py",
        "class Config:\n    debug = False\n\n\ndef format_date(value):\n    return str(value)\n",
    );
    // Another directory: never a candidate.
    write(
        root,
        "admin/panel.py",
        "from handlers.base import BaseHandler\n\n\nclass AdminHandler(BaseHandler):\n    pass\n",
    );
}

/// The ids listed, in order.
fn listed(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". ")?;
            number.parse::<usize>().ok()?;
            // `ID L5-13`: ids may hold spaces (Rust impl blocks).
            rest.rsplit_once(" L").map(|(id, _)| id)
        })
        .collect()
}

#[test]
fn handler_classes_rank_their_family_first_with_reasons() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    handlers(root);
    let index = indexed(root);
    let text = siblings(&index, root, "handlers/user.py:UserHandler", 4000);
    insta::assert_snapshot!("python_handlers", text);
    assert_eq!(
        listed(&text),
        [
            "handlers/order.py:5:OrderHandler",
            "handlers/base.py:1:BaseHandler",
            "handlers/health.py:4:HealthHandler",
            "handlers/user.py:14:UserCache",
            "handlers/helpers.py:1:Config",
        ]
    );
    assert!(
        text.contains(
            "why (11): same kind · base BaseHandler · decorator @route · suffix Handler\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("why (9): same kind · target's base BaseHandler · suffix Handler\n"),
        "{text}"
    );
    // Only the first two come with code; the helpers and the other
    // directory's handler are below or absent.
    assert!(text.contains("@route(\"/orders\")\nclass OrderHandler(BaseHandler):\n"));
    assert!(!text.contains("AdminHandler"), "{text}");
    assert!(!text.contains("format_date"), "{text}");
}

#[test]
fn a_method_s_siblings_are_the_same_methods_of_sibling_classes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    handlers(root);
    let index = indexed(root);
    let text = siblings(&index, root, "handlers/user.py:UserHandler.get", 4000);
    let ids = listed(&text);
    assert_eq!(
        ids.first().copied(),
        Some("handlers/order.py:9:OrderHandler.get"),
        "{text}"
    );
    assert!(
        text.contains(
            "why (11): same kind · same name · sibling class (BaseHandler) · params request · arity 2\n"
        ),
        "{text}"
    );
    // The same class's post comes before the unrelated lookup.
    let post = ids
        .iter()
        .position(|id| *id == "handlers/user.py:10:UserHandler.post");
    let lookup = ids
        .iter()
        .position(|id| *id == "handlers/user.py:15:UserCache.lookup");
    assert!(
        post.is_some() && lookup.is_some() && post < lookup,
        "{text}"
    );
    // The method it overrides is named so.
    assert!(
        text.contains(
            "2. handlers/base.py:2:BaseHandler.get L2-3\n   def get(self, request)\n   \
             why (10): same kind · same name · in base class BaseHandler · params request\n"
        ),
        "{text}"
    );
    // Not the target itself.
    assert!(
        !ids.contains(&"handlers/user.py:7:UserHandler.get"),
        "{text}"
    );
}

#[test]
fn the_budget_holds_and_says_what_was_left_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    handlers(root);
    let index = indexed(root);
    let full = siblings(&index, root, "handlers/user.py:UserHandler", 4000);
    let full_tokens = ast_outline_budget::count(&full).expect("o200k_base");
    for budget in [full_tokens - 1, full_tokens / 2, 90] {
        let text = siblings(&index, root, "handlers/user.py:UserHandler", budget);
        let used = ast_outline_budget::count(&text).expect("o200k_base");
        assert!(used <= budget, "{used} > {budget}: {text}");
        assert!(
            text.contains("more left out to stay within the token budget]"),
            "{budget}: {text}"
        );
        assert!(text.starts_with(
            "context of handlers/user.py:5:UserHandler (class UserHandler), siblings\n\
             target: @route(\"/users\") class UserHandler(BaseHandler)\n"
        ));
    }
    let error = context_answer(
        &index,
        root,
        "handlers/user.py:UserHandler",
        ContextKind::Siblings,
        5,
        Format::Text,
    )
    .expect_err("too small");
    assert!(error.contains("too small"), "{error}");
}

#[test]
fn json_lists_the_siblings_with_scores_reasons_and_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    handlers(root);
    let index = indexed(root);
    let text = context_answer(
        &index,
        root,
        "handlers/user.py:UserHandler",
        ContextKind::Siblings,
        4000,
        Format::Json,
    )
    .expect("answer");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(json["kind"], "siblings");
    assert_eq!(json["target"]["id"], "handlers/user.py:5:UserHandler");
    assert_eq!(json["candidates"], 5);
    let first = &json["siblings"][0];
    assert_eq!(first["id"], "handlers/order.py:5:OrderHandler");
    assert_eq!(first["score"], 11);
    assert_eq!(
        first["reasons"],
        serde_json::json!([
            "same kind",
            "base BaseHandler",
            "decorator @route",
            "suffix Handler"
        ])
    );
    assert_eq!(first["code_end_line"], 13);
    assert!(json["siblings"][2]["code"].is_null());
    assert_eq!(json["cut"]["omitted"], 0);
}

#[test]
fn no_siblings_is_one_clear_line_and_a_bad_target_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "solo/only.py", "def main():\n    pass\n");
    write(root, "solo/data.py", "LIMIT = 3\n");
    let index = indexed(root);
    let text = siblings(&index, root, "solo/only.py:main", 4000);
    assert_eq!(
        text,
        "context of solo/only.py:1:main (function main), siblings\n\
         target: def main()\n\
         no siblings: no other function or method in solo/only.py and the other files of solo/\n"
    );
    let error = context_answer(
        &index,
        root,
        "solo/only.py:nothing",
        ContextKind::Siblings,
        4000,
        Format::Text,
    )
    .expect_err("no such target");
    assert!(error.contains("nothing"), "{error}");
}

#[test]
fn typescript_hooks_share_their_prefix_and_parameters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "src/hooks/useUser.ts",
        "export function useUser(id: string, options?: Options) {\n  return fetchOne('users', id);\n}\n",
    );
    write(
        root,
        "src/hooks/useOrder.ts",
        "export function useOrder(id: string, options?: Options) {\n  return fetchOne('orders', id);\n}\n",
    );
    write(
        root,
        "src/hooks/format.ts",
        "export function formatMoney(cents: number): string {\n  return `${cents / 100}`;\n}\n",
    );
    write(
        root,
        "src/hooks/UserView.ts",
        "export class UserView {\n  render(id: string) {\n    return id;\n  }\n}\n",
    );
    let index = indexed(root);
    let text = siblings(&index, root, "src/hooks/useUser.ts:useUser", 4000);
    assert_eq!(
        listed(&text),
        [
            "src/hooks/useOrder.ts:1:useOrder",
            "src/hooks/format.ts:1:formatMoney",
            "src/hooks/UserView.ts:2:UserView.render",
        ],
        "{text}"
    );
    assert!(
        text.contains(
            "why (14): same kind · hook (prefix use) · params id, options · types string, Options · arity 2\n"
        ),
        "{text}"
    );
    // From a new-user trial: a function sharing a hook's parameter ranked
    // above the other hooks.
    write(
        root,
        "src/hooks/useFetch.ts",
        "export function useFetch(url: string) {\n  return parseUrl(url);\n}\n\n\
         export function parseUrl(url: string) {\n  return url;\n}\n",
    );
    write(
        root,
        "src/hooks/useCounter.ts",
        "export function useCounter(start: number) {\n  return start;\n}\n",
    );
    let index = indexed(root);
    let text = siblings(&index, root, "src/hooks/useFetch.ts:useFetch", 4000);
    assert_eq!(
        listed(&text)[..4],
        [
            "src/hooks/useCounter.ts:1:useCounter",
            "src/hooks/useOrder.ts:1:useOrder",
            "src/hooks/useUser.ts:1:useUser",
            "src/hooks/useFetch.ts:5:parseUrl",
        ],
        "{text}"
    );
}

#[test]
fn rust_structs_implementing_the_same_trait_rank_first() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        root,
        "src/lib.rs",
        "pub mod shapes;\n\npub trait Shape {\n    fn area(&self) -> f64;\n}\n",
    );
    write(
        root,
        "src/shapes/mod.rs",
        "mod circle;\nmod square;\n\npub struct Registry {\n    names: Vec<String>,\n}\n",
    );
    write(
        root,
        "src/shapes/circle.rs",
        "use crate::Shape;\n\n#[derive(Debug)]\npub struct Circle {\n    r: f64,\n}\n\n\
         impl Shape for Circle {\n    fn area(&self) -> f64 {\n        3.14 * self.r * self.r\n    }\n}\n",
    );
    write(
        root,
        "src/shapes/square.rs",
        "use crate::Shape;\n\n#[derive(Debug)]\npub struct Square {\n    side: f64,\n}\n\n\
         impl Shape for Square {\n    fn area(&self) -> f64 {\n        self.side * self.side\n    }\n}\n\n\
         impl Square {\n    pub fn new(side: f64) -> Self {\n        Square { side }\n    }\n}\n",
    );
    let index = indexed(root);
    let text = siblings(&index, root, "src/shapes/circle.rs:Circle", 4000);
    assert_eq!(
        listed(&text),
        [
            "src/shapes/square.rs:3:Square",
            "src/shapes/mod.rs:4:Registry"
        ],
        "{text}"
    );
    assert!(
        text.contains("why (9): same kind · trait Shape · attribute #[derive]\n"),
        "{text}"
    );
    // A trait method's siblings: the same method of the other impl first.
    let text = siblings(
        &index,
        root,
        "src/shapes/circle.rs:impl Shape for Circle.area",
        4000,
    );
    let ids = listed(&text);
    assert_eq!(
        ids.first().copied(),
        Some("src/shapes/square.rs:9:impl Shape for Square.area"),
        "{text}"
    );
    assert!(
        text.contains("why (10): same kind · same name · sibling impl (Shape) · arity 0\n"),
        "{text}"
    );
}

/// From a new-user trial: a function's first parameter named `self` or
/// `cls` is a parameter (only a method has a receiver), so `one_self(self)`
/// and `one_cls(cls)` have arity 1, not `zero()`'s 0.
#[test]
fn a_function_s_self_or_cls_parameter_counts_toward_its_arity() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "m.py",
        "def zero():\n    pass\n\n\ndef one_self(self):\n    pass\n\n\ndef one_cls(cls):\n    pass\n\n\ndef one_x(x):\n    pass\n",
    );
    let index = indexed(root);
    let text = siblings(&index, root, "m.py:zero", 4000);
    assert!(!text.contains("arity 0"), "{text}");
    let text = siblings(&index, root, "m.py:one_x", 4000);
    for name in ["one_self", "one_cls"] {
        let line = text
            .lines()
            .skip_while(|l| !l.contains(&format!(":{name} ")))
            .nth(2)
            .unwrap_or_default();
        assert!(line.contains("arity 1"), "{name}: {line}\n{text}");
    }
}

/// From a new-user trial: the target's own base class had no reason of its
/// own, and functions with nothing but their family in common padded the
/// list of a method's siblings.
#[test]
fn a_type_s_base_and_subclass_are_named_and_kin_with_nothing_shared_is_left_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "jobs/__init__.py", "");
    write(
        root,
        "jobs/base.py",
        "class Base:\n    def run(self):\n        pass\n",
    );
    write(
        root,
        "jobs/nightly.py",
        "from .base import Base\n\n\nclass Job(Base):\n    def run(self):\n        pass\n\n\n\
         class NightlyJob(Job):\n    pass\n\n\ndef helper():\n    pass\n\n\ndef run(jobs):\n    pass\n",
    );
    let index = indexed(root);
    let text = siblings(&index, root, "jobs/nightly.py:Job", 4000);
    assert_eq!(
        listed(&text),
        ["jobs/nightly.py:9:NightlyJob", "jobs/base.py:1:Base"],
        "{text}"
    );
    assert!(
        text.contains("why (8): same kind · extends target · same file\n"),
        "{text}"
    );
    assert!(
        text.contains("why (7): same kind · target's base Base\n"),
        "{text}"
    );
    let text = siblings(&index, root, "jobs/nightly.py:Job.run", 4000);
    assert_eq!(
        listed(&text),
        ["jobs/base.py:2:Base.run", "jobs/nightly.py:17:run"],
        "{text}"
    );
    assert!(!text.contains("helper"), "{text}");
}

/// From a new-user trial: a nested function's first "sibling" was the
/// function holding it.
#[test]
fn a_nested_function_s_siblings_leave_out_what_holds_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        root,
        "web/routes.py",
        "def route(path):\n    def deco(f):\n        return f\n    return deco\n\n\n\
         def cached(f):\n    return f\n",
    );
    let index = indexed(root);
    let text = siblings(&index, root, "web/routes.py:route.deco", 4000);
    assert_eq!(listed(&text), ["web/routes.py:7:cached"], "{text}");
}
