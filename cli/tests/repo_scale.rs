//! End-to-end tests of `outline` over trees: the persistent cache (hits,
//! misses, edits, touches, version changes, corrupt entries, unwritable
//! places), output order with many threads, and the `--max-tokens` repo map.
//! Nothing here is timed: speed is measured by `bench/compare.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

use ast_outline_budget as tokens;
use tempfile::TempDir;

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ast-outline"))
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `ast-outline ARGS` in `dir`, with the user cache directory at
/// `dir/.user-cache` (never the real one).
fn run_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join(".user-cache"))
        .output()
        .expect("run ast-outline");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let run = run_in(dir, args);
    assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
    assert_eq!(run.stderr, "", "{args:?} wrote to stderr");
    run.stdout
}

fn write(root: &Path, name: &str, text: &str) -> PathBuf {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    path
}

/// A small tree of three languages, in `tree/` under a fresh directory.
fn tree() -> TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "tree/shop.py",
        "class Cart:\n    \"\"\"A cart.\"\"\"\n    def total(self) -> int:\n        return 1\n",
    );
    write(
        dir.path(),
        "tree/web/api.ts",
        "export class Api {\n  getTotal(): number { return 1; }\n}\n",
    );
    write(
        dir.path(),
        "tree/src/lib.rs",
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    );
    dir
}

/// The cache entries under `cache`, by file name, with their inode numbers
/// (an entry that was written again is a new file: the cache renames a
/// fresh temporary file over it).
#[cfg(unix)]
fn entries(cache: &Path) -> Vec<(String, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut found: Vec<(String, u64)> = std::fs::read_dir(cache.join("entries"))
        .expect("entries dir")
        .map(|e| e.expect("entry"))
        .filter(|e| !e.file_name().to_string_lossy().starts_with(".tmp"))
        .map(|e| {
            let ino = e.metadata().expect("metadata").ino();
            (e.file_name().to_string_lossy().into_owned(), ino)
        })
        .collect();
    found.sort();
    found
}

/// The one entry whose stored JSON is of the file `path`.
fn entry_of(cache: &Path, path: &str) -> PathBuf {
    let needle = format!("path={path:?}");
    std::fs::read_dir(cache.join("entries"))
        .expect("entries dir")
        .map(|e| e.expect("entry").path())
        .find(|p| {
            std::fs::read(p).is_ok_and(|bytes| {
                let header = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
                String::from_utf8_lossy(header).contains(&needle)
            })
        })
        .unwrap_or_else(|| panic!("no cache entry for {path}"))
}

/// A cache entry taken apart: its header up to the blocks, the JSON line,
/// the view (key in hex, text) if any, and the status record after the `|`.
#[derive(Debug, Clone, PartialEq)]
struct Parts {
    head: String,
    json: String,
    view: Option<(String, String)>,
    record: String,
}

/// Takes a cache entry apart: one header line describing each block as
/// `HASH:LEN:PACKED_LEN`, then the LZ4-compressed JSON line and view.
fn unpack(bytes: &[u8]) -> Parts {
    let newline = bytes.iter().position(|&b| b == b'\n').expect("a header");
    let header = String::from_utf8(bytes[..newline].to_vec()).expect("UTF-8 header");
    let (fixed, record) = header.rsplit_once('|').expect("a record");
    let start = fixed.find(" json=").expect("json=") + 1;
    let mut rest = &bytes[newline + 1..];
    let mut take = |spec: &str| {
        let numbers: Vec<&str> = spec.split(':').collect();
        let len: usize = numbers[1].parse().expect("length");
        let packed_len: usize = numbers[2].parse().expect("packed length");
        let (packed, after) = rest.split_at(packed_len);
        rest = after;
        String::from_utf8(lz4_flex::block::decompress(packed, len).expect("LZ4")).expect("UTF-8")
    };
    let specs: Vec<&str> = fixed[start..].split_whitespace().collect();
    let json = take(specs[0].strip_prefix("json=").expect("json="));
    let view = specs.get(1).map(|spec| {
        let (key, spec) = spec
            .strip_prefix("view=")
            .expect("view=")
            .split_once(':')
            .expect("key");
        (key.to_owned(), take(spec))
    });
    Parts {
        head: fixed[..start].to_owned(),
        json,
        view,
        record: record.to_owned(),
    }
}

