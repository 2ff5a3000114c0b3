# kmtrace footprint: the static size of an image by directory, file and
# symbol. Sourced by tests/integration.sh (uses its KMTRACE, TOP, WORK,
# check). The image is a small program built here from a tree whose
# variables' sizes the test knows; tests/footprint_recount.py recounts
# everything from readelf, llvm-symbolizer and llvm-dwarfdump.

# A tree a/one.c, a/b/two.c, c/three.c, main.c built into $WORK/fp/prog
# (-g, from the tree's top: paths relative to it), and c/three.c alone as
# an object renamed mod/three.ko. a_nested() starts inside inner(),
# inlined into outer(), inlined into it: its file is a/one.c all the same.
build_footprint_tree() {
	local t=$WORK/fp
	[ -x "$t/prog" ] && return 0
	mkdir -p "$t/a/b" "$t/c" "$t/mod" || return 1
	cat >"$t/c/helpers.h" <<'EOF'
static inline __attribute__((always_inline)) int inner(int x) { return x * 3 + 1; }
static inline __attribute__((always_inline)) int outer(int x) { return inner(x) ^ 5; }
EOF
	cat >"$t/a/one.c" <<'EOF'
#include "../c/helpers.h"
int a_nested(int x) { return outer(x); }
char a_data[1000] = { 1 };
static char a_bss[3000];
const char a_ro[500] = { 1 };
char *a_touch(int i) { a_bss[i] = (char)i; return a_bss + a_ro[i] + a_data[i]; }
EOF
	cat >"$t/a/b/two.c" <<'EOF'
int b_data[100] = { 1 };
static char b_bss[7000];
char *b_touch(int i)
{
	static char b_local[123];

	b_local[i % 123] = (char)i;
	b_bss[i] = b_local[0];
	return b_bss + b_data[i % 100];
}
EOF
	cat >"$t/c/three.c" <<'EOF'
long c_data[64] = { 1 };
static long c_bss[512];
long c_sum(int n) { long s = 0; c_bss[n & 511] = n; for (int i = 0; i < n; i++) s += c_data[i] + c_bss[i]; return s; }
EOF
	cat >"$t/main.c" <<'EOF'
char *a_touch(int i);
char *b_touch(int i);
long c_sum(int n);
int a_nested(int x);
int main(int argc, char **argv) { (void)argv; return (int)(a_touch(argc) - b_touch(argc)) + (int)c_sum(argc) + a_nested(argc); }
EOF
	(cd "$t" && cc -g -O1 -fno-common -o prog main.c a/one.c a/b/two.c c/three.c &&
		cc -g -O1 -c -o mod/three.ko c/three.c)
}

