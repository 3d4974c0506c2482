//! Resolution of Rust projects given as (path, source) pairs, parsed by
//! lang-rust, with module paths from the module tree (`rust_modules`): each test states
//! which definition a reference must reach (cases checked by hand).

use lang_rust::RustOutline;
use outline_core::xref::{ModuleDecl, Role};
use outline_core::{Language, Outline, OutlineOptions};
use xref::{
    Definition, FileInput, ProjectConfig, Resolved, RustCrate, Status, Via, resolve_with,
    rust_modules,
};

/// Parses and resolves a project of the given crates.
mod common;
use common::{at, reported, target};

fn project_with(files: &[(&str, &str)], crates: &[(&str, &str)]) -> (Vec<FileInput>, Resolved) {
    let crates: Vec<RustCrate> = crates
        .iter()
        .map(|(name, dir)| RustCrate {
            name: (*name).to_owned(),
            dir: (*dir).to_owned(),
        })
        .collect();
    let parsed: Vec<_> = files
        .iter()
        .map(|(path, source)| {
            let (outline, facts) = RustOutline.outline_with_facts(
                path,
                Language::Rust,
                source,
                &OutlineOptions::default(),
            );
            assert!(facts.supported, "{path}");
            (path, outline, facts)
        })
        .collect();
    let declared: Vec<(&str, &[ModuleDecl])> = parsed
        .iter()
        .map(|(path, _, facts)| (**path, facts.modules.as_slice()))
        .collect();
    let modules = rust_modules(&declared, &crates);
    let inputs: Vec<FileInput> = parsed
        .iter()
        .zip(modules)
        .map(|((path, outline, facts), module)| FileInput {
            path: (**path).to_owned(),
            module,
            is_package: true,
            definitions: Definition::all_of(outline),
            facts: facts.clone(),
        })
        .collect();
    let resolved = resolve_with(
        &inputs,
        &ProjectConfig {
            rust_crates: crates,
            ..ProjectConfig::default()
        },
    );
    (inputs, resolved)
}

fn project(files: &[(&str, &str)]) -> (Vec<FileInput>, Resolved) {
    project_with(files, &[("app", "")])
}

#[test]
fn two_users_in_two_modules_each_resolve_to_their_own() {
    let p = project(&[
        (
            "src/lib.rs",
            "pub mod accounts;\npub mod billing;\nmod signup;\nmod invoice;\n",
        ),
        (
            "src/accounts.rs",
            "pub struct User;\n\nimpl User {\n    pub fn save(&self) {}\n}\n",
        ),
        (
            "src/billing/mod.rs",
            "pub struct User;\n\nimpl User {\n    pub fn save(&self) {}\n}\n",
        ),
        (
            "src/signup.rs",
            "use crate::accounts::User;\n\npub fn signup() -> User {\n    let u = User;\n    u.save();\n    u\n}\n",
        ),
        (
            "src/invoice.rs",
            "use super::billing::{self, User as Customer};\n\npub fn charge(user: &Customer) {\n    user.save();\n    let b = billing::User;\n    b.save();\n}\n",
        ),
    ]);
    let accounts = "src/accounts.rs:1:User";
    let billing = "src/billing/mod.rs:1:User";
    assert_eq!(target(&p, "src/signup.rs", 1, "User"), accounts);
    assert_eq!(target(&p, "src/signup.rs", 3, "User"), accounts);
    assert_eq!(at(&p, "src/signup.rs", 3, "User").2, Role::TypeUse);
    assert_eq!(
        target(&p, "src/signup.rs", 5, "save"),
        "src/accounts.rs:4:impl User.save"
    );
    assert_eq!(target(&p, "src/invoice.rs", 1, "User"), billing);
    assert_eq!(target(&p, "src/invoice.rs", 3, "Customer"), billing);
    assert_eq!(
        target(&p, "src/invoice.rs", 4, "save"),
        "src/billing/mod.rs:4:impl User.save"
    );
    assert_eq!(target(&p, "src/invoice.rs", 5, "User"), billing);
    assert_eq!(
        target(&p, "src/invoice.rs", 6, "save"),
        "src/billing/mod.rs:4:impl User.save"
    );
    assert!(!reported(&p, "src/signup.rs", 5, "u"));
}

#[test]
fn use_globs_renames_super_and_the_mod_tree() {
    let p = project(&[
        (
            "src/lib.rs",
            "pub mod util;\npub mod deep;\n\npub fn root() {}\n",
        ),
        (
            "src/util.rs",
            "pub fn helper() {}\npub const LIMIT: u32 = 3;\n",
        ),
        ("src/deep/mod.rs", "pub mod inner;\n"),
        (
            "src/deep/inner.rs",
            "use super::super::util::*;\nuse crate::root as top;\n\nfn run() -> u32 {\n    helper();\n    top();\n    crate::util::helper();\n    super::super::root();\n    self::local();\n    LIMIT\n}\n\nfn local() {}\n",
        ),
    ]);
    assert_eq!(
        target(&p, "src/deep/inner.rs", 5, "helper"),
        "src/util.rs:1:helper"
    );
    assert_eq!(
        target(&p, "src/deep/inner.rs", 6, "top"),
        "src/lib.rs:4:root"
    );
    assert_eq!(
        target(&p, "src/deep/inner.rs", 2, "root"),
        "src/lib.rs:4:root"
    );
    assert_eq!(
        target(&p, "src/deep/inner.rs", 7, "helper"),
        "src/util.rs:1:helper"
    );
    assert_eq!(
        target(&p, "src/deep/inner.rs", 8, "root"),
        "src/lib.rs:4:root"
    );
    assert_eq!(
        target(&p, "src/deep/inner.rs", 9, "local"),
        "src/deep/inner.rs:13:local"
    );
    assert_eq!(
        target(&p, "src/deep/inner.rs", 10, "LIMIT"),
        "src/util.rs:2:LIMIT"
    );
}

