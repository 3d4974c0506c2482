//! TypeScript type-level declarations: interfaces (with their property,
//! method, getter and setter signatures), type aliases, enums (`const`,
//! `declare`) with their members, and namespaces/modules (`namespace A.B.C`,
//! `declare module "x"`, `declare global`).

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate};
use outline_core::{Modifier, Symbol, SymbolKind};
use swc_common::{Span, Spanned};
use swc_ecma_ast::{
    Expr, TsEnumDecl, TsEnumMemberId, TsInterfaceDecl, TsModuleDecl, TsModuleName, TsNamespaceBody,
    TsTypeAliasDecl, TsTypeElement,
};

use crate::signature::{self, Param2, render_params, render_type_params, type_params, type_text};
use crate::symbols::{Ctx, Walker, mark_overloads};

impl Walker<'_, '_> {
    pub(crate) fn interface(&self, i: &TsInterfaceDecl, ctx: &Ctx) -> Symbol {
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

    pub(crate) fn key_name(&self, key: &Expr, computed: bool) -> String {
        match key {
            Expr::Ident(i) if !computed => i.sym.to_string(),
            other if computed => format!("[{}]", self.source.node_text(other, MAX_TYPE_CHARS)),
            other => self.source.node_text(other, MAX_TYPE_CHARS),
        }
    }

    pub(crate) fn type_element(&self, element: &TsTypeElement) -> Option<Symbol> {
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

    pub(crate) fn type_alias(&self, t: &TsTypeAliasDecl, ctx: &Ctx) -> Symbol {
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

    pub(crate) fn enumeration(&self, e: &TsEnumDecl, ctx: &Ctx) -> Symbol {
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

    pub(crate) fn module(&self, m: &TsModuleDecl, ctx: &Ctx) -> Symbol {
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
}
