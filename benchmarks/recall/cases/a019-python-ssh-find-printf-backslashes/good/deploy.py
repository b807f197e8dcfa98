#!/usr/bin/env python3
"""Report the size of every thumbnail stored on the image server."""
import subprocess

HOST = "images1"
ROOT = "/data/images/thumb"


def remote_sizes():
    out = subprocess.run(
        ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", HOST,
         "find", "-L", ROOT, "-maxdepth", "1", "-type", "f", "-printf", "'%p\\t%s\\n'"],
        capture_output=True, text=True, check=True,
    ).stdout
    sizes = {}
    for line in out.splitlines():
        path, size = line.split("\t")
        sizes[path] = int(size)
    return sizes


if __name__ == "__main__":
    for path, size in sorted(remote_sizes().items()):
        print(f"{size:>10}  {path}")
