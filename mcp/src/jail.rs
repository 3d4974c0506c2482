//! The path jail: every path an agent gives is resolved against one root
//! directory, and anything that would leave it is refused.
//!
//! A requested path may be relative to the root (`src/app.py`) or absolute (it
//! must then lie under the root). It is refused when it is absolute and outside
//! the root, when `..` components lead out of the root, and when a symbolic link
//! on the way (or the file itself) points outside the root: the real path,
//! after every link is followed ([`std::fs::canonicalize`]), must start with the
//! real path of the root.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The root every requested path is resolved against.
#[derive(Debug, Clone)]
pub struct Jail {
    root: PathBuf,
}

/// A requested path that lies under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jailed {
    /// The real path (symbolic links followed): where to read.
    pub real: PathBuf,
    /// The path relative to the root, with `/` separators (`.` for the root
    /// itself): how it is named in outputs and ids.
    pub display: String,
}

/// Why a requested path is refused.
#[derive(Debug)]
pub enum JailError {
    /// An absolute path that is not under the root.
    Outside {
        /// The path as requested.
        requested: String,
        /// The root.
        root: PathBuf,
    },
    /// A relative path whose `..` components lead out of the root.
    Escapes {
        /// The path as requested.
        requested: String,
        /// The root.
        root: PathBuf,
    },
    /// The path exists under the root, but a symbolic link leads out of it.
    SymlinkOutside {
        /// The path as requested.
        requested: String,
        /// The root.
        root: PathBuf,
    },
    /// Nothing exists at the path (or it cannot be reached).
    NotFound {
        /// The path as requested.
        requested: String,
        /// What the operating system said.
        source: std::io::Error,
    },
}

impl JailError {
    /// Whether the path was refused for leaving the root (rather than missing).
    pub fn is_escape(&self) -> bool {
        !matches!(self, JailError::NotFound { .. })
    }
}

impl fmt::Display for JailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JailError::Outside { requested, root } => write!(
                f,
                "{requested}: refused, outside the root {}; give a path under the root \
                 (relative paths are resolved against it)",
                root.display()
            ),
            JailError::Escapes { requested, root } => write!(
                f,
                "{requested}: refused, `..` leads outside the root {}",
                root.display()
            ),
            JailError::SymlinkOutside { requested, root } => write!(
                f,
                "{requested}: refused, a symbolic link leads outside the root {}",
                root.display()
            ),
            JailError::NotFound { requested, source } => match source.kind() {
                std::io::ErrorKind::NotFound => {
                    write!(f, "{requested}: no such file or directory")
                }
                // A symbolic link loop, a permission denied…: say what it is.
                _ => write!(f, "{requested}: cannot be reached: {}", os_message(source)),
            },
        }
    }
}

impl std::error::Error for JailError {}

/// The operating system's message without its `(os error N)` suffix,
/// lowercased like the rest of the messages.
fn os_message(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

impl Jail {
    /// A jail at `root` (resolved to its real path).
    ///
    /// # Errors
    /// The I/O error when `root` does not exist or is not a directory.
    pub fn new(root: &Path) -> std::io::Result<Jail> {
        let root = std::fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            ));
        }
        Ok(Jail { root })
    }

    /// The real path of the root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `requested` (relative to the root, or absolute); an empty path
    /// is the root.
    ///
    /// # Errors
    /// A [`JailError`] when the path leaves the root or does not exist.
    pub fn resolve(&self, requested: &str) -> Result<Jailed, JailError> {
        let asked = Path::new(if requested.is_empty() { "." } else { requested });
        let joined = self.root.join(asked);
        let lexical = normalize(&joined);
        let lexically_inside = lexical.starts_with(&self.root);
        if !lexically_inside && !asked.is_absolute() {
            return Err(JailError::Escapes {
                requested: requested.to_owned(),
                root: self.root.clone(),
            });
        }
        let real = match std::fs::canonicalize(&joined) {
            Ok(real) => real,
            Err(_) if !lexically_inside => return Err(self.outside(requested)),
            Err(source) => {
                return Err(JailError::NotFound {
                    requested: requested.to_owned(),
                    source,
                });
            }
        };
        if !real.starts_with(&self.root) {
            return Err(if lexically_inside {
                JailError::SymlinkOutside {
                    requested: requested.to_owned(),
                    root: self.root.clone(),
                }
            } else {
                self.outside(requested)
            });
        }
        // Name it as asked when the asked path lies under the root (a link
        // inside the root keeps its own name), else by its real path.
        let named = if lexically_inside { &lexical } else { &real };
        Ok(Jailed {
            display: self.display(named),
            real,
        })
    }

    /// `path` (under the root) relative to the root, with `/` separators; `.`
    /// for the root itself.
    pub fn display(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        }
    }

    fn outside(&self, requested: &str) -> JailError {
        JailError::Outside {
            requested: requested.to_owned(),
            root: self.root.clone(),
        }
    }
}