/// Puts a cache entry together, with block descriptions made for its
/// texts, the JSON's edited by `edit_json_spec`.
fn pack_edited(parts: &Parts, edit_json_spec: impl Fn(String) -> String) -> Vec<u8> {
    let block = |text: &str| {
        let packed = lz4_flex::block::compress(text.as_bytes());
        let spec = format!(
            "{:016x}:{}:{}",
            xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
            text.len(),
            packed.len()
        );
        (spec, packed)
    };
    let (json_spec, json_packed) = block(&parts.json);
    let mut header = format!("{}json={} ", parts.head, edit_json_spec(json_spec));
    let mut body = json_packed;
    if let Some((key, text)) = &parts.view {
        let (spec, packed) = block(text);
        header.push_str(&format!("view={key}:{spec} "));
        body.extend(packed);
    }
    let mut bytes = format!("{header}|{}\n", parts.record).into_bytes();
    bytes.extend(body);
    bytes
}

/// Puts a cache entry together, with right block descriptions.
fn pack(parts: &Parts) -> Vec<u8> {
    pack_edited(parts, |spec| spec)
}

/// Rewrites the JSON line and the view stored in the cache entry of `path`,
/// replacing `from` by `to`, with matching checksums: what the cache then
/// serves shows that it was a hit (a re-parse would print the file's real
/// outline).
fn forge(cache: &Path, path: &str, from: &str, to: &str) {
    let entry = entry_of(cache, path);
    let mut parts = unpack(&std::fs::read(&entry).expect("entry"));
    assert!(parts.json.contains(from), "{}", parts.json);
    parts.json = parts.json.replace(from, to);
    if let Some((_, text)) = &mut parts.view {
        *text = text.replace(from, to);
    }
    std::fs::write(&entry, pack(&parts)).expect("forge");
}

/// `output` with `from` replaced by `to` in the line of `path` only (JSON
/// Lines output).
fn forged_line(output: &str, path: &str, from: &str, to: &str) -> String {
    let prefix = format!("{{\"path\":{path:?}");
    output
        .lines()
        .map(|line| {
            if line.starts_with(&prefix) {
                line.replace(from, to)
            } else {
                line.to_owned()
            }
        })
        .map(|line| line + "\n")
        .collect()
}

/// Sets the modification time of `path`.
fn set_mtime(path: &Path, time: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open")
        .set_modified(time)
        .expect("set mtime");
}

#[cfg(unix)]
#[test]
fn the_cache_is_hit_on_unchanged_and_touched_files_and_missed_on_edits() {
    let dir = tree();
    let root = dir.path();
    std::fs::create_dir(root.join("tree/.git")).expect("git dir");
    let cache = root.join("tree/.ast-outline");
    let reference = ok(root, &["outline", "--no-cache", "--format", "json", "tree"]);
    assert!(!cache.exists(), "--no-cache wrote a cache");

    let cold = ok(root, &["outline", "--format", "json", "tree"]);
    assert_eq!(cold, reference);
    let first = entries(&cache);
    assert_eq!(first.len(), 3, "one entry per file: {first:?}");
    assert_eq!(
        std::fs::read_to_string(cache.join(".gitignore")).expect(".gitignore"),
        "# Made by ast-outline: its cache.\n*\n"
    );
    // The files were just written, so their status is not trusted yet
    // (every lookup is by content until they are two seconds old).
    let shop = unpack(&std::fs::read(entry_of(&cache, "tree/shop.py")).expect("entry"));
    assert!(shop.record.ends_with(" trusted=0"), "{shop:?}");

    // Warm: every file a hit, in both formats and with filters.
    forge(&cache, "tree/shop.py", "total", "stale");
    let stale = forged_line(&reference, "tree/shop.py", "total", "stale");
    assert_ne!(stale, reference);
    assert_eq!(ok(root, &["outline", "--format", "json", "tree"]), stale);
    let text = ok(root, &["outline", "tree"]);
    assert!(text.contains("def stale(self) -> int"), "{text}");
    let filtered = ok(root, &["outline", "--depth", "1", "--no-docs", "tree"]);
    assert!(filtered.contains("class Cart"), "{filtered}");
    assert!(
        !filtered.contains("stale") && !filtered.contains("A cart."),
        "{filtered}"
    );

    // Touched but unchanged: still a hit (by content).
    let shop = root.join("tree/shop.py");
    set_mtime(
        &shop,
        std::time::SystemTime::now() + std::time::Duration::from_secs(60),
    );
    assert_eq!(ok(root, &["outline", "--format", "json", "tree"]), stale);
    assert_eq!(ok(root, &["outline", "--format", "json", "tree"]), stale);

    // Edited, same size and modification time: a miss, and the new outline.
    let modified = std::fs::metadata(&shop)
        .expect("meta")
        .modified()
        .expect("mtime");
    let old = std::fs::read_to_string(&shop).expect("read");
    std::fs::write(&shop, old.replace("total", "summa")).expect("edit");
    set_mtime(&shop, modified);
    let edited = ok(root, &["outline", "--format", "json", "tree"]);
    assert!(edited.contains("\"tree/shop.py:3:Cart.summa\""), "{edited}");
    assert!(!edited.contains("stale"), "{edited}");
    assert_eq!(
        edited,
        ok(root, &["outline", "--no-cache", "--format", "json", "tree"])
    );
    let after = entries(&cache);
    assert_eq!(after.len(), 3, "{after:?}");
    let web = entry_of(&cache, "tree/web/api.ts");
    let web_name = web
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(
        after.iter().any(|e| e.0 == web_name) && first.iter().any(|e| e.0 == web_name),
        "entries are named by path: {first:?} {after:?}"
    );

    // Other extraction options are other entries' business: a miss.
    let blocks = ok(
        root,
        &[
            "outline",
            "--block-threshold",
            "1",
            "--format",
            "json",
            "tree",
        ],
    );
    assert_eq!(
        blocks,
        ok(
            root,
            &[
                "outline",
                "--no-cache",
                "--block-threshold",
                "1",
                "--format",
                "json",
                "tree"
            ]
        )
    );
}

