//! End-to-end tests of `ast-outline mcp`: the binary is started as an MCP
//! server on stdio and driven with real JSON-RPC messages (`initialize`,
//! `tools/list`, `tools/call`), as an agent's client would; plus the `tools`
//! and `prompt` commands, whose definitions must be those the server lists.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};
use tempfile::TempDir;

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ast-outline"))
}

/// A running `ast-outline mcp`, initialized.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    initialized: Value,
}

impl Server {
    /// Starts the server on `root` and performs the MCP handshake.
    fn start(root: &Path) -> Server {
        let mut child = Command::new(binary())
            .args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start ast-outline mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            stdin: Some(stdin),
            stdout,
            next_id: 1,
            initialized: Value::Null,
        };
        server.initialized = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cli-tests", "version": "0"}
            }),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn input(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("input still open")
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input(), "{message}").expect("write to the server");
        self.input().flush().expect("flush");
    }

    /// Sends a request and returns its `result`, failing on a JSON-RPC error.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self
                .stdout
                .read_line(&mut line)
                .expect("read from the server");
            assert!(
                read > 0,
                "the server closed stdout while `{method}` was pending"
            );
            let message: Value = serde_json::from_str(&line).expect("one JSON message a line");
            if message["id"] != json!(id) {
                continue; // a notification
            }
            assert!(
                message.get("error").is_none(),
                "`{method}` failed: {message}"
            );
            return message["result"].clone();
        }
    }

    /// Calls a tool; returns (its text, whether it is a tool error).
    fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text content: {result}"))
            .to_owned();
        (text, result["isError"] == json!(true))
    }

    /// Calls a tool that must succeed; returns its text.
    fn ok(&mut self, tool: &str, arguments: Value) -> String {
        let (text, is_error) = self.call(tool, arguments.clone());
        assert!(!is_error, "{tool}({arguments}) failed: {text}");
        text
    }

    /// Calls a tool that must fail; returns its message.
    fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let (text, is_error) = self.call(tool, arguments.clone());
        assert!(is_error, "{tool}({arguments}) should fail: {text}");
        text
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary tree with `shop/cart.py` and `web/api.ts`.
fn tree() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("project");
    write(&root.join("shop/cart.py"), CART);
    write(
        &root.join("web/api.ts"),
        "export class Api {\n  getTotal(): number {\n    return 1;\n  }\n}\n\nexport function getUser() {}\n",
    );
    write(&dir.path().join("secret.py"), "password = 'hunter2'\n");
    (dir, root)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const CART: &str = "\
import json


class Cart:
    \"\"\"A shopping cart.\"\"\"

    def total(self, tax: float) -> float:
        \"\"\"Sum with tax.\"\"\"
        return sum(self.items) * (1 + tax)

    def clear(self):
        self.items = []
";

/// The token count a result states, checking the footer's form.
fn stated_tokens(text: &str) -> usize {
    let footer = text.lines().last().expect("a footer line");
    let count = footer
        .strip_prefix('[')
        .and_then(|f| f.strip_suffix(" tokens, o200k_base]"))
        .unwrap_or_else(|| panic!("no token footer: {footer:?}"));
    count.parse().expect("a number of tokens")
}

/// The `id=` values of an outline's symbol lines, in order.
fn ids(outline: &str) -> Vec<String> {
    outline
        .lines()
        .filter_map(|l| l.rsplit_once(" id=").map(|(_, id)| id.to_owned()))
        .collect()
}

#[test]
fn initialize_and_list_the_eight_tools_with_schemas_that_teach_the_workflow() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    assert_eq!(server.initialized["serverInfo"]["name"], "ast-outline");
    let instructions = server.initialized["instructions"]
        .as_str()
        .expect("instructions");
    assert!(instructions.contains("get_file_outline") && instructions.contains("read_symbol"));

    let listed = server.request("tools/list", json!({}));
    let tools = listed["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "find_references",
            "find_symbol",
            "find_tests",
            "get_callers",
            "get_context",
            "get_file_outline",
            "get_impact",
            "get_type_hierarchy",
            "read_lines",
            "read_symbol",
            "search_code"
        ]
    );
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    }
    let description = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .and_then(|t| t["description"].as_str())
            .expect("description")
            .to_owned()
    };
    assert!(description("get_file_outline").contains("symbol (a qualname or id)"));
    assert!(description("search_code").contains("each hit lands on its symbol"));
    assert!(description("find_symbol").contains("With path (a file) and line"));
    assert!(description("read_symbol").contains("id"));
    assert!(description("read_lines").contains("300 lines"));
    let outline_schema = &tools
        .iter()
        .find(|t| t["name"] == "get_file_outline")
        .expect("outline tool")["inputSchema"];
    assert_eq!(outline_schema["required"], json!(["path"]));
    for argument in ["depth", "block_threshold", "max_tokens"] {
        assert!(
            outline_schema["properties"].get(argument).is_some(),
            "{argument}"
        );
    }
}

#[test]
fn outline_then_read_by_id_then_read_again_after_an_edit_moved_the_symbol() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    let outline = server.ok("get_file_outline", json!({"path": "shop/cart.py"}));
    assert!(
        outline.starts_with("shop/cart.py (python, 12 lines)\n"),
        "{outline}"
    );
    assert!(
        outline.contains("  L7-9 def total(self, tax: float) -> float — Sum with tax. id=shop/cart.py:7:Cart.total\n"),
        "{outline}"
    );
    assert_eq!(
        ids(&outline),
        [
            "shop/cart.py:4:Cart",
            "shop/cart.py:7:Cart.total",
            "shop/cart.py:11:Cart.clear"
        ]
    );
    let tokens = stated_tokens(&outline);
    assert!((20..200).contains(&tokens), "{tokens} tokens");
    let without_ids = server.ok(
        "get_file_outline",
        json!({"path": "shop/cart.py", "ids": false}),
    );
    let stripped: String = outline
        .lines()
        .map(|l| format!("{}\n", l.split(" id=").next().unwrap_or(l)))
        .filter(|l| !l.starts_with('['))
        .collect();
    assert!(without_ids.starts_with(&stripped), "{without_ids}");
    assert!(stated_tokens(&without_ids) < tokens);

    let read = server.ok(
        "read_symbol",
        json!({"symbol_id": "shop/cart.py:7:Cart.total"}),
    );
    let expected = "\
==> shop/cart.py:7-9 method Cart.total <==
inside: L4-12 class Cart
(only lines 7-9 of shop/cart.py, which has 12 lines; get_file_outline lists the rest)
    def total(self, tax: float) -> float:
        \"\"\"Sum with tax.\"\"\"
        return sum(self.items) * (1 + tax)
";
    assert!(read.starts_with(expected), "{read}");

    // The file changes under the agent: three lines inserted above the class.
    write(
        &root.join("shop/cart.py"),
        &format!("import os\nimport sys\nimport re\n{CART}"),
    );
    let moved = server.ok(
        "read_symbol",
        json!({"symbol_id": "shop/cart.py:7:Cart.total"}),
    );
    assert!(
        moved.starts_with(
            "==> shop/cart.py:10-12 method Cart.total (moved: the id said line 7, it now starts at line 10;"
        ),
        "{moved}"
    );
    assert!(
        moved.contains(
            "    def total(self, tax: float) -> float:\n        \"\"\"Sum with tax.\"\"\"\n"
        ),
        "{moved}"
    );
    assert!(moved.contains("inside: L7-15 class Cart\n"), "{moved}");

    // With context lines.
    let context = server.ok(
        "read_symbol",
        json!({"path": "shop/cart.py", "qualname": "Cart.clear", "context_lines": 1}),
    );
    assert!(context.starts_with("==> shop/cart.py:13-15 method Cart.clear <==\n(with 1 context line around the symbol's lines 14-15)\n"), "{context}");

    // The symbol is renamed: gone, with the nearest name suggested.
    write(
        &root.join("shop/cart.py"),
        &CART.replace("def total(", "def grand_total("),
    );
    let gone = server.refused(
        "read_symbol",
        json!({"symbol_id": "shop/cart.py:7:Cart.total"}),
    );
    assert!(
        gone.starts_with(
            "shop/cart.py:7:Cart.total: the method Cart.total this id named is gone \
             from shop/cart.py (the file changed since the id was issued); did you mean:\n  \
             shop/cart.py:7:Cart.grand_total  L7-9 def grand_total("
        ),
        "{gone}"
    );
}

