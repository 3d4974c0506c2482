//! Cross-reference facts of a Rust file ([`outline_core::xref::Facts`]).
//!
//! The outline parses items with their function bodies left out (see
//! `bodies.rs`); facts need the bodies, so the file is parsed again whole
//! with `syn` (or, when that fails, item by item as the recovery scanner
//! cuts it, each item that still fails left out).
//!
//! Imports: each name a `use` tree binds is an [`ImportBinding`] whose
//! `module` is the dotted path before the name (`crate.a` for
//! `use crate::a::B`), `level` 0; `self::` is level 1 and each `super::`
//! adds one (as Python's leading dots, every Rust module counting as a
//! package); `name` is the last segment, `*` for a glob. Inside an inline
//! `mod m { … }` a `super::` that leaves `m` stays in the file.
//!
//! Scopes: parameters, `let`, closure parameters, `for` and `match`
//! patterns are locals of their function (bound from their statement on, so
//! `let config = config::load();` reads the module `config`); an identifier
//! pattern starting with an upper-case letter is a constant or variant, not
//! a binding. `self` is an instance of the enclosing impl's (or trait's)
//! type and `Self` the impl itself ([`LocalType`]s per function that uses
//! them). `impl Trait for Type` gives a [`Role::TypeUse`] reference to
//! `Type` and a [`Role::Inherit`] one to `Trait`, both with the impl block
//! as `subtype` (the resolver maps the impl to its type); supertraits are
//! [`Role::Inherit`] with the trait as `subtype`. Macro arguments are read
//! as expressions when they parse as a comma-separated list.
//!
//! Modules: each `mod x;` outside a function is a [`ModuleDecl`] with the
//! inline modules around it and every `#[path = "…"]` value on the way
//! (the `xref` crate walks the module tree from them).

use std::collections::{HashMap, HashSet};

use outline_core::xref::{
    Attribute, Facts, ImportBinding, LocalType, MacroCall, MacroRules, ModuleDecl, ModuleStep,
    Receiver, Reference, ReturnType, Role, ScopeKey, TypeOf,
};
use outline_core::{Symbol, SymbolKind};
use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{
    Block, Expr, ExprPath, FnArg, ImplItemFn, Item, ItemFn, ItemImpl, ItemMod, ItemTrait, ItemUse,
    Local, Macro, Member, Pat, Path, Signature, TraitItemFn, Type, TypeParamBound, TypePath,
    UseTree,
};

use crate::source::{FileText, Region};

/// The facts of `file`, given the outline's symbols.
pub(crate) fn facts(file: &FileText<'_>, symbols: &[Symbol]) -> Facts {
    let mut positions = HashMap::new();
    index_symbols(symbols, "", &mut positions);
    let mut facts = Facts {
        supported: true,
        ..Facts::default()
    };
    let text = file.text;
    let start = if text.starts_with("#!") && !text[2..].trim_start().starts_with('[') {
        text.find(['\n', '\r']).unwrap_or(text.len())
    } else {
        0
    };
    let whole = text.get(start..).unwrap_or_default();
    if let Ok(parsed) = syn::parse_file(whole) {
        walk(
            file,
            start,
            text.len(),
            &parsed.items,
            &positions,
            &mut facts,
        );
    } else {
        // Item by item; an item that fails is cut again at each line that
        // starts an item at column 0, as the outline's recovery does.
        let scan = crate::recovery::scan(text, start..text.len());
        for chunk in &scan.chunks {
            let Some(piece) = text.get(chunk.clone()) else {
                continue;
            };
            if let Ok(parsed) = syn::parse_file(piece) {
                walk(
                    file,
                    chunk.start,
                    chunk.end,
                    &parsed.items,
                    &positions,
                    &mut facts,
                );
                continue;
            }
            let mut cuts: Vec<usize> = scan
                .line_starts
                .iter()
                .map(|(at, _)| *at)
                .filter(|at| chunk.start < *at && *at < chunk.end)
                .collect();
            cuts.insert(0, chunk.start);
            cuts.push(chunk.end);
            for pair in cuts.windows(2) {
                let (Some(&lo), Some(&hi)) = (pair.first(), pair.get(1)) else {
                    continue;
                };
                if let Some(piece) = text.get(lo..hi)
                    && let Ok(parsed) = syn::parse_file(piece)
                {
                    walk(file, lo, hi, &parsed.items, &positions, &mut facts);
                }
            }
        }
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    facts
}

fn walk(
    file: &FileText<'_>,
    base: usize,
    limit: usize,
    items: &[Item],
    positions: &Positions,
    facts: &mut Facts,
) {
    let region = Region { file, base, limit };
    let mut walker = Walker {
        region: &region,
        positions,
        facts,
        frames: vec![Frame {
            key: None,
            names: HashSet::new(),
        }],
        scopes: Vec::new(),
        self_type: Vec::new(),
        typed: HashSet::new(),
        inline: Vec::new(),
        depth: 0,
    };
    for item in items {
        walker.visit_item(item);
    }
}

/// Symbol name positions (line, column) → the symbol's scope key.
type Positions = HashMap<(u32, u32), ScopeKey>;

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
                .or_insert_with(|| ScopeKey {
                    qualname: qualname.clone(),
                    start_line: symbol.start_line,
                });
        }
        index_symbols(&symbol.children, &qualname, out);
    }
}

struct Frame {
    key: Option<ScopeKey>,
    names: HashSet<String>,
}

