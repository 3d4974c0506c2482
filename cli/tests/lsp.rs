//! `ast-outline lsp` driven over stdio with JSON-RPC, every request it
//! answers checked against exact values: document symbols (hierarchical,
//! `detail` = signature), workspace symbols, definition, references (also
//! after an unsaved edit, incremental and full sync), call hierarchy both
//! ways, type hierarchy both ways, hover, position encodings (UTF-16 by
//! default, UTF-32 when offered), and the errors (unknown method, bad
//! params). The real-client test is `lsp_neovim.rs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
    root: String,
}

impl Client {
    fn start(root: &Path, encodings: Option<Value>) -> Client {
        let mut client = Client::spawn(root);
        let mut capabilities = json!({});
        if let Some(encodings) = encodings {
            capabilities = json!({ "general": { "positionEncodings": encodings } });
        }
        let uri = format!("file://{}", client.root);
        let init = client.request(
            "initialize",
            json!({ "processId": null, "rootUri": uri, "capabilities": capabilities }),
        );
        assert!(init.get("result").is_some(), "{init}");
        client.notify("initialized", json!({}));
        client
    }

    /// The server started, not yet initialized.
    fn spawn(root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
            .arg("lsp")
            .arg("--db")
            .arg(root.join("idx.sqlite"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lsp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let root = root
            .canonicalize()
            .expect("canonical")
            .to_string_lossy()
            .into_owned();
        Client {
            child,
            stdin,
            stdout,
            next: 0,
            root,
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Sends `body` framed, as it is (any bytes).
    fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).expect("write");
        self.stdin.write_all(body).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).expect("header");
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

    /// The whole response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.read();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn uri(&self, path: &str) -> String {
        format!("file://{}/{path}", self.root)
    }

    fn at(&self, path: &str, line: u32, character: u32) -> Value {
        json!({
            "textDocument": { "uri": self.uri(path) },
            "position": { "line": line, "character": character },
        })
    }

    fn stop(mut self) {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "{status}");
    }
}

/// `path:line:character-character` of each location (0-based, as LSP).
fn places(client: &Client, locations: &Value) -> Vec<String> {
    let prefix = format!("file://{}/", client.root);
    locations
        .as_array()
        .expect("array")
        .iter()
        .map(|l| {
            let r = &l["range"];
            format!(
                "{}:{}:{}-{}",
                l["uri"].as_str().expect("uri").trim_start_matches(&prefix),
                r["start"]["line"],
                r["start"]["character"],
                r["end"]["character"]
            )
        })
        .collect()
}

const SHAPES: &str = "\
class Shape:
    \"\"\"A plane figure.\"\"\"

    def area(self) -> float:
        return 0.0


class Square(Shape):
    def __init__(self, side: float):
        self.side = side

    def area(self) -> float:
        return self.side ** 2
";

const APP: &str = "\
from pkg.shapes import Square


def total(n: int) -> float:
    \"\"\"Sum of areas.\"\"\"
    return sum(Square(k).area() for k in range(n))


print(total(3))
";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("pkg")).expect("mkdir");
    std::fs::write(dir.path().join("pkg/__init__.py"), "").expect("write");
    std::fs::write(dir.path().join("pkg/shapes.py"), SHAPES).expect("write");
    std::fs::write(dir.path().join("app.py"), APP).expect("write");
    dir
}

