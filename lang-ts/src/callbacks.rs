//! Declarations written inside expressions: functions passed to calls
//! (test suites and cases, route and event handlers, React hooks, promise
//! executors, `forEach` bodies…), immediately invoked functions at any depth,
//! and function expressions stored anywhere else (an object property, a JSX
//! attribute, an array element).
//!
//! A call with function arguments is a [`SymbolKind::Block`] when it
//! carries a title or a known name, or holds declarations:
//! - **titled**: its first argument is a string (`test('adds', …)`,
//!   `app.get('/users/:id', …)`, `emitter.on('close', …)`), or the call its
//!   callee is a member of has one (`program.command('init').action(…)`); a
//!   titled call is always listed, so tests and routes can be found by name
//!   and read by id;
//! - **named**: a test hook (`beforeEach`, `afterAll`, …), a React hook
//!   (`useEffect`, any `use` + capital letter) or a component wrapper
//!   (`forwardRef`, `memo`): always listed;
//! - otherwise listed only when something is declared inside (an untitled
//!   callback without declarations needs no line).
//!
//! It is named by its callee and title (`test('adds')`, `new Promise`,
//! `program.command('init').action`; arguments of the calls in the callee
//! are `…` unless they start with a string), an IIFE by its first line. Its
//! children are what its functions declare (with the blocks of a long body,
//! as for a function) and the callbacks inside its other arguments. As with
//! control-flow blocks, a callback adds nothing to the qualnames inside it:
//! `function validate` inside `app.get('/x', …)` inside `function routes`
//! is `routes.validate`. The declarations of a function expression that is
//! not an argument are listed where the expression stands.

use outline_core::blocks::{block_name, splits_body};
use outline_core::text::truncate;
use outline_core::{Modifier, Symbol, SymbolKind};
use swc_common::{Span, Spanned};
use swc_ecma_ast::{
    ArrowExpr, ArrowFunctionBody, CallExpr, Callee, ClassExpr, Expr, ExprOrSpread, FnExpr,
    GetterProp, Lit, MemberProp, MethodProp, NewExpr, SetterProp, Stmt,
};
use swc_ecma_visit::{Visit, VisitWith};

use crate::source::prefix;
use crate::symbols::{FnLike, Scope, Walker, fn_like, mark_overloads, unwrap};

/// Longest callee text in a callback's name, in characters.
const MAX_CALLEE_CHARS: usize = 100;

/// Longest title in a callback's name, in characters (quotes included).
const MAX_TITLE_CHARS: usize = 80;

/// Deepest expression nesting searched for callbacks (a million-link
/// `a + b + …` chain is searched this deep, no deeper).
const MAX_EXPRESSION_DEPTH: u32 = 2_000;

/// Test hooks: named callbacks without a title (`beforeEach(() => …)`).
const TEST_HOOKS: &[&str] = &[
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
    "before",
    "after",
    "setup",
    "teardown",
    "suiteSetup",
    "suiteTeardown",
];

/// The functions of test frameworks (Jest, Vitest, Mocha, Jasmine, node:test,
/// Playwright Test): a titled call of one (or of a member chain starting at
/// one, `test.describe.parallel`, `it.each(…)`) or a hook is a test block.
const TEST_FUNCTIONS: &[&str] = &[
    "describe",
    "it",
    "test",
    "suite",
    "specify",
    "fdescribe",
    "fit",
    "xdescribe",
    "xit",
    "xtest",
];

/// Component wrappers whose function argument is the component.
const WRAPPERS: &[&str] = &["forwardRef", "memo"];

impl Walker<'_, '_> {
    /// The callbacks and function expressions inside `expr`, as symbols
    /// pushed onto `out` (see the module documentation).
    pub(crate) fn callbacks_in(&self, expr: &Expr, out: &mut Vec<Symbol>) {
        let mut finder = Finder {
            walker: self,
            out,
            depth: 0,
        };
        expr.visit_with(&mut finder);
    }

