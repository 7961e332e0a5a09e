/* tmpl_arith.c - Python's arithmetic operators on template values
 * (tmpl_binop, tmpl_value.h): + - * / // % ** with Python's results,
 * promotions and exceptions, sequence + and *, Markup + str. The evaluator
 * adds and subtracts two ints itself; everything else comes here. */
#include <math.h>

#include "tmpl_value.h"

static const char *binop_text(int op)
{
    switch (op) {
    case TMPL_OP_ADD: return "+";
    case TMPL_OP_SUB: return "-";
    case TMPL_OP_MUL: return "*";
    case TMPL_OP_DIV: return "/";
    case TMPL_OP_FLOORDIV: return "//";
    case TMPL_OP_MOD: return "%";
    case TMPL_OP_POW: return "** or pow()";
    default: return "?";
    }
}

_Noreturn static void unsupported_operands(tmpl_rt *rt, int op, tv a, tv b)
{
    tmpl_raise(rt, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
               binop_text(op), tv_type_name(a), tv_type_name(b));
}

static i64 as_i64(tv v) { return v.kind == TV_BOOL ? (i64)v.u.b : v.u.i; }
static double as_f64(tv v) { return v.kind == TV_FLOAT ? v.u.f : (double)as_i64(v); }

_Noreturn static void int_overflow(tmpl_rt *rt)
{
    tmpl_fail(rt, ERR_UNSUPPORTED, "integer arithmetic beyond 64 bits");
}

/* Markup's escaping, for Markup + str. */
static str html_escape(tmpl_rt *rt, str s)
{
    buf b = {0};
    for (iz i = 0; i < s.len; i++) {
        switch (s.s[i]) {
        case '&':  buf_cstr(&b, "&amp;"); break;
        case '<':  buf_cstr(&b, "&lt;"); break;
        case '>':  buf_cstr(&b, "&gt;"); break;
        case '"':  buf_cstr(&b, "&#34;"); break;
        case '\'': buf_cstr(&b, "&#39;"); break;
        default:   buf_byte(&b, s.s[i]); break;
        }
    }
    tv r = tv_str_from_buf(rt, &b);
    buf_free(&b);
    return tv_s(r);
}

