//! TypeScript types and JavaScript expressions as the resolver follows
//! them: [`TypeExpr`] for a type as written (TypeScript handbook, "Everyday
//! Types", "Object Types", "Generics", "Indexed Access Types") and
//! [`Value`] for an expression whose type another file's declarations give.

use outline_core::xref::{MAX_RECEIVER_PARTS, Param, TypeExpr, Value};
use swc_ecma_ast::{
    BinaryOp, Expr, Lit, MemberProp, OptChainBase, Pat, PropName, TsEntityName,
    TsFnOrConstructorType, TsFnParam, TsKeywordTypeKind, TsLit, TsType, TsTypeElement,
    TsTypeOperatorOp, TsTypeQueryExpr, TsUnionOrIntersectionType,
};

/// Deepest type or expression converted; deeper ones are unknown (the
/// conversion recurses once per level).
const MAX_DEPTH: usize = 64;

/// The type `ty` writes.
pub(crate) fn ts_type(ty: &TsType) -> TypeExpr {
    type_at(ty, 0)
}

fn entity_path(name: &TsEntityName) -> Vec<String> {
    match name {
        TsEntityName::Ident(i) => vec![i.sym.to_string()],
        TsEntityName::TsQualifiedName(q) => {
            let mut out = entity_path(&q.left);
            out.push(q.right.sym.to_string());
            out
        }
    }
}

