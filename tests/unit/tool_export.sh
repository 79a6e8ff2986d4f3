#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf export --opencsd' on the synthetic CoreSight capture of
# 'capgen --coresight': the segments file exactly, the snapshot directories
# (their trace bytes, and OpenCSD's trc_pkt_lister decoding each without
# an error when it is installed), re-export, and the errors.
#   tool_export.sh TRACEBUF CAPGEN TMPDIR
set -u
tool=$1 capgen=$2 t=$3
fail=0
no() { echo "not ok: $*"; fail=1; }

run() { # WANT_STATUS ARGS...
	want=$1
	shift
	"$tool" "$@" >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = "$want" ] || no "tracebuf $*: exit $got, expected $want ($(head -c 300 "$t/err"))"
}

err_has() { grep -qF -- "$1" "$t/err" || { no "no '$1' on stderr:"; cat "$t/err"; }; }

rm -rf "$t"/cs "$t"/pt "$t"/x* "$t"/bad "$t"/lister
mkdir -p "$t/lister"
"$capgen" --coresight "$t/cs" || { echo "capgen --coresight failed"; exit 1; }
"$capgen" "$t/pt" || { echo "capgen failed"; exit 1; }

# Usage.
run 2 export
err_has "missing the output format (--opencsd OUTDIR or --perfetto OUT.json)"
run 2 export "$t/cs"
run 2 export --opencsd "$t/x"
err_has "missing capture directory"
run 2 export --opencsd "$t/x" "$t/cs" extra
err_has "unexpected argument 'extra'"
run 2 export --bogus
err_has "unknown option '--bogus'"
run 2 export --opencsd
err_has "missing argument for option '--opencsd'"
run 2 export --opencsd= "$t/cs"
err_has "empty output directory"
# The old order (capture first) is refused before anything is read.
run 2 export --opencsd "$t/cs" "$t/x"
err_has "$t/cs holds a capture (meta.json): the output directory comes first"
[ -e "$t/x" ] && no "export created $t/x for a usage error"
run 0 export --help
grep -qF "Usage: tracebuf export --opencsd OUTDIR CAPTURE" "$t/out" || no "export --help"

# The export.
run 0 export --opencsd "$t/x" "$t/cs"
# (", 0 memory images" when built with elfutils: the capture has no sideband.)
grep -qxE "$t/x: 8 segments, 7 snapshot directories \(trc_pkt_lister -ss_dir $t/x/segNNN -decode\)(, 0 memory images)?" \
	"$t/out" || { no "summary line:"; cat "$t/out"; }
[ -s "$t/err" ] && { no "export wrote to stderr:"; cat "$t/err"; }
cat >"$t/segments.want" <<'EOF'
segment index=0 dir=seg000 offset=0x0 size=8192 break=start lost=0 atleast=0 ids=0x10,0x11
segment index=1 dir=seg001 offset=0x2000 size=4096 break=truncated lost=8192 atleast=1 ids=0x10,0x11
segment index=2 dir=seg002 offset=0x3000 size=1024 break=config lost=0 atleast=0 ids=0x10,0x11
segment index=3 dir=seg003 offset=0x3400 size=1024 break=restart lost=0 atleast=0 ids=0x10,0x11
segment index=4 dir=seg004 offset=0x3800 size=512 break=gap lost=2048 atleast=0 ids=0x10,0x11
segment index=5 dir=- offset=0x3a00 size=0 break=truncated lost=0 atleast=0 ids=0x10,0x11
segment index=6 dir=seg006 offset=0x3a00 size=256 break=config lost=0 atleast=0 ids=0x11,0x12
segment index=7 dir=seg007 offset=0x3b00 size=1024 break=start lost=0 atleast=0 ids=0x20
EOF
diff -u "$t/segments.want" "$t/x/segments" || no "segments differ"
[ -e "$t/x/seg005" ] && no "a directory for the empty segment 5"
[ -e "$t/x/segments.tmp" ] && no "segments.tmp left behind"

