//! No file takes a server down: a project holding the worst files we know
//! (100,000-deep JSX, a million chained Rust assignments, 10,000-deep
//! nesting in each language, a 50 MB one-line file, a file that grows while
//! it is read) and files that make the parse worker fail on purpose (abort,
//! a real stack overflow, a parse that never ends, memory without bound;
//! `AST_OUTLINE_WORKER_FAULTS`) is driven through the CLI, `mcp`, `lsp` and
//! `watch`: every request is answered, the failing files are reported with
//! why, the others are outlined and indexed, the server lives on and its
//! memory stays bounded.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_ast-outline");

/// The limits every server here runs under: short enough for a test, long
/// enough for the hostile files that do parse (a million chained
/// assignments, the 50 MB line: about 4 s each in a debug build on a
/// loaded 2-core machine) to finish.
const LIMITS: [&str; 4] = ["--parse-timeout", "10", "--parse-memory", "768"];

/// The files that make a worker fail, with what the diagnostic says.
const FAULTS: [(&str, &str, &str); 4] = [
    ("abort.py", "x = '@@ast-outline-fault:abort@@'\n", "SIGABRT"),
    (
        "overflow.ts",
        "// @@ast-outline-fault:overflow@@\nexport const x = 1;\n",
        "stack overflow",
    ),
    (
        "hang.rs",
        "// @@ast-outline-fault:hang@@\npub fn h() {}\n",
        "took longer than 10 s",
    ),
    (
        "alloc.js",
        "// @@ast-outline-fault:alloc@@\nfunction a() {}\n",
        "used more than 768 MiB",
    ),
];

/// The hostile files that parse (with their error diagnostics): name and
/// text; each ends with a function `after` that must be outlined.
fn hostile() -> Vec<(&'static str, String)> {
    let deep = 10_000;
    vec![
        (
            "deep_jsx.jsx",
            format!(
                "const x = {}{};\nfunction after() {{}}\n",
                "<a>".repeat(100_000),
                "</a>".repeat(100_000)
            ),
        ),
        (
            "chain.rs",
            format!(
                "fn f() {{ let mut a = 0; {}0; }}\nfn after() {{}}\n",
                "a = ".repeat(1_000_000)
            ),
        ),
        (
            "deep.py",
            format!(
                "x = {}{}\ndef after(): pass\n",
                "(".repeat(deep),
                ")".repeat(deep)
            ),
        ),
        (
            "deep.ts",
            format!(
                "const x = {}{};\nfunction after() {{}}\n",
                "[".repeat(deep),
                "]".repeat(deep)
            ),
        ),
        (
            "deep_rs.rs",
            format!(
                "const X: u8 = {}0{};\nfn after() {{}}\n",
                "(".repeat(deep),
                ")".repeat(deep)
            ),
        ),
        (
            "deep_braces.py",
            format!(
                "x = {}{}\ndef after(): pass\n",
                "{1:".repeat(deep),
                "}".repeat(deep)
            ),
        ),
    ]
}

/// A 50 MB one-line JavaScript file (a string), then a function on line 2.
/// (A 50 MB array of numbers takes 33 s and 3 GB in a debug build: see
/// docs/limits.md.)
fn one_line() -> String {
    format!(
        "var big = \"{}\";\nfunction after() {{}}\n",
        "ab".repeat(25_000_000)
    )
}

/// The project: `ok.py` (with a caller in `use_ok.py`), the hostile files,
/// the fault files and `big.js`.
fn project() -> TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "ok.py", "def total(items):\n    return sum(items)\n");
    write(
        root,
        "use_ok.py",
        "from ok import total\n\n\ndef run():\n    return total([1])\n",
    );
    for (name, text) in hostile() {
        write(root, name, &text);
    }
    for (name, text, _) in FAULTS {
        write(root, name, text);
    }
    write(root, "big.js", &one_line());
    dir
}

fn write(root: &Path, name: &str, text: &str) {
    std::fs::write(root.join(name), text).expect("write");
}

