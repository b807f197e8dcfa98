#!/usr/bin/env python3
"""Refuse to bootstrap a node while the cluster daemons are already up."""
import shlex
import subprocess
import sys


def is_process(name):
    cmd = "ps -e -o pid,command | grep -qs " + shlex.quote(name)
    proc = subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE)
    proc.wait()
    return proc.returncode == 0


if __name__ == "__main__":
    for daemon in ("corosync", "pacemakerd"):
        if is_process(daemon):
            sys.exit("%s is already running, stop the cluster first" % daemon)
