"""Writes tests/fixtures/python/edge-long-functions.py: about 5,000 lines of
long functions, so the control-flow pseudo-symbol policy (blocks inside bodies
longer than 100 lines, recursively) is exercised on a realistic scale.

Deterministic: run it again and the file is byte-identical.
"""
import pathlib

OUT = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "python" / "edge-long-functions.py"


def statements(n, indent, tag):
    pad = "    " * indent
    return [f"{pad}value_{tag}_{i} = compute({i}, {tag!r})" for i in range(n)]


def long_function(k):
    lines = [f"def handle_batch_{k}(batch, options=None):", f'    """Handle batch number {k}."""']
    lines += statements(10, 1, f"h{k}")
    lines.append("    if options is None:")
    lines += statements(30, 2, f"if{k}")
    lines.append("    elif options.fast:")
    lines += statements(5, 2, f"elif{k}")
    lines.append("    else:")
    lines += statements(5, 2, f"else{k}")
    lines.append("    for item in batch:")
    lines += statements(8, 2, f"for{k}")
    lines.append("        def visit(node):")
    lines.append("            return node")
    lines.append("        visit(item)")
    lines.append("    while pending():")
    lines += statements(4, 2, f"while{k}")
    lines.append("    try:")
    # a long try block (more than 100 lines) holding its own control flow
    lines += statements(40, 2, f"try{k}")
    lines.append("        with open_log(k) as log:")
    lines += statements(30, 3, f"with{k}")
    lines.append("        match item.kind:")
    lines.append("            case 'a':")
    lines += statements(10, 4, f"case{k}")
    lines.append("            case _:")
    lines.append("                pass")
    lines += statements(30, 2, f"tail{k}")
    lines.append("    except ValueError as error:")
    lines.append("        report(error)")
    lines.append("    finally:")
    lines.append("        close()")
    lines += statements(5, 1, f"end{k}")
    lines.append("    return batch")
    return lines


def short_function(k):
    return [f"def small_{k}(x):", "    if x:", "        return 1", "    return 0"]


def main():
    lines = ['"""Generated: long functions for control-flow pseudo-symbols."""', ""]
    k = 0
    while len(lines) < 4900:
        lines += ["", ""]
        lines += long_function(k)
        lines += ["", ""]
        lines += short_function(k)
        k += 1
    lines += ["", "", "class Service:", "    def run(self):"]
    lines += statements(60, 2, "run")
    lines.append("        for job in self.jobs:")
    lines += statements(60, 3, "job")
    lines.append("        return None")
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
