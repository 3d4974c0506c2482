//! The resolver: the project's tables and the scope-order lookup.

mod types;

use std::borrow::Cow;
use std::collections::HashSet as StdHashSet;
use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::{LazyLock, OnceLock};

use outline_core::SymbolKind;
use outline_core::xref::{
    Attribute, Decorated, Dynamic, Facts, Generics, ImportBinding, LocalType, Receiver, Reference,
    ReturnType, Role, Signature, TypeExpr, TypeOf, Value,
};

use crate::modules::absolute_module;
use crate::source::Source;
use crate::ts_modules::{is_script, resolve_package, resolve_specifier};
use crate::{
    DYNAMIC_CONFIDENCE, FileInput, MAX_CANDIDATES, ProjectConfig, Relation, Resolution, Resolved,
    Status, Via,
};

#[path = "rust_resolve.rs"]
mod rust_resolve;

/// How many imports, re-exports and bases are followed before giving up (a
/// cycle or a very long chain).
const MAX_HOPS: u32 = 32;

/// What a name or path denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entity {
    /// Definition `d` of file `f`.
    Def(usize, usize),
    /// An instance of the class definition `d` of file `f`.
    Instance(usize, usize),
    /// The module of file `f`.
    Module(usize),
    /// Something outside the project (an external import).
    External,
    /// A local variable of unknown type.
    Local,
    /// Not found.
    Unknown,
}

/// The tables of one file, built when a lookup first reads the file.
#[derive(Default)]
struct Tables<'a> {
    /// Qualname → definition index (the last definition wins, as the later
    /// binding does at run time).
    qualnames: HashMap<&'a str, usize>,
    /// (Parent qualname, last segment) → definition index, for every
    /// dotted qualname of `qualnames` (the same winner): a member lookup
    /// without building the joined qualname.
    children: HashMap<(&'a str, &'a str), usize>,
    /// (Scope qualname, local name) → import bindings in order; the module
    /// level has the scope qualname "".
    imports: HashMap<(&'a str, &'a str), Vec<&'a ImportBinding>>,
    /// Star imports at module level.
    stars: Vec<&'a ImportBinding>,
    /// (Scope qualname, name) → known types in source order.
    types: HashMap<(&'a str, &'a str), Vec<&'a LocalType>>,
    /// TypeScript/JavaScript: import specifier → the project file it names
    /// (`None`: outside the project).
    specifiers: HashMap<&'a str, Option<usize>>,
    /// (Class qualname, attribute name) → the attribute fact (the first
    /// one).
    attributes: HashMap<(&'a str, &'a str), &'a Attribute>,
    /// Function qualname → its declared return type.
    returns: HashMap<&'a str, &'a ReturnType>,
    /// The names of the module's `__all__` (Python), when it has one.
    exports: Option<HashSet<&'a str>>,
    /// Qualname → the first type definition (class, interface, enum,
    /// struct, type alias…) with it: the type of a name that is also a
    /// value (`interface X` and `const X`).
    type_defs: HashMap<&'a str, usize>,
    /// Qualname → the first value definition (variable, constant, function,
    /// class, enum, namespace) with it: the value of a name that is also a
    /// type only (`type X = …` or `interface X` and `const X`).
    value_defs: HashMap<&'a str, usize>,
    /// (Qualname, start line) → the signature of that function or method.
    signatures: HashMap<(&'a str, u32), &'a Signature>,
    /// Qualname → the definitions of a function or method declared more
    /// than once (overloads, then the implementation), in source order.
    overloads: HashMap<&'a str, Vec<usize>>,
    /// Owner qualname (`""`: the module's type variables) → its type
    /// parameters.
    generics: HashMap<&'a str, &'a Generics>,
    /// Class qualname → its bases as written, in order.
    typed_bases: HashMap<&'a str, Vec<&'a TypeExpr>>,
    /// Type alias qualname → what it stands for.
    aliases: HashMap<&'a str, &'a TypeExpr>,
    /// Definition qualname → its decorators (Python).
    decorated: HashMap<&'a str, &'a Decorated>,
    /// The scope qualnames of the file's local types and imports.
    scopes: HashSet<&'a str>,
}

/// The names the item-position macro invocations of one Rust file make,
/// each with the `macro_rules!` definition (file, definition) that makes it
/// (the first invocation's): at module level, and as members (in an impl
/// block or trait).
#[derive(Default)]
struct MacroMade {
    module: HashMap<String, (usize, usize)>,
    members: HashMap<String, (usize, usize)>,
}

/// Name → every (file, definition) with that name: top-level definitions
/// and members (qualname with a dot) apart.
#[derive(Default)]
struct Names<'a> {
    top: HashMap<&'a str, Vec<(usize, usize)>>,
    members: HashMap<&'a str, Vec<(usize, usize)>>,
}

/// The resolution tables of one project.
struct Project<'a, S: Source + ?Sized> {
    src: &'a S,
    config: ProjectConfig,
    by_module: HashMap<std::borrow::Cow<'a, str>, usize>,
    /// `by_module` by parent module then last segment (`a.b.c` under `a.b`
    /// then `c`), for submodule lookups without building the dotted name.
    submodules: HashMap<std::borrow::Cow<'a, str>, HashMap<std::borrow::Cow<'a, str>, usize>>,
    /// Per file, the files its module-level star imports name, in order
    /// (duplicates kept), once computed with the usual hop bound (see
    /// [`Project::star_targets`]).
    star_targets: Vec<OnceLock<Vec<usize>>>,
    /// Per file, the files its imports name (the module or the
    /// definition's file each import binding leads to), sorted, once
    /// computed (see [`Project::imported_files`]).
    imported: Vec<OnceLock<Vec<usize>>>,
    /// Per Rust file, the names its item-position macro invocations make
    /// (see [`Project::rust_macro_made`]), once computed.
    macro_made: Vec<OnceLock<MacroMade>>,
    /// Per file, built on first use.
    tables: Vec<OnceLock<Tables<'a>>>,
    /// The tables of a file out of range (empty).
    no_tables: Tables<'a>,
    /// Per file, its language as the lookups tell them apart (from the
    /// path, as [`is_rust`] and [`is_script`] find it).
    kinds: Vec<FileKind>,
    /// Every path, and file by path (TypeScript specifiers).
    paths: StdHashSet<&'a str>,
    by_path: HashMap<&'a str, usize>,
    /// Definitions by name; `None` when the source answers
    /// ([`Source::on_demand`]).
    names: Option<Names<'a>>,
    /// Class (file, definition) → its resolved bases in order (a source
    /// on demand answers instead).
    bases: HashMap<(usize, usize), Vec<(usize, usize)>>,
    /// Rust: impl block (file, definition) → the type it is for.
    impl_of: HashMap<(usize, usize), (usize, usize)>,
    /// Rust: type (file, definition) → its impl blocks.
    impls: HashMap<(usize, usize), Vec<(usize, usize)>>,
    /// Types evaluated once (see [`types::TypeCache`]).
    type_cache: types::TypeCache<'a>,
}

/// A file's language as the lookups tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    /// Rust ([`is_rust`]).
    Rust,
    /// TypeScript or JavaScript ([`is_script`]).
    Script,
    /// Python (or another language).
    Other,
}

/// The facts of a file a source could not give.
static NO_FACTS: LazyLock<Facts> = LazyLock::new(Facts::default);

/// Whether `path` is a Rust file.
fn is_rust(path: &str) -> bool {
    path.ends_with(".rs")
}

/// Kinds whose members are looked up by qualname (`Type.member`), through
/// impls and bases.
fn has_members(kind: Option<SymbolKind>) -> bool {
    matches!(
        kind,
        Some(
            SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Enum
                | SymbolKind::Module
                | SymbolKind::Struct
                | SymbolKind::Union
                | SymbolKind::Trait
                | SymbolKind::Impl
        )
    )
}

/// The type fact of a name in force at `line`: the binding with the
/// latest line at or before it (the facts are not in line order: a
/// callback's parameters come after the body of the callback around it),
/// a narrowed one (`until`) only on its lines; else the first unnarrowed
/// binding (a name used above its binding: a loop's later assignment).
fn nearest_local<'t>(types: &[&'t LocalType], line: u32) -> Option<&'t LocalType> {
    types
        .iter()
        .enumerate()
        .filter(|(_, t)| t.line <= line && t.until.is_none_or(|u| line <= u))
        .max_by_key(|&(i, t)| (t.line, i))
        .map(|(_, t)| *t)
        .or_else(|| types.iter().find(|t| t.until.is_none()).copied())
}

/// The first name a receiver is written with (`a` of `a.b.m()`,
/// `a.b().m()`, `a[0].m()`), when it starts with one.
fn receiver_head(receiver: &Receiver) -> Option<&str> {
    match receiver {
        Receiver::Path(path) | Receiver::Call(path) => path.first().map(String::as_str),
        Receiver::Value(value) => value.head(),
        Receiver::Bare | Receiver::Expression => None,
    }
}

/// Kinds of a type's members (not a function's locals).
fn is_member_kind(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Method
            | SymbolKind::Constructor
            | SymbolKind::Getter
            | SymbolKind::Setter
            | SymbolKind::Property
            | SymbolKind::Field
            | SymbolKind::EnumMember
    )
}

/// Kinds a value can be an instance of.
fn is_type(kind: Option<SymbolKind>) -> bool {
    matches!(
        kind,
        Some(
            SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Enum
                | SymbolKind::Struct
                | SymbolKind::Union
                | SymbolKind::Trait
        )
    )
}

/// Kinds whose call makes an instance (a Rust tuple struct's constructor).
fn is_instantiable(kind: Option<SymbolKind>) -> bool {
    matches!(kind, Some(SymbolKind::Class | SymbolKind::Struct))
}

/// Resolves every reference of `files` (see the crate documentation), one
/// file after the other; [`Resolver`] lets the caller spread the files over
/// threads.
pub fn resolve(files: &[FileInput]) -> Resolved {
    resolve_with(files, &ProjectConfig::default())
}

/// [`resolve`] with the project's settings (tsconfig paths).
pub fn resolve_with(files: &[FileInput], config: &ProjectConfig) -> Resolved {
    let resolver = Resolver::with_config(files, config);
    Resolved {
        references: (0..files.len()).flat_map(|f| resolver.file(f)).collect(),
        relations: resolver.relations,
    }
}

/// The project's resolution tables, built once; [`Resolver::file`] then
/// resolves the references of one file and may run for several files at
/// once (`Resolver` is `Sync` when its source is).
pub struct Resolver<'a, S: Source + ?Sized = [FileInput]> {
    project: Project<'a, S>,
    /// Relations between definitions, in input order (empty for a source
    /// on demand: see [`Resolver::relations_of`]).
    pub relations: Vec<Relation>,
}

impl<'a> Resolver<'a> {
    /// Builds the tables of `files` and resolves the bases of every class
    /// (member lookups through a class need them).
    pub fn new(files: &'a [FileInput]) -> Self {
        Self::with_config(files, &ProjectConfig::default())
    }

    /// [`Resolver::new`] with the project's settings.
    pub fn with_config(files: &'a [FileInput], config: &ProjectConfig) -> Self {
        Self::with_source(files, config)
    }
}

