//! The real-code corpora of the differential tests and the mutation harness:
//! the Python standard library of the `python3` on `PATH`, TypeScript's
//! `lib*.d.ts`, rxjs, and the TypeScript sources of two applications'
//! libraries, ra-core and msw (installed by `npm ci` in `tests/oracle/ts`),
//! and the sources of the registry crates in the workspace's `Cargo.lock`.
//!
//! Every list is sorted, so a corpus is the same on every machine with the same
//! Python, lock files and packages. The functions panic with an explanation
//! when a corpus cannot be found: the tests need it and must not pass empty.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `tests/` directory of the workspace (the `golden-tests` package).
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python standard library directory of the `python3` on `PATH`, or
/// `ORACLE_PYTHON_DIR` when set. Panics when neither works.
pub fn stdlib_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("ORACLE_PYTHON_DIR") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "ORACLE_PYTHON_DIR {} is not a directory",
            dir.display()
        );
        return dir;
    }
    let output = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "this test needs `python3` on PATH (CPython is the oracle), \
                 but it cannot be run: {e}"
            )
        });
    assert!(
        output.status.success(),
        "python3 could not report its stdlib directory: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    assert!(dir.is_dir(), "stdlib directory {} not found", dir.display());
    dir
}

/// Every `*.py` file below `root`, as (relative path with `/`, path), walked
/// like the CPython oracle's `os.walk`: symlinked directories are not entered,
/// and only `root/site-packages` is skipped.
pub fn python_files(root: &Path) -> Vec<(String, PathBuf)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|entry| entry.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                let symlink = path.symlink_metadata().is_ok_and(|m| m.is_symlink());
                let skipped = dir == root && path.file_name() == Some("site-packages".as_ref());
                if !symlink && !skipped {
                    walk(root, &path, out);
                }
            } else if path.to_string_lossy().ends_with(".py") {
                let relative = path.strip_prefix(root).expect("below root");
                let relative = relative.to_string_lossy().replace('\\', "/");
                out.push((relative, path));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

/// `tests/oracle/ts`: the TypeScript oracle and its npm packages.
pub fn ts_oracle_dir() -> PathBuf {
    tests_dir().join("oracle").join("ts")
}

/// The npm packages of the TypeScript corpora (and the oracle, `typescript`),
/// pinned in `tests/oracle/ts/package.json` and its lockfile.
pub const TS_PACKAGES: [&str; 4] = ["typescript", "rxjs", "ra-core", "msw"];

/// Runs `npm ci` in `dir` (the TypeScript oracle directory) when one of its
/// packages ([`TS_PACKAGES`]) is missing, once at a time in a process (the
/// tests of one binary run in parallel). Panics when `npm` fails.
pub fn ensure_ts_packages(dir: &Path) {
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _installing = INSTALLING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if TS_PACKAGES
        .iter()
        .all(|p| dir.join("node_modules").join(p).is_dir())
    {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("this test needs `npm` to install its oracle: {e}"));
    assert!(status.success(), "`npm ci` failed in {}", dir.display());
}

/// The TypeScript corpora, in report order: `lib` (`typescript/lib`),
/// `rxjs`, `ra-core`, `msw` (what [`ts_package_files`] lists) and `fixtures`
/// (our own, `tests/fixtures/ts`).
pub const TS_CORPORA: [&str; 5] = ["lib", "rxjs", "ra-core", "msw", "fixtures"];

/// The corpus of [`TS_CORPORA`] a path relative to the oracle directory
/// belongs to (`fixtures` for anything outside `node_modules`).
pub fn ts_corpus_of(relative: &str) -> &'static str {
    let package = relative
        .strip_prefix("node_modules/")
        .and_then(|rest| rest.split('/').next());
    match package {
        Some("typescript") => "lib",
        Some("rxjs") => "rxjs",
        Some("ra-core") => "ra-core",
        Some("msw") => "msw",
        _ => "fixtures",
    }
}

