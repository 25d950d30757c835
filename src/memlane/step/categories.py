"""The category lexicon: the things a person holds ONE current value of, each a `Family` of
members (brands, models, kinds) written as regular-expression fragments, in the style of
`step/lexicon.py`. What is keyed is the VALUE ("a Pixel 8" is a phone, "Octopus" an energy
supplier), not the words around it; `step/families.py` is the mechanism that reads them.

Grouped by what the thing is: how one gets about (commute, car), what one buys with (bank,
food shop), what one is on (mobile network, energy, broadband), what one carries (phone,
watch, laptop), how one works (work pattern, shift, hours), what one eats (diet) and the
practices one is registered with (dentist, GP, vets, pharmacy, gym, optician: a member by
its name's suffix too, "Bright Dental"), who one's mortgage is with, what one's telly comes
through and one's music is on (a TV provider, a music service) and where one has one's hair
cut. The brands are the ones UK, Irish, US, Canadian and
Australian users name; a brand no other thing is called is marked the family's own
(`Family.own`).

Left out on purpose, as things a person holds several of at once: video streaming services,
sports, languages, hobbies, airlines (one flies whichever is cheapest), credit cards, clothing
brands. Pure data and one helper; no mechanism here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """A family of values a person holds one of."""

    name: str
    members: tuple[tuple[str, str], ...]
    """(canonical member, regular-expression fragment), matched case-insensitively; a brand
    whose name is an everyday word is written case-sensitive ("(?-i:Three)")."""
    context: str = ""
    """A fragment the sentence must match for its members to count ("shop" for a supermarket:
    "I work at Tesco" is no food shop); empty: the members say it themselves."""
    noun: str = ""
    """The attribute's noun, named with a change ("switched dentists", "a new GP")."""
    suffix: str = ""
    """A practice named by its suffix ("... Dental"): the capitalised name before it is a member."""
    hints: str = ""
    """Words a held fact of the family is said with, searched for (`step/related.py`): "Our gas
    and electric is with British Gas" / "We're with Octopus now" share no word."""
    care: str = ""
    """What a practitioner of the family sees one for ("teeth", "skin"), or its own noun: a
    doctor by name ("Dr Okafor") is a member when the sentence says the care of this family
    and of no other ("I see Dr Lindqvist for my teeth nowadays")."""
    own: frozenset[str] = frozenset()
    """Members (canonical) no other thing is called ("E.ON", "Scotiabank"; not "Vodafone":
    broadband too, nor "Origin"): counted without the context when the held fact of the family
    said it ("Our electricity is with Octopus" / "We've been with E.ON since May") and the
    sentence says no work there (`families.one_value`)."""
    cased: bool = False
    """Every member opens with a capital or a digit: other places are skipped at once (a long
    family, the cars, read over a 60,000-character message costs a step little)."""


def _brands(*names: str) -> tuple[tuple[str, str], ...]:
    """Members that are brand names, each written as said (case-sensitive), a whole word
    ("TD" is not "TDs", "Co-op" not "Co-operative")."""
    return tuple((_name(n), "(?-i:" + re.escape(n).replace(r"\ ", r"\s+") + r")(?!\w|-\w)")
                 for n in names)


def _name(brand: str) -> str:
    """A brand's canonical member name."""
    return brand.lower().replace("'", "")


def _own(*groups: tuple[str, ...]) -> frozenset[str]:
    """The canonical names of brands no other thing is called (`Family.own`)."""
    return frozenset(_name(n) for g in groups for n in g)


# Makes and the models they are named by ("a Yaris", "the Ford Fiesta"): one member a model,
# with or without its make, and a make alone when no model follows it. A model that is an
# everyday word, a place or a paper size ("Jazz", "Up", "Outback", "A4") counts only with its
# make, written "+Model".
_CAR_MODELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Ford", ("Fiesta", "Focus", "Kuga", "Puma", "Mondeo", "Mustang", "F-150", "Ranger",
              "Transit", "EcoSport", "S-Max", "C-Max", "Bronco", "+Explorer", "+Escape",
              "+Galaxy", "+Everest", "+Ka")),
    ("Toyota", ("Yaris", "Corolla", "Aygo", "Prius", "RAV4", "C-HR", "Auris", "Camry", "Hilux",
                "Land Cruiser", "Highlander", "Tacoma", "Tundra", "Sienna", "bZ4X", "Supra",
                "Kluger", "+Avensis")),
    ("Volkswagen", ("Golf", "Polo", "Passat", "Tiguan", "T-Roc", "ID.3", "ID.4", "Touran",
                    "T-Cross", "Touareg", "Jetta", "Arteon", "+Up", "+Beetle", "+Transporter")),
    ("VW", ("Golf", "Polo", "Passat", "Tiguan", "T-Roc", "Touran", "ID.3", "ID.4", "T-Cross",
            "Jetta", "+Up", "+Beetle", "+Transporter")),
    ("Vauxhall", ("Corsa", "Astra", "Insignia", "Mokka", "Zafira", "Meriva", "Grandland",
                  "Crossland", "Vivaro", "Adam")),
    ("Opel", ("Corsa", "Astra", "Insignia", "Mokka", "Zafira")),
    ("Honda", ("Civic", "CR-V", "HR-V", "Accord", "+Jazz", "+Fit", "+Pilot", "+Odyssey",
               "+e")),
    ("Nissan", ("Micra", "Qashqai", "Juke", "X-Trail", "Navara", "Altima", "Sentra", "Ariya",
                "Pathfinder", "+Leaf", "+Note", "+Rogue", "+Patrol")),
    ("Kia", ("Picanto", "Rio", "Ceed", "Sportage", "Niro", "Sorento", "Stonic", "XCeed", "EV6",
             "EV9", "Seltos", "Telluride", "+Soul", "+Carnival", "+Forte")),
    ("Hyundai", ("i10", "i20", "i30", "i40", "Tucson", "Kona", "Ioniq", "Santa Fe", "Elantra",
                 "Sonata", "Bayon", "Palisade", "+Venue")),
    ("Skoda", ("Fabia", "Octavia", "Karoq", "Kodiaq", "Citigo", "Enyaq", "Kamiq", "Scala",
               "+Superb", "+Yeti")),
    ("Seat", ("Ibiza", "Leon", "Arona", "Ateca", "Tarraco")),
    ("Renault", ("Clio", "Megane", "Captur", "Zoe", "Kadjar", "Arkana", "Scenic", "Twingo",
                 "Kangoo", "+Austral")),
    ("Peugeot", ("107", "108", "207", "208", "308", "2008", "3008", "5008", "508", "e-208",
                 "+Partner", "+Rifter")),
    ("Citroen", ("C1", "C3", "C4", "C5", "Picasso", "Berlingo", "+Ami")),
    ("Fiat", ("500", "Panda", "Punto", "Tipo", "+Doblo")),
    ("Mazda", ("MX-5", "CX-5", "CX-3", "CX-30", "CX-60", "MX-30", "Mazda3", "Mazda2", "Mazda6")),
    ("Suzuki", ("Vitara", "Ignis", "Jimny", "S-Cross", "Baleno", "+Swift", "+Celerio",
                "+Alto")),
    ("Tesla", ("Model 3", "Model Y", "Model S", "Model X", "Cybertruck")),
    ("Land Rover", ("Defender", "Discovery", "Freelander")),
    ("Range Rover", ("Evoque", "Velar", "+Sport")),
    ("Mitsubishi", ("Outlander", "Shogun", "L200", "ASX", "Pajero", "+Eclipse Cross",
                    "+Mirage", "+Triton")),
    ("Mini", ("Cooper", "Countryman", "Clubman")),
    ("Dacia", ("Sandero", "Duster", "Jogger", "Logan", "+Spring")),
    ("Volvo", ("XC40", "XC60", "XC90", "EX30", "V40", "V60", "V90", "S60", "S90")),
    ("BMW", ("1 Series", "2 Series", "3 Series", "4 Series", "5 Series", "+X1", "+X2", "+X3",
             "+X5", "+i3", "+i4", "+iX", "+M3")),
    ("Audi", ("+A1", "+A3", "+A4", "+A5", "+A6", "+Q2", "+Q3", "+Q5", "+Q7", "+Q8", "+TT",
              "+e-tron")),
    ("Mercedes", ("A-Class", "B-Class", "C-Class", "E-Class", "GLA", "GLC", "+Sprinter",
                  "+Vito")),
    ("MG", ("MG3", "MG4", "MG5", "+ZS", "+HS")),
    ("Subaru", ("Impreza", "Crosstrek", "+Outback", "+Forester", "+XV")),
    ("Jeep", ("Wrangler", "+Cherokee", "+Grand Cherokee", "+Renegade", "+Compass")),
    ("Porsche", ("Cayenne", "Macan", "Taycan", "+911", "+Boxster")),
    ("Cupra", ("Formentor", "+Born")),
    ("Holden", ("Commodore", "Barina", "+Colorado", "+Astra")),
    ("Dodge", ("Durango", "Grand Caravan", "+Charger", "+Challenger")),
    ("Chevrolet", ("Silverado", "Camaro", "Corvette", "+Equinox", "+Malibu", "+Tahoe",
                   "+Traverse", "+Bolt", "+Trax", "+Spark")),
    ("Chevy", ("Silverado", "Camaro", "Corvette", "+Equinox", "+Malibu", "+Tahoe", "+Traverse",
               "+Bolt", "+Trax", "+Spark")),
    ("GMC", ("+Sierra", "+Yukon", "+Acadia")),
    ("BYD", ("+Atto 3", "+Dolphin", "+Seal")),
    ("Lexus", ("+RX", "+NX", "+UX", "+IS", "+CT")),
    *((make, ()) for make in ("Mercedes-Benz", "MINI", "Jaguar", "Polestar", "Alfa Romeo",
                              "Smart", "Genesis", "Acura", "Infiniti", "Buick", "Cadillac",
                              "Chrysler", "Lincoln", "Ram", "Rivian")),
)
"""(a make that is a word or a name, "Smart", "Genesis", "Lincoln", "Ram", counts with a car
word only: the family's context, as any member)"""

