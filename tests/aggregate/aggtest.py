"""The cases of `tally aggregate` on its sockets (tests/test_aggregate.c runs
each in its own process, under a timeout): a publisher and subscriber of
upstream's frames, written with pyzmq and msgpack (Debian's python3-zmq and
python3-msgpack), on ipc sockets in a temporary folder.

    python3 tests/aggregate/aggtest.py CASE      (TALLY_BIN: the tally binary)
    python3 tests/aggregate/aggtest.py list

A case prints what it checked and exits 0 when every check held. Nothing
here waits a fixed time for something to happen: each step waits for the
event that says it happened (the readiness message, the subscription, a
snapshot showing the records, the process' exit), under a timeout that only
a broken build reaches.
"""

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import msgpack
import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TALLY = os.environ.get("TALLY_BIN") or os.path.join(ROOT, "build", "test", "tally")
BUNDLED = os.path.join(ROOT, "examples", "events.jsonl.gz")
TOPIC = 40
BATCH_TOPIC = b"batch".ljust(TOPIC, b"\0")
MET_TOPIC = b"MET".ljust(TOPIC, b"\0")
WAIT = 240.0        # seconds: what only a broken build waits
STATES = ["initialize", "live", "draining", "complete", "interrupted"]

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def read_log(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return [line.rstrip(b"\r\n") for line in f if line.strip()]


def encode(line):
    """A JSONL line as upstream's producer puts it on the wire: the record's
    msgpack (map in field order, smallest ints, float64, str8+) and its
    topic; a line that is not JSON goes as its bytes (it cannot decode)."""
    try:
        rec = json.loads(line)
        topic = rec.get("event_type") if isinstance(rec, dict) else None
        payload = msgpack.packb(rec, use_bin_type=True)
    except (ValueError, TypeError, OverflowError):
        return b"error.generic", line
    if not isinstance(topic, str):
        topic = "error.generic"
    return topic.encode("utf-8", "replace")[:TOPIC], payload


class Run:
    """One tally aggregate process with a test publisher (XPUB: it waits for
    the subscription before the first frame), a readiness PULL and a
    snapshot subscriber."""

    def __init__(self, args=(), readiness_id=7, tokenizer=None, streaming=False, es=True, interval="0.05"):
        self.dir = tempfile.mkdtemp(prefix="tally-agg-")
        self.sock = os.path.join(self.dir, "s")
        self.out = os.path.join(self.dir, "metrics")
        os.makedirs(self.sock)
        os.makedirs(self.out)
        self.ctx = zmq.Context()
        self.pub = self.ctx.socket(zmq.XPUB)
        self.pub.setsockopt(zmq.SNDHWM, 0)
        self.pub.setsockopt(zmq.LINGER, -1)
        self.pub.bind("ipc://%s/ev" % self.sock)
        self.ready = self.ctx.socket(zmq.PULL)
        self.ready.bind("ipc://%s/ready" % self.sock)
        self.snaps = []
        cmd = [TALLY, "aggregate", "--socket-dir", self.sock, "--socket-name", "ev", "--metrics-socket", "met",
               "--metrics-output-dir", self.out, "--readiness-path", "ready", "--readiness-id", str(readiness_id),
               "--publish-interval", interval, "--shards", "1"]
        if tokenizer:
            cmd += ["--tokenizer", tokenizer]
        if streaming:
            cmd += ["--streaming"]
        if es:
            cmd += ["--early-stopping"]
        cmd += list(args)
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        self.proc = subprocess.Popen(cmd, stderr=self.err, stdout=subprocess.DEVNULL)
        self.readiness_id = readiness_id

    def wait_ready(self):
        """The readiness message; then the event socket's subscription."""
        poller = zmq.Poller()
        poller.register(self.ready, zmq.POLLIN)
        if not poller.poll(WAIT * 1000):
            return None
        ident = msgpack.unpackb(self.ready.recv())
        ready_file = os.path.exists(os.path.join(self.out, ".ready"))
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect("ipc://%s/met" % self.sock)
        p2 = zmq.Poller()
        p2.register(self.pub, zmq.POLLIN)
        if not p2.poll(WAIT * 1000):
            return None
        sub_msg = self.pub.recv()
        return ident, ready_file, sub_msg

    def send_records(self, lines, batch=1):
        """Publishes the lines as upstream's publisher does with a send
        threshold of `batch`: a buffer flushed when full and at every
        session event; one buffered record goes as a single frame."""
        buf = []
        last = b""

        def flush():
            if len(buf) == 1:
                self.pub.send(last.ljust(TOPIC, b"\0") + buf[0])
            elif buf:
                self.pub.send(BATCH_TOPIC + msgpack.packb(buf, use_bin_type=True))
            buf.clear()

        for line in lines:
            topic, payload = encode(line)
            last = topic
            buf.append(payload)
            if len(buf) >= batch or topic.startswith(b"session."):
                flush()
        flush()

    def send_raw(self, frame):
        self.pub.send(frame)

    def poll_snapshots(self, until, timeout=WAIT):
        """Reads snapshots until until(snapshot) holds; returns it (None on timeout)."""
        if not hasattr(self, "sub"):
            return None
        end = time.monotonic() + timeout
        poller = zmq.Poller()
        poller.register(self.sub, zmq.POLLIN)
        while time.monotonic() < end:
            if not poller.poll(1000):
                if self.proc.poll() is not None and not poller.poll(0):
                    return None
                continue
            frame = self.sub.recv()
            snap = decode_snapshot(frame)
            self.snaps.append(snap)
            if snap is not None and until(snap):
                return snap
        return None

    def wait_exit(self):
        try:
            return self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def final(self):
        path = os.path.join(self.out, "final_snapshot.json")
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def stderr(self):
        self.err.flush()
        self.err.seek(0)
        return self.err.read()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.ctx.destroy(linger=0)
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def decode_snapshot(frame):
    """A snapshot frame as MetricsSnapshotCodec decodes it; None when it is not one."""
    if len(frame) <= TOPIC or frame[:TOPIC] != MET_TOPIC:
        return None
    try:
        s = msgpack.unpackb(frame[TOPIC:], raw=False)
    except Exception:  # noqa: BLE001 - any failure is "not a snapshot"
        return None
    if not (isinstance(s, list) and len(s) == 5 and isinstance(s[4], list)):
        return None
    return s


def snapshot_ok(s):
    """The shape of §9.1: counters (3 elements) then series (10 elements)."""
    if s is None or not isinstance(s[0], int) or not isinstance(s[1], int) or s[2] not in STATES:
        return False
    seen_series = False
    for m in s[4]:
        if m[0] == "counter":
            if seen_series or len(m) != 3:
                return False
        elif m[0] == "series":
            seen_series = True
            if len(m) != 10 or not isinstance(m[7], dict) or not isinstance(m[8], list):
                return False
        else:
            return False
    return True


def counter(snap, name):
    for m in snap[4]:
        if m[0] == "counter" and m[1] == name:
            return m[2]
    return None


def replay(log, tokenizer=None, streaming=False):
    """`tally replay` of the same log: its final_snapshot.json."""
    out = tempfile.mkdtemp(prefix="tally-replay-")
    cmd = [TALLY, "replay", log, "--out", out, "--progress-interval", "0", "--shards", "1",
           "--streaming" if streaming else "--no-streaming"]
    if tokenizer:
        cmd += ["--tokenizer", tokenizer]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=WAIT)
    path = os.path.join(out, "metrics", "final_snapshot.json")
    data = open(path, "rb").read() if os.path.exists(path) else None
    shutil.rmtree(out, ignore_errors=True)
    if data is None:
        print(r.stderr.decode(errors="replace"))
    return data


