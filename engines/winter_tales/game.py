"""Winter Tales behind the engine contract: :class:`WinterTales`.

>>> from engines import get_game
>>> game = get_game("winter-tales")
>>> state = game.setup(4, game.Options(), seed=1)
>>> game.to_act(state) == [state.order[0]]
True
>>> sorted({a.kind for a in game.legal_actions(state, state.order[0])})
['choose_character']

Narration is free text: ``legal_actions`` lists actions with ``text=None`` and any action
may be sent with a ``text`` (at most 1800 characters) when the same action without text is
legal. Actions of :meth:`WinterTales.meta_actions` (the X-card, narration out of turn,
the Story Arbiter's rulings) are accepted from any seat at any time they are listed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Any

from engines.catalog import ConformanceCase, GameSpec, register
from engines.core import (
    Action,
    Game,
    GameOver,
    IllegalAction,
    NotYourTurn,
    Outcome,
    Rng,
    Seat,
)
from engines.winter_tales import (  # noqa: F401 - modules register their frame handlers
    arbiter,
    battles,
    chapters,
    epilogue,
    flow,
    objectives,
    powers,
    quests,
    saves,
    setup,
    traps,
    turn_powers,
)
from engines.winter_tales.common import Events, content
from engines.winter_tales.state import (
    MAX_TEXT,
    META_KINDS,
    CardFace,
    Entry,
    ObjectiveView,
    Pass,
    WinterAction,
    WinterOptions,
    WinterState,
    WinterView,
)
from engines.winter_tales.telling import moment, writer


def _plain(action: Action) -> Action:
    """The action without its narration (how legal actions are listed)."""
    if getattr(action, "text", None) is not None or getattr(action, "telling", None):
        return action.model_copy(update={"text": None, "telling": None})
    return action


def _check_telling(state: WinterState, seat: Seat, action: Action) -> None:
    """An AI seat's mark must be the storyteller's own passage for this very moment (the
    engine writes it again from the mark's seed): the memory it feeds stays true."""
    mark = getattr(action, "telling", None)
    if mark is None:
        return
    passage = writer.compose(state, seat, _plain(action), mark.seed)
    if passage is None or passage.text != getattr(action, "text", None) \
            or passage.mark != mark:
        raise IllegalAction("That passage is not the storyteller's for this moment.")


@cache
def face(card: str) -> CardFace:
    """The printed face of a Story card (built once per card: views share it read-only)."""
    c = content().story_card(card)
    return CardFace(id=c.id, title=c.title, image=c.image, spring=c.spring.caption,
                    winter=c.winter.caption)


def public_frame(frame: Any, seat: Seat | None) -> dict[str, Any]:
    """A frame of the decision stack as ``seat`` may see it (secrets left out)."""
    data = frame.model_dump()
    if frame.kind == "trap":
        data["hidden_count"] = len(frame.hidden)
        data["hidden"] = [list(h) for h in frame.hidden if h[2] == seat]
    if frame.kind in ("offer", "pay") and frame.seat != seat:
        data["objective"] = None
    return data


class WinterTales(Game[WinterState, Any]):
    id = "winter-tales"
    name = "Winter Tales"
    min_players = 3
    max_players = 7
    has_secrets = True
    Options = WinterOptions
    State = WinterState
    ViewType = WinterView
    ActionType = WinterAction

    # -- the contract -----------------------------------------------------------------

    def setup(self, players: int, options: WinterOptions, seed: int) -> WinterState:  # type: ignore[override]
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction("Winter Tales is for 3 to 7 players.")
        state = setup.new_game(players, options, seed)
        flow.advance(state, [])
        return state

    def to_act(self, state: WinterState) -> list[Seat]:
        return flow.to_act(state)

    def legal_actions(self, state: WinterState, seat: Seat) -> list[Action]:
        return flow.legal(state, seat)

    def meta_actions(self, state: WinterState, seat: Seat) -> list[Action]:
        return arbiter.meta_actions(state, seat)

    def may_act_out_of_turn(self, state: WinterState, seat: Seat) -> bool:
        return state.winner is None or bool(self.meta_actions(state, seat))

    def check(self, state: WinterState, seat: Seat, action: Action) -> None:
        text = getattr(action, "text", None)
        if text is not None and len(text) > MAX_TEXT:
            raise IllegalAction(f"That text is too long ({len(text)} characters; the most is "
                                f"{MAX_TEXT}). Split it into several tellings.")
        if not 0 <= seat < state.players:
            raise NotYourTurn("That seat is not at this table.")
        kind = getattr(action, "kind", "")
        if kind in META_KINDS:
            if state.winner is not None and kind not in arbiter.STORY_ONLY:
                raise GameOver("The game is over.")
            # Words added to the story are always welcome while the game runs: no need
            # to list every ruling the Arbiter could make (one per passage) to know.
            free = kind == "narrate" and state.winner is None
            if not free and _plain(action) not in self.meta_actions(state, seat):
                raise IllegalAction(self._meta_reason(state, seat, action))
            if kind in ("narrate", "retell") and not (text and text.strip()):
                raise IllegalAction("Write the passage to tell: it is empty.")
            _check_telling(state, seat, action)
            return
        if self.outcome(state) is not None:
            raise GameOver("The game is over.")
        if seat not in self.to_act(state):
            raise NotYourTurn("It is not your turn to decide.")
        if _plain(action) not in self.legal_actions(state, seat):
            raise IllegalAction(self.explain_illegal(state, seat, action))
        _check_telling(state, seat, action)

    @staticmethod
    def _ruling_reason(state: WinterState, action: Action) -> str:
        """Why one of the Arbiter's rulings cannot be made now, in the table's terms."""
        a: Any = action
        kind = a.kind
        entry = next((e for e in state.transcript if e.n == getattr(a, "entry", None)), None)
        if kind in ("ask_retell", "strike"):
            if entry is None:
                return f"There is no passage #{a.entry} in the story."
            if entry.struck:
                return f"Passage #{a.entry} is already struck."
            if kind == "strike":
                return (f"Passage #{a.entry} is a ruling, not a telling: it cannot be struck."
                        if entry.kind == "ruling" else
                        f"Passage #{a.entry} has no words to strike.")
            if entry.seat is None:
                return f"Passage #{a.entry} was told by nobody: there is no teller to ask."
            return f"Passage #{a.entry} is hidden already, waiting for its teller to retell it."
        if state.winner is not None:
            return "The story is over: only passages can still be retold or struck."
        if kind == "correct_count":
            return "Nothing is being counted now: a count can be corrected only during one."
        if kind == "correct_figure":
            fig = state.figures.get(getattr(a, "character", ""))
            if fig is None or not fig.in_play:
                return "That character is not in play."
            if (a.space, a.incapacitated) == (fig.space, fig.incapacitated):
                return "That character already stands there like that."
            return "There is no such space on the map."
        return "That ruling cannot be made now."

    def _meta_reason(self, state: WinterState, seat: Seat, action: Action) -> str:
        kind = action.kind  # type: ignore[attr-defined]
        if kind in ("ask_retell", "strike", "rule_bookmark", "correct_figure", "correct_count"):
            if seat != state.arbiter:
                return "Only the Story Arbiter can make that ruling."
            if kind == "rule_bookmark":
                return "There is no Ongoing Quest with a Bookmark to rule on."
            return self._ruling_reason(state, action)
        if kind == "x_card":
            return "There is no narration to raise the X-card against."
        if kind == "retell":
            return "You can only retell your own passages that are hidden."
        return "That is not possible right now."

    def explain_illegal(self, state: WinterState, seat: Seat, action: Action) -> str:
        legal = self.legal_actions(state, seat)
        kinds = {a.kind for a in legal}  # type: ignore[attr-defined]
        kind = getattr(action, "kind", "")
        card = getattr(action, "card", None)
        if card is not None and card != "deck" and card not in state.hands[seat] and kind in (
                "play_card", "discard", "hide_card", "move"):
            return "That Story card is not in your hand."
        if kind not in kinds:
            wanted = ", ".join(sorted(k.replace("_", " ") for k in kinds))
            return f"You cannot do that now. You may: {wanted}."
        if kind == "play_card":
            sides = sorted({a.side for a in legal if a.kind == "play_card"})  # type: ignore[attr-defined]
            return f"Here that card can only be played on the {' or '.join(sides)} side."
        if kind == "move":
            return "That move is not possible: pick a neighbouring space (and a card to discard" \
                   " when no movement is left)."
        return "That choice is not available right now."

    def _apply(self, state: WinterState, seat: Seat, action: Action) -> list[Any]:
        ev: Events = []
        if action.kind in META_KINDS:  # type: ignore[attr-defined]
            arbiter.apply_meta(state, seat, action, ev)
            return ev
        deed = moment.deed_of(state, seat, action)
        step = moment.step_of(state, action)
        lets_pass = moment.lets_pass(state, action)
        told = len(state.transcript)
        flow.act(state, seat, action, ev)
        if deed is not None:
            state.story.note_deed(*deed)
        mark = getattr(action, "telling", None)
        text = getattr(action, "text", None)
        # The walk in progress (public facts): the storyteller folds the untold steps into
        # the walker's next passage. A declined interrupt lets the walker go on.
        shown = bool(text) and any(e.text == text for e in state.transcript[told:])
        if shown:
            state.story.told(move=step is not None)
        if step is not None:
            state.story.step(*step, told=shown)
        elif not lets_pass and action.kind not in moment.QUIET:  # type: ignore[attr-defined]
            state.story.stop()
        if mark is not None and text:
            state.story.record(mark, text)
            for i in range(told, len(state.transcript)):
                if state.transcript[i].text == text:
                    # a new entry, not yet shared with any copy of the state
                    state.transcript[i] = state.transcript[i].model_copy(
                        update={"storyteller": True})
        return ev

    def outcome(self, state: WinterState) -> Outcome | None:
        if state.winner is None:
            return None
        final = state.final or {"spring": 0, "winter": 0}
        winners = [s for s in range(state.players) if state.factions[s] == state.winner]
        scores = {s: final.get(state.factions[s], 0) if state.factions[s] != "writer"
                  else (final["spring"] if final["spring"] == final["winter"] else 0)
                  for s in range(state.players)}
        if state.winner == "writer":
            reason = (f"The Epilogue ends in a draw ({final['spring']} to {final['winter']}): "
                      "the Writer wins.")
        elif final["spring"] == final["winter"]:
            reason = (f"The Epilogue ends in a tie ({final['spring']} to {final['winter']}): "
                      f"it goes to {state.winner.capitalize()}, the Faction that began it.")
        else:
            reason = (f"{state.winner.capitalize()} wins the Epilogue: Spring "
                      f"{final['spring']}, Winter {final['winter']}.")
        return Outcome(winners=winners, scores=scores, reason=reason)

    # -- what a seat sees ---------------------------------------------------------------

    def view(self, state: WinterState, seat: Seat | None) -> WinterView:
        top = state.stack[-1] if state.stack else None
        to_act = self.to_act(state)
        optional = [s for s in to_act if Pass() in self.legal_actions(state, s)]
        decision = "over" if state.winner is not None else (
            "" if top is None else top.kind + (f":{top.stage}" if hasattr(top, "stage") else "")
            + (f":{top.offer}" if top.kind == "offer" else ""))
        qf = quests.ongoing_frame(state)
        ep = next((f for f in state.stack if f.kind == "epilogue"), None)
        trap = next((f for f in state.stack if f.kind == "trap"), None)
        mine = (seat is not None and 0 <= seat < state.players)
        objectives_seen = [
            ObjectiveView(card=o.card, seat=o.seat, faction=o.faction,
                          title=content().objective_card(o.card).title,
                          kind=content().objective_card(o.card).kind,
                          locations=content().objective_card(o.card).locations,
                          revealed=o.revealed, achieved=o.achieved if o.seat == seat else False,
                          completed=o.completed)
            for o in state.objectives if o.seat == seat or o.revealed or o.completed
        ]
        transcript = [e.model_copy(update={"text": None}) if e.hidden else e
                      for e in state.transcript if not e.struck]
        return WinterView(
            seat=seat, players=state.players,
            phase=("over" if state.winner else "epilogue" if ep else
                   "setup" if state.chapter == 0 else "chapter"),
            chapter=state.chapter, length=state.length, factions=state.factions,
            order=state.order, arbiter=state.arbiter, acting=state.acting, to_act=to_act,
            optional=optional, decision=decision,
            figures=[f.model_copy() for f in state.figures.values()],
            quests=[q.model_copy() for q in state.quests], ongoing=state.ongoing,
            ongoing_count=quests.totals(state, qf) if qf is not None else None,
            memories=[m.model_copy() for m in state.memories], bookmark=state.bookmark,
            epilogue_space=content().setup.epilogue_space(state.length),
            powers=[p.model_copy() for p in state.powers],
            hand=[face(c) for c in state.hands[seat]] if mine else None,  # type: ignore[index]
            hand_counts=[len(h) for h in state.hands],
            deck_count=len(state.deck), discard_count=len(state.discard),
            objectives=objectives_seen,
            objective_counts=[sum(1 for o in state.objectives if o.seat == s and not o.completed)
                              for s in range(state.players)],
            trap_hidden=([(c, side) for c, side, who in trap.hidden if who == seat]
                         if trap is not None and mine else None),
            trap_hidden_count=len(trap.hidden) if trap is not None else None,
            epilogue_count=({f: ep.cards[f] + ep.adjust[f] for f in ("spring", "winter")}
                            if ep is not None else None),
            writer_limit=ep.writer_limit if ep is not None else None,
            lines=state.options.lines, veils=state.options.veils,
            transcript=transcript, winner=state.winner, final=state.final,
            stack=[public_frame(f, seat) for f in state.stack],
        )

    # The story is the journal: the table row holds the rest of the state, and each move
    # stores only the passages it added or replaced (600 narrations made a 1.1 MB state
    # rewritten on every commit).
    journaled = True

    def dump_body(self, state: WinterState) -> str:
        return state.model_dump_json(exclude={"transcript"})

    def journal_changes(self, before: WinterState | None, after: WinterState
                        ) -> list[tuple[int, str]]:
        # Entries are replaced, never changed in place (arbiter._update), and copies of
        # a state share them (copy_state): an entry is new exactly when it is not the
        # very object the stored state held at its place.
        old = before.transcript if before is not None else []
        return [(i, e.model_dump_json()) for i, e in enumerate(after.transcript)
                if i >= len(old) or old[i] is not e]

    def load_stored(self, body: str | bytes, journal: Sequence[str] = ()) -> WinterState:
        state = WinterState.model_validate_json(body)
        if journal:
            state.transcript = [Entry.model_validate_json(j) for j in journal]
        return state

    def copy_state(self, state: WinterState) -> WinterState:
        # A JSON round trip is about three times faster than a pydantic deep copy here. The
        # transcript, most of the state late in a game, is left out of it and shared: its
        # entries are never changed in place (the Arbiter replaces them, see arbiter._update)
        # and only ever appended, so the copy gets its own list of the same entries.
        data = state.model_dump_json(exclude={"transcript"})
        copy = WinterState.model_validate_json(data)
        copy.transcript = list(state.transcript)
        return copy

    def determinize(self, state: WinterState, seat: Seat | None, rng: Rng) -> WinterState:
        s = self.copy_state(state)
        others = [p for p in range(s.players) if p != seat]
        # Story cards: the deck, other hands and other players' hidden Trap cards.
        trap = next((f for f in s.stack if f.kind == "trap"), None)
        hidden_idx = [i for i, (_, _, who) in enumerate(trap.hidden)
                      if who != seat] if trap is not None else []
        pool = list(s.deck) + [c for p in others for c in s.hands[p]]
        pool += [trap.hidden[i][0] for i in hidden_idx] if trap is not None else []
        # one draw from the game's Rng seeds a C-speed shuffle (determinize runs once per
        # seat per ply in searches and the conformance suite; the pure-Python Fisher-Yates
        # was a tenth of its time). Still reproducible from ``rng``.
        random.Random(rng.next_u64()).shuffle(pool)
        deck_n = len(s.deck)
        s.deck, pool = pool[:deck_n], pool[deck_n:]
        for p in others:
            n = len(s.hands[p])
            s.hands[p], pool = pool[:n], pool[n:]
        if trap is not None:
            for i in hidden_idx:
                _, _, who = trap.hidden[i]
                side = "spring" if rng.randrange(2) else "winter"
                trap.hidden[i] = (pool.pop(), side, who)
        # Objectives: every unrevealed Objective of another player, and the Objective deck.
        for faction in ("spring", "winter"):
            secret = [o for o in s.objectives if o.seat != seat and o.faction == faction
                      and not o.revealed and not o.completed and not o.achieved]
            deck = [c for c in s.objective_deck
                    if content().objective_type(content().objective_card(c).kind).faction
                    == faction]
            cards = [o.card for o in secret] + deck
            random.Random(rng.next_u64()).shuffle(cards)
            for o in secret:
                o.card = cards.pop()
            s.objective_deck = [c for c in s.objective_deck if c not in deck] + cards
        return s


register(GameSpec(
    engine=WinterTales,
    agents="engines.agents.winter_tales",
    board="renderers.winter_tales:render",
    private_picture="renderers.winter_hand:render",
    text_board="renderers.text_winter:winter_tales_board",
    ui="bot.core.choices.winter_tales:WinterUI",
    cog="bot.messages.cogs.winter",
    rules="rules/winter_tales.json",
    # Every player count (3-7) with every combination of the three modules (Power,
    # Objective, Skill): 40 games, one seed each, since a game is hundreds of plies, each
    # checked for every seat. The Epilogue Bookmark rule and a 4-Memory game ride along.
    conformance=tuple(
        ConformanceCase(p, {"power": pw, "objective": ob, "skill": sk,
                            **({"epilogue_bookmark": True} if (p + pw + ob + sk) % 3 == 0
                               else {}),
                            **({"memories": 4} if p == 4 and not ob else {})},
                        seeds=1, max_plies=8000)
        for p in (3, 4, 5, 6, 7)
        for pw in (False, True) for ob in (False, True) for sk in (False, True)),
    # What the board picture shows: a told passage or a card played is news, not a board.
    board_fields=("figures", "quests", "ongoing", "memories", "bookmark", "powers",
                  "chapter", "phase", "winner", "epilogue_count"),
    interrupt_timeout=300.0,
    team_play=True,
))
