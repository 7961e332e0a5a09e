/* report.c - upstream's report builder (report.h): Report.from_snapshot
 * over the parsed snapshot, with Python's semantics for every value it
 * touches (report_num.h does the numbers), then Report.to_json in
 * msgspec's layout and Report.display's lines. Each step follows
 * metrics/report.py in its order; the comments name its lines. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../json/pyfmt.h"
#include "../tmpl/tmpl_pystr.h"
#include "report.h"
#include "report_num.h"

/* ---- the build's state and its one error exit ---------------------------- */

typedef struct rp {
    arena   a;
    jmp_buf jb;      /* fail() and the arena's out-of-memory jump here */
    str     src;
    err    *e;
} rp;

static void locate(rp *r, iz off)
{
    if (!r->e || off < 0 || off > r->src.len)
        return;
    i32 line = 1, col = 1;
    for (iz i = 0; i < off; i++) {
        if (r->src.s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    r->e->line = line;
    r->e->col = col;
}

/* Fills the error (at the value `at` in the text, when it has a place)
 * and leaves the build. */
_Noreturn static void fail(rp *r, int code, const json *at, const char *fmt, ...) PRINTF_LIKE(4, 5);
_Noreturn static void fail(rp *r, int code, const json *at, const char *fmt, ...)
{
    if (r->e) {
        char msg[ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        iz off = at && at->off >= 0 ? at->off : -1;
        err_set(r->e, code, off, "%s", msg);
        locate(r, off);
    }
    longjmp(r->jb, code);
}

/* ---- Python's view of a JSON value ---------------------------------------- */

static const json J_ZERO = {.type = JSON_INT, .off = -1};
static const json J_EMPTY_LIST = {.type = JSON_ARR, .off = -1};
static const json J_INTERRUPTED = {.type = JSON_STR, .off = -1, .u.s = {(const u8 *)"interrupted", 11}};

static bool is_null(const json *v) { return v->type == JSON_NULL; }
static bool is_num(const json *v) { return v->type == JSON_INT || v->type == JSON_FLOAT || v->type == JSON_BOOL; }
/* isinstance(v, int): bool is an int */
static bool is_int(const json *v) { return v->type == JSON_INT || v->type == JSON_BOOL; }

/* dict.get(key, default): the last member with that key, as json.loads
 * keeps it. */
static const json *get(const json *obj, const char *key, const json *dflt)
{
    const json *v = json_get(obj, str_cstr(key));
    return v ? v : dflt;
}

/* The number a numeric value is (its digits were checked: check_ints). */
static rnum num(rp *r, const json *v)
{
    switch ((json_type)v->type) {
    case JSON_BOOL:
        return rnum_int(&r->a, v->u.b);
    case JSON_FLOAT:
        return rnum_float(v->u.f);
    case JSON_INT:
        if (v->big) {
            rnum x;
            if (!rnum_parse(&r->a, v->u.num, &x))
                fail(r, ERR_INVALID, v, "an integer json.loads refuses");
            return x;
        }
        return rnum_int(&r->a, v->u.i);
    default:
        break;
    }
    ASSERT(0);
    return (rnum){0};
}

/* A value report.py computes with: a number, or the TypeError Python
 * raises for `op` on it. */
static rnum need_num(rp *r, const json *v, const char *where, const char *what, const char *op)
{
    if (!is_num(v))
        fail(r, ERR_INVALID, v, "%s%s: a %s, not a number (upstream: TypeError at %s)", where, what, json_pytype(v),
             op);
    return num(r, v);
}

/* What an arithmetic step gave, or the exception Python raises there. */
static rnum chk(rp *r, rnum_exc x, rnum v, const json *at, const char *where, const char *what)
{
    if (x != RNUM_OK)
        fail(r, ERR_INVALID, at, "%s%s: upstream raises %s", where, what, rnum_exc_text(x));
    return v;
}

/* v == 0 (only numbers equal 0) */
static bool eq_zero(rp *r, const json *v)
{
    if (!is_num(v))
        return false;
    rnum x = num(r, v);
    return rnum_is_zero(&x);
}

/* v > k for an int k: a TypeError for anything but a number */
static bool gt_int(rp *r, const json *v, i64 k, const char *where, const char *what)
{
    rnum x = need_num(r, v, where, what, "'>'");
    rnum y = rnum_int(&r->a, k);
    return rnum_cmp(&r->a, &x, &y) == 1;
}

/* int(s) of a str as Python reads it: surrounding whitespace (Python's),
 * an optional sign, ASCII digits with single underscores between them.
 * Returns 1 with the value, 0 when Python raises ValueError, -1 when the
 * text holds other characters Python might take (its Unicode digits). */
static int int_of_str(rp *r, str s, rnum *out)
{
    s = pystr_strip(s, NULL, PYSTR_BOTH);
    iz i = 0;
    bool neg = false;
    if (i < s.len && (s.s[i] == '+' || s.s[i] == '-'))
        neg = s.s[i++] == '-';
    u8 *dig = NEW_NZ(&r->a, u8, s.len + 2);
    iz n = 0;
    if (neg)
        dig[n++] = '-';
    bool prev_digit = false;
    for (; i < s.len; i++) {
        u8 c = s.s[i];
        if (c >= 0x80)
            return -1;
        if (c >= '0' && c <= '9') {
            dig[n++] = c;
            prev_digit = true;
        } else if (c == '_' && prev_digit && i + 1 < s.len && s.s[i + 1] >= '0' && s.s[i + 1] <= '9') {
            prev_digit = false;
        } else {
            return 0;
        }
    }
    /* leading zeros count toward the 4300 digits, as in int() */
    return n > neg && rnum_parse(&r->a, str_from(dig, n), out) ? 1 : 0;
}

/* int(v) of a counter's value (report.py:288-289, :346-351). */
static rnum to_int(rp *r, const json *v, const char *where)
{
    rnum x, out = {0};
    if (v->type == JSON_STR) {
        int k = int_of_str(r, v->u.s, &x);
        if (k < 0)
            fail(r, ERR_UNSUPPORTED, v, "%s: int() of a str with characters beyond ASCII (Python may read Unicode "
                 "digits; tally reads ASCII ones)", where);
        if (k == 0)
            fail(r, ERR_INVALID, v, "%s: int() of a str that is not an integer (upstream: ValueError: invalid "
                 "literal for int() with base 10)", where);
        return x;
    }
    if (!is_num(v))
        fail(r, ERR_INVALID, v, "%s: int() of a %s (upstream: TypeError)", where, json_pytype(v));
    x = num(r, v);
    return chk(r, rnum_to_int(&r->a, &x, &out), out, v, where, "");
}

/* ---- dict items, as Python's dict keeps them ---------------------------------- */

typedef struct item {
    str         key;
    const json *val;
} item;

typedef struct keyed {
    str key;
    iz  i;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    iz n = MIN(a->key.len, b->key.len);
    int c = n ? memcmp(a->key.s, b->key.s, (size_t)n) : 0;
    if (c)
        return c;
    if (a->key.len != b->key.len)
        return a->key.len < b->key.len ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The items of an object as json.loads builds the dict: a repeated key
 * once, at its first place, with its last value. */
static iz items(rp *r, const json *obj, item **out)
{
    iz n = obj->u.obj.n, k = 0;
    const json_member *m = obj->u.obj.members;
    item *it = NEW_NZ(&r->a, item, n > 0 ? n : 1);
    if (n <= 32) {
        for (iz i = 0; i < n; i++) {
            iz j = 0;
            while (j < k && !str_eq(it[j].key, m[i].key))
                j++;
            if (j < k) {
                it[j].val = &m[i].val;
            } else {
                it[k].key = m[i].key;
                it[k++].val = &m[i].val;
            }
        }
    } else {
        keyed *s = NEW_NZ(&r->a, keyed, n);
        iz *last = NEW(&r->a, iz, n);
        for (iz i = 0; i < n; i++) {
            s[i].key = m[i].key;
            s[i].i = i;
            last[i] = -1;
        }
        qsort(s, (size_t)n, sizeof *s, keyed_cmp);
        for (iz g = 0; g < n;) {
            iz h = g;
            while (h + 1 < n && str_eq(s[h + 1].key, s[g].key))
                h++;
            last[s[g].i] = s[h].i;
            g = h + 1;
        }
        for (iz i = 0; i < n; i++)
            if (last[i] >= 0) {
                it[k].key = m[i].key;
                it[k++].val = &m[last[i]].val;
            }
    }
    *out = it;
    return k;
}

/* ---- checks on the whole tree ------------------------------------------------- */

/* json.loads refuses an int of more than 4300 digits anywhere (ValueError
 * from int()), and msgspec.json.encode's repr() of one in run_config. */
static void check_ints(rp *r, const json *v, int depth, const char *what)
{
    if (depth > AGG_REPORT_MAX_DEPTH)
        fail(r, ERR_UNSUPPORTED, v, "%s: nested deeper than %d", what, (int)AGG_REPORT_MAX_DEPTH);
    if (v->type == JSON_INT && v->big) {
        iz d = v->u.num.len - (v->u.num.len && v->u.num.s[0] == '-');
        if (d > RNUM_MAX_DIGITS)
            fail(r, ERR_INVALID, v, "%s: an integer of %td digits (upstream: ValueError: Exceeds the limit "
                 "(4300 digits) for integer string conversion)", what, d);
    } else if (v->type == JSON_ARR) {
        for (iz i = 0; i < v->u.arr.n; i++)
            check_ints(r, &v->u.arr.items[i], depth + 1, what);
    } else if (v->type == JSON_OBJ) {
        for (iz i = 0; i < v->u.obj.n; i++)
            check_ints(r, &v->u.obj.members[i].val, depth + 1, what);
    }
}

/* ---- Report.from_snapshot ----------------------------------------------------- */

typedef enum { M_EMPTY, M_ES_ONLY, M_FULL } mkind;

/* _series_to_metric_dict's result (report.py:82-157). */
typedef struct mdict {
    mkind       kind;
    const char *where;       /* "metrics[4] \"isl\": " for messages */
    const json *esp;         /* the early-stopping value, NULL = None */
    const json *total, *min, *max;
    const json *median;      /* percentiles["50"] or ["50.0"]; NULL: median_f */
    double      median_f, avg, std;
    item       *perc;        /* dict(percentiles) */
    iz          nperc;
    iz          nb;          /* histogram: buckets (lo, hi) and counts */
    const json **lo, **hi, **cnt;
} mdict;

/* for rng, _ in histogram: [(rng[0], rng[1]) ...], [c ...] (report.py:138-150) */
static void histogram(rp *r, const json *h, mdict *m)
{
    const char *w = m->where;
    if (h->type == JSON_STR || h->type == JSON_OBJ) {
        if (json_truthy(h))   /* a char or a key is one value to unpack into two, or its rng[1] fails */
            fail(r, ERR_INVALID, h, "%shistogram: a non-empty %s (upstream: ValueError or IndexError unpacking "
                 "its items)", w, json_pytype(h));
        return;
    }
    if (h->type != JSON_ARR)
        fail(r, ERR_INVALID, h, "%shistogram: a %s (upstream: TypeError: '%s' object is not iterable)", w,
             json_pytype(h), json_pytype(h));
    iz n = h->u.arr.n;
    m->nb = n;
    m->lo = NEW_NZ(&r->a, const json *, n > 0 ? n : 1);
    m->hi = NEW_NZ(&r->a, const json *, n > 0 ? n : 1);
    m->cnt = NEW_NZ(&r->a, const json *, n > 0 ? n : 1);
    for (iz i = 0; i < n; i++) {
        const json *ent = &h->u.arr.items[i];
        if (ent->type != JSON_ARR || ent->u.arr.n != 2)
            fail(r, ERR_INVALID, ent, "%shistogram[%td]: %s, not a [[lo, hi], count] pair (upstream: %s)", w, i,
                 ent->type == JSON_ARR ? "a list of another length" : json_pytype(ent),
                 ent->type == JSON_ARR || ent->type == JSON_STR || ent->type == JSON_OBJ
                     ? "ValueError unpacking it, or TypeError/IndexError on its parts"
                     : "TypeError: cannot unpack non-iterable");
        const json *rng = &ent->u.arr.items[0];
        if (rng->type != JSON_ARR || rng->u.arr.n < 2)
            fail(r, ERR_INVALID, rng, "%shistogram[%td][0]: %s, not a [lo, hi] list (upstream: %s)", w, i,
                 rng->type == JSON_ARR ? "a list of fewer than 2 items" : json_pytype(rng),
                 rng->type == JSON_ARR ? "IndexError" : rng->type == JSON_OBJ ? "KeyError: 0"
                 : rng->type == JSON_STR ? "TypeError when display() scales its characters"
                 : "TypeError: not subscriptable");
        m->lo[i] = &rng->u.arr.items[0];
        m->hi[i] = &rng->u.arr.items[1];
        m->cnt[i] = &ent->u.arr.items[1];
    }
}

static void series_dict(rp *r, const json *stat, mdict *m)
{
    const char *w = m->where;
    const json *count = get(stat, "count", &J_ZERO);
    if (eq_zero(r, count)) {     /* :95-99 */
        const json *esp = get(stat, "early_stopping_percentiles", NULL);
        m->esp = esp && !is_null(esp) ? esp : NULL;
        m->kind = m->esp ? M_ES_ONLY : M_EMPTY;
        return;
    }
    m->kind = M_FULL;
    const json *total = get(stat, "total", &J_ZERO), *sum_sq = get(stat, "sum_sq", &J_ZERO);
    m->total = total;
    m->min = get(stat, "min", &J_ZERO);
    m->max = get(stat, "max", &J_ZERO);

    /* avg = total / count if count > 0 else 0.0 (:106) */
    rnum out;
    if (gt_int(r, count, 0, w, "count")) {
        rnum t = need_num(r, total, w, "total", "total / count"), c = num(r, count);
        m->avg = chk(r, rnum_div(&r->a, &t, &c, &out), out, total, w, "total / count").f;
    } else {
        m->avg = 0.0;
    }

    /* std_dev (:107-121) */
    m->std = 0.0;
    if (gt_int(r, count, 1, w, "count")) {
        rnum n = num(r, count), one = rnum_int(&r->a, 1), zero = rnum_int(&r->a, 0);
        const char *op = "std_dev";
        if (is_int(total) && is_int(sum_sq)) {
            /* var_num_int = n * sum_sq - total * total;
             * math.sqrt(max(0, var_num_int)) / math.sqrt(n * (n - 1)) */
            rnum t = num(r, total), s = num(r, sum_sq), a, b, v, nm1, nn;
            a = chk(r, rnum_mul(&r->a, &n, &s, &out), out, sum_sq, w, "n * sum_sq");
            b = chk(r, rnum_mul(&r->a, &t, &t, &out), out, total, w, "total * total");
            v = chk(r, rnum_sub(&r->a, &a, &b, &out), out, sum_sq, w, op);
            if (rnum_cmp(&r->a, &v, &zero) != 1)
                v = zero;
            double s1, s2;
            chk(r, rnum_sqrt(&v, &s1), out, sum_sq, w, "math.sqrt(max(0, n * sum_sq - total * total))");
            nm1 = chk(r, rnum_sub(&r->a, &n, &one, &out), out, count, w, "n - 1");
            nn = chk(r, rnum_mul(&r->a, &n, &nm1, &out), out, count, w, "n * (n - 1)");
            chk(r, rnum_sqrt(&nn, &s2), out, count, w, "math.sqrt(n * (n - 1))");
            rnum p = rnum_float(s1), q = rnum_float(s2);
            m->std = chk(r, rnum_div(&r->a, &p, &q, &out), out, count, w, op).f;
        } else {
            /* var_num = sum_sq - total * total / n;
             * math.sqrt(max(0.0, var_num / (n - 1))) */
            rnum t = need_num(r, total, w, "total", "total * total");
            rnum s = need_num(r, sum_sq, w, "sum_sq", "sum_sq - total * total / n"), tt, q, v, nm1, x;
            tt = chk(r, rnum_mul(&r->a, &t, &t, &out), out, total, w, "total * total");
            q = chk(r, rnum_div(&r->a, &tt, &n, &out), out, total, w, "total * total / n");
            v = chk(r, rnum_sub(&r->a, &s, &q, &out), out, sum_sq, w, "sum_sq - total * total / n");
            nm1 = chk(r, rnum_sub(&r->a, &n, &one, &out), out, count, w, "n - 1");
            x = chk(r, rnum_div(&r->a, &v, &nm1, &out), out, count, w, "var_num / (n - 1)");
            rnum fz = rnum_float(0.0);
            if (rnum_cmp(&r->a, &x, &fz) != 1)
                x = fz;
            double sd;
            chk(r, rnum_sqrt(&x, &sd), out, sum_sq, w, "math.sqrt");
            m->std = sd;
        }
    }

    /* perc = stat.get("percentiles", {}); median (:129-136) */
    const json *perc = get(stat, "percentiles", NULL);
    if (perc && perc->type == JSON_OBJ) {
        m->median = json_get(perc, S("50"));
        if (!m->median)
            m->median = json_get(perc, S("50.0"));
        m->nperc = items(r, perc, &m->perc);
    } else if (perc && (perc->type == JSON_ARR || perc->type == JSON_STR) && json_truthy(perc)) {
        if (perc->type == JSON_STR)   /* "50" in it: s["50"] fails; else dict(s) of 1-char items fails */
            fail(r, ERR_INVALID, perc, "%spercentiles: a non-empty str (upstream: TypeError or ValueError)", w);
        fail(r, ERR_UNSUPPORTED, perc, "%spercentiles: a list (Python would take a list of pairs for dict(); "
             "tally reads an object only)", w);
    } else if (perc && perc->type != JSON_ARR && perc->type != JSON_STR) {
        fail(r, ERR_INVALID, perc, "%spercentiles: a %s (upstream: TypeError: argument of type '%s' is not "
             "iterable)", w, json_pytype(perc), json_pytype(perc));
    }
    if (!m->median) {
        /* (s_min + s_max) / 2 */
        rnum a = need_num(r, m->min, w, "min", "(min + max) / 2"), b = need_num(r, m->max, w, "max", "(min + max) / 2");
        rnum two = rnum_int(&r->a, 2), s;
        s = chk(r, rnum_add(&r->a, &a, &b, &out), out, m->min, w, "min + max");
        m->median_f = chk(r, rnum_div(&r->a, &s, &two, &out), out, m->min, w, "(min + max) / 2").f;
    }

    histogram(r, get(stat, "histogram", &J_EMPTY_LIST), m);
    const json *esp = get(stat, "early_stopping_percentiles", NULL);
    m->esp = esp && !is_null(esp) ? esp : NULL;
}

/* The six finish-reason counters, in _FINISH_REASON_COUNTERS order. */
static const char *const finish_keys[6] = {"stop", "length", "tool_calls", "content_filter", "function_call", "other"};

/* What the report shows, in Report's field order. */
enum { S_TTFT, S_TPOT, S_LATENCY, S_OSL, S_ISL, NSERIES };
static const char *const series_names[NSERIES] = {"ttft_ns", "tpot_ns", "sample_latency_ns", "osl", "isl"};
static const char *const series_fields[NSERIES] = {
    "ttft", "tpot", "latency", "output_sequence_lengths", "input_sequence_lengths"};

enum {
    C_ISSUED, C_COMPLETED, C_FAILED, C_DURATION, C_WINDOW, C_FR0, NCOUNTERS = C_FR0 + 6
};
static const char *const counter_names[NCOUNTERS] = {
    "tracked_samples_issued", "tracked_samples_completed", "tracked_samples_failed", "tracked_duration_ns",
    "legacy_loadgen_window_duration_ns", "tracked_finish_reason_stop", "tracked_finish_reason_length",
    "tracked_finish_reason_tool_calls", "tracked_finish_reason_content_filter",
    "tracked_finish_reason_function_call", "tracked_finish_reason_other"};

typedef struct report {
    rnum        issued, completed, failed;
    bool        has_duration, has_window, has_qps, has_tps;
    rnum        duration, window;
    double      qps, tps;
    const json *state;
    bool        complete;
    mdict       m[NSERIES];
    rnum        finish[6];
} report;

static void from_snapshot(rp *r, const json *snap, bool legacy, report *rep)
{
    if (snap->type != JSON_OBJ)
        fail(r, ERR_INVALID, snap, "the snapshot is a %s, not an object (upstream: AttributeError: '%s' object "
             "has no attribute 'get')", json_pytype(snap), json_pytype(snap));

    /* for stat in snap.get("metrics", []): counters and series by name,
     * the last of a name winning (:276-286) */
    const json *cval[NCOUNTERS] = {0}, *sval[NSERIES] = {0};
    iz sidx[NSERIES] = {0};
    const json *metrics = get(snap, "metrics", &J_EMPTY_LIST);
    if (metrics->type == JSON_STR || metrics->type == JSON_OBJ) {
        if (json_truthy(metrics))   /* its characters or keys are strs, which have no .get */
            fail(r, ERR_INVALID, metrics, "metrics: a non-empty %s (upstream: AttributeError: 'str' object has no "
                 "attribute 'get')", json_pytype(metrics));
    } else if (metrics->type != JSON_ARR) {
        fail(r, ERR_INVALID, metrics, "metrics: a %s (upstream: TypeError: '%s' object is not iterable)",
             json_pytype(metrics), json_pytype(metrics));
    } else {
        for (iz i = 0; i < metrics->u.arr.n; i++) {
            const json *stat = &metrics->u.arr.items[i];
            if (stat->type != JSON_OBJ)
                fail(r, ERR_INVALID, stat, "metrics[%td]: a %s, not an object (upstream: AttributeError: '%s' "
                     "object has no attribute 'get')", i, json_pytype(stat), json_pytype(stat));
            const json *type = get(stat, "type", NULL), *name = get(stat, "name", NULL);
            if (!name || !json_truthy(name))
                continue;
            bool counter = type && type->type == JSON_STR && str_eq(type->u.s, S("counter"));
            bool series = type && type->type == JSON_STR && str_eq(type->u.s, S("series"));
            if (!counter && !series)
                continue;
            if (name->type == JSON_ARR || name->type == JSON_OBJ)
                fail(r, ERR_INVALID, name, "metrics[%td].name: a %s (upstream: TypeError: unhashable type: '%s')",
                     i, json_pytype(name), json_pytype(name));
            if (name->type != JSON_STR)
                continue;   /* a number as a name: a key no lookup asks for */
            if (counter) {
                for (int k = 0; k < NCOUNTERS; k++)
                    if (str_eq(name->u.s, str_cstr(counter_names[k])))
                        cval[k] = get(stat, "value", &J_ZERO);
            } else {
                for (int k = 0; k < NSERIES; k++)
                    if (str_eq(name->u.s, str_cstr(series_names[k]))) {
                        sval[k] = stat;
                        sidx[k] = i;
                    }
            }
        }
    }

    /* int(counters.get(key, 0)) */
    rnum c[NCOUNTERS];
    for (int k = 0; k < NCOUNTERS; k++) {
        char where[96];
        snprintf(where, sizeof where, "counter \"%s\": value", counter_names[k]);
        c[k] = cval[k] ? to_int(r, cval[k], where) : rnum_int(&r->a, 0);
    }
    for (int k = 0; k < NSERIES; k++) {
        mdict *m = &rep->m[k];
        m->kind = M_EMPTY;
        if (!sval[k])
            continue;
        char where[96];
        snprintf(where, sizeof where, "metrics[%td] \"%s\": ", sidx[k], series_names[k]);
        m->where = (const char *)arena_strdup(&r->a, str_cstr(where)).s;
        series_dict(r, sval[k], m);
    }

    rnum zero = rnum_int(&r->a, 0), one = rnum_int(&r->a, 1), two = rnum_int(&r->a, 2), out;
    rnum e9 = rnum_float(1e9);
    rep->issued = c[C_ISSUED];
    rep->completed = c[C_COMPLETED];
    rep->failed = c[C_FAILED];
    rep->has_duration = rnum_cmp(&r->a, &c[C_DURATION], &zero) == 1;   /* :299-300 */
    rep->duration = c[C_DURATION];
    bool use_window = legacy && rnum_cmp(&r->a, &c[C_WINDOW], &zero) == 1 &&
                      rnum_cmp(&r->a, &c[C_COMPLETED], &two) >= 0;   /* :319-323 */
    rep->has_window = use_window;
    rep->window = c[C_WINDOW];

    /* qps and tps (:327-337): osl.get("total", 0) of a non-empty OSL dict */
    const mdict *osl = &rep->m[S_OSL];
    const json *osl_total = osl->kind == M_FULL ? osl->total : &J_ZERO;
    if (use_window || rep->has_duration) {
        const char *what = use_window ? "legacy_loadgen_window_duration_ns / 1e9" : "tracked_duration_ns / 1e9";
        rnum secs = chk(r, rnum_div(&r->a, use_window ? &c[C_WINDOW] : &c[C_DURATION], &e9, &out), out,
                        use_window ? cval[C_WINDOW] : cval[C_DURATION], "counter: ", what);
        rnum done = c[C_COMPLETED];
        if (use_window)
            done = chk(r, rnum_sub(&r->a, &done, &one, &out), out, cval[C_COMPLETED], "counter: ",
                       "tracked_samples_completed - 1");
        rep->qps = chk(r, rnum_div(&r->a, &done, &secs, &out), out, cval[C_COMPLETED], "qps: ", "completed / seconds").f;
        rep->has_qps = true;
        if (osl->kind != M_EMPTY) {
            rnum t = need_num(r, osl_total, osl->where ? osl->where : "", "total", "total / seconds (tps)");
            rep->tps = chk(r, rnum_div(&r->a, &t, &secs, &out), out, osl_total, "tps: ", "total / seconds").f;
            rep->has_tps = true;
        }
    }

    /* state, complete (:343-344, :362) */
    rep->state = get(snap, "state", &J_INTERRUPTED);
    const json *pending = get(snap, "n_pending_tasks", &J_ZERO);
    rep->complete = rep->state->type == JSON_STR && str_eq(rep->state->u.s, S("complete")) && eq_zero(r, pending);
    for (int k = 0; k < 6; k++)
        rep->finish[k] = c[C_FR0 + k];
}

/* ---- Report.to_json: msgspec.json.encode, then format(indent=2) --------------- */

static void nl(buf *b, int level)
{
    buf_byte(b, '\n');
    for (int i = 0; i < level; i++)
        buf_put(b, "  ", 2);
}

/* An object or array being written at `level` (its items at level + 1). */
typedef struct jw {
    buf *b;
    int  level;
    iz   count[8];
} jw;

static void jw_open(jw *w, char c)
{
    buf_byte(w->b, (u8)c);
    w->count[++w->level] = 0;
}

static void jw_close(jw *w, char c)
{
    if (w->count[w->level])
        nl(w->b, w->level - 1);
    buf_byte(w->b, (u8)c);
    w->level--;
}

static void jw_item(jw *w)
{
    if (w->count[w->level]++)
        buf_byte(w->b, ',');
    nl(w->b, w->level);
}

static void jw_key(jw *w, const char *k)
{
    jw_item(w);
    pyfmt_json_str(w->b, str_cstr(k), false);
    buf_put(w->b, ": ", 2);
}

/* A value of the snapshot or of run_config, as msgspec encodes what
 * json.loads made of it, laid out at `level`. */
static void put_json(rp *r, buf *b, const json *v, int level)
{
    switch ((json_type)v->type) {
    case JSON_NULL:
        buf_cstr(b, "null");
        return;
    case JSON_BOOL:
        buf_cstr(b, v->u.b ? "true" : "false");
        return;
    case JSON_INT:
        if (v->big)
            pyfmt_int_text(b, v->u.num);
        else
            buf_i64(b, v->u.i);
        return;
    case JSON_FLOAT:
        pyfmt_float_msgspec(b, v->u.f);
        return;
    case JSON_STR:
        pyfmt_json_str(b, v->u.s, false);
        return;
    case JSON_ARR:
        buf_byte(b, '[');
        for (iz i = 0; i < v->u.arr.n; i++) {
            if (i)
                buf_byte(b, ',');
            nl(b, level + 1);
            put_json(r, b, &v->u.arr.items[i], level + 1);
        }
        if (v->u.arr.n)
            nl(b, level);
        buf_byte(b, ']');
        return;
    case JSON_OBJ: {
        item *it;
        iz n = items(r, v, &it);
        buf_byte(b, '{');
        for (iz i = 0; i < n; i++) {
            if (i)
                buf_byte(b, ',');
            nl(b, level + 1);
            pyfmt_json_str(b, it[i].key, false);
            buf_put(b, ": ", 2);
            put_json(r, b, it[i].val, level + 1);
        }
        if (n)
            nl(b, level);
        buf_byte(b, '}');
        return;
    }
    }
}

static void jw_json(rp *r, jw *w, const json *v) { put_json(r, w->b, v, w->level); }

static void jw_int(rp *r, jw *w, const rnum *x) { rnum_write(&r->a, w->b, x); }

static void jw_float(jw *w, double f) { pyfmt_float_msgspec(w->b, f); }

static void put_metric(rp *r, jw *w, const mdict *m)
{
    jw_open(w, '{');
    if (m->kind == M_ES_ONLY) {
        jw_key(w, "early_stopping_percentiles");
        jw_json(r, w, m->esp);
    } else if (m->kind == M_FULL) {
        jw_key(w, "total");
        jw_json(r, w, m->total);
        jw_key(w, "min");
        jw_json(r, w, m->min);
        jw_key(w, "max");
        jw_json(r, w, m->max);
        jw_key(w, "median");
        if (m->median)
            jw_json(r, w, m->median);
        else
            jw_float(w, m->median_f);
        jw_key(w, "avg");
        jw_float(w, m->avg);
        jw_key(w, "std_dev");
        jw_float(w, m->std);
        jw_key(w, "percentiles");
        jw_open(w, '{');
        for (iz i = 0; i < m->nperc; i++) {
            jw_item(w);
            pyfmt_json_str(w->b, m->perc[i].key, false);
            buf_put(w->b, ": ", 2);
            jw_json(r, w, m->perc[i].val);
        }
        jw_close(w, '}');
        if (m->esp) {
            jw_key(w, "early_stopping_percentiles");
            jw_json(r, w, m->esp);
        }
        jw_key(w, "histogram");
        jw_open(w, '{');
        jw_key(w, "buckets");
        jw_open(w, '[');
        for (iz i = 0; i < m->nb; i++) {
            jw_item(w);
            jw_open(w, '[');
            jw_item(w);
            jw_json(r, w, m->lo[i]);
            jw_item(w);
            jw_json(r, w, m->hi[i]);
            jw_close(w, ']');
        }
        jw_close(w, ']');
        jw_key(w, "counts");
        jw_open(w, '[');
        for (iz i = 0; i < m->nb; i++) {
            jw_item(w);
            jw_json(r, w, m->cnt[i]);
        }
        jw_close(w, ']');
        jw_close(w, '}');
    }
    jw_close(w, '}');
}

static void to_json(rp *r, const report *rep, const agg_report_opts *o, buf *b)
{
    jw w = {.b = b};
    jw_open(&w, '{');
    jw_key(&w, "version");
    pyfmt_json_str(b, str_cstr(o->version ? o->version : AGG_REPORT_UPSTREAM_VERSION), false);
    jw_key(&w, "git_sha");
    if (o->git_sha)
        pyfmt_json_str(b, str_cstr(o->git_sha), false);
    else
        buf_cstr(b, "null");
    jw_key(&w, "test_started_at");
    buf_byte(b, '0');
    jw_key(&w, "n_samples_issued");
    jw_int(r, &w, &rep->issued);
    jw_key(&w, "n_samples_completed");
    jw_int(r, &w, &rep->completed);
    jw_key(&w, "n_samples_failed");
    jw_int(r, &w, &rep->failed);
    jw_key(&w, "duration_ns");
    if (rep->has_duration)
        jw_int(r, &w, &rep->duration);
    else
        buf_cstr(b, "null");
    jw_key(&w, "state");
    jw_json(r, &w, rep->state);
    jw_key(&w, "complete");
    buf_cstr(b, rep->complete ? "true" : "false");
    for (int k = 0; k < NSERIES; k++) {
        jw_key(&w, series_fields[k]);
        put_metric(r, &w, &rep->m[k]);
    }
    jw_key(&w, "legacy_loadgen_window_duration_ns");
    if (rep->has_window)
        jw_int(r, &w, &rep->window);
    else
        buf_cstr(b, "null");
    jw_key(&w, "qps");
    if (rep->has_qps)
        jw_float(&w, rep->qps);
    else
        buf_cstr(b, "null");
    jw_key(&w, "tps");
    if (rep->has_tps)
        jw_float(&w, rep->tps);
    else
        buf_cstr(b, "null");
    jw_key(&w, "finish_reason_counts");
    jw_open(&w, '{');
    for (int k = 0; k < 6; k++) {
        jw_key(&w, finish_keys[k]);
        jw_int(r, &w, &rep->finish[k]);
    }
    jw_close(&w, '}');
    jw_key(&w, "run_config");
    if (o->run_config)
        jw_json(r, &w, o->run_config);
    else
        buf_cstr(b, "null");
    jw_close(&w, '}');
}

/* ---- Report.display ------------------------------------------------------------ */

static int fmt_2f_to(char *t, double x);

/* f"{x:.2f}": correctly rounded as glibc's printf is (checked against
 * Python on 1.5 million doubles); Python writes every NaN as "nan", where
 * printf would write "-nan" for a negative one. */
static void fmt_2f(buf *b, double x)
{
    char t[400];
    buf_put(b, t, fmt_2f_to(t, x));
}

/* str(v) of a JSON value (Python's str(): repr() inside containers). */
static void py_str(rp *r, buf *b, const json *v, bool top)
{
    switch ((json_type)v->type) {
    case JSON_NULL:
        buf_cstr(b, "None");
        return;
    case JSON_BOOL:
        buf_cstr(b, v->u.b ? "True" : "False");
        return;
    case JSON_INT:
        if (v->big)
            pyfmt_int_text(b, v->u.num);
        else
            buf_i64(b, v->u.i);
        return;
    case JSON_FLOAT:
        pyfmt_float_repr(b, v->u.f);
        return;
    case JSON_STR:
        buf_str(b, top ? v->u.s : pystr_repr(&r->a, v->u.s));
        return;
    case JSON_ARR:
        buf_byte(b, '[');
        for (iz i = 0; i < v->u.arr.n; i++) {
            if (i)
                buf_put(b, ", ", 2);
            py_str(r, b, &v->u.arr.items[i], false);
        }
        buf_byte(b, ']');
        return;
    case JSON_OBJ: {
        item *it;
        iz n = items(r, v, &it);
        buf_byte(b, '{');
        for (iz i = 0; i < n; i++) {
            if (i)
                buf_put(b, ", ", 2);
            buf_str(b, pystr_repr(&r->a, it[i].key));
            buf_put(b, ": ", 2);
            py_str(r, b, it[i].val, false);
        }
        buf_byte(b, '}');
        return;
    }
    }
}

enum { SCALED_MAX = 400 };   /* "%.2f" of the largest double: 309 digits, the point, 2 more */

/* f"{x:.2f}" into t (SCALED_MAX bytes); its length. */
static int fmt_2f_to(char *t, double x)
{
    if (isnan(x)) {
        memcpy(t, "nan", 3);
        return 3;
    }
    return snprintf(t, SCALED_MAX, "%.2f", x);
}

/* _scaled(v) (report.py:538-541): "N/A" for None, else f"{v * scale:.2f}",
 * into t; its length. */
static int scaled_to(rp *r, char *t, const json *v, double scale, const char *where, const char *what)
{
    if (is_null(v)) {
        memcpy(t, "N/A", 3);
        return 3;
    }
    rnum x = need_num(r, v, where, what, "v * scale_factor"), s = rnum_float(scale), out;
    return fmt_2f_to(t, chk(r, rnum_mul(&r->a, &x, &s, &out), out, v, where, what).f);
}

static void scaled(rp *r, buf *b, const json *v, double scale, const char *where, const char *what)
{
    char t[SCALED_MAX];
    buf_put(b, t, scaled_to(r, t, v, scale, where, what));
}

static iz cp_len(str s)
{
    iz n = 0;
    for (iz i = 0; i < s.len; i++)
        n += (s.s[i] & 0xc0) != 0x80;
    return n;
}

/* f"{s:>{width}}" */
static void rjust(buf *b, str s, iz width)
{
    for (iz k = cp_len(s); k < width; k++)
        buf_byte(b, ' ');
    buf_str(b, s);
}

/* The early-stopping map's block, or nothing for a falsy one (:575-581). */
static void es_block(rp *r, buf *b, const mdict *m, const char *unit, double scale)
{
    const json *es = m->esp;
    if (!es || !json_truthy(es))
        return;
    if (es->type != JSON_OBJ)
        fail(r, ERR_INVALID, es, "%searly_stopping_percentiles: a %s (upstream: AttributeError: '%s' object has "
             "no attribute 'items')", m->where, json_pytype(es), json_pytype(es));
    buf_cstr(b, "\n  Early-stopping percentile estimates (N/A = insufficient samples):\n");
    item *it;
    iz n = items(r, es, &it);
    for (iz i = 0; i < n; i++) {
        buf_cstr(b, "  ");
        rjust(b, it[i].key, 6);
        buf_cstr(b, ": ");
        scaled(r, b, it[i].val, scale, m->where, "early_stopping_percentiles value");
        buf_printf(b, " %s\n", unit);
    }
}

/* _display_metric (report.py:525-581) */
static void display_metric(rp *r, buf *b, const mdict *m, const char *unit, double scale)
{
    static const char *const names[5] = {"Min", "Max", "Median", "Avg.", "Std Dev."};
    for (int k = 0; k < 5; k++) {
        buf_printf(b, "  %s: ", names[k]);
        if (m->kind != M_FULL)
            buf_cstr(b, "N/A");
        else if (k == 0)
            scaled(r, b, m->min, scale, m->where, "min");
        else if (k == 1)
            scaled(r, b, m->max, scale, m->where, "max");
        else if (k == 2 && m->median)
            scaled(r, b, m->median, scale, m->where, "percentiles median");
        else
            fmt_2f(b, (k == 2 ? m->median_f : k == 3 ? m->avg : m->std) * scale);
        buf_printf(b, " %s\n", unit);
    }
    buf_cstr(b, "\n  Histogram:\n");
    if (m->kind == M_FULL && m->nb > 0) {
        /* labels, then max(counts) as Python's max() finds it */
        str *label = NEW_NZ(&r->a, str, m->nb);
        iz width = 0;
        for (iz i = 0; i < m->nb; i++) {
            char t[2 * SCALED_MAX + 8];
            int n = 3;
            memcpy(t, "  [", 3);
            n += scaled_to(r, t + n, m->lo[i], scale, m->where, "histogram bucket low edge");
            memcpy(t + n, ", ", 2);
            n += 2;
            n += scaled_to(r, t + n, m->hi[i], scale, m->where, "histogram bucket high edge");
            t[n++] = i == m->nb - 1 ? ']' : ')';
            label[i] = arena_strdup(&r->a, str_from(t, n));
            width = MAX(width, label[i].len);
        }
        rnum *cn = NEW_NZ(&r->a, rnum, m->nb);
        iz imax = 0;
        for (iz i = 0; i < m->nb; i++) {
            cn[i] = need_num(r, m->cnt[i], m->where, "histogram count", "max(counts)");
            if (i && rnum_cmp(&r->a, &cn[i], &cn[imax]) == 1)
                imax = i;
        }
        rnum zero = rnum_int(&r->a, 0), thirty = rnum_int(&r->a, 30), norm, out;
        /* normalize = max_bar_length / max_count if max_count > 0 else 1 */
        if (rnum_cmp(&r->a, &cn[imax], &zero) == 1)
            norm = chk(r, rnum_div(&r->a, &thirty, &cn[imax], &out), out, m->cnt[imax], m->where,
                       "max_bar_length / max_count");
        else
            norm = rnum_int(&r->a, 1);
        for (iz i = 0; i < m->nb; i++) {
            /* "#" * int(count * normalize) */
            rnum p = chk(r, rnum_mul(&r->a, &cn[i], &norm, &out), out, m->cnt[i], m->where, "count * normalize");
            rnum bar = chk(r, rnum_to_int(&r->a, &p, &out), out, m->cnt[i], m->where, "int(count * normalize)");
            /* str * int wants a Py_ssize_t even when it gives "" */
            rnum lo = rnum_int(&r->a, INT64_MIN), lim = rnum_int(&r->a, 1000);
            if (rnum_cmp(&r->a, &bar, &lo) == -1)
                fail(r, ERR_INVALID, m->cnt[i], "%shistogram count: \"#\" * int(count * normalize) (upstream "
                     "raises OverflowError: cannot fit 'int' into an index-sized integer)", m->where);
            if (rnum_cmp(&r->a, &bar, &lim) == 1)   /* count <= max_count keeps it at 30 or below */
                fail(r, ERR_INVALID, m->cnt[i], "%shistogram count: a bar longer than 1000", m->where);
            buf_cstr(b, "  ");
            rjust(b, label[i], width);
            buf_cstr(b, " |");
            for (iz k = bar.sign > 0 ? (iz)bar.d[0] : 0; k > 0; k--)
                buf_byte(b, '#');
            buf_byte(b, ' ');
            py_str(r, b, m->cnt[i], true);
            buf_byte(b, '\n');
        }
    }
    buf_cstr(b, "\n  Percentiles:\n");
    for (iz i = 0; m->kind == M_FULL && i < m->nperc; i++) {
        buf_cstr(b, "  ");
        rjust(b, m->perc[i].key, 6);
        buf_cstr(b, ": ");
        scaled(r, b, m->perc[i].val, scale, m->where, "percentiles value");
        buf_printf(b, " %s\n", unit);
    }
    es_block(r, b, m, unit, scale);
}

static void display(rp *r, const report *rep, const agg_report_opts *o, buf *b)
{
    buf_cstr(b, "----------------- Summary -----------------\n");
    if (rep->state->type == JSON_STR && str_eq(rep->state->u.s, S("interrupted")))
        buf_cstr(b, "WARNING: run was interrupted (SIGTERM/SIGINT) \xe2\x80\x94 metrics below are best-effort "
                 "partial data.\n");
    else if (!rep->complete)
        buf_cstr(b, "WARNING: report is incomplete (drain timed out or no final snapshot received) \xe2\x80\x94 "
                 "some async metrics may be missing.\n");
    buf_printf(b, "Version: %s\n", o->version ? o->version : AGG_REPORT_UPSTREAM_VERSION);
    if (o->git_sha && *o->git_sha)
        buf_printf(b, "Git SHA: %s\n", o->git_sha);
    const json *rc = o->run_config;
    if (rc && json_truthy(rc)) {
        if (rc->type != JSON_OBJ)
            fail(r, ERR_INVALID, NULL, "run_config: a %s (upstream: AttributeError: '%s' object has no attribute "
                 "'items')", json_pytype(rc), json_pytype(rc));
        buf_cstr(b, "Run config:\n");
        item *it;
        iz n = items(r, rc, &it);
        for (iz i = 0; i < n; i++) {
            buf_cstr(b, "  ");
            buf_str(b, it[i].key);
            buf_cstr(b, ": ");
            const json *p = it[i].val;
            if (p->type == JSON_OBJ) {
                /* ", ".join(f"{k}={v}" for k, v in params.items()) */
                item *in;
                iz m = items(r, p, &in);
                for (iz k = 0; k < m; k++) {
                    if (k)
                        buf_cstr(b, ", ");
                    buf_str(b, in[k].key);
                    buf_byte(b, '=');
                    py_str(r, b, in[k].val, true);
                }
            } else {
                py_str(r, b, p, true);
            }
            buf_byte(b, '\n');
        }
    }
    buf_cstr(b, "Total samples issued: ");
    rnum_write(&r->a, b, &rep->issued);
    buf_cstr(b, "\nTotal samples completed: ");
    rnum_write(&r->a, b, &rep->completed);
    buf_cstr(b, "\nTotal samples failed: ");
    rnum_write(&r->a, b, &rep->failed);
    buf_cstr(b, "\nDuration: ");
    if (rep->has_duration) {
        rnum e9 = rnum_float(1e9), out;
        fmt_2f(b, chk(r, rnum_div(&r->a, &rep->duration, &e9, &out), out, NULL, "display: ",
                      "duration_ns / 1e9").f);
        buf_cstr(b, " seconds\n");
    } else {
        buf_cstr(b, "N/A\n");
    }
    buf_cstr(b, "QPS: ");
    if (rep->has_qps)
        fmt_2f(b, rep->qps);
    else
        buf_cstr(b, "N/A");
    buf_cstr(b, "\nTPS: ");
    if (rep->has_tps)
        fmt_2f(b, rep->tps);
    else
        buf_cstr(b, "N/A");
    buf_cstr(b, "\n\n------------------- Latency Breakdowns -------------------\n");

    static const char *const titles[NSERIES] = {"TTFT", "TPOT", "Latency", "Output sequence lengths",
                                                "Input sequence lengths"};
    /* display's order: TTFT, TPOT, Latency, Input, Output */
    static const int order[NSERIES] = {S_TTFT, S_TPOT, S_LATENCY, S_ISL, S_OSL};
    for (int k = 0; k < NSERIES; k++) {
        const mdict *m = &rep->m[order[k]];
        if (m->kind == M_EMPTY)
            continue;
        bool ms = order[k] == S_TTFT || order[k] == S_TPOT || order[k] == S_LATENCY;
        buf_printf(b, "%s:\n", titles[order[k]]);
        display_metric(r, b, m, ms ? "ms" : "tokens", ms ? 1e-6 : 1.0);
        buf_byte(b, '\n');
    }
    buf_cstr(b, "----------------- End of Report -----------------\n");
}

/* ---- entry points ---------------------------------------------------------------- */

int agg_report_build(str snapshot_json, const agg_report_opts *o, buf *summary, buf *text, err *e)
{
    iz slen = summary->len, tlen = text->len;
    if (snapshot_json.len > AGG_REPORT_MAX_TEXT)
        return err_set(e, ERR_LIMIT, -1, "final snapshot: %td bytes, more than the %d this reads",
                       snapshot_json.len, (int)AGG_REPORT_MAX_TEXT);
    rp *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(e, ERR_NOMEM, -1, "out of memory");
    /* The tree takes a few times the text; the numbers little more. */
    arena_init(&r->a, 16 * snapshot_json.len + (64 << 20));
    r->a.oom = &r->jb;
    r->src = snapshot_json;
    r->e = e;
    int rc = setjmp(r->jb);
    if (rc == 0) {
        json_opts jo = {AGG_REPORT_MAX_DEPTH};
        err pe = {0};
        json *snap = json_parse(&r->a, snapshot_json, &jo, &pe);
        if (!snap) {
            if (e) {
                *e = pe;
                err_prefix(e, "final snapshot: not JSON");
            }
            rc = pe.code ? pe.code : ERR_SYNTAX;
        } else {
            check_ints(r, snap, 0, "final snapshot");
            if (o->run_config)
                check_ints(r, o->run_config, 1, "run_config");
            report rep = {0};
            from_snapshot(r, snap, o->legacy_loadgen_qps, &rep);
            to_json(r, &rep, o, summary);
            display(r, &rep, o, text);
            if (summary->failed || text->failed)
                rc = err_set(e, ERR_NOMEM, -1, "out of memory writing the report");
        }
    } else if (rc == 1) {   /* the arena's out-of-memory jump (fail() passes the code, never 1 = ERR_NOMEM) */
        rc = err_set(e, ERR_NOMEM, -1, "out of memory building the report");
    }
    arena_fini(&r->a);
    free(r);
    if (rc != ERR_OK) {
        summary->len = MIN(summary->len, slen);
        text->len = MIN(text->len, tlen);
    }
    return rc;
}

void agg_report_summary_lines(str t, buf *out)
{
    static const char head[] = "\n\n------------------- Latency Breakdowns -------------------\n";
    iz end = -1;
    for (iz i = 0; i + lengthof(head) <= t.len; i++)
        if (t.s[i] == '\n' && !memcmp(t.s + i, head, lengthof(head))) {
            end = i + 1;
            break;
        }
    if (end < 0) {
        end = t.len;
        for (iz i = 0; i + 1 < t.len; i++)
            if (t.s[i] == '\n' && t.s[i + 1] == '\n') {
                end = i + 1;
                break;
            }
    }
    buf_put(out, t.s, end);
}
