//! Resolution of TypeScript/JavaScript projects given as (path, source)
//! pairs, parsed by lang-ts: each test states which definition a reference
//! must reach.

use lang_ts::TypeScriptOutline;
use outline_core::xref::Role;
use outline_core::{Language, Outline, OutlineOptions};
use xref::{
    Definition, FileInput, ProjectConfig, Resolved, Status, TsConfig, TsPackage, Via, resolve_with,
};

mod common;
use common::{at, reported, target};

fn language(path: &str) -> Language {
    if path.ends_with(".tsx") {
        Language::Tsx
    } else if path.ends_with(".ts") {
        Language::Typescript
    } else if path.ends_with(".jsx") {
        Language::Jsx
    } else {
        Language::Javascript
    }
}

/// Parses and resolves a project with the given tsconfigs.
fn project_with(files: &[(&str, &str)], configs: Vec<TsConfig>) -> (Vec<FileInput>, Resolved) {
    project_config(
        files,
        ProjectConfig {
            ts_configs: configs,
            ..ProjectConfig::default()
        },
    )
}

/// Parses and resolves a project with the given settings.
fn project_config(files: &[(&str, &str)], config: ProjectConfig) -> (Vec<FileInput>, Resolved) {
    let inputs: Vec<FileInput> = files
        .iter()
        .map(|(path, source)| {
            let (outline, facts) = TypeScriptOutline.outline_with_facts(
                path,
                language(path),
                source,
                &OutlineOptions::default(),
            );
            assert!(facts.supported, "{path}");
            let definitions = Definition::all_of(&outline);
            FileInput {
                path: (*path).to_owned(),
                module: None,
                is_package: false,
                definitions,
                facts,
            }
        })
        .collect();
    let resolved = resolve_with(&inputs, &config);
    (inputs, resolved)
}

fn project(files: &[(&str, &str)]) -> (Vec<FileInput>, Resolved) {
    project_with(files, Vec::new())
}

#[test]
fn two_users_in_two_modules_each_resolve_to_their_own() {
    let p = project(&[
        (
            "src/accounts/user.ts",
            "export class User {\n  save(): void {}\n}\n",
        ),
        (
            "src/billing/user.ts",
            "export class User {\n  save(): void {}\n}\n",
        ),
        (
            "src/signup.ts",
            "import { User } from './accounts/user';\n\nexport function signup(): User {\n  const u = new User();\n  u.save();\n  return u;\n}\n",
        ),
        (
            "src/invoice.ts",
            "import { User } from './billing/user.js';\n\nexport function charge(user: User) {\n  user.save();\n  return new User();\n}\n",
        ),
        (
            "src/both.js",
            "import * as accounts from './accounts/user';\nconst billing = require('./billing/user');\n\nconst x = new accounts.User();\nconst y = new billing.User();\n",
        ),
    ]);
    let accounts = "src/accounts/user.ts:1:User";
    let billing = "src/billing/user.ts:1:User";
    assert_eq!(target(&p, "src/signup.ts", 1, "User"), accounts);
    assert_eq!(target(&p, "src/signup.ts", 3, "User"), accounts);
    assert_eq!(at(&p, "src/signup.ts", 3, "User").2, Role::TypeUse);
    assert_eq!(at(&p, "src/signup.ts", 4, "User").2, Role::Instantiate);
    assert_eq!(target(&p, "src/signup.ts", 4, "User"), accounts);
    assert_eq!(
        target(&p, "src/signup.ts", 5, "save"),
        "src/accounts/user.ts:2:User.save"
    );
    assert_eq!(target(&p, "src/invoice.ts", 1, "User"), billing);
    assert_eq!(target(&p, "src/invoice.ts", 3, "User"), billing);
    assert_eq!(
        target(&p, "src/invoice.ts", 4, "save"),
        "src/billing/user.ts:2:User.save"
    );
    assert_eq!(target(&p, "src/invoice.ts", 5, "User"), billing);
    assert_eq!(target(&p, "src/both.js", 4, "User"), accounts);
    assert_eq!(target(&p, "src/both.js", 5, "User"), billing);
    // Every reference to a name `User` found one of the two, the right one.
    let mut seen = 0;
    for r in &p.1.references {
        let file = &p.0[r.file];
        if file.facts.references[r.reference].name != "User" {
            continue;
        }
        seen += 1;
        let expected = if file.path.contains("signup") || file.path.contains("accounts") {
            accounts
        } else if file.path.contains("invoice") {
            billing
        } else {
            continue;
        };
        assert_eq!(r.target.as_deref(), Some(expected), "in {}", file.path);
    }
    assert_eq!(seen, 8);
    // Locals (`u`, `user`) are not reported.
    assert!(!reported(&p, "src/signup.ts", 5, "u"));
    assert!(!reported(&p, "src/invoice.ts", 4, "user"));
}

