"""Winter Tales content: the board, characters, Quests, Objectives and Story cards as data.

Everything the rules refer to by name lives in ``data/winter_tales/*.json`` and is validated
here on load; the engine never holds content literals. Each file carries an ``_about`` block
saying which parts come from the rulebook and which are the project's own design (all card
texts and image concepts are the project's own writing).

>>> c = load_content()
>>> len(c.story_cards), len(c.neutral_cards), len(c.objective_cards)
(93, 3, 14)
>>> c.map.statue_square.name
'Statue Square'
>>> c.map.distance("fair_of_wonders", "mad_hatter_asylum")
2
>>> c.setup.share(5).writer_fairy_tales, c.setup.writer_hand(5)
(1, 2)
>>> c.character("pinocchio").skill
'trap'
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "winter_tales"

Faction = Literal["spring", "winter"]
"""A side of the war. Characters, Quest counters, Objectives and Memories belong to one."""

PlayerFaction = Literal["spring", "winter", "writer"]
"""A player's Faction counter; the Writer controls characters of both sides."""

SkillKind = Literal["objective", "quest", "trap", "battle", "save", "move", "draw"]
QuestId = Literal[
    "a_new_hope",
    "love_that_melts_the_snow",
    "the_safe_house",
    "the_great_artefact",
    "freezing_horror",
    "winter_propaganda",
    "armed_retaliation",
]
ObjectiveKind = Literal["reward", "spy", "attack", "garrison", "rescue", "resistance", "connection"]


