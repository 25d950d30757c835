"""A speaker's own correction worded with no change verb: the two values of one kind (two gyms,
two banks, two doctors for the same care, two clubs of one sport, two homes, two ages, two
numbers of days of work a week, two dates of one event), the same holder, the later said as
true now. With the near-misses each mechanism must refuse: where one is at the moment, a club
of another sport, a doctor for another care, a break-up of someone else, another routine's
days a week, a birthday with no age. Pairs written for these mechanisms, none copied from a
data set."""

from __future__ import annotations

import pytest

from memlane.step.clauses import clauses
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    # a gym by a brand with its word in it; a bank by where the money is
    (["I train at PureGym near the station."], "I'm with Snap Fitness nowadays, it's 24 hours."),
    (["I bank with Halifax."], "All my money's in Chase these days."),
    (["My current account is with TSB."], "My salary goes into Monzo now."),
    # a doctor by name and the care they give
    (["My dentist is Dr Mensah on Park Road."], "Dr Kowalski does my teeth these days."),
    (["My dermatologist is Dr Hale."], "I see Dr Osei about my eczema now."),
    # a club of the same sport, by its suffix
    (["I play hockey for Southgate HC."], "Signed for Wimbledon HC over the winter."),
    (["I play for Bromley Rovers on Sundays."],
     "I've been turning out for Orpington FC since March."),
    # a diet one is put on or follows; a car one ended up with
    (["I'm following a vegan diet."], "My nutritionist has put me on a low-carb plan now."),
    (["I drive a Ford Fiesta."], "The clutch went, so we ended up with a secondhand Kia Ceed."),
    # a home moved into, said by its end
    (["I live in Luton."], "We got the keys to the new flat in Hitchin last week, finally in."),
    (["My address is 9 Birch Road, Derby."], "We got moved into 21 Ash Grove on Monday."),
    # a break-up of the speaker's partner held as the holder
    (["My boyfriend Theo and I have been together three years."], "Theo and I called it quits."),
    # an age in words beside a birthday; days of work a week from now on
    (["Our rabbit Clover is two."], "Clover had her birthday at the weekend, three already."),
    (["I work three days a week."], "It's four days a week from now on."),
    # a job and an employer in one sentence: the employer alone corrected
    (["I'm a pharmacist at Boots in Leicester."], "I'm at Superdrug now, same sort of role."),
    # a date of an event by its verb
    (["Our wedding is on 2 May."], "We're getting married on 9 August instead."),
    # a home said as where one is these days; an employer held with the team one works in
    (["We live in Kendal, near the river."], "We're in Carlisle these days, moved in spring."),
    (["I work in the payroll team at Ashdown Foods."], "I'm at Pennine Logistics now, same job."),
    # a diet switched to
    (["I'm doing paleo at the moment."], "I've switched over to intermittent fasting."),
]