#[test]
fn paths_outside_the_root_are_refused_with_a_clear_error() {
    let (dir, root) = tree();
    let mut server = Server::start(&root);
    let secret = dir.path().join("secret.py");
    let absolute = server.refused(
        "read_lines",
        json!({"path": secret.to_string_lossy(), "start": 1, "end": 1}),
    );
    assert!(absolute.contains("refused, outside the root"), "{absolute}");
    let dotdot = server.refused("get_file_outline", json!({"path": "../secret.py"}));
    assert!(
        dotdot.contains("refused, `..` leads outside the root"),
        "{dotdot}"
    );
    let by_id = server.refused(
        "read_symbol",
        json!({"symbol_id": "../secret.py:1:password"}),
    );
    assert!(by_id.contains("refused"), "{by_id}");
    let search = server.refused("find_symbol", json!({"pattern": "password", "path": ".."}));
    assert!(search.contains("refused"), "{search}");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, root.join("link.py")).expect("symlink");
        let link = server.refused(
            "read_lines",
            json!({"path": "link.py", "start": 1, "end": 1}),
        );
        assert!(
            link.contains("a symbolic link leads outside the root"),
            "{link}"
        );
    }
    let missing = server.refused("get_file_outline", json!({"path": "shop/none.py"}));
    assert!(
        missing.starts_with("shop/none.py: no such file"),
        "{missing}"
    );
}

#[test]
fn read_lines_is_capped_with_a_note_pointing_to_the_outline() {
    let (_dir, root) = tree();
    let text: String = (1..=500).map(|i| format!("x{i} = {i}\n")).collect();
    write(&root.join("long.py"), &text);
    let mut server = Server::start(&root);
    let lines = server.ok(
        "read_lines",
        json!({"path": "long.py", "start": 2, "end": 500}),
    );
    assert!(
        lines.starts_with("==> long.py:2-301 <==\nx2 = 2\n"),
        "{}",
        &lines[..80]
    );
    assert!(
        lines.contains("x301 = 301\n(cut at 300 lines: asked for 2-500."),
        "cut note"
    );
    assert!(lines.contains("get_file_outline(path=\"long.py\")"));
    assert!(lines.contains("continue with start=302"));
    assert!(!lines.contains("x302 = 302"));
    let few = server.ok(
        "read_lines",
        json!({"path": "long.py", "start": 499, "end": 900}),
    );
    assert!(
        few.starts_with(
            "==> long.py:499-500 <==\nx499 = 499\nx500 = 500\n\
             (asked for 499-900; long.py ends at line 500)\n["
        ),
        "{few}"
    );
    let past = server.refused(
        "read_lines",
        json!({"path": "long.py", "start": 501, "end": 502}),
    );
    assert_eq!(past, "long.py: has 500 lines; nothing at line 501");
    let reversed = server.refused(
        "read_lines",
        json!({"path": "long.py", "start": 9, "end": 2}),
    );
    assert!(reversed.contains("reversed"), "{reversed}");
}

#[test]
fn find_symbol_by_substring_and_glob_across_the_tree() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    let found = server.ok("find_symbol", json!({"pattern": "total"}));
    assert!(
        found.starts_with(
            "2 matches for `total` in 2 files under . (searched 2 files; read one with \
             read_symbol(symbol_id)):\n"
        ),
        "{found}"
    );
    // The exact name first, then in path and source order.
    let lines: Vec<&str> = found.lines().skip(1).take(2).collect();
    assert!(
        lines[0].starts_with("shop/cart.py:7:Cart.total  L7-9 def total("),
        "{found}"
    );
    assert!(
        lines[1].starts_with("web/api.ts:2:Api.getTotal  L2-4 "),
        "{found}"
    );

    let glob = server.ok("find_symbol", json!({"pattern": "get*", "path": "web"}));
    assert!(
        glob.starts_with("2 matches for `get*` in 1 file under web (searched 1 file;"),
        "{glob}"
    );
    assert!(glob.contains("web/api.ts:7:getUser  "), "{glob}");

    let none = server.ok("find_symbol", json!({"pattern": "nothing_like_it"}));
    assert!(
        none.starts_with("no symbol matches `nothing_like_it` in 2 files under ."),
        "{none}"
    );
}

#[test]
fn a_directory_outline_is_cut_by_depth_to_fit_max_tokens_with_a_note() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    let full = server.ok("get_file_outline", json!({"path": "."}));
    assert!(full.contains("shop/cart.py (python") && full.contains("web/api.ts (typescript"));
    assert!(full.contains("id=web/api.ts:2:Api.getTotal"), "{full}");
    let full_tokens = stated_tokens(&full);

    // A little less than the full outline: names and lines only, every level.
    let budget = full_tokens - 10;
    let cut = server.ok(
        "get_file_outline",
        json!({"path": ".", "max_tokens": budget}),
    );
    assert!(
        cut.contains("(names and lines only, to fit max_tokens="),
        "{cut}"
    );
    assert!(
        cut.contains("L4-12 class Cart\n  L7-9 method total\n"),
        "{cut}"
    );
    assert!(
        cut.contains("L1-5 class Api\n  L2-4 method getTotal\n"),
        "{cut}"
    );
    assert!(!cut.contains("id=") && !cut.contains("imports:"), "{cut}");
    assert!(stated_tokens(&cut) <= budget, "{cut}");

    // Smaller than even the top level: whole lines are kept, and it says so.
    let tiny = server.ok("get_file_outline", json!({"path": ".", "max_tokens": 60}));
    assert!(
        tiny.contains("lines of the top level to fit max_tokens=60"),
        "{tiny}"
    );
    assert!(tiny.contains("L4-12 class Cart\n"), "{tiny}");
    assert!(stated_tokens(&tiny) <= 60, "{tiny}");

    // Whatever the budget: a result within it that says it was cut, or an error.
    for budget in (1..full_tokens + 5).step_by(3) {
        let (text, is_error) = server.call(
            "get_file_outline",
            json!({"path": ".", "max_tokens": budget}),
        );
        if is_error {
            assert!(text.contains("is too small"), "{budget}: {text}");
            continue;
        }
        let tokens = stated_tokens(&text);
        assert!(
            tokens <= budget,
            "max_tokens={budget} gave {tokens} tokens:\n{text}"
        );
        assert_eq!(
            text.contains("(cut ") || text.contains("(names and lines only"),
            budget < full_tokens,
            "{budget}: {text}"
        );
    }

    let too_small = server.refused("get_file_outline", json!({"path": ".", "max_tokens": 5}));
    assert!(
        too_small.starts_with("max_tokens=5 is too small for the first line of this outline with the note saying what was cut ("),
        "{too_small}"
    );
    // The budget it names is enough (it said "the first line" when the
    // note was what did not fit: a new-user trial).
    let named: usize = too_small
        .split("was cut (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count");
    let enough = server.ok(
        "get_file_outline",
        json!({"path": ".", "max_tokens": named}),
    );
    assert!(
        enough.contains("cut after 1 of 6 lines of the top level"),
        "{enough}"
    );
    assert!(stated_tokens(&enough) <= named, "{enough}");

    let depth = server.ok("get_file_outline", json!({"path": "shop", "depth": 1}));
    assert!(
        !depth.contains("Cart.total") && !depth.contains("cut to"),
        "{depth}"
    );
}

