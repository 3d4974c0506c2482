//! Reading a source file from disk into text.
//!
//! Files are UTF-8, except Python files with a PEP 263 declaration naming
//! another encoding (`# -*- coding: latin-1 -*-`), which are decoded with it as
//! CPython does (encodings as the WHATWG Encoding Standard names them, through
//! `encoding_rs`). Invalid bytes are replaced by U+FFFD and reported as a
//! warning diagnostic located at the first of them; the line structure is kept.

use std::fs::Metadata;
use std::io::Read;
use std::path::Path;

use outline_core::{Diagnostic, Language, LineIndex, Severity, strip_bom};

use crate::error::Error;

/// The text of a file as read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceText {
    /// The file's text; bytes invalid in its encoding replaced by U+FFFD.
    pub text: String,
    /// The encoding the bytes were decoded with (`UTF-8`, `windows-1252`, …).
    pub encoding: &'static str,
    /// Warnings about decoding, to put before the parser's diagnostics.
    pub notes: Vec<Diagnostic>,
}

impl SourceText {
    /// Reads the file at `path`; `language` (if known) decides whether a PEP 263
    /// declaration is honoured. Files larger than [`crate::DEFAULT_MAX_FILE_SIZE`]
    /// are not read.
    ///
    /// # Errors
    /// As [`SourceText::read_at_most`].
    pub fn read(path: &Path, language: Option<Language>) -> Result<SourceText, Error> {
        SourceText::read_at_most(path, language, crate::DEFAULT_MAX_FILE_SIZE)
    }

    /// Reads the file at `path` when it holds at most `max_bytes` bytes.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::NotRegularFile`] for a FIFO,
    /// socket or device, [`Error::TooLarge`] when it is larger than `max_bytes`
    /// (also when it grows past it while being read), [`Error::Binary`] when
    /// it contains a NUL byte (no source file of a supported language can).
    pub fn read_at_most(
        path: &Path,
        language: Option<Language>,
        max_bytes: u64,
    ) -> Result<SourceText, Error> {
        let (bytes, _) = SourceText::read_bytes(path, max_bytes)?;
        Ok(SourceText::from_bytes(bytes, language))
    }

    /// The bytes of the file at `path`, when it holds at most `max_bytes`
    /// bytes and no NUL, and its metadata (as it was before reading).
    ///
    /// # Errors
    /// As [`SourceText::read_at_most`].
    pub fn read_bytes(path: &Path, max_bytes: u64) -> Result<(Vec<u8>, Metadata), Error> {
        let io_error = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let too_large = |size| Error::TooLarge {
            path: path.to_owned(),
            size,
            limit: max_bytes,
        };
        let meta = std::fs::metadata(path).map_err(io_error)?;
        if !meta.is_file() {
            return Err(Error::NotRegularFile {
                path: path.to_owned(),
            });
        }
        if meta.len() > max_bytes {
            return Err(too_large(meta.len()));
        }
        let file = std::fs::File::open(path).map_err(io_error)?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io_error)?;
        let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if read > max_bytes {
            return Err(too_large(read));
        }
        if bytes.contains(&0) {
            return Err(Error::Binary {
                path: path.to_owned(),
            });
        }
        Ok((bytes, meta))
    }

    /// Decodes `bytes` (see the module docs).
    pub fn from_bytes(bytes: Vec<u8>, language: Option<Language>) -> SourceText {
        let declared = match language {
            Some(Language::Python) => lang_python::declared_encoding(&bytes).map(str::to_owned),
            _ => None,
        };
        let mut notes = Vec::new();
        let has_bom = bytes.starts_with(b"\xef\xbb\xbf");
        if let Some(label) = declared {
            let warning = |message: String| Diagnostic {
                line: 1,
                column: 1,
                severity: Severity::Warning,
                message,
            };
            match encoding_for_label(&label) {
                // A UTF-8 byte-order mark wins over a declaration (CPython
                // rejects the pair; reading UTF-8 keeps the outline useful).
                Some(encoding) if encoding != encoding_rs::UTF_8 && has_bom => {
                    notes.push(warning(format!(
                        "the file starts with a UTF-8 byte-order mark but declares `{label}` \
                         (PEP 263); it was read as UTF-8"
                    )));
                }
                // A declaration can only be read in an ASCII-compatible encoding;
                // `utf-16` and the like cannot be what the file really uses.
                Some(encoding) if !encoding.is_ascii_compatible() => {
                    notes.push(warning(format!(
                        "the declared encoding `{label}` (PEP 263) is not ASCII-compatible; \
                         the file was read as UTF-8"
                    )));
                }
                Some(encoding) if encoding != encoding_rs::UTF_8 => {
                    let (text, had_errors) = encoding.decode_without_bom_handling(&bytes);
                    let text = text.into_owned();
                    if had_errors {
                        notes.push(replaced_bytes_warning(&text, encoding.name()));
                    }
                    return SourceText {
                        text,
                        encoding: encoding.name(),
                        notes,
                    };
                }
                Some(_) => {}
                None => notes.push(warning(format!(
                    "unknown encoding `{label}` declared (PEP 263); the file was read as UTF-8"
                ))),
            }
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
                notes.push(replaced_bytes_warning(&text, "UTF-8"));
                text
            }
        };
        SourceText {
            text,
            encoding: encoding_rs::UTF_8.name(),
            notes,
        }
    }

    /// The text without a leading byte-order mark.
    pub fn text_without_bom(&self) -> &str {
        strip_bom(&self.text)
    }
}

