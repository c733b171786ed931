"""Sphinx configuration of the documentation site.

Sphinx with MyST (Markdown sources) and the furo theme, as pytest, nox and coverage.py
document themselves: Sphinx is actively released, its autodoc reads the package's own
docstrings for the Python API, and sphinx-click renders the CLI reference from the click
commands themselves, so neither can drift from the code. (MkDocs core has had no release
since 2024, and its API and CLI plugins are third-party.)

Build it strictly, warnings as errors: `nox -s docs`, or
`sphinx-build -W --keep-going -b html docs docs/_build/html`.
"""

from __future__ import annotations

from zeroclaw_eval import __version__

project = "zeroclaw-eval"
author = "zeroclaw-eval developers"
copyright = "zeroclaw-eval developers"
release = __version__
version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx_click",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
# A link to a page or heading that does not exist is a warning, so the strict build fails.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
suppress_warnings: list[str] = []

html_theme = "furo"
html_title = f"zeroclaw-eval {__version__}"
html_static_path = ["_static"]
html_theme_options = {"source_directory": "docs/"}

# The Python API page documents the names of `zeroclaw_eval.__all__`; their signatures
# are shown as written, types in the description.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
