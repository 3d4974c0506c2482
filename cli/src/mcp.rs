//! `ast-outline mcp [--root DIR]`: serve MCP on stdio (see [`ast_outline_mcp`]).

use std::process::ExitCode;

use super::args::McpArgs;
use super::output::report;

pub(super) fn run(args: &McpArgs) -> ExitCode {
    match ast_outline_mcp::serve_stdio(&args.root, args.live.options()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            report(message);
            ExitCode::FAILURE
        }
    }
}
