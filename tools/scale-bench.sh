#!/usr/bin/env bash
# Aggregate throughput across connections: `perf --connections N` of the runtime jar (N connections in
# one process, each its own stream) against a floor of N iperf3 processes (N clients, N servers on N
# ports, all at once: iperf3 3.x runs all the streams of one -P on one thread, so one process is no
# floor for several streams) in the same run. On loopback (no root needed):
#
#   tools/scale-bench.sh                                   # N = 1 2 4 8 16, 3 rounds, 10 s each
#   tools/scale-bench.sh --connections "1 2 4" --workloads "send-1364 send-8192" --rounds 3 --seconds 5
#   tools/scale-bench.sh --netns --mtu 9000                # as root: across two network namespaces
#
# In each round and for each N: the iperf3 floor (N processes, their received MB/s summed), then each
# workload (a `perf --provider iwarp --listen` process and a `perf --provider iwarp --connect
# --connections N` process), then the floor again; each perf figure is divided by the mean of the
# two floors around it. Workloads (1 MiB each, --depth messages or operations in flight per
# connection, 16 unless told, as veth-bench.sh has them):
#   write      RDMA Writes of a registered buffer (perf --direction write)
#   read       RDMA Reads (perf --direction read)
#   send-1364  messages in [MS-SMBD]'s default 1,364-byte fragments (perf --direction send)
#   send-8192  messages in 8 KiB fragments (maxSendSize = maxReceiveSize = 8192 on both ends)
# --processes runs the perf side as N client processes of one connection each (against one --listen
# process), their figures summed, instead of one process of N connections: the same series, to tell
# what one process's threads cost from what the connections cost.
# --netns runs the listening ends in one network namespace and the connecting ends in another, joined
# by a veth pair of the given MTU (needs root and iproute2; both are removed on exit, SIGINT and
# SIGTERM, and a later run removes what a run killed with SIGKILL left: names scb<PID>a/b).
# --placement split pins the connecting ends (perf's clients, iperf3's clients) to the first half of
# the CPUs this script may use and the listening ends to the second half (taskset; on two CPUs one
# each), the same for both tools; any (the default) pins nothing, same puts everything on the first.
# Writes every figure to a TSV file (--out; per connection too) and one markdown table beside it
# (the same name, .md): per N, the floor's median and per workload the median MB/s and the median
# ratio with its spread (min-max), with the machine, the kernel, the JVM and the load average.
# --depth changes how much memory the Sends come from: 16 messages of 1 MiB per connection are 16 MiB,
# more than a core's cache, where iperf3 sends one 128 KiB buffer over and over; at --depth 1 or 2
# they come from a sixteenth or an eighth of that memory
# (docs/benchmarks/2026-11-29-what-one-connections-sends-cost.md).
set -euo pipefail

ROUNDS=3
SECONDS_PER_RUN=10
WARMUP=2
CONNECTIONS="1 2 4 8 16"
DEPTH=16
WORKLOADS="write read send-1364 send-8192"
NETNS=0
PROCESSES=0
MTU=1500
PLACEMENT=any
PERF_PORT=15445
IPERF_PORT=15201
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR="$HERE/../smbdirect.dist/target/smbdirect.jar"
OUT=""
JAVA="${JAVA:-java}"
# extra JVM options of the perf processes (word-split on purpose)
JAVA_OPTS="${JAVA_OPTS:-}"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    cat <<EOF
options: --connections "$CONNECTIONS"  --rounds N (default $ROUNDS)
         --depth D messages or RDMA operations in flight per connection (default $DEPTH; perf --depth)
         --seconds S measured per run (default $SECONDS_PER_RUN)
         --warmup S before each run, not counted (default $WARMUP; iperf3 -O, perf --warmup; 0: none)
         --workloads "$WORKLOADS"
         --processes (N perf processes of one connection each)
         --netns (as root: two namespaces)  --mtu 1500|9000 (with --netns; default $MTU)
         --placement any|same|split (default $PLACEMENT: see above)
         --perf-port P (default $PERF_PORT)  --iperf-port P, the first of N (default $IPERF_PORT)
         --jar PATH (default smbdirect.dist/target/smbdirect.jar)  --out FILE.tsv (the table: FILE.md)