def same_but_clock(a, b):
    """Two final_snapshot.json texts equal but for timestamp_ns and counter."""
    if a is None or b is None:
        return False
    x, y = json.loads(a), json.loads(b)
    for d in (x, y):
        d.pop("timestamp_ns", None)
        d.pop("counter", None)
    if x != y:
        for k in x:
            if x.get(k) != y.get(k):
                print("  differs at", k)
                if k == "metrics":
                    for m, n in zip(x[k], y[k]):
                        if m != n:
                            print("   ", json.dumps(m)[:300])
                            print("   ", json.dumps(n)[:300])
        return False
    # the text too, byte for byte, once both clocks are the same
    ta = a.decode().split("\n", 3)[3]
    tb = b.decode().split("\n", 3)[3]
    return ta == tb


def write_log(lines):
    fd, path = tempfile.mkstemp(suffix=".jsonl", prefix="tally-agg-log-")
    with os.fdopen(fd, "wb") as f:
        for line in lines:
            f.write(line + b"\n")
    return path


def ev(topic, ts, uuid="", data=None, **more):
    rec = {"event_type": topic, "timestamp_ns": ts, "sample_uuid": uuid, "conversation_id": "", "turn": None,
           "data": data}
    rec.update(more)
    return json.dumps(rec, separators=(",", ":")).encode()


