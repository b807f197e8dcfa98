#!/usr/bin/env python3
"""Check that every segment host has the expected data directory."""
import subprocess
import sys

SSH = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]


def check_remote(host, user):
    result = subprocess.run(SSH + [f"{user}@{host}", "test -d /data/hawq/segment"],
                            capture_output=True, text=True)
    if result.returncode == 255:
        print("Create ssh connection to %s failed." % host)
        print("Please check the ssh connection and make sure passwordless ssh is enabled.")
        sys.exit(result.returncode)
    elif result.returncode > 0:
        print("Execute remote command failed on %s." % host)
        sys.exit(result.returncode)


for host in ("sdw1", "sdw2"):
    check_remote(host, "gpadmin")
