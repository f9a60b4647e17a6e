#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Install the build into a scratch root and check the package an application
# sees, then compile installed_client.c against it with nothing but
# `pkg-config --cflags --libs liblnet` (-Wall -Wextra -Werror), and run it.
#   installed_api.sh BUILD_DIR SRC_DIR SANITIZE COMPILER [DRIVER_SDK]
# Checks:
#   cflags  no DPDK in `pkg-config --cflags` (no -march, no -include
#           rte_config.h, no DPDK include dir) nor in `--libs`; `--static
#           --libs` names every library liblnet.so is linked with
#   symbols `nm -D --defined-only liblnet.so` is exactly expected/liblnet.symbols
#           (plus lib/version_sdk.map with the driver SDK), and exactly what
#           the installed headers declare LNP_API
#   headers each application header compiles alone; none includes the driver
#           SDK, nor offers the unit tests' virtual clock (LNET_EXEC_INLINE);
#           the SDK is installed only under include/lnet/sdk, only with
#           -Denable_driver_sdk=true (then a minimal LND builds and registers
#           against liblnet-sdk.pc)
#   client  installed_client.c (Lustre 2.17 names) builds with -Werror and runs,
#           linked with `pkg-config --libs` and with `pkg-config --static --libs`
set -eu
build=$1 src=$2 sanitize=$3 compiler=$4 sdk=${5:-false}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
failures=0
fail() {
	echo "installed_api: $*" >&2
	failures=$((failures + 1))
}

meson install -C "$build" --destdir "$root" --no-rebuild --quiet >/dev/null
pcdir=$(dirname "$(find "$root" -name liblnet.pc | head -n 1)")
[ -f "$pcdir/liblnet.pc" ] || { echo "liblnet.pc was not installed" >&2; exit 1; }
lib=$(find "$root" -name 'liblnet.so' | head -n 1)
libdir=$(dirname "$lib")
inc=$(dirname "$(find "$root" -path '*/include/lnet/api.h' | head -n 1)")
test -f "$inc/api.h" || { echo "lnet/api.h was not installed" >&2; exit 1; }

# Point the installed .pc files at the scratch root.
prefix=$(sed -n 's/^prefix=//p' "$pcdir/liblnet.pc")
mkdir -p "$root/pc"
for pc in "$pcdir"/liblnet*.pc; do
	sed "s|^prefix=.*|prefix=$root$prefix|" "$pc" >"$root/pc/$(basename "$pc")"
done
export PKG_CONFIG_PATH="$root/pc"
extra=""
if [ "$sanitize" != "none" ]; then
	extra="-fsanitize=$sanitize"
fi

# ---- cflags: DPDK stays private ----
cflags=$(pkg-config --cflags liblnet)
scflags=$(pkg-config --static --cflags liblnet)
dpdk_inc=$(pkg-config --variable=includedir libdpdk 2>/dev/null || echo /usr/include/dpdk)
for f in "$cflags" "$scflags"; do
	case " $f " in *-march*) fail "cflags carry -march: $f" ;; esac
	case " $f " in *rte_config.h*) fail "cflags carry -include rte_config.h: $f" ;; esac
	case " $f " in *"$dpdk_inc"* | *dpdk*) fail "cflags carry a DPDK include dir: $f" ;; esac
done
libs=$(pkg-config --libs liblnet)
case " $libs " in
*rte_* | *dpdk*) fail "--libs carries DPDK: $libs" ;;
esac
[ -z "$(pkg-config --print-requires liblnet)" ] ||
	fail "liblnet.pc Requires: $(pkg-config --print-requires liblnet)"
[ -z "$(pkg-config --print-requires-private liblnet)" ] ||
	fail "liblnet.pc Requires.private (its Cflags would reach applications):" \
		"$(pkg-config --print-requires-private liblnet)"
# A static link line names everything liblnet.so needs (but libc and the
# sanitizer runtimes, which the compiler driver adds).
slibs=" $(pkg-config --static --libs liblnet) "
for n in $(readelf -d "$lib" | sed -n 's/.*Shared library: \[lib\([^.]*\)\.so.*/\1/p'); do
	case $n in c | asan | ubsan | m | gcc_s) continue ;; esac
	case $slibs in *" -l$n "*) ;; *) fail "--static --libs lacks -l$n:$slibs" ;; esac
done

# ---- symbols: the public API and nothing else ----
exported() { # the defined dynamic symbols, unversioned, sorted
	nm -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort
}
map_names() { # the global names of version map files
	sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$@" | LC_ALL=C sort
}
exported "$lib" >"$root/exported"
cp "$src/expected/liblnet.symbols" "$root/expected"
if [ "$sdk" = true ]; then
	map_names "$src/../../lib/version_sdk.map" >>"$root/expected"
fi
LC_ALL=C sort -o "$root/expected" "$root/expected"
diff -u "$root/expected" "$root/exported" >"$root/diff" ||
	fail "liblnet.so exports (+) or lacks (-) symbols against expected/liblnet.symbols:
