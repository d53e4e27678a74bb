"""Winter Tales exports: the story told at a table as Markdown, a self-contained HTML
storybook, and JSON (what ``/winter story`` attaches).

Input is the PUBLIC view (``WinterView`` with ``seat=None``, or its dict) plus the seats'
display names; :func:`story_from_view` is the one adapter that knows the view's fields
and turns it into a :class:`Story`. Only public fields are read: the transcript, the
table (factions, characters, Memories, the result). Hands, Objective cards in hand and
private events are never looked at, so an export made mid-game cannot leak them.

What is left out: passages struck by the Story Arbiter and passages hidden by the X-card
(or sent back to be retold) that were not retold. They stay in the table's audit log only.

The HTML needs nothing from the network: inline CSS, system font stacks, and the Memory
cards' illustrations (and optionally the board) as ``data:`` URIs. It follows the reader's
light or dark preference.

>>> story = story_from_view({"players": 3, "factions": ["spring", "winter", "writer"],
...     "transcript": [{"n": 0, "kind": "narration", "seat": 0, "character": "alice",
...                     "text": "Alice lit the lantern.", "chapter": 1},
...                    {"n": 1, "kind": "narration", "seat": 1, "text": "Gone.",
...                     "chapter": 1, "hidden": True}]}, ["Ada", "Bo", "Cy"])
>>> [e.text for c in story.chapters for e in c.entries]
['Alice lit the lantern.']
>>> "Ada" in to_markdown(story) and "Gone." not in to_markdown(story)
True
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from engines.winter_tales.content import WinterContent, load_content
from renderers.common import view_get

FACTION_LABEL = {"spring": "Spring", "winter": "Winter", "writer": "Writer"}
KIND_LABEL = {
    "quest": "Quest", "battle": "Battle", "trap": "Trap", "save": "Save", "memory": "Memory",
    "ruling": "The Arbiter rules", "power": "Power", "objective": "Objective",
    "setup": "Before the story", "epilogue": "Epilogue",
}
KIND_ICON = {
    "quest": "✦", "battle": "⚔", "trap": "◈", "save": "✚", "memory": "❦", "ruling": "⚖",
    "power": "★", "objective": "◎", "setup": "✎", "epilogue": "❧", "card": "▣",
}


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class StoryEntry:
    """One passage of the story as exported."""

    n: int
    kind: str
    chapter: int
    text: str | None = None
    seat: int | None = None
    author: str | None = None
    faction: str | None = None
    character: str | None = None
    card: str | None = None
    card_title: str | None = None
    side: str | None = None
    caption: str | None = None
    concept: str | None = None


@dataclass(frozen=True)
class StoryMemory:
    slot: int
    source: str
    title: str
    faction: str | None
    card: str
    quest: str | None = None
    concept: str | None = None
    caption: str | None = None
    chapter: int = 0


@dataclass(frozen=True)
class StoryPlayer:
    seat: int
    name: str
    faction: str
    characters: tuple[str, ...] = ()
    arbiter: bool = False


@dataclass
class StoryChapter:
    number: int
    title: str
    entries: list[StoryEntry] = field(default_factory=list)


@dataclass
class Story:
    title: str
    players: list[StoryPlayer]
    length: int
    epilogue_space: int
    chapters: list[StoryChapter]
    memories: list[StoryMemory]
    bookmark: int | None = None
    winner: str | None = None
    final: dict[str, int] | None = None
    chapter_now: int = 0

    @property
    def over(self) -> bool:
        return self.winner is not None

    def entries(self) -> list[StoryEntry]:
        return [e for c in self.chapters for e in c.entries]


# --------------------------------------------------------------------------- the adapter


@lru_cache(maxsize=1)
def _content() -> WinterContent:
    return load_content()


def _character_name(cid: str | None) -> str | None:
    if not cid:
        return None
    try:
        return _content().character(cid).name
    except ValueError:
        return cid


def _seat_name(names: Sequence[str] | None, seat: int | None) -> str | None:
    if seat is None:
        return None
    if names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"Player {chr(ord('A') + seat % 26)}"


def keep_entry(entry: Any) -> bool:
    """Whether a transcript entry belongs in an export: not struck by the Arbiter, not
    hidden by the X-card (or waiting to be retold).

    >>> keep_entry({"kind": "narration", "text": "x"}), keep_entry({"struck": True})
    (True, False)
    >>> keep_entry({"kind": "narration", "text": "x", "hidden": True})
    False
    """
    return not (view_get(entry, "struck", False) or view_get(entry, "hidden", False))


def story_from_view(view: Any, names: Sequence[str] | None = None,
                    title: str = "A Winter Tale") -> Story:
    """The :class:`Story` in a Winter Tales view; the only code that reads the view."""
    c = _content()
    factions = [str(f) for f in view_get(view, "factions", []) or []]
    arbiter = view_get(view, "arbiter")
    chars: dict[int, list[str]] = {}
    for f in view_get(view, "figures", []) or []:
        owner = view_get(f, "owner")
        if owner is not None:
            chars.setdefault(int(owner), []).append(_character_name(str(view_get(f, "id"))) or "")
    players = [StoryPlayer(seat=s, name=_seat_name(names, s) or "", faction=fac,
                           characters=tuple(chars.get(s, [])), arbiter=s == arbiter)
               for s, fac in enumerate(factions)]
    chapters: list[StoryChapter] = []
    current: StoryChapter | None = None
    for e in view_get(view, "transcript", []) or []:
        if not keep_entry(e):
            continue
        kind = str(view_get(e, "kind", "narration"))
        chapter = int(view_get(e, "chapter", 0) or 0)
        text = view_get(e, "text")
        if kind == "chapter":
            current = StoryChapter(chapter, str(text or f"Chapter {chapter}"))
            chapters.append(current)
            continue
        if kind == "epilogue" and (current is None or current.number != -1):
            current = StoryChapter(-1, "The Epilogue")
            chapters.append(current)
        if current is None:
            current = StoryChapter(0, "Before the story" if chapter == 0 else f"Chapter {chapter}")
            chapters.append(current)
        seat = view_get(e, "seat")
        card = view_get(e, "card")
        side = view_get(e, "side")
        card_title = caption = None
        concept = view_get(e, "concept")
        if card:
            try:
                sc = c.story_card(str(card))
                card_title = sc.title
                concept = concept or sc.image
                if side in ("spring", "winter"):
                    caption = sc.side(side).caption
            except ValueError:
                card_title = None
        if not card and not text:
            continue  # nothing to tell (a part passed in silence)
        current.entries.append(StoryEntry(
            n=int(view_get(e, "n", 0) or 0), kind=kind, chapter=chapter,
            text=None if text is None else str(text),
            seat=None if seat is None else int(seat), author=_seat_name(names, seat),
            faction=factions[seat] if seat is not None and 0 <= seat < len(factions) else None,
            character=_character_name(view_get(e, "character")), card=card, card_title=card_title,
            side=side, caption=caption, concept=concept,
        ))
    chapters = [ch for ch in chapters if ch.entries]
    memories = []
    for m in sorted(view_get(view, "memories", []) or [],
                    key=lambda m: int(view_get(m, "slot", 0))):
        card = str(view_get(m, "card", ""))
        faction = view_get(m, "faction")
        counter = view_get(m, "counter")
        quest = None
        if counter:
            try:
                quest = c.quest(c.quest_counter(str(counter)).quest).name
            except ValueError:
                quest = None
        mtitle, concept, caption = card, None, None
        if view_get(m, "source") == "objective":
            try:
                mtitle = c.objective_card(str(view_get(m, "objective") or card)).title
            except ValueError:
                mtitle = "An Objective"
        else:
            try:
                sc = c.story_card(card)
                mtitle, concept = sc.title, sc.image
                if faction in ("spring", "winter"):
                    caption = sc.side(faction).caption
            except ValueError:
                mtitle = "A Neutral Memory"
        memories.append(StoryMemory(slot=int(view_get(m, "slot")),
                                    source=str(view_get(m, "source", "quest")), title=mtitle,
                                    faction=faction, card=card, quest=quest, concept=concept,
                                    caption=caption, chapter=int(view_get(m, "chapter", 0) or 0)))
    length = int(view_get(view, "length", 3) or 3)
    final = view_get(view, "final")
    return Story(title=title, players=players, length=length,
                 epilogue_space=int(view_get(view, "epilogue_space", None) or length + 1),
                 chapters=chapters, memories=memories, bookmark=view_get(view, "bookmark"),
                 winner=view_get(view, "winner"), final=dict(final) if final else None,
                 chapter_now=int(view_get(view, "chapter", 0) or 0))


# --------------------------------------------------------------------------- shared words


def _result_line(story: Story, with_count: bool = True) -> str:
    if story.winner is None:
        if story.chapter_now <= 0:
            return "The story is about to begin."
        return f"The story so far (Chapter {story.chapter_now}); it is still being told."
    who = {"spring": "Spring wins: the thaw has come.",
           "winter": "Winter wins: the long night holds.",
           "writer": "The Writer wins: the story goes on, balanced.",
           "none": "Nobody wins."}.get(story.winner, f"{story.winner} wins.")
    if story.final and with_count:
        who += " (" + ", ".join(f"{FACTION_LABEL.get(k, k)} {v}"
                               for k, v in story.final.items()) + ")"
    return who


TOLD_KINDS = frozenset({"quest", "battle", "trap", "save", "power", "objective", "epilogue",
                        "setup"})
"""Kinds whose passages are a player's own words when a seat told them (a Quest plot, a
Battle round, an Epilogue part): printed as the story's prose with a small tag. Without a
seat they are the table's summaries (counts, outcomes) and print as asides."""


