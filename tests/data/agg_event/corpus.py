#!/usr/bin/env python3
"""The event-decoder corpus and its golden (see README.md).

    corpus.py corpus OUT [SEED [N]]   the lines (stdlib Python >= 3.8 only); another
                                      SEED and N random mutations make another corpus
    corpus.py golden CORPUS OUT       upstream's own decoder on each line
                                      (needs the reference env: . ~/.cache/upstream-agg/env.sh)
    corpus.py check CORPUS            the corpus is the one the golden was made from

`corpus` writes one line per input line (newline-separated; a line never
holds a newline): every line of the logs tests/data/agg/gen_events.py writes
for each of its scenarios (defaults, seed 1), the JSONL lines that the .db of
two of them stands for (gen_events.py db2jsonl), then systematic mutations of
a choice of those lines, then seeded random byte mutations. Deterministic:
the same bytes on every run (random.Random(SEED) only).

`golden` decodes each line as the reference replay reads events.jsonl
(../shared/oracle/aggregator/replay.py load_records: the line without its
trailing CR/LF bytes, msgspec.json.Decoder(type=EventRecord,
dec_hook=EventType.decode_hook), called from the same Python frame depth, so
that msgspec's recursion limit is the same), then sends an accepted record
through the msgpack wire as replay.py does (EventRecordCodec.encode, then
.decode). One JSON line per corpus line:

    {"ok":1,"t":TOPIC,"ts":INT|null,"u":UUID[,"c":CONV][,"turn":INT]
     [,"fr":STR][,"w":INT][,"tag":TAG,"d":DIGEST|"!Class"][,"wire":"Class"]}
    {"ok":0,"cls":CLASS,"msg":MSG[,"ml":N]}

ts null: the line has no timestamp_ns (the reader's clock); c, turn, fr, w
and tag are left out when empty, None or UNSET (no payload). d: the first 16
hex digits of sha256(msgspec.json.encode(record.data)) (the payload as
upstream re-encodes it: every field, defaults filled in, extra elements
gone, a dict's repeated key once), "!Class" when that encoding raises.
wire: the exception of the msgpack round trip, when there is one. msg:
str(exc) cut to its longest prefix of at most 255 UTF-8 bytes that ends on
a character boundary; ml: its full length in bytes when it was cut.
The first line is a header: {"corpus_sha256": ..., "lines": N}.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
GEN = REPO / "tests" / "data" / "agg" / "gen_events.py"
SEED = 20240601
MSG_MAX = 255

# ---------------------------------------------------------------------------
# base lines
# ---------------------------------------------------------------------------


def scenarios() -> list[str]:
    out = subprocess.run([sys.executable, str(GEN), "list"], check=True, capture_output=True).stdout
    return [ln.split()[0] for ln in out.decode().splitlines() if ln.strip()]


def lines_of(path: Path) -> list[bytes]:
    data = path.read_bytes()
    out = data.split(b"\n")
    if out and out[-1] == b"":
        out.pop()
    return out


def base_lines(tmp: Path) -> tuple[list[bytes], dict[str, list[bytes]]]:
    """All scenario logs, in scenario order, then the db lines of two."""
    allv: list[bytes] = []
    per: dict[str, list[bytes]] = {}
    for sc in scenarios():
        j, d = tmp / (sc + ".jsonl"), tmp / (sc + ".db")
        subprocess.run([sys.executable, str(GEN), sc, "--out", str(j), "--db", str(d)], check=True,
                       capture_output=True)
        per[sc] = lines_of(j)
        allv += per[sc]
    for sc in ("offline_text", "mixed"):
        dj = tmp / (sc + ".db.jsonl")
        subprocess.run([sys.executable, str(GEN), "db2jsonl", str(tmp / (sc + ".db")), "--out", str(dj)],
                       check=True, capture_output=True)
        allv += lines_of(dj)
    return allv, per


# ---------------------------------------------------------------------------
# a compact line as (key, value) texts
# ---------------------------------------------------------------------------

_dec = json.JSONDecoder()


def split_obj(line: bytes):
    """[(key_text, value_text)] of a JSON object line, or None."""
    try:
        s = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    s = s.strip()
    if not s.startswith("{"):
        return None
    out = []
    i = 1
    try:
        while True:
            while s[i] in " \t\r\n":
                i += 1
            if s[i] == "}":
                break
            if s[i] == ",":
                i += 1
                continue
            _, j = _dec.raw_decode(s, i)
            k = s[i:j]
            i = j
            while s[i] in " \t\r\n:":
                i += 1
            while s[i] in " \t\r\n":
                i += 1
            _, j = _dec.raw_decode(s, i)
            out.append((k, s[i:j]))
            i = j
    except (ValueError, IndexError):
        return None
    return out


def split_arr(text: str):
    """[element_text] of a JSON array text, or None."""
    text = text.strip()
    if not text.startswith("["):
        return None
    out = []
    i = 1
    try:
        while True:
            while text[i] in " \t\r\n,":
                i += 1
            if text[i] == "]":
                return out
            _, j = _dec.raw_decode(text, i)
            out.append(text[i:j])
            i = j
    except (ValueError, IndexError):
        return None


def join_obj(pairs) -> bytes:
    return ("{" + ",".join(k + ":" + v for k, v in pairs) + "}").encode("utf-8", "surrogateescape")


def join_arr(items) -> str:
    return "[" + ",".join(items) + "]"


# ---------------------------------------------------------------------------
# value texts of every JSON type and msgspec's edge cases
# ---------------------------------------------------------------------------

BIG = "9" * 30
HUGE = "9" * 4300
HUGER = "9" * 4301
VALUES = [
    "null", "true", "false", "0", "-0", "1", "-1", "7", "1.0", "-0.0", "1e3", "1E3", "1e-3", "0.5", "2.5e-7",
    "1e400", "-1e400", "1e-400", "0e9999", "1e99999", "123456789012345678901234567890.5",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "19999999999999999999", "-18446744073709551615",
    BIG, "-" + BIG, HUGE, "-" + HUGE[:-1], "-" + HUGE, HUGER, "9" * 400,
    '""', '"x"', '"stop"', '"session.started"', '"sample.issued"', '"a.b.c"', '"caf\\u00e9"', '"\\ud83d\\ude00"',
    '"\\u0000"', '"tab\\there"', '"\\"quoted\\""', '"\u00e9\u4e2d\U0001F600"',
    "[]", "[1]", '["x"]', "[[]]", "[1,2,3]", '["a","b"]', "[null]", "[1.5]", '[{"a":1}]', "[[1],[2]]",
    "{}", '{"a":1}', '{"a":1,"a":2}', '{"role":"user","content":"hi"}', '{"":null}',
    '["PromptData"]', '["TextModelOutput","x"]', '["ErrorData","E","m"]',
]
BAD_NUMBERS = ["-", "01", "00", "-01", "1.", ".5", "1e", "1e+", "1E-", "+1", "--1", "1.e3", "0x10", "1_000",
               "NaN", "Infinity", "-Infinity", "nan", "inf", "1e5x", "1.5.3", "0.", "-.5", "1ee5", "١"]
BAD_LITERALS = ["nul", "tru", "fals", "nulll", "truex", "falsey", "NULL", "True", "None", "n", "t", "f", "nu11"]
BAD_STRINGS = [
    b'"abc', b'"\\', b'"\\x"', b'"\\u12"', b'"\\u12g4"', b'"\\uD800"', b'"\\udc00"', b'"\\ud800\\u0041"',
    b'"\\ud800x"', b'"\\ud800\\"', b'"\\ud800\\udbff"', b'"\\ud800\\ud"', b'"\\ud83d\\ude00"', b'"a\x01b"',
    b'"a\x1fb"', b'"a\x7fb"', b'"\xff"', b'"\xc3"', b'"\xc3\x28"', b'"\xe2\x82"', b'"\xe2\x82\xac"',
    b'"\xed\xa0\x80"', b'"\xf0\x9f\x98"', b'"\xf0\x9f\x98\x80"', b'"\xf4\x90\x80\x80"', b'"\xc0\xaf"',
    b'"\xe0\x80\xaf"', b'"\xf8\x88\x80\x80\x80"', b'"\x80"', b'"ab\xe2\x82\xacc\xed\xa0\x80"', b'"\\n\xff"',
    b'"\\u00e9\xe9"', b'"\t"', b'"a\rb"',
]


def deep(n: int, kind: str) -> str:
    if kind == "arr":
        return "[" * n + "]" * n
    if kind == "obj":
        return '{"a":' * n + "1" + "}" * n
    return '[{"a":' * (n // 2) + "0" + "}]" * (n // 2)


TOP_KEYS = ["event_type", "timestamp_ns", "sample_uuid", "conversation_id", "turn", "data", "finish_reason",
            "worker_id"]


def key_text(k: str) -> str:
    return json.dumps(k)


# ---------------------------------------------------------------------------
# systematic mutations
# ---------------------------------------------------------------------------


def pick_templates(per: dict[str, list[bytes]], rng: random.Random) -> list[bytes]:
    """A few lines of each (event type, payload tag, optional keys) kind, small ones first."""
    groups: dict[tuple, list[bytes]] = {}
    for sc in sorted(per):
        for ln in per[sc]:
            pairs = split_obj(ln)
            if pairs is None:
                continue
            d = dict(pairs)
            tag = None
            if d.get("data", "null") != "null":
                arr = split_arr(d["data"])
                tag = arr[0] if arr else "?"
            key = (d.get('"event_type"'), tag, '"finish_reason"' in d, '"worker_id"' in d,
                   tuple(k for k, _ in pairs))
            groups.setdefault(key, []).append(ln)
    out = []
    for key in sorted(groups, key=repr):
        cand = sorted(groups[key], key=len)
        small = [c for c in cand if len(c) < 3000]
        chosen = small[:2] + ([cand[-1]] if cand[-1] not in small[:2] and len(cand[-1]) < 200_000 else [])
        if len(small) > 2:
            chosen.append(small[rng.randrange(2, len(small))])
        out += chosen
    return out


def mutate_top(line: bytes, rng: random.Random, full: bool) -> list[bytes]:
    pairs = split_obj(line)
    if pairs is None:
        return []
    out = []
    keys = [k for k, _ in pairs]
    # each key removed
    for i in range(len(pairs)):
        out.append(join_obj(pairs[:i] + pairs[i + 1:]))
    # each key's value replaced by values of other types
    for i, (k, v) in enumerate(pairs):
        vals = VALUES if full else rng.sample(VALUES, 8)
        for nv in vals:
            out.append(join_obj(pairs[:i] + [(k, nv)] + pairs[i + 1:]))
    # keys that are absent, with values of several types
    for k in TOP_KEYS:
        kt = key_text(k)
        if kt in keys:
            continue
        for nv in rng.sample(VALUES, 6):
            out.append(join_obj(pairs + [(kt, nv)]))
    # extra keys (unknown), anywhere, with any value; keys with escapes
    for nv in rng.sample(VALUES, 8) + [deep(50, "arr"), '{"ignored":[1,2]}']:
        pos = rng.randrange(len(pairs) + 1)
        out.append(join_obj(pairs[:pos] + [('"extra"', nv)] + pairs[pos:]))
    out.append(join_obj([('"event_t\\u0079pe"', v) if k == '"event_type"' else (k, v) for k, v in pairs]))
    out.append(join_obj([('"Event_type"', v) if k == '"event_type"' else (k, v) for k, v in pairs]))
    # duplicate keys: an earlier value overridden, or a later one (valid or not)
    for i, (k, v) in enumerate(pairs):
        nv = rng.choice(VALUES)
        out.append(join_obj(pairs[:i] + [(k, nv)] + pairs[i:]))
        out.append(join_obj(pairs + [(k, nv)]))
    # reordered keys
    sh = pairs[:]
    rng.shuffle(sh)
    out.append(join_obj(sh))
    out.append(join_obj(pairs[::-1]))
    # whitespace
    s = join_obj(pairs).decode("utf-8", "surrogateescape")
    out.append((" \t" + s + " \r").encode("utf-8", "surrogateescape"))
    out.append(("{ " + ", ".join(k + " : " + v for k, v in pairs) + " }").encode("utf-8", "surrogateescape"))
    out.append(("{\r" + ",\t".join(k + "\t:\r" + v for k, v in pairs) + "\r}").encode("utf-8", "surrogateescape"))
    out.append(("\x0c" + s).encode())
    out.append((s + "\x0b").encode())
    out.append(("\ufeff" + s).encode())
    return out


def mutate_numbers(line: bytes, rng: random.Random) -> list[bytes]:
    pairs = split_obj(line)
    if pairs is None:
        return []
    out = []
    for i, (k, v) in enumerate(pairs):
        if k not in ('"timestamp_ns"', '"turn"', '"worker_id"', '"sample_uuid"'):
            continue
        for nv in BAD_NUMBERS + BAD_LITERALS:
            out.append(join_obj(pairs[:i] + [(k, nv)] + pairs[i + 1:]))
    # in an unknown (skipped) key, and as an extra payload element (skipped too)
    for nv in BAD_NUMBERS + BAD_LITERALS:
        out.append(join_obj(pairs + [('"zz"', nv)]))
        out.append(join_obj(pairs + [('"zz"', "[1," + nv + "]")]))
    return out


def mutate_strings(line: bytes, rng: random.Random) -> list[bytes]:
    pairs = split_obj(line)
    if pairs is None:
        return []
    out = []
    raw = [(k.encode(), v.encode()) for k, v in pairs]

    def j(ps):
        return b"{" + b",".join(k + b":" + v for k, v in ps) + b"}"

    targets = [i for i, (k, _) in enumerate(raw) if k in (b'"event_type"', b'"sample_uuid"', b'"conversation_id"',
                                                            b'"finish_reason"', b'"timestamp_ns"')]
    for i in targets:
        for bs in BAD_STRINGS:
            out.append(j(raw[:i] + [(raw[i][0], bs)] + raw[i + 1:]))
    for bs in BAD_STRINGS:
        out.append(j(raw + [(b'"zz"', bs)]))             # a skipped value
        out.append(j(raw + [(bs[:-1] + b'"' if bs.endswith(b'"') else bs, b"1")]))   # a skipped key
    # characters of string values as \u escapes
    for i, (k, v) in enumerate(pairs):
        if v.startswith('"') and len(v) > 2:
            esc = '"' + "".join("\\u%04x" % ord(c) if ord(c) < 0x10000 else c for c in json.loads(v)) + '"'
            out.append(join_obj(pairs[:i] + [(k, esc)] + pairs[i + 1:]))
            up = '"' + "".join("\\u%04X" % ord(c) if ord(c) < 0x10000 else c for c in json.loads(v)) + '"'
            out.append(join_obj(pairs[:i] + [(k, up)] + pairs[i + 1:]))
    return out


PROMPT_FIELDS = 7
FIELD_VALUES = {
    "PromptData": [
        ["null", '"text"', '""', "1", "[]", '"caf\\u00e9"', '"\xe9t\xe9"', "{}", "1.5", '["a"]'],
        ["null", "[]", "[1,2,3]", "[-1]", "[" + BIG + "]", "[18446744073709551615]", "[1.0]", '["1"]', "[true]",
         "[null]", "{}", '"1,2"', "[0,-0]", "[1e2]", "[" + HUGER + "]"],
        ["null", "[]", '[{"role":"user","content":"hi"}]', "[1]", '["x"]', "[[]]", "[null]", "{}", '[{"a":1e400}]',
         '[{"a":' + BIG + '}]', '[{"a":' + HUGER + '}]', '[{"k":"v","k":"w"}]', '[{"a":[1,{"b":null}]}]',
         '[{"role":"user","content":"caf\\u00e9\\ud83d\\ude00"}]', "[{}]", '[{"a":"\\ud800"}]'],
        ["null", "[]", '[{"type":"function"}]', "[1]", '"tools"', "{}", '[{"x":1.5e300}]', '[{"x":-0.0}]'],
        ["null", "{}", '{"enable_thinking":false}', "[]", '"x"', "1", '{"a":1,"a":2}', '{"n":1e400}'],
        ["null", '""', '"{{ x }}"', "1", "[]", "{}", "true"],
        ["null", '"auto"', '"none"', '{"type":"function","function":{"name":"f"}}', "1", "[]", "true", "1.5", '""'],
    ],
    "TextModelOutput": [
        ['""', '"out"', '["a","b"]', "[]", "null", "1", "[1]", '[""]', "{}", "[null]", '["a",1]', "true",
         '"\\u00e9"', '[["a"]]'],
        ["null", '"r"', '["r1","r2"]', "[]", "1", "[1]", "{}", '""', '[""]', "true"],
        ["null", "[]", '[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]',
         '[[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\\"a\\""}}],'
         '[{"index":0,"function":{"arguments":":1}"}}]]', "[1]", '["x"]', "[[1]]", "{}", '"x"', "1", "[null]",
         "[1e400]", "[" + HUGER + "]", "[" + BIG + "]"],
    ],
    "ErrorData": [
        ['"E"', '""', "null", "1", "[]", "{}", '"\\u00e9"', "true"],
        ['"msg"', '""', "null", "1", "[]", "{}", '"HTTP 503: {\\"detail\\": 1}"'],
    ],
}


def mutate_payload(line: bytes, rng: random.Random) -> list[bytes]:
    pairs = split_obj(line)
    if pairs is None:
        return []
    di = [i for i, (k, _) in enumerate(pairs) if k == '"data"']
    if not di:
        return []
    i = di[0]
    out = []

    def with_data(dt: str) -> bytes:
        return join_obj(pairs[:i] + [('"data"', dt)] + pairs[i + 1:])

    arr = split_arr(pairs[i][1])
    tags = ['"PromptData"', '"TextModelOutput"', '"ErrorData"']
    for dt in ["null", "[]", "{}", '"PromptData"', "1", "true", '["X"]', '["promptdata"]', '["Prompt\\u0044ata"]',
               "[1]", "[null]", "[[]]", '[""]', "[1e400]", '["PromptData" "x"]', '["PromptData",]', '["PromptData"',
               '["ErrorData"]', '["ErrorData","a"]', '["ErrorData","a","b","c"]', '["TextModelOutput"]',
               '{"PromptData":1}', '[{"type":"PromptData"}]', '["PromptData",null,null,null,null,null,null,null,1,2]',
               '["TextModelOutput","a",null,null,"\udcff"]', '["TextModelOutput","a",null,null,1e400,01]',
               '["TextModelOutput","a",null,null,' + deep(200, "arr") + "]"]:
        out.append(with_data(dt))
    if arr is None or not arr:
        # a line without payload gets every kind of payload
        for tag in tags:
            out.append(with_data("[" + tag + "]"))
        return out
    tag = arr[0]
    name = json.loads(tag) if tag.startswith('"') else None
    fields = FIELD_VALUES.get(name)
    if fields is None:
        return out
    # every field replaced by values of other types
    for f, vals in enumerate(fields):
        for nv in vals:
            el = arr[:] + ["null"] * max(0, f + 2 - len(arr))
            el[f + 1] = nv
            out.append(with_data(join_arr(el)))
    # shortened and lengthened arrays
    for n in range(1, len(arr) + 1):
        out.append(with_data(join_arr(arr[:n])))
    for extra in (["null"], ["1", '"x"'], ['{"z":[1]}'], [BIG], ['"\\ud800"'], ["1e400"], ["01"], ['"\\x"']):
        out.append(with_data(join_arr(arr + extra)))
    # other tags with this body
    for t in tags:
        if t != tag:
            out.append(with_data(join_arr([t] + arr[1:])))
    out.append(with_data(" [ " + " , ".join(arr) + " ] "))
    return out


def mutate_nesting() -> list[bytes]:
    out = []
    base = '{"event_type":"sample.issued","timestamp_ns":5,"sample_uuid":"u","conversation_id":"","turn":null,'
    # Python's recursion limit (1000) stops msgspec near 996 levels; exactly where depends on the
    # interpreter's own stack at the call (frames, call specialization: it moves by one between
    # scripts), so the corpus keeps clear of it: see README.md
    depths = [1, 2, 10, 100, 500, 900, 1100, 1500, 5000]
    for n in depths:
        for kind in ("arr", "obj", "mix"):
            out.append((base + '"data":null,"x":' + deep(n, kind) + "}").encode())
            out.append((base + '"data":["PromptData",null,null,[{"a":' + deep(n, kind) + '}]]}').encode())
            out.append((base + '"data":["TextModelOutput","o",null,[' + deep(n, kind) + ']]}').encode())
            out.append((base + '"data":["PromptData",null,null,null,null,null,null,null,' + deep(n, kind) + "]}").encode())
            out.append(('{"event_type":' + deep(n, kind) + "}").encode())
        out.append((base + '"data":["PromptData",null,null,null,null,{"k":' + deep(n, "arr") + "}]}").encode())
        out.append((base + '"data":["PromptData",null,null,null,null,null,null,' + deep(n, "obj") + "]}").encode())
    # an error at the bottom of deep nesting: the message's path is as deep
    for n in (100, 500, 900):
        for leaf in ("1e400", HUGER, '"\\ud800"', '"\udcff"', "nul", "[1,]"):
            out.append((base + '"data":["PromptData",null,null,[{"a":' + "[" * n + leaf + "]" * n + "}]]}")
                       .encode("utf-8", "surrogateescape"))
            out.append((base + '"data":["TextModelOutput","o",null,[' + '{"k":' * n + leaf + "}" * n + "]]}")
                       .encode("utf-8", "surrogateescape"))
        out.append((base + '"data":["PromptData",null,null,null,null,' + '{"k":' * n + '"\udcff"' + "}" * n + "]}")
                   .encode("utf-8", "surrogateescape"))
    # nesting that is unclosed (truncated deep inside)
    for n in (10, 900, 2000):
        out.append((base + '"data":null,"x":' + "[" * n + "}").encode())
        out.append((base + '"data":null,"x":' + "[" * n).encode())
    return out


def mutate_misc() -> list[bytes]:
    out = []
    for s in [b"", b" ", b"\t", b"\r", b"{", b"}", b"[", b"]", b"{}", b"[]", b"null", b"true", b"1", b'"x"', b"nul",
              b"{ }", b"[1]", b"[{}]", b'{"event_type":"session.started"}', b'{"event_type":"session.started"}}',
              b'{"event_type":"session.started"} {}', b'{"event_type":"session.started"}x',
              b'{"event_type":"session.started"},', b'{"event_type":"session.started",}', b"{,}",
              b'{"event_type"}', b'{"event_type":}', b'{"event_type" "session.started"}', b"{event_type:1}",
              b"{'event_type':'session.started'}", b'{"event_type":"session.started"\x00}', b"\x00",
              b'{"event_type":"session.ended","event_type":"session.started"}',
              b'{"event_type":"session.ended","event_type":5}', b'{"event_type":5,"event_type":"session.ended"}',
              b'{"event_type":"session.started","timestamp_ns":1,"timestamp_ns":"x"}',
              b'{"timestamp_ns":1}', b'{"sample_uuid":"x","data":null}',
              b'{"event_type":"SESSION.STARTED"}', b'{"event_type":"session"}', b'{"event_type":"."}',
              b'{"event_type":".started"}', b'{"event_type":"session.started."}', b'{"event_type":"session..started"}',
              b'{"event_type":"session.started "}', b'{"event_type":" session.started"}',
              b'{"event_type":"session.interrupted"}', b'{"event_type":"error.unknown"}',
              b'{"event_type":"sample.recv_first\\u0000"}', b'{"event_type":"samp\\u006ce.issued"}',
              b'{"event_type":"caf\\u00e9.x"}', b'{"event_type":"a\'b.c"}', b'{"event_type":"x\\ny.z"}',
              b'{"event_type":"sample.\'"}', b'{"event_type":"sample.\\"\'"}', b'{"event_type":"sample.a\\\\b"}',
              b'{"event_type":"sample.\\u0007\\u00ad\\u2028\\ud83d\\ude00\\u00a0 \xe2\x80\x8b"}',
              b'{"event_type":"x.y\\u0301"}', b'{"event_type":1.5}', b'{"event_type":-0.0}', b'{"event_type":1e22}',
              b'{"event_type":1e16}', b'{"event_type":0.0001}', b'{"event_type":1e-5}', b'{"event_type":true}',
              b'{"event_type":false}', b'{"event_type":[]}', b'{"event_type":{}}', b'{"event_type":[1,[2,"x"]]}',
              b'{"event_type":{"a":1,"b":[null,true],"a":3}}', b'{"event_type":{"k\'":"v\\""}}',
              b'{"event_type":["\\u00e9","\\n",""]}', b'{"event_type":' + BIG.encode() + b"}",
              b'{"event_type":-' + BIG.encode() + b"}", b'{"event_type":' + HUGER.encode() + b"}",
              b'{"event_type":' + b"9" * 400 + b"}", b'{"event_type":[' + b"9" * 400 + b"]}",
              b'{"event_type":["' + b"A" * 400 + b'"]}', b'{"event_type":"' + b"A" * 400 + b'"}',
              b'{"event_type":"sample.' + b"A" * 400 + b'"}', b'{"event_type":"' + b"\xc3\xa9" * 200 + b'.x"}',
              b'{"event_type":"session.started","data":["' + b"B" * 400 + b'"]}',
              b'{"event_type":"session.started","data":["' + b"\xc3\xa9" * 200 + b'"]}']:
        out.append(s)
    return out


def truncations(line: bytes, rng: random.Random, every: bool) -> list[bytes]:
    n = len(line)
    if every:
        cuts = range(n)
    else:
        cuts = sorted(set([0, 1, n - 1, n - 2] + [rng.randrange(n) for _ in range(40)]))
    return [line[:c] for c in cuts if 0 <= c < n]


ALPHABET = b'{}[]":,.-+0123456789eE \t\rnultrfas\\/bfu\xc3\xa9\xff\x00\x01\x7f'


def random_mutations(lines: list[bytes], rng: random.Random, count: int) -> list[bytes]:
    out = []
    for _ in range(count):
        s = bytearray(rng.choice(lines))
        for _ in range(rng.choice((1, 1, 1, 2, 3, 5))):
            if not s:
                break
            op = rng.randrange(6)
            p = rng.randrange(len(s))
            if op == 0:
                del s[p]
            elif op == 1:
                s[p:p] = bytes([rng.choice(ALPHABET)])
            elif op == 2:
                s[p] = rng.choice(ALPHABET)
            elif op == 3:
                q = min(len(s), p + rng.randrange(1, 16))
                del s[p:q]
            elif op == 4:
                q = min(len(s), p + rng.randrange(1, 16))
                s[p:p] = s[p:q]
            else:
                s[p] = rng.randrange(256)
        out.append(bytes(s).replace(b"\n", b" "))
    return out


def build_corpus(seed: int = SEED, n_random: int = 12000) -> list[bytes]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as td:
        allv, per = base_lines(Path(td))
    out = list(allv)
    templates = pick_templates(per, rng)
    small = [t for t in templates if len(t) < 3000]
    for k, t in enumerate(templates):
        out += mutate_top(t, rng, k % 6 == 0)
        out += mutate_payload(t, rng)
    for k, t in enumerate(small):
        if k % 3 == 0:
            out += mutate_numbers(t, rng)
            out += mutate_strings(t, rng)
    for t in small[:12]:
        out += truncations(t, rng, True)
    for t in templates:
        out += truncations(t, rng, False)
    out += mutate_nesting()
    out += mutate_misc()
    pool = [ln for ln in allv if len(ln) < 4000]
    out += random_mutations(pool, rng, n_random)
    out += random_mutations([t for t in templates if len(t) >= 4000], rng, 300)
    assert all(b"\n" not in ln for ln in out)
    return out


# ---------------------------------------------------------------------------
# the golden: upstream's decoder on each line, as replay.py reads a log
# ---------------------------------------------------------------------------


def cut(msg: str) -> tuple[str, int]:
    b = msg.encode("utf-8", "surrogatepass")
    if len(b) <= MSG_MAX:
        return msg, len(b)
    k = MSG_MAX
    while k > 0 and (b[k] & 0xC0) == 0x80:
        k -= 1
    return b[:k].decode("utf-8", "surrogatepass"), len(b)


def decode_all(lines, jdec, codec, msgspec, out):
    """One call level below main(), as load_records is in replay.py: the same
    frame depth, so msgspec meets Python's recursion limit at the same nesting."""
    for line in lines:
        line = line.rstrip(b"\r\n")
        t0 = time.monotonic_ns()
        try:
            rec = jdec.decode(line)
        except Exception as exc:  # noqa: BLE001
            msg, full = cut(str(exc))
            row = {"ok": 0, "cls": type(exc).__name__, "msg": msg}
            if full != len(msg.encode("utf-8", "surrogatepass")):
                row["ml"] = full
            out.append(row)
            continue
        wire = None
        try:
            _topic, payload = codec.encode(rec)
            codec.decode(payload)
        except Exception as exc:  # noqa: BLE001
            wire = type(exc).__name__
        # a timestamp_ns taken from the clock at decode time (default_factory)
        clock = t0 <= rec.timestamp_ns <= time.monotonic_ns()
        out.append((rec, wire, clock))


