#!/usr/bin/env bash
# bnd's baselining of this tree's bundles against those of an earlier commit (a release tag or any tree):
# every exported package, its change and whether its version says so. The build's own baselining
# (bnd-baseline-maven-plugin) compares with the previous release in a Maven repository; this compares with
# any commit, for a change of the API made before a release exists to compare with.
#
#   tools/baseline.sh COMMIT [WORKDIR]
#
# Builds COMMIT's bundles in WORKDIR (default: a temporary directory, removed at the end) and this tree's
# (`mvn package`, tests not run; MVN_OFFLINE=1 adds -o), then runs bnd's Baseline (tools/baseline) on each
# pair. A bundle split out since COMMIT is compared with the bundles of COMMIT that exported its
# packages. Exit status 1 when a package's version is lower than its change asks for.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: tools/baseline.sh COMMIT [WORKDIR]}
work=${2:-}
keep=1
if [[ -z $work ]]; then work=$(mktemp -d); keep=0; fi
[[ $keep == 1 ]] || trap 'rm -rf "$work"' EXIT
mvn=(mvn -B -q ${MVN_OFFLINE:+-o} package -DskipTests -Dmaven.javadoc.skip=true -Dbnd.baseline.skip=true)
bundles=(smbdirect.api smbdirect.impl smbdirect.perf smbdirect.ops smbdirect.rdma.mock smbdirect.rdma.verbs
         smbdirect.rdma.iwarp smbdirect.testkit smbdirect.example.fileserver)

rm -rf "$work/base"
git -C "$root" rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "baseline: no commit $base" >&2; exit 2; }
git clone -q "$root" "$work/base"
git -C "$work/base" checkout -q "$(git -C "$root" rev-parse "$base^{commit}")"
old=()
for m in "${bundles[@]}"; do [[ -f $work/base/$m/bnd.bnd ]] && old+=("$m"); done
echo "baseline: building ${#old[@]} bundles of $(git -C "$work/base" log -1 --format='%h %cs')" >&2
(cd "$work/base" && "${mvn[@]}" -pl "$(IFS=,; echo "${old[*]}")" -am)
echo "baseline: building ${#bundles[@]} bundles of this tree ($(git -C "$root" log -1 --format='%h')$(git -C "$root" diff --quiet || echo ', with local changes'))" >&2
(cd "$root" && "${mvn[@]}" -pl "$(IFS=,; echo "${bundles[*]}")" -am)
(cd "$root/tools/baseline" && mvn -B -q ${MVN_OFFLINE:+-o} dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >/dev/null)

# the tree's version (its root pom's), and a module's main jar of that version (a target/ may hold jars of others)
version() { python3 -c 'import re,sys; print(re.search(r"<artifactId>smbdirect.parent</artifactId>\s*<version>([^<]+)</version>", open(sys.argv[1]).read()).group(1))' "$1/pom.xml"; }
newv=$(version "$root"); oldv=$(version "$work/base")
jar() { [[ -f $1/target/$2-$3.jar ]] && echo "$1/target/$2-$3.jar"; }
pairs=()
for m in "${bundles[@]}"; do
  new=$(jar "$root/$m" "$m" "$newv")
  [[ -n $new ]] || { echo "baseline: $m built no jar" >&2; exit 2; }
  if [[ -f $work/base/$m/bnd.bnd ]]; then
    o=$(jar "$work/base/$m" "$m" "$oldv") || { echo "baseline: $m of $base built no jar" >&2; exit 2; }
    pairs+=("$new=$o")
  else
    olds=$(for o in "${old[@]}"; do jar "$work/base/$o" "$o" "$oldv"; done | paste -sd,)
    pairs+=("$new=$olds")
  fi
done
java -cp "$(cat "$work/cp.txt")" "$root/tools/baseline/BaselineBundles.java" "${pairs[@]}"
