//! Positions in the settings text: a byte offset to a 1-based line and
//! column, and the dotted key whose key or value holds an offset.
//!
//! toml's serde errors carry a byte span but no key path; [`key_at`] finds
//! the key with a small scan of the TOML text (table headers, keys, arrays
//! and inline tables; strings and comments skipped), so an error can name
//! `tests.paths[2]` or `context.dcos`.

/// The 1-based line and column (in characters) of byte `offset` in `text`.
/// An offset past the end is the end.
pub(crate) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (to_u32(line), to_u32(column))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Eq,
    Dot,
    Newline,
    /// A bare word or a quoted string (its content, unescaped roughly).
    Word(String),
}

/// The tokens of `text` with their byte offsets. Comments are dropped;
/// strings (basic, literal, multi-line) are one `Word` each.
fn tokens(text: &str) -> Vec<(usize, Tok)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        match b {
            b'\n' => {
                out.push((start, Tok::Newline));
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'[' | b']' | b'{' | b'}' | b',' | b'=' | b'.' => {
                let tok = match b {
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    b',' => Tok::Comma,
                    b'=' => Tok::Eq,
                    _ => Tok::Dot,
                };
                out.push((start, tok));
                i += 1;
            }
            b'"' | b'\'' => {
                let quote = b;
                let multi = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
                let mut content = String::new();
                if multi {
                    i += 3;
                    let body_start = i;
                    loop {
                        if i >= bytes.len() {
                            break;
                        }
                        if quote == b'"' && bytes[i] == b'\\' {
                            i += 2;
                            continue;
                        }
                        if bytes[i] == quote
                            && bytes.get(i + 1) == Some(&quote)
                            && bytes.get(i + 2) == Some(&quote)
                        {
                            // Up to two more quotes belong to the content.
                            let mut end = i + 3;
                            while end < bytes.len() && bytes[end] == quote && end < i + 5 {
                                end += 1;
                            }
                            content.push_str(text.get(body_start..end - 3).unwrap_or(""));
                            i = end;
                            break;
                        }
                        i += 1;
                    }
                } else {
                    i += 1;
                    let body_start = i;
                    while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                        if quote == b'"' && bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    content.push_str(text.get(body_start..i.min(bytes.len())).unwrap_or(""));
                    if i < bytes.len() && bytes[i] == quote {
                        i += 1;
                    }
                }
                out.push((start, Tok::Word(content)));
            }
            _ => {
                while i < bytes.len()
                    && !matches!(
                        bytes[i],
                        b'\n'
                            | b' '
                            | b'\t'
                            | b'\r'
                            | b'#'
                            | b'['
                            | b']'
                            | b'{'
                            | b'}'
                            | b','
                            | b'='
                            | b'.'
                            | b'"'
                            | b'\''
                    )
                {
                    i += 1;
                }
                out.push((
                    start,
                    Tok::Word(text.get(start..i).unwrap_or("").to_owned()),
                ));
            }
        }
    }
    out
}

/// One open array or inline table.
#[derive(Debug)]
enum Frame {
    /// An array: the index of the element being read.
    Array(usize),
    /// An inline table: the key whose value is being read.
    Inline(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Where a key (or, at the top level, a `[header]`) may start.
    KeyStart,
    /// Reading a (dotted) key.
    Key,
    /// Reading a `[header]`.
    Header,
    /// Where a value starts.
    Value,
    /// After a value.
    AfterValue,
}

#[derive(Debug)]
struct Scan {
    table: Vec<String>,
    key: Vec<String>,
    stack: Vec<Frame>,
    buf: Vec<String>,
    mode: Mode,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            table: Vec::new(),
            key: Vec::new(),
            stack: Vec::new(),
            buf: Vec::new(),
            mode: Mode::KeyStart,
        }
    }

    fn step(&mut self, tok: &Tok) {
        match (self.mode, tok) {
            (Mode::Header, Tok::Word(w)) => self.buf.push(w.clone()),
            (Mode::Header, Tok::RBracket) => {
                self.table = std::mem::take(&mut self.buf);
                self.key.clear();
                self.mode = Mode::AfterValue;
            }
            (Mode::Header, _) => {}
            (Mode::KeyStart, Tok::LBracket) if self.stack.is_empty() => {
                self.buf.clear();
                self.mode = Mode::Header;
            }
            (Mode::KeyStart, Tok::Word(w)) => {
                self.buf = vec![w.clone()];
                self.mode = Mode::Key;
            }
            (Mode::KeyStart, Tok::RBrace) => self.close(),
            (Mode::KeyStart, _) => {}
            (Mode::Key, Tok::Word(w)) => self.buf.push(w.clone()),
            (Mode::Key, Tok::Eq) => {
                let key = std::mem::take(&mut self.buf);
                match self.stack.last_mut() {
                    Some(Frame::Inline(k)) => *k = key,
                    _ => self.key = key,
                }
                self.mode = Mode::Value;
            }
            (Mode::Key, _) => {}
            (Mode::Value, Tok::LBracket) => self.stack.push(Frame::Array(0)),
            (Mode::Value, Tok::LBrace) => {
                self.stack.push(Frame::Inline(Vec::new()));
                self.mode = Mode::KeyStart;
            }
            (Mode::Value, Tok::RBracket) => self.close(),
            (Mode::Value, Tok::Word(_)) => self.mode = Mode::AfterValue,
            (Mode::Value, _) => {}
            (Mode::AfterValue, Tok::Newline) if self.stack.is_empty() => {
                self.mode = Mode::KeyStart;
            }
            (Mode::AfterValue, Tok::Comma) => match self.stack.last_mut() {
                Some(Frame::Array(i)) => {
                    *i += 1;
                    self.mode = Mode::Value;
                }
                Some(Frame::Inline(_)) => self.mode = Mode::KeyStart,
                None => {}
            },
            (Mode::AfterValue, Tok::RBracket | Tok::RBrace) => self.close(),
            (Mode::AfterValue, _) => {}
        }
    }

    fn close(&mut self) {
        self.stack.pop();
        self.mode = Mode::AfterValue;
    }

    /// The dotted key path at this point of the scan.
    fn path(&self) -> Vec<String> {
        let mut parts: Vec<String> = self.table.clone();
        parts.extend(self.key.iter().cloned());
        for frame in &self.stack {
            match frame {
                Frame::Array(i) => {
                    if let Some(last) = parts.last_mut() {
                        last.push_str(&format!("[{i}]"));
                    }
                }
                Frame::Inline(key) => parts.extend(key.iter().cloned()),
            }
        }
        parts
    }
}

