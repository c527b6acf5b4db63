#!/usr/bin/env bash
# Proves that the build is reproducible: builds the bundle modules twice from clean, each time in a fresh
# copy of the working tree (tracked files and untracked files git does not ignore, so uncommitted changes
# count), the second copy in another directory and another time zone, and compares every jar under each
# module's target/ (the bundle, its -sources.jar and -javadoc.jar, the appliance's executable jar) by SHA-256.
#
#   tools/reproducible-check.sh [WORK_DIR]      (default: a new temporary directory, removed on success)
#   MVN_ARGS=-o tools/reproducible-check.sh     extra Maven arguments, here an offline build
#
# Exit status 0 when every jar is the same in both builds, 1 (with the names of those that differ) when one
# differs or a build made none. Not part of `mvn verify`: it builds the modules twice and takes minutes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
modules=(smbdirect.api smbdirect.impl smbdirect.perf smbdirect.ops smbdirect.rdma.mock smbdirect.rdma.verbs smbdirect.rdma.iwarp
         smbdirect.testkit smbdirect.example.fileserver smbdirect.dist)
work=${1:-}
keep=1
if [[ -z $work ]]; then work=$(mktemp -d); keep=0; fi
mkdir -p "$work"

copy_tree() {  # $1: destination; a clean copy, no target/ of an earlier build
  rm -rf "$1"; mkdir -p "$1"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do if [[ -f $f ]]; then printf '%s\0' "$f"; fi; done |
     tar --null -T - -cf -) | tar -xf - -C "$1"
}

build() {  # $1: tree, $2: time zone
  local list; list=$(IFS=,; echo "${modules[*]}")
  echo "building in $1 (TZ=$2)"
  (cd "$1" && TZ=$2 mvn -B -q ${MVN_ARGS:-} -DskipTests package -pl "$list" -am)
}

sums() {  # $1: tree; "sha256  module/target/name.jar" per jar, sorted by name
  (cd "$1"
   for m in "${modules[@]}"; do
     for j in "$m"/target/*.jar; do
       if [[ -f $j ]]; then sha256sum "$j"; fi
     done
   done) | sort -k2
}

copy_tree "$work/first";  build "$work/first" UTC
copy_tree "$work/second"; build "$work/second" Pacific/Auckland

sums "$work/first"  > "$work/first.sha256"
sums "$work/second" > "$work/second.sha256"
count=$(wc -l < "$work/first.sha256")
if [[ $count -eq 0 ]]; then echo "no jar was built" >&2; exit 1; fi
if cmp -s "$work/first.sha256" "$work/second.sha256"; then
  cat "$work/first.sha256"
  echo "reproducible: $count jars, byte for byte the same in both builds"
  [[ $keep -eq 1 ]] || rm -rf "$work"
  exit 0
fi
echo "NOT reproducible: these jars differ between the builds in $work/first and $work/second:" >&2
join -1 2 -2 2 -a 1 -a 2 -e missing -o 0,1.1,2.1 "$work/first.sha256" "$work/second.sha256" |
  awk '$2 != $3 {print "  " $1 "  " $2 "  " $3}' >&2
exit 1
