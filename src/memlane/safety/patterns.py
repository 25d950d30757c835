"""The pattern list: instructions to the model or its tools, in English, Spanish, German and
French, with the rules that tell a narrative or reported sentence from an order."""

from __future__ import annotations

import re

from .prechecks import _trie

# --- patterns ------------------------------------------------------------------------------------

_NARRATOR = frozenset("""i i'm im i've ive i'd we we're our us me my mine he she they his her
    their him them it's""".split())
_MODALS = frozenset("can may might must should could would will shall".split())
_ADDRESSEES = frozenset("""you you're your yourself ai assistant assistants model models bot
    chatbot llm llms agent agents gpt chatgpt claude system""".split())

_VERB_OVERRIDE = (r"(?:ignore|ignores|ignoring|disregard|disregards|forget|forgets|override|"
                  r"overrides|skip|bypass|bypasses|drop|discard|abandon|set aside|throw out|"
                  r"neglect|stop following|don't follow|do not follow|no longer follow|"
                  r"pay no attention to)")
_RULES = (r"(?:instructions?|prompts?|rules|guidelines|guidance|directions|directives|commands|"
          r"guardrails|restrictions|constraints|programming|polic(?:y|ies)|system message|"
          r"training|orders|safety (?:rules|filters?))")
_EXFIL_VERB = (r"(?:send|sends|post|upload|forward|email|e-mail|mail|transmit|exfiltrate|leak|"
               r"submit|share|copy|sync|include|append|envia|manda|reenvia|sube|comparte|"
               r"sende|schicke|leite|lade|ubermittle|teile|envoie|envoyez|transfere|transferez|"
               r"partage|partagez|televerse)")
_EXFIL_WHAT = (r"(?:conversations?|chats?|history|transcripts?|memor(?:y|ies)|records|notes|"
               r"messages|context|secrets?|credentials|passwords?|api keys?|tokens|data|"
               r"everything|prompt|user's|historial|conversacion|memoria|recuerdos|registros|"
               r"datos|contrasenas|secretos|chatverlauf|verlauf|gesprach|unterhaltung|"
               r"erinnerungen|gedachtnis|daten|passworter|geheimnisse|historique|discussion|"
               r"memoire|souvenirs|donnees|mots de passe)")
_TARGET = r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.[\w.]+|\b\d{1,3}(?:\.\d{1,3}){3}\b|webhook)"
_TOOLS = r"(?:forget|update_memory|remember|open_memory|search_memory|recall|delete|remove|erase)"