/// Once a file's last change is two seconds older than its entry, the
/// entry trusts its status: an unchanged file is a hit without being read,
/// and an edit that restores size and modification time still misses (its
/// status-change time moved).
#[cfg(unix)]
#[test]
fn a_settled_file_is_a_hit_by_status_and_an_edit_still_misses() {
    let dir = tree();
    let root = dir.path();
    let cache = root.join("cache");
    let cache_arg = cache.to_str().expect("utf-8");
    let args = [
        "outline",
        "--cache-dir",
        cache_arg,
        "--format",
        "json",
        "tree",
    ];
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    let reference = ok(root, &["outline", "--no-cache", "--format", "json", "tree"]);
    assert_eq!(ok(root, &args), reference);
    let shop = unpack(&std::fs::read(entry_of(&cache, "tree/shop.py")).expect("entry"));
    assert!(shop.record.ends_with(" trusted=1"), "{shop:?}");

    forge(&cache, "tree/shop.py", "total", "stale");
    let stale = forged_line(&reference, "tree/shop.py", "total", "stale");
    assert_eq!(ok(root, &args), stale);

    let shop = root.join("tree/shop.py");
    let modified = std::fs::metadata(&shop)
        .expect("meta")
        .modified()
        .expect("mtime");
    let old = std::fs::read_to_string(&shop).expect("read");
    std::fs::write(&shop, old.replace("total", "summa")).expect("edit");
    set_mtime(&shop, modified);
    let edited = ok(root, &args);
    assert!(edited.contains("Cart.summa"), "{edited}");
    assert!(!edited.contains("stale"), "{edited}");
}

#[test]
fn an_entry_of_another_version_or_corrupt_is_a_miss_and_is_written_again() {
    let dir = tree();
    let root = dir.path();
    let cache = root.join("cache");
    let cache_arg = cache.to_str().expect("utf-8");
    let reference = ok(root, &["outline", "--no-cache", "--format", "json", "tree"]);
    ok(root, &["outline", "--cache-dir", cache_arg, "tree"]);
    let entry = entry_of(&cache, "tree/shop.py");
    let stored = std::fs::read(&entry).expect("entry");
    let parts = unpack(&stored);
    let version = format!(" {} ", env!("CARGO_PKG_VERSION"));
    assert!(parts.head.contains(&version), "{parts:?}");
    assert!(
        parts.view.is_some(),
        "a text run stores its view: {parts:?}"
    );
    let mut stale = parts.clone();
    stale.json = stale.json.replace("Cart.total", "Cart.stale");
    if let Some((_, text)) = &mut stale.view {
        *text = text.replace("total", "stale");
    }
    let mut older = stale.clone();
    older.head = older.head.replacen(&version, " 0.0.0-older ", 1);
    let mut altered = parts.clone();
    altered.json = stale.json.clone();
    let json_hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(parts.json.as_bytes()));

    let forged = [
        // Another version of the tool wrote it (with another outline).
        pack(&older),
        // The stored JSON was altered (its checksum no longer matches).
        pack_edited(&altered, |spec| format!("{json_hash}{}", &spec[16..])),
        // Cut short.
        stored[..stored.len() / 2].to_vec(),
        // A header claiming a huge JSON.
        pack_edited(&parts, |spec| {
            let numbers: Vec<&str> = spec.split(':').collect();
            format!("{}:4000000000:{}", numbers[0], numbers[2])
        }),
        // Not an entry at all.
        b"garbage\0\x01".to_vec(),
        Vec::new(),
    ];
    for text in forged {
        let text_shown = String::from_utf8_lossy(&text).into_owned();
        std::fs::write(&entry, &text).expect("forge");
        for format in ["json", "text"] {
            let out = ok(
                root,
                &[
                    "outline",
                    "--cache-dir",
                    cache_arg,
                    "--format",
                    format,
                    "tree",
                ],
            );
            assert!(!out.contains("stale"), "{text_shown:?} was used: {out}");
        }
        assert_eq!(
            ok(
                root,
                &[
                    "outline",
                    "--cache-dir",
                    cache_arg,
                    "--format",
                    "json",
                    "tree"
                ]
            ),
            reference
        );
        // Written again: the same entry, except that its status record may
        // have become trusted in the meantime.
        let untrusted = |bytes: &[u8]| {
            let mut parts = unpack(bytes);
            parts.record = parts.record.replace(" trusted=1", " trusted=0");
            parts
        };
        assert_eq!(
            untrusted(&std::fs::read(&entry).expect("entry")),
            untrusted(&stored),
            "the entry is written again after {text_shown:?}"
        );
    }
}

