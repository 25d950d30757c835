"""The offline writer's record kinds: which facts are standing (`validate.STANDING_KINDS`).

A standing fact bears on later requests that never name it, so the context shows it on every
turn (`memlane.context.standing`). The heuristic step reads a sentence as said (its lead-in
too: "Okay, settled: ..." is what makes it a decision) and files it as:

- `constraint`: a need or limit a later request must respect: health and diet, access and
  mobility, fears, money limits, schedule limits ("I work nights, so I'm asleep until four");
- `decision`: something agreed or settled in the conversation ("Final call: ...", "we agreed
  ...", "let's go with ..."): an agreement, not one person's passing "I decided to ...";
- `profile`: who the user and the people around them are (a name, a relation, a job, a home,
  a contact detail);
- `preference`: a stable like or dislike;
- `event` (something that happened or is planned) and `fact` otherwise; neither is standing.

Read by structure, not phrase lists, so that wordings no test holds are read the same way: a
need is a holder (the speaker or one of theirs, not an outsider) and a limit, named by family
(`_CONSTRAINT`), by its form (an obligation, a limit verb, a thing ruled out for them, a money or
schedule limit: `_LIMIT`), in plain words (a limit word near a word of a needs domain, said
of the present: `_limited`), by what it does to later requests whatever names it (what a
clinician told them to keep to, a list of things ruled out, a body that gives out, money that
has to last, hours always spoken for, a food that puts them in hospital: `_REQUESTS`, and the
classes of `effects.NEED_EFFECT`: what sets a condition off, a body that misbehaves, a ban, an
income that has to last, a dependant who cannot be left, people kept apart), or by
what it names: a condition, medication, allergen, diet, aid,
fear, care duty or legal limit from an intake form's vocabulary (`lexicon.TERM`), held by the
speaker in the words around it and said of the present (`_holds`: "I take lithium", not "a
book about autism" or "a migraine yesterday"). An agreement is a settling word, a group and a
commitment, a settling word that opens an assignment, or the act that made it (a deal struck,
an approval, a booking or sign-up, a group's vote: `effects.AGREEMENT_MADE`) (`step/agreements.py`);
assent to an opinion ("Agreed, nature is inspiring!") and a one-off of the past are not.

Measured before tuning on sentences written for it (tests/data/standing_kinds.jsonl,
reference_written_*.jsonl; numbers in the commits that added them), it reads half to two thirds
of what it has not seen; of LoCoMo dev's 10,184 sentences, 16 as a need or an agreement.
A model step chooses kinds itself (`step.schema.STEP_INSTRUCTIONS`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import pairwise

from .agreements import agreed, said_what
from .effects import LASTING, LIMITATION, NEED_EFFECT
from .holders import may_be_name
from .lexicon import TERM, as_household
from .sentences import _EVENT

__all__ = ["HELD_KINDS", "held_kind", "kind_of", "standing_rule"]

# The patterns are written for lower-cased text (`kind_of` lowers it once), but for `_AGREED`
# and `_IDENTITY`, which read capitals (a name).
_CONSTRAINT = re.compile(
    # health and diet
    r"\b(?:"
    # a diet is a need said of someone ("I'm vegan", "we keep dairy-free"), not of a recipe
    r"(?:i'm|i\s+am|he's|she's|we're|they're|is|are|been|being|went|gone|go|going|turned|"
    r"stay|stays|eat|eats|keep|keeps|need|needs|must\s+be|strictly)\s+(?:\w+\s+){0,2}"
    r"(?:vegetarian|vegan|pescatarian|halal|kosher|(?:dairy|nut|gluten|egg|meat|sugar|lactose|"
    r"wheat)[- ]free)\b|"
    r"doctor'?s\s+orders|"
    r"(?:my|his|her|this)\s+(?:\w+\s+)?injur(?:y|ies)|injured\s+(?:my|his|her)\b|"
    r"(?:on|taking)\s+(?:blood\s+thinners|antidepressants|meds|medicine|steroids)|"
    r"(?:makes?|gives?)\s+(?:me|him|her|us)\s+(?:\w+\s+){0,2}(?:ill|sick|sneeze|itch\w*|"
    r"palpitations|headaches?|migraines?|rash\w*|hives|cramps|anxious|panic\w*|queasy|dizzy|"
    r"nauseous|breathless|wheez\w*)|wrecks\s+my|upsets\s+my|gives\s+out|unwell|nauseous|"
    r"not\s+allowed\s+to(?!\s+(?:tell|say|talk|share|reveal|spoil|give\s+away|discuss|mention))|"
    r"triggers?\s+my|sets?\s+off\s+my|"
    r"(?:on|follow\w*|keep\w*|stick\w*\s+to)\s+(?:a|an|the|my)\s+(?:[\w-]+\s+)?diet|"
    r"(?:my|his|her|with|have|has|get|gets|suffer\w*\s+from)\s+(?:\w+\s+)?anxiety|"
    r"anxiety\s+(?:disorder|attacks?)|panic\s+attacks?|overwhelms?\s+(?:me|him|her|them|us)\b|"
    r"gets?\s+(?:\w+\s+)?overwhelmed|"
    r"(?:salt|sugar|fat|calorie)\s+intake|i'?m\s+nursing|"
    r"doctor\s+(?:told|wants)\s+(?:me|him|her|us|them)|"
    r"doctor\s+(?:said|says)\s+(?:i|we|he|she|to|it'?s\s+(?:best|better|safer))\b"
    r"(?!'?(?:m|s|re)\s+(?:fine|ok|okay|healthy|clear|good|all\s+clear|doing\s+(?:fine|well)))|"
    r"keep\s+my\s+\w+\s+(?:low|down)|"
    r"(?:take|takes|taking)\s+\w+\s+(?:once|twice|three\s+times|daily|every|each|at\s+night)|"
    r"(?:no|cut\s+out)\s+(?:meat|pork|beef|alcohol|sugar|caffeine|coffee|"
    r"dairy|nuts|shellfish|fish|eggs|wheat|spicy\s+food)|"
    r"(?:\b(?:i|we|he|she|they|to|always|usually|generally|must|should|please|best)\s+)"
    r"avoid(?:s|ing)?|steer\s+clear|stay\s+away\s+from|keep\s+away\s+from|"
    # access and mobility (the aids themselves are `lexicon.AIDS`)
    r"(?:bad|dodgy|weak)\s+(?:knees?|back|hips?|heart)|"
    r"(?:knees?|back|hips?|heart|ears?|eyes?|joints?)\s+(?:is|are|'s|'re)\s+(?:\w+\s+)?(?:bad|weak|"
    r"dodgy|not\s+great|playing\s+up|shot|done\s+for|knackered|wrecked|giving\s+out)|"
    # what the speaker cannot or will not do
    r"(?:can't|cannot|can\s+not|don't|do\s+not|doesn't|never|won't|mustn't|shouldn't)\s+"
    r"(?:eat|drink|drive|fly|climb|swim|walk|lift|afford|spend|do\s+stairs|be\s+left)|"
    r"can\s+only\s+(?:do|make|come|manage|eat|spend|afford|work|travel)|"
    # the speaker (or one of theirs) cannot do something, idioms aside
    r"(?:\bi|\bmy\s+\w+)\s+(?:can't|cannot|can\s+not)\s+(?!wait|believe|stop|help|thank|"
    r"imagine|remember|decide|tell|say|think|seem|get\s+over|complain|picture|get\s+enough|"
    r"live\s+without|let\s+go|express|describe|put\s+it\s+down|take\s+my\s+eyes|find|see|hear|"
    r"understand|explain|even|relate|right\s+now|now\b|today|tonight|at\s+the\s+moment)\w+|"
    r"only\s+(?:have\s+\w+\s+(?:off|free)|free|available|around|about|home|reachable|awake)|"
    r"impossible\s+for\s+(?:me|us)|(?:doesn't|don't)\s+work\s+for\s+(?:me|us)|"
    r"\bso\s+no\s+\w+|"
    # a consequence that rules something out ("..., so ibuprofen is a no", "so lifts are out")
    r"\bso\b[^.;]{0,60}?\b(?:is|are)\s+(?:a\s+no|out|off|impossible|not\s+an\s+option|a\s+no-go|"
    r"off-limits|tough|hard|difficult)|"
    # a thing ruled out for the speaker ("boats are a no for me", "no long walks for me")
    r"\bno\s+(?:[\w-]+\s+){0,4}for\s+(?:me|us)|a\s+no\s+for\s+(?:me|us)|"
    # money limits
    r"(?:money|cash|budget)(?:\s+is|'s)\s+tight|under\s+(?:a\s+)?(?:\w+\s+)?(?:hundred|thousand|"
    r"[£$€]?\d+)|budget\s+for|tight\s+budget|on\s+a\s+budget|at\s+most|"
    r"no\s+more\s+than|(?:my|our|the)\s+budget\s+(?:is|of)|limit\s+of|budget\s+is|"
    r"\d+\s*(?:max|maximum|tops)|max(?:imum)?\s+(?:of\s+)?[£$€]?\d+|saving\s+hard|"
    # a ceiling on a spend ("our ceiling for the remodel is 15k", "absolute max", "a hard cap")
    r"(?:my|our|the)\s+(?:\w+\s+)?(?:ceiling|spending\s+cap|upper\s+limit)\s+(?:for|on|of|is)\b|"
    r"absolute\s+(?:max|maximum|limit)|hard\s+(?:cap|limit)\s+(?:of|is|on)|"
    r"no\s+(?:big\s+)?(?:purchases|spending|splurges)|"
    # schedule limits
    r"night\s+shifts?|early\s+(?:shifts?|nights)|work\s+(?:weekends|nights|evenings|lates)|"
    r"(?:asleep|sleep)\s+(?:from|until|till|between|during\s+the\s+day)|on\s+(?:nights|lates|earlies)\b|"
    r"(?:busy|unavailable|not\s+available)\s+(?:every|on\s+\w+days|until)|"
    # what everything has to suit
    r"(?:has|have|needs?)\s+to\s+(?:work|be\s+ok(?:ay)?|be\s+safe|be\s+suitable)\s+(?:with|for)"
    r")\b")

# Needs by their structure rather than their topic: an obligation or a ban on the holder, a
# limit verb, what a condition does to them, a thing ruled out for them, a money or schedule
# limit, a requirement on everything ("keep it kid-friendly"). Read with a holder (`_held`).
_SUBSTANCE = (r"alcohol|booze|drink|drinking|wine|beer|sugar|salt|caffeine|coffee|carbs|meat|"
              r"red\s+meat|pork|beef|dairy|gluten|wheat|nuts|peanuts|shellfish|fish|eggs|soy|"
              r"sesame|spice|spicy\s+food|fried\s+food|lactose|fructose|sweets|junk\s+food")
_BODY = (r"(?:back|knees?|hips?|joints?|stomach|gut|ears?|eyes?|skin|chest|lungs|feet|neck|"
         r"shoulders?|wrists?|hands?|fingers|toes|legs?|arms?|heart|head|asthma|allerg\w+)\b")
_LIMIT = re.compile(
    # an obligation or a ban
    r"\b(?:have|has|need|needs|got)\s+to\s+(?:stick\s+to|stay\s+(?:off|away|in|home|near|close|"
    r"under|within|below|seated|hydrated)|keep\s+(?:off|to|away|it\s+(?:under|below|low|short)|"
    r"my|his|her|our)|avoid|watch\s+(?:my|his|her|our|what)|eat\s+(?:at|every|before|regularly|"
    r"little|something)|be\s+(?:home|back|near|close|in\s+bed|careful|up\s+at|off)|"
    r"take\s+it\s+easy|carry|rest|limit|cut|leave\s+by|sit\s+down)\b|"
    r"\bnot\s+(?:supposed|meant|allowed|able|cleared|permitted)\s+to\b(?!\s+(?:tell|say|talk|"
    r"share|reveal|spoil|give\s+away|discuss|mention))|"
    r"\b(?:i'?m|i\s+am|he'?s|she'?s)\s+not\s+to\s+\w+|"
    r"\b(?:told|advised|ordered)\s+to\s+(?:keep|stay|avoid|cut|stop|rest|limit|watch|give\s+up|"
    r"take\s+it\s+easy|lay\s+off)\b|"
    r"\b(?:i'?m|i\s+am|he'?s|she'?s|we'?re)\s+not\s+(?:drinking|driving|flying|eating\s+\w+)\b|"
    # a limit verb
    r"\b(?:keep|keeps|keeping|stay|stays|staying|i'?m|'s|'re|is|am|are|been|went|off)\s+off\s+"
    r"(?:the\s+)?"
    r"(?:" + _SUBSTANCE + r")\b|\boff\s+(?:the\s+)?(?:" + _SUBSTANCE + r")\s+(?:for|since|now)\b|"
    r"\bcut(?:ting)?\s+(?:down|back)\s+on\b|\bgave\s+up\s+(?:" + _SUBSTANCE + r")\b|"
    r"\bstick(?:ing)?\s+to\s+(?:soft|a\s+\w+|low|plain|water|decaf|\w+-\w+|\w+\s+foods?)\b|"
    r"\breacts?\s+(?:\w+\s+)?(?:badly\s+)?to\b|\b(?:bad|severe|allergic)\s+reaction\b|"
    r"\b(?:swells?|swell\s+up|swelled)\s+up\b|\bbreaks?\s+out\s+in\b|"
    r"\bbrings?\s+(?:me|him|her|us|them)\s+out\s+in\b|"
    r"\b(?:makes?|sets?)\s+(?:my|his|her|our)\s+(?:\w+\s+)?(?:swell|itch|burn|flare|close|"
    r"tingle|throb|ache|hurt|bleed|break\s+out|blow\s+up|seize\s+up|lock\s+up|go\s+numb)\b|"
    r"\b(?:is|are|'s)\s+(?:basically\s+|pure\s+|literally\s+|like\s+)?(?:poison|deadly|"
    r"lethal|toxic)\s+(?:to|for)\s+(?:me|us|him|her|my\s+\w+|our\s+\w+)\b|"
    r"\bsensitive\s+to\b|\bdoesn'?t\s+agree\s+with\s+(?:me|him|her|my)\b|"
    r"\b(?:can't|cannot|can\s+not)\s+(?:have(?!\s+(?:been|done|had|gone|\w+ed)\b)|handle|tolerate|take|cope\s+with|digest|"
    r"stomach|sit|stand\s+for|manage|be\s+around|go\s+near|go\s+over|go\s+above|stretch\s+to)\b|"
    r"\b(?:don't|doesn't|do\s+not|does\s+not)\s+(?:do|tolerate|handle|digest)\s+(?!anything|"
    r"much|that|it|this|well|a\s+lot|the\b|a\b|any\b|so\b|too\b|enough|what|what's)\w+|"
    r"\bonly\s+(?:eat|drink|fly|travel|wear)\b|"
    # what a condition does to the holder
    r"\b(?:could|would|will|might|can)\s+(?:\w+\s+)?kill\s+(?:me|him|her|us)\b|"
    r"\bend(?:s|ed)?\s+up\s+in\s+(?:hospital|a&e|the\s+er|the\s+hospital)\b|"
    r"\bget\s+(?:really\s+|very\s+|so\s+|quite\s+)?(?:dizzy|faint|nauseous|breathless|"
    r"claustrophobic|travel\s*sick|seasick|carsick)\b|"
    r"\b(?:travel|motion|sea|car|altitude|morning)\s+sickness\b|"
    # conditions
    r"\bbroken\s+(?:ankle|leg|arm|wrist|foot|hip|ribs?|collarbone|toe|hand|back)\b|"
    r"\bin\s+a\s+(?:boot|cast|sling|brace|neck\s+brace)\b|"
    r"\b(?:after|since|recovering\s+from)\s+(?:the|my|his|her)\s+(?:operation|op|surgery|"
    r"stroke|heart\s+attack|heart\s+scare)\b|"
    r"\b(?:while|until|till|before)\s+(?:my|his|her|the)\s+\w+\s+(?:heals?|is\s+healed|"
    r"recovers?)\b|"
    r"\b(?:partially\s+sighted|visually\s+impaired|colou?r[- ]blind|short[- ]sighted|"
    r"dyslexi\w+|crohn'?s|colitis|arthritis|lupus|copd|ptsd|ocd|vertigo|immunocompromised|"
    r"chemo(?:therapy)?|dialysis|pacemaker|hearing\s+aids?|adrenaline\s+pen|epi-?pen|"
    r"anaphyla\w+|\w+(?:statin|statins)|plant-based|fasting|ramadan)\b|"
    r"\b(?:i'?m|i\s+am|he'?s|she'?s)\s+(?:type\s+(?:1|2|one|two)|muslim|jewish|hindu|jain)\b|"
    r"\b(?:of|at|with)\s+heights\b|\bsensory\s+(?:thing|issues?|processing|overload)\b|"
    r"\b(?:not\s+(?:great|good|ok|okay)|no\s+good|hopeless|terrible)\s+with\s+(?:heights|"
    r"crowds|needles|stairs|spic\w+|boats|deep\s+water|blood|small\s+spaces|the\s+heat|heat|"
    r"the\s+cold)\b|"
    # a thing ruled out for the holder
    r"\b(?:is|are|'s|'re)\s+(?:really\s+|totally\s+|completely\s+)?(?:out|off\s+the\s+table|"
    r"useless|(?:a|an)\s+(?:real\s+|big\s+|total\s+|complete\s+|hard\s+)?(?:struggle|nightmare|"
    r"problem|no-go|non-starter|trigger|disaster|no|risk|issue|ordeal|write-off|washout|"
    r"no-no)|not\s+an\s+option|"
    r"trouble|dangerous|too\s+much|too\s+\w+)\s+(?:for|to)\s+(?:me|us|him|her|them|"
    r"(?:my|our)\s+(?:\w+\s+)?\w+)\b|"
    r"\b(?:off\s+the\s+table|out\s+of\s+the\s+question|non-negotiable|a\s+must\s+for)\b|"
    r"\bso\b[^.;]{0,60}?\b(?:won't|doesn't|wouldn't|can't|don't)\s+work\b|"
    # money and schedule limits
    r"\b(?:money|things|finances|funds|cash)(?:'s|'re|\s+is|\s+are)\s+(?:\w+\s+)?(?:tight|stretched|"
    r"short|scarce|limited)\b|"
    r"\b(?:fixed|low|limited|single|tight|small|one|reduced)[- ](?:income|pension|budget|"
    r"salary|wage)\b|"
    r"\b(?:until|till|before)\s+payday\b|\b(?:skint|strapped\s+for\s+cash|hard\s+up)\b|"
    r"\bshort\s+of\s+(?:money|cash)\b|\bthe\s+most\s+(?:i|we)\s+can\s+(?:spend|pay|afford|"
    r"manage|do)\b|\b(?:got|have)\s+(?:only\s+|just\s+)?(?:about\s+|around\s+|roughly\s+)?"
    r"[£$€]?\d[\d,]*\s*(?:dollars|pounds|euros|quid|bucks|k)?\s+left\b|"
    r"\b(?:weekday\s+|weekend\s+|week\s+)?(?:evenings|mornings|afternoons|nights|weekends|"
    r"weekdays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\s+are\s+"
    r"(?:\w+\s+)?(?:taken|out|busy|booked|no\s+good|impossible|tricky|a\s+no)\b|"
    r"\b(?:never|not|rarely)\s+(?:free|available)\b|\bcan\s+(?:barely|hardly|only\s+just)\s+\w+|"
    r"\b(?:tops|maxes|caps)\s+out\b|\bevery\s+penny\s+counts\b|\bsingle[- ]income\b|"
    # an eponymous condition held ("I've got Raynaud's,", "he has Crohn's")
    r"\b(?:got|have|has|with)\s+[a-z]+'s(?=\s*[,.;]|\s*$|\s+(?:disease|syndrome))|"
    r"\bnight\s+(?:classes|school)\b|\b(?:up|awake)\s+at\s+(?:\d|four|five|six)\w*\b|"
    r"\bon\s+call\b|\bschool\s+run\b|\bpick\s+(?:\w+\s+){0,2}up\s+(?:from\s+\w+\s+)?at\b|\bcurfew\b|"
    r"\b(?:don't|do\s+not|doesn't)\s+(?:have|own)\s+a\s+car\b|\bone-car\b|"
    # what the holder rules out or can only do ("nothing too late", "nothing with alcohol",
    # "only weekends work for me", "mornings suit me best")
    r"\bnothing\s+(?:too\s+(?!soon|crazy|serious|bad|big|fancy|much|exciting|special|major|"
    r"wild|long\s+ago)\w+|with\s+\w+|in\s+(?:deep\s+)?\w+|over|above|before|after|"
    r"more\s+than|that\s+involves)\b|"
    r"\bonly\b[^.;]{0,30}?\b(?:works?|suits?)\s+(?:for\s+)?(?:me|us)\b|"
    r"\bsuits?\s+(?:me|us)\s+best\b|\bon\s+a\s+(?:\w+\s+)?budget\b|"
    r"\b(?:start|starts|finish|finishes)\s+(?:work\s+|my\s+shift\s+|school\s+)?at\s+"
    r"(?:\d|half\s+past|quarter\s+(?:past|to)|(?:one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|noon|midday)\b)|"
    r"\bin\s+recovery\b|\b(?:hip|knee|joint)\s+replacement\b|"
    # harm to the holder's body ("murder on my back", "kills my knees"), a medical term by its
    # form (arthritis, scoliosis, anaemia, neuropathy, fibromyalgia, apnoea), a dependence
    r"\b(?:murder|hell|hard|rough|agony|brutal|a\s+killer|killer|torture)\s+(?:on|for)\s+"
    r"(?:my|his|her|our)\s+" + _BODY + r"|\bkills?\s+(?:my|his|her)\s+" + _BODY + r"|"
    r"\b(?!(?:nostalgia|empathy|sympathy|telepathy|antipathy|apathy|diagnosis|prognosis|"
    r"hypnosis|osmosis|symbiosis)\b)[a-z]{3,}(?:itis|osis|aemia|emia|pathy|algia|apno?ea)\b|"
    r"\bon\s+the\s+spectrum\b|\brecovering\s+(?:alcoholic|addict)\b|\balcoholic\b(?!\s+drinks?)|"
    r"\bon\s+(?:oxygen|dialysis|a\s+ventilator|chemo|meds|medication|antibiotics|insulin|"
    r"statins|a\s+\w+\s+diet)\b|"
    r"\bnowhere\s+(?:too\s+\w+|with|near|that)\b|"
    r"\b(?:is|are)\s+(?:\w+ly\s+)?off\s+(?:for\s+(?:a\s+bit|a\s+while|now|the\s+moment|"
    r"the\s+time\s+being)|the\s+menu|limits)\b|\b(?:is|are|'s|'re)\s+(?:\w+ly\s+)?off-limits\b|"
    # a body part healing, a licence never held, a cap on what the holder may spend
    r"\b(?:knees?|back|hips?|ankles?|legs?|arms?|wrists?|shoulders?|foot|feet|neck|ribs?|"
    r"hands?|stitches|wound|scar)\s+(?:is|are|'s)\s+(?:still\s+)?(?:healing|mending)\b|"
    r"\b(?:never\s+(?:got|had|passed|learned\s+to\s+drive)|(?:don't|do\s+not|doesn't)\s+"
    r"(?:have|hold)|haven't\s+got|lost)\s+(?:my|a|his|her)\s+(?:driving\s+|driver'?s\s+)?"
    r"licen[cs]e\b|\bwhat\s+(?:i|we)\s+(?:can|could|are\s+able\s+to)\s+(?:spend|afford|pay)\b|"
    r"\b(?:can't|cannot|won't)\s+(?:really\s+|quite\s+|possibly\s+)?(?:stretch|go|spend|pay)\s+"
    r"(?:to|beyond|over|above|more\s+than)\b|"
    r"\bneeds?\s+(?:a\s+|an\s+)?(?:ground[- ]floor|step[- ]free|accessible|downstairs|quiet|"
    r"lift|ramp|room\s+to\s+(?:myself|himself|herself|themselves)|own\s+room|regular\s+breaks|"
    r"a\s+seat)\b|"
    r"\b(?:has|have)\s+to\s+be\s+(?:really\s+|very\s+)?(?:quiet|short|cheap|nearby|close\s+by|"
    r"flat|accessible|low-key|downstairs|on\s+the\s+ground\s+floor|early|near\s+a\s+\w+)\b|"
    # a requirement on everything
    r"\b(?:keep\s+it|has\s+to\s+be|have\s+to\s+be|needs?\s+to\s+be|must\s+be)\s+"
    r"(?:\w+[- ])?(?:friendly|free|safe|accessible|proof)\b|\blevel\s+access\b|\blarge\s+print\b")

# A need by what it does to later requests, whatever names it: what a clinician told the
# holder to keep to ("the cardiologist said nothing that sends my pulse racing", "the
# nutritionist has me off bread"), a list of things ruled out ("no bread, no pasta, no rice"),
# a body that gives out, a seat needed wherever they go, money that has to last ("I've got
# forty pounds a week left", "I think hard before buying anything"), hours that are always
# spoken for ("every Saturday morning, rain or shine"). Read with a holder, as `_LIMIT` is.
_CLINICIAN = (r"(?:doctor|doc|gp|consultant|specialist|nurse|surgeon|physio\w*|dietitian|"
              r"dietician|nutritionist|midwife|pharmacist|dentist|optician|therapist|"
              r"[a-z]{3,}ologist|[a-z]{3,}iatrist)s?")
_NOT_A_LIMIT = (r"(?!(?:sign|signs|problem|problems|issue|issues|cause|need|worries|worry|change|"
                r"damage|reason|longer|one|idea|doubt|way|rush|pressure|stress|fuss|drama|"
                r"regrets|kidding|joke|big\s+deal|biggie|matter|wonder|thanks|comment|"
                r"offence|offense|gain|pain\s+no\s+gain)\b)")
_MONEY = (r"(?:[£$€]\d[\d,.]*k?|(?:\d[\d,.]*|(?:twenty|thirty|forty|fifty|sixty|seventy|"
          r"eighty|ninety|a\s+hundred|\w+\s+hundred|a\s+few\s+hundred)(?:[- ]\w+)?)\s*"
          r"(?:dollars|pounds|euros|quid|bucks|grand|k)\b)")
# What a list of "no"s says someone has not got (no kids, no pets), not what they keep off.
_HAD = (r"(?!(?:kids|children|pets|mortgage|plans|power|water|wifi|signal|internet|heating|"
        r"electricity|phone|tv|news|traffic|queues?|drama|ties|strings|debt)\b)")
_REQUESTS = re.compile(
    r"\b" + _CLINICIAN + r"\b[^.;]{0,40}?\b(?:said|says|told|tells|wants|reckons|advised|"
    r"advises|recommended|recommends|has\s+(?:me|him|her|us)|put\s+(?:me|him|her|us)|"
    r"set\s+(?:it\s+)?up|gave\s+(?:me|him|her|us))\b[^.;]{0,50}?\b(?:no\s+" + _NOT_A_LIMIT +
    r"|nothing\s+(?!to\s+worry|wrong|serious|major|to\s+be)|avoid\w*|cut\w*|stop\w*|"
    r"(?:me|him|her|us)\s+off(?!\s+(?:work|sick|school|the\s+hook))|"
    r"only(?!\s+(?:i|you|time|one|way))|limit\w*|lay\s+off|keep\w*\s+(?:off|away|to|it|my|his|her|down|under)|"
    r"stay\w*\s+(?:off|away|clear)|not\s+to|(?:can't|cannot|shouldn't|mustn't))\b|"
    r"\bno\s+" + _NOT_A_LIMIT + _HAD + r"(?:[\w-]+\s+){0,2}?[\w-]+\s*,\s*(?:and\s+|or\s+)?no\s+" +
    _NOT_A_LIMIT + r"[\w-]+|"
    r"\b(?:" + _BODY[3:-3] + r")\s+(?:gives?|keeps?\s+giving|tends?\s+to\s+give|can\s+give)"
    r"\s+out\b|"
    r"\bneeds?\s+(?:\w+\s+){0,2}(?:somewhere|a\s+(?:place|spot|chair|seat|bench))\s+to\s+"
    r"(?:sit|rest|lie\s+down|perch)\b|\bneeds?\b[^.;]{0,40}\b(?:wherever|everywhere|anywhere)\s+"
    r"(?:i|we|he|she|they)\s+go\b|"
    r"\b(?:got|have|has)\s+(?:only\s+|just\s+)?(?:about\s+|around\s+|roughly\s+)?" + _MONEY +
    r"\s+(?:(?:a|per|each)\s+(?:week|month|day)\s+)?"
    r"(?:left|to\s+(?:spend|live\s+on|last))\b|"
    r"\bthink\s+(?:\w+\s+){0,2}(?:hard|twice)\s+before\s+(?:buying|spending|booking|paying|"
    r"getting|ordering|splurging)\b|"
    r"\b(?:slot|time|day|morning|evening|afternoon|night|hour|hours|window|weekend)s?\s+"
    r"(?:is|are)\s+(?:always\s+|usually\s+|permanently\s+|all\s+)?(?:spoken\s+for|taken|"
    r"blocked|booked|off-limits|out)\b|"
    r"\b(?:bloats?|floors?|flattens?|poisons?|wrecks?|disagrees?\s+with|"
    r"goes\s+straight\s+through|"
    r"go\s+straight\s+through)\s+(?:me|him|her|us)\b|\bput\s+(?:me|him|her|us)\s+in\s+"
    r"(?:hospital|a&e|the\s+er|bed\s+for)\b|\bsets?\s+(?:my|his|her|our)\s+\w+\s+off\b|"
    r"\b(?:budget|card|cards|overdraft|credit)(?:'s|\s+is|\s+are)\s+(?:\w+\s+)?maxed\b|"
    r"\bpay\s*day\s+(?:isn't|is\s+not|'s\s+not)\s+(?:till|until)\b|"
    r"\b(?:i'm|i\s+am)\s+the\s+only\s+one\s+(?:who\s+can|to)\s+(?:drive|take|look\s+after|care|"
    r"pick|feed|walk|lift|wash|dress|sit\s+with)\b|"
    r"\b(?:saving|putting\s+away|counting|watching)\s+every\s+(?:spare\s+)?(?:penny|cent|pound|"
    r"dollar)|\b(?:can't|cannot|can\s+barely|can\s+hardly)\s+(?:hear|see|read|walk)\s+(?:a\s+thing|"
    r"anything|much|well|properly|far)\s+without\b|\b(?:is|are|'s)\s+(?:\w+\s+)?beyond\s+(?:me|him|"
    r"her|us)\s+(?:now|these\s+days|anymore|nowadays|physically)\b|\b(?:is|are|'s|'re)\s+(?:\w+ly\s+)?(?:banned|forbidden|not\s+allowed)\b|"
    r"\bevery\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+(?:and\s+)?){1,3}(?:morning\s+|"
    r"evening\s+|afternoon\s+|night\s+)?at\s+(?:\d|half|quarter|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|noon)\b|"
    r"\b(?:needs|relies\s+on|depends\s+on)\s+me\s+(?:there|home|around|every|each|at|"
    r"to\s+(?:help|get|be|take|lift|wash|dress))\b|"
    r"\b(?:evenings|mornings|afternoons|nights|weekends|weekdays|(?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)days)\s+are\s+(?:for|reserved\s+for|kept\s+for)\s+(?:my|our|the)\b|"
    r"\bevery\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:\s+(?:morning|afternoon|evening|"
    r"night))?\b[^.;]{0,30}\b(?:rain\s+or\s+shine|without\s+fail|no\s+matter\s+what|"
    r"no\s+exceptions)\b")

# A need in words no family above names: a limit word ("no", "can't", "only", "above",
# "capped") and a word of a domain needs are about (food and drink, body and health, getting
# about, money, the hours of the day), said of the present ("I used to be scared of the dark"
# is not one): "Seafood's a hard no for my girlfriend", "Budget-wise, we're capped at 400",
# "My hearing isn't great". Read with a holder, as the families are.
_LIMIT_WORD = re.compile(
    r"\b(?:no|not|nothing|nowhere|none|never|without|only|under|below|above|max|limit|limited|"
    r"capped|cap|ceiling|too|hard|difficult|struggle|useless|(?:do|does|can|wo|is|are|must|"
    r"should)n't|cannot|watch\s+(?:my|his|her|our|the)|careful)\b(?!\s+(?:gonna|going\s+to)\s+"
    r"(?:forget|lie|stop))")
_DOMAIN = re.compile(
    r"\b(?:food|foods|meals?|eat|eating|drink|drinking|alcohol|wine|beer|booze|coffee|caffeine|"
    r"sugar|salt|meat|pork|beef|fish|seafood|shellfish|dairy|milk|cheese|eggs?|nuts|peanuts|"
    r"gluten|wheat|spicy|spice|sweets|carbs|protein|sesame|soy|garlic|onions?|"
    r"knees?|hips?|joints?|stomach|hearing|eyesight|lungs|breathing|kidneys?|"
    r"liver|skin|pain|seizures?|meds|medication|pills|hospital|diagnosed|"
    r"stairs|lifting|standing|driving|flying|flights?|heights|crowds|noise|"
    r"budget|money|cash|afford|spend|spending|price|prices|costs?|expensive|pricey|skint|"
    r"broke|savings|quid|dollars|euros|pounds|"
    r"mornings?|afternoons?|evenings?|nights?|weekends?|weekdays?|mondays?|tuesdays?|wednesdays?|"
    r"thursdays?|fridays?|saturdays?|sundays?|bedtime|bed|naps?|shifts?|o'clock|"
    r"\d+\s*(?:am|pm)|degrees|groceries|rent|bills|"
    r"(?:a|per|each)\s+(?:night|week|month|head))\b")
_WORD_AT = re.compile(r"\S+")
_CLAUSE = re.compile(r"[,;:]|\s(?:-|but|because|since|so|and)\s")
_WHEN_WORDS = r"yesterday|ago|last\s+(?:night|week|month|year|time)"
"""The times `_PAST` reads as the past, which a state taken up outlives (`_BECAME`)."""
_PAST = re.compile(r"\b(?:used\s+to|was(?!\s+(?:diagnosed|suspended|revoked|banned|"
                   r"taken\s+(?:off|away)|told\s+to|advised\s+to|put\s+on))|were|(?<!'ve\s)(?<!have\s)(?<!that\s)"
                   r"had|did|didn't|(?<!wish\si\s)(?:wasn't|weren't)|" + _WHEN_WORDS + r"|"
                   r"as\s+a\s+(?:kid|child|teen)|"
                   r"when\s+i\s+was)\b")


_BECAME = re.compile(r"\b(?:(?:went|gone|turned|became|become)\s+(?:fully\s+|completely\s+|"
                     r"totally\s+|strictly\s+)?(?:[a-z]+-free|vegan|vegetarian|veggie|pescatarian|"
                     r"teetotal|tee-total|sober|plant-based)|(?:stopped|quit|gave\s+up|given\s+up|"
                     r"cut\s+out)\s+(?:eating|drinking|smoking|alcohol|meat|dairy|sugar|gluten))\b")
"""A state taken up, which holds after the time it was taken up ("went gluten-free last year")."""
_WHEN = re.compile(rf"\b(?:{_WHEN_WORDS})\b")


def _past(clause: str) -> bool:
    """Whether `clause` is said of the past: not a state taken up then ("went vegan last year")."""
    return bool(_PAST.search(_WHEN.sub(" ", clause) if _BECAME.search(clause) else clause))


class _Clauses:
    """`sentence` (lower-cased) cut into clauses, each said of the past or not, and its words'
    starts: where a cue sits, and how far apart two cues are in words."""

    def __init__(self, sentence: str) -> None:
        self.cuts = [0, *(m.end() for m in _CLAUSE.finditer(sentence)), len(sentence) + 1]
        self.past = [_past(sentence[x:y]) for x, y in pairwise(self.cuts)]
        self.starts = [m.start() for m in _WORD_AT.finditer(sentence)]

    def present(self, at: int) -> bool:
        """Whether the clause holding character `at` is said of the present."""
        return not self.past[bisect_right(self.cuts, at) - 1]

    def word(self, at: int) -> int:
        """The index of the word holding character `at`."""
        return bisect_right(self.starts, at)

    def theirs(self, sentence: str, start: int, end: int) -> bool:
        """Whether what `sentence[start:end]` says is the speaker's: the last person its clause
        names up to `end` is not an outsider ("My friend can't drive, so I gave her a lift")."""
        clause = self.cuts[bisect_right(self.cuts, start) - 1]
        named = list(_PERSON.finditer(sentence, clause, end))
        return not named or (named[-1].group(1) or "") not in _OUTSIDE


_PERSON = re.compile(r"\b(?:i|we|me|us|he|she|they|(?:my|our)\s+([\w-]+?)(?:'s)?)\b")


def _limited(sentence: str, cl: _Clauses) -> bool:
    """Whether `sentence` (lower-cased) reads as a limit in a needs domain: a limit word
    within four words of a needs domain word, in a clause said of the present (the need is
    present in "Flying is not an option for me, I had a bad experience last year" though its
    reason is past)."""
    if sentence.rstrip().endswith("?"):
        return False
    limits = [cl.word(m.start()) for m in _LIMIT_WORD.finditer(sentence)
              if cl.present(m.start())]
    return any(abs(cl.word(m.start()) - a) <= 4
               for m in _DOMAIN.finditer(sentence) for a in limits)


# Who holds a need term (`lexicon.TERM`), by the words just before it: a holder (the speaker,
# theirs, family said bare) and a verb of having, taking or being ("I take lithium", "I'm on
# warfarin", "our youngest gets eczema", "I'm registered blind", "I carry an adrenaline
# shot"), or a possessive ("my seizures", "my guide dog"); or by the words after it: what it
# does to them ("penicillin gives me a nasty reaction"). A term said as a topic or beside an
# activity is not held: "a book about autism", "a cancer charity", "I'm making a dairy-free".
_HOLDER = (r"(?:\b(?:i|we|you|he|she|they|mum|mom|mam|dad|grandma|grandpa|gran|nan|granny|"
           r"(?:my|our)\s+(?:little\s+|youngest\s+|eldest\s+|oldest\s+)?([\w-]+?)(?:'s)?)\s+"
           r"(?:(?:really|still|also|always|now|just|both|all|actually|currently|\w+ly)\s+)*"
           r"(?:have|has|had|got|'ve\s+got|'s\s+got|live\s+with|lives\s+with|living\s+with|"
           r"suffers?\s+from|diagnosed\s+with|am|is|are|was\s+diagnosed\s+with|be|been|take|takes|"
           r"use|uses|rely\s+on|relies\s+on|need|needs|carry|carries|wear|wears|keep|keeps|eat|"
           r"eats|went|gone|go|goes|get|gets|do|does|can't|cannot|don't|doesn't|won't|"
           r"look\s+after|looks\s+after|care\s+for|cares\s+for|gets\s+around\s+with|"
           r"gets?\s+(?:around|about)\s+(?:with|on|in)|walks?\s+with|"
           r"wish\s+(?:i|we)\s+(?:wasn't|weren't|didn't\s+have))"
           r"|\b(?:i'm|im|i've|ive|we're|we've|he's|she's|they're|they've|(?:my|our)\s+([\w-]+?)"
           r"(?:'s|\s+is|\s+are))(?:\s+(?:got|been|on|taking|using|having|keeping|going|"
           r"living\s+with|carrying|wearing|\w+ly|also|still|now|always|both|all))*)"
           r"\s+(?:in\s+the\s+(?:\w+\s+)?stages?\s+of\s+)?"
           r"(?:(?!(?:about|on|for|at|into|regarding)\s|\w+(?:ing|in')\s)[\w'-]+\s+){0,3}$")
_BEFORE = re.compile(_HOLDER)
# A term that is a verb phrase has its holder as subject: "I pass out at the sight of needles".
_SUBJECT = re.compile(r"\b(?:i|we|mum|mom|mam|dad|grandma|grandpa|gran|nan|granny|"
                      r"(?:my|our)\s+([\w-]+))\s+(?:(?:really|always|still|just|also|\w+ly)\s+)*$")
_OWNED = re.compile(r"(?:^|\s)(?:my|our)\s+(?:([\w-]+)(?:'s)?\s+)?$")
# "his", "her" of someone of the household said before ("my partner's been told his
# cholesterol is high"), not of a stranger ("a bloke on the train told me about his gout").
_THEIRS = re.compile(r"\b(?:his|her|their)\s+(?:[\w-]+\s+)?$")
_WHO = re.compile(r"\b(?:(?:my|our)\s+([\w-]+)|(?:a|an|some|this|that|the)\s+(?:\w+\s+)?(?:bloke|"
                  r"guy|man|woman|lady|chap|girl|boy|fella|fellow|person|stranger|customer|patient|"
                  r"passenger|friend|colleague)|someone|somebody|anyone)\b")
# A term denied is not held: "no allergies", "not on any medication", "not allergic to
# anything"; "any I'm not allergic to" says there are some.
_NONE = re.compile(r"\b(?:no|(?:not|never)\s+(?:\w+\s+)?any|without\s+any)\s+$")
_NOT = re.compile(r"\b(?:not|never)\s+(?:really\s+)?$")
_AT_ALL = re.compile(r"\s+(?:to\s+|of\s+|on\s+)?(?:anything|any\b|at\s+all|whatsoever)")
_SELF = re.compile(r"\b(?:me|us|my|our)\b")
_HERE = re.compile(r"[^.;,]{0,20}?\b(?:here|for\s+(?:me|us)|in\s+(?:our|this|my)\s+"
                   r"(?:house|home|family))\b")
_DOES_TO = re.compile(r"\s+(?:\w+\s+)?(?:gives?|makes?|triggers?|sets?\s+off|brings?\s+on|"
                      r"sends?|puts?|knocks?)\s+(?:me|us|my|our)\b")


def _holds(sentence: str, cl: _Clauses) -> bool:
    """Whether `sentence` (lower-cased) names a condition, medication, allergen, diet, aid,
    fear, care duty or legal limit (`lexicon.TERM`) held by the speaker or one of theirs
    (`_BEFORE`, `_OWNED`, `_DOES_TO`), in a clause said of the present ("I take lithium",
    "the lights can bring on my seizures"; not "My cousin has asthma", "I had a migraine
    yesterday", "I'm reading a book about autism")."""
    for m in TERM.finditer(sentence):
        if not cl.present(m.start()):
            continue
        said = m.group()
        if _SELF.search(said):
            return True  # "my visa doesn't let me", "spiders freak me out", "terrify our dog"
        before = sentence[max(0, m.start() - 90):m.start()]
        if _NONE.search(before) or (_NOT.search(before) and _AT_ALL.match(sentence, m.end())):
            continue  # "I have no allergies", "I'm not allergic to anything"
        held = _BEFORE.search(before) or _OWNED.search(before) or _SUBJECT.search(before)
        if held and not {g for g in held.groups() if g} & _OUTSIDE:
            return True
        who = list(_WHO.finditer(sentence, 0, m.start()))
        if _THEIRS.search(before) and who and (who[-1].group(1) or "friend") not in _OUTSIDE:
            return True
        if _DOES_TO.match(sentence, m.end()) or _HERE.match(sentence, m.end()):
            return True
    return False


_HUMANS = (r"wife|husband|partner|spouse|fianc[ée]e?|boyfriend|girlfriend|son|daughter|kids?|"
           r"children|child|baby|mum|mom|mother|dad|father|parents?|brother|sister|siblings?|"
           r"twin|cousin|aunt|uncle|nephew|niece|grand(?:ma|pa|mother|father|son|daughter)|"
           r"boss|manager|colleague|coworker|roommate|flatmate|neighbou?r|best\s+friend|"
           r"landlord|landlady|doctor|gp|dentist|therapist|emergency\s+contact")
_PEOPLE = _HUMANS + r"|dog|cat|pet"
_PROFILE = re.compile(
    r"\bmy\s+(?:" + _PEOPLE + r")(?:'s)?\s+(?:name\s+is|is\s+called|is\s+named|is|are|'s)\b|"
    r"\bmy\s+(?:name|surname|pronouns|birthday|address|email|phone(?:\s+number)?|number|"
    r"job|job\s+title|occupation|profession|employer|nationality|home\s+town|hometown)\s+"
    r"(?:is|are|ends)\b|"
    r"\b(?:i|we)\s+live\s+in\b|\bi(?:'m|\s+am)\s+(?:from|based\s+in|married|divorced|single|"
    r"widowed|retired|a\s+(?:nurse|teacher|doctor|student|developer|engineer|lawyer|chef|"
    r"designer|writer|manager|driver|pilot))\b|"
    r"\bi\s+work\s+(?:at|for|as)\b")

# Who someone is by structure: a name said ("I'm Priya, by the way"), a named relation ("my
# partner Jonas is a paramedic"; a pet's breed is not who someone is), where they grew up or
# have lived, their age, what they teach or work in, the people and pets of the household
# ("we've got two cats").
_IDENTITY = re.compile(
    r"\b(?i:i'm|i\s+am|my\s+name'?s|call\s+me)\s+[A-Z][a-z]+(?=\s*(?:,|\.|!|$|\band\b))|"
    r"\b(?i:my|our)\s+(?i:" + _HUMANS + r")\s+[A-Z][a-z]+\s+"
    r"(?i:is|'s|works|lives|was)\b|"
    r"(?i:\bi\s+(?:teach|work\s+in|grew\s+up\s+in|was\s+born\s+in|was\s+raised\s+in)\b|"
    r"\bi'?ve\s+(?:lived|been)\s+in\s+\w+\s+for\b|\bi'?m\s+\d\d\b(?!\s*(?:%|percent|minutes|"
    r"mins|hours|km|miles|pounds|kg))|\b(?:we|i)(?:'ve|\s+have)?\s+(?:got|have)\s+(?:a|an|one|"
    r"two|three|four|\d)\s+(?:\w+\s+)?(?:kids|children|sons|daughters|dogs?|cats?|pets?|"
    r"grandchildren|grandkids)\b)")
# A stable leaning said without "I like": "much prefer", "I'd rather", "more into", "is my
# thing", "a morning person", "a night owl".
_LEANING = re.compile(
    r"\bprefer(?:s|red)?\b|\b(?:i|we)(?:'d|\s+would)\s+rather\b|\b(?:more|really|big|huge)\s+"
    r"into\b|\bis\s+(?:my|our)\s+(?:thing|jam|go-to)\b|\ba\s+(?:morning|night|cat|dog|tea|"
    r"coffee|beach|city)\s+person\b|\bnight\s+owl\b|\bearly\s+bird\b")


# A need is someone's: the speaker's or one of theirs ("Dance floors help avoid injuries" is
# about dancing, not a limit of anyone's; "my students can't afford the books" and "the kids in
# her class have nut allergies" are other people's). Family words said bare ("Mum uses a
# walker") are the speaker's.
_OUTSIDE = frozenset("""students student pupils pupil clients client customers customer patients
    patient readers followers fans colleague colleagues coworker coworkers co-workers boss
    manager team class classmates friend friends neighbour neighbours neighbor neighbors guests
    audience viewers staff employees users members cousin cousins aunt auntie aunty uncle
    niece nephew ex""".split())
_SPEAKER = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|myself|mine|we|we're|we've|we'll|we'd|us|"
                      r"ourselves|mum|mom|mam|dad|grandma|grandpa|grandad|granddad|gran|nan|granny|baby|"
                      r"toddler|here|money|the\s+(?:kids|children|twins|little\s+ones|house|household)\b"
                      r"(?!\s+(?:in|at|of|from|next|down|across))|"
                      r"budget|cash|quid|dollars|euros|pounds)\b")
