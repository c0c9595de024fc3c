#!/usr/bin/env python3
"""Truth harness (issue 13, section 1): every call of a function, inlined or
not, must give exactly one `btfinline trace` event, with the right values.

Per compiler, one program built at -O0 -g (the truth: nothing is inlined,
every call is a real call) and at -O2 -g (with a base .BTF), running the
same deterministic workload. The truth is the same compiler at -O0: gcc
and clang evaluate call arguments in different orders, so the order of
calls and the heap addresses differ between them.

 1. functions: every selectively or fully inlined function with code
    (`stats --sites` of the -O2 binary) that the -O0 binary has as a
    function, whose inline sites' call lines the workload reaches; in a
    stable order (sha1 of the name), at most --cap.
 2. truth: bpftrace uprobes at those functions' entries in the -O0 binary:
    per call the return address (-> file:line of the call, llvm-symbolizer)
    and the integer and pointer arguments from the SysV calling convention
    (types from the -O0 DWARF, read by truth_protos with libdw). Calls are
    first counted in-kernel for every candidate (which functions are
    reached); the per-call run must print exactly those counts.
 3. out-of-line calls at -O2: perf probe at each function's symbol and its
    .isra/.constprop clones, with the return address, and at every direct
    jump to them (tail calls): the call line of every out-of-line call, in
    order. trace's entry events carry no call site: the k-th entry event is
    perf's k-th hit of the symbol.
 4. events: `btfinline trace -x ENCODED --best-effort -j F... -- PROGRAM`; an
    inline-site event's call line is its site's DW_AT_call_file/line
    (`stats --sites`, matched by address), compared with trace's "where".
 5. per (function, call line): calls vs events, where the -O2 binary has
    the call (inline instance with code, without code, out-of-line copy,
    clone, nothing), and per argument value equal / differ / unknown (the
    site's stats class) / skipped (floats, structs, pointers to the stack
    or to libraries; NULL, symbol+offset and heap offsets are compared).

Programs run under `setarch -R` (fixed layout) and write their
/proc/self/maps where $TRUTH_MAPS says (the SQLite driver does), so pointers
can be compared. The -O0 oracle's results are cached (keyed by binary hash,
arguments and function set; a count that disagrees with the per-call run is
counted again); the -O2 perf run is redone every time (seconds). Exit 0 when every pair where -O2 has the call has events
= calls and no value differs, 1 otherwise, 2 on a harness error.
"""
import argparse
import bisect
import collections
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SETARCH = os.path.realpath(subprocess.run(["sh", "-c", "command -v setarch"], capture_output=True, text=True).stdout.strip() or "/usr/bin/setarch")
INT_REGS = ["arg0", "arg1", "arg2", "arg3", "arg4", "arg5"]
CLONE_RE = re.compile(r"^(.+?)\.(constprop|isra)\.\d+$")


class HarnessError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise HarnessError("%s: exit %d: %s" % (" ".join(cmd[:3]), r.returncode, r.stderr.strip()[-2000:]))
    return r.stdout


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def base(p):
    return p.rsplit("/", 1)[-1]


# ---------- ELF symbols, DWARF via tools ----------

class Symbols:
    """nm of a binary: unique function names -> vaddr; address -> symbol."""

    def __init__(self, path):
        self.func = {}
        self.size = {}
        self.names = collections.defaultdict(list)	# every function symbol
        dup = set()
        allsyms = []
        for l in sh(["nm", "--defined-only", "-S", path]).splitlines():
            w = l.split()
            if len(w) == 4:
                addr, size, typ, name = int(w[0], 16), int(w[1], 16), w[2], w[3]
            elif len(w) == 3:
                addr, size, typ, name = int(w[0], 16), 0, w[1], w[2]
            else:
                continue
            if typ in "tTwW" and size:
                if name in self.func:
                    dup.add(name)
                self.func[name] = addr
                self.size[addr] = max(size, self.size.get(addr, 0))
                self.names[name].append(addr)
            if typ in "tTdDbBrRvV" and size:
                allsyms.append((addr, size, name))
        for n in dup:
            del self.func[n]
        allsyms.sort()
        self.starts = [a for a, _, _ in allsyms]
        self.syms = allsyms

    def aliases(self, name):
        """Other function symbols at name's address (gcc's identical code
        folding makes one copy serve several functions)."""
        a = self.func.get(name)
        return sorted(n for n, v in self.names.items() if a is not None and a in v and n != name)

    def label_addr(self, label):
        """btfinline's site label SYM+0xOFF -> vaddr (None if SYM is ambiguous)."""
        sym, _, off = label.rpartition("+")
        a = self.names.get(sym, [])
        return a[0] + int(off, 16) if len(a) == 1 else None

    def sym_off(self, vaddr):
        i = bisect.bisect_right(self.starts, vaddr) - 1
        if i >= 0:
            a, size, name = self.syms[i]
            if vaddr < a + size:
                # static locals: gcc names them x.N, clang func.x
                n = re.sub(r"(\.\d+)+$", "", name).rsplit(".", 1)[-1]
                return "%s+%d" % (n, vaddr - a)
        return None


def symbolize(binary, addrs):
    """vaddr -> 'file:line' of the innermost (inlined) frame, or None."""
    addrs = sorted(set(addrs))
    out = {}
    if not addrs:
        return out
    r = sh(["llvm-symbolizer", "--obj=" + binary, "--output-style=JSON", "--no-demangle"],
           input="".join("0x%x\n" % a for a in addrs))
    for l in r.splitlines():
        if not l.strip():
            continue
        j = json.loads(l)
        a = int(j["Address"], 16)
        fr = j.get("Symbol") or []
        if fr and fr[0].get("Line"):
            out[a] = "%s:%d" % (base(fr[0]["FileName"]), fr[0]["Line"])
        else:
            out[a] = None
    return out


CALL_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")


def code_index(binary, cache):
    """objdump -d: the target of the call that ends at each address (-1:
    indirect), and every direct jmp/jcc to a function symbol's start from
    outside it (tail calls: at -O2 the return address then belongs to the
    caller's caller). Cached per binary."""
    key = cache.key(file_hash(binary), "code-v1")
    v = cache.get("code", key)
    if v is not None:
        return {int(k): t for k, t in v["call_end"].items()}, [tuple(x) for x in v["tails"]]
    syms = Symbols(binary)
    starts = set(syms.size)
    call_end, tails = {}, []
    prev_call = None
    p = subprocess.Popen(["objdump", "-d", "-w", "--no-show-raw-insn", binary], stdout=subprocess.PIPE, text=True)
    for l in p.stdout:
        m = CALL_RE.match(l)
        if not m:
            prev_call = None
            continue
        addr = int(m.group(1), 16)
        mn, ops = m.group(2), m.group(3)
        if prev_call is not None:
            call_end[addr] = prev_call
            prev_call = None
        if mn.startswith("call"):
            t = re.match(r"^([0-9a-f]+) <", ops)
            prev_call = int(t.group(1), 16) if t else -1
        elif mn.startswith("j"):
            t = re.match(r"^([0-9a-f]+) <", ops)
            if t:
                tgt = int(t.group(1), 16)
                if tgt in starts and not (tgt <= addr < tgt + syms.size[tgt]):
                    tails.append((addr, tgt))
    p.wait()
    cache.put("code", key, {"call_end": call_end, "tails": tails})
    return call_end, tails


