#!/usr/bin/python3
"""Turns the raw results of one scripts/bench run into ONE markdown report (and gnuplot plots).

usage: make_report.py --raw DIR --out FILE [--img-dir DIR] [--img-link PREFIX]
                      [--write-docs docs/performance.md]

DIR is what scripts/bench wrote (standard library only; nothing here measures anything):
  meta/<key>             one file per machine/run fact: command, start, end, load_start,
                         load_end, compiler, reps, quick, areas, build_dir
  <area>.status          "skipped: ..." / "failed: ..." lines the runner wants in the report
  gbench/<name>.json     Google Benchmark --benchmark_format=json output (with repetitions)
  gbench/typed_codec_bench.<r>.json  run r (one repetition) of bench/api/typed_codec_bench
  text/<name>.<r>.txt    run r of a binary with its own main (cache_bench, controller_bench):
                         "<metric> <number> [unit ...]" or "<name> key=value ..." lines
  text/go_workqueue.<r>.txt  repetition r of bench/peers/go/workqueue (client-go's algorithms in
                         Go): "<benchmark> metric=value ..." lines, shown beside workqueue_bench
  text/go_informer.<r>.txt   run r of bench/peers/go/informer: cache_bench's line names, shown
                         beside the fifo and informer tables
  text/cgdecode_<fixture>.<r>.txt  run r of ../shared/peers/bin/cgdecode (client-go's typed codecs)
                         on testdata/<fixture>.json, interleaved with typed_codec_bench's run r:
                         "decode kind=Pod bytes=N ns_per_op=..." and "encode ..." lines
  peers.jsonl            peer_loader records of the "peers" area (bench/peers/table.py)
  scaling.jsonl          peer_loader records of the "scaling" area
  python_decode.jsonl    python_client.py --decode-events records

Each area becomes one table: one row per (benchmark, metric) with the median and [min-max] over
the repetitions, the client-go reference figure of ../shared/bench/README.md where it has one
(quoted with its source), and "kubecpp ahead by" = how many times better kubecpp's median is than
the better of the two quoted client-go runs (> 1: kubecpp ahead; for a rate kubecpp / client-go,
for a time or a size client-go / kubecpp). An area whose results are absent gets a line saying
so, never a failure: the report is still written.

--write-docs replaces the text between "<!-- bench:begin -->" and "<!-- bench:end -->" in the given
file with the report (the markers must be there already; nothing else in the file changes).
"""
import argparse
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))
import table as peers_table  # noqa: E402  (bench/peers/table.py)
import gnuplot  # noqa: E402  (bench/report/gnuplot.py)

AREAS = ["workqueue", "fifo", "informer", "decode", "parse", "typed", "server", "fanout",
         "reconcile", "peers", "scaling"]

AREA_TITLES = {
    "workqueue": "Workqueue (`workqueue_bench`)",
    "fifo": "DeltaFIFO (`cache_bench`)",
    "informer": "Informer over a fake ListerWatcher (`cache_bench`)",
    "decode": "Watch decode (`client_bench`, `object_bench BM_WatchEventDecode`, Python client)",
    "parse": "Object parse (`object_bench`)",
    "typed": "Typed JSON codecs beside client-go (`typed_codec_bench`, `cgdecode`)",
    "server": "API server storage and HTTP (`apiserver_storage_bench`, `apiserver_server_bench`)",
    "fanout": "Watch fan-out (`apiserver_server_bench BM_WatchFanout*`)",
    "reconcile": "Reconcile throughput and latency (`controller_bench`)",
    "peers": "Side by side with the peers (`peer_loader`: kubecpp, client-node, Python)",
    "scaling": "Scaling curves",
}

README = "../shared/bench/README.md"
CG = "client-go v0.26.15, Go 1.19.8, median of 5 runs (%s)" % README

