#!/usr/bin/env bash
# examples/crd-operator/deploy/crd.yaml is committed for users without a build; it must be exactly
# what the build writes from the C++ declaration (kubecpp-website-crd -> crd-operator/crd.yaml).
set -u
generated="$1"
committed="$2"
[ -f "$generated" ] || {
  echo "FAIL: $generated is missing: build the target example_crd_operator_manifest"
  exit 1
}
if ! diff -u "$committed" "$generated"; then
  echo "FAIL: $committed differs from the CRD declared in examples/crd-operator/website_types.hpp"
  echo "regenerate it: cp $generated $committed"
  exit 1
fi
echo "ok: $committed is the generated CRD"
