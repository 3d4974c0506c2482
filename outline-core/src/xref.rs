//! Cross-reference facts of one file: the language-neutral input of the
//! cross-file index (resolution lives in the `xref` crate, storage in `index`).
//!
//! An adapter extracts [`Facts`] from the same parse as the outline, only when
//! asked ([`crate::Outline::outline_with_facts`]); the outline itself is not
//! changed by it. Facts are syntactic: what a name is, where it is used and in
//! which scope, never what it resolves to.
//!
//! Units: lines are 1-based; columns are 1-based and count characters; an end
//! column is exclusive (the column just after the name's last character).
//!
//! Scopes are named by [`ScopeKey`]: the `__qualname__` and start line of the
//! enclosing definition, the same two values the outline's symbol id is built
//! from ([`ScopeKey::id`]), so a fact's scope is a symbol of the outline.

use serde::{Deserialize, Serialize};

use crate::id::symbol_id;

/// Version of the [`Facts`] shape and extraction; stored facts of another
/// version are re-extracted, never misread. 3: TypeScript/JavaScript and
/// Rust facts are extracted (version 2 stored them as unsupported); a Rust
/// `impl` self type's [`Role::TypeUse`] reference carries the impl block as
/// its `subtype`. 4: [`Receiver::Call`], [`Facts::attributes`] (Python
/// `self.x = …`, TypeScript typed class properties), [`Facts::returns`],
/// [`TypeOf::Alias`]. 5: [`Facts::modules`] (Rust `mod x;` declarations
/// with their `#[path]` attributes). 6: [`TypeOf::Elements`],
/// [`TypeOf::ElementOf`], [`Attribute::elements`]; import-role references at
/// the imported name's own line; Python string annotations and TypeScript
/// type-parameter constraints and `this` parameters give references.
/// 7: types as written ([`TypeExpr`]) and values as written ([`Value`]):
/// [`Receiver::Value`], [`TypeOf::Type`], [`TypeOf::Value`],
/// [`Attribute::ty`], [`Attribute::value`], [`Facts::signatures`],
/// [`Facts::generics`], [`Facts::bases`], [`Facts::aliases`],
/// [`Facts::decorated`], [`Role::Write`]; Rust items written inside
/// brace-delimited macro invocations (`cfg_rt! { … }`) give their facts
/// (`use`, `mod`, bodies); the generic parameters of Rust structs, enums,
/// unions, type aliases and traits, and const parameters, are bound names.
/// 8: [`LocalType::until`] (narrowing by `instanceof` / `isinstance`).
/// 9: [`Reference::dynamic`]: references made at run time (Python
/// `getattr(obj, "name")`, `importlib.import_module("m")`, TypeScript
/// `obj[key]()`, string-keyed dispatch tables, `Reflect.get`, `require` of
/// a computed specifier).
/// 10: [`Facts::macro_rules`] and [`Facts::macro_calls`] (Rust items made
/// by a project's own `macro_rules!`).
/// 11: [`Dynamic::Member`] (Python members of a
/// module loaded by a literal name); `importlib` through an alias and its
/// functions imported under another name; `getattr(type(self), "m")`;
/// TypeScript/JavaScript: a literal `import("m")` or `` require(`m`) `` is
/// an import of the module, `obj["name"]()` a call, dispatch tables hold
/// members and their own methods, `Reflect.get(obj, "m")()` a call; a
/// dynamic resolution's confidence is halved.
pub const FACTS_VERSION: u32 = 11;

/// A definition that makes a scope (function, method, class): its qualname
/// (`__qualname__` without `<locals>`, as in the outline) and its start line
/// (1-based; the first decorator's line when decorated).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ScopeKey {
    /// Qualified name of the definition, e.g. `User.save`.
    pub qualname: String,
    /// Its first line, as in the outline's `start_line`.
    pub start_line: u32,
}

