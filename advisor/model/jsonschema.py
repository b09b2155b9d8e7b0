"""The JSON Schemas of the spec and host-profile formats, generated from the Pydantic models:
`advisor schema` prints them, advisor/schemas/ ships them for editors, and the reference
(advisor.output.specref) is written from them."""

from __future__ import annotations

from typing import Any


def spec_schema() -> dict[str, Any]:
    from advisor.model.spec import Spec

    schema = Spec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://advisor.invalid/schema/spec.json"
    schema["title"] = "advisor spec (vm.yaml)"
    return schema


def host_schema() -> dict[str, Any]:
    from advisor.model.spec import Host

    schema = Host.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "advisor host profile"
    return schema
