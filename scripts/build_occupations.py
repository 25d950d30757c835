"""Build `src/memlane/data/occupations.txt`: common job titles, one a line, lower case, single
and multi-word ("paralegal", "product owner", "dinner lady", "hgv driver"), read once by
`step/occupations.py` to tell "I'm a paralegal" (what one does) from "I'm a keen runner".

    PYTHONPATH=src python scripts/build_occupations.py

Source: written for memlane from general knowledge of UK and US job titles (no outside list,
nothing downloaded; the same licence as memlane). A title is a head noun alone (`SINGLE`) or a
modifier with a head (`COMPOUND`: "{staff, charge, dental} nurse"), and whole titles whose
head alone is no job (`WHOLE`: "lollipop lady", "product owner", "stay-at-home dad"). Words a
person is without being paid for it ("member", "runner", "fan", "owner", "volunteer") are never
a title alone: the stop list of `step/occupations.py` (`NOT_TRADE`), which this script refuses.
"""

from __future__ import annotations

from pathlib import Path

from memlane.step.occupations import NOT_TRADE

OUT = Path(__file__).resolve().parent.parent / "src" / "memlane" / "data" / "occupations.txt"

SINGLE = """accountant actor actress actuary acupuncturist adjudicator administrator
    advocate agronomist anaesthetist anesthesiologist animator announcer anthropologist
    apprentice arbitrator archaeologist archivist architect archdeacon armourer artist assessor
    astronaut astronomer attorney auctioneer audiologist auditor author baker bailiff ballerina
    bank-teller banker barber barista barmaid barman barrister bartender beautician
    bookbinder bookkeeper bookmaker botanist bouncer brewer bricklayer broadcaster broker builder
    butcher butler buyer cabbie cameraman captain cardiologist caretaker carer carpenter
    cartographer cartoonist cashier caterer chaplain chauffeur chef chemist childminder
    chiropodist chiropractor choreographer cinematographer cleaner clergyman clerk clinician
    coach cobbler columnist comedian commissioner composer concierge conductor confectioner
    constable consultant contractor controller cook copywriter coroner correspondent
    councillor counsellor counselor courier croupier curate curator custodian dancer dentist
    deputy dermatologist designer detective developer dietitian dietician diplomat director
    dispatcher doctor doorman dramatist draughtsman drayman driver drummer dustman ecologist
    economist editor educator electrician embalmer embroiderer engineer engraver entertainer
    entrepreneur epidemiologist ergonomist estimator examiner executive farmer farmhand
    farrier fireman firefighter fisherman fishmonger fitter florist footballer foreman
    forester fundraiser gamekeeper gardener geneticist geographer geologist glazier goldsmith
    gp greengrocer groom groundskeeper groundsman guard gynaecologist haematologist hairdresser
    hairstylist handyman headmaster headmistress headteacher herbalist historian homemaker
    hostess housekeeper househusband housewife hygienist illustrator imam informatician
    inspector installer instructor insurer interpreter intern interviewer inventor investigator
    janitor jeweller jeweler jockey joiner journalist judge juggler labourer laborer landscaper
    lawyer lecturer legislator librarian lifeguard linguist lineman locksmith locum
    lorry-driver machinist magician magistrate maid manager manicurist marine mariner marketer
    mason masseur masseuse mathematician mechanic mediator merchant meteorologist microbiologist
    midwife milkman miner minister missionary model moderator monk musician nanny narrator
    navigator negotiator neurologist neurosurgeon newsagent newsreader notary novelist nun
    nurse nutritionist obstetrician occupational-therapist oceanographer officer oncologist
    operator ophthalmologist optician optometrist orderly organist orthodontist orthopaedist
    osteopath paediatrician painter paralegal paramedic pathologist pawnbroker pediatrician
    pensions-adviser performer pharmacist philosopher phlebotomist photographer physician
    physicist physio physiotherapist pianist picker pilot plasterer playwright plumber
    podiatrist poet policeman policewoman politician porter postie postman postwoman potter
    presenter priest principal printer prison-officer probation-officer producer professor
    programmer projectionist proofreader prosecutor psychiatrist psychologist psychotherapist
    publican publicist publisher purser queen's-counsel rabbi radiographer radiologist rancher
    ranger realtor receptionist recruiter rector referee registrar reporter researcher
    roofer sailor salesman saleswoman salesperson scaffolder scientist screenwriter sculptor
    seamstress secretary senator sergeant servant sheriff shepherd shipwright shoemaker
    shopkeeper signaller singer sinologist smith soldier solicitor songwriter sonographer
    sommelier speechwriter statistician steelworker steward stewardess stockbroker stonemason
    storekeeper stuntman stylist supervisor surgeon surveyor tailor tattooist taxidermist
    teacher technician technologist telemarketer teller temp therapist tiler toolmaker
    tour-guide toxicologist trader trainee trainer translator treasurer tutor typist
    undertaker upholsterer urologist valet valuer vet veterinarian vicar videographer
    waiter waitress warden watchmaker weaver webmaster welder wholesaler windsurfer-instructor
    woodworker writer zookeeper zoologist sparky chippy brickie dinnerlady housemaster
    housemistress chaplain paediatrician anaesthesiologist radiotherapist orthoptist prosthetist
    sonographer audiologist optometrist podiatrist dietician phlebotomist pathologist
    embryologist perfusionist hygienist hospitalist locksmith chimney-sweep roofer thatcher
    blacksmith farrier ghillie gillie stablehand jockey crofter smallholder dairyman
    herdsman fisherwoman trawlerman docker stevedore deckhand bosun skipper ferryman
    lighthouse-keeper busker bingo-caller croupier usher projectionist cartographer
    copyeditor subeditor proofreader lexicographer indexer archivist conservator restorer
    picture-framer signwriter glassblower silversmith luthier piano-tuner organ-builder
    seamstress dressmaker milliner cobbler tanner upholsterer french-polisher
    cabinetmaker joiner shopfitter kitchen-fitter plumber gasman gas-engineer
    bailiff enforcement-agent paralegal barrister solicitor notary conveyancer
    legal-executive magistrate coroner judge clerk usher registrar celebrant
    undertaker embalmer funeral-director gravedigger verger sexton curate deacon vicar
    bishop rabbi imam pastor minister chaplain missionary nun monk priest
    actuary underwriter loss-adjuster claims-handler cashier bank-clerk teller
    bookkeeper payroll-clerk auditor accountant treasurer controller comptroller
    barista sommelier mixologist bartender barback waiter waitress busser hostess
    dishwasher kitchen-porter line-cook fry-cook grill-cook pizzaiolo patissier
    chocolatier butcher fishmonger greengrocer grocer shelf-stacker merchandiser
    stockroom-assistant checkout-operator cashier""".split()

