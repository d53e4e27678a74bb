"""A table's news, from its outbox to Discord: the turn message in the channel, the hand
messages and DMs of each seat, the lobby message (:class:`Delivery` ties them together;
one part per module)."""

from bot.messages.delivery.courier import CANNOT_POST
from bot.messages.delivery.deliver import Delivery, Finished
from bot.messages.delivery.dms import CANNOT_DM
from bot.messages.delivery.pictures import Renderer
from bot.messages.delivery.turn_message import board_key

__all__ = ["CANNOT_DM", "CANNOT_POST", "Delivery", "Finished", "Renderer", "board_key"]
