//! Walks swc's module items and builds outline symbols.
//!
//! Scopes decide what a statement becomes:
//! - **module** (and namespace bodies): declarations, `const`/`let`/`var`
//!   bindings (a function or arrow initialiser makes a function, an object
//!   literal lists its function-valued members), CommonJS `module.exports =` /
//!   `exports.x =` assignments; control-flow statements are blocks holding what
//!   is declared inside them;
//! - **function bodies**: nested declarations, and the `const`/`let`/`var`
//!   bindings of a function, arrow function or class expression (other
//!   locals are not symbols); when a body spans more than the block
//!   threshold its top-level control-flow statements become blocks (see
//!   `blocks.rs`).
//!
//! In both, the expressions of a statement are searched for callbacks and
//! function expressions holding declarations (see `callbacks.rs`).

use outline_core::text::{MAX_DECORATOR_CHARS, MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, truncate};
use outline_core::{Modifier, OutlineOptions, Symbol, SymbolKind};
use std::cell::Cell;

use swc_common::comments::SingleThreadedComments;
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    Class, Decl, Decorator, DefaultDecl, Expr, Function, ModuleDecl, ModuleItem, PropName, Stmt,
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
    /// Whether the walk met [`MAX_WALK_DEPTH`] and left something out.
    pub cut: Cell<bool>,
}

/// Deepest nesting the walk enters: above the deepest bracket nesting that
/// is parsed, so that the core's own cap (50 symbol levels) counts every
/// symbol it leaves out; the cap only bounds the walk's stack on nesting
/// without brackets (`if (a) if (b) …` thousands deep), and is reported.
pub(crate) const MAX_WALK_DEPTH: u32 = 2_500;

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

/// How far back on its line [`Walker::keywords_before`] looks for a `//`
/// before a declaration keyword (bytes).
const MAX_COMMENT_LOOKBACK: usize = 1024;

impl Walker<'_, '_> {
    /// Enters one nesting level, or `None` when the walk is too deep.
    pub fn enter(&self) -> Option<Level<'_>> {
        let depth = self.depth.get();
        if depth >= MAX_WALK_DEPTH {
            self.cut.set(true);
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
            if !matches!(
                word,
                "declare" | "export" | "default" | "abstract" | "async"
            ) {
                break;
            }
            // A word at the end of a `//` comment is no keyword (`// used
            // by default` above a declaration). Only the line's last
            // `MAX_COMMENT_LOOKBACK` bytes before the word are looked at, so
            // a minified line of many declarations takes linear time.
            let window =
                trimmed.floor_char_boundary(word_start.saturating_sub(MAX_COMMENT_LOOKBACK));
            let segment = trimmed.get(window..word_start).unwrap_or_default();
            let line = segment
                .rfind(['\n', '\r'])
                .map_or(segment, |i| segment.get(i + 1..).unwrap_or_default());
            if line.contains("//") {
                break;
            }
            offset = word_start;
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
            Stmt::Expr(e) => {
                let assigned = if scope == Scope::Module {
                    self.assignment(&e.expr, e.span)
                        .or_else(|| self.wrapper_call(&e.expr, e.span))
                } else {
                    None
                };
                match assigned {
                    Some(symbol) => {
                        // `exports.ajax = (function () {…})()`: the callbacks
                        // of a plain value are listed after it.
                        let plain =
                            matches!(symbol.kind, SymbolKind::Variable | SymbolKind::Constant)
                                && symbol.children.is_empty();
                        out.push(symbol);
                        if plain {
                            self.callbacks_in(&e.expr, out);
                        }
                    }
                    None => self.callbacks_in(&e.expr, out),
                }
            }
            Stmt::Block(b) => {
                for s in &b.stmts {
                    self.stmt(s, scope, split, out);
                }
            }
            Stmt::Labeled(l) => self.stmt(&l.body, scope, split, out),
            Stmt::Return(_) | Stmt::Throw(_) => self.callbacks_in_header(stmt, out),
            _ => {
                let Some(bodies) = crate::blocks::nested_bodies(stmt) else {
                    return;
                };
                if split {
                    let mut block = self.block(stmt, scope, &bodies);
                    let mut header = Vec::new();
                    self.callbacks_in_header(stmt, &mut header);
                    if !header.is_empty() {
                        header.append(&mut block.children);
                        block.children = header;
                    }
                    out.push(block);
                } else {
                    self.callbacks_in_header(stmt, out);
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
            Decl::Var(v) => self.local_var(v, out),
            Decl::Using(u) => {
                for d in &u.decls {
                    if let Some(init) = &d.init {
                        self.callbacks_in(init, out);
                    }
                }
            }
            Decl::TsInterface(i) => out.push(self.interface(i, &ctx)),
            Decl::TsTypeAlias(t) => out.push(self.type_alias(t, &ctx)),
            Decl::TsEnum(e) => out.push(self.enumeration(e, &ctx)),
            Decl::TsModule(m) => out.push(self.module(m, &ctx)),
        }
    }

    pub(crate) fn bounds(&self, ctx: &Ctx, span: Span) -> (BytePos, BytePos) {
        let start = ctx.start.map_or(span.lo, |s| s.min(span.lo));
        let end = ctx.end.map_or(span.hi, |e| e.max(span.hi));
        (start, end)
    }

    pub(crate) fn with_modifiers(symbol: &mut Symbol, modifiers: &[Modifier]) {
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
        // A `#name` is private without a keyword: none is printed.
        if let Some(v) = &symbol.visibility
            && !symbol.name.starts_with('#')
        {
            signature.push_str(v);
            signature.push(' ');
        }
        for m in &symbol.modifiers {
            let word = match m {
                Modifier::Static => "static ",
                Modifier::Abstract => "abstract ",
                Modifier::Override => "override ",
                Modifier::Readonly => "readonly ",
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
        // An arrow's expression body (`() => (<List render={…} />)`) holds
        // callbacks too.
        if let FnLike::Arrow(a) = f
            && let swc_ecma_ast::ArrowFunctionBody::Expr(e) = &*a.body
        {
            self.callbacks_in(e, &mut symbol.children);
        }
        symbol
    }

    /// The name of a property key: identifiers, strings and numbers as
    /// written, computed keys with their brackets.
    pub fn prop_name(&self, key: &PropName) -> String {
        match key {
            PropName::Ident(i) => i.sym.to_string(),
            other => self.source.node_text(other, MAX_TYPE_CHARS),
        }
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
