"""The pytest plugin (`pytest --zeroclaw`), run by pytest itself in throwaway projects:
each fixture a test item, failures with the table's check lines, rejected fixtures as
errors, `-k` and `-x` as usual, and nothing at all unless it is asked for."""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import pytest

from tests.support.builders import FAILING, PASSING, TYPO_FIXTURE, fixture_text, line_col, write_fixture
from tests.support.ci_log import executed_commands

pytest_plugins = ["pytester"]

#: A fixture whose scripted answer ("ok") lacks the needle: one failing check.
WRONG_ANSWER = fixture_text('{"response_contains": ["goodbye"]}')
#: A fixture whose script runs out: the agent asks for a step after the last one.
RUNS_OUT = {**PASSING, "turns": [{"user_input": "Echo hello", "steps": [PASSING["turns"][0]["steps"][0]]}]}


@pytest.fixture(autouse=True)
def _plugins_load(monkeypatch: pytest.MonkeyPatch) -> None:
    # The plugin comes in through its entry point, as for every user of the package.
    if not any(point.name == "zeroclaw_eval" for point in entry_points(group="pytest11")):
        pytest.fail("the pytest11 entry point is not installed; reinstall the package: pip install -e .")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)


def suite(pytester: pytest.Pytester, **fixtures: object) -> None:
    """Write `evals/regression/NAME.json` for each keyword argument."""
    for name, content in fixtures.items():
        assert isinstance(content, (dict, str))
        write_fixture(pytester.path / "evals" / "regression", f"{name}.json", content)


def test_each_fixture_is_a_passing_item_named_by_its_path(pytester: pytest.Pytester) -> None:
    suite(pytester, echo_hello=PASSING, echo_again=PASSING)
    result = pytester.runpytest("--zeroclaw=evals/regression", "-v")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "zeroclaw-eval *: replaying evals/regression with the reference agent",
            "evals/regression/echo_again.json::echo_again PASSED*",
            "evals/regression/echo_hello.json::echo_hello PASSED*",
        ]
    )


def test_a_failing_check_shows_the_table_line_at_the_fixture_field(pytester: pytest.Pytester) -> None:
    suite(pytester, wrong=WRONG_ANSWER)
    result = pytester.runpytest("--zeroclaw=evals/regression")
    result.assert_outcomes(failed=1)
    line, col = line_col(WRONG_ANSWER, '"goodbye"')
    result.stdout.fnmatch_lines(
        [
            "*_ wrong.json (m) _*",
            f"✗ response_contains[0] [response]  evals/regression/wrong.json:{line}:{col}",
            '  expected the final response to contain "goodbye"; found "ok"',
        ]
    )
    assert "Traceback" not in result.stdout.str()  # the check, not the plugin's frames


def test_text_a_fixture_holds_forges_no_command_and_obeys_no_escape(pytester: pytest.Pytester) -> None:
    # The failure's header (model_name) and its lines (the response quoted) are the
    # fixture author's text; pytest prints them to the same CI logs as `run`.
    hostile = "m\n::error file=x.py::forged\n##[error]y\x1b]0;title\x07\u202e"
    fixture = {**copy.deepcopy(FAILING), "model_name": hostile}
    fixture["turns"][0]["steps"][-1]["response"]["content"] = "ok\n::add-mask::z\n##[group]g"
    suite(pytester, hostile=fixture)
    result = pytester.runpytest("--zeroclaw=evals/regression")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert executed_commands(text) == []
    assert "##[" not in text
    assert "\x1b" not in text
    assert "\u202e" not in text


def test_a_run_error_is_a_failure_with_its_message(pytester: pytest.Pytester) -> None:
    suite(pytester, runs_out=RUNS_OUT)
    result = pytester.runpytest("--zeroclaw=evals/regression")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["evals/regression/runs_out.json:*: run error: turn 1: the agent asked the model for step 2*"]
    )


def test_a_rejected_fixture_is_an_error_with_its_problems(pytester: pytest.Pytester) -> None:
    suite(pytester, typo=TYPO_FIXTURE, echo_hello=PASSING)
    result = pytester.runpytest("--zeroclaw=evals/regression")
    # An error, not a failure: no agent was tried; the other fixture still runs.
    result.assert_outcomes(passed=1, errors=1)
    line, col = line_col(TYPO_FIXTURE, '"tool_used"')
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of typo.json (typo)*",
            f"evals/regression/typo.json:{line}:{col}: /expects/tool_used: unknown expectation key;"
            " did you mean tools_used?",
        ]
    )


def test_a_fixtures_xfail_mark_is_pytests_own(pytester: pytest.Pytester) -> None:
    known = {**FAILING, "xfail": {"reason": "example.com/issues/7"}}
    fixed = {**PASSING, "xfail": {"reason": "example.com/issues/8"}}
    loose = {**PASSING, "xfail": {"reason": "example.com/issues/9", "strict": False}}
    suite(pytester, known=known, fixed=fixed, loose=loose)
    result = pytester.runpytest("--zeroclaw=evals/regression", "-rxX")
    # The failing case is xfailed, the strict pass fails the session, the other is XPASS.
    result.assert_outcomes(xfailed=1, failed=1, xpassed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # In pytest's order: the strict XPASS among the failures, then the short summary.
    result.stdout.fnmatch_lines(
        ["*XPASS(strict)*example.com/issues/8*", "XFAIL *known* - example.com/issues/7"]
    )


def test_k_selects_cases_by_name(pytester: pytest.Pytester) -> None:
    suite(pytester, echo_hello=PASSING, echo_bye=FAILING, greeting=FAILING)
    result = pytester.runpytest("--zeroclaw=evals/regression", "-k", "echo and not bye")
    result.assert_outcomes(passed=1, deselected=2)


def test_x_stops_at_the_first_case_that_fails(pytester: pytest.Pytester) -> None:
    suite(pytester, a_wrong=WRONG_ANSWER, b_wrong=WRONG_ANSWER, c_fine=PASSING)
    result = pytester.runpytest("--zeroclaw=evals/regression", "-x")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])
    assert "b_wrong" not in result.stdout.str()


