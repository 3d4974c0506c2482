//! Types of values: what a receiver, a local or a callback's parameter is,
//! followed through written types ([`TypeExpr`]) and values ([`Value`]):
//! type arguments substituted along bases (`interface ZodString extends
//! _ZodString<Internals>`), type parameters read as their constraint or
//! default when no argument is known, `this` return types, overloads chosen
//! by their number of arguments, callback parameters typed by the callee's
//! parameter types, collections and promises of the standard library.
//!
//! Where the languages' checkers infer more (a generic function's type
//! arguments from its arguments, conditional and mapped types, narrowing),
//! the type is unknown and the reference stays a candidate: the engine
//! answers what pyright and tsserver would answer, or nothing.
//!
//! Evaluation is bounded: every step spends one unit of a per-reference
//! budget ([`STEP_BUDGET`]), so recursive aliases (`type Json = Json[] |
//! string`) and long chains end, unknown.

use std::cell::Cell;
use std::sync::{Arc as Rc, Mutex};

use outline_core::SymbolKind;
use outline_core::xref::{Attribute, Signature, TypeExpr, TypeOf, Value};

use super::{Entity, MAX_HOPS, Project, has_members, is_instantiable, is_type};
use crate::source::Source;

/// Steps one reference's resolution may spend evaluating types.
pub(super) const STEP_BUDGET: u32 = 4_000;

thread_local! {
    /// Steps left for the reference being resolved on this thread.
    static STEPS: Cell<u32> = const { Cell::new(STEP_BUDGET) };
    /// Whether an evaluation on this thread stopped at a bound (steps or
    /// hops) since it was last cleared: its result is then not cached.
    static TRUNCATED: Cell<bool> = const { Cell::new(false) };
    /// Whether an evaluation on this thread needed the value of a type
    /// parameter's placeholder ([`Ty::Param`]: a member of it, a call of
    /// it) since it was last cleared: its generic result is then not kept.
    static OPAQUE: Cell<bool> = const { Cell::new(false) };
}

/// What [`TypeCache`] keeps: results that depend only on the facts, not on
/// where they were asked from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum CacheKey {
    /// A module-level name of a TypeScript/JavaScript file.
    ModuleName(usize, Box<str>),
    /// [`Project::def_value`] of (file, definition).
    DefValue(usize, usize),
    /// [`Project::bind`] of a generic owner (file, address of its qualname)
    /// read without arguments.
    Bounds(usize, usize),
    /// The type a local type fact gives (its address).
    Local(usize),
    /// [`Project::returned`] of (file, definition, argument count) with no
    /// env and no receiver.
    Returned(usize, usize, u32),
    /// The same, read with the type parameters of the function and of its
    /// class, and its receiver, as placeholders.
    ReturnedGeneric(usize, usize, u32),
    /// The bases of a class or interface (file, definition) with its type
    /// parameters as placeholders.
    Bases(usize, usize),
    /// An attribute's value (its fact's address) with its class's type
    /// parameters and receiver as placeholders.
    Attribute(usize),
    /// [`Project::inst_member`] of (file, class, member name) with the
    /// class's type parameters and receiver as placeholders.
    Member(usize, usize, Box<str>),
    /// [`Project::module_member`] of (module file, name) at the top of a
    /// lookup.
    ModuleMember(usize, Box<str>),
}