def read_protos(tool, binary):
    protos = {}
    for l in sh([tool, binary]).splitlines():
        j = json.loads(l)
        protos.setdefault(j["name"], []).append(j)
    return protos


def reg_plan(params):
    """SysV x86-64: where each parameter is at the entry. Returns per param
    ('reg', i) / ('stack', offset from sp) / ('skip', why)."""
    plan = []
    ints = sse = 0
    stack = 8		# sp -> return address
    broken = None	# after a by-value struct the classification stops
    for p in params:
        k, size = p["kind"], p["size"]
        if broken:
            plan.append(("skip", broken))
            continue
        if k in ("s", "u", "bool", "ptr", "enum") and 0 < size <= 8:
            if ints < 6:
                plan.append(("reg", ints))
                ints += 1
            else:
                plan.append(("stack", stack))
                stack += 8
        elif k == "float" and size in (4, 8):
            if sse < 8:
                sse += 1
            else:
                stack += 8
            plan.append(("skip", "float"))
        elif k == "struct" and size > 16:
            stack += (size + 7) // 8 * 8
            plan.append(("skip", "struct"))
        else:
            plan.append(("skip", "struct" if k == "struct" else "type"))
            broken = "after_struct"
    return plan


INT_REG_NAMES = ["di", "si", "dx", "cx", "r8", "r9"]


def entry_key_args(params, n=3):
    """The first n integer/pointer parameters passed in registers:
    [(parameter index, register index, size, kind)]."""
    out = []
    for k, (p, (where, x)) in enumerate(zip(params, reg_plan(params))):
        if where == "reg" and p["kind"] in ("s", "u", "bool", "ptr", "enum") and len(out) < n:
            out.append((k, x, p["size"], p["kind"]))
    return out


def entry_key(params, evt, enum_vals):
    """An entry event's key (as ool_calls's): its return address (the same
    in both runs: setarch -R, one binary), then its raw first arguments,
    None where trace printed none and for pointers, which need not be the
    same in the two runs (a stack buffer moves with the environment:
    clang's bindText's zData, 112 bytes apart in 3,200 of 5,800 calls, so
    no key matched and one extra call in a run shifted every pairing
    after it)."""
    out = [int(evt["ret"], 16) if evt.get("ret") else None]
    for k, _, size, kind in entry_key_args(params):
        if kind == "ptr":
            out.append(None)
            continue
        v = evt["args"].get(params[k]["name"])
        if isinstance(v, str):
            v = int(v, 16) if v.startswith("0x") else enum_vals.get(v)
        elif isinstance(v, bool):
            v = int(v)
        out.append(v & ((1 << (8 * size)) - 1) if isinstance(v, int) else None)
    return tuple(out)


def align(a, b, window=64, run=3):
    """Pair two sequences of keys (None in b matches anything) that are the
    same calls in the same order but for a few extra or missing ones:
    {index in b: index in a}. Where the keys disagree, the smallest skip
    on either side after which `run` keys agree again; if none within
    `window`, the two are paired anyway."""
    def eq(i, j):
        return i < len(a) and j < len(b) and all(y is None or x == y for x, y in zip(a[i], b[j]))
    def agree(i, j):
        return all(eq(i + d, j + d) or (i + d >= len(a) and j + d >= len(b)) for d in range(run))
    pairs, i, j = {}, 0, 0
    while i < len(a) and j < len(b):
        if eq(i, j):
            pairs[j] = i
            i += 1; j += 1
            continue
        for d in range(1, window):
            if agree(i + d, j):
                i += d; break
            if agree(i, j + d):
                j += d; break
        else:
            pairs[j] = i
            i += 1; j += 1
    return pairs


# ---------- btfinline ----------

# `entry` lines (an exact-name entry with locations of its own) are not
# read: trace labels their events "entry", as any out-of-line entry's.
SITE_RE = re.compile(r"^(site|clone) (\S+) (0x[0-9a-f]+) in (\S+) at (\S+) depth (\d+) shndx (\d+): ?(.*)$")
ARG_SPLIT = re.compile(r" (?=[A-Za-z_][A-Za-z0-9_]*=)")


def read_stats(btfinline, binary):
    """stats --sites: sites per function and each function's class."""
    sites = collections.defaultdict(list)
    klass = {}
    for l in sh([btfinline, "stats", "--sites", binary]).splitlines():
        m = SITE_RE.match(l)
        if m:
            kind, func, addr, label, where, depth, shndx, args = m.groups()
            # (marks after the arguments: refused, notrace, unprobed-copy ADDR)
            args = re.sub(r"( (refused|notrace|unprobed-copy 0x[0-9a-f]+))+$", "", args or "")
            am, locs = {}, {}
            for a in ARG_SPLIT.split(args) if args else []:
                n, _, loc = a.partition("=")
                cm = re.match(r"^\?\((\w+)\)$", loc)
                am[n] = cm.group(1) if cm else None		# None: has a location
                locs[n] = loc
            sites[func].append({"addr": int(addr, 16), "label": label, "where": base(where),
                                "depth": int(depth), "code": shndx != "0", "args": am, "locs": locs,
                                "clone": kind == "clone"})
        elif l.startswith("func "):
            w = l.split()
            klass[w[1]] = w[3]
    return sites, klass


# ---------- bpftrace ----------

def bpftrace(script, cmd, env_extra, tmp, name):
    """Run bpftrace on cmd (under setarch -R), output lines of the script."""
    path = os.path.join(tmp, name + ".bt")
    out = os.path.join(tmp, name + ".out")
    with open(path, "w") as f:
        f.write(script)
    env = dict(os.environ)
    env.update(env_extra)
    env.setdefault("BPFTRACE_MAX_PROBES", "100000")
    env.setdefault("BPFTRACE_MAP_KEYS_MAX", "1000000")
    env.setdefault("BPFTRACE_PERF_RB_PAGES", "16384")
    env.setdefault("BPFTRACE_STRLEN", "64")
    t0 = time.time()
    r = subprocess.run(["bpftrace", "-o", out, path, "-c", " ".join([SETARCH, "-R"] + cmd)],
                       capture_output=True, text=True, env=env)
    err = "\n".join(l for l in r.stderr.splitlines() if "RLIMIT_MEMLOCK" not in l)
    if r.returncode != 0:
        raise HarnessError("bpftrace %s: exit %d: %s" % (name, r.returncode, err[-2000:]))
    text = open(out).read()
    if re.search(r"Lost \d+ events", text + err):
        raise HarnessError("bpftrace %s lost events: %s" % (name, err[-500:]))
    log("  bpftrace %s: %.1f s" % (name, time.time() - t0))
    return text.splitlines()


def parse_map(lines, name):
    """@name[a, b, ...]: N lines -> {(a, b, ...): N}."""
    m = {}
    pat = re.compile(r"^@%s\[([^\]]*)\]: (\d+)$" % name)
    for l in lines:
        x = pat.match(l)
        if x:
            m[tuple(int(v) for v in x.group(1).split(", "))] = int(x.group(2))
    return m


