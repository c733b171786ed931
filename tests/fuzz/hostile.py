"""Hostile text, bounded: what a model, a tool or a fixture author could put in any
string, for the fuzz tests to push through admission, the run and every reporter.

Every injected piece carries `MARKER`, so a test can tell markup or a workflow command
that came from the hostile text from the report's own. Sizes are bounded (the longest
piece is `BIG` characters) so no single example can take minutes.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: In every injection: markup or a command holding it came from hostile text.
MARKER = "zcpwn"
#: The length of the long pieces: a long line, and a run of newlines.
BIG = 50_000

#: Workflow-command forgeries, in every way the runner might read one.
COMMANDS = [
    f"\n::error::{MARKER}",
    f"\n::error file=x.py,line=1::{MARKER}",
    f"\n::warning::{MARKER}",
    f"\n::add-mask::{MARKER}",
    f"\n::stop-commands::{MARKER}",
    f"\n::set-output name={MARKER}::x",
    f"\r::error::{MARKER}-cr",
    f"\r\n  ::notice::{MARKER}-crlf",
    f"\n\u00a0::error::{MARKER}-nbsp",
    f"\u2028::error::{MARKER}-ls",
    f"\x85::error::{MARKER}-nel",
    f"%0A::error::{MARKER}",
    f"%0D%0A::error::{MARKER}",
    f"%25%30A::error::{MARKER}",
    f"##[error]{MARKER}",
    f"\n##[group]{MARKER}",
]
#: HTML, XML and Markdown injections.
MARKUP = [
    f"<script>{MARKER}()</script>",
    f"</script><script>{MARKER}()</script>",
    f"<img src=x onerror={MARKER}()>",
    f'"><svg onload={MARKER}()>',
    f"'><b id={MARKER}>",
    f"</textarea></pre></code><i class={MARKER}>",
    f"<!--{MARKER}-->",
    f"--><p title={MARKER}>",
    f"]]><{MARKER}/>",
    f"<![CDATA[{MARKER}]]>",
    f"&lt;{MARKER}&gt; &amp; &#60;",
    f"{{{{ {MARKER} }}}} {{% raw %}}",
    f"[link](javascript:{MARKER}) `` ` ``` |cell|",
    f"<a href='javascript:{MARKER}()'>x</a>",
]
#: Characters XML, terminals and encoders choke on.
CONTROL = [
    "\x00",
    "\x01\x02\x07\x08",
    "\x0b\x0c",
    "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07",
    "\x1b[2J\x1b[H",
    "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
    "\x7f\x80\x9b",
    "\ufffe\uffff",
    "\ufeff",
    "\u202e\u2066",
    "\U0001f600\U000e0001",
]
#: Unpaired surrogates: valid in a Python str, not encodable as UTF-8.
SURROGATES = ["\ud800", "\udfff", "\udc80", "a\ud83dz"]
#: Long text, bounded by `BIG`.
LONG = [
    "\n" * BIG,
    "x" * BIG,
    ("a " * (BIG // 2)),
    "\r" * 1000,
    ":" * 2000,
    "<" * 2000,
]

_SHORT = [*COMMANDS, *MARKUP, *CONTROL, *SURROGATES]


def hostile_text(
    *, surrogates: bool = True, long: bool = True, max_pieces: int = 4
) -> st.SearchStrategy[str]:
    """Text built of hostile pieces and arbitrary characters: with or without lone
    surrogates (which a fixture file cannot hold but a custom agent can return), with or
    without the `LONG` pieces (kept to the fields where size matters, so that an example
    stays cheap)."""
    pieces = [*_SHORT, *LONG] if long else _SHORT
    if not surrogates:
        pieces = [p for p in pieces if not any(s in p for s in SURROGATES)]
    free = st.text(
        st.characters(exclude_categories=() if surrogates else ("Cs",)),
        max_size=20,
    )
    # Pieces by index: a strategy's repr would otherwise spell out the 50,000-character ones.
    part = st.one_of(st.integers(0, len(pieces) - 1).map(lambda i: pieces[i]), free)
    return st.lists(part, min_size=1, max_size=max_pieces).map("".join)
