"""Golden cases for src/agg/series.c, made with upstream's own SeriesSampler
(mlcommons/endpoints at ea33275, metrics_aggregator/registry.py, with hdrh
and numpy of the reference environment of ../shared/oracle/aggregator):
each case records its values into a sampler and keeps what
_metric_to_dict(build_stat(exact=...)) gives, the dict the snapshot's JSON
is written from.

  (. ~/.cache/upstream-agg/env.sh && "$PYTHON" tests/data/agg_series/make_golden.py)

writes tests/data/agg_series/cases.jsonl, one case a line:

  {"case", "dtype": "int"|"float", "hdr_low", "hdr_high", "sig_figs",
   "n_buckets", "early_stopping", "values": [...],
   "live": HDR stat, "final": exact stat,
   "more": [...], "live2", "final2"}      (the last three in some cases)

"live" is build_stat(exact=False) after the values, "final" then
build_stat(exact=True) (which sorts the raw values in place); where "more"
is present those values are recorded after that and "live2" and "final2"
taken the same way. Values are in the file itself (floats as repr, which
reads back exactly). Random cases use random.Random(seed): a rerun writes
the same file."""
import json
import math
import os
import random
import sys

from inference_endpoint.async_utils.services.metrics_aggregator.registry import (
    DEFAULT_PERCENTILES,
    SeriesSampler,
)
from inference_endpoint.async_utils.services.metrics_aggregator.snapshot import _metric_to_dict
from inference_endpoint.metrics.early_stopping import EarlyStoppingSpec

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.jsonl")

NS_HIGH = 3600 * 1000 * 1000 * 1000      # aggregator.py _NS_HDR_HIGH
TOK_HIGH = 10_000_000                    # registry.py TOKEN_HDR_HIGH
I64_MAX = 2**63 - 1
I64_MIN = -(2**63)

cases = []


def case(name, values, *, dtype=int, low=1, high=NS_HIGH, sig=3, buckets=30, es=True, more=None):
    if dtype is float:
        values = [float(v) for v in values]
        more = None if more is None else [float(v) for v in more]
    cases.append(dict(case=name, dtype=dtype, low=low, high=high, sig=sig, buckets=buckets, es=es,
                      values=values, more=more))


def sampler(c):
    return SeriesSampler(
        "s",
        hdr_low=c["low"],
        hdr_high=c["high"],
        sig_figs=c["sig"],
        n_histogram_buckets=c["buckets"],
        percentiles=DEFAULT_PERCENTILES,
        dtype=c["dtype"],
        es_spec=EarlyStoppingSpec() if c["es"] else None,
    )


def stats(s):
    live = _metric_to_dict(s.build_stat(exact=False))
    final = _metric_to_dict(s.build_stat(exact=True))
    return live, final


def build(c):
    s = sampler(c)
    for v in c["values"]:
        s.record(v)
    live, final = stats(s)
    row = {
        "case": c["case"],
        "dtype": c["dtype"].__name__,
        "hdr_low": c["low"],
        "hdr_high": c["high"],
        "sig_figs": c["sig"],
        "n_buckets": c["buckets"],
        "early_stopping": c["es"],
        "values": c["values"],
        "live": live,
        "final": final,
    }
    if c["more"] is not None:
        for v in c["more"]:
            s.record(v)
        row["more"] = c["more"]
        row["live2"], row["final2"] = stats(s)
    return row


# ---- values ------------------------------------------------------------------

def lognormal_ints(seed, n, median, sigma, lo=None):
    r = random.Random(seed)
    out = [int(r.lognormvariate(math.log(median), sigma)) for _ in range(n)]
    return out if lo is None else [max(lo, v) for v in out]


def uniform_ints(seed, n, lo, hi):
    r = random.Random(seed)
    return [r.randint(lo, hi) for _ in range(n)]


