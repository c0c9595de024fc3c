// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btfi_elf_write_section() checked with binutils. On copies of the gcc and
 * clang fixtures (never the fixtures themselves): add .BTF.inline to a
 * copy, replace it with more and with fewer bytes, then in place (temp +
 * rename) both replacing and adding. Each time:
 *  - `objcopy --dump-section` gives back exactly the bytes written, and
 *    `readelf -SW` shows one .BTF.inline, PROGBITS, not allocated;
 *  - every other section has the same header in `readelf -SW` and the same
 *    bytes at its offset (.shstrtab grown by the new name only when the
 *    section is added); `readelf -lW` (program headers), `readelf -sW`
 *    (symbols) and `readelf -hW` but for the section header table are the
 *    same; readelf warns about nothing; objcopy can copy the result; the
 *    program still runs and prints what the input prints;
 *  - the input keeps its bytes when writing a copy; the mode is kept; in
 *    place gives a new inode (rename); no temp file is left.
 * Bad input (not ELF, missing file, missing directory): an error, one
 * message naming the file, nothing created.
 *   test_elf_write [ELF...]   default: $FIXTURES/shapes-{gcc,clang}-dw5
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "format/elf_write.h"
#include "check.h"

#define SEC ".BTF.inline"
#define CRT "/usr/lib/x86_64-linux-gnu/"	/* libc6-dev's start files */

static char tmpdir[] = "/tmp/btfi-elfwrite-XXXXXX";
static int nmsgs;
static char lastmsg[1024];

static void logfn(void *ctx, const char *msg)
{
	snprintf(lastmsg, sizeof(lastmsg), "%s", msg);
	nmsgs++;
}
static const struct btfi_log tlog = { .fn = logfn };

struct buf {
	char *p;
	size_t n;
};

static struct buf slurp(const char *path)
{
	struct buf b = {};
	FILE *f = fopen(path, "rb");
	size_t cap = 0, r;

	if (!f)
		return b;
	do {
		if (b.n + 65536 > cap && !(b.p = realloc(b.p, cap = cap * 2 + 65536)))
			exit(1);
		r = fread(b.p + b.n, 1, cap - b.n, f);
		b.n += r;
	} while (r > 0);
	fclose(f);
	return b;
}

static bool save(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok && !chmod(path, mode);
}

/* stdout + stderr of a shell command. */
static struct buf cmd_out(const char *fmt, const char *a, const char *b)
{
	char cmd[8192];
	struct buf o = {};
	size_t cap = 0, r;
	FILE *f;

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	strcat(cmd, " 2>&1");
	f = popen(cmd, "r");
	if (!f)
		return o;
	do {
		if (o.n + 65536 > cap && !(o.p = realloc(o.p, cap = cap * 2 + 65536)))
			exit(1);
		r = fread(o.p + o.n, 1, cap - o.n - 1, f);
		o.n += r;
	} while (r > 0);
	o.p[o.n] = 0;
	pclose(f);
	return o;
}

/* `readelf -SW`, one row per section. */
struct sec {
	char name[64], type[32], flags[16];
	unsigned long long addr, off, size, es;
	unsigned lk, inf, al;
};
struct secs {
	struct sec s[128];
	int n;
	bool warned;
};

static void read_secs(const char *path, struct secs *t)
{
	struct buf o = cmd_out("readelf -SW '%s'%s", path, "");
	char *save_p = NULL, *line;

	memset(t, 0, sizeof(*t));
	t->warned = !o.p || strstr(o.p, "readelf:") || strstr(o.p, "Warning");
	for (line = o.p ? strtok_r(o.p, "\n", &save_p) : NULL; line; line = strtok_r(NULL, "\n", &save_p)) {
		char *rb = strchr(line, ']'), *tok[12], *sp = NULL;
		int idx, nt = 0;
		struct sec *s;

		if (sscanf(line, " [%d]", &idx) != 1 || !rb || idx == 0 || idx >= 128)
			continue;
		for (char *x = strtok_r(rb + 1, " ", &sp); x && nt < 12; x = strtok_r(NULL, " ", &sp))
			tok[nt++] = x;
		if (nt != 9 && nt != 10)
			continue;
		s = &t->s[idx];
		snprintf(s->name, sizeof(s->name), "%s", tok[0]);
		snprintf(s->type, sizeof(s->type), "%s", tok[1]);
		s->addr = strtoull(tok[2], NULL, 16);
		s->off = strtoull(tok[3], NULL, 16);
		s->size = strtoull(tok[4], NULL, 16);
		s->es = strtoull(tok[5], NULL, 16);
		snprintf(s->flags, sizeof(s->flags), "%s", nt == 10 ? tok[6] : "");
		s->lk = atoi(tok[nt - 3]);
		s->inf = atoi(tok[nt - 2]);
		s->al = atoi(tok[nt - 1]);
		if (idx + 1 > t->n)
			t->n = idx + 1;
	}
	free(o.p);
}