#[test]
fn impl_trait_for_type_self_and_supertraits() {
    let source = "\
pub trait Named {
    fn name(&self) -> String;
    fn greet(&self) -> String {
        self.name()
    }
}
pub trait Loud: Named {}
pub struct User {
    id: u32,
}
impl User {
    pub fn new() -> Self {
        Self::with_id(1)
    }
    fn with_id(id: u32) -> Self {
        User { id }
    }
    fn run(&self) {
        self.greet();
        let other = User::new();
        other.run();
    }
}
impl Named for User {
    fn name(&self) -> String {
        String::new()
    }
}
";
    let p = project(&[("src/lib.rs", source)]);
    assert_eq!(
        target(&p, "src/lib.rs", 13, "with_id"),
        "src/lib.rs:15:impl User.with_id"
    );
    assert_eq!(target(&p, "src/lib.rs", 16, "User"), "src/lib.rs:8:User");
    assert_eq!(at(&p, "src/lib.rs", 16, "User").2, Role::Instantiate);
    assert_eq!(
        target(&p, "src/lib.rs", 19, "greet"),
        "src/lib.rs:3:Named.greet"
    );
    assert_eq!(
        target(&p, "src/lib.rs", 20, "new"),
        "src/lib.rs:12:impl User.new"
    );
    assert_eq!(
        target(&p, "src/lib.rs", 21, "run"),
        "src/lib.rs:18:impl User.run"
    );
    assert_eq!(target(&p, "src/lib.rs", 24, "Named"), "src/lib.rs:1:Named");
    assert_eq!(at(&p, "src/lib.rs", 24, "Named").2, Role::Inherit);
    let mut relations: Vec<(&str, &str, &str)> =
        p.1.relations
            .iter()
            .map(|r| (r.subtype.as_str(), r.supertype.as_str(), r.kind.as_str()))
            .collect();
    relations.sort();
    assert_eq!(
        relations,
        [
            ("src/lib.rs:7:Loud", "src/lib.rs:1:Named", "inherits"),
            ("src/lib.rs:8:User", "src/lib.rs:1:Named", "implements"),
        ]
    );
    // `User { id }`: the shorthand names the field (its value, the
    // parameter `id`, is a local and not reported).
    assert_eq!(target(&p, "src/lib.rs", 16, "id"), "src/lib.rs:9:User.id");
}

#[test]
fn workspace_crates_by_name_and_shadowing_lets() {
    let p = project_with(
        &[
            ("core/src/lib.rs", "pub mod config;\n"),
            ("core/src/config.rs", "pub fn load() -> u32 {\n    1\n}\n"),
            (
                "cli/src/main.rs",
                "use my_core::config;\n\nfn main() {\n    let config = config::load();\n    println!(\"{}\", config);\n    std::process::exit(0);\n}\n",
            ),
        ],
        &[("my-core", "core"), ("cli", "cli")],
    );
    assert_eq!(
        target(&p, "cli/src/main.rs", 4, "load"),
        "core/src/config.rs:1:load"
    );
    let (status, module, _, _) = at(&p, "cli/src/main.rs", 1, "config");
    assert_eq!(
        (status, module.as_str()),
        (Status::Module, "core/src/config.rs")
    );
    // The `let` binding shadows the module from its statement on.
    assert!(!reported(&p, "cli/src/main.rs", 5, "config"));
    assert_eq!(at(&p, "cli/src/main.rs", 6, "exit").0, Status::External);
}

#[test]
fn a_file_with_syntax_errors_still_gives_facts() {
    let p = project(&[
        ("src/lib.rs", "mod ok;\nmod bad;\n"),
        ("src/ok.rs", "pub fn good() {}\n"),
        (
            "src/bad.rs",
            "use crate::ok::good;\n\nfn broken( {\n    good();\n}\n\nfn fine() {\n    good();\n}\n",
        ),
    ]);
    assert_eq!(target(&p, "src/bad.rs", 1, "good"), "src/ok.rs:1:good");
    assert_eq!(target(&p, "src/bad.rs", 8, "good"), "src/ok.rs:1:good");
}

/// A glob of an extern crate (`use std::io::*`) with a name it does not
/// resolve made resolution recurse forever (a stack overflow on 14 of 40
/// registry crates and on this repository, found by the new-user trial);
/// cycles of globs between modules (each `use super::*`-ing the other)
/// multiplied the work. Both end, and a name the globs do bring in still
/// resolves through them.
#[test]
fn globs_of_extern_crates_and_cycles_of_globs_end() {
    let p = project(&[
        (
            "src/lib.rs",
            "use std::io::*;\npub mod a;\npub mod b;\nfn f() { g(); }\n",
        ),
        (
            "src/a.rs",
            "use crate::b::*;\nuse std::fmt::*;\npub fn from_a() {}\nfn user() { from_b(); missing(); }\n",
        ),
        (
            "src/b.rs",
            "use crate::a::*;\npub use std::collections::*;\npub fn from_b() {}\nfn user() { from_a(); missing(); }\n",
        ),
    ]);
    // No definition of the project is named `g`: it is the glob's
    // (`std::io::*`), outside the project.
    assert_eq!(at(&p, "src/lib.rs", 4, "g").0, Status::External);
    assert_eq!(target(&p, "src/a.rs", 4, "from_b"), "src/b.rs:3:from_b");
    assert_eq!(target(&p, "src/b.rs", 4, "from_a"), "src/a.rs:3:from_a");
    assert_ne!(at(&p, "src/a.rs", 4, "missing").0, Status::Resolved);
}