/// Appends to `grow.py` until the returned flag is set: a file that grows
/// while it is read.
fn grow(root: &Path) -> (Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let path = root.join("grow.py");
    write(root, "grow.py", "def first():\n    pass\n");
    let flag = Arc::clone(&stop);
    let handle = std::thread::spawn(move || {
        let mut n = 0u64;
        // 20 functions every 10 ms, up to 100,000 lines.
        while !flag.load(Ordering::Relaxed) && n < 2_500 {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open grow.py");
            let chunk = format!("def f{n}():\n    pass\n").repeat(20);
            file.write_all(chunk.as_bytes()).expect("append");
            n += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    (stop, handle)
}

/// The resident memory of `pid` in MiB (Linux).
fn resident_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kib| kib >> 10)
}

/// The names of the top-level symbols of a JSON outline's `symbols` or of
/// an LSP `documentSymbol` answer (both arrays of objects with `name`).
fn symbol_names(symbols: &Value) -> Vec<String> {
    let list = symbols.get("symbols").unwrap_or(symbols);
    list.as_array()
        .map(|symbols| {
            symbols
                .iter()
                .filter_map(|s| s["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(LIMITS)
        .args(args)
        .env("AST_OUTLINE_WORKER_FAULTS", "1");
    command
}

#[test]
fn the_cli_walk_reports_each_failing_file_and_outlines_every_other() {
    let dir = project();
    let output = command(&["outline", "--format", "json", "--no-cache"])
        .arg(dir.path())
        .output()
        .expect("run outline");
    assert!(output.status.success(), "{output:?}");
    let outlines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let by_name = |name: &str| -> &Value {
        outlines
            .iter()
            .find(|o| o["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    for (name, _, why) in FAULTS {
        let outline = by_name(name);
        let message = outline["diagnostics"][0]["message"].as_str().unwrap_or("");
        assert!(
            message.starts_with("not outlined: the parser's worker process")
                && message.contains(why),
            "{name}: {message}"
        );
        assert_eq!(outline["symbols"], json!([]), "{name}");
    }
    for (name, _) in hostile() {
        assert!(
            symbol_names(by_name(name)).contains(&"after".to_owned()),
            "{name}: {:?}",
            by_name(name)["diagnostics"]
        );
    }
    assert!(symbol_names(by_name("big.js")).contains(&"after".to_owned()));
    assert_eq!(symbol_names(by_name("ok.py")), ["total"]);
}

#[test]
fn outline_read_and_at_name_a_failed_file_as_not_outlined_and_say_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (name, text, _) = FAULTS[0];
    write(dir.path(), name, text);
    let file = dir.path().join("abort.py");
    let file = file.to_str().expect("a UTF-8 path");
    let run = |args: &[&str]| {
        let output = command(args).output().expect("run ast-outline");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (status, out, _) = run(&["outline", "--no-cache", file]);
    assert_eq!(status, Some(0));
    let header = out.lines().next().unwrap_or_default();
    assert!(
        header.ends_with("abort.py (python, 1 line; not outlined)"),
        "{out}"
    );
    // A symbol cannot be found in it: the error says why and how to read it.
    let (status, _, err) = run(&["read", &format!("{file}:x")]);
    assert_eq!(status, Some(1));
    assert!(
        err.contains("abort.py has no symbols, it was not outlined: the parser's worker process")
            && err.contains("SIGABRT")
            && err.contains("read it by lines instead (")
            && err.trim_end().ends_with("abort.py:1-1)"),
        "{err}"
    );
    // Its lines can still be read.
    let (status, out, _) = run(&["read", &format!("{file}:1-1")]);
    assert_eq!(status, Some(0));
    assert!(out.contains("x = '@@ast-outline-fault:abort@@'"), "{out}");
    // A line of it: the passage says the file was not outlined.
    let (status, out, _) = run(&["read", &format!("{file}:1")]);
    assert_eq!(status, Some(0));
    let header = out.lines().next().unwrap_or_default();
    assert!(
        header.contains(":1-1 (the file was not outlined: the parser's worker process")
            && header.contains("SIGABRT"),
        "{out}"
    );
    // A search hit in it is not "at module level".
    let dir_arg = dir.path().to_str().expect("a UTF-8 path");
    let (status, out, _) = run(&["search", "ast-outline-fault", dir_arg]);
    assert_eq!(status, Some(0));
    assert!(
        out.contains("\n  (not outlined: the parser's worker process stopped on this file")
            && !out.contains("(module level)"),
        "{out}"
    );
    let (status, out, _) = run(&["at", &format!("{file}:1")]);
    assert_eq!(status, Some(0));
    assert!(
        out.contains("abort.py has no symbols, it was not outlined:") && out.contains("SIGABRT"),
        "{out}"
    );
}

/// A running `ast-outline mcp`, initialized.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(root: &Path) -> Mcp {
        let mut child = command(&["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut mcp = Mcp {
            child,
            stdin,
            stdout,
            next: 0,
        };
        mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "supervised", "version": "0"}}),
        );
        writeln!(
            mcp.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .expect("write");
        mcp
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).expect("read");
            assert!(read > 0, "the server ended while `{method}` was pending");
            let answer: Value = serde_json::from_str(&line).expect("JSON");
            if answer["id"] == json!(id) {
                assert!(answer.get("error").is_none(), "{method}: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// A tool's text (tool errors too).
    fn call(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {result}"))
            .to_owned()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_mcp_server_answers_every_request_and_lives_through_every_bad_file() {
    let dir = project();
    let root = dir.path();
    let (stop, grower) = grow(root);
    let mut mcp = Mcp::start(root);
    let pid = mcp.child.id();
    for (name, _, why) in FAULTS {
        let text = mcp.call("get_file_outline", json!({"path": name}));
        assert!(
            text.contains("not outlined: the parser's worker process") && text.contains(why),
            "{name}: {text}"
        );
        // Asked again: answered at once from the remembered failure.
        let started = Instant::now();
        let again = mcp.call("get_file_outline", json!({"path": name}));
        assert_eq!(again, text);
        assert!(started.elapsed() < Duration::from_secs(3), "{name}");
    }
    for (name, _) in hostile() {
        let text = mcp.call("get_file_outline", json!({"path": name}));
        assert!(text.contains("after"), "{name}: {text}");
    }
    let text = mcp.call("get_file_outline", json!({"path": "big.js"}));
    assert!(text.contains("after"), "big.js: {text}");
    let text = mcp.call("get_file_outline", json!({"path": "grow.py"}));
    assert!(text.contains("first"), "grow.py: {text}");
    // The index is built over the whole tree, failing files left out.
    let text = mcp.call("find_references", json!({"target": "ok.py:total"}));
    assert!(text.contains("use_ok.py"), "{text}");
    assert!(
        text.contains(
            "\nnote: 4 files not indexed: the parser's worker failed on abort.py, alloc.js, \
             hang.rs, overflow.ts (get_file_outline says why); what they define or reference \
             is missing here"
        ),
        "{text}"
    );
    let text = mcp.call("search_code", json!({"pattern": "def total"}));
    assert!(text.contains("ok.py"), "{text}");
    stop.store(true, Ordering::Relaxed);
    grower.join().expect("grower");
    // Still alive and answering, its memory bounded (the workers' are
    // capped at 768 MiB each and are not counted here).
    let text = mcp.call("get_file_outline", json!({"path": "ok.py"}));
    assert!(text.contains("total"), "{text}");
    let resident = resident_mib(pid);
    assert!(resident < 1024, "the server holds {resident} MiB");
    assert!(mcp.child.try_wait().expect("status").is_none());
}

/// An `ast-outline lsp` client over stdio.
struct Lsp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
    root: PathBuf,
}

impl Lsp {
    fn start(root: &Path) -> Lsp {
        let mut child = command(&["lsp", "--db"])
            .arg(root.join("idx.sqlite"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lsp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let root = root.canonicalize().expect("canonical");
        let mut lsp = Lsp {
            child,
            stdin,
            stdout,
            next: 0,
            root,
        };
        let uri = format!("file://{}", lsp.root.display());
        let init = lsp.request(
            "initialize",
            json!({"processId": null, "rootUri": uri, "capabilities": {}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        lsp.notify("initialized", json!({}));
        lsp
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).expect("header");
            assert!(read > 0, "the server ended");
            if line == "\r\n" {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.trim().parse().expect("length");
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).expect("body");
        serde_json::from_slice(&body).expect("json")
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.read();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn uri(&self, name: &str) -> String {
        format!("file://{}/{name}", self.root.display())
    }

    /// Opens `name` with `text` and asks its document symbols: the answer.
    fn document_symbols(&mut self, name: &str, text: &str) -> Value {
        let language = match name.rsplit('.').next() {
            Some("py") => "python",
            Some("rs") => "rust",
            Some("ts") => "typescript",
            _ => "javascript",
        };
        let uri = self.uri(name);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
        self.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
    }

    /// Opens `name` with `text` and asks its document symbols: the names.
    fn symbols(&mut self, name: &str, text: &str) -> Vec<String> {
        let answer = self.document_symbols(name, text);
        assert!(answer.get("error").is_none(), "{name}: {answer}");
        symbol_names(&answer["result"])
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_lsp_server_answers_every_request_and_lives_through_every_bad_file() {
    let dir = project();
    let root = dir.path();
    let (stop, grower) = grow(root);
    let mut lsp = Lsp::start(root);
    let pid = lsp.child.id();
    // A file whose worker failed: the request fails (LSP's RequestFailed)
    // saying why, rather than answering "no symbols".
    for (name, text, why) in FAULTS {
        let answer = lsp.document_symbols(name, text);
        assert_eq!(answer["error"]["code"], -32803, "{name}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("{name} has no symbols, it was not outlined: ")),
            "{message}"
        );
        assert!(message.contains(why), "{name}: {message}");
    }
    for (name, text) in hostile() {
        assert!(
            lsp.symbols(name, &text).contains(&"after".to_owned()),
            "{name}"
        );
    }
    let names = lsp.symbols("ok.py", "def total(items):\n    return sum(items)\n");
    assert_eq!(names, ["total"]);
    // Cross-file requests still answer from the index.
    let answer = lsp.request(
        "textDocument/references",
        json!({"textDocument": {"uri": lsp.uri("ok.py")}, "position": {"line": 0, "character": 5},
               "context": {"includeDeclaration": false}}),
    );
    let places = answer["result"].to_string();
    assert!(places.contains("use_ok.py"), "{answer}");
    stop.store(true, Ordering::Relaxed);
    grower.join().expect("grower");
    let resident = resident_mib(pid);
    assert!(resident < 1024, "the server holds {resident} MiB");
    let answer = lsp.request("shutdown", Value::Null);
    assert!(answer.get("error").is_none(), "{answer}");
    lsp.notify("exit", Value::Null);
    let status = lsp.child.wait().expect("wait");
    assert!(status.success(), "{status}");
}

#[test]
fn watch_reports_failing_files_and_keeps_indexing_the_others() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("src");
    std::fs::create_dir(&root).expect("mkdir");
    write(&root, "ok.py", "def total(items):\n    return sum(items)\n");
    let mut child = command(&["watch"])
        .arg(&root)
        .arg("--db")
        .arg(dir.path().join("idx.sqlite"))
        .args(["--format", "json", "--debounce-ms", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn watch");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut next = || {
        let mut line = String::new();
        out.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "watch ended");
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };
    let ready = next();
    assert_eq!(ready["event"], "ready", "{ready}");
    for (name, text, why) in FAULTS {
        write(&root, name, text);
        let update = next();
        let notes = update["notes"].to_string();
        assert!(
            notes.contains(name) && notes.contains(why),
            "{name}: {update}"
        );
    }
    write(&root, "after.py", "def after():\n    pass\n");
    let update = next();
    assert_eq!(update["parsed"], 1, "{update}");
    assert_eq!(update["paths"], json!(["after.py"]), "{update}");
    assert!(child.try_wait().expect("status").is_none(), "watch ended");
    let _ = child.kill();
    let _ = child.wait();
}

/// A failure met by the MCP server is not written to the outline cache: the
/// next process (here without the test faults) outlines the file (a
/// new-user trial found the server's failure read back by `outline .`).
#[test]
fn a_failure_met_by_the_mcp_server_is_not_kept_in_the_outline_cache() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "ok.py", "def total(items):\n    return sum(items)\n");
    let index = Command::new(BIN)
        .arg("index")
        .arg(root)
        .output()
        .expect("index");
    assert!(index.status.success(), "{index:?}");
    write(root, "n3.py", "x = '@@ast-outline-fault:abort@@'\n");
    let mut mcp = Mcp::start(root);
    let text = mcp.call("get_file_outline", json!({"path": "n3.py"}));
    assert!(text.contains("SIGABRT"), "{text}");
    drop(mcp);
    let output = Command::new(BIN)
        .args(["outline", "--format", "json"])
        .arg(root)
        .output()
        .expect("outline");
    let n3 = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .find(|o| o["path"].as_str().is_some_and(|p| p.ends_with("n3.py")))
        .expect("n3.py outlined");
    assert_eq!(symbol_names(&n3), ["x"], "{n3}");
}

#[test]
fn a_parse_timeout_too_short_for_a_worker_to_answer_or_not_a_number_is_a_usage_error() {
    for (value, why) in [
        ("1e-300", "give at least 0.1 and at most 86400 seconds"),
        ("0.05", "give at least 0.1 and at most 86400 seconds"),
        ("NaN", "give at least 0.1 and at most 86400 seconds"),
        ("86401", "give at least 0.1 and at most 86400 seconds"),
        ("soon", "is not a number of seconds"),
    ] {
        let output = Command::new(BIN)
            .args(["--parse-timeout", value, "outline", "."])
            .output()
            .expect("run ast-outline");
        assert_eq!(output.status.code(), Some(2), "{value}");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.contains(why), "{value}: {err}");
    }
    // Limits without workers would be ignored: refused.
    for limit in ["--parse-timeout=5", "--parse-memory=100"] {
        let output = Command::new(BIN)
            .args([limit, "--parse-in-process", "outline", "."])
            .output()
            .expect("run ast-outline");
        assert_eq!(output.status.code(), Some(2), "{limit}");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains("cannot be used with '--parse-in-process'"),
            "{err}"
        );
    }
    let output = Command::new(BIN)
        .args(["--parse-timeout", "0.1", "--version"])
        .output()
        .expect("run ast-outline");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn an_unchanged_file_whose_worker_failed_is_not_parsed_again_by_the_next_refresh() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "ok.py", "def total(items):\n    return sum(items)\n");
    let (name, text, _) = FAULTS[2];
    write(root, name, text);
    let index = |timeout: &str| {
        let output = Command::new(BIN)
            .args(["--parse-timeout", timeout, "index"])
            .arg(root)
            .env("AST_OUTLINE_WORKER_FAULTS", "1")
            .output()
            .expect("run index");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let first = index("2");
    assert!(
        first.contains("hang.rs: not outlined: the parser's worker process took longer than 2 s"),
        "{first}"
    );
    // Unchanged: left out for the same reason without a parse (which would
    // take the new limit, 30 s, and say so).
    let again = index("30");
    assert!(again.contains("took longer than 2 s"), "{again}");
    // Changed: parsed again, under the limit given now.
    write(root, name, &format!("{text}// changed\n"));
    let changed = index("3");
    assert!(changed.contains("took longer than 3 s"), "{changed}");
}