# (name, pattern, narrative-sensitive): a narrative-sensitive match preceded in its sentence by a
# narrator ("I", "my", "we") and no addressee is skipped (see the module docstring).
_RULES_TABLE: list[tuple[str, str, bool]] = [
    # "ignore all previous instructions" and its kin
    ("override", rf"\b{_VERB_OVERRIDE}\b[^.!?]{{0,50}}?\b{_RULES}\b", True),
    ("override", rf"\b{_RULES}\b[^.!?]{{0,25}}\b(?:are|is)\s+(?:now\s+)?(?:void|null|cancell?ed|"
                 r"revoked|superseded|obsolete|outdated|suspended|lifted|disabled|invalid|"
                 r"no longer (?:valid|in effect|apply))", True),
    ("override", r"\b(?:ignora|ignore|ignoren|olvida|olvidate de|omite|descarta|haz caso omiso"
                 r" de|no hagas caso a)\b[^.!?]{0,40}\b(?:instrucciones|reglas|indicaciones|"
                 r"normas|directrices|prompt)\b", True),
    # ("vergiss nicht": don't forget, a reminder.)
    ("override", r"\b(?:ignoriere|ignorieren sie|ignoriert|vergiss(?! nicht)|vergessen sie|"
                 r"missachte|missachten sie|uberspringe)\b[^.!?]{0,40}\b(?:anweisungen|befehle|"
                 r"regeln|instruktionen|vorgaben|richtlinien|prompt)\b", False),
    ("override", r"\b(?:anweisungen|regeln|instruktionen)\b[^.!?]{0,20}\b(?:ignorieren|"
                 r"vergessen|missachten)\b", False),
    ("override", r"\b(?:ignore|ignores|ignorez|oublie|oubliez|ne tiens pas compte|ne tenez pas "
                 r"compte|fais abstraction)\b[^.!?]{0,40}\b(?:instructions|consignes|regles|"
                 r"directives|prompt)\b", True),
    ("override", r"\b(?:ignora|ignore|negeer|vergeet)\b[^.!?]{0,40}\b(?:istruzioni|regole|"
                 r"instrucoes|regras|instructies|regels)\b", True),
    ("new_instructions", r"\b(?:new|updated|real|actual|true|revised|following)\s+(?:system\s+)?"
                         r"(?:instructions?|rules|prompt|directives?|system prompt|task|"
                         r"policy)\b(?:\s+(?:is|are))?\s*[:\-]", True),
    ("new_instructions", r"\b(?:nuevas instrucciones|neue anweisungen|neue regeln|nouvelles "
                         r"instructions|nouvelles consignes|nuove istruzioni)\b", False),
    ("new_instructions", r"\btreat\b[^.!?]{0,40}\bas\s+(?:a |an |the |your )?(?:new )?"
                         r"(?:system (?:prompt|instructions?|messages?)|instructions?|"
                         r"commands?)\b", False),
    ("new_instructions", r"\b(?:your|the) (?:task|job|goal|mission|objective|purpose)\b[^.!?]"
                         r"{0,10}\b(?:has|is) (?:now )?(?:changed|different|updated|new)\b",
     False),
    ("new_instructions", r"\bnew (?:task|goal|objective|mission|directive) for (?:the |you)",
     False),
    ("role_switch", r"\byou are now (?:an? |the |in |no longer|free|unrestricted|unfiltered|"
                    r"uncensored|jailbroken|dan\b|my (?:obedient|slave|tool|servant))", False),
    ("role_switch", r"\byou are no longer (?:an? )?(?:assistant|ai|bound|restricted|limited|"
                    r"chatgpt|claude|helpful)", False),
    ("role_switch", r"\bfrom now on,? (?:you|u) (?:are|will|must|shall|should|only|respond|"
                    r"answer|act|obey)", False),
    ("role_switch", r"\b(?:act|behave|respond|pretend|roleplay|role-play|play)\s+(?:as|like|to "
                    r"be)\s+(?:an? |the |my )?(?:jailbroken|unrestricted|unfiltered|evil|"
                    r"uncensored|rogue|different ai|system|admin|administrator|root|dan\b|"
                    r"(?:ai|model|assistant|chatbot|bot)\b[^.!?]{0,30}\b(?:that|with|without|"
                    r"called|named|who)\b)", True),
    ("role_switch", r"\b(?:enable|activate|enter|engage|switch (?:on|to|into)|turn on|go into)\s+"
                    r"(?:the )?(?:developer|dev|god|debug|maintenance|admin|sudo|unrestricted|"
                    r"dan|jailbreak) mode\b", True),
    # (Not "mode on my phone": there "on" places the mode, a device's setting.)
    ("role_switch", r"\b(?:developer|dev|god|debug|maintenance|admin|sudo|unrestricted|dan|"
                    r"jailbreak) mode (?:is )?(?:now )?(?:enabled|activated|engaged|on\b(?! (?:my|"
                    r"his|her|our|their|a|an|this) ))", True),
    ("role_switch", r"\byou are (?:now )?in (?:developer|dev|god|debug|maintenance|admin|sudo|"
                    r"unrestricted) mode\b", False),
    ("role_switch", r"\b(?:ai|assistant|model|bot|chatbot|llm|version of you)\b[^.!?]{0,25}"
                    r"\b(?:no|without)\s+(?:any\s+)?(?:restrictions|rules|limits|filters|"
                    r"guidelines|censorship|safety)\b", False),
    # A model given no filter, morals or ethics ("GPTchat does not have a content filter",
    # "the AI he made has no morals"): the persona of every unrestricted-model jailbreak.
    ("role_switch", r"\b(?:ai|assistant|model|bot|chatbot|llm|gpt\w*|chatgpt)\b[^.!?]{0,40}"
                    r"\b(?:has no|have no|without|does not have|doesn't have|do not have|don't "
                    r"have|lacks?|free of|free from)\s+(?:a |an |any )?(?:content )?(?:filters?|"
                    r"morals?|morality|ethics|ethical (?:guidelines|limits|boundaries)|"
                    r"restrictions|censorship|limits|boundaries)\b", False),
    ("role_switch", r"\b(?:sin (?:ninguna )?restricciones|ohne (?:jegliche )?einschrankungen|"
                    r"sans (?:aucune )?restrictions?|senza (?:alcuna )?restrizioni)\b", False),
    ("role_switch", r"\b(?:eres|ahora eres) (?:un|una) (?:asistente|ia|modelo)\b|\b(?:ab jetzt|"
                    r"von nun an) bist du\b|\b(?:desormais|a partir de maintenant),? (?:tu es|"
                    r"vous etes)\b|\ba partir de ahora,? (?:eres|seras|debes)\b", False),
    ("role_switch", r"\b(?:imagine|suppose|pretend|assume)\b[^.!?]{0,20}\byou (?:have|had|"
                    r"were) no (?:system prompt|rules|restrictions|guidelines|filters|limits)",
     False),
    ("role_switch", r"\b(?:jailbroken|jailbreak) (?:mode|model|ai|assistant|version|prompt)\b"
                    r"|\bdo anything now\b|\bignoring (?:the )?(?:content|safety) polic", False),
    ("system_prompt", r"\b(?:reveal|print|show|leak|repeat|output|dump|display|expose|echo|"
                      r"write out|recite|disclose|summari[sz]e|paste|give me|tell me|what (?:is|"
                      r"are)|list)\b[^.!?]{0,40}?\b(?:system prompt|system message|initial "
                      r"(?:prompt|instructions)|hidden (?:prompt|instructions)|(?:your|the) "
                      r"(?:full |whole |entire |original )?(?:prompt|instructions)"
                      r"(?! for (?:setting|installing|assembling|using|the new|my|our)\b)"
                      r"|(?:the |your "
                      r"|any )?api[ -]?keys?|secret (?:keys?|tokens?)|(?:the |your |database |"
                      r"admin )passwords?|credentials|developer'?s? (?:secret|token)|tool "
                      r"definitions|context window)\b", True),
    ("system_prompt", r"\b(?:dump|write out|paste|print|output|reveal|leak|show)\b (?:me )?"
                      r"(?:every|all|each) (?:of )?(?:the |your )?(?:stored |saved |private )?"
                      r"(?:memor(?:y|ies)|records?|notes?|memory notes?|facts|results)\b", True),
    ("system_prompt", r"\b(?:revela|muestra|imprime) (?:el |tu )?(?:prompt|clave|contrasena)|"
                      r"\bresponde solo con la clave\b|\b(?:gib|zeige?) (?:den |das |dein )?"
                      r"(?:systemprompt|passwort|prompt)|\bverrate (?:das|dein|den)\b|\b(?:affiche"
                      r"|revele|montre)\w* (?:le |la |ton |votre )?(?:prompt|cle|mot de passe)|"
                      r"\brivela il prompt|\bmostre o prompt|\btoon de systeemprompt", False),
    ("tool_coercion", rf"\b(?:call|calls|invoke|run|execute|use|trigger|fire|apply|perform)\s+"
                      rf"(?:the |your )?(?:tool |function )?{_TOOLS}[ _-]?(?:tool|function|"
                      r"command|action)?s?\b[^.!?]{0,40}\b(?:on|for|with)\b", False),
    ("tool_coercion", rf"\b(?:call|invoke|run|execute|use|trigger)\s+(?:the )?{_TOOLS}[ _-]?"
                      r"(?:tool|function)\b", False),
    ("tool_coercion", rf"\b(?:call|invoke|run|execute|trigger)\s+(?:the )?(?:tool|function)\s+"
                      rf"(?:called |named )?\w*{_TOOLS}", False),
    ("tool_coercion", rf"(?<![\w.]){_TOOLS}\s*\(\s*(?:id|ids|text|query|\{{|\d)", False),
    ("tool_coercion", r"\b(?:forget|delete|erase|wipe|remove|clear|purge)s?\s+(?:all|every|each|"
                      r"everything|any)\b[^.!?]{0,30}?\b(?:memor(?:y|ies)|records?|notes?|facts|"
                      r"ids?|stored)\b", True),
    ("tool_coercion", r"\b(?:wipe|clear|erase|purge|reset|delete)\s+(?:your|the|all)(?: entire)?"
                      r" memory\b", True),
    ("tool_coercion", r"\b(?:for|on) (?:each|every|all) (?:ids?|records?|stored facts?|"
                      r"memor(?:y|ies)|entries)\b", True),
    ("tool_coercion", r"\b(?:ids?|records?) (?:from )?\d+ ?(?:\.\.|to|through|thru|-) ?\d+\b",
     True),
    ("tool_coercion", r"\b(?:herramienta|tool|outil|werkzeug)\b[^.!?]{0,20}\b(?:forget|borrar|"
                      r"olvidar)\b|\bforget-tool\b|\b(?:borra|elimina) todos los recuerdos\b|"
                      r"\blosche alle\b|\bsupprime toutes les memoires\b", False),
    ("tool_json", r'"(?:name|tool|function)"\s*:\s*"(?:forget|update_memory|remember|'
                  r'open_memory|search_memory|recall)"|"tool_calls"\s*:|"function"\s*:\s*\{|'
                  r"<\s*/?\s*(?:tool_call|function_call|tool_use|invoke)\b|\bfunctions\.\w+\s*\("
                  r'|"action"\s*:\s*"(?:call_tool|tool|function)', False),
    ("exfiltration", rf"\b{_EXFIL_VERB}\b[^.!?]{{0,60}}?\b{_EXFIL_WHAT}\b[^!?]{{0,60}}?"
                     rf"(?:\b(?:to|at|into|with|in|a|al|an|zu|nach|vers|sur)\b)[^!?]{{0,40}}?"
                     rf"{_TARGET}", True),
    ("exfiltration", r"https?://\S*[?&][\w-]+=\s*(?:\{|\[|<|\$\{|%7b|\(|followed|$)", False),
    ("exfiltration", r"https?://\S*[?&][\w-]+=[\w-]*(?:secret|data|conv|message|cookie|user|"
                     r"email|token|key|password)", False),
    ("secrecy", r"\b(?:do not|don't|dont|never|must not)\s+(?:tell|inform|mention|reveal|show|"
                r"let|alert|notify)\b[^.!?]{0,20}\b(?:the user|the human|the customer|"
                r"the owner)\b", False),
    ("secrecy", r"\bwithout (?:telling|informing|alerting|notifying|asking) (?:the )?user\b|"
                r"\b(?:the )?user (?:must|should|shall|may) (?:not|never) (?:know|see|find out|"
                r"learn|be told)\b|\b(?:keep|hide) (?:this|it) (?:a )?(?:secret )?from the "
                r"user\b", False),
    ("secrecy", r"\bno (?:le )?(?:digas|cuentes|menciones|informes)\b[^.!?]{0,30}\busuario|"
                r"\bsin (?:decirle|avisar|informar) al usuario|\b(?:sag|erzahl|verrat)\w* (?:dem"
                r"|der) (?:benutzer|nutzer|anwender)\w* nichts|\bohne (?:den|die) (?:benutzer|"
                r"nutzer)\w* zu|\bne (?:dis|dites|mentionne|mentionnez|revele|revelez)\w* rien "
                r"a l'? ?utilisateur|\bsans (?:le dire|prevenir|informer) (?:a )?l'? ?utilisateur",
     False),
    ("authority", r"<\|?\s*(?:im_start|im_end|system|endoftext|eot_id|start_header_id)\s*\|?>|"
                  r"\[/?inst\]|<</?sys>>|</?system>|\[system\]|<!--[^>]*\b(?:ai|assistant|"
                  r"model|ignore|instruction)", False),
    ("authority", r"\b(?:message|note|notice|instructions?|directive|update|order)s? (?:from|by)"
                  r" (?:the )?(?:system|developers?|admins?|administrators?|openai|anthropic|"
                  r"operators?|security team)\b"
                  # ...not a person's own admin: "a note from the admin at my office".
                  r"(?!\s+(?:at|of|in|for)\s+(?:my|our|his|her|their|the)\b)", True),
    ("authority", r"\b(?:system|admin|developer|root|security|emergency|priority|sudo) (?:override"
                  r"|notice|alert|directive|command|instruction)\b", True),
    ("authority", r"(?:^|[.!?\]] )(?:note|message|instructions?|attention|p\.?s\.?|dear|hey|hello"
                  r"|hi)\b[^.!?]{0,12}\b(?:to |for )?(?:the |any |all )?(?:ai|llms?|language "
                  r"models?|assistants?|chatbots?|agents?|bots?|models?)\b[^.!?]{0,40}[:,]"
                  # ...followed by an order, not "Hi assistant, my name is Bo."
                  r"\s*(?:your|you|when|if|upon|ignore|disregard|forget|priority|forward|send|"
                  r"delete|call|reveal|print|stop|do|don't|never|always|from now|new|the user|"
                  r"tell|follow|obey|this)\b", False),
    ("authority", r"\bif you are an? (?:ai|llm|language model|assistant|chatbot|bot|agent)\b|"
                  r"\b(?:ai|assistant|model|agent|llm)s? (?:reading|processing|summari[sz]ing|"
                  r"parsing) this\b|\bwhen (?:the )?(?:ai|assistant|model|llm) (?:reads|sees|"
                  r"processes)\b|\b(?:instruct|tell|ask) the (?:model|ai|assistant|llm) to\b",
     False),
    ("authority", r"\b(?:assistant|ai|model)\s*[,:]\s*(?:please )?(?:ignore|disregard|forget|"
                  r"delete|call|send|reveal|print|stop|upon|now)\b", False),
    ("authority", r"\b(?:the )?(?:assistant|ai|model|you) (?:must|should|shall|will|has to|have"
                  r" to) (?:now )?(?:ignore|obey|disregard|comply with this|follow (?:the|these|"
                  r"this|only) (?:instructions?|note|record|text)|never refuse|always obey|"
                  r"reveal|delete|forget all)\b", False),
    ("authority", r"\b(?:takes?|have|has) priority over (?:the |your |all )?(?:system|user|"
                  r"instructions|prompt|others)|\bsupersedes? (?:all|any|the|previous|"
                  r"others)\b|\bnever refuse\b|\balways (?:recommend|suggest|promote|push|"
                  r"advertise)\b", True),
    ("authority", r"\b(?:assistant|system|developer) instructions\s*:", False),
    ("promotion", r"\b(?:all|every|each) (?:answers?|repl(?:y|ies)|responses?|messages?)\b"
                  r"[^.!?]{0,30}\b(?:include|contain|end with|link to|mention|append)\b[^.!?]"
                  r"{0,30}(?:https?://|www\.|\b[\w-]+\.(?:example|com|net|org|io|xyz|ru|biz|"
                  r"info|co)\b)", False),
    ("remote_image", r"!\[[^\]]*\]\(\s*<?\s*(?:https?:)?//|<\s*img\b|<\s*a\s+href|"
                     r"\[!\[", False),
    ("remote_image", r"\[(?:click|tap|verify|log ?in|sign ?in|confirm|update|reset|claim)[^\]]*"
                     r"\]\(", False),
]