/// `use core::fmt::{self, Debug}` binds `fmt` to the external module; its
/// uses (`fmt::Formatter`) are external, never the project's own `mod fmt`
/// (found by the new-user trial on anyhow: 51 false references).
#[test]
fn an_extern_module_bound_by_use_self_is_external_not_a_same_named_module() {
    let p = project(&[
        ("src/lib.rs", "mod fmt;\nmod other;\n"),
        ("src/fmt.rs", "pub struct Formatter;\n"),
        (
            "src/other.rs",
            "use core::fmt::{self, Debug};\n\npub fn show(f: &mut fmt::Formatter) -> fmt::Result {\n    Ok(())\n}\n",
        ),
    ]);
    assert_eq!(at(&p, "src/other.rs", 1, "fmt").0, Status::External);
    assert_eq!(at(&p, "src/other.rs", 3, "fmt").0, Status::External);
    assert_eq!(at(&p, "src/other.rs", 3, "Formatter").0, Status::External);
    assert_eq!(at(&p, "src/other.rs", 4, "Ok").0, Status::External);
}

#[test]
fn path_attributes_place_modules_where_rustc_loads_them() {
    // `sys` is `src/sys/unix.rs` (the first of two `#[cfg]`-gated
    // declarations), `generated` the directory `src/gen`, and a `#[path]`
    // file's own `mod helpers;` is beside it (`src/imp/helpers.rs`). Every
    // name is defined twice, so only the module tree can tell them apart.
    let p = project(&[
        (
            "src/lib.rs",
            "#[cfg(unix)]\n#[path = \"sys/unix.rs\"]\nmod sys;\n#[cfg(windows)]\n#[path = \"sys/windows.rs\"]\nmod sys;\n\n#[path = \"gen\"]\npub mod generated {\n    pub mod types;\n}\n\n#[path = \"imp/posix.rs\"]\nmod backend;\npub mod api;\n",
        ),
        ("src/sys/unix.rs", "pub fn open() {}\n"),
        ("src/sys/windows.rs", "pub fn open() {}\n"),
        ("src/gen/types.rs", "pub struct Id;\n"),
        ("src/generated/types.rs", "pub struct Id;\n"),
        ("src/imp/posix.rs", "pub mod helpers;\n"),
        ("src/imp/helpers.rs", "pub fn fd() {}\n"),
        ("src/imp/posix/helpers.rs", "pub fn fd() {}\n"),
        (
            "src/api.rs",
            "use crate::sys::open;\nuse crate::generated::types::Id;\n\npub fn run(_id: Id) {\n    open();\n    crate::backend::helpers::fd();\n}\n",
        ),
    ]);
    assert_eq!(
        target(&p, "src/api.rs", 1, "open"),
        "src/sys/unix.rs:1:open"
    );
    assert_eq!(
        target(&p, "src/api.rs", 5, "open"),
        "src/sys/unix.rs:1:open"
    );
    assert_eq!(target(&p, "src/api.rs", 2, "Id"), "src/gen/types.rs:1:Id");
    assert_eq!(target(&p, "src/api.rs", 4, "Id"), "src/gen/types.rs:1:Id");
    assert_eq!(target(&p, "src/api.rs", 6, "fd"), "src/imp/helpers.rs:1:fd");
    let module = |path: &str| {
        p.0.iter()
            .find(|f| f.path == path)
            .and_then(|f| f.module.clone())
    };
    assert_eq!(module("src/sys/windows.rs").as_deref(), Some("app.sys"));
    // Not declared by any `mod`, and its layout module is `gen/types.rs`'s.
    assert_eq!(module("src/generated/types.rs"), None);
}

/// The relations of `p` as (subtype, supertype, kind), sorted.
fn relations(p: &(Vec<FileInput>, Resolved)) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> =
        p.1.relations
            .iter()
            .map(|r| (r.subtype.clone(), r.supertype.clone(), r.kind.clone()))
            .collect();
    out.sort();
    out
}

#[test]
fn a_glob_import_yields_to_a_local_item_of_the_same_name() {
    // Rust reference, "Use declarations": items and named imports shadow
    // glob imports.
    let p = project(&[
        (
            "src/lib.rs",
            "pub mod models;\npub mod other;\npub mod app;\npub mod named;\n",
        ),
        (
            "src/models.rs",
            "pub struct User;\npub fn helper() {}\npub fn save() {}\n",
        ),
        ("src/other.rs", "pub fn save() {}\n"),
        (
            "src/app.rs",
            "use crate::models::*;\n\npub struct User;\n\npub fn run() -> User {\n    helper();\n    User\n}\n",
        ),
        (
            "src/named.rs",
            "use crate::models::*;\nuse crate::other::save;\n\npub fn go() {\n    save();\n    crate::app::User;\n}\n",
        ),
    ]);
    assert_eq!(target(&p, "src/app.rs", 5, "User"), "src/app.rs:3:User");
    assert_eq!(target(&p, "src/app.rs", 7, "User"), "src/app.rs:3:User");
    assert_eq!(
        target(&p, "src/app.rs", 6, "helper"),
        "src/models.rs:2:helper"
    );
    assert_eq!(target(&p, "src/named.rs", 5, "save"), "src/other.rs:1:save");
    assert_eq!(target(&p, "src/named.rs", 6, "User"), "src/app.rs:3:User");
}

#[test]
fn a_path_through_an_inline_child_module_resolves() {
    let p = project(&[
        (
            "src/lib.rs",
            "pub mod other;\n\nmod b {\n    pub struct User;\n    pub mod c {\n        pub fn make() {}\n    }\n}\n\npub fn run() -> b::User {\n    b::c::make();\n    self::b::User\n}\n",
        ),
        ("src/other.rs", "pub struct User;\npub fn make() {}\n"),
    ]);
    assert_eq!(target(&p, "src/lib.rs", 10, "User"), "src/lib.rs:4:b.User");
    assert_eq!(
        target(&p, "src/lib.rs", 11, "make"),
        "src/lib.rs:6:b.c.make"
    );
    assert_eq!(target(&p, "src/lib.rs", 12, "User"), "src/lib.rs:4:b.User");
}

