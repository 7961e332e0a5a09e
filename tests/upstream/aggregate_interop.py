"""`tally aggregate` against upstream's own code (mlcommons/endpoints at the
commit of ../shared/oracle/aggregator): upstream's EventPublisherService,
ReadyCheckReceiver and MetricsSnapshotSubscriber talking to tally's process,
upstream's Report.from_snapshot reading its file, and the intent of
upstream's e2e and signal tests (test_aggregator_e2e.py,
test_signal_handling.py). Run by tests/upstream/run_aggregate.sh, which
sets up the environment (not part of CI).

    python3 aggregate_interop.py TALLY_BIN EVENTS.jsonl[.gz] GOLDEN_DIR batched|record|signals|dropin

GOLDEN_DIR holds upstream's own final_snapshot.json for that log
(tests/data/agg/golden/<case>, made by upstream's aggregator).
"""

import asyncio
import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import upstream_preload  # noqa: F401 - import stubs; before upstream's transport

import msgspec
from inference_endpoint.async_utils.event_publisher import EventPublisherService
from inference_endpoint.async_utils.services.launcher import ServiceConfig, ServiceLauncher
from inference_endpoint.async_utils.services.metrics_aggregator.snapshot import SessionState
from inference_endpoint.async_utils.services.metrics_aggregator.subscriber import MetricsSnapshotSubscriber
from inference_endpoint.async_utils.transport.zmq.context import ManagedZMQContext
from inference_endpoint.async_utils.transport.zmq.ready_check import ReadyCheckReceiver
from inference_endpoint.core.record import EventRecord, EventType, SessionEventType
from inference_endpoint.metrics.report import Report

TALLY, LOG, GOLDEN, CASE = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
results = []


def check(cond, what):
    results.append((bool(cond), what))
    print(("PASS " if cond else "FAIL ") + what, flush=True)
    return cond


def records():
    """The log through upstream's own JSONL reader (evaluation/scoring.py)."""
    dec = msgspec.json.Decoder(type=EventRecord, dec_hook=EventType.decode_hook)
    opener = gzip.open if LOG.endswith(".gz") else open
    with opener(LOG, "rb") as f:
        return [dec.decode(line) for line in f if line.strip()]


def spawn(sock, out, ev_name, met_name, ready_name=None, extra=()):
    cmd = [TALLY, "aggregate", "--socket-dir", sock, "--socket-name", ev_name, "--metrics-socket", met_name,
           "--metrics-output-dir", out, "--streaming", "--early-stopping", "--tokenizer", "qwen3"] + list(extra)
    if ready_name:
        cmd += ["--readiness-path", ready_name, "--readiness-id", "3"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=os.setsid)


def without_clock(text):
    d = json.loads(text)
    d.pop("timestamp_ns")
    d.pop("counter")
    return d


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AGG_MODULE = "inference_endpoint.async_utils.services.metrics_aggregator"


