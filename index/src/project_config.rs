//! The project settings the resolver needs from outside the files' facts,
//! read from the directories holding an indexed TypeScript/JavaScript or
//! Rust file and their parents up to the indexed root:
//!
//! - each `tsconfig.json` (or `jsconfig.json`), read as JSON with comments
//!   and trailing commas (as TypeScript reads it). Only
//!   `compilerOptions.baseUrl` and `compilerOptions.paths` are used, with
//!   `extends` followed (a relative path, or a package's file found in a
//!   `node_modules` of the tsconfig's directory or a parent inside the root;
//!   an array's later entries win; the child's options win over its bases').
//! - each `package.json` with a `name` in those directories: a workspace
//!   package that bare specifiers name (see [`TsPackage`]).
//! - each `Cargo.toml` with a `[package]` (its `name`, or `[lib] name`):
//!   the crates that give Rust files their module paths.
//!
//! A file that cannot be read or parsed is skipped (imports then resolve as
//! if it were absent). These files are read at every refresh of the whole
//! tree that resolves again; a change to them alone does not trigger one, a
//! change seen then ([`store_config`]) resolves every reference again. A
//! refresh of named files only ([`crate::Index::refresh_files`]) keeps the
//! stored settings ([`stored_config`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use outline_core::xref::{Facts, ModuleDecl};
use rusqlite::{OptionalExtension, Transaction, params};
use xref::{
    ProjectConfig, RustCrate, TsConfig, TsPackage, is_script, join_path as join, rust_modules,
};

use crate::{Error, SourceEntry};

/// The [`ProjectConfig`] of the files `entries`.
pub fn project_config(entries: &[SourceEntry]) -> ProjectConfig {
    ProjectConfig {
        ts_configs: read_in_dirs(entries, is_script, &["tsconfig.json", "jsconfig.json"])
            .into_iter()
            .filter_map(|(root, dir, text)| {
                let read = |path: &str| std::fs::read_to_string(root.join(path)).ok();
                parse_ts_config_with(&dir, &text, &read)
            })
            .collect(),
        ts_packages: read_in_dirs(entries, is_script, &["package.json"])
            .into_iter()
            .filter_map(|(_, dir, text)| parse_package_json(&dir, &text))
            .collect(),
        rust_crates: read_in_dirs(entries, |p| p.ends_with(".rs"), &["Cargo.toml"])
            .into_iter()
            .filter_map(|(_, dir, text)| parse_cargo_toml(&dir, &text))
            .collect(),
    }
}

/// Sets every Rust file's module path ([`rust_modules`]: the tree of its
/// crate's `mod x;` declarations, read from the stored facts of the files
/// holding a module symbol, else the layout) and marks it a package (every
/// Rust module can hold modules: `super` is one level up). Returns whether
/// any file's module changed (a new file's too).
///
/// # Errors
/// [`Error::Sqlite`].
pub fn update_rust_modules(tx: &Transaction<'_>, crates: &[RustCrate]) -> Result<bool, Error> {
    type Row = (i64, String, Option<String>, bool, Option<Vec<u8>>);
    let rows: Vec<Row> = {
        let mut statement = tx.prepare(
            "SELECT id, path, module, is_package, \
             CASE WHEN EXISTS (SELECT 1 FROM symbols s \
                 WHERE s.file_id = files.id AND s.kind = 'module') \
             THEN facts END \
             FROM files WHERE language = 'rust' ORDER BY path",
        )?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let decls: Vec<Vec<ModuleDecl>> = rows
        .iter()
        .map(|(_, _, _, _, blob)| {
            blob.as_deref()
                .and_then(|b| crate::store::decode::<Facts>(b).ok())
                .map(|facts| facts.modules)
                .unwrap_or_default()
        })
        .collect();
    let files: Vec<(&str, &[ModuleDecl])> = rows
        .iter()
        .zip(&decls)
        .map(|((_, path, _, _, _), decls)| (path.as_str(), decls.as_slice()))
        .collect();
    let modules = rust_modules(&files, crates);
    let mut update =
        tx.prepare_cached("UPDATE files SET module = ?1, is_package = 1 WHERE id = ?2")?;
    let mut changed = false;
    for ((id, _, module, is_package, _), new_module) in rows.iter().zip(modules) {
        if new_module != *module || !is_package {
            update.execute(params![new_module, id])?;
            changed = true;
        }
    }
    Ok(changed)
}

/// Stores `config` (as JSON) in `meta` under `config`; returns whether it
/// differs from the one stored (or none was). A tsconfig or Cargo.toml
/// change then resolves everything again.
///
/// # Errors
/// [`Error::Sqlite`]; [`Error::Json`] when it cannot be written as JSON.
pub fn store_config(tx: &Transaction<'_>, config: &ProjectConfig) -> Result<bool, Error> {
    let json = serde_json::to_string(config).map_err(|e| Error::Json(e.to_string()))?;
    let stored: Option<String> = tx
        .query_row("SELECT value FROM meta WHERE key = 'config'", [], |row| {
            row.get(0)
        })
        .optional()?;
    if stored.as_deref() == Some(json.as_str()) {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO meta(key, value) VALUES ('config', ?1) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [json],
    )?;
    Ok(true)
}

/// The settings [`store_config`] stored with the last refresh of every
/// file; `None` when there are none (no such refresh yet, or an index from
/// a version that kept only their digest).
///
/// # Errors
/// [`Error::Sqlite`].
pub fn stored_config(tx: &Transaction<'_>) -> Result<Option<ProjectConfig>, Error> {
    let stored: Option<String> = tx
        .query_row("SELECT value FROM meta WHERE key = 'config'", [], |row| {
            row.get(0)
        })
        .optional()?;
    Ok(stored.and_then(|json| serde_json::from_str(&json).ok()))
}

/// The `[package] name` (or `[lib] name`) of a `Cargo.toml` in `dir`, read
/// line by line (`name = "…"` in those tables); `None` for a workspace
/// manifest without a package.
pub fn parse_cargo_toml(dir: &str, text: &str) -> Option<RustCrate> {
    let mut table = "";
    let mut package = None;
    let mut lib = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            table = line;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "name" {
            continue;
        }
        let value = value.trim().trim_matches('"').trim_matches('\'').to_owned();
        match table {
            "[package]" => package = Some(value),
            "[lib]" => lib = Some(value),
            _ => {}
        }
    }
    let package = package?;
    Some(RustCrate {
        name: lib.unwrap_or(package),
        dir: dir.to_owned(),
    })
}

