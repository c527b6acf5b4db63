#!/usr/bin/env bash
# Small messages (SMB2's requests and responses) against TCP's own, in the same run: the round trip
# and the message rate of `perf` of the runtime jar (two processes, software iWARP) beside sockperf's
# TCP ping-pong and qperf's tcp_lat and tcp_bw (Debian's sockperf and qperf) on the same path. On
# loopback (no root needed):
#
#   tools/small-bench.sh                        # 3 rounds, 10 s each
#   tools/small-bench.sh --rounds 5 --seconds 20
#   tools/small-bench.sh --netns --mtu 1500     # as root: across two network namespaces
#   tools/small-bench.sh --placement split      # the two ends on different CPUs
#
# Each round measures, one after the other:
#   rtt        perf --direction pingpong --size 64 --depth 1: the round trip's p50 and p99
#              (HdrHistogram), each against the same percentile of TCP's round trip by
#              sockperf ping-pong --tcp -m 64 --full-rtt (one message outstanding, every round trip
#              kept); qperf -m 64 tcp_lat's mean (it prints half the round trip: TCP's is twice
#              that) is kept beside them as a check of the floor (rtt-mean-qperf: sockperf's mean
#              over qperf's)
#   rtt-nio    the same percentiles against tools/NioPingPong.java (Java's own NIO over TCP, one
#              selector thread each end, no protocol): the floor of any transport on a Java
#              selector, so perf's ratio to it is what SMB Direct over iWARP adds
#   rate-64    perf --direction send --size 64 --depth 32: messages/s, against qperf -m 64 tcp_bw
#              (its bytes/s divided by 64)
#   rate-1024  the same with 1 KiB messages, against qperf -m 1024 tcp_bw
# and each perf figure is divided by TCP's of the same round (a ratio above 1 is slower for the round
# trip, faster for the rate). Writes every figure to a TSV file (--out) and one markdown table beside
# it (the same name, .md): per figure the median of the rounds and the spread (min-max), with the
# machine, the kernel, the JVM, sockperf, qperf and the load average. --netns runs the listening ends in one
# network namespace and the others in a second, joined by a veth pair (needs root and iproute2; both
# are removed on exit, SIGINT and SIGTERM; names smb<PID>a/b).
#
# Where the two ends run decides the round trip more than anything else: on a machine whose idle CPUs
# sleep (a VM's vCPUs above all), a round trip between two CPUs pays for waking the other one twice,
# and one on a single CPU only for two context switches. --placement pins every process of every tool
# the same way (taskset), on the CPUs this process may use: same (both ends on the first: the round
# trip is the two ends' work), split (the client's end on the first half of them, the server's on the
# second half; on two CPUs one each: the wake-ups between CPUs), any (the default: where the scheduler
# puts them, which may change from one run to the next).
set -euo pipefail

ROUNDS=3
SECONDS_PER_RUN=10
WARMUP=2
DEPTH=32
NETNS=0
MTU=1500
PLACEMENT=any
PERF_PORT=15446
QPERF_PORT=19766
SOCKPERF_PORT=19767
NIO_PORT=19768
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR="$HERE/../smbdirect.dist/target/smbdirect.jar"
OUT=""
JAVA="${JAVA:-java}"
JAVA_OPTS="${JAVA_OPTS:-}"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    cat <<EOF
options: --rounds N (default $ROUNDS)  --seconds S measured per run (default $SECONDS_PER_RUN)
         --warmup S of perf before each run, not counted (default $WARMUP; 0: none)
         --depth N of the message-rate runs (default $DEPTH)
         --netns (as root: two namespaces)  --mtu 1500|9000 (with --netns; default $MTU)
         --placement any|same|split (default $PLACEMENT: see above)
         --perf-port P (default $PERF_PORT)  --qperf-port P (default $QPERF_PORT)
         --sockperf-port P (default $SOCKPERF_PORT)  --nio-port P (default $NIO_PORT)
         --jar PATH (default smbdirect.dist/target/smbdirect.jar)  --out FILE.tsv (the table: FILE.md)
environment: JAVA (default: java on the PATH), JAVA_OPTS (JVM options of the perf processes),
             NIO_CLASSES (a folder with NioPingPong.class compiled, for a runtime without javac's module)
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --seconds) SECONDS_PER_RUN="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --depth) DEPTH="$2"; shift 2 ;;
        --netns) NETNS=1; shift ;;
        --mtu) MTU="$2"; shift 2 ;;
        --placement) PLACEMENT="$2"; shift 2 ;;
        --perf-port) PERF_PORT="$2"; shift 2 ;;
        --qperf-port) QPERF_PORT="$2"; shift 2 ;;
        --sockperf-port) SOCKPERF_PORT="$2"; shift 2 ;;
        --nio-port) NIO_PORT="$2"; shift 2 ;;
        --jar) JAR="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "small-bench: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done