#[test]
fn an_unwritable_cache_place_never_fails_the_outline() {
    let dir = tree();
    let root = dir.path();
    let reference = ok(root, &["outline", "--no-cache", "tree"]);
    // Neither `.ast-outline/` nor the user cache directory can be made (a
    // file is in the way: permissions do not stop root, who runs CI).
    write(root, "tree/.ast-outline", "not a directory\n");
    write(root, ".user-cache", "not a directory\n");
    assert_eq!(ok(root, &["outline", "tree"]), reference);

    // An explicit --cache-dir that cannot be made: a note, the same output.
    let run = run_in(
        root,
        &["outline", "--cache-dir", "tree/shop.py/cache", "tree"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, reference);
    assert!(
        run.stderr
            .starts_with("ast-outline: note: cannot use the cache directory tree/shop.py/cache"),
        "{}",
        run.stderr
    );
    // --quiet leaves the note out.
    let quiet = run_in(
        root,
        &[
            "outline",
            "--quiet",
            "--cache-dir",
            "tree/shop.py/cache",
            "tree",
        ],
    );
    assert_eq!((quiet.code, quiet.stderr.as_str()), (Some(0), ""));
    assert_eq!(quiet.stdout, reference);
}

#[test]
fn a_read_only_project_falls_back_to_the_user_cache_directory() {
    let dir = tree();
    let root = dir.path();
    std::fs::create_dir(root.join("tree/.git")).expect("git dir");
    write(root, "tree/.ast-outline", "in the way\n");
    let reference = ok(root, &["outline", "--no-cache", "tree"]);
    assert_eq!(ok(root, &["outline", "tree"]), reference);
    let user = root.join(".user-cache/ast-outline");
    let made: Vec<_> = std::fs::read_dir(&user).expect("user cache").collect();
    assert_eq!(made.len(), 1, "one cache for the tree");
    assert_eq!(ok(root, &["outline", "tree"]), reference);
}

#[cfg(unix)]
#[test]
fn a_tree_outside_any_project_is_never_written_to() {
    // No `.git` and no `.ast-outline/` above it (the Python standard library,
    // say): the cache goes to the user cache directory, and is hit there.
    let dir = tree();
    let root = dir.path();
    let reference = ok(root, &["outline", "--no-cache", "tree"]);
    assert_eq!(ok(root, &["outline", "tree"]), reference);
    assert!(!root.join("tree/.ast-outline").exists());
    let user = root.join(".user-cache/ast-outline");
    let made: Vec<PathBuf> = std::fs::read_dir(&user)
        .expect("user cache")
        .map(|entry| entry.expect("entry").path())
        .collect();
    assert_eq!(made.len(), 1, "one cache for the tree");
    let before = entries(&made[0]);
    assert_eq!(before.len(), 3, "one entry per file");
    assert_eq!(ok(root, &["outline", "tree"]), reference);
    assert_eq!(entries(&made[0]), before, "hits: nothing written again");
}

#[test]
fn the_cache_directory_is_never_outlined() {
    let dir = tree();
    let root = dir.path();
    std::fs::create_dir(root.join("tree/.git")).expect("git dir");
    ok(root, &["outline", "tree"]);
    assert!(root.join("tree/.ast-outline/entries").is_dir());
    write(
        root,
        "tree/.ast-outline/planted.py",
        "def planted():\n    pass\n",
    );
    let everything = ok(root, &["outline", "--hidden", "--no-ignore", "tree"]);
    assert!(!everything.contains("planted"), "{everything}");
    assert!(everything.contains("tree/shop.py"), "{everything}");
}

#[test]
fn many_files_on_many_threads_come_out_in_path_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let mut names = Vec::new();
    for i in 0..300 {
        // Sizes vary a lot so that workers finish out of order.
        let functions = if i % 37 == 0 { 2_000 } else { 1 + i % 5 };
        let mut text = String::new();
        for f in 0..functions {
            text.push_str(&format!("def f{f}(x):\n    return x\n"));
        }
        let name = format!("d{}/m{i:03}.py", i % 7);
        write(root, &name, &text);
        names.push(name);
    }
    names.sort();
    let args = ["outline", "--no-cache", "--format", "json", "-j", "4", "."];
    let out = ok(root, &args);
    let paths: Vec<String> = out
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("json line");
            value["path"].as_str().expect("path").to_owned()
        })
        .collect();
    assert_eq!(paths, names);
    assert_eq!(
        out,
        ok(
            root,
            &["outline", "--no-cache", "--format", "json", "-j", "1", "."]
        )
    );
}

