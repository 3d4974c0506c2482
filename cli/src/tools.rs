//! `ast-outline tools --format openai|anthropic|mcp`: the MCP server's tools as
//! function-calling definitions, from the definitions the server serves.

use std::process::ExitCode;

use super::args::{ToolsArgs, ToolsFormat};
use super::output::{print_or_exit, report};
use ast_outline_mcp::schemas::{ToolFormat, tool_schemas};

pub(super) fn run(args: &ToolsArgs) -> ExitCode {
    let format = match args.format {
        ToolsFormat::Openai => ToolFormat::Openai,
        ToolsFormat::Anthropic => ToolFormat::Anthropic,
        ToolsFormat::Mcp => ToolFormat::Mcp,
    };
    match serde_json::to_string_pretty(&tool_schemas(format)) {
        Ok(mut json) => {
            json.push('\n');
            print_or_exit(&json);
            ExitCode::SUCCESS
        }
        Err(error) => {
            report(format!("cannot write the tool definitions: {error}"));
            ExitCode::FAILURE
        }
    }
}