static int find_sec(const struct secs *t, const char *name, int *count)
{
	int at = -1;

	*count = 0;
	for (int i = 1; i < t->n; i++)
		if (!strcmp(t->s[i].name, name))
			at = i, ++*count;
	return at;
}

/* Lines of `readelf OPT` of both files, but those containing `skip`. */
static bool same_readelf(const char *opt, const char *a, const char *b, const char *skip1,
			 const char *skip2)
{
	char fmt[64];
	struct buf x, y;
	bool same = true;
	char *sx = NULL, *sy = NULL, *lx, *ly;

	snprintf(fmt, sizeof(fmt), "readelf %s '%%s'%%s", opt);
	x = cmd_out(fmt, a, "");
	y = cmd_out(fmt, b, "");
	if (!x.p || !y.p)
		same = false;
	lx = x.p ? strtok_r(x.p, "\n", &sx) : NULL;
	ly = y.p ? strtok_r(y.p, "\n", &sy) : NULL;
	while (same && (lx || ly)) {
		/* the file names differ in readelf's headings */
		if (lx && ly && (strstr(lx, a) || strstr(ly, b) ||
		    (skip1 && strstr(lx, skip1) && strstr(ly, skip1)) ||
		    (skip2 && strstr(lx, skip2) && strstr(ly, skip2)))) {
		} else if (!lx || !ly || strcmp(lx, ly)) {
			printf("  readelf %s: '%s' vs '%s'\n", opt, lx ?: "(end)", ly ?: "(end)");
			same = false;
		}
		lx = strtok_r(NULL, "\n", &sx);
		ly = strtok_r(NULL, "\n", &sy);
	}
	free(x.p);
	free(y.p);
	return same;
}

