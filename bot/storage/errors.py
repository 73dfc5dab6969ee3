"""What the storage drivers raise, whichever database runs underneath."""

from __future__ import annotations


class StoreBusy(Exception):
    """The database stayed locked by another writer for longer than the busy timeout."""


class StoreUnavailable(Exception):
    """The database server cannot be reached (refused, gone, shutting down); the next use tries again.
    The driver logs an outage once when it begins and once when the server answers again, so whoever
    meets this logs nothing more."""


class Duplicate(Exception):
    """A row with that unique key exists already."""


class BackupFailed(Exception):
    """A backup could not be made; the message says why."""


class NewerDatabase(Exception):
    """The database was migrated by a newer Pitboss than this one: its schema is unknown here."""

    def __init__(self, found: int, known: int, written_by: str | None = None, running: str = ""):
        by = f"Pitboss {written_by}" if written_by else "a newer Pitboss"
        this = f"this Pitboss {running}" if running else "this Pitboss"
        super().__init__(f"This database was written by {by} (schema version {found}; {this} knows versions up "
                         f"to {known}). Nothing was changed: upgrade Pitboss to open it.")
        self.found = found
        self.known = known
        self.written_by = written_by