/// A tree big enough that a budget must choose: 30 files.
fn big_tree() -> TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..30 {
        let mut text = format!("\"\"\"Module {i}.\"\"\"\n");
        for c in 0..3 {
            text.push_str(&format!(
                "class Thing{i}x{c}:\n    \"\"\"A thing.\"\"\"\n    def method_{c}(self, count: int) -> str:\n        \"\"\"Does {c}.\"\"\"\n        return ''\n    def _hidden(self):\n        pass\n"
            ));
        }
        let depth = if i % 3 == 0 {
            "pkg/"
        } else {
            "pkg/sub/deeper/"
        };
        write(dir.path(), &format!("{depth}mod{i:02}.py"), &text);
    }
    dir
}

#[test]
fn the_repo_map_is_never_over_budget_and_says_what_was_elided() {
    let dir = big_tree();
    let root = dir.path();
    let full = ok(root, &["outline", "--no-cache", "."]);
    let full_tokens = tokens::count(&full).expect("tokenizer");
    let mut budgets: Vec<usize> = (1..40).map(|i| i * 7).collect();
    budgets.extend([
        300,
        500,
        800,
        1_000,
        1_500,
        2_000,
        3_000,
        5_000,
        full_tokens * 2,
    ]);
    let mut shown_before = 0;
    for budget in budgets {
        let run = run_in(root, &["outline", "--max-tokens", &budget.to_string(), "."]);
        if run.code != Some(0) {
            assert!(
                run.stderr.contains(&format!(
                    "--max-tokens {budget} is too small for even the header"
                )),
                "{budget}: {}",
                run.stderr
            );
            assert_eq!(run.stdout, "");
            continue;
        }
        let out = &run.stdout;
        let used = tokens::count(out).expect("tokenizer");
        assert!(used <= budget, "{budget}: {used} tokens:\n{out}");
        assert!(
            out.starts_with(&format!(
                "# repo map of . (30 files) in at most {budget} tokens (o200k_base)"
            )),
            "{budget}: {out}"
        );
        let last = out.lines().last().expect("a last line");
        if last.starts_with("(cut after ") {
            // Too small for one file's top level: whole lines, said so.
            assert!(last.ends_with("lines of the top-level map to fit --max-tokens {budget}; outline a narrower path or raise it)".replace("{budget}", &budget.to_string()).as_str()), "{last}");
            assert!(
                out.lines().nth(1).is_some_and(|l| l.starts_with("pkg/")),
                "{out}"
            );
            continue;
        }
        let shown = out.lines().filter(|l| l.starts_with("pkg/")).count();
        assert!(
            shown >= shown_before,
            "{budget}: fewer files than a smaller budget"
        );
        shown_before = shown;
        if budget >= full_tokens * 2 || budget > full_tokens && last.starts_with("(complete") {
            assert_eq!(
                last,
                format!("(complete: nothing elided to fit {budget} tokens)")
            );
            assert_eq!(shown, 30);
            assert!(out.contains("def method_1(self, count: int) -> str — Does 1."));
        } else {
            assert!(
                last.starts_with(&format!("(elided to fit {budget} tokens: ")),
                "{last}"
            );
            match 30 - shown {
                0 => {}
                1 => assert!(last.contains("1 file left out"), "{last}"),
                n => assert!(last.contains(&format!("{n} files left out")), "{last}"),
            }
        }
        // Members only once every file is shown with its top level.
        if out.lines().any(|l| l.starts_with("  L")) {
            assert_eq!(shown, 30, "{budget}: members before every file:\n{out}");
        }
        // Signatures only once every file is shown with its top level.
        if out.contains("def method_") {
            assert_eq!(shown, 30, "{budget}: signatures before every file:\n{out}");
        }
        // Shallow files first: a deeper file only when every shallow one is in.
        if out.lines().any(|l| l.starts_with("pkg/sub/deeper/")) {
            assert_eq!(out.matches("\npkg/mod").count(), 10, "{budget}:\n{out}");
        }
    }
}

