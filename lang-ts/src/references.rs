//! Cross-reference facts of a TypeScript/JavaScript file
//! ([`outline_core::xref::Facts`]), from the same swc tree as the outline.
//!
//! Scopes follow ECMAScript (ECMA-262, "Declaration instantiation"): `var`
//! and function-scoped names are hoisted to the function, `let`, `const`,
//! `class`, and function declarations in blocks are bound in their block,
//! parameters and catch parameters in their function or clause. A name bound
//! in a function is a local: its [`Reference::binding`] is that function
//! (the outline symbol, or for an anonymous function or arrow a key of its
//! own, `<function@LINE:COLUMN>`, that names no symbol) so it is never looked
//! up at module level; a name bound in a block at module level gets a
//! `<block@LINE:COLUMN>` key likewise.
//!
//! `this` inside a class method (or an arrow function within one) is an
//! instance of the class: a [`LocalType`] `this` → [`TypeOf::Instance`] is
//! given for each scope that uses it.
//!
//! Imports are given as [`ImportBinding`]s whose `module` is the specifier as
//! written (`./user`, `@app/models`, `react`), `level` 0; a default import is
//! the name `default`, `import * as ns` and `import x = require()` bind the
//! module (`name: None`). Exports that rename (`export { a as b }`,
//! `export default User`, `export default class User`) are bindings of the
//! file to itself: `module` empty, `local` the exported name, `name` the
//! local one.

use std::collections::{HashMap, HashSet};

use outline_core::xref::{
    Attribute, Base, Dynamic, Facts, Generics, ImportBinding, LocalType, Receiver, Reference,
    ReturnType, Role, ScopeKey, Signature, TypeAlias, TypeExpr, TypeOf, TypeParam, Value,
};
use outline_core::{Symbol, SymbolKind};
use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{
    ArrowExpr, ArrowFunctionBody, BlockStmt, CatchClause, Class, ClassDecl, ClassExpr, ClassMember,
    Constructor, Decl, DefaultDecl, ExportAll, ExportDefaultDecl, ExportDefaultExpr,
    ExportSpecifier, Expr, FnDecl, FnExpr, ForHead, ForInStmt, ForOfStmt, ForStmt, Function,
    ImportDecl, ImportSpecifier, JSXElementName, Lit, MemberExpr, MemberProp, ModuleDecl,
    ModuleExportName, ModuleItem, NamedExport, NewExpr, ObjectPatProp, OptChainBase,
    ParamOrTsParamProp, Pat, Prop, PropName, Stmt, SuperProp, SuperPropExpr, TsConditionalType,
    TsEntityName, TsExprWithTypeArgs, TsGetterSignature, TsImportEqualsDecl, TsInferType,
    TsInterfaceDecl, TsMappedType, TsMethodSignature, TsModuleDecl, TsModuleName, TsModuleRef,
    TsNamespaceBody, TsParamPropParam, TsPropertySignature, TsSetterSignature, TsThisParam, TsType,
    TsTypeAliasDecl, TsTypeAnn, TsTypeOperatorOp, TsTypeParamDecl, TsTypeQuery, TsTypeQueryExpr,
    TsTypeRef, TsUnionOrIntersectionType, VarDecl, VarDeclKind, VarDeclOrExpr, VarDeclarator,
};
use swc_ecma_ast::{BinaryOp, CallExpr, Callee, Ident, IfStmt};
use swc_ecma_visit::{Visit, VisitWith};

use crate::imports::specifier;
use crate::source::Source;
use crate::values::{fn_param, member_value, pat_param, prop_name, ts_type, value_of};

/// The facts of `items` (the module items the outline was built from),
/// given the outline's `symbols` (to name scopes by their qualname and start
/// line).
pub(crate) fn facts(source: &Source<'_>, items: &[ModuleItem], symbols: &[Symbol]) -> Facts {
    let mut positions = HashMap::new();
    index_symbols(symbols, "", &mut positions);
    let mut walker = Facts_ {
        source,
        positions,
        facts: Facts {
            supported: true,
            exports: Some(Vec::new()),
            ..Facts::default()
        },
        frames: vec![Frame {
            key: None,
            names: HashSet::new(),
        }],
        scopes: Vec::new(),
        this_class: vec![None],
        pending: None,
        callback: None,
        object_context: None,
        call_context: None,
        return_context: Vec::new(),
        typed_this: HashSet::new(),
        depth: 0,
        tables: module_tables(items),
        bound_requires: HashSet::new(),
    };
    for item in items {
        walker.module_item(item);
    }
    walker.facts
}

/// Symbol name positions (line, column) → the symbol's scope key and kind.
type Positions = HashMap<(u32, u32), (ScopeKey, SymbolKind)>;

fn index_symbols(symbols: &[Symbol], parent: &str, out: &mut Positions) {
    for symbol in symbols {
        let qualname = if symbol.kind == SymbolKind::Block {
            parent.to_owned()
        } else if parent.is_empty() {
            symbol.name.clone()
        } else {
            format!("{parent}.{}", symbol.name)
        };
        if symbol.kind != SymbolKind::Block {
            out.entry((symbol.name_line, symbol.name_column))
                .or_insert_with(|| {
                    (
                        ScopeKey {
                            qualname: qualname.clone(),
                            start_line: symbol.start_line,
                        },
                        symbol.kind,
                    )
                });
        }
        index_symbols(&symbol.children, &qualname, out);
    }
}

/// A lexical environment: the names it binds and the key their
/// [`Reference::binding`] gets (`None`: module level).
struct Frame {
    key: Option<ScopeKey>,
    names: HashSet<String>,
}

/// The walker (named with a trailing `_` to keep [`Facts`] for the model).
#[allow(non_camel_case_types)]
struct Facts_<'s, 'a> {
    source: &'s Source<'a>,
    positions: Positions,
    facts: Facts,
    frames: Vec<Frame>,
    /// Enclosing outline definitions that make scopes (the callers).
    scopes: Vec<ScopeKey>,
    /// What `this` is: the class of the innermost method, `None` in a plain
    /// function (arrow functions keep the enclosing value).
    this_class: Vec<Option<ScopeKey>>,
    /// The name position of the function or class about to be entered, and
    /// whether it is a class method.
    pending: Option<(BytePos, bool)>,
    /// The function about to be entered has a contextual type: the value
    /// whose type it takes (`xs.map(x => …)`: parameter 0 of `xs.map`;
    /// `const h: Handler = e => …`: a value of type `Handler`). Its
    /// parameters without annotation are that type's parameters.
    callback: Option<Value>,
    /// The object literal about to be visited has a contextual type: the
    /// value whose type it takes (an argument: the callee's parameter; a
    /// typed variable's initializer; a property of another such object).
    /// Its keys are references to that type's members.
    object_context: Option<Value>,
    /// For each enclosing function: the value its `return`s take their
    /// contextual type from (its written return type).
    return_context: Vec<Option<Value>>,
    /// The call about to be visited has a contextual type (a typed
    /// variable's initializer): a generic callee's type parameters are
    /// bound from it ([`Value::Returning`]).
    call_context: Option<Value>,
    /// Scopes for which `this` has its [`LocalType`].
    typed_this: HashSet<String>,
    /// Expressions open around the one visited (see
    /// [`MAX_EXPRESSION_DEPTH`]).
    depth: usize,
    /// Dispatch tables by the name they are bound to: the module's (all of
    /// them, before the walk), then each one declared as the walk meets it.
    tables: HashMap<String, Table>,
    /// The `require("m")` / `await import("m")` calls (by their start)
    /// whose module a declaration binds (`const x = require("m")`).
    bound_requires: HashSet<BytePos>,
}

/// Expressions nested deeper than this are not visited for references: the
/// visit recurses once per level, and a million chained subscripts
/// (`a[0][0]…`, which the parser takes) overflowed even the parser's 256
/// MiB stack and aborted the process. Real code nests a few dozen levels.
const MAX_EXPRESSION_DEPTH: usize = 5_000;

/// A dotted chain of names (`a.b.c`, `this.m`), each with its position.
type Chain = Vec<(String, BytePos, BytePos)>;

/// The names of `expr` when it is a dotted chain of identifiers (the first
/// may be `this`).
fn chain(expr: &Expr) -> Option<Chain> {
    let member = match expr {
        Expr::Ident(i) => return Some(vec![(i.sym.to_string(), i.span.lo, i.span.hi)]),
        Expr::This(t) => return Some(vec![("this".to_owned(), t.span.lo, t.span.hi)]),
        Expr::Paren(p) => return chain(&p.expr),
        // `a!.b`: the non-null assertion changes no name.
        Expr::TsNonNull(n) => return chain(&n.expr),
        // `a?.b`: an optional member is a member.
        Expr::OptChain(o) => match &*o.base {
            OptChainBase::Member(member) => member,
            _ => return None,
        },
        Expr::Member(member) => member,
        _ => return None,
    };
    let MemberProp::Ident(name) = &member.prop else {
        return None;
    };
    let mut out = chain(&member.obj)?;
    out.push((name.sym.to_string(), name.span.lo, name.span.hi));
    Some(out)
}

fn entity_chain(name: &TsEntityName) -> Chain {
    match name {
        TsEntityName::Ident(i) => vec![(i.sym.to_string(), i.span.lo, i.span.hi)],
        TsEntityName::TsQualifiedName(q) => {
            let mut out = entity_chain(&q.left);
            out.push((q.right.sym.to_string(), q.right.span.lo, q.right.span.hi));
            out
        }
    }
}

fn unparen(mut expr: &Expr) -> &Expr {
    loop {
        expr = match expr {
            Expr::Paren(p) => &p.expr,
            Expr::TsAs(a) => &a.expr,
            Expr::TsNonNull(n) => &n.expr,
            Expr::TsSatisfies(s) => &s.expr,
            Expr::TsConstAssertion(c) => &c.expr,
            Expr::TsTypeAssertion(t) => &t.expr,
            Expr::Await(a) => &a.arg,
            other => return other,
        };
    }
}

/// The specifier of `require("m")` or `await import("m")` (the module
/// itself; `import("m")` not awaited is a promise of it).
fn required(source: &Source<'_>, expr: &Expr) -> Option<String> {
    let Expr::Call(call) = unparen(expr) else {
        return None;
    };
    if matches!(call.callee, Callee::Import(_)) && !awaited(expr) {
        return None;
    }
    required_call(source, call)
}

/// Whether `expr` is an `await` (through parentheses and type assertions).
fn awaited(expr: &Expr) -> bool {
    match expr {
        Expr::Await(_) => true,
        Expr::Paren(p) => awaited(&p.expr),
        Expr::TsAs(a) => awaited(&a.expr),
        Expr::TsNonNull(n) => awaited(&n.expr),
        Expr::TsSatisfies(s) => awaited(&s.expr),
        _ => false,
    }
}

/// The specifier of the call `require("m")` or `import("m")` (a literal
/// specifier: a string, or a template literal without substitutions,
/// ``require(`m`)``).
fn required_call(source: &Source<'_>, call: &CallExpr) -> Option<String> {
    match &call.callee {
        Callee::Expr(callee) => {
            let Expr::Ident(name) = unparen(callee) else {
                return None;
            };
            if name.sym != *"require" || call.args.len() != 1 {
                return None;
            }
        }
        // `import("m")`, `import("m", { with: … })`.
        Callee::Import(_) => {}
        Callee::Super(_) => return None,
    }
    call.args
        .first()
        .and_then(|a| literal_specifier(source, &a.expr))
}

/// The text of a literal module specifier: a string (`"./x"`) or a
/// template literal without substitutions (`` `./x` ``), as written
/// between its quotes.
fn literal_specifier(source: &Source<'_>, expr: &Expr) -> Option<String> {
    match unparen(expr) {
        Expr::Lit(Lit::Str(s)) => Some(specifier(source, s)),
        Expr::Tpl(t) if t.exprs.is_empty() => {
            let text = source.slice(t.span);
            text.get(1..text.len().saturating_sub(1)).map(str::to_owned)
        }
        _ => None,
    }
}

/// What a dispatch table's entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Held {
    /// A function by its name: `create: createUser`, `{ remove }`.
    Name(String),
    /// A member of a dotted chain: `create: api.createUser` (the chain's
    /// parts before the member, and the member).
    Member(Vec<String>, String),
    /// A method written in the table: `create() { … }`, or a function
    /// value written in it, `create: () => …` (the key).
    Method(String),
}

/// A dispatch table: the functions an object literal bound to a name
/// holds, with the key each is under (`None` for a key that is no plain
/// name or string). `const handlers = { create: createUser, remove,
/// update: api.updateUser, list() {} }` holds `createUser`, `remove`,
/// `api.updateUser` and its own method `list`.
type Table = Vec<(Option<String>, Held)>;

/// The table of `init` when it is an object literal (through parentheses
/// and `as const`/`satisfies`) with at least one value that is a plain
/// name, a dotted member, a method or a function written in it (`go: () =>
/// …`, held as a method); other values (calls, literals) are left out.
fn dispatch_table(init: &Expr) -> Option<Table> {
    let Expr::Object(object) = unparen(init) else {
        return None;
    };
    let mut table = Table::new();
    for prop in &object.props {
        let swc_ecma_ast::PropOrSpread::Prop(prop) = prop else {
            continue;
        };
        match &**prop {
            Prop::KeyValue(kv) => {
                let key = prop_name(&kv.key);
                match unparen(&kv.value) {
                    Expr::Ident(value) => table.push((key, Held::Name(value.sym.to_string()))),
                    // `go: () => …`: a function of the table, as a method.
                    Expr::Arrow(_) | Expr::Fn(_) => {
                        if let Some(key) = key {
                            table.push((Some(key.clone()), Held::Method(key)));
                        }
                    }
                    value => {
                        if let Some(mut c) = chain(value)
                            .filter(|c| c.len() <= outline_core::xref::MAX_RECEIVER_PARTS + 1)
                            && let Some((member, _, _)) = c.pop()
                            && !c.is_empty()
                        {
                            let path = c.into_iter().map(|(name, _, _)| name).collect();
                            table.push((key, Held::Member(path, member)));
                        }
                    }
                }
            }
            Prop::Shorthand(name) => {
                let name = name.sym.to_string();
                table.push((Some(name.clone()), Held::Name(name)));
            }
            Prop::Method(m) => {
                if let Some(key) = prop_name(&m.key) {
                    table.push((Some(key.clone()), Held::Method(key)));
                }
            }
            _ => {}
        }
    }
    (!table.is_empty()).then_some(table)
}

