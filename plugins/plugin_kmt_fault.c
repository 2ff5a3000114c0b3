// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_kmt_fault: x86 page faults with the error code in words ("user
 * write not-present") and kernel ips as func+0xOFF, and the return probe
 * kmtrace puts on handle_mm_fault() with its vm_fault_t in words.
 */
#include "kmt_plugin.h"

/* A bit and its word. */
struct bit_name {
	unsigned long long bit;
	const char *name;
};

/* x86 page fault error code bits past P/W/U (arch/x86/include/asm/trap_pf.h). */
#define PF_PROT		(1ULL << 0)
#define PF_WRITE	(1ULL << 1)
#define PF_USER		(1ULL << 2)
#define PF_INSTR	(1ULL << 4)

static const struct bit_name pf_extra[] = {
	{ 1ULL << 3, "rsvd" },	/* reserved bit set in a paging entry */
	{ 1ULL << 5, "pkey" },	/* protection keys */
	{ 1ULL << 6, "shstk" },	/* shadow stack access */
	{ 1ULL << 15, "sgx" },
	{ 1ULL << 31, "rmp" },	/* SEV-SNP reverse map */
	{ 0, NULL },
};

/* Print the words of error code @ec: "user write not-present", then the rest. */
static void print_error_code(struct trace_seq *s, unsigned long long ec)
{
	unsigned long long known = PF_PROT | PF_WRITE | PF_USER | PF_INSTR;
	const struct bit_name *b;

	trace_seq_printf(s, "%s %s %s", ec & PF_USER ? "user" : "kernel",
			 ec & PF_INSTR ? "exec" : ec & PF_WRITE ? "write" : "read",
			 ec & PF_PROT ? "protection" : "not-present");
	if ((ec & PF_INSTR) && (ec & PF_WRITE))
		trace_seq_puts(s, " write");
	for (b = pf_extra; b->name; b++) {
		known |= b->bit;
		if (ec & b->bit)
			trace_seq_printf(s, " %s", b->name);
	}
	if (ec & ~known)
		trace_seq_printf(s, " unknown=0x%llx", ec & ~known);
}

/* exceptions:page_fault_user and page_fault_kernel. */
static int page_fault_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	unsigned long long address, ip, ec;

	(void)context;
	if (!kmt_pf_num(event, record, "address", &address) ||
	    !kmt_pf_num(event, record, "ip", &ip) ||
	    !kmt_pf_num(event, record, "error_code", &ec))
		return 1;
	trace_seq_printf(s, "address=0x%llx ip=", address);
	kmt_pf_symbol(s, event, ip);
	trace_seq_printf(s, " error_code=0x%llx", ec);
	if (!kmt_pf_raw()) {
		trace_seq_puts(s, " (");
		print_error_code(s, ec);
		trace_seq_putc(s, ')');
	}
	return 0;
}

/* vm_fault_t bits (include/linux/mm_types.h); HINDEX is a 4-bit number. */
#define VMF_ERRORS	0x0073ULL	/* OOM, SIGBUS, HWPOISON(_LARGE), SIGSEGV */
#define VMF_MAJOR	0x0004ULL
#define VMF_RETRY	0x0400ULL
#define VMF_HINDEX	0xf0000ULL

static const struct bit_name vmf_names[] = {
	{ 0x0001, "OOM" }, { 0x0002, "SIGBUS" }, { 0x0004, "MAJOR" },
	{ 0x0008, "WRITE" },	/* before 6.0 */
	{ 0x0010, "HWPOISON" }, { 0x0020, "HWPOISON_LARGE" }, { 0x0040, "SIGSEGV" },
	{ 0x0100, "NOPAGE" }, { 0x0200, "LOCKED" }, { 0x0400, "RETRY" },
	{ 0x0800, "FALLBACK" }, { 0x1000, "DONE_COW" }, { 0x2000, "NEEDDSYNC" },
	{ 0x4000, "COMPLETED" },
	{ 0, NULL },
};

/* Print vm_fault_t @ret: "MINOR" when nothing says otherwise, then each bit's name. */
static void print_vm_fault(struct trace_seq *s, unsigned long long ret)
{
	unsigned long long known = VMF_HINDEX;
	const struct bit_name *b;
	const char *sep = "";

	if (!(ret & (VMF_ERRORS | VMF_MAJOR | VMF_RETRY))) {
		trace_seq_puts(s, "MINOR");
		sep = "|";
	}
	for (b = vmf_names; b->name; b++) {
		known |= b->bit;
		if (ret & b->bit) {
			trace_seq_printf(s, "%s%s", sep, b->name);
			sep = "|";
		}
	}
	if (ret & VMF_HINDEX)
		trace_seq_printf(s, "%sHINDEX=%llu", sep, (ret & VMF_HINDEX) >> 16);
	if (ret & ~known)
		trace_seq_printf(s, "%s0x%llx", sep, ret & ~known);
}

/* kmtrace:fault_return, the kretprobe on handle_mm_fault(): ret=$retval. */
static int fault_return_handler(struct trace_seq *s, struct tep_record *record,
				struct tep_event *event, void *context)
{
	unsigned long long ret, func, ret_ip;
	int has_func, has_ret_ip;

	(void)context;
	if (!kmt_pf_num(event, record, "ret", &ret))
		return 1;
	has_func = kmt_pf_num_opt(event, record, "__probe_func", &func);
	has_ret_ip = kmt_pf_num_opt(event, record, "__probe_ret_ip", &ret_ip);
	if (has_func < 0 || has_ret_ip < 0)
		return 1;
	if (has_func && has_ret_ip) {
		trace_seq_putc(s, '(');
		kmt_pf_symbol(s, event, func);
		trace_seq_puts(s, " <- ");
		kmt_pf_symbol(s, event, ret_ip);
		trace_seq_puts(s, ") ");
	}
	trace_seq_printf(s, "ret=0x%llx", ret);
	if (!kmt_pf_raw()) {
		trace_seq_puts(s, " (");
		print_vm_fault(s, ret);
		trace_seq_putc(s, ')');
	}
	return 0;
}

static const struct kmt_plugin_handler fault_handlers[] = {
	{ "exceptions", "page_fault_user", page_fault_handler },
	{ "exceptions", "page_fault_kernel", page_fault_handler },
	{ "kmtrace", "fault_return", fault_return_handler },
	{ NULL, NULL, NULL },
};

const struct kmt_plugin kmt_plugin_fault = { "fault", fault_handlers };

KMT_PLUGIN_EXPORT(kmt_plugin_fault)
