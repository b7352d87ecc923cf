#!/usr/bin/env bash
# scripts/demo's scenario on etcd + kube-apiserver from KUBEBUILDER_ASSETS (kubecpp-demo --real).
# Exits 77 (skipped) where KUBEBUILDER_ASSETS is not set.
set -euo pipefail
demo="$1"
if [ -z "${KUBEBUILDER_ASSETS:-}" ]; then
  echo "KUBEBUILDER_ASSETS is not set: skipped"
  exit 77
fi
exec "$demo" --plain --real --step-timeout 120