fp_json() { "$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --top 0 --format json "$@"; }

# Totals, size(1)'s totals, and every directory's and file's bytes equal
# the recount at depths 1 and 2; the variables' known sizes are where
# their files are.
test_footprint_recount() {
	local d
	build_footprint_tree || return 1
	for d in 1 2; do
		fp_json --by-dir $d >"$WORK/fp$d.json" || return 1
		python3 "$TOP/tests/footprint_recount.py" "$WORK/fp/prog" "$WORK/fp$d.json" $d ||
			return 1
	done
	size "$WORK/fp/prog" | sed 's/^/  /'
	python3 - "$WORK/fp2.json" <<'PY'
import json, sys
fp = json.load(open(sys.argv[1]))['analyses']['footprint']
dirs = {r['dir']: r for r in fp['tables']['dirs']}
files = {r['file']: r for r in fp['tables']['files']}
syms = {r['symbol']: r for r in fp['tables']['symbols']}
want = {'a_data': ('data', 1000, 'a/one.c'), 'a_bss': ('bss', 3000, 'a/one.c'),
        'a_ro': ('rodata', 500, 'a/one.c'), 'b_data': ('data', 400, 'a/b/two.c'),
        'b_bss': ('bss', 7000, 'a/b/two.c'), 'b_local.0': ('bss', 123, 'a/b/two.c'),
        'c_data': ('data', 512, 'c/three.c'), 'c_bss': ('bss', 4096, 'c/three.c')}
assert syms['a_nested']['file'] == 'a/one.c', syms['a_nested']
for name, (cls, size, f) in want.items():
    s = syms[name]
    assert (s['class'], s['bytes'], s['file']) == (cls, size, f), (name, s)
assert (files['a/one.c']['data'], files['a/one.c']['bss'], files['a/one.c']['rodata']) == \
    (1000, 3000, 500), files['a/one.c']
assert (dirs['a/b/']['data'], dirs['a/b/']['bss']) == (400, 7123), dirs['a/b/']
assert dirs['a/']['text'] > 0 and dirs['c/']['bss'] == 4096, dirs
assert sum(r['total'] for r in dirs.values()) == fp['summary']['total']
print(f"  known variables where they belong; {len(dirs)} rows add up to "
      f"{fp['summary']['total']} bytes")
PY
}

# --branch keeps what is under it; --modules adds each .ko as a row with its
# sections' bytes (readelf's).
test_footprint_branch_modules() {
	local mod
	build_footprint_tree || return 1
	fp_json --by-dir 2 --branch a/b >"$WORK/fpb.json" || return 1
	mod=$(readelf -SW "$WORK/fp/mod/three.ko" | python3 -c '
import re, sys
t = {"text": 0, "rodata": 0, "data": 0, "bss": 0}
for m in re.finditer(r"\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+([A-Z]*)\s", sys.stdin.read()):
    name, typ, size, flags = m.group(1), m.group(2), int(m.group(3), 16), m.group(4)
    if "A" not in flags:
        continue
    c = "text" if "X" in flags else "rodata" if "W" not in flags or name.startswith(".rodata") \
        else "bss" if typ == "NOBITS" else "data"
    t[c] += size
print(",".join(str(t[c]) for c in ("text", "rodata", "data", "bss")))')
	fp_json --by-dir 1 --modules "$WORK/fp/mod" >"$WORK/fpm.json" || return 1
	# the same module as a debug-only file (sections without contents, as in
	# Debian's -dbg packages): data and bss told apart by name, the same row
	mkdir -p "$WORK/fp/dbgmod" &&
		objcopy --only-keep-debug "$WORK/fp/mod/three.ko" "$WORK/fp/dbgmod/three.ko" &&
		[ "$("$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --modules "$WORK/fp/dbgmod" \
			--format csv --table footprint.dirs | grep '^\[three\],')" = \
		  "$("$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --modules "$WORK/fp/mod" \
			--format csv --table footprint.dirs | grep '^\[three\],')" ] || return 1
	python3 - "$WORK/fpb.json" "$WORK/fpm.json" "$mod" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))['analyses']['footprint']
assert [r['dir'] for r in b['tables']['dirs']] == ['a/b/'], b['tables']['dirs']
assert all(r['file'].startswith('a/b/') for r in b['tables']['files']), b['tables']['files']
assert {r['symbol'] for r in b['tables']['symbols']} >= {'b_data', 'b_bss', 'b_touch'}
assert not any(r['symbol'].startswith(('a_', 'c_')) for r in b['tables']['symbols'])
m = json.load(open(sys.argv[2]))['analyses']['footprint']
row = {r['dir']: r for r in m['tables']['dirs']}['[three]']
want = [int(x) for x in sys.argv[3].split(',')]
assert [row[c] for c in ('text', 'rodata', 'data', 'bss')] == want, (row, want)
assert m['summary']['modules'] == 1 and want[2] >= 512 and want[3] >= 4096
print(f"  --branch a/b: 1 directory; module [three]: text/rodata/data/bss {want} as readelf "
      "says, and the same from its debug-only copy")
PY
}

