/* Bundled example for `make run`: a tiny order book whose helpers the
 * compiler inlines, some everywhere (fully), some with an out-of-line copy
 * as well (selectively). `btfinline trace` shows every inlined call with
 * its arguments, read from .BTF.inline, no DWARF needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum side { BUY, SELL };

struct order {
	int id;
	enum side side;
	long price;		/* cents */
	unsigned qty;
	char symbol[8];
};

static long total_cents;

/* Fully inlined: no symbol left. */
static inline __attribute__((always_inline)) long notional(long price, unsigned qty)
{
	return price * (long)qty;
}

static inline __attribute__((always_inline)) int accept(const struct order *o, long limit)
{
	return o->qty > 0 && notional(o->price, o->qty) <= limit;
}

/* Selectively inlined: inlined below, an out-of-line copy is kept for the
 * function pointer. */
static long fee(long cents, int bps)
{
	return cents * bps / 10000;
}
long (*volatile fee_ptr)(long, int) = fee;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	struct order o;

	for (int i = 0; i < n; i++) {
		memset(&o, 0, sizeof(o));
		o.id = 1000 + i;
		o.side = i % 2 ? SELL : BUY;
		o.price = 10000 + 250 * i;
		o.qty = 3 + i;
		snprintf(o.symbol, sizeof(o.symbol), "BTF%d", i);
		if (accept(&o, 60000))
			total_cents += notional(o.price, o.qty) + fee(o.price, 25);
	}
	total_cents += fee_ptr(total_cents, 10);
	printf("%d orders, total %ld cents\n", n, total_cents);
	return 0;
}
