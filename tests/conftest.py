"""Shared fixtures: a real sshd on 127.0.0.1 and argv-recording stubs (see tests/harness)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The harness is imported as the top-level package ``harness`` whether or not tests/ is a
# package itself.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import strategies  # noqa: F401  (loads the hypothesis profile for every test module)
from harness import cleanup
from harness.sshd import SshServer
from harness.stubs import StubDir

# A test process that runs away (a parse loop that a time limit failed to stop allocates about
# 85 MB/s) must fail with MemoryError, not take the 2-core CI machine's memory with it.
TEST_ADDRESS_SPACE = 6 << 30


def pytest_configure(config: pytest.Config) -> None:
    # sshd and the shells the harness starts in sessions of their own are stopped by pid
    # however the run ends: SIGTERM, SIGINT, a normal exit (in each xdist worker too).
    cleanup.install()
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = TEST_ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(hard,
                                                                         TEST_ADDRESS_SPACE)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def pytest_unconfigure(config: pytest.Config) -> None:
    cleanup.stop_all()


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """One sshd per test session (per xdist worker: each worker is its own session)."""
    with SshServer(tmp_path_factory.mktemp("sshd")) as server:
        yield server


@pytest.fixture
def stubs(tmp_path: Path) -> StubDir:
    """A recording stub ``rec`` in ``tmp_path``; add more with ``stubs.add("awk", ...)``."""
    return StubDir(tmp_path, names=["rec"])


@pytest.fixture
def remote(sshd: SshServer, stubs: StubDir) -> Iterator[SshServer]:
    """The session sshd reset for this test (bash, empty home, no records), ``stubs`` remote."""
    sshd.reset()
    sshd.use_stubs(stubs)
    yield sshd
    sshd.reset()