/// A large file first in rank order and small ones after it: while the
/// large file is left out, no other file shows members or signatures; once
/// it is in, the small files may get signatures it has no room for.
#[test]
fn no_file_gets_more_detail_while_another_is_left_with_less() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let big: String = (0..120)
        .map(|i| format!("def function_{i}(a: int, b: int) -> int:\n    return a\n"))
        .collect();
    write(root, "pkg/big.py", &big);
    for i in 0..8 {
        write(
            root,
            &format!("pkg/sub/small{i}.py"),
            "class Small:\n    def member(self, x: int) -> int:\n        return x\n",
        );
    }
    let mut seen_left_out = false;
    let mut seen_names_only = false;
    for budget in (100..3_000).step_by(50) {
        let run = run_in(
            root,
            &[
                "outline",
                "--no-cache",
                "--max-tokens",
                &budget.to_string(),
                ".",
            ],
        );
        assert_eq!(run.code, Some(0), "{budget}: {}", run.stderr);
        let out = &run.stdout;
        assert!(tokens::count(out).expect("tokenizer") <= budget, "{budget}");
        let last = out.lines().last().expect("last line");
        if last.starts_with("(cut after ") {
            continue;
        }
        let big_shown = out.lines().any(|l| l.starts_with("pkg/big.py "));
        let members = out.lines().any(|l| l.starts_with("  L"));
        let signatures = out.contains("def member(self, x: int) -> int");
        let big_signatures = out.contains("def function_0(a: int, b: int) -> int");
        if !big_shown {
            seen_left_out = true;
            assert!(last.contains("left out (pkg/big.py"), "{budget}: {last}");
            assert!(
                !members && !signatures,
                "{budget}: detail while big.py is left out:\n{out}"
            );
        } else if !big_signatures && signatures {
            seen_names_only = true;
            assert!(last.contains("names only"), "{budget}: {last}");
        }
    }
    assert!(
        seen_left_out && seen_names_only,
        "the budgets cover both cases"
    );
}

/// One file and a budget too small for its top level: its top-level lines
/// are cut after whole lines (never an empty map); a budget too small even
/// for that is an error; a JSON repo map is a usage error.
#[test]
fn a_small_budget_on_one_file_cuts_its_top_level_after_whole_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let text: String = (0..60)
        .map(|i| format!("def function_{i}(a: int) -> int:\n    return a\n"))
        .collect();
    write(root, "one.py", &text);
    let out = ok(
        root,
        &["outline", "--no-cache", "--max-tokens", "150", "one.py"],
    );
    assert!(
        out.starts_with("# repo map of one.py (1 file) in at most 150 tokens (o200k_base)"),
        "{out}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.get(1).copied(),
        Some("one.py (python, 120 lines)"),
        "{out}"
    );
    assert_eq!(
        lines.get(2).copied(),
        Some("L1-2 function function_0"),
        "{out}"
    );
    let last = lines.last().expect("last");
    assert!(
        last.starts_with("(cut after ") && last.contains(" of 62 lines of the top-level map"),
        "{last}"
    );
    assert!(tokens::count(&out).expect("tokenizer") <= 150);

    let tiny = run_in(
        root,
        &["outline", "--no-cache", "--max-tokens", "20", "one.py"],
    );
    assert_eq!(tiny.code, Some(1));
    assert!(
        tiny.stderr.contains("--max-tokens 20 is too small"),
        "{}",
        tiny.stderr
    );

    let json = run_in(
        root,
        &[
            "outline",
            "--max-tokens",
            "500",
            "--format",
            "json",
            "one.py",
        ],
    );
    assert_eq!(json.code, Some(2));
    assert_eq!(json.stdout, "");
    assert!(
        json.stderr.contains(
            "--max-tokens prints a text repo map and cannot be combined with --format json"
        ),
        "{}",
        json.stderr
    );
    // The usage of `outline`, not of the whole tool (a new-user trial).
    assert!(
        json.stderr
            .contains("Usage: ast-outline outline [OPTIONS] <PATH>..."),
        "{}",
        json.stderr
    );
}

