#!/usr/bin/env bash
# The software iWARP provider between two network stacks, against iperf3 on the same link in the
# same run. As root:
#
#   tools/veth-bench.sh                      # 3 rounds, MTU 1500 and 9000, every workload, 10 s each
#   tools/veth-bench.sh --rounds 5 --seconds 20 --mtu 1500 --workloads "write read"
#   tools/veth-bench.sh --mtu 9000 --workloads send-8192 --iwarp "crc = false"   # a provider setting, both ends
#
# Two network namespaces joined by two veth pairs, one of MTU 1500 and one of MTU 9000 (the closest
# to two hosts on 10 GbE and faster Ethernet that one machine has). In each round and for each MTU:
# iperf3 -c across the pair (the floor, what users measure a link with; after a warm-up it omits,
# -O, as perf --warmup does), then `perf` of the runtime
# jar across the same pair (a `perf --provider iwarp --listen` in one namespace, `perf --connect` in
# the other), then iperf3 again; each perf figure is divided by the mean of the two floors around
# it. Workloads (1 MiB each, depth 16, CRC on, FPDUs sized to the path: 1,448 bytes at MTU 1500,
# 8,944 at 9000, which perf prints):
#   write      RDMA Writes of a registered buffer (perf --direction write)
#   read       RDMA Reads (perf --direction read)
#   send-1364  messages in [MS-SMBD]'s default 1,364-byte fragments (perf --direction send)
#   send-8192  messages in 8 KiB fragments (maxSendSize = maxReceiveSize = 8192 on both ends)
# --iwarp "KEY = VALUE" (repeatable) writes that line into etc/smbdirect.rdma.iwarp.cfg of both perf
# processes, with listenAddresses = *:5445 unless given (the namespaces are the script's own): an A/B
# of a provider setting (crc, tcpNoDelay, sendBufferSize, maxFpduSize, ...) with the same command.
# Prints each ratio as it is measured and at the end the median per MTU and workload with the
# spread; writes every figure to a TSV file (--out). Beside each figure, the CPU it took: iperf3's
# own report of its sender and receiver (-V), and perf's of the connecting end (its Java threads in
# cores and its busiest thread, user and system): a sending thread at one whole core is the limit
# of that run, whatever the link could carry.
#
# Always cleans up: the namespaces (and with them the veth pairs) and every process started in
# them are removed on exit, SIGINT and SIGTERM. Names carry this script's PID (sdb<PID>a/b), so a
# run that was killed with SIGKILL leaves nothing that collides with the next; the next run removes
# such leftovers of runs whose PID is gone.
set -euo pipefail

ROUNDS=3
SECONDS_PER_RUN=10
WARMUP=2
MTUS="1500 9000"
WORKLOADS="write read send-1364 send-8192"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR="$HERE/../smbdirect.dist/target/smbdirect.jar"
OUT=""
JAVA="${JAVA:-java}"
# extra JVM options of the perf processes, e.g. JAVA_OPTS=-Dsmbdirect.iwarp.receiveStagingMaxFpdu=0 for
# an A/B of the receiver's staging (word-split on purpose)
JAVA_OPTS="${JAVA_OPTS:-}"
IWARP=()

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    cat <<EOF
options: --rounds N (default $ROUNDS)  --seconds S measured per run (default $SECONDS_PER_RUN)
         --warmup S before each run, not counted (default $WARMUP; iperf3 -O, perf --warmup)
         --mtu "1500 9000"  --workloads "$WORKLOADS"
         --jar PATH (default smbdirect.dist/target/smbdirect.jar)  --out FILE.tsv
         --iwarp "KEY = VALUE"  a line of etc/smbdirect.rdma.iwarp.cfg on both ends (repeatable)
environment: JAVA (default: java on the PATH), JAVA_OPTS (JVM options of the perf processes)
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS="$2"; shift 2 ;;
        --seconds) SECONDS_PER_RUN="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --mtu) MTUS="$2"; shift 2 ;;
        --workloads) WORKLOADS="$2"; shift 2 ;;
        --jar) JAR="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --iwarp)
            [[ "${2:-}" =~ ^[A-Za-z][A-Za-z0-9.]*[[:space:]]*=[[:space:]]*[^[:space:]] ]] \
                || { echo "veth-bench: --iwarp takes \"KEY = VALUE\" (a line of etc/smbdirect.rdma.iwarp.cfg), not '${2:-}'" >&2; exit 2; }
            IWARP+=("$2"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "veth-bench: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done

NAME=veth-bench
PREFIX=sdb
NETNS=1   # always: the two ends run in network namespaces
# shellcheck source=bench-lib.sh
. "$HERE/bench-lib.sh"
[ "$(id -u)" -eq 0 ] || fail "needs root (ip netns, ip link add ... type veth)"
command -v ip >/dev/null || fail "needs iproute2 (ip)"
command -v iperf3 >/dev/null || fail "needs iperf3 (apt-get install iperf3)"
command -v "$JAVA" >/dev/null || fail "needs java 17 or later ($JAVA)"
[ -f "$JAR" ] || fail "no runtime jar at $JAR (mvn -B -DskipTests package -pl smbdirect.dist -am)"
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
for m in $MTUS; do
    case "$m" in 1500|9000) ;; *) fail "--mtu takes 1500 and/or 9000, not '$m'" ;; esac