#[test]
fn every_request_answers_with_exact_places() {
    let dir = project();
    let mut client = Client::start(dir.path(), None);

    let symbols = client.result(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": client.uri("pkg/shapes.py") } }),
    );
    let square = &symbols[1];
    assert_eq!(square["name"], "Square");
    assert_eq!(square["detail"], "class Square(Shape)");
    assert_eq!(square["kind"], 5);
    assert_eq!(
        square["range"],
        json!({ "start": { "line": 7, "character": 0 }, "end": { "line": 13, "character": 0 } })
    );
    assert_eq!(
        square["selectionRange"]["start"],
        json!({ "line": 7, "character": 6 })
    );
    let methods: Vec<(&str, &str)> = square["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().expect("name"),
                c["detail"].as_str().expect("detail"),
            )
        })
        .collect();
    assert_eq!(
        methods,
        [
            ("__init__", "def __init__(self, side: float)"),
            ("area", "def area(self) -> float")
        ]
    );

    let found = client.result("workspace/symbol", json!({ "query": "are" }));
    assert_eq!(
        places(
            &client,
            &json!(
                found
                    .as_array()
                    .expect("symbols")
                    .iter()
                    .map(|s| s["location"].clone())
                    .collect::<Vec<_>>()
            )
        ),
        [
            "pkg/shapes.py:3:8-12",
            "pkg/shapes.py:11:8-12",
            "pkg/shapes.py:7:6-12"
        ]
    );
    assert_eq!(found[0]["containerName"], "Shape");

    // `Square` in `Square(k)` (app.py line 6, 0-based 5).
    let definition = client.result("textDocument/definition", client.at("app.py", 5, 16));
    assert_eq!(
        places(&client, &json!([definition])),
        ["pkg/shapes.py:7:6-12"]
    );

    let mut params = client.at("pkg/shapes.py", 7, 7);
    params["context"] = json!({ "includeDeclaration": false });
    let refs = client.result("textDocument/references", params.clone());
    assert_eq!(places(&client, &refs), ["app.py:0:23-29", "app.py:5:15-21"]);

    let hover = client.result("textDocument/hover", client.at("app.py", 8, 6));
    assert_eq!(
        hover["contents"]["value"],
        "```python\ndef total(n: int) -> float\n```\n\nSum of areas.\n\n`app.py:4:total` (lines 4-6)"
    );

    // Call hierarchy of Square.area: called by total; calls nothing.
    let items = client.result(
        "textDocument/prepareCallHierarchy",
        client.at("pkg/shapes.py", 11, 9),
    );
    assert_eq!(items[0]["detail"], "pkg/shapes.py:12:Square.area");
    let incoming = client.result("callHierarchy/incomingCalls", json!({ "item": items[0] }));
    assert_eq!(incoming.as_array().expect("calls").len(), 1);
    assert_eq!(incoming[0]["from"]["detail"], "app.py:4:total");
    assert_eq!(
        incoming[0]["fromRanges"],
        json!([{ "start": { "line": 5, "character": 25 }, "end": { "line": 5, "character": 29 } }])
    );
    let total = client.result(
        "textDocument/prepareCallHierarchy",
        client.at("app.py", 3, 4),
    );
    let outgoing = client.result("callHierarchy/outgoingCalls", json!({ "item": total[0] }));
    let called: Vec<&str> = outgoing
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| c["to"]["detail"].as_str().expect("detail"))
        .collect();
    assert_eq!(
        called,
        ["pkg/shapes.py:12:Square.area", "pkg/shapes.py:8:Square"]
    );

    // Type hierarchy: Square's supertype is Shape; Shape's subtype Square.
    let square = client.result(
        "textDocument/prepareTypeHierarchy",
        client.at("pkg/shapes.py", 7, 7),
    );
    let supertypes = client.result("typeHierarchy/supertypes", json!({ "item": square[0] }));
    assert_eq!(supertypes[0]["detail"], "pkg/shapes.py:1:Shape");
    let subtypes = client.result("typeHierarchy/subtypes", json!({ "item": supertypes[0] }));
    assert_eq!(subtypes[0]["detail"], "pkg/shapes.py:8:Square");
    // A function has no type hierarchy.
    let none = client.result(
        "textDocument/prepareTypeHierarchy",
        client.at("app.py", 3, 4),
    );
    assert_eq!(none, Value::Null);

    // Errors: an unknown method, bad params; nothing at a position is null.
    let unknown = client.request("textDocument/rename", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let bad = client.request("textDocument/definition", json!({ "nope": 1 }));
    assert_eq!(bad["error"]["code"], -32602);
    let blank = client.result("textDocument/definition", client.at("app.py", 2, 0));
    assert_eq!(blank, Value::Null);
    // A binary file (NUL bytes) has no outline, as the CLI refuses it.
    std::fs::write(dir.path().join("bin.py"), b"def f():\x00\n").expect("write");
    let binary = client.result(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": client.uri("bin.py") } }),
    );
    assert_eq!(binary, Value::Null);
    client.stop();
}

