"""The escaping boundary: one function per kind of output, for every string that came from outside
(file names, VM, host and cluster names, template values, custom rules' text).

A formatter calls the function of its kind at the point where such a string is written, and
nowhere else decides how a character is shown. What each kind must survive:

* terminal (text report, `topology`, messages): control characters (C0, DEL, C1), the Unicode
  line separators, the bidirectional overrides and isolates ("Trojan Source", CVE-2021-42574),
  the noncharacters U+FFFE/U+FFFF and lone surrogates (a file name's undecodable bytes, which
  `os.fsdecode` turns into U+DC80-U+DCFF) are shown as `\\xNN` / `\\uNNNN` text
  (`advisor.errors.CONTROL`, the one list of them). An undecodable byte is shown as the byte.
* XML, SVG and HTML (JUnit, the HTML page, the standalone SVG): the terminal escaping with no
  character kept, so nothing XML 1.0 forbids (C0 but tab/LF/CR, U+FFFE/U+FFFF, surrogates:
  XML 1.0 §2.2 "Char") is written, then `&`, `<`, `>` and both quotes as entities, so the same
  text is safe in element content and in any attribute (title, desc, data-*).
* JSON for a terminal (`topology --format json`): JSON escapes for what the terminal escaping
  shows, so the document still parses and holds the name exactly.
* GitHub workflow commands: the runner's percent-encoding (`%`, CR, LF in the message; also `:`
  and `,` in a property) after the terminal escaping of every other control character
  (https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions; the
  runner's own escaping, actions/toolkit `escapeData` / `escapeProperty`).
* any line-based report shown in a CI log: no line may begin with `::` unless advisor wrote the
  command (`command_safe`), as the runner takes any such line for a command.
* Markdown (GitHub-flavoured): Markdown and HTML characters backslash-escaped, and `@mentions`
  and bare links made inert with a zero-width space (`&#8203;`): GitHub notifies a user mentioned
  anywhere in a comment's text and turns `www.` and `scheme://` text into links (GFM spec,
  "Autolinks (extension)"); backslashes do not stop either. Renovate escapes its PR bodies the
  same way (`sanitizeMarkdown`).
"""

from __future__ import annotations

import re

from advisor.errors import CONTROL, shown

_LINE_BREAKS = "\r\n"


def terminal(text: object, keep: str = "\n") -> str:
    """Text with every character of `advisor.errors.CONTROL` shown instead of obeyed; those in
    `keep` (newlines by default) are left for the format to place."""
    text = str(text)
    if CONTROL.search(text) is None:  # nearly always: no replacement to build
        return text
    return CONTROL.sub(lambda m: m.group() if m.group() in keep else shown(m.group()), text)


def one_line(text: object) -> str:
    """`terminal` text with its line breaks as spaces, for places a newline cannot go."""
    return terminal(text).replace("\r\n", " ").replace("\n", " ")


_XML_SPECIAL = re.compile("[&<>\"']")
_XML_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}


def xml(text: object) -> str:
    """Text for XML, SVG or HTML element content or an attribute value (quoted with `"` or `'`).

    Line breaks are shown as `\\x0a` too: in an attribute a parser would fold them to spaces,
    and a report printed in a CI log must not start a line with text from outside."""
    shown_text = terminal(text, keep="")
    if _XML_SPECIAL.search(shown_text) is None:
        return shown_text
    return _XML_SPECIAL.sub(lambda m: _XML_ENTITY[m.group()], shown_text)


def xml_text(text: object) -> str:
    """Text for an ElementTree node (which escapes `&`, `<` and quotes itself): what XML cannot
    carry shown, line breaks kept for element text (ElementTree writes them as `&#10;` in an
    attribute)."""
    return terminal(text)


def json_for_terminal(document: object, indent: int | None = 2) -> str:
    """JSON whose non-ASCII text stays readable but holds no character the terminal escaping
    shows: those are written as `\\uNNNN` escapes, which JSON reads back as the same text."""
    import json

    encoded = json.dumps(document, indent=indent, ensure_ascii=False)
    # Beyond the indent's line breaks such a character can only be in a string (json.dumps
    # escapes C0 in strings already), where \\uNNNN is the same character.
    return CONTROL.sub(lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", encoded)


def github_data(text: object) -> str:
    """A workflow command's message: other controls shown, then `%`, CR and LF percent-encoded."""
    return terminal(text, keep=_LINE_BREAKS).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: object) -> str:
    """A workflow command's property value: `github_data`, and `:` and `,` too (they would end it)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


_ANSI_SGR = re.compile(r"\x1b\[[0-9;]*m")


def command_safe(line: str) -> str:
    """A report line that would begin with `::` (after spaces and advisor's colour codes) with its
    first colon shown as `\\x3a`: GitHub Actions runs such a line of a log as a workflow command."""
    if "::" not in line or not _ANSI_SGR.sub("", line).lstrip().startswith("::"):
        return line
    return line.replace("::", "\\x3a:", 1)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]{}<>|#!~])")
# `@name` (GitHub's user/team mention), and the starts of GFM's extended autolinks: `www.`, a
# `scheme://`, and an e-mail's `@` (matched by the mention pattern already).
_INERT = re.compile(r"@(?=[A-Za-z0-9])|(?<=[A-Za-z])(?=://)|(?i:\bwww)(?=\.)")


def markdown(text: object) -> str:
    """Text for a Markdown paragraph or table cell: Markdown and HTML characters escaped, `&`
    as an entity (so the text's own `&amp;` is shown, not decoded), mentions and links inert,
    line breaks as `<br>`."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", terminal(text)).replace("&", "&amp;")
    escaped = _INERT.sub(lambda m: m.group() + "&#8203;", escaped)
    return "<br>".join(escaped.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def markdown_code(text: object) -> str:
    """Text for inside a fenced code block: the fence is chosen by the caller; here only what a
    terminal or a browser would obey is shown."""
    return terminal(text)
