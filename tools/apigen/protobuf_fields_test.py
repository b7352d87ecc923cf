#!/usr/bin/env python3
"""api/protobuf/v1.32/fields.json is what protobuf_fields.py reads from the kube-apiserver of
$KUBEBUILDER_ASSETS (skipped, exit 77, where that is not set)."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    assets = os.environ.get("KUBEBUILDER_ASSETS")
    binary = os.path.join(assets or "", "kube-apiserver")
    if not assets or not os.path.exists(binary):
        print("KUBEBUILDER_ASSETS is not set: skipped")
        return 77
    out = subprocess.run([sys.executable, os.path.join(HERE, "protobuf_fields.py"), "--apiserver", binary],
                         check=True, capture_output=True, text=True).stdout
    with open(os.path.join(ROOT, "api/protobuf/v1.32/fields.json")) as f:
        committed = f.read()
    if out != committed:
        print("api/protobuf/v1.32/fields.json differs from what %s holds; regenerate it with\n"
              "  tools/apigen/protobuf_fields.py --apiserver %s --out api/protobuf/v1.32/fields.json" % (binary, binary))
        return 1
    print("fields.json matches %s" % binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
