// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/PID/maps: "start-end perms offset dev inode path". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "procmaps.h"

int btfi_procmaps(int pid, int (*fn)(const struct btfi_procmap *m, void *ctx), void *ctx)
{
	char fn_[64], line[4096 + 128];
	unsigned long long start, end, off;
	int ret = 0;
	FILE *f;

	snprintf(fn_, sizeof(fn_), "/proc/%d/maps", pid);
	if (!(f = fopen(fn_, "re")))
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		struct btfi_procmap m;

		if (!path || sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) != 3)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (strstr(path, " (deleted)"))
			continue;
		m = (struct btfi_procmap){ start, end, off, path };
		ret = fn(&m, ctx);
	}
	fclose(f);
	return ret;
}
