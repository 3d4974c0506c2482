// The oracle of tests/tests/ts_oracle.rs: the TypeScript compiler API's view of
// the declarations in each file named on the command line.
//
// For each file it prints one JSON object per line:
//   {"file": PATH, "parse_errors": N,
//    "symbols": [[KIND, NAME, START, END, ORIGIN, CONTEXT], ...]}
// where START is the line of node.getStart() (decorators and modifiers
// included, JSDoc excluded) and END the line of node.getEnd(), both 1-based.
// KIND is one of class, interface, enum, function, method, constructor,
// getter, setter, type_alias, module. NAME is the name's source text
// (quotes and brackets kept), `default` for an anonymous default export, and
// the dotted path for `namespace A.B.C` (one module).
//
// What is recorded:
// - declarations in statement lists (the file, namespace bodies, function and
//   method bodies, and the blocks of control-flow statements), class bodies
//   and interface bodies (ORIGIN "statement" when no expression was entered
//   on the way to them: what this oracle recorded before it entered
//   expressions; "declaration" when one was);
// - a `const`/`let`/`var` declarator whose binding is a plain identifier and
//   whose initializer is an arrow function or a function expression, as a
//   `function` (ORIGIN "binding"), or a class expression, as a `class`
//   (ORIGIN "class expression"; its members are recorded like a class
//   declaration's, ORIGIN "class expression member"), at any level. The
//   initializer is looked at through parentheses and type-only wrappers
//   (`as`, `satisfies`, `!`, `<T>x`), as the outline does. START is the line
//   of the VariableStatement's getStart() for the first declarator and of the
//   VariableDeclaration's for a later one; END the statement's end line when
//   it has one declarator, else the declarator's. (Declarations in a `for`
//   head have no statement: searched, not recorded.)
//
// Expressions are entered everywhere (initializers, call arguments, object
// literals, JSX attributes and children, array elements, class property
// initializers, decorators, default values, return values, IIFEs): every
// arrow function or function expression met has its body walked like a
// function body (an expression body is searched the same way), and so do
// object literal methods, getters and setters (which are not recorded) and
// the members of an unbound class expression (not recorded either).
//
// CONTEXT says where the record stands: "top" (not inside any function),
// "function" (in the body of a declared function, method, constructor or
// accessor, or of a function bound by a declarator), "callback" (in a function
// met anywhere else in an expression: a call argument, a return value, JSX,
// an IIFE…), "object member" (in an object literal method or a function that
// is an object property's value), "class property" (in a function that is a
// class property's initializer), "class expression" (in a member of an
// unbound class expression). The last four are kept below them: a function
// declared or bound inside a callback stands in the "callback" too, so
// CONTEXT names the outermost place on the way that is not a declaration.
"use strict";

const fs = require("fs");
const ts = require("typescript");

