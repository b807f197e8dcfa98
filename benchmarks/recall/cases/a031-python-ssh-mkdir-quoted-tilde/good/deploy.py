#!/usr/bin/env python3
"""Prepare the release directories for the app on each web host."""
import subprocess

HOSTS = ["web1", "web2"]
SSH = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]


def prepare(host):
    subprocess.run(SSH + [host, 'mkdir -p "$HOME/app/releases" "$HOME/app/shared/log"'], check=True)
    print(f"{host}: release directories ready")


if __name__ == "__main__":
    for h in HOSTS:
        prepare(h)