# client-go reference figures quoted from ../shared/bench/README.md: (area, benchmark regex,
# metric regex) -> (the two quoted runs in the metric's unit, True if higher is better, label).
REFERENCES = [
    ("workqueue", r"^BM_Queue_1MDistinctKeys_2Workers", r"^items_per_s$", ([2.54e6, 2.83e6], True),
     "workqueue.New(): 1 producer Adds 1M distinct keys, 2 workers"),
    ("workqueue", r"^BM_Queue_1MKeys_Added4x_2Workers", r"^add_calls_per_s$", ([8.0e6, 7.85e6], True),
     "each key Added 4x in a row: Add calls/s"),
    ("workqueue", r"^BM_Queue_1MKeys_Added4x_2Workers", r"^items_per_s$", ([2.01e6, 1.97e6], True),
     "each key Added 4x in a row: items processed/s"),
    ("workqueue", r"^BM_RateLimitingQueue_100kAdd_2Workers", r"^items_per_s$", ([2.0e6, 1.71e6], True),
     "RateLimitingQueue: 100k Add, workers Get+Forget+Done"),
    ("workqueue", r"^BM_AddRateLimited_10kItems/retries:0", r"^items_per_s$", ([1.14e6, 1.00e6], True),
     "AddRateLimited, ItemExponentialFailure(1ns, 1ms), 10k items"),
    ("workqueue", r"^BM_AddRateLimited_10kItems/retries:3", r"^deliveries_per_s$", ([0.95e6, 1.04e6], True),
     "each item re-AddRateLimited 3x before Forget: deliveries/s"),
    ("workqueue", r"^BM_DelayingQueue_100kAddAfter", r"^addafter_calls_per_s$", ([0.51e6], True),
     "DelayingQueue: 100k AddAfter (run 2 not quoted)"),
    ("workqueue", r"^BM_DelayingQueue_100kAddAfter", r"^late_p50_ms$", ([49.0, 56.0], False),
     "AddAfter lateness p50"),
    ("workqueue", r"^BM_DelayingQueue_100kAddAfter", r"^late_p99_ms$", ([64.0, 73.0], False),
     "AddAfter lateness p99"),
    ("workqueue", r"^BM_DelayingQueue_100kAddAfter", r"^after_burst_p50_ms$", ([0.8], False),
     "items due after the burst: lateness p50 (run 1)"),
    ("workqueue", r"^BM_DelayingQueue_100kAddAfter", r"^after_burst_p99_ms$", ([6.5], False),
     "items due after the burst: lateness p99 (run 1)"),
    ("fifo", r"^deltafifo_add$", r"^M/s$", ([1.83, 1.70], True), "DeltaFIFO Add 100k (M/s)"),
    ("fifo", r"^deltafifo_pop_to_indexer$", r"^M/s$", ([0.44, 0.34], True), "DeltaFIFO Pop all into the indexer (M/s)"),
    ("fifo", r"^deltafifo_add_plus_pop$", r"^M/s$", ([0.31, 0.28], True), "DeltaFIFO Add+Pop (M/s)"),
    ("fifo", r"^deltafifo_replace_ms$", r"^$", ([106.0, 138.0], False), "DeltaFIFO Replace(100k) (ms)"),
    ("fifo", r"^deltafifo_replace_plus_pop$", r"^M/s$", ([0.32, 0.32], True), "DeltaFIFO Replace+Pop (M/s)"),
    ("informer", r"^informer_sync_100k_ms$", r"^$", ([532.0, 513.0], False),
     "SharedIndexInformer HasSynced, 100k list, typed, pre-decoded (ms)"),
    ("informer", r"^informer_events_(json_)?per_s$", r"^k$", ([147.0, 124.0], True),
     "200k MODIFIED events to 1 handler, each event object built fresh (k events/s)"),
    ("informer", r"^informer_events_prebuilt_per_s$", r"^k$", ([234.0], True),
     "the same with the events pre-built (k events/s, run 2)"),
    ("informer", r"^heap_per_cached_object$", r"^B$", ([2194.0, 2194.0], False),
     "live heap per cached BenchObject, typed struct (unstructured: 5,767 B)"),
    ("informer", r"^peak_rss_per_object$", r"^B$", ([7179.0, 7329.0], False),
     "peak RSS per cached object, typed (unstructured: 19,382 B)"),
    ("decode", r"^BM_Watch(Decode|Stream|Http)10KPod", r"^items_per_second$", ([2000.0], True),
     "JSON decode of one watch stream of 10 KB pods, ~2,000 events/s (kubernetes issue 138842)"),
]

GBENCH_FIXED = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
                "time_unit", "aggregate_name", "aggregate_unit", "error_occurred", "error_message",
                "label"}


# ---------------------------------------------------------------- numbers

def fmt_num(v):
    """A figure with sensible precision: 12.54 M, 18,434, 472, 12.3, 1.50, 0.81, 0.0123."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a >= 1e7:
        return "%.2f M" % (v / 1e6)
    if a >= 1000:
        return "{:,.0f}".format(v)
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 0.1:
        return "%.2f" % v
    if a == 0:
        return "0"
    return "%.3g" % v


def summary(values):
    """(median, min, max, n) of the values."""
    return statistics.median(values), min(values), max(values), len(values)


def spread(values):
    med, lo, hi, n = summary(values)
    if n == 1:
        return fmt_num(med), "-"
    return fmt_num(med), "[%s-%s]" % (fmt_num(lo), fmt_num(hi))


def ahead_by(kube_median, ref_values, higher_is_better):
    """How many times kubecpp's median beats the better quoted client-go run (> 1: ahead)."""
    if higher_is_better:
        best = max(ref_values)
        return kube_median / best if best > 0 else float("nan")
    best = min(ref_values)
    return best / kube_median if kube_median > 0 else float("nan")


def find_reference(area, bench, metric):
    for r_area, r_bench, r_metric, (vals, higher), label in REFERENCES:
        if r_area == area and re.search(r_bench, bench) and re.search(r_metric, metric):
            return vals, higher, label
    return None


# ---------------------------------------------------------------- inputs