# An instruction to keep to something is the speaker's ("Keep costs under 50 a head").
_KEEP_TO = re.compile(r"^\W*(?:please\s+)?(?:keep|make\s+sure|bear\s+in\s+mind|remember)\b")
_OWN = re.compile(r"\b(?:my|our)\s+(\w+)(?:\s+(\w+))?")


# A need the speaker had once is not one now ("I used to be scared of the dark as a kid").
_FORMER = re.compile(r"\b(?:used\s+to|as\s+a\s+(?:kid|child|teen|teenager)|when\s+i\s+was\s+"
                     r"(?:little|young|small|a\s+kid|a\s+child)|(?:it'?s|it\s+is)\s+(?:all\s+)?"
                     r"(?:gone|cleared\s+up|better|fine|healed)\s+now|fully\s+recovered|(?:cleared\s+up|went\s+away|healed|"
                     r"got\s+better)\s+(?:completely|for\s+good|totally|entirely)|"
                     r"for\s+a\s+(?:day|week|month|year|while|bit)\s+once|once\s+as\s+a|"
                     r"as\s+a\s+(?:challenge|dare|joke|one-off|experiment))\b")


def _now(sentence: str) -> str:
    """`sentence`, its clauses of a former time blanked (positions kept): "I'm allergic to
    penicillin, found out as a kid" holds a need now, "I used to ... as a kid" none."""
    if not _FORMER.search(sentence):
        return sentence
    cuts = [0, *(i for m in _CLAUSE.finditer(sentence) for i in m.span()), len(sentence)]
    return "".join(" " * (b - a) if k % 2 == 0 and _FORMER.search(sentence[a:b]) else
                   sentence[a:b] for k, (a, b) in enumerate(pairwise(cuts)))