def _model(make: str, model: str) -> str:
    """A car model's fragment: with or without its make ("+Model": with it only), whole."""
    words = re.escape(model.lstrip("+")).replace(r"\ ", r"\s+")
    made = rf"{re.escape(make)}\s+{words}"
    return rf"(?-i:{made if model.startswith('+') else f'{made}|{words}'})(?!\w|-\w)"


_PART = "part of the week"
_TO = r"(?:the|a|by|on\s+the|get\w*\s+the|take\w*\s+the|took\s+the|catch\w*\s+the|caught\s+the)" \
    r"(?:\s+(?:\d{1,2}[:.]\d{2}|\d{1,3}|number\s+\d{1,3}))?"  # ("the 7:40 bus", "the 42 bus")
_ON = r"(?:i'm|i\s+am|we're|we\s+are|is|are|'s|be|been|being|gone|went|going|go|turned|" \
    r"became|become|now|fully|strictly|completely|totally|a|an|doing|following|the|so|" \
    r"(?:switched|changed|converted|moved)\s+(?:over\s+)?to)"

# Brands no other thing is called (`Family.own`), by family; a family's members are these and
# the brands that are also a word, a name or another family's ("Chase", "Origin", "Vodafone").
_BANKS = ("Barclays", "HSBC", "NatWest", "Monzo", "Revolut", "TSB", "Metro Bank", "first direct",
          "First Direct", "Co-operative Bank", "Co-op Bank", "Virgin Money", "Bank of Scotland",
          "RBS", "Royal Bank of Scotland", "Wells Fargo", "Bank of America", "Citibank",
          "Capital One", "N26", "Triodos", "Danske Bank", "Kroo", "Zopa", "Atom Bank", "Chase UK",
          "Yorkshire Building Society", "Coventry Building Society", "Skipton Building Society",
          "Leeds Building Society", "Clydesdale", "Ulster Bank", "Tesco Bank", "Handelsbanken",
          "Coutts", "Cater Allen", "Bank of Ireland", "AIB", "Allied Irish", "PTSB",
          "Permanent TSB", "US Bank", "U.S. Bank", "PNC", "Truist", "TD Bank", "Ally Bank",
          "SoFi", "Navy Federal", "USAA", "Charles Schwab", "Schwab", "Fifth Third", "KeyBank",
          "Citizens Bank", "TD", "RBC", "Royal Bank of Canada", "Scotiabank", "BMO", "CIBC",
          "Desjardins", "Simplii", "EQ Bank", "National Bank", "ATB", "Wealthsimple", "KOHO",
          "Commonwealth Bank", "CommBank", "Westpac", "ANZ", "NAB", "Bankwest", "BankWest",
          "Bendigo Bank", "ubank", "ME Bank")
_NETWORKS = ("giffgaff", "Giffgaff", "Tesco Mobile", "Sky Mobile", "Voxi", "VOXI", "Lebara",
             "iD Mobile", "ID Mobile", "Lycamobile", "BT Mobile", "Talkmobile", "Asda Mobile",
             "Spusu", "spusu", "Honest Mobile", "1pMobile", "Ecotalk", "Superdrug Mobile",
             "Plusnet Mobile", "Virgin Mobile", "GoMo", "T-Mobile", "Mint Mobile",
             "Cricket Wireless", "Metro by T-Mobile", "MetroPCS", "Boost Mobile", "Google Fi",
             "US Mobile", "Straight Talk", "Xfinity Mobile", "Spectrum Mobile",
             "Consumer Cellular", "Tracfone", "Fido", "Koodo", "Freedom Mobile",
             "Public Mobile", "Chatr", "Lucky Mobile", "Amaysim", "amaysim", "Aldi Mobile",
             "Kogan Mobile")
_INSURERS = ("Admiral", "Direct Line", "Aviva", "LV", "Churchill", "Esure", "Saga", "AXA",
             "Zurich", "Allianz", "Ageas", "Privilege", "More Than", "Co-op Insurance",
             "Tesco Bank", "Sainsbury's Bank", "John Lewis", "State Farm", "Allstate",
             "Liberty Mutual", "USAA", "Farmers", "Travelers", "Lemonade", "NRMA", "RACV",
             "Suncorp", "Intact", "Belairdirect", "TD Insurance", "FBD", "Aviva Ireland")
