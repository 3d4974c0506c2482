//! Cross-reference facts ([`outline_core::xref::Facts`]) of a Python module:
//! every use of a name with its role and scope, import bindings at every
//! scope, known types of local names, and `__all__`.
//!
//! Scoping follows the Python reference, "Execution model — Naming and
//! binding": a name bound anywhere in a function body (parameter, assignment,
//! `for`/`with`/`except` target, `import`, nested `def`/`class`, `del`,
//! walrus, `match` capture) is local to the whole body unless declared
//! `global`/`nonlocal`; class bodies are not visible from the methods inside
//! them; lambda parameters and comprehension variables are local to the lambda
//! or comprehension (uses of those are not reported at all: they cannot name a
//! definition). Annotations, defaults, decorators and base classes are
//! evaluated in the scope around the definition.

use std::collections::{HashMap, HashSet};

use outline_core::xref::{
    Attribute, Base, Decorated, Dynamic, Facts, Generics, ImportBinding, LocalType, Param,
    Receiver, Reference, ReturnType, Role, ScopeKey, Signature, TypeExpr, TypeOf, TypeParam, Value,
};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Pattern, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::source::Source;
use crate::types::{annotation_type, return_value, value_of};

/// The facts of the module `body`.
pub(crate) fn module_facts(source: &Source<'_>, body: &[Stmt]) -> Facts {
    let mut collector = Collector {
        source,
        frames: vec![Frame {
            key: None,
            is_class: false,
            bound: HashSet::new(),
            receiver: None,
            once: once_bound(body),
            loaded: HashMap::new(),
        }],
        anonymous: Vec::new(),
        in_annotation: false,
        module_assigned: assigned_names(body),
        facts: Facts {
            supported: true,
            ..Facts::default()
        },
        depth: 0,
        type_vars: Vec::new(),
    };
    collector.facts.exports = dunder_all(body);
    collector.visit_body(body);
    if !collector.type_vars.is_empty() {
        collector.facts.generics.push(Generics {
            owner: None,
            params: std::mem::take(&mut collector.type_vars),
        });
    }
    collector.facts
}

/// One function or class scope (or the module, with `key: None`).
struct Frame {
    key: Option<ScopeKey>,
    is_class: bool,
    /// Names bound in this scope (for the module: unused).
    bound: HashSet<String>,
    /// For a method: its first parameter (`self`) and the class it is an
    /// instance of (`self.x = …` assigns an attribute of that class).
    receiver: Option<(String, ScopeKey)>,
    /// Names the scope binds once (one assignment, import, definition…).
    once: HashSet<String>,
    /// Names bound once to a module loaded at run time (`m =
    /// importlib.import_module("pkg.mod")`), with the module (name
    /// without leading dots, level), from their assignment on.
    loaded: HashMap<String, (String, u32)>,
}

struct Collector<'s, 'a> {
    source: &'s Source<'a>,
    frames: Vec<Frame>,
    /// Parameters of enclosing lambdas and variables of enclosing
    /// comprehensions.
    anonymous: Vec<HashSet<String>>,
    in_annotation: bool,
    /// Names the module binds other than by an import (assignments,
    /// `def`, `class`): an import alias of one of them (`from _json import
    /// x as c_x` beside `c_x = None`) is a reference to that definition.
    module_assigned: HashSet<String>,
    facts: Facts,
    /// Expressions open around the one visited (see
    /// [`MAX_EXPRESSION_DEPTH`]).
    depth: usize,
    /// The module's type variables (`T = TypeVar("T", bound=Base)`), in
    /// source order.
    type_vars: Vec<TypeParam>,
}

/// Expressions nested deeper than this are not visited for references: the
/// visit recurses once per level, and a million nested lambdas
/// (`lambda: lambda: … 1`, which the parser takes) overflowed even the
/// parser's 256 MiB stack and aborted the process. Real code nests a few
/// dozen levels.
const MAX_EXPRESSION_DEPTH: usize = 5_000;

impl Collector<'_, '_> {
    fn current_key(&self) -> Option<ScopeKey> {
        self.frames.last().and_then(|f| f.key.clone())
    }

    fn parent_qualname(&self) -> String {
        self.frames
            .last()
            .and_then(|f| f.key.as_ref())
            .map(|k| k.qualname.clone())
            .unwrap_or_default()
    }

    /// Whether `name` is a lambda parameter or comprehension variable here.
    fn is_anonymous_local(&self, name: &str) -> bool {
        self.anonymous.iter().any(|set| set.contains(name))
    }

    /// The scope that binds `name` as seen from the innermost scope: the
    /// innermost scope itself (function or class), then the enclosing
    /// functions (class scopes are skipped), else `None` (module level).
    fn binding_of(&self, name: &str) -> Option<ScopeKey> {
        let mut frames = self.frames.iter().rev();
        let innermost = frames.next()?;
        // Lambdas and comprehensions are function scopes: from them a class
        // body's names are not visible (Python reference, "Resolution of
        // names": class scope does not extend to nested code blocks).
        let class_hidden = innermost.is_class && !self.anonymous.is_empty();
        if innermost.key.is_some() && !class_hidden && innermost.bound.contains(name) {
            return innermost.key.clone();
        }
        frames
            .filter(|f| f.key.is_some() && !f.is_class && f.bound.contains(name))
            .map(|f| f.key.clone())
            .next()
            .flatten()
    }

    fn position(&self, range: TextRange) -> (u32, u32, u32) {
        let index = &self.source.index;
        let start = range.start().to_usize();
        let end = range.end().to_usize();
        let line = index.line(start);
        let column = index.column(start);
        let end_column = if index.line(end) == line {
            index.column(end)
        } else {
            column + 1
        };
        (line, column, end_column)
    }

    fn push(&mut self, name: &str, range: TextRange, receiver: Receiver, role: Role) {
        self.push_with(name, range, receiver, role, None);
    }

    fn push_with(
        &mut self,
        name: &str,
        range: TextRange,
        receiver: Receiver,
        role: Role,
        subtype: Option<ScopeKey>,
    ) {
        if name.is_empty() {
            return;
        }
        let head = match &receiver {
            Receiver::Bare => Some(name),
            Receiver::Path(path) | Receiver::Call(path) => path.first().map(String::as_str),
            Receiver::Value(value) => value.head(),
            Receiver::Expression => None,
        };
        if head.is_some_and(|h| self.is_anonymous_local(h)) {
            return;
        }
        let binding = head.and_then(|h| self.binding_of(h));
        let (line, column, end_column) = self.position(range);
        // `m.helper()` with `m = importlib.import_module("pkg.mod")` in
        // this scope: a member of that module, found at run time.
        let dynamic = match (&receiver, self.frames.last()) {
            (Receiver::Path(path), Some(frame))
                if matches!(role, Role::Call | Role::Attribute)
                    && binding == frame.key
                    && !frame.is_class =>
            {
                match &path[..] {
                    [head] => frame
                        .loaded
                        .get(head)
                        .map(|(module, level)| Dynamic::Member {
                            module: module.clone(),
                            level: *level,
                        }),
                    _ => None,
                }
            }
            _ => None,
        };
        self.facts.references.push(Reference {
            name: name.to_owned(),
            receiver,
            role,
            line,
            column,
            end_column,
            scope: self.current_key(),
            binding,
            subtype,
            dynamic,
        });
    }

    /// Reports `expr` with `role` for its last name when it is a name or a
    /// dotted chain (the other parts are reads/attributes); any other
    /// expression is visited normally, and an attribute of it gets `role`.
    fn named(&mut self, expr: &Expr, role: Role, subtype: Option<ScopeKey>) {
        match expr {
            Expr::Name(n) => {
                self.push_with(n.id.as_str(), n.range, Receiver::Bare, role, subtype);
            }
            Expr::Attribute(a) => {
                let receiver = match dotted(&a.value) {
                    Some(path) => {
                        let inner = if matches!(*a.value, Expr::Name(_)) {
                            Role::Read
                        } else {
                            Role::Attribute
                        };
                        self.named(&a.value, self.plain_role(inner), None);
                        Receiver::Path(path)
                    }
                    None => {
                        self.visit_expr(&a.value);
                        value_of(&a.value).map_or(Receiver::Expression, Receiver::Value)
                    }
                };
                self.push_with(a.attr.id.as_str(), a.attr.range, receiver, role, subtype);
            }
            other => self.visit_expr(other),
        }
    }

