#!/usr/bin/env bash
# The verbs provider's soak on the kernel's RDMA stack, outside the normal build: in the siw VM, for
# MINUTES (default 30) on each device (siw0, then rxe0, one VM boot), a perf server JVM and a client
# JVM over the verbs provider run mixed traffic (Sends, pingpong, RDMA Writes and Reads; every run
# makes and ends its 1 to 3 connections) while a fault is injected every 15 to 45 s, drawn at random:
# the client JVM killed with SIGKILL, the port down for 2 to 6 s (on rxe0 between the client's runs:
# a connection request in flight when rxe's port goes down leaves the device's CM unanswering until
# the driver is reloaded, a kernel defect), the server JVM killed with SIGKILL, or none. It fails on a run that failed with no fault under way, a run whose data perf found
# inconsistent (a lost or corrupted message or buffer), a device whose rdma resource show counts do
# not return to their baseline after a fault, or a guest kernel WARNING, BUG or oops
# (smbdirect.interop's VerbsSoakInVmScenario and VerbsSoakInGuest say exactly what is checked).
#
#   tools/siw-vm/soak.sh [MINUTES] [siw,rxe|siw|rxe]
#
# Needs what the VM tests need (tools/siw-vm/README.md: root, QEMU, a JDK 22+ for the guest runtime).
# The modules it needs are built in the same reactor, their tests not run. The VM takes about
# 2 x (MINUTES + 3) minutes; the result: smbdirect.interop/target/soak-summary.txt (one line per
# device: kernel, seconds, runs by verdict, connections, bytes, faults by kind, leaks), the console
# log under smbdirect.interop/target/siw-vm/verbs-soak-*.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes="${1:-30}"
devices="${2:-siw,rxe}"
[[ "$minutes" =~ ^[1-9][0-9]*$ ]] || { echo "soak.sh: MINUTES must be a positive number, got '$minutes'" >&2; exit 2; }
[[ "$devices" =~ ^(siw|rxe)(,(siw|rxe))?$ ]] || { echo "soak.sh: devices must be siw, rxe or siw,rxe, got '$devices'" >&2; exit 2; }
start=$(date -u +%FT%TZ)
status=0
mvn -B ${MVN_OFFLINE:+-o} verify -pl smbdirect.interop -am -Dmaven.javadoc.skip=true \
  -Dtest=VerbsSoakInVmScenario -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=none -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dsmbdirect.soak.minutes="$minutes" -Dsmbdirect.soak.devices="$devices" || status=$?
echo "soak.sh: started $start, ended $(date -u +%FT%TZ), tree $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with local changes)'), exit $status"
cat smbdirect.interop/target/soak-summary.txt 2>/dev/null || echo "soak.sh: no summary (the VM did not run to the end)"
exit $status
