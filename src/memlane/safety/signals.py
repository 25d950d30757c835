"""Structural signals: the shape of a text addressed to a model (orders, persona set-ups,
talk of AI, role markers, payloads in an encoding, hidden characters), as opposed to a
statement about the user or the world."""

from __future__ import annotations

import re

# --- structural signals ---------------------------------------------------------------------------
# The patterns above know phrasings; these look at the shape of a text, so a phrasing nobody
# listed is still caught. A memory note is a statement about the user or the world ("Ana's
# doctor moved her appointment to Friday"); a prompt is text addressed to a model: second-person
# orders, persona and role-play set-ups, talk of AI, modes and content policies, role markers,
# payloads in an encoding no person stores as a fact, characters a reader cannot see. Each signal
# alone is weak, so a record is flagged on combinations (`_structural`), not on a word.

# Characters that hide text from a person reading it: zero-width, bidi overrides and isolates,
# word joiner and invisible operators, a BOM inside the text, and the tag block (ASCII
# smuggling). ZWJ / ZWNJ are left alone: emoji sequences and Persian or Indic text use them.
_HIDDEN = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                     "\U000e0000-\U000e007f]")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}[ :]?){8,}(?![0-9A-Za-z])")
# Bytes written in binary, eight digits a byte, spaces between ("01001001 01100111 ...").
_BINARY = re.compile(r"(?<![0-9])(?:[01]{8} ?){6,}(?![0-9])")
_BASE32 = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{16,}={0,6}(?![A-Za-z0-9])")
_ASCII85 = re.compile(r"<~[\s\S]{8,}?~>|(?<!\S)[!-u]{24,}(?!\S)")
_BRAILLE = re.compile("[\u2800-\u28ff]{6,}")
_MORSE = re.compile(r"(?:[.\-]{1,6}[ /]+){8,}")
_REGIONAL = re.compile("[\U0001f1e6-\U0001f1ff]+")

_AI_WORDS = re.compile(
    r"\b(?:chat ?gpt|gpt-?\d|openai|open ai|anthropic|claude|bard|gemini|llama|llms?|"
    r"(?:large )?language models?|ai (?:model|assistant|system)s?|chatbots?|"
    r"content polic(?:y|ies)|jailbr(?:eak|oken)|do anything now|dan\b|developer mode|"
    r"(?:an|the|as an|you are an?) ai\b|artificial intelligence|prompts?\b|personas?\b|"
    r"unfiltered|uncensored|amoral|unrestricted|guidelines|filters?)")
# An order to the reader: a sentence that opens with a verb in the imperative (optionally after
# "please", "now", a name and a comma), or "you" with a modal of obligation or of the future.
_IMPERATIVE_VERBS = (
    "act|answer|respond|reply|write|say|print|output|pretend|imagine|ignore|forget|disregard|"
    "stay|remain|remember|tell|create|generate|start|begin|stop|do|don't|dont|never|always|"
    "repeat|translate|summari[sz]e|follow|obey|use|give|provide|show|list|include|keep|assume|"
    "play|become|transform|simulate|continue|reveal|describe|explain|produce|send|forward|"
    "delete|call|run|execute|enter|enable|activate|switch|let's|lets|emulate|behave|adopt|"
    "refuse|insert|add|format|end|prefix|limit|only|must|focus|report|recommend|override|rate|"
    "score|treat|consider|classify|mark|evaluate|paraphrase|rewrite|complete|reproduce|"
    "disclose|leak|encode|decode|narrate|speak|compose|draft|craft|reflect|highlight|justify|"
    "carry|map|convert|fill|invent|portray|roleplay|impersonate|answer|sing|recite")
_ORDER = re.compile(
    rf"(?:^|[.!?:;\n\]\)(]\s*|\bplease\s+|,\s*(?:so|and|then|now)\s+|\bfrom (?:here|now) on,?\s+)"
    rf"(?:please\s+|now\s+|(?:\w+,\s+)|(?:in (?:a|one|\d+) [\w -]{{1,20}},\s+))?"
    rf"(?:{_IMPERATIVE_VERBS})"
    r"\b"
    r"|\byou(?:'re| are)? (?:will|must|shall|should|have to|need to|are going to|are to|can now|"
    r"will now|must now|are now|are no longer|will never|must never|will always|must always|"
    r"may not|cannot refuse|won't refuse|do not have to|don't have to|are free|are about to)\b")