def read_meta(raw):
    meta = {}
    for path in glob.glob(os.path.join(raw, "meta", "*")):
        with open(path) as f:
            meta[os.path.basename(path)] = f.read().strip()
    return meta


def read_status(raw, area):
    path = os.path.join(raw, area + ".status")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip() for line in f if line.strip()]


def load_gbench(path):
    """{run_name: {metric: [values over repetitions]}} (in the binary's order) and errors."""
    out = {}
    errors = []
    try:
        with open(path) as f:
            doc = json.load(f)
    except ValueError as e:
        return out, ["unreadable JSON (%s)" % e]
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b.get("run_name", b["name"])
        if b.get("label"):  # e.g. the input's name: shown beside the run name
            name = "%s (%s)" % (name, b["label"])
        if b.get("error_occurred"):
            errors.append("%s: %s" % (name, b.get("error_message", "error")))
            continue
        metrics = out.setdefault(name, {})
        unit = b.get("time_unit", "ns")
        metrics.setdefault("real time (%s)" % unit, []).append(float(b["real_time"]))
        metrics.setdefault("cpu time (%s)" % unit, []).append(float(b["cpu_time"]))
        for k, v in b.items():
            if k in GBENCH_FIXED or not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            metrics.setdefault(k, []).append(float(v))
    return out, errors


_NUM = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
LABEL_KEYS = {"objects", "workers", "patches_per_s", "n", "watchers", "clients", "storage"}


_PAIR = re.compile(r"^(\w+)=(\S+)$")
_CPU = re.compile(r"\(cpu ([-+.\deE]+) ([^\s=);]+)")


def parse_text_run(text):
    """{(row, metric): value} from a custom-main binary's output (see the module doc).

    "<name> k=v k=v ..." lines: the keys in LABEL_KEYS name the row, the other numeric ones are
    metrics. "<name> <number> [unit] [(cpu <number> <unit> ...)]" lines: the number (metric = the
    unit) and, when given, the CPU figure (metric "cpu <unit>").
    """
    out = {}
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < 2:
            continue
        name = tokens[0]
        pairs = [m.groups() for m in (_PAIR.match(t) for t in tokens[1:]) if m]
        if pairs and len(pairs) == len(tokens) - 1:
            label = [name] + ["%s=%s" % (k, v) for k, v in pairs if k in LABEL_KEYS]
            for k, v in pairs:
                if k not in LABEL_KEYS and _NUM.match(v):
                    out[(" ".join(label), k)] = float(v)
        elif _NUM.match(tokens[1]):
            unit = tokens[2] if len(tokens) > 2 and not _NUM.match(tokens[2]) and tokens[2][0] != "(" else ""
            out[(name, unit.rstrip(","))] = float(tokens[1])
            cpu = _CPU.search(line)
            if cpu and _NUM.match(cpu.group(1)):
                out[(name, "cpu " + cpu.group(2))] = float(cpu.group(1))
    return out


def load_text_runs(raw, binary):
    """{(row, metric): [values over runs]} over text/<binary>.<r>.txt, in first-seen order."""
    merged = {}
    paths = sorted(glob.glob(os.path.join(raw, "text", binary + ".*.txt")),
                   key=lambda p: int(p.rsplit(".", 2)[-2]) if p.rsplit(".", 2)[-2].isdigit() else 0)
    for path in paths:
        with open(path) as f:
            for key, v in parse_text_run(f.read()).items():
                merged.setdefault(key, []).append(v)
    return merged, len(paths)


def load_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return peers_table.parse_lines(f)


# ---------------------------------------------------------------- tables

TABLE_HEAD = ["| benchmark | metric | median | [min-max] | runs | client-go (%s) | kubecpp ahead by |" % README,
              "|---|---|---|---|---|---|---|"]


def metric_rows(area, rows):
    """Markdown rows for [(bench, metric, values)], with the reference and ratio where known."""
    out = []
    for bench, metric, values in rows:
        med, rng = spread(values)
        ref = find_reference(area, bench, metric)
        if ref:
            vals, higher, label = ref
            ref_txt = "%s: %s" % (label, " / ".join(fmt_num(v) for v in vals))
            ratio = "%.2fx" % ahead_by(statistics.median(values), vals, higher)
        else:
            ref_txt, ratio = "", ""
        out.append("| %s | %s | %s | %s | %d | %s | %s |" % (bench, metric, med, rng, len(values), ref_txt, ratio))
    return out


def gbench_table(raw, names):
    """[(bench, metric, values)] over the named gbench files, and lines for absent/failed ones."""
    lines = []
    rows = []
    for name in names:
        path = os.path.join(raw, "gbench", name + ".json")
        if not os.path.exists(path):
            lines.append("- `%s`: no results (not run or failed; see the runner's lines)." % name)
            continue
        data, errors = load_gbench(path)
        for e in errors:
            lines.append("- `%s` error: %s" % (name, e))
        for bench, metrics in data.items():
            for metric, values in metrics.items():
                rows.append((bench, metric, values))
    return rows, lines