/// (root, project-relative dir, text) of the first of `names` found in
/// each directory holding a file of `entries` that `wanted` accepts, and in
/// each parent up to the root.
fn read_in_dirs(
    entries: &[SourceEntry],
    wanted: impl Fn(&str) -> bool,
    names: &[&str],
) -> Vec<(PathBuf, String, String)> {
    // Each entry's root: its path without its display path.
    let mut dirs: BTreeSet<(PathBuf, String)> = BTreeSet::new();
    for entry in entries.iter().filter(|e| wanted(&e.display)) {
        let Some(root) = root_of(&entry.path, &entry.display) else {
            continue;
        };
        let mut dir = entry.display.rsplit_once('/').map_or("", |(d, _)| d);
        loop {
            if !dirs.insert((root.clone(), dir.to_owned())) {
                break;
            }
            match dir.rsplit_once('/') {
                Some((parent, _)) => dir = parent,
                None if dir.is_empty() => break,
                None => dir = "",
            }
        }
    }
    let mut found = Vec::new();
    for (root, dir) in dirs {
        for name in names {
            let path = if dir.is_empty() {
                root.join(name)
            } else {
                root.join(&dir).join(name)
            };
            if let Ok(text) = std::fs::read_to_string(&path) {
                found.push((root.clone(), dir.clone(), text));
                break;
            }
        }
    }
    found
}

/// The directory `display` is relative to, given the file's `path`.
fn root_of(path: &Path, display: &str) -> Option<PathBuf> {
    let mut root = path.to_path_buf();
    for _ in display.split('/') {
        if !root.pop() {
            return None;
        }
    }
    Some(root)
}

/// Most `extends` levels followed (TypeScript reports a cycle; a longer
/// chain is cut here).
const MAX_EXTENDS: u32 = 16;

