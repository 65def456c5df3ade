"""What ``webdojo train loop`` is asked to do, and the checks made before torch is imported
(importing it and transformers takes seconds: a wrong flag should not wait for that)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from webdojo.errors import ConfigError
from webdojo.training.selection import BcSettings

SERVERS = ("auto", "vllm", "transformers")


@dataclass(frozen=True)
class LoopConfig:
    out: Path
    model: str = "tiny"  # tiny | tiny-vl | a checkpoint or model directory
    template: str = "browseragent"  # text mode: accessibility tree in, element ids out
    tasks: str = "builtin"
    train_tasks: int = 12  # tasks trained on (a seeded shuffle of the set)
    held_out: int = 6  # tasks never trained on, only evaluated
    iterations: int = 2
    max_steps: int = 6  # cap on steps per episode (generation is the slow part on a CPU)
    train_steps: int = 120  # optimizer steps per iteration
    batch_size: int = 4
    lr: float = 3e-3
    context_tokens: int = 2048  # longer prompts lose tokens from the left in training, the
    # task's objective among them, so keep this above the prompts' length
    temperature: float = 1.0  # rollouts sample; evaluations are greedy
    max_tokens: int = 48  # per reply
    bc: BcSettings = field(default_factory=BcSettings)
    concurrency: int = 4
    seed: int = 0
    serve: str = "auto"  # auto (vLLM when installed and a GPU is there) | vllm | transformers
    site_port: int = 0  # every run serves the sites here (0: a free port chosen once), so the
    # URLs a model reads in its prompts are the ones it was trained on

    def check(self) -> None:
        """Raise ConfigError for a server we do not know or an ``out`` already used."""
        if self.serve not in SERVERS:
            raise ConfigError(f"--serve {self.serve!r}: choose one of {', '.join(SERVERS)}")
        out = Path(self.out)
        if out.exists() and any(out.iterdir()):
            raise ConfigError(
                f"{out} is not empty: the loop starts from scratch, choose a new --out"
            )
