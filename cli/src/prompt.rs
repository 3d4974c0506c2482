//! `ast-outline prompt`: a short system-prompt snippet for agents that use the
//! tools (outline first, read by id). The MCP server sends the same text as its
//! `instructions`.

use std::process::ExitCode;

use super::output::print_or_exit;

pub(super) fn run() -> ExitCode {
    print_or_exit(&format!("{}\n", ast_outline_mcp::INSTRUCTIONS));
    ExitCode::SUCCESS
}