async def launch_dropin(ctx, sock, out, ev_name, met_name):
    """contrib/tally_dropin.py installed (user site of a temporary
    PYTHONUSERBASE) and selected (TALLY_AGGREGATE); then upstream's own
    ServiceLauncher starts `python -m ...metrics_aggregator` with the flags
    the benchmark passes (commands/benchmark/pipeline.py
    _build_aggregator_args, whose module needs the pydantic config)."""
    base = tempfile.mkdtemp(prefix="tally-dropin-")
    os.environ["PYTHONUSERBASE"] = base
    r = subprocess.run([sys.executable, os.path.join(ROOT, "contrib", "tally_dropin.py"), "install", "--user"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "dropin: tally_dropin.py install --user")
    os.environ["TALLY_AGGREGATE"] = TALLY
    args = ["--socket-dir", sock, "--socket-name", ev_name, "--metrics-socket", met_name, "--metrics-output-dir", out,
            "--streaming", "--early-stopping", "--tokenizer", "qwen3", "--drain-timeout", "0.0",
            "--tokenizer-workers", "4"]
    launcher = ServiceLauncher(ctx)
    await launcher.launch([ServiceConfig(module=AGG_MODULE, args=args)], timeout=120.0)
    check(True, "dropin: upstream's ServiceLauncher saw the readiness signal")
    return launcher.procs[0]


async def full_run(batched, dropin=False):
    """Upstream's publisher (batched as the benchmark's, send_threshold 1000,
    or record by record) -> tally aggregate -> upstream's subscriber; the
    file against upstream's aggregator's own, and Report.from_snapshot."""
    tmp = tempfile.mkdtemp(prefix="tally-interop-")
    sock, out = os.path.join(tmp, "s"), os.path.join(tmp, "metrics")
    os.makedirs(out)
    loop = asyncio.get_running_loop()
    with ManagedZMQContext.scoped(socket_dir=sock) as ctx:
        ready_name = "svc_ready_%s" % uuid.uuid4().hex[:8]
        met_name = "metrics_pub_%s" % uuid.uuid4().hex[:8]
        pub = EventPublisherService(ctx, extra_eager=True, send_threshold=1000 if batched else 1)
        sub = MetricsSnapshotSubscriber(met_name, ctx, loop, conflate=False)
        seen = []
        orig = sub.process

        async def keep(items):
            seen.extend(items)
            await orig(items)

        sub.process = keep
        sub.start()
        mode = "dropin" if dropin else "batched" if batched else "record by record"
        if dropin:
            proc = await launch_dropin(ctx, sock, out, pub.socket_name, met_name)
        else:
            receiver = ReadyCheckReceiver(ready_name, ctx, count=1)
            proc = spawn(sock, out, pub.socket_name, met_name, ready_name, extra=["--publish-interval", "0.05"])
        try:
            if not dropin:
                ids = await receiver.wait(timeout=120)
                check(ids == [3], "%s: ReadyCheckReceiver gets identity 3 from tally aggregate" % mode)
            check(os.path.exists(os.path.join(out, ".ready")), "%s: .ready exists when the readiness signal arrives" % mode)
            recs = records()
            live_seen = False
            for k, rec in enumerate(recs):
                pub.publish(rec)
                if isinstance(rec.event_type, SessionEventType):
                    pub.flush()   # session events are flushed at once, as session.py does
                if rec.event_type == SessionEventType.STARTED and not live_seen:
                    # the run is LIVE from here: wait for a tick, so that the e2e test's
                    # "LIVE first, then COMPLETE" holds whatever the speed
                    deadline = time.monotonic() + 60
                    while time.monotonic() < deadline and not any(x.state == SessionState.LIVE for x in seen):
                        await asyncio.sleep(0.02)
                    live_seen = True
            pub.flush()
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and not (sub.latest and sub.latest.state in (SessionState.COMPLETE,
                                                                                          SessionState.INTERRUPTED)):
                await asyncio.sleep(0.05)
            rc = await loop.run_in_executor(None, proc.wait, 300)
            check(rc == 0, "%s: tally aggregate exits 0 after session.ended" % mode)
            check(sub.latest is not None and sub.latest.state == SessionState.COMPLETE,
                  "%s: MetricsSnapshotSubscriber's latest is COMPLETE" % mode)
            states = [s.state for s in seen]
            order = [list(SessionState).index(s) for s in states]
            check(len(seen) >= 2 and order == sorted(order) and SessionState.LIVE in states,
                  "%s: upstream's codec decodes all %d snapshots; LIVE first, states only forward" % (mode, len(seen)))
            path = os.path.join(out, "final_snapshot.json")
            mine = open(path, "rb").read()
            ref = open(os.path.join(GOLDEN, "final_snapshot.json"), "rb").read()
            check(without_clock(mine) == without_clock(ref),
                  "%s: final_snapshot.json equals upstream's aggregator's own (but timestamp_ns, counter)" % mode)
            last = seen[-1] if seen else None
            check(last is not None and last.counter == json.loads(mine)["counter"] and
                  last.n_pending_tasks == 0, "%s: the terminal frame is the file's snapshot, nothing pending" % mode)
            r1 = Report.from_snapshot(json.loads(mine))
            r2 = Report.from_snapshot(json.loads(ref))
            j1, j2 = json.loads(r1.to_json()), json.loads(r2.to_json())
            check(j1 == j2, "%s: Report.from_snapshot(tally's file).to_json() == from upstream's file" % mode)
        finally:
            if proc.poll() is None:
                proc.kill()
            sub.close()
            pub.close()


def signal_tests():
    """test_signal_handling.py's two cases, against tally aggregate."""
    tmp = tempfile.mkdtemp(prefix="tally-interop-")
    for sig in ("SIGTERM", "SIGINT"):
        sock, out = os.path.join(tmp, sig, "s"), os.path.join(tmp, sig, "o")
        os.makedirs(sock)
        os.makedirs(out)
        suffix = uuid.uuid4().hex[:8]
        proc = spawn(sock, out, "events_" + suffix, "metrics_" + suffix, extra=["--drain-timeout", "5",
                                                                                "--tokenizer-workers", "0"])
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not os.path.exists(os.path.join(out, ".ready")):
                time.sleep(0.05)
            check(os.path.exists(os.path.join(out, ".ready")), "%s: .ready appears" % sig)
            final = os.path.join(out, "final_snapshot.json")
            if sig == "SIGTERM":
                os.killpg(proc.pid, signal.SIGTERM)
                rc = proc.wait(30)
                check(rc == 0, "SIGTERM: exit 0 (got %s)" % rc)
                check(os.path.exists(final) and json.load(open(final))["state"] == "interrupted",
                      "SIGTERM: final_snapshot.json with state interrupted")
            else:
                os.killpg(proc.pid, signal.SIGINT)
                time.sleep(1.0)   # upstream's test waits 1 s
                check(proc.poll() is None, "SIGINT: still running after 1 s")
                check(not os.path.exists(final), "SIGINT: no final_snapshot.json")
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()


async def main():
    # one case a process: upstream's scoped context and subscriber are made once a process
    if CASE == "signals":
        signal_tests()
    else:
        await full_run(batched=CASE in ("batched", "dropin"), dropin=CASE == "dropin")
    bad = [w for ok, w in results if not ok]
    print("%d passed, %d failed" % (len(results) - len(bad), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