#[test]
fn path_qualified_supertraits_and_implemented_traits_resolve() {
    let p = project(&[
        ("src/lib.rs", "pub mod x;\npub mod y;\npub mod app;\n"),
        ("src/x.rs", "pub trait B {}\n"),
        ("src/y.rs", "pub trait B {}\n"),
        (
            "src/app.rs",
            "use crate::x;\n\npub trait A: crate::x::B {}\n\npub struct T;\n\nimpl x::B for T {}\nimpl super::y::B for T {}\n",
        ),
    ]);
    assert_eq!(target(&p, "src/app.rs", 3, "B"), "src/x.rs:1:B");
    assert_eq!(target(&p, "src/app.rs", 7, "B"), "src/x.rs:1:B");
    assert_eq!(target(&p, "src/app.rs", 8, "B"), "src/y.rs:1:B");
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        relations(&p),
        [
            s("src/app.rs:3:A", "src/x.rs:1:B", "inherits"),
            s("src/app.rs:5:T", "src/x.rs:1:B", "implements"),
            s("src/app.rs:5:T", "src/y.rs:1:B", "implements"),
        ]
    );
}

#[test]
fn inside_inline_modules_own_items_come_first_and_super_leaves_them() {
    // `mod tests { use super::*; fn helper() {} }` calls its own `helper`
    // (items shadow glob imports); `super::b::User` from `mod c` is the
    // file's `b`; `b::User` inside `mod a` is `a`'s child `b`.
    let p = project(&[
        ("src/lib.rs", "pub mod m;\npub mod other;\n"),
        (
            "src/m.rs",
            "pub fn helper() {}\n\nmod tests {\n    use super::*;\n    fn helper() {}\n    fn t() {\n        helper();\n    }\n}\n\nmod b {\n    pub struct User;\n}\n\nmod c {\n    pub fn f() -> super::b::User {\n        self::d::make();\n        super::b::User\n    }\n    mod d {\n        pub fn make() {}\n    }\n}\n\nmod a {\n    mod b {\n        pub struct User;\n    }\n    fn g(_u: b::User) {}\n}\n",
        ),
        (
            "src/other.rs",
            "pub struct User;\npub fn helper() {}\npub fn make() {}\n",
        ),
    ]);
    assert_eq!(
        target(&p, "src/m.rs", 7, "helper"),
        "src/m.rs:5:tests.helper"
    );
    assert_eq!(target(&p, "src/m.rs", 16, "User"), "src/m.rs:12:b.User");
    assert_eq!(target(&p, "src/m.rs", 17, "make"), "src/m.rs:21:c.d.make");
    assert_eq!(target(&p, "src/m.rs", 18, "User"), "src/m.rs:12:b.User");
    assert_eq!(target(&p, "src/m.rs", 29, "User"), "src/m.rs:27:a.b.User");
}

#[test]
fn two_impl_blocks_of_the_same_trait_and_type_give_one_relation() {
    // anyhow has two `impl StdError for ContextError<…>` blocks (under
    // different bounds): the export listed the relation twice.
    let p = project(&[(
        "lib.rs",
        "pub trait Show {}\npub struct Wrap<T>(T);\n\
         impl Show for Wrap<u8> {}\nimpl Show for Wrap<u16> {}\n",
    )]);
    assert_eq!(
        relations(&p),
        [(
            "lib.rs:2:Wrap".to_owned(),
            "lib.rs:1:Show".to_owned(),
            "implements".to_owned()
        )]
    );
}

/// A module declared with `mod x;` is in scope in the module that declares
/// it: `util::helper()` after `mod util;` (found by the new-user trial:
/// a candidate with nothing found, while `self::util::helper()` resolved),
/// also in a module that is not the crate root, and `pub mod` alike.
#[test]
fn a_module_declared_in_the_file_is_a_path_head() {
    let p = project(&[
        (
            "src/lib.rs",
            "mod util;\npub mod outer;\npub fn top() { util::helper(); }\n",
        ),
        ("src/util.rs", "pub fn helper() {}\n"),
        (
            "src/outer.rs",
            "pub mod inner;\npub fn o() { inner::i(); inner::T::new(); }\n",
        ),
        (
            "src/outer/inner.rs",
            "pub struct T;\nimpl T {\n    pub fn new() -> T { T }\n}\npub fn i() {}\n",
        ),
    ]);
    assert_eq!(
        target(&p, "src/lib.rs", 3, "helper"),
        "src/util.rs:1:helper"
    );
    assert_eq!(target(&p, "src/outer.rs", 2, "i"), "src/outer/inner.rs:5:i");
    assert_eq!(
        target(&p, "src/outer.rs", 2, "new"),
        "src/outer/inner.rs:3:impl T.new"
    );
}

/// A parameter or a `let` typed with a module path (`&crate::m::T`,
/// `self::m::T`, `m::T` after `mod m;`) types its receiver, as `&T` after
/// `use crate::m::T` does (found by the new-user trial: a name-only
/// candidate).
#[test]
fn a_type_written_as_a_module_path_types_the_receiver() {
    let p = project(&[
        (
            "src/lib.rs",
            "pub mod m;\nuse crate::m::T as U;\npub fn p1(u: &crate::m::T) { u.go(); }\npub fn p2(u: &U) { u.go(); }\npub fn p3(u: &self::m::T) { u.go(); }\npub fn p4(u: m::T) { u.go(); }\npub fn p5() { let u: m::T = m::T; u.go(); }\n",
        ),
        (
            "src/m.rs",
            "pub struct T;\nimpl T {\n    pub fn go(&self) {}\n}\n",
        ),
    ]);
    for line in 3..=7 {
        assert_eq!(
            target(&p, "src/lib.rs", line, "go"),
            "src/m.rs:3:impl T.go",
            "line {line}"
        );
    }
}

