/* SPDX-License-Identifier: MIT */
/*
 * imp_core.c - the table of importers (import.h).
 *
 * A new input format is a new imp_<name>.c defining a struct importer and
 * one line here.
 */
#include <string.h>
#include "import.h"

extern const struct importer imp_csv;
extern const struct importer imp_strace;
extern const struct importer imp_iolog;
extern const struct importer imp_blkparse;
extern const struct importer imp_dftracer;
extern const struct importer imp_darshan_dxt;

const struct importer *const imp_formats[] = {
	&imp_csv,
	&imp_strace,
	&imp_iolog,
	&imp_blkparse,
	&imp_dftracer,
	&imp_darshan_dxt,
	NULL
};

const struct importer *imp_find(const char *name)
{
	for (const struct importer *const *i = imp_formats; *i; i++)
		if (strcmp((*i)->name, name) == 0)
			return *i;
	return NULL;
}