    /// `role`, or [`Role::TypeUse`] inside an annotation; a bare name read is
    /// [`Role::Read`].
    fn plain_role(&self, role: Role) -> Role {
        if self.in_annotation {
            Role::TypeUse
        } else {
            role
        }
    }

    fn function(&mut self, f: &ast::StmtFunctionDef) {
        for decorator in &f.decorator_list {
            self.named_or_call(&decorator.expression);
        }
        let parameters = &f.parameters;
        for default in parameters
            .iter_non_variadic_params()
            .filter_map(|p| p.default.as_deref())
        {
            self.visit_expr(default);
        }
        for parameter in parameters.iter() {
            if let Some(annotation) = parameter.annotation() {
                self.visit_annotation(annotation);
            }
        }
        if let Some(returns) = &f.returns {
            self.visit_annotation(returns);
        }
        let key = ScopeKey {
            qualname: qualname(&self.parent_qualname(), f.name.id.as_str()),
            start_line: self.start_line(f.range, &f.decorator_list),
        };
        let mut bound = bound_names(&f.body);
        for parameter in parameters.iter() {
            bound.insert(parameter.name().id.to_string());
        }
        // The receiver: first parameter of a method that is not static.
        let enclosing_class = self
            .frames
            .last()
            .filter(|f| f.is_class)
            .and_then(|f| f.key.clone());
        let decorated = |word: &str| {
            f.decorator_list
                .iter()
                .any(|d| last_name(&d.expression) == Some(word))
        };
        if let Some(path) = f.returns.as_deref().and_then(annotation_path) {
            self.facts.returns.push(ReturnType {
                function: key.clone(),
                type_of: path,
            });
        }
        self.signature(
            f,
            &key,
            enclosing_class.is_some() && !decorated("staticmethod"),
        );
        self.generics(&key, f.type_params.as_deref(), &[]);
        self.decorators(&key, &f.decorator_list);
        let mut receiver = None;
        if let Some(class) = enclosing_class
            && !decorated("staticmethod")
            && let Some(first) = parameters.posonlyargs.iter().chain(&parameters.args).next()
        {
            let type_of = if decorated("classmethod") || f.name.id.as_str() == "__new__" {
                TypeOf::Class(class)
            } else {
                receiver = Some((first.parameter.name.id.to_string(), class.clone()));
                TypeOf::Instance(class)
            };
            self.facts.types.push(LocalType {
                scope: Some(key.clone()),
                name: first.parameter.name.id.to_string(),
                type_of,
                line: self.source.start_line(&first.parameter),
                until: None,
            });
        }
        for parameter in parameters.iter() {
            let Some(annotation) = parameter.annotation() else {
                continue;
            };
            let written = annotation_type(annotation);
            let type_of = match written {
                TypeExpr::Unknown => continue,
                // `*args: T` is a tuple of `T`, `**kwargs: T` a dict of them.
                element
                    if parameters
                        .vararg
                        .as_deref()
                        .is_some_and(|v| std::ptr::eq(v, parameter.as_parameter())) =>
                {
                    TypeOf::Type(TypeExpr::Named {
                        path: vec!["list".to_owned()],
                        args: vec![element],
                    })
                }
                value
                    if parameters
                        .kwarg
                        .as_deref()
                        .is_some_and(|v| std::ptr::eq(v, parameter.as_parameter())) =>
                {
                    TypeOf::Type(TypeExpr::Named {
                        path: vec!["dict".to_owned()],
                        args: vec![TypeExpr::Unknown, value],
                    })
                }
                other => TypeOf::Type(other),
            };
            self.facts.types.push(LocalType {
                scope: Some(key.clone()),
                name: parameter.name().id.to_string(),
                type_of,
                line: self.source.start_line(parameter.name()),
                until: None,
            });
        }
        self.frames.push(Frame {
            key: Some(key),
            is_class: false,
            bound,
            receiver,
            once: once_bound(&f.body),
            loaded: HashMap::new(),
        });
        let anonymous = std::mem::take(&mut self.anonymous);
        self.visit_body(&f.body);
        self.anonymous = anonymous;
        self.frames.pop();
    }

    fn class(&mut self, c: &ast::StmtClassDef) {
        for decorator in &c.decorator_list {
            self.named_or_call(&decorator.expression);
        }
        let key = ScopeKey {
            qualname: qualname(&self.parent_qualname(), c.name.id.as_str()),
            start_line: self.start_line(c.range, &c.decorator_list),
        };
        self.decorators(&key, &c.decorator_list);
        let bases: Vec<&Expr> = c
            .arguments
            .as_deref()
            .map(|a| a.args.iter().collect())
            .unwrap_or_default();
        self.generics(&key, c.type_params.as_deref(), &bases);
        for base in &bases {
            let ty = annotation_type(base);
            if ty != TypeExpr::Unknown {
                self.facts.bases.push(Base {
                    class: key.clone(),
                    ty,
                });
            }
        }
        if let Some(arguments) = c.arguments.as_deref() {
            for base in &arguments.args {
                match base {
                    // `Generic[T]`, `Base[int]`: the subscripted name is the base.
                    Expr::Subscript(s) => {
                        self.named(&s.value, Role::Inherit, Some(key.clone()));
                        self.visit_expr(&s.slice);
                    }
                    other => self.named(other, Role::Inherit, Some(key.clone())),
                }
            }
            for keyword in &arguments.keywords {
                self.visit_expr(&keyword.value);
            }
        }
        self.frames.push(Frame {
            key: Some(key),
            is_class: true,
            bound: bound_names(&c.body),
            receiver: None,
            once: HashSet::new(),
            loaded: HashMap::new(),
        });
        let anonymous = std::mem::take(&mut self.anonymous);
        self.visit_body(&c.body);
        self.anonymous = anonymous;
        self.frames.pop();
    }

    /// A decorator: `@name`, `@a.b`, `@name(args)`.
    fn named_or_call(&mut self, expr: &Expr) {
        self.visit_expr(expr);
    }

    fn start_line(&self, range: TextRange, decorators: &[ast::Decorator]) -> u32 {
        let start = decorators
            .iter()
            .map(Ranged::start)
            .chain([range.start()])
            .min()
            .unwrap_or(range.start());
        self.source.index.line(start.to_usize())
    }

