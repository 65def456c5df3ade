"""The context a policy saw at a selected step, rebuilt from its run with the policy's own template.

    examples = selection_examples(Path("sel"))            # one Example per sample, in order
    examples = selection_examples(Path("sel"), template="webgym_memory",
                                  template_options={"max_images": 2})

Each ``Sample`` names a run, an episode attempt and a step. Its prompt is rebuilt exactly as the
policy built it: the attempt's step records up to that step give back each ``Observation``
(``store.observations.load_observation``) and each ``Decision`` (text, parsed action, parse
error, memory), and ``PromptTemplate.context`` (the one builder the openai policy calls too)
turns them into messages. Nothing here writes prompt text of its own.

Which template. The caller's ``template``, else the one the run was made with (its
``config.json`` ``extra.template``), else ``qwen``. Options: the run's
``extra.template_options`` (when the run used that same template), updated by the caller's
``template_options`` (``max_images``, ``axtree``...). A run's config does not record options
given to the policy in code, so pass them here when they differ from the template's defaults.

Memory. Records store memory as JSON text with sorted keys, which would reorder the facts a
WebGym memory prompt shows. When the run's own template reads the stored reply back to the same
memory (order aside), that reading is used, so the keys keep the order the model wrote them in.

Runs of schema v1-v2 stored no observation, only the screenshot and page URL and title. For
templates that show nothing else (``qwen``, ``webgym_memory``: screenshots, URL, title, the
previous step's error and auto-dismissed dialogs, all in the records) the observation is
rebuilt from the records; a template that shows an accessibility tree or elements is refused
with ``MissingObservation``. The first page's dialogs were never recorded (taken as none).

Everything else that cannot be rebuilt exactly is an error, never a silent gap: a missing
screenshot or observation file (``MissingObservation``, naming the file), a template that shows
what the run did not capture, and a sample whose run, episode attempt, step or task is gone
(``ConfigError``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webdojo.errors import ConfigError, MissingObservation, RecordSchemaError, WebdojoError
from webdojo.history import Decision, Step
from webdojo.observation import AxTreeMode, ImageFormat, Observation
from webdojo.prompts import PromptTemplate, get_template
from webdojo.store.observations import load_observation
from webdojo.store.records import StepRecord
from webdojo.store.run_config import CONFIG, read_config
from webdojo.store.run_reader import StoredRun, read_run
from webdojo.store.run_store import STEPS
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task
from webdojo.training.examples import Example
from webdojo.training.samples import Sample, read_samples

DEFAULT_TEMPLATE = "qwen"  # what a run without ``extra.template`` in its config was made with


def selection_examples(
    selection: Path, *, template: str | None = None, template_options: dict[str, Any] | None = None
) -> list[Example]:
    """One ``Example`` per sample of the selection directory, in its order."""
    return list(iter_examples(read_samples(selection), template, template_options))


def iter_examples(
    samples: Iterable[Sample],
    template: str | None = None,
    template_options: dict[str, Any] | None = None,
) -> Iterator[Example]:
    """The examples of ``samples``, one at a time (see ``selection_examples``)."""
    builder = ContextBuilder(template, template_options)
    for sample in samples:
        yield builder.example(sample)


@dataclass(frozen=True)
class RunContext:
    """What every sample of one run shares."""

    root: Path
    stored: StoredRun
    tasks: dict[str, Task]
    template: PromptTemplate  # builds the prompts
    own: PromptTemplate | None  # the template the run was made with (re-reads stored replies)


class ContextBuilder:
    """Builds examples sample by sample. Each run is read once; the rebuilt steps of the last
    few episode attempts are kept, so the samples of one episode cost one rebuild."""

    def __init__(
        self,
        template: str | None = None,
        template_options: dict[str, Any] | None = None,
        *,
        cached_episodes: int = 8,
    ) -> None:
        self.template = template
        self.template_options = dict(template_options or {})
        self._runs: dict[Path, RunContext] = {}
        self._task_sets: dict[str, dict[str, Task]] = {}
        self._steps: OrderedDict[tuple[Path, str], list[Step]] = OrderedDict()
        self._checked: set[tuple[Path, str]] = set()
        self._cached = cached_episodes

    def example(self, sample: Sample) -> Example:
        run = self.run(Path(sample.run))
        records = _records(run, sample)
        task = _task(run, sample)
        *history, current = self._rebuilt(run, sample.episode, records)[: sample.step + 1]
        prompt = run.template.context(task, current.observation, history)
        return Example(sample, prompt, reply=records[sample.step].text)

    def check(self, sample: Sample) -> None:
        """Raise what ``example`` would raise, without reading any screenshot: the run, attempt,
        step and task exist, and every step's files are there with what the template shows."""
        run = self.run(Path(sample.run))
        records = _records(run, sample)
        _task(run, sample)
        if (run.root, sample.episode) in self._checked:
            return
        for record in records:
            _check_files(run, record)
            if record.observation is None:
                _require_screenshot_only(run, record)
            else:
                _require_captured(run, record, _observation_text(run, record))
        self._checked.add((run.root, sample.episode))

    def shows_images(self, sample: Sample) -> bool:
        """Whether the sample's prompt holds images (its template shows screenshots)."""
        return _shows_screenshots(self.run(Path(sample.run)).template)

    # --- runs -------------------------------------------------------------------------------

    def run(self, root: Path) -> RunContext:
        if root not in self._runs:
            self._runs[root] = self._read(root)
        return self._runs[root]

    def _read(self, root: Path) -> RunContext:
        if not (root / STEPS).is_file():
            raise ConfigError(f"{root} is not a run directory (no {STEPS}): was it moved?")
        config = read_config(root)
        if config is None:
            raise ConfigError(f"{root / CONFIG} is missing or unreadable: its task set is unknown")
        own_name = config.extra.template or DEFAULT_TEMPLATE
        own_options = dict(config.extra.template_options or {})
        name = self.template or own_name
        options = {**(own_options if name == own_name else {}), **self.template_options}
        return RunContext(
            root=root,
            stored=read_run(root),
            tasks=self._tasks(root, config.tasks),
            template=get_template(name, **options),
            own=_template_or_none(own_name, own_options),
        )

    def _tasks(self, root: Path, spec: str | None) -> dict[str, Task]:
        if not spec:
            raise ConfigError(f"{root / CONFIG} names no task set")
        if spec not in self._task_sets:
            self._task_sets[spec] = {task.id: task for task in load_spec(spec).tasks}
        return self._task_sets[spec]

    # --- steps ------------------------------------------------------------------------------

    def _rebuilt(self, run: RunContext, episode: str, records: list[StepRecord]) -> list[Step]:
        key = (run.root, episode)
        if key in self._steps:
            self._steps.move_to_end(key)
            return self._steps[key]
        steps: list[Step] = []
        for i, record in enumerate(records):
            observation = _observation(run, record, records[i - 1] if i else None)
            steps.append(Step(record.step, observation, _decision(run, record)))
        self._steps[key] = steps
        if len(self._steps) > self._cached:
            self._steps.popitem(last=False)
        return steps


