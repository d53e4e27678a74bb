"""Winter Tales buttons and selects (pure: no discord import).

Winter Tales has secret hands, so the PUBLIC turn message never carries a choice built
from a hand: it has a "Take your turn" button (each clicker gets their own private
panel) and a "Tell" button (a modal for a long passage). Everything else is shown
only to the seat whose choice it is: in their DM hand message, in ``/winter hand`` and
in the private panel, all built by :meth:`WinterUI.panels` from the seat's OWN view and
legal actions.

Codes (they travel in custom_ids; private panels are only ever sent to their seat,
and the table version in the custom_id pins the legal list they index):

===============  ===========================================================
``turn``         public: open my private panel
``tell``         open the narration modal (anyone seated; a Tell part when due)
``hand``         show my hand ephemerally
``a<i>``         play legal action number ``i`` of the clicker's legal list
``k<kind>``      the actions of one kind (a follow-up menu)
``g<kind>.<j>``  group ``j`` of a kind too big for one menu (a follow-up)
===============  ===========================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from bot.core.choices.adapter import Choice, GameUI, Menu, Resolution, UnknownChoice, waiting_line
from engines.core import Action, View
from engines.winter_tales.content import printed_name, verb

__all__ = ["TEXT_KINDS", "WinterUI", "action_label", "card_number", "decision_prompt",
           "hand_text", "thing_name"]

TEXT_KINDS = frozenset({"play_card", "tell", "use_artefact"})
"""Actions told with a sentence: a button for one opens the narration modal first."""

MAX_BUTTONS = 20
"""Up to this many legal actions show as plain buttons (4 rows; the 5th row is Tell)."""

_KIND_WORDS = {
    "choose_character": "Choose a character",
    "place_quest": "Place a Quest counter",
    "tell": "Tell",
    "activate": "Activate a character",
    "move": "Move",
    "generate_quest": "Generate a Quest",
    "start_quest": "Start a Quest",
    "take_part": "Take part",
    "save": "Save a character",
    "done": "Done",
    "pass": "Pass",
    "discard": "Discard",
    "play_card": "Play a Story card",
    "use_artefact": "Use the Great Artefact",
    "free_round": "Free round",
    "battle": "Start a Battle",
    "trap": "Spring a Trap",
    "hide_card": "Hide a card (Trap)",
    "relocate": "Relocate",
    "step_in": "Step in",
    "choose_memory": "Choose the Memory card",
    "assign_power": "Assign the Power",
    "use_power": "Use a Power",
    "pass_artefact": "Pass the Great Artefact",
    "return_tale": "The Fairy Tale returns",
    "complete_objective": "Complete an Objective",
    "attack_objective": "The Attack",
    "swap_objective": "Swap your Objective",
    "move_bookmark": "Move the Bookmark",
}

_SIDE = {"spring": "🌸 Spring", "winter": "❄️ Winter"}
_SIDE_WORD = _SIDE


def _content() -> Any:
    from engines.winter_tales.content import load_content

    return load_content()


def thing_name(ident: str | None) -> str:
    """The printed name of a character, space, Story card, Objective or Quest counter."""
    return printed_name(ident)


def _card(card: str, side: str | None = None) -> str:
    name = thing_name(card)
    if side is None:
        return name
    try:
        caption = _content().story_card(card).side(side).caption
    except (KeyError, ValueError, AttributeError):
        caption = ""
    return f"{name} ({_SIDE.get(side, side)}: {caption})" if caption else f"{name} ({side})"


def _top_frame(view: View | None) -> dict[str, Any]:
    stack = getattr(view, "stack", None) or []
    return stack[-1] if stack else {}


def action_label(action: Action, view: View | None = None) -> str:
    """A short button label for a Winter Tales action (names, never ids)."""
    a: Any = action
    kind = getattr(a, "kind", "")
    frame = _top_frame(view)
    if kind == "choose_character":
        return f"{thing_name(a.character)} in {thing_name(a.space)}"
    if kind == "place_quest":
        return f"{thing_name(a.counter)} → {thing_name(a.target)}"
    if kind == "tell":
        return "Tell this part of the story"
    if kind == "activate":
        return f"Activate {thing_name(a.character)}"
    if kind == "move":
        text = f"Move to {thing_name(a.to)}"
        if a.card:
            text += f", discarding {thing_name(a.card)}"
        return text + (" (with partner)" if a.partner else "")
    if kind == "generate_quest":
        return f"Generate {thing_name(a.counter)} at {thing_name(a.target)}"
    if kind == "start_quest":
        return f"Start the Quest {thing_name(a.counter)}"
    if kind == "take_part":
        return "Take part in the Quest"
    if kind == "save":
        return f"Save {thing_name(a.target)} with {thing_name(a.savior)}"
    if kind == "done":
        return "Done (end this part)"
    if kind == "pass":
        if frame.get("kind") == "interrupt":
            return "Let them pass"
        return "Pass"
    if kind == "discard":
        return f"Discard {thing_name(a.card)}"
    if kind == "play_card":
        return f"Play {_card(a.card, a.side)}"
    if kind == "use_artefact":
        return f"Use the Great Artefact ({thing_name(a.character)})"
    if kind == "free_round":
        return f"Free round ({thing_name(a.character)})"
    if kind == "battle":
        return f"Start a Battle with {thing_name(a.character)}"
    if kind == "trap":
        return f"Spring a Trap with {thing_name(a.character)}"
    if kind == "hide_card":
        return f"Hide {thing_name(a.card)}, {_SIDE.get(a.side, a.side)} up"
    if kind == "relocate":
        return f"Relocate to {thing_name(a.space)}"
    if kind == "step_in":
        return f"Step in with {thing_name(a.character)}"
    if kind == "choose_memory":
        return f"Memory: {thing_name(a.card)} (slot {a.slot + 1})"
    if kind == "assign_power":
        return f"Power to {thing_name(a.target)}"
    if kind == "use_power":
        target = f" on {thing_name(a.target)}" if a.target else ""
        space = f" at {thing_name(a.space)}" if a.space else ""
        return f"Use {thing_name(a.counter)}{target}{space}"
    if kind == "pass_artefact":
        return f"Pass the Great Artefact to {thing_name(a.character)}"
    if kind == "return_tale":
        returns = verb(a.character, "returns", "return")
        return f"{thing_name(a.character)} {returns} in {thing_name(a.space)}"
    if kind == "complete_objective":
        return f"Complete {thing_name(a.objective)} (slot {a.slot + 1})"
    if kind == "attack_objective":
        return f"The Attack: {thing_name(a.objective)}"
    if kind == "swap_objective":
        return f"Swap {thing_name(a.objective)} for {thing_name(a.new)}"
    if kind == "move_bookmark":
        return f"Move the Bookmark to Memory {a.slot + 1}"
    return kind.replace("_", " ").capitalize()


def decision_prompt(view: View | None, legal: Sequence[Action]) -> str:
    """One line saying what this seat is deciding right now."""
    if not legal:
        return "Nothing to decide right now."
    frame = _top_frame(view)
    kind = frame.get("kind", "")
    kinds = {getattr(a, "kind", "") for a in legal}
    if kind == "interrupt":
        what = "start a Battle" if frame.get("interrupt") == "battle" else "spring a Trap"
        enters = verb(frame.get("mover"), "enters", "enter")
        return (f"{thing_name(frame.get('mover'))} {enters} {thing_name(frame.get('space'))}: "
                f"you may {what}, or let them pass.")
    if kind == "discard" or (kinds == {"discard"}):
        return "Discard down to the hand limit: pick a card to discard."
    if kind == "trap" and "hide_card" in kinds:
        return "The Trap: hide cards under your character card (Spring or Winter side up)."
    if "choose_memory" in kinds:
        return "Choose the Memory card for the Memory Track."
    if kind == "offer" and frame.get("offer") == "objective":
        return "You may reveal and complete your Objective now."
    if kind == "battle":
        return "A Battle round: play a card for your side, or pass."
    if kind == "quest":
        return "A Quest is under way: your part."
    if kind == "epilogue":
        return "The Epilogue: tell your part and play your cards."
    if kind == "draft":
        return "Choose your character and where it starts."
    if kind == "tell":
        return "The rules ask you to tell this part of the story: use Tell."
    if kind == "activation":
        return ("Your activation: move (a Story card per 2 spaces), take one action, "
                "or end it with Done.")
    if kind == "turn":
        return "Your turn: activate a ready character."
    if kind == "pay":
        return "Pay the Story cards this costs."
    return "Your choice:"


def hand_text(info: Any, view: Any, legal: Sequence[Action], news: Sequence[str], *,
              live: bool = True) -> str:
    """The words of a seat's hand message (its own view only)."""
    seat = view.seat
    name = next((s.name for s in info.seats if s.index == seat), f"Seat {seat + 1}")
    faction = str(view.factions[seat]).capitalize()
    head = f"**Winter Tales — {name}'s hand** (table in <#{info.channel_id}>) · {faction}"
    if view.arbiter == seat:
        head += " · Story Arbiter"
    lines = [head]
    hand = view.hand or []
    limit = _content().setup.hand_limit
    lines.append(f"**Story cards ({len(hand)}/{limit}):**" if hand else "**No Story cards.**")
    for card in hand:
        lines.append(f"• {card_number(card.id)}**{card.title}** — "
                     f"{_SIDE_WORD['spring']}: {card.spring} · "
                     f"{_SIDE_WORD['winter']}: {card.winter}")
    mine = [o for o in view.objectives if o.seat == seat]
    for o in mine:
        state = "completed" if o.completed else "revealed" if o.revealed else "secret"
        places = ", ".join(_place(p) for p in o.locations)
        lines.append(f"**Objective ({state}):** {o.title}" + (f" — {places}" if places else ""))
    if view.trap_hidden:
        hidden = ", ".join(f"{_card_title(c)} ({s})" for c, s in view.trap_hidden)
        lines.append(f"**Hidden under your character (Trap):** {hidden}")
    # What a DM alert said (the X-card notice, a retell asked) must also be here: with
    # closed DMs this message, shown by /winter hand, is the only place it can be read.
    mine_hidden = [f"#{e.n}" for e in view.transcript if e.hidden and e.seat == seat]
    if mine_hidden:
        lines.append(f"**To retell:** your passage {', '.join(mine_hidden)} is hidden until "
                     "you tell it another way with `/winter retell`.")
    if view.arbiter == seat:
        others_hidden = [f"#{e.n}" for e in view.transcript if e.hidden and e.seat != seat]
        if others_hidden:
            lines.append(f"**Story Arbiter:** passage {', '.join(others_hidden)} is hidden "
                         "(the X-card, or a retell you asked) until its teller retells it.")
    if news:
        lines.append("**Latest:** " + " ".join(news[-3:]))
    if info.status.value == "finished":
        lines.append(f"**The story is over.** {info.outcome_text or ''}")
    elif info.status.value == "aborted":
        lines.append("**This table was closed.**")
    elif legal:
        lines.append(f"**Your move:** {decision_prompt(view, legal)}")
    else:
        lines.append(waiting_line(live, info.version))
    text = "\n".join(lines)
    return _clip(text, 2000)


