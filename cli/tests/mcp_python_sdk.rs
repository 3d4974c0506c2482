//! The real-client test: `tests/mcp-client/client_test.py` drives
//! `ast-outline mcp` with the official MCP Python SDK (`mcp` from PyPI, pinned
//! in `tests/mcp-client/requirements.txt`): initialize, list the tools, outline
//! a file, read a symbol by the id it returned, edit the file so the symbol
//! moves, read the same id again, and ask for a path outside the root.
//!
//! The SDK lives in the virtualenv `tests/mcp-client/.venv` (gitignored). When
//! it is missing, or lacks the SDK, this test makes it by running
//! `tests/mcp-client/setup.sh` (python3 with venv and pip, and access to PyPI,
//! are needed); `.ci/run` runs that script before the tests. The test fails,
//! it does not skip, when Python or the SDK cannot be had.

use std::path::{Path, PathBuf};
use std::process::Command;

fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("mcp-client")
}

/// The virtualenv's Python, with the SDK importable (set up if needed, by
/// one test at a time: two setups at once collided on the new `.venv`).
fn python_with_sdk(dir: &Path) -> PathBuf {
    static SETTING_UP: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _setting_up = SETTING_UP
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let python = dir.join(".venv").join("bin").join("python");
    let has_sdk = |python: &Path| {
        Command::new(python)
            .args(["-c", "import mcp.client.stdio"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has_sdk(&python) {
        let setup = Command::new("bash")
            .arg(dir.join("setup.sh"))
            .output()
            .expect("run tests/mcp-client/setup.sh (needs bash)");
        assert!(
            setup.status.success(),
            "tests/mcp-client/setup.sh failed (it needs python3 with venv and pip, and PyPI):\n{}{}",
            String::from_utf8_lossy(&setup.stdout),
            String::from_utf8_lossy(&setup.stderr)
        );
        assert!(
            has_sdk(&python),
            "the MCP SDK is not importable after setup.sh"
        );
    }
    python
}

#[test]
fn the_official_python_sdk_outlines_reads_by_id_across_an_edit_and_is_refused_outside_the_root() {
    let dir = client_dir();
    let python = python_with_sdk(&dir);
    let output = Command::new(&python)
        .arg(dir.join("client_test.py"))
        .arg(env!("CARGO_BIN_EXE_ast-outline"))
        .output()
        .expect("run client_test.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "client_test.py failed:\n--- stdout\n{stdout}--- stderr\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("OK: the MCP Python SDK drove ast-outline mcp"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(moved: the id said line 12, it now starts at line 14;"),
        "{stdout}"
    );
}

/// Every MCP client snippet of `docs/clients.md` (Claude Code, Cursor,
/// Codex, VS Code) is parsed in its client's format and the server it
/// describes is started with the official SDK, with this build's
/// `ast-outline` first on the `PATH`: it lists the tools and outlines a file.
#[test]
fn every_client_snippet_of_the_docs_starts_a_server_the_sdk_can_use() {
    let dir = client_dir();
    let python = python_with_sdk(&dir);
    let binary = Path::new(env!("CARGO_BIN_EXE_ast-outline"));
    let output = Command::new(&python)
        .arg(dir.join("snippets_test.py"))
        .arg(dir.join("..").join("..").join("docs").join("clients.md"))
        .arg(binary.parent().expect("the binary's directory"))
        .output()
        .expect("run snippets_test.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "snippets_test.py failed:\n--- stdout\n{stdout}--- stderr\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let checked: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("ok "))
        .filter_map(|line| line.split(':').next())
        .collect();
    assert_eq!(
        checked,
        [
            "claude-code",
            "claude-code-cli",
            "codex",
            "codex-cli",
            "cursor",
            "vscode"
        ],
        "{stdout}"
    );
}