def perf_run(binary, cmd, tmp, probes, env_extra=None):
    """perf probe at each (name, vaddr, with_ret, regs) of binary, perf
    record of cmd (under setarch -R): [(name, ip, return address or 0,
    (register values))] in time order. The probes are removed on every
    path."""
    grp = "btfitruth%d" % os.getpid()
    data = os.path.join(tmp, "perf.data")
    try:
        for i in range(0, len(probes), 100):
            args = ["perf", "probe", "-q", "-x", binary]
            for name, a, ret, regs in probes[i:i + 100]:
                args += ["-a", "%s:%s=0x%x%s%s" % (grp, name, a, " ret=+0(%sp):x64" if ret else "",
                                                   "".join(" r%d=%%%s:x64" % (k, r) for k, r in enumerate(regs)))]
            sh(args)
        t0 = time.time()
        env = dict(os.environ)
        env.update(env_extra or {})
        r = subprocess.run(["perf", "record", "-q", "-o", data, "-e", grp + ":*", "--", SETARCH, "-R"] + cmd,
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise HarnessError("perf record: exit %d: %s" % (r.returncode, r.stderr[-1000:]))
        stats = subprocess.run(["perf", "report", "-i", data, "--stats"], capture_output=True, text=True).stdout
        for m in re.finditer(r"LOST\w* events:\s*(\d+)", stats):
            if int(m.group(1)):
                raise HarnessError("perf lost events: %s" % m.group(0))
        per_ev = {m.group(1): int(m.group(2)) for m in
                  re.finditer(r"^%s:(\w+) stats:\n\s*SAMPLE events:\s*(\d+)" % grp, stats, re.M)}
        out = subprocess.run(["perf", "script", "-i", data, "--ns", "-F", "tid,time,event,trace"],
                             capture_output=True, text=True).stdout
        log("  perf record: %.1f s" % (time.time() - t0))
    finally:
        subprocess.run(["perf", "probe", "-q", "-d", grp + ":*"], capture_output=True)
    rows = []
    pat = re.compile(r"^\s*\d+\s+([\d.]+):\s+%s:(\w+):\s+\(([0-9a-f]+)\)(?:\s+ret=0x([0-9a-f]+))?(.*)$" % grp)
    for l in out.splitlines():
        m = pat.match(l)
        if m:
            regs = tuple(int(v, 16) for v in re.findall(r"\br\d+=0x([0-9a-f]+)", m.group(5)))
            rows.append((int(m.group(1).replace(".", "")), m.group(2), int(m.group(3), 16),
                         int(m.group(4) or "0", 16), regs))
    rows.sort(key=lambda r: r[0])
    got = collections.Counter(r[1] for r in rows)
    if got != collections.Counter({k: v for k, v in per_ev.items() if v}):
        raise HarnessError("perf script printed other counts than perf recorded")
    return [r[1:] for r in rows]


class Cache:
    def __init__(self, d):
        self.d = d
        os.makedirs(d, exist_ok=True)

    def key(self, *parts):
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]

    def get(self, kind, key):
        p = os.path.join(self.d, "%s-%s.json" % (kind, key))
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)
        return None

    def put(self, kind, key, val):
        p = os.path.join(self.d, "%s-%s.json" % (kind, key))
        with open(p + ".tmp", "w") as f:
            json.dump(val, f)
        os.rename(p + ".tmp", p)


# ---------- the truth (-O0) ----------

class Truth:
    def __init__(self, a, cache, tmp, o0):
        self.a, self.cache, self.tmp = a, cache, tmp
        self.bin = o0
        self.hash = file_hash(self.bin)
        self.syms = Symbols(self.bin)
        self.protos = read_protos(a.protos, self.bin)
        self.cmd = [self.bin] + a.args

    def reach(self, funcs, fresh=False):
        """{func: {line: calls}} for funcs, counted in-kernel; cached per function."""
        res, todo = {}, []
        for f in funcs:
            v = None if fresh else self.cache.get("reach", self.cache.key(self.hash, self.a.args, f))
            if v is None:
                todo.append(f)
            else:
                res[f] = v
        for i in range(0, len(todo), 600):
            chunk = todo[i:i + 600]
            log("  truth: counting calls of %d functions in the -O0 build (cached afterwards)" % len(chunk))
            script = "%s\n/pid == cpid/ { @c[reg(\"ip\"), *(uint64*)reg(\"sp\")] = count(); }\n" % ",\n".join(
                "uprobe:%s:%s" % (self.bin, f) for f in chunk)
            m = parse_map(bpftrace(script, self.cmd, {}, self.tmp, "reach"), "c")
            if len(m) > 500000:
                raise HarnessError("reach map near bpftrace's key limit")
            by_ip = {self.syms.func[f]: f for f in chunk}
            counts = {f: collections.Counter() for f in chunk}
            b = self._image_base([ip for ip, _ in m], by_ip)
            rets = {(ip, ret): ret - b - 1 for (ip, ret) in m}
            lines = symbolize(self.bin, rets.values())
            for (ip, ret), n in m.items():
                f = by_ip[ip - b]
                counts[f][lines.get(rets[(ip, ret)]) or "?"] += n
            for f in chunk:
                res[f] = dict(counts[f])
                self.cache.put("reach", self.cache.key(self.hash, self.a.args, f), res[f])
        return res

    @staticmethod
    def _image_base(ips, vaddrs):
        """The one page-aligned base that puts every probed ip on a
        function's vaddr."""
        ips, vs = set(ips), set(vaddrs)
        if not ips:
            return 0
        ip0 = min(ips)
        for v in vs:
            b = ip0 - v
            if b % 4096 == 0 and all(ip - b in vs for ip in ips):
                return b
        raise HarnessError("no image base fits the probed addresses")

    def calls(self, funcs, reach):
        """Per call, in order: {func: [(line, [raw values or skip], ...)]}."""
        funcs = sorted(funcs)
        if not funcs:	# nothing reached (--only a function the workload never calls)
            return {"calls": {}}
        key = self.cache.key(self.hash, self.a.args, funcs, "raw-v1")
        v = self.cache.get("truth", key)
        if v is None:
            v = self._observe(funcs, reach)
            self.cache.put("truth", key, v)
        # raw register values -> comparable values (norm_truth)
        img = read_maps(v["maps"], self.bin)
        res = {}
        for f in funcs:
            params = self.params(f)
            res[f] = [[line, [{"skip": r} if isinstance(r, str) else norm_truth(p, r, self.syms, img, v["base"])
                              for p, r in zip(params, raws)]] for line, raws in v["rows"][f]]
        return {"calls": res}

    def params(self, f):
        return self.protos[f][0]["params"] if len(self.protos.get(f, [])) == 1 else []

    def call_lines(self, funcs):
        """{func: lines of the -O0 binary's calls that can reach it}: its
        direct calls and every call through a pointer (constant-propagated
        pointers are inlined at -O2), run or not: an inline event's "where"
        must be one."""
        call_end, _ = code_index(self.bin, self.cache)
        want = {self.syms.func[f]: f for f in funcs}
        at = [(ret - 1, want.get(t)) for ret, t in call_end.items() if t in want or t == -1]
        lines = symbolize(self.bin, [a for a, _ in at])
        res = {f: set() for f in funcs}
        ind = {lines.get(a) for a, f in at if f is None} - {None}
        for a, f in at:
            if f is not None:
                res[f].add(lines.get(a) or "?")
        return {f: v | ind for f, v in res.items()}

    def _observe(self, funcs, reach):
        plans, blocks = {}, []
        for i, f in enumerate(funcs):
            params = self.params(f)
            plan = reg_plan(params)
            plans[f] = (params, plan)
            fmt, vals = ["V %d %%lu %%lx %%lx" % i], ['nsecs', 'reg("ip")', '*(uint64*)reg("sp")']
            for (kind, x) in plan:
                if kind == "reg":
                    fmt.append("%lx"); vals.append(INT_REGS[x])
                elif kind == "stack":
                    fmt.append("%lx"); vals.append('*(uint64*)(reg("sp") + %d)' % x)
            blocks.append('uprobe:%s:%s /pid == cpid/ { @n[%d] = count(); printf("%s\\n", %s); }' % (
                self.bin, f, i, " ".join(fmt), ", ".join(vals)))
        log("  truth: arguments of %d functions in the -O0 build" % len(funcs))
        env = {}
        maps = os.path.join(self.tmp, "o0-%s.maps" % base(self.bin))
        env["TRUTH_MAPS"] = maps
        lines = bpftrace("\n".join(blocks) + "\n", self.cmd, env, self.tmp, "truth")
        ncount = parse_map(lines, "n")
        rows = []
        for l in lines:
            if l.startswith("V "):
                w = l.split()
                rows.append((int(w[2]), int(w[1]), int(w[3], 16), int(w[4], 16), [int(x, 16) for x in w[5:]]))
        rows.sort()
        got = collections.Counter(r[1] for r in rows)
        # the count run was another run (maybe cached): if it disagrees,
        # count those functions once more before calling it an error
        again = [f for i, f in enumerate(funcs) if got[i] != sum(reach.get(f, {}).values())]
        if again:
            log("  truth: %d functions' calls differ from the count run; counting them again" % len(again))
            reach.update(self.reach(again, fresh=True))
        for i, f in enumerate(funcs):
            want = sum(reach.get(f, {}).values())
            if got[i] != ncount.get((i,), 0) or got[i] != want:
                raise HarnessError("truth: %s: %d calls printed, %d counted in-kernel, %d in the count run"
                                   % (f, got[i], ncount.get((i,), 0), want))
        bases = {ip - self.syms.func[funcs[i]] for _, i, ip, _, _ in rows}
        if len(bases) > 1:
            raise HarnessError("truth: probes fired at more than one image base")
        b = bases.pop() if bases else 0
        addrs = {ret - b - 1 for _, _, _, ret, _ in rows}
        lines_of = symbolize(self.bin, addrs)
        res = {f: [] for f in funcs}
        for _, i, ip, ret, vals in rows:
            f = funcs[i]
            params, plan = plans[f]
            out, k = [], 0
            for p, (kind, x) in zip(params, plan):
                if kind == "skip":
                    out.append(x); continue
                out.append(vals[k]); k += 1
            res[f].append([lines_of.get(ret - b - 1) or "?", out])
        maps_text = open(maps).read() if os.path.exists(maps) else ""
        return {"rows": res, "maps": maps_text, "base": b}


