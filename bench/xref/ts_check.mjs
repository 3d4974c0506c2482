// Precision and recall of the index's resolved TypeScript references against
// the TypeScript language service.
//
// For every reference the index holds in the TypeScript files under PREFIX
// (a path prefix inside ROOT), the language service's
// `getDefinitionAtPosition` is asked where the name at that position is
// defined (the same question `findReferences` answers from the other side).
// A definition counts when it lands on a definition the index also has
// (same file, same name line). Two figures are given: by line (ours must be
// the very declaration the service names) and by symbol (ours may be another
// declaration of the same qualified name in that file: the overload
// signatures and the implementation of one function, which `findReferences`
// treats as one symbol).
//
// - precision = resolved references whose target is the service's definition
//               / resolved references the service also resolves in the project;
// - recall    = references the service resolves in the project that the index
//               resolved to the same definition / all of those.
//
// Only positions the index extracted are asked. Usage (typescript@5 from
// tests/oracle/ts; `npm ci` there):
//
//     ast-outline index ROOT --db /tmp/ts.sqlite
//     node bench/xref/ts_check.mjs ROOT /tmp/ts.sqlite src/ [LIMIT]
//
// The database is read with the `sqlite3` command-line shell (`-json`).

import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../../tests/oracle/ts/package.json"));
const ts = require("typescript");

const [root, db, prefix = "", limitText = "100000"] = process.argv.slice(2);
if (!root || !db) {
  console.error("usage: node ts_check.mjs ROOT DB [PREFIX] [LIMIT]");
  process.exit(2);
}
const limit = Number(limitText);

function query(sql) {
  const out = execFileSync("sqlite3", ["-json", db, sql], {
    maxBuffer: 1 << 30,
  }).toString();
  return out.trim() ? JSON.parse(out) : [];
}

const quote = (s) => `'${s.replaceAll("'", "''")}'`;
const symbols = query(
  "SELECT s.key AS id, f.path AS path, s.name_line AS line, s.qualname AS qualname " +
    "FROM symbols s JOIN files f ON f.id = s.file_id",
);
const places = new Set(symbols.map((s) => `${s.path}:${s.line}`));
const targetOf = new Map(symbols.map((s) => [s.id, `${s.path}:${s.line}`]));
const symbolOf = new Map(symbols.map((s) => [s.id, `${s.path}:${s.qualname}`]));
// Place → the symbols (path:qualname) declared on that line.
const symbolsAt = new Map();
for (const s of symbols) {
  const place = `${s.path}:${s.line}`;
  if (!symbolsAt.has(place)) symbolsAt.set(place, new Set());
  symbolsAt.get(place).add(`${s.path}:${s.qualname}`);
}
const rows = query(
  "SELECT f.path AS path, r.line AS line, r.column AS col, r.name AS name, r.status AS status, " +
    "r.target AS target, r.receiver AS receiver, r.role AS role FROM refs r JOIN files f ON f.id = r.file_id " +
    `WHERE f.path LIKE ${quote(prefix + "%")} AND f.language IN ('typescript', 'tsx') ` +
    `AND r.status != 3 /* module */ ORDER BY f.path, r.line, r.column LIMIT ${limit}`,
);

// A language service over every .ts/.tsx file of the index.
const files = query(
  "SELECT path FROM files WHERE language IN ('typescript', 'tsx', 'javascript')",
).map((r) => r.path);
const absolute = (p) => path.join(root, p);
const texts = new Map();
const read = (abs) => {
  if (!texts.has(abs)) {
    texts.set(abs, fs.existsSync(abs) ? fs.readFileSync(abs, "utf8") : undefined);
  }
  return texts.get(abs);
};
const configPath = ts.findConfigFile(root, fs.existsSync, "tsconfig.json");
let options = { allowJs: true, target: ts.ScriptTarget.ES2022 };
if (configPath && path.dirname(configPath).startsWith(path.resolve(root))) {
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: () => {},
  });
  if (parsed) options = { ...parsed.options, allowJs: true };
}
const host = {
  getScriptFileNames: () => files.map(absolute),
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => {
    const text = read(f);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());

// 1-based line and character column → offset in the text (UTF-16 units).
function offsetOf(text, line, column) {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf("\n", at);
    if (next < 0) return -1;
    at = next + 1;
  }
  // Columns count characters (code points).
  let units = at;
  for (let c = 1; c < column && units < text.length; c++) {
    const code = text.codePointAt(units);
    units += code > 0xffff ? 2 : 1;
  }
  return units;
}