impl ScopeKey {
    /// The outline symbol id of this definition in the file `path`
    /// (`PATH:START_LINE:QUALNAME`, see [`crate::symbol_id`]).
    pub fn id(&self, path: &str) -> String {
        symbol_id(path, self.start_line, &self.qualname)
    }
}

/// How a name is used at a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Called: `f()`, `obj.m()`. Resolution turns a call of a class into
    /// [`Role::Instantiate`].
    Call,
    /// Called and known to name a class: `User()`, `new User()`.
    Instantiate,
    /// Used as a type: annotations, return types.
    TypeUse,
    /// Named as a base class, extended or implemented type.
    Inherit,
    /// Named in an import statement (`from m import User`).
    Import,
    /// Read as an attribute of something: `a.b` (the `b`).
    Attribute,
    /// Any other read of a bare name (passed, assigned, compared: Python's
    /// `Load` context).
    Read,
    /// Assigned: an attribute as an assignment's target (`a.b = …`, `self.x
    /// += 1`), an object literal's key (the contextual type's property
    /// given a value), a keyword argument naming a dataclass field.
    Write,
}

impl Role {
    /// The role's spelling in the index and output (`type_use`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Call => "call",
            Role::Instantiate => "instantiate",
            Role::TypeUse => "type_use",
            Role::Inherit => "inherit",
            Role::Import => "import",
            Role::Attribute => "attribute",
            Role::Read => "read",
            Role::Write => "write",
        }
    }
}

/// Longest receiver chain kept as a [`Receiver::Path`] (parts before the
/// name); a longer one is a [`Receiver::Expression`]. Keeps extraction
/// linear on generated chains of thousands of links (`a.a.a…`), which
/// otherwise cost quadratic time and memory; real code stays far below it.
pub const MAX_RECEIVER_PARTS: usize = 32;

/// What a referenced name is reached through.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Receiver {
    /// A bare name looked up in scope: `User`.
    Bare,
    /// An attribute of a dotted chain of names: `self.save` has `["self"]`,
    /// `a.b.c` has `["a", "b"]` for `c`.
    Path(Vec<String>),
    /// An attribute of an expression that is not a dotted name
    /// (`items[0].save`, `f()()`): only a name-only match is possible.
    Expression,
    /// An attribute of the result of calling a dotted chain of names:
    /// `User().save` has `["User"]`, `m.make(x).run` has `["m", "make"]`
    /// (the call's result is an instance of the class called, or of the
    /// function's declared return type, [`Facts::returns`]).
    Call(Vec<String>),
    /// An attribute of any other value the resolver can follow: a chain of
    /// calls and attributes (`z.string().min(1).parse`), an element
    /// (`xs[0].save`), an awaited call, a cast (`(x as User).save`), a
    /// callback's parameter typed by its callee.
    Value(Value),
}

/// A type as an annotation writes it, names unresolved: the resolver looks
/// each dotted name up in the scope the type is written in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeExpr {
    /// A named type with its type arguments: `User`, `models.User`,
    /// `Promise<User>`, `list[User]`, `dict[str, User]`, a type parameter
    /// `T`.
    Named {
        /// The dotted name (`["models", "User"]`).
        path: Vec<String>,
        /// Its type arguments in order (empty when none are written).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<TypeExpr>,
    },
    /// An array of elements of a type: TypeScript `T[]`, `readonly T[]`.
    Array(Box<TypeExpr>),
    /// A tuple: `[A, B]`, `tuple[A, B]`.
    Tuple(Vec<TypeExpr>),
    /// A union (`A | B`, `Optional[A]`, `Union[A, B]`) or an intersection
    /// (`A & B`): its members, whose members the value may have.
    Union(Vec<TypeExpr>),
    /// A function type: `(a: A) => R`, `Callable[[A], R]`; `new (…) => R`
    /// too (its result is `ret`).
    Function {
        /// The parameters' types in order ([`TypeExpr::Unknown`] where not
        /// written).
        params: Vec<TypeExpr>,
        /// The result's type.
        ret: Box<TypeExpr>,
    },
    /// An object type written inline (`{ a: A; m(): R }`): its members'
    /// names and types (a method's type is a [`TypeExpr::Function`]).
    Object(Vec<(String, TypeExpr)>),
    /// The type of the value a member is reached through: TypeScript's
    /// `this` type, Python's `typing.Self`.
    This,
    /// The type of a value: TypeScript's `typeof x`.
    TypeOf(Box<Value>),
    /// A member's type by its name: TypeScript's `T["key"]`.
    Indexed(Box<TypeExpr>, String),
    /// Anything else (a literal type, `any`, a mapped or conditional type).
    Unknown,
}

