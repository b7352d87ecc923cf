#!/usr/bin/python3
"""The differential suite: the same request sequences against kubecpp's embedded server and the
real kube-apiserver, compared after normalisation.

Each case (cases.py) is a list of steps run in a namespace of its own. A step's response is
reduced to what a client can observe and rely on: the status code, the media type, the Warning
headers and the body (JSON parsed, with uids, resourceVersions, timestamps, allocated IPs and
ports, generated names and continue tokens replaced by fixed stand-ins; a watch is its list of
events). Two servers answer a case the same way when every compared step's reduction is equal.

With KUBEBUILDER_ASSETS (or --assets) the real kube-apiserver runs beside the embedded server and
the two are compared live; --record then writes the real server's reductions to the recording
(testdata/differential/kube-apiserver-1.32.json), which is what the embedded server is compared
with where the real binaries are absent. A live run also reports recorded cases the real server
no longer answers as recorded.

The outcome is checked against expectations.json: every case that differs must be listed there
(as "deliberate", with the reason, or "to_fix"), and a listed case that no longer differs fails
the run until it is removed from the list. --report FILE rewrites the report section of FILE.

  tests/differential/differential.py --embedded build/release/apps/kubecpp-apiserver/kubecpp-apiserver
  KUBEBUILDER_ASSETS=../shared/envtest/bin tests/differential/differential.py --embedded ... --record
"""
import argparse
import hashlib
import http.client
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, HERE)
from servers import start_embedded, start_kube_apiserver  # noqa: E402
import cases as case_defs  # noqa: E402

RECORDING = os.path.join(ROOT, "testdata", "differential", "kube-apiserver-1.32.json")
EXPECTATIONS = os.path.join(HERE, "expectations.json")
USER_AGENT = "kubecpp-differential/1.0"
REPORT_BEGIN = "<!-- differential-report:begin -->"
REPORT_END = "<!-- differential-report:end -->"

TIME_KEYS = {"creationTimestamp", "deletionTimestamp", "time", "lastTransitionTime", "lastHeartbeatTime",
             "lastProbeTime", "startTime", "renewTime", "acquireTime", "eventTime", "firstTimestamp",
             "lastTimestamp", "lastUpdateTime", "expirationTimestamp", "startedAt", "finishedAt"}
UID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
VAR_RE = re.compile(r"\$\{(\w+)\}")
# resourceVersions inside messages ("... in record (921)", "Too large resource version: 9, current: 8")
RV_IN_MESSAGE_RE = re.compile(r"(ResourceVersion in record \(|resource version: |current: |resourceVersion=|"
                              r"resourceVersion[\\\":]{1,8})\d+")
# go-cmp's diff in "pod updates may not change fields ..." (its spacing is randomised by design)
GO_CMP_DIFF_RE = re.compile(r"\n[ \xa0]{2}(core|apps|batch|rbac|networking|policy)\.\w+\{\n.*?\n[ \xa0]{2}\}\n", re.S)
TIME_IN_MESSAGE_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


# ---- normalisation ----

def normalize(value, key=None, parent=None):
    """`value` with what differs between any two servers (or runs) replaced by fixed stand-ins."""
    if isinstance(value, dict):
        out = {k: normalize(v, k, value) for k, v in value.items()}
        if "generateName" in value and isinstance(value.get("name"), str) and value["name"].startswith(
                value["generateName"]):
            out["name"] = value["generateName"] + "<random>"
        return out
    if isinstance(value, list):
        if key == "clusterIPs":
            return ["<ip>" if v not in ("None", "") else v for v in value]
        return [normalize(v, key, parent) for v in value]
    if isinstance(value, str):
        if key in TIME_KEYS and value:
            return "<time>"
        if key in ("resourceVersion", "continue") and value:
            return "<%s>" % ("rv" if key == "resourceVersion" else "continue")
        if key == "clusterIP" and value not in ("None", ""):
            return "<ip>"
        if key == "name" and isinstance(parent, dict) and "generateName" in parent:
            return value
        value = GO_CMP_DIFF_RE.sub("\n<go-cmp diff>\n", value)
        value = TIME_IN_MESSAGE_RE.sub("<time>", UID_RE.sub("<uid>", value))
        return RV_IN_MESSAGE_RE.sub(r"\1<rv>", value)
    if key == "nodePort" and isinstance(value, int):
        return "<port>"
    return value