struct Walker<'r, 'f, 'a> {
    region: &'r Region<'f, 'a>,
    positions: &'r Positions,
    facts: &'r mut Facts,
    frames: Vec<Frame>,
    scopes: Vec<ScopeKey>,
    /// The impl (or trait) whose items are being walked: what `self` and
    /// `Self` are.
    self_type: Vec<ScopeKey>,
    /// (scope qualname, name) pairs that already have their [`LocalType`].
    typed: HashSet<(String, String)>,
    /// The inline `mod m { … }` blocks enclosing the walk, outermost first.
    inline: Vec<ModuleStep>,
    /// Expressions open around the one visited (see
    /// [`MAX_EXPRESSION_DEPTH`]).
    depth: usize,
}

/// Expressions nested deeper than this are not visited for references: the
/// walk recurses once per level, and a million chained calls
/// (`f()()…`, `a.m().m()…`, which `syn` parses in a loop) overflowed even
/// the parser's 256 MiB stack and aborted the process. Real code nests a
/// few dozen levels.
const MAX_EXPRESSION_DEPTH: usize = 5_000;

/// The value of the first `#[path = "…"]` among `attrs` (as rustc takes
/// the first); `None` without one or when its value is not a string.
/// `#[cfg_attr(…, path = "…")]` is not read.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    let attr = attrs.iter().find(|a| a.path().is_ident("path"))?;
    match &attr.meta {
        syn::Meta::NameValue(syn::MetaNameValue {
            value:
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}

/// Primitive types: never a project definition.
const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
    "u128", "usize", "f32", "f64", "Self",
];

fn is_binding_name(name: &str) -> bool {
    !name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The type and const parameters of `generics` (`T`, `N` of `<T, const N:
/// usize>`): names bound in the item, never a project definition.
fn generic_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// Names a pattern binds.
fn pat_names(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Ident(p) => {
            let name = p.ident.to_string();
            if p.subpat.is_some()
                || p.by_ref.is_some()
                || p.mutability.is_some()
                || is_binding_name(&name)
            {
                out.push(name);
            }
            if let Some((_, sub)) = &p.subpat {
                pat_names(sub, out);
            }
        }
        Pat::Or(p) => {
            for case in &p.cases {
                pat_names(case, out);
            }
        }
        Pat::Paren(p) => pat_names(&p.pat, out),
        Pat::Reference(p) => pat_names(&p.pat, out),
        Pat::Slice(p) => p.elems.iter().for_each(|e| pat_names(e, out)),
        Pat::Tuple(p) => p.elems.iter().for_each(|e| pat_names(e, out)),
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| pat_names(e, out)),
        Pat::Struct(p) => p.fields.iter().for_each(|f| pat_names(&f.pat, out)),
        Pat::Type(p) => pat_names(&p.pat, out),
        Pat::Guard(p) => pat_names(&p.pat, out),
        _ => {}
    }
}

/// The dotted names of a path (`a::b::C` → `[a, b, C]`) with their spans.
fn path_chain(path: &Path) -> Vec<(String, Span)> {
    path.segments
        .iter()
        .map(|s| (s.ident.to_string(), s.ident.span()))
        .collect()
}

/// The type a `let` initializer makes: `Type::new(…)`, `Type { … }`,
/// `Type(…)` (upper-case last or second-to-last segment).
fn init_type(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Struct(s) => Some(path_chain(&s.path).into_iter().map(|(n, _)| n).collect()),
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else {
                return None;
            };
            let names: Vec<String> = path_chain(&p.path).into_iter().map(|(n, _)| n).collect();
            let upper = |n: &String| n.starts_with(|c: char| c.is_ascii_uppercase());
            match names.as_slice() {
                [.., last] if upper(last) && names.len() == 1 => Some(names),
                [.., ty, _] if upper(ty) && ty != "Self" => Some(names[..names.len() - 1].to_vec()),
                // A function (`rt()`, `support::mock()`): its declared
                // return type, found by the resolver.
                [.., last]
                    if !upper(last)
                        && !matches!(names.first().map(String::as_str), Some("Self" | "self")) =>
                {
                    Some(names)
                }
                _ => None,
            }
        }
        // A unit struct: `User`, `models::User`.
        Expr::Path(p) if p.qself.is_none() => {
            let names: Vec<String> = path_chain(&p.path).into_iter().map(|(n, _)| n).collect();
            let upper = names
                .last()
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase()));
            (upper && names.last().is_some_and(|n| n != "Self")).then_some(names)
        }
        Expr::Paren(p) => init_type(&p.expr),
        Expr::Try(t) => init_type(&t.expr),
        Expr::Await(a) => init_type(&a.base),
        Expr::Reference(r) => init_type(&r.expr),
        // `Runtime::new().unwrap()`: what the `?` of the call would give.
        Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            init_type(&m.receiver)
        }
        _ => None,
    }
}

/// The named type of an annotation: `User`, `&User`, `&mut models::User`.
fn type_path(ty: &Type) -> Option<Vec<String>> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            // `Arc<T>`, `Rc<T>`, `Box<T>`, `Pin<P>`: the methods of the
            // value they point to, as method calls auto-dereference (Rust
            // Reference, "Method-call expressions").
            if let Some(last) = p.path.segments.last()
                && matches!(
                    last.ident.to_string().as_str(),
                    "Arc" | "Rc" | "Box" | "Pin"
                )
                && let syn::PathArguments::AngleBracketed(args) = &last.arguments
                && let [syn::GenericArgument::Type(inner)] =
                    args.args.iter().collect::<Vec<_>>().as_slice()
            {
                return type_path(inner);
            }
            let names: Vec<String> = path_chain(&p.path).into_iter().map(|(n, _)| n).collect();
            (!names.iter().any(|n| PRIMITIVES.contains(&n.as_str()))).then_some(names)
        }
        Type::Reference(r) => type_path(&r.elem),
        Type::Paren(p) => type_path(&p.elem),
        // `impl Trait`, `dyn Trait`: a value whose methods are the trait's
        // (the first trait bound; `?Sized` and lifetimes are none).
        Type::ImplTrait(t) => first_trait(&t.bounds),
        Type::TraitObject(t) => first_trait(&t.bounds),
        _ => None,
    }
}

