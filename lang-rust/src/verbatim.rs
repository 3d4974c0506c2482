//! Items `syn` parses but hands back as verbatim tokens (`Item::Verbatim`,
//! and the verbatim members of traits, impls and extern blocks): syntax that
//! rustc's parser accepts and a later pass rejects, or nightly syntax.
//!
//! Each is parsed again from its tokens, whose spans are the file's (function
//! bodies and initializers were already taken out, see [`crate::bodies`]):
//!
//! - items without a body: `fn f();` (and a function with a body in an
//!   `extern` block), `const X: T;`, `static X: T;`,
//!   `type X;` (also `type X: Bound;`), marked `bodiless`; a generic
//!   `const X<T>: T = …;` and a `static X = …;` without a type;
//! - `const trait` and `const impl` (nightly `const_trait_impl`), the trait
//!   or impl with its members and the modifier `const`; `impl(crate) trait`
//!   (impl restrictions);
//! - macros 2.0 (`macro m($x:expr) { … }`, `macro m { (…) => { … } }`, nightly
//!   `decl_macro`), a `macro` named `m`.
//!
//! Anything else is left out with a warning diagnostic naming its lines, so
//! no item goes missing silently.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::token::Brace;
use syn::{
    Attribute, Block, Expr, Generics, Ident, ItemImpl, ItemTrait, Signature, StaticMutability,
    Token, Type, TypeParamBound, Visibility,
};

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, truncate};
use outline_core::{Modifier, Symbol, SymbolKind};

use crate::attrs::attr_info;
use crate::items::{Container, Mapper};
use crate::signature::type_parameters;

/// A verbatim item, parsed again.
enum Loose {
    /// `fn f();`, and `fn f() { … }` in an `extern` block.
    Fn {
        attrs: Vec<Attribute>,
        vis: Visibility,
        sig: Signature,
        body: Option<Block>,
    },
    /// `const X: T;`, `const X<T>: T = …;`
    Const {
        attrs: Vec<Attribute>,
        vis: Visibility,
        ident: Ident,
        generics: Generics,
        ty: Type,
        value: Option<Expr>,
    },
    /// `static X: T;`, `static X = …;`
    Static {
        attrs: Vec<Attribute>,
        vis: Visibility,
        mutable: bool,
        ident: Ident,
        ty: Option<Type>,
        value: Option<Expr>,
    },
    /// `type X;`, `type X: Bound;`, `type X: Bound = T;`
    Type {
        attrs: Vec<Attribute>,
        vis: Visibility,
        ident: Ident,
        generics: Generics,
        bounds: Punctuated<TypeParamBound, Token![+]>,
        ty: Option<Type>,
    },
    /// `macro m($x:expr) { … }`, `macro m { … }`
    Macro {
        attrs: Vec<Attribute>,
        vis: Visibility,
        ident: Ident,
        params: Option<TokenTree>,
    },
    /// `const trait T { … }`, `impl(crate) trait T { … }`: the trait, and the
    /// tokens before what `syn`'s trait holds (`const`, `impl(crate)`), never
    /// empty.
    Trait {
        item: ItemTrait,
        prefix: Vec<TokenTree>,
        constness: bool,
    },
    /// `const impl Trait for T { … }`: the impl and the span of `const`.
    Impl { item: ItemImpl, constness: Span },
}