    fn import(&mut self, stmt: &Stmt) {
        let line = self.source.start_line(stmt);
        let scope = self.current_key();
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let module = alias.name.id.to_string();
                    let local = match &alias.asname {
                        Some(asname) => asname.id.to_string(),
                        None => module.split('.').next().unwrap_or_default().to_owned(),
                    };
                    let module = if alias.asname.is_some() {
                        module
                    } else {
                        local.clone()
                    };
                    self.alias_reference(alias, &scope);
                    self.facts.imports.push(ImportBinding {
                        local,
                        module,
                        level: 0,
                        name: None,
                        line,
                        scope: scope.clone(),
                    });
                }
            }
            Stmt::ImportFrom(from) => {
                let module = from
                    .module
                    .as_ref()
                    .map(|m| m.id.to_string())
                    .unwrap_or_default();
                for alias in &from.names {
                    let name = alias.name.id.to_string();
                    let local = alias
                        .asname
                        .as_ref()
                        .map_or_else(|| name.clone(), |a| a.id.to_string());
                    self.facts.imports.push(ImportBinding {
                        local,
                        module: module.clone(),
                        level: from.level,
                        name: Some(name.clone()),
                        line,
                        scope: scope.clone(),
                    });
                    self.alias_reference(alias, &scope);
                    if name != "*" {
                        let (l, column, end_column) = self.position(alias.name.range);
                        self.facts.references.push(Reference {
                            name,
                            receiver: Receiver::Bare,
                            role: Role::Import,
                            line: l,
                            column,
                            end_column,
                            scope: scope.clone(),
                            binding: None,
                            subtype: None,
                            dynamic: None,
                        });
                    }
                }
            }
            _ => {}
        }
    }

    /// The `as` name of an import at module level when the module also
    /// binds that name otherwise: a reference (role `import`) to the module's
    /// definition of it, as jedi reports it.
    fn alias_reference(&mut self, alias: &ast::Alias, scope: &Option<ScopeKey>) {
        let Some(asname) = &alias.asname else {
            return;
        };
        if scope.is_some() || !self.module_assigned.contains(asname.id.as_str()) {
            return;
        }
        let (line, column, end_column) = self.position(asname.range);
        self.facts.references.push(Reference {
            name: asname.id.to_string(),
            receiver: Receiver::Bare,
            role: Role::Import,
            line,
            column,
            end_column,
            scope: None,
            binding: None,
            subtype: None,
            dynamic: None,
        });
    }

    /// `x = User()`, `x = mod.User(…)`, `x: User = …`, `x = a.b().c`: the
    /// type of `x`, from its annotation, else from the value (followed by
    /// the resolver). A module-level `T = TypeVar("T", bound=B)` is a type
    /// variable of the module.
    fn local_type(&mut self, target: &Expr, annotation: Option<&Expr>, value: Option<&Expr>) {
        let Expr::Name(name) = target else {
            return;
        };
        if let Some(Expr::Call(call)) = value
            && last_name(&call.func) == Some("TypeVar")
            && self.frames.len() == 1
        {
            self.type_var(name.id.as_str(), call);
        }
        let written = annotation.map(annotation_type);
        let type_of = match (written, value) {
            // `x: TypeAlias = …` names a type, it has none.
            (Some(TypeExpr::Named { path, .. }), _)
                if path.last().is_some_and(|n| n == "TypeAlias") =>
            {
                return;
            }
            (Some(ty), _) if ty != TypeExpr::Unknown => TypeOf::Type(ty),
            (_, Some(value)) => match value_of(value) {
                Some(v) => TypeOf::Value(v),
                None => return,
            },
            _ => return,
        };
        self.facts.types.push(LocalType {
            scope: self.current_key(),
            name: name.id.to_string(),
            type_of,
            line: self.source.start_line(target),
            until: None,
        });
    }

    /// `T = TypeVar("T", bound=B)` (or with constraints, its first one) at
    /// module level: a type parameter of the module's generic classes and
    /// functions.
    fn type_var(&mut self, name: &str, call: &ast::ExprCall) {
        let bound = call
            .arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "bound"))
            .map(|k| annotation_type(&k.value))
            .or_else(|| call.arguments.args.get(1).map(annotation_type));
        let default = call
            .arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "default"))
            .map(|k| annotation_type(&k.value));
        self.type_vars.retain(|t| t.name != name);
        self.type_vars.push(TypeParam {
            name: name.to_owned(),
            constraint: bound.filter(|t| *t != TypeExpr::Unknown),
            default: default.filter(|t| *t != TypeExpr::Unknown),
        });
    }

    /// The signature of the function `f` (`key`): its parameters' written
    /// types (the receiver of a `method` left out), its return type, or the
    /// value its body returns.
    fn signature(&mut self, f: &ast::StmtFunctionDef, key: &ScopeKey, method: bool) {
        let parameters = &f.parameters;
        let mut params = Vec::new();
        let positional = parameters.posonlyargs.iter().chain(&parameters.args);
        for (i, p) in positional.enumerate() {
            if method && i == 0 {
                continue;
            }
            params.push(Param {
                name: p.parameter.name.id.to_string(),
                ty: p.parameter.annotation.as_deref().map(annotation_type),
                optional: p.default.is_some(),
            });
        }
        if let Some(vararg) = &parameters.vararg {
            params.push(Param {
                name: format!("*{}", vararg.name.id),
                ty: None,
                optional: true,
            });
        }
        let ret = f.returns.as_deref().map(annotation_type);
        let returns = if ret.is_none() {
            return_value(&f.body)
        } else {
            None
        };
        if params.iter().all(|p| p.ty.is_none()) && ret.is_none() && returns.is_none() {
            return;
        }
        self.facts.signatures.push(Signature {
            function: key.clone(),
            params,
            ret,
            returns,
        });
    }

    /// The type parameters of a class or function: PEP 695's `[T: B]`, else
    /// the module's type variables its bases name (`Generic[T]` first).
    fn generics(&mut self, key: &ScopeKey, type_params: Option<&ast::TypeParams>, bases: &[&Expr]) {
        let mut params = Vec::new();
        if let Some(type_params) = type_params {
            for tp in type_params.iter() {
                if let ast::TypeParam::TypeVar(tv) = tp {
                    params.push(TypeParam {
                        name: tv.name.id.to_string(),
                        constraint: tv
                            .bound
                            .as_deref()
                            .map(annotation_type)
                            .filter(|t| *t != TypeExpr::Unknown),
                        default: tv
                            .default
                            .as_deref()
                            .map(annotation_type)
                            .filter(|t| *t != TypeExpr::Unknown),
                    });
                }
            }
        } else {
            // `Generic[T, U]` gives the order; else the first appearance.
            let generic = bases.iter().find(
                |b| matches!(b, Expr::Subscript(s) if last_name(&s.value) == Some("Generic")),
            );
            let mut names = Vec::new();
            for base in generic.into_iter().chain(bases.iter()) {
                if let Expr::Subscript(s) = base {
                    type_var_names(&s.slice, &mut names);
                }
            }
            for name in names {
                if let Some(var) = self.type_vars.iter().find(|t| t.name == name)
                    && !params.iter().any(|p: &TypeParam| p.name == name)
                {
                    params.push(var.clone());
                }
            }
        }
        if !params.is_empty() {
            self.facts.generics.push(Generics {
                owner: Some(key.clone()),
                params,
            });
        }
    }

    /// The decorators of a definition that may rebind its name (all but
    /// `@overload`, `@staticmethod`, `@classmethod` and the like, which
    /// keep it a function).
    fn decorators(&mut self, key: &ScopeKey, decorators: &[ast::Decorator]) {
        let kept: Vec<Value> = decorators
            .iter()
            .filter(|d| {
                !matches!(
                    last_name(&d.expression),
                    Some(
                        "overload"
                            | "staticmethod"
                            | "classmethod"
                            | "abstractmethod"
                            | "override"
                            | "final"
                            | "wraps"
                    )
                )
            })
            .filter_map(|d| value_of(&d.expression))
            .collect();
        if !kept.is_empty() {
            self.facts.decorated.push(Decorated {
                definition: key.clone(),
                decorators: kept,
            });
        }
    }

    /// `self.x = …` (also in a tuple target) in a method whose first
    /// parameter is `self`: an [`Attribute`] of the class, its type from an
    /// annotation or a constructor call (the first assignment of a name
    /// gives its line; a later one may give the type).
    fn attribute(&mut self, target: &Expr, annotation: Option<&Expr>, value: Option<&Expr>) {
        let (own, class) = match self.frames.last().and_then(|f| f.receiver.as_ref()) {
            Some((own, class)) => (own.clone(), class.clone()),
            None => return,
        };
        let attribute = match target {
            Expr::Attribute(a) => a,
            Expr::Tuple(t) => {
                for element in &t.elts {
                    self.attribute(element, None, None);
                }
                return;
            }
            Expr::List(l) => {
                for element in &l.elts {
                    self.attribute(element, None, None);
                }
                return;
            }
            Expr::Starred(s) => return self.attribute(&s.value, None, None),
            _ => return,
        };
        if !matches!(&*attribute.value, Expr::Name(n) if n.id.as_str() == own) {
            return;
        }
        // An annotation, a call's callee (a class or a function with a
        // declared return type) or a name (`self.x = x`, a parameter of
        // known type).
        let elements = annotation.and_then(annotation_elements);
        let is_collection = elements.is_some();
        let type_of = elements
            .or_else(|| annotation.and_then(annotation_path))
            .or_else(|| match value {
                Some(Expr::Call(call)) => dotted(&call.func),
                Some(Expr::Name(n)) => Some(vec![n.id.to_string()]),
                _ => None,
            });
        let name = attribute.attr.id.as_str();
        let scope = self.current_key();
        let ty = annotation
            .map(annotation_type)
            .filter(|t| *t != TypeExpr::Unknown);
        let value = if ty.is_none() {
            value.and_then(value_of)
        } else {
            None
        };
        if let Some(known) = self
            .facts
            .attributes
            .iter_mut()
            .find(|k| k.instance && k.class == class && k.name == name)
        {
            if known.type_of.is_none() && type_of.is_some() {
                known.type_of = type_of;
                known.scope = scope.clone();
                known.elements = is_collection;
            }
            if known.ty.is_none() && known.value.is_none() && (ty.is_some() || value.is_some()) {
                known.ty = ty;
                known.value = value;
                known.scope = scope;
            }
            return;
        }
        let line = self.source.start_line(&attribute.attr);
        self.facts.attributes.push(Attribute {
            class,
            name: name.to_owned(),
            line,
            scope,
            type_of,
            elements: is_collection,
            ty,
            value,
            instance: true,
        });
    }

    fn comprehension(&mut self, generators: &[ast::Comprehension], elements: &[&Expr]) {
        let mut names = HashSet::new();
        // In a function, a variable over a dotted iterable (`for u in
        // users`) gets its element type, and is bound in the function for
        // that: the function does not bind the name itself, so no other use
        // can mean another variable. Elsewhere it stays anonymous.
        let in_function = self
            .frames
            .last()
            .is_some_and(|f| f.key.is_some() && !f.is_class);
        let mut typed = Vec::new();
        for generator in generators {
            if in_function
                && let (Expr::Name(target), Some(iterable)) =
                    (&generator.target, value_of(&generator.iter))
                && let name = target.id.as_str()
                && !self.frames.last().is_some_and(|f| f.bound.contains(name))
                && !self.is_anonymous_local(name)
                && !names.contains(name)
            {
                self.facts.types.push(LocalType {
                    scope: self.current_key(),
                    name: name.to_owned(),
                    type_of: TypeOf::Value(Value::Element(Box::new(iterable))),
                    line: self.source.start_line(&generator.target),
                    until: None,
                });
                typed.push(name.to_owned());
                continue;
            }
            store_names(&generator.target, &mut names);
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.bound.extend(typed.iter().cloned());
        }
        // The first iterable is evaluated in the enclosing scope (Python
        // reference, "Displays for lists, sets and dictionaries").
        if let Some(first) = generators.first() {
            self.visit_expr(&first.iter);
        }
        self.anonymous.push(names);
        for (i, generator) in generators.iter().enumerate() {
            if i > 0 {
                self.visit_expr(&generator.iter);
            }
            for condition in &generator.ifs {
                self.visit_expr(condition);
            }
        }
        for element in elements {
            self.visit_expr(element);
        }
        self.anonymous.pop();
        if let Some(frame) = self.frames.last_mut() {
            for name in &typed {
                frame.bound.remove(name);
            }
        }
    }
}

