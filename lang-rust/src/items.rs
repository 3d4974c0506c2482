//! Maps `syn` items to outline symbols.
//!
//! Containers keep their members as children: struct and union fields, enum
//! variants, trait and impl items (`method` with a receiver, else
//! `function`), inline `mod` items, and the items written inside a
//! brace-delimited macro invocation (marked `from_macro`). The items of an
//! `extern` block are listed where the block stands, marked `extern` and
//! `bodiless`. Items defined inside function bodies are the function's
//! children (see [`crate::bodies`]). Items `syn` keeps as verbatim tokens
//! are parsed again in [`crate::verbatim`].

use std::cell::{Cell, RefCell};
use std::ops::Range;

use quote::ToTokens;

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate};
use outline_core::{Modifier, OutlineOptions, Symbol, SymbolKind};
use syn::{Attribute, Fields, ForeignItem, ImplItem, Item, TraitItem, Visibility};

use crate::attrs::attr_info;
use crate::bodies::Bodies;
use crate::signature::{
    fn_signature, parameters, render_type_parameters, returns, type_parameters, visibility,
    where_clause,
};
use crate::source::Region;

/// Maps the items of one region.
pub(crate) struct Mapper<'r, 'f, 'a> {
    pub region: &'r Region<'f, 'a>,
    pub bodies: RefCell<Bodies>,
    pub options: &'r OutlineOptions,
    /// Syntax errors found in function bodies, as (byte offset in the file,
    /// message); see [`crate::bodies::body_children`].
    pub body_errors: RefCell<Vec<(usize, String)>>,
    /// Items left out because `syn` keeps them as tokens that
    /// [`crate::verbatim`] does not know either, as (byte offset in the
    /// file, message).
    pub warnings: RefCell<Vec<(usize, String)>>,
    /// Whether the items being mapped come from a macro invocation's tokens
    /// (`quote! { fn f() { #body } }`): their bodies are template text, not
    /// Rust, so their syntax errors are not reported.
    pub in_macro: Cell<bool>,
}

/// Where a function stands: receivers make methods only in traits and impls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    Module,
    Associated,
}