#[test]
fn reexports_export_star_defaults_and_index_lookup() {
    let p = project(&[
        (
            "lib/model.ts",
            "export class Model {}\nexport function make() {}\n",
        ),
        ("lib/helpers.ts", "export function help() {}\n"),
        ("lib/widget.tsx", "export default class Widget {}\n"),
        (
            "lib/config.ts",
            "const config = {};\nexport default config;\n",
        ),
        (
            "lib/index.ts",
            "export { Model as BaseModel } from './model';\nexport * from './helpers';\nexport * as models from './model';\nexport { default as Widget } from './widget';\n",
        ),
        (
            "app.ts",
            "import { BaseModel, help, models, Widget } from './lib';\nimport config from './lib/config';\nimport W from './lib/widget';\n\nnew BaseModel();\nhelp();\nmodels.make();\nnew Widget();\nnew W();\nconsole.log(config);\n",
        ),
    ]);
    let model = "lib/model.ts:1:Model";
    assert_eq!(target(&p, "lib/index.ts", 1, "Model"), model);
    assert_eq!(target(&p, "app.ts", 1, "BaseModel"), model);
    assert_eq!(target(&p, "app.ts", 5, "BaseModel"), model);
    assert_eq!(at(&p, "app.ts", 5, "BaseModel").3, Via::Import);
    assert_eq!(target(&p, "app.ts", 6, "help"), "lib/helpers.ts:1:help");
    assert_eq!(target(&p, "app.ts", 7, "make"), "lib/model.ts:2:make");
    assert_eq!(target(&p, "app.ts", 8, "Widget"), "lib/widget.tsx:1:Widget");
    assert_eq!(target(&p, "app.ts", 9, "W"), "lib/widget.tsx:1:Widget");
    assert_eq!(target(&p, "app.ts", 3, "W"), "lib/widget.tsx:1:Widget");
    assert_eq!(target(&p, "app.ts", 10, "config"), "lib/config.ts:1:config");
    let (status, module, _, _) = at(&p, "app.ts", 7, "models");
    assert_eq!((status, module.as_str()), (Status::Module, "lib/model.ts"));
}

#[test]
fn tsconfig_paths_and_packages() {
    let p = project_with(
        &[
            ("web/src/app/user.ts", "export class User {}\n"),
            (
                "web/src/main.ts",
                "import { User } from '@app/user';\nimport { useState } from 'react';\n\nnew User();\nuseState();\n",
            ),
        ],
        vec![TsConfig {
            dir: "web".into(),
            base_url: Some("web".into()),
            paths: vec![("@app/*".into(), vec!["src/app/*".into()])],
            paths_dir: None,
        }],
    );
    assert_eq!(
        target(&p, "web/src/main.ts", 4, "User"),
        "web/src/app/user.ts:1:User"
    );
    assert_eq!(at(&p, "web/src/main.ts", 5, "useState").0, Status::External);
}

#[test]
fn this_through_extends_and_implements_relations() {
    let source = "\
export interface Named {
  name(): string;
}
export interface Labelled extends Named {}
export class Base {
  save(): void {}
}
export class User extends Base implements Labelled {
  name(): string {
    return 'u';
  }
  run(): void {
    this.save();
    const later = () => this.name();
    function plain(this: unknown) {
      return this;
    }
  }
}
";
    let p = project(&[("m.ts", source)]);
    assert_eq!(target(&p, "m.ts", 13, "save"), "m.ts:6:Base.save");
    assert_eq!(target(&p, "m.ts", 14, "name"), "m.ts:9:User.name");
    assert_eq!(at(&p, "m.ts", 8, "Base").2, Role::Inherit);
    let mut relations: Vec<(&str, &str, &str)> =
        p.1.relations
            .iter()
            .map(|r| (r.subtype.as_str(), r.supertype.as_str(), r.kind.as_str()))
            .collect();
    relations.sort();
    assert_eq!(
        relations,
        [
            ("m.ts:4:Labelled", "m.ts:1:Named", "inherits"),
            ("m.ts:8:User", "m.ts:4:Labelled", "implements"),
            ("m.ts:8:User", "m.ts:5:Base", "inherits"),
        ]
    );
}

#[test]
fn block_scopes_hoisting_and_parameters_shadow_module_names() {
    let source = "\
function helper() {}
function outer(helper: number) {
  helper;
}
function other() {
  if (true) {
    const helper = 1;
    helper;
  }
  helper();
  for (const helper of []) {
    helper;
  }
  try {} catch (helper) { helper; }
  var late;
  late;
  { var late = 2; }
}
{
  let shadow = 3;
  shadow;
}
helper();
";
    let p = project(&[("s.ts", source)]);
    for line in [3, 8, 12, 14] {
        assert!(!reported(&p, "s.ts", line, "helper"), "line {line}");
    }
    // A `let` in a module-level block is a local of the block.
    assert!(!reported(&p, "s.ts", 21, "shadow"));
    assert!(!reported(&p, "s.ts", 16, "late"));
    assert_eq!(target(&p, "s.ts", 10, "helper"), "s.ts:1:helper");
    assert_eq!(target(&p, "s.ts", 23, "helper"), "s.ts:1:helper");
    // The caller of the call on line 10 is `other`.
    let r = p.1.references.iter().find(|r| {
        let reference = &p.0[r.file].facts.references[r.reference];
        reference.line == 10
    });
    let caller = r
        .and_then(|r| p.0[r.file].facts.references[r.reference].scope.as_ref())
        .map(|s| s.id("s.ts"));
    assert_eq!(caller.as_deref(), Some("s.ts:5:other"));
}

#[test]
fn unknown_receivers_give_name_only_candidates() {
    let p = project(&[
        ("a.ts", "export class A {\n  close() {}\n}\n"),
        ("b.ts", "export class B {\n  close() {}\n}\n"),
        (
            "c.ts",
            "export function f(thing: any) {\n  thing.close();\n  get().close();\n}\n",
        ),
    ]);
    let (status, candidates, role, via) = at(&p, "c.ts", 2, "close");
    assert_eq!(status, Status::Candidate);
    assert_eq!(candidates, "a.ts:2:A.close b.ts:2:B.close");
    assert_eq!((role, via), (Role::Call, Via::NameOnly));
    assert_eq!(at(&p, "c.ts", 3, "close").0, Status::Candidate);
}