class ContentError(ValueError):
    """A data file is inconsistent (unknown id, duplicate, broken map...)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class About(_Model):
    """Provenance of a data file: what the rulebook gives and what the project designed."""

    from_the_rulebook: list[str]
    project_design: list[str]
    notes: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------- map


class Space(_Model):
    """A Location or a Square of Wintertown.

    Locations hold at most one Quest counter (main slot) and one Power counter (power slot);
    Squares hold neither (rulebook, Locations and Squares). Coordinates are 0..1 for drawing.
    """

    id: str
    name: str
    kind: Literal["location", "square"]
    x: float = Field(ge=0.0, le=1.0)
    y: float = Field(ge=0.0, le=1.0)
    statue: bool = False
    from_rulebook: bool
    description: str = Field(min_length=1)

    @property
    def is_location(self) -> bool:
        return self.kind == "location"

    @property
    def has_quest_slot(self) -> bool:
        return self.kind == "location"

    @property
    def has_power_slot(self) -> bool:
        return self.kind == "location"

    def __repr__(self) -> str:
        return f"<Space {self.id} {self.kind}>"


class MapData(_Model):
    """The board graph: spaces and undirected streets between them.

    >>> m = load_content().map
    >>> len(m.locations), len(m.squares)
    (8, 12)
    >>> sorted(m.neighbours("oaks_park"))
    ['lantern_square', 'mourners_square']
    """

    about: About = Field(alias="_about")
    spaces_per_card: int = Field(ge=1)
    spaces: list[Space]
    edges: list[tuple[str, str]]

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _check(self) -> MapData:
        ids = [s.id for s in self.spaces]
        if len(set(ids)) != len(ids):
            raise ContentError("map: duplicate space id")
        known = set(ids)
        seen: set[frozenset[str]] = set()
        for a, b in self.edges:
            if a not in known or b not in known:
                raise ContentError(f"map: edge {a}-{b} names an unknown space")
            if a == b:
                raise ContentError(f"map: edge {a}-{b} is a loop")
            key = frozenset((a, b))
            if key in seen:
                raise ContentError(f"map: edge {a}-{b} listed twice")
            seen.add(key)
        if sum(1 for s in self.spaces if s.statue) != 1:
            raise ContentError("map: exactly one space must be the statue Square")
        if any(s.statue and s.kind != "square" for s in self.spaces):
            raise ContentError("map: the statue space is a Square")
        if not self.is_connected():
            raise ContentError("map: every space must be reachable from every other")
        return self

    @cached_property
    def _by_id(self) -> dict[str, Space]:
        return {s.id: s for s in self.spaces}

    @cached_property
    def _adjacency(self) -> dict[str, frozenset[str]]:
        adj: dict[str, set[str]] = {s.id: set() for s in self.spaces}
        for a, b in self.edges:
            adj[a].add(b)
            adj[b].add(a)
        return {k: frozenset(v) for k, v in adj.items()}

    def space(self, space_id: str) -> Space:
        try:
            return self._by_id[space_id]
        except KeyError:
            raise ContentError(f"no space called {space_id!r} on the map") from None

    def __contains__(self, space_id: object) -> bool:
        return space_id in self._by_id

    @property
    def locations(self) -> list[Space]:
        return [s for s in self.spaces if s.kind == "location"]

    @property
    def squares(self) -> list[Space]:
        return [s for s in self.spaces if s.kind == "square"]

    @property
    def statue_square(self) -> Space:
        return next(s for s in self.spaces if s.statue)

    def neighbours(self, space_id: str) -> frozenset[str]:
        """Spaces one step away along a street."""
        self.space(space_id)
        return self._adjacency[space_id]

    def distances_from(self, space_id: str) -> dict[str, int]:
        """Steps from ``space_id`` to every space (breadth-first search)."""
        self.space(space_id)
        dist = {space_id: 0}
        queue = deque([space_id])
        while queue:
            here = queue.popleft()
            for nxt in self._adjacency[here]:
                if nxt not in dist:
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        return dist

    def distance(self, a: str, b: str) -> int:
        """Fewest steps between two spaces."""
        return self.distances_from(a)[b]

    def cards_to_reach(self, a: str, b: str, spaces_per_card: int | None = None) -> int:
        """Story cards discarded to move from ``a`` to ``b`` along a shortest path.

        >>> load_content().map.cards_to_reach("memory_lane_cemetery", "nightmares_factory")
        3
        """
        per = spaces_per_card or self.spaces_per_card
        return -(-self.distance(a, b) // per)

    def shortest_path(self, a: str, b: str) -> list[str]:
        """One shortest path from ``a`` to ``b``, both ends included (deterministic)."""
        self.space(a)
        self.space(b)
        prev: dict[str, str | None] = {a: None}
        queue = deque([a])
        while queue:
            here = queue.popleft()
            if here == b:
                break
            for nxt in sorted(self._adjacency[here]):
                if nxt not in prev:
                    prev[nxt] = here
                    queue.append(nxt)
        path = [b]
        while (p := prev[path[-1]]) is not None:
            path.append(p)
        return path[::-1]

    def is_connected(self) -> bool:
        if not self.spaces:
            return False
        adj: dict[str, set[str]] = {s.id: set() for s in self.spaces}
        for a, b in self.edges:
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
        start = self.spaces[0].id
        seen = {start}
        queue = deque([start])
        while queue:
            for nxt in adj[queue.popleft()]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return len(seen) == len(self.spaces)


# --------------------------------------------------------------------------- characters


class Skill(_Model):
    """A Skill Module skill, shared by one Fairy Tale and one Soldier.

    Structured fields say what the engine applies; ``text`` is the project's restatement.
    """

    kind: SkillKind
    name: str
    source: Literal["rulebook", "project"]
    text: str = Field(min_length=1)
    requires_module: Literal["objective"] | None = None
    # quest/trap/battle: added to the character's side in that count
    count_bonus: int = 0
    # save: Story cards a Save costs when this character performs it
    save_cost: int | None = None
    # move: spaces moved per discarded Story card
    spaces_per_card: int | None = None
    # draw: extra Story cards drawn when the character is activated
    extra_draw: int = 0


class Character(_Model):
    id: str
    name: str
    plural: bool = False
    """The name stands for more than one figure (the Fox and the Cat): verbs agree."""
    faction: Faction
    title: str | None = None
    skill: SkillKind
    description: str = Field(min_length=1)
    skill_flavour: str = Field(min_length=1)

    def __repr__(self) -> str:
        return f"<Character {self.id} {self.faction}>"


class CharactersFile(_Model):
    about: About = Field(alias="_about")
    skills: list[Skill]
    characters: list[Character]

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- setup


class CharacterShare(_Model):
    """One row of the rulebook's character table: who controls how many characters."""

    players: int = Field(ge=3, le=7)
    spring_players: int
    winter_players: int
    writer: bool
    each_spring_player: int
    each_winter_player: int
    writer_fairy_tales: int
    writer_soldiers: int
    unused_fairy_tales: int
    unused_soldiers: int
    from_rulebook: bool = True
    note: str | None = None


