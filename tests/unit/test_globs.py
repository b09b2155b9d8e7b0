"""gitignore-style matching (advisor.readers.globs, advisor.readers.ignore): git's answers, and
work bounded by what the matcher counts (dictionary lookups, regex attempts), never by time.

Issue 39: `*a*a*a*a*a*a*a*a*a*a*a*a*c` against a 60-character name backtracked for over a minute;
a 1 MiB `.gitignore` of 45,000 patterns against 300 files took 18 s; a tree with a `.gitignore`
in each of 1,500 nested folders took 139 s.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import require_tool

from advisor.readers import template_files
from advisor.readers.globs import COUNT, PatternSet


def _counted(func):
    COUNT.lookups = COUNT.attempts = 0
    result = func()
    return result, COUNT.lookups, COUNT.attempts


def _pattern(rng: random.Random) -> str:
    text = "".join(rng.choice("ab*?/.") for _ in range(rng.randint(1, 7)))
    if rng.random() < .15:
        text = "[ab]" + text
    if rng.random() < .15:
        text += "[!a]"
    if rng.random() < .1:
        text = "**/" + text
    if rng.random() < .1:
        text += "/**"
    while "//" in text:
        text = text.replace("//", "/")
    # git reads a `**` touching other text as matching `/` too, unlike gitignore(5), which
    # says it is a plain `*`; advisor follows the documentation (as pathspec did)
    text = "/".join(seg if "**" not in seg or not seg.strip("*") else seg.replace("**", "*")
                    for seg in text.split("/"))
    roll = rng.random()
    if roll < .2:
        text = "!" + text
    elif roll > .85:
        text = text.rstrip("/") + "/"
    return text


def _path(rng: random.Random) -> str:
    segments = ["".join(rng.choice("ab.") for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 3))]
    return "/".join(s if s.strip(".") else "a" + s for s in segments)


def test_matches_what_git_ignores(tmp_path: Path) -> None:
    """Random patterns and paths against `git ls-files --ignored` in a real repository."""
    git = require_tool("git", shutil.which("git"), "apt-get install git")
    rng = random.Random(39)
    checked = 0
    for trial in range(60):
        patterns = [_pattern(rng) for _ in range(rng.randint(1, 3))]
        files = sorted({_path(rng) for _ in range(8)})
        files = [f for f in files if not any(g.startswith(f + "/") for g in files)]
        repo = tmp_path / str(trial)
        subprocess.run([git, "init", "-q", str(repo)], check=True)
        (repo / ".gitignore").write_text("\n".join(patterns) + "\n")
        for file in files:
            (repo / file).parent.mkdir(parents=True, exist_ok=True)
            (repo / file).touch()
        listed = subprocess.run([git, "ls-files", "-o", "-i", "--exclude-standard"], cwd=repo,
                                capture_output=True, text=True, check=True).stdout.split()
        spec = PatternSet.from_lines(patterns)
        for file in files:
            assert spec.match_file(file) == (file in listed), (patterns, file)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("name", ["a" * 60, "a" * 255, "a" * 254 + "c"])
def test_backtracking_pattern_is_tried_once_per_name(name: str) -> None:
    """One regex attempt per name; the pattern's pieces are taken at their first occurrence in
    atomic groups, so the attempt is linear (the CLI reproducer runs in test_hostile_inputs)."""
    spec = PatternSet.from_lines(["*a*a*a*a*a*a*a*a*a*a*a*a*c"])
    verdict, lookups, attempts = _counted(lambda: spec.excludes("dir/" + name))
    assert verdict == name.endswith("c")
    assert attempts == 1 and lookups == 0
    assert "(?>" in spec.by_name.globs[0].regex  # every piece but the last is atomic


def test_a_mebibyte_of_patterns_costs_lookups_not_attempts() -> None:
    """45,000 patterns (1 MiB) against 300 paths: literal names and paths, suffixes, and
    wildcard patterns, each with a distinct piece of text: a path tries only the wildcard
    patterns whose text it contains."""
    lines = ([f"generated/file-{i:05d}.tf" for i in range(15_000)] + [f"*.tmp{i:05d}" for i in range(15_000)]
             + [f"*cache-{i:05d}*/" for i in range(10_000)] + [f"old-{i:05d}.vmx" for i in range(5_000)])
    assert 700_000 < sum(len(line) + 1 for line in lines) <= 1 << 20
    spec = PatternSet.from_lines(lines)
    paths = [f"dir{i % 7}/vm-{i:04d}.pkr.hcl" for i in range(297)] + \
            ["generated/file-00042.tf", "x/cache-00017-b/", "a.tmp00003"]
    verdicts, lookups, attempts = _counted(lambda: [spec.excludes(p) for p in paths])
    assert verdicts[-3:] == [True, True, True] and not any(verdicts[:-3])
    longest = max(len(p) for p in paths)
    assert lookups <= len(paths) * (3 + longest)  # names, paths, suffix lengths, key windows
    assert attempts <= 3  # only the paths holding a wildcard pattern's text


def test_a_tree_with_a_gitignore_in_every_folder_is_linear(tmp_path: Path) -> None:
    """A `.gitignore` in each of 400 nested folders: a path's cost does not grow with the
    number of ignore files above it (their names and suffixes are merged)."""
    (tmp_path / ".git").mkdir()  # a repository, as far as the walk asks
    folder = tmp_path
    depth = 400
    for level in range(depth):
        folder = folder / "d"
        folder.mkdir()
        (folder / ".gitignore").write_text(f"*.tmp{level}\nskip{level}.tf\n")
        (folder / "x.tf").write_text("")
        (folder / f"skip{level}.tf").write_text("")
    files, lookups, attempts = _counted(lambda: template_files([tmp_path], [], gitignore=True))
    assert len(files) == depth and all(f.endswith(os.sep + "x.tf") for f in files)
    # per folder: its x.tf, its skipN.tf and its sub-folder, each one name lookup and at most
    # two suffix lengths
    assert lookups <= 3 * 3 * depth and attempts == 0


def test_exclude_checks_parent_folders_first() -> None:
    """git's rule: nothing under an excluded folder comes back."""
    spec = PatternSet.from_lines(["build/", "!build/keep.tf"])
    assert spec.match_file("build/keep.tf") and spec.match_file("build/") and not spec.match_file("src/keep.tf")


def test_bad_patterns_are_skipped_in_ignore_files_and_refused_as_options() -> None:
    assert PatternSet.from_lines(["[z-a]", "a\\", "*.tf"]).excludes("x.tf")
    with pytest.raises(ValueError, match="z-a"):
        PatternSet.from_lines(["[z-a]"], strict=True)