def is_prose(e: StoryEntry) -> bool:
    """Whether an entry reads as the story's prose (a player's words) rather than an aside.

    >>> is_prose(StoryEntry(n=1, kind="quest", chapter=1, text="Alice climbs.", seat=0))
    True
    >>> is_prose(StoryEntry(n=2, kind="quest", chapter=1, text="Spring 3, Winter 2."))
    False
    """
    if e.kind in ("narration", "card"):
        return True
    return e.kind in TOLD_KINDS and e.seat is not None and bool(e.text)


def _byline(e: StoryEntry) -> str:
    bits = []
    if e.author:
        bits.append(e.author)
    if e.character:
        bits.append(f"as {e.character}")
    return " ".join(bits)


def _side_word(side: str | None) -> str:
    return FACTION_LABEL.get(side or "", "")


# --------------------------------------------------------------------------- Markdown


def _md_escape(text: str) -> str:
    """Keep players' words as words: no accidental headings, lists, HTML or links."""
    out = []
    for line in text.splitlines() or [""]:
        line = html.escape(line, quote=False)
        for ch in "\\`*_[]":
            line = line.replace(ch, "\\" + ch)
        if line[:1] in "#>-+|" or line[:2].rstrip(".").isdigit():
            line = "\\" + line
        out.append(line)
    return "  \n".join(out)