/// The dispatch tables a module's top-level statements declare (`const
/// handlers = { … }`, exported or not), so that a function above the
/// declaration finds them.
fn module_tables(items: &[ModuleItem]) -> HashMap<String, Table> {
    let mut tables = HashMap::new();
    for item in items {
        let decl = match item {
            ModuleItem::Stmt(Stmt::Decl(Decl::Var(v))) => v,
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(e)) => match &e.decl {
                Decl::Var(v) => v,
                _ => continue,
            },
            _ => continue,
        };
        for d in &decl.decls {
            if let (Pat::Ident(name), Some(init)) = (&d.name, &d.init)
                && let Some(table) = dispatch_table(init)
            {
                tables.insert(name.id.sym.to_string(), table);
            }
        }
    }
    tables
}

/// The string of a literal (`"name"`), with the positions of its contents.
fn string_lit(expr: &Expr) -> Option<(String, BytePos, BytePos)> {
    match unparen(expr) {
        Expr::Lit(Lit::Str(s)) if s.span.hi.0 > s.span.lo.0 + 1 => s
            .value
            .as_str()
            .map(|v| (v.to_owned(), s.span.lo + BytePos(1), s.span.hi - BytePos(1))),
        _ => None,
    }
}

/// Whether `name` is a JavaScript identifier name as far as ASCII goes
/// (letters, digits, `_`, `$`; not starting with a digit) or any other
/// non-empty name without spaces or dots.
fn is_member_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c == '_' || c == '$' || c.is_alphanumeric())
}

/// Dynamic references (ECMAScript: computed member calls, `Reflect`,
/// `require` and `import()` of a computed specifier).
impl Facts_<'_, '_> {
    /// The references of the call `node` as written (its callee and
    /// arguments).
    fn static_call(&mut self, node: &CallExpr) {
        if let Callee::Expr(callee) = &node.callee
            && required_call(self.source, node).is_none()
        {
            self.call_like(callee, Role::Call);
        }
        if let Some(args) = &node.type_args {
            args.visit_with(self);
        }
        let expected = self.call_context.take();
        let callee = match &node.callee {
            Callee::Expr(callee) => value_of(callee),
            _ => None,
        };
        let callee = match (callee, expected) {
            (Some(function), Some(expected)) => Some(Value::Returning {
                function: Box::new(function),
                expected: Box::new(expected),
            }),
            (callee, _) => callee,
        };
        self.arguments(callee, &node.args);
    }

    /// Whether `name` is bound by any enclosing frame (module level
    /// included): then it is not the global of that name.
    fn bound_anywhere(&self, name: &str) -> bool {
        self.frames.iter().any(|f| f.names.contains(name))
    }

    /// Pushes a reference ([`Self::push_reference`]) marked `dynamic`.
    fn push_dynamic(
        &mut self,
        name: String,
        receiver: Receiver,
        role: Role,
        span: (BytePos, BytePos),
        binding: Option<ScopeKey>,
        dynamic: Dynamic,
    ) {
        self.push_reference(name, receiver, role, span, binding, None);
        if let Some(last) = self.facts.references.last_mut() {
            last.dynamic = Some(dynamic);
        }
    }

    /// The receiver of a member of `obj`, as a member reference would
    /// have it: a dotted chain's path, else the value it gives.
    fn member_receiver(&mut self, obj: &Expr) -> (Receiver, Option<ScopeKey>) {
        match chain(obj) {
            Some(c) if c.len() <= outline_core::xref::MAX_RECEIVER_PARTS => {
                let path: Vec<String> = c.into_iter().map(|(name, _, _)| name).collect();
                let binding = match path.first() {
                    Some(head) => {
                        let head = head.clone();
                        self.head_binding(&head)
                    }
                    None => None,
                };
                (Receiver::Path(path), binding)
            }
            _ => self.result_receiver(obj),
        }
    }

    /// The dynamic references of the call `node`, after its static ones
    /// (those from `before` on in the facts' references):
    /// - `obj[key](…)` with a key that is no literal: a dynamic call of
    ///   each function of `obj`'s dispatch table when `obj` names one,
    ///   else one named `?` through `obj`, at the key; with a string key
    ///   (`obj["create"]()`, itself a static call of `obj.create`): a
    ///   dynamic call of the function the table holds under that key;
    /// - `Reflect.get(obj, "name")(…)`: the dynamic reference to
    ///   `obj.name` is a call;
    /// - `Reflect.get(obj, "name")` (`has`, `set`: written): a dynamic
    ///   reference to `obj.name`, at the string's contents (`?` for a key
    ///   that is no literal); `Reflect.apply(f, …)`: the reference to `f`
    ///   becomes a dynamic call;
    /// - `require(expr)`, `import(expr)` with a specifier that is no
    ///   literal: a dynamic import named `?`, at the specifier; with a
    ///   literal one, a static import of the module ([`Self::import_call`]).
    fn dynamic_call(&mut self, node: &CallExpr, before: usize) {
        let callee = match &node.callee {
            Callee::Expr(callee) => unparen(callee),
            Callee::Import(_) => {
                self.import_call(node);
                return;
            }
            Callee::Super(_) => return,
        };
        match callee {
            // `handlers["create"]()`: the static call of `handlers.create`
            // is made by `call_like`; when `handlers` is a dispatch table,
            // the function under that key is called too (a method written
            // in the table is the static call's own target).
            Expr::Member(MemberExpr {
                obj,
                prop: MemberProp::Computed(key),
                ..
            }) if string_lit(&key.expr).is_some() => {
                let (Some((name, _, _)), Expr::Ident(table)) =
                    (string_lit(&key.expr), unparen(obj))
                else {
                    return;
                };
                let Some(entries) = self.tables.get(table.sym.as_str()).cloned() else {
                    return;
                };
                let span = (
                    key.expr.span().lo + BytePos(1),
                    key.expr.span().hi - BytePos(1),
                );
                let table = table.sym.to_string();
                for (_, held) in entries.into_iter().filter(|(k, held)| {
                    k.as_deref() == Some(name.as_str()) && !matches!(held, Held::Method(_))
                }) {
                    self.table_call(&table, held, span);
                }
            }
            Expr::Member(MemberExpr {
                obj,
                prop: MemberProp::Computed(key),
                ..
            }) if !matches!(unparen(&key.expr), Expr::Lit(_)) => {
                let span = (key.expr.span().lo, key.expr.span().hi);
                let table = match unparen(obj) {
                    Expr::Ident(name) => self
                        .tables
                        .get(name.sym.as_str())
                        .cloned()
                        .map(|t| (name.sym.to_string(), t)),
                    _ => None,
                };
                match table {
                    Some((table, entries)) => {
                        for (_, held) in entries {
                            self.table_call(&table, held, span);
                        }
                    }
                    None => {
                        let (receiver, binding) = self.member_receiver(obj);
                        self.push_dynamic(
                            "?".to_owned(),
                            receiver,
                            Role::Call,
                            span,
                            binding,
                            Dynamic::Computed,
                        );
                    }
                }
            }
            // `Reflect.get(obj, "name")(…)`: the member read is called.
            Expr::Call(inner) if self.is_reflect(inner, "get") => {
                let Some((_, lo, _)) = inner.args.get(1).and_then(|k| string_lit(&k.expr)) else {
                    return;
                };
                let (line, column) = (self.line(lo), self.column(lo));
                if let Some(reference) =
                    self.facts
                        .references
                        .iter_mut()
                        .skip(before)
                        .rev()
                        .find(|r| {
                            r.line == line && r.column == column && r.dynamic == Some(Dynamic::Name)
                        })
                {
                    reference.role = Role::Call;
                }
            }
            Expr::Ident(name) if name.sym == *"require" && !self.bound_anywhere("require") => {
                self.import_call(node);
            }
            Expr::Member(MemberExpr {
                obj,
                prop: MemberProp::Ident(method),
                ..
            }) if matches!(unparen(obj), Expr::Ident(r) if r.sym == *"Reflect")
                && !self.bound_anywhere("Reflect") =>
            {
                self.reflect(method.sym.as_str(), node, before);
            }
            _ => {}
        }
    }

    /// A dynamic call, at `span`, of what a dispatch table `table` holds:
    /// a function by its name, a member through its chain
    /// (`api.createUser`), a method of the table (`table.create`).
    fn table_call(&mut self, table: &str, held: Held, span: (BytePos, BytePos)) {
        let (name, receiver, head) = match held {
            Held::Name(name) => {
                let head = name.clone();
                (name, Receiver::Bare, head)
            }
            Held::Member(path, member) => {
                let head = path.first().cloned().unwrap_or_default();
                (member, Receiver::Path(path), head)
            }
            Held::Method(key) => (
                key,
                Receiver::Path(vec![table.to_owned()]),
                table.to_owned(),
            ),
        };
        let binding = self.head_binding(&head);
        self.push_dynamic(name, receiver, Role::Call, span, binding, Dynamic::Name);
    }

    /// Whether `call` is `Reflect.<method>(…)` of the global `Reflect`.
    fn is_reflect(&self, call: &CallExpr, method: &str) -> bool {
        let Callee::Expr(callee) = &call.callee else {
            return false;
        };
        matches!(unparen(callee), Expr::Member(MemberExpr {
                obj,
                prop: MemberProp::Ident(m),
                ..
            }) if m.sym == *method
                && matches!(unparen(obj), Expr::Ident(r) if r.sym == *"Reflect"))
            && !self.bound_anywhere("Reflect")
    }

    /// `require(spec)` / `import(spec)`: with a literal specifier, an
    /// import of the module binding no name (unless a declaration binds
    /// it: `const x = require("m")`), as `import "m"` is; with a
    /// specifier that is no literal, a dynamic import named `?`.
    fn import_call(&mut self, node: &CallExpr) {
        let Some(first) = node.args.first() else {
            return;
        };
        if let Some(module) = required_call(self.source, node) {
            if !self.bound_requires.contains(&node.span.lo) {
                let line = self.line(node.span.lo);
                self.facts.imports.push(ImportBinding {
                    local: String::new(),
                    module,
                    level: 0,
                    name: None,
                    line,
                    scope: self.frame_key(),
                });
            }
            return;
        }
        if matches!(unparen(&first.expr), Expr::Lit(Lit::Str(_))) {
            return;
        }
        let span = (first.expr.span().lo, first.expr.span().hi);
        self.push_dynamic(
            "?".to_owned(),
            Receiver::Bare,
            Role::Import,
            span,
            None,
            Dynamic::Computed,
        );
    }

    /// `Reflect.get/has/set(obj, key, …)` and `Reflect.apply(f, …)`
    /// (ECMAScript "The Reflect Object").
    fn reflect(&mut self, method: &str, node: &CallExpr, before: usize) {
        let role = match method {
            "get" | "has" => Role::Attribute,
            "set" | "deleteProperty" => Role::Write,
            "apply" => {
                // The argument's own reference (its last name), made a
                // dynamic call.
                let Some(function) = node.args.first().and_then(|a| chain(&a.expr)) else {
                    return;
                };
                let Some((_, lo, _)) = function.last() else {
                    return;
                };
                let (line, column) = (self.line(*lo), self.column(*lo));
                if let Some(reference) = self
                    .facts
                    .references
                    .iter_mut()
                    .skip(before)
                    .rev()
                    .find(|r| r.line == line && r.column == column)
                {
                    reference.role = Role::Call;
                    reference.dynamic = Some(Dynamic::Name);
                }
                return;
            }
            _ => return,
        };
        let [object, key, ..] = &node.args[..] else {
            return;
        };
        let (receiver, binding) = self.member_receiver(&object.expr);
        match string_lit(&key.expr).filter(|(name, _, _)| is_member_name(name)) {
            Some((name, lo, hi)) => {
                self.push_dynamic(name, receiver, role, (lo, hi), binding, Dynamic::Name);
            }
            None => {
                let span = (key.expr.span().lo, key.expr.span().hi);
                self.push_dynamic(
                    "?".to_owned(),
                    receiver,
                    role,
                    span,
                    binding,
                    Dynamic::Computed,
                );
            }
        }
    }
}

fn export_name(name: &ModuleExportName) -> String {
    match name {
        ModuleExportName::Ident(i) => i.sym.to_string(),
        ModuleExportName::Str(s) => s.value.to_string_lossy().into_owned(),
    }
}

fn export_pos(name: &ModuleExportName) -> (BytePos, BytePos) {
    match name {
        ModuleExportName::Ident(i) => (i.span.lo, i.span.hi),
        ModuleExportName::Str(s) => (s.span.lo, s.span.hi),
    }
}