#[test]
fn unsaved_edits_are_indexed_from_the_buffer_with_incremental_and_full_sync() {
    let dir = project();
    let mut client = Client::start(dir.path(), None);
    let uri = client.uri("app.py");
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "python", "version": 1, "text": APP } }),
    );
    // Incremental: a new line 10 (0-based 9) with a second Square call;
    // "é" before it checks UTF-16 columns.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{
                "range": { "start": { "line": 9, "character": 0 }, "end": { "line": 9, "character": 0 } },
                "text": "é = Square(2)\n",
            }],
        }),
    );
    let mut params = client.at("pkg/shapes.py", 7, 7);
    params["context"] = json!({ "includeDeclaration": true });
    let refs = client.result("textDocument/references", params.clone());
    assert_eq!(
        places(&client, &refs),
        [
            "pkg/shapes.py:7:6-12",
            "app.py:0:23-29",
            "app.py:5:15-21",
            "app.py:9:4-10"
        ]
    );
    // The disk never had it.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("app.py")).expect("read"),
        APP
    );
    // Full sync: the whole text replaced, without the import.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 3 },
            "contentChanges": [{ "text": "x = 1\n" }],
        }),
    );
    let refs = client.result("textDocument/references", params.clone());
    assert_eq!(places(&client, &refs), ["pkg/shapes.py:7:6-12"]);
    // A buffer with bytes that are not UTF-8 (an editor sends what the
    // buffer holds), then a message that is not JSON: neither ends the
    // session; the text is read with a replacement character.
    let mut body = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{{\"textDocument\":{{\"uri\":\"{uri}\",\"version\":4}},\"contentChanges\":[{{\"text\":\"s = '"
    )
    .into_bytes();
    body.extend_from_slice(b"\xf0\x9d';\\nfrom pkg.shapes import Square\\n\"}]}}");
    client.send_raw(&body);
    client.send_raw(b"{not json");
    let refs = client.result("textDocument/references", params.clone());
    assert_eq!(
        places(&client, &refs),
        ["pkg/shapes.py:7:6-12", "app.py:1:23-29"]
    );
    // Closed unsaved: the disk's version again.
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
    let refs = client.result("textDocument/references", params);
    assert_eq!(
        places(&client, &refs),
        ["pkg/shapes.py:7:6-12", "app.py:0:23-29", "app.py:5:15-21"]
    );
    client.stop();
}

#[test]
fn columns_are_characters_when_the_client_offers_utf32() {
    let dir = project();
    std::fs::write(
        dir.path().join("u.py"),
        "s = \"𝄞\"; é = 2\nfrom pkg.shapes import Shape\n",
    )
    .expect("write");
    let mut client = Client::start(dir.path(), Some(json!(["utf-32", "utf-16"])));
    let refs = {
        let mut params = client.at("pkg/shapes.py", 0, 6);
        params["context"] = json!({ "includeDeclaration": false });
        client.result("textDocument/references", params)
    };
    assert!(places(&client, &refs).contains(&"u.py:1:23-28".to_owned()));
    let symbols = client.result(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": client.uri("u.py") } }),
    );
    // `𝄞` counts one character, two UTF-16 units: `é` is at 9 here, 10 in
    // UTF-16.
    assert_eq!(symbols[1]["name"], "é");
    assert_eq!(symbols[1]["selectionRange"]["start"]["character"], 9);
    client.stop();

    let mut client = Client::start(dir.path(), None);
    let symbols = client.result(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": client.uri("u.py") } }),
    );
    assert_eq!(symbols[1]["selectionRange"]["start"]["character"], 10);
    client.stop();
}

