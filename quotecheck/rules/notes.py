"""QC002's notes that no rule's check makes: the checker's (line endings, directives, a rule that
failed or ran out of time) and the commands' (an undecodable or binary input). Each is a
``Template`` made into a ``Diagnostic`` by ``api.not_analysed``."""

from __future__ import annotations

from quotecheck.rules.api import Template

CRLF = Template(
    "crlf-line-endings", "this file has CRLF (Windows) line endings",
    "bash and sh read each `\\r` as part of the last word of its line (`then\\r` is not "
    "`then`, `\"$x\"\\r` is not `$x`), so the script fails or passes stray carriage returns "
    "on; it was analysed as if the line endings were LF; convert it (`sed -i 's/\\r$//' FILE` "
    "or `dos2unix`)")
RULE_FAILED = Template(
    "rule-failed", "rule {code} ({name}) failed on this input and was skipped ({error})",
    "please report it", ";")
RULES_STOPPED = Template("rules-stopped", "{why}", "{what}, so findings may be missing")
COLONLESS_DIRECTIVE = Template(
    "colonless-directive", "malformed quotecheck directive `{directive}`",
    "a colon must follow `quotecheck` (`# quotecheck: disable=QC101`); it is ignored")
MALFORMED_DIRECTIVE = Template(
    "malformed-directive", "malformed quotecheck directive `{directive}`",
    "expected `disable=QC101,QC205`, `shell=zsh` or `remote-shell=bash`")
UNKNOWN_CODE = Template(
    "unknown-code", "unknown rule code `{code}` in quotecheck directive (codes and names: "
    "`quotecheck rules`)", "the directive is ignored for it", ";")
UNKNOWN_SHELL = Template(
    "unknown-shell", "unknown shell `{shell}` in quotecheck directive (expected one of: "
    "{shells})", joint="")
NOT_UTF8 = Template(
    "not-utf8", "the file is not valid UTF-8 here",
    "it was decoded with replacement characters (U+FFFD), so values containing these bytes "
    "are not exact", ";")
# inputs.BINARY_NOTE is this message's text (what `explain` and `fix` say of a binary input).
BINARY = Template("binary-file", "binary file, not analysed", "it holds NUL bytes")