def to_markdown(story: Story) -> str:
    """The story as Markdown: chapters, narration with author and character, cards with
    their image concept and caption, events as quotes, the Memory Track, the Epilogue."""
    out = [f"# {_md_escape(story.title)}", "", f"*Winter Tales · {_result_line(story)}*", ""]
    out.append("## The table")
    out.append("")
    for p in story.players:
        chars = ", ".join(p.characters) or "no characters"
        arb = " · Story Arbiter" if p.arbiter else ""
        out.append(f"- **{_md_escape(p.name)}** ({FACTION_LABEL.get(p.faction, p.faction)}"
                   f"{arb}): {_md_escape(chars)}")
    out.append("")
    out.append("## The Memory Track")
    out.append("")
    by_slot = {m.slot: m for m in story.memories}
    for slot in range(1, story.epilogue_space + 1):
        m = by_slot.get(slot)
        if slot == story.epilogue_space and m is None:
            out.append(f"{slot}. The Epilogue")
        elif m is None:
            out.append(f"{slot}. (no Memory yet)")
        else:
            fav = FACTION_LABEL.get(m.faction or "", "neutral")
            quest = f" — {m.quest}" if m.quest else (" — an Objective"
                                                     if m.source == "objective" else "")
            mark = " 🔖" if story.bookmark == slot else ""
            concept = f": *{_md_escape(m.concept)}*" if m.concept else ""
            out.append(f"{slot}. **{_md_escape(m.title)}** ({fav}){quest}{concept}{mark}")
    out.append("")
    for ch in story.chapters:
        out.append(f"## {_md_escape(ch.title)}")
        out.append("")
        for e in ch.entries:
            out.extend(_md_entry(e))
            out.append("")
        if ch.number == -1 and story.over and story.final:
            count = " · ".join(f"{FACTION_LABEL.get(k, k)} {v}" for k, v in story.final.items())
            out.append(f"**The story ends: {count}.**")
            out.append("")
    out.append("---")
    out.append("")
    out.append(f"*{_result_line(story)}*")
    out.append("")
    return "\n".join(out)


