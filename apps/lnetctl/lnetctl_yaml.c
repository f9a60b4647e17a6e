/* SPDX-License-Identifier: BSD-3-Clause */
/* YAML in and out with libyaml, shaped like the kernel lnetctl's output. */
#include <stdio.h>
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

static FILE *lnetctl_out_file; /* stdout unless an error block is being printed */

void
lnetctl_out_begin(struct lnetctl_out *o, int indent)
{
	yaml_event_t ev;

	o->failed = false;
	yaml_emitter_initialize(&o->em);
	yaml_emitter_set_output_file(&o->em, lnetctl_out_file != NULL ? lnetctl_out_file : stdout);
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

void
lnetctl_out_kv(struct lnetctl_out *o, const char *key, const char *value)
{
	lnetctl_out_scalar(o, key);
	lnetctl_out_scalar(o, value != NULL ? value : "");
}

void
lnetctl_print_error(const char *verb, const char *object, int err, const char *descr)
{
	struct lnetctl_out o;
	char num[16];

	snprintf(num, sizeof(num), "%d", err);
	fflush(stdout);
	lnetctl_out_file = stderr; /* the kernel prints its error blocks on stderr */
	lnetctl_out_begin(&o, 4);
	lnetctl_out_file = NULL;
	lnetctl_out_map_begin(&o);
	lnetctl_out_scalar(&o, verb);
	lnetctl_out_seq_begin(&o);
	lnetctl_out_map_begin(&o);
	lnetctl_out_scalar(&o, object);
	lnetctl_out_map_begin(&o);
	lnetctl_out_kv(&o, "errno", num);
	lnetctl_out_scalar(&o, "descr");
	lnetctl_out_quoted(&o, descr);
	lnetctl_out_map_end(&o);
	lnetctl_out_map_end(&o);
	lnetctl_out_seq_end(&o);
	lnetctl_out_map_end(&o);
	lnetctl_out_end(&o);
}
