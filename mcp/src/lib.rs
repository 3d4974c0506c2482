//! # ast-outline-mcp
//!
//! `ast-outline mcp`: an MCP (Model Context Protocol) server on stdio, built on
//! the official Rust SDK (`rmcp`), that lets an agent outline files, read one
//! symbol by id (also after edits), read capped line ranges, find symbols, and
//! follow references, calls and type hierarchies across files.
//!
//! - [`jail`]: every path is resolved against the root; paths leaving it are refused.
//! - [`tools`]: what each tool does, as plain functions returning text.
//! - [`index_tools`]: the cross-file tools, answered from the index of the root.
//! - [`server`]: the rmcp tool router and server handler around them.
//! - [`schemas`]: the same tool definitions for OpenAI / Anthropic function calling.
//! - `cache`: parsed files kept in memory, keyed by path, modification time and size.
//! - [`stdio`]: the line reader in front of rmcp: malformed lines are answered.
//!
//! Result sizes are `o200k_base` tokens (`ast_outline_budget`).

mod cache;
pub mod index_tools;
pub mod jail;
pub mod schemas;
pub mod server;
pub mod stdio;
pub mod tools;

use std::path::Path;

pub use server::{INSTRUCTIONS, OutlineServer};

/// Serves MCP on standard input and output for the tree under `root` until
/// the client disconnects. Runs on the calling thread (tools are answered one
/// at a time, on that thread's stack).
///
/// # Errors
/// A message when the root is not a directory, the runtime cannot start, or
/// the connection fails (for example an `initialize` that never came).
pub fn serve_stdio(root: &Path, live: ast_outline_live::LiveOptions) -> Result<(), String> {
    let jail = jail::Jail::new(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let server = OutlineServer::new(tools::Workspace::new(jail, live));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(stdio::serve(server))
}