/// A run stores its output for each file (its view) beside the JSON line,
/// for its display options: the next run with the same options prints it as
/// it is; a run with other options (or JSON) uses the JSON line, and its own
/// view then replaces the stored one.
#[test]
fn a_run_serves_the_view_stored_for_its_options_and_only_for_them() {
    let dir = tree();
    let root = dir.path();
    let cache = root.join("cache");
    let cache_arg = cache.to_str().expect("utf-8");
    let text = ["outline", "--cache-dir", cache_arg, "tree"];
    let reference = ok(root, &["outline", "--no-cache", "tree"]);
    assert_eq!(ok(root, &text), reference);

    // Only the view is forged: a text run prints it, a JSON run does not.
    let entry = entry_of(&cache, "tree/shop.py");
    let mut parts = unpack(&std::fs::read(&entry).expect("entry"));
    let (key, view) = parts.view.clone().expect("a view");
    assert!(view.contains("def total(self) -> int"), "{view}");
    parts.view = Some((key.clone(), view.replace("total", "stale")));
    std::fs::write(&entry, pack(&parts)).expect("forge");
    assert_eq!(ok(root, &text), reference.replace("total", "stale"));
    let json = ok(
        root,
        &[
            "outline",
            "--cache-dir",
            cache_arg,
            "--format",
            "json",
            "tree",
        ],
    );
    assert!(!json.contains("stale"), "{json}");

    // Other display options: the JSON line, and their view replaces the
    // stored one.
    let shallow = ["outline", "--cache-dir", cache_arg, "--depth", "1", "tree"];
    let shallow_reference = ok(root, &["outline", "--no-cache", "--depth", "1", "tree"]);
    assert_eq!(ok(root, &shallow), shallow_reference);
    let replaced = unpack(&std::fs::read(&entry).expect("entry"));
    let (other_key, other_view) = replaced.view.expect("a view");
    assert_ne!(other_key, key);
    assert!(
        !other_view.contains("stale") && !other_view.contains("def total"),
        "{other_view}"
    );
    assert_eq!(ok(root, &shallow), shallow_reference);
    assert_eq!(ok(root, &text), reference);
}

/// A `.ast-outline` that is a symbolic link (committed to a repository, say)
/// is never followed: the directory it points to is left alone and the user
/// cache directory is used.
#[cfg(unix)]
#[test]
fn a_linked_cache_directory_is_never_followed() {
    let dir = tree();
    let root = dir.path();
    std::fs::create_dir(root.join("tree/.git")).expect("git dir");
    std::fs::create_dir(root.join("victim")).expect("victim");
    std::os::unix::fs::symlink("../victim", root.join("tree/.ast-outline")).expect("link");
    let reference = ok(root, &["outline", "--no-cache", "tree"]);
    assert_eq!(ok(root, &["outline", "tree"]), reference);
    let victim: Vec<_> = std::fs::read_dir(root.join("victim"))
        .expect("victim")
        .collect();
    assert!(
        victim.is_empty(),
        "wrote into the link's target: {victim:?}"
    );
    let user: Vec<_> = std::fs::read_dir(root.join(".user-cache/ast-outline"))
        .expect("the user cache is used instead")
        .collect();
    assert_eq!(user.len(), 1);
}

