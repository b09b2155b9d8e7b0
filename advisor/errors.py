"""The one exception type that means "the input is wrong", and how it is shown.

Everything a user can get wrong (a spec, a host profile, a rule file, a template) ends as an
InputError carrying the file, line and field when known. The CLI prints it as one line and
exits 2; nothing else is allowed to escape to the user as a traceback.
"""

from __future__ import annotations

import re

# The exit codes, as `advisor --help`, `check --help` and `lint --help` print them.
EXIT_CODES_HELP = """\b
Exit codes:
  0  no finding reached --fail-on (default: error)
  1  findings reached --fail-on
  2  usage error or invalid input (file, line and field are named)
  3  internal error (a bug in advisor; run with --debug and report it)
"""


class InputError(Exception):
    """A problem with user input, located as precisely as we can."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.context = context

    def located(self, file: str | None = None, line: int | None = None) -> InputError:
        """Fill in a location the raiser did not know (keeps what it did know)."""
        if self.file is None and file is not None:
            self.file = file
        if self.line is None and line is not None:
            self.line = line
        return self

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.message}"


class InputErrors(InputError):
    """Every problem one pass over an input found (all of a spec's validation errors), so a user
    fixes them in one go instead of one per run. It is an InputError standing for the first of
    them, so code that reports one problem still can; code that reports all reads `problems`."""

    def __init__(self, errors: list[InputError]) -> None:
        first = errors[0]
        super().__init__(first.message, file=first.file, line=first.line, field=first.field, context=first.context)
        self.errors = list(errors)

    def located(self, file: str | None = None, line: int | None = None) -> InputError:
        for error in self.errors:
            error.located(file, line)
        return super().located(file, line)


def one_or_all(errors: list[InputError]) -> InputError:
    """The exception to raise for `errors` (at least one): the error itself, or all of them."""
    return errors[0] if len(errors) == 1 else InputErrors(errors)


def problems(exc: InputError) -> list[InputError]:
    """Each problem an InputError stands for, in the order they are reported."""
    return exc.errors if isinstance(exc, InputErrors) else [exc]


class UsageError(Exception):
    """The command line itself is wrong (exit 2, like click's own usage errors)."""


# C0/C1 controls, plus the Unicode line and paragraph separators (some viewers and JavaScript
# break lines on them) and the bidirectional overrides and isolates that make text display in
# another order than it reads ("Trojan Source", CVE-2021-42574). Also what XML 1.0 cannot hold
# beyond C0 (§2.2 "Char": the noncharacters U+FFFE/U+FFFF and surrogates) and what UTF-8 cannot
# encode: a lone surrogate is a file name's undecodable byte (os.fsdecode's surrogateescape).
# Every output escapes these (advisor/output/escape.py).
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")


def shown(ch: str) -> str:
    """How an escaped character is written: \\xNN, or \\uNNNN beyond Latin-1; a surrogate-escaped
    byte of a file name (U+DC80-U+DCFF) as the byte, \\xNN."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        code -= 0xDC00
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Neutralise terminal control characters coming from user input.

    Line breaks too: a message is one line, and a value holding a line break and "::error::"
    must not start a second line that a CI log would read as a command of its own.
    """
    return CONTROL.sub(lambda m: shown(m.group()), text)