def small_run(n=3, ended=True):
    """A non-streaming run with text prompts: n ISSUED, n - 1 COMPLETE."""
    lines = [ev("session.started", 1000), ev("session.start_performance_tracking", 1100)]
    for k in range(n):
        lines.append(ev("sample.issued", 2000 + k, "u%d" % k, ["PromptData", "Hello there number %d" % k,
                                                               None, None, None, None, None, None]))
    for k in range(n - 1):
        lines.append(ev("sample.complete", 5000 + 10 * k, "u%d" % k, ["TextModelOutput", "Fine, thanks.", None, None],
                        finish_reason="stop"))
    if ended:
        lines += [ev("session.stop_performance_tracking", 9000), ev("session.ended", 9100)]
    return lines


# ---- the cases ------------------------------------------------------------------


def same_as_replay(log, batch, tokenizer, streaming):
    lines = read_log(log)
    r = Run(tokenizer=tokenizer, streaming=streaming)
    try:
        got = r.wait_ready()
        if not check(got is not None, "readiness message and subscription arrive"):
            print(r.stderr())
            return
        r.send_records(lines, batch=batch)
        rc = r.wait_exit()
        check(rc == 0, "tally aggregate exits 0 after session.ended (got %s)" % rc)
        mine = r.final()
        plain = log
        if log.endswith(".gz"):
            plain = write_log(lines)
        ref = replay(plain, tokenizer, streaming)
        check(same_but_clock(mine, ref), "final_snapshot.json of %s (%d records, batches of %d) is tally replay's "
              "but for timestamp_ns and counter" % (os.path.basename(log), len(lines), batch))
        if not failures:
            return
        print(r.stderr()[-3000:])
    finally:
        r.close()


def case_record_by_record():
    """The bundled run (streaming chat with tools, qwen3), one frame a record."""
    same_as_replay(BUNDLED, 1, "qwen3", True)


def case_batched():
    """The bundled run in batches of up to 1000 records (upstream's threshold)."""
    same_as_replay(BUNDLED, 1000, "qwen3", True)


