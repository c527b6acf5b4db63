#!/usr/bin/env python3
"""Turns JMH JSON result files (run with -prof gc) into the Markdown tables of the engine's JMH
results (as in docs/benchmarks/2026-11-24-engine-jmh.md; the current figures: BENCHMARKS.md).

Usage: python3 report.py results.json [more-results.json ...]

With several files (full runs of the same tree), each benchmark is taken from the run in which it
did best (highest throughput, or lowest p50 for SampleTime): on a shared host noise only ever slows
a run, so the best run is the closest to what the code can do. Its CPU and allocation figures come
from the same run. The last table says which run each row came from.
"""
import json
import sys


def load(paths):
    rows = {}
    for run, path in enumerate(paths, 1):
        for r in json.load(open(path)):
            name = r["benchmark"].split(".")[-2] + "." + r["benchmark"].split(".")[-1]
            params = r.get("params", {})
            pm = r["primaryMetric"]
            alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
            cpu = r.get("secondaryMetrics", {}).get("cpu.ns/op", {}).get("score")
            key = (name, tuple(sorted(params.items())))
            row = {"score": pm["score"], "unit": pm["scoreUnit"], "pct": pm.get("scorePercentiles", {}),
                   "alloc": alloc, "cpu": cpu, "params": params, "run": run}
            if key not in rows or better(row, rows[key]):
                rows[key] = row
    return rows


def better(a, b):
    """Whether result a beats result b of the same benchmark."""
    if a["unit"].endswith("/op"):  # time per operation (SampleTime): the lower p50
        return a["pct"].get("50.0", a["score"]) < b["pct"].get("50.0", b["score"])
    return a["score"] > b["score"]


def get(rows, name, **params):
    want = tuple(sorted((k, str(v)) for k, v in params.items()))
    r = rows.get((name, want))
    return r


def fmt_alloc(r):
    return "-" if r is None or r["alloc"] is None else f"{r['alloc']:.0f}"


def cpu(r):
    return float("nan") if r is None or r.get("cpu") is None else r["cpu"]


