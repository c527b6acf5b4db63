#!/usr/bin/env bash
# Packs what tools/many-core-series.sh needs on a many-core x86-64 Linux machine that has no JDK and
# none of the floors' tools, into one folder to take there beside a checkout of this repository:
#
#   tools/many-core-kit.sh             # -> target/many-core-kit and target/many-core-kit.tar.xz
#   tools/many-core-kit.sh --out DIR --jlink /usr/lib/jvm/temurin-25-jdk-amd64/bin/jlink --pack gz
#
#   rt/             a Java runtime made with jlink (java.se, jdk.unsupported, jdk.management)
#   classes/        tools/NioPingPong.java compiled (the runtime has no javac to run it from source)
#   smbdirect.jar   the runtime jar (build it first: mvn -B -DskipTests package -pl smbdirect.dist -am)
#   bin/, lib/      this machine's iperf3, sockperf and qperf (apt-get install iperf3 sockperf qperf)
#                   and the shared libraries they load beyond the C library's own, which the target
#                   machine's C library then serves (VERSIONS names the glibc they need at least)
#   VERSIONS        what is in it: the runtime's and each tool's version, the commit of the tree
#
# --pack xz (the default; about a minute) or gz (seconds, larger) packs the folder into one file
# beside it, checked against --limit-mb, which is what travels (tools/many-core-series.sh --kit takes
# the folder or the packed file); none packs nothing. The kit is the builder's machine's binaries:
# take it to a machine of the same architecture only.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT_DIR="$ROOT/target/many-core-kit"
JAR="$ROOT/smbdirect.dist/target/smbdirect.jar"
JLINK=""
LIMIT_MB=60
PACK=xz

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    echo "options: --out DIR (default target/many-core-kit)  --jar PATH  --jlink PATH (default: Temurin 25's"
    echo "         under /usr/lib/jvm if there, else jlink beside java on the PATH)  --pack xz|gz|none (default $PACK)"
    echo "         --limit-mb N: the most the packed kit (or with none the folder) may take (default $LIMIT_MB)"
}

fail() {
    echo "many-core-kit: $*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT_DIR="$2"; shift 2 ;;
        --jar) JAR="$2"; shift 2 ;;
        --jlink) JLINK="$2"; shift 2 ;;
        --limit-mb) LIMIT_MB="$2"; shift 2 ;;
        --pack) PACK="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) fail "unknown option '$1' (--help lists them)" ;;
    esac
done

case "$PACK" in xz|gz|none) ;; *) fail "--pack takes xz, gz or none, not '$PACK'" ;; esac
[[ "$LIMIT_MB" =~ ^[0-9]+$ ]] || fail "--limit-mb takes a whole number, not '$LIMIT_MB'"
[ "$(uname -m)" = x86_64 ] || fail "builds an x86-64 kit only, this machine is $(uname -m)"
if [ -z "$JLINK" ]; then
    for j in /usr/lib/jvm/temurin-25-jdk-amd64/bin/jlink "$(dirname "$(readlink -f "$(command -v java)")")/jlink"; do
        [ -x "$j" ] && { JLINK="$j"; break; }
    done
fi
[ -n "$JLINK" ] && [ -x "$JLINK" ] || fail "no jlink found (--jlink PATH)"
[ -f "$JAR" ] || fail "no runtime jar at $JAR (mvn -B -DskipTests package -pl smbdirect.dist -am)"
for t in iperf3 sockperf qperf objdump; do
    command -v "$t" >/dev/null || fail "needs $t on this machine (apt-get install iperf3 sockperf qperf binutils)"
done

rm -rf "$OUT_DIR" "$OUT_DIR.tar.xz" "$OUT_DIR.tar.gz"
mkdir -p "$OUT_DIR/bin" "$OUT_DIR/lib"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"

# the runtime: compression by the option each jlink knows (JDK 21+ zip-N, older 0-2)
compress="--compress=zip-9"
"$JLINK" --help 2>&1 | grep -q 'zip-' || compress="--compress=2"
"$JLINK" --add-modules java.se,jdk.unsupported,jdk.management --strip-debug --no-header-files \
    --no-man-pages "$compress" --output "$OUT_DIR/rt"
"$OUT_DIR/rt/bin/java" -version > /dev/null 2>&1 || fail "the runtime made by $JLINK does not start"
"$(dirname "$JLINK")/javac" --release 17 -d "$OUT_DIR/classes" "$HERE/NioPingPong.java"
cp "$JAR" "$OUT_DIR/smbdirect.jar"

# the floors' tools and what they load beyond the C library (which the target machine has)
of_the_c_library() { # LIBRARY-NAME
    case "$1" in libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*) return 0 ;; esac
    return 1
}
for t in iperf3 sockperf qperf; do
    cp "$(readlink -f "$(command -v "$t")")" "$OUT_DIR/bin/$t"
    ldd "$(command -v "$t")" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
        of_the_c_library "$(basename "$lib")" || cp -L "$lib" "$OUT_DIR/lib/$(basename "$lib")"
    done
done
# each library a tool loads, but the C library's own, comes from the kit (LD_LIBRARY_PATH goes first)
for t in iperf3 sockperf qperf; do
    LD_LIBRARY_PATH="$OUT_DIR/lib" ldd "$OUT_DIR/bin/$t" | awk '$2 == "=>" { print $1, $3 }' | while read -r name path
    do
        of_the_c_library "$name" || [ "$path" = "$OUT_DIR/lib/$name" ] \
            || fail "$t loads $name from ${path:-nowhere}, not from the kit"
    done
    LD_LIBRARY_PATH="$OUT_DIR/lib" "$OUT_DIR/bin/$t" --help > /dev/null 2>&1 || fail "the kit's $t does not start"
done

{
    tree="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "kit made $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -r), tree $tree"
    echo "runtime: $("$OUT_DIR/rt/bin/java" -version 2>&1 | head -1) (jlink $JLINK)"
    echo "iperf3: $(iperf3 --version | head -1)"
    echo "sockperf: $(sockperf --version 2>&1 | grep -m1 -io 'sockperf.*version.*' || echo unknown)"
    echo "qperf: $(dpkg-query -W -f '${Version}' qperf 2>/dev/null || echo unknown)"
    needs="$(for f in "$OUT_DIR"/bin/* "$OUT_DIR"/lib/*; do objdump -T "$f" | grep -o 'GLIBC_[0-9.]*'; done \
        | sort -Vu | tail -1)"
    echo "the tools and their libraries need glibc ${needs#GLIBC_} or later (built here against $(ldd --version \
        | head -1 | awk '{ print $NF }'))"
} > "$OUT_DIR/VERSIONS"

cat "$OUT_DIR/VERSIONS"
packed="$OUT_DIR"
case "$PACK" in
    xz) packed="$OUT_DIR.tar.xz"; tar -cf - -C "$(dirname "$OUT_DIR")" "$(basename "$OUT_DIR")" | xz -9 > "$packed" ;;
    gz) packed="$OUT_DIR.tar.gz"; tar -czf "$packed" -C "$(dirname "$OUT_DIR")" "$(basename "$OUT_DIR")" ;;
esac
size_mb=$(( ($(du -sb "$packed" | cut -f1) + 1048575) / 1048576 ))
echo "many-core-kit: $packed, $size_mb MiB"
[ "$size_mb" -le "$LIMIT_MB" ] || fail "$packed is $size_mb MiB, over the limit of $LIMIT_MB MiB (--limit-mb)"
