"""Helpers for tests/test_dflash_e2e.py: a stand-in "GPU box" for the DFlash restart commands.

- :mod:`.machine`: :class:`~.machine.RemoteMachine`, a PID namespace that the test sshd's
  sessions enter, so the remote ``ps aux``/``pgrep`` see only the stand-in machine's processes.
- ``trainer_standin.py``: copied to ``<box>/root/train_dflash_online.py``; logs how it was
  started, then sleeps.
- ``activate_standin.sh``: copied to ``<box>/root/venv/bin/activate``.
"""