impl TypeExpr {
    /// A named type without type arguments.
    pub fn named(path: Vec<String>) -> Self {
        TypeExpr::Named {
            path,
            args: Vec::new(),
        }
    }

    /// Calls `f` with every name the type writes: each part of its dotted
    /// names (type arguments, parameters, members and `typeof` values
    /// included) and each member name it reads (`T["key"]`).
    pub fn for_each_name<'t>(&'t self, f: &mut dyn FnMut(&'t str)) {
        match self {
            TypeExpr::Named { path, args } => {
                path.iter().for_each(|part| f(part));
                for arg in args {
                    arg.for_each_name(f);
                }
            }
            TypeExpr::Array(t) => t.for_each_name(f),
            TypeExpr::Indexed(t, key) => {
                t.for_each_name(f);
                f(key);
            }
            TypeExpr::Tuple(ts) | TypeExpr::Union(ts) => {
                for t in ts {
                    t.for_each_name(f);
                }
            }
            TypeExpr::Function { params, ret } => {
                for t in params {
                    t.for_each_name(f);
                }
                ret.for_each_name(f);
            }
            TypeExpr::Object(members) => {
                for (_, t) in members {
                    t.for_each_name(f);
                }
            }
            TypeExpr::TypeOf(v) => v.for_each_name(f),
            TypeExpr::This | TypeExpr::Unknown => {}
        }
    }
}

/// A value as an expression writes it, for the resolver to follow its type:
/// names unresolved, arguments left out but for their count.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// A dotted name looked up in scope: `user`, `self.repo`, `z`.
    Path(Vec<String>),
    /// What calling the value gives (`new C()` too).
    Call {
        /// The value called.
        callee: Box<Value>,
        /// How many positional arguments the call passes (an overload is
        /// chosen by it).
        #[serde(default)]
        args: u32,
    },
    /// An attribute of the value: `f().name`.
    Member(Box<Value>, String),
    /// An element of the value: `xs[0]`, the variable of `for x in xs`.
    Element(Box<Value>),
    /// What `await` of the value gives.
    Await(Box<Value>),
    /// A value of a written type: `x as User`, `<User>x`, `cast(User, x)`.
    Typed(TypeExpr),
    /// The parameter at `index` of the function the value is (or whose type
    /// it has): a callback's parameter typed by the callee (`arr.map(x =>
    /// …)`: parameter 0 of the parameter 0 of `arr.map`), the contextual
    /// type of an object literal passed as an argument.
    Param {
        /// The function.
        function: Box<Value>,
        /// The parameter's position (0-based).
        index: u32,
    },
    /// The first of several values that has a known type: `a ?? b`, `a ||
    /// b`, `c ? a : b`.
    Either(Vec<Value>),
    /// An object literal whose contextual type is the value's: the receiver
    /// of its keys. A key is a member of that type; of a union, only when
    /// every member of the union has it (TypeScript gives the literal a
    /// property of its own otherwise, as scip-typescript 0.4.0 shows).
    Literal(Box<Value>),
    /// The keyword arguments of a call of the value (Python): when it is a
    /// class with no `__init__` of its own or of its bases (a dataclass, a
    /// `NamedTuple`, a `TypedDict`), its fields, which the synthesized
    /// `__init__` takes by name (pyright links them so).
    Keywords(Box<Value>),
    /// A generic function called where a value of a known type is expected
    /// (`const s: Ctor<User> = make(…)`): the function with its type
    /// parameters bound so that its return type is the expected one (the
    /// TypeScript handbook's "return type inference" from the contextual
    /// type).
    Returning {
        /// The function.
        function: Box<Value>,
        /// A value of the expected type.
        expected: Box<Value>,
    },
}

