"""What ``webdojo train loop`` is asked to do, and the checks made before torch is imported
(importing it and transformers takes seconds: a wrong flag should not wait for that)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from webdojo.errors import ConfigError
from webdojo.training.schedules import check_schedule
from webdojo.training.selection import BcSettings

SERVERS = ("auto", "vllm", "transformers")
RULES = ("bc", "rft", "grpo")  # how an on-policy round selects from its rollouts
CONFIG_FILE = "loop-config.json"  # what a resumed loop must match


@dataclass(frozen=True)
class Recipe:
    """How a model trains unless the command says otherwise."""

    rounds: int = 2  # on-policy rounds after the first (behaviour cloning of the teacher)
    train_steps: int = 120  # optimizer steps per round
    on_policy_steps: int | None = None  # per on-policy round, when not train_steps: those
    # rounds start from the round before, so they may need fewer
    batch_size: int = 4
    lr: float = 3e-3
    prompt_loss_weight: float = 0.3  # sft updates: the prompts' text in the loss (trainer.py);
    # for a model trained from scratch (docs/learning.md has what it changed)


DEFAULT_RECIPE = Recipe()  # tiny, tiny-vl and model directories
# small: behaviour cloning for longer, with the pages' text in the loss, then two rft rounds
# of half as many updates (they start from the round before); on six MiniWoB++ pages, rft
# rounds of 1,200 ended one held-out instance below rounds of 2,400 and took 25 minutes in
# all instead of 33 on 2 cores (docs/learning.md, runs RC' and RD')
RECIPES = {
    "small": Recipe(
        rounds=2,
        train_steps=2400,
        on_policy_steps=1200,
        batch_size=8,
        lr=1e-3,
        prompt_loss_weight=1.0,
    )
}


def recipe(model: str) -> Recipe:
    return RECIPES.get(model, DEFAULT_RECIPE)


@dataclass(frozen=True)
class LoopConfig:
    out: Path
    model: str = "tiny"  # tiny | tiny-vl | a checkpoint or model directory
    template: str = "compact"  # short prompts: a small model learns from a few hundred tokens
    tasks: str = "builtin"  # the training tasks, or instances: family:NAME:N@S, miniwob:X:N@S
    demos: str | None = None  # what the teacher demonstrates in round 0 (None: ``tasks``);
    # training instances outside it are learnt from the environment's rewards alone
    heldout: str | None = None  # held-out instances of the same tasks (in distribution)
    heldout_ood: str | None = None  # held-out tasks or families (out of distribution)
    train_tasks: int = 12  # without --heldout: tasks trained on (a seeded shuffle of the set)
    held_out: int = 6  # without --heldout: tasks never trained on, only evaluated
    rounds: int = DEFAULT_RECIPE.rounds  # on-policy rounds after the first (Recipe)
    rule: str = "rft"  # the on-policy rounds' selection
    group_size: int = 4  # rollouts per training task in an on-policy round (rft/grpo groups)
    rollout_tasks: int = 32  # training instances rolled out per on-policy round (a sample)
    train_eval: int = 60  # training instances scored after each round (a fixed sample)
    max_steps: int = 6  # cap on steps per episode (generation is the slow part on a CPU)
    train_steps: int = DEFAULT_RECIPE.train_steps
    on_policy_steps: int | None = DEFAULT_RECIPE.on_policy_steps  # None: train_steps
    batch_size: int = DEFAULT_RECIPE.batch_size
    lr: float = DEFAULT_RECIPE.lr
    lr_schedule: str = "constant"  # each round's updates: constant | linear | cosine (to 0)
    warmup_steps: int = 0  # each round's first updates raise the rate from 0
    prompt_loss_weight: float = DEFAULT_RECIPE.prompt_loss_weight
    context_tokens: int = 2048  # longer prompts lose tokens from the left in training
    temperature: float = 1.0  # rollouts sample; evaluations are greedy
    max_tokens: int = 48  # per reply
    bc: BcSettings = field(default_factory=BcSettings)
    concurrency: int = 4
    seed: int = 0
    serve: str = "auto"  # auto (vLLM when installed and a GPU is there) | vllm | transformers
    random_baseline: bool = True  # the random policy on the held-out instances, same run
    resume: bool = False  # go on after the last finished round of ``out``
    site_port: int = 0  # every run serves the sites here (0: a free port chosen once), so the
    # URLs a model reads in its prompts are the ones it was trained on

    @classmethod
    def for_model(cls, **options: Any) -> LoopConfig:
        """A config whose recipe settings left None (or out) are the model's (``recipe``)."""
        chosen = asdict(recipe(str(options.get("model", cls.model))))
        if options.get("train_steps") is not None:
            chosen["on_policy_steps"] = None  # --train-steps alone sets every round's updates
        for name, value in chosen.items():
            if options.get(name) is None:
                options[name] = value
        return cls(**options)

    def check(self) -> None:
        """ConfigError for a server or rule we do not know, or an ``out`` that is used (and
        not resumed) or resumed with other settings."""
        if self.serve not in SERVERS:
            raise ConfigError(f"--serve {self.serve!r}: choose one of {', '.join(SERVERS)}")
        if self.rule not in RULES:
            raise ConfigError(f"--rule {self.rule!r}: choose one of {', '.join(RULES)}")
        for steps in {self.steps(0), self.steps(1)}:
            check_schedule(self.lr_schedule, self.warmup_steps, steps)
        out = Path(self.out)
        used = out.exists() and any(out.iterdir())
        if used and not self.resume:
            raise ConfigError(
                f"{out} is not empty: choose a new --out, or --resume to go on with that loop"
            )
        if used and self.resume:
            self._check_resumable(out)

    def spec(self, name: str) -> str:
        """The task spec a set of the loop's instances comes from (``Splits.evaluated``'s names,
        and ``demos``): written in each run's config, where the judge finds its tasks."""
        given = {"demos": self.demos, "heldout": self.heldout, "heldout_ood": self.heldout_ood}
        # ``train``, and a set not given: no --demos is ``tasks``, a split by task a part of it
        return given.get(name) or self.tasks

    def steps(self, number: int) -> int:
        """Updates in round ``number`` (0: behaviour cloning of the teacher)."""
        if number == 0 or self.on_policy_steps is None:
            return self.train_steps
        return self.on_policy_steps

    def settings(self) -> dict[str, Any]:
        """What defines the loop (a resumed one must match): every field but where it runs."""
        skip = {"out", "resume", "site_port", "rounds"}  # more rounds may be asked on resume
        chosen = {k: v for k, v in asdict(self).items() if k not in skip}
        return chosen | {"on_policy_steps": self.steps(1)}  # what they run, given or not

    def _check_resumable(self, out: Path) -> None:
        saved = out / CONFIG_FILE
        if not saved.is_file():
            raise ConfigError(f"{out} holds no loop to resume ({CONFIG_FILE} is missing)")
        before = json.loads(saved.read_text(encoding="utf-8"))
        before.setdefault("on_policy_steps", before.get("train_steps"))  # then every round's
        now = json.loads(json.dumps(self.settings(), default=str))
        # a setting newer than the saved loop was then at its default
        defaults = json.loads(json.dumps(LoopConfig(out=out).settings(), default=str))
        changed = sorted(k for k in now if before.get(k, defaults.get(k)) != now[k])
        if changed:
            raise ConfigError(f"--resume with other settings than {out}'s: {', '.join(changed)}")

    def save(self) -> None:
        path = Path(self.out) / CONFIG_FILE
        path.write_text(json.dumps(self.settings(), default=str, indent=2) + "\n", encoding="utf-8")
