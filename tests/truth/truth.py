#!/usr/bin/env python3
"""Truth harness (issue 13, section 1): every call of a function, inlined or
not, must give exactly one `btfinline trace` event, with the right values.

For one program built at -O0 -g (the truth: every call a real call) and at
-O2 -g by one or more compilers (each with a base .BTF), running the same
deterministic workload:

 1. functions: every selectively or fully inlined function (`stats --sites`
    of the -O2 binary) that the -O0 binary has as a function, whose inline
    sites' call lines the workload reaches; a stable sample (sha1 of the
    name) of at most --cap of them per compiler.
 2. truth: bpftrace uprobes at those functions' entries in the -O0 binary:
    per call the caller's return address (-> file:line of the call, by
    llvm-symbolizer) and the integer arguments from the SysV calling
    convention (types from the -O0 DWARF by truth_protos, libdw). Which
    functions are reached is first counted in-kernel (lossless) for every
    candidate; that count also checks the per-call run lost nothing.
 3. out-of-line calls at -O2: bpftrace at each function's symbol and its
    .constprop/.isra clones in the -O2 binary gives the call line of every
    out-of-line call, in order (trace's entry events carry no call site:
    the k-th entry event is the oracle's k-th hit of the symbol).
 4. events: `btfinline trace -x ENCODED --best-effort -j F... -- PROGRAM`;
    an inline-site event's call line is its site's DW_AT_call_file/line
    (`stats --sites`), checked against trace's own "where".
 5. per (function, call line): calls vs events, and per argument
    equal / differ / unknown (the site's stats class) / skipped.

Every bpftrace run is pid-filtered, under `setarch -R` (fixed layout, so
pointers into the image and the heap can be compared as symbol+offset and
heap offset), with in-kernel counts checked against the per-call output.
Results of bpftrace runs are cached (keyed by binary hash, arguments and
function set). Exit 0 when every pair has events = calls and no value
differs, 1 otherwise, 2 on a harness error.
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
                return "%s+%d" % (name, vaddr - a)
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


# ---------- btfinline ----------

SITE_RE = re.compile(r"^site (\S+) (0x[0-9a-f]+) in (\S+) at (\S+) depth (\d+) shndx (\d+): ?(.*)$")
ARG_SPLIT = re.compile(r" (?=[A-Za-z_][A-Za-z0-9_]*=)")


def read_stats(btfinline, binary):
    """stats --sites: sites per function and each function's class."""
    sites = collections.defaultdict(list)
    klass = {}
    for l in sh([btfinline, "stats", "--sites", binary]).splitlines():
        m = SITE_RE.match(l)
        if m:
            func, addr, label, where, depth, shndx, args = m.groups()
            am = {}
            for a in ARG_SPLIT.split(args) if args else []:
                n, _, loc = a.partition("=")
                cm = re.match(r"^\?\((\w+)\)$", loc)
                am[n] = cm.group(1) if cm else None		# None: has a location
            sites[func].append({"addr": int(addr, 16), "label": label, "where": base(where),
                                "depth": int(depth), "code": shndx != "0", "args": am})
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
    def __init__(self, a, cache, tmp):
        self.a, self.cache, self.tmp = a, cache, tmp
        self.bin = a.o0
        self.hash = file_hash(self.bin)
        self.syms = Symbols(self.bin)
        self.protos = read_protos(a.protos, self.bin)
        self.cmd = [self.bin] + a.args

    def reach(self, funcs):
        """{func: {line: calls}} for funcs, counted in-kernel; cached per function."""
        res, todo = {}, []
        for f in funcs:
            v = self.cache.get("reach", self.cache.key(self.hash, self.a.args, f))
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
        maps = os.path.join(self.tmp, "o0.maps")
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
                any(s["code"] for s in self.sites.get(f, []))}

    def ool_calls(self, funcs):
        """Out-of-line calls at -O2, in order per function: [(symbol, line)]."""
        funcs = sorted(funcs)
        targets = []
        for name in sorted(self.syms.func):
            m = CLONE_RE.match(name)
            f = m.group(1) if m else name
            if f in funcs:
                targets.append((f, name))
        key = self.cache.key(file_hash(self.bin), self.a.args, funcs, targets, "v3")
        v = self.cache.get("ool", key)
        if v is not None:
            return v
        res = {f: [] for f in funcs}
        if targets:
            blocks = ['uprobe:%s:"%s" /pid == cpid/ { @n[%d] = count(); printf("E %d %%lu %%lx %%lx\\n", '
                      'nsecs, reg("ip"), *(uint64*)reg("sp")); }' % (self.enc, name, i, i)
                      for i, (f, name) in enumerate(targets)]
            log("  %s: out-of-line calls of %d symbols in the -O2 build" % (self.cc, len(targets)))
            lines = bpftrace("\n".join(blocks) + "\n", [self.enc] + self.a.args, {}, self.tmp, "ool-" + self.cc)
            ncount = parse_map(lines, "n")
            rows = sorted((int(w[2]), int(w[1]), int(w[3], 16), int(w[4], 16))
                          for w in (l.split() for l in lines if l.startswith("E ")))
            got = collections.Counter(r[1] for r in rows)
            for i, t in enumerate(targets):
                if got[i] != ncount.get((i,), 0):
                    raise HarnessError("%s: %s: %d calls printed, %d counted in-kernel" % (self.cc, t[1], got[i], ncount.get((i,), 0)))
            vaddr = {i: self.syms.func[t[1]] for i, t in enumerate(targets)}
            call_end, tails = code_index(self.enc, self.cache)
            owner = Symbols(self.enc)
            fstarts = sorted(owner.size)
            def func_of(a):
                i = bisect.bisect_right(fstarts, a) - 1
                return fstarts[i] if i >= 0 and a < fstarts[i] + owner.size[fstarts[i]] else None
            tails_in = collections.defaultdict(list)	# function start -> [(jump addr, target)]
            for ja, tgt in tails:
                fs = func_of(ja)
                if fs is not None:
                    tails_in[fs].append((ja, tgt))
            rel = []
            for _, i, ip, r in rows:
                b = ip - vaddr[i]
                rel.append((i, r - b))
            def resolve(i, ret):
                """Address whose line is the call's line: the call before the
                return address, or the tail jump to the symbol inside the
                function that call went to (one level of chaining)."""
                t = call_end.get(ret)
                if t is None or t == -1 or t == vaddr[i]:
                    return ret - 1
                js = [ja for ja, tgt in tails_in.get(t, []) if tgt == vaddr[i]]
                if not js:
                    js = [ja2 for ja, h in tails_in.get(t, []) for ja2, tgt in tails_in.get(h, []) if tgt == vaddr[i]]
                return ("tail", tuple(js)) if js else None
            where = [resolve(i, x) for i, x in rel]
            addrs = [w for w in where if isinstance(w, int)] + [j for w in where if isinstance(w, tuple) for j in w[1]]
            lines_of = symbolize(self.enc, addrs)
            for (i, x), w in zip(rel, where):
                f, name = targets[i]
                if isinstance(w, int):
                    ln = lines_of.get(w) or "?"
                elif w is None:
                    ln = "tail?"
                else:
                    ls = {lines_of.get(j) for j in w[1]}
                    ln = ls.pop() if len(ls) == 1 and None not in ls else "tail?"
                res[f].append([name, ln])
        self.cache.put("ool", key, res)
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