impl Value {
    /// Calls `f` with every name the value writes: each part of its dotted
    /// names and each attribute it reads (types and alternatives included).
    pub fn for_each_name<'t>(&'t self, f: &mut dyn FnMut(&'t str)) {
        match self {
            Value::Path(path) => path.iter().for_each(|part| f(part)),
            Value::Member(v, name) => {
                v.for_each_name(f);
                f(name);
            }
            Value::Call { callee: v, .. }
            | Value::Element(v)
            | Value::Await(v)
            | Value::Literal(v)
            | Value::Keywords(v)
            | Value::Param { function: v, .. } => v.for_each_name(f),
            Value::Returning { function, expected } => {
                function.for_each_name(f);
                expected.for_each_name(f);
            }
            Value::Typed(t) => t.for_each_name(f),
            Value::Either(values) => {
                for v in values {
                    v.for_each_name(f);
                }
            }
        }
    }

    /// The value as a short text, for the export's `receiver` field:
    /// `z.string().min()`, `xs[]`, `(as User)`, `param 0 of f`.
    pub fn display(&self) -> String {
        match self {
            Value::Path(path) => path.join("."),
            Value::Call { callee, .. } => format!("{}()", callee.display()),
            Value::Member(v, name) => format!("{}.{name}", v.display()),
            Value::Element(v) => format!("{}[]", v.display()),
            Value::Await(v) => format!("await {}", v.display()),
            Value::Typed(_) => "(typed)".to_owned(),
            Value::Param { function, index } => {
                format!("(param {index} of {})", function.display())
            }
            Value::Either(values) => values
                .first()
                .map_or_else(|| "?".to_owned(), Value::display),
            Value::Returning { function, .. } => function.display(),
            Value::Literal(_) => "{…}".to_owned(),
            Value::Keywords(callee) => format!("{}(…=)", callee.display()),
        }
    }

    /// The head name of the value's first dotted name (`z` of
    /// `z.string().min()`), when the value starts with one.
    pub fn head(&self) -> Option<&str> {
        match self {
            Value::Path(path) => path.first().map(String::as_str),
            Value::Call { callee: v, .. }
            | Value::Member(v, _)
            | Value::Element(v)
            | Value::Await(v)
            | Value::Literal(v)
            | Value::Keywords(v)
            | Value::Param { function: v, .. }
            | Value::Returning { function: v, .. } => v.head(),
            Value::Either(values) => values.first().and_then(Value::head),
            Value::Typed(_) => None,
        }
    }
}

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The name used (the last part of a dotted chain).
    pub name: String,
    /// What it is reached through.
    pub receiver: Receiver,
    /// How it is used.
    pub role: Role,
    /// Line of the name (1-based).
    pub line: u32,
    /// Column of the name's first character (1-based, characters).
    pub column: u32,
    /// Column just after the name's last character (1-based, characters,
    /// exclusive; on `line`).
    pub end_column: u32,
    /// The innermost definition whose body holds the reference (the caller),
    /// or `None` at module level. Decorators, default values, annotations of
    /// parameters and base classes belong to the scope around the definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
    /// Where the first name of the chain (the name itself when
    /// [`Receiver::Bare`], else the receiver's first name) is bound, by the
    /// language's scoping rules: `None` when not bound in any enclosing
    /// function or class scope (so it is a module-level name, an import at
    /// module level or a builtin), else the definition whose scope binds it
    /// (a parameter, assignment, loop variable, nested `def`, local import…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<ScopeKey>,
    /// For [`Role::Inherit`]: the class whose base (or implemented type) this
    /// is (for Rust's `impl Trait for Type`, the impl block). For
    /// [`Role::TypeUse`] of a Rust impl's self type: the impl block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<ScopeKey>,
    /// Set when the reference is made at run time rather than written in
    /// the source (`getattr(obj, "name")`, `importlib.import_module("m")`,
    /// `handlers[action]()`): the resolver marks its result dynamic, a
    /// relation that a run has to confirm. `None` for a static reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<Dynamic>,
}

