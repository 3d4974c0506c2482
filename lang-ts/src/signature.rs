//! Parameters, type parameters and one-line signatures.
//!
//! Terms follow the TypeScript handbook: a parameter may be optional (`x?`),
//! have a default (`x = 1`) or be a rest parameter (`...xs`); a constructor
//! parameter with an accessibility or `readonly` modifier is a parameter
//! property. Signatures are written as TypeScript declares them:
//! `name<T extends U = V>(a: A, b?: B, ...c: C[]): R`.

use outline_core::text::{MAX_DECORATOR_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS};
use outline_core::{Parameter, ParameterKind, TypeParameter, TypeParameterKind};
use swc_common::Span;
use swc_ecma_ast::{
    Accessibility, Decorator, Param, ParamOrTsParamProp, Pat, TsFnParam, TsParamPropParam,
    TsThisParam, TsTypeAnn, TsTypeParamDecl,
};

use crate::source::Source;

/// One parameter with what only the signature shows: decorators and parameter
/// property modifiers (`@Inject("x") private readonly `), and `?`.
pub(crate) struct Param2 {
    pub param: Parameter,
    pub prefix: String,
    pub optional: bool,
}

/// The type of an annotation as one line.
pub(crate) fn type_text(source: &Source<'_>, ann: Option<&TsTypeAnn>) -> Option<String> {
    ann.map(|a| source.node_text(&*a.type_ann, MAX_TYPE_CHARS))
}

fn pattern(source: &Source<'_>, pat: &Pat) -> Param2 {
    let plain = |name: String, annotation, optional| Param2 {
        param: Parameter {
            name,
            kind: ParameterKind::PositionalOrKeyword,
            annotation,
            default: None,
            optional,
        },
        prefix: String::new(),
        optional,
    };
    match pat {
        Pat::Ident(b) => plain(
            b.id.sym.to_string(),
            type_text(source, b.type_ann.as_deref()),
            b.id.optional,
        ),
        Pat::Rest(r) => {
            let mut inner = pattern(source, &r.arg);
            inner.param.kind = ParameterKind::Variadic;
            if let Some(ann) = type_text(source, r.type_ann.as_deref()) {
                inner.param.annotation = Some(ann);
            }
            inner
        }
        Pat::Assign(a) => {
            let mut inner = pattern(source, &a.left);
            inner.param.default = Some(source.node_text(&*a.right, MAX_VALUE_CHARS));
            inner
        }
        Pat::Array(p) => plain(
            pattern_text(source, p.span, p.type_ann.as_deref()),
            type_text(source, p.type_ann.as_deref()),
            p.optional,
        ),
        Pat::Object(p) => plain(
            pattern_text(source, p.span, p.type_ann.as_deref()),
            type_text(source, p.type_ann.as_deref()),
            p.optional,
        ),
        other => plain(source.node_text(other, MAX_VALUE_CHARS), None, false),
    }
}

/// The text of a destructuring pattern without its type annotation.
fn pattern_text(source: &Source<'_>, span: Span, ann: Option<&TsTypeAnn>) -> String {
    let span = match ann {
        Some(ann) if ann.span.lo > span.lo && ann.span.lo <= span.hi => span.with_hi(ann.span.lo),
        _ => span,
    };
    let text = source.one_line(span, MAX_VALUE_CHARS);
    text.trim_end()
        .trim_end_matches([':', '?'])
        .trim_end()
        .to_owned()
}

fn decorators_prefix(source: &Source<'_>, decorators: &[Decorator]) -> String {
    decorators
        .iter()
        .map(|d| format!("{} ", source.node_text(d, MAX_DECORATOR_CHARS)))
        .collect()
}

/// Parameters of a function, method or arrow function.
pub(crate) fn params(source: &Source<'_>, params: &[Param]) -> Vec<Param2> {
    params
        .iter()
        .map(|p| {
            let mut out = pattern(source, &p.pat);
            out.prefix = decorators_prefix(source, &p.decorators);
            out
        })
        .collect()
}

/// Parameters of an arrow function.
pub(crate) fn pats(source: &Source<'_>, pats: &[Pat]) -> Vec<Param2> {
    pats.iter().map(|p| pattern(source, p)).collect()
}

