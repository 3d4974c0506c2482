//! The project settings the resolver needs from outside the files' facts,
//! read from the directories holding an indexed TypeScript/JavaScript or
//! Rust file and their parents up to the indexed root:
//!
//! - each `tsconfig.json` (or `jsconfig.json`), read as JSON with comments
//!   and trailing commas (as TypeScript reads it). Only
//!   `compilerOptions.baseUrl` and `compilerOptions.paths` are used;
//!   `extends` is not followed.
//! - each `Cargo.toml` with a `[package]` (its `name`, or `[lib] name`):
//!   the crates that give Rust files their module paths.
//!
//! A file that cannot be read or parsed is skipped (imports then resolve as
//! if it were absent). These files are read at every refresh that resolves
//! again; a change to them alone does not trigger one, a change seen then
//! ([`store_digest`]) resolves every reference again.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, Transaction, params};
use xref::{ProjectConfig, RustCrate, TsConfig, is_script, join_path as join, rust_module};

use crate::{Error, SourceEntry};

/// The [`ProjectConfig`] of the files `entries`.
pub fn project_config(entries: &[SourceEntry]) -> ProjectConfig {
    ProjectConfig {
        ts_configs: read_in_dirs(entries, is_script, &["tsconfig.json", "jsconfig.json"])
            .into_iter()
            .filter_map(|(dir, text)| parse_ts_config(&dir, &text))
            .collect(),
        rust_crates: read_in_dirs(entries, |p| p.ends_with(".rs"), &["Cargo.toml"])
            .into_iter()
            .filter_map(|(dir, text)| parse_cargo_toml(&dir, &text))
            .collect(),
    }
}

/// Sets every Rust file's module path ([`rust_module`]) and marks it a
/// package (every Rust module can hold modules: `super` is one level up).
/// Returns whether any file's module changed (a new file's too).
///
/// # Errors
/// [`Error::Sqlite`].
pub fn update_rust_modules(tx: &Transaction<'_>, crates: &[RustCrate]) -> Result<bool, Error> {
    let paths: Vec<(i64, String, Option<String>, bool)> = {
        let mut statement =
            tx.prepare("SELECT id, path, module, is_package FROM files WHERE language = 'rust'")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let all: HashSet<&str> = paths.iter().map(|(_, p, _, _)| p.as_str()).collect();
    let mut update =
        tx.prepare_cached("UPDATE files SET module = ?1, is_package = 1 WHERE id = ?2")?;
    let mut changed = false;
    for (id, path, module, is_package) in &paths {
        let new_module = rust_module(path, crates, &all);
        if new_module != *module || !is_package {
            update.execute(params![new_module, id])?;
            changed = true;
        }
    }
    Ok(changed)
}

/// Stores a digest (XXH3-64 of its debug form) of `config` in `meta` under
/// `config`; returns whether it differs from the one stored (or none was).
/// A tsconfig or Cargo.toml change then resolves everything again.
///
/// # Errors
/// [`Error::Sqlite`].
pub fn store_digest(tx: &Transaction<'_>, config: &ProjectConfig) -> Result<bool, Error> {
    let digest = format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(format!("{config:?}").as_bytes())
    );
    let stored: Option<String> = tx
        .query_row("SELECT value FROM meta WHERE key = 'config'", [], |row| {
            row.get(0)
        })
        .optional()?;
    if stored.as_deref() == Some(digest.as_str()) {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO meta(key, value) VALUES ('config', ?1) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [digest],
    )?;
    Ok(true)
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

/// (project-relative dir, text) of the first of `names` found in each
/// directory holding a file of `entries` that `wanted` accepts, and in each
/// parent up to the root.
fn read_in_dirs(
    entries: &[SourceEntry],
    wanted: impl Fn(&str) -> bool,
    names: &[&str],
) -> Vec<(String, String)> {
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
                found.push((dir.clone(), text));
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

/// The settings of a tsconfig in directory `dir` (project-relative) with
/// the text `text`; `None` when it is not JSON (after comments and trailing
/// commas are removed).
pub fn parse_ts_config(dir: &str, text: &str) -> Option<TsConfig> {
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let options = value.get("compilerOptions");
    let base_url = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .and_then(|b| join(dir, b));
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
        })
        .unwrap_or_default();
    Some(TsConfig {
        dir: dir.to_owned(),
        base_url,
        paths,
    })
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
        let config = parse_ts_config("web", text);
        assert_eq!(
            config,
            Some(TsConfig {
                dir: "web".into(),
                base_url: Some("web/src".into()),
                paths: vec![
                    ("@app/*".into(), vec!["app/*".into(), "legacy/*".into()]),
                    ("x//y".into(), vec!["z".into()]),
                ],
            })
        );
        assert_eq!(parse_ts_config("", "not json"), None);
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
