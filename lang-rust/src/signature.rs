//! Generics, parameters and one-line signatures of Rust items, written from
//! the parsed parts (Rust Reference: Functions, Generic parameters, Where
//! clauses) with each part's text taken from the source tokens.

use outline_core::text::{MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate};
use outline_core::{Parameter, ParameterKind, TypeParameter, TypeParameterKind};
use syn::{FnArg, GenericParam, Generics, ReceiverKind, ReturnType, Signature, Visibility};

use crate::source::Region;

/// The type, lifetime and const parameters of `generics`, in order.
pub(crate) fn type_parameters(region: &Region<'_, '_>, generics: &Generics) -> Vec<TypeParameter> {
    generics
        .params
        .iter()
        .map(|param| match param {
            GenericParam::Lifetime(lt) => TypeParameter {
                name: lt.lifetime.to_string(),
                kind: TypeParameterKind::Lifetime,
                bound: (!lt.bounds.is_empty())
                    .then(|| region.node_text(&lt.bounds, MAX_TYPE_CHARS)),
                default: None,
            },
            GenericParam::Type(tp) => TypeParameter {
                name: tp.ident.to_string(),
                kind: TypeParameterKind::Type,
                bound: (!tp.bounds.is_empty())
                    .then(|| region.node_text(&tp.bounds, MAX_TYPE_CHARS)),
                default: tp
                    .default
                    .as_ref()
                    .map(|(_, ty)| region.node_text(ty, MAX_TYPE_CHARS)),
            },
            GenericParam::Const(cp) => TypeParameter {
                name: cp.ident.to_string(),
                kind: TypeParameterKind::Const,
                bound: Some(region.node_text(&cp.ty, MAX_TYPE_CHARS)),
                default: cp
                    .default
                    .as_ref()
                    .map(|(_, e)| region.node_text(e, MAX_VALUE_CHARS)),
            },
        })
        .collect()
}

/// `<'a, T: Clone, const N: usize>`, or nothing.
pub(crate) fn render_type_parameters(params: &[TypeParameter]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let items: Vec<String> = params
        .iter()
        .map(|p| {
            let mut item = match p.kind {
                TypeParameterKind::Const => format!("const {}", p.name),
                _ => p.name.clone(),
            };
            if let Some(bound) = &p.bound {
                item.push_str(": ");
                item.push_str(bound);
            }
            if let Some(default) = &p.default {
                item.push_str(" = ");
                item.push_str(default);
            }
            item
        })
        .collect();
    format!("<{}>", items.join(", "))
}

/// ` where T: Default`, or nothing.
pub(crate) fn where_clause(region: &Region<'_, '_>, generics: &Generics) -> String {
    match &generics.where_clause {
        Some(w) if !w.predicates.is_empty() => {
            let text = region.node_text(w, MAX_TYPE_CHARS);
            format!(" {}", text.trim_end_matches(','))
        }
        _ => String::new(),
    }
}

/// The parameters of `sig`: the receiver (`&self`, `&mut self`, `mut self`,
/// `self: Pin<&mut Self>`), then each pattern with its type, then a C
/// variadic `...`.
pub(crate) fn parameters(region: &Region<'_, '_>, sig: &Signature) -> Vec<Parameter> {
    let mut out: Vec<Parameter> = sig
        .inputs
        .iter()
        .map(|arg| match arg {
            FnArg::Receiver(receiver) => match &receiver.kind {
                ReceiverKind::Typed(_, ty) => Parameter {
                    name: if receiver.mutability.is_some() {
                        "mut self".to_owned()
                    } else {
                        "self".to_owned()
                    },
                    kind: ParameterKind::SelfParam,
                    annotation: Some(region.node_text(ty, MAX_TYPE_CHARS)),
                    default: None,
                    optional: false,
                },
                _ => Parameter {
                    name: region.node_text(receiver, MAX_TYPE_CHARS),
                    kind: ParameterKind::SelfParam,
                    annotation: None,
                    default: None,
                    optional: false,
                },
            },
            FnArg::Typed(typed) => Parameter {
                name: region.node_text(&typed.pat, MAX_VALUE_CHARS),
                kind: ParameterKind::PositionalOrKeyword,
                annotation: Some(region.node_text(&typed.ty, MAX_TYPE_CHARS)),
                default: None,
                optional: false,
            },
        })
        .collect();
    if let Some(variadic) = &sig.variadic {
        out.push(Parameter {
            name: match &variadic.pat {
                Some((pat, _)) => region.node_text(pat, MAX_VALUE_CHARS),
                None => "...".to_owned(),
            },
            kind: ParameterKind::Variadic,
            annotation: variadic.pat.as_ref().map(|_| "...".to_owned()),
            default: None,
            optional: false,
        });
    }
    out
}

/// The return type of `sig`, if written.
pub(crate) fn returns(region: &Region<'_, '_>, sig: &Signature) -> Option<String> {
    match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some(region.node_text(ty, MAX_TYPE_CHARS)),
    }
}

/// `pub`, `pub(crate)`, `pub(in path)`; `None` for inherited (private)
/// visibility.
pub(crate) fn visibility(region: &Region<'_, '_>, vis: &Visibility) -> Option<String> {
    match vis {
        Visibility::Inherited => None,
        other => Some(region.node_text(other, MAX_TYPE_CHARS)),
    }
}

/// `pub const async unsafe extern "C" fn name<T>(a: A) -> R where …`.
pub(crate) fn fn_signature(
    region: &Region<'_, '_>,
    visibility: Option<&str>,
    sig: &Signature,
    type_params: &[TypeParameter],
    params: &[Parameter],
    returns: Option<&str>,
) -> String {
    let mut out = String::new();
    if let Some(vis) = visibility {
        out.push_str(vis);
        out.push(' ');
    }
    if sig.constness.is_some() {
        out.push_str("const ");
    }
    if sig.asyncness.is_some() {
        out.push_str("async ");
    }
    match sig.safety {
        syn::Safety::Unsafe(_) => out.push_str("unsafe "),
        syn::Safety::Safe(_) => out.push_str("safe "),
        _ => {}
    }
    if let Some(abi) = &sig.abi {
        out.push_str(&region.node_text(abi, MAX_TYPE_CHARS));
        out.push(' ');
    }
    out.push_str("fn ");
    out.push_str(&sig.ident.to_string());
    out.push_str(&render_type_parameters(type_params));
    let items: Vec<String> = params
        .iter()
        .map(|p| match (&p.annotation, p.kind) {
            (Some(a), ParameterKind::Variadic) => format!("{}: {a}", p.name),
            (Some(a), _) => format!("{}: {a}", p.name),
            (None, _) => p.name.clone(),
        })
        .collect();
    out.push('(');
    out.push_str(&items.join(", "));
    out.push(')');
    if let Some(returns) = returns {
        out.push_str(" -> ");
        out.push_str(returns);
    }
    out.push_str(&where_clause(region, &sig.generics));
    truncate(&out, MAX_SIGNATURE_CHARS)
}