def _template_or_none(name: str, options: dict[str, Any]) -> PromptTemplate | None:
    try:
        return get_template(name, **options)
    except ConfigError:  # a template this webdojo lacks: stored memory is used as it is
        return None


def describe(sample: Sample) -> str:
    return f"sample {sample.key} step {sample.step} (attempt {sample.episode} of run {sample.run})"


def _records(run: RunContext, sample: Sample) -> list[StepRecord]:
    """The attempt's step records, checked to run 0, 1, ... past the sample's step."""
    records = run.stored.attempts.get(sample.episode)
    if not records:
        raise ConfigError(
            f"{describe(sample)}: the attempt is not among the finished episodes of "
            f"{run.root}/{STEPS} (was the run resumed or rewritten after the selection?)"
        )
    indices = [r.step for r in records]
    if indices != list(range(len(records))) or sample.step >= len(records):
        raise ConfigError(
            f"{describe(sample)}: the attempt's stored steps are {indices}, so the context of "
            f"step {sample.step} cannot be rebuilt"
        )
    return records


def _task(run: RunContext, sample: Sample) -> Task:
    task = run.tasks.get(sample.task_id)
    if task is None:
        raise ConfigError(
            f"{describe(sample)}: task {sample.task_id!r} is not in the run's task set"
        )
    return task