/// A cached result: a type, a list of types, or the note that the generic
/// evaluation needed its placeholders' values (evaluate with them bound).
#[derive(Debug, Clone)]
enum Cached<'a> {
    One(Ty<'a>),
    Many(Rc<[Ty<'a>]>),
    Env(Env<'a>),
    /// A class's member: the definition found and its value.
    Member(Entity, Ty<'a>),
    /// A class has no member of the name.
    NoMember,
    Concrete,
}

/// Types evaluated once per resolver: a module-level variable's value, a
/// generic's default bounds, a function's result are asked for by many
/// references.
#[derive(Default)]
pub(super) struct TypeCache<'a> {
    map: Mutex<rustc_hash::FxHashMap<CacheKey, Cached<'a>>>,
}

impl<'a> TypeCache<'a> {
    fn get(&self, key: &CacheKey) -> Option<Cached<'a>> {
        self.map.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: CacheKey, value: Cached<'a>) {
        if let Ok(mut map) = self.map.lock() {
            map.insert(key, value);
        }
    }

    /// A module's member (see [`Project::module_member`]): `compute`d once
    /// when found (a name not found may be one a bound cut short).
    pub(super) fn module_member(
        &self,
        m: usize,
        name: &str,
        compute: impl FnOnce() -> Entity,
    ) -> Entity {
        let key = CacheKey::ModuleMember(m, name.into());
        if let Some(Cached::One(Ty::E(entity))) = self.get(&key) {
            return entity;
        }
        let entity = compute();
        if !matches!(entity, Entity::Unknown) {
            self.put(key, Cached::One(Ty::E(entity)));
        }
        entity
    }
}

/// Runs `compute` and caches its result under `key` unless a bound cut it
/// short; a cached result is returned without computing.
fn cached<'a>(cache: &TypeCache<'a>, key: CacheKey, compute: impl FnOnce() -> Ty<'a>) -> Ty<'a> {
    if let Some(Cached::One(ty)) = cache.get(&key) {
        return ty;
    }
    let outer = TRUNCATED.with(|t| t.replace(false));
    let ty = compute();
    let truncated = TRUNCATED.with(|t| t.get());
    if !truncated {
        cache.put(key, Cached::One(ty.clone()));
    }
    TRUNCATED.with(|t| t.set(outer || truncated));
    ty
}

/// The generic result under `key` (computed by `generic`, with type
/// parameters as placeholders, and cached) with the placeholders replaced
/// by `subst`; when the generic evaluation needed a placeholder's value,
/// `concrete` computes it with them bound, every time.
fn cached_generic<'a>(
    cache: &TypeCache<'a>,
    key: CacheKey,
    generic: impl FnOnce() -> Ty<'a>,
    subst: impl FnOnce(&Ty<'a>) -> Ty<'a>,
    concrete: impl FnOnce() -> Ty<'a>,
) -> Ty<'a> {
    match cache.get(&key) {
        Some(Cached::One(ty)) => return subst(&ty),
        Some(Cached::Concrete) => return concrete(),
        _ => {}
    }
    let outer_truncated = TRUNCATED.with(|t| t.replace(false));
    let outer_opaque = OPAQUE.with(|t| t.replace(false));
    let ty = generic();
    let truncated = TRUNCATED.with(|t| t.get());
    let opaque = OPAQUE.with(|t| t.get());
    TRUNCATED.with(|t| t.set(outer_truncated || truncated));
    OPAQUE.with(|t| t.set(outer_opaque));
    if opaque {
        if !truncated {
            cache.put(key, Cached::Concrete);
        }
        return concrete();
    }
    if !truncated {
        cache.put(key, Cached::One(ty.clone()));
    }
    subst(&ty)
}

/// Marks the current evaluation as needing a placeholder's value.
fn opaque<T>(value: T) -> T {
    OPAQUE.with(|t| t.set(true));
    value
}

/// Marks the current evaluation as cut short by a bound.
fn truncate<T>(value: T) -> T {
    TRUNCATED.with(|t| t.set(true));
    value
}

/// Gives the next reference resolved on this thread a full budget.
pub(super) fn reset_budget() {
    STEPS.with(|s| s.set(STEP_BUDGET));
}

/// Spends one step; `false` when the budget is spent (the evaluation is
/// then marked cut short).
fn step() -> bool {
    STEPS.with(|s| {
        let left = s.get();
        if left == 0 {
            return truncate(false);
        }
        s.set(left - 1);
        true
    })
}

/// Whether `hops` is past the bound (marking the evaluation cut short).
fn too_deep(hops: u32) -> bool {
    hops > MAX_HOPS && truncate(true)
}

/// Type arguments bound to type parameters by name.
pub(super) type Env<'a> = Rc<Vec<(&'a str, Ty<'a>)>>;

/// What a value is, as far as the engine can follow it.
#[derive(Debug, Clone)]
pub(super) enum Ty<'a> {
    /// What a name lookup gives (a definition itself, a module, something
    /// external, a local of unknown type, nothing).
    E(Entity),
    /// An instance of the type definition `d` of file `f` with its type
    /// arguments (those not given: their defaults or constraints).
    Inst(usize, usize, Rc<[Ty<'a>]>),
    /// An array, list, set or other collection of elements of a type.
    Array(Rc<Ty<'a>>),
    /// A mapping (`Map<K, V>`, `dict[K, V]`, `Record<K, V>`) of values of
    /// a type.
    Mapping(Rc<Ty<'a>>),
    /// A promise (awaitable) of a value of a type.
    Promise(Rc<Ty<'a>>),
    /// Any of several types.
    Union(Rc<[Ty<'a>]>),
    /// A function type from an annotation: its parameters' and result's
    /// types.
    Func(Rc<[Ty<'a>]>, Rc<Ty<'a>>),
    /// A function or method definition as a value, with the type arguments
    /// of the class it was found in and the value it was reached through
    /// (the `this` of its signature).
    Bound(usize, usize, Env<'a>, Option<Rc<Ty<'a>>>),
    /// An object type written inline, with the context it is written in.
    Object(Rc<Written<'a>>, Rc<[(String, TypeExpr)]>),
    /// A method of the standard library's collections and promises
    /// (`xs.map`, `p.then`) on a receiver.
    Builtin(Rc<Ty<'a>>, &'static str),
    /// An object literal of a contextual type ([`Value::Literal`]): its
    /// keys are members of every member of a union, or of none.
    Literal(Rc<Ty<'a>>),
    /// A type parameter (or `this`) of a generic definition evaluated once
    /// for every instance: replaced by its argument ([`Project::subst`]).
    Param(&'a str),
}

/// Where a written type or value is read: its file, scope, line, the type
/// arguments of its generic owners, and the `this` of the member it
/// belongs to.
#[derive(Debug, Clone)]
pub(super) struct Written<'a> {
    pub f: usize,
    pub scope: Option<&'a str>,
    pub line: u32,
    pub env: Env<'a>,
    pub this: Option<Rc<Ty<'a>>>,
}

impl<'a> Written<'a> {
    /// A place of file `f` with no type arguments bound.
    pub fn at(f: usize, scope: Option<&'a str>, line: u32) -> Self {
        Written {
            f,
            scope,
            line,
            env: Rc::new(Vec::new()),
            this: None,
        }
    }
}

impl<'a> Ty<'a> {
    fn unknown() -> Self {
        Ty::E(Entity::Unknown)
    }

    /// Whether nothing is known of the value.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Ty::E(Entity::Unknown | Entity::Local))
    }

    /// The entity the old lookups use for this value: an instance keeps
    /// its definition, a value of a type the lookups do not know is a
    /// local.
    pub fn entity(&self) -> Entity {
        match self {
            Ty::E(e) => *e,
            Ty::Inst(f, d, _) => Entity::Instance(*f, *d),
            Ty::Union(members) => members
                .iter()
                .map(Ty::entity)
                .find(|e| matches!(e, Entity::Instance(..)))
                .unwrap_or(Entity::Local),
            _ => Entity::Local,
        }
    }
}

/// How a name of the standard library's generic types is read, by its last
/// segment (TypeScript's lib, Python's `typing`, `collections.abc` and
/// builtins): the type argument that gives the elements, values or result.
enum Known {
    /// Elements of the argument at this position.
    Array(usize),
    /// Values of the argument at this position.
    Mapping(usize),
    /// A promise of the argument at this position.
    Promise(usize),
    /// The argument at this position itself (`Partial<T>`, `Optional[T]`,
    /// `Annotated[T, …]`).
    Same(usize),
    /// The class the argument names (`type[T]`, `Type[T]`).
    ClassOf,
    /// A union of the arguments (`Union[A, B]`).
    Union,
}

fn known(name: &str, script: bool) -> Option<Known> {
    if script {
        return Some(match name {
            "Array"
            | "ReadonlyArray"
            | "Set"
            | "ReadonlySet"
            | "Iterable"
            | "IterableIterator"
            | "Iterator"
            | "AsyncIterable"
            | "AsyncIterableIterator"
            | "Generator"
            | "AsyncGenerator"
            | "WeakSet" => Known::Array(0),
            "Map" | "ReadonlyMap" | "WeakMap" | "Record" => Known::Mapping(1),
            "Promise" | "PromiseLike" => Known::Promise(0),
            // Utility types that keep the members of their first argument
            // (and their declarations: find-references follows them).
            "Partial" | "Readonly" | "Required" | "NonNullable" | "Awaited" | "NoInfer"
            | "Omit" | "Pick" | "Extract" | "Exclude" => Known::Same(0),
            _ => return None,
        });
    }
    Some(match name {
        "list" | "List" | "set" | "Set" | "frozenset" | "FrozenSet" | "Sequence"
        | "MutableSequence" | "Iterable" | "Iterator" | "Collection" | "AbstractSet"
        | "MutableSet" | "deque" | "Deque" | "AsyncIterable" | "AsyncIterator" | "Generator"
        | "AsyncGenerator" | "Reversible" | "KeysView" | "ValuesView" => Known::Array(0),
        "dict" | "Dict" | "Mapping" | "MutableMapping" | "DefaultDict" | "defaultdict"
        | "OrderedDict" | "ChainMap" | "Counter" => Known::Mapping(1),
        "Awaitable" => Known::Promise(0),
        "Coroutine" => Known::Promise(2),
        "Optional" | "Annotated" | "Final" | "ClassVar" | "Required" | "NotRequired"
        | "ReadOnly" => Known::Same(0),
        "type" | "Type" => Known::ClassOf,
        "Union" => Known::Union,
        _ => return None,
    })
}

/// What the standard library's collection and promise methods give, and
/// the types of their callbacks' parameters (ECMAScript's `Array.prototype`
/// and `Promise.prototype`, Python's `list`/`dict` methods).
fn builtin_method(receiver: &Ty<'_>, name: &str) -> Option<&'static str> {
    const ARRAY: &[&str] = &[
        "map",
        "forEach",
        "filter",
        "find",
        "findLast",
        "findIndex",
        "findLastIndex",
        "some",
        "every",
        "flatMap",
        "reduce",
        "reduceRight",
        "sort",
        "slice",
        "concat",
        "reverse",
        "toSorted",
        "toReversed",
        "at",
        "pop",
        "shift",
        "values",
        "copy",
        "get",
        "add",
        "has",
        "append",
        "index",
        "remove",
        "items",
        "keys",
        "setdefault",
        "push",
        "unshift",
        "includes",
        "indexOf",
        "lastIndexOf",
        "fill",
        "set",
        "delete",
        "insert",
        "extend",
        "then",
        "catch",
        "finally",
    ];
    match receiver {
        Ty::Array(_) | Ty::Mapping(_) | Ty::Promise(_) => {
            ARRAY.iter().find(|&&m| m == name).copied()
        }
        _ => None,
    }
}

impl<'a, S: Source + ?Sized> Project<'a, S> {
    /// The value of `value` written at `at`; `head_scope` (when `Some`) is
    /// where the value's first name is bound (a reference's binding), which
    /// is then looked up there only.
    pub(super) fn eval_value(
        &self,
        at: &Written<'a>,
        value: &Value,
        head_scope: Option<Option<&'a str>>,
        hops: u32,
    ) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        match value {
            Value::Path(path) => {
                let Some((head, rest)) = path.split_first() else {
                    return Ty::unknown();
                };
                let mut ty = match head_scope {
                    Some(scope) => self.name_ty(at.f, scope, head, at.line, true, hops + 1),
                    None => self.head_ty(at, head, hops + 1),
                };
                for part in rest {
                    ty = self.member_ty(&ty, part, hops + 1).1;
                }
                ty
            }
            Value::Call { callee, args } => {
                // Python's `super()`: the enclosing class's bases, reached
                // through the method's `self`.
                if let Value::Path(path) = &**callee
                    && path.len() == 1
                    && path.first().is_some_and(|p| p == "super")
                    && !self.rust(at.f)
                    && !self.script(at.f)
                    && let Some(ty) = self.super_ty(at)
                {
                    return ty;
                }
                let callee = self.eval_value(at, callee, head_scope, hops + 1);
                self.call_ty(&callee, *args, hops + 1)
            }
            Value::Member(object, name) => {
                let object = self.eval_value(at, object, head_scope, hops + 1);
                self.member_ty(&object, name, hops + 1).1
            }
            Value::Element(object) => {
                let object = self.eval_value(at, object, head_scope, hops + 1);
                let object = self.valued(object, hops + 1);
                self.element_ty(&object, hops + 1)
            }
            Value::Await(object) => {
                let object = self.eval_value(at, object, head_scope, hops + 1);
                match self.valued(object, hops + 1) {
                    Ty::Promise(inner) => (*inner).clone(),
                    Ty::Param(_) => opaque(Ty::unknown()),
                    other => other,
                }
            }
            Value::Typed(ty) => self.eval_type(at, ty, hops + 1),
            Value::Param { function, index } => {
                let function = self.eval_value(at, function, head_scope, hops + 1);
                let function = self.valued(function, hops + 1);
                self.param_ty(&function, *index, hops + 1)
            }
            Value::Either(values) => {
                for v in values {
                    let ty = self.eval_value(at, v, head_scope, hops + 1);
                    if !ty.is_unknown() {
                        return ty;
                    }
                }
                Ty::unknown()
            }
            Value::Keywords(callee) => {
                let callee = self.eval_value(at, callee, head_scope, hops + 1);
                match callee {
                    Ty::E(Entity::Def(f, d))
                        if is_instantiable(self.kind(f, d)) && !self.has_init(f, d, hops + 1) =>
                    {
                        Ty::Literal(Rc::new(Ty::Inst(f, d, Rc::from(Vec::new()))))
                    }
                    _ => Ty::unknown(),
                }
            }
            Value::Literal(context) => {
                let context = self.eval_value(at, context, head_scope, hops + 1);
                Ty::Literal(Rc::new(self.valued(context, hops + 1)))
            }
            Value::Returning { function, expected } => {
                let function = self.eval_value(at, function, head_scope, hops + 1);
                let function = self.valued(function, hops + 1);
                let expected = self.eval_value(at, expected, None, hops + 1);
                self.instantiate(function, &expected, hops + 1)
            }
        }
    }

    /// The generic function `function` with the type parameters its return
    /// type names bound to the arguments of `expected` (an instance of the
    /// same generic type): `make<T>(): Box<T>` expected as `Box<User>` binds
    /// `T` to `User`. Anything else is returned as it is.
    fn instantiate(&self, function: Ty<'a>, expected: &Ty<'a>, hops: u32) -> Ty<'a> {
        let (f, d, env, this) = match &function {
            Ty::E(Entity::Def(f, d)) => (*f, *d, Rc::new(Vec::new()), None),
            Ty::Bound(f, d, env, this) => (*f, *d, env.clone(), this.clone()),
            _ => return function,
        };
        let Ty::Inst(ef, ed, eargs) = expected else {
            return function;
        };
        let Some(definition) = self.definition(f, d) else {
            return function;
        };
        let qualname = definition.qualname.as_str();
        let Some(generics) = self.tables(f).generics.get(qualname) else {
            return function;
        };
        let Some(signature) = self.signatures_for(f, d, u32::MAX).into_iter().next() else {
            return function;
        };
        let Some(TypeExpr::Named { path, args }) = &signature.ret else {
            return function;
        };
        // The return type must name the expected type's definition.
        let at = Written::at(f, Some(qualname), u32::MAX);
        match self.named_ty(&at, path, &[], hops + 1) {
            Ty::Inst(rf, rd, _) if (rf, rd) == (*ef, *ed) => {}
            _ => return function,
        }
        let mut bound: Vec<(&'a str, Ty<'a>)> = env.to_vec();
        for (arg, value) in args.iter().zip(eargs.iter()) {
            if let TypeExpr::Named { path, args } = arg
                && args.is_empty()
                && let [name] = path.as_slice()
                && let Some(param) = generics.params.iter().find(|p| p.name == *name)
            {
                bound.push((param.name.as_str(), value.clone()));
            }
        }
        // The parameters the expected type leaves open take their defaults
        // read with the others bound (`D = T["_zod"]["def"]`), as tsc does
        // when nothing infers them.
        for param in &generics.params {
            if !bound.iter().any(|(n, _)| *n == param.name.as_str()) {
                let ty = self.param_bound_in(f, qualname, param, Rc::new(bound.clone()), hops + 1);
                if !ty.is_unknown() {
                    bound.push((param.name.as_str(), ty));
                }
            }
        }
        Ty::Bound(f, d, Rc::new(bound), this)
    }

    /// The scope qualname `scope` of file `f` as the file's own string (a
    /// definition's, a local type's or an import's scope); a scope of none
    /// of them binds no name, and is read as one that binds nothing.
    fn intern(&self, f: usize, scope: &str) -> &'a str {
        let tables = self.tables(f);
        if let Some((&key, _)) = tables.qualnames.get_key_value(scope) {
            return key;
        }
        tables.scopes.get(scope).copied().unwrap_or("\u{0}")
    }

    /// A variable, constant, property or getter definition as the value it
    /// holds; anything else as it is.
    fn valued(&self, ty: Ty<'a>, hops: u32) -> Ty<'a> {
        match ty {
            Ty::E(Entity::Def(f, d))
                if matches!(
                    self.kind(f, d),
                    Some(
                        SymbolKind::Variable
                            | SymbolKind::Constant
                            | SymbolKind::Property
                            | SymbolKind::Field
                            | SymbolKind::Getter
                    )
                ) =>
            {
                match self.def_value(f, d, hops + 1) {
                    Ty::E(Entity::Def(vf, vd)) if (vf, vd) == (f, d) => Ty::unknown(),
                    value => value,
                }
            }
            other => other,
        }
    }

    /// Whether class `d` of file `f` or one of its bases defines
    /// `__init__`.
    fn has_init(&self, f: usize, d: usize, hops: u32) -> bool {
        let this = Rc::new(Ty::Inst(f, d, Rc::from(Vec::new())));
        let mut seen = Vec::new();
        self.inst_member(f, d, Vec::new(), "__init__", &this, &mut seen, hops + 1)
            .is_some_and(|(entity, _)| matches!(entity, Entity::Def(..)))
    }

    /// The class around `at`'s scope as the bases of `super()` see it: an
    /// instance of its first base (members are then looked up through the
    /// bases in order).
    fn super_ty(&self, at: &Written<'a>) -> Option<Ty<'a>> {
        let mut current = at.scope;
        while let Some(scope) = current {
            if let Some(&c) = self.tables(at.f).qualnames.get(scope)
                && self.kind(at.f, c) == Some(SymbolKind::Class)
            {
                let bases = self.bases_of(at.f, c);
                let members: Vec<Ty<'a>> = bases
                    .iter()
                    .map(|&(bf, bd)| Ty::Inst(bf, bd, Rc::from(Vec::new())))
                    .collect();
                return Some(match members.len() {
                    0 => Ty::unknown(),
                    1 => members.into_iter().next().unwrap_or_else(Ty::unknown),
                    _ => Ty::Union(Rc::from(members)),
                });
            }
            current = scope.rsplit_once('.').map(|(parent, _)| parent);
        }
        None
    }

    /// The first name of a written type or value: a type argument of the
    /// env, then the scopes from `at.scope` outwards, then the module.
    fn head_ty(&self, at: &Written<'a>, head: &str, hops: u32) -> Ty<'a> {
        if let Some((_, ty)) = at.env.iter().rev().find(|(name, _)| *name == head) {
            return ty.clone();
        }
        if head == "this"
            && let Some(this) = &at.this
        {
            return (**this).clone();
        }
        let script = self.script(at.f);
        let mut current = at.scope;
        while let Some(s) = current {
            // A TypeScript class's or interface's members are no names in
            // its body (`parse.Result` in a method of a type with a member
            // `parse` is the module `parse`).
            // (`interface X` merged with `const X`: the type's qualname.)
            let tables = self.tables(at.f);
            let members_hidden = script
                && tables
                    .type_defs
                    .get(s)
                    .or(tables.qualnames.get(s))
                    .is_some_and(|&c| {
                        matches!(
                            self.kind(at.f, c),
                            Some(SymbolKind::Class | SymbolKind::Interface)
                        )
                    });
            if (!members_hidden && self.child(at.f, s, head).is_some())
                || self.latest_import(at.f, s, head, at.line).is_some()
                || self.tables(at.f).types.contains_key(&(s, head))
            {
                return self.name_ty(at.f, Some(s), head, at.line, false, hops + 1);
            }
            // A type parameter of a generic function or class around.
            if let Some(param) = self.type_param(at.f, s, head) {
                return self.param_bound(at.f, s, param, hops + 1);
            }
            current = s.rsplit_once('.').map(|(parent, _)| parent);
        }
        if let Some(param) = self.type_param(at.f, "", head) {
            return self.param_bound(at.f, "", param, hops + 1);
        }
        // A Rust type path from a module.
        if self.rust(at.f)
            && let Some(found) = self.rust_module_path(at.f, at.scope, &[head.to_owned()])
            && found != Entity::Unknown
        {
            return Ty::E(found);
        }
        self.name_ty(at.f, None, head, at.line, false, hops + 1)
    }

    /// The type parameter `name` of the generic owner `owner` (a qualname,
    /// "" for the module's type variables) of file `f`.
    fn type_param(
        &self,
        f: usize,
        owner: &str,
        name: &str,
    ) -> Option<&'a outline_core::xref::TypeParam> {
        self.tables(f)
            .generics
            .get(owner)?
            .params
            .iter()
            .find(|p| p.name == name)
    }

    /// What a type parameter stands for when no argument is known: its
    /// default, else its constraint.
    fn param_bound(
        &self,
        f: usize,
        owner: &'a str,
        param: &'a outline_core::xref::TypeParam,
        hops: u32,
    ) -> Ty<'a> {
        self.param_bound_in(f, owner, param, Rc::new(Vec::new()), hops)
    }

    /// [`Self::param_bound`] with the type parameters before it bound as
    /// in `env`.
    fn param_bound_in(
        &self,
        f: usize,
        owner: &'a str,
        param: &'a outline_core::xref::TypeParam,
        env: Env<'a>,
        hops: u32,
    ) -> Ty<'a> {
        let Some(ty) = param.default.as_ref().or(param.constraint.as_ref()) else {
            return Ty::unknown();
        };
        // Written in the owner's own scope (its other parameters are in
        // scope there), read without arguments.
        let scope = if owner.is_empty() { None } else { Some(owner) };
        let at = Written::at(
            f,
            scope.and_then(|o| o.rsplit_once('.').map(|(p, _)| p)),
            u32::MAX,
        );
        // The owner's parameters are looked up as its type parameters
        // (not as names around it).
        let at = Written {
            scope: scope.or(at.scope),
            env,
            ..at
        };
        self.eval_type(&at, ty, hops + 1)
    }

    /// The name `name` seen from `scope` of file `f` at `line` (`exact`:
    /// only in that scope, as a reference's binding gives it; else that
    /// scope then the module), with a local's type followed.
    fn name_ty(
        &self,
        f: usize,
        scope: Option<&'a str>,
        name: &str,
        line: u32,
        exact: bool,
        hops: u32,
    ) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        if let Some(s) = scope {
            if self.child(f, s, name).is_none()
                && self.latest_import(f, s, name, line).is_none()
                && let Some(ty) = self.local_ty(f, Some(s), name, line, hops + 1)
            {
                return ty;
            }
            let entity = self.name(f, Some(s), name, line, hops + 1);
            if !exact && entity == Entity::Local {
                return Ty::E(Entity::Local);
            }
            return self.entity_ty(entity, hops + 1);
        }
        // A TypeScript/JavaScript module's names do not depend on the line
        // (declarations are hoisted, imports too): looked up once, as many
        // types name `Partial` or `Record` and a miss searches every
        // `export *`.
        if self.script(f) {
            let key = CacheKey::ModuleName(f, name.into());
            return cached(&self.type_cache, key, || {
                self.module_name_ty(f, name, line, hops)
            });
        }
        self.module_name_ty(f, name, line, hops)
    }

    /// [`Self::name_ty`] at module level.
    fn module_name_ty(&self, f: usize, name: &str, line: u32, hops: u32) -> Ty<'a> {
        let entity = self.name(f, None, name, line, hops + 1);
        if entity == Entity::Unknown
            && let Some(ty) = self.local_ty(f, None, name, line, hops + 1)
        {
            return ty;
        }
        self.entity_ty(entity, hops + 1)
    }

    /// An entity as a value: an instance of no type arguments, a
    /// definition.
    fn entity_ty(&self, entity: Entity, _hops: u32) -> Ty<'a> {
        match entity {
            Entity::Instance(f, d) => Ty::Inst(f, d, Rc::from(Vec::new())),
            other => Ty::E(other),
        }
    }

    /// The type a local name is given at `line` in `scope` (`None`: the
    /// module) by its [`outline_core::xref::LocalType`] facts; `None` when
    /// it has none.
    pub(super) fn local_ty(
        &self,
        f: usize,
        scope: Option<&str>,
        name: &str,
        line: u32,
        hops: u32,
    ) -> Option<Ty<'a>> {
        let types = self.tables(f).types.get(&(scope.unwrap_or(""), name))?;
        let found = super::nearest_local(types, line)?;
        let key = CacheKey::Local(std::ptr::from_ref(found) as usize);
        Some(cached(&self.type_cache, key, || {
            self.local_fact_ty(f, scope, name, line, found, hops)
        }))
    }

    /// The type the local type fact `found` (of `name` in `scope`) gives.
    fn local_fact_ty(
        &self,
        f: usize,
        scope: Option<&str>,
        name: &str,
        line: u32,
        found: &'a outline_core::xref::LocalType,
        hops: u32,
    ) -> Ty<'a> {
        let at = Written::at(
            f,
            found.scope.as_ref().map(|s| s.qualname.as_str()),
            found.line,
        );
        match &found.type_of {
            TypeOf::Type(ty) => self.eval_type(&at, ty, hops + 1),
            TypeOf::Value(value) => {
                // `x = x.copy()`: a name's own binding is read before it.
                let mut at = Written {
                    line: found.line.saturating_sub(1),
                    ..at
                };
                // A parameter typed by its function's context is typed by
                // an expression written around the function
                // (`f((x) => g.on((x) => …))`: the inner `x`'s context
                // names the outer `x`).
                if is_param_context(value) {
                    at.scope = at.scope.and_then(|s| s.rsplit_once('.').map(|(p, _)| p));
                }
                self.eval_value(&at, value, None, hops + 1)
            }
            TypeOf::Elements(path) => Ty::Array(Rc::new(self.named_ty(&at, path, &[], hops + 1))),
            _ => self.entity_ty(self.local_type(f, scope, name, line, hops + 1), hops + 1),
        }
    }

    /// What a reference's receiver is: its dotted path, the result of
    /// calling it, or any value; the first name is bound in `binding`
    /// (the reference's binding scope), other names are read from `scope`
    /// outwards.
    pub(super) fn receiver_ty(
        &self,
        f: usize,
        scope: Option<&str>,
        binding: Option<&str>,
        receiver: &outline_core::xref::Receiver,
        line: u32,
    ) -> Ty<'a> {
        use outline_core::xref::Receiver;
        let scope = scope.map(|s| self.intern(f, s));
        let binding = binding.map(|s| self.intern(f, s));
        let at = Written::at(f, scope, line);
        let path_ty = |path: &[String]| {
            let Some((head, rest)) = path.split_first() else {
                return Ty::unknown();
            };
            let mut ty = self.name_ty(f, binding, head, line, true, 0);
            for part in rest {
                ty = self.member_ty(&ty, part, 0).1;
            }
            ty
        };
        match receiver {
            Receiver::Bare | Receiver::Expression => Ty::unknown(),
            Receiver::Path(path) => path_ty(path),
            Receiver::Call(path) => self.call_ty(&path_ty(path), u32::MAX, 0),
            Receiver::Value(value) => self.eval_value(&at, value, Some(binding), 0),
        }
    }

    /// The value a definition is when named: a class or function itself, a
    /// variable's or property's value, a Python function rebound by its
    /// decorators.
    fn def_value(&self, f: usize, d: usize, hops: u32) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        cached(&self.type_cache, CacheKey::DefValue(f, d), || {
            self.def_value_uncached(f, d, hops)
        })
    }

    /// [`Self::def_value`] without the cache.
    fn def_value_uncached(&self, f: usize, d: usize, hops: u32) -> Ty<'a> {
        let Some(definition) = self.definition(f, d) else {
            return Ty::unknown();
        };
        match definition.kind {
            SymbolKind::Variable
            | SymbolKind::Constant
            | SymbolKind::Property
            | SymbolKind::Field => {
                let Some((parent, _)) = definition.qualname.rsplit_once('.') else {
                    return match self.local_ty(f, None, &definition.name, u32::MAX, hops + 1) {
                        Some(ty) if !ty.is_unknown() => ty,
                        _ => self.entity_ty(self.value_of(f, d, hops + 1), hops + 1),
                    };
                };
                if let Some(attribute) = self
                    .tables(f)
                    .attributes
                    .get(&(parent, definition.name.as_str()))
                {
                    let at = Written::at(
                        f,
                        attribute.scope.as_ref().map(|s| s.qualname.as_str()),
                        attribute.line,
                    );
                    return self.attribute_ty(&at, attribute, hops + 1);
                }
                match self.local_ty(f, Some(parent), &definition.name, u32::MAX, hops + 1) {
                    Some(ty) => ty,
                    None => Ty::E(Entity::Local),
                }
            }
            SymbolKind::Getter => self.returned(f, d, &Written::at(f, None, u32::MAX), 0, hops + 1),
            SymbolKind::Function | SymbolKind::Method
                if self
                    .tables(f)
                    .decorated
                    .contains_key(definition.qualname.as_str()) =>
            {
                self.decorated_ty(f, d, hops + 1)
            }
            SymbolKind::Class
                if self
                    .tables(f)
                    .decorated
                    .contains_key(definition.qualname.as_str()) =>
            {
                // A class decorator keeps the class (dataclass, total_ordering).
                Ty::E(Entity::Def(f, d))
            }
            _ => Ty::E(Entity::Def(f, d)),
        }
    }

    /// A Python function with decorators as its name is bound: each
    /// decorator, innermost first, called with what the one below gave.
    /// A decorator the engine cannot follow leaves the function as it is.
    fn decorated_ty(&self, f: usize, d: usize, hops: u32) -> Ty<'a> {
        let Some(definition) = self.definition(f, d) else {
            return Ty::unknown();
        };
        let Some(decorated) = self.tables(f).decorated.get(definition.qualname.as_str()) else {
            return Ty::E(Entity::Def(f, d));
        };
        let scope = definition.qualname.rsplit_once('.').map(|(p, _)| p);
        let at = Written::at(f, scope, definition.start_line);
        let mut ty = Ty::E(Entity::Def(f, d));
        for decorator in decorated.decorators.iter().rev() {
            let function = self.eval_value(&at, decorator, None, hops + 1);
            let applied = self.call_ty(&function, 1, hops + 1);
            if applied.is_unknown() {
                return Ty::E(Entity::Def(f, d));
            }
            ty = applied;
        }
        ty
    }

    /// An attribute's value: its written type, else the value assigned.
    fn attribute_ty(&self, at: &Written<'a>, attribute: &'a Attribute, hops: u32) -> Ty<'a> {
        if let Some(ty) = &attribute.ty {
            return self.eval_type(at, ty, hops + 1);
        }
        if let Some(value) = &attribute.value {
            return self.eval_value(at, value, None, hops + 1);
        }
        match &attribute.type_of {
            Some(path) => {
                let named = self.named_ty(at, path, &[], hops + 1);
                let named = match named {
                    // `self.x = make()`: the path names a function.
                    Ty::E(Entity::Def(tf, td))
                        if matches!(
                            self.kind(tf, td),
                            Some(SymbolKind::Function | SymbolKind::Method)
                        ) =>
                    {
                        self.call_ty(&Ty::E(Entity::Def(tf, td)), 0, hops + 1)
                    }
                    Ty::E(Entity::Def(tf, td))
                        if matches!(
                            self.kind(tf, td),
                            Some(
                                SymbolKind::Variable
                                    | SymbolKind::Constant
                                    | SymbolKind::Property
                                    | SymbolKind::Field
                            )
                        ) =>
                    {
                        self.def_value(tf, td, hops + 1)
                    }
                    other => other,
                };
                if attribute.elements {
                    Ty::Array(Rc::new(named))
                } else {
                    named
                }
            }
            None => Ty::E(Entity::Local),
        }
    }

    /// A written type read at `at`.
    pub(super) fn eval_type(&self, at: &Written<'a>, ty: &TypeExpr, hops: u32) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        match ty {
            TypeExpr::Named { path, args } => self.named_ty(at, path, args, hops + 1),
            TypeExpr::Array(element) => Ty::Array(Rc::new(self.eval_type(at, element, hops + 1))),
            TypeExpr::Tuple(elements) => {
                let members: Vec<Ty<'a>> = elements
                    .iter()
                    .map(|t| self.eval_type(at, t, hops + 1))
                    .filter(|t| !t.is_unknown())
                    .collect();
                Ty::Array(Rc::new(union(members)))
            }
            TypeExpr::Union(members) => {
                let mut members: Vec<Ty<'a>> = members
                    .iter()
                    .map(|t| self.eval_type(at, t, hops + 1))
                    .filter(|t| !t.is_unknown())
                    .collect();
                // `string | Options`: the project's members count (an
                // object literal's keys are `Options`'), the primitive's
                // only when there is nothing else.
                if members
                    .iter()
                    .any(|t| !matches!(t, Ty::E(Entity::External)))
                {
                    members.retain(|t| !matches!(t, Ty::E(Entity::External)));
                }
                union(members)
            }
            TypeExpr::Function { params, ret } => Ty::Func(
                params
                    .iter()
                    .map(|t| self.eval_type(at, t, hops + 1))
                    .collect(),
                Rc::new(self.eval_type(at, ret, hops + 1)),
            ),
            TypeExpr::Object(members) => {
                Ty::Object(Rc::new(at.clone()), Rc::from(members.as_slice()))
            }
            TypeExpr::This => match &at.this {
                Some(this) => (**this).clone(),
                None => self.enclosing_instance(at),
            },
            TypeExpr::TypeOf(value) => self.eval_value(at, value, None, hops + 1),
            TypeExpr::Indexed(object, key) => {
                let object = self.eval_type(at, object, hops + 1);
                self.member_ty(&object, key, hops + 1).1
            }
            TypeExpr::Unknown => Ty::unknown(),
        }
    }

    /// An instance of the class or interface around `at`'s scope.
    fn enclosing_instance(&self, at: &Written<'a>) -> Ty<'a> {
        let mut current = at.scope;
        while let Some(scope) = current {
            if let Some(&c) = self.tables(at.f).qualnames.get(scope)
                && is_type(self.kind(at.f, c))
            {
                return Ty::Inst(at.f, c, Rc::from(Vec::new()));
            }
            current = scope.rsplit_once('.').map(|(parent, _)| parent);
        }
        Ty::unknown()
    }

    /// A named type with its arguments.
    fn named_ty(&self, at: &Written<'a>, path: &[String], args: &[TypeExpr], hops: u32) -> Ty<'a> {
        let Some((head, rest)) = path.split_first() else {
            return Ty::unknown();
        };
        let mut found = self.head_ty(at, head, hops + 1);
        for part in rest {
            found = match found {
                // A type's own member type (a namespace's, a module's).
                Ty::E(entity @ (Entity::Def(..) | Entity::Module(_))) => {
                    Ty::E(self.member(entity, part, hops + 1))
                }
                other => self.member_ty(&other, part, hops + 1).1,
            };
        }
        let args = || -> Vec<Ty<'a>> {
            args.iter()
                .map(|t| self.eval_type(at, t, hops + 1))
                .collect()
        };
        match found {
            Ty::E(Entity::Def(tf, td)) => {
                let kind = self.kind(tf, td);
                // A name that is a type and a value (`interface X` and
                // `const X`): the type.
                let td = match kind {
                    Some(k) if is_type(Some(k)) || k == SymbolKind::TypeAlias => td,
                    _ => self
                        .definition(tf, td)
                        .and_then(|d| self.tables(tf).type_defs.get(d.qualname.as_str()))
                        .copied()
                        .unwrap_or(td),
                };
                match self.kind(tf, td) {
                    Some(SymbolKind::TypeAlias) => self.alias_ty(tf, td, args(), hops + 1),
                    kind if is_type(kind) => Ty::Inst(tf, td, Rc::from(args())),
                    _ => Ty::E(Entity::Def(tf, td)),
                }
            }
            Ty::E(Entity::Unknown | Entity::External) => {
                let last = path.last().map(String::as_str).unwrap_or_default();
                let script = self.script(at.f);
                let ambient = path.len() == 1 && super::is_ambient(self.path(at.f), last);
                match known(last, script) {
                    Some(Known::Array(i)) => Ty::Array(Rc::new(nth(args(), i))),
                    Some(Known::Mapping(i)) => {
                        // `Mapping[K, V]`; a single argument (Counter[K]) has
                        // no values of interest.
                        Ty::Mapping(Rc::new(nth(args(), i)))
                    }
                    Some(Known::Promise(i)) => Ty::Promise(Rc::new(nth(args(), i))),
                    Some(Known::Same(i)) => nth(args(), i),
                    Some(Known::ClassOf) => match nth(args(), 0) {
                        Ty::Inst(cf, cd, _) => Ty::E(Entity::Def(cf, cd)),
                        other => other,
                    },
                    Some(Known::Union) => {
                        union(args().into_iter().filter(|t| !t.is_unknown()).collect())
                    }
                    // A global type no scope binds (`String`, `Error`): its
                    // members are outside the project.
                    None if ambient => Ty::E(Entity::External),
                    None => found,
                }
            }
            other => other,
        }
    }

    /// A type alias read with arguments.
    fn alias_ty(&self, f: usize, d: usize, args: Vec<Ty<'a>>, hops: u32) -> Ty<'a> {
        let Some(definition) = self.definition(f, d) else {
            return Ty::unknown();
        };
        let Some(aliased) = self.tables(f).aliases.get(definition.qualname.as_str()) else {
            return Ty::unknown();
        };
        let env = self.bind(f, definition.qualname.as_str(), args, hops + 1);
        let at = Written {
            f,
            scope: Some(definition.qualname.as_str()),
            line: u32::MAX,
            env,
            this: None,
        };
        self.eval_type(&at, aliased, hops + 1)
    }

    /// The env of a generic owner read with `args`: each type parameter
    /// bound to its argument, or to its default or constraint.
    fn bind(&self, f: usize, owner: &'a str, args: Vec<Ty<'a>>, hops: u32) -> Env<'a> {
        let Some(generics) = self.tables(f).generics.get(owner) else {
            return Rc::new(Vec::new());
        };
        if args.iter().all(Ty::is_unknown) {
            // The default bounds: the same for every reference.
            let key = CacheKey::Bounds(f, owner.as_ptr() as usize);
            if let Some(Cached::Env(env)) = self.type_cache.get(&key) {
                return env;
            }
            let outer = TRUNCATED.with(|t| t.replace(false));
            let mut env: Vec<(&'a str, Ty<'a>)> = Vec::with_capacity(generics.params.len());
            for param in &generics.params {
                let ty = self.param_bound_in(f, owner, param, Rc::new(env.clone()), hops + 1);
                env.push((param.name.as_str(), ty));
            }
            let env = Rc::new(env);
            let truncated = TRUNCATED.with(|t| t.get());
            if !truncated {
                self.type_cache.put(key, Cached::Env(env.clone()));
            }
            TRUNCATED.with(|t| t.set(outer || truncated));
            return env;
        }
        let mut args = args.into_iter();
        let mut env: Vec<(&'a str, Ty<'a>)> = Vec::with_capacity(generics.params.len());
        for param in &generics.params {
            let ty = match args.next() {
                Some(ty) if !ty.is_unknown() => ty,
                // A default may name the parameters before it (`D =
                // T["def"]`): read with those bound.
                _ => self.param_bound_in(f, owner, param, Rc::new(env.clone()), hops + 1),
            };
            env.push((param.name.as_str(), ty));
        }
        Rc::new(env)
    }

    /// `ty` with each placeholder ([`Ty::Param`]) replaced by its value in
    /// `env` (a placeholder `env` does not bind stays).
    fn subst(&self, ty: &Ty<'a>, env: &[(&'a str, Ty<'a>)], depth: u32) -> Ty<'a> {
        if depth > MAX_HOPS {
            return truncate(Ty::unknown());
        }
        let next = depth + 1;
        let all = |tys: &[Ty<'a>]| -> Rc<[Ty<'a>]> {
            tys.iter().map(|t| self.subst(t, env, next)).collect()
        };
        let one = |t: &Ty<'a>| Rc::new(self.subst(t, env, next));
        let env_of = |e: &Env<'a>| -> Env<'a> {
            Rc::new(
                e.iter()
                    .map(|(n, t)| (*n, self.subst(t, env, next)))
                    .collect(),
            )
        };
        match ty {
            Ty::Param(name) => match env.iter().rev().find(|(n, _)| n == name) {
                Some((_, value)) => value.clone(),
                None => ty.clone(),
            },
            Ty::E(_) => ty.clone(),
            Ty::Inst(f, d, args) if !args.is_empty() => Ty::Inst(*f, *d, all(args)),
            Ty::Inst(..) => ty.clone(),
            Ty::Array(t) => Ty::Array(one(t)),
            Ty::Mapping(t) => Ty::Mapping(one(t)),
            Ty::Promise(t) => Ty::Promise(one(t)),
            Ty::Literal(t) => Ty::Literal(one(t)),
            Ty::Union(members) => Ty::Union(all(members)),
            Ty::Func(params, ret) => Ty::Func(all(params), one(ret)),
            Ty::Bound(f, d, e, this) => Ty::Bound(*f, *d, env_of(e), this.as_ref().map(|t| one(t))),
            Ty::Object(at, members) => Ty::Object(
                Rc::new(Written {
                    env: env_of(&at.env),
                    this: at.this.as_ref().map(|t| one(t)),
                    ..(**at).clone()
                }),
                members.clone(),
            ),
            Ty::Builtin(receiver, method) => Ty::Builtin(one(receiver), method),
        }
    }

    /// The type parameters of the generic `owner` of file `f` as
    /// placeholders.
    fn placeholders(&self, f: usize, owner: &'a str) -> Vec<(&'a str, Ty<'a>)> {
        self.tables(f)
            .generics
            .get(owner)
            .map(|g| {
                g.params
                    .iter()
                    .map(|p| (p.name.as_str(), Ty::Param(p.name.as_str())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The bases of class or interface `d` of file `f` in order, its type
    /// parameters (and `this`) as placeholders: the written ones with their
    /// arguments, then those only the inheritance references give.
    fn class_bases(&self, f: usize, d: usize, hops: u32) -> Rc<[Ty<'a>]> {
        let key = CacheKey::Bases(f, d);
        if let Some(Cached::Many(bases)) = self.type_cache.get(&key) {
            return bases;
        }
        let outer = TRUNCATED.with(|t| t.replace(false));
        let mut bases: Vec<Ty<'a>> = Vec::new();
        if let Some(class) = self.definition(f, d) {
            let qualname = class.qualname.as_str();
            let mut env = self.placeholders(f, qualname);
            env.push(("this", Ty::Param("this")));
            let at = Written {
                f,
                scope: Some(qualname),
                line: class.start_line,
                env: Rc::new(env),
                this: Some(Rc::new(Ty::Param("this"))),
            };
            if let Some(written) = self.tables(f).typed_bases.get(qualname) {
                for base in written {
                    if let ty @ Ty::Inst(..) = self.eval_type(&at, base, hops + 1) {
                        bases.push(ty);
                    }
                }
            }
            for &(bf, bd) in self.bases_of(f, d).iter() {
                if !bases
                    .iter()
                    .any(|b| matches!(b, Ty::Inst(xf, xd, _) if (*xf, *xd) == (bf, bd)))
                {
                    bases.push(Ty::Inst(bf, bd, Rc::from(Vec::new())));
                }
            }
        }
        let bases: Rc<[Ty<'a>]> = Rc::from(bases);
        let truncated = TRUNCATED.with(|t| t.get());
        if !truncated {
            self.type_cache.put(key, Cached::Many(bases.clone()));
        }
        TRUNCATED.with(|t| t.set(outer || truncated));
        bases
    }

    /// `name` as a member of `object`: the definition it reaches (an
    /// [`Entity::Def`] when one is found) and its value.
    pub(super) fn member_ty(&self, object: &Ty<'a>, name: &str, hops: u32) -> (Entity, Ty<'a>) {
        let none = (Entity::Unknown, Ty::unknown());
        if too_deep(hops) || !step() {
            return none;
        }
        match object {
            Ty::E(Entity::Module(m)) => {
                // A module's variable stays the definition, as a name looked
                // up in the module itself does: its own members (an object
                // literal's keys, `z.coerce.string`) come before its value's.
                let entity = self.module_member(*m, name, hops + 1);
                (entity, self.entity_ty(entity, hops + 1))
            }
            Ty::E(Entity::Def(f, d)) => {
                let (f, d) = self.value_side(*f, *d);
                let kind = self.kind(f, d);
                if has_members(kind) {
                    // A class's own members (static ones, nested classes,
                    // methods read off the class).
                    let entity = self.member(Entity::Def(f, d), name, hops + 1);
                    return (entity, self.found_value(entity, hops + 1));
                }
                match kind {
                    Some(
                        SymbolKind::Variable
                        | SymbolKind::Constant
                        | SymbolKind::Property
                        | SymbolKind::Field
                        | SymbolKind::Getter
                        | SymbolKind::Function
                        | SymbolKind::Method,
                    ) => {
                        // An object literal's properties are its symbol's
                        // children (`const coerce = { number: … }`).
                        if let Some(definition) = self.definition(f, d)
                            && let Some(m) = self.child(f, &definition.qualname, name)
                        {
                            let entity = Entity::Def(f, m);
                            return (entity, self.found_value(entity, hops + 1));
                        }
                        let value = self.def_value(f, d, hops + 1);
                        match value {
                            Ty::E(Entity::Def(vf, vd)) if (vf, vd) == (f, d) => {
                                // A function's own attributes: the old
                                // lookup (a TypeScript namespace merged
                                // with a function).
                                let entity = self.member(Entity::Def(f, d), name, hops + 1);
                                (entity, self.found_value(entity, hops + 1))
                            }
                            value => self.member_ty(&value, name, hops + 1),
                        }
                    }
                    _ => none,
                }
            }
            Ty::E(Entity::External) => (Entity::External, Ty::E(Entity::External)),
            Ty::E(Entity::Instance(f, d)) => {
                self.member_ty(&Ty::Inst(*f, *d, Rc::from(Vec::new())), name, hops + 1)
            }
            Ty::E(_) => none,
            Ty::Inst(f, d, args) => {
                let this = Rc::new(object.clone());
                let mut seen = Vec::new();
                self.inst_member(*f, *d, args.to_vec(), name, &this, &mut seen, hops + 1)
                    .unwrap_or(none)
            }
            // The first member of the union whose member it is with a known
            // value, else the first that has it at all (tsc gives a union's
            // property every declaration: one is enough to name it); its
            // value is what any member's is.
            Ty::Union(members) => {
                let mut entity = Entity::Unknown;
                let mut known = false;
                let mut values = Vec::new();
                for member in members.iter() {
                    let (found, value) = self.member_ty(member, name, hops + 1);
                    if !matches!(found, Entity::Def(..) | Entity::Local) {
                        // An inline object type's member (`{ error: E }`)
                        // has no definition, but its value counts.
                        if found == Entity::Unknown && !value.is_unknown() {
                            values.push(value);
                        }
                        continue;
                    }
                    let better = match (entity, found) {
                        (Entity::Def(..), Entity::Local) => false,
                        (Entity::Def(..), _) => !known && !value.is_unknown(),
                        _ => true,
                    };
                    if better {
                        entity = found;
                        known = !value.is_unknown();
                    }
                    if !value.is_unknown() {
                        values.push(value);
                    }
                }
                (entity, union(values))
            }
            Ty::Object(at, members) => match members.iter().find(|(n, _)| n == name) {
                Some((_, ty)) => (Entity::Unknown, self.eval_type(at, ty, hops + 1)),
                None => none,
            },
            Ty::Array(_) | Ty::Mapping(_) | Ty::Promise(_) => match builtin_method(object, name) {
                Some(method) => (
                    Entity::External,
                    Ty::Builtin(Rc::new(object.clone()), method),
                ),
                None => (Entity::External, Ty::E(Entity::External)),
            },
            Ty::Literal(context) => match &**context {
                Ty::Union(members) => {
                    let mut first = None;
                    for member in members.iter() {
                        let found = self.member_ty(member, name, hops + 1);
                        if !matches!(found.0, Entity::Def(..) | Entity::Local) {
                            return none;
                        }
                        first.get_or_insert(found);
                    }
                    first.unwrap_or(none)
                }
                other => self.member_ty(other, name, hops + 1),
            },
            Ty::Func(..) | Ty::Bound(..) | Ty::Builtin(..) => none,
            Ty::Param(_) => opaque(none),
        }
    }

    /// A TypeScript name that is a type only (`type X`, `interface X`)
    /// and a value too (`const X`), read as a value: the value's
    /// definition (zod's `const schema = …; type schema = z.infer<…>`).
    pub(super) fn value_side(&self, f: usize, d: usize) -> (usize, usize) {
        if !self.script(f)
            || !matches!(
                self.kind(f, d),
                Some(SymbolKind::TypeAlias | SymbolKind::Interface)
            )
        {
            return (f, d);
        }
        let tables = self.tables(f);
        match self
            .definition(f, d)
            .and_then(|definition| tables.value_defs.get(definition.qualname.as_str()))
        {
            Some(&v) => (f, v),
            None => (f, d),
        }
    }

    /// A TypeScript name that is a value (`const X`) and a type too
    /// (`interface X`, `type X`, a class), read as a type: the type's
    /// definition.
    pub(super) fn type_side(&self, f: usize, d: usize) -> (usize, usize) {
        let kind = self.kind(f, d);
        if !self.script(f) || is_type(kind) || kind == Some(SymbolKind::TypeAlias) {
            return (f, d);
        }
        let tables = self.tables(f);
        match self
            .definition(f, d)
            .and_then(|definition| tables.type_defs.get(definition.qualname.as_str()))
        {
            Some(&t) => (f, t),
            None => (f, d),
        }
    }

    /// The value of a definition a member lookup found.
    fn found_value(&self, entity: Entity, hops: u32) -> Ty<'a> {
        match entity {
            Entity::Def(f, d) => self.def_value(f, d, hops + 1),
            other => self.entity_ty(other, hops + 1),
        }
    }

    /// `name` in the class or interface `d` of file `f` read with `args`,
    /// or in its bases (their arguments substituted), depth first; `this`
    /// is the value the lookup started from. Looked up once per class and
    /// name with the class's type parameters and `this` as placeholders,
    /// then substituted ([`Self::inst_member_concrete`] does the lookup).
    #[allow(clippy::too_many_arguments)]
    fn inst_member(
        &self,
        f: usize,
        d: usize,
        args: Vec<Ty<'a>>,
        name: &str,
        this: &Rc<Ty<'a>>,
        seen: &mut Vec<(usize, usize)>,
        hops: u32,
    ) -> Option<(Entity, Ty<'a>)> {
        if self.rust(f) {
            return self.inst_member_concrete(f, d, args, name, this, seen, hops);
        }
        let key = CacheKey::Member(f, d, name.into());
        let bound = |this: &Rc<Ty<'a>>, args: Vec<Ty<'a>>| -> Vec<(&'a str, Ty<'a>)> {
            let qualname = self.definition(f, d).map_or("", |c| c.qualname.as_str());
            let mut env = self.bind(f, qualname, args, hops + 1).to_vec();
            env.push(("this", (**this).clone()));
            env
        };
        match self.type_cache.get(&key) {
            Some(Cached::Member(entity, generic)) => {
                return Some((entity, self.subst(&generic, &bound(this, args), 0)));
            }
            Some(Cached::NoMember) => return None,
            Some(Cached::Concrete) => {
                return self.inst_member_concrete(f, d, args, name, this, seen, hops);
            }
            _ => {}
        }
        let outer_truncated = TRUNCATED.with(|t| t.replace(false));
        let outer_opaque = OPAQUE.with(|t| t.replace(false));
        let placeholders: Vec<Ty<'a>> = self
            .definition(f, d)
            .map(|c| {
                self.placeholders(f, c.qualname.as_str())
                    .into_iter()
                    .map(|(_, p)| p)
                    .collect()
            })
            .unwrap_or_default();
        let generic_this = Rc::new(Ty::Param("this"));
        let found = self.inst_member_concrete(
            f,
            d,
            placeholders,
            name,
            &generic_this,
            &mut Vec::new(),
            hops,
        );
        let truncated = TRUNCATED.with(|t| t.get());
        let opaque = OPAQUE.with(|t| t.get());
        TRUNCATED.with(|t| t.set(outer_truncated || truncated));
        OPAQUE.with(|t| t.set(outer_opaque));
        if opaque {
            if !truncated {
                self.type_cache.put(key, Cached::Concrete);
            }
            return self.inst_member_concrete(f, d, args, name, this, seen, hops);
        }
        if !truncated {
            let value = match &found {
                Some((entity, generic)) => Cached::Member(*entity, generic.clone()),
                None => Cached::NoMember,
            };
            self.type_cache.put(key, value);
        }
        let (entity, generic) = found?;
        Some((entity, self.subst(&generic, &bound(this, args), 0)))
    }

    /// [`Self::inst_member`] without the cache.
    #[allow(clippy::too_many_arguments)]
    fn inst_member_concrete(
        &self,
        f: usize,
        d: usize,
        args: Vec<Ty<'a>>,
        name: &str,
        this: &Rc<Ty<'a>>,
        seen: &mut Vec<(usize, usize)>,
        hops: u32,
    ) -> Option<(Entity, Ty<'a>)> {
        if too_deep(hops) || seen.contains(&(f, d)) || seen.len() > MAX_HOPS as usize || !step() {
            return None;
        }
        seen.push((f, d));
        let class = self.definition(f, d)?;
        let qualname = class.qualname.as_str();
        let env = self.bind(f, qualname, args, hops + 1);
        let tables = self.tables(f);
        let attribute = tables.attributes.get(&(qualname, name)).copied();
        let member_at = |attribute: &'a Attribute| Written {
            f,
            scope: attribute.scope.as_ref().map(|s| s.qualname.as_str()),
            line: attribute.line,
            env: env.clone(),
            this: Some(this.clone()),
        };
        // An attribute's value, evaluated once with the class's type
        // parameters and `this` as placeholders.
        let attribute_value = |attribute: &'a Attribute| {
            let mut bound: Vec<(&'a str, Ty<'a>)> = env.to_vec();
            bound.push(("this", (**this).clone()));
            cached_generic(
                &self.type_cache,
                CacheKey::Attribute(std::ptr::from_ref(attribute) as usize),
                || {
                    let mut generic = self.placeholders(f, qualname);
                    generic.push(("this", Ty::Param("this")));
                    let at = Written {
                        env: Rc::new(generic),
                        this: Some(Rc::new(Ty::Param("this"))),
                        ..member_at(attribute)
                    };
                    self.attribute_ty(&at, attribute, hops + 1)
                },
                |generic| self.subst(generic, &bound, 0),
                || self.attribute_ty(&member_at(attribute), attribute, hops + 1),
            )
        };
        // A Python instance attribute (`self.x = …`) comes first.
        if let Some(attribute) = attribute
            && attribute.instance
        {
            let value = attribute_value(attribute);
            // The class body may declare it too (`x: int` then `self.x =`).
            let entity = match self.child(f, qualname, name) {
                Some(m) => Entity::Def(f, m),
                None => Entity::Local,
            };
            return Some((entity, value));
        }
        if let Some(m) = self.child(f, qualname, name) {
            let value = match self.kind(f, m) {
                Some(SymbolKind::Method | SymbolKind::Function) => {
                    if self.is_property(f, m) {
                        self.returned(
                            f,
                            m,
                            &Written {
                                f,
                                scope: Some(qualname),
                                line: u32::MAX,
                                env: env.clone(),
                                this: Some(this.clone()),
                            },
                            0,
                            hops + 1,
                        )
                    } else {
                        Ty::Bound(f, m, env.clone(), Some(this.clone()))
                    }
                }
                Some(SymbolKind::Getter) => self.returned(
                    f,
                    m,
                    &Written {
                        f,
                        scope: Some(qualname),
                        line: u32::MAX,
                        env: env.clone(),
                        this: Some(this.clone()),
                    },
                    0,
                    hops + 1,
                ),
                Some(
                    SymbolKind::Property
                    | SymbolKind::Field
                    | SymbolKind::Variable
                    | SymbolKind::Constant,
                ) => match attribute {
                    Some(attribute) => attribute_value(attribute),
                    None => match self.local_ty(f, Some(qualname), name, u32::MAX, hops + 1) {
                        Some(ty) => ty,
                        None => Ty::E(Entity::Local),
                    },
                },
                _ => Ty::E(Entity::Def(f, m)),
            };
            return Some((Entity::Def(f, m), value));
        }
        // A declared attribute that is no symbol (a TypeScript constructor
        // parameter property, an interface's call signature `()`).
        if let Some(attribute) = attribute {
            return Some((Entity::Local, attribute_value(attribute)));
        }
        // The bases, with their written arguments substituted.
        let mut bound: Vec<(&'a str, Ty<'a>)> = env.to_vec();
        bound.push(("this", (**this).clone()));
        for base in self.class_bases(f, d, hops + 1).iter() {
            if let Ty::Inst(bf, bd, bargs) = self.subst(base, &bound, 0)
                && let Some(found) =
                    self.inst_member(bf, bd, bargs.to_vec(), name, this, seen, hops + 1)
            {
                return Some(found);
            }
        }
        // Rust: the old lookup through impl blocks.
        if self.rust(f) {
            let mut old_seen = rustc_hash::FxHashSet::default();
            let entity = self.class_member(f, d, name, &mut old_seen, true, hops + 1);
            if matches!(entity, Entity::Def(..)) {
                return Some((entity, self.found_value(entity, hops + 1)));
            }
        }
        None
    }

    /// Whether method `d` of file `f` is read as a value (Python's
    /// `@property`, `@cached_property`, `@functools.cached_property`).
    fn is_property(&self, f: usize, d: usize) -> bool {
        let Some(definition) = self.definition(f, d) else {
            return false;
        };
        self.tables(f)
            .decorated
            .get(definition.qualname.as_str())
            .is_some_and(|decorated| {
                decorated.decorators.iter().any(|v| match v {
                    Value::Path(path) => path
                        .last()
                        .is_some_and(|n| matches!(n.as_str(), "property" | "cached_property")),
                    _ => false,
                })
            })
    }

    /// What calling `callee` with `args` positional arguments gives.
    pub(super) fn call_ty(&self, callee: &Ty<'a>, args: u32, hops: u32) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        match callee {
            Ty::E(Entity::Def(f, d)) => {
                let (f, d) = self.value_side(*f, *d);
                let kind = self.kind(f, d);
                if is_instantiable(kind) || kind == Some(SymbolKind::Interface) {
                    return Ty::Inst(f, d, Rc::from(Vec::new()));
                }
                match kind {
                    Some(SymbolKind::Function | SymbolKind::Method) => {
                        if self
                            .tables(f)
                            .decorated
                            .contains_key(self.definition(f, d).map_or("", |d| d.qualname.as_str()))
                        {
                            let value = self.decorated_ty(f, d, hops + 1);
                            if !matches!(value, Ty::E(Entity::Def(vf, vd)) if (vf, vd) == (f, d)) {
                                return self.call_ty(&value, args, hops + 1);
                            }
                        }
                        let at = Written::at(f, None, u32::MAX);
                        self.returned(f, d, &at, args, hops + 1)
                    }
                    Some(
                        SymbolKind::Variable
                        | SymbolKind::Constant
                        | SymbolKind::Property
                        | SymbolKind::Field
                        | SymbolKind::Getter,
                    ) => {
                        let value = self.def_value(f, d, hops + 1);
                        if matches!(value, Ty::E(Entity::Def(vf, vd)) if (vf, vd) == (f, d)) {
                            return Ty::unknown();
                        }
                        self.call_ty(&value, args, hops + 1)
                    }
                    _ => Ty::unknown(),
                }
            }
            Ty::E(Entity::Instance(f, d)) => {
                self.call_ty(&Ty::Inst(*f, *d, Rc::from(Vec::new())), args, hops + 1)
            }
            Ty::E(Entity::External) => Ty::E(Entity::External),
            Ty::E(_) => Ty::unknown(),
            Ty::Bound(f, d, env, this) => {
                let at = Written {
                    f: *f,
                    scope: None,
                    line: u32::MAX,
                    env: env.clone(),
                    this: this.clone(),
                };
                self.returned(*f, *d, &at, args, hops + 1)
            }
            Ty::Func(_, ret) => (**ret).clone(),
            Ty::Inst(..) => {
                // A callable instance: Python's `__call__`, a TypeScript
                // call or construct signature (the `()` member).
                for name in ["__call__", "()"] {
                    let (entity, value) = self.member_ty(callee, name, hops + 1);
                    if matches!(entity, Entity::Def(..) | Entity::Local) && !value.is_unknown() {
                        return self.call_ty(&value, args, hops + 1);
                    }
                }
                Ty::unknown()
            }
            Ty::Union(members) => {
                for member in members.iter() {
                    let ty = self.call_ty(member, args, hops + 1);
                    if !ty.is_unknown() {
                        return ty;
                    }
                }
                Ty::unknown()
            }
            Ty::Builtin(receiver, method) => builtin_result(receiver, method),
            Ty::Array(_) | Ty::Mapping(_) | Ty::Promise(_) | Ty::Object(..) | Ty::Literal(_) => {
                Ty::unknown()
            }
            Ty::Param(_) => opaque(Ty::unknown()),
        }
    }

    /// The signatures of function `d` of file `f` to read a call with
    /// `args` arguments from: its own, or for the implementation of
    /// overloads the first overload that takes `args` arguments, then the
    /// others.
    fn signatures_for(&self, f: usize, d: usize, args: u32) -> Vec<&'a Signature> {
        let Some(definition) = self.definition(f, d) else {
            return Vec::new();
        };
        let tables = self.tables(f);
        let qualname = definition.qualname.as_str();
        let own = tables
            .signatures
            .get(&(qualname, definition.start_line))
            .copied();
        let Some(overloads) = tables.overloads.get(qualname) else {
            return own.into_iter().collect();
        };
        let mut all: Vec<&'a Signature> = overloads
            .iter()
            .filter_map(|&o| {
                let od = self.definition(f, o)?;
                tables.signatures.get(&(qualname, od.start_line)).copied()
            })
            .collect();
        // The ones that take this many arguments first.
        all.sort_by_key(|s| !takes(s, args));
        all
    }

    /// What function `d` of file `f` returns when called with `args`
    /// arguments, read in `at`'s env and `this`.
    fn returned(&self, f: usize, d: usize, at: &Written<'a>, args: u32, hops: u32) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        if at.env.is_empty() && at.this.is_none() {
            return cached(&self.type_cache, CacheKey::Returned(f, d, args), || {
                self.returned_uncached(f, d, at, args, hops)
            });
        }
        // With a receiver or type arguments: evaluated once with the class's
        // and the function's type parameters and `this` as placeholders.
        let Some(definition) = self.definition(f, d) else {
            return Ty::unknown();
        };
        let qualname = definition.qualname.as_str();
        let class = qualname.rsplit_once('.').map_or("", |(p, _)| p);
        let mut bound: Vec<(&'a str, Ty<'a>)> = self.bind(f, class, Vec::new(), hops + 1).to_vec();
        bound.extend(self.bind(f, qualname, Vec::new(), hops + 1).iter().cloned());
        bound.extend(at.env.iter().cloned());
        if let Some(this) = &at.this {
            bound.push(("this", (**this).clone()));
        }
        cached_generic(
            &self.type_cache,
            CacheKey::ReturnedGeneric(f, d, args),
            || {
                let mut generic = self.placeholders(f, class);
                generic.extend(self.placeholders(f, qualname));
                generic.push(("this", Ty::Param("this")));
                let written = Written {
                    env: Rc::new(generic),
                    this: Some(Rc::new(Ty::Param("this"))),
                    ..at.clone()
                };
                self.returned_uncached(f, d, &written, args, hops)
            },
            |generic| self.subst(generic, &bound, 0),
            || self.returned_uncached(f, d, at, args, hops),
        )
    }

    /// [`Self::returned`] without the cache.
    fn returned_uncached(
        &self,
        f: usize,
        d: usize,
        at: &Written<'a>,
        args: u32,
        hops: u32,
    ) -> Ty<'a> {
        let Some(definition) = self.definition(f, d) else {
            return Ty::unknown();
        };
        let qualname = definition.qualname.as_str();
        let around = qualname.rsplit_once('.').map(|(p, _)| p);
        for signature in self.signatures_for(f, d, args) {
            let this = at.this.clone().or_else(|| {
                // `-> Self` / `this` with no receiver: the class around.
                let c = around.and_then(|p| self.tables(f).qualnames.get(p).copied())?;
                is_type(self.kind(f, c)).then(|| Rc::new(Ty::Inst(f, c, Rc::from(Vec::new()))))
            });
            // The function's own type parameters: their bounds, unless the
            // env binds them (an instantiated generic function); the env's
            // bindings come last, so that they are found first.
            let mut env: Vec<(&'a str, Ty<'a>)> =
                self.bind(f, qualname, Vec::new(), hops + 1).to_vec();
            env.extend(at.env.iter().cloned());
            let written = Written {
                f,
                scope: Some(qualname),
                line: u32::MAX,
                env: Rc::new(env),
                this,
            };
            if let Some(ret) = &signature.ret {
                let ty = self.eval_type(&written, ret, hops + 1);
                if !ty.is_unknown() {
                    return ty;
                }
                continue;
            }
            if let Some(value) = &signature.returns {
                let ty = self.eval_value(&written, value, None, hops + 1);
                if !ty.is_unknown() {
                    return ty;
                }
            }
        }
        // The old facts: a declared return path.
        match self.declared_return(f, d, hops + 1) {
            Entity::Instance(rf, rd) => Ty::Inst(rf, rd, Rc::from(Vec::new())),
            _ => Ty::unknown(),
        }
    }

    /// The type of parameter `index` of the function `function` is.
    pub(super) fn param_ty(&self, function: &Ty<'a>, index: u32, hops: u32) -> Ty<'a> {
        if too_deep(hops) || !step() {
            return Ty::unknown();
        }
        let i = index as usize;
        match function {
            Ty::Func(params, _) => params.get(i).cloned().unwrap_or_else(Ty::unknown),
            Ty::E(Entity::Def(f, d)) => {
                let at = Written::at(*f, None, u32::MAX);
                self.param_of(*f, *d, &at, i, hops + 1)
            }
            Ty::Bound(f, d, env, this) => {
                let at = Written {
                    f: *f,
                    scope: None,
                    line: u32::MAX,
                    env: env.clone(),
                    this: this.clone(),
                };
                self.param_of(*f, *d, &at, i, hops + 1)
            }
            Ty::Builtin(receiver, method) => builtin_param(receiver, method, i),
            Ty::Param(_) => opaque(Ty::unknown()),
            Ty::Inst(..) => {
                for name in ["__call__", "()"] {
                    let (entity, value) = self.member_ty(function, name, hops + 1);
                    if matches!(entity, Entity::Def(..) | Entity::Local) && !value.is_unknown() {
                        return self.param_ty(&value, index, hops + 1);
                    }
                }
                Ty::unknown()
            }
            Ty::Union(members) => {
                for member in members.iter() {
                    let ty = self.param_ty(member, index, hops + 1);
                    if !ty.is_unknown() {
                        return ty;
                    }
                }
                Ty::unknown()
            }
            _ => Ty::unknown(),
        }
    }

    /// The written type of parameter `i` of function `d` of file `f` (the
    /// first signature that has it).
    fn param_of(&self, f: usize, d: usize, at: &Written<'a>, i: usize, hops: u32) -> Ty<'a> {
        let Some(definition) = self.definition(f, d) else {
            return Ty::unknown();
        };
        let qualname = definition.qualname.as_str();
        for signature in self.signatures_for(f, d, u32::MAX) {
            let Some(param) = signature.params.get(i) else {
                continue;
            };
            let Some(ty) = &param.ty else {
                continue;
            };
            let mut env: Vec<(&'a str, Ty<'a>)> =
                self.bind(f, qualname, Vec::new(), hops + 1).to_vec();
            env.extend(at.env.iter().cloned());
            let written = Written {
                f,
                scope: Some(qualname),
                line: u32::MAX,
                env: Rc::new(env),
                this: at.this.clone(),
            };
            let found = self.eval_type(&written, ty, hops + 1);
            if !found.is_unknown() {
                return found;
            }
        }
        Ty::unknown()
    }

    /// An element of `object`: of a collection, a mapping's value, what a
    /// class's `__getitem__`/`__iter__`/`__next__` gives.
    fn element_ty(&self, object: &Ty<'a>, hops: u32) -> Ty<'a> {
        match object {
            Ty::Param(_) => opaque(Ty::unknown()),
            Ty::Array(element) | Ty::Mapping(element) => (**element).clone(),
            Ty::Inst(..) => {
                for name in ["__getitem__", "__next__", "__iter__"] {
                    let (entity, value) = self.member_ty(object, name, hops + 1);
                    if matches!(entity, Entity::Def(..)) {
                        let result = self.call_ty(&value, 1, hops + 1);
                        return match (name, result) {
                            ("__iter__", Ty::Array(element)) => (*element).clone(),
                            ("__iter__", other) => self.element_ty(&other, hops + 1),
                            (_, other) => other,
                        };
                    }
                }
                Ty::unknown()
            }
            Ty::Union(members) => {
                for member in members.iter() {
                    let ty = self.element_ty(member, hops + 1);
                    if !ty.is_unknown() {
                        return ty;
                    }
                }
                Ty::unknown()
            }
            _ => Ty::unknown(),
        }
    }
}

/// Whether a call with `args` positional arguments fits `signature`.
/// Whether a local's value is a parameter's contextual type (a
/// [`Value::Param`], or a member or element of one for a destructured
/// parameter).
fn is_param_context(value: &Value) -> bool {
    match value {
        Value::Param { .. } => true,
        Value::Member(inner, _) | Value::Element(inner) => is_param_context(inner),
        _ => false,
    }
}

fn takes(signature: &Signature, args: u32) -> bool {
    let args = args as usize;
    let required = signature.params.iter().filter(|p| !p.optional).count();
    args == usize::MAX
        || (required <= args && args <= signature.params.len().max(required))
        || signature
            .params
            .last()
            .is_some_and(|p| p.optional && p.name.starts_with('*'))
}

/// The `i`-th of `args` (unknown when missing).
fn nth<'a>(args: Vec<Ty<'a>>, i: usize) -> Ty<'a> {
    args.into_iter().nth(i).unwrap_or_else(Ty::unknown)
}

/// A union of `members` (one member: itself; none: unknown).
fn union(mut members: Vec<Ty<'_>>) -> Ty<'_> {
    match members.len() {
        0 => Ty::unknown(),
        1 => members.pop().unwrap_or_else(Ty::unknown),
        _ => Ty::Union(Rc::from(members)),
    }
}

/// What a standard library method of a collection or promise returns.
fn builtin_result<'a>(receiver: &Ty<'a>, method: &str) -> Ty<'a> {
    let element = || match receiver {
        Ty::Array(e) | Ty::Mapping(e) | Ty::Promise(e) => (**e).clone(),
        _ => Ty::unknown(),
    };
    match (receiver, method) {
        (
            Ty::Array(_),
            "filter" | "sort" | "slice" | "concat" | "reverse" | "toSorted" | "toReversed" | "copy",
        ) => receiver.clone(),
        (Ty::Array(_), "find" | "findLast" | "at" | "pop" | "shift") => element(),
        (Ty::Mapping(_), "get" | "pop" | "setdefault") => element(),
        (Ty::Mapping(e), "values") => Ty::Array(e.clone()),
        (Ty::Promise(_), "catch" | "finally") => receiver.clone(),
        _ => Ty::unknown(),
    }
}

