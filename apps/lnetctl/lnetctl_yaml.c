/* SPDX-License-Identifier: BSD-3-Clause */
/* YAML in and out with libyaml, shaped like the kernel lnetctl's output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnetctl.h"

yaml_node_t *
lnetctl_map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	return lnetcfg_yaml_get(doc, map, key);
}

const char *
lnetctl_scalar(yaml_node_t *n)
{
	return lnetcfg_scalar(n);
}

static void
lnetctl_emit(struct lnetctl_out *o, yaml_event_t *ev)
{
	if (!o->failed && !yaml_emitter_emit(&o->em, ev)) {
		o->failed = true;
	}
}

void
lnetctl_out_begin(struct lnetctl_out *o, int indent)
{
	yaml_event_t ev;

	o->failed = false;
	yaml_emitter_initialize(&o->em);
	yaml_emitter_set_output_file(&o->em, stdout);
	yaml_emitter_set_indent(&o->em, indent);
	yaml_emitter_set_width(&o->em, -1);
	yaml_emitter_set_unicode(&o->em, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	lnetctl_emit(o, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	lnetctl_emit(o, &ev);
}

void
lnetctl_out_end(struct lnetctl_out *o)
{
	yaml_event_t ev;

	yaml_document_end_event_initialize(&ev, 1);
	lnetctl_emit(o, &ev);
	yaml_stream_end_event_initialize(&ev);
	lnetctl_emit(o, &ev);
	yaml_emitter_flush(&o->em);
	yaml_emitter_delete(&o->em);
}

void
lnetctl_out_map_begin(struct lnetctl_out *o)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
	lnetctl_emit(o, &ev);
}

void
lnetctl_out_map_end(struct lnetctl_out *o)
{
	yaml_event_t ev;

	yaml_mapping_end_event_initialize(&ev);
	lnetctl_emit(o, &ev);
}

void
lnetctl_out_seq_begin(struct lnetctl_out *o)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
	lnetctl_emit(o, &ev);
}

void
lnetctl_out_seq_end(struct lnetctl_out *o)
{
	yaml_event_t ev;

	yaml_sequence_end_event_initialize(&ev);
	lnetctl_emit(o, &ev);
}

static void
lnetctl_out_scalar_style(struct lnetctl_out *o, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)strlen(s), 1, 1,
				     style);
	lnetctl_emit(o, &ev);
}

void
lnetctl_out_scalar(struct lnetctl_out *o, const char *s)
{
	lnetctl_out_scalar_style(o, s, YAML_ANY_SCALAR_STYLE);
}

void
lnetctl_out_quoted(struct lnetctl_out *o, const char *s)
{
	lnetctl_out_scalar_style(o, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

/*
 * A scalar implicit only when plain: quoted, libyaml writes its
 * non-specific tag, as the kernel's lnetctl emits a descr it rewrote
 * (yaml_lnet_ping_display: plain_implicit 1, quoted_implicit 0).
 */
void
lnetctl_out_tagged(struct lnetctl_out *o, const char *s)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)strlen(s), 1, 0,
				     YAML_PLAIN_SCALAR_STYLE);
	lnetctl_emit(o, &ev);
}

void
lnetctl_out_kv(struct lnetctl_out *o, const char *key, const char *value)
{
	lnetctl_out_scalar(o, key);
	lnetctl_out_scalar(o, value != NULL ? value : "");
}

/*
 * The verb whose block is open on stderr in this run: the kernel collects a
 * run's errors in one cYAML tree, so a second error under the same verb is
 * one more item of its sequence, not a repeated top-level key.
 */
static char lnetctl_err_verb[64];

void
lnetctl_error_reset(void)
{
	lnetctl_err_verb[0] = '\0';
}

/* "key: value" lines as cYAML prints a string: a newline continues under the value. */
static void
lnetctl_err_string(const char *key, const char *value, int indent)
{
	const char *nl;
	int cont = indent + (int)strlen(key) + 2;

	fprintf(stderr, "%*s%s: ", indent, "", key);
	while ((nl = strchr(value, '\n')) != NULL) {
		fprintf(stderr, "%.*s\n%*s", (int)(nl - value), value, cont, "");
		value = nl + 1;
	}
	fprintf(stderr, "%s\n", value);
}