#[test]
fn commonjs_and_import_equals() {
    let p = project(&[
        ("lib.js", "function run() {}\nmodule.exports = { run };\n"),
        ("util.ts", "export function util() {}\n"),
        (
            "main.ts",
            "import u = require('./util');\nconst { run } = require('./lib');\nconst lib = require('./lib');\n\nu.util();\nrun();\nlib.run();\n",
        ),
    ]);
    assert_eq!(target(&p, "main.ts", 5, "util"), "util.ts:1:util");
    assert_eq!(target(&p, "main.ts", 6, "run"), "lib.js:1:run");
    assert_eq!(target(&p, "main.ts", 7, "run"), "lib.js:1:run");
}

#[test]
fn jsx_components_resolve() {
    let p = project(&[
        (
            "button.jsx",
            "export function Button() {\n  return <b />;\n}\n",
        ),
        (
            "page.jsx",
            "import { Button } from './button';\n\nexport const Page = () => <div><Button /></div>;\n",
        ),
    ]);
    assert_eq!(target(&p, "page.jsx", 3, "Button"), "button.jsx:1:Button");
}

#[test]
fn a_file_with_syntax_errors_still_gives_facts() {
    let p = project(&[
        ("ok.ts", "export function good() {}\n"),
        (
            "bad.ts",
            "import { good } from './ok';\n\nfunction broken() {\n  good(;\n}\n\ngood();\nexport class K {\n  m() {\n    good();\n  }\n}\n",
        ),
    ]);
    assert_eq!(target(&p, "bad.ts", 1, "good"), "ok.ts:1:good");
    // (The statement on line 7 goes with the broken function's recovery.)
    assert_eq!(target(&p, "bad.ts", 10, "good"), "ok.ts:1:good");
}

#[test]
fn typed_properties_parameter_properties_getters_and_call_results_as_receivers() {
    // The TypeScript 5.9 language service's go-to-definition at each
    // `start` (lines 14-18) gives `car.ts:2` (checked with the oracle's
    // typescript).
    let source = "\
export class Engine {
  start(): void {}
}
export function make(): Engine {
  return new Engine();
}
export class Car {
  private spare: Engine | null = null;
  constructor(private engine: Engine) {}
  get motor(): Engine {
    return this.engine;
  }
  go() {
    this.engine.start();
    this.spare!.start();
    make().start();
    new Engine().start();
    this.motor.start();
  }
}
";
    let p = project(&[("car.ts", source)]);
    for line in 14..=18 {
        assert_eq!(
            target(&p, "car.ts", line, "start"),
            "car.ts:2:Engine.start",
            "line {line}"
        );
    }
    let (_, _, role, via) = at(&p, "car.ts", 16, "start");
    assert_eq!((role, via), (Role::Call, Via::Receiver));
}

#[test]
fn interface_members_are_declarations_and_type_their_uses() {
    // `next` in the interface (line 2) is a declaration, not a reference;
    // `observer.next?.(v)` (line 7, `Partial<Observer>`) and
    // `target.sink.next` through a destructured parameter property (line
    // 14) reach it (language service: `obs.ts:2` for both).
    let source = "\
export interface Observer {
  next(value: number): void;
  sink: Observer;
}

export function notify(observer: Partial<Observer>, v: number) {
  observer.next?.(v);
}

export class Holder {
  constructor(private target: Observer) {}
  run() {
    const { target } = this;
    target.sink.next(1);
  }
}
";
    let p = project(&[("obs.ts", source)]);
    assert!(!reported(&p, "obs.ts", 2, "next"));
    assert_eq!(target(&p, "obs.ts", 7, "next"), "obs.ts:2:Observer.next");
    assert_eq!(target(&p, "obs.ts", 14, "next"), "obs.ts:2:Observer.next");
}

#[test]
fn workspace_packages_by_exports_and_paths_from_an_extended_tsconfig() {
    let p = project_config(
        &[
            (
                "packages/core/src/index.ts",
                "export { Engine } from './engine';\n",
            ),
            ("packages/core/src/engine.ts", "export class Engine {}\n"),
            (
                "packages/core/src/utils/clock.ts",
                "export function now() {}\n",
            ),
            ("shared/thing.ts", "export class Shared {}\n"),
            (
                "apps/web/main.ts",
                "import { Engine } from '@app/core';\nimport { now } from '@app/core/utils/clock';\nimport { Shared } from '@shared/thing';\nnew Engine();\nnow();\nnew Shared();\n",
            ),
        ],
        ProjectConfig {
            // `apps/web/tsconfig.json` extends `../../tsconfig.base.json`,
            // which declares the paths (relative to the root, its directory).
            ts_configs: vec![TsConfig {
                dir: "apps/web".into(),
                base_url: None,
                paths: vec![("@shared/*".into(), vec!["shared/*".into()])],
                paths_dir: Some(String::new()),
            }],
            // `packages/core/package.json`: the compiled `types` entry is not
            // a project file; `import` is.
            ts_packages: vec![TsPackage {
                name: "@app/core".into(),
                dir: "packages/core".into(),
                entries: vec![
                    "packages/core/dist/index.d.ts".into(),
                    "packages/core/src/index.ts".into(),
                ],
                subpaths: vec![(
                    "utils/*".into(),
                    vec!["packages/core/src/utils/*.ts".into()],
                )],
            }],
            ..ProjectConfig::default()
        },
    );
    assert_eq!(
        target(&p, "apps/web/main.ts", 4, "Engine"),
        "packages/core/src/engine.ts:1:Engine"
    );
    assert_eq!(
        target(&p, "apps/web/main.ts", 5, "now"),
        "packages/core/src/utils/clock.ts:1:now"
    );
    assert_eq!(
        target(&p, "apps/web/main.ts", 6, "Shared"),
        "shared/thing.ts:1:Shared"
    );
}

