//! The bare parsers alone, for `bench/compare.sh`: walks PATH... exactly as
//! `ast-outline outline` does (same files), then reads and parses every file
//! with its language's parser — ruff's `parse_unchecked` (Python), swc's
//! `parse_program` (TypeScript/JavaScript), `syn::parse_file` (Rust) — on one
//! worker thread per CPU, and throws the trees away. Nothing is extracted or
//! printed but a summary line on stderr.
//!
//! `cargo run --release -p ast-outline-cli --example bare_parse -- PATH...`

use std::path::PathBuf;

use ast_outline::Language;
use ast_outline::walk::{WalkOptions, collect_files};
use rayon::prelude::*;

fn main() {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: bare_parse PATH...");
        std::process::exit(2);
    }
    let walked = collect_files(&paths, WalkOptions::default());
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(256 * 1024 * 1024)
        .build()
        .unwrap_or_else(|error| {
            eprintln!("bare_parse: {error}");
            std::process::exit(1)
        });
    let (bytes, failed): (usize, usize) = pool.install(|| {
        walked
            .files
            .par_iter()
            .filter_map(|file| {
                let language = file.language?;
                let bytes = std::fs::read(&file.path).ok()?;
                let text = String::from_utf8_lossy(&bytes);
                Some((bytes.len(), usize::from(!parse(&text, language))))
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    eprintln!(
        "bare_parse: {} files, {bytes} bytes, {failed} rejected by their parser",
        walked.files.len()
    );
}

/// Parses `text` as `language`; whether the parser accepted it.
fn parse(text: &str, language: Language) -> bool {
    match language {
        Language::Python => {
            let options = ruff_python_parser::ParseOptions::from(ruff_python_parser::Mode::Module)
                .with_target_version(ruff_python_ast::PythonVersion::PY314);
            ruff_python_parser::parse_unchecked(text, options)
                .errors()
                .is_empty()
        }
        Language::Rust => {
            let parsed = syn::parse_file(text).is_ok();
            proc_macro2::extra::invalidate_current_thread_spans();
            parsed
        }
        Language::Typescript | Language::Tsx | Language::Javascript | Language::Jsx => {
            use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, TsSyntax};
            let syntax = match language {
                Language::Javascript | Language::Jsx => Syntax::Es(EsSyntax {
                    jsx: true,
                    decorators: true,
                    ..EsSyntax::default()
                }),
                _ => Syntax::Typescript(TsSyntax {
                    tsx: language == Language::Tsx,
                    decorators: true,
                    ..TsSyntax::default()
                }),
            };
            let end = u32::try_from(text.len()).unwrap_or(u32::MAX - 1) + 1;
            let input = StringInput::new(text, swc_common::BytePos(1), swc_common::BytePos(end));
            let mut parser = Parser::new(syntax, input, None);
            parser.parse_program().is_ok()
        }
    }
}