_CAR_INSURERS = ("Hastings Direct", "Hastings", "1st Central", "Marmalade", "Veygo", "Swiftcover",
                 "Elephant", "Diamond", "Sheilas' Wheels", "Geico", "GEICO", "Progressive",
                 "Root", "AAMI", "Budget Direct", "Youi", "Bingle")
_PET_INSURERS = ("Petplan", "ManyPets", "Bought By Many", "Animal Friends", "Agria", "Trupanion",
                 "Healthy Paws", "Pets Best", "Knose", "Bow Wow Meow", "Everypaw")
_ENERGY = ("British Gas", "Octopus", "Octopus Energy", "EDF", "EDF Energy", "E.ON", "E.ON Next",
           "EON", "OVO", "Ovo", "Ovo Energy", "Scottish Power", "ScottishPower", "SSE", "Utilita",
           "npower", "Npower", "Good Energy", "Ecotricity", "So Energy", "Outfox the Market",
           "Green Energy UK", "Electric Ireland", "Bord Gáis", "Bord Gais", "Energia",
           "SSE Airtricity", "Airtricity", "Flogas", "Pinergy", "Con Edison", "Con Ed", "ConEd",
           "PG&E", "Duke Energy", "Dominion Energy", "Xcel Energy", "Georgia Power", "FPL",
           "ComEd", "PSE&G", "Eversource", "Ameren", "DTE", "Consumers Energy", "Entergy",
           "Southern California Edison", "SCE", "Hydro One", "BC Hydro", "Hydro-Québec",
           "Hydro Quebec", "Hydro Ottawa", "Toronto Hydro", "Enbridge", "FortisBC", "EPCOR",
           "ENMAX", "AGL", "Origin Energy", "EnergyAustralia", "Energy Australia", "Red Energy",
           "Alinta", "Alinta Energy", "Simply Energy", "Momentum Energy", "Amber Electric")
_BROADBAND = ("TalkTalk", "Plusnet", "Hyperoptic", "Community Fibre", "Gigaclear", "YouFibre",
              "Trooli", "Lit Fibre", "Toob", "Brsk", "Truespeed", "Zzoomm", "KCOM",
              "Shell Energy Broadband", "Vodafone Broadband", "Comcast", "Xfinity", "Verizon Fios",
              "Fios", "AT&T Fiber", "Google Fiber", "CenturyLink", "Mediacom", "RCN", "Astound",
              "Digiweb", "SIRO", "Videotron", "Vidéotron", "Cogeco", "TekSavvy", "iiNet",
              "Aussie Broadband", "Superloop", "Launtel", "Leaptel", "Exetel")
_GYMS = ("PureGym", "The Gym Group", "Gym Group", "David Lloyd", "Virgin Active",
         "Planet Fitness", "Gold's Gym", "Bannatyne", "Bannatynes", "Snap Fitness", "LA Fitness",
         "Fitness First", "Gymbox", "Anytime Fitness", "JD Gyms", "JD Gym", "Third Space",
         "Everlast Gyms", "Everlast Fitness", "24 Hour Fitness", "Orangetheory", "OrangeTheory",
         "Energie Fitness", "Xercise4Less", "Blink Fitness", "Crunch Fitness", "GoodLife Fitness",
         "Goodlife Health Clubs", "Movati", "Ben Dunne Gyms", "Flyefit Gyms", "Jetts Fitness",
         "F45", "F45 Training", "Village Gym", "Village Health Club", "Total Fitness", "Trib3",
         "1Rebel", "Lifetime Fitness", "EoS Fitness")
_HONOR = r"(?:\d|Magic|X\d|View|Play|\d+\s+Pro)"
"""What an Honor phone's name goes on with: "Honor" alone is a word."""

