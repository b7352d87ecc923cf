#!/usr/bin/python3
"""Tests of bench/report/make_report.py (issue 10) on fixed raw results: medians, spreads, the
client-go ratios, the parsing of custom-main output, absent areas, the docs block, the plots and
the typed area's table beside client-go's cgdecode.

Run: /usr/bin/python3 tests/bench/report_test.py (standard library unittest; ctest runs it).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "report"))
import make_report  # noqa: E402

GENERATOR = os.path.join(ROOT, "bench", "report", "make_report.py")


def gbench_entry(run_name, rep, real_time, unit="ms", run_type="iteration", cpu_time=None, **counters):
    e = {"name": run_name if run_type == "iteration" else run_name + "_median", "run_name": run_name,
         "run_type": run_type, "repetitions": 3, "repetition_index": rep, "threads": 1,
         "iterations": 1, "real_time": real_time,
         "cpu_time": real_time if cpu_time is None else cpu_time, "time_unit": unit}
    e.update(counters)
    return e


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def row_of(report, *cells):
    """The report's table row whose leading cells are `cells` (stripped), split into cells."""
    for line in report.splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if parts[:len(cells)] == list(cells):
            return parts
    raise AssertionError("no row starting with %r in:\n%s" % (cells, report))


class Fixture(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="report_test.")
        self.raw = os.path.join(self.dir, "raw")
        self.out = os.path.join(self.dir, "report.md")
        self.img = os.path.join(self.dir, "img")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def meta(self, areas):
        for k, v in {"command": "scripts/bench --areas test", "start": "s", "end": "e",
                     "load_start": "1.00 2.00 3.00", "load_end": "4.00 5.00 6.00",
                     "compiler": "g++ 12", "reps": "3", "quick": "0", "build_dir": "b",
                     "areas": areas}.items():
            write(os.path.join(self.raw, "meta", k), v + "\n")

    def report(self):
        return make_report.build_report(self.raw, self.img, "img/")