def media_type(headers):
    for k, v in headers:
        if k.lower() == "content-type":
            return ";".join(p.strip() for p in v.split(";"))
    return None


def reduce_response(status, headers, payload, step):
    """What a client observes of one response, normalised."""
    out = {"code": status, "type": media_type(headers)}
    warnings = [v for k, v in headers if k.lower() == "warning"]
    if warnings:
        out["warnings"] = warnings
    text = payload.decode("utf-8", errors="replace")
    if step.get("watch"):
        events = []
        for line in text.splitlines():
            if line.strip():
                try:
                    events.append(normalize(json.loads(line)))
                except ValueError:
                    events.append({"unparsed": line})
        out["events"] = events
    elif text:
        try:
            out["body"] = normalize(json.loads(text))
        except ValueError:
            out["text"] = text
    for path in step.get("ignore", ()):
        drop(out, path)
    return out


def drop(obj, path):
    """Removes the member at `path` ("body.metadata.annotations") when present."""
    parts = path.split(".")
    for p in parts[:-1]:
        if not isinstance(obj, dict) or p not in obj:
            return
        obj = obj[p]
    if isinstance(obj, dict):
        obj.pop(parts[-1], None)


def pointer_get(obj, pointer):
    for token in pointer.strip("/").split("/"):
        if isinstance(obj, list):
            obj = obj[int(token)]
        else:
            obj = obj[token.replace("~1", "/").replace("~0", "~")]
    return obj


# ---- running ----

def substitute(value, variables):
    if isinstance(value, str):
        return VAR_RE.sub(lambda m: str(variables[m.group(1)]), value)
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    return value


def run_case(client, case, index):
    """The reductions of the compared steps of `case` (its setup steps run first, unrecorded)."""
    ns = "d-" + hashlib.sha1(case["name"].encode()).hexdigest()[:12]  # stable: recordings stay valid
    variables = {"ns": ns}
    status, _, payload = client.exchange("POST", "/api/v1/namespaces", {
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}, {"User-Agent": USER_AGENT})
    if status != 201:
        raise RuntimeError("namespace %s: %d %s" % (ns, status, payload[:300]))
    results = []
    for step in case["steps"]:
        if step.get("sleep"):
            time.sleep(step["sleep"])
        body = step.get("body")
        if isinstance(body, (dict, list)):
            body = json.dumps(substitute(body, variables)).encode()
        elif isinstance(body, str):
            body = substitute(body, variables).encode()
        headers = {"User-Agent": USER_AGENT}
        if body is not None:
            headers["Content-Type"] = step.get("ctype", "application/json")
        headers.update(substitute(step.get("headers", {}), variables))
        path = substitute(step["path"], variables)
        try:
            status, resp_headers, payload = client.exchange(step["method"], path, body, headers,
                                                            timeout=step.get("timeout", 30))
        except (OSError, http.client.HTTPException) as e:
            # What a client sees when the server drops the connection: no response at all.
            if step.get("compare", True):
                results.append({"transport-error": type(e).__name__})
            continue
        for var, pointer in step.get("save", {}).items():
            try:
                variables[var] = pointer_get(json.loads(payload), pointer)
            except (ValueError, KeyError, IndexError, TypeError):
                variables[var] = "missing"
        if step.get("compare", True):
            results.append(reduce_response(status, resp_headers, payload, step))
    return results


def run_all(client, all_cases):
    return {c["name"]: run_case(client, c, i) for i, c in enumerate(all_cases)}