impl<'a> Visitor<'a> for Collector<'_, '_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => self.function(f),
            Stmt::ClassDef(c) => self.class(c),
            Stmt::Import(_) | Stmt::ImportFrom(_) => self.import(stmt),
            Stmt::Assign(a) => {
                self.visit_expr(&a.value);
                for target in &a.targets {
                    self.visit_expr(target);
                }
                self.loaded_assignment(a);
                if let [target] = &a.targets[..] {
                    self.local_type(target, None, Some(&a.value));
                }
                for target in &a.targets {
                    self.attribute(target, None, Some(&a.value));
                }
            }
            Stmt::AnnAssign(a) => {
                self.visit_annotation(&a.annotation);
                if let Some(value) = &a.value {
                    self.visit_expr(value);
                }
                self.visit_expr(&a.target);
                self.local_type(&a.target, Some(&a.annotation), a.value.as_deref());
                self.attribute(&a.target, Some(&a.annotation), a.value.as_deref());
            }
            Stmt::For(f) => {
                // `for x in xs`: `x` is an element of `xs`.
                if let (Expr::Name(target), Some(iterable)) = (&*f.target, value_of(&f.iter)) {
                    self.facts.types.push(LocalType {
                        scope: self.current_key(),
                        name: target.id.to_string(),
                        type_of: TypeOf::Value(Value::Element(Box::new(iterable))),
                        line: self.source.start_line(&*f.target),
                        until: None,
                    });
                }
                visitor::walk_stmt(self, stmt);
            }
            Stmt::If(i) => {
                // `if isinstance(x, C):` narrows `x` to `C` in the body
                // (PEP 647's isinstance narrowing, as pyright does).
                let mut narrowed = Vec::new();
                isinstance_narrowed(&i.test, &mut narrowed);
                if let (Some(first), Some(last)) = (i.body.first(), i.body.last()) {
                    let (start, end) = (self.source.start_line(first), self.source.end_line(last));
                    for (name, ty) in narrowed {
                        let scope = self.binding_of(&name);
                        self.facts.types.push(LocalType {
                            scope,
                            name,
                            type_of: TypeOf::Type(ty),
                            line: start,
                            until: Some(end),
                        });
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            Stmt::With(w) => {
                // `with m() as x`: what the context manager's `__enter__`
                // gives.
                for item in &w.items {
                    if let (Some(Expr::Name(target)), Some(manager)) =
                        (item.optional_vars.as_deref(), value_of(&item.context_expr))
                    {
                        let enter = if w.is_async {
                            "__aenter__"
                        } else {
                            "__enter__"
                        };
                        let mut entered = Value::Call {
                            callee: Box::new(Value::Member(Box::new(manager), enter.to_owned())),
                            args: 0,
                        };
                        if w.is_async {
                            entered = Value::Await(Box::new(entered));
                        }
                        self.facts.types.push(LocalType {
                            scope: self.current_key(),
                            name: target.id.to_string(),
                            type_of: TypeOf::Value(entered),
                            line: self.source.start_line(target),
                            until: None,
                        });
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
        // `except E as e`: `e` is an instance of `E`.
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        if let (Some(name), Some(path)) = (&h.name, h.type_.as_deref().and_then(dotted)) {
            self.facts.types.push(LocalType {
                scope: self.current_key(),
                name: name.id.to_string(),
                type_of: TypeOf::Path(path),
                line: self.source.start_line(name),
                until: None,
            });
        }
        visitor::walk_except_handler(self, handler);
    }

    fn visit_annotation(&mut self, expr: &'a Expr) {
        let outer = std::mem::replace(&mut self.in_annotation, true);
        self.visit_expr(expr);
        self.in_annotation = outer;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_EXPRESSION_DEPTH {
            return;
        }
        self.depth += 1;
        self.visit_expr_inside(expr);
        self.depth -= 1;
    }
}

impl Collector<'_, '_> {
    /// [`Visitor::visit_expr`] below the depth check.
    fn visit_expr_inside(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(n) => {
                if n.ctx == ExprContext::Load {
                    let role = self.plain_role(Role::Read);
                    self.push(n.id.as_str(), n.range, Receiver::Bare, role);
                }
            }
            Expr::Attribute(a) => {
                // `a.b = …`, `del a.b`: `b` is written.
                let role = if a.ctx == ExprContext::Load {
                    Role::Attribute
                } else {
                    Role::Write
                };
                let role = self.plain_role(role);
                self.named(expr, role, None);
            }
            Expr::Call(call) => {
                // `getattr(obj, "run")()`: the attribute is called.
                if let Expr::Call(inner) = &*call.func
                    && self.dynamic_attribute(inner, true)
                {
                    self.call_arguments(call);
                    return;
                }
                if self.dynamic_attribute(call, false) || self.dynamic_module(call) {
                    return;
                }
                // `importlib.import_module("pkg.mod").helper()`: a member
                // of that module, found at run time.
                let loaded = match &*call.func {
                    Expr::Attribute(a) => self.loaded_module(&a.value),
                    _ => None,
                };
                let before = self.facts.references.len();
                self.named(&call.func, Role::Call, None);
                if let (Some((module, level)), Expr::Attribute(a)) = (loaded, &*call.func)
                    && self.facts.references.len() > before
                    && let Some(last) = self.facts.references.last_mut()
                    && last.name == a.attr.id.as_str()
                    && last.dynamic.is_none()
                {
                    last.dynamic = Some(Dynamic::Member { module, level });
                }
                self.call_arguments(call);
            }
            Expr::Lambda(lambda) => {
                let mut names = HashSet::new();
                if let Some(parameters) = &lambda.parameters {
                    for default in parameters
                        .iter_non_variadic_params()
                        .filter_map(|p| p.default.as_deref())
                    {
                        self.visit_expr(default);
                    }
                    for parameter in parameters.iter() {
                        names.insert(parameter.name().id.to_string());
                    }
                }
                self.anonymous.push(names);
                self.visit_expr(&lambda.body);
                self.anonymous.pop();
            }
            // A forward reference: `x: "User"`, `list["User"]` (Python
            // reference, "Annotations"; PEP 484 "Forward references").
            Expr::StringLiteral(string) if self.in_annotation => self.string_annotation(string),
            Expr::Subscript(s) if self.in_annotation => self.annotation_subscript(s),
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => match &c.key {
                Some(key) => self.comprehension(&c.generators, &[key, &c.value]),
                None => self.comprehension(&c.generators, &[&c.value]),
            },
            _ => visitor::walk_expr(self, expr),
        }
    }
}

impl Collector<'_, '_> {
    /// A string in an annotation: the expression it holds, at its own
    /// positions. A string whose text differs from its source (escapes,
    /// implicit concatenation) has no exact positions and is left out, as
    /// is one that does not parse.
    fn string_annotation(&mut self, string: &ast::ExprStringLiteral) {
        let Ok(parsed) =
            ruff_python_parser::typing::parse_type_annotation(string, self.source.text)
        else {
            return;
        };
        if parsed.kind().is_simple() {
            self.visit_expr(parsed.expression());
        }
    }

    /// `X[…]` in an annotation: `Literal[…]` holds values, not types, and
    /// `Annotated[T, …]` only its first element is a type (typing docs).
    fn annotation_subscript(&mut self, s: &ast::ExprSubscript) {
        match last_name(&s.value) {
            Some("Literal") => self.visit_expr(&s.value),
            Some("Annotated") => {
                self.visit_expr(&s.value);
                match &*s.slice {
                    Expr::Tuple(t) => {
                        let mut elements = t.elts.iter();
                        if let Some(first) = elements.next() {
                            self.visit_expr(first);
                        }
                        let outer = std::mem::replace(&mut self.in_annotation, false);
                        for element in elements {
                            self.visit_expr(element);
                        }
                        self.in_annotation = outer;
                    }
                    other => self.visit_expr(other),
                }
            }
            _ => {
                self.visit_expr(&s.value);
                self.visit_expr(&s.slice);
            }
        }
    }

    /// A call's arguments; those that are type expressions by the typing
    /// rules are visited as annotations: the first argument of `cast`, a
    /// `TypeVar`'s constraints and its `bound=` (typing docs).
    fn call_arguments(&mut self, call: &ast::ExprCall) {
        let callee = last_name(&call.func);
        let arguments = &call.arguments;
        for (i, argument) in arguments.args.iter().enumerate() {
            let typed = match callee {
                Some("cast") => i == 0,
                Some("TypeVar") => i > 0,
                _ => false,
            };
            if typed {
                self.visit_annotation(argument);
            } else if i == 0
                && matches!(callee, Some("partial" | "partialmethod"))
                && matches!(argument, Expr::Name(_) | Expr::Attribute(_))
            {
                // `functools.partial(f, …)` calls `f` when it is called
                // (Python library reference, functools.partial): a call of
                // `f` here, so callers and the tests that reach `f` see it.
                self.named(argument, Role::Call, None);
            } else {
                self.visit_expr(argument);
            }
        }
        // `Point(x=1)` of a dataclass: the keyword names its field.
        if let Some(callee_value) = value_of(&call.func) {
            for keyword in &arguments.keywords {
                if let Some(arg) = &keyword.arg {
                    self.push(
                        arg.id.as_str(),
                        arg.range,
                        Receiver::Value(Value::Keywords(Box::new(callee_value.clone()))),
                        Role::Write,
                    );
                }
            }
        }
        for keyword in &arguments.keywords {
            let typed = callee == Some("TypeVar")
                && keyword
                    .arg
                    .as_ref()
                    .is_some_and(|a| a.id.as_str() == "bound");
            if typed {
                self.visit_annotation(&keyword.value);
            } else {
                self.visit_expr(&keyword.value);
            }
        }
    }
}

/// Dynamic references: names reached by a string at run time (Python
/// library reference, "Built-in Functions" `getattr`/`hasattr`/`setattr`/
/// `delattr`/`__import__`, and `importlib`).
impl Collector<'_, '_> {
    /// Whether `name` is the builtin of that name here: bound neither in an
    /// enclosing function nor at module level (by an import either).
    fn is_builtin_here(&self, name: &str) -> bool {
        self.binding_of(name).is_none()
            && !self.module_assigned.contains(name)
            && !self.facts.imports.iter().any(|b| b.local == name)
    }

    /// The function of `importlib` that `local` names here by `from
    /// importlib import name [as local]`.
    fn imported_from_importlib(&self, local: &str) -> Option<&str> {
        self.facts
            .imports
            .iter()
            .rev()
            .find(|b| b.local == local)
            .filter(|b| b.module == "importlib" && b.level == 0)
            .and_then(|b| b.name.as_deref())
    }

    /// Whether `local` names the module `importlib` here: `import
    /// importlib [as local]`, or `importlib` bound by no function.
    fn is_importlib(&self, local: &str) -> bool {
        let imported = self.facts.imports.iter().rev().find(|b| b.local == local);
        match imported {
            Some(b) => b.module == "importlib" && b.level == 0 && b.name.is_none(),
            None => local == "importlib" && self.binding_of(local).is_none(),
        }
    }

    /// The loader the callee `func` is: `import_module` or `reload` of
    /// `importlib` (also imported by name or through an alias), the
    /// builtin `__import__`.
    fn loader_of(&self, func: &Expr) -> Option<&'static str> {
        let name = match func {
            Expr::Name(n) => match n.id.as_str() {
                "__import__" if self.is_builtin_here("__import__") => return Some("__import__"),
                local => self.imported_from_importlib(local)?,
            },
            Expr::Attribute(a) if matches!(&*a.value, Expr::Name(m) if self.is_importlib(m.id.as_str())) => {
                a.attr.id.as_str()
            }
            _ => return None,
        };
        match name {
            "import_module" => Some("import_module"),
            "reload" => Some("reload"),
            _ => None,
        }
    }

    /// The module `expr` gives when it is loaded at run time by name
    /// (name without leading dots, level): `import_module("pkg.mod")`
    /// (a literal name), `reload(m)` of a name an import binds.
    fn loaded_module(&self, expr: &Expr) -> Option<(String, u32)> {
        let Expr::Call(call) = expr else {
            return None;
        };
        let loader = self.loader_of(&call.func)?;
        let first = call.arguments.args.first()?;
        if loader == "reload" {
            let Expr::Name(name) = first else {
                return None;
            };
            let local = name.id.as_str();
            if self.binding_of(local).is_some() {
                return None;
            }
            let b = self.facts.imports.iter().rev().find(|b| b.local == local)?;
            return match b.name.as_deref() {
                // `import pkg.mod` binds `pkg`; `import pkg.mod as pm`, `pkg.mod`.
                None => match b.module.split_once('.') {
                    Some((head, _)) if head == local => Some((head.to_owned(), b.level)),
                    _ => Some((b.module.clone(), b.level)),
                },
                Some("*") => None,
                Some(n) if b.module.is_empty() => Some((n.to_owned(), b.level)),
                Some(n) => Some((format!("{}.{n}", b.module), b.level)),
            };
        }
        if loader != "import_module" {
            return None;
        }
        let package = call.arguments.args.get(1).or_else(|| {
            call.arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "package"))
                .map(|k| &k.value)
        });
        string_of(first).and_then(|text| module_name(text, package, loader))
    }

    /// `name = importlib.import_module("pkg.mod")` of a name the scope
    /// binds once: `name`'s members are the module's
    /// ([`Frame::loaded`]).
    fn loaded_assignment(&mut self, assign: &ast::StmtAssign) {
        let [Expr::Name(target)] = &assign.targets[..] else {
            return;
        };
        let Some(loaded) = self.loaded_module(&assign.value) else {
            return;
        };
        let name = target.id.to_string();
        if let Some(frame) = self.frames.last_mut()
            && !frame.is_class
            && frame.once.contains(&name)
        {
            frame.loaded.insert(name, loaded);
        }
    }

    /// Pushes a reference (see [`Self::push`]) marked `dynamic`.
    fn push_dynamic(
        &mut self,
        name: &str,
        range: TextRange,
        receiver: Receiver,
        role: Role,
        dynamic: Dynamic,
    ) {
        let before = self.facts.references.len();
        self.push(name, range, receiver, role);
        if self.facts.references.len() > before
            && let Some(last) = self.facts.references.last_mut()
        {
            last.dynamic = Some(dynamic);
        }
    }

    /// `getattr(obj, "name")` (`called`: `getattr(obj, "name")(…)`),
    /// `hasattr`, `setattr`, `delattr` of the builtins: a dynamic reference
    /// to attribute `name` through `obj`, as `obj.name` would be (read;
    /// written for `setattr`/`delattr`; called), at the string's contents.
    /// A key that is no literal name (`getattr(obj, attr)`) gives a dynamic
    /// reference named `?` through `obj`, at the key: it reaches nothing.
    /// Returns whether `call` was one of them (its parts then visited).
    fn dynamic_attribute(&mut self, call: &ast::ExprCall, called: bool) -> bool {
        let Expr::Name(func) = &*call.func else {
            return false;
        };
        let role = match func.id.as_str() {
            "getattr" if called => Role::Call,
            "getattr" | "hasattr" => Role::Attribute,
            "setattr" | "delattr" => Role::Write,
            _ => return false,
        };
        let [object, key, rest @ ..] = &call.arguments.args[..] else {
            return false;
        };
        if !self.is_builtin_here(func.id.as_str()) {
            return false;
        }
        self.named(&call.func, Role::Call, None);
        self.visit_expr(object);
        // `getattr(type(self), "m")`, `getattr(self.__class__, "m")`: the
        // class's attribute, as found through the instance.
        let object = match object {
            Expr::Call(c)
                if matches!(&*c.func, Expr::Name(t) if t.id.as_str() == "type"
                    && self.is_builtin_here("type"))
                    && c.arguments.keywords.is_empty() =>
            {
                match &c.arguments.args[..] {
                    [instance] => instance,
                    _ => object,
                }
            }
            Expr::Attribute(a) if a.attr.id.as_str() == "__class__" => &a.value,
            _ => object,
        };
        let receiver = match dotted(object) {
            Some(path) => Receiver::Path(path),
            None => value_of(object).map_or(Receiver::Expression, Receiver::Value),
        };
        match string_of(key).filter(|name| is_identifier(name)) {
            Some(name) => {
                let range = contents_range(self.source.text, key);
                self.push_dynamic(name, range, receiver, role, Dynamic::Name);
            }
            None => {
                self.visit_expr(key);
                self.push_dynamic("?", key.range(), receiver, role, Dynamic::Computed);
            }
        }
        for argument in rest {
            self.visit_expr(argument);
        }
        for keyword in &call.arguments.keywords {
            self.visit_expr(&keyword.value);
        }
        true
    }

    /// `importlib.import_module("json.decoder")` (also `from importlib
    /// import import_module`, and relative names with a literal package or
    /// `__package__`), `__import__("m")`: a dynamic reference (role
    /// `import`) to the module, at the string's contents, and an import
    /// binding with no local name (so that the module's changes reach this
    /// file as an import's do); a name that is no literal gives one named
    /// `?`. `importlib.reload(m)`: the reference to what `m` names is
    /// dynamic. Returns whether `call` was one of them (its parts then
    /// visited).
    fn dynamic_module(&mut self, call: &ast::ExprCall) -> bool {
        let Some(loader) = self.loader_of(&call.func) else {
            return false;
        };
        let Some(first) = call.arguments.args.first() else {
            return false;
        };
        self.named(&call.func, Role::Call, None);
        let mut visited_first = false;
        if loader == "reload" {
            // `reload(m)` / `reload(pkg.mod)`: the name read, made dynamic.
            if dotted(first).is_some() {
                let role = if matches!(first, Expr::Name(_)) {
                    Role::Read
                } else {
                    Role::Attribute
                };
                let before = self.facts.references.len();
                self.named(first, role, None);
                if self.facts.references.len() > before
                    && let Some(last) = self.facts.references.last_mut()
                {
                    last.dynamic = Some(Dynamic::Name);
                }
                visited_first = true;
            }
        } else {
            let package = call.arguments.args.get(1).or_else(|| {
                call.arguments
                    .keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "package"))
                    .map(|k| &k.value)
            });
            visited_first = true;
            match string_of(first).and_then(|text| module_name(text, package, loader)) {
                Some((name, level)) => {
                    let range = contents_range(self.source.text, first);
                    let line = self.source.index.line(first.range().start().to_usize());
                    self.facts.imports.push(ImportBinding {
                        local: String::new(),
                        module: name.clone(),
                        level,
                        name: None,
                        line,
                        scope: self.current_key(),
                    });
                    self.push_dynamic(
                        &name,
                        range,
                        Receiver::Bare,
                        Role::Import,
                        Dynamic::Module { level },
                    );
                }
                None => {
                    self.visit_expr(first);
                    self.push_dynamic(
                        "?",
                        first.range(),
                        Receiver::Bare,
                        Role::Import,
                        Dynamic::Computed,
                    );
                }
            }
        }
        let skip = usize::from(visited_first);
        for argument in call.arguments.args.iter().skip(skip) {
            self.visit_expr(argument);
        }
        for keyword in &call.arguments.keywords {
            self.visit_expr(&keyword.value);
        }
        true
    }
}