/*
 * cYAML's error tree as cYAML_print_tree2file lays it out: the verb at
 * column 0, "- <object>:" at 4, errno and descr at 10. The descr prints as
 * given: the kernel's own texts carry their quotes when they have any.
 */
void
lnetctl_print_error_raw(const char *verb, const char *object, int err, const char *descr)
{
	if (strcmp(lnetctl_err_verb, verb) != 0) {
		fprintf(stderr, "%s:\n", verb);
		snprintf(lnetctl_err_verb, sizeof(lnetctl_err_verb), "%s", verb);
	}
	fprintf(stderr, "    - %s:\n", object);
	fprintf(stderr, "          errno: %d\n", err);
	lnetctl_err_string("descr", descr, 10);
	fflush(stderr);
}

/*
 * Most of the kernel's descr texts are written with their double quotes;
 * a quote or backslash inside is escaped so that the block stays YAML.
 */
void
lnetctl_print_error(const char *verb, const char *object, int err, const char *descr)
{
	char *quoted = malloc(2 * strlen(descr) + 3);
	char *q = quoted;

	if (quoted == NULL) {
		lnetctl_print_error_raw(verb, object, err, descr);
		return;
	}
	*q++ = '"';
	for (; *descr != '\0'; descr++) {
		if (*descr == '"' || *descr == '\\') {
			*q++ = '\\';
		}
		*q++ = *descr;
	}
	*q++ = '"';
	*q = '\0';
	lnetctl_print_error_raw(verb, object, err, quoted);
	free(quoted);
}

/*
 * A scalar as the kernel's yaml_lnet_print_error emits it: implicit when
 * plain only, so libyaml writes a quoted one with its non-specific tag
 * ("descr: ! \"...\"", as the kernel captures show).
 */
static void
lnetctl_nl_scalar(yaml_emitter_t *em, bool *ok, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)strlen(s), 1, 0,
				     style);
	*ok = *ok && yaml_emitter_emit(em, &ev);
}

/*
 * The error block of the kernel's netlink commands (its
 * yaml_lnet_print_error): libyaml with indent 6 on stderr, an explicit
 * document ("---" ... "..."), the object's key empty beside errno and a
 * double-quoted descr after libyaml's "!" tag.
 */
void
lnetctl_print_nl_error(const char *verb, const char *object, int err, const char *descr)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	char num[16];
	bool ok = true;

	snprintf(num, sizeof(num), "%d", err);
	fflush(stderr);
	yaml_emitter_initialize(&em);
	yaml_emitter_set_indent(&em, 6);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_output_file(&em, stderr);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_ANY_MAPPING_STYLE);
	ok = ok && yaml_emitter_emit(&em, &ev);
	lnetctl_nl_scalar(&em, &ok, verb, YAML_PLAIN_SCALAR_STYLE);
	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_ANY_SEQUENCE_STYLE);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_ANY_MAPPING_STYLE);
	ok = ok && yaml_emitter_emit(&em, &ev);
	lnetctl_nl_scalar(&em, &ok, object, YAML_PLAIN_SCALAR_STYLE);
	lnetctl_nl_scalar(&em, &ok, "", YAML_PLAIN_SCALAR_STYLE);
	lnetctl_nl_scalar(&em, &ok, "errno", YAML_PLAIN_SCALAR_STYLE);
	lnetctl_nl_scalar(&em, &ok, num, YAML_PLAIN_SCALAR_STYLE);
	lnetctl_nl_scalar(&em, &ok, "descr", YAML_PLAIN_SCALAR_STYLE);
	lnetctl_nl_scalar(&em, &ok, descr, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	yaml_mapping_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_sequence_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_mapping_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_document_end_event_initialize(&ev, 0);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_stream_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&em, &ev);
	yaml_emitter_flush(&em);
	yaml_emitter_delete(&em);
	if (!ok) {
		fprintf(stderr, "%s: %s: %s\n", verb, object, descr);
	}
}