/// Parses the tokens of a verbatim item.
fn parse_loose(input: ParseStream<'_>) -> syn::Result<Loose> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    let ahead = input.fork();
    if ahead.parse::<Signature>().is_ok() && (ahead.peek(Token![;]) || ahead.peek(Brace)) {
        let sig: Signature = input.parse()?;
        // The body was emptied before the item parse (see `crate::bodies`).
        let body = if input.peek(Brace) {
            Some(input.parse()?)
        } else {
            input.parse::<Token![;]>()?;
            None
        };
        return Ok(Loose::Fn {
            attrs,
            vis,
            sig,
            body,
        });
    }
    if input.peek(Token![macro]) {
        input.parse::<Token![macro]>()?;
        let ident = input.call(<Ident as syn::ext::IdentExt>::parse_any)?;
        let params = if input.peek(syn::token::Paren) {
            Some(input.parse::<TokenTree>()?)
        } else {
            None
        };
        match input.parse::<TokenTree>()? {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {}
            other => return Err(syn::Error::new(other.span(), "expected `{`")),
        }
        return Ok(Loose::Macro {
            attrs,
            vis,
            ident,
            params,
        });
    }
    if input.peek(Token![static]) {
        input.parse::<Token![static]>()?;
        let mutability: StaticMutability = input.parse()?;
        let mutable = matches!(mutability, StaticMutability::Mut(_));
        let ident: Ident = input.parse()?;
        let ty = if input.parse::<Option<Token![:]>>()?.is_some() {
            Some(input.parse()?)
        } else {
            None
        };
        let value = if input.parse::<Option<Token![=]>>()?.is_some() {
            Some(input.parse()?)
        } else {
            None
        };
        input.parse::<Token![;]>()?;
        return Ok(Loose::Static {
            attrs,
            vis,
            mutable,
            ident,
            ty,
            value,
        });
    }
    if input.peek(Token![type]) {
        input.parse::<Token![type]>()?;
        let ident: Ident = input.parse()?;
        let mut generics: Generics = input.parse()?;
        let mut bounds = Punctuated::new();
        if input.parse::<Option<Token![:]>>()?.is_some() {
            while !(input.peek(Token![where]) || input.peek(Token![=]) || input.peek(Token![;])) {
                bounds.push_value(input.parse()?);
                if input.peek(Token![where]) || input.peek(Token![=]) || input.peek(Token![;]) {
                    break;
                }
                bounds.push_punct(input.parse()?);
            }
        }
        generics.where_clause = input.parse()?;
        let ty = if input.parse::<Option<Token![=]>>()?.is_some() {
            Some(input.parse()?)
        } else {
            None
        };
        if generics.where_clause.is_none() {
            generics.where_clause = input.parse()?;
        }
        input.parse::<Token![;]>()?;
        return Ok(Loose::Type {
            attrs,
            vis,
            ident,
            generics,
            bounds,
            ty,
        });
    }
    if input.peek(Token![const]) {
        let const_token: Token![const] = input.parse()?;
        if input.peek(Token![impl]) || input.peek(Token![unsafe]) && input.peek2(Token![impl]) {
            let mut item: ItemImpl = input.parse()?;
            item.attrs = [attrs, item.attrs].concat();
            return Ok(Loose::Impl {
                item,
                constness: const_token.span,
            });
        }
        if input.peek(Token![trait])
            || input.peek(Token![unsafe])
            || input.peek(Token![auto]) && input.peek2(Token![trait])
        {
            let mut item: ItemTrait = input.parse()?;
            item.attrs = [attrs, item.attrs].concat();
            item.vis = vis;
            return Ok(Loose::Trait {
                item,
                prefix: const_token.to_token_stream().into_iter().collect(),
                constness: true,
            });
        }
        let ident = input.call(<Ident as syn::ext::IdentExt>::parse_any)?;
        let mut generics: Generics = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty: Type = input.parse()?;
        let value = if input.parse::<Option<Token![=]>>()?.is_some() {
            Some(input.parse()?)
        } else {
            None
        };
        generics.where_clause = input.parse()?;
        input.parse::<Token![;]>()?;
        return Ok(Loose::Const {
            attrs,
            vis,
            ident,
            generics,
            ty,
            value,
        });
    }
    if input.peek(Token![impl]) && input.peek2(syn::token::Paren) {
        // `impl(crate)`, then an optional `const`.
        let mut prefix: Vec<TokenTree> = vec![input.parse()?, input.parse()?];
        let constness = input.peek(Token![const]);
        if constness {
            prefix.push(input.parse()?);
        }
        let mut item: ItemTrait = input.parse()?;
        item.attrs = [attrs, item.attrs].concat();
        item.vis = vis;
        return Ok(Loose::Trait {
            item,
            prefix,
            constness,
        });
    }
    Err(input.error("item syntax not supported"))
}

