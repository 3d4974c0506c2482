#!/usr/bin/env python3
"""The driver of bench/live.sh: an LSP client that times the live index.

    driver.py project --exe EXE --root DIR --label NAME --work DIR --out RES.json
                      [--manifest M.json] [--samples 100] [--ref-samples 50]
                      [--burst] [--burst-files 2000] [--burst-rounds 5]
                      [--burst-seconds 1.0]
    driver.py watch-burst --exe EXE --root DIR --manifest M.json --work DIR --out RES.json
    driver.py summary RES.json...

`project` starts `EXE lsp --root DIR` (the index at DIR/.ast-outline/, built
by the server's start), then:

- write->answer (workspace/symbol): SAMPLES times, on as many different
  files, t0 just before a file is rewritten on disk (the whole file: its
  text plus a new, uniquely named function at the end; open, write, close,
  as an editor saves), then `workspace/symbol` for that name back to back
  until an answer holds it: t1 is when that answer was read.
- write->answer (references): REF_SAMPLES times, a file that imports a
  function of another file gets a new function calling it; then
  `textDocument/references` on the definition, back to back, until it lists
  the new call.
- the references: the same `workspace/symbol` for a name already indexed,
  nothing pending (the query alone), and a request the server does not
  support (the JSON-RPC round trip alone).
- memory: VmRSS and VmHWM of the server from /proc/PID/status.
- with --burst: BURST_ROUNDS x BURST_FILES writes within BURST_SECONDS (the
  files rewritten round after round, each write adding one function
  `burst_FFFF_wK`, the same length in every round), while another thread
  sends `workspace/symbol` back to back and times every answer; after it,
  when the server's CPU is idle, every file's last name is looked for (and
  none of its earlier ones), and the index is exported and compared with a
  fresh `EXE index` of the same tree (`EXE export`, both).

The client offers no position encoding (UTF-16, as most editors).
Standard library only.
"""

import argparse
import ast
import json
import math
import os
import random
import re
import signal
import subprocess
import threading
import time
from collections import Counter

now = time.perf_counter


def ms(seconds):
    return seconds * 1000.0


def pct(values, q):
    """The nearest-rank q-quantile (0 < q <= 1) of values."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def stats_ms(seconds):
    if not seconds:
        return {"n": 0}
    return {
        "n": len(seconds),
        "p50": round(ms(pct(seconds, 0.5)), 2),
        "p95": round(ms(pct(seconds, 0.95)), 2),
        "max": round(ms(max(seconds)), 2),
        "mean": round(ms(sum(seconds) / len(seconds)), 2),
    }


def fmt_stats(s):
    if not s.get("n"):
        return "no samples"
    return f"p50 {s['p50']:.1f} ms, p95 {s['p95']:.1f} ms, max {s['max']:.1f} ms (n={s['n']})"


def slowest(where, n=4):
    """The n slowest (ms, file) samples."""
    return [(round(ms(t), 1), rel) for t, rel in sorted(where, reverse=True)[:n]]


def proc_status(pid):
    """VmRSS and VmHWM of `pid`, in KiB."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "Threads"):
                    out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def cpu_ticks(pid):
    """utime + stime of `pid` in clock ticks (None when gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


TICK = os.sysconf("SC_CLK_TCK")


def wait_quiet(pid, idle=0.6, timeout=120.0):
    """Waits until `pid` used no CPU for `idle` seconds; returns the wait."""
    start = now()
    last = cpu_ticks(pid)
    quiet_since = now()
    while now() - start < timeout:
        time.sleep(0.1)
        ticks = cpu_ticks(pid)
        if ticks is None:
            return now() - start
        if ticks != last:
            last = ticks
            quiet_since = now()
        elif now() - quiet_since >= idle:
            return now() - start
    return now() - start


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def write_file(path, text):
    """An editor's save: the whole file, written in place."""
    with open(path, "w") as f:
        f.write(text)


