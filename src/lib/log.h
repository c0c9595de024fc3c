/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reporting through the caller's struct btfi_log (include/btfinline.h):
 * btfi_err once per failure, btfi_info / btfi_debug for the rest. */
#ifndef BTFI_LOG_H
#define BTFI_LOG_H
#include "btfinline.h"

__attribute__((format(printf, 3, 4)))
void btfi_log_msg(const struct btfi_log *log, enum btfi_log_level level, const char *fmt, ...);

#define btfi_err(log, ...)	btfi_log_msg((log), BTFI_LOG_WARN, __VA_ARGS__)
#define btfi_info(log, ...)	btfi_log_msg((log), BTFI_LOG_INFO, __VA_ARGS__)
#define btfi_debug(log, ...)	btfi_log_msg((log), BTFI_LOG_DEBUG, __VA_ARGS__)

/* A sink that keeps the first message, to add context before passing it
 * on: struct btfi_log l = BTFI_LOG_KEEP(&m). */
struct btfi_msgbuf {
	char s[512];
};
void btfi_log_keep(void *ctx, const char *msg);
#define BTFI_LOG_KEEP(buf) ((struct btfi_log){ .fn = btfi_log_keep, .ctx = (buf) })

/* A sink that drops every message, for callers that only ask yes or no. */
void btfi_log_drop(void *ctx, const char *msg);
#define BTFI_LOG_NONE ((struct btfi_log){ .fn = btfi_log_drop })

#endif
