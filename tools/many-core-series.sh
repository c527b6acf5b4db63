#!/usr/bin/env bash
# The many-core series in one command, within a time budget, on a machine that may have no JDK and
# none of the floors' tools: with the kit of tools/many-core-kit.sh beside the checkout, from the
# repository's root:
#
#   tools/many-core-series.sh --kit target/many-core-kit.tar.xz --out /tmp/series --budget 480
#   tools/many-core-series.sh --plan            # the phases and their estimates, nothing run
#   tools/many-core-series.sh --phases "scale-8p small-same"   # only these, in the order below
#
# Runs, one after the other, each only while the budget allows its estimate (a phase left out says
# so in the summary):
#   1 scale-1-8    tools/scale-bench.sh: 1 and 8 connections in one perf process against 1 and 8
#                  iperf3 processes, Sends in 1,364- and 8,192-byte fragments, RDMA Write and Read
#   2 scale-8p     the same for 8 connections in 8 perf processes (--processes), without send-8192
#   3 small-split  tools/small-bench.sh: the 64-byte round trip and the 64 B and 1 KiB message rates
#                  against sockperf, qperf and Java's NIO, the two ends on different CPUs
#   4 scale-grow   2, 4 and 16 connections in one process, Sends of 1,364 bytes and RDMA Write, 1 round
#   5 small-same   the small messages again with both ends on one CPU
# each with 3 rounds of 3 s after 1 s of warm-up (scale-grow 1 round), the connecting ends on the
# first half of the CPUs and the listening ends on the second (--placement split; any where taskset
# is missing). Writes three files to --out: series.md (the machine, then each phase's table, its
# command and its time), series.log (everything the scripts printed) and series-data.tar.gz (every
# TSV and table). Exits 0 when every phase that ran succeeded, whether or not the budget left some out.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
KIT="$ROOT/target/many-core-kit"
OUT_DIR="${OUT:-$ROOT/target/many-core-series}"
BUDGET=480
PLAN=0
ONLY=""
ROUNDS=3
SECONDS_PER_RUN=3
WARMUP=1

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    echo "options: --kit DIR or its packed .tar.xz / .tar.gz (default target/many-core-kit; none: the java and"
    echo "         tools on the PATH)"
    echo "         --out DIR (default \$OUT, else target/many-core-series)  --budget SECONDS (default $BUDGET)"
    echo "         --rounds N (default $ROUNDS)  --seconds S (default $SECONDS_PER_RUN)  --warmup S (default $WARMUP)"
    echo "         --phases \"P ...\" (default: all)  --plan"
}

fail() {
    echo "many-core-series: $*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case "$1" in
        --kit) KIT="$2"; shift 2 ;;
        --out) OUT_DIR="$2"; shift 2 ;;
        --budget) BUDGET="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --seconds) SECONDS_PER_RUN="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --plan) PLAN=1; shift ;;
        --phases) ONLY="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) fail "unknown option '$1' (--help lists them)" ;;
    esac
done
for v in "$BUDGET" "$ROUNDS" "$SECONDS_PER_RUN" "$WARMUP"; do
    [[ "$v" =~ ^[0-9]+$ ]] || fail "--budget, --rounds, --seconds and --warmup take whole numbers, not '$v'"
done
[ "$ROUNDS" -ge 1 ] && [ "$SECONDS_PER_RUN" -ge 1 ] || fail "--rounds and --seconds take at least 1"

# Estimated seconds of a phase: per run the measured time and warm-up plus about 2 s of starting
# (a JVM, or iperf3's connection); scale-bench runs per round and N two floors and one perf run per
# workload, small-bench per round nine runs (sockperf, qperf's latency, NioPingPong, perf's round
# trip, and two rates of perf and of qperf each, with a margin for perf's server).
run_s=$((SECONDS_PER_RUN + WARMUP + 2))
scale_estimate() { # ROUNDS N-COUNT WORKLOAD-COUNT
    echo $(($1 * $2 * (2 + $3) * run_s))
}
small_estimate() { # ROUNDS
    echo $(($1 * 9 * (SECONDS_PER_RUN + 2)))
}

PHASES=(scale-1-8 scale-8p small-split scale-grow small-same)
declare -A ESTIMATE
ESTIMATE[scale-1-8]=$(scale_estimate "$ROUNDS" 2 4)
ESTIMATE[scale-8p]=$(scale_estimate "$ROUNDS" 1 3)
ESTIMATE[small-split]=$(small_estimate "$ROUNDS")
ESTIMATE[scale-grow]=$(scale_estimate 1 3 2)
ESTIMATE[small-same]=$(small_estimate "$ROUNDS")
phase_command() { # PHASE -> cmd: the script of tools/ and the phase's own options
    case "$1" in
        scale-1-8) cmd=(scale-bench.sh --connections "1 8" --workloads "send-1364 send-8192 write read") ;;
        scale-8p) cmd=(scale-bench.sh --processes --connections 8 --workloads "send-1364 write read") ;;
        scale-grow) cmd=(scale-bench.sh --connections "2 4 16" --workloads "send-1364 write") ;;
        small-*) cmd=(small-bench.sh) ;;
    esac
    local placement="$PLACEMENT" rounds="$ROUNDS"
    [ "$1" = small-same ] && [ "$PLACEMENT" = split ] && placement=same
    [ "$1" = scale-grow ] && rounds=1
    cmd+=(--rounds "$rounds" --placement "$placement")
}
if [ -n "$ONLY" ]; then
    for p in $ONLY; do
        [ -n "${ESTIMATE[$p]:-}" ] || fail "unknown phase '$p' (phases: ${PHASES[*]})"
    done
    asked=()
    for p in "${PHASES[@]}"; do
        [[ " $ONLY " == *" $p "* ]] && asked+=("$p")
    done
    PHASES=("${asked[@]}")