#[test]
fn tools_prints_the_definitions_the_server_lists_in_three_formats() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    let listed = server.request("tools/list", json!({}));
    let run = |format: &str| -> Value {
        let output = Command::new(binary())
            .args(["tools", "--format", format])
            .output()
            .expect("run ast-outline tools");
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let mcp = run("mcp");
    let by_name = |tools: &Value| -> Vec<(String, Value)> {
        let mut all: Vec<(String, Value)> = tools
            .as_array()
            .expect("array")
            .iter()
            .map(|t| (t["name"].as_str().unwrap_or_default().to_owned(), t.clone()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    };
    assert_eq!(by_name(&mcp["tools"]), by_name(&listed["tools"]));
    let names: Vec<&str> = mcp["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "search_code",
            "get_file_outline",
            "read_symbol",
            "find_symbol",
            "read_lines",
            "find_references",
            "get_callers",
            "get_type_hierarchy",
            "get_context",
            "find_tests",
            "get_impact"
        ]
    );

    let openai = run("openai");
    let anthropic = run("anthropic");
    for (i, tool) in listed_in_order(&mcp).iter().enumerate() {
        // Misspelled arguments are refused, so the schemas say so.
        assert_eq!(
            tool["inputSchema"]["additionalProperties"],
            json!(false),
            "{tool}"
        );
        let mut schema = tool["inputSchema"].clone();
        schema.as_object_mut().expect("object").remove("$schema");
        assert_eq!(openai[i]["type"], "function");
        assert_eq!(openai[i]["function"]["name"], tool["name"]);
        assert_eq!(openai[i]["function"]["description"], tool["description"]);
        assert_eq!(openai[i]["function"]["parameters"], schema);
        assert_eq!(anthropic[i]["name"], tool["name"]);
        assert_eq!(anthropic[i]["description"], tool["description"]);
        assert_eq!(anthropic[i]["input_schema"], schema);
    }

    let prompt = Command::new(binary())
        .arg("prompt")
        .output()
        .expect("run ast-outline prompt");
    let prompt = String::from_utf8(prompt.stdout).expect("UTF-8");
    assert_eq!(
        prompt.trim_end(),
        server.initialized["instructions"]
            .as_str()
            .expect("instructions")
    );
}

fn listed_in_order(mcp: &Value) -> Vec<Value> {
    mcp["tools"].as_array().expect("tools").clone()
}

/// `json/decoder.py`'s shape: a module-level `try` block, a function with
/// blocks, and a property with a setter (two symbols sharing a qualname).
const DECODER: &str = "\
\"\"\"Doc.\"\"\"
try:
    from _json import scanstring as c_scanstring
except ImportError:
    c_scanstring = None


def scan(s, end):
    chunks = []
    while 1:
        chunk = match(s, end)
        if chunk is None:
            raise ValueError(end)
        end = chunk.end()
        if chunk == '\"':
            break
    return chunks


class T:
    @property
    def c(self):
        return 1

    @c.setter
    def c(self, v):
        pass
";

#[test]
fn a_block_id_after_an_edit_reads_that_block_at_its_new_lines_never_the_function() {
    let (_dir, root) = tree();
    write(&root.join("dec.py"), DECODER);
    let mut server = Server::start(&root);
    let outline = server.ok(
        "get_file_outline",
        json!({"path": "dec.py", "block_threshold": 2}),
    );
    assert!(
        outline.contains("if chunk is None id=dec.py:12:scan\n"),
        "{outline}"
    );
    // Unchanged file, wrong line: no claim that the file changed.
    let wrong = server.ok("read_symbol", json!({"symbol_id": "dec.py:99999:scan"}));
    assert!(
        wrong.starts_with(
            "==> dec.py:8-17 function scan (found by qualname: the id said line 99999; it starts at line 8) <==\n"
        ),
        "{wrong}"
    );
    // A module-level block id that names no block: suggested, not taken.
    let no_block = server.refused("read_symbol", json!({"symbol_id": "dec.py:42:"}));
    assert!(
        no_block.starts_with("dec.py:42:: no such symbol in dec.py; did you mean:\n  dec.py:2:  L2-5 block `try` in module level"),
        "{no_block}"
    );
    // Five lines inserted at the top.
    write(&root.join("dec.py"), &format!("#\n#\n#\n#\n#\n{DECODER}"));
    let block = server.ok("read_symbol", json!({"symbol_id": "dec.py:12:scan"}));
    assert!(
        block.starts_with(
            "==> dec.py:17-18 block `if chunk is None` in scan (moved: the id said line 12, \
             it now starts at line 17; the file changed since the id was issued) <==\n\
             inside: L13-22 def scan(s, end)\n"
        ),
        "{block}"
    );
    assert!(
        block.contains(
            "(only lines 17-18 of dec.py, which has 32 lines; get_file_outline lists the rest)\n        \
             if chunk is None:\n            raise ValueError(end)\n"
        ),
        "{block}"
    );
    // The setter (second of two symbols named T.c) is found precisely.
    let setter = server.ok("read_symbol", json!({"symbol_id": "dec.py:25:T.c"}));
    assert!(
        setter.starts_with(
            "==> dec.py:30-32 method T.c (moved: the id said line 25, it now starts at line 30;"
        ),
        "{setter}"
    );
    assert!(setter.contains("    def c(self, v):\n"), "{setter}");
    // The block removed: gone, never the function.
    write(
        &root.join("dec.py"),
        &DECODER.replace(
            "        if chunk is None:\n            raise ValueError(end)\n",
            "",
        ),
    );
    let gone = server.refused("read_symbol", json!({"symbol_id": "dec.py:12:scan"}));
    assert!(
        gone.starts_with("dec.py:12:scan: the block `if chunk is None` in scan this id named is gone from dec.py (the file changed since the id was issued); did you mean:\n  dec.py:10:scan  L10-14 block `while 1` in scan"),
        "{gone}"
    );
}

#[test]
fn without_the_outline_an_id_was_issued_from_candidates_are_listed_not_guessed() {
    let (_dir, root) = tree();
    write(&root.join("dec.py"), &format!("#\n#\n{DECODER}"));
    // A fresh server never served the file: the setter's old id names one of two.
    let mut server = Server::start(&root);
    let both = server.refused("read_symbol", json!({"symbol_id": "dec.py:25:T.c"}));
    assert!(
        both.starts_with("dec.py:25:T.c: 2 symbols match; read one by its id:\n  dec.py:23:T.c  L23-25 @property def c(self)\n  dec.py:27:T.c  L27-29 @c.setter def c(self, v)"),
        "{both}"
    );
}

impl Server {
    /// Sends `line` as is and returns the next message the server writes.
    fn raw(&mut self, line: &[u8]) -> Value {
        let input = self.input();
        input.write_all(line).expect("write");
        input.write_all(b"\n").expect("write");
        input.flush().expect("flush");
        let mut reply = String::new();
        let read = self.stdout.read_line(&mut reply).expect("read");
        assert!(read > 0, "the server closed stdout");
        serde_json::from_str(&reply).expect("one JSON message a line")
    }
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_keeps_serving() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    let reply = server.raw(b"{not json");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    // A blank line is ignored: the next answer is the next line's.
    let reply = server.raw(b"\n[1, 2");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let reply = server.raw(deep.as_bytes());
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{{"name":"find_symbol","arguments":{{"pattern":"{}"}}}}}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    let reply = server.raw(huge.as_bytes());
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("longer than 16777216 bytes")),
        "{reply}"
    );
    let reply = server.raw(br#"{"jsonrpc":"2.0","id":41}"#);
    assert_eq!(reply["id"], 41, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    let listed = server.request("tools/list", json!({}));
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(11));
}

