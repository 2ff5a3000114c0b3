// SPDX-License-Identifier: LGPL-2.1
/*
 * Which events a recording enables: the defaults that exist on the running
 * kernel, or what the user named (GROUP:EVENT, GROUP or EVENT).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>

#include <kmtrace/event.h>
#include "record_local.h"

int kmt_event_list_add(struct kmt_event_list *l, const char *sys, const char *name)
{
	struct kmt_event_ref *n;
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].system, sys) && !strcmp(l->ev[i].name, name))
			return 0;
	n = realloc(l->ev, (l->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	l->ev = n;
	n[l->n].system = strdup(sys);
	n[l->n].name = strdup(name);
	n[l->n].format = NULL;
	if (!n[l->n].system || !n[l->n].name)
		return -1;
	l->n++;
	return 0;
}

int kmt_record_add_format(struct recorder *r, const char *sys, const char *name)
{
	struct kmt_event_ref *e;
	int i;

	if (kmt_event_list_add(&r->events, sys, name))
		return kmt_record_fail(r, "out of memory");
	for (i = 0; i < r->events.n; i++) {
		e = &r->events.ev[i];
		if (strcmp(e->system, sys) || strcmp(e->name, name) || e->format)
			continue;
		errno = 0;
		e->format = tracefs_event_file_read(r->inst, sys, name, "format", NULL);
		if (!e->format)
			return kmt_record_fail(r, "cannot read the format of %s:%s", sys, name);
	}
	return 0;
}

static bool event_exists(const char *sys, const char *name)
{
	return tracefs_event_file_exists(NULL, sys, name, "format");
}

static int add_defaults(struct kmt_event_list *l)
{
	int t;

	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR; t++) {
		const char *sys = kmt_event_type_system(t), *name = kmt_event_type_event(t);

		/*
		 * kmtrace's own probes are added by record when it made them,
		 * ftrace's records (never enabled) when it asks for them.
		 */
		if (!strncmp(sys, KMT_PROBE_SYSTEM, strlen(KMT_PROBE_SYSTEM)) ||
		    !strcmp(sys, "ftrace") || kmt_event_type_on_request(t))
			continue;
		if (event_exists(sys, name) && kmt_event_list_add(l, sys, name))
			return -1;
	}
	return 0;
}

static int add_group(struct kmt_event_list *l, const char *sys)
{
	char **events = tracefs_system_events(NULL, sys);
	int i, ret = 0;

	if (!events)
		return 1;
	for (i = 0; events[i] && !ret; i++)
		ret = kmt_event_list_add(l, sys, events[i]);
	tracefs_list_free(events);
	return ret;
}

/* The groups of all of kernel memory ("-e mm"): those the running kernel has. */
static int add_mm_groups(struct kmt_event_list *l)
{
	static const char *const groups[] = { "kmem", "vmscan", "vmalloc", "percpu", "filemap",
					      "compaction", "oom", "memcg" };
	size_t i;
	int ret, found = 0;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		ret = add_group(l, groups[i]);
		if (ret < 0)
			return ret;
		found += !ret;
	}
	return found ? 0 : 1;
}

/*
 * An event name alone: "default" (what a recording takes without -e),
 * "mm" (every memory group), a known kmtrace event, a group, or a unique match.
 */
static int add_bare(struct kmt_event_list *l, const char *name)
{
	enum kmt_event_type t = kmt_event_type_lookup(name);
	char **systems, *found = NULL;
	int i, ret;

	if (!strcmp(name, "default"))
		return add_defaults(l);
	if (!strcmp(name, "mm"))
		return add_mm_groups(l);
	if (t != KMT_EV_UNKNOWN && event_exists(kmt_event_type_system(t), name))
		return kmt_event_list_add(l, kmt_event_type_system(t), name);
	ret = add_group(l, name);
	if (ret <= 0)
		return ret;
	systems = tracefs_event_systems(NULL);
	for (i = 0; systems && systems[i]; i++) {
		if (!event_exists(systems[i], name))
			continue;
		if (found) {
			tracefs_list_free(systems);
			free(found);
			return 2;	/* ambiguous */
		}
		found = strdup(systems[i]);
	}
	tracefs_list_free(systems);
	if (!found)
		return 1;
	ret = kmt_event_list_add(l, found, name);
	free(found);
	return ret;
}

int kmt_event_list_resolve(struct kmt_event_list *l, const char *const *specs, int n,
			   struct kmt_error *err)
{
	int i, ret;

	if (!n) {
		if (add_defaults(l))
			goto nomem;
		if (!l->n) {
			kmt_error_set(err, "record", -1, "the running kernel has none of the "
				      "kmem, exceptions, oom or sched events kmtrace records");
			return -1;
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *colon = strchr(specs[i], ':');

		if (colon) {
			char *sys = strndup(specs[i], colon - specs[i]);

			if (!sys)
				goto nomem;
			ret = event_exists(sys, colon + 1) ? kmt_event_list_add(l, sys, colon + 1) : 1;
			free(sys);
		} else {
			ret = add_bare(l, specs[i]);
		}
		if (ret < 0)
			goto nomem;
		if (ret) {
			kmt_error_set(err, "record", -1, ret == 2 ?
				      "event '%s' exists in several groups: name it GROUP:EVENT" :
				      "no event or event group '%s' on the running kernel",
				      specs[i]);
			return -1;
		}
	}
	return 0;
nomem:
	kmt_error_set(err, "record", -1, "out of memory");
	return -1;
}

void kmt_event_list_free(struct kmt_event_list *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		free(l->ev[i].system);
		free(l->ev[i].name);
		free(l->ev[i].format);
	}
	free(l->ev);
	l->ev = NULL;
	l->n = 0;
}