#[test]
fn calls_through_crate_visible_re_exports_macro_items_and_associated_items() {
    // tokio's shape: `spawn_mandatory_blocking` is defined in
    // runtime/blocking/pool.rs and re-exported twice with `pub(crate) use`.
    let p = project(&[
        (
            "src/lib.rs",
            "mod runtime;\nmod task;\nmacro_rules! cfg_rt { ($($item:item)*) => { $($item)* } }\ncfg_rt! {\n    pub fn spawn() {}\n}\npub fn top() { spawn(); }\n",
        ),
        (
            "src/runtime/mod.rs",
            "mod blocking;\npub(crate) use blocking::spawn_mandatory_blocking;\npub(crate) use self::blocking::{Pool, *};\n",
        ),
        (
            "src/runtime/blocking/mod.rs",
            "mod pool;\npub(crate) use pool::{spawn_mandatory_blocking, Pool};\n",
        ),
        (
            "src/runtime/blocking/pool.rs",
            "pub(crate) struct Pool;\nimpl Pool {\n    pub(crate) fn new() -> Self { Pool }\n    pub(crate) fn run(&self) {}\n}\npub(crate) fn spawn_mandatory_blocking() {}\n",
        ),
        (
            "src/task.rs",
            "use crate::runtime::spawn_mandatory_blocking;\nuse crate::runtime::Pool;\nfn go() {\n    spawn_mandatory_blocking();\n    crate::runtime::spawn_mandatory_blocking();\n    let p = Pool::new();\n    p.run();\n    Pool::new().run();\n    crate::spawn();\n}\n",
        ),
    ]);
    let spawn = "src/runtime/blocking/pool.rs:6:spawn_mandatory_blocking";
    assert_eq!(
        target(&p, "src/task.rs", 1, "spawn_mandatory_blocking"),
        spawn
    );
    assert_eq!(
        target(&p, "src/task.rs", 4, "spawn_mandatory_blocking"),
        spawn
    );
    assert_eq!(
        target(&p, "src/task.rs", 5, "spawn_mandatory_blocking"),
        spawn
    );
    assert_eq!(
        target(&p, "src/task.rs", 6, "new"),
        "src/runtime/blocking/pool.rs:3:impl Pool.new"
    );
    assert_eq!(
        target(&p, "src/task.rs", 7, "run"),
        "src/runtime/blocking/pool.rs:4:impl Pool.run"
    );
    assert_eq!(
        target(&p, "src/task.rs", 8, "run"),
        "src/runtime/blocking/pool.rs:4:impl Pool.run"
    );
    assert_eq!(
        target(&p, "src/task.rs", 9, "spawn"),
        "src/lib.rs:5:cfg_rt!.spawn"
    );
    assert_eq!(
        target(&p, "src/lib.rs", 7, "spawn"),
        "src/lib.rs:5:cfg_rt!.spawn"
    );
}

#[test]
fn re_exports_written_inside_cfg_macros_reach_the_definition() {
    // tokio 1.54's real shape: every `use` of the chain, the `mod` of the
    // modules and the definition are inside `cfg_*! { … }` invocations;
    // `spawn_mandatory_blocking` had no caller before they were read.
    let p = project(&[
        (
            "src/lib.rs",
            "macro_rules! cfg_rt { ($($item:item)*) => { $($item)* } }\nmod blocking;\ncfg_rt! {\n    pub mod runtime;\n}\ncfg_fs! {\n    pub mod fs;\n}\n",
        ),
        (
            "src/blocking.rs",
            "cfg_rt! {\n    cfg_io_blocking! {\n        pub(crate) use crate::runtime::spawn_mandatory_blocking;\n    }\n    #[cfg(target_os = \"emscripten\")]\n    pub(crate) fn spawn_mandatory_blocking() {}\n}\n",
        ),
        (
            "src/runtime/mod.rs",
            "cfg_rt! {\n    mod blocking;\n    cfg_io_blocking! {\n        pub(crate) use blocking::spawn_mandatory_blocking;\n    }\n}\n",
        ),
        (
            "src/runtime/blocking/mod.rs",
            "mod pool;\ncfg_io_blocking! {\n    pub(crate) use pool::spawn_mandatory_blocking;\n}\n",
        ),
        (
            "src/runtime/blocking/pool.rs",
            "cfg_io_blocking! {\n    pub(crate) fn spawn_mandatory_blocking() {}\n}\n",
        ),
        ("src/fs/mod.rs", "mod file;\n"),
        (
            "src/fs/file.rs",
            "use crate::blocking::spawn_mandatory_blocking;\nfn read() {\n    spawn_mandatory_blocking();\n}\ncfg_fs! {\n    fn write() {\n        spawn_mandatory_blocking();\n    }\n}\n",
        ),
    ]);
    let spawn = "src/runtime/blocking/pool.rs:2:cfg_io_blocking!.spawn_mandatory_blocking";
    assert_eq!(
        target(&p, "src/fs/file.rs", 3, "spawn_mandatory_blocking"),
        spawn
    );
    // A call inside a function written in a macro invocation.
    assert_eq!(
        target(&p, "src/fs/file.rs", 7, "spawn_mandatory_blocking"),
        spawn
    );
    let (_, _, role, _) = at(&p, "src/fs/file.rs", 7, "spawn_mandatory_blocking");
    assert_eq!(role, Role::Call);
    // The emscripten shim beside the re-export (a `#[cfg]` alternative) is
    // not taken for the module's name: the re-export is.
    // Each `use` of the chain, inside its macro.
    assert_eq!(
        target(&p, "src/blocking.rs", 3, "spawn_mandatory_blocking"),
        spawn
    );
    assert_eq!(
        target(&p, "src/runtime/mod.rs", 4, "spawn_mandatory_blocking"),
        spawn
    );
    assert_eq!(
        target(
            &p,
            "src/runtime/blocking/mod.rs",
            3,
            "spawn_mandatory_blocking"
        ),
        spawn
    );
}