# text, CSV (-o DIR), --table, HTML: the same dirs; files 0600, never replaced.
test_footprint_formats() {
	local out=$WORK/fpcsv
	build_footprint_tree || return 1
	rm -rf "$out" "$WORK/fp.html"
	"$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --by-dir 2 -H >"$WORK/fp.txt" || return 1
	grep -q '^Static footprint by source directory' "$WORK/fp.txt" &&
		grep -Eq '^  a/b/ +' "$WORK/fp.txt" || { cat "$WORK/fp.txt"; return 1; }
	mkdir "$out" && "$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --by-dir 2 \
		--format csv -o "$out" || return 1
	[ -s "$out/footprint-dirs.csv" ] && [ -s "$out/footprint-symbols.csv" ] &&
		[ "$(stat -c %a "$out/footprint-dirs.csv")" = 600 ] || { ls -l "$out"; return 1; }
	"$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --by-dir 2 --format csv \
		--table footprint.dirs >"$WORK/fpt.csv" || return 1
	cmp -s "$WORK/fpt.csv" "$out/footprint-dirs.csv" ||
		{ diff "$WORK/fpt.csv" "$out/footprint-dirs.csv"; return 1; }
	grep -q '^a/b/,' "$WORK/fpt.csv" || return 1
	"$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --html "$WORK/fp.html" 2>/dev/null &&
		[ "$(stat -c %a "$WORK/fp.html")" = 600 ] && grep -q '<svg' "$WORK/fp.html" &&
		grep -q 'a/' "$WORK/fp.html" || return 1
	! "$KMTRACE" footprint --vmlinux "$WORK/fp/prog" --html "$WORK/fp.html" 2>/dev/null
}

# A file that is not ELF, one cut short, a missing one, no --vmlinux, a
# bad depth: one line, exit 2.
test_footprint_refusals() {
	local rc
	build_footprint_tree || return 1
	head -c 9000 "$WORK/fp/prog" >"$WORK/fp-short"
	"$KMTRACE" footprint --vmlinux "$WORK/fp-short" >/dev/null 2>"$WORK/fpe.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$WORK/fpe.err")" = 1 ] &&
		grep -q "fp-short: offset [0-9]*: truncated" "$WORK/fpe.err" ||
		{ echo "  exit $rc"; cat "$WORK/fpe.err"; return 1; }
	printf 'not an image\n' >"$WORK/fp-not-elf"
	"$KMTRACE" footprint --vmlinux "$WORK/fp-not-elf" >/dev/null 2>"$WORK/fpe.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$WORK/fpe.err")" = 1 ] &&
		grep -q "fp-not-elf.*not an ELF file" "$WORK/fpe.err" || { cat "$WORK/fpe.err"; return 1; }
	"$KMTRACE" footprint --vmlinux "$WORK/fp-missing" >/dev/null 2>"$WORK/fpe.err"
	[ $? = 2 ] && grep -q "fp-missing.*No such file" "$WORK/fpe.err" || return 1
	"$KMTRACE" footprint >/dev/null 2>&1
	[ $? = 2 ] || return 1
	"$KMTRACE" footprint --vmlinux "$WORK/fp-not-elf" --by-dir 0 >/dev/null 2>"$WORK/fpe.err"
	[ $? = 2 ] && grep -q -- '--by-dir wants a depth' "$WORK/fpe.err"
}