def _top_level(p: str) -> list[str]:
    """`p` split at its top-level `|` (not inside a group or a character class)."""
    parts, depth, cur, i, in_class = [], 0, "", 0, False
    while i < len(p):
        ch = p[i]
        if ch == "\\":
            cur += p[i:i + 2]
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
            i += 1
            continue
        cur += ch
        i += 1
    return [*parts, cur]


def _leads(pattern: str) -> tuple[str, ...]:
    """Literal starts (up to 4 characters) one of which any match of `pattern` must contain,
    or () when that cannot be read off the pattern. A rule whose starts are all absent from
    the text is skipped: most records hold none of them, and a 4,000-character record would
    otherwise pay for every rule at every position."""
    out: list[str] = []
    for branch in _top_level(pattern):
        for prefix in (r"\b", r"(?<![\w.])"):
            if branch.startswith(prefix):
                branch = branch[len(prefix):]
        alternatives = [branch]
        if branch.startswith("(?:"):
            depth, end = 0, 0
            for end, ch in enumerate(branch):
                if ch == "(" and branch[end - 1:end] != "\\":
                    depth += 1
                elif ch == ")" and branch[end - 1:end] != "\\":
                    depth -= 1
                    if depth == 0:
                        break
            alternatives = _top_level(branch[3:end])
            if branch[end + 1:end + 2] == "?":  # optional: the match may also start after it
                rest = _leads(branch[end + 2:])
                if not rest:
                    return ()
                out.extend(rest)
            elif branch[end + 1:end + 2] in ("*", "{"):
                return ()
        for alt in alternatives:
            lit = re.match(r"[a-z' ,-]*", alt)
            stem = lit.group(0) if lit else ""
            if alt[len(stem):len(stem) + 1] in ("?", "*", "{"):
                stem = stem[:-1]  # its last character is optional
            if len(stem) < 2:
                return ()
            out.append(stem[:4])
    return tuple(dict.fromkeys(out))


