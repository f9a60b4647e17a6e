#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Install the build into a scratch root, compile installed_client.c against
# it with nothing but `pkg-config --cflags --libs liblnet`, and run it.
#   installed_api.sh BUILD_DIR SRC_DIR SANITIZE COMPILER
set -eu
build=$1 src=$2 sanitize=$3 compiler=$4
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

meson install -C "$build" --destdir "$root" --no-rebuild --quiet >/dev/null
pcdir=$(dirname "$(find "$root" -name liblnet.pc | head -n 1)")
[ -f "$pcdir/liblnet.pc" ] || { echo "liblnet.pc was not installed" >&2; exit 1; }
libdir=$(dirname "$(find "$root" -name 'liblnet.so' | head -n 1)")
test -f "$(find "$root" -path '*/include/lnet/api.h' | head -n 1)" ||
	{ echo "lnet/api.h was not installed" >&2; exit 1; }

# Point the installed .pc at the scratch root (a sysroot would also move
# libdpdk's system paths).
prefix=$(sed -n 's/^prefix=//p' "$pcdir/liblnet.pc")
mkdir -p "$root/pc"
sed "s|^prefix=.*|prefix=$root$prefix|" "$pcdir/liblnet.pc" >"$root/pc/liblnet.pc"
export PKG_CONFIG_PATH="$root/pc"
extra=""
if [ "$sanitize" != "none" ]; then
	extra="-fsanitize=$sanitize"
fi
# shellcheck disable=SC2046
$compiler -std=gnu11 -Wall -Wextra -Werror $extra -o "$root/client" \
	"$src/installed_client.c" $(pkg-config --cflags --libs liblnet)
LD_LIBRARY_PATH="$libdir" "$root/client"
