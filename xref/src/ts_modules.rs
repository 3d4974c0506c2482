//! TypeScript/JavaScript module specifiers to project files, by the rules of
//! TypeScript's `moduleResolution: "bundler"`/`"node10"` for files (the
//! TypeScript handbook, "Module Resolution"): relative specifiers with
//! extension lookup and a directory's `index`, a `.js` written in TypeScript
//! source meaning the `.ts` file, `tsconfig.json` `baseUrl` and `paths`
//! (with one `*`). A bare specifier that no `paths` entry or `baseUrl` maps
//! to a project file is a package: inside the project when a
//! `package.json` of the project declares that name ([`TsPackage`]: its
//! `exports`, `types`, `main`; the symlink a workspace tool makes in
//! `node_modules`), else outside it. `rootDirs` is not read; `extends` is
//! followed where the tsconfig is read (the `index` crate).

use std::collections::HashSet;

/// The module-resolution settings of one `tsconfig.json` (or
/// `jsconfig.json`), with its paths made relative to the project root
/// (`/`-separated, no leading `./`; `""` is the root itself).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TsConfig {
    /// The directory holding the tsconfig: it applies to files below it
    /// (the nearest one wins).
    pub dir: String,
    /// `compilerOptions.baseUrl`, joined to `dir`.
    pub base_url: Option<String>,
    /// `compilerOptions.paths`: each pattern (`@app/*`) with its
    /// substitutions as written (`src/app/*`), which are relative to
    /// `base_url` when set, else to `paths_dir`.
    pub paths: Vec<(String, Vec<String>)>,
    /// The directory of the tsconfig that declares `paths` when it is an
    /// extended one (`extends`) in another directory; `None`: `dir`.
    pub paths_dir: Option<String>,
}

/// A package of the project, from its `package.json`: a bare specifier
/// naming it (`@app/core`, `@app/core/sub`) is one of its files.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TsPackage {
    /// `name`.
    pub name: String,
    /// The directory holding the `package.json` (project-relative).
    pub dir: String,
    /// The files the package's own specifier may name, in the order they
    /// are tried (project-relative: `exports` `"."`, `types`, `main`…).
    pub entries: Vec<String>,
    /// `exports` subpaths (`utils`, `*` patterns kept with their `*`) with
    /// their files (project-relative).
    pub subpaths: Vec<(String, Vec<String>)>,
}

/// The project file a bare `specifier` names through a workspace package
/// of `packages` (see [`TsPackage`]): an entry of the package for its name,
/// an `exports` subpath or a path inside the package directory for
/// `name/sub`; a compiled entry (`dist/index.js`) that is not a project file
/// falls back to the package directory's `index` and to `src/index`.
pub fn resolve_package(
    specifier: &str,
    files: &HashSet<&str>,
    packages: &[TsPackage],
) -> Option<String> {
    let package = packages
        .iter()
        .filter(|p| {
            specifier == p.name
                || specifier
                    .strip_prefix(p.name.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|p| p.name.len())?;
    let sub = specifier
        .get(package.name.len()..)
        .unwrap_or_default()
        .trim_start_matches('/');
    if sub.is_empty() {
        for entry in &package.entries {
            if let Some(found) = file_or_directory(entry, files) {
                return Some(found);
            }
        }
        return file_or_directory(&package.dir, files)
            .or_else(|| file_or_directory(&join(&package.dir, "src")?, files));
    }
    for (pattern, targets) in &package.subpaths {
        let captured = match pattern.split_once('*') {
            None => (pattern == sub).then_some(""),
            Some((prefix, suffix)) => sub
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix)),
        };
        let Some(captured) = captured else {
            continue;
        };
        for target in targets {
            if let Some(found) = file_or_directory(&target.replacen('*', captured, 1), files) {
                return Some(found);
            }
        }
    }
    file_or_directory(&join(&package.dir, sub)?, files)
}

/// Extensions of TypeScript and JavaScript files, in the order TypeScript
/// tries them for an extensionless specifier (sources before declarations,
/// TypeScript before JavaScript).
pub const SCRIPT_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs",
];

/// Whether `path` is a TypeScript or JavaScript file.
pub fn is_script(path: &str) -> bool {
    SCRIPT_EXTENSIONS.iter().any(|e| path.ends_with(e))
}