def overwrite_file(path, data):
    """The burst's write: the bytes written over the file in place, then cut
    to their length (no O_TRUNC first: on this machine's ext4, mounted with
    `discard`, a truncating open costs ~0.1 ms and 10,000 of them do not fit
    in one second next to the server)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def read_file(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def utf16_units(text):
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


class ServerGone(Exception):
    pass


class Lsp:
    """A JSON-RPC client over the server's stdio. A reader thread reads every
    message and records when it was read, so that a response's time does not
    include waking the thread that waits for it."""

    def __init__(self, argv, cwd, stderr):
        self.start = now()
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr)
        self.pid = self.p.pid
        self.next_id = 0
        self.write_lock = threading.Lock()
        self.cond = threading.Condition()
        self.responses = {}  # id -> (message, time read)
        self.closed = False
        self.notifications = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.p.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        raise EOFError
                    if line in (b"\r\n", b"\n"):
                        break
                    key, _, value = line.decode().partition(":")
                    if key.strip().lower() == "content-length":
                        length = int(value.strip())
                body = out.read(length)
                t = now()
                message = json.loads(body)
                if "id" in message and "method" in message:
                    # A request of the server's: answered with null.
                    self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                    continue
                if "id" not in message:
                    self.notifications += 1
                    continue
                with self.cond:
                    self.responses[message["id"]] = (message, t)
                    self.cond.notify_all()
        except (EOFError, ValueError, OSError):
            pass
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def _send(self, message):
        data = json.dumps(message).encode()
        with self.write_lock:
            self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            self.p.stdin.flush()

    def request(self, method, params, timeout=60.0):
        """(response, seconds from just before sending to the answer read,
        the time it was read); response None after `timeout`."""
        with self.write_lock:
            self.next_id += 1
            rid = self.next_id
        t0 = now()
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        except OSError as e:
            raise ServerGone(f"cannot write to the server: {e}")
        deadline = t0 + timeout
        with self.cond:
            while rid not in self.responses:
                if self.closed:
                    raise ServerGone("the server closed its output")
                left = deadline - now()
                if left <= 0:
                    return None, now() - t0, now()
                self.cond.wait(left)
            message, t = self.responses.pop(rid)
        return message, t - t0, t

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, root):
        response, _, _ = self.request("initialize", {
            "processId": os.getpid(), "rootUri": "file://" + root,
            "capabilities": {}}, timeout=600)
        if response is None or "result" not in response:
            raise ServerGone(f"initialize failed: {response}")
        self.notify("initialized", {})
        return now() - self.start

    def shutdown(self):
        try:
            self.request("shutdown", None, timeout=30)
            self.notify("exit", None)
            return self.p.wait(30)
        except (ServerGone, OSError, subprocess.TimeoutExpired):
            self.p.kill()
            return self.p.wait()


def symbol_names(response, uri=None):
    result = (response or {}).get("result") or []
    return [s["name"] for s in result
            if uri is None or s.get("location", {}).get("uri") == uri]


# ---------------------------------------------------------------- samples


def pick_spread(items, count):
    """`count` items spread evenly over `items`."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def generated_targets(manifest, root, samples, ref_samples):
    """Files for the symbol probes and cross-file uses for the references
    probes, from the generator's manifest."""
    files = [(f["path"], f["language"]) for f in manifest["files"]]
    probes = pick_spread(files, samples)
    uses = []
    seen = set()
    rng = random.Random(7)
    pool = [u for u in manifest["uses"] if u["use_path"] != u["def_path"]]
    rng.shuffle(pool)
    for use in pool:
        if use["use_path"] in seen or use["def_path"] in seen:
            continue
        seen.add(use["use_path"])
        seen.add(use["def_path"])
        language = "typescript" if use["use_path"].endswith(".ts") else "python"
        uses.append({**use, "local": use["name"], "language": language})
        if len(uses) >= ref_samples * 2:  # spares for the baseline check
            break
    return probes, uses


