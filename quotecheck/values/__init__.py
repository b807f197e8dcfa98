"""What the script itself says about its variables: known values, arrays and value kinds.

Between ``parsing`` and ``layers``: ``analyse_values(script)`` walks one parsed script once, in
the order its commands run (``flow``), and answers what a variable holds where it is read
(``Values.at``), what an array holds (``Values.array_at``) and what a word expands to when every
part is known (``Values.expand``). A ``Knowledge`` carries the possible values or the kind of
value (a number, one plain word, shell-quoted text, a validated value), where it was set, and a
clause for messages (``describe``). Nothing here runs anything.

- ``knowledge``: what is known of one variable, merging;
- ``expand``: the value of a part, an assignment's value, a word's fields;
- ``flow``: the walk (branches, loops, subshells, functions, the files a script sources when
  they are read);
- ``shapes``: code shapes it recognises (a regex check, `printf %q` functions, `exit`);
- ``arrays``: the elements of `(...)`.
"""

from quotecheck.values.analysis import Values, analyse_values
from quotecheck.values.expand import Field
from quotecheck.values.flow import Resolver, SourcedText
from quotecheck.values.knowledge import Knowledge

__all__ = ["Field", "Knowledge", "Resolver", "SourcedText", "Values", "analyse_values"]