def compare(a, truth, tcalls, cc, funcs, ool):
    """Table rows and totals for one compiler."""
    T = collections.Counter()
    T["where_examples"] = []
    unknown = collections.Counter()
    skipped = collections.Counter()
    pairs = []
    bad_values = []
    # image base of the -O2 process: fixed by setarch -R, taken from its maps
    b2 = cc.img["image"][0] if cc.img.get("image") else None
    b0 = None
    for f in sorted(funcs):
        params = truth.params(f)
        enum_vals = {}
        for p in params:
            for val, n in p.get("enum", {}).items():
                enum_vals[n] = int(val)
        site_at = collections.defaultdict(list)		# vaddr -> [site]
        for s in cc.sites.get(f, []):
            if s["code"]:
                site_at[s["addr"]].append(s)
        inline_lines = collections.Counter(s["where"] for s in cc.sites.get(f, []) if s["code"])
        # out-of-line calls: line per call, and which symbol
        oolf = ool.get(f, [])
        exact = [ln for name, ln in oolf if name == f]
        clone_at = collections.Counter(ln for name, ln in oolf if name != f)
        ool_at = collections.Counter(exact)
        # events of f, in order, with their line
        ev = collections.defaultdict(list)
        nentry = 0
        entry_mismatch = False
        evs = [e for e in cc.events if e["func"] == f]
        nentry_total = sum(1 for e in evs if e["site"] == "entry")
        if nentry_total != len(exact):
            entry_mismatch = True
        where_bad = 0
        for e in evs:
            if e["site"] == "entry":
                line = exact[nentry] if not entry_mismatch else "entry?"
                nentry += 1
                ev[line].append((e, None))
            else:
                ss = site_at.get(cc.syms.label_addr(e["site"]), [])
                lines = {s["where"] for s in ss}
                if len(lines) == 1:
                    line = ss[0]["where"]
                elif e.get("where") in lines:
                    line = e["where"]
                else:
                    line = "site?" + e["site"]
                if e.get("where") and e["where"] != line:
                    where_bad += 1
                    if len(T.setdefault("where_examples", [])) < 3:
                        T["where_examples"].append("%s at %s: trace %s, stats %s" % (f, e["site"], e["where"], sorted(lines)))
                ev[line].append((e, ss[0] if ss else None))
        calls = collections.defaultdict(list)
        for line, vals in tcalls["calls"].get(f, []):
            calls[line].append(vals)
        for line in sorted(set(calls) | set(ev), key=lambda x: (x.split(":")[0], int(x.rsplit(":", 1)[1]) if x.rsplit(":", 1)[-1].isdigit() else 0, x)):
            c, e = calls.get(line, []), ev.get(line, [])
            row = {"func": f, "line": line, "calls": len(c), "events": len(e),
                   "inline": inline_lines.get(line, 0), "ool": ool_at.get(line, 0),
                   "clone": clone_at.get(line, 0),
                   "sites_hit": len({x[0]["site"] for x in e if x[0]["site"] != "entry"}),
                   "entry_ev": sum(1 for x in e if x[0]["site"] == "entry")}
            pairs.append(row)
            T["calls"] += len(c)
            T["events"] += len(e)
            # values: per call in order when the counts agree; else each
            # event value must be among the calls' values at that line
            pool = None
            if len(c) != len(e):
                pool = [collections.Counter() for _ in params]
                for vals in c:
                    for k, tv in enumerate(vals):
                        pool[k][json.dumps(tv, sort_keys=True)] += 1
            for idx, (evt, site) in enumerate(e):
                if not c:
                    T["values_no_call"] += len(params)
                    continue
                for k, p in enumerate(params):
                    tv = c[idx][k] if pool is None else None
                    if pool is None and "skip" in tv:
                        skipped[tv["skip"]] += 1; continue
                    if p["kind"] in ("float", "struct", "other"):
                        skipped[p["kind"] if p["kind"] != "other" else "type"] += 1; continue
                    raw = evt["args"].get(p["name"], "missing")
                    if raw is None:
                        cls = (site["args"].get(p["name"]) if site else None) or ("entry" if evt["site"] == "entry" else "located")
                        unknown[cls] += 1
                        continue
                    if raw == "missing":
                        skipped["not_in_event"] += 1; continue
                    b = b2 if evt["site"] else None
                    nv = norm_event(p, raw, cc.syms, cc.img, b2, enum_vals)
                    if "skip" in nv:
                        skipped[nv["skip"]] += 1; continue
                    key = json.dumps(nv, sort_keys=True)
                    if pool is None:
                        if nv == tv:
                            T["equal"] += 1
                            T["equal_" + ("ptr" if "ptr" in nv else "int")] += 1
                        else:
                            T["differ"] += 1
                            bad_values.append((f, line, evt["site"], idx, p["name"], tv, nv))
                    else:
                        if pool[k][key] > 0:
                            pool[k][key] -= 1
                            T["in_calls"] += 1
                        else:
                            T["differ"] += 1
                            bad_values.append((f, line, evt["site"], idx, p["name"], "not among the %d calls' values" % len(c), nv))
        T["where_bad"] += where_bad
        if entry_mismatch:
            T["entry_mismatch"] += 1
            pairs.append({"func": f, "line": "(entry)", "calls": len(exact), "events": nentry_total,
                          "inline": 0, "ool": len(exact), "clone": 0, "sites_hit": 0, "entry_ev": nentry_total,
                          "note": "entry events vs -O2 oracle's calls of the symbol"})
    return T, unknown, skipped, pairs, bad_values