def read_maps(text, binary):
    """Image, heap and stack ranges from a TRUTH_MAPS copy of /proc/self/maps."""
    img = {"image": None, "heap": None}
    lo = hi = None
    for l in text.splitlines():
        w = l.split()
        a, b = (int(x, 16) for x in w[0].split("-"))
        name = w[5] if len(w) > 5 else ""
        if name and os.path.realpath(name) == os.path.realpath(binary):
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
        elif name == "[heap]":
            img["heap"] = (a, b)
        elif name == "[stack]":
            img["stack"] = (a, b)
    if lo is not None:
        img["image"] = (lo, hi)
    return img


def norm_ptr(v, syms, img, b):
    """Pointer -> comparable across builds: NULL, symbol+off in the image,
    heap offset; None if neither (stack, libraries: skipped)."""
    if v == 0:
        return "NULL"
    if img.get("image") and img["image"][0] <= v < img["image"][1] and b is not None:
        return syms.sym_off(v - b)
    if img.get("heap") and img["heap"][0] <= v < img["heap"][1]:
        return "heap+%d" % (v - img["heap"][0])
    return None


def ptr_skip(v, img):
    """Why a pointer is not compared."""
    if not img.get("image"):
        return "pointer (no memory map)"
    if img.get("stack") and img["stack"][0] <= v < img["stack"][1]:
        return "pointer to stack"
    return "pointer elsewhere"


def norm_truth(p, raw, syms, img, b):
    k, size = p["kind"], p["size"]
    if k == "ptr":
        n = norm_ptr(raw, syms, img, b)
        return {"ptr": n} if n is not None else {"skip": ptr_skip(raw, img)}
    mask = (1 << (8 * size)) - 1
    v = raw & mask
    if k == "bool":
        return {"int": 1 if v & 0xff else 0}
    return {"int": v, "size": size}


# ---------- one compiler: -O2 oracle, trace, compare ----------