/// How a dynamic reference ([`Reference::dynamic`]) names what it reaches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dynamic {
    /// The name is written as a literal (`getattr(obj, "save")`,
    /// `Reflect.get(obj, "save")`) or is one of the values a dispatch
    /// table holds (`handlers[action]()` with `const handlers = { create:
    /// createUser }`): looked up through the receiver as the static
    /// reference `obj.save` (or the bare name) would be.
    Name,
    /// A module named by a string (`importlib.import_module("json.decoder")`,
    /// `__import__("m")`): the reference's name is the dotted module name
    /// without its leading dots, `level` the number of those dots (0 =
    /// absolute), relative to the file's own package.
    Module {
        /// Number of leading dots of a relative name (0 = absolute).
        #[serde(default)]
        level: u32,
    },
    /// A member of a module loaded at run time by a literal name
    /// (`importlib.import_module("pkg.mod").helper()`, `m.helper()` with
    /// `m = importlib.import_module("pkg.mod")` bound once in the same
    /// scope, `importlib.reload(pm).helper()`): the reference's name is
    /// the member, looked up in that module as `from pkg.mod import
    /// helper` would be.
    Member {
        /// The module's dotted name without its leading dots.
        module: String,
        /// Number of leading dots of a relative name (0 = absolute).
        #[serde(default)]
        level: u32,
    },
    /// Nothing names the target in the source: the key, attribute or
    /// module is computed (`getattr(obj, attr)`, `import_module(name)`,
    /// `require(path)`, `obj[key]()`); the reference's name is `?` (or the
    /// relative literal that cannot be placed) and it resolves to nothing.
    Computed,
}

/// One name bound by an import statement, in the scope that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportBinding {
    /// The name bound in the importing scope: the alias, or for
    /// `import a.b` the first part (`a`); empty for a dynamic import
    /// (Python `importlib.import_module("a.b")`), which binds no name but
    /// makes the file depend on the module as an import does.
    pub local: String,
    /// Module named, as written without the leading dots (`a.b`); empty for
    /// `from . import x`.
    pub module: String,
    /// Number of leading dots of a relative import (0 = absolute).
    pub level: u32,
    /// The imported name for `from m import name` (`*` for a star import);
    /// `None` for `import m` (the module itself is bound; with
    /// `import a.b` without alias, `local` is `a` and the package `a` is bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Line of the statement (1-based).
    pub line: u32,
    /// Function or class scope holding it; `None` at module level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
}

/// What a local name's type is known to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeOf {
    /// A dotted name resolved in the scope of the binding: `x: User`,
    /// `x = models.User()`.
    Path(Vec<String>),
    /// An instance of the enclosing class given by its key: Python's `self`
    /// (first parameter of a method), TypeScript's `this`.
    Instance(ScopeKey),
    /// The enclosing class itself: Python's `cls` (first parameter of a
    /// `@classmethod`).
    Class(ScopeKey),
    /// Whatever the dotted name denotes, resolved in the scope of the
    /// binding: `cls = JSONEncoder` (the class itself, not an instance),
    /// `f = mod.func`.
    Alias(Vec<String>),
    /// A collection whose elements are instances of the type the dotted
    /// name denotes: `xs: list[User]`, `xs: User[]`, `Array<User>`,
    /// `Iterable[User]`.
    Elements(Vec<String>),
    /// A written type: the annotation of a parameter or variable (`x:
    /// Map<string, User>`, `cb: (u: User) => void`).
    Type(TypeExpr),
    /// The value of an expression the name is bound to: `x = a.b().c`,
    /// `const s = z.string().min(1)`, `for x in self.items()` (an
    /// [`Value::Element`]), a callback's parameter ([`Value::Param`]).
    Value(Value),
    /// An element of what the dotted name denotes (a collection of known
    /// element type): the target of `for x in xs`, a comprehension
    /// variable, `for (const x of xs)`, the first parameter of the callback
    /// of `xs.map(x => …)`.
    ElementOf(Vec<String>),
}