def _decision(run: RunContext, record: StepRecord) -> Decision:
    """The policy's decision as the history held it: a step's error is in its decision only
    when the text did not parse (an action's error arrives with the next observation)."""
    error = record.error if record.action is None else None
    return Decision(record.text, record.action, error, _memory(run, record))


def _memory(run: RunContext, record: StepRecord) -> Any:
    """The stored memory, in the key order the model wrote (see the module docstring)."""
    if record.memory is None or run.own is None:
        return record.memory
    try:
        memory = run.own.parse(record.text).memory
    except (WebdojoError, ValueError):
        return record.memory
    return memory if memory == record.memory else record.memory


# --- observations --------------------------------------------------------------------------


def _observation(run: RunContext, record: StepRecord, previous: StepRecord | None) -> Observation:
    _check_files(run, record)
    if record.observation is None:
        _require_screenshot_only(run, record)
        return _from_record(run, record, previous)
    try:
        observation = load_observation(run.root, record)
    except RecordSchemaError as exc:  # a file that exists but does not read back
        raise MissingObservation(f"{run.root}: {exc.message}") from exc
    assert observation is not None
    _require_captured(run, record, observation)
    return observation


def _from_record(run: RunContext, record: StepRecord, previous: StepRecord | None) -> Observation:
    """A schema v1-v2 step's observation from its records: the previous step's error and
    dialogs are what arrived with this observation."""
    shot = None if record.screenshot is None else (run.root / record.screenshot).read_bytes()
    suffix = Path(record.screenshot or "").suffix.lower()
    return Observation(
        url=record.url,
        title=record.title,
        tabs=[],
        viewport_width=record.viewport[0],
        viewport_height=record.viewport[1],
        screenshot=shot,
        image_format=ImageFormat.PNG if suffix == ".png" else ImageFormat.JPEG,
        dialogs=list(previous.dialogs) if previous is not None else [],
        last_error=previous.error if previous is not None else None,
    )


def _check_files(run: RunContext, record: StepRecord) -> None:
    for name in (record.screenshot, record.observation):
        if name is not None and not (run.root / name).is_file():
            raise MissingObservation(
                f"{run.root / name} is missing: step {record.step} of {record.key} "
                f"(attempt {record.episode}) names it, so its context cannot be rebuilt"
            )


def _observation_text(run: RunContext, record: StepRecord) -> Observation:
    """The stored observation without its screenshot (for checks)."""
    assert record.observation is not None
    try:
        return Observation.model_validate_json((run.root / record.observation).read_bytes())
    except (OSError, ValueError) as exc:
        raise MissingObservation(f"{run.root / record.observation} cannot be read: {exc}") from exc


def _shows_screenshots(template: PromptTemplate) -> bool:
    return template.screenshot and template.max_images > 0


def _require_screenshot_only(run: RunContext, record: StepRecord) -> None:
    template = run.template
    if template.axtree is not AxTreeMode.NONE or template.observation_options().wants_elements():
        raise MissingObservation(
            f"{run.root} predates schema v3 (step {record.step} of {record.key} stored no "
            f"observation): template {template.name!r} shows the accessibility tree, which "
            "only the screenshot-only templates (qwen, webgym_memory) can do without; export "
            "with --template qwen or webgym_memory, or roll the tasks out again"
        )
    if _shows_screenshots(template) and record.screenshot is None:
        raise MissingObservation(
            f"step {record.step} of {record.key} in {run.root} has no screenshot, which "
            f"template {template.name!r} shows"
        )


def _require_captured(run: RunContext, record: StepRecord, observation: Observation) -> None:
    """The run captured what the template shows (a scripted run has no accessibility tree)."""
    template = run.template
    missing = []
    if _shows_screenshots(template) and record.screenshot is None:
        missing.append("a screenshot")
    if template.axtree is not AxTreeMode.NONE and observation.axtree is None:
        missing.append("an accessibility tree")
    if missing:
        raise MissingObservation(
            f"step {record.step} of {record.key} in {run.root} was observed without "
            f"{' and '.join(missing)}, which template {template.name!r} shows: export it with "
            "a template that matches what the run captured"
        )
