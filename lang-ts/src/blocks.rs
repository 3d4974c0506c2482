//! Control-flow pseudo-symbols (the core policy in `outline_core::blocks`):
//! `if`/`else` chains, `for`, `for…in`, `for…of`, `while`, `do…while`,
//! `switch`, `try`, `with`. A block is named by its header (`for (const x of
//! xs)`), spans the whole statement (an `if` with its `else if`/`else` arms),
//! and holds the declarations inside it; a long block is split again.

use outline_core::blocks::{block_name, splits_body};
use outline_core::{Symbol, SymbolKind};
use swc_common::{Span, Spanned};
use swc_ecma_ast::Stmt;

use crate::source::prefix;
use crate::symbols::{Scope, Walker, mark_overloads};

/// The statement lists directly inside a control-flow statement, or `None`
/// when it is not one.
pub(crate) fn nested_bodies(stmt: &Stmt) -> Option<Vec<&[Stmt]>> {
    fn body(stmt: &Stmt) -> &[Stmt] {
        match stmt {
            Stmt::Block(b) => &b.stmts,
            other => std::slice::from_ref(other),
        }
    }
    Some(match stmt {
        Stmt::If(s) => {
            let mut bodies = vec![body(&s.cons)];
            let mut alt = s.alt.as_deref();
            while let Some(next) = alt {
                match next {
                    Stmt::If(elif) => {
                        bodies.push(body(&elif.cons));
                        alt = elif.alt.as_deref();
                    }
                    other => {
                        bodies.push(body(other));
                        alt = None;
                    }
                }
            }
            bodies
        }
        Stmt::For(s) => vec![body(&s.body)],
        Stmt::ForIn(s) => vec![body(&s.body)],
        Stmt::ForOf(s) => vec![body(&s.body)],
        Stmt::While(s) => vec![body(&s.body)],
        Stmt::DoWhile(s) => vec![body(&s.body)],
        Stmt::With(s) => vec![body(&s.body)],
        Stmt::Switch(s) => s.cases.iter().map(|c| &c.cons[..]).collect(),
        Stmt::Try(s) => {
            let mut bodies = vec![&s.block.stmts[..]];
            if let Some(handler) = &s.handler {
                bodies.push(&handler.body.stmts);
            }
            if let Some(finalizer) = &s.finalizer {
                bodies.push(&finalizer.stmts);
            }
            bodies
        }
        _ => return None,
    })
}

/// Where a statement's header ends (the start of its body).
fn header_end(stmt: &Stmt) -> Option<Span> {
    Some(match stmt {
        Stmt::If(s) => s.cons.span(),
        Stmt::For(s) => s.body.span(),
        Stmt::ForIn(s) => s.body.span(),
        Stmt::ForOf(s) => s.body.span(),
        Stmt::While(s) => s.body.span(),
        Stmt::With(s) => s.body.span(),
        Stmt::Switch(s) => {
            let end = s.discriminant.span().hi;
            return Some(Span::new(end, end));
        }
        _ => return None,
    })
}

impl Walker<'_, '_> {
    /// The block symbol of a control-flow statement, with the declarations
    /// (and, when it is long, the blocks) inside it.
    pub(crate) fn block(&self, stmt: &Stmt, scope: Scope, bodies: &[&[Stmt]]) -> Symbol {
        let source = self.source;
        let span = stmt.span();
        let header = match (stmt, header_end(stmt)) {
            (Stmt::Switch(_), Some(end)) => format!("{})", source.slice(span.with_hi(end.lo))),
            (_, Some(body)) => source.slice(span.with_hi(body.lo)).to_owned(),
            (Stmt::DoWhile(_), None) => "do".to_owned(),
            (Stmt::Try(_), None) => "try".to_owned(),
            _ => String::new(),
        };
        let header = prefix(&header, 1024);
        let start_line = source.line(span.lo);
        let end_line = source.end_line(span).max(start_line);
        let mut block = Symbol::new(block_name(header), SymbolKind::Block, start_line, end_line);
        block.name_column = source.column(span.lo);
        let split = scope == Scope::Module
            || splits_body(start_line, end_line, self.options.block_threshold);
        for body in bodies {
            for s in *body {
                self.stmt(s, scope, split, &mut block.children);
            }
        }
        mark_overloads(&mut block.children);
        block
    }
}