impl TypeOf {
    /// The dotted name this type is written with, when it is one
    /// ([`TypeOf::Instance`] and [`TypeOf::Class`] name a scope instead).
    pub fn path(&self) -> Option<&[String]> {
        match self {
            TypeOf::Path(path)
            | TypeOf::Alias(path)
            | TypeOf::Elements(path)
            | TypeOf::ElementOf(path) => Some(path),
            TypeOf::Instance(_) | TypeOf::Class(_) | TypeOf::Type(_) | TypeOf::Value(_) => None,
        }
    }

    /// Calls `f` with every name the type writes (see
    /// [`TypeExpr::for_each_name`], [`Value::for_each_name`]).
    pub fn for_each_name<'t>(&'t self, f: &mut dyn FnMut(&'t str)) {
        match self {
            TypeOf::Type(t) => t.for_each_name(f),
            TypeOf::Value(v) => v.for_each_name(f),
            other => {
                if let Some(path) = other.path() {
                    path.iter().for_each(|part| f(part));
                }
            }
        }
    }
}

/// The type of a name bound in a scope, from an annotation, a constructor
/// call or the receiver convention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalType {
    /// The scope binding the name (`None`: module level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
    /// The name.
    pub name: String,
    /// Its type.
    pub type_of: TypeOf,
    /// Line of the binding (1-based).
    pub line: u32,
    /// The last line the type holds on (1-based, inclusive), when it holds
    /// only on a range: a name narrowed by `x instanceof C` /
    /// `isinstance(x, C)` in the branch that test guards. `None`: until the
    /// next binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<u32>,
}

/// An attribute of a class's instances that the class body does not declare
/// as a symbol, or whose declared type is known: Python's `self.x = …` in a
/// method (the first assignment of each name per class), TypeScript's typed
/// class properties and constructor parameter properties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    /// The class whose instances have it.
    pub class: ScopeKey,
    /// The attribute's name.
    pub name: String,
    /// Line of the name at its (first) assignment or declaration (1-based).
    pub line: u32,
    /// The scope the type is written in (the method holding `self.x = …`;
    /// for a declared property, the class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<ScopeKey>,
    /// Its type when known, as a dotted name resolved in `scope`: from an
    /// annotation, a constructor call (`self.x = User()`, `new User()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_of: Option<Vec<String>>,
    /// Whether the attribute is a collection whose elements have type
    /// `type_of` (`self.users: list[User] = []`, `items: Item[]`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elements: bool,
    /// Its written type (an annotation, a TypeScript property's or
    /// interface member's type), resolved in `scope`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<TypeExpr>,
    /// The value it is assigned (`self.repo = make_repo()`), followed when
    /// it has no written type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Whether the name is a Python instance attribute (assigned through
    /// `self`): it then comes before a class attribute or method of the same
    /// name when looked up on an instance, as Python's attribute lookup does.
    #[serde(default)]
    pub instance: bool,
}

/// The declared return type of a function or method: `def f() -> User`,
/// `function f(): User`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnType {
    /// The function or method.
    pub function: ScopeKey,
    /// The type as a dotted name, resolved in the scope around the function.
    pub type_of: Vec<String>,
}

/// One parameter of a [`Signature`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// Its name (empty for a destructured parameter).
    pub name: String,
    /// Its written type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<TypeExpr>,
    /// Whether a call may leave it out (a default value, `?`, `*args`,
    /// `**kwargs`, a rest parameter).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// A function's or method's signature as written: its parameters (Python's