FAMILIES: tuple[Family, ...] = (
    Family(
        "commute", hints="work commute bus train cycle drive walk tube tram bike",
        members=(
            ("cycle", r"(?<!motor)(?:cycl(?:e|es|ed|ing)|bik(?:e|es|ing)|(?:push\s*)?bicycle)"),
            ("walk", r"walk(?:s|ed|ing)?(?!\s+(?:the|my|our|his|her|their)\b)|on\s+foot"),
            ("bus", rf"{_TO}\s+(?:school\s+)?bus(?:es)?\b|buses\b"),
            ("train", rf"{_TO}\s+trains?\b|trains\b"),
            ("tube", rf"{_TO}\s+(?:tube|underground|metro|subway)"),
            ("tram", rf"{_TO}\s+trams?"),
            ("ferry", rf"{_TO}\s+ferry"),
            ("drive", r"driv(?:e|es|ing)(?!\s+(?:a|an|the|my)\b)|drove(?!\s+(?:a|an|the|my)\b)|"
                      r"by\s+car"),
            ("scooter", r"(?:e-?)?scooter(?:s|ing)?"),
            ("motorbike", r"motor\s*bik(?:e|es|ing)|motorcycl\w+|moped"),
            ("lift share", r"lift[-\s]?shar\w*|car[-\s]?shar\w*|car\s*pool\w*|"
                           r"(?:get|got|getting)\s+a\s+lift"),
        ),
        context=r"\b(?:to|into|in\s+to|from)\s+(?:work|school|college|uni|the\s+office)\b|"
                r"\bcommut\w*|\bschool\s+bus|\binto\s+(?:town|the\s+city|(?-i:[A-Z])\w+)|"
                r"\b(?:ride|rides|riding|drive|driving|walk|walking|cycle|cycling)\s+in\b|\bin\s+(?:now|instead|these|most|every|each|daily)\b|"
                r"\bin\s*[.,!;]|\bin\s*$"),
    Family(
        "food shop", hints="shop shopping food groceries supermarket weekly",
        members=(
            *_brands("Sainsbury's", "Sainsburys", "Asda", "Morrisons", "Aldi", "Lidl", "Waitrose",
                     "Co-op", "Iceland", "M&S", "Marks and Spencer", "Ocado", "Walmart", "Kroger",
                     "Safeway", "Whole Foods", "Trader Joe's", "Costco", "Publix", "Albert Heijn",
                     "Carrefour", "Rewe", "Edeka", "Mercadona", "Spar", "SPAR", "Booths",
                     "Farmfoods", "Budgens", "Londis", "Nisa", "Costcutter", "Amazon Fresh",
                     "Abel & Cole", "Dunnes", "Dunnes Stores", "SuperValu", "Centra", "Target",
                     "H-E-B", "HEB", "Wegmans", "Albertsons", "Meijer", "Food Lion", "ShopRite",
                     "Stop & Shop", "Sprouts", "Harris Teeter", "Hy-Vee", "Winn-Dixie",
                     "Sam's Club", "Vons", "Ralphs", "Fred Meyer", "Giant Eagle", "Loblaws",
                     "No Frills", "Sobeys", "Real Canadian Superstore", "Superstore", "FreshCo",
                     "Save-On-Foods", "Food Basics", "Farm Boy", "Longo's", "Woolworths",
                     "Woolies", "Coles", "IGA", "Harris Farm", "FoodWorks", "Foodworks"),
            ("tesco", r"(?-i:Tesco)(?:'s)?(?!\s+(?:Mobile|Bank))"),
        ),
        context=r"\bshop(?:s|ping)?\b|\bgrocer\w*|\bfood\b|\bsupermarket|\bweekly\b",
        noun=r"supermarkets?"),
    Family(
        "diet", hints="vegetarian vegan pescatarian diet meat keto paleo mediterranean "
                      "flexitarian fasting carb",
        members=(*(
            (name, rf"{_ON}\s+(?:a\s+)?(?:{rx})(?=\s*(?:[.,;!]|$|now\b|these\b|since\b|again\b|"
                   rf"for\b|from\b|diet\b|plan\b|and\b|after\b|because\b|as\b|so\b|but\b|last\b|this\b|in\b|"
                   rf"at\b|when\b|recently\b|lately\b|i\s+(?:suppose|guess|think)\b))")
            for name, rx in (("vegan", "vegan"), ("vegetarian", "vegetarian|veggie"),
                             ("pescatarian", "pesc[ae]tarian"), ("flexitarian", "flexitarian"),
                             ("keto", "keto|ketogenic"), ("paleo", "paleo"),
                             ("mediterranean", r"mediterranean(?:[-\s]style)?"),
                             ("low-carb", r"low[-\s]carb"),
                             ("5:2", r"5:2|intermittent\s+fasting"))),
            ("meat", r"(?:eat|eats|eating|ate)\s+meat(?!\s+(?:free|substitutes?))|"
                     r"meat[-\s]eaters?|omnivore"))),
    Family(
        "drink", hints="coffee tea drink drinks",
        members=(
            *((f"{base} {way}", rf"{base}\s+(?:\w+\s+){{0,2}}?{rx}|{pre}\s+{base}")
              for base in ("tea", "coffee")
              for way, rx, pre in (("black", r"black\b", "black"),
                                   ("with milk", r"(?:with\s+(?:a\s+\w+\s+of\s+)?milk|white)\b",
                                    r"milky|white"))),
            *((name, rx) for name, rx in (
                ("flat white", r"flat\s+whites?"), ("latte", r"lattes?"),
                ("cappuccino", r"cappuccinos?"), ("americano", r"americanos?"),
                ("espresso", r"espressos?"), ("mocha", r"mochas?"), ("cortado", r"cortados?"),
                ("green tea", r"green\s+teas?"), ("herbal tea", r"(?:herbal|peppermint|"
                                                               r"camomile|chamomile)\s+teas?"),
                ("decaf", r"decaf"), ("chai", r"chai(?:\s+lattes?)?")))),
        context=r"\b(?:coffee|tea|cuppa|brew|drink|drinks|drinking|latte|flat\s+white|"
                r"cappuccino|americano|espresso|mocha|cortado|decaf|chai)\b"),
    Family(
        "bank", hints="bank banking account",
        members=_brands(*_BANKS, "Lloyds", "Santander", "Halifax", "Nationwide", "Starling",
                        "Chase", "Chime", "Citi", "Discover", "Tangerine", "Atom", "Marcus",
                        "Bendigo", "Macquarie", "Suncorp", "St George", "ING", "Up Bank"),
        own=_own(_BANKS),
        context=r"\bbank(?:s|ing|ed)?\b(?!\s+holiday)|\b(?:current\s+)?account\b|"
                r"\bmoney(?:['\u2019]s)?\s+(?:is\s+)?(?:all\s+)?(?:with|in)\b|"
                r"\b(?:wages?|salary|pay)\s+(?:goes|go|gets\s+paid)\s+(?:in)?to\b",
        noun=r"banks?|current\s+accounts?|bank\s+accounts?"),
    Family(
        "mobile network", hints="phone mobile network contract sim",
        members=(
            # ("Three of us share a contract", "Three kids on one plan": a number)
            ("three", r"(?-i:Three)(?!\w|\s+(?:of\b|[a-z]+s\b))"),
            *_brands(*_NETWORKS, "EE", "O2", "Vodafone", "Smarty", "SMARTY", "Lyca",
                     "Verizon", "AT&T", "Sprint", "Visible", "Ting", "Eir", "eir", "Rogers",
                     "Bell", "Telus", "TELUS", "Virgin Plus", "Telstra", "Optus", "TPG",
                     "Belong", "Utility Warehouse"),
        ),
        own=_own(_NETWORKS),
        context=r"\bphone\w*|\bmobile\b|\bnetworks?\b|\bsim\b|\bcontract\b|\bsignal\b",
        noun=r"networks?|(?:mobile|phone)\s+(?:providers?|networks?|contracts?)"),
    Family(
        "energy supplier", hints="energy gas electric electricity supplier",
        members=_brands(*_ENERGY, "Bulb", "Shell Energy", "Utility Warehouse", "Origin",
                        "Synergy", "Dodo", "Powershop", "Lumo", "National Grid", "Fortis",
                        "Direct Energy", "Outfox"),
        own=_own(_ENERGY),
        context=r"\benergy\b|\bgas\b|\belectric\w*|\bsupplier|\btariff|\bpower\b",
        noun=r"(?:energy\s+)?suppliers?|energy\s+(?:compan(?:y|ies)|providers?)"),
    Family(
        "broadband", hints="broadband internet wifi fibre",
        members=_brands(
            *_BROADBAND, "BT", "Virgin Media", "Virgin", "Sky", "Vodafone", "Zen", "EE",
            "Spectrum", "Starlink", "NOW Broadband", "Now Broadband", "Cuckoo", "Eir",
            "eir", "Pure Telecom", "Cox", "Optimum", "Frontier", "Sonic", "Rogers", "Bell",
            "Telus", "TELUS", "Shaw", "Telstra", "Optus", "TPG", "Dodo", "Belong",
            "Tangerine", "Utility Warehouse"),
        own=_own(_BROADBAND),
        context=r"\bbroadband\b|\binternet\b|\bwi-?fi\b|\bfib(?:re|er)\b|\brouter\b",
        noun=r"(?:broadband|internet)(?:\s+(?:providers?|compan(?:y|ies)))?"),
    Family(
        "phone", hints="phone iphone android mobile samsung pixel motorola",
        members=(
            ("iphone", r"(?-i:iPhone|iphone|IPhone|Iphone|IPHONE|i\-phone|i\-Phone)"),
            ("android", r"(?-i:Android|android|ANDROID)"),
            ("samsung", r"(?-i:Samsung|Galaxy)(?!\s+(?:TV|Tab|Watch|Buds|tablet|telly|fridge))"),
            ("pixel", r"(?-i:Pixel)(?!\s+(?:Watch|Buds|Tablet))"), ("oneplus", r"(?-i:OnePlus)"),
            ("motorola", r"(?-i:Motorola|Moto)"),
            ("xiaomi", r"(?-i:Xiaomi\s+Redmi|Xiaomi\s+Poco|Xiaomi\s+POCO|Xiaomi|Redmi|Poco|POCO)"),
            ("nokia", r"(?-i:Nokia)"), ("huawei", r"(?-i:Huawei)"), ("oppo", r"(?-i:Oppo)"),
            ("sony", r"(?-i:Sony\s+Xperia|Xperia)"), ("fairphone", r"(?-i:Fairphone)"),
            ("blackberry", r"(?-i:BlackBerry)"), ("doro", r"(?-i:Doro)"),
            ("realme", r"(?-i:Realme|realme)"), ("honor", rf"(?-i:Honor|HONOR)(?=\s+{_HONOR})"),
            ("nothing", r"(?-i:Nothing|CMF)\s+(?-i:Phone|phone)"),
            ("asus", r"(?-i:Asus\s+Zenfone|ASUS\s+Zenfone|Asus\s+ZenFone|Asus\s+ROG\s+Phone|"
                     r"ASUS\s+ROG\s+Phone|Zenfone|ZenFone|ROG\s+Phone)"),
            ("lg", r"(?-i:LG)(?=\s+(?-i:G\d|V\d|Velvet|Wing))"),
            ("htc", r"(?-i:HTC)(?!\s+(?-i:Vive))"), ("cat", r"(?-i:Cat\s+S)(?=\d{2})"),
            *_brands("Vivo", "vivo", "ZTE", "Alcatel", "TCL", "Tecno",
                     "Infinix", "Nubia", "Ulefone", "Blackview", "Cubot", "Oukitel", "Doogee",
                     "HMD", "Punkt", "Light Phone"),
        ),
        # (a make only phones are sold under says it itself: "My partner has an Oppo Find X")
        context=r"\bphone\w*|\bmobile\b|\biphone\b|\bandroid\b|\bhandset\b|"
                r"(?-i:\b(?:OnePlus|Xiaomi|Oppo|Xperia|Fairphone|BlackBerry|Doro|Realme|Vivo|"
                r"ZTE|Alcatel|Redmi|Poco|POCO|Zenfone|ZenFone|Blackview|Cubot|Oukitel|Doogee|"
                r"HMD|Punkt)\b)|"
                rf"(?-i:\bHonor\s+{_HONOR})|"
                r"(?-i:\b(?:Samsung|Galaxy)\s+(?:Galaxy\s+)?(?:[ASMZ]\d{1,3}\b|Z\s+(?:Flip|Fold)|Note\b))",
        noun=r"(?:smart)?phones?|handsets?"),
    Family(
        "watch", hints="watch smartwatch tracker wear",
        members=(
            ("apple watch", r"(?-i:Apple\s+Watch)"), ("fitbit", r"(?-i:Fitbit)"),
            ("garmin", r"(?-i:Garmin)(?!\s+(?:sat\s*nav|satnav|Edge|bike\s+computer))"),
            ("galaxy watch", r"(?-i:Galaxy\s+Watch)"), ("pixel watch", r"(?-i:Pixel\s+Watch)"),
            *_brands("Polar", "Coros", "COROS", "Suunto", "Whoop", "WHOOP", "Amazfit",
                     "Withings", "Oura"),
        ),
        context=r"\bwatch\w*|\btracker\b|\bwrist\b|\bwear\w*|\bsmartwatch\w*|\bsteps\b|"
                r"\bruns?\b|\brunning\b",
        noun=r"(?:smart)?watch(?:es)?|(?:fitness\s+)?trackers?"),
    Family(
        "laptop", hints="laptop computer notebook",
        members=(
            ("macbook", r"(?-i:MacBook|Macbook|Mac\s+laptop)"),
            ("thinkpad", r"(?-i:ThinkPad|Thinkpad|Lenovo)"), ("surface", r"(?-i:Surface)"),
            ("chromebook", r"(?i:chromebook)"),
            ("asus", r"(?-i:Asus|ASUS)(?!\s+(?-i:Zenfone|ZenFone|ROG\s+Phone))"),
            *_brands("Dell", "XPS", "HP", "Acer", "Razer", "Framework", "Toshiba", "MSI"),
        ),
        context=r"\blaptop\w*|\bcomputer\b|\bnotebook\b|\bmac\b|\bwork\s+on\b",
        noun=r"laptops?|computers?"),
    Family(
        "car", hints="car drive drives driving",
        members=tuple(
            (f"{make.lower()} {model.lstrip('+').lower()}" if model else make.lower(),
             _model(make, model) if model
             # (a make with a model not listed: "a second-hand Mazda 2" is a Mazda; a make
             # whose models are not listed is one whatever follows: "a Polestar 2")
             else rf"(?-i:{re.escape(make)})(?!\w|-\w)" +
             (r"(?!\s+(?-i:[A-Z])[a-z])" if models else ""))
            for make, models in _CAR_MODELS for model in (*models, "")),
        context=r"\bcar\b|\bdriv\w*|\bdrove\b|\bmotor\b|\bhatchback\b|\bestate\b|\bsuv\b|"
                r"\brunaround\b|"
                r"\bsecond-?hand\b|\bused\b|\bmiles\b|\bmot\b|\bforecourt\b|\bdealer\w*|"
                r"\bgearbox\b|\bclutch\b|\bengine\b|\btyres?\b|\bpetrol\b|\bdiesel\b",
        noun=r"cars?", cased=True),
    Family(
        "work pattern", hints="work home office remote hybrid",
        members=(
            ("hybrid", r"hybrid|(?:one|two|three|four|[1-4])\s+days?\s+(?:a\s+week\s+)?"
                       r"(?:in|at)\s+(?:the\s+)?office"),
            # a day's routine beside the pattern ("from home on Fridays"): not the pattern
            (_PART, r"(?:(?:work\w*|based)\s+)?(?:from\s+home|in\s+the\s+office|remote(?:ly)?)"
                    r"\s+(?:on\s+\w+days?|(?:one|two|three|four|[1-4])\s+days?|once|twice|"
                    r"some\s+days|part\s+of\s+the\s+week)"),
            ("home", r"(?:work\w*|based)\s+(?:from|at)\s+home|wfh|home[-\s]based|"
                     r"(?<!the\s)remote(?:ly)?(?!\s+control)"),
            ("office", r"(?:in|into|at|to)\s+the\s+office"
                       r"(?!\s+(?:on|one|two|three|once|twice)\b)|office[-\s]based|on[-\s]site"),
        ),
        context=r"\bwork\w*|\bjob\b|\boffice\b|\bremote\b|\bwfh\b"),
    Family(
        "shift", hints="shift shifts nights days earlies lates",
        members=(
            ("nights", r"night\s*shifts?|(?<=\bon\s)nights|(?:work\w*|doing)\s+nights"),
            ("days", r"day\s+shifts?|(?<=\bon\s)days(?!\s+(?:off|out|a\s+week))|(?:doing)\s+days"),
            ("earlies", r"earlies|early\s+shifts?"), ("lates", r"lates|late\s+shifts?"),
        )),
    Family(
        "hours", hints="hours full-time part-time",
        members=(("full-time", r"full[-\s]?time"
                               r"(?!\s+(?:job\s+)?(?:mum|mom|dad|parent|carer|student))"),
                 ("part-time", r"part[-\s]?time(?!\s+(?:job\s+)?(?:student|course))")),
        context=r"\bwork\w*|\bjob\b|\bhours\b|\bcontract\b|\bgone\s+back\b|\bgo\s+back\b|"
                r"\bback\s+to\b|\bdropped\b|\bcut\b|\boffice\b|"  # ("full-time, nine to five")
                r"\b(?:\d{1,2}|nine|eight|seven|ten)\s*(?:to|till|-)\s*(?:\d{1,2}|five|four|six)\b"),
    Family(
        "dentist", hints="dentist dental",
        members=_brands("mydentist", "MyDentist", "Bupa Dental", "Portman Dental",
                        "Aspen Dental", "Pacific Dental", "Western Dental", "Smile Brands"),
        noun=r"dentists?|dental\s+practices?",
        care=r"\b(?:dentists?|dental|teeth|tooth|gums?|fillings?|orthodontists?)\b",
        suffix=r"Dental(?:\s+(?:Practice|Care|Clinic|Centre|Center|Surgery|Studio))?|Dentistry"
               r"|Dentists"),
    Family(
        "GP", hints="gp doctor surgery medical",
        members=(), noun=r"GPs?|doctors?|surger(?:y|ies)|practices?",
        care=r"(?-i:\bGPs?\b)|\bfamily\s+doctor\b",
        suffix=r"Surgery|Medical\s+(?:Centre|Center|Practice|Group)|Health\s+Cent(?:re|er)"),
    Family(
        "vets", hints="vet vets dog cat",
        members=_brands("Medivet", "Vets4Pets", "Vets for Pets", "Companion Care", "Banfield",
                        "VCA", "BluePearl", "Greencross", "Village Vet"),
        context=r"\bvets?\b|\bveterinar\w*|\banimals?\b|"
                r"\b(?:dogs?|cats?|pupp(?:y|ies)|kittens?|rabbits?|pets?)\b|Animal\s+Hospital",
        noun=r"vets?|veterinar\w+",
        suffix=r"Vets?|Veterinary(?:\s+(?:Practice|Centre|Clinic|Surgery|Hospital))?|"
               r"Animal\s+Hospital"),
    Family(
        "pharmacy", hints="prescription prescriptions pharmacy chemist meds",
        members=_brands("Boots", "Lloyds Pharmacy", "LloydsPharmacy", "Superdrug", "CVS",
                        "Walgreens", "Rite Aid", "Rowlands", "Day Lewis", "Pharmacy2U",
                        "Duane Reade", "Shoppers Drug Mart", "Shoppers", "Rexall", "Jean Coutu",
                        "London Drugs", "Pharmasave", "Chemist Warehouse", "Priceline",
                        "TerryWhite Chemmart", "Terry White Chemmart", "Amcal", "McCabes"),
        context=r"\bprescriptions?\b|\bpharmac\w+|\bchemist|\bmeds\b|\bmedication",
        noun=r"pharmac(?:y|ies)|chemists?", suffix=r"Pharmacy|Chemists?"),
    Family(
        "gym", hints="gym member membership fitness puregym",
        members=_brands(*_GYMS, "Nuffield Health", "Equinox", "Crunch", "Curves", "Better Gym",
                        "Better Leisure", "YMCA", "Everyone Active", "Places Leisure", "GLL",
                        "Jetts", "Plus Fitness", "World Gym", "GoodLife", "Fit4Less", "Flyefit") +
        (("leisure centre", r"(?-i:leisure\s+centre|leisure\s+center|Leisure\s+Centre|"
                              r"Leisure\s+Center)"),),  # (the council's, by its kind)
        context=r"gyms?\b|\bmember(?:ship)?\b|\btrain(?:s|ing)?\s+at\b|\bwork\s*out\b|"
                r"\bclasses\b|\bfitness\b|\bleisure\b|"
                r"(?-i:\b(?:PureGym|Virgin\s+Active|Bannatynes?|Nuffield\s+Health)\b)",
        own=_own(_GYMS),
        noun=r"gyms?", suffix=r"Fitness|Gym|Leisure"),
    Family(
        "mortgage lender", hints="mortgage remortgage remortgaged lender fix",
        members=_brands(*_BANKS, "Lloyds", "Santander", "Halifax", "Nationwide", "Skipton",
                        "Coventry", "Yorkshire Building Society", "Leeds Building Society",
                        "Virgin Money", "Accord", "Kent Reliance", "Bank of Ireland", "AIB",
                        "PTSB", "Westpac", "ING", "Commonwealth Bank", "CommBank", "NAB", "ANZ",
                        "Wells Fargo", "Rocket Mortgage", "Chase", "Macquarie", "Suncorp"),
        context=r"\bmortgages?\b|\bremortgag\w*|\bhome\s+loans?\b|\brefinanc\w*|"
                r"\b(?:new|fixed|tracker)\s+(?:fix|rate|deal)\b",
        noun=r"mortgages?|(?:mortgage\s+)?lenders?|home\s+loans?"),
    Family(
        "TV provider", hints="tv telly channels box package",
        members=(
            # (a channel is watched, not subscribed to: "Sky Sports at the pub")
            ("sky", r"(?-i:Sky)(?!\s+(?:Sports|News|Atlantic|Arts|Cinema|One|Max|Showcase|"
                    r"Witness|Comedy|Crime|Kids|Nature|History|Documentaries|Mobile|"
                    r"[Bb]roadband)\b)(?:\s+(?-i:Q|Glass|Stream|TV))?"),
            *_brands("Virgin TV", "Virgin Media", "Virgin", "BT TV", "EE TV", "TalkTalk TV",
                     "Freeview", "Freesat", "YouView", "NOW TV", "Xfinity", "Comcast",
                     "DirecTV", "DIRECTV", "Dish", "YouTube TV", "Sling", "Fubo", "Foxtel",
                     "Kayo", "Fetch", "Saorview", "Bell Fibe", "Optimum", "Spectrum")),
        context=r"\btv\b|\btelly\b|\btelevision\b|\bchannels?\b|\bcable\b|\bsatellite\b|"
                r"\b(?:sports?\s+)?package\b|\bthe\s+box\b|(?-i:\b(?:Freeview|Freesat|YouView|"
                r"Foxtel|Kayo|Saorview)\b)",
        noun=r"tv\s+(?:providers?|packages?)"),
    Family(
        "music service", hints="music playlists spotify listen",
        members=(
            # (a podcast app is not where one's music is: "podcasts on Spotify")
            ("spotify", r"(?-i:Spotify)(?<!podcasts\son\sSpotify)(?<!podcast\son\sSpotify)"
                        r"(?![^.!?]*\b(?:podcasts?|gift\s+cards?|vouchers?)\b)"),
            *_brands("Apple Music", "Amazon Music", "YouTube Music", "Tidal", "TIDAL",
                     "Deezer", "SoundCloud", "Pandora", "Qobuz")),
        own=frozenset({"spotify", "apple music", "amazon music", "youtube music", "tidal",
                       "deezer", "qobuz"}),
        context=r"\bmusic\b|\bplaylists?\b|\bsongs?\b|\balbums?\b|\btunes\b|"
                r"\bfamily\s+plan\b|\bpremium\b|\blisten\w*",
        noun=r"music\s+(?:apps?|services?|streaming)"),
    Family(
        "hairdresser", hints="hair haircut barber hairdresser salon trim",
        members=_brands("Toni & Guy", "Toni and Guy", "Rush", "Headmasters", "Regis",
                        "Supercuts", "Great Clips", "Sport Clips", "Fantastic Sams",
                        "Just Cuts", "Francesco Group", "Saks", "Sharps", "Ruffians",
                        "Pall Mall Barbers", "Hari's", "Aveda"),
        own=frozenset({"toni & guy", "toni and guy", "headmasters", "supercuts", "great clips",
                       "sport clips", "fantastic sams", "just cuts", "francesco group"}),
        context=r"\bhair\w*|\bbarbers?\b|\btrims?\b|\bfades?\b|\bsalon\b|\bstylist\b|"
                r"\bcuts?\b|\bblow-?dry\b",
        noun=r"hairdressers?|barbers?|salons?",
        suffix=r"Barbers?|Barbershop|Hair(?:\s+(?:Studio|Salon|Design|Company|Co))?|Salon|"
               r"Hairdressers?|Studio(?=\s+salon)"),
    # Insurers, one of each thing insured: a car's, a home's, a pet's, and breakdown cover
    # ("we switched the home insurance to Aviva" leaves the car's with Admiral).
    Family(
        "car insurer", hints="car insurance insured motor renewal",
        members=_brands(*_INSURERS, *_CAR_INSURERS),
        context=r"\b(?:car|motor|auto|vehicle|van)\s+insur\w*|"
                r"\binsur\w*[^.!?]{0,40}\b(?:the\s+|our\s+|my\s+)?(?:car|cars|van)\b|"
                r"\b(?:car|cars|van)(?:['\u2019]s)?\s+(?:is\s+|are\s+)?insured\b|"
                r"(?-i:\b(?:Geico|GEICO|Hastings\s+Direct|1st\s+Central|Marmalade|Veygo|"
                r"Swiftcover|AAMI|Budget\s+Direct|Youi|Bingle)\b)",
        noun=r"(?:car|motor|auto)\s+insur(?:ance|ers?)"),
    Family(
        "home insurer", hints="home insurance house contents buildings insured",
        members=_brands(*_INSURERS),
        context=r"\b(?:home|house|contents|buildings|homeowners?|renters?|landlord)\s+insur\w*|"
                r"\b(?:house|home|flat)(?:['\u2019]s)?\s+(?:is\s+)?insured\b|"
                r"\binsur\w*[^.!?]{0,30}\bfor\s+(?:the|our)\s+(?:house|home|flat)\b",
        noun=r"(?:home|house|contents|buildings)\s+insur(?:ance|ers?)"),
    Family(
        "pet insurer", hints="pet insurance insured dog cat",
        members=_brands(*_PET_INSURERS, "Direct Line", "Tesco Bank", "Sainsbury's Bank",
                        "John Lewis", "More Than", "Lemonade"),
        own=_own(_PET_INSURERS),
        context=r"\bpet\s+insur\w*|\b(?:dogs?|cats?|puppy|kitten|horse)(?:['\u2019]s)?\s+insur\w*|"
                r"\b(?:dogs?|cats?)\b[^.!?]{0,30}\binsur\w*|\binsur\w*[^.!?]{0,30}\b(?:dogs?|cats?)\b|"
                r"(?-i:\b(?:" + "|".join(n.replace(" ", r"\s+") for n in _PET_INSURERS) + r")\b)",
        noun=r"pet\s+insur(?:ance|ers?)"),
    Family(
        "breakdown cover", hints="breakdown cover recovery",
        members=_brands("AA", "RAC", "Green Flag", "Start Rescue", "Britannia Rescue", "AAA",
                        "CAA", "NRMA", "RACV", "RACQ", "Emergency Assist"),
        own=_own(("Green Flag", "Start Rescue", "Britannia Rescue")),
        context=r"\bbreakdown\b|\broadside\b|\broad\s+service\b|\brecovery\s+cover\b|"
                r"(?-i:\b(?:Green\s+Flag|Start\s+Rescue|Britannia\s+Rescue)\b)",
        noun=r"breakdown\s+(?:cover|providers?)"),
    Family(
        "dermatologist", hints="dermatologist skin",
        members=(), noun=r"dermatologists?|skin\s+(?:doctors?|specialists?|consultants?)",
        suffix=r"Dermatology|Skin\s+Clinic",
        care=r"\b(?:dermatolog\w+|skin|eczema|psoriasis|acne|rosacea)\b"),
    # The club one plays a sport for, by its name's suffix, one of each sport ("Barnes CC" is
    # cricket, "Hackney Wick FC" football: `families._another` keeps two sports apart).
    Family(
        "club", hints="club team play plays playing football cricket rugby",
        members=(), noun=r"clubs",
        suffix=r"A?FC|CC|RU?FC|HC|United|Rovers|Athletic|Wanderers|Albion|Rangers",
        context=r"\b(?:play(?:s|ed|ing)?|sign(?:s|ed|ing)|turn(?:s|ed|ing)?\s+out|"
                r"captain(?:s|ed|ing)?)(?:\s+[\w'-]+){0,4}?\s+for\b|\bjoined\b"),
    Family(
        "optician", hints="optician opticians",
        members=_brands("Specsavers", "Vision Express", "Leightons", "Scrivens",
                        "Optical Express", "LensCrafters", "Warby Parker", "Pearle Vision",
                        "Visionworks", "America's Best", "FYidoctors", "Hakim Optical", "OPSM",
                        "Bupa Optical", "Oscar Wylee", "Costco Optical"),
        noun=r"opticians?",
        care=r"\b(?:opticians?|optometrists?|eyes?|glasses|eyesight)\b",
        suffix=r"Opticians?|Eyecare|Optometry"),
    # The football club one supports, by its name or nickname ("Spurs", "the Toffees", "the
    # Baggies"): one a person, said as supported ("supports Arsenal", "a Wolves fan", "follows
    # Villa", "a season ticket at Forest", "gone over to Hibs"); a match seen is no support
    # ("went to see Chelsea"), and a club's town alone is a place (`families`: this family's
    # members count only with its context). Nicknames other teams or bands share ("the
    # Eagles", "the Saints", "the Blues", "the Reds") are left out.
    Family(
        "football club", hints="support supports supporter fan fans follow follows season ticket",
        noun=r"teams|allegiances?|sides",
        context=r"\bsupport(?:s|ed|ing|ers?)?\b|\bfans?\b|\bfollow(?:s|ed|ing)?\s+(?:the\s+)?"
                r"(?-i:[A-Z])|\bseason\s+tickets?\b|\b(?:gone|switched|swapped|changed)\s+"
                r"(?:allegiances?\s+|sides\s+)?(?:over\s+)?to\s+(?:supporting\s+)?(?:the\s+)?(?-i:[A-Z])"
                r"(?![^.;!?]*\b(?:to\s+see|to\s+visit|for\s+the\s+day|for\s+(?:lunch|dinner)|to\s+live"
                r"|to\s+work)\b)",
        cased=True,
        members=tuple((name, f"(?-i:(?:{rx}))") for name, rx in (
            ("arsenal", r"Arsenal|Gunners|Gooners"),
            ("aston villa", r"Aston\s+Villa|Villa(?!\s+Park\b)|Villans"),
            ("bournemouth", r"(?:AFC\s+)?Bournemouth|Cherries"),
            ("brentford", r"Brentford|Bees"),
            ("brighton", r"Brighton(?:\s+(?:&|and)\s+Hove\s+Albion)?|Seagulls"),
            ("burnley", r"Burnley|Clarets"),
            ("chelsea", r"Chelsea"),
            ("crystal palace", r"Crystal\s+Palace"),
            ("everton", r"Everton|Toffees"),
            ("fulham", r"Fulham|Cottagers"),
            ("ipswich town", r"Ipswich(?:\s+Town)?|Tractor\s+Boys"),
            ("leicester city", r"Leicester(?:\s+City)?|Foxes"),
            ("liverpool", r"Liverpool|LFC"),
            ("manchester city", r"Man(?:chester)?\s+City|Cityzens"),
            ("manchester united", r"Man(?:chester)?\s+(?:United|Utd)|Man\s+U\b|Red\s+Devils"),
            ("newcastle united", r"Newcastle(?:\s+United)?|Magpies|Toon"),
            ("nottingham forest", r"(?:Nottingham\s+)?Forest"),
            ("southampton", r"Southampton"),
            ("tottenham hotspur", r"Tottenham(?:\s+Hotspur)?|Spurs|THFC"),
            ("west ham united", r"West\s+Ham(?:\s+United)?|Hammers|Irons"),
            ("wolverhampton wanderers", r"Wolverhampton(?:\s+Wanderers)?|Wolves"),
            ("leeds united", r"Leeds(?:\s+United)?"),
            ("sunderland", r"Sunderland|Black\s+Cats"),
            ("sheffield united", r"Sheff(?:ield)?\s+(?:United|Utd)|Blades"),
            ("sheffield wednesday", r"Sheff(?:ield)?\s+Wed(?:nesday)?|Owls"),
            ("west bromwich albion", r"West\s+Brom(?:wich\s+Albion)?|Baggies|WBA"),
            ("middlesbrough", r"Middlesbrough|Boro"),
            ("norwich city", r"Norwich(?:\s+City)?|Canaries"),
            ("watford", r"Watford|Hornets"),
            ("coventry city", r"Coventry(?:\s+City)?|Sky\s+Blues"),
            ("stoke city", r"Stoke(?:\s+City)?|Potters"),
            ("swansea city", r"Swansea(?:\s+City)?|Swans"),
            ("cardiff city", r"Cardiff(?:\s+City)?|Bluebirds"),
            ("bristol city", r"Bristol\s+City"),
            ("bristol rovers", r"Bristol\s+Rovers"),
            ("hull city", r"Hull(?:\s+City)?"),
            ("millwall", r"Millwall"),
            ("queens park rangers", r"QPR|Queens\s+Park\s+Rangers"),
            ("preston north end", r"Preston(?:\s+North\s+End)?|PNE"),
            ("blackburn rovers", r"Blackburn(?:\s+Rovers)?"),
            ("birmingham city", r"Birmingham\s+City"),
            ("derby county", r"Derby\s+County"),
            ("portsmouth", r"Portsmouth|Pompey"),
            ("plymouth argyle", r"Plymouth(?:\s+Argyle)?|Argyle"),
            ("luton town", r"Luton(?:\s+Town)?|Hatters"),
            ("charlton athletic", r"Charlton(?:\s+Athletic)?|Addicks"),
            ("wigan athletic", r"Wigan(?:\s+Athletic)?"),
            ("bolton wanderers", r"Bolton(?:\s+Wanderers)?|Trotters"),
            ("huddersfield town", r"Huddersfield(?:\s+Town)?|Terriers"),
            ("reading", r"Reading\s+FC"),
            ("oxford united", r"Oxford\s+(?:United|Utd)"),
            ("barnsley", r"Barnsley|Tykes"),
            ("rotherham united", r"Rotherham(?:\s+United)?"),
            ("wrexham", r"Wrexham"),
            ("mk dons", r"MK\s+Dons"),
            ("celtic", r"Celtic|Hoops|Bhoys"),
            ("rangers", r"(?<!Park\s)(?:Glasgow\s+)?Rangers|Gers"),
            ("hearts", r"Hearts|Heart\s+of\s+Midlothian|Jambos"),
            ("hibernian", r"Hibs|Hibernian|Hibees"),
            ("aberdeen", r"Aberdeen"),
            ("dundee united", r"Dundee\s+(?:United|Utd)"),
            ("dundee", r"Dundee(?!\s+(?:United|Utd))"),
            ("motherwell", r"Motherwell"),
            ("kilmarnock", r"Kilmarnock|Killie"),
            ("st mirren", r"St\.?\s+Mirren"),
            ("st johnstone", r"St\.?\s+Johnstone"),
            ("real madrid", r"Real\s+Madrid"),
            ("barcelona", r"Barcelona|Bar[c\u00e7]a"),
            ("atletico madrid", r"Atl[e\u00e9]tico(?:\s+Madrid)?"),
            ("bayern munich", r"Bayern(?:\s+Munich)?"),
            ("borussia dortmund", r"(?:Borussia\s+)?Dortmund"),
            ("juventus", r"Juventus|Juve"),
            ("ac milan", r"AC\s+Milan"),
            ("inter milan", r"Inter\s+Milan"),
            ("napoli", r"Napoli"),
            ("psg", r"PSG|Paris\s+Saint-Germain"),
            ("ajax", r"Ajax"),
            ("benfica", r"Benfica"),
            ("porto", r"FC\s+Porto"),
            ("inter miami", r"Inter\s+Miami"),
            ("la galaxy", r"LA\s+Galaxy"),
        ))),
)
"""The families of values a person holds one current value of."""

OTHER_PRODUCTS = (r"monitors?|screens?|keyboards?|mouse|mice|printers?|tvs?|telly|tablets?|"
                  r"head\s*phones|ear\s*buds|buds|speakers?|chargers?|cases?|sat\s*navs?|"
                  r"bike\s+computers?|cameras?|fridges?|hoovers?|vacuums?|dishwashers?|"
                  r"kettles?|toasters?|routers?|docks?|batter(?:y|ies)|tyres?|seats?|keys?|"
                  r"(?:lawn\s*)?mowers?|generators?|outboards?|strimmers?|pressure\s+washers?")
"""What else a brand makes ("a Dell monitor", "a Garmin bike computer"): a member named before
one of these within two words is that product, not the category's thing."""

_ANDROID = frozenset({"samsung", "pixel", "oneplus", "motorola", "xiaomi", "nokia", "huawei",
                      "oppo"})
