// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kallsyms parser: KASLR slide, lookups by name (duplicates counted) and by
 * address (aliases and section markers, module symbols skipped), hidden
 * addresses and bad files refused with one message; section bases. Then
 * the host's own /proc/kallsyms when it shows addresses: every text
 * symbol of the first thousand is found again by name and by address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "btfinline.h"
#include "attach/kallsyms.h"
#include "check.h"

static char lastmsg[1024];
static int nmsgs;
static void logfn(void *ctx, const char *msg)
{
	snprintf(lastmsg, sizeof(lastmsg), "%s", msg);
	nmsgs++;
}

static const char *write_tmp(const char *text)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/btfi-kallsyms-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror("tmp");
		exit(1);
	}
	close(fd);
	return path;
}

static struct btfi_ksyms *load(const char *text, int *err)
{
	const char *path = write_tmp(text);
	BTFI_OPTS(btfi_ksyms_opts, o, .path = path, .log = { logfn, NULL });
	struct btfi_ksyms *ks = NULL;

	nmsgs = 0;
	lastmsg[0] = 0;
	*err = btfi_ksyms_load(&o, &ks);
	unlink(path);
	return ks;
}

static const char fake[] =
	"ffffffffa1000000 T _stext\n"
	"ffffffffa1000000 T _text\n"
	"ffffffffa1000000 T startup_64\n"
	"ffffffffa1000100 t dup_helper\n"
	"ffffffffa1000180 T vfs_read\n"
	"ffffffffa1000400 t dup_helper\n"
	"ffffffffa1000500 T __x64_sys_fallocate\n"
	"ffffffffa1000600 W weak_fn\n"
	"ffffffffa1e00000 T _etext\n"
	"ffffffffa2000000 D some_data\n"
	"ffffffffa3000000 T _sinittext\n"
	"ffffffffa3000010 t init_fn\n"
	"ffffffffa3100000 T _einittext\n"
	"ffffffffc0001000 t loop_queue_rq\t[loop]\n"
	"ffffffffc0002000 t ovl_lookup\t[overlay]\n"
	"ffffffffc0002400 t __ovl_helper\t[overlay]\n"
	"ffffffffc0002400 t ovl_fill_merge\t[overlay]\n"
	"ffffffffc0002800 d ovl_data\t[overlay]\n"
	"ffffffffc0002900 t ovl_dup\t[overlay]\n"
	"ffffffffc0002a00 t ovl_dup\t[overlay]\n"
	"ffffffffc0001100 t ovl_lookup\t[loop]\n"
	"garbage line\n";

static void test_fake(void)
{
	const struct btfi_ksym *s;
	struct btfi_ksyms *ks;
	uint64_t base;
	int err;

	ks = load(fake, &err);
	CHECK(!err && ks, "err %d", err);
	if (!ks)
		return;
	CHECK(btfi_ksyms_text(ks) == 0xffffffffa1000000ULL, "text %llx",
	      (unsigned long long)btfi_ksyms_text(ks));
	CHECK(btfi_ksyms_kaslr_delta(ks, BTFI_X86_64_LINK_TEXT) == 0x20000000, "delta");
	CHECK(btfi_ksyms_by_name(ks, "vfs_read", &s) == 1 && s->addr == 0xffffffffa1000180ULL &&
	      s->type == 'T', "vfs_read");
	CHECK(btfi_ksyms_by_name(ks, "dup_helper", &s) == 2 && s->addr == 0xffffffffa1000100ULL,
	      "dup_helper: first of two");
	CHECK(btfi_ksyms_by_name(ks, "loop_queue_rq", &s) == 0 && !s, "module symbol skipped");
	CHECK(btfi_ksyms_by_name(ks, "nope", NULL) == 0, "absent");
	CHECK(btfi_ksyms_by_name(ks, "a", NULL) == 0, "before all names");
	CHECK(btfi_ksyms_by_name(ks, "zzz", NULL) == 0, "after all names");

	s = btfi_ksyms_by_addr(ks, 0xffffffffa1000000ULL);
	CHECK(s && !strcmp(s->name, "startup_64"), "alias preference: %s", s ? s->name : "-");
	s = btfi_ksyms_by_addr(ks, 0xffffffffa10001a3ULL);
	CHECK(s && !strcmp(s->name, "vfs_read"), "inside vfs_read: %s", s ? s->name : "-");
	s = btfi_ksyms_by_addr(ks, 0xffffffffa1000418ULL);
	CHECK(s && !strcmp(s->name, "dup_helper") && s->addr == 0xffffffffa1000400ULL,
	      "second dup_helper");
	s = btfi_ksyms_by_addr(ks, 0xffffffffa1000500ULL);
	CHECK(s && !strcmp(s->name, "__x64_sys_fallocate"), "underscore name alone: %s",
	      s ? s->name : "-");
	s = btfi_ksyms_by_addr(ks, 0xffffffffa1000700ULL);
	CHECK(s && !strcmp(s->name, "weak_fn"), "weak");
	CHECK(!btfi_ksyms_by_addr(ks, 0xffffffffa0ffffffULL), "below _text");
	CHECK(!btfi_ksyms_by_addr(ks, 0xffffffffa2000000ULL), "data is not text");
	s = btfi_ksyms_by_addr(ks, 0xffffffffa3000020ULL);
	CHECK(s && !strcmp(s->name, "init_fn"), "init text");
	CHECK(!btfi_ksyms_by_addr(ks, 0xffffffffc0001000ULL), "module address");

	/* module symbols, per module */
	CHECK(btfi_ksyms_mod_cnt(ks, "overlay") == 6 && btfi_ksyms_mod_cnt(ks, "loop") == 2 &&
	      btfi_ksyms_mod_cnt(ks, "xfs") == 0, "module symbol counts");
	s = btfi_ksyms_mod_by_name_nth(ks, "overlay", "ovl_lookup", 0);
	CHECK(s && s->addr == 0xffffffffc0002000ULL && s->mod && !strcmp(s->mod, "overlay") &&
	      !btfi_ksyms_mod_by_name_nth(ks, "overlay", "ovl_lookup", 1), "ovl_lookup in overlay only once");
	s = btfi_ksyms_mod_by_name_nth(ks, "loop", "ovl_lookup", 0);
	CHECK(s && s->addr == 0xffffffffc0001100ULL, "the same name in another module");
	CHECK(btfi_ksyms_mod_by_name_nth(ks, "overlay", "ovl_dup", 1) &&
	      btfi_ksyms_mod_by_name_nth(ks, "overlay", "ovl_dup", 1)->addr == 0xffffffffc0002a00ULL &&
	      !btfi_ksyms_mod_by_name_nth(ks, "overlay", "ovl_dup", 2), "second ovl_dup by address");
	s = btfi_ksyms_mod_by_addr(ks, "overlay", 0xffffffffc0002439ULL);
	CHECK(s && !strcmp(s->name, "ovl_fill_merge"), "inside ovl_fill_merge (alias without _): %s",
	      s ? s->name : "-");
	s = btfi_ksyms_mod_by_addr(ks, "overlay", 0xffffffffc0002810ULL);
	CHECK(s && !strcmp(s->name, "ovl_fill_merge"), "data symbols are not text: %s", s ? s->name : "-");
	CHECK(!btfi_ksyms_mod_by_addr(ks, "overlay", 0xffffffffc0001fffULL), "below the module's first");
	CHECK(!btfi_ksyms_mod_by_name_nth(ks, "xfs", "ovl_lookup", 0), "not loaded");
	CHECK(btfi_ksyms_by_name(ks, "ovl_lookup", NULL) == 0, "core lookups see no module symbol");

	CHECK(!btfi_ksyms_sec_base(ks, "inline.text", &base, NULL) &&
	      base == 0xffffffffa1000000ULL, "inline.text base");
	CHECK(!btfi_ksyms_sec_base(ks, ".text", &base, NULL) && base == 0xffffffffa1000000ULL,
	      ".text base");
	{
		struct btfi_log log = { .fn = logfn, .ctx = NULL };

		nmsgs = 0;
		CHECK(btfi_ksyms_sec_base(ks, "inline.init.text", &base, &log) == -ENOENT &&
		      nmsgs == 1 && strstr(lastmsg, ".init.text"), "init.text: %s", lastmsg);
	}
	btfi_ksyms_free(ks);
}