NEAR_MISSES = [
    # where one is at the moment, not an employer
    (["I work at Lloyds."], "I'm at Pret now having lunch with a mate."),
    (["I work at Lloyds."], "I'm at Greggs now, want anything?"),
    # a club of another sport; a doctor for another care; the GP is not the dentist
    (["I play cricket for Ealing CC."], "Signed for Hanwell Rovers this season."),
    (["My dentist is Dr Mensah."], "I see Dr Kowalski about my eczema now."),
    (["My GP is Dr Shah."], "Dr Rowe does my teeth these days."),
    # someone else's break-up; a partner held by name only
    (["My boyfriend Theo and I have been together three years."],
     "Theo and Sam went their separate ways."),
    # another routine's days a week; someone else's
    (["I work three days a week."], "I'm doing yoga four days a week now."),
    (["I work three days a week."], "My son goes to nursery four days a week now."),
    # a birthday with no age of the pet; a past club; a second car
    (["Our rabbit Clover is two."], "Clover had her birthday at the weekend, three carrots!"),
    (["I play for Bromley Rovers."], "Back in college I played for Orpington FC for a season."),
    (["I drive a Ford Fiesta."], "We ended up with a Kia Ceed as a second car for my wife."),
    # a diet someone else switched to, or a question
    (["I'm vegan."], "My brother has switched to keto, which sounds grim."),
    (["I'm vegan."], "Should I switch to keto for a bit?"),
    # where one is on a trip, not one's home
    (["We live in Kendal."], "We're in Lisbon these days for the conference."),
    # a membership is no job
    (["I'm a member at PureGym."], "I'm at Gymbox now, want anything?"),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_value_of_the_same_kind_said_as_now_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_holds_now_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_a_job_and_its_employer_are_two_facts() -> None:
    """"I'm a pharmacist at Boots" states a job and an employer: a new employer replaces only
    the employer's record, the job stays; what is no occupation stays one fact."""
    assert clauses("I'm a pharmacist at Boots in Leicester.") == \
        ["I'm a pharmacist.", "I work at Boots in Leicester."]
    verdicts = _verdicts("I'm at Superdrug now, same sort of role.",
                         ["I'm a pharmacist at Boots in Leicester."])
    assert verdicts == [(SUPERSEDES, "I work at Boots in Leicester.")], verdicts
    assert clauses("I'm a member at PureGym.") == ["I'm a member at PureGym."]


# What is not the holder's state now though it names a value (`endings.not_done`, `not_now`):
# a change not made (a wrong supersede a fresh set found: a move that fell through replaced
# the held home), almost made, a target, a one-off, the past; and changes made, which still
# supersede. In words written for these tests.
NOT_MADE = [
    (["I live in Truro with my wife."], "We didn't end up moving to Falmouth after all."),
    (["I live in Truro."], "We never did move to Falmouth, the chain collapsed."),
    (["I live in Truro."], "We're not moving to Falmouth now, the buyer pulled out."),
    (["I live in Truro."], "The move to Falmouth fell through."),
    (["I work at Argos."], "I didn't take the job at Currys in the end."),
    (["I bank with Halifax."], "I haven't switched to Monzo yet, the app wouldn't let me."),
    (["I drive a Ford Fiesta."], "We didn't buy the Kia Ceed in the end, too pricey."),
    # almost made, a target, a one-off, an old thing given away: not the state now
    (["I live in Wakefield."], "We nearly moved to Pontefract in 2019, glad we didn't."),
    (["I weigh 90 kilos."], "My goal is 80 kilos by Christmas."),
    (["I use a Pixel 8."], "I sold my old Pixel 5 to a lad from work."),
    (["I work 8 till 4."], "I'm on 10 till 6 tomorrow, covering for Priti."),
    (["I go to pilates on Tuesdays."], "Did a spin class on Tuesday, pilates was off."),
    (["I play badminton on Fridays."], "We played tennis on Friday instead, the hall was booked."),
    (["I do Bodypump on Mondays."], "I do Bodycombat on Tuesdays now."),  # another routine
    (["I'm on nights at the depot."], "I'm on days off till Friday, bliss."),  # days off
    (["I work at the Co-op."], "I used to work at Boots, a long time ago."),  # the past
    (["I live in Keswick."], "Back when I was a student I lived in Lancaster."),
    (["I do Bodypump on Mondays."], "I do Bodypump on Tuesdays as well now."),  # added
]
MADE = [
    (["I live in Truro."], "We moved to Falmouth in the end."),
    # a routine by its capitalised name: its day changed
    (["I do Bodypump on Mondays."], "I do Bodypump on Tuesdays now, new timetable."),
    # a shift from a day said first ("From tomorrow, ...": when it holds from, then the fact)
    (["I'm on nights at the depot."], "From tomorrow I'm on days, thank god."),
    (["I work at Argos."], "I'm not at Argos any more, I'm at Currys now."),
]


@pytest.mark.parametrize(("held", "new"), NOT_MADE)
def test_a_change_said_as_not_made_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), MADE)
def test_a_change_made_in_the_end_still_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts
