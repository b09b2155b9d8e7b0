"""gitignore-style patterns (`.gitignore`, `.git/info/exclude`, `--exclude`, config `exclude:`),
compiled so that matching one path costs at most about its length times the pattern's.

Why not pathspec, which advisor used before: it turns `*` into `[^/]*` for Python's backtracking
`re`, so `*a*a*a*a*a*a*a*a*a*a*a*a*c` against a 60-character name tries every way to split the
name (over a minute of CPU), and it tests every pattern of a file against every path (a 1 MiB
`.gitignore` of 45,000 patterns against 300 files: 18 s). Its RE2 backend is linear but fails to
compile a large set and logs to standard error. Here:
- a pattern without wildcards is a dictionary key, one `*` followed by text a suffix; a path
  costs one lookup per index, whatever the number of such patterns;
- any other pattern is a regular expression in which only the last `*` of a path segment and
  the last `**` may backtrack: every earlier piece between wildcards has a fixed length and is
  taken at its first occurrence inside an atomic group (`(?>...)`), which is where the shortest
  prefix leaves the most room for the rest, so the first occurrence is the one a match needs.

Semantics are git's (gitignore(5)): blank lines and `#` comments are skipped, `\\` escapes the
next character, trailing spaces are dropped unless escaped, `!` re-includes, a trailing `/`
matches folders only (their paths end in "/" here), a pattern with a `/` elsewhere is matched
against the path from the ignore file's folder and one without against the last name only;
`*`, `?` and `[...]` never match `/`; `**/` matches any number of folders, `/**` everything
inside; a `**` touching other text is a plain `*`, as gitignore(5) says (git itself lets it
match `/` there). Unlike pathspec, a pattern never matches a path through one of its parent folders: the
walk decides a folder before its contents, as git does (a file under an ignored folder stays
ignored; `match_file` checks the parents first).
"""

from __future__ import annotations

import re
from typing import NamedTuple

_WILD = frozenset("*?[")


class Glob(NamedTuple):
    """One pattern: its place in the file (a later one wins), what a match means, and how it is
    matched (exactly one of `literal`, `suffix`, `regex`)."""
    order: int  # its line: a later pattern wins
    ignore: bool  # False for a `!` pattern
    dir_only: bool
    anchored: bool  # matched against the whole relative path, else the last name
    literal: str | None
    suffix: str | None
    regex: str | None  # source of the expression, compiled when first tried
    key: str  # a piece of text every match contains ("" when there is none): the index's key


def _unescape_tail(line: str) -> str:
    """The pattern text of a line: trailing spaces dropped unless the last is escaped."""
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line) and (len(stripped) - len(stripped.rstrip("\\"))) % 2:
        return stripped + " "
    return stripped


def _tokens(segment: str) -> list[str] | None:
    """A segment as regex pieces of one character each, or "*" for a run of stars; None when a
    `[` is never closed (git's wildmatch then matches nothing). Raises ValueError on a trailing
    backslash or a bad range."""
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        c = segment[i]
        if c == "\\":
            if i + 1 >= n:
                raise ValueError("a pattern cannot end in a backslash")
            out.append(re.escape(segment[i + 1]))
            i += 2
        elif c == "*":
            if not out or out[-1] != "*":
                out.append("*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            piece, i = _char_class(segment, i)
            if piece is None:
                return None
            out.append(piece)
        else:
            out.append(re.escape(c))
            i += 1
    return out


def _char_class(text: str, start: int) -> tuple[str | None, int]:
    """The regex of the bracket expression at `start` and the index after it."""
    i, n = start + 1, len(text)
    negate = i < n and text[i] in "!^"
    if negate:
        i += 1
    members: list[str] = []
    first = True
    while i < n and (text[i] != "]" or first):
        c = text[i]
        if c == "\\" and i + 1 < n:
            members.append(re.escape(text[i + 1]))
            i += 2
        elif c == "-" and members and i + 1 < n and text[i + 1] != "]":
            members.append("-")
            i += 1
        else:
            members.append(re.escape(c))
            i += 1
        first = False
    if i >= n:
        return None, n
    body = "".join(members)
    re.compile(f"[{body}]")  # a reversed range (`[z-a]`) raises re.error, a ValueError
    return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), i + 1


def _segment_regex(tokens: list[str]) -> str:
    """One segment: fixed pieces between stars; every piece but the last taken at its first
    occurrence (atomic), the last by the one star allowed to backtrack. Ends at a segment end."""
    chunks = "".join(tokens).split("*") if "*" in tokens else ["".join(tokens)]
    if len(chunks) == 1:
        return chunks[0] + "(?![^/])"
    middle = "".join(f"(?>[^/]*?{chunk})" for chunk in chunks[1:-1] if chunk)
    return f"{chunks[0]}{middle}[^/]*{chunks[-1]}(?![^/])"


