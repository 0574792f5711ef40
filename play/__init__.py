"""piramida.play: play a frame against a bot in the browser (a local Starlette server and one page).

`create_app` builds the app (`piramida play` serves it with uvicorn); `games.Games` holds
the game logic, `engine` plays the moves with the kernel and the referee, `store` keeps
every game on disk, and `static/` is the page (plain HTML, JavaScript and a canvas).
"""

from piramida.play.games import Games, PlayError, Settings
from piramida.play.server import create_app
from piramida.play.store import Store

__all__ = ["Games", "PlayError", "Settings", "Store", "create_app"]