def test_the_project_configuration_is_honoured(pytester: pytest.Pytester) -> None:
    """A bare --zeroclaw runs [eval].suite_dir with [eval].agent, bounded by case_timeout_secs."""
    write_fixture(pytester.path / "cases", "slow.json", PASSING)
    pytester.makepyfile(
        zc_plugin_slow_agent="""
        import asyncio

        class SlowAgent:
            async def run_turn(self, user_input):
                await asyncio.sleep(30)
                return "too late"

        def make_agent(context):
            return SlowAgent()
        """
    )
    pytester.makefile(
        ".toml",
        zeroclaw='[eval]\nsuite_dir = "cases"\nagent = "zc_plugin_slow_agent:make_agent"\n'
        "case_timeout_secs = 0.2\n",
    )
    result = pytester.runpytest("--zeroclaw")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*replaying cases with zc_plugin_slow_agent:make_agent",
            "*run error: turn 1 timed out after 0.2s (case_timeout_secs); the agent asked the model nothing*",
        ]
    )


def test_an_agent_factory_that_fails_stops_the_run_once(pytester: pytest.Pytester) -> None:
    suite(pytester, a=PASSING, b=PASSING)
    pytester.makepyfile(zc_plugin_broken_agent="def make_agent(context):\n    raise RuntimeError('no key')\n")
    pytester.makefile(".toml", zeroclaw='[eval]\nagent = "zc_plugin_broken_agent:make_agent"\n')
    result = pytester.runpytest("--zeroclaw")
    result.assert_outcomes(failed=1)  # b is never started: it would fail alike
    result.stdout.fnmatch_lines(["configuration error: the agent factory *no key*", "*Interrupted*"])


def test_an_agent_that_does_not_import_fails_only_the_fixtures_collection(pytester: pytest.Pytester) -> None:
    # With the suite in every run (the ini option), a broken agent module must not stop the
    # unit tests, which may be the ones that debug it.
    suite(pytester, a=PASSING, b=PASSING)
    pytester.makeini("[pytest]\ntestpaths = tests\nzeroclaw_suite = evals/regression\n")
    pytester.makefile(".toml", zeroclaw='[eval]\nagent = "zc_plugin_missing_agent:make_agent"\n')
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    pytester.runpytest("tests/test_plain.py").assert_outcomes(passed=1)
    everything = pytester.runpytest()
    everything.assert_outcomes(passed=1, errors=2)
    everything.stdout.fnmatch_lines(
        ["*zeroclaw-eval: *zeroclaw.toml: [[]eval[]] agent: cannot import module 'zc_plugin_missing_agent'*"]
    )


def test_a_missing_suite_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--zeroclaw=nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: zeroclaw-eval: suite folder not found: nowhere*"])


def test_the_ini_option_adds_the_suite_to_the_testpaths_but_paths_still_choose(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester, echo_hello=PASSING)
    pytester.makeini("[pytest]\ntestpaths = tests\nzeroclaw_suite = evals/regression\n")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    pytester.runpytest().assert_outcomes(passed=2)
    # A path on the command line chooses what runs, as in any pytest run.
    pytester.runpytest("tests/test_plain.py").assert_outcomes(passed=1)


def test_inactive_without_the_option_even_beside_a_failing_suite(pytester: pytest.Pytester) -> None:
    """Installed but not asked for, the plugin collects nothing; a fresh pytest process
    (the real entry point) shows it loaded and idle, and --zeroclaw switches it on."""
    suite(pytester, wrong=WRONG_ANSWER)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)
    idle = pytester.runpytest_subprocess()
    idle.assert_outcomes(passed=1)
    idle.stdout.fnmatch_lines(["plugins:*zeroclaw-eval*"])
    assert "replaying" not in idle.stdout.str()
    pytester.runpytest_subprocess("--zeroclaw=evals/regression").assert_outcomes(passed=1, failed=1)


def test_importing_the_plugin_loads_nothing_of_the_package_beyond_it() -> None:
    """pytest imports the plugin in every run of every project that installs the package:
    that import stays as cheap as `import zeroclaw_eval`."""
    probe = textwrap.dedent(
        """
        import sys
        import zeroclaw_eval.pytest_plugin
        print(sorted(m for m in sys.modules if m.startswith(("zeroclaw_eval", "pydantic", "re2"))))
        """
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert loaded.strip() == "['zeroclaw_eval', 'zeroclaw_eval._version', 'zeroclaw_eval.pytest_plugin']"


def test_this_projects_own_run_leaves_the_plugin_off(pytestconfig: pytest.Config) -> None:
    # The project's own tests never collect its evals as tests (they run as the gate).
    assert pytestconfig.getini("zeroclaw_suite") == ""
