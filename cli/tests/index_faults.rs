//! The index when something went wrong: no index, an index of another
//! version, one whose first build never completed, a damaged or junk
//! database, a lost table. Each case found by the new-user trial, where
//! queries answered "0 definitions" with exit 0 or failed forever.

use std::path::Path;
use std::process::{Command, Output};

fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A project with one class, indexed.
fn indexed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("models.py"),
        "class User:\n    def save(self):\n        pass\n",
    )
    .expect("written");
    let built = run(dir.path(), &["index", "."]);
    assert!(built.status.success(), "{}", stderr(&built));
    dir
}

fn db(root: &Path) -> std::path::PathBuf {
    root.join(".ast-outline/index.sqlite")
}

const FOUND: &str =
    "definitions of User: 1\n  models.py:1:User (class User, L1-3, module models)\n";

#[test]
fn no_refresh_refuses_what_is_not_a_complete_index_of_this_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let none = run(dir.path(), &["defs", "User", "--no-refresh"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        stderr(&none).contains("no index (run `ast-outline index`"),
        "{}",
        stderr(&none)
    );

    let dir = indexed();
    let root = dir.path();
    let ok = run(root, &["defs", "User", "--no-refresh"]);
    assert_eq!(stdout(&ok), FOUND);

    // A first build that never completed leaves no counts in `meta`.
    let conn = rusqlite::Connection::open(db(root)).expect("open");
    conn.execute("DELETE FROM meta WHERE key = 'references'", [])
        .expect("delete");
    let partial = run(root, &["defs", "User", "--no-refresh"]);
    assert_eq!(partial.status.code(), Some(1), "{}", stdout(&partial));
    assert!(
        stderr(&partial).contains("no refresh of this index has completed"),
        "{}",
        stderr(&partial)
    );

    conn.execute(
        "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
        [],
    )
    .expect("update");
    drop(conn);
    let other = run(root, &["defs", "User", "--no-refresh"]);
    assert_eq!(other.status.code(), Some(1));
    assert!(
        stderr(&other).contains("an index of another version (schema 2"),
        "{}",
        stderr(&other)
    );
    // Named by --root and --db (from elsewhere), the advice names both.
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let (root_arg, db_arg) = (root.display().to_string(), db(root).display().to_string());
    let named = run(
        elsewhere.path(),
        &[
            "defs",
            "User",
            "--no-refresh",
            "--root",
            &root_arg,
            "--db",
            &db_arg,
        ],
    );
    assert_eq!(named.status.code(), Some(1));
    assert!(
        stderr(&named).contains(&format!(
            "run `ast-outline index {root_arg} --db {db_arg}`, or drop --no-refresh"
        )),
        "{}",
        stderr(&named)
    );
    // Without --no-refresh it is rebuilt.
    assert_eq!(stdout(&run(root, &["defs", "User"])), FOUND);
}

