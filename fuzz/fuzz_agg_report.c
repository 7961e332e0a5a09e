/* fuzz_agg_report.c - libFuzzer target for src/agg/report.c: the bytes
 * after the first are a final snapshot's text (up to a NUL; what follows
 * it, with bit 2 of the first byte, is a run_config), bits 0 and 1 of the
 * first byte the legacy window and a git_sha. The build must not crash,
 * must refuse with one of its codes and leave both buffers as they were,
 * or give a result_summary.json that is JSON with upstream's 19 keys in
 * order and a report.txt of valid UTF-8 that opens with the summary
 * header and ends with the end-of-report line, the summary lines a prefix
 * of it; and a second build gives the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include "../src/agg/report.h"
#include "../src/base/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[19] = {
    "version", "git_sha", "test_started_at", "n_samples_issued", "n_samples_completed", "n_samples_failed",
    "duration_ns", "state", "complete", "ttft", "tpot", "latency", "output_sequence_lengths",
    "input_sequence_lengths", "legacy_loadgen_window_duration_ns", "qps", "tps", "finish_reason_counts",
    "run_config"};

static bool ends_with(str s, const char *t)
{
    iz n = (iz)strlen(t);
    return s.len >= n && !memcmp(s.s + s.len - n, t, (size_t)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    u8 flags = data[0];
    str snap = str_from(data + 1, (iz)size - 1), rc_text = {0};
    if (flags & 4) {
        const u8 *z = memchr(snap.s, 0, (size_t)snap.len);
        if (z) {
            rc_text = str_from(z + 1, snap.len - (z + 1 - snap.s));
            snap.len = z - snap.s;
        }
    }
    arena a;
    arena_init(&a, 64 << 20);
    err e = {0};
    const json *rc = rc_text.s ? json_parse(&a, rc_text, NULL, &e) : NULL;
    agg_report_opts o = {
        .legacy_loadgen_qps = flags & 1,
        .run_config = rc,
        .git_sha = flags & 2 ? "ea33275" : NULL,
        .version = "0.1.0",
    };
    buf s = {0}, t = {0}, s2 = {0}, t2 = {0}, lines = {0};
    buf_cstr(&s, "<");
    buf_cstr(&t, ">");
    int r = agg_report_build(snap, &o, &s, &t, &e);
    if (r != ERR_OK) {
        if (r != ERR_SYNTAX && r != ERR_UTF8 && r != ERR_INVALID && r != ERR_UNSUPPORTED && r != ERR_LIMIT)
            __builtin_trap();
        if (s.len != 1 || t.len != 1 || !e.msg[0])
            __builtin_trap();
    } else {
        str sv = str_cut(buf_view(&s), 1, s.len), tv = str_cut(buf_view(&t), 1, t.len);
        json *v = json_parse(&a, sv, NULL, &e);
        if (!v || v->type != JSON_OBJ || v->u.obj.n != 19)
            __builtin_trap();
        for (int k = 0; k < 19; k++)
            if (!str_eq(v->u.obj.members[k].key, str_cstr(keys[k])))
                __builtin_trap();
        if (utf8_invalid_at(tv) >= 0 || !ends_with(tv, "----------------- End of Report -----------------\n") ||
            tv.len < 44 || memcmp(tv.s, "----------------- Summary -----------------\n", 44) != 0)
            __builtin_trap();
        agg_report_summary_lines(tv, &lines);
        if (lines.len > tv.len || (lines.len && memcmp(lines.data, tv.s, (size_t)lines.len) != 0))
            __builtin_trap();
        if (agg_report_build(snap, &o, &s2, &t2, &e) != ERR_OK || !str_eq(buf_view(&s2), sv) ||
            !str_eq(buf_view(&t2), tv))
            __builtin_trap();
    }
    buf_free(&s);
    buf_free(&t);
    buf_free(&s2);
    buf_free(&t2);
    buf_free(&lines);
    arena_fini(&a);
    return 0;
}
