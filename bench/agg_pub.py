"""The publisher of `make bench`'s aggregate part: an event log sent over ipc
to `tally aggregate` as fast as pyzmq sends, in upstream's frames (batches of
1000 records, session events flushed at once), the frames encoded before the
clock starts. Prints key/value lines:

    events N             records sent
    pub_s S              the publisher's send loop while tally takes the frames (its
                         own rate: the ceiling; with no high-water mark the frames
                         queue in ZeroMQ, so it never waits on tally)
    ingest_s S           tally's first frame to session.ended processed (its own clock)
    final_s S            tally's session.ended to final_snapshot.json written
    snapshots N          live snapshots tally published meanwhile

    python3 agg_pub.py TALLY LOG [--tokenizer T] [--streaming]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import msgpack
import zmq

TOPIC = 40
BATCH = b"batch".ljust(TOPIC, b"\0")


def frames(path):
    out, buf, last, n = [], [], b"", 0

    def flush():
        if len(buf) == 1:
            out.append(last.ljust(TOPIC, b"\0") + buf[0])
        elif buf:
            out.append(BATCH + msgpack.packb(buf, use_bin_type=True))
        buf.clear()

    with open(path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            last = rec["event_type"].encode()
            buf.append(msgpack.packb(rec, use_bin_type=True))
            n += 1
            if len(buf) >= 1000 or last.startswith(b"session."):
                flush()
    flush()
    return out, n


def main():
    tally, log = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    fr, n = frames(log)
    ctx = zmq.Context()
    d = tempfile.mkdtemp(prefix="tally-bench-agg-")
    try:
        out = os.path.join(d, "m")
        os.makedirs(out)
        pub = ctx.socket(zmq.XPUB)
        pub.setsockopt(zmq.SNDHWM, 0)
        pub.bind("ipc://%s/ev" % d)
        err = open(os.path.join(d, "err"), "w+")
        proc = subprocess.Popen([tally, "aggregate", "--socket-dir", d, "--socket-name", "ev", "--metrics-socket",
                                 "met", "--metrics-output-dir", out] + extra, stderr=err, stdout=subprocess.DEVNULL)
        pub.recv()   # the subscription: tally is connected
        t = time.perf_counter()
        for f in fr:
            pub.send(f)
        pub_s = time.perf_counter() - t
        rc = proc.wait(3600)
        err.seek(0)
        text = err.read()
        m = re.search(r"(\d+) live snapshots;.*; ([0-9.]+) s to session.ended, ([0-9.]+) s from it to the file", text)
        if rc != 0 or not m or not os.path.exists(os.path.join(out, "final_snapshot.json")):
            sys.stderr.write(text[-3000:])
            return 1
        print("events", n)
        print("pub_s", "%.4f" % pub_s)
        print("ingest_s", m.group(2))
        print("final_s", m.group(3))
        print("snapshots", m.group(1))
        shutil.copyfile(os.path.join(out, "final_snapshot.json"), os.path.join(os.environ.get("BENCH_AGG_KEEP", d),
                                                                               "final_snapshot.json"))
        return 0
    finally:
        ctx.destroy(linger=0)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