/// The text of a plain string literal (no f-string, no bytes).
fn string_of(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str()),
        _ => None,
    }
}

/// Whether `name` is a Python identifier (Python reference, "Identifiers
/// and keywords": a letter or `_`, then letters, digits or `_`).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The module a string names for `loader` (`import_module`, `__import__`)
/// with the package argument `package`, as (name without leading dots,
/// level): an absolute name as written; a relative one with a literal
/// package made absolute (`import_module(".x", "pkg")` is `pkg.x`, as
/// `importlib.util.resolve_name` does), with `__package__` relative to the
/// file's package; `None` when it cannot be placed or is no dotted name.
fn module_name(text: &str, package: Option<&Expr>, loader: &str) -> Option<(String, u32)> {
    let rest = text.trim_start_matches('.');
    let level = u32::try_from(text.len() - rest.len()).ok()?;
    if !rest.is_empty() && !rest.split('.').all(is_identifier) {
        return None;
    }
    if level == 0 {
        return (!rest.is_empty()).then(|| (rest.to_owned(), 0));
    }
    if loader != "import_module" {
        return None;
    }
    match package? {
        Expr::Name(n) if n.id.as_str() == "__package__" && !rest.is_empty() => {
            Some((rest.to_owned(), level))
        }
        Expr::StringLiteral(p) => {
            let mut parts: Vec<&str> = p.value.to_str().split('.').collect();
            if !parts.iter().all(|part| is_identifier(part)) {
                return None;
            }
            for _ in 1..level {
                parts.pop()?;
            }
            if !rest.is_empty() {
                parts.extend(rest.split('.'));
            }
            (!parts.is_empty()).then(|| (parts.join("."), 0))
        }
        _ => None,
    }
}

