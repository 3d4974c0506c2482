//! Id and target resolution: the input is a `read` target (`PATH:SELECTOR`),
//! split with `split_target` (the files `a.py`, `dir:x/b.ts` and `lib.rs`
//! exist) and resolved against the outline of a small fixed source.
#![no_main]

use std::sync::LazyLock;

use ast_outline::{
    FileOutline, OutlineOptions, Resolution, outline_core::split_target, outline_source,
};
use libfuzzer_sys::fuzz_target;

const PYTHON: &str = "\
import os

class Repo(Base):
    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    def find(self, id: int) -> 'Order | None':
        def inner():
            pass
        for x in range(3):
            if x:
                pass
        return None

def find():
    pass

if __name__ == '__main__':
    main()
";

const TYPESCRIPT: &str = "\
export class Queue<T> {
  push(item: T): void {}
  push(item: T, n: number): void {}
  get size(): number { return 0; }
}
export namespace A.B { export function f() {} }
const handler = () => 1;
";

const RUST: &str = "\
pub struct S;

impl S {
    pub fn new() -> Self { S }
}

impl Iterator for S {
    type Item = u8;
    fn next(&mut self) -> Option<u8> { None }
}

mod m { pub fn new() {} }
";

static OUTLINES: LazyLock<Vec<FileOutline>> = LazyLock::new(|| {
    let options = OutlineOptions {
        block_threshold: 1,
        ..OutlineOptions::default()
    };
    [
        ("a.py", PYTHON),
        ("dir:x/b.ts", TYPESCRIPT),
        ("lib.rs", RUST),
    ]
    .into_iter()
    .filter_map(|(path, text)| outline_source(path, text, &options).ok())
    .collect()
});

fuzz_target!(|data: &[u8]| {
    let Ok(target) = std::str::from_utf8(data) else {
        return;
    };
    let outlines = &*OUTLINES;
    let Ok((path, selector)) = split_target(target, |p| outlines.iter().any(|o| o.path == p))
    else {
        return;
    };
    let Some(outline) = outlines.iter().find(|o| o.path == path) else {
        panic!("split_target returned a path that is not a file: {path:?}");
    };
    match ast_outline::resolve(outline, &selector) {
        Resolution::Found(symbol) | Resolution::Moved { symbol, .. } => {
            assert!(symbol.start_line <= symbol.end_line);
            assert!(symbol.end_line <= outline.line_count);
        }
        Resolution::Ambiguous(candidates) => assert!(candidates.len() >= 2, "{candidates:?}"),
        Resolution::Lines { start, end } => assert!(1 <= start && start <= end),
        Resolution::NotFound { .. } => {}
    }
});