def golden_write(corpus: Path, lines: list[bytes], rows: list, dest: Path) -> None:
    import msgspec

    sys.setrecursionlimit(100000)   # the digest of a deep payload
    with open(dest, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps({"corpus_sha256": hashlib.sha256(corpus.read_bytes()).hexdigest(), "lines": len(lines)})
                + "\n")
        for (line, row) in zip(lines, rows):
            if isinstance(row, dict):
                f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
                continue
            rec, wire, clock = row
            o = {"ok": 1, "t": rec.event_type.topic, "ts": None if clock else rec.timestamp_ns,
                 "u": rec.sample_uuid}
            if rec.conversation_id:
                o["c"] = rec.conversation_id
            if rec.turn is not None:
                o["turn"] = rec.turn
            if rec.finish_reason is not msgspec.UNSET:
                o["fr"] = rec.finish_reason
            if rec.worker_id is not msgspec.UNSET:
                o["w"] = rec.worker_id
            if rec.data is not None:
                o["tag"] = type(rec.data).__name__
                try:
                    o["d"] = hashlib.sha256(msgspec.json.encode(rec.data)).hexdigest()[:16]
                except Exception as exc:  # noqa: BLE001
                    o["d"] = "!" + type(exc).__name__
            if wire:
                o["wire"] = wire
            f.write(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n")


def main(argv: list[str]) -> int:
    if 2 <= len(argv) <= 4 and argv[0] == "corpus":
        lines = build_corpus(*(int(x) for x in argv[2:]))
        data = b"\n".join(lines) + b"\n"
        Path(argv[1]).write_bytes(data)
        print("corpus.py: %d lines, %d bytes, sha256 %s" % (len(lines), len(data), hashlib.sha256(data).hexdigest()),
              file=sys.stderr)
        return 0
    if len(argv) == 3 and argv[0] == "golden":
        import msgspec
        from inference_endpoint.core.record import EventRecord, EventRecordCodec, EventType

        lines = lines_of(Path(argv[1]))
        jdec = msgspec.json.Decoder(type=EventRecord, dec_hook=EventType.decode_hook)
        rows: list = []
        decode_all(lines, jdec, EventRecordCodec(), msgspec, rows)   # called from main(): see decode_all
        golden_write(Path(argv[1]), lines, rows, Path(argv[2]))
        return 0
    if len(argv) == 2 and argv[0] == "check":
        want = json.loads((HERE / "golden.jsonl").open(encoding="utf-8").readline())["corpus_sha256"]
        got = hashlib.sha256(Path(argv[1]).read_bytes()).hexdigest()
        if got != want:
            print("corpus.py: %s has sha256 %s, the golden was made from %s" % (argv[1], got, want), file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
