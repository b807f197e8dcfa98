"""Which image a script file runs in, as the repository's Dockerfiles show it (for QC207).

A script that a Dockerfile (or Containerfile) in its folder or a parent folder up to the
repository root copies by name (``COPY``/``ADD`` of the file, or a glob matching it) runs with
that image's ``/bin/sh``.
When every such Dockerfile copies it into a stage built on Alpine, busybox, Wolfi or a
Chainguard image, and that stage is also the image's last, ``/bin/sh`` there is busybox's ash
(Alpine's and Wolfi's busybox are built with ``CONFIG_SH_IS_ASH=y``); when it is a Red Hat
family image (CentOS, RHEL, UBI, Fedora, Rocky, Alma, Oracle Linux), ``/bin/sh`` is bash. The
Dockerfiles are read as text, never built or run; no Dockerfile, a base image named by an
``ARG``, a stage of another image or a second Dockerfile that disagrees: no evidence (None).
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Callable

from quotecheck.lazy_regex import lazy_compile

# Wolfi's and Chainguard's images: their shell, where they have one, is busybox's ash.
_WOLFI_IMAGES = lazy_compile(r"(?:^|/)wolfi-base(?::|@|$)|^cgr\.dev/chainguard/")
_DOCKERFILE = lazy_compile(r"(?:Dockerfile|Containerfile)(?:\.[\w.-]+)?|[\w.-]+\.[Dd]ockerfile")
MAX_LEVELS = 12  # folders walked up from the script's, at most
MAX_DOCKERFILE = 1 << 18  # characters of a Dockerfile read


# Red Hat family images, whose /bin/sh is bash: the bash package of Fedora and of RHEL (and
# so of CentOS, UBI, Rocky, Alma and Oracle Linux, rebuilt from RHEL's sources) makes
# `/bin/sh` a link to bash (`ln -sf bash .../sh`, `Provides: /bin/sh` in bash.spec).
_RED_HAT_IMAGES = lazy_compile(
    r"(?:^|/)(?:centos|fedora|rockylinux|almalinux|oraclelinux|rhel\d*|ubi\d*"
    r"(?:-minimal|-init)?|ubi\d*/ubi(?:-minimal|-init)?)(?::|@|$)|^(?:registry\.access\.redhat\.com|registry\.redhat\.io)/"
    r"(?:ubi|rhel)\d*(?:/|$)|^quay\.io/(?:centos|fedora)/")


# Each Dockerfile that copies the script: the images it copies it into, and the Dockerfile
# (relative to the script's folder). Read once per script; the shells are judged from it.
Copies = tuple[tuple[tuple[str, ...], str], ...]


def dockerfile_copies(path: str | None) -> Copies:
    """The repository's Dockerfiles that copy the script at ``path`` by name, with the images
    each copies it into (``_copied_into``), in the order the folders are walked up."""
    if not path:
        return ()
    script = os.path.normpath(os.path.abspath(path))
    folders = folders_up(os.path.dirname(script))
    out: list[tuple[tuple[str, ...], str]] = []
    for at, folder in enumerate(folders):
        for dockerfile in _dockerfiles(folder):
            got = _copied_into(dockerfile, script, folders[at:])
            if got is not None:
                out.append((tuple(got), os.path.relpath(dockerfile, folders[0])))
    return tuple(out)


def busybox_image(copies: Copies) -> tuple[str, str] | None:
    """The base image whose busybox ash runs the script and the Dockerfile that copies it
    there, or None (no evidence)."""
    return _every_image(copies, _busybox)


def red_hat_image(copies: Copies) -> tuple[str, str] | None:
    """The Red Hat family base image (its /bin/sh is bash) whose shell runs the script and the
    Dockerfile that copies it there, or None (no evidence)."""
    return _every_image(copies, _red_hat)


def _red_hat(image: str) -> bool:
    return "$" not in image and bool(_RED_HAT_IMAGES.search(image))


def _every_image(copies: Copies, accept: Callable[[str], bool]) -> tuple[str, str] | None:
    """The first (image, Dockerfile) when every image the script is copied into is one
    ``accept`` knows the shell of; None when one is not (or nothing copies it)."""
    if not copies or not all(images and all(accept(i) for i in images)
                             for images, _ in copies):
        return None
    images, dockerfile = copies[0]
    return images[0], dockerfile


def _busybox(image: str) -> bool:
    from quotecheck.hosts.dockerfile import BUSYBOX_IMAGES

    return "$" not in image and bool(BUSYBOX_IMAGES.search(image) or _WOLFI_IMAGES.search(image))


def folders_up(start: str) -> list[str]:
    """``start`` and its parents, up to the first that holds ``.git`` (the repository root)."""
    out: list[str] = []
    here = start
    for _ in range(MAX_LEVELS):
        out.append(here)
        if os.path.exists(os.path.join(here, ".git")):
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return out


def is_dockerfile_name(name: str) -> bool:
    """Is a file of this name read as a Dockerfile (``Dockerfile``, ``Containerfile``,
    ``Dockerfile.x``, ``x.dockerfile``)? Also what the precision corpus copies beside a script."""
    return bool(_DOCKERFILE.fullmatch(name))


def _dockerfiles(folder: str) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names
            if is_dockerfile_name(n) and os.path.isfile(os.path.join(folder, n))]


def _copied_into(dockerfile: str, script: str, contexts: list[str]) -> list[str] | None:
    """The images the Dockerfile copies ``script`` into (the stage's base image, and the last
    stage's when that is another), or None when it does not copy it. The build context is
    not written in the Dockerfile: its folder or any parent up to the repository root."""
    # (the Dockerfile reader is loaded only where there is a Dockerfile to read)
    from quotecheck.hosts.dockerfile import instructions, stage_images

    try:
        with open(dockerfile, encoding="utf-8", errors="replace") as f:
            source = f.read(MAX_DOCKERFILE)
    except OSError:
        return None
    stages = stage_images(source)
    if not stages:
        return None
    found: list[str] = []
    for ins in instructions(source):
        if ins.keyword not in ("COPY", "ADD"):
            continue
        sources = _sources(ins.args)
        if sources is None:
            continue
        if any(_names(src, script, contexts) for src in sources):
            image = next((img for at, img in reversed(stages) if at <= ins.span[0]), "")
            found.append(image)
    if not found:
        return None
    last = stages[-1][1]
    return [*found, last] if last not in found else found


def _sources(args: str) -> list[str] | None:
    """The sources of a COPY/ADD (None: from another stage or image, `--from=`)."""
    words = args.split()
    if any(w.startswith("--from") for w in words):
        return None
    words = [w for w in words if not w.startswith("--")]
    text = " ".join(words)
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            return None
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return None
        words = items
    if len(words) < 2:
        return None
    return [w for w in words[:-1] if "://" not in w and "$" not in w]


def _names(src: str, script: str, contexts: list[str]) -> bool:
    """Does the COPY source ``src`` name ``script`` (the file, or a glob matching it) from one
    of the possible build contexts? A folder copied whole (`COPY . /src`) does not count: it
    takes in scripts the image never runs, and that are run elsewhere."""
    for context in contexts:
        full = os.path.normpath(os.path.join(context, src.lstrip("/")))
        if full == script:
            return True
        if any(c in src for c in "*?[") and fnmatch.fnmatchcase(script, full):
            return True
    return False
