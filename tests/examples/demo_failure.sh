#!/usr/bin/env bash
# kubecpp-demo must report a failed step and exit non-zero: here the deployment controller is
# replaced by a program that exits at once.
set -u
demo="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$("$demo" --plain --step-timeout 10 --data-dir "$dir/demo" --deployment-controller /bin/false 2>&1)
rc=$?
echo "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: kubecpp-demo exited 0 with a dead deployment controller"; exit 1; }
echo "$out" | grep -Eq '^  FAIL +create Deployment web' || { echo "FAIL: no failed step in the summary"; exit 1; }
echo "$out" | grep -Eq '^7 steps, [1-7] failed\.' || { echo "FAIL: no failure count"; exit 1; }
echo "$out" | grep -q 'deployment-controller is not running' || { echo "FAIL: the reason is not named"; exit 1; }
echo "ok: the demo reported the failure and exited $rc"