    /// [`Walker::callbacks_in`] for the expressions of a statement's own
    /// header (an `if` test, a `for` head, a `switch` discriminant and its
    /// case tests, a `return` or `throw` value), not its nested statements.
    pub(crate) fn callbacks_in_header(&self, stmt: &Stmt, out: &mut Vec<Symbol>) {
        let mut visit = |e: &Expr| self.callbacks_in(e, out);
        match stmt {
            Stmt::Expr(s) => visit(&s.expr),
            Stmt::Return(s) => {
                if let Some(arg) = &s.arg {
                    visit(arg);
                }
            }
            Stmt::Throw(s) => visit(&s.arg),
            Stmt::If(s) => {
                visit(&s.test);
                let mut alt = s.alt.as_deref();
                while let Some(Stmt::If(elif)) = alt {
                    visit(&elif.test);
                    alt = elif.alt.as_deref();
                }
            }
            Stmt::While(s) => visit(&s.test),
            Stmt::DoWhile(s) => visit(&s.test),
            Stmt::For(s) => {
                if let Some(swc_ecma_ast::VarDeclOrExpr::Expr(init)) = &s.init {
                    visit(init);
                }
                for e in s.test.iter().chain(&s.update) {
                    visit(e);
                }
            }
            Stmt::ForIn(s) => visit(&s.right),
            Stmt::ForOf(s) => visit(&s.right),
            Stmt::Switch(s) => {
                visit(&s.discriminant);
                for case in &s.cases {
                    if let Some(test) = &case.test {
                        visit(test);
                    }
                }
            }
            Stmt::With(s) => visit(&s.obj),
            _ => {}
        }
    }

    /// What the body of `f` declares, walked as a function body (its long
    /// body split into blocks) into `out`; an expression body is searched
    /// for callbacks.
    pub(crate) fn function_body_into(&self, f: &FnLike<'_>, end_line: u32, out: &mut Vec<Symbol>) {
        let Some(_level) = self.enter() else {
            return;
        };
        let body: &[Stmt] = match f {
            FnLike::Function(f) => match &f.body {
                Some(b) => &b.stmts,
                None => return,
            },
            FnLike::Arrow(a) => match &*a.body {
                ArrowFunctionBody::FunctionBody(b) => &b.stmts,
                ArrowFunctionBody::Expr(e) => {
                    self.callbacks_in(e, out);
                    return;
                }
            },
        };
        let Some(first) = body.first() else {
            return;
        };
        let split = splits_body(
            self.source.line(first.span().lo),
            end_line,
            self.options.block_threshold,
        );
        for stmt in body {
            self.stmt(stmt, Scope::Function, split, out);
        }
    }

    /// The block of a call with function arguments (see the module
    /// documentation), or its declarations alone when it is neither titled
    /// nor named; nothing when it holds none.
    fn callback(
        &self,
        span: Span,
        callee: Option<&Expr>,
        args: &[ExprOrSpread],
        construct: bool,
        out: &mut Vec<Symbol>,
    ) {
        let Some(_level) = self.enter() else {
            return;
        };
        let source = self.source;
        let start_line = source.line(span.lo);
        let end_line = source.end_line(span).max(start_line);
        let mut children = Vec::new();
        let callee_fn = callee.and_then(fn_like);
        // In source order: the callee (an IIFE's function, or the calls of
        // a chain), then the arguments.
        match (&callee_fn, callee) {
            (Some(f), _) => self.function_body_into(f, end_line, &mut children),
            (None, Some(callee)) => self.callbacks_in(callee, &mut children),
            (None, None) => {}
        }
        for arg in args {
            match fn_like(&arg.expr) {
                Some(f) => self.function_body_into(&f, end_line, &mut children),
                None => self.callbacks_in(&arg.expr, &mut children),
            }
        }
        mark_overloads(&mut children);
        // Whether it is listed without declarations, told before any name
        // is made (most calls with a function argument list nothing).
        let named_callee = callee.filter(|_| callee_fn.is_none());
        let always = named_callee.is_some_and(|callee| {
            first_string(args).is_some() || chain_title(callee) || is_named(callee)
        });
        if children.is_empty() && !always {
            return;
        }
        let name = match named_callee {
            Some(callee) => {
                let mut text = callee_text(source, callee);
                if construct {
                    text.insert_str(0, "new ");
                }
                match title(source, args) {
                    Some(title) => format!("{text}({title})"),
                    None => text,
                }
            }
            None => {
                // An IIFE or wrapper: named by its first line.
                let line = source.index.line_text(start_line).unwrap_or_default();
                let column = source.column(span.lo) as usize;
                let header: String = line
                    .chars()
                    .skip(column.saturating_sub(1))
                    .take(200)
                    .collect();
                block_name(&header)
            }
        };
        let mut block = Symbol::new(name, SymbolKind::Block, start_line, end_line);
        block.modifiers.push(Modifier::Callback);
        if named_callee.is_some_and(|callee| is_test(callee, always)) {
            block.modifiers.push(Modifier::Test);
        }
        block.modifiers.sort();
        block.name_line = start_line;
        block.name_column = source.column(span.lo);
        block.children = children;
        out.push(block);
    }
}

