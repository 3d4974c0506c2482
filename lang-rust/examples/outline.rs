//! Prints the text outline of each Rust file given, with this adapter alone
//! (a quick way to look at the adapter without building the CLI):
//! `cargo run -p lang-rust --example outline -- FILE...`.

use lang_rust::RustOutline;
use outline_core::{Language, Outline, OutlineOptions, TextOptions, render_text};

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    for path in std::env::args().skip(1).filter(|a| a != "--json") {
        let source = match std::fs::read_to_string(&path) {
            Ok(source) => source,
            Err(error) => {
                eprintln!("{path}: {error}");
                continue;
            }
        };
        let outline =
            RustOutline.outline(&path, Language::Rust, &source, &OutlineOptions::default());
        if json {
            match outline_core::json_line(&outline) {
                Ok(line) => println!("{line}"),
                Err(error) => eprintln!("{path}: {error}"),
            }
        } else {
            print!("{}", render_text(&outline, &TextOptions::default()));
        }
    }
}
