#!/usr/bin/env python3
"""Simulated benchmark runs written as upstream-format event logs.

    gen_events.py SCENARIO [--samples N] [--seed S] [--out events.jsonl] [--db events.db]
    gen_events.py db2jsonl events.db [--out events.jsonl]
    gen_events.py list

Writes the event log that mlcommons/endpoints' event logger would write for a
simulated run (upstream commit ea33275): one JSON object per line, encoded as
msgspec encodes an EventRecord (field order event_type, timestamp_ns,
sample_uuid, conversation_id, turn, data, then finish_reason and worker_id only
when set; compact; raw UTF-8; msgspec's float format), and optionally the same
records as upstream's SQLite writer stores them (table `events`).

`db2jsonl` turns an events.db back into the JSONL lines its rows stand for (the
database keeps neither finish_reason nor worker_id).

Scenarios (see README.md): offline_text, stream_chat_tools, agentic, token_ids,
mixed, interrupted. Every scenario reads its prompts and outputs from the
shared data folder: $TALLY_SHARED/data, default <repo>/../shared/data.

Stdlib only. Deterministic: every random draw is random.Random(seed).random();
integers, choices and distributions are derived from it with IEEE arithmetic
only (no libm), so a log is the same on every platform and Python version.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import math
import os
import random
import sqlite3
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]


def shared_dir() -> Path:
    env = os.environ.get("TALLY_SHARED")
    return Path(env) if env else REPO.parent / "shared"


# ---------------------------------------------------------------------------
# JSON exactly as msgspec 0.20 writes it
# ---------------------------------------------------------------------------

_dumps_str = json.JSONEncoder(ensure_ascii=False).encode  # same escapes as msgspec


def fmt_float(x: float) -> str:
    """msgspec's write_f64: shortest round-trip digits, its own layout."""
    if x != x or x in (math.inf, -math.inf):
        return "null"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    r = repr(x)
    sign = ""
    if r[0] == "-":
        sign, r = "-", r[1:]
    e = 0
    if "e" in r:
        r, es = r.split("e")
        e = int(es)
    ip, _, fp = r.partition(".")
    digits = (ip + fp).lstrip("0")
    k = e - len(fp)
    stripped = digits.rstrip("0")
    k += len(digits) - len(stripped)
    digits = stripped
    n = len(digits)
    kk = n + k
    if 0 <= k and kk <= 16:
        return sign + digits + "0" * k + ".0"
    if 0 < kk <= 16:
        return sign + digits[:kk] + "." + digits[kk:]
    if -5 < kk <= 0:
        return sign + "0." + "0" * (-kk) + digits
    mant = digits[0] + ("." + digits[1:] if n > 1 else "")
    return sign + mant + "e" + str(kk - 1)


def _has_float(o) -> bool:
    if isinstance(o, float):
        return True
    if isinstance(o, dict):
        return any(_has_float(v) for v in o.values())
    if isinstance(o, (list, tuple)):
        return any(_has_float(v) for v in o)
    return False


def _enc_slow(o) -> str:
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, str):
        return _dumps_str(o)
    if isinstance(o, int):
        return str(o)
    if isinstance(o, float):
        return fmt_float(o)
    if isinstance(o, (list, tuple)):
        return "[" + ",".join(_enc_slow(v) for v in o) + "]"
    if isinstance(o, dict):
        return "{" + ",".join(_dumps_str(k) + ":" + _enc_slow(v) for k, v in o.items()) + "}"
    raise TypeError(type(o))


_fast = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def enc(o) -> str:
    """msgspec.json.encode(o).decode() for str/int/float/bool/None/list/tuple/dict."""
    if _has_float(o):
        return _enc_slow(o)
    return _fast(o)


def encb(o) -> bytes:
    return enc(o).encode("utf-8")


def prompt_data(text=None, token_ids=None, messages=None, tools=None,
                chat_template_kwargs=None, chat_template=None, tool_choice=None) -> bytes:
    """PromptData as msgspec writes it: [tag, all 7 fields] (array_like ignores omit_defaults)."""
    return encb(["PromptData", text, token_ids, messages, tools,
                 chat_template_kwargs, chat_template, tool_choice])


def text_output(output="", reasoning=None, tool_calls=None) -> bytes:
    return encb(["TextModelOutput", output, reasoning, tool_calls])


def error_data(error_type: str, error_message: str = "") -> bytes:
    return encb(["ErrorData", error_type, error_message])


PROMPT_EMPTY = prompt_data()


# ---------------------------------------------------------------------------
# deterministic randomness (only Random.random(); IEEE +-*/ only)
# ---------------------------------------------------------------------------

class Rng:
    def __init__(self, seed: int):
        self._r = random.Random(seed)
        self.random = self._r.random

    def int(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi]."""
        return lo + int(self.random() * (hi - lo + 1))

    def pick(self, seq):
        return seq[int(self.random() * len(seq))]

    def chance(self, p: float) -> bool:
        return self.random() < p

    def bits128(self) -> int:
        a = int(self.random() * 9007199254740992.0)  # 2**53
        b = int(self.random() * 9007199254740992.0)
        c = int(self.random() * 4194304.0)  # 2**22
        return (a << 75) | (b << 22) | c

    def uuid_hex(self) -> str:
        """A uuid.uuid4().hex-shaped id (version 4, RFC 4122 variant)."""
        v = self.bits128()
        v &= ~(0xF << 76)
        v |= 0x4 << 76
        v &= ~(0x3 << 62)
        v |= 0x2 << 62
        return "%032x" % v

    def expo(self) -> float:
        """Exp(1) by von Neumann's comparison method (no logarithm)."""
        k = 0
        while True:
            u = self.random()
            prev, n = u, 1
            while True:
                v = self.random()
                if v < prev:
                    prev, n = v, n + 1
                else:
                    break
            if n % 2 == 1:
                return k + u
            k += 1

    def gamma_int(self, shape: int) -> float:
        return sum(self.expo() for _ in range(shape))

    def jitter(self, base: float, spread: float) -> float:
        """base * (1 + spread * (u - 0.5) * 2)"""
        return base * (1.0 + spread * (2.0 * self.random() - 1.0))

    def shuffle(self, items: list) -> list:
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = int(self.random() * (i + 1))
            items[i], items[j] = items[j], items[i]
        return items


# ---------------------------------------------------------------------------
# shared data: agentic trajectories (as AgenticInferenceDataset builds them) and BFCL
# ---------------------------------------------------------------------------

MSG_KEYS = ("role", "content", "name", "tool_calls", "tool_results", "reasoning_content")


class Conversation:
    """One source trajectory: its messages in history order, and per client turn
    the number of messages its prompt holds and the assistant turn that answers it."""

    def __init__(self, cid: str):
        self.cid = cid
        self.system: str | None = None
        self.tools = None
        self.msgs: list = []          # history messages (without the system message)
        self.turns: list = []         # (turn, n_msgs_through_this_turn, delay_s)
        self.answers: dict = {}       # turn -> assistant row

    def build(self, rows):
        rows = sorted(rows, key=lambda r: r["turn"])
        self.system = next((r["system"] for r in rows if isinstance(r.get("system"), str) and r["system"]), None)
        self.tools = next((r["tools"] for r in rows if r.get("role") == "user" and r.get("tools") is not None), None)
        pending = None
        for r in rows:
            tr = r.get("tool_results")
            if isinstance(tr, list) and tr:
                row_msgs = [{"role": "tool", "tool_call_id": x["tool_call_id"], "content": x["content"]} for x in tr]
            else:
                msg = {k: r[k] for k in MSG_KEYS if r.get(k) is not None}
                if msg.get("role") == "assistant" and "tool_calls" in msg and "content" not in msg:
                    msg["content"] = None
                row_msgs = [msg] if msg.get("role") else []
            if r["role"] in ("user", "tool"):
                self.msgs.extend(row_msgs)
                delay = r.get("delay_seconds") or 0.0
                self.turns.append((int(r["turn"]), len(self.msgs), float(delay)))
                pending = int(r["turn"])
            else:
                self.msgs.extend(row_msgs)
                if pending is not None and r["role"] == "assistant":
                    self.answers[pending] = r
                    pending = None
        return self