environment: JAVA (default: java on the PATH), JAVA_OPTS (JVM options of the perf processes)
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --connections) CONNECTIONS="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --depth) DEPTH="$2"; shift 2 ;;
        --seconds) SECONDS_PER_RUN="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --workloads) WORKLOADS="$2"; shift 2 ;;
        --netns) NETNS=1; shift ;;
        --processes) PROCESSES=1; shift ;;
        --mtu) MTU="$2"; shift 2 ;;
        --placement) PLACEMENT="$2"; shift 2 ;;
        --perf-port) PERF_PORT="$2"; shift 2 ;;
        --iperf-port) IPERF_PORT="$2"; shift 2 ;;
        --jar) JAR="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "scale-bench: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done

NAME=scale-bench
PREFIX=scb
# shellcheck source=bench-lib.sh
. "$HERE/bench-lib.sh"
number() { [[ "$2" =~ ^[0-9]+$ ]] || fail "$1 takes a whole number, not '$2'"; }
number --rounds "$ROUNDS"
number --depth "$DEPTH"
[ "$DEPTH" -ge 1 ] && [ "$DEPTH" -le 4096 ] || fail "--depth takes 1..4096 (perf's limits), not '$DEPTH'"
number --seconds "$SECONDS_PER_RUN"
number --warmup "$WARMUP"
number --perf-port "$PERF_PORT"
number --iperf-port "$IPERF_PORT"
[ "$ROUNDS" -ge 1 ] && [ "$SECONDS_PER_RUN" -ge 1 ] || fail "--rounds and --seconds take at least 1"
for n in $CONNECTIONS; do
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 256 ] || fail "--connections takes counts 1..256, not '$n'"
done
for w in $WORKLOADS; do
    case "$w" in write|read|send-1364|send-8192) ;; *) fail "unknown workload '$w'" ;; esac
done
case "$MTU" in 1500|9000) ;; *) fail "--mtu takes 1500 or 9000, not '$MTU'" ;; esac
bench_placement_check "$PLACEMENT"
command -v iperf3 >/dev/null || fail "needs iperf3 (apt-get install iperf3)"
command -v "$JAVA" >/dev/null || fail "needs java 17 or later ($JAVA)"
[ -f "$JAR" ] || fail "no runtime jar at $JAR (mvn -B -DskipTests package -pl smbdirect.dist -am)"
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
if [ "$NETNS" = 1 ]; then
    [ "$(id -u)" -eq 0 ] || fail "--netns needs root (ip netns, ip link add ... type veth)"
    command -v ip >/dev/null || fail "--netns needs iproute2 (ip)"
fi
[ -n "$OUT" ] || OUT="scale-bench-$(date -u +%Y%m%dT%H%M%SZ).tsv"
MD="${OUT%.tsv}.md"

bench_start

# ---------------------------------------------------------------------------- where the ends run

bench_ends "$MTU" 3
bench_place "$PLACEMENT"

# homes of the perf processes: the defaults, and 8 KiB fragments (both ends send and receive 8192)
mkdir -p "$WORK/home-default/etc" "$WORK/home-8192/etc"
printf 'maxSendSize = 8192\nmaxReceiveSize = 8192\n' > "$WORK/home-8192/etc/smbdirect.transport.cfg"

# ---------------------------------------------------------------------------- measurements

listening() { # PORT: whether a TCP listener on PORT is up where the servers run
    "${IN_B[@]}" ss -ltnH "sport = :$1" | grep -q ":$1"
}

