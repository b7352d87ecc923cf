#!/usr/bin/env python3
"""Extracts the protobuf field tables of the Kubernetes API from a kube-apiserver binary.

kube-apiserver embeds the compiled `generated.proto` of every API package (gzipped
FileDescriptorProto messages, registered by the Go protobuf runtime). The OpenAPI documents say
nothing of the protobuf encoding, so this is where its field numbers come from:

  protobuf_fields.py --apiserver PATH/kube-apiserver --out api/protobuf/v1.32/fields.json

The output maps each message of the packages kubecpp generates types for to its fields, in
declaration order (the order of the Go struct, which is the order of its JSON keys):

  {"k8s.io.api.apps.v1.DeploymentSpec": [["replicas", 1, "int32", "", "ptr"], ...], ...}

Each field is [name, number, kind, message, flags]: kind is a protobuf scalar type name,
"message" (message names the message type) or "map" (message names the value type, or a
scalar type name); flags is a string of "rep" (repeated), "ptr" (a Go pointer: the field is on
the wire only when set, so a zero value is meant; gogoproto nullable), space separated.

Only the Python 3 standard library is used, and the output is deterministic.
"""

import argparse
import json
import re
import sys
import zlib

# Go protobuf packages of the group-versions in api/openapi/v1.32, plus apimachinery's.
PACKAGES = re.compile(
    r"^k8s\.io\.(api\.[a-z0-9]+\.v[0-9]+"
    r"|apimachinery\.pkg\.apis\.meta\.v1"
    r"|apimachinery\.pkg\.api\.resource"
    r"|apimachinery\.pkg\.util\.intstr"
    r"|apimachinery\.pkg\.runtime"
    r"|apiextensions_apiserver\.pkg\.apis\.apiextensions\.v1"
    r"|kube_aggregator\.pkg\.apis\.apiregistration\.v1)$")

SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
           8: "bool", 9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64",
           17: "sint32", 18: "sint64"}
TYPE_MESSAGE = 11
LABEL_REPEATED = 3
GOGO_NULLABLE = 65001  # gogoproto.nullable, a FieldOptions extension


def varint(b, i):
    value = shift = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def fields(b):
    """The (number, wire type, value) triples of one protobuf message."""
    i, out = 0, []
    while i < len(b):
        tag, i = varint(b, i)
        num, wire = tag >> 3, tag & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        else:
            raise ValueError("wire type %d" % wire)
        out.append((num, wire, v))
    return out


def first(msg, num, default=None):
    for n, _, v in msg:
        if n == num:
            return v
    return default


def all_of(msg, num):
    return [v for n, _, v in msg if n == num]


def descriptors(binary):
    """FileDescriptorProto bytes by file name, found as gzip streams in the binary."""
    out = {}
    for m in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00", binary):
        try:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(binary[m.start():m.start() + (8 << 20)])
            msg = fields(d)
            name = first(msg, 1)
        except (zlib.error, ValueError, IndexError):
            continue
        if isinstance(name, bytes) and name.endswith(b".proto"):
            out[name.decode()] = msg
    return out


def message_fields(desc, package, prefix, out):
    name = prefix + first(desc, 1).decode()
    nested = {}
    for sub in all_of(desc, 3):  # nested types: map entries
        s = fields(sub)
        opts = fields(first(s, 7, b""))
        if first(opts, 7) == 1:  # MessageOptions.map_entry
            nested["." + name + "." + first(s, 1).decode()] = s
    rows = []
    for f in all_of(desc, 2):
        fd = fields(f)
        fname = first(fd, 1).decode()
        number = first(fd, 3)
        ftype = first(fd, 5)
        type_name = (first(fd, 6) or b"").decode()
        flags = []
        if first(fd, 4) == LABEL_REPEATED:
            flags.append("rep")
        opts = fields(first(fd, 8, b""))
        nullable = first(opts, GOGO_NULLABLE, 1)
        if ftype == TYPE_MESSAGE and type_name in nested:
            entry = nested[type_name]
            value = [fields(x) for x in all_of(entry, 2)][1]
            vtype = first(value, 5)
            kind, message = "map", ((first(value, 6) or b"").decode().lstrip(".") if vtype == TYPE_MESSAGE
                                    else SCALARS[vtype])
            flags = []
        elif ftype == TYPE_MESSAGE:
            kind, message = "message", type_name.lstrip(".")
            if nullable and "rep" not in flags:
                flags.append("ptr")
        else:
            kind, message = SCALARS[ftype], ""
            if nullable and "rep" not in flags:
                flags.append("ptr")
        rows.append([fname, number, kind, message, " ".join(flags)])
    out[name] = rows


def extract(binary):
    out = {}
    for _, fd in sorted(descriptors(binary).items()):
        package = (first(fd, 2) or b"").decode()
        if not PACKAGES.match(package):
            continue
        for m in all_of(fd, 4):
            message_fields(fields(m), package, package + ".", out)
    return dict(sorted(out.items()))


def dump(table):
    lines = ["{"]
    items = list(table.items())
    for i, (name, rows) in enumerate(items):
        lines.append("%s: %s%s" % (json.dumps(name), json.dumps(rows, separators=(",", ":")),
                                   "," if i + 1 < len(items) else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apiserver", required=True, help="a kube-apiserver binary")
    ap.add_argument("--out", help="write here (default: stdout)")
    args = ap.parse_args()
    with open(args.apiserver, "rb") as f:
        table = extract(f.read())
    if not table:
        sys.exit("no Kubernetes protobuf descriptors found in " + args.apiserver)
    text = dump(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
