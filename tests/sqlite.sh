# report --format sqlite: the recording's database. Sourced by
# tests/integration.sh (uses its KMTRACE, TOP, TRACES, WORK, check).
# tests/sql_recount.py counts the report's figures again with SQL over the
# event tables; sqlite3(1) and Python's sqlite3 module read the files.

# Every recording of traces/ that report reads without options.
sqlite_fixtures() {
	ls "$TRACES"/*.dat "$TRACES"/*.data "$TRACES"/*-trace.txt
}

# sqlite_of FILE DB [ANALYSIS...]: the database of FILE, quietly.
sqlite_of() {
	local f=$1 db=$2
	shift 2
	rm -f "$db"
	"$KMTRACE" report -i "$f" --format sqlite -o "$db" "$@" 2>"$WORK/sq.err" ||
		{ echo "  $f: $(cat "$WORK/sq.err")"; return 1; }
}

# On every fixture: slab callers, page orders, fault classes and vm calls
# recounted by SQL; each report table's copy; events equal stat's count.
test_sqlite_recount() {
	local f db=$WORK/rc.db
	for f in $(sqlite_fixtures); do
		sqlite_of "$f" "$db" stat slab page fault vm || return 1
		"$KMTRACE" report -i "$f" --format json stat slab page fault vm >"$WORK/rc.json" \
			2>/dev/null || return 1
		python3 "$TOP/tests/sql_recount.py" "$db" "$WORK/rc.json" >"$WORK/rc.out" ||
			{ echo "  $f:"; cat "$WORK/rc.out"; return 1; }
	done
}

# No analysis named: every analysis whose events are there, none other;
# meta, processes, event_types; the file 0600, "wrote" said.
test_sqlite_default() {
	local db=$WORK/all.db n
	sqlite_of "$TRACES/perf-small.data" "$db" || return 1
	[ "$(stat -c %a "$db")" = 600 ] && grep -q "wrote $db" "$WORK/sq.err" || return 1
	n=$(sqlite3 "$db" "SELECT group_concat(DISTINCT analysis) FROM report_tables")
	case ",$n," in *,stat,*slab,*page,*) ;; *) echo "  analyses: $n"; return 1 ;; esac
	case ",$n," in *,vm,*|*,fault,*) echo "  analyses without their events: $n"; return 1 ;; esac
	[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'events'")" = \
	  "$(sqlite3 "$db" "SELECT sum(count) FROM event_types")" ] || return 1
	[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'input_format'")" = perf.data ] ||
		return 1
	[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'kernel_release'")" = \
	  "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'uname'" | cut -d' ' -f3)" ] || return 1
	# every pid of the events has a row, with the name trace-cmd report gives
	[ "$(sqlite3 "$db" "SELECT count(*) FROM (SELECT DISTINCT pid FROM events)")" = \
	  "$(sqlite3 "$db" "SELECT count(*) FROM processes")" ]
}

# Stacks: each event's frames in the database, joined back, are the ones
# report events --format jsonl gives it.
test_sqlite_stacks() {
	local db=$WORK/st.db
	sqlite_of "$TRACES/stacks.dat" "$db" stat --kallsyms "$TRACES/stacks.kallsyms" || return 1
	"$KMTRACE" report -i "$TRACES/stacks.dat" --kallsyms "$TRACES/stacks.kallsyms" \
		--format jsonl events 2>/dev/null | python3 -c '
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = [(e["ts"], e["event"], "|".join(e["stack"])) for e in map(json.loads, sys.stdin)
        if e.get("stack")]
got = db.execute("""SELECT e.ts, e.event, (SELECT group_concat(frame, "|") FROM
    (SELECT frame FROM stacks s WHERE s.stack_id = e.stack_id ORDER BY depth))
    FROM events e WHERE e.stack_id IS NOT NULL""").fetchall()
if not want or sorted(want) != sorted(got):
    print("  %d stacks in jsonl, %d in the database" % (len(want), len(got)))
    sys.exit(1)
n = db.execute("SELECT count(DISTINCT stack_id) FROM stacks").fetchone()[0]
print("  %d events with stacks, %d distinct" % (len(got), n))
' "$db"
}

# The example queries of docs/kmtrace-sql.md, each on a fixture's database: they run and give rows.
test_sqlite_doc_queries() {
	local db=$WORK/doc.db q n=0
	sqlite_of "$TRACES/fault.dat" "$WORK/fault.db" || return 1
	sqlite_of "$TRACES/stacks.dat" "$db" --kallsyms "$TRACES/stacks.kallsyms" || return 1
	python3 - "$TOP/docs/kmtrace-sql.md" "$WORK/q" <<'EOF' || return 1
import re, sys
text = open(sys.argv[1]).read()
for i, q in enumerate(re.findall(r'```sql\n(.*?)```', text, re.S)):
    open('%s.%02d.sql' % (sys.argv[2], i), 'w').write(q)
EOF
	for q in "$WORK"/q.*.sql; do
		n=$((n + 1))
		case $(head -1 "$q") in *fault.dat*) d=$WORK/fault.db ;; *) d=$db ;; esac
		[ -n "$(sqlite3 "$d" <"$q" 2>"$WORK/q.err")" ] && [ ! -s "$WORK/q.err" ] ||
			{ echo "  $q: no rows or an error: $(cat "$WORK/q.err")"; cat "$q"; return 1; }
	done
	[ $n -ge 4 ] || { echo "  only $n queries in docs/kmtrace-sql.md"; return 1; }
}

# expect_db_refused WHAT PATTERN ARGS...: one line naming PATTERN, exit 2,
# no database and no hidden file of ours left in $WORK/out.
expect_db_refused() {
	local what=$1 pat=$2 rc
	shift 2
	"$KMTRACE" report "$@" >"$WORK/ref.out" 2>"$WORK/ref.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$WORK/ref.err")" -eq 1 ] && grep -q -- "$pat" "$WORK/ref.err" &&
	[ -z "$(ls -A "$WORK/out" 2>/dev/null | grep -v '^keep$')" ] ||
		{ echo "  $what: rc=$rc $(cat "$WORK/ref.err"); left: $(ls -A "$WORK/out")"; return 1; }
}

test_sqlite_refusals() {
	local f=$TRACES/small.dat
	rm -rf "$WORK/out" && mkdir "$WORK/out" && echo x >"$WORK/out/keep" || return 1
	expect_db_refused "existing file" "out/keep: already there" \
		-i "$f" --format sqlite -o "$WORK/out/keep" || return 1
	[ "$(cat "$WORK/out/keep")" = x ] || return 1
	expect_db_refused "no -o" "needs -o FILE" -i "$f" --format sqlite || return 1
	expect_db_refused "--table" "needs -o FILE" -i "$f" --format sqlite -o "$WORK/out/t.db" \
		--table stat.events || return 1
	expect_db_refused "missing directory" "out/none/x.db: cannot create the database" \
		-i "$f" --format sqlite -o "$WORK/out/none/x.db" || return 1
	head -c 300000 "$f" >"$WORK/cut.dat"
	expect_db_refused "input cut short" "cut.dat: offset" \
		-i "$WORK/cut.dat" --format sqlite -o "$WORK/out/c.db"
}

# A full disk while writing: a small tmpfs (as root; a file size limit
# otherwise, which the write meets as EFBIG), full during the replay (128
# KiB) or near its end (400 KiB of the 460 it needs). One line naming the
# database, exit 2, nothing left.
test_sqlite_full_disk() {
	local d=$WORK/out/full rc size left tmpfs=0 why=full
	[ "$(id -u)" = 0 ] && [ -z "${KMT_TEST_NO_MOUNT:-}" ] && tmpfs=1
	for size in 128 400; do
		rm -rf "$WORK/out" && mkdir -p "$d" || return 1
		if [ $tmpfs = 1 ]; then
			mount -t tmpfs -o size=${size}k kmtrace-test-full "$d" ||
				{ echo "  cannot mount a tmpfs"; return 1; }
		fi
		(
			[ $tmpfs = 1 ] || { trap '' XFSZ; ulimit -f $size; }
			exec "$KMTRACE" report -i "$TRACES/stacks.dat" --kallsyms \
				"$TRACES/stacks.kallsyms" --format sqlite -o "$d/x.db"
		) >/dev/null 2>"$WORK/full.err"
		rc=$?
		left=$(ls -A "$d")
		[ $tmpfs = 0 ] || umount "$d" || return 1
		[ $tmpfs = 1 ] || why="I/O error"
		[ $rc -eq 2 ] && [ "$(wc -l <"$WORK/full.err")" -eq 1 ] &&
		grep -q "full/x.db: .*$why" "$WORK/full.err" && [ -z "$left" ] ||
			{ echo "  ${size}k: rc=$rc $(cat "$WORK/full.err"); left: $left"; return 1; }
	done
}

# Live: a recording of kmem and every syscall event; each event's rows in
# the database, per event, are trace-cmd report's count of it.
test_sqlite_live_tracecmd() {
	local f=$WORK/sys.dat db=$WORK/sys.db
	"$KMTRACE" record -e syscalls -e kmem -o "$f" -- sh -c 'ls -R /usr/share/doc >/dev/null' \
		>/dev/null 2>&1 || return 1
	sqlite_of "$f" "$db" stat || return 1
	[ "$(sqlite3 -separator ' ' "$db" \
		"SELECT substr(event, instr(event, ':') + 1), count FROM event_types" | LC_ALL=C sort)" = \
	  "$(tc_counts "$f")" ] || { echo "  per event counts differ from trace-cmd report's"; return 1; }
	[ "$(sqlite3 "$db" "SELECT count(*) FROM events")" = \
	  "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'events'")" ] &&
	[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'boot_id'")" = \
	  "$(cat /proc/sys/kernel/random/boot_id)" ] &&
	[ "$(sqlite3 "$db" "SELECT count(*) FROM event_types")" -gt 20 ]
}

sqlite_parsing_tests() {
	check "sqlite: on every fixture SQL over the events gives the report's slab callers, page orders, fault classes and vm calls; every table copied" \
		test_sqlite_recount
	check "sqlite: by default the analyses whose events are there; meta, processes, event_types; 0600" \
		test_sqlite_default
	check "sqlite: each event's stack frames equal report events' (jsonl)" test_sqlite_stacks
	check "sqlite: docs/kmtrace-sql.md's example queries run and give rows" test_sqlite_doc_queries
	check "sqlite: an existing file, no -o, a missing directory, bad input: one line, exit 2, nothing left" \
		test_sqlite_refusals
	check "sqlite: a full disk while writing: one line, exit 2, nothing left" test_sqlite_full_disk
}

sqlite_live_tests() {
	live "sqlite: a recording of kmem and every syscall event: rows per event equal trace-cmd report's; this boot's id" \
		test_sqlite_live_tracecmd
}