NAME=small-bench
PREFIX=smb
# shellcheck source=bench-lib.sh
. "$HERE/bench-lib.sh"
number() { [[ "$2" =~ ^[0-9]+$ ]] || fail "$1 takes a whole number, not '$2'"; }
number --rounds "$ROUNDS"
number --seconds "$SECONDS_PER_RUN"
number --warmup "$WARMUP"
number --depth "$DEPTH"
number --perf-port "$PERF_PORT"
number --qperf-port "$QPERF_PORT"
number --sockperf-port "$SOCKPERF_PORT"
number --nio-port "$NIO_PORT"
[ "$ROUNDS" -ge 1 ] && [ "$SECONDS_PER_RUN" -ge 1 ] || fail "--rounds and --seconds take at least 1"
case "$MTU" in 1500|9000) ;; *) fail "--mtu takes 1500 or 9000, not '$MTU'" ;; esac
bench_placement_check "$PLACEMENT"
command -v qperf >/dev/null || fail "needs qperf (apt-get install qperf)"
command -v sockperf >/dev/null || fail "needs sockperf (apt-get install sockperf)"
command -v "$JAVA" >/dev/null || fail "needs java 17 or later ($JAVA)"
[ -f "$JAR" ] || fail "no runtime jar at $JAR (mvn -B -DskipTests package -pl smbdirect.dist -am)"
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
if [ "$NETNS" = 1 ]; then
    [ "$(id -u)" -eq 0 ] || fail "--netns needs root (ip netns, ip link add ... type veth)"
    command -v ip >/dev/null || fail "--netns needs iproute2 (ip)"
fi
[ -n "$OUT" ] || OUT="small-bench-$(date -u +%Y%m%dT%H%M%SZ).tsv"
MD="${OUT%.tsv}.md"

bench_start

bench_ends "$MTU" 4
bench_place "$PLACEMENT"
mkdir -p "$WORK/home"

# qperf's figures in one unit: "latency = 26.3 us" -> microseconds, "bw = 121 MB/sec" -> bytes/s
qperf_us() { awk '/latency/ { v = $3; u = $4 } END { f = (u == "ns") ? 0.001 : (u == "us") ? 1 : (u == "ms") ? 1000 : 1e6; if (v == "") exit 1; printf "%.3f", v * f }' "$1"; }
qperf_bytes() { awk '/bw/ { v = $3; u = $4 } END { f = (u == "bytes/sec") ? 1 : (u == "KB/sec") ? 1e3 : (u == "MB/sec") ? 1e6 : 1e9; if (v == "") exit 1; printf "%.0f", v * f }' "$1"; }
# perf's latency "p50 53.2 us" -> microseconds
to_us() { awk -v v="$1" -v u="$2" 'BEGIN { f = (u == "ns") ? 0.001 : (u == "us") ? 1 : (u == "ms") ? 1000 : 1e6; printf "%.3f", v * f }'; }

# Runs COMMAND on the client's side into LOG, in the background so that cleanup can end it, and
# waits for it; fails naming WHAT with its output when it fails.
client_run() { # LOG WHAT COMMAND...
    local log="$1" what="$2"
    shift 2
    "${IN_A[@]}" "$@" > "$log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    wait "$pid" || { cat "$log" >&2; fail "$what failed"; }
}

qperf_run() { # LOG TEST MESSAGE_SIZE
    client_run "$1" "qperf $2" qperf -lp "$QPERF_PORT" "$SERVER_ADDR" -t "$SECONDS_PER_RUN" -m "$3" "$2"
}

# sockperf's "---> percentile 99.000 =   90.083" (microseconds; the round trip with --full-rtt) and
# "avg-rtt=57.729" -> microseconds
sockperf_us() { # LOG PERCENTILE|mean
    sed 's/\x1b\[[0-9;]*m//g' "$1" | awk -v p="$2" '
        p == "mean" && match($0, /avg-rtt=[0-9.]+/) { v = substr($0, RSTART + 8, RLENGTH - 8) }
        p != "mean" && $2 == "--->" && $3 == "percentile" && $4 + 0 == p + 0 { v = $6 }
        END { if (v == "") exit 1; printf "%.3f", v }'
}

sockperf_run() { # LOG
    client_run "$1" "sockperf ping-pong" sockperf ping-pong --tcp -i "$SERVER_ADDR" -p "$SOCKPERF_PORT" -m 64 \
        -t "$SECONDS_PER_RUN" --full-rtt
    grep -q "percentile 99.000" "$1" || { cat "$1" >&2; fail "sockperf printed no percentiles"; }
}

