# Stand-in for /root/venv/bin/activate (quotecheck DFlash end-to-end test; sourced, not run).
# Like a real venv's activate: sets VIRTUAL_ENV and puts the venv's bin/ first on PATH, where
# bin/python3 is a symlink to the real interpreter. The marker lets the stand-in trainer
# record that it was started from an activated environment.
VIRTUAL_ENV=@VENV@
export VIRTUAL_ENV
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
DFLASH_STANDIN_VENV_ACTIVE=1
export DFLASH_STANDIN_VENV_ACTIVE
