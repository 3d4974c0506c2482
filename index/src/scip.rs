//! The index as a SCIP index (`ast-outline export --format scip`), the
//! protobuf format of Sourcegraph's code-intelligence tools
//! (<https://github.com/sourcegraph/scip>, `scip.proto`), so a server that
//! hosts SCIP indexes can serve this project's definitions, references and
//! implementations. Built with the `scip` crate's types and symbol
//! formatter from the same rows as the JSON export ([`Export`]).
//!
//! Mapping:
//! - one `Document` per indexed file (`relative_path`, `language` in SCIP's
//!   enum spelling), positions in UTF-32 code units (characters, which is
//!   what the index's columns count), 0-based as SCIP wants them;
//! - a symbol is `ast-outline . . . `PATH`/` followed by one descriptor per
//!   enclosing definition and its own (`Type#` for classes, interfaces,
//!   structs, enums, unions, traits and impls; `name().` for functions and
//!   methods; `name/` for modules; `name.` otherwise); a second definition
//!   with the same qualname in a file gets the method disambiguator `(+1)`;
//! - each definition gives a `Definition` occurrence on its name, with the
//!   whole definition as `enclosing_range`, and a `SymbolInformation` (kind,
//!   display name, and `is_implementation` relationships to its supertypes:
//!   Python bases, TypeScript `extends`/`implements`, Rust `impl Trait for`);
//! - each resolved reference gives an occurrence of its target's symbol
//!   (`Import` role for imports); references to a module give the module
//!   file's namespace symbol. Candidates and external names are left out:
//!   SCIP has no notion of an unresolved reference. A dynamic reference
//!   (made at run time: `getattr(obj, "name")`, `import_module("m")`,
//!   `handlers[action]()`) with a target gives its occurrence too, carrying
//!   one `Diagnostic` (severity `Information`, code `dynamic`, source
//!   `ast-outline`) that says so: SCIP has no status for an occurrence,
//!   and a diagnostic is what its consumers show on one; without a target
//!   it is left out like a candidate.

use std::collections::HashMap;

use scip::types::{
    Descriptor, Diagnostic, Document, Index, Metadata, Occurrence, Package, PositionEncoding,
    Relationship, Severity, Symbol, SymbolInformation, SymbolRole, TextEncoding, ToolInfo,
    descriptor, symbol_information,
};

use crate::export::{Export, ExportSymbol};

/// The scheme of every symbol this index defines.
pub const SCHEME: &str = "ast-outline";

/// The `code` of the diagnostic a dynamic reference's occurrence carries.
pub const DYNAMIC_CODE: &str = "dynamic";

