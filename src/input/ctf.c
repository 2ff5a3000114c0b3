// SPDX-License-Identifier: LGPL-2.1
/*
 * LTTng's libc traces: a CTF trace directory of lttng_ust_libc:* events
 * (an application run with LD_PRELOAD=liblttng-ust-libc-wrapper.so), read
 * through libbabeltrace2 (source.ctf.fs, its streams merged in time by
 * filter.utils.muxer, into a sink of this reader's). Each event becomes
 * the record libkmtrace-heap.so writes at an interval of 1 (an
 * ftrace:raw_data of kmtrace's, as in a record --user-sample recording), so
 * decode and umem read it unchanged: process and thread from the vpid and
 * vtid contexts, the caller from the ip context, names from procname (lttng
 * add-context -u -t vpid -t vtid -t procname -t ip). Events of other kinds
 * are left out; those LTTng discarded (full buffers) are counted as lost.
 * libbabeltrace2 reads the trace in a child process first (sandbox.c): a
 * damaged one can make it abort. The whole trace is converted at open, in time order: memory
 * follows its number of events.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <babeltrace2/babeltrace.h>
#include <traceevent/event-parse.h>

#include <kmtrace/event.h>
#include "reader_local.h"
#include "sandbox.h"
#include "common/hashmap.h"
#include "common/heaprec.h"
#include "common/util.h"

#define RAW_DATA_ID	1
#define TEXT(x)		#x
#define TEXT_OF(x)	TEXT(x)
#define TRIAL_SECONDS	10
#define TRIAL_BYTES_PER_SECOND	(20u << 20)
#define RECORD_SIZE	(12 + KMT_HEAP_HEADER_SIZE + 8)	/* header, id, buf, one frame */

/* ftrace:raw_data as the kernel describes it, with the id the records carry. */
static const char raw_data_format[] = KMT_RAW_DATA_FORMAT(TEXT_OF(RAW_DATA_ID));

struct ctf_rec {
	unsigned long long ts;
	uint32_t at;		/* its bytes in ctf.bytes */
	int size;
};

struct ctf {
	struct kmt_reader *r;
	bt_message_iterator *it;
	unsigned char *bytes;
	uint32_t used, cap_bytes;
	struct ctf_rec *recs;
	uint32_t n, cap_recs, next;
	struct kmt_hashmap named;	/* vtid -> 1: its procname registered */
	bool nomem;
};

static const struct {
	const char *name;
	enum kmt_user_func func;
} libc_events[] = {
	{ "lttng_ust_libc:malloc", KMT_UF_MALLOC }, { "lttng_ust_libc:calloc", KMT_UF_CALLOC },
	{ "lttng_ust_libc:realloc", KMT_UF_REALLOC }, { "lttng_ust_libc:free", KMT_UF_FREE },
	{ "lttng_ust_libc:memalign", KMT_UF_MEMALIGN },
	{ "lttng_ust_libc:posix_memalign", KMT_UF_POSIX_MEMALIGN },
};

static enum kmt_user_func func_of(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(libc_events) / sizeof(libc_events[0]); i++)
		if (!strcmp(name, libc_events[i].name))
			return libc_events[i].func;
	return KMT_UF_NONE;
}