function scriptKind(file) {
  if (file.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (file.endsWith(".jsx")) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(file)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

const K = ts.SyntaxKind;

/// `node` without parentheses and type-only wrappers.
function unwrap(node) {
  for (;;) {
    switch (node.kind) {
      case K.ParenthesizedExpression:
      case K.AsExpression:
      case K.SatisfiesExpression:
      case K.NonNullExpression:
      case K.TypeAssertionExpression:
        node = node.expression;
        break;
      default:
        return node;
    }
  }
}

function outline(file) {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const symbols = [];
  // `scope`: { context, viaExpression } of the statements being walked.
  const push = (kind, name, start, end, origin, scope) =>
    symbols.push([kind, name, line(start), line(end), origin, scope.context]);
  const record = (node, kind, name, scope) =>
    push(
      kind,
      name,
      node.getStart(sf),
      node.getEnd(),
      scope.viaExpression ? "declaration" : "statement",
      scope,
    );
  const nameOf = (node) => (node.name ? node.name.getText(sf) : "default");

  function statements(list, scope) {
    for (const s of list) statement(s, scope);
  }
  // The context of a function's body met in `scope`: its own, unless the
  // scope already stands in an expression's function.
  const within = (scope, context) =>
    scope.context === "top" || scope.context === "function" ? context : scope.context;
  // The body of a function-like node (declaration, method, arrow…) met in
  // `scope`, and its parameters' default values, walked in `context`.
  function fn(node, scope, context, viaExpression) {
    const inner = { context: within(scope, context), viaExpression };
    for (const p of node.parameters || []) {
      if (p.initializer) expression(p.initializer, inner);
    }
    const b = node.body;
    if (!b) return;
    if (b.kind === K.Block) statements(b.statements, inner);
    else expression(b, inner);
  }
  function decorators(node, scope) {
    for (const m of node.modifiers || []) {
      if (m.kind === K.Decorator) expression(m.expression, scope);
    }
  }
  // Class or interface members; `origin` of the records (undefined: by the
  // scope), `record` false for an unbound class expression.
  function members(node, scope, origin, recorded, bodyContext) {
    const rec = (m, kind, name) => {
      if (!recorded) return;
      if (origin) push(kind, name, m.getStart(sf), m.getEnd(), origin, scope);
      else record(m, kind, name, scope);
    };
    const via = scope.viaExpression || origin !== undefined || !recorded;
    for (const m of node.members) {
      decorators(m, { context: scope.context, viaExpression: true });
      switch (m.kind) {
        case K.MethodDeclaration:
        case K.MethodSignature:
          rec(m, "method", m.name.getText(sf));
          fn(m, scope, bodyContext, via);
          break;
        case K.Constructor:
          rec(m, "constructor", "constructor");
          fn(m, scope, bodyContext, via);
          break;
        case K.GetAccessor:
          rec(m, "getter", m.name.getText(sf));
          fn(m, scope, bodyContext, via);
          break;
        case K.SetAccessor:
          rec(m, "setter", m.name.getText(sf));
          fn(m, scope, bodyContext, via);
          break;
        case K.ClassStaticBlockDeclaration:
          statements(m.body.statements, { context: within(scope, bodyContext), viaExpression: via });
          break;
        case K.PropertyDeclaration:
          if (m.initializer) {
            const site = recorded ? "class property" : bodyContext;
            expression(m.initializer, { context: scope.context, viaExpression: true }, site);
          }
          break;
      }
    }
  }
  function heritage(node, scope) {
    for (const clause of node.heritageClauses || []) {
      for (const t of clause.types) expression(t.expression, { context: scope.context, viaExpression: true });
    }
  }
  // A `const`/`let`/`var` statement.
  function variables(node, scope) {
    const list = node.declarationList.declarations;
    list.forEach((d, i) => {
      if (!d.initializer) return;
      const value = unwrap(d.initializer);
      const named = d.name.kind === K.Identifier;
      const start = i === 0 ? node.getStart(sf) : d.getStart(sf);
      const end = list.length === 1 ? node.getEnd() : d.getEnd();
      if (named && (value.kind === K.ArrowFunction || value.kind === K.FunctionExpression)) {
        push("function", d.name.getText(sf), start, end, "binding", scope);
        fn(value, scope, "function", true);
      } else if (named && value.kind === K.ClassExpression) {
        push("class", d.name.getText(sf), start, end, "class expression", scope);
        const inner = { context: scope.context, viaExpression: true };
        decorators(value, inner);
        heritage(value, inner);
        members(value, scope, "class expression member", true, "function");
      } else {
        expression(d.initializer, { context: scope.context, viaExpression: true });
      }
    });
  }
  // Searches an expression (or any node below a statement) for functions.
  // `site` is the context a function that is `node` itself gets (a function
  // met deeper is a "callback").
  function expression(node, scope, site) {
    if (!node) return;
    const value = unwrap(node);
    switch (value.kind) {
      case K.ArrowFunction:
      case K.FunctionExpression:
        fn(value, scope, site || "callback", true);
        return;
      case K.ClassExpression: {
        const inner = { context: scope.context, viaExpression: true };
        decorators(value, inner);
        heritage(value, inner);
        members(value, inner, undefined, false, "class expression");
        return;
      }
      case K.ObjectLiteralExpression:
        for (const p of value.properties) {
          switch (p.kind) {
            case K.MethodDeclaration:
            case K.GetAccessor:
            case K.SetAccessor:
              fn(p, scope, "object member", true);
              break;
            case K.PropertyAssignment:
              if (p.name.kind === K.ComputedPropertyName) expression(p.name.expression, scope);
              expression(p.initializer, scope, "object member");
              break;
            default:
              ts.forEachChild(p, (c) => expression(c, scope));
          }
        }
        return;
    }
    ts.forEachChild(value, (c) => expression(c, scope));
  }
  function statement(node, scope) {
    const inExpression = { context: scope.context, viaExpression: true };
    switch (node.kind) {
      case K.FunctionDeclaration:
        record(node, "function", nameOf(node), scope);
        fn(node, scope, "function", scope.viaExpression);
        break;
      case K.ClassDeclaration:
        record(node, "class", nameOf(node), scope);
        decorators(node, inExpression);
        heritage(node, scope);
        members(node, scope, undefined, true, "function");
        break;
      case K.InterfaceDeclaration:
        record(node, "interface", nameOf(node), scope);
        members(node, scope, undefined, true, "function");
        break;
      case K.TypeAliasDeclaration:
        record(node, "type_alias", nameOf(node), scope);
        break;
      case K.EnumDeclaration:
        record(node, "enum", nameOf(node), scope);
        for (const m of node.members) expression(m.initializer, inExpression);
        break;
      case K.ModuleDeclaration: {
        const names = [node.name.getText(sf)];
        let inner = node;
        while (inner.body && inner.body.kind === K.ModuleDeclaration) {
          inner = inner.body;
          names.push(inner.name.getText(sf));
        }
        record(node, "module", names.join("."), scope);
        if (inner.body && inner.body.kind === K.ModuleBlock) statements(inner.body.statements, scope);
        break;
      }
      case K.VariableStatement:
        variables(node, scope);
        break;
      case K.ExpressionStatement:
      case K.ReturnStatement:
      case K.ThrowStatement:
      case K.ExportAssignment:
        expression(node.expression, inExpression);
        break;
      case K.Block:
        statements(node.statements, scope);
        break;
      case K.IfStatement:
        expression(node.expression, inExpression);
        statement(node.thenStatement, scope);
        if (node.elseStatement) statement(node.elseStatement, scope);
        break;
      case K.ForStatement:
        if (node.initializer) {
          if (node.initializer.kind === K.VariableDeclarationList) {
            for (const d of node.initializer.declarations) expression(d.initializer, inExpression);
          } else expression(node.initializer, inExpression);
        }
        expression(node.condition, inExpression);
        expression(node.incrementor, inExpression);
        statement(node.statement, scope);
        break;
      case K.ForInStatement:
      case K.ForOfStatement:
      case K.WhileStatement:
      case K.DoStatement:
      case K.WithStatement:
        expression(node.expression, inExpression);
        statement(node.statement, scope);
        break;
      case K.LabeledStatement:
        statement(node.statement, scope);
        break;
      case K.SwitchStatement:
        expression(node.expression, inExpression);
        for (const clause of node.caseBlock.clauses) {
          if (clause.expression) expression(clause.expression, inExpression);
          statements(clause.statements, scope);
        }
        break;
      case K.TryStatement:
        statements(node.tryBlock.statements, scope);
        if (node.catchClause) statements(node.catchClause.block.statements, scope);
        if (node.finallyBlock) statements(node.finallyBlock.statements, scope);
        break;
    }
  }
  statements(sf.statements, { context: "top", viaExpression: false });
  return { file, parse_errors: sf.parseDiagnostics.length, symbols };
}

const files = fs.readFileSync(0, "utf8").split("\n").filter((f) => f.length > 0);
const out = [];
for (const file of files) {
  let result;
  try {
    result = outline(file);
  } catch (error) {
    // The compiler itself can fail (a stack overflow on 2000 nested
    // brackets): counted as a file with a parse error, so it is not compared.
    result = { file, parse_errors: 1, symbols: [], failure: String(error) };
  }
  out.push(JSON.stringify(result));
}
process.stdout.write(out.join("\n") + "\n");