# Each directory: the segment's bytes of cpuN.aux, and the ETMs in effect.
# The capture's AUX stream is cpu0.aux (15104 bytes), then cpu2.aux.
while read -r _ idx dir off size _ _ _ ids; do
	dir=${dir#dir=} off=$((${off#offset=})) size=${size#size=} ids=${ids#ids=}
	[ "$dir" = - ] && continue
	d=$t/x/$dir
	for f in snapshot.ini trace.ini cstrace.bin; do
		[ -f "$d/$f" ] || no "$dir: no $f"
	done
	if [ "$off" -ge 15104 ]; then
		file=$t/cs/cpu2.aux off=$((off - 15104))
	else
		file=$t/cs/cpu0.aux
	fi
	dd if="$file" bs=1 skip="$off" count="$size" 2>/dev/null | cmp -s - "$d/cstrace.bin" ||
		no "$dir: cstrace.bin is not bytes $off+$size of $file"
	n=0
	for id in $(echo "$ids" | tr , ' '); do
		grep -qx "TRCTRACEIDR(0x040)=0x000000${id#0x}" "$d"/device_*.ini ||
			no "$dir: no ETM with trace ID $id"
		n=$((n + 1))
	done
	[ "$(ls "$d" | grep -c '^device_')" = $n ] || no "$dir: not $n ETMs"
	[ "$(ls "$d" | grep -c '^cpu_')" = $n ] || no "$dir: not $n cores"
done <"$t/x/segments"
# Segment 2: CPU 1's new TRCCONFIGR; segment 1 still has the old one.
grep -qx "TRCCONFIGR(0x010)=0x00000011" "$t/x/seg002/device_1.ini" || no "seg002: CPU 1 TRCCONFIGR"
grep -qx "TRCCONFIGR(0x010)=0x00000001" "$t/x/seg001/device_1.ini" || no "seg001: CPU 1 TRCCONFIGR"
grep -qx "name=ETM_1" "$t/x/seg002/device_1.ini" || no "seg002: device_1 is not CPU 1's ETM"

# OpenCSD decodes every snapshot: each trace ID synchronises, no error.
if command -v trc_pkt_lister >/dev/null; then
	while read -r _ _ dir _ size _ _ _ ids; do
		dir=${dir#dir=} size=${size#size=} ids=${ids#ids=}
		[ "$dir" = - ] && continue
		log=$t/lister/$dir.log
		# It writes trc_pkt_lister.ppl into the current directory unless -logstdout.
		(cd "$t/lister" && trc_pkt_lister -ss_dir "$t/x/$dir" -decode -logstdout) >"$log" 2>&1 ||
			no "$dir: trc_pkt_lister exit $?"
		grep -qF "Trace buffer done, processed $size bytes." "$log" ||
			{ no "$dir: not all $size bytes processed:"; cat "$log"; }
		if grep -iE 'ocsd_err|bad-packet|i_reserved|i_bad|error' "$log"; then
			no "$dir: trc_pkt_lister reported errors (above)"
		fi
		for id in $(echo "$ids" | tr , ' '); do
			h=${id#0x}
			grep -qF "Protocol printer ETMV4I on Trace ID $id" "$log" ||
				no "$dir: no ETMv4 decoder for $id"
			grep -qE "ID:$h; \[0x00( 0x00){10} 0x80 \];	I_ASYNC" "$log" ||
				no "$dir: no A-sync for $id"
		done
	done <"$t/x/segments"
else
	echo "trc_pkt_lister not installed (Debian: libopencsd-bin): snapshots not decoded"
fi

# Again into the same directory: the previous export is replaced.
mkdir "$t/x/seg999"
: >"$t/x/seg999/trace.ini"
run 0 export --opencsd "$t/x" "$t/cs"
diff -u "$t/segments.want" "$t/x/segments" || no "segments differ after re-export"
[ -e "$t/x/seg999" ] && no "re-export left seg999"
# Anything else in it: refused, nothing removed.
: >"$t/x/seg000/notes.txt"
run 1 export --opencsd "$t/x" "$t/cs"
err_has "$t/x is not empty and not a previous export (seg000/notes.txt): not writing into it"
[ -f "$t/x/segments" ] || no "a refused export removed segments"
mkdir -p "$t/x2"
: >"$t/x2/README"
run 1 export --opencsd "$t/x2" "$t/cs"
err_has "$t/x2 is not empty and not a previous export (README)"
run 1 export --opencsd "$t/nodir/x" "$t/cs"
err_has "cannot create $t/nodir/x: No such file or directory"

# Snapshot mode: every span is a segment of its own, aux_offset jumps are
# not gaps.
mkdir "$t/xs"
cp "$t/cs"/cpu* "$t/xs"
sed 's/"snapshot": false/"snapshot": true/' "$t/cs/meta.json" >"$t/xs/meta.json"
run 0 export --opencsd "$t/xs/out" "$t/xs"
cat >"$t/want" <<'EOF'
segment index=0 dir=seg000 offset=0x0 size=4096 break=start lost=0 atleast=0 ids=0x10,0x11
segment index=1 dir=seg001 offset=0x1000 size=4096 break=overwrite lost=0 atleast=0 ids=0x10,0x11
segment index=2 dir=seg002 offset=0x2000 size=2048 break=truncated lost=8192 atleast=1 ids=0x10,0x11
segment index=3 dir=seg003 offset=0x2800 size=2048 break=overwrite lost=0 atleast=0 ids=0x10,0x11
segment index=4 dir=seg004 offset=0x3000 size=1024 break=config lost=0 atleast=0 ids=0x10,0x11
segment index=5 dir=seg005 offset=0x3400 size=1024 break=restart lost=0 atleast=0 ids=0x10,0x11
segment index=6 dir=seg006 offset=0x3800 size=512 break=overwrite lost=0 atleast=0 ids=0x10,0x11
segment index=7 dir=- offset=0x3a00 size=0 break=truncated lost=0 atleast=0 ids=0x10,0x11
segment index=8 dir=seg008 offset=0x3a00 size=256 break=config lost=0 atleast=0 ids=0x11,0x12
segment index=9 dir=seg009 offset=0x3b00 size=1024 break=start lost=0 atleast=0 ids=0x20
EOF
diff -u "$t/want" "$t/xs/out/segments" || no "snapshot-mode segments differ"

# No meta.json: not a capture.
rm "$t/xs/meta.json"
run 1 export --opencsd "$t/x3" "$t/xs"
err_has "meta.json: No such file or directory (every capture has one)"
[ -e "$t/x3" ] && no "export created $t/x3 without meta.json"

# Errors: not CoreSight, missing, no ETM record, no AUX data.
run 1 export --opencsd "$t/x4" "$t/pt"
err_has "tracebuf: export --opencsd: the capture has no CoreSight trace (backend intel_pt)"
[ -e "$t/x4" ] && no "export created $t/x4 for an Intel PT capture"
run 1 export --opencsd "$t/x4" "$t/nonexistent"
err_has "tracebuf: export: $t/nonexistent: No such file or directory"
mkdir "$t/bad"
cp "$t/pt"/cpu* "$t/bad"
sed 's/"intel_pt"/"coresight"/' "$t/pt/meta.json" >"$t/bad/meta.json"
run 1 export --opencsd "$t/x4" "$t/bad"
err_has "tracebuf: export: $t/bad: no ETM record: not a CoreSight capture"
rm -f "$t/bad"/*
head -c 104 "$t/cs/cpu2.data" >"$t/bad/cpu2.data"	# the ETM record only
: >"$t/bad/cpu2.aux"
sed -e 's/"cpus": \[0, 2\]/"cpus": [2]/' -e 's/"aux_bytes": 1024, "aux_spans": 1,/"aux_bytes": 0, "aux_spans": 0,/' \
	-e 's/"records": 2, "records_lost": 0, "data_bytes": 152,/"records": 1, "records_lost": 0, "data_bytes": 104,/' \
	-e 's/"lost": true/"lost": false/' "$t/cs/meta.json" >"$t/bad/meta.json"
run 1 export --opencsd "$t/x4" "$t/bad"
err_has "tracebuf: export: $t/bad: no AUX data: nothing to export"
[ -e "$t/x4" ] && no "export created $t/x4 with nothing to export"
sed 's/"cpus": \[0, 2\]/"cpus": [0, 5]/' "$t/cs/meta.json" >"$t/bad/meta.json"
run 1 export --opencsd "$t/x4" "$t/bad"
err_has "$t/bad: cpu0.data: No such file or directory"
err_has "$t/bad: cpu2.data is not in meta.json's \"cpus\""

# A damaged capture is refused, every problem named, nothing written.
rm -rf "$t/bad" "$t/x4"
cp -r "$t/cs" "$t/bad"
printf 'xxxx' >>"$t/bad/cpu2.data"
run 1 export --opencsd "$t/x4" "$t/bad"
err_has "$t/bad: cpu2.data: a truncated record header at byte offset 152 of 156"
err_has "$t/bad: the capture does not add up (1 problem above): not exported"
[ -e "$t/x4" ] && no "export created $t/x4 from a damaged capture"
cp "$t/cs/cpu2.data" "$t/bad/cpu2.data"
head -c 12288 "$t/cs/cpu0.aux" >"$t/bad/cpu0.aux"
run 1 export --opencsd "$t/x4" "$t/bad"
err_has "$t/bad: cpu0.aux has 12288 bytes, the AUX records of cpu0.data describe 15104"
[ -e "$t/x4" ] && no "export created $t/x4 from a short cpu0.aux"
# An interrupted recording: exported, exit 1 with the reason.
cp "$t/cs/cpu0.aux" "$t/bad/cpu0.aux"
sed 's/"complete": true/"complete": false/' "$t/cs/meta.json" >"$t/bad/meta.json"
run 1 export --opencsd "$t/x4" "$t/bad"
err_has "the capture is incomplete"
diff -u "$t/segments.want" "$t/x4/segments" || no "segments of an incomplete capture differ"
exit $fail
