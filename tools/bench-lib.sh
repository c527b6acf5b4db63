# Sourced by veth-bench.sh, scale-bench.sh and small-bench.sh: what the benchmark scripts share.
# Not run by itself. Each script sets, before sourcing: NAME (its name in messages), PREFIX (three
# letters: its network namespaces are PREFIX<PID>a and PREFIX<PID>b) and NETNS (1 when it runs the two
# ends in network namespaces); then calls bench_start once its options are checked (and
# bench_placement_check / bench_place where it takes --placement).

fail() { echo "$NAME: $*" >&2; exit 1; }

# The run's identity, work directory and processes; the traps that always clean up.
bench_start() {
    ID="$$"
    NS_A="${PREFIX}${ID}a"
    NS_B="${PREFIX}${ID}b"
    WORK="$(mktemp -d "/tmp/$NAME.XXXXXX")"
    PIDS=()
    trap bench_cleanup EXIT
    trap 'echo "$NAME: interrupted; cleaning up" >&2; exit 130' INT
    trap 'echo "$NAME: terminated; cleaning up" >&2; exit 143' TERM
}

# Ends the run's processes (TERM, up to 5 s, then KILL), its namespaces and what runs in them, its
# work directory; keeps the exit status.
bench_cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for pid in "${PIDS[@]:-}"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        local alive=0
        for pid in "${PIDS[@]:-}"; do
            [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
        done
        [ "$alive" -eq 0 ] && break
        sleep 0.5
    done
    for pid in "${PIDS[@]:-}"; do
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
    done
    if [ "$NETNS" = 1 ]; then
        for ns in "$NS_A" "$NS_B"; do
            if ip netns list | grep -qw "^$ns"; then
                # what still runs in our namespaces is ours: end it, then the namespace (and its veths)
                for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
                ip netns del "$ns" 2>/dev/null || true
            fi
        done
    fi
    rm -rf "$WORK"
    exit "$status"
}

# Removes the namespaces of earlier runs of this script that died without cleaning up (their PID is
# gone), then makes this run's two namespaces with loopback up.
bench_namespaces() {
    local ns pid p
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^${PREFIX}[0-9]+[ab]\$" || true); do
        pid="${ns#"$PREFIX"}"; pid="${pid%[ab]}"
        if ! kill -0 "$pid" 2>/dev/null; then
            for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
            ip netns del "$ns" 2>/dev/null && echo "$NAME: removed $ns, left by an earlier run" >&2 || true
        fi
    done
    ip netns add "$NS_A"
    ip netns add "$NS_B"
    ip -n "$NS_A" link set lo up
    ip -n "$NS_B" link set lo up
}

# One veth pair between the namespaces: bench_veth INDEX MTU ADDRESS_A ADDRESS_B (addresses /24).
bench_veth() {
    ip link add "${PREFIX}${ID}a$1" netns "$NS_A" mtu "$2" type veth peer name "${PREFIX}${ID}b$1" netns "$NS_B" mtu "$2"
    ip -n "$NS_A" addr add "$3/24" dev "${PREFIX}${ID}a$1"
    ip -n "$NS_B" addr add "$4/24" dev "${PREFIX}${ID}b$1"
    ip -n "$NS_A" link set "${PREFIX}${ID}a$1" up
    ip -n "$NS_B" link set "${PREFIX}${ID}b$1" up
}

# Where the client (A) and the server (B) run: two namespaces joined by one veth of MTU, with the
# server at 198.18.SUBNET.2 (RFC 2544 benchmarking range), or loopback. Sets IN_A, IN_B (command
# prefixes), SERVER_ADDR and WHERE. bench_ends MTU SUBNET
bench_ends() {
    if [ "$NETNS" = 1 ]; then
        bench_namespaces
        bench_veth 0 "$1" "198.18.$2.1" "198.18.$2.2"
        IN_A=(ip netns exec "$NS_A")
        IN_B=(ip netns exec "$NS_B")
        SERVER_ADDR="198.18.$2.2"
        WHERE="two network namespaces, veth MTU $1"
    else
        IN_A=()
        IN_B=()
        SERVER_ADDR=127.0.0.1
        WHERE="loopback"
    fi
}

wait_for() { # FILE TEXT SECONDS PID: until FILE contains TEXT, while PID lives
    local deadline=$((SECONDS + $3))
    until grep -q "$2" "$1" 2>/dev/null; do
        kill -0 "$4" 2>/dev/null || { cat "$1" >&2; fail "process $4 ended before printing '$2'"; }
        [ $SECONDS -lt $deadline ] || { cat "$1" >&2; fail "no '$2' within $3 s"; }
        sleep 0.2
    done
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# --placement: where the two ends' processes run, pinned with taskset on the CPUs this script may use
# (/proc/self/status's Cpus_allowed_list, in order): any (nothing pinned: where the scheduler puts
# them), same (every process of both ends on the first CPU), split (the client's end on the first half
# of the CPUs, the server's on the second half: on two CPUs, one each).
# bench_placement_check PLACEMENT: refuses a bad value or a machine that cannot take it; sets CPUS_A
# and CPUS_B (taskset lists) for same and split.
bench_placement_check() {
    local allowed n half
    allowed=($(awk '/^Cpus_allowed_list:/ { n = split($2, r, ","); for (i = 1; i <= n; i++) {
        m = split(r[i], b, "-"); for (c = b[1]; c <= (m > 1 ? b[2] : b[1]); c++) print c } }' /proc/self/status))
    n=${#allowed[@]}
    case "$1" in
        any) return 0 ;;
        same|split) ;;
        *) fail "--placement takes any, same or split, not '$1'" ;;
    esac
    command -v taskset >/dev/null || fail "--placement $1 needs taskset (util-linux)"
    [ "$n" -ge 1 ] || fail "--placement $1: no CPU in /proc/self/status's Cpus_allowed_list"
    if [ "$1" = same ]; then
        CPUS_A="${allowed[0]}"
        CPUS_B="${allowed[0]}"
    else
        [ "$n" -ge 2 ] || fail "--placement split needs two CPUs; this process may run on ${allowed[*]} only"
        half=$((n / 2))
        CPUS_A="$(echo "${allowed[@]:0:half}" | tr ' ' ',')"
        CPUS_B="$(echo "${allowed[@]:half}" | tr ' ' ',')"
    fi
}

# bench_place PLACEMENT, after bench_ends: prefixes IN_A and IN_B with their taskset and says where
# they run in WHERE.
bench_place() {
    case "$1" in
        any) WHERE="$WHERE, placement any (where the scheduler puts them)" ;;
        same)
            IN_A+=(taskset -c "$CPUS_A"); IN_B+=(taskset -c "$CPUS_B")
            WHERE="$WHERE, placement same (both ends on CPU $CPUS_A)" ;;
        split)
            IN_A+=(taskset -c "$CPUS_A"); IN_B+=(taskset -c "$CPUS_B")
            WHERE="$WHERE, placement split (client on CPU $CPUS_A, server on CPU $CPUS_B)" ;;
    esac
}