def stdlib_targets(root, samples, ref_samples):
    """Files (that parse) for the symbol probes and `from M import f` uses
    of a top-level function `f` of another file, found with `ast`."""
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("__pycache__", ".ast-outline") and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                paths.append(os.path.relpath(os.path.join(dirpath, name), root))
    paths.sort()
    trees = {}

    def tree(rel):
        if rel not in trees:
            try:
                trees[rel] = ast.parse(read_file(os.path.join(root, rel)), rel)
            except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
                trees[rel] = None
        return trees[rel]

    probes = []
    for rel in pick_spread(paths, samples * 2):
        t = tree(rel)
        if t is not None and any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in t.body):
            probes.append((rel, "python"))
    probes = pick_spread(probes, samples)

    def module_file(base, dotted):
        stem = os.path.join(base, *dotted.split(".")) if dotted else base
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if os.path.isfile(os.path.join(root, candidate)):
                return os.path.normpath(candidate)
        return None

    uses = []
    seen = set()
    rng = random.Random(11)
    order = list(paths)
    rng.shuffle(order)
    for rel in order:
        if len(uses) >= ref_samples * 3:
            break
        if rel in seen or "/test" in "/" + rel or rel.startswith("idlelib/idle_test"):
            continue
        t = tree(rel)
        if t is None:
            continue
        for node in t.body:
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = os.path.dirname(rel)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
            else:
                base = ""
            target = module_file(base, node.module or "")
            if target is None or target == rel or target in seen:
                continue
            target_tree = tree(target)
            if target_tree is None:
                continue
            functions = {n.name: n for n in target_tree.body
                         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            alias = next((a for a in node.names if a.name in functions), None)
            if alias is None:
                continue
            fn = functions[alias.name]
            lines = read_file(os.path.join(root, target)).split("\n")
            line = lines[fn.lineno - 1]
            m = re.search(r"\bdef\s+(" + re.escape(fn.name) + r")\b", line)
            if not m:
                continue
            uses.append({"def_path": target, "name": fn.name, "use_path": rel,
                         "local": alias.asname or alias.name, "language": "python",
                         "def_line": fn.lineno - 1,
                         "def_character": utf16_units(line[:m.start(1)])})
            seen.add(rel)
            seen.add(target)
            break
    return probes, uses


def probe_text(language, name, n):
    if language == "python":
        return f"\n\ndef {name}():\n    return {n}\n"
    return f"\nexport function {name}() {{\n  return {n};\n}}\n"


def call_text(language, name, local):
    """The text appended, and where the call's name starts in it (line
    offset from the end of the old text, character)."""
    if language == "python":
        head = f"\n\ndef {name}():\n"
        return head + f"    return {local}()\n", head.count("\n"), 11
    head = f"\nexport function {name}() {{\n"
    return head + f"  return {local}();\n}}\n", head.count("\n"), 9


class Project:
    def __init__(self, args):
        self.args = args
        self.root = os.path.realpath(args.root)
        self.label = args.label
        self.res = {"label": args.label, "root": self.root, "loadavg": {}}
        self.log_lines = []

    def log(self, text):
        print(f"[{self.label}] {text}", flush=True)

    def uri(self, rel):
        return "file://" + os.path.join(self.root, rel)

    def memory(self, when):
        m = proc_status(self.lsp.pid)
        self.res.setdefault("memory", {})[when] = m
        self.res["loadavg"][when] = loadavg()
        self.log(f"memory {when}: VmRSS {m.get('VmRSS', 0) / 1024:.1f} MiB, "
                 f"VmHWM {m.get('VmHWM', 0) / 1024:.1f} MiB, threads {m.get('Threads')}; "
                 f"load {loadavg()}")

    def run(self):
        args = self.args
        self.res["files"] = count_sources(self.root)
        self.stderr = open(os.path.join(args.work, f"{self.label}-lsp.stderr"), "w")
        self.lsp = Lsp([args.exe, "lsp", "--root", self.root], self.root, self.stderr)
        try:
            self.res["build_s"] = round(self.lsp.initialize(self.root), 3)
            self.log(f"{self.res['files']} source files; initial build (spawn to initialize "
                     f"answered) {self.res['build_s']:.2f} s")
            self.memory("after build")
            if args.manifest:
                with open(args.manifest) as f:
                    manifest = json.load(f)
                probes, uses = generated_targets(manifest, self.root, args.samples,
                                                 args.ref_samples)
            else:
                probes, uses = stdlib_targets(self.root, args.samples, args.ref_samples)
            self.symbol_latency(probes)
            self.references_latency(uses)
            wait_quiet(self.lsp.pid)
            self.reference_costs()
            self.memory("after latency")
            if args.burst:
                self.burst(manifest)
            self.memory("at the end")
        except ServerGone as e:
            self.res["server_gone"] = str(e)
            self.log(f"SERVER GONE: {e}; exit code {self.lsp.p.poll()}")
        finally:
            code = self.lsp.shutdown()
            self.res["exit_code"] = code
            self.stderr.close()
            with open(self.stderr.name) as f:
                err = f.read().strip()
            if err:
                self.res["stderr"] = err[-2000:]
                self.log(f"server stderr (last lines):\n{err[-1000:]}")
        if not self.res.get("server_gone"):
            self.compare_with_fresh()
        with open(args.out, "w") as f:
            json.dump(self.res, f, indent=1)

    def symbol_latency(self, probes):
        args = self.args
        lat, polls, misses, where = [], [], [], []
        for i, (rel, language) in enumerate(probes):
            name = f"probe_{self.label[:3]}_{i:04d}"
            path = os.path.join(self.root, rel)
            text = read_file(path) + probe_text(language, name, i)
            t0 = now()
            write_file(path, text)
            n = 0
            while True:
                response, _, t1 = self.lsp.request("workspace/symbol", {"query": name})
                n += 1
                if response is None:
                    raise ServerGone("workspace/symbol: no answer within 60 s")
                if name in symbol_names(response, self.uri(rel)):
                    lat.append(t1 - t0)
                    polls.append(n)
                    where.append((t1 - t0, rel))
                    break
                if now() - t0 > 10:
                    misses.append(rel)
                    self.log(f"MISS: {name} written to {rel} not answered after 10 s ({n} queries)")
                    break
            time.sleep(args.gap)
        self.last_probe = f"probe_{self.label[:3]}_{len(probes) // 2:04d}"
        s = stats_ms(lat)
        s["queries_per_sample"] = {"max": max(polls) if polls else 0,
                                   "first_answer_had_it": sum(1 for p in polls if p == 1)}
        s["misses"] = misses
        s["slowest"] = slowest(where)
        self.res["write_symbol"] = s
        langs = Counter(l for _, l in probes)
        self.res["write_symbol_files"] = dict(langs)
        self.log(f"write->workspace/symbol: {fmt_stats(s)}; first answer already had it in "
                 f"{s['queries_per_sample']['first_answer_had_it']}/{len(polls)}, most queries "
                 f"{s['queries_per_sample']['max']}; files {dict(langs)}; misses {len(misses)}; "
                 f"slowest {s['slowest']}")

    def references(self, use):
        response, _, t = self.lsp.request("textDocument/references", {
            "textDocument": {"uri": self.uri(use["def_path"])},
            "position": {"line": use["def_line"], "character": use["def_character"]},
            "context": {"includeDeclaration": False}})
        if response is None:
            raise ServerGone("textDocument/references: no answer within 60 s")
        return response.get("result") or [], t

    def references_latency(self, uses):
        args = self.args
        lat, skipped, misses, where = [], [], [], []
        n_done = 0
        for use in uses:
            if n_done >= args.ref_samples:
                break
            before, _ = self.references(use)
            use_uri = self.uri(use["use_path"])
            if not any(r["uri"] == use_uri for r in before):
                skipped.append(f"{use['use_path']} -> {use['def_path']}:{use['name']}")
                continue
            name = f"probe_ref_{self.label[:3]}_{n_done:04d}"
            path = os.path.join(self.root, use["use_path"])
            old = read_file(path)
            added, line_offset, character = call_text(use["language"], name, use["local"])
            call_line = old.count("\n") + line_offset
            text = old + added
            t0 = now()
            write_file(path, text)
            n = 0
            while True:
                result, t1 = self.references(use)
                n += 1
                if any(r["uri"] == use_uri and r["range"]["start"]["line"] == call_line
                       and r["range"]["start"]["character"] == character for r in result):
                    lat.append(t1 - t0)
                    where.append((t1 - t0, use["use_path"]))
                    break
                if now() - t0 > 5:
                    misses.append(f"{use['use_path']}:{call_line + 1} -> "
                                  f"{use['def_path']}:{use['name']}")
                    self.log(f"MISS: the call of {use['local']} added at "
                             f"{use['use_path']}:{call_line + 1} not among the references "
                             f"of {use['def_path']}:{use['def_line'] + 1}:{use['name']} "
                             f"after 5 s ({n} queries)")
                    break
            n_done += 1
            time.sleep(args.gap)
        s = stats_ms(lat)
        s["misses"] = misses
        s["skipped_baseline"] = len(skipped)
        s["slowest"] = slowest(where)
        self.res["write_references"] = s
        self.log(f"write->textDocument/references: {fmt_stats(s)}; misses {len(misses)}; "
                 f"uses skipped as not resolved before the edit: {len(skipped)} {skipped[:3]}; "
                 f"slowest {s['slowest']}")

    def reference_costs(self):
        q, rpc = [], []
        for _ in range(100):
            response, took, _ = self.lsp.request("workspace/symbol", {"query": self.last_probe})
            if response is None or self.last_probe not in symbol_names(response):
                raise ServerGone(f"workspace/symbol {self.last_probe}: no or wrong answer")
            q.append(took)
        for _ in range(100):
            response, took, _ = self.lsp.request("$/bench/ping", {})
            rpc.append(took)
        self.res["query_alone"] = stats_ms(q)
        self.res["rpc_alone"] = stats_ms(rpc)
        self.log(f"query alone (workspace/symbol {self.last_probe}, nothing pending): "
                 f"{fmt_stats(self.res['query_alone'])}")
        self.log(f"JSON-RPC round trip alone (unsupported method): {fmt_stats(self.res['rpc_alone'])}")

    # ------------------------------------------------------------ burst

    def burst(self, manifest):
        args = self.args
        rng = random.Random(3)
        files = [(f["path"], f["language"]) for f in manifest["files"]]
        chosen = sorted(rng.sample(range(len(files)), args.burst_files))
        targets = [files[i] for i in chosen]
        bases = [read_file(os.path.join(self.root, rel)) for rel, _ in targets]
        total = args.burst_files * args.burst_rounds
        self.log(f"burst: {total} writes ({args.burst_files} files x {args.burst_rounds} "
                 f"rounds) within {args.burst_seconds} s, queries back to back meanwhile")
        ticks0 = cpu_ticks(self.lsp.pid)
        writes = run_burst(self.root, targets, bases, args.burst_rounds, args.burst_seconds)
        queries = []  # (start offset s, seconds, ok)
        failed = []
        stop = threading.Event()
        start = writes["start_event"]

        def query_loop():
            while not stop.is_set():
                t = now()
                try:
                    response, took, _ = self.lsp.request("workspace/symbol",
                                                         {"query": self.last_probe}, timeout=60)
                except ServerGone as e:
                    failed.append(str(e))
                    return
                ok = response is not None and self.last_probe in symbol_names(response)
                if not ok:
                    failed.append(str(response)[:300])
                queries.append((t, took, ok))

        qt = threading.Thread(target=query_loop)
        writer = writes["thread"]
        qt.start()
        start.set()
        writer.join()
        # The tail: at least BURST_TAIL seconds, and until a query sent after
        # the last write was answered (at most 120 s).
        deadline = now() + 120
        while now() < deadline and not failed:
            if now() - writes["t_last"] >= args.burst_tail and any(
                    t > writes["t_last"] for t, _, _ in list(queries)):
                break
            time.sleep(0.05)
        stop.set()
        tail_s = now() - writes["t_last"]
        qt.join()
        wrote_s = writes["t_last"] - writes["t0"]
        queries = [(t - writes["t0"], took, ok) for t, took, ok in queries]
        during = [q for q in queries if q[0] <= wrote_s]
        after = [q for q in queries if q[0] > wrote_s]
        quiet_wait = wait_quiet(self.lsp.pid)
        cpu_s = (cpu_ticks(self.lsp.pid) - ticks0) / TICK
        b = {
            "writes": writes["count"], "files": args.burst_files, "rounds": args.burst_rounds,
            "write_errors": writes["errors"],
            "wrote_s": round(wrote_s, 3),
            "queries_during": stats_ms([q[1] for q in during]),
            "queries_tail": stats_ms([q[1] for q in after]),
            "tail_s": round(tail_s, 2),
            "first_after_ms": round(ms(after[0][1]), 1) if after else None,
            "slowest": sorted(((round(ms(q[1]), 1), round(q[0], 3)) for q in queries),
                              reverse=True)[:5],
            "failed": len(failed), "failures": failed[:5],
            # From the last write to the server idle (the tail, then the
            # wait for 0.6 s without CPU, which is included).
            "quiet_after_s": round(now() - writes["t_last"], 2),
            "server_cpu_s": round(cpu_s, 2),
        }
        self.log(f"burst: {b['writes']} writes in {wrote_s:.3f} s ({b['write_errors']} failed); "
                 f"queries during the writes: {fmt_stats(b['queries_during'])}; in the "
                 f"{b['tail_s']} s after: {fmt_stats(b['queries_tail'])} (the first sent "
                 f"after the last write: {b['first_after_ms']} ms); failed "
                 f"{len(failed)}; slowest (ms, at s) {b['slowest']}; server CPU "
                 f"{cpu_s:.1f} s; idle {b['quiet_after_s']} s after the last write")
        # The last name of every file, and none of its earlier ones.
        found_last, stale, missing = 0, [], []
        expected = {}
        for j, (rel, _) in enumerate(targets):
            expected[f"burst_{j:04d}_w"] = rel
        for group in range(0, args.burst_files, 100):
            prefix = f"burst_{group // 100:02d}"
            response, _, _ = self.lsp.request("workspace/symbol", {"query": prefix})
            names = Counter()
            for s in (response or {}).get("result") or []:
                names[(s["name"], s["location"]["uri"])] += 1
            per_file = {}
            for (name, uri), _ in names.items():
                per_file.setdefault(name[:-1], []).append((name, uri))
            if len(names) >= 500:
                per_file = {}
                for j in range(group, min(group + 100, args.burst_files)):
                    key = f"burst_{j:04d}_w"
                    response, _, _ = self.lsp.request("workspace/symbol", {"query": key})
                    per_file[key] = [(s["name"], s["location"]["uri"])
                                     for s in (response or {}).get("result") or []]
            for j in range(group, min(group + 100, args.burst_files)):
                key = f"burst_{j:04d}_w"
                rel = expected[key]
                got = per_file.get(key, [])
                want = (f"{key}{args.burst_rounds - 1}", self.uri(rel))
                if want in got:
                    found_last += 1
                else:
                    missing.append(rel)
                if any(n != want[0] for n, _ in got):
                    stale.append(f"{rel}: {sorted(n for n, _ in got)}")
        b["last_names_found"] = found_last
        b["last_names_missing"] = missing[:10]
        b["last_names_missing_n"] = len(missing)
        b["earlier_names_left"] = stale[:10]
        b["earlier_names_left_n"] = len(stale)
        self.log(f"after the burst: the last write's name found for {found_last}/"
                 f"{args.burst_files} files (missing {len(missing)}), earlier names left in "
                 f"{len(stale)} files" + (f"; e.g. missing {missing[:3]}" if missing else "")
                 + (f"; e.g. left {stale[:3]}" if stale else ""))
        alive, _, _ = self.lsp.request("workspace/symbol", {"query": self.last_probe},
                                       timeout=30)
        b["answering_after"] = alive is not None and self.last_probe in symbol_names(alive)
        self.res["burst"] = b

    # ------------------------------------------------------------ export

    def compare_with_fresh(self):
        args = self.args
        live_json = os.path.join(args.work, f"{self.label}-live.json")
        fresh_db = os.path.join(args.work, f"{self.label}-fresh.sqlite")
        fresh_json = os.path.join(args.work, f"{self.label}-fresh.json")
        for f in (fresh_db, fresh_db + "-wal", fresh_db + "-shm"):
            if os.path.exists(f):
                os.remove(f)
        with open(live_json, "w") as out:
            subprocess.run([args.exe, "export", "--root", self.root, "--no-refresh"],
                           stdout=out, check=True)
        t = now()
        subprocess.run([args.exe, "index", self.root, "--db", fresh_db, "-q"],
                       stdout=subprocess.DEVNULL, check=True)
        self.res["cli_build_s"] = round(now() - t, 3)
        with open(fresh_json, "w") as out:
            subprocess.run([args.exe, "export", "--root", self.root, "--db", fresh_db,
                            "--no-refresh"], stdout=out, check=True)
        verdict = compare_exports(live_json, fresh_json)
        self.res["export_compare"] = verdict
        self.log(f"reference: `index` of the same tree into a new database: "
                 f"{self.res['cli_build_s']:.2f} s")
        self.log(f"live index (exported after the server stopped) vs a fresh `index`: "
                 f"{'EQUAL' if verdict['equal'] else 'DIFFERENT'}; {verdict['summary']}")
        for f in (live_json, fresh_json, fresh_db, fresh_db + "-wal", fresh_db + "-shm"):
            if os.path.exists(f):
                os.remove(f)


def count_sources(root):
    n = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("__pycache__", ".ast-outline", ".git")]
        n += sum(1 for f in filenames if f.endswith((".py", ".ts", ".tsx", ".js", ".rs", ".pyi")))
    return n


