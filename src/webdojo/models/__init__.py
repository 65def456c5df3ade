"""The OpenAI-compatible model client shared by policies, judges and generators."""

from webdojo.models.client import ChatResult, ModelClient, check_endpoint, translate_error
from webdojo.models.config import ModelConfig
from webdojo.models.content import count_images, image_data_url, image_part, message, text_part

__all__ = [
    "ChatResult",
    "ModelClient",
    "ModelConfig",
    "check_endpoint",
    "count_images",
    "image_data_url",
    "image_part",
    "message",
    "text_part",
    "translate_error",
]
