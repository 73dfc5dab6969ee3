"""The one JSON codec for states, actions and events: explicit type tags, a schema version, no pickle."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from functools import cache
from typing import Any

SCHEMA_VERSION = 1


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


def to_plain(value: Any) -> Any:
    """Turn dataclasses, tuples and scalars into JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    raise CodecError(f"cannot encode {type(value).__name__}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_plain(tp: Any, value: Any) -> Any:
    """Rebuild a value of type `tp` from JSON-ready data."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return from_plain(arg, value)
            except (CodecError, TypeError, ValueError):
                continue
        raise CodecError(f"{value!r} fits none of {tp}")
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, list):
            raise CodecError(f"expected a list for {tp}, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], v) for v in value)
        if len(args) != len(value):
            raise CodecError(f"expected {len(args)} items for {tp}")
        return tuple(from_plain(a, v) for a, v in zip(args, value))
    if origin is dict:
        key_type, value_type = typing.get_args(tp)
        if not isinstance(value, dict):
            raise CodecError(f"expected an object for {tp}")
        return {from_plain(key_type, k): from_plain(value_type, v) for k, v in value.items()}
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise CodecError(f"expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in value:
                kwargs[f.name] = from_plain(hints[f.name], value[f.name])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise CodecError(f"{tp.__name__} is missing {f.name!r}")
        return tp(**kwargs)
    if tp is bool:
        if not isinstance(value, bool):
            raise CodecError(f"expected a boolean, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise CodecError(f"expected an integer, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise CodecError(f"expected a string, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CodecError(f"expected a number, got {value!r}")
        return float(value)
    raise CodecError(f"cannot decode type {tp}")


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


def decode_state(cls: type, text: str) -> Any:
    """Deserialise a snapshot written by `encode_state`."""
    data = json.loads(text)
    if data.get("schema") != SCHEMA_VERSION:
        raise CodecError(f"snapshot schema {data.get('schema')} is not {SCHEMA_VERSION}")
    return from_plain(cls, data["state"])