def _word_leads(pattern: str) -> frozenset[str] | None:
    """For a pattern that only matches at a word start: the first words (up to 4 letters) of
    its literal starts, to look up in the text's word prefixes (one set lookup, not a search of
    the text per start). None: check the starts as substrings."""
    leads = _leads(pattern)
    if not leads or not all(b.startswith(r"\b") for b in _top_level(pattern)):
        return None
    return frozenset(re.split(r"[ ,]", lead)[0][:4] for lead in leads)


_COMPILED = [(name, re.compile(p), narrative, _leads(p), _word_leads(p))
             for name, p, narrative in _RULES_TABLE]
# On the raw lines: chat-format role headers ("### System", "SYSTEM:", "assistant:").
# ("System: Windows 11" is a fact: a role prefix counts when an instruction or a reply follows.)
# `^[^\S\n]*`, not `^\s*`: a marker after blank lines is found from its own line's start, and
# a text of 8,000 newlines is not read to its end from each of them.
_LINE_ROLE = re.compile(r"(?im)^[^\S\n]*(?:#{1,6}\s*(?:system|instructions?|new instructions?|"
                        r"assistant)\s*$|(?:system|assistant|developer)\s*:\s*(?:you|i will|"
                        r"i'll|sure|ok\b|okay|ignore|disregard|forget|from now|new |the "
                        r"(?:assistant|model|ai)\b|always|never|do not|don't|reveal|print|"
                        r"delete|call))")
