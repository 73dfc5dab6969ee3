"""The Pitboss release this code is: `pitboss --version`, the package's version, and what a database records."""

VERSION = "0.6.3"  # one place: pyproject.toml reads it (tool.setuptools.dynamic); CHANGELOG.md says what changed
