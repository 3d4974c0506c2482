//! Walks swc's module items and builds outline symbols.
//!
//! Scopes decide what a statement becomes:
//! - **module** (and namespace bodies): declarations, `const`/`let`/`var`
//!   bindings (a function or arrow initialiser makes a function, an object
//!   literal lists its function-valued members), CommonJS `module.exports =` /
//!   `exports.x =` assignments; control-flow statements are blocks holding what
//!   is declared inside them;
//! - **function bodies**: nested declarations only (locals are not symbols);
//!   when a body spans more than the block threshold its top-level control-flow
//!   statements become blocks (see `blocks.rs`).

use outline_core::text::{
    MAX_DECORATOR_CHARS, MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate,
};
use outline_core::{Modifier, OutlineOptions, Symbol, SymbolKind};
use std::cell::Cell;

use swc_common::comments::SingleThreadedComments;
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    AssignOp, AssignTarget, Class, Decl, Decorator, DefaultDecl, Expr, Function, MemberProp,
    ModuleDecl, ModuleItem, ObjectLit, Pat, Prop, PropName, PropOrSpread, SimpleAssignTarget, Stmt,
    TsEnumDecl, TsEnumMemberId, TsInterfaceDecl, TsModuleDecl, TsModuleName, TsNamespaceBody,
    TsTypeAliasDecl, TsTypeElement, VarDecl, VarDeclKind,
};

use crate::docs::jsdoc;
use crate::signature::{self, Param2, render_params, render_type_params, type_params, type_text};
use crate::source::Source;

/// Name of an anonymous `export default` declaration or expression.
pub(crate) const DEFAULT_NAME: &str = "default";

/// Name of an anonymous `export =` value (TypeScript's CommonJS export).
pub(crate) const EXPORT_ASSIGNMENT_NAME: &str = "export=";

/// Where a statement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    Module,
    Function,
}

/// What the statement around a declaration adds: where it starts (`export`,
/// `declare`, …) and the modifiers it implies.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ctx {
    pub start: Option<BytePos>,
    pub end: Option<BytePos>,
    pub modifiers: Vec<Modifier>,
    /// `public`, `protected` or `private` of a class member.
    pub visibility: Option<String>,
}

pub(crate) struct Walker<'s, 'a> {
    pub source: &'s Source<'a>,
    pub comments: &'s SingleThreadedComments,
    pub options: &'s OutlineOptions,
    /// How many statements, functions and object literals the walk is inside.
    pub depth: Cell<u32>,
}

/// Deepest nesting the walk enters. The core keeps 50 symbol levels, so
/// nothing deeper could be shown; the cap bounds the walk's stack on
/// pathological input (thousands of nested blocks).
const MAX_WALK_DEPTH: u32 = 300;

/// Leaves one nesting level when dropped.
pub(crate) struct Level<'w>(&'w Cell<u32>);

impl Drop for Level<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

/// A function-like value: a function expression or an arrow function.
pub(crate) enum FnLike<'n> {
    Function(&'n Function),
    Arrow(&'n swc_ecma_ast::ArrowExpr),
}

/// `expr` without parentheses and type-only wrappers (`as`, `satisfies`, `!`).
pub(crate) fn unwrap(mut expr: &Expr) -> &Expr {
    loop {
        expr = match expr {
            Expr::Paren(p) => &p.expr,
            Expr::TsAs(e) => &e.expr,
            Expr::TsConstAssertion(e) => &e.expr,
            Expr::TsSatisfies(e) => &e.expr,
            Expr::TsNonNull(e) => &e.expr,
            Expr::TsTypeAssertion(e) => &e.expr,
            other => return other,
        };
    }
}

pub(crate) fn fn_like(expr: &Expr) -> Option<FnLike<'_>> {
    match unwrap(expr) {
        Expr::Fn(f) => Some(FnLike::Function(&f.function)),
        Expr::Arrow(a) => Some(FnLike::Arrow(a)),
        _ => None,
    }
}

/// `MAX_SIZE`, `_DEFAULT`, `V2`: letters all upper case, at least one letter.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_alphabetic)
        && name.chars().all(|c| {
            c == '_' || c == '$' || c.is_ascii_digit() || (c.is_alphabetic() && !c.is_lowercase())
        })
}

/// Marks bodiless functions, methods and constructors that share their name
/// and kind with a sibling as overload signatures.
pub(crate) fn mark_overloads(symbols: &mut [Symbol]) {
    let keys: Vec<(String, SymbolKind)> =
        symbols.iter().map(|s| (s.name.clone(), s.kind)).collect();
    for (i, symbol) in symbols.iter_mut().enumerate() {
        let callable = matches!(
            symbol.kind,
            SymbolKind::Function | SymbolKind::Method | SymbolKind::Constructor
        );
        if callable && symbol.has(Modifier::Bodiless) {
            let twin = keys
                .iter()
                .enumerate()
                .any(|(j, key)| j != i && key.0 == symbol.name && key.1 == symbol.kind);
            if twin {
                symbol.modifiers.push(Modifier::Overload);
                symbol.modifiers.sort();
                symbol.modifiers.dedup();
            }
        }
    }
}

