"""Cleaning names that reach messages, alt text and pictures: one function every door uses (Discord, the
command line, an imported file, a game's own data file)."""

from __future__ import annotations

import unicodedata

NAME_LIMIT = 32
NOTE_LIMIT = 500   # a private note's words (a seated GM's /gm tell)

# Markdown, mention and link syntax: a display name is shown as plain words, never as markup.
_MARKUP = set("@#<>*_~`|\\[](){}:")
# Letters that draw nothing (Hangul and braille fillers, the Mongolian vowel separator): a name made of
# them looks empty or impersonates another.
_BLANK_LETTERS = set("\u115f\u1160\u3164\uffa0\u2800\u180e")
# Format, control, surrogate, private-use and unassigned code points: invisible or unprintable.
_HIDDEN_CATEGORIES = ("Cf", "Cc", "Cs", "Co", "Cn")
_MAX_MARKS = 2  # combining marks kept on one letter (more only stacks noise over the line)


def _visible(name: str) -> str:
    kept: list[str] = []
    marks = 0
    for ch in name:
        category = unicodedata.category(ch)
        if ch.isspace() or category in ("Zl", "Zp", "Zs"):
            kept.append(" ")
            marks = 0
        elif category in _HIDDEN_CATEGORIES or ch in _BLANK_LETTERS or ch in _MARKUP:
            continue
        elif category.startswith("M"):
            marks += 1
            if marks <= _MAX_MARKS:
                kept.append(ch)
        else:
            kept.append(ch)
            marks = 0
    return "".join(kept)


def plain_name(name: str, fallback: str = "player", limit: int = NAME_LIMIT) -> str:
    """A display name made safe to show: no invisible, control or filler characters, no markup or
    mention syntax, one line, at most `limit` characters (names reach messages, alt text and
    pictures). Every door (Discord, the command line, an imported file) cleans names with this."""
    kept = " ".join(_visible(name).split())[:limit].strip()
    return kept or fallback
