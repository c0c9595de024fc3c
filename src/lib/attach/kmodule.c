// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loaded kernel modules through sysfs: section addresses, build-ids. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include "attach/kmodule.h"
#include "log.h"

/* Module names are C identifiers (dashes become underscores in sysfs). */
static bool valid_name(const char *name)
{
	return name && *name && strlen(name) < sizeof(((struct btfi_kmod *)0)->name) &&
	       !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

bool btfi_kmod_loaded(const char *name)
{
	char path[256];

	if (!valid_name(name))
		return false;
	snprintf(path, sizeof(path), BTFI_SYSFS_MODULE "/%s/sections", name);
	return !access(path, F_OK);
}

void btfi_kmod_free(struct btfi_kmod *m)
{
	free(m->secs);
	memset(m, 0, sizeof(*m));
}

int btfi_kmod_load(const char *name, struct btfi_kmod *m, const struct btfi_log *log)
{
	char dir[256], path[512], buf[64];
	struct dirent *e;
	size_t cap = 0, nonzero = 0;
	DIR *d;
	int err = 0;

	memset(m, 0, sizeof(*m));
	if (!valid_name(name)) {
		btfi_err(log, "kernel: '%s' is not a module name", name ? name : "");
		return -EINVAL;
	}
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(dir, sizeof(dir), BTFI_SYSFS_MODULE "/%s/sections", name);
	d = opendir(dir);
	if (!d) {
		err = -errno;
		if (err == -ENOENT)
			btfi_err(log, "kernel: module %s is not loaded", name);
		else
			btfi_err(log, "kernel: module %s: %s: %s", name, dir, strerror(-err));
		return err;
	}
	while ((e = readdir(d))) {
		struct btfi_kmod_sec *ns;
		ssize_t n;
		int fd;

		if (e->d_name[0] != '.' || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    strlen(e->d_name) >= sizeof(ns->name))
			continue;	/* section names start with '.'; __param etc. hold no code */
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			btfi_err(log, "kernel: module %s: %s: %s", name, path, strerror(-err));
			break;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		if (m->nsecs == cap) {
			cap = cap ? cap * 2 : 32;
			ns = realloc(m->secs, cap * sizeof(*ns));
			if (!ns) {
				err = -ENOMEM;
				btfi_err(log, "kernel: module %s: out of memory", name);
				break;
			}
			m->secs = ns;
		}
		snprintf(m->secs[m->nsecs].name, sizeof(m->secs[0].name), "%s", e->d_name);
		m->secs[m->nsecs].addr = strtoull(buf, NULL, 16);
		nonzero += m->secs[m->nsecs].addr != 0;
		m->nsecs++;
	}
	closedir(d);
	if (!err && m->nsecs && !nonzero) {
		btfi_err(log, "kernel: module %s: section addresses are hidden (%s: need root)", name, dir);
		err = -EPERM;
	}
	if (err)
		btfi_kmod_free(m);
	return err;
}

int btfi_kmod_sec_base(const struct btfi_kmod *m, const char *sec, uint64_t *addr)
{
	if (!strncmp(sec, "inline", 6))
		sec += 6;
	/* init code is freed once the module's init has run */
	if (!strncmp(sec, ".init", 5))
		return -ENOENT;
	for (size_t i = 0; i < m->nsecs; i++)
		if (!strcmp(m->secs[i].name, sec) && m->secs[i].addr) {
			*addr = m->secs[i].addr;
			return 0;
		}
	return -ENOENT;
}

size_t btfi_notes_build_id(const char *path, char *hex, size_t len)
{
	unsigned char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	size_t off = 0;

	if (fd >= 0)
		close(fd);
	if (len)
		hex[0] = 0;
	/* Elf64_Nhdr and Elf32_Nhdr are the same: 3 words, 4-aligned. */
	while (n > 0 && off + sizeof(Elf64_Nhdr) <= (size_t)n) {
		Elf64_Nhdr nh;
		size_t name_at = off + sizeof(nh), desc_at, next;

		memcpy(&nh, buf + off, sizeof(nh));
		desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
		next = desc_at + ((nh.n_descsz + 3) & ~3u);
		if (next > (size_t)n || desc_at > (size_t)n)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && nh.n_descsz && nh.n_descsz * 2 < len) {
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", buf[desc_at + i]);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

size_t btfi_kmod_build_id(const char *name, char *hex, size_t len)
{
	char path[256];

	if (!name)
		return btfi_notes_build_id(BTFI_KERNEL_NOTES, hex, len);
	if (!valid_name(name))
		return 0;
	snprintf(path, sizeof(path), BTFI_SYSFS_MODULE "/%s/notes/.note.gnu.build-id", name);
	return btfi_notes_build_id(path, hex, len);
}