impl<'a, S: Source + ?Sized> Resolver<'a, S> {
    /// A resolver over `source`. A source in memory gets every table built
    /// here, the bases of every class and Rust's impl blocks resolved, and
    /// [`Resolver::relations`] filled. A source on demand
    /// ([`Source::on_demand`]) is only read as lookups need it: the names
    /// and bases come from the source, and no Rust impl block is known (a
    /// caller that may need one must use a source in memory).
    pub fn with_source(source: &'a S, config: &ProjectConfig) -> Self {
        let mut project = Project::new(source, config);
        let mut relations = Vec::new();
        if source.on_demand() {
            return Resolver { project, relations };
        }
        // Rust impl blocks: the type each is for (the self type's
        // reference carries the impl as its `subtype`).
        for f in 0..source.len() {
            for reference in &project.facts(f).references {
                let Some(subtype) = &reference.subtype else {
                    continue;
                };
                if reference.role != Role::TypeUse {
                    continue;
                }
                let Some(&block) = project.tables(f).qualnames.get(subtype.qualname.as_str())
                else {
                    continue;
                };
                if project.kind(f, block) != Some(SymbolKind::Impl) {
                    continue;
                }
                if let Entity::Def(tf, td) = project.lookup(f, reference) {
                    project.impl_of.insert((f, block), (tf, td));
                    project.impls.entry((tf, td)).or_default().push((f, block));
                }
            }
        }
        // Each relation once: two `impl Trait for Type` blocks of the same
        // pair (or a base written twice) name it twice.
        let mut seen: HashSet<Relation> = HashSet::default();
        for f in 0..source.len() {
            for reference in &project.facts(f).references {
                let Some(((sf, sd), (bf, bd))) = project.inherits(f, reference) else {
                    continue;
                };
                project.bases.entry((sf, sd)).or_default().push((bf, bd));
                if let Some(relation) = project.relation((sf, sd), (bf, bd))
                    && seen.insert(relation.clone())
                {
                    relations.push(relation);
                }
            }
        }
        Resolver { project, relations }
    }

    /// The relations whose subtype is a definition of file `f`, found from
    /// its inheritance references alone: what [`Resolver::relations`] holds
    /// for a file that is not Rust (a Rust `impl Trait for Type` may be in
    /// another file), in the same order.
    pub fn relations_of(&self, f: usize) -> Vec<Relation> {
        let mut seen: HashSet<Relation> = HashSet::default();
        self.project
            .facts(f)
            .references
            .iter()
            .filter_map(|reference| self.project.inherits(f, reference))
            .filter_map(|(sub, base)| self.project.relation(sub, base))
            .filter(|relation| seen.insert(relation.clone()))
            .collect()
    }

    /// The resolutions of the references of file `f` (its index in the
    /// input), local variables left out; empty for an index out of range.
    pub fn file(&self, f: usize) -> Vec<Resolution> {
        if f >= self.project.src.len() {
            return Vec::new();
        }
        self.project
            .facts(f)
            .references
            .iter()
            .enumerate()
            .filter_map(|(r, reference)| self.project.resolution(f, r, reference))
            .collect()
    }

    /// The resolution of `reference` read as reference `r` of file `f` (its
    /// index in that file's references), for a caller that does not keep
    /// every file's references in the input (only the inheritance ones, which
    /// [`Resolver::new`] reads): `None` for a local variable or a file out of
    /// range. Gives the same result as the entry of [`Resolver::file`] for
    /// that reference when the input holds it.
    pub fn resolve_reference(
        &self,
        f: usize,
        r: usize,
        reference: &Reference,
    ) -> Option<Resolution> {
        if f >= self.project.src.len() {
            return None;
        }
        self.project.resolution(f, r, reference)
    }

    /// [`Resolver::resolve_reference`] for the references `references` of
    /// file `f` (all of its references, in order): every one, or only those
    /// at the positions `only`; local variables left out.
    pub fn resolve_references(
        &self,
        f: usize,
        references: &[Reference],
        only: Option<&[usize]>,
    ) -> Vec<Resolution> {
        match only {
            None => references
                .iter()
                .enumerate()
                .filter_map(|(r, reference)| self.resolve_reference(f, r, reference))
                .collect(),
            Some(positions) => positions
                .iter()
                .filter_map(|&r| self.resolve_reference(f, r, references.get(r)?))
                .collect(),
        }
    }
}

/// `implements` when a class or struct names an interface or trait,
/// `inherits` otherwise (a class's base class, an interface's or trait's
/// super-interface).
fn relation_kind(subtype: SymbolKind, supertype: SymbolKind) -> &'static str {
    let concrete = matches!(
        subtype,
        SymbolKind::Class | SymbolKind::Struct | SymbolKind::Enum | SymbolKind::Union
    );
    if concrete && matches!(supertype, SymbolKind::Interface | SymbolKind::Trait) {
        "implements"
    } else {
        "inherits"
    }
}

impl<'a, S: Source + ?Sized> Project<'a, S> {
    fn new(src: &'a S, config: &ProjectConfig) -> Self {
        let count = src.len();
        let mut by_module = HashMap::default();
        for f in 0..count {
            // Files in namespace directories come after the others (below).
            if let (Some(path), Some(module)) = (src.path(f), src.module(f))
                && crate::modules::namespace_module(path, Some(module)).is_none()
            {
                by_module.entry(Cow::Borrowed(module)).or_insert(f);
            }
        }
        // PEP 420 namespace packages: a module whose directories up to the
        // project root are not all regular packages is importable by its
        // whole path from the root (`stock/inventory.py` as
        // `stock.inventory`), and by its short name only when no file whose
        // path is its module name (a top-level `inventory.py`) has it.
        for f in 0..count {
            let (Some(path), Some(module)) = (src.path(f), src.module(f)) else {
                continue;
            };
            if let Some(alias) = crate::modules::namespace_module(path, Some(module)) {
                by_module.entry(Cow::Owned(alias)).or_insert(f);
                by_module.entry(Cow::Borrowed(module)).or_insert(f);
            }
        }
        let paths: StdHashSet<&str> = (0..count).filter_map(|f| src.path(f)).collect();
        let by_path: HashMap<&str, usize> =
            (0..count).filter_map(|f| Some((src.path(f)?, f))).collect();
        let names = (!src.on_demand()).then(|| {
            let mut names = Names::default();
            for f in 0..count {
                for (d, definition) in src.definitions(f).unwrap_or_default().iter().enumerate() {
                    if definition.kind == SymbolKind::Block {
                        continue;
                    }
                    let by_name = if definition.qualname.contains('.') {
                        &mut names.members
                    } else {
                        &mut names.top
                    };
                    by_name
                        .entry(definition.name.as_str())
                        .or_default()
                        .push((f, d));
                }
            }
            names
        });
        let mut submodules: HashMap<Cow<'a, str>, HashMap<Cow<'a, str>, usize>> =
            HashMap::default();
        for (module, &f) in &by_module {
            let split = match module {
                Cow::Borrowed(module) => module
                    .rsplit_once('.')
                    .map(|(parent, last)| (Cow::Borrowed(parent), Cow::Borrowed(last))),
                Cow::Owned(module) => module.rsplit_once('.').map(|(parent, last)| {
                    (Cow::Owned(parent.to_owned()), Cow::Owned(last.to_owned()))
                }),
            };
            if let Some((parent, last)) = split {
                submodules.entry(parent).or_default().insert(last, f);
            }
        }
        Project {
            src,
            config: config.clone(),
            by_module,
            submodules,
            star_targets: (0..count).map(|_| OnceLock::new()).collect(),
            imported: (0..count).map(|_| OnceLock::new()).collect(),
            macro_made: (0..count).map(|_| OnceLock::new()).collect(),
            kinds: (0..count)
                .map(|f| {
                    let path = src.path(f).unwrap_or_default();
                    if is_rust(path) {
                        FileKind::Rust
                    } else if is_script(path) {
                        FileKind::Script
                    } else {
                        FileKind::Other
                    }
                })
                .collect(),
            tables: (0..count).map(|_| OnceLock::new()).collect(),
            no_tables: Tables::default(),
            paths,
            by_path,
            names,
            bases: HashMap::default(),
            impl_of: HashMap::default(),
            impls: HashMap::default(),
            type_cache: types::TypeCache::default(),
        }
    }