# Heads and the modifiers they are said with: each pair is a title ("bus driver").
COMPOUND: dict[str, str] = {
    "driver": """bus taxi cab hgv lorry van delivery train tram truck forklift ambulance coach
        tanker tipper crane dray minicab uber racing rally school-bus""",
    "nurse": """staff charge dental school practice district community mental-health theatre
        agency registered senior student children's paediatric veterinary vet nursery
        cardiac icu a&e neonatal research specialist head night ward""",
    "teacher": """primary secondary maths math english science history geography music art
        drama pe french spanish german supply nursery reception special-needs sen dance piano
        yoga swimming driving guitar violin head deputy-head year-six chemistry physics
        biology language ks1 ks2 infant junior sixth-form""",
    "assistant": """teaching classroom care healthcare nursing dental veterinary shop sales
        personal executive admin administrative office legal medical research lab laboratory
        kitchen library pharmacy retail store warehouse customer-service finance hr marketing
        production editorial physician's""",
    "manager": """project product account accounts office operations sales marketing store
        shop retail branch bank hotel restaurant bar pub warehouse site construction
        facilities property estate hr finance it programme program engineering quality
        compliance risk brand category content community social-media digital events
        general assistant deputy area regional district team delivery stage studio practice
        ward care-home fleet logistics procurement supply-chain relationship portfolio
        business-development client success customer-success release data research
        development fundraising campaign communications""",
    "engineer": """software civil structural mechanical electrical chemical aerospace
        automotive sound audio network systems site building services gas heating maintenance
        field service test data machine-learning ml ai devops reliability site-reliability
        cloud security platform backend front-end frontend full-stack fullstack qa
        process production manufacturing quality design telecoms rail marine nuclear
        petroleum mining biomedical environmental water highways traffic broadcast""",
    "designer": """graphic ux ui product web interior fashion game games lighting sound
        costume set garden landscape textile furniture industrial kitchen instructional
        visual motion service interaction jewellery jewelry print packaging""",
    "analyst": """business data financial finance systems it investment credit risk research
        policy intelligence marketing security cyber crime insight operations pricing
        reporting bi quantitative""",
    "officer": """police prison probation customs immigration border housing planning
        compliance finance chief executive press communications welfare attendance
        admissions environmental-health health-and-safety safety fire loans lending medical
        petty naval army rnli community-support pcso parking enforcement licensing
        procurement marketing data-protection information technical scientific""",
    "worker": """social care support youth factory construction shift charity community
        key farm office site steel retail warehouse sex dock railway care-home
        family-support outreach""",
    "technician": """lab laboratory pharmacy dental it computer medical veterinary science
        theatre lighting sound maintenance engineering cad nail hvac electronics
        ophthalmic radiology surgical""",
    "consultant": """management it business hr recruitment sales medical financial travel
        beauty strategy technical tax senior associate principal""",
    "adviser": """financial mortgage pensions careers legal tax benefits debt insurance
        customer welfare investment""",
    "advisor": """financial mortgage pensions careers legal tax benefits debt insurance
        customer welfare investment""",
    "agent": """estate letting travel insurance talent literary sports booking
        customer-service call-centre secret border""",
    "operator": """machine crane forklift call-centre switchboard camera plant sound
        train tour""",
    "inspector": """building health-and-safety food-safety ticket tax school ofsted fire
        police""",
    "chef": """sous head pastry commis executive private line prep head-pastry development
        chef-de-partie""",
    "cook": """line short-order prep school head""",
    "scientist": """data research computer food clinical environmental forensic lab
        laboratory rocket political social soil""",
    "developer": """software web app mobile game games front-end frontend backend back-end
        full-stack fullstack property business""",
    "writer": """technical content copy freelance staff ghost speech grant travel""",
    "director": """managing creative art artistic finance financial sales marketing
        technical executive funeral film theatre music casting programme design
        non-executive operations""",
    "therapist": """occupational speech speech-and-language physical massage sports
        family art music drama beauty respiratory""",
    "surgeon": """tree dental veterinary vascular heart orthopaedic plastic brain
        cosmetic""",
    "clerk": """bank law court legal office filing shipping accounts accounts-payable
        wages payroll parish town""",
    "coordinator": """project events event marketing volunteer programme program
        logistics admissions care""",
    "administrator": """systems database office school hospital practice network""",
    "attendant": """flight cabin car-park petrol-station pool parking""",
    "guard": """security prison train coast""",
    "fitter": """kitchen gas pipe carpet tyre bathroom window shop""",
    "cleaner": """office window hospital school contract carpet""",
    "specialist": """it hr tax marketing clinical nurse learning-support""",
    "executive": """account sales marketing business-development advertising""",
    "planner": """town urban financial wedding event media production""",
    "accountant": """chartered trainee management tax certified forensic""",
    "lawyer": """employment family corporate criminal immigration tax property""",
    "solicitor": """trainee family conveyancing criminal property""",
    "doctor": """junior hospital family""",
    "pilot": """airline helicopter commercial test""",
    "supervisor": """shift site shop floor warehouse""",
    "trainer": """personal dog horse fitness""",
    "instructor": """driving fitness yoga pilates ski swimming diving flying gym""",
    "journalist": """freelance sports news political""",
    "lecturer": """university senior college""",
    "researcher": """postdoctoral market clinical""",
    "photographer": """wedding freelance press""",
    "artist": """makeup make-up tattoo nail graphic visual""",
    "sister": """ward""",
    "partner": """gp equity salaried law""",
    "host": """radio tv podcast""",
    "operative": """warehouse factory production machine site ground maintenance""",
    "controller": """air-traffic financial credit stock production quality traffic""",
    "handler": """baggage dog cargo claims""",
    "porter": """kitchen night hospital hotel head railway""",
    "receptionist": """dental hotel gp medical school salon vet veterinary front-desk""",
    "secretary": """medical legal school company parish practice""",
    "librarian": """school university children's""",
    "mechanic": """car motor aircraft bike auto diesel marine""",
    "electrician": """auto domestic commercial industrial trainee apprentice""",
    "labourer": """general site building farm""",
    "carer": """home live-in private paid""",
    "tutor": """private maths math english home music online personal""",
    "coach": """football life business swimming tennis rugby executive running netball
        gymnastics athletics cricket""",
    "pharmacist": """hospital community locum clinical""",
    "dentist": """nhs private""",
    "vet": """farm equine small-animal locum""",
    "midwife": """community hospital student""",
    "physio": """sports""",
    "psychologist": """clinical educational forensic counselling occupational child""",
    "radiographer": """diagnostic therapeutic""",
    "practitioner": """nurse advanced-nurse general operating-department emergency""",
    "surveyor": """chartered building quantity land""",
    "architect": """landscape software solutions enterprise data cloud technical""",
    "editor": """sub copy video film picture managing news features commissioning""",
    "producer": """tv radio music executive film video""",
    "presenter": """tv radio weather""",
    "buyer": """fashion retail media""",
    "merchandiser": """visual""",
    "recruiter": """tech technical""",
    "associate": """sales research legal""",
    "baker": """master artisan""",
    "courier": """bike cycle motorcycle parcel""",
    "steward": """air cabin match""",
    "sergeant": """police army custody""",
}