/// Names bound by a pattern, with the type annotation of a plain name.
fn pat_names<'p>(pat: &'p Pat, out: &mut Vec<(String, Option<&'p TsTypeAnn>)>) {
    match pat {
        Pat::Ident(b) => out.push((b.id.sym.to_string(), b.type_ann.as_deref())),
        Pat::Array(a) => {
            for elem in a.elems.iter().flatten() {
                pat_names(elem, out);
            }
        }
        Pat::Object(o) => {
            for prop in &o.props {
                match prop {
                    ObjectPatProp::KeyValue(kv) => pat_names(&kv.value, out),
                    ObjectPatProp::Assign(a) => out.push((a.key.id.sym.to_string(), None)),
                    ObjectPatProp::Rest(r) => pat_names(&r.arg, out),
                }
            }
        }
        Pat::Rest(r) => pat_names(&r.arg, out),
        Pat::Assign(a) => pat_names(&a.left, out),
        Pat::Expr(_) | Pat::Invalid(_) => {}
        #[allow(unreachable_patterns)]
        _ => {}
    }
}

/// Names a declaration binds in its block (`let`, `const`, `class`,
/// `function`, `enum`, `namespace`; with `vars`, also `var`).
fn decl_names(decl: &Decl, vars: bool, out: &mut Vec<String>) {
    match decl {
        Decl::Class(c) => out.push(c.ident.sym.to_string()),
        Decl::Fn(f) => out.push(f.ident.sym.to_string()),
        Decl::Var(v) if v.kind != VarDeclKind::Var || vars => {
            let mut names = Vec::new();
            for d in &v.decls {
                pat_names(&d.name, &mut names);
            }
            out.extend(names.into_iter().map(|(n, _)| n));
        }
        Decl::TsEnum(e) => out.push(e.id.sym.to_string()),
        Decl::TsModule(m) => {
            if let TsModuleName::Ident(i) = &m.id {
                out.push(i.sym.to_string());
            }
        }
        Decl::TsInterface(i) => out.push(i.id.sym.to_string()),
        Decl::TsTypeAlias(t) => out.push(t.id.sym.to_string()),
        Decl::Using(u) => {
            let mut names = Vec::new();
            for d in &u.decls {
                pat_names(&d.name, &mut names);
            }
            out.extend(names.into_iter().map(|(n, _)| n));
        }
        #[allow(unreachable_patterns)]
        _ => {}
    }
}

/// `var` names declared anywhere in `stmts` outside nested functions.
fn var_names(stmts: &[Stmt], out: &mut Vec<String>) {
    for stmt in stmts {
        var_names_stmt(stmt, out);
    }
}

fn var_names_stmt(stmt: &Stmt, out: &mut Vec<String>) {
    let var = |v: &VarDecl, out: &mut Vec<String>| {
        if v.kind == VarDeclKind::Var {
            let mut names = Vec::new();
            for d in &v.decls {
                pat_names(&d.name, &mut names);
            }
            out.extend(names.into_iter().map(|(n, _)| n));
        }
    };
    match stmt {
        Stmt::Decl(Decl::Var(v)) => var(v, out),
        Stmt::Block(b) => var_names(&b.stmts, out),
        Stmt::If(i) => {
            var_names_stmt(&i.cons, out);
            if let Some(alt) = &i.alt {
                var_names_stmt(alt, out);
            }
        }
        Stmt::For(f) => {
            if let Some(VarDeclOrExpr::VarDecl(v)) = &f.init {
                var(v, out);
            }
            var_names_stmt(&f.body, out);
        }
        Stmt::ForIn(f) => {
            if let ForHead::VarDecl(v) = &f.left {
                var(v, out);
            }
            var_names_stmt(&f.body, out);
        }
        Stmt::ForOf(f) => {
            if let ForHead::VarDecl(v) = &f.left {
                var(v, out);
            }
            var_names_stmt(&f.body, out);
        }
        Stmt::While(w) => var_names_stmt(&w.body, out),
        Stmt::DoWhile(w) => var_names_stmt(&w.body, out),
        Stmt::Labeled(l) => var_names_stmt(&l.body, out),
        Stmt::Try(t) => {
            var_names(&t.block.stmts, out);
            if let Some(h) = &t.handler {
                var_names(&h.body.stmts, out);
            }
            if let Some(f) = &t.finalizer {
                var_names(&f.stmts, out);
            }
        }
        Stmt::Switch(s) => {
            for case in &s.cases {
                var_names(&case.cons, out);
            }
        }
        _ => {}
    }
}

/// Names bound directly in a block by lexical declarations.
fn lexical_names(stmts: &[Stmt], out: &mut Vec<String>) {
    for stmt in stmts {
        if let Stmt::Decl(decl) = stmt {
            decl_names(decl, false, out);
        }
    }
}

fn type_param_names(params: Option<&TsTypeParamDecl>, out: &mut Vec<String>) {
    if let Some(params) = params {
        out.extend(params.params.iter().map(|p| p.name.sym.to_string()));
    }
}

impl Facts_<'_, '_> {
    fn line(&self, pos: BytePos) -> u32 {
        self.source.line(pos)
    }

    fn column(&self, pos: BytePos) -> u32 {
        self.source.column(pos)
    }

    /// The binding key of `name`: the innermost frame that binds it.
    fn binding(&self, name: &str) -> Option<ScopeKey> {
        self.frames
            .iter()
            .rev()
            .find(|f| f.names.contains(name))
            .and_then(|f| f.key.clone())
    }

    /// The key names bound in the innermost frame get.
    fn frame_key(&self) -> Option<ScopeKey> {
        self.frames.last().and_then(|f| f.key.clone())
    }

    fn push_frame(&mut self, key: Option<ScopeKey>, names: Vec<String>) {
        self.frames.push(Frame {
            key,
            names: names.into_iter().collect(),
        });
    }

    fn pop_frame(&mut self) {
        if self.frames.len() > 1 {
            self.frames.pop();
        }
    }

    /// A synthetic key for an anonymous function or a module-level block
    /// at `pos`.
    fn synthetic(&self, what: &str, pos: BytePos) -> ScopeKey {
        let line = self.line(pos);
        let column = self.column(pos);
        let own = format!("<{what}@{line}:{column}>");
        let qualname = match self.frame_key().or_else(|| self.scopes.last().cloned()) {
            Some(parent) => format!("{}.{own}", parent.qualname),
            None => own,
        };
        ScopeKey {
            qualname,
            start_line: line,
        }
    }

    /// The outline symbol named at `pos`, if any.
    fn symbol_at(&self, pos: BytePos) -> Option<(ScopeKey, SymbolKind)> {
        self.positions
            .get(&(self.line(pos), self.column(pos)))
            .cloned()
    }

    fn push_reference(
        &mut self,
        name: String,
        receiver: Receiver,
        role: Role,
        (lo, hi): (BytePos, BytePos),
        binding: Option<ScopeKey>,
        subtype: Option<ScopeKey>,
    ) {
        let line = self.line(lo);
        let column = self.column(lo);
        let end_column = if self.line(hi) == line {
            self.column(hi)
        } else {
            column + u32::try_from(name.chars().count()).unwrap_or(0)
        };
        self.facts.references.push(Reference {
            name,
            receiver,
            role,
            line,
            column,
            end_column,
            scope: self.scopes.last().cloned(),
            binding,
            subtype,
            dynamic: None,
        });
    }

    /// The binding of a chain's head; for `this`, the innermost frame with
    /// a [`LocalType`] for it when the class is known.
    fn head_binding(&mut self, head: &str) -> Option<ScopeKey> {
        if head != "this" {
            return self.binding(head);
        }
        let class = self.this_class.last().cloned().flatten();
        let key = self.frame_key();
        if let (Some(class), Some(key)) = (class, key.clone())
            && self.typed_this.insert(key.qualname.clone())
        {
            self.facts.types.push(LocalType {
                scope: Some(key.clone()),
                name: "this".to_owned(),
                type_of: TypeOf::Instance(class),
                line: key.start_line,
                until: None,
            });
        }
        key
    }

    /// References of a chain used with `role`: the head read (unless
    /// `this`), each middle name an attribute, the last with `role`.
    fn chain_refs(&mut self, chain: Chain, role: Role, subtype: Option<ScopeKey>) {
        let Some((head, _, _)) = chain.first() else {
            return;
        };
        let head = head.clone();
        let binding = self.head_binding(&head);
        let count = chain.len();
        let mut path: Vec<String> = Vec::new();
        for (i, (name, lo, hi)) in chain.into_iter().enumerate() {
            let last = i + 1 == count;
            let this_role = if last {
                role
            } else if i == 0 {
                Role::Read
            } else {
                Role::Attribute
            };
            if !(i == 0 && name == "this") {
                let receiver = if i == 0 {
                    Receiver::Bare
                } else if path.len() > outline_core::xref::MAX_RECEIVER_PARTS {
                    Receiver::Expression
                } else {
                    Receiver::Path(path.clone())
                };
                let subtype = if last { subtype.clone() } else { None };
                self.push_reference(
                    name.clone(),
                    receiver,
                    this_role,
                    (lo, hi),
                    binding.clone(),
                    subtype,
                );
            }
            path.push(name);
        }
    }

    fn import_binding(
        &mut self,
        local: String,
        module: String,
        name: Option<String>,
        pos: BytePos,
    ) {
        let line = self.line(pos);
        self.facts.imports.push(ImportBinding {
            local,
            module,
            level: 0,
            name,
            line,
            scope: self.frame_key(),
        });
    }

    fn module_item(&mut self, item: &ModuleItem) {
        match item {
            ModuleItem::ModuleDecl(decl) => self.module_decl(decl),
            ModuleItem::Stmt(stmt) => stmt.visit_with(self),
        }
    }

    fn module_decl(&mut self, decl: &ModuleDecl) {
        match decl {
            ModuleDecl::Import(i) => self.import_decl(i),
            ModuleDecl::ExportNamed(e) => self.named_export(e),
            ModuleDecl::ExportAll(e) => self.export_all(e),
            ModuleDecl::ExportDefaultDecl(e) => self.export_default_decl(e),
            ModuleDecl::ExportDefaultExpr(e) => self.export_default_expr(e),
            ModuleDecl::TsImportEquals(e) => self.import_equals(e),
            ModuleDecl::ExportDecl(e) => e.decl.visit_with(self),
            other => other.visit_children_with(self),
        }
    }

    fn import_decl(&mut self, i: &ImportDecl) {
        let module = specifier(self.source, &i.src);
        for s in &i.specifiers {
            match s {
                ImportSpecifier::Named(n) => {
                    let (name, pos) = match &n.imported {
                        Some(imported) => (export_name(imported), export_pos(imported)),
                        None => (n.local.sym.to_string(), (n.local.span.lo, n.local.span.hi)),
                    };
                    self.import_binding(
                        n.local.sym.to_string(),
                        module.clone(),
                        Some(name.clone()),
                        i.span.lo,
                    );
                    self.import_ref(name, pos);
                }
                ImportSpecifier::Default(d) => {
                    self.import_binding(
                        d.local.sym.to_string(),
                        module.clone(),
                        Some("default".to_owned()),
                        i.span.lo,
                    );
                    self.import_ref(d.local.sym.to_string(), (d.local.span.lo, d.local.span.hi));
                }
                ImportSpecifier::Namespace(n) => {
                    self.import_binding(n.local.sym.to_string(), module.clone(), None, i.span.lo)
                }
            }
        }
    }

    /// An import-role reference, at the name (also on a later line of a
    /// multi-line import: the resolver pairs it with the binding of the
    /// statement that starts at or above it).
    fn import_ref(&mut self, name: String, (lo, hi): (BytePos, BytePos)) {
        self.facts.references.push(Reference {
            name,
            receiver: Receiver::Bare,
            role: Role::Import,
            line: self.line(lo),
            column: self.column(lo),
            end_column: self.column(hi),
            scope: self.scopes.last().cloned(),
            binding: None,
            subtype: None,
            dynamic: None,
        });
    }

    fn named_export(&mut self, e: &NamedExport) {
        let module = e.src.as_ref().map(|s| specifier(self.source, s));
        // The names the statement exports: a module's import is one of its
        // members only when exported (ECMA-262, "Exports").
        let exports = self.facts.exports.get_or_insert_with(Vec::new);
        for s in &e.specifiers {
            let name = match s {
                ExportSpecifier::Named(n) => export_name(n.exported.as_ref().unwrap_or(&n.orig)),
                ExportSpecifier::Namespace(n) => export_name(&n.name),
                ExportSpecifier::Default(d) => d.exported.sym.to_string(),
            };
            exports.push(name);
        }
        for s in &e.specifiers {
            match (s, &module) {
                (ExportSpecifier::Named(n), Some(module)) => {
                    let orig = export_name(&n.orig);
                    let exported = n
                        .exported
                        .as_ref()
                        .map_or_else(|| orig.clone(), export_name);
                    self.import_binding(exported, module.clone(), Some(orig.clone()), e.span.lo);
                    self.import_ref(orig, export_pos(&n.orig));
                }
                (ExportSpecifier::Named(n), None) => {
                    let orig = export_name(&n.orig);
                    if let ModuleExportName::Ident(i) = &n.orig {
                        let binding = self.binding(&orig);
                        self.push_reference(
                            orig.clone(),
                            Receiver::Bare,
                            Role::Read,
                            (i.span.lo, i.span.hi),
                            binding,
                            None,
                        );
                    }
                    if let Some(exported) = &n.exported {
                        let exported = export_name(exported);
                        if exported != orig {
                            self.import_binding(exported, String::new(), Some(orig), e.span.lo);
                        }
                    }
                }
                (ExportSpecifier::Namespace(n), Some(module)) => {
                    self.import_binding(export_name(&n.name), module.clone(), None, e.span.lo);
                }
                (ExportSpecifier::Default(d), Some(module)) => {
                    self.import_binding(
                        d.exported.sym.to_string(),
                        module.clone(),
                        Some("default".to_owned()),
                        e.span.lo,
                    );
                }
                _ => {}
            }
        }
    }

    fn export_all(&mut self, e: &ExportAll) {
        let module = specifier(self.source, &e.src);
        self.import_binding("*".to_owned(), module, Some("*".to_owned()), e.span.lo);
    }

