#!/usr/bin/env bash
# Formats the Swift sources with swift-format and the repository's .swift-format.
#
#   scripts/format.sh           rewrites every Swift file under Sources, Tests and Benchmarks in place
#   scripts/format.sh --check   changes nothing; prints every finding (file:line:column) and exits
#                               non-zero when a file is not formatted as .swift-format says
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: scripts/format.sh [--check]" >&2
    exit 2
}

mode=format
case "${1:-}" in
    "") ;;
    --check) mode=check ;;
    -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
esac
[ $# -le 1 ] || usage

if command -v swift-format >/dev/null 2>&1; then
    swift_format=swift-format
elif [ -x /opt/swift/usr/bin/swift-format ]; then
    swift_format=/opt/swift/usr/bin/swift-format
else
    echo "format.sh: swift-format not found (neither on PATH nor /opt/swift/usr/bin/swift-format)" >&2
    exit 1
fi

# The directories that exist and hold Swift files (Benchmarks may hold none).
paths=()
for dir in Sources Tests Benchmarks; do
    if [ -d "$dir" ] && [ -n "$(find "$dir" -name '*.swift' -print -quit)" ]; then
        paths+=("$dir")
    fi
done
if [ ${#paths[@]} -eq 0 ]; then
    echo "format.sh: no Swift files under Sources, Tests or Benchmarks" >&2
    exit 1
fi

if [ "$mode" = check ]; then
    # --strict turns every warning into an error, so any finding fails the check.
    if "$swift_format" lint --strict --parallel --recursive --configuration .swift-format "${paths[@]}"; then
        echo "format.sh: ${paths[*]} formatted as .swift-format says"
    else
        echo "format.sh: findings above; scripts/format.sh fixes what it can in place" >&2
        exit 1
    fi
else
    exec "$swift_format" format --in-place --parallel --recursive --configuration .swift-format "${paths[@]}"
fi
