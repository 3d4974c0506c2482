//! Whether the language's own parser rejects a mutant.
//!
//! - Python: CPython (`python3` on `PATH`), `compile(text, path, "exec",
//!   ast.PyCF_ONLY_AST)`, i.e. `ast.parse`: the grammar and the tokenizer, no
//!   symbol-table checks. One process for the whole batch.
//! - TypeScript/JavaScript: the TypeScript compiler's syntactic diagnostics
//!   (`ts.createSourceFile(...).parseDiagnostics`, the `typescript@5` of
//!   `tests/oracle/ts`), script kind from the extension. One `node` process.
//! - Rust: `syn::parse_file` (syn 3, the parser of the Rust adapter, which has
//!   no recovery of its own; rust-analyzer's parser accepts more than rustc).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::Lang;

const PYTHON: &str = r#"
import ast, json, sys
for line in sys.stdin:
    item = json.loads(line)
    try:
        compile(item["text"], item["path"], "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        error = None
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    print(json.dumps(error), flush=False)
"#;

const NODE: &str = r#"
const ts = require("typescript");
const lines = require("fs").readFileSync(0, "utf8").split("\n");
const out = [];
for (const line of lines) {
  if (!line) continue;
  const item = JSON.parse(line);
  const f = item.path;
  const kind = f.endsWith(".tsx") ? ts.ScriptKind.TSX : f.endsWith(".jsx") ? ts.ScriptKind.JSX
    : /\.[cm]?js$/.test(f) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(f, item.text, ts.ScriptTarget.Latest, false, kind);
  const d = sf.parseDiagnostics;
  out.push(JSON.stringify(d.length ? ts.flattenDiagnosticMessageText(d[0].messageText, " ") : null));
}
process.stdout.write(out.join("\n") + "\n");
"#;

/// The parser's error for each `(path, text)`, or `None` when it accepts the
/// text. Panics when the external parser (`python3`, `node`) cannot be run.
pub fn rejections(lang: Lang, items: &[(String, String)]) -> Vec<Option<String>> {
    if items.is_empty() {
        return Vec::new();
    }
    match lang {
        Lang::Rust => items
            .iter()
            .map(|(_, text)| syn::parse_file(text).err().map(|e| e.to_string()))
            .collect(),
        Lang::Python => batch(Command::new("python3").args(["-c", PYTHON]), items),
        Lang::Ts => {
            let dir = crate::corpus::ts_oracle_dir();
            crate::corpus::ensure_ts_packages(&dir);
            batch(
                Command::new("node").args(["-e", NODE]).current_dir(&dir),
                items,
            )
        }
    }
}

fn batch(command: &mut Command, items: &[(String, String)]) -> Vec<Option<String>> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run the parser that judges mutants: {e}"));
    let mut input = String::new();
    for (path, text) in items {
        let file = Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        input.push_str(&json!({ "path": file, "text": text }).to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("the judging parser runs");
    writer
        .join()
        .expect("writer thread")
        .expect("the judging parser reads its input");
    assert!(output.status.success(), "the judging parser failed");
    let text = String::from_utf8_lossy(&output.stdout);
    let verdicts: Vec<Option<String>> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::String(error)) => Some(error),
            _ => None,
        })
        .collect();
    assert_eq!(
        verdicts.len(),
        items.len(),
        "the judging parser answered {} times for {} mutants",
        verdicts.len(),
        items.len()
    );
    verdicts
}
