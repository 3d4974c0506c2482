//! PEP 263 source encoding declarations (`# -*- coding: latin-1 -*-`).
//!
//! The rule, as CPython's tokenizer applies it: a comment on line 1, or on
//! line 2 when line 1 is blank or a comment, that matches
//! `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` names the encoding of the file.
//! This module only finds the name; decoding is done where files are read.

/// The encoding named by a PEP 263 declaration in the first two lines of
/// `source` (raw bytes), as written (`latin-1`, `utf-8`, `koi8-r`), or `None`.
///
/// ```
/// use lang_python::declared_encoding;
/// assert_eq!(declared_encoding(b"# -*- coding: latin-1 -*-\nx = 1\n"), Some("latin-1"));
/// assert_eq!(declared_encoding(b"#!/usr/bin/env python\n# vim: set fileencoding=koi8-r :\n"), Some("koi8-r"));
/// assert_eq!(declared_encoding(b"import os\n# coding: latin-1\n"), None);
/// ```
pub fn declared_encoding(source: &[u8]) -> Option<&str> {
    let source = source.strip_prefix(b"\xef\xbb\xbf").unwrap_or(source);
    let mut lines = source.split(|&b| b == b'\n' || b == b'\r');
    let first = lines.next()?;
    if let Some(name) = declaration(first) {
        return Some(name);
    }
    if !is_blank_or_comment(first) {
        return None;
    }
    // `\r\n` splits into the line and an empty piece; skip exactly that piece.
    let second = match lines.next()? {
        [] if source.get(first.len()..first.len() + 2) == Some(b"\r\n") => lines.next()?,
        line => line,
    };
    declaration(second)
}

fn is_blank_or_comment(line: &[u8]) -> bool {
    let rest = trim_start(line);
    rest.is_empty() || rest[0] == b'#'
}

fn trim_start(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\x0c'))
        .unwrap_or(line.len());
    &line[start..]
}

fn declaration(line: &[u8]) -> Option<&str> {
    let comment = trim_start(line).strip_prefix(b"#")?;
    let mut search = comment;
    while let Some(at) = find(search, b"coding") {
        let after = &search[at + b"coding".len()..];
        if let Some((&(b':' | b'='), value)) = after.split_first() {
            let value = trim_start(value);
            let end = value
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')))
                .unwrap_or(value.len());
            if end > 0 {
                return std::str::from_utf8(&value[..end]).ok();
            }
        }
        search = after;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_declarations_where_cpython_looks() {
        let cases: [(&[u8], Option<&str>); 8] = [
            (b"# coding=utf-8\n", Some("utf-8")),
            (b"\xef\xbb\xbf# coding: utf8\n", Some("utf8")),
            (
                b"#!/usr/bin/python\r\n# -*- coding: iso-8859-15 -*-\r\n",
                Some("iso-8859-15"),
            ),
            (b"\n# coding: latin-1\n", Some("latin-1")),
            (b"x = 1  # coding: latin-1\n", None),
            (b"#\n#\n# coding: latin-1\n", None),
            (b"# encoding: cp1252\n", Some("cp1252")),
            (b"# coding:\n", None),
        ];
        for (source, expected) in cases {
            assert_eq!(
                declared_encoding(source),
                expected,
                "{:?}",
                String::from_utf8_lossy(source)
            );
        }
    }
}