WHOLE_TITLES = [" ".join(line.split()) for line in """dinner lady
    lollipop lady
    lollipop man
    dinner man
    tea lady
    cleaning lady
    product owner
    scrum master
    shop assistant
    stay-at-home mum
    stay-at-home dad
    stay-at-home parent
    stay-at-home mom
    au pair
    cabin crew
    air hostess
    bin man
    refuse collector
    meter reader
    health visitor
    home help
    crossing patrol
    civil servant
    public servant
    police constable
    detective constable
    detective sergeant
    detective inspector
    chief inspector
    kitchen porter
    night porter
    hospital porter
    maitre d
    head of department
    head of year
    deputy head
    assistant head
    vice principal
    dental hygienist
    sales rep
    sales representative
    care assistant
    team leader
    team lead
    shift leader
    store manager
    duty manager
    tech lead
    head chef
    head teacher
    site foreman""".splitlines() if line.strip()]

# Never a title alone: what one is without being paid for it (the reader's own stop list), and
# what one is rather than does ("a student", "a host" of a party).
REFUSED = NOT_TRADE | {"student", "host"}


def titles() -> list[str]:
    """Every title, lower case, sorted, one each."""
    out = {w.replace("-", " ") if w.endswith(("-driver", "-therapist", "-adviser", "-officer",
                                              "-guide", "-counsel", "-teller", "-instructor"))
           else w for w in SINGLE}
    for head, mods in COMPOUND.items():
        if head not in REFUSED:
            out.add(head)
        for mod in mods.split():
            out.add(f"{mod.replace('-', ' ')} {head}")
    out |= set(WHOLE_TITLES)
    return sorted(t for t in out if t not in REFUSED)


def main() -> int:
    lines = titles()
    head = ("# job titles, one a line, lower case; built by scripts/build_occupations.py (written "
            "for memlane from general knowledge, no outside list; memlane's licence)\n")
    OUT.write_text(head + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} titles -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
