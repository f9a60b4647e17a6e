#!/bin/sh
# Runs every fuzz target for FUZZ_SECONDS over its seed corpus. A crash or a
# sanitizer report fails the run.
set -eu
build=${1:-build-fuzz}
secs=${FUZZ_SECONDS:-15}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for seeds in "$here"/corpus/*/; do
	name=$(basename "$seeds")
	bin=$(find "$build/test/fuzz" -type f -name "$name" | head -1)
	[ -n "$bin" ] && [ -x "$bin" ] || { echo "fuzz: $name not built" >&2; exit 1; }
	mkdir -p "$work/$name"
	echo "fuzz: $name for ${secs}s"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/$name-" "$work/$name" "$seeds" 2>"$work/$name.log" || {
		tail -50 "$work/$name.log" >&2
		echo "fuzz: $name FAILED" >&2
		exit 1
	}
	tail -1 "$work/$name.log"
	n=$((n + 1))
done
echo "fuzz: $n passed, 0 failed"