/* Member @name of structure @s: the field, or NULL. */
static const bt_field *member(const bt_field *s, const char *name)
{
	if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

/* Integer field @f (signed ones as their bits); 0 when it is missing or not an integer. */
static uint64_t integer(const bt_field *f)
{
	bt_field_class_type t = f ? bt_field_get_class_type(f) : 0;

	if (f && bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return bt_field_integer_unsigned_get_value(f);
	if (f && bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (uint64_t)bt_field_integer_signed_get_value(f);
	return 0;
}

/* Integer member @name of @s, or 0. */
static uint64_t number(const bt_field *s, const char *name)
{
	return integer(member(s, name));
}

/* A context member, in the event's common context or its own. */
static const bt_field *context(const bt_event *ev, const char *name)
{
	const bt_field *f = member(bt_event_borrow_common_context_field_const(ev), name);

	return f ? f : member(bt_event_borrow_specific_context_field_const(ev), name);
}

/* The record of call @func with @payload, as the library writes it at interval 1. */
static struct kmt_heap_rec heap_record(enum kmt_user_func func, const bt_field *payload)
{
	struct kmt_heap_rec h = { .version = KMT_HEAP_VERSION, .func = func, .interval = 1 };
	uint64_t ptr = number(payload, "ptr");

	h.kind = KMT_HEAP_ALLOC;
	switch (func) {
	case KMT_UF_FREE:
		h.kind = KMT_HEAP_FREE;
		h.old = ptr;
		return h;
	case KMT_UF_CALLOC:
		h.size = number(payload, "nmemb") * number(payload, "size");
		break;
	case KMT_UF_REALLOC:
		h.size = number(payload, "size");
		h.old = number(payload, "in_ptr");
		if (h.old && (ptr || !h.size))
			h.kind |= KMT_HEAP_FREE;	/* moved, or realloc(p, 0) */
		else
			h.old = 0;
		break;
	case KMT_UF_POSIX_MEMALIGN:
		h.size = number(payload, "size");
		ptr = number(payload, "result") ? 0 : number(payload, "out_ptr");
		break;
	default:
		h.size = number(payload, "size");
		break;
	}
	h.ptr = ptr;
	return h;
}

/* Give thread @tid its procname, once. */
static void name_thread(struct ctf *c, const bt_event *ev, int tid)
{
	const bt_field *f = context(ev, "procname");
	uint64_t seen;

	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING ||
	    kmt_hashmap_get(&c->named, (uint32_t)tid, &seen))
		return;
	if (kmt_hashmap_put(&c->named, (uint32_t)tid, 1) ||
	    tep_register_comm(c->r->tep, bt_field_string_get_value(f), tid))
		c->nomem = true;
}

/* The kmtrace record of event message @msg, appended; other events are left out. */
static void take_event(struct ctf *c, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	enum kmt_user_func func = func_of(bt_event_class_get_name(bt_event_borrow_class_const(ev)));
	const bt_clock_snapshot *clock;
	struct kmt_heap_rec h;
	unsigned char *p;
	uint16_t type = RAW_DATA_ID;
	uint32_t id = KMT_HEAP_MARKER_ID;
	uint64_t ip = integer(context(ev, "ip"));
	int64_t ns = 0;
	int tid;

	if (func == KMT_UF_NONE)
		return;
	if (c->used > UINT32_MAX - 2 * RECORD_SIZE ||	/* 4 GiB of records: 60M events */
	    kmt_grow(&c->bytes, &c->cap_bytes, c->used + RECORD_SIZE, 1) ||
	    kmt_grow(&c->recs, &c->cap_recs, c->n, sizeof(*c->recs))) {
		c->nomem = true;
		return;
	}
	h = heap_record(func, bt_event_borrow_payload_field_const(ev));
	h.tgid = (uint32_t)integer(context(ev, "vpid"));
	h.tid = (uint32_t)integer(context(ev, "vtid"));
	h.nframes = ip && (h.kind & KMT_HEAP_ALLOC) ? 1 : 0;
	tid = (int)h.tid;
	name_thread(c, ev, tid);
	p = c->bytes + c->used;
	memset(p, 0, RECORD_SIZE);
	memcpy(p, &type, 2);
	memcpy(p + 4, &tid, 4);
	memcpy(p + 8, &id, 4);
	memcpy(p + 12, &h, KMT_HEAP_HEADER_SIZE);
	memcpy(p + 12 + KMT_HEAP_HEADER_SIZE, &ip, 8);
	if (bt_message_event_borrow_stream_class_default_clock_class_const(msg) &&
	    (clock = bt_message_event_borrow_default_clock_snapshot_const(msg)) &&
	    bt_clock_snapshot_get_ns_from_origin(clock, &ns))
		ns = 0;		/* before the origin by more than 64 bits of ns: none */
	c->recs[c->n++] = (struct ctf_rec){ ns > 0 ? (unsigned long long)ns : 0, c->used,
					    12 + KMT_HEAP_HEADER_SIZE + h.nframes * 8 };
	c->used += RECORD_SIZE;
}

/* LTTng's discarded events (full buffers), as dropped ones: a count, or marked unknown. */
static void count_discarded(struct ctf *c, const bt_message *msg)
{
	uint64_t n;

	if (bt_message_discarded_events_get_count(msg, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
		c->r->stats[0].dropped += n;
	else
		c->r->stats[0].missed_unknown++;
}

static bt_graph_simple_sink_component_initialize_func_status sink_init(bt_message_iterator *it,
									void *data)
{
	((struct ctf *)data)->it = it;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
								     void *data)
{
	struct ctf *c = data;
	bt_message_array_const msgs;
	uint64_t n, i;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT && !c->nomem)
			take_event(c, msgs[i]);
		else if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_DISCARDED_EVENTS)
			count_discarded(c, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return c->nomem ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR :
			  BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* libbabeltrace2's reason for the last failure, into @why (and the error released). */
static void bt_reason(char *why, size_t len)
{
	const bt_error *e = bt_current_thread_take_error();

	snprintf(why, len, "%s", e && bt_error_get_cause_count(e) ?
		 bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)) : "no reason given");
	if (e)
		bt_error_release(e);
}

#define METADATA_MAGIC	0x75d11d57u
#define METADATA_HEADER	37	/* magic, uuid, checksum, sizes, schemes, version */

/*
 * Is the metadata file @path whole? LTTng's is packetized (CTF 1.8, 7.1):
 * each packet's header gives its size, and libbabeltrace2 2.0 loops on a
 * packet cut short, so those are refused here. Text metadata is left to it.
 * 0, or -1 with @why.
 */
static int metadata_whole(const char *path, char *why, size_t len)
{
	unsigned char head[METADATA_HEADER];
	uint32_t magic, content, packet;
	struct stat st;
	off_t at = 0;
	bool swap;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		ret = -1;
		goto out;
	}
	if (pread(fd, &magic, 4, 0) != 4 ||
	    (magic != METADATA_MAGIC && magic != __builtin_bswap32(METADATA_MAGIC)))
		goto out;	/* text */
	swap = magic != METADATA_MAGIC;
	while (at < st.st_size) {
		if (pread(fd, head, sizeof(head), at) != sizeof(head)) {
			snprintf(why, len, "%s: metadata packet header cut short at offset %lld",
				 path, (long long)at);
			ret = -1;
			break;
		}
		memcpy(&magic, head, 4);
		memcpy(&content, head + 24, 4);
		memcpy(&packet, head + 28, 4);
		if (swap) {
			magic = __builtin_bswap32(magic);
			content = __builtin_bswap32(content);
			packet = __builtin_bswap32(packet);
		}
		if (magic != METADATA_MAGIC || packet % 8 || content > packet ||
		    content < METADATA_HEADER * 8 || packet / 8 > st.st_size - at) {
			snprintf(why, len, "%s: metadata packet at offset %lld is damaged or cut "
				 "short", path, (long long)at);
			ret = -1;
			break;
		}
		at += packet / 8;
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The CTF traces under @dir (directories holding a metadata file, LTTng's
 * ust/uid/0/64-bit and the like), at most @depth levels down, into @inputs.
 * 0, or -1 with @why.
 */
static int find_traces(const char *dir, int depth, bt_value *inputs, char *why, size_t len)
{
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(sub, sizeof(sub), "%s/metadata", dir);
	if (!access(sub, F_OK)) {
		if (metadata_whole(sub, why, len))
			return -1;
		if (bt_value_array_append_string_element(inputs, dir)) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		return 0;
	}
	if (depth <= 0 || !(d = opendir(dir)))
		return 0;
	while (!ret && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub) ||
		    lstat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		ret = find_traces(sub, depth - 1, inputs, why, len);
	}
	closedir(d);
	return ret;
}

/* source.ctf.fs of @path, each of its streams into a muxer, the muxer into our sink. */
static int build_graph(bt_graph *g, const char *path, struct ctf *c, char *why, size_t len)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_value *params = bt_value_map_create(), *inputs;
	uint64_t i;
	int ret = -1;

	if (!params || bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils)) {
		snprintf(why, len, "libbabeltrace2's ctf and utils plugins are not installed");
		goto out;
	}
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs)) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	if (find_traces(path, 8, inputs, why, len))
		goto out;
	if (!bt_value_array_get_length(inputs)) {
		snprintf(why, len, "no directory with a CTF metadata file in it");
		goto out;
	}
	if (bt_graph_add_source_component(g, bt_plugin_borrow_source_component_class_by_name_const(
					  ctf, "fs"), "source", params, BT_LOGGING_LEVEL_NONE, &src) ||
	    bt_graph_add_filter_component(g, bt_plugin_borrow_filter_component_class_by_name_const(
					  utils, "muxer"), "muxer", NULL, BT_LOGGING_LEVEL_NONE, &mux) ||
	    bt_graph_add_simple_sink_component(g, "sink", sink_init, sink_consume, NULL, c, &sink)) {
		bt_reason(why, len);
		goto out;
	}
	for (i = 0; i < bt_component_source_get_output_port_count(src); i++) {
		if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, i),
					   bt_component_filter_borrow_input_port_by_index_const(mux, i),
					   NULL)) {
			bt_reason(why, len);
			goto out;
		}
	}
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		bt_reason(why, len);
		goto out;
	}
	ret = 0;
