#!/usr/bin/env python3
"""Write the release banner (name, a tab, version) into the app directory."""
import subprocess

BANNER = "/srv/app/BANNER"

subprocess.run(
    "printf '%s\\n' $'shop\\tv2.3.1' > " + BANNER,
    shell=True,
    check=True,
    executable="/bin/bash",
)
print("banner written to", BANNER)
