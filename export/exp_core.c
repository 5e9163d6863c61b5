/* SPDX-License-Identifier: MIT */
/*
 * exp_core.c - the table of exporters and what they share: the lookup by
 * name, and opening the trace for an exporter that reads it.
 */
#include <inttypes.h>
#include <string.h>
#include "export.h"
#include "trace.h"

extern const struct exporter exp_text, exp_csv, exp_jsonl, exp_perfetto, exp_fio_iolog,
	exp_fio_job, exp_html;

const struct exporter *const exp_formats[] = {
	&exp_text, &exp_csv, &exp_jsonl, &exp_perfetto, &exp_fio_iolog, &exp_fio_job, &exp_html,
	NULL,
};

const struct exporter *exp_find(const char *name)
{
	for (size_t i = 0; name && exp_formats[i]; i++)
		if (strcmp(exp_formats[i]->name, name) == 0)
			return exp_formats[i];
	return NULL;
}

int exp_reader_open(tape_reader **r, const char *path, struct exp_diag *d)
{
	int err = tape_reader_open(r, path);

	d->warning[0] = 0;
	if (err < 0) {
		cm_trace_error(d->msg, sizeof(d->msg), path, err);
		return err;
	}
	if (tape_reader_recovered(*r))
		snprintf(d->warning, sizeof(d->warning), "warning: %s: index rebuilt by "
			 "scanning (%s), %" PRIu64 " trailing bytes ignored", path,
			 tape_reader_recovered(*r), tape_reader_trailing_bytes(*r));
	return 0;
}