impl Mapper<'_, '_, '_> {
    /// Appends the symbol of a verbatim item (`container`: where it stands)
    /// to `out`, or else a warning naming its lines.
    pub fn verbatim(&self, tokens: &TokenStream, container: Container, out: &mut Vec<Symbol>) {
        match parse_loose.parse2(tokens.clone()) {
            Ok(loose) => out.push(self.loose(tokens, loose, container)),
            Err(_) => self.unsupported(tokens),
        }
    }

    fn loose(&self, tokens: &TokenStream, loose: Loose, container: Container) -> Symbol {
        let region = self.region;
        match loose {
            Loose::Fn {
                attrs,
                vis,
                sig,
                body,
            } => {
                let brace = body.as_ref().map(|b| &b.brace_token);
                self.function(tokens, &attrs, &vis, &sig, brace, container)
            }
            Loose::Const {
                attrs,
                vis,
                ident,
                generics,
                ty,
                value,
            } => {
                let mut symbol = self.base(tokens, &attrs, &vis, &ident, SymbolKind::Constant);
                symbol.type_parameters = type_parameters(region, &generics);
                self.typed_value(&mut symbol, "const", Some(&ty), value.as_ref());
                if value.is_none() {
                    symbol.modifiers.push(Modifier::Bodiless);
                }
                symbol
            }
            Loose::Static {
                attrs,
                vis,
                mutable,
                ident,
                ty,
                value,
            } => {
                let mut symbol = self.base(tokens, &attrs, &vis, &ident, SymbolKind::Variable);
                symbol.modifiers.push(Modifier::Static);
                let keyword = if mutable { "static mut" } else { "static" };
                self.typed_value(&mut symbol, keyword, ty.as_ref(), value.as_ref());
                if value.is_none() {
                    symbol.modifiers.push(Modifier::Bodiless);
                }
                symbol.modifiers.sort();
                symbol
            }
            Loose::Type {
                attrs,
                vis,
                ident,
                generics,
                bounds,
                ty,
            } => {
                let symbol = self.base(tokens, &attrs, &vis, &ident, SymbolKind::TypeAlias);
                self.type_declaration(symbol, &generics, &bounds, ty.as_ref())
            }
            Loose::Macro {
                attrs,
                vis,
                ident,
                params,
            } => {
                let mut symbol = self.base(tokens, &attrs, &vis, &ident, SymbolKind::Macro);
                let vis = symbol
                    .visibility
                    .as_ref()
                    .map(|v| format!("{v} "))
                    .unwrap_or_default();
                let params = params
                    .map(|p| region.tokens_text(TokenStream::from(p), MAX_TYPE_CHARS))
                    .unwrap_or_default();
                symbol.signature = Some(truncate(
                    &format!("{vis}macro {ident}{params}"),
                    MAX_SIGNATURE_CHARS,
                ));
                symbol
            }
            Loose::Trait {
                item,
                prefix,
                constness,
            } => {
                let lead = prefix.first().map(TokenTree::span);
                let prefix = region.tokens_text(prefix.into_iter().collect(), MAX_TYPE_CHARS);
                let mut symbol = self.trait_symbol(&item, lead, &prefix);
                if constness {
                    symbol.modifiers.push(Modifier::Const);
                    symbol.modifiers.sort();
                }
                symbol
            }
            Loose::Impl { item, constness } => self.impl_block(&item, Some(constness)),
        }
    }

    /// A warning that the item of `tokens` is left out, naming its lines
    /// (from its first written attribute, as a symbol's), unless the item is
    /// written inside a macro invocation, whose tokens need not be Rust.
    fn unsupported(&self, tokens: &TokenStream) {
        if self.in_macro.get() {
            return;
        }
        let region = self.region;
        let attrs = Attribute::parse_outer
            .parse2(leading_attributes(tokens))
            .unwrap_or_default();
        let range = region.tokens_range(tokens.clone());
        let after = region
            .start_after_attrs(tokens.clone())
            .unwrap_or(range.start);
        let start = attr_info(region, &attrs)
            .attr_starts
            .into_iter()
            .chain([after])
            .min()
            .unwrap_or(after);
        let (first, last) = (region.line(start), region.end_line(&(start..range.end)));
        let lines = if first == last {
            format!("line {first}")
        } else {
            format!("lines {first}-{last}")
        };
        self.warnings.borrow_mut().push((
            start,
            format!("item syntax not supported: {lines} left out"),
        ));
    }
}

