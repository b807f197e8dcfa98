#!/usr/bin/env python3
"""Refuse to bootstrap a node while the cluster daemons are already up."""
import os
import sys


def is_process(name):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(os.path.join("/proc", pid, "cmdline"), "rb") as f:
                argv0 = f.read().split(b"\0")[0]
        except OSError:
            continue
        if os.path.basename(argv0).decode(errors="replace") == name:
            return True
    return False


if __name__ == "__main__":
    for daemon in ("corosync", "pacemakerd"):
        if is_process(daemon):
            sys.exit("%s is already running, stop the cluster first" % daemon)
