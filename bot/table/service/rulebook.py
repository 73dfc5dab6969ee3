"""`/rules`: the rules as this table plays them, read from the game's RULES.md: each section is a topic, and
each row of its tables the seed's sentence with Pitboss's reading of it, the rulings and reconstructions
marked as the file marks them. The code and test columns are left to the file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from bot.table.protocol.replies import MESSAGE_LIMIT
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset

# Columns of RULES.md's tables that are for developers, not players.
_DEVELOPER_COLUMNS = {"code", "test", "tests"}
_SEED_COLUMNS = {"seed", "seed sentence", "seed text", "rule"}


@dataclass(frozen=True)
class Topic:
    """One section of a game's RULES.md: its title, a short key to ask for it by, and its entries."""

    title: str
    key: str
    entries: tuple[str, ...]


def key_of(title: str) -> str:
    """A section title as a topic key: 'Movement Phase' -> 'movement-phase'."""
    return re.sub(r"[^a-z0-9]+", "-", title.casefold()).strip("-")


@lru_cache(maxsize=16)
def topics(ruleset_id: str) -> tuple[Topic, ...]:
    """The topics of a game's RULES.md (beside its rules: rules/<id>/, or a plug-in's package), in the
    file's order (none for a game without one)."""
    try:
        package = type(get_ruleset(ruleset_id)).__module__.rpartition(".")[0]
        text = resources.files(package).joinpath("RULES.md").read_text(encoding="utf-8")
    except (KeyError, FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        return ()
    found: list[Topic] = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        entries = _entries(body)
        if entries:
            found.append(Topic(title.strip(), key_of(title), tuple(entries)))
    return tuple(found)


def _entries(body: str) -> list[str]:
    """A section's rows (the seed's words quoted, then the reading), its paragraphs and its list items."""
    entries: list[str] = []
    header: list[str] | None = None
    paragraph: list[str] = []

    def close_paragraph() -> None:
        text = " ".join(paragraph)
        if text and not text.lstrip("-* ").startswith(("Tests:", "Test:", "Code:")):   # like those columns
            entries.append(for_players(text))
        paragraph.clear()
    for line in body.splitlines():
        if line.startswith("|"):
            close_paragraph()
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if all(set(c) <= set("-: ") for c in cells):
                continue   # the rule under the header
            if header is None:
                header = [c.casefold() for c in cells]
                continue
            kept = [(name, cell) for name, cell in zip(header, cells) if name not in _DEVELOPER_COLUMNS and cell]
            seed = [f"> {cell}" for name, cell in kept if name in _SEED_COLUMNS]
            reading = [cell for name, cell in kept if name not in _SEED_COLUMNS]
            entries.append(for_players("\n".join([*seed, *reading]).replace("\\|", "|")))
            continue
        header = None
        text = line.strip()
        if not text or text.startswith(("- ", "* ")):
            close_paragraph()
        if text:
            paragraph.append(text)
    close_paragraph()
    return entries


# What RULES.md cites for developers inside its words: a file or folder (a data file, a module, the
# tests), a test (`xx::test_...`), a field, call or constant of the code (`Thing.field`, `f(a, b)`).
_CODE = r"(?:[\w./-]*\.(?:py|toml|db)\b[^`]*|(?:tests|rules|bot|images|data)/[^`]*|\w+::\w*[^`]*|[A-Z]\w*\.[a-z_]\w*|" \
        r"\w+\([^`]*\)|[A-Z][A-Z0-9]*_[A-Z0-9_]+|(?:[A-Z][a-z]+){2,}|None)"
_CITED = re.compile(rf"`{_CODE}`(?::(?= ))?|(?<![`\w])(?:\w+\.py|\w+::\w+)\b")
# a parenthesis left holding nothing, or only code names (`some_key`): the data keys or functions it cited
_EMPTIED = re.compile(r"\(\s*(?:(?:[;,:]|and|or|see|in|as|`[a-z_]+`)\s*)*\)")


def for_players(text: str) -> str:
    """An entry in the game's words: the code, files and tests RULES.md cites for developers left out (a
    parenthesis they leave empty goes too)."""
    text = _EMPTIED.sub("", _CITED.sub("", text))
    text = re.sub(r"\(\s*[;,]?\s*", "(", text)
    text = re.sub(r"[;,]\s*(?=[;,])", "", text)   # ';;' and ',;' where a citation between them went
    text = re.sub(r"(?m)^[ \t]*[,;:]?[ \t]*", "", text)
    text = re.sub(r"\s*[;,:]\s*\)", ")", text)
    text = re.sub(r"[ \t]+([.,;:)])(?!\d)", r"\1", text)   # not before a number: '15, .50-Cal MG'
    text = re.sub(r"(?m)\n[.,;:]+$", "", text)   # a reading that was only citations leaves its full stop
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def topic_keys(ruleset: Ruleset) -> list[tuple[str, str]]:
    """(title, key) for autocomplete."""
    return [(t.title, t.key) for t in topics(ruleset.id)]


def answer(ruleset: Ruleset, asked: str | None, page: int = 1) -> str:
    """The list of topics, one topic's entries, or every entry naming all the words asked; one message a
    page (a long topic says how to ask for the next)."""
    found = topics(ruleset.id)
    if not found:
        raise GameError(f"{ruleset.title} has no rules text to show.")
    if not asked or not asked.strip():
        listed = "\n".join(f"- `{t.key}`: {t.title}" for t in found)
        return (f"The rules of {ruleset.title}, as this table plays them. Topics (`/rules topic:KEY`, or any word "
                f"the rules use):\n{listed}")[:MESSAGE_LIMIT]
    wanted = key_of(asked)
    exact = next((t for t in found if t.key == wanted or t.title.casefold() == asked.strip().casefold()), None)
    if exact is not None:
        return _page(f"**{exact.title}** ({ruleset.title}):", list(exact.entries), page, exact.key)
    words = [w for w in re.findall(r"\w+", asked.casefold()) if w]
    hits = [f"*{t.title}*: {entry}" for t in found for entry in t.entries
            if all(re.search(rf"\b{re.escape(w)}", entry.casefold()) for w in words)]
    if not hits:
        keys = ", ".join(t.key for t in found)
        raise GameError(f"Nothing in the rules of {ruleset.title} names '{asked.strip()}'. Topics: {keys}.")
    return _page(f"The rules of {ruleset.title} on '{asked.strip()}' ({len(hits)} found):", hits, page,
                 asked.strip())


def _page(head: str, entries: list[str], page: int, asked: str) -> str:
    """Page `page` of the entries under their head, each page as many whole entries as fit one message,
    and how to ask for the next."""
    room = MESSAGE_LIMIT - len(head) - 120
    pages: list[list[str]] = [[]]
    for entry in entries:
        entry = entry if len(entry) <= room else entry[:room - 1].rstrip() + "…"
        if pages[-1] and sum(len(e) + 2 for e in pages[-1]) + len(entry) + 2 > room:
            pages.append([])
        pages[-1].append(entry)
    if page > len(pages):
        raise GameError(f"That topic has {len(pages)} page{'s' if len(pages) > 1 else ''}.")
    text = head + "".join(f"\n\n{e}" for e in pages[page - 1])
    if len(pages) > 1:
        more = f" Next: `/rules topic:{asked} page:{page + 1}`." if page < len(pages) else ""
        text += f"\n\n(page {page} of {len(pages)}.{more})"
    return text
