// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include "cli.h"

int cmd_trace(int argc, char **argv)
{
	fprintf(stderr, "btfinline trace: not implemented yet\n");
	return 1;
}