/// The `encoding_rs` encoding for a Python codec name: WHATWG labels, and
/// Python's spellings of them (`latin-1`, `iso_8859_15`, `utf_8`).
fn encoding_for_label(label: &str) -> Option<&'static encoding_rs::Encoding> {
    let lower = label.to_ascii_lowercase();
    let dashed = lower.replace('_', "-");
    // Python's `utf-8-sig` is UTF-8 that may start with a byte-order mark.
    if matches!(dashed.as_str(), "utf-8-sig" | "utf8-sig") {
        return Some(encoding_rs::UTF_8);
    }
    let bare = dashed.replace('-', "");
    [lower, dashed, bare]
        .iter()
        .find_map(|candidate| encoding_rs::Encoding::for_label(candidate.as_bytes()))
}

/// A warning located at the first U+FFFD that decoding put in `text`.
fn replaced_bytes_warning(text: &str, encoding: &str) -> Diagnostic {
    let body = strip_bom(text);
    let offset = body.find('\u{fffd}').unwrap_or(0);
    let index = LineIndex::new(body);
    Diagnostic {
        line: index.line(offset),
        column: index.column(offset),
        severity: Severity::Warning,
        message: format!("file is not valid {encoding}; invalid bytes were replaced by U+FFFD"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_decoded_lossily_with_a_located_warning() {
        let source = SourceText::from_bytes(b"x = 1\ny = '\xff'\n".to_vec(), None);
        assert_eq!(source.text, "x = 1\ny = '\u{fffd}'\n");
        let [warning] = source.notes.as_slice() else {
            panic!("one warning expected: {:?}", source.notes);
        };
        assert_eq!((warning.line, warning.column), (2, 6));
        assert_eq!(warning.severity, Severity::Warning);
    }

    #[test]
    fn valid_utf8_has_no_warning() {
        let source = SourceText::from_bytes("é = 1\n".as_bytes().to_vec(), Some(Language::Python));
        assert_eq!(source.notes, []);
        assert_eq!(source.encoding, "UTF-8");
    }

    #[test]
    fn python_coding_declarations_are_honoured() {
        let latin1 = b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    pass\n".to_vec();
        let source = SourceText::from_bytes(latin1.clone(), Some(Language::Python));
        assert_eq!(
            source.text,
            "# -*- coding: latin-1 -*-\ndef café():\n    pass\n"
        );
        assert_eq!(source.encoding, "windows-1252");
        assert_eq!(source.notes, []);
        // Only Python has PEP 263.
        let other = SourceText::from_bytes(latin1, None);
        assert_eq!(other.encoding, "UTF-8");
        assert_eq!(other.notes.len(), 1);

        let koi8 = b"# coding: koi8-r\n\xf0\xd2\xc9\xd7\xc5\xd4 = 1\n".to_vec();
        let source = SourceText::from_bytes(koi8, Some(Language::Python));
        assert_eq!(source.text, "# coding: koi8-r\nПривет = 1\n");
    }

    #[test]
    fn a_bom_wins_and_non_ascii_compatible_declarations_are_ignored() {
        let bom_latin1 = b"\xef\xbb\xbf# coding: latin-1\ndef caf\xc3\xa9(): pass\n".to_vec();
        let source = SourceText::from_bytes(bom_latin1, Some(Language::Python));
        assert!(
            source.text.ends_with("def café(): pass\n"),
            "{:?}",
            source.text
        );
        assert_eq!(source.notes.len(), 1);
        assert!(source.notes[0].message.contains("byte-order mark"));

        let utf16 = b"# coding: utf-16\ndef h(): pass\n".to_vec();
        let source = SourceText::from_bytes(utf16, Some(Language::Python));
        assert_eq!(source.text, "# coding: utf-16\ndef h(): pass\n");
        assert!(source.notes[0].message.contains("not ASCII-compatible"));
    }

    #[test]
    fn utf8_sig_is_utf8() {
        let source = SourceText::from_bytes(
            b"# coding: utf-8-sig\nx = 1\n".to_vec(),
            Some(Language::Python),
        );
        assert_eq!(source.notes, []);
    }

    #[test]
    fn unknown_declared_encodings_are_reported() {
        let source =
            SourceText::from_bytes(b"# coding: uft-8\nx = 1\n".to_vec(), Some(Language::Python));
        assert_eq!(source.text, "# coding: uft-8\nx = 1\n");
        assert_eq!(source.notes.len(), 1);
        assert!(
            source.notes[0].message.contains("uft-8"),
            "{:?}",
            source.notes
        );
    }
}
