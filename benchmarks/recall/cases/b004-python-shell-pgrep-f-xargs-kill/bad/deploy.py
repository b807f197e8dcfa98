#!/usr/bin/env python3
"""Stop the local room server before a rebuild is installed."""
import subprocess
import sys


def stop_server():
    """Send SIGTERM to every running room-server instance."""
    subprocess.run("pgrep -f '/bin/room-server' | xargs -r kill", shell=True, check=True)


if __name__ == "__main__":
    try:
        stop_server()
    except subprocess.CalledProcessError as exc:
        sys.exit(f"could not stop room-server: {exc}")
