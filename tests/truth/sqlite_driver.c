/* Fixed, deterministic SQL workload on SQLite's amalgamation for the truth
 * harness (tests/truth/run.sh): the same calls, in the same order, in every
 * build. `sqlite_driver [SCALE]` (default 1): tables, inserts in loops with
 * bound values, an index, queries (WHERE, ORDER BY, GROUP BY, JOIN, LIKE,
 * string and math functions), updates, deletes, a savepoint. In memory, the
 * PRNG seeded: no file, time or random input reaches the library. Prints a
 * checksum of every result so a wrong build is seen.
 *
 * If $TRUTH_MAPS names a file, /proc/self/maps is copied there before exit
 * (the harness maps pointers to image/heap offsets with it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;
static unsigned long long sum;

static void die(const char *what)
{
	fprintf(stderr, "sqlite_driver: %s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

static void exec(const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite_driver: %s: %s\n", sql, err ? err : "?");
		exit(1);
	}
}

static sqlite3_stmt *prep(const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die(sql);
	return st;
}

/* Step through every row, folding each column into the checksum. */
static int drain(sqlite3_stmt *st)
{
	int rows = 0, rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *t;

			switch (sqlite3_column_type(st, c)) {
			case SQLITE_INTEGER:
				sum = sum * 31 + (unsigned long long)sqlite3_column_int64(st, c);
				break;
			case SQLITE_FLOAT:
				sum = sum * 31 + (unsigned long long)(long long)(sqlite3_column_double(st, c) * 1000);
				break;
			case SQLITE_TEXT:
				for (t = sqlite3_column_text(st, c); t && *t; t++)
					sum = sum * 31 + *t;
				break;
			default:
				sum = sum * 31 + 7;
			}
		}
		rows++;
	}
	if (rc != SQLITE_DONE)
		die("step");
	sqlite3_reset(st);
	return rows;
}

static void query(const char *sql)
{
	sqlite3_stmt *st = prep(sql);

	drain(st);
	sqlite3_finalize(st);
}