class Compiler:
    def __init__(self, a, cache, tmp, cc, binary):
        self.a, self.cache, self.tmp, self.cc = a, cache, tmp, cc
        self.bin = binary
        self.enc = os.path.join(tmp, "%s-%s" % (a.name, cc))
        sh([a.btfinline, "encode", binary, "-o", self.enc])
        self.sites, self.klass = read_stats(a.btfinline, binary)
        self.syms = Symbols(self.enc)
        self.hash = file_hash(self.enc)

    def inlined(self):
        return {f for f, k in self.klass.items() if k in ("selective", "full") and
                any(s["code"] and not s["clone"] for s in self.sites.get(f, []))}

    def ool_calls(self, funcs, params_of):
        """Out-of-line calls at -O2, in order per function: [[symbol, call
        line, key]] (key: the return address and the first integer/pointer
        arguments at the entry, see entry_key; pairs them with trace's entry
        events when the counts differ).

        perf probe (the kernel's uprobe tracer, not bpftrace: Debian's
        bpftrace cannot probe inside a function) at the entry of each
        function's symbol and .isra/.constprop clones, with the return
        address, and at every direct jmp/jcc to them from elsewhere (tail
        calls). An entry's call line: the line of the call before the return
        address when that call goes to the symbol (or is indirect); the
        line of the tail jump when the event just before is a jump to it."""
        funcs = sorted(funcs)
        targets = []
        for name in sorted(self.syms.func):
            m = CLONE_RE.match(name)
            f = m.group(1) if m else name
            if f in funcs:
                targets.append((f, name))
        res = {f: [] for f in funcs}
        if targets:
            vaddr = [self.syms.func[name] for _, name in targets]
            by_vaddr = {a: i for i, a in enumerate(vaddr)}
            call_end, tails = code_index(self.enc, self.cache)
            jumps = [(ja, tgt) for ja, tgt in tails if tgt in by_vaddr]
            log("  %s: out-of-line calls of %d symbols (%d tail jumps) in the -O2 build"
                % (self.cc, len(targets), len(jumps)))
            # the symbol's own entry: its first arguments by the calling
            # convention (clones have other ones)
            kargs = [entry_key_args(params_of(f)) if f == name else [] for f, name in targets]
            env = {"TRUTH_MAPS": os.path.join(self.tmp, "o2-%s.mapx" % self.cc)}	# trace's run's length
            rows = perf_run(self.enc, [self.enc] + self.a.args, self.tmp,
                            [("e%d" % i, a, True, [INT_REG_NAMES[x] for _, x, _, _ in kargs[i]])
                             for i, a in enumerate(vaddr)] +
                            [("j%d" % i, ja, False, []) for i, (ja, _) in enumerate(jumps)], env)
            pending = None
            seq = []
            for name, ip, ret, regs in rows:
                if name[0] == "j":
                    pending = jumps[int(name[1:])]
                    continue
                i = int(name[1:])
                b = ip - vaddr[i]
                r = ret - b
                t = call_end.get(r)
                if t == vaddr[i]:
                    at = r - 1
                elif pending and pending[1] == vaddr[i]:
                    at = pending[0]
                elif t == -1:
                    at = r - 1
                else:
                    at = None
                pending = None
                key = (ret,) + tuple(v & ((1 << (8 * size)) - 1) for (_, _, size, _), v in zip(kargs[i], regs))
                seq.append((i, at, key))
            lines_of = symbolize(self.enc, [a for _, a, _ in seq if a is not None])
            for i, at, key in seq:
                f, name = targets[i]
                res[f].append([name, (lines_of.get(at) or "?") if at is not None else "tail?", key])
        return res

    def trace(self, funcs):
        self.events, self.dropped, self.img, self.trace_time = [], {}, {}, 0.0
        if not funcs:
            return
        out = os.path.join(self.tmp, "trace-%s.json" % self.cc)
        env = dict(os.environ)
        env["TRUTH_MAPS"] = os.path.join(self.tmp, "o2-%s.maps" % self.cc)
        cmd = [self.a.btfinline, "trace", "-x", self.enc, "--best-effort", "-j", "-o", out] + sorted(funcs) + \
              ["--", SETARCH, "-R", self.enc] + self.a.args
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        self.trace_time = time.time() - t0
        self.trace_err = r.stderr
        if r.returncode != 0:
            raise HarnessError("trace %s: exit %d: %s" % (self.cc, r.returncode, r.stderr[-2000:]))
        if "dropped (ring buffer full)" in r.stderr:
            raise HarnessError("trace %s: %s" % (self.cc, r.stderr.strip()))
        self.dropped = collections.defaultdict(list)	# func -> [(label, reason)]
        for l in r.stderr.splitlines():
            m = re.search(r": (\S+): site (\S+) at 0x[0-9a-f]+ dropped: (.*)$", l)
            if m:
                self.dropped[m.group(1)].append((m.group(2), m.group(3)))
        with open(out) as f:
            self.events = [json.loads(l) for l in f if l.strip()]
        mp = env["TRUTH_MAPS"]
        self.img = read_maps(open(mp).read() if os.path.exists(mp) else "", self.enc)
        log("  %s: trace: %d events, %.1f s; %s" % (self.cc, len(self.events), self.trace_time,
                                                   " ".join(l for l in r.stderr.splitlines() if "probes on" in l)))


def norm_event(p, v, syms, img, b, enum_vals):
    """An event's JSON value -> same form as norm_truth."""
    k, size = p["kind"], p["size"]
    if k == "ptr":
        if not isinstance(v, str):
            return {"skip": "type"}
        n = norm_ptr(int(v, 16), syms, img, b)
        return {"ptr": n} if n is not None else {"skip": ptr_skip(int(v, 16), img)}
    if isinstance(v, bool):
        return {"int": int(v)}
    if isinstance(v, str) and k == "enum":
        if v not in enum_vals:
            return {"bad": v}
        v = enum_vals[v]
    if not isinstance(v, int):
        return {"skip": "type"}
    if k == "bool":
        return {"int": 1 if v else 0}
    return {"int": v & ((1 << (8 * size)) - 1), "size": size}


def event_values(params, evt, site, cc, b2, enum_vals):
    """Per parameter of one event: ("cmp", value) / ("unknown", class) / ("skip", why)."""
    out = []
    for p in params:
        if p["kind"] in ("float", "struct", "other"):
            out.append(("skip", p["kind"] if p["kind"] != "other" else "type"))
            continue
        raw = evt["args"].get(p["name"], "missing")
        if raw == "missing":
            out.append(("skip", "not_in_event"))
        elif raw is None:
            cls = (site["args"].get(p["name"]) if site else None) or ("entry" if evt["site"] == "entry" else "located")
            out.append(("unknown", cls))
        else:
            nv = norm_event(p, raw, cc.syms, cc.img, b2, enum_vals)
            out.append(("skip", nv["skip"]) if "skip" in nv else ("cmp", json.dumps(nv, sort_keys=True)))
    return out


def add_bad(bad, key, idx, truth_v, event_v):
    """Values that differ, per (function, line, site, argument, location):
    how many, and the first one."""
    k = json.dumps(key)
    if k in bad:
        bad[k]["n"] += 1
    else:
        bad[k] = {"n": 1, "event_index": idx, "truth": truth_v, "event": event_v}


def match_values(R, f, line, c, e, params, cc, b2, enum_vals, fpool):
    """Compare the events' values at one (function, call line) with the
    calls'. Same count: the k-th event against the k-th call, else against
    any other call not yet matched (gcc and clang evaluate arguments in a
    different order, so calls at one line can come permuted). Counts
    differ: against any call's values at the line, else at any line of
    the function (an -O2 instruction can stand for calls from several
    lines: merged tail jumps, a probe on a path several calls share), so
    only a value the function never received there is `differ`. Per
    argument value: equal, equal_reordered, among_calls, other_line,
    differ, unknown (by class), skipped."""
    T, bad = R["T"], R["bad"]
    ct = [[json.dumps(v, sort_keys=True) if "skip" not in v else None for v in vals] for vals in c]
    same = len(c) == len(e)
    used = [False] * len(c)
    index = {}
    def lookup(pattern, key):
        if pattern not in index:
            d = collections.defaultdict(list)
            for j in range(len(ct) - 1, -1, -1):
                d[tuple(ct[j][k] for k in pattern)].append(j)
            index[pattern] = d
        lst = index[pattern].get(key, [])
        while lst and same and used[lst[-1]]:
            lst.pop()
        return lst[-1] if lst else None
    per_arg = None
    for idx, (evt, site) in enumerate(e):
        ev = event_values(params, evt, site, cc, b2, enum_vals)
        for kind, v in ev:
            if kind == "unknown":
                R["unknown"][v] += 1
            elif kind == "skip":
                R["skipped"][v] += 1
        known = tuple(k for k, (kind, _) in enumerate(ev) if kind == "cmp")
        if not known:
            continue
        if not c:
            T["no_call"] += len(known)
            pool = fpool()
            for k in known:
                if ev[k][1] not in pool[k]:
                    T["differ"] += 1
                    T["no_call_differ"] += 1
                    add_bad(bad, (f, line, evt["site"], params[k]["name"],
                                  site["locs"].get(params[k]["name"], "?") if site else "entry"),
                            idx, "none of the function's calls", ev[k][1])
            continue
        key = tuple(ev[k][1] for k in known)
        if same and not used[idx] and all(ct[idx][k] == ev[k][1] for k in known):
            used[idx] = True
            T["equal"] += len(known)
            continue
        j = lookup(known, key)
        if j is not None:
            if same:
                used[j] = True
                T["equal_reordered"] += len(known)
            else:
                T["among_calls"] += len(known)
            continue
        # no call has all these values: per argument
        if per_arg is None:
            per_arg = [collections.Counter(t[k] for t in ct) for k in range(len(params))]
        for k in known:
            if same and ct[idx][k] == ev[k][1]:
                T["equal"] += 1
            elif not same and per_arg[k][ev[k][1]]:
                T["among_calls"] += 1
            elif not same and ev[k][1] in fpool()[k]:
                T["other_line"] += 1
            else:
                T["differ"] += 1
                truth_v = ct[idx][k] if same else "none of the %d calls" % len(c)
                loc = site["locs"].get(params[k]["name"], "?") if site else "entry"
                add_bad(bad, (f, line, evt["site"], params[k]["name"], loc), idx, truth_v, ev[k][1])