/// The outer attributes (`#` and `[…]` pairs) at the start of `tokens`.
fn leading_attributes(tokens: &TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut end = 0;
    while matches!(trees.get(end), Some(TokenTree::Punct(p)) if p.as_char() == '#')
        && matches!(trees.get(end + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        end += 2;
    }
    trees.into_iter().take(end).collect()
}

#[cfg(test)]
mod tests {
    use outline_core::{FileOutline, Language, Modifier, Outline, OutlineOptions, Severity};

    use crate::RustOutline;

    fn outline(text: &str) -> FileOutline {
        RustOutline.outline("t.rs", Language::Rust, text, &OutlineOptions::default())
    }

    /// `(name, start, end, modifiers)` of the top-level symbols.
    fn top(outline: &FileOutline) -> Vec<(String, u32, u32, Vec<Modifier>)> {
        outline
            .symbols
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.start_line,
                    s.end_line,
                    s.modifiers.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn items_without_a_body_are_bodiless_symbols() {
        let outline = outline(
            "static mut P: *mut u8;\n#[cfg(x)]\npub const U: u32;\ntype A: Clone;\n\
             const G<T>: u8 = 1 where T: Copy;\nstatic S = 2;\n",
        );
        assert_eq!(
            top(&outline),
            [
                ("P".into(), 1, 1, vec![Modifier::Static, Modifier::Bodiless]),
                ("U".into(), 2, 3, vec![Modifier::Bodiless]),
                ("A".into(), 4, 4, vec![Modifier::Bodiless]),
                ("G".into(), 5, 5, vec![]),
                ("S".into(), 6, 6, vec![Modifier::Static]),
            ]
        );
        // The `where` clause is not part of `G`'s initializer.
        assert_eq!(outline.diagnostics, []);
        assert_eq!(outline.symbols[3].value.as_deref(), Some("1"));
        assert_eq!(outline.symbols[4].annotation, None);
    }

    #[test]
    fn const_traits_and_impls_keep_their_members_and_body_errors() {
        let outline = outline(
            "pub const trait T {\n    fn f() { let = ; }\n}\n\
             const unsafe impl Send for X {\n    fn g(&self) {}\n}\n",
        );
        assert_eq!(
            top(&outline),
            [
                ("T".into(), 1, 3, vec![Modifier::Const]),
                (
                    "impl Send for X".into(),
                    4,
                    6,
                    vec![Modifier::Const, Modifier::Unsafe]
                ),
            ]
        );
        assert_eq!(outline.symbols[0].children[0].name, "f");
        assert_eq!(
            outline.symbols[1].signature.as_deref(),
            Some("const unsafe impl Send for X")
        );
        // The body of `f` is checked as any function body.
        assert!(outline.partial);
        assert_eq!(outline.diagnostics.len(), 1);
        assert_eq!(outline.diagnostics[0].line, 2);
    }

    #[test]
    fn macros_2_0_are_macros_named_after_macro() {
        let outline = outline("#[a]\npub macro m($x:expr) {}\nmacro n {\n    () => {}\n}\n");
        assert_eq!(
            top(&outline),
            [("m".into(), 1, 2, vec![]), ("n".into(), 3, 5, vec![])]
        );
        assert_eq!(
            outline.symbols[0].signature.as_deref(),
            Some("pub macro m($x:expr)")
        );
    }

    #[test]
    fn items_not_understood_are_left_out_with_a_warning() {
        let outline = outline("fn a() {}\nimpl <T as X>::Y\n    for Z {}\nfn b() {}\n");
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(outline.diagnostics.len(), 1);
        let warning = &outline.diagnostics[0];
        assert_eq!((warning.line, warning.severity), (2, Severity::Warning));
        assert_eq!(
            warning.message,
            "item syntax not supported: lines 2-3 left out"
        );
        // A warning, not a syntax error: the outline is not partial.
        assert!(!outline.partial);
    }

    #[test]
    fn recovery_lists_them_and_keeps_its_errors() {
        let outline = outline(
            "const X: u32;\nstruct S { a: u32,, }\npub const trait T {\n    fn a(&self);\n    \
             fn b( {}\n    fn c(&self);\n}\nextern \"C\" {\n    safe static W: u8 = 1;\n}\n",
        );
        assert!(outline.partial);
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["X", "T"]);
        let members: Vec<&str> = outline.symbols[1]
            .children
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(members, ["a", "c"]);
        let lines: Vec<(u32, Severity)> = outline
            .diagnostics
            .iter()
            .map(|d| (d.line, d.severity))
            .collect();
        assert_eq!(lines.first(), Some(&(2, Severity::Error)));
        assert!(lines.contains(&(5, Severity::Error)));
        assert_eq!(lines.last(), Some(&(9, Severity::Warning)));
    }
}
