//! Every input the fuzzers (`fuzz/`) found a bug with, kept in
//! `fuzz/regressions/<language>/`: each must outline without a panic, keep
//! the model's invariants (the checks the fuzz targets make), and give the
//! value asserted for it here.

use std::path::{Path, PathBuf};

use ast_outline::{FileOutline, Language, OutlineOptions, SourceText, SymbolKind};

fn regressions(language: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(language);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    files.sort();
    files
}

/// The outline of a regression input, decoded as the fuzz targets decode it,
/// under both block thresholds the targets use; the invariants are checked
/// on each. Returns the outline under the default options.
fn outline(path: &Path, language: Language) -> FileOutline {
    let bytes = std::fs::read(path).expect("read a regression input");
    // The TypeScript target's first byte picks the syntax; the files here
    // are stored without it, with the syntax in their extension.
    let source = SourceText::from_bytes(bytes, Some(language));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("input");
    let mut outlines: Vec<FileOutline> = [1, 100]
        .into_iter()
        .map(|block_threshold| {
            let options = OutlineOptions {
                block_threshold,
                ..OutlineOptions::default()
            };
            let outline = source.outline(name, language, &options);
            check(&outline);
            outline
        })
        .collect();
    outlines.pop().expect("two outlines")
}

/// The invariants the fuzz targets check (`outline_core::invariants`): lines
/// 1-based and inclusive, every symbol inside the file and its parent,
/// one-line names, both renderers.
fn check(outline: &FileOutline) {
    let violations = ast_outline::outline_core::invariants::violations(outline);
    assert!(violations.is_empty(), "{violations:#?}");
}

fn language_of(path: &Path) -> Language {
    let name = path.to_string_lossy();
    Language::from_path(&name).unwrap_or_else(|| panic!("{name}: no language"))
}

/// The top-level (qualname, start, end) of an outline.
fn top(outline: &FileOutline) -> Vec<(String, u32, u32)> {
    outline
        .symbols
        .iter()
        .map(|s| (s.qualname.clone(), s.start_line, s.end_line))
        .collect()
}

/// Outlines every regression input of `language` and checks it with
/// `expect`, which asserts the expected value of a known input and returns
/// `false` for an input it does not know (every input needs one).
fn check_all(language: &str, expect: fn(&str, &FileOutline) -> bool) {
    for path in regressions(language) {
        let outline = outline(&path, language_of(&path));
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert!(
            expect(name, &outline),
            "{name}: add its expected value to this test ({:?})",
            top(&outline)
        );
    }
}

#[test]
fn python_regressions() {
    check_all("python", |name, outline| match name {
        // A definition after a dedent (line 27) was left inside the class
        // that ends at line 24.
        "indent-child-outside-class.py" => {
            let class = &outline.symbols[2];
            assert_eq!((class.name.as_str(), class.end_line), ("StillHere", 24));
            assert!(
                class.children.iter().all(|c| c.end_line <= 24),
                "{:?}",
                class.children
            );
            true
        }
        // A NUL before an `if` (ruff: "Got unexpected token") hid the
        // statement's indentation, so it and the definitions ruff nested
        // inside it (lines 13-25, after a definition that escaped `ce` at
        // line 11) stayed in `ce`, which ends at line 11. They now follow it
        // at module level, the definitions inside the `if` block.
        // `def m` (its indentation hidden by a `6` before it) was cut at
        // line 6 by the indentation recovery, while ruff had put line 9's
        // statements in its body: the method (and its class) now end at 9.
        "hidden-indent-child-after-cut.py" => {
            assert_eq!(outline.symbols[0].end_line, 9);
            let m = &outline.symbols[0].children[0];
            assert_eq!(
                (m.qualname.as_str(), m.start_line, m.end_line),
                ("A.m", 2, 9)
            );
            assert_eq!(m.children.len(), 3);
            true
        }
        "nul-before-if-keeps-children-inside.py" => {
            let ce = &outline.symbols[2];
            assert_eq!((ce.name.as_str(), ce.end_line), ("ce", 11));
            assert_eq!(ce.children, []);
            let block = &outline.symbols[5];
            assert_eq!(
                (block.kind, block.start_line, block.end_line),
                (SymbolKind::Block, 13, 25)
            );
            let inside: Vec<&str> = block.children.iter().map(|c| c.qualname.as_str()).collect();
            assert_eq!(inside, ["c", "fahrenheit", "_get_mode"]);
            true
        }
        // 88 bytes decoded to 256 (a `\r`, then mostly bytes replaced by
        // U+FFFD): ruff's "Expected a statement" at the very end of the
        // text, a whole number of the line index's 256-byte counting blocks,
        // was given column 0 (an overflow, caught as an internal error in
        // debug builds). It is one past the 87 characters of line 2.
        "error-at-the-end-of-a-whole-block.py" => {
            let last = outline.diagnostics.last().expect("diagnostics");
            assert_eq!(
                (last.line, last.column, last.message.as_str()),
                (2, 88, "Expected a statement")
            );
            assert!(
                outline.not_outlined().is_none(),
                "{:?}",
                outline.diagnostics
            );
            true
        }
        _ => false,
    });
}

#[test]
fn rust_regressions() {
    check_all("rust", |name, outline| {
        let internal = outline
            .diagnostics
            .iter()
            .any(|d| d.message.contains("internal error"));
        assert!(!internal, "{name}: {:?}", outline.diagnostics);
        match name {
            // An unbalanced `trait`/`impl` whose last token is a replaced
            // byte (U+FFFD, three bytes): its body was cut one byte before
            // that token's end, inside the character, and the scanner
            // panicked slicing there (caught as an internal error).
            "unbalanced-trait-ends-inside-a-character.rs" => {
                assert_eq!(top(outline), [("Draw".to_owned(), 4, 14)]);
                // The bodiless trait items recovered too (syn's verbatim
                // items, listed since the Rust repros were fixed).
                let members: Vec<&str> = outline.symbols[0]
                    .children
                    .iter()
                    .map(|c| c.qualname.as_str())
                    .collect();
                assert_eq!(members, ["Draw.Output", "Draw.LAYERS", "Draw.NAME"]);
                true
            }
            "unbalanced-impl-ends-inside-a-character.rs" => {
                assert_eq!(top(outline), [("impl Canvas<T>".to_owned(), 17, 18)]);
                true
            }
            _ => false,
        }
    });
}