/// `self`/`cls` and TypeScript's `this:` left out) and its return type.
/// Each overload (Python `@overload`, TypeScript overload signatures) has
/// its own, in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// The function or method.
    pub function: ScopeKey,
    /// Its parameters in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    /// Its written return type (TypeScript's `asserts x`/`x is T`
    /// predicates and Python's `-> None` as [`TypeExpr::Unknown`]); `None`
    /// when not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ret: Option<TypeExpr>,
    /// The value its body returns when the return type is not written and
    /// every `return` gives the same kind of value (the first one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<Value>,
}

/// One type parameter of a [`Generics`]: `T extends Base = Default`,
/// Python's `T = TypeVar("T", bound=Base)` or `class C[T: Base]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeParam {
    /// Its name.
    pub name: String,
    /// Its constraint (`extends`, `bound=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<TypeExpr>,
    /// Its default (`= Default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<TypeExpr>,
}

/// The type parameters of a generic definition (class, interface, type
/// alias, function, method), or of the module (Python's module-level
/// `TypeVar`s, `owner` `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generics {
    /// The definition (`None`: module-level type variables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<ScopeKey>,
    /// Its type parameters in order.
    pub params: Vec<TypeParam>,
}

/// A base of a class or interface as written, with its type arguments:
/// `extends Base<User>`, `class C(Generic[T], Base[T])`. The bases'
/// definitions are found from the [`Role::Inherit`] references; these give
/// the arguments a member's type is read with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Base {
    /// The class or interface.
    pub class: ScopeKey,
    /// The base as written, resolved in the scope around the class.
    pub ty: TypeExpr,
}

/// A type alias's definition: `type Result<T> = Ok<T> | Err`, Python's
/// `Alias: TypeAlias = …` and `type Alias = …`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeAlias {
    /// The alias.
    pub alias: ScopeKey,
    /// What it stands for, resolved in the scope around it.
    pub ty: TypeExpr,
}

/// The decorators of a Python function or class whose name they rebind
/// (`@click.group()` makes `cli` a `Group`), innermost last, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decorated {
    /// The decorated definition.
    pub definition: ScopeKey,
    /// Its decorators in source order (the last one is applied first).
    pub decorators: Vec<Value>,
}

/// One module on the way from a file's own module to a module declared in
/// it ([`ModuleDecl`]): an inline `mod a { … }` block or the declared
/// module itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleStep {
    /// The module's name (`a` of `mod a`).
    pub name: String,
    /// The value of its `#[path = "…"]` attribute, as written (a path
    /// relative to a directory, see the `xref` crate's `rust_modules`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A Rust module declared without a body (`mod x;`, its source is another
/// file), outside any function. Line-free: it names files, not places.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleDecl {
    /// The inline modules holding the declaration (outermost first), then
    /// the declared module: `mod a { #[path = "x.rs"] mod b; }` gives
    /// `[a, b (path x.rs)]`. Never empty.
    pub steps: Vec<ModuleStep>,
}

/// A Rust `macro_rules!` definition whose expansion defines items, read
/// token by token (the macro is never expanded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroRules {
    /// The definition: the outline's `macro` symbol of the `macro_rules!`.
    pub definition: ScopeKey,
    /// The macro's name (`make_getter`).
    pub name: String,
    /// Items a body defines under a literal name (`struct Unit;` gives
    /// `Unit`), in source order, without repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
    /// Whether a body defines an item named by a fragment (`fn $name`,
    /// `struct $name`): every identifier an invocation passes may then be
    /// the name of an item it makes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fragment_items: bool,
}