#[test]
fn a_damaged_default_index_is_rebuilt_and_a_foreign_db_file_is_refused() {
    let dir = indexed();
    let root = dir.path();
    std::fs::write(db(root), b"this is not a database, just junk bytes....").expect("junk");
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(root.join(format!(".ast-outline/index.sqlite{suffix}")));
    }
    let rebuilt = run(root, &["defs", "User"]);
    assert_eq!(stdout(&rebuilt), FOUND, "{}", stderr(&rebuilt));
    assert!(
        stderr(&rebuilt).contains("the index was damaged"),
        "{}",
        stderr(&rebuilt)
    );

    // A file given with --db is never deleted.
    let foreign = root.join("notes.txt");
    std::fs::write(&foreign, b"my notes, not a database at all.......").expect("notes");
    let refused = run(root, &["defs", "User", "--db", "notes.txt"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("not an ast-outline index, or damaged"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        std::fs::read(&foreign).expect("still there"),
        b"my notes, not a database at all......."
    );
}

/// Damage in pages the open does not read (found by the refresh after an
/// edit): the default index is still rebuilt, with the note.
#[test]
fn damage_found_after_opening_rebuilds_the_default_index() {
    let dir = indexed();
    let root = dir.path();
    for i in 0..40 {
        let body: String = (0..30)
            .map(|j| format!("def f{j}():\n    return User()\n\n"))
            .collect();
        std::fs::write(
            root.join(format!("m{i}.py")),
            format!("from models import User\n\n{body}"),
        )
        .expect("written");
    }
    let built = run(root, &["index", "."]);
    assert!(built.status.success(), "{}", stderr(&built));
    let size = std::fs::metadata(db(root)).expect("db").len();
    assert!(size > 64 * 1024, "a database of several pages: {size}");
    let mut bytes = std::fs::read(db(root)).expect("db");
    let half = bytes.len() / 2;
    bytes[half..].fill(0xff);
    std::fs::write(db(root), bytes).expect("damaged");
    std::fs::write(root.join("m0.py"), "from models import User\n").expect("edited");
    let rebuilt = run(root, &["defs", "User"]);
    assert_eq!(stdout(&rebuilt), FOUND, "{}", stderr(&rebuilt));
    assert!(
        stderr(&rebuilt).contains("the index was damaged"),
        "{}",
        stderr(&rebuilt)
    );
}

#[test]
fn an_index_that_lost_a_table_is_rebuilt_not_queried() {
    let dir = indexed();
    let root = dir.path();
    let conn = rusqlite::Connection::open(db(root)).expect("open");
    conn.execute_batch("DROP TABLE refs").expect("drop");
    drop(conn);
    let refs = run(root, &["refs", "models.py:User.save"]);
    assert!(refs.status.success(), "{}", stderr(&refs));
    assert!(
        stdout(&refs).starts_with("refs to models.py:2:User.save"),
        "{}",
        stdout(&refs)
    );
}

/// While another process holds the write lock (a refresh running), a query
/// answers from the last completed refresh and says so; `index` says who
/// holds the lock. (Before, both failed with "database is locked".)
#[test]
fn while_another_refresh_holds_the_lock_queries_answer_from_the_last_one() {
    let dir = indexed();
    let root = dir.path();
    std::fs::write(
        root.join("models.py"),
        "class User:\n    def save(self):\n        pass\n\n\nclass Admin(User):\n    pass\n",
    )
    .expect("edit");
    let conn = rusqlite::Connection::open(db(root)).expect("open");
    conn.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let query = run(root, &["defs", "User"]);
    assert_eq!(stdout(&query), FOUND, "{}", stderr(&query));
    assert!(
        stderr(&query).contains("another ast-outline is refreshing")
            && stderr(&query).contains("answering from its last completed refresh"),
        "{}",
        stderr(&query)
    );
    let index = run(root, &["index", "."]);
    assert_eq!(index.status.code(), Some(1));
    assert!(
        stderr(&index).contains("another ast-outline is refreshing this index"),
        "{}",
        stderr(&index)
    );
    conn.execute_batch("ROLLBACK").expect("unlock");
    drop(conn);
    // The lock released, the edit is seen.
    let after = run(root, &["hierarchy", "models.py:User"]);
    assert!(
        stdout(&after).contains("models.py:6:Admin"),
        "{}",
        stdout(&after)
    );
}

/// `index` tells the time it waited for another process's refresh apart
/// from its own (it counted the wait as refresh time).
#[test]
fn index_reports_the_time_it_waited_for_another_refresh() {
    let dir = indexed();
    let root = dir.path();
    std::fs::write(root.join("models.py"), "class User:\n    pass\n").expect("edit");
    let conn = rusqlite::Connection::open(db(root)).expect("open");
    conn.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let holder = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        conn.execute_batch("ROLLBACK").expect("unlock");
    });
    let index = run(root, &["index", ".", "--format", "json"]);
    holder.join().expect("holder");
    assert!(index.status.success(), "{}", stderr(&index));
    let json: serde_json::Value = serde_json::from_slice(&index.stdout).expect("json");
    let waited = json["waited_ms"].as_u64().expect("waited_ms");
    let total = json["milliseconds"].as_u64().expect("milliseconds");
    let lock = json["phases_ms"]
        .as_array()
        .and_then(|phases| phases.iter().find(|p| p[0] == "lock"))
        .and_then(|p| p[1].as_u64())
        .expect("a lock phase");
    assert!(waited >= 500 && waited <= total && lock <= waited, "{json}");
    assert_eq!(json["parsed"], 1, "{json}");
}