/// The range of a string literal's contents when it is one plain
/// single-quoted piece without escapes (`"name"`, `'name'`), else the
/// whole literal's.
fn contents_range(text: &str, expr: &Expr) -> TextRange {
    let range = expr.range();
    let written = text.get(range.start().to_usize()..range.end().to_usize());
    let plain = written.is_some_and(|w| {
        w.len() >= 2
            && ((w.starts_with('"') && w.ends_with('"'))
                || (w.starts_with('\'') && w.ends_with('\'')))
            && !w.starts_with("\"\"\"")
            && !w.starts_with("'''")
            && !w.contains('\\')
    });
    if plain {
        TextRange::new(
            range.start() + TextSize::from(1),
            range.end() - TextSize::from(1),
        )
    } else {
        range
    }
}

fn qualname(parent: &str, name: &str) -> String {
    let name = if name.is_empty() {
        "<missing name>"
    } else {
        name
    };
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// `a.b.c` as `["a", "b", "c"]`; `None` when any part is not a name, or
/// when the chain has more than [`MAX_RECEIVER_PARTS`] parts (it is then
/// an expression receiver: the walk stays linear on huge chains).
/// The names a test narrows by `isinstance(name, C)` (or a tuple of
/// classes), also in either operand of `and`, with the type each gets.
fn isinstance_narrowed(test: &Expr, out: &mut Vec<(String, TypeExpr)>) {
    match test {
        Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
            for value in &b.values {
                isinstance_narrowed(value, out);
            }
        }
        Expr::Call(call) => {
            let is_isinstance =
                matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "isinstance");
            let [Expr::Name(name), classes] = &call.arguments.args[..] else {
                return;
            };
            if !is_isinstance || !call.arguments.keywords.is_empty() {
                return;
            }
            let ty = match classes {
                Expr::Tuple(t) => {
                    let members: Option<Vec<TypeExpr>> = t
                        .elts
                        .iter()
                        .map(|e| dotted(e).map(TypeExpr::named))
                        .collect();
                    match members {
                        Some(members) => TypeExpr::Union(members),
                        None => return,
                    }
                }
                other => match dotted(other) {
                    Some(path) => TypeExpr::named(path),
                    None => return,
                },
            };
            out.push((name.id.to_string(), ty));
        }
        _ => {}
    }
}