# NioPingPong from its source (java runs it with javac's module), or compiled in NIO_CLASSES
if [ -n "${NIO_CLASSES:-}" ]; then
    NIO=("$JAVA" -cp "$NIO_CLASSES" NioPingPong)
else
    NIO=("$JAVA" "$HERE/NioPingPong.java")
fi

nio_run() { # LOG
    client_run "$1" "NioPingPong client" "${NIO[@]}" client "$SERVER_ADDR" "$NIO_PORT" "$SECONDS_PER_RUN" "$WARMUP" 64
}

perf_run() { # LOG OPTIONS...
    local log="$1" warm=()
    shift
    [ "$WARMUP" -gt 0 ] && warm=(--warmup "${WARMUP}s")
    # shellcheck disable=SC2086
    (cd "$WORK/home" && exec "${IN_A[@]}" "$JAVA" $JAVA_OPTS -jar "$JAR" perf --provider iwarp \
        --connect "$SERVER_ADDR:$PERF_PORT" "$@" "${warm[@]}" --duration "${SECONDS_PER_RUN}s") > "$log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    wait "$pid" || { cat "$log" >&2; fail "perf $* failed"; }
    cat "$log" >> "$WORK/clients.txt"
}

"${IN_B[@]}" qperf --listen_port "$QPERF_PORT" > "$WORK/qperf-server.txt" 2>&1 &
PIDS+=("$!")
"${IN_B[@]}" sockperf server --tcp -i "$SERVER_ADDR" -p "$SOCKPERF_PORT" > "$WORK/sockperf-server.txt" 2>&1 &
SOCKPERF_SERVER=$!
PIDS+=("$SOCKPERF_SERVER")
"${IN_B[@]}" "${NIO[@]}" server "$SERVER_ADDR" "$NIO_PORT" > "$WORK/nio-server.txt" 2>&1 &
NIO_SERVER=$!
PIDS+=("$NIO_SERVER")
# shellcheck disable=SC2086
(cd "$WORK/home" && exec "${IN_B[@]}" "$JAVA" $JAVA_OPTS -jar "$JAR" perf --provider iwarp \
    --listen "$SERVER_ADDR:$PERF_PORT") > "$WORK/perf-server.txt" 2>&1 &
PERF_SERVER=$!
PIDS+=("$PERF_SERVER")
wait_for "$WORK/perf-server.txt" "perf server listening" 120 "$PERF_SERVER"
wait_for "$WORK/sockperf-server.txt" "block on socket" 30 "$SOCKPERF_SERVER"
wait_for "$WORK/nio-server.txt" "nio server listening" 60 "$NIO_SERVER"

MACHINE="$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))"
JVM="$("$JAVA" -version 2>&1 | head -1)"
QPERF_VERSION="$(qperf --version 2>&1 | head -1 | sed "s/^qperf //")"
SOCKPERF_VERSION="$(sockperf --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1)"
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "small-bench: $WHERE; $MACHINE; kernel $(uname -r); $JVM; sockperf $SOCKPERF_VERSION; qperf $QPERF_VERSION; load average at start $LOAD_START"
echo "small-bench: rounds $ROUNDS; $SECONDS_PER_RUN s per run ($WARMUP s of perf warm-up before); depth $DEPTH for the rates; figures to $OUT and $MD"
printf 'round\tfigure\tperf\ttcp\tratio\tunit\n' > "$OUT"
row() { # ROUND FIGURE PERF TCP UNIT
    local ratio
    ratio="$(awk -v p="$3" -v t="$4" 'BEGIN { printf "%.3f", (t > 0 ? p / t : 0) }')"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$ratio" "$5" >> "$OUT"
    echo "round $1, $2: perf $3 $5, floor $4 $5, ratio $ratio"
}