/// A FIFO, a link or a huge sparse file in place of a cache entry is a miss
/// (never waited on, never followed, never read whole), and is replaced.
#[cfg(unix)]
#[test]
fn an_entry_that_is_a_fifo_or_a_link_is_a_miss() {
    let dir = tree();
    let root = dir.path();
    let cache = root.join("cache");
    let cache_arg = cache.to_str().expect("utf-8");
    let args = [
        "outline",
        "--cache-dir",
        cache_arg,
        "--format",
        "json",
        "tree",
    ];
    let reference = ok(root, &["outline", "--no-cache", "--format", "json", "tree"]);
    assert_eq!(ok(root, &args), reference);
    let entry = entry_of(&cache, "tree/shop.py");
    let fake = root.join("fake-entry");
    std::fs::write(&fake, "not an entry\n").expect("fake");
    for make in ["fifo", "link", "sparse"] {
        std::fs::remove_file(&entry).expect("remove");
        match make {
            "fifo" => {
                let status = Command::new("mkfifo").arg(&entry).status().expect("mkfifo");
                assert!(status.success());
            }
            "link" => std::os::unix::fs::symlink(&fake, &entry).expect("link"),
            _ => std::fs::File::create(&entry)
                .and_then(|f| f.set_len(4 << 30))
                .expect("sparse"),
        }
        let mut child = Command::new(binary())
            .args(args)
            .current_dir(root)
            .env("XDG_CACHE_HOME", root.join(".user-cache"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let start = std::time::Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if start.elapsed() > std::time::Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{make}: the outline hung");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let output = child.wait_with_output().expect("output");
        assert!(output.status.success(), "{make}");
        assert_eq!(
            String::from_utf8(output.stdout).expect("utf-8"),
            reference,
            "{make}"
        );
        let meta = std::fs::symlink_metadata(&entry).expect("entry");
        assert!(
            meta.is_file() && meta.len() < 1 << 20,
            "{make}: not replaced"
        );
        assert_eq!(
            std::fs::read_to_string(&fake).expect("fake"),
            "not an entry\n"
        );
    }
}

/// A tree that its enclosing git repository ignores (the Python standard
/// library inside pyenv's checkout, say) is not that project's: its cache
/// goes to the user cache directory, not into the repository.
#[test]
fn a_tree_ignored_by_its_repository_is_cached_outside_it() {
    let dir = tree();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).expect("git dir");
    write(root, ".gitignore", "/versions/\n");
    write(
        root,
        "versions/3.11/lib/json.py",
        "def loads(s):\n    return s\n",
    );
    let reference = ok(root, &["outline", "--no-cache", "versions/3.11/lib"]);
    assert_eq!(ok(root, &["outline", "versions/3.11/lib"]), reference);
    assert!(
        !root.join(".ast-outline").exists(),
        "wrote into the repository"
    );
    let user: Vec<_> = std::fs::read_dir(root.join(".user-cache/ast-outline"))
        .expect("the user cache is used")
        .collect();
    assert_eq!(user.len(), 1);
    // A tree the repository does not ignore is the project's.
    assert_eq!(
        ok(root, &["outline", "tree"]),
        ok(root, &["outline", "--no-cache", "tree"])
    );
    assert!(root.join(".ast-outline/entries").is_dir());
}

/// `--threads` far above the number of CPUs or files: the same output, in
/// bounded time (walkers are capped at the CPUs, parsers at the files).
#[test]
fn huge_thread_counts_are_capped() {
    let dir = tree();
    let root = dir.path();
    let reference = ok(root, &["outline", "--no-cache", "-j", "1", "tree"]);
    for threads in ["2000", "4294967295"] {
        assert_eq!(
            ok(root, &["outline", "--no-cache", "-j", threads, "tree"]),
            reference,
            "-j {threads}"
        );
    }
}

/// The map's budget is used to the token: a map that fits exactly is
/// printed whole, and a file shown with names only keeps its count of
/// syntax errors in its header line.
#[test]
fn a_map_that_fits_exactly_is_complete_and_counts_stay_true() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "good.py", "def good(): pass\n");
    write(
        root,
        "bad.py",
        "def ok():\n    pass\ndef broken(:\n    x = (\nclass C:\n    def m(self): pass\n",
    );
    let whole = ok(
        root,
        &["outline", "--no-cache", "--max-tokens", "100000", "good.py"],
    );
    let exact = tokens::count(&whole).expect("tokenizer");
    let at_exact = ok(
        root,
        &[
            "outline",
            "--no-cache",
            "--max-tokens",
            &exact.to_string(),
            "good.py",
        ],
    );
    assert_eq!(
        at_exact,
        whole.replace("100000 tokens", &format!("{exact} tokens"))
    );
    assert!(
        at_exact.ends_with("(complete: nothing elided to fit ".to_owned().as_str())
            || at_exact.contains("(complete: ")
    );

    let mut seen_names_only = false;
    for budget in (80..300).step_by(5) {
        let run = run_in(
            root,
            &[
                "outline",
                "--no-cache",
                "-q",
                "--max-tokens",
                &budget.to_string(),
                ".",
            ],
        );
        if run.code != Some(0) || !run.stdout.contains("bad.py (") {
            continue;
        }
        assert!(
            run.stdout
                .contains("bad.py (python, 6 lines; partial outline: 1 syntax error)"),
            "{budget}: {}",
            run.stdout
        );
        seen_names_only |= run.stdout.contains("L3-4 function broken");
    }
    assert!(seen_names_only, "some budget shows bad.py with names only");
}
