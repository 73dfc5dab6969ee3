"""The layering of DESIGN.md, enforced: rules is pure, images never reaches into bot."""

import ast
import os
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(packages: tuple[str, ...] = ("bot", "rules", "images")) -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its text (TYPE_CHECKING and lazy imports too)."""
    paths = {_module_name(path): path for package in packages for path in (ROOT / package).rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                # `from package import module` names a module; `from module import name` the module
                targets.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base
                               for alias in node.names)
        graph[name] = {target for target in targets if target in paths and target != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
    return cycles


def test_no_modules_import_each_other():
    graph = import_graph()
    assert "bot.chat.views" in graph["bot.chat.adapter"]  # the graph sees real imports
    assert import_cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_images_uses_no_private_pillow_api():
    """Underscored attributes of Pillow objects (ImageDraw._getink, ...) change without notice."""
    for path in (ROOT / "images").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value.id if isinstance(node.value, ast.Name) else None
                assert owner in ("self", "cls"), f"{path.relative_to(ROOT)}:{node.lineno} uses .{node.attr}"
            if isinstance(node, ast.Attribute) and node.attr in ("core", "draw_bitmap"):
                raise AssertionError(f"{path.relative_to(ROOT)}:{node.lineno} uses Pillow's core .{node.attr}")


def test_shared_modules_name_no_game():
    """bot/ and the top level of rules/ and images/ name no game and none of its concepts; only the
    registration place (rules/registry.py) and the benchmark (which picks a game to time) may."""
    import re

    from rules.registry import ruleset_ids

    words = {*ruleset_ids(), "maneuver", "skid", "inertia", "card", "cards", "arena"}
    pattern = re.compile(r"\b(" + "|".join(sorted(words)) + r")\b", re.IGNORECASE)
    allowed = {"rules/registry.py", *(f"bot/cli/bench{part}.py" for part in ("", "_stall", "_clean", "_portable"))}
    shared = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "rules").glob("*.py"), *(ROOT / "images").glob("*.py")]
    found = []
    for path in shared:
        name = str(path.relative_to(ROOT))
        if name in allowed:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if pattern.search(line) and "bench" not in line:
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_bot_rooms_import_only_downwards():
    """bot/storage knows nothing of the rest of bot/; bot/table (the service) knows storage only; the
    Discord adapter (bot/chat) never reaches into the command line, which starts it (`pitboss run`)."""
    graph = import_graph()
    rules = {"bot.storage": {"bot.table", "bot.chat", "bot.cli"}, "bot.table": {"bot.chat", "bot.cli"},
             "bot.chat": {"bot.cli"}}
    for module, targets in graph.items():
        for room, forbidden in rules.items():
            if module.startswith(room + "."):
                bad = {t for t in targets if any(t == f or t.startswith(f + ".") for f in forbidden)}
                assert not bad, f"{module} imports {bad}"


# bot/table's rooms, top first: the service's use cases, the work kept off the loop, what keeps a table
# honest, what the service takes and gives, the clock's arithmetic, the league's pairings, and the plug-in
# games' loader.
TABLE_ROOMS = ("service", "jobs", "trust", "protocol", "clock", "league", "plugins")


def test_table_rooms_import_only_downwards():
    """Inside bot/table a room imports only rooms below it, so each can be read without those above."""
    graph = import_graph()
    rank = {room: number for number, room in enumerate(TABLE_ROOMS)}
    upward = []
    for module, targets in graph.items():
        if not module.startswith("bot.table."):
            continue
        room = module.split(".")[2]
        assert room in rank, f"{module} is in a room TABLE_ROOMS does not place"
        upward += [f"{module} -> {t}" for t in targets
                   if t.startswith("bot.table.") and rank[t.split(".")[2]] < rank[room]]
    assert upward == []


def test_importing_the_command_grammar_loads_no_game_and_reads_no_environment():
    """The grammar is built the first time it is asked for (command_table), not when it is imported: a
    tool that imports the shell's modules starts no game's rules and no plug-in named in $PITBOSS_GAMES.
    Building it reads each built-in game's declared commands and the data they offer as choices, never its
    rules (its ruleset, state, events or actions: their dataclasses cost a command-line process 0.06 s of its
    0.45 s start); a table command is read without even those (a command-line process loads only the game its
    channel plays)."""
    import subprocess

    probe = ("import sys, bot.table.protocol.commands as c, bot.table.service.entry, rules.registry as r\n"
             "assert not r._LOADED and not r._PLUGINS and 'tests.toy' not in sys.modules, (r._LOADED, r._PLUGINS)\n"
             "c.parse('/game status'); c.parse('/me settings'); c.parse('/stats ruleset:track')\n"
             "assert r._PLUGINS and not any(m.startswith('rules.' + g) for m in sys.modules for g in r.GAMES)\n"
             "c.command_table(); assert not r._LOADED and 'rules.track.commands' in sys.modules\n"
             "rules = [m for m in sys.modules for g in r.GAMES for part in ('ruleset', 'state', 'events', 'actions')\n"
             "         if m == f'rules.{g}.{part}']\n"
             "assert not rules, rules")
    env = {**os.environ, "PITBOSS_GAMES": "tests.toy"}
    subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, check=True, timeout=120)