pub(crate) fn dotted(expr: &Expr) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = expr;
    loop {
        if parts.len() >= outline_core::xref::MAX_RECEIVER_PARTS {
            return None;
        }
        match current {
            Expr::Name(n) => {
                parts.push(n.id.to_string());
                parts.reverse();
                return Some(parts);
            }
            Expr::Attribute(a) => {
                parts.push(a.attr.id.to_string());
                current = &a.value;
            }
            _ => return None,
        }
    }
}

/// The class an annotation names: `User`, `m.User`, a string `"User"`,
/// `Optional[User]`, `User | None`.
fn annotation_path(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::StringLiteral(s) => {
            let text = s.value.to_str().trim();
            let parts: Vec<String> = text.split('.').map(str::to_owned).collect();
            parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .then_some(parts)
        }
        Expr::Subscript(s) if last_name(&s.value) == Some("Optional") => annotation_path(&s.slice),
        Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
            let is_none = |e: &Expr| matches!(e, Expr::NoneLiteral(_));
            if is_none(&b.right) {
                annotation_path(&b.left)
            } else if is_none(&b.left) {
                annotation_path(&b.right)
            } else {
                None
            }
        }
        other => dotted(other),
    }
}

/// The element type of a collection annotation: `list[User]`,
/// `List[User]`, `Sequence["User"]`, `Iterable[m.User]`, `set[User]`,
/// `tuple[User, ...]`, `Iterator[User]`, `Generator[User, None, None]`,
/// also inside `Optional[…]` / `… | None`.
fn annotation_elements(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Subscript(s) => match last_name(&s.value)? {
            "Optional" => annotation_elements(&s.slice),
            "list" | "List" | "Sequence" | "MutableSequence" | "Iterable" | "Iterator"
            | "Collection" | "set" | "Set" | "frozenset" | "FrozenSet" | "AbstractSet"
            | "MutableSet" | "deque" | "Deque" | "Reversible" | "AsyncIterable"
            | "AsyncIterator" => annotation_path(&s.slice),
            "Generator" | "AsyncGenerator" => match &*s.slice {
                Expr::Tuple(t) => t.elts.first().and_then(annotation_path),
                _ => None,
            },
            "tuple" | "Tuple" => match &*s.slice {
                Expr::Tuple(t) if matches!(t.elts.get(1), Some(Expr::EllipsisLiteral(_))) => {
                    t.elts.first().and_then(annotation_path)
                }
                _ => None,
            },
            _ => None,
        },
        Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
            let is_none = |e: &Expr| matches!(e, Expr::NoneLiteral(_));
            if is_none(&b.right) {
                annotation_elements(&b.left)
            } else if is_none(&b.left) {
                annotation_elements(&b.right)
            } else {
                None
            }
        }
        // A string annotation: `"list[User]"`.
        Expr::StringLiteral(string) => {
            let parsed = ruff_python_parser::parse_expression(string.value.to_str()).ok()?;
            annotation_elements(parsed.expr())
        }
        _ => None,
    }
}

/// The last name of a dotted expression or of a call's callee.
/// The last name of a dotted expression or of a call's callee (`x` of
/// `a.x(…)`), looking through at most one call: `f()()…` a million deep
/// must not cost a walk down the chain at each of its levels.
pub(crate) fn last_name(expr: &Expr) -> Option<&str> {
    let expr = match expr {
        Expr::Call(call) => &*call.func,
        other => other,
    };
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.id.as_str()),
        _ => None,
    }
}

/// The names of a subscript's arguments that may be type variables (`T` of
/// `Generic[T]`, `Base[T, int]`), in order.
fn type_var_names(slice: &Expr, out: &mut Vec<String>) {
    match slice {
        Expr::Name(n) => out.push(n.id.to_string()),
        Expr::Tuple(t) => t.elts.iter().for_each(|e| type_var_names(e, out)),
        _ => {}
    }
}

/// Names stored by an assignment target (`a`, `a, (b, *c)`).
fn store_names(target: &Expr, out: &mut HashSet<String>) {
    match target {
        Expr::Name(n) => {
            out.insert(n.id.to_string());
        }
        Expr::Tuple(t) => t.elts.iter().for_each(|e| store_names(e, out)),
        Expr::List(l) => l.elts.iter().for_each(|e| store_names(e, out)),
        Expr::Starred(s) => store_names(&s.value, out),
        _ => {}
    }
}

/// Names bound in the scope of `body` other than by an import.
fn assigned_names(body: &[Stmt]) -> HashSet<String> {
    let mut binder = Binder {
        skip_imports: true,
        ..Binder::default()
    };
    binder.visit_body(body);
    binder.bound
}

/// Names bound exactly once in the scope of `body` (as
/// [`bound_names`]), not declared `global` or `nonlocal`.
fn once_bound(body: &[Stmt]) -> HashSet<String> {
    let mut binder = Binder::default();
    binder.visit_body(body);
    binder
        .times
        .into_iter()
        .filter(|(name, times)| *times == 1 && !binder.declared.contains(name))
        .map(|(name, _)| name)
        .collect()
}

impl Binder {
    /// Binds `name` once more.
    fn bind(&mut self, name: String) {
        *self.times.entry(name.clone()).or_default() += 1;
        self.bound.insert(name);
    }
}

/// Names bound in the scope of `body` (not inside nested functions, classes,
/// lambdas or comprehensions), minus those declared `global` or `nonlocal`.
fn bound_names(body: &[Stmt]) -> HashSet<String> {
    let mut binder = Binder::default();
    binder.visit_body(body);
    for name in &binder.declared {
        binder.bound.remove(name);
    }
    binder.bound
}

#[derive(Default)]
struct Binder {
    bound: HashSet<String>,
    /// How many times each name is bound.
    times: HashMap<String, u32>,
    declared: HashSet<String>,
    /// Leave out names bound by imports.
    skip_imports: bool,
    /// As [`Collector::depth`].
    depth: usize,
}