/// `super.m()` calls `m` of the base class, found through the bases as
/// Python's `super().m()` is (found by the new-user trial: no reference at
/// all, so callers of an overridden method missed every subclass that
/// delegates to it); `super.x` reads are attributes.
#[test]
fn super_members_resolve_through_the_bases() {
    let p = project(&[
        (
            "base.ts",
            "export class A { greet(): string { return 'a'; } }\nexport class B extends A { size = 1; }\n",
        ),
        (
            "sub.ts",
            "import { B } from './base';\nexport class S extends B {\n  constructor() { super(); }\n  greet(): string { return super.greet() + super.size; }\n}\n",
        ),
    ]);
    assert_eq!(target(&p, "sub.ts", 4, "greet"), "base.ts:1:A.greet");
    let (status, found, role, _) = at(&p, "sub.ts", 4, "size");
    assert_eq!(
        (status, found.as_str(), role),
        (Status::Resolved, "base.ts:2:B.size", Role::Attribute)
    );
}

/// The key of a mapped type (`[K in keyof X]`) and an `infer U` are type
/// parameters, not references to a project's `K` or `U` (found re-measuring
/// against the TypeScript language service on rxjs: a mapped type's `K`
/// resolved, as the only definition of that name, to a minified bundle's
/// function `K`).
#[test]
fn mapped_type_keys_and_inferred_types_are_type_parameters() {
    let p = project(&[
        ("bundle.js", "function K() {}\nfunction U() {}\n"),
        (
            "types.ts",
            "export type Values<X> = { [K in keyof X]: X[K] };\nexport type Elem<T> = T extends Array<infer U> ? U : K;\n",
        ),
    ]);
    assert!(!reported(&p, "types.ts", 1, "K"));
    assert!(!reported(&p, "types.ts", 2, "U"));
    // Outside the true branch, `K` is the project's again.
    assert_eq!(target(&p, "types.ts", 2, "K"), "bundle.js:1:K");
}

#[test]
fn names_of_a_multi_line_import_and_re_export_are_at_their_own_lines() {
    let p = project(&[
        (
            "src/models.ts",
            "export class User {}\nexport function make(): User {\n  return new User();\n}\n",
        ),
        (
            "src/app.ts",
            "import {\n  User,\n  make as build,\n} from './models';\nexport {\n  make,\n} from './models';\nconst u: User = build();\n",
        ),
    ]);
    assert_eq!(target(&p, "src/app.ts", 2, "User"), "src/models.ts:1:User");
    assert_eq!(target(&p, "src/app.ts", 3, "make"), "src/models.ts:2:make");
    assert_eq!(target(&p, "src/app.ts", 6, "make"), "src/models.ts:2:make");
    assert_eq!(target(&p, "src/app.ts", 8, "build"), "src/models.ts:2:make");
    assert_eq!(at(&p, "src/app.ts", 2, "User").2, Role::Import);
}

#[test]
fn receivers_typed_by_constraints_this_parameters_promises_and_elements() {
    let source = "\
export class Svc { run(): void {} }
export function make(): Svc { return new Svc(); }
export interface Box<T extends Svc = Svc> { item: T }
export function use<T extends Svc>(x: T) { x.run(); }
function f(this: Svc) { this.run(); }
async function g() { const u = await makeAsync(); u.run(); }
export async function makeAsync(): Promise<Svc> { return new Svc(); }
const list: Svc[] = [];
for (const it of list) it.run();
list.map(x => x.run());
list.forEach(function (x) { x.run(); });
list.reduce((acc, x) => { x.run(); return acc; }, 0);
class Holder { items: ReadonlyArray<Svc> = []; all() { for (const i of this.items) i.run(); this.items.filter(y => y.run()); } }
const names: string[] = [];
names.map(n => n.run());
for (const k in list) k.run();
list.sort((a) => a.run());
";
    let p = project(&[("a.ts", source)]);
    let run = "a.ts:1:Svc.run";
    // `T extends Svc = Svc`: the constraint and the default are uses.
    let uses_on_3 =
        p.1.references
            .iter()
            .filter(|r| {
                let reference = &p.0[r.file].facts.references[r.reference];
                reference.line == 3 && reference.name == "Svc"
            })
            .count();
    assert_eq!(uses_on_3, 2);
    assert_eq!(target(&p, "a.ts", 4, "Svc"), "a.ts:1:Svc");
    assert_eq!(target(&p, "a.ts", 4, "run"), run);
    assert_eq!(target(&p, "a.ts", 5, "Svc"), "a.ts:1:Svc");
    assert_eq!(target(&p, "a.ts", 5, "run"), run);
    assert_eq!(target(&p, "a.ts", 6, "run"), run);
    assert_eq!(target(&p, "a.ts", 9, "run"), run);
    assert_eq!(target(&p, "a.ts", 10, "run"), run);
    assert_eq!(target(&p, "a.ts", 11, "run"), run);
    assert_eq!(target(&p, "a.ts", 12, "run"), run);
    let on_13: Vec<String> =
        p.1.references
            .iter()
            .filter(|r| {
                let reference = &p.0[r.file].facts.references[r.reference];
                reference.line == 13 && reference.name == "run"
            })
            .map(|r| r.target.clone().unwrap_or_default())
            .collect();
    assert_eq!(on_13, [run, run]);
    // A `string` element, a `for…in` key: not `Svc`.
    assert_ne!(at(&p, "a.ts", 15, "run").0, Status::Resolved);
    assert_ne!(at(&p, "a.ts", 16, "run").0, Status::Resolved);
    // A `sort` comparator's parameters are elements (`compareFn(a: T, b:
    // T)` in TypeScript's lib.es5.d.ts).
    assert_eq!(target(&p, "a.ts", 17, "run"), run);
}

