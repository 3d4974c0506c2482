//! The project settings as the commands use them
//! ([`ast_outline_settings`], found by [`index::open::settings_root`]):
//! errors stop the command with exit status 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ast_outline::walk::FileEntry;
use ast_outline_settings::Settings;

use super::output::report;

/// The settings of `root`, or the error printed and exit status 2.
pub(super) fn settings_or_exit(root: &Path) -> Result<Settings, ExitCode> {
    index::open::check_settings(root).map_err(|message| {
        report(message);
        ExitCode::from(2)
    })
}

/// The settings that apply to `path` (a file or directory given to
/// `outline`, `search`, `read` or `at`: [`index::open::settings_root`]),
/// with the directory they were read for, or the error printed and exit
/// status 2.
pub(super) fn settings_for_or_exit(path: &Path) -> Result<(Option<PathBuf>, Settings), ExitCode> {
    index::open::settings_for(path).map_err(|message| {
        report(message);
        ExitCode::from(2)
    })
}

/// Leaves out the walked files (not those named on the command line) that
/// `files.include`/`files.exclude` of the settings read for `root` do not
/// select; returns how many were left out.
pub(super) fn select_files(
    files: &mut Vec<FileEntry>,
    root: Option<&Path>,
    settings: &Settings,
) -> usize {
    let Some(root) = root else {
        return 0;
    };
    let before = files.len();
    files.retain(|file| {
        if file.explicit {
            return true;
        }
        let absolute = lexical_absolute(&file.path);
        let Ok(relative) = absolute.strip_prefix(root) else {
            return true;
        };
        let relative = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        settings.is_selected(&relative)
    });
    before - files.len()
}

/// `path` made absolute with `.` and `..` taken out by their names (no
/// file system access: walked paths are many).
fn lexical_absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Stops a command that reads the index of `location` when the settings of
/// the root it would answer for ([`index::open::discover`]) have an error:
/// the error printed, exit status 2 (a configuration error, as ruff's).
pub(super) fn settings_gate(location: &index::open::Location) -> Result<(), ExitCode> {
    let (found, _) = index::open::discover(location, None);
    settings_or_exit(&found.root).map(|_| ())
}