def diagnose(r, cc, f, truth):
    """Short reason for a count mismatch, from the facts at hand."""
    c, e = r["calls"], r["events"]
    why = []
    pr = truth.protos.get(f, [{}])[0]
    if c == 0 and e and r["line"] == "%s:%s" % (base(pr.get("decl_file", "")), pr.get("decl_line")):
        return "IPA split: an instance of %s at its own declaration line (nested in %s's code)" % (f, f)
    if r["clone"]:
        why.append("%d calls into clones (not probed)" % r["clone"])
    if c == 0 and e:
        why.append("events where no call is made (IPA-split or nested duplicate?)")
    if r["inline"] and c - r["ool"] - r["clone"] > 0 and r["sites_hit"] == 0 and e == r["entry_ev"]:
        drops = [x for x in cc.dropped.get(f, [])]
        why.append("inline site never hit" + (" (dropped sites: %s)" % "; ".join("%s %s" % d for d in drops[:2]) if drops else ""))
    elif r["inline"] and e - r["entry_ev"] < c - r["ool"] - r["clone"]:
        why.append("inline probe ran %d times for %d inlined calls (probe before a loop / on one path?)" % (e - r["entry_ev"], c - r["ool"] - r["clone"]))
    elif r["inline"] and e - r["entry_ev"] > c - r["ool"] - r["clone"]:
        why.append("inline events %d for %d inlined calls (duplicate site?)" % (e - r["entry_ev"], c - r["ool"] - r["clone"]))
    if not r["inline"] and not r["ool"] and not r["clone"] and c:
        why.append("no inline instance or call at this line at -O2")
    if r["entry_ev"] != r["ool"]:
        why.append("entry events %d vs out-of-line calls %d" % (r["entry_ev"], r["ool"]))
    return "; ".join(why)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--o0", required=True, help="-O0 -g build (the truth)")
    ap.add_argument("--o2", action="append", required=True, metavar="CC=BIN", help="-O2 -g build with a base .BTF")
    ap.add_argument("--cap", type=int, default=0, help="at most this many functions per compiler (0: all)")
    ap.add_argument("--btfinline", required=True)
    ap.add_argument("--protos", required=True, help="the truth_protos helper")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--json", help="write the full result here")
    ap.add_argument("--list", type=int, default=15, help="mismatched pairs listed per compiler")
    ap.add_argument("args", nargs="*", help="the program's arguments")
    a = ap.parse_args()
    cache = Cache(a.cache)
    ok = True
    result = {}
    with tempfile.TemporaryDirectory(prefix="truth-") as tmp:
        try:
            t0 = time.time()
            truth = Truth(a, cache, tmp)
            ccs = []
            for spec in a.o2:
                name, _, path = spec.partition("=")
                ccs.append(Compiler(a, cache, tmp, name, path))
            cand = set()
            for cc in ccs:
                cand |= {f for f in cc.inlined() if f in truth.syms.func and len(truth.protos.get(f, [])) == 1}
            reach = truth.reach(sorted(cand))
            chosen = {}
            for cc in ccs:
                inl = {f for f in cc.inlined() if f in cand}
                reached = [f for f in inl
                           if any(reach[f].get(s["where"], 0) for s in cc.sites[f] if s["code"])]
                reached.sort(key=lambda f: hashlib.sha1(f.encode()).hexdigest())
                chosen[cc.cc] = reached[:a.cap] if a.cap else reached
                cc.n_inlined, cc.n_reached = len(inl), len(reached)
            union = sorted(set().union(*chosen.values()))
            tcalls = truth.calls(union, reach)
            for cc in ccs:
                funcs = chosen[cc.cc]
                ool = cc.ool_calls(funcs)
                cc.trace(funcs)
                T, unknown, skipped, pairs, bad = compare(a, truth, tcalls, cc, funcs, ool)
                mism = [r for r in pairs if r["calls"] != r["events"]]
                eq = len(pairs) - len(mism)
                more = sum(1 for r in mism if r["events"] > r["calls"])
                print("%s %s: %d functions traced (%d inlined with code, %d reached by the workload; cap %s)"
                      % (a.name, cc.cc, len(funcs), cc.n_inlined, cc.n_reached, a.cap or "none"))
                print("  (function, call line) pairs %d: events = calls %d, more events %d, fewer events %d"
                      % (len(pairs), eq, more, len(mism) - more))
                print("  calls %d  events %d" % (T["calls"], T["events"]))
                print("  values: equal %d  differ %d  unknown %d%s  skipped %d%s"
                      % (T["equal"], T["differ"], sum(unknown.values()),
                         (" (" + ", ".join("%s %d" % kv for kv in unknown.most_common()) + ")") if unknown else "",
                         sum(skipped.values()),
                         (" (" + ", ".join("%s %d" % kv for kv in skipped.most_common()) + ")") if skipped else ""))
                print("  equal values: %d integers, %d pointers (NULL, symbol+offset or heap offset)" % (T["equal_int"], T["equal_ptr"]))
                print("  values at pairs whose counts differ: %d found among the calls' values; "
                      "%d at lines with no call (not compared)" % (T["in_calls"], T["values_no_call"]))
                if T["where_bad"]:
                    print("  trace's \"where\" disagreed with the site's call line %d times (%s)"
                          % (T["where_bad"], "; ".join(T["where_examples"])))
                if cc.dropped:
                    print("  sites trace dropped: %d (%s)" % (sum(len(v) for v in cc.dropped.values()),
                          "; ".join("%s %s: %s" % (f, l, w) for f, v in sorted(cc.dropped.items()) for l, w in v[:1])[:400]))
                if mism:
                    print("  counts differ (worst %d of %d, by |calls - events|):" % (min(a.list, len(mism)), len(mism)))
                    print("    %-34s %-18s %8s %8s %6s %5s %5s  %s" % ("function", "call line", "calls", "events", "inline", "ool", "clone", "diagnosis"))
                    for r in sorted(mism, key=lambda r: (-abs(r["calls"] - r["events"]), r["func"], r["line"]))[:a.list]:
                        print("    %-34s %-18s %8d %8d %6d %5d %5d  %s" % (r["func"], r["line"], r["calls"], r["events"],
                              r["inline"], r["ool"], r["clone"], r.get("note") or diagnose(r, cc, r["func"], truth)))
                for bv in bad[:20]:
                    print("  VALUE DIFFERS: %s at %s (%s, call %d): %s truth %s, event %s" % bv)
                if T["differ"] or mism:
                    ok = False
                result[cc.cc] = {"functions": funcs, "totals": T, "unknown": unknown, "skipped": skipped,
                                 "pairs": pairs, "differ": [list(map(str, b)) for b in bad],
                                 "dropped": cc.dropped, "trace_seconds": cc.trace_time}
            print("%s: %.0f s" % (a.name, time.time() - t0))
        except HarnessError as e:
            print("truth: %s: %s" % (a.name, e))
            return 2
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
