"""Test harness that runs commands for real and records what every program received.

- :mod:`tests.harness.stubs`: argv-recording stub programs (:class:`StubDir`).
- :mod:`tests.harness.sshd`: a throw-away OpenSSH server on 127.0.0.1 (:class:`SshServer`).
- :mod:`tests.harness.shells`: run real ``bash -c`` / ``dash -c`` with timeouts, and ask a
  real shell what words a piece of shell text produces (:func:`bash_words`).
- :mod:`tests.harness.cleanup`: what the tests started in sessions of their own (sshd, those
  shells) is stopped by pid however the run ends: SIGTERM, SIGINT, a normal exit.
"""