class GameLength(_Model):
    min_memories: int
    max_memories: int
    default_memories: int
    min_memories_with_objective_module: int


class Safety(_Model):
    """Table-safety defaults offered at table creation (project design)."""

    lines: list[str]
    veils: list[str]
    x_card: str
    x_card_private_notice: str
    lines_and_veils_intro: str


class SetupData(_Model):
    about: About = Field(alias="_about")
    min_players: int
    max_players: int
    character_table: list[CharacterShare]
    opening_hand: int
    writer_hand_rule: Literal["players_in_one_faction"]
    activation_draw: int
    end_of_chapter_draw: int
    writer_end_of_chapter_draw_rule: Literal["players_in_one_faction"]
    hand_limit: int
    spaces_per_card: int
    save_cost: int
    game_length: GameLength
    epilogue_tile_offset: int
    memory_value: int
    writer_epilogue_divisor: int
    quest_counters_per_faction: int
    starting_quests_per_faction: int
    objectives_per_player: int
    writer_objectives: int
    fairy_tale_start: Literal["location"]
    soldier_start: Literal["square"]
    start_space_must_be_empty: bool
    reshuffle_discards_when_deck_empty: bool
    the_fairy_tale_returns_cost: int
    activations_per_chapter: int
    battle_spaces: Literal["location_or_square"]
    trap_spaces: Literal["location"]
    traps_per_soldier_entry: int
    epilogue_tie_winner: Literal["epilogue_starter_faction_unless_writer"]
    safety: Safety

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def share(self, players: int) -> CharacterShare:
        """The character-table row for a player count (3..7)."""
        for row in self.character_table:
            if row.players == players:
                return row
        raise ContentError(f"Winter Tales is for 3 to 7 players, not {players}")

    def writer_hand(self, players: int) -> int:
        """Cards the Writer draws at setup and at the End of Chapter: players in one Faction."""
        return self.share(players).spring_players

    def epilogue_space(self, memories: int) -> int:
        """Memory Track space (1-based) where the Epilogue tile goes for a game length."""
        return memories + self.epilogue_tile_offset

    def writer_epilogue_limit(self, hand_size: int) -> int:
        """Most cards the Writer may play in the Epilogue: half the hand, rounded down."""
        return hand_size // self.writer_epilogue_divisor


# --------------------------------------------------------------------------- quests


class QuestCounter(_Model):
    id: str
    quest: QuestId
    faction: Faction


PowerKind = Literal[
    "extra_activation",
    "united_pair",
    "safe_haven",
    "artefact_memory",
    "roaming_horror",
    "exhaust_fairy_tale",
    "destroy",
]


class Power(_Model):
    """A Power Module power, granted when its Quest succeeds for the counter's Faction.

    Only the fields that matter for ``kind`` are set; ``text`` restates the rulebook.
    """

    kind: PowerKind
    counters: int = Field(ge=0)
    counter_placement: Literal[
        "fairy_tale_card",
        "two_fairy_tale_cards",
        "location_power_space",
        "participant_character_card",
        "any_location_power_space_on_use",
        "none",
    ]
    text: str = Field(min_length=1)
    # when it can be used
    usage: Literal[
        "once_per_chapter",
        "always_on",
        "when_played_in_quest_or_battle",
        "when_no_ready_soldier",
        "soldier_activation",
        "once_on_completion",
    ]
    # extra_activation
    extra_activations_per_chapter: int = 0
    # united_pair
    free_companion_move: bool = False
    companion_moves_while_incapacitated: bool = False
    shared_battles_and_traps: bool = False
    # safe_haven
    battle_loss_relocates_here: bool = False
    forbids_here: list[str] = Field(default_factory=list)
    # artefact_memory / roaming_horror
    memory_counts_as_card: bool = False
    memory_stays_on_track: bool = False
    memory_first_battle_card: bool = False
    transferable_in_same_space: bool = False
    starts_battle_in_location: bool = False
    # exhaust_fairy_tale
    target_must_be_ready: bool = False
    # destroy
    targets: list[Literal["fairy_tale", "spring_power"]] = Field(default_factory=list)
    power_on_target_is_destroyed_first: bool = False
    destroyed_power_flips_memory: bool = False
    return_cost_cards: int = 0
    returned_character_activated: bool = False