/// The SCIP index of `export`; `project_root` is the indexed root as a
/// `file://` URI (SCIP's `Metadata.project_root`).
pub fn to_scip(export: &Export, project_root: &str) -> Index {
    let by_id: HashMap<&str, &ExportSymbol> =
        export.symbols.iter().map(|s| (s.id.as_str(), s)).collect();
    let symbols = symbol_names(export, &by_id);
    let mut documents: Vec<Document> = export
        .files
        .iter()
        .map(|file| Document {
            relative_path: file.path.clone(),
            language: scip_language(&file.language).to_owned(),
            position_encoding: PositionEncoding::UTF32CodeUnitOffsetFromLineStart.into(),
            ..Document::default()
        })
        .collect();
    let document_of: HashMap<&str, usize> = export
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut supertypes: HashMap<&str, Vec<&str>> = HashMap::new();
    for relation in &export.relations {
        supertypes
            .entry(relation.subtype.as_str())
            .or_default()
            .push(relation.supertype.as_str());
    }
    for symbol in &export.symbols {
        let (Some(&d), Some(name)) = (
            document_of.get(symbol.path.as_str()),
            symbols.get(symbol.id.as_str()),
        ) else {
            continue;
        };
        let start = zero_based(symbol.name_column);
        let length = i32::try_from(symbol.name.chars().count()).unwrap_or(i32::MAX);
        let occurrence = Occurrence {
            range: vec![
                zero_based(symbol.name_line),
                start,
                start.saturating_add(length),
            ],
            symbol: name.clone(),
            symbol_roles: SymbolRole::Definition as i32,
            enclosing_range: vec![
                zero_based(symbol.start_line),
                0,
                i32::try_from(symbol.end_line).unwrap_or(i32::MAX),
                0,
            ],
            ..Occurrence::default()
        };
        let relationships = supertypes
            .get(symbol.id.as_str())
            .into_iter()
            .flatten()
            .filter_map(|id| symbols.get(id))
            .map(|supertype| Relationship {
                symbol: supertype.clone(),
                is_implementation: true,
                ..Relationship::default()
            })
            .collect();
        let information = SymbolInformation {
            symbol: name.clone(),
            kind: scip_kind(&symbol.kind).into(),
            display_name: symbol.name.clone(),
            relationships,
            ..SymbolInformation::default()
        };
        if let Some(document) = documents.get_mut(d) {
            document.occurrences.push(occurrence);
            document.symbols.push(information);
        }
    }
    for reference in &export.references {
        let Some(&d) = document_of.get(reference.path.as_str()) else {
            continue;
        };
        let Some(target) = reference.target.as_deref() else {
            continue;
        };
        let symbol = match reference.status.as_str() {
            "resolved" => match symbols.get(target) {
                Some(symbol) => symbol.clone(),
                None => continue,
            },
            "module" => file_symbol(target),
            // A symbol id, or a module's file path.
            "dynamic" => match symbols.get(target) {
                Some(symbol) => symbol.clone(),
                None if document_of.contains_key(target) => file_symbol(target),
                None => continue,
            },
            _ => continue,
        };
        let diagnostics = if reference.status == "dynamic" {
            vec![dynamic_diagnostic(reference.via == "macro")]
        } else {
            Vec::new()
        };
        let roles = if reference.role == "import" {
            SymbolRole::Import as i32
        } else {
            0
        };
        if let Some(document) = documents.get_mut(d) {
            document.occurrences.push(Occurrence {
                range: vec![
                    zero_based(reference.line),
                    zero_based(reference.column),
                    zero_based(reference.end_column),
                ],
                symbol,
                symbol_roles: roles,
                diagnostics,
                ..Occurrence::default()
            });
        }
    }
    for document in &mut documents {
        document.occurrences.sort_by(|a, b| a.range.cmp(&b.range));
    }
    Index {
        metadata: Some(Metadata {
            tool_info: Some(ToolInfo {
                name: SCHEME.to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                ..ToolInfo::default()
            })
            .into(),
            project_root: project_root.to_owned(),
            text_document_encoding: TextEncoding::UTF8.into(),
            ..Metadata::default()
        })
        .into(),
        documents,
        ..Index::default()
    }
}

/// The diagnostic on a dynamic reference's occurrence: code
/// [`DYNAMIC_CODE`], severity `Information`; `macro`: the occurrence names
/// an item a project `macro_rules!` makes (its symbol is the macro's).
fn dynamic_diagnostic(macro_made: bool) -> Diagnostic {
    let message = if macro_made {
        "dynamic reference: an item a macro_rules! of the project makes (no definition is \
         written); the occurrence points at the macro"
    } else {
        "dynamic reference: made at run time (getattr, import_module, a computed key), found \
         by its literal name; a run confirms it"
    };
    Diagnostic {
        severity: Severity::Information.into(),
        code: DYNAMIC_CODE.to_owned(),
        message: message.to_owned(),
        source: SCHEME.to_owned(),
        ..Diagnostic::default()
    }
}

