//! Python annotations and expressions as the resolver follows them:
//! [`TypeExpr`] for a type as written (typing docs: "Type expressions";
//! PEP 604 unions, PEP 484 forward references in strings) and [`Value`] for
//! an expression whose type another file's definitions give (a call, an
//! attribute, an element, an `await`).

use outline_core::xref::{MAX_RECEIVER_PARTS, TypeExpr, Value};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

/// Deepest expression turned into a [`TypeExpr`] or [`Value`]; deeper ones
/// are unknown (the conversion recurses once per level).
const MAX_DEPTH: usize = 64;

/// The type an annotation writes: `User`, `m.User`, `list[User]`,
/// `Optional[User]`, `User | None`, `Callable[[A], R]`, `"User"` (a
/// forward reference), `Annotated[User, …]`; [`TypeExpr::Unknown`] for
/// anything else (`None` itself, literals).
pub(crate) fn annotation_type(expr: &Expr) -> TypeExpr {
    annotation_at(expr, 0)
}

fn annotation_at(expr: &Expr, depth: usize) -> TypeExpr {
    if depth > MAX_DEPTH {
        return TypeExpr::Unknown;
    }
    let next = depth + 1;
    match expr {
        Expr::Name(_) | Expr::Attribute(_) => match crate::references::dotted(expr) {
            Some(path) if path.last().is_some_and(|n| n == "Self") => TypeExpr::This,
            Some(path) => TypeExpr::named(path),
            None => TypeExpr::Unknown,
        },
        Expr::StringLiteral(s) => match ruff_python_parser::parse_expression(s.value.to_str()) {
            Ok(parsed) => annotation_at(parsed.expr(), next),
            Err(_) => TypeExpr::Unknown,
        },
        Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
            let mut members = Vec::new();
            for side in [&*b.left, &*b.right] {
                match annotation_at(side, next) {
                    TypeExpr::Union(more) => members.extend(more),
                    TypeExpr::Unknown => {}
                    other => members.push(other),
                }
            }
            union(members)
        }
        Expr::Subscript(s) => {
            let Some(path) = crate::references::dotted(&s.value) else {
                return TypeExpr::Unknown;
            };
            let last = path.last().map(String::as_str).unwrap_or_default();
            let elements: Vec<&Expr> = match &*s.slice {
                Expr::Tuple(t) => t.elts.iter().collect(),
                other => vec![other],
            };
            match last {
                "Literal" => TypeExpr::Unknown,
                "Annotated" | "Optional" | "Final" | "ClassVar" | "Required" | "NotRequired"
                | "ReadOnly" => elements
                    .first()
                    .map_or(TypeExpr::Unknown, |e| annotation_at(e, next)),
                "Union" => union(
                    elements
                        .iter()
                        .map(|e| annotation_at(e, next))
                        .filter(|t| *t != TypeExpr::Unknown)
                        .collect(),
                ),
                "Callable" => {
                    let params = match elements.first() {
                        Some(Expr::List(l)) => {
                            l.elts.iter().map(|e| annotation_at(e, next)).collect()
                        }
                        _ => Vec::new(),
                    };
                    let ret = elements
                        .get(1)
                        .map_or(TypeExpr::Unknown, |e| annotation_at(e, next));
                    TypeExpr::Function {
                        params,
                        ret: Box::new(ret),
                    }
                }
                // `tuple[User, ...]`: a collection of users.
                "tuple" | "Tuple" => {
                    if matches!(elements.get(1), Some(Expr::EllipsisLiteral(_))) {
                        let element = elements
                            .first()
                            .map_or(TypeExpr::Unknown, |e| annotation_at(e, next));
                        TypeExpr::Named {
                            path: vec!["list".to_owned()],
                            args: vec![element],
                        }
                    } else {
                        TypeExpr::Tuple(elements.iter().map(|e| annotation_at(e, next)).collect())
                    }
                }
                _ => TypeExpr::Named {
                    path,
                    args: elements.iter().map(|e| annotation_at(e, next)).collect(),
                },
            }
        }
        _ => TypeExpr::Unknown,
    }
}

/// `members` as one type: unknown when empty, the member itself when one.
fn union(mut members: Vec<TypeExpr>) -> TypeExpr {
    match members.len() {
        0 => TypeExpr::Unknown,
        1 => members.pop().unwrap_or(TypeExpr::Unknown),
        _ => TypeExpr::Union(members),
    }
}

/// The value an expression gives, as the resolver follows it: names and
/// attributes, calls (with their number of positional arguments), elements
/// (`xs[0]`), `await`, `cast(T, x)`, `a or b`, `a if c else b`, `(x :=
/// v)`; `None` for anything else (literals, operators, lambdas).
pub(crate) fn value_of(expr: &Expr) -> Option<Value> {
    value_at(expr, 0)
}

fn value_at(expr: &Expr, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let next = depth + 1;
    Some(match expr {
        Expr::Name(n) => Value::Path(vec![n.id.to_string()]),
        Expr::Attribute(a) => match crate::references::dotted(expr) {
            Some(path) if path.len() <= MAX_RECEIVER_PARTS => Value::Path(path),
            _ => Value::Member(Box::new(value_at(&a.value, next)?), a.attr.id.to_string()),
        },
        Expr::Call(call) => {
            let args = call.arguments.args.len();
            // `typing.cast(T, x)`: a value of type `T`.
            if crate::references::last_name(&call.func) == Some("cast")
                && let Some(first) = call.arguments.args.first()
            {
                return Some(Value::Typed(annotation_at(first, next)));
            }
            Value::Call {
                callee: Box::new(value_at(&call.func, next)?),
                args: u32::try_from(args).unwrap_or(u32::MAX),
            }
        }
        Expr::Subscript(s) => Value::Element(Box::new(value_at(&s.value, next)?)),
        Expr::Await(a) => Value::Await(Box::new(value_at(&a.value, next)?)),
        Expr::Named(n) => value_at(&n.value, next)?,
        Expr::BoolOp(b) => {
            let values: Vec<Value> = b.values.iter().filter_map(|v| value_at(v, next)).collect();
            if values.is_empty() {
                return None;
            }
            Value::Either(values)
        }
        Expr::If(i) => {
            let values: Vec<Value> = [&*i.body, &*i.orelse]
                .into_iter()
                .filter_map(|v| value_at(v, next))
                .collect();
            if values.is_empty() {
                return None;
            }
            Value::Either(values)
        }
        _ => return None,
    })
}

/// The value the function body `body` returns: the first `return` with a
/// value the resolver can follow, not looking into nested functions,
/// classes and lambdas; `None` for a generator (its `yield`s make its
/// result) or when no `return` gives such a value.
pub(crate) fn return_value(body: &[Stmt]) -> Option<Value> {
    let mut finder = Returns::default();
    finder.visit_body(body);
    if finder.generator {
        return None;
    }
    finder.found
}

#[derive(Default)]
struct Returns {
    found: Option<Value>,
    generator: bool,
    depth: usize,
}

impl<'a> Visitor<'a> for Returns {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            Stmt::Return(r) => {
                if self.found.is_none()
                    && let Some(value) = r.value.as_deref()
                {
                    self.found = value_of(value);
                }
                if let Some(value) = r.value.as_deref() {
                    self.visit_expr(value);
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match expr {
            Expr::Yield(_) | Expr::YieldFrom(_) => self.generator = true,
            Expr::Lambda(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
        self.depth -= 1;
    }
}