    /// File `f`'s tables, built on first use (empty out of range).
    fn tables(&self, f: usize) -> &Tables<'a> {
        match self.tables.get(f) {
            Some(cell) => cell.get_or_init(|| self.build_tables(f)),
            None => &self.no_tables,
        }
    }

    /// The definition of file `f` whose qualname is `parent.name` (the
    /// `qualnames` entry of the joined name).
    fn child(&self, f: usize, parent: &str, name: &str) -> Option<usize> {
        let tables = self.tables(f);
        if name.contains('.') {
            return tables
                .qualnames
                .get(format!("{parent}.{name}").as_str())
                .copied();
        }
        tables.children.get(&(parent, name)).copied()
    }

    /// The module file named `module.name` (the `by_module` entry of the
    /// joined name).
    fn submodule(&self, module: &str, name: &str) -> Option<usize> {
        if name.contains('.') {
            return self
                .by_module
                .get(format!("{module}.{name}").as_str())
                .copied();
        }
        self.submodules.get(module)?.get(name).copied()
    }

    fn build_tables(&self, f: usize) -> Tables<'a> {
        let definitions = self.src.definitions(f).unwrap_or_default();
        let facts = self.facts(f);
        let path = self.path(f);
        let mut qualnames = HashMap::default();
        let mut children = HashMap::default();
        for (d, definition) in definitions.iter().enumerate() {
            qualnames.insert(definition.qualname.as_str(), d);
            if let Some(split) = definition.qualname.rsplit_once('.') {
                // Two definitions with one qualname (TypeScript's merged
                // `interface X { init(): void }` and `function X() { function
                // init() {} }`): the member is the member of the type, as in
                // tsc, where a function's locals are no members.
                match children.entry(split) {
                    Entry::Occupied(mut held) => {
                        let held_member = definitions
                            .get(*held.get())
                            .is_some_and(|h: &crate::Definition| is_member_kind(h.kind));
                        if !held_member || is_member_kind(definition.kind) {
                            held.insert(d);
                        }
                    }
                    Entry::Vacant(slot) => {
                        slot.insert(d);
                    }
                }
            }
        }
        if self.rust(f) {
            // Items written in a macro invocation at the top of the file
            // (`cfg_rt! { pub fn spawn() {} }`, qualname `cfg_rt!.spawn`)
            // are items of the module, as after expansion (where a
            // definition outside the macro has the name, it wins).
            for (d, definition) in definitions.iter().enumerate() {
                let mut rest = definition.qualname.as_str();
                while let Some((head, tail)) = rest.split_once('.')
                    && head.ends_with('!')
                {
                    rest = tail;
                }
                if rest.len() == definition.qualname.len() {
                    continue;
                }
                qualnames.entry(rest).or_insert(d);
                if let Some(split) = rest.rsplit_once('.') {
                    children.entry(split).or_insert(d);
                }
            }
        }
        let mut types: HashMap<(&str, &str), Vec<&LocalType>> = HashMap::default();
        for local in &facts.types {
            let scope = local.scope.as_ref().map_or("", |s| s.qualname.as_str());
            types
                .entry((scope, local.name.as_str()))
                .or_default()
                .push(local);
        }
        let mut attributes = HashMap::default();
        for attribute in &facts.attributes {
            attributes
                .entry((attribute.class.qualname.as_str(), attribute.name.as_str()))
                .or_insert(attribute);
        }
        let returns = facts
            .returns
            .iter()
            .map(|r| (r.function.qualname.as_str(), r))
            .collect();
        let mut imports: HashMap<(&str, &str), Vec<&ImportBinding>> = HashMap::default();
        let mut stars = Vec::new();
        for binding in &facts.imports {
            let scope = binding.scope.as_ref().map_or("", |s| s.qualname.as_str());
            if binding.name.as_deref() == Some("*") {
                if scope.is_empty() {
                    stars.push(binding);
                }
                continue;
            }
            imports
                .entry((scope, binding.local.as_str()))
                .or_default()
                .push(binding);
        }
        let mut specifiers = HashMap::default();
        if is_script(path) {
            for binding in &facts.imports {
                if binding.module.is_empty() {
                    continue;
                }
                specifiers
                    .entry(binding.module.as_str())
                    .or_insert_with(|| {
                        resolve_specifier(
                            path,
                            &binding.module,
                            &self.paths,
                            &self.config.ts_configs,
                        )
                        .or_else(|| {
                            resolve_package(&binding.module, &self.paths, &self.config.ts_packages)
                        })
                        .and_then(|p| self.by_path.get(p.as_str()).copied())
                    });
            }
        }
        let exports = facts
            .exports
            .as_ref()
            .map(|all| all.iter().map(String::as_str).collect());
        let mut type_defs = HashMap::default();
        let mut value_defs = HashMap::default();
        let mut overloads: HashMap<&str, Vec<usize>> = HashMap::default();
        for (d, definition) in definitions.iter().enumerate() {
            if is_type(Some(definition.kind)) || definition.kind == SymbolKind::TypeAlias {
                type_defs.entry(definition.qualname.as_str()).or_insert(d);
            }
            if matches!(
                definition.kind,
                SymbolKind::Variable
                    | SymbolKind::Constant
                    | SymbolKind::Function
                    | SymbolKind::Class
                    | SymbolKind::Enum
                    | SymbolKind::Module
            ) {
                value_defs.entry(definition.qualname.as_str()).or_insert(d);
            }
            if matches!(definition.kind, SymbolKind::Function | SymbolKind::Method) {
                overloads
                    .entry(definition.qualname.as_str())
                    .or_default()
                    .push(d);
            }
        }
        overloads.retain(|_, ds| ds.len() > 1);
        let signatures = facts
            .signatures
            .iter()
            .map(|s| ((s.function.qualname.as_str(), s.function.start_line), s))
            .collect();
        let generics = facts
            .generics
            .iter()
            .map(|g| (g.owner.as_ref().map_or("", |o| o.qualname.as_str()), g))
            .collect();
        let mut typed_bases: HashMap<&str, Vec<&TypeExpr>> = HashMap::default();
        for base in &facts.bases {
            typed_bases
                .entry(base.class.qualname.as_str())
                .or_default()
                .push(&base.ty);
        }
        let aliases = facts
            .aliases
            .iter()
            .map(|a| (a.alias.qualname.as_str(), &a.ty))
            .collect();
        let decorated = facts
            .decorated
            .iter()
            .map(|d| (d.definition.qualname.as_str(), d))
            .collect();
        let scopes = types
            .keys()
            .map(|&(scope, _)| scope)
            .chain(imports.keys().map(|&(scope, _)| scope))
            .collect();
        Tables {
            scopes,
            exports,
            type_defs,
            value_defs,
            signatures,
            overloads,
            generics,
            typed_bases,
            aliases,
            decorated,
            qualnames,
            children,
            imports,
            stars,
            types,
            specifiers,
            attributes,
            returns,
        }
    }

    /// Whether file `f` is a Rust file (false out of range).
    fn rust(&self, f: usize) -> bool {
        self.kinds.get(f) == Some(&FileKind::Rust)
    }

    /// Whether file `f` is a TypeScript or JavaScript file (false out of
    /// range).
    fn script(&self, f: usize) -> bool {
        self.kinds.get(f) == Some(&FileKind::Script)
    }

    /// File `f`'s path ("" out of range).
    fn path(&self, f: usize) -> &'a str {
        self.src.path(f).unwrap_or_default()
    }

    /// File `f`'s facts (empty when the source has none).
    fn facts(&self, f: usize) -> &'a Facts {
        self.src.facts(f).unwrap_or(&NO_FACTS)
    }

    /// Class `(f, d)`'s bases.
    fn bases_of(&self, f: usize, d: usize) -> Cow<'_, [(usize, usize)]> {
        if self.src.on_demand() {
            return Cow::Owned(self.src.bases(f, d));
        }
        Cow::Borrowed(
            self.bases
                .get(&(f, d))
                .map(Vec::as_slice)
                .unwrap_or_default(),
        )
    }

    /// The relation reference `reference` of file `f` makes when it is the
    /// base of a class (of a Rust impl's type): (subtype, supertype).
    fn inherits(
        &self,
        f: usize,
        reference: &Reference,
    ) -> Option<((usize, usize), (usize, usize))> {
        let subtype = reference.subtype.as_ref()?;
        if reference.role != Role::Inherit {
            return None;
        }
        let &sub = self.tables(f).qualnames.get(subtype.qualname.as_str())?;
        // `interface X extends Y` merged with `const X`: the interface.
        let (_, sub) = self.type_side(f, sub);
        // `impl Trait for Type`: the relation is the type's.
        let (sf, sd) = if self.kind(f, sub) == Some(SymbolKind::Impl) {
            *self.impl_of.get(&(f, sub))?
        } else {
            (f, sub)
        };
        match self.lookup(f, reference) {
            Entity::Def(bf, bd) => Some(((sf, sd), (bf, bd))),
            _ => None,
        }
    }

    /// The relation between definitions `sub` and `base`.
    fn relation(&self, sub: (usize, usize), base: (usize, usize)) -> Option<Relation> {
        let (sub, base) = (
            self.definition(sub.0, sub.1)?,
            self.definition(base.0, base.1)?,
        );
        Some(Relation {
            subtype: sub.id.clone(),
            supertype: base.id.clone(),
            kind: relation_kind(sub.kind, base.kind).to_owned(),
        })
    }

    fn definition(&self, f: usize, d: usize) -> Option<&'a crate::Definition> {
        self.src.definitions(f)?.get(d)
    }

    fn kind(&self, f: usize, d: usize) -> Option<SymbolKind> {
        self.definition(f, d).map(|d| d.kind)
    }

    /// The resolution of reference `r` of file `f`; `None` for a local
    /// variable. A dynamic reference ([`Reference::dynamic`]) is always
    /// given, with [`Status::Dynamic`] and whatever its static reading
    /// reaches (a definition, a module, candidates) as its target.
    fn resolution(&self, f: usize, r: usize, reference: &Reference) -> Option<Resolution> {
        let Some(dynamic) = &reference.dynamic else {
            return self.static_resolution(f, r, reference);
        };
        let unresolved = Resolution {
            file: f,
            reference: r,
            role: reference.role,
            status: Status::Dynamic,
            target: None,
            candidates: Vec::new(),
            confidence: 0.0,
            via: Via::None,
        };
        match dynamic {
            Dynamic::Computed => Some(unresolved),
            Dynamic::Module { level } => {
                match self.dynamic_module(f, *level, &reference.name) {
                    Some(m) => Some(Resolution {
                        target: self.src.path(m).map(str::to_owned),
                        confidence: DYNAMIC_CONFIDENCE,
                        via: Via::Import,
                        ..unresolved
                    }),
                    // A module outside the project (`json`): nothing to
                    // point at.
                    None => Some(Resolution {
                        via: Via::Import,
                        ..unresolved
                    }),
                }
            }
            Dynamic::Member { module, level } => {
                let found = self
                    .dynamic_module(f, *level, module)
                    .map(|m| self.member(Entity::Module(m), &reference.name, 0));
                match found {
                    Some(Entity::Def(df, dd)) => {
                        let role =
                            if reference.role == Role::Call && is_instantiable(self.kind(df, dd)) {
                                Role::Instantiate
                            } else {
                                reference.role
                            };
                        Some(Resolution {
                            role,
                            target: self.definition(df, dd).map(|d| d.id.clone()),
                            confidence: DYNAMIC_CONFIDENCE,
                            via: Via::Import,
                            ..unresolved
                        })
                    }
                    Some(Entity::Module(m)) => Some(Resolution {
                        target: self.src.path(m).map(str::to_owned),
                        confidence: DYNAMIC_CONFIDENCE,
                        via: Via::Import,
                        ..unresolved
                    }),
                    _ => Some(Resolution {
                        via: Via::Import,
                        ..unresolved
                    }),
                }
            }
            Dynamic::Name => match self.static_resolution(f, r, reference) {
                Some(found) => Some(Resolution {
                    status: Status::Dynamic,
                    confidence: found.confidence * DYNAMIC_CONFIDENCE,
                    ..found
                }),
                None => Some(unresolved),
            },
        }
    }

    /// The project's module a dynamic import in file `f` names (`name`
    /// without its `level` leading dots), when it is one.
    fn dynamic_module(&self, f: usize, level: u32, name: &str) -> Option<usize> {
        let module = absolute_module(
            self.src.module(f).unwrap_or_default(),
            self.src.is_package(f),
            level,
            name,
        )?;
        self.by_module.get(module.as_str()).copied()
    }

    /// [`Self::resolution`] of a reference read as written.
    fn static_resolution(&self, f: usize, r: usize, reference: &Reference) -> Option<Resolution> {
        let mut entity = self.lookup(f, reference);
        if entity == Entity::Unknown && self.rust(f) {
            entity = self.rust_unresolved(reference);
            // No definition is written: an item a project macro makes (a
            // prelude name, `Some`, is passed to macros as a value, not to
            // name an item).
            if entity == Entity::Unknown
                && !(reference.receiver == Receiver::Bare
                    && is_ambient(self.path(f), &reference.name))
                && let Some(made) = self.rust_macro_made(f, reference)
            {
                return Some(Resolution {
                    file: f,
                    reference: r,
                    role: reference.role,
                    status: Status::Dynamic,
                    target: self.definition(made.0, made.1).map(|d| d.id.clone()),
                    candidates: Vec::new(),
                    confidence: DYNAMIC_CONFIDENCE,
                    via: Via::Macro,
                });
            }
        }
        entity = self.rust_member_kind(f, reference, entity);
        let mut role = reference.role;
        let resolved = |target: (usize, usize), via: Via, confidence: f32| {
            let id = self.definition(target.0, target.1).map(|d| d.id.clone());
            (Status::Resolved, id, Vec::new(), confidence, via)
        };
        let via_for_hit = self.via(f, reference);
        let (status, target, candidates, confidence, via) = match entity {
            Entity::Def(df, dd) => {
                if role == Role::Call && is_instantiable(self.kind(df, dd)) {
                    role = Role::Instantiate;
                }
                resolved((df, dd), via_for_hit, 1.0)
            }
            // A variable holding an instance (`self`, `x = User()`) names no
            // definition itself.
            Entity::Local | Entity::Instance(..) => return None,
            Entity::External => (Status::External, None, Vec::new(), 0.0, Via::Import),
            Entity::Module(m) => (
                Status::Module,
                self.src.path(m).map(str::to_owned),
                Vec::new(),
                1.0,
                via_for_hit,
            ),
            Entity::Unknown
                if reference.receiver == Receiver::Bare
                    && reference.role != Role::Import
                    && is_ambient(self.path(f), &reference.name) =>
            {
                // A builtin, prelude or global name no scope binds: it is
                // the language's own, never a project definition.
                (Status::External, None, Vec::new(), 1.0, Via::Scope)
            }
            Entity::Unknown => {
                let bare = reference.receiver == Receiver::Bare;
                let matches = self.same_name(reference, bare);
                if self.rust_outside(f, matches.len()) {
                    return Some(Resolution {
                        file: f,
                        reference: r,
                        role,
                        status: Status::External,
                        target: None,
                        candidates: Vec::new(),
                        confidence: 1.0,
                        via: Via::None,
                    });
                }
                if bare
                    && matches.len() == 1
                    && reference.role != Role::Import
                    && !is_builtin(&reference.name)
                    && let Some(&only) = matches.first()
                {
                    if role == Role::Call && is_instantiable(self.kind(only.0, only.1)) {
                        role = Role::Instantiate;
                    }
                    resolved(only, Via::ProjectUnique, 0.6)
                } else {
                    // The one definition of the name in this file or in a
                    // file it imports: the likely one, listed first. When it
                    // is the project's only definition of the name, it is
                    // shown by default (`name_imported`). Measured on the
                    // SCIP benchmark (bench/scip), about one in five of
                    // those is right (hence the confidence); one among
                    // several in the project, as often wrong, would take the
                    // default answer's precision under 98%: listed first
                    // only.
                    let imported = self.imported_files(f);
                    let mut reachable = matches
                        .iter()
                        .copied()
                        .filter(|&(cf, _)| cf == f || imported.binary_search(&cf).is_ok());
                    let likely = match (reachable.next(), reachable.next()) {
                        (Some(one), None) if reference.role != Role::Import => Some(one),
                        _ => None,
                    };
                    let shown = likely.is_some() && matches.len() == 1;
                    let via = match (matches.is_empty(), shown) {
                        (true, _) => Via::None,
                        (false, true) => Via::NameImported,
                        (false, false) => Via::NameOnly,
                    };
                    let confidence = match (matches.len(), shown) {
                        (0, _) => 0.0,
                        (_, true) => 0.2,
                        (n, false) => 1.0 / n as f32,
                    };
                    let mut ordered: Vec<(usize, usize)> = likely.into_iter().collect();
                    ordered.extend(matches.iter().copied().filter(|&m| Some(m) != likely));
                    if matches.len() > MAX_CANDIDATES {
                        // Too many to list: the likely one alone.
                        ordered.truncate(usize::from(likely.is_some()));
                    }
                    let ids = ordered
                        .iter()
                        .filter_map(|&(cf, cd)| self.definition(cf, cd).map(|d| d.id.clone()))
                        .collect();
                    (Status::Candidate, None, ids, confidence, via)
                }
            }
        };
        Some(Resolution {
            file: f,
            reference: r,
            role,
            status,
            target,
            candidates,
            confidence,
            via,
        })
    }

    /// The rule a successful lookup of `reference` used.
    fn via(&self, f: usize, reference: &Reference) -> Via {
        if reference.role == Role::Import {
            return Via::Import;
        }
        let head = match &reference.receiver {
            Receiver::Bare => reference.name.as_str(),
            Receiver::Path(_) | Receiver::Call(_) | Receiver::Value(_) | Receiver::Expression => {
                return Via::Receiver;
            }
        };
        let scope = reference
            .binding
            .as_ref()
            .map_or("", |s| s.qualname.as_str());
        if self.tables(f).imports.contains_key(&(scope, head)) {
            Via::Import
        } else if scope.is_empty() {
            Via::Module
        } else {
            Via::Scope
        }
    }

    /// Definitions named like `reference`: top-level ones for a bare name,
    /// members (qualname with a dot) for an attribute.
    fn same_name(&self, reference: &Reference, bare: bool) -> Cow<'_, [(usize, usize)]> {
        let Some(names) = &self.names else {
            return Cow::Owned(self.src.named(&reference.name, !bare));
        };
        let by_name = if bare { &names.top } else { &names.members };
        Cow::Borrowed(
            by_name
                .get(reference.name.as_str())
                .map_or(&[], Vec::as_slice),
        )
    }

    /// The import binding of the statement that holds an import-role
    /// reference at `line`: the last binding (in source order) that starts
    /// at or before `line` and satisfies `wanted`. Bindings carry their
    /// statement's first line and a name of a multi-line import stands on
    /// its own line, below it (`from m import (\n    a,\n)`).
    fn statement_binding(
        &self,
        f: usize,
        line: u32,
        wanted: impl Fn(&ImportBinding) -> bool,
    ) -> Option<&'a ImportBinding> {
        // Not a binary search: bindings are in source order per language
        // adapter, but nothing in the facts' contract promises it.
        let mut found: Option<&'a ImportBinding> = None;
        for binding in &self.facts(f).imports {
            if binding.line <= line
                && found.is_none_or(|b| b.line <= binding.line)
                && wanted(binding)
            {
                found = Some(binding);
            }
        }
        found
    }

    /// What `reference` denotes.
    fn lookup(&self, f: usize, reference: &Reference) -> Entity {
        let found = self.lookup_any(f, reference);
        // A TypeScript name that is a value and a type (`interface X` and
        // `const X`), written where a type goes: the type (tsc keeps the
        // two meanings of one symbol apart by position).
        match found {
            Entity::Def(df, dd) if matches!(reference.role, Role::TypeUse | Role::Inherit) => {
                let (tf, td) = self.type_side(df, dd);
                Entity::Def(tf, td)
            }
            other => other,
        }
    }

    /// [`Self::lookup`] before a merged name is taken for its type.
    fn lookup_any(&self, f: usize, reference: &Reference) -> Entity {
        if reference.role == Role::Import {
            // A default import's reference is named by its local name.
            let binding = self.statement_binding(f, reference.line, |b| {
                b.name.as_deref() == Some(reference.name.as_str())
                    || (b.name.as_deref() == Some("default") && b.local == reference.name)
            });
            if let Some(binding) = binding {
                return self.follow_import(f, binding, 0);
            }
            // An alias (`import x as y`) of a name the scope also defines:
            // that definition.
            let alias = self.statement_binding(f, reference.line, |b| {
                b.local == reference.name && b.name.as_deref() != Some(reference.name.as_str())
            });
            let Some(alias) = alias else {
                return Entity::Unknown;
            };
            let definition = match &alias.scope {
                Some(scope) => self.child(f, &scope.qualname, &alias.local),
                None => self.tables(f).qualnames.get(alias.local.as_str()).copied(),
            };
            return match definition {
                Some(d) => Entity::Def(f, d),
                None => Entity::Unknown,
            };
        }
        let scope = reference.binding.as_ref().map(|s| s.qualname.as_str());
        // Python and TypeScript/JavaScript receivers: their types followed
        // (`types`); Python's `super().m` below.
        let is_super = matches!(&reference.receiver, Receiver::Call(p) if p.len() == 1 && p.first().is_some_and(|h| h == "super"));
        if !self.rust(f)
            && !is_super
            && !matches!(reference.receiver, Receiver::Bare | Receiver::Expression)
        {
            types::reset_budget();
            let inner = reference.scope.as_ref().map(|s| s.qualname.as_str());
            let receiver = self.receiver_ty(f, inner, scope, &reference.receiver, reference.line);
            let found = self.member_ty(&receiver, &reference.name, 0).0;
            // An object literal's key or a keyword argument that names no
            // member is the literal's own property or the callee's
            // parameter: no reference of a definition, nor a candidate.
            if let Receiver::Value(Value::Literal(_) | Value::Keywords(_)) = &reference.receiver
                && !matches!(found, Entity::Def(..))
            {
                return Entity::Local;
            }
            // A member of a global no scope binds (`Object.entries`,
            // `JSON.parse`, `console.log`, Python's `str.join`): outside
            // the project.
            if found == Entity::Unknown
                && let Some(head) = receiver_head(&reference.receiver)
                && is_ambient(self.path(f), head)
                && self.name(f, scope, head, reference.line, 0) == Entity::Unknown
            {
                return Entity::External;
            }
            return found;
        }
        match &reference.receiver {
            Receiver::Bare => {
                if scope.is_none()
                    && let Some(entity) = self.rust_inline_item(f, reference, &reference.name)
                {
                    return entity;
                }
                let mut entity = self.name(f, scope, &reference.name, reference.line, 0);
                // A TypeScript value read of a name that is a type too
                // (`const s = …; type s = …`): the value.
                if reference.role != Role::TypeUse
                    && let Entity::Def(df, dd) = entity
                {
                    let (vf, vd) = self.value_side(df, dd);
                    entity = Entity::Def(vf, vd);
                }
                // A local variable names no definition itself, even when it
                // stands for one (`cls = JSONEncoder`).
                match scope {
                    Some(s)
                        if self.child(f, s, &reference.name).is_none()
                            && self
                                .latest_import(f, s, &reference.name, reference.line)
                                .is_none() =>
                    {
                        match entity {
                            Entity::Def(..) | Entity::Module(_) => Entity::Local,
                            other => other,
                        }
                    }
                    _ => entity,
                }
            }
            Receiver::Path(path) => {
                let Some((head, rest)) = path.split_first() else {
                    return Entity::Unknown;
                };
                if self.rust(f)
                    && scope.is_none()
                    && let Some(entity) = self.rust_rooted(f, reference, path)
                {
                    return entity;
                }
                let mut entity = self.name(f, scope, head, reference.line, 0);
                if entity == Entity::Unknown && self.rust(f) && scope.is_none() {
                    // An extern crate or a workspace crate by name.
                    entity = match self.rust_path(std::slice::from_ref(head), 0) {
                        Entity::Unknown => Entity::External,
                        other => other,
                    };
                }
                for part in rest {
                    entity = self.member(entity, part, 0);
                }
                self.member(entity, &reference.name, 0)
            }
            Receiver::Call(path) => {
                let Some((head, rest)) = path.split_first() else {
                    return Entity::Unknown;
                };
                let mut callee = self.name(f, scope, head, reference.line, 0);
                // Python's `super().m`: `m` in the bases of the enclosing
                // class (of the method the reference is in).
                // Not found in the project's bases: a base outside the
                // project (`requests`' adapter, `object`) has it.
                if head == "super" && rest.is_empty() && callee == Entity::Unknown {
                    return match self.super_member(f, reference) {
                        Entity::Unknown => Entity::External,
                        found => found,
                    };
                }
                for part in rest {
                    callee = self.member(callee, part, 0);
                }
                let result = self.call_result(callee, 0);
                self.member(result, &reference.name, 0)
            }
            Receiver::Expression | Receiver::Value(_) => Entity::Unknown,
        }
    }

    /// What calling `callee` gives: an instance of the class called, or of
    /// the declared return type of the function called; unknown otherwise.
    fn call_result(&self, callee: Entity, hops: u32) -> Entity {
        let Entity::Def(f, d) = callee else {
            return Entity::Unknown;
        };
        let kind = self.kind(f, d);
        if is_instantiable(kind) {
            return Entity::Instance(f, d);
        }
        // A variable that names a class or a function (`Alias = m.User`):
        // calling it calls what it names.
        if matches!(kind, Some(SymbolKind::Variable | SymbolKind::Constant)) {
            if hops > MAX_HOPS {
                return Entity::Unknown;
            }
            return match self.value_of(f, d, hops + 1) {
                named @ Entity::Def(..) => self.call_result(named, hops + 1),
                _ => Entity::Unknown,
            };
        }
        if !matches!(
            kind,
            Some(SymbolKind::Function | SymbolKind::Method | SymbolKind::Getter)
        ) {
            return Entity::Unknown;
        }
        self.declared_return(f, d, hops)
    }

    /// An instance of the declared return type of function `d` of file `f`.
    fn declared_return(&self, f: usize, d: usize, hops: u32) -> Entity {
        let Some(definition) = self.definition(f, d) else {
            return Entity::Unknown;
        };
        let Some(found) = self.tables(f).returns.get(definition.qualname.as_str()) else {
            return Entity::Unknown;
        };
        let parent = definition.qualname.rsplit_once('.').map(|(p, _)| p);
        // Rust's `-> Self` in an impl or trait: an instance of that block's
        // type (its members are the block's).
        if self.rust(f)
            && found.type_of.len() == 1
            && found.type_of.first().is_some_and(|t| t == "Self")
        {
            return match parent.and_then(|p| self.tables(f).qualnames.get(p)) {
                Some(&block) => Entity::Instance(f, block),
                None => Entity::Unknown,
            };
        }
        match self.path_in_scope(f, parent, &found.type_of, u32::MAX, hops + 1) {
            Entity::Def(tf, td) if is_type(self.kind(tf, td)) => Entity::Instance(tf, td),
            _ => Entity::Unknown,
        }
    }

    /// `super().name` in a method: `name` in the bases of the innermost
    /// class around the reference, as an instance's member.
    fn super_member(&self, f: usize, reference: &Reference) -> Entity {
        let mut current = reference.scope.as_ref().map(|s| s.qualname.as_str());
        while let Some(scope) = current {
            if let Some(&c) = self.tables(f).qualnames.get(scope)
                && self.kind(f, c) == Some(SymbolKind::Class)
            {
                let mut seen = HashSet::default();
                seen.insert((f, c));
                for &(bf, bd) in self.bases_of(f, c).iter() {
                    let found = self.class_member(bf, bd, &reference.name, &mut seen, true, 0);
                    if found != Entity::Unknown {
                        return found;
                    }
                }
                return Entity::Unknown;
            }
            current = scope.rsplit_once('.').map(|(parent, _)| parent);
        }
        Entity::Unknown
    }

    /// What an attribute fact holds: an instance of its type when known,
    /// else a value of unknown type.
    fn attribute_value(&self, f: usize, attribute: &Attribute, hops: u32) -> Entity {
        let Some(path) = &attribute.type_of else {
            return Entity::Local;
        };
        if hops > MAX_HOPS {
            return Entity::Local;
        }
        let scope = attribute.scope.as_ref().map(|s| s.qualname.as_str());
        // `self.x = x` with `x` a parameter or local of known type.
        if let [only] = path.as_slice()
            && scope.is_some()
            && let found @ Entity::Instance(..) =
                self.local_type(f, scope, only, attribute.line, hops + 1)
        {
            return found;
        }
        let entity = self.path_in_scope(f, scope, path, attribute.line, hops + 1);
        self.value_entity(entity, hops + 1)
    }

    /// The name `name` as seen from `scope` (a function or class qualname of
    /// file `f` binding it, `None` for module level) at `line`.
    fn name(&self, f: usize, scope: Option<&str>, name: &str, line: u32, hops: u32) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Unknown;
        }
        if let Some(scope) = scope {
            if let Some(d) = self.child(f, scope, name) {
                return Entity::Def(f, d);
            }
            if let Some(binding) = self.latest_import(f, scope, name, line) {
                return self.follow_import(f, binding, hops + 1);
            }
            return self.local_type(f, Some(scope), name, line, hops);
        }
        let definition = self.tables(f).qualnames.get(name).copied();
        let import = self.latest_import(f, "", name, line);
        let (bound, bound_line) = match (definition, import) {
            (Some(d), Some(binding)) => {
                let def_line = self.definition(f, d).map_or(0, |d| d.start_line);
                if binding.line > def_line && binding.line <= line.max(def_line) {
                    (self.follow_import(f, binding, hops + 1), binding.line)
                } else if let Some(imported) = self.import_over_fallback(f, d, binding, hops) {
                    (imported, binding.line)
                } else {
                    (self.variable(f, d, hops), def_line)
                }
            }
            (Some(d), None) => (
                self.variable(f, d, hops),
                self.definition(f, d).map_or(0, |d| d.start_line),
            ),
            (None, Some(binding)) => (self.follow_import(f, binding, hops + 1), binding.line),
            (None, None) if self.rust(f) || self.script(f) => {
                return self.star_member(f, name, hops, &mut HashSet::from_iter([f]));
            }
            // A module-level name bound only by a statement (`for x in
            // xs:` at module level) whose type is known.
            (None, None) if self.tables(f).types.contains_key(&("", name)) => {
                match self.local_type(f, None, name, line, hops + 1) {
                    found @ Entity::Instance(..) => (found, 0),
                    _ => (Entity::Unknown, 0),
                }
            }
            (None, None) => (Entity::Unknown, 0),
        };
        if self.rust(f) || self.script(f) || self.tables(f).stars.is_empty() {
            return bound;
        }
        // Python: `from m import *` binds the names it brings at its line,
        // so the last binding wins, as for any other (a star import after
        // a `def f`, or the second of two star imports giving `f`).
        let stars = self.python_star_bindings(f, name, hops);
        let star = stars
            .iter()
            .rev()
            .find(|&&(star_line, _)| star_line <= line)
            .or(stars.last())
            .copied();
        // The star import wins when nothing else binds the name, or when it
        // is in force at `line` and the other binding is not, or is older.
        match star {
            Some((star_line, entity))
                if bound == Entity::Unknown
                    || (star_line <= line && (bound_line > line || star_line > bound_line)) =>
            {
                entity
            }
            _ => bound,
        }
    }

    /// Python: the import of a name that a module-level variable also
    /// binds, when the import is a class, function or type and the
    /// variable is a fallback for it (`if TYPE_CHECKING: from m import X` /
    /// `else: X = Any`; `try: from m import X` / `except ImportError: X =
    /// None`): what a type checker takes the name to be. `None` otherwise.
    fn import_over_fallback(
        &self,
        f: usize,
        d: usize,
        binding: &ImportBinding,
        hops: u32,
    ) -> Option<Entity> {
        if self.rust(f) || self.script(f) {
            return None;
        }
        let fallback = matches!(
            self.kind(f, d),
            Some(SymbolKind::Variable | SymbolKind::Constant | SymbolKind::TypeAlias)
        );
        if !fallback {
            return None;
        }
        match self.follow_import(f, binding, hops + 1) {
            imported @ Entity::Def(g, e)
                if matches!(
                    self.kind(g, e),
                    Some(
                        SymbolKind::Class
                            | SymbolKind::Function
                            | SymbolKind::Interface
                            | SymbolKind::TypeAlias
                            | SymbolKind::Enum
                    )
                ) =>
            {
                Some(imported)
            }
            _ => None,
        }
    }

    /// The module-level star imports of the Python file `f` that bring
    /// `name`, in source order: each one's line and what `name` is there.
    fn python_star_bindings(&self, f: usize, name: &str, hops: u32) -> Vec<(u32, Entity)> {
        let mut found = Vec::new();
        for star in &self.tables(f).stars {
            let Some(target) = self.import_target(f, star, hops + 1) else {
                continue;
            };
            if !self.star_exports(target, name) {
                continue;
            }
            let entity = match self.own_member(target, name, hops + 1) {
                entity @ (Entity::Def(..) | Entity::Module(_)) => entity,
                _ => self.star_member(target, name, hops + 1, &mut HashSet::from_iter([f, target])),
            };
            if matches!(entity, Entity::Def(..) | Entity::Module(_)) {
                found.push((star.line, entity));
            }
        }
        found
    }

    /// A module-level definition; a variable whose type is known counts as
    /// the definition itself (its id), its members are looked up on the type.
    fn variable(&self, f: usize, d: usize, _hops: u32) -> Entity {
        Entity::Def(f, d)
    }

    /// The import binding of `name` in `scope` of file `f` that is in force
    /// at `line`: the last one at or before it, else the first.
    fn latest_import(
        &self,
        f: usize,
        scope: &str,
        name: &str,
        line: u32,
    ) -> Option<&'a ImportBinding> {
        let bindings = self.tables(f).imports.get(&(scope, name))?;
        bindings
            .iter()
            .rev()
            .find(|b| b.line <= line)
            .or_else(|| bindings.first())
            .copied()
    }

    /// A local name of unknown definition: its type when known.
    fn local_type(
        &self,
        f: usize,
        scope: Option<&str>,
        name: &str,
        line: u32,
        hops: u32,
    ) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Local;
        }
        let found = self
            .tables(f)
            .types
            .get(&(scope.unwrap_or(""), name))
            .and_then(|types| nearest_local(types, line));
        let Some(found) = found else {
            return Entity::Local;
        };
        match &found.type_of {
            TypeOf::Type(_) | TypeOf::Value(_) => self
                .local_ty(f, scope, name, line, hops + 1)
                .map_or(Entity::Local, |ty| match ty.entity() {
                    // A local of a primitive type (`x: number`) is a local.
                    Entity::Unknown | Entity::External => Entity::Local,
                    other => other,
                }),
            TypeOf::Instance(class) => {
                match self.tables(f).qualnames.get(class.qualname.as_str()) {
                    Some(&d) => Entity::Instance(f, d),
                    None => Entity::Local,
                }
            }
            TypeOf::Class(class) => match self.tables(f).qualnames.get(class.qualname.as_str()) {
                Some(&d) => Entity::Def(f, d),
                None => Entity::Local,
            },
            TypeOf::Path(path) => {
                // A name's own binding is not its type (`x = x.copy()`).
                let own = path.len() == 1 && path.first().is_some_and(|p| p == name);
                if own {
                    return Entity::Local;
                }
                let entity = self.path_in_scope(f, scope, path, line, hops + 1);
                self.value_entity(entity, hops + 1)
            }
            TypeOf::Alias(path) => {
                let own = path.len() == 1 && path.first().is_some_and(|p| p == name);
                if own {
                    return Entity::Local;
                }
                match self.path_in_scope(f, scope, path, line, hops + 1) {
                    found @ (Entity::Def(..) | Entity::Instance(..) | Entity::Module(_)) => found,
                    _ => Entity::Local,
                }
            }
            // A collection: its own members are not its elements'.
            TypeOf::Elements(_) => Entity::Local,
            TypeOf::ElementOf(path) => {
                let own = path.len() == 1 && path.first().is_some_and(|p| p == name);
                if own {
                    return Entity::Local;
                }
                match self.element_type(f, scope, path, found.line, hops + 1) {
                    Some((tf, tscope, element, tline)) => {
                        let entity = self.path_in_scope(tf, tscope, element, tline, hops + 1);
                        match self.value_entity(entity, hops + 1) {
                            found @ Entity::Instance(..) => found,
                            _ => Entity::Local,
                        }
                    }
                    None => Entity::Local,
                }
            }
        }
    }

    /// The element type of the collection the dotted `path` (written in
    /// `scope` of file `f`, at `line`) denotes: the type's dotted name with
    /// the file, scope and line it is written in. Known for a local or
    /// module-level name with a [`TypeOf::Elements`] type, and for an
    /// attribute of an instance of known class whose [`Attribute`] fact is
    /// a collection (or is assigned such a name: `self.xs = xs`).
    fn element_type(
        &self,
        f: usize,
        scope: Option<&str>,
        path: &[String],
        line: u32,
        hops: u32,
    ) -> Option<(usize, Option<&'a str>, &'a [String], u32)> {
        if hops > MAX_HOPS {
            return None;
        }
        match path {
            [] => None,
            [name] => {
                // The innermost scope that gives the name a type, then the
                // enclosing ones, then the module.
                let mut current = scope;
                loop {
                    if let Some(types) = self
                        .tables(f)
                        .types
                        .get(&(current.unwrap_or(""), name.as_str()))
                    {
                        let found = types
                            .iter()
                            .rev()
                            .find(|t| t.line <= line)
                            .or_else(|| types.first())?;
                        let TypeOf::Elements(element) = &found.type_of else {
                            return None;
                        };
                        let written = found.scope.as_ref().map(|s| s.qualname.as_str());
                        return Some((f, written, element, found.line));
                    }
                    current = match current {
                        Some(s) => s.rsplit_once('.').map(|(parent, _)| parent),
                        None => return None,
                    };
                }
            }
            [owner @ .., attribute] => {
                let Entity::Instance(cf, cd) = self.path_in_scope(f, scope, owner, line, hops + 1)
                else {
                    return None;
                };
                let class = self.definition(cf, cd)?;
                let fact = self
                    .tables(cf)
                    .attributes
                    .get(&(class.qualname.as_str(), attribute.as_str()))?;
                let written = fact.scope.as_ref().map(|s| s.qualname.as_str());
                let element = fact.type_of.as_deref()?;
                if fact.elements {
                    return Some((cf, written, element, fact.line));
                }
                // `self.xs = xs`, `xs` a collection of known element type.
                match element {
                    [only] if written.is_some() => self.element_type(
                        cf,
                        written,
                        std::slice::from_ref(only),
                        fact.line,
                        hops + 1,
                    ),
                    _ => None,
                }
            }
        }
    }

    /// The value a type path of a [`LocalType`] or [`Attribute`] stands
    /// for: an instance of the type it names (an annotation, a constructor
    /// call), the declared result of the function it names (`x = make()`),
    /// the value of the variable or property it names (`const { a } =
    /// this`), an instance it already is; a value of unknown type otherwise.
    fn value_entity(&self, entity: Entity, hops: u32) -> Entity {
        match entity {
            Entity::Def(tf, td) => match self.kind(tf, td) {
                kind if is_type(kind) => Entity::Instance(tf, td),
                Some(SymbolKind::Function | SymbolKind::Method) => {
                    match self.declared_return(tf, td, hops + 1) {
                        found @ Entity::Instance(..) => found,
                        _ => Entity::Local,
                    }
                }
                Some(
                    SymbolKind::Variable
                    | SymbolKind::Constant
                    | SymbolKind::Property
                    | SymbolKind::Field
                    | SymbolKind::Getter,
                ) => match self.value_of(tf, td, hops + 1) {
                    found @ Entity::Instance(..) => found,
                    // A variable naming a class or a function (`Alias =
                    // m.User`; `x = Alias()`).
                    named @ Entity::Def(..) if hops < MAX_HOPS => {
                        self.value_entity(named, hops + 1)
                    }
                    _ => Entity::Local,
                },
                _ => Entity::Local,
            },
            found @ Entity::Instance(..) => found,
            _ => Entity::Local,
        }
    }

    /// A dotted path written in `scope` of file `f`: its head is looked up
    /// in that scope, then in the enclosing ones, then at module level.
    fn path_in_scope(
        &self,
        f: usize,
        scope: Option<&str>,
        path: &[String],
        line: u32,
        hops: u32,
    ) -> Entity {
        let Some((head, rest)) = path.split_first() else {
            return Entity::Unknown;
        };
        let mut entity = Entity::Unknown;
        let mut current = scope;
        while let Some(s) = current {
            if let Some(d) = self.child(f, s, head) {
                entity = Entity::Def(f, d);
                break;
            }
            if let Some(binding) = self.latest_import(f, s, head, line) {
                entity = self.follow_import(f, binding, hops + 1);
                break;
            }
            // A local of known type (`self`, `this`, a typed parameter).
            if self.tables(f).types.contains_key(&(s, head.as_str())) {
                entity = self.local_type(f, Some(s), head, line, hops + 1);
                break;
            }
            current = s.rsplit_once('.').map(|(parent, _)| parent);
        }
        // A Rust type path from a module (`&crate::m::T`, `util::T`).
        if entity == Entity::Unknown
            && self.rust(f)
            && let Some(found) = self.rust_module_path(f, scope, path)
        {
            return found;
        }
        if entity == Entity::Unknown {
            entity = self.name(f, None, head, line, hops + 1);
        }
        for part in rest {
            entity = self.member(entity, part, hops + 1);
        }
        entity
    }

    /// The file an import binding's module is, or `None` outside the project.
    /// `hops` bounds the recursion (a Rust glob's module is found through
    /// paths whose members may go through globs again).
    fn import_target(&self, f: usize, binding: &ImportBinding, hops: u32) -> Option<usize> {
        if self.rust(f) {
            // A glob's module is a plain path: a few hops are enough, and
            // a bound keeps globs of globs from multiplying.
            return match self.rust_import(f, binding, false, (hops + 1).max(MAX_HOPS - 8)) {
                Entity::Module(m) => Some(m),
                _ => None,
            };
        }
        if self.script(f) {
            // An empty specifier is the file itself (`export { a as b }`).
            if binding.module.is_empty() {
                return Some(f);
            }
            return self
                .tables(f)
                .specifiers
                .get(binding.module.as_str())
                .copied()
                .flatten();
        }
        let module = absolute_module(
            self.src.module(f).unwrap_or_default(),
            self.src.is_package(f),
            binding.level,
            &binding.module,
        )?;
        self.by_module.get(module.as_str()).copied()
    }

    fn follow_import(&self, f: usize, binding: &ImportBinding, hops: u32) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Unknown;
        }
        if self.rust(f) {
            return self.rust_import(f, binding, true, hops + 1);
        }
        let Some(m) = self.import_target(f, binding, hops + 1) else {
            // `from . import sub` where `.` is a namespace: try the submodule.
            if let Some(name) = &binding.name
                && !self.script(f)
            {
                let joined = if binding.module.is_empty() {
                    name.clone()
                } else {
                    format!("{}.{name}", binding.module)
                };
                if let Some(module) = absolute_module(
                    self.src.module(f).unwrap_or_default(),
                    self.src.is_package(f),
                    binding.level,
                    &joined,
                ) && let Some(&sub) = self.by_module.get(module.as_str())
                {
                    return Entity::Module(sub);
                }
            }
            return Entity::External;
        };
        // `from . import sub` in a package's own `__init__.py`: the import
        // of the submodule (looking the name up in the package would find
        // this very import again).
        if m == f
            && !self.script(f)
            && let Some(name) = &binding.name
            && let Some(module) = self.src.module(m)
            && let Some(sub) = self.submodule(module, name)
        {
            return Entity::Module(sub);
        }
        match &binding.name {
            None => Entity::Module(m),
            Some(name) => match self.module_member(m, name, hops + 1) {
                Entity::Unknown => Entity::Unknown,
                other => other,
            },
        }
    }

    /// `name` looked up in module file `m`: a top-level definition, a
    /// re-exported import, a submodule, a star import.
    fn module_member(&self, m: usize, name: &str, hops: u32) -> Entity {
        // Asked at the top of a lookup (with the whole hop budget), the
        // answer depends on the module and the name only: kept.
        if hops <= 2 {
            return self
                .type_cache
                .module_member(m, name, || self.module_member_uncached(m, name, hops));
        }
        self.module_member_uncached(m, name, hops)
    }

    /// [`Self::module_member`] without the cache.
    fn module_member_uncached(&self, m: usize, name: &str, hops: u32) -> Entity {
        match self.own_member(m, name, hops) {
            Entity::Unknown => self.star_member(m, name, hops, &mut HashSet::from_iter([m])),
            found => found,
        }
    }

    /// `name` in module `m` without its star imports: a definition, an
    /// import (followed), a submodule.
    fn own_member(&self, m: usize, name: &str, hops: u32) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Unknown;
        }
        // TypeScript: `export default config` names `config` (the outline's
        // `default` symbol is only the export statement).
        if self.script(m)
            && let Some(binding) = self
                .tables(m)
                .imports
                .get(&("", name))
                .and_then(|b| b.iter().find(|b| b.module.is_empty()))
        {
            let found = self.follow_import(m, binding, hops + 1);
            if found != Entity::Unknown {
                return found;
            }
        }
        if let Some(&d) = self.tables(m).qualnames.get(name) {
            if let Some(imported) = self.rust_cfg_alternative(m, name, hops) {
                return imported;
            }
            if let Some(file) = self.rust_declared_module(m, d, name) {
                return file;
            }
            return Entity::Def(m, d);
        }
        if let Some(binding) = self
            .tables(m)
            .imports
            .get(&("", name))
            .and_then(|b| b.last().copied())
            // A TypeScript/JavaScript import is a member only when exported.
            && (!self.script(m)
                || self
                    .tables(m)
                    .exports
                    .as_ref()
                    .is_none_or(|exported| exported.contains(name)))
        {
            return self.follow_import(m, binding, hops + 1);
        }
        if let Some(module) = self.src.module(m)
            && let Some(s) = self.submodule(module, name)
        {
            return Entity::Module(s);
        }
        Entity::Unknown
    }

    /// `name` as one of the names star imports (`from m import *`, Rust
    /// `use m::*`) of module `f` bring in, searched breadth of each glob
    /// first then through the globs of the globbed modules; each module is
    /// searched once (`visited`), so chains and cycles of globs cost one
    /// visit per module.
    fn star_member(&self, f: usize, name: &str, hops: u32, visited: &mut HashSet<usize>) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Unknown;
        }
        let targets: Vec<usize> = self
            .star_targets(f, hops)
            .iter()
            .copied()
            .filter(|target| visited.insert(*target))
            .collect();
        for &target in &targets {
            if !self.star_exports(target, name) {
                continue;
            }
            if let entity @ (Entity::Def(..) | Entity::Module(_)) =
                self.own_member(target, name, hops + 1)
            {
                return entity;
            }
        }
        for &target in &targets {
            if !self.star_exports(target, name) {
                continue;
            }
            if let entity @ (Entity::Def(..) | Entity::Module(_)) =
                self.star_member(target, name, hops + 1, visited)
            {
                return entity;
            }
        }
        Entity::Unknown
    }

    /// The files the module-level star imports of file `f` name, in order
    /// ([`Project::import_target`] of each, at `hops + 1`). The answer
    /// depends on `hops` only for a Rust glob past its own fixed bound, so
    /// it is kept per file otherwise: every lookup through the stars of a
    /// file (`from m import *`, `use m::*`) would compute it again.
    /// The files the imports of file `f` lead to (a module's file, an
    /// imported definition's file), sorted and without repeats; computed
    /// once per file.
    fn imported_files(&self, f: usize) -> &[usize] {
        let Some(cell) = self.imported.get(f) else {
            return &[];
        };
        cell.get_or_init(|| {
            let mut files = Vec::new();
            let mut modules = Vec::new();
            for binding in &self.facts(f).imports {
                match self.follow_import(f, binding, 0) {
                    Entity::Def(file, _) | Entity::Instance(file, _) => files.push(file),
                    Entity::Module(file) => {
                        files.push(file);
                        modules.push(file);
                    }
                    _ => {}
                }
            }
            // A module imported whole (`import click`, `import * as z`)
            // brings what it imports itself (a package's `__init__`
            // re-exports its submodules' names).
            modules.sort_unstable();
            modules.dedup();
            for m in modules {
                if m == f {
                    continue;
                }
                for binding in &self.facts(m).imports {
                    match self.follow_import(m, binding, 0) {
                        Entity::Def(file, _) | Entity::Instance(file, _) | Entity::Module(file) => {
                            files.push(file);
                        }
                        _ => {}
                    }
                }
            }
            files.sort_unstable();
            files.dedup();
            files
        })
    }

    fn star_targets(&self, f: usize, hops: u32) -> Cow<'_, [usize]> {
        let stars = &self.tables(f).stars;
        if stars.is_empty() {
            return Cow::Borrowed(&[]);
        }
        let compute = || -> Vec<usize> {
            stars
                .iter()
                .filter_map(|star| self.import_target(f, star, hops + 1))
                .collect()
        };
        // `import_target` passes a Rust glob `(hops + 2).max(MAX_HOPS - 8)`.
        let fixed = !self.rust(f) || hops + 2 <= MAX_HOPS - 8;
        let Some(cell) = self.star_targets.get(f).filter(|_| fixed) else {
            return Cow::Owned(compute());
        };
        if let Some(targets) = cell.get() {
            return Cow::Borrowed(targets);
        }
        // Computed outside the cell: a Rust glob's path may come back
        // through this file's globs (a cycle), which must not wait on it.
        let targets = compute();
        Cow::Borrowed(cell.get_or_init(|| targets))
    }

    /// Whether `from m import *` of the Python module `m` binds `name`
    /// (Python reference, "The import statement": the names of `__all__`
    /// when it is defined, else those not starting with `_`). Other
    /// languages' globs are not filtered.
    fn star_exports(&self, m: usize, name: &str) -> bool {
        if self.rust(m) || self.script(m) {
            return true;
        }
        match &self.tables(m).exports {
            Some(all) => all.contains(name),
            None => !name.starts_with('_'),
        }
    }

    /// `name` as an attribute of `entity`.
    fn member(&self, entity: Entity, name: &str, hops: u32) -> Entity {
        match entity {
            Entity::Module(m) => self.module_member(m, name, hops + 1),
            Entity::Def(f, d) | Entity::Instance(f, d) => {
                let instance = matches!(entity, Entity::Instance(..));
                match self.kind(f, d) {
                    kind if has_members(kind) => {
                        let mut seen = HashSet::default();
                        self.class_member(f, d, name, &mut seen, instance, hops + 1)
                    }
                    Some(
                        SymbolKind::Variable
                        | SymbolKind::Constant
                        | SymbolKind::Property
                        | SymbolKind::Field
                        | SymbolKind::Getter
                        | SymbolKind::Function
                        | SymbolKind::Method,
                    ) if !instance => match self.value_of(f, d, hops + 1) {
                        Entity::Instance(cf, cd) => {
                            let mut seen = HashSet::default();
                            self.class_member(cf, cd, name, &mut seen, true, hops + 1)
                        }
                        // An alias of a class or module (`Alias = mod.Class`).
                        Entity::Def(cf, cd) if has_members(self.kind(cf, cd)) => {
                            let mut seen = HashSet::default();
                            self.class_member(cf, cd, name, &mut seen, false, hops + 1)
                        }
                        Entity::Module(m) => self.module_member(m, name, hops + 1),
                        _ => Entity::Unknown,
                    },
                    _ => Entity::Unknown,
                }
            }
            Entity::External => Entity::External,
            Entity::Local | Entity::Unknown => Entity::Unknown,
        }
    }

    /// The value a variable, property or getter definition holds when its
    /// type is known: a module variable's type (`x = User()`), a class
    /// member's declared type ([`Attribute`], a class-body `x = User()`), a
    /// getter's return type. A function or method is not called here: its
    /// members are not its result's.
    fn value_of(&self, f: usize, d: usize, hops: u32) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Unknown;
        }
        let Some(definition) = self.definition(f, d) else {
            return Entity::Unknown;
        };
        match definition.kind {
            SymbolKind::Getter => return self.declared_return(f, d, hops + 1),
            SymbolKind::Function | SymbolKind::Method => return Entity::Unknown,
            _ => {}
        }
        let Some((parent, _)) = definition.qualname.rsplit_once('.') else {
            // A module variable of known type: `x = User()`.
            return self.local_type(f, None, &definition.name, u32::MAX, hops + 1);
        };
        if let Some(attribute) = self
            .tables(f)
            .attributes
            .get(&(parent, definition.name.as_str()))
        {
            return self.attribute_value(f, attribute, hops + 1);
        }
        self.local_type(f, Some(parent), &definition.name, u32::MAX, hops + 1)
    }

    /// The absolute module path (dotted segments) a Rust `use` binding's
    /// module names, from the importing file's module: `crate` is its
    /// crate, `level` 1 its own module (`self`), each more level one
    /// `super`.
    fn rust_base(&self, f: usize, binding: &ImportBinding) -> Option<Vec<String>> {
        let own: Vec<String> = self.src.module(f)?.split('.').map(str::to_owned).collect();
        let written: Vec<String> = if binding.module.is_empty() {
            Vec::new()
        } else {
            binding.module.split('.').map(str::to_owned).collect()
        };
        if binding.level == 0 {
            if written.first().map(String::as_str) == Some("crate") {
                let mut out = vec![own.first()?.clone()];
                out.extend(written.into_iter().skip(1));
                return Some(out);
            }
            return Some(written);
        }
        let mut out = own;
        for _ in 1..binding.level {
            out.pop()?;
        }
        out.extend(written);
        Some(out)
    }

    /// What a Rust `use` binding names: with `with_name`, the item (module
    /// path and name), else the module. A path that is not absolute (no
    /// `crate`/`self`/`super`) is an extern or workspace crate, or (Rust
    /// 2018) a module of the importing file's module.
    fn rust_import(&self, f: usize, binding: &ImportBinding, with_name: bool, hops: u32) -> Entity {
        if hops > MAX_HOPS {
            return Entity::Unknown;
        }
        let Some(mut segments) = self.rust_base(f, binding) else {
            return Entity::External;
        };
        if with_name && let Some(name) = &binding.name {
            segments.push(name.clone());
        }
        let found = self.rust_path(&segments, hops);
        if found != Entity::External || binding.level != 0 {
            if with_name {
                return self.rust_item_over_module(&segments, found, hops);
            }
            return found;
        }
        if let Some(own) = self.src.module(f) {
            let mut relative: Vec<String> = own.split('.').map(str::to_owned).collect();
            relative.extend(segments);
            // Only when that finds something: `use core::fmt` in a module
            // that has no `core` stays external (it went to `Unknown`, then
            // to a same-named project item).
            let local = self.rust_path(&relative, hops);
            if matches!(local, Entity::Def(..) | Entity::Module(_)) {
                if with_name {
                    return self.rust_item_over_module(&relative, local, hops);
                }
                return local;
            }
        }
        Entity::External
    }

    /// The entity a full Rust path names: the longest prefix that is a
    /// module file, then members; [`Entity::External`] when no prefix is a
    /// module of the project.
    fn rust_path(&self, segments: &[String], hops: u32) -> Entity {
        for i in (1..=segments.len()).rev() {
            let key = segments[..i].join(".");
            if let Some(&m) = self.by_module.get(key.as_str()) {
                let mut entity = Entity::Module(m);
                for part in &segments[i..] {
                    entity = self.member(entity, part, hops + 1);
                }
                return entity;
            }
        }
        Entity::External
    }

    /// A Rust path starting at `crate`, `self` or `super` (a module path,
    /// not a value; `self` and `super` count the inline modules around
    /// `reference`), at an item of the inline module around it (`b::User`
    /// in `mod a { mod b { … } … }`), or at a module file declared in the
    /// module around it (`util::f()` after `mod util;`): what `reference`'s
    /// path and name reach. `None` for any other head.
    fn rust_rooted(&self, f: usize, reference: &Reference, path: &[String]) -> Option<Entity> {
        let scope = reference.scope.as_ref().map(|s| s.qualname.as_str());
        let mut full = path.to_vec();
        full.push(reference.name.clone());
        self.rust_module_path(f, scope, &full)
    }

    /// What the Rust path `path` (its last segment included) reaches from
    /// the definition `scope` of file `f` (`None`: the file's level), when
    /// its head is `crate`, `self`, `super`, an item of the inline module
    /// around `scope`, or a module file declared in the module around it
    /// (see [`Self::rust_rooted`]); `None` for any other head.
    fn rust_module_path(&self, f: usize, scope: Option<&str>, path: &[String]) -> Option<Entity> {
        let head = path.first()?.as_str();
        let inline = scope.and_then(|scope| self.rust_inline_module(f, scope));
        if !matches!(head, "crate" | "self" | "super") {
            let mut entity = match inline.and_then(|module| self.child(f, module, head)) {
                Some(d) => Entity::Def(f, d),
                None => self.rust_child_module(f, inline, head)?,
            };
            for part in path.get(1..).unwrap_or_default() {
                entity = self.member(entity, part, 0);
            }
            return Some(entity);
        }
        let mut own: Vec<String> = self.src.module(f)?.split('.').map(str::to_owned).collect();
        if let Some(inline) = inline {
            own.extend(inline.split('.').map(str::to_owned));
        }
        let mut segments: Vec<String>;
        let mut rest = path;
        if head == "crate" {
            segments = vec![own.first()?.clone()];
            rest = rest.get(1..).unwrap_or_default();
        } else {
            segments = own;
            if head == "self" {
                rest = rest.get(1..).unwrap_or_default();
            }
            while rest.first().map(String::as_str) == Some("super") {
                segments.pop()?;
                rest = rest.get(1..).unwrap_or_default();
            }
        }
        segments.extend(rest.iter().cloned());
        Some(match self.rust_path(&segments, 0) {
            Entity::External => Entity::Unknown,
            other => self.rust_item_over_module(&segments, other, 0),
        })
    }

    /// The module file `name` of the module of file `f` and the inline
    /// modules `inline` in it: a `mod name;` declared there is in scope in
    /// it (Rust Reference, "Modules"), so `util::f()` after `mod util;`
    /// reaches `util.rs`. `None` when there is no such module file.
    fn rust_child_module(&self, f: usize, inline: Option<&str>, name: &str) -> Option<Entity> {
        let mut module = self.src.module(f)?.to_owned();
        if let Some(inline) = inline {
            module.push('.');
            module.push_str(inline);
        }
        module.push('.');
        module.push_str(name);
        self.by_module
            .get(module.as_str())
            .map(|&m| Entity::Module(m))
    }

    /// The qualname of the innermost inline module (`mod m { … }`) around
    /// the definition `scope` (a qualname) of the Rust file `f` (`a.b` for
    /// `mod a { mod b { … } }`); `None` at the file's own level or in
    /// another language.
    fn rust_inline_module<'r>(&self, f: usize, scope: &'r str) -> Option<&'r str> {
        if !self.rust(f) {
            return None;
        }
        let qualname = scope;
        let is_module = |prefix: &str| {
            self.tables(f)
                .qualnames
                .get(prefix)
                .is_some_and(|&d| self.kind(f, d) == Some(SymbolKind::Module))
        };
        let mut found = None;
        let ends = qualname
            .match_indices('.')
            .map(|(i, _)| i)
            .chain(std::iter::once(qualname.len()));
        for end in ends {
            let prefix = qualname.get(..end)?;
            if !is_module(prefix) {
                break;
            }
            found = Some(prefix);
        }
        found
    }

    /// `name` as an item of the inline module holding `reference` (Rust
    /// Reference, "Use declarations": items shadow glob imports, so `mod
    /// tests { use super::*; fn helper() {} }` calls its own `helper`);
    /// `None` outside inline modules or when the module has no such item
    /// (its imports are not told apart from the file's).
    fn rust_inline_item(&self, f: usize, reference: &Reference, name: &str) -> Option<Entity> {
        let scope = reference.scope.as_ref()?.qualname.as_str();
        let module = self.rust_inline_module(f, scope)?;
        let d = self.child(f, module, name)?;
        Some(Entity::Def(f, d))
    }

    /// `name` in class `d` of file `f` or, depth first, in its bases. On an
    /// `instance`, an attribute assigned through `self` comes before a class
    /// member of the same name (Python), giving the attribute's value.
    fn class_member(
        &self,
        f: usize,
        d: usize,
        name: &str,
        seen: &mut HashSet<(usize, usize)>,
        instance: bool,
        hops: u32,
    ) -> Entity {
        if !seen.insert((f, d)) || seen.len() > MAX_HOPS as usize {
            return Entity::Unknown;
        }
        let Some(class) = self.definition(f, d) else {
            return Entity::Unknown;
        };
        let attribute = self
            .tables(f)
            .attributes
            .get(&(class.qualname.as_str(), name));
        if instance
            && let Some(attribute) = attribute
            && attribute.instance
        {
            return self.attribute_value(f, attribute, hops + 1);
        }
        if let Some(m) = self.child(f, &class.qualname, name) {
            return Entity::Def(f, m);
        }
        // A declared attribute that is no symbol (a TypeScript constructor
        // parameter property).
        if let Some(attribute) = attribute
            && !attribute.instance
        {
            return self.attribute_value(f, attribute, hops + 1);
        }
        // Rust: an inline module's imports, an impl block's type, and a
        // type's impl blocks.
        if let found @ (Entity::Def(..) | Entity::Module(_) | Entity::External) =
            self.rust_inline_import(f, d, name, hops)
        {
            return found;
        }
        if let Some(&(tf, td)) = self.impl_of.get(&(f, d)) {
            return self.class_member(tf, td, name, seen, instance, hops);
        }
        for &(bf, bd) in self
            .impls
            .get(&(f, d))
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let Some(block) = self.definition(bf, bd) else {
                continue;
            };
            if let Some(m) = self.child(bf, &block.qualname, name) {
                return Entity::Def(bf, m);
            }
        }
        for &(bf, bd) in self.bases_of(f, d).iter() {
            if let found @ (Entity::Def(..) | Entity::Instance(..) | Entity::Local) =
                self.class_member(bf, bd, name, seen, instance, hops)
            {
                return found;
            }
        }
        Entity::Unknown
    }
}

