# Helpers of the integration tests, sourced by tests/integration.sh before the
# test files (slab.sh, page.sh, ...). Expects KMTRACE, TOP and WORK set.
TRACES=$TOP/traces
TRACEFS=/sys/kernel/tracing
pass=0 fail=0 skip=0

ok()   { pass=$((pass + 1)); echo "PASS: $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { skip=$((skip + 1)); echo "SKIP: $* ******** (tracefs not writable here) ********"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
live() { if [ "${writable:-0}" = 1 ]; then check "$@"; else skip "$1"; fi; }

# Pids of every kmtrace this run started (the wrapper $KMTRACE logs them).
our_pids() { [ -s "$WORK/pids" ] && sort -un "$WORK/pids"; }

# Instances of the kmtrace processes this run started that are still there.
leftover_instances() {
	local p
	for p in $(our_pids); do
		[ -d "$TRACEFS/instances/kmtrace-$p" ] && echo "kmtrace-$p"
	done
	true
}

# json_get FILE PYTHON-EXPR-ON-d
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Per-event counts from kmtrace (json) and from trace-cmd report, as "name count" lines.
kmt_counts() {
	"$KMTRACE" report -i "$1" --format json >"$WORK/c.json" || return 1
	json_get "$WORK/c.json" \
		"'\n'.join('%s %d' % (r['event'].split(':')[1], r['count']) for r in d['analyses']['stat']['tables']['events'])" |
		LC_ALL=C sort
}
tc_counts() {
	trace-cmd report -i "$1" 2>/dev/null |
		awk '$1 != "cpus=2" && $1 !~ /^cpus=/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z0-9_]+:$/ && $(i-1) ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); n[$i]++; break } }
		     END { for (e in n) print e, n[e] }' | LC_ALL=C sort
}

# expect_bad_input FILE PATTERN [ARGS...]: exit 2, one stderr line naming
# FILE and matching PATTERN, nothing on stdout.
expect_bad_input() {
	local f=$1 pat=$2; shift 2
	"$KMTRACE" report -i "$f" "$@" >"$WORK/b.out" 2>"$WORK/b.err"
	local rc=$?
	[ $rc -eq 2 ] && [ ! -s "$WORK/b.out" ] && [ "$(wc -l <"$WORK/b.err")" -eq 1 ] &&
	grep -qF -- "$f" "$WORK/b.err" && grep -q -- "$pat" "$WORK/b.err" ||
		{ echo "  rc=$rc stderr: $(head -c 600 "$WORK/b.err")"; return 1; }
}

# The EXAMPLES of a man page, run from the top of the tree.
man_examples() { sed -n '/^\.EX/,/^\.EE/p' "$TOP"/docs/$1 | sed -n 's/^\$ kmtrace //p'; }
# Run the examples of man page $1 in directory $2 (default: the source tree).
test_man_examples() {
	local line n=0
	while IFS= read -r line; do
		(cd "${2:-$TOP}" && eval "\"$KMTRACE\" $line") >/dev/null 2>&1 || { echo "  failed: $line"; return 1; }
		n=$((n + 1))
	done <<EOT
$(man_examples "$1")
EOT
	[ $n -gt 0 ]
}

# Wait until kmtrace has blocked SIGINT (bit 2 of SigBlk): from then on a
# signal lands in its setup or recording, not in the shell or env before it.
wait_signals_blocked() {
	local i
	for i in $(seq 500); do
		[ "$(cat /proc/$1/comm 2>/dev/null)" = kmtrace ] &&
			(( 0x$(awk '/^SigBlk/ { print $2 }' /proc/$1/status) & 2 )) && return 0
		sleep 0.01
	done
	echo "  kmtrace never blocked its signals"; kill -KILL "$1"; wait "$1"; return 1
}
