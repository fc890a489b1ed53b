"""Parse front ends side by side: the fast tokenizer-driven parser against lark.

The fast front end is checked against the grammar by tests/syntax/test_parse_frontend.py
(same trees, same errors); this script only measures it.  Run:

    python benchmarks/bench_parse.py
"""

from __future__ import annotations

import functools

from _harness import compare, fmt_time, ratio

from symshape import _fastparse, _larkparse

TEXTS = [
    ("comparison_input", "floordiv(t, 128)*128 + mod(t, 128) >= t"),
    ("comparison_input", "a >= b + 8"),
    ("spec_input", "b, 2*h + 1, max(b, h), floordiv(t - 1, 128) + 1"),
    ("comparison_input", "max(a, b)*min(a, b) == a*b"),
]


def main() -> None:
    fast = _fastparse.fast_parser()
    print(f"{'text':52} {'fast':>10} {'lark':>10} {'ratio':>8}")
    for start, text in TEXTS:
        _larkparse.parse(text, start)  # builds the LALR tables once
        times = compare({
            "fast": functools.partial(fast.parse, text, start),
            "lark": functools.partial(_larkparse.parse, text, start),
        })
        print(f"{text:52} {fmt_time(times['fast']):>10} {fmt_time(times['lark']):>10} "
              f"{ratio(times['lark'], times['fast']):>8}")


if __name__ == "__main__":
    main()
