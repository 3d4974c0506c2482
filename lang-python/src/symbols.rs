//! Walks a ruff module and builds outline symbols.
//!
//! Scopes decide what a statement becomes:
//! - **module**: `def`/`class`, assignments (variables, constants, lambdas),
//!   `type` aliases; every control-flow statement is a `block` holding what is
//!   defined inside it;
//! - **class body**: methods, nested classes, fields (annotated), class
//!   variables; definitions inside `if`/`try`/… of the body are members too;
//! - **function body**: nested `def`/`class` only (locals are not symbols);
//!   when the body spans more than the block threshold, its top-level
//!   control-flow statements become `block`s (recursively for long blocks).

use outline_core::blocks::{block_name, splits_body};
use outline_core::text::{
    MAX_DECORATOR_CHARS, MAX_SIGNATURE_CHARS, MAX_TYPE_CHARS, MAX_VALUE_CHARS, truncate,
};
use outline_core::{Accessor, Modifier, OutlineOptions, Symbol, SymbolKind};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::docstring::docstring_first_line;
use crate::signature::{parameters, render_parameters, render_type_parameters, type_parameters};
use crate::source::Source;

/// Where a statement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Class,
    Function,
}

/// Name given to a definition whose name the parser could not recover.
const MISSING_NAME: &str = "<missing name>";

pub(crate) struct Walker<'s, 'a> {
    pub source: &'s Source<'a>,
    pub options: &'s OutlineOptions,
}

/// Statements the parser put inside a body although their indentation says
/// they come after it. That only happens when it recovers from an indentation
/// error (a dedent to no enclosing level, tabs mixed with spaces): a `def` at
/// column 0 after a broken method would otherwise become a member of the class
/// above it. Such statements are placed in the nearest enclosing body whose
/// header is less indented, and the definitions they escaped end before them.
type Escaped<'m> = Vec<&'m Stmt>;

impl Walker<'_, '_> {
    /// Symbols of the module body.
    pub fn module(&self, body: &[Stmt]) -> Vec<Symbol> {
        let mut out = Vec::new();
        // Nothing escapes the module: it has no header.
        let _ = self.body(body, Scope::Module, true, None, &mut out);
        out
    }

