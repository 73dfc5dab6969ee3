"""What the storage drivers raise, whichever database runs underneath."""

from __future__ import annotations


class StoreBusy(Exception):
    """The database stayed locked by another writer for longer than the busy timeout."""


class Duplicate(Exception):
    """A row with that unique key exists already."""


class BackupFailed(Exception):
    """A backup could not be made; the message says why."""


class NewerDatabase(Exception):
    """The database was migrated by a newer Pitboss than this one: its schema is unknown here."""

    def __init__(self, found: int, known: int):
        super().__init__(f"This database was written by a newer Pitboss (schema version {found}; this Pitboss "
                         f"knows versions up to {known}). Nothing was changed: upgrade Pitboss to open it.")
        self.found = found
        self.known = known
