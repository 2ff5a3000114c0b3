// SPDX-License-Identifier: LGPL-2.1
/*
 * One side of a diff: a JSON report of kmtrace report (docs/
 * kmtrace-report.schema.json), parsed with json-c and checked for the
 * parts the join reads.
 */
#include <stdlib.h>
#include <string.h>
#include <json.h>

#include "diff_local.h"

/* The object member @key of @o when it is an object too, else NULL. */
json_object *kmt_diff_member_object(json_object *o, const char *key)
{
	json_object *m;

	if (!o || !json_object_object_get_ex(o, key, &m) || !json_object_is_type(m, json_type_object))
		return NULL;
	return m;
}

static int check_document(struct kmt_diff_side *s, struct kmt_error *err)
{
	json_object *head = kmt_diff_member_object(s->root, "kmtrace"), *v;

	if (!head || !kmt_diff_member_object(s->root, "analyses")) {
		kmt_error_set(err, s->name, 0, "JSON without the \"kmtrace\" and \"analyses\" "
			      "objects: not a report of kmtrace report --format json");
		return -1;
	}
	if (!json_object_object_get_ex(head, "schema_version", &v) ||
	    json_object_get_int(v) != KMT_JSON_SCHEMA_VERSION) {
		kmt_error_set(err, s->name, 0, "a report of JSON schema version %s, this kmtrace "
			      "reads version %d", v ? json_object_get_string(v) : "(none)",
			      KMT_JSON_SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

int kmt_diff_side_parse(const char *name, const char *text, size_t len,
			struct kmt_diff_side **side, struct kmt_error *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct kmt_diff_side *s = calloc(1, sizeof(*s));
	size_t end;

	if (!tok || !s || !(s->name = strdup(name)))
		goto nomem;
	s->root = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!s->root || json_tokener_get_error(tok) != json_tokener_success) {
		kmt_error_set(err, name, (long long)end, "bad JSON: %s",
			      json_tokener_error_desc(json_tokener_get_error(tok)));
		goto fail;
	}
	while (end < len && strchr(" \t\r\n", text[end]))
		end++;
	if (end < len) {
		kmt_error_set(err, name, (long long)end, "bad JSON: more after the document");
		goto fail;
	}
	if (check_document(s, err))
		goto fail;
	json_tokener_free(tok);
	*side = s;
	return 0;
nomem:
	kmt_error_set(err, name, -1, "out of memory");
fail:
	json_tokener_free(tok);
	kmt_diff_side_free(s);
	return -1;
}

/* The analysis @name's section of @s, or NULL. */
json_object *kmt_diff_analysis(const struct kmt_diff_side *s, const char *name)
{
	return kmt_diff_member_object(kmt_diff_member_object(s->root, "analyses"), name);
}

unsigned long long kmt_diff_side_duration(const struct kmt_diff_side *side)
{
	json_object *sum = kmt_diff_member_object(kmt_diff_analysis(side, "stat"), "summary");
	json_object *v;

	if (!sum || !json_object_object_get_ex(sum, "duration_ns", &v))
		return 0;
	return (unsigned long long)json_object_get_uint64(v);
}

const char *kmt_diff_side_name(const struct kmt_diff_side *side)
{
	return side->name;
}

void kmt_diff_side_free(struct kmt_diff_side *side)
{
	if (!side)
		return;
	json_object_put(side->root);
	free(side->name);
	free(side);
}