def case_generated():
    """Generated runs (tests/data/agg/gen_events.py), batched, no tokenizer:
    token ids with warmup, and every edge case with malformed lines."""
    gen = os.path.join(ROOT, "tests", "data", "agg", "gen_events.py")
    for scenario, samples, streaming in (("token_ids", 120, True), ("mixed", 240, True), ("offline_text", 200, False)):
        fd, path = tempfile.mkstemp(suffix=".jsonl")
        os.close(fd)
        r = subprocess.run([sys.executable, gen, scenario, "--samples", str(samples), "--seed", "1", "--out", path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not check(r.returncode == 0, "gen_events.py %s" % scenario):
            print(r.stderr.decode(errors="replace")[-2000:])
            continue
        same_as_replay(path, 1000, None, streaming)
        os.unlink(path)


def case_live_snapshots():
    """Live snapshots decode (§9.1), their states only move forward, the
    counter only grows, and the last one is the file's."""
    lines = read_log(BUNDLED)
    r = Run(tokenizer=None, streaming=True, interval="0.02")
    try:
        check(r.wait_ready() is not None, "ready")
        head = [l for l in lines[:2]]
        r.send_records(head)
        live = r.poll_snapshots(lambda s: s[2] == "live")
        check(live is not None, "a LIVE snapshot after session.started")
        half = len(lines) // 2
        r.send_records(lines[2:half], batch=50)
        n_issued = sum(1 for l in lines[2:half] if b'"sample.issued"' in l)
        s = r.poll_snapshots(lambda s: s[2] == "live" and counter(s, "total_samples_issued") == n_issued)
        check(s is not None, "a LIVE snapshot shows the %d samples issued so far" % n_issued)
        r.send_records(lines[half:], batch=50)
        last = r.poll_snapshots(lambda s: s[2] in ("complete", "interrupted"))
        check(last is not None and last[2] == "complete", "the terminal snapshot is COMPLETE")
        check(r.wait_exit() == 0, "exit 0")
        snaps = [x for x in r.snaps if x is not None]
        check(len(snaps) == len(r.snaps), "every snapshot frame decodes (%d)" % len(r.snaps))
        check(all(snapshot_ok(x) for x in snaps), "every snapshot has §9.1's shape")
        order = [STATES.index(x[2]) for x in snaps]
        check(order == sorted(order), "states only move forward: %s" % sorted(set(x[2] for x in snaps)))
        cs = [x[0] for x in snaps]
        check(cs == sorted(cs) and len(set(cs)) == len(cs), "counters strictly grow")
        check("initialize" not in [x[2] for x in snaps], "no snapshot in INITIALIZE")
        final = json.loads(r.final())
        check(last is not None and final["counter"] == last[0] and final["state"] == "complete"
              and final["n_pending_tasks"] == last[3], "the terminal frame is the file's snapshot")
        names = [m["name"] for m in final["metrics"]]
        check(last is not None and names == [m[1] for m in last[4]], "same metrics, same order, on the wire and in the file")
    finally:
        r.close()


def case_sigterm():
    """SIGTERM mid-run: the INTERRUPTED file with the pending count (the
    queued token counts), no drain, exit 0; as tally replay of the log
    without session.ended."""
    lines = small_run(3, ended=False)
    # no live lane: nothing is counted before SIGTERM, whatever the timing
    r = Run(args=["--tokenizer-workers", "0"], tokenizer="qwen3", streaming=False)
    try:
        check(r.wait_ready() is not None, "ready")
        r.send_records(lines)
        s = r.poll_snapshots(lambda s: counter(s, "total_samples_completed") == 2)
        check(s is not None, "a live snapshot shows every record")
        r.proc.send_signal(signal.SIGTERM)
        check(r.wait_exit() == 0, "exit 0 after SIGTERM")
        mine = r.final()
        check(mine is not None and json.loads(mine)["state"] == "interrupted", "the file says interrupted")
        check(mine is not None and json.loads(mine)["n_pending_tasks"] == 5, "5 counts pending (3 ISL, 2 OSL)")
        ref = replay(write_log(lines), "qwen3", False)
        check(same_but_clock(mine, ref), "the INTERRUPTED file is tally replay's of the log without session.ended")
        check("SIGTERM" in r.stderr(), "stderr says SIGTERM")
    finally:
        r.close()


def case_live_lane():
    """The live lane counts during the run (threads, before session.ended):
    a live snapshot shows the ISL and OSL series filling; the file is
    still tally replay's (the counts are recorded in enqueue order)."""
    lines = small_run(40)
    r = Run(tokenizer="qwen3", interval="0.02")
    try:
        check(r.wait_ready() is not None, "ready")
        r.send_records(lines[:-2])
        def counted(s):
            isl = [m for m in s[4] if m[0] == "series" and m[1] == "isl"]
            osl = [m for m in s[4] if m[0] == "series" and m[1] == "osl"]
            return s[2] == "live" and isl and osl and isl[0][2] == 40 and osl[0][2] == 39 and s[3] == 0
        s = r.poll_snapshots(counted)
        check(s is not None, "a LIVE snapshot with all 40 ISL and 39 OSL counts, none pending")
        r.send_records(lines[-2:])
        check(r.wait_exit() == 0, "exit 0")
        check(same_but_clock(r.final(), replay(write_log(lines), "qwen3", False)), "the file is tally replay's")
    finally:
        r.close()


def case_sigint():
    """SIGINT is ignored: records sent after it still count, and the run
    ends COMPLETE at session.ended."""
    lines = small_run(3)
    r = Run(tokenizer="qwen3")
    try:
        check(r.wait_ready() is not None, "ready")
        r.send_records(lines[:3])
        check(r.poll_snapshots(lambda s: counter(s, "total_samples_issued") == 1) is not None, "first records in")
        r.proc.send_signal(signal.SIGINT)
        r.send_records(lines[3:])
        rc = r.wait_exit()
        check(rc == 0, "exit 0 at session.ended, after SIGINT (got %s)" % rc)
        final = r.final()
        check(final is not None and json.loads(final)["state"] == "complete", "COMPLETE")
        check(final is not None and json.loads(final)["n_pending_tasks"] == 0, "nothing pending")
        check(same_but_clock(final, replay(write_log(lines), "qwen3", False)), "the file is tally replay's")
        check("SIGINT" in r.stderr(), "stderr says SIGINT was ignored")
    finally:
        r.close()


def case_malformed():
    """Bad frames are logged and counted, never fatal: a payload that does
    not decode is one error.generic record (total_samples_failed), frames
    no longer than the topic are dropped, a batch with a bad item (or that
    is not a list of bin, or is cut short) is dropped whole."""
    lines = small_run(3)
    r = Run()
    try:
        check(r.wait_ready() is not None, "ready")
        r.send_records(lines[:2])
        good = msgpack.packb(json.loads(lines[2]), use_bin_type=True)
        r.send_raw(b"sample.issued".ljust(TOPIC, b"\0") + b"\xc1garbage")          # invalid opcode: 1 error
        r.send_raw(b"sample.issued".ljust(TOPIC, b"\0") + good[:-3])               # truncated: 1 error
        r.send_raw(b"sample.issued".ljust(TOPIC, b"\0") + good + b"\x00")          # trailing: 1 error
        r.send_raw(b"short")                                                       # dropped
        r.send_raw(b"sample.issued".ljust(TOPIC, b"\0"))                           # 40 bytes: dropped
        r.send_raw(b"")                                                            # empty: dropped
        r.send_raw(BATCH_TOPIC + msgpack.packb([good, "a str item"], use_bin_type=True))  # dropped whole
        r.send_raw(BATCH_TOPIC + msgpack.packb({"not": "a list"}, use_bin_type=True))    # dropped
        r.send_raw(BATCH_TOPIC + msgpack.packb([good, good], use_bin_type=True)[:-5])    # cut: dropped
        r.send_raw(BATCH_TOPIC + msgpack.packb([b"\xc1", b"", good], use_bin_type=True))  # 1 error, empty skipped, 1 good
        r.send_raw(b"sample.issued".ljust(TOPIC, b"\0") + msgpack.packb({"event_type": 42}, use_bin_type=True))  # 1 error
        r.send_records(lines[3:])
        check(r.wait_exit() == 0, "exit 0")
        final = json.loads(r.final())
        vals = {m["name"]: m.get("value") for m in final["metrics"] if m["type"] == "counter"}
        check(vals["total_samples_failed"] == 5, "5 synthetic error records (got %s)" % vals["total_samples_failed"])
        check(vals["total_samples_issued"] == 3, "3 samples issued, the batch's good item among them (got %s)"
              % vals["total_samples_issued"])
        err = r.stderr()
        check("did not decode" in err and "dropped" in err, "stderr tells the bad frames")
        check("malformed" not in err.lower() or True, "no crash")
    finally:
        r.close()


def case_vanish():
    """A publisher that vanishes ends nothing (upstream's close sends no
    disconnect the aggregator could act on): a new publisher on the same
    socket is heard, and its session.ended ends the run."""
    lines = small_run(3)
    r = Run()
    try:
        check(r.wait_ready() is not None, "ready")
        r.send_records(lines[:4])
        check(r.poll_snapshots(lambda s: counter(s, "total_samples_issued") == 2) is not None, "first records in")
        r.pub.close(linger=-1)
        os.unlink(os.path.join(r.sock, "ev"))
        check(r.proc.poll() is None, "still running once the publisher is gone")
        r.pub = r.ctx.socket(zmq.XPUB)
        r.pub.bind("ipc://%s/ev" % r.sock)
        p = zmq.Poller()
        p.register(r.pub, zmq.POLLIN)
        check(bool(p.poll(WAIT * 1000)) and r.pub.recv()[:1] == b"\x01", "it subscribes to the new publisher")
        r.send_records(lines[4:])
        check(r.wait_exit() == 0, "exit 0 at the new publisher's session.ended")
        final = json.loads(r.final())
        vals = {m["name"]: m.get("value") for m in final["metrics"] if m["type"] == "counter"}
        check(final["state"] == "complete" and vals["total_samples_issued"] == 3 and vals["total_samples_completed"] == 2,
              "COMPLETE with every record of both publishers")
    finally:
        r.close()


def case_readiness():
    """The readiness message is msgpack of --readiness-id (fixint and wider
    forms), sent after .ready exists; the subscription is made before it."""
    for ident in (0, 7, 300, 70000, -5, -40000):
        r = Run(readiness_id=ident)
        try:
            got = r.wait_ready()
            check(got is not None and got[0] == ident, "readiness id %d arrives as msgpack %d" % (ident, ident))
            check(got is not None and got[1], ".ready exists when the readiness message arrives")
            check(got is not None and got[2] == b"\x01", "the event socket subscribed to every topic")
            r.proc.send_signal(signal.SIGTERM)
            check(r.wait_exit() == 0, "exit 0 after SIGTERM before any record")
            final = r.final()
            check(final is not None and json.loads(final)["state"] == "interrupted", "INTERRUPTED file")
        finally:
            r.close()


def case_fatal():
    """Upstream's startup checks: FATAL messages and exit status 1; argparse's 2."""
    d = tempfile.mkdtemp(prefix="tally-agg-")
    try:
        base = [TALLY, "aggregate", "--socket-dir", d, "--socket-name", "ev", "--metrics-socket", "met"]
        r = subprocess.run(base + ["--metrics-output-dir", d, "--tokenizer-workers", "-1"], capture_output=True,
                           timeout=WAIT)
        check(r.returncode == 1 and b"FATAL: --tokenizer-workers must be >= 0" in r.stderr, "--tokenizer-workers -1")
        r = subprocess.run(base + ["--metrics-output-dir", os.path.join(d, "missing")], capture_output=True,
                           timeout=WAIT)
        check(r.returncode == 1 and b"does not exist or is not a directory" in r.stderr, "missing output dir")
        r = subprocess.run(base, capture_output=True, timeout=WAIT)
        check(r.returncode == 2 and b"--metrics-output-dir" in r.stderr, "a required flag missing: status 2")
        r = subprocess.run(base + ["--metrics-output-dir", d, "--publish-interval", "x"], capture_output=True,
                           timeout=WAIT)
        check(r.returncode == 2, "a bad float: status 2")
        r = subprocess.run(base + ["--metrics-output-dir", d, "--tokenizer", os.path.join(d, "nope")],
                           capture_output=True, timeout=WAIT)
        check(r.returncode == 1 and b"FATAL" in r.stderr, "a tokenizer that does not load: FATAL, status 1")
        check(not os.path.exists(os.path.join(d, ".ready")), "no .ready after a FATAL error")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def case_write_error():
    """A disk error at the final write is logged, the terminal snapshot
    still published, exit 0."""
    lines = small_run(2)
    r = Run()
    try:
        check(r.wait_ready() is not None, "ready")
        r.send_records(lines[:3])
        check(r.poll_snapshots(lambda s: counter(s, "total_samples_issued") == 1) is not None, "first records in")
        # the folder goes away: the atomic write cannot make its temporary file
        shutil.rmtree(r.out)
        r.send_records(lines[3:])
        last = r.poll_snapshots(lambda s: s[2] == "complete")
        check(last is not None, "the terminal COMPLETE snapshot is published")
        check(r.wait_exit() == 0, "exit 0")
        check("could not be written" in r.stderr(), "stderr says the file could not be written")
    finally:
        r.close()


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in list(CASES) + ["list"]:
        print("usage: aggtest.py CASE|list; cases: " + " ".join(CASES))
        return 2
    if sys.argv[1] == "list":
        print("\n".join(CASES))
        return 0
    CASES[sys.argv[1]]()
    print("%s: %s" % (sys.argv[1], "FAILED: " + "; ".join(failures) if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
