"""How a statement says that something changed, or opens before its fact: the wording the
supersede rule (`step/supersede.py`) reads. Pure regular expressions."""

from __future__ import annotations

import re

from .occupations import NOT_A_THING

_LEAD = re.compile(
    r"^\W*(?:(?:oh|ah|um|ugh|so|well|ok|okay|sorry|wait|oops|also|and|but|anyway|btw|by\s+the\s+way"
    r"|just\s+so\s+you\s+know|fyi|quick\s+update|update|actually|correction|news|heads\s+up"
    r"|(?:good|great|big|bad|sad|some)\s+news|fun\s+fact|guess\s+what"
    r"|to\s+correct\s+myself|i\s+mean|i\s+meant|my\s+mistake|scratch\s+that|remember|(?:typo(?:\s+(?:earlier|before|there))?|fat\s+fingers?)(?=\s*[,:;!.-])"
    r"|please\s+remember(?:\s+that)?|i\s+was\s+wrong(?:\s+(?:earlier|before))?"
    r"|these\s+days|nowadays"
    # "From tomorrow I'm on days": when it holds from, then the fact
    r"|(?:from|as\s+of|starting)\s+(?:tomorrow|today|now\s+on|(?:next|this)\s+(?:week|month|"
    r"term|year)|(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    # "The vet says our dog ...", "Mum said that she ...": the fact is what was said; not a
    # reading ("The scale said 176 this morning": the number alone says nothing)
    r"|(?:the|my|our)\s+\w+\s+(?:says|said|(?:tells|told)\s+me(?!\s+to\b))(?:\s+that)?"
    r"(?!\s*[£$€]?\d)"
    r"|apparently"
    # a comment on the news, not the news: "Sadly Kiwi died, ...", "Luckily ..."
    r"|sadly|luckily|unluckily|unfortunately|fortunately|thankfully|happily|tragically"
    r"|annoyingly|weirdly|surprisingly|funnily\s+enough"
    # "Like I said before, ...": the fact again, said as said
    r"|(?:like|as)\s+i\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier|already))?"
    # "Can't believe my daughter is 5 already": the fact is what is hard to believe
    r"|(?:i\s+)?(?:can'?t|cannot|can\s+not)\s+believe(?:\s+that)?|hard\s+to\s+believe(?:\s+that)?"
    # a heading of the news before a colon: "Reorg happened: I report to Dev now" (its last
    # word in lower case: "Caroline: I ..." is a speaker's name)
    r"|(?:[a-z'-]+\s+){0,3}(?-i:[a-z][a-z'-]*)(?=\s*:\s*(?:i|i'm|i've|we|we're|we've|my|our|she|he"
    r"|they)\b)"
    r")\b[\s,:;!.-]*)+",
    re.I)
_BRACKETED = re.compile(r"\[[^\]]*\]")
_CORRECTS = re.compile(
    r"\b(?:correction|actually|moved|changed|no\s+longer|not\s+anymore|any\s*more|instead"
    r"|rather\s+than|rescheduled|postponed|switched|turns\s+out|was\s+wrong|my\s+mistake|scratch\s+that"
    r"|i\s+meant|update)\b", re.I)
CUES = re.compile(
    r"\b(?:correction|actually|moved|move|changed|no\s+longer|not\s+anymore|any\s*more|instead"
    r"|rather\s+than|rescheduled|postponed|updated?|now|switched|turns\s+out|was\s+wrong|my\s+mistake"
    r"|scratch\s+that|i\s+meant|left|new|sold|went\s+up|went\s+down|down\s+to|up\s+to|turned"
    r"|these\s+days|nowadays|from\s+(?:this|next)\s+(?:week|month|term|year)|from\s+now\s+on|from\s+tomorrow|as\s+of|since|grew|grown|increased|decreased|dropped|raised"
    r"|rose|fell|pushed|promoted|upgraded|downgraded|renamed|became|become|got\s+a\s+new"
    r"|transferred|different|upped|ported|(?:qualified|retrained)\s+as"
    # a job ended by retiring ("Dad's retired now"), not a thing retired ("retired the van")
    # (after a space or opening the sentence: the word alone is a value, "retired", not a cue)
    rf"|(?:(?<=[\s,;])|^(?=\w+\s))retired{NOT_A_THING}"
    r"|took\s+(?:early\s+)?retirement"
    # a new employer by the job got there ("got a job with Network Rail")
    r"|(?:got|landed|found|accepted|taken|took)\s+(?:(?:him|her|them|my|your)sel(?:f|ves)\s+)?"
    r"(?:a\s+|the\s+)?(?:new\s+)?(?:job|position|role|post)\s+(?:at|with|as)|bumped|this\s+(?:term|year|season|semester)|lapsed?"
    r"|put\s+(?:me|us|him|her|them)\s+on(?:to)?|from\s+next\s+(?:week|month)|gone\s+over\s+to"
    # a thing moved to a new value by any verb: "bumped my excess to £400"; to a name, with
    # the thing moved said ("relocated our team to the Canary Wharf office"; not "popped into
    # Costa", "travelled to Paris": a visit)
    r"|[a-z]{3,}ed\s+(?:\w+\s+){0,4}?(?:up\s+|down\s+|over\s+)?(?:to|into|onto)\s+"
    r"[£$€]?\d[\d,.]*\w*"
    r"|[a-z]{3,}ed\s+(?!(?:to|into|onto|up|down|over|back|in|out)\b)(?:\w+\s+){1,4}?(?:to|onto)\s+"
    r"(?:the\s+)?(?-i:[A-Z])\w*)\b",
    re.I)


_SPAN = re.compile(r"\b\d+\s+(?:minutes?|hours?|days?|weeks?|months?|years?)\b", re.I)
"""A span of time ("3 weeks into the new role"): an amount, never a label of the thing."""
_TITLED = re.compile(r"(?<=\w)['\u2019]s\s+(?=(?:now\s+)?(?-i:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+"
                     r"(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?\s*(?:now\b|[,.;!]|$))")
""""'s" before a titled name closing the clause is "is": "My GP's Dr Lindqvist now"."""