/// The protocol's order, as a client may break it: a request before
/// `initialize` is refused ("not initialized"), one before `initialized`
/// is answered, one after `shutdown` is refused ("invalid request"), and
/// the exit status is 0 after `shutdown`, 1 without (LSP's rule).
#[test]
fn requests_out_of_order_get_errors_and_the_exit_status_follows_shutdown() {
    let dir = project();
    let mut client = Client::spawn(dir.path());
    let early = client.request("workspace/symbol", json!({ "query": "area" }));
    assert_eq!(early["error"]["code"], -32002);
    let uri = format!("file://{}", client.root);
    let init = client.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri, "capabilities": {} }),
    );
    assert!(init.get("result").is_some(), "{init}");
    // No `initialized` yet: answered anyway.
    let found = client.result("workspace/symbol", json!({ "query": "total" }));
    assert_eq!(found[0]["name"], "total");
    let long = client.request("workspace/symbol", json!({ "query": "x".repeat(1_001) }));
    assert_eq!(long["error"]["code"], -32602);
    assert_eq!(client.result("shutdown", Value::Null), Value::Null);
    let late = client.request("workspace/symbol", json!({ "query": "total" }));
    assert_eq!(late["error"]["code"], -32600);
    client.notify("exit", Value::Null);
    assert_eq!(client.child.wait().expect("wait").code(), Some(0));

    let mut client = Client::start(dir.path(), None);
    client.notify("exit", Value::Null);
    assert_eq!(client.child.wait().expect("wait").code(), Some(1));
}

/// A root that is not a directory (the client's root URI names none) is
/// the answer to `initialize`, an error naming it, and not an exit that
/// lost the answer (found by a new-user trial); later requests are refused
/// until `exit`.
#[test]
fn a_root_that_is_no_directory_is_the_answer_to_initialize() {
    let dir = project();
    let mut client = Client::spawn(dir.path());
    let init = client.request(
        "initialize",
        json!({ "processId": null, "rootUri": "file:///nonexistent/ast-outline-root", "capabilities": {} }),
    );
    let message = init["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("/nonexistent/ast-outline-root: not a directory"),
        "{init}"
    );
    let later = client.request("workspace/symbol", json!({ "query": "total" }));
    assert_eq!(later["error"]["code"], -32002, "{later}");
    client.notify("exit", Value::Null);
    drop(client.stdin);
    assert_eq!(client.child.wait().expect("wait").code(), Some(1));
}

/// What a new-user trial found: a change to a document never opened is
/// ignored (it emptied the file's entry); an open ignored file never
/// enters the index; another process that refreshes the shared index from
/// disk does not undo the editor's unsaved text in the answers.
#[test]
fn buffers_keep_to_the_walk_rules_and_survive_another_processs_refresh() {
    let dir = project();
    std::fs::write(dir.path().join(".gitignore"), "ign/\n").expect("write");
    std::fs::create_dir(dir.path().join("ign")).expect("mkdir");
    std::fs::write(dir.path().join("ign/i.py"), "def ignored_fn():\n    pass\n").expect("write");
    let mut client = Client::start(dir.path(), None);
    let app = client.uri("app.py");
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": app, "version": 2 },
            "contentChanges": [{ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "# c\n" }],
        }),
    );
    let mut params = client.at("pkg/shapes.py", 7, 7);
    params["context"] = json!({ "includeDeclaration": false });
    let refs = client.result("textDocument/references", params.clone());
    assert_eq!(places(&client, &refs), ["app.py:0:23-29", "app.py:5:15-21"]);

    let ignored = client.uri("ign/i.py");
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": ignored, "languageId": "python", "version": 1, "text": "def ignored_fn():\n    pass\n" } }),
    );
    assert_eq!(
        client.result("workspace/symbol", json!({ "query": "ignored_fn" })),
        json!([])
    );
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": ignored } }),
    );
    assert_eq!(
        client.result("workspace/symbol", json!({ "query": "ignored_fn" })),
        json!([])
    );

    // The editor moves the calls down three lines; another process then
    // refreshes the same index from disk.
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": app, "languageId": "python", "version": 1, "text": format!("\n\n\n{APP}") } }),
    );
    let refs = client.result("textDocument/references", params.clone());
    assert_eq!(places(&client, &refs), ["app.py:3:23-29", "app.py:8:15-21"]);
    let other = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .arg("index")
        .arg(dir.path())
        .arg("--db")
        .arg(dir.path().join("idx.sqlite"))
        .output()
        .expect("index");
    assert!(
        other.status.success(),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
    let refs = client.result("textDocument/references", params);
    assert_eq!(places(&client, &refs), ["app.py:3:23-29", "app.py:8:15-21"]);
    client.stop();
}