#[test]
fn crate_names_generic_parameters_inline_module_imports_and_outside_names() {
    let p = project_with(
        &[
            (
                "src/lib.rs",
                "pub mod runtime;\nmod loom;\nuse crate::loom::sync::Arc;\npub struct Slab<T, const N: usize> {\n    slots: [Option<T>; N],\n    shared: Arc<u8>,\n}\npub fn go(x: Slab<u8, 4>) {\n    x.slots.len();\n    libc::close(1);\n}\n",
            ),
            (
                "src/runtime.rs",
                "pub struct Builder;\nimpl Builder {\n    pub fn new() -> Self { Builder }\n}\n",
            ),
            (
                "src/loom.rs",
                "pub(crate) mod sync {\n    pub(crate) use std::sync::Arc;\n    pub(crate) use crate::runtime::Builder;\n}\n",
            ),
            (
                "tests/rt.rs",
                "fn main() {\n    tokio::runtime::Builder::new();\n    let b = tokio::loom::sync::Builder::new();\n}\n",
            ),
        ],
        &[("tokio", "")],
    );
    // The crate by name, from an integration test, and a path through the
    // `pub mod runtime;` declaration of lib.rs into runtime.rs.
    assert_eq!(at(&p, "tests/rt.rs", 2, "tokio").0, Status::Module);
    assert_eq!(at(&p, "tests/rt.rs", 2, "tokio").1, "src/lib.rs");
    assert_eq!(
        target(&p, "tests/rt.rs", 2, "Builder"),
        "src/runtime.rs:1:Builder"
    );
    assert_eq!(
        target(&p, "tests/rt.rs", 2, "new"),
        "src/runtime.rs:3:impl Builder.new"
    );
    // An import inside an inline module is its member.
    assert_eq!(
        target(&p, "tests/rt.rs", 3, "Builder"),
        "src/runtime.rs:1:Builder"
    );
    assert_eq!(at(&p, "src/lib.rs", 3, "Arc").0, Status::External);
    assert_eq!(at(&p, "src/lib.rs", 6, "Arc").0, Status::External);
    // Generic parameters of a struct are no references.
    assert!(!reported(&p, "src/lib.rs", 5, "T"));
    assert!(!reported(&p, "src/lib.rs", 5, "N"));
    // Names no project definition has: the standard library's or a
    // dependency's.
    assert_eq!(at(&p, "src/lib.rs", 9, "len").0, Status::External);
    assert_eq!(at(&p, "src/lib.rs", 10, "libc").0, Status::External);
    assert_eq!(at(&p, "src/lib.rs", 10, "close").0, Status::External);
}

#[test]
fn trait_methods_through_bounds_impl_dyn_and_associated_items() {
    let p = project(&[
        ("src/lib.rs", "pub mod io;\npub mod pool;\nmod user;\n"),
        (
            "src/io.rs",
            "pub trait AsyncRead {\n    fn poll_read(&mut self);\n    fn read_all(&mut self) { self.poll_read(); }\n}\n",
        ),
        (
            "src/pool.rs",
            "pub struct Pool;\nimpl Pool {\n    pub const MAX: usize = 4;\n    pub fn new() -> Self { Self::with(Self::MAX) }\n    fn with(n: usize) -> Self { Pool }\n}\nimpl crate::io::AsyncRead for Pool {\n    fn poll_read(&mut self) {}\n}\n",
        ),
        (
            "src/user.rs",
            "use crate::io::AsyncRead;\nuse crate::pool::Pool;\nfn generic<T: AsyncRead>(x: &mut T) {\n    x.read_all();\n}\nfn bounded<R>(r: R) where R: AsyncRead + Send {\n    r.poll_read();\n}\nfn opaque(a: impl AsyncRead, b: &mut dyn AsyncRead) {\n    a.read_all();\n    b.poll_read();\n}\nfn concrete(mut p: Pool) {\n    p.poll_read();\n    p.read_all();\n    let n = Pool::MAX;\n}\n",
        ),
    ]);
    let trait_read = "src/io.rs:2:AsyncRead.poll_read";
    let trait_all = "src/io.rs:3:AsyncRead.read_all";
    // A receiver of a bounded generic type, `impl Trait` or `dyn Trait`:
    // the trait's method, as rust-analyzer answers.
    assert_eq!(target(&p, "src/user.rs", 4, "read_all"), trait_all);
    assert_eq!(target(&p, "src/user.rs", 7, "poll_read"), trait_read);
    assert_eq!(target(&p, "src/user.rs", 10, "read_all"), trait_all);
    assert_eq!(target(&p, "src/user.rs", 11, "poll_read"), trait_read);
    // A concrete type: the impl's method, else the trait's default.
    assert_eq!(
        target(&p, "src/user.rs", 14, "poll_read"),
        "src/pool.rs:8:impl crate::io::AsyncRead for Pool.poll_read"
    );
    assert_eq!(target(&p, "src/user.rs", 15, "read_all"), trait_all);
    // Associated consts and functions through `Self::` and `Type::`.
    assert_eq!(
        target(&p, "src/user.rs", 16, "MAX"),
        "src/pool.rs:3:impl Pool.MAX"
    );
    assert_eq!(
        target(&p, "src/pool.rs", 4, "with"),
        "src/pool.rs:5:impl Pool.with"
    );
    assert_eq!(
        target(&p, "src/pool.rs", 4, "MAX"),
        "src/pool.rs:3:impl Pool.MAX"
    );
    // `self.m()` in a trait's default method: the trait's own.
    assert_eq!(target(&p, "src/io.rs", 3, "poll_read"), trait_read);
}

#[test]
fn fields_typed_through_smart_pointers_give_their_methods() {
    let p = project(&[
        ("src/lib.rs", "mod chan;\nmod rx;\n"),
        (
            "src/chan.rs",
            "pub(crate) struct Chan;\nimpl Chan {\n    pub(crate) fn recv(&self) {}\n}\n",
        ),
        (
            "src/rx.rs",
            "use std::sync::Arc;\nuse crate::chan::Chan;\npub struct Rx {\n    inner: Arc<Chan>,\n    boxed: Box<Chan>,\n}\nimpl Rx {\n    fn recv(&self) {\n        self.inner.recv();\n        self.boxed.recv();\n    }\n}\nfn take(c: Arc<Chan>) {\n    c.recv();\n}\n",
        ),
    ]);
    let recv = "src/chan.rs:3:impl Chan.recv";
    assert_eq!(target(&p, "src/rx.rs", 9, "recv"), recv);
    assert_eq!(target(&p, "src/rx.rs", 10, "recv"), recv);
    assert_eq!(target(&p, "src/rx.rs", 14, "recv"), recv);
}

