//! `ast-outline config` output: TOML text (a valid settings file; unset
//! limits are comment lines) and JSON.

use serde_json::{Map, Value, json};

use crate::Settings;

/// One rendered value: TOML-like text, and JSON.
enum Val<'a> {
    Strings(&'a [String]),
    Bool(bool),
    Int(Option<usize>),
    Float(f64),
    Str(&'a str),
}

impl Val<'_> {
    fn text(&self) -> String {
        match self {
            Val::Strings(list) => {
                let items: Vec<String> = list.iter().map(|s| quote(s)).collect();
                format!("[{}]", items.join(", "))
            }
            Val::Bool(b) => b.to_string(),
            Val::Int(Some(n)) => n.to_string(),
            Val::Int(None) => String::new(),
            Val::Float(f) => float(*f),
            Val::Str(s) => quote(s),
        }
    }

    fn json(&self) -> Value {
        match self {
            Val::Strings(list) => json!(list),
            Val::Bool(b) => json!(b),
            Val::Int(n) => json!(n),
            Val::Float(f) => json!(f),
            Val::Str(s) => json!(s),
        }
    }
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A float as TOML writes it: always with a fraction or exponent.
pub(crate) fn float(f: f64) -> String {
    if f.is_nan() {
        "nan".to_owned()
    } else if f.is_infinite() {
        if f > 0.0 {
            "inf".to_owned()
        } else {
            "-inf".to_owned()
        }
    } else {
        let s = f.to_string();
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}

/// Every table and its keys with their values, in file order.
fn tables(s: &Settings) -> Vec<(&'static str, Vec<(&'static str, Val<'_>)>)> {
    vec![
        (
            "files",
            vec![
                ("include", Val::Strings(&s.include)),
                ("exclude", Val::Strings(&s.exclude)),
            ],
        ),
        (
            "tests",
            vec![
                ("paths", Val::Strings(s.base_test_paths())),
                ("extend_paths", Val::Strings(s.extend_test_paths())),
                ("index", Val::Bool(s.index_tests)),
                ("in_queries", Val::Bool(s.tests_in_queries)),
            ],
        ),
        (
            "outline",
            vec![(
                "block_threshold",
                Val::Int(usize::try_from(s.block_threshold).ok()),
            )],
        ),
        ("queries", vec![("max_results", Val::Int(s.max_results))]),
        (
            "context",
            vec![
                ("docs", Val::Bool(s.context_docs)),
                ("kind", Val::Str(s.context_kind.as_str())),
            ],
        ),
        (
            "context.weights",
            vec![
                ("callers", Val::Float(s.weights.callers)),
                ("references", Val::Float(s.weights.references)),
                ("type_hierarchy", Val::Float(s.weights.type_hierarchy)),
            ],
        ),
        (
            "max_tokens",
            vec![
                ("search", Val::Int(s.max_tokens.search)),
                ("context", Val::Int(s.max_tokens.context)),
                ("tests", Val::Int(s.max_tokens.tests)),
                ("impact", Val::Int(s.max_tokens.impact)),
            ],
        ),
    ]
}

pub(crate) fn text(s: &Settings) -> String {
    let mut out = match &s.file {
        Some(path) => format!("# settings file: {}\n", path.display()),
        None => "# no settings file: defaults\n".to_owned(),
    };
    for (table, keys) in tables(s) {
        out.push_str(&format!("\n[{table}]\n"));
        for (key, val) in keys {
            let source = s.source(&format!("{table}.{key}"));
            // An unset limit has no TOML value: the line is a comment, so
            // that the text stays a valid settings file.
            match val {
                Val::Int(None) => out.push_str(&format!("# {key} unset  # {source}\n")),
                _ => out.push_str(&format!("{key} = {}  # {source}\n", val.text())),
            }
        }
    }
    out
}

pub(crate) fn json(s: &Settings) -> Value {
    let mut settings = Map::new();
    for (table, keys) in tables(s) {
        let mut obj = Map::new();
        for (key, val) in keys {
            obj.insert(key.to_owned(), val.json());
        }
        match table.split_once('.') {
            Some((parent, child)) => {
                if let Some(Value::Object(p)) = settings.get_mut(parent) {
                    p.insert(child.to_owned(), Value::Object(obj));
                }
            }
            None => {
                settings.insert(table.to_owned(), Value::Object(obj));
            }
        }
    }
    let sources: Map<String, Value> = s
        .sources
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.to_string())))
        .collect();
    json!({
        "file": s.file.as_ref().map(|p| p.display().to_string()),
        "settings": settings,
        "sources": sources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats() {
        assert_eq!(float(3.0), "3.0");
        assert_eq!(float(0.5), "0.5");
        assert_eq!(float(-1.0), "-1.0");
        assert_eq!(float(f64::NAN), "nan");
        assert_eq!(float(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a\"b"), "'a\"b'");
        assert_eq!(quote("src/**"), "\"src/**\"");
    }
}