let asked = 0;
let serviceFound = 0;
let oursAndService = 0;
let right = 0;
let rightSymbol = 0;
const wrong = [];
const missed = [];
// The receiver's shape, for the summary by category.
const shape = (receiver) =>
  receiver === ""
    ? "bare"
    : receiver === "?"
      ? "expression"
      : receiver.endsWith("()")
        ? "call result"
        : receiver === "this" || receiver.startsWith("this.")
          ? `this${receiver === "this" ? "" : ".x"}`
          : "path";
for (const row of rows) {
  const abs = absolute(row.path);
  const text = read(abs);
  if (text === undefined) continue;
  const offset = offsetOf(text, row.line, row.col);
  if (offset < 0) continue;
  asked++;
  let definitions = [];
  try {
    definitions = service.getDefinitionAtPosition(abs, offset) ?? [];
  } catch {
    definitions = [];
  }
  const found = new Set();
  for (const d of definitions) {
    const rel = path.relative(root, d.fileName);
    if (rel.startsWith("..")) continue;
    const source = read(d.fileName);
    if (source === undefined) continue;
    const line = source.slice(0, d.textSpan.start).split("\n").length;
    if (places.has(`${rel}:${line}`)) found.add(`${rel}:${line}`);
  }
  if (found.size === 0) continue;
  serviceFound++;
  const ours = row.status === 0 /* resolved */ ? targetOf.get(row.target) : undefined;
  if (ours !== undefined) {
    oursAndService++;
    const sameSymbol = [...found].some((place) => symbolsAt.get(place)?.has(symbolOf.get(row.target)));
    if (found.has(ours) || sameSymbol) rightSymbol++;
    if (found.has(ours)) right++;
    else
      wrong.push([row.path, row.line, row.col, row.name, ours, [...found], shape(row.receiver), row.role]);
  } else {
    missed.push([row.path, row.line, row.col, row.name, row.status, shape(row.receiver), row.role]);
  }
}
const precision = oursAndService ? right / oursAndService : 0;
const recall = serviceFound ? right / serviceFound : 0;
console.log(`references asked: ${asked}; the language service resolved in project: ${serviceFound}`);
console.log(`precision ${precision.toFixed(3)} (${right}/${oursAndService})`);
console.log(`recall    ${recall.toFixed(3)} (${right}/${serviceFound})`);
const precisionSymbol = oursAndService ? rightSymbol / oursAndService : 0;
const recallSymbol = serviceFound ? rightSymbol / serviceFound : 0;
console.log(`by symbol: precision ${precisionSymbol.toFixed(3)} (${rightSymbol}/${oursAndService}), ` +
  `recall ${recallSymbol.toFixed(3)} (${rightSymbol}/${serviceFound})`);
// Categories: receiver shape and role (and status for the missed).
const tally = (rows, key) => {
  const counts = new Map();
  for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
};
console.log(`differs: ${wrong.length}`);
for (const [k, n] of tally(wrong, (w) => `${w[6]} ${w[7]}`)) console.log(`  ${n}\t${k}`);
console.log(`missed: ${missed.length}`);
for (const [k, n] of tally(missed, (m) => `${m[4]} ${m[5]} ${m[6]}`)) console.log(`  ${n}\t${k}`);
const shown = Number(process.env.SHOW ?? "15");
for (const w of wrong.slice(0, shown)) console.log("  differs:", ...w);
for (const m of missed.slice(0, shown)) console.log("  missed:", ...m);