def _md_entry(e: StoryEntry) -> list[str]:
    by = _byline(e)
    if e.kind == "narration" or (e.kind != "card" and is_prose(e)):
        head = f"**{_md_escape(by)}:** " if by else ""
        tag = "" if e.kind in ("narration", "setup") else \
            f"*{KIND_ICON.get(e.kind, '')} {KIND_LABEL.get(e.kind, e.kind)}* · "
        return [head + tag + _md_escape(e.text or "")]
    if e.kind == "card":
        lines = []
        if e.text:
            head = f"**{_md_escape(by)}:** " if by else ""
            lines.append(head + _md_escape(e.text))
        card = f"*{_md_escape(e.card_title)}*" if e.card_title else "a Story card"
        side = f" on the {_side_word(e.side)} side" if e.side else ""
        extra = []
        if e.concept:
            extra.append(_md_escape(e.concept))
        if e.caption:
            extra.append(f"“{_md_escape(e.caption)}”")
        who = f"{_md_escape(e.author)} plays " if e.author else "Played: "
        lines.append(f"> {KIND_ICON['card']} {who}{card}{side}"
                     + (" — " + " ".join(extra) if extra else ""))
        return lines
    label = KIND_LABEL.get(e.kind, e.kind.title())
    icon = KIND_ICON.get(e.kind, "•")
    text = _md_escape(e.text or "")
    if e.kind == "memory" and e.card_title:
        text = f"{text} The Memory: *{_md_escape(e.card_title)}*" + (
            f" ({_md_escape(e.concept)})" if e.concept else "")
    who = f" — {_md_escape(by)}" if by else ""
    return [f"> {icon} **{label}**{who}: {text}"]


# --------------------------------------------------------------------------- JSON


def to_json(story: Story, indent: int | None = 1) -> str:
    """The story as JSON (same content as the other formats, machine-readable)."""
    data = {
        "game": "winter-tales",
        "title": story.title,
        "complete": story.over,
        "result": _result_line(story),
        "winner": story.winner,
        "final": story.final,
        "length": story.length,
        "epilogue_space": story.epilogue_space,
        "bookmark": story.bookmark,
        "players": [asdict(p) for p in story.players],
        "memories": [asdict(m) for m in story.memories],
        "chapters": [{"number": ch.number, "title": ch.title,
                      "entries": [{k: v for k, v in asdict(e).items() if v is not None}
                                  for e in ch.entries]}
                     for ch in story.chapters],
    }
    return json.dumps(data, ensure_ascii=False, indent=indent)


# --------------------------------------------------------------------------- HTML

