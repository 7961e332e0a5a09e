#!/usr/bin/python3
"""The reference side of the template benchmark: the oracle's Python Jinja2
(Debian's 3.1.2, in transformers' environment) rendering a tokenizer's chat
template over the same prompt contexts as bench_tmpl, through the oracle's
own code (Oracle.job_prompt of ../shared/oracle/oracle.py, imported
unmodified). Only rendering is timed, in bench_tmpl's two ways: cold (all
contexts parsed first: render_s) and fresh (each parsed just before it is
rendered: fresh_render_s). Prints the same "key value" lines as bench_tmpl, including the sha256 of all
renderings (a failure hashed as its exception class), so both sides can be
checked against each other.
  /usr/bin/python3 bench/ref_tmpl.py TOKENIZER_DIR CONTEXTS.jsonl [RUNS]
"""
import argparse
import hashlib
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    tokdir, contexts = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    shared = os.environ.get("TALLY_SHARED") or os.path.join(HERE, "..", "..", "shared")
    sys.path.insert(0, os.path.join(shared, "oracle"))
    import jinja2  # noqa: E402
    import oracle  # noqa: E402
    if jinja2.__version__ != "3.1.2":
        sys.exit(f"ref_tmpl: Jinja2 {jinja2.__version__}; the reference is Debian's 3.1.2 (/usr/bin/python3)")

    with open(contexts, "rb") as f:
        raw = [ln for ln in f.read().split(b"\n") if ln.strip()]
    in_bytes = sum(len(ln) for ln in raw)
    items = [json.loads(ln.decode("utf-8")) for ln in raw]

    t0 = time.perf_counter()
    o = oracle.Oracle(argparse.Namespace(
        tokenizer=tokdir, chat_template=None, now="2025-01-15T12:00:00", mlcommons=False,
        hash=False, rendered=False, ids=False, mode="prompt", backend="native"))
    load_s = time.perf_counter() - t0

    def render_all():
        res = []
        for it in items:
            try:
                res.append(o.job_prompt(it).text)
            except Exception as e:  # noqa: BLE001 - failures are part of the work
                res.append(e)
        return res

    # A first pass compiles the template (the oracle caches it), as
    # bench_tmpl compiles at load; then the timed runs.
    first = render_all()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        render_all()
        times.append(time.perf_counter() - t0)

    fresh = []
    for _ in range(runs):
        t = 0.0
        for ln in raw:
            it = json.loads(ln.decode("utf-8"))
            t0 = time.perf_counter()
            try:
                o.job_prompt(it)
            except Exception:  # noqa: BLE001 - failures are part of the work
                pass
            t += time.perf_counter() - t0
        fresh.append(t)

    h = hashlib.sha256()
    out_bytes = errors = 0
    for r in first:
        if isinstance(r, str):
            b = r.encode("utf-8", "surrogatepass")
            h.update(b)
            out_bytes += len(b)
        else:
            h.update(b"\0ERROR " + type(r).__name__.encode() + b"\0")
            errors += 1
    m = statistics.median(times)
    print(f"inputs {len(items)}\nin_bytes {in_bytes}\nout_bytes {out_bytes}\nerrors {errors}\n"
          f"sha256 {h.hexdigest()}\nload_s {load_s:.4f}\nrender_s {m:.4f}\n"
          f"renders_per_s {len(items) / m:.0f}\nout_mbps {out_bytes / 1e6 / m:.2f}\n"
          f"in_mbps {in_bytes / 1e6 / m:.2f}")
    mf = statistics.median(fresh)
    print(f"fresh_render_s {mf:.4f}\nfresh_renders_per_s {len(items) / mf:.0f}\n"
          f"fresh_out_mbps {out_bytes / 1e6 / mf:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