impl Client {
    /// The next `window/showMessage` notification's params (other messages
    /// before it are dropped).
    fn shown_message(&mut self) -> Value {
        loop {
            let message = self.read();
            if message["method"] == "window/showMessage" {
                return message["params"].clone();
            }
        }
    }
}

/// A changed `.ast-outline.toml` takes effect while the server runs and
/// the editor is told (`window/showMessage`): reloaded (information), or
/// a bad file named by file, line and key with the last good settings kept
/// (warning); a file bad at start is said after `initialize`.
#[test]
fn the_server_follows_a_changed_settings_file_and_tells_the_editor() {
    let dir = project();
    let mut client = Client::start(dir.path(), None);
    let settings = format!("{}/.ast-outline.toml", client.root);
    let area = |client: &mut Client| {
        let found = client.result("workspace/symbol", json!({ "query": "area" }));
        found.as_array().map_or(0, Vec::len)
    };
    assert!(area(&mut client) > 0);

    std::fs::write(&settings, "[files]\nexclude = [\"pkg/\"]\n").expect("write");
    assert_eq!(
        client.shown_message(),
        json!({ "type": 3, "message": format!("ast-outline: settings reloaded from {settings}") })
    );
    assert_eq!(area(&mut client), 0);

    std::fs::write(&settings, "[files]\nexclude = [\"pkg/\"]\nexclud = 1\n").expect("write");
    let shown = client.shown_message();
    assert_eq!(shown["type"], 2, "{shown}");
    let message = shown["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "ast-outline: {settings}:3:1: key `files.exclud`: "
        )) && message.ends_with("; keeping the last good settings"),
        "{message}"
    );
    assert_eq!(area(&mut client), 0);

    std::fs::write(&settings, "[files]\nexclude = []\n").expect("write");
    assert_eq!(client.shown_message()["type"], 3);
    assert!(area(&mut client) > 0);
    client.stop();

    std::fs::write(&settings, "[tests]\nindex = 1\n").expect("write");
    let mut client = Client::start(dir.path(), None);
    let shown = client.shown_message();
    assert_eq!(shown["type"], 2, "{shown}");
    let message = shown["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "ast-outline: error: {settings}:2:9: key `tests.index`: "
        )) && message.ends_with("; using the default settings until it is fixed"),
        "{message}"
    );
    assert!(area(&mut client) > 0);
    client.stop();
}

/// Positions at the protocol's largest line and character (u32::MAX) get an
/// answer, not an error, and the server lives on (a new-user trial found an
/// overflow that ended it), in UTF-16 and UTF-32.
#[test]
fn the_largest_positions_are_answered_and_the_server_lives_on() {
    let dir = project();
    for encodings in [None, Some(json!(["utf-32"]))] {
        let mut client = Client::start(dir.path(), encodings);
        for (line, character) in [(u32::MAX, 0), (0, u32::MAX), (u32::MAX, u32::MAX)] {
            for method in [
                "textDocument/definition",
                "textDocument/references",
                "textDocument/hover",
                "textDocument/prepareCallHierarchy",
                "textDocument/prepareTypeHierarchy",
            ] {
                let mut params = client.at("app.py", line, character);
                params["context"] = json!({ "includeDeclaration": true });
                let answer = client.request(method, params);
                assert!(
                    answer.get("error").is_none(),
                    "{method} {line}:{character}: {answer}"
                );
            }
        }
        // Still answering.
        let found = client.result("workspace/symbol", json!({ "query": "total" }));
        assert_eq!(found[0]["name"], "total");
        client.stop();
    }
}