static void test_bad(void)
{
	struct btfi_ksyms *ks;
	int err;

	ks = load("0000000000000000 T _stext\n0000000000000000 T _text\n"
		  "0000000000000000 T vfs_read\n", &err);
	CHECK(err == -EPERM && !ks && nmsgs == 1 && strstr(lastmsg, "kptr_restrict"),
	      "hidden: %d %s", err, lastmsg);
	ks = load("ffffffff81000000 T startup_64\n", &err);
	CHECK(err == -ENOENT && !ks && nmsgs == 1 && strstr(lastmsg, "_text"),
	      "no _text: %d %s", err, lastmsg);
	{
		BTFI_OPTS(btfi_ksyms_opts, o, .path = "/nonexistent/kallsyms",
			  .log = { logfn, NULL });

		nmsgs = 0;
		err = btfi_ksyms_load(&o, &ks);
		CHECK(err == -ENOENT && !ks && nmsgs == 1 &&
		      !strncmp(lastmsg, "/nonexistent/kallsyms: ", 23), "missing: %s", lastmsg);
	}
}

/* The host kernel's symbols: cross-check lookups against the raw lines. */
static void test_host(void)
{
	BTFI_OPTS(btfi_ksyms_opts, o, .log = { logfn, NULL });
	struct btfi_ksyms *ks;
	char line[512];
	int n = 0, err;
	FILE *f;

	err = btfi_ksyms_load(&o, &ks);
	if (err == -EPERM || err == -ENOENT || err == -EACCES) {
		printf("host /proc/kallsyms not usable (%d), host part skipped\n", err);
		return;
	}
	CHECK(!err, "load host: %d %s", err, lastmsg);
	if (err)
		return;
	f = fopen("/proc/kallsyms", "r");
	while (f && n < 1000 && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		const struct btfi_ksym *s;

		if (strchr(line, '\t') || sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		n++;
		CHECK(btfi_ksyms_by_name(ks, name, &s) >= 1, "%s by name", name);
		if (btfi_ksyms_by_name(ks, name, &s) == 1)
			CHECK(s->addr == addr, "%s addr", name);
		s = btfi_ksyms_by_addr(ks, addr);
		CHECK(s && s->addr == addr, "%s by addr: %s", name, s ? s->name : "-");
	}
	if (f)
		fclose(f);
	printf("host: %d text symbols cross-checked, _text at 0x%llx\n", n,
	       (unsigned long long)btfi_ksyms_text(ks));
	btfi_ksyms_free(ks);
}

int main(void)
{
	test_fake();
	test_bad();
	test_host();
	return check_done();
}
