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
	for in in "$WORK/ren.dat:slab --caller" "$WORK/ren-v7.dat:slab --caller" \
		  "$WORK/ren.data:page --caller"; do
		# shellcheck disable=SC2086
		names=$("$KMTRACE" report -i "${in%%:*}" --kallsyms "$WORK/renamed.kallsyms" \
			${in#*:} -l 10 --format csv 2>/dev/null | awk -F, 'NR > 1 && $1 ~ /call/ { print $2 }')
		echo "  ${in##*/}: $(echo "$names" | head -3 | tr '\n' ' ')"
		[ -n "$names" ] && ! echo "$names" | grep -qv '^renamed_' || return 1
	done
}

symbols_live_tests() {
	live "symbols: a --no-kallsyms recording and a perf.data -g with another boot's kallsyms (moved 2 MiB): the same call sites as with this boot's" \
		test_symbols_moved_boot
	live "symbols: with a renamed kallsyms, trace.dat v6, v7 and perf.data -g name call sites by the file's names" \
		test_symbols_renamed
}