def text_table(raw, binary, keep):
    """[(row, unit, values)] over the text runs of a binary whose row names `keep` accepts."""
    data, nruns = load_text_runs(raw, binary)
    rows = []
    for (row, unit), values in data.items():
        if keep(row):
            rows.append((row, unit, values))
    return rows, nruns


def section(area, raw, ctx):
    """The markdown lines for one area."""
    lines = ["### %s" % AREA_TITLES[area], ""]
    for s in read_status(raw, area):
        lines.append("- " + s)
    rows, notes = [], []
    if area == "workqueue":
        rows, notes = gbench_table(raw, ["workqueue_bench"])
    elif area in ("fifo", "informer"):
        prefix = ("deltafifo_",) if area == "fifo" else ("informer_", "handler_", "heap_", "peak_rss_", "json_bytes_")
        rows, nruns = text_table(raw, "cache_bench", lambda r: r.startswith(prefix))
        if nruns == 0:
            notes.append("- `cache_bench`: no results (not run or failed).")
    elif area == "decode":
        rows, notes = gbench_table(raw, ["client_bench", "object_bench_decode"])
    elif area == "parse":
        rows, notes = gbench_table(raw, ["object_bench"])
    elif area == "server":
        rows, notes = gbench_table(raw, ["apiserver_storage_bench", "apiserver_server_bench"])
        if not any(r[0].startswith("BM_HttpWriteThroughput") for r in rows):
            notes.append("- `BM_HttpWriteThroughput/<storage>/<clients>`: absent from this "
                         "`apiserver_server_bench` build: no write-throughput curve.")
    elif area == "fanout":
        rows, notes = gbench_table(raw, ["apiserver_server_bench_fanout"])
        if not any(r[0].startswith("BM_WatchFanoutWatchers") for r in rows):
            notes.append("- `BM_WatchFanoutWatchers/<watchers>`: absent from this "
                         "`apiserver_server_bench` build: no fan-out curve.")
    elif area == "reconcile":
        rows, nruns = text_table(raw, "controller_bench", lambda r: True)
        if nruns == 0:
            notes.append("- `controller_bench`: no results (not run or failed).")
    elif area in ("peers", "scaling", "typed"):
        if read_status(raw, area):
            lines.append("")
        make = {"peers": peers_section, "scaling": scaling_section, "typed": typed_section}[area]
        return lines + make(raw, ctx)
    lines += notes
    if rows:
        if notes or read_status(raw, area):
            lines.append("")
        lines += TABLE_HEAD + metric_rows(area, rows)
    if area == "decode":
        lines += python_decode_lines(raw, rows)
    if area == "workqueue":
        lines += go_side_by_side_lines(area, raw, rows)
    elif area in ("fifo", "informer"):
        lines += go_side_by_side_lines(area, raw, rows, lambda r: r.startswith(prefix))
    lines.append("")
    return lines


# A Go peer's metric -> the kubecpp metric it sits beside (same name otherwise).
GO_METRIC_ALIASES = {"ns_per_item": "real time (ns)"}
GO_NO_RATIO = {"after_burst_items"}  # a count, not a figure of merit
GO_PEERS = {
    "workqueue": ("go_workqueue", "bench/peers/go/workqueue", "workqueue algorithms"),
    "fifo": ("go_informer", "bench/peers/go/informer", "DeltaFIFO and threadSafeMap"),
    "informer": ("go_informer", "bench/peers/go/informer",
                 "informer (DeltaFIFO, threadSafeMap, HandleDeltas, processorListener)"),
}


def higher_is_better(row, metric):
    return "per_s" in metric or metric == "M/s" or row.endswith("_per_s")


def go_side_by_side_lines(area, raw, rows, keep=lambda row: True):
    """An area's shapes beside client-go's algorithms re-implemented in Go on this machine."""
    binary, path, what = GO_PEERS[area]
    go_data, nruns = load_text_runs(raw, binary)
    go_data = {k: v for k, v in go_data.items() if keep(k[0])}
    out = [""]
    if nruns == 0:
        return out + ["- Side by side with Go: no `%s` results (not run, no Go toolchain, or failed; "
                      "see the runner's lines)." % binary]
    out += ["Side by side on this machine: the same shapes on client-go's %s re-implemented in Go "
            "(`%s`, Go %s; client-go's own module cannot be fetched here). \"kubecpp ahead by\" "
            "compares the two medians." % (what, path, read_meta(raw).get("go_version", "?")),
            "",
            "| benchmark | metric | kubecpp median | Go median | Go [min-max] | runs | kubecpp ahead by |",
            "|---|---|---|---|---|---|---|"]
    for (row, metric), values in go_data.items():
        kmetric = GO_METRIC_ALIASES.get(metric, metric)
        kube = [v for b, m, v in rows if (b == row or b.startswith(row + "/")) and m == kmetric]
        g_med, g_rng = spread(values)
        if kube and metric in GO_NO_RATIO:
            k_txt, ratio = fmt_num(statistics.median(kube[0])), ""
        elif kube:
            k = statistics.median(kube[0])
            g = statistics.median(values)
            if higher_is_better(row, metric):
                ratio = "%.2fx" % (k / g) if g > 0 else "-"
            else:
                ratio = "%.2fx" % (g / k) if k > 0 else "-"
            k_txt = fmt_num(k)
        else:
            k_txt, ratio = "-", ""
        out.append("| %s | %s | %s | %s | %s | %d | %s |" % (row, metric, k_txt, g_med, g_rng, len(values), ratio))
    return out


