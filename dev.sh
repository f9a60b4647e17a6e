#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The project's entry point on a Debian 12 machine (run as root, or with sudo).
#   ./dev.sh run    install packages, build, run the main job
#   ./dev.sh test   install packages, check the C format, build under ASan+UBSan,
#                   run every gating test
#   ./dev.sh format [--fix]   the C format check alone (usertools/check-format:
#                   .clang-format, clang-format 14); --fix rewrites what differs
#   ./dev.sh package   Debian packages (debian/, dpkg-buildpackage) into build-deb/,
#                      checked with lintian
#   ./dev.sh deps | build | demo | conformance | fuzz | bench
#   ./dev.sh soak [SECONDS]   not gating: routing.sh again and again (default 600 s),
#                             the routers' longest forward and any of 1 s or more
set -eu
cd "$(dirname "$0")"

# libibverbs-dev and librdmacm-dev: the o2ib LND's verbs code builds in every build.
# python3-prometheus-client: usertools/lnetd-exporter (Prometheus metrics).
PACKAGES="build-essential pkg-config meson ninja-build python3 \
dpdk dpdk-dev libdpdk-dev libnuma-dev libyaml-dev libpcap-dev libcmocka-dev zlib1g-dev libsystemd-dev \
libibverbs-dev librdmacm-dev rdma-core \
clang libclang-rt-14-dev valgrind python3-prometheus-client"
# What the gating tests drive: network namespaces, tcpdump, Wireshark's dissector,
# ping and arping (the IP stack against Linux),
# and the formatter the format check runs (Debian 12's is clang-format 14).
# net_veth_loss builds its cls_bpf program with the clang of PACKAGES
# (-target bpf; the UAPI headers come with build-essential's linux-libc-dev);
# net_scapy crafts frames against the stack with Debian's scapy.
TEST_PACKAGES="iproute2 tcpdump tshark clang-format iputils-ping iputils-arping python3-scapy"
# What `package` builds with: Debian's own tooling, and lintian to check the result.
PACKAGE_PACKAGES="debhelper dpkg-dev fakeroot lintian"

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

deps() {
	missing=""
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "installing:$missing"
	do_ as_root apt-get update -q
	do_ as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
}

setup() { # <dir> <meson options...>
	dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		do_ meson setup "$dir" "$@"
	fi
}

# What `run` and `demo` start, and all they build: a newcomer's first command
# does not compile the test suite. `build` (and `bench`, which runs programs
# under test/bench) builds the rest in the same build/ when asked.
RUN_TARGETS="apps/lnetd-pmd/lnetd-pmd apps/lnetctl/lnetctl"
DEMO_TARGETS="apps/lnet-demo/lnet-demo"

# DEV_DRY=1: print the commands that build or install instead of running them
# (test/integration/dev_run_targets.sh reads what `run` would build).
do_() {
	if [ -n "${DEV_DRY:-}" ]; then echo "$*"; else "$@"; fi
}

# Replace this shell with a program (DEV_DRY: print its command line).
start() {
	if [ -n "${DEV_DRY:-}" ]; then echo "$*"; exit 0; fi
	exec "$@"
}

build() { # [ninja targets; none: all]
	setup build -Db_lto=true # whole-program inlining across lib/rt, lib/lnet and the LNDs
	do_ ninja -C build "$@"
}

build_test() {
	setup build-test -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all -Dtests=enabled
	ninja -C build-test
}

# Debian packages from this tree, built in a copy of it under build-deb/src
# (dpkg-buildpackage writes the .debs beside the source tree: build-deb/),
# without the build directories of the other commands.
package() {
	rm -rf build-deb
	mkdir -p build-deb/src
	tar -c --exclude='./build*' --exclude=./.git --exclude='./obj-*' . |
		tar -x -C build-deb/src
	(cd build-deb/src && dpkg-buildpackage -us -uc -b)
	# Lintian's verdict, every tag it prints; its exit status fails on errors only.
	lintian --info --display-info build-deb/*.changes
}

build_fuzz() {
	CC=clang setup build-fuzz -Dfuzz=true -Dtests=enabled \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all"
	ninja -C build-fuzz
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

case "${1:-}" in
deps) deps ;;
build) deps; build ;;
run)
	deps; build $RUN_TARGETS
	# The main job: lnetd-pmd on its embedded default (Ctrl-C stops it).
	# In another shell: ./build/apps/lnetctl/lnetctl net show -v
	start ./build/apps/lnetd-pmd/lnetd-pmd
	;;
demo)
	deps; build $DEMO_TARGETS
	start ./build/apps/lnet-demo/lnet-demo
	;;
test)
	deps; PACKAGES="$TEST_PACKAGES" deps
	# First: a format slip fails in seconds, before the build.
	usertools/check-format
	build_test
	meson test -C build-test --suite unit --suite integration --print-errorlogs
	build_fuzz
	# sh has no pipefail: keep the fuzz run's own exit status.
	FUZZ_SECONDS="${FUZZ_SECONDS:-15}" test/fuzz/run.sh build-fuzz >build-fuzz/fuzz.log 2>&1 ||
		{ cat build-fuzz/fuzz.log; exit 1; }
	cat build-fuzz/fuzz.log
	# One closing line for the whole gating run (meson test stopped us on failure).
	log=build-test/meson-logs/testlog.json
	ok=$(grep -c '"result": "OK"' "$log" || true)
	bad=$(grep -c '"result": "\(FAIL\|ERROR\|TIMEOUT\)"' "$log" || true)
	fz=$(sed -n 's/^fuzz: \([0-9]*\) passed.*/\1/p' build-fuzz/fuzz.log)
	echo "gating: $((ok + fz)) passed, $bad failed"
	;;
format)
	PACKAGES=clang-format deps
	shift
	exec usertools/check-format "$@"
	;;
conformance)
	# Not gating: real kernel captures and Wireshark's LNet dissector as oracles,
	# and the Debian packages built (minutes) then run as the installed unit
	# (package_install), and the userspace TCP's fault test at full size
	# (net_tcp_fault_full: 64 connections x 1 GiB each way; hours).
	deps; PACKAGES="$TEST_PACKAGES" deps; PACKAGES="$PACKAGE_PACKAGES" deps; build_test
	package
	meson test -C build-test --suite conformance --print-errorlogs
	;;
fuzz)
	deps; build_fuzz
	FUZZ_SECONDS="${FUZZ_SECONDS:-60}" test/fuzz/run.sh build-fuzz
	;;
soak)
	# Not gating: routed traffic for a while, to catch a forward that hangs once in many runs.
	deps; PACKAGES="$TEST_PACKAGES" deps; build_test
	exec test/soak/routing_soak.sh build-test "${2:-${SOAK_SECONDS:-600}}"
	;;
package)
	deps; PACKAGES="$PACKAGE_PACKAGES" deps
	package
	;;
bench)
	deps; build
	shift
	exec ./usertools/lnet-bench --build build "$@"
	;;
*)
	echo "usage: $0 run|test|format|deps|build|demo|package|conformance|fuzz|bench|soak" >&2
	exit 2
	;;
esac