def first_difference(a, b, path=""):
    """A short description of where `a` and `b` first differ, or None."""
    if type(a) is not type(b):
        return "%s: %s vs %s" % (path or "(root)", short(a), short(b))
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=lambda k: (k != "code", k)):  # the status code first
            if k not in a or k not in b:
                return "%s.%s: %s vs %s" % (path, k, short(a.get(k, "<absent>")), short(b.get(k, "<absent>")))
            d = first_difference(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %s vs %s" % (path or "(root)", short(a), short(b))


def short(v, n=160):
    s = json.dumps(v) if not isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[:n] + "..."


def compare(embedded, reference):
    """{case: None when identical, else the first difference (embedded vs reference)}."""
    out = {}
    for name, ref in reference.items():
        if name not in embedded:
            continue
        emb = embedded[name]
        diff = None
        for i, (e, r) in enumerate(zip(emb, ref)):
            d = first_difference(e, r)
            if d:
                diff = "step %d%s" % (i, d)
                break
        if diff is None and len(emb) != len(ref):
            diff = "%d vs %d compared steps" % (len(emb), len(ref))
        out[name] = diff
    return out


# ---- report ----

def report_markdown(all_cases, outcome, expectations, source):
    by_cat = {}
    for c in all_cases:
        if c["name"] not in outcome:
            continue
        same, total = by_cat.get(c["category"], (0, 0))
        by_cat[c["category"]] = (same + (outcome[c["name"]] is None), total + 1)
    total = sum(t for _, t in by_cat.values())
    same = sum(s for s, _ in by_cat.values())
    lines = [REPORT_BEGIN, "",
             "Compared with %s: **%d cases, %d identical (%.1f%%), %d differing** (%d deliberate, %d to fix)."
             % (source, total, same, 100.0 * same / max(total, 1), total - same,
                sum(1 for n, d in outcome.items() if d and n in expectations["deliberate"]),
                sum(1 for n, d in outcome.items() if d and n not in expectations["deliberate"])),
             "", "| category | cases | identical | differing |", "|---|---:|---:|---:|"]
    for cat in sorted(by_cat):
        s, t = by_cat[cat]
        lines.append("| %s | %d | %d | %d |" % (cat, t, s, t - s))
    lines.append("| **all** | **%d** | **%d** | **%d** |" % (total, same, total - same))
    lines += ["", REPORT_END]
    return "\n".join(lines)


def write_report(path, text):
    with open(path) as f:
        doc = f.read()
    if REPORT_BEGIN in doc and REPORT_END in doc:
        doc = doc[:doc.index(REPORT_BEGIN)] + text + doc[doc.index(REPORT_END) + len(REPORT_END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(doc)


def load_json(path, default):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def check(outcome, expectations):
    """The problems that fail the run: unexpected differences and stale expectations."""
    listed = set(expectations["deliberate"]) | set(expectations["to_fix"])
    problems = []
    for name, diff in sorted(outcome.items()):
        if diff and name not in listed:
            problems.append("DIFFERS (not in expectations.json): %s: %s" % (name, diff))
        if not diff and name in listed:
            problems.append("NOW IDENTICAL (remove it from expectations.json): %s" % name)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedded", required=True, help="the kubecpp-apiserver binary")
    ap.add_argument("--assets", default=os.environ.get("KUBEBUILDER_ASSETS", ""),
                    help="kube-apiserver and etcd (default: $KUBEBUILDER_ASSETS); none: use the recording")
    ap.add_argument("--record", action="store_true", help="write the real server's answers to the recording")
    ap.add_argument("--only", default="", help="run the cases whose name matches this regex")
    ap.add_argument("--random-seed", type=int, default=None,
                    help="also run 50 random cases of this seed (live runs only)")
    ap.add_argument("--report", default="", help="rewrite the report section of this markdown file")
    ap.add_argument("--dump", default="", help="write every reduction and difference to this JSON file")
    ap.add_argument("--update-to-fix", action="store_true",
                    help="rewrite the to_fix list of expectations.json with the cases that differ now")
    ap.add_argument("--verbose", action="store_true", help="print every differing case")
    args = ap.parse_args()

    all_cases = case_defs.all_cases()
    names = [c["name"] for c in all_cases]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        sys.exit("duplicate case names: %s" % sorted(dupes))
    if args.random_seed is not None:
        if not args.assets:
            sys.exit("--random-seed needs the real kube-apiserver (KUBEBUILDER_ASSETS)")
        all_cases += case_defs.random_cases(args.random_seed, 50, "random-%d" % args.random_seed)
    if args.only:
        all_cases = [c for c in all_cases if re.search(args.only, c["name"])]

    recording = load_json(RECORDING, {})
    expectations = load_json(EXPECTATIONS, {"deliberate": {}, "to_fix": {}})
    workdir = tempfile.mkdtemp(prefix="kubecpp-differential-")
    servers = []
    try:
        os.makedirs(os.path.join(workdir, "embedded"))
        # kube-apiserver runs alone (no kube-controller-manager): so does the embedded server.
        emb = start_embedded(args.embedded, os.path.join(workdir, "embedded"),
                             ["--controllers=-garbage-collector,-namespace,-event-ttl,-pod-gc"])
        servers.append(emb)
        embedded = run_all(emb.client, all_cases)
        stale = []
        if args.assets:
            os.makedirs(os.path.join(workdir, "real"))
            real_server = start_kube_apiserver(args.assets, os.path.join(workdir, "real"))
            servers.append(real_server)
            reference = run_all(real_server.client, all_cases)
            source = "kube-apiserver v1.32.13 (live)"
            if args.record:
                recorded = {c["name"]: reference[c["name"]] for c in case_defs.all_cases()
                            if c["name"] in reference}
                if args.only:
                    recorded = dict(recording, **recorded)
                os.makedirs(os.path.dirname(RECORDING), exist_ok=True)
                with open(RECORDING, "w") as f:
                    json.dump(recorded, f, indent=1, sort_keys=True)
                    f.write("\n")
            else:
                stale = [n for n, d in compare(reference, {n: recording[n] for n in reference if n in recording}).items()
                         if d]
                stale += [c["name"] for c in all_cases if c["name"] not in recording and not
                          c["name"].startswith("random-")]
        else:
            reference = {c["name"]: recording[c["name"]] for c in all_cases if c["name"] in recording}
            source = "the recording of kube-apiserver v1.32.13"
            missing = [c["name"] for c in all_cases if c["name"] not in recording]
            if missing:
                print("not recorded (run with KUBEBUILDER_ASSETS and --record): %s" % ", ".join(missing))
                stale += missing
        outcome = compare(embedded, reference)
    finally:
        for s in reversed(servers):
            s.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    if args.dump:
        with open(args.dump, "w") as f:
            json.dump({"embedded": embedded, "reference": reference, "outcome": outcome}, f, indent=1)
    report = report_markdown(all_cases, outcome, expectations, source)
    print(report)
    if args.report:
        write_report(args.report, report)
    if args.verbose:
        for name, diff in sorted(outcome.items()):
            if diff:
                print("%s: %s" % (name, diff))
    if args.update_to_fix:
        to_fix = {n: d for n, d in sorted(outcome.items()) if d and n not in expectations["deliberate"]}
        if args.only:
            to_fix = dict({n: d for n, d in expectations["to_fix"].items() if n not in outcome}, **to_fix)
        expectations["to_fix"] = dict(sorted(to_fix.items()))
        with open(EXPECTATIONS, "w") as f:
            json.dump(expectations, f, indent=1, sort_keys=True)
            f.write("\n")
    problems = [p for p in check(outcome, expectations)
                 if not p.startswith("NOW IDENTICAL") or not args.random_seed]
    if stale and not args.record:
        problems.append("recording out of date for: %s (re-run with --record)" % ", ".join(sorted(stale)))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