fn type_at(ty: &TsType, depth: usize) -> TypeExpr {
    if depth > MAX_DEPTH {
        return TypeExpr::Unknown;
    }
    let next = depth + 1;
    match ty {
        TsType::TsTypeRef(r) => TypeExpr::Named {
            path: entity_path(&r.type_name),
            args: r
                .type_params
                .as_ref()
                .map(|args| args.params.iter().map(|t| type_at(t, next)).collect())
                .unwrap_or_default(),
        },
        TsType::TsArrayType(a) => TypeExpr::Array(Box::new(type_at(&a.elem_type, next))),
        TsType::TsTypeOperator(o) if o.op == TsTypeOperatorOp::ReadOnly => {
            type_at(&o.type_ann, next)
        }
        TsType::TsParenthesizedType(p) => type_at(&p.type_ann, next),
        TsType::TsOptionalType(o) => type_at(&o.type_ann, next),
        TsType::TsUnionOrIntersectionType(u) => {
            let types = match u {
                TsUnionOrIntersectionType::TsUnionType(u) => &u.types,
                TsUnionOrIntersectionType::TsIntersectionType(i) => &i.types,
            };
            let mut members = Vec::new();
            for t in types {
                match type_at(t, next) {
                    TypeExpr::Unknown => {}
                    TypeExpr::Union(more) => members.extend(more),
                    other => members.push(other),
                }
            }
            match members.len() {
                0 => TypeExpr::Unknown,
                1 => members.pop().unwrap_or(TypeExpr::Unknown),
                _ => TypeExpr::Union(members),
            }
        }
        TsType::TsFnOrConstructorType(f) => {
            let (params, ret) = match f {
                TsFnOrConstructorType::TsFnType(f) => (&f.params, &f.type_ann.type_ann),
                TsFnOrConstructorType::TsConstructorType(c) => (&c.params, &c.type_ann.type_ann),
            };
            TypeExpr::Function {
                params: params
                    .iter()
                    .map(|p| fn_param(p, next).ty.unwrap_or(TypeExpr::Unknown))
                    .collect(),
                ret: Box::new(type_at(ret, next)),
            }
        }
        TsType::TsTypeLit(lit) => TypeExpr::Object(
            lit.members
                .iter()
                .filter_map(|m| type_element(m, next))
                .collect(),
        ),
        TsType::TsThisType(_) => TypeExpr::This,
        TsType::TsTypeQuery(q) => match &q.expr_name {
            TsTypeQueryExpr::TsEntityName(name) => {
                TypeExpr::TypeOf(Box::new(Value::Path(entity_path(name))))
            }
            TsTypeQueryExpr::Import(_) => TypeExpr::Unknown,
        },
        TsType::TsIndexedAccessType(i) => match &*i.index_type {
            TsType::TsLitType(lit) => match &lit.lit {
                TsLit::Str(s) => TypeExpr::Indexed(
                    Box::new(type_at(&i.obj_type, next)),
                    s.value.to_string_lossy().into_owned(),
                ),
                _ => TypeExpr::Unknown,
            },
            // `T[number]`: an element.
            TsType::TsKeywordType(k) if k.kind == TsKeywordTypeKind::TsNumberKeyword => {
                TypeExpr::Indexed(Box::new(type_at(&i.obj_type, next)), "[]".to_owned())
            }
            _ => TypeExpr::Unknown,
        },
        TsType::TsTupleType(t) => {
            TypeExpr::Tuple(t.elem_types.iter().map(|e| type_at(&e.ty, next)).collect())
        }
        // `C extends E ? T : F`: either branch (a distributive conditional
        // keeps the members that pass; their declarations are the ones
        // find-references reports).
        TsType::TsConditionalType(c) => {
            let mut members = Vec::new();
            for t in [&*c.true_type, &*c.false_type] {
                match type_at(t, next) {
                    TypeExpr::Unknown => {}
                    TypeExpr::Union(more) => members.extend(more),
                    other => members.push(other),
                }
            }
            match members.len() {
                0 => TypeExpr::Unknown,
                1 => members.pop().unwrap_or(TypeExpr::Unknown),
                _ => TypeExpr::Union(members),
            }
        }
        // `{ [K in keyof T]: … }` without key remapping: a homomorphic
        // mapped type keeps `T`'s members (and their declarations).
        TsType::TsMappedType(m) if m.name_type.is_none() => {
            match m.type_param.constraint.as_deref() {
                Some(TsType::TsTypeOperator(o)) if o.op == TsTypeOperatorOp::KeyOf => {
                    type_at(&o.type_ann, next)
                }
                _ => TypeExpr::Unknown,
            }
        }
        // A primitive's members are the global interface's (`string` has
        // `String`'s methods): outside the project.
        TsType::TsKeywordType(k) => match k.kind {
            TsKeywordTypeKind::TsStringKeyword => TypeExpr::named(vec!["String".to_owned()]),
            TsKeywordTypeKind::TsNumberKeyword => TypeExpr::named(vec!["Number".to_owned()]),
            TsKeywordTypeKind::TsBooleanKeyword => TypeExpr::named(vec!["Boolean".to_owned()]),
            TsKeywordTypeKind::TsBigIntKeyword => TypeExpr::named(vec!["BigInt".to_owned()]),
            TsKeywordTypeKind::TsSymbolKeyword => TypeExpr::named(vec!["Symbol".to_owned()]),
            _ => TypeExpr::Unknown,
        },
        _ => TypeExpr::Unknown,
    }
}

/// The value of the member expression `obj.prop` (an assignment's target).
pub(crate) fn member_value(obj: &Expr, prop: &MemberProp) -> Option<Value> {
    let object = Box::new(value_at(obj, 1)?);
    Some(match prop {
        MemberProp::Ident(name) => Value::Member(object, name.sym.to_string()),
        MemberProp::Computed(c) => match &*c.expr {
            Expr::Lit(Lit::Str(s)) => Value::Member(object, s.value.to_string_lossy().into_owned()),
            _ => Value::Element(object),
        },
        MemberProp::PrivateName(_) => return None,
    })
}