#[test]
fn a_db_of_another_tree_answers_for_its_tree_or_is_refused_never_rebuilt_from_here() {
    // A query with --db run from another directory refreshed that index
    // from the working directory: it dropped every file of its own tree.
    let project = indexed();
    let elsewhere = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        elsewhere.path().join("other.py"),
        "def other():\n    pass\n",
    )
    .expect("written");
    let db = db(project.path());
    let db = db.to_str().expect("utf-8 path");
    let root = project.path().canonicalize().expect("root");
    let elsewhere_root = elsewhere.path().canonicalize().expect("root");
    // Without --root, a query (and `export`) uses the root the index
    // records.
    let out = run(elsewhere.path(), &["defs", "User", "--db", db]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("models.py"), "{}", stdout(&out));
    let out = run(elsewhere.path(), &["export", "--db", db]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"models.py\""), "{}", stdout(&out));
    assert!(!stdout(&out).contains("other.py"), "{}", stdout(&out));
    // Another root, or `index` from here: refused, saying what to do.
    let other = elsewhere_root.to_str().expect("utf-8 path");
    for args in [
        vec!["defs", "User", "--db", db, "--root", other],
        vec!["index", ".", "--db", db],
    ] {
        let out = run(elsewhere.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains(&format!(
                "the index of {}, not of {}. Use it with its root (`--root {}` on a query",
                root.display(),
                elsewhere_root.display(),
                root.display()
            )),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Nothing of the other tree went in.
    let out = run(
        elsewhere.path(),
        &["defs", "other", "--db", db, "--no-refresh"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("other.py"), "{}", stdout(&out));
    // Moved away, the recorded root is gone: refused all the same.
    let moved = project.path().with_extension("moved");
    std::fs::rename(project.path(), &moved).expect("moved");
    let db = moved.join(".ast-outline/index.sqlite");
    let db = db.to_str().expect("utf-8 path");
    let out = run(elsewhere.path(), &["defs", "User", "--db", db]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("(no longer there)"),
        "{}",
        stderr(&out)
    );
    std::fs::rename(&moved, project.path()).expect("moved back");
}

#[test]
fn another_programs_database_is_refused_never_emptied() {
    let project = indexed();
    let other = tempfile::tempdir().expect("temp dir");
    let path = other.path().join("app.sqlite");
    let conn = rusqlite::Connection::open(&path).expect("database");
    conn.execute_batch("CREATE TABLE users(name TEXT); INSERT INTO users VALUES ('alice');")
        .expect("table");
    drop(conn);
    let db = path.to_str().expect("utf-8 path");
    for args in [
        vec!["index", ".", "--db", db],
        vec!["defs", "User", "--db", db],
    ] {
        let out = run(project.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains("holds another program's tables (no ast-outline index)"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let conn = rusqlite::Connection::open(&path).expect("database");
    let name: String = conn
        .query_row("SELECT name FROM users", [], |row| row.get(0))
        .expect("the table is still there");
    assert_eq!(name, "alice");
}

#[test]
fn a_query_during_a_first_build_waits_for_it() {
    // During another process's first build a query (and a second `index`)
    // failed at once with "another ast-outline is refreshing this index".
    let dir = tempfile::tempdir().expect("temp dir");
    for i in 0..400 {
        std::fs::write(
            dir.path().join(format!("m{i}.py")),
            format!("class C{i}:\n    def f(self):\n        return C{i}()\n"),
        )
        .expect("written");
    }
    let mut build = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(["index", ".", "-q"])
        .current_dir(dir.path())
        .spawn()
        .expect("the build starts");
    std::thread::sleep(std::time::Duration::from_millis(30));
    let query = run(dir.path(), &["defs", "C7"]);
    let again = run(dir.path(), &["index", ".", "-q"]);
    assert!(build.wait().expect("the build ends").success());
    assert!(query.status.success(), "{}", stderr(&query));
    assert!(stdout(&query).contains("m7.py"), "{}", stdout(&query));
    assert!(again.status.success(), "{}", stderr(&again));
}

/// An indexed file that can no longer be indexed (here it became binary)
/// leaves the index, and the summary counts it as removed (found by the
/// new-user trial: "0 removed" while its definitions were gone).
#[test]
fn a_file_that_can_no_longer_be_indexed_counts_as_removed() {
    let dir = indexed();
    let root = dir.path();
    std::fs::write(root.join("other.py"), "def other():\n    pass\n").expect("written");
    let both = run(root, &["index", ".", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&both.stdout).expect("json");
    assert_eq!(json["files"], 2, "{json}");
    std::fs::write(root.join("other.py"), b"def other():\n    pass\n\0\0").expect("binary");
    let after = run(root, &["index", ".", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&after.stdout).expect("json");
    assert_eq!(
        (json["files"].clone(), json["removed"].clone()),
        (1.into(), 1.into()),
        "{json}"
    );
    assert!(
        json["problems"][0]
            .as_str()
            .is_some_and(|p| p.starts_with("other.py: binary")),
        "{json}"
    );
}

/// A `--db` that is a directory, and a file given as the root, are refused
/// with what to do (found by the new-user trial: SQLite's "unable to open
/// database file", and "not a directory" alone).
#[test]
fn a_directory_as_db_and_a_file_as_root_say_what_to_give() {
    let dir = indexed();
    let root = dir.path();
    std::fs::create_dir(root.join("dbdir")).expect("mkdir");
    for args in [
        &["index", ".", "--db", "dbdir"][..],
        &["defs", "User", "--db", "dbdir"][..],
        &["defs", "User", "--db", "dbdir", "--no-refresh"][..],
    ] {
        let refused = run(root, args);
        assert_eq!(refused.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&refused).contains(
                "dbdir: a directory; --db names the index's file (such as dbdir/index.sqlite)"
            ),
            "{args:?}: {}",
            stderr(&refused)
        );
    }
    let null = run(root, &["index", ".", "--db", "/dev/null"]);
    assert!(
        stderr(&null).contains("/dev/null: not a regular file (a device, FIFO or socket)"),
        "{}",
        stderr(&null)
    );
    let file = run(root, &["index", "models.py"]);
    assert_eq!(file.status.code(), Some(1));
    assert!(
        stderr(&file).contains("models.py: not a directory")
            && stderr(&file).contains("`ast-outline index --changed FILE`"),
        "{}",
        stderr(&file)
    );
}

/// Clears the immutable attribute of a directory when dropped (also when
/// the test fails), so that the temporary directory can be deleted.
struct Unfreeze(std::path::PathBuf);

impl Drop for Unfreeze {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// An index in a directory SQLite cannot write to (it creates the WAL's
/// `-shm` file even to read) is queried as it is, with a note; `index`
/// says why it cannot refresh (found by the new-user trial: every query
/// failed with "unable to open database file"). The directory is made
/// immutable with `chattr +i`, which even root cannot write through; where
/// `chattr` is refused (not root, or a file system without the attribute)
/// the test says so and checks nothing.
#[test]
fn an_index_sqlite_cannot_write_beside_is_queried_as_it_is() {
    let dir = indexed();
    let root = dir.path();
    let index_dir = root.join(".ast-outline");
    let frozen = Command::new("chattr")
        .arg("+i")
        .arg(&index_dir)
        .status()
        .is_ok_and(|s| s.success());
    if !frozen {
        eprintln!("skipped: `chattr +i` refused here");
        return;
    }
    let _unfreeze = Unfreeze(index_dir.clone());
    assert!(
        std::fs::write(index_dir.join("probe"), "x").is_err(),
        "the directory is not writable"
    );
    let as_is = run(root, &["defs", "User", "--no-refresh"]);
    assert_eq!(stdout(&as_is), FOUND, "{}", stderr(&as_is));
    let refreshed = run(root, &["defs", "User"]);
    assert_eq!(stdout(&refreshed), FOUND, "{}", stderr(&refreshed));
    assert!(
        stderr(&refreshed).contains("not refreshed (SQLite cannot write there)"),
        "{}",
        stderr(&refreshed)
    );
    let index = run(root, &["index", "."]);
    assert_eq!(index.status.code(), Some(1));
    assert!(
        stderr(&index).contains("SQLite cannot write where the index is"),
        "{}",
        stderr(&index)
    );
}