/// Parameters of a call, method or construct signature.
pub(crate) fn fn_params(source: &Source<'_>, params: &[TsFnParam]) -> Vec<Param2> {
    params
        .iter()
        .map(|p| match p {
            TsFnParam::Ident(b) => pattern(source, &Pat::Ident(b.clone())),
            TsFnParam::Array(a) => pattern(source, &Pat::Array(a.clone())),
            TsFnParam::Rest(r) => pattern(source, &Pat::Rest(r.clone())),
            TsFnParam::Object(o) => pattern(source, &Pat::Object(o.clone())),
        })
        .collect()
}

/// Parameters of a constructor, parameter properties included.
pub(crate) fn constructor_params(
    source: &Source<'_>,
    params: &[ParamOrTsParamProp],
) -> Vec<Param2> {
    params
        .iter()
        .map(|p| match p {
            ParamOrTsParamProp::Param(p) => {
                let mut out = pattern(source, &p.pat);
                out.prefix = decorators_prefix(source, &p.decorators);
                out
            }
            ParamOrTsParamProp::TsParamProp(prop) => {
                let mut out = match &prop.param {
                    TsParamPropParam::Ident(b) => pattern(source, &Pat::Ident(b.clone())),
                    TsParamPropParam::Assign(a) => pattern(source, &Pat::Assign(a.clone())),
                };
                let mut prefix = decorators_prefix(source, &prop.decorators);
                if let Some(a) = prop.accessibility {
                    prefix.push_str(accessibility_word(a));
                    prefix.push(' ');
                }
                if prop.is_override {
                    prefix.push_str("override ");
                }
                if prop.readonly {
                    prefix.push_str("readonly ");
                }
                out.prefix = prefix;
                out
            }
        })
        .collect()
}

/// The `this` parameter of a function type (`function f(this: Window)`).
pub(crate) fn this_param(source: &Source<'_>, this: &TsThisParam) -> Param2 {
    Param2 {
        param: Parameter {
            name: "this".to_owned(),
            kind: ParameterKind::SelfParam,
            annotation: type_text(source, this.type_ann.as_deref()),
            default: None,
            optional: false,
        },
        prefix: String::new(),
        optional: false,
    }
}

/// `public`, `protected` or `private`.
pub(crate) fn accessibility_word(a: Accessibility) -> &'static str {
    match a {
        Accessibility::Public => "public",
        Accessibility::Protected => "protected",
        Accessibility::Private => "private",
    }
}

/// Type parameters with their constraints (`extends`) and defaults.
pub(crate) fn type_params(
    source: &Source<'_>,
    decl: Option<&TsTypeParamDecl>,
) -> Vec<TypeParameter> {
    let Some(decl) = decl else {
        return Vec::new();
    };
    decl.params
        .iter()
        .map(|tp| {
            let mut name = String::new();
            if tp.is_const {
                name.push_str("const ");
            }
            if tp.is_in {
                name.push_str("in ");
            }
            if tp.is_out {
                name.push_str("out ");
            }
            name.push_str(&tp.name.sym);
            TypeParameter {
                name,
                kind: TypeParameterKind::Type,
                bound: tp
                    .constraint
                    .as_deref()
                    .map(|t| source.node_text(t, MAX_TYPE_CHARS)),
                default: tp
                    .default
                    .as_deref()
                    .map(|t| source.node_text(t, MAX_TYPE_CHARS)),
            }
        })
        .collect()
}

/// `<T extends U = V, W>`, or the empty string.
pub(crate) fn render_type_params(type_params: &[TypeParameter]) -> String {
    if type_params.is_empty() {
        return String::new();
    }
    let items: Vec<String> = type_params
        .iter()
        .map(|tp| {
            let mut item = tp.name.clone();
            if let Some(bound) = &tp.bound {
                item.push_str(" extends ");
                item.push_str(bound);
            }
            if let Some(default) = &tp.default {
                item.push_str(" = ");
                item.push_str(default);
            }
            item
        })
        .collect();
    format!("<{}>", items.join(", "))
}

/// One parameter as TypeScript writes it.
pub(crate) fn render_param(p: &Param2) -> String {
    let mut item = p.prefix.clone();
    if p.param.kind == ParameterKind::Variadic {
        item.push_str("...");
    }
    item.push_str(&p.param.name);
    if p.optional {
        item.push('?');
    }
    if let Some(annotation) = &p.param.annotation {
        item.push_str(": ");
        item.push_str(annotation);
    }
    if let Some(default) = &p.param.default {
        item.push_str(" = ");
        item.push_str(default);
    }
    item
}

/// `(a: A, b?: B)`.
pub(crate) fn render_params(params: &[Param2]) -> String {
    let items: Vec<String> = params.iter().map(render_param).collect();
    format!("({})", items.join(", "))
}
