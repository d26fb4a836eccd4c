#!/usr/bin/env bash
# Style checks: clang-format on every project source (always), clang-tidy on
# the C++ sources (unless --format-only; needs build/compile_commands.json).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.hpp' '*.cc' '*.cpp' '*.c' '*.cu' '*.cuh')
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "lint: not clang-formatted (run: clang-format -i ${bad[*]})"
  exit 1
fi
echo "lint: clang-format clean (${#files[@]} files)"
[ "${1:-}" = "--format-only" ] && exit 0
mapfile -t tidy < <(printf '%s\n' "${files[@]}" | grep -E '\.cc$')
clang-tidy -p build --quiet "${tidy[@]}" 2>/dev/null
