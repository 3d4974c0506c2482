//! Every kind of settings error, with its exact message.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use ast_outline_settings::{FILE_NAME, PYPROJECT, Settings, SettingsError};

fn error(text: &str) -> String {
    Settings::parse(Path::new(".ast-outline.toml"), text, false)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| "no error".to_owned())
}

fn pyproject_error(text: &str) -> String {
    Settings::parse(Path::new("pyproject.toml"), text, true)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| "no error".to_owned())
}

#[test]
fn wrong_types() {
    assert_eq!(
        error("[outline]\nblock_threshold = \"x\"\n"),
        ".ast-outline.toml:2:19: key `outline.block_threshold`: invalid type: string \"x\", expected an integer"
    );
    assert_eq!(
        error("[tests]\nindex = 1\n"),
        ".ast-outline.toml:2:9: key `tests.index`: invalid type: integer `1`, expected a boolean"
    );
    assert_eq!(
        error("[tests]\npaths = [\"a\",\n  1]\n"),
        ".ast-outline.toml:3:3: key `tests.paths[1]`: invalid type: integer `1`, expected a string"
    );
    assert_eq!(
        error("[files]\ninclude = \"src/**\"\n"),
        ".ast-outline.toml:2:11: key `files.include`: invalid type: string \"src/**\", expected a sequence"
    );
    assert_eq!(
        error("files = 3\n"),
        ".ast-outline.toml:1:9: key `files`: invalid type: integer `3`, expected a table"
    );
    assert_eq!(
        error("context = { weights = { callers = \"x\" } }\n"),
        ".ast-outline.toml:1:35: key `context.weights.callers`: invalid type: string \"x\", expected a number"
    );
}

#[test]
fn unknown_keys() {
    assert_eq!(
        error("colour = 1\n"),
        ".ast-outline.toml:1:1: key `colour`: unknown field `colour`, expected one of `files`, `tests`, `outline`, `queries`, `context`, `max_tokens`"
    );
    assert_eq!(
        error("[context]\ndocs = true\ndcos = true\n"),
        ".ast-outline.toml:3:1: key `context.dcos`: unknown field `dcos`, expected one of `docs`, `kind`, `weights`"
    );
    assert_eq!(
        error("[foo]\nx = 1\n"),
        ".ast-outline.toml:1:2: key `foo`: unknown field `foo`, expected one of `files`, `tests`, `outline`, `queries`, `context`, `max_tokens`"
    );
    assert_eq!(
        error("[context.weights]\ncallers = 1\nimpact = 2\n"),
        ".ast-outline.toml:3:1: key `context.weights.impact`: unknown field `impact`, expected one of `callers`, `references`, `type_hierarchy`"
    );
}

#[test]
fn invalid_globs() {
    assert_eq!(
        error("[tests]\npaths = [\"a\", \"b\", \"c[\"]\n"),
        ".ast-outline.toml:2:20: key `tests.paths[2]`: invalid glob \"c[\": unclosed character class; missing ']'"
    );
    assert_eq!(
        error("[files]\nexclude = [\n  \"ok/\",\n  \"\",\n]\n"),
        ".ast-outline.toml:4:3: key `files.exclude[1]`: empty glob"
    );
    assert_eq!(
        error("[tests]\nextend_paths = [\"/\"]\n"),
        ".ast-outline.toml:2:17: key `tests.extend_paths[0]`: invalid glob \"/\": it names no path"
    );
}

#[test]
fn out_of_range_numbers() {
    assert_eq!(
        error("[outline]\nblock_threshold = 0\n"),
        ".ast-outline.toml:2:19: key `outline.block_threshold`: must be an integer >= 1, not 0"
    );
    assert_eq!(
        error("[outline]\nblock_threshold = 5000000000\n"),
        ".ast-outline.toml:2:19: key `outline.block_threshold`: must be at most 4294967295, not 5000000000"
    );
    assert_eq!(
        error("[queries]\nmax_results = -3\n"),
        ".ast-outline.toml:2:15: key `queries.max_results`: must be an integer >= 1, not -3"
    );
    assert_eq!(
        error("[max_tokens]\nimpact = 0\n"),
        ".ast-outline.toml:2:10: key `max_tokens.impact`: must be an integer >= 1, not 0"
    );
    assert_eq!(
        error("[context.weights]\ncallers = -1\n"),
        ".ast-outline.toml:2:11: key `context.weights.callers`: must be a finite number >= 0, not -1.0"
    );
    assert_eq!(
        error("[context.weights]\nreferences = nan\n"),
        ".ast-outline.toml:2:14: key `context.weights.references`: must be a finite number >= 0, not nan"
    );
    assert_eq!(
        error("[context.weights]\ntype_hierarchy = inf\n"),
        ".ast-outline.toml:2:18: key `context.weights.type_hierarchy`: must be a finite number >= 0, not inf"
    );
}

