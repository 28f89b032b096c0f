#!/usr/bin/env bash
# C++ line coverage of emulator/src and bindings/: builds both with gcov counters at -O0
# (CMake option POPDSL_COVERAGE) into build/cov, stages them with popdsl's Python sources
# as a package in build/cov/stage (the checkout's own build is untouched), runs pytest on
# it from the repository root (arguments: pytest's; default: the fast suite) and prints
# gcovr's summary, per file in build/cov/coverage.txt. JOBS=n limits the build's parallelism.
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
gcovr -r . -f emulator/src -f bindings -j "${JOBS:-$(nproc)}" --txt "$build/coverage.txt" --txt-summary "$build" | tail -3
exit $status
