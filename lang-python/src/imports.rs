//! Module-level imports: `import a.b as c` and `from ..x import y as z`,
//! including those inside module-level `if`/`try` blocks, never those inside
//! functions or classes.

use outline_core::{Import, ImportedName};
use ruff_python_ast::{self as ast, Stmt};

use crate::source::Source;

/// Imports of the module `body`, in source order.
pub(crate) fn module_imports(source: &Source<'_>, body: &[Stmt]) -> Vec<Import> {
    let mut out = Vec::new();
    collect(source, body, &mut out);
    out
}

fn collect(source: &Source<'_>, body: &[Stmt], out: &mut Vec<Import>) {
    for stmt in body {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    out.push(Import {
                        line: source.start_line(stmt),
                        end_line: source.end_line(stmt),
                        module: Some(alias.name.id.to_string()),
                        level: 0,
                        alias: alias.asname.as_ref().map(|a| a.id.to_string()),
                        names: Vec::new(),
                    });
                }
            }
            Stmt::ImportFrom(from) => out.push(Import {
                line: source.start_line(stmt),
                end_line: source.end_line(stmt),
                module: from
                    .module
                    .as_ref()
                    .filter(|m| !m.id.is_empty())
                    .map(|m| m.id.to_string()),
                level: from.level,
                alias: None,
                names: from
                    .names
                    .iter()
                    .map(|alias| ImportedName {
                        name: alias.name.id.to_string(),
                        alias: alias.asname.as_ref().map(|a| a.id.to_string()),
                    })
                    .collect(),
            }),
            Stmt::If(s) => {
                collect(source, &s.body, out);
                for clause in &s.elif_else_clauses {
                    collect(source, &clause.body, out);
                }
            }
            Stmt::Try(s) => {
                collect(source, &s.body, out);
                for ast::ExceptHandler::ExceptHandler(h) in &s.handlers {
                    collect(source, &h.body, out);
                }
                collect(source, &s.orelse, out);
                collect(source, &s.finalbody, out);
            }
            Stmt::With(s) => collect(source, &s.body, out),
            _ => {}
        }
    }
}
