"""Task families on the built-in wiki (the Veshari Compendium): its articles are read from
``articles-*.js``.

``wiki-fact-save``: read one fact off an article (an infobox row, or a cell of one of its
tables, named by caption, row and column), answer it, and add a given article (that one or
another) to the reading list. One instance per fact (332) and article to save (16): 5,312.

``wiki-search-save``: search the Compendium for a given word and add the first, second or third
article of the ranked results to the reading list. The ranking is the site's own (``wiki.js``),
recomputed here. One instance per word and rank: 1,354.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webdojo.observation import FinalState
from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.loader import builtin_root
from webdojo.tasks.schema import AnswerCheck
from webdojo.tasks.verify import run_check

SITE = "wiki"
READING = "wiki.reading_list"
MAX_ANSWER_CHARS = 40  # longer cells are sentences: too much to copy for a short answer
ORDINALS = ("first", "second", "third")

# --- the articles (JavaScript object literals, read as JSON) -----------------------------

_PUSH = re.compile(r"WIKI_ARTICLES\.push\((\{.*?\n\})\);", re.DOTALL)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _as_json(js: str) -> str:
    """A JS object literal as JSON: quote the bare keys and drop trailing commas, outside
    string literals only."""
    out, at = [], 0
    for match in _STRING.finditer(js):
        out += [_bare_to_json(js[at : match.start()]), match.group()]
        at = match.end()
    return "".join([*out, _bare_to_json(js[at:])])


def _bare_to_json(code: str) -> str:
    code = re.sub(r"([A-Za-z_]\w*)\s*:", r'"\1":', code)
    return re.sub(r",(\s*[}\]])", r"\1", code)


@functools.cache
def articles() -> tuple[dict[str, Any], ...]:
    """Every article, in the order the site loads them (articles-a.js to articles-d.js)."""
    found: list[dict[str, Any]] = []
    for path in sorted((builtin_root() / SITE).glob("articles-*.js")):
        text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        found += [json.loads(_as_json(m[1])) for m in _PUSH.finditer(text)]
    return tuple(found)


@functools.cache
def titles() -> dict[str, str]:
    return {a["id"]: a["title"] for a in articles()}


def plain(text: str) -> str:
    """Markup as the page shows it: links as their text, no bold or italics (wiki.js)."""
    text = re.sub(r"\[\[([a-z0-9-]+)\|([^\]]+)\]\]", r"\2", text)
    text = re.sub(r"\[\[([a-z0-9-]+)\]\]", lambda m: titles().get(m[1], m[1]), text)
    return re.sub(r"\*([^*]+)\*", r"\1", re.sub(r"\*\*([^*]+)\*\*", r"\1", text))


# --- wiki-fact-save ----------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """One value shown in an article, the question that asks for it and a wrong answer."""

    article: str
    question: str
    answer: str
    check: dict[str, Any]
    wrong: str


_NUMBER = re.compile(r"^(?:about )?([0-9][0-9,]*(?:\.[0-9]+)?)[^0-9]*$")


def answer_check(value: str) -> tuple[str, dict[str, Any]] | None:
    """The answer to give for a shown value and the check that accepts it: a number (with its
    unit or a note in brackets) by value, short text by containment; None for values too long
    or too mixed to ask for (dates with years, ranges, sentences)."""
    core = re.sub(r"\s*\([^)]*\)$", "", value).strip('“”" ')
    number = _NUMBER.match(core)
    if number:
        return core, {"kind": "answer", "match": "number", "value": _to_number(number[1])}
    if re.search(r"[0-9]", core) or not 3 <= len(core) <= MAX_ANSWER_CHARS:
        return None
    # "The Lantern Guild": an answer without the article is as right
    wanted = re.sub(r"^the ", "", core, flags=re.IGNORECASE)
    return core, {"kind": "answer", "match": "contains", "value": wanted}


def _to_number(text: str) -> float | int:
    value = float(text.replace(",", ""))
    return int(value) if value.is_integer() else value


def _accepts(check: dict[str, Any], answer: str) -> bool:
    """Whether ``check`` would pass ``answer`` (the verifier's own comparison)."""
    return run_check(AnswerCheck.model_validate(check), FinalState(url="", answer=answer))[0]


def _facts_from(article: str, rows: Sequence[tuple[str, str]], ask: str) -> list[Fact]:
    """Facts from (label, value) rows that sit side by side: each wrong answer is another
    row's value that the check rejects (a misread row)."""
    labels = [label for label, _ in rows]
    found = []
    for i, (label, value) in enumerate(rows):
        made = answer_check(value)
        if made is None or labels.count(label) > 1:
            continue
        answer, check = made
        others = [plain(v) for _, v in [*rows[i + 1 :], *rows[:i]]]
        wrong = next((o for o in others if o != "—" and not _accepts(check, o)), None)
        if wrong is not None:
            found.append(Fact(article, ask.format(label=label), answer, check, wrong))
    return found


def _article_facts(article: dict[str, Any]) -> list[Fact]:
    title = article["title"]
    rows = [(plain(k), plain(v)) for k, v in article["infobox"]["rows"]]
    where = f'In the Compendium article "{title}", what does'
    found = _facts_from(article["id"], rows, where + ' the infobox give for "{label}"?')
    for section in article["sections"]:
        for item in section["body"]:
            if not isinstance(item, dict) or "table" not in item:
                continue
            table = item["table"]
            caption = plain(table["caption"])
            for col, head in enumerate(table["head"][1:], start=1):
                cells = [(plain(r[0]), plain(r[col])) for r in table["rows"]]
                ask = f'{where} the table "{caption}" give as "{head}" in the row "{{label}}"?'
                found += _facts_from(article["id"], cells, ask)
    return found


@functools.cache
def facts() -> tuple[Fact, ...]:
    return tuple(f for a in articles() for f in _article_facts(a))


def _open(article: str) -> list[dict[str, Any]]:
    """Search for an article's title and open it from the results (titles rank first)."""
    return [
        {
            "type": "type",
            "target": {"html_id": "search-input"},
            "text": titles()[article],
            "enter": True,
        },
        {"type": "click", "target": {"html_id": f"result-{article}"}},
    ]


def _toggle() -> dict[str, Any]:
    return {"type": "click", "target": {"html_id": "reading-toggle"}}


def _stop(answer: str | None = None) -> dict[str, Any]:
    return {"type": "stop"} if answer is None else {"type": "stop", "answer": answer}


def fact_save(fact: Fact, save: str) -> Instance:
    same = save == fact.article
    where = "that article" if same else f'the article "{titles()[save]}"'
    read = _open(fact.article)
    saved = [_toggle()] if same else [*_open(save), _toggle()]
    # the other mistake: the article read is saved instead, or (when it is the one) none
    misplaced = [] if same else [_toggle()]
    return Instance(
        instruction=f"{fact.question} Add {where} to your reading list, then reply with the "
        "answer.",
        solution=[*read, *saved, _stop(fact.answer)],
        wrong_solutions=[
            [*read, *saved, _stop(fact.wrong)],  # a misread row
            [*read, *misplaced, _stop(fact.answer)],
        ],
        checks=[fact.check, {"kind": "storage", "key": READING, "op": "eq", "value": [save]}],
        params={"article": fact.article, "question": fact.question, "save": save},
    )


# --- wiki-search-save: the site's search ranking (wiki.js ``rank``) -----------------------

# wiki.js's STOP words, and "constructor": a JS object literal has that key too
_STOP = frozenset(
    {
        "the",
        "a",
        "an",
        "of",
        "and",
        "in",
        "on",
        "to",
        "is",
        "was",
        "for",
        "by",
        "at",
        "with",
        "what",
        "who",
        "which",
        "constructor",
    }
)


def tokens(text: str) -> list[str]:
    words = re.split(r"[^a-z0-9\u00c0-\u024f]+", plain(text).lower())
    return [w for w in words if w and w not in _STOP]


@dataclass(frozen=True)
class Entry:
    """One article in the search index: what a query's words are matched against."""

    id: str
    title: str
    title_tokens: frozenset[str]
    alias_words: frozenset[str]
    aliases: frozenset[str]
    heading_tokens: frozenset[str]
    tf: dict[str, int]


def _entry(article: dict[str, Any]) -> Entry:
    parts, headings = list(article["lead"]), []
    for section in article["sections"]:
        headings.append(section["title"])
        for item in section["body"]:
            if isinstance(item, str):
                parts.append(item)
            elif "h3" in item:
                headings.append(item["h3"])
            elif "list" in item:
                parts += item["list"]
            elif "table" in item:
                parts.append(item["table"]["caption"])
                parts += [" ".join(row) for row in item["table"]["rows"]]
    parts += [" ".join(row) for row in article["infobox"]["rows"]]
    tf: dict[str, int] = {}
    for token in tokens(plain(" \n".join(parts))):
        tf[token] = tf.get(token, 0) + 1
    aliases = [a.lower() for a in article.get("aliases", [])]
    return Entry(
        id=article["id"],
        title=article["title"],
        title_tokens=frozenset(tokens(article["title"])),
        alias_words=frozenset(w for a in aliases for w in a.split()),
        aliases=frozenset(aliases),
        heading_tokens=frozenset(tokens(" ".join(headings))),
        tf=tf,
    )


@functools.cache
def index() -> tuple[Entry, ...]:
    return tuple(_entry(a) for a in articles())


def rank(word: str) -> list[str]:
    """The ids the search page lists for a one-word query, best first (one word: every score
    is a whole number, so no rounding to mirror)."""
    scored = []
    for e in index():
        score = 12 * (word in e.title_tokens) + 8 * (word in e.alias_words)
        score += 3 * (word in e.heading_tokens) + min(e.tf.get(word, 0), 10)
        if not score:
            continue
        title = e.title.lower()
        score += 40 if title == word else 15 if word in title else 0
        score += 15 if word in e.aliases else 0
        scored.append((-score, e.title, e.id))
    return [i for *_, i in sorted(scored)]


@functools.cache
def searches() -> tuple[tuple[str, int], ...]:
    """(word, rank) pairs: words of four letters or more with at least two results (so a
    neighbour in the list is the plausible mistake) and ranks the results reach."""
    words = sorted({t for e in index() for t in (*e.tf, *e.title_tokens)})
    found = []
    for word in words:
        if not re.fullmatch(r"[a-z]{4,}", word) or word in _STOP:
            continue
        n = len(rank(word))
        found += [(word, r) for r in range(len(ORDINALS)) if n >= 2 and r < n]
    return tuple(found)


def search_save(search: tuple[str, int]) -> Instance:
    word, at = search
    ranked = rank(word)
    chosen, neighbour = ranked[at], ranked[at + 1 if at == 0 else at - 1]
    find = {"type": "type", "target": {"html_id": "search-input"}, "text": word, "enter": True}

    def pick(article: str) -> list[dict[str, Any]]:
        return [find, {"type": "click", "target": {"html_id": f"result-{article}"}}]

    return Instance(
        instruction=f'Search the Compendium for "{word}" and add the {ORDINALS[at]} article '
        "in the results to your reading list.",
        solution=[*pick(chosen), _toggle(), _stop()],
        wrong_solutions=[
            [*pick(neighbour), _toggle(), _stop()],  # its neighbour in the list
            [*pick(chosen), _stop()],  # opened, never added
        ],
        checks=[{"kind": "storage", "key": READING, "op": "eq", "value": [chosen]}],
        params={"word": word, "rank": at + 1, "article": chosen},
    )


FAMILIES = [
    Family(
        name="wiki-fact-save",
        site=SITE,
        summary="answer a fact from an article's infobox or table and save a given article "
        "to the reading list",
        axes=(facts(), tuple(a["id"] for a in articles())),
        build=fact_save,
        max_steps=10,
        tags=("answer", "reading-list"),
    ),
    Family(
        name="wiki-search-save",
        site=SITE,
        summary="search for a word and add the result at a given rank to the reading list",
        axes=(searches(),),
        build=search_save,
        max_steps=7,
        tags=("search", "reading-list"),
    ),
]
