"""The layering of DESIGN.md, enforced: rules is pure, images never reaches into bot."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(package: str) -> dict[str, set[str]]:
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


def test_rules_imports_only_the_standard_library():
    for path, names in imported_modules("rules").items():
        foreign = {n for n in names if n != "rules" and n not in sys.stdlib_module_names}
        assert not foreign, f"{path} imports {foreign}"


def test_rules_does_no_io_or_asyncio():
    for path, names in imported_modules("rules").items():
        assert not names & {"asyncio", "socket", "sqlite3", "subprocess", "os"}, path


def test_images_never_imports_bot():
    for path, names in imported_modules("images").items():
        assert "bot" not in names, path
        assert not names & {"discord", "aiosqlite", "asyncpg"}, path


def test_only_bot_imports_discord_and_the_database_driver():
    for package in ("rules", "images"):
        for path, names in imported_modules(package).items():
            assert not names & {"discord", "aiosqlite", "asyncpg"}, path
