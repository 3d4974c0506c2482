//! The real-client LSP test: Neovim's built-in LSP client, headless, drives
//! `ast-outline lsp` through `tests/lsp-client/client_test.lua` over a small
//! Python project written to a temporary directory (`pkg/shapes.py` with
//! class `Shape`, its method `scale` and function `area`; `app.py` importing
//! and calling them, with a non-BMP character before a call so UTF-16
//! columns differ from characters). The client opens both files in buffers
//! (didOpen), asks documentSymbol of `pkg/shapes.py`, definition at the call
//! of `area` in `app.py` and references of `area`, then inserts a new call
//! into the `app.py` buffer through Neovim's API (didChange, incremental;
//! the file is not saved) and asks references again, then workspace/symbol,
//! then shuts the server down. This test checks every answer's exact values
//! (names, kinds, 0-based ranges in UTF-16, signatures, locations).
//!
//! Neovim (0.7 or later) comes from the OS packages: when `nvim` is not on
//! PATH this test runs `tests/lsp-client/setup.sh`, which installs Debian's
//! `neovim` with apt-get (as root, or with sudo that needs no password);
//! `.ci/run` runs that script before the tests. The test fails, it does not
//! skip, when Neovim cannot be had. Neovim runs for at most 120 s: it is
//! killed past that, and the test fails.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The longest Neovim may run the client script.
const NVIM_TIMEOUT: Duration = Duration::from_secs(120);

/// `pkg/shapes.py` of the project (0-based lines: `class Shape` on 3,
/// `def scale` on 6, `def area` on 11).
const SHAPES: &str = r#""""Shapes and their areas."""


class Shape:
    """A shape with a size."""

    def scale(self, factor: float) -> "Shape":
        """The shape made bigger."""
        return self


def area(width: float, height: float = 1.0) -> float:
    """The area of a rectangle."""
    return width * height
"#;

/// `app.py` of the project: the call of `area` on line 5 follows a clef
/// (U+1D11E, 2 UTF-16 code units), so it starts at character 25 but UTF-16
/// column 26.
const APP: &str = r#"from pkg.shapes import Shape, area


def main() -> None:
    shape = Shape().scale(2.0)
    label = "𝄞"; total = area(3.0, 2.0)
    print(shape, label, total)
"#;

/// `tests/lsp-client`: setup.sh and client_test.lua.
fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("lsp-client")
}