/// The dotted key whose key text or value holds byte `offset` of `text`,
/// from the file's root: `tests.paths[2]` for the third element of `paths`
/// under `[tests]`, `context.dcos` for the key `dcos` under `[context]`,
/// `tool.ast-outline.files.exclud` in a pyproject.toml. `None` when
/// nothing is found.
pub(crate) fn key_at(text: &str, offset: usize) -> Option<String> {
    let toks = tokens(text);
    let mut scan = Scan::new();
    let mut rest = toks
        .iter()
        .skip_while(|(start, _)| *start < offset)
        .peekable();
    for (_, tok) in toks.iter().take_while(|(start, _)| *start < offset) {
        scan.step(tok);
    }
    // A key or header starting at (or running through) the offset: read it
    // to its end, so the path names it.
    let reading_key = match scan.mode {
        Mode::KeyStart => matches!(rest.peek(), Some((_, Tok::Word(_) | Tok::LBracket))),
        Mode::Key | Mode::Header => true,
        _ => false,
    };
    if reading_key {
        for (_, tok) in rest {
            if *tok == Tok::Newline {
                break;
            }
            scan.step(tok);
            if !matches!(scan.mode, Mode::Key | Mode::Header | Mode::KeyStart) {
                break;
            }
        }
        if scan.mode == Mode::Key {
            // A key with no `=` (a syntax error): name what was read.
            let key = std::mem::take(&mut scan.buf);
            match scan.stack.last_mut() {
                Some(Frame::Inline(k)) => *k = key,
                _ => scan.key = key,
            }
        }
    }
    let parts = scan.path();
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> Option<String> {
        let offset = text.find(needle).unwrap_or(text.len());
        key_at(text, offset)
    }

    #[test]
    fn lines_and_columns() {
        assert_eq!(line_col("a\nbé c", 0), (1, 1));
        assert_eq!(line_col("a\nbé c", 2), (2, 1));
        assert_eq!(line_col("a\nbé c", 6), (2, 4));
        assert_eq!(line_col("a\n", 99), (2, 1));
    }

    #[test]
    fn keys() {
        let text = "[tests]\npaths = [\"a\", \"b\",\n  3]\nindex = \"x\"\n[context]\ndcos = 1\n";
        assert_eq!(at(text, "3]").as_deref(), Some("tests.paths[2]"));
        assert_eq!(at(text, "\"x\"").as_deref(), Some("tests.index"));
        assert_eq!(at(text, "dcos").as_deref(), Some("context.dcos"));
        assert_eq!(at(text, "[\"a\"").as_deref(), Some("tests.paths"));
        assert_eq!(at(text, "context]").as_deref(), Some("context"));
    }

    #[test]
    fn inline_tables_dotted_keys_and_strings() {
        let text = "context = { weights = { callers = -1 }, \"kind\" = 'x' } # a = [\nouter.inner = \"\"\"\n[x]\n\"\"\"\nlast = 1\n";
        assert_eq!(at(text, "-1").as_deref(), Some("context.weights.callers"));
        assert_eq!(at(text, "'x'").as_deref(), Some("context.kind"));
        assert_eq!(at(text, "inner").as_deref(), Some("outer.inner"));
        assert_eq!(at(text, "1\n").as_deref(), Some("last"));
    }

    #[test]
    fn pyproject_keys_are_full_paths() {
        let text = "[tool.ast-outline.outline]\nblock_threshold = 0\n[tool]\nast-outline = 3\n";
        assert_eq!(
            at(text, "0").as_deref(),
            Some("tool.ast-outline.outline.block_threshold")
        );
        assert_eq!(at(text, "3").as_deref(), Some("tool.ast-outline"));
    }

    #[test]
    fn duplicate_keys_and_tables() {
        let text = "[outline]\nblock_threshold = 1\nblock_threshold = 2\n[outline]\n";
        let second = text.rfind("block_threshold").unwrap_or(0);
        assert_eq!(
            key_at(text, second).as_deref(),
            Some("outline.block_threshold")
        );
        let header = text.rfind("outline]").unwrap_or(0);
        assert_eq!(key_at(text, header).as_deref(), Some("outline"));
    }
}