/// A member of an object type literal or interface body as (name, type);
/// a method is a function type. `None` for computed keys, index and call
/// signatures.
fn type_element(member: &TsTypeElement, depth: usize) -> Option<(String, TypeExpr)> {
    match member {
        TsTypeElement::TsPropertySignature(p) if !p.computed => {
            let name = key_name(&p.key)?;
            let ty = p
                .type_ann
                .as_ref()
                .map_or(TypeExpr::Unknown, |t| type_at(&t.type_ann, depth));
            Some((name, ty))
        }
        TsTypeElement::TsMethodSignature(m) if !m.computed => {
            let name = key_name(&m.key)?;
            Some((
                name,
                TypeExpr::Function {
                    params: m
                        .params
                        .iter()
                        .map(|p| fn_param(p, depth).ty.unwrap_or(TypeExpr::Unknown))
                        .collect(),
                    ret: Box::new(
                        m.type_ann
                            .as_ref()
                            .map_or(TypeExpr::Unknown, |t| type_at(&t.type_ann, depth)),
                    ),
                },
            ))
        }
        TsTypeElement::TsGetterSignature(g) if !g.computed => {
            let name = key_name(&g.key)?;
            let ty = g
                .type_ann
                .as_ref()
                .map_or(TypeExpr::Unknown, |t| type_at(&t.type_ann, depth));
            Some((name, ty))
        }
        _ => None,
    }
}

/// The name of a signature's key: an identifier or a string.
fn key_name(key: &Expr) -> Option<String> {
    match key {
        Expr::Ident(i) => Some(i.sym.to_string()),
        Expr::Lit(Lit::Str(s)) => Some(s.value.to_string_lossy().into_owned()),
        _ => None,
    }
}

/// A parameter of a function type or signature.
pub(crate) fn fn_param(param: &TsFnParam, depth: usize) -> Param {
    let (name, ann, optional) = match param {
        TsFnParam::Ident(b) => (b.id.sym.to_string(), b.type_ann.as_deref(), b.id.optional),
        TsFnParam::Rest(r) => (String::new(), r.type_ann.as_deref(), true),
        TsFnParam::Object(o) => (String::new(), o.type_ann.as_deref(), o.optional),
        TsFnParam::Array(a) => (String::new(), a.type_ann.as_deref(), a.optional),
    };
    Param {
        name,
        ty: ann.map(|t| type_at(&t.type_ann, depth)),
        optional,
    }
}

/// A parameter of a function or arrow.
pub(crate) fn pat_param(pat: &Pat) -> Param {
    match pat {
        Pat::Ident(b) => Param {
            name: b.id.sym.to_string(),
            ty: b.type_ann.as_ref().map(|t| ts_type(&t.type_ann)),
            optional: b.id.optional,
        },
        Pat::Assign(a) => Param {
            optional: true,
            ..pat_param(&a.left)
        },
        Pat::Rest(r) => Param {
            name: String::new(),
            ty: r.type_ann.as_ref().map(|t| ts_type(&t.type_ann)),
            optional: true,
        },
        Pat::Object(o) => Param {
            name: String::new(),
            ty: o.type_ann.as_ref().map(|t| ts_type(&t.type_ann)),
            optional: o.optional,
        },
        Pat::Array(a) => Param {
            name: String::new(),
            ty: a.type_ann.as_ref().map(|t| ts_type(&t.type_ann)),
            optional: a.optional,
        },
        _ => Param {
            name: String::new(),
            ty: None,
            optional: false,
        },
    }
}

/// The value `expr` gives, as the resolver follows it: names, `this`,
/// members, calls and `new` (with their number of arguments), elements,
/// `await`, casts (`x as T`, `<T>x`), `a ?? b`, `a || b`, `c ? a : b`;
/// `None` for anything else.
pub(crate) fn value_of(expr: &Expr) -> Option<Value> {
    value_at(expr, 0)
}

