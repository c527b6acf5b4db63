#!/usr/bin/env python3
"""How often a fork of a benchmark lands in a slow mode, and what goes with it.

Runs one JMH benchmark (one parameter set) in many forks with smbdirect.bench.ThreadProfiler, then
puts the forks side by side: each fork's median iteration, the mode it falls in (the forks split at
the widest gap between their medians when the two groups differ by more than --gap, else one
mode), and the profiler's per-thread figures (CPU of the busy I/O pair, how often the kernel had both
on one CPU, context switches, JIT, GC, CPU used by other processes, steal). For each figure, the
mean in each mode and how far apart the modes are in standard deviations: the figures that separate
the modes are the candidates for why.

  python3 smbdirect.bench/src/main/scripts/spread.py --forks 20 'IwarpBench.engineWrite$' \\
      -p size=1048576 -p maxFpduSize=0 -p crc=true
  python3 smbdirect.bench/src/main/scripts/spread.py --json spread-20261127.json   # again, from a result

Everything after the benchmark pattern goes to JMH as it is (-p, -jvmArgsAppend, ...). Take the
figures on an otherwise quiet machine: other processes are themselves a cause (thr.host.others).
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

FIGURES = [
    ("thr.io.cpu", "I/O pair CPU ms/s"),
    ("thr.io.sameCpu", "pair on one CPU %"),
    ("thr.io.bothRunnable", "pair both runnable %"),
    ("thr.io.vcsw", "I/O sleeps /s"),
    ("thr.io.ivcsw", "I/O preempted /s"),
    ("thr.bench.cpu", "bench CPU ms/s"),
    ("thr.bench.vcsw", "bench sleeps /s"),
    ("thr.jit.cpu", "JIT ms/s"),
    ("thr.gc.cpu", "GC ms/s"),
    ("thr.host.others", "others ms/s"),
    ("thr.host.steal", "steal ms/s"),
]


def run_jmh(args, rest):
    out = Path(args.out or f"spread-{time.strftime('%Y%m%dT%H%M%S')}.json")
    cmd = ["java", "-jar", args.jar, args.pattern, "-f", str(args.forks), "-wi", str(args.warmup_iterations),
           "-i", str(args.iterations), "-w", "1s", "-r", "1s", "-prof", "smbdirect.bench.ThreadProfiler",
           "-rf", "json", "-rff", str(out)] + rest
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    return out


def modes(medians, gap):
    """Splits at the widest ratio between neighbours; returns the threshold or None for one mode."""
    ordered = sorted(medians)
    best, at = 1.0, None
    for a, b in zip(ordered, ordered[1:]):
        if a > 0 and b / a > best:
            best, at = b / a, (a, b)
    if at is None or best < gap:
        return None
    return math.sqrt(at[0] * at[1])


def report(path, gap):
    results = json.loads(Path(path).read_text())
    for r in results:
        params = " ".join(f"{k}={v}" for k, v in sorted((r.get("params") or {}).items()))
        forks = r["primaryMetric"]["rawData"]
        unit = r["primaryMetric"]["scoreUnit"]
        secondary = r.get("secondaryMetrics", {})
        rows = []
        for i, iterations in enumerate(forks):
            row = {"fork": i + 1, "median": statistics.median(iterations), "iterations": iterations}
            for key, _ in FIGURES:
                data = secondary.get(key, {}).get("rawData")
                row[key] = statistics.mean(data[i]) if data and i < len(data) and data[i] else float("nan")
            rows.append(row)
        threshold = modes([row["median"] for row in rows], gap)
        for row in rows:
            row["mode"] = "one" if threshold is None else ("slow" if row["median"] < threshold else "fast")
        print(f"\n{r['benchmark']} {params}: {len(rows)} forks, {unit}")
        header = f"{'fork':>4} {'median':>10} {'mode':>5} " + " ".join(f"{label[:12]:>12}" for _, label in FIGURES)
        print(header)
        for row in rows:
            print(f"{row['fork']:>4} {row['median']:>10.1f} {row['mode']:>5} "
                  + " ".join(f"{row[key]:>12.1f}" for key, _ in FIGURES))
        if threshold is None:
            spread = max(row["median"] for row in rows) / max(1e-9, min(row["median"] for row in rows))
            print(f"one mode: the fork medians differ by at most {spread:.2f}x (< {gap}x)")
            continue
        slow = [row for row in rows if row["mode"] == "slow"]
        fast = [row for row in rows if row["mode"] == "fast"]
        print(f"slow mode: {len(slow)} of {len(rows)} forks ({100.0 * len(slow) / len(rows):.0f} %), "
              f"median {statistics.median(r_['median'] for r_ in slow):.1f} against "
              f"{statistics.median(r_['median'] for r_ in fast):.1f} {unit}")
        print(f"{'figure':<24} {'slow mean':>10} {'fast mean':>10} {'apart (sd)':>11}")
        for key, label in FIGURES:
            a = [row[key] for row in slow if not math.isnan(row[key])]
            b = [row[key] for row in fast if not math.isnan(row[key])]
            if not a or not b:
                continue
            sd = statistics.pstdev(a + b) or 1e-9
            print(f"{label:<24} {statistics.mean(a):>10.1f} {statistics.mean(b):>10.1f} "
                  f"{(statistics.mean(a) - statistics.mean(b)) / sd:>11.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", help="analyse this JMH result instead of running")
    p.add_argument("--jar", default="smbdirect.bench/target/benchmarks.jar")
    p.add_argument("--forks", type=int, default=20)
    p.add_argument("--warmup-iterations", type=int, default=5)
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--gap", type=float, default=1.3, help="ratio between fork medians that makes two modes")
    p.add_argument("--out", help="where the JMH result goes (default spread-<time>.json)")
    p.add_argument("pattern", nargs="?", help="the benchmark, a JMH regexp naming one")
    args, rest = p.parse_known_args()
    if args.json:
        report(args.json, args.gap)
    elif args.pattern:
        report(run_jmh(args, rest), args.gap)
    else:
        p.error("name a benchmark, or --json a result")


if __name__ == "__main__":
    main()