fi

# both ends pinned to CPUs of their own where taskset is there (small-same: on one)
PLACEMENT=split
command -v taskset >/dev/null || PLACEMENT=any

if [ "$PLAN" = 1 ]; then
    total=0
    for p in "${PHASES[@]}"; do
        total=$((total + ESTIMATE[$p]))
        phase_command "$p"
        printf '%-12s about %4d s (%4d s from the start)  %s\n' "$p" "${ESTIMATE[$p]}" "$total" \
            "$(printf '%q ' "${cmd[@]}")"
    done
    echo "budget $BUDGET s: phases whose estimate would pass it are left out"
    exit 0
fi

mkdir -p "$OUT_DIR"
DATA="$(mktemp -d /tmp/many-core-series.XXXXXX)"
trap 'rm -rf "$DATA"' EXIT
mkdir "$DATA/figures"
# the kit's runtime and tools first on the PATH; a packed kit unpacked beside the figures
case "$KIT" in
    *.tar.xz|*.tar.gz)
        [ -f "$KIT" ] || fail "no packed kit at $KIT"
        mkdir "$DATA/kit"
        tar -xf "$KIT" -C "$DATA/kit"
        KIT="$(find "$DATA/kit" -mindepth 1 -maxdepth 1 -type d | head -1)" ;;
esac
if [ "$KIT" != none ]; then
    [ -x "$KIT/rt/bin/java" ] || fail "no kit at $KIT (tools/many-core-kit.sh makes one; --kit none uses the PATH)"
    export JAVA="$KIT/rt/bin/java"
    export PATH="$KIT/bin:$PATH"
    export LD_LIBRARY_PATH="$KIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export NIO_CLASSES="$KIT/classes"
    JAR="$KIT/smbdirect.jar"
else
    export JAVA="${JAVA:-java}"
    JAR="$ROOT/smbdirect.dist/target/smbdirect.jar"
fi
LOG="$OUT_DIR/series.log"
MD="$OUT_DIR/series.md"
: > "$LOG"

START=$(date +%s)
{
    echo "# Many-core series, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    model="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    memory="$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "* machine: $(nproc) CPUs ($model), $memory, kernel $(uname -r)"
    echo "* runtime: $("$JAVA" -version 2>&1 | head -1); jar $JAR of $(date -u -r "$JAR" '+%Y-%m-%d %H:%M UTC')"
    [ -f "$KIT/VERSIONS" ] && sed 's/^/* kit: /' "$KIT/VERSIONS"
    for t in iperf3 sockperf qperf taskset; do
        command -v "$t" >/dev/null && echo "* $t: $(command -v "$t")" || echo "* $t: **missing**"
    done
    echo "* placement: $PLACEMENT; $ROUNDS rounds of $SECONDS_PER_RUN s after $WARMUP s of warm-up; budget $BUDGET s"
    echo "* load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$MD"

needs() { # PHASE TOOL...: whether every tool is there (else the summary says which is not)
    local p="$1" t
    shift
    for t in "$@"; do
        command -v "$t" >/dev/null || { printf '\n## %s: not run, %s is missing\n' "$p" "$t" >> "$MD"; return 1; }
    done
}

failed=0
for p in "${PHASES[@]}"; do
    elapsed=$(($(date +%s) - START))
    if [ $((elapsed + ESTIMATE[$p])) -gt "$BUDGET" ]; then
        printf '\n## %s: left out (%d s of the budget of %d s used, its estimate %d s)\n' "$p" "$elapsed" "$BUDGET" \
            "${ESTIMATE[$p]}" >> "$MD"
        continue
    fi
    case "$p" in
        scale-*) needs "$p" iperf3 || continue ;;
        small-*) needs "$p" sockperf qperf || continue ;;
    esac
    common=(--seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" --jar "$JAR" --out "$DATA/figures/$p.tsv")
    phase_command "$p"
    cmd=("$HERE/${cmd[0]}" "${cmd[@]:1}" "${common[@]}")
    t0=$(date +%s)
    echo "=== $p: ${cmd[*]}" >> "$LOG"
    if "${cmd[@]}" >> "$LOG" 2>&1; then
        status="$(($(date +%s) - t0)) s"
    else
        status="**failed** after $(($(date +%s) - t0)) s (series.log)"
        failed=1
    fi
    {
        printf '\n## %s (%s, estimate %d s)\n\n`%s`\n\n' "$p" "$status" "${ESTIMATE[$p]}" "${cmd[*]#"$ROOT/"}"
        [ -f "$DATA/figures/$p.md" ] && cat "$DATA/figures/$p.md"
    } >> "$MD"
done
printf '\nThe series took %d s; load average at the end: %s\n' "$(($(date +%s) - START))" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$MD"
tar -czf "$OUT_DIR/series-data.tar.gz" -C "$DATA/figures" .
cat "$MD"
exit "$failed"