/// A schema library's shape (zod's): chained calls whose methods return
/// `this`, members found through interface bases whose type arguments are
/// substituted (`_zod` is `Internals`, bound to `StrInternals` by `Str`'s
/// base), a namespace import, a generic interface's members read with its
/// arguments (`unwrap(): T`). tsc resolves each of these to the member
/// named here.
#[test]
fn chained_calls_follow_this_return_types_and_substituted_type_arguments() {
    let lib = "\
export interface Def { type: string }
export interface Internals<O> { def: Def; output: O }
export interface Base<I extends Internals<unknown> = Internals<unknown>> {
  _zod: I;
  parse(x: unknown): unknown;
  optional(): Optional<this>;
}
export interface StrDef extends Def { minLength: number }
export interface StrInternals extends Internals<string> { def: StrDef }
export interface Str extends Base<StrInternals> { min(n: number): this }
export interface Optional<T> extends Base { unwrap(): T }
export function string(): Str { return null as any; }
";
    let app = "\
import * as z from \"./lib\";
const s = z.string().min(1);
s.parse(1);
s._zod.def.minLength;
z.string().optional().unwrap().min(2);
const o = z.string().optional();
o._zod.def.type;
";
    let p = project(&[("src/lib.ts", lib), ("src/app.ts", app)]);
    assert_eq!(target(&p, "src/app.ts", 2, "min"), "src/lib.ts:10:Str.min");
    assert_eq!(
        target(&p, "src/app.ts", 3, "parse"),
        "src/lib.ts:5:Base.parse"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "_zod"),
        "src/lib.ts:4:Base._zod"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "def"),
        "src/lib.ts:9:StrInternals.def"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "minLength"),
        "src/lib.ts:8:StrDef.minLength"
    );
    assert_eq!(
        target(&p, "src/app.ts", 5, "unwrap"),
        "src/lib.ts:11:Optional.unwrap"
    );
    assert_eq!(target(&p, "src/app.ts", 5, "min"), "src/lib.ts:10:Str.min");
    // `Optional`'s own base has no arguments: `_zod` is `Internals`, whose
    // `def` is `Def`.
    assert_eq!(
        target(&p, "src/app.ts", 7, "def"),
        "src/lib.ts:2:Internals.def"
    );
    assert_eq!(target(&p, "src/app.ts", 7, "type"), "src/lib.ts:1:Def.type");
}

/// Contextual types (TypeScript handbook, "Contextual Typing"): a
/// callback's parameters take the callee's parameter types, an object
/// literal's keys are the contextual type's members, a function assigned
/// to a typed member or variable takes that type, and a generic function
/// called where a type is expected binds its type parameters from it.
/// The union rule was checked with scip-typescript 0.4.0: a key in every
/// member of a union contextual type references each member's property,
/// a key in only some of them is a property of the literal's own.
#[test]
fn contextual_types_give_callback_parameters_and_object_literal_keys_their_types() {
    let source = "\
export interface Event { target: string; stop(): void }
export interface Options { port: number; onEvent?: (e: Event) => void }
export function on(name: string, cb: (e: Event) => void) {}
export function configure(opts: Options) {}
on('x', e => e.stop());
on('y', function (ev) { ev.stop(); });
configure({ port: 1, onEvent: (e) => e.stop() });
export interface Big { code: string; max: number }
export interface Small { code: string; min: number }
export function add(issue: Big | Small) {}
add({ code: 'big', max: 3 });
export interface Ctor<T> { init(inst: T): void }
export function make<T>(name: string, init: (inst: T) => void): Ctor<T> { return null as any; }
export const Thing: Ctor<Event> = make('thing', (inst) => { inst.stop(); });
export interface Holder { check: (payload: Event) => void }
export function fill(h: Holder) { h.check = (payload) => { payload.stop(); }; }
const handler: () => (e: Event) => void = () => (e) => e.stop();
Thing.init(null as any);
";
    let p = project(&[("a.ts", source)]);
    let stop = "a.ts:1:Event.stop";
    assert_eq!(target(&p, "a.ts", 5, "stop"), stop);
    assert_eq!(target(&p, "a.ts", 6, "stop"), stop);
    assert_eq!(target(&p, "a.ts", 7, "port"), "a.ts:2:Options.port");
    assert_eq!(target(&p, "a.ts", 7, "onEvent"), "a.ts:2:Options.onEvent");
    assert_eq!(target(&p, "a.ts", 7, "stop"), stop);
    // `code` is in both members of the union, `max` in one only: a
    // property of the literal's own, no reference (nor a candidate).
    assert_eq!(target(&p, "a.ts", 11, "code"), "a.ts:8:Big.code");
    assert!(!reported(&p, "a.ts", 11, "max"));
    assert_eq!(target(&p, "a.ts", 14, "stop"), stop);
    assert_eq!(target(&p, "a.ts", 16, "stop"), stop);
    assert_eq!(target(&p, "a.ts", 17, "stop"), stop);
    assert_eq!(target(&p, "a.ts", 18, "init"), "a.ts:12:Ctor.init");
}

