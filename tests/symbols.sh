# Integration tests of symbols from elsewhere (kmtrace report --kallsyms);
# sourced by tests/integration.sh (uses its KMTRACE, WORK, live).

# This boot's kallsyms, and the same kernel as another boot would list it:
# every address (modules too) 2 MiB higher, as KASLR moves a kernel.
symbols_files() {
	[ -s "$WORK/boot.kallsyms" ] && return 0
	cp /proc/kallsyms "$WORK/boot.kallsyms" &&
	python3 -c '
import sys
for line in open(sys.argv[1]):
    addr, rest = line.split(" ", 1)
    sys.stdout.write("%016x %s" % ((int(addr, 16) + (2 << 20)) % (1 << 64), rest))' \
		"$WORK/boot.kallsyms" >"$WORK/moved.kallsyms" &&
	grep -q ' T _text$' "$WORK/moved.kallsyms"
}

# The call-site table of $1 (report options $3...) with kallsyms $2, and its source line.
symbols_report() {
	local in=$1 ksyms=$2
	shift 2
	"$KMTRACE" report -i "$in" --kallsyms "$ksyms" "$@" 2>&1
}

# A --no-kallsyms kmtrace recording and a perf.data -g, both of this boot,
# name their call sites through the moved kallsyms as through this boot's.
test_symbols_moved_boot() {
	local a b
	symbols_files || return 1
	"$KMTRACE" record --no-kallsyms -e kmem:kmalloc -e kmem:kfree -o "$WORK/nokall.dat" \
		-- sh -c 'ls -R /usr/share/doc >/dev/null; cat /etc/services >/dev/null' \
		>/dev/null 2>&1 || return 1
	# without kallsyms the file still names its kernel: _text and build-id
	grep -aq "text 0xffff[0-9a-f]*$" "$WORK/nokall.dat" &&
		grep -aq "^build-id [0-9a-f]\{40\}$" "$WORK/nokall.dat" ||
		{ echo "  no _text or build-id in the recording"; return 1; }
	perf record -q -g -e kmem:mm_page_alloc -o "$WORK/moved.data" \
		-- sh -c 'ls -R /usr/share/doc >/dev/null; cat /etc/services >/dev/null' \
		>/dev/null 2>&1 || return 1
	for in in "$WORK/nokall.dat:slab --caller -l 15" "$WORK/moved.data:page --caller"; do
		# shellcheck disable=SC2086
		a=$(symbols_report "${in%%:*}" "$WORK/boot.kallsyms" ${in#*:})
		# shellcheck disable=SC2086
		b=$(symbols_report "${in%%:*}" "$WORK/moved.kallsyms" ${in#*:})
		echo "$b" | grep -A4 '^Per call\|^Per caller' | sed 's/^/  /'
		[ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b") | head; return 1; }
		# names, not addresses, and what was moved is said
		echo "$b" | grep -A3 '^Per call\|^Per caller' | tail -2 | grep -qv '0xffff' || return 1
		"$KMTRACE" report -i "${in%%:*}" --kallsyms "$WORK/moved.kallsyms" stat |
			grep -q "moved by -0x200000 to the recording's _text" || return 1
	done
}

# The file given, not this machine, names the call sites: with every symbol
# of this boot's kallsyms renamed, a kmtrace recording (v6), the same as
# trace.dat v7 and a perf.data -g show only renamed names.
test_symbols_renamed() {
	local in names
	symbols_files || return 1
	sed 's/^\([0-9a-f]* [A-Za-z] \)/\1renamed_/' "$WORK/boot.kallsyms" >"$WORK/renamed.kallsyms"
	"$KMTRACE" record --no-kallsyms -e kmem:kmalloc -e kmem:kfree -o "$WORK/ren.dat" \
		-- sh -c 'ls -R /usr/share/doc >/dev/null' >/dev/null 2>&1 || return 1
	trace-cmd convert -i "$WORK/ren.dat" -o "$WORK/ren-v7.dat" --file-version 7 \
		>/dev/null 2>&1 || return 1
	perf record -q -g -e kmem:mm_page_alloc -o "$WORK/ren.data" \
		-- sh -c 'ls -R /usr/share/doc >/dev/null' >/dev/null 2>&1 || return 1
	# the text trace-cmd prints of a recording without kallsyms: raw addresses
	trace-cmd report -i "$WORK/ren.dat" >"$WORK/ren.txt" 2>/dev/null || return 1
	grep -q 'call_site=0xffff' "$WORK/ren.txt" || return 1
	for in in "$WORK/ren.dat:slab --caller" "$WORK/ren-v7.dat:slab --caller" \
		  "$WORK/ren.txt:slab --caller" "$WORK/ren.data:page --caller"; do
		# shellcheck disable=SC2086
		names=$("$KMTRACE" report -i "${in%%:*}" --kallsyms "$WORK/renamed.kallsyms" \
			${in#*:} -l 10 --format csv 2>/dev/null | awk -F, 'NR > 1 && $1 ~ /call/ { print $2 }')
		echo "  ${in##*/}: $(echo "$names" | head -3 | tr '\n' ' ')"
		[ -n "$names" ] && ! echo "$names" | grep -qv '^renamed_' || return 1
	done
}

# The stand-in kernel image (tests/standin) built here, with its trace.
standin_built() {
	[ -s "$WORK/standin/vmlinux" ] || "$TOP/tests/standin/build.sh" "$WORK/standin" >/dev/null
}

# --vmlinux with DWARF: each call site's function and file:line are those
# addr2line gives (innermost inline, then the function it sits in).
test_symbols_vmlinux_lines() {
	local rows
	standin_built || return 1
	rows=$("$KMTRACE" report -i "$WORK/standin/trace.txt" --vmlinux "$WORK/standin/vmlinux" \
		slab --caller --raw-ip --format csv 2>/dev/null | awk -F, '$1 == "slab.callers" { print $2 }')
	[ "$(echo "$rows" | wc -l)" -eq 5 ] || return 1
	"$KMTRACE" report -i "$WORK/standin/trace.txt" --vmlinux "$WORK/standin/vmlinux" \
		slab --caller --format csv 2>"$WORK/standin.err" >"$WORK/standin.csv" || return 1
	python3 - "$WORK/standin/vmlinux" "$WORK/standin.csv" $rows <<'PY' || return 1
import csv, subprocess, sys
image, table, addrs = sys.argv[1], sys.argv[2], sys.argv[3:]
shown = [r[1] for r in csv.reader(open(table)) if r and r[0] == 'slab.callers']
checked = 0
for addr, text in zip(addrs, shown):
    a = int(addr, 0)
    out = subprocess.check_output(['addr2line', '-f', '-i', '-e', image, '%x' % a],
                                  text=True).split('\n')
    frames = [(out[i], out[i + 1].split(' ')[0]) for i in range(0, len(out) - 1, 2)]
    if frames[0][0] == '??':
        assert text.startswith('0x'), text
        continue
    def rel(path):
        return path.split('/standin/', 1)[1].replace('fs/ext4/../../', '')
    func, line = frames[-1][0], rel(frames[-1][1])
    assert text.startswith(func + '+0x'), (text, func)
    if len(frames) > 1:
        want = '(inlined %s at %s, in %s)' % (frames[0][0], rel(frames[0][1]), line)
    else:
        want = '(%s)' % line
    assert text.endswith(want), (text, want)
    print('  %s' % text)
    checked += 1
assert checked == 4, checked
PY
	# the module address is not in the image: said once on stderr
	[ "$(grep -c '1 of 5 kernel addresses not resolved' "$WORK/standin.err")" -eq 1 ] || return 1
	# without .debug_aranges (not every build has it) the units' ranges find the lines
	objcopy --remove-section .debug_aranges "$WORK/standin/vmlinux" "$WORK/standin/noar" &&
	! readelf -S "$WORK/standin/noar" | grep -q debug_aranges &&
	"$KMTRACE" report -i "$WORK/standin/trace.txt" --vmlinux "$WORK/standin/noar" \
		slab --caller --format csv 2>/dev/null | grep '^slab.callers' >"$WORK/noar.rows" &&
	[ -s "$WORK/noar.rows" ] && grep '^slab.callers' "$WORK/standin.csv" | cmp -s - "$WORK/noar.rows"
}

# Sums over the rows of slab CSV table $1 (on stdin): bytes allocated and
# requested, allocations, frees, live bytes.
rollup_sums() {
	python3 -c '
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if r and r[0] == sys.argv[1]]
print(*(sum(int(r[c]) for r in rows) for c in (2, 4, 6, 7, 8)))' "$1"
}

# --by-dir and --by-module tables add up to the call-site table; --branch
# keeps the call sites under it.
test_symbols_rollup() {
	local base r dirs
	standin_built || return 1
	r() { "$KMTRACE" report -i "$WORK/standin/trace.txt" --vmlinux "$WORK/standin/vmlinux" \
		slab --caller "$@" --format csv 2>/dev/null; }
	base=$(r | rollup_sums slab.callers)
	for o in "--by-dir 1:slab.dirs" "--by-dir 2:slab.dirs" "--by-dir 9:slab.dirs" \
		 "--by-module:slab.modules"; do
		# shellcheck disable=SC2086
		[ "$(r ${o%%:*} | rollup_sums "${o#*:}")" = "$base" ] ||
			{ echo "  ${o%%:*}: $(r ${o%%:*} | rollup_sums "${o#*:}") != $base"; return 1; }
	done
	dirs=$(r --by-dir 2 | awk -F, '$1 == "slab.dirs" { print $2 }' | LC_ALL=C sort | tr '\n' ' ')
	echo "  --by-dir 2: $dirs; totals $base"
	[ "$dirs" = "(no source) drivers/net/ fs/ext4/ mm/ " ] || return 1
	[ "$(r --by-dir 1 | awk -F, '$1 == "slab.dirs" { print $2 }' | LC_ALL=C sort | tr '\n' ' ')" = \
	  "(no source) drivers/ fs/ mm/ " ] || return 1
	# --branch fs/ext4: only ext4's call sites, and their sum is fs/ext4/'s row
	[ "$(r --branch fs/ext4 | grep '^slab.callers,' | grep -cv 'fs/ext4/[a-z]*\.c:[0-9]*)')" \
	  -eq 0 ] || return 1
	[ "$(r --branch fs/ext4 | rollup_sums slab.callers)" = \
	  "$(r --by-dir 2 | grep '^slab.dirs,fs/ext4/,' | rollup_sums slab.dirs)" ] || return 1
	[ "$(r --branch fs/ext4 | grep -c '^slab.callers,')" -eq 2 ]
}

# A kernel image of another build (build-id) gives one warning and no names,
# not even this machine's, for a kmtrace recording and a perf.data of this boot.
test_symbols_build_id_mismatch() {
	local in
	standin_built || return 1
	[ -s "$WORK/nokall.dat" ] && [ -s "$WORK/moved.data" ] || test_symbols_moved_boot >/dev/null ||
		return 1
	for in in "$WORK/nokall.dat:slab --caller" "$WORK/moved.data:page --caller"; do
		# shellcheck disable=SC2086
		"$KMTRACE" report -i "${in%%:*}" --vmlinux "$WORK/standin/vmlinux" ${in#*:} \
			--format json >"$WORK/bid.json" 2>"$WORK/bid.err" || return 1
		sed 's/^/  /' "$WORK/bid.err"
		[ "$(grep -c 'warning:.*build-id [0-9a-f]* is not the recording' "$WORK/bid.err")" -eq 1 ] ||
			return 1
		python3 - "$WORK/bid.json" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
s = d['symbols']['summary']
assert s['resolved'] == 0 and s['unresolved'] > 0, s
assert s['source'].startswith('none: ') and 'another kernel build' in s['source'], s
rows = [r for a in d['analyses'].values() for r in a['tables'].get('callers', [])]
names = [r.get('callsite', r.get('caller')) for r in rows]
assert names and all(n.startswith('0x') for n in names), names[:3]
PY
	done
}

# Without symbols, page --caller says it could not tell allocator frames from
# callers, on stderr and in its summary; the unresolved count is in JSON.
test_symbols_unresolved_said() {
	printf 'ffffffff81000000 T _text\n' >"$WORK/only-text.kallsyms"
	"$KMTRACE" report -i "$TRACES/perf-zg.data" --kallsyms "$WORK/only-text.kallsyms" \
		page --caller --format json >"$WORK/unres.json" 2>"$WORK/unres.err" || return 1
	sed 's/^/  /' "$WORK/unres.err"
	grep -q 'allocator frames cannot be told from callers' "$WORK/unres.err" &&
	[ "$(grep -c 'kernel addresses not resolved' "$WORK/unres.err")" -eq 1 ] || return 1
	python3 - "$WORK/unres.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p, s = d['analyses']['page']['summary'], d['symbols']['summary']
assert p['allocs_caller_unresolved'] > 0 and s['resolved'] == 0 and s['unresolved'] > 0, (p, s)
assert s['addresses'] == s['resolved'] + s['unresolved']
PY
}

symbols_parsing_tests() {
	check "symbols: --vmlinux with DWARF names each call site's function, file:line and inline as addr2line does" \
		test_symbols_vmlinux_lines
	check "symbols: --by-dir and --by-module rows add up to the call-site table; --branch keeps its directory" \
		test_symbols_rollup
	check "symbols: with no usable symbols, page --caller says allocator frames are not told apart; JSON counts the unresolved" \
		test_symbols_unresolved_said
}

symbols_live_tests() {
	live "symbols: a --no-kallsyms recording and a perf.data -g with another boot's kallsyms (moved 2 MiB): the same call sites as with this boot's" \
		test_symbols_moved_boot
	live "symbols: with a renamed kallsyms, trace.dat v6, v7, its text and perf.data -g name call sites by the file's names" \
		test_symbols_renamed
	live "symbols: a kernel image of another build-id: one warning, no names (kmtrace recording and perf.data)" \
		test_symbols_build_id_mismatch
}
