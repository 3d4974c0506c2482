//! Parameters, type parameters and one-line signatures of Python definitions.
//!
//! Parameter kinds follow the language reference and `inspect.Parameter`
//! (positional-only per PEP 570, keyword-only per PEP 3102); type parameters
//! follow PEP 695 (`T: bound`, `*Ts`, `**P`) with PEP 696 defaults. Signatures
//! are written in PEP 8 style: `name=default` without an annotation,
//! `name: ann = default` with one.

use outline_core::text::{MAX_TYPE_CHARS, MAX_VALUE_CHARS};
use outline_core::{Parameter, ParameterKind, TypeParameter, TypeParameterKind};
use ruff_python_ast::{self as ast, Expr};

use crate::source::Source;

/// The parameters of `parameters`, in order. With `receiver`, the first
/// parameter, when it is positional-or-keyword, is the method's receiver
/// (`self`/`cls`).
pub(crate) fn parameters(
    source: &Source<'_>,
    parameters: &ast::Parameters,
    receiver: bool,
) -> Vec<Parameter> {
    let annotation = |p: &ast::Parameter| {
        p.annotation
            .as_deref()
            .map(|a| source.one_line(a, MAX_TYPE_CHARS))
    };
    let with_default = |p: &ast::ParameterWithDefault, kind| Parameter {
        name: p.parameter.name.id.to_string(),
        kind,
        annotation: annotation(&p.parameter),
        default: p
            .default
            .as_deref()
            .map(|d| source.one_line(d, MAX_VALUE_CHARS)),
        optional: false,
    };
    let variadic = |p: &ast::Parameter, kind| Parameter {
        name: p.name.id.to_string(),
        kind,
        annotation: annotation(p),
        default: None,
        optional: false,
    };

    let mut out = Vec::new();
    out.extend(
        parameters
            .posonlyargs
            .iter()
            .map(|p| with_default(p, ParameterKind::PositionalOnly)),
    );
    out.extend(
        parameters
            .args
            .iter()
            .map(|p| with_default(p, ParameterKind::PositionalOrKeyword)),
    );
    // A receiver declared positional-only (`def m(self, /)`) keeps that kind, so
    // the `/` can be put back in the signature.
    if receiver
        && let Some(first) = out.first_mut()
        && first.kind == ParameterKind::PositionalOrKeyword
    {
        first.kind = ParameterKind::SelfParam;
    }
    out.extend(
        parameters
            .vararg
            .as_deref()
            .map(|p| variadic(p, ParameterKind::Variadic)),
    );
    out.extend(
        parameters
            .kwonlyargs
            .iter()
            .map(|p| with_default(p, ParameterKind::KeywordOnly)),
    );
    out.extend(
        parameters
            .kwarg
            .as_deref()
            .map(|p| variadic(p, ParameterKind::VariadicKeyword)),
    );
    out
}

/// PEP 695 type parameters.
pub(crate) fn type_parameters(
    source: &Source<'_>,
    type_params: Option<&ast::TypeParams>,
) -> Vec<TypeParameter> {
    let Some(type_params) = type_params else {
        return Vec::new();
    };
    let text = |e: &Expr| source.one_line(e, MAX_TYPE_CHARS);
    type_params
        .iter()
        .map(|tp| match tp {
            ast::TypeParam::TypeVar(tv) => TypeParameter {
                name: tv.name.id.to_string(),
                kind: TypeParameterKind::Type,
                bound: tv.bound.as_deref().map(text),
                default: tv.default.as_deref().map(text),
            },
            ast::TypeParam::TypeVarTuple(tv) => TypeParameter {
                name: tv.name.id.to_string(),
                kind: TypeParameterKind::TypeVarTuple,
                bound: None,
                default: tv.default.as_deref().map(text),
            },
            ast::TypeParam::ParamSpec(ps) => TypeParameter {
                name: ps.name.id.to_string(),
                kind: TypeParameterKind::ParamSpec,
                bound: None,
                default: ps.default.as_deref().map(text),
            },
        })
        .collect()
}

/// `[T: bound, *Ts, **P = default]`, or the empty string when there are none.
pub(crate) fn render_type_parameters(type_parameters: &[TypeParameter]) -> String {
    if type_parameters.is_empty() {
        return String::new();
    }
    let items: Vec<String> = type_parameters
        .iter()
        .map(|tp| {
            let sigil = match tp.kind {
                TypeParameterKind::TypeVarTuple => "*",
                TypeParameterKind::ParamSpec => "**",
                _ => "",
            };
            let mut item = format!("{sigil}{}", tp.name);
            if let Some(bound) = &tp.bound {
                item.push_str(": ");
                item.push_str(bound);
            }
            if let Some(default) = &tp.default {
                item.push_str(" = ");
                item.push_str(default);
            }
            item
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// `(a, /, b: int = 1, *args, c, **kw)`: parameters in PEP 8 style, with the `/`
/// and bare `*` separators put back where the kinds change.
pub(crate) fn render_parameters(parameters: &[Parameter]) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut seen_variadic = false;
    for (i, p) in parameters.iter().enumerate() {
        if p.kind == ParameterKind::KeywordOnly && !seen_variadic {
            items.push("*".to_owned());
            seen_variadic = true;
        }
        let sigil = match p.kind {
            ParameterKind::Variadic => {
                seen_variadic = true;
                "*"
            }
            ParameterKind::VariadicKeyword => "**",
            _ => "",
        };
        let mut item = format!("{sigil}{}", p.name);
        match (&p.annotation, &p.default) {
            (Some(annotation), Some(default)) => {
                item.push_str(&format!(": {annotation} = {default}"));
            }
            (Some(annotation), None) => item.push_str(&format!(": {annotation}")),
            (None, Some(default)) => item.push_str(&format!("={default}")),
            (None, None) => {}
        }
        items.push(item);
        let positional_only_ends =
            is_positional_only(p) && !parameters.get(i + 1).is_some_and(is_positional_only);
        if positional_only_ends {
            items.push("/".to_owned());
        }
    }
    format!("({})", items.join(", "))
}

fn is_positional_only(p: &Parameter) -> bool {
    p.kind == ParameterKind::PositionalOnly
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(
        name: &str,
        kind: ParameterKind,
        annotation: Option<&str>,
        default: Option<&str>,
    ) -> Parameter {
        Parameter {
            name: name.into(),
            kind,
            annotation: annotation.map(Into::into),
            default: default.map(Into::into),
            optional: false,
        }
    }

    #[test]
    fn separators_are_put_back() {
        use ParameterKind::*;
        let params = [
            param("a", PositionalOnly, None, None),
            param("b", PositionalOrKeyword, Some("int"), Some("1")),
            param("c", KeywordOnly, None, Some("()")),
            param("kw", VariadicKeyword, None, None),
        ];
        assert_eq!(
            render_parameters(&params),
            "(a, /, b: int = 1, *, c=(), **kw)"
        );
        let params = [
            param("args", Variadic, Some("*Ts"), None),
            param("c", KeywordOnly, None, None),
        ];
        assert_eq!(render_parameters(&params), "(*args: *Ts, c)");
    }
}
