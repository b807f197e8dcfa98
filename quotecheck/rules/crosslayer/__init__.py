"""Cross-layer expansions: which shell expands what, and where the result lands.

Shared by QC101 (expands-too-early), QC103 (value-becomes-code), QC104 (heredoc-expands-locally)
and QC105 (program-text-expanded): one expansion written in the input gets at most one finding
from these four rules, decided in one place, ``decide`` (which explains the order). QC102
(ssh-joins-words) reads ``joined_words``. By what they hold:

- ``decide``: the decision, run once per check (``findings`` is what the four rules call);
- ``in_code`` (QC101/QC103), ``in_heredoc`` (QC104), ``in_program`` (QC105),
  ``placeholders`` (QC103 for `find -exec {}` / `xargs -I`): each kind of finding;
- ``expansions``, ``analysis``: the expansions of a layer, where they land, and what the
  decision reads of each layer;
- ``chars``, ``assignments``, ``programs``, ``parameters``: how an inner layer reads each
  character, where it sets variables, the program texts it hands on, parameter names;
- ``known``: what the script says about an expansion's value (``quotecheck.values``);
- ``inner_shells``, ``advice``, ``text``: naming the inner shell, what to write instead, text
  helpers.

Nothing here executes anything.
"""
