// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdarg.h>
#include "log.h"

void btfi_err(const struct btfi_log *log, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (log && log->fn)
		log->fn(log->ctx, buf);
	else
		fprintf(stderr, "btfinline: %s\n", buf);
}