iperf_floor() { # N -> FLOOR (MB/s, 10^6 bytes, received, summed over N processes)
    local n="$1" i servers=() clients=()
    for i in $(seq 0 $((n - 1))); do
        "${IN_B[@]}" iperf3 -s -1 -B "$SERVER_ADDR" -p $((IPERF_PORT + i)) > "$WORK/iperf-server-$i.txt" 2>&1 &
        servers+=($!)
        PIDS+=($!)
    done
    for i in $(seq 0 $((n - 1))); do
        local deadline=$((SECONDS + 10))
        until listening $((IPERF_PORT + i)); do
            [ $SECONDS -lt $deadline ] || fail "iperf3 server on port $((IPERF_PORT + i)) did not start: $(cat "$WORK/iperf-server-$i.txt")"
            sleep 0.1
        done
    done
    for i in $(seq 0 $((n - 1))); do
        "${IN_A[@]}" iperf3 -c "$SERVER_ADDR" -p $((IPERF_PORT + i)) -t "$SECONDS_PER_RUN" -O "$WARMUP" -f m \
            > "$WORK/iperf-client-$i.txt" 2>&1 &
        clients+=($!)
        PIDS+=($!)
    done
    for i in $(seq 0 $((n - 1))); do
        wait "${clients[$i]}" || { cat "$WORK/iperf-client-$i.txt" >&2; fail "iperf3 client $i of $n failed"; }
    done
    for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
    FLOOR="$(for i in $(seq 0 $((n - 1))); do
        awk '/receiver$/ { for (j = 1; j <= NF; j++) if ($j == "Mbits/sec") v = $(j - 1) } END { print v / 8 }' \
            "$WORK/iperf-client-$i.txt"; done | awk '{ s += $1 } END { printf "%.1f", s }')"
}

start_perf_server() { # HOME -> SERVER_PID, SERVER_LOG
    SERVER_LOG="$WORK/server-$(basename "$1")-$RANDOM.txt"
    # shellcheck disable=SC2086
    (cd "$1" && exec "${IN_B[@]}" "$JAVA" $JAVA_OPTS -jar "$JAR" perf --provider iwarp \
        --listen "$SERVER_ADDR:$PERF_PORT") > "$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_for "$SERVER_LOG" "perf server listening" 120 "$SERVER_PID"
}

stop_perf_server() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    cat "$SERVER_LOG" >> "$WORK/servers.txt"
}

perf_client() { # N HOME DIRECTION -> MBPS (summed), EACH (per connection, comma-separated), CPU_TEXT
    local n="$1" warm=() clients=() logs=() i k
    [ "$WARMUP" -gt 0 ] && warm=(--warmup "${WARMUP}s")
    # one process of N connections, or (--processes) N processes of one
    local processes=1 per="$n"
    [ "$PROCESSES" = 1 ] && { processes="$n"; per=1; }
    for k in $(seq 1 "$processes"); do
        local log="$WORK/client-$n-$3-$k-$RANDOM.txt"
        logs+=("$log")
        # shellcheck disable=SC2086
        (cd "$2" && exec "${IN_A[@]}" "$JAVA" $JAVA_OPTS -jar "$JAR" perf --provider iwarp \
            --connect "$SERVER_ADDR:$PERF_PORT" --connections "$per" --direction "$3" --depth "$DEPTH" --size 1m "${warm[@]}" \
            --duration "${SECONDS_PER_RUN}s") > "$log" 2>&1 &
        clients+=($!)
        PIDS+=($!)
    done
    for i in "${!clients[@]}"; do
        wait "${clients[$i]}" || { cat "${logs[$i]}" >&2; fail "perf --connections $per --direction $3 failed"; }
    done
    MBPS="$(for log in "${logs[@]}"; do awk '/^  throughput/ { print $2 }' "$log"; done \
        | awk '{ s += $1; c++ } END { if (c) printf "%.1f", s }')"
    # "  [  1] 127.0.0.1:40000   10.002 s   1234.5 MB/s ..." (one line per connection when N > 1)
    EACH="$(for log in "${logs[@]}"; do
        if grep -q '^  \[SUM\]' "$log"; then
            awk '/^  \[ *[0-9]+\]/ { for (j = 1; j <= NF; j++) if ($j == "MB/s") print $(j - 1) }' "$log"
        else
            awk '/^  throughput/ { print $2 }' "$log"
        fi; done | paste -sd, -)"
    CPU_TEXT="$(for log in "${logs[@]}"; do grep -m1 '^  cpu: ' "$log" | sed 's/^  cpu: //' || true; done | paste -sd';' -)"
    [ -n "$MBPS" ] || { cat "${logs[@]}" >&2; fail "perf printed no throughput"; }
    for log in "${logs[@]}"; do # "perf: send for 5000 ms ... of 1048576 B, depth 16 ..."
        grep -q "B, depth $DEPTH\b" "$log" || { cat "$log" >&2; fail "perf did not say it ran at depth $DEPTH"; }
    done
    cat "${logs[@]}" >> "$WORK/clients.txt"
}


