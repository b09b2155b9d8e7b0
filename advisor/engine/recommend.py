"""The one recommendation for a VM, built the same way for check, vmx, fix and size.

A recommendation has two parts (docs/rules.md, "What advisor writes"):

- **settings** advisor writes: the fixes of unsuppressed findings whose *configured* severity
  is warning or error and whose rule declares its fix ``kind: apply`` (right for the VM as
  described). They end as one typed value (``Recommendation.vm``,
  advisor.model.recommendation.RecommendedVM) that `recommended_vmx`, `advisor vmx`, every
  emitter, `advisor fix` and `advisor size` all write.
- **suggestions**: every other fix that changes something — a rule of ``kind: suggest`` (it
  depends on what advisor cannot see: a workload trait, a measurement; shown with its
  condition), or the fix of an info finding (optional by severity). They are reported, and
  written only for rules the user selected explicitly by id (``advisor fix --select NUMA004``).

When two written fixes set the same key the more severe finding wins, by the severity the
configuration gave it, not the catalog's default.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import ValidationError

from advisor.engine.render import REMOVE
from advisor.model.keyview import vm_values
from advisor.model.patch import Patch, fields_set, rebuilt
from advisor.model.recommendation import NO_RECOMMENDATION, RecommendedVM
from advisor.model.vmxkeys import SCALAR_KEYS, normalised_advanced, typed_or_text
from advisor.vmx.spelling import canonical_key
from advisor.vocab import BLOCKING, SEVERITY_RANK


class Fixed(NamedTuple):
    """One unsuppressed finding's fix, as the recommendation needs it.
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    rule: str
    severity: str  # as configured
    summary: str  # the rule's one-line summary: why a key is recommended
    fix: dict[str, Any]  # the rendered fix (vmx, resize, guest, host, text, kind, condition)

    @property
    def kind(self) -> str:
        return str(self.fix.get("kind", "apply"))

    def writes_by_default(self) -> bool:
        return self.kind == "apply" and self.severity in BLOCKING

    def changes_anything(self) -> bool:
        fix = self.fix
        return bool(fix.get("vmx") or fix.get("resize") or fix.get("guest") or fix.get("host"))