def _held(sentence: str) -> bool:
    """Whether someone holds what `sentence` (lower-cased) says: the speaker, or a person,
    body part or thing of theirs that is not an outsider ("my back", "our youngest"; not "my
    students")."""
    if _SPEAKER.search(sentence) or _KEEP_TO.search(sentence):
        return True
    return any(not ({m.group(1), m.group(2) or ""} & _OUTSIDE) for m in _OWN.finditer(sentence))


# The fact writer's preference cue without its "allergic" (a need here, read first, and only
# when someone holds it); the event cue is the fact writer's own (`sentences._EVENT`).
_PREF = re.compile(r"\b(i|we)\s+(really\s+)?(like|love|prefer|hate|enjoy|dislike|can't stand)\b"
                   r"|\bfavou?rite\b")


# A person named at the head of a sentence, as the household speaks of its own ("Little Amir has
# come out in hives", "Sophie was diagnosed with coeliac disease"): read as "our amir".
_HEAD = (r"^\W*(?:(?:poor|little|baby|grandad|grandpa|granny|nana|nanna)\s+)*(?-i:([A-Z][a-z]+))"
         r"(?=\s+(?:is|was|has|had|'s|gets|got|breaks|broke|came|comes|reacts|reacted|can't|"
         r"cannot|won't|doesn't|needs|takes|uses|still|now|only|always|also|just)\b")
