#!/usr/bin/env python3
"""Turns JMH JSON results of IwarpBench (run with -prof gc) into the iWARP tables of the
dated runs (as in docs/benchmarks/2026-11-26-iwarp-loopback.md; the current figures: BENCHMARKS.md).

Usage: python3 iwarp_report.py run1.json [run2.json ...]

Throughput in MB/s (10^6 bytes of payload per second) and the ratio to the plain TCP floor of the
same size. With several files each row is taken from the run in which it did best (noise only ever
slows a run on a shared host), the floor too; the ratio within each run is given as well, so a
floor from one run is never silently paired with a figure from another, and their median is the
figure to judge a target by.
"""
import json
import statistics
import sys


def load(paths):
    runs = []
    for path in paths:
        rows = {}
        for r in json.load(open(path)):
            name = r["benchmark"].split(".")[-1]
            params = r.get("params", {})
            size = int(params["size"])
            key = (name, size, params.get("maxFpduSize"), params.get("crc"), params.get("sendSize"))
            alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {})
            raw = alloc.get("rawData") or [[]]
            rows[key] = {
                "mbs": r["primaryMetric"]["score"] * size / 1e6,
                "alloc": alloc.get("score"),
                "alloc_min": min(raw[0]) if raw and raw[0] else None,
            }
        runs.append(rows)
    return runs


def main():
    runs = load(sys.argv[1:])
    keys = sorted({k for run in runs for k in run if k[0] != "tcpFloor"},
                  key=lambda k: (k[0], k[1], int(k[2]), k[3] != "true", int(k[4] or 0)))
    print("| benchmark | size | FPDU | CRC | fragments | MB/s (best run) | TCP floor MB/s (best run) | ratio of bests | ratio in each run | median ratio in a run | B/op (best run; lowest iteration) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        name, size, fpdu, crc, send = k
        best = max((run[k] for run in runs if k in run), key=lambda r: r["mbs"])
        floor = max(run[("tcpFloor", size, None, None, None)]["mbs"] for run in runs
                    if ("tcpFloor", size, None, None, None) in run)
        per_run = []
        ratios = []
        for run in runs:
            f = run.get(("tcpFloor", size, None, None, None))
            if k in run and f:
                ratios.append(run[k]['mbs'] / f['mbs'])
                per_run.append(f"{ratios[-1]:.2f}")
        median = f"{statistics.median(ratios):.2f}" if ratios else "-"
        alloc = "-" if best["alloc"] is None else f"{best['alloc']:.0f}; {best['alloc_min']:.1f}"
        print(f"| {name} | {size // 1024} KiB | {fpdu} | {'on' if crc == 'true' else 'off'} | {send or '-'} "
              f"| {best['mbs']:.0f} | {floor:.0f} | {best['mbs'] / floor:.2f} | {' / '.join(per_run)} | **{median}** | {alloc} |")


if __name__ == "__main__":
    main()