#[test]
fn unknown_context_kind() {
    assert_eq!(
        error("[context]\nkind = \"everything\"\n"),
        ".ast-outline.toml:2:8: key `context.kind`: unknown variant `everything`, expected one of `definition`, `references`, `callers`, `type_hierarchy`, `all`, `siblings`"
    );
    assert_eq!(
        error("[context]\nkind = 3\n"),
        ".ast-outline.toml:2:8: key `context.kind`: wanted string or table"
    );
}

#[test]
fn syntax_errors_have_no_key() {
    assert_eq!(
        error("[files\n"),
        ".ast-outline.toml:1:7: unclosed table, expected `]`"
    );
    assert_eq!(
        error("[outline]\nblock_threshold = \n"),
        ".ast-outline.toml:2:19: string values must be quoted, expected literal string"
    );
}

#[test]
fn duplicate_keys_and_tables_are_named() {
    assert_eq!(
        error("[tests]\nindex = true\nindex = false\n"),
        ".ast-outline.toml:3:1: key `tests.index`: duplicate key"
    );
    assert_eq!(
        error("[outline]\nblock_threshold = 1\nblock_threshold = 2\n"),
        ".ast-outline.toml:3:1: key `outline.block_threshold`: duplicate key"
    );
    assert_eq!(
        error("[outline]\nblock_threshold = 1\n\n[outline]\n"),
        ".ast-outline.toml:4:2: key `outline`: duplicate key"
    );
    assert_eq!(
        error("context.weights.callers = 1\ncontext.weights.callers = 2\n"),
        ".ast-outline.toml:2:17: key `context.weights.callers`: duplicate key"
    );
    assert_eq!(
        error("[files]\nexclude = []\n[files.exclude]\n"),
        ".ast-outline.toml:3:8: key `files.exclude`: duplicate key"
    );
    assert_eq!(
        pyproject_error("[tool.ast-outline.tests]\nindex = true\nindex = false\n"),
        "pyproject.toml:3:1: key `tool.ast-outline.tests.index`: duplicate key"
    );
}

#[test]
fn integers_beyond_an_i64_are_out_of_range() {
    assert_eq!(
        error("[outline]\nblock_threshold = 99999999999999999999\n"),
        ".ast-outline.toml:2:19: key `outline.block_threshold`: must be at most 4294967295, not 99999999999999999999"
    );
    assert_eq!(
        error("[outline]\nblock_threshold = 9223372036854775808\n"),
        ".ast-outline.toml:2:19: key `outline.block_threshold`: must be at most 4294967295, not 9223372036854775808"
    );
    assert_eq!(
        error("[queries]\nmax_results = -99999999999999999999\n"),
        ".ast-outline.toml:2:15: key `queries.max_results`: must be an integer >= 1, not -99999999999999999999"
    );
    assert_eq!(
        error("max_tokens = { search = 99999999999999999999 }\n"),
        format!(
            ".ast-outline.toml:1:25: key `max_tokens.search`: must be at most {}, not 99999999999999999999",
            usize::MAX
        )
    );
    assert_eq!(
        pyproject_error("[tool.ast-outline.outline]\nblock_threshold = 99999999999999999999\n"),
        "pyproject.toml:2:19: key `tool.ast-outline.outline.block_threshold`: must be at most 4294967295, not 99999999999999999999"
    );
    // Another tool's huge integer is none of ast-outline's business.
    assert_eq!(
        pyproject_error("[tool.other]\nx = 99999999999999999999\n[tool.ast-outline]\n"),
        "no error"
    );
}

