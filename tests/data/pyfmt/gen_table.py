#!/usr/bin/env python3
"""Prints the power-of-ten table of src/json/pyfmt.c (python3, stdlib only).

Entry k (for k = PYFMT_K_MIN .. PYFMT_K_MAX) is g(k) = ceil(10^-k * 2^(125 - r))
with r = floor(-k * log2(10)), so 2^125 <= g < 2^126 and g * 2^(r - 125) is
10^-k rounded up (exact when 10^-k * 2^(125 - r) is an integer). It is printed
as {high 64 bits, low 64 bits}. The script also checks the integer formulas
pyfmt.c uses for floor(q log10 2), floor(q log10 2 + log10 3/4) and
floor(e log2 10) over every exponent a double can need, and exits non-zero if
one is wrong.

    python3 tests/data/pyfmt/gen_table.py > /tmp/table.inc
"""
import sys
from fractions import Fraction

K_MIN, K_MAX = -324, 292


def floor_log(base, x):
    """floor(log_base(x)) for a positive Fraction x, exactly."""
    k = 0
    while Fraction(base) ** k > x:
        k -= 1
    while Fraction(base) ** (k + 1) <= x:
        k += 1
    return k


def main():
    bad = []
    for q in range(-1080, 1080):
        two_q = Fraction(2) ** q
        if (q * 315653) >> 20 != floor_log(10, two_q):
            bad.append(("flog10pow2", q))
        if (q * 315653 - 131008) >> 20 != floor_log(10, Fraction(3, 4) * two_q):
            bad.append(("flog10_3_4_pow2", q))
    for e in range(-340, 340):
        if (e * 1741647) >> 19 != floor_log(2, Fraction(10) ** e):
            bad.append(("flog2pow10", e))
    if bad:
        sys.exit("formula check failed: %r" % bad[:5])
    # The k range the algorithm needs: regular and asymmetric intervals.
    ks = [(q * 315653) >> 20 for q in range(-1074, 972)]
    ks += [(q * 315653 - 131008) >> 20 for q in range(-1073, 972)]
    if min(ks) != K_MIN or max(ks) != K_MAX:
        sys.exit("k range is %d..%d" % (min(ks), max(ks)))
    out = []
    for k in range(K_MIN, K_MAX + 1):
        r = (-k * 1741647) >> 19
        x = Fraction(10) ** -k * Fraction(2) ** (125 - r)
        g = -((-x.numerator) // x.denominator)   # ceil
        assert 2 ** 125 <= g < 2 ** 126
        out.append("    {0x%016x, 0x%016x}, /* %4d */" % (g >> 64, g & (2 ** 64 - 1), k))
    print("\n".join(out))


if __name__ == "__main__":
    main()
