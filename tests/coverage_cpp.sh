#!/usr/bin/env bash
# C++ line coverage of emulator/src and bindings/: builds both with gcov counters at -O0
# (CMake option POPDSL_COVERAGE) into build/cov, stages them with popdsl's Python sources
# as a package in build/cov/stage (the checkout's own build is untouched), runs pytest on
# it from the repository root (arguments: pytest's; default: the fast suite) and prints
# gcovr's line totals of each, per file in build/cov/coverage-{emulator-src,bindings}-*.txt
# (most uncovered lines first). JOBS=n limits the build's parallelism.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/cov
stage=$build/stage
command -v gcovr > /dev/null || { echo "coverage_cpp.sh needs gcovr: pip install gcovr" >&2; exit 2; }

# Through ccache where there is one: a rerun after a small change recompiles only that.
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DPOPDSL_COVERAGE=ON -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF "${launcher[@]}" \
        -Dpybind11_DIR="$(python -c 'import pybind11;print(pybind11.get_cmake_dir())')"
fi
ninja -C "$build" -j "${JOBS:-$(nproc)}"
rm -rf "$stage"
mkdir -p "$stage"
cp -r "$root/popdsl" "$stage/"
rm -rf "$stage/popdsl/sdk" "$stage"/popdsl/_core*.so
cmake --install "$build" --prefix "$stage" > /dev/null
# Counters of an earlier run would add to this one's.
find "$build" -name '*.gcda' -delete

[ $# -gt 0 ] || set -- tests -m "not slow"
status=0
# The stage first on the path: `python -m` would put the root (whose popdsl/ has the
# uninstrumented extension) first, -c puts '' there.
(cd "$root" && PYTHONPATH="$stage" python -c 'import sys; del sys.path[0]; import pytest; sys.exit(pytest.main())' "$@") || status=$?
cd "$root"
# The emulator's worker threads bump the (unsynchronised) counters at once, so gcov derives
# a few negative branch counts; gcovr would stop on them. Line counts only lose increments.
gcovr -r . -f emulator/src -f bindings -j "${JOBS:-$(nproc)}" --gcov-ignore-parse-errors=negative_hits.warn_once_per_file \
      --json "$build/coverage.json" "$build"
# Each directory's total, per file with the most uncovered lines first: counting a
# template's line once per instance (gcovr's default: an instance no test runs shows
# uncovered), then once per source line (--merge-lines).
report() {  # directory, label, gcovr options
  local total
  total=$(gcovr -r . -a "$build/coverage.json" -f "$1" "${@:3}" --sort uncovered-number --sort-reverse \
                --txt "$build/coverage-${1//\//-}-${2// /-}.txt" --txt-summary | grep '^lines:')
  echo "$1, lines counted per $2: ${total#lines: }"
}
for dir in emulator/src bindings; do
  report "$dir" "template instance"
  report "$dir" "source line" --merge-lines
done
exit $status