# Spaced-out letters lose their word gaps once whitespace is collapsed: the squashed run is
# matched without word boundaries.
_SQUASHED = re.compile(r"(?:ignore|disregard|forget|override|bypass)(?:all|any|the|your|every)?"
                       r"(?:previous|prior|above|earlier|preceding)?(?:instructions|prompts?|"
                       r"rules|guidelines|directives)|(?:reveal|print|show)(?:the|your)?"
                       r"systemprompt")
_ROT13_OVERRIDE = re.compile(rf"\b{_VERB_OVERRIDE}\b[^.!?]{{0,50}}?\b{_RULES}\b")
# `codecs.encode(t, "rot13")` as one `str.translate` (the codec's own table maps the 52 ASCII
# letters and leaves every other character as it is, as this one does).
_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm")
_WORD = re.compile(r"[\w']+")
# What a request for the model's secrets or an override reads as with its letters run together
# (a spaced-out text joined: "canyoushareyourpassword").
_SQUASHED_ASK = re.compile(
    r"your(?:secret|password|passcode|systemprompt|instructions|credentials)|secretkey|"
    r"(?:tell|give|share|reveal|confirm|show)(?:me)?the(?:password|secret|systemprompt)|"
    r"(?:ignore|disregard|forget)(?:all|the|your|every)*(?:previous|prior|above|earlier)")
