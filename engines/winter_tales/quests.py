"""Quests (rulebook, Quests; Memories and the Bookmark).

Generation and placement, then the facing sequence of an Ongoing Quest:

1. the Acting Player introduces it, linking it to the bookmarked Memory;
2. clockwise, every other player may activate one character and move it to the Quest
   (the movement can be interrupted); one that arrives may take part;
3. the Acting Player's plot (any number of cards, on their Faction's side);
4. clockwise, every other player may step in with a character standing at the Quest
   (even one already activated this Chapter), helping or hindering;
5. the Acting Player's last card;
6. the count: success, failure or draw (+1 per Quest-skill character taking part; a
   missing Bookmark link, as ruled by the Story Arbiter, fails the Quest);
7. consequences: the player who played most cards for the winning Faction picks the
   Memory card (ties: the Writer, else the Acting Player; a draw gives a neutral card),
   it goes to the first free Memory space (or over an Objective Memory) with the Quest
   counter, and the Bookmark moves onto it.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import activations, epilogue, flow, powers
from engines.winter_tales.common import (
    Events,
    content,
    count_bonus,
    event,
    figures_of,
    name_of,
    others_clockwise,
    quest_space,
    ready_figures,
    space_name,
    take,
    tell,
    to_discard,
    verb,
    writer_seat,
)
from engines.winter_tales.memory_track import memory_slots, put_memory
from engines.winter_tales.state import (
    Activate,
    ActivationFrame,
    BoardQuest,
    ChooseMemory,
    Done,
    Faction,
    Figure,
    GenerateQuest,
    Memory,
    Pass,
    PlayCard,
    QuestFrame,
    StartQuest,
    StepIn,
    TakePart,
    Tell,
    UseArtefact,
    WinterState,
    other,
)

# --------------------------------------------------------------------------- placement


def forbidden_here(state: WinterState, quest: str) -> set[str]:
    """Locations a Power forbids this Quest (the Safe House keeps the Freezing Horror out)."""
    out: set[str] = set()
    for p in state.powers:
        if p.location and quest in content().quest(p.quest).power.forbids_here:
            out.add(p.location)
    return out


def occupied_locations(state: WinterState) -> set[str]:
    return {s for q in state.quests if (s := quest_space(state, q.counter)) is not None}


def placement_targets(state: WinterState, counter: str) -> list[str]:
    c = content()
    q = c.quest(c.quest_counter(counter).quest)
    taken = occupied_locations(state) | forbidden_here(state, q.id)
    if q.placement == "any_location":
        return [loc.id for loc in c.map.locations if loc.id not in taken]
    carried = {b.carrier for b in state.quests}
    return [f.id for f in state.figures.values()
            if f.in_play and f.faction == "spring" and f.id not in carried
            and not (c.map.space(f.space).is_location and f.space in taken)]  # type: ignore[arg-type]


def place(state: WinterState, seat: Seat, counter: str, target: str, text: str | None,
          ev: Events, character: str | None = None) -> None:
    c = content()
    qc = c.quest_counter(counter)
    quest = c.quest(qc.quest)
    bq = BoardQuest(counter=counter, quest=quest.id, faction=qc.faction, placed_by=seat)
    if target in state.figures:
        bq.carrier = target
        where = f"under {name_of(target)}"
    else:
        bq.space = target
        where = f"in {space_name(target)}"
    state.quests.append(bq)
    state.used_counters.append(counter)
    ev.append(event("quest_generated", f"{{0}} places the {quest.name} Quest ({qc.faction}) "
                    f"{where}.", seat))
    tell(state, "quest", f"A new Quest appears: {quest.name} ({qc.faction}), {where}.")
    tell(state, "quest", text, seat, character)


def available_counters(state: WinterState, seat: Seat, faction: str) -> list[str]:
    writer = state.factions[seat] == "writer"
    return [q.id for q in content().quest_counters
            if q.id not in state.used_counters and (writer or q.faction == faction)]


def generate_options(state: WinterState, seat: Seat, fig: Figure) -> list[Action]:
    return [GenerateQuest(counter=c, target=t)
            for c in available_counters(state, seat, fig.faction)
            for t in placement_targets(state, c)]


def start_options(state: WinterState, fig: Figure) -> list[Action]:
    if state.ongoing is not None or fig.space is None:
        return []
    return [StartQuest(counter=q.counter) for q in state.quests
            if q.faction == fig.faction and quest_space(state, q.counter) == fig.space]


def activation_act(state: WinterState, frame: ActivationFrame, action: Action,
                   ev: Events) -> None:
    frame.action_done = True
    if isinstance(action, GenerateQuest):
        place(state, frame.seat, action.counter, action.target, action.text, ev,
              frame.character)
        frame.ended = True
        return
    assert isinstance(action, StartQuest)
    bq = next(q for q in state.quests if q.counter == action.counter)
    fig = state.figures[frame.character]
    state.ongoing = bq.counter
    frame.can_move = False
    state.stack.append(QuestFrame(
        seat=frame.seat, counter=bq.counter, quest=bq.quest, faction=bq.faction,
        character=fig.id, space=fig.space or "", participants=[fig.id],
        link_ok=None,
    ))
    ev.append(event("quest_start", f"{{0}} starts the {content().quest(bq.quest).name} Quest "
                    f"with {name_of(fig.id)} in {space_name(fig.space)}.", frame.seat))
    if action.text:
        tell(state, "quest", action.text, frame.seat, fig.id)


def can_take_part(state: WinterState, fig: Figure) -> bool:
    q = ongoing_frame(state)
    return q is not None and fig.space == q.space and fig.id not in q.participants


def take_part(state: WinterState, frame: ActivationFrame, action: TakePart, ev: Events) -> None:
    q = ongoing_frame(state)
    assert q is not None
    q.participants.append(frame.character)
    frame.action_done = True
    frame.ended = True
    ev.append(event("take_part", f"{name_of(frame.character)} "
                    f"{verb(frame.character, 'takes', 'take')} part in the Quest.",
                    frame.seat, character=frame.character))
    tell(state, "quest", action.text, frame.seat, frame.character)


def ongoing_frame(state: WinterState) -> QuestFrame | None:
    for f in reversed(state.stack):
        if f.kind == "quest":
            return f
    return None


# --------------------------------------------------------------------------- facing


def _others(state: WinterState, frame: QuestFrame) -> list[Seat]:
    return others_clockwise(state, frame.seat)


def current(state: WinterState, frame: QuestFrame) -> Seat | None:
    if frame.stage in ("intro", "plot", "last", "end"):
        return frame.seat
    if frame.stage == "memory":
        return frame.chooser
    if frame.stage == "step_play":
        return frame.stepper
    others = _others(state, frame)
    return others[frame.cursor] if frame.cursor < len(others) else None


def quest_to_act(state: WinterState, frame: QuestFrame) -> list[Seat]:
    s = current(state, frame)
    return [] if s is None else [s]


def joinable(state: WinterState, seat: Seat) -> list[Figure]:
    return [f for f in ready_figures(state, seat) if not f.incapacitated]


def steppers(state: WinterState, frame: QuestFrame, seat: Seat) -> list[Figure]:
    return [f for f in figures_of(state, seat)
            if f.in_play and f.space == frame.space and not f.incapacitated
            and (state.hands[seat] or powers.holds_artefact(state, f.id))]


def step_sides(state: WinterState, frame: QuestFrame) -> list[Faction]:
    if frame.stepper_side is not None:
        return [frame.stepper_side]
    assert frame.stepper is not None and frame.stepper_character is not None
    own = state.figures[frame.stepper_character].faction
    if state.factions[frame.stepper] == "writer" or own != frame.faction:
        return ["spring", "winter"]
    return [own]


def card_options(state: WinterState, seat: Seat, sides: list[Faction]) -> list[Action]:
    return [PlayCard(card=c, side=s) for c in dict.fromkeys(state.hands[seat]) for s in sides]


def quest_legal(state: WinterState, frame: QuestFrame, seat: Seat) -> list[Action]:
    st = frame.stage
    if st in ("intro", "end"):
        return [Tell()]
    if st == "join":
        return [*(Activate(character=f.id) for f in joinable(state, seat)), Pass(),
                *activations.opportunities(state, seat)]
    if st == "plot":
        return [*card_options(state, seat, [frame.faction]),
                *powers.artefact_options(state, frame.character, frame.artefact_used), Done()]
    if st == "step_in":
        return [*(StepIn(character=f.id) for f in steppers(state, frame, seat)), Pass(),
                *activations.opportunities(state, seat)]
    if st == "step_play":
        assert frame.stepper_character is not None
        return [*card_options(state, seat, step_sides(state, frame)),
                *powers.artefact_options(state, frame.stepper_character, frame.artefact_used),
                Done()]
    if st == "last":
        return [*card_options(state, seat, [frame.faction]), Pass()]
    if st == "memory":
        return [ChooseMemory(card=card, slot=slot)
                for card in memory_cards(state, frame) for slot in memory_slots(state)]
    return []


def play(state: WinterState, frame: QuestFrame, seat: Seat, card: str, side: Faction,
         character: str | None, text: str | None, ev: Events) -> None:
    take(state, seat, card)
    frame.played.append(card)
    frame.cards[side] += 1
    frame.by_seat.setdefault(seat, {"spring": 0, "winter": 0})[side] += 1
    ev.append(event("play_card", f"{{0}} plays {content().story_card(card).title} on the "
                    f"{side} side.", seat, card=card, character=character))
    tell(state, "card", text, seat, character, card, side)


def quest_act(state: WinterState, frame: QuestFrame, seat: Seat, action: Action,
              ev: Events) -> None:
    st = frame.stage
    if st in ("join", "step_in") and activations.opportunity_act(state, seat, action, ev):
        return
    if isinstance(action, Tell):
        tell(state, "quest", action.text, seat, frame.character)
        if st == "intro":
            frame.stage = "join"
            frame.cursor = 0
        else:
            frame.stage = "memory"
        return
    if st == "join":
        frame.cursor += 1
        if isinstance(action, Activate):
            activations.activate(state, seat, action.character, "join", action.text, ev)
        else:
            ev.append(event("pass", "{0} does not join the Quest.", seat))
        return
    if isinstance(action, UseArtefact):
        side = powers.use_artefact(state, action.character, frame.artefact_used, ev)
        frame.cards[side] += 1
        frame.by_seat.setdefault(seat, {"spring": 0, "winter": 0})[side] += 1
        tell(state, "card", action.text, seat, action.character, side=side)
        return
    if isinstance(action, PlayCard):
        who = frame.stepper_character if st == "step_play" else frame.character
        play(state, frame, seat, action.card, action.side, who, action.text, ev)
        if st == "step_play":
            frame.stepper_side = action.side
        if st == "last":
            frame.stage = "end"
        return
    if isinstance(action, StepIn):
        frame.stepper = seat
        frame.stepper_character = action.character
        frame.stepper_side = None
        if action.character not in frame.participants:
            frame.participants.append(action.character)
        frame.stage = "step_play"
        ev.append(event("step_in", f"{{0}} steps into the Quest with {name_of(action.character)}.",
                        seat, character=action.character))
        tell(state, "quest", action.text, seat, action.character)
        return
    if isinstance(action, ChooseMemory):
        consequences(state, frame, seat, action, ev)
        return
    # Done / Pass
    if action.text:
        tell(state, "narration", action.text, seat, frame.character)
    if st == "plot":
        frame.stage, frame.cursor = "step_in", 0
    elif st == "step_in":
        frame.cursor += 1
    elif st == "step_play":
        frame.stage = "step_in"
        frame.cursor += 1
    elif st == "last":
        frame.stage = "end"


def quest_auto(state: WinterState, frame: QuestFrame, ev: Events) -> bool:
    st = frame.stage
    others = _others(state, frame)
    if st == "join":
        while frame.cursor < len(others) and not joinable(state, others[frame.cursor]):
            frame.cursor += 1
        if frame.cursor >= len(others):
            frame.stage = "plot"
            return True
        return False
    if st == "step_in":
        while frame.cursor < len(others) and not steppers(state, frame, others[frame.cursor]):
            frame.cursor += 1
        if frame.cursor >= len(others):
            frame.stage = "last"
            return True
        return False
    if st == "last" and not state.hands[frame.seat]:
        frame.stage = "end"
        return True
    if st == "end" and frame.result is None:
        count(state, frame, ev)
        return True
    return False


def totals(state: WinterState, frame: QuestFrame) -> dict[str, int]:
    out = {f: frame.cards[f] + frame.adjust[f] for f in ("spring", "winter")}
    for ch in frame.participants:
        fig = state.figures[ch]
        out[fig.faction] += count_bonus(state, ch, "quest")
    return out


def count(state: WinterState, frame: QuestFrame, ev: Events) -> None:
    t = totals(state, frame)
    own, opp = frame.faction, other(frame.faction)
    name = content().quest(frame.quest).name
    if frame.link_ok is False:
        frame.result = opp
        why = "the Bookmark link was not made, so the Quest fails"
    elif t[own] > t[opp]:
        frame.result = own
        why = "success"
    elif t[opp] > t[own]:
        frame.result = opp
        why = "failure"
    else:
        frame.result = "draw"
        why = "a draw"
    ev.append(event("quest_count", f"{name}: Spring {t['spring']}, Winter {t['winter']}: {why}."))
    tell(state, "quest", f"{name}: Spring {t['spring']}, Winter {t['winter']} ({why}).")
    w = writer_seat(state)
    fallback = w if w is not None else frame.seat
    if frame.result == "draw":
        frame.chooser = fallback
    else:
        scores = {s: v.get(frame.result, 0) for s, v in frame.by_seat.items()}
        best = max(scores.values(), default=0)
        top = [s for s, v in scores.items() if v == best and v > 0]
        frame.chooser = top[0] if len(top) == 1 else fallback


# --------------------------------------------------------------------------- memories


def memory_cards(state: WinterState, frame: QuestFrame) -> list[str]:
    if frame.result == "draw":
        used = {m.card for m in state.memories}
        neutral = [n.id for n in content().neutral_cards]
        return [next((n for n in neutral if n not in used), neutral[0])]
    played = list(dict.fromkeys(frame.played))
    if played:
        return played
    # nobody played a card (a win by Skills or a ruling): the Memory is the deck's top card
    if state.deck or state.discard:
        return ["deck"]
    return [content().neutral_cards[0].id]


def consequences(state: WinterState, frame: QuestFrame, seat: Seat, action: ChooseMemory,
                 ev: Events) -> None:
    result = frame.result
    card = action.card
    if card == "deck":
        card = state.deck.pop() if state.deck else state.discard.pop()
    elif card not in frame.played and result != "draw":
        result = "draw"  # no Story card left anywhere: the Memory can only be neutral
    played = [c for c in frame.played if c != card]
    to_discard(state, played)
    faction: Faction | None = None if result == "draw" else result  # type: ignore[assignment]
    mem = Memory(slot=action.slot, source="quest", card=card, faction=faction,
                 counter=frame.counter, chapter=state.chapter, placed_by=seat)
    put_memory(state, mem, ev, content().memory_track.bookmark_moves_to_new_quest_memory)
    carrier = next((q.carrier for q in state.quests if q.counter == frame.counter), None)
    state.quests = [q for q in state.quests if q.counter != frame.counter]
    state.ongoing = None
    state.stack.remove(frame)
    activations.end_activation_of(state, frame.character)
    quest = content().quest(frame.quest)
    side = "neutral" if faction is None else faction
    ev.append(event("memory", f"{{0}} makes the {quest.name} Quest a {side} Memory on space "
                    f"{action.slot}.", seat, card=card))
    tell(state, "memory", f"{quest.name} becomes a {side} Memory.", None,
         card=card if faction is not None else None, side=faction)
    tell(state, "memory", action.text, seat)
    if state.options.power and result == frame.faction:
        powers.grant(state, frame, action.slot, ev, carrier)
    else:
        epilogue.check(state, ev)


def ruling_link(state: WinterState, made: bool) -> bool:
    """The Arbiter's ruling on the Bookmark link of the Ongoing Quest."""
    q = ongoing_frame(state)
    if q is None or q.result is not None:
        return False
    q.link_ok = made
    return True


flow.register("quest", flow.Handler(quest_to_act, quest_legal, quest_act, quest_auto))  # type: ignore[arg-type]
