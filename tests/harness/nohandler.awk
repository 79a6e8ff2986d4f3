# SPDX-License-Identifier: GPL-2.0
# The ground truth (B and T lines of tests/guest/ptfollow.c or
# tests/unit/gtgen.c; S and R lines are dropped, so gtcheck compares branch
# for branch) with its first signal handler left out: the first far branch
# (kind 4) whose successor is neither 0 nor within 4 bytes after it (the
# system call at whose exit a handler ran), for which a later far branch
# of the same thread goes to within 4 bytes after it (the handler's
# rt_sigreturn, back to the interrupted IP), goes where that one went;
# the thread's branches in between, and that one, are gone. Exits 1 (and
# prints nothing) when the ground truth has no such handler.
#   awk -f nohandler.awk GT >MUTATED
function hex(s,    v, i) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
	return v
}
$1 == "S" || $1 == "R" { next }
{ line[++n] = $0; tid[n] = $2; kind[n] = $1 == "B" ? $5 : -1 }
$1 == "B" { from[n] = hex($3); to[n] = hex($4) }
END {
	for (i = 1; i <= n && !h; i++) {
		if (kind[i] != 4 || !to[i] || (to[i] > from[i] && to[i] <= from[i] + 4))
			continue
		for (k = i + 1; k <= n; k++)
			if (tid[k] == tid[i] && kind[k] == 4 && to[k] > from[i] && to[k] <= from[i] + 4) {
				h = i
				r = k
				break
			}
	}
	if (!h)
		exit 1
	for (i = 1; i <= n; i++) {
		if (i == h || (i > h && i < r && tid[i] == tid[h]))
			continue
		if (i == r) {
			split(line[h], f, " ")
			print f[1], f[2], f[3], split(line[r], g, " ") ? g[4] : "", f[5], f[6]
			continue
		}
		print line[i]
	}
}