/// Whether `nvim` runs.
fn has_nvim() -> bool {
    Command::new("nvim")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Makes sure `nvim` is on PATH, installing it with setup.sh if needed.
fn ensure_nvim(dir: &Path) {
    if has_nvim() {
        return;
    }
    let setup = Command::new("bash")
        .arg(dir.join("setup.sh"))
        .stdin(Stdio::null())
        .output()
        .expect("run tests/lsp-client/setup.sh (needs bash)");
    assert!(
        setup.status.success(),
        "tests/lsp-client/setup.sh failed (it installs Debian's neovim with apt-get, as root or \
         with passwordless sudo):\n{}{}",
        String::from_utf8_lossy(&setup.stdout),
        String::from_utf8_lossy(&setup.stderr)
    );
    assert!(has_nvim(), "nvim does not run after setup.sh");
}

/// Waits for `child` at most `limit`; kills it and fails past that.
fn wait_or_kill(child: &mut std::process::Child, limit: Duration, stderr: &Path) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait for nvim") {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "nvim ran longer than {limit:?} and was killed; its stderr:\n{}",
                fs::read_to_string(stderr).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An LSP range from 0-based (line, character) pairs.
fn range(start: (u32, u32), end: (u32, u32)) -> Value {
    json!({
        "start": { "line": start.0, "character": start.1 },
        "end": { "line": end.0, "character": end.1 },
    })
}

/// A location's (uri, start line, start character, end line, end
/// character), to compare sets of locations.
fn key(location: &Value) -> (String, u64, u64, u64, u64) {
    let at = |pointer: &str| {
        location
            .pointer(pointer)
            .and_then(Value::as_u64)
            .unwrap_or_else(|| panic!("{pointer} in {location}"))
    };
    (
        location["uri"]
            .as_str()
            .unwrap_or_else(|| panic!("uri in {location}"))
            .to_owned(),
        at("/range/start/line"),
        at("/range/start/character"),
        at("/range/end/line"),
        at("/range/end/character"),
    )
}

/// The locations of an answer, sorted.
fn locations(answer: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    let mut keys: Vec<_> = answer
        .as_array()
        .unwrap_or_else(|| panic!("an array of locations: {answer}"))
        .iter()
        .map(key)
        .collect();
    keys.sort();
    keys
}

/// Neovim's client: documentSymbol, definition across files, references
/// before and after an unsaved edit, workspace/symbol, with exact values.
#[test]
fn neovims_lsp_client_gets_symbols_definition_and_references_that_follow_an_unsaved_edit() {
    let dir = client_dir();
    ensure_nvim(&dir);

    let temp = tempfile::tempdir().expect("a temporary directory");
    let project = temp.path().join("project");
    fs::create_dir_all(project.join("pkg")).expect("create project/pkg");
    fs::write(project.join("pkg").join("__init__.py"), "").expect("write pkg/__init__.py");
    fs::write(project.join("pkg").join("shapes.py"), SHAPES).expect("write pkg/shapes.py");
    fs::write(project.join("app.py"), APP).expect("write app.py");
    // The server answers with paths under the root's canonical path.
    let root = project.canonicalize().expect("canonical project path");
    let uri = |relative: &str| format!("file://{}/{relative}", root.display());

    // Neovim's own files (logs, state) go to the temporary directory.
    let home = temp.path().join("nvim-home");
    let result = temp.path().join("result.json");
    let stdout = temp.path().join("nvim.stdout");
    let stderr = temp.path().join("nvim.stderr");
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        // (`luafile` takes the rest of the line as the name: spaces escaped.)
        .arg(format!(
            "luafile {}",
            dir.join("client_test.lua")
                .display()
                .to_string()
                .replace(' ', "\\ ")
        ))
        // Reached only if the script failed without quitting.
        .args(["-c", "cquit 2"])
        .current_dir(&project)
        .env("AST_OUTLINE_BIN", env!("CARGO_BIN_EXE_ast-outline"))
        .env("PROJECT", &project)
        .env("RESULT", &result)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout).expect("create nvim.stdout"))
        .stderr(fs::File::create(&stderr).expect("create nvim.stderr"))
        .spawn()
        .expect("run nvim");
    let status = wait_or_kill(&mut child, NVIM_TIMEOUT, &stderr);
    // What Neovim printed, and its LSP log (the server's stderr is there).
    let output = || {
        format!(
            "--- stdout\n{}--- stderr\n{}\n--- lsp.log\n{}",
            fs::read_to_string(&stdout).unwrap_or_default(),
            fs::read_to_string(&stderr).unwrap_or_default(),
            fs::read_to_string(home.join("cache").join("nvim").join("lsp.log")).unwrap_or_default()
        )
    };
    assert!(
        status.success(),
        "client_test.lua failed ({status}):\n{}",
        output()
    );
    let text = fs::read_to_string(&result)
        .unwrap_or_else(|e| panic!("read the script's result: {e}\n{}", output()));
    let got: Value = serde_json::from_str(&text).expect("the script's result is JSON");

    // The handshake: the server's name and the encoding Neovim 0.7 uses
    // (it offers no `positionEncodings`, so UTF-16); a clean exit after
    // shutdown and exit.
    assert_eq!(got["server_name"], "ast-outline", "{got}");
    assert_eq!(got["position_encoding"], "utf-16", "{got}");
    assert_eq!(got["offset_encoding"], "utf-16", "{got}");
    assert_eq!(got["server_exit_code"], 0, "{got}");

    // documentSymbol: hierarchical, whole-line ranges (to the start of the
    // line after the last), the name as selection, the signature as detail.
    let expected_symbols = json!([
        {
            "name": "Shape",
            "kind": 5,
            "detail": "class Shape",
            "range": range((3, 0), (9, 0)),
            "selectionRange": range((3, 6), (3, 11)),
            "children": [
                {
                    "name": "scale",
                    "kind": 6,
                    "detail": "def scale(self, factor: float) -> \"Shape\"",
                    "range": range((6, 0), (9, 0)),
                    "selectionRange": range((6, 8), (6, 13)),
                    "children": [],
                }
            ],
        },
        {
            "name": "area",
            "kind": 12,
            "detail": "def area(width: float, height: float = 1.0) -> float",
            "range": range((11, 0), (14, 0)),
            "selectionRange": range((11, 4), (11, 8)),
            "children": [],
        },
    ]);
    assert_eq!(got["document_symbols"], expected_symbols, "documentSymbol");

    // definition, asked inside `area` at UTF-16 column 28 of app.py line 5:
    // the name of `def area` in pkg/shapes.py.
    let definition = &got["definition"];
    let definition_uri = definition["uri"].as_str().expect("definition uri");
    assert!(definition_uri.ends_with("/pkg/shapes.py"), "{definition}");
    assert_eq!(
        definition,
        &json!({ "uri": uri("pkg/shapes.py"), "range": range((11, 4), (11, 8)) }),
        "definition"
    );

    // references of area (with its declaration): the import and the call
    // after the clef (UTF-16 columns 26-30).
    let declaration = (uri("pkg/shapes.py"), 11, 4, 11, 8);
    let import = (uri("app.py"), 0, 30, 0, 34);
    let mut before = vec![
        declaration.clone(),
        import.clone(),
        (uri("app.py"), 5, 26, 5, 30),
    ];
    before.sort();
    assert_eq!(
        locations(&got["references_before"]),
        before,
        "references before the edit: {}",
        got["references_before"]
    );

    // The edit is in the buffer only: Neovim's lines have it, the disk not.
    assert_eq!(got["app_modified"], true, "{got}");
    assert_eq!(
        got["app_lines"][5], "    small = area(0.5)",
        "{}",
        got["app_lines"]
    );
    let on_disk = fs::read_to_string(project.join("app.py")).expect("read app.py");
    assert_eq!(on_disk, APP, "the script must not save app.py");

    // references after the edit, asked at the new call: the new call on
    // line 5, the old one moved to line 6.
    let mut after = vec![
        declaration,
        import,
        (uri("app.py"), 5, 12, 5, 16),
        (uri("app.py"), 6, 26, 6, 30),
    ];
    after.sort();
    assert_eq!(
        locations(&got["references_after"]),
        after,
        "references after the unsaved edit: {}",
        got["references_after"]
    );

    // workspace/symbol "scale": the method, in Shape.
    assert_eq!(
        got["workspace_symbols"],
        json!([{
            "name": "scale",
            "kind": 6,
            "location": { "uri": uri("pkg/shapes.py"), "range": range((6, 8), (6, 13)) },
            "containerName": "Shape",
        }]),
        "workspace/symbol"
    );
}
