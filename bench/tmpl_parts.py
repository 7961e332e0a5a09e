#!/usr/bin/python3
"""Where a render of qwen3's chat template spends its time: the template is
cut into growing prefixes of its work (the context's conversion alone, then
the tools preamble, the reverse scan of the history, the main loop's
branches one by one), each variant is rendered by bench_tmpl over the same
contexts, the variants taking turns on one pinned core, and the median
render time of each is printed with what it adds to the one before. Only
timing: the variants render other texts than the template does. The times
are bench_tmpl's cold ones (render_s), or with BENCH_KEY=fresh_render_s its
fresh ones (each context parsed just before it is rendered).
  bench/tmpl_parts.py [ROUNDS] [CONTEXTS.jsonl]
Needs build/release/bench_tmpl and assets/qwen3 (TALLY_ASSETS)."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def cut(t, start, end):
    """t without t[i:j], where i is where `start` begins and j where `end`
    (searched from i) ends."""
    i = t.index(start)
    j = t.index(end, i) + len(end)
    return t[:i] + t[j:]


def variants(t):
    rev = "{%- for message in messages[::-1] %}"
    main = "{%- for message in messages %}"
    gen = "{%- if add_generation_prompt %}"
    asst = '{%- elif message.role == "assistant" %}'
    tool = '{%- elif message.role == "tool" %}'
    calls = "        {%- if message.tool_calls %}"
    body = t[t.index(main):t.index(gen)]
    head = body[:body.index('{%- if (message.role == "user")')]
    user_b = body[body.index('{%- if (message.role == "user")'):body.index(asst)]
    asst_b = body[body.index(asst):body.index(tool)]
    tool_b = body[body.index(tool):body.rindex("{%- endif %}")]
    tail = body[body.rindex("{%- endif %}"):]
    pre, post = t[:t.index(main)], t[t.index(gen):]
    no_rev = cut(pre, rev, "{%- endfor %}")
    hdr = lambda b: b.split("%}")[0] + "%}"  # noqa: E731 - a branch's first line only
    return [
        ("conversion only (messages|length)", "{{ messages|length }}"),
        ("+ tools preamble, namespace", no_rev + post),
        ("+ reverse scan of the history", pre + post),
        ("+ main loop, empty body", pre + main + "{%- endfor %}" + post),
        ("+ role tests, empty branches", pre + head + hdr(user_b) + hdr(asst_b) + hdr(tool_b) + tail + post),
        ("+ user/system branch", pre + head + user_b + hdr(asst_b) + hdr(tool_b) + tail + post),
        ("+ tool branch", pre + head + user_b + hdr(asst_b) + tool_b + tail + post),
        ("+ assistant branch without tool calls",
         pre + head + user_b + asst_b[:asst_b.index(calls)] +
         asst_b[asst_b.index("        {{- '<|im_end|>\\n' }}", asst_b.index(calls)):] + tool_b + tail + post),
        ("+ tool calls (the whole template)", t),
    ]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    contexts = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        ROOT, "tests/data/tmpl/contexts/agentic_nonull.jsonl")
    assets = os.environ.get("TALLY_ASSETS") or os.path.join(ROOT, "assets")
    src = os.path.join(assets, "qwen3")
    bench = os.path.join(ROOT, "build/release/bench_tmpl")
    with open(os.path.join(src, "tokenizer_config.json"), encoding="utf-8") as f:
        t = json.load(f)["chat_template"]
    vs = variants(t)
    key = os.environ.get("BENCH_KEY", "render_s")
    pin = ["taskset", "-c", os.environ.get("BENCH_CPU", "1")] if shutil.which("taskset") else []
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for k, (_, text) in enumerate(vs):
            d = os.path.join(tmp, str(k))
            os.mkdir(d)
            for name in os.listdir(src):
                if name.endswith(".json"):
                    shutil.copy(os.path.join(src, name), d)
            with open(os.path.join(d, "chat_template.jinja"), "w", encoding="utf-8") as f:
                f.write(text)
            dirs.append(d)
        times = [[] for _ in vs]
        for _ in range(rounds):
            for k, d in enumerate(dirs):
                out = subprocess.run(pin + [bench, d, contexts, "5"], check=True,
                                     capture_output=True, text=True).stdout
                times[k].append(float(next(ln.split()[1] for ln in out.splitlines()
                                           if ln.startswith(key + " "))))
    print(f"{'part':42} {'median ms':>9} {'adds ms':>8}")
    prev = 0.0
    for (name, _), ts in zip(vs, times):
        m = statistics.median(ts) * 1e3
        print(f"{name:42} {m:9.1f} {m - prev:8.1f}")
        prev = m
    return 0


if __name__ == "__main__":
    sys.exit(main())
