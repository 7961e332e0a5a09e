#!/usr/bin/python3
"""Renders chat templates over context sets with the oracle's own code and
writes per-context golden lines.

  render_golden.py --tokenizer TOK [--chat-template FILE] --name NAME
                   --contexts DIR --out DIR --sets S1,S2,... [--full S,...]
                   [--now ISO] [--shared DIR]

For each set S, reads DIR/S.jsonl (one oracle `prompt` input per line) and
writes OUT/NAME.S.jsonl, one line per context, same order:
  {"id": ..., "sha256": <hex of the UTF-8 rendering>, "len": <bytes>}
  {"id": ..., "error_type": <exception class name>, "error": <str(exception)>}
and for each set in --full also OUT/NAME.S.full.jsonl with "rendered" added.

Rendering goes through oracle.Oracle.job_prompt of <shared>/oracle/oracle.py
(imported, not modified): the same code path as `count.sh --tokenizer TOK
prompt`, without the token encoder. The oracle itself prints an error as
"<class>: <message>" (its `_err`); the class is recorded here separately, so
"error_type: error" is exactly the oracle's "error" string.

Needs Debian's /usr/bin/python3 with python3-jinja2 3.1.2 (the oracle's
interpreter) and the tokenizer packages installed by <shared>/oracle/install.sh.
"""
import argparse
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--chat-template", metavar="FILE")
    ap.add_argument("--name", required=True)
    ap.add_argument("--contexts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sets", required=True)
    ap.add_argument("--full", default="")
    ap.add_argument("--now", default="2025-01-15T12:00:00")
    ap.add_argument("--shared", default=os.environ.get("TALLY_SHARED")
                    or os.path.join(ROOT, "..", "shared"))
    a = ap.parse_args(argv)

    sys.path.insert(0, os.path.join(a.shared, "oracle"))
    import jinja2  # noqa: E402
    import oracle  # noqa: E402  (the oracle module; only its classes are used)

    if jinja2.__version__ != "3.1.2":
        sys.exit(f"render_golden: Jinja2 {jinja2.__version__} at {jinja2.__file__}; "
                 "the goldens are made with Debian's 3.1.2 (run with /usr/bin/python3)")

    oargs = argparse.Namespace(tokenizer=a.tokenizer, chat_template=a.chat_template,
                               now=a.now, mlcommons=False, hash=False, rendered=False,
                               ids=False, mode="prompt", backend="native")
    o = oracle.Oracle(oargs)          # loads tokenizer_config + template; no encoder
    full_sets = set(filter(None, a.full.split(",")))
    summary = []
    for s in filter(None, a.sets.split(",")):
        src = os.path.join(a.contexts, s + ".jsonl")
        dst = os.path.join(a.out, f"{a.name}.{s}.jsonl")
        dst_full = os.path.join(a.out, f"{a.name}.{s}.full.jsonl") if s in full_sets else None
        n = ok = 0
        classes = {}
        with open(src, "rb") as f_in, \
                open(dst + ".tmp", "w", encoding="utf-8", newline="\n") as f_out, \
                (open(dst_full + ".tmp", "w", encoding="utf-8", newline="\n")
                 if dst_full else open(os.devnull, "w")) as f_full:
            for raw in f_in:
                if not raw.strip():
                    continue
                item = json.loads(raw.decode("utf-8"))
                n += 1
                rec = {"id": item.get("id")}
                try:
                    text = o.job_prompt(item).text
                except Exception as e:  # noqa: BLE001 - template failures are data
                    rec["error_type"] = type(e).__name__
                    rec["error"] = str(e)
                    if isinstance(e, RecursionError):
                        # Python appends where the limit was hit ("... while
                        # calling a Python object"), which varies: keep the stem.
                        rec["error"] = "maximum recursion depth exceeded"
                    classes[rec["error_type"]] = classes.get(rec["error_type"], 0) + 1
                    full = rec
                else:
                    b = text.encode("utf-8", "surrogatepass")
                    rec["sha256"] = hashlib.sha256(b).hexdigest()
                    rec["len"] = len(b)
                    ok += 1
                    full = {**rec, "rendered": text}
                f_out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                if dst_full:
                    f_full.write(json.dumps(full, ensure_ascii=False) + "\n")
        os.replace(dst + ".tmp", dst)
        if dst_full:
            os.replace(dst_full + ".tmp", dst_full)
        summary.append(f"{a.name}.{s}: {n} contexts, {ok} rendered"
                       + "".join(f", {v} {k}" for k, v in sorted(classes.items())))
    for line in summary:
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