impl<'a> Visitor<'a> for Binder {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => self.bind(f.name.id.to_string()),
            Stmt::ClassDef(c) => self.bind(c.name.id.to_string()),
            Stmt::Import(_) | Stmt::ImportFrom(_) if self.skip_imports => {}
            Stmt::Import(import) => {
                for alias in &import.names {
                    let name = match &alias.asname {
                        Some(asname) => asname.id.as_str(),
                        None => alias.name.id.split('.').next().unwrap_or_default(),
                    };
                    self.bind(name.to_owned());
                }
            }
            Stmt::ImportFrom(from) => {
                for alias in &from.names {
                    let name = alias.asname.as_ref().unwrap_or(&alias.name);
                    if name.id.as_str() != "*" {
                        self.bind(name.id.to_string());
                    }
                }
            }
            Stmt::Global(g) => self
                .declared
                .extend(g.names.iter().map(|n| n.id.to_string())),
            Stmt::Nonlocal(n) => self
                .declared
                .extend(n.names.iter().map(|n| n.id.to_string())),
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        if let Some(name) = &h.name {
            self.bind(name.id.to_string());
        }
        visitor::walk_except_handler(self, handler);
    }

    fn visit_pattern(&mut self, pattern: &'a Pattern) {
        let name = match pattern {
            Pattern::MatchAs(p) => p.name.as_ref(),
            Pattern::MatchStar(p) => p.name.as_ref(),
            Pattern::MatchMapping(p) => p.rest.as_ref(),
            _ => None,
        };
        if let Some(name) = name {
            self.bind(name.id.to_string());
        }
        visitor::walk_pattern(self, pattern);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_EXPRESSION_DEPTH {
            return;
        }
        self.depth += 1;
        match expr {
            Expr::Name(n) if n.ctx != ExprContext::Load => self.bind(n.id.to_string()),
            Expr::Named(named) => {
                let mut names = HashSet::new();
                store_names(&named.target, &mut names);
                for name in names {
                    self.bind(name);
                }
                self.visit_expr(&named.value);
            }
            Expr::Lambda(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_)
            | Expr::Generator(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
        self.depth -= 1;
    }
}

/// `__all__ = [...]` / `(...)` of string literals at module level (the last
/// such assignment).
fn dunder_all(body: &[Stmt]) -> Option<Vec<String>> {
    let mut found = None;
    for stmt in body {
        let (target, value) = match stmt {
            Stmt::Assign(a) => match &a.targets[..] {
                [target] => (target, &*a.value),
                _ => continue,
            },
            Stmt::AnnAssign(a) => match &a.value {
                Some(value) => (&*a.target, &**value),
                None => continue,
            },
            _ => continue,
        };
        if !matches!(target, Expr::Name(n) if n.id.as_str() == "__all__") {
            continue;
        }
        let elements = match value {
            Expr::List(l) => &l.elts,
            Expr::Tuple(t) => &t.elts,
            _ => continue,
        };
        let names: Option<Vec<String>> = elements
            .iter()
            .map(|e| match e {
                Expr::StringLiteral(s) => Some(s.value.to_str().to_owned()),
                _ => None,
            })
            .collect();
        if names.is_some() {
            found = names;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use outline_core::xref::{Dynamic, Receiver, Role, Value};
    use outline_core::{Language, Outline, OutlineOptions};

    use crate::PythonOutline;

    /// (line, column, name, receiver, role, dynamic) of every dynamic
    /// reference of `source`.
    fn dynamic(source: &str) -> Vec<(u32, u32, String, Receiver, Role, Dynamic)> {
        let (_, facts) = PythonOutline.outline_with_facts(
            "m.py",
            Language::Python,
            source,
            &OutlineOptions::default(),
        );
        facts
            .references
            .into_iter()
            .filter_map(|r| {
                let dynamic = r.dynamic?;
                Some((r.line, r.column, r.name, r.receiver, r.role, dynamic))
            })
            .collect()
    }

    fn path(parts: &[&str]) -> Receiver {
        Receiver::Path(parts.iter().map(|p| (*p).to_owned()).collect())
    }

    #[test]
    fn getattr_and_its_kin_with_a_literal_name_are_dynamic_attributes() {
        let source = "getattr(obj, \"save\")\n\
                      getattr(self.repo, 'load')()\n\
                      setattr(obj, \"x\", 1)\n\
                      delattr(obj, \"x\")\n\
                      hasattr(obj, \"y\")\n\
                      getattr(obj, attr)\n\
                      getattr(obj, \"not a name\")\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    1,
                    15,
                    "save".into(),
                    path(&["obj"]),
                    Role::Attribute,
                    Dynamic::Name
                ),
                (
                    2,
                    21,
                    "load".into(),
                    path(&["self", "repo"]),
                    Role::Call,
                    Dynamic::Name
                ),
                (
                    3,
                    15,
                    "x".into(),
                    path(&["obj"]),
                    Role::Write,
                    Dynamic::Name
                ),
                (
                    4,
                    15,
                    "x".into(),
                    path(&["obj"]),
                    Role::Write,
                    Dynamic::Name
                ),
                (
                    5,
                    15,
                    "y".into(),
                    path(&["obj"]),
                    Role::Attribute,
                    Dynamic::Name
                ),
                (
                    6,
                    14,
                    "?".into(),
                    path(&["obj"]),
                    Role::Attribute,
                    Dynamic::Computed
                ),
                (
                    7,
                    14,
                    "?".into(),
                    path(&["obj"]),
                    Role::Attribute,
                    Dynamic::Computed
                ),
            ]
        );
    }

    #[test]
    fn a_shadowed_getattr_is_an_ordinary_call() {
        let source = "def getattr(a, b):\n    pass\n\ngetattr(obj, \"save\")\n";
        assert_eq!(dynamic(source), Vec::new());
    }

    #[test]
    fn modules_named_by_strings_are_dynamic_imports() {
        let source = "import importlib\n\
                      from importlib import import_module, reload\n\
                      import json\n\
                      importlib.import_module(\"json.decoder\")\n\
                      import_module(\".sub\", __package__)\n\
                      import_module(\"..x\", \"a.b\")\n\
                      __import__(\"os\")\n\
                      import_module(name)\n\
                      reload(json)\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    4,
                    26,
                    "json.decoder".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
                (
                    5,
                    16,
                    "sub".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 1 }
                ),
                (
                    6,
                    16,
                    "a.x".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
                (
                    7,
                    13,
                    "os".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
                (
                    8,
                    15,
                    "?".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Computed
                ),
                (
                    9,
                    8,
                    "json".into(),
                    Receiver::Bare,
                    Role::Read,
                    Dynamic::Name
                ),
            ]
        );
    }

    #[test]
    fn import_module_not_imported_from_importlib_is_an_ordinary_call() {
        let source = "from mylib import import_module\nimport_module(\"json\")\n";
        assert_eq!(dynamic(source), Vec::new());
    }

    #[test]
    fn a_dynamic_import_binds_no_name_but_is_an_import_of_the_module() {
        let (_, facts) = PythonOutline.outline_with_facts(
            "m.py",
            Language::Python,
            "import importlib\ndef f():\n    importlib.import_module(\"pkg.plugins\")\n",
            &OutlineOptions::default(),
        );
        let binding = facts.imports.iter().find(|b| b.module == "pkg.plugins");
        assert_eq!(
            binding.map(|b| (b.local.as_str(), b.level, b.line)),
            Some(("", 0, 3))
        );
    }
    #[test]
    fn importlib_through_an_alias_or_an_imported_alias_loads_modules_too() {
        let source = "import importlib as il\n\
                      from importlib import import_module as im\n\
                      il.import_module(\"pkg.store\")\n\
                      im(\"pkg.store\")\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    3,
                    19,
                    "pkg.store".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
                (
                    4,
                    5,
                    "pkg.store".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
            ]
        );
    }

    #[test]
    fn getattr_of_the_class_of_an_instance_is_an_attribute_through_the_instance() {
        let source = "class A:\n    def f(self):\n        getattr(type(self), \"m\")\n        \
                      getattr(self.__class__, \"m\")()\n";
        assert_eq!(
            dynamic(source),
            vec![
                (
                    3,
                    30,
                    "m".into(),
                    path(&["self"]),
                    Role::Attribute,
                    Dynamic::Name
                ),
                (
                    4,
                    34,
                    "m".into(),
                    path(&["self"]),
                    Role::Call,
                    Dynamic::Name
                ),
            ]
        );
    }

    #[test]
    fn members_of_a_module_loaded_by_name_are_dynamic_members_of_it() {
        let source = "import importlib\n\
                      import pkg.mod as pm\n\
                      def run():\n    \
                      m = importlib.import_module(\"pkg.mod\")\n    \
                      m.helper()\n    \
                      importlib.import_module(\".mod\", __package__).helper()\n    \
                      importlib.reload(pm).helper()\n    \
                      n = importlib.import_module(\"pkg.mod\")\n    \
                      n = None\n    \
                      n.helper()\n";
        let member = |module: &str, level| Dynamic::Member {
            module: module.into(),
            level,
        };
        let call = |callee: &[&str], args| {
            Receiver::Value(Value::Call {
                callee: Box::new(Value::Path(
                    callee.iter().map(|p| (*p).to_owned()).collect(),
                )),
                args,
            })
        };
        assert_eq!(
            dynamic(source),
            vec![
                (
                    4,
                    34,
                    "pkg.mod".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
                (
                    5,
                    7,
                    "helper".into(),
                    path(&["m"]),
                    Role::Call,
                    member("pkg.mod", 0)
                ),
                (
                    6,
                    30,
                    "mod".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 1 }
                ),
                (
                    6,
                    50,
                    "helper".into(),
                    call(&["importlib", "import_module"], 2),
                    Role::Call,
                    member("mod", 1)
                ),
                (
                    7,
                    22,
                    "pm".into(),
                    Receiver::Bare,
                    Role::Read,
                    Dynamic::Name
                ),
                (
                    7,
                    26,
                    "helper".into(),
                    call(&["importlib", "reload"], 1),
                    Role::Call,
                    member("pkg.mod", 0)
                ),
                // `n` is bound twice: its members are not the module's.
                (
                    8,
                    34,
                    "pkg.mod".into(),
                    Receiver::Bare,
                    Role::Import,
                    Dynamic::Module { level: 0 }
                ),
            ]
        );
    }
}