    /// Symbols of `body` in `scope`, whose header is indented `header_indent`
    /// columns; with `split`, control-flow statements become blocks instead of
    /// being looked through. Returns the statements that escape this body.
    fn body<'m>(
        &self,
        body: &'m [Stmt],
        scope: Scope,
        split: bool,
        header_indent: Option<u32>,
        out: &mut Vec<Symbol>,
    ) -> Escaped<'m> {
        let mut escaped = Vec::new();
        for stmt in body {
            // The body ends before the first statement that escaped it
            // (`end_before_escaped`), so every later one escapes too, even
            // one whose indentation is unknown or deeper.
            if escaped.is_empty() {
                self.place(stmt, scope, split, header_indent, out, &mut escaped);
            } else {
                escaped.push(stmt);
            }
        }
        escaped
    }

    /// Outlines `stmt` into `out`, or, when it is not indented deeper than the
    /// header of the body it was parsed in, hands it to the enclosing body.
    fn place<'m>(
        &self,
        stmt: &'m Stmt,
        scope: Scope,
        split: bool,
        header_indent: Option<u32>,
        out: &mut Vec<Symbol>,
        escaped: &mut Escaped<'m>,
    ) {
        if let (Some(header), Some(indent)) = (header_indent, self.indent(stmt))
            && indent <= header
        {
            escaped.push(stmt);
            return;
        }
        for inner in self.statement(stmt, scope, split, header_indent, out) {
            self.place(inner, scope, split, header_indent, out, escaped);
        }
    }

    /// Outlines `stmt`, parsed in a body whose header is indented
    /// `outer_indent` columns, into `out`; returns the statements that escape
    /// the bodies inside it.
    fn statement<'m>(
        &self,
        stmt: &'m Stmt,
        scope: Scope,
        split: bool,
        outer_indent: Option<u32>,
        out: &mut Vec<Symbol>,
    ) -> Escaped<'m> {
        match stmt {
            Stmt::FunctionDef(f) => {
                let (symbol, escaped) = self.function(f, stmt, scope, outer_indent);
                out.push(symbol);
                escaped
            }
            Stmt::ClassDef(c) => {
                let (symbol, escaped) = self.class(c, stmt, outer_indent);
                out.push(symbol);
                escaped
            }
            Stmt::Assign(a) if scope != Scope::Function => {
                for target in &a.targets {
                    self.assignment_targets(target, stmt, None, Some(&a.value), scope, out);
                }
                Vec::new()
            }
            Stmt::AnnAssign(a) if scope != Scope::Function => {
                self.assignment_targets(
                    &a.target,
                    stmt,
                    Some(&a.annotation),
                    a.value.as_deref(),
                    scope,
                    out,
                );
                Vec::new()
            }
            Stmt::TypeAlias(t) if scope != Scope::Function => {
                out.push(self.type_alias(t));
                Vec::new()
            }
            _ => {
                let Some(bodies) = nested_bodies(stmt) else {
                    return Vec::new();
                };
                if split && scope != Scope::Class {
                    let (block, escaped) = self.block(stmt, scope, &bodies, outer_indent);
                    out.push(block);
                    escaped
                } else {
                    let indent = self.header_indent(stmt, outer_indent);
                    let mut escaped = Vec::new();
                    for body in bodies {
                        escaped.extend(self.body(body, scope, false, indent, out));
                    }
                    escaped
                }
            }
        }
    }

    fn block<'m>(
        &self,
        stmt: &'m Stmt,
        scope: Scope,
        bodies: &[&'m [Stmt]],
        outer_indent: Option<u32>,
    ) -> (Symbol, Escaped<'m>) {
        let source = self.source;
        let start_line = source.start_line(stmt);
        let end_line = source.end_line(stmt);
        let mut block = Symbol::new(
            block_name(&self.block_header(stmt)),
            SymbolKind::Block,
            start_line,
            end_line,
        );
        block.name_column = source.start_column(stmt);
        let split = splits_body(start_line, end_line, self.options.block_threshold);
        let indent = self.header_indent(stmt, outer_indent);
        let mut escaped = Vec::new();
        for body in bodies {
            escaped.extend(self.body(body, scope, split, indent, &mut block.children));
        }
        self.end_before_escaped(&mut block, &escaped);
        (block, escaped)
    }

    /// Indentation of `stmt` (its first decorator, if any) in columns as
    /// CPython's tokenizer counts them (a tab advances to the next multiple of
    /// 8, a form feed resets to 0), or `None` when something else precedes it
    /// on its line (`class A: x = 1`).
    fn indent(&self, stmt: &Stmt) -> Option<u32> {
        let offset = statement_start(stmt);
        let index = &self.source.index;
        let line_start = index.line_span(index.line(offset))?.start;
        let prefix = self.source.text.get(line_start..offset)?;
        let mut width = 0u32;
        for c in prefix.chars() {
            width = match c {
                ' ' => width + 1,
                '\t' => (width / 8 + 1) * 8,
                '\x0c' => 0,
                _ => return None,
            };
        }
        Some(width)
    }

    /// The indentation that statements of `stmt`'s bodies must exceed not to
    /// escape them: `stmt`'s own, or, when something else precedes it on its
    /// line (a stray character such as a NUL, `x = 1; if y:`), that of the
    /// body it was parsed in, so its statements can still escape that far.
    fn header_indent(&self, stmt: &Stmt, outer_indent: Option<u32>) -> Option<u32> {
        self.indent(stmt).or(outer_indent)
    }

    /// A definition whose body had statements escape it ends at the last token
    /// before the first of them.
    fn end_before_escaped(&self, symbol: &mut Symbol, escaped: &[&Stmt]) {
        if let Some(first) = escaped.first()
            && let Some(end) = self.source.last_token_line_before(statement_start(first))
        {
            symbol.end_line = end.clamp(symbol.name_line, symbol.end_line);
        }
    }

    fn block_header(&self, stmt: &Stmt) -> String {
        let text = |e: &Expr| self.source.one_line(e, MAX_VALUE_CHARS);
        let prefix = |is_async: bool| if is_async { "async " } else { "" };
        match stmt {
            Stmt::If(s) => format!("if {}", text(&s.test)),
            Stmt::While(s) => format!("while {}", text(&s.test)),
            Stmt::For(s) => format!(
                "{}for {} in {}",
                prefix(s.is_async),
                text(&s.target),
                text(&s.iter)
            ),
            Stmt::With(s) => {
                let items: Vec<String> = s
                    .items
                    .iter()
                    .map(|item| self.source.one_line(item, MAX_VALUE_CHARS))
                    .collect();
                format!("{}with {}", prefix(s.is_async), items.join(", "))
            }
            Stmt::Try(s) if s.is_star => "try (except*)".to_owned(),
            Stmt::Try(_) => "try".to_owned(),
            Stmt::Match(s) => format!("match {}", text(&s.subject)),
            _ => String::new(),
        }
    }

    fn function<'m>(
        &self,
        f: &'m ast::StmtFunctionDef,
        stmt: &Stmt,
        scope: Scope,
        outer_indent: Option<u32>,
    ) -> (Symbol, Escaped<'m>) {
        let source = self.source;
        let kind = if scope == Scope::Class {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        };
        let start_line = self.start_line_with_decorators(f, &f.decorator_list);
        let end_line = source.end_line(f);
        let mut symbol = Symbol::new(identifier(&f.name), kind, start_line, end_line);
        self.set_name_position(&mut symbol, &f.name);
        symbol.decorators = self.decorators(&f.decorator_list);
        symbol.visibility = visibility(&symbol.name);

        let roles: Vec<DecoratorRole> = f
            .decorator_list
            .iter()
            .filter_map(|d| decorator_role(&d.expression))
            .collect();
        let modifiers = &mut symbol.modifiers;
        for role in &roles {
            match role {
                DecoratorRole::Modifier(m) => modifiers.push(*m),
                DecoratorRole::Accessor(a) => symbol.accessor = Some(*a),
            }
        }
        if f.is_async {
            modifiers.push(Modifier::Async);
        }
        // `@contextmanager` turns a generator function into a context-manager
        // factory: calling it gives no generator, so it is not marked one.
        let context_manager = f.decorator_list.iter().any(|d| {
            matches!(
                dotted_last(&d.expression),
                Some("contextmanager" | "asynccontextmanager")
            )
        });
        if !context_manager && is_generator(&f.body) {
            modifiers.push(Modifier::Generator);
        }
        modifiers.sort();
        modifiers.dedup();

        let receiver = scope == Scope::Class && !symbol.has(Modifier::Static);
        symbol.type_parameters = type_parameters(source, f.type_params.as_deref());
        symbol.parameters = parameters(source, &f.parameters, receiver);
        symbol.returns = f
            .returns
            .as_deref()
            .map(|r| source.one_line(r, MAX_TYPE_CHARS));
        let mut signature = format!(
            "{}def {}{}{}",
            if f.is_async { "async " } else { "" },
            symbol.name,
            render_type_parameters(&symbol.type_parameters),
            render_parameters(&symbol.parameters)
        );
        if let Some(returns) = &symbol.returns {
            signature.push_str(" -> ");
            signature.push_str(returns);
        }
        symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
        symbol.doc = docstring_first_line(&f.body);

        let split = f.body.first().is_some_and(|first| {
            splits_body(
                source.start_line(first),
                end_line,
                self.options.block_threshold,
            )
        });
        let indent = self.header_indent(stmt, outer_indent);
        let escaped = self.body(
            &f.body,
            Scope::Function,
            split,
            indent,
            &mut symbol.children,
        );
        self.end_before_escaped(&mut symbol, &escaped);
        (symbol, escaped)
    }

    fn class<'m>(
        &self,
        c: &'m ast::StmtClassDef,
        stmt: &Stmt,
        outer_indent: Option<u32>,
    ) -> (Symbol, Escaped<'m>) {
        let source = self.source;
        let start_line = self.start_line_with_decorators(c, &c.decorator_list);
        let mut symbol = Symbol::new(
            identifier(&c.name),
            SymbolKind::Class,
            start_line,
            source.end_line(c),
        );
        self.set_name_position(&mut symbol, &c.name);
        symbol.decorators = self.decorators(&c.decorator_list);
        symbol.visibility = visibility(&symbol.name);
        symbol.type_parameters = type_parameters(source, c.type_params.as_deref());
        if let Some(arguments) = c.arguments.as_deref() {
            symbol.bases = arguments
                .args
                .iter()
                .map(|base| source.one_line(base, MAX_TYPE_CHARS))
                .collect();
            symbol.keywords = arguments
                .keywords
                .iter()
                .map(|k| source.one_line(k, MAX_TYPE_CHARS))
                .collect();
        }
        let mut signature = format!(
            "class {}{}",
            symbol.name,
            render_type_parameters(&symbol.type_parameters)
        );
        let arguments: Vec<&str> = symbol
            .bases
            .iter()
            .chain(&symbol.keywords)
            .map(String::as_str)
            .collect();
        if !arguments.is_empty() {
            signature.push_str(&format!("({})", arguments.join(", ")));
        }
        symbol.signature = Some(truncate(&signature, MAX_SIGNATURE_CHARS));
        symbol.doc = docstring_first_line(&c.body);
        let indent = self.header_indent(stmt, outer_indent);
        let escaped = self.body(&c.body, Scope::Class, false, indent, &mut symbol.children);
        self.end_before_escaped(&mut symbol, &escaped);
        (symbol, escaped)
    }

    fn type_alias(&self, t: &ast::StmtTypeAlias) -> Symbol {
        let source = self.source;
        let name = match t.name.as_ref() {
            Expr::Name(n) if !n.id.is_empty() => n.id.to_string(),
            _ => MISSING_NAME.to_owned(),
        };
        let mut symbol = Symbol::new(
            name,
            SymbolKind::TypeAlias,
            source.start_line(t),
            source.end_line(t),
        );
        symbol.name_line = source.start_line(t.name.as_ref());
        symbol.name_column = source.start_column(t.name.as_ref());
        symbol.visibility = visibility(&symbol.name);
        symbol.type_parameters = type_parameters(source, t.type_params.as_deref());
        let value = source.one_line(t.value.as_ref(), MAX_VALUE_CHARS);
        symbol.signature = Some(format!(
            "type {}{} = {value}",
            symbol.name,
            render_type_parameters(&symbol.type_parameters)
        ));
        symbol.value = Some(value);
        symbol
    }

    /// One symbol per name bound by `target` (names inside tuple/list targets
    /// too; attributes and subscripts bind nothing new).
    fn assignment_targets(
        &self,
        target: &Expr,
        stmt: &Stmt,
        annotation: Option<&Expr>,
        value: Option<&Expr>,
        scope: Scope,
        out: &mut Vec<Symbol>,
    ) {
        match target {
            Expr::Name(name) if !name.id.is_empty() => {
                out.push(self.binding(name, stmt, annotation, value, scope));
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                // Each unpacked name gets no single value of its own.
                for element in elts {
                    self.assignment_targets(element, stmt, None, None, scope, out);
                }
            }
            Expr::Starred(starred) => {
                self.assignment_targets(&starred.value, stmt, None, None, scope, out);
            }
            _ => {}
        }
    }

    fn binding(
        &self,
        name: &ast::ExprName,
        stmt: &Stmt,
        annotation: Option<&Expr>,
        value: Option<&Expr>,
        scope: Scope,
    ) -> Symbol {
        let source = self.source;
        let id = name.id.to_string();
        let annotation = annotation.map(|a| source.one_line(a, MAX_TYPE_CHARS));
        let kind = match (value, annotation.as_deref()) {
            (Some(Expr::Lambda(_)), _) => SymbolKind::Function,
            (_, Some("TypeAlias" | "typing.TypeAlias" | "typing_extensions.TypeAlias")) => {
                SymbolKind::TypeAlias
            }
            _ if is_constant_name(&id) => SymbolKind::Constant,
            (_, Some(_)) if scope == Scope::Class => SymbolKind::Field,
            _ => SymbolKind::Variable,
        };
        let mut symbol = Symbol::new(id, kind, source.start_line(stmt), source.end_line(stmt));
        symbol.name_line = source.start_line(name);
        symbol.name_column = source.start_column(name);
        symbol.visibility = visibility(&symbol.name);
        if let Some(Expr::Lambda(lambda)) = value {
            if let Some(params) = lambda.parameters.as_deref() {
                symbol.parameters = parameters(source, params, false);
            }
            let params = render_parameters(&symbol.parameters);
            let params = &params[1..params.len() - 1];
            let separator = if params.is_empty() { "" } else { " " };
            let annotated = match &annotation {
                Some(annotation) => format!("{}: {annotation}", symbol.name),
                None => symbol.name.clone(),
            };
            symbol.signature = Some(truncate(
                &format!("{annotated} = lambda{separator}{params}"),
                MAX_SIGNATURE_CHARS,
            ));
            symbol.annotation = annotation;
            return symbol;
        }
        symbol.value = value.map(|v| source.one_line(v, MAX_VALUE_CHARS));
        let mut signature = symbol.name.clone();
        if let Some(annotation) = &annotation {
            signature.push_str(": ");
            signature.push_str(annotation);
        }
        if let Some(value) = &symbol.value {
            signature.push_str(" = ");
            signature.push_str(value);
        }
        symbol.signature = Some(signature);
        symbol.annotation = annotation;
        symbol
    }

    fn start_line_with_decorators(&self, node: &impl Ranged, decorators: &[ast::Decorator]) -> u32 {
        let start = decorators
            .iter()
            .map(|d| d.start())
            .chain([node.start()])
            .min()
            .unwrap_or(node.start());
        self.source.index.line(start.to_usize())
    }

    fn set_name_position(&self, symbol: &mut Symbol, name: &ast::Identifier) {
        symbol.name_line = self.source.start_line(name);
        symbol.name_column = self.source.start_column(name);
    }

    /// Each decorator's text after the `@` (parentheses kept: `@(lambda f: f)`
    /// gives `(lambda f: f)`), on one line.
    fn decorators(&self, decorators: &[ast::Decorator]) -> Vec<String> {
        decorators
            .iter()
            .map(|d| {
                let start = d.range.start().to_usize();
                let range = if self.source.text.get(start..=start) == Some("@") {
                    TextRange::new(d.range.start() + TextSize::from(1), d.range.end())
                } else {
                    d.expression.range()
                };
                self.source.one_line(&range, MAX_DECORATOR_CHARS)
            })
            .collect()
    }
}

