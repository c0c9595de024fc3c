// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include "cli.h"

int cmd_encode(int argc, char **argv)
{
	fprintf(stderr, "btfinline encode: not implemented yet\n");
	return 1;
}