def compile_line(line: str, index: int) -> Glob | None:
    """One line of an ignore file as a pattern, or None (blank, comment, or a pattern that can
    match nothing). Raises ValueError for one git would refuse."""
    text = _unescape_tail(line.rstrip("\r\n"))
    if not text or text.startswith("#"):
        return None
    ignore = not text.startswith("!")
    if not ignore:
        text = text[1:]
    dir_only = text.endswith("/") and not text.endswith("\\/")
    text = text.rstrip("/") if dir_only else text
    if not text:
        return None
    anchored = "/" in text
    segments = text.lstrip("/").split("/") if anchored else [text]
    if not any(ch in _WILD for ch in text) and "\\" not in text:
        return Glob(index, ignore, dir_only, anchored, "/".join(segments), None, None, "")
    if not anchored and text.startswith("*") and "\\" not in text and not any(ch in _WILD for ch in text.lstrip("*")):
        return Glob(index, ignore, dir_only, False, None, text.lstrip("*"), None, "")
    pieces: list[str | None] = []  # None: a `**` segment
    runs: list[str] = []  # literal text between wildcards, the index's candidates
    for segment in segments:
        if anchored and len(segment) > 1 and not segment.strip("*"):  # git reads `***` as `**` too
            if not pieces or pieces[-1] is not None:
                pieces.append(None)
            continue
        tokens = _tokens(segment)
        if tokens is None:
            return None
        pieces.append(_segment_regex(tokens))
        runs.extend(_literal_runs(segment))
    source = _path_regex(pieces)
    longest = max(runs, key=len, default="")
    return Glob(index, ignore, dir_only, anchored, None, None, source, longest[-KEY_CHARS:])


# The index of wildcard patterns keys each on the last KEY_CHARS characters of its longest piece
# of plain text; a path looks up each of its substrings of the key lengths present.
KEY_CHARS = 8


def _literal_runs(segment: str) -> list[str]:
    """The plain text between a segment's wildcards and bracket expressions (escapes undone)."""
    runs, current, i = [], [], 0
    while i < len(segment):
        c = segment[i]
        if c == "\\" and i + 1 < len(segment):
            current.append(segment[i + 1])
            i += 2
            continue
        if c in "*?[":
            runs.append("".join(current))
            current = []
            if c == "[":
                i = _char_class(segment, i)[1] - 1
        else:
            current.append(c)
        i += 1
    runs.append("".join(current))
    return [run for run in runs if run]


def _path_regex(pieces: list[str | None]) -> str:
    """Segments joined by "/", a `**` between blocks of fixed segment count. Every block but the
    last is taken at its first position (atomic); only the last `**` may backtrack."""
    blocks: list[list[str]] = [[]]
    for piece in pieces:
        if piece is None:
            blocks.append([])
        else:
            blocks[-1].append(piece)
    trailing = pieces[-1] is None
    if trailing:
        blocks.pop()
    out = "/".join(blocks[0])
    for number, block in enumerate(blocks[1:], start=1):
        lead = "/" if out else ""
        body = f"{lead}(?:[^/]+/)*?" + "/".join(block)
        out += body if number == len(blocks) - 1 else f"(?>{body})"
    if trailing:
        out += "/.+" if out else ".+"
    return out


class Counter:
    """Work done by matching, counted for the tests: dictionary lookups and regex attempts."""
    __slots__ = ("attempts", "lookups")

    def __init__(self) -> None:
        self.lookups = 0
        self.attempts = 0


COUNT = Counter()


class _Wild:
    """Wildcard patterns matched against one kind of target (a path, or its last name), indexed
    by key when there are more than a few."""
    __slots__ = ("compiled", "globs", "keyed", "lengths", "unkeyed")

    def __init__(self, globs: list[Glob]) -> None:
        self.globs = sorted(globs, key=lambda g: -g.order)  # the last pattern first
        self.keyed: dict[str, list[Glob]] = {}
        self.unkeyed: list[Glob] = []
        for glob in self.globs:
            if glob.key:
                self.keyed.setdefault(glob.key, []).append(glob)
            else:
                self.unkeyed.append(glob)
        self.lengths = sorted({len(key) for key in self.keyed})
        self.compiled: dict[int, re.Pattern[str]] = {}

    def candidates(self, target: str) -> list[Glob]:
        """The patterns that may match `target`, the last first: those whose key occurs in it."""
        if len(self.globs) <= _FEW:
            return self.globs
        found = {g.order: g for g in self.unkeyed}
        keyed, count = self.keyed, COUNT
        for length in self.lengths:
            for start in range(len(target) - length + 1):
                count.lookups += 1
                hits = keyed.get(target[start:start + length])
                if hits:
                    found.update((g.order, g) for g in hits)
        return [found[i] for i in sorted(found, reverse=True)]

    def first(self, target: str, folder: bool, after: int) -> Glob | None:
        """The last pattern after index `after` matching `target`, or None."""
        for glob in self.candidates(target):
            if glob.order <= after:
                break
            if glob.dir_only and not folder:
                continue
            COUNT.attempts += 1
            regex = self.compiled.get(glob.order)
            if regex is None:
                regex = self.compiled[glob.order] = re.compile(glob.regex or "", re.DOTALL)
            if regex.fullmatch(target):
                return glob
        return None


