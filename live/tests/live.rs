//! The live index (`ast_outline_live`) through its library API: a watched
//! tree followed within a bounded wait, debounce (one update for a burst of
//! writes to one file), backpressure (one full refresh over the
//! threshold), ignored and hidden paths left out, renamed and deleted
//! files and directories, editor buffers indexed from their text, and the
//! check that tells an answer's file changed on disk since it was indexed.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ast_outline_live::{Live, LiveOptions, Update};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The display paths of the definitions named `name`, from the live index.
fn defs(live: &Live, name: &str) -> Vec<String> {
    live.query(|index| {
        index::query::defs(index.connection(), name)
            .expect("defs")
            .into_iter()
            .map(|s| s.id)
            .collect()
    })
}

/// Every file the index holds.
fn files(live: &Live) -> Vec<String> {
    live.query(|index| {
        let mut statement = index
            .connection()
            .prepare("SELECT path FROM files ORDER BY path")
            .expect("prepare");
        statement
            .query_map([], |row| row.get(0))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows")
    })
}

/// Polls `check` until it holds, for at most 10 s (events arrive in
/// microseconds; the bound only keeps a broken watcher from hanging).
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(started.elapsed() < Duration::from_secs(10), "never: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A live index of `root` recording its updates.
fn start(root: &Path, options: LiveOptions) -> (Arc<Live>, Arc<Mutex<Vec<Update>>>) {
    let updates = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&updates);
    let live = Live::start(
        root,
        Some(&root.join("idx.sqlite")),
        options,
        Box::new(move |u| seen.lock().expect("lock").push(u.clone())),
    )
    .expect("start");
    (live, updates)
}

fn options(debounce_ms: u64, threshold: usize, watch: bool) -> LiveOptions {
    LiveOptions {
        debounce: Duration::from_millis(debounce_ms),
        threshold,
        watch,
    }
}

#[test]
fn a_burst_of_writes_to_one_file_is_one_update_after_the_window() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "a.py", "def f():\n    pass\n");
    let (live, updates) = start(root, options(300, 1_000, true));
    for n in 0..5 {
        write(root, "a.py", &format!("def g{n}():\n    pass\n"));
        std::thread::sleep(Duration::from_millis(10));
    }
    // No query: only the worker reads, once the window has closed.
    std::thread::sleep(Duration::from_millis(900));
    let done = updates.lock().expect("lock").clone();
    let paths: Vec<&Vec<String>> = done.iter().map(|u| &u.paths).collect();
    assert_eq!(paths, [&vec!["a.py".to_owned()]]);
    assert_eq!(done[0].stats.parsed, 1);
    assert_eq!(defs(&live, "g4"), ["a.py:1:g4"]);
    assert!(defs(&live, "f").is_empty());
    live.stop();
}

#[test]
fn more_paths_than_the_threshold_give_one_full_refresh_and_every_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "a.py", "def f():\n    pass\n");
    let (live, updates) = start(root, options(200, 5, true));
    for n in 0..20 {
        write(
            root,
            &format!("m{n:02}.py"),
            &format!("def h{n}():\n    pass\n"),
        );
    }
    eventually("the last file indexed", || defs(&live, "h19").len() == 1);
    let done = updates.lock().expect("lock").clone();
    assert!(
        done.iter()
            .any(|u| u.full.as_deref() == Some("more than 5 paths pending")),
        "{done:?}"
    );
    let mut expected = vec!["a.py".to_owned()];
    expected.extend((0..20).map(|n| format!("m{n:02}.py")));
    assert_eq!(files(&live), expected);
    live.stop();
}

#[test]
fn ignored_and_hidden_paths_never_enter_and_renames_and_deletions_follow() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, ".gitignore", "build/\n*.gen.py\n");
    write(root, "pkg/a.py", "def f():\n    pass\n");
    let (live, _) = start(root, options(20, 1_000, true));
    write(root, "build/out.py", "def ignored_dir():\n    pass\n");
    write(root, "x.gen.py", "def ignored_name():\n    pass\n");
    write(root, ".hidden/h.py", "def hidden():\n    pass\n");
    write(root, "pkg/b.py", "def kept():\n    pass\n");
    eventually("pkg/b.py indexed", || defs(&live, "kept").len() == 1);
    // Events of the ignored files came first, so they were read by now.
    assert_eq!(files(&live), ["pkg/a.py", "pkg/b.py"]);

    // A directory renamed: its files move.
    std::fs::rename(root.join("pkg"), root.join("lib")).expect("rename");
    eventually("the files under lib/", || {
        files(&live) == ["lib/a.py", "lib/b.py"]
    });
    assert_eq!(defs(&live, "kept"), ["lib/b.py:1:kept"]);
    // A file renamed, then a directory deleted.
    std::fs::rename(root.join("lib/a.py"), root.join("lib/c.py")).expect("rename");
    eventually("c.py", || files(&live) == ["lib/b.py", "lib/c.py"]);
    std::fs::remove_dir_all(root.join("lib")).expect("rm");
    eventually("nothing left", || files(&live).is_empty());
    live.stop();
}