CSS = """
:root{--paper:#f8f5ef;--paper2:#eef2f7;--ink:#24252b;--soft:#5b6070;--rule:#d5d9e2;
--spring:#2f7d32;--spring-bg:#e7f3e3;--winter:#27598f;--winter-bg:#e3edf8;
--writer:#6d4aa8;--neutral:#6b6f78;--neutral-bg:#eceef1;--gold:#a86f00;--card:#fffdf8;
--aside:#f1efe9;--shadow:0 1px 3px rgba(20,30,60,.12),0 6px 18px rgba(20,30,60,.08)}
@media (prefers-color-scheme:dark){:root{--paper:#141a28;--paper2:#1b2336;--ink:#e9ecf2;
--soft:#a9b0c0;--rule:#2d3750;--spring:#8fd57a;--spring-bg:#1f3324;--winter:#9cc8ff;
--winter-bg:#1c2c45;--writer:#cdb4ff;--neutral:#b3b7c0;--neutral-bg:#262c38;--gold:#f0b232;
--card:#1e2638;--aside:#1a2131;--shadow:0 1px 3px rgba(0,0,0,.4),0 6px 18px rgba(0,0,0,.3)}}
*{box-sizing:border-box}
html{background:linear-gradient(180deg,var(--paper2),var(--paper) 420px);min-height:100%}
body{margin:0 auto;max-width:46rem;padding:2.5rem 1.25rem 4rem;color:var(--ink);
font:1.13rem/1.7 "Iowan Old Style","Palatino Linotype",Palatino,"Book Antiqua",
"URW Palladio L",Georgia,"Noto Serif","DejaVu Serif",serif}
h1,h2,h3{font-weight:600;line-height:1.25;letter-spacing:.01em}
header.cover{text-align:center;padding:1.5rem 0 1rem;border-bottom:1px solid var(--rule)}
header.cover .flakes{font-size:1.4rem;letter-spacing:.8rem;color:var(--winter);opacity:.8}
header.cover h1{font-size:2.6rem;margin:.4rem 0 .2rem;font-variant:small-caps}
header.cover .sub{color:var(--soft);font-style:italic;margin:0}
.result{margin:1rem auto 0;display:inline-block;padding:.35rem 1rem;border-radius:2rem;
border:1px solid var(--rule);background:var(--card);font-size:1rem}
.result.spring{border-color:var(--spring);color:var(--spring)}
.result.winter{border-color:var(--winter);color:var(--winter)}
.result.writer{border-color:var(--writer);color:var(--writer)}
section.table ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem;
justify-content:center;margin:1.2rem 0 0}
section.table li{background:var(--card);border:1px solid var(--rule);border-radius:.6rem;
padding:.3rem .8rem;font-size:.95rem;box-shadow:var(--shadow)}
.fac{font-variant:small-caps;font-weight:600}
.fac.spring{color:var(--spring)}.fac.winter{color:var(--winter)}.fac.writer{color:var(--writer)}
h2.track-title{text-align:center;font-size:1.2rem;color:var(--soft);margin:2.2rem 0 .8rem;
font-variant:small-caps}
ol.track{list-style:none;padding:0;margin:0;display:grid;
grid-template-columns:repeat(auto-fill,minmax(8.6rem,1fr));gap:.6rem}
ol.track li{position:relative;border-radius:.7rem;padding:.5rem;min-height:7.5rem;
background:var(--card);border:1px dashed var(--rule);font-size:.85rem;line-height:1.35}
ol.track li .no{position:absolute;top:.3rem;left:.5rem;font-weight:700;color:var(--soft)}
ol.track li.memory{border:2px solid var(--neutral);background:var(--neutral-bg)}
ol.track li.memory.spring{border-color:var(--spring);background:var(--spring-bg)}
ol.track li.memory.winter{border-color:var(--winter);background:var(--winter-bg)}
ol.track li.epilogue{border:2px solid var(--gold);display:flex;align-items:center;
justify-content:center;font-variant:small-caps;font-weight:700;color:var(--gold)}
ol.track li.unused{opacity:.35}
ol.track img{display:block;width:100%;height:auto;border-radius:.4rem;margin:1.2rem 0 .35rem}
ol.track .t{font-weight:700}ol.track .q{color:var(--soft);font-style:italic}
ol.track .bm{position:absolute;top:-.35rem;right:.6rem;width:.9rem;height:1.7rem;
background:#d9485a;clip-path:polygon(0 0,100% 0,100% 100%,50% 78%,0 100%)}
figure.board{margin:1rem 0 0;text-align:center}
figure.board img{max-width:100%;border-radius:.8rem;box-shadow:var(--shadow)}
figure.board.wide{margin:3rem calc(50% - 50vw) 0;padding:0 .5rem;width:100vw}
figure.board.wide img{width:100%;max-width:1200px;height:auto}
nav.contents{margin:2rem auto 0;max-width:30rem;padding:.8rem 1.2rem;border-radius:.8rem;
background:var(--card);border:1px solid var(--rule);box-shadow:var(--shadow)}
nav.contents h2{margin:0 0 .4rem;font-size:1.1rem;font-variant:small-caps;text-align:center}
nav.contents ol{margin:0;padding-left:1.4rem;columns:2;column-gap:2rem;font-size:1rem}
nav.contents a{color:var(--ink)}
figure.board figcaption{color:var(--soft);font-size:.9rem;font-style:italic}
section.chapter{margin-top:3rem}
section.chapter>h2{text-align:center;font-size:1.7rem;font-variant:small-caps;margin:0 0 1.4rem}
section.chapter>h2::before,section.chapter>h2::after{content:"❄";color:var(--winter);
font-size:1rem;margin:0 .8rem;vertical-align:.2rem;opacity:.7}
section.epilogue>h2::before,section.epilogue>h2::after{content:"❧";color:var(--gold)}
p.tell{margin:0 0 1rem;text-align:justify;hyphens:auto}
.tag{font-variant:small-caps;font-weight:700;font-size:.9rem;letter-spacing:.03em;
color:var(--soft);margin-right:.2rem}
.tag.quest,.tag.power{color:var(--gold)}.tag.battle{color:#c2413c}
.tag.trap{color:var(--spring)}.tag.save{color:var(--winter)}.tag.epilogue{color:var(--gold)}
.tag.objective{color:var(--writer)}.tag.setup{color:var(--soft)}
section.chapter>p.tell:not(.tagged):first-of-type::first-letter{float:left;font-size:3.3rem;line-height:.9;
padding:.25rem .4rem 0 0;color:var(--winter);font-weight:600}
.by{display:block;font-size:.85rem;color:var(--soft);font-style:italic;text-align:right;
margin-top:.1rem}
.by .s{font-variant:small-caps;font-style:normal}
.card{display:flex;gap:.6rem;align-items:flex-start;margin:-.4rem 0 1.1rem 1.2rem;
padding:.4rem .75rem;
border-left:4px solid var(--neutral);background:var(--card);border-radius:0 .6rem .6rem 0;
box-shadow:var(--shadow);font-size:.95rem;line-height:1.45}
.card.spring{border-left-color:var(--spring)}.card.winter{border-left-color:var(--winter)}
.card .ic{font-size:1.3rem;line-height:1.2}.card.spring .ic{color:var(--spring)}
.card.winter .ic{color:var(--winter)}
.card .ct{font-weight:700}.card .concept{color:var(--soft);font-style:italic}
.card{font-size:.88rem}
p.note{text-align:center;font-style:italic;color:var(--soft);font-size:.95rem;margin:0 2rem 1.2rem}
aside.ev{margin:1.2rem 0;padding:.6rem .9rem;border-radius:.7rem;background:var(--aside);
border:1px solid var(--rule);font-size:.95rem;line-height:1.5}
aside.ev .lab{font-variant:small-caps;font-weight:700;letter-spacing:.03em;margin-right:.35rem}
aside.ev .ic{margin-right:.35rem}
aside.ev.quest .lab,aside.ev.quest .ic{color:var(--gold)}
aside.ev.battle .lab,aside.ev.battle .ic{color:#c2413c}
aside.ev.trap .lab,aside.ev.trap .ic{color:var(--spring)}
aside.ev.save .lab,aside.ev.save .ic{color:var(--winter)}
aside.ev.ruling{border-style:dashed}aside.ev.ruling .lab{color:var(--writer)}
aside.ev.power .lab,aside.ev.power .ic{color:var(--gold)}
aside.ev.setup{text-align:center;font-style:italic;color:var(--soft)}
aside.ev .by{display:inline;text-align:left;margin-left:.4rem}
aside.memory{margin:1.6rem auto;max-width:30rem;text-align:center;padding:1rem;
border-radius:1rem;border:2px solid var(--neutral);background:var(--neutral-bg);
box-shadow:var(--shadow)}
aside.memory.spring{border-color:var(--spring);background:var(--spring-bg)}
aside.memory.winter{border-color:var(--winter);background:var(--winter-bg)}
aside.memory img{width:100%;max-width:22rem;border-radius:.6rem;display:block;margin:.5rem auto}
aside.memory .lab{font-variant:small-caps;font-weight:700;font-size:1.05rem}
aside.memory .t{font-size:1.15rem;font-weight:700;display:block}
aside.memory .concept{font-style:italic;color:var(--soft)}
aside.finale{margin:2rem auto 0;max-width:30rem;text-align:center;padding:1rem;
border-top:2px solid var(--gold);border-bottom:2px solid var(--gold)}
aside.finale span{display:block}aside.finale .lab{font-variant:small-caps;font-weight:700;
color:var(--gold);font-size:1.1rem}aside.finale .count{font-size:1.6rem;font-weight:700;
margin:.3rem 0}
aside.finale.spring .count{color:var(--spring)}aside.finale.winter .count{color:var(--winter)}
aside.finale.writer .count{color:var(--writer)}
footer{margin-top:3.5rem;padding-top:1rem;border-top:1px solid var(--rule);text-align:center;
color:var(--soft);font-size:.95rem}
footer .end{font-size:1.25rem;font-variant:small-caps;color:var(--ink)}
@media print{html{background:none}.card,aside,section.table li{box-shadow:none}}
"""


