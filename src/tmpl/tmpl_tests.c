/* tmpl_tests.c - Jinja2 3.1.2's built-in tests (jinja2.tests.TESTS) as
 * they run in the sandbox (tmpl_test_apply, tmpl_value.h), argument
 * errors included; the kind tests without arguments are inline
 * (tmpl_test_kind). */
#include "tmpl_lib.h"
#include "tmpl_pystr.h"

SIG(ST_ODD, "test_odd", 1, 0, 1, 0, "value");
SIG(ST_EVEN, "test_even", 1, 0, 1, 0, "value");
SIG(ST_DIVISIBLEBY, "test_divisibleby", 2, 0, 2, 0, "value", "num");
SIG(ST_DEFINED, "test_defined", 1, 0, 1, 0, "value");
SIG(ST_UNDEFINED, "test_undefined", 1, 0, 1, 0, "value");
SIG(ST_FILTER, "test_filter", 2, 1, 2, 0, "env", "value");
SIG(ST_TEST, "test_test", 2, 1, 2, 0, "env", "value");
SIG(ST_NONE, "test_none", 1, 0, 1, 0, "value");
SIG(ST_BOOLEAN, "test_boolean", 1, 0, 1, 0, "value");
SIG(ST_FALSE, "test_false", 1, 0, 1, 0, "value");
SIG(ST_TRUE, "test_true", 1, 0, 1, 0, "value");
SIG(ST_INTEGER, "test_integer", 1, 0, 1, 0, "value");
SIG(ST_FLOAT, "test_float", 1, 0, 1, 0, "value");
SIG(ST_LOWER, "test_lower", 1, 0, 1, 0, "value");
SIG(ST_UPPER, "test_upper", 1, 0, 1, 0, "value");
SIG(ST_STRING, "test_string", 1, 0, 1, 0, "value");
SIG(ST_MAPPING, "test_mapping", 1, 0, 1, 0, "value");
SIG(ST_NUMBER, "test_number", 1, 0, 1, 0, "value");
SIG(ST_SEQUENCE, "test_sequence", 1, 0, 1, 0, "value");
SIG(ST_SAMEAS, "test_sameas", 2, 0, 2, 0, "value", "other");
SIG(ST_ITERABLE, "test_iterable", 1, 0, 1, 0, "value");
SIG(ST_ESCAPED, "test_escaped", 1, 0, 1, 0, "value");
SIG(ST_IN, "test_in", 2, 0, 2, 0, "value", "seq");

/* One of the operator module's functions (eq, ne, lt, ...). */
static tv op_other(tmpl_rt *rt, const char *name, const tv_args *a)
{
    if (a->nkw)
        tmpl_raise(rt, "TypeError", "_operator.%s() takes no keyword arguments", name);
    if (a->npos != 1)
        tmpl_raise(rt, "TypeError", "%s expected 2 arguments, got %d", name, 1 + a->npos);
    return a->pos[0];
}

/* `value is other`. Python compares identities, which values built here
 * do not have in general: singletons and small ints (cached by CPython)
 * compare by value, strings of at most one Latin-1 character likewise
 * (CPython caches those too), containers and longer strings by the storage
 * they share, floats by their bits. */
static bool sameas(tv x, tv y)
{
    if (x.kind != y.kind || x.flags != y.flags)
        return false;
    switch (x.kind) {
    case TV_NONE: return true;
    case TV_BOOL: return x.u.b == y.u.b;
    case TV_INT: return x.u.i == y.u.i && x.u.i >= -5 && x.u.i <= 256;
    case TV_FLOAT: return memcmp(&x.u.f, &y.u.f, sizeof(double)) == 0;
    case TV_STR: {
        str a = tv_s(x), b = tv_s(y);
        if (str_eq(a, b) && (a.len == 0 || (pystr_len(a) == 1 && a.s[0] < 0xc4)))
            return true;
        return a.s == b.s && a.len == b.len;
    }
    case TV_BIGINT:
        return tv_s(x).s == tv_s(y).s;
    case TV_FUNC:
        return x.id == y.id;
    default:
        return x.u.list == y.u.list;   /* the same object behind the pointer */
    }
}

