//! Reading a source file from disk into text.

use std::path::Path;

use outline_core::{Diagnostic, LineIndex, Severity, strip_bom};

use crate::error::Error;

/// The text of a file as read from disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The file's text; invalid UTF-8 sequences replaced by U+FFFD.
    pub text: String,
    /// Byte offset of the first invalid UTF-8 sequence, when there was one.
    pub first_invalid_byte: Option<usize>,
}

impl SourceText {
    /// Reads the file at `path`.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Binary`] when it contains a
    /// NUL byte (no source file of a supported language can).
    pub fn read(path: &Path) -> Result<SourceText, Error> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        if bytes.contains(&0) {
            return Err(Error::Binary {
                path: path.to_owned(),
            });
        }
        Ok(SourceText::from_bytes(bytes))
    }

    /// Decodes `bytes` as UTF-8, lossily.
    pub fn from_bytes(bytes: Vec<u8>) -> SourceText {
        match String::from_utf8(bytes) {
            Ok(text) => SourceText {
                text,
                first_invalid_byte: None,
            },
            Err(error) => {
                let first_invalid_byte = error.utf8_error().valid_up_to();
                SourceText {
                    text: String::from_utf8_lossy(error.as_bytes()).into_owned(),
                    first_invalid_byte: Some(first_invalid_byte),
                }
            }
        }
    }

    /// The text without a leading byte-order mark.
    pub fn text_without_bom(&self) -> &str {
        strip_bom(&self.text)
    }

    /// A warning saying the file was decoded lossily, located at the first
    /// invalid byte, or `None` when the file was valid UTF-8.
    pub fn decoding_warning(&self) -> Option<Diagnostic> {
        let offset = self.first_invalid_byte?;
        // Up to the first invalid byte the decoded text equals the file's bytes.
        let text = self.text_without_bom();
        let offset = offset.saturating_sub(self.text.len() - text.len());
        let index = LineIndex::new(text);
        Some(Diagnostic {
            line: index.line(offset),
            column: index.column(offset),
            severity: Severity::Warning,
            message: "file is not valid UTF-8; invalid bytes were replaced by U+FFFD".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_decoded_lossily_with_a_located_warning() {
        let source = SourceText::from_bytes(b"x = 1\ny = '\xff'\n".to_vec());
        assert_eq!(source.text, "x = 1\ny = '\u{fffd}'\n");
        let warning = source.decoding_warning().expect("warning");
        assert_eq!((warning.line, warning.column), (2, 6));
        assert_eq!(warning.severity, Severity::Warning);
    }

    #[test]
    fn valid_utf8_has_no_warning() {
        let source = SourceText::from_bytes("é = 1\n".as_bytes().to_vec());
        assert_eq!(source.decoding_warning(), None);
    }
}
