//! `ast-outline mcp [--root DIR]`: serve MCP on stdio (see [`crate::mcp`]).

use std::process::ExitCode;

use super::args::McpArgs;
use super::report;

pub(super) fn run(args: &McpArgs) -> ExitCode {
    match crate::mcp::serve_stdio(&args.root, args.live.options()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            report(message);
            ExitCode::FAILURE
        }
    }
}