def line_key(x):
    fl, _, n = x.rpartition(":")
    return (fl, int(n) if n.isdigit() else 0, x)


def compare(truth, tcalls, cc, funcs, ool):
    """Per (function, call line): calls, events, where the -O2 binary has
    the call (inline instance with code, without code, out-of-line copy,
    clone), and the value comparison."""
    R = {"T": collections.Counter(), "unknown": collections.Counter(), "skipped": collections.Counter(),
         "pairs": [], "bad": {}, "where_examples": {"where_bad": [], "where_nocall": []},
         "where_funcs": {"where_bad": collections.Counter(), "where_nocall": collections.Counter()},
         "nocall_at": collections.Counter(), "entry_aligned": {}}
    o0_lines = truth.call_lines(funcs)
    T = R["T"]
    b2 = cc.img["image"][0] if cc.img.get("image") else None
    for f in sorted(funcs):
        params = truth.params(f)
        enum_vals = {n: int(val) for p in params for val, n in p.get("enum", {}).items()}
        site_at = collections.defaultdict(list)
        code_at = collections.defaultdict(set)
        nocode_at = collections.Counter()
        clone_site_at = {}	# a .isra/.constprop clone's entry: a site of f, no instance
        for s in cc.sites.get(f, []):
            if s["clone"]:
                clone_site_at[s["addr"]] = s
            elif s["code"]:
                site_at[s["addr"]].append(s)
                code_at[s["where"]].add(s["addr"])
            else:
                nocode_at[s["where"]] += 1
        # call lines that share a probe address (merged code) are one group:
        # an event there cannot tell them apart
        parent = {}
        def find(x):
            while parent.get(x, x) != x:
                x = parent[x]
            return x
        for ss in site_at.values():
            ls = sorted({x["where"] for x in ss})
            for l2 in ls[1:]:
                parent[find(l2)] = find(ls[0])
        groups = collections.defaultdict(list)
        for l in list(parent):
            groups[find(l)].append(l)
        gkey = {}
        for root, ls in groups.items():
            members = sorted(set(ls) | {root}, key=line_key)
            for l in members:
                gkey[l] = "+".join(members)
        G = lambda l: gkey.get(l, l)
        code_g, nocode_g = collections.defaultdict(set), collections.Counter()
        for l, v in code_at.items():
            code_g[G(l)] |= v
        for l, n in nocode_at.items():
            nocode_g[G(l)] += n
        code_at, nocode_at = code_g, nocode_g
        oolf = [[name, G(ln), key] for name, ln, key in ool.get(f, [])]
        exact = [ln for name, ln, _ in oolf if name == f]
        clone_at = collections.Counter(ln for name, ln, _ in oolf if name != f)
        ool_at = collections.Counter(exact)
        evs = [x for x in cc.events if x["func"] == f]
        nentry_total = sum(1 for x in evs if x["site"] == "entry")
        # the k-th entry event is perf's k-th call of the symbol; when the
        # counts differ (the perf run made a call more or less: the two runs
        # are not one), pair them by their first arguments
        entry_line = list(exact)
        if nentry_total != len(exact):
            ents = [x for x in evs if x["site"] == "entry"]
            pr = align([k for name, _, k in oolf if name == f],
                       [entry_key(params, x, enum_vals) for x in ents])
            entry_line = [exact[pr[j]] if j in pr else "entry?" for j in range(nentry_total)]
            R["entry_aligned"][f] = (len(exact), nentry_total, len(pr))
        entry_ok = "entry?" not in entry_line
        # a clone's k-th entry event is perf's k-th call of that clone
        clone_line = collections.defaultdict(list)
        for name, ln, _ in oolf:
            if name != f:
                clone_line[name].append(ln)
        nclone_ev = collections.Counter()
        ev = collections.defaultdict(list)
        hits = collections.defaultdict(collections.Counter)	# line -> site -> hits
        nentry = 0
        for x in evs:
            if x["site"] == "entry":
                line = entry_line[nentry]
                nentry += 1
                ev[line].append((x, None))
                continue
            cs = clone_site_at.get(cc.syms.label_addr(x["site"]))
            if cs:
                name = x["site"].rpartition("+")[0]
                k = nclone_ev[name]
                nclone_ev[name] += 1
                line = clone_line[name][k] if k < len(clone_line[name]) else "clone?" + name
                ev[line].append((x, cs))
                hits[line][x["site"]] += 1
                continue
            ss = site_at.get(cc.syms.label_addr(x["site"]), [])
            lines = {s["where"] for s in ss}
            line = G(ss[0]["where"]) if ss else "site?" + x["site"]
            wrong = False
            # trace's "where" of an inline event: its instance's call line
            # (DW_AT_call_file:line of the site at that address), and a
            # line the -O0 build calls the function from
            for bad, ok, what in (("where_bad", lines, "DWARF call line %s" % "/".join(sorted(lines))),
                                  ("where_nocall", o0_lines.get(f, ()), "no call of it at -O0")):
                if bad == "where_bad" and not ss:
                    continue	# the harness cannot place the site: a count mismatch ("site?")
                if x.get("where") not in ok:
                    wrong = True
                    T[bad] += 1
                    R["where_funcs"][bad][f] += 1
                    if len(R["where_examples"][bad]) < 3:
                        R["where_examples"][bad].append("%s at %s: trace %s, %s" % (f, x["site"], x.get("where") or "(none)", what))
            T["where_wrong"] += wrong
            if x.get("where") in lines and x["where"] not in o0_lines.get(f, ()):
                # trace says what the DWARF says: an instance of f at a
                # line that does not call f (gcc's identical code folding
                # names the twin it kept); --expect may list it as "where"
                R["nocall_at"][(f, x["where"])] += 1
            ev[line].append((x, ss[0] if ss else None))
            hits[line][x["site"]] += 1
        calls = collections.defaultdict(list)
        for line, vals in tcalls["calls"].get(f, []):
            calls[G(line)].append(vals)
        pool_cache = []
        def fpool(calls=calls, pool_cache=pool_cache, n=len(params)):
            """Per argument: every value the function received, any line."""
            if not pool_cache:
                pool_cache.append([{json.dumps(v[k], sort_keys=True) for vs in calls.values() for v in vs
                                    if "skip" not in v[k]} for k in range(n)])
            return pool_cache[0]
        for line in sorted(set(calls) | set(ev), key=line_key):
            c, e = calls.get(line, []), ev.get(line, [])
            row = {"func": f, "line": line, "calls": len(c), "events": len(e),
                   "inline": len(code_at.get(line, ())), "nocode": nocode_at.get(line, 0),
                   "ool": ool_at.get(line, 0), "clone": clone_at.get(line, 0),
                   "entry_ev": sum(1 for x in e if x[0]["site"] == "entry"),
                   "clone_ev": sum(1 for x in e if x[1] and x[1]["clone"]),
                   "site_hits": dict(hits.get(line, {}))}
            if row["inline"] and row["nocode"]:
                row["scope"] = "partly_no_code"	# some copies of the caller kept no code for f
            elif row["inline"] or row["ool"] or row["clone"] or row["events"]:
                row["scope"] = "traceable"
            else:
                row["scope"] = "no_code" if row["nocode"] else "no_instance"
            R["pairs"].append(row)
            T["calls"] += len(c)
            T["events"] += len(e)
            match_values(R, f, line, c, e, params, cc, b2, enum_vals, fpool)
        if not entry_ok:
            R["pairs"].append({"func": f, "line": "(entry)", "calls": len(exact), "events": nentry_total,
                               "inline": 0, "nocode": 0, "ool": len(exact), "clone": 0, "entry_ev": nentry_total,
                               "site_hits": {}, "scope": "traceable",
                               "note": "entry events vs the -O2 oracle's calls of the symbol"})
    return R