#[test]
fn the_server_stops_when_its_input_closes() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    server.stdin = None;
    let mut status = None;
    for _ in 0..100 {
        status = server.child.try_wait().expect("wait");
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

#[test]
fn read_symbol_is_capped_and_points_to_the_parts_ids() {
    let (_dir, root) = tree();
    let methods: String = (0..40)
        .map(|i| format!("    def m{i}(self):\n{}", "        x = 1\n".repeat(9)))
        .collect();
    write(&root.join("big.py"), &format!("class Big:\n{methods}"));
    let mut server = Server::start(&root);
    // Longer than max_lines, with parts: its lines with each part folded
    // to one line ending in the part's id, the whole class in 41 lines.
    let big = server.ok("read_symbol", json!({"symbol_id": "big.py:1:Big"}));
    assert!(
        big.starts_with(
            "==> big.py:1-401 class Big <==\n(the symbol has 401 lines, more than \
             max_lines=300: its lines are shown with its 40 parts folded to one line each, \
             ending in the part's id; read a part with read_symbol(symbol_id), or raise \
             max_lines (at most 2000) to read it whole)\nL1: class Big:\n\
             L2-11:     def m0(self):  ⋯ method big.py:2:Big.m0\n\
             L12-21:     def m1(self):  ⋯ method big.py:12:Big.m1\n"
        ),
        "{big}"
    );
    assert!(
        big.contains("\nL392-401:     def m39(self):  ⋯ method big.py:392:Big.m39\n["),
        "{big}"
    );
    assert_eq!(big.matches("  ⋯ method big.py:").count(), 40);
    assert!(!big.contains("x = 1"), "{big}");
    // Folded, and still longer than max_lines: cut, with where to go on.
    let short = server.ok(
        "read_symbol",
        json!({"symbol_id": "big.py:1:Big", "max_lines": 3}),
    );
    assert!(
        short.contains(
            "L12-21:     def m1(self):  ⋯ method big.py:12:Big.m1\n(cut at 3 lines of the folded \
             symbol: it runs to line 401; continue with read_lines(path=\"big.py\", start=22, \
             end=401))\n"
        ),
        "{short}"
    );
    // context_lines cannot get round the cap.
    let context = server.ok(
        "read_symbol",
        json!({"symbol_id": "big.py:12:Big.m1", "context_lines": 100000}),
    );
    assert!(
        context.starts_with("==> big.py:1-300 method Big.m1 <==\n(with 11 context lines before and 279 after the symbol's lines 12-21)\n"),
        "{}",
        &context[..200]
    );
    // Context never pushes the symbol out of the lines shown (found by a
    // new-user trial: the 300 lines before the last method, and not it).
    let last = server.ok(
        "read_symbol",
        json!({"symbol_id": "big.py:392:Big.m39", "context_lines": 100000}),
    );
    assert!(
        last.starts_with("==> big.py:102-401 method Big.m39 <==\n(with 290 context lines before and 0 after the symbol's lines 392-401)\n"),
        "{}",
        &last[..200]
    );
    assert!(last.contains("    def m39(self):\n"), "{last}");
    assert!(!last.contains("(cut at"), "{last}");
    // A symbol longer than max_lines gets no context, and the note names
    // its own last line.
    let cut = server.ok(
        "read_symbol",
        json!({"symbol_id": "big.py:12:Big.m1", "context_lines": 5, "max_lines": 8}),
    );
    assert!(
        cut.starts_with("==> big.py:12-19 method Big.m1 <==\n"),
        "{cut}"
    );
    assert!(
        cut.contains(
            "(cut at 8 lines: the symbol runs to line 21. Continue with \
             read_lines(path=\"big.py\", start=20) or raise max_lines (at most 2000))\n"
        ),
        "{cut}"
    );
    let few = server.ok(
        "read_symbol",
        json!({"symbol_id": "big.py:12:Big.m1", "max_lines": 1}),
    );
    assert!(
        few.contains("    def m1(self):\n(cut at 1 line: the symbol runs to line 21."),
        "{few}"
    );
    let zero = server.refused(
        "read_symbol",
        json!({"symbol_id": "big.py:12:Big.m1", "max_lines": 0}),
    );
    assert_eq!(zero, "max_lines must be at least 1 (got 0)");
    // A 9 MB pattern is refused, not echoed.
    let long = server.refused("find_symbol", json!({"pattern": "x".repeat(9_000_000)}));
    assert_eq!(
        long,
        "pattern is 9000000 characters long; at most 1000: give a name, a qualified name or a glob"
    );
}

#[test]
fn bad_arguments_and_odd_files_get_errors_that_say_what_is_wrong() {
    let (_dir, root) = tree();
    write(&root.join("bin.py"), "ab\0cd\n");
    write(&root.join("one.py"), "x = 1\n");
    write(
        &root.join("i.rs"),
        "struct Index;\nimpl From<usize> for Index {\n    fn from(_: usize) -> Self { Index }\n}\n",
    );
    write(
        &root.join("doc.ts"),
        "const a = 1;\n/** Doc. */\nexport function f() {\n  return 1;\n}\n",
    );
    let mut server = Server::start(&root);
    for (args, argument) in [
        (json!({"path": ".", "max_tokens": 0}), "max_tokens"),
        (json!({"path": ".", "depth": 0}), "depth"),
        (
            json!({"path": ".", "block_threshold": 0}),
            "block_threshold",
        ),
    ] {
        let refused = server.refused("get_file_outline", args);
        assert_eq!(refused, format!("{argument} must be at least 1 (got 0)"));
    }
    let zero = server.refused(
        "read_lines",
        json!({"path": "one.py", "start": 1, "end": 1, "max_lines": 0}),
    );
    assert_eq!(zero, "max_lines must be at least 1 (got 0)");
    // Misspelled and mistyped arguments are errors naming the argument.
    let misspelled = server.refused("get_file_outline", json!({"path": ".", "maxtokens": 10}));
    assert!(
        misspelled.contains("unknown field `maxtokens`, expected one of `path`"),
        "{misspelled}"
    );
    let mistyped = server.refused("get_file_outline", json!({"path": ".", "depth": "x"}));
    assert!(
        mistyped.ends_with("argument `depth`: invalid type: string \"x\", expected u32"),
        "{mistyped}"
    );
    let both = server.refused(
        "read_symbol",
        json!({"symbol_id": "one.py:1:x", "path": "one.py", "qualname": "x"}),
    );
    assert_eq!(
        both,
        "give either symbol_id, or path and qualname, not both"
    );

    let missing = server.refused(
        "read_lines",
        json!({"path": "none.py", "start": 1, "end": 1}),
    );
    assert_eq!(missing, "none.py: no such file or directory");
    let binary = server.refused(
        "read_lines",
        json!({"path": "bin.py", "start": 1, "end": 1}),
    );
    assert_eq!(
        binary,
        "bin.py: looks binary (contains NUL bytes); not read"
    );
    let malformed = server.refused("read_symbol", json!({"symbol_id": "one.py:abc:X"}));
    assert_eq!(
        malformed,
        "one.py:abc:X: malformed id: `abc` is not a line number; an id is \
         PATH:START_LINE:QUALNAME (`one.py:42:Name`)"
    );
    let one = server.ok("read_symbol", json!({"symbol_id": "one.py:1:x"}));
    assert!(
        one.contains("(only lines 1-1 of one.py, which has 1 line;"),
        "{one}"
    );
    let past = server.ok(
        "read_lines",
        json!({"path": "one.py", "start": 1, "end": 70}),
    );
    assert!(
        past.starts_with("==> one.py:1-1 <==\nx = 1\n(asked for 1-70; one.py ends at line 1)\n"),
        "{past}"
    );
    let beyond = server.refused(
        "read_lines",
        json!({"path": "one.py", "start": 9, "end": 9}),
    );
    assert_eq!(beyond, "one.py: has 1 line; nothing at line 9");
    // The kind word is not doubled for an impl.
    let imp = server.ok(
        "read_symbol",
        json!({"symbol_id": "i.rs:2:impl From<usize> for Index"}),
    );
    assert!(
        imp.starts_with("==> i.rs:2-4 impl From<usize> for Index <==\n"),
        "{imp}"
    );
    // A preceding doc comment is printed and named in the header.
    let doc = server.ok("read_symbol", json!({"symbol_id": "doc.ts:3:f"}));
    assert!(
        doc.starts_with("==> doc.ts:2-5 function f (doc comment from line 2) <==\n"),
        "{doc}"
    );
    assert!(
        doc.contains("/** Doc. */\nexport function f() {\n"),
        "{doc}"
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_fifos_are_named_for_what_they_are() {
    let (_dir, root) = tree();
    std::os::unix::fs::symlink("loop2.py", root.join("loop1.py")).expect("symlink");
    std::os::unix::fs::symlink("loop1.py", root.join("loop2.py")).expect("symlink");
    let fifo = root.join("fifo.py");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut server = Server::start(&root);
    let looped = server.refused(
        "read_lines",
        json!({"path": "loop1.py", "start": 1, "end": 1}),
    );
    assert_eq!(
        looped,
        "loop1.py: cannot be reached: too many levels of symbolic links"
    );
    let fifo = server.refused("read_symbol", json!({"symbol_id": "fifo.py:1:x"}));
    assert_eq!(
        fifo,
        "fifo.py: not a regular file (a FIFO, socket or device); only files can be read"
    );
}

#[test]
fn same_named_rust_macro_calls_are_told_apart_after_an_edit() {
    let (_dir, root) = tree();
    let text = "ast_struct! {\n    pub struct A {\n        x: u8,\n    }\n}\n\nast_struct! {\n    pub struct B {\n        y: u8,\n    }\n}\n";
    write(&root.join("m.rs"), text);
    let mut server = Server::start(&root);
    let outline = server.ok("get_file_outline", json!({"path": "m.rs"}));
    assert!(outline.contains("id=m.rs:7:ast_struct!\n"), "{outline}");
    write(&root.join("m.rs"), &format!("// a comment\n{text}"));
    let second = server.ok("read_symbol", json!({"symbol_id": "m.rs:7:ast_struct!"}));
    assert!(
        second.starts_with(
            "==> m.rs:8-12 macro ast_struct! (moved: the id said line 7, it now starts at line 8;"
        ),
        "{second}"
    );
    assert!(second.contains("    pub struct B {\n"), "{second}");
    // A server that never served the old version lists both.
    let mut fresh = Server::start(&root);
    let both = fresh.refused("read_symbol", json!({"symbol_id": "m.rs:7:ast_struct!"}));
    assert!(
        both.starts_with(
            "m.rs:7:ast_struct!: 2 symbols match; read one by its id:\n  m.rs:2:ast_struct!"
        ),
        "{both}"
    );
}

#[test]
fn a_cut_outline_fills_the_budget_with_whole_members_of_the_next_level_in_source_order() {
    let (_dir, root) = tree();
    let classes = ["Alpha", "Beta", "Gamma", "Delta"];
    let text: String = classes
        .iter()
        .map(|class| {
            let methods: String = (0..12)
                .map(|i| {
                    format!(
                        "    def {}_{i}(self, value: int) -> int:\n        return value\n\n",
                        class.to_lowercase()
                    )
                })
                .collect();
            format!("class {class}:\n    \"\"\"The {class} class.\"\"\"\n\n{methods}\n")
        })
        .collect();
    write(&root.join("many.py"), &text);
    let mut server = Server::start(&root);
    let top = stated_tokens(&server.ok("get_file_outline", json!({"path": "many.py", "depth": 1})));
    let full = stated_tokens(&server.ok("get_file_outline", json!({"path": "many.py"})));
    let mut fills = Vec::new();
    for budget in (top + 80..full).step_by(37) {
        let cut = server.ok(
            "get_file_outline",
            json!({"path": "many.py", "max_tokens": budget}),
        );
        assert!(stated_tokens(&cut) <= budget, "{budget}: {cut}");
        // Whole classes' members, in source order: a prefix of the classes.
        // Names and lines only (no ids) once the full outline does not fit.
        let shown: Vec<usize> = classes
            .iter()
            .map(|class| {
                cut.matches(&format!(" method {}_", class.to_lowercase()))
                    .count()
            })
            .collect();
        let complete = shown.iter().take_while(|n| **n == 12).count();
        assert!(
            shown[complete..].iter().all(|n| *n == 0),
            "{budget}: members shown per class {shown:?}\n{cut}"
        );
        assert!(!cut.contains("id="), "{budget}: {cut}");
        if complete == 4 {
            assert!(
                cut.contains("(names and lines only, to fit max_tokens="),
                "{budget}: {cut}"
            );
        } else {
            assert!(
                cut.contains("(names and lines only, cut to depth 1 of 2 to fit max_tokens="),
                "{budget}: {cut}"
            );
        }
        if (1..4).contains(&complete) {
            assert!(
                cut.contains(&format!(
                    "level 2 is shown for the first {complete} of 4 symbols that have members there"
                )),
                "{budget}: {cut}"
            );
        }
        // A single file: the advice is to read or focus on a symbol, not to
        // outline a single file.
        assert!(
            cut.contains("get_file_outline(path, symbol=qualname)")
                && cut.contains("or raise max_tokens)")
                && !cut.contains("outline a single file"),
            "{cut}"
        );
        fills.push(complete);
    }
    // The larger the budget, the more classes' members; some budgets fill.
    assert!(fills.windows(2).all(|w| w[0] <= w[1]), "{fills:?}");
    assert!(fills.iter().any(|n| (2..4).contains(n)), "{fills:?}");
    assert_eq!(fills.last(), Some(&4), "{fills:?}");
}

/// A small project for the cross-file tools: a base class, a subclass that
/// calls the base's method through `self`, and a module that uses both.
fn project_with_calls() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("project");
    write(&root.join("app/__init__.py"), "");
    write(
        &root.join("app/models.py"),
        "class Base:\n    def save(self):\n        return 1\n\n\nclass User(Base):\n    def greet(self):\n        return self.save()\n",
    );
    write(
        &root.join("app/signup.py"),
        "from app.models import User\n\n\ndef signup():\n    u = User()\n    u.greet()\n    return u.save()\n",
    );
    (dir, root)
}

/// The `L<line>:<col> <role> <name> in <caller>` parts of a result's
/// reference lines, with the file they are listed under.
fn reference_lines(text: &str) -> Vec<String> {
    let mut file = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(reference) = line.strip_prefix("  L") {
            let head = reference.split(" [").next().unwrap_or_default();
            out.push(format!("{file}:{head}"));
        } else if !line.starts_with(' ') && !line.contains(' ') {
            file = line.to_owned();
        }
    }
    out
}

#[test]
fn cross_file_tools_answer_from_an_index_that_follows_edits() {
    let (_dir, root) = project_with_calls();
    let mut server = Server::start(&root);

    let refs = server.ok(
        "find_references",
        json!({"target": "app/models.py:Base.save"}),
    );
    assert!(
        refs.starts_with("refs to app/models.py:2:Base.save (method Base.save, L2-3"),
        "{refs}"
    );
    assert_eq!(
        reference_lines(&refs),
        [
            "app/models.py:8:21 call self.save in User.greet",
            "app/signup.py:7:14 call u.save in signup"
        ]
    );
    assert!(root.join(".ast-outline/index.sqlite").is_file());

    let callers = server.ok(
        "get_callers",
        json!({"target": "app/models.py:2:Base.save", "depth": 2}),
    );
    assert_eq!(
        reference_lines(&callers),
        [
            "app/models.py:8:21 call self.save in User.greet",
            "app/signup.py:7:14 call u.save in signup",
            "app/signup.py:6:7 call u.greet in signup"
        ]
    );
    assert!(callers.contains("depth 2:\n"), "{callers}");

    let callees = server.ok(
        "get_callers",
        json!({"target": "app/signup.py:signup", "direction": "outgoing"}),
    );
    for expected in [
        "L5:9 instantiate User in signup [exact via import] -> app/models.py:6:User",
        "L6:7 call u.greet in signup [inferred via receiver] -> app/models.py:7:User.greet",
        "L7:14 call u.save in signup [inferred via receiver] -> app/models.py:2:Base.save",
    ] {
        assert!(callees.contains(expected), "{expected}\n{callees}");
    }

    let hierarchy = server.ok(
        "get_type_hierarchy",
        json!({"target": "app/models.py:Base"}),
    );
    assert!(
        hierarchy.contains("subtypes: 1\n  app/models.py:6:User (class User, L6-8"),
        "{hierarchy}"
    );

    // The position of `greet` in `u.greet()`: its definition and its caller's code.
    let context = server.ok(
        "get_context",
        json!({"target": "app/signup.py:6:7", "kind": "callers"}),
    );
    assert!(
        context.starts_with("context of app/models.py:7:User.greet (method User.greet), callers"),
        "{context}"
    );
    assert!(
        context.contains("[caller] signup app/signup.py:4-7 (calls at L6:7)\ndef signup():\n"),
        "{context}"
    );

    // An edit adds a caller in a new file: the next answer lists it.
    write(
        &root.join("app/admin.py"),
        "from app.models import Base\n\n\ndef reset(b: Base):\n    b.save()\n",
    );
    let refs = server.ok(
        "find_references",
        json!({"target": "app/models.py:Base.save"}),
    );
    assert_eq!(
        reference_lines(&refs),
        [
            "app/admin.py:5:7 call b.save in reset",
            "app/models.py:8:21 call self.save in User.greet",
            "app/signup.py:7:14 call u.save in signup"
        ]
    );
    // …and a deleted caller goes away.
    std::fs::remove_file(root.join("app/signup.py")).expect("remove");
    let refs = server.ok(
        "find_references",
        json!({"target": "app/models.py:Base.save"}),
    );
    assert_eq!(
        reference_lines(&refs),
        [
            "app/admin.py:5:7 call b.save in reset",
            "app/models.py:8:21 call self.save in User.greet"
        ]
    );
}

#[test]
fn get_context_kind_siblings_ranks_the_code_shaped_like_the_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("project");
    write(&root.join("handlers/__init__.py"), "");
    write(
        &root.join("handlers/base.py"),
        "class BaseHandler:\n    pass\n\n\ndef route(path):\n    return lambda cls: cls\n",
    );
    write(
        &root.join("handlers/user.py"),
        "from .base import BaseHandler, route\n\n\n@route(\"/users\")\nclass UserHandler(BaseHandler):\n    \
         def get(self, request):\n        return 1\n",
    );
    write(
        &root.join("handlers/order.py"),
        "from .base import BaseHandler, route\n\n\n@route(\"/orders\")\nclass OrderHandler(BaseHandler):\n    \
         def get(self, request):\n        return 2\n",
    );
    write(
        &root.join("handlers/config.py"),
        "class Config:\n    debug = False\n",
    );
    let mut server = Server::start(&root);
    let text = server.ok(
        "get_context",
        json!({"target": "handlers/user.py:UserHandler", "kind": "siblings"}),
    );
    assert!(
        text.starts_with(
            "context of handlers/user.py:4:UserHandler (class UserHandler), siblings\n\
             target: @route(\"/users\") class UserHandler(BaseHandler)\n\
             3 siblings in handlers/user.py and the other files of handlers/, best first:\n\n\
             1. handlers/order.py:4:OrderHandler L4-7\n   \
             @route(\"/orders\") class OrderHandler(BaseHandler)\n   \
             why (11): same kind · base BaseHandler · decorator @route · suffix Handler\n\
             @route(\"/orders\")\nclass OrderHandler(BaseHandler):\n"
        ),
        "{text}"
    );
    let config = text.find("handlers/config.py:1:Config").expect(&text);
    let base = text.find("handlers/base.py:1:BaseHandler").expect(&text);
    assert!(base < config, "{text}");
    // Within max_tokens, with what was left out said.
    let budget = stated_tokens(&text) / 2;
    let cut = server.ok(
        "get_context",
        json!({"target": "handlers/user.py:UserHandler", "kind": "siblings", "max_tokens": budget}),
    );
    assert!(stated_tokens(&cut) <= budget, "{cut}");
    assert!(
        cut.contains("more left out to stay within the token budget]"),
        "{cut}"
    );
    // An unknown kind is refused, naming the kinds.
    let bad = server.refused(
        "get_context",
        json!({"target": "handlers/user.py:UserHandler", "kind": "cousins"}),
    );
    assert!(bad.contains("siblings"), "{bad}");
}

