"""Host files: formats that hold commands (Python, Makefiles...) and the layer above the shell.

Each reader turns one format into the launches it makes (``model.Launch``): the exact text a
shell receives or the exact argv a program receives, every character mapped back to the host
file. ``kinds`` says which format a file is; the trace (``trace.build_trace``) puts the host
at the root and follows each launch as it follows a command of a shell.
"""