/// The path of the first trait among `bounds` (`Read` of `?Sized + Read +
/// 'a`), when it is not a `?` bound.
fn first_trait<'b>(bounds: impl IntoIterator<Item = &'b TypeParamBound>) -> Option<Vec<String>> {
    bounds.into_iter().find_map(|bound| match bound {
        TypeParamBound::Trait(t) if t.maybe.is_none() => {
            Some(path_chain(&t.path).into_iter().map(|(n, _)| n).collect())
        }
        _ => None,
    })
}

/// Each type parameter of `generics` with a trait bound (`<T: Read>`, or
/// `where T: Read`) → that trait's path: a value of type `T` has the
/// trait's methods (Rust Reference, "Trait bounds"), so `x.read()` with `x:
/// T` names `Read::read`.
fn bounded_parameters(generics: &syn::Generics) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for param in &generics.params {
        if let syn::GenericParam::Type(t) = param
            && let Some(path) = first_trait(&t.bounds)
        {
            out.insert(t.ident.to_string(), path);
        }
    }
    if let Some(clause) = &generics.where_clause {
        for predicate in &clause.predicates {
            if let syn::WherePredicate::Type(p) = predicate
                && let Type::Path(ty) = &p.bounded_ty
                && ty.qself.is_none()
                && let Some(ident) = ty.path.get_ident()
                && let Some(path) = first_trait(&p.bounds)
            {
                out.entry(ident.to_string()).or_insert(path);
            }
        }
    }
    out
}

