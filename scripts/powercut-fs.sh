#!/usr/bin/env bash
# Builds powercut-fs (Tools/powercut-fs: a FUSE file system that drops unsynced writes at a
# simulated power cut) into .build/powercut-fs/powercut-fs, installing libfuse3-dev and fuse3
# from apt when they are missing. Rebuilds only when a source is newer than the binary.
#
#   scripts/powercut-fs.sh build        builds if needed, prints the binary's path
#   scripts/powercut-fs.sh ARGS...      builds if needed, then runs powercut-fs ARGS
#                                       (mount, cut, unmount, status: Tools/powercut-fs/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
src=Tools/powercut-fs
out=.build/powercut-fs
bin=$out/powercut-fs

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for package in libfuse3-dev fuse3; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "powercut-fs: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

stale=""
[ -x "$bin" ] || stale=1
for file in "$src"/*.c "$src"/*.h "$0"; do
  [ "$file" -nt "$bin" ] && stale=1
done
if [ -n "$stale" ]; then
  mkdir -p "$out"
  # shellcheck disable=SC2046 # pkg-config's words are separate flags
  gcc -O2 -g -Wall -Wextra -Werror -std=gnu17 -pthread \
    $(pkg-config --cflags fuse3) -o "$bin.tmp" "$src"/*.c $(pkg-config --libs fuse3)
  mv "$bin.tmp" "$bin"
  echo "powercut-fs: built $bin" >&2
fi

if [ "${1:-build}" = "build" ]; then
  echo "$PWD/$bin"
else
  exec "$bin" "$@"
fi
