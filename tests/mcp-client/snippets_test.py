"""Checks the MCP client snippets of docs/clients.md with the official SDK.

Usage: snippets_test.py DOCS_CLIENTS_MD BINARY_DIR

Each fenced block after a `<!-- client: NAME -->` line is parsed in its
client's format (JSON `mcpServers` for Claude Code and Cursor, JSON `servers`
for VS Code, TOML `mcp_servers` for Codex, `claude|codex mcp add NAME --
COMMAND ARGS...` command lines), and the server it describes is started
with the SDK the way the client would: the command looked up on a PATH
holding BINARY_DIR first, `${workspaceFolder}` replaced by a temporary
project, the working directory that project. Then it lists the tools and
outlines a file. Exits non-zero on the first failure; prints one line a
snippet.
"""

import asyncio
import json
import os
import pathlib
import re
import shlex
import sys
import tempfile
import tomllib

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SNIPPET = re.compile(r"<!-- client: (?P<name>[a-z-]+) -->\n```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)
EXPECTED = {"claude-code-cli", "claude-code", "cursor", "codex", "codex-cli", "vscode"}


def server_of(name, lang, body):
    """(command, args, env) of the snippet's `ast-outline` server."""
    if lang == "json":
        data = json.loads(body)
        table = data["servers"] if name == "vscode" else data["mcpServers"]
        entry = table["ast-outline"]
        if name == "vscode" or "type" in entry:
            assert entry["type"] == "stdio", entry
    elif lang == "toml":
        entry = tomllib.loads(body)["mcp_servers"]["ast-outline"]
    elif lang == "sh":
        words = shlex.split(body.strip())
        assert words[:4] in (["claude", "mcp", "add", "ast-outline"], ["codex", "mcp", "add", "ast-outline"]), words
        rest = words[words.index("--") + 1 :]
        entry = {"command": rest[0], "args": rest[1:]}
    else:
        raise AssertionError(f"{name}: unknown snippet language {lang}")
    return entry["command"], list(entry.get("args", [])), dict(entry.get("env", {}))


async def start(name, command, args, env, root):
    args = [a.replace("${workspaceFolder}", str(root)) for a in args]
    params = StdioServerParameters(command=command, args=args, env={**os.environ, **env}, cwd=str(root))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert "get_file_outline" in tools, f"{name}: tools {sorted(tools)}"
            result = await session.call_tool("get_file_outline", {"path": "shop.py"})
            text = result.content[0].text
            assert not result.is_error and "class Cart" in text, f"{name}: {text}"
    return len(tools)


def main():
    page = pathlib.Path(sys.argv[1]).read_text()
    binary_dir = pathlib.Path(sys.argv[2]).resolve()
    os.environ["PATH"] = f"{binary_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    found = {m["name"]: (m["lang"], m["body"]) for m in SNIPPET.finditer(page)}
    missing = EXPECTED - found.keys()
    assert not missing, f"snippets missing from the page: {sorted(missing)}"
    for name, (lang, body) in sorted(found.items()):
        command, args, env = server_of(name, lang, body)
        assert command == "ast-outline", f"{name}: command {command}"
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "shop.py").write_text("class Cart:\n    def total(self):\n        return 0\n")
            count = asyncio.run(start(name, command, args, env, root))
        print(f"ok {name}: {command} {' '.join(args)} ({count} tools)")


if __name__ == "__main__":
    try:
        main()
    except BaseException as error:  # an ExceptionGroup from the SDK's tasks too
        print(f"FAIL: {error!r}", file=sys.stderr)
        raise
