#!/usr/bin/env python3
"""Copy the probe bundle to each host and start its installer without waiting."""
import subprocess
import sys

OPTS = ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]


def deploy(host):
    subprocess.run(["scp", *OPTS, "-r", "probe_deployment", f"root@{host}:/ASD"], check=True)
    subprocess.run(["ssh", *OPTS, f"root@{host}", "cd /ASD && nohup bash install.sh &"], check=True)


if __name__ == "__main__":
    for host in sys.argv[1:]:
        deploy(host)
