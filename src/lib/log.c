// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdarg.h>
#include "log.h"

void btfi_log_msg(const struct btfi_log *log, enum btfi_log_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (log && !log->print && (log->fn ? level != BTFI_LOG_WARN : level == BTFI_LOG_DEBUG))
		return;
	if (!log && level == BTFI_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (log && log->print)
		log->print(log->ctx, level, buf);
	else if (log && log->fn)
		log->fn(log->ctx, buf);
	else
		fprintf(stderr, "btfinline: %s\n", buf);
}

void btfi_log_keep(void *ctx, const char *msg)
{
	struct btfi_msgbuf *m = ctx;

	if (!m->s[0])
		snprintf(m->s, sizeof(m->s), "%s", msg);
}

void btfi_log_drop(void *ctx, const char *msg)
{
}