def run_burst(root, targets, bases, rounds, seconds, name_letter="w"):
    """A writer thread (started when `start_event` is set) that rewrites
    each target `rounds` times, round after round, paced evenly over
    `seconds`; each write adds `burst_JJJJ_<letter>K`."""
    state = {"count": 0, "errors": 0, "t0": None, "t_last": None,
             "start_event": threading.Event()}
    texts = []
    for k in range(rounds):
        for j, ((rel, language), base) in enumerate(zip(targets, bases)):
            name = f"burst_{j:04d}_{name_letter}{k}"
            texts.append((os.path.join(root, rel),
                          (base + probe_text(language, name, k)).encode("utf-8", "surrogateescape")))
    total = len(texts)

    def writer():
        state["start_event"].wait()
        t0 = now()
        state["t0"] = t0
        for i, (path, text) in enumerate(texts):
            due = t0 + seconds * i / total
            ahead = due - now()
            if ahead > 0.0005:
                time.sleep(ahead)
            try:
                overwrite_file(path, text)
                state["count"] += 1
            except OSError:
                state["errors"] += 1
        state["t_last"] = now()

    state["thread"] = threading.Thread(target=writer)
    state["thread"].start()
    return state


def compare_exports(a_path, b_path):
    """Compares two exports row by row in each section (as multisets of
    rows: order does not matter), after dropping nothing: the export holds
    no timestamps or database paths."""
    def sections(path):
        out = {}
        current = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                m = re.match(r'^"(\w+)":\[(.*)$', line)
                if m:
                    current = m.group(1)
                    out[current] = Counter()
                    rest = m.group(2)
                    if rest and rest not in ("]", "],"):
                        out[current][rest.rstrip(",").rstrip("]")] += 1
                    continue
                if current and line.startswith("{"):
                    row = line[:-1] if line.endswith(",") else line
                    if row.endswith("]"):
                        row = row[:-1]
                    out[current][row] += 1
                    if line.endswith("]") or line.endswith("],"):
                        current = None
                elif line.startswith('"'):
                    out.setdefault("header", Counter())[line.rstrip(",")] += 1
        return out

    a, b = sections(a_path), sections(b_path)
    equal = True
    parts = []
    detail = {}
    for name in sorted(set(a) | set(b)):
        ca, cb = a.get(name, Counter()), b.get(name, Counter())
        only_a, only_b = ca - cb, cb - ca
        n_a, n_b = sum(ca.values()), sum(cb.values())
        if only_a or only_b:
            equal = False
            paths = Counter()
            for row in list(only_a) + list(only_b):
                try:
                    d = json.loads(row)
                    paths[d.get("path") or d.get("subtype", "?").split(":")[0]] += 1
                except ValueError:
                    paths["?"] += 1
            detail[name] = {"only_live": sum(only_a.values()), "only_fresh": sum(only_b.values()),
                            "paths": paths.most_common(5),
                            "example_live": list(only_a)[:2], "example_fresh": list(only_b)[:2]}
            parts.append(f"{name}: {n_a} vs {n_b} rows, {sum(only_a.values())} only in the "
                         f"live one, {sum(only_b.values())} only in the fresh one "
                         f"(files {[p for p, _ in paths.most_common(3)]})")
        elif name != "header":
            parts.append(f"{name} {n_a}")
    counts = {name: sum(c.values()) for name, c in a.items() if name != "header"}
    return {"equal": equal, "summary": ", ".join(parts), "detail": detail, "counts": counts}


