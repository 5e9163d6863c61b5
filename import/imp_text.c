/* SPDX-License-Identifier: MIT */
/*
 * imp_text.c - lines of a plain or gzip'd input (imp_text.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "imp_text.h"
#include "import.h"
#include "tape_vec.h"

#define CHUNK (64u << 10)

int imp_text_init(struct imp_text *t, FILE *f)
{
	int c1, c2;

	memset(t, 0, sizeof(*t));
	t->f = f;
	c1 = getc(f);
	c2 = c1 == EOF ? EOF : getc(f);
	if (c2 != EOF)
		ungetc(c2, f);
	if (c1 != EOF) {
		/* one byte of pushback is all stdio promises: keep the first
		 * in out when a second was read */
		t->out_cap = CHUNK;
		t->out = malloc(t->out_cap);
		if (!t->out)
			return -ENOMEM;
		t->out[0] = (char)c1;
		t->out_len = 1;
	}
	if (c1 == 0x1f && c2 == 0x8b) {
		t->gz = 1;
		t->out_len = 0;
		t->in = malloc(CHUNK);
		if (!t->in)
			return -ENOMEM;
		t->in[0] = 0x1f;
		t->z.next_in = t->in;
		t->z.avail_in = 1;
		if (inflateInit2(&t->z, 16 + MAX_WBITS) != Z_OK) {
			free(t->in);
			t->in = NULL;
			t->gz = 0;
			return -ENOMEM;
		}
	}
	return 0;
}

void imp_text_release(struct imp_text *t)
{
	if (t->gz)
		inflateEnd(&t->z);
	free(t->in);
	free(t->out);
	free(t->line);
	memset(t, 0, sizeof(*t));
}

/* More bytes at the end of t->out: >0 bytes added, 0 at the end, -errno. */
static int fill(struct imp_text *t)
{
	size_t n;

	if (t->out_off) {
		memmove(t->out, t->out + t->out_off, t->out_len - t->out_off);
		t->out_len -= t->out_off;
		t->out_off = 0;
	}
	if (TAPE_VEC_GROW(t->out, t->out_cap, t->out_len + CHUNK, CHUNK))
		return -ENOMEM;
	if (!t->gz) {
		n = fread(t->out + t->out_len, 1, CHUNK, t->f);
		if (n == 0 && ferror(t->f)) {
			t->read_errno = errno ? errno : EIO;
			snprintf(t->err, sizeof(t->err), "read error");
			return -EIO;
		}
		t->out_len += n;
		return (int)n;
	}
	for (;;) {
		int rc;

		if (t->zend)
			return 0;
		if (t->z.avail_in == 0) {
			n = fread(t->in, 1, CHUNK, t->f);
			if (n == 0) {
				if (ferror(t->f)) {
					t->read_errno = errno ? errno : EIO;
					snprintf(t->err, sizeof(t->err), "read error");
					return -EIO;
				}
				snprintf(t->err, sizeof(t->err),
					 "gzip data ends early (truncated file?)");
				return -EBADMSG;
			}
			t->z.next_in = t->in;
			t->z.avail_in = (uInt)n;
		}
		t->z.next_out = (unsigned char *)t->out + t->out_len;
		t->z.avail_out = CHUNK;
		rc = inflate(&t->z, Z_NO_FLUSH);
		t->out_len += CHUNK - t->z.avail_out;
		if (rc == Z_STREAM_END) {
			/* another member may follow */
			int c = t->z.avail_in ? 0x1f : getc(t->f);

			if (c == EOF) {
				t->zend = 1;
			} else {
				if (!t->z.avail_in)
					ungetc(c, t->f);
				if (inflateReset(&t->z) != Z_OK)
					return -ENOMEM;
			}
		} else if (rc == Z_MEM_ERROR) {
			return -ENOMEM;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			snprintf(t->err, sizeof(t->err), "bad gzip data: %s",
				 t->z.msg ? t->z.msg : "inflate failed");
			return -EBADMSG;
		}
		if (CHUNK - t->z.avail_out > 0 || t->zend)
			return (int)(CHUNK - t->z.avail_out);
	}
}

int imp_text_next(struct imp_text *t, size_t *len)
{
	size_t scanned = 0;
	char *nl;

	for (;;) {
		size_t have = t->out_len - t->out_off;

		nl = have > scanned ? memchr(t->out + t->out_off + scanned, '\n',
					     have - scanned) : NULL;
		if (nl)
			break;
		scanned = have;
		if (have > IMP_TEXT_MAX_LINE) {
			t->lineno++;
			snprintf(t->err, sizeof(t->err), "line longer than %u bytes",
				 IMP_TEXT_MAX_LINE);
			return -EBADMSG;
		}
		int rc = fill(t);

		if (rc < 0) {
			t->lineno++;
			return rc;
		}
		if (rc == 0) {
			if (t->out_len == t->out_off)
				return 0;
			nl = t->out + t->out_len;	/* last line, no LF */
			break;
		}
	}
	{
		char *s = t->out + t->out_off;
		size_t n = (size_t)(nl - s);

		t->out_off += n + (nl < t->out + t->out_len);
		t->lineno++;
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, '\0', n)) {
			snprintf(t->err, sizeof(t->err), "NUL byte in the line");
			return -EBADMSG;
		}
		if (TAPE_VEC_GROW(t->line, t->line_cap, n + 1, 256))
			return -ENOMEM;
		memcpy(t->line, s, n);
		t->line[n] = '\0';
		*len = n;
	}
	return 1;
}

void imp_diag_set(struct imp_diag *d, unsigned long line, const char *err)
{
	if (!err[0])
		return;
	d->line = line;
	snprintf(d->msg, sizeof(d->msg), "%s", err);
}

void imp_text_diag(const struct imp_text *t, int rc, struct imp_diag *d)
{
	if (rc >= 0 || !t->err[0])
		return;
	imp_diag_set(d, t->lineno, t->err);
	if (rc == -EIO)
		d->read_errno = t->read_errno;
}