/// The dotted chain of `expr` (`a.b.c`, `this.x`), when it is one.
fn dotted(expr: &Expr) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = expr;
    loop {
        if parts.len() > MAX_RECEIVER_PARTS {
            return None;
        }
        match current {
            Expr::Ident(i) => {
                parts.push(i.sym.to_string());
                break;
            }
            Expr::This(_) => {
                parts.push("this".to_owned());
                break;
            }
            Expr::Paren(p) => current = &p.expr,
            Expr::TsNonNull(n) => current = &n.expr,
            Expr::Member(m) => {
                let MemberProp::Ident(name) = &m.prop else {
                    return None;
                };
                parts.push(name.sym.to_string());
                current = &m.obj;
            }
            Expr::OptChain(o) => match &*o.base {
                OptChainBase::Member(m) => {
                    let MemberProp::Ident(name) = &m.prop else {
                        return None;
                    };
                    parts.push(name.sym.to_string());
                    current = &m.obj;
                }
                OptChainBase::Call(_) => return None,
            },
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts)
}

fn value_at(expr: &Expr, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let next = depth + 1;
    if let Some(path) = dotted(expr) {
        return Some(Value::Path(path));
    }
    let member = |obj: &Expr, prop: &MemberProp| -> Option<Value> {
        let object = Box::new(value_at(obj, next)?);
        Some(match prop {
            MemberProp::Ident(name) => Value::Member(object, name.sym.to_string()),
            MemberProp::Computed(c) => match &*c.expr {
                Expr::Lit(Lit::Str(s)) => {
                    Value::Member(object, s.value.to_string_lossy().into_owned())
                }
                _ => Value::Element(object),
            },
            MemberProp::PrivateName(_) => return None,
        })
    };
    let call = |callee: &Expr, args: usize| -> Option<Value> {
        Some(Value::Call {
            callee: Box::new(value_at(callee, next)?),
            args: u32::try_from(args).unwrap_or(u32::MAX),
        })
    };
    match expr {
        Expr::Paren(p) => value_at(&p.expr, next),
        Expr::TsNonNull(n) => value_at(&n.expr, next),
        Expr::TsConstAssertion(c) => value_at(&c.expr, next),
        Expr::TsSatisfies(s) => value_at(&s.expr, next),
        Expr::TsAs(a) => Some(Value::Typed(ts_type(&a.type_ann))),
        Expr::TsTypeAssertion(a) => Some(Value::Typed(ts_type(&a.type_ann))),
        Expr::Member(m) => member(&m.obj, &m.prop),
        Expr::Call(c) => match &c.callee {
            swc_ecma_ast::Callee::Expr(callee) => call(callee, c.args.len()),
            _ => None,
        },
        Expr::New(n) => call(&n.callee, n.args.as_ref().map_or(0, Vec::len)),
        Expr::OptChain(o) => match &*o.base {
            OptChainBase::Member(m) => member(&m.obj, &m.prop),
            OptChainBase::Call(c) => call(&c.callee, c.args.len()),
        },
        Expr::Await(a) => Some(Value::Await(Box::new(value_at(&a.arg, next)?))),
        Expr::Bin(b) if matches!(b.op, BinaryOp::NullishCoalescing | BinaryOp::LogicalOr) => {
            let values: Vec<Value> = [&*b.left, &*b.right]
                .into_iter()
                .filter_map(|e| value_at(e, next))
                .collect();
            (!values.is_empty()).then_some(Value::Either(values))
        }
        Expr::Cond(c) => {
            let values: Vec<Value> = [&*c.cons, &*c.alt]
                .into_iter()
                .filter_map(|e| value_at(e, next))
                .collect();
            (!values.is_empty()).then_some(Value::Either(values))
        }
        Expr::Seq(s) => value_at(s.exprs.last()?, next),
        Expr::Assign(a) => value_at(&a.right, next),
        _ => None,
    }
}

/// The name of an object literal's key when it is a plain name or string.
pub(crate) fn prop_name(key: &PropName) -> Option<String> {
    match key {
        PropName::Ident(i) => Some(i.sym.to_string()),
        PropName::Str(s) => Some(s.value.to_string_lossy().into_owned()),
        _ => None,
    }
}
