"""Drives `ast-outline mcp` with the official MCP Python SDK, as an agent would.

Usage: client_test.py PATH_TO_AST_OUTLINE

In a temporary project it: initializes, lists the tools, outlines a real
file, reads a symbol by the id the outline returned, edits the file so the
symbol moves, reads the same id again (it must say it moved and print the
symbol's real lines), asks for a path outside the root (refused), then
asks who calls the symbol (find_references), adds a call in another file and
asks again: the new call is listed at its real line. Then more edit-then-query
round trips against the server's live (watched) index: a caller renamed
(get_callers), a subclass added (get_type_hierarchy), a file deleted
(find_references).
Exits non-zero with a message on the first check that fails.
"""

import asyncio
import pathlib
import re
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SOURCE = '''\
"""Stock levels."""

from dataclasses import dataclass


@dataclass
class Inventory:
    """Counts items per SKU."""

    counts: dict

    def restock(self, sku: str, amount: int) -> int:
        """Add stock and return the new level."""
        level = self.counts.get(sku, 0) + amount
        self.counts[sku] = level
        return level

    def remove(self, sku: str) -> None:
        self.counts.pop(sku, None)
'''

ORDERS = '''\
from stock.inventory import Inventory


def order(inventory: Inventory, sku: str) -> int:
    """Restock one item."""
    return inventory.restock(sku, 1)
'''

HEADER = re.compile(r"^==> (?P<path>\S+):(?P<start>\d+)-(?P<end>\d+) (?P<label>.*) <==$")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def text_of(result):
    check(len(result.content) == 1, f"one text block expected: {result}")
    return result.content[0].text


def check_symbol_read(text, source_path, name):
    """The header names real lines, and the lines printed are those lines."""
    lines = text.splitlines()
    match = HEADER.match(lines[0])
    check(match is not None, f"no header line: {lines[0]!r}")
    start, end = int(match["start"]), int(match["end"])
    file_lines = source_path.read_text().splitlines()
    # Header, enclosing symbols and the "only lines" note come before the
    # source; the token count comes after it.
    body_start = next(i for i, line in enumerate(lines) if line.startswith("(only lines"))
    body = lines[body_start + 1 : -1]
    check(body == file_lines[start - 1 : end], f"printed lines are not lines {start}-{end}:\n{text}")
    check(f"def {name}(" in body[0], f"the symbol starts the passage:\n{text}")
    check(re.fullmatch(r"\[\d+ tokens, o200k_base\]", lines[-1]), f"no token count: {lines[-1]!r}")
    return start, end, match["label"]