def python_decode_lines(raw, rows):
    recs = [r for r in load_jsonl(os.path.join(raw, "python_decode.jsonl")) if r.get("phase") == "decode"]
    out = [""]
    if not recs:
        return out + ["- Python watch decode: no results (not run or failed)."]
    eps = [r["events_per_s"] for r in recs]
    mbs = [r["mb_per_s"] for r in recs]
    kube = [v for b, m, v in rows if b.startswith("BM_WatchEventDecode") and m == "items_per_second"]
    out += ["Python `kubernetes` client, watch decoding alone (%s events of BenchObjects, %s bytes, "
            "fed from memory through `watch.Watch().stream`): beside kubecpp's "
            "`DecodeWatchEvent` of the same shape (`BM_WatchEventDecode`)." % (
                "{:,}".format(recs[0]["events"]), "{:,}".format(recs[0]["bytes"])),
            "",
            "| client | events/s median | [min-max] | MB/s median | runs | kubecpp ahead by |",
            "|---|---|---|---|---|---|"]
    py_med = statistics.median(eps)
    if kube:
        k_med, k_rng = spread(kube[0])
        out.append("| kubecpp (`BM_WatchEventDecode`) | %s | %s | | %d | %.1fx |" % (
            k_med, k_rng, len(kube[0]), statistics.median(kube[0]) / py_med))
    med, rng = spread(eps)
    out.append("| python | %s | %s | %s | %d | |" % (med, rng, fmt_num(statistics.median(mbs)), len(eps)))
    return out


CLIENT_GO_INFORMER = [
    "client-go reference figures (%s; they exclude JSON decoding and the network, so they are not "
    "directly comparable with the end-to-end figures above; client-go is not run here): "
    "SharedIndexInformer HasSynced for a 100k list 532 / 513 ms; 200k MODIFIED events to 1 handler "
    "147 k / 124 k events/s; peak RSS per cached object, typed / unstructured 7,179 / 19,382 B." % CG,
]


def peers_section(raw, ctx):
    recs = load_jsonl(os.path.join(raw, "peers.jsonl"))
    lines = []
    if not recs:
        return lines + ["- no peer results (not run or failed).", ""]
    lines += [peers_table.make_table(recs), "", CLIENT_GO_INFORMER[0], ""]
    return lines


# typed_codec_bench's benchmark suffix -> the testdata/ fixture it codes (and cgdecode's file).
TYPED_FIXTURES = [("Pod4k", "pod_4k"), ("Pod15k", "pod_15k"), ("Deployment", "deployment_15k")]
TYPED_TARGET = 3.0  # client-go ns / kubecpp ns
NS_PER_UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def run_index(path):
    """r of ".../<name>.<r>.<ext>" (0 when it is not a number)."""
    r = path.rsplit(".", 2)[-2]
    return int(r) if r.isdigit() else 0


def typed_runs(raw):
    """({(fixture, op): {run: (ns, bytes)}} for kubecpp, the same for client-go, error lines)."""
    kube, cg, errors = {}, {}, []
    ops = {"Decode": "decode", "Encode": "encode"}
    for path in glob.glob(os.path.join(raw, "gbench", "typed_codec_bench.*.json")):
        r = run_index(path)
        data, errs = load_gbench(path)
        errors += ["run %d: %s" % (r, e) for e in errs]
        for bench, metrics in data.items():
            m = re.match(r"^BM_Typed(Decode|Encode)_(\w+)", bench)
            fixture = dict(TYPED_FIXTURES).get(m.group(2)) if m else None
            if not fixture:
                continue
            for metric, values in metrics.items():
                unit = re.match(r"^real time \((\w+)\)$", metric)
                if unit and unit.group(1) in NS_PER_UNIT:
                    ns = values[0] * NS_PER_UNIT[unit.group(1)]
                    nbytes = metrics.get("bytes", [None])[0]
                    kube.setdefault((fixture, ops[m.group(1)]), {})[r] = (ns, nbytes)
    for path in glob.glob(os.path.join(raw, "text", "cgdecode_*.txt")):
        fixture = os.path.basename(path)[len("cgdecode_"):].split(".")[0]
        with open(path) as f:
            parsed = parse_text_run(f.read())
        for op in ("decode", "encode"):
            if (op, "ns_per_op") in parsed:
                cg.setdefault((fixture, op), {})[run_index(path)] = (
                    parsed[(op, "ns_per_op")], parsed.get((op, "bytes")))
    return kube, cg, errors


