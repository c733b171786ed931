"""The HTML page as its script shows it, each folded run of cases unfolded."""

from __future__ import annotations

import re

#: Model text that tries to end a folded run's comment or a closed case's template, and to run.
UNFOLDING = "--> --!> <!-- </template></div></details><script>alert(1)</script><img src=x onerror=alert(1)>"
#: A folded run: its start tag, its cases' markup in a comment (which the markup cannot end
#: early: it holds no `-->`), its end tag.
FOLDED_RUN = re.compile(r'<div class="cases folded"([^>]*)><!--(.*?)--></div>', re.DOTALL)


def unfolded(page: str) -> str:
    """`page` with every run's comment replaced by the markup it holds, as the page
    script unfolds a run."""
    return FOLDED_RUN.sub(r'<div class="cases"\1>\2</div>', page)


def folded_runs(page: str) -> list[tuple[str, str]]:
    """The attributes and the markup of each folded run of `page`, in order."""
    return [(match.group(1), match.group(2)) for match in FOLDED_RUN.finditer(page)]
