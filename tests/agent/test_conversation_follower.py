"""`zeroclaw_eval.agent.conversation.Follower`: request after request, the same answer as
`follow` on the whole conversation, while walking only the messages that are new."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest

from tests.support.scripts import ANSWER_1, CALL_1, RESULT_1, TWO_TURNS_DONE, USER_1, USER_2
from zeroclaw_eval.agent import conversation
from zeroclaw_eval.agent.conversation import Follower, Position, follow, script_of
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import Divergence


def _outcome(walk: Any, messages: Any) -> Position | tuple[str, str]:
    """What a walk returns, or the message and pointer of the divergence it raises."""
    try:
        return walk(messages)  # type: ignore[no-any-return]
    except Divergence as diverged:
        return str(diverged), diverged.pointer


def _same_as_follow(case: Case, requests: list[Any]) -> list[Position | tuple[str, str]]:
    """Send `requests` in order to one Follower; each answer must be `follow`'s. Each
    request is copied as it is sent, as `follow` would see it then."""
    script = script_of(case.trace)
    follower = Follower(case.trace, script)
    found = []
    for messages in requests:
        expected = _outcome(lambda sent: follow(case.trace, script, sent), copy.deepcopy(messages))
        assert _outcome(follower.follow, messages) == expected
        found.append(expected)
    return found


def test_a_growing_conversation_walks_each_message_once(
    two_turns: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[int] = []
    take = conversation._Walk.take
    monkeypatch.setattr(conversation._Walk, "take", lambda walk, i, m: (taken.append(i), take(walk, i, m)))
    follower = Follower(two_turns.trace, script_of(two_turns.trace))
    messages: list[Any] = [USER_1]  # one list, appended to, as the reference agent sends it
    assert follower.follow(messages) == Position(0, 0)
    messages += [CALL_1, RESULT_1]
    assert follower.follow(messages) == Position(0, 1)
    messages += [ANSWER_1, USER_2]
    assert follower.follow(messages) == Position(1, 0)
    assert taken == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "second",
    [
        pytest.param(
            [USER_1, CALL_1, {"role": "tool", "tool_call_id": "call_9", "content": "x"}], id="bad-new"
        ),
        pytest.param([USER_1, CALL_1], id="result-missing"),
        pytest.param([{"role": "user", "content": "Echo goodbye"}, CALL_1, RESULT_1], id="history-edited"),
        pytest.param([CALL_1, RESULT_1], id="history-dropped"),
        pytest.param([], id="empty"),
        pytest.param([USER_1, USER_1], id="user-twice"),
        pytest.param([*TWO_TURNS_DONE, USER_2], id="beyond-the-script"),
        pytest.param((USER_1, CALL_1, RESULT_1), id="a-tuple"),
    ],
)
def test_whatever_follows_a_request_gets_what_follow_says(two_turns: Case, second: Any) -> None:
    # The first request leaves a walked prefix behind; the second may extend it, break
    # it or have nothing to do with it, and must be judged as if walked whole.
    _same_as_follow(two_turns, [[USER_1], second, [USER_1, CALL_1, RESULT_1]])


def test_a_history_edited_in_place_is_walked_again(two_turns: Case) -> None:
    messages: list[Any] = [dict(USER_1), copy.deepcopy(CALL_1), dict(RESULT_1)]
    first, second = [messages[:1], messages]
    found = _same_as_follow(two_turns, [first, second])
    assert found[-1] == Position(0, 1)
    messages[1]["tool_calls"][0]["id"] = "call_9"  # the same objects, changed deep inside
    assert _same_as_follow(two_turns, [[USER_1], messages])[-1] == (
        "messages[1] (assistant): turn 1, step 1 of the script calls echo (id call_1);"
        " the request echoes back echo (id call_9)",
        "",
    )
    follower = Follower(two_turns.trace, script_of(two_turns.trace))
    assert follower.follow(messages[:1]) == Position(0, 0)
    messages[0]["content"] = "Echo goodbye"  # the walked message changes after it was sent
    assert _outcome(follower.follow, messages)[0] == (
        'messages[0] (user): turn 1\'s user input is "Echo hello"; the request has "Echo goodbye"'
    )


def test_a_message_that_is_not_plain_data_is_never_trusted_from_a_copy(two_turns: Case) -> None:
    class Shifty(dict[str, Any]):
        """A message that reads differently each time it is asked."""

        reads = 0

        def get(self, key: str, default: Any = None) -> Any:
            if key != "content":
                return super().get(key, default)
            Shifty.reads += 1
            return "Echo hello" if Shifty.reads == 1 else super().get(key, default)

    shifty = Shifty(role="user", content="Echo goodbye")
    follower = Follower(two_turns.trace, script_of(two_turns.trace))
    assert follower.follow([shifty]) == Position(0, 0)  # read as "Echo hello"
    # A copy would say the prefix is unchanged; the walk from the start reads it again.
    assert 'the request has "Echo goodbye"' in str(_outcome(follower.follow, [shifty, CALL_1, RESULT_1])[0])


@pytest.mark.parametrize("levels", [sys.getrecursionlimit() - 100, 100_000])
def test_a_message_nested_near_or_past_the_recursion_limit_is_followed_all_the_same(
    two_turns: Case, levels: int
) -> None:
    deep: Any = "bottom"
    for _ in range(levels):  # the walk never reads this key; a copy or comparison may fail
        deep = [deep]
    first = {**USER_1, "metadata": deep}
    script = script_of(two_turns.trace)
    follower = Follower(two_turns.trace, script)
    for messages in ([first], [first, CALL_1, RESULT_1], [first, CALL_1, RESULT_1, ANSWER_1, USER_2]):
        assert follower.follow(messages) == follow(two_turns.trace, script, messages)


class _Role(str):
    """A role that is a `str` by type but not by class."""


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param("\ud800", id="lone-surrogate"),  # orjson refuses it: copied by plain_copy
        pytest.param({1: "int key"}, id="int-key"),
        pytest.param(10**30, id="big-int"),
        pytest.param(float("nan"), id="nan"),  # never equal to itself: no resume
        pytest.param((1, 2), id="tuple"),
        pytest.param(_Role("x"), id="str-subclass"),
    ],
)
def test_a_message_holding_what_json_copies_badly_is_followed_as_follow_says(
    two_turns: Case, extra: Any
) -> None:
    first = {**USER_1, "metadata": extra}
    messages: list[Any] = [first]
    found = _same_as_follow(two_turns, [messages, [first, CALL_1, RESULT_1]])
    assert found[-1] == Position(0, 1)
    first["content"] = "Echo goodbye"  # changed after it was sent: every copy must see it
    assert "the request has" in str(_same_as_follow(two_turns, [[first, CALL_1, RESULT_1]])[0][0])
    follower = Follower(two_turns.trace, script_of(two_turns.trace))
    sent = {**USER_1, "metadata": extra}
    assert follower.follow([sent]) == Position(0, 0)
    sent["content"] = "Echo goodbye"
    assert "the request has" in str(_outcome(follower.follow, [sent, CALL_1, RESULT_1])[0])