def diagnose(r, cc, truth):
    """Short reason for a count mismatch, from the facts at hand."""
    f, c, e = r["func"], r["calls"], r["events"]
    pr = truth.protos.get(f, [{}])[0]
    if c == 0 and e and r["line"] == "%s:%s" % (base(pr.get("decl_file", "")), pr.get("decl_line")):
        return "IPA split: %s's instance at its own declaration line inside %s's code" % (f, f)
    why = []
    inl_calls = c - r["ool"] - r["clone"]
    inl_ev = e - r["entry_ev"] - r.get("clone_ev", 0)
    if r["clone"] != r.get("clone_ev", 0):
        why.append("%d calls into .isra/.constprop clones, %d events at their entries" % (r["clone"], r.get("clone_ev", 0)))
    if r["entry_ev"] != r["ool"]:
        why.append("entry events %d, out-of-line calls %d" % (r["entry_ev"], r["ool"]))
    if r["entry_ev"] and cc.syms.aliases(f):
        why.append("its entry is also %s (identical code folding): their calls are entry events of %s"
                   % (", ".join(cc.syms.aliases(f)), f))
    if r["inline"]:
        drops = [d for d in cc.dropped.get(f, []) if d[0] in r["site_hits"] or True]
        hit = "; %d of %d sites hit" % (len(r["site_hits"]), r["inline"])
        if c == 0:
            why.append("%d events where no call is made: the probe is on a path other calls take%s" % (inl_ev, hit))
        elif inl_ev == 0:
            why.append("inline site never hit%s%s" % (hit, "; sites dropped: " + ", ".join(d[0] for d in cc.dropped.get(f, [])[:3])
                                                      if cc.dropped.get(f) else ""))
        elif inl_ev < inl_calls:
            why.append("inline probes hit %d times for %d inlined calls%s" % (inl_ev, inl_calls, hit))
        elif inl_ev > inl_calls:
            why.append("inline probes hit %d times for %d inlined calls%s" % (inl_ev, inl_calls, hit))
    if r["nocode"]:
        why.append("%d instance%s at this line without code" % (r["nocode"], "s" if r["nocode"] > 1 else ""))
    return "; ".join(why)


# (program, compiler) -> {(kind, function, call line): diagnosis}, from --expect
EXPECT = {}


def load_expect(path):
    for line in open(path):
        body, _, why = line.partition("#")
        f = body.split()
        if len(f) == 5:
            EXPECT.setdefault((f[0], f[1]), {})[(f[2], f[3], f[4])] = why.strip()