/// The visitor behind [`Walker::callbacks_in`]: calls with function
/// arguments become [`Walker::callback`]s, other function expressions are
/// walked where they stand; nothing inside a function is visited here (the
/// walk of its body is).
struct Finder<'w, 's, 'a, 'o> {
    walker: &'w Walker<'s, 'a>,
    out: &'o mut Vec<Symbol>,
    depth: u32,
}

impl Finder<'_, '_, '_, '_> {
    /// A function expression where it stands: what it declares goes to
    /// `out` (its own lines bound its blocks).
    fn loose(&mut self, f: &FnLike<'_>, span: Span) {
        let end_line = self.walker.source.end_line(span);
        self.walker.function_body_into(f, end_line, self.out);
    }
}

impl Visit for Finder<'_, '_, '_, '_> {
    fn visit_expr(&mut self, expr: &Expr) {
        if self.depth >= MAX_EXPRESSION_DEPTH {
            return;
        }
        self.depth += 1;
        expr.visit_children_with(self);
        self.depth -= 1;
    }

    fn visit_call_expr(&mut self, call: &CallExpr) {
        let callee = match &call.callee {
            Callee::Expr(e) => Some(&**e),
            _ => None,
        };
        let has_function = callee.and_then(fn_like).is_some()
            || call.args.iter().any(|a| fn_like(&a.expr).is_some());
        if has_function {
            self.walker
                .callback(call.span, callee, &call.args, false, self.out);
        } else {
            call.visit_children_with(self);
        }
    }

    fn visit_new_expr(&mut self, new: &NewExpr) {
        let args = new.args.as_deref().unwrap_or_default();
        if args.iter().any(|a| fn_like(&a.expr).is_some()) {
            // `new Promise((resolve) => …)`: untitled, listed only with
            // declarations, named `new Promise`.
            self.walker
                .callback(new.span, Some(&new.callee), args, true, self.out);
        } else {
            new.visit_children_with(self);
        }
    }

    fn visit_arrow_expr(&mut self, arrow: &ArrowExpr) {
        self.loose(&FnLike::Arrow(arrow), arrow.span);
    }

    fn visit_fn_expr(&mut self, f: &FnExpr) {
        self.loose(&FnLike::Function(&f.function), f.function.span);
    }

    fn visit_method_prop(&mut self, m: &MethodProp) {
        self.loose(&FnLike::Function(&m.function), m.function.span);
    }

    fn visit_getter_prop(&mut self, g: &GetterProp) {
        self.loose(&FnLike::Function(&g.function), g.function.span);
    }

    fn visit_setter_prop(&mut self, setter: &SetterProp) {
        self.loose(&FnLike::Function(&setter.function), setter.function.span);
    }

    fn visit_class_expr(&mut self, c: &ClassExpr) {
        // A class expression where it stands: named ones are classes
        // (`return class Impl extends Base {…}`); the members of an
        // anonymous one are not symbols of the enclosing scope.
        if let Some(ident) = &c.ident {
            self.out.push(self.walker.class(
                ident.sym.to_string(),
                ident.span.lo,
                &c.class,
                true,
                &crate::symbols::Ctx::default(),
            ));
        }
    }
}

