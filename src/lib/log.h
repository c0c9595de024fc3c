/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Error reporting: one message per failure, through the caller's sink. */
#ifndef BTFI_LOG_H
#define BTFI_LOG_H
#include "btfinline.h"

__attribute__((format(printf, 2, 3)))
void btfi_err(const struct btfi_log *log, const char *fmt, ...);

#endif