def median_range(values):
    med, lo, hi, n = summary(values)
    return fmt_num(med) if n == 1 else "%s [%s-%s]" % (fmt_num(med), fmt_num(lo), fmt_num(hi))


def typed_section(raw, ctx):
    """kubecpp's typed decode/encode beside client-go's, run by run (scripts/bench --areas typed)."""
    kube, cg, errors = typed_runs(raw)
    lines = ["- `typed_codec_bench` error: %s" % e for e in errors]
    if not kube and not cg:
        return lines + ["- no typed codec results (not run or failed; see the runner's lines).", ""]
    with_cg = bool(cg)
    if not with_cg:
        lines.append("- client-go (`cgdecode`): no results, so only kubecpp is shown.")
    if lines:
        lines.append("")
    if with_cg:
        lines += ["| fixture | op | JSON bytes | kubecpp ns/op median [min-max] | client-go ns/op median "
                  "[min-max] | runs | speed-up (client-go / kubecpp) | target >= %gx |" % TYPED_TARGET,
                  "|---|---|---|---|---|---|---|---|"]
    else:
        lines += ["| fixture | op | JSON bytes | kubecpp ns/op median [min-max] | runs |", "|---|---|---|---|---|"]
    for _, fixture in TYPED_FIXTURES:
        for op in ("decode", "encode"):
            k, g = kube.get((fixture, op), {}), cg.get((fixture, op), {})
            if not k and not g:
                continue
            sizes = []
            for side in (k, g):
                b = next((b for _, b in side.values() if b is not None), None)
                if b is not None and b not in sizes:
                    sizes.append(b)
            # encode: the bytes each side wrote, when they differ (kubecpp's first)
            size_txt = " / ".join("{:,.0f}".format(b) for b in sizes) or "-"
            k_txt = median_range([ns for ns, _ in k.values()]) if k else "-"
            if not with_cg:
                lines.append("| `%s` | %s | %s | %s | %d |" % (fixture, op, size_txt, k_txt, len(k)))
                continue
            g_txt = median_range([ns for ns, _ in g.values()]) if g else "-"
            ratios = [g[r][0] / k[r][0] for r in sorted(set(k) & set(g)) if k[r][0] > 0]
            if ratios:
                speedup = statistics.median(ratios)
                sp_txt = "%.2fx" % speedup if len(ratios) == 1 else "%.2fx [%.2f-%.2f]" % (
                    speedup, min(ratios), max(ratios))
                target = "met" if speedup >= TYPED_TARGET else "not met"
            else:
                sp_txt, target = "-", "-"
            lines.append("| `%s` | %s | %s | %s | %s | %d / %d | %s | %s |" % (
                fixture, op, size_txt, k_txt, g_txt, len(k), len(g), sp_txt, target))
    lines.append("")
    lines.append("Typed JSON decode of `testdata/<fixture>.json` into the generated structs "
                 "(`kube::api::FromJson<T>`; client-go: `scheme.Codecs.UniversalDeserializer()`) and "
                 "encode of the decoded object back to JSON (`kube::api::ToJson`; client-go's JSON "
                 "serializer), one object per operation, same fixtures, in the same run%s." % (
                     ": each run is one `typed_codec_bench` process (wall-clock real time per "
                     "iteration) followed by one `cgdecode` process per fixture (`-reps 1`)" if with_cg else ""))
    if with_cg:
        lines.append("")
        lines.append("Speed-up = the median over runs of the paired ratio client-go ns/op / kubecpp "
                     "ns/op of the same run (not the ratio of the medians), with the ratios' [min-max]; "
                     "> 1 means kubecpp is faster; the target is met when that median is >= %gx. "
                     "\"runs\" = kubecpp / client-go; \"JSON bytes\" = the fixture's size for decode, "
                     "the output's for encode (kubecpp / client-go when they differ)." % TYPED_TARGET)
    lines.append("")
    return lines


def scaling_records(raw):
    return load_jsonl(os.path.join(raw, "scaling.jsonl")) + load_jsonl(os.path.join(raw, "peers.jsonl"))


