/* tdump.c - print every row of a trace as "table col=val ..." (test helper).
 * usage: tdump TRACE [table]   exit 0 ok, 1 on a read error */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tape.h"

int main(int argc, char **argv)
{
	tape_reader *r;
	int err;

	if (argc < 2)
		return 2;
	err = tape_reader_open(&r, argv[1]);
	if (err) {
		fprintf(stderr, "tdump: %s: %s (%s)\n", argv[1], tape_strerror(err), tape_error_detail());
		return 1;
	}
	if (tape_reader_recovered(r))
		printf("# recovered: %s\n", tape_reader_recovered(r));
	for (size_t i = 0; i < tape_reader_meta_count(r); i++) {
		const char *k, *v;
		tape_reader_meta_at(r, i, &k, &v);
		printf("meta %s=%s\n", k, v);
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		tape_cursor *c;
		const void *ev;
		size_t n;
		const struct tape_column *cols = tape_table_columns(t, &n);

		if (argc > 2 && strcmp(argv[2], tape_table_name(t)))
			continue;
		if ((err = tape_cursor_open(r, t, 0, UINT64_MAX, &c)))
			return 1;
		while ((err = tape_cursor_next(c, &ev)) == 1) {
			printf("%s", tape_table_name(t));
			for (size_t i = 0; i < n; i++) {
				const struct tape_column *col = &cols[i];
				if (col->type == TAPE_COL_STR) {
					const char *s = *(const char *const *)((const char *)ev + col->offset);
					printf(" %s=\"%s\"", col->name, s ? s : "");
				} else if (tape_column_enum_name(col, tape_column_get(col, ev))) {
					printf(" %s=%s", col->name,
					       tape_column_enum_name(col, tape_column_get(col, ev)));
				} else if (col->text == TAPE_TXT_BLKFLAGS) {
					char b[16];
					tape_blk_flags_format(tape_column_get(col, ev), b, sizeof(b));
					printf(" %s=%s", col->name, b);
				} else if (col->type == TAPE_COL_I64 || (col->width == 8 && !strcmp(col->name, "fd"))) {
					printf(" %s=%" PRId64, col->name, (int64_t)tape_column_get(col, ev));
				} else if (col->text == TAPE_TXT_HEX || col->text == TAPE_TXT_FSTYPE) {
					printf(" %s=0x%" PRIx64, col->name, tape_column_get(col, ev));
				} else {
					printf(" %s=%" PRIu64, col->name, tape_column_get(col, ev));
				}
			}
			printf("\n");
		}
		tape_cursor_free(c);
		if (err < 0) {
			fprintf(stderr, "tdump: %s: %s\n", tape_table_name(t), tape_strerror(err));
			tape_reader_free(r);
			return 1;
		}
	}
	tape_reader_free(r);
	return 0;
}
