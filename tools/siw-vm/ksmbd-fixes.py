#!/usr/bin/env python3
"""Apply the image's fixes to Debian's ksmbd source before build.sh compiles ksmbd.ko.

usage: ksmbd-fixes.py SERVER_SRC_DIR     (linux-source-6.1's fs/smb/server)

Each fix first checks whether the source needs it and changes the source only then, so the
same list works on every Debian 6.1 kernel: it prints one line per fix, "applied" or "not
needed (...)", and exits 1 naming the fix when the source has neither the broken nor the
fixed shape (the fix then needs looking at, never a silent skip). build.sh keys its cached
ksmbd.ko on this file's hash: a change here rebuilds ksmbd.ko. What each fix is for, and on
which kernels it was seen: tools/siw-vm/PROOF.md, "ksmbd serving files".
"""
import os
import re
import sys


def opinfo_put_null(src):
    """opinfo_put(NULL) oopses (seen on 6.1.176: RIP opinfo_put+0x5 from smb2_open+0xbf9).

    smb2_open() calls opinfo_put(opinfo_get(fp)) unconditionally after building the response,
    and opinfo_get() returns NULL when no oplock or lease was granted; this opinfo_put()
    dereferences its argument first. Mainline's opinfo_put() returns early on NULL; so does the
    fixed one.
    """
    path = os.path.join(src, "oplock.c")
    text = open(path).read()
    head = re.search(r"\nvoid opinfo_put\(struct oplock_info \*opinfo\)\n\{\n", text)
    if not head:
        return None, "opinfo_put() not found in oplock.c"
    body = text[head.end():]
    if re.match(r"\s*if \(!opinfo\)\s*\n?\s*return;", body):
        return False, "opinfo_put() already returns early on NULL"
    if not body.lstrip().startswith("if (!atomic_dec_and_test(&opinfo->refcount))"):
        return None, "opinfo_put() starts neither with the NULL check nor with the refcount drop"
    fixed = text[:head.end()] + "\tif (!opinfo)\n\t\treturn;\n\n" + body
    open(path, "w").write(fixed)
    return True, "opinfo_put() returns early on NULL"


FIXES = [("opinfo_put-null", opinfo_put_null)]


def main():
    if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "oplock.c")):
        sys.exit("usage: ksmbd-fixes.py SERVER_SRC_DIR (the directory with ksmbd's oplock.c)")
    for name, fix in FIXES:
        applied, what = fix(sys.argv[1])
        if applied is None:
            sys.exit("ksmbd fix %s: cannot tell whether the source needs it: %s" % (name, what))
        print("ksmbd fix %s: %s (%s)" % (name, "applied" if applied else "not needed", what))


if __name__ == "__main__":
    main()