/// Byte offset where `stmt` starts: its first decorator for a decorated
/// definition.
fn statement_start(stmt: &Stmt) -> usize {
    let decorators = match stmt {
        Stmt::FunctionDef(f) => &f.decorator_list[..],
        Stmt::ClassDef(c) => &c.decorator_list[..],
        _ => &[],
    };
    decorators
        .iter()
        .map(|d| d.start())
        .chain([stmt.start()])
        .min()
        .unwrap_or(stmt.start())
        .to_usize()
}

/// The statement lists nested in a compound statement, in source order, or
/// `None` for a simple statement (or a definition).
fn nested_bodies(stmt: &Stmt) -> Option<Vec<&[Stmt]>> {
    Some(match stmt {
        Stmt::If(s) => std::iter::once(&s.body[..])
            .chain(s.elif_else_clauses.iter().map(|c| &c.body[..]))
            .collect(),
        Stmt::For(s) => vec![&s.body[..], &s.orelse[..]],
        Stmt::While(s) => vec![&s.body[..], &s.orelse[..]],
        Stmt::With(s) => vec![&s.body[..]],
        Stmt::Try(s) => std::iter::once(&s.body[..])
            .chain(s.handlers.iter().map(|h| match h {
                ast::ExceptHandler::ExceptHandler(h) => &h.body[..],
            }))
            .chain([&s.orelse[..], &s.finalbody[..]])
            .collect(),
        Stmt::Match(s) => s.cases.iter().map(|c| &c.body[..]).collect(),
        _ => return None,
    })
}