def report(name, cc, funcs, cap, R, nlist, truth):
    T = R["T"]
    pairs = R["pairs"]
    tr = [r for r in pairs if r["scope"] == "traceable"]
    partly = [r for r in pairs if r["scope"] == "partly_no_code"]
    # where some instances at the line have no code, fewer events than
    # calls is expected; more is not
    mism = [r for r in tr if r["calls"] != r["events"]] + [r for r in partly if r["events"] > r["calls"]]
    more = sum(1 for r in mism if r["events"] > r["calls"])
    print("%s %s: %d functions traced (of %d inlined with code and functions at -O0%s; cap %s)"
          % (name, cc.cc, len(funcs), cc.n_inlined,
             ", %d reached by the workload" % cc.n_reached if cc.n_reached is not None else "", cap or "none"))
    print("  calls %d  events %d" % (T["calls"], T["events"]))
    fc, fe = collections.Counter(), collections.Counter()
    for r in pairs:
        if r["line"] != "(entry)":
            fc[r["func"]] += r["calls"]
            fe[r["func"]] += r["events"]
    print("  functions whose events = calls over all their lines: %d of %d" % (sum(1 for f in funcs if fc[f] == fe[f]), len(funcs)))
    print("  (function, call line) pairs where -O2 has the call (inline code, out-of-line copy or clone): %d" % len(tr))
    print("    events = calls %d, more events %d, fewer events %d; calls %d, events %d"
          % (len(tr) - len(mism), more, len(mism) - more, sum(r["calls"] for r in tr), sum(r["events"] for r in tr)))
    if partly:
        print("  pairs where only some instances have code: %d, calls %d, events %d (%d with more events than calls)"
              % (len(partly), sum(r["calls"] for r in partly), sum(r["events"] for r in partly),
                 sum(1 for r in partly if r["events"] > r["calls"])))
    for scope, what in (("no_code", "only inline instances without code (no_code_addr)"),
                        ("no_instance", "no instance and no call at -O2 (folded away)")):
        ps = [r for r in pairs if r["scope"] == scope]
        if ps:
            print("  pairs with %s: %d, %d calls (no event possible)" % (what, len(ps), sum(r["calls"] for r in ps)))
    nval = T["equal"] + T["equal_reordered"] + T["among_calls"] + T["differ"]
    print("  values: equal %d  differ %d  unknown %d%s  skipped %d%s"
          % (T["equal"] + T["equal_reordered"], T["differ"], sum(R["unknown"].values()),
             (" (" + ", ".join("%s %d" % kv for kv in R["unknown"].most_common()) + ")") if R["unknown"] else "",
             sum(R["skipped"].values()),
             (" (" + ", ".join("%s %d" % kv for kv in R["skipped"].most_common()) + ")") if R["skipped"] else ""))
    print("    equal: %d to the same call, %d to another call at the line (argument order)" % (T["equal"], T["equal_reordered"]))
    print("    at pairs whose counts differ: %d values among the calls' at the line, %d among the function's calls "
          "at other lines; %d values at lines without a call (%d of them in no call of the function)"
          % (T["among_calls"], T["other_line"], T["no_call"], T["no_call_differ"]))
    ninl = sum(1 for x in cc.events if x["site"] != "entry")
    print("  trace's \"where\" of %d inline events: not the site's DW_AT_call_line %d, not a line with a call "
          "of the function at -O0 %d" % (ninl, T["where_bad"], T["where_nocall"]))
    for bad in ("where_bad", "where_nocall"):
        if T[bad]:
            print("    %s: %d functions (%s), e.g. %s" % (bad, len(R["where_funcs"][bad]),
                  ", ".join("%s %d" % kv for kv in R["where_funcs"][bad].most_common(5)),
                  "; ".join(R["where_examples"][bad][:2])))
    if cc.dropped:
        print("  sites trace dropped: %d (e.g. %s)" % (sum(len(v) for v in cc.dropped.values()),
              "; ".join("%s %s: %s" % (f, l, w) for f, v in sorted(cc.dropped.items()) for l, w in v[:1])[:300]))
    for f, (np_, ne, npaired) in sorted(R["entry_aligned"].items()):
        print("  %s: perf saw %d out-of-line calls, trace %d entry events: %d paired by their arguments"
              % (f, np_, ne, npaired))
    if mism:
        print("  counts differ (%d of %d, by |calls - events|):" % (min(nlist, len(mism)), len(mism)))
        print("    %-32s %-16s %7s %7s %4s %4s %4s %4s  %s" % ("function", "call line", "calls", "events",
              "inl", "ool", "cln", "noc", "diagnosis"))
        for r in sorted(mism, key=lambda r: (-abs(r["calls"] - r["events"]), r["func"], r["line"]))[:nlist]:
            r["why"] = r.get("note") or diagnose(r, cc, truth)
            print("    %-32s %-16s %7d %7d %4d %4d %4d %4d  %s" % (r["func"], r["line"], r["calls"], r["events"],
                  r["inline"], r["ool"], r["clone"], r["nocode"], r["why"]))
    if R["bad"]:
        print("  values that differ (%d of %d places, by count):" % (min(nlist, len(R["bad"])), len(R["bad"])))
    for k, b in sorted(R["bad"].items(), key=lambda kv: -kv[1]["n"])[:nlist]:
        f, line, site, arg, loc = json.loads(k)
        print("    %5d x %s at %s (%s) %s = %s: truth %s, event %s (first: event %d)"
              % (b["n"], f, line, site, arg, loc, b["truth"], b["event"], b["event_index"]))
    # Known, diagnosed mismatches (--expect): listed as such; anything
    # else fails, and a known one that is gone is said so.
    exp = EXPECT.get((name, cc.cc), {})
    new_counts = [r for r in mism if ("count", r["func"], str(r["line"])) not in exp]
    new_values = [k for k in R["bad"] if ("value", json.loads(k)[0], str(json.loads(k)[1])) not in exp]
    new_where = [k for k in R["nocall_at"] if ("where",) + k not in exp]
    seen = {("count", r["func"], str(r["line"])) for r in mism} | \
           {("value", json.loads(k)[0], str(json.loads(k)[1])) for k in R["bad"]} | \
           {("where",) + k for k in R["nocall_at"]}
    for key, why in sorted(exp.items()):
        if key[1] not in funcs:		# not traced in this run (--cap)
            continue
        print("  %s %s %s %s: %s" % ("known" if key in seen else "GONE (take it off the list):",
              key[0], key[1], key[2], why))
    if new_counts or new_values:
        print("  NEW: %d count mismatches, %d places with values that differ, not in the expected list"
              % (len(new_counts), len(new_values)))
    # a "where" that is not the site's DW_AT_call_line is trace's own
    # error: never expected
    if T["where_bad"]:
        print("  FAIL: %d inline events whose \"where\" is not their site's call line" % T["where_bad"])
    if new_where:
        print("  NEW: %d (function, line) where the DWARF puts a call the -O0 build does not make: %s"
              % (len(new_where), ", ".join("%s %s" % k for k in new_where[:5])))
    return not new_counts and not new_values and not T["where_bad"] and not new_where


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--build", action="append", required=True, metavar="CC=O0BIN,O2BIN",
                    help="a compiler's -O0 -g build (the truth) and -O2 -g build (with a base .BTF)")
    ap.add_argument("--cap", type=int, default=0, help="at most this many functions per compiler (0: all)")
    ap.add_argument("--btfinline", required=True)
    ap.add_argument("--protos", required=True, help="the truth_protos helper")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--json", help="write the full result here")
    ap.add_argument("--only", help="trace just these functions (comma-separated; for examining pairs)")
    ap.add_argument("--include", help="trace these functions (comma-separated) besides the capped set")
    ap.add_argument("--list", type=int, default=15, help="mismatched pairs listed per compiler")
    ap.add_argument("--expect", help="known mismatches: lines PROGRAM CC count|value FUNC LINE # why")
    ap.add_argument("args", nargs="*", help="the program's arguments")
    a = ap.parse_args()
    if a.expect:
        load_expect(a.expect)
    cache = Cache(a.cache)
    ok = True
    result = {}
    with tempfile.TemporaryDirectory(prefix="truth-") as tmp:
        try:
            t0 = time.time()
            for spec in a.build:
                name, _, paths = spec.partition("=")
                o0, _, o2 = paths.partition(",")
                truth = Truth(a, cache, tmp, o0)
                cc = Compiler(a, cache, tmp, name, o2)
                inl = sorted((f for f in cc.inlined() if f in truth.syms.func and len(truth.protos.get(f, [])) == 1),
                             key=lambda f: hashlib.sha1(f.encode()).hexdigest())
                cc.n_inlined, cc.n_absent = len(inl), len(cc.inlined()) - len(inl)
                if a.only:
                    inl = [f for f in inl if f in a.only.split(",")]
                # reach in the stable order, in chunks, until the cap is met
                reach, reached = {}, []
                step = max(4 * a.cap, 100) if a.cap else len(inl)
                for i in range(0, len(inl), step or 1):
                    part = inl[i:i + step]
                    reach.update(truth.reach(part))
                    reached += [f for f in part if any(reach[f].get(s["where"], 0) for s in cc.sites[f] if s["code"] and not s["clone"])]
                    if a.cap and len(reached) >= a.cap:
                        break
                cc.n_reached = None if a.cap and len(reach) < len(inl) else len(reached)
                funcs = reached[:a.cap] if a.cap else reached
                if a.include:
                    want = [f for f in inl if f in a.include.split(",") and f not in funcs]
                    reach.update(truth.reach(want))
                    funcs += [f for f in want if any(reach[f].get(s["where"], 0) for s in cc.sites[f] if s["code"] and not s["clone"])]
                tcalls = truth.calls(funcs, reach)
                ool = cc.ool_calls(funcs, truth.params)
                cc.trace(funcs)
                R = compare(truth, tcalls, cc, funcs, ool)
                ok = report(a.name, cc, funcs, a.cap, R, a.list, truth) and ok
                result[cc.cc] = {"functions": funcs, "totals": R["T"], "unknown": R["unknown"],
                                 "skipped": R["skipped"], "pairs": R["pairs"], "differ": R["bad"], "where": R["where_examples"],
                                 "dropped": cc.dropped, "trace_seconds": cc.trace_time}
            print("%s: %.0f s" % (a.name, time.time() - t0))
        except (HarnessError, OSError) as e:
            print("truth: %s: %s" % (a.name, e))
            return 2
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
