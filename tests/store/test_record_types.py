"""Records hold the types the rest of webdojo uses (``ErrorInfo``, ``VerifyResult``,
``FinalState``), and lines written before that still load and write back byte for byte."""

from __future__ import annotations

from webdojo.errors import ErrorInfo, NavigationTimeout
from webdojo.observation import FinalState
from webdojo.store.records import parse_episode, parse_step, to_line
from webdojo.tasks.verify import VerifyResult

# written by webdojo before the merge (ErrorRecord, VerifierResult, StoredFinalState)
OLD_EPISODE = (
    '{"schema_version":4,"key":"t#0","repeat":0,"episode":"e","task_id":"t","site":"s",'
    '"difficulty":0,"level":"easy","policy":"p","outcome":"stopped","steps":1,"answer":"a",'
    '"final_url":"u","verifier":{"passed":true,"reasons":["ok: x"]},"success":true,'
    '"reward":1.0,"fault":null,"error":{"code":"navigation_timeout","fault":"env",'
    '"message":"slow","retryable":true,"details":"{\\"seconds\\": 1.0}"},'
    '"final_state":{"url":"u","title":"t","storage":"{\\"k\\": [1, \\"ß\\"]}","text":"x",'
    '"answer":"a"},"started_at":1.0,"wall_s":2.0}'
)
OLD_STEP = (
    '{"schema_version":4,"episode":"e","key":"t#0","task_id":"t","step":0,"url":"u",'
    '"title":"t","viewport":[1,2],"text":"x","action":null,"target":null,"memory":null,'
    '"error":{"code":"parse_error","fault":"agent","message":"m","retryable":false,'
    '"details":null},"dialogs":[],"screenshot":null,"next_screenshot":null,'
    '"observation":null,"policy_s":0.1,"env_s":0.2,"usage":{}}'
)


def test_an_old_episode_line_loads_as_the_shared_types_and_writes_back_the_same() -> None:
    record = parse_episode(OLD_EPISODE)
    assert record.error == NavigationTimeout("slow", seconds=1.0).info()
    assert record.verifier == VerifyResult(passed=True, reasons=["ok: x"])
    assert record.final_state == FinalState(
        url="u", title="t", storage={"k": [1, "ß"]}, text="x", answer="a"
    )
    assert to_line(record) == OLD_EPISODE


def test_an_old_step_line_loads_and_writes_back_the_same() -> None:
    record = parse_step(OLD_STEP)
    assert record.error == ErrorInfo(code="parse_error", fault="agent", message="m")
    assert to_line(record) == OLD_STEP


def test_a_final_state_stored_without_storage_reads_as_empty() -> None:
    line = OLD_EPISODE.replace('"storage":"{\\"k\\": [1, \\"ß\\"]}"', '"storage":null')
    record = parse_episode(line)
    assert record.final_state is not None and record.final_state.storage == {}
