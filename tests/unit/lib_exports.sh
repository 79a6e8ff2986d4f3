#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# libtracebuf.so exports exactly the reviewed public API (lib_exports.expected:
# "symbol NODE", each symbol in the version node that first had it: a
# release adds a node and never moves a symbol), the version nodes are
# exactly those, and the public header declares exactly that API too.
#   lib_exports.sh NM LIBTRACEBUF_SO HEADER EXPECTED TMPDIR
set -u
nm=$1 so=$2 header=$3 expected=$4 t=$5
fail=0

"$nm" -D --defined-only "$so" >"$t/nm.out" || exit 1
cat "$t/nm.out"

# "ADDR T name@@NODE" for functions, "0 A NODE" for the version node.
awk '$2 != "A" { n = $3; sub(/@.*/, "", n); v = $3; sub(/^[^@]*@@?/, "", v);
	print n, v }' "$t/nm.out" | LC_ALL=C sort >"$t/exported"
if ! diff -u "$expected" "$t/exported"; then
	echo "exported symbols or their version nodes differ from $expected"
	fail=1
fi
awk '$2 == "A" { print $3 }' "$t/nm.out" | LC_ALL=C sort >"$t/nodes"
awk '{ print $2 }' "$expected" | LC_ALL=C sort -u >"$t/nodes.expected"
if ! diff -u "$t/nodes.expected" "$t/nodes"; then
	echo "version nodes differ from those of $expected"
	fail=1
fi
if awk '$2 != "A" && $3 !~ /@@?TRACEBUF_/' "$t/nm.out" | grep .; then
	echo "unversioned exports (above)"
	fail=1
fi
if awk '$2 != "A" && $2 != "T"' "$t/nm.out" | grep .; then
	echo "exports that are not functions (above)"
	fail=1
fi

# Non-inline function declarations in the public header: one per line,
# starting at column 0 with the return type.
awk '{ print $1 }' "$expected" | LC_ALL=C sort >"$t/names.expected"
grep -E '^[a-z][^(]*[ *]tracebuf_[a-z0-9_]+\(' "$header" | grep -v '^static' |
	sed -E 's/^[^(]*[ *](tracebuf_[a-z0-9_]+)\(.*/\1/' | LC_ALL=C sort >"$t/declared"
if ! diff -u "$t/names.expected" "$t/declared"; then
	echo "functions declared in $header differ from $expected"
	fail=1
fi
exit $fail