out:
	bt_value_put_ref(params);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return ret;
}

/* Read all of @path's events into @c. 0, or -1 with @why. */
static int convert(const char *path, struct ctf *c, char *why, size_t len)
{
	bt_graph *g = bt_graph_create(0);
	bt_graph_run_status st;

	if (!g) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	if (build_graph(g, path, c, why, len)) {
		bt_graph_put_ref(g);
		return -1;
	}
	while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
		usleep(1000);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		if (c->nomem)
			snprintf(why, len, "out of memory");
		else
			bt_reason(why, len);
	}
	bt_graph_put_ref(g);
	return st == BT_GRAPH_RUN_STATUS_OK ? 0 : -1;
}

static int ctf_next_any(struct kmt_reader *r, struct kmt_record *rec, struct kmt_error *err)
{
	struct ctf *c = r->priv;
	const struct ctf_rec *x;

	(void)err;
	if (c->next == c->n)
		return 0;
	x = &c->recs[c->next++];
	*rec = (struct kmt_record){ .ts = x->ts, .data = c->bytes + x->at, .size = x->size,
				    .kept = true };
	return 1;
}

static void ctf_close(struct kmt_reader *r)
{
	struct ctf *c = r->priv;

	tep_free(r->tep);
	r->tep = NULL;
	if (!c)
		return;
	kmt_hashmap_free(&c->named);
	free(c->bytes);
	free(c->recs);
	free(c);
	r->priv = NULL;
}

