#!/usr/bin/env python3
"""Synthetic goldens for tally's report builder (src/agg/report.c).

Makes final snapshots that upstream's aggregator would write (through its own
MetricsRegistry and snapshot_to_dict) and hand-edited ones that it never would
(edge cases, wrong types, text that is not JSON), runs upstream's real
Report.from_snapshot / to_json / display on each, exactly as the benchmark does
(json.loads of the bytes; display(fn=lambda s: print(s, file=f))), and keeps:

  golden/<case>/final_snapshot.json   the text the report reads
  golden/<case>/opts.json             {"legacy", "git_sha", "run_config", "version"}
  golden/<case>/result_summary.json   Report.to_json(), when upstream accepts the snapshot
  golden/<case>/report.txt            Report.display(), the same
  golden/<case>/error.txt             "ExceptionType: message" when upstream raises
  cases.tsv                           case, expect, where, what
  numbers.jsonl                       Python's answers for report_num.c's arithmetic

expect is "ok" (upstream accepts: tally must give the same bytes), "error"
(upstream raises: tally must refuse, naming `where`) or "deviation" (upstream
accepts a snapshot its own writer never makes and tally refuses it, naming
`where`; report.h lists these).

Run with upstream's environment (the oracle's setup.sh builds it):

  (. ~/.cache/upstream-agg/env.sh && "$PYTHON" tests/data/agg_report/make_golden.py)
  (. ~/.cache/upstream-agg/env.sh && "$PYTHON" tests/data/agg_report/make_golden.py --check)
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import math
import os
import random
import shutil
import struct
import sys
import tempfile

import upstream_preload  # noqa: F401  (the oracle's import stubs; on PYTHONPATH via env.sh)

from inference_endpoint.async_utils.services.metrics_aggregator.aggregator import MetricCounterKey
from inference_endpoint.async_utils.services.metrics_aggregator.registry import MetricsRegistry
from inference_endpoint.async_utils.services.metrics_aggregator.snapshot import (
    SessionState,
    snapshot_to_dict,
)
from inference_endpoint.metrics import report as report_mod
from inference_endpoint.metrics.early_stopping import EarlyStoppingSpec
from inference_endpoint.metrics.report import Report

HERE = os.path.dirname(os.path.abspath(__file__))
NS_HIGH = 3_600_000_000_000
TOK_HIGH = 10_000_000
VERSION = "0.1.0"


# ---- snapshots as upstream's registry builds them ------------------------------------

def registry_snapshot(
    rng: random.Random,
    *,
    n: int = 120,
    streaming: bool = True,
    es: bool = True,
    state: SessionState = SessionState.COMPLETE,
    n_pending: int = 0,
    sig_figs: int = 3,
    buckets: int = 30,
    isl: bool = True,
    osl: bool = True,
    tpot: bool = True,
    latency=None,
    counters: dict | None = None,
) -> dict:
    """A snapshot dict as MetricsAggregatorService registers and fills it."""
    reg = MetricsRegistry(early_stopping=EarlyStoppingSpec() if es else None)
    for key in MetricCounterKey:
        reg.register_counter(key.value)
    ns = dict(hdr_low=1, hdr_high=NS_HIGH, sig_figs=sig_figs, n_histogram_buckets=buckets)
    tok = dict(hdr_low=1, hdr_high=TOK_HIGH, sig_figs=sig_figs, n_histogram_buckets=buckets)
    reg.register_series("sample_latency_ns", tail_latency=True, **ns)
    reg.register_series("isl", **tok)
    reg.register_series("osl", **tok)
    if streaming:
        reg.register_series("ttft_ns", tail_latency=True, **ns)
        reg.register_series("chunk_delta_ns", **ns)
        reg.register_series("tpot_ns", tail_latency=True, dtype=float, **ns)
    lat = latency if latency is not None else [int(rng.lognormvariate(20, 0.6)) for _ in range(n)]
    for v in lat:
        reg.record("sample_latency_ns", v)
    for _ in range(n):
        if isl:
            reg.record("isl", rng.randint(1, 9000))
        o = rng.randint(0, 2000)
        if osl:
            reg.record("osl", o)
        if streaming:
            reg.record("ttft_ns", int(rng.lognormvariate(18, 0.5)))
            reg.record("chunk_delta_ns", int(rng.lognormvariate(15, 0.4)))
            if tpot and o > 1:
                reg.record("tpot_ns", rng.lognormvariate(16, 0.3) / 7)
    done = len(lat)
    c = {
        "total_samples_issued": done + 3, "total_samples_completed": done, "total_samples_failed": 2,
        "tracked_samples_issued": done + 1, "tracked_samples_completed": done, "tracked_samples_failed": 1,
        "tracked_finish_reason_stop": done - 5, "tracked_finish_reason_length": 4,
        "tracked_finish_reason_tool_calls": 1, "tracked_finish_reason_content_filter": 0,
        "tracked_finish_reason_function_call": 0, "tracked_finish_reason_other": 0,
        "tracked_duration_ns": 61_234_567_890, "legacy_loadgen_window_duration_ns": 58_765_432_109,
        "total_duration_ns": 63_000_000_000,
    }
    c.update(counters or {})
    for k, v in c.items():
        reg.set_counter(k, v)
    snap = reg.build_snapshot(state=state, n_pending_tasks=n_pending)
    d = snapshot_to_dict(snap)
    d["timestamp_ns"] = 123456789012345
    return d


def dumps(d) -> str:
    """final_snapshot.json as publish_final writes it."""
    return json.dumps(d, indent=2, allow_nan=False)


def series(d: dict, name: str) -> dict:
    for m in d["metrics"]:
        if m.get("name") == name:
            return m
    raise KeyError(name)


def counter(d: dict, name: str) -> dict:
    return series(d, name)


def drop(d: dict, name: str) -> dict:
    d["metrics"] = [m for m in d["metrics"] if m.get("name") != name]
    return d


_DEFAULT = object()


def hand_series(count, total, vmin, vmax, sum_sq, perc=_DEFAULT, hist=_DEFAULT, es=_DEFAULT,
                name="sample_latency_ns"):
    """A series stat in snapshot_to_dict's key order; any value may be odd."""
    s = {"type": "series", "name": name, "count": count, "total": total, "min": vmin, "max": vmax,
         "sum_sq": sum_sq, "percentiles": {"50.0": vmin} if perc is _DEFAULT else perc}
    if es is not _DEFAULT:
        s["early_stopping_percentiles"] = es
    s["histogram"] = [[[vmin, vmax], count]] if hist is _DEFAULT else hist
    return s