async def run(binary):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        root = tmp / "project"
        (root / "stock").mkdir(parents=True)
        source = root / "stock" / "inventory.py"
        source.write_text(SOURCE)
        outside = tmp / "credentials.py"
        outside.write_text("TOKEN = 'secret'\n")

        params = StdioServerParameters(command=binary, args=["mcp", "--root", str(root)])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "ast-outline", f"server name: {init.server_info}")
                check("read_symbol" in (init.instructions or ""), "instructions teach the workflow")

                listed = await session.list_tools()
                names = sorted(tool.name for tool in listed.tools)
                check(
                    names
                    == [
                        "find_references",
                        "find_symbol",
                        "find_tests",
                        "get_callers",
                        "get_context",
                        "get_file_outline",
                        "get_impact",
                        "get_type_hierarchy",
                        "read_lines",
                        "read_symbol",
                        "search_code",
                    ],
                    f"tools: {names}",
                )
                print("tools:", ", ".join(names))

                outline = await session.call_tool("get_file_outline", {"path": "stock/inventory.py"})
                check(not outline.is_error, f"outline failed: {outline}")
                outline_text = text_of(outline)
                print(outline_text)
                found = re.search(r" id=(\S+:Inventory\.restock)$", outline_text, re.M)
                check(found is not None, "the outline gives restock's id")
                symbol_id = found[1]
                check(symbol_id == "stock/inventory.py:12:Inventory.restock", f"id: {symbol_id}")

                first = await session.call_tool("read_symbol", {"symbol_id": symbol_id})
                check(not first.is_error, f"read failed: {first}")
                start, end, label = check_symbol_read(text_of(first), source, "restock")
                check((start, end) == (12, 16), f"restock is at lines 12-16, got {start}-{end}")
                check("moved" not in label, f"not moved yet: {label}")
                check("inside: L6-19 @dataclass class Inventory" in text_of(first), "enclosing class")
                print(text_of(first))

                # The agent (or a colleague) edits the file: restock moves down.
                source.write_text(SOURCE.replace("    counts: dict\n", "    counts: dict\n    name: str = ''\n    owner: str = ''\n"))
                again = await session.call_tool("read_symbol", {"symbol_id": symbol_id})
                check(not again.is_error, f"read after the edit failed: {again}")
                start, end, label = check_symbol_read(text_of(again), source, "restock")
                check((start, end) == (14, 18), f"restock moved to 14-18, got {start}-{end}")
                check("moved: the id said line 12, it now starts at line 14" in label, f"label: {label}")
                print(text_of(again))

                for path in [str(outside), "../credentials.py"]:
                    refused = await session.call_tool("read_lines", {"path": path, "start": 1, "end": 1})
                    check(refused.is_error, f"{path} must be refused: {refused}")
                    message = text_of(refused)
                    check("refused" in message and "outside the root" in message, message)
                    check("secret" not in message, "nothing of the file leaks")
                    print("refused:", message)

                # Cross-file: who calls restock? Then a new caller appears.
                orders = root / "stock" / "orders.py"
                orders.write_text(ORDERS)
                refs = await session.call_tool("find_references", {"target": symbol_id})
                check(not refs.is_error, f"find_references failed: {refs}")
                lines = re.findall(r"^  L(\d+):\d+ call (\S+) in (\S+) \[(?:exact|inferred)", text_of(refs), re.M)
                check(lines == [("6", "inventory.restock", "order")], f"refs: {text_of(refs)}")
                print(text_of(refs))
                orders.write_text(ORDERS + "\n\ndef refill(inventory: Inventory) -> None:\n    inventory.restock('b', 2)\n")
                refs = await session.call_tool("find_references", {"target": symbol_id})
                lines = re.findall(r"^  L(\d+):\d+ call (\S+) in (\S+) \[(?:exact|inferred)", text_of(refs), re.M)
                check(
                    lines == [("6", "inventory.restock", "order"), ("10", "inventory.restock", "refill")],
                    f"refs after the edit: {text_of(refs)}",
                )
                print(text_of(refs))

                # Edit, then query, round trips against the live index: a
                # caller renamed, a subclass added, a file deleted.
                orders.write_text(orders.read_text().replace("def order(", "def place_order("))
                callers = await session.call_tool("get_callers", {"target": symbol_id})
                check(not callers.is_error, f"get_callers failed: {callers}")
                found = re.findall(r"^  L(\d+):\d+ call \S+ in (\S+) \[(?:exact|inferred)", text_of(callers), re.M)
                check(found == [("6", "place_order"), ("10", "refill")], f"callers: {text_of(callers)}")
                print(text_of(callers))
                special = root / "stock" / "special.py"
                special.write_text("from stock.inventory import Inventory\n\n\nclass Special(Inventory):\n    pass\n")
                hierarchy = await session.call_tool("get_type_hierarchy", {"target": "stock/inventory.py:Inventory"})
                check(not hierarchy.is_error, f"get_type_hierarchy failed: {hierarchy}")
                check("stock/special.py:4:Special" in text_of(hierarchy), f"hierarchy: {text_of(hierarchy)}")
                print(text_of(hierarchy))
                orders.unlink()
                refs = await session.call_tool("find_references", {"target": symbol_id})
                check(not refs.is_error, f"find_references failed: {refs}")
                check("orders.py" not in text_of(refs), f"refs after the delete: {text_of(refs)}")
                check("Inventory.restock, L14-18, module inventory): 0 in 0 files" in text_of(refs), text_of(refs))
                print(text_of(refs))
    print("OK: the MCP Python SDK drove ast-outline mcp")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(run(sys.argv[1]))