    fn export_default_decl(&mut self, e: &ExportDefaultDecl) {
        match &e.decl {
            DefaultDecl::Class(c) => {
                if let Some(ident) = &c.ident {
                    self.import_binding(
                        "default".to_owned(),
                        String::new(),
                        Some(ident.sym.to_string()),
                        e.span.lo,
                    );
                    self.pending = Some((ident.span.lo, false));
                } else {
                    self.pending = Some((c.class.span.lo, false));
                }
                self.class(&c.class);
            }
            DefaultDecl::Fn(f) => {
                if let Some(ident) = &f.ident {
                    self.import_binding(
                        "default".to_owned(),
                        String::new(),
                        Some(ident.sym.to_string()),
                        e.span.lo,
                    );
                    self.pending = Some((ident.span.lo, false));
                } else {
                    self.pending = Some((f.function.span.lo, false));
                }
                f.function.visit_with(self);
            }
            DefaultDecl::TsInterfaceDecl(i) => {
                self.import_binding(
                    "default".to_owned(),
                    String::new(),
                    Some(i.id.sym.to_string()),
                    e.span.lo,
                );
                i.visit_with(self);
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    fn export_default_expr(&mut self, e: &ExportDefaultExpr) {
        if let Expr::Ident(i) = unparen(&e.expr) {
            self.import_binding(
                "default".to_owned(),
                String::new(),
                Some(i.sym.to_string()),
                e.span.lo,
            );
        }
        let start = e.expr.span().lo;
        if matches!(
            unparen(&e.expr),
            Expr::Arrow(_) | Expr::Fn(_) | Expr::Class(_)
        ) {
            self.pending = Some((start, false));
        }
        e.expr.visit_with(self);
    }

    fn import_equals(&mut self, e: &TsImportEqualsDecl) {
        match &e.module_ref {
            TsModuleRef::TsExternalModuleRef(r) => {
                let module = specifier(self.source, &r.expr);
                self.import_binding(e.id.sym.to_string(), module, None, e.span.lo);
            }
            TsModuleRef::TsEntityName(name) => {
                let chain = entity_chain(name);
                self.chain_refs(chain, Role::Read, None);
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    /// Enters a function-like scope: takes the pending name, pushes the
    /// frame with `names`, runs `body`, pops.
    fn function_scope(
        &mut self,
        span_lo: BytePos,
        arrow: bool,
        names: Vec<String>,
        body: impl FnOnce(&mut Self),
    ) {
        let pending = self.pending.take();
        let symbol = pending.and_then(|(pos, _)| self.symbol_at(pos));
        let is_method = pending.is_some_and(|(_, m)| m);
        let key = match &symbol {
            Some((key, _)) => key.clone(),
            None => self.synthetic("function", span_lo),
        };
        let own_scope = symbol.is_some();
        if own_scope {
            self.scopes.push(key.clone());
        }
        if !arrow {
            let class = if is_method {
                self.this_class.last().cloned().flatten()
            } else {
                None
            };
            self.this_class.push(class);
        }
        self.push_frame(Some(key), names);
        body(self);
        self.pop_frame();
        if !arrow {
            self.this_class.pop();
        }
        if own_scope {
            self.scopes.pop();
        }
    }

    /// Names a function body binds (parameters given separately).
    fn body_names(stmts: &[Stmt], out: &mut Vec<String>) {
        var_names(stmts, out);
        lexical_names(stmts, out);
    }

    /// The declared return type of the function whose frame is innermost.
    fn return_type(&mut self, ty: &TsType) {
        if let (Some(function), Some(path)) = (self.frame_key(), type_path(ty)) {
            self.facts.returns.push(ReturnType {
                function,
                type_of: path,
            });
        }
    }

    /// The type parameters of the innermost frame's declaration: their
    /// constraints and defaults are uses (in that frame, where the
    /// parameters are bound: `<T extends Node<T>>`), and a parameter with a
    /// constraint has its members (`x: T` with `T extends User`).
    fn type_params(&mut self, params: Option<&TsTypeParamDecl>, line: u32) {
        let owner = self.frame_key();
        self.type_params_of(params, line, owner);
    }

    /// [`Self::type_params`] with the generic definition named: its
    /// [`Generics`] fact.
    fn type_params_of(
        &mut self,
        params: Option<&TsTypeParamDecl>,
        line: u32,
        owner: Option<ScopeKey>,
    ) {
        let Some(params) = params else {
            return;
        };
        if let Some(owner) = owner {
            self.facts.generics.push(Generics {
                owner: Some(owner),
                params: params
                    .params
                    .iter()
                    .map(|p| TypeParam {
                        name: p.name.sym.to_string(),
                        constraint: p
                            .constraint
                            .as_deref()
                            .map(ts_type)
                            .filter(|t| *t != TypeExpr::Unknown),
                        default: p
                            .default
                            .as_deref()
                            .map(ts_type)
                            .filter(|t| *t != TypeExpr::Unknown),
                    })
                    .collect(),
            });
        }
        for param in &params.params {
            param.constraint.visit_with(self);
            param.default.visit_with(self);
            if let Some(path) = param.constraint.as_deref().and_then(type_path) {
                self.facts.types.push(LocalType {
                    scope: self.frame_key(),
                    name: param.name.sym.to_string(),
                    type_of: TypeOf::Path(path),
                    line,
                    until: None,
                });
            }
        }
    }

    /// The types of a function's parameters bound in the current frame:
    /// written ones, those of a destructured parameter (`{ a }: Props`:
    /// `a` is `Props["a"]`), and those the contextual type `context` gives
    /// the others (parameter `j` of the function `context` is).
    fn param_types<'p>(
        &mut self,
        context: Option<Value>,
        params: impl Iterator<Item = &'p Pat>,
        line: u32,
    ) {
        for (j, pat) in params.enumerate() {
            let base = context.as_ref().map(|c| Value::Param {
                function: Box::new(c.clone()),
                index: u32::try_from(j).unwrap_or(u32::MAX),
            });
            self.pattern_types(pat, base, line);
        }
    }

    /// The types a binding pattern gives its names: `base` is the value it
    /// destructures (its written type comes first).
    fn pattern_types(&mut self, pat: &Pat, base: Option<Value>, line: u32) {
        let written = |ann: Option<&TsTypeAnn>| {
            ann.map(|t| ts_type(&t.type_ann))
                .filter(|t| *t != TypeExpr::Unknown)
        };
        match pat {
            Pat::Ident(b) => {
                let type_of = match (written(b.type_ann.as_deref()), base) {
                    (Some(ty), _) => TypeOf::Type(ty),
                    (None, Some(value)) => TypeOf::Value(value),
                    (None, None) => return,
                };
                self.facts.types.push(LocalType {
                    scope: self.frame_key(),
                    name: b.id.sym.to_string(),
                    type_of,
                    line,
                    until: None,
                });
            }
            Pat::Assign(a) => self.pattern_types(&a.left, base, line),
            Pat::Object(o) => {
                let base = written(o.type_ann.as_deref()).map(Value::Typed).or(base);
                let Some(base) = base else {
                    return;
                };
                for prop in &o.props {
                    match prop {
                        ObjectPatProp::KeyValue(kv) => {
                            if let Some(key) = prop_name(&kv.key) {
                                let member = Value::Member(Box::new(base.clone()), key);
                                self.pattern_types(&kv.value, Some(member), line);
                            }
                        }
                        ObjectPatProp::Assign(a) => {
                            if a.key.type_ann.is_none() {
                                self.facts.types.push(LocalType {
                                    scope: self.frame_key(),
                                    name: a.key.id.sym.to_string(),
                                    type_of: TypeOf::Value(Value::Member(
                                        Box::new(base.clone()),
                                        a.key.id.sym.to_string(),
                                    )),
                                    line,
                                    until: None,
                                });
                            }
                        }
                        ObjectPatProp::Rest(_) => {}
                    }
                }
            }
            Pat::Array(a) => {
                let base = written(a.type_ann.as_deref()).map(Value::Typed).or(base);
                let Some(base) = base else {
                    return;
                };
                for elem in a.elems.iter().flatten() {
                    let element = Value::Element(Box::new(base.clone()));
                    self.pattern_types(elem, Some(element), line);
                }
            }
            _ => {}
        }
    }

    /// The signature of the function whose frame is innermost, when it is
    /// an outline symbol: its parameters, written return type, or the value
    /// it returns.
    fn signature<'p>(
        &mut self,
        params: impl Iterator<Item = &'p Pat>,
        ret: Option<&TsType>,
        returns: Option<Value>,
    ) {
        let Some(function) = self.frame_key() else {
            return;
        };
        if self.scopes.last() != Some(&function) {
            return;
        }
        let params: Vec<_> = params.map(pat_param).collect();
        let ret = ret.map(ts_type);
        let returns = if ret.is_none() { returns } else { None };
        if params.iter().all(|p| p.ty.is_none()) && ret.is_none() && returns.is_none() {
            return;
        }
        self.facts.signatures.push(Signature {
            function,
            params,
            ret,
            returns,
        });
    }

    /// A function's `this: T` parameter (TypeScript handbook, "Declaring
    /// `this` in a Function"): `this` in the body has `T`'s members.
    fn this_param(&mut self, param: &TsThisParam, line: u32) {
        param.type_ann.visit_with(self);
        let Some(key) = self.frame_key() else {
            return;
        };
        if let Some(ty) = param
            .type_ann
            .as_ref()
            .map(|t| ts_type(&t.type_ann))
            .filter(|t| *t != TypeExpr::Unknown)
        {
            self.typed_this.insert(key.qualname.clone());
            self.facts.types.push(LocalType {
                scope: Some(key),
                name: "this".to_owned(),
                type_of: TypeOf::Type(ty),
                line,
                until: None,
            });
        }
    }

    /// Local types of parameters or declarators bound in the current frame.
    fn annotated(&mut self, names: &[(String, Option<&TsTypeAnn>)], line: u32) {
        for (name, annotation) in names {
            let Some(annotation) = annotation else {
                continue;
            };
            let ty = ts_type(&annotation.type_ann);
            if ty != TypeExpr::Unknown {
                self.facts.types.push(LocalType {
                    scope: self.frame_key(),
                    name: name.clone(),
                    type_of: TypeOf::Type(ty),
                    line,
                    until: None,
                });
            }
        }
    }

    fn class(&mut self, class: &Class) {
        let pending = self.pending.take();
        let symbol = pending.and_then(|(pos, _)| self.symbol_at(pos));
        let key = symbol.as_ref().map(|(k, _)| k.clone());
        // Decorators and heritage belong to the scope around the class.
        for d in &class.decorators {
            d.visit_with(self);
        }
        let mut type_names = Vec::new();
        type_param_names(class.type_params.as_deref(), &mut type_names);
        let frame_key = key
            .clone()
            .or_else(|| Some(self.synthetic("class", class.span.lo)));
        self.push_frame(frame_key, type_names);
        let line = self.line(class.span.lo);
        self.type_params_of(class.type_params.as_deref(), line, key.clone());
        if let Some(key) = &key {
            if let Some(sup) = &class.super_class
                && let Some(c) = chain(sup)
            {
                let args = class
                    .super_type_params
                    .as_ref()
                    .map(|a| a.params.iter().map(|t| ts_type(t)).collect())
                    .unwrap_or_default();
                self.facts.bases.push(Base {
                    class: key.clone(),
                    ty: TypeExpr::Named {
                        path: c.into_iter().map(|(n, _, _)| n).collect(),
                        args,
                    },
                });
            }
            for imp in &class.implements {
                self.typed_base(key, imp);
            }
        }
        if let Some(sup) = &class.super_class {
            match chain(sup) {
                Some(c) => self.chain_refs(c, Role::Inherit, key.clone()),
                None => sup.visit_with(self),
            }
        }
        if let Some(args) = &class.super_type_params {
            args.visit_with(self);
        }
        for imp in &class.implements {
            self.heritage(imp, key.clone());
        }
        if let Some(key) = &key {
            self.scopes.push(key.clone());
        }
        self.this_class.push(key.clone());
        for member in &class.body {
            self.class_member(member);
        }
        self.this_class.pop();
        if key.is_some() {
            self.scopes.pop();
        }
        self.pop_frame();
    }

    /// A base written with its type arguments (`implements A<T>`, `extends
    /// B<U>` of an interface): a [`Base`] fact of `class`.
    fn typed_base(&mut self, class: &ScopeKey, h: &TsExprWithTypeArgs) {
        if let Some(c) = chain(&h.expr) {
            let args = h
                .type_args
                .as_ref()
                .map(|a| a.params.iter().map(|t| ts_type(t)).collect())
                .unwrap_or_default();
            self.facts.bases.push(Base {
                class: class.clone(),
                ty: TypeExpr::Named {
                    path: c.into_iter().map(|(n, _, _)| n).collect(),
                    args,
                },
            });
        }
    }

    fn heritage(&mut self, h: &TsExprWithTypeArgs, subtype: Option<ScopeKey>) {
        match chain(&h.expr) {
            Some(c) => self.chain_refs(c, Role::Inherit, subtype),
            None => h.expr.visit_with(self),
        }
        if let Some(args) = &h.type_args {
            args.visit_with(self);
        }
    }

    fn class_member(&mut self, member: &ClassMember) {
        match member {
            ClassMember::Method(m) => {
                m.key.visit_with(self);
                self.pending = Some((m.key.span().lo, true));
                m.function.visit_with(self);
            }
            ClassMember::PrivateMethod(m) => {
                self.pending = Some((m.key.span.lo, true));
                m.function.visit_with(self);
            }
            ClassMember::Constructor(c) => self.constructor(c),
            ClassMember::ClassProp(p) => {
                if let PropName::Ident(name) = &p.key {
                    let type_of = match (&p.type_ann, &p.value) {
                        (Some(t), _) => declared(&t.type_ann),
                        (None, Some(value)) => new_path(value).map(|p| (p, false)),
                        (None, None) => None,
                    };
                    let ty = p.type_ann.as_ref().map(|t| ts_type(&t.type_ann));
                    let value = match ty {
                        Some(_) => None,
                        None => p.value.as_deref().and_then(value_of),
                    };
                    self.typed_property(name.sym.to_string(), name.span.lo, type_of, ty, value);
                }
                p.key.visit_with(self);
                for d in &p.decorators {
                    d.visit_with(self);
                }
                if let Some(t) = &p.type_ann {
                    t.visit_with(self);
                }
                if let Some(value) = &p.value {
                    if matches!(unparen(value), Expr::Arrow(_) | Expr::Fn(_)) {
                        self.pending = Some((p.key.span().lo, true));
                    }
                    let context = p
                        .type_ann
                        .as_ref()
                        .map(|t| Value::Typed(ts_type(&t.type_ann)));
                    self.contextual(value, context);
                    value.visit_with(self);
                }
            }
            ClassMember::PrivateProp(p) => {
                if let Some(t) = &p.type_ann {
                    t.visit_with(self);
                }
                if let Some(value) = &p.value {
                    if matches!(unparen(value), Expr::Arrow(_) | Expr::Fn(_)) {
                        self.pending = Some((p.key.span.lo, true));
                    }
                    value.visit_with(self);
                }
            }
            other => other.visit_children_with(self),
        }
    }

    fn constructor(&mut self, c: &Constructor) {
        self.pending = Some((c.key.span().lo, true));
        let mut names = Vec::new();
        let mut typed = Vec::new();
        for p in &c.params {
            match p {
                ParamOrTsParamProp::Param(p) => pat_names(&p.pat, &mut typed),
                ParamOrTsParamProp::TsParamProp(p) => match &p.param {
                    TsParamPropParam::Ident(b) => {
                        let type_of = b.type_ann.as_deref().and_then(|t| declared(&t.type_ann));
                        let ty = b.type_ann.as_deref().map(|t| ts_type(&t.type_ann));
                        self.typed_property(b.id.sym.to_string(), b.id.span.lo, type_of, ty, None);
                        typed.push((b.id.sym.to_string(), b.type_ann.as_deref()))
                    }
                    TsParamPropParam::Assign(a) => pat_names(&a.left, &mut typed),
                    #[allow(unreachable_patterns)]
                    _ => {}
                },
                #[allow(unreachable_patterns)]
                _ => {}
            }
        }
        names.extend(typed.iter().map(|(n, _)| n.clone()));
        if let Some(body) = &c.body {
            Self::body_names(&body.stmts, &mut names);
        }
        self.function_scope(c.span.lo, false, names, |this| {
            let line = this.frame_key().map_or(0, |k| k.start_line);
            this.annotated(&typed, line);
            for p in &c.params {
                p.visit_with(this);
            }
            if let Some(body) = &c.body {
                for stmt in &body.stmts {
                    stmt.visit_with(this);
                }
            }
        });
    }

    fn call_like(&mut self, callee: &Expr, role: Role) {
        match chain(callee) {
            Some(c) => self.chain_refs(c, role, None),
            None => match unparen(callee) {
                Expr::Member(MemberExpr {
                    obj,
                    prop: MemberProp::Ident(name),
                    ..
                }) => {
                    obj.visit_with(self);
                    let (receiver, binding) = self.result_receiver(obj);
                    self.push_reference(
                        name.sym.to_string(),
                        receiver,
                        role,
                        (name.span.lo, name.span.hi),
                        binding,
                        None,
                    );
                }
                // `obj["name"]()`: a call of the member the string names,
                // as `obj.name()` is.
                Expr::Member(MemberExpr {
                    obj,
                    prop: MemberProp::Computed(key),
                    ..
                }) if string_lit(&key.expr).is_some() => {
                    obj.visit_with(self);
                    if let Some((name, lo, hi)) = string_lit(&key.expr) {
                        let (receiver, binding) = self.member_receiver(obj);
                        self.push_reference(name, receiver, role, (lo, hi), binding, None);
                    }
                }
                Expr::SuperProp(member) => self.super_refs(member, role),
                other => other.visit_with(self),
            },
        }
    }

    /// The reference of `super.name` (ECMAScript "SuperProperty"): `name`
    /// looked up in the bases of the enclosing class, as Python's
    /// `super().name` is (the receiver `super()`).
    fn super_refs(&mut self, member: &SuperPropExpr, role: Role) {
        match &member.prop {
            SuperProp::Ident(name) => self.push_reference(
                name.sym.to_string(),
                Receiver::Call(vec!["super".to_owned()]),
                role,
                (name.span.lo, name.span.hi),
                None,
                None,
            ),
            SuperProp::Computed(c) => c.visit_with(self),
        }
    }

    /// The references of the member expression `m` (`node` is the whole
    /// expression, plain or optional): a dotted chain's parts, else the
    /// object's references and the member read on it.
    fn member_refs(&mut self, node: &Expr, m: &MemberExpr) {
        self.member_refs_as(Some(node), m, Role::Attribute);
    }

    /// [`Self::member_refs`] with the member's `role` (an assignment's
    /// target is written); `node` is the member as an expression when
    /// there is one.
    fn member_refs_as(&mut self, node: Option<&Expr>, m: &MemberExpr, role: Role) {
        let dotted = match node {
            Some(node) => chain(node),
            None => match &m.prop {
                MemberProp::Ident(name) => chain(&m.obj).map(|mut c| {
                    c.push((name.sym.to_string(), name.span.lo, name.span.hi));
                    c
                }),
                _ => None,
            },
        };
        if let Some(c) = dotted {
            self.chain_refs(c, role, None);
            return;
        }
        m.obj.visit_with(self);
        match &m.prop {
            MemberProp::Ident(name) => {
                let (receiver, binding) = self.result_receiver(&m.obj);
                self.push_reference(
                    name.sym.to_string(),
                    receiver,
                    role,
                    (name.span.lo, name.span.hi),
                    binding,
                    None,
                );
            }
            MemberProp::Computed(c) => {
                // `obj["name"]`: the member named by the string.
                if let Expr::Lit(Lit::Str(s)) = &*c.expr
                    && let Some(name) = s.value.as_str()
                    && s.span.hi.0 > s.span.lo.0 + 1
                {
                    let (receiver, binding) = self.result_receiver(&m.obj);
                    self.push_reference(
                        name.to_owned(),
                        receiver,
                        role,
                        (s.span.lo + BytePos(1), s.span.hi - BytePos(1)),
                        binding,
                        None,
                    );
                }
                c.visit_with(self)
            }
            _ => {}
        }
    }

    /// The receiver of a member of `obj` that is not a dotted chain: the
    /// value `obj` gives ([`Receiver::Value`]), with the binding of its
    /// first name; else [`Receiver::Expression`].
    fn result_receiver(&mut self, obj: &Expr) -> (Receiver, Option<ScopeKey>) {
        let Some(value) = value_of(obj) else {
            return (Receiver::Expression, None);
        };
        let binding = match value.head().map(str::to_owned) {
            Some(head) => self.head_binding(&head),
            None => None,
        };
        (Receiver::Value(value), binding)
    }

    /// A typed class property or constructor parameter property `name` of
    /// the innermost class: an [`Attribute`] (its type resolved in the
    /// class's scope).
    fn typed_property(
        &mut self,
        name: String,
        pos: BytePos,
        type_of: Option<(Vec<String>, bool)>,
        ty: Option<TypeExpr>,
        value: Option<Value>,
    ) {
        let ty = ty.filter(|t| *t != TypeExpr::Unknown);
        if type_of.is_none() && ty.is_none() && value.is_none() {
            return;
        }
        let Some(class) = self.this_class.last().cloned().flatten() else {
            return;
        };
        let (type_of, elements) = match type_of {
            Some((path, elements)) => (Some(path), elements),
            None => (None, false),
        };
        let line = self.line(pos);
        self.facts.attributes.push(Attribute {
            scope: Some(class.clone()),
            class,
            name,
            line,
            type_of,
            elements,
            ty,
            value,
            instance: false,
        });
    }

    /// Sets the contextual type `context` for `value` when it is a function
    /// (its parameters) or an object literal (its keys).
    fn contextual(&mut self, value: &Expr, context: Option<Value>) {
        let Some(context) = context else {
            return;
        };
        match unparen_keep_await(value) {
            Expr::Arrow(_) | Expr::Fn(_) => self.callback = Some(context),
            Expr::Object(_) => self.object_context = Some(context),
            Expr::Call(_) | Expr::New(_) => self.call_context = Some(context),
            Expr::Array(_) => {
                self.object_context = Some(Value::Element(Box::new(context)));
            }
            _ => {}
        }
    }

    /// An object literal with a contextual type `context`: each plain key a
    /// reference to that type's member, each value's own context that
    /// member.
    fn object_literal(&mut self, object: &swc_ecma_ast::ObjectLit, context: Value) {
        let head = context.head().map(str::to_owned);
        let binding = match &head {
            Some(h) => self.head_binding(h),
            None => None,
        };
        for prop in &object.props {
            let swc_ecma_ast::PropOrSpread::Prop(prop) = prop else {
                prop.visit_with(self);
                continue;
            };
            let key = match &**prop {
                Prop::KeyValue(kv) => Some(&kv.key),
                Prop::Method(m) => Some(&m.key),
                Prop::Getter(g) => Some(&g.key),
                Prop::Setter(s) => Some(&s.key),
                _ => None,
            };
            let named = match &**prop {
                Prop::Shorthand(i) => Some((i.sym.to_string(), i.span.lo, i.span.hi)),
                _ => key.and_then(|k| match k {
                    PropName::Ident(i) => Some((i.sym.to_string(), i.span.lo, i.span.hi)),
                    PropName::Str(s) => Some((
                        s.value.to_string_lossy().into_owned(),
                        s.span.lo + BytePos(1),
                        s.span.hi - BytePos(1),
                    )),
                    _ => None,
                }),
            };
            if let Some((name, lo, hi)) = &named {
                self.push_reference(
                    name.clone(),
                    Receiver::Value(Value::Literal(Box::new(context.clone()))),
                    Role::Write,
                    (*lo, *hi),
                    binding.clone(),
                    None,
                );
            }
            let member = named.map(|(name, _, _)| Value::Member(Box::new(context.clone()), name));
            match &**prop {
                Prop::KeyValue(kv) => {
                    if let PropName::Computed(c) = &kv.key {
                        c.visit_with(self);
                    }
                    if matches!(unparen(&kv.value), Expr::Arrow(_) | Expr::Fn(_)) {
                        self.pending = Some((kv.key.span().lo, false));
                    }
                    self.contextual(&kv.value, member);
                    kv.value.visit_with(self);
                }
                Prop::Method(m) => {
                    if let PropName::Computed(c) = &m.key {
                        c.visit_with(self);
                    }
                    self.pending = Some((m.key.span().lo, false));
                    self.callback = member;
                    m.function.visit_with(self);
                }
                other => other.visit_with(self),
            }
        }
    }

    /// `for (left in right) body` and `for (left of right) body`: the
    /// right side in the scope around the loop, the head's bindings in the
    /// loop's own frame (ECMAScript: a `let`/`const` head is per loop).
    fn for_each_loop(&mut self, lo: BytePos, left: &ForHead, right: &Expr, body: &Stmt, of: bool) {
        right.visit_with(self);
        let key = self.block_key(lo);
        let names = head_names(left);
        // `for (const x of xs)`: `x` is an element of `xs`.
        if of
            && let [name] = names.as_slice()
            && let Some(iterable) = value_of(right)
        {
            self.facts.types.push(LocalType {
                scope: key.clone(),
                name: name.clone(),
                type_of: TypeOf::Value(Value::Element(Box::new(iterable))),
                line: self.line(lo),
                until: None,
            });
        }
        self.push_frame(key, names);
        left.visit_with(self);
        body.visit_with(self);
        self.pop_frame();
    }

    /// A block's own frame: at module level a synthetic key, in a function
    /// the function's.
    fn block_key(&self, pos: BytePos) -> Option<ScopeKey> {
        match self.frame_key() {
            Some(key) => Some(key),
            None => Some(self.synthetic("block", pos)),
        }
    }

    fn var_types(&mut self, d: &VarDeclarator) {
        let mut names = Vec::new();
        pat_names(&d.name, &mut names);
        let line = self.line(d.span.lo);
        let key = match names.first() {
            Some((name, _)) => self.binding(name).or_else(|| self.frame_key()),
            None => self.frame_key(),
        };
        let module = d
            .init
            .as_deref()
            .and_then(|init| required(self.source, init));
        if let Some(module) = &module {
            if matches!(d.name, Pat::Ident(_) | Pat::Object(_))
                && let Some(Expr::Call(call)) = d.init.as_deref().map(unparen)
            {
                self.bound_requires.insert(call.span.lo);
            }
            match &d.name {
                Pat::Ident(b) => {
                    self.facts.imports.push(ImportBinding {
                        local: b.id.sym.to_string(),
                        module: module.clone(),
                        level: 0,
                        name: None,
                        line,
                        scope: key.clone(),
                    });
                }
                Pat::Object(o) => {
                    for prop in &o.props {
                        let Some((local, name)) = destructured(prop) else {
                            continue;
                        };
                        self.facts.imports.push(ImportBinding {
                            local,
                            module: module.clone(),
                            level: 0,
                            name: Some(name),
                            line,
                            scope: key.clone(),
                        });
                    }
                }
                _ => {}
            }
            return;
        }
        // `x = new A()`, `x = make()`, `x = a.b().c`, `{ a, b: c } = this.x`:
        // the value each name takes, unless written.
        let value = d.init.as_deref().and_then(value_of);
        if let Some(head) = value.as_ref().and_then(Value::head)
            && head == "this"
        {
            // `this` gets its type in this scope.
            self.head_binding("this");
        }
        // The names are bound in the frame of their binding (a `var` in a
        // block belongs to the function): given there.
        let frame = self.frames.len();
        self.frames.push(Frame {
            key: key.clone(),
            names: HashSet::new(),
        });
        // A name's own use in its initializer is not its type (`x = x.y`).
        let own = matches!((&d.name, &value), (Pat::Ident(b), Some(Value::Path(p)))
            if p.len() == 1 && p.first().is_some_and(|h| h.as_str() == &*b.id.sym));
        self.pattern_types(&d.name, if own { None } else { value }, line);
        self.frames.truncate(frame);
    }
}

/// The dotted name of a type reference (`User`, `models.User`), looking
/// through arrays, `Promise`-like generics are not unwrapped.
fn type_path(ty: &TsType) -> Option<Vec<String>> {
    match ty {
        // `Partial<T>`, `Readonly<T>`… have the members of `T`.
        TsType::TsTypeRef(TsTypeRef {
            type_name: TsEntityName::Ident(name),
            type_params: Some(args),
            ..
        }) if matches!(
            &*name.sym,
            "Partial" | "Readonly" | "Required" | "NonNullable"
                // What `await` gives (its members are not the promise's
                // own: `then` is not a project member).
                | "Promise" | "PromiseLike" | "Awaited"
        ) =>
        {
            type_path(args.params.first()?)
        }
        TsType::TsTypeRef(r) => Some(
            entity_chain(&r.type_name)
                .into_iter()
                .map(|(n, _, _)| n)
                .collect(),
        ),
        TsType::TsParenthesizedType(p) => type_path(&p.type_ann),
        // `A | null`, `A | B`: the first member naming a type.
        TsType::TsUnionOrIntersectionType(TsUnionOrIntersectionType::TsUnionType(u)) => {
            u.types.iter().find_map(|t| type_path(t))
        }
        _ => None,
    }
}

/// The element type of a collection type: `User[]`, `readonly User[]`,
/// `Array<User>`, `ReadonlyArray<User>`, `Set<User>`, `Iterable<User>`, also
/// in a union with `null`/`undefined`.
fn type_elements(ty: &TsType) -> Option<Vec<String>> {
    match ty {
        TsType::TsArrayType(a) => type_path(&a.elem_type),
        TsType::TsTypeOperator(o) if o.op == TsTypeOperatorOp::ReadOnly => {
            type_elements(&o.type_ann)
        }
        TsType::TsParenthesizedType(p) => type_elements(&p.type_ann),
        TsType::TsTypeRef(TsTypeRef {
            type_name: TsEntityName::Ident(name),
            type_params: Some(args),
            ..
        }) if matches!(
            &*name.sym,
            "Array"
                | "ReadonlyArray"
                | "Set"
                | "ReadonlySet"
                | "Iterable"
                | "IterableIterator"
                | "Iterator"
                | "AsyncIterable"
                | "AsyncIterableIterator"
                | "Generator"
                | "AsyncGenerator"
        ) =>
        {
            type_path(args.params.first()?)
        }
        TsType::TsUnionOrIntersectionType(TsUnionOrIntersectionType::TsUnionType(u)) => {
            u.types.iter().find_map(|t| type_elements(t))
        }
        _ => None,
    }
}

/// A declared type as an attribute's (dotted name, whether a collection of
/// it).
fn declared(ty: &TsType) -> Option<(Vec<String>, bool)> {
    match type_elements(ty) {
        Some(element) => Some((element, true)),
        None => type_path(ty).map(|path| (path, false)),
    }
}

/// The class a `new` expression instantiates (`new a.B()`), as a path.
fn new_path(expr: &Expr) -> Option<Vec<String>> {
    match unparen(expr) {
        Expr::New(NewExpr { callee, .. }) => {
            Some(chain(callee)?.into_iter().map(|(n, _, _)| n).collect())
        }
        _ => None,
    }
}

/// The names an `if` test narrows by `instanceof` in its consequent, with
/// the class each is narrowed to: `x instanceof C`, also in either side of
/// `&&` (TypeScript handbook, "Narrowing": `instanceof` narrowing).
fn instanceof_narrowed(test: &Expr, out: &mut Vec<(String, Vec<String>)>) {
    let Expr::Bin(bin) = unparen(test) else {
        return;
    };
    match bin.op {
        BinaryOp::LogicalAnd => {
            instanceof_narrowed(&bin.left, out);
            instanceof_narrowed(&bin.right, out);
        }
        BinaryOp::InstanceOf => {
            if let Expr::Ident(name) = unparen(&bin.left)
                && let Some(class) = chain(&bin.right)
            {
                out.push((
                    name.sym.to_string(),
                    class.into_iter().map(|(n, _, _)| n).collect(),
                ));
            }
        }
        _ => {}
    }
}

impl Visit for Facts_<'_, '_> {
    fn visit_if_stmt(&mut self, node: &IfStmt) {
        node.test.visit_with(self);
        let mut narrowed = Vec::new();
        instanceof_narrowed(&node.test, &mut narrowed);
        if !narrowed.is_empty() {
            let span = node.cons.span();
            let (start, end) = (self.line(span.lo), self.line(span.hi));
            for (name, class) in narrowed {
                // In the scope that binds the name, on the guarded lines.
                let scope = self.binding(&name);
                self.facts.types.push(LocalType {
                    scope,
                    name,
                    type_of: TypeOf::Type(TypeExpr::named(class)),
                    line: start,
                    until: Some(end),
                });
            }
        }
        node.cons.visit_with(self);
        if let Some(alt) = &node.alt {
            alt.visit_with(self);
        }
    }

    fn visit_fn_decl(&mut self, node: &FnDecl) {
        self.pending = Some((node.ident.span.lo, false));
        node.function.visit_with(self);
    }

    fn visit_fn_expr(&mut self, node: &FnExpr) {
        if self.pending.is_none()
            && let Some(ident) = &node.ident
        {
            self.pending = Some((ident.span.lo, false));
        }
        node.function.visit_with(self);
    }

    fn visit_function(&mut self, node: &Function) {
        let context = self.callback.take();
        for d in &node.decorators {
            d.visit_with(self);
        }
        let mut names = Vec::new();
        let mut typed = Vec::new();
        for p in &node.params {
            pat_names(&p.pat, &mut typed);
        }
        names.extend(typed.iter().map(|(n, _)| n.clone()));
        type_param_names(node.type_params.as_deref(), &mut names);
        names.push("arguments".to_owned());
        if let Some(body) = &node.body {
            Self::body_names(&body.stmts, &mut names);
        }
        self.function_scope(node.span.lo, false, names, |this| {
            let line = this.frame_key().map_or(0, |k| k.start_line);
            this.type_params(node.type_params.as_deref(), line);
            if let Some(param) = &node.this_param {
                this.this_param(param, line);
            }
            this.param_types(context.clone(), node.params.iter().map(|p| &p.pat), line);
            let returns = node.body.as_ref().and_then(|b| first_return(&b.stmts));
            this.signature(
                node.params.iter().map(|p| &p.pat),
                node.return_type.as_ref().map(|t| &*t.type_ann),
                returns,
            );
            for p in &node.params {
                p.visit_with(this);
            }
            if let Some(t) = &node.return_type {
                this.return_type(&t.type_ann);
                t.visit_with(this);
            }
            let returned = node
                .return_type
                .as_ref()
                .map(|t| Value::Typed(ts_type(&t.type_ann)))
                .or_else(|| {
                    context.clone().map(|c| Value::Call {
                        callee: Box::new(c),
                        args: u32::try_from(node.params.len()).unwrap_or(u32::MAX),
                    })
                });
            this.return_context.push(returned);
            if let Some(body) = &node.body {
                for stmt in &body.stmts {
                    stmt.visit_with(this);
                }
            }
            this.return_context.pop();
        });
    }

    fn visit_arrow_expr(&mut self, node: &ArrowExpr) {
        let context = self.callback.take();
        let mut names = Vec::new();
        let mut typed = Vec::new();
        for p in &node.params {
            pat_names(p, &mut typed);
        }
        names.extend(typed.iter().map(|(n, _)| n.clone()));
        type_param_names(node.type_params.as_deref(), &mut names);
        if let ArrowFunctionBody::FunctionBody(body) = &*node.body {
            Self::body_names(&body.stmts, &mut names);
        }
        self.function_scope(node.span.lo, true, names, |this| {
            let line = this.frame_key().map_or(0, |k| k.start_line);
            this.type_params(node.type_params.as_deref(), line);
            this.param_types(context.clone(), node.params.iter(), line);
            let returns = match &*node.body {
                ArrowFunctionBody::FunctionBody(body) => first_return(&body.stmts),
                ArrowFunctionBody::Expr(e) => value_of(e),
                #[allow(unreachable_patterns)]
                _ => None,
            };
            this.signature(
                node.params.iter(),
                node.return_type.as_ref().map(|t| &*t.type_ann),
                returns,
            );
            for p in &node.params {
                p.visit_with(this);
            }
            if let Some(t) = &node.return_type {
                this.return_type(&t.type_ann);
                t.visit_with(this);
            }
            let returned = node
                .return_type
                .as_ref()
                .map(|t| Value::Typed(ts_type(&t.type_ann)))
                .or_else(|| {
                    context.clone().map(|c| Value::Call {
                        callee: Box::new(c),
                        args: u32::try_from(node.params.len()).unwrap_or(u32::MAX),
                    })
                });
            match &*node.body {
                ArrowFunctionBody::FunctionBody(body) => {
                    this.return_context.push(returned);
                    for stmt in &body.stmts {
                        stmt.visit_with(this);
                    }
                    this.return_context.pop();
                }
                ArrowFunctionBody::Expr(e) => {
                    this.contextual(e, returned);
                    e.visit_with(this);
                }
                #[allow(unreachable_patterns)]
                _ => {}
            }
        });
    }

    fn visit_class_decl(&mut self, node: &ClassDecl) {
        self.pending = Some((node.ident.span.lo, false));
        self.class(&node.class);
    }

    fn visit_class_expr(&mut self, node: &ClassExpr) {
        if self.pending.is_none()
            && let Some(ident) = &node.ident
        {
            self.pending = Some((ident.span.lo, false));
        }
        self.class(&node.class);
    }

    fn visit_class(&mut self, node: &Class) {
        self.class(node);
    }

    fn visit_ts_interface_decl(&mut self, node: &TsInterfaceDecl) {
        let key = self.symbol_at(node.id.span.lo).map(|(k, _)| k);
        let mut names = Vec::new();
        type_param_names(node.type_params.as_deref(), &mut names);
        let frame_key = key
            .clone()
            .or_else(|| Some(self.synthetic("interface", node.span.lo)));
        self.push_frame(frame_key, names);
        self.type_params_of(
            node.type_params.as_deref(),
            self.line(node.span.lo),
            key.clone(),
        );
        if let Some(key) = &key {
            for h in &node.extends {
                self.typed_base(key, h);
            }
        }
        for h in &node.extends {
            self.heritage(h, key.clone());
        }
        if let Some(key) = &key {
            self.scopes.push(key.clone());
        }
        // Typed property signatures become attributes of the interface.
        self.this_class.push(key.clone());
        node.body.visit_with(self);
        self.this_class.pop();
        if key.is_some() {
            self.scopes.pop();
        }
        self.pop_frame();
    }

    // Member signatures: the key is a declaration, not a reference (unless
    // computed); a typed property is an attribute of the interface or type
    // literal, a method's return type its declared return.
    fn visit_ts_property_signature(&mut self, node: &TsPropertySignature) {
        if node.computed {
            node.key.visit_with(self);
        } else if let Expr::Ident(name) = &*node.key {
            let type_of = node.type_ann.as_ref().and_then(|t| declared(&t.type_ann));
            let ty = node.type_ann.as_ref().map(|t| ts_type(&t.type_ann));
            self.typed_property(name.sym.to_string(), name.span.lo, type_of, ty, None);
        }
        node.type_ann.visit_with(self);
    }

    /// A call signature `(x: A): R` of an interface or type literal: the
    /// `()` member of the type, a function.
    fn visit_ts_call_signature_decl(&mut self, node: &swc_ecma_ast::TsCallSignatureDecl) {
        self.call_signature(&node.params, node.type_ann.as_deref(), node.span.lo);
        node.visit_children_with(self);
    }

    /// A construct signature `new (x: A): R`: calling (`new`) gives `R`.
    fn visit_ts_construct_signature_decl(&mut self, node: &swc_ecma_ast::TsConstructSignatureDecl) {
        self.call_signature(&node.params, node.type_ann.as_deref(), node.span.lo);
        node.visit_children_with(self);
    }

    fn visit_ts_getter_signature(&mut self, node: &TsGetterSignature) {
        if node.computed {
            node.key.visit_with(self);
        } else if let Some((function, _)) = self.symbol_at(node.key.span().lo)
            && let Some(t) = &node.type_ann
        {
            self.facts.signatures.push(Signature {
                function,
                params: Vec::new(),
                ret: Some(ts_type(&t.type_ann)),
                returns: None,
            });
        }
        node.type_ann.visit_with(self);
    }

    fn visit_ts_setter_signature(&mut self, node: &TsSetterSignature) {
        if node.computed {
            node.key.visit_with(self);
        }
        node.param.visit_with(self);
    }

    fn visit_ts_method_signature(&mut self, node: &TsMethodSignature) {
        if node.computed {
            node.key.visit_with(self);
        } else if let Some((function, _)) = self.symbol_at(node.key.span().lo) {
            if let Some(path) = node.type_ann.as_ref().and_then(|t| type_path(&t.type_ann)) {
                self.facts.returns.push(ReturnType {
                    function: function.clone(),
                    type_of: path,
                });
            }
            self.facts.signatures.push(Signature {
                function: function.clone(),
                params: node.params.iter().map(|p| fn_param(p, 0)).collect(),
                ret: node.type_ann.as_ref().map(|t| ts_type(&t.type_ann)),
                returns: None,
            });
            if let Some(params) = node.type_params.as_deref() {
                self.type_params_of(Some(params), function.start_line, Some(function));
            }
        }
        let mut names = Vec::new();
        type_param_names(node.type_params.as_deref(), &mut names);
        self.push_frame(self.frame_key(), names);
        node.type_params.visit_with(self);
        node.params.visit_with(self);
        node.type_ann.visit_with(self);
        self.pop_frame();
    }

    /// `{ [K in C as N]: T }`: `K` is a type parameter bound in `N` and `T`
    /// (TypeScript handbook, "Mapped Types"), not a reference to a `K` of
    /// the project.
    fn visit_ts_mapped_type(&mut self, node: &TsMappedType) {
        node.type_param.constraint.visit_with(self);
        node.type_param.default.visit_with(self);
        let key = self.synthetic("type", node.span.lo);
        self.push_frame(Some(key), vec![node.type_param.name.sym.to_string()]);
        node.name_type.visit_with(self);
        node.type_ann.visit_with(self);
        self.pop_frame();
    }

    /// `C extends E ? T : F`: each `infer U` in `E` is a type parameter bound
    /// in `E` and `T` (TypeScript handbook, "Inferring Within Conditional
    /// Types").
    fn visit_ts_conditional_type(&mut self, node: &TsConditionalType) {
        node.check_type.visit_with(self);
        let mut inferred = InferNames(Vec::new());
        node.extends_type.visit_with(&mut inferred);
        if inferred.0.is_empty() {
            node.extends_type.visit_with(self);
            node.true_type.visit_with(self);
        } else {
            let key = self.synthetic("type", node.span.lo);
            self.push_frame(Some(key), inferred.0);
            node.extends_type.visit_with(self);
            node.true_type.visit_with(self);
            self.pop_frame();
        }
        node.false_type.visit_with(self);
    }

    fn visit_ts_type_alias_decl(&mut self, node: &TsTypeAliasDecl) {
        let alias = self.symbol_at(node.id.span.lo).map(|(k, _)| k);
        if let Some(alias) = &alias {
            let ty = ts_type(&node.type_ann);
            if ty != TypeExpr::Unknown {
                self.facts.aliases.push(TypeAlias {
                    alias: alias.clone(),
                    ty,
                });
            }
        }
        let mut names = Vec::new();
        type_param_names(node.type_params.as_deref(), &mut names);
        if names.is_empty() {
            node.type_ann.visit_with(self);
            return;
        }
        let key = self.synthetic("type", node.span.lo);
        self.push_frame(Some(key), names);
        self.type_params_of(
            node.type_params.as_deref(),
            self.line(node.span.lo),
            alias.clone(),
        );
        node.type_ann.visit_with(self);
        self.pop_frame();
    }

    fn visit_ts_module_decl(&mut self, node: &TsModuleDecl) {
        let symbol = match &node.id {
            TsModuleName::Ident(i) => self.symbol_at(i.span.lo).map(|(k, _)| k),
            _ => None,
        };
        let Some(body) = &node.body else {
            return;
        };
        let TsNamespaceBody::TsModuleBlock(block) = body else {
            body.visit_children_with(self);
            return;
        };
        let mut names = Vec::new();
        for item in &block.body {
            match item {
                ModuleItem::Stmt(Stmt::Decl(d)) => decl_names(d, true, &mut names),
                ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(e)) => {
                    decl_names(&e.decl, true, &mut names)
                }
                _ => {}
            }
        }
        let key = symbol
            .clone()
            .or_else(|| Some(self.synthetic("namespace", node.span.lo)));
        self.push_frame(key, names);
        if let Some(symbol) = &symbol {
            self.scopes.push(symbol.clone());
        }
        for item in &block.body {
            self.module_item(item);
        }
        if symbol.is_some() {
            self.scopes.pop();
        }
        self.pop_frame();
    }

    fn visit_block_stmt(&mut self, node: &BlockStmt) {
        let mut names = Vec::new();
        lexical_names(&node.stmts, &mut names);
        if names.is_empty() {
            node.visit_children_with(self);
            return;
        }
        let key = self.block_key(node.span.lo);
        self.push_frame(key, names);
        node.visit_children_with(self);
        self.pop_frame();
    }

    fn visit_for_stmt(&mut self, node: &ForStmt) {
        let mut names = Vec::new();
        if let Some(VarDeclOrExpr::VarDecl(v)) = &node.init
            && v.kind != VarDeclKind::Var
        {
            let mut typed = Vec::new();
            for d in &v.decls {
                pat_names(&d.name, &mut typed);
            }
            names.extend(typed.into_iter().map(|(n, _)| n));
        }
        let key = self.block_key(node.span.lo);
        self.push_frame(key, names);
        node.visit_children_with(self);
        self.pop_frame();
    }

    fn visit_for_in_stmt(&mut self, node: &ForInStmt) {
        self.for_each_loop(node.span.lo, &node.left, &node.right, &node.body, false);
    }

    fn visit_for_of_stmt(&mut self, node: &ForOfStmt) {
        self.for_each_loop(node.span.lo, &node.left, &node.right, &node.body, true);
    }

    fn visit_catch_clause(&mut self, node: &CatchClause) {
        let mut names = Vec::new();
        if let Some(param) = &node.param {
            let mut typed = Vec::new();
            pat_names(param, &mut typed);
            names.extend(typed.into_iter().map(|(n, _)| n));
        }
        let key = self.block_key(node.span.lo);
        self.push_frame(key, names);
        node.visit_children_with(self);
        self.pop_frame();
    }

    fn visit_var_declarator(&mut self, node: &VarDeclarator) {
        self.var_types(node);
        // The pattern: only default values and annotations are uses.
        node.name.visit_with(self);
        if let Some(init) = &node.init {
            if let Pat::Ident(b) = &node.name
                && let Some(table) = dispatch_table(init)
            {
                self.tables.insert(b.id.sym.to_string(), table);
            }
            if let Pat::Ident(b) = &node.name
                && matches!(unparen(init), Expr::Arrow(_) | Expr::Fn(_) | Expr::Class(_))
            {
                self.pending = Some((b.id.span.lo, false));
            }
            let context = match &node.name {
                Pat::Ident(b) => b
                    .type_ann
                    .as_ref()
                    .map(|t| Value::Typed(ts_type(&t.type_ann))),
                _ => None,
            };
            self.contextual(init, context);
            init.visit_with(self);
        }
    }

    fn visit_return_stmt(&mut self, node: &swc_ecma_ast::ReturnStmt) {
        if let Some(arg) = &node.arg {
            let context = self.return_context.last().cloned().flatten();
            self.contextual(arg, context);
            arg.visit_with(self);
        }
    }

    fn visit_pat(&mut self, node: &Pat) {
        match node {
            Pat::Ident(b) => {
                if let Some(t) = &b.type_ann {
                    t.visit_with(self);
                }
            }
            Pat::Expr(e) => e.visit_with(self),
            other => other.visit_children_with(self),
        }
    }

    fn visit_object_pat_prop(&mut self, node: &ObjectPatProp) {
        match node {
            ObjectPatProp::KeyValue(kv) => {
                if let PropName::Computed(c) = &kv.key {
                    c.visit_with(self);
                }
                kv.value.visit_with(self);
            }
            ObjectPatProp::Assign(a) => {
                if let Some(t) = &a.key.type_ann {
                    t.visit_with(self);
                }
                if let Some(v) = &a.value {
                    v.visit_with(self);
                }
            }
            ObjectPatProp::Rest(r) => r.arg.visit_with(self),
        }
    }

    fn visit_prop(&mut self, node: &Prop) {
        match node {
            Prop::Shorthand(i) => self.read(i),
            Prop::KeyValue(kv) => {
                if let PropName::Computed(c) = &kv.key {
                    c.visit_with(self);
                }
                if matches!(unparen(&kv.value), Expr::Arrow(_) | Expr::Fn(_)) {
                    self.pending = Some((kv.key.span().lo, false));
                }
                kv.value.visit_with(self);
            }
            Prop::Method(m) => {
                if let PropName::Computed(c) = &m.key {
                    c.visit_with(self);
                }
                self.pending = Some((m.key.span().lo, false));
                m.function.visit_with(self);
            }
            other => other.visit_children_with(self),
        }
    }

    fn visit_expr(&mut self, node: &Expr) {
        if self.depth >= MAX_EXPRESSION_DEPTH {
            return;
        }
        self.depth += 1;
        self.visit_expr_inside(node);
        self.depth -= 1;
    }

    fn visit_call_expr(&mut self, node: &CallExpr) {
        let before = self.facts.references.len();
        self.static_call(node);
        self.dynamic_call(node, before);
    }

    fn visit_new_expr(&mut self, node: &NewExpr) {
        self.call_like(&node.callee, Role::Instantiate);
        if let Some(args) = &node.type_args {
            args.visit_with(self);
        }
        self.call_context = None;
        if let Some(args) = &node.args {
            self.arguments(value_of(&node.callee), args);
        }
    }

    fn visit_ts_type_ref(&mut self, node: &TsTypeRef) {
        let c = entity_chain(&node.type_name);
        self.chain_refs(c, Role::TypeUse, None);
        if let Some(params) = &node.type_params {
            params.visit_with(self);
        }
    }

    /// `T["key"]`: a use of `T`'s member `key` (TypeScript handbook,
    /// "Indexed Access Types").
    fn visit_ts_indexed_access_type(&mut self, node: &swc_ecma_ast::TsIndexedAccessType) {
        node.obj_type.visit_with(self);
        if let TsType::TsLitType(lit) = &*node.index_type
            && let swc_ecma_ast::TsLit::Str(s) = &lit.lit
            && let Some(name) = s.value.as_str()
            && s.span.hi.0 > s.span.lo.0 + 1
        {
            let context = Value::Typed(ts_type(&node.obj_type));
            self.push_reference(
                name.to_owned(),
                Receiver::Value(context),
                Role::TypeUse,
                (s.span.lo + BytePos(1), s.span.hi - BytePos(1)),
                None,
                None,
            );
        } else {
            node.index_type.visit_with(self);
        }
    }

    fn visit_ts_type_query(&mut self, node: &TsTypeQuery) {
        match &node.expr_name {
            TsTypeQueryExpr::TsEntityName(name) => {
                let c = entity_chain(name);
                self.chain_refs(c, Role::Read, None);
            }
            other => other.visit_with(self),
        }
        if let Some(args) = &node.type_args {
            args.visit_with(self);
        }
    }

    fn visit_jsx_element_name(&mut self, node: &JSXElementName) {
        match node {
            JSXElementName::Ident(i) => {
                // Lower-case names are intrinsic elements (`div`).
                if i.sym.starts_with(|c: char| c.is_ascii_uppercase()) {
                    let binding = self.binding(&i.sym);
                    self.push_reference(
                        i.sym.to_string(),
                        Receiver::Bare,
                        Role::Instantiate,
                        (i.span.lo, i.span.hi),
                        binding,
                        None,
                    );
                }
            }
            other => other.visit_children_with(self),
        }
    }

    fn visit_module_decl(&mut self, node: &ModuleDecl) {
        self.module_decl(node);
    }

    fn visit_module_item(&mut self, node: &ModuleItem) {
        self.module_item(node);
    }
}

impl Facts_<'_, '_> {
    /// The read of the identifier `i` (a bare name).
    fn read(&mut self, i: &Ident) {
        let binding = self.binding(&i.sym);
        self.push_reference(
            i.sym.to_string(),
            Receiver::Bare,
            Role::Read,
            (i.span.lo, i.span.hi),
            binding,
            None,
        );
    }

    /// [`Visit::visit_expr`] below the depth check.
    fn visit_expr_inside(&mut self, node: &Expr) {
        match node {
            Expr::Ident(i) => {
                if i.sym != *"undefined" {
                    self.read(i);
                }
            }
            Expr::OptChain(o) => match &*o.base {
                // `a?.b(…)`, `a.b?.(…)`: a call of the callee.
                OptChainBase::Call(call) => {
                    self.call_like(&call.callee, Role::Call);
                    if let Some(args) = &call.type_args {
                        args.visit_with(self);
                    }
                    self.arguments(value_of(&call.callee), &call.args);
                }
                OptChainBase::Member(m) => self.member_refs(node, m),
            },
            Expr::Member(m) => self.member_refs(node, m),
            Expr::SuperProp(member) => self.super_refs(member, Role::Attribute),
            Expr::Object(object) => match self.object_context.take() {
                Some(context) => self.object_literal(object, context),
                None => object.visit_children_with(self),
            },
            Expr::Array(array) => {
                let context = self.object_context.take();
                for element in array.elems.iter().flatten() {
                    if element.spread.is_none() {
                        self.contextual(&element.expr, context.clone());
                    }
                    element.visit_with(self);
                }
            }
            Expr::TsSatisfies(s) => {
                self.contextual(&s.expr, Some(Value::Typed(ts_type(&s.type_ann))));
                s.visit_children_with(self);
            }
            Expr::TsAs(a) => {
                self.contextual(&a.expr, Some(Value::Typed(ts_type(&a.type_ann))));
                a.visit_children_with(self);
            }
            Expr::Paren(p) => {
                // The context goes through parentheses (`() => ({ … })`).
                p.visit_children_with(self);
            }
            other => {
                // A context is for the function or object literal it was
                // set for (through the wrappers that keep it), not for
                // one inside another expression.
                if !matches!(
                    other,
                    Expr::Arrow(_)
                        | Expr::Fn(_)
                        | Expr::TsNonNull(_)
                        | Expr::TsConstAssertion(_)
                        | Expr::Call(_)
                        | Expr::New(_)
                ) {
                    self.callback = None;
                    self.object_context = None;
                    self.call_context = None;
                }
                if let Expr::Assign(a) = other {
                    // `a.b = (x) => …`, `a.b = { … }`: typed as `a.b` is.
                    let target = match &a.left {
                        swc_ecma_ast::AssignTarget::Simple(
                            swc_ecma_ast::SimpleAssignTarget::Member(m),
                        ) => member_value(&m.obj, &m.prop),
                        swc_ecma_ast::AssignTarget::Simple(
                            swc_ecma_ast::SimpleAssignTarget::Ident(i),
                        ) => Some(Value::Path(vec![i.id.sym.to_string()])),
                        _ => None,
                    };
                    match &a.left {
                        // `a.b = …`: `b` is written.
                        swc_ecma_ast::AssignTarget::Simple(
                            swc_ecma_ast::SimpleAssignTarget::Member(m),
                        ) => self.member_refs_as(None, m, Role::Write),
                        other => other.visit_with(self),
                    }
                    if let Some(target) = &target
                        && let Some(head) = target.head().map(str::to_owned)
                        && head == "this"
                    {
                        self.head_binding("this");
                    }
                    self.contextual(&a.right, target);
                    a.right.visit_with(self);
                    return;
                }
                other.visit_children_with(self)
            }
        }
    }

    /// A call's arguments: each function or object literal among them takes
    /// its contextual type from the callee's parameter at its position.
    fn arguments(&mut self, callee: Option<Value>, args: &[swc_ecma_ast::ExprOrSpread]) {
        for (i, arg) in args.iter().enumerate() {
            if arg.spread.is_none()
                && let Some(callee) = &callee
            {
                let context = Value::Param {
                    function: Box::new(callee.clone()),
                    index: u32::try_from(i).unwrap_or(u32::MAX),
                };
                self.contextual(&arg.expr, Some(context));
            }
            arg.visit_with(self);
            self.callback = None;
            self.object_context = None;
        }
    }

    /// A call or construct signature of the innermost interface or type
    /// literal: its `()` attribute.
    fn call_signature(
        &mut self,
        params: &[swc_ecma_ast::TsFnParam],
        ret: Option<&TsTypeAnn>,
        pos: BytePos,
    ) {
        let ty = TypeExpr::Function {
            params: params
                .iter()
                .map(|p| fn_param(p, 0).ty.unwrap_or(TypeExpr::Unknown))
                .collect(),
            ret: Box::new(ret.map_or(TypeExpr::Unknown, |t| ts_type(&t.type_ann))),
        };
        self.typed_property("()".to_owned(), pos, None, Some(ty), None);
    }
}

/// `expr` without the wrappers that keep its kind of value (parentheses,
/// `!`, `as`, `satisfies`), `await` kept.
fn unparen_keep_await(mut expr: &Expr) -> &Expr {
    loop {
        expr = match expr {
            Expr::Paren(p) => &p.expr,
            Expr::TsNonNull(n) => &n.expr,
            Expr::TsSatisfies(s) => &s.expr,
            Expr::TsConstAssertion(c) => &c.expr,
            other => return other,
        };
    }
}

/// The value of the first `return` of a function body that gives one the
/// resolver can follow, not looking into nested functions.
fn first_return(stmts: &[Stmt]) -> Option<Value> {
    struct Finder(Option<Value>, usize);
    impl Visit for Finder {
        fn visit_return_stmt(&mut self, node: &swc_ecma_ast::ReturnStmt) {
            if self.0.is_none()
                && let Some(arg) = &node.arg
            {
                self.0 = value_of(arg);
            }
        }
        fn visit_function(&mut self, _: &Function) {}
        fn visit_arrow_expr(&mut self, _: &ArrowExpr) {}
        fn visit_class(&mut self, _: &Class) {}
        fn visit_expr(&mut self, _: &Expr) {}
        fn visit_stmt(&mut self, node: &Stmt) {
            if self.1 > 64 || self.0.is_some() {
                return;
            }
            self.1 += 1;
            node.visit_children_with(self);
            self.1 -= 1;
        }
    }
    let mut finder = Finder(None, 0);
    for stmt in stmts {
        stmt.visit_with(&mut finder);
        if finder.0.is_some() {
            break;
        }
    }
    finder.0
}

/// The names of the `infer U` type parameters in a type (nested
/// conditional types included, which bind their own too).
struct InferNames(Vec<String>);

impl Visit for InferNames {
    fn visit_ts_infer_type(&mut self, node: &TsInferType) {
        self.0.push(node.type_param.name.sym.to_string());
        node.type_param.constraint.visit_with(self);
    }
}

fn head_names(head: &ForHead) -> Vec<String> {
    let mut names = Vec::new();
    if let ForHead::VarDecl(v) = head
        && v.kind != VarDeclKind::Var
    {
        let mut typed = Vec::new();
        for d in &v.decls {
            pat_names(&d.name, &mut typed);
        }
        names.extend(typed.into_iter().map(|(n, _)| n));
    }
    names
}

/// The (local name, property name) a destructuring property binds:
/// `{ a }` → (`a`, `a`), `{ a: b }` → (`b`, `a`); `None` for rest elements,
/// computed keys and nested patterns.
fn destructured(prop: &ObjectPatProp) -> Option<(String, String)> {
    match prop {
        ObjectPatProp::KeyValue(kv) => match (&kv.key, &*kv.value) {
            (PropName::Ident(k), Pat::Ident(v)) => Some((v.id.sym.to_string(), k.sym.to_string())),
            _ => None,
        },
        ObjectPatProp::Assign(a) => Some((a.key.id.sym.to_string(), a.key.id.sym.to_string())),
        ObjectPatProp::Rest(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use outline_core::xref::{Dynamic, Receiver, Role};
    use outline_core::{Language, Outline, OutlineOptions};

    use crate::TypeScriptOutline;

    /// (line, column, name, receiver, role, dynamic) of every dynamic
    /// reference of `source` (TypeScript).
    fn dynamic(source: &str) -> Vec<(u32, u32, String, Receiver, Role, Dynamic)> {
        let (_, facts) = TypeScriptOutline.outline_with_facts(
            "m.ts",
            Language::Typescript,
            source,
            &OutlineOptions::default(),
        );
        facts
            .references
            .into_iter()
            .filter_map(|r| {
                let dynamic = r.dynamic?;
                Some((r.line, r.column, r.name, r.receiver, r.role, dynamic))
            })
            .collect()
    }

    fn path(parts: &[&str]) -> Receiver {
        Receiver::Path(parts.iter().map(|p| (*p).to_owned()).collect())
    }

    #[test]
    fn a_dispatch_table_called_by_a_computed_key_calls_each_of_its_functions() {
        // The function above the table's declaration finds it too.
        let source = "function run(action: string) {\n\
                      \x20 return handlers[action]();\n\
                      }\n\
                      const handlers = { create: createUser, remove, other: () => 1 };\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    2,
                    19,
                    "createUser".into(),
                    Receiver::Bare,
                    Role::Call,
                    Dynamic::Name
                ),
                (
                    2,
                    19,
                    "remove".into(),
                    Receiver::Bare,
                    Role::Call,
                    Dynamic::Name
                ),
                // A function written in the table is reached as its member
                // (from a new-user trial: it was left out).
                (
                    2,
                    19,
                    "other".into(),
                    path(&["handlers"]),
                    Role::Call,
                    Dynamic::Name
                ),
            ]
        );
    }

    #[test]
    fn a_computed_member_call_is_dynamic_and_names_nothing() {
        let source = "this.ops[op](1);\nobj[\"save\"]();\nfns[0]();\n";
        assert_eq!(
            dynamic(source),
            vec![(
                1,
                10,
                "?".into(),
                path(&["this", "ops"]),
                Role::Call,
                Dynamic::Computed
            )]
        );
    }

    #[test]
    fn reflect_with_a_literal_key_is_a_dynamic_member() {
        let source = "Reflect.get(repo, \"save\");\n\
                      Reflect.set(a.b, \"x\", 1);\n\
                      Reflect.get(repo, key);\n\
                      Reflect.apply(run, null, []);\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    1,
                    20,
                    "save".into(),
                    path(&["repo"]),
                    Role::Attribute,
                    Dynamic::Name
                ),
                (
                    2,
                    19,
                    "x".into(),
                    path(&["a", "b"]),
                    Role::Write,
                    Dynamic::Name
                ),
                (
                    3,
                    19,
                    "?".into(),
                    path(&["repo"]),
                    Role::Attribute,
                    Dynamic::Computed
                ),
                (
                    4,
                    15,
                    "run".into(),
                    Receiver::Bare,
                    Role::Call,
                    Dynamic::Name
                ),
            ]
        );
    }

    #[test]
    fn require_and_import_of_a_computed_specifier_are_dynamic_a_literal_one_is_not() {
        let source = "const a = require(\"./a\");\n\
                      const b = require(`./plugins/${name}`);\n\
                      import(\"./c\");\n\
                      import(path);\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    2,
                    19,
                    "?".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Computed
                ),
                (
                    4,
                    8,
                    "?".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Computed
                ),
            ]
        );
    }
    /// (line, column, name, receiver, dynamic) of every call of `source`.
    fn calls(source: &str) -> Vec<(u32, u32, String, Receiver, Option<Dynamic>)> {
        let (_, facts) = TypeScriptOutline.outline_with_facts(
            "m.ts",
            Language::Typescript,
            source,
            &OutlineOptions::default(),
        );
        facts
            .references
            .into_iter()
            .filter(|r| r.role == Role::Call)
            .map(|r| (r.line, r.column, r.name, r.receiver, r.dynamic))
            .collect()
    }

    #[test]
    fn a_literal_key_call_is_a_call_and_calls_what_a_dispatch_table_holds_under_it() {
        let source = "const handlers = { create: createUser, update: api.updateUser, list() {} };\n\
                      handlers[\"create\"]();\n\
                      r[\"load\"]();\n\
                      handlers[action]();\n\
                      handlers[\"list\"]();\n\
                      Reflect.get(r, \"save\")(1);\n";
        assert_eq!(
            calls(source),
            vec![
                (2, 11, "create".into(), path(&["handlers"]), None),
                (
                    2,
                    11,
                    "createUser".into(),
                    Receiver::Bare,
                    Some(Dynamic::Name)
                ),
                (3, 4, "load".into(), path(&["r"]), None),
                (
                    4,
                    10,
                    "createUser".into(),
                    Receiver::Bare,
                    Some(Dynamic::Name)
                ),
                (
                    4,
                    10,
                    "updateUser".into(),
                    path(&["api"]),
                    Some(Dynamic::Name)
                ),
                (
                    4,
                    10,
                    "list".into(),
                    path(&["handlers"]),
                    Some(Dynamic::Name)
                ),
                // A method of the table is the static call's own target.
                (5, 11, "list".into(), path(&["handlers"]), None),
                (6, 9, "get".into(), path(&["Reflect"]), None),
                (6, 17, "save".into(), path(&["r"]), Some(Dynamic::Name)),
            ]
        );
    }

    #[test]
    fn a_literal_import_or_require_imports_the_module_a_template_with_substitutions_is_dynamic() {
        let source = "const a = require(`./a`);\n\
                      import(\"./c\");\n\
                      async function f() {\n\
                      \x20 const m = await import(\"./d\");\n\
                      }\n\
                      require(\"./e\");\n\
                      const b = require(`./plugins/${name}`);\n\
                      const p = import(\"./g\");\n";
        let (_, facts) = TypeScriptOutline.outline_with_facts(
            "m.ts",
            Language::Typescript,
            source,
            &OutlineOptions::default(),
        );
        let imports: Vec<(String, String, Option<String>, u32)> = facts
            .imports
            .iter()
            .map(|b| {
                (
                    b.local.clone(),
                    b.module.clone(),
                    b.scope.as_ref().map(|s| s.qualname.clone()),
                    b.line,
                )
            })
            .collect();
        assert_eq!(
            imports,
            vec![
                ("a".into(), "./a".into(), None, 1),
                (String::new(), "./c".into(), None, 2),
                ("m".into(), "./d".into(), Some("f".into()), 4),
                (String::new(), "./e".into(), None, 6),
                // Not awaited: a promise of the module, bound to no name.
                (String::new(), "./g".into(), None, 8),
            ]
        );
        assert_eq!(
            dynamic(source),
            vec![(
                7,
                19,
                "?".into(),
                Receiver::Bare,
                Role::Import,
                Dynamic::Computed
            )]
        );
    }
    #[test]
    fn a_template_without_substitutions_is_required_as_a_string_is_in_the_outline() {
        let (outline, _) = TypeScriptOutline.outline_with_facts(
            "m.ts",
            Language::Typescript,
            "const a = require(`./a`);\nconst b = require(\"./b\");\nconst c = require(`./${x}`);\n",
            &OutlineOptions::default(),
        );
        let imports: Vec<(u32, Option<String>, Option<String>)> = outline
            .imports
            .iter()
            .map(|i| (i.line, i.module.clone(), i.alias.clone()))
            .collect();
        assert_eq!(
            imports,
            vec![
                (1, Some("./a".into()), Some("a".into())),
                (2, Some("./b".into()), Some("b".into())),
            ]
        );
        let symbols: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(symbols, vec!["c"]);
    }
}
