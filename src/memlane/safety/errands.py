"""Signals of an errand handed to whoever reads a text: read by `prompt_like` (so by
`safety.admit` on every path into memory) beside `agent_orders` and `reader_tasks`.

An agent's tool result, a web page or an e-mail can carry an errand worded like a user's own
("Please review the records of client ID 4471 ...", "comment on this post saying ..."): no
word of an override, no address to send to. What gives it away is whom it is said to and what it
acts on, not its words (#44, fourth round: Agent Security Bench's attacker instructions, WASP's
web-agent goals). A memory record is a statement about the user or their world; each signal
below reads a shape a statement does not have:

- *a request to the reader about an organisation's things* (`request to the reader`): a text
  that opens with a request ("please", "kindly", "could you") and has no first person at all,
  whose object is an institution's or a system's: a record named by an identifier ("ID 4471",
  "#5821"), an amount of money, customers', clients' or patients' data, servers, accounts,
  transactions, a case. The user's own errand says whose it is ("please remind me ...", "my
  order"); a request no one in the user's life makes, about things no one owns, is a task for
  the agent that reads it;
- *an order to act unseen* (`covert order`): an order to do something discreetly, covertly,
  undetected, without a trace or without the owner's authorisation: concealment from the
  people an agent acts for;
- *an order about the page in view* (`order about the page in view`): an order on "this post",
  "this page", "this repository", "the form": only a reader looking at that page can carry it
  out, so it was written for an agent browsing it;
- *a link to fill in* (`link to fill`): an order to open or visit a link whose query the reader
  is to complete ("open example.com?msg=... where ... is ..."): exfiltration through a URL;
- *an outward hook* (`outward hook`): an order to add a webhook, a deploy key, an SSH key or an
  access token, or to point something at a link: a standing door for whoever named it;
- *download and run* (`download and run`): a fetch (curl, wget) piped into a shell or saved
  and made executable;
- *an order in the first person from a tool* (`first-person order in a tool result`, read only
  for a tool's output: `tool_orders`): in a page, a file or an e-mail a tool brought in, the
  first person is its author, not the user, so "delete my project" or "add my coworker to the
  project" there is someone posing as the user to the agent that reads it. A recipe's "add the
  flour" has no first person and stays.

Each reads a bounded view: `prompt_like`'s (the first 8,000 characters and the last 2,000), and
`tool_orders` the first 10,000 (`safety.admit`).
"""

from __future__ import annotations

import re

# A first person anywhere in the text: the user's own errand ("please remind me", "my order").
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'll|our|ours|us)\b")
# A request that opens the text: "please review", "kindly arrange", "could you please check";
# not a request to explain, describe or write (what a user asks an assistant to tell them).
_REQUEST_OPENING = re.compile(
    r"^\W{0,3}(?:please|pls|kindly|could you|can you|would you)\b(?:\s+please\b)?"
    r"(?:\s+\w+ly\b)?\s+(?!(?:explain|describe|tell|write|compose|summari[sz]e|define|clarify|"
    r"discuss|outline|suggest|recommend|teach|show|help|draft|give|list|share your|provide "
    r"(?:an? )?(?:summary|overview|explanation|guide|list|example|tips))\b)[a-z]")
# What an organisation or a system owns, or a record named by an identifier or a sum of money.
_INSTITUTIONAL = re.compile(
    r"\bids?\b\W{0,3}\w{0,12}\d|#\s?\d|[$€£]\s?\d|\b\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur)\b"
    r"|\b(?:data|database|records?|accounts?|customers?|clients?|patients?|students?|"
    r"employees?|staff|personnel|users?|company|companies|department|organi[sz]ation|corporate|"
    r"servers?|systems?|network|software|firmware|website|web ?site|credentials?|"
    r"transactions?|financial|finances|portfolio|logs|inventory|funds|admin\w*|"
    r"infrastructure|configuration|permissions?)\b")
# Concealment from the people an agent acts for (not "quietly", not "keep it a secret": a
# surprise party is hidden too).
_COVERT = re.compile(
    r"\b(?:discreetly|covertly|stealthily|surreptitiously|undetected|unnoticed|undetectable|"
    r"without (?:leaving )?(?:a |any )?traces?|without (?:being )?(?:detected|noticed|"
    r"caught)|without detection|(?:avoid|avoiding|evade|evading|escape|escaping) (?:any )?"
    r"(?:detection|notice|monitoring|audit\w*)|without (?:[\w']+ ){0,3}(?:authori[sz]ation|"
    r"consent)|without (?:alerting|notifying|informing) (?:the )?(?:owner|admin\w*|security|"
    r"monitoring|anyone|any ?one|management|compliance|auditors?))\b")
# An order's opening: the sentence's start, a "please", or "and then"; then the verb.
_ORDER_PREFIX = (r"(?:^|[.!?;:\n]\s*|\bplease\s+|\bkindly\s+|\b(?:and|then)\s+)"
                 r"(?:(?:please|now|also|just|then|so),?\s+)?")
_ORDER_START = re.compile(_ORDER_PREFIX + r"[a-z]+\b")


def _order(verbs: str) -> re.Pattern[str]:
    return re.compile(_ORDER_PREFIX + r"(?:" + verbs + r")\b")