/// What else tsc's find-references reports: an attribute assigned (`a.b =
/// …`, role `write`), a member named by a string (`T["key"]`,
/// `obj["key"]`), an object literal's properties as a variable's members
/// (`const coerce = { number() {} }`), a member reached through a union
/// whose members differ (the value of `error` in either member of a
/// result type), and a namespace import's member that the module only
/// imports (not exported: `import * as parse` in a re-exported module is
/// no member `parse` of it).
#[test]
fn writes_string_keys_object_members_unions_and_exports() {
    let lib = "\
export interface Issue { code: string }
export interface Failure { error: Err; ok: false }
export interface Success { error?: never; ok: true }
export interface Err { issues: Issue[] }
export type Result = Success | Failure;
export function check(): Result { return null as any; }
export const coerce = { number() { return 1; } };
export type Code = Issue[\"code\"];
";
    let parse = "export function parse(x: unknown) { return x; }\n";
    let schemas =
        "import * as parse from './parse';\nexport function string() { return parse.parse(''); }\n";
    let index = "export * from './schemas';\nexport * from './parse';\n";
    let app = "\
import * as z from './index';
import { check, coerce, Issue } from './lib';
const r = check();
r.error.issues[0].code;
coerce.number();
const i: Issue = { code: 'x' };
i.code = 'y';
i[\"code\"];
z.parse(1);
";
    let p = project(&[
        ("src/lib.ts", lib),
        ("src/parse.ts", parse),
        ("src/schemas.ts", schemas),
        ("src/index.ts", index),
        ("src/app.ts", app),
    ]);
    assert_eq!(
        target(&p, "src/lib.ts", 8, "code"),
        "src/lib.ts:1:Issue.code"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "error"),
        "src/lib.ts:2:Failure.error"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "issues"),
        "src/lib.ts:4:Err.issues"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "code"),
        "src/lib.ts:1:Issue.code"
    );
    assert_eq!(
        target(&p, "src/app.ts", 5, "number"),
        "src/lib.ts:7:coerce.number"
    );
    assert_eq!(
        target(&p, "src/app.ts", 6, "code"),
        "src/lib.ts:1:Issue.code"
    );
    let (status, found, role, _) = at(&p, "src/app.ts", 7, "code");
    assert_eq!(
        (status, found.as_str(), role),
        (Status::Resolved, "src/lib.ts:1:Issue.code", Role::Write)
    );
    assert_eq!(
        target(&p, "src/app.ts", 8, "code"),
        "src/lib.ts:1:Issue.code"
    );
    assert_eq!(target(&p, "src/app.ts", 9, "parse"), "src/parse.ts:1:parse");
}

/// Three rules zod's `$constructor` pattern needs (checked against
/// scip-typescript 0.4.0 on zod): an interface merged with a function of
/// the same name has the interface's members (`init` of the interface, not
/// the function's local `init`); a generic function called where a type
/// is expected gives the type parameters the expected type leaves open
/// their defaults, read with the others bound (`D = T["_zod"]["def"]`);
/// and a member reached through a union of inline object types
/// (`{ ok: true; error?: never } | { ok: false; error: Err }`) has the
/// value those types give it.
#[test]
fn merged_interface_members_defaults_of_inferred_parameters_and_inline_object_unions() {
    let core = "\
type Trait = { _zod: { def: any } };
export interface $constructor<T extends Trait, D = T[\"_zod\"][\"def\"]> {
  init(inst: T, def: D): void;
}
export function $constructor<T extends Trait, D = T[\"_zod\"][\"def\"]>(
  name: string,
  initializer: (inst: T, def: D) => void,
): $constructor<T, D> {
  function init(inst: T, def: D) { initializer(inst, def); }
  return { init } as any;
}
";
    let checks = "\
import * as core from './core';
export interface CheckDef { abort?: boolean }
export interface Check { _zod: { def: CheckDef } }
export const Check: core.$constructor<Check> = core.$constructor('Check', (inst, def) => {
  def.abort;
});
export interface Err { issues: string[] }
export type Result = { ok: true; error?: never } | { ok: false; error: Err };
export declare function run(): Result;
";
    let app = "\
import { Check, run } from './checks';
Check.init(null as any, {});
run().error!.issues;
";
    let p = project(&[
        ("src/core.ts", core),
        ("src/checks.ts", checks),
        ("src/app.ts", app),
    ]);
    assert_eq!(
        target(&p, "src/app.ts", 2, "init"),
        "src/core.ts:3:$constructor.init"
    );
    assert_eq!(
        target(&p, "src/checks.ts", 5, "abort"),
        "src/checks.ts:2:CheckDef.abort"
    );
    assert_eq!(
        target(&p, "src/app.ts", 3, "issues"),
        "src/checks.ts:7:Err.issues"
    );
}

