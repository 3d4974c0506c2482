//! Values bound to names at module level: `const`/`let`/`var` declarators
//! (a function or arrow initialiser makes a function, a class expression a
//! class, an object literal lists its function-valued members under the
//! properties holding them), `export default` expressions, CommonJS
//! `module.exports = …` / `exports.x = …` assignments, and IIFE/UMD wrappers.

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate};
use outline_core::{Modifier, Symbol, SymbolKind};
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    AssignOp, AssignTarget, Expr, MemberProp, ObjectLit, Pat, Prop, PropName, PropOrSpread,
    SimpleAssignTarget, VarDecl, VarDeclKind,
};

use crate::signature::type_text;
use crate::symbols::{Ctx, FnLike, MAX_WALK_DEPTH, Scope, Walker, fn_like, mark_overloads, unwrap};

/// The signature of a function bound to a name by `keyword`: `function
/// tail()` bound to `var tail` reads `var tail = function()`, an arrow
/// `const f = (x) =>`.
fn bound_signature(symbol: &mut Symbol, keyword: &str) {
    if symbol.kind != SymbolKind::Function {
        return;
    }
    let Some(sig) = &symbol.signature else {
        return;
    };
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

/// `MAX_SIZE`, `_DEFAULT`, `V2`: letters all upper case, at least one letter.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_alphabetic)
        && name.chars().all(|c| {
            c == '_' || c == '$' || c.is_ascii_digit() || (c.is_alphabetic() && !c.is_lowercase())
        })
}

impl Walker<'_, '_> {
    /// A value bound to a name (a `const`, `export default`, a CommonJS
    /// export): a function, a class, or a variable listing its object
    /// literal's function-valued members. `None` for a plain value when
    /// `only_structured`.
    pub(crate) fn bound_value(
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

    pub(crate) fn var(&self, v: &VarDecl, ctx: &Ctx, out: &mut Vec<Symbol>) {
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
            // `const x = require("m")` is an import (see imports.rs), not a symbol.
            if declarator
                .init
                .as_deref()
                .and_then(crate::imports::required_module)
                .is_some()
            {
                continue;
            }
            let mut ctx = ctx.clone();
            // A later declarator starts at its own start (its name), as the
            // compiler's `VariableDeclaration.getStart()` says.
            ctx.start = if i == 0 {
                Some(ctx.start.map_or(v.span.lo, |s| s.min(v.span.lo)))
            } else {
                Some(declarator.span.lo)
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
            let plain = matches!(symbol.kind, SymbolKind::Variable | SymbolKind::Constant)
                && symbol.children.is_empty();
            if matches!(symbol.kind, SymbolKind::Variable | SymbolKind::Constant) {
                symbol.annotation = annotation.clone();
                let mut signature = format!("{keyword} {}", symbol.name);
                if let Some(a) = &annotation {
                    signature.push_str(&format!(": {a}"));
                }
                symbol.signature = Some(signature);
            } else {
                bound_signature(&mut symbol, keyword);
            }
            out.push(symbol);
            // Callbacks in a plain value (`const Panel = forwardRef(…)`)
            // are listed after it, at its level.
            if plain && let Some(init) = &declarator.init {
                self.callbacks_in(init, out);
            }
        }
    }

    /// The `const`/`let`/`var` bindings of a function body: those bound to a
    /// function, an arrow function or a class expression are symbols (named
    /// by the binding, as at module level); the callbacks in the others'
    /// values are listed where they stand.
    pub(crate) fn local_var(&self, v: &VarDecl, out: &mut Vec<Symbol>) {
        let single = v.decls.len() == 1;
        let keyword = match v.kind {
            VarDeclKind::Const => "const",
            VarDeclKind::Let => "let",
            VarDeclKind::Var => "var",
        };
        for (i, declarator) in v.decls.iter().enumerate() {
            let Some(init) = declarator.init.as_deref() else {
                continue;
            };
            let structured = fn_like(init).is_some() || matches!(unwrap(init), Expr::Class(_));
            if let (Pat::Ident(binding), true) = (&declarator.name, structured) {
                let ctx = Ctx {
                    start: Some(if i == 0 {
                        v.span.lo
                    } else {
                        declarator.span.lo
                    }),
                    end: Some(if single {
                        v.span.hi
                    } else {
                        declarator.span.hi
                    }),
                    modifiers: Vec::new(),
                    visibility: None,
                };
                let name = binding.id.sym.to_string();
                if let Some(mut symbol) =
                    self.bound_value(&name, binding.id.span.lo, init, false, &ctx, true)
                {
                    bound_signature(&mut symbol, keyword);
                    out.push(symbol);
                }
                continue;
            }
            // `const onChange = useCallback((e) => …, [])`: the block of the
            // call is named by its binding too, the local being no symbol.
            let mut found = Vec::new();
            self.callbacks_in(init, &mut found);
            if let (Pat::Ident(binding), [block]) = (&declarator.name, found.as_mut_slice())
                && block.kind == SymbolKind::Block
                && matches!(unwrap(init), Expr::Call(_) | Expr::New(_))
                && block.start_line == self.source.line(init.span().lo)
            {
                block.name = truncate(
                    &format!("{keyword} {} = {}", binding.id.sym, block.name),
                    MAX_SIGNATURE_CHARS,
                );
            }
            out.append(&mut found);
        }
    }

    /// `module.exports = …`, `exports.x = …`, and any `a.b.c = function …`
    /// at module level.
    pub(crate) fn assignment(&self, expr: &Expr, stmt_span: Span) -> Option<Symbol> {
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
    pub(crate) fn wrapper_call(&self, expr: &Expr, span: Span) -> Option<Symbol> {
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
        // Calls of a named function (`describe('x', () => …)`) are
        // callbacks (`callbacks.rs`); a wrapper calls a function itself.
        callee.as_ref()?;
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
        block.modifiers.push(Modifier::Callback);
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