#[test]
fn cross_file_tools_refuse_bad_arguments_and_cut_to_max_tokens() {
    let (_dir, root) = project_with_calls();
    let mut server = Server::start(&root);
    let missing = server.refused("find_references", json!({"target": "nope.py:X"}));
    assert!(
        missing.contains("no indexed file") && missing.contains("relative to the root"),
        "{missing}"
    );
    let unknown = server.refused("find_references", json!({"target": "app/models.py:Nope"}));
    assert!(
        unknown.contains("no definition named Nope in app/models.py"),
        "{unknown}"
    );
    let zero = server.refused(
        "get_callers",
        json!({"target": "app/models.py:Base.save", "depth": 0}),
    );
    assert!(zero.contains("depth must be at least 1"), "{zero}");
    let deep = server.refused(
        "get_callers",
        json!({"target": "app/models.py:Base.save", "depth": 11}),
    );
    assert!(deep.contains("at most 10"), "{deep}");
    let mixed = server.refused(
        "get_callers",
        json!({"target": "app/models.py:Base.save", "direction": "outgoing", "depth": 2}),
    );
    assert!(mixed.contains("incoming calls only"), "{mixed}");
    let direction = server.refused(
        "get_callers",
        json!({"target": "app/models.py:Base.save", "direction": "up"}),
    );
    assert!(direction.contains("direction"), "{direction}");
    let tiny = server.refused(
        "get_context",
        json!({"target": "app/models.py:Base.save", "max_tokens": 5}),
    );
    assert!(
        tiny.starts_with("max_tokens=5 tokens is too small"),
        "{tiny}"
    );

    // A budget smaller than the list cuts it after whole lines and says so.
    let full = server.ok(
        "find_references",
        json!({"target": "app/models.py:Base.save"}),
    );
    let budget = stated_tokens(&full) - 10;
    let cut = server.ok(
        "find_references",
        json!({"target": "app/models.py:Base.save", "max_tokens": budget}),
    );
    assert!(stated_tokens(&cut) <= budget, "{cut}");
    assert!(
        cut.contains(&format!("lines to fit max_tokens={budget}")),
        "{cut}"
    );
}

