//! Module-level imports and re-exports: `import … from "m"`, `import "m"`,
//! `import x = require("m")`, `export … from "m"`, `export * from "m"`.
//!
//! Mapped onto the core's import model: `module` is the specifier, a default
//! import is the name `default` with the local alias, a namespace import
//! (`* as ns`) is the name `*` with its alias.

use outline_core::{Import, ImportedName};
use swc_common::Span;
use swc_ecma_ast::{
    ExportSpecifier, ImportSpecifier, ModuleDecl, ModuleExportName, ModuleItem, Str, TsModuleRef,
};

use crate::source::Source;

fn specifier(source: &Source<'_>, s: &Str) -> String {
    let text = source.slice(s.span);
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
        let ModuleItem::ModuleDecl(decl) = item else {
            continue;
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
                            alias: n.imported.as_ref().map(|_| n.local.sym.to_string()),
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
                    i.alias = Some(e.id.sym.to_string());
                    out.push(i);
                }
            }
            _ => {}
        }
    }
    out
}
