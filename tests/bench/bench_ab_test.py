#!/usr/bin/python3
"""Tests of scripts/bench-ab on fake Google Benchmark binaries: interleaved order, per-binary
medians, paired ratios per round, metric selection, and clear failures.

Run: /usr/bin/python3 tests/bench/bench_ab_test.py (standard library unittest; ctest runs it).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "bench-ab")

# A fake benchmark binary: appends its label to LOG, counts its own runs, and prints Google
# Benchmark JSON whose items_per_s is SCALE * (the machine's "speed" in this round), so that the
# binaries' values drift together from round to round while their ratio stays SCALE_B / SCALE_A.
FAKE = r'''#!/usr/bin/python3
import json, os, sys
label, scale, log = %(label)r, %(scale)r, %(log)r
with open(log, "a") as f:
    f.write(label + "\n")
runs = sum(1 for line in open(log) if line.strip() == label)
speed = [1.0, 2.0, 0.5, 3.0, 1.5][(runs - 1) %% 5]
if %(fail)r:
    sys.stderr.write("boom\n")
    sys.exit(3)
args = [a for a in sys.argv[1:] if a.startswith("--benchmark_filter=")]
doc = {"context": {}, "benchmarks": [
    {"name": "BM_A/iterations:1", "run_name": "BM_A/iterations:1", "run_type": "iteration",
     "iterations": 1, "real_time": 10.0 / (scale * speed), "cpu_time": 1.0, "time_unit": "ms",
     "items_per_s": 1e6 * scale * speed},
    {"name": "BM_A/iterations:1_median", "run_name": "BM_A/iterations:1", "run_type": "aggregate",
     "aggregate_name": "median", "real_time": 99.0, "items_per_s": 1.0},
]}
if args and "NOMATCH" in args[0]:
    doc["benchmarks"] = []
print(json.dumps(doc))
'''


class BenchAbTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench_ab_test.")
        self.log = os.path.join(self.dir, "order.log")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def fake(self, label, scale, fail=False):
        path = os.path.join(self.dir, label)
        with open(path, "w") as f:
            f.write(FAKE % {"label": label, "scale": scale, "log": self.log, "fail": fail})
        os.chmod(path, 0o755)
        return path

    def run_ab(self, *args):
        return subprocess.run([SCRIPT] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)

    def test_runs_interleaved_and_reports_medians_and_paired_ratios(self):
        a, b = self.fake("a", 1.0), self.fake("b", 1.1)
        proc = self.run_ab("--rounds", "5", a, b)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.log) as f:
            self.assertEqual(f.read().split(), ["a", "b"] * 5)
        out = proc.stdout
        self.assertIn("BM_A/iterations:1  items_per_s", out)
        # a's values are 1M x speeds (1, 2, 0.5, 3, 1.5): median 1.5M; b's are 1.1x those.
        self.assertRegex(out, r"\n  a +median 1\.5M +\[500k \.\. 3M\]  n=5\n")
        self.assertRegex(out, r"\n  b +median 1\.65M .*paired ratio b/a: median 1\.100 \[1\.10 \.\. 1\.10\]")
        # real_time is a metric too (lower is better): its paired ratio is 1/1.1.
        self.assertIn("BM_A/iterations:1  real_time", out)
        self.assertIn("paired ratio b/a: median 0.909", out)
        # aggregates are ignored (their real_time 99 would be the range's maximum)
        self.assertRegex(out, r"real_time\n  a +median 6\.667 +\[3\.333 \.\. 20\]  n=5\n")

    def test_metrics_and_names_select_and_label_the_rows(self):
        a, b = self.fake("a", 2.0), self.fake("b", 1.0)
        proc = self.run_ab("--rounds", "3", "--metrics", "items_per_s", "--names", "old,new", a, b)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("real_time", proc.stdout)
        self.assertIn("paired ratio new/old: median 0.500", proc.stdout)

    def test_a_failing_binary_is_reported_with_its_status(self):
        a, bad = self.fake("a", 1.0), self.fake("bad", 1.0, fail=True)
        proc = self.run_ab("--rounds", "2", a, bad)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("exited with status 3", proc.stderr)
        self.assertIn("boom", proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_bad_arguments_are_rejected_before_anything_runs(self):
        a = self.fake("a", 1.0)
        proc = self.run_ab(a, os.path.join(self.dir, "missing"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not an executable file", proc.stderr)
        self.assertFalse(os.path.exists(self.log), "a binary ran before the arguments were checked")
        proc = self.run_ab("--names", "x", a, a)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--names has 1 labels for 2 binaries", proc.stderr)
        proc = self.run_ab("--rounds", "0", a)
        self.assertEqual(proc.returncode, 2)

    def test_no_matching_benchmark_is_an_error(self):
        a = self.fake("a", 1.0)
        proc = self.run_ab("--rounds", "1", "--filter", "NOMATCH", a)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no benchmark matched", proc.stderr)

    def test_output_that_is_not_json_is_an_error(self):
        path = os.path.join(self.dir, "text")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho 'BM_A 10 ms'\n")
        os.chmod(path, 0o755)
        proc = self.run_ab("--rounds", "1", path)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not Google Benchmark JSON", proc.stderr)


if __name__ == "__main__":
    unittest.main()