/// The settings of a tsconfig in directory `dir` (project-relative) with
/// the text `text`, `extends` followed: `read` gives the text of a
/// project-relative file path (`None`: absent); a base that cannot be read
/// or parsed is skipped. `None` when `text` is not JSON (after comments and
/// trailing commas are removed).
pub fn parse_ts_config_with(
    dir: &str,
    text: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<TsConfig> {
    let own = own_options(dir, text)?;
    let mut config = TsConfig {
        dir: dir.to_owned(),
        ..TsConfig::default()
    };
    let mut chain = vec![own];
    // Bases, nearest first: each config's `extends`, later array entries
    // before earlier ones (they override them).
    let mut index = 0;
    while let Some(current) = chain.get(index) {
        let extends = current.extends.clone();
        let from = current.dir.clone();
        index += 1;
        if index as u32 > MAX_EXTENDS {
            break;
        }
        for written in extends.iter().rev() {
            if let Some((base_dir, base_text)) = find_base(&from, written, read)
                && let Some(base) = own_options(&base_dir, &base_text)
            {
                chain.push(base);
            }
        }
    }
    // The first in the chain that sets an option gives it.
    for options in &chain {
        if config.base_url.is_none() {
            config.base_url = options.base_url.clone();
        }
        if config.paths.is_empty()
            && let Some(paths) = &options.paths
        {
            config.paths = paths.clone();
            if options.dir != dir {
                config.paths_dir = Some(options.dir.clone());
            }
        }
    }
    Some(config)
}

/// The options a tsconfig sets itself, with the directory it is in.
struct OwnOptions {
    dir: String,
    base_url: Option<String>,
    paths: Option<Vec<(String, Vec<String>)>>,
    extends: Vec<String>,
}

/// The (project-relative dir, text) of the tsconfig `written` in an
/// `extends` of a tsconfig in `from`: a relative path (`.json` added when
/// the file is not found as written), else a package file under the
/// `node_modules` of `from` or a parent (a package name alone means its
/// `tsconfig.json`).
fn find_base(
    from: &str,
    written: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, String)> {
    let try_file = |path: String| -> Option<(String, String)> {
        for candidate in [
            path.clone(),
            format!("{path}.json"),
            format!("{path}/tsconfig.json"),
        ] {
            if let Some(text) = read(&candidate) {
                let dir = candidate.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
                return Some((dir, text));
            }
        }
        None
    };
    if written.starts_with("./") || written.starts_with("../") {
        return try_file(join(from, written)?);
    }
    if written.starts_with('/') {
        return None;
    }
    let mut dir = from.to_owned();
    loop {
        if let Some(found) = join(&dir, &format!("node_modules/{written}")).and_then(try_file) {
            return Some(found);
        }
        if dir.is_empty() {
            return None;
        }
        dir = dir.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
    }
}

/// What one tsconfig text sets, `extends` not followed; `None` when not
/// JSON.
fn own_options(dir: &str, text: &str) -> Option<OwnOptions> {
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let options = value.get("compilerOptions");
    let base_url = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .and_then(|b| join(dir, b));
    let extends = match value.get("extends") {
        Some(serde_json::Value::String(one)) => vec![one.clone()],
        Some(serde_json::Value::Array(many)) => many
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let paths = options
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
        .map(|paths| {
            paths
                .iter()
                .map(|(pattern, subs)| {
                    let subs = subs
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|s| s.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    (pattern.clone(), subs)
                })
                .collect()
        });
    Some(OwnOptions {
        dir: dir.to_owned(),
        base_url,
        paths,
        extends,
    })
}

/// The workspace package a `package.json` in `dir` declares: its `name`,
/// and the files its entry points name (`exports`: the `"."` entry or the
/// whole value, a string or conditions, `types` first, then `import`,
/// `default`, `require`; its other subpaths; then `types`/`typings`,
/// `module`, `main`). `None` without a `name` or when not JSON.
pub fn parse_package_json(dir: &str, text: &str) -> Option<TsPackage> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let name = value.get("name")?.as_str()?.to_owned();
    let mut entries = Vec::new();
    let mut subpaths = Vec::new();
    match value.get("exports") {
        Some(serde_json::Value::Object(map)) if map.keys().any(|k| k.starts_with('.')) => {
            for (key, target) in map {
                let targets = export_targets(target);
                if key == "." {
                    entries.extend(targets);
                } else if let Some(sub) = key.strip_prefix("./") {
                    subpaths.push((sub.to_owned(), targets));
                }
            }
        }
        Some(other) => entries.extend(export_targets(other)),
        None => {}
    }
    for key in ["types", "typings", "module", "main"] {
        if let Some(target) = value.get(key).and_then(|v| v.as_str()) {
            entries.push(target.to_owned());
        }
    }
    let relative = |t: &String| join(dir, t);
    Some(TsPackage {
        name,
        dir: dir.to_owned(),
        entries: entries.iter().filter_map(relative).collect(),
        subpaths: subpaths
            .into_iter()
            .map(|(sub, targets)| (sub, targets.iter().filter_map(relative).collect()))
            .collect(),
    })
}

/// The files an `exports` value names, in the order they are tried:
/// a string, an array, or conditions (`types`, `import`, `default`,
/// `require`, then the others, nested).
fn export_targets(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(items) => items.iter().flat_map(export_targets).collect(),
        serde_json::Value::Object(map) => {
            let mut out = Vec::new();
            for key in ["types", "import", "default", "require"] {
                if let Some(v) = map.get(key) {
                    out.extend(export_targets(v));
                }
            }
            for (key, v) in map {
                if !matches!(key.as_str(), "types" | "import" | "default" | "require") {
                    out.extend(export_targets(v));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// `text` without `//` and `/* */` comments (outside strings) and without
/// commas right before a closing `}` or `]`.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    // Trailing commas.
    let mut cleaned = String::with_capacity(out.len());
    let mut in_string = false;
    let mut escaped = false;
    let bytes: Vec<char> = out.chars().collect();
    for (i, &c) in bytes.iter().enumerate() {
        if in_string {
            cleaned.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        if c == ',' {
            let next = bytes
                .get(i + 1..)
                .and_then(|rest| rest.iter().find(|c| !c.is_whitespace()));
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        cleaned.push(c);
    }
    cleaned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsconfig_with_comments_and_trailing_commas() {
        let text = r#"{
  // The app's settings.
  "compilerOptions": {
    "baseUrl": "./src", /* relative to this file */
    "paths": { "@app/*": ["app/*", "legacy/*",], "x//y": ["z"] },
  },
}"#;
        let config = parse_ts_config_with("web", text, &|_| None);
        assert_eq!(
            config,
            Some(TsConfig {
                dir: "web".into(),
                base_url: Some("web/src".into()),
                paths: vec![
                    ("@app/*".into(), vec!["app/*".into(), "legacy/*".into()]),
                    ("x//y".into(), vec!["z".into()]),
                ],
                paths_dir: None,
            })
        );
        assert_eq!(parse_ts_config_with("", "not json", &|_| None), None);
    }

    #[test]
    fn tsconfig_extends_relative_and_package_bases() {
        let files = [
            (
                "tsconfig.base.json",
                r#"{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["libs/*"]}}}"#,
            ),
            (
                "node_modules/@company/tsconfig/tsconfig.json",
                r#"{"compilerOptions": {"paths": {"@shared/*": ["shared/*"]}}}"#,
            ),
        ];
        let read = |path: &str| {
            files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, text)| (*text).to_owned())
        };
        // Relative, `.json` left out: both options come from the base.
        let web = r#"{"extends": "../tsconfig.base", "compilerOptions": {}}"#;
        assert_eq!(
            parse_ts_config_with("web", web, &read),
            Some(TsConfig {
                dir: "web".into(),
                base_url: Some(String::new()),
                paths: vec![("@lib/*".into(), vec!["libs/*".into()])],
                paths_dir: Some(String::new()),
            })
        );
        // A package's tsconfig from the root's node_modules; the child's
        // own baseUrl wins.
        let api = r#"{"extends": ["@company/tsconfig"], "compilerOptions": {"baseUrl": "src"}}"#;
        assert_eq!(
            parse_ts_config_with("api", api, &read),
            Some(TsConfig {
                dir: "api".into(),
                base_url: Some("api/src".into()),
                paths: vec![("@shared/*".into(), vec!["shared/*".into()])],
                paths_dir: Some("node_modules/@company/tsconfig".into()),
            })
        );
        // A missing base is skipped.
        let lone = r#"{"extends": "./missing.json"}"#;
        assert_eq!(
            parse_ts_config_with("", lone, &read),
            Some(TsConfig::default())
        );
    }

    #[test]
    fn package_json_entries_and_subpaths() {
        let text = r#"{
  "name": "@app/core",
  "main": "dist/index.js",
  "exports": {
    ".": { "types": "./dist/index.d.ts", "import": "./src/index.ts" },
    "./utils/*": "./src/utils/*.ts"
  }
}"#;
        assert_eq!(
            parse_package_json("packages/core", text),
            Some(TsPackage {
                name: "@app/core".into(),
                dir: "packages/core".into(),
                entries: vec![
                    "packages/core/dist/index.d.ts".into(),
                    "packages/core/src/index.ts".into(),
                    "packages/core/dist/index.js".into(),
                ],
                subpaths: vec![(
                    "utils/*".into(),
                    vec!["packages/core/src/utils/*.ts".into()],
                )],
            })
        );
        assert_eq!(parse_package_json("", r#"{"private": true}"#), None);
    }

    #[test]
    fn cargo_toml_names() {
        let text =
            "[package]\nname = \"my-core\"\nversion = \"0.1.0\"\n\n[dependencies]\nname = \"x\"\n";
        assert_eq!(
            parse_cargo_toml("core", text),
            Some(RustCrate {
                name: "my-core".into(),
                dir: "core".into()
            })
        );
        let lib = "[package]\nname = \"a\"\n[lib]\nname = \"b\"\n";
        assert_eq!(parse_cargo_toml("", lib).map(|c| c.name), Some("b".into()));
        assert_eq!(parse_cargo_toml("", "[workspace]\nmembers = []\n"), None);
    }
}
