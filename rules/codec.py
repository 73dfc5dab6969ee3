"""The one JSON codec for states, actions and events: explicit type tags, a schema version, no pickle."""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

# The snapshot format. 2: the last action's words, roll and shot left the state; pictures and captions
# now come from the log's events, so rewording an event never changes a snapshot.
SCHEMA_VERSION = 2

# A game's snapshot upgrades: from schema N to N+1, each a function of the plain (JSON) state.
Upgrades = Mapping[int, Callable[[dict], dict]]


class CodecError(ValueError):
    """Raised when stored JSON does not match the expected shape."""


class Registry:
    """Maps type tags to dataclasses so tagged unions (actions, events) round-trip."""

    def __init__(self) -> None:
        self._by_tag: dict[str, type] = {}

    def register(self, cls: type) -> type:
        """Class decorator: make `cls` decodable by its name."""
        self._by_tag[cls.__name__] = cls
        return cls

    def lookup(self, tag: str) -> type:
        try:
            return self._by_tag[tag]
        except KeyError:
            raise CodecError(f"unknown type tag {tag!r}") from None

    def __contains__(self, cls: type) -> bool:
        return self._by_tag.get(cls.__name__) is cls

    def classes(self) -> tuple[type, ...]:
        """Every registered type, in registration order."""
        return tuple(self._by_tag.values())


_SCALARS = frozenset({bool, int, str, float, type(None)})


def to_plain(value: Any) -> Any:
    """Turn dataclasses, tuples and scalars into JSON-ready values."""
    kind: type = type(value)
    if kind in _SCALARS:
        return value
    if kind is tuple or kind is list:
        return [to_plain(v) for v in value]
    if isinstance(value, enum.Enum):  # a phase: stored as its plain value, as before phases were enums
        return to_plain(value.value)
    names = _field_names(kind)
    if names is not None:
        frozen = _is_frozen(kind)
        if frozen and (known := _known_plain(value)) is not None:
            return known
        plain = {name: to_plain(getattr(value, name)) for name in names}
        for name, default in _left_out_at_default(kind):
            field_value = getattr(value, name)
            if field_value == default and type(field_value) is type(default):
                del plain[name]
        if frozen:
            _keep_plain(value, plain)
        return plain
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, (bool, int, str, float)):
        return value
    raise CodecError(f"cannot encode {kind.__name__}")


# A frozen dataclass value's plain form, by the value's identity: the state a move produces shares
# most of its parts (the seats that did not act, the fixed data) with the one before, so encoding it
# again re-walks only what changed. Plain forms are never mutated after they are made. Each value is
# kept alive with its form, so its id stays its own.
#
# Two generations: a form is made in the young one; when that is full it becomes the old one (the old
# one before it let go), and a form found in the old one is moved back to the young. So the parts the
# games in play still share stay, and what no later state shares (the parts a move replaced, its events)
# is let go within two generations. One generation of 50,000 emptied when full held 42,000 forms (22 MB)
# after the bench's load, nearly all of them dead, and the heap they fragmented stayed with the idle bot
# (issue 39, item 8).
PLAIN_KEPT = 4_096   # forms in a generation
_YOUNG: dict[int, tuple[Any, Any]] = {}
_OLD: dict[int, tuple[Any, Any]] = {}


def _known_plain(value: Any) -> Any:
    """The plain form made for this very value (None if none is kept). A kept value is alive, so no other
    object has its id."""
    known = _YOUNG.get(id(value))
    if known is None:
        known = _OLD.pop(id(value), None)
        if known is None:
            return None
        _keep_plain(value, known[1])
    return known[1]


def _keep_plain(value: Any, plain: Any) -> None:
    """Keep `plain` as the form of `value` in the young generation (the old let go when it is full)."""
    global _YOUNG, _OLD
    if len(_YOUNG) >= PLAIN_KEPT:
        _YOUNG, _OLD = {}, _YOUNG
    _YOUNG[id(value)] = (value, plain)


def forget_plain_forms() -> None:
    """Let go of every kept plain form (a test that counts encodings from nothing)."""
    _YOUNG.clear()
    _OLD.clear()


@cache
def _is_frozen(kind: type) -> bool:
    return kind.__dataclass_params__.frozen  # type: ignore[attr-defined]  # set by @dataclass; typeshed omits it