# ------------------------------------------------------------------ watch


def watch_burst(args):
    """The burst again against `EXE watch ROOT --format json` (no queries):
    its update lines say whether a full refresh ran."""
    root = os.path.realpath(args.root)
    with open(args.manifest) as f:
        manifest = json.load(f)
    rng = random.Random(3)
    files = [(f["path"], f["language"]) for f in manifest["files"]]
    chosen = sorted(rng.sample(range(len(files)), args.burst_files))
    targets = [files[i] for i in chosen]
    bases = [read_file(os.path.join(root, rel)) for rel, _ in targets]
    stderr = open(os.path.join(args.work, "watch.stderr"), "w")
    p = subprocess.Popen([args.exe, "watch", root, "--format", "json"], stdout=subprocess.PIPE,
                         stderr=stderr, text=True)
    lines = []
    ready = threading.Event()

    def reader():
        for line in p.stdout:
            t = now()
            try:
                d = json.loads(line)
            except ValueError:
                continue
            lines.append((t, d))
            if d.get("event") == "ready":
                ready.set()

    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    res = {}
    if not ready.wait(300):
        res["error"] = "watch never said ready"
        p.kill()
        return res
    res["ready_ms"] = lines[0][1].get("ms")
    writes = run_burst(root, targets, bases, args.burst_rounds, args.burst_seconds,
                       name_letter="v")
    writes["start_event"].set()
    writes["thread"].join()
    wait_quiet(p.pid)
    mem = proc_status(p.pid)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    stderr.close()
    updates = [(t, d) for t, d in lines if d.get("event") == "update"]
    full = [d for _, d in updates if d.get("full")]
    t_last_write = writes["t_last"]
    last_update = max((t for t, _ in updates), default=None)
    res.update({
        "writes": writes["count"], "wrote_s": round(writes["t_last"] - writes["t0"], 3),
        "updates": len(updates),
        "full": len(full),
        "full_reasons": sorted(Counter(d["full"] for d in full).items()),
        "full_ms": [d["ms"] for d in full],
        "paths_updates": sum(1 for _, d in updates if not d.get("full")),
        "paths_total": sum(len(d.get("paths") or []) for _, d in updates),
        "max_update_ms": max((d["ms"] for _, d in updates), default=0),
        "sum_update_ms": sum(d["ms"] for _, d in updates),
        "last_update_after_last_write_s": round(last_update - t_last_write, 3)
        if last_update else None,
        "notes": sorted({n for _, d in updates for n in d.get("notes") or []})[:5],
        "memory": mem,
    })
    # The watch index against a fresh one.
    fresh_db = os.path.join(args.work, "watch-fresh.sqlite")
    a = os.path.join(args.work, "watch-live.json")
    b = os.path.join(args.work, "watch-fresh.json")
    with open(a, "w") as out:
        subprocess.run([args.exe, "export", "--root", root, "--no-refresh"], stdout=out,
                       check=True)
    subprocess.run([args.exe, "index", root, "--db", fresh_db, "-q"], stdout=subprocess.DEVNULL,
                   check=True)
    with open(b, "w") as out:
        subprocess.run([args.exe, "export", "--root", root, "--db", fresh_db, "--no-refresh"],
                       stdout=out, check=True)
    res["export_compare"] = compare_exports(a, b)
    for f in (a, b, fresh_db, fresh_db + "-wal", fresh_db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    print(f"[watch] burst of {res['writes']} writes in {res['wrote_s']} s against `watch "
          f"--format json`: {res['updates']} updates, {res['full']} full refresh(es) "
          f"{res['full_reasons']} taking {res['full_ms']} ms, {res['paths_updates']} updates "
          f"of named paths ({res['paths_total']} paths in all), longest update "
          f"{res['max_update_ms']} ms, last update {res['last_update_after_last_write_s']} s "
          f"after the last write; VmRSS {mem.get('VmRSS', 0) / 1024:.0f} MiB VmHWM "
          f"{mem.get('VmHWM', 0) / 1024:.0f} MiB; its index vs a fresh `index`: "
          f"{'EQUAL' if res['export_compare']['equal'] else 'DIFFERENT'}; "
          f"{res['export_compare']['summary']}", flush=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)


# ---------------------------------------------------------------- summary


def summary(paths):
    results = []
    for p in paths:
        with open(p) as f:
            results.append(json.load(f))
    out = []
    for r in results:
        if "label" not in r:
            continue
        mem = r.get("memory", {})

        def mib(when, key):
            return mem.get(when, {}).get(key, 0) / 1024

        files = r.get("export_compare", {}).get("counts", {}).get("files", r["files"])
        line = f"{r['label']} ({files:,} files indexed):"
        if r.get("server_gone"):
            out.append(f"{line} SERVER GONE: {r['server_gone']}")
            continue
        ws, wr = r.get("write_symbol", {}), r.get("write_references", {})
        qa = r.get("query_alone", {})
        out.append(
            f"{line} initial build {r['build_s']:.1f} s (`index` CLI, fresh db: "
            f"{r.get('cli_build_s', float('nan')):.1f} s)")
        if ws.get("n"):
            out.append(
                f"  write->workspace/symbol  p50 {ws['p50']:.1f} ms  p95 {ws['p95']:.1f} ms  "
                f"max {ws['max']:.1f} ms  (n={ws['n']}, misses {len(ws['misses'])}; query alone "
                f"p50 {qa['p50']:.1f} p95 {qa['p95']:.1f} ms -> p50 ratio "
                f"{ws['p50'] / qa['p50']:.1f}x; JSON-RPC round trip p50 "
                f"{r['rpc_alone']['p50']:.2f} ms)")
        if wr.get("n"):
            out.append(
                f"  write->references        p50 {wr['p50']:.1f} ms  p95 {wr['p95']:.1f} ms  "
                f"max {wr['max']:.1f} ms  (n={wr['n']}, misses {len(wr['misses'])})")
        for what, st in (("workspace/symbol", ws), ("references", wr)):
            if st.get("n"):
                worst = max(st["p50"], st["p95"])
                out.append(f"  goal p50/p95 <= 50 ms ({what}): "
                           f"{'met' if worst <= 50 else 'NOT met'}; stretch <= 20 ms: "
                           f"{'met' if worst <= 20 else 'not met'}")
        mems = "; ".join(f"{w}: RSS {mib(w, 'VmRSS'):.0f} MiB (peak {mib(w, 'VmHWM'):.0f} MiB)"
                         for w in mem)
        out.append(f"  memory {mems}")
        b = r.get("burst")
        if b:
            qd, qt = b["queries_during"], b["queries_tail"]
            out.append(
                f"  burst: {b['writes']:,} writes ({b['files']:,} files x {b['rounds']}) in "
                f"{b['wrote_s']:.2f} s; workspace/symbol during it: {qd.get('n', 0)} answered, "
                f"p50 {qd.get('p50', 0):.0f} ms, max {qd.get('max', 0):.0f} ms, {b['failed']} "
                f"failed (the {b['tail_s']:.1f} s after the last write: {qt.get('n', 0)} "
                f"answered, max {qt.get('max', 0):.0f} ms, the first {b['first_after_ms']} ms); "
                f"answering after: "
                f"{'yes' if b['answering_after'] else 'NO'}")
            if b["slowest"]:
                took, at = b["slowest"][0]
                out.append(f"  the slowest answer: sent {at:.2f} s into the burst, answered "
                           f"{took / 1000:.2f} s later; server CPU from the burst to idle "
                           f"{b['server_cpu_s']:.1f} s")
            out.append(
                f"  after the burst (server idle {b['quiet_after_s']} s after the last write): "
                f"last name of each file found {b['last_names_found']}/{b['files']}, earlier "
                f"names left in {b['earlier_names_left_n']}")
        ec = r.get("export_compare")
        if ec:
            out.append(f"  live index == fresh `index` (export compared): "
                       f"{'yes' if ec['equal'] else 'NO'}"
                       + ("" if ec["equal"] else f" ({ec['summary']})"))
    for r in results:
        if "updates" in r:
            ec = r["export_compare"]
            out.append(
                f"watch burst (no queries): {r['writes']:,} writes in {r['wrote_s']:.2f} s -> "
                f"{r['updates']} updates, full refreshes {r['full']}"
                + (f" ({'; '.join(f'{k} x{v}' for k, v in r['full_reasons'])}; "
                   f"{r['full_ms']} ms)" if r["full"] else "")
                + f", longest update {r['max_update_ms']} ms, idle "
                f"{r['last_update_after_last_write_s']} s after the last write; index == fresh: "
                f"{'yes' if ec['equal'] else 'NO (' + ec['summary'] + ')'}")
    print("\n".join(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("project")
    p.add_argument("--exe", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--label", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--manifest")
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--ref-samples", type=int, default=50)
    p.add_argument("--gap", type=float, default=0.3)
    p.add_argument("--burst", action="store_true")
    p.add_argument("--burst-files", type=int, default=2000)
    p.add_argument("--burst-rounds", type=int, default=5)
    p.add_argument("--burst-seconds", type=float, default=1.0)
    p.add_argument("--burst-tail", type=float, default=2.0)
    w = sub.add_parser("watch-burst")
    w.add_argument("--exe", required=True)
    w.add_argument("--root", required=True)
    w.add_argument("--manifest", required=True)
    w.add_argument("--work", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--burst-files", type=int, default=2000)
    w.add_argument("--burst-rounds", type=int, default=5)
    w.add_argument("--burst-seconds", type=float, default=1.0)
    s = sub.add_parser("summary")
    s.add_argument("results", nargs="+")
    args = parser.parse_args()
    if args.command == "project":
        Project(args).run()
    elif args.command == "watch-burst":
        watch_burst(args)
    else:
        summary(args.results)


if __name__ == "__main__":
    main()