static void copy_maps(void)
{
	const char *path = getenv("TRUTH_MAPS");
	FILE *in, *out;
	char buf[4096];
	size_t n;

	if (!path || !(in = fopen("/proc/self/maps", "r")))
		return;
	if ((out = fopen(path, "w"))) {
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, out);
		fclose(out);
	}
	fclose(in);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	int nitem = 2000 * scale, ncust = 200 * scale;
	static const char *const words[] = { "alpha", "bravo", "charlie", "delta", "echo",
					      "foxtrot", "golf", "hotel", "india", "juliet" };
	sqlite3_stmt *st;
	char name[64];

	if (scale < 1) {
		fprintf(stderr, "usage: sqlite_driver [SCALE >= 1]\n");
		return 2;
	}
	sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, 1234, (sqlite3 *)NULL);
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		die("open");
	exec("CREATE TABLE cust(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, score REAL);"
	     "CREATE TABLE item(id INTEGER PRIMARY KEY, cust INTEGER REFERENCES cust(id),"
	     " qty INTEGER, price INTEGER, tag TEXT, note BLOB);"
	     "CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;");

	exec("BEGIN");
	st = prep("INSERT INTO cust(id, name, city, score) VALUES(?1, ?2, ?3, ?4)");
	for (int i = 1; i <= ncust; i++) {
		snprintf(name, sizeof(name), "%s-%d", words[i % 10], i);
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, words[(i * 7) % 10], -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 4, (i % 97) / 4.0);
		drain(st);
	}
	sqlite3_finalize(st);
	st = prep("INSERT INTO item(cust, qty, price, tag, note) VALUES(?1, ?2, ?3, ?4, ?5)");
	for (int i = 0; i < nitem; i++) {
		unsigned char blob[8];

		for (int b = 0; b < 8; b++)
			blob[b] = (unsigned char)(i * 13 + b);
		sqlite3_bind_int(st, 1, 1 + (i * 31) % ncust);
		sqlite3_bind_int(st, 2, 1 + i % 17);
		sqlite3_bind_int64(st, 3, 100 + (i * 7919) % 10007);
		sqlite3_bind_text(st, 4, words[i % 10], -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 5, blob, (int)sizeof(blob), SQLITE_TRANSIENT);
		drain(st);
	}
	sqlite3_finalize(st);
	exec("COMMIT");

	exec("CREATE INDEX item_cust ON item(cust, price)");
	exec("CREATE INDEX cust_city ON cust(city)");
	exec("ANALYZE");

	/* point lookups by a bound key */
	st = prep("SELECT name, score FROM cust WHERE id = ?1");
	for (int i = 1; i <= ncust; i += 3) {
		sqlite3_bind_int(st, 1, i);
		drain(st);
	}
	sqlite3_finalize(st);
	st = prep("SELECT count(*), sum(qty * price) FROM item WHERE cust = ?1 AND price > ?2");
	for (int i = 1; i <= ncust; i += 2) {
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_int(st, 2, 100 + i * 17);
		drain(st);
	}
	sqlite3_finalize(st);

	query("SELECT c.city, count(*), sum(i.qty), max(i.price), min(i.price) FROM item i"
	      " JOIN cust c ON c.id = i.cust GROUP BY c.city ORDER BY 2 DESC, 1");
	query("SELECT tag, avg(price), total(qty) FROM item GROUP BY tag HAVING count(*) > 10 ORDER BY tag");
	query("SELECT name, upper(city), length(name), substr(name, 2, 3), instr(name, '-') FROM cust"
	      " WHERE name LIKE '%a-1%' OR city GLOB 'g*' ORDER BY score DESC, id LIMIT 50");
	query("SELECT id, abs(price - 5000), round(price / 7.0, 2), hex(note), typeof(note) FROM item"
	      " WHERE id % 37 = 0 ORDER BY price");
	query("SELECT cust, group_concat(tag, ','), count(DISTINCT tag) FROM item WHERE cust < 40 GROUP BY cust");
	query("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500)"
	      " SELECT sum(x * x), max(x) FROM n");
	query("SELECT a.id, b.id FROM cust a, cust b WHERE a.id < 30 AND b.id = a.id * 2 ORDER BY a.id");
	query("SELECT printf('%05d:%s', id, name), replace(city, 'a', 'A'), trim('  ' || city || '  ') FROM cust"
	      " WHERE id BETWEEN 10 AND 60");
	/* dates: parsing, modifiers, a NULL modifier (isDate's own way out) */
	query("SELECT date('2024-01-31', '+1 month'), datetime(1700000000 + id * 86400, 'unixepoch', '+' || id || ' hours'),"
	      " julianday('2000-01-01 12:00'), strftime('%Y-%j %H:%M', '2024-03-01', '-' || id || ' days'),"
	      " date('2024-02-29', NULL) FROM cust WHERE id <= 20");
	/* JSON: objects and arrays built, text to JSONB and back, paths, json_each */
	query("SELECT json_object('id', id, 'name', name, 'city', city, 'score', score) FROM cust WHERE id <= 40");
	query("SELECT json(json_array(id, name, 'say \"hi\"\\n', 1.5, NULL)),"
	      " json_extract(json_object('a', id, 'b', json_array(name, city)), '$.b[1]') FROM cust WHERE id % 11 = 0");
	query("SELECT key, value, type FROM json_each('{\"x\":[1,2,3],\"y\":\"t\\u0041b\",\"z\":{\"k\":true}}')");
	query("SELECT json_group_array(tag), json_group_object(tag, qty) FROM item WHERE id < 30");

	/* key/value upserts on a WITHOUT ROWID table */
	exec("BEGIN");
	st = prep("INSERT INTO kv(k, v) VALUES(?1, ?2) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v");
	for (int i = 0; i < nitem / 2; i++) {
		snprintf(name, sizeof(name), "key%04d", (i * 17) % 300);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, i);
		drain(st);
	}
	sqlite3_finalize(st);
	exec("COMMIT");
	query("SELECT k, v FROM kv WHERE k > 'key0100' ORDER BY v DESC LIMIT 20");

	/* updates and deletes, one in a savepoint rolled back */
	st = prep("UPDATE item SET qty = qty + ?1, tag = ?2 WHERE id = ?3");
	for (int i = 1; i <= nitem; i += 5) {
		sqlite3_bind_int(st, 1, i % 3);
		sqlite3_bind_text(st, 2, words[(i / 5) % 10], -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, i);
		drain(st);
	}
	sqlite3_finalize(st);
	exec("UPDATE cust SET score = score * 1.5 WHERE city IN ('alpha', 'echo', 'golf')");
	exec("SAVEPOINT sp; DELETE FROM item WHERE price < 3000; ROLLBACK TO sp; RELEASE sp");
	exec("DELETE FROM item WHERE qty > 15");
	query("SELECT count(*), sum(price), total(qty) FROM item");
	query("SELECT city, count(*) FROM cust GROUP BY city ORDER BY city");
	exec("DROP INDEX cust_city");
	query("SELECT count(*) FROM cust WHERE city = 'delta'");

	if (sqlite3_close(db) != SQLITE_OK)
		die("close");
	copy_maps();
	printf("checksum %016llx\n", sum);
	return 0;
}