/// Each definition's SCIP symbol, by id.
fn symbol_names<'a>(
    export: &'a Export,
    by_id: &HashMap<&str, &'a ExportSymbol>,
) -> HashMap<&'a str, String> {
    let mut seen: HashMap<(&str, &str), u32> = HashMap::new();
    let mut out = HashMap::with_capacity(export.symbols.len());
    for symbol in &export.symbols {
        // The chain of enclosing definitions, outermost first.
        let mut chain = vec![symbol];
        let mut parent = symbol.parent.as_deref();
        while let Some(id) = parent {
            match by_id.get(id) {
                Some(p) if chain.len() < 256 => {
                    chain.push(p);
                    parent = p.parent.as_deref();
                }
                _ => break,
            }
        }
        chain.reverse();
        let ordinal = seen
            .entry((symbol.path.as_str(), symbol.qualname.as_str()))
            .or_insert(0);
        let mut descriptors = vec![namespace(&symbol.path)];
        let last = chain.len() - 1;
        for (i, part) in chain.iter().enumerate() {
            let disambiguator = if i == last && *ordinal > 0 {
                format!("+{ordinal}")
            } else {
                String::new()
            };
            descriptors.push(descriptor_of(part, disambiguator));
        }
        *ordinal += 1;
        out.insert(symbol.id.as_str(), format(descriptors));
    }
    out
}

/// The namespace symbol of the file `path` (what a module reference names).
fn file_symbol(path: &str) -> String {
    format(vec![namespace(path)])
}

fn format(descriptors: Vec<Descriptor>) -> String {
    scip::symbol::format_symbol(Symbol {
        scheme: SCHEME.to_owned(),
        package: Some(Package::default()).into(),
        descriptors,
        ..Symbol::default()
    })
}

fn namespace(path: &str) -> Descriptor {
    Descriptor {
        name: path.to_owned(),
        suffix: descriptor::Suffix::Namespace.into(),
        ..Descriptor::default()
    }
}

fn descriptor_of(symbol: &ExportSymbol, disambiguator: String) -> Descriptor {
    let suffix = match symbol.kind.as_str() {
        "class" | "interface" | "struct" | "enum" | "union" | "trait" | "impl" | "type_alias" => {
            descriptor::Suffix::Type
        }
        "function" | "method" | "constructor" | "getter" | "setter" => descriptor::Suffix::Method,
        "module" => descriptor::Suffix::Namespace,
        _ if disambiguator.is_empty() => descriptor::Suffix::Term,
        // Only methods carry a disambiguator in SCIP's grammar.
        _ => descriptor::Suffix::Method,
    };
    Descriptor {
        name: symbol.name.clone(),
        disambiguator,
        suffix: suffix.into(),
        ..Descriptor::default()
    }
}

/// A 1-based line or column as SCIP's 0-based position.
fn zero_based(n: u32) -> i32 {
    i32::try_from(n.saturating_sub(1)).unwrap_or(i32::MAX)
}

/// SCIP's spelling of a language (its `Language` enum's names).
fn scip_language(language: &str) -> &'static str {
    match language {
        "python" => "Python",
        "typescript" => "TypeScript",
        "tsx" => "TypeScriptReact",
        "javascript" => "JavaScript",
        "jsx" => "JavaScriptReact",
        "rust" => "Rust",
        _ => "UnspecifiedLanguage",
    }
}

fn scip_kind(kind: &str) -> symbol_information::Kind {
    use symbol_information::Kind;
    match kind {
        "class" => Kind::Class,
        "function" => Kind::Function,
        "method" => Kind::Method,
        "constructor" => Kind::Constructor,
        "getter" => Kind::Getter,
        "setter" => Kind::Setter,
        "property" => Kind::Property,
        "field" => Kind::Field,
        "variable" => Kind::Variable,
        "constant" => Kind::Constant,
        "interface" => Kind::Interface,
        "type_alias" => Kind::TypeAlias,
        "enum" => Kind::Enum,
        "enum_member" => Kind::EnumMember,
        "struct" => Kind::Struct,
        "union" => Kind::Union,
        "trait" => Kind::Trait,
        "impl" => Kind::Extension,
        "module" => Kind::Module,
        "macro" => Kind::Macro,
        _ => Kind::UnspecifiedKind,
    }
}