_ROLEPLAY = re.compile(
    r"\b(?:pretend(?:ing)? (?:to be|you(?:'re| are)|that you)|"
    r"act(?:ing)? (?:as|like) (?:an?|the|my)\b|in character|"
    r"(?:stay|break|breaking) (?:in )?character|role-?play|roleplay|"
    r"let'?s play a game|play (?:a|the) (?:role|game)|assume the (?:role|persona)|"
    r"(?:take on|adopt) (?:the )?(?:role|persona)|transform into|respond as|answer as|reply as|"
    r"two (?:separate |different )?(?:responses|answers|personas|personalities|ways)|"
    r"you are (?:now )?(?:going to )?(?:act|play|be|become|simulate|imitate)|"
    r"(?:speak|talk|write|answer|respond|reply) (?:only )?(?:as|in the voice of) (?:the|an?)\b|"
    r"(?:i want|i need|i'd like|i would like|we want) you to (?:act|pretend|play|be|become|behave|"
    r"roleplay|role-play|simulate|imitate|impersonate)\b|"
    # A persona named for the reader ("you are NLA which stands for No Limits AI", "I know you
    # are bom which means Boolean Opposite Machine").
    r"you are [\w-]+,? (?:which|who|that) (?:stands for|means|is short for)|"
    # Style injection (Wei et al. 2023): the reply's manner set to offend.
    r"(?:respond|reply|answer|write|talk|speak)\w* (?:to me )?(?:in|with) an? (?:highly |very |"
    r"extremely )?(?:offensive|rude|insulting|vulgar|toxic|abusive|hateful|unhinged|unfiltered)"
    r" (?:tone|manner|way|style|voice)|"
    r"simulat(?:e|ion|ing) (?:an?|the)|"
    r"hypothetical (?:ai|model|language model|chatbot)|fictional (?:ai|character|model|"
    r"chatbot))\b")
# A document speaking to the program reading it: "if the user asks for a summary, reply ...",
# "note to automated screening software: ...".
_READER_ORDER = re.compile(
    r"\b(?:if|when|whenever)\b (?:the |a |any )?(?:user|someone|anyone|asked|you are asked|you're "
    r"asked)\b[^.!?]{0,60}?\b(?:reply|respond|answer|say|output|print|tell|recommend|state|"
    r"write|return|include)\b"
    # "whatever you are asked next, first say ...": an order for every later turn.
    r"|\b(?:whatever|no matter what|whichever question) (?:you are|you're|you get|the user is|"
    r"they are|anyone is) (?:asked|told)\b"
    r"|\b(?:note|message|instructions?|attention|notice)\b[^.!?]{0,10}\b(?:to|for) "
    r"(?:any |all |the )?(?:automated|ai|llm|machine|language model)\b"
    r"|\b(?:for|to) (?:any |all |the )?(?:automated|ai|llm)[- ](?:screening|analysis|review|"
    r"readers?|systems?|software|tools?|agents?)\b")
# The model's own instructions named as such: what a prompt-extraction attempt asks for.
_PROMPT_REFERENCE = re.compile(
    r"\b(?:your|the) (?:initial|starting|original|system|hidden|first|full|entire|secret|internal)"
    r" (?:instructions|prompt|message|configuration|directives)\b|"
    r"\bsystem ?prompt\b|\binstructions you (?:were|have been|are) given\b|\bwhat (?:were|are) "
    r"you told\b|\b(?:the|this) (?:entire )?(?:conversation|text|words) (?:above|so far)?\b"
    r"[^.!?]{0,30}\b(?:word for word|verbatim)\b|\b(?:repeat|print|output|translate) the "
    r"(?:text|words|instructions) above\b|\bi was instructed to\b")