MACHINE="$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))"
JVM="$("$JAVA" -version 2>&1 | head -1)"
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "scale-bench: $WHERE; $MACHINE; kernel $(uname -r); $JVM; iperf3 $(iperf3 --version | head -1 | awk '{ print $2 }'); load average at start $LOAD_START"
SIDE="$([ "$PROCESSES" = 1 ] && echo "N perf processes of one connection each" || echo "one perf process of N connections")"
echo "scale-bench: $SIDE; connections '$CONNECTIONS'; depth $DEPTH per connection; rounds $ROUNDS; $WARMUP s warm-up and $SECONDS_PER_RUN s measured per run; JVM options '${JAVA_OPTS}'; figures to $OUT and $MD"
printf 'round\tconnections\tworkload\tfloor_before_MBps\tfloor_after_MBps\tperf_MBps\tratio\tper_connection_MBps\tperf_connect_cpu\n' > "$OUT"

for round in $(seq 1 "$ROUNDS"); do
    for n in $CONNECTIONS; do
        iperf_floor "$n"
        before="$FLOOR"
        echo "round $round, N $n: $n iperf3 processes $before MB/s"
        results=()
        for w in $WORKLOADS; do
            case "$w" in
                write|read) home="$WORK/home-default"; dir="$w" ;;
                send-1364) home="$WORK/home-default"; dir=send ;;
                send-8192) home="$WORK/home-8192"; dir=send ;;
            esac
            start_perf_server "$home"
            perf_client "$n" "$home" "$dir"
            stop_perf_server
            results+=("$w"$'\x1f'"$MBPS"$'\x1f'"$EACH"$'\x1f'"$CPU_TEXT")
        done
        iperf_floor "$n"
        after="$FLOOR"
        floor="$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.1f", (a + b) / 2 }')"
        echo "round $round, N $n: $n iperf3 processes $after MB/s (floor $floor MB/s)"
        for r in "${results[@]}"; do
            IFS=$'\x1f' read -r w mbps each cpu <<< "$r"
            ratio="$(awk -v p="$mbps" -v f="$floor" 'BEGIN { printf "%.3f", (f > 0 ? p / f : 0) }')"
            echo "round $round, N $n, $w: $mbps MB/s summed, ratio $ratio; per connection $each"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$n" "$w" "$before" "$after" "$mbps" "$ratio" \
                "$each" "$cpu" >> "$OUT"
        done
    done
done

# ---------------------------------------------------------------------------- the table

LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"
column() { # N WORKLOAD FIELD: that column of the rows of N and WORKLOAD
    awk -F'\t' -v n="$1" -v w="$2" -v f="$3" 'NR > 1 && $2 == n && $3 == w { print $f }' "$OUT"
}
{
    echo "Aggregate throughput, $SIDE (\`perf --connections\`, 1 MiB, depth $DEPTH per connection, software iWARP)"
    echo "against N iperf3 processes in the same run: $WHERE; $MACHINE; kernel $(uname -r); $JVM;"
    echo "median of $ROUNDS rounds of $SECONDS_PER_RUN s after $WARMUP s of warm-up; ratio to the floor of its own round,"
    echo "median and spread (min-max); load average $LOAD_START at the start, $LOAD_END at the end."
    echo
    header="| N | N iperf3 processes, MB/s |"
    rule="|---|---|"
    for w in $WORKLOADS; do
        header="$header $w MB/s (ratio, spread) |"
        rule="$rule---|"
    done
    echo "$header"
    echo "$rule"
    first="${WORKLOADS%% *}"
    for n in $CONNECTIONS; do
        floors="$( (column "$n" "$first" 4; column "$n" "$first" 5) | median | awk '{ printf "%.1f", $1 }')"
        row="| $n | $floors |"
        for w in $WORKLOADS; do
            mbps="$(column "$n" "$w" 6 | median)"
            ratios="$(column "$n" "$w" 7)"
            med="$(echo "$ratios" | median)"
            range="$(echo "$ratios" | sort -g | sed -n '1p;$p' | paste -sd- -)"
            row="$row $mbps (${med}x, $range) |"
        done
        echo "$row"
    done
} > "$MD"
echo
cat "$MD"