/// The first argument when it is a string or a template without
/// substitutions.
fn first_string(args: &[ExprOrSpread]) -> Option<&Expr> {
    let first = args.first().filter(|a| a.spread.is_none())?;
    match unwrap(&first.expr) {
        e @ Expr::Lit(Lit::Str(_)) => Some(e),
        e @ Expr::Tpl(t) if t.exprs.is_empty() => Some(e),
        _ => None,
    }
}

/// The text of [`first_string`] (quotes kept), cut to [`MAX_TITLE_CHARS`].
fn title(source: &crate::source::Source<'_>, args: &[ExprOrSpread]) -> Option<String> {
    first_string(args).map(|e| source.node_text(e, MAX_TITLE_CHARS))
}

/// Whether the callee is a member of a call whose first argument is a
/// string (`program.command('init').action`).
fn chain_title(callee: &Expr) -> bool {
    let Expr::Member(member) = unwrap(callee) else {
        return false;
    };
    let Expr::Call(inner) = unwrap(&member.obj) else {
        return false;
    };
    inner
        .args
        .first()
        .is_some_and(|a| matches!(unwrap(&a.expr), Expr::Lit(Lit::Str(_))))
}

/// Whether the callee's last name is a test hook, a React hook or a
/// component wrapper.
fn is_named(callee: &Expr) -> bool {
    let last = match unwrap(callee) {
        Expr::Ident(i) => &*i.sym,
        Expr::Member(m) => match &m.prop {
            MemberProp::Ident(p) => &*p.sym,
            _ => return false,
        },
        _ => return false,
    };
    TEST_HOOKS.contains(&last)
        || WRAPPERS.contains(&last)
        || last
            .strip_prefix("use")
            .and_then(|rest| rest.chars().next())
            .is_some_and(char::is_uppercase)
}

/// Whether a call of `callee` (titled or named: `titled`) is a test suite,
/// case, step or hook: its chain starts at one of [`TEST_FUNCTIONS`] or
/// [`TEST_HOOKS`] (`test.step`, `test.beforeEach`, `describe.only`).
fn is_test(callee: &Expr, titled: bool) -> bool {
    let mut expr = callee;
    for _ in 0..32 {
        match unwrap(expr) {
            Expr::Ident(i) => {
                return (titled && TEST_FUNCTIONS.contains(&&*i.sym))
                    || TEST_HOOKS.contains(&&*i.sym);
            }
            Expr::Member(m) => expr = &m.obj,
            Expr::Call(c) => match &c.callee {
                Callee::Expr(e) => expr = e,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}

/// The callee as a name: identifiers and members as written, the calls of
/// a chain with `(…)` (or their string title), anything else as its text;
/// one line, at most [`MAX_CALLEE_CHARS`] characters.
fn callee_text(source: &crate::source::Source<'_>, callee: &Expr) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut expr = callee;
    // From the end of the chain to its start.
    for _ in 0..32 {
        match unwrap(expr) {
            Expr::Ident(i) => {
                parts.push(i.sym.to_string());
                break;
            }
            Expr::This(_) => {
                parts.push("this".to_owned());
                break;
            }
            Expr::Member(m) => {
                let prop = match &m.prop {
                    MemberProp::Ident(p) => format!(".{}", p.sym),
                    MemberProp::PrivateName(p) => format!(".#{}", p.name),
                    MemberProp::Computed(c) => {
                        format!("[{}]", source.node_text(&*c.expr, MAX_TITLE_CHARS))
                    }
                };
                parts.push(prop);
                expr = &m.obj;
            }
            Expr::Call(c) => {
                let args = match title(source, &c.args) {
                    Some(t) => t,
                    None if c.args.is_empty() => String::new(),
                    None => "…".to_owned(),
                };
                parts.push(format!("({args})"));
                match &c.callee {
                    Callee::Expr(e) => expr = e,
                    _ => break,
                }
            }
            other => {
                parts.push(source.node_text(other, MAX_CALLEE_CHARS));
                break;
            }
        }
    }
    parts.reverse();
    let text: String = parts.concat();
    truncate(prefix(&text, MAX_CALLEE_CHARS * 4), MAX_CALLEE_CHARS)
}
