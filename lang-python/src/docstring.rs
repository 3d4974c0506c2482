//! Docstrings: the first statement of a module, class or function body when it
//! is a string literal expression (implicitly concatenated parts included, f-strings
//! and bytes excluded), as CPython's `ast.get_docstring` reads it.

use outline_core::text::doc_first_line;
use ruff_python_ast::{Expr, Stmt};

/// The first line of the docstring of `body`, after `inspect.cleandoc`-style
/// trimming, or `None`.
pub(crate) fn docstring_first_line(body: &[Stmt]) -> Option<String> {
    let Some(Stmt::Expr(expr)) = body.first() else {
        return None;
    };
    let Expr::StringLiteral(literal) = expr.value.as_ref() else {
        return None;
    };
    doc_first_line(literal.value.to_str())
}
