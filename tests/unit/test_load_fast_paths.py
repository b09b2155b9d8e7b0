"""What makes loading a large spec cheap (issue 20) changes no result: the YAML builder's
plain-scalar memo (advisor/load/yamltree.py) and the size parser's cache (advisor/model/base.py)
never give one input another's value, and a kept pause of the collector
(advisor/collector.gc_paused) only moves what a large block built to the oldest generation."""

from __future__ import annotations

import datetime
import gc

import pytest

from advisor import collector
from advisor.load import yamltree
from advisor.model import base
from advisor.model.spec import Disk
from advisor.model.units import parse_size_mib


@pytest.mark.self_compare
def test_a_size_text_gets_its_own_value_each_time() -> None:
    texts = ["8GB", "8MB", "8 GB", "8gb", "1.5TB", "8GB", "8MB", "4096", "8GiB"]
    assert [Disk(size=t, controller="pvscsi").size for t in texts] == [parse_size_mib(t) for t in texts]
    assert Disk(size=4096, controller="pvscsi").size == 4096  # an int is not the text "4096"'s entry


def test_a_refused_size_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(ValueError, match="unknown unit"):
            base._size_mib("8 furlongs")
    with pytest.raises(ValueError, match="boolean"):
        base._size_mib(True)


def test_the_size_cache_keeps_only_short_texts_and_is_bounded() -> None:
    base._parse_size_text.cache_clear()
    long_text = " " * 40 + "8GB"
    assert base._size_mib(long_text) == 8192
    assert base._parse_size_text.cache_info().currsize == 0
    for n in range(1, 5000):
        assert base._size_mib(f"{n}MB") == n
    assert base._parse_size_text.cache_info().currsize <= 4096


def test_a_plain_scalar_memo_holds_the_text_value_not_its_first_form() -> None:
    """One document with the same texts plain, quoted and tagged: each keeps its own type."""
    tree = yamltree.build(
        "a: [1, '1', !!str 1, 1, yes, 'yes', yes, 1.5, '1.5', 1.5, 2020-01-02, '2020-01-02', 2020-01-02, ~, '~', ~]\n"
    )
    assert tree["a"] == [1, "1", "1", 1, True, "yes", True, 1.5, "1.5", 1.5, datetime.date(2020, 1, 2),
                         "2020-01-02", datetime.date(2020, 1, 2), None, "~", None]
    assert [type(v) for v in tree["a"][:4]] == [int, str, str, int]


def test_the_plain_memo_is_per_document() -> None:
    """A later document's texts are resolved afresh (nothing is carried across builds)."""
    assert yamltree.build("a: 5\n") == {"a": 5}
    assert yamltree.build("a: '5'\n") == {"a": "5"}
    assert yamltree.build("a: 5\n") == {"a": 5}


def _built_in_a_pause(count: int, kept: bool, outer: bool = False) -> list[list[int]]:
    gc.collect()
    built: list[list[int]] = []
    if outer:
        with collector.gc_paused(), collector.gc_paused(kept=kept):
            built.extend([i] for i in range(count))
    else:
        with collector.gc_paused(kept=kept):
            built.extend([i] for i in range(count))
    return built


def _in_oldest(objects: list[list[int]]) -> bool:
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    return all(id(o) in oldest for o in objects)


@pytest.mark.skipif(not gc.isenabled(), reason="the collector is off in this process")
def test_a_kept_pause_moves_a_large_build_to_the_oldest_generation_only(monkeypatch) -> None:
    built = _built_in_a_pause(2 * collector._KEPT_MIN, kept=True)
    assert _in_oldest(built)
    # A small build, an unkept pause and a pause inside another keep the collector's usual course.
    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    _built_in_a_pause(100, kept=True)
    _built_in_a_pause(2 * collector._KEPT_MIN, kept=False)
    _built_in_a_pause(2 * collector._KEPT_MIN, kept=True, outer=True)
    assert frozen == []
    _built_in_a_pause(2 * collector._KEPT_MIN, kept=True)
    assert frozen == [True]
    assert gc.isenabled()


@pytest.mark.skipif(not gc.isenabled(), reason="the collector is off in this process")
def test_a_start_up_pause_promotes_even_a_small_build() -> None:
    # kept_min=0: a command's start-up (advisor.commands.common.settings) builds what the run keeps.
    gc.collect()
    with collector.gc_paused(kept=True, kept_min=0):
        built = [[i] for i in range(100)]
    assert _in_oldest(built)
    assert gc.isenabled()
