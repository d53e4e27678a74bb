"""A table's news, from its outbox to Discord (:mod:`.deliver`)."""

from bot.messages.delivery.deliver import (
    CANNOT_DM,
    CANNOT_POST,
    Delivery,
    Renderer,
    _Sequence,
    board_key,
    clip,
)

__all__ = ["CANNOT_DM", "CANNOT_POST", "Delivery", "Renderer", "_Sequence", "board_key", "clip"]
