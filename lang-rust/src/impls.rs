//! Impl blocks, named per the output contract: `impl Trait for Type` or
//! `impl Type`, with the generic arguments of the trait and of the self type
//! kept, and the `impl<…>` parameters and the `where` clause dropped. The `!`
//! of a negative impl is kept (`impl !Send for Handle`). `unsafe` is not part
//! of the name (so `unsafe impl Sync for T` is found as `impl Sync for T`); it
//! is a modifier, and the signature shows it with the parameters and `where`
//! clause.

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, truncate};
use outline_core::{Modifier, Symbol, SymbolKind};
use proc_macro2::Span;
use syn::{ItemImpl, Visibility};

use crate::items::Mapper;
use crate::signature::{render_type_parameters, type_parameters, where_clause};

impl Mapper<'_, '_, '_> {
    /// The symbol of an impl block, its items as children; `constness` is
    /// the span of the `const` of a nightly `const impl` (see
    /// [`crate::verbatim`]).
    pub fn impl_block(&self, block: &ItemImpl, constness: Option<Span>) -> Symbol {
        let region = self.region;
        let self_ty = region.node_text(&block.self_ty, MAX_TYPE_CHARS);
        let name = match &block.trait_ {
            Some((path, _)) => {
                let bang = if block.modifiers.polarity.is_some() {
                    "!"
                } else {
                    ""
                };
                let trait_text = region.node_text(path, MAX_TYPE_CHARS);
                format!("impl {bang}{trait_text} for {self_ty}")
            }
            None => format!("impl {self_ty}"),
        };
        let name_range = region.range(block.impl_token.span);
        let start = block
            .modifiers
            .defaultness
            .map(|d| d.span)
            .or(constness)
            .or(block.unsafety.map(|u| u.span))
            .unwrap_or(block.impl_token.span);
        let extent = region.range(start).start..region.range(block.brace_token.span.close()).end;
        let mut symbol = self.base_extent(
            extent,
            &block.attrs,
            &Visibility::Inherited,
            name.clone(),
            name_range,
            SymbolKind::Impl,
        );
        symbol.type_parameters = type_parameters(region, &block.generics);
        if constness.is_some() {
            symbol.modifiers.push(Modifier::Const);
        }
        if block.unsafety.is_some() {
            symbol.modifiers.push(Modifier::Unsafe);
        }
        if let Some((path, _)) = &block.trait_ {
            // A negative impl (`impl !Send for T`) keeps its `!`.
            let bang = if block.modifiers.polarity.is_some() {
                "!"
            } else {
                ""
            };
            symbol.bases = vec![format!("{bang}{}", region.node_text(path, MAX_TYPE_CHARS))];
        }
        let unsafe_kw = if block.unsafety.is_some() {
            "unsafe "
        } else {
            ""
        };
        let default_kw = if block.modifiers.defaultness.is_some() {
            "default "
        } else {
            ""
        };
        let const_kw = if constness.is_some() { "const " } else { "" };
        let params = render_type_parameters(&symbol.type_parameters);
        let rest = name.strip_prefix("impl ").unwrap_or(&name);
        symbol.signature = Some(truncate(
            &format!(
                "{default_kw}{const_kw}{unsafe_kw}impl{params} {rest}{}",
                where_clause(region, &block.generics)
            ),
            MAX_SIGNATURE_CHARS,
        ));
        for member in &block.items {
            self.impl_item(member, &mut symbol.children);
        }
        symbol
    }
}
