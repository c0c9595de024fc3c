// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btfi_kdebug_find(): a kernel's or module's debug file under a debug root
 * laid out as distributions do, by build-id. The "kernel" and "module"
 * here are fixture ELFs (DWARF, a build-id readelf prints) copied into a
 * temporary root: found by .build-id link, by vmlinux-RELEASE, by module
 * file name with '-' for '_', .ko.debug too; a stripped copy is passed
 * over; another build-id is one message naming both ids (-ESTALE);
 * nothing is -ENOENT with the places looked at.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "btfinline.h"
#include "elf_file.h"
#include "source/kdebug.h"
#include "check.h"

static char lastmsg[1024];
static int nmsgs;
static void logfn(void *ctx, const char *msg)
{
	snprintf(lastmsg, sizeof(lastmsg), "%s", msg);
	nmsgs++;
}

static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int find(const char *root, const char *mod, const char *id, char **path, char *tried, size_t n)
{
	BTFI_OPTS(btfi_kdebug_opts, o, .log = { logfn, NULL }, .release = "6.1.0-test",
		  .build_id = id, .debug_dirs = root);

	nmsgs = 0;
	lastmsg[0] = 0;
	return btfi_kdebug_find(mod, &o, path, tried, n);
}

int main(void)
{
	const char *dir = getenv("FIXTURES") ?: "build/fixtures";
	char elf[512], other[512], id[130], oid[130], root[] = "/tmp/btfi-kdebug-XXXXXX", tried[4096];
	char *path = NULL;
	int err;

	snprintf(elf, sizeof(elf), "%s/shapes-gcc-dw5", dir);
	snprintf(other, sizeof(other), "%s/shapes-clang-dw5", dir);
	if (!btfi_elf_file_build_id(elf, id, sizeof(id)) || !btfi_elf_file_build_id(other, oid, sizeof(oid))) {
		printf("skip: no fixtures with build-ids in %s\n", dir);
		return 77;
	}
	if (!mkdtemp(root))
		return 1;

	/* vmlinux: nothing there yet */
	err = find(root, NULL, id, &path, tried, sizeof(tried));
	CHECK(err == -ENOENT && !path && !nmsgs && strstr(tried, "/boot/vmlinux-6.1.0-test") &&
	      strstr(tried, "/.build-id/"), "nothing: %d, tried %s", err, tried);
	/* a stripped vmlinux-R is not the DWARF, another build's is named */
	sh("mkdir -p %s/boot && objcopy --strip-debug %s %s/boot/vmlinux-6.1.0-test", root, elf, root);
	err = find(root, NULL, id, &path, tried, sizeof(tried));
	CHECK(err == -ENOENT && !nmsgs, "stripped copy passed over: %d %s", err, lastmsg);
	sh("cp %s %s/boot/vmlinux-6.1.0-test", other, root);
	err = find(root, NULL, id, &path, tried, sizeof(tried));
	CHECK(err == -ESTALE && nmsgs == 1 && strstr(lastmsg, oid) && strstr(lastmsg, id) &&
	      strstr(lastmsg, "vmlinux-6.1.0-test"), "another build: %d %s", err, lastmsg);
	sh("cp %s %s/boot/vmlinux-6.1.0-test", elf, root);
	err = find(root, NULL, id, &path, tried, sizeof(tried));
	CHECK(!err && path && strstr(path, "/boot/vmlinux-6.1.0-test"), "vmlinux-R: %d %s", err, path);
	free(path);
	path = NULL;
	/* the build-id link comes first */
	sh("mkdir -p %s/.build-id/%.2s && cp %s %s/.build-id/%.2s/%s.debug", root, id, elf, root, id, id + 2);
	err = find(root, NULL, id, &path, tried, sizeof(tried));
	CHECK(!err && path && strstr(path, "/.build-id/"), "build-id link: %d %s", err, path);
	free(path);
	path = NULL;

	/* module snd_fake: snd-fake.ko somewhere below lib/modules/R */
	err = find(root, "snd_fake", oid, &path, tried, sizeof(tried));
	CHECK(err == -ENOENT && strstr(tried, "/lib/modules/6.1.0-test"), "no module: %d %s", err, tried);
	sh("mkdir -p %s/lib/modules/6.1.0-test/kernel/sound && cp %s %s/lib/modules/6.1.0-test/kernel/sound/snd-fake.ko",
	   root, other, root);
	err = find(root, "snd_fake", oid, &path, tried, sizeof(tried));
	CHECK(!err && path && strstr(path, "/kernel/sound/snd-fake.ko"), "module by name: %d %s", err, path);
	free(path);
	path = NULL;
	err = find(root, "snd", oid, &path, tried, sizeof(tried));
	CHECK(err == -ENOENT, "a prefix is not the module: %d %s", err, path ? path : "");
	sh("mv %s/lib/modules/6.1.0-test/kernel/sound/snd-fake.ko %s/lib/modules/6.1.0-test/kernel/sound/snd-fake.ko.debug",
	   root, root);
	err = find(root, "snd_fake", oid, &path, tried, sizeof(tried));
	CHECK(!err && path && strstr(path, "snd-fake.ko.debug"), "Fedora's .ko.debug: %d %s", err, path);
	free(path);
	path = NULL;
	sh("rm -rf %s/.build-id", root);
	err = find(root, "snd_fake", id, &path, tried, sizeof(tried));
	CHECK(err == -ESTALE && nmsgs == 1 && strstr(lastmsg, "module snd_fake"), "module of another build: %s",
	      lastmsg);
	{
		char hint[256];

		btfi_kdebug_hint("6.1.0-test", hint, sizeof(hint));
		CHECK(strstr(hint, "6.1.0-test") && strstr(hint, "install"), "hint: %s", hint);
		printf("hint here: %s\n", hint);
	}
	sh("rm -rf %s", root);
	return check_done();
}