/// Whether `name`, used bare in the file `path` where no scope binds it, is
/// the language's own: Python's builtins, Rust's standard prelude (Rust
/// Reference, "Preludes": the 2021 edition's `std::prelude`, primitive
/// types and the standard library's macros), or a global of the
/// ECMAScript/Web/Node environment.
fn is_ambient(path: &str, name: &str) -> bool {
    if is_rust(path) {
        const PRELUDE: &[&str] = &[
            "Option",
            "Some",
            "None",
            "Result",
            "Ok",
            "Err",
            "Vec",
            "String",
            "Box",
            "ToString",
            "ToOwned",
            "Clone",
            "Copy",
            "Send",
            "Sync",
            "Sized",
            "Unpin",
            "Drop",
            "Fn",
            "FnMut",
            "FnOnce",
            "Iterator",
            "IntoIterator",
            "Extend",
            "DoubleEndedIterator",
            "ExactSizeIterator",
            "Default",
            "Eq",
            "PartialEq",
            "Ord",
            "PartialOrd",
            "AsRef",
            "AsMut",
            "Into",
            "From",
            "TryFrom",
            "TryInto",
            "FromIterator",
            "drop",
            "bool",
            "char",
            "str",
            "u8",
            "u16",
            "u32",
            "u64",
            "u128",
            "usize",
            "i8",
            "i16",
            "i32",
            "i64",
            "i128",
            "isize",
            "f32",
            "f64",
            "vec",
            "println",
            "print",
            "eprintln",
            "eprint",
            "format",
            "format_args",
            "write",
            "writeln",
            "assert",
            "assert_eq",
            "assert_ne",
            "debug_assert",
            "debug_assert_eq",
            "debug_assert_ne",
            "panic",
            "matches",
            "todo",
            "unimplemented",
            "unreachable",
            "dbg",
            "include_str",
            "include_bytes",
            "include",
            "env",
            "option_env",
            "concat",
            "stringify",
            "cfg",
            "line",
            "column",
            "file",
            "module_path",
            "compile_error",
        ];
        return PRELUDE.contains(&name);
    }
    if is_script(path) {
        const GLOBALS: &[&str] = &[
            "console",
            "module",
            "exports",
            "require",
            "window",
            "document",
            "globalThis",
            "self",
            "process",
            "Buffer",
            "__dirname",
            "__filename",
            "Promise",
            "Array",
            "Object",
            "String",
            "Number",
            "Boolean",
            "Symbol",
            "BigInt",
            "Map",
            "Set",
            "WeakMap",
            "WeakSet",
            "WeakRef",
            "JSON",
            "Math",
            "Date",
            "RegExp",
            "Error",
            "TypeError",
            "RangeError",
            "SyntaxError",
            "ReferenceError",
            "EvalError",
            "URIError",
            "AggregateError",
            "Reflect",
            "Proxy",
            "Intl",
            "ArrayBuffer",
            "DataView",
            "Uint8Array",
            "Int8Array",
            "Uint16Array",
            "Int16Array",
            "Uint32Array",
            "Int32Array",
            "Float32Array",
            "Float64Array",
            "BigInt64Array",
            "BigUint64Array",
            "Uint8ClampedArray",
            "parseInt",
            "parseFloat",
            "isNaN",
            "isFinite",
            "encodeURI",
            "decodeURI",
            "encodeURIComponent",
            "decodeURIComponent",
            "setTimeout",
            "clearTimeout",
            "setInterval",
            "clearInterval",
            "setImmediate",
            "queueMicrotask",
            "structuredClone",
            "fetch",
            "URL",
            "URLSearchParams",
            "TextEncoder",
            "TextDecoder",
            "AbortController",
            "undefined",
            "NaN",
            "Infinity",
            "arguments",
            "eval",
            "atob",
            "btoa",
            "crypto",
            "performance",
            "navigator",
            "location",
            "history",
            "localStorage",
            "sessionStorage",
            "alert",
            "requestAnimationFrame",
            "cancelAnimationFrame",
            "Event",
            "EventTarget",
            "CustomEvent",
            "Blob",
            "File",
            "FormData",
            "Headers",
            "Request",
            "Response",
            "WebSocket",
            "Worker",
            "Function",
            "Iterator",
            "AsyncIterator",
            "FinalizationRegistry",
            "SharedArrayBuffer",
            "Atomics",
            "WebAssembly",
        ];
        return GLOBALS.contains(&name);
    }
    is_builtin(name)
}