#[test]
fn lets_typed_by_unwrapped_constructors_and_function_results() {
    let p = project(&[
        ("src/lib.rs", "pub mod runtime;\nmod user;\n"),
        (
            "src/runtime.rs",
            "pub struct Runtime;\nimpl Runtime {\n    pub fn new() -> std::io::Result<Runtime> { Ok(Runtime) }\n    pub fn block_on(&self) {}\n}\npub fn make() -> Runtime { Runtime }\n",
        ),
        (
            "src/user.rs",
            "use crate::runtime::{self, Runtime};\nasync fn go() {\n    let a = Runtime::new().unwrap();\n    a.block_on();\n    let b = runtime::make();\n    b.block_on();\n    let make = runtime::make();\n    make.block_on();\n}\n",
        ),
    ]);
    let block_on = "src/runtime.rs:4:impl Runtime.block_on";
    assert_eq!(target(&p, "src/user.rs", 4, "block_on"), block_on);
    assert_eq!(target(&p, "src/user.rs", 6, "block_on"), block_on);
    assert_eq!(target(&p, "src/user.rs", 8, "block_on"), block_on);
}

#[test]
fn a_field_and_a_method_of_one_name_are_told_apart_by_the_call() {
    // tokio's DirBuilder has a field `recursive` and a method `recursive`.
    let p = project(&[
        ("src/lib.rs", "mod dir;\n"),
        (
            "src/dir.rs",
            "pub struct DirBuilder {\n    recursive: bool,\n}\nimpl DirBuilder {\n    pub fn recursive(&mut self, recursive: bool) -> &mut Self {\n        self.recursive = recursive;\n        self\n    }\n    fn go(&mut self, other: DirBuilder) {\n        self.recursive(true);\n        let flag = other.recursive;\n        let f = Self::recursive;\n    }\n}\n",
        ),
    ]);
    let field = "src/dir.rs:2:DirBuilder.recursive";
    let method = "src/dir.rs:5:impl DirBuilder.recursive";
    assert_eq!(target(&p, "src/dir.rs", 6, "recursive"), field);
    assert_eq!(target(&p, "src/dir.rs", 10, "recursive"), method);
    assert_eq!(target(&p, "src/dir.rs", 11, "recursive"), field);
    assert_eq!(target(&p, "src/dir.rs", 12, "recursive"), method);
}

#[test]
fn struct_literal_and_pattern_fields_and_macro_calls() {
    let p = project(&[
        (
            "src/lib.rs",
            "#[macro_use]\nmod macros;\nmod handle;\nmacro_rules! local { () => {} }\nlocal!();\n",
        ),
        (
            "src/macros.rs",
            "macro_rules! cfg_rt { ($($i:item)*) => { $($i)* } }\nmacro_rules! ready { ($e:expr) => { $e } }\n",
        ),
        (
            "src/handle.rs",
            "pub struct JoinHandle {\n    rx: u8,\n    id: u8,\n}\nimpl JoinHandle {\n    fn new(rx: u8) -> Self {\n        Self { rx, id: 0 }\n    }\n}\nfn read(h: JoinHandle) -> u8 {\n    let JoinHandle { rx, .. } = h;\n    ready!(rx);\n    println!(\"{}\", rx);\n    JoinHandle { rx, id: 1 }.id\n}\ncfg_rt! {\n    fn spawned() {}\n}\n",
        ),
    ]);
    let rx = "src/handle.rs:2:JoinHandle.rx";
    assert_eq!(target(&p, "src/handle.rs", 7, "rx"), rx);
    assert_eq!(
        target(&p, "src/handle.rs", 7, "id"),
        "src/handle.rs:3:JoinHandle.id"
    );
    assert_eq!(target(&p, "src/handle.rs", 11, "rx"), rx);
    assert_eq!(target(&p, "src/handle.rs", 14, "rx"), rx);
    // Macros: a `macro_rules!` of the file, one of another file (the only
    // definition of that name), the standard library's.
    assert_eq!(target(&p, "src/lib.rs", 5, "local"), "src/lib.rs:4:local");
    assert_eq!(
        target(&p, "src/handle.rs", 12, "ready"),
        "src/macros.rs:2:ready"
    );
    assert_eq!(
        target(&p, "src/handle.rs", 16, "cfg_rt"),
        "src/macros.rs:1:cfg_rt"
    );
    assert_eq!(at(&p, "src/handle.rs", 13, "println").0, Status::External);
}

#[test]
fn a_module_and_the_function_it_re_exports_share_a_name() {
    // tokio: `cfg_rt! { mod spawn; pub use spawn::spawn; }` in task/mod.rs,
    // `pub use task::spawn;` in lib.rs; an integration test calls
    // `tokio::spawn(…)` (found as the module spawn.rs before).
    let p = project_with(
        &[
            (
                "src/lib.rs",
                "pub mod task;\ncfg_rt! {\n    pub use task::spawn;\n}\n",
            ),
            (
                "src/task/mod.rs",
                "cfg_rt! {\n    mod spawn;\n    pub use spawn::spawn;\n}\n",
            ),
            ("src/task/spawn.rs", "cfg_rt! {\n    pub fn spawn() {}\n}\n"),
            (
                "tests/rt.rs",
                "fn main() {\n    tokio::spawn();\n    tokio::task::spawn();\n}\n",
            ),
        ],
        &[("tokio", "")],
    );
    let spawn = "src/task/spawn.rs:2:cfg_rt!.spawn";
    assert_eq!(target(&p, "tests/rt.rs", 2, "spawn"), spawn);
    assert_eq!(target(&p, "tests/rt.rs", 3, "spawn"), spawn);
}