/// Names in a TypeScript class's or interface's written types are looked
/// up around the type, never among its members (tsc: members are reached
/// through `this`): `parse.Result` in a method of an interface with a
/// member `parse` is the imported module `parse`. And a module's variable
/// reached through a namespace import keeps its own members
/// (`z.coerce.string` is the key `string` of `const coerce = { … }`).
/// Both found in zod against scip-typescript 0.4.0.
#[test]
fn members_are_no_names_in_written_types_and_module_variables_keep_their_keys() {
    let parse = "\
export interface Err { issues: string[] }
export type Result = { ok: false; error: Err } | { ok: true; error?: never };
";
    let schema = "\
import * as parse from './parse';
export interface Schema {
  safeParse(data: unknown): parse.Result;
  parse(data: unknown): string;
}
export const Schema: Schema = null as any;
export const coerce = { string: () => Schema };
";
    let app = "\
import * as z from './schema';
declare const s: z.Schema;
s.safeParse(1).error!.issues;
z.coerce.string();
";
    let p = project(&[
        ("src/parse.ts", parse),
        ("src/schema.ts", schema),
        ("src/app.ts", app),
    ]);
    assert_eq!(
        target(&p, "src/app.ts", 3, "issues"),
        "src/parse.ts:1:Err.issues"
    );
    assert_eq!(
        target(&p, "src/app.ts", 4, "string"),
        "src/schema.ts:7:coerce.string"
    );
}

/// A name that is a value and a type (`const schema = …; type schema =
/// …`, zod's tests' idiom): read as a value it is the variable, and its
/// members are its value's; written as a type it is the type alias (tsc
/// keeps the two meanings of one symbol apart by position).
#[test]
fn a_value_read_of_a_name_that_is_also_a_type_is_the_value() {
    let source = "\
export interface Schema { parse(x: unknown): string }
export declare function make(): Schema;
const schema = make();
type schema = ReturnType<typeof make>;
schema.parse(1);
let s: schema;
";
    let p = project(&[("a.ts", source)]);
    assert_eq!(target(&p, "a.ts", 5, "schema"), "a.ts:3:schema");
    assert_eq!(target(&p, "a.ts", 5, "parse"), "a.ts:1:Schema.parse");
    assert_eq!(target(&p, "a.ts", 6, "schema"), "a.ts:4:schema");
}

/// A callback's parameter typed by its context, where the context names a
/// parameter of the same name around it (zod's `inst._zod.onattach.push((inst)
/// => inst._zod.bag)`): the context is read around the callback, where the
/// name is the outer parameter (tsc's contextual typing).
#[test]
fn a_shadowing_callback_parameter_is_typed_by_the_outer_one() {
    let source = "\
export interface Z { bag: string }
export interface Internals { onattach: ((schema: Z) => void)[] }
export interface Thing { _zod: Internals }
export declare function mk(init: (inst: Thing) => void): void;
mk((inst) => {
  inst._zod.onattach.push((inst) => {
    inst.bag;
  });
});
";
    let p = project(&[("a.ts", source)]);
    assert_eq!(
        target(&p, "a.ts", 6, "onattach"),
        "a.ts:2:Internals.onattach"
    );
    assert_eq!(target(&p, "a.ts", 7, "bag"), "a.ts:1:Z.bag");
}

/// `x instanceof C` narrows `x` to `C` in the branch the test guards
/// (TypeScript handbook, "Narrowing"), in either operand of `&&` too;
/// after the branch the name has its declared type again.
#[test]
fn instanceof_narrows_in_the_guarded_branch_only() {
    let source = "\
export class A { a() {} }
export class B { b() {} }
export function f(x: A, y: unknown) {
  if (x instanceof B) {
    x.b();
  }
  x.a();
  if (y instanceof A && y) y.a();
}
";
    let p = project(&[("a.ts", source)]);
    assert_eq!(target(&p, "a.ts", 5, "b"), "a.ts:2:B.b");
    assert_eq!(target(&p, "a.ts", 7, "a"), "a.ts:1:A.a");
    assert_eq!(target(&p, "a.ts", 8, "a"), "a.ts:1:A.a");
}

/// Found by a new user on zod: a name that is an interface and a `const`
/// written where a type goes (`extends`, an annotation) is the interface,
/// and the interface's own `extends` gives the relation; members of
/// globals no scope binds (`Object.entries`, `JSON.parse`) and of
/// primitive-typed values (`s: string`, `s.split`) are outside the
/// project, never name-only candidates of the project's `entries`,
/// `parse` or `split`.
#[test]
fn merged_names_in_type_positions_and_members_of_globals_and_primitives() {
    let source = "\
export interface Base { parse(x: unknown): unknown; split(): void; entries: string[] }
export const Base: Base = null as any;
export interface Schema extends Base { run(): void }
export const Schema: Schema = null as any;
let s: Schema;
export function f(text: string, o: object) {
  Object.entries(o);
  JSON.parse(text);
  text.split(',');
  console.log(text);
}
Schema.run();
";
    let p = project(&[("a.ts", source)]);
    assert_eq!(target(&p, "a.ts", 3, "Base"), "a.ts:1:Base");
    assert_eq!(target(&p, "a.ts", 5, "Schema"), "a.ts:3:Schema");
    assert_eq!(target(&p, "a.ts", 12, "Schema"), "a.ts:4:Schema");
    assert_eq!(target(&p, "a.ts", 12, "run"), "a.ts:3:Schema.run");
    for (line, name) in [(7, "entries"), (8, "parse"), (9, "split"), (10, "log")] {
        assert_eq!(at(&p, "a.ts", line, name).0, Status::External, "{name}");
    }
    let relations: Vec<(&str, &str)> =
        p.1.relations
            .iter()
            .map(|r| (r.subtype.as_str(), r.supertype.as_str()))
            .collect();
    assert_eq!(relations, [("a.ts:3:Schema", "a.ts:1:Base")]);
}