class SharedData:
    def __init__(self, root: Path):
        d = root / "data"
        ag = d / "agentic_coding_2.5h.jsonl"
        bf = d / "bfcl_calib.jsonl"
        if not ag.is_file() or not bf.is_file():
            sys.exit(f"gen_events.py: shared data not found under {d} (set TALLY_SHARED)")
        rows = [json.loads(x) for x in ag.read_text(encoding="utf-8").splitlines() if x.strip()]
        groups: dict = {}
        for r in rows:
            groups.setdefault(str(r["conversation_id"]), []).append(r)
        self.convs = [Conversation(cid).build(g) for cid, g in groups.items()]
        self.bfcl = [json.loads(x) for x in bf.read_text(encoding="utf-8").splitlines() if x.strip()]
        # plain-text pools: prompts (user questions, tool outputs) and outputs (reasoning)
        self.questions = [m["content"] for r in self.bfcl for m in r["messages"] if m["role"] == "user"]
        self.documents = [m["content"] for c in self.convs for m in c.msgs
                          if m.get("role") == "tool" and len(m.get("content") or "") > 200]
        self.prose = [c.answers[t]["reasoning_content"] for c in self.convs for t in c.answers
                      if c.answers[t].get("reasoning_content")]


# ---------------------------------------------------------------------------
# the log: records in publish order, JSONL and SQLite writers
# ---------------------------------------------------------------------------

class Lazy:
    """A data payload rendered at write time (agentic prompts are large)."""

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = parts  # tuple of bytes / memoryview

    def bytes(self) -> bytes:
        return b"".join(self.parts)


class Rec:
    __slots__ = ("topic", "ts", "uuid", "conv", "turn", "data", "finish", "worker")

    def __init__(self, topic, ts, uuid="", conv="", turn=None, data=None, finish=None, worker=None):
        self.topic, self.ts, self.uuid, self.conv, self.turn = topic, ts, uuid, conv, turn
        self.data, self.finish, self.worker = data, finish, worker

    def head(self) -> bytes:
        return ('{"event_type":"%s","timestamp_ns":%d,"sample_uuid":%s,"conversation_id":%s,"turn":%s,"data":'
                % (self.topic, self.ts, _dumps_str(self.uuid), _dumps_str(self.conv),
                   "null" if self.turn is None else str(self.turn))).encode()

    def tail(self) -> bytes:
        t = ""
        if self.finish is not None:
            t += ',"finish_reason":' + _dumps_str(self.finish)
        if self.worker is not None:
            t += ',"worker_id":%d' % self.worker
        return (t + "}").encode()

    def data_parts(self):
        d = self.data
        if d is None:
            return (b"null",)
        if isinstance(d, Lazy):
            return d.parts
        return (d,)


class Raw:
    """A line that is not an encoded record (malformed, or unusual but valid)."""

    __slots__ = ("line", "newline")

    def __init__(self, line: bytes, newline: bool = True):
        self.line, self.newline = line, newline


class Log:
    def __init__(self):
        self.items: list = []   # (pub_ns, seq, Rec|Raw, in_db)
        self._seq = 0
        self.tail_items: list = []  # appended after sorting (after ENDED, truncation)

    def add(self, pub: int, item, in_db: bool = True):
        self._seq += 1
        self.items.append((pub, self._seq, item, in_db))

    def rec(self, pub: int, topic: str, ts: int | None = None, **kw) -> Rec:
        r = Rec(topic, pub if ts is None else ts, **kw)
        self.add(pub, r)
        return r

    def ordered(self):
        self.items.sort(key=lambda x: (x[0], x[1]))
        return [(it, db) for _, _, it, db in self.items] + self.tail_items

    def write_jsonl(self, path: Path) -> tuple[int, int]:
        n = 0
        with open(path, "wb", buffering=1 << 22) as f:
            w = f.write
            for it, _db in self.ordered():
                if isinstance(it, Raw):
                    w(it.line)
                    if it.newline:
                        w(b"\n")
                else:
                    w(it.head())
                    for p in it.data_parts():
                        w(p)
                    w(it.tail())
                    w(b"\n")
                n += 1
        return n, path.stat().st_size

    def write_db(self, path: Path, limit: int | None = None) -> int:
        """Upstream's SQLWriter table; commits every 100 records like its flush_interval."""
        if path.exists():
            path.unlink()
        con = sqlite3.connect(str(path))
        con.execute(SQL_DDL)
        con.commit()
        rows = 0
        batch = []
        for it, db in self.ordered():
            if not db or isinstance(it, Raw):
                continue
            if limit is not None and rows >= limit:
                break
            d = it.data
            blob = b"null" if d is None else (d.bytes() if isinstance(d, Lazy) else d)
            batch.append((it.uuid, it.topic, it.ts, it.conv, it.turn, blob))
            rows += 1
            if len(batch) == 100:
                con.executemany(SQL_INSERT, batch)
                con.commit()
                batch = []
        if batch:
            con.executemany(SQL_INSERT, batch)
            con.commit()
        con.close()
        return rows


# The DDL SQLAlchemy 2.0.48 emits for upstream's EventRowModel on SQLite
# (event_logger/sql_writer.py:34-56), as sqlite_master keeps it.
SQL_DDL = ("CREATE TABLE events (\n\tid INTEGER NOT NULL, \n\tsample_uuid VARCHAR NOT NULL, \n"
           "\tevent_type VARCHAR NOT NULL, \n\ttimestamp_ns BIGINT NOT NULL, \n"
           "\tconversation_id VARCHAR NOT NULL, \n\tturn INTEGER, \n\tdata BLOB NOT NULL, \n"
           "\tPRIMARY KEY (id)\n)")
SQL_INSERT = ("INSERT INTO events (sample_uuid, event_type, timestamp_ns, conversation_id, turn, data) "
              "VALUES (?, ?, ?, ?, ?, ?)")


def db2jsonl(db: Path, out: Path) -> int:
    con = sqlite3.connect(str(db))
    n = 0
    with open(out, "wb", buffering=1 << 22) as f:
        for uuid, topic, ts, conv, turn, data in con.execute(
                "SELECT sample_uuid, event_type, timestamp_ns, conversation_id, turn, data "
                "FROM events ORDER BY id"):
            f.write(('{"event_type":%s,"timestamp_ns":%d,"sample_uuid":%s,"conversation_id":%s,"turn":%s,"data":'
                     % (_dumps_str(topic), ts, _dumps_str(uuid), _dumps_str(conv),
                        "null" if turn is None else str(turn))).encode())
            f.write(bytes(data))
            f.write(b"}\n")
            n += 1
    con.close()
    return n


# ---------------------------------------------------------------------------
# simulation: clock, server, benchmark session (load_generator/session.py)
# ---------------------------------------------------------------------------

US = 1_000
MS = 1_000_000
S = 1_000_000_000


class Sim:
    def __init__(self, t0: int):
        self.now = t0
        self._q: list = []
        self._n = 0

    def at(self, t: int, fn, *args):
        self._n += 1
        heapq.heappush(self._q, (t, self._n, fn, args))

    def run(self):
        while self._q:
            t, _, fn, args = heapq.heappop(self._q)
            self.now = t
            fn(*args)


class Server:
    """An inference server with `slots` concurrent sequences, FIFO admission."""

    def __init__(self, rng: Rng, slots: int, prefill_ns_per_tok: float, itl_ns: float):
        self.rng = rng
        self.free = [0] * slots
        self.pp = prefill_ns_per_tok
        self.itl = itl_ns

    def schedule(self, t: int, in_tok: int, n_out_tok: int):
        """-> (t_first_token, t_done) at the server."""
        start = max(t + int(self.rng.jitter(300 * US, 0.5)), heapq.heappop(self.free))
        ttft = int(self.rng.jitter(8 * MS, 0.5) + in_tok * self.pp * (0.6 + 0.8 * self.rng.random()))
        t_first = start + ttft
        per = self.rng.jitter(self.itl, 0.3)
        t_done = t_first + int(max(0, n_out_tok - 1) * per) + int(self.rng.jitter(400 * US, 0.5))
        heapq.heappush(self.free, t_done)
        return t_first, t_done


