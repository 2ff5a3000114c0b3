// SPDX-License-Identifier: LGPL-2.1
/*
 * record -g: a kernel stack after each allocation and free, from a
 * `stacktrace` trigger on each chosen event of our instance. The trigger
 * carries a condition (the event's --filter, else one every event meets):
 * a conditional trigger runs once the event has passed the instance's pid
 * filter and is in the buffer, so only events of the traced scope get a
 * stack, written right after them. Without a condition the kernel would
 * take a stack for every process, before the event. The triggers go with
 * the instance.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>

#include "record_local.h"

/* A condition every event meets, to make the trigger a conditional one. */
#define ALWAYS	"common_pid >= 0"

/* The default: allocations and frees of slab objects and pages. */
static const char *const default_stack_events[] = {
	"kmem:kmalloc", "kmem:kmem_cache_alloc", "kmem:kfree", "kmem:kmem_cache_free",
	"kmem:mm_page_alloc", "kmem:mm_page_free", "kmem:mm_page_free_batched",
};

/* The recorded event @spec names (GROUP:EVENT or EVENT), or NULL. */
static const struct kmt_event_ref *recorded(const struct kmt_event_list *l, const char *spec,
					    size_t len)
{
	const char *colon = memchr(spec, ':', len);
	int i;

	for (i = 0; i < l->n; i++) {
		const struct kmt_event_ref *e = &l->ev[i];
		size_t sl = strlen(e->system);

		if (colon ? (size_t)(colon - spec) == sl && !strncmp(spec, e->system, sl) &&
			    strlen(e->name) == len - sl - 1 && !strncmp(colon + 1, e->name, len - sl - 1)
			  : strlen(e->name) == len && !strncmp(spec, e->name, len))
			return e;
	}
	return NULL;
}

/* The --filter expression given for @e, or ALWAYS. */
static const char *condition(const struct kmt_record_opts *o, const struct kmt_event_ref *e)
{
	char prefix[256];
	int i, n = snprintf(prefix, sizeof(prefix), "%s:%s:", e->system, e->name);

	if (n >= (int)sizeof(prefix))
		return ALWAYS;
	for (i = 0; i < o->nfilters; i++)
		if (!strncmp(o->filters[i], prefix, n))
			return o->filters[i] + n;
	return ALWAYS;
}

/* Set the trigger of @e and add "SYSTEM:EVENT " to the list. 0 or -1. */
static int add_trigger(struct recorder *r, const struct kmt_event_ref *e, FILE *list)
{
	char *trigger;
	int ret;

	if (asprintf(&trigger, "stacktrace if %s", condition(r->o, e)) < 0)
		return kmt_record_fail(r, "out of memory");
	errno = 0;
	ret = tracefs_event_file_write(r->inst, e->system, e->name, "trigger", trigger);
	free(trigger);
	if (ret < 0)
		return kmt_record_fail(r, "cannot set a stacktrace trigger on %s:%s", e->system,
				       e->name);
	fprintf(list, "%s:%s ", e->system, e->name);
	return 0;
}

/* The events --stack-events names, each recorded; 0 or -1. */
static int add_named(struct recorder *r, FILE *list)
{
	int i;

	for (i = 0; i < r->o->nstack_events; i++) {
		const char *spec = r->o->stack_events[i];
		const struct kmt_event_ref *e = recorded(&r->events, spec, strlen(spec));

		errno = 0;
		if (!e)
			return kmt_record_fail(r, "--stack-events: '%s' is not an event this "
					       "recording records (see -e)", spec);
		if (add_trigger(r, e, list))
			return -1;
	}
	return 0;
}

static int add_defaults(struct recorder *r, FILE *list)
{
	size_t i;

	for (i = 0; i < sizeof(default_stack_events) / sizeof(*default_stack_events); i++) {
		const char *spec = default_stack_events[i];
		const struct kmt_event_ref *e = recorded(&r->events, spec, strlen(spec));

		if (e && add_trigger(r, e, list))
			return -1;
	}
	return 0;
}

int kmt_record_stacks_setup(struct recorder *r)
{
	size_t len = 0;
	FILE *list;
	int ret;

	if (!r->o->stacks)
		return 0;
	list = open_memstream(&r->stack_events, &len);
	if (!list)
		return kmt_record_fail(r, "out of memory");
	ret = r->o->nstack_events ? add_named(r, list) : add_defaults(r, list);
	if (fclose(list) && !ret)
		ret = kmt_record_fail(r, "out of memory");
	if (ret)
		return -1;
	if (!len) {
		errno = 0;
		return kmt_record_fail(r, "-g: none of the slab and page events is recorded; "
				       "name the events to take stacks of with --stack-events");
	}
	r->stack_events[len - 1] = '\0';	/* the last space */
	/* trace-cmd and kmtrace read the stacks with this format; it is never enabled. */
	return kmt_record_add_format(r, "ftrace", "kernel_stack");
}
