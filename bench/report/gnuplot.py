#!/usr/bin/python3
"""Line plots through gnuplot for bench/report/make_report.py (issue 10): one PNG and one SVG per
plot, from (x, y) series, with whatever png terminal the installed gnuplot has (pngcairo, else the
libgd png; Debian's gnuplot-nox has both, and svg). Standard library only.

ctx is make_report's plot context: "terminals" (from terminals()), "img_dir", "img_link", and the
dicts "plots" (name -> links of what was written) and "plot_why" (name -> why nothing was).
"""
import os
import re
import subprocess


def terminals():
    """(png terminal, svg terminal) of the installed gnuplot, each None if absent; None if no gnuplot."""
    try:
        out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout + out.stderr
    png = "pngcairo" if re.search(r"^\s*pngcairo\s", text, re.M) else (
        "png" if re.search(r"^\s*png\s", text, re.M) else None)
    svg = "svg" if re.search(r"^\s*svg\s", text, re.M) else None
    return png, svg


def write_plot(ctx, name, title, xlabel, ylabel, series, logx=True, logy=False):
    """series: [(label, [(x, y)])]. Writes <img>/<name>.png and .svg through gnuplot."""
    series = [(label, pts) for label, pts in series if pts]
    if not series:
        ctx["plot_why"][name] = "no data points"
        return
    terms = ctx["terminals"]
    if not terms or not terms[0] or not terms[1]:
        ctx["plot_why"][name] = "gnuplot with png and svg terminals not found (scripts/bootstrap --bench)"
        return
    img = ctx["img_dir"]
    os.makedirs(img, exist_ok=True)
    dat = os.path.join(img, name + ".dat")
    with open(dat, "w") as f:
        f.write("# %s: %s against %s, one block per series\n" % (title, ylabel, xlabel))
        for label, pts in series:
            f.write("# %s\n" % label)
            for x, y in pts:
                f.write("%s %s\n" % (x, y))
            f.write("\n\n")
    plots = ", ".join("'%s' index %d using 1:2 with linespoints title '%s'" % (
        dat.replace("'", ""), i, label.replace("'", "")) for i, (label, _) in enumerate(series))
    common = ["set title '%s'" % title.replace("'", ""), "set xlabel '%s'" % xlabel,
              "set ylabel '%s'" % ylabel, "set key top left", "set grid",
              "set offsets graph 0.05, graph 0.05, 0, 0"]
    if logx:
        common.append("set logscale x")
    if logy:
        common.append("set logscale y")
    else:
        common.append("set yrange [0:*]")
    script = []
    for term, ext in ((terms[0], "png"), (terms[1], "svg")):
        script += ["set terminal %s noenhanced size 800,500" % term, "set output '%s'" % os.path.join(img, name + "." + ext)]
        script += common + ["plot " + plots, "unset output"]
    res = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", capture_output=True, text=True,
                         timeout=60)
    os.remove(dat)
    if res.returncode != 0:
        ctx["plot_why"][name] = "gnuplot failed: " + res.stderr.strip()[:200]
        return
    ctx["plots"][name] = {"png_link": ctx["img_link"] + name + ".png",
                          "svg_link": ctx["img_link"] + name + ".svg"}
