#!/usr/bin/env bash
# Soak of the provider swap tests, outside the normal build: runs the tests that swap RDMA providers
# under verified traffic (HotSwapOverMockTest over threaded mock fabrics; ProviderSwapIT, IwarpSwapIT and
# JmxMBeansIT in Felix) N times in a row (default 50) and stops at the first failure, keeping its reports.
# Each run requires every send on a connection closed under the traffic to be told its outcome exactly
# once within a bound, and every byte of the survivors to arrive in order.
#
#   tools/soak-swap-tests.sh [N]      # log: target/soak-swap/soak.log, a failed run's reports beside it
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-50}"
out="target/soak-swap"
mkdir -p "$out"
log="$out/soak.log"
: > "$log"
start=$(date +%s)
reports=(smbdirect.impl/target/surefire-reports/TEST-smbdirect.impl.transport.HotSwapOverMockTest.xml
  smbdirect.itest/target/failsafe-reports/TEST-smbdirect.itest.{ProviderSwapIT,IwarpSwapIT,JmxMBeansIT}.xml)
for i in $(seq 1 "$runs"); do
  t0=$(date +%s)
  rm -f "${reports[@]}"
  # the modules the two test modules need are built in the same reactor (-am): nothing comes from an
  # installed snapshot; only the four swap test classes run
  if SMBDIRECT_STRICT=0 mvn -B -o verify -pl smbdirect.impl,smbdirect.itest -am -Dmaven.javadoc.skip=true \
      -Dtest=HotSwapOverMockTest -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test='ProviderSwapIT,IwarpSwapIT,JmxMBeansIT' -Dfailsafe.failIfNoSpecifiedTests=false \
      -DskipKaraf=true > "$out/run.log" 2>&1; then
    # every class reported from this run (a missing report fails grep, and so the soak)
    ran=$(grep -h -o 'tests="[0-9]*"' "${reports[@]}" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s }')
    echo "soak: run $i of $runs passed ($ran tests, $(( $(date +%s) - t0 )) s)" | tee -a "$log"
  else
    keep="$out/failed-run-$i"
    mkdir -p "$keep"
    cp "$out/run.log" "$keep/"
    cp -r smbdirect.impl/target/surefire-reports smbdirect.itest/target/failsafe-reports "$keep/" 2>/dev/null || true
    echo "soak: run $i of $runs FAILED after $(( $(date +%s) - t0 )) s; log and reports in $keep" | tee -a "$log"
    exit 1
  fi
done
echo "soak: $runs runs in a row passed in $(( $(date +%s) - start )) s" | tee -a "$log"