/* Files in tmpdir other than the ones the test made. */
static int stray_files(void)
{
	static const char *const ours[] = { ".", "..", "in", "a", "b", "c", "inplace", "ref", "text",
					     "x32.o" };
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		size_t i = 0;

		while (i < sizeof(ours) / sizeof(ours[0]) && strcmp(e->d_name, ours[i]))
			i++;
		if (i == sizeof(ours) / sizeof(ours[0])) {
			printf("  left behind: %s\n", e->d_name);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static void fill(struct buf *b, size_t n, unsigned seed)
{
	b->p = malloc(n ?: 1);
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b->p[i] = (char)(seed >> 16);
	}
}

/*
 * `out` was written from `in` (a copy of it taken before, when in == out)
 * with `data` as .BTF.inline; `added`: the input had no such section.
 */
static void check_result(const char *what, const char *in, const char *out,
			 const struct buf *data, bool added, const char *run_out)
{
	struct secs si, so;
	struct buf bi = slurp(in), bo = slurp(out), dump, shs_i, shs_o, runo;
	char p[4200], q[4200];
	int at, cnt, shstr = -1;
	bool same_secs = true, same_bytes = true;
	struct stat st_i, st_o;
	int fails0 = fails;

	read_secs(in, &si);
	read_secs(out, &so);
	CHECK(!so.warned && so.n > 1, "%s: readelf -SW warns or shows no sections", what);
	at = find_sec(&so, SEC, &cnt);
	CHECK(cnt == 1 && at > 0, "%s: %d " SEC " sections", what, cnt);
	CHECK(so.n == si.n + (added ? 1 : 0), "%s: %d sections, input %d", what, so.n, si.n);
	if (at > 0)
		CHECK(!strcmp(so.s[at].type, "PROGBITS") && !so.s[at].flags[0] && !so.s[at].addr &&
		      so.s[at].size == data->n, "%s: %s is %s flags '%s' addr %llx size %llu", what, SEC,
		      so.s[at].type, so.s[at].flags, so.s[at].addr, so.s[at].size);
	/* its bytes, by objcopy */
	snprintf(p, sizeof(p), "%s/dump.bin", tmpdir);
	snprintf(q, sizeof(q), "%s/dump.elf", tmpdir);
	{
		char fmt[8400];
		struct buf o;

		unlink(p);
		snprintf(fmt, sizeof(fmt), "objcopy --dump-section " SEC "='%s' '%%s' '%%s'", p);
		o = cmd_out(fmt, out, q);
		dump = slurp(p);
		CHECK(dump.n == data->n && (!data->n || (dump.p && !memcmp(dump.p, data->p, data->n))),
		      "%s: objcopy --dump-section gives %zu bytes (or other bytes), wrote %zu: %s", what, dump.n, data->n,
		      o.p ?: "");
		free(o.p);
		free(dump.p);
		/* objcopy read the whole file and wrote a copy */
		CHECK(access(q, F_OK) == 0, "%s: objcopy cannot copy the result", what);
		unlink(q);
		unlink(p);
	}
	/* every other section: same header, same bytes at the same offset */
	for (int i = 1; i < si.n; i++) {
		const struct sec *a = &si.s[i], *b = &so.s[i];
		bool target = !added && !strcmp(a->name, SEC);

		if (!strcmp(a->name, ".shstrtab"))
			shstr = i;
		if (target)
			continue;
		if (strcmp(a->name, b->name) || strcmp(a->type, b->type) || strcmp(a->flags, b->flags) ||
		    a->addr != b->addr || a->es != b->es || a->lk != b->lk || a->inf != b->inf ||
		    a->al != b->al || (!(added && i == shstr) && (a->off != b->off || a->size != b->size))) {
			printf("  %s: section %d %s differs\n", what, i, a->name);
			same_secs = false;
			continue;
		}
		if (!strcmp(a->type, "NOBITS") || (added && i == shstr))
			continue;
		if (a->off + a->size > bi.n || b->off + b->size > bo.n ||
		    memcmp(bi.p + a->off, bo.p + b->off, a->size)) {
			printf("  %s: bytes of section %d %s differ\n", what, i, a->name);
			same_bytes = false;
		}
	}
	CHECK(same_secs, "%s: section headers changed", what);
	CHECK(same_bytes, "%s: section bytes changed", what);
	/* .shstrtab: the input's names, then ".BTF.inline" when added */
	CHECK(shstr > 0, "%s: no .shstrtab", what);
	if (shstr > 0) {
		const struct sec *a = &si.s[shstr], *b = &so.s[shstr];

		shs_i = (struct buf){ bi.p + a->off, a->size };
		shs_o = (struct buf){ bo.p + b->off, b->size };
		CHECK(shs_o.n == shs_i.n + (added ? sizeof(SEC) : 0) && !memcmp(shs_o.p, shs_i.p, shs_i.n) &&
		      (!added || !memcmp(shs_o.p + shs_i.n, SEC, sizeof(SEC))),
		      "%s: .shstrtab is %zu bytes, input %zu", what, shs_o.n, shs_i.n);
	}
	CHECK(same_readelf("-lW", in, out, NULL, NULL), "%s: program headers differ", what);
	CHECK(same_readelf("-sW", in, out, NULL, NULL), "%s: symbols differ", what);
	CHECK(same_readelf("-rW", in, out, NULL, NULL), "%s: relocations differ", what);
	CHECK(same_readelf("-hW", in, out, "Start of section headers",
			   added ? "Number of section headers" : NULL), "%s: ELF header differs", what);
	CHECK(!stat(in, &st_i) && !stat(out, &st_o) && (st_i.st_mode & 07777) == (st_o.st_mode & 07777),
	      "%s: mode %o, input %o", what, st_o.st_mode & 07777, st_i.st_mode & 07777);
	if (run_out) {
		runo = cmd_out("'%s' 2%s", out, "");
		CHECK(runo.p && !strcmp(runo.p, run_out), "%s: the program prints '%s', the input '%s'",
		      what, runo.p ?: "", run_out);
		free(runo.p);
	}
	CHECK(stray_files() == 0, "%s: temp file left", what);
	if (fails == fails0)
		printf("  ok %s: %d sections, " SEC " at 0x%llx, %zu bytes\n", what, so.n,
		       at > 0 ? so.s[at].off : 0ULL, data->n);
	free(bi.p);
	free(bo.p);
}

/* runs: an executable that prints the same with any .BTF.inline */
static void one(const char *fixture, bool runs)
{
	char in[4200], a[4200], b[4200], c[4200], ip[4200], ref[4200];
	struct buf fx = slurp(fixture), d1, d2, d3, d4, d5, run_out = {}, after;
	struct stat st0, st1;
	int err;

	printf("%s\n", fixture);
	if (!CHECK(fx.n > 0, "%s: cannot read", fixture))
		return;
	fill(&d1, 1003, 1);	/* odd size: the next offset needs alignment */
	fill(&d2, 5000, 2);
	fill(&d3, 16, 3);
	fill(&d4, 777, 4);
	fill(&d5, 64, 5);
	snprintf(in, sizeof(in), "%s/in", tmpdir);
	snprintf(a, sizeof(a), "%s/a", tmpdir);
	snprintf(b, sizeof(b), "%s/b", tmpdir);
	snprintf(c, sizeof(c), "%s/c", tmpdir);
	snprintf(ip, sizeof(ip), "%s/inplace", tmpdir);
	snprintf(ref, sizeof(ref), "%s/ref", tmpdir);
	if (!CHECK(save(in, fx.p, fx.n, 0750), "cannot copy %s", fixture))
		goto out;
	if (runs) {
		run_out = cmd_out("'%s' 2%s", in, "");
		CHECK(run_out.p && strstr(run_out.p, "acc="), "%s does not run: %s", in, run_out.p ?: "");
	}

	/* add, to a copy */
	err = btfi_elf_write_section(in, a, SEC, d1.p, d1.n, &tlog);
	CHECK(!err, "add: %d %s", err, lastmsg);
	after = slurp(in);
	CHECK(after.n == fx.n && !memcmp(after.p, fx.p, fx.n), "add: the input changed");
	free(after.p);
	check_result("add", in, a, &d1, true, run_out.p);

	/* replace with more bytes, then fewer */
	err = btfi_elf_write_section(a, b, SEC, d2.p, d2.n, &tlog);
	CHECK(!err, "replace, larger: %d %s", err, lastmsg);
	check_result("replace, larger", a, b, &d2, false, run_out.p);
	err = btfi_elf_write_section(b, c, SEC, d3.p, d3.n, &tlog);
	CHECK(!err, "replace, smaller: %d %s", err, lastmsg);
	check_result("replace, smaller", b, c, &d3, false, run_out.p);

	/* replace a section that is not the last one: objcopy adds
	 * .BTF.inline and then another section after it */
	{
		char fmt[8500];
		struct buf o;

		CHECK(save(c, d1.p, d1.n, 0640), "write %s", c);
		snprintf(fmt, sizeof(fmt), "objcopy --add-section " SEC "='%s' --add-section .zzz='%s' "
			 "'%%s' '%%s'", c, c);
		o = cmd_out(fmt, in, b);
		if (CHECK(access(b, F_OK) == 0, "objcopy --add-section: %s", o.p ?: "")) {
			struct secs sb;
			int cnt, at = -1;

			read_secs(b, &sb);
			at = find_sec(&sb, SEC, &cnt);
			CHECK(at > 0 && at + 1 < sb.n, "objcopy put " SEC " last");
			err = btfi_elf_write_section(b, c, SEC, d2.p, d2.n, &tlog);
			CHECK(!err, "replace, not last: %d %s", err, lastmsg);
			check_result("replace, not last", b, c, &d2, false, run_out.p);
		}
		free(o.p);
	}

	/* in place, replacing: compared with a copy of the file before */
	after = slurp(a);
	CHECK(save(ip, after.p, after.n, 0750) && save(ref, after.p, after.n, 0750), "copy");
	free(after.p);
	stat(ip, &st0);
	err = btfi_elf_write_section(ip, ip, SEC, d4.p, d4.n, &tlog);
	CHECK(!err, "in place, replace: %d %s", err, lastmsg);
	stat(ip, &st1);
	CHECK(st0.st_ino != st1.st_ino, "in place: same inode %lu (no temp + rename)",
	      (unsigned long)st1.st_ino);
	check_result("in place, replace", ref, ip, &d4, false, run_out.p);

	/* in place, adding */
	CHECK(save(ip, fx.p, fx.n, 0750), "copy");
	err = btfi_elf_write_section(ip, ip, SEC, d5.p, d5.n, &tlog);
	CHECK(!err, "in place, add: %d %s", err, lastmsg);
	check_result("in place, add", in, ip, &d5, true, run_out.p);

	/* in place through a symlink: the file it names gets the section,
	 * the link stays a link */
	{
		char lnk[sizeof(ip) + 8];
		struct stat ls;

		snprintf(lnk, sizeof(lnk), "%s.lnk", ip);
		CHECK(save(ip, fx.p, fx.n, 0750) && !symlink(ip, lnk), "symlink");
		err = btfi_elf_write_section(lnk, lnk, SEC, d5.p, d5.n, &tlog);
		CHECK(!err && !lstat(lnk, &ls) && S_ISLNK(ls.st_mode),
		      "in place via symlink: %d %s, link kept %d", err, lastmsg, S_ISLNK(ls.st_mode));
		unlink(lnk);
		check_result("in place via symlink", in, ip, &d5, true, run_out.p);
	}
	free(run_out.p);

	/* an empty section */
	err = btfi_elf_write_section(in, a, SEC, "", 0, &tlog);
	CHECK(!err, "empty: %d %s", err, lastmsg);
	{
		struct secs so;
		int cnt, at;

		read_secs(a, &so);
		at = find_sec(&so, SEC, &cnt);
		CHECK(!so.warned && cnt == 1 && at > 0 && so.s[at].size == 0, "empty: %d sections, size %llu",
		      cnt, at > 0 ? so.s[at].size : 0ULL);
	}
out:
	free(fx.p);
	free(d1.p);
	free(d2.p);
	free(d3.p);
	free(d4.p);
	free(d5.p);
	unlink(in); unlink(a); unlink(b); unlink(c); unlink(ip); unlink(ref);
}

static void bad_input(void)
{
	char txt[4200], out[4200], nodir[4200];
	int err;

	snprintf(txt, sizeof(txt), "%s/text", tmpdir);
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	snprintf(nodir, sizeof(nodir), "%s/no/such/dir/out", tmpdir);
	CHECK(save(txt, "hello, not ELF\n", 15, 0644), "write %s", txt);

	nmsgs = 0;
	err = btfi_elf_write_section(txt, out, SEC, "x", 1, &tlog);
	CHECK(err == -EINVAL && nmsgs == 1 && strstr(lastmsg, txt) && strstr(lastmsg, "not an ELF"),
	      "not ELF: %d, %d messages, '%s'", err, nmsgs, lastmsg);
	CHECK(access(out, F_OK) != 0, "not ELF: output created");

	nmsgs = 0;
	err = btfi_elf_write_section(txt, txt, SEC, "x", 1, &tlog);
	{
		struct buf t = slurp(txt);

		CHECK(err == -EINVAL && nmsgs == 1 && t.n == 15 && !memcmp(t.p, "hello", 5),
		      "not ELF in place: %d, %d messages, file now %zu bytes", err, nmsgs, t.n);
		free(t.p);
	}

	nmsgs = 0;
	err = btfi_elf_write_section(nodir, out, SEC, "x", 1, &tlog);
	CHECK(err == -ENOENT && nmsgs == 1 && strstr(lastmsg, nodir),
	      "missing input: %d, %d messages, '%s'", err, nmsgs, lastmsg);

	{
		char fx[4200];
		const char *dir = getenv("FIXTURES") ?: "build/fixtures";

		snprintf(fx, sizeof(fx), "%s/shapes-gcc-dw5", dir);
		nmsgs = 0;
		err = btfi_elf_write_section(fx, nodir, SEC, "x", 1, &tlog);
		CHECK(err == -ENOENT && nmsgs == 1 && strstr(lastmsg, nodir),
		      "missing output directory: %d, %d messages, '%s'", err, nmsgs, lastmsg);
	}
	CHECK(stray_files() == 0, "bad input: temp file left");
	unlink(txt);
	unlink(out);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("FIXTURES") ?: "build/fixtures";
	char path[4200];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			one(argv[i], false);
	} else {
		struct buf o;

		snprintf(path, sizeof(path), "%s/shapes-gcc-dw5", dir);
		one(path, true);
		snprintf(path, sizeof(path), "%s/shapes-clang-dw5", dir);
		one(path, true);
		/* relocatable objects, 64-bit and 32-bit (x32, made by objcopy) */
		one(CRT "crt1.o", false);
		snprintf(path, sizeof(path), "%s/x32.o", tmpdir);
		o = cmd_out("objcopy -O elf32-x86-64 " CRT "crti.o '%s'%s", path, "");
		if (CHECK(access(path, F_OK) == 0, "objcopy -O elf32-x86-64: %s", o.p ?: ""))
			one(path, false);
		free(o.p);
		unlink(path);
	}
	bad_input();
	CHECK(rmdir(tmpdir) == 0, "%s not empty: %s", tmpdir, strerror(errno));
	return check_done();
}