for round in $(seq 1 "$ROUNDS"); do
    qperf_run "$WORK/lat.txt" tcp_lat 64
    qperf_rtt="$(awk -v h="$(qperf_us "$WORK/lat.txt")" 'BEGIN { printf "%.3f", 2 * h }')"
    sockperf_run "$WORK/sockperf.txt"
    row "$round" "rtt-mean-qperf" "$(sockperf_us "$WORK/sockperf.txt" mean)" "$qperf_rtt" us
    perf_run "$WORK/pingpong.txt" --direction pingpong --size 64 --depth 1
    # "  round-trip latency p50 53.2 us, p99 77.8 us (HdrHistogram, 3 significant digits)"
    read -r p50 p50u p99 p99u <<< "$(sed -n 's/^  round-trip latency p50 \([0-9.]*\) \([a-z]*\), p99 \([0-9.]*\) \([a-z]*\) .*/\1 \2 \3 \4/p' "$WORK/pingpong.txt")"
    [ -n "${p99u:-}" ] || { cat "$WORK/pingpong.txt" >&2; fail "perf printed no round-trip latency"; }
    row "$round" "rtt-p50" "$(to_us "$p50" "$p50u")" "$(sockperf_us "$WORK/sockperf.txt" 50)" us
    row "$round" "rtt-p99" "$(to_us "$p99" "$p99u")" "$(sockperf_us "$WORK/sockperf.txt" 99)" us
    nio_run "$WORK/nio.txt"
    # "nio round trip p50 16.1 us, p99 35.6 us, mean 17.0 us, 462150 round trips"
    read -r n50 n99 <<< "$(sed -n 's/^nio round trip p50 \([0-9.]*\) us, p99 \([0-9.]*\) us,.*/\1 \2/p' "$WORK/nio.txt")"
    [ -n "${n99:-}" ] || { cat "$WORK/nio.txt" >&2; fail "NioPingPong printed no round trip"; }
    row "$round" "rtt-p50-nio" "$(to_us "$p50" "$p50u")" "$n50" us
    row "$round" "rtt-p99-nio" "$(to_us "$p99" "$p99u")" "$n99" us
    for size in 64 1024; do
        qperf_run "$WORK/bw-$size.txt" tcp_bw "$size"
        tcp_rate="$(awk -v b="$(qperf_bytes "$WORK/bw-$size.txt")" -v s="$size" 'BEGIN { printf "%.0f", b / s }')"
        perf_run "$WORK/send-$size.txt" --direction send --size "$size" --depth "$DEPTH"
        # "  throughput 110.1 MB/s, 1720000 messages/s"
        rate="$(awk '/^  throughput/ { print $4 }' "$WORK/send-$size.txt")"
        [ -n "$rate" ] || { cat "$WORK/send-$size.txt" >&2; fail "perf printed no message rate"; }
        row "$round" "rate-$size" "$rate" "$tcp_rate" "messages/s"
    done
done

LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"
column() { awk -F'\t' -v f="$1" -v c="$2" 'NR > 1 && $2 == f { print $c }' "$OUT"; }
spread() { sort -g | sed -n '1p;$p' | paste -sd- -; }
fmt() { awk -v f="$1" '{ printf f "\n", $1 }'; } # FORMAT: each value of the input in it
{
    echo "Small messages against TCP in the same run: perf (two processes, software iWARP) beside sockperf and qperf;"
    echo "$WHERE; $MACHINE; kernel $(uname -r); $JVM; sockperf $SOCKPERF_VERSION; qperf $QPERF_VERSION;"
    echo "median of $ROUNDS rounds of $SECONDS_PER_RUN s (perf after $WARMUP s of warm-up), spread min-max; load average"
    echo "$LOAD_START at the start, $LOAD_END at the end. TCP's round trip: sockperf ping-pong --tcp -m 64 --full-rtt,"
    echo "its same percentile; the last row checks that floor against qperf tcp_lat (twice its half round trip, a"
    echo "mean). TCP's message rate: qperf -m SIZE tcp_bw's bytes/s divided by SIZE. The rows \"against Java NIO\" put"
    echo "perf's percentiles beside tools/NioPingPong.java's (Java's own selector over TCP, no protocol) instead."
    echo
    echo "| figure | perf | floor: TCP (sockperf, qperf), or Java NIO | ratio to the floor |"
    echo "|---|---|---|---|"
    for f in rtt-p50 rtt-p99 rate-64 rate-1024 rtt-p50-nio rtt-p99-nio rtt-mean-qperf; do
        case "$f" in
            rtt-p50) name="round trip p50, 64 B, depth 1 (us)"; form="%.1f" ;;
            rtt-p99) name="round trip p99, 64 B, depth 1 (us)"; form="%.1f" ;;
            rate-64) name="64 B messages/s, depth $DEPTH"; form="%.0f" ;;
            rate-1024) name="1 KiB messages/s, depth $DEPTH"; form="%.0f" ;;
            rtt-p50-nio) name="round trip p50 against Java NIO (us)"; form="%.1f" ;;
            rtt-p99-nio) name="round trip p99 against Java NIO (us)"; form="%.1f" ;;
            rtt-mean-qperf) name="TCP's mean round trip (us): sockperf (perf's column) against qperf"; form="%.1f" ;;
        esac
        echo "| $name | $(column "$f" 3 | median | fmt "$form") ($(column "$f" 3 | fmt "$form" | spread)) |" \
            "$(column "$f" 4 | median | fmt "$form") ($(column "$f" 4 | fmt "$form" | spread)) |" \
            "$(column "$f" 5 | median | fmt %.2f)x ($(column "$f" 5 | fmt %.2f | spread)) |"
    done
} > "$MD"
echo
cat "$MD"