class Suggestion(NamedTuple):
    """A fix advisor shows but does not write unless asked: when it helps, and what it sets.
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    rule: str
    severity: str
    condition: str  # "the workload is memory- or cache-bound", or why it is optional
    vmx: dict[str, str]  # .vmx keys; the value REMOVE deletes the key
    resize: dict[str, Any]
    guest: dict[str, Any]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "condition": self.condition,
                "vmx": dict(self.vmx), "resize": dict(self.resize), "guest": dict(self.guest),
                "text": self.text}


def condition_of(item: Fixed) -> str:
    """The condition a suggestion is shown with."""
    if item.kind == "suggest":
        return str(item.fix.get("condition") or "")
    return f"optional ({item.severity}): advisor reports it but does not write it"


@dataclass(slots=True)
class Recommendation:
    """What advisor recommends for one VM: the settings it writes and the suggestions it shows."""

    # Every .vmx key advisor writes, in VMware's spelling: the VM's own keys (when built in
    # full) plus the written fixes' keys. Values are typed (advisor.model.vmxkeys.typed): a key
    # that states a spec field holds the field's value; text is written only at the edge.
    settings: dict[str, Any] = field(default_factory=dict)
    # Only the keys the written fixes change, typed as `settings`; None deletes the key.
    changes: dict[str, Any] = field(default_factory=dict)
    # key -> (rule id, one-line reason) for each key a written fix set or removed: the rule
    # that won the key (the most severe of those writing it).
    reasons: dict[str, tuple[str, str]] = field(default_factory=dict)
    # lower-case key -> every rule whose written fix asks for the key's value: the entry is
    # justified while one of them fires on the VM with the rest of the recommendation applied
    # (advisor.engine.fixpoint.justified).
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)  # rule -> its one-line summary, for the rules above
    guest: dict[str, Any] = field(default_factory=dict)
    guest_sources: dict[str, str] = field(default_factory=dict)  # guest setting -> its rule
    host: dict[str, str] = field(default_factory=dict)
    # The written resizes of spec fields that are no .vmx key (gpu.passthrough), with their rule.
    resized: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    # The settings as the one typed value every command writes, and to_vmx of it (the report's
    # recommended_vmx): built at the edge, once the recommendation has settled (advisor.engine.engine).
    vm: RecommendedVM = NO_RECOMMENDATION
    vmx: dict[str, str] = field(default_factory=dict)

    def patch(self) -> Patch:
        """The written entries as the one typed patch (advisor.model.patch): each key's typed
        value with its rules and reason, and the nested fields the resizes set."""
        return Patch.of(self.changes, self.reasons, self.sources, self.resized)


class _Resizer:
    """The .vmx keys resizes of one VM's own fields change (cores per socket, reservations,
    vCPUs): the VM resized, written as .vmx, compared with the VM as it is. The VM as it is is
    read and written once for all the resizes of a recommendation, not once per resize."""

    def __init__(self, vm: Any, core_mhz: int | None, before: dict[str, Any] | None = None) -> None:
        self.vm, self.core_mhz = vm, core_mhz
        self._data: dict[str, Any] | None = None  # the VM's fields as set
        self._stated: dict[str, str] | None = None  # the VM's keys that state a field (_stated_keys)
        self._before = before  # the VM's typed keys (vm_values), when the caller has them

    def keys(self, resize: dict[str, Any]) -> dict[str, Any]:
        vm = self.vm
        fields = {k: v for k, v in resize.items() if "." not in k and k in type(vm).model_fields}
        if not fields:
            return {}
        if self._stated is None:
            self._stated = _stated_keys(vm)
        if self._stated and _contradicted(fields, self._stated):
            return {}  # as the model would refuse it (below), found without validating the whole VM
        if self._data is None:
            self._data = fields_set(vm)
        try:
            resized = rebuilt(vm, {**self._data, **fields}, None if "advanced" in fields else normalised_advanced(vm))
        except ValidationError:
            return {}  # a resize the model refuses (a template's unknown) is shown, not written
        if self._before is None:
            self._before = vm_values(vm, self.core_mhz)
        before, after = self._before, vm_values(resized, self.core_mhz)
        keys = {k: v for k, v in after.items() if before.get(k) != v}
        keys.update({k: REMOVE for k in before if k not in after})
        return keys


def _contradicted(fields: dict[str, Any], stated: dict[str, str]) -> bool:
    """Whether the model is sure to refuse a VM with `fields` set, without validating all of it:
    a field set to a value its own .vmx key contradicts (a template states every field as its
    key too). The model validates each field, then VM._reconcile reads every key that means a
    field, raising at the first it cannot parse or that disagrees with its field as given (the
    only key that sets another's field, sched.mem.pin, sets "full", which no number equals).
    `stated`: the VM's text of each such key (_stated_keys). False: the model decides."""
    if "advanced" in fields:  # the keys would be the resize's, not the VM's
        return False
    for name, value in fields.items():
        key = _FIELD_KEYS.get(name)
        if key is None or key not in stated:
            continue
        validator = _field_validator(name)
        if validator is None:
            continue
        try:
            given = validator.validate_python(value)
        except ValueError:  # pydantic's ValidationError: the field itself is refused
            return True
        try:
            value_stated = SCALAR_KEYS[key][1](stated[key])
        except ValueError:  # reconcile_advanced refuses the key's text
            return True
        if given != value_stated:  # reconcile_advanced's own test
            return True
    return False


def _stated_keys(vm: Any) -> dict[str, str]:
    """The text of each key of the VM's `advanced:` that states a field (lower case; the last of
    keys that differ only in case, as normalised_advanced keeps it), when the model would read
    the VM's keys as they are: a spec VM whose `advanced:` is set and holds such a key as text."""
    from advisor.model.spec import VM

    if type(vm) is not VM or not vm.advanced or "advanced" not in vm.model_fields_set:
        return {}
    # The VM's lower-cased index (built by its reader, or once per VM) names the spelling that
    # counts for each key: a dozen lookups instead of lower-casing a template's hundred keys.
    index, raw = normalised_advanced(vm), vm.advanced
    stated: dict[str, str] = {}
    for low in SCALAR_KEYS:
        hit = index.get(low)
        if hit is not None and (value := raw.get(hit[0])).__class__ is str:
            stated[low] = value
    return stated


# A VM field -> the .vmx key (lower case) that states it.
_FIELD_KEYS: dict[str, str] = {field: key for key, (field, _) in SCALAR_KEYS.items()}
_FIELD_VALIDATORS: dict[str, Any] = {}


def _field_validator(name: str) -> Any:
    """The validator the VM model runs on one field, from its own schema (None if not found)."""
    if name not in _FIELD_VALIDATORS:
        from pydantic_core import SchemaValidator

        from advisor.model.spec import VM

        schema: Any = VM.__pydantic_core_schema__
        while schema.get("type") != "model" and "schema" in schema:  # the model validator's wrapper
            schema = schema["schema"]
        fields = schema["schema"].get("fields", {}) if schema.get("type") == "model" else {}
        field = fields.get(name)
        _FIELD_VALIDATORS[name] = SchemaValidator(field["schema"], schema.get("config")) \
            if field is not None and field.get("type") == "model-field" else None
    return _FIELD_VALIDATORS[name]


def _fix_keys(fix: dict[str, Any], resizer: _Resizer | None, combined: dict[str, Any] | None = None) -> dict[str, Any]:
    """The .vmx keys a fix sets: its resize as the keys it becomes, then its own keys.

    `combined`: every written resize together. A value one field implies depends on another
    (a full CPU reservation is vCPUs x clock), so the keys are those of the VM resized by all of
    them; this fix contributes the keys its own resize changes.
    """
    keys: dict[str, Any] = {}
    resize = fix.get("resize") or {}
    if resizer is not None and resize:
        own = resizer.keys(resize)
        if own:  # the combined resize only gives values to the keys this one changes
            # One written resize alone is the combined one: the same keys, not computed twice.
            together = resizer.keys(combined) if combined and combined != resize else own
            keys.update({k: together.get(k, value) for k, value in own.items()})
    elif resize.get("cores_per_socket") is not None:
        keys["cpuid.coresPerSocket"] = str(resize["cores_per_socket"])
    keys.update({str(k): str(v) for k, v in (fix.get("vmx") or {}).items()})
    return keys


def recommend(fixes: Iterable[Fixed], base: dict[str, Any] | None = None,
              explicit: frozenset[str] = frozenset(), vm: Any = None, core_mhz: int | None = None) -> Recommendation:
    """Build the recommendation from a VM's unsuppressed fixes.

    base: the VM's own keys, typed, vm_values(vm, core_mhz) (check and vmx recommend the whole
    VM; lint and fix only what changes). explicit: rule ids the user named one by one; their
    suggestions are written too. vm, core_mhz: the VM as specified, so a written resize becomes
    the keys it changes. A rule's text for a key with a field becomes the field's value here,
    once; `vm` and `vmx` are left for the edge to build.
    """
    out = Recommendation(settings=dict(base or {}))
    written: list[Fixed] = []
    for item in fixes:
        if not item.changes_anything():
            continue
        if item.writes_by_default() or item.rule in explicit:
            written.append(item)
            continue
        fix = item.fix
        out.suggestions.append(Suggestion(
            item.rule, item.severity, condition_of(item), {str(k): str(v) for k, v in (fix.get("vmx") or {}).items()},
            dict(fix.get("resize") or {}), dict(fix.get("guest") or {}), str(fix.get("text", ""))))
    # Least severe first, so the most severe fix is applied last and wins a shared key.
    if len(written) > 1:
        written.sort(key=lambda f: SEVERITY_RANK[f.severity])
    combined = {k: v for item in written for k, v in (item.fix.get("resize") or {}).items()} if written else {}
    resizer = _Resizer(vm, core_mhz, base) if vm is not None and combined else None
    spelled = {k.lower(): k for k in out.settings} if written else {}
    for item in written:
        out.summaries[item.rule] = item.summary
        for key, value in _fix_keys(item.fix, resizer, combined).items():
            key = spelled.get(key.lower(), canonical_key(key))
            spelled[key.lower()] = key
            text = None if value == REMOVE else typed_or_text(key.lower(), value)
            # A rule asking for the value the key already has shares it; another value replaces it.
            same = key in out.changes and out.changes[key] == text
            out.sources[key.lower()] = (*out.sources.get(key.lower(), ()), item.rule) if same else (item.rule,)
            out.changes[key] = text
            out.reasons[key] = (item.rule, item.summary)  # a removal names its rule too (issue 33)
            if text is None:
                out.settings.pop(key, None)
            else:
                out.settings[key] = text
        guest = item.fix.get("guest") or {}
        out.guest.update(guest)
        out.guest_sources.update(dict.fromkeys(guest, item.rule))
        if item.fix.get("resize"):
            out.resized.append((item.rule, dict(item.fix["resize"])))
        out.host.update({k: str(v) for k, v in (item.fix.get("host") or {}).items()})
    if len(out.suggestions) > 1:
        out.suggestions.sort(key=lambda s: (-SEVERITY_RANK[s.severity], s.rule))
    return out
