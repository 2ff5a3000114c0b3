/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * record --user: the C library's allocators as uprobes. Two events in
 * kmtrace's group KMT_UPROBE_SYSTEM, each with a probe point per function
 * (the kernel's multi-probe events): "call" at every entry with the first
 * three arguments, the caller's address and the function's number (an
 * immediate), "return" at the returns of those that give a pointer. Their
 * layouts are the same for every function, so one format decodes them all.
 * Private to src/.
 */
#ifndef KMT_UPROBES_H
#define KMT_UPROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <kmtrace/event.h>

#define KMT_UPROBE_SYSTEM	"kmtrace_user"
#define KMT_UPROBE_CALL		"call"
#define KMT_UPROBE_RETURN	"return"

/* Where one architecture's calling convention puts what a probe fetches. */
struct kmt_uprobe_regs {
	const char *machine;		/* uname -m */
	const char *arg[3];		/* the first three integer arguments */
	const char *caller;		/* the return address at the entry */
};

/* The registers of @machine ("x86_64", "aarch64"); NULL when not known. */
const struct kmt_uprobe_regs *kmt_uprobe_regs_of(const char *machine);

/* An allocator function found in a file: its number and file offset. */
struct kmt_uprobe_site {
	enum kmt_user_func func;
	unsigned long long offset;
};

/*
 * The allocator functions @path exports, by file offset (an alias such as
 * aligned_alloc of memalign is one site). Up to KMT_UF_NR sites into
 * @sites; returns how many, or -1 with @why filled (not an ELF file,
 * no malloc).
 */
int kmt_uprobe_sites(const char *path, struct kmt_uprobe_site *sites, char *why, size_t len);

/*
 * The uprobe_events line of @site in @path: "p:GROUP/call PATH:0xOFF a0=..
 * a1=.. a2=.. caller=.. fn=\N:u8", or the "r:GROUP/return ... ret=$retval:x64
 * fn=\N:u8" line when @ret. Returns snprintf's count.
 */
int kmt_uprobe_line(char *buf, size_t len, const struct kmt_uprobe_regs *regs,
		    const char *path, const struct kmt_uprobe_site *site, bool ret);

/*
 * The "call" filter of --user-min-size @min: allocations asking for fewer
 * bytes are left out (frees and callocs stay). Returns snprintf's count.
 */
int kmt_uprobe_min_size_filter(char *buf, size_t len, unsigned long long min);

#endif /* KMT_UPROBES_H */