_LEETISH = re.compile(r"[a-z][0-9@$!|]|[0-9@$|][a-z]")
# Quoted fragments: 'x', "x" (folded text: curly quotes are straight by now). An apostrophe
# inside a word ("don't") does not open one.
_QUOTED = re.compile(r"(?<!\w)'([^'\n]{2,60})'(?!\w)|\"([^\"\n]{2,60})\"")


def _narrative(view: str, start: int) -> bool:
    """A first- or third-person sentence ("I ignore my boss's rules"), not an order to the
    model: a narrator among the words before `start` in its sentence, and no addressee."""
    head = view[:start]
    cut = max(head.rfind(c) for c in ".!?:;\n")
    words = _WORD.findall(head[cut + 1:])[-8:]
    if any(w in _ADDRESSEES for w in words):
        return False
    # "the robot player can ignore one instruction card": a rule about a third party (a
    # subject, then a modal), not an order to the reader ("you can ignore" has its addressee).
    if len(words) >= 2 and words[-1] in _MODALS and words[-2] not in _ADDRESSEES | {"please"}:
        return True
    return any(w in _NARRATOR for w in words)


# Rules whose words also describe the world ("you are now a gold member", "forget the rules of
# the game", "the doctor's new instructions: ..."): a match inside reported speech or naming
# whose rules they are is a statement, not an order.
_WORLDLY = frozenset({"override", "new_instructions", "role_switch"})
# ("... of the landlord", and in Spanish, French, German, Italian, Portuguese: "las instrucciones
# anteriores del casero", "les consignes du propriétaire", "die Anweisungen des Vermieters".)
_WHOSE = re.compile(
    r"\s*(?:(?:anteriores|previas|precedentes|antiguas|vorherigen|bisherigen|alten|precedenti|"
    r"anteriori|antigas)\s+)?(?:of (?:the |this |that |our |my |his |her |their |a )?|"
    r"(?:del|de la|de los|de las|de mi|de mis|du|des|de l'|von|vom|des|der|della|dello|dei|"
    r"do|da|dos|das) )"
    r"(?!system|sistem|chat|conversation|conversacion|assistant|asistente|assistente|ai\b|ia\b|"
    r"ki\b|model|prompt|developer|desarrollador|entwickler|usuario|user|utilisateur|benutzer)"
    r"[a-z]")


