#!/usr/bin/env bash
# The packaging test: installs an already built kubecpp tree into a temp prefix, checks the
# installed layout, builds tests/package/consumer against it twice (CMake find_package and
# pkg-config), runs both with --help, then runs both against the *installed* kubecpp-apiserver
# (--self-test: create a ConfigMap, reconcile it, stop).
#
#   tests/package/run.sh BUILD_DIR [CXX_COMPILER]
#
# Nothing is rebuilt in BUILD_DIR (it must be built). Prints one line per step and "PASS" last;
# exits non-zero on the first failure.
set -euo pipefail

build_dir=$(cd "${1:?usage: run.sh BUILD_DIR [CXX_COMPILER]}" && pwd)
cxx=${2:-c++}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/kubecpp-package.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

prefix="$work/prefix"
step "install $build_dir -> $prefix"
cmake --install "$build_dir" --prefix "$prefix" --strip >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }

step "installed layout"
libdir=$(sed -n 's/^libdir=\${prefix}\///p' "$build_dir/kubecpp.pc")
[ -n "$libdir" ] || fail "no libdir in $build_dir/kubecpp.pc"
for f in bin/kubecpp-apiserver include/kube/kube.hpp include/kube/controller/manager.hpp \
         include/kube/workqueue/internal "$libdir/cmake/kubecpp/kubecpp-config.cmake" \
         "$libdir/cmake/kubecpp/kubecpp-config-version.cmake" "$libdir/cmake/kubecpp/kubecpp-targets.cmake" \
         "$libdir/pkgconfig/kubecpp.pc"; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
for m in base core workqueue client cache controller leaderelection apiserver; do
  [ -f "$prefix/$libdir/libkube_$m.a" ] || fail "missing $libdir/libkube_$m.a"
done
# Installed files must not point into the source or build tree ($<INSTALL_INTERFACE> paths).
if grep -rlF -e "$source_dir/" -e "$build_dir/" "$prefix/$libdir/cmake" "$prefix/$libdir/pkgconfig"; then
  fail "installed package files refer to the source/build tree"
fi
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
pkg-config --exists --print-errors kubecpp || fail "pkg-config cannot resolve kubecpp"
[ "$(pkg-config --modversion kubecpp)" = "$(sed -n 's/^Version: //p' "$build_dir/kubecpp.pc")" ] || fail "pkg-config version"

# Both consumers compile at once (one per core); -O0 -g0 keeps this quick.
step "build the consumer with find_package(kubecpp CONFIG) and with pkg-config"
(
  cmake -S "$here/consumer" -B "$work/consumer-cmake" -G Ninja \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="-O0 -g0" -DCMAKE_PREFIX_PATH="$prefix" &&
  cmake --build "$work/consumer-cmake" -j1
) >"$work/cmake-consumer.log" 2>&1 &
cmake_pid=$!
# shellcheck disable=SC2046  # pkg-config output is a list of flags
"$cxx" -std=c++20 -O0 -g0 "$here/consumer/main.cpp" -o "$work/kubecpp-consumer-pc" \
  $(pkg-config --cflags --libs kubecpp) >"$work/pc-consumer.log" 2>&1 || { cat "$work/pc-consumer.log"; fail "pkg-config build"; }
wait "$cmake_pid" || { cat "$work/cmake-consumer.log"; fail "find_package build"; }
# The tutorial's project (docs/tutorial/, shown verbatim by docs/tutorial.md) builds out of tree too.
step "build docs/tutorial against the installed package"
{ cmake -S "$source_dir/docs/tutorial" -B "$work/tutorial" -G Ninja \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="-O0 -g0" -DCMAKE_PREFIX_PATH="$prefix" &&
  cmake --build "$work/tutorial" -j1; } >"$work/tutorial.log" 2>&1 || { cat "$work/tutorial.log"; fail "tutorial build"; }
[ -x "$work/tutorial/greeting-operator" ] || fail "docs/tutorial did not produce greeting-operator"
consumers=("$work/consumer-cmake/kubecpp-consumer" "$work/kubecpp-consumer-pc")

step "run --help"
for c in "${consumers[@]}"; do
  out=$("$c" --help) || fail "$c --help exited non-zero"
  case "$out" in usage:*) ;; *) fail "$c --help printed: $out" ;; esac
done
"$prefix/bin/kubecpp-apiserver" --help >/dev/null || fail "kubecpp-apiserver --help"

step "run against the installed kubecpp-apiserver"
"$prefix/bin/kubecpp-apiserver" --data-dir "$work/data" --storage memory --listen 127.0.0.1:0 \
  >"$work/server.log" 2>&1 &
server_pid=$!
kubeconfig="$work/data/kubeconfig"
for _ in $(seq 1 600); do   # up to 60 s for the server to write its kubeconfig and listen
  grep -q '^export KUBECONFIG=' "$work/server.log" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; fail "kubecpp-apiserver exited"; }
  sleep 0.1
done
grep -q '^export KUBECONFIG=' "$work/server.log" || { cat "$work/server.log"; fail "kubecpp-apiserver did not start"; }
for c in "${consumers[@]}"; do
  out=$(timeout 120 "$c" --kubeconfig "$kubeconfig" --self-test 2>"$work/consumer.err") ||
    { cat "$work/consumer.err"; fail "$c --self-test exited non-zero: $out"; }
  [ "$out" = "self-test: consumer-probe labelled" ] || { cat "$work/consumer.err"; fail "$c --self-test printed: $out"; }
  echo "$(basename "$c"): $out"
done
if command -v kubectl >/dev/null 2>&1; then
  label=$(HOME="$work" kubectl --kubeconfig "$kubeconfig" --cache-dir "$work/kcache" get configmap consumer-probe \
    -n default -o jsonpath='{.metadata.labels.consumer\.kubecpp\.io/seen}')
  [ "$label" = "true" ] || fail "kubectl sees label '$label' on consumer-probe"
  echo "kubectl: consumer-probe labelled"
fi
echo "PASS"
