"""What the storage drivers raise, whichever database runs underneath."""

from __future__ import annotations


class StoreBusy(Exception):
    """The database stayed locked by another writer for longer than the busy timeout."""


class Duplicate(Exception):
    """A row with that unique key exists already."""


class BackupFailed(Exception):
    """A backup could not be made; the message says why."""