def scaling_section(raw, ctx):
    lines = []
    series = informer_series(scaling_records(raw))
    if series:
        lines += ["Informer sync time and peak RSS at sync against object count (median of the runs; "
                  "all peer_loader runs of this report, the \"peers\" area's included):", "",
                  "| client | N | time to synced, ms | [min-max] | peak RSS, MB | [min-max] | runs |",
                  "|---|---|---|---|---|---|---|"]
        for client, points in series.items():
            for n, sync, hwm in points:
                s_med, s_rng = spread(sync)
                h_med, h_rng = spread([v / 1024.0 for v in hwm])
                lines.append("| %s | {:,} | %s | %s | %s | %s | %d |".format(n) % (
                    client, s_med, s_rng, h_med, h_rng, len(sync)))
        lines.append("")
    else:
        lines.append("- informer scaling: no peer_loader results.")
    for title, key, plot in (("Informer sync time", "sync", "scaling_sync"),
                             ("Informer peak RSS", "rss", "scaling_rss"),
                             ("Watch fan-out latency", "fanout", "fanout_latency"),
                             ("Server write throughput", "writes", "write_throughput")):
        made = ctx["plots"].get(plot)
        if made:
            lines.append("%s: ![%s](%s) (SVG: [%s.svg](%s))" % (
                title, plot, made["png_link"], plot, made["svg_link"]))
        else:
            lines.append("- %s: no plot (%s)." % (title, ctx["plot_why"].get(plot, "no data")))
        lines.append("")
    for (bench, label, points) in curve_tables(raw):
        lines += ["%s (`%s`, median of the repetitions):" % (label, bench), "",
                  "| %s | %s |" % (points[0][0], " | ".join(k for k, _ in points[0][1])),
                  "|---|%s" % ("---|" * len(points[0][1]))]
        for x, vals in points[1:]:
            lines.append("| %s | %s |" % (x, " | ".join(fmt_num(v) for _, v in vals)))
        lines.append("")
    return lines


def informer_series(recs):
    """{client: [(n, [sync_ms], [vmhwm_kb])]} sorted by n (raw, the ceiling, is not a client)."""
    acc = {}
    for r in recs:
        if "error" in r or r.get("client") == "raw" or "sync_ms" not in r:
            continue
        acc.setdefault(r["client"], {}).setdefault(r["n"], ([], []))
        acc[r["client"]][r["n"]][0].append(r["sync_ms"])
        acc[r["client"]][r["n"]][1].append(r["vmhwm_kb"])
    order = {"kubecpp": 0, "node": 1, "python": 2}
    return {c: [(n, s, h) for n, (s, h) in sorted(acc[c].items())]
            for c in sorted(acc, key=lambda c: (order.get(c, 9), c))}


# Name suffixes Google Benchmark adds for run options, not arguments ("iterations:1", "real_time").
GBENCH_NAME_OPTIONS = {"iterations", "threads", "repeats", "min_time", "min_warmup_time"}


def gbench_points(raw, name, family):
    """{(args...): {metric: median}} for run names "<family>/<a>/<b>" in a gbench file."""
    path = os.path.join(raw, "gbench", name + ".json")
    if not os.path.exists(path):
        return {}
    data, _ = load_gbench(path)
    out = {}
    for bench, metrics in data.items():
        parts = bench.split(" (")[0].split("/")
        if parts[0] != family:
            continue
        args = []
        for p in parts[1:]:
            key, _, val = p.rpartition(":")
            if key in GBENCH_NAME_OPTIONS:
                continue
            if val.isdigit():
                args.append(int(val))
        args = tuple(args)
        out[args] = {m: statistics.median(v) for m, v in metrics.items()}
    return out


def curve_tables(raw):
    out = []
    fan = gbench_points(raw, "apiserver_server_bench_fanout", "BM_WatchFanoutWatchers")
    if fan:
        keys = ["p50_ms", "p99_ms", "max_ms", "events_delivered", "writes_per_s"]
        rows = [("watchers", [(k, 0) for k in keys])]
        for args in sorted(fan):
            rows.append((args[0], [(k, fan[args].get(k, float("nan"))) for k in keys]))
        out.append(("BM_WatchFanoutWatchers", "Watch fan-out latency against watcher count", rows))
    wr = gbench_points(raw, "apiserver_server_bench", "BM_HttpWriteThroughput")
    if wr:
        keys = ["creates_per_s", "updates_per_s", "p99_ms"]
        rows = [("storage / clients", [(k, 0) for k in keys])]
        for args in sorted(wr):
            storage = {0: "memory", 1: "sqlite"}.get(args[0], str(args[0])) if args else "?"
            rows.append(("%s / %s" % (storage, args[1] if len(args) > 1 else "?"),
                         [(k, wr[args].get(k, float("nan"))) for k in keys]))
        out.append(("BM_HttpWriteThroughput", "Server write throughput against concurrent clients", rows))
    return out


# ---------------------------------------------------------------- plots

