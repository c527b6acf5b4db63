#!/bin/sh
# cifs-io.sh MOUNT TAG SIZE...
#
# File round trips on one cifs mount, in directory MOUNT/TAG (made here): for every SIZE in bytes, a
# source of random bytes in /tmp is written as f-SIZE with dd through the page cache (conv=fsync)
# and as g-SIZE with dd oflag=direct, read back with cat (after dropping the page cache; its hash,
# then in a second pass the number of bytes it gave) and with dd iflag=direct, its size taken with stat, copied with cp, the copy moved with mv and removed
# with rm; a directory is made and removed in MOUNT/TAG; ls -l lists it. f-SIZE and g-SIZE stay
# for the server's side to hash. Every step prints one line for the host to parse:
#
#   fsio TAG STEP NAME rc=N [sha256=HEX] [size=BYTES]
#
# where rc is the exit status of the step's command (of dd, not of the sha256sum after it) and
# sha256 the hash of the bytes the step read or wrote. Ends with "fsio TAG done".
M=$1
T=$2
shift 2
D=$M/$T

step() {
    echo "fsio $T $1 $2 rc=$3${4:+ $4}"
}

# hash NAME COMMAND...: runs COMMAND with its output into sha256sum; prints the step with both
hash() {
    what=$1
    name=$2
    shift 2
    h=$({ "$@" 2>/tmp/fsio.err; echo $? > /tmp/fsio.rc; } | sha256sum | cut -d' ' -f1)
    rc=$(cat /tmp/fsio.rc)
    [ "$rc" = 0 ] || sed "s/^/fsio-err $T $what $name: /" /tmp/fsio.err
    step "$what" "$name" "$rc" "sha256=$h"
}

mkdir "$D"
step mkdir "$T" $?
for n in "$@"; do
    src=/tmp/fsio-src-$n
    [ -f "$src" ] || head -c "$n" /dev/urandom > "$src"
    step source "f-$n" 0 "sha256=$(sha256sum < "$src" | cut -d' ' -f1) size=$n"
    dd if="$src" of="$D/f-$n" bs=1M conv=fsync 2>/tmp/fsio.err
    rc=$?
    [ $rc = 0 ] || sed "s/^/fsio-err $T write f-$n: /" /tmp/fsio.err
    step write "f-$n" $rc
    dd if="$src" of="$D/g-$n" bs=1M oflag=direct 2>/tmp/fsio.err
    rc=$?
    [ $rc = 0 ] || sed "s/^/fsio-err $T write-direct g-$n: /" /tmp/fsio.err
    step write-direct "g-$n" $rc
    sync
    echo 3 > /proc/sys/vm/drop_caches
    hash cat "f-$n" cat "$D/f-$n"
    step cat-size "f-$n" 0 "size=$(( $(cat "$D/f-$n" | wc -c) ))"
    hash read-direct "f-$n" dd if="$D/f-$n" bs=1M iflag=direct
    hash read-direct "g-$n" dd if="$D/g-$n" bs=1M iflag=direct
    s=$(stat -c %s "$D/f-$n")
    step stat "f-$n" $? "size=$s"
    cp "$D/f-$n" "$D/c-$n"
    step cp "c-$n" $?
    mv "$D/c-$n" "$D/m-$n"
    rc=$?
    [ -e "$D/c-$n" ] && rc=100
    step mv "m-$n" $rc
    hash read-direct "m-$n" dd if="$D/m-$n" bs=1M iflag=direct
    rm "$D/m-$n"
    rc=$?
    [ -e "$D/m-$n" ] && rc=100
    step rm "m-$n" $rc
done
mkdir "$D/sub"
step mkdir sub $?
ls -ld "$D/sub" | sed "s/^/fsio-ls $T /"
rmdir "$D/sub"
rc=$?
[ -e "$D/sub" ] && rc=100
step rmdir sub $rc
ls -l "$D" | sed "s/^/fsio-ls $T /"
echo "fsio $T done"