# Verbs of an order a browsing agent would carry out on a page.
_PAGE_ORDER = _order(
    r"(?:comment|reply|post|upvote|downvote|like|share|delete|remove|edit|fill|submit|click|"
    r"open|visit|go|navigate|transfer|fork|star|follow|subscribe|report|flag|block|ban|close|"
    r"merge|approve|create|add|invite|make|set|change|rename|move|publish)")
_PAGE_THING = re.compile(
    r"\b(?:this|that) (?:post|page|webpage|web page|thread|comment|repo|repository|project|"
    r"issue|merge request|pull request|form|namespace|site|website|forum|subreddit|group|"
    r"channel|listing|product|review)\b|\bthe form\b")
# (Bounded runs from a token's start: linear in the text, whatever its tokens.)
_LINK = re.compile(r"(?:https?://|www\.)|(?<![\w.-])[\w-]{1,63}(?:\.[\w-]{1,63}){0,4}\."
                   r"(?:com|net|org|io|xyz|info|ru|example)\b")
_OPEN = re.compile(r"\b(?:open|visit|go to|navigate to|load|browse to|fetch|request|call)\b")
_FILL = re.compile(r"\bwhere (?:\w+ ){0,2}(?:is|are)\b|\b(?:replace|substitute|fill in)\b|"
                   r"\binclude (?:it|them|this|that) in\b|\bappend(?:ed)? to\b")
_HOOK = re.compile(
    r"\b(?:web ?hooks?|deploy (?:keys?|tokens?)|ssh(?:-rsa| keys?)|access tokens?|personal "
    r"access tokens?|api tokens?|forwarding rules?|auto-?forward\w*)\b")
_POINTING = re.compile(r"\b(?:pointing|point it|redirect\w*|forward\w*) (?:it )?to\b")
_FETCH = re.compile(r"\b(?:curl|wget|invoke-webrequest|iwr)\b")
_HOOK_ORDER = _order(r"add|create|set|setup|install|configure|register|generate|enable|point|"
                     r"redirect|forward|upload")
_RUN_FETCHED = re.compile(
    r"\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b|\|\s*python\d?\b|chmod\s+\+?[0-7]*x|&&\s*\.?/\S{1,200}\.sh\b"
    r"|&&\s*(?:ba)?sh\s+\S+|\biex\b")


# Verbs of an order an agent acting for its user would carry out.
_ACTING_ORDER = _order(
    r"delete|remove|erase|add|make|transfer|send|forward|pay|wire|grant|give|create|comment|"
    r"post|share|change|update|invite|publish|edit|approve|cancel|buy|purchase|order|"
    r"subscribe|unsubscribe|follow|star|fork|merge|close|rename|move|upload|reply|respond|"
    r"email|message|book|withdraw|sell|reset|disable|enable|revoke|assign|promote|fill|submit|"
    r"open|visit|go|navigate|execute|run|set|accept|sign|confirm|download|install|copy|print")


# A request waiting on the user's own world ("... if the parcel hasn't come by Thursday"): a
# reminder the user keeps, not a task an organisation sets the reader.
_REMINDER = re.compile(r"\bif (?:the|my|our|it|they|he|she) (?:\w+ ){0,3}(?:hasn't|haven't|"
                       r"hasnt|havent|isn't|doesn't|didn't) (?:\w+ ){0,2}by (?:monday|tuesday|"
                       r"wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|then)\b")


def _sentences(folded: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", folded) if s.strip()]


def errand_signals(folded: str) -> list[str]:
    """The signals above in a folded text (`_fold`, a bounded view of it)."""
    found = []
    owned = bool(_FIRST_PERSON.search(folded))
    if not owned and _REQUEST_OPENING.search(folded) and _INSTITUTIONAL.search(folded) and not (
            folded.rstrip().endswith("?") or _REMINDER.search(folded)):
        found.append("request to the reader")
    sentences = _sentences(folded)
    if any(_COVERT.search(s) and _ORDER_START.search(s) for s in sentences) and (
            not owned or _INSTITUTIONAL.search(folded)):
        found.append("covert order")
    if any(_PAGE_THING.search(s) and _PAGE_ORDER.search(s) for s in sentences):
        found.append("order about the page in view")
    if any(_OPEN.search(s) and _LINK.search(s) and "?" in s and "=" in s and _FILL.search(s)
           for s in sentences) or any(
            _OPEN.search(s) and _LINK.search(s) and _FILL.search(s) for s in sentences
            if "url" in s or "link" in s):
        found.append("link to fill")
    if any((_HOOK.search(s) or _POINTING.search(s) and _LINK.search(s))
           and _HOOK_ORDER.search(s)
           for s in sentences):
        found.append("outward hook")
    if _FETCH.search(folded) and _RUN_FETCHED.search(folded):
        found.append("download and run")
    return found


def tool_orders(folded: str) -> list[str]:
    """The signal read only in a tool's output (see above), in a folded text."""
    for s in _sentences(folded):
        if _FIRST_PERSON.search(s) and _ACTING_ORDER.search(s) and not s.rstrip().endswith("?"):
            return ["first-person order in a tool result"]
    return []