#[test]
fn nul_bytes() {
    assert_eq!(
        error("[tests]\nindex = t\0rue\n"),
        ".ast-outline.toml:2:10: contains a NUL byte (a settings file is text)"
    );
    assert_eq!(
        pyproject_error("[tool.ast-outline]\n\0\n"),
        "pyproject.toml:2:1: contains a NUL byte (a settings file is text)"
    );
}

#[test]
fn pyproject_errors_name_the_full_key() {
    assert_eq!(
        pyproject_error("[project]\nname = \"x\"\n\n[tool.ast-outline]\nbad = 1\n"),
        "pyproject.toml:5:1: key `tool.ast-outline.bad`: unknown field `bad`, expected one of `files`, `tests`, `outline`, `queries`, `context`, `max_tokens`"
    );
    assert_eq!(
        pyproject_error("[tool.ast-outline.outline]\nblock_threshold = 0\n"),
        "pyproject.toml:2:19: key `tool.ast-outline.outline.block_threshold`: must be an integer >= 1, not 0"
    );
    assert_eq!(
        pyproject_error("[tool.\"ast-outline\".tests]\npaths = [\"[\"]\n"),
        "pyproject.toml:2:10: key `tool.ast-outline.tests.paths[0]`: invalid glob \"[\": unclosed character class; missing ']'"
    );
    assert_eq!(
        pyproject_error("[tool.ast-outline.files]\nexclud = []\n"),
        "pyproject.toml:2:1: key `tool.ast-outline.files.exclud`: unknown field `exclud`, expected `include` or `exclude`"
    );
    assert_eq!(
        pyproject_error("[tool]\nast-outline = 3\n"),
        "pyproject.toml:2:15: key `tool.ast-outline`: invalid type: integer `3`, expected a table"
    );
    assert_eq!(
        pyproject_error("tool.ast-outline.context.weights.callers = -1\n"),
        "pyproject.toml:1:44: key `tool.ast-outline.context.weights.callers`: must be a finite number >= 0, not -1.0"
    );
}

#[test]
fn misspelt_pyproject_table() {
    let message = "unknown table; the table of ast-outline is [tool.ast-outline]";
    assert_eq!(
        pyproject_error("[project]\nname = \"x\"\n\n[tool.ast_outline]\nx = 1\n"),
        format!("pyproject.toml:4:7: key `tool.ast_outline`: {message}")
    );
    assert_eq!(
        pyproject_error("[tool.ast-outline]\n[tool.ast_outline.outline]\nblock_threshold = 5\n"),
        format!("pyproject.toml:2:7: key `tool.ast_outline`: {message}")
    );
    assert_eq!(
        pyproject_error("[tool]\nast_outline = { }\n"),
        format!("pyproject.toml:2:1: key `tool.ast_outline`: {message}")
    );
    // A broken file with only the misspelt table: the misspelling is what
    // to fix.
    assert_eq!(
        pyproject_error("[tool.ast_outline]\nx = \n"),
        format!("pyproject.toml:1:7: key `tool.ast_outline`: {message}")
    );
    // In a multi-line string it is no table.
    assert_eq!(
        pyproject_error("[project]\ndescription = \"\"\"\n[tool.ast_outline]\n\"\"\"\n"),
        "no error"
    );
}

#[test]
fn unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(FILE_NAME)).unwrap();
    let e = Settings::load(dir.path()).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: cannot read: it is a directory",
            dir.path().join(FILE_NAME).display()
        )
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, b"[tests]\nindex = tr\xffue\n").unwrap();
    let e = Settings::load(dir.path()).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!("{}:2:11: invalid UTF-8", path.display())
    );
    assert_eq!(
        e,
        SettingsError {
            path,
            line: Some(2),
            column: Some(11),
            key: None,
            message: "invalid UTF-8".to_owned(),
        }
    );
}

/// The error of `Settings::load(root)`, with `root` written `ROOT`.
fn load_error(root: &Path) -> String {
    Settings::load(root)
        .err()
        .map(|e| e.to_string().replace(&root.display().to_string(), "ROOT"))
        .unwrap_or_else(|| "no error".to_owned())
}

