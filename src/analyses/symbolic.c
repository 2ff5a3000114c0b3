// SPDX-License-Identifier: LGPL-2.1
/* Value names from __print_symbolic() in an event's print format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "symbolic.h"

#define MAX_DEPTH	16	/* print args nest a few levels; a hostile format more */

static bool names_field(const struct tep_print_arg *arg, const char *field)
{
	return arg && arg->type == TEP_PRINT_FIELD && arg->field.name &&
	       !strcmp(arg->field.name, field);
}

/* The symbol table printing @field among @arg and what it nests, or NULL. */
static const struct tep_print_flag_sym *find_symbols(const struct tep_print_arg *arg,
						     const char *field, int depth)
{
	const struct tep_print_flag_sym *s;

	for (; arg && depth < MAX_DEPTH; arg = arg->next) {
		switch (arg->type) {
		case TEP_PRINT_SYMBOL:
			if (names_field(arg->symbol.field, field))
				return arg->symbol.symbols;
			break;
		case TEP_PRINT_OP:
			if ((s = find_symbols(arg->op.left, field, depth + 1)) ||
			    (s = find_symbols(arg->op.right, field, depth + 1)))
				return s;
			break;
		case TEP_PRINT_TYPE:
			if ((s = find_symbols(arg->typecast.item, field, depth + 1)))
				return s;
			break;
		default:
			break;
		}
	}
	return NULL;
}

const char *kmt_symbolic_name(struct tep_handle *tep, const char *system, const char *event,
			      const char *field, long long value, char *buf, size_t len)
{
	struct tep_event *e = tep ? tep_find_event_by_name(tep, system, event) : NULL;
	const struct tep_print_flag_sym *s;

	snprintf(buf, len, "%lld", value);
	for (s = e ? find_symbols(e->print_fmt.args, field, 0) : NULL; s; s = s->next) {
		char *end;
		long long v = s->value ? strtoll(s->value, &end, 0) : 0;

		if (s->value && s->str && end != s->value && !*end && v == value) {
			snprintf(buf, len, "%s", s->str);
			break;
		}
	}
	return buf;
}