/// The project file `specifier` (as written in an import of the file
/// `from`) names, or `None` when it names no file of `files` (a package, a
/// missing file). `configs` are the project's tsconfigs; the one whose
/// `dir` is the longest prefix of `from` applies.
pub fn resolve_specifier(
    from: &str,
    specifier: &str,
    files: &HashSet<&str>,
    configs: &[TsConfig],
) -> Option<String> {
    if specifier == "."
        || specifier == ".."
        || specifier.starts_with("./")
        || specifier.starts_with("../")
    {
        let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        return file_or_directory(&join(dir, specifier)?, files);
    }
    if specifier.starts_with('/') {
        return None;
    }
    let config = configs
        .iter()
        .filter(|c| c.dir.is_empty() || from.starts_with(&format!("{}/", c.dir)))
        .max_by_key(|c| c.dir.len())?;
    let root = config
        .base_url
        .as_deref()
        .or(config.paths_dir.as_deref())
        .unwrap_or(&config.dir);
    // The pattern with the longest prefix before its `*` wins; an exact
    // pattern beats all.
    let mut matching: Vec<(usize, &str, &Vec<String>)> = config
        .paths
        .iter()
        .filter_map(|(pattern, subs)| {
            let captured = match pattern.split_once('*') {
                None => (pattern == specifier).then_some(""),
                Some((prefix, suffix)) => specifier
                    .strip_prefix(prefix)
                    .and_then(|rest| rest.strip_suffix(suffix))
                    .filter(|_| specifier.len() >= prefix.len() + suffix.len()),
            }?;
            let rank = match pattern.split_once('*') {
                None => usize::MAX,
                Some((prefix, _)) => prefix.len(),
            };
            Some((rank, captured, subs))
        })
        .collect();
    matching.sort_by_key(|m| std::cmp::Reverse(m.0));
    for (_, captured, subs) in matching {
        for sub in subs {
            let replaced = sub.replacen('*', captured, 1);
            if let Some(path) = join(root, &replaced)
                && let Some(found) = file_or_directory(&path, files)
            {
                return Some(found);
            }
        }
    }
    if let Some(base) = &config.base_url {
        return file_or_directory(&join(base, specifier)?, files);
    }
    None
}

/// `path` as a file (as written, with `.js` standing for `.ts`, or with an
/// extension added), else as a directory with an `index` file.
fn file_or_directory(path: &str, files: &HashSet<&str>) -> Option<String> {
    let found = |p: String| files.contains(p.as_str()).then_some(p);
    if is_script(path)
        && let Some(p) = found(path.to_owned())
    {
        return Some(p);
    }
    // `./user.js` in TypeScript source names `user.ts` (TypeScript maps
    // output extensions back to inputs).
    for (output, inputs) in [
        (".js", &[".ts", ".tsx", ".d.ts"][..]),
        (".jsx", &[".tsx"][..]),
        (".mjs", &[".mts", ".d.mts"][..]),
        (".cjs", &[".cts", ".d.cts"][..]),
    ] {
        if let Some(stem) = path.strip_suffix(output) {
            for input in inputs {
                if let Some(p) = found(format!("{stem}{input}")) {
                    return Some(p);
                }
            }
        }
    }
    for extension in SCRIPT_EXTENSIONS {
        if let Some(p) = found(format!("{path}{extension}")) {
            return Some(p);
        }
    }
    for extension in SCRIPT_EXTENSIONS {
        let index = if path.is_empty() {
            format!("index{extension}")
        } else {
            format!("{path}/index{extension}")
        };
        if let Some(p) = found(index) {
            return Some(p);
        }
    }
    None
}

/// `relative` joined to the directory `dir`, with `.` and `..` removed;
/// `None` when it climbs above the root.
pub fn join(dir: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_specifiers_find_files_and_indexes() {
        let files: HashSet<&str> = [
            "src/app.ts",
            "src/models/user.ts",
            "src/models/index.ts",
            "src/view.tsx",
            "src/legacy.js",
            "src/types.d.ts",
        ]
        .into_iter()
        .collect();
        let r = |s| resolve_specifier("src/app.ts", s, &files, &[]);
        assert_eq!(r("./models/user").as_deref(), Some("src/models/user.ts"));
        assert_eq!(r("./models/user.js").as_deref(), Some("src/models/user.ts"));
        assert_eq!(r("./models").as_deref(), Some("src/models/index.ts"));
        assert_eq!(r("./view").as_deref(), Some("src/view.tsx"));
        assert_eq!(r("./legacy.js").as_deref(), Some("src/legacy.js"));
        assert_eq!(r("./types").as_deref(), Some("src/types.d.ts"));
        assert_eq!(r("../src/app").as_deref(), Some("src/app.ts"));
        assert_eq!(r("./missing"), None);
        assert_eq!(r("react"), None);
        assert_eq!(r("../../../x"), None);
    }

    #[test]
    fn tsconfig_paths_and_base_url() {
        let files: HashSet<&str> = [
            "web/src/app/user.ts",
            "web/src/lib/index.ts",
            "web/src/shared.ts",
            "other/x.ts",
        ]
        .into_iter()
        .collect();
        let configs = [TsConfig {
            dir: "web".into(),
            base_url: Some("web/src".into()),
            paths: vec![
                ("@app/*".into(), vec!["app/*".into()]),
                ("@lib".into(), vec!["lib".into()]),
            ],
            paths_dir: None,
        }];
        let r = |from, s| resolve_specifier(from, s, &files, &configs);
        assert_eq!(
            r("web/src/main.ts", "@app/user").as_deref(),
            Some("web/src/app/user.ts")
        );
        assert_eq!(
            r("web/src/main.ts", "@lib").as_deref(),
            Some("web/src/lib/index.ts")
        );
        assert_eq!(
            r("web/src/main.ts", "shared").as_deref(),
            Some("web/src/shared.ts")
        );
        // Outside the tsconfig's directory it does not apply.
        assert_eq!(r("other/x.ts", "shared"), None);
        assert_eq!(r("web/src/main.ts", "lodash"), None);
    }
}