bool tmpl_test_apply(tmpl_rt *rt, int id, tv v, const tv_args *args)
{
    static const tv_args none = {0};
    const tv_args *a = args ? args : &none;
    bool r;
    if (!a->npos && !a->nkw && tmpl_test_kind(id, v, &r))
        return r;
    tmpl_work(rt, 1 + tv_steps(v) + tv_args_steps(a));
    tmpl_bound b;
    switch ((tmpl_test_id)id) {
    case TMPL_TEST_ODD:
        tmpl_bind(rt, &ST_ODD, v, a, &b);
        return tv_eq(tv_mod(rt, v, tv_int(2)), tv_int(1));
    case TMPL_TEST_EVEN:
        tmpl_bind(rt, &ST_EVEN, v, a, &b);
        return tv_eq(tv_mod(rt, v, tv_int(2)), tv_int(0));
    case TMPL_TEST_DIVISIBLEBY:
        tmpl_bind(rt, &ST_DIVISIBLEBY, v, a, &b);
        return tv_eq(tv_mod(rt, v, b.v[1]), tv_int(0));
    case TMPL_TEST_DEFINED:
        tmpl_bind(rt, &ST_DEFINED, v, a, &b);
        return v.kind != TV_UNDEF;
    case TMPL_TEST_UNDEFINED:
        tmpl_bind(rt, &ST_UNDEFINED, v, a, &b);
        return v.kind == TV_UNDEF;
    case TMPL_TEST_FILTER: case TMPL_TEST_TEST:
        tmpl_bind(rt, id == TMPL_TEST_FILTER ? &ST_FILTER : &ST_TEST, v, a, &b);
        v = b.v[1];
        if (v.kind == TV_STR)
            return id == TMPL_TEST_FILTER ? tmpl_filter_lookup(tv_s(v)) != TMPL_FILTER_UNKNOWN
                                          : tmpl_test_lookup(tv_s(v)) != TMPL_TEST_UNKNOWN;
        if (v.kind != TV_UNDEF)
            (void)tv_hash(rt, v);   /* `in` a dict: TypeError when unhashable */
        return false;
    case TMPL_TEST_NONE:
        tmpl_bind(rt, &ST_NONE, v, a, &b);
        return v.kind == TV_NONE;
    case TMPL_TEST_BOOLEAN:
        tmpl_bind(rt, &ST_BOOLEAN, v, a, &b);
        return v.kind == TV_BOOL;
    case TMPL_TEST_FALSE:
        tmpl_bind(rt, &ST_FALSE, v, a, &b);
        return v.kind == TV_BOOL && !v.u.b;
    case TMPL_TEST_TRUE:
        tmpl_bind(rt, &ST_TRUE, v, a, &b);
        return v.kind == TV_BOOL && v.u.b;
    case TMPL_TEST_INTEGER:
        tmpl_bind(rt, &ST_INTEGER, v, a, &b);
        return v.kind == TV_INT || v.kind == TV_BIGINT;
    case TMPL_TEST_FLOAT:
        tmpl_bind(rt, &ST_FLOAT, v, a, &b);
        return v.kind == TV_FLOAT;
    case TMPL_TEST_LOWER: case TMPL_TEST_UPPER:
        tmpl_bind(rt, id == TMPL_TEST_LOWER ? &ST_LOWER : &ST_UPPER, v, a, &b);
        return pystr_is(to_s(rt, v), id == TMPL_TEST_LOWER ? PYSTR_LOWER : PYSTR_UPPER);
    case TMPL_TEST_STRING:
        tmpl_bind(rt, &ST_STRING, v, a, &b);
        return v.kind == TV_STR;
    case TMPL_TEST_MAPPING:
        tmpl_bind(rt, &ST_MAPPING, v, a, &b);
        return v.kind == TV_DICT;
    case TMPL_TEST_NUMBER:
        tmpl_bind(rt, &ST_NUMBER, v, a, &b);
        return tv_is_number(v);
    case TMPL_TEST_SEQUENCE:
        /* len(value) and value.__getitem__ both exist */
        tmpl_bind(rt, &ST_SEQUENCE, v, a, &b);
        return v.kind == TV_STR || tv_is_seq(v) || v.kind == TV_DICT || v.kind == TV_UNDEF;
    case TMPL_TEST_ITERABLE:
        tmpl_bind(rt, &ST_ITERABLE, v, a, &b);
        return v.kind == TV_STR || v.kind == TV_LIST || v.kind == TV_TUPLE || v.kind == TV_DICT ||
               v.kind == TV_UNDEF || v.kind == TV_LOOP;
    case TMPL_TEST_CALLABLE:
        tmpl_builtin1(rt, "callable", a);
        return v.kind == TV_FUNC || v.kind == TV_MACRO || v.kind == TV_METHOD ||
               v.kind == TV_JOINER || v.kind == TV_LOOP || v.kind == TV_UNDEF;
    case TMPL_TEST_SAMEAS:
        tmpl_bind(rt, &ST_SAMEAS, v, a, &b);
        return sameas(v, b.v[1]);
    case TMPL_TEST_ESCAPED:
        tmpl_bind(rt, &ST_ESCAPED, v, a, &b);
        return is_safe(v);
    case TMPL_TEST_IN:
        tmpl_bind(rt, &ST_IN, v, a, &b);
        if (b.v[1].kind == TV_UNDEF)
            return false;   /* iterating an Undefined finds nothing */
        return tv_contains(rt, b.v[1], v);
    case TMPL_TEST_EQ:
        return tv_equal(rt, v, op_other(rt, "eq", a));
    case TMPL_TEST_NE:
        return !tv_equal(rt, v, op_other(rt, "ne", a));
    case TMPL_TEST_LT:
        return tv_compare(rt, TMPL_OP_LT, v, op_other(rt, "lt", a));
    case TMPL_TEST_LE:
        return tv_compare(rt, TMPL_OP_LE, v, op_other(rt, "le", a));
    case TMPL_TEST_GT:
        return tv_compare(rt, TMPL_OP_GT, v, op_other(rt, "gt", a));
    case TMPL_TEST_GE:
        return tv_compare(rt, TMPL_OP_GE, v, op_other(rt, "ge", a));
    case TMPL_TEST_UNKNOWN:
    case TMPL_TEST_COUNT:
        break;
    }
    tmpl_fail(rt, ERR_UNSUPPORTED, "test id %d", id);
}

