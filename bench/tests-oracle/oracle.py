#!/usr/bin/env python3
"""Score `ast-outline tests` against a dynamic oracle built from coverage.py contexts.

Run from the project root (the directory the tool indexes).  Inputs:
  --cov FILE        coverage data file written with pytest-cov --cov-context=test
  --outcomes FILE   JSON Lines of {"nodeid", "when", "outcome"} written by the
                    small pytest plugin that run.sh creates (the test universe)
  --package DIR     the package whose functions are scored (relative to the root)
  --ao BIN          the ast-outline binary

Oracle for a function f: the pytest node ids (parametrisation stripped) whose
"run" context covered at least one body line of f (lines mapped to the innermost
enclosing def with `ast`; the def line and decorators are not body lines).
Static set for f: `ast-outline tests ID --format json --depth N`, the `name`
of each test, kept only if it is in the universe (tests that actually ran).
"""
import argparse
import ast
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict

try:
    from coverage import CoverageData
except ImportError:  # pragma: no cover
    sys.exit("coverage is not importable: run this with the venv's python")


# ---------------------------------------------------------------- helpers
def norm_nodeid(ctx):
    """'tests/unit/test_x.py::C::test_y[a-b]|run' -> ('tests/unit/test_x.py::C::test_y', 'run')."""
    phase = ""
    if "|" in ctx:
        ctx, phase = ctx.rsplit("|", 1)
    head, sep, last = ctx.rpartition("::")
    last = last.split("[", 1)[0]
    return head + sep + last, phase