static const struct kmt_reader_ops ctf_ops = {
	.next_any = ctf_next_any,
	.close = ctf_close,
};

/* The reader of @path, converted here. NULL with @err filled. */
static struct kmt_reader *open_here(const char *path, struct kmt_error *err)
{
	struct kmt_reader *r = kmt_reader_alloc(path, &ctf_ops);
	struct ctf *c = calloc(1, sizeof(*c));
	char why[PATH_MAX + 256];

	if (!r || !c || !(r->tep = tep_alloc()) || kmt_hashmap_init(&c->named)) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	r->priv = c;
	c->r = r;
	r->format = "CTF (LTTng, through libbabeltrace2)";
	tep_set_long_size(r->tep, 8);
	tep_set_page_size(r->tep, getpagesize());
	tep_set_file_bigendian(r->tep, tep_is_local_bigendian(r->tep) ? TEP_BIG_ENDIAN :
									  TEP_LITTLE_ENDIAN);
	if (tep_parse_event(r->tep, raw_data_format, strlen(raw_data_format), "ftrace") ||
	    kmt_reader_set_cpus(r, 1)) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	if (convert(path, c, why, sizeof(why))) {
		kmt_error_set(err, path, -1, "not a CTF trace kmtrace can read: %s", why);
		goto fail;
	}
	return r;
fail:
	if (r && !r->priv)
		free(c);
	if (r)
		kmt_reader_close(r);
	else
		free(c);
	return NULL;
}

/* The bytes of the files under @dir, @depth levels down at most. */
static unsigned long long tree_bytes(const char *dir, int depth)
{
	unsigned long long sum = 0;
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d = depth > 0 ? opendir(dir) : NULL;

	while (d && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub) ||
		    lstat(sub, &st))
			continue;
		sum += S_ISDIR(st.st_mode) ? tree_bytes(sub, depth - 1) :
		       S_ISREG(st.st_mode) ? (unsigned long long)st.st_size : 0;
	}
	if (d)
		closedir(d);
	return sum;
}

enum { TRIAL_READ, TRIAL_REFUSED };

/* In the sandbox's child: does libbabeltrace2 read all of the trace? */
static unsigned char trial(void *arg, int i)
{
	struct kmt_reader *r;
	struct kmt_error err;

	(void)i;
	r = open_here(arg, &err);
	kmt_reader_close(r);
	return r ? TRIAL_READ : TRIAL_REFUSED;
}

struct kmt_reader *kmt_ctf_open(const char *path, struct kmt_error *err)
{
	unsigned int seconds = TRIAL_SECONDS + tree_bytes(path, 9) / TRIAL_BYTES_PER_SECOND;
	unsigned char verdict;

	/* libbabeltrace2 2.0 asserts (aborts) on some damaged streams: tried apart first */
	if (kmt_sandbox_run(trial, (void *)path, 1, seconds, &verdict)) {
		kmt_error_set(err, path, -1, "cannot start a process to check it: %s",
			      strerror(errno));
		return NULL;
	}
	if (verdict == KMT_SANDBOX_CRASHED) {
		kmt_error_set(err, path, -1, "damaged CTF trace: libbabeltrace2 crashed or hung "
			      "reading it; not read");
		return NULL;
	}
	return open_here(path, err);
}
