# Pages allocated before the recording: traces/pageowner-6.1.dat carries the
# page_owner snapshot kmtrace-record took in a page_owner=on guest (make
# check-pageowner). Sourced by tests/integration.sh (uses its KMTRACE, TOP,
# WORK, check).

PO_DAT=$TOP/traces/pageowner-6.1.dat

# The snapshot recounted without kmtrace: trace-cmd report's first event per
# pfn gives the pages allocated before, freed and held; the tables add up.
test_pageowner_recount() {
	python3 "$TOP/tests/pageowner_recount.py" "$KMTRACE" "$PO_DAT" >"$WORK/po.recount" ||
		{ cat "$WORK/po.recount"; return 1; }
}

# Text and CSV carry the summary and both tables; without --live only the summary.
test_pageowner_formats() {
	local d=$WORK/po-csv
	"$KMTRACE" report -i "$PO_DAT" page --live >"$WORK/po.txt" || return 1
	grep -q '^  Pages allocated before the recording  *[1-9]' "$WORK/po.txt" &&
	grep -q '^Pages allocated before the recording and held at its end (page_owner), per stack$' \
		"$WORK/po.txt" &&
	grep -q 'per module of the caller$' "$WORK/po.txt" || return 1
	"$KMTRACE" report -i "$PO_DAT" page >"$WORK/po-plain.txt" &&
	grep -q '^  Pages page_owner listed at the start' "$WORK/po-plain.txt" &&
	! grep -q 'per stack$' "$WORK/po-plain.txt" || return 1
	mkdir "$d" && "$KMTRACE" report -i "$PO_DAT" --format csv -o "$d" page --live >/dev/null &&
	[ -s "$d/page-before.csv" ] && [ -s "$d/page-before_modules.csv" ] &&
	[ "$(stat -c %a "$d/page-before.csv")" = 600 ] &&
	head -n 1 "$d/page-before.csv" | grep -q 'pages,blocks,caller,module,stack'
}

# A recording without a snapshot says nothing of it; a damaged snapshot is
# read as far as it goes, its bad lines counted.
test_pageowner_absent_damaged() {
	"$KMTRACE" report -i "$TOP/traces/small.dat" page --live --format json >"$WORK/po-none.json" &&
	! grep -q '"before' "$WORK/po-none.json" || return 1
	python3 - "$PO_DAT" "$WORK/po-bad.dat" <<'PY' || return 1
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
at = data.find(b'page_owner 1 ')
for n in range(36):                       # every 6th "page " line spoilt in place: 6 of them
    at = data.find(b'\npage ', at + 1)
    if n % 6 == 0:
        data[at + 1:at + 6] = b'pXge '
open(sys.argv[2], 'wb').write(data)
PY
	"$KMTRACE" report -i "$PO_DAT" page --live --format json >"$WORK/po-good.json" &&
	"$KMTRACE" report -i "$WORK/po-bad.dat" page --live --format json >"$WORK/po-bad.json" &&
	python3 - "$WORK/po-good.json" "$WORK/po-bad.json" <<'PY'
import json, sys
s, t = (json.load(open(f))["analyses"]["page"]["summary"] for f in sys.argv[1:3])
assert t["before_unparsed"] == 6, t
assert t["before_listed_blocks"] == s["before_listed_blocks"] - 6, (s, t)
assert "before_unparsed" not in s, s
PY
}

pageowner_parsing_tests() {
	check "pageowner: the recorded page_owner snapshot recounted with trace-cmd report: pages before, freed, held equal; tables add up; callers past the allocator" \
		test_pageowner_recount
	check "pageowner: text and CSV (0600) carry the summary and the before tables; without --live the summary only" \
		test_pageowner_formats
	check "pageowner: no snapshot, nothing said; damaged lines counted, the rest read" \
		test_pageowner_absent_damaged
}
