//! Rust-only steps of the resolver, called from the general lookups in
//! `resolve.rs` (a child module, so it reads the resolver's tables).

use outline_core::SymbolKind;
use outline_core::xref::{MacroRules, Receiver, Reference, Role};

use rustc_hash::FxHashMap as HashMap;

use super::{Entity, MAX_HOPS, MacroMade, Project};
use crate::source::Source;

/// A `macro_rules!` definition (file, definition) with its facts.
type Found<'r> = Option<((usize, usize), &'r MacroRules)>;

/// The names of a file out of range (none).
static NO_MACRO_MADE: std::sync::LazyLock<MacroMade> = std::sync::LazyLock::new(MacroMade::default);

impl<S: Source + ?Sized> Project<'_, S> {
    /// What a Rust reference the scope rules did not find may still be: a
    /// bare name that is a crate of the project (`tokio` in `tokio::spawn`
    /// written in one of its integration tests, Rust Reference, "Extern
    /// prelude") is that crate's root module. [`Entity::Unknown`] otherwise.
    pub(super) fn rust_unresolved(&self, reference: &Reference) -> Entity {
        if reference.receiver == Receiver::Bare
            && let Entity::Module(m) = self.rust_path(std::slice::from_ref(&reference.name), 0)
        {
            return Entity::Module(m);
        }
        Entity::Unknown
    }

    /// Whether a Rust reference that no rule resolved and that no
    /// definition of the project is named like is outside the project: a
    /// method or item of the standard library or of a dependency
    /// (`x.unwrap()`, `libc::close`), as nothing in the project could be
    /// its target. (Items a project's own `macro_rules!` makes are found
    /// before, see [`Self::rust_macro_made`].)
    pub(super) fn rust_outside(&self, f: usize, matches: usize) -> bool {
        self.rust(f) && matches == 0
    }

    /// The module file a Rust `mod name;` declaration of module file `m`
    /// (its definition `d`) loads, when the module tree knows it: a path
    /// through the declaration (`tokio::runtime::Builder`, the `mod
    /// runtime;` of `lib.rs`) goes on in that file, not in the declaration
    /// symbol, which has no members. `None` for any other definition.
    pub(super) fn rust_declared_module(&self, m: usize, d: usize, name: &str) -> Option<Entity> {
        if !self.rust(m) || self.kind(m, d) != Some(SymbolKind::Module) {
            return None;
        }
        let module = self.src.module(m)?;
        self.submodule(module, name).map(Entity::Module)
    }

    /// `name` in the inline module `d` (`mod sync { pub(crate) use
    /// std::sync::Arc; }`) of the Rust file `f` when it is no item of it:
    /// the file's `use` of that name. A `use` inside an inline module is
    /// recorded with the file's (`ImportBinding` has no inline scope), so
    /// an import of the same name at the file's level is taken too.
    pub(super) fn rust_inline_import(&self, f: usize, d: usize, name: &str, hops: u32) -> Entity {
        if hops > MAX_HOPS || !self.rust(f) || self.kind(f, d) != Some(SymbolKind::Module) {
            return Entity::Unknown;
        }
        match self
            .tables(f)
            .imports
            .get(&("", name))
            .and_then(|b| b.last().copied())
        {
            Some(binding) => self.follow_import(f, binding, hops + 1),
            None => Entity::Unknown,
        }
    }

    /// A Rust member found by name that is of the wrong namespace for how
    /// it is used: a call `x.m()` is a method, never a field, and a field
    /// access `x.m` (no call) a field, never a method (Rust Reference,
    /// "Method-call expressions", "Field access expressions"); a type with
    /// a field and a method of one name (`recursive` of a builder) has both.
    /// The other one of the same type when there is one, else `entity`.
    pub(super) fn rust_member_kind(
        &self,
        f: usize,
        reference: &Reference,
        entity: Entity,
    ) -> Entity {
        let Entity::Def(df, dd) = entity else {
            return entity;
        };
        if !self.rust(f) || reference.receiver == Receiver::Bare {
            return entity;
        }
        let Some(definition) = self.definition(df, dd) else {
            return entity;
        };
        let Some((parent, _)) = definition.qualname.rsplit_once('.') else {
            return entity;
        };
        let Some(&owner) = self.tables(df).qualnames.get(parent) else {
            return entity;
        };
        match (definition.kind, reference.role) {
            // A field where a method is called: the type's impl blocks.
            (SymbolKind::Field, Role::Call) => {
                for &(bf, bd) in self
                    .impls
                    .get(&(df, owner))
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    let Some(block) = self.definition(bf, bd) else {
                        continue;
                    };
                    if let Some(m) = self.child(bf, &block.qualname, &definition.name)
                        && matches!(
                            self.kind(bf, m),
                            Some(SymbolKind::Method | SymbolKind::Function)
                        )
                    {
                        return Entity::Def(bf, m);
                    }
                }
                entity
            }
            // A method where a field is read or written: the type's field.
            // (`Self::m`, `Type::m` name the method: a `::` path starts
            // with a type, a `.` chain with a value.)
            (SymbolKind::Method | SymbolKind::Function, Role::Attribute)
                if match &reference.receiver {
                    Receiver::Path(path) => path
                        .first()
                        .is_some_and(|head| head.starts_with(|c: char| c.is_lowercase())),
                    _ => true,
                } =>
            {
                let (tf, td) = self
                    .impl_of
                    .get(&(df, owner))
                    .copied()
                    .unwrap_or((df, owner));
                let Some(ty) = self.definition(tf, td) else {
                    return entity;
                };
                match self.child(tf, &ty.qualname, &definition.name) {
                    Some(field) if self.kind(tf, field) == Some(SymbolKind::Field) => {
                        Entity::Def(tf, field)
                    }
                    _ => entity,
                }
            }
            _ => entity,
        }
    }

    /// A Rust module that both defines `name` and imports it (`use` at its
    /// level) holds `#[cfg]` alternatives, as rustc refuses the two at once
    /// (E0255): the import is taken when it leads to a definition. Stubs and
    /// platform shims are the ones written in place (`cfg_not_rt! { fn
    /// spawn_blocking() { panic!(…) } }`, an emscripten shim beside `pub(crate)
    /// use crate::runtime::spawn_mandatory_blocking`), the implementation is
    /// usually what the module re-exports. The same holds for `mod spawn;
    /// pub use spawn::spawn;`, where the module and the function it
    /// re-exports share the name in two namespaces: the function is taken
    /// (`tokio::spawn(…)`; a path going on through the module, rarer, is
    /// then not found). `None` when `m` has no such import or it leads
    /// nowhere in the project.
    pub(super) fn rust_cfg_alternative(&self, m: usize, name: &str, hops: u32) -> Option<Entity> {
        if !self.rust(m) || hops > MAX_HOPS {
            return None;
        }
        let binding = self.tables(m).imports.get(&("", name))?.last().copied()?;
        match self.follow_import(m, binding, hops + 1) {
            found @ (Entity::Def(..) | Entity::Module(_)) => Some(found),
            _ => None,
        }
    }

    /// `found`, what the full path `segments` names, unless it is a module
    /// file whose parent module also gives the last segment as an item (a
    /// definition or an import of one): an import or a path ending in a
    /// name takes the item there (`pub use task::spawn;` beside `mod spawn;
    /// pub use spawn::spawn;` in `task` names the function; Rust Reference,
    /// "Use declarations": a `use` imports every namespace of the name, and
    /// a call or a type reads the value or type one).
    pub(super) fn rust_item_over_module(
        &self,
        segments: &[String],
        found: Entity,
        hops: u32,
    ) -> Entity {
        let Entity::Module(_) = found else {
            return found;
        };
        let Some((last, parent)) = segments.split_last() else {
            return found;
        };
        if parent.is_empty() || hops > MAX_HOPS {
            return found;
        }
        match self.rust_path(parent, hops + 1) {
            Entity::Module(p) => match self.own_member(p, last, hops + 1) {
                item @ Entity::Def(..) => item,
                _ => found,
            },
            _ => found,
        }
    }

    /// The project's `macro_rules!` definition (file, definition) that
    /// makes the item a Rust `reference` names when no definition of it is
    /// written: a macro invocation in item position passes the name to a
    /// macro whose body defines an item from a fragment (`make_getter!(
    /// get_count, count)` with `fn $name`), or the macro's body defines an
    /// item of that literal name (`make_unit!()` with `struct Unit;`).
    /// Macros are never expanded: the bodies and arguments are read token
    /// by token ([`MacroRules`], [`outline_core::xref::MacroCall`]).
    ///
    /// The invocations read are those of the reference's file, then those
    /// of the module file its import (`use crate::a::get_count`) or path
    /// (`a::get_count()`) leads to. A bare name is made by an invocation at
    /// module level; a member of a value (`s.get_size()`,
    /// `Self::get_size()`) by one in an impl block or trait, when no
    /// definition of the project has the name (else the name-only
    /// candidates stay); a path with no local head (`a::f`, `State::f`) by
    /// either. The macro is the definition of that name in
    /// the invocation's file, else the project's only top-level one.
    /// `None` for other files and macros from outside the project (`std`,
    /// dependencies, derives).
    pub(super) fn rust_macro_made(
        &self,
        f: usize,
        reference: &Reference,
    ) -> Option<(usize, usize)> {
        if !self.rust(f) {
            return None;
        }
        let (module_level, member) = match &reference.receiver {
            Receiver::Bare => (true, false),
            Receiver::Path(_) if reference.binding.is_none() => (true, true),
            // A member of a value: when a definition of the project has
            // the name, the value's type (not known here) may well be its
            // (a trait's method the macro implements for some types only):
            // the candidates stay.
            _ => (false, self.same_name(reference, false).is_empty()),
        };
        let mut files = vec![f];
        if let Some(m) = self.rust_made_in(f, reference)
            && m != f
        {
            files.push(m);
        }
        files.into_iter().find_map(|m| {
            let made = self.macro_made(m);
            let name = reference.name.as_str();
            let at_module = module_level.then(|| made.module.get(name)).flatten();
            at_module
                .or_else(|| member.then(|| made.members.get(name)).flatten())
                .copied()
        })
    }

    /// The names file `m`'s item-position macro invocations make (see
    /// [`Self::rust_macro_made`]), computed on first use.
    fn macro_made(&self, m: usize) -> &MacroMade {
        let Some(cell) = self.macro_made.get(m) else {
            return &NO_MACRO_MADE;
        };
        cell.get_or_init(|| {
            let mut made = MacroMade::default();
            let mut rules_of: HashMap<&str, Found<'_>> = HashMap::default();
            for call in &self.facts(m).macro_calls {
                let Some((def, rules)) = *rules_of
                    .entry(call.name.as_str())
                    .or_insert_with(|| self.rust_macro_rules(m, &call.name))
                else {
                    continue;
                };
                let names = if call.owner.is_some() {
                    &mut made.members
                } else {
                    &mut made.module
                };
                let passed = call.idents.iter().filter(|_| rules.fragment_items);
                for name in rules.items.iter().chain(passed) {
                    names.entry(name.clone()).or_insert(def);
                }
            }
            made
        })
    }

    /// The module file whose items a Rust reference of file `f` names
    /// through an import (an import-role reference, or a bare name a
    /// module-level `use` binds) or a module path (`a::get_count`).
    fn rust_made_in(&self, f: usize, reference: &Reference) -> Option<usize> {
        let binding = match (&reference.receiver, reference.role) {
            (Receiver::Bare, Role::Import) => self.facts(f).imports.iter().rfind(|b| {
                b.name.as_deref() == Some(reference.name.as_str()) && b.line <= reference.line
            }),
            (Receiver::Bare, _) if reference.binding.is_none() => self
                .tables(f)
                .imports
                .get(&("", reference.name.as_str()))
                .and_then(|b| b.last().copied()),
            (Receiver::Path(path), _) if reference.binding.is_none() => {
                let scope = reference.scope.as_ref().map(|s| s.qualname.as_str());
                return match self.rust_module_path(f, scope, path) {
                    Some(Entity::Module(m)) => Some(m),
                    _ => match self.rust_path(path, 0) {
                        Entity::Module(m) => Some(m),
                        _ => None,
                    },
                };
            }
            _ => None,
        }?;
        match self.rust_import(f, binding, false, 0) {
            Entity::Module(m) => Some(m),
            _ => None,
        }
    }

    /// The `macro_rules!` named `name` that a macro invocation of file `m`
    /// calls, when it defines items: the file's own definition of it, else
    /// the project's only top-level one; with its [`MacroRules`].
    fn rust_macro_rules(&self, m: usize, name: &str) -> Option<((usize, usize), &MacroRules)> {
        let own = self
            .src
            .definitions(m)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind == SymbolKind::Macro && d.name == name)
            .map(|(d, _)| (m, d))
            .next_back();
        let def = match own {
            Some(def) => def,
            None => {
                let named = match &self.names {
                    Some(names) => names.top.get(name).cloned().unwrap_or_default(),
                    None => self.src.named(name, false),
                };
                let mut macros = named.into_iter().filter(|&(df, dd)| {
                    self.rust(df) && self.kind(df, dd) == Some(SymbolKind::Macro)
                });
                match (macros.next(), macros.next()) {
                    (Some(only), None) => only,
                    _ => return None,
                }
            }
        };
        let definition = self.definition(def.0, def.1)?;
        let rules = self.facts(def.0).macro_rules.iter().find(|r| {
            r.definition.qualname == definition.qualname
                && r.definition.start_line == definition.start_line
        })?;
        Some((def, rules))
    }
}