def tpot_like(seed, n):
    """(complete_ns - recv_first_ns) / tokens, as TpotTrigger computes it:
    a true division of two ints."""
    r = random.Random(seed)
    out = []
    for _ in range(n):
        tokens = r.randint(1, 2000)
        out.append(int(r.lognormvariate(math.log(2e7), 0.8)) * tokens // 100 / tokens)
    return out


# ---- the cases ---------------------------------------------------------------

for dtype in (int, float):
    t = dtype.__name__
    for es in (True, False):
        case(f"{t}-empty-es{int(es)}", [], dtype=dtype, es=es)
        case(f"{t}-one-es{int(es)}", [1500000], dtype=dtype, es=es)
    case(f"{t}-one-zero", [0], dtype=dtype)
    case(f"{t}-one-negative", [-5], dtype=dtype)
    case(f"{t}-one-at-high", [NS_HIGH], dtype=dtype)
    case(f"{t}-one-above-high", [NS_HIGH + 1], dtype=dtype)
    case(f"{t}-zeros-10", [0] * 10, dtype=dtype)
    case(f"{t}-zeros-1000", [0] * 1000, dtype=dtype)
    case(f"{t}-negatives", [-1, -100, 5, 10, -7, 3], dtype=dtype)
    case(f"{t}-all-negative", [-3, -2, -1, -1000000], dtype=dtype)
    case(f"{t}-ones", [1] * 50, dtype=dtype)
    case(f"{t}-below-low-1000", [1, 500, 999, 1000, 1001, 5000, 0, -3], dtype=dtype, low=1000, high=10**9)
    case(f"{t}-tok-above-high", [1, 5, 10**7, 10**7 + 1, 5 * 10**7, 123456789], dtype=dtype, high=TOK_HIGH)
    case(f"{t}-ns-above-high", [10, 5 * 10**12, 3 * 10**12, NS_HIGH, NS_HIGH - 1], dtype=dtype)
    case(f"{t}-duplicates", [7] * 300 + [8] * 200 + [1000] * 5, dtype=dtype)
    case(f"{t}-two", [3, 1000000], dtype=dtype)
    case(f"{t}-min-eq-max-big", [10**12] * 3, dtype=dtype)
    # hdr_high 2047 at 3 figures: the value 2047 lands in the last index,
    # which hdrh's recorded iterator never reaches (the live histogram
    # misses it) while its percentile scan does.
    case(f"{t}-last-index", [1, 2, 1000, 2047, 2047, 5000], dtype=dtype, high=2047)
    case(f"{t}-last-index-only", [2047, 3000], dtype=dtype, high=2047)
    for low in (0, -5, 2, 3, 1000, 1024, 2**40):
        high = NS_HIGH if low < 2**40 else 2**62
        vals = uniform_ints(100 + (low & 0xffff), 300, 1, 10**6) + [low, low + 1, 2**41, 10**15]
        case(f"{t}-low-{low}", vals, dtype=dtype, low=low, high=high)
    for sig in (1, 2, 3, 4, 5):
        case(f"{t}-sig{sig}", lognormal_ints(sig, 2000, 2e8, 1.2), dtype=dtype, sig=sig)
        case(f"{t}-sig{sig}-tok", lognormal_ints(10 + sig, 500, 300, 1.0), dtype=dtype, sig=sig, high=TOK_HIGH)
    for nb in (1, 2, 3, 30, 1000):
        case(f"{t}-buckets{nb}", lognormal_ints(20 + nb, 3000, 5e7, 1.5), dtype=dtype, buckets=nb)
        case(f"{t}-buckets{nb}-small", [1, 2, 3, 10], dtype=dtype, buckets=nb)

# Huge values: an int beyond 2^53 meets the float edges in exact
# comparisons (HDR path) and is rounded to a double (exact path); squares
# pass 2^64, 2^127 and 2^128.
HUGE = [I64_MAX, I64_MAX - 1, 2**62, 2**53 + 1, 2**53, 2**63 - 2**10, 2**63 - 1000, 10**18, 1]
case("int-huge-i64-high", HUGE, high=I64_MAX)
case("int-huge-i64-high-sig5", HUGE, high=I64_MAX, sig=5)
case("int-huge-i64-high-1000b", HUGE * 3, high=I64_MAX, buckets=1000)
case("int-huge-clamped", HUGE)
case("int-huge-negative", [I64_MIN, I64_MIN + 1, -(2**62), -1, 0, 1, I64_MAX], high=I64_MAX)
case("int-huge-negative-only", [I64_MIN, I64_MIN], high=I64_MAX)
case("int-sumsq-2^128", [I64_MAX] * 5 + [I64_MIN] * 3)
case("int-sumsq-tie", [2**32 + 1] * 3 + [2**40 + 3] * 2)
# float(sum_sq) rounds once: 4 * 2^126 + 2^75 + 1 is above the tie and
# goes up (rounding the low part first would fall on the tie and go down);
# without the 1 it is a tie and goes to even.
case("int-sumsq-round-up", [I64_MIN] * 4 + [2**37, 2**37, 1])
case("int-sumsq-tie-even", [I64_MIN] * 4 + [2**37, 2**37])
case("int-sumsq-tie-odd", [I64_MIN] * 4 + [2**38, 2**37, 2**37])
# An interior edge that is exactly 2^61 (edges over 2^40 .. 2^62 in 22
# buckets): the HDR value 2^61 - 1 is below it (bisect_right compares the
# int exactly), while the exact path's float(2^61 - 1) is 2^61, on it.
case("int-edge-exact-compare", [2**40, 2**62, 2**61 - 1, 2**61 - 5, 2**61, 2**60, 2**61 + 1],
     high=I64_MAX, buckets=22)
# hdrh's unit magnitude is floor(log(low) / log(2)) in doubles: 48 for
# 2^48 - 1, one more than its bit length says.
for low in (2**48 - 1, 2**48, 2**53 - 1):
    case(f"int-low-quirk-{low}", [1, low - 1, low, low + 1, 2**49, 2**50 + 12345, 2**55, 2**60],
         low=low, high=2**62)
case("int-huge-high-2^62", [2**62, 2**62 + 1, 2**62 - 1, 2**61, 5], high=2**62 + 5)
case("float-huge-i64-high", [float(v) for v in HUGE] + [1.8e19, 9.3e18, 2.0**63, 1e19], dtype=float, high=I64_MAX)
case("float-huge-clamped", [1.8e19, 1e15, 3.6e12, 3.6000000000001e12, 0.5], dtype=float)
case("float-fractions", [0.25, 0.5, 0.75, 1.5, 2.5, 1.0000000000000002, 0.9999999999999999, 1e-300], dtype=float)
case("float-negative-fractions", [-0.5, -1e-9, -123.456, 3.5, 1e5 + 0.1], dtype=float)
case("float-order-sum", [1e16, 1.0, -1e16, 1.0, 3.0, 1e16, 1.0, 1.0], dtype=float)
case("float-order-sum-rev", [1.0, 1.0, 1e16, 3.0, 1.0, -1e16, 1.0, 1e16], dtype=float)
case("float-sumsq-rounding", [0.1 * k for k in range(1, 200)], dtype=float)

# Early stopping at its floors (p99.9 6636, p99 662, p97 219, p95 130,
# p90 64, p80 31, p75 24, p50 11) and between them.
for n in (10, 11, 23, 24, 30, 31, 63, 64, 129, 130, 218, 219, 661, 662, 1000, 6635, 6636, 10000):
    case(f"int-es-n{n}", lognormal_ints(1000 + n, n, 2e8, 0.7))
for n in (11, 24, 662, 6636):
    case(f"float-es-n{n}", tpot_like(2000 + n, n), dtype=float)
case("int-es-n8000-off", lognormal_ints(7, 8000, 1e9, 1.0), es=False)
case("int-es-ties", [5] * 7000 + [6] * 3)

# Distributions.
for n in (1, 2, 3, 5, 10, 100, 1000, 10000):
    case(f"int-uniform-{n}", uniform_ints(3000 + n, n, 1, 10**6))
    case(f"float-tpot-{n}", tpot_like(4000 + n, n), dtype=float)
case("int-latency-100k", lognormal_ints(42, 100000, 3e8, 1.1))
case("int-ttft-20k", lognormal_ints(43, 20000, 4e7, 0.9))
case("int-isl-20k", lognormal_ints(44, 20000, 800, 1.3), high=TOK_HIGH, es=False)
case("int-osl-zeros-20k", [0] * 300 + lognormal_ints(45, 19700, 200, 1.0), high=TOK_HIGH, es=False)
_r = random.Random(47)
case("float-uniform-5k", [_r.uniform(-10.0, 1e9) for _ in range(5000)], dtype=float)
case("int-wide-range", [1, 10**15] + uniform_ints(48, 2000, 1, 10**15))
case("int-chunk-delta-small", uniform_ints(49, 5000, 0, 50), es=False)

# Recording goes on after a COMPLETE snapshot (which sorted the raw values).
case("int-more-after-final", lognormal_ints(50, 700, 2e8, 0.7), more=lognormal_ints(51, 300, 1e6, 2.0))
case("float-more-after-final", tpot_like(52, 500), dtype=float, more=tpot_like(53, 200))
case("int-more-from-empty", [], more=[5, 1, 3])


def main():
    with open(OUT, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(build(c), allow_nan=False) + "\n")
    print(f"{len(cases)} cases -> {OUT} ({os.path.getsize(OUT)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
