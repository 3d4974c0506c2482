//! `ast-outline watch` end to end: its lines (ready, one update per change),
//! and the fault the live index must survive: the process killed with
//! SIGKILL in the middle of updates. After each kill the database is whole
//! (`PRAGMA integrity_check`), every file is in its previous or its new
//! state as a whole (its stored hash, symbols and references all of one
//! version, never a mix), and a restarted `watch` catches up with the disk;
//! at the end the index exports exactly as a fresh build of the same tree.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// Files in the generated project.
const FILES: usize = 150;

/// The text of file `n` at `version`: a function named for both, and a
/// call of the next file's function of the same version.
fn text(n: usize, version: usize) -> String {
    let next = (n + 1) % FILES;
    let mut text = format!("from m{next:03} import v{version}_{next}\n\n");
    text.push_str(&format!(
        "def v{version}_{n}():\n    return v{version}_{next}()\n\n"
    ));
    // Enough body that an update of every file takes a while.
    for k in 0..20 {
        text.push_str(&format!(
            "class C{version}_{n}_{k}:\n    def m(self):\n        return v{version}_{n}()\n\n"
        ));
    }
    text
}

fn write_all(root: &Path, version: usize) {
    for n in 0..FILES {
        std::fs::write(root.join(format!("m{n:03}.py")), text(n, version)).expect("write");
    }
}

fn watch(root: &Path, db: &Path) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .arg("watch")
        .arg(root)
        .arg("--db")
        .arg(db)
        .args(["--format", "json", "--debounce-ms", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn watch");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    (child, stdout)
}

/// The next JSON line of `watch`.
fn next_line(out: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    out.read_line(&mut line).expect("read");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn watch_prints_ready_then_one_update_per_change() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def f():\n    pass\n").expect("write");
    let (mut child, mut out) = watch(root, &root.join("idx.sqlite"));
    let ready = next_line(&mut out);
    assert_eq!(ready["event"], "ready");
    assert_eq!(ready["files"], 1);
    std::fs::write(root.join("b.py"), "from a import f\nf()\n").expect("write");
    let update = next_line(&mut out);
    assert_eq!(update["event"], "update");
    assert_eq!(update["paths"], serde_json::json!(["b.py"]));
    assert_eq!(update["parsed"], 1);
    assert_eq!(update["files"], 2);
    std::fs::remove_file(root.join("a.py")).expect("rm");
    let update = next_line(&mut out);
    assert_eq!(update["paths"], serde_json::json!(["a.py"]));
    assert_eq!(update["removed"], 1);
    // A file left out is named (it was silent: new-user trial).
    std::fs::write(root.join("bin.py"), b"\x00\x01\x02").expect("write");
    let update = next_line(&mut out);
    assert_eq!(update["parsed"], 0);
    assert_eq!(
        update["notes"],
        serde_json::json!(["bin.py: binary (holds NUL bytes), not indexed"])
    );
    child.kill().expect("kill");
    let _ = child.wait();
}

/// The text form's first line counts files in English ("1 files" before:
/// a new-user trial).
#[test]
fn watch_says_one_file_in_its_text_ready_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def f():\n    pass\n").expect("write");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .arg("watch")
        .arg(root)
        .arg("--db")
        .arg(root.join("idx.sqlite"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn watch");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("read");
    child.kill().expect("kill");
    let _ = child.wait();
    let expected = format!(
        "watching {}: 1 file indexed (",
        root.canonicalize().expect("canonical").display()
    );
    assert!(line.starts_with(&expected), "{line}");
}

/// Each stored file with the version its hash, its symbols and its
/// resolved references say; panics on a file whose parts disagree.
fn versions(db: &Path) -> Vec<usize> {
    let conn = rusqlite::Connection::open(db).expect("open");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("integrity_check");
    assert_eq!(check, "ok");
    let mut out = Vec::new();
    for n in 0..FILES {
        let path = format!("m{n:03}.py");
        let (id, hash): (i64, String) = conn
            .query_row(
                "SELECT id, hash FROM files WHERE path = ?1",
                [&path],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("file row");
        let by_hash = (0..5)
            .find(|v| {
                format!(
                    "{:016x}",
                    xxhash_rust::xxh3::xxh3_64(text(n, *v).as_bytes())
                ) == hash
            })
            .unwrap_or_else(|| panic!("{path}: hash of no version"));
        let function: String = conn
            .query_row(
                "SELECT name FROM symbols WHERE file_id = ?1 AND kind = 'function'",
                [id],
                |row| row.get(0),
            )
            .expect("function");
        assert_eq!(
            function,
            format!("v{by_hash}_{n}"),
            "{path}: symbols of another version"
        );
        let symbols: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM symbols WHERE file_id = ?1",
                [id],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(symbols, 41, "{path}");
        out.push(by_hash);
    }
    out
}

#[test]
fn killed_mid_update_the_index_holds_whole_versions_and_a_restart_catches_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).expect("mkdir");
    let db = dir.path().join("live.sqlite");
    write_all(&root, 0);
    // How long the updates of a rewrite of every file take here (version
    // 1): the kills land within that time, at a quarter, a half and three
    // quarters of it, after the 20 ms window.
    let (mut child, mut out) = watch(&root, &db);
    assert_eq!(next_line(&mut out)["event"], "ready");
    write_all(&root, 1);
    let (mut parsed, mut took_ms) = (0, 0);
    while parsed < FILES as u64 {
        let update = next_line(&mut out);
        parsed += update["parsed"].as_u64().expect("parsed");
        took_ms += update["ms"].as_u64().expect("ms");
    }
    child.kill().expect("kill");
    let _ = child.wait();
    assert!(versions(&db).iter().all(|v| *v == 1));
    for (round, quarter) in [(2, 1), (3, 2), (4, 3)] {
        let (mut child, mut out) = watch(&root, &db);
        assert_eq!(next_line(&mut out)["event"], "ready");
        let before = versions(&db);
        assert!(
            before.iter().all(|v| *v == round - 1),
            "caught up: {before:?}"
        );
        write_all(&root, round);
        std::thread::sleep(Duration::from_millis(20 + took_ms * quarter / 4));
        // SIGKILL: no destructor, no flush, nothing of ours runs.
        child.kill().expect("kill");
        let _ = child.wait();
        let after = versions(&db);
        assert!(
            after.iter().all(|v| *v == round - 1 || *v == round),
            "round {round}: {after:?}"
        );
    }
    // A last restart catches up with the disk.
    let (mut child, mut out) = watch(&root, &db);
    assert_eq!(next_line(&mut out)["event"], "ready");
    child.kill().expect("kill");
    let _ = child.wait();
    assert!(versions(&db).iter().all(|v| *v == 4));
    let export = |db: &Path| {
        let output = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
            .args(["export", "--no-refresh", "--root"])
            .arg(&root)
            .arg("--db")
            .arg(db)
            .output()
            .expect("export");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    };
    let fresh = dir.path().join("fresh.sqlite");
    let built = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .arg("index")
        .arg(&root)
        .arg("--db")
        .arg(&fresh)
        .output()
        .expect("index");
    assert!(built.status.success());
    assert!(
        export(&db) == export(&fresh),
        "the live index differs from a fresh build"
    );
}

/// What a new-user trial found: `watch` went on (writing errors) after its
/// root was deleted, accepted `--no-watch` (then never updated), and did
/// not follow `.git/info/exclude`.
#[test]
fn watch_ends_when_its_root_is_gone_refuses_no_watch_and_follows_git_exclude() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("tree");
    std::fs::create_dir_all(root.join(".git/info")).expect("mkdir");
    std::fs::create_dir_all(root.join("gen")).expect("mkdir");
    std::fs::write(root.join("gen/g.py"), "def generated():\n    pass\n").expect("write");
    let db = dir.path().join("live.sqlite");

    let refused = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .arg("watch")
        .arg(&root)
        .arg("--no-watch")
        .output()
        .expect("watch");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("would never update"));

    let (mut child, mut out) = watch(&root, &db);
    assert_eq!(next_line(&mut out)["files"], 1);
    std::fs::write(root.join(".git/info/exclude"), "gen/\n").expect("write");
    let update = next_line(&mut out);
    assert_eq!(update["full"], ".git/info/exclude changed");
    assert_eq!(update["files"], 0);

    std::fs::remove_dir_all(&root).expect("rm");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(1));
}

