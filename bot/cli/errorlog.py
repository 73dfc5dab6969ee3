"""Where the command line logs a bug's details: PITBOSS_LOG, else pitboss-errors.log in the working folder;
where that cannot be written (the image's /app), next to the SQLite database, else in the temporary folder.
A log that cannot be written costs its details, never the one-line error the user is shown."""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path

from bot.storage.store import is_postgres

NAME = "pitboss-errors.log"


def _writable(path: Path) -> bool:
    """Whether `path` can be appended to, or created, without creating it now."""
    if path.exists():
        return path.is_file() and os.access(path, os.W_OK)
    folder = path.parent
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def error_log_path(db_target: str = "") -> Path | None:
    """The first writable of: PITBOSS_LOG (or ./pitboss-errors.log), the SQLite database's folder, the
    temporary folder; None when none is."""
    candidates = [Path(os.environ.get("PITBOSS_LOG") or NAME)]
    if db_target and not is_postgres(db_target):
        candidates.append(Path(db_target).resolve().parent / NAME)
    candidates.append(Path(tempfile.gettempdir()) / NAME)
    return next((path for path in candidates if _writable(path)), None)


class ErrorLog(logging.FileHandler):
    """A file handler, created only when a record comes, that says in one line (once) if it cannot write
    rather than printing logging's own traceback."""

    failed = False

    def emit(self, record: logging.LogRecord) -> None:
        try:
            super().emit(record)
        except OSError:   # opening the file (delayed to the first record) is outside logging's own guard
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        if not self.failed:
            self.failed = True
            print(f"(the error log {self.baseFilename} cannot be written: {sys.exc_info()[1]})", file=sys.stderr)


def where_said(path: Path | None) -> str:
    """How the one-line error points to the details."""
    return f"details in {path}" if path is not None else "no error log could be written: set PITBOSS_LOG to a file"