/// A root that is a file is refused once, naming it once (it said
/// `a.py: a.py: not a directory`: a new-user trial); a missing one too.
#[test]
fn a_root_that_is_no_directory_is_refused_naming_it_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("a.py");
    write(&file, "x = 1\n");
    for (root, why) in [
        (file.clone(), "not a directory"),
        (
            dir.path().join("none"),
            "No such file or directory (os error 2)",
        ),
    ] {
        let output = Command::new(binary())
            .args(["mcp", "--root"])
            .arg(&root)
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("ast-outline: {}: {why}\n", root.display())
        );
    }
}

/// Tests and routes written as callbacks are found by name and read by id
/// (`test('adds')` is a block marked `callback`); control-flow blocks are
/// not found by name.
#[test]
fn find_symbol_finds_tests_and_routes_by_their_titles() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        &root.join("cart.spec.ts"),
        "describe('cart', () => {\n  it('adds items', () => {\n    if (x) { y(); }\n  });\n});\n\
         app.get('/users/:id', (req, res) => res.send(1));\n",
    );
    let mut server = Server::start(root);
    let found = server.ok("find_symbol", json!({"pattern": "adds"}));
    assert!(
        found.contains("cart.spec.ts:2:  L2-4 block `it('adds items')` in module level"),
        "{found}"
    );
    let route = server.ok("find_symbol", json!({"pattern": "/users"}));
    assert!(
        route.contains("cart.spec.ts:6:  L6-6 block `app.get('/users/:id')` in module level"),
        "{route}"
    );
    let none = server.ok("find_symbol", json!({"pattern": "if (x)"}));
    assert!(none.starts_with("no symbol matches"), "{none}");
    let read = server.ok("read_symbol", json!({"symbol_id": "cart.spec.ts:2:"}));
    assert!(
        read.starts_with("==> cart.spec.ts:2-4 block `it('adds items')` in module level <==\n"),
        "{read}"
    );
}