@cache
def _field_names(kind: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type, or None for any other type."""
    if not dataclasses.is_dataclass(kind):
        return None
    return tuple(f.name for f in dataclasses.fields(kind))


_LEFT_OUT_AT_DEFAULT = "codec: left out at its default"


def added_field(default: Any) -> Any:
    """A dataclass field added after games were stored: encoded only when it differs from `default`.

    A stored snapshot never has the field, and decoding gives it `default`; leaving it out at its
    default keeps such a game's re-encoded state byte-identical to its stored snapshot, which is what
    `/game verify` compares. Use it for scalar (immutable) defaults only.
    """
    return dataclasses.field(default=default, metadata={_LEFT_OUT_AT_DEFAULT: True})


@cache
def _left_out_at_default(kind: type) -> tuple[tuple[str, Any], ...]:
    """(name, default) of the fields of a dataclass type that `added_field` made."""
    return tuple((f.name, f.default) for f in dataclasses.fields(kind) if f.metadata.get(_LEFT_OUT_AT_DEFAULT))


def from_plain(tp: Any, value: Any) -> Any:
    """Rebuild a value of type `tp` from JSON-ready data."""
    return _decoder(tp)(value)


@cache
def _decoder(tp: Any) -> Callable[[Any], Any]:
    """A function that rebuilds a value of type `tp`, worked out once per type (decoding a snapshot
    walks thousands of values, and inspecting their types each time was most of its cost)."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return lambda value: value
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(tp)
    if origin is tuple:
        return _tuple_decoder(tp)
    if origin is dict:
        key_type, value_type = typing.get_args(tp)

        def mapping(value: Any) -> dict:
            if not isinstance(value, dict):
                raise CodecError(f"expected an object for {tp}")
            keys, values = _decoder(key_type), _decoder(value_type)
            return {keys(k): values(v) for k, v in value.items()}
        return mapping
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):   # a hint naming a dataclass is its class
        return _dataclass_decoder(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_decoder(tp)
    if tp in _SCALAR_DECODERS:
        return _SCALAR_DECODERS[tp]
    raise CodecError(f"cannot decode type {tp}")


def _union_decoder(tp: Any) -> Callable[[Any], Any]:
    args = typing.get_args(tp)
    optional = type(None) in args
    choices = [arg for arg in args if arg is not type(None)]

    def union(value: Any) -> Any:
        if value is None and optional:
            return None
        for arg in choices:
            try:
                return _decoder(arg)(value)
            except (CodecError, TypeError, ValueError):
                continue
        raise CodecError(f"{value!r} fits none of {tp}")
    return union


def _enum_decoder(tp: type[enum.Enum]) -> Callable[[Any], enum.Enum]:
    """The member of `tp` whose value is the stored one (a `StrEnum` field is stored as its string)."""
    def member(value: Any) -> enum.Enum:
        try:
            return tp(value)
        except ValueError:
            raise CodecError(f"{value!r} is not a {tp.__name__}") from None
    return member


def _tuple_decoder(tp: Any) -> Callable[[Any], tuple]:
    args = typing.get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        def items(value: Any) -> tuple:
            if not isinstance(value, list):
                raise CodecError(f"expected a list for {tp}, got {value!r}")
            item = _decoder(args[0])
            return tuple([item(v) for v in value])
        return items

    def fixed(value: Any) -> tuple:
        if not isinstance(value, list):
            raise CodecError(f"expected a list for {tp}, got {value!r}")
        if len(args) != len(value):
            raise CodecError(f"expected {len(args)} items for {tp}")
        return tuple(_decoder(a)(v) for a, v in zip(args, value))
    return fixed


def _dataclass_decoder(tp: type) -> Callable[[Any], Any]:
    specs: list[tuple[str, Callable[[Any], Any], bool]] = []

    def build(value: Any) -> Any:
        if not isinstance(value, dict):
            raise CodecError(f"expected an object for {tp.__name__}")
        if not specs:  # resolved on first use, so types may refer to each other
            hints = typing.get_type_hints(tp)
            specs.extend((f.name, _decoder(hints[f.name]), f.default is dataclasses.MISSING
                          and f.default_factory is dataclasses.MISSING) for f in dataclasses.fields(tp))
        kwargs = {}
        for name, decode, required in specs:
            if name in value:
                kwargs[name] = decode(value[name])
            elif required:
                raise CodecError(f"{tp.__name__} is missing {name!r}")
        return tp(**kwargs)
    return build


def _scalar(kind: type, check: Callable[[Any], bool], name: str) -> Callable[[Any], Any]:
    def scalar(value: Any) -> Any:
        if not check(value):
            raise CodecError(f"expected {name}, got {value!r}")
        return kind(value) if kind is float else value
    return scalar


_SCALAR_DECODERS = {
    bool: _scalar(bool, lambda v: isinstance(v, bool), "a boolean"),
    int: _scalar(int, lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    str: _scalar(str, lambda v: isinstance(v, str), "a string"),
    float: _scalar(float, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
}


def encode_tagged(value: Any) -> dict:
    """A dataclass as {"type": name, ...fields}."""
    return {"type": type(value).__name__, **to_plain(value)}


def decode_tagged(registry: Registry, data: dict) -> Any:
    """Inverse of `encode_tagged` for types known to `registry`."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise CodecError("expected an object with a 'type' tag")
    cls = registry.lookup(data["type"])
    fields = {k: v for k, v in data.items() if k != "type"}
    return from_plain(cls, fields)


def dumps(data: Any) -> str:
    """Canonical JSON text: sorted keys, no spaces, so equal values give equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def encode_state(state: Any) -> str:
    """Serialise a state snapshot with the schema version."""
    return dumps({"schema": SCHEMA_VERSION, "state": to_plain(state)})


def upgraded_state(text: str, upgrades: Upgrades) -> Any:
    """The plain state of a snapshot of any schema so far, brought to today's by `upgrades` in turn
    (a step a game does not list changes nothing for it)."""
    data = json.loads(text)
    schema = data.get("schema") if isinstance(data, dict) else None
    if type(schema) is not int or not 1 <= schema <= SCHEMA_VERSION or "state" not in data:
        raise CodecError(f"snapshot schema {schema!r} is not one of 1..{SCHEMA_VERSION}")
    state = data["state"]
    for version in range(schema, SCHEMA_VERSION):
        if version in upgrades:
            state = upgrades[version](state)
    return state


def decode_state(cls: type, text: str, upgrades: Upgrades | None = None) -> Any:
    """Deserialise a snapshot written by `encode_state`, today or by an earlier schema."""
    return from_plain(cls, upgraded_state(text, upgrades or {}))


def normalised_snapshot(text: str, upgrades: Upgrades) -> str:
    """A stored snapshot as `encode_state` writes it today: what a rebuilt state is compared with."""
    return dumps({"schema": SCHEMA_VERSION, "state": upgraded_state(text, upgrades)})


def without_fields(*names: str) -> Callable[[dict], dict]:
    """A snapshot upgrade that drops fields the state no longer has."""
    def upgrade(state: dict) -> dict:
        if not isinstance(state, dict):
            raise CodecError("expected an object for a state")
        return {k: v for k, v in state.items() if k not in names}
    return upgrade
