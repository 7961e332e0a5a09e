"""Golden cases for upstream's TextModelOutput helpers, made with upstream's
own class (mlcommons/endpoints, inference_endpoint.core.types, in the
reference environment of ../shared/oracle/aggregator): for many payloads,
str(), text_after_first_chunk(), as_message_parts() and
as_message_parts_after_first_chunk(), each re-encoded with msgspec.

  (. ~/.cache/upstream-agg/env.sh && "$PYTHON" tests/data/agg_inputs/gen.py)

writes tests/data/agg_inputs/tmo.jsonl. Deterministic (no randomness)."""
import itertools
import json
import os

import msgspec
from inference_endpoint.core.types import TextModelOutput

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tmo.jsonl")

OUTPUTS = ["", "plain", [], [""], ["a"], ["a", "b"], ["", "b", "c"], ["x", "", ""]]
REASONINGS = [None, "", "think", [], [""], ["r1"], ["r1", "r2"], ["", ""], ["r1", "", "r3"]]
DELTA0 = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get", "arguments": ""}}]
DELTA1 = [{"index": 0, "function": {"arguments": "{\"a\": 1"}}]
DELTA2 = [{"index": 0, "function": {"arguments": "}"}}, {"index": 1, "id": "call_2",
                                                         "function": {"name": "put", "arguments": "[]"}}]
MERGED = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 2}"}}]
TOOL_CALLS = [None, [], [DELTA0], [DELTA0, DELTA1], [DELTA0, DELTA1, DELTA2], [[], DELTA1], MERGED]


def enc(v):
    return msgspec.json.encode(v).decode()


def main():
    rows = []
    for out, rsn, tc in itertools.product(OUTPUTS, REASONINGS, TOOL_CALLS):
        payload = ["TextModelOutput", out, rsn, tc]
        t = msgspec.json.decode(enc(payload).encode(), type=TextModelOutput)
        c, r, m = t.as_message_parts()
        ca, ra, ma = t.as_message_parts_after_first_chunk()
        rows.append({
            "payload": payload,
            "str": str(t),
            "after": t.text_after_first_chunk(),
            "parts": [c, r, enc(list(m)) if m is not None else None],
            "parts_after": [ca, ra, enc(list(ma)) if ma is not None else None],
            "message": bool(t.reasoning or t.tool_calls),
        })
    with open(OUT, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(rows)} cases")


if __name__ == "__main__":
    main()
