#!/usr/bin/python3
"""Turns the oracle's per-item output into the committed golden files of
tests/data/count, and summarises them (run by make_golden.sh).

  golden.py convert INPUT.jsonl RAW.jsonl OUT.jsonl [FRAMING.json]
  golden.py summary DIR [--shared SHARED]      -> summary.md on stdout

convert keeps, per item, only what the test compares and nothing that quotes
the data (the agentic texts mention paths of other machines):
  {"id": ID, "n": N}                            counted (rendered, or text)
  {"id": ID, "n": N, "fallback": "Class"}       the render failed with a Python
                                                exception of that class and N is
                                                upstream's fallback count
  {"id": ID, "error": "Class"}                  the oracle could not count it
The raw output must have one line per input line, ids in the same order.
With FRAMING (message mode) it writes the oracle's prefix_len and baseline,
which every rendered line of the message output carries and which must be the
same on all of them: {"prefix_len": P, "baseline": B, "baseline_error": E|null}.

summary prints, per tokenizer x set, the items, the rendered ones, the
fallbacks and errors by class and the sum of n; the framing per tokenizer; and
whether each file agrees (id, n, fallback class) with the oracle's own golden
files in <shared>/oracle/golden/ where those exist.
"""
import argparse
import collections
import json
import os
import re
import sys

CLASS = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def err_class(msg, where):
    cls = (msg or "").split(":", 1)[0].strip()
    if not CLASS.match(cls):
        sys.exit(f"golden.py: {where}: cannot find an exception class in {msg!r}")
    return cls


def reduce(r, where):
    """The comparable part of one oracle result line (or golden line)."""
    out = {"id": r.get("id")}
    if r.get("n") is None:
        out["error"] = err_class(r.get("error"), where) if "error" in r and ":" in str(r["error"]) \
            else r.get("error")
    else:
        out["n"] = r["n"]
        fb = r.get("fallback")
        if fb is True:
            out["fallback"] = err_class(r.get("error"), where)
        elif isinstance(fb, str):
            out["fallback"] = fb
    return out


def convert(inp, raw, out, framing):
    want = [json.loads(ln).get("id") for ln in open(inp, encoding="utf-8") if ln.strip()]
    rows = read_jsonl(raw)
    if len(rows) != len(want):
        sys.exit(f"golden.py: {raw}: {len(rows)} results for {len(want)} inputs")
    frames = set()
    with open(out + ".tmp", "w", encoding="utf-8", newline="\n") as g:
        for k, (w, r) in enumerate(zip(want, rows)):
            if r.get("id") != w:
                sys.exit(f"golden.py: {raw} line {k + 1}: id {r.get('id')!r}, expected {w!r}")
            g.write(json.dumps(reduce(r, f"{raw} line {k + 1}"), ensure_ascii=False) + "\n")
            if "prefix_len" in r:
                frames.add((r["prefix_len"], r["baseline"], r.get("baseline_error")))
    os.replace(out + ".tmp", out)
    if framing:
        if len(frames) != 1:
            sys.exit(f"golden.py: {raw}: expected one prefix_len/baseline, found {sorted(frames)}")
        p, b, e = frames.pop()
        with open(framing, "w", encoding="utf-8", newline="\n") as g:
            g.write(json.dumps({"prefix_len": p, "baseline": b, "baseline_error": e},
                               ensure_ascii=False) + "\n")


SETS = (("agentic", "mlc", "prompt --mlcommons, agentic prompts as given"),
        ("bfcl", "mlc", "prompt --mlcommons, BFCL prompts"),
        ("agentic_out", "msg", "message, agentic outputs"),
        ("texts", "text", "text, the message texts"),
        ("edge_prompt", "mlc", "prompt --mlcommons, edge/prompts.jsonl"),
        ("edge_msg", "msg", "message, edge/messages.jsonl"))
TOK_ORDER = ("qwen3", "llama3_1", "deepseek_v3", "gemma3")


def summary(d, shared):
    gdir = os.path.join(d, "golden")
    files = sorted(fn for fn in os.listdir(gdir) if fn.endswith(".jsonl"))
    def order(m):
        t = m.split("@", 1)[0]
        return ("@" in m, TOK_ORDER.index(t) if t in TOK_ORDER else 99, m)
    toks = sorted({fn.split(".", 1)[0] for fn in files}, key=order)
    print("# tests/data/count: summary (written by make_golden.sh)\n")
    print("| model | set | items | rendered | fallbacks by class | errors | sum n | oracle golden/ |")
    print("|---|---|---:|---:|---|---:|---:|---|")
    for t in toks:
        for s, v, _ in SETS:
            fn = f"{t}.{s}.{v}.jsonl"
            if fn not in files:
                continue
            rows = read_jsonl(os.path.join(gdir, fn))
            fb = collections.Counter(r["fallback"] for r in rows if "fallback" in r)
            er = collections.Counter(r["error"] for r in rows if "error" in r)
            ok = sum(1 for r in rows if "n" in r and "fallback" not in r)
            total = sum(r.get("n", 0) for r in rows)
            ref = os.path.join(shared, "oracle", "golden", fn) if shared else None
            if ref and os.path.isfile(ref):
                theirs = [reduce(r, ref) for r in read_jsonl(ref)]
                diff = sum(1 for a, b in zip(rows, theirs) if a != b) + abs(len(rows) - len(theirs))
                agree = f"agrees ({len(theirs)})" if not diff else f"**differs on {diff}**"
            else:
                agree = "-"
            fbs = ", ".join(f"{c} {k}" for k, c in fb.most_common()) or "-"
            ers = ", ".join(f"{c} {k}" for k, c in er.most_common()) or "0"
            print(f"| {t} | {s} | {len(rows):,} | {ok:,} | {fbs} | {ers} | {total:,} | {agree} |")
    print("\nMessage framing (the oracle's message mode: prefix_len = tokens of "
          "[user \"\"], baseline = tokens of [user \"\", assistant \"\"] minus prefix_len):\n")
    print("| model | prefix_len | baseline | baseline_error |")
    print("|---|---:|---:|---|")
    for t in toks:
        p = os.path.join(gdir, f"{t}.framing.json")
        if os.path.isfile(p):
            f = read_jsonl(p)[0]
            print(f"| {t} | {f['prefix_len']} | {f['baseline']} | {f['baseline_error'] or '-'} |")


def main(argv=None):
    if len(sys.argv) > 1 and sys.argv[1] == "convert":
        a = sys.argv[2:]
        if len(a) not in (3, 4):
            sys.exit(__doc__)
        convert(a[0], a[1], a[2], a[3] if len(a) == 4 else None)
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["summary"])
    ap.add_argument("dir")
    ap.add_argument("--shared")
    a = ap.parse_args(argv)
    summary(a.dir, a.shared)
    return 0


if __name__ == "__main__":
    sys.exit(main())