/// The type of parameter `i` of the standard library method `method` of
/// `receiver`: a callback whose first parameter is an element (the second
/// for `reduce`), or a promise's value.
fn builtin_param<'a>(receiver: &Ty<'a>, method: &str, i: usize) -> Ty<'a> {
    let element = match receiver {
        Ty::Array(e) | Ty::Promise(e) | Ty::Mapping(e) => e.clone(),
        _ => return Ty::unknown(),
    };
    let callback = |position: usize| {
        let mut params = vec![Ty::unknown(); position + 1];
        params[position] = (*element).clone();
        Ty::Func(Rc::from(params), Rc::new(Ty::unknown()))
    };
    match (receiver, method, i) {
        (
            Ty::Array(_),
            "map" | "forEach" | "filter" | "find" | "findLast" | "findIndex" | "findLastIndex"
            | "some" | "every" | "flatMap" | "sort" | "toSorted",
            0,
        ) => {
            if matches!(method, "sort" | "toSorted") {
                Ty::Func(
                    Rc::from(vec![(*element).clone(), (*element).clone()]),
                    Rc::new(Ty::unknown()),
                )
            } else {
                callback(0)
            }
        }
        (Ty::Array(_), "reduce" | "reduceRight", 0) => callback(1),
        // Values of the element type: `xs.push(x)`, `s.add(x)`, `m.set(k, v)`.
        (
            Ty::Array(_),
            "push" | "unshift" | "includes" | "indexOf" | "lastIndexOf" | "fill" | "add" | "has"
            | "delete" | "append" | "remove" | "index",
            _,
        ) => (*element).clone(),
        (Ty::Array(_), "insert", 1) => (*element).clone(),
        (Ty::Array(_), "extend", 0) => Ty::Array(element.clone()),
        (Ty::Mapping(_), "set" | "setdefault", 1) => (*element).clone(),
        (Ty::Mapping(_), "forEach", 0) => callback(0),
        (Ty::Promise(_), "then", 0) => callback(0),
        _ => Ty::unknown(),
    }
}