def base_counters(**kw) -> list:
    c = {k.value: 0 for k in MetricCounterKey}
    c.update(kw)
    return [{"type": "counter", "name": k, "value": v} for k, v in c.items()]


def hand_snapshot(series_list, state="complete", n_pending=0, **counters) -> dict:
    return {"counter": 1, "timestamp_ns": 123456789012345, "state": state, "n_pending_tasks": n_pending,
            "metrics": base_counters(**counters) + list(series_list)}


# ---- the cases ------------------------------------------------------------------------

CONCURRENCY = {"load_pattern": {"type": "concurrency", "target_qps": None, "target_concurrency": 16},
               "warmup": {"enabled": False, "n_requests": None, "salt": False, "drain": False,
                          "warmup_random_seed": 42},
               "scheduler_random_seed": 42, "dataloader_random_seed": 42}
POISSON = {"load_pattern": {"type": "poisson", "target_qps": 40.0, "target_concurrency": None,
                            "use_legacy_loadgen_qps_metrics": True},
           "warmup": {"enabled": True, "n_requests": 8, "salt": False, "drain": False, "warmup_random_seed": 42},
           "scheduler_random_seed": 42, "dataloader_random_seed": 42}


def cases():
    """(name, snapshot text, opts, expect, where, what) for every case."""
    out = []

    def add(name, snap, what, *, legacy=False, git_sha=None, run_config=None, expect="ok", where=""):
        text = snap.encode("utf-8") if isinstance(snap, str) else snap if isinstance(snap, bytes) else \
            dumps(snap).encode("utf-8")
        out.append((name, text, {"legacy": legacy, "git_sha": git_sha, "run_config": run_config,
                                 "version": VERSION}, expect, where, what))

    R = lambda seed: random.Random(seed)  # noqa: E731

    # -- what the registry writes ------------------------------------------------------
    add("registry-streaming", registry_snapshot(R(1)), "a streamed run, early stopping on, native window")
    add("registry-legacy", registry_snapshot(R(1)), "the same with the legacy LoadGen window", legacy=True)
    add("registry-legacy-one-done", registry_snapshot(R(2), n=1, counters={"tracked_samples_completed": 1}),
        "legacy on but one completion: the native window", legacy=True)
    add("registry-legacy-no-window", registry_snapshot(R(2), counters={"legacy_loadgen_window_duration_ns": 0}),
        "legacy on, window 0: native", legacy=True)
    add("registry-zero-duration", registry_snapshot(R(3), counters={"tracked_duration_ns": 0}),
        "tracked_duration_ns 0: duration, QPS and TPS None")
    add("registry-zero-duration-legacy", registry_snapshot(R(3), counters={"tracked_duration_ns": 0}),
        "no duration but the legacy window", legacy=True)
    add("registry-negative-duration", registry_snapshot(R(3), counters={"tracked_duration_ns": -5}),
        "a negative duration is no duration")
    add("registry-empty", registry_snapshot(R(4), n=0, counters={k.value: 0 for k in MetricCounterKey}),
        "nothing recorded: every series empty, all-null early-stopping maps")
    add("registry-empty-legacy", registry_snapshot(R(4), n=0, counters={k.value: 0 for k in MetricCounterKey}),
        "nothing recorded, legacy", legacy=True)
    add("registry-nonstreaming", registry_snapshot(R(5), streaming=False), "no TTFT/TPOT series")
    add("registry-no-tokenizer", registry_snapshot(R(5), isl=False, osl=False, tpot=False),
        "empty ISL/OSL (no TPS) and an empty TPOT with its all-null map")
    add("registry-no-es", registry_snapshot(R(6), es=False), "early stopping off: no maps")
    add("registry-7k-es", registry_snapshot(R(7), n=7000), "7000 samples: every estimate set, p99.9 too")
    add("registry-interrupted", registry_snapshot(R(8), state=SessionState.INTERRUPTED, n_pending=17),
        "INTERRUPTED: HDR statistics, pending counts")
    add("registry-interrupted-sig2", registry_snapshot(R(8), state=SessionState.INTERRUPTED, sig_figs=2,
                                                       buckets=12),
        "INTERRUPTED, 2 significant figures, 12 buckets")
    add("registry-complete-pending", registry_snapshot(R(9), n_pending=3), "COMPLETE with pending: incomplete")
    add("registry-draining", registry_snapshot(R(9), state=SessionState.DRAINING), "a DRAINING (live) snapshot")
    add("registry-live", registry_snapshot(R(9), state=SessionState.LIVE, n_pending=2), "a LIVE snapshot")
    add("registry-many-buckets", registry_snapshot(R(10), n=400, buckets=200), "200 histogram buckets")
    add("registry-3-buckets", registry_snapshot(R(10), n=40, buckets=3), "3 histogram buckets")
    add("registry-one-bucket", registry_snapshot(R(10), n=40, buckets=1), "1 histogram bucket")
    add("registry-single-value", registry_snapshot(R(11), n=1), "one sample: std_dev 0")
    add("registry-equal-values", registry_snapshot(R(12), latency=[5_000_000] * 50), "equal values")
    add("registry-straggler", registry_snapshot(R(13), latency=[1_000_000] * 30 + [7_200_000_000_000]),
        "a latency past the HDR bound: sum_sq beyond 2**64")
    add("registry-zero-latencies", registry_snapshot(R(14), latency=[0, 0, -5, 3, 0]),
        "zero and negative latencies (clock skew)")
    add("registry-big-counters", registry_snapshot(R(15), counters={
        "tracked_samples_issued": 2**70, "tracked_samples_completed": 2**66 + 1,
        "tracked_duration_ns": 2**65 + 12345, "legacy_loadgen_window_duration_ns": 2**64 + 1,
        "tracked_finish_reason_stop": 2**90}), "counters beyond 2**64", legacy=True)
    add("registry-big-counters-native", registry_snapshot(R(15), counters={
        "tracked_samples_completed": 10**30 + 7, "tracked_duration_ns": 3}),
        "a huge completion count over 3 ns")

    # -- run_config and version fields ---------------------------------------------------
    base = registry_snapshot(R(20), n=30)
    add("runcfg-concurrency", base, "the concurrency run_config", run_config=CONCURRENCY, git_sha="ea33275")
    add("runcfg-poisson", base, "the poisson run_config, legacy", run_config=POISSON, legacy=True)
    add("runcfg-shapes", base, "every kind of value str() prints", run_config={
        "load_pattern": {"type": "poisson", "target_qps": 1e16, "tiny": 1e-05, "neg": -0.0, "big": 2**80,
                         "list": ["a", "it's", 'say "hi"', "tab\there", "\u00e9\u2028\x7f", None, True, 1.5,
                                  [], {}], "nested": {"k": {"x": [1, {"y": None}]}}, "empty": "",
                         "inf": float("inf")},
        "scalar": 42, "text": "plain text\nwith a newline", "none": None, "flag": False, "float": 0.1,
        "list": [1, "two", 3.0], "empty_dict": {}, "unicode \u00fc": "\U0001f600 \\ back"})
    add("runcfg-empty", base, "run_config {}: falsy, no lines", run_config={})
    add("runcfg-falsy-list", base, "run_config []: falsy, no lines", run_config=[])
    add("runcfg-truthy-list", base, "run_config a non-empty list: display fails", run_config=["a"],
        expect="error", where="run_config")
    add("git-sha-empty", base, "git_sha \"\": falsy, no line", git_sha="")
    add("git-sha-odd", base, "a git_sha with characters to escape", git_sha='ab"c\\d\u00e9')

    # -- hand-made snapshots: numbers -------------------------------------------------------
    hist = lambda lo, hi, c: [[[lo, hi], c]]  # noqa: E731
    add("hand-huge-total", hand_snapshot([hand_series(3, 2**70 + 1, 1, 2**69, float(2**140))],
                                         tracked_samples_completed=3, tracked_duration_ns=10**9),
        "a total beyond 2**64 and its exact avg")
    add("hand-huge-total-osl", hand_snapshot([
        hand_series(2, 10**25, 1, 10**25, 1e50, name="osl"),
        hand_series(2, 5, 1, 4, 17.0)], tracked_samples_completed=2, tracked_duration_ns=7),
        "TPS from a huge OSL total")
    add("hand-int-sum-sq", hand_snapshot([hand_series(4, 10, 1, 4, 30)], tracked_duration_ns=5),
        "sum_sq an int: the exact integer formula")
    add("hand-int-sum-sq-big", hand_snapshot([hand_series(3, 3 * 2**64, 2**64, 2**64 + 1, 3 * 2**128 + 1)]),
        "sum_sq a big int")
    add("hand-int-sum-sq-negative", hand_snapshot([hand_series(3, 30, 1, 20, 5)]),
        "n * sum_sq - total**2 negative: max(0, ...)")
    add("hand-float-count", hand_snapshot([hand_series(2.5, 10.0, 1.0, 8.0, 60.0)]), "a float count")
    add("hand-float-count-int-sums", hand_snapshot([hand_series(2.5, 10, 1, 8, 60)]),
        "a float count with int sums: float arithmetic in the int formula")
    add("hand-count-just-above-1", hand_snapshot([hand_series(1.0000000000000002, 10.0, 1.0, 8.0, 60.0)]),
        "count 1 + 2**-52")
    add("hand-negative-count", hand_snapshot([hand_series(-3, "not used", 1, 2, None, hist=[])]),
        "a negative count: avg and std 0.0, total never computed with")
    add("hand-count-one", hand_snapshot([hand_series(1, 7, 7, 7, 49.0)]), "count 1")
    add("hand-count-true", hand_snapshot([hand_series(True, 7, 7, 7, 49.0, hist=hist(7, 7, True))]),
        "count True (an int)")
    add("hand-bools", hand_snapshot([hand_series(2, True, False, True, True, perc={"50.0": True, "90.0": False},
                                                 hist=[[[False, True], True], [[True, True], False]])]),
        "bools where numbers go")
    add("hand-nulls", hand_snapshot([hand_series(3, 9, None, None, 27.0, perc={"50.0": None, "99.0": 3},
                                                 hist=[[[None, 3], 2], [[3, None], 1]],
                                                 es={"99.0": None, "50.0": 4})]),
        "None min, max, percentiles, edges, estimates: N/A")
    add("hand-no-p50", hand_snapshot([hand_series(3, 9, 1, 6, 40.0, perc={"90.0": 5})]),
        "no p50: median (min + max) / 2")
    add("hand-no-p50-odd", hand_snapshot([hand_series(3, 9, 1, 2**60, 40.0, perc={})]),
        "median of odd ints, exact division")
    add("hand-p50-key", hand_snapshot([hand_series(3, 9, 1, 6, 40.0, perc={"50": 2, "50.0": 3})]),
        "\"50\" before \"50.0\"")
    add("hand-no-percentiles", hand_snapshot([{"type": "series", "name": "sample_latency_ns", "count": 2,
                                              "total": 3, "min": 1, "max": 2, "sum_sq": 5.0}]),
        "no percentiles, histogram, ES: the defaults")
    add("hand-percentiles-empty-list", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc=[])]),
        "percentiles [] (dict([]) is {})")
    add("hand-histogram-empty-dict", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist={})]),
        "histogram {}: no buckets")
    add("hand-hist-zero-counts", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], 0], [[2, 3], 0]])]),
        "every count 0: normalize 1")
    add("hand-hist-negative", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                         hist=[[[1, 2], -4], [[2, 3], -1], [[3, 4], -7.5]])]),
        "negative counts")
    add("hand-hist-quite-negative", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                               hist=[[[1, 2], 9], [[2, 3], -(2**60)]])]),
        "a negative count whose bar still fits an index: \"\"")
    add("hand-hist-min-index", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], 0], [[2, 3], -(2**63)]])]),
        "normalize 1 and a count of -2**63: \"#\" * -2**63 is \"\"")
    add("hand-hist-floats", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                       hist=[[[1.5, 2.25], 0.5], [[2.25, 3e3], 7.25],
                                                             [[3e3, 1e300], 3]])]),
        "float counts and edges")
    add("hand-hist-11", hand_snapshot([hand_series(24, 300, 1, 5, 999.0,
                                                   hist=[[[1, 2], 11], [[2, 3], 13], [[3, 4], 11]]),
                                       hand_series(11, 30, 1, 5, 99.0, name="isl",
                                                   hist=[[[1, 2], 11], [[2, 3], 10], [[3, 4], 1]])]),
        "max 11: 11 * (30 / 11) is 29.999999999999996, a bar of 29")
    add("hand-hist-long-rng", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2, 99, "x"], 2]])]),
        "a bucket of four values: the first two")
    add("hand-hist-big-counts", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                           hist=[[[1, 2], 2**80], [[2, 3], 2**80 - 1],
                                                                 [[3, 4], 2**53 + 1], [[4, 5], 1.5e24]])]),
        "counts beyond 2**53 compared exactly")
    add("hand-huge-floats", hand_snapshot([hand_series(2, 1e300, 1e-300, 1.7976931348623157e308, 1e308,
                                                       perc={"50.0": 5e-324, "99.0": 1e22},
                                                       hist=[[[1e-300, 1e300], 2]])],
                                          tracked_duration_ns=1),
        "extreme floats: .2f of 309 digits")
    add("hand-inf-literal", "{\"state\": \"complete\", \"metrics\": [" + json.dumps(
        hand_series(2, 4, 1, 3, 10.0, perc={"50.0": 2}))[:-1]
        + ", \"sum_sq\": 1e999, \"max\": -1e999}]}",
        "1e999 reads as inf: msgspec null, display inf")
    add("hand-nan-std", dumps(hand_snapshot([hand_series(2, 1.5, 1.0, 2.0, 2.5)])).replace(
        '"sum_sq": 2.5', '"sum_sq": 1e999').replace('"total": 1.5', '"total": 1e999'),
        "inf - inf: NaN, then max(0.0, nan) is 0.0")
    add("hand-negative-zero", hand_snapshot([hand_series(2, -0.0, -0.0, 0.0, 0.0,
                                                         perc={"50.0": -0.0, "90.0": -1e-9},
                                                         hist=[[[-0.0, -0.0], 2]])]),
        "-0.0 and -0.00")
    add("hand-exact-division", hand_snapshot([hand_series(3, 2**60 + 1, 1, 2**60, float(2**121)),
                                              hand_series(7, 10**22 + 1, 1, 10**22, 1e44, name="isl")]),
        "int / int rounds once: not float(a) / float(b)")
    add("hand-es-falsy", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, es=0),
                                        hand_series(0, 0, 0, 0, 0, es=[], name="ttft_ns"),
                                        hand_series(0, 0, 0, 0, 0, es="", name="tpot_ns")]),
        "falsy non-dict early-stopping values")
    add("hand-es-empty-series", hand_snapshot([hand_series(0, 0, 0, 0, 0, es={"99.0": 5.5, "50.0": None})]),
        "an empty series with a filled map")
    add("hand-es-empty-dict", hand_snapshot([hand_series(0, 0, 0, 0, 0, es={}),
                                             hand_series(3, 3, 1, 1, 3.0, es={}, name="isl")]),
        "ES {}: no block")
    add("hand-count-zero-garbage", hand_snapshot([{"type": "series", "name": "sample_latency_ns", "count": 0.0,
                                                   "total": "x", "min": [], "percentiles": None}]),
        "count 0.0: the rest is never read")
    add("hand-count-false", hand_snapshot([{"type": "series", "name": "isl", "count": False, "total": None}]),
        "count False == 0")
    add("hand-osl-es-only", hand_snapshot([hand_series(0, 0, 0, 0, 0, es={"50.0": 1}, name="osl")],
                                          tracked_duration_ns=10**9, tracked_samples_completed=4),
        "an OSL dict with only a map: TPS 0.0")

    # -- hand-made snapshots: structure -------------------------------------------------------
    add("struct-minimal", "{}", "{}: every default (state interrupted)")
    add("struct-counter-strs", hand_snapshot([], tracked_samples_issued="12", tracked_samples_completed=" -0_1_2\n",
                                             tracked_samples_failed="+007", tracked_duration_ns="\u00a0 1_000_000 \u2003",
                                             tracked_finish_reason_stop="9" * 4300, tracked_finish_reason_other="-0"),
        "counters as strs: int() reads them")
    add("struct-metrics-empty-dict", "{\"metrics\": {}, \"state\": \"complete\"}", "metrics {}")
    add("struct-metrics-empty-str", "{\"metrics\": \"\", \"state\": \"complete\"}", "metrics \"\"")
    add("struct-state-odd", "{\"state\": [1, {\"a\": null}], \"n_pending_tasks\": 0.0}",
        "state any value: written as given")
    add("struct-pending-float-zero", "{\"state\": \"complete\", \"n_pending_tasks\": -0.0}", "n_pending -0.0 == 0")
    add("struct-pending-false", "{\"state\": \"complete\", \"n_pending_tasks\": false}", "n_pending False == 0")
    add("struct-pending-str", "{\"state\": \"complete\", \"n_pending_tasks\": \"0\"}", "n_pending \"0\" != 0")
    add("struct-names", "{\"state\": \"complete\", \"metrics\": ["
        "{\"type\": \"counter\", \"name\": 5, \"value\": 3},"
        "{\"type\": \"counter\", \"name\": \"\", \"value\": 3},"
        "{\"type\": \"counter\", \"name\": [], \"value\": 3},"
        "{\"type\": \"gauge\", \"name\": [\"x\"], \"value\": 3},"
        "{\"type\": \"counter\", \"value\": 3},"
        "{\"name\": \"tracked_samples_issued\", \"value\": 99},"
        "{\"type\": \"series\", \"name\": \"tracked_samples_issued\", \"value\": 98},"
        "{\"type\": \"counter\", \"name\": \"tracked_samples_issued\"},"
        "{\"type\": \"counter\", \"name\": \"tracked_samples_failed\", \"value\": 2.9},"
        "{\"type\": \"counter\", \"name\": \"tracked_samples_completed\", \"value\": -2.9},"
        "{\"type\": \"counter\", \"name\": \"tracked_finish_reason_other\", \"value\": true},"
        "{\"type\": \"counter\", \"name\": \"tracked_duration_ns\", \"value\": 1.5e19},"
        "{\"type\": \"counter\", \"name\": \"isl\", \"value\": 4}]}",
        "names that are skipped or never asked for; counter values int() reads")
    dup = registry_snapshot(R(30), n=20)
    dup["metrics"].append({"type": "counter", "name": "tracked_samples_issued", "value": 777})
    dup["metrics"].append(dict(series(dup, "isl"), count=1, total=5, min=5, max=5, sum_sq=25.0,
                               percentiles={"50.0": 5}, histogram=[[[5, 50], 1]]))
    add("struct-duplicate-metrics", dup, "a name twice: the last wins")
    add("struct-duplicate-keys",
        "{\"state\": \"interrupted\", \"state\": \"complete\", \"metrics\": [{\"type\": \"series\", "
        "\"name\": \"isl\", \"count\": 2, \"total\": 3, \"min\": 1, \"max\": 2, \"sum_sq\": 5.0, "
        "\"percentiles\": {\"99.0\": 2, \"50.0\": 1, \"99.0\": 7, \"1.0\": 1}, "
        "\"histogram\": [[[1, 2], 2]], \"count\": 3}]}",
        "repeated keys: the first place, the last value")
    big = {f"p{i}": i for i in range(100)}
    big.update({"p7": "x"})
    add("struct-many-keys", "{\"metrics\": [{\"type\": \"series\", \"name\": \"osl\", \"count\": 1, \"total\": 1, "
        "\"min\": 1, \"max\": 1, \"sum_sq\": 1.0, \"percentiles\": {"
        + ", ".join(f"\"k{i % 70}\": {i}" for i in range(200)) + "}}]}",
        "200 percentile keys, 70 distinct")
    add("struct-unicode-keys", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                          perc={"\u00e9\u00e9": 1, "\U0001f600": 2, "1234567": 3,
                                                                "a\"b": 4, "\x01": 5},
                                                          es={"\u00fc": 1})]),
        "keys padded by code points, escaped by msgspec")
    add("struct-compact-text", json.dumps(registry_snapshot(R(31), n=10), separators=(",", ":")),
        "the same snapshot in compact JSON")
    add("struct-whitespace", "\n\t {\"state\" : \"complete\" }\r\n ", "whitespace around the document")

    # -- what upstream refuses ------------------------------------------------------------------
    e = lambda name, snap, what, where, **kw: add(name, snap, what, expect="error", where=where, **kw)  # noqa
    good = dumps(registry_snapshot(R(40), n=10))
    e("bad-truncated", good[: len(good) // 2], "cut in the middle", "not JSON")
    e("bad-empty", "", "empty text", "not JSON")
    e("bad-trailing", "{} {}", "two documents", "not JSON")
    e("bad-list", "[]", "a list", "a list, not an object")
    e("bad-null", "null", "null", "NoneType, not an object")
    e("bad-metrics-null", "{\"metrics\": null}", "metrics null", "metrics")
    e("bad-metrics-int", "{\"metrics\": 5}", "metrics 5", "metrics")
    e("bad-metrics-str", "{\"metrics\": \"abc\"}", "metrics a str", "metrics")
    e("bad-metrics-dict", "{\"metrics\": {\"a\": 1}}", "metrics a dict", "metrics")
    e("bad-stat-list", "{\"metrics\": [[1]]}", "a stat that is a list", "metrics[0]")
    e("bad-name-unhashable", "{\"metrics\": [{\"type\": \"counter\", \"name\": [\"x\"], \"value\": 1}]}",
      "an unhashable name", "metrics[0].name")
    e("bad-counter-null", hand_snapshot([], tracked_samples_issued=None), "int(None)", "tracked_samples_issued")
    e("bad-counter-list", hand_snapshot([], tracked_duration_ns=[1]), "int([1])", "tracked_duration_ns")
    e("bad-counter-str", hand_snapshot([], tracked_samples_failed="abc"), "int(\"abc\")", "tracked_samples_failed")
    e("bad-counter-inf", "{\"metrics\": [{\"type\": \"counter\", \"name\": \"tracked_samples_completed\", "
      "\"value\": 1e999}]}", "int(inf)", "tracked_samples_completed")
    for i, bad in enumerate(["1__2", "_1", "1_", "", " ", "+", "0x10", "1.5", "1e3", "- 1", "\u00a0"]):
        e(f"bad-counter-str-{i}", hand_snapshot([], tracked_samples_issued=bad), f"int({bad!r})",
          "tracked_samples_issued")
    e("bad-counter-str-digits", hand_snapshot([], tracked_samples_issued="9" * 4301), "int() of 4301 digits",
      "tracked_samples_issued")
    e("bad-counter-fr", hand_snapshot([], tracked_finish_reason_length={}), "int({})",
      "tracked_finish_reason_length")
    e("bad-count-null", hand_snapshot([hand_series(None, 1, 1, 1, 1.0)]), "count None", "count")
    e("bad-count-str", hand_snapshot([hand_series("5", 1, 1, 1, 1.0)]), "count a str", "count")
    e("bad-total-null", hand_snapshot([hand_series(2, None, 1, 1, 1.0)]), "total None", "total")
    e("bad-total-list", hand_snapshot([hand_series(2, [1], 1, 1, 1.0)]), "total a list", "total")
    e("bad-sum-sq-str", hand_snapshot([hand_series(2, 3, 1, 2, "5")]), "sum_sq a str", "sum_sq")
    e("bad-sum-sq-null-int-total", hand_snapshot([hand_series(2, 3, 1, 2, None)]), "sum_sq None", "sum_sq")
    e("bad-min-str", hand_snapshot([hand_series(2, 3, "1", 2, 5.0)]), "min a str", "min")
    e("bad-max-list", hand_snapshot([hand_series(2, 3, 1, [2], 5.0)]), "max a list", "max")
    e("bad-median-fallback-null", hand_snapshot([hand_series(2, 3, None, 2, 5.0, perc={})]),
      "None + 2 for the median", "min")
    e("bad-percentiles-null", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc=None)]), "percentiles None",
      "percentiles")
    e("bad-percentiles-int", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc=7)]), "percentiles 7", "percentiles")
    e("bad-percentiles-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc="50.0")]), "percentiles a str",
      "percentiles")
    e("bad-percentile-value", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc={"50.0": 1, "90.0": "x"})]),
      "a percentile value that is a str", "percentiles value")
    e("bad-median-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc={"50.0": "1"})]), "median a str",
      "median")
    e("bad-hist-null", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=None)]), "histogram None", "histogram")
    e("bad-hist-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist="ab")]), "histogram a str", "histogram")
    e("bad-hist-dict", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist={"ab": 1, "cd": 2})]),
      "histogram a dict", "histogram")
    e("bad-hist-entry-short", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2]]])]),
      "an entry of one item", "histogram[0]")
    e("bad-hist-entry-long", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], 1], [[1, 2], 1, 5]])]),
      "an entry of three items", "histogram[1]")
    e("bad-hist-entry-null", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[None])]), "an entry None",
      "histogram[0]")
    e("bad-hist-entry-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=["ab"])]), "an entry \"ab\"",
      "histogram[0]")
    e("bad-hist-entry-dict", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[{"lo": 1, "hi": 2}])]),
      "an entry of two keys: strs as edges", "histogram[0]")
    e("bad-hist-rng-short", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1], 2]])]), "rng of one item",
      "histogram[0][0]")
    e("bad-hist-rng-int", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[5, 2]])]), "rng an int",
      "histogram[0][0]")
    e("bad-hist-rng-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[["ab", 2]])]), "rng a str",
      "histogram[0][0]")
    e("bad-hist-rng-dict", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[{"0": 1, "1": 2}, 2]])]),
      "rng a dict", "histogram[0][0]")
    e("bad-hist-edge-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, "2"], 2]])]), "an edge a str",
      "edge")
    e("bad-hist-count-null", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], 1], [[2, 3], None]])]),
      "a count None", "histogram count")
    e("bad-hist-count-single-null", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], None]])]),
      "the only count None", "histogram count")
    e("bad-hist-count-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], "5"]])]),
      "a count a str", "histogram count")
    e("bad-hist-count-inf", "{\"metrics\": [" + json.dumps(hand_series(2, 3, 1, 2, 5.0))[:-1]
      + ", \"histogram\": [[[1, 2], 1e999], [[2, 3], 1]]}]}", "a count inf: inf * 0.0 is NaN", "count")
    e("bad-hist-count-neg-inf", "{\"metrics\": [" + json.dumps(hand_series(2, 3, 1, 2, 5.0))[:-1]
      + ", \"histogram\": [[[1, 2], -1e999], [[2, 3], 1]]}]}", "a count -inf", "count")
    e("bad-hist-count-huge", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, hist=[[[1, 2], 10**400], [[2, 3], 1]])]),
      "float(10**400)", "count")
    e("bad-hist-count-very-negative", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                                 hist=[[[1, 2], 9], [[2, 3], -(2**62)]])]),
      "\"#\" * -1.5e19: not an index-sized integer", "histogram count")
    e("bad-hist-count-very-negative-int", hand_snapshot([hand_series(2, 3, 1, 2, 5.0,
                                                                     hist=[[[1, 2], 0], [[2, 3], -(2**63) - 1]])]),
      "\"#\" * (-2**63 - 1) with normalize 1", "histogram count")
    e("bad-es-truthy-int", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, es=5)]), "ES map 5", "early_stopping")
    e("bad-es-list", hand_snapshot([hand_series(0, 0, 0, 0, 0, es=[1])]), "ES map [1]", "early_stopping")
    e("bad-es-value-str", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, es={"50.0": "x"})]), "an estimate a str",
      "early_stopping_percentiles value")
    e("bad-int-digits", "{\"metrics\": [], \"x\": " + "7" * 4301 + "}", "an int of 4301 digits anywhere",
      "4301 digits")
    add("int-4300-digits", "{\"metrics\": [], \"x\": " + "7" * 4300 + "}", "an int of 4300 digits: accepted")
    e("bad-duration-overflow", hand_snapshot([], tracked_duration_ns=10**400), "float(10**400) / 1e9",
      "tracked_duration_ns")
    e("bad-duration-overflow-legacy", hand_snapshot([], tracked_duration_ns=10**400, tracked_samples_completed=5,
                                                     legacy_loadgen_window_duration_ns=100),
      "display's duration_ns / 1e9", "duration_ns", legacy=True)
    e("bad-completed-overflow", hand_snapshot([], tracked_duration_ns=5, tracked_samples_completed=10**400),
      "float(10**400)", "completed")
    e("bad-tps-total-null", hand_snapshot([hand_series(-1, None, 1, 2, 5.0, name="osl")], tracked_duration_ns=5),
      "TPS from a None total", "total")
    e("bad-total-square-overflow", hand_snapshot([hand_series(2, 10**200, 1, 2, 5.0)]),
      "total * total / n too large for a float", "total * total / n")
    e("bad-avg-overflow", hand_snapshot([hand_series(1, 10**400, 1, 2, 5.0)]), "10**400 / 1 too large",
      "total / count")
    e("bad-min-overflow", hand_snapshot([hand_series(2, 3, 10**400, 2, 5.0)]), "float(10**400) * 1e-6", "min")
    e("bad-count-huge", hand_snapshot([hand_series(10**400, 1, 1, 1, 1.0)]),
      "count 10**400: avg 1 / 10**400 is 0.0, but float(n - 1) overflows", "n - 1")
    e("bad-int-path-overflow", hand_snapshot([hand_series(3, 3, 1, 2, 10**400)]),
      "math.sqrt of an int too large", "sum_sq")
    e("bad-surrogate-key", "{\"metrics\": [" + json.dumps(hand_series(2, 3, 1, 2, 5.0))[:-1].replace(
        '"50.0"', '"\\ud800"') + "}]}", "a lone surrogate in a key msgspec writes", "not JSON")
    e("bad-utf8", b"{\"state\": \"\xff\"}", "invalid UTF-8", "not JSON")

    # -- what upstream takes and tally does not (report.h) --------------------------------------
    d = lambda name, snap, what, where, **kw: add(name, snap, what, expect="deviation", where=where, **kw)  # noqa
    d("dev-nan-literal", "{\"metrics\": [" + json.dumps(hand_series(2, 3, 1, 2, 5.0))[:-1]
      + ", \"percentiles\": {\"50.0\": NaN}}]}", "a NaN literal (json.loads takes it)", "not JSON")
    d("dev-infinity-literal", "{\"metrics\": [], \"x\": -Infinity}", "an -Infinity literal", "not JSON")
    d("dev-counter-unicode-digits", hand_snapshot([], tracked_samples_issued="\u0661\u0662"),
      "int() of Arabic-Indic digits is 12", "tracked_samples_issued")
    d("dev-percentiles-pairs", hand_snapshot([hand_series(2, 3, 1, 2, 5.0, perc=[["50.0", 1], ["90.0", 2]])]),
      "percentiles a list of pairs", "percentiles")
    d("dev-bom", "\ufeff{\"state\": \"complete\"}", "a UTF-8 byte order mark", "not JSON")
    d("dev-surrogate-ignored", "{\"metrics\": [], \"x\": \"\\udc00\"}", "a lone surrogate nothing writes",
      "not JSON")
    return out


