/* bench_agg_snapshot.c - the cost of one live snapshot of `tally aggregate`
 * with every series full: the six series of a streaming run with N values
 * each (spread over nine decades, as latencies are), then the LIVE
 * snapshot (HDR statistics) and its msgpack encoding (what a 4 Hz tick
 * does), and for comparison the COMPLETE one (exact statistics, sorted raw
 * values) and its JSON text. Prints key/value lines, medians of RUNS.
 *   bench_agg_snapshot [N] [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include "bench.h"
#include "../src/agg/agg.h"
#include "../src/base/os.h"
#include "../src/io/msgpack_event.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int runs = argc > 2 ? atoi(argv[2]) : 21;
    if (runs < 1 || runs > 1000 || n < 1)
        return 2;
    err e = {0};
    agg_opts o = {.streaming = true, .early_stopping = true, .sig_figs = 3, .n_buckets = 30};
    agg *g = agg_new(&o, &e);
    if (!g) {
        fprintf(stderr, "bench_agg_snapshot: %s\n", e.msg);
        return 1;
    }
    agg_registry *r = agg_registry_of(g);
    u64 x = 88172645463325252ull;
    for (long k = 0; k < n; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        i64 v = (i64)(1 + (x % 1000) * (1 + (x >> 20) % 1000000));   /* 1 .. 1e9 */
        for (int s = 0; s < AGG_NSERIES; s++) {
            if (!r->series[s])
                continue;
            int rc = s == AGG_S_TPOT ? agg_series_record_float(r->series[s], (double)v / 7.0)
                                     : agg_series_record_int(r->series[s], s == AGG_S_ISL || s == AGG_S_OSL ? v % 32768 : v);
            if (rc != ERR_OK)
                return 1;
        }
    }
    agg_snapshot *snap = calloc(1, sizeof *snap);
    double live[1000], enc[1000], complete[1000], jsn[1000];
    buf b = {0};
    iz bytes = 0, jbytes = 0;
    for (int k = 0; k < runs; k++) {
        double t0 = os_now();
        if (agg_registry_snapshot(r, AGG_LIVE, os_monotonic_ns(), 0, snap, &e) != ERR_OK)
            return 1;
        double t1 = os_now();
        b.len = 0;
        io_mp_snapshot(snap, &b);
        double t2 = os_now();
        live[k] = (t1 - t0) * 1e3;
        enc[k] = (t2 - t1) * 1e3;
        bytes = b.len;
    }
    for (int k = 0; k < runs && k < 5; k++) {
        double t0 = os_now();
        if (agg_registry_snapshot(r, AGG_COMPLETE, os_monotonic_ns(), 0, snap, &e) != ERR_OK)
            return 1;
        double t1 = os_now();
        b.len = 0;
        agg_snapshot_json(snap, &b);
        double t2 = os_now();
        complete[k] = (t1 - t0) * 1e3;
        jsn[k] = (t2 - t1) * 1e3;
        jbytes = b.len;
    }
    int nc = runs < 5 ? runs : 5;
    printf("values_per_series %ld\n", n);
    printf("live_ms %.4f\n", median(live, runs));
    printf("encode_ms %.4f\n", median(enc, runs));
    printf("wire_bytes %td\n", bytes);
    printf("complete_ms %.3f\n", median(complete, nc));
    printf("json_ms %.3f\n", median(jsn, nc));
    printf("json_bytes %td\n", jbytes);
    buf_free(&b);
    free(snap);
    agg_free(g);
    return 0;
}
