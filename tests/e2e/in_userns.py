#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a command as root of a new user namespace that maps uids and gids
0..65535 onto the same ids outside, so that the command can become another
user there (setpriv). Needs the caller to be root; exit 77 when it cannot."""
import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000


def main(argv):
    if os.geteuid() != 0 or len(argv) < 2:
        return 77
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(go_w)
        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.unshare(CLONE_NEWUSER) == 0
        os.write(ready_w, b"1" if ok else b"0")
        if not ok or os.read(go_r, 1) != b"1":
            os._exit(77)
        os.execvp(argv[1], argv[1:])
    os.close(ready_w)
    os.close(go_r)
    mapped = os.read(ready_r, 1) == b"1"
    try:
        if mapped:
            for name in ("uid_map", "gid_map"):
                with open(f"/proc/{pid}/{name}", "w") as f:
                    f.write("0 0 65536\n")
    except OSError:
        mapped = False
    os.write(go_w, b"1" if mapped else b"0")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
