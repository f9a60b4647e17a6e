#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `./dev.sh run`, a newcomer's first command, builds what it starts and no
# test: its ninja command (read with DEV_DRY=1, which prints instead of
# running) names targets, one of them the program it starts, and nothing
# those targets are built from is under test/ (asked of this build
# directory's ninja, where the tests exist). Likewise `./dev.sh demo`.
#   dev_run_targets.sh BUILD_DIR SRC_DIR
set -u
build=$1 src=$2
. "$src/harness.sh"
top=$(cd "$src/../.." && pwd)

# cmd: dev.sh CMD's ninja targets on the first line of $work/CMD.targets, the program it starts on the second
dry() {
	(cd "$top" && DEV_DRY=1 sh ./dev.sh "$1") >"$work/$1.dry" 2>&1 || { cat "$work/$1.dry"; return 1; }
	sed -n 's/^ninja -C build\( \|$\)//p' "$work/$1.dry" >"$work/$1.targets"
	sed -n 's|^\./build/||p' "$work/$1.dry" >>"$work/$1.targets"
	[ "$(wc -l <"$work/$1.targets")" -eq 2 ] || { echo "no ninja line or no program:"; cat "$work/$1.dry"; return 1; }
}

names_targets() { # cmd: not a bare `ninja -C build`, which builds every test
	t=$(sed -n 1p "$work/$1.targets")
	[ -n "$t" ] || { echo "dev.sh $1 builds everything: $(grep '^ninja' "$work/$1.dry")"; return 1; }
}

builds_what_it_starts() { # cmd
	prog=$(sed -n 2p "$work/$1.targets")
	for t in $(sed -n 1p "$work/$1.targets"); do [ "$t" = "$prog" ] && return 0; done
	echo "dev.sh $1 starts $prog but builds $(sed -n 1p "$work/$1.targets")"
	return 1
}

no_test_inputs() { # cmd
	for t in $(sed -n 1p "$work/$1.targets"); do
		ninja -C "$build" -t query "$t" >/dev/null 2>&1 || { echo "no target $t in $build"; return 1; }
		ninja -C "$build" -t inputs "$t" >"$work/inputs" || return 1
		[ -s "$work/inputs" ] || { echo "$t: no inputs listed"; return 1; }
		if grep '^test/' "$work/inputs" | head -5 | grep .; then
			echo "... are built for $t"
			return 1
		fi
	done
}

for cmd in run demo; do
	check "dev.sh $cmd: its commands, dry" dry "$cmd"
	check "dev.sh $cmd: names its ninja targets" names_targets "$cmd"
	check "dev.sh $cmd: builds the program it starts" builds_what_it_starts "$cmd"
	check "dev.sh $cmd: builds nothing under test/" no_test_inputs "$cmd"
done
finish dev_run_targets
