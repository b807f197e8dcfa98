#!/usr/bin/env python3
"""Check that every segment host has the expected data directory."""
import subprocess
import sys

SSH = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]


def check_remote(host, user):
    result = subprocess.run(SSH + [f"{user}@{host}", "test -d /data/hawq/segment"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        print("ssh command on %s returned %d: either the ssh connection failed "
              "or the remote command exited with an error." % (host, result.returncode))
        print(result.stderr, end="")
        sys.exit(result.returncode)


for host in ("sdw1", "sdw2"):
    check_remote(host, "gpadmin")
