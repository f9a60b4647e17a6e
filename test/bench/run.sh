#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmarks: figures, never pass/fail. Wall-clock rates are noisy on this
# 2-core shared machine; instructions per operation from callgrind are the
# stable figure: run at two iteration counts and divide the difference, so
# start-up cost cancels out.
#   test/bench/run.sh BUILD_DIR
set -eu
build=${1:-build}
bin="$build/test/bench/bench_lo"
[ -x "$bin" ] || { echo "build $bin first (meson setup with -Dtests=enabled)" >&2; exit 1; }

for size in 8 4096 1048576; do
	"$bin" --iters 20000 --size "$size"
done

ir() { # iters what -> total instructions
	out=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --iters "$1" --only "$2" \
		>/dev/null 2>&1
	awk '/^summary:/ { print $2 }' "$out"
	rm -f "$out"
}
echo "callgrind:"
for what in put get memcpy; do
	a=$(ir 1000 "$what")
	b=$(ir 3000 "$what")
	per_op=$(( (b - a) / 2000 ))
	echo "    $what:"
	echo "        instructions_per_op: $per_op"
	# PUT+ACK and GET+REPLY are two LNet messages each.
	[ "$what" = memcpy ] || echo "        instructions_per_lnet_msg: $(( per_op / 2 ))"
done
