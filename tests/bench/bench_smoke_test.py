#!/usr/bin/python3
"""End-to-end smoke test of scripts/bench (issue 10): runs the cheapest area ("parse": object_bench
with --quick) against an already built build dir, without building, into a temporary report, and
checks that the report has the machine lines and a table of numeric medians from that run.

usage: bench_smoke_test.py OBJECT_BENCH BUILD_DIR   (ctest passes both; OBJECT_BENCH must exist)
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OBJECT_BENCH = BUILD_DIR = ""

NUMBER = re.compile(r"^[0-9][0-9,]*(\.[0-9]+)?( M)?$|^[0-9.]+e-?[0-9]+$")


def number(cell):
    return float(cell.replace(",", "").replace(" M", "e6"))


class ScriptsBenchParse(unittest.TestCase):
    def test_quick_parse_area_writes_a_table_of_numeric_medians(self):
        self.assertTrue(os.access(OBJECT_BENCH, os.X_OK), "object_bench not built: " + OBJECT_BENCH)
        with tempfile.TemporaryDirectory(prefix="bench_smoke.") as tmp:
            out = os.path.join(tmp, "report.md")
            res = subprocess.run([os.path.join(ROOT, "scripts", "bench"), "--quick", "--areas", "parse",
                                  "--no-build", "--build-dir", BUILD_DIR, "--out", out],
                                 capture_output=True, text=True, timeout=110)
            self.assertEqual(res.returncode, 0, res.stderr[-2000:])
            with open(out) as f:
                report = f.read()
            # the raw Google Benchmark JSON it was made from is kept beside the report
            self.assertTrue(os.path.getsize(os.path.join(tmp, "raw", "gbench", "object_bench.json")) > 100)
        self.assertIn("- Command: `scripts/bench --quick --areas parse --no-build", report)
        self.assertRegex(report, r"- Load average \(1, 5, 15 min\): [0-9.]+ [0-9.]+ [0-9.]+ at the start")
        self.assertIn("### Object parse", report)
        self.assertNotIn("### Workqueue", report)
        rows = {}
        for line in report.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 7 and cells[0].startswith("BM_"):
                rows[(cells[0], cells[1])] = cells
        parse_rows = [k for k in rows if k[0].startswith("BM_ObjectParse/") and k[1].startswith("real time (")]
        self.assertEqual(len(parse_rows), 3, sorted(rows))
        for key in parse_rows:
            median, spread, runs = rows[key][2:5]
            self.assertRegex(median, NUMBER, key)
            self.assertGreater(number(median), 0, key)
            self.assertEqual((spread, runs), ("-", "1"), key)  # --quick: one repetition
        # a counter row: the BenchObject JSON is ~1.4 KB (shape of ../shared/bench)
        json_bytes = [number(rows[k][2]) for k in rows if k[0] == "BM_ObjectParse/0 (BenchObject)" and k[1] == "json_bytes"]
        self.assertEqual(len(json_bytes), 1, sorted(rows))
        self.assertGreater(json_bytes[0], 1000)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    OBJECT_BENCH, BUILD_DIR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1])
