"""SQuAD v1.1's answer metrics: exact match and token F1 against golden answers.

They live with the tasks because both the programmatic verifier (``AnswerCheck`` with
``match="em"``, the reward of QA episodes) and the answer judges (``webdojo.judges.
answer_match``) score answers with them, and the judges sit above the tasks.

* **normalization** (``normalize_answer``): lower case, drop ASCII punctuation
  (``string.punctuation``), drop the words a / an / the, collapse whitespace;
* **exact match**: the normalized strings are equal;
* **F1**: precision and recall over the normalized tokens, shared tokens counted with their
  multiplicity; no shared token gives 0;
* **several golden answers**: the best score over them.
"""

from __future__ import annotations

import re
import string
from collections import Counter

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1's normalization: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(truth)


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD v1.1's token F1 of two answers (0.0 when they share no token)."""
    predicted = normalize_answer(prediction).split()
    expected = normalize_answer(truth).split()
    same = sum((Counter(predicted) & Counter(expected)).values())
    if same == 0:
        return 0.0
    precision = same / len(predicted)
    recall = same / len(expected)
    return 2 * precision * recall / (precision + recall)


def best_scores(prediction: str, golden: list[str]) -> tuple[bool, float]:
    """(exact match with any golden answer, the best token F1 over them)."""
    if not golden:
        return False, 0.0
    return (
        any(exact_match(prediction, g) for g in golden),
        max(token_f1(prediction, g) for g in golden),
    )
