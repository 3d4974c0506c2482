//! The server's tools as function-calling definitions for other agent
//! frameworks, generated from the same definitions `tools/list` serves.

use serde_json::{Map, Value, json};

use super::server::OutlineServer;

/// The shapes tool definitions are printed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    /// OpenAI function calling (Chat Completions `tools`):
    /// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
    Openai,
    /// Anthropic tool use (Messages API `tools`):
    /// `[{"name", "description", "input_schema"}]`.
    Anthropic,
    /// MCP, as the result of `tools/list`: `{"tools": [{"name", "description", "inputSchema", ...}]}`.
    Mcp,
}

/// The tool definitions in `format`, as pretty-printed JSON.
pub fn tool_schemas(format: ToolFormat) -> Value {
    let tools = OutlineServer::tool_definitions();
    if format == ToolFormat::Mcp {
        return json!({ "tools": tools });
    }
    let converted: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut parameters: Map<String, Value> = tool.input_schema.as_ref().clone();
            // Function-calling APIs take the bare schema object.
            parameters.remove("$schema");
            let name = tool.name.as_ref();
            let description = tool.description.as_deref().unwrap_or_default();
            match format {
                ToolFormat::Openai => json!({
                    "type": "function",
                    "function": {
                        "name": name,
                        "description": description,
                        "parameters": parameters,
                    }
                }),
                _ => json!({
                    "name": name,
                    "description": description,
                    "input_schema": parameters,
                }),
            }
        })
        .collect();
    Value::Array(converted)
}