$(cat "$root/diff")"
map_names "$src/../../lib/version.map" | diff -u "$src/expected/liblnet.symbols" - >"$root/diff" ||
	fail "lib/version.map and expected/liblnet.symbols differ:
$(cat "$root/diff")"
# What the installed headers declare LNP_API is what the library exports:
# a declaration nobody can link, or an export nobody declares, fails.
find "$inc" -name '*.h' -exec grep -h '^LNP_API' {} + |
	sed 's/(.*//; s/.*[ *]//' | LC_ALL=C sort >"$root/declared"
diff -u "$root/declared" "$root/exported" >"$root/diff" ||
	fail "installed headers declare (-) or liblnet.so exports (+) beyond the other:
$(cat "$root/diff")"

# ---- headers: the application headers stand alone, the SDK apart ----
sdk_names="lnet_lnd.h lnet_ctl.h lnet_wire.h lnet_idl.h rt.h"
for h in "$inc"/*.h; do
	b=$(basename "$h")
	case " $sdk_names " in *" $b "*) fail "driver SDK header $b installed with the application headers" ;; esac
	for s in $sdk_names; do
		if grep -q "#include [\"<]\(lnet/\)\?\(sdk/\)\?${s}[\">]" "$h"; then
			fail "application header $b includes the driver SDK header $s"
		fi
	done
	# shellcheck disable=SC2086
	printf '#include <lnet/%s>\n' "$b" | $compiler -std=gnu11 -Wall -Wextra -Werror \
		-fsyntax-only -x c - $cflags || fail "<lnet/$b> does not compile on its own"
done
# The virtual clock is the unit tests' (lib/lnet/lnet_sim.h), not an application's mode.
if grep -rq 'LNET_EXEC_INLINE' "$inc"; then
	fail "the installed headers offer LNET_EXEC_INLINE, the unit tests' virtual clock"
fi
[ ! -e "$inc/lnet_sim.h" ] || fail "the unit tests' lnet_sim.h is installed"
if [ "$sdk" = true ]; then
	[ -f "$inc/sdk/lnet_lnd.h" ] || fail "driver SDK enabled but lnet/sdk/lnet_lnd.h not installed"
	# A minimal out-of-tree LND: its constructor registers it through liblnet.so.
	cat >"$root/lnd.c" <<-'EOF'
	#include <lnet_lnd.h>
	#include <rt.h>
	static int lnd_startup(struct lnet_ni *ni) { (void)ni; return 0; }
	static void lnd_shutdown(struct lnet_ni *ni) { (void)ni; }
	static int lnd_send(struct lnet_ni *ni, struct lnet_msg *msg) { (void)ni; lnet_finalize(msg, 0); return 0; }
	static int lnd_recv(struct lnet_ni *ni, void *p, struct lnet_msg *msg, unsigned int niov,
			    const struct iovec *iov, unsigned int off, unsigned int mlen, unsigned int rlen)
	{ (void)ni; (void)p; (void)niov; (void)iov; (void)off; (void)mlen; (void)rlen; lnet_finalize(msg, 0); return 0; }
	static const struct lnet_lnd_ops sdk_lnd = { .name = "efa", .type = LNET_LND_EFA,
		.startup = lnd_startup, .shutdown = lnd_shutdown, .send = lnd_send, .recv = lnd_recv };
	LNET_LND_REGISTER(sdk_lnd)
	int main(void) { return lnet_lnd_find(LNET_LND_EFA) == &sdk_lnd ? 0 : 1; }
	EOF
	# shellcheck disable=SC2046,SC2086
	if ! $compiler -std=gnu11 -Wall -Wextra -Werror $extra -o "$root/lnd" "$root/lnd.c" \
		$(pkg-config --cflags --libs liblnet-sdk); then
		fail "an LND does not build with liblnet-sdk.pc"
	elif ! LD_LIBRARY_PATH="$libdir" "$root/lnd"; then
		fail "an LND built with liblnet-sdk.pc did not register"
	fi
else
	[ ! -e "$inc/sdk" ] || fail "include/lnet/sdk installed without -Denable_driver_sdk=true"
fi

# ---- client: Lustre 2.17's names, -Werror, dynamic and --static link lines ----
# shellcheck disable=SC2086
$compiler -std=gnu11 -Wall -Wextra -Werror $extra -o "$root/client" \
	"$src/installed_client.c" $cflags $libs || fail "installed_client.c does not build"
LD_LIBRARY_PATH="$libdir" "$root/client" || fail "installed_client failed"
# shellcheck disable=SC2046,SC2086
$compiler -std=gnu11 -Wall -Wextra -Werror $extra -o "$root/client_static" \
	"$src/installed_client.c" $(pkg-config --static --cflags --libs liblnet) ||
	fail "installed_client.c does not link with pkg-config --static"
LD_LIBRARY_PATH="$libdir" "$root/client_static" >/dev/null ||
	fail "installed_client linked with pkg-config --static failed"

[ "$failures" -eq 0 ] || { echo "installed_api: $failures check(s) failed" >&2; exit 1; }
echo "installed_api: ok ($(wc -l <"$root/exported") symbols exported)"
