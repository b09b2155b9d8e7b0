"""A folder without a configuration has advisor.load.config.UNSET, a plain object, instead of a
Config built with its defaults (the models are not built at all on such a run): it must read
exactly as Config() does, setting by setting."""

from __future__ import annotations

from advisor.load.config import UNSET, LoadedConfig
from advisor.load.configmodel import Config


def test_unset_reads_as_the_defaults_of_every_setting() -> None:
    defaults = Config()
    names = [n for n in dir(UNSET) if not n.startswith("_")]
    assert sorted(names) == sorted(Config.model_fields)
    for name in Config.model_fields:
        value, expected = getattr(UNSET, name), getattr(defaults, name)
        if isinstance(expected, list):
            assert list(value) == expected, name
        elif isinstance(expected, dict):
            assert dict(value) == expected, name
        else:
            assert value is expected, name


def test_a_folder_without_a_configuration_gets_unset() -> None:
    assert LoadedConfig().config is UNSET
