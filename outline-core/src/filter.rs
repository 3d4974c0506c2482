//! Trimming an outline for display: nesting depth, non-public symbols, docs.

use crate::model::{FileOutline, Symbol};

/// What to keep of an outline. The default keeps everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Keep symbols nested at most this deep (1 = top-level only); `None` keeps all.
    pub max_depth: Option<usize>,
    /// Keep the first doc lines.
    pub docs: bool,
    /// Keep non-public symbols (see [`Symbol::is_private`]) and what they contain.
    pub private: bool,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            max_depth: None,
            docs: true,
            private: true,
        }
    }
}

impl Filter {
    /// Whether this filter keeps everything.
    pub fn is_noop(&self) -> bool {
        *self == Filter::default()
    }

    /// Applies the filter to `outline` in place.
    pub fn apply(&self, outline: &mut FileOutline) {
        if self.is_noop() {
            return;
        }
        if !self.docs {
            outline.doc = None;
        }
        self.apply_to(&mut outline.symbols, 1);
    }

    fn apply_to(&self, symbols: &mut Vec<Symbol>, depth: usize) {
        if self.max_depth.is_some_and(|max| depth > max) {
            symbols.clear();
            return;
        }
        if !self.private {
            symbols.retain(|s| !s.is_private());
        }
        for symbol in symbols {
            if !self.docs {
                symbol.doc = None;
            }
            self.apply_to(&mut symbol.children, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::{Extracted, finish};
    use crate::{Language, SymbolKind};

    fn outline() -> FileOutline {
        let mut class = Symbol::new("C", SymbolKind::Class, 1, 9);
        class.doc = Some("A class.".into());
        let mut hidden = Symbol::new("_helper", SymbolKind::Method, 2, 3);
        hidden.visibility = Some("private".into());
        class.children.push(hidden);
        let mut public = Symbol::new("run", SymbolKind::Method, 4, 9);
        public
            .children
            .push(Symbol::new("inner", SymbolKind::Function, 5, 6));
        class.children.push(public);
        let extracted = Extracted {
            symbols: vec![class],
            ..Extracted::default()
        };
        finish("c.py", Language::Python, "", extracted)
    }

    fn names(outline: &FileOutline) -> Vec<String> {
        let mut names = Vec::new();
        outline.walk(|s| names.push(s.qualname.clone()));
        names
    }

    #[test]
    fn depth_private_and_docs() {
        let mut shallow = outline();
        Filter {
            max_depth: Some(2),
            ..Filter::default()
        }
        .apply(&mut shallow);
        assert_eq!(names(&shallow), ["C", "C._helper", "C.run"]);

        let mut public = outline();
        Filter {
            private: false,
            docs: false,
            ..Filter::default()
        }
        .apply(&mut public);
        assert_eq!(names(&public), ["C", "C.run", "C.run.inner"]);
        assert_eq!(public.symbols[0].doc, None);

        let mut all = outline();
        Filter::default().apply(&mut all);
        assert_eq!(all, outline());
    }
}
