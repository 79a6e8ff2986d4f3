#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every exported function and every inline function of the public header
# has a man page, and every page formats without
# a groff warning (.so links are followed, as man would).
#   manpages.sh TOP TMPDIR
set -u
top=$1 t=$2
fail=0

rm -rf "$t/man"
mkdir -p "$t/man/man3" "$t/man/man1"
cp "$top"/userspace/lib/man/*.3 "$t/man/man3/"
cp "$top/userspace/tools/tracebuf.1" "$t/man/man1/"

syms=$(sed -n '/global:/,/local:/p' "$top/userspace/lib/libtracebuf.map" |
	grep -oE '^[[:space:]]*[a-z_][a-z0-9_]*;' | tr -d ' \t;')
[ -n "$syms" ] || { echo "no symbols in libtracebuf.map"; exit 1; }
# The static inline API of the public header is documented too.
inline=$(grep -E '^static inline [^(]*[ *]tracebuf_[a-z0-9_]+\(' \
	"$top/userspace/lib/include/libtracebuf.h" |
	sed -E 's/^[^(]*[ *](tracebuf_[a-z0-9_]+)\(.*/\1/')
[ -n "$inline" ] || { echo "no inline functions in libtracebuf.h"; exit 1; }
syms="$syms $inline"
for s in $syms; do
	[ -f "$t/man/man3/$s.3" ] || { echo "no man page for $s"; fail=1; }
done

command -v groff >/dev/null || { echo "groff missing: install groff-base"; exit 1; }
cd "$t/man" || exit 1
for page in man3/*.3 man1/*.1; do
	grep -q "\\.SH NAME" "$page" || head -1 "$page" | grep -q '^\.so ' ||
		{ echo "$page: no NAME section"; fail=1; }
	out=$(groff -man -ww -z "$page" 2>&1)
	if [ -n "$out" ]; then
		echo "$page:"
		echo "$out"
		fail=1
	fi
done
exit $fail