def make_plots(raw, ctx):
    series = informer_series(scaling_records(raw))
    gnuplot.write_plot(ctx, "scaling_sync", "Informer initial sync", "objects (N)", "time to synced, ms",
               [(c, [(n, statistics.median(s)) for n, s, _ in pts]) for c, pts in series.items()], logy=True)
    gnuplot.write_plot(ctx, "scaling_rss", "Informer peak RSS at sync (VmHWM)", "objects (N)", "peak RSS, MB",
               [(c, [(n, statistics.median(h) / 1024.0) for n, _, h in pts]) for c, pts in series.items()],
               logy=True)
    fan = gbench_points(raw, "apiserver_server_bench_fanout", "BM_WatchFanoutWatchers")
    if fan:
        gnuplot.write_plot(ctx, "fanout_latency", "Watch fan-out: write-to-delivery latency", "watchers",
                   "latency, ms",
                   [(m, [(a[0], fan[a][m]) for a in sorted(fan) if m in fan[a]]) for m in ("p50_ms", "p99_ms")],
                   logy=True)
    else:
        ctx["plot_why"]["fanout_latency"] = "BM_WatchFanoutWatchers absent from the results"
    wr = gbench_points(raw, "apiserver_server_bench", "BM_HttpWriteThroughput")
    if wr:
        curves = []
        for storage, sname in ((0, "memory"), (1, "sqlite")):
            for m in ("creates_per_s", "updates_per_s"):
                pts = [(a[1], wr[a][m]) for a in sorted(wr) if len(a) > 1 and a[0] == storage and m in wr[a]]
                curves.append(("%s %s" % (sname, m), pts))
        gnuplot.write_plot(ctx, "write_throughput", "Server write throughput (HTTP)", "concurrent clients",
                   "writes/s", curves)
    else:
        ctx["plot_why"]["write_throughput"] = "BM_HttpWriteThroughput absent from the results"


# ---------------------------------------------------------------- report

def machine_lines(meta):
    def cmd(args):
        try:
            return subprocess.run(args, capture_output=True, text=True, timeout=10).stdout
        except OSError:
            return ""
    model = ""
    for line in cmd(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.1f GiB" % (int(line.split()[1]) / 1024.0 / 1024.0)
    except OSError:
        pass
    return [
        "- Command: `%s`" % meta.get("command", "?"),
        "- Date: %s to %s" % (meta.get("start", "?"), meta.get("end", "?")),
        "- Machine: nproc %s; CPU %s; RAM %s" % (os.cpu_count(), model or "?", mem or "?"),
        "- Load average (1, 5, 15 min): %s at the start, %s at the end" % (
            meta.get("load_start", "?"), meta.get("load_end", "?")),
        "- Compiler: %s; build dir `%s`" % (meta.get("compiler", "?"), meta.get("build_dir", "?")),
        "- Repetitions per benchmark: %s%s" % (meta.get("reps", "?"),
                                               " (`--quick`: smoke sizes, not comparable figures)"
                                               if meta.get("quick") == "1" else ""),
    ]


def build_report(raw, img_dir, img_link):
    meta = read_meta(raw)
    areas = meta.get("areas", " ".join(AREAS)).split()
    ctx = {"img_dir": img_dir, "img_link": img_link, "plots": {}, "plot_why": {},
           "terminals": gnuplot.terminals() if "scaling" in areas else None}
    if "scaling" in areas:
        make_plots(raw, ctx)
    lines = ["<!-- generated by scripts/bench (bench/report/make_report.py): do not edit by hand -->", ""]
    lines += machine_lines(meta) + [""]
    lines += ["Each table: median and [min-max] over the repetitions; \"kubecpp ahead by\" compares the "
              "median with the better of the two client-go runs quoted in `%s` (%s), > 1 meaning kubecpp "
              "is ahead. Those client-go figures come from another run, not this one. Google Benchmark rows: "
              "\"real time\" / \"cpu time\" per iteration (cpu time = the calling thread's, or the process's "
              "for `/process_time` names); its `items_per_second` / `bytes_per_second` are per CPU second "
              "unless the name ends in `real_time` / `manual_time`, so on a loaded machine they read higher "
              "than the wall clock allows; counters named `*_per_s` are the benchmark's own (wall clock in the "
              "current binaries)." % (README, CG), ""]
    for area in AREAS:
        if area in areas:
            lines += section(area, raw, ctx)
    return "\n".join(lines).rstrip() + "\n"


def write_docs(path, report):
    with open(path) as f:
        text = f.read()
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise SystemExit("make_report: %s has no %s ... %s block" % (path, begin, end))
    text = text[:i + len(begin)] + "\n" + report + text[j:]
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--img-dir", default=None, help="where plots go (default: <out's dir>/img)")
    ap.add_argument("--img-link", default=None, help="prefix of plot links in the report")
    ap.add_argument("--write-docs", default=None)
    a = ap.parse_args()
    img_dir = a.img_dir or os.path.join(os.path.dirname(os.path.abspath(a.out)), "img")
    img_link = a.img_link if a.img_link is not None else os.path.relpath(
        img_dir, os.path.dirname(os.path.abspath(a.out))) + "/"
    report = build_report(a.raw, img_dir, img_link)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(report)
    if a.write_docs:
        docs_dir = os.path.dirname(os.path.abspath(a.write_docs))
        # links relative to the docs file; area headings one level below its "### Generated report"
        write_docs(a.write_docs, report.replace(
            "](" + img_link, "](" + os.path.relpath(img_dir, docs_dir) + "/").replace("\n### ", "\n#### "))
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