def tok_estimate(s: str) -> int:
    return max(1, len(s) // 4)


class Response:
    """What the worker hands back: SSE deltas (streaming) or a body, and the error if any.

    deltas: list of (kind, payload): kind 'content' | 'reasoning' | 'tools' (payload = list of
    tool-call delta dicts) | 'content+tools' (payload = (text, list)).
    """

    def __init__(self, *, streaming, deltas=None, output=None, finish=None, worker=None,
                 error=None, error_after_chunks=0, stream_all=False, sglang=False, ntok=None,
                 stall_ns=0):
        self.streaming, self.deltas, self.output = streaming, deltas or [], output
        self.ntok, self.stall_ns = ntok, stall_ns
        self.finish, self.worker, self.error = finish, worker, error
        self.error_after_chunks, self.stream_all, self.sglang = error_after_chunks, stream_all, sglang

    def n_tokens(self) -> int:
        if self.ntok is not None:
            return self.ntok
        if self.streaming:
            n = 0
            for kind, p in self.deltas:
                if kind in ("content", "reasoning"):
                    n += tok_estimate(p)
                elif kind == "tools":
                    n += sum(tok_estimate(json.dumps(x)) for x in p)
            return max(1, n)
        return 64


def accumulate_openai(deltas, stream_all: bool):
    """openai/accumulator.py: which deltas make a StreamChunk, and the final TextModelOutput."""
    output_chunks, reasoning_chunks, tool_chunks = [], [], []
    first_sent = False
    emits = []  # per delta: None | True (first) | False (non-first)
    for kind, p in deltas:
        tcs = p if kind == "tools" else (p[1] if kind == "content+tools" else None)
        text = p if kind in ("content", "reasoning") else (p[0] if kind == "content+tools" else None)
        if tcs:
            tool_chunks.append(tuple(tcs))
        content = None
        if kind in ("content", "content+tools") and text:
            output_chunks.append(text)
            content = text
        elif kind == "reasoning" and text:
            reasoning_chunks.append(text)
            content = text
        elif tcs and not first_sent:
            first_sent = True
            emits.append(True)
            continue
        else:
            emits.append(None)
            continue
        if content is not None and (stream_all or not first_sent):
            emits.append(not first_sent)
            first_sent = True
        else:
            emits.append(None)
    tool_calls = list(tool_chunks) if tool_chunks else None
    if reasoning_chunks:
        r = [reasoning_chunks[0]] + (["".join(reasoning_chunks[1:])] if len(reasoning_chunks) > 1 else [])
        out = text_output("".join(output_chunks), r, tool_calls)
    elif output_chunks:
        o = [output_chunks[0]] + (["".join(output_chunks[1:])] if len(output_chunks) > 1 else [])
        out = text_output(o, None, tool_calls)
    else:
        out = text_output([], None, tool_calls)
    return emits, out


class Phase:
    def __init__(self, name: str, kind: str):
        self.name, self.kind = name, kind    # kind: performance | warmup | accuracy
        self.conv_info: dict = {}
        self.index: set = set()
        self.completed: set = set()
        self.inflight = 0
        self.issued = 0
        self.stopped = False


class Session:
    """BenchmarkSession + PhaseIssuer as far as the event log sees them."""

    def __init__(self, sim: Sim, log: Log, rng: Rng, server: Server, workers: int = 8):
        self.sim, self.log, self.rng, self.server = sim, log, rng, server
        self.workers = workers
        self.phase: Phase | None = None
        self.strategy = None
        self.on_drained = None
        self.transport = 60 * US

    # -- session events ----------------------------------------------------
    def session_event(self, t: int, value: str):
        self.log.rec(t, "session." + value)

    # -- issuing ------------------------------------------------------------
    def issue(self, t: int, data: bytes | Lazy, response: Response, in_tok: int,
              conv: str = "", turn: int | None = None, uuid: str | None = None) -> str:
        ph = self.phase
        uuid = uuid or self.rng.uuid_hex()
        ph.index.add(uuid)
        ph.conv_info[uuid] = (conv, turn)
        self.log.rec(t, "sample.issued", uuid=uuid, conv=conv, turn=turn, data=data)
        ph.inflight += 1
        ph.issued += 1
        self._serve(t, uuid, response, in_tok)
        return uuid

    def register_skipped(self, t: int, conv: str, turn: int) -> str:
        ph = self.phase
        uuid = self.rng.uuid_hex()
        ph.index.add(uuid)
        ph.conv_info[uuid] = (conv, turn)
        ph.completed.add(uuid)
        self.log.rec(t, "sample.issued", uuid=uuid, conv=conv, turn=turn, data=PROMPT_EMPTY)
        ph.issued += 1
        return uuid

    def _serve(self, t: int, uuid: str, resp: Response, in_tok: int):
        rng = self.rng
        if resp.error is not None and resp.error_after_chunks == 0 and not resp.streaming:
            t_err = t + int(rng.jitter(3 * MS, 0.8))
            self.sim.at(t_err + self.transport, self._result, uuid, resp, t_err + self.transport)
            return
        t_first, t_done = self.server.schedule(t, in_tok, resp.n_tokens())
        t_first += resp.stall_ns
        t_done += resp.stall_ns
        if resp.streaming:
            if resp.sglang:
                emits = [True] + [False if resp.stream_all else None] * (len(resp.deltas) - 1)
            else:
                emits, final = accumulate_openai(resp.deltas, resp.stream_all)
                if resp.output is None:
                    resp.output = final
            n = len(resp.deltas)
            limit = n if resp.error is None else min(n, resp.error_after_chunks)
            for i in range(limit):
                e = emits[i]
                if e is None:
                    continue
                tc = t_first if i == 0 else t_first + (t_done - t_first) * i // max(1, n - 1)
                tc += int(rng.jitter(self.transport, 0.5))
                self.sim.at(tc, self._chunk, uuid, e)
            if resp.error is not None:
                t_done = t_first + (t_done - t_first) * limit // max(1, n) + int(rng.jitter(2 * MS, 0.5))
        arrive = t_done + int(rng.jitter(self.transport, 0.5))
        self.sim.at(arrive, self._result, uuid, resp, arrive)

    def _chunk(self, uuid: str, first: bool):
        conv, turn = self.phase.conv_info.get(uuid, ("", None))
        self.log.rec(self.sim.now, "sample.recv_first" if first else "sample.recv_non_first",
                     uuid=uuid, conv=conv, turn=turn)

    def _result(self, uuid: str, resp: Response, completed_at: int):
        ph = self.phase
        h = completed_at + int(self.rng.jitter(25 * US, 0.6))
        self.sim.now = h
        if uuid in ph.completed:
            return  # late response for a synthetically terminated query: dropped
        conv, turn = ph.conv_info.pop(uuid, ("", None))
        if resp.error is not None:
            self.log.rec(h, "error.generic", uuid=uuid, conv=conv, turn=turn,
                         data=error_data(*resp.error))
        if ph.kind != "warmup":
            if resp.error is not None:
                data, finish = None, None
            else:
                data, finish = resp.output, resp.finish
            self.log.rec(h, "sample.complete", ts=completed_at, uuid=uuid, conv=conv, turn=turn,
                         data=data, finish=finish, worker=resp.worker)
        if uuid in ph.index:
            ph.inflight -= 1
            if self.strategy is not None:
                self.strategy.on_complete(h, uuid, resp)
            if ph.inflight <= 0 and self.on_drained is not None:
                cb, self.on_drained = self.on_drained, None
                self.sim.at(h + 5 * US, cb, h + 5 * US)

    def synthetic_failure(self, t: int, uuid: str, conv: str, turn: int, etype: str, msg: str):
        self.log.rec(t, "error.generic", uuid=uuid, conv=conv, turn=turn, data=error_data(etype, msg))
        self.log.rec(t + 1 * US, "sample.complete", uuid=uuid, conv=conv, turn=turn)

    # -- phases ------------------------------------------------------------
    def run_phase(self, t: int, phase: Phase, strategy, drain: bool, then):
        """START (perf) -> strategy -> [drain] -> STOP (perf) -> then(t)."""
        self.phase = phase
        self.strategy = strategy
        if phase.kind == "performance":
            self.session_event(t, "start_performance_tracking")
            t += 20 * US

        def strategy_done(t_done):
            def finish(t_end):
                if phase.kind == "performance" and not phase.stopped:
                    phase.stopped = True
                    self.session_event(t_end, "stop_performance_tracking")
                    t_end += 20 * US
                then(t_end)
            if drain and phase.inflight > 0:
                self.on_drained = finish
            else:
                self.sim.at(t_done + 10 * US, finish, t_done + 10 * US)

        strategy.start(t, strategy_done)


class Workload:
    """Sample source for the non-agentic strategies: next() -> (data, response, in_tok)."""

    def __init__(self, fn):
        self.fn = fn
        self.i = 0

    def next(self):
        self.i += 1
        return self.fn(self.i - 1)


class ConcurrencyStrategy:
    def __init__(self, session: Session, work: Workload, n: int, concurrency: int):
        self.s, self.work, self.n, self.c = session, work, n, concurrency
        self.issued = 0
        self.done_cb = None

    def start(self, t, done_cb):
        self.done_cb = done_cb
        for _ in range(min(self.c, self.n)):
            t += int(self.s.rng.jitter(15 * US, 0.5))
            self._issue(t)
        self._check(t)

    def _issue(self, t):
        data, resp, in_tok = self.work.next()
        self.s.issue(t, data, resp, in_tok)
        self.issued += 1

    def _check(self, t):
        if self.issued >= self.n and self.done_cb is not None:
            cb, self.done_cb = self.done_cb, None
            cb(t)

    def on_complete(self, h, uuid, resp):
        if self.issued < self.n:
            t = h + int(self.s.rng.jitter(8 * US, 0.5))
            self._issue(t)
            self._check(t)


class TimedStrategy:
    """Poisson (exponential inter-arrival) or burst (back-to-back issue, max_throughput)."""

    def __init__(self, session: Session, work: Workload, n: int, qps: float | None):
        self.s, self.work, self.n, self.qps = session, work, n, qps

    def start(self, t, done_cb):
        rng = self.s.rng
        tt = t
        for _ in range(self.n):
            if self.qps:
                tt += int(rng.expo() * (S / self.qps))
            else:
                tt += int(rng.jitter(12 * US, 0.6))
            self.s.sim.at(tt, self._fire)
        self.s.sim.at(tt + 1 * US, done_cb, tt + 1 * US)

    def _fire(self):
        data, resp, in_tok = self.work.next()
        self.s.issue(self.s.sim.now, data, resp, in_tok)

    def on_complete(self, h, uuid, resp):
        pass


# ---------------------------------------------------------------------------
# content builders
# ---------------------------------------------------------------------------

def cut(rng: Rng, s: str, lo: int, hi: int) -> str:
    n = rng.int(lo, hi)
    return s if len(s) <= n else s[:n]


def split_deltas(rng: Rng, s: str, lo: int = 2, hi: int = 9) -> list:
    out, i = [], 0
    while i < len(s):
        k = rng.int(lo, hi)
        out.append(s[i:i + k])
        i += k
    return out


def call_id(rng: Rng, style: str = "openai") -> str:
    h = "%032x" % rng.bits128()
    return "call_" + h[:24] if style == "openai" else "chatcmpl-tool-" + h


def fake_args(rng: Rng, fn: dict, question: str) -> dict:
    params = (fn.get("parameters") or {}).get("properties") or {}
    req = (fn.get("parameters") or {}).get("required") or list(params)[:1]
    words = [w.strip("?.,!'\"") for w in question.split() if len(w) > 3] or ["value"]
    args = {}
    for name in params:
        if name not in req and not rng.chance(0.3):
            continue
        p = params[name] if isinstance(params[name], dict) else {}
        ty = p.get("type", "string")
        if "enum" in p and p["enum"]:
            args[name] = rng.pick(p["enum"])
        elif ty == "integer":
            args[name] = rng.int(1, 500)
        elif ty in ("number", "float"):
            args[name] = rng.int(1, 2000) / 8
        elif ty == "boolean":
            args[name] = rng.chance(0.5)
        elif ty == "array":
            args[name] = [rng.pick(words) for _ in range(rng.int(1, 3))]
        elif ty in ("object", "dict"):
            args[name] = {}
        else:
            args[name] = rng.pick(words)
    return args


def tool_call_deltas(rng: Rng, calls: list) -> list:
    """OpenAI-style streamed tool calls: a header delta per call, then argument pieces."""
    deltas = []
    for idx, (cid, name, args_s) in enumerate(calls):
        deltas.append(("tools", [{"index": idx, "id": cid, "type": "function",
                                  "function": {"name": name, "arguments": ""}}]))
        for piece in split_deltas(rng, args_s, 3, 14):
            deltas.append(("tools", [{"index": idx, "function": {"arguments": piece}}]))
    return deltas


# ---------------------------------------------------------------------------
# scenarios
# ---------------------------------------------------------------------------

SCENARIOS: dict = {}


def scenario(name, samples, t0, doc):
    def deco(fn):
        SCENARIOS[name] = (fn, samples, t0, doc)
        return fn
    return deco


# timestamps of the mixed and interrupted runs start above any machine's monotonic
# clock: a record synthesized by the replayer for a malformed line carries the
# replayer's clock, which then never moves total_duration_ns (see README).
HIGH_T0 = 4_611_686_018_427_387_904  # 2**62 ns (~146 years of uptime)


@scenario("offline_text", 200, 183_442_107_518_230,
          "offline (max_throughput) text completions, non-streaming")
def sc_offline_text(data: SharedData, rng: Rng, n: int, t0: int) -> Log:
    sim, log = Sim(t0), Log()
    server = Server(rng, slots=32, prefill_ns_per_tok=12_000, itl_ns=9 * MS)
    sess = Session(sim, log, rng, server)
    prefixes = ("Summarize the following tool output:\n\n", "Explain what this output shows.\n\n",
                "", "Question: ")

    def work(i):
        if rng.chance(0.5):
            prompt = rng.pick(prefixes[:2]) + cut(rng, rng.pick(data.documents), 200, 3000)
        else:
            prompt = rng.pick(prefixes[2:]) + rng.pick(data.questions)
        out = cut(rng, rng.pick(data.prose), 40, 1600)
        err = None
        if rng.chance(0.015):
            err = ("error", "HTTP 503: " + rng.pick(["Service Unavailable", '{"error":"overloaded"}']))
        finish = "length" if len(out) >= 1500 else "stop"
        return (prompt_data(text=prompt),
                Response(streaming=False, output=text_output(out), finish=finish,
                         worker=rng.int(0, 7), error=err, ntok=tok_estimate(out)),
                tok_estimate(prompt))

    sess.session_event(t0, "started")
    sess.run_phase(t0 + 2 * MS, Phase("performance", "performance"),
                   TimedStrategy(sess, Workload(work), n, None), True,
                   lambda t: sess.session_event(t + 200 * US, "ended"))
    sim.run()
    return log


def bfcl_response(data: SharedData, rng: Rng, row: dict, streaming: bool, stream_all: bool,
                  worker: int, err_rate: float) -> Response:
    """A chat response to a BFCL prompt: reasoning, tool calls and/or content."""
    q = next((m["content"] for m in row["messages"] if m["role"] == "user"), "")
    tools = row.get("tools") or []
    kind = rng.random()
    reasoning = content = None
    calls = []
    if tools and kind < 0.65:
        if kind < 0.45:
            reasoning = cut(rng, rng.pick(data.prose), 30, 500)
        for _ in range(1 if rng.chance(0.8) else 2):
            fn = rng.pick(tools).get("function", {})
            args = fake_args(rng, fn, q)
            calls.append((call_id(rng), fn.get("name", "f"), json.dumps(args)))
        finish = "tool_calls"
    else:
        if kind < 0.8:
            reasoning = cut(rng, rng.pick(data.prose), 30, 500)
        content = cut(rng, rng.pick(data.prose), 20, 700)
        finish = "length" if rng.chance(0.1) else "stop"
    error, after = None, 0
    if rng.chance(err_rate):
        if streaming and rng.chance(0.5):
            error, after = ("ClientPayloadError",
                            "ClientPayloadError('Response payload is not completed: "
                            "<TransferEncodingError: 400, message=\\'Not enough data for satisfy "
                            "transfer length header.\\'>')"), 3
        else:
            error = ("error", "HTTP 500: Internal Server Error")
    if streaming:
        deltas = []
        if reasoning:
            deltas += [("reasoning", d) for d in split_deltas(rng, reasoning)]
        if content:
            deltas += [("content", d) for d in split_deltas(rng, content)]
        deltas += tool_call_deltas(rng, calls)
        r = Response(streaming=True, deltas=deltas, finish=finish, worker=worker, error=error,
                     error_after_chunks=after if error else 0, stream_all=stream_all)
        if error is not None and after == 0:
            r.streaming = False
        return r
    tcs = [{"id": cid, "type": "function", "function": {"name": nm, "arguments": a}} for cid, nm, a in calls]
    ntok = tok_estimate((content or "") + (reasoning or "") + "".join(a for _, _, a in calls))
    return Response(streaming=False, output=text_output(content or "", reasoning, tcs or None),
                    finish=finish, worker=worker, error=error, ntok=ntok)


def bfcl_prompt(rng: Rng, row: dict, kwargs_rate: float = 0.25, choice_rate: float = 0.2) -> bytes:
    return prompt_data(
        messages=row["messages"], tools=row.get("tools"),
        chat_template_kwargs={"enable_thinking": False} if rng.chance(kwargs_rate) else None,
        tool_choice="auto" if rng.chance(choice_rate) else None)


@scenario("stream_chat_tools", 150, 95_310_662_004_117,
          "concurrency 16, streaming chat with BFCL tools (reasoning, tool-call deltas, every chunk)")
def sc_stream_chat_tools(data: SharedData, rng: Rng, n: int, t0: int) -> Log:
    sim, log = Sim(t0), Log()
    server = Server(rng, slots=24, prefill_ns_per_tok=15_000, itl_ns=11 * MS)
    sess = Session(sim, log, rng, server)
    order = rng.shuffle(range(len(data.bfcl)))

    def work(i):
        row = data.bfcl[order[i % len(order)]]
        resp = bfcl_response(data, rng, row, True, True, rng.int(0, 7), 0.03)
        return bfcl_prompt(rng, row), resp, tok_estimate(json.dumps(row))

    sess.session_event(t0, "started")
    sess.run_phase(t0 + 3 * MS, Phase("performance", "performance"),
                   ConcurrencyStrategy(sess, Workload(work), n, 16), True,
                   lambda t: sess.session_event(t + 150 * US, "ended"))
    sim.run()
    return log


class AgenticInstance:
    __slots__ = ("logical", "conv", "repeat", "cursor", "sys_bytes", "started_idx")

    def __init__(self, logical, conv, repeat, sys_bytes, started_idx):
        self.logical, self.conv, self.repeat, self.cursor = logical, conv, repeat, 0
        self.sys_bytes, self.started_idx = sys_bytes, started_idx


class AgenticStrategy:
    """load_generator/agentic_inference_strategy.py: target_concurrency conversations,
    each turn issued when the previous one completes (after its tool delay when
    inject_tool_delay), an errored turn aborts the rest of its conversation
    (skipped turns: ISSUED with PromptData(), error, null COMPLETE), and
    STOP_PERFORMANCE_TRACKING when a conversation finishes after the last
    trajectory started."""

    def __init__(self, session: Session, data: SharedData, n_samples: int, concurrency: int,
                 err_rate: float, salt: bool, tool_delay: bool, timeout_s: float | None = None):
        self.s, self.data, self.c = session, data, concurrency
        self.err_rate, self.salt, self.tool_delay = err_rate, salt, tool_delay
        self.timeout_ns = int(timeout_s * S) if timeout_s else None
        convs = data.convs
        total, k = 0, 0
        while total < n_samples:
            total += len(convs[k % len(convs)].turns)
            k += 1
        self.budget = k
        self.started = 0
        self.active: dict = {}
        self.inflight: dict = {}   # uuid -> instance
        self.tracking_stopped = False
        self.done_cb = None
        self.enc = {}               # conv index -> (joined bytes of messages, end offsets)
        self.tools_enc = {}

    # prompt bytes: ["PromptData",null,null,[sys, m1..mk],tools,null,null,null]
    def _conv_bytes(self, ci: int):
        if ci not in self.enc:
            conv = self.data.convs[ci]
            parts, ends, pos = [], [], 0
            for m in conv.msgs:
                b = encb(m)
                parts.append(b)
                pos += len(b) + 1
                ends.append(pos - 1)
            self.enc[ci] = (b",".join(parts), ends)
            self.tools_enc[ci] = encb(conv.tools) if conv.tools is not None else b"null"
        return self.enc[ci], self.tools_enc[ci]

    def _system_bytes(self, conv: Conversation, repeat: int) -> bytes | None:
        if conv.system is None:
            return None
        content = conv.system
        if self.salt:
            rs = hashlib.blake2b(str(repeat).encode("utf-8"), digest_size=2).hexdigest()
            cs = hashlib.blake2b(conv.cid.encode("utf-8"), digest_size=2).hexdigest()
            content = f"[salt: {rs}]\n\n{content}\n\n[salt: {cs}]"
        return encb({"role": "system", "content": content})

    def prompt(self, inst: AgenticInstance, n_msgs: int) -> Lazy:
        ci = inst.conv
        (joined, ends), tools_b = self._conv_bytes(ci)
        body = memoryview(joined)[:ends[n_msgs - 1]]
        head = b'["PromptData",null,null,['
        if inst.sys_bytes is not None:
            parts = (head, inst.sys_bytes, b",", body, b"],", tools_b, b",null,null,null]")
        else:
            parts = (head, body, b"],", tools_b, b",null,null,null]")
        return Lazy(parts)

    def start(self, t, done_cb):
        self.done_cb = done_cb
        for _ in range(min(self.c, self.budget)):
            t += int(self.s.rng.jitter(20 * US, 0.5))
            self._start_conversation(t)

    def _start_conversation(self, t):
        if self.started >= self.budget:
            return False
        convs = self.data.convs
        ci = self.started % len(convs)
        repeat = self.started // len(convs) + 1
        conv = convs[ci]
        logical = conv.cid if repeat == 1 else f"{conv.cid}__repeat_{repeat}"
        self.started += 1
        inst = AgenticInstance(logical, ci, repeat, self._system_bytes(conv, repeat), self.started - 1)
        self.active[logical] = inst
        self._issue_turn(t, inst)
        return True

    def _response(self, inst: AgenticInstance, turn: int) -> Response:
        rng = self.s.rng
        nth = inst.started_idx
        ans = self.data.convs[inst.conv].answers.get(turn)
        deltas = []
        if ans is not None:
            if ans.get("reasoning_content"):
                deltas += [("reasoning", d) for d in split_deltas(rng, ans["reasoning_content"], 3, 24)]
            if ans.get("content"):
                deltas += [("content", d) for d in split_deltas(rng, ans["content"], 3, 24)]
            calls = []
            for tc in ans.get("tool_calls") or []:
                fn = tc.get("function", {})
                a = fn.get("arguments")
                calls.append((tc.get("id") or call_id(rng), fn.get("name", "f"),
                              a if isinstance(a, str) else json.dumps(a)))
            deltas += tool_call_deltas(rng, calls)
            finish = "tool_calls" if calls else "stop"
        else:
            deltas = [("content", d) for d in split_deltas(rng, "Done.", 2, 4)]
            finish = "stop"
        error = None
        if rng.chance(self.err_rate):
            error = rng.pick([("error", "HTTP 500: Internal Server Error"),
                              ("ServerDisconnectedError", "ServerDisconnectedError('Server disconnected')")])
        # every run has one errored turn (3rd trajectory, 10th turn) and one turn that times out
        # (5th trajectory, 7th turn: the server stalls 90 s past the 60 s turn timeout)
        if nth == 2 and inst.cursor == 10:
            error = ("error", "HTTP 500: Internal Server Error")
        stall = 90 * S if (nth == 4 and inst.cursor == 7) else 0
        r = Response(streaming=True, deltas=deltas, finish=finish, worker=rng.int(0, 15),
                     error=error, error_after_chunks=1 if error else 0, stream_all=False,
                     stall_ns=stall)
        return r

    def _issue_turn(self, t, inst: AgenticInstance):
        conv = self.data.convs[inst.conv]
        turn, n_msgs, _delay = conv.turns[inst.cursor]
        inst.cursor += 1
        resp = self._response(inst, turn)
        in_tok = (conv.turns[inst.cursor - 1][1] * 300)  # rough: history length drives prefill
        uuid = self.s.issue(t, self.prompt(inst, n_msgs), resp, min(in_tok, 20000),
                            conv=inst.logical, turn=turn)
        self.inflight[uuid] = inst
        if self.timeout_ns is not None:
            self.s.sim.at(t + self.timeout_ns, self._timeout, uuid)

    def _timeout(self, uuid):
        inst = self.inflight.pop(uuid, None)
        if inst is None:
            return
        t = self.s.sim.now
        ph = self.s.phase
        conv_turn = ("", None)
        if uuid in ph.index:
            ph.inflight -= 1
            ph.completed.add(uuid)
            conv_turn = ph.conv_info.pop(uuid, ("", None))
        self.s.synthetic_failure(t, uuid, conv_turn[0], conv_turn[1], "TurnTimeout",
                                 f"turn timeout after {self.timeout_ns / S}s")
        self._abort_rest(t + 2 * US, inst, f"prior turn timed out (query={uuid})")
        self._finish(t + 40 * US, inst)

    def _abort_rest(self, t, inst: AgenticInstance, reason: str):
        conv = self.data.convs[inst.conv]
        while inst.cursor < len(conv.turns):
            turn = conv.turns[inst.cursor][0]
            inst.cursor += 1
            sk = self.s.register_skipped(t, inst.logical, turn)
            self.s.synthetic_failure(t + 1 * US, sk, inst.logical, turn, "TurnAbortedByPriorFailure", reason)
            t += 4 * US
        return t

    def _finish(self, t, inst: AgenticInstance):
        self.active.pop(inst.logical, None)
        if self.started >= self.budget and not self.tracking_stopped:
            self.tracking_stopped = True
            ph = self.s.phase
            if not ph.stopped:
                ph.stopped = True
                self.s.session_event(t, "stop_performance_tracking")
            t += 10 * US
        if not self._start_conversation(t + 5 * US):
            if not self.active and not self.inflight and self.done_cb is not None:
                cb, self.done_cb = self.done_cb, None
                self.s.sim.at(t + 20 * US, cb, t + 20 * US)

    def on_complete(self, h, uuid, resp):
        inst = self.inflight.pop(uuid, None)
        if inst is None:
            return
        conv = self.data.convs[inst.conv]
        if resp.error is not None:
            t = self._abort_rest(h + 3 * US, inst, f"prior turn errored: {resp.error[0]}")
            self._finish(t + 5 * US, inst)
            return
        if inst.cursor >= len(conv.turns):
            self._finish(h + 5 * US, inst)
            return
        delay = conv.turns[inst.cursor][2] if self.tool_delay else 0.0
        t = h + int(delay * S) + int(self.s.rng.jitter(10 * US, 0.5))
        if delay > 0:
            self.s.sim.at(t, self._issue_turn_at, inst)
        else:
            self._issue_turn(t, inst)

    def _issue_turn_at(self, inst):
        self._issue_turn(self.s.sim.now, inst)


@scenario("agentic", 400, 1_045_871_263_557_982,
          "agentic multi-turn trajectories (whole history per turn), streaming, salted repeats")
def sc_agentic(data: SharedData, rng: Rng, n: int, t0: int, concurrency: int | None = None) -> Log:
    sim, log = Sim(t0), Log()
    c = concurrency or (4 if n < 5000 else 64)
    server = Server(rng, slots=max(16, c), prefill_ns_per_tok=1_500, itl_ns=14 * MS)
    sess = Session(sim, log, rng, server, workers=16)
    strat = AgenticStrategy(sess, data, n, c, err_rate=0.001, salt=True, tool_delay=True, timeout_s=60.0)
    sess.session_event(t0, "started")
    sess.run_phase(t0 + 4 * MS, Phase("performance", "performance"), strat, True,
                   lambda t: sess.session_event(t + 300 * US, "ended"))
    sim.run()
    return log


@scenario("token_ids", 300, 612_004_998_310_415,
          "SGLang-style pre-tokenized prompts, poisson 40 qps, streaming str output, warmup")
def sc_token_ids(data: SharedData, rng: Rng, n: int, t0: int) -> Log:
    sim, log = Sim(t0), Log()
    server = Server(rng, slots=32, prefill_ns_per_tok=20_000, itl_ns=7 * MS)
    sess = Session(sim, log, rng, server)

    def work(i):
        n_in = int(32 + rng.gamma_int(2) * 400)
        ids = [rng.int(0, 151642) for _ in range(n_in)]
        out = cut(rng, rng.pick(data.prose), 20, 900)
        deltas = [("content", d) for d in split_deltas(rng, out, 2, 12)]
        err = ("TimeoutError", "TimeoutError()") if rng.chance(0.01) else None
        r = Response(streaming=True, deltas=deltas, output=text_output(out), finish=None,
                     worker=rng.int(0, 3), error=err, error_after_chunks=2 if err else 0,
                     stream_all=True, sglang=True)
        return prompt_data(token_ids=ids), r, n_in

    wl = Workload(work)
    sess.session_event(t0, "started")

    def perf(t):
        sess.run_phase(t, Phase("performance", "performance"), TimedStrategy(sess, wl, n, 40.0), True,
                       lambda t2: sess.session_event(t2 + 100 * US, "ended"))

    # warmup: 8 requests at concurrency 4, not drained: late warmup answers land in the perf phase
    sess.run_phase(t0 + 2 * MS, Phase("warmup", "warmup"), ConcurrencyStrategy(sess, wl, 8, 4), False, perf)
    sim.run()
    return log


# -- mixed: everything, and the edge cases of spec §5.8 -------------------------------

def mixed_work(data: SharedData, rng: Rng):
    """Prompts of every kind and outputs of every shape."""
    def work(i):
        k = rng.random()
        worker = rng.int(0, 5)
        if k < 0.25:
            row = data.bfcl[rng.int(0, len(data.bfcl) - 1)]
            return bfcl_prompt(rng, row), bfcl_response(data, rng, row, True, rng.chance(0.5), worker, 0.04), 300
        if k < 0.45:
            row = data.bfcl[rng.int(0, len(data.bfcl) - 1)]
            return bfcl_prompt(rng, row), bfcl_response(data, rng, row, False, False, worker, 0.04), 300
        if k < 0.65:
            prompt = cut(rng, rng.pick(data.documents), 50, 1200)
            out = cut(rng, rng.pick(data.prose), 10, 400)
            deltas = [("content", d) for d in split_deltas(rng, out, 2, 10)]
            return (prompt_data(text=prompt),
                    Response(streaming=True, deltas=deltas, finish=rng.pick(["stop", "stop", "length"]),
                             worker=worker, stream_all=rng.chance(0.5),
                             error=("error", "HTTP 429: Too Many Requests") if rng.chance(0.03) else None),
                    tok_estimate(prompt))
        if k < 0.85:
            ids = [rng.int(0, 128000) for _ in range(rng.int(5, 600))]
            out = cut(rng, rng.pick(data.prose), 10, 300)
            return (prompt_data(token_ids=ids),
                    Response(streaming=False, output=text_output(out), finish=rng.pick(["stop", "length"]),
                             worker=worker, ntok=tok_estimate(out)), len(ids))
        prompt = rng.pick(data.questions)
        out = cut(rng, rng.pick(data.prose), 5, 200)
        return (prompt_data(text=prompt),
                Response(streaming=False, output=text_output(out), finish="stop", worker=worker,
                         ntok=tok_estimate(out)),
                tok_estimate(prompt))
    return work


MALFORMED = [
    b'{"event_type":"sample.complete","timestamp_ns":',                       # truncated
    b'not json at all',
    b'{"event_type":"sample.bogus","timestamp_ns":1,"sample_uuid":"x","conversation_id":"","turn":null,"data":null}',
    b'{"event_type":42,"timestamp_ns":1,"sample_uuid":"","conversation_id":"","turn":null,"data":null}',
    b'{"timestamp_ns":1,"sample_uuid":"","conversation_id":"","turn":null,"data":null}',
    b'{"event_type":"sample.issued","timestamp_ns":"abc","sample_uuid":"x","conversation_id":"","turn":null,"data":null}',
    b'{"event_type":"sample.issued","timestamp_ns":1,"sample_uuid":"x","conversation_id":"","turn":null,"data":["Bogus",1]}',
    b'{"event_type":"sample.complete","timestamp_ns":1,"sample_uuid":"x","conversation_id":"","turn":null,"data":null,"finish_reason":null}',
    b'["sample.issued",1,"x","",null,null]',
    b'{"event_type":"session.started","timestamp_ns":1,"sample_uuid":"","conversation_id":"","turn":"one","data":null}',
    b'{"event_type":"sample.issued","timestamp_ns":1,"sample_uuid":"\xff\xfe","conversation_id":"","turn":null,"data":null}',
    b'{"event_type":"sample.complete","timestamp_ns":1,"sample_uuid":"x","conversation_id":"","turn":null,"data":["TextModelOutput",7,null,null]}',
]


@scenario("mixed", 240, HIGH_T0,
          "warmup, 3 tracking windows + accuracy phase, every prompt/output kind, errors, "
          "every §5.8 edge case reachable through events, unusual and malformed lines")
def sc_mixed(data: SharedData, rng: Rng, n: int, t0: int) -> Log:
    sim, log = Sim(t0), Log()
    server = Server(rng, slots=12, prefill_ns_per_tok=10_000, itl_ns=8 * MS)
    sess = Session(sim, log, rng, server, workers=6)
    wl = Workload(mixed_work(data, rng))
    n1, n2 = n // 3, n // 3
    n3 = n - n1 - n2
    edge: dict = {}

    # a malformed line before anything (session not started: no duration effect)
    log.add(t0 - 1 * MS, Raw(MALFORMED[0]))
    sess.session_event(t0, "started")
    log.rec(t0 + 40 * US, "session.stop_loadgen")                 # defined, ignored by everyone
    log.rec(t0 + 90 * US, "session.started")                     # duplicate STARTED: logged, ignored

    def window1(t):
        sess.run_phase(t, Phase("performance", "performance"),
                       ConcurrencyStrategy(sess, wl, n1, 8), True, accuracy)

    def accuracy(t):
        # between windows: an accuracy phase (untracked ISSUED/COMPLETE)
        log.rec(t + 10 * US, "session.stop_performance_tracking")  # STOP while not tracking
        sess.run_phase(t + 30 * US, Phase("accuracy", "accuracy"),
                       ConcurrencyStrategy(sess, wl, 10, 4), True, window2)

    def window2(t):
        ph = Phase("performance2", "performance")
        strat = ConcurrencyStrategy(sess, wl, n2, 8)
        sess.run_phase(t, ph, strat, True, window3)
        log.rec(t + 200 * US, "session.start_performance_tracking")  # START while tracking: no-op

    def window3(t):
        ph = Phase("performance3", "performance")
        strat = ConcurrencyStrategy(sess, wl, n3, 8)
        edge["w3"] = t
        # drain timed out: STOP comes while two samples are still in flight (they finish later)
        sess.run_phase(t, ph, strat, False, lambda t2: finale(t2))

    def finale(t):
        edge["stop3"] = t
        sim.at(t + 3_705 * S, ended)

    def ended(t=None):
        t = sim.now
        edge["end"] = t
        sess.session_event(t, "ended")

    # warmup: concurrency 4, not drained (late answers are untracked COMPLETEs without conv info)
    sess.run_phase(t0 + 1 * MS, Phase("warmup", "warmup"), ConcurrencyStrategy(sess, wl, 12, 4), False,
                   window1)
    sim.run()

    # ---- explicit edge cases, placed relative to the simulated run ------------------
    recs = [it for _, _, it, _ in log.items if isinstance(it, Rec)]
    starts = [r.ts for r in recs if r.topic == "session.start_performance_tracking"]
    stops = [r.ts for r in recs if r.topic == "session.stop_performance_tracking"]
    w1s, w1e = starts[0], stops[0]
    w2s = starts[1]
    w3s = starts[-1]
    end = edge["end"]

    def U():
        return rng.uuid_hex()

    def sample(t, prompt=None, conv="", turn=None):
        u = U()
        log.rec(t, "sample.issued", uuid=u, conv=conv, turn=turn, data=prompt if prompt is not None else
                prompt_data(text="What is the capital of France?"))
        return u

    t = w1s + 37 * MS
    # (a) duplicate ISSUED (retry) while in flight: ISL fires twice, issued_ns overwritten
    u = sample(t)
    log.rec(t + 2 * MS, "sample.issued", uuid=u, data=prompt_data(text="What is the capital of France?"))
    log.rec(t + 30 * MS, "sample.recv_first", uuid=u)
    log.rec(t + 90 * MS, "sample.complete", uuid=u, data=text_output(["Paris", " is the capital."]),
            finish="stop", worker=0)
    # (b) ERROR after COMPLETE: total failed only
    log.rec(t + 91 * MS, "error.generic", uuid=u, data=error_data("error", "HTTP 499: late"))
    # (c) ERROR for an unknown sample, and errors without a sample (other error topics)
    log.rec(t + 92 * MS, "error.generic", uuid=U(), data=error_data("KeyError", "KeyError('x')"))
    log.rec(t + 93 * MS, "error.loadgen", data=error_data("LoadgenError", "scheduler fell behind"))
    log.rec(t + 94 * MS, "error.session")
    log.rec(t + 95 * MS, "error.client", data=error_data("OSError", "OSError(24, 'Too many open files')"))
    # the logger's own record for a payload it could not decode (EventRecordCodec.on_decode_error)
    log.rec(t + 96 * MS, "error.generic", data=error_data("DecodeError", "Input data was truncated"))
    # (d) events for samples never issued (COMPLETE still counts in total_samples_completed)
    x = U()
    log.rec(t + 97 * MS, "sample.recv_first", uuid=x)
    log.rec(t + 98 * MS, "sample.recv_non_first", uuid=x)
    log.rec(t + 99 * MS, "sample.complete", uuid=x, data=text_output("orphan"), finish="stop", worker=1)
    # (e) COMPLETE before the first chunk (no TTFT, no TPOT), the late chunk is ignored
    u = sample(t + 100 * MS, prompt_data(token_ids=list(range(100, 164))))
    log.rec(t + 160 * MS, "sample.complete", uuid=u, data=text_output(["Early", " answer", " here."]),
            finish="stop", worker=2)
    log.rec(t + 170 * MS, "sample.recv_first", uuid=u)
    # (f) repeated RECV_FIRST (retried stream): two TTFTs, chunk delta between them; TPOT from the 2nd
    u = sample(t + 200 * MS, prompt_data(text="Tell me a joke about compilers."))
    log.rec(t + 240 * MS, "sample.recv_first", uuid=u)
    log.rec(t + 260 * MS, "sample.recv_non_first", uuid=u)
    log.rec(t + 300 * MS, "sample.recv_first", uuid=u)
    log.rec(t + 420 * MS, "sample.complete", uuid=u,
            data=text_output(["Why", " did the compiler", " break up? Too many dangling references."]),
            finish="stop", worker=3)
    # (g) RECV_NON_FIRST before RECV_FIRST: no chunk delta for it; the first chunk then gets one
    u = sample(t + 450 * MS, prompt_data(token_ids=[]))            # (h) empty token ids: ISL 0
    log.rec(t + 470 * MS, "sample.recv_non_first", uuid=u)
    log.rec(t + 480 * MS, "sample.recv_first", uuid=u)
    log.rec(t + 600 * MS, "sample.complete", uuid=u, data=text_output(["single"]), finish="length",
            worker=4)                                               # one chunk: no TPOT
    # (i) prompts without ISL: PromptData(), data null, a non-prompt payload; outputs without OSL
    u = sample(t + 620 * MS, PROMPT_EMPTY)
    log.rec(t + 700 * MS, "sample.complete", uuid=u, data=None, finish="stop", worker=0)
    log.add(t + 710 * MS, Rec("sample.issued", t + 710 * MS, uuid=(u2 := U()), data=None))
    log.rec(t + 800 * MS, "sample.complete", uuid=u2, data=text_output(""), finish="content_filter", worker=1)
    log.add(t + 810 * MS, Rec("sample.issued", t + 810 * MS, uuid=(u3 := U()), data=text_output("not a prompt")))
    log.rec(t + 900 * MS, "sample.complete", uuid=u3, data=text_output([]), finish="function_call", worker=2)
    u4 = sample(t + 910 * MS, prompt_data(text="", token_ids=None,
                                           messages=[{"role": "user", "content": "Hi there"}]))
    log.rec(t + 990 * MS, "sample.complete", uuid=u4, data=error_data("Weird", "payload"), finish="abort",
            worker=3)                                               # unknown finish reason -> other
    u5 = sample(t + 1000 * MS, prompt_data(text="ignored: token ids win", token_ids=[1, 2, 3]))
    log.rec(t + 1100 * MS, "sample.complete", uuid=u5,
            data=text_output("", "Only reasoning, no content.", None), finish="stop", worker=4)
    # (j) structured outputs: tool calls already merged (non-streaming), arguments not JSON, dict arguments
    u6 = sample(t + 1200 * MS, prompt_data(messages=[{"role": "system", "content": "You call tools."},
                                                    {"role": "user", "content": "Weather in Zürich and Paris?"}],
                                          tools=data.bfcl[0]["tools"]))
    log.rec(t + 1300 * MS, "sample.recv_first", uuid=u6)
    log.rec(t + 1450 * MS, "sample.complete", uuid=u6, data=text_output("", None, [
        [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": ""}}],
        [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\""}}],
        [{"index": 0, "function": {"arguments": ": \"Zürich\"}"}}, {"index": 1, "function": {"arguments": "{not json"}}],
    ]), finish="tool_calls", worker=5)
    u7 = sample(t + 1500 * MS, prompt_data(text="Call a tool with dict arguments."))
    log.rec(t + 1600 * MS, "sample.complete", uuid=u7, data=text_output("Sure.", None, [
        {"id": "call_c", "type": "function", "function": {"name": "lookup", "arguments": {"q": "x", "n": 2.5}}},
        {"id": "call_d", "type": "function", "function": {"name": "lookup", "arguments": "[1, 2]"}},
    ]), finish="tool_calls", worker=0)
    # (k) failed sample that had streamed: chunk, ERROR, null COMPLETE
    u8 = sample(t + 1700 * MS, prompt_data(text="Stream then fail."))
    log.rec(t + 1750 * MS, "sample.recv_first", uuid=u8)
    log.rec(t + 1800 * MS, "error.generic", uuid=u8,
            data=error_data("ClientPayloadError", "ClientPayloadError('Response payload is not completed')"))
    log.rec(t + 1800 * MS, "sample.complete", ts=t + 1799 * MS, uuid=u8, worker=1)
    # (l) sample events with an empty uuid: ignored entirely
    log.rec(t + 1900 * MS, "sample.issued", uuid="", data=prompt_data(text="no id"))
    log.rec(t + 1901 * MS, "sample.complete", uuid="", data=text_output("no id"), finish="stop")
    # (m) out-of-order timestamps: negative latency, zero latency, negative TTFT/TPOT
    u9 = sample(t + 2000 * MS)
    log.rec(t + 2001 * MS, "sample.complete", ts=t + 1990 * MS, uuid=u9, data=text_output("Backwards."),
            finish="stop", worker=2)
    u10 = sample(t + 2100 * MS)
    log.rec(t + 2100 * MS, "sample.complete", ts=t + 2100 * MS, uuid=u10, data=text_output("Instant."),
            finish="stop", worker=3)
    u11 = sample(t + 2200 * MS, prompt_data(token_ids=[7] * 40))
    log.rec(t + 2201 * MS, "sample.recv_first", ts=t + 2150 * MS, uuid=u11)
    log.rec(t + 2300 * MS, "sample.complete", ts=t + 2140 * MS, uuid=u11,
            data=text_output(["a", "b c d e f g"]), finish="stop", worker=4)
    # (n) valid but unusual encodings: extra key, short data array, no timestamp, CRLF, \u escapes
    u12 = U()
    log.add(t + 2400 * MS, Raw(('{"event_type":"sample.issued","timestamp_ns":%d,"sample_uuid":"%s",'
                                '"conversation_id":"","turn":null,"data":["PromptData","Short array: caf\\u00e9"],'
                                '"extra_field":{"ignored":[1,2]}}' % (t + 2400 * MS, u12)).encode()))
    log.add(t + 2500 * MS, Raw(('{"sample_uuid":"%s","event_type":"sample.complete","timestamp_ns":%d,'
                                '"data":["TextModelOutput","Reordered keys, no turn."]}\r'
                                % (u12, t + 2500 * MS)).encode()))
    log.add(t + 2510 * MS, Raw(b'{"event_type":"error.generic"}'))  # timestamp defaults to the reader's clock
    log.add(t + 2520 * MS, Raw(b''))                                 # blank line
    # malformed lines mid-run (each one becomes one error.generic record with --bad-lines synthesize)
    for i, bad in enumerate(MALFORMED[1:]):
        log.add(t + 2600 * MS + i * MS, Raw(bad))
    # (o) duplicate ISSUED after STOP for a sample still in flight: tracked_samples_issued +1, no ISL
    ud = sample(w1e - 300 * MS, prompt_data(text="Long running request."))
    log.rec(w1e + 20 * MS, "sample.issued", uuid=ud, data=prompt_data(text="Long running request."))
    log.rec(w1e + 900 * MS, "sample.complete", uuid=ud, data=text_output("Finished after STOP."),
            finish="stop", worker=5)
    # (p) an in-flight sample of window 1 completing during window 2 extends window 1's block
    up = sample(w1e - 200 * MS, prompt_data(text="Very slow request."))
    log.rec(w2s + 3 * S, "sample.complete", uuid=up, data=text_output("Slow."), finish="stop", worker=0)
    # (q) window 3: a straggler beyond the HDR high bound (1 h), a sample that never completes,
    #     and a COMPLETE for a sample issued before tracking started (untracked)
    us_ = sample(w3s + 50 * MS, prompt_data(text="Hour-long request."))
    log.rec(w3s + 50 * MS + 3_700 * S + 40 * US, "sample.complete", ts=w3s + 50 * MS + 3_700 * S, uuid=us_,
            data=text_output("Finally."), finish="length", worker=1)
    sample(w3s + 60 * MS, prompt_data(text="Never answered."))
    uw = U()
    log.rec(t0 + 500 * US, "sample.issued", uuid=uw, data=prompt_data(text="before tracking"))
    log.rec(w3s + 70 * MS, "sample.complete", uuid=uw, data=text_output("untracked"), finish="stop", worker=2)
    # (r) after ENDED (never written by upstream's logger; a concatenated/corrupt log): dropped
    log.tail_items.append((Rec("sample.complete", end + 1 * MS, uuid=U(), data=text_output("after end"),
                               finish="stop"), False))
    log.tail_items.append((Raw(b'{"broken after end'), False))
    return log


