"""The project's own tool, as `[eval].tools` names it: the weather of a city.

In production it asks a weather service; in the eval suite the fixtures double it, so a
replay runs none of its code and needs no network.
"""

from __future__ import annotations

from zeroclaw_eval import ProjectTool

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "the city's name"}},
    "required": ["city"],
}


async def get_weather(city: str) -> str:
    """Ask the weather service (not reachable from the test suite, which doubles it)."""
    raise RuntimeError(f"no weather service is configured to ask about {city}")


def tools() -> list[ProjectTool]:
    """The tools the agent is offered besides the built-in ones."""
    return [ProjectTool("get_weather", "The current weather in a city.", get_weather, CITY)]