/// A changed `.ast-outline.toml` takes effect while `watch` runs: the files
/// it excludes leave the index, a bad file is named in the update's notes
/// (file, line, key) and the last good settings stay, and files come back
/// when the exclusion goes.
#[test]
fn watch_follows_a_changed_settings_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def f():\n    pass\n").expect("write");
    std::fs::create_dir(root.join("gen")).expect("mkdir");
    std::fs::write(root.join("gen/b.py"), "def g():\n    pass\n").expect("write");
    let (mut child, mut out) = watch(root, &root.join("idx.sqlite"));
    let ready = next_line(&mut out);
    assert_eq!(ready["files"], 2);

    let settings = root.join(".ast-outline.toml");
    std::fs::write(&settings, "[files]\nexclude = [\"gen/**\"]\n").expect("write");
    let update = next_line(&mut out);
    assert_eq!(update["files"], 1, "{update}");
    assert_eq!(update["removed"], 1, "{update}");

    std::fs::write(&settings, "[files]\nexclude = [\"gen/**\"]\nexclud = 1\n").expect("write");
    let update = next_line(&mut out);
    assert_eq!(update["files"], 1, "{update}");
    let notes = update["notes"].to_string();
    assert!(
        notes.contains(".ast-outline.toml:3:1: key `files.exclud`: ")
            && notes.contains("keeping the last good settings"),
        "{update}"
    );

    std::fs::write(&settings, "[files]\nexclude = []\n").expect("write");
    let update = next_line(&mut out);
    assert_eq!(update["files"], 2, "{update}");
    child.kill().expect("kill");
    let _ = child.wait();
}
