"""The Story Arbiter's tools and table safety: actions outside the turn order.

Rulebook (General Rules, Story Arbiter; Golden Rules): the Arbiter has the last word on
story matters but may not change the mechanics. The tools given here:

* ask a player to retell a passage (it is hidden until its author retells it);
* strike a passage from the story (kept in the state for the table's audit log, hidden
  from every view and export);
* rule whether the Acting Player linked the Ongoing Quest to the bookmarked Memory (a
  missing link fails the Quest, rulebook "The Bookmark");
* correct a figure or a running count when the whole table agrees (Golden Rule 3).

Every ruling is written to the transcript as a ``ruling`` entry and announced.

Table safety: any player may raise the X-card on the last narration. Nobody learns who
raised it (the event carries no seat); the Arbiter is told privately; the passage is
hidden until its author retells it. Lines and veils chosen at table creation open the
transcript and are in every view.
"""

from __future__ import annotations

from engines.core import Action, IllegalAction, Seat
from engines.winter_tales import quests
from engines.winter_tales.common import Events, content, event, name_of, space_name, tell, verb
from engines.winter_tales.state import (
    AskRetell,
    CorrectCount,
    CorrectFigure,
    Entry,
    Narrate,
    Retell,
    RuleBookmark,
    Strike,
    WinterEvent,
    WinterState,
    XCard,
)
from engines.winter_tales.telling import writer

STORY_ONLY = frozenset({"narrate", "x_card", "retell", "ask_retell", "strike"})
"""Meta actions that touch only the story text (also allowed once the game is over)."""


def _told(e: Entry) -> bool:
    return e.text is not None and not e.hidden and not e.struck and e.kind not in (
        "ruling", "chapter", "setup")


def last_narration(state: WinterState) -> Entry | None:
    return next((e for e in reversed(state.transcript) if _told(e) and e.seat is not None),
                None)


def counting(state: WinterState) -> object | None:
    for f in reversed(state.stack):
        if f.kind == "epilogue" or (f.kind == "quest" and f.result is None):
            return f
    return None


def meta_actions(state: WinterState, seat: Seat) -> list[Action]:
    over = state.winner is not None
    out: list[Action] = [Narrate()] if not over else []
    if last_narration(state) is not None:
        out.append(XCard())
    out += [Retell(entry=e.n) for e in state.transcript
            if e.seat == seat and e.hidden and not e.struck]
    if seat != state.arbiter:
        return out
    out += [AskRetell(entry=e.n) for e in state.transcript if _told(e) and e.seat is not None]
    out += [Strike(entry=e.n) for e in state.transcript if e.text is not None and not e.struck
            and e.kind != "ruling"]
    if over:
        return out
    q = quests.ongoing_frame(state)
    if q is not None and q.result is None and state.bookmark is not None:
        out += [RuleBookmark(made=True), RuleBookmark(made=False)]
    if counting(state) is not None:
        out += [CorrectCount(faction=f, delta=d) for f in ("spring", "winter")  # type: ignore[arg-type]
                for d in (-1, 1)]
    spaces = [s.id for s in content().map.spaces]
    for fig in state.figures.values():
        if fig.in_play:
            out += [CorrectFigure(character=fig.id, space=s, incapacitated=i)
                    for s in spaces for i in (False, True)
                    if (s, i) != (fig.space, fig.incapacitated)]
    return out


def ruling(state: WinterState, text: str, note: str | None, ev: Events) -> None:
    full = text + (f" ({note})" if note else "")
    tell(state, "ruling", full, state.arbiter)
    ev.append(event("ruling", "Story Arbiter {0}: " + full.replace("{", "(").replace("}", ")"),
                    state.arbiter))


def _update(state: WinterState, n: int, **changes: object) -> Entry:
    """Replace transcript entry ``n`` by a changed copy.

    Entries are never changed in place, so copies of the state may share them (see
    ``WinterTales.copy_state``).
    """
    entry = state.transcript[n].model_copy(update=changes)
    state.transcript[n] = entry
    return entry


def apply_meta(state: WinterState, seat: Seat, action: Action, ev: Events) -> None:
    if isinstance(action, Narrate):
        if not action.text or not action.text.strip():
            raise IllegalAction("Tell something: the narration is empty.")
        tell(state, "narration", action.text, seat)
        ev.append(event("tell", "{0} adds to the story.", seat))
    elif isinstance(action, XCard):
        entry = last_narration(state)
        assert entry is not None
        entry = _update(state, entry.n, hidden=True)
        ev.append(event("x_card", f"The X-card was raised: passage #{entry.n} is hidden until "
                        "it is retold.", entry=entry.n))
        ev.append(x_card_notice(entry.n, state.arbiter))
        _storyteller_retells(state, entry, ev)
    elif isinstance(action, Retell):
        if not action.text or not action.text.strip():
            raise IllegalAction("Retell the passage: the new text is empty.")
        entry = _update(state, action.entry, text=action.text, hidden=False)
        ev.append(event("retold", f"{{0}} retells passage #{entry.n}.", seat, entry=entry.n))
    elif isinstance(action, AskRetell):
        entry = _update(state, action.entry, hidden=True)
        ruling(state, f"passage #{entry.n} is to be retold", action.text, ev)
        if entry.seat is not None:
            ev.append(event("retell_asked", f"The Story Arbiter asks you to retell passage "
                            f"#{entry.n}.", entry.seat, private=(entry.seat,), entry=entry.n))
        _storyteller_retells(state, entry, ev)
    elif isinstance(action, Strike):
        state.story.take_out(writer.taken_out(state.transcript[action.entry]))
        entry = _update(state, action.entry, struck=True, hidden=True)
        ruling(state, f"passage #{entry.n} is struck from the story", action.text, ev)
    elif isinstance(action, RuleBookmark):
        quests.ruling_link(state, action.made)
        verdict = ("the Quest is linked to the bookmarked Memory" if action.made else
                   "the Bookmark link was not made: the Quest will fail")
        ruling(state, verdict, action.text, ev)
    elif isinstance(action, CorrectFigure):
        fig = state.figures[action.character]
        fig.space = action.space
        fig.incapacitated = action.incapacitated
        state_word = "incapacitated" if action.incapacitated else "standing"
        ruling(state, f"the table agrees: {name_of(fig.id)} {verb(fig.id, 'is', 'are')} in "
               f"{space_name(action.space)}, "
               f"{state_word}", action.text, ev)
    elif isinstance(action, CorrectCount):
        frame = counting(state)
        assert frame is not None
        frame.adjust[action.faction] += action.delta  # type: ignore[attr-defined]
        ruling(state, f"the table agrees: the {action.faction} count is corrected by "
               f"{action.delta:+d}", action.text, ev)


def _storyteller_retells(state: WinterState, entry: Entry, ev: Events) -> None:
    """An AI passage sent back is retold at once, without the words it had: those words
    are taken out of the story for the storyteller from now on."""
    if not entry.storyteller:
        return
    state.story.take_out(writer.taken_out(entry))
    told = writer.retell(state, entry)
    if told is None:
        return
    text, mark = told
    state.story.record(mark, text)
    _update(state, entry.n, text=text, hidden=False)
    ev.append(event("retold", f"The storyteller retells passage #{entry.n}.", entry=entry.n))


def x_card_notice(entry: int, arbiter: Seat) -> WinterEvent:
    """The private notice to the Arbiter. It names the passage, never who raised the card."""
    return event("x_card_notice", content().setup.safety.x_card_private_notice
                 + f" (passage #{entry})", private=(arbiter,), entry=entry)
