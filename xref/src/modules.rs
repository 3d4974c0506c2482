//! Python module names from the package layout.
//!
//! A file's module is its stem prefixed by the directories above it that are
//! packages (hold an `__init__.py` or `__init__.pyi`), nearest first; the
//! first directory that is not a package is an import root (Python reference,
//! "The import system", regular packages). `pkg/__init__.py` is the module
//! `pkg` itself. Namespace packages (PEP 420, no `__init__.py`): a file's
//! module is named from the nearest regular package, and
//! [`namespace_module`] gives the name it also has when the project root is
//! an import root.

use std::collections::HashSet;

/// The dotted module name of the Python file `path` (a `/`-separated path)
/// and whether it is a package's `__init__`, given every file path of the
/// project (to know which directories are packages). `None` when `path` is
/// not a `.py`/`.pyi`/`.pyw` file.
pub fn python_module(path: &str, all_paths: &HashSet<&str>) -> Option<(String, bool)> {
    let stem = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyi"))
        .or_else(|| path.strip_suffix(".pyw"))?;
    let mut parts: Vec<&str> = stem.split('/').collect();
    let name = parts.pop()?;
    let is_package = name == "__init__";
    let mut module: Vec<&str> = if is_package { Vec::new() } else { vec![name] };
    // Directories above, nearest first, while each is a package.
    let mut directory_end = parts.len();
    if is_package {
        // The package itself is the innermost directory.
        match parts.last() {
            Some(package) => {
                module.push(package);
                directory_end -= 1;
            }
            None => return None,
        }
    }
    while directory_end > 0 {
        let directory = parts[..directory_end].join("/");
        let init = format!("{directory}/__init__.py");
        let stub = format!("{directory}/__init__.pyi");
        if !all_paths.contains(init.as_str()) && !all_paths.contains(stub.as_str()) {
            break;
        }
        module.push(parts[directory_end - 1]);
        directory_end -= 1;
    }
    module.reverse();
    Some((module.join("."), is_package))
}

/// The name the Python file `path` also has as a portion of namespace
/// packages (PEP 420) when the project root is on the import path: its
/// whole `/`-separated path from the root, dotted (`stock/inventory.py` is
/// `stock.inventory`). `None` when that is its `module` already (top-level
/// files, regular packages up to the root), for `__init__` files, and for
/// paths whose directories are not identifiers.
pub fn namespace_module(path: &str, module: Option<&str>) -> Option<String> {
    let module = module?;
    let stem = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyi"))
        .or_else(|| path.strip_suffix(".pyw"))?;
    let dotted = stem.replace('/', ".");
    let identifier = |part: &str| {
        let mut chars = part.chars();
        chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && chars.all(|c| c == '_' || c.is_alphanumeric())
    };
    let is_init = stem == "__init__" || stem.ends_with("/__init__");
    (dotted != module && !is_init && dotted.split('.').all(identifier)).then_some(dotted)
}

/// The absolute module a relative import names: `level` leading dots taken
/// from `module` (the importing file's module; `is_package` when it is an
/// `__init__`), then `name` (may be empty). `None` when the dots go above the
/// top-level package.
pub fn absolute_module(module: &str, is_package: bool, level: u32, name: &str) -> Option<String> {
    if level == 0 {
        return Some(name.to_owned());
    }
    let mut parts: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split('.').collect()
    };
    if !is_package {
        parts.pop()?;
    }
    for _ in 1..level {
        parts.pop()?;
    }
    if !name.is_empty() {
        parts.extend(name.split('.'));
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_follow_the_package_layout() {
        let paths: HashSet<&str> = [
            "src/app/__init__.py",
            "src/app/models.py",
            "src/app/sub/__init__.py",
            "src/app/sub/x.py",
            "scripts/run.py",
        ]
        .into_iter()
        .collect();
        let module = |p| python_module(p, &paths);
        assert_eq!(
            module("src/app/models.py"),
            Some(("app.models".into(), false))
        );
        assert_eq!(
            module("src/app/sub/__init__.py"),
            Some(("app.sub".into(), true))
        );
        assert_eq!(
            module("src/app/sub/x.py"),
            Some(("app.sub.x".into(), false))
        );
        assert_eq!(module("scripts/run.py"), Some(("run".into(), false)));
        assert_eq!(module("README.md"), None);
    }

    #[test]
    fn namespace_portions_are_named_by_their_path_from_the_root() {
        assert_eq!(
            namespace_module("stock/inventory.py", Some("inventory")),
            Some("stock.inventory".into())
        );
        assert_eq!(
            namespace_module("tools/app/models.py", Some("app.models")),
            Some("tools.app.models".into())
        );
        assert_eq!(namespace_module("run.py", Some("run")), None);
        assert_eq!(namespace_module("app/models.py", Some("app.models")), None);
        assert_eq!(namespace_module("ns/__init__.py", Some("ns")), None);
        assert_eq!(namespace_module("my-tools/x.py", Some("x")), None);
        assert_eq!(namespace_module("a/b.ts", None), None);
    }

    #[test]
    fn relative_levels() {
        assert_eq!(
            absolute_module("a.b.c", false, 1, "d"),
            Some("a.b.d".into())
        );
        assert_eq!(absolute_module("a.b", true, 1, "d"), Some("a.b.d".into()));
        assert_eq!(absolute_module("a.b.c", false, 2, ""), Some("a".into()));
        assert_eq!(absolute_module("a", false, 2, "x"), None);
        assert_eq!(absolute_module("a.b", false, 0, "x.y"), Some("x.y".into()));
    }
}
