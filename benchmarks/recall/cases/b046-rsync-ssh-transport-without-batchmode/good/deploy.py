#!/usr/bin/env python3
"""Push the working tree to the remote build host and run the build there."""
import subprocess
import sys

HOST = "build-host1"
REMOTE_DIR = "rdev-exec/project"
SSH = "ssh -q -o BatchMode=yes -o ConnectTimeout=10"


def push():
    subprocess.run(["rsync", "-arlpmchz", "--delete", "-e", SSH, "./", f"{HOST}:{REMOTE_DIR}/"], check=True)


def build():
    subprocess.run(SSH.split() + [HOST, "cd rdev-exec/project && make"], check=True)


if __name__ == "__main__":
    try:
        push()
        build()
    except subprocess.CalledProcessError as exc:
        sys.exit(f"remote build failed: {exc}")