_NAMED_HEAD = re.compile(_HEAD + ")", re.I)
# For needs also a name whose something is said ("Finn's eczema has flared up").
_NAMED_OWNER = re.compile(_HEAD + r"|'s\s+\w)", re.I)


_NOT_HEADS = frozenset("""haha hahaha lol wow yeah yes yep no nope oh ooh hey hi hello okay ok um
    well aww awesome cool nice wait yay everything nothing nobody life it what that there here
    where who how when this let he she""".split())


def _named_ours(sentence: str, opens: re.Pattern[str] = _NAMED_HEAD) -> str:
    """`sentence` lower-cased, a person it opens with by name (`opens`) read as one of the
    speaker's."""
    low = sentence.lower()
    m = opens.match(sentence)
    if m is None or not may_be_name(m.group(1)) or m.group(1).lower() in _NOT_HEADS or \
            TERM.match(low, m.start(1)):
        return low
    head = len(low) - len(low.lstrip(" \t\"'([-"))
    return f"{low[:head]}our {low[m.start(1):]}"  # "Grandad Frank is" as "our frank is"


_RULE = re.compile(r"^\W*(?:(?:ok|okay|and|also|oh|so)[\s,]+)*(?:please\s+)?(?:never|don't\s+ever|"
                   r"do\s+not\s+ever)\s+(?:\w+\s+)?(?:pair|put|book|schedule|seat|match|assign|team|"
                   r"partner|send|call|ring|text|email|suggest|recommend|offer|give)\s+(?:me|us)\b")
