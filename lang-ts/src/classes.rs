//! Classes and their members: constructors (with parameter properties),
//! methods, getters, setters, fields (an arrow-function or function-expression
//! initialiser makes a method), `#private` members, `accessor` fields, static
//! blocks.

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate};
use outline_core::{Accessor, Modifier, Symbol, SymbolKind};
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    Accessibility, Class, ClassMember, Decorator, Expr, Function, Key, MethodKind, TsTypeAnn,
};

use crate::signature::{
    accessibility_word, constructor_params, render_params, render_type_params, type_params,
    type_text,
};
use crate::symbols::{Ctx, FnLike, Scope, Walker, fn_like, mark_overloads};

/// A class named `name` (its binding's name for a class expression).
pub(crate) fn class(
    walker: &Walker<'_, '_>,
    name: String,
    name_pos: BytePos,
    class: &Class,
    expression: bool,
    ctx: &Ctx,
) -> Symbol {
    let source = walker.source;
    let mut start = ctx.start.map_or(class.span.lo, |s| s.min(class.span.lo));
    if let Some(first) = class.decorators.first() {
        start = start.min(first.span.lo);
    }
    let end = ctx.end.map_or(class.span.hi, |e| e.max(class.span.hi));
    let end = if expression {
        class.span.hi.max(end)
    } else {
        end
    };
    let mut symbol = walker.symbol(name, SymbolKind::Class, start, end, name_pos);
    symbol.decorators = walker.decorators(&class.decorators);
    symbol.modifiers.extend_from_slice(&ctx.modifiers);
    if class.is_abstract {
        symbol.modifiers.push(Modifier::Abstract);
    }
    symbol.modifiers.sort();
    symbol.modifiers.dedup();
    symbol.type_parameters = type_params(source, class.type_params.as_deref());
    let extends = class.super_class.as_deref().map(|base| {
        let mut text = source.node_text(base, MAX_TYPE_CHARS);
        if let Some(args) = &class.super_type_params {
            text.push_str(&source.node_text(&**args, MAX_TYPE_CHARS));
        }
        truncate(&text, MAX_TYPE_CHARS)
    });
    let implements: Vec<String> = class
        .implements
        .iter()
        .map(|i| source.node_text(i, MAX_TYPE_CHARS))
        .collect();
    let mut signature = format!(
        "{}class {}{}",
        if class.is_abstract { "abstract " } else { "" },
        symbol.name,
        render_type_params(&symbol.type_parameters)
    );
    if let Some(base) = &extends {
        signature.push_str(&format!(" extends {base}"));
    }
    if !implements.is_empty() {
        signature.push_str(&format!(" implements {}", implements.join(", ")));
    }
    symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
    symbol.bases = extends.into_iter().chain(implements).collect();
    for member in &class.body {
        if let Some(child) = self::member(walker, member) {
            let plain = child.kind == SymbolKind::Field;
            symbol.children.push(child);
            // Callbacks in a field's value (`onScroll = throttle(() => …)`)
            // are listed after it, at its level.
            let value = match member {
                ClassMember::ClassProp(p) => p.value.as_deref(),
                ClassMember::PrivateProp(p) => p.value.as_deref(),
                ClassMember::AutoAccessor(a) => a.value.as_deref(),
                _ => None,
            };
            if plain && let Some(value) = value {
                walker.callbacks_in(value, &mut symbol.children);
            }
        }
    }
    mark_overloads(&mut symbol.children);
    symbol
}

/// Modifiers and visibility of a member.
struct Flags {
    accessibility: Option<Accessibility>,
    private_name: bool,
    is_static: bool,
    is_abstract: bool,
    is_override: bool,
    readonly: bool,
    declare: bool,
}

impl Flags {
    fn ctx(&self, start: BytePos, end: BytePos) -> Ctx {
        let mut modifiers = Vec::new();
        if self.is_static {
            modifiers.push(Modifier::Static);
        }
        if self.is_abstract {
            modifiers.push(Modifier::Abstract);
        }
        if self.is_override {
            modifiers.push(Modifier::Override);
        }
        if self.readonly {
            modifiers.push(Modifier::Readonly);
        }
        if self.declare {
            modifiers.push(Modifier::Declare);
        }
        let visibility = match (self.accessibility, self.private_name) {
            (Some(a), _) => Some(accessibility_word(a).to_owned()),
            (None, true) => Some("private".to_owned()),
            (None, false) => None,
        };
        Ctx {
            start: Some(start),
            end: Some(end),
            modifiers,
            visibility,
        }
    }
}

fn member(walker: &Walker<'_, '_>, member: &ClassMember) -> Option<Symbol> {
    let source = walker.source;
    match member {
        ClassMember::Constructor(c) => {
            let mut symbol = walker.symbol(
                "constructor",
                SymbolKind::Constructor,
                c.span.lo,
                c.span.hi,
                c.key.span().lo,
            );
            symbol.visibility = c.accessibility.map(|a| accessibility_word(a).to_owned());
            let params = constructor_params(source, &c.params);
            let mut signature = String::new();
            if let Some(v) = &symbol.visibility {
                signature.push_str(&format!("{v} "));
            }
            signature.push_str("constructor");
            signature.push_str(&render_params(&params));
            symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
            symbol.parameters = params.into_iter().map(|p| p.param).collect();
            match &c.body {
                None => symbol.modifiers.push(Modifier::Bodiless),
                Some(body) => {
                    if let Some(first) = body.stmts.first() {
                        let split = outline_core::blocks::splits_body(
                            source.line(first.span().lo),
                            symbol.end_line,
                            walker.options.block_threshold,
                        );
                        for stmt in &body.stmts {
                            walker.stmt(stmt, Scope::Function, split, &mut symbol.children);
                        }
                        mark_overloads(&mut symbol.children);
                    }
                }
            }
            Some(symbol)
        }
        ClassMember::Method(m) => Some(method(
            walker,
            walker.prop_name(&m.key),
            m.key.span().lo,
            m.span,
            m.kind,
            &m.function,
            &Flags {
                accessibility: m.accessibility,
                private_name: false,
                is_static: m.is_static,
                is_abstract: m.is_abstract,
                is_override: m.is_override,
                readonly: false,
                declare: false,
            },
        )),
        ClassMember::PrivateMethod(m) => Some(method(
            walker,
            format!("#{}", m.key.name),
            m.key.span.lo,
            m.span,
            m.kind,
            &m.function,
            &Flags {
                accessibility: m.accessibility,
                private_name: true,
                is_static: m.is_static,
                is_abstract: m.is_abstract,
                is_override: m.is_override,
                readonly: false,
                declare: false,
            },
        )),
        ClassMember::ClassProp(p) => Some(field(
            walker,
            walker.prop_name(&p.key),
            p.key.span().lo,
            p.span,
            &p.decorators,
            p.type_ann.as_deref(),
            p.value.as_deref(),
            (p.is_optional, p.definite),
            &Flags {
                accessibility: p.accessibility,
                private_name: false,
                is_static: p.is_static,
                is_abstract: p.is_abstract,
                is_override: p.is_override,
                readonly: p.readonly,
                declare: p.declare,
            },
        )),
        ClassMember::PrivateProp(p) => Some(field(
            walker,
            format!("#{}", p.key.name),
            p.key.span.lo,
            p.span,
            &p.decorators,
            p.type_ann.as_deref(),
            p.value.as_deref(),
            (p.is_optional, p.definite),
            &Flags {
                accessibility: p.accessibility,
                private_name: true,
                is_static: p.is_static,
                is_abstract: false,
                is_override: p.is_override,
                readonly: p.readonly,
                declare: false,
            },
        )),
        ClassMember::AutoAccessor(a) => {
            let (name, pos, private_name) = match &a.key {
                Key::Private(p) => (format!("#{}", p.name), p.span.lo, true),
                Key::Public(k) => (walker.prop_name(k), k.span().lo, false),
            };
            let mut symbol = field(
                walker,
                name,
                pos,
                a.span,
                &a.decorators,
                a.type_ann.as_deref(),
                a.value.as_deref(),
                (false, a.definite),
                &Flags {
                    accessibility: a.accessibility,
                    private_name,
                    is_static: a.is_static,
                    is_abstract: a.is_abstract,
                    is_override: a.is_override,
                    readonly: false,
                    declare: false,
                },
            );
            if let Some(signature) = &mut symbol.signature {
                signature.insert_str(0, "accessor ");
            }
            Some(symbol)
        }
        ClassMember::StaticBlock(b) => {
            let mut symbol =
                walker.symbol("static", SymbolKind::Block, b.span.lo, b.span.hi, b.span.lo);
            symbol.doc = None;
            symbol.doc_start_line = None;
            let split = outline_core::blocks::splits_body(
                symbol.start_line,
                symbol.end_line,
                walker.options.block_threshold,
            );
            for stmt in &b.body.stmts {
                walker.stmt(stmt, Scope::Function, split, &mut symbol.children);
            }
            Some(symbol)
        }
        ClassMember::TsIndexSignature(_) | ClassMember::Empty(_) => None,
    }
}

