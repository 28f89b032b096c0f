#!/usr/bin/env bash
# Builds the emulator and the bindings with AddressSanitizer and UndefinedBehaviorSanitizer
# into build/asan, stages them with popdsl's Python sources as a package in
# build/asan/stage, and runs pytest on it from the repository root (arguments: pytest's;
# default: the fast suite).
# Fails when any process of the run (children included) made a sanitizer report; the
# reports are in build/asan/reports. JOBS=n limits the build's parallelism.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/asan
stage=$build/stage
reports=$build/reports

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DPOPDSL_SANITIZE=address,undefined -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF \
        -Dpybind11_DIR="$(python -c 'import pybind11;print(pybind11.get_cmake_dir())')"
fi
ninja -C "$build" -j "${JOBS:-$(nproc)}"
# A package of its own: the checkout's popdsl/ keeps its uninstrumented extension.
rm -rf "$stage" "$reports"
mkdir -p "$stage" "$reports"
cp -r "$root/popdsl" "$stage/"
rm -rf "$stage/popdsl/sdk" "$stage"/popdsl/_core*.so
cmake --install "$build" --prefix "$stage" > /dev/null

# The interpreter is not instrumented, so the ASan runtime is preloaded (it must come
# first), and libstdc++ after it: ASan intercepts __cxa_throw and must find the real one
# at start-up. CPython and numpy keep memory until exit by design: no leak checking.
# allocator_may_return_null: a huge allocation throws bad_alloc as without ASan (the
# emulator's clear error), and max_allocation_size_mb bounds it as the fuzz test's
# RLIMIT_AS does (ASan reserves terabytes of address space, so that limit cannot apply).
# PYTHONMALLOC=malloc: Python's objects come from ASan's allocator, so overruns into them
# are found. UBSan reports and continues, so one run lists every finding.
export LD_PRELOAD="$(${CXX:-g++} -print-file-name=libasan.so) $(${CXX:-g++} -print-file-name=libstdc++.so)"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=4096:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$reports/ubsan"
export PYTHONMALLOC=malloc
[ $# -gt 0 ] || set -- tests -m "not slow"
status=0
# pytest from the repository root with the stage first on the path: `python -m` would
# put the root (whose popdsl/ has the uninstrumented extension) first, -c puts '' there.
(cd "$root" && PYTHONPATH="$stage" python -c 'import sys; del sys.path[0]; import pytest; sys.exit(pytest.main())' "$@") || status=$?
if compgen -G "$reports/*" > /dev/null; then
  cat "$reports"/* >&2
  echo "sanitizer reports: $(ls "$reports" | wc -l) (in $reports)" >&2
  exit 1
fi
exit $status