#[test]
fn a_buffer_is_indexed_from_its_text_and_closing_it_reads_the_disk_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "a.py", "def on_disk():\n    pass\n");
    let (live, _) = start(root, options(200, 1_000, false));
    let path = live.root().join("a.py");
    live.set_buffer(
        &path,
        Some(b"def in_buffer():\n    pass\n".as_slice().into()),
    );
    // A query reads what is pending at once, whatever the window.
    assert_eq!(defs(&live, "in_buffer"), ["a.py:1:in_buffer"]);
    assert!(defs(&live, "on_disk").is_empty());
    // A change on disk does not win over the open buffer.
    write(root, "a.py", "def saved_elsewhere():\n    pass\n");
    live.changed([path.clone()]);
    assert_eq!(defs(&live, "in_buffer"), ["a.py:1:in_buffer"]);
    live.set_buffer(&path, None);
    assert_eq!(defs(&live, "saved_elsewhere"), ["a.py:1:saved_elsewhere"]);
    live.stop();
}

#[test]
fn a_file_changed_since_it_was_indexed_is_told_apart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "a.py", "def f():\n    pass\n");
    write(root, "b.py", "def g():\n    pass\n");
    // Not watching: nothing tells the index about the write.
    let (live, _) = start(root, options(200, 1_000, false));
    write(root, "a.py", "def f():\n    return 1\n");
    let files = ["a.py".to_owned(), "b.py".to_owned()];
    assert_eq!(live.query(|index| live.stale(index, &files)), ["a.py"]);
    live.changed([live.root().join("a.py")]);
    assert!(live.query(|index| live.stale(index, &files)).is_empty());
    live.stop();
}

/// An open buffer whose file is not on disk (never saved, or deleted while
/// open) stays in the index through a full refresh, which walks only the
/// disk (a new-user trial saw one vanish).
#[test]
fn a_buffer_without_a_file_survives_a_full_refresh() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "a.py", "def f():\n    pass\n");
    write(root, "b.py", "def g():\n    pass\n");
    let (live, updates) = start(root, options(20, 1_000, true));
    let unsaved = live.root().join("new.py");
    live.set_buffer(
        &unsaved,
        Some(b"def unsaved():\n    pass\n".as_slice().into()),
    );
    assert_eq!(defs(&live, "unsaved"), ["new.py:1:unsaved"]);
    // A settings file changes (b.py becomes ignored): every file is looked
    // at again.
    write(root, ".gitignore", "b.py\n");
    eventually("a full refresh", || {
        defs(&live, "g").is_empty()
            && updates
                .lock()
                .expect("lock")
                .iter()
                .any(|u| u.full.is_some())
    });
    assert_eq!(defs(&live, "unsaved"), ["new.py:1:unsaved"]);
    live.stop();
}

/// A file written just before a question is in the answer, without any
/// wait by the asker: the query first waits for the watcher to deliver the
/// event of a cookie file it writes after (an MCP test once missed a new
/// caller written right before `find_references`).
#[test]
fn a_query_sees_a_file_written_just_before_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(root, "a.py", "def f():\n    pass\n");
    // The default database, so `ROOT/.ast-outline/` exists for the cookies.
    let live = Live::start(root, None, options(200, 1_000, true), Box::new(|_| {})).expect("start");
    for n in 0..30 {
        write(
            root,
            &format!("m{n}.py"),
            &format!("def fresh_{n}():\n    pass\n"),
        );
        assert_eq!(
            defs(&live, &format!("fresh_{n}")),
            [format!("m{n}.py:1:fresh_{n}")]
        );
    }
    live.stop();
}