# ---- running upstream's report ------------------------------------------------------------

def run_report(raw: bytes, opts: dict):
    """(summary bytes, report bytes, None) or (None, None, the exception), as
    pipeline.py and execute.py get them: json.loads of the file's bytes."""
    info = {"version": opts["version"], "git_sha": opts["git_sha"]}
    report_mod.get_version_info = lambda: info
    try:
        snap = json.loads(raw)
        rep = Report.from_snapshot(snap, run_config=opts["run_config"],
                                   use_legacy_loadgen_qps_metrics=opts["legacy"])
        summary = rep.to_json()
        f = io.StringIO()
        rep.display(fn=lambda s: print(s, file=f))
        return summary, f.getvalue().encode("utf-8"), None
    except Exception as exc:  # noqa: BLE001 - the exception is the golden
        return None, None, f"{type(exc).__name__}: {exc}"


def write_cases(dest: str) -> None:
    gold = os.path.join(dest, "golden")
    if os.path.isdir(gold):
        shutil.rmtree(gold)
    os.makedirs(gold)
    rows = ["case\texpect\twhere\twhat"]
    for name, raw, opts, expect, where, what in cases():
        d = os.path.join(gold, name)
        os.makedirs(d)
        with open(os.path.join(d, "final_snapshot.json"), "wb") as f:
            f.write(raw)
        with open(os.path.join(d, "opts.json"), "w", encoding="utf-8") as f:
            # (an infinity as 1e999, which json.loads reads back as inf: strict JSON)
            f.write(json.dumps(opts, indent=2, ensure_ascii=False).replace("Infinity", "1e999") + "\n")
        summary, report, exc = run_report(raw, opts)
        if exc is None:
            with open(os.path.join(d, "result_summary.json"), "wb") as f:
                f.write(summary)
            with open(os.path.join(d, "report.txt"), "wb") as f:
                f.write(report)
        else:
            with open(os.path.join(d, "error.txt"), "w", encoding="utf-8") as f:
                f.write(exc + "\n")
        accepted = exc is None
        if (expect == "error") == accepted:
            sys.exit(f"make_golden.py: {name}: expected {expect}, upstream {'accepts' if accepted else 'raises ' + exc}")
        rows.append(f"{name}\t{expect}\t{where}\t{what}")
    with open(os.path.join(dest, "cases.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    write_numbers(os.path.join(dest, "numbers.jsonl"))


# ---- Python's arithmetic, for report_num.c ----------------------------------------------------

def write_numbers(path: str) -> None:
    """One JSON line per operation: {"op", "a", "b", "r"}; ints as decimal
    strings, floats as {"f": repr}; r an int, a float or an exception name."""
    rng = random.Random(99)
    enc = lambda v: {"f": repr(v)} if isinstance(v, float) else str(v)  # noqa: E731
    lines = []

    def do(op, a, b=None):
        try:
            if op == "float":
                r = float(a)
            elif op == "div":
                r = a / b
            elif op == "mul":
                r = a * b
            elif op == "add":
                r = a + b
            elif op == "sub":
                r = a - b
            elif op == "cmp":
                r = (a > b) - (a < b) if not (a != a or b != b) else 2
            elif op == "int":
                r = int(a)
            elif op == "str":
                r = str(a)
            else:
                raise ValueError(op)
            res = enc(r) if op != "str" else {"s": r}
        except (OverflowError, ZeroDivisionError, ValueError) as exc:
            res = {"exc": type(exc).__name__}
        lines.append(json.dumps({"op": op, "a": enc(a), "b": enc(b) if b is not None else None, "r": res}))

    def rint(bits):
        return rng.getrandbits(bits) | (1 << (bits - 1)) if bits else 0

    specials = [0, 1, -1, 2**53 - 1, 2**53, 2**53 + 1, 2**53 + 2, 2**53 + 3, 2**54 + 2, 2**54 + 6,
                2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1, -(2**63), 2**1023, 2**1024 - 2**970 - 1,
                2**1024 - 2**970, 2**1024 - 2**971, 2**1024, 10**308, 10**309, 3 * 2**127 + 1]
    for v in specials:
        do("float", v)
        do("float", -v)
        do("str", v)
    for bits in list(range(1, 80)) + [100, 127, 128, 129, 500, 1000, 1023, 1024, 1025, 2000, 14000]:
        for _ in range(6 if bits < 2000 else 1):
            v = rint(bits)
            do("float", v)
            do("str", v * rng.choice([1, -1]))
    for k in range(1200):
        sizes = [1, 5, 30, 53, 54, 60, 64, 65, 100, 200] + ([1100] if k < 150 else [])
        a = rint(rng.choice(sizes)) * rng.choice([1, -1])
        b = rint(rng.choice(sizes)) * rng.choice([1, -1])
        do("div", a, b)
        do("mul", a, b)
        do("add", a, b)
        do("sub", a, b)
    for a, b in [(0, 5), (0, -5), (5, 0), (1, 3), (2, 3), (10**400, 10**399), (1, 10**400), (-1, 10**400),
                 (10**330, 1), (2**1024, 2), (2**1025, 2), (3 * 2**1023, 2**-0 * 2), (1, 2**1074), (1, 2**1075),
                 (3, 2**1076), (2**60 + 1, 3), (10**22 + 1, 7), (30, 49), (30, 7), (7, 30)]:
        do("div", a, b)
    floats = [0.0, -0.0, 0.5, -0.5, 1.5, 2.0**53, 2.0**53 + 2, 2.0**63, 2.0**64, 1e300, -1e300, 1e-300,
              5e-324, float("inf"), float("-inf"), 9.2e18, 9.3e18, -9.3e18, 123456.789]
    for f in floats:
        do("int", f)
        for v in [0, 1, -1, 2**53, 2**53 + 1, 2**63, 2**64, 10**300, 10**309, -(10**309)]:
            do("cmp", v, f)
            do("cmp", f, v)
            do("mul", v, f)
            do("div", v, f)
            do("add", v, f)
    for _ in range(600):
        f = rng.choice([rng.random() * 10 ** rng.randint(-30, 60), rng.random() * 10 ** rng.randint(60, 300), -rng.random() * 10 ** rng.randint(-5, 30),
                        float(rng.getrandbits(70))])
        do("int", f)
        v = int(f) + rng.choice([-1, 0, 0, 1])
        do("cmp", v, f)
        do("mul", v, 1e-06)
        do("div", v, 1e9)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def main() -> int:
    logging.disable(logging.WARNING)   # the registry's warn-once clamping notes
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="rebuild elsewhere and compare with the committed files")
    args = ap.parse_args()
    if not args.check:
        write_cases(HERE)
        print(f"make_golden.py: {len(cases())} cases written to {HERE}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write_cases(tmp)
        rc = os.system(f"diff -r '{tmp}/golden' '{HERE}/golden' && cmp '{tmp}/cases.tsv' '{HERE}/cases.tsv' "
                       f"&& cmp '{tmp}/numbers.jsonl' '{HERE}/numbers.jsonl'")
        print("make_golden.py --check:", "same" if rc == 0 else "DIFFERENT")
        return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