#[cfg(unix)]
#[test]
fn special_files_are_not_read() {
    // A symlink to /dev/zero would be read forever.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join(FILE_NAME)).unwrap();
    assert_eq!(
        load_error(dir.path()),
        "ROOT/.ast-outline.toml: cannot read: not a regular file (a character device)"
    );

    // Opening a FIFO would block until a writer comes.
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join(FILE_NAME))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        load_error(dir.path()),
        "ROOT/.ast-outline.toml: cannot read: not a regular file (a FIFO)"
    );

    let dir = tempfile::tempdir().unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join(PYPROJECT)).unwrap();
    assert_eq!(
        load_error(dir.path()),
        "ROOT/pyproject.toml: cannot read: not a regular file (a socket)"
    );
    // A pyproject.toml is not read at all when .ast-outline.toml is there.
    std::fs::write(dir.path().join(FILE_NAME), "").unwrap();
    assert_eq!(load_error(dir.path()), "no error");

    // A symlink to a regular file is read; a dangling one cannot be.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("real.toml"),
        "[outline]\nblock_threshold = 0\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("real.toml", dir.path().join(FILE_NAME)).unwrap();
    assert_eq!(
        load_error(dir.path()),
        "ROOT/.ast-outline.toml:2:19: key `outline.block_threshold`: must be an integer >= 1, not 0"
    );
    std::fs::remove_file(dir.path().join("real.toml")).unwrap();
    assert_eq!(
        load_error(dir.path()),
        "ROOT/.ast-outline.toml: cannot read: No such file or directory (os error 2)"
    );
}

#[test]
fn files_over_1_mib_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = "# padding\n".repeat(104_857);
    text.push_str("#2345\n");
    assert_eq!(text.len(), 1024 * 1024);
    std::fs::write(dir.path().join(FILE_NAME), &text).unwrap();
    assert_eq!(load_error(dir.path()), "no error");
    text.push('\n');
    std::fs::write(dir.path().join(FILE_NAME), &text).unwrap();
    assert_eq!(
        load_error(dir.path()),
        "ROOT/.ast-outline.toml: too large: 1048577 bytes (a settings file is at most 1 MiB, 1048576 bytes)"
    );
    std::fs::remove_file(dir.path().join(FILE_NAME)).unwrap();
    std::fs::write(dir.path().join(PYPROJECT), &text).unwrap();
    assert_eq!(
        load_error(dir.path()),
        "ROOT/pyproject.toml: too large: 1048577 bytes (a settings file is at most 1 MiB, 1048576 bytes)"
    );
}

#[test]
fn display_leaves_out_unknown_parts() {
    let mut e = SettingsError {
        path: "a.toml".into(),
        line: None,
        column: None,
        key: None,
        message: "m".to_owned(),
    };
    assert_eq!(e.to_string(), "a.toml: m");
    e.key = Some("tests.paths".to_owned());
    assert_eq!(e.to_string(), "a.toml: key `tests.paths`: m");
    e.line = Some(4);
    assert_eq!(e.to_string(), "a.toml:4: key `tests.paths`: m");
    e.column = Some(2);
    assert_eq!(e.to_string(), "a.toml:4:2: key `tests.paths`: m");
}

/// A table given as an array (or anything else) is a type error: serde
/// filled a table's keys from an array by position (a new user's trial:
/// `outline = [7]` set `block_threshold`).
#[test]
fn tables_must_be_tables() {
    for (text, key, column) in [
        ("files = [[\"src/\"], [\"vendor/\"]]\n", "files", 9),
        ("outline = [7]\n", "outline", 11),
        ("context = [false, \"all\"]\n", "context", 11),
        ("[context]\nweights = [1.0]\n", "context.weights", 11),
        ("max_tokens = 5\n", "max_tokens", 14),
    ] {
        let message = error(text);
        let line = text.lines().count();
        assert!(
            message.starts_with(&format!(
                ".ast-outline.toml:{line}:{column}: key `{key}`: invalid type: "
            )),
            "{text:?}: {message}"
        );
        assert!(
            message.ends_with(", expected a table"),
            "{text:?}: {message}"
        );
    }
    let message = pyproject_error("[[tool.ast-outline]]\n");
    assert!(
        message.starts_with("pyproject.toml:1:")
            && message.contains("key `tool.ast-outline`")
            && message.ends_with(", expected a table"),
        "{message}"
    );
}
