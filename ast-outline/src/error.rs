//! Errors of the library entry points.

use std::fmt;
use std::path::PathBuf;

/// Why a file could not be outlined.
#[derive(Debug)]
pub enum Error {
    /// The file name has no extension ast-outline knows.
    UnknownLanguage {
        /// The path as given.
        path: String,
    },
    /// The file could not be read.
    Io {
        /// The path as given.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The path names something that is not a regular file (a FIFO, a socket,
    /// a device): reading it could block or never end, so it is not read.
    NotRegularFile {
        /// The path as given.
        path: PathBuf,
    },
    /// The file holds NUL bytes, so it is not source text.
    Binary {
        /// The path as given.
        path: PathBuf,
    },
    /// The file is larger than the size limit (`--max-file-size`, default
    /// [`crate::DEFAULT_MAX_FILE_SIZE`]), so it is not read.
    TooLarge {
        /// The path as given.
        path: PathBuf,
        /// Its size in bytes (at least `limit + 1` when it grew while read).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownLanguage { path } => {
                write!(
                    f,
                    "{path}: not a language ast-outline knows (supported extensions: {})",
                    crate::supported_extensions().join(", ")
                )
            }
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::NotRegularFile { path } => write!(
                f,
                "{}: not a regular file (a FIFO, socket or device); not read",
                path.display()
            ),
            Error::Binary { path } => write!(
                f,
                "{}: looks binary (contains NUL bytes); not outlined",
                path.display()
            ),
            Error::TooLarge { path, size, limit } => write!(
                f,
                "{}: {size} bytes, more than the limit of {limit} (--max-file-size); not read",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