class Quest(_Model):
    id: QuestId
    name: str
    factions: list[Faction]
    placement: Literal["any_location", "under_fairy_tale"]
    placement_target: Literal["fairy_tale_of_choice", "target_fairy_tale"] | None = None
    moves_with_figure: bool = False
    placement_text: str = Field(min_length=1)
    objective_text: str = Field(min_length=1)
    power: Power


class QuestsFile(_Model):
    about: About = Field(alias="_about")
    counters: list[QuestCounter]
    quests: list[Quest]
    one_quest_counter_per_location: bool
    each_counter_once_per_game: bool

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- objectives


class ObjectiveType(_Model):
    """One kind of Objective card, with its condition as checkable data."""

    kind: ObjectiveKind
    name: str
    faction: Faction
    copies: int = Field(ge=1)
    locations_named: int = Field(ge=0, le=2)
    trigger: Literal[
        "battle_incapacitates_fairy_tale",
        "fairy_tale_moves_through_soldier_space",
        "discard_in_location",
        "soldiers_hold_more_locations",
        "save_on_fairy_tale",
        "trap_incapacitates_soldier",
        "fairy_tale_visits_locations",
    ]
    # how many distinct Fairy Tales (spy) / Story cards discarded (attack) are needed
    count: int = 1
    reveal_on_progress: bool = False
    same_activation: bool = False
    condition_text: str = Field(min_length=1)
    themes_text: str = Field(min_length=1)


class ObjectiveCard(_Model):
    id: str
    kind: ObjectiveKind
    title: str = Field(min_length=1)
    locations: list[str] = Field(default_factory=list)
    flavour: str = Field(min_length=1)


class ObjectivesFile(_Model):
    about: About = Field(alias="_about")
    types: list[ObjectiveType]
    cards: list[ObjectiveCard]

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- story cards


class StorySide(_Model):
    """One coloured side of a Story card: captions suggesting uses for that Faction."""

    captions: list[str] = Field(min_length=1)

    @property
    def caption(self) -> str:
        """The main caption (printed first)."""
        return self.captions[0]


class StoryCard(_Model):
    """A Story card: one image, shown on a Spring side and a Winter side."""

    id: str
    title: str = Field(min_length=1)
    image: str = Field(min_length=1)
    spring: StorySide
    winter: StorySide

    def side(self, faction: Faction) -> StorySide:
        return self.spring if faction == "spring" else self.winter

    def __repr__(self) -> str:
        return f"<StoryCard {self.id} {self.title!r}>"


class NeutralCard(_Model):
    """A neutral Memory card (no image): marks a Quest that ended in a draw."""

    id: str
    name: str
    note: str


class StoryFile(_Model):
    about: About = Field(alias="_about")
    cards: list[StoryCard]
    neutral_cards: list[NeutralCard]
    neutral_cards_limit_play: bool

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- memory track


class TrackSpace(_Model):
    index: int = Field(ge=1)
    objective_icon: bool


class MemoryTrack(_Model):
    about: About = Field(alias="_about")
    spaces: list[TrackSpace]
    epilogue_space: int
    default_epilogue_space: int
    quest_memory_goes_to: Literal["first_free_space"]
    objective_memories_only_on_icon: bool
    quest_may_overwrite_objective_memory: bool
    quest_memory_may_be_overwritten: bool
    bookmark_moves_to_new_quest_memory: bool
    bookmark_moves_to_new_objective_memory: bool
    bookmark_link_required_to_start_quest: bool
    missing_bookmark_link_fails_quest: bool
    draw_memory: Literal["neutral_card"]
    draw_memory_chooser: Literal["writer_else_acting_player"]
    memory_chooser: Literal["most_cards_in_winning_faction"]
    epilogue_bookmark_optional_rule: bool

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @property
    def objective_spaces(self) -> list[int]:
        return [s.index for s in self.spaces if s.objective_icon]


