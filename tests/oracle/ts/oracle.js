// The oracle of tests/tests/ts_oracle.rs: the TypeScript compiler API's view of
// the declarations in each file named on the command line.
//
// For each file it prints one JSON object per line:
//   {"file": PATH, "parse_errors": N, "symbols": [[KIND, NAME, START, END], ...]}
// where START is the line of node.getStart() (decorators and modifiers
// included, JSDoc excluded) and END the line of node.getEnd(), both 1-based.
// KIND is one of class, interface, enum, function, method, constructor,
// getter, setter, type_alias, module. NAME is the name's source text
// (quotes and brackets kept), `default` for an anonymous default export, and
// the dotted path for `namespace A.B.C` (one module).
//
// Declarations are collected from statement lists (the file, namespace bodies,
// function and method bodies, and the blocks of control-flow statements), class
// bodies and interface bodies; expressions are not entered.
"use strict";

const fs = require("fs");
const ts = require("typescript");

function scriptKind(file) {
  if (file.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (file.endsWith(".jsx")) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(file)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

function outline(file) {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const symbols = [];
  const record = (node, kind, name) =>
    symbols.push([kind, name, line(node.getStart(sf)), line(node.getEnd())]);
  const nameOf = (node) => (node.name ? node.name.getText(sf) : "default");
  const K = ts.SyntaxKind;

  function statements(list) {
    for (const s of list) statement(s);
  }
  function body(node) {
    if (node && node.kind === K.Block) statements(node.statements);
  }
  function members(node) {
    for (const m of node.members) {
      switch (m.kind) {
        case K.MethodDeclaration:
        case K.MethodSignature:
          record(m, "method", m.name.getText(sf));
          body(m.body);
          break;
        case K.Constructor:
          record(m, "constructor", "constructor");
          body(m.body);
          break;
        case K.GetAccessor:
          record(m, "getter", m.name.getText(sf));
          body(m.body);
          break;
        case K.SetAccessor:
          record(m, "setter", m.name.getText(sf));
          body(m.body);
          break;
        case K.ClassStaticBlockDeclaration:
          body(m.body);
          break;
      }
    }
  }
  function statement(node) {
    switch (node.kind) {
      case K.FunctionDeclaration:
        record(node, "function", nameOf(node));
        body(node.body);
        break;
      case K.ClassDeclaration:
        record(node, "class", nameOf(node));
        members(node);
        break;
      case K.InterfaceDeclaration:
        record(node, "interface", nameOf(node));
        members(node);
        break;
      case K.TypeAliasDeclaration:
        record(node, "type_alias", nameOf(node));
        break;
      case K.EnumDeclaration:
        record(node, "enum", nameOf(node));
        break;
      case K.ModuleDeclaration: {
        const names = [node.name.getText(sf)];
        let inner = node;
        while (inner.body && inner.body.kind === K.ModuleDeclaration) {
          inner = inner.body;
          names.push(inner.name.getText(sf));
        }
        record(node, "module", names.join("."));
        if (inner.body && inner.body.kind === K.ModuleBlock) statements(inner.body.statements);
        break;
      }
      case K.Block:
        statements(node.statements);
        break;
      case K.IfStatement:
        statement(node.thenStatement);
        if (node.elseStatement) statement(node.elseStatement);
        break;
      case K.ForStatement:
      case K.ForInStatement:
      case K.ForOfStatement:
      case K.WhileStatement:
      case K.DoStatement:
      case K.LabeledStatement:
      case K.WithStatement:
        statement(node.statement);
        break;
      case K.SwitchStatement:
        for (const clause of node.caseBlock.clauses) statements(clause.statements);
        break;
      case K.TryStatement:
        statements(node.tryBlock.statements);
        if (node.catchClause) statements(node.catchClause.block.statements);
        if (node.finallyBlock) statements(node.finallyBlock.statements);
        break;
    }
  }
  statements(sf.statements);
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