fn identifier(name: &ast::Identifier) -> String {
    if name.id.is_empty() {
        MISSING_NAME.to_owned()
    } else {
        name.id.to_string()
    }
}

/// PEP 8: a leading underscore marks a name as non-public; dunder names are public.
fn visibility(name: &str) -> Option<String> {
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    (name.starts_with('_') && !dunder).then(|| "private".to_owned())
}

/// `MAX_SIZE`, `_DEFAULT_TIMEOUT`, `V2`: letters all upper case, at least one letter.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_alphabetic)
        && name
            .chars()
            .all(|c| c == '_' || c.is_ascii_digit() || (c.is_alphabetic() && !c.is_lowercase()))
}

enum DecoratorRole {
    Modifier(Modifier),
    Accessor(Accessor),
}

/// The last part of a decorator's dotted name, call or not:
/// `contextlib.contextmanager` → `contextmanager`, `retry(times=3)` → `retry`.
fn dotted_last(expr: &Expr) -> Option<&str> {
    let callee = match expr {
        Expr::Call(call) => call.func.as_ref(),
        other => other,
    };
    match callee {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.id.as_str()),
        _ => None,
    }
}

/// What a decorator says about the function, judged by the last part of its
/// dotted name (`abc.abstractmethod` → abstract).
fn decorator_role(expr: &Expr) -> Option<DecoratorRole> {
    let callee = match expr {
        Expr::Call(call) => call.func.as_ref(),
        other => other,
    };
    let last = match callee {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => {
            // `@x.setter` / `@x.deleter` / `@x.getter` on a property object.
            let accessor = match a.attr.id.as_str() {
                "setter" => Some(Accessor::Setter),
                "deleter" => Some(Accessor::Deleter),
                "getter" => Some(Accessor::Getter),
                _ => None,
            };
            if let Some(accessor) = accessor
                && matches!(expr, Expr::Attribute(_))
            {
                return Some(DecoratorRole::Accessor(accessor));
            }
            a.attr.id.as_str()
        }
        _ => return None,
    };
    Some(match last {
        "property" | "abstractproperty" => DecoratorRole::Accessor(Accessor::Getter),
        "staticmethod" => DecoratorRole::Modifier(Modifier::Static),
        "classmethod" => DecoratorRole::Modifier(Modifier::Classmethod),
        "abstractmethod" => DecoratorRole::Modifier(Modifier::Abstract),
        "overload" => DecoratorRole::Modifier(Modifier::Overload),
        "override" => DecoratorRole::Modifier(Modifier::Override),
        _ => return None,
    })
}

/// Whether `body` (not counting nested functions, classes and lambdas) contains
/// `yield` or `yield from`.
fn is_generator(body: &[Stmt]) -> bool {
    struct YieldFinder(bool);
    impl<'a> Visitor<'a> for YieldFinder {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if !self.0 && !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Yield(_) | Expr::YieldFrom(_) => self.0 = true,
                Expr::Lambda(_) => {}
                _ if !self.0 => visitor::walk_expr(self, expr),
                _ => {}
            }
        }
    }
    let mut finder = YieldFinder(false);
    finder.visit_body(body);
    finder.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_names() {
        for name in ["MAX", "_DEFAULT_TIMEOUT", "V2", "ÄRGER"] {
            assert!(is_constant_name(name), "{name}");
        }
        for name in ["max", "Max", "_", "__", "V2x", "__all__"] {
            assert!(!is_constant_name(name), "{name}");
        }
    }

    #[test]
    fn visibility_follows_pep8() {
        assert_eq!(visibility("_x").as_deref(), Some("private"));
        assert_eq!(visibility("__mangled").as_deref(), Some("private"));
        assert_eq!(visibility("__init__"), None);
        assert_eq!(visibility("public"), None);
    }
}
