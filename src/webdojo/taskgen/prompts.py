"""Our prompts for rubric generation and decomposition (WebGym appendix E.5 and E.6: the same
structure and rules, our own wording).

Each prompt has a version that is part of every cache key: change the wording, bump the version,
and old cached replies are no longer used. ``tests/taskgen/test_prompts.py`` pins a hash of the
text to the version so a silent edit fails a test.

The guidelines go in the system message and the task in the user message, so a server with
prefix caching (vLLM, SGLang) reuses the long shared part across thousands of tasks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from webdojo.tasks.schema import FactGroup

RUBRIC_PROMPT_VERSION = "rubric-1"
DECOMPOSE_PROMPT_VERSION = "decompose-1"

RUBRIC_GUIDELINES = """\
You write evaluation rubrics for web-browsing tasks. A rubric lists the facts that a person \
checking the agent's work must see established before calling the task done.

# What to produce
1. Split the task into groups of related requirements (fact groups).
2. In each group, list facts. A fact is ONE checkable requirement: something a reviewer can \
confirm or refute by looking at what the agent did and answered.
3. Every fact counts 1. The task's difficulty is the total number of facts over all groups.

# Rules
- Read the whole task first, then group. Be thorough: every requirement the task states becomes \
a fact, split as finely as the task allows.
- All facts must hold for the task to be done (they are combined with AND).
- Only the task's own requirements: never invent a constraint, detail or item it does not state.

## Alternatives stay one fact
When the task allows alternatives ("X or Y"), write them as ONE fact with the word OR in \
capitals, e.g. "a refund policy OR an exchange policy for opened items". Never split the \
alternatives into separate facts or groups: that would demand both.

## A calculation is one fact
When the task asks for a computed result (arithmetic, unit conversion, a physics or finance \
formula), the result is a single fact, e.g. "the total price of 3 tickets including fees". Do not \
list the intermediate steps.

## "How to" questions are one fact
When the task asks how to do something, it wants the site's instructions, not the agent to carry \
them out. Write one fact such as "instructions for resetting the router to factory settings", \
not one fact per step.

## Do not spell out what the task leaves open
When the task asks for "details", "information" or "the options" without naming them, write one \
fact for them ("shipping information for the order"). Do not guess their parts (phone, email, \
address...).

## Examples are not requirements
Words such as "such as", "for example", "like" or "e.g." introduce illustrations. Never turn the \
illustrations into facts; keep only the requirement they illustrate.

# Example
Task: Find a 2-bedroom apartment for rent in Austin under $1,800 per month that allows dogs, and \
give its address and the listing's contact phone number.
Reply:
{"fact_groups": [
  {"id": 1, "description": "an apartment that matches the search",
   "facts": ["apartment is for rent", "apartment is in Austin", "apartment has 2 bedrooms",
             "rent is under $1,800 per month", "apartment allows dogs"]},
  {"id": 2, "description": "details of the chosen apartment",
   "facts": ["address of the apartment", "contact phone number of the listing"]}
 ],
 "difficulty": 7}

# Reply format
Reply with one JSON object and nothing else:
- "fact_groups": a list of objects, each with "id" (an integer: 1, 2, 3...), "description" (a few \
words on what the group covers) and "facts" (a non-empty list of strings);
- "difficulty": an integer, the total number of facts in all groups."""

DECOMPOSE_GUIDELINES = """\
You rewrite a web-browsing task into a smaller task. You get the original task and some of the \
fact groups of its rubric. Write a new task that asks for exactly the requirements in the given \
facts.

# Rules
1. Include every requirement stated in the given facts.
2. Include nothing else: leave out the requirements of the groups not given, and do not add \
anything of your own.
3. The original task is context only. A constraint that appears in the original task but not in \
the given facts must NOT appear in the new task. For example, if the given facts speak of "a \
hotel" and the original task asked for "a hotel in Lisbon with free breakfast", but no given fact \
mentions Lisbon or breakfast, the new task asks for a hotel without those constraints.
4. Keep the website and the domain of the original task when the given facts need them to make \
sense, and write a natural, self-contained instruction that a person could follow.

# Example
Original task: Find the opening hours of the Louvre on Wednesdays and the price of an adult \
ticket bought online.
Given fact groups:
- Group 2 (ticket price): price of an adult ticket, ticket bought online
New task: Find the price of an adult ticket to the Louvre bought online.

# Reply format
Reply with the new task only, as plain text on one line: no JSON, no quotes, no label."""

RUBRIC_REPAIR = (
    "That reply could not be used: {error}\n"
    "Reply again with one JSON object in the format described above, and nothing else."
)
DECOMPOSE_REPAIR = (
    "That reply could not be used: {error}\n"
    "Reply again with the new task only, as plain text on one line."
)


def rubric_messages(instruction: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": RUBRIC_GUIDELINES},
        {"role": "user", "content": f"Task: {instruction}\nReply:"},
    ]


def groups_text(groups: Sequence[FactGroup]) -> str:
    """The selected groups as the decomposition prompt lists them, one line each."""
    lines = []
    for group in groups:
        about = f" ({group.description})" if group.description else ""
        lines.append(f"- Group {group.id}{about}: {', '.join(group.facts)}")
    return "\n".join(lines)


def decompose_messages(instruction: str, groups: Sequence[FactGroup]) -> list[dict[str, Any]]:
    user = f"Original task: {instruction}\nGiven fact groups:\n{groups_text(groups)}\nNew task:"
    return [
        {"role": "system", "content": DECOMPOSE_GUIDELINES},
        {"role": "user", "content": user},
    ]


def groups_key(groups: Sequence[FactGroup]) -> str:
    """The selected groups as canonical JSON, for cache keys."""
    return json.dumps([g.model_dump() for g in groups], sort_keys=True, ensure_ascii=False)