fn method(
    walker: &Walker<'_, '_>,
    name: String,
    name_pos: BytePos,
    span: Span,
    kind: MethodKind,
    function: &Function,
    flags: &Flags,
) -> Symbol {
    let (kind, accessor) = match kind {
        MethodKind::Method => (SymbolKind::Method, None),
        MethodKind::Getter => (SymbolKind::Getter, Some(Accessor::Getter)),
        MethodKind::Setter => (SymbolKind::Setter, Some(Accessor::Setter)),
    };
    let ctx = flags.ctx(span.lo, span.hi);
    let mut symbol = walker.function(
        name,
        name_pos,
        &FnLike::Function(function),
        kind,
        &ctx,
        true,
    );
    symbol.accessor = accessor;
    symbol
}

#[allow(clippy::too_many_arguments)]
fn field(
    walker: &Walker<'_, '_>,
    name: String,
    name_pos: BytePos,
    span: Span,
    decorators: &[Decorator],
    type_ann: Option<&TsTypeAnn>,
    value: Option<&Expr>,
    (optional, definite): (bool, bool),
    flags: &Flags,
) -> Symbol {
    let source = walker.source;
    let mut start = span.lo;
    if let Some(first) = decorators.first() {
        start = start.min(first.span.lo);
    }
    let ctx = flags.ctx(start, span.hi);
    if let Some(f) = value.and_then(fn_like) {
        let mut symbol = walker.function(name, name_pos, &f, SymbolKind::Method, &ctx, true);
        symbol.decorators = walker.decorators(decorators);
        // The field's own type (`create: (...a: any[]) => any = …`) stays in
        // the signature as written.
        if let (Some(annotation), Some(signature)) =
            (type_text(source, type_ann), symbol.signature.as_mut())
        {
            let written = format!("{} = ", symbol.name);
            if let Some(at) = signature.find(&written) {
                signature.insert_str(at + symbol.name.len(), &format!(": {annotation}"));
                *signature = truncate(signature, MAX_SIGNATURE_CHARS);
            }
        }
        return symbol;
    }
    let mut symbol = walker.symbol(name, SymbolKind::Field, start, span.hi, name_pos);
    symbol.decorators = walker.decorators(decorators);
    symbol.modifiers = ctx.modifiers;
    symbol.modifiers.sort();
    symbol.visibility = ctx.visibility;
    symbol.annotation = type_text(source, type_ann);
    symbol.value = value.map(|v| source.node_text(v, MAX_VALUE_CHARS));
    let mut signature = String::new();
    if let Some(v) = &symbol.visibility
        && !symbol.name.starts_with('#')
    {
        signature.push_str(&format!("{v} "));
    }
    for m in &symbol.modifiers {
        signature.push_str(match m {
            Modifier::Declare => "declare ",
            Modifier::Static => "static ",
            Modifier::Abstract => "abstract ",
            Modifier::Override => "override ",
            Modifier::Readonly => "readonly ",
            _ => "",
        });
    }
    signature.push_str(&symbol.name);
    if optional {
        signature.push('?');
    }
    if definite {
        signature.push('!');
    }
    if let Some(a) = &symbol.annotation {
        signature.push_str(&format!(": {a}"));
    }
    if let Some(v) = &symbol.value {
        signature.push_str(&format!(" = {v}"));
    }
    symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
    symbol
}