/// The TypeScript corpus below `dir` (the oracle directory, packages
/// installed), as paths relative to `dir` with `/`, in the order of
/// [`TS_CORPORA`]: the `lib*.d.ts` files and `typescript.d.ts` of
/// `typescript/lib`; the `.ts` sources of rxjs (`rxjs/src`) and its compiled
/// output: CommonJS (ES5, `exports.x = …`) and ES modules JavaScript, and the
/// emitted declaration files (`rxjs/dist/cjs`, `esm`, `types`); then the
/// application code: the `.ts` and `.tsx` sources (tests and stories
/// included, `.d.ts` declarations left out) of ra-core (`ra-core/src`, a React
/// framework) and msw (`msw/src`, request handlers), whose compiled `dist`
/// and `lib` are left out.
pub fn ts_package_files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path
                .extension()
                .is_some_and(|e| e == "ts" || e == "tsx" || e == "js")
            {
                let relative = path.strip_prefix(root).expect("below root");
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut files = Vec::new();
    let lib = dir.join("node_modules/typescript/lib");
    let mut libs: Vec<String> = std::fs::read_dir(&lib)
        .expect("typescript/lib exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".d.ts"))
        .map(|p| {
            p.strip_prefix(dir)
                .expect("below root")
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    libs.sort();
    files.extend(libs);
    walk(&dir.join("node_modules/rxjs/src"), dir, &mut files);
    for sub in ["cjs", "esm", "types"] {
        walk(
            &dir.join("node_modules/rxjs/dist").join(sub),
            dir,
            &mut files,
        );
    }
    for package in ["ra-core", "msw"] {
        let mut sources = Vec::new();
        walk(
            &dir.join("node_modules").join(package).join("src"),
            dir,
            &mut sources,
        );
        sources.retain(|f| (f.ends_with(".ts") || f.ends_with(".tsx")) && !f.ends_with(".d.ts"));
        files.extend(sources);
    }
    files
}

/// Every `*.rs` file of every registry package in the workspace's
/// `Cargo.lock`, read from `$CARGO_HOME/registry/src/*/NAME-VERSION`.
/// A build unpacks only the packages of its own platform, so first `cargo
/// fetch --locked` unpacks the others (a no-op when they are there): the
/// corpus, and every sample of it, is then the same on a fresh machine as
/// on one that fetched before. When that fails (no network, no registry),
/// the packages that are not there are skipped. Symlinks are not followed.
/// Sorted.
pub fn locked_crate_files() -> Vec<PathBuf> {
    fetch_locked_packages();
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let symlink = path.symlink_metadata().is_ok_and(|m| m.is_symlink());
            if symlink {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let lock_path = tests_dir().join("../Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path).expect("Cargo.lock is readable");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    let registries: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    let mut files = Vec::new();
    for package in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            package.lines().find_map(|line| {
                line.strip_prefix(key)
                    .and_then(|rest| rest.trim().strip_prefix("= "))
                    .map(|v| v.trim_matches('"').to_owned())
            })
        };
        let (Some(name), Some(version), Some(source)) =
            (field("name "), field("version "), field("source "))
        else {
            continue;
        };
        if !source.starts_with("registry+") {
            continue;
        }
        for registry in &registries {
            let dir = registry.join(format!("{name}-{version}"));
            if dir.is_dir() {
                walk(&dir, &mut files);
                break;
            }
        }
    }
    files.sort();
    files
}

/// Runs `cargo fetch --locked` for the workspace once per process (see
/// [`locked_crate_files`]); its failure is ignored.
fn fetch_locked_packages() {
    static FETCHED: std::sync::Once = std::sync::Once::new();
    FETCHED.call_once(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let manifest = tests_dir().join("../Cargo.toml");
        let _ = std::process::Command::new(cargo)
            .arg("fetch")
            .arg("--locked")
            .arg("--manifest-path")
            .arg(manifest)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    });
}