done
for w in $WORKLOADS; do
    case "$w" in write|read|send-1364|send-8192) ;; *) fail "unknown workload '$w'" ;; esac
done
[ -n "$OUT" ] || OUT="veth-bench-$(date -u +%Y%m%dT%H%M%SZ).tsv"

bench_start

bench_namespaces
addr_a() { [ "$1" = 1500 ] && echo 198.18.1.1 || echo 198.18.2.1; }   # RFC 2544 benchmarking range
addr_b() { [ "$1" = 1500 ] && echo 198.18.1.2 || echo 198.18.2.2; }
for m in $MTUS; do
    bench_veth "$([ "$m" = 1500 ] && echo 0 || echo 1)" "$m" "$(addr_a "$m")" "$(addr_b "$m")"
done

# homes of the perf processes: the defaults, and 8 KiB fragments (both ends send and receive 8192)
mkdir -p "$WORK/home-default/etc" "$WORK/home-8192/etc"
printf 'maxSendSize = 8192\nmaxReceiveSize = 8192\n' > "$WORK/home-8192/etc/smbdirect.transport.cfg"
if [ ${#IWARP[@]} -gt 0 ]; then
    listen="listenAddresses = *:5445"
    for line in "${IWARP[@]}"; do
        if [[ "$line" =~ ^listenAddresses[[:space:]]*= ]]; then listen=""; fi
    done
    { echo "# veth-bench.sh --iwarp"; [ -z "$listen" ] || echo "$listen"; printf '%s\n' "${IWARP[@]}"; } \
        > "$WORK/home-default/etc/smbdirect.rdma.iwarp.cfg"
    cp "$WORK/home-default/etc/smbdirect.rdma.iwarp.cfg" "$WORK/home-8192/etc/"
fi

# ---------------------------------------------------------------------------- measurements


# Long-running steps run in the background and are waited for with `wait`, so that SIGINT and
# SIGTERM reach the traps at once (bash runs a trap only after a foreground command ends).

run_waited() { # LOG COMMAND...: runs COMMAND in the background with its output in LOG; its status
    local log="$1"
    shift
    "$@" > "$log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    wait "$pid"
}

iperf_floor() { # MTU -> FLOOR (MB/s, 10^6 bytes, received)
    local m="$1" log="$WORK/iperf-$1-$RANDOM.txt"
    ip netns exec "$NS_B" iperf3 -s -1 -B "$(addr_b "$m")" -p 5201 > "$log.server" 2>&1 &
    local server=$!
    PIDS+=("$server")
    local deadline=$((SECONDS + 10))
    until ip netns exec "$NS_B" ss -ltnH "sport = :5201" | grep -q 5201; do
        [ $SECONDS -lt $deadline ] || fail "iperf3 server did not start: $(cat "$log.server")"
        sleep 0.1
    done
    run_waited "$log" ip netns exec "$NS_A" iperf3 -c "$(addr_b "$m")" -p 5201 -t "$SECONDS_PER_RUN" -O "$WARMUP" -f m -V \
        || { cat "$log" >&2; fail "iperf3 failed"; }
    wait "$server" 2>/dev/null || true
    FLOOR="$(awk '/receiver$/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") v = $(i - 1) }
        END { printf "%.1f", v / 8 }' "$log")"
    # "CPU Utilization: local/sender 97.4% (1.4%u/96.0%s), remote/receiver 38.2% (2.0%u/36.2%s)"
    FLOOR_CPU="$(sed -n 's|^CPU Utilization: local/sender \([0-9.]*%\) (\([0-9.]*%\)u/\([0-9.]*%\)s), remote/receiver \([0-9.]*%\) (\([0-9.]*%\)u/\([0-9.]*%\)s).*|sender \1 of a core (user \2, system \3), receiver \4 (user \5, system \6)|p' "$log")"
}

start_perf_server() { # MTU HOME -> SERVER_PID, SERVER_LOG
    SERVER_LOG="$WORK/server-$1-$(basename "$2")-$RANDOM.txt"
    # shellcheck disable=SC2086
    (cd "$2" && exec ip netns exec "$NS_B" "$JAVA" $JAVA_OPTS -jar "$JAR" perf --provider iwarp \
        --listen "$(addr_b "$1"):5445") > "$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_for "$SERVER_LOG" "perf server listening" 120 "$SERVER_PID"
}

