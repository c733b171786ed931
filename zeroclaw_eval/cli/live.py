"""Live mode from the command line: `[eval]`, `[providers.models.NAME]` and the key in
the environment become `LiveOptions`, or a usage error that says what to set."""

from __future__ import annotations

import os
from collections.abc import Iterable

from zeroclaw_eval.config.load import LoadedConfig
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.run.tools import BUILTIN_TOOLS

HOW_TO = """\
live mode needs a provider. In zeroclaw.toml (or [tool.zeroclaw.*] in pyproject.toml):

    [eval]
    live_provider = "NAME"

    [providers.models.NAME]
    base_url = "https://api.example.com/v1"   # an OpenAI-compatible endpoint
    model = "MODEL"
    api_key_env = "NAME_API_KEY"              # the environment variable holding the key

then export NAME_API_KEY and run again"""


def live_options(loaded: LoadedConfig, known_tools: Iterable[str] = BUILTIN_TOOLS) -> LiveOptions:
    """The live-mode options the configuration describes; a usage error saying what to
    set when something is missing."""
    settings = loaded.settings
    name = settings.live_provider
    if not name:
        raise UsageError(f"[eval].live_provider is empty, so live mode is off.\n{HOW_TO}")
    provider = loaded.providers.get(name)
    if provider is None:
        defined = ", ".join(sorted(loaded.providers)) or "none"
        raise UsageError(
            f"[eval].live_provider = {name!r}, but there is no [providers.models.{name}] table"
            f" (defined: {defined}).\n{HOW_TO}"
        )
    known = sorted(set(known_tools))
    unknown = sorted(set(settings.live_allowed_tools) - set(known))
    if unknown:
        raise UsageError(
            f"[eval].live_allowed_tools names unknown tools: {', '.join(unknown)};"
            f" the known tools are: {', '.join(known)}"
        )
    key = ""
    if provider.api_key_env:
        key = os.environ.get(provider.api_key_env, "")
        if not key:
            raise UsageError(
                f"the environment variable {provider.api_key_env} is not set"
                f" (api_key_env of [providers.models.{name}]); export the provider's key in it"
            )
    return LiveOptions(provider, key, frozenset(settings.live_allowed_tools))
