#!/usr/bin/env bash
# The .deb test: runs CPack (DEB) on an already built kubecpp tree into a temp dir and checks
# both packages: names, contents (binary; headers, static libraries, CMake package, kubecpp.pc
# under /usr) and Depends (dpkg-shlibdeps' runtime libraries; the Debian -dev packages).
#
#   tests/package/deb.sh BUILD_DIR
#
# Prints one line per package and "PASS" last; exits non-zero on the first failure.
set -euo pipefail

build_dir=$(cd "${1:?usage: deb.sh BUILD_DIR}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kubecpp-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$work" && cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/out") >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }

version=$(sed -n 's/^Version: //p' "$build_dir/kubecpp.pc")
arch=$(dpkg --print-architecture)
runtime="$work/out/kubecpp_${version}_${arch}.deb"
dev="$work/out/kubecpp-dev_${version}_${arch}.deb"
[ -f "$runtime" ] || { ls "$work/out"; fail "no $(basename "$runtime")"; }
[ -f "$dev" ] || { ls "$work/out"; fail "no $(basename "$dev")"; }

has_file() {  # has_file DEB PATH (the listing is read from a file: grep -q must not end a pipe)
  [ -f "$1.list" ] || dpkg-deb -c "$1" | awk '{print $6}' >"$1.list"
  grep -qxF "./$2" "$1.list" || fail "$(basename "$1") lacks /$2"
}
dep_names() {  # the package names of a Depends field, one a line, without version constraints
  echo "$1" | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep -v '^$'
}
depends_on() {  # depends_on DEB PACKAGE...
  local deps
  deps=$(dpkg-deb -f "$1" Depends)
  shift
  for p in "$@"; do
    dep_names "$deps" | grep -qxF "$p" || fail "Depends lacks $p: $deps"
  done
}

[ "$(dpkg-deb -f "$runtime" Package)" = kubecpp ] || fail "runtime package name"
has_file "$runtime" usr/bin/kubecpp-apiserver
depends_on "$runtime" libc6 libstdc++6 libssl3 libsqlite3-0
if grep -q '^\./usr/include/' "$runtime.list"; then fail "headers in the runtime package"; fi
echo "kubecpp: $(dpkg-deb -f "$runtime" Depends)"

[ "$(dpkg-deb -f "$dev" Package)" = kubecpp-dev ] || fail "dev package name"
has_file "$dev" usr/include/kube/kube.hpp
has_file "$dev" usr/include/kube/controller/manager.hpp
for m in base core workqueue client cache controller leaderelection apiserver; do
  has_file "$dev" "usr/lib/libkube_$m.a"
done
has_file "$dev" usr/lib/cmake/kubecpp/kubecpp-config.cmake
has_file "$dev" usr/lib/cmake/kubecpp/kubecpp-targets.cmake
has_file "$dev" usr/lib/pkgconfig/kubecpp.pc
depends_on "$dev" libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libfmt-dev libspdlog-dev \
  libssl-dev libsqlite3-dev libyaml-cpp-dev
# Every Depends of the dev package is a package Debian knows.
for name in $(dep_names "$(dpkg-deb -f "$dev" Depends)"); do
  apt-cache show "$name" >/dev/null 2>&1 || dpkg -s "$name" >/dev/null 2>&1 || fail "unknown Debian package $name"
done
echo "kubecpp-dev: $(dpkg-deb -f "$dev" Depends)"
echo "sizes: $(du -h "$runtime" | cut -f1) $(du -h "$dev" | cut -f1)"
echo "PASS"
