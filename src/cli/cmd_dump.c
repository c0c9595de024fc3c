// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include "cli.h"

int cmd_dump(int argc, char **argv)
{
	fprintf(stderr, "btfinline dump: not implemented yet\n");
	return 1;
}
