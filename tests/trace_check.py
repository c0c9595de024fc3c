"""Shared parsing of the trace tests (imported by their python parts:
PYTHONPATH=$TOP/tests)."""
import collections
import json


def program_args(path):
    """A fixture program's `arg FUNC k=v ...` lines -> {func: [{k: v}]},
    in call order (values as printed, strings)."""
    want = collections.defaultdict(list)
    for l in open(path):
        if l.startswith("arg "):
            w = l.split()
            want[w[1]].append(dict(x.split("=", 1) for x in w[2:]))
    return want


def events(path):
    """`btfinline trace -j` output -> {func: [event]}, in event order."""
    got = collections.defaultdict(list)
    for l in open(path):
        r = json.loads(l)
        got[r["func"]].append(r)
    return got