#[test]
fn search_code_lands_hits_on_their_symbols_and_refuses_bad_input() {
    let (_dir, root) = tree();
    write(&root.join("README.md"), "Call total() for the sum.\n");
    std::fs::write(root.join("blob.bin"), b"total\0\x01\x02").expect("write");
    let mut server = Server::start(&root);
    let found = server.ok("search_code", json!({"pattern": "total"}));
    assert_eq!(
        found,
        "2 hits in 1 symbol in 2 files for `total` (literal, case-sensitive) under . \
         (searched 3 files):\n\
         README.md\n  L1: Call total() for the sum.\n\
         shop/cart.py\n  shop/cart.py:7:Cart.total method L7-9 def total(self, tax: float) -> float\n    L7: def total(self, tax: float) -> float:\n\
         (1 file not searched: binary, with NUL bytes)\n\
         [99 tokens, o200k_base]",
        "{found}"
    );
    let insensitive = server.ok(
        "search_code",
        json!({"pattern": "TOTAL", "case": "insensitive", "globs": ["*.py"]}),
    );
    assert!(
        insensitive.starts_with("1 hit in 1 symbol in 1 file"),
        "{insensitive}"
    );
    // Globs are relative to the root, also when searching under a path.
    let excluded = server.ok(
        "search_code",
        json!({"pattern": "total", "path": "shop", "globs": ["!shop/cart.py"]}),
    );
    assert!(excluded.starts_with("no hits for `total`"), "{excluded}");
    // Context lines, within the hit's symbol (line 6 is the class's).
    let context = server.ok(
        "search_code",
        json!({"pattern": "Sum with", "globs": ["*.py"], "context_lines": 2}),
    );
    assert!(
        context.contains(
            "  shop/cart.py:7:Cart.total method L7-9 def total(self, tax: float) -> float\n    \
             L7- def total(self, tax: float) -> float:\n    \
             L8:     \"\"\"Sum with tax.\"\"\"\n    \
             L9-     return sum(self.items) * (1 + tax)\n["
        ),
        "{context}"
    );
    // Found by a new-user trial: an empty answer for a tiny budget.
    let tiny = server.refused("search_code", json!({"pattern": "total", "max_tokens": 1}));
    assert_eq!(
        tiny,
        "max_tokens 1 is too small to say anything about 2 hits; raise it"
    );
    let wide = server.refused("search_code", json!({"pattern": "x", "context_lines": 21}));
    assert!(wide.contains("context_lines"), "{wide}");
    let module = server.ok("search_code", json!({"pattern": "import json"}));
    assert!(
        module.contains("shop/cart.py\n  (module level)\n    L1: import json\n"),
        "{module}"
    );
    let cut = server.ok("search_code", json!({"pattern": "t", "max_tokens": 100}));
    assert!(cut.contains("(left out: "), "{cut}");
    assert!(stated_tokens(&cut) <= 100, "{cut}");
    // The summary counts what is shown, after the cut to the budget.
    assert!(
        cut.contains("the first 1 hit in 0 symbols in 1 file shown:\nREADME.md\n  L1: Call total() for the sum.\n(left out: 11 hits"),
        "{cut}"
    );
    let bad = server.refused("search_code", json!({"pattern": "(x", "regex": true}));
    assert!(bad.contains("is not a valid regular expression"), "{bad}");
    let long = server.refused("search_code", json!({"pattern": "a".repeat(1001)}));
    assert!(long.contains("at most 1000"), "{long}");
    let outside = server.refused("search_code", json!({"pattern": "hunter2", "path": ".."}));
    assert!(outside.contains("refused"), "{outside}");
    let case = server.refused("search_code", json!({"pattern": "x", "case": "upper"}));
    assert!(case.contains("argument `case`"), "{case}");
}

#[test]
fn a_minified_line_is_cut_in_read_lines_and_read_symbol() {
    // Found by a new-user trial: a 50 MB one-line file came back whole.
    let (_dir, root) = tree();
    let line: String = (0..2_000)
        .map(|i| format!("function f{i}(a){{return a+{i}}};"))
        .collect();
    write(&root.join("big.min.js"), &format!("{line}\n"));
    let mut server = Server::start(&root);
    let note = format!(
        "… [line cut at 2,000 characters: it has {} bytes]\n",
        outline_core::text::thousands(line.len())
    );
    let lines = server.ok(
        "read_lines",
        json!({"path": "big.min.js", "start": 1, "end": 1}),
    );
    assert!(lines.contains(&note), "{}", &lines[..300]);
    assert!(lines.len() < 2_400, "{} bytes", lines.len());
    let symbol = server.ok("read_symbol", json!({"symbol_id": "big.min.js:1:f999"}));
    assert!(symbol.contains(&note), "{}", &symbol[..300]);
    assert!(symbol.len() < 2_600, "{} bytes", symbol.len());
}

const FLOW: &str = "\
def route(kind, items):
    \"\"\"Pick a handler.\"\"\"
    total = 0
    if kind == \"a\":
        total = 1
    elif kind == \"b\":
        for item in items:
            total += item
            total *= 2
            total -= 1
    else:
        total = -1
    return total


class Shop:
    def buy(self, n):
        return n
";

