"""Grouping a walk's files by configuration: one discovery per folder, never one key for two folders."""

from __future__ import annotations

import os

from advisor.commands.scopes import _folder_key


def test_files_of_different_folders_never_share_a_folder_key() -> None:
    sep = os.sep
    files = ["a.vmx", "-", f"{sep}a.vmx", f"d{sep}a.vmx", f"d{sep}e{sep}a.vmx", f"{sep}d{sep}a.vmx",
             f"d{sep}{sep}b.vmx"]
    by_key: dict[str, set[str]] = {}
    for file in files:
        by_key.setdefault(_folder_key(file), set()).add(os.path.normpath(os.path.dirname(file) or "."))
    assert all(len(folders) == 1 for folders in by_key.values()), by_key
    assert _folder_key(f"d{sep}a.vmx") == _folder_key(f"d{sep}b.vmx")
