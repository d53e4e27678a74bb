"""Winter Tales: the storytelling game of the Fabletop project (3 to 7 players).

The package reads like the rulebook, one module per part of it:

================  ===========================================================================
``state``         pydantic models: options, the table, the decision stack, actions, events,
                  views, the transcript (what ``/winter story`` exports)
``content``       the validated data in ``data/winter_tales/`` (map, characters, Quests...)
``setup``         Factions, seating, the Story Arbiter, choosing characters, starting Quests
``chapters``      Turns, the activation (movement step by step, the action), End of Chapter,
                  discarding
``activations``   starting and stopping an activation, the opportunity actions
``quests``        generation and placement, the facing sequence, a Quest's consequences
``memory_track``  the Memory Track's free spaces and putting a Memory down (the Bookmark)
``battles``       interrupts on movement and Battles
``traps``         Traps and their secret split
``saves``         Saves (and the other "pay N cards" effects)
``epilogue``      the Epilogue and the winner
``powers``        the Power Module (granting, the effects, A New Hope, Armed Retaliation)
``turn_powers``   the Powers used as a Turn's action (the Freezing Horror, the Tale returns)
``objectives``    the Objective Module (conditions tracked by the engine)
``arbiter``       the Story Arbiter's rulings and table safety (X-card, retelling, striking)
``flow``          the dispatcher of the decision stack
``game``          :class:`~engines.winter_tales.game.WinterTales`, the engine contract
================  ===========================================================================

Each module imports only the ones below it in this order (``pyproject.toml``'s
import-linter contract; ``tests/test_import_cycles.py`` finds any cycle): ``game``;
``setup``, ``arbiter``; ``chapters``; ``quests``, ``turn_powers``; ``battles``; ``traps``;
``activations``; ``saves``; ``objectives``, ``powers``; ``epilogue``; ``memory_track``,
``flow``; ``common``; ``state``; ``content``. Each rule module registers its frames'
handlers with ``flow``, which dispatches the decision stack without importing any of them.

Skills (Skill Module) are read where they apply (``common.skill`` and friends).

Readings of the rulebook where it leans on the physical table (each also noted where it
is coded):

* Movement is one space per action; a discarded Story card buys 2 spaces (3 with the Move
  skill) and any unused space is lost at the end of the activation. This is the shortest
  path cost, and it lets an opponent interrupt the figure in the very space it enters.
* An incapacitated character can still be activated (its player draws); it can neither
  move nor act, only Save itself.
* Opportunity actions (a Save, completing an Objective) are offered whenever their player
  has the floor: in an activation, at the start of their Turn, when a Quest calls on them
  to join or step in, and right after an Objective's condition is met. The savior is any
  standing character of theirs in the same space, or the incapacitated character itself.
* Battles alternate rounds, Winter first; the side that passes (or has nothing to play)
  loses, i.e. the last to play wins. Traps only when a Soldier enters a Location.
* Several players may hold an interrupt at once; the first to take it gets it.
* The Memory card is chosen among the Story cards played in the Quest by the player who
  played most cards for the winning Faction (ties and draws: the Writer, else the Acting
  Player).
* The Bookmark link is assumed made unless the Story Arbiter rules it was not.
* Traps: the Interrupts summary says "a Location or Square", the Traps section says
  "Location" three times and sets them inside buildings; the detailed section is followed
  (``setup.json`` ``trap_spaces``). A draw sends the Soldier back to the space its
  activation started from.
* A Quest counter under a figure counts as the Quest counter of the Location the figure
  stands in ("each Location may contain at most one Quest counter").
* The Connection Objective counts Locations the Fairy Tale moves to during the activation,
  not the one it starts in ("move through", "when the Fairy Tale moves to").
* Love that Melts the Snow: the united pair plays Battles and Traps as one, so a Skill of
  the partner (Trap +1) counts as "involved" too.
* An Objective Memory does not take the Bookmark: it marks "the last finished Quest".

The rulebook's worked examples are replayed in ``tests/test_winter_tales_rulebook.py``
(movement costs, Quest generation, the A New Hope facing sequence with its 6-5 count, the
Battle, the Trap draw, the Save) and ``tests/test_winter_tales.py`` (the Epilogue, 12-10
with the Writer held to 1 card of 3).
"""