def card_number(card_id: str) -> str:
    """``story_60`` -> ``#60 `` (the number printed on the hand picture), else empty."""
    tail = card_id.rsplit("_", 1)[-1]
    return f"#{int(tail)} " if tail.isdigit() else ""


def _place(space: str) -> str:
    try:
        return str(_content().map.space(space).name)
    except (KeyError, ValueError):
        return space


def _card_title(card: str) -> str:
    try:
        return str(_content().story_card(card).title)
    except (KeyError, ValueError):
        return card



class WinterUI(GameUI):
    game_id: ClassVar[str] = "winter-tales"
    text_kinds: ClassVar[frozenset[str]] = TEXT_KINDS
    unpinned_forms: ClassVar[frozenset[str]] = frozenset({"tell"})

    def label(self, action: Action, view: View | None = None) -> str:
        return action_label(action, view)

    # -- the hand message ----------------------------------------------------------

    def hand_text(self, info: Any, view: View, legal: Sequence[Action],
                  news: Sequence[str], *, live: bool = True) -> str:
        return hand_text(info, view, legal, news, live=live)

    def hand_menus(self, view: View, legal: Sequence[Action]) -> list[Menu]:
        return self.panels(view, legal)

    def hand_picture_key(self, view: View) -> Any:
        """The picture shows the Story cards and the seat's own Objectives only."""
        v: Any = view
        return [[c.id for c in v.hand or []],
                [o.model_dump(mode="json") for o in v.objectives if o.seat == v.seat]]

    def table_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``lines`` and ``veils`` may be written ``lines='no spiders; no gore'`` (``none``
        for no list); when left out the table uses the house lines and veils of the
        rulebook's safety section.

        >>> WinterUI().table_options({"power": True, "lines": "spiders; gore",
        ...                           "veils": "none"})
        {'power': True, 'lines': ['spiders', 'gore'], 'veils': []}
        """
        opts = dict(options)
        safety = _content().setup.safety
        for key, default in (("lines", safety.lines), ("veils", safety.veils)):
            opts[key] = _as_list(opts[key]) if key in opts else list(default)
        return opts

    def is_alert(self, line: str) -> bool:
        """The X-card notice to the Arbiter and a request to retell must be noticed."""
        notice = _content().setup.safety.x_card_private_notice[:40]
        return line.startswith((notice, "The Story Arbiter asks you to retell"))

    def form_title(self, code: str) -> str | None:
        """Tell, and every choice told with a sentence (``t<i>``), open a text form."""
        if code == "tell":
            return "Tell the story"
        if code.startswith("t") and code[1:].isdigit():
            return "Tell this moment of the story"
        return None

    def with_text(self, code: str, view: View, legal: Sequence[Action], text: str) -> Action:
        """The Tell form: the Tell part of the rules when one is due, else words added
        to the story out of turn (Golden Rule 1); any other code: its action, told."""
        if code == "tell":
            tell = next((a for a in legal if getattr(a, "kind", "") == "tell"), None)
            if tell is not None:
                return tell.model_copy(update={"text": text})
            from engines.winter_tales.state import Narrate

            return Narrate(text=text)
        if code.startswith("t") and code[1:].isdigit() and int(code[1:]) < len(legal):
            return legal[int(code[1:])].model_copy(update={"text": text})
        return super().with_text(code, view, legal, text)

    # -- public ----------------------------------------------------------------

    def public_menu(self, view: View, legal: Sequence[Action]) -> Menu | None:
        """Never a hand-based choice in public: the turn button and the Tell button."""
        return Menu(prompt="", choices=(
            Choice(self.turn_code, "Take your turn", style="primary", emoji="🎲"),
            Choice("tell", "Tell", style="secondary", emoji="✍️"),
        ))

    def turn_button_menu(self) -> Menu:
        return self.public_menu(None, [])  # type: ignore[arg-type]

    # -- private -----------------------------------------------------------------

    def panels(self, view: View, legal: Sequence[Action]) -> list[Menu]:
        """The seat's private components: at most 5 rows (buttons first, then selects).

        Up to :data:`MAX_BUTTONS` actions are plain buttons; more are grouped by kind,
        a kind with one action as a button, the others as selects (a kind past 25 as a
        select of groups). The last button row always has Tell.
        """
        tell = Choice("tell", "Tell", emoji="✍️")
        if not legal:
            return [Menu(prompt="", choices=(tell,))]
        indexed = list(enumerate(legal))
        if len(legal) <= MAX_BUTTONS:
            choices = [self._choice(i, a, view) for i, a in indexed]
            rows = [tuple(choices[k:k + 5]) for k in range(0, len(choices), 5)]
            if len(rows[-1]) < 5:
                rows[-1] = (*rows[-1], tell)
            else:
                rows.append((tell,))
            return [Menu(prompt="", choices=r) for r in rows]
        by_kind: dict[str, list[tuple[int, Action]]] = {}
        for i, a in indexed:
            by_kind.setdefault(getattr(a, "kind", ""), []).append((i, a))
        singles = [self._choice(items[0][0], items[0][1], view)
                   for items in by_kind.values() if len(items) == 1]
        multi = [k for k, items in by_kind.items() if len(items) > 1]
        buttons: list[Choice] = singles[:4]
        overflow = [k for k, items in by_kind.items() if len(items) == 1][4:]
        selects: list[Menu] = []
        room = 4
        for kind in multi[:room]:
            selects.append(self._kind_select(kind, by_kind[kind], view))
        rest = multi[room:] + overflow
        if rest:
            buttons += [Choice(f"k{k}", _KIND_WORDS.get(k, k), emoji="➕") for k in rest][
                : 4 - len(buttons)]
        menus = [Menu(prompt="", choices=(*buttons, tell))]
        return menus + selects

    def _choice(self, index: int, action: Action, view: View | None) -> Choice:
        kind = getattr(action, "kind", "")
        style = "secondary"
        emoji = None
        if kind in ("pass", "done"):
            style = "secondary"
        elif kind in ("play_card", "tell"):
            style, emoji = "primary", "✍️"
        elif kind in ("battle", "trap", "start_quest"):
            style = "danger" if kind != "start_quest" else "success"
        return Choice(_code(index, action), _clip(action_label(action, view), 80), style=style,
                      emoji=emoji)

    def _kind_select(self, kind: str, items: list[tuple[int, Action]], view: View) -> Menu:
        word = _KIND_WORDS.get(kind, kind)
        if len(items) <= 25:
            choices = tuple(Choice(_code(i, a), _clip(action_label(a, view), 100))
                            for i, a in items)
        else:
            groups = _groups(items)
            choices = tuple(Choice(f"g{kind}.{j}", _clip(label, 100))
                            for j, (label, _members) in enumerate(groups[:25]))
        return Menu(prompt="", choices=choices, as_select=True, placeholder=f"{word}…",
                    select_code=f"k{kind}")

    def private_menu(self, view: View, legal: Sequence[Action]) -> Menu:
        """A single menu (the generic paths); the Winter cog uses :meth:`panels`."""
        if not legal:
            return Menu(prompt="Nothing to decide right now.", choices=())
        if len(legal) <= 25:
            choices = tuple(Choice(_code(i, a), _clip(action_label(a, view), 100))
                            for i, a in enumerate(legal))
            return Menu(prompt=decision_prompt(view, legal), choices=choices,
                        as_select=len(choices) > 5)
        kinds: list[str] = []
        for a in legal:
            k = getattr(a, "kind", "")
            if k not in kinds:
                kinds.append(k)
        return Menu(prompt=decision_prompt(view, legal),
                    choices=tuple(Choice(f"k{k}", _KIND_WORDS.get(k, k)) for k in kinds[:25]),
                    as_select=len(kinds) > 5)

    # -- clicks ------------------------------------------------------------------

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        if code == "tell":
            return Resolution(form="Tell the story")
        if code[:1] in ("a", "t") and code[1:].isdigit():
            index = int(code[1:])
            if index < len(legal):
                action = legal[index]
                if getattr(action, "kind", "") in TEXT_KINDS:
                    return Resolution(form=_clip(action_label(action, view), 45))
                return Resolution(action=action,
                                  done_text=f"Done: {action_label(action, view)}.")
            raise UnknownChoice()
        if code.startswith("g") and "." in code:
            kind, _, j = code[1:].rpartition(".")
            items = [(i, a) for i, a in enumerate(legal) if getattr(a, "kind", "") == kind]
            groups = _groups(items)
            if not j.isdigit() or int(j) >= len(groups):
                raise UnknownChoice()
            label, members = groups[int(j)]
            choices = tuple(Choice(_code(i, a), _clip(action_label(a, view), 100))
                            for i, a in members)
            return Resolution(menu=Menu(prompt=f"{_KIND_WORDS.get(kind, kind)}: {label}",
                                        choices=choices, as_select=len(choices) > 5))
        if code.startswith("k"):
            kind = code[1:]
            items = [(i, a) for i, a in enumerate(legal) if getattr(a, "kind", "") == kind]
            if not items:
                raise UnknownChoice()
            if len(items) <= 25:
                choices = tuple(Choice(_code(i, a), _clip(action_label(a, view), 100))
                                for i, a in items)
            else:
                choices = tuple(Choice(f"g{kind}.{j}", _clip(label, 100))
                                for j, (label, _m) in enumerate(_groups(items)[:25]))
            return Resolution(menu=Menu(prompt=f"{_KIND_WORDS.get(kind, kind)}:",
                                        choices=choices, as_select=len(choices) > 5))
        raise UnknownChoice()


def _code(index: int, action: Action) -> str:
    """``a<i>`` plays legal action ``i``; ``t<i>`` opens the narration form for it first
    (a choice told with a sentence), so the click can open the form at once."""
    return f"{'t' if getattr(action, 'kind', '') in TEXT_KINDS else 'a'}{index}"


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value).strip()
    if text.lower() in ("", "none", "no", "false"):
        return []
    parts = text.replace("|", ";").split(";")
    return [p.strip() for p in parts if p.strip()]


def _groups(items: list[tuple[int, Action]]) -> list[tuple[str, list[tuple[int, Action]]]]:
    """Split a kind's actions on their first field that varies (a move by destination,
    a play by card), then into pages of 25."""
    if not items:
        return []
    fields = [f for f in type(items[0][1]).model_fields if f not in ("kind", "text")]
    key = next((f for f in fields
                if len({getattr(a, f, None) for _, a in items}) > 1), None)
    grouped: dict[Any, list[tuple[int, Action]]] = {}
    for i, a in items:
        grouped.setdefault(getattr(a, key, None) if key else None, []).append((i, a))
    out: list[tuple[str, list[tuple[int, Action]]]] = []
    for value, members in grouped.items():
        base = thing_name(value) if isinstance(value, str) else str(value)
        for page in range(0, len(members), 25):
            suffix = f" ({page // 25 + 1})" if len(members) > 25 else ""
            out.append((base + suffix, members[page:page + 25]))
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