class GbenchTables(Fixture):
    def setUp(self):
        super().setUp()
        self.meta("workqueue")
        runs = [(0, 30.0, 1.0e6, 70.0), (1, 10.0, 3.0e6, 32.0), (2, 20.0, 2.0e6, 40.0)]
        benches = []
        for rep, t, rate, late in runs:
            benches.append(gbench_entry("BM_Queue_1MDistinctKeys_2Workers/short_keys:0", rep, t, cpu_time=t / 10,
                                        items_per_s=rate, cpu_ns_per_item=100.0 + rep))
            benches.append(gbench_entry("BM_DelayingQueue_100kAddAfter_Lateness", rep, t, late_p99_ms=late))
        # aggregates must not count as repetitions
        benches.append(gbench_entry("BM_Queue_1MDistinctKeys_2Workers/short_keys:0", 0, 999.0,
                                    run_type="aggregate", items_per_s=9e9))
        write(os.path.join(self.raw, "gbench", "workqueue_bench.json"),
              json.dumps({"context": {}, "benchmarks": benches}))

    def test_median_and_spread_over_iteration_runs_only(self):
        r = self.report()
        row = row_of(r, "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "items_per_s")
        self.assertEqual(row[2:5], ["2,000,000", "[1,000,000-3,000,000]", "3"])
        row = row_of(r, "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "real time (ms)")
        self.assertEqual(row[2:5], ["20.0", "[10.0-30.0]", "3"])
        row = row_of(r, "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "cpu time (ms)")
        self.assertEqual(row[2:5], ["2.00", "[1.00-3.00]", "3"])

    def test_rate_ratio_is_against_the_better_client_go_run(self):
        # client-go quoted 2.54 M and 2.83 M items/s: 2.0 M / 2.83 M
        row = row_of(self.report(), "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "items_per_s")
        self.assertIn("2,540,000 / 2,830,000", row[5])
        self.assertEqual(row[6], "0.71x")

    def test_latency_ratio_is_client_go_over_kubecpp(self):
        # client-go p99 lateness 64 / 73 ms; kubecpp median 40 ms: 64 / 40 = 1.60x ahead
        row = row_of(self.report(), "BM_DelayingQueue_100kAddAfter_Lateness", "late_p99_ms")
        self.assertEqual(row[2], "40.0")
        self.assertEqual(row[6], "1.60x")

    def test_metric_without_reference_has_no_ratio(self):
        row = row_of(self.report(), "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "cpu_ns_per_item")
        self.assertEqual(row[2], "101")
        self.assertEqual(row[5:7], ["", ""])

    def test_go_side_by_side_is_absent_when_go_did_not_run(self):
        self.assertIn("- Side by side with Go: no `go_workqueue` results", self.report())

    def test_go_side_by_side_pairs_medians_by_benchmark_and_metric(self):
        for r, (rate, late, items) in enumerate([(1.0e6, 80.0, 5), (4.0e6, 100.0, 7), (0.5e6, 60.0, 6)], 1):
            write(os.path.join(self.raw, "text", "go_workqueue.%d.txt" % r),
                  "BM_Queue_1MDistinctKeys_2Workers/short_keys:0 items_per_s=%.0f cpu_ns_per_item=200\n"
                  "BM_DelayingQueue_100kAddAfter_Lateness late_p99_ms=%.1f after_burst_items=%d\n"
                  "BM_Queue_SingleThread_AddGetDone/short_keys:0 ns_per_item=300\n" % (rate, late, items))
        side = self.report().split("Side by side on this machine")[1]
        # kubecpp median 2.0 M items/s, Go median 1.0 M: kubecpp ahead by 2x
        row = row_of(side, "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "items_per_s")
        self.assertEqual(row[2:7], ["2,000,000", "1,000,000", "[500,000-4,000,000]", "3", "2.00x"])
        # lower is better: Go 200 ns of CPU per item, kubecpp 101: 200 / 101
        row = row_of(side, "BM_Queue_1MDistinctKeys_2Workers/short_keys:0", "cpu_ns_per_item")
        self.assertEqual(row[6], "1.98x")
        # Go p99 80 ms, kubecpp 40 ms: 2x
        self.assertEqual(row_of(side, "BM_DelayingQueue_100kAddAfter_Lateness", "late_p99_ms")[6], "2.00x")
        # a count gets no ratio; a Go benchmark kubecpp did not run gets no kubecpp figure
        self.assertEqual(row_of(side, "BM_DelayingQueue_100kAddAfter_Lateness", "after_burst_items")[6], "")
        self.assertEqual(row_of(side, "BM_Queue_SingleThread_AddGetDone/short_keys:0", "ns_per_item")[2:7],
                         ["-", "300", "[300-300]", "3", ""])

    def test_machine_and_command_are_in_the_report(self):
        r = self.report()
        self.assertIn("`scripts/bench --areas test`", r)
        self.assertIn("1.00 2.00 3.00 at the start, 4.00 5.00 6.00 at the end", r)
        self.assertIn("nproc %d" % os.cpu_count(), r)


class TextRuns(Fixture):
    def test_cache_bench_runs_split_into_fifo_and_informer_tables(self):
        self.meta("fifo informer")
        for r, (add, sync, eps) in enumerate([(2.0, 400.0, 100), (4.0, 600.0, 300), (3.0, 500.0, 200)], 1):
            write(os.path.join(self.raw, "text", "cache_bench.%d.txt" % r),
                  "deltafifo_add            %.2f M/s\n"
                  "deltafifo_replace_ms     %.1f\n"
                  "informer_sync_100k_ms      %.1f\n"
                  "informer_events_per_s    %d k (incl. JSON parse of each event)\n"
                  "heap_per_cached_object   3000 B after sync, 3100 B after the events\n" % (add, 53.0, sync, eps))
        rep = self.report()
        fifo = rep.split("### Informer")[0]
        row = row_of(fifo, "deltafifo_add", "M/s")
        self.assertEqual(row[2:5], ["3.00", "[2.00-4.00]", "3"])
        self.assertEqual(row[6], "1.64x")  # 3.00 / 1.83
        self.assertNotIn("informer_sync_100k_ms", fifo)
        row = row_of(rep, "informer_sync_100k_ms", "")
        self.assertEqual(row[2], "500")
        self.assertEqual(row[6], "1.03x")  # 513 / 500
        row = row_of(rep, "informer_events_per_s", "k")
        self.assertEqual(row[6], "1.36x")  # 200 / 147
        self.assertEqual(row_of(rep, "heap_per_cached_object", "B")[2], "3,000")

    def test_go_informer_runs_sit_beside_the_fifo_and_informer_tables(self):
        self.meta("fifo informer")
        for r, (add, sync) in enumerate([(2.0, 400.0), (4.0, 600.0), (3.0, 500.0)], 1):
            write(os.path.join(self.raw, "text", "cache_bench.%d.txt" % r),
                  "deltafifo_add            %.2f M/s\n"
                  "informer_sync_100k_ms      %.1f\n" % (add, sync))
        for r, (add, sync) in enumerate([(1.0, 900.0), (1.5, 1100.0)], 1):
            write(os.path.join(self.raw, "text", "go_informer.%d.txt" % r),
                  "deltafifo_add            %.2f M/s\n"
                  "informer_sync_100k_ms      %.1f\n"
                  "informer_events_fresh_per_s 60 k\n" % (add, sync))
        self.meta("fifo informer")
        write(os.path.join(self.raw, "meta", "go_version"), "go1.19.8\n")
        rep = self.report()
        fifo, informer = rep.split("### Informer")
        side = fifo.split("Side by side on this machine")[1]
        self.assertIn("Go go1.19.8", fifo)
        # a rate: kubecpp 3.00 / Go 1.25 (median of two runs)
        self.assertEqual(row_of(side, "deltafifo_add", "M/s")[2:7], ["3.00", "1.25", "[1.00-1.50]", "2", "2.40x"])
        self.assertNotIn("informer_sync", side)
        side = informer.split("Side by side on this machine")[1]
        # a time: Go 1,000 ms / kubecpp 500 ms
        self.assertEqual(row_of(side, "informer_sync_100k_ms", "")[6], "2.00x")
        # a Go shape kubecpp does not run: no kubecpp figure, no ratio
        self.assertEqual(row_of(side, "informer_events_fresh_per_s", "k")[2], "-")
        self.assertEqual(row_of(side, "informer_events_fresh_per_s", "k")[6], "")

    def test_cpu_figures_and_prose_are_parsed_not_taken_for_units(self):
        self.meta("fifo informer")
        for r, (wall, cpu) in enumerate([(0.39, 1.6), (0.30, 2.0), (0.47, 1.2)], 1):
            write(os.path.join(self.raw, "text", "cache_bench.%d.txt" % r),
                  "deltafifo_add_plus_pop   %.2f M/s  (cpu %.3f us/item = 0.29 M/s of CPU)\n"
                  "deltafifo_replace_ms     98.1  (cpu 66.0 ms)\n"
                  "informer_events_json_per_s   46 k  (cpu 18.12 us/event = 55 k/s of CPU; each event)\n"
                  "informer_events_prebuilt_per_s 117 k  (cpu 10.87 us/event = 92 k/s of CPU)\n" % (wall, cpu))
        rep = self.report()
        self.assertEqual(row_of(rep, "deltafifo_add_plus_pop", "M/s")[2:4], ["0.39", "[0.30-0.47]"])
        self.assertEqual(row_of(rep, "deltafifo_add_plus_pop", "cpu us/item")[2:4], ["1.60", "[1.20-2.00]"])
        self.assertEqual(row_of(rep, "deltafifo_replace_ms", "")[2], "98.1")
        self.assertEqual(row_of(rep, "deltafifo_replace_ms", "cpu ms")[2], "66.0")
        self.assertNotIn("| (cpu", rep)
        self.assertEqual(row_of(rep, "deltafifo_add_plus_pop", "M/s")[6], "1.26x")  # 0.39 / 0.31
        self.assertEqual(row_of(rep, "deltafifo_add_plus_pop", "cpu us/item")[5:7], ["", ""])
        self.assertEqual(row_of(rep, "deltafifo_replace_ms", "cpu ms")[5:7], ["", ""])
        self.assertEqual(row_of(rep, "informer_events_json_per_s", "k")[6], "0.31x")  # 46 / 147
        self.assertEqual(row_of(rep, "informer_events_prebuilt_per_s", "k")[6], "0.50x")  # 117 / 234
        self.assertEqual(row_of(rep, "informer_events_json_per_s", "cpu us/event")[6], "")

    def test_controller_key_value_lines(self):
        self.meta("reconcile")
        for r, p99 in enumerate([5.0, 9.0, 7.0], 1):
            write(os.path.join(self.raw, "text", "controller_bench.%d.txt" % r),
                  "noop_reconcile objects=1000 workers=4 start_to_all_reconciled_ms=120 steady_reconciles_per_s=9000\n"
                  "event_to_reconcile patches_per_s=200 patches=200 p50_ms=1.50 p99_ms=%.2f max_ms=12.0\n" % p99)
        rep = self.report()
        row = row_of(rep, "event_to_reconcile patches_per_s=200", "p99_ms")
        self.assertEqual(row[2:5], ["7.00", "[5.00-9.00]", "3"])
        row_of(rep, "noop_reconcile objects=1000 workers=4", "steady_reconciles_per_s")


class AbsentAndFailed(Fixture):
    def test_absent_results_are_reported_not_fatal(self):
        self.meta("workqueue fanout server reconcile peers scaling decode")
        write(os.path.join(self.raw, "fanout.status"), "failed: apiserver_server_bench exited with 1\n")
        subprocess.run([sys.executable, GENERATOR, "--raw", self.raw, "--out", self.out, "--img-dir", self.img],
                       check=True, capture_output=True)
        with open(self.out) as f:
            rep = f.read()
        self.assertIn("`workqueue_bench`: no results", rep)
        self.assertIn("- failed: apiserver_server_bench exited with 1", rep)
        self.assertIn("`BM_WatchFanoutWatchers/<watchers>`: absent", rep)
        self.assertIn("`BM_HttpWriteThroughput/<storage>/<clients>`: absent", rep)
        self.assertIn("`controller_bench`: no results", rep)
        self.assertIn("no peer results", rep)
        self.assertIn("Python watch decode: no results", rep)
        self.assertNotIn("| BM_", rep)

    def test_empty_json_is_listed_not_fatal(self):
        self.meta("fanout scaling")
        write(os.path.join(self.raw, "gbench", "apiserver_server_bench_fanout.json"), "")
        rep = self.report()
        self.assertIn("`apiserver_server_bench_fanout` error: unreadable JSON", rep)
        self.assertIn("Watch fan-out latency: no plot (BM_WatchFanoutWatchers absent", rep)

    def test_benchmark_error_is_listed(self):
        self.meta("parse")
        write(os.path.join(self.raw, "gbench", "object_bench.json"), json.dumps({"benchmarks": [
            dict(gbench_entry("BM_ObjectParse/0", 0, 1.0), error_occurred=True, error_message="boom")]}))
        self.assertIn("`object_bench` error: BM_ObjectParse/0: boom", self.report())


class PeersAndScaling(Fixture):
    def setUp(self):
        super().setUp()
        self.meta("peers scaling")
        lines = []
        for n, base in ((1000, 10.0), (10000, 100.0), (100000, 1000.0)):
            for run, f in enumerate([1.0, 1.2, 0.8], 1):
                lines.append({"client": "kubecpp", "run": run, "n": n, "m": 1000, "sync_ms": base * f,
                              "vmhwm_kb": n * 4, "events_per_s": 10000.0 * f})
                lines.append({"client": "node", "run": run, "n": n, "m": 1000, "sync_ms": 2 * base * f,
                              "vmhwm_kb": n * 16, "events_per_s": 5000.0 * f})
        write(os.path.join(self.raw, "peers.jsonl"), "\n".join(json.dumps(x) for x in lines[6:]) + "\n")
        write(os.path.join(self.raw, "scaling.jsonl"), "\n".join(json.dumps(x) for x in lines[:6]) + "\n")
        fan = []
        for w, p99 in ((1, 1.0), (10, 2.0), (100, 5.0)):
            for rep in range(3):
                fan.append(gbench_entry("BM_WatchFanoutWatchers/%d/iterations:1/real_time" % w, rep, 10.0,
                                        p50_ms=p99 / 2, p99_ms=p99 + rep - 1, max_ms=9.0,
                                        events_delivered=100.0 * w, writes_per_s=500.0))
        write(os.path.join(self.raw, "gbench", "apiserver_server_bench_fanout.json"),
              json.dumps({"benchmarks": fan}))
        writes = []
        for storage in (0, 1):
            for clients in (1, 8):
                for rep, f in enumerate((1.0, 0.5, 2.0)):
                    writes.append(gbench_entry("BM_HttpWriteThroughput/%d/%d/real_time" % (storage, clients), rep,
                                               1.0, creates_per_s=1000.0 * clients * f / (storage + 1),
                                               updates_per_s=2000.0 * clients * f, p99_ms=3.0 * f))
        write(os.path.join(self.raw, "gbench", "apiserver_server_bench.json"), json.dumps({"benchmarks": writes}))

    def test_peer_table_with_ratios(self):
        rep = self.report()
        row = row_of(rep, "10,000", "node")
        self.assertEqual(row[3:5], ["200 [160-240]", "2.0x"])  # node 2x slower than kubecpp
        self.assertIn("client-go reference figures", rep)

    def test_scaling_merges_both_files_and_tabulates_curves(self):
        rep = self.report()
        self.assertEqual(row_of(rep, "kubecpp", "1,000")[2:4], ["10.0", "[8.00-12.0]"])
        self.assertEqual(row_of(rep, "node", "100,000")[2], "2,000")
        self.assertEqual(row_of(rep, "100")[1:3], ["2.50", "5.00"])  # watchers 100: p50, p99 median
        # storage 1 = sqlite, 8 clients: creates median 1000 * 8 / 2, updates 2000 * 8, p99 3 ms
        self.assertEqual(row_of(rep, "sqlite / 8")[1:4], ["4,000", "16,000", "3.00"])
        self.assertEqual(row_of(rep, "memory / 1")[1], "1,000")

    def test_plots_are_written_when_gnuplot_is_present(self):
        rep = self.report()
        if shutil.which("gnuplot"):
            for name in ("scaling_sync", "scaling_rss", "fanout_latency", "write_throughput"):
                for ext in ("png", "svg"):
                    path = os.path.join(self.img, name + "." + ext)
                    self.assertTrue(os.path.getsize(path) > 1000, path)
                self.assertIn("(img/%s.png)" % name, rep)
            with open(os.path.join(self.img, "scaling_sync.svg")) as f:
                svg = f.read()
            self.assertIn("kubecpp", svg)
            self.assertIn("node", svg)
            with open(os.path.join(self.img, "write_throughput.svg")) as f:
                self.assertIn("sqlite creates_per_s", f.read())  # underscores not taken as subscripts
        else:
            self.assertIn("no plot (gnuplot", rep)


class TypedCodecs(Fixture):
    """The typed area: typed_codec_bench run r beside cgdecode run r on the same fixtures."""

    def kube_run(self, r, times, unit="ns"):
        """gbench/typed_codec_bench.<r>.json with {benchmark suffix: (real_time, bytes)}."""
        benches = [gbench_entry(name, 0, t, unit=unit, bytes=b) for name, (t, b) in times.items()]
        write(os.path.join(self.raw, "gbench", "typed_codec_bench.%d.json" % r),
              json.dumps({"benchmarks": benches}))

    def cg_run(self, r, fixture, decode_ns, encode_ns, decode_bytes=4726, encode_bytes=4726):
        write(os.path.join(self.raw, "text", "cgdecode_%s.%d.txt" % (fixture, r)),
              "decode kind=Pod bytes=%d ns_per_op=%.0f mb_per_s=12.3 allocs_per_op=180 bytes_per_op=9000\n"
              "encode kind=Pod bytes=%d ns_per_op=%.0f mb_per_s=45.6\n"
              % (decode_bytes, decode_ns, encode_bytes, encode_ns))

    def setUp(self):
        super().setUp()
        self.meta("parse typed")
        # pod_4k decode: kubecpp 1000 / 2000 / 1500 ns, client-go 4000 / 5000 / 3000: paired ratios
        # 4, 2.5, 2 (median 2.5, not the ratio of the medians 4000 / 1500 = 2.67); encode: kubecpp
        # 100 ns each run, client-go 400 / 300 / 500: ratios 4, 3, 5.
        for r, (kd, gd, ge) in enumerate([(1000, 4000, 400), (2000, 5000, 300), (1500, 3000, 500)], 1):
            self.kube_run(r, {"BM_TypedDecode_Pod4k": (kd, 4726), "BM_TypedEncode_Pod4k": (100, 4700),
                              "BM_TypedDecode_Deployment": (3000, 15000)})
            self.cg_run(r, "pod_4k", gd, ge)

    def test_rows_pair_the_runs_and_take_the_median_of_the_ratios(self):
        rep = self.report()
        row = row_of(rep, "`pod_4k`", "decode")
        self.assertEqual(row[2:8], ["4,726", "1,500 [1,000-2,000]", "4,000 [3,000-5,000]", "3 / 3",
                                    "2.50x [2.00-4.00]", "not met"])
        row = row_of(rep, "`pod_4k`", "encode")
        # the encoded sizes differ: kubecpp's first
        self.assertEqual(row[2:8], ["4,700 / 4,726", "100 [100-100]", "400 [300-500]", "3 / 3",
                                    "4.00x [3.00-5.00]", "met"])
        self.assertIn("median over runs of the paired ratio", rep)
        self.assertIn("not the ratio of the medians", rep)
        self.assertIn("target >= 3x", rep)
        self.assertIn("Typed JSON decode of `testdata/<fixture>.json` into the generated structs", rep)

    def test_a_fixture_client_go_did_not_run_has_no_ratio(self):
        row = row_of(self.report(), "`deployment_15k`", "decode")
        self.assertEqual(row[3:8], ["3,000 [3,000-3,000]", "-", "3 / 0", "-", "-"])

    def test_only_runs_present_on_both_sides_are_paired(self):
        os.remove(os.path.join(self.raw, "text", "cgdecode_pod_4k.2.txt"))
        row = row_of(self.report(), "`pod_4k`", "decode")
        # runs 1 and 3: ratios 4 and 2
        self.assertEqual(row[5:8], ["3 / 2", "3.00x [2.00-4.00]", "met"])

    def test_time_units_are_converted_to_ns(self):
        for r in (1, 2, 3):
            self.kube_run(r, {"BM_TypedDecode_Pod15k": (10.0, 15000)}, unit="us")
            self.cg_run(r, "pod_15k", 50000, 20000, 15000, 15000)
        row = row_of(self.report(), "`pod_15k`", "decode")
        self.assertEqual(row[3:8], ["10,000 [10,000-10,000]", "50,000 [50,000-50,000]", "3 / 3",
                                    "5.00x [5.00-5.00]", "met"])

    def test_without_cgdecode_the_table_says_so_and_shows_kubecpp_only(self):
        shutil.rmtree(os.path.join(self.raw, "text"))
        write(os.path.join(self.raw, "typed.status"),
              "skipped: the client-go column (../shared/peers/bin/cgdecode not found)\n")
        rep = self.report()
        typed = rep.split("### Typed JSON codecs")[1]
        self.assertIn("- skipped: the client-go column (../shared/peers/bin/cgdecode not found)", typed)
        self.assertIn("- client-go (`cgdecode`): no results, so only kubecpp is shown.", typed)
        self.assertEqual(row_of(typed, "`pod_4k`", "decode")[2:], ["4,726", "1,500 [1,000-2,000]", "3"])
        self.assertNotIn("client-go ns/op", typed)
        self.assertNotIn("speed-up", typed)

    def test_the_area_follows_parse_and_absent_results_are_not_fatal(self):
        shutil.rmtree(os.path.join(self.raw, "text"))
        shutil.rmtree(os.path.join(self.raw, "gbench"))
        rep = self.report()
        self.assertLess(rep.index("### Object parse"), rep.index("### Typed JSON codecs"))
        self.assertIn("- no typed codec results (not run or failed", rep)
        self.assertNotIn("| `pod_4k`", rep)

    def test_benchmark_errors_are_listed(self):
        write(os.path.join(self.raw, "gbench", "typed_codec_bench.1.json"), json.dumps({"benchmarks": [
            dict(gbench_entry("BM_TypedDecode_Pod4k", 0, 1.0), error_occurred=True, error_message="bad json")]}))
        rep = self.report()
        self.assertIn("- `typed_codec_bench` error: run 1: BM_TypedDecode_Pod4k: bad json", rep)
        self.assertEqual(row_of(rep, "`pod_4k`", "decode")[5], "2 / 3")


class WriteDocs(Fixture):
    def test_only_the_marked_block_is_replaced(self):
        self.meta("parse")
        write(os.path.join(self.raw, "gbench", "object_bench.json"), json.dumps({"benchmarks": [
            gbench_entry("BM_ObjectParse/0", 0, 1.5, unit="us")]}))
        docs = os.path.join(self.dir, "docs", "performance.md")
        write(docs, "# Perf\nbefore\n<!-- bench:begin -->\nold table\n<!-- bench:end -->\nafter\n")
        subprocess.run([sys.executable, GENERATOR, "--raw", self.raw, "--out", self.out, "--img-dir",
                        os.path.join(self.dir, "docs", "img"), "--write-docs", docs],
                       check=True, capture_output=True)
        with open(docs) as f:
            text = f.read()
        self.assertTrue(text.startswith("# Perf\nbefore\n<!-- bench:begin -->\n"))
        self.assertTrue(text.endswith("<!-- bench:end -->\nafter\n"))
        self.assertNotIn("old table", text)
        self.assertEqual(row_of(text, "BM_ObjectParse/0", "real time (us)")[2], "1.50")

    def test_missing_markers_fail(self):
        self.meta("parse")
        docs = os.path.join(self.dir, "perf.md")
        write(docs, "# no markers\n")
        res = subprocess.run([sys.executable, GENERATOR, "--raw", self.raw, "--out", self.out,
                              "--write-docs", docs], capture_output=True, text=True)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("bench:begin", res.stderr)


if __name__ == "__main__":
    unittest.main()