def main():
    rows = load(sys.argv[1:])
    out = []
    out.append("### Bulk, one way (GB/s of upper-layer payload)\n")
    out.append("Ratios: engine / copy floor (the 2 copies the engine makes) and engine / copy floor over the "
               "fabric (those 2 plus the mock's Send copy, 3 in all: every copy of the path over the mock).\n")
    out.append("| message | MaxSendSize | mode | copy floor (2) | copy floor over fabric (3) | raw mock | engine | engine / floor (2) | engine / floor (3) | target ≥ 0.8 met? | engine / raw mock | CPU µs/msg floor (3) | CPU µs/msg raw | CPU µs/msg engine | floor (3) / engine by CPU | (floor (2) + raw mock) / engine by CPU | B/op engine |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in (65536, 1048576):
        for send in (1364, 8192):
            floor = get(rows, "BulkBench.copyFloor", messageSize=size, sendSize=send)
            floor3 = get(rows, "BulkBench.copyFloorOverFabric", messageSize=size, sendSize=send)
            for mode in ("INLINE", "THREADED"):
                raw = get(rows, "BulkBench.rawMock", messageSize=size, sendSize=send, mode=mode)
                eng = get(rows, "BulkBench.engine", messageSize=size, sendSize=send, mode=mode)
                if not (floor and floor3 and raw and eng):
                    continue
                gb = lambda r: r["score"] * size / 1e9
                ratio = eng["score"] / floor["score"]
                ratio3 = eng["score"] / floor3["score"]
                met = (("2: yes" if ratio >= 0.8 else "2: **no**") + (", 3: yes" if ratio3 >= 0.8 else ", 3: **no**")) \
                    if send == 8192 else "-"
                out.append(f"| {size // 1024} KiB | {send} | {mode} | {gb(floor):.2f} | {gb(floor3):.2f} | {gb(raw):.2f} | "
                           f"{gb(eng):.2f} | {ratio:.2f} | {ratio3:.2f} | {met} | {eng['score'] / raw['score']:.2f} | "
                           f"{cpu(floor3) / 1e3:.1f} | {cpu(raw) / 1e3:.1f} | {cpu(eng) / 1e3:.1f} | "
                           f"{cpu(floor3) / cpu(eng):.2f} | {(cpu(floor) + cpu(raw)) / cpu(eng):.2f} | {fmt_alloc(eng)} |")
    out.append("")
    out.append("### Small messages, one way, 32 outstanding (ns per message = 1 / throughput)\n")
    out.append("| message | mode | copy floor (1 copy) | raw mock | engine | protocol cost (engine - raw) | target | met? | CPU ns/msg raw | CPU ns/msg engine | protocol cost by CPU | B/op engine |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in (64, 1024):
        floor = get(rows, "SmallBench.copyFloor", messageSize=size)
        for mode in ("INLINE", "THREADED"):
            raw = get(rows, "SmallBench.rawOneWay", messageSize=size, mode=mode)
            eng = get(rows, "SmallBench.engineOneWay", messageSize=size, mode=mode)
            if not (floor and raw and eng):
                continue
            ns = lambda r: 1000.0 / r["score"]
            cost = ns(eng) - ns(raw)
            out.append(f"| {size} B | {mode} | {ns(floor):.1f} | {ns(raw):.0f} | {ns(eng):.0f} | {cost:.0f} ns | ≤ 150 ns | "
                       f"{'yes' if cost <= 150 else '**no**'} | {cpu(raw):.0f} | {cpu(eng):.0f} | {cpu(eng) - cpu(raw):.0f} ns | "
                       f"{fmt_alloc(eng)} |")
    out.append("")
    out.append("### Ping-pong round trip (µs, SampleTime)\n")
    out.append("| message | mode | raw p50 | raw p99 | engine p50 | engine p99 | protocol cost p50 (engine - raw, both ways) | B/op engine |")
    out.append("|---|---|---|---|---|---|---|---|")
    for size in (64, 1024):
        for mode in ("INLINE", "THREADED"):
            raw = get(rows, "SmallBench.rawPingPong", messageSize=size, mode=mode)
            eng = get(rows, "SmallBench.enginePingPong", messageSize=size, mode=mode)
            if not (raw and eng):
                continue
            p = lambda r, q: r["pct"].get(q, float("nan"))
            out.append(f"| {size} B | {mode} | {p(raw, '50.0'):.2f} | {p(raw, '99.0'):.2f} | {p(eng, '50.0'):.2f} | "
                       f"{p(eng, '99.0'):.2f} | {(p(eng, '50.0') - p(raw, '50.0')) * 1000:.0f} ns | {fmt_alloc(eng)} |")
    out.append("")
    out.append("### RDMA through the API vs memcpy and the raw mock (GB/s; depth = transfers outstanding)\n")
    out.append("| size | op | mode | depth | memcpy | raw mock | engine | engine / memcpy | target ≥ 0.9 met? | raw mock / memcpy | engine / raw mock | CPU µs memcpy | CPU µs raw | CPU µs engine | B/op engine |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in (65536, 1048576):
        floor = get(rows, "RdmaBench.memcpy", size=size)
        for op, raw_op in (("rdmaWrite", "rawMockWrite"), ("rdmaRead", "rawMockRead")):
            for mode, depth in (("INLINE", 1), ("INLINE", 8), ("THREADED", 1), ("THREADED", 8)):
                eng = get(rows, "RdmaBench." + op, size=size, mode=mode, depth=depth)
                raw = get(rows, "RdmaBench." + raw_op, size=size, mode=mode, depth=depth)
                if not (floor and eng and raw):
                    continue
                gb = lambda r: r["score"] * size / 1e9
                ratio = eng["score"] / floor["score"]
                out.append(f"| {size // 1024} KiB | {op} | {mode} | {depth} | {gb(floor):.2f} | {gb(raw):.2f} | {gb(eng):.2f} | "
                           f"{ratio:.2f} | {'yes' if ratio >= 0.9 else '**no**'} | {raw['score'] / floor['score']:.2f} | "
                           f"{eng['score'] / raw['score']:.2f} | {cpu(floor) / 1e3:.2f} | {cpu(raw) / 1e3:.2f} | "
                           f"{cpu(eng) / 1e3:.2f} | {fmt_alloc(eng)} |")
    out.append("")
    out.append("### Allocation, every benchmark (gc.alloc.rate.norm, bytes per operation)\n")
    out.append("| benchmark | parameters | score | unit | CPU ns/op | B/op | run |")
    out.append("|---|---|---|---|---|---|---|")
    for (name, params), r in sorted(rows.items()):
        p = ", ".join(f"{k}={v}" for k, v in params)
        out.append(f"| {name} | {p} | {r['score']:.3f} | {r['unit']} | {cpu(r):.0f} | {fmt_alloc(r)} | {r['run']} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
