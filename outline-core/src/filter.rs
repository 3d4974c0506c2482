//! Trimming an outline for display: nesting depth, non-public symbols, docs.

use crate::model::{FileOutline, Symbol, SymbolKind};

/// What to keep of an outline. The default keeps everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Keep symbols nested at most this deep (1 = top-level only); `None` keeps
    /// all. Blocks do not add a level: the definitions inside a module-level
    /// `if __name__ == "__main__":` block are top-level.
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
            // Blocks are transparent: what a block holds is as deep as the block.
            let child_depth = if symbol.kind == SymbolKind::Block {
                depth
            } else {
                depth + 1
            };
            self.apply_to(&mut symbol.children, child_depth);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;
    use crate::outline::{Extracted, finish};

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

        let mut block = Symbol::new("if __name__ == \"__main__\"", SymbolKind::Block, 10, 12);
        block
            .children
            .push(Symbol::new("main", SymbolKind::Function, 11, 12));
        let mut with_block = outline();
        with_block.symbols.push(block);
        Filter {
            max_depth: Some(1),
            ..Filter::default()
        }
        .apply(&mut with_block);
        let names: Vec<String> = with_block
            .symbols
            .iter()
            .flat_map(|s| {
                std::iter::once(s.name.clone()).chain(s.children.iter().map(|c| c.name.clone()))
            })
            .collect();
        assert_eq!(names, ["C", "if __name__ == \"__main__\"", "main"]);

        let mut all = outline();
        Filter::default().apply(&mut all);
        assert_eq!(all, outline());
    }
}
