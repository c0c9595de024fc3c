// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Kprobes through the perf kprobe PMU, with bpf cookies; base-BTF check. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <linux/btf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include "attach/attach_kprobe.h"
#include "format/base.h"
#include "log.h"

#define KPROBE_PMU_DIR "/sys/bus/event_source/devices/kprobe"

static int read_sysfs_int(const char *path, const char *prefix, int *val,
			  const struct btfi_log *log)
{
	char buf[64];
	size_t plen = strlen(prefix);
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(errno));
		return err;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0) {
		btfi_err(log, "%s: %s", path, strerror(err));
		return -err;
	}
	buf[n] = '\0';
	if (strncmp(buf, prefix, plen) || sscanf(buf + plen, "%d", val) != 1) {
		btfi_err(log, "%s: unexpected contents", path);
		return -EINVAL;
	}
	return 0;
}

int btfi_kprobe_pmu_type(const struct btfi_log *log)
{
	int type, err;

	err = read_sysfs_int(KPROBE_PMU_DIR "/type", "", &type, log);
	return err ? err : type;
}

/* Bit of attr.config that makes a kretprobe ("config:0" on x86-64). */
static int retprobe_bit(const struct btfi_log *log)
{
	int bit, err;

	err = read_sysfs_int(KPROBE_PMU_DIR "/format/retprobe", "config:", &bit, log);
	return err ? err : bit;
}

static void fmt_target(char *buf, size_t sz, const char *sym, uint64_t off)
{
	if (sym)
		snprintf(buf, sz, "%s+0x%llx", sym, (unsigned long long)off);
	else
		snprintf(buf, sz, "0x%llx", (unsigned long long)off);
}

int btfi_kprobe_open(const char *sym, uint64_t off, const struct btfi_kprobe_opts *opts)
{
	const struct btfi_log *log = opts ? &opts->log : NULL;
	struct perf_event_attr attr;
	char what[160];
	int type = opts ? opts->pmu_type : 0, pfd, err;

	if (type <= 0) {
		type = btfi_kprobe_pmu_type(log);
		if (type < 0)
			return type;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	if (opts && opts->retprobe) {
		int bit = retprobe_bit(log);

		if (bit < 0)
			return bit;
		attr.config |= 1ULL << bit;
	}
	/* config1: symbol name pointer (0: absolute address), config2: offset
	 * from the symbol, or the address. */
	attr.config1 = (uint64_t)(uintptr_t)sym;
	attr.config2 = off;
	/* pid -1, cpu 0: a system-wide kprobe; the BPF program runs on every
	 * CPU regardless of the event's cpu. */
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
		fmt_target(what, sizeof(what), sym, off);
		btfi_err(log, "kprobe at %s: %s", what,
			 err == -EILSEQ ? "not an instruction boundary" :
			 err == -ENOENT ? "no such kernel symbol" :
			 err == -EINVAL ? "invalid address or not probe-able (EINVAL)" :
			 err == -EMFILE ? "too many open files (raise RLIMIT_NOFILE: 2 per site)" :
			 strerror(-err));
		return err;
	}
	return pfd;
}

int btfi_kprobe_attach(struct bpf_program *prog, const char *sym, uint64_t off,
		       const struct btfi_kprobe_opts *opts, struct bpf_link **link)
{
	const struct btfi_log *log = opts ? &opts->log : NULL;
	LIBBPF_OPTS(bpf_perf_event_opts, popts);
	struct bpf_link *l;
	char what[160];
	int pfd, err;

	*link = NULL;
	pfd = btfi_kprobe_open(sym, off, opts);
	if (pfd < 0)
		return pfd;
	popts.bpf_cookie = opts ? opts->bpf_cookie : 0;
	l = bpf_program__attach_perf_event_opts(prog, pfd, &popts);
	if (!l) {
		err = -errno;
		close(pfd);
		fmt_target(what, sizeof(what), sym, off);
		btfi_err(log, "kprobe at %s: attach BPF program %s: %s", what,
			 bpf_program__name(prog), strerror(-err));
		return err;
	}
	/* The link owns pfd now: bpf_link__destroy() closes it. */
	*link = l;
	return 0;
}

static int read_file(const char *path, void **data, size_t *size, const struct btfi_log *log)
{
	size_t cap = 1 << 22, len = 0;
	char *buf = NULL;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		btfi_err(log, "%s: %s", path, strerror(errno));
		return err;
	}
	for (;;) {
		ssize_t n;

		if (!buf || len == cap) {
			char *nb = realloc(buf, buf ? cap *= 2 : cap);

			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		/* sysfs BTF has no useful st_size on old kernels: read to EOF. */
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			err = -errno;
			btfi_err(log, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	*data = buf;
	*size = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return err;
}

int btfi_check_base_matches(const struct btf *base_of_blob, const char *sysfs_path,
			    const struct btfi_log *log)
{
	const char *path = sysfs_path ? sysfs_path : "/sys/kernel/btf/vmlinux";
	uint32_t blob_size;
	const void *blob;
	struct btfi_base_diff d;
	void *kdata = NULL;
	size_t ksize = 0;
	int err;

	blob = btf__raw_data(base_of_blob, &blob_size);
	if (!blob) {
		btfi_err(log, "base BTF: cannot serialize");
		return -ENOMEM;
	}
	err = read_file(path, &kdata, &ksize, log);
	if (err)
		return err;
	err = btfi_base_same_raw(kdata, ksize, blob, blob_size, &d);
	free(kdata);
	if (err)
		btfi_err(log, "base BTF does not match the running kernel's %s "
			 "(running: %u types, %u string bytes; this one: %u types, %u string bytes; "
			 "first difference at byte %zu): inline info built for another kernel",
			 path, d.ntypes[0], d.str_len[0], d.ntypes[1], d.str_len[1], d.first_diff);
	return err;
}
