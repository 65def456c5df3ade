"""webdojo's page-side scripts, installed once in every document and called by name.

hooks.js, the context's init script, keeps a document's counters and token. act.js (the
executor's helpers and the post-action check), dom.js (the snapshot) and shot.js (readying a
screenshot) are functions the session runs in the page. Sent whole with each call, they cost
about 12 KB per post-action check and 14 KB per snapshot, carried through Playwright's pipe,
its driver and the browser and evaluated again in the renderer, several times a step. The
init script (``INIT_JS``) now also installs them in the document's webdojo state, and a call
sends a few dozen bytes naming one.

A document where they are missing (the init script did not run in it, or dom.js left a
stand-in state there) answers ``MISSING``, and the call is sent again with the whole source:
the same result, one round trip more. The installed functions are frozen on a property that
the page cannot overwrite; the page's own scripts could always reach the webdojo state in the
main world. The one read a reward rests on, the final state, still sends the whole source
(``BrowserSession.final_state``), so that it never runs a function the page put in place.

A step's reads (the post-action check, a title, the snapshot) go through the tab's CDP
session as a bare ``Runtime.evaluate`` (``read``), at about half the CPU of Playwright's
evaluate; actions go through the latter (``call``), which runs them as a user gesture.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError


def _script(name: str) -> str:
    return resources.files("webdojo.browser").joinpath(name).read_text(encoding="utf-8")


HOOKS_JS = _script("hooks.js")  # navigation/popup counters, document token
DOM_JS = _script("dom.js")  # the snapshot walker
ACT_JS = _script("act.js")  # executor helpers (locate, select, scroll, check, ...)
SHOT_JS = _script("shot.js")  # readies a document for Page.captureScreenshot

MISSING = "webdojo:not-installed"  # no script returns this string


def _check_and_prepare(act: str, shot: str) -> str:
    """act.js's check, then shot.js's prepare_now if the check found the document it was told
    of (``args.seen``: token and hooks.js counters) with nothing started since, or, with
    ``seen`` null, any document with the hooks in place (an observation's first read of a
    new page). A check sent just as a navigation committed can run in the new document once
    it has loaded (a busy machine): that one, loaded and with nothing started, is readied
    too, as TabState.note then reports no navigation to wait for. ``shot`` in the result:
    what prepare_now returned (null: the fonts were still loading, nothing was done; or the
    page's scripts broke it, which the capture's own evaluate then meets and falls back on)."""
    return f"""(args) => {{
  const found = ({act})(args);
  const seen = args.seen;
  const calm = !found.navs && !found.popups && !found.submits;
  const same = seen && found.doc === seen.doc && found.navs === seen.navs &&
      found.popups === seen.popups && found.submits === seen.submits;
  const loaded = seen && found.doc !== seen.doc && found.ready === "complete" && calm;
  if (found.doc && (!seen || same || loaded)) {{
    try {{ found.shot = ({shot})("prepare_now"); }} catch (e) {{ found.shot = null; }}
  }}
  return found;
}}"""


CHECK_AND_PREPARE = _check_and_prepare(ACT_JS, SHOT_JS)


def _snap_and_prepare(dom: str, shot: str) -> str:
    """dom.js, then with ``opts.ready`` shot.js's prepare_now: ``{text, shot}``, dom.js's JSON
    text and what prepare_now returned (null: nothing readied)."""
    return f"""(opts) => {{
  const text = ({dom})(opts);
  let shot = null;
  if (opts.ready) {{ try {{ shot = ({shot})("prepare_now"); }} catch (e) {{ shot = null; }} }}
  return {{ text, shot }};
}}"""


_INSTALL = f"""(() => {{
  const st = window[Symbol.for("webdojo")];
  if (!st || st.fns) return;
  const fns = {{ act: {ACT_JS}, dom: {DOM_JS}, shot: {SHOT_JS} }};
  fns.check = {_check_and_prepare("fns.act", "fns.shot")};
  fns.snap = {_snap_and_prepare("fns.dom", "fns.shot")};
  Object.defineProperty(st, "fns", {{ value: Object.freeze(fns), enumerable: false }});
  try {{ fns.shot("caret"); }} catch (e) {{}}  // before the page has styles: free (shot.js)
}})();"""

# The context's init script, and what a document found without it is given (tabs.py).
INIT_JS = f"{HOOKS_JS}\n{_INSTALL}"

_WHOLE = {  # what a call sends where the installed function is missing
    "act": ACT_JS,
    "check": CHECK_AND_PREPARE,
    "snap": _snap_and_prepare(DOM_JS, SHOT_JS),
}
_CALL = f"""(a) => {{
  const st = window[Symbol.for("webdojo")];
  const f = st && st.fns ? st.fns[a.fn] : null;
  return typeof f === "function" ? f(a.args) : "{MISSING}";
}}"""


async def call(page: Page, fn: str, args: Any) -> Any:
    """Run ``fn`` (act, check or snap) with ``args`` in the page's main frame, as
    ``page.evaluate(<its source>, args)`` would. For an action: Playwright's evaluate runs it
    as a user gesture, which the page's handlers may need (``window.open`` on a change)."""
    result = await page.evaluate(_CALL, {"fn": fn, "args": args})
    if result == MISSING:
        return await page.evaluate(_WHOLE[fn], args)
    return result