# The model's own context described from outside, addressed to it: "the rules you were told to
# follow", "the configuration you started with", "the text that came before my first message",
# "your original directives". Only a model has these, so no narrator makes them a statement.
_CONTEXT_OBJECT = re.compile(
    r"\b(?:instructions?|rules?|directives?|guidelines|text|prompt|configuration|message|orders|"
    r"settings|sentence|words|secrets?|passwords?|things)(?: text)? (?:that |which )?you "
    r"(?:were|have been|are|got|have) (?:given|told|instructed|configured|provided|set up|"
    r"started|received|not allowed to (?:tell|say|share|reveal|discuss))\b"
    r"|\b(?:secret|password|key|code|instructions?|rules?) (?:were|have|did) you (?:been )?"
    r"(?:told|given|instructed|asked)\b"
    r"|\b(?:text|message|content|words|instructions|prompt)s? (?:that |which )?(?:precedes?|"
    r"preceded|precede) (?:this|the|our|my) (?:conversation|chat|message)"
    r"|\b(?:parts?|text|messages?|instructions|context) (?:that )?(?:i|the user|users) (?:cannot|"
    r"can't|can not|don't|do not) see\b"
    r"|\b(?:all|each|every one) of your (?:instructions|rules|directives|guidelines)\b"
    r"|\byour (?:instructions|rules|directives|guidelines) (?:into|in full|verbatim|word for "
    r"word|as (?:a|bullet))|\bpre-?prompt\b"
    r"|\b(?:text|configuration|prompt|instructions|setup|message)s? (?:that |which )?you "
    r"(?:started|began|were started|were set up) with\b"
    r"|\b(?:came|comes|was|were|is|are|written|sent|given) (?:to you )?(?:before|above) (?:my|"
    r"this|the|our) (?:very )?(?:first )?(?:message|conversation|chat|question)\b"
    r"|\byour (?:(?:initial|original|hidden|secret|internal|system|full|entire|starting|first|"
    r"exact|complete|underlying|base|real) )+(?:prompt|instructions|directives|message|"
    r"configuration|rules|guidelines)\b|\byour (?:prompt|directives|system message|"
    r"initiali[sz]ation|setup text|boot (?:text|prompt))\b")
# "...you were given by the landlord": a person's instructions, reported.
_BY_SOMEONE = re.compile(r"\s+(?:to you )?by (?:the |my |your |his |her |their |our |a |an )?"
                         r"(?!system|developers?|openai|anthropic|admins?|administrators?|"
                         r"operators?|creators?|programmers?|users?\b)[a-z]")
# A narrator who asks for the model's prompt is asking, not telling ("I need to see the system
# prompt", "we want a copy of ..."): a want or need and a verb of getting or seeing before it.
_ASKS_FOR = re.compile(
    r"\b(?:need|needs|want|wants|would like|'d like|require|requires|demand|request|must|have to|"
    r"has to|help me|could i|can i|may i|let me|let us)\b[^.!?]{0,30}\b(?:see|read|view|know|"
    r"get|have|check|review|audit|access|obtain|copy|inspect|look at|share|show|paste|print|"
    r"dump|a copy|the exact|the full|the text)\b|\b(?:require|requires|demand|request)\b")
# (`^[^\S\n]*`: linear, as `_LINE_ROLE`.)
_ROLE_MARKER = re.compile(r"(?im)^[^\S\n]*(?:system|user|assistant|human|ai|bot|model)\s*:")
_INLINE_HUMAN = re.compile(r"(?:^|[\s.!?])(?:human|user)\s*:\s")
_INLINE_AI = re.compile(r"(?:^|[\s.!?])(?:ai|assistant|chatgpt|gpt|bot)\s*:\s")


# Asking the reader to decode something: the wrapper garak-style encoding attacks use.
_DECODE_ASK = re.compile(r"\b(?:decode|decoded|encoded|decipher|decrypt)\b[^.!?]{0,40}(?:\b(?:"
                         r"base ?\d\d|hex|rot ?13|ascii ?85|morse|braille|cipher|string|"
                         r"following|message|this|text)\b|:)|\b(?:base ?\d\d|hex|rot ?13|"
                         r"ascii ?85)\b[^.!?]{0,20}\b(?:encoded|decoded|string)\b")