stop_perf_server() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
}

perf_client() { # MTU HOME DIRECTION -> MBPS, FPDU_TEXT (what perf printed of the connection)
    local log="$WORK/client-$1-$3-$RANDOM.txt"
    # shellcheck disable=SC2086
    (cd "$2" && exec ip netns exec "$NS_A" "$JAVA" $JAVA_OPTS -jar "$JAR" perf --provider iwarp \
        --connect "$(addr_b "$1"):5445" --direction "$3" --size 1m --warmup "${WARMUP}s" \
        --duration "${SECONDS_PER_RUN}s") > "$log" 2>&1 &
    local client=$!
    PIDS+=("$client")
    wait "$client" || { cat "$log" >&2; fail "perf --direction $3 at MTU $1 failed"; }
    FPDU_TEXT="$(grep -m1 '^  iwarp: ' "$log" | sed 's/^  iwarp: //')"
    CPU_TEXT="$(grep -m1 '^  cpu: ' "$log" | sed 's/^  cpu: //' || true)" # none from a build before the report
    MBPS="$(awk '/throughput/ { print $2 }' "$log")"
    cat "$log" >> "$WORK/clients.txt"
}


echo "veth-bench: kernel $(uname -r), $(nproc) CPUs, $("$JAVA" -version 2>&1 | head -1), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "veth-bench: namespaces $NS_A and $NS_B; rounds $ROUNDS; $WARMUP s warm-up and $SECONDS_PER_RUN s measured per run;" \
    "JVM options '${JAVA_OPTS}'; iWARP settings '${IWARP[*]:-}'; figures to $OUT"
printf 'round\tmtu\tworkload\tfpdu\tfloor_before_MBps\tfloor_after_MBps\tperf_MBps\tratio\tfloor_before_cpu\tfloor_after_cpu\tperf_connect_cpu\n' > "$OUT"

for round in $(seq 1 "$ROUNDS"); do
    for m in $MTUS; do
        iperf_floor "$m"
        before="$FLOOR"
        before_cpu="$FLOOR_CPU"
        echo "round $round, MTU $m: iperf3 $before MB/s"
        echo "round $round, MTU $m: iperf3 CPU: ${before_cpu:-not reported}"
        results=() # per workload: name, MB/s, what perf said of the connection, its CPU line (separated by
        # the ASCII unit separator, which unlike a tab keeps an empty field as one)
        for w in $WORKLOADS; do
            case "$w" in
                write|read) home="$WORK/home-default"; dir="$w" ;;
                send-1364) home="$WORK/home-default"; dir=send ;;
                send-8192) home="$WORK/home-8192"; dir=send ;;
            esac
            start_perf_server "$m" "$home"
            perf_client "$m" "$home" "$dir"
            stop_perf_server
            results+=("$w"$'\x1f'"$MBPS"$'\x1f'"$FPDU_TEXT"$'\x1f'"$CPU_TEXT")
        done
        iperf_floor "$m"
        after="$FLOOR"
        after_cpu="$FLOOR_CPU"
        floor="$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.1f", (a + b) / 2 }')"
        echo "round $round, MTU $m: iperf3 $after MB/s (floor $floor MB/s)"
        echo "round $round, MTU $m: iperf3 CPU: ${after_cpu:-not reported}"
        for r in "${results[@]}"; do
            IFS=$'\x1f' read -r w mbps fpdu cpu <<< "$r"
            ratio="$(awk -v p="$mbps" -v f="$floor" 'BEGIN { printf "%.3f", p / f }')"
            echo "round $round, MTU $m, $w: $mbps MB/s, ratio $ratio  [$fpdu]"
            # the connecting perf sends the data of write and send; of read, the listening one sends it
            [ "$w" = read ] && end="receives the data" || end="sends the data"
            echo "round $round, MTU $m, $w: CPU of perf --connect ($end): ${cpu:-not reported}"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$m" "$w" "$fpdu" "$before" "$after" "$mbps" \
                "$ratio" "$before_cpu" "$after_cpu" "$cpu" >> "$OUT"
        done
    done
done

echo
echo "median ratio to iperf3 (each ratio against the floor of its own round), $ROUNDS rounds; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-10s %-8s %-24s %s\n' MTU workload median "min-max" "ratios"
for m in $MTUS; do
    for w in $WORKLOADS; do
        ratios="$(awk -F'\t' -v m="$m" -v w="$w" 'NR > 1 && $2 == m && $3 == w { print $8 }' "$OUT")"
        med="$(echo "$ratios" | median)"
        range="$(echo "$ratios" | sort -g | sed -n '1p;$p' | paste -sd- -)"
        printf '%-6s %-10s %-8s %-24s %s\n' "$m" "$w" "$med" "$range" "$(echo "$ratios" | paste -sd' ' -)"
    done
done
