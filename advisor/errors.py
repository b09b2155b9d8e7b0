"""The one exception type that means "the input is wrong", and how it is shown.

Everything a user can get wrong (a spec, a host profile, a rule file, a template) ends as an
InputError carrying the file, line and field when known. The CLI prints it as one line and
exits 2; nothing else is allowed to escape to the user as a traceback.
"""

from __future__ import annotations


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


class UsageError(Exception):
    """The command line itself is wrong (exit 2, like click's own usage errors)."""


def printable(text: str) -> str:
    """Neutralise terminal control characters coming from user input.

    Line breaks too: a message is one line, and a value holding a line break and "::error::"
    must not start a second line that a CI log would read as a command of its own.
    """
    return "".join(ch if " " <= ch < "\x7f" or ch > "\x9f" else f"\\x{ord(ch):02x}" for ch in text)
