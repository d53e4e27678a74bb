"""The AI storyteller of Winter Tales: passages written from what the engine knows.

One module per part (``__init__`` imports none of them, so :mod:`..state` may import the
memory model without importing the rest):

==============  ===========================================================================
``words``       the validated words of ``data/winter_tales/telling.json`` (frames, openers,
                phrase banks, each Story card's element, pronouns, lines-and-veils topics)
``memory``      what the storyteller remembers in the game state: openers, frames and
                passages used, each character's deeds, words the table took out
``moment``      the content model of the moment: the card and its element, the actor, the
                place and who is there, the Quest/Battle/Trap/Save, the chapter, the Memory,
                the previous passage
``grammar``     a small grammar engine: weighted frames, ``<rule>`` expansion, ``{slot}``
                filling, pronouns after the first mention
``safety``      lines and veils as words: what a passage may never say, what fades to black
``writer``      the storyteller: candidates, the choice among them, retelling, the ending
``fit``         which card fits the moment (the AI's choice of card)
==============  ===========================================================================
"""