# Up to this many wildcard patterns are simply tried in turn; more are looked up by key.
_FEW = 16


class PatternSet:
    """The patterns of one ignore file (or one `exclude` list), indexed."""
    __slots__ = ("anchored", "by_name", "by_path", "lengths", "names", "paths", "size", "suffixes", "top")

    def __init__(self, globs: list[Glob]) -> None:
        # literal name / path -> the last pattern stating it, for files and for folders
        self.names: dict[tuple[str, bool], Glob] = {}
        self.paths: dict[tuple[str, bool], Glob] = {}
        self.suffixes: dict[tuple[str, bool], Glob] = {}
        wild: list[Glob] = []
        for glob in globs:
            keys = [True] if glob.dir_only else [True, False]  # True: a folder's path
            if glob.literal is not None:
                table = self.paths if glob.anchored else self.names
                table.update(((glob.literal, k), glob) for k in keys)
            elif glob.suffix is not None:
                self.suffixes.update(((glob.suffix, k), glob) for k in keys)
            else:
                wild.append(glob)
        self.by_name = _Wild([g for g in wild if not g.anchored])
        self.by_path = _Wild([g for g in wild if g.anchored])
        self.lengths = sorted({len(s) for s, _ in self.suffixes})
        self.anchored = bool(self.paths or self.by_path.globs)
        self.size = len(globs)
        self.top = max((g.order for g in globs), default=-1)

    @classmethod
    def from_lines(cls, lines: list[str], strict: bool = False) -> PatternSet:
        """The patterns of `lines`; a line git would refuse is skipped (as git skips it), or with
        `strict` raises ValueError naming it."""
        globs = []
        for index, line in enumerate(lines):
            try:
                glob = compile_line(line, index)
            except (ValueError, re.error) as exc:
                if strict:
                    raise ValueError(f"'{line[:80]}' is not a usable pattern ({exc})") from None
                continue
            if glob is not None:
                globs.append(glob)
        return cls(globs)

    def verdict(self, path: str) -> Glob | None:
        """The last pattern matching `path` itself (relative; a folder's ends in "/"), or None."""
        folder = path.endswith("/")
        core = path[:-1] if folder else path
        return self.verdict_of(core, core[core.rfind("/") + 1:], folder)

    def verdict_of(self, core: str, name: str, folder: bool, simple: bool = True) -> Glob | None:
        """verdict() of a path already split: without its trailing "/", its last name, whether it
        is a folder. Nothing here reads `core` unless a pattern has a `/`, so a walk deep in a
        tree pays per ignore file for the name, not for the whole path. `simple=False` leaves out
        the literal names and suffixes (ignore.Layers merges those of all the files above)."""
        best: Glob | None = None
        count = COUNT
        for table, target in ((self.names if simple else None, name), (self.paths, core)):
            if table:
                count.lookups += 1
                found = table.get((target, folder))
                if found is not None and (best is None or found.order > best.order):
                    best = found
        for length in self.lengths if simple else ():
            if length > len(name):
                break
            count.lookups += 1
            found = self.suffixes.get((name[len(name) - length:], folder))
            if found is not None and (best is None or found.order > best.order):
                best = found
        for wild, target in ((self.by_name, name), (self.by_path, core)):
            if wild.globs:
                found = wild.first(target, folder, -1 if best is None else best.order)
                if found is not None:
                    best = found
        return best

    @property
    def beyond_simple(self) -> bool:
        """Whether any pattern is more than a literal name or a `*suffix`."""
        return bool(self.paths or self.by_name.globs or self.by_path.globs)

    def excludes(self, path: str) -> bool:
        """Whether the last pattern matching `path` itself excludes it (a walk has judged its
        folders already)."""
        glob = self.verdict(path)
        return glob is not None and glob.ignore

    def match_file(self, path: str) -> bool:
        """Whether `path` is excluded: one of its parent folders is, or it is itself (git's
        rule: nothing under an excluded folder comes back)."""
        if not self.size:
            return False
        start = 0
        while (cut := path.find("/", start)) != -1 and cut + 1 < len(path):
            if self.excludes(path[:cut + 1]):
                return True
            start = cut + 1
        return self.excludes(path)