/// Dynamic references: a dispatch table's functions called through a
/// computed key, `Reflect.get`/`Reflect.apply`, a computed member call and
/// `require`/`import()` of a computed specifier are `dynamic`; a literal
/// key stays static.
#[test]
fn dynamic_references_are_marked_dynamic() {
    let p = project(&[
        (
            "handlers.ts",
            "export function createUser() {}\nexport function removeUser() {}\n",
        ),
        (
            "app.ts",
            "import { createUser, removeUser } from \"./handlers\";\n\
             class Repo { save() {} }\n\
             const handlers = { create: createUser, remove: removeUser };\n\
             export function dispatch(action: string, repo: Repo, path: string) {\n\
             \x20 handlers[action]();\n\
             \x20 repo[action]();\n\
             \x20 Reflect.get(repo, \"save\");\n\
             \x20 Reflect.apply(createUser, null, []);\n\
             \x20 require(path);\n\
             \x20 import(path);\n\
             \x20 repo[\"save\"]();\n\
             }\n",
        ),
    ]);
    let expected = [
        (
            5,
            "createUser",
            Status::Dynamic,
            "handlers.ts:1:createUser",
            Role::Call,
            Via::Import,
        ),
        (
            5,
            "removeUser",
            Status::Dynamic,
            "handlers.ts:2:removeUser",
            Role::Call,
            Via::Import,
        ),
        (6, "?", Status::Dynamic, "", Role::Call, Via::None),
        (
            7,
            "save",
            Status::Dynamic,
            "app.ts:2:Repo.save",
            Role::Attribute,
            Via::Receiver,
        ),
        (
            8,
            "createUser",
            Status::Dynamic,
            "handlers.ts:1:createUser",
            Role::Call,
            Via::Import,
        ),
        (9, "?", Status::Dynamic, "", Role::Import, Via::None),
        (10, "?", Status::Dynamic, "", Role::Import, Via::None),
        (
            11,
            "save",
            Status::Resolved,
            "app.ts:2:Repo.save",
            Role::Call,
            Via::Receiver,
        ),
    ];
    for (line, name, status, target, role, via) in expected {
        assert_eq!(
            at(&p, "app.ts", line, name),
            (status, target.to_owned(), role, via),
            "app.ts:{line} {name}"
        );
    }
}

/// A literal key's call is a call (of the member, and of what a dispatch
/// table holds under the key); tables hold members of other modules and
/// their own methods; `Reflect.get(obj, "m")(…)` is a dynamic call; a
/// literal `await import("./m")` binds the module as `require` does.
#[test]
fn literal_keys_tables_of_members_and_methods_and_literal_dynamic_imports() {
    let p = project(&[
        (
            "handlers.ts",
            "export function createUser() {}\nexport function updateUser() {}\n",
        ),
        ("lazy.ts", "export function later() {}\n"),
        (
            "app.ts",
            "import * as api from \"./handlers\";\n\
             import { createUser } from \"./handlers\";\n\
             const handlers = { create: createUser, update: api.updateUser, list() { return 1; } };\n\
             class Repo { save(x: number) {} }\n\
             export async function go(action: string, r: Repo) {\n\
             \x20 handlers[\"create\"]();\n\
             \x20 handlers[action]();\n\
             \x20 Reflect.get(r, \"save\")(1);\n\
             \x20 const m = await import(`./lazy`);\n\
             \x20 m.later();\n\
             }\n",
        ),
    ]);
    let (_, resolved) = &p;
    let mut found: Vec<(u32, String, Status, String, Role, f32)> = resolved
        .references
        .iter()
        .filter_map(|r| {
            let file = &p.0[r.file];
            let reference = &file.facts.references[r.reference];
            (file.path == "app.ts"
                && reference.line >= 6
                && matches!(r.role, Role::Call | Role::Instantiate))
            .then(|| {
                (
                    reference.line,
                    reference.name.clone(),
                    r.status,
                    r.target.clone().unwrap_or_default(),
                    r.role,
                    r.confidence,
                )
            })
        })
        .collect();
    found.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let target = |s: &str| s.to_owned();
    assert_eq!(
        found,
        vec![
            // The table's key is no definition: the static call finds none.
            (
                6,
                target("create"),
                Status::Candidate,
                target(""),
                Role::Call,
                0.0
            ),
            (
                6,
                target("createUser"),
                Status::Dynamic,
                target("handlers.ts:1:createUser"),
                Role::Call,
                0.5
            ),
            (
                7,
                target("createUser"),
                Status::Dynamic,
                target("handlers.ts:1:createUser"),
                Role::Call,
                0.5
            ),
            (
                7,
                target("list"),
                Status::Dynamic,
                target("app.ts:3:handlers.list"),
                Role::Call,
                0.5
            ),
            (
                7,
                target("updateUser"),
                Status::Dynamic,
                target("handlers.ts:2:updateUser"),
                Role::Call,
                0.5
            ),
            (
                8,
                target("get"),
                Status::External,
                target(""),
                Role::Call,
                0.0
            ),
            (
                8,
                target("save"),
                Status::Dynamic,
                target("app.ts:4:Repo.save"),
                Role::Call,
                0.5
            ),
            (
                10,
                target("later"),
                Status::Resolved,
                target("lazy.ts:1:later"),
                Role::Call,
                1.0
            ),
        ]
    );
}