# report slab --by-dir N --footprint IMAGE: per directory the image's static
# bytes (footprint's, which tests/footprint_recount.py recounts here too),
# and the slab dirs table's live and allocated bytes, their sum and waste;
# page the same in bytes; the HTML draws a sunburst per attribute.
test_footprint_static_dynamic() {
	local d img=$WORK/standin/vmlinux
	standin_built || return 1
	for d in 1 2; do
		"$KMTRACE" footprint --vmlinux "$img" --by-dir $d --top 0 --format json \
			>"$WORK/sfp$d.json" &&
		python3 "$TOP/tests/footprint_recount.py" "$img" "$WORK/sfp$d.json" $d &&
		"$KMTRACE" report -i "$WORK/standin/trace.txt" --vmlinux "$img" slab --caller \
			--by-dir $d --footprint "$img" --format json >"$WORK/sd$d.json" 2>/dev/null ||
			return 1
	done
	"$KMTRACE" report -i "$TRACES/stacks.dat" --kallsyms "$TRACES/stacks.kallsyms" page \
		--caller --by-dir 1 --footprint "$img" --format json >"$WORK/spage.json" 2>/dev/null ||
		return 1
	python3 - "$WORK" <<'PY' || return 1
import json, sys
w = sys.argv[1]
for d in (1, 2):
    fp = {r['dir']: r['total'] for r in
          json.load(open(f'{w}/sfp{d}.json'))['analyses']['footprint']['tables']['dirs']}
    slab = json.load(open(f'{w}/sd{d}.json'))['analyses']['slab']['tables']
    dyn = {r['dir']: r for r in slab['dirs']}
    rows = {r['dir']: r for r in slab['static']}
    assert set(rows) == set(fp) | set(dyn), (sorted(rows), sorted(fp), sorted(dyn))
    for name, r in rows.items():
        want = dyn.get(name, {})
        assert r['static'] == fp.get(name, 0), (d, name, r)
        assert r['live'] == want.get('live_bytes', 0), (d, name, r)
        assert r['dynamic'] == want.get('bytes_alloc', 0), (d, name, r)
        assert r['waste'] == want.get('bytes_alloc', 0) - want.get('bytes_req', 0), (d, name, r)
        assert r['static_live'] == r['static'] + r['live'], (d, name, r)
    print(f"  slab --by-dir {d}: {len(rows)} rows, static {sum(fp.values())} bytes, "
          f"live {sum(r['live'] for r in rows.values())}")
page = json.load(open(f'{w}/spage.json'))['analyses']['page']
size = page['summary']['page_size']
dyn = {r['dir']: r for r in page['tables']['callers']}
rows = {r['dir']: r for r in page['tables']['static']}
assert 'waste' not in next(iter(rows.values()))
for name, r in dyn.items():
    assert rows[name]['live'] == max(r['live_pages'], 0) * size, (name, r, rows[name])
    assert rows[name]['dynamic'] == r['pages'] * size, (name, r, rows[name])
print(f"  page --by-dir 1: {len(rows)} rows, pages as bytes of {size}")
PY
	"$KMTRACE" report -i "$WORK/standin/trace.txt" --vmlinux "$img" --html "$WORK/sd.html" \
		slab --caller --by-dir 2 --footprint "$img" 2>/dev/null || return 1
	python3 - "$WORK/sd.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
part = html[html.index('Static beside dynamic'):]
svg = part[:part.index('</svg>')]
titles = re.findall(r'text-anchor="middle">([a-z_]+)</text>', svg)
assert titles == ['static', 'live', 'static_live', 'dynamic', 'waste'], titles
assert svg.count('class="mark"') >= 10, svg.count('class="mark"')
print(f"  HTML: a sunburst each for {', '.join(titles)}")
PY
}

# --footprint: an image that is not ELF is refused naming it; without
# --by-dir there is no static table, and the remark says why.
test_footprint_static_refusals() {
	printf 'not an image\n' >"$WORK/fp-not-elf"
	"$KMTRACE" report -i "$TRACES/small.dat" slab --caller --by-dir 1 \
		--footprint "$WORK/fp-not-elf" >/dev/null 2>"$WORK/sfe.err"
	[ $? = 2 ] && [ "$(wc -l <"$WORK/sfe.err")" = 1 ] &&
		grep -q -- "--footprint .*fp-not-elf: offset 0: not an ELF file" "$WORK/sfe.err" ||
		{ cat "$WORK/sfe.err"; return 1; }
	build_footprint_tree || return 1
	"$KMTRACE" report -i "$TRACES/small.dat" slab --caller --footprint "$WORK/fp/prog" \
		--format json >"$WORK/sfe.json" 2>"$WORK/sfe.err" || return 1
	grep -q -- '--footprint sets static bytes beside a --by-dir table' "$WORK/sfe.err" &&
		! grep -q '"static"' "$WORK/sfe.json"
}

footprint_parsing_tests() {
	check "footprint: totals, size(1)'s, and every directory's and file's bytes equal readelf/llvm-symbolizer/llvm-dwarfdump's; known variables in their files" \
		test_footprint_recount
	check "footprint: --branch keeps its directory; --modules rows equal readelf's sections, also from a debug-only copy" \
		test_footprint_branch_modules
	check "footprint: text, CSV -o DIR, --table, HTML (0600, never replaced)" test_footprint_formats
	check "footprint: not ELF, cut short, missing, no --vmlinux, bad --by-dir: one line, exit 2" \
		test_footprint_refusals
	check "footprint: slab and page --by-dir --footprint: static, live, their sum, dynamic and waste per directory; a sunburst each" \
		test_footprint_static_dynamic
	check "footprint: --footprint of a file that is not ELF: one line, exit 2; without --by-dir: said, no table" \
		test_footprint_static_refusals
}
