"""Trainer checkpoints: everything a killed run needs to go on as if it had never stopped.

    OUT/checkpoints/step-000040/
        checkpoint.json    step, data cursor, data fingerprint, settings, where the model is
        trainer_state.pt   optimizer state and random number generator states
        model/             ModelBundle.save: the full model (no LoRA)
        adapter/           the LoRA adapter (LoRA: the frozen base is saved once, OUT/base/)

A checkpoint is written into a hidden temporary directory and renamed into place, so a
directory named ``step-*`` is always complete. ``load_bundle`` reads a checkpoint directory
directly, so serving or evaluating one is ``load_bundle(path)``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from webdojo.training.tiny_models import CHECKPOINT_FILE, ModelBundle

DIR = "checkpoints"
STATE = "trainer_state.pt"
BASE = "base"  # OUT/base/: LoRA's frozen base model, saved once


@dataclass(frozen=True)
class Resumed:
    """What ``latest`` found: where it is and what it holds."""

    path: Path
    step: int  # steps done
    cursor: int  # examples consumed from the data stream
    fingerprint: str  # of the data and the settings that decide the data order
    state: dict[str, Any]  # optimizer and RNG states (torch.load of trainer_state.pt)


def save(
    out: Path,
    bundle: ModelBundle,
    optimizer: torch.optim.Optimizer,
    info: dict[str, Any],
    *,
    keep: int,
) -> Path:
    """Write ``OUT/checkpoints/step-NNNNNN`` atomically, then delete all but the ``keep`` newest.
    ``info`` holds step, cursor, fingerprint and settings (JSON)."""
    root = out / DIR
    final = root / f"step-{info['step']:06d}"
    tmp = root / f".{final.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if _is_peft(bundle.model):
        bundle.model.save_pretrained(tmp / "adapter")
        info = {**info, "base": os.path.relpath(out / BASE, final)}
    else:
        bundle.save(tmp / "model")
    torch.save({"optimizer": optimizer.state_dict(), "rng": rng_state()}, tmp / STATE)
    (tmp / CHECKPOINT_FILE).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(final, ignore_errors=True)  # a half-finished rename target from a crash
    os.replace(tmp, final)
    for old in all_checkpoints(out)[:-keep] if keep > 0 else []:
        shutil.rmtree(old, ignore_errors=True)
    return final


def save_base(out: Path, bundle: ModelBundle) -> None:
    """LoRA: the frozen base model, once, before the adapter is added (atomic like a checkpoint)."""
    final = out / BASE
    if final.is_dir():
        return
    tmp = out / f".{BASE}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    bundle.save(tmp)
    os.replace(tmp, final)


def all_checkpoints(out: Path) -> list[Path]:
    """Complete checkpoints, oldest first."""
    root = out / DIR
    if not root.is_dir():
        return []
    found = [p for p in root.glob("step-*") if (p / CHECKPOINT_FILE).is_file()]
    return sorted(found, key=lambda p: p.name)


def latest(out: Path) -> Resumed | None:
    found = all_checkpoints(out)
    if not found:
        return None
    path = found[-1]
    info = json.loads((path / CHECKPOINT_FILE).read_text(encoding="utf-8"))
    state = torch.load(path / STATE, map_location="cpu", weights_only=False)
    return Resumed(path, info["step"], info["cursor"], info["fingerprint"], state)


def rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _is_peft(model: Any) -> bool:
    return hasattr(model, "peft_config")
