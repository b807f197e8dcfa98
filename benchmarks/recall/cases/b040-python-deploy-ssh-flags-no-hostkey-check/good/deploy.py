#!/usr/bin/env python3
"""Print the NixOS version of each target machine before deploying to it."""
import subprocess
import sys

SSH_FLAGS = ["-o", "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]


def nixos_version(host):
    out = subprocess.run(["ssh", *SSH_FLAGS, f"root@{host}", "nixos-version"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


for target in sys.argv[1:]:
    print(f"{target}: {nixos_version(target)}")
