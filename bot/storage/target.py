"""A database target (a SQLite path or a postgresql:// URL) as it may be shown or handed on: never
with its password, which `ps`, logs and terminals would otherwise keep."""

from __future__ import annotations

import re
from urllib.parse import unquote

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# user:PASSWORD@ in a URL's authority; to the last @ before the path, so a stray @ in it is hidden too.
_USERINFO_PASSWORD = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:@/]*):(?P<secret>[^/]*)@")
# password=... among the query parameters (libpq reads it there too).
_QUERY_PASSWORD = re.compile(r"(?P<sep>[?&])password=(?P<secret>[^&#]*)", re.IGNORECASE)

MASK = "***"


def masked(target: str) -> str:
    """`target` fit to print or log: a URL's password replaced by ***, a file path unchanged."""
    if not _URL.match(target):
        return target
    shown = _USERINFO_PASSWORD.sub(rf"\g<head>:{MASK}@", target)
    return _QUERY_PASSWORD.sub(rf"\g<sep>password={MASK}", shown)


def split_password(url: str) -> tuple[str, str | None]:
    """The URL without its password, and the password (percent-decoded) if it had one."""
    password = None
    match = _USERINFO_PASSWORD.match(url)
    if match:
        password = unquote(match["secret"])
        url = match["head"] + "@" + url[match.end():]
    while query := _QUERY_PASSWORD.search(url):
        password = unquote(query["secret"])
        rest = url[query.end():]
        if rest.startswith("&"):  # the next parameter takes this one's separator
            rest = query["sep"] + rest[1:]
        url = url[:query.start()] + rest
    return url, password