#[test]
fn impls_inside_macros_with_inner_attributes_and_impl_where_clauses() {
    // tokio's fs/dir_builder.rs: `feature! { #![unix] impl DirBuilder { … } }`.
    let p = project(&[
        ("src/lib.rs", "mod dir;\nmod io;\n"),
        (
            "src/dir.rs",
            "pub struct DirBuilder;\nfeature! {\n    #![unix]\n    impl DirBuilder {\n        pub fn mode(&mut self) {}\n    }\n}\nfn go(mut d: DirBuilder) {\n    d.mode();\n}\n",
        ),
        (
            "src/io.rs",
            "pub trait AsyncRead {}\nimpl<P> AsyncRead for std::pin::Pin<P>\nwhere\n    P: AsyncRead,\n{\n}\n",
        ),
    ]);
    assert_eq!(
        target(&p, "src/dir.rs", 4, "DirBuilder"),
        "src/dir.rs:1:DirBuilder"
    );
    assert_eq!(
        target(&p, "src/dir.rs", 9, "mode"),
        "src/dir.rs:5:feature!.impl DirBuilder.mode"
    );
    assert_eq!(
        target(&p, "src/io.rs", 4, "AsyncRead"),
        "src/io.rs:1:AsyncRead"
    );
}

/// Items a project's own `macro_rules!` makes (no definition is written)
/// are dynamic, with the macro's definition as target: a name passed to a
/// body that defines an item from a fragment (`fn $name`), or an item of
/// the body's literal name (`struct Unit`), made at module level, in an
/// impl block or in another module (reached by path or import). A name
/// with a real definition stays resolved; macros of other crates
/// (`lazy_static!`, `thread_local!`) make nothing.
#[test]
fn items_made_by_a_project_macro_rules_are_dynamic_via_the_macro() {
    let p = project(&[
        (
            "src/lib.rs",
            "pub struct State { pub count: u32, pub size: u32 }\n\
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
             \n\
             impl State {\n\
             \x20   make_getter!(get_size, size);\n\
             }\n\
             \n\
             pub mod shapes;\n\
             pub mod user;\n\
             mod inner { make_getter!(plain, Some); }\n\
             lazy_static! { static ref GLOBAL: u32 = 1; }\n\
             thread_local!(static LOCAL: u32 = 1);\n\
             \n\
             pub fn plain() -> u32 { 1 }\n\
             \n\
             pub fn use_them(s: &State) -> u32 {\n\
             \x20   let _u = Unit;\n\
             \x20   let _g = (GLOBAL, LOCAL, Some(1));\n\
             \x20   s.get_size() + shapes::area(s) + plain()\n\
             \x20       + get_count(s)\n\
             }\n",
        ),
        (
            "src/shapes.rs",
            "use crate::State;\nmake_getter!(area, size);\n",
        ),
        (
            "src/user.rs",
            "use crate::shapes::area;\nuse crate::State;\n\npub fn measure(s: &State) -> u32 {\n    area(s)\n}\n",
        ),
        (
            "src/io.rs",
            "pub trait Read { fn read_it(&self); }\n\
             macro_rules! deref_read { () => { fn read_it(&self) {} } }\n\
             impl Read for Box<u8> { deref_read!(); }\n\
             pub fn go(r: &dyn Read, items: Vec<Box<u8>>) {\n\
             \x20   r.read_it();\n\
             \x20   items[0].read_it();\n\
             }\n",
        ),
    ]);
    let getter = "src/lib.rs:3:make_getter".to_owned();
    let unit = "src/lib.rs:10:make_unit".to_owned();
    assert_eq!(
        at(&p, "src/lib.rs", 29, "get_count"),
        (Status::Dynamic, getter.clone(), Role::Call, Via::Macro)
    );
    assert_eq!(
        at(&p, "src/lib.rs", 26, "Unit"),
        (Status::Dynamic, unit, Role::Read, Via::Macro)
    );
    assert_eq!(
        at(&p, "src/lib.rs", 28, "get_size"),
        (Status::Dynamic, getter.clone(), Role::Call, Via::Macro)
    );
    assert_eq!(
        at(&p, "src/lib.rs", 28, "area"),
        (Status::Dynamic, getter.clone(), Role::Call, Via::Macro)
    );
    assert_eq!(
        at(&p, "src/user.rs", 1, "area"),
        (Status::Dynamic, getter.clone(), Role::Import, Via::Macro)
    );
    assert_eq!(
        at(&p, "src/user.rs", 5, "area"),
        (Status::Dynamic, getter.clone(), Role::Call, Via::Macro)
    );
    // A real definition comes first, though `inner` passes the name too;
    // so does the prelude (`Some`, passed there as well).
    assert_eq!(target(&p, "src/lib.rs", 28, "plain"), "src/lib.rs:23:plain");
    // The invocation itself calls the macro.
    assert_eq!(target(&p, "src/lib.rs", 8, "make_getter"), getter);
    // A member of a value of unknown type that a definition of the
    // project has (the trait's method): the candidate stays; through a
    // known type, the static resolution.
    let read_it = "src/io.rs:1:Read.read_it".to_owned();
    assert_eq!(target(&p, "src/io.rs", 5, "read_it"), read_it);
    assert_eq!(
        at(&p, "src/io.rs", 6, "read_it"),
        (Status::Candidate, read_it, Role::Call, Via::NameImported)
    );
    // Macros from outside the project make nothing.
    assert_eq!(at(&p, "src/lib.rs", 27, "GLOBAL").0, Status::External);
    assert_eq!(at(&p, "src/lib.rs", 27, "LOCAL").0, Status::External);
    // A prelude name passed to a macro stays the prelude's.
    assert_eq!(at(&p, "src/lib.rs", 27, "Some").0, Status::External);
}