def functions_of(rel, src):
    """Every def of a file: qualname, def line, body range [first body line, end line]."""
    tree = ast.parse(src)
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + child.name
                decos = [d.id if isinstance(d, ast.Name) else
                         d.attr if isinstance(d, ast.Attribute) else
                         ast.unparse(d).split("(")[0] for d in child.decorator_list]
                out.append(dict(path=rel, qualname=q, line=child.lineno,
                                body_start=child.body[0].lineno, end=child.end_lineno,
                                decorators=decos))
                visit(child, q + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def line_owner(funcs):
    """line -> index of the innermost function whose body holds the line."""
    owner = {}
    # outer functions first, inner ones overwrite
    for i, f in sorted(enumerate(funcs), key=lambda x: (x[1]["body_start"], -x[1]["end"])):
        for ln in range(f["body_start"], f["end"] + 1):
            prev = owner.get(ln)
            if prev is None or funcs[prev]["body_start"] <= f["body_start"]:
                owner[ln] = i
    return owner


def pct(x):
    return f"{100.0 * x:.1f}%"


def run_tool(ao, target, depth, no_refresh=False):
    cmd = [ao, "tests", target, "--format", "json", "--depth", str(depth), "--max-tokens", "100000000"]
    if no_refresh:
        cmd.append("--no-refresh")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, dt, p.stderr.strip()[:200]
    d = json.loads(p.stdout)
    return d, dt, None


def scores(rows, key_static, key_oracle="oracle"):
    """rows: list of dicts holding sets; returns the figures."""
    inter = [len(r[key_static] & r[key_oracle]) for r in rows]
    n_or = [len(r[key_oracle]) for r in rows]
    n_st = [len(r[key_static]) for r in rows]
    rec_micro = sum(inter) / max(1, sum(n_or))
    rec_macro = statistics.mean(i / o for i, o in zip(inter, n_or)) if rows else 0.0
    prec_micro = sum(inter) / max(1, sum(n_st))
    pm = [i / s for i, s in zip(inter, n_st) if s]
    prec_macro = statistics.mean(pm) if pm else 0.0
    hit = sum(1 for i in inter if i) / max(1, len(rows))
    empty = sum(1 for s in n_st if s == 0) / max(1, len(rows))
    return dict(functions=len(rows), oracle_pairs=sum(n_or), static_pairs=sum(n_st), common_pairs=sum(inter),
                recall_micro=rec_micro, recall_macro=rec_macro, precision_micro=prec_micro,
                precision_macro=prec_macro, hit_share=hit, static_empty_share=empty)


def fmt_scores(name, s):
    return (f"{name:<28} n={s['functions']:<4} recall micro {pct(s['recall_micro']):>6} macro {pct(s['recall_macro']):>6} | "
            f"precision micro {pct(s['precision_micro']):>6} macro {pct(s['precision_macro']):>6} | "
            f"hit {pct(s['hit_share']):>6} | static empty {pct(s['static_empty_share']):>6} | "
            f"pairs oracle {s['oracle_pairs']} static {s['static_pairs']} common {s['common_pairs']}")


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cov", required=True)
    ap.add_argument("--outcomes", required=True)
    ap.add_argument("--package", default="isort")
    ap.add_argument("--ao", required=True)
    ap.add_argument("--depths", default="2,4,8,100")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="oracle-results.json")
    args = ap.parse_args()
    root = os.getcwd()
    depths = sorted({int(x) for x in args.depths.split(",")} | {8})

    # --- test universe: tests whose call phase ran (passed or failed, not skipped)
    universe, outcomes = set(), Counter()
    with open(args.outcomes) as fh:
        for line in fh:
            r = json.loads(line)
            if r["when"] == "call":
                outcomes[r["outcome"]] += 1
                universe.add(norm_nodeid(r["nodeid"])[0])
            elif r["when"] == "setup" and r["outcome"] == "skipped":
                outcomes["skipped"] += 1

    # --- functions of the package
    funcs = []
    owners = {}
    for dp, dns, fns in os.walk(args.package):
        dns.sort()
        for fn in sorted(fns):
            if fn.endswith(".py"):
                rel = os.path.relpath(os.path.join(dp, fn), root)
                with open(rel, encoding="utf-8") as fh:
                    fs = functions_of(rel, fh.read())
                base = len(funcs)
                funcs.extend(fs)
                owners[rel] = {ln: base + i for ln, i in line_owner(fs).items()}

    # --- oracle from coverage contexts
    data = CoverageData(args.cov)
    data.read()
    oracle_run = defaultdict(set)   # run phase only (the test function's own execution)
    oracle_all = defaultdict(set)   # setup + run + teardown (fixtures too)
    for mf in data.measured_files():
        rel = os.path.relpath(mf, root)
        if rel not in owners:
            continue
        own = owners[rel]
        for ln, ctxs in data.contexts_by_lineno(mf).items():
            fi = own.get(ln)
            if fi is None:
                continue
            for c in ctxs:
                if not c:
                    continue
                nid, phase = norm_nodeid(c)
                oracle_all[fi].add(nid)
                if phase == "run":
                    oracle_run[fi].add(nid)

    # --- symbol ids from the tool's export
    t0 = time.perf_counter()
    p = subprocess.run([args.ao, "index", ".", "--format", "json", "-q"], capture_output=True, text=True)
    index_s = time.perf_counter() - t0
    index_info = json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr[:300]}
    exp = json.loads(subprocess.run([args.ao, "export", "--format", "json", "--no-refresh"],
                                    capture_output=True, text=True, check=True).stdout)
    by_line = {}
    kinds = {}
    for s in exp["symbols"]:
        if s["kind"] in ("function", "method"):
            by_line[(s["path"], s["name_line"])] = s["id"]
            kinds[s["id"]] = s["kind"]
    refs_to = defaultdict(Counter)
    for r in exp["references"]:
        if r.get("target"):
            refs_to[r["target"]][r["role"]] += 1

    in_scope = sorted(fi for fi in oracle_run if oracle_run[fi])
    not_covered = [fi for fi in range(len(funcs)) if fi not in oracle_run]
    unmatched = [fi for fi in range(len(funcs)) if (funcs[fi]["path"], funcs[fi]["line"]) not in by_line]

    # --- query the tool
    rows = []
    times = []
    errors = []
    for fi in in_scope + not_covered:
        f = funcs[fi]
        tid = by_line.get((f["path"], f["line"]))
        row = dict(fi=fi, id=tid or f"{f['path']}:{f['line']}:{f['qualname']}", path=f["path"],
                   qualname=f["qualname"], line=f["line"], decorators=f["decorators"],
                   kind=kinds.get(tid, "?"), covered=fi in oracle_run,
                   oracle=set(oracle_run.get(fi, ())), oracle_all=set(oracle_all.get(fi, ())))
        target = tid or f"{f['path']}:{f['line']}"
        for d in depths:
            if not row["covered"] and d != 8:
                continue
            res, dt, err = run_tool(args.ao, target, d)
            if d == 8:
                times.append(dt)
            if res is None:
                errors.append((target, d, err))
                names, outside, paths = set(), set(), {}
            else:
                tl = res["tests"]["tests"]
                names = {t["name"].split("[", 1)[0] for t in tl}
                outside = names - universe
                paths = {t["name"]: t.get("path_calls", []) for t in tl}
                row[f"visited{d}"] = res["tests"].get("visited")
                row[f"stopped{d}"] = res["tests"].get("stopped")
            row[f"s{d}"] = names & universe
            row[f"out{d}"] = outside
            if d == 8:
                row["paths8"] = paths
        rows.append(row)

    cov_rows = [r for r in rows if r["covered"]]
    unc_rows = [r for r in rows if not r["covered"]]
    rng = random.Random(args.seed)
    ids_sorted = sorted(r["id"] for r in cov_rows)
    sample_ids = set(rng.sample(ids_sorted, args.sample)) if len(ids_sorted) > args.sample else set(ids_sorted)
    sample_rows = [r for r in cov_rows if r["id"] in sample_ids]

    # --- report
    print("== setup")
    print(f"tests that ran: {len(universe)} node ids (params stripped); outcomes {dict(outcomes)}")
    print(f"package functions/methods (ast): {len(funcs)}; covered by >=1 test (run phase): {len(cov_rows)}; "
          f"not covered: {len(unc_rows)}; not matched to an ast-outline symbol: {len(unmatched)}")
    print(f"index build: {index_s:.2f}s  ({index_info.get('files')} files, {index_info.get('references')} references)")
    print(f"sample: {len(sample_rows)} functions (seed {args.seed}{', = all covered functions' if len(sample_rows) == len(cov_rows) else ''})")
    if errors:
        print(f"tool errors: {len(errors)}, e.g. {errors[:3]}")
    print()
    print("== scores, oracle = run-phase contexts, depth 8 (default)")
    print(fmt_scores("all covered functions", scores(cov_rows, "s8")))
    if len(sample_rows) != len(cov_rows):
        print(fmt_scores(f"sample of {len(sample_rows)}", scores(sample_rows, "s8")))
    allrows = [dict(r, oracle=r["oracle_all"]) for r in cov_rows]
    print(fmt_scores("oracle incl. fixtures", scores(allrows, "s8")))
    meth = [r for r in cov_rows if r["kind"] == "method"]
    fun = [r for r in cov_rows if r["kind"] == "function"]
    print(fmt_scores("  functions only", scores(fun, "s8")))
    print(fmt_scores("  methods only", scores(meth, "s8")))
    print()
    print("== per depth (sample)")
    per_depth = {}
    for d in depths:
        s = scores(sample_rows, f"s{d}")
        per_depth[d] = s
        print(fmt_scores(f"--depth {d}", s))
    print()
    st = sorted(times)
    p95 = st[min(len(st) - 1, int(round(0.95 * (len(st) - 1))))]
    print(f"== time per `tests` query (depth 8, index fresh, refresh check included): n={len(st)} "
          f"median {1000 * statistics.median(st):.0f} ms, p95 {1000 * p95:.0f} ms, max {1000 * st[-1]:.0f} ms")
    fp_unc = [r for r in unc_rows if r["s8"]]
    print(f"uncovered functions for which the tool still lists tests: {len(fp_unc)} of {len(unc_rows)} "
          f"({sum(len(r['s8']) for r in fp_unc)} pairs)")
    outs = Counter()
    for r in cov_rows:
        for n in r["out8"]:
            outs[n.split('::')[0]] += 1
    print(f"static results dropped as outside the universe (not run / skipped): {sum(outs.values())} pairs in {len(outs)} files: "
          + ", ".join(f"{k} ({v})" for k, v in outs.most_common()))
    stopped = sum(1 for r in rows if r.get("stopped8"))
    print(f"queries whose walk was stopped early (depth 8): {stopped}")
    seen = set()
    for r in rows:
        seen |= r["s8"] | r.get("s100", set())
    exercised = set()
    for r in cov_rows:
        exercised |= r["oracle"]
    never = exercised - seen
    by_file = Counter(n.split("::")[0] for n in never)
    miss_pairs = [(r["id"], t) for r in cov_rows for t in r["oracle"] - r["s8"]]
    test_side = sum(1 for _, t in miss_pairs if t in never)
    print(f"tests that ran package code but are in no static result at any depth: {len(never)} of {len(exercised)}: "
          + ", ".join(f"{k} ({v})" for k, v in by_file.most_common()))
    print(f"missed pairs: {len(miss_pairs)}; of them with such a test: {test_side}; "
          f"recall micro with those pairs counted as found: "
          f"{pct((sum(len(r['s8'] & r['oracle']) for r in cov_rows) + test_side) / max(1, sum(len(r['oracle']) for r in cov_rows)))}")
    print()

    # --- misses and false positives
    print("== misses by function (oracle tests not found at depth 8; found at depth 100?)")
    miss_rows = sorted(cov_rows, key=lambda r: -len(r["oracle"] - r["s8"]))
    for r in miss_rows:
        m = r["oracle"] - r["s8"]
        if not m:
            continue
        deep = len(m & r.get("s100", set()))
        hint = []
        if r["qualname"].rsplit(".", 1)[-1].startswith("__"):
            hint.append("dunder")
        if r["decorators"]:
            hint.append("@" + ",@".join(r["decorators"]))
        rc = refs_to.get(r["id"], Counter())
        hint.append("refs " + ",".join(f"{k}:{v}" for k, v in sorted(rc.items())) if rc else "no refs")
        print(f"  {r['id']}: missed {len(m)}/{len(r['oracle'])} (static {len(r['s8'])}, +{deep} at depth 100) "
              f"[{'; '.join(hint)}] e.g. {sorted(m)[0]}")
    print()
    print("== false positives by function (static tests that never executed the body)")
    for r in sorted(cov_rows + unc_rows, key=lambda r: -len(r["s8"] - r["oracle"])):
        fp = r["s8"] - r["oracle"]
        if not fp:
            continue
        ex = sorted(fp)[0]
        chain = " -> ".join(c["to"].split(":", 2)[2] + f"@{c['line']}" for c in r["paths8"].get(ex, []))
        print(f"  {r['id']}: {len(fp)} FP of {len(r['s8'])} (oracle {len(r['oracle'])}, covered={r['covered']}) "
              f"e.g. {ex} via {chain}")

    def ser(r):
        return {k: (sorted(v) if isinstance(v, set) else v) for k, v in r.items()}

    with open(args.out, "w") as fh:
        json.dump(dict(universe=sorted(universe), outcomes=outcomes, index_seconds=index_s,
                       times=times, per_depth=per_depth,
                       overall=scores(cov_rows, "s8"), overall_with_fixtures=scores(allrows, "s8"),
                       sample_ids=sorted(sample_ids), unmatched=[funcs[i] for i in unmatched],
                       rows=[ser(r) for r in rows]), fh, indent=1, default=str)
    print(f"\nper-function details: {args.out}")


if __name__ == "__main__":
    main()