/// Python's builtin names (`builtins` module, 3.14): a bare use of one that no
/// scope binds is the builtin, never a project definition.
fn is_builtin(name: &str) -> bool {
    const BUILTINS: &[&str] = &[
        "ArithmeticError",
        "AssertionError",
        "AttributeError",
        "BaseException",
        "BaseExceptionGroup",
        "BlockingIOError",
        "BrokenPipeError",
        "BufferError",
        "BytesWarning",
        "ChildProcessError",
        "ConnectionAbortedError",
        "ConnectionError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "DeprecationWarning",
        "EOFError",
        "Ellipsis",
        "EncodingWarning",
        "EnvironmentError",
        "Exception",
        "ExceptionGroup",
        "False",
        "FileExistsError",
        "FileNotFoundError",
        "FloatingPointError",
        "FutureWarning",
        "GeneratorExit",
        "IOError",
        "ImportError",
        "ImportWarning",
        "IndentationError",
        "IndexError",
        "InterruptedError",
        "IsADirectoryError",
        "KeyError",
        "KeyboardInterrupt",
        "LookupError",
        "MemoryError",
        "ModuleNotFoundError",
        "NameError",
        "None",
        "NotADirectoryError",
        "NotImplemented",
        "NotImplementedError",
        "OSError",
        "OverflowError",
        "PendingDeprecationWarning",
        "PermissionError",
        "ProcessLookupError",
        "PythonFinalizationError",
        "RecursionError",
        "ReferenceError",
        "ResourceWarning",
        "RuntimeError",
        "RuntimeWarning",
        "StopAsyncIteration",
        "StopIteration",
        "SyntaxError",
        "SyntaxWarning",
        "SystemError",
        "SystemExit",
        "TabError",
        "TimeoutError",
        "True",
        "TypeError",
        "UnboundLocalError",
        "UnicodeDecodeError",
        "UnicodeEncodeError",
        "UnicodeError",
        "UnicodeTranslateError",
        "UnicodeWarning",
        "UserWarning",
        "ValueError",
        "Warning",
        "ZeroDivisionError",
        "abs",
        "aiter",
        "all",
        "anext",
        "any",
        "ascii",
        "bin",
        "bool",
        "breakpoint",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "classmethod",
        "compile",
        "complex",
        "copyright",
        "credits",
        "delattr",
        "dict",
        "dir",
        "divmod",
        "enumerate",
        "eval",
        "exec",
        "exit",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "globals",
        "hasattr",
        "hash",
        "help",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "license",
        "list",
        "locals",
        "map",
        "max",
        "memoryview",
        "min",
        "next",
        "object",
        "oct",
        "open",
        "ord",
        "pow",
        "print",
        "property",
        "quit",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "setattr",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "vars",
        "zip",
        "__import__",
        "__name__",
        "__file__",
        "__doc__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__debug__",
        "__build_class__",
    ];
    BUILTINS.contains(&name)
}
