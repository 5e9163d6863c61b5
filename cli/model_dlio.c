/* SPDX-License-Identifier: MIT */
/*
 * model_dlio.c - a DLIO workload YAML read with libyaml into the flat list
 * of keys rp_dlio_job() (replay/rp_dlio.c) makes a job of, for `iotape
 * model --from-dlio` and `iotape replay WORKLOAD.yaml`.
 *
 * The YAML is first walked as events, nesting counted: a document nested
 * deeper than DLIO_DEPTH_MAX (a workload has 4 levels) is refused at the
 * event that goes too deep, before libyaml builds any tree of it (100,000
 * nested flow sequences took libyaml 40 s to load).  Then it is loaded and
 * flattened: a mapping's keys joined with '.', a list's scalars kept as
 * its items.  Errors are one line "iotape CMD: FILE:LINE: ..."; the notes
 * of what the job cannot honour one warning line each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "cli.h"
#include "job.h"
#include "replay.h"
#include "tape_vec.h"

#define DLIO_DEPTH_MAX 32	/* mappings and sequences, nested */
#define DLIO_KEY_MAX 512	/* a dotted key's bytes */

struct flat {
	const char *path;
	struct rp_dlio_kv *kv;
	size_t n, cap;
};

/* Check the nesting of the YAML in f (rewound after): 0, or EXIT_USAGE or
 * EXIT_FAIL after one error line. */
static int depth_check(const char *path, FILE *f)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, ret = EXIT_OK, done = 0;

	if (!yaml_parser_initialize(&p)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	yaml_parser_set_input_file(&p, f);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			cli_error("%s:%zu: %s%s%s", path, p.problem_mark.line + 1,
				  p.problem ? p.problem : "not YAML", p.context ? " " : "",
				  p.context ? p.context : "");
			ret = EXIT_USAGE;
			break;
		}
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > DLIO_DEPTH_MAX) {
				cli_error("%s:%zu: nested deeper than %d levels: not a DLIO workload "
					  "(a workload nests 4)", path, ev.start_mark.line + 1,
					  DLIO_DEPTH_MAX);
				ret = EXIT_USAGE;
				done = 1;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	rewind(f);
	return ret;
}

static struct rp_dlio_kv *add(struct flat *fl, const char *key, const yaml_node_t *n)
{
	struct rp_dlio_kv *kv;

	if (TAPE_VEC_GROW(fl->kv, fl->cap, fl->n + 1, 64))
		return NULL;
	kv = &fl->kv[fl->n];
	memset(kv, 0, sizeof(*kv));
	if (!(kv->key = strdup(key)))
		return NULL;
	fl->n++;
	kv->line = (unsigned)n->start_mark.line + 1;
	return kv;
}

/* The keys of mapping m, under prefix ("" at the top): EXIT_OK, or the
 * exit status after one error line. */
static int walk(struct flat *fl, yaml_document_t *doc, const yaml_node_t *m, const char *prefix)
{
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		char key[DLIO_KEY_MAX];
		struct rp_dlio_kv *kv;
		int rc;

		if (!k || !v || k->type != YAML_SCALAR_NODE) {
			cli_error("%s:%zu: a key that is not a word", fl->path,
				  (k ? k : m)->start_mark.line + 1);
			return EXIT_USAGE;
		}
		if ((size_t)snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "",
				     (const char *)k->data.scalar.value) >= sizeof(key)) {
			cli_error("%s:%zu: a key longer than %d bytes", fl->path,
				  k->start_mark.line + 1, DLIO_KEY_MAX - 1);
			return EXIT_USAGE;
		}
		if (!(kv = add(fl, key, k)))
			goto nomem;
		switch (v->type) {
		case YAML_SCALAR_NODE:
			kv->kind = RP_DLIO_SCALAR;
			kv->val = (const char *)v->data.scalar.value;
			kv->line = (unsigned)v->start_mark.line + 1;
			break;
		case YAML_SEQUENCE_NODE: {
			size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
			const char **items = calloc(n + 1, sizeof(*items));

			if (!items)
				goto nomem;
			kv->kind = RP_DLIO_LIST;
			kv->items = items;
			kv->nitems = n;
			for (size_t i = 0; i < n; i++) {
				yaml_node_t *it = yaml_document_get_node(doc,
									 v->data.sequence.items.start[i]);
				items[i] = it && it->type == YAML_SCALAR_NODE ?
					   (const char *)it->data.scalar.value : NULL;
			}
			break;
		}
		case YAML_MAPPING_NODE:
			kv->kind = RP_DLIO_MAP;
			if ((rc = walk(fl, doc, v, key)) != EXIT_OK)
				return rc;
			break;
		default:
			cli_error("%s:%zu: %s: not a value", fl->path, v->start_mark.line + 1, key);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
nomem:
	cli_error("out of memory");
	return EXIT_FAIL;
}

static void release(struct flat *fl)
{
	for (size_t i = 0; i < fl->n; i++) {
		free((char *)fl->kv[i].key);
		free((void *)fl->kv[i].items);
	}
	free(fl->kv);
}

/* The notes, kept until the job is made: a workload refused is one error
 * line, without them. */
struct notes {
	const char *path;
	FILE *f;
	char *buf;
	size_t len;
};

static void note(void *arg, unsigned line, const char *msg)
{
	struct notes *nt = arg;
	char where[64];

	snprintf(where, sizeof(where), line ? ":%u" : "", line);
	if (nt->f)
		fprintf(nt->f, "iotape %s: warning: %s%s: %s\n", cli_cmd ? cli_cmd : "model",
			nt->path, where, msg);
}

int model_dlio_job(const char *path, unsigned ranks, struct cm_job *job)
{
	struct flat fl = { .path = path };
	struct notes nt = { .path = path };
	struct rp_dlio_opts o = { .ranks = ranks };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	FILE *f = fopen(path, "r");
	char err[1024], hdr[4400];
	unsigned line = 0;
	int ret, rc;

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	if ((ret = depth_check(path, f)) != EXIT_OK) {
		fclose(f);
		return ret;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		cli_error("%s:%zu: %s%s%s", path, parser.problem_mark.line + 1,
			  parser.problem ? parser.problem : "not YAML",
			  parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		fclose(f);
		return EXIT_USAGE;
	}
	root = yaml_document_get_root_node(&doc);
	ret = EXIT_USAGE;
	if (!root || root->type != YAML_MAPPING_NODE) {
		cli_error("%s:%zu: not a DLIO workload (a mapping of sections)", path,
			  root ? root->start_mark.line + 1 : 1);
		goto out;
	}
	if ((ret = walk(&fl, &doc, root, "")) != EXIT_OK)
		goto out;
	nt.f = open_memstream(&nt.buf, &nt.len);
	rc = rp_dlio_job(job, fl.kv, fl.n, &o, note, &nt, &line, err, sizeof(err));
	if (nt.f && fclose(nt.f) && !rc)
		rc = -ENOMEM;
	nt.f = NULL;
	if (!rc && nt.len)
		fwrite(nt.buf, 1, nt.len, stderr);
	if (rc == -ENOMEM) {
		cli_error("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	if (rc) {
		if (line)
			cli_error("%s:%u: %s", path, line, err);
		else
			cli_error("%s: %s", path, err);
		ret = EXIT_USAGE;
		goto out;
	}
	snprintf(hdr, sizeof(hdr), "from the DLIO workload %s\n%s", path,
		 job->header ? job->header : "");
	if (cm_job_set_header(job, hdr) < 0) {
		cli_error("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	ret = EXIT_OK;
out:
	free(nt.buf);
	release(&fl);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return ret;
}
