#!/usr/bin/python3
"""Makes the side-by-side table from peer_loader's JSON lines (stdin or files given as arguments).

One row per (N, client): median and [min-max] over the runs of time to synced, peak RSS at sync
(VmHWM) and per cached object, and watch events/s (backlog drain of M MODIFIED events), with the
ratio of each to kubecpp's median (peer / kubecpp for time and memory, kubecpp / peer for events/s:
> 1 means kubecpp is ahead). Rows whose runs failed are listed with their error.
"""
import fileinput
import json
import statistics


def fmt(values, digits=0, scale=1.0):
    vals = [v / scale for v in values]
    med = statistics.median(vals)
    spec = "{:,.%df}" % digits
    if len(vals) == 1:
        return spec.format(med)
    return (spec + " [" + spec + "-" + spec + "]").format(med, min(vals), max(vals))


def parse_lines(lines):
    """The JSON records among peer_loader's output lines (other lines are ignored)."""
    out = []
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def make_table(records):
    """The markdown table (and FAILED lines) for peer_loader records, as one string."""
    rows = {}
    errors = []
    for r in records:
        if "error" in r:
            errors.append(r)
            continue
        rows.setdefault((r["n"], r["client"]), []).append(r)
    order = {"kubecpp": 0}
    out = ["| N | client | runs | time to synced, ms | ratio | peak RSS at sync, MB | ratio | RSS / object, B "
           "| watch events/s (M) | kubecpp ahead by |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for (n, name) in sorted(rows, key=lambda k: (k[0], order.get(k[1], 1), k[1])):
        rs = rows[(n, name)]
        base = rows.get((n, "kubecpp"))
        sync = [r["sync_ms"] for r in rs]
        hwm = [r["vmhwm_kb"] for r in rs]
        eps = [r["events_per_s"] for r in rs]
        per_obj = [r["vmhwm_kb"] * 1024 / n for r in rs]
        if name == "raw":  # the delivery ceiling: no cache, its list is limit=1
            out.append("| {:,} | raw (ceiling, no decoding) | {} | - | | - | | - | {} ({:,}) | {} |".format(
                n, len(rs), fmt(eps), rs[0]["m"],
                "%.2fx" % (statistics.median([b["events_per_s"] for b in base]) / statistics.median(eps))
                if base else ""))
            continue
        if base and name != "kubecpp":
            r_sync = "%.1fx" % (statistics.median(sync) / statistics.median([b["sync_ms"] for b in base]))
            r_hwm = "%.1fx" % (statistics.median(hwm) / statistics.median([b["vmhwm_kb"] for b in base]))
            r_eps = "%.1fx" % (statistics.median([b["events_per_s"] for b in base]) / statistics.median(eps))
        else:
            r_sync = r_hwm = r_eps = ""
        out.append("| {:,} | {} | {} | {} | {} | {} | {} | {} | {} ({:,}) | {} |".format(
            n, name, len(rs), fmt(sync), r_sync, fmt(hwm, 0, 1024.0), r_hwm, fmt(per_obj), fmt(eps),
            rs[0]["m"], r_eps))
    for e in errors:
        out.append("")
        out.append("FAILED: N=%s client=%s run=%s: %s" % (e.get("n"), e.get("client"), e.get("run"), e["error"]))
    return "\n".join(out)


def main():
    print(make_table(parse_lines(fileinput.input())))


if __name__ == "__main__":
    main()