def _e(text: str | None) -> str:
    return html.escape(text or "", quote=True)


def _para(text: str | None) -> str:
    return "<br>".join(_e(line) for line in (text or "").splitlines())


def _png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


@lru_cache(maxsize=128)
def _art_uri(card: str, side: str | None, w: int, h: int) -> str | None:
    """A Story card's illustration as a small PNG data URI (None if it is no Story card)."""
    from renderers.common import to_png
    from renderers.winter_hand import card_art

    try:
        _content().story_card(card)
    except ValueError:
        return None
    img = card_art(card, w, h, side)
    buf = io.BytesIO(to_png(img, max_colors=128))
    return _png_data_uri(buf.getvalue())


def to_html(story: Story, board_png: bytes | None = None, art: bool = True) -> str:
    """The story as one self-contained HTML page (no external references at all)."""
    res_class = story.winner if story.winner in ("spring", "winter", "writer") else ""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>{_e(story.title)} · Winter Tales</title>",
        f"<style>{CSS}</style></head><body>",
        '<header class="cover"><div class="flakes">❄ ❅ ❄</div>',
        f"<h1>{_e(story.title)}</h1>",
        '<p class="sub">A story of Wintertown, told together at a Winter Tales table</p>',
        f'<div class="result {res_class}">{_e(_result_line(story))}</div>',
        '<section class="table"><ul>',
    ]
    for p in story.players:
        chars = ", ".join(p.characters)
        arb = " · Story Arbiter" if p.arbiter else ""
        parts.append(f'<li><b>{_e(p.name)}</b> <span class="fac {_e(p.faction)}">'
                     f"{_e(FACTION_LABEL.get(p.faction, p.faction))}</span>{_e(arb)}"
                     + (f"<br><small>{_e(chars)}</small>" if chars else "") + "</li>")
    parts.append("</ul></section></header>")
    parts.append(_html_contents(story, board=bool(board_png)))
    parts.append(_html_track(story, art))
    for i, ch in enumerate(story.chapters):
        cls = "chapter epilogue" if ch.number == -1 else "chapter"
        parts.append(f'<section class="{cls}" id="{_chapter_anchor(i)}">'
                     f"<h2>{_e(ch.title)}</h2>")
        last: tuple[str | None, str | None] | None = None
        for e in ch.entries:
            who = (e.author, e.character)
            prose = is_prose(e)
            # a byline when the teller changes, as a book names a new voice
            parts.append(_html_entry(e, art, show_by=not prose or who != last))
            last = who if prose else None
        if ch.number == -1 and story.over:
            parts.append(_html_finale(story))
        parts.append("</section>")
    if board_png:
        # Full width, and a click opens it alone at full size (the same data URI: a
        # self-contained page has no other file to link to).
        when = "ends" if story.over else "stands"
        uri = _png_data_uri(board_png)
        parts.append(f'<figure class="board wide" id="board"><a href="{uri}" target="_blank" '
                     f'title="Open the board at full size"><img alt="The Wintertown board" '
                     f'src="{uri}"></a><figcaption>Wintertown as the story {when} (click to '
                     "open it at full size)</figcaption></figure>")
    parts.append(f'<footer><div class="end">{"The End" if story.over else "To be continued…"}'
                 f"</div><div>{_e(_result_line(story))}</div></footer>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _chapter_anchor(index: int) -> str:
    return f"chapter-{index + 1}"


def _html_contents(story: Story, *, board: bool) -> str:
    """The table of contents: a link to every chapter (and to the board)."""
    items = [f'<li><a href="#{_chapter_anchor(i)}">{_e(ch.title)}</a></li>'
             for i, ch in enumerate(story.chapters)]
    if board:
        items.append('<li><a href="#board">The board</a></li>')
    if not items:
        return ""
    return '<nav class="contents"><h2>Contents</h2><ol>' + "".join(items) + "</ol></nav>"


def _html_finale(story: Story) -> str:
    count = ""
    if story.final:
        count = " · ".join(f"{_e(FACTION_LABEL.get(k, k))} {v}" for k, v in story.final.items())
        count = f'<span class="count">{count}</span>'
    return (f'<aside class="finale {_e(story.winner or "")}"><span class="lab">❧ The story '
            f"ends</span>{count}<span>{_e(_result_line(story, with_count=False))}</span>"
            "</aside>")


def _html_track(story: Story, art: bool) -> str:
    by_slot = {m.slot: m for m in story.memories}
    track = _content().memory_track
    icons = set(track.objective_spaces)
    cells = []
    total = max(story.epilogue_space, len(track.spaces) + 1)
    for slot in range(1, total + 1):
        m = by_slot.get(slot)
        icon = " ◎" if slot in icons else ""
        bm = '<span class="bm" title="Bookmark"></span>' if story.bookmark == slot else ""
        if m is not None:
            img = ""
            if art and m.source == "quest":
                uri = _art_uri(m.card, m.faction, 200, 120)
                if uri:
                    img = f'<img alt="{_e(m.concept)}" src="{uri}">'
            sub = m.quest or ("An Objective" if m.source == "objective" else "")
            cells.append(f'<li class="memory {_e(m.faction or "neutral")}">{bm}'
                         f'<span class="no">{slot}{icon}</span>{img or "<br><br>"}'
                         f'<span class="t">{_e(m.title)}</span><br>'
                         f'<span class="q">{_e(sub)}</span></li>')
        elif slot == story.epilogue_space:
            cells.append(f'<li class="epilogue"><span class="no">{slot}</span>Epilogue</li>')
        elif slot > story.epilogue_space:
            cells.append(f'<li class="unused"><span class="no">{slot}</span></li>')
        else:
            cells.append(f'<li><span class="no">{slot}{icon}</span></li>')
    return ('<h2 class="track-title">The Memory Track</h2><ol class="track">'
            + "".join(cells) + "</ol>")


def _html_by(e: StoryEntry) -> str:
    if not e.author and not e.character:
        return ""
    who = f'<span class="s">{_e(e.author)}</span>' if e.author else ""
    if e.character:
        who += f" as {_e(e.character)}" if who else _e(e.character)
    return f'<span class="by">— {who}</span>'


def _html_entry(e: StoryEntry, art: bool, show_by: bool = True) -> str:
    by = _html_by(e) if show_by else ""
    if e.kind == "narration" or (e.kind == "setup" and is_prose(e)):
        return f'<p class="tell">{_para(e.text)}{by}</p>'
    if e.kind != "card" and is_prose(e):
        tag = (f'<span class="tag {_e(e.kind)}">{KIND_ICON.get(e.kind, "")} '
               f"{_e(KIND_LABEL.get(e.kind, e.kind))}</span> ")
        return f'<p class="tell tagged">{tag}{_para(e.text)}{by}</p>'
    if e.kind == "setup":
        return f'<p class="note">{_para(e.text)}</p>'
    if e.kind == "card":
        side = e.side or "neutral"
        said = f'<p class="tell">{_para(e.text)}{by}</p>' if e.text else ""
        title = _e(e.card_title) if e.card_title else "A Story card"
        side_txt = f" · {_e(_side_word(e.side))} side" if e.side else ""
        concept = f' <span class="concept">{_e(e.concept)}</span>' if e.concept else ""
        cap = f' <span class="cap">“{_e(e.caption)}”</span>' if e.caption else ""
        card_by = f" <small>{by}</small>" if by and not e.text else ""
        return (f'{said}<div class="card {_e(side)}"><span class="ic">▣</span><div>'
                f'<span class="ct">{title}</span>{side_txt}.{concept}{cap}{card_by}</div></div>')
    if e.kind == "memory":
        side = e.side or "neutral"
        img = ""
        if art and e.card:
            uri = _art_uri(e.card, e.side, 360, 200)
            if uri:
                img = f'<img alt="{_e(e.concept)}" src="{uri}">'
        title = f'<span class="t">{_e(e.card_title)}</span>' if e.card_title else ""
        concept = f'<span class="concept">{_e(e.concept)}</span>' if e.concept else ""
        return (f'<aside class="memory {_e(side)}"><span class="lab">❦ A Memory is made</span>'
                f"{img}{title}{concept}<p>{_para(e.text)}</p>{_html_by(e)}</aside>")
    label = KIND_LABEL.get(e.kind, e.kind.title())
    icon = KIND_ICON.get(e.kind, "•")
    return (f'<aside class="ev {_e(e.kind)}"><span class="ic">{icon}</span>'
            f'<span class="lab">{_e(label)}</span>{_para(e.text)}{_html_by(e)}</aside>')


# --------------------------------------------------------------------------- one call


def export(view: Any, names: Sequence[str] | None = None, title: str = "A Winter Tale",
           board_png: bytes | None = None) -> dict[str, str]:
    """All three exports of a PUBLIC view: ``{"md": ..., "html": ..., "json": ...}``.

    Raises ``ValueError`` for a seat's view: exports are made from what everyone may see.
    """
    if view_get(view, "seat") is not None:
        raise ValueError("Exports are made from the public view (seat=None), not a seat's view.")
    story = story_from_view(view, names, title)
    return {"md": to_markdown(story), "html": to_html(story, board_png), "json": to_json(story)}