@scenario("interrupted", 160, HIGH_T0 + 777_000_000_000,
          "streaming chat with tools killed mid-run: no STOP/ENDED, last line cut (SIGTERM snapshot)")
def sc_interrupted(data: SharedData, rng: Rng, n: int, t0: int) -> Log:
    sim, log = Sim(t0), Log()
    server = Server(rng, slots=16, prefill_ns_per_tok=15_000, itl_ns=10 * MS)
    sess = Session(sim, log, rng, server)
    order = rng.shuffle(range(len(data.bfcl)))

    def work(i):
        row = data.bfcl[order[i % len(order)]]
        return bfcl_prompt(rng, row), bfcl_response(data, rng, row, True, False, rng.int(0, 7), 0.02), 300

    sess.session_event(t0, "started")
    sess.run_phase(t0 + 3 * MS, Phase("performance", "performance"),
                   ConcurrencyStrategy(sess, Workload(work), n, 12), True,
                   lambda t: sess.session_event(t + 150 * US, "ended"))
    sim.run()
    items = log.ordered()
    keep = (len(items) * 7) // 10
    recs = [it for it, _ in items[:keep + 1]]
    log.items = []
    log.tail_items = [(it, True) for it in recs[:keep]]
    last = recs[keep]
    whole = last.head() + b"".join(bytes(p) for p in last.data_parts()) + last.tail()
    log.tail_items.append((Raw(whole[: max(1, len(whole) * 2 // 3)], newline=False), False))
    log.db_limit = (keep // 100) * 100   # SQLWriter commits every 100 records; the rest is lost
    return log


@scenario("spec12", 2, 1_000_000_000, "the literal example of upstream-spec.md §12 (2 samples)")
def sc_spec12(data: SharedData, rng: Rng, n: int, t0: int) -> Log:
    log = Log()
    log.rec(1_000_000_000, "session.started")
    log.rec(1_000_000_100, "session.start_performance_tracking")
    log.rec(1_000_001_000, "sample.issued", uuid="s1", data=prompt_data(token_ids=[1, 2, 3, 4, 5]))
    log.rec(1_000_002_000, "sample.issued", uuid="s2", data=prompt_data(token_ids=[1, 2, 3]))
    log.rec(1_001_501_000, "sample.complete", uuid="s1", finish="stop")
    log.rec(1_002_502_000, "sample.complete", uuid="s2", finish="length")
    log.rec(1_003_000_000, "session.stop_performance_tracking")
    log.rec(1_003_000_500, "session.ended")
    return log


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def generate(name: str, samples: int | None, seed: int, out: Path | None, db: Path | None,
             quiet: bool = False, concurrency: int | None = None) -> dict:
    fn, default_n, t0, _doc = SCENARIOS[name]
    n = samples or default_n
    t_start = time.perf_counter()
    data = SharedData(shared_dir())
    # one stream per scenario and seed; the scenario name keeps streams apart
    seed_mix = int(hashlib.sha256(f"{name}:{seed}".encode()).hexdigest()[:12], 16)
    rng = Rng(seed_mix)
    kw = {"concurrency": concurrency} if concurrency and name == "agentic" else {}
    log = fn(data, rng, n, t0, **kw)
    t_sim = time.perf_counter() - t_start
    info = {"scenario": name, "samples": n, "seed": seed}
    if out is not None:
        lines, size = log.write_jsonl(out)
        info.update(lines=lines, bytes=size)
    if db is not None:
        info["db_rows"] = log.write_db(db, getattr(log, "db_limit", None))
    info["seconds"] = round(time.perf_counter() - t_start, 2)
    info["simulate_seconds"] = round(t_sim, 2)
    if not quiet:
        print("gen_events.py: " + " ".join(f"{k}={v}" for k, v in info.items()), file=sys.stderr)
    return info


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "db2jsonl":
        ap = argparse.ArgumentParser(prog="gen_events.py db2jsonl")
        ap.add_argument("db")
        ap.add_argument("--out", default="-")
        a = ap.parse_args(argv[1:])
        out = Path(a.out if a.out != "-" else "/dev/stdout")
        n = db2jsonl(Path(a.db), out)
        print(f"gen_events.py: db2jsonl rows={n}", file=sys.stderr)
        return 0
    if argv and argv[0] == "list":
        for name, (_fn, n, _t0, doc) in SCENARIOS.items():
            print(f"{name:18} {n:6}  {doc}")
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--samples", type=int, default=None, help="samples to issue (scenario default otherwise)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="events.jsonl", help="JSONL path ('' = none)")
    ap.add_argument("--db", default=None, help="also write upstream's SQLite events table here")
    ap.add_argument("--concurrency", type=int, default=None, help="agentic: target concurrency")
    a = ap.parse_args(argv)
    generate(a.scenario, a.samples, a.seed, Path(a.out) if a.out else None,
             Path(a.db) if a.db else None, concurrency=a.concurrency)
    return 0


if __name__ == "__main__":
    sys.exit(main())
