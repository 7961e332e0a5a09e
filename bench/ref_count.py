#!/usr/bin/python3
"""The reference side of the counting benchmark: the oracle's own Python path
(../shared/oracle/oracle.py, imported unmodified) counting the same items as
bench_count: prompts as `count.sh prompt --mlcommons` counts them and
assistant outputs as `count.sh message` does.

What is timed, per pass over a set, is what the oracle's process_batch does
for each batch of 256 lines (its --batch default) minus reading and parsing
the input lines and writing the output lines (bench_count parses before
timing too): Oracle.job_prompt / job_message per item (tool-call argument
normalisation, the Jinja2 render, or the msgspec-layout JSON of the fallback),
one Encoder.encode call per batch (the texts sent as JSON over a pipe to the
oracle's Node process running the Rust `tokenizers` 0.22.2, the ids sent
back as JSON), and each job's finish (the count). The template is compiled
and the encoder warmed on a few items before timing; the message framing
(prefix_len, baseline) is computed at start, as bench_count does at load.
Prints the same "key value" lines as bench_count, so bench/run.sh can compare
the totals. OUTPUTS.jsonl "-" times the prompts only (the drain section of
bench/run.sh compares the prompt path alone), PROMPTS.jsonl "-" the outputs
only (bench/run.sh times each set in a process of its own: a Python
process that holds the parsed prompts runs the messages markedly slower,
which would flatter tally).
  /usr/bin/python3 bench/ref_count.py TOKENIZER_DIR PROMPTS.jsonl|- OUTPUTS.jsonl|- [RUNS]
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = 256   # oracle.py's --batch default: items per encode call


def load(path):
    with open(path, "rb") as f:
        raw = [ln for ln in f.read().split(b"\n") if ln.strip()]
    return [json.loads(ln.decode("utf-8")) for ln in raw], sum(len(ln) for ln in raw)


def count_all(o, make, items):
    """process_batch's work on parsed items: jobs, one encode per batch,
    finish. Returns (tokens, fallbacks, errors)."""
    tokens = fallbacks = errors = 0
    for b in range(0, len(items), BATCH):
        jobs = []
        for it in items[b:b + BATCH]:
            try:
                jobs.append(make(it))
            except Exception:  # noqa: BLE001 - process_batch reports these per item
                errors += 1
        ids_list = o.enc.encode([j.text for j in jobs], add_special_tokens=False)
        for j, ids in zip(jobs, ids_list):
            r = j.finish(ids)
            tokens += r["n"]
            fallbacks += bool(r.get("fallback"))
    return tokens, fallbacks, errors


def bench(o, make, items, in_bytes, runs, kind, plural):
    make(items[0])                      # compiles the template (the oracle caches it)
    count_all(o, make, items[:8])       # warms the encoder process
    times, first = [], None
    r = 0
    # at least `runs` passes, more for a short set (up to a second in all, at
    # most 100), as bench_count does
    while r < runs or (sum(times) < 1.0 and r < 100):
        r += 1
        t0 = time.perf_counter()
        res = count_all(o, make, items)
        times.append(time.perf_counter() - t0)
        if first is None:
            first = res
        elif res != first:
            sys.exit(f"ref_count: {kind} run {r} gave {res}, the first {first}")
    m = statistics.median(times)
    tokens, fallbacks, errors = first
    print(f"{kind}_items {len(items)}\n{kind}_in_bytes {in_bytes}\n{kind}_tokens {tokens}\n"
          f"{kind}_fallbacks {fallbacks}\n{kind}_errors {errors}\n{kind}_s {m:.4f}\n"
          f"{plural}_per_s {len(items) / m:.1f}\n{kind}_tokps {tokens / m:.0f}")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tokdir, prompts_path, outputs_path = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    shared = os.environ.get("TALLY_SHARED") or os.path.join(HERE, "..", "..", "shared")
    sys.path.insert(0, os.path.join(shared, "oracle"))
    import jinja2  # noqa: E402
    import oracle  # noqa: E402
    if jinja2.__version__ != "3.1.2":
        sys.exit(f"ref_count: Jinja2 {jinja2.__version__}; the reference is Debian's 3.1.2 (/usr/bin/python3)")
    prompts, prompt_bytes = load(prompts_path) if prompts_path != "-" else (None, 0)
    outputs, output_bytes = load(outputs_path) if outputs_path != "-" else (None, 0)

    # One Oracle serves both kinds: mode "message" makes start() compute the
    # framing, and mlcommons=True is what job_prompt reads for --mlcommons
    # (job_message does not look at it).
    t0 = time.perf_counter()
    o = oracle.Oracle(argparse.Namespace(
        tokenizer=tokdir, chat_template=None, now="2025-01-15T12:00:00", mlcommons=True,
        hash=False, rendered=False, ids=False, mode="message", backend="native", batch=BATCH))
    o.start()
    load_s = time.perf_counter() - t0
    try:
        print(f"load_s {load_s:.4f}\nprefix_len {o.prefix_len}\nbaseline {o.baseline}")
        if prompts is not None:
            bench(o, o.job_prompt, prompts, prompt_bytes, runs, "prompt", "prompts")
        if outputs is not None:
            bench(o, o.job_message, outputs, output_bytes, runs, "message", "messages")
    finally:
        o.enc.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