#[test]
fn a_line_is_placed_in_its_function_block_and_branch_and_a_symbol_outlined_alone() {
    let (_dir, root) = tree();
    write(&root.join("shop/flow.py"), FLOW);
    let mut server = Server::start(&root);
    // The blocks of a 13-line function are shown (the threshold of a line
    // query is the finest), with the branch the line is in.
    let nine = server.ok("find_symbol", json!({"path": "shop/flow.py", "line": 9}));
    assert_eq!(
        nine,
        "shop/flow.py:9 is inside 3 symbols and blocks (outermost first):\n  \
         shop/flow.py:1:route function L1-13 def route(kind, items)\n  \
         shop/flow.py:4:route block L4-12 `if kind == \"a\"`, in its branch `elif kind == \"b\"` (L6)\n  \
         shop/flow.py:7:route block L7-10 `for item in items`\nL9: total *= 2\n[102 tokens, o200k_base]"
    );
    let twelve = server.ok("find_symbol", json!({"path": "shop/flow.py", "line": 12}));
    assert!(
        twelve.contains("`if kind == \"a\"`, in its branch `else` (L11)\nL12: total = -1\n"),
        "{twelve}"
    );
    let module = server.ok("find_symbol", json!({"path": "shop/flow.py", "line": 15}));
    assert!(
        module.starts_with("shop/flow.py:15 is at module level (inside no symbol)\n"),
        "{module}"
    );
    let past = server.refused("find_symbol", json!({"path": "shop/flow.py", "line": 99}));
    assert_eq!(
        past,
        "shop/flow.py: line 99 does not exist: the file has 18 lines (lines are 1-based)"
    );
    let neither = server.refused("find_symbol", json!({"path": "shop/flow.py"}));
    assert!(neither.starts_with("give pattern"), "{neither}");
    let both = server.refused("find_symbol", json!({"pattern": "x", "line": 3}));
    assert!(both.ends_with("not both"), "{both}");

    // read_lines says which symbol a range is in, or cuts into.
    let inside = server.ok(
        "read_lines",
        json!({"path": "shop/flow.py", "start": 5, "end": 9}),
    );
    assert!(
        inside.starts_with(
            "==> shop/flow.py:5-9 <==\ninside: function route L1-13\n        total = 1\n"
        ),
        "{inside}"
    );
    let across = server.ok(
        "read_lines",
        json!({"path": "shop/flow.py", "start": 12, "end": 18}),
    );
    assert!(
        across.starts_with(
            "==> shop/flow.py:12-18 <==\nstarts in: function route L1-13\n        total = -1\n"
        ),
        "{across}"
    );

    // One symbol outlined alone: its members, with the enclosing symbols
    // named; a missing one or a directory is refused with what to do.
    let shop = server.ok(
        "get_file_outline",
        json!({"path": "shop/flow.py", "symbol": "Shop"}),
    );
    assert!(
        shop.starts_with(
            "shop/flow.py (python, 18 lines)\nL16-18 class Shop id=shop/flow.py:16:Shop\n  \
             L17-18 def buy(self, n) id=shop/flow.py:17:Shop.buy\n["
        ),
        "{shop}"
    );
    assert!(!shop.contains("route"), "{shop}");
    let route = server.ok(
        "get_file_outline",
        json!({"path": "shop/flow.py", "symbol": "shop/flow.py:1:route", "block_threshold": 1}),
    );
    assert!(
        route.contains(
            "  L4-12 (block) if kind == \"a\" id=shop/flow.py:4:route\n    \
             L7-10 (block) for item in items id=shop/flow.py:7:route\n"
        ),
        "{route}"
    );
    let buy = server.ok(
        "get_file_outline",
        json!({"path": "shop/flow.py", "symbol": "Shop.buy"}),
    );
    assert!(buy.starts_with("inside: "), "{buy}");
    let missing = server.refused(
        "get_file_outline",
        json!({"path": "shop/flow.py", "symbol": "Nope"}),
    );
    assert!(
        missing.starts_with("Nope: no such symbol in shop/flow.py"),
        "{missing}"
    );
    let directory = server.refused(
        "get_file_outline",
        json!({"path": "shop", "symbol": "Shop"}),
    );
    assert!(
        directory.contains("find_symbol(pattern=\"Shop\", path=\"shop\")"),
        "{directory}"
    );
}

/// The server reads `.ast-outline.toml` again when it changes: a good file
/// applies from the next answer on, which says so once; a bad one is named
/// by file, line and key, and the last good settings stay; a settings file
/// bad at start is said in the first answer.
#[test]
fn the_server_follows_a_changed_settings_file_and_keeps_the_last_good_one() {
    let (_dir, root) = tree();
    let settings = root.join(".ast-outline.toml");
    let mut server = Server::start(&root);
    let outline = server.ok("get_file_outline", json!({"path": "."}));
    assert!(outline.starts_with("shop/cart.py"), "{outline}");
    assert!(outline.contains("\nweb/api.ts"), "{outline}");

    write(
        &settings,
        "[files]\nexclude = [\"web/**\"]\n[max_tokens]\nsearch = 1\n",
    );
    let outline = server.ok("get_file_outline", json!({"path": "."}));
    let reloaded = format!("(settings reloaded from {})\n", settings.display());
    assert!(outline.starts_with(&reloaded), "{outline}");
    assert!(!outline.contains("web/api.ts"), "{outline}");
    assert!(
        outline.contains(&format!(
            "note: 1 file left out by files.include/files.exclude of {}",
            settings.display()
        )),
        "{outline}"
    );
    // The search budget of the file, unless the call gives one.
    let too_small = server.refused("search_code", json!({"pattern": "getUser"}));
    assert!(
        too_small.contains("max_tokens 1 is too small"),
        "{too_small}"
    );
    let found = server.ok(
        "search_code",
        json!({"pattern": "getUser", "max_tokens": 500}),
    );
    assert!(
        found.starts_with(
            "no hits for `getUser` (literal, case-sensitive) under . (searched 1 file)"
        ),
        "{found}"
    );

    // An unknown key: named, and the last good settings kept.
    write(&settings, "[files]\nexclude = [\"web/**\"]\nexclud = []\n");
    let outline = server.ok("get_file_outline", json!({"path": "."}));
    let first = outline.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "({}:3:1: key `files.exclud`: ",
            settings.display()
        )),
        "{outline}"
    );
    assert!(
        first.ends_with("; keeping the last good settings)"),
        "{outline}"
    );
    assert!(!outline.contains("web/api.ts"), "{outline}");
    // Said in every answer while the file is bad.
    let again = server.ok("get_file_outline", json!({"path": "."}));
    assert!(
        again.starts_with(&format!("{first}\nshop/cart.py")),
        "{again}"
    );
    assert!(!again.contains("web/api.ts"), "{again}");

    // No file: the defaults again.
    std::fs::remove_file(&settings).expect("remove the settings");
    let outline = server.ok("get_file_outline", json!({"path": "."}));
    assert!(
        outline.starts_with("(settings reloaded: no settings file, defaults)\nshop/cart.py"),
        "{outline}"
    );
    assert!(outline.contains("\nweb/api.ts"), "{outline}");
    drop(server);

    // Bad at start: the first answer says so, with the defaults in effect.
    write(&settings, "[outline]\nblock_threshold = \"x\"\n");
    let mut server = Server::start(&root);
    let outline = server.ok("get_file_outline", json!({"path": "web/api.ts"}));
    assert!(
        outline.starts_with(&format!(
            "(error: {}:2:19: key `outline.block_threshold`: invalid type: string \"x\", \
             expected an integer; using the default settings)\nweb/api.ts",
            settings.display()
        )),
        "{outline}"
    );
    let again = server.ok("get_file_outline", json!({"path": "web/api.ts"}));
    assert!(again.starts_with("(error: "), "{again}");
    // Every tool says it, not only those that use the settings.
    let refused = server.refused("read_symbol", json!({"symbol_id": "web/api.ts:nothing"}));
    assert!(refused.starts_with("(error: "), "{refused}");
    // Fixed: said once (in an error answer too), then nothing.
    write(&settings, "[outline]\nblock_threshold = 50\n");
    let fixed = server.refused("read_symbol", json!({"symbol_id": "web/api.ts:nothing"}));
    assert!(fixed.starts_with("(settings reloaded from "), "{fixed}");
    let again = server.ok("get_file_outline", json!({"path": "web/api.ts"}));
    assert!(again.starts_with("web/api.ts"), "{again}");
}

/// `get_impact` with a given diff: a hunk header past the line numbers
/// is refused with the line (it panicked and left the request without an
/// answer: a new user's trial), and the server answers the next call.
#[test]
fn get_impact_refuses_a_hunk_header_past_the_line_numbers() {
    let (_dir, root) = tree();
    let mut server = Server::start(&root);
    let diff = "--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -1,2 +4294967295,2 @@\n-a\n+b\n";
    let refused = server.refused("get_impact", json!({ "diff": diff }));
    assert_eq!(
        refused,
        "line 3: cannot read the hunk header \"@@ -1,2 +4294967295,2 @@\""
    );
    let diff = "--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -7,1 +7,1 @@\n-x\n+y\n";
    let found = server.ok("get_impact", json!({ "diff": diff }));
    assert!(
        found.contains("modified shop/cart.py:7:Cart.total"),
        "{found}"
    );
}