# --------------------------------------------------------------------------- all content


class WinterContent(_Model):
    """All Winter Tales content, cross-checked. Get it with :func:`load_content`."""

    map: MapData
    characters_file: CharactersFile
    setup: SetupData
    quests_file: QuestsFile
    objectives_file: ObjectivesFile
    story: StoryFile
    memory_track: MemoryTrack

    @model_validator(mode="after")
    def _cross_check(self) -> WinterContent:
        _unique("skill kind", (s.kind for s in self.characters_file.skills))
        _unique("character id", (c.id for c in self.characters))
        _unique("quest id", (q.id for q in self.quests))
        _unique("quest counter id", (c.id for c in self.quest_counters))
        _unique("objective kind", (t.kind for t in self.objective_types))
        _unique("objective card id", (c.id for c in self.objective_cards))
        _unique(
            "story/neutral card id",
            [c.id for c in self.story_cards] + [n.id for n in self.neutral_cards],
        )
        _unique("story card image", (c.image.lower() for c in self.story_cards))
        _unique("story card title", (c.title.lower() for c in self.story_cards))
        skills = {s.kind for s in self.characters_file.skills}
        for ch in self.characters:
            if ch.skill not in skills:
                raise ContentError(f"character {ch.id}: unknown skill {ch.skill}")
        quests = {q.id: q for q in self.quests}
        for counter in self.quest_counters:
            q = quests.get(counter.quest)
            if q is None or counter.faction not in q.factions:
                raise ContentError(f"quest counter {counter.id} does not match its Quest")
        types = {t.kind: t for t in self.objective_types}
        locations = {s.id for s in self.map.locations}
        for card in self.objective_cards:
            t = types.get(card.kind)
            if t is None:
                raise ContentError(f"objective {card.id}: unknown kind {card.kind}")
            if len(card.locations) != t.locations_named:
                raise ContentError(f"objective {card.id}: needs {t.locations_named} Location(s)")
            if len(set(card.locations)) != len(card.locations):
                raise ContentError(f"objective {card.id}: names the same Location twice")
            for loc in card.locations:
                if loc not in locations:
                    raise ContentError(f"objective {card.id}: {loc!r} is not a Location")
        for t in self.objective_types:
            n = sum(1 for c in self.objective_cards if c.kind == t.kind)
            if n != t.copies:
                raise ContentError(f"objective {t.kind}: {n} cards, expected {t.copies}")
        for q in self.quests:
            for forbidden in q.power.forbids_here:
                if forbidden not in quests:
                    raise ContentError(f"power of {q.id} forbids unknown {forbidden!r}")
        if self.setup.spaces_per_card != self.map.spaces_per_card:
            raise ContentError("setup and map disagree on spaces moved per Story card")
        return self

    # convenient views ------------------------------------------------------------------

    @property
    def characters(self) -> list[Character]:
        return self.characters_file.characters

    @property
    def skills(self) -> list[Skill]:
        return self.characters_file.skills

    @property
    def quests(self) -> list[Quest]:
        return self.quests_file.quests

    @property
    def quest_counters(self) -> list[QuestCounter]:
        return self.quests_file.counters

    @property
    def objective_types(self) -> list[ObjectiveType]:
        return self.objectives_file.types

    @property
    def objective_cards(self) -> list[ObjectiveCard]:
        return self.objectives_file.cards

    @property
    def story_cards(self) -> list[StoryCard]:
        return self.story.cards

    @property
    def neutral_cards(self) -> list[NeutralCard]:
        return self.story.neutral_cards

    @cached_property
    def _index(self) -> dict[str, dict[str, BaseModel]]:
        return {
            "character": {c.id: c for c in self.characters},
            "skill": {s.kind: s for s in self.skills},
            "quest": {q.id: q for q in self.quests},
            "counter": {c.id: c for c in self.quest_counters},
            "objective_type": {t.kind: t for t in self.objective_types},
            "objective": {c.id: c for c in self.objective_cards},
            "story": {c.id: c for c in self.story_cards},
            "neutral": {c.id: c for c in self.neutral_cards},
        }

    def _get(self, table: str, key: str) -> BaseModel:
        try:
            return self._index[table][key]
        except KeyError:
            raise ContentError(f"no {table.replace('_', ' ')} called {key!r}") from None

    def character(self, character_id: str) -> Character:
        return self._get("character", character_id)  # type: ignore[return-value]

    def skill(self, kind: str) -> Skill:
        return self._get("skill", kind)  # type: ignore[return-value]

    def skill_of(self, character_id: str) -> Skill:
        return self.skill(self.character(character_id).skill)

    def characters_of(self, faction: Faction) -> list[Character]:
        return [c for c in self.characters if c.faction == faction]

    def quest(self, quest_id: str) -> Quest:
        return self._get("quest", quest_id)  # type: ignore[return-value]

    def quest_counter(self, counter_id: str) -> QuestCounter:
        return self._get("counter", counter_id)  # type: ignore[return-value]

    def counters_of(self, faction: Faction) -> list[QuestCounter]:
        return [c for c in self.quest_counters if c.faction == faction]

    def objective_type(self, kind: str) -> ObjectiveType:
        return self._get("objective_type", kind)  # type: ignore[return-value]

    def objective_card(self, card_id: str) -> ObjectiveCard:
        return self._get("objective", card_id)  # type: ignore[return-value]

    def objectives_of(self, faction: Faction) -> list[ObjectiveCard]:
        return [c for c in self.objective_cards if self.objective_type(c.kind).faction == faction]

    def story_card(self, card_id: str) -> StoryCard:
        return self._get("story", card_id)  # type: ignore[return-value]

    def neutral_card(self, card_id: str) -> NeutralCard:
        return self._get("neutral", card_id)  # type: ignore[return-value]