async def read(cdp: CDPSession, fn: str, args: Any) -> Any:
    """``call`` for a step's reads (the post-action check, a title, the snapshot and its
    marks) through the tab's CDP session: a bare ``Runtime.evaluate``. Playwright's evaluate
    wraps the call in its utility script on both sides: the check costs 2.43 ms of CPU that
    way and 1.40 ms this way (``python scripts/evaluate_cost.py``). It runs in whatever
    document is current when it arrives: no context is pinned, so a navigation does not
    destroy it midway. Raises Playwright's ``Error`` where the script threw or the page went
    away."""
    whole = f"({_WHOLE[fn]})({json.dumps(args)})"
    answer = await _installed_or_whole(cdp, _call_expression(fn, args), whole)
    if "exceptionDetails" in answer:
        details = answer["exceptionDetails"]
        raise PlaywrightError(str(details.get("exception", {}).get("description") or details))
    return answer.get("result", {}).get("value")


def _call_expression(fn: str, args: Any) -> str:
    """The lookup of ``call`` as one expression, its arguments written in as JSON."""
    return f"({_CALL})({json.dumps({'fn': fn, 'args': args})})"


def shot_expressions(op: str) -> tuple[str, str]:
    """shot.js ``op`` as CDP expressions: the call of the installed function, and the whole
    source that is sent where it is missing."""
    return _call_expression("shot", op), f"({SHOT_JS})({op!r})"


_SHOT = {op: shot_expressions(op) for op in ("prepare", "resume")}


async def shot(cdp: CDPSession, op: str) -> dict[str, Any]:
    """shot.js ``op`` (prepare or resume) through the tab's CDP session: the answer of
    ``Runtime.evaluate`` (``result.value``, or ``exceptionDetails`` if the page broke it)."""
    return await _installed_or_whole(cdp, *_SHOT[op])


async def _installed_or_whole(cdp: CDPSession, short: str, whole: str) -> dict[str, Any]:
    """``Runtime.evaluate``'s answer to ``short`` (the installed function's call), or to
    ``whole`` (its source) where the function is missing."""
    answer: dict[str, Any] = await cdp.send("Runtime.evaluate", _evaluate(short))
    if answer.get("result", {}).get("value") == MISSING:
        answer = await cdp.send("Runtime.evaluate", _evaluate(whole))
    return answer


def _evaluate(expression: str) -> dict[str, Any]:
    return {"expression": expression, "awaitPromise": True, "returnByValue": True}
