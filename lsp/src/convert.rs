//! Conversions between LSP's shapes and ours: `file:` URIs and paths,
//! positions (LSP: 0-based lines, columns in the negotiated encoding; ours:
//! 1-based lines, columns in characters), and symbol kinds.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, SymbolKind, Uri};

/// The unit of an LSP column (LSP 3.17 `positionEncoding`): UTF-16 code
/// units unless the client offers another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units (the default).
    Utf16,
    /// Characters (Unicode scalar values), as our columns count.
    Utf32,
}

impl Encoding {
    /// The encoding to use given the client's offer (its order is its
    /// preference; characters when offered, as they need no line text).
    pub fn choose(offered: Option<&[lsp_types::PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or_default();
        if offered.contains(&lsp_types::PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else if offered.contains(&lsp_types::PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        }
    }

    /// Its LSP name.
    pub fn kind(self) -> lsp_types::PositionEncodingKind {
        match self {
            Encoding::Utf8 => lsp_types::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp_types::PositionEncodingKind::UTF16,
            Encoding::Utf32 => lsp_types::PositionEncodingKind::UTF32,
        }
    }

    /// The LSP column of the character at 0-based index `chars` of `line`.
    pub fn units_of(self, line: &str, chars: u32) -> u32 {
        let units = |c: char| match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        };
        let total: usize = line.chars().take(chars as usize).map(units).sum();
        u32::try_from(total).unwrap_or(u32::MAX)
    }

    /// The 0-based character index of the LSP column `units` of `line`
    /// (inside a character: that character; past the end: the end).
    pub fn chars_of(self, line: &str, units: u32) -> u32 {
        if self == Encoding::Utf32 {
            return units;
        }
        let mut seen = 0usize;
        let mut chars = 0u32;
        for c in line.chars() {
            if seen >= units as usize {
                break;
            }
            seen += match self {
                Encoding::Utf8 => c.len_utf8(),
                _ => c.len_utf16(),
            };
            chars += 1;
        }
        chars
    }
}

/// The byte offset in `text` of the LSP `position` (clamped to the text).
pub fn offset(text: &str, position: Position, encoding: Encoding) -> usize {
    let mut start = 0usize;
    for _ in 0..position.line {
        match text[start..].find('\n') {
            Some(at) => start += at + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |at| start + at);
    let line = &text[start..end];
    let chars = encoding.chars_of(line, position.character);
    start
        + line
            .char_indices()
            .nth(chars as usize)
            .map_or(line.len(), |(at, _)| at)
}

/// The path of a `file:` URI (percent-decoded); `None` for another scheme.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file:///p` (empty host) or `file://localhost/p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&a), Some(&b)) if hex(a).is_some() && hex(b).is_some() => {
                let value = hex(a).unwrap_or(0) * 16 + hex(b).unwrap_or(0);
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 3;
            }
            (b'?' | b'#', _, _) => break,
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    Some(PathBuf::from(String::from_utf8_lossy(&out).into_owned()))
}

/// The `file:` URI of the absolute `path`, percent-encoding what RFC 3986
/// does not allow in a path.
pub fn path_uri(path: &Path) -> Option<Uri> {
    let mut text = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&byte) {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    Uri::from_str(&text).ok()
}

/// The LSP kind of one of our kind words (`outline_core::SymbolKind::as_str`).
pub fn symbol_kind(kind: &str) -> SymbolKind {
    match kind {
        "class" => SymbolKind::CLASS,
        "function" | "macro" => SymbolKind::FUNCTION,
        "method" => SymbolKind::METHOD,
        "constructor" => SymbolKind::CONSTRUCTOR,
        "getter" | "setter" | "property" => SymbolKind::PROPERTY,
        "field" => SymbolKind::FIELD,
        "constant" => SymbolKind::CONSTANT,
        "interface" | "trait" => SymbolKind::INTERFACE,
        "type_alias" => SymbolKind::TYPE_PARAMETER,
        "enum" => SymbolKind::ENUM,
        "enum_member" => SymbolKind::ENUM_MEMBER,
        "struct" | "union" => SymbolKind::STRUCT,
        "impl" => SymbolKind::OBJECT,
        "module" => SymbolKind::MODULE,
        "namespace" => SymbolKind::NAMESPACE,
        _ => SymbolKind::VARIABLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_convert_by_encoding() {
        // 'é' is 2 UTF-8 bytes and 1 UTF-16 unit; '𝄞' is 4 bytes, 2 units.
        let line = "é𝄞x";
        assert_eq!(Encoding::Utf16.units_of(line, 2), 3);
        assert_eq!(Encoding::Utf8.units_of(line, 2), 6);
        assert_eq!(Encoding::Utf32.units_of(line, 2), 2);
        assert_eq!(Encoding::Utf16.chars_of(line, 3), 2);
        assert_eq!(Encoding::Utf8.chars_of(line, 6), 2);
        let text = "ab\né𝄞x\n";
        let at = offset(text, Position::new(1, 3), Encoding::Utf16);
        assert_eq!(&text[at..], "x\n");
    }

    #[test]
    fn file_uris_round_trip_with_percent_encoding() {
        let path = Path::new("/tmp/a b/ü.py");
        let uri = path_uri(path).expect("uri");
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%BC.py");
        assert_eq!(uri_path(&uri).as_deref(), Some(path));
    }
}
