"""One training example: the context a policy saw at a step, the reply it gave, and its credit.

Exports and the trainer both consume ``Example``: exports write them in a trainer's format, the
reference trainer tokenizes them. ``prompt`` is exactly what the policy's template built for
that step (``PromptTemplate.context``), in the OpenAI chat format, screenshots as data-URL
image parts; ``reply`` is the model's text for the step, the assistant turn to learn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webdojo.models.content import ImageRef, decode_image_part, image_parts
from webdojo.training.samples import Sample

Message = dict[str, Any]


@dataclass(frozen=True)
class Example:
    sample: Sample  # where it comes from, its reward, advantage and weight
    prompt: list[Message]  # system + user turns (and earlier assistant turns, if the template
    # keeps them), as sent to the model
    reply: str  # the assistant turn to learn

    @property
    def messages(self) -> list[Message]:
        """The whole conversation: the prompt, then the reply as the assistant's turn."""
        return [*self.prompt, {"role": "assistant", "content": self.reply}]


def image_refs(messages: list[Message]) -> list[ImageRef]:
    """The images of ``messages`` in order (data-URL image parts only)."""
    return [decode_image_part(part) for part in image_parts(messages)]
