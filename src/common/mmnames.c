// SPDX-License-Identifier: LGPL-2.1
/* Migratetype and GFP flag names of mmnames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "mmnames.h"

const char *kmt_kernel_release(const char *uname, size_t *len)
{
	const char *p;
	int major, minor;

	*len = 0;
	for (p = uname; p && *p; p++) {
		if ((p == uname || p[-1] == ' ') && sscanf(p, "%d.%d", &major, &minor) == 2) {
			*len = strcspn(p, " \n");
			return p;
		}
	}
	return NULL;
}

int kmt_kernel_version(const char *uname)
{
	size_t len;
	const char *release = kmt_kernel_release(uname, &len);
	int major, minor;

	if (!release || sscanf(release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major * 1000 + minor;
}

const char *kmt_kernel_machine(const char *uname)
{
	const char *space = uname ? strrchr(uname, ' ') : NULL;

	return space ? space + 1 : "";
}

int kmt_machine_big_endian(const char *machine)
{
	static const char *const big[] = { "s390", "ppc", "mips", "sparc", "m68k", "parisc",
					   "or1k", NULL };
	static const char *const little[] = { "x86_64", "i386", "i486", "i586", "i686",
					      "aarch64", "riscv", "loongarch", "ppc64le",
					      "mipsel", "mips64el", "sh4", NULL };
	size_t len = strlen(machine);
	int i;

	if (!strcmp(machine, "aarch64_be"))
		return 1;
	for (i = 0; little[i]; i++)	/* before big: ppc64le and mipsel start as big ones */
		if (!strncmp(machine, little[i], strlen(little[i])))
			return 0;
	for (i = 0; big[i]; i++)
		if (!strncmp(machine, big[i], strlen(big[i])))
			return 1;
	if (!strncmp(machine, "arm", 3) && len > 3)	/* armv7l, armv5tel; armv7b */
		return machine[len - 1] == 'b' ? 1 : machine[len - 1] == 'l' ? 0 : -1;
	return -1;
}

/* enum migratetype: before 4.4, and from 4.4 (commit 016c13daa5c9 and 0aaa29a56e4f). */
static const char *const names_old[KMT_MIGRATETYPES] = {
	"Unmovable", "Reclaimable", "Movable", "Reserve", "CMA/Isolate", "Isolate",
};
static const char *const names_new[KMT_MIGRATETYPES] = {
	"Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA/Isolate", "Isolate",
};
static const char *const keys_old[KMT_MIGRATETYPES] = {
	"unmovable", "reclaimable", "movable", "reserve", "cma_isolate", "isolate",
};
static const char *const keys_new[KMT_MIGRATETYPES] = {
	"unmovable", "movable", "reclaimable", "highatomic", "cma_isolate", "isolate",
};

static bool before_4_4(int version)
{
	return version >= 0 && version < 4004;
}

const char *kmt_migratetype_name(int mt, int version, char *buf, size_t len)
{
	if (mt >= 0 && mt < KMT_MIGRATETYPES)
		return before_4_4(version) ? names_old[mt] : names_new[mt];
	snprintf(buf, len, "type-%d", mt);
	return buf;
}

const char *kmt_migratetype_key(int mt, int version, char *buf, size_t len)
{
	if (mt >= 0 && mt < KMT_MIGRATETYPES)
		return before_4_4(version) ? keys_old[mt] : keys_new[mt];
	snprintf(buf, len, "type_%d", mt);
	return buf;
}

struct gfp_name {
	unsigned long long value;
	const char *name;
};

struct kmt_gfp_names {
	struct gfp_name *names;	/* in the format's order: composites first */
	int n;
};

/* The __print_flags() over field "gfp_flags" in @arg's tree, or NULL. */
static struct tep_print_arg *find_gfp_flags(struct tep_print_arg *arg)
{
	struct tep_print_arg *found = NULL;

	for (; arg && !found; arg = arg->next) {
		switch (arg->type) {
		case TEP_PRINT_FLAGS:
			if (arg->flags.field && arg->flags.field->type == TEP_PRINT_FIELD &&
			    !strcmp(arg->flags.field->field.name, "gfp_flags"))
				return arg;
			break;
		case TEP_PRINT_OP:
			found = find_gfp_flags(arg->op.left);
			if (!found)
				found = find_gfp_flags(arg->op.right);
			break;
		case TEP_PRINT_TYPE:
			found = find_gfp_flags(arg->typecast.item);
			break;
		default:
			break;
		}
	}
	return found;
}

static struct kmt_gfp_names *names_from(struct tep_print_arg *flags)
{
	struct kmt_gfp_names *g = calloc(1, sizeof(*g));
	struct tep_print_flag_sym *sym;
	int n = 0;

	if (!g)
		return NULL;
	for (sym = flags->flags.flags; sym; sym = sym->next)
		n++;
	g->names = calloc(n ? n : 1, sizeof(*g->names));
	if (!g->names) {
		free(g);
		return NULL;
	}
	for (sym = flags->flags.flags; sym; sym = sym->next) {
		char *end;
		unsigned long long v = strtoull(sym->value, &end, 0);
		char *num_end = end;

		/* libtraceevent leaves a lone constant as written: "0x10u" */
		end += strspn(end, "uUlL");
		if (num_end != sym->value && !*end && sym->str)
			g->names[g->n++] = (struct gfp_name){ v, sym->str };
	}
	return g;
}

struct kmt_gfp_names *kmt_gfp_names_new(const struct tep_event *event)
{
	struct tep_print_arg *flags = event ? find_gfp_flags(event->print_fmt.args) : NULL;
	struct kmt_gfp_names *g;

	if (!flags) {
		errno = ENOENT;
		return NULL;
	}
	g = names_from(flags);
	if (!g)
		errno = ENOMEM;
	return g;
}

bool kmt_gfp_names_pre_4_4(const struct kmt_gfp_names *g)
{
	int i;

	for (i = 0; g && i < g->n; i++)
		if (!strcmp(g->names[i].name, "__GFP_WAIT"))
			return true;
	return false;
}

unsigned long long kmt_gfp_names_value(const struct kmt_gfp_names *g, const char *name)
{
	int i;

	for (i = 0; g && i < g->n; i++)
		if (!strcmp(g->names[i].name, name))
			return g->names[i].value;
	return 0;
}

void kmt_gfp_names_free(struct kmt_gfp_names *g)
{
	if (!g)
		return;
	free(g->names);
	free(g);
}

/* Append "|"-separated @word to @buf. */
static void append(char *buf, size_t len, size_t *used, const char *word)
{
	int n = snprintf(buf + *used, len - *used, "%s%s", *used ? "|" : "", word);

	if (n > 0)
		*used = *used + n < len ? *used + n : len - 1;
}

void kmt_gfp_format(const struct kmt_gfp_names *g, unsigned long long gfp, char *buf,
		    size_t len)
{
	size_t used = 0;
	char hex[32];
	int i;

	buf[0] = '\0';
	if (!gfp) {
		snprintf(buf, len, "none");
		return;
	}
	/* As __print_flags() prints: each name whose bits are all set, in order. */
	for (i = 0; g && i < g->n && gfp; i++) {
		if (g->names[i].value && (gfp & g->names[i].value) == g->names[i].value) {
			append(buf, len, &used, g->names[i].name);
			gfp &= ~g->names[i].value;
		}
	}
	if (gfp) {
		snprintf(hex, sizeof(hex), "0x%llx", gfp);
		append(buf, len, &used, hex);
	}
}