impl Mapper<'_, '_, '_> {
    /// Symbols of `items`, in source order.
    pub fn items(&self, items: &[Item], from_macro: bool) -> Vec<Symbol> {
        let mut out = Vec::new();
        for item in items {
            self.item(item, from_macro, &mut out);
        }
        out
    }

    /// Appends the symbols of one item (none for `use`, an item-level macro
    /// call with parentheses, …; several for an `extern` block) to `out`.
    pub fn item_into(&self, item: &Item, from_macro: bool, out: &mut Vec<Symbol>) {
        self.item(item, from_macro, out);
    }

    fn item(&self, item: &Item, from_macro: bool, out: &mut Vec<Symbol>) {
        let outer = self.in_macro.replace(self.in_macro.get() || from_macro);
        self.item_symbols(item, from_macro, out);
        self.in_macro.set(outer);
    }

    fn item_symbols(&self, item: &Item, from_macro: bool, out: &mut Vec<Symbol>) {
        let region = self.region;
        let before = out.len();
        match item {
            Item::Fn(f) => {
                let body = Some(&f.block.brace_token);
                out.push(self.function(item, &f.attrs, &f.vis, &f.sig, body, Container::Module));
            }
            Item::Struct(s) => {
                let mut symbol = self.base(item, &s.attrs, &s.vis, &s.ident, SymbolKind::Struct);
                symbol.type_parameters = type_parameters(region, &s.generics);
                let fields = match &s.fields {
                    Fields::Unnamed(_) => fields_text(region, &s.fields),
                    _ => String::new(),
                };
                symbol.signature = Some(self.header(
                    &symbol,
                    "struct",
                    &format!("{fields}{}", where_clause(region, &s.generics)),
                ));
                symbol.children = self.fields(&s.fields);
                out.push(symbol);
            }
            Item::Union(u) => {
                let mut symbol = self.base(item, &u.attrs, &u.vis, &u.ident, SymbolKind::Union);
                symbol.type_parameters = type_parameters(region, &u.generics);
                symbol.signature = Some(self.header(&symbol, "union", ""));
                symbol.children = self.fields(&Fields::Named(u.fields.clone()));
                out.push(symbol);
            }
            Item::Enum(e) => {
                let mut symbol = self.base(item, &e.attrs, &e.vis, &e.ident, SymbolKind::Enum);
                symbol.type_parameters = type_parameters(region, &e.generics);
                symbol.signature = Some(self.header(&symbol, "enum", ""));
                for variant in &e.variants {
                    let mut member = self.base(
                        variant,
                        &variant.attrs,
                        &Visibility::Inherited,
                        &variant.ident,
                        SymbolKind::EnumMember,
                    );
                    let fields = match &variant.fields {
                        Fields::Named(_) => format!(" {}", fields_text(region, &variant.fields)),
                        fields => fields_text(region, fields),
                    };
                    member.value = variant
                        .discriminant
                        .as_ref()
                        .map(|(_, e)| region.node_text(e, MAX_VALUE_CHARS));
                    let value = member
                        .value
                        .as_ref()
                        .map(|v| format!(" = {v}"))
                        .unwrap_or_default();
                    member.signature = Some(truncate(
                        &format!("{}{fields}{value}", member.name),
                        MAX_SIGNATURE_CHARS,
                    ));
                    member.children = self.fields(&variant.fields);
                    symbol.children.push(member);
                }
                out.push(symbol);
            }
            Item::Trait(t) => out.push(self.trait_symbol(t, None, "")),
            Item::TraitAlias(t) => {
                let mut symbol = self.base(item, &t.attrs, &t.vis, &t.ident, SymbolKind::Trait);
                symbol.type_parameters = type_parameters(region, &t.generics);
                let bounds = region.node_text(&t.bounds, MAX_TYPE_CHARS);
                symbol.signature = Some(self.header(&symbol, "trait", &format!(" = {bounds}")));
                out.push(symbol);
            }
            Item::Impl(i) => out.push(self.impl_block(i, None)),
            Item::Mod(m) => {
                let start = vis_start(&m.vis)
                    .or(m.unsafety.map(|u| u.span))
                    .unwrap_or(m.mod_token.span);
                let end = match (&m.content, &m.semi) {
                    (Some((brace, _)), _) => brace.span.close(),
                    (None, Some(semi)) => semi.span,
                    (None, None) => m.ident.span(),
                };
                let extent = region.range(start).start..region.range(end).end;
                let name_range = region.range(m.ident.span());
                let mut symbol = self.base_extent(
                    extent,
                    &m.attrs,
                    &m.vis,
                    m.ident.to_string(),
                    name_range,
                    SymbolKind::Module,
                );
                let semi = if m.content.is_none() { ";" } else { "" };
                symbol.signature = Some(self.header(&symbol, "mod", semi));
                match &m.content {
                    Some((_, items)) => symbol.children = self.items(items, false),
                    None => symbol.modifiers.push(Modifier::Bodiless),
                }
                out.push(symbol);
            }
            Item::Const(c) => {
                let mut symbol = self.base(item, &c.attrs, &c.vis, &c.ident, SymbolKind::Constant);
                self.typed_value(&mut symbol, "const", Some(&c.ty), Some(&*c.expr));
                out.push(symbol);
            }
            Item::Static(s) => {
                let mut symbol = self.base(item, &s.attrs, &s.vis, &s.ident, SymbolKind::Variable);
                symbol.modifiers.push(Modifier::Static);
                let keyword = match s.mutability {
                    syn::StaticMutability::Mut(_) => "static mut",
                    _ => "static",
                };
                self.typed_value(&mut symbol, keyword, Some(&s.ty), Some(&*s.expr));
                out.push(symbol);
            }
            Item::Type(t) => {
                let mut symbol = self.base(item, &t.attrs, &t.vis, &t.ident, SymbolKind::TypeAlias);
                symbol.type_parameters = type_parameters(region, &t.generics);
                let value = region.node_text(&t.ty, MAX_VALUE_CHARS);
                symbol.signature = Some(self.header(&symbol, "type", &format!(" = {value}")));
                symbol.value = Some(value);
                out.push(symbol);
            }
            Item::ForeignMod(f) => {
                for foreign in &f.items {
                    self.foreign_item(foreign, out);
                }
            }
            Item::Macro(m) => {
                if let Some(symbol) = crate::macros::item_macro(self, item, m) {
                    out.push(symbol);
                }
            }
            Item::Verbatim(tokens) => self.verbatim(tokens, Container::Module, out),
            _ => {}
        }
        if from_macro {
            for symbol in &mut out[before..] {
                if !symbol.has(Modifier::FromMacro) {
                    symbol.modifiers.push(Modifier::FromMacro);
                    symbol.modifiers.sort();
                }
            }
        }
    }

    /// A trait with its members. `lead` is the span of the first token
    /// before the trait's own (`const` of a nightly `const trait`), and
    /// `prefix` those tokens as the signature writes them.
    pub fn trait_symbol(
        &self,
        t: &syn::ItemTrait,
        lead: Option<proc_macro2::Span>,
        prefix: &str,
    ) -> Symbol {
        let region = self.region;
        let start = vis_start(&t.vis)
            .or(lead)
            .or(t.unsafety.map(|u| u.span))
            .or(t.modifiers.auto_token.map(|a| a.span))
            .unwrap_or(t.trait_token.span);
        let extent = region.range(start).start..region.range(t.brace_token.span.close()).end;
        let name_range = region.range(t.ident.span());
        let mut symbol = self.base_extent(
            extent,
            &t.attrs,
            &t.vis,
            t.ident.to_string(),
            name_range,
            SymbolKind::Trait,
        );
        symbol.type_parameters = type_parameters(region, &t.generics);
        if t.unsafety.is_some() {
            symbol.modifiers.push(Modifier::Unsafe);
        }
        symbol.bases = t
            .supertraits
            .iter()
            .map(|b| region.node_text(b, MAX_TYPE_CHARS))
            .collect();
        let supertraits = if symbol.bases.is_empty() {
            String::new()
        } else {
            format!(": {}", symbol.bases.join(" + "))
        };
        let unsafety = if t.unsafety.is_some() { "unsafe " } else { "" };
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix} ")
        };
        symbol.signature = Some(self.header(
            &symbol,
            &format!("{prefix}{unsafety}trait"),
            &format!("{supertraits}{}", where_clause(region, &t.generics)),
        ));
        for member in &t.items {
            self.trait_item(member, &mut symbol.children);
        }
        symbol
    }

    /// `pub struct Name<T>` + `tail`.
    fn header(&self, symbol: &Symbol, keyword: &str, tail: &str) -> String {
        let vis = symbol
            .visibility
            .as_ref()
            .map(|v| format!("{v} "))
            .unwrap_or_default();
        truncate(
            &format!(
                "{vis}{keyword} {}{}{tail}",
                symbol.name,
                render_type_parameters(&symbol.type_parameters)
            ),
            MAX_SIGNATURE_CHARS,
        )
    }

    /// The value, signature and annotation of a `const` or `static` (a
    /// `static X = …;` has no type).
    pub fn typed_value(
        &self,
        symbol: &mut Symbol,
        keyword: &str,
        ty: Option<&syn::Type>,
        value: Option<&syn::Expr>,
    ) {
        let region = self.region;
        let annotation = ty.map(|ty| region.node_text(ty, MAX_TYPE_CHARS));
        let stashed = value.and_then(|expr| match expr {
            syn::Expr::Tuple(t) if t.elems.is_empty() => {
                let key = t.paren_token.span.open().byte_range().start;
                self.bodies.borrow_mut().values.remove(&key)
            }
            _ => None,
        });
        if let Some(tokens) = stashed {
            symbol.value = Some(region.tokens_text(tokens.clone(), MAX_VALUE_CHARS));
            let range = region.tokens_range(tokens.clone());
            let range_end = range.end;
            let text = region.file.text.get(range).unwrap_or_default();
            let stripped = {
                let mut bodies = self.bodies.borrow_mut();
                crate::bodies::strip_bodies(tokens, &mut bodies)
            };
            // The item parse skipped the initializer: parse it now, so an
            // error inside it is reported (never a broken file that looks
            // clean).
            match syn::parse2::<syn::Expr>(stripped) {
                Ok(expr) => {
                    if crate::bodies::might_hold_items(text) {
                        symbol.children = self.expr_items(&expr);
                    }
                }
                Err(error) => {
                    if !self.in_macro.get() {
                        let span = error.span().byte_range();
                        // A call-site span (0..0) means "unexpected end of
                        // input": the end of the initializer.
                        let offset = if span == (0..0) {
                            range_end
                        } else {
                            (region.base + span.start).min(region.limit)
                        };
                        self.body_errors
                            .borrow_mut()
                            .push((offset, error.to_string()));
                    }
                }
            }
        } else if let Some(expr) = value {
            symbol.value = Some(region.node_text(expr, MAX_VALUE_CHARS));
            symbol.children = self.expr_items(expr);
        }
        let value = symbol
            .value
            .as_ref()
            .map(|v| format!(" = {v}"))
            .unwrap_or_default();
        let typed = annotation
            .as_ref()
            .map(|a| format!(": {a}"))
            .unwrap_or_default();
        symbol.signature = Some(self.header(symbol, keyword, &format!("{typed}{value}")));
        symbol.annotation = annotation;
    }

    /// Items defined inside an initializer expression (`const _: () = { impl
    /// Trait for T { … } };`, a `static` inside a closure), in source order.
    fn expr_items(&self, expr: &syn::Expr) -> Vec<Symbol> {
        struct Items<'m, 'r, 'f, 'a> {
            mapper: &'m Mapper<'r, 'f, 'a>,
            out: Vec<Symbol>,
        }
        impl<'ast> syn::visit::Visit<'ast> for Items<'_, '_, '_, '_> {
            fn visit_item(&mut self, item: &'ast Item) {
                self.mapper.item(item, false, &mut self.out);
            }
        }
        let mut items = Items {
            mapper: self,
            out: Vec::new(),
        };
        syn::visit::Visit::visit_expr(&mut items, expr);
        items.out
    }

    fn fields(&self, fields: &Fields) -> Vec<Symbol> {
        let region = self.region;
        fields
            .iter()
            .enumerate()
            .map(|(i, field)| {
                let (name, name_range) = match &field.ident {
                    Some(ident) => (ident.to_string(), region.range(ident.span())),
                    None => (i.to_string(), region.node_range(&field.ty)),
                };
                let tokens = field.to_token_stream();
                let range = region.tokens_range(tokens.clone());
                let info = attr_info(region, &field.attrs);
                let start = start_line_offset(region, tokens, &info, range.start);
                let mut symbol = Symbol::new(
                    name,
                    SymbolKind::Field,
                    region.line(start),
                    region.end_line(&range),
                );
                symbol.name_line = region.line(name_range.start);
                symbol.name_column = region.column(name_range.start);
                symbol.decorators = info.decorators;
                symbol.doc = info.doc;
                symbol.doc_start_line = info.doc_start_line;
                symbol.visibility = visibility(region, &field.vis);
                let annotation = region.node_text(&field.ty, MAX_TYPE_CHARS);
                let vis = symbol
                    .visibility
                    .as_ref()
                    .map(|v| format!("{v} "))
                    .unwrap_or_default();
                symbol.signature = Some(truncate(
                    &format!("{vis}{}: {annotation}", symbol.name),
                    MAX_SIGNATURE_CHARS,
                ));
                symbol.annotation = Some(annotation);
                symbol
            })
            .collect()
    }

    /// A symbol for `node` named `ident`: lines (first written attribute or
    /// first token, to the last token), name position, attributes, doc,
    /// visibility and the test marker.
    pub fn base(
        &self,
        node: &impl ToTokens,
        attrs: &[Attribute],
        vis: &Visibility,
        ident: &syn::Ident,
        kind: SymbolKind,
    ) -> Symbol {
        let region = self.region;
        let name_range = region.range(ident.span());
        self.base_at(
            node.to_token_stream(),
            attrs,
            vis,
            ident.to_string(),
            name_range,
            kind,
        )
    }

    /// Like [`Mapper::base`], with the name and ranges given.
    pub fn base_at(
        &self,
        tokens: proc_macro2::TokenStream,
        attrs: &[Attribute],
        vis: &Visibility,
        name: String,
        name_range: Range<usize>,
        kind: SymbolKind,
    ) -> Symbol {
        let region = self.region;
        let range = region.tokens_range(tokens.clone());
        let after_attrs = region.start_after_attrs(tokens).unwrap_or(range.start);
        self.base_extent(after_attrs..range.end, attrs, vis, name, name_range, kind)
    }

    /// A symbol whose tokens after its attributes span `extent` (bytes):
    /// cheaper than [`Mapper::base_at`] for large items, whose tokens need
    /// not be generated again.
    pub fn base_extent(
        &self,
        extent: Range<usize>,
        attrs: &[Attribute],
        vis: &Visibility,
        name: String,
        name_range: Range<usize>,
        kind: SymbolKind,
    ) -> Symbol {
        let region = self.region;
        let info = attr_info(region, attrs);
        let start = info
            .attr_starts
            .iter()
            .copied()
            .chain([extent.start])
            .min()
            .unwrap_or(extent.start);
        let range = extent.start..extent.end.max(extent.start);
        let mut symbol = Symbol::new(name, kind, region.line(start), region.end_line(&range));
        symbol.name_line = region.line(name_range.start);
        symbol.name_column = region.column(name_range.start);
        symbol.decorators = info.decorators;
        symbol.doc = info.doc;
        symbol.doc_start_line = info.doc_start_line;
        symbol.visibility = visibility(region, vis);
        if info.test {
            symbol.modifiers.push(Modifier::Test);
        }
        symbol
    }

    /// A function or method; `body` is the span of its body's opening brace.
    pub fn function(
        &self,
        node: &impl ToTokens,
        attrs: &[Attribute],
        vis: &Visibility,
        sig: &syn::Signature,
        body: Option<&syn::token::Brace>,
        container: Container,
    ) -> Symbol {
        let region = self.region;
        let kind = if container == Container::Associated && sig.receiver().is_some() {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        };
        let mut symbol = match body {
            Some(brace) => {
                let start = vis_start(vis).unwrap_or_else(|| sig_start(sig));
                let extent = region.range(start).start..region.range(brace.span.close()).end;
                let name_range = region.range(sig.ident.span());
                self.base_extent(extent, attrs, vis, sig.ident.to_string(), name_range, kind)
            }
            None => self.base(node, attrs, vis, &sig.ident, kind),
        };
        let body = body.map(|b| b.span.open());
        let modifiers = &mut symbol.modifiers;
        if sig.constness.is_some() {
            modifiers.push(Modifier::Const);
        }
        if sig.asyncness.is_some() {
            modifiers.push(Modifier::Async);
        }
        if matches!(sig.safety, syn::Safety::Unsafe(_)) {
            modifiers.push(Modifier::Unsafe);
        }
        if sig.abi.is_some() {
            modifiers.push(Modifier::Extern);
        }
        if body.is_none() {
            modifiers.push(Modifier::Bodiless);
        }
        modifiers.sort();
        modifiers.dedup();
        symbol.type_parameters = type_parameters(region, &sig.generics);
        symbol.parameters = parameters(region, sig);
        symbol.returns = returns(region, sig);
        symbol.signature = Some(fn_signature(
            region,
            symbol.visibility.as_deref(),
            sig,
            &symbol.type_parameters,
            &symbol.parameters,
            symbol.returns.as_deref(),
        ));
        if let Some(open) = body {
            symbol.children = crate::bodies::body_children(self, open, symbol.end_line);
        }
        symbol
    }

    fn trait_item(&self, member: &TraitItem, out: &mut Vec<Symbol>) {
        match member {
            TraitItem::Fn(f) => {
                let body = f.default.as_ref().map(|b| &b.brace_token);
                out.push(self.function(
                    member,
                    &f.attrs,
                    &Visibility::Inherited,
                    &f.sig,
                    body,
                    Container::Associated,
                ));
            }
            TraitItem::Const(c) => {
                let mut symbol = self.base(
                    member,
                    &c.attrs,
                    &Visibility::Inherited,
                    &c.ident,
                    SymbolKind::Constant,
                );
                let value = c.default.as_ref().map(|(_, e)| e);
                self.typed_value(&mut symbol, "const", Some(&c.ty), value);
                if value.is_none() {
                    symbol.modifiers.push(Modifier::Bodiless);
                }
                out.push(symbol);
            }
            TraitItem::Type(t) => {
                let symbol = self.base(
                    member,
                    &t.attrs,
                    &Visibility::Inherited,
                    &t.ident,
                    SymbolKind::TypeAlias,
                );
                let default = t.default.as_ref().map(|(_, ty)| ty);
                out.push(self.type_declaration(symbol, &t.generics, &t.bounds, default));
            }
            TraitItem::Macro(m) => {
                if let Some(symbol) = crate::macros::macro_call(self, member, &m.attrs, &m.mac) {
                    out.push(symbol);
                }
            }
            TraitItem::Verbatim(tokens) => self.verbatim(tokens, Container::Associated, out),
            _ => {}
        }
    }

    /// An associated type (or a `type` item without a value, see
    /// [`crate::verbatim`]): `type Name<T>: Bounds = Default`, `bodiless`
    /// without a value.
    pub fn type_declaration(
        &self,
        mut symbol: Symbol,
        generics: &syn::Generics,
        bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
        default: Option<&syn::Type>,
    ) -> Symbol {
        let region = self.region;
        symbol.type_parameters = type_parameters(region, generics);
        let bounds = if bounds.is_empty() {
            String::new()
        } else {
            format!(": {}", region.node_text(bounds, MAX_TYPE_CHARS))
        };
        symbol.value = default.map(|ty| region.node_text(ty, MAX_VALUE_CHARS));
        let value = symbol
            .value
            .as_ref()
            .map(|v| format!(" = {v}"))
            .unwrap_or_default();
        symbol.signature = Some(self.header(&symbol, "type", &format!("{bounds}{value}")));
        if symbol.value.is_none() {
            symbol.modifiers.push(Modifier::Bodiless);
            symbol.modifiers.sort();
        }
        symbol
    }

    /// Members of an impl block.
    pub fn impl_item(&self, member: &ImplItem, out: &mut Vec<Symbol>) {
        let region = self.region;
        match member {
            ImplItem::Fn(f) => out.push(self.function(
                member,
                &f.attrs,
                &f.vis,
                &f.sig,
                Some(&f.block.brace_token),
                Container::Associated,
            )),
            ImplItem::Const(c) => {
                let mut symbol =
                    self.base(member, &c.attrs, &c.vis, &c.ident, SymbolKind::Constant);
                self.typed_value(&mut symbol, "const", Some(&c.ty), Some(&c.expr));
                out.push(symbol);
            }
            ImplItem::Type(t) => {
                let mut symbol =
                    self.base(member, &t.attrs, &t.vis, &t.ident, SymbolKind::TypeAlias);
                symbol.type_parameters = type_parameters(region, &t.generics);
                let value = region.node_text(&t.ty, MAX_VALUE_CHARS);
                symbol.signature = Some(self.header(&symbol, "type", &format!(" = {value}")));
                symbol.value = Some(value);
                out.push(symbol);
            }
            ImplItem::Verbatim(tokens) => self.verbatim(tokens, Container::Associated, out),
            ImplItem::Macro(m) => {
                if let Some(symbol) = crate::macros::macro_call(self, member, &m.attrs, &m.mac) {
                    out.push(symbol);
                }
            }
            _ => {}
        }
    }

    fn foreign_item(&self, foreign: &ForeignItem, out: &mut Vec<Symbol>) {
        let mut symbol = match foreign {
            ForeignItem::Fn(f) => {
                self.function(foreign, &f.attrs, &f.vis, &f.sig, None, Container::Module)
            }
            ForeignItem::Static(s) => {
                let mut symbol =
                    self.base(foreign, &s.attrs, &s.vis, &s.ident, SymbolKind::Variable);
                symbol.modifiers.push(Modifier::Static);
                self.typed_value(&mut symbol, "static", Some(&s.ty), None);
                symbol
            }
            ForeignItem::Type(t) => {
                let mut symbol =
                    self.base(foreign, &t.attrs, &t.vis, &t.ident, SymbolKind::TypeAlias);
                symbol.signature = Some(self.header(&symbol, "type", ""));
                symbol
            }
            ForeignItem::Verbatim(tokens) => {
                // A `static` with a value, a `type` with bounds: `bodiless`
                // only when it has no value.
                let before = out.len();
                self.verbatim(tokens, Container::Module, out);
                for symbol in &mut out[before..] {
                    symbol.modifiers.push(Modifier::Extern);
                    symbol.modifiers.sort();
                    symbol.modifiers.dedup();
                }
                return;
            }
            _ => return,
        };
        symbol.modifiers.push(Modifier::Extern);
        symbol.modifiers.push(Modifier::Bodiless);
        symbol.modifiers.sort();
        symbol.modifiers.dedup();
        out.push(symbol);
    }
}