static tv seq_repeat(tmpl_rt *rt, tv seq, i64 times)
{
    if (times < 0)
        times = 0;
    if ((seq.kind == TV_STR ? seq.len : seq.u.list->n) == 0)
        times = 0;   /* '' * 2**53 is '' at once, not after 2**53 empty copies */
    if (seq.kind == TV_STR) {
        str s = tv_s(seq);
        if (s.len && times > TMPL_MAX_OUTPUT / s.len)
            tmpl_fail(rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
        iz n = s.len * (iz)times;
        tmpl_work(rt, times + tmpl_bytes_steps(n));
        u8 *p = NEW_NZ(rt->a, u8, n + 1);
        for (i64 k = 0; k < times; k++)
            memcpy(p + k * s.len, s.s, (size_t)s.len);
        tv r = tv_str(str_from(p, n));
        r.flags = seq.flags;
        return r;
    }
    iz m = seq.u.list->n;
    if (m && times > (TMPL_MAX_OUTPUT / (i64)sizeof(tv)) / m)
        tmpl_fail(rt, ERR_LIMIT, "a list grew past the output limit");
    tmpl_work(rt, times + m * (iz)times);
    tv r = seq.kind == TV_TUPLE ? tv_tuple_new(rt, m * (iz)times) : tv_list_new(rt, m * (iz)times);
    for (i64 k = 0; k < times; k++)
        for (iz i = 0; i < m; i++)
            r.u.list->v[k * m + i] = seq.u.list->v[i];
    return r;
}

/* Python's float divmod. */
static double py_fmod(double a, double b)
{
    double m = fmod(a, b);
    if (m != 0.0) {
        if ((b < 0) != (m < 0))
            m += b;
    } else {
        m = copysign(0.0, b);
    }
    return m;
}

static double py_floordiv(double a, double b)
{
    double m = fmod(a, b);
    double d = (a - m) / b;
    if (m != 0.0 && (b < 0) != (m < 0))
        d -= 1.0;
    if (d != 0.0) {
        double f = floor(d);
        if (d - f > 0.5)
            f += 1.0;
        d = f;
    } else {
        d = copysign(0.0, a / b);
    }
    return d;
}

static tv ipow(tmpl_rt *rt, i64 base, i64 ex)
{
    i64 r = 1;
    while (ex > 0) {
        if (ex & 1)
            if (__builtin_mul_overflow(r, base, &r))
                int_overflow(rt);
        ex >>= 1;
        if (ex && __builtin_mul_overflow(base, base, &base))
            int_overflow(rt);
    }
    return tv_int(r);
}

/* int / int as Python divides them (long_true_divide): the quotient
 * correctly rounded, also when an operand has more than 53 bits, where
 * converting both to double first could round twice. b is not 0. */
static double int_true_div(i64 a, i64 b)
{
    const i64 exact = (i64)1 << 53;
    if (a >= -exact && a <= exact && b >= -exact && b <= exact)
        return (double)a / (double)b;   /* both exact: IEEE's division is correctly rounded */
    bool neg = (a < 0) != (b < 0);
    u64 ua = a < 0 ? -(u64)a : (u64)a, ub = b < 0 ? -(u64)b : (u64)b;
    if (ua == 0)
        return neg ? -0.0 : 0.0;
    /* ua shifted to the top of 128 bits, so that the integer quotient has
     * at least 63 bits; then its top 64 bits, with every bit below them
     * (and the remainder) folded into the lowest, which lies far below
     * double's rounding position: one correct rounding, by the u64
     * conversion */
    int shift = 127 - (63 - __builtin_clzll(ua));
    __extension__ typedef unsigned __int128 u128;
    u128 n = (u128)ua << shift;
    u128 q = n / ub;
    bool sticky = n % ub != 0;
    int drop = 0;
    while ((q >> 64) != 0) {
        sticky |= (q & 1) != 0;
        q >>= 1;
        drop++;
    }
    u64 m = (u64)q | (u64)sticky;
    double r = ldexp((double)m, drop - shift);
    return neg ? -r : r;
}

tv tmpl_binop(tmpl_rt *rt, int op, tv a, tv b)
{
    /* int + int and int - int first: index arithmetic of loops */
    if (a.kind == TV_INT && b.kind == TV_INT && (op == TMPL_OP_ADD || op == TMPL_OP_SUB)) {
        i64 r;
        if (op == TMPL_OP_ADD ? __builtin_add_overflow(a.u.i, b.u.i, &r)
                              : __builtin_sub_overflow(a.u.i, b.u.i, &r))
            int_overflow(rt);
        return tv_int(r);
    }
    if (a.kind == TV_UNDEF)
        tv_undef_raise(rt, a);
    if (op == TMPL_OP_MOD && a.kind == TV_STR)   /* str.__mod__ formats an Undefined too */
        return tv_percent(rt, a, b);
    if (b.kind == TV_UNDEF)
        tv_undef_raise(rt, b);
    if (tv_is_iter(a) || tv_is_iter(b)) {
        /* iterators take part in no operator */
        bool seq_a = tv_repeatable(a);
        if (op == TMPL_OP_ADD && seq_a)
            tv_concat_error(rt, a, b);
        if (op == TMPL_OP_MUL && (seq_a || tv_repeatable(b)))
            tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type '%s'",
                       tv_type_name(seq_a ? b : a));
        unsupported_operands(rt, op, a, b);
    }
    bool ai = a.kind == TV_INT || a.kind == TV_BOOL, bi = b.kind == TV_INT || b.kind == TV_BOOL;
    bool an = ai || a.kind == TV_FLOAT, bn = bi || b.kind == TV_FLOAT;
    if (a.kind == TV_BIGINT || b.kind == TV_BIGINT) {
        if ((tv_is_number(a) || a.kind == TV_BIGINT) && (tv_is_number(b) || b.kind == TV_BIGINT))
            tmpl_fail(rt, ERR_UNSUPPORTED, "arithmetic on integers beyond 64 bits");
        bool seq_a = tv_repeatable(a), seq_b = tv_repeatable(b);
        if (op == TMPL_OP_ADD && seq_a)
            tv_concat_error(rt, a, b);
        if (op == TMPL_OP_MUL && (seq_a || seq_b))   /* the count must fit a Py_ssize_t */
            tmpl_raise(rt, "OverflowError", "cannot fit 'int' into an index-sized integer");
        unsupported_operands(rt, op, a, b);
    }
    switch (op) {
    case TMPL_OP_ADD:
        if (ai && bi) {
            i64 r;
            if (__builtin_add_overflow(as_i64(a), as_i64(b), &r))
                int_overflow(rt);
            return tv_int(r);
        }
        if (an && bn)
            return tv_float(as_f64(a) + as_f64(b));
        if (a.kind == TV_STR) {
            if (b.kind != TV_STR)
                tv_concat_error(rt, a, b);
            str x = tv_s(a), y = tv_s(b);
            if (!((a.flags | b.flags) & TVF_SAFE)) {   /* maybe appended in place */
                if (x.len + y.len > TMPL_MAX_OUTPUT)
                    tmpl_fail(rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
                tv parts[2] = {a, b};
                return tv_str_sum(rt, parts, 2, x.len + y.len);
            }
            if (!(a.flags & TVF_SAFE)) x = html_escape(rt, x);
            if (!(b.flags & TVF_SAFE)) y = html_escape(rt, y);
            if (x.len + y.len > TMPL_MAX_OUTPUT)
                tmpl_fail(rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
            tmpl_work(rt, tmpl_bytes_steps(x.len + y.len));
            u8 *p = NEW_NZ(rt->a, u8, x.len + y.len + 1);
            if (x.len) memcpy(p, x.s, (size_t)x.len);
            if (y.len) memcpy(p + x.len, y.s, (size_t)y.len);
            tv r = tv_str(str_from(p, x.len + y.len));
            r.flags = TVF_SAFE;
            return r;
        }
        if (tv_repeatable(a)) {   /* a list or a tuple */
            if (b.kind != a.kind || !tv_repeatable(b))
                tv_concat_error(rt, a, b);
            return tv_seq_concat(rt, a, b);
        }
        unsupported_operands(rt, op, a, b);
    case TMPL_OP_SUB:
        if (ai && bi) {
            i64 r;
            if (__builtin_sub_overflow(as_i64(a), as_i64(b), &r))
                int_overflow(rt);
            return tv_int(r);
        }
        if (an && bn)
            return tv_float(as_f64(a) - as_f64(b));
        unsupported_operands(rt, op, a, b);
    case TMPL_OP_MUL:
        if (ai && bi) {
            i64 r;
            if (__builtin_mul_overflow(as_i64(a), as_i64(b), &r))
                int_overflow(rt);
            return tv_int(r);
        }
        if (an && bn)
            return tv_float(as_f64(a) * as_f64(b));
        if (tv_repeatable(a) && bi)
            return seq_repeat(rt, a, as_i64(b));
        if (tv_repeatable(b) && ai)
            return seq_repeat(rt, b, as_i64(a));
        if (tv_repeatable(a) || tv_repeatable(b)) {
            /* PyNumber_Multiply's last resort, the left operand's repeat
             * when it is a sequence, else the right one's */
            bool left = tv_repeatable(a);
            if (!((left ? a : b).flags & TVF_SAFE))   /* Markup's repeat is its __mul__: declines */
                tmpl_raise(rt, "TypeError", "can't multiply sequence by non-int of type '%s'",
                           tv_type_name(left ? b : a));
        }
        unsupported_operands(rt, op, a, b);
    case TMPL_OP_DIV:
        if (an && bn) {
            double y = as_f64(b);
            if (y == 0.0)
                tmpl_raise(rt, "ZeroDivisionError", ai && bi ? "division by zero" : "float division by zero");
            return tv_float(ai && bi ? int_true_div(as_i64(a), as_i64(b)) : as_f64(a) / y);
        }
        unsupported_operands(rt, op, a, b);
    case TMPL_OP_FLOORDIV:
        if (ai && bi) {
            i64 x = as_i64(a), y = as_i64(b);
            if (y == 0)
                tmpl_raise(rt, "ZeroDivisionError", "integer division or modulo by zero");
            if (x == INT64_MIN && y == -1)
                int_overflow(rt);
            i64 q = x / y;
            if ((x % y != 0) && ((x < 0) != (y < 0)))
                q--;
            return tv_int(q);
        }
        if (an && bn) {
            double y = as_f64(b);
            if (y == 0.0)
                tmpl_raise(rt, "ZeroDivisionError", "float floor division by zero");
            return tv_float(py_floordiv(as_f64(a), y));
        }
        unsupported_operands(rt, op, a, b);
    case TMPL_OP_MOD:   /* str % x: above */
        if (ai && bi) {
            i64 x = as_i64(a), y = as_i64(b);
            if (y == 0)
                tmpl_raise(rt, "ZeroDivisionError", "integer modulo by zero");
            if (y == -1)
                return tv_int(0);
            i64 m = x % y;
            if (m != 0 && ((m < 0) != (y < 0)))
                m += y;
            return tv_int(m);
        }
        if (an && bn) {
            double y = as_f64(b);
            if (y == 0.0)
                tmpl_raise(rt, "ZeroDivisionError", "float modulo");
            return tv_float(py_fmod(as_f64(a), y));
        }
        unsupported_operands(rt, op, a, b);
    case TMPL_OP_POW:
        if (ai && bi) {
            i64 x = as_i64(a), y = as_i64(b);
            if (y >= 0)
                return ipow(rt, x, y);
            if (x == 0)
                tmpl_raise(rt, "ZeroDivisionError", "0.0 cannot be raised to a negative power");
            return tv_float(pow((double)x, (double)y));
        }
        if (an && bn) {
            double x = as_f64(a), y = as_f64(b);
            if (x == 0.0 && y < 0)
                tmpl_raise(rt, "ZeroDivisionError", "0.0 cannot be raised to a negative power");
            if (x < 0 && y != floor(y))
                tmpl_fail(rt, ERR_UNSUPPORTED, "a complex power");
            double r = pow(x, y);
            if (isinf(r) && isfinite(x) && isfinite(y))   /* float_pow: ERANGE */
                tmpl_raise(rt, "OverflowError", "(34, 'Numerical result out of range')");
            return tv_float(r);
        }
        unsupported_operands(rt, op, a, b);
    default:
        tmpl_fail(rt, ERR_UNSUPPORTED, "operator %d", op);
    }
}
