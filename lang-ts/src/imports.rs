//! Module-level imports and re-exports: `import … from "m"`, `import "m"`,
//! `import x = require("m")`, `export … from "m"`, `export * from "m"`, and
//! CommonJS `const x = require("m")` / `const { a, b: c } = require("m")`.
//!
//! Mapped onto the core's import model: `module` is the specifier, a default
//! import is the name `default` with the local alias, a namespace import
//! (`* as ns`) is the name `*` with its alias.

use outline_core::{Import, ImportedName};
use swc_common::Span;
use swc_ecma_ast::{
    Callee, Decl, ExportSpecifier, Expr, ImportSpecifier, Lit, ModuleDecl, ModuleExportName,
    ModuleItem, ObjectPatProp, Pat, PropName, Stmt, Str, TsModuleRef, VarDeclarator,
};

use crate::source::Source;

pub(crate) fn specifier(source: &Source<'_>, s: &Str) -> String {
    specifier_at(source, s.span)
}

/// The specifier a string or template literal at `span` writes between
/// its quotes.
fn specifier_at(source: &Source<'_>, span: Span) -> String {
    let text = source.slice(span);
    text.get(1..text.len().saturating_sub(1))
        .unwrap_or(text)
        .to_owned()
}

fn export_name(name: &ModuleExportName) -> String {
    match name {
        ModuleExportName::Ident(i) => i.sym.to_string(),
        ModuleExportName::Str(s) => s.value.to_string_lossy().into_owned(),
    }
}

fn import(source: &Source<'_>, span: Span, module: String, names: Vec<ImportedName>) -> Import {
    Import {
        line: source.line(span.lo),
        end_line: source.end_line(span),
        module: Some(module),
        level: 0,
        alias: None,
        names,
    }
}

/// Imports and re-exports of the module items, in source order.
pub(crate) fn module_imports(source: &Source<'_>, items: &[ModuleItem]) -> Vec<Import> {
    let mut out = Vec::new();
    for item in items {
        let decl = match item {
            ModuleItem::ModuleDecl(decl) => decl,
            ModuleItem::Stmt(Stmt::Decl(Decl::Var(var))) => {
                for declarator in &var.decls {
                    out.extend(require(source, var.span, declarator));
                }
                continue;
            }
            ModuleItem::Stmt(_) => continue,
        };
        match decl {
            ModuleDecl::Import(i) => {
                let names = i
                    .specifiers
                    .iter()
                    .map(|s| match s {
                        ImportSpecifier::Named(n) => ImportedName {
                            name: n
                                .imported
                                .as_ref()
                                .map_or_else(|| n.local.sym.to_string(), export_name),
                            // `{ a as a }` has no alias worth showing.
                            alias: n.imported.as_ref().map(|_| n.local.sym.to_string()).filter(
                                |local| {
                                    n.imported.as_ref().map(export_name).as_ref() != Some(local)
                                },
                            ),
                        },
                        ImportSpecifier::Default(d) => ImportedName {
                            name: "default".to_owned(),
                            alias: Some(d.local.sym.to_string()),
                        },
                        ImportSpecifier::Namespace(n) => ImportedName {
                            name: "*".to_owned(),
                            alias: Some(n.local.sym.to_string()),
                        },
                    })
                    .collect();
                out.push(import(source, i.span, specifier(source, &i.src), names));
            }
            ModuleDecl::ExportAll(e) => out.push(import(
                source,
                e.span,
                specifier(source, &e.src),
                vec![ImportedName {
                    name: "*".to_owned(),
                    alias: None,
                }],
            )),
            ModuleDecl::ExportNamed(e) => {
                let Some(src) = &e.src else {
                    continue;
                };
                let names = e
                    .specifiers
                    .iter()
                    .map(|s| match s {
                        ExportSpecifier::Named(n) => ImportedName {
                            name: export_name(&n.orig),
                            alias: n.exported.as_ref().map(export_name),
                        },
                        ExportSpecifier::Namespace(n) => ImportedName {
                            name: "*".to_owned(),
                            alias: Some(export_name(&n.name)),
                        },
                        ExportSpecifier::Default(d) => ImportedName {
                            name: "default".to_owned(),
                            alias: Some(d.exported.sym.to_string()),
                        },
                    })
                    .collect();
                out.push(import(source, e.span, specifier(source, src), names));
            }
            ModuleDecl::TsImportEquals(e) => {
                if let TsModuleRef::TsExternalModuleRef(r) = &e.module_ref {
                    let mut i = import(source, e.span, specifier(source, &r.expr), Vec::new());
                    i.alias =
                        Some(e.id.sym.to_string()).filter(|local| i.module.as_ref() != Some(local));
                    out.push(i);
                }
            }
            _ => {}
        }
    }
    out
}

/// The module of `require("m")` (parentheses and type wrappers looked through).
pub(crate) fn required_module(expr: &Expr) -> Option<Span> {
    let Expr::Call(call) = crate::symbols::unwrap(expr) else {
        return None;
    };
    let Callee::Expr(callee) = &call.callee else {
        return None;
    };
    let (Expr::Ident(name), [arg]) = (&**callee, &call.args[..]) else {
        return None;
    };
    if &*name.sym != "require" || arg.spread.is_some() {
        return None;
    }
    match &*arg.expr {
        Expr::Lit(Lit::Str(s)) => Some(s.span),
        // ``require(`m`)``: a template without substitutions is a literal.
        Expr::Tpl(t) if t.exprs.is_empty() => Some(t.span),
        _ => None,
    }
}

/// `const x = require("m")` as `m as x` (just `m` when `x` is `m`); `const { a, b: c } = require("m")`
/// as `m.{a, b as c}`.
fn require(source: &Source<'_>, span: Span, declarator: &VarDeclarator) -> Option<Import> {
    let module = required_module(declarator.init.as_deref()?)?;
    let mut import = import(source, span, specifier_at(source, module), Vec::new());
    match &declarator.name {
        // `var m = require("m")`: the local name is the module's, no alias.
        Pat::Ident(b) => {
            import.alias =
                Some(b.id.sym.to_string()).filter(|local| import.module.as_ref() != Some(local));
        }
        Pat::Object(o) => {
            for prop in &o.props {
                match prop {
                    ObjectPatProp::Assign(a) => import.names.push(ImportedName {
                        name: a.key.sym.to_string(),
                        alias: None,
                    }),
                    ObjectPatProp::KeyValue(kv) => {
                        let (PropName::Ident(key), Pat::Ident(local)) = (&kv.key, &*kv.value)
                        else {
                            continue;
                        };
                        import.names.push(ImportedName {
                            name: key.sym.to_string(),
                            alias: Some(local.id.sym.to_string())
                                .filter(|local| *local != *key.sym),
                        });
                    }
                    ObjectPatProp::Rest(_) => {}
                }
            }
        }
        _ => {}
    }
    Some(import)
}