impl Walker<'_, '_> {
    /// Enters one nesting level, or `None` when the walk is too deep.
    pub fn enter(&self) -> Option<Level<'_>> {
        let depth = self.depth.get();
        if depth >= MAX_WALK_DEPTH {
            return None;
        }
        self.depth.set(depth + 1);
        Some(Level(&self.depth))
    }

    /// A symbol spanning `start..end` named at `name_span`, with its JSDoc.
    pub fn symbol(
        &self,
        name: impl Into<String>,
        kind: SymbolKind,
        start: BytePos,
        end: BytePos,
        name_pos: BytePos,
    ) -> Symbol {
        let source = self.source;
        let start = self.keywords_before(start);
        let start_line = source.line(start);
        let end_line = source.end_line(Span::new(start, end)).max(start_line);
        let mut symbol = Symbol::new(name, kind, start_line, end_line);
        symbol.name_line = source.line(name_pos);
        symbol.name_column = source.column(name_pos);
        if let Some((line, doc)) = jsdoc(source, self.comments, start) {
            symbol.doc_start_line = Some(line);
            symbol.doc = doc;
        }
        symbol
    }

    /// `pos` moved back over the declaration keywords swc leaves out of some
    /// spans (`declare`, `export`, `default`, `abstract`, `async`).
    fn keywords_before(&self, pos: BytePos) -> BytePos {
        let text = self.source.text;
        let mut offset = self.source.offset(pos);
        while let Some(before) = text.get(..offset) {
            let trimmed = before.trim_end();
            let word_start = trimmed
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .map_or(0, |i| i + 1);
            let word = trimmed.get(word_start..).unwrap_or_default();
            if matches!(
                word,
                "declare" | "export" | "default" | "abstract" | "async"
            ) {
                offset = word_start;
            } else {
                break;
            }
        }
        BytePos(
            u32::try_from(offset)
                .unwrap_or(0)
                .saturating_add(crate::source::BASE),
        )
    }

    pub fn decorators(&self, decorators: &[Decorator]) -> Vec<String> {
        decorators
            .iter()
            .map(|d| self.source.node_text(d, MAX_DECORATOR_CHARS))
            .collect()
    }

    /// Symbols of a module or namespace body.
    pub fn items(&self, items: &[ModuleItem], out: &mut Vec<Symbol>) {
        for item in items {
            self.item(item, out);
        }
        mark_overloads(out);
    }

    fn item(&self, item: &ModuleItem, out: &mut Vec<Symbol>) {
        let ModuleItem::ModuleDecl(decl) = item else {
            if let ModuleItem::Stmt(stmt) = item {
                self.stmt(stmt, Scope::Module, true, out);
            }
            return;
        };
        match decl {
            ModuleDecl::ExportDecl(e) => {
                let ctx = Ctx {
                    start: Some(e.span.lo),
                    end: Some(e.span.hi),
                    modifiers: vec![Modifier::Export],
                    visibility: None,
                };
                self.decl(&e.decl, Scope::Module, &ctx, out);
            }
            ModuleDecl::ExportDefaultDecl(e) => {
                let ctx = Ctx {
                    start: Some(e.span.lo),
                    end: Some(e.span.hi),
                    modifiers: vec![Modifier::Export, Modifier::Default],
                    visibility: None,
                };
                match &e.decl {
                    DefaultDecl::Class(c) => {
                        let (name, pos) = match &c.ident {
                            Some(id) => (id.sym.to_string(), id.span.lo),
                            None => (DEFAULT_NAME.to_owned(), c.class.span.lo),
                        };
                        out.push(self.class(name, pos, &c.class, false, &ctx));
                    }
                    DefaultDecl::Fn(f) => {
                        let (name, pos) = match &f.ident {
                            Some(id) => (id.sym.to_string(), id.span.lo),
                            None => (DEFAULT_NAME.to_owned(), f.function.span.lo),
                        };
                        out.push(self.function(
                            name,
                            pos,
                            &FnLike::Function(&f.function),
                            SymbolKind::Function,
                            &ctx,
                            false,
                        ));
                    }
                    DefaultDecl::TsInterfaceDecl(i) => out.push(self.interface(i, &ctx)),
                }
            }
            ModuleDecl::ExportDefaultExpr(e) => {
                let ctx = Ctx {
                    start: Some(e.span.lo),
                    end: Some(e.span.hi),
                    modifiers: vec![Modifier::Export, Modifier::Default],
                    visibility: None,
                };
                if let Some(symbol) =
                    self.bound_value(DEFAULT_NAME, e.expr.span().lo, &e.expr, false, &ctx, false)
                {
                    out.push(symbol);
                }
            }
            ModuleDecl::TsExportAssignment(e) => {
                // `export = class Checker {}`: named by the class or function
                // expression when it has a name.
                let ctx = Ctx {
                    start: Some(e.span.lo),
                    end: Some(e.span.hi),
                    modifiers: vec![Modifier::Export],
                    visibility: None,
                };
                let own = match unwrap(&e.expr) {
                    Expr::Class(c) => c.ident.as_ref(),
                    Expr::Fn(f) => f.ident.as_ref(),
                    _ => None,
                };
                let (name, pos) = own.map_or_else(
                    || (EXPORT_ASSIGNMENT_NAME.to_owned(), e.expr.span().lo),
                    |id| (id.sym.to_string(), id.span.lo),
                );
                if let Some(symbol) = self.bound_value(&name, pos, &e.expr, false, &ctx, true) {
                    out.push(symbol);
                }
            }
            _ => {}
        }
    }

    /// A statement in `scope`; with `split`, control-flow statements become
    /// blocks instead of being looked through.
    pub fn stmt(&self, stmt: &Stmt, scope: Scope, split: bool, out: &mut Vec<Symbol>) {
        let Some(_level) = self.enter() else {
            return;
        };
        match stmt {
            Stmt::Decl(decl) => self.decl(decl, scope, &Ctx::default(), out),
            Stmt::Expr(e) if scope == Scope::Module => {
                if let Some(symbol) = self.assignment(&e.expr, e.span) {
                    out.push(symbol);
                } else if let Some(symbol) = self.wrapper_call(&e.expr, e.span) {
                    out.push(symbol);
                }
            }
            Stmt::Block(b) => {
                for s in &b.stmts {
                    self.stmt(s, scope, split, out);
                }
            }
            Stmt::Labeled(l) => self.stmt(&l.body, scope, split, out),
            _ => {
                let Some(bodies) = crate::blocks::nested_bodies(stmt) else {
                    return;
                };
                if split {
                    out.push(self.block(stmt, scope, &bodies));
                } else {
                    for body in bodies {
                        for s in body {
                            self.stmt(s, scope, false, out);
                        }
                    }
                }
            }
        }
    }

    fn decl(&self, decl: &Decl, scope: Scope, ctx: &Ctx, out: &mut Vec<Symbol>) {
        let mut ctx = ctx.clone();
        match decl {
            Decl::Fn(f) => {
                if f.declare {
                    ctx.modifiers.push(Modifier::Declare);
                }
                out.push(self.function(
                    f.ident.sym.to_string(),
                    f.ident.span.lo,
                    &FnLike::Function(&f.function),
                    SymbolKind::Function,
                    &ctx,
                    false,
                ));
            }
            Decl::Class(c) => {
                if c.declare {
                    ctx.modifiers.push(Modifier::Declare);
                }
                out.push(self.class(
                    c.ident.sym.to_string(),
                    c.ident.span.lo,
                    &c.class,
                    false,
                    &ctx,
                ));
            }
            Decl::Var(v) if scope == Scope::Module => self.var(v, &ctx, out),
            Decl::Var(_) | Decl::Using(_) => {}
            Decl::TsInterface(i) => out.push(self.interface(i, &ctx)),
            Decl::TsTypeAlias(t) => out.push(self.type_alias(t, &ctx)),
            Decl::TsEnum(e) => out.push(self.enumeration(e, &ctx)),
            Decl::TsModule(m) => out.push(self.module(m, &ctx)),
        }
    }

    fn bounds(&self, ctx: &Ctx, span: Span) -> (BytePos, BytePos) {
        let start = ctx.start.map_or(span.lo, |s| s.min(span.lo));
        let end = ctx.end.map_or(span.hi, |e| e.max(span.hi));
        (start, end)
    }

    fn with_modifiers(symbol: &mut Symbol, modifiers: &[Modifier]) {
        symbol.modifiers.extend_from_slice(modifiers);
        symbol.modifiers.sort();
        symbol.modifiers.dedup();
    }

    /// A function declaration, function expression or arrow function named
    /// `name`, as a `kind` symbol. `in_class` says whether it is a member
    /// (the signature then has no `function` keyword).
    pub fn function(
        &self,
        name: String,
        name_pos: BytePos,
        f: &FnLike<'_>,
        kind: SymbolKind,
        ctx: &Ctx,
        member: bool,
    ) -> Symbol {
        let source = self.source;
        let (span, decorators): (Span, &[Decorator]) = match f {
            FnLike::Function(f) => (f.span, &f.decorators),
            FnLike::Arrow(a) => (a.span, &[]),
        };
        let (mut start, end) = self.bounds(ctx, span);
        if let Some(first) = decorators.first() {
            start = start.min(first.span.lo);
        }
        let mut symbol = self.symbol(name, kind, start, end, name_pos);
        symbol.decorators = self.decorators(decorators);
        symbol.visibility.clone_from(&ctx.visibility);
        let mut modifiers = ctx.modifiers.clone();
        let (params, ret, tps, is_async, is_generator, body) = match f {
            FnLike::Function(f) => {
                let mut params: Vec<Param2> = Vec::new();
                if let Some(this) = &f.this_param {
                    params.push(signature::this_param(source, this));
                }
                params.extend(signature::params(source, &f.params));
                (
                    params,
                    f.return_type.as_deref(),
                    f.type_params.as_deref(),
                    f.is_async,
                    f.is_generator,
                    f.body.as_ref().map(|b| &b.stmts[..]),
                )
            }
            FnLike::Arrow(a) => (
                signature::pats(source, &a.params),
                a.return_type.as_deref(),
                a.type_params.as_deref(),
                a.is_async,
                a.is_generator,
                match &*a.body {
                    swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => Some(&b.stmts[..]),
                    swc_ecma_ast::ArrowFunctionBody::Expr(_) => Some(&[][..]),
                },
            ),
        };
        if is_async {
            modifiers.push(Modifier::Async);
        }
        if is_generator {
            modifiers.push(Modifier::Generator);
        }
        if body.is_none() {
            modifiers.push(Modifier::Bodiless);
        }
        Self::with_modifiers(&mut symbol, &modifiers);
        symbol.type_parameters = type_params(source, tps);
        symbol.returns = type_text(source, ret);
        let rendered = render_params(&params);
        symbol.parameters = params.into_iter().map(|p| p.param).collect();

        let mut signature = String::new();
        if let Some(v) = &symbol.visibility {
            signature.push_str(v);
            signature.push(' ');
        }
        for m in &symbol.modifiers {
            let word = match m {
                Modifier::Static => "static ",
                Modifier::Abstract => "abstract ",
                Modifier::Override => "override ",
                Modifier::Async if matches!(f, FnLike::Function(_)) => "async ",
                _ => "",
            };
            signature.push_str(word);
        }
        let star = if is_generator { "*" } else { "" };
        let tps_text = render_type_params(&symbol.type_parameters);
        match (f, member) {
            (FnLike::Arrow(_), false) => {
                let prefix = if is_async { "async " } else { "" };
                signature.push_str(&format!("{} = {prefix}{tps_text}{rendered}", symbol.name));
            }
            (FnLike::Arrow(_), true) => {
                let prefix = if is_async { "async " } else { "" };
                signature.push_str(&format!("{} = {prefix}{tps_text}{rendered}", symbol.name));
            }
            (FnLike::Function(_), false) => {
                signature.push_str(&format!(
                    "function{star} {}{tps_text}{rendered}",
                    symbol.name
                ));
            }
            (FnLike::Function(_), true) => {
                let accessor = match kind {
                    SymbolKind::Getter => "get ",
                    SymbolKind::Setter => "set ",
                    _ => "",
                };
                signature.push_str(&format!(
                    "{accessor}{star}{}{tps_text}{rendered}",
                    symbol.name
                ));
            }
        }
        if let Some(returns) = &symbol.returns {
            signature.push_str(": ");
            signature.push_str(returns);
        }
        if matches!(f, FnLike::Arrow(_)) {
            signature.push_str(" =>");
        }
        symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));

        if let Some(body) = body
            && let Some(first) = body.first()
        {
            let split = outline_core::blocks::splits_body(
                source.line(first.span().lo),
                symbol.end_line,
                self.options.block_threshold,
            );
            for stmt in body {
                self.stmt(stmt, Scope::Function, split, &mut symbol.children);
            }
            mark_overloads(&mut symbol.children);
        }
        symbol
    }

    /// A value bound to a name (a `const`, `export default`, a CommonJS
    /// export): a function, a class, or a variable listing its object
    /// literal's function-valued members. `None` for a plain value when
    /// `only_structured`.
    fn bound_value(
        &self,
        name: &str,
        name_pos: BytePos,
        value: &Expr,
        constant: bool,
        ctx: &Ctx,
        only_structured: bool,
    ) -> Option<Symbol> {
        if let Some(f) = fn_like(value) {
            return Some(self.function(
                name.to_owned(),
                name_pos,
                &f,
                SymbolKind::Function,
                ctx,
                false,
            ));
        }
        if let Expr::Class(c) = unwrap(value) {
            return Some(self.class(name.to_owned(), name_pos, &c.class, true, ctx));
        }
        // `{ … }`, or the object passed to a factory such as
        // `defineComponent({ … })` or `Vue.extend({ … })`.
        let object = match unwrap(value) {
            Expr::Object(o) => Some(o),
            Expr::Call(call) => match call.args.first().map(|a| unwrap(&a.expr)) {
                Some(Expr::Object(o)) if call.args.len() == 1 => Some(o),
                _ => None,
            },
            _ => None,
        };
        if only_structured && object.is_none() {
            return None;
        }
        let kind = if constant {
            SymbolKind::Constant
        } else {
            SymbolKind::Variable
        };
        let (start, end) = self.bounds(ctx, value.span());
        let mut symbol = self.symbol(name, kind, start, end, name_pos);
        Self::with_modifiers(&mut symbol, &ctx.modifiers);
        symbol.value = Some(self.source.node_text(value, MAX_VALUE_CHARS));
        if let Some(object) = object {
            symbol.children = self.object_members(object);
        }
        Some(symbol)
    }

    fn var(&self, v: &VarDecl, ctx: &Ctx, out: &mut Vec<Symbol>) {
        let single = v.decls.len() == 1;
        let mut ctx = ctx.clone();
        if v.declare {
            ctx.modifiers.push(Modifier::Declare);
        }
        let keyword = match v.kind {
            VarDeclKind::Const => "const",
            VarDeclKind::Let => "let",
            VarDeclKind::Var => "var",
        };
        for (i, declarator) in v.decls.iter().enumerate() {
            let mut ctx = ctx.clone();
            ctx.start = if i == 0 {
                Some(ctx.start.map_or(v.span.lo, |s| s.min(v.span.lo)))
            } else {
                None
            };
            ctx.end = if single {
                Some(ctx.end.map_or(v.span.hi, |e| e.max(v.span.hi)))
            } else {
                Some(declarator.span.hi)
            };
            let Pat::Ident(binding) = &declarator.name else {
                // Destructuring: each bound name is a variable.
                let start = ctx.start.unwrap_or(declarator.span.lo);
                let end = ctx.end.unwrap_or(declarator.span.hi);
                let mut names = Vec::new();
                binding_names(&declarator.name, &mut names, 0);
                for (name, pos) in names {
                    let mut symbol = self.symbol(name, SymbolKind::Variable, start, end, pos);
                    Self::with_modifiers(&mut symbol, &ctx.modifiers);
                    out.push(symbol);
                }
                continue;
            };
            let name = binding.id.sym.to_string();
            let constant = v.kind == VarDeclKind::Const && is_constant_name(&name);
            let annotation = type_text(self.source, binding.type_ann.as_deref());
            let symbol = match &declarator.init {
                Some(init) => {
                    self.bound_value(&name, binding.id.span.lo, init, constant, &ctx, false)
                }
                None => None,
            };
            let mut symbol = symbol.unwrap_or_else(|| {
                let kind = if constant {
                    SymbolKind::Constant
                } else {
                    SymbolKind::Variable
                };
                let start = ctx.start.unwrap_or(declarator.span.lo);
                let end = ctx.end.unwrap_or(declarator.span.hi);
                let mut symbol = self.symbol(name.clone(), kind, start, end, binding.id.span.lo);
                Self::with_modifiers(&mut symbol, &ctx.modifiers);
                symbol
            });
            if matches!(symbol.kind, SymbolKind::Variable | SymbolKind::Constant) {
                symbol.annotation = annotation.clone();
                let mut signature = format!("{keyword} {}", symbol.name);
                if let Some(a) = &annotation {
                    signature.push_str(&format!(": {a}"));
                }
                symbol.signature = Some(signature);
            } else if symbol.kind == SymbolKind::Function
                && let Some(sig) = &symbol.signature
            {
                // `function tail()` bound to `var tail` reads `var tail = function()`.
                let sig = if sig.starts_with(&format!("{} = ", symbol.name)) {
                    sig.clone()
                } else {
                    format!(
                        "{} = {}",
                        symbol.name,
                        sig.replacen(&format!(" {}", symbol.name), "", 1)
                    )
                };
                symbol.signature = Some(truncate(&format!("{keyword} {sig}"), MAX_SIGNATURE_CHARS));
            }
            out.push(symbol);
        }
    }

    /// `module.exports = …`, `exports.x = …`, and any `a.b.c = function …`
    /// at module level.
    fn assignment(&self, expr: &Expr, stmt_span: Span) -> Option<Symbol> {
        let Expr::Assign(assign) = expr else {
            return None;
        };
        if assign.op != AssignOp::Assign {
            return None;
        }
        let AssignTarget::Simple(SimpleAssignTarget::Member(member)) = &assign.left else {
            return None;
        };
        let name = member_chain(&Expr::Member(member.clone()))?;
        let exports = name == "module.exports"
            || name.starts_with("module.exports.")
            || name.starts_with("exports.");
        let ctx = Ctx {
            start: Some(stmt_span.lo),
            end: Some(stmt_span.hi),
            modifiers: Vec::new(),
            visibility: None,
        };
        self.bound_value(&name, member.span.lo, &assign.right, false, &ctx, !exports)
    }

    /// A module-level call whose callee or arguments are functions holding
    /// declarations: an IIFE (`(function () { … })()`), a UMD or AMD wrapper
    /// (`!function (root, factory) { … }(this, function () { … })`). It becomes
    /// a block, named by its first line, holding what those functions declare.
    fn wrapper_call(&self, expr: &Expr, span: Span) -> Option<Symbol> {
        let expr = match unwrap(expr) {
            Expr::Unary(u) => unwrap(&u.arg),
            other => other,
        };
        let Expr::Call(call) = expr else {
            return None;
        };
        let callee = match &call.callee {
            swc_ecma_ast::Callee::Expr(e) => fn_like(e),
            _ => None,
        };
        let functions = callee
            .into_iter()
            .chain(call.args.iter().filter_map(|a| fn_like(&a.expr)));
        let mut children = Vec::new();
        for f in functions {
            let body = match f {
                FnLike::Function(f) => f.body.as_ref().map(|b| &b.stmts[..]),
                FnLike::Arrow(a) => match &*a.body {
                    swc_ecma_ast::ArrowFunctionBody::FunctionBody(b) => Some(&b.stmts[..]),
                    swc_ecma_ast::ArrowFunctionBody::Expr(_) => None,
                },
            };
            for stmt in body.unwrap_or_default() {
                self.stmt(stmt, Scope::Function, false, &mut children);
            }
        }
        if children.is_empty() {
            return None;
        }
        mark_overloads(&mut children);
        let source = self.source;
        let first_line = source
            .index
            .line_text(source.line(span.lo))
            .unwrap_or_default();
        let column = source.column(span.lo) as usize;
        let header: String = first_line
            .chars()
            .skip(column.saturating_sub(1))
            .take(200)
            .collect();
        let start_line = source.line(span.lo);
        let end_line = source.end_line(span).max(start_line);
        let mut block = Symbol::new(
            outline_core::blocks::block_name(&header),
            SymbolKind::Block,
            start_line,
            end_line,
        );
        block.name_column = source.column(span.lo);
        block.children = children;
        Some(block)
    }

    /// Function-valued members of an object literal, nested under the
    /// properties that hold them.
    pub fn object_members(&self, object: &ObjectLit) -> Vec<Symbol> {
        let mut out = Vec::new();
        let Some(_level) = self.enter() else {
            return out;
        };
        for prop in &object.props {
            let PropOrSpread::Prop(prop) = prop else {
                continue;
            };
            let ctx_for = |key: &PropName, end: BytePos| Ctx {
                start: Some(key.span().lo),
                end: Some(end),
                modifiers: Vec::new(),
                visibility: None,
            };
            match &**prop {
                Prop::Method(m) => out.push(self.function(
                    self.prop_name(&m.key),
                    m.key.span().lo,
                    &FnLike::Function(&m.function),
                    SymbolKind::Method,
                    &ctx_for(&m.key, m.function.span.hi),
                    true,
                )),
                Prop::Getter(g) => {
                    let mut s = self.function(
                        self.prop_name(&g.key),
                        g.key.span().lo,
                        &FnLike::Function(&g.function),
                        SymbolKind::Getter,
                        &ctx_for(&g.key, g.span.hi),
                        true,
                    );
                    s.accessor = Some(outline_core::Accessor::Getter);
                    out.push(s);
                }
                Prop::Setter(g) => {
                    let mut s = self.function(
                        self.prop_name(&g.key),
                        g.key.span().lo,
                        &FnLike::Function(&g.function),
                        SymbolKind::Setter,
                        &ctx_for(&g.key, g.span.hi),
                        true,
                    );
                    s.accessor = Some(outline_core::Accessor::Setter);
                    out.push(s);
                }
                Prop::KeyValue(kv) => {
                    let ctx = ctx_for(&kv.key, kv.value.span().hi);
                    if let Some(f) = fn_like(&kv.value) {
                        out.push(self.function(
                            self.prop_name(&kv.key),
                            kv.key.span().lo,
                            &f,
                            SymbolKind::Method,
                            &ctx,
                            true,
                        ));
                    } else if let Expr::Object(inner) = unwrap(&kv.value) {
                        let children = self.object_members(inner);
                        if !children.is_empty() {
                            let mut s = self.symbol(
                                self.prop_name(&kv.key),
                                SymbolKind::Property,
                                kv.key.span().lo,
                                kv.value.span().hi,
                                kv.key.span().lo,
                            );
                            s.children = children;
                            out.push(s);
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The name of a property key: identifiers, strings and numbers as
    /// written, computed keys with their brackets.
    pub fn prop_name(&self, key: &PropName) -> String {
        match key {
            PropName::Ident(i) => i.sym.to_string(),
            other => self.source.node_text(other, MAX_TYPE_CHARS),
        }
    }

    fn interface(&self, i: &TsInterfaceDecl, ctx: &Ctx) -> Symbol {
        let source = self.source;
        let (start, end) = self.bounds(ctx, i.span);
        let mut symbol = self.symbol(
            i.id.sym.to_string(),
            SymbolKind::Interface,
            start,
            end,
            i.id.span.lo,
        );
        let mut modifiers = ctx.modifiers.clone();
        if i.declare {
            modifiers.push(Modifier::Declare);
        }
        Self::with_modifiers(&mut symbol, &modifiers);
        symbol.type_parameters = type_params(source, i.type_params.as_deref());
        symbol.bases = i
            .extends
            .iter()
            .map(|e| source.node_text(e, MAX_TYPE_CHARS))
            .collect();
        let mut signature = format!(
            "interface {}{}",
            symbol.name,
            render_type_params(&symbol.type_parameters)
        );
        if !symbol.bases.is_empty() {
            signature.push_str(&format!(" extends {}", symbol.bases.join(", ")));
        }
        symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
        for element in &i.body.body {
            if let Some(member) = self.type_element(element) {
                symbol.children.push(member);
            }
        }
        mark_overloads(&mut symbol.children);
        symbol
    }

    fn key_name(&self, key: &Expr, computed: bool) -> String {
        match key {
            Expr::Ident(i) if !computed => i.sym.to_string(),
            other if computed => format!("[{}]", self.source.node_text(other, MAX_TYPE_CHARS)),
            other => self.source.node_text(other, MAX_TYPE_CHARS),
        }
    }

    fn type_element(&self, element: &TsTypeElement) -> Option<Symbol> {
        let source = self.source;
        let signature_symbol = |name: String,
                                key: &Expr,
                                kind: SymbolKind,
                                span: Span,
                                params: Vec<Param2>,
                                returns: Option<String>,
                                tps| {
            let mut symbol = self.symbol(name, kind, span.lo, span.hi, key.span().lo);
            symbol.type_parameters = type_params(source, tps);
            symbol.returns = returns;
            let accessor = match kind {
                SymbolKind::Getter => "get ",
                SymbolKind::Setter => "set ",
                _ => "",
            };
            let mut signature = format!(
                "{accessor}{}{}{}",
                symbol.name,
                render_type_params(&symbol.type_parameters),
                render_params(&params)
            );
            if let Some(r) = &symbol.returns {
                signature.push_str(&format!(": {r}"));
            }
            symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
            symbol.parameters = params.into_iter().map(|p| p.param).collect();
            symbol.modifiers.push(Modifier::Bodiless);
            symbol
        };
        Some(match element {
            TsTypeElement::TsPropertySignature(p) => {
                let name = self.key_name(&p.key, p.computed);
                let mut symbol = self.symbol(
                    name,
                    SymbolKind::Property,
                    p.span.lo,
                    p.span.hi,
                    p.key.span().lo,
                );
                if p.readonly {
                    symbol.modifiers.push(Modifier::Readonly);
                }
                symbol.annotation = type_text(source, p.type_ann.as_deref());
                let mut signature = format!(
                    "{}{}{}",
                    if p.readonly { "readonly " } else { "" },
                    symbol.name,
                    if p.optional { "?" } else { "" }
                );
                if let Some(a) = &symbol.annotation {
                    signature.push_str(&format!(": {a}"));
                }
                symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
                symbol
            }
            TsTypeElement::TsMethodSignature(m) => signature_symbol(
                self.key_name(&m.key, m.computed),
                &m.key,
                SymbolKind::Method,
                m.span,
                signature::fn_params(source, &m.params),
                type_text(source, m.type_ann.as_deref()),
                m.type_params.as_deref(),
            ),
            TsTypeElement::TsGetterSignature(g) => {
                let mut s = signature_symbol(
                    self.key_name(&g.key, g.computed),
                    &g.key,
                    SymbolKind::Getter,
                    g.span,
                    Vec::new(),
                    type_text(source, g.type_ann.as_deref()),
                    None,
                );
                s.accessor = Some(outline_core::Accessor::Getter);
                s
            }
            TsTypeElement::TsSetterSignature(g) => {
                let mut s = signature_symbol(
                    self.key_name(&g.key, g.computed),
                    &g.key,
                    SymbolKind::Setter,
                    g.span,
                    signature::fn_params(source, std::slice::from_ref(&g.param)),
                    None,
                    None,
                );
                s.accessor = Some(outline_core::Accessor::Setter);
                s
            }
            _ => return None,
        })
    }

    fn type_alias(&self, t: &TsTypeAliasDecl, ctx: &Ctx) -> Symbol {
        let (start, end) = self.bounds(ctx, t.span);
        let mut symbol = self.symbol(
            t.id.sym.to_string(),
            SymbolKind::TypeAlias,
            start,
            end,
            t.id.span.lo,
        );
        let mut modifiers = ctx.modifiers.clone();
        if t.declare {
            modifiers.push(Modifier::Declare);
        }
        Self::with_modifiers(&mut symbol, &modifiers);
        symbol.type_parameters = type_params(self.source, t.type_params.as_deref());
        let value = self.source.node_text(&*t.type_ann, MAX_TYPE_CHARS);
        symbol.signature = Some(truncate(
            &format!(
                "type {}{} = {value}",
                symbol.name,
                render_type_params(&symbol.type_parameters)
            ),
            MAX_SIGNATURE_CHARS,
        ));
        symbol.value = Some(value);
        symbol
    }

    fn enumeration(&self, e: &TsEnumDecl, ctx: &Ctx) -> Symbol {
        let (start, end) = self.bounds(ctx, e.span);
        let mut symbol = self.symbol(
            e.id.sym.to_string(),
            SymbolKind::Enum,
            start,
            end,
            e.id.span.lo,
        );
        let mut modifiers = ctx.modifiers.clone();
        if e.declare {
            modifiers.push(Modifier::Declare);
        }
        if e.is_const {
            modifiers.push(Modifier::Const);
        }
        Self::with_modifiers(&mut symbol, &modifiers);
        symbol.signature = Some(format!(
            "{}enum {}",
            if e.is_const { "const " } else { "" },
            symbol.name
        ));
        for member in &e.members {
            let (name, pos) = match &member.id {
                TsEnumMemberId::Ident(i) => (i.sym.to_string(), i.span.lo),
                TsEnumMemberId::Str(s) => (self.source.node_text(s, MAX_TYPE_CHARS), s.span.lo),
            };
            let mut m = self.symbol(
                name,
                SymbolKind::EnumMember,
                member.span.lo,
                member.span.hi,
                pos,
            );
            m.value = member
                .init
                .as_deref()
                .map(|i| self.source.node_text(i, MAX_VALUE_CHARS));
            symbol.children.push(m);
        }
        symbol
    }

    fn module(&self, m: &TsModuleDecl, ctx: &Ctx) -> Symbol {
        let (start, end) = self.bounds(ctx, m.span);
        let (mut name, pos) = match &m.id {
            TsModuleName::Ident(i) => (i.sym.to_string(), i.span.lo),
            TsModuleName::Str(s) => (self.source.node_text(s, MAX_TYPE_CHARS), s.span.lo),
        };
        let mut body = m.body.as_ref();
        while let Some(TsNamespaceBody::TsNamespaceDecl(inner)) = body {
            name.push('.');
            name.push_str(&inner.id.sym);
            body = Some(&inner.body);
        }
        let mut symbol = self.symbol(name, SymbolKind::Module, start, end, pos);
        let mut modifiers = ctx.modifiers.clone();
        if m.declare {
            modifiers.push(Modifier::Declare);
        }
        Self::with_modifiers(&mut symbol, &modifiers);
        let keyword = if m.global {
            ""
        } else if m.namespace {
            "namespace "
        } else {
            "module "
        };
        symbol.signature = Some(truncate(
            &format!("{keyword}{}", symbol.name),
            MAX_SIGNATURE_CHARS,
        ));
        if let Some(TsNamespaceBody::TsModuleBlock(block)) = body {
            self.items(&block.body, &mut symbol.children);
        }
        symbol
    }

    /// A class declaration or expression.
    pub fn class(
        &self,
        name: String,
        name_pos: BytePos,
        class: &Class,
        expression: bool,
        ctx: &Ctx,
    ) -> Symbol {
        crate::classes::class(self, name, name_pos, class, expression, ctx)
    }
}

/// `a.b.c` for a chain of identifiers and dotted properties (at most
/// [`MAX_TYPE_CHARS`] characters).
pub(crate) fn member_chain(mut expr: &Expr) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let mut len = 0;
    loop {
        let part: &str = match expr {
            Expr::Ident(i) => &i.sym,
            Expr::This(_) => "this",
            Expr::Member(m) => {
                let MemberProp::Ident(prop) = &m.prop else {
                    return None;
                };
                parts.push(&prop.sym);
                len += prop.sym.len() + 1;
                if len > MAX_TYPE_CHARS {
                    return None;
                }
                expr = &m.obj;
                continue;
            }
            _ => return None,
        };
        parts.push(part);
        break;
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The names a destructuring pattern binds, with their positions.
fn binding_names(pat: &Pat, out: &mut Vec<(String, BytePos)>, depth: u32) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    let depth = depth + 1;
    match pat {
        Pat::Ident(b) => out.push((b.id.sym.to_string(), b.id.span.lo)),
        Pat::Array(a) => {
            for elem in a.elems.iter().flatten() {
                binding_names(elem, out, depth);
            }
        }
        Pat::Object(o) => {
            for prop in &o.props {
                match prop {
                    swc_ecma_ast::ObjectPatProp::KeyValue(kv) => {
                        binding_names(&kv.value, out, depth)
                    }
                    swc_ecma_ast::ObjectPatProp::Assign(a) => {
                        out.push((a.key.sym.to_string(), a.key.span.lo));
                    }
                    swc_ecma_ast::ObjectPatProp::Rest(r) => binding_names(&r.arg, out, depth),
                }
            }
        }
        Pat::Rest(r) => binding_names(&r.arg, out, depth),
        Pat::Assign(a) => binding_names(&a.left, out, depth),
        _ => {}
    }
}
