#!/usr/bin/env python3
"""Pick the least loaded login node by asking each one for its load average."""
import subprocess

SSH_CMD = ["ssh", "-oBatchMode=yes", "-oConnectTimeout=10"]
HOSTS = ["hpc-login1", "hpc-login2", "hpc-login3"]


def load_of(host):
    result = subprocess.run(SSH_CMD + [host, "cat /proc/loadavg"], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    return float(result.stdout.split()[0])


if __name__ == "__main__":
    loads = {host: load_of(host) for host in HOSTS}
    usable = {h: l for h, l in loads.items() if l is not None}
    print(min(usable, key=usable.get) if usable else "no host available")
