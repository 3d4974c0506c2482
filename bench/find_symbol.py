#!/usr/bin/env python3
"""find_symbol.py [--sizes 5000,50000] [--calls 50] [--binary PATH] [--keep]

Wall time of MCP `find_symbol(pattern[, path])` through one running
`ast-outline mcp` server, the walk (no index on disk: every call walks the
tree and outlines each file from the cache) against the index (after
`ast-outline index`: the server answers from its live index).

For each size it generates a tree of that many small Python and TypeScript
files in /tmp (ao-find-symbol-N; kept, and reused when it is already there),
then:

1. walk: removes the index, keeps `.ast-outline/` (so the outline cache is
   used, as on a tree that was indexed before), starts the server, makes one
   call to warm the caches and times CALLS calls of varied patterns;
2. index: builds the index (`ast-outline index ROOT`), starts a new server,
   makes one call (it opens the index and starts following changes) and
   times the same calls. Each answer is checked to be the walk's, byte for
   byte.

Prints p50 and p90 in milliseconds for both, and the goals (index p50 at most
10 ms on 5,000 files, 30 ms on 50,000), with the load average before and
after each size (other work on the machine slows both). Needs the release
binary (`cargo build --release -p ast-outline-cli`; `--binary` or $AO names
another). Exits 1 when a goal is not met or an answer differs.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")

NOUNS = [
    "user", "order", "invoice", "cart", "product", "session", "token", "account",
    "payment", "report", "queue", "cache", "event", "message", "profile", "address",
    "shipment", "item", "review", "coupon", "tenant", "ledger", "widget", "channel",
]
ROLES = ["Service", "Repository", "Controller", "Handler", "Manager", "Client", "Store",
         "Factory", "Validator", "Builder"]
VERBS = ["get", "find", "load", "save", "update", "delete", "create", "parse", "render",
         "build", "check", "send"]

# (arguments, label): substrings, exact names, qualified names, globs, path
# scopes, and patterns matching nothing; 50 in all.
PATTERNS = [
    {"pattern": "user"}, {"pattern": "save"}, {"pattern": "Service"},
    {"pattern": "get_order"}, {"pattern": "findUser"}, {"pattern": "validate"},
    {"pattern": "__init__"}, {"pattern": "constructor"}, {"pattern": "render"},
    {"pattern": "InvoiceRepository"}, {"pattern": "CartStore.save_cart"},
    {"pattern": "Controller."}, {"pattern": "ledger"}, {"pattern": "MAX_"},
    {"pattern": "parse_token_7"}, {"pattern": "Props"}, {"pattern": "widget"},
    {"pattern": "it('finds"}, {"pattern": "describe("}, {"pattern": "zzz_nothing"},
    {"pattern": "qqqq"}, {"pattern": "send"}, {"pattern": "e"},
    {"pattern": "get_*"}, {"pattern": "*Service"}, {"pattern": "*Handler.*"},
    {"pattern": "save_*_1?"}, {"pattern": "find*"}, {"pattern": "*_id"},
    {"pattern": "Order*.save*"}, {"pattern": "*.constructor"}, {"pattern": "?ache*"},
    {"pattern": "[a-c]*Factory"}, {"pattern": "*zzz*"}, {"pattern": "it(*)"},
    {"pattern": "user", "path": "pkg003"}, {"pattern": "get_*", "path": "pkg007"},
    {"pattern": "Service", "path": "pkg001/mod00104.py"},
    {"pattern": "*", "path": "pkg002/mod00201.ts"}, {"pattern": "cart", "path": "pkg010"},
    {"pattern": "token"}, {"pattern": "ChannelClient"}, {"pattern": "load_"},
    {"pattern": "update_profile"}, {"pattern": "Builder.build"}, {"pattern": "_private"},
    {"pattern": "check*"}, {"pattern": "*Manager*"}, {"pattern": "tenant", "path": "pkg004"},
    {"pattern": "nothing_here*"},
]


def python_file(rng, i):
    noun, role = rng.choice(NOUNS), rng.choice(ROLES)
    other = rng.choice(NOUNS)
    cls = f"{noun.capitalize()}{role}"
    lines = [
        f'"""Module {i}: the {noun} {role.lower()}."""',
        "import os",
        "",
        f"MAX_{noun.upper()}S = {i % 97}",
        "",
        "",
        f"class {cls}:",
        f'    """Keeps {noun}s."""',
        "",
        "    def __init__(self, store):",
        "        self.store = store",
        "",
        f"    def get_{noun}(self, {noun}_id):",
        f"        return self.store.get({noun}_id)",
        "",
        f"    def save_{noun}(self, {noun}):",
        f"        self._validate({noun})",
        f"        self.store.put({noun})",
        "",
        "    def _validate(self, value):",
        "        if value is None:",
        "            raise ValueError('empty')",
        "",
        "",
    ]
    for k in range(3):
        verb = rng.choice(VERBS)
        name = f"{verb}_{other}_{(i + k) % 40}"
        lines += [
            f"def {name}({other}_id, retries=3):",
            f'    """{verb.capitalize()} a {other}."""',
            f"    return {cls}(os.environ).get_{noun}({other}_id)",
            "",
            "",
        ]
    lines += ["def _private_helper():", "    return None", ""]
    return "\n".join(lines)


def typescript_file(rng, i):
    noun, role = rng.choice(NOUNS), rng.choice(ROLES)
    cap = noun.capitalize()
    cls = f"{cap}{role}"
    lines = [
        f"export interface {cap}Props {{",
        "  id: number;",
        "  name: string;",
        "}",
        "",
        f"export class {cls} {{",
        "  constructor(private readonly store: Map<number, unknown>) {}",
        "",
        f"  find{cap}(id: number): unknown {{",
        "    return this.store.get(id);",
        "  }",
        "",
        f"  render{cap}(props: {cap}Props): string {{",
        "    return props.name;",
        "  }",
        "}",
        "",
    ]
    for k in range(2):
        verb = rng.choice(VERBS)
        lines += [
            f"export function {verb}{cap}{(i + k) % 40}(x: number): number {{",
            "  return x + 1;",
            "}",
            "",
        ]
    if i % 8 == 1:
        lines += [
            f"describe('{noun} {role.lower()}', () => {{",
            f"  it('finds a {noun}', () => {{",
            "    expect(1).toBe(1);",
            "  });",
            "});",
            "",
        ]
    return "\n".join(lines)


def generate(root, count):
    """A tree of `count` files, 100 per directory, half Python, half TypeScript."""
    marker = os.path.join(root, ".generated")
    if os.path.exists(marker):
        return
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(count)
    for i in range(count):
        directory = os.path.join(root, f"pkg{i // 100:03d}")
        os.makedirs(directory, exist_ok=True)
        if i % 2:
            text, ext = typescript_file(rng, i), "ts"
        else:
            text, ext = python_file(rng, i), "py"
        with open(os.path.join(directory, f"mod{i:05d}.{ext}"), "w") as out:
            out.write(text)
    with open(marker, "w") as out:
        out.write(f"{count}\n")


class Server:
    """`ast-outline mcp --root ROOT` driven over stdio JSON-RPC."""

    def __init__(self, binary, root):
        self.process = subprocess.Popen(
            [binary, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        self.ids = iter(range(1, 1 << 30))
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def call(self, method, params):
        wanted = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        for line in self.process.stdout:
            message = json.loads(line)
            if message.get("id") == wanted:
                return message
        raise SystemExit("find_symbol.py: the server ended")

    def find(self, arguments):
        reply = self.call("tools/call", {"name": "find_symbol", "arguments": arguments})
        result = reply.get("result") or {}
        text = "".join(c.get("text", "") for c in result.get("content", []))
        if result.get("isError"):
            raise SystemExit(f"find_symbol.py: {arguments}: {text}")
        return text

    def rss_mb(self):
        """The server's resident memory now, in MB (Linux; 0 elsewhere)."""
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def timed(server, calls):
    """Each call's milliseconds and answer."""
    times, answers = [], []
    for arguments in calls:
        start = time.perf_counter()
        answers.append(server.find(arguments))
        times.append((time.perf_counter() - start) * 1000)
    return times, answers


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000,50000")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--binary", default=os.environ.get(
        "AO", os.path.join(REPO, "target", "release", "ast-outline")))
    parser.add_argument("--keep", action="store_true", help="keep the trees in /tmp")
    parser.add_argument("--no-walk", action="store_true", help="time the index only")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"find_symbol.py: no binary at {args.binary} "
                         "(cargo build --release -p ast-outline-cli)")
    calls = [PATTERNS[i % len(PATTERNS)] for i in range(args.calls)]
    goals = {5000: 10, 50000: 30}
    failed = False
    for size in [int(s) for s in args.sizes.split(",")]:
        root = f"/tmp/ao-find-symbol-{size}"
        start = time.perf_counter()
        generate(root, size)
        print(f"{size} files in {root} (generated or reused in {time.perf_counter() - start:.1f} s; "
              f"load average {os.getloadavg()[0]:.2f})")
        store = os.path.join(root, ".ast-outline")
        for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
            if os.path.exists(os.path.join(store, name)):
                os.remove(os.path.join(store, name))
        os.makedirs(store, exist_ok=True)
        walk_answers = None
        if not args.no_walk:
            server = Server(args.binary, root)
            start = time.perf_counter()
            server.find(calls[0])
            first = (time.perf_counter() - start) * 1000
            walk, walk_answers = timed(server, calls)
            rss = server.rss_mb()
            server.close()
            print(f"  walk:  first call {first:.0f} ms; p50 {statistics.median(walk):.1f} ms, "
                  f"p90 {percentile(walk, 90):.1f} ms over {len(walk)} calls; server RSS {rss:.0f} MB")
        start = time.perf_counter()
        subprocess.run([args.binary, "index", root, "-q"], check=True,
                       stdout=subprocess.DEVNULL)
        built = time.perf_counter() - start
        server = Server(args.binary, root)
        start = time.perf_counter()
        server.find(calls[0])
        first = (time.perf_counter() - start) * 1000
        index, index_answers = timed(server, calls)
        rss = server.rss_mb()
        server.close()
        p50 = statistics.median(index)
        goal = goals.get(size)
        verdict = "" if goal is None else (f" (goal <= {goal} ms: "
                                           f"{'met' if p50 <= goal else 'NOT met'})")
        failed |= goal is not None and p50 > goal
        print(f"  index: built in {built:.1f} s; first call {first:.0f} ms; p50 {p50:.1f} ms, "
              f"p90 {percentile(index, 90):.1f} ms over {len(index)} calls; server RSS {rss:.0f} MB"
              f"{verdict}")
        if walk_answers is not None:
            differing = [c for c, w, i in zip(calls, walk_answers, index_answers) if w != i]
            if differing:
                failed = True
                print(f"  ANSWERS DIFFER for {len(differing)} calls, first: {differing[0]}")
            else:
                print(f"  the {len(calls)} answers are the same, byte for byte")
        print(f"  load average after: {os.getloadavg()[0]:.2f}")
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