impl Walker<'_, '_, '_> {
    fn position(&self, span: Span) -> (u32, u32, u32) {
        let range = self.region.range(span);
        let index = &self.region.file.index;
        let line = index.line(range.start);
        let column = index.column(range.start);
        let end_line = index.line(range.end);
        let end_column = if end_line == line {
            index.column(range.end)
        } else {
            column + 1
        };
        (line, column, end_column)
    }

    fn symbol_at(&self, span: Span) -> Option<ScopeKey> {
        let (line, column, _) = self.position(span);
        self.positions.get(&(line, column)).cloned()
    }

    fn frame_key(&self) -> Option<ScopeKey> {
        self.frames.last().and_then(|f| f.key.clone())
    }

    fn binding(&self, name: &str) -> Option<ScopeKey> {
        self.frames
            .iter()
            .rev()
            .find(|f| f.names.contains(name))
            .and_then(|f| f.key.clone())
    }

    fn bind(&mut self, names: Vec<String>) {
        if let Some(frame) = self.frames.last_mut() {
            frame.names.extend(names);
        }
    }

    fn synthetic(&self, what: &str, span: Span) -> ScopeKey {
        let (line, column, _) = self.position(span);
        let own = format!("<{what}@{line}:{column}>");
        ScopeKey {
            qualname: match self.frame_key().or_else(|| self.scopes.last().cloned()) {
                Some(parent) => format!("{}.{own}", parent.qualname),
                None => own,
            },
            start_line: line,
        }
    }

    fn push(
        &mut self,
        name: String,
        receiver: Receiver,
        role: Role,
        span: Span,
        binding: Option<ScopeKey>,
        subtype: Option<ScopeKey>,
    ) {
        let (line, column, end_column) = self.position(span);
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

    /// The binding of a chain's head: `self` and `Self` get their
    /// [`LocalType`] in the current function.
    fn head_binding(&mut self, head: &str) -> Option<ScopeKey> {
        if head != "self" && head != "Self" {
            return self.binding(head);
        }
        let key = self.frame_key()?;
        let owner = self.self_type.last().cloned()?;
        if self.typed.insert((key.qualname.clone(), head.to_owned())) {
            let type_of = if head == "self" {
                TypeOf::Instance(owner)
            } else {
                TypeOf::Class(owner)
            };
            self.facts.types.push(LocalType {
                scope: Some(key.clone()),
                name: head.to_owned(),
                type_of,
                line: key.start_line,
                until: None,
            });
        }
        Some(key)
    }

    /// References of a `::` or `.` chain: the head read, middles as
    /// attributes, the last with `role`. `self`, `Self`, `crate`, `super`
    /// heads are not references themselves.
    fn chain(&mut self, chain: Vec<(String, Span)>, role: Role, subtype: Option<ScopeKey>) {
        self.chain_of(chain, role, subtype, false);
    }

    /// [`Walker::chain`] of a `.` chain (`dotted`: `self.a` is the
    /// receiver) or a `::` path (`self::a` is the module).
    fn chain_of(
        &mut self,
        chain: Vec<(String, Span)>,
        role: Role,
        subtype: Option<ScopeKey>,
        dotted: bool,
    ) {
        let Some((head, _)) = chain.first() else {
            return;
        };
        let head = head.clone();
        // A `self::`/`crate::`/`super::` path names modules, not the
        // method receiver.
        let binding = if matches!(head.as_str(), "crate" | "super")
            || (head == "self" && !dotted && chain.len() > 1)
        {
            None
        } else {
            self.head_binding(&head)
        };
        let count = chain.len();
        let mut path = Vec::new();
        for (i, (name, span)) in chain.into_iter().enumerate() {
            let last = i + 1 == count;
            let skip = i == 0 && matches!(name.as_str(), "self" | "Self" | "crate" | "super")
                || name == "super";
            if !skip {
                let this_role = if last {
                    role
                } else if i == 0 {
                    Role::Read
                } else {
                    Role::Attribute
                };
                let receiver = if i == 0 {
                    Receiver::Bare
                } else if path.len() > outline_core::xref::MAX_RECEIVER_PARTS {
                    Receiver::Expression
                } else {
                    Receiver::Path(path.clone())
                };
                self.push(
                    name.clone(),
                    receiver,
                    this_role,
                    span,
                    binding.clone(),
                    if last { subtype.clone() } else { None },
                );
            }
            path.push(name);
        }
    }

    /// A `.` chain of an expression (`self.a.b`, `x.y`): names and spans.
    fn dot_chain(expr: &Expr) -> Option<Vec<(String, Span)>> {
        match expr {
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                Some(path_chain(&p.path))
            }
            Expr::Field(f) => {
                let Member::Named(name) = &f.member else {
                    return None;
                };
                let mut out = Self::dot_chain(&f.base)?;
                out.push((name.to_string(), name.span()));
                Some(out)
            }
            Expr::Paren(p) => Self::dot_chain(&p.expr),
            _ => None,
        }
    }

    fn function(&mut self, sig: &Signature, block: Option<&Block>, attrs_span: Span) {
        let key = self
            .symbol_at(sig.ident.span())
            .unwrap_or_else(|| self.synthetic("fn", attrs_span));
        let own = self.symbol_at(sig.ident.span()).is_some();
        if own {
            self.scopes.push(key.clone());
        }
        let mut names = generic_names(&sig.generics);
        let mut typed = Vec::new();
        let bounded = bounded_parameters(&sig.generics);
        for input in &sig.inputs {
            if let FnArg::Typed(p) = input {
                let mut bound = Vec::new();
                pat_names(&p.pat, &mut bound);
                if let (Pat::Ident(ident), Some(path)) = (&*p.pat, type_path(&p.ty)) {
                    // `x: T` with `T: Trait`: the trait's methods.
                    let path = match path.as_slice() {
                        [only] => bounded.get(only).cloned().unwrap_or(path),
                        _ => path,
                    };
                    typed.push((ident.ident.to_string(), path));
                }
                names.extend(bound);
            }
        }
        self.frames.push(Frame {
            key: Some(key.clone()),
            names: names.into_iter().collect(),
        });
        for (name, path) in typed {
            self.facts.types.push(LocalType {
                scope: Some(key.clone()),
                name,
                type_of: TypeOf::Path(path),
                line: key.start_line,
                until: None,
            });
        }
        for input in &sig.inputs {
            match input {
                FnArg::Typed(p) => {
                    self.visit_type(&p.ty);
                    self.visit_pat(&p.pat);
                }
                FnArg::Receiver(r) => {
                    if let syn::ReceiverKind::Typed(_, ty) = &r.kind {
                        self.visit_type(ty);
                    }
                }
            }
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            self.visit_type(ty);
            // The declared result (`-> Self` in an impl: the resolver takes
            // `Self` as the impl's type): `Pool::new().run()`.
            let path = match &**ty {
                Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self") => {
                    Some(vec!["Self".to_owned()])
                }
                other => type_path(other),
            };
            if own && let Some(path) = path {
                self.facts.returns.push(ReturnType {
                    function: key.clone(),
                    type_of: path,
                });
            }
        }
        if let Some(block) = block {
            self.visit_block(block);
        }
        self.frames.pop();
        if own {
            self.scopes.pop();
        }
    }

    fn use_tree(&mut self, tree: &UseTree, prefix: &mut Vec<String>, line_span: Span) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix, line_span);
                prefix.pop();
            }
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    let mut module = prefix.clone();
                    if let Some(last) = module.pop() {
                        self.use_binding(
                            last.clone(),
                            module,
                            Some(last),
                            n.ident.span(),
                            line_span,
                        );
                    }
                } else {
                    self.use_binding(
                        name.clone(),
                        prefix.clone(),
                        Some(name),
                        n.ident.span(),
                        line_span,
                    );
                }
            }
            UseTree::Rename(r) => {
                let name = r.ident.to_string();
                let local = r.rename.to_string();
                if name == "self" {
                    let mut module = prefix.clone();
                    if let Some(last) = module.pop() {
                        self.use_binding(local, module, Some(last), r.ident.span(), line_span);
                    }
                } else {
                    self.use_binding(local, prefix.clone(), Some(name), r.ident.span(), line_span);
                }
            }
            UseTree::Glob(g) => {
                let _ = g;
                self.use_binding(
                    "*".to_owned(),
                    prefix.clone(),
                    Some("*".to_owned()),
                    line_span,
                    line_span,
                );
            }
            UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(tree, prefix, line_span);
                }
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    /// One name bound by a `use`: `module` the segments before it.
    fn use_binding(
        &mut self,
        local: String,
        module: Vec<String>,
        name: Option<String>,
        name_span: Span,
        statement: Span,
    ) {
        let (line, _, _) = self.position(statement);
        let mut level = 0u32;
        let mut rest: &[String] = &module;
        if rest.first().map(String::as_str) == Some("self") {
            level = 1;
            rest = rest.get(1..).unwrap_or_default();
        } else if rest.first().map(String::as_str) == Some("super") {
            level = 1;
            while rest.first().map(String::as_str) == Some("super") {
                level += 1;
                rest = rest.get(1..).unwrap_or_default();
            }
            // `super::` from inside an inline module stays in the file.
            let depth = u32::try_from(self.inline.len()).unwrap_or(u32::MAX);
            level = level.saturating_sub(depth).max(1);
        }
        let module = rest.join(".");
        let scope = self.frame_key();
        self.facts.imports.push(ImportBinding {
            local,
            module,
            level,
            name: name.clone(),
            line,
            scope,
        });
        if let Some(name) = name
            && name != "*"
        {
            let (name_line, column, end_column) = self.position(name_span);
            self.facts.references.push(Reference {
                name,
                receiver: Receiver::Bare,
                role: Role::Import,
                // At the name, also on a later line of a multi-line `use`
                // (the resolver pairs it with the statement's binding).
                line: name_line,
                column,
                end_column,
                scope: self.scopes.last().cloned(),
                binding: None,
                subtype: None,
                dynamic: None,
            });
        }
    }

    /// A struct, enum, union or type alias: its generic parameters are
    /// bound while its generics and `body` (fields, variants, aliased type)
    /// are walked, so `T` of `struct S<T> { x: Option<T> }` is a local.
    fn generic_item(
        &mut self,
        ident: &syn::Ident,
        generics: &syn::Generics,
        body: impl FnOnce(&mut Self),
    ) {
        let key = self
            .symbol_at(ident.span())
            .unwrap_or_else(|| self.synthetic("item", ident.span()));
        self.frames.push(Frame {
            key: Some(key),
            names: generic_names(generics).into_iter().collect(),
        });
        self.visit_generics(generics);
        body(self);
        self.frames.pop();
    }

    /// The named fields of struct `ident` whose type names a type (`inner:
    /// Arc<Inner>`): an [`Attribute`] each, so `self.inner.m()` finds `m`
    /// on `Inner`.
    fn field_types(&mut self, ident: &syn::Ident, fields: &syn::Fields) {
        let Some(key) = self.symbol_at(ident.span()) else {
            return;
        };
        let syn::Fields::Named(named) = fields else {
            return;
        };
        for field in &named.named {
            let (Some(name), Some(path)) = (&field.ident, type_path(&field.ty)) else {
                continue;
            };
            let (line, _, _) = self.position(name.span());
            self.facts.attributes.push(Attribute {
                class: key.clone(),
                name: name.to_string(),
                line,
                scope: Some(key.clone()),
                type_of: Some(path),
                elements: false,
                ty: None,
                value: None,
                instance: false,
            });
        }
    }

    /// The named fields of a struct literal or pattern (`Pool { inner, size:
    /// 4 }`): each a reference to the field, a member of the struct's path.
    fn struct_fields<'m>(&mut self, path: &Path, members: impl Iterator<Item = &'m Member>) {
        let names: Vec<String> = path_chain(path).into_iter().map(|(n, _)| n).collect();
        if names.is_empty() || names.len() > outline_core::xref::MAX_RECEIVER_PARTS {
            return;
        }
        let binding = match names.first().map(String::as_str) {
            Some("crate" | "super" | "self") | None => None,
            Some(head) => self.head_binding(head),
        };
        for member in members {
            if let Member::Named(ident) = member {
                self.push(
                    ident.to_string(),
                    Receiver::Path(names.clone()),
                    Role::Attribute,
                    ident.span(),
                    binding.clone(),
                    None,
                );
            }
        }
    }

    /// The items of a brace-delimited invocation's body, walked in place.
    /// The invocation is a [`MacroCall`] when `call` (in item position:
    /// `owner` the impl or trait holding it, `None` at module level), and a
    /// `macro_rules!` whose bodies define items is a [`MacroRules`].
    fn macro_items(&mut self, mac: &Macro, ident: Option<&syn::Ident>, call: bool) {
        if mac.path.is_ident("macro_rules") {
            if let Some(ident) = ident
                && let Some(definition) = self.symbol_at(ident.span())
            {
                let (items, fragment_items) = crate::macros::macro_rules_items(mac.tokens.clone());
                if !items.is_empty() || fragment_items {
                    self.facts.macro_rules.push(MacroRules {
                        definition,
                        name: ident.to_string(),
                        items,
                        fragment_items,
                    });
                }
            }
            return;
        }
        self.macro_path(mac);
        let items = crate::macros::body_items(mac);
        if call && let Some(last) = mac.path.segments.last() {
            let (line, _, _) = self.position(last.ident.span());
            // A body of items gives them as the outline's symbols: its
            // names are definitions, made by no expansion.
            let idents = if items.is_empty() {
                crate::macros::invocation_idents(mac.tokens.clone())
            } else {
                Vec::new()
            };
            let owner = self
                .self_type
                .last()
                .cloned()
                .filter(|_| self.frames.len() > 1);
            self.facts.macro_calls.push(MacroCall {
                name: last.ident.to_string(),
                line,
                owner,
                idents,
            });
        }
        for item in items {
            self.visit_item(&item);
        }
    }

    /// The invoked macro's path (`deref_async_read!`, `tokio::select!`): a
    /// call of the macro (`macro_rules!` itself is none).
    fn macro_path(&mut self, mac: &Macro) {
        if !mac.path.is_ident("macro_rules") {
            self.chain(path_chain(&mac.path), Role::Call, None);
        }
    }

    fn macro_args(&mut self, mac: &Macro) {
        self.macro_path(mac);
        if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Walker<'_, '_, '_> {
    fn visit_item_fn(&mut self, node: &'ast ItemFn) {
        self.function(&node.sig, Some(&node.block), node.sig.fn_token.span);
    }

    fn visit_impl_item_fn(&mut self, node: &'ast ImplItemFn) {
        self.function(&node.sig, Some(&node.block), node.sig.fn_token.span);
    }

    fn visit_trait_item_fn(&mut self, node: &'ast TraitItemFn) {
        self.function(&node.sig, node.default.as_ref(), node.sig.fn_token.span);
    }

    fn visit_item_impl(&mut self, node: &'ast ItemImpl) {
        let key = self
            .symbol_at(node.impl_token.span)
            .unwrap_or_else(|| self.synthetic("impl", node.impl_token.span));
        self.frames.push(Frame {
            key: Some(key.clone()),
            names: generic_names(&node.generics).into_iter().collect(),
        });
        match &*node.self_ty {
            Type::Path(TypePath {
                qself: None, path, ..
            }) => {
                self.chain(path_chain(path), Role::TypeUse, Some(key.clone()));
                for segment in &path.segments {
                    self.visit_path_arguments(&segment.arguments);
                }
            }
            other => self.visit_type(other),
        }
        if let Some((path, _)) = &node.trait_ {
            self.chain(path_chain(path), Role::Inherit, Some(key.clone()));
            for segment in &path.segments {
                self.visit_path_arguments(&segment.arguments);
            }
        }
        // Bounds and `where` clauses (`impl<P> AsyncRead for Pin<P> where
        // P::Target: AsyncRead`).
        self.visit_generics(&node.generics);
        self.scopes.push(key.clone());
        self.self_type.push(key);
        for item in &node.items {
            self.visit_impl_item(item);
        }
        self.self_type.pop();
        self.scopes.pop();
        self.frames.pop();
    }

    fn visit_item_trait(&mut self, node: &'ast ItemTrait) {
        let key = self
            .symbol_at(node.ident.span())
            .unwrap_or_else(|| self.synthetic("trait", node.ident.span()));
        self.frames.push(Frame {
            key: Some(key.clone()),
            names: generic_names(&node.generics).into_iter().collect(),
        });
        for bound in &node.supertraits {
            if let TypeParamBound::Trait(t) = bound {
                self.chain(path_chain(&t.path), Role::Inherit, Some(key.clone()));
            }
        }
        self.visit_generics(&node.generics);
        self.scopes.push(key.clone());
        self.self_type.push(key);
        for item in &node.items {
            self.visit_trait_item(item);
        }
        self.self_type.pop();
        self.scopes.pop();
        self.frames.pop();
    }

    fn visit_item_struct(&mut self, node: &'ast syn::ItemStruct) {
        self.generic_item(&node.ident, &node.generics, |w| {
            w.visit_fields(&node.fields);
            w.field_types(&node.ident, &node.fields);
        });
    }

    fn visit_item_enum(&mut self, node: &'ast syn::ItemEnum) {
        self.generic_item(&node.ident, &node.generics, |w| {
            for variant in &node.variants {
                w.visit_variant(variant);
            }
        });
    }

    fn visit_item_union(&mut self, node: &'ast syn::ItemUnion) {
        self.generic_item(&node.ident, &node.generics, |w| {
            w.visit_fields_named(&node.fields);
        });
    }

    fn visit_item_type(&mut self, node: &'ast syn::ItemType) {
        self.generic_item(&node.ident, &node.generics, |w| w.visit_type(&node.ty));
    }

    fn visit_item_mod(&mut self, node: &'ast ItemMod) {
        let step = ModuleStep {
            name: node.ident.to_string(),
            path: path_attribute(&node.attrs),
        };
        let Some((_, items)) = &node.content else {
            // `mod x;` in a function body names no file of the tree.
            if self.frames.len() == 1 {
                let mut steps = self.inline.clone();
                steps.push(step);
                self.facts.modules.push(ModuleDecl { steps });
            }
            return;
        };
        let key = self.symbol_at(node.ident.span());
        if let Some(key) = &key {
            self.scopes.push(key.clone());
        }
        self.inline.push(step);
        for item in items {
            self.visit_item(item);
        }
        self.inline.pop();
        if key.is_some() {
            self.scopes.pop();
        }
    }

    fn visit_item_use(&mut self, node: &'ast ItemUse) {
        let mut prefix = Vec::new();
        self.use_tree(&node.tree, &mut prefix, node.use_token.span);
    }

    fn visit_block(&mut self, node: &'ast Block) {
        let key = self.frame_key();
        self.frames.push(Frame {
            key,
            names: HashSet::new(),
        });
        for stmt in &node.stmts {
            self.visit_stmt(stmt);
        }
        self.frames.pop();
    }

    fn visit_local(&mut self, node: &'ast Local) {
        if let Some(init) = &node.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.visit_pat(&node.pat);
        let mut names = Vec::new();
        pat_names(&node.pat, &mut names);
        let (line, _, _) = self.position(node.let_token.span);
        let scope = self.frame_key();
        let typed = match &node.pat {
            Pat::Type(p) => match (&*p.pat, type_path(&p.ty)) {
                (Pat::Ident(i), Some(path)) => Some((i.ident.to_string(), path)),
                _ => None,
            },
            // `let rt = rt();` is left out: a path equal to the name is
            // read as the name's own earlier binding.
            Pat::Ident(i) => node
                .init
                .as_ref()
                .and_then(|init| init_type(&init.expr))
                .filter(|path| !matches!(path.as_slice(), [only] if i.ident == only))
                .map(|path| (i.ident.to_string(), path)),
            _ => None,
        };
        if let Some((name, path)) = typed {
            self.facts.types.push(LocalType {
                scope,
                name,
                type_of: TypeOf::Path(path),
                line,
                until: None,
            });
        }
        self.bind(names);
    }

    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        let key = self.frame_key();
        let mut names = Vec::new();
        for input in &node.inputs {
            pat_names(input, &mut names);
            self.visit_pat(input);
        }
        self.frames.push(Frame {
            key,
            names: names.into_iter().collect(),
        });
        self.visit_expr(&node.body);
        self.frames.pop();
    }

    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        let mut names = Vec::new();
        pat_names(&node.pat, &mut names);
        let key = self.frame_key();
        self.frames.push(Frame {
            key,
            names: names.into_iter().collect(),
        });
        self.visit_pat(&node.pat);
        self.visit_block(&node.body);
        self.frames.pop();
    }

    fn visit_arm(&mut self, node: &'ast syn::Arm) {
        let mut names = Vec::new();
        pat_names(&node.pat, &mut names);
        let key = self.frame_key();
        self.frames.push(Frame {
            key,
            names: names.into_iter().collect(),
        });
        self.visit_pat(&node.pat);
        self.visit_expr(&node.body);
        self.frames.pop();
    }

    fn visit_expr_let(&mut self, node: &'ast syn::ExprLet) {
        self.visit_expr(&node.expr);
        self.visit_pat(&node.pat);
        let mut names = Vec::new();
        pat_names(&node.pat, &mut names);
        self.bind(names);
    }

    fn visit_pat(&mut self, node: &'ast Pat) {
        match node {
            Pat::Ident(p) => {
                let name = p.ident.to_string();
                if p.subpat.is_none()
                    && p.by_ref.is_none()
                    && p.mutability.is_none()
                    && !is_binding_name(&name)
                {
                    let binding = self.binding(&name);
                    self.push(
                        name,
                        Receiver::Bare,
                        Role::Read,
                        p.ident.span(),
                        binding,
                        None,
                    );
                }
                if let Some((_, sub)) = &p.subpat {
                    self.visit_pat(sub);
                }
            }
            Pat::Path(p) => self.chain(path_chain(&p.path), Role::Read, None),
            Pat::TupleStruct(p) => {
                self.chain(path_chain(&p.path), Role::Read, None);
                for elem in &p.elems {
                    self.visit_pat(elem);
                }
            }
            Pat::Struct(p) => {
                self.chain(path_chain(&p.path), Role::Read, None);
                if p.qself.is_none() {
                    self.struct_fields(&p.path, p.fields.iter().map(|f| &f.member));
                }
                for field in &p.fields {
                    self.visit_pat(&field.pat);
                }
            }
            Pat::Type(p) => {
                self.visit_pat(&p.pat);
                self.visit_type(&p.ty);
            }
            other => visit::visit_pat(self, other),
        }
    }

    fn visit_expr(&mut self, node: &'ast Expr) {
        if self.depth >= MAX_EXPRESSION_DEPTH {
            return;
        }
        self.depth += 1;
        self.visit_expr_inside(node);
        self.depth -= 1;
    }

    fn visit_stmt_macro(&mut self, node: &'ast syn::StmtMacro) {
        self.macro_args(&node.mac);
    }

    fn visit_type_path(&mut self, node: &'ast TypePath) {
        if let Some(qself) = &node.qself {
            self.visit_type(&qself.ty);
        }
        let chain = path_chain(&node.path);
        let primitive = chain.len() == 1
            && chain
                .first()
                .is_some_and(|(n, _)| PRIMITIVES.contains(&n.as_str()));
        if !primitive && node.qself.is_none() {
            self.chain(chain, Role::TypeUse, None);
        }
        for segment in &node.path.segments {
            self.visit_path_arguments(&segment.arguments);
        }
    }

    fn visit_trait_bound(&mut self, node: &'ast syn::TraitBound) {
        self.chain(path_chain(&node.path), Role::TypeUse, None);
        for segment in &node.path.segments {
            self.visit_path_arguments(&segment.arguments);
        }
    }

    fn visit_macro(&mut self, _node: &'ast Macro) {}

    /// Items written in a brace-delimited invocation (`cfg_rt! { pub(crate)
    /// use …; mod x; fn f() { … } }`) are walked as the items they become
    /// once expanded: their `use` bindings, `mod` declarations and bodies
    /// count as the module's (the outline gives them as the macro symbol's
    /// children, see `macros.rs`).
    fn visit_item_macro(&mut self, node: &'ast syn::ItemMacro) {
        // Outside a function: an item of the module (a function body's
        // items are its own).
        let module_level = self.frames.len() == 1;
        self.macro_items(&node.mac, node.ident.as_ref(), module_level);
    }

    /// [`Visit::visit_item_macro`] inside an impl block: its functions are
    /// the impl's methods (`self` is the impl's type).
    fn visit_impl_item_macro(&mut self, node: &'ast syn::ImplItemMacro) {
        self.macro_items(&node.mac, None, true);
    }

    /// [`Visit::visit_item_macro`] inside a trait.
    fn visit_trait_item_macro(&mut self, node: &'ast syn::TraitItemMacro) {
        self.macro_items(&node.mac, None, true);
    }

    fn visit_attribute(&mut self, _node: &'ast syn::Attribute) {}
}

impl<'ast> Walker<'_, '_, '_> {
    /// [`Visit::visit_expr`] below the depth check.
    fn visit_expr_inside(&mut self, node: &'ast Expr) {
        match node {
            Expr::Path(ExprPath {
                qself: None, path, ..
            }) => {
                let chain = path_chain(path);
                if chain.len() == 1 && chain.first().is_some_and(|(n, _)| n == "self") {
                    return;
                }
                let role = if chain.len() == 1 {
                    Role::Read
                } else {
                    Role::Attribute
                };
                self.chain(chain, role, None);
                for segment in &path.segments {
                    self.visit_path_arguments(&segment.arguments);
                }
            }
            Expr::Call(call) => {
                match &*call.func {
                    Expr::Path(ExprPath {
                        qself: None, path, ..
                    }) => {
                        self.chain(path_chain(path), Role::Call, None);
                        for segment in &path.segments {
                            self.visit_path_arguments(&segment.arguments);
                        }
                    }
                    other => self.visit_expr(other),
                }
                for arg in &call.args {
                    self.visit_expr(arg);
                }
            }
            Expr::MethodCall(m) => {
                match Self::dot_chain(&m.receiver) {
                    Some(mut chain) => {
                        chain.push((m.method.to_string(), m.method.span()));
                        self.chain_of(chain, Role::Call, None, true);
                    }
                    None => {
                        self.visit_expr(&m.receiver);
                        // `Type::new().run()`: a method of the call's result
                        // (the callee's declared return type).
                        let called = match &*m.receiver {
                            Expr::Call(call) => match &*call.func {
                                Expr::Path(syn::ExprPath {
                                    qself: None, path, ..
                                }) if path.segments.len()
                                    <= outline_core::xref::MAX_RECEIVER_PARTS
                                    && path.leading_colon.is_none() =>
                                {
                                    let names: Vec<String> =
                                        path.segments.iter().map(|s| s.ident.to_string()).collect();
                                    names
                                        .first()
                                        .filter(|h| {
                                            !matches!(h.as_str(), "self" | "crate" | "super")
                                        })
                                        .is_some()
                                        .then_some(names)
                                }
                                _ => None,
                            },
                            _ => None,
                        };
                        let (receiver, binding) = match called {
                            Some(names) => {
                                let binding = names.first().and_then(|h| self.head_binding(h));
                                (Receiver::Call(names), binding)
                            }
                            None => (Receiver::Expression, None),
                        };
                        self.push(
                            m.method.to_string(),
                            receiver,
                            Role::Call,
                            m.method.span(),
                            binding,
                            None,
                        );
                    }
                }
                if let Some(turbofish) = &m.turbofish {
                    self.visit_angle_bracketed_generic_arguments(turbofish);
                }
                for arg in &m.args {
                    self.visit_expr(arg);
                }
            }
            Expr::Field(f) => match Self::dot_chain(node) {
                Some(chain) => self.chain_of(chain, Role::Attribute, None, true),
                None => {
                    self.visit_expr(&f.base);
                    if let Member::Named(name) = &f.member {
                        self.push(
                            name.to_string(),
                            Receiver::Expression,
                            Role::Attribute,
                            name.span(),
                            None,
                            None,
                        );
                    }
                }
            },
            Expr::Struct(s) => {
                if s.qself.is_none() {
                    self.chain(path_chain(&s.path), Role::Instantiate, None);
                    self.struct_fields(&s.path, s.fields.iter().map(|f| &f.member));
                }
                for field in &s.fields {
                    self.visit_expr(&field.expr);
                }
                if let Some(rest) = &s.rest {
                    self.visit_expr(rest);
                }
            }
            Expr::Macro(m) => self.macro_args(&m.mac),
            other => visit::visit_expr(self, other),
        }
    }
}

#[cfg(test)]
mod tests {
    use outline_core::xref::{MacroCall, MacroRules, ScopeKey};
    use outline_core::{Language, Outline, OutlineOptions};

    use crate::RustOutline;

    fn facts(source: &str) -> outline_core::xref::Facts {
        RustOutline
            .extract_with_facts(source, Language::Rust, &OutlineOptions::default())
            .1
    }

    fn key(qualname: &str, start_line: u32) -> ScopeKey {
        ScopeKey {
            qualname: qualname.to_owned(),
            start_line,
        }
    }

    #[test]
    fn macro_rules_bodies_and_item_invocations_are_facts() {
        let source = "\
macro_rules! make_getter {
    ($name:ident, $field:ident) => {
        pub fn $name(s: &State) -> u32 { s.$field }
    };
}
make_getter!(get_count, count);

macro_rules! make_unit { () => { pub struct Unit; const fn f() {} static mut N: u8 = 0; const _: () = (); } }
make_unit!();

macro_rules! just_expr { ($e:expr) => { $e + 1 }; }

impl State {
    make_getter!(get_size, size);
}
fn body() { make_getter!(local, x); }
mod inner { crate::make_unit! { Unit } }
";
        let facts = facts(source);
        assert_eq!(
            facts.macro_rules,
            [
                MacroRules {
                    definition: key("make_getter", 1),
                    name: "make_getter".to_owned(),
                    items: Vec::new(),
                    fragment_items: true,
                },
                MacroRules {
                    definition: key("make_unit", 8),
                    name: "make_unit".to_owned(),
                    items: vec!["Unit".to_owned(), "f".to_owned(), "N".to_owned()],
                    fragment_items: false,
                },
            ]
        );
        assert_eq!(
            facts.macro_calls,
            [
                MacroCall {
                    name: "make_getter".to_owned(),
                    line: 6,
                    owner: None,
                    idents: vec!["get_count".to_owned(), "count".to_owned()],
                },
                MacroCall {
                    name: "make_unit".to_owned(),
                    line: 9,
                    owner: None,
                    idents: Vec::new(),
                },
                MacroCall {
                    name: "make_getter".to_owned(),
                    line: 14,
                    owner: Some(key("impl State", 13)),
                    idents: vec!["get_size".to_owned(), "size".to_owned()],
                },
                MacroCall {
                    name: "make_unit".to_owned(),
                    line: 17,
                    owner: None,
                    idents: vec!["Unit".to_owned()],
                },
            ]
        );
    }
}