/// Where a symbol starts: its first written attribute, else its first token
/// after the attributes (doc comments never count).
fn start_line_offset(
    region: &Region<'_, '_>,
    tokens: proc_macro2::TokenStream,
    info: &crate::attrs::AttrInfo,
    fallback: usize,
) -> usize {
    let after = region.start_after_attrs(tokens).unwrap_or(fallback);
    info.attr_starts
        .iter()
        .copied()
        .chain([after])
        .min()
        .unwrap_or(after)
}

/// The span of the visibility's first token, unless inherited.
/// The fields of a struct or variant on one line, written from their parts so
/// attributes and doc comments on fields never leak in: `(u32, String)`,
/// `{ x: f64, y: f64 }`, or nothing for a unit. Types are cut to
/// [`MAX_TYPE_CHARS`], the whole to [`MAX_TYPE_CHARS`] as well.
fn fields_text(region: &Region<'_, '_>, fields: &Fields) -> String {
    let field = |f: &syn::Field| {
        let ty = region.node_text(&f.ty, MAX_TYPE_CHARS);
        let vis = visibility(region, &f.vis)
            .map(|v| format!("{v} "))
            .unwrap_or_default();
        match &f.ident {
            Some(name) => format!("{vis}{name}: {ty}"),
            None => format!("{vis}{ty}"),
        }
    };
    let text = match fields {
        Fields::Unit => return String::new(),
        Fields::Unnamed(u) => format!(
            "({})",
            u.unnamed.iter().map(field).collect::<Vec<_>>().join(", ")
        ),
        Fields::Named(n) => format!(
            "{{ {} }}",
            n.named.iter().map(field).collect::<Vec<_>>().join(", ")
        ),
    };
    truncate(&text, MAX_TYPE_CHARS)
}

pub(crate) fn vis_start(vis: &Visibility) -> Option<proc_macro2::Span> {
    match vis {
        Visibility::Public(p) => Some(p.span),
        Visibility::Restricted(r) => Some(r.pub_token.span),
        _ => None,
    }
}

/// The span of a signature's first token (`const`, `async`, `unsafe`,
/// `extern` or `fn`).
fn sig_start(sig: &syn::Signature) -> proc_macro2::Span {
    if let Some(t) = &sig.constness {
        return t.span;
    }
    if let Some(t) = &sig.asyncness {
        return t.span;
    }
    match &sig.safety {
        syn::Safety::Unsafe(t) => return t.span,
        syn::Safety::Safe(t) => return t.span,
        _ => {}
    }
    if let Some(abi) = &sig.abi {
        return abi.extern_token.span;
    }
    sig.fn_token.span
}