def _unique(what: str, values: Iterable[str]) -> None:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            raise ContentError(f"duplicate {what}: {v!r}")
        seen.add(v)


FILES = {
    "map": "map.json",
    "characters_file": "characters.json",
    "setup": "setup.json",
    "quests_file": "quests.json",
    "objectives_file": "objectives.json",
    "story": "story_cards.json",
    "memory_track": "memory_track.json",
}


def load_content_from(directory: Path | str) -> WinterContent:
    """Load and validate every Winter Tales data file in ``directory`` (not cached)."""
    base = Path(directory)
    raw = {
        key: json.loads((base / name).read_text(encoding="utf-8")) for key, name in FILES.items()
    }
    return WinterContent.model_validate(raw)


@lru_cache(maxsize=1)
def load_content() -> WinterContent:
    """The validated Winter Tales content from ``data/winter_tales/`` (cached)."""
    return load_content_from(DATA_DIR)


def verb(ident: str | None, singular: str, plural: str) -> str:
    """The form of a verb (or any word that agrees) after a character's printed name: a
    name standing for two figures takes the plural ("The Fox and the Cat are saved").
    Anything that is not a character (a space, a card, none) takes the singular.

    >>> verb("alice", "is", "are"), verb("fox_and_cat", "is", "are"), verb(None, "is", "are")
    ('is', 'are', 'is')
    """
    if ident is None:
        return singular
    try:
        plural_name = load_content().character(ident).plural
    except (KeyError, ValueError):
        return singular
    return plural if plural_name else singular


def printed_name(ident: str | None, missing: str = "—") -> str:
    """The printed name of a character, space, Story card, Objective, Quest or Quest
    counter (``missing`` for none; an unknown id with its underscores as spaces), as
    every text of the game shows it.

    >>> printed_name(None, "-"), printed_name("no_such_thing")
    ('-', 'no such thing')
    """
    if ident is None:
        return missing
    c = load_content()
    for lookup in (c.character, c.map.space, c.story_card, c.objective_card, c.quest):
        try:
            obj = lookup(ident)
        except (KeyError, ValueError, AttributeError):
            continue
        return str(getattr(obj, "name", None) or getattr(obj, "title", None) or ident)
    try:
        return printed_name(c.quest_counter(ident).quest, missing)
    except (KeyError, ValueError, AttributeError):
        return ident.replace("_", " ")
