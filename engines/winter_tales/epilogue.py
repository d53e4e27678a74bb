"""The Epilogue (rulebook, The Epilogue): the final act once the Memory Track is full.

* The player who placed the last Memory is the Epilogue player and tells first, linking to
  the bookmarked Memory; then every other player once, clockwise, with the cards left in
  hand, on their Faction's side (a player with no card is forced to pass); the Writer
  always last, playing at most half of their cards rounded down, all for one Faction.
* No more activations, interrupts or opportunities.
* Count: Story cards played for each Faction, +3 for each Memory in its favour. The higher
  total wins; a tie goes to the Writer if present, else to the Faction that began it.
* Optional Epilogue Bookmark: after each part the teller moves the Bookmark to another
  Memory of their liking (the next part links to it).
* Then the Epilogue player concludes the story and the game ends.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import flow
from engines.winter_tales.common import (
    Events,
    content,
    event,
    others_clockwise,
    take,
    tell,
    to_discard,
    writer_seat,
)
from engines.winter_tales.memory_track import free_slots
from engines.winter_tales.state import (
    Done,
    EpilogueFrame,
    Faction,
    MoveBookmark,
    PlayCard,
    Tell,
    WinterState,
)


def check(state: WinterState, ev: Events) -> None:
    """Start the Epilogue if the last free Memory space has just been filled."""
    if state.winner is not None or free_slots(state):
        return
    if any(f.kind == "epilogue" for f in state.stack):
        return
    seat = state.last_placer if state.last_placer is not None else state.order[0]
    start(state, seat, ev)


def start(state: WinterState, seat: Seat, ev: Events) -> None:
    state.stack.clear()
    state.ongoing = None
    state.epilogue_player = seat
    w = writer_seat(state)
    order = [seat, *others_clockwise(state, seat)]
    if w is not None:
        order = [s for s in order if s != w] + [w]
    state.stack.append(EpilogueFrame(seat=seat, order=order))
    ev.append(event("epilogue", "The Memory Track is full: {0} begins the Epilogue.", seat))
    tell(state, "epilogue", "The Epilogue begins.", seat)


def teller(frame: EpilogueFrame) -> Seat | None:
    if frame.stage == "conclusion":
        return frame.seat
    return frame.order[frame.cursor] if frame.cursor < len(frame.order) else None


def epilogue_to_act(state: WinterState, frame: EpilogueFrame) -> list[Seat]:
    s = teller(frame)
    return [] if s is None else [s]


def sides(state: WinterState, frame: EpilogueFrame, seat: Seat) -> list[Faction]:
    f = state.factions[seat]
    if f != "writer":
        return [f]  # type: ignore[list-item]
    if frame.writer_side is not None:
        return [frame.writer_side]
    return ["spring", "winter"]


def may_play(state: WinterState, frame: EpilogueFrame, seat: Seat) -> bool:
    if not state.hands[seat]:
        return False
    if state.factions[seat] == "writer":
        return frame.part_cards < (frame.writer_limit or 0)
    return True


def epilogue_legal(state: WinterState, frame: EpilogueFrame, seat: Seat) -> list[Action]:
    if frame.stage == "conclusion":
        return [Tell()]
    if frame.stage == "bookmark":
        return [MoveBookmark(slot=m.slot) for m in state.memories if m.slot != state.bookmark]
    out: list[Action] = []
    if may_play(state, frame, seat):
        out += [PlayCard(card=c, side=s) for c in dict.fromkeys(state.hands[seat])
                for s in sides(state, frame, seat)]
    return [*out, Done()]


def epilogue_act(state: WinterState, frame: EpilogueFrame, seat: Seat, action: Action,
                 ev: Events) -> None:
    if isinstance(action, Tell):
        tell(state, "epilogue", action.text, seat)
        finish(state, frame, ev)
        return
    if isinstance(action, PlayCard):
        take(state, seat, action.card)
        to_discard(state, [action.card])
        frame.cards[action.side] += 1
        frame.part_cards += 1
        if state.factions[seat] == "writer":
            frame.writer_side = action.side
        ev.append(event("play_card", f"{{0}} plays {content().story_card(action.card).title} on "
                        f"the {action.side} side.", seat, card=action.card))
        tell(state, "card", action.text, seat, None, action.card, action.side)
        return
    if isinstance(action, MoveBookmark):
        state.bookmark = action.slot
        ev.append(event("bookmark", f"{{0}} moves the Bookmark to Memory {action.slot}.", seat))
        next_part(frame)
        return
    assert isinstance(action, Done)
    tell(state, "epilogue", action.text, seat)
    ev.append(event("epilogue_part", "{0} ends their part of the Epilogue.", seat))
    if state.options.epilogue_bookmark and len(state.memories) > 1:
        frame.stage = "bookmark"
    else:
        next_part(frame)


def next_part(frame: EpilogueFrame) -> None:
    frame.stage = "parts"
    frame.cursor += 1
    frame.part_cards = 0


def epilogue_auto(state: WinterState, frame: EpilogueFrame, ev: Events) -> bool:
    if frame.stage != "parts":
        return False
    if frame.cursor >= len(frame.order):
        state.final = totals(state, frame)
        frame.stage = "conclusion"
        f = state.final
        ev.append(event("epilogue_count", f"Epilogue count: Spring {f['spring']}, "
                        f"Winter {f['winter']}."))
        return True
    seat = frame.order[frame.cursor]
    if state.factions[seat] == "writer" and frame.writer_limit is None:
        frame.writer_limit = content().setup.writer_epilogue_limit(len(state.hands[seat]))
    if seat != frame.seat and frame.part_cards == 0 and not may_play(state, frame, seat):
        ev.append(event("epilogue_pass", "{0} has no card to play and passes.", seat))
        frame.cursor += 1
        return True
    return False


def totals(state: WinterState, frame: EpilogueFrame) -> dict[str, int]:
    value = content().setup.memory_value
    out = {f: frame.cards[f] + frame.adjust[f] for f in ("spring", "winter")}
    for m in state.memories:
        if m.faction is not None:
            out[m.faction] += value
    return out


def winner_of(state: WinterState, final: dict[str, int]) -> str:
    if final["spring"] > final["winter"]:
        return "spring"
    if final["winter"] > final["spring"]:
        return "winter"
    if writer_seat(state) is not None:
        return "writer"
    starter = state.epilogue_player if state.epilogue_player is not None else state.order[0]
    return state.factions[starter]


def finish(state: WinterState, frame: EpilogueFrame, ev: Events) -> None:
    final = state.final or totals(state, frame)
    state.final = final
    state.winner = winner_of(state, final)  # type: ignore[assignment]
    ev.append(event("game_over", f"The Epilogue ends: {state.winner.capitalize()} wins "
                    f"(Spring {final['spring']}, Winter {final['winter']})."))
    state.stack.clear()


flow.register("epilogue", flow.Handler(epilogue_to_act, epilogue_legal, epilogue_act,  # type: ignore[arg-type]
                                       epilogue_auto))  # type: ignore[arg-type]
