"""The Memory Track (rulebook, Quests: consequences; Objective Module): its free spaces,
where a Quest or an Objective Memory may go, and putting a Memory down.

Below every rule that fills the Track (a Quest's consequences, a completed Objective) and
the one that watches it (the Epilogue starts once no space is free), so those read it
without importing each other.
"""

from __future__ import annotations

from engines.winter_tales.common import Events, content
from engines.winter_tales.state import Memory, WinterState


def free_slots(state: WinterState) -> list[int]:
    used = {m.slot for m in state.memories}
    return [i for i in range(1, state.length + 1) if i not in used]


def memory_slots(state: WinterState) -> list[int]:
    """Where a Quest Memory may go: the first free space, or over an Objective Memory."""
    out = free_slots(state)[:1]
    if content().memory_track.quest_may_overwrite_objective_memory:
        out += [m.slot for m in state.memories if m.source == "objective"]
    return sorted(set(out))


def objective_slots(state: WinterState) -> list[int]:
    free = set(free_slots(state))
    return [i for i in content().memory_track.objective_spaces if i in free]


def put_memory(state: WinterState, memory: Memory, ev: Events, bookmark: bool) -> None:
    state.memories = [m for m in state.memories if m.slot != memory.slot]
    state.memories.append(memory)
    state.memories.sort(key=lambda m: m.slot)
    state.last_placer = memory.placed_by
    if bookmark:
        state.bookmark = memory.slot
