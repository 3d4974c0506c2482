//! Whether a pyproject.toml could hold the `[tool.ast-outline]` table, by
//! a look at its lines, before it is parsed: a pyproject.toml that cannot
//! hold it is not parsed at all, so another tool's broken pyproject.toml
//! is no error here.

/// What the lines of a pyproject.toml may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Holds {
    /// The `[tool.ast-outline]` table may be there (a header
    /// `[tool.ast-outline…]`, or a dotted key `tool.ast-outline…` or
    /// `ast-outline` starting a line).
    pub table: bool,
    /// The byte offset of the name of the first misspelt
    /// `[tool.ast_outline]` table (a line as above, with `ast_outline`).
    pub misspelt: Option<usize>,
}

impl Holds {
    /// Whether the file is worth parsing: it may hold the table, or the
    /// misspelt one.
    pub(crate) fn anything(self) -> bool {
        self.table || self.misspelt.is_some()
    }
}

/// The table name of ast-outline under `[tool]`.
pub(crate) const TABLE: &str = "ast-outline";

/// The misspelling of [`TABLE`] that is an error rather than ignored.
pub(crate) const MISSPELT: &str = "ast_outline";

/// What `text` (a pyproject.toml) may hold, line by line: a table header
/// `[tool.ast-outline]` (spaces and quotes allowed: `[ tool."ast-outline".files ]`,
/// `[[tool.ast-outline]]`), a dotted key `tool.ast-outline…` starting a
/// line (`tool.ast-outline.outline.block_threshold = 5`), a key
/// `ast-outline` starting a line (`ast-outline = {…}` under `[tool]`), or
/// `tool = {…}` naming `ast-outline` on its line. A match inside a
/// multi-line string only costs a parse.
pub(crate) fn holds(text: &str) -> Holds {
    let mut holds = Holds::default();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let trimmed = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - trimmed.len();
        let (header, key_text, key_offset) = match trimmed.strip_prefix('[') {
            Some(rest) => {
                let inner = rest.strip_prefix('[').unwrap_or(rest);
                let inner_trimmed = inner.trim_start_matches([' ', '\t']);
                let offset = start + indent + (trimmed.len() - inner_trimmed.len());
                (true, inner_trimmed, offset)
            }
            None => (false, trimmed, start + indent),
        };
        let parts = key_parts(key_text);
        let first = parts.first().map(String::as_str);
        let second = parts.get(1).map(String::as_str);
        let names = |name: &str| {
            (first == Some("tool") && second == Some(name))
                || (!header && first == Some(name))
                || (!header && first == Some("tool") && parts.len() == 1 && key_text.contains(name))
        };
        if names(TABLE) {
            holds.table = true;
        }
        if holds.misspelt.is_none() && names(MISSPELT) {
            let in_line = key_text.find(MISSPELT).unwrap_or(0);
            holds.misspelt = Some(key_offset + in_line);
        }
        if holds.table && holds.misspelt.is_some() {
            break;
        }
    }
    holds
}

/// The parts of the (dotted) key at the start of `s`: bare words and
/// quoted names, dots between, spaces around the dots. The first part
/// only when a dot does not follow it; none when `s` starts with no key.
fn key_parts(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = s;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        let (part, after) = match rest.chars().next() {
            Some(quote @ ('"' | '\'')) => {
                let body = &rest[1..];
                match body.find(quote) {
                    Some(end) => (body[..end].to_owned(), &body[end + 1..]),
                    None => break,
                }
            }
            _ => {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(rest.len());
                if end == 0 {
                    break;
                }
                (rest[..end].to_owned(), &rest[end..])
            }
        };
        parts.push(part);
        let after = after.trim_start_matches([' ', '\t']);
        match after.strip_prefix('.') {
            Some(next) => rest = next,
            None => break,
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_headers_and_dotted_keys() {
        for text in [
            "[tool.ast-outline]\n",
            "[project]\nname = \"x\"\n[tool.\"ast-outline\"]\n",
            "  [ tool . ast-outline.files ]\n",
            "[['tool'.ast-outline]]\n",
            "[tool]\nast-outline = { outline = { block_threshold = 5 } }\n",
            "tool.ast-outline.outline.block_threshold = 5\n",
            "tool = { ast-outline = { } }\n",
            "[tool]\n\"ast-outline\".files.exclude = []\n",
        ] {
            assert!(holds(text).table, "{text:?}");
        }
    }

    #[test]
    fn mentions_elsewhere_are_nothing() {
        for text in [
            "",
            "[project]\ndescription = \"uses ast-outline\"\n# [tool.ast-outline] is for later\n",
            "[tool.ast-outliner]\n",
            "[tool.ruff]\nextend-exclude = [\"ast-outline\"]\n",
            "[project.urls]\nast = \"x\"\n",
            "[tool.other.ast-outline]\n",
            "x = \"\"\"\n  # tool.ast-outline\n\"\"\"\n",
        ] {
            assert!(!holds(text).anything(), "{text:?}");
        }
    }

    #[test]
    fn misspelt_table() {
        let text = "[project]\n[ tool.ast_outline ]\nx = 1\n";
        let offset = text.find("ast_outline");
        assert_eq!(
            holds(text),
            Holds {
                table: false,
                misspelt: offset
            }
        );
        let text = "[tool.ast_outline]\n[tool.ast-outline]\n";
        assert_eq!(
            holds(text),
            Holds {
                table: true,
                misspelt: Some(6)
            }
        );
        let text = "[tool]\nast_outline = 1\n";
        assert_eq!(holds(text).misspelt, Some(7));
        assert_eq!(holds("[tool.ast-outline]\n").misspelt, None);
    }
}