/// A Rust macro invocation in item position (module level, an impl block
/// or a trait): `make_getter!(get_count, count);`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroCall {
    /// The macro's name: the last segment of its path (`make_getter`).
    pub name: String,
    /// Line of the macro's name (1-based).
    pub line: u32,
    /// The impl block or trait holding the invocation, whose members its
    /// items are; `None` at module level (inline modules included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<ScopeKey>,
    /// The identifiers its arguments hold, at any depth, in source order,
    /// without repeats (`get_count`, `count`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idents: Vec<String>,
}

/// Everything an adapter extracted for resolution, for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// `false` when the adapter does not extract facts (yet) for this
    /// language: the file's symbols are known, its references are not.
    pub supported: bool,
    /// Uses of names in source order.
    pub references: Vec<Reference>,
    /// Names bound by imports, at any scope, in source order.
    pub imports: Vec<ImportBinding>,
    /// Known types of local names.
    pub types: Vec<LocalType>,
    /// Attributes of instances with a known type or assigned through `self`
    /// (see [`Attribute`]), in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    /// Declared return types of functions and methods, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<ReturnType>,
    /// Python's `__all__` when it is a literal list or tuple of strings;
    /// TypeScript/JavaScript: the names its export lists export (`export {
    /// a, b as c }`, with or without `from`, `export * as ns`), always
    /// given: an import is a member of the module only when exported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exports: Option<Vec<String>>,
    /// Rust: the modules declared without a body (`mod x;`), in source
    /// order; they make the crate's module tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<ModuleDecl>,
    /// Signatures of functions and methods with a written parameter or
    /// return type, or a followed return value, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<Signature>,
    /// Type parameters of generic definitions, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generics: Vec<Generics>,
    /// Bases written with type arguments, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<Base>,
    /// Type aliases, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<TypeAlias>,
    /// Python definitions whose decorators rebind their name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorated: Vec<Decorated>,
    /// Rust: the file's `macro_rules!` definitions that define items, in
    /// source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub macro_rules: Vec<MacroRules>,
    /// Rust: the file's macro invocations in item position, in source
    /// order (any macro: the resolver keeps those of the project's own
    /// [`MacroRules`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub macro_calls: Vec<MacroCall>,
}

impl Facts {
    /// Calls `f` with every name the file's type facts write (local types,
    /// attributes, signatures, generics, bases, aliases, decorators and the
    /// receivers of references that are calls or values): a change of
    /// another file's definitions of one of these names can change how this
    /// file's references resolve.
    pub fn for_each_type_name<'t>(&'t self, f: &mut dyn FnMut(&'t str)) {
        let path = |path: &'t [String], f: &mut dyn FnMut(&'t str)| {
            path.iter().for_each(|part| f(part));
        };
        for local in &self.types {
            local.type_of.for_each_name(f);
        }
        for attribute in &self.attributes {
            if let Some(parts) = &attribute.type_of {
                path(parts, f);
            }
            if let Some(ty) = &attribute.ty {
                ty.for_each_name(f);
            }
            if let Some(value) = &attribute.value {
                value.for_each_name(f);
            }
        }
        for signature in &self.signatures {
            for param in &signature.params {
                if let Some(ty) = &param.ty {
                    ty.for_each_name(f);
                }
            }
            if let Some(ty) = &signature.ret {
                ty.for_each_name(f);
            }
            if let Some(value) = &signature.returns {
                value.for_each_name(f);
            }
        }
        for generics in &self.generics {
            for param in &generics.params {
                for ty in [&param.constraint, &param.default].into_iter().flatten() {
                    ty.for_each_name(f);
                }
            }
        }
        for base in &self.bases {
            base.ty.for_each_name(f);
        }
        for alias in &self.aliases {
            alias.ty.for_each_name(f);
        }
        for decorated in &self.decorated {
            for value in &decorated.decorators {
                value.for_each_name(f);
            }
        }
        for reference in &self.references {
            match &reference.receiver {
                Receiver::Call(parts) => path(parts, f),
                Receiver::Value(value) => value.for_each_name(f),
                Receiver::Bare | Receiver::Path(_) | Receiver::Expression => {}
            }
        }
    }
}