/// `path` with `.` dropped and each `..` removing the component before it,
/// without looking at the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root holding `src/app.py`, and a file outside it.
    fn setup() -> (tempfile::TempDir, Jail, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("src")).expect("mkdir");
        std::fs::write(root.join("src/app.py"), "x = 1\n").expect("write");
        let outside = dir.path().join("secret.py");
        std::fs::write(&outside, "password = 1\n").expect("write");
        let jail = Jail::new(&root).expect("jail");
        (dir, jail, outside)
    }

    #[test]
    fn relative_and_absolute_paths_inside_the_root_are_resolved() {
        let (_dir, jail, _) = setup();
        let relative = jail.resolve("src/app.py").expect("inside");
        assert_eq!(relative.display, "src/app.py");
        assert_eq!(relative.real, jail.root().join("src/app.py"));
        let dotted = jail.resolve("./src/../src/app.py").expect("inside");
        assert_eq!(dotted.display, "src/app.py");
        let absolute = jail
            .resolve(&jail.root().join("src/app.py").to_string_lossy())
            .expect("inside");
        assert_eq!(absolute.display, "src/app.py");
        assert_eq!(jail.resolve("").expect("root").display, ".");
        assert_eq!(jail.resolve(".").expect("root").display, ".");
    }

    #[test]
    fn absolute_paths_outside_the_root_are_refused() {
        let (_dir, jail, outside) = setup();
        let error = jail
            .resolve(&outside.to_string_lossy())
            .expect_err("outside");
        assert!(matches!(error, JailError::Outside { .. }), "{error:?}");
        assert!(error.to_string().contains("outside the root"), "{error}");
        // Refused the same way whether or not the path exists.
        let missing = jail.resolve("/no/such/file.py").expect_err("outside");
        assert!(matches!(missing, JailError::Outside { .. }), "{missing:?}");
    }

    #[test]
    fn dot_dot_escapes_are_refused() {
        let (_dir, jail, _) = setup();
        for escape in [
            "../secret.py",
            "src/../../secret.py",
            "..",
            "src/../../root/../x",
        ] {
            let error = jail.resolve(escape).expect_err(escape);
            assert!(
                matches!(error, JailError::Escapes { .. }),
                "{escape}: {error:?}"
            );
            assert!(error.to_string().contains("`..`"), "{error}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_leaving_the_root_are_refused_and_those_inside_followed() {
        let (dir, jail, outside) = setup();
        let root = jail.root().to_owned();
        std::os::unix::fs::symlink(&outside, root.join("link.py")).expect("symlink");
        std::os::unix::fs::symlink(dir.path(), root.join("up")).expect("symlink");
        std::os::unix::fs::symlink(root.join("src/app.py"), root.join("alias.py"))
            .expect("symlink");
        for leaving in ["link.py", "up/secret.py", "up"] {
            let error = jail.resolve(leaving).expect_err(leaving);
            assert!(
                matches!(error, JailError::SymlinkOutside { .. }),
                "{leaving}: {error:?}"
            );
            assert!(error.to_string().contains("symbolic link"), "{error}");
        }
        let alias = jail.resolve("alias.py").expect("a link inside the root");
        assert_eq!(alias.display, "alias.py");
        assert_eq!(alias.real, root.join("src/app.py"));
    }

    #[test]
    fn missing_paths_inside_the_root_are_not_found() {
        let (_dir, jail, _) = setup();
        let error = jail.resolve("src/missing.py").expect_err("missing");
        assert!(matches!(error, JailError::NotFound { .. }), "{error:?}");
        assert!(!error.is_escape());
        assert!(
            error
                .to_string()
                .starts_with("src/missing.py: no such file")
        );
    }
}
