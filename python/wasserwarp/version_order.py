"""The order of a label's values across validation records, as `wasserwarp validations
history` orders them (client/version_order.h): 4.10.0 after 4.9.2, 4.2.0-rc1 before 4.2.0,
RFC 3339 dates in time order."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

_RUN = re.compile(r"\d+|\D+")


def _pre_release(rest: str) -> bool:
    """A pre-release suffix ('-' or '~' and a letter), which comes before its release; a '-'
    before a digit (2026-03-01, Debian's 4.2.0-1) separates numbers instead."""
    return len(rest) > 1 and rest[0] in "-~" and rest[1].isascii() and rest[1].isalpha()


def compare_versions(a: str, b: str) -> int:
    """Negative when `a` comes first, 0 when equal, positive after. Runs of digits compare as
    numbers, other runs byte by byte, digits before other characters at the same place."""
    i = j = 0
    while i < len(a) and j < len(b):
        run_a = _RUN.match(a, i).group()
        run_b = _RUN.match(b, j).group()
        digits_a, digits_b = run_a[0].isdigit(), run_b[0].isdigit()
        if digits_a != digits_b:
            return -1 if digits_a else 1
        if digits_a:
            order = (int(run_a) > int(run_b)) - (int(run_a) < int(run_b))
        else:
            bytes_a, bytes_b = run_a.encode(), run_b.encode()
            order = (bytes_a > bytes_b) - (bytes_a < bytes_b)
        if order:
            pre_a, pre_b = _pre_release(a[i:]), _pre_release(b[j:])
            if pre_a != pre_b:
                return -1 if pre_a else 1
            return order
        i += len(run_a)
        j += len(run_b)
    rest_a, rest_b = a[i:], b[j:]
    if not rest_a and not rest_b:
        return 0
    if not rest_a:
        return 1 if _pre_release(rest_b) else -1
    return -1 if _pre_release(rest_a) else 1


version_key: Callable[[str], Any] = functools.cmp_to_key(compare_versions)
