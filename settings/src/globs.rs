//! Gitignore-like globs over root-relative, `/`-separated paths.
//!
//! - A glob without `/` matches a name at any depth (`*.py` is `**/*.py`).
//! - A glob with `/` is anchored at the root; a leading `/` is stripped
//!   (`/build` and `src/gen/*.rs` match from the root only).
//! - A glob matching a directory matches everything below it; a trailing
//!   `/` matches directories only (`tests/` is every directory named
//!   `tests`, at any depth, and all below it). `dir/**` matches everything
//!   below `dir` too.
//! - `*` and `?` never match `/`; `**` matches any number of directories;
//!   `{a,b}` and `[abc]` are alternatives and classes (globset syntax).

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// One compiled glob: the glob and whether it matches directories only.
pub(crate) struct Compiled {
    glob: Glob,
    dir_only: bool,
}

/// Compiles one glob, or says why it is invalid.
pub(crate) fn compile(glob: &str) -> Result<Compiled, String> {
    if glob.trim().is_empty() {
        return Err("empty glob".to_owned());
    }
    let dir_only = glob.ends_with('/');
    let trimmed = glob.trim_end_matches('/');
    let anchored_here = trimmed.starts_with('/');
    let body = trimmed.trim_start_matches('/');
    if body.is_empty() {
        return Err(format!("invalid glob {glob:?}: it names no path"));
    }
    let pattern = if anchored_here || body.contains('/') {
        body.to_owned()
    } else {
        format!("**/{body}")
    };
    let glob_built = GlobBuilder::new(&pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("invalid glob {glob:?}: {}", e.kind()))?;
    Ok(Compiled {
        glob: glob_built,
        dir_only,
    })
}

/// A set of globs, matched with the rules above.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    any: GlobSet,
    dirs: GlobSet,
    len: usize,
}

impl Matcher {
    /// A matcher of no globs: it matches nothing.
    pub(crate) fn empty() -> Matcher {
        Matcher {
            any: GlobSet::empty(),
            dirs: GlobSet::empty(),
            len: 0,
        }
    }

    /// Builds the set. The error is globset's (a pattern set too large).
    pub(crate) fn build(globs: Vec<Compiled>) -> Result<Matcher, String> {
        let mut any = GlobSetBuilder::new();
        let mut dirs = GlobSetBuilder::new();
        let len = globs.len();
        for c in globs {
            if c.dir_only {
                dirs.add(c.glob);
            } else {
                any.add(c.glob);
            }
        }
        Ok(Matcher {
            any: any.build().map_err(|e| e.to_string())?,
            dirs: dirs.build().map_err(|e| e.to_string())?,
            len,
        })
    }

    /// Whether the matcher holds no glob.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether a file path (root-relative, `/`-separated) matches: the
    /// path itself, or one of its parent directories.
    pub(crate) fn matches_file(&self, path: &str) -> bool {
        let path = normalize(path);
        if path.is_empty() {
            return false;
        }
        self.any.is_match(path) || self.matches_ancestor(path)
    }

    /// Whether a directory path matches: the directory itself or one of
    /// its parents.
    pub(crate) fn matches_dir(&self, path: &str) -> bool {
        let path = normalize(path);
        if path.is_empty() {
            return false;
        }
        self.any.is_match(path) || self.dirs.is_match(path) || self.matches_ancestor(path)
    }

    fn matches_ancestor(&self, path: &str) -> bool {
        path.match_indices('/').any(|(i, _)| {
            let dir = &path[..i];
            !dir.is_empty() && (self.any.is_match(dir) || self.dirs.is_match(dir))
        })
    }
}

/// Drops a leading `./` or `/` and a trailing `/`.
pub(crate) fn normalize(path: &str) -> &str {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.trim_start_matches('/').trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn m(globs: &[&str]) -> Matcher {
        Matcher::build(globs.iter().map(|g| compile(g).unwrap()).collect()).unwrap()
    }

    #[test]
    fn unanchored_names_match_at_any_depth() {
        let m = m(&["*.py", "vendor"]);
        assert!(m.matches_file("a.py"));
        assert!(m.matches_file("x/y/a.py"));
        assert!(m.matches_file("vendor/lib/x.rs"));
        assert!(m.matches_file("src/vendor/x.rs"));
        assert!(!m.matches_file("a.pyi"));
        assert!(!m.matches_file("vendored/x.rs"));
    }

    #[test]
    fn slashes_anchor() {
        let m = m(&["/build", "src/gen/*.rs", "docs/**"]);
        assert!(m.matches_file("build/out.o"));
        assert!(!m.matches_file("sub/build/out.o"));
        assert!(m.matches_file("src/gen/a.rs"));
        assert!(!m.matches_file("src/gen/deep/a.rs"));
        assert!(!m.matches_file("x/src/gen/a.rs"));
        assert!(m.matches_file("docs/a/b.md"));
        assert!(!m.matches_file("x/docs/a.md"));
    }

    #[test]
    fn trailing_slash_is_directories_only() {
        let m = m(&["tests/"]);
        assert!(m.matches_file("tests/a.py"));
        assert!(m.matches_file("pkg/tests/sub/a.py"));
        assert!(!m.matches_file("tests"));
        assert!(m.matches_dir("pkg/tests"));
        assert!(!m.matches_file("pkg/mytests/a.py"));
    }

    #[test]
    fn invalid_and_empty_globs() {
        assert!(compile("").is_err());
        assert!(compile("/").is_err());
        assert_eq!(
            compile("a[").err().as_deref(),
            Some("invalid glob \"a[\": unclosed character class; missing ']'")
        );
    }

    #[test]
    fn normalizing() {
        assert_eq!(normalize("./a/b/"), "a/b");
        assert_eq!(normalize("/a"), "a");
        assert!(m(&["a.py"]).matches_file("./a.py"));
        assert!(!m(&["a.py"]).matches_file(""));
        assert!(Matcher::empty().is_empty());
    }
}
