# The parsing tests, as on a machine of another kernel build: sourced by
# tests/integration.sh. A test that parses a shipped file must give the same
# result on any machine, so these run in a mount namespace whose
# /proc/kallsyms is a made-up file (another _text, no real symbol) and with
# setarch --uname-2.6, which makes uname report another release.

FOREIGN_KALLSYMS="ffffffffa0000000 T _text
ffffffffa0000000 T _stext
ffffffffa0100000 T kmtrace_foreign_machine
ffffffffa0200000 T _etext"

# run_parsing_as_foreign SCRIPT: the parsing phase of SCRIPT, its counts added to ours.
run_parsing_as_foreign() {
	local counts
	printf '%s\n' "$FOREIGN_KALLSYMS" >"$WORK/foreign-kallsyms"
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		KMT_IT_PHASE=parsing KMT_IT_HOST_RELEASE=$(uname -r) unshare -m -- sh -c \
			'mount --bind "$1" /proc/kallsyms && exec setarch "$(uname -m)" --uname-2.6 bash "$2"' \
			sh "$WORK/foreign-kallsyms" "$1"
	else
		echo "SKIP: parsing tests as on another machine ******** (needs root for unshare -m); run here as they are ********"
		skip=$((skip + 1))
		KMT_IT_PHASE=parsing bash "$1"
	fi
	counts=($(cat "$WORK/parsing.counts" 2>/dev/null))
	[ ${#counts[@]} = 3 ] || { bad "parsing phase ended without its counts"; return; }
	pass=$((pass + counts[0])) fail=$((fail + counts[1])) skip=$((skip + counts[2]))
}

# Inside: uname and /proc/kallsyms are not this machine's.
test_foreign_machine() {
	echo "  uname -r: $(uname -r) (this machine: $KMT_IT_HOST_RELEASE); /proc/kallsyms: $(wc -l </proc/kallsyms) made-up lines"
	[ "$(uname -r)" != "$KMT_IT_HOST_RELEASE" ] && [ "$(cat /proc/kallsyms)" = "$FOREIGN_KALLSYMS" ]
}
foreign_machine_check() {
	[ -n "${KMT_IT_HOST_RELEASE:-}" ] &&	# else not in the namespace: a SKIP said so
	check "parsing tests run with another uname release and a made-up /proc/kallsyms" test_foreign_machine
}