def _reported(view: str, m: re.Match[str]) -> bool:
    """The match is someone's: quoted with an attribution in its sentence (", the agent said"),
    owned by a named person ("the doctor's new instructions"), or qualified ("the rules of the
    game")."""
    end = min((i for i in (view.find(c, m.end()) for c in ".!?") if i >= 0), default=len(view))
    if _QUOTE_ATTRIBUTION.search(view, m.end(), end):
        return True
    if _WHOSE.match(view, m.end()):
        return True
    before = _WORD.findall(view[max(0, m.start() - 40):m.start()])[-2:]
    return any(w.endswith("'s") and w[:-2] not in _ADDRESSEES for w in before)


# The rules a word prefix may start (`_word_leads`), and the rules no prefix gates: `_match`
# visits only those, in table order (the order of the names it returns), instead of testing
# every rule's leads against the text's prefixes (most texts start none of them).
_BY_PREFIX: dict[str, tuple[int, ...]] = {}
for _i, _rule in enumerate(_COMPILED):
    for _lead in _rule[4] or ():
        _BY_PREFIX[_lead] = (*_BY_PREFIX.get(_lead, ()), _i)
_UNGATED = frozenset(i for i, rule in enumerate(_COMPILED) if rule[4] is None)


# The leads of `_BY_PREFIX` that start a word of a view, found in one regex pass instead of
# building the set of every word's first 2, 3 and 4 characters. A word is a run of `_WORD`
# characters ([\w']), so a lead (made of those characters) is one of a word's first 2-4
# characters iff it starts the word (2-4 characters) or is the word (1 character); a lead with
# another character ("e-ma") starts no word. The pass finds, at each word start, the longest
# lead the word starts with (`_trie`); the leads the word starts with are that one's prefixes
# (`_LEAD_RULES` holds their rules), so `_lead_rules(view)` visits the same rules the set did.
_LEADS_AT = [lead for lead in _BY_PREFIX if re.fullmatch(r"[\w']+", lead)]
_LONG_LEADS = [lead for lead in _LEADS_AT if len(lead) >= 2]
_LEAD_RX = re.compile(r"(?<![\w'])(" + "|".join(
    ([_trie(_LONG_LEADS)] if _LONG_LEADS else [])
    + [re.escape(lead) + r"(?![\w'])" for lead in _LEADS_AT if len(lead) == 1]) + ")")
_LEAD_RULES = {found: frozenset(i for lead in (_LONG_LEADS if len(found) > 1 else [found])
                                if found.startswith(lead) for i in _BY_PREFIX[lead])
               for found in _LEADS_AT}


_QUOTE_ATTRIBUTION = re.compile(
    r"[,\"'\u201d]\s*(?:the |my |a |an |his |her |their |our )?[\w' -]{0,30}\b(?:said|says|told "
    r"(?:me|us|him|her|them)|wrote|writes|explained|announced|texted|emailed|replied)\b")