"""A standing rule the user sets for later requests ("Please never pair me with Gareth again",
"Don't ever book us on a red-eye"): a need, though worded as a request."""


def standing_rule(sentence: str) -> bool:
    """Whether `sentence` sets a rule for every later request (`_RULE`)."""
    return _RULE.search(sentence.replace("\u2019", "'").lower()) is not None


def kind_of(sentence: str) -> str:
    """The kind the offline writer files `sentence` (a clause as said) under: the first of
    constraint, decision, profile, preference, event that reads it, else fact. An agreement
    says what was agreed: "Agreed, Mel!" is assent, not a decision."""
    sentence = sentence.replace("\u2019", "'")
    if standing_rule(sentence):
        return "constraint"
    low = _named_ours(sentence)  # the patterns are lower-case: matching by case is 4x slower
    # needs are read with the household's own said as a holder ("the other half" as "my partner")
    ours = _named_ours(as_household(sentence), _NAMED_OWNER)
    ours = _now(ours)  # (no clause of a former time is left in it)
    held = _held(ours)
    cl = _Clauses(ours) if held else None
    if cl and (any(cl.present(m.start()) and cl.theirs(ours, m.start(), m.end())
                   for r in (_CONSTRAINT, _LIMIT, _REQUESTS, NEED_EFFECT) for m in r.finditer(ours))
               or any(cl.theirs(ours, m.start(), m.end())
                      for r in (LASTING, LIMITATION) for m in r.finditer(ours))
               or _holds(ours, cl)):
        return "constraint"
    if agreed(sentence, low) and said_what(sentence):
        return "decision"
    if cl and _limited(ours, cl):
        return "constraint"
    if _PROFILE.search(low) or _IDENTITY.search(sentence):
        return "profile"
    if _PREF.search(low) or (_LEANING.search(low) and held):
        return "preference"
    if _EVENT.search(sentence):
        return "event"
    return "fact"


HELD_KINDS = frozenset({"constraint", "decision"})
"""Kinds a sentence passes to its clauses: in "I don't drive, so I get around by bus and train"
the second clause is the need too, and "Okay, settled: the offsite goes to Lisbon" loses its
cue when the lead-in is trimmed. The writer keeps such a clause whatever its shape."""


def held_kind(clause: str, sentence_kind: str) -> str:
    """The kind of a clause of a sentence of `sentence_kind`: its own when it reads as a need
    or an agreement, else the sentence's when that is one ("My daughter is two, so everything
    has to work with a toddler": the daughter's age is why), else its own."""
    own = kind_of(clause)
    if own in HELD_KINDS or sentence_kind not in HELD_KINDS:
        return own
    return sentence_kind


