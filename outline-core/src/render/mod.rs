//! Renderers: the compact text format for agents and humans, and JSON Lines.

mod json;
mod text;

pub use json::json_line;
pub use text::{TextOptions, render_text};
