"""Another person's change applied to the right person (issue 41), in other words than the sets
that showed each class: "my other colleague Beth" is a holder like the first; someone the
speaker got onto a phone; a club that took a child on ("scouted by the regional team, ...");
a move of school told by the value's kind ("moved over to Fernhill Academy"); what one does now
after a job said to end; a move to live or work somewhere; a home sold for another; "the
youngest"; the speaker's own car traded in (a Mini by its model). Each near-miss keeps both:
a trial, an errand, a visit, a trip, a bus.
"""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts

CORRECTIONS = [
    (["My colleague Amir is a web designer.", "My other colleague Beth is a copywriter."],
     "Beth retrained as a paralegal over lockdown.", "My other colleague Beth is a copywriter."),
    (["My mum has an old Nokia.", "My dad uses a Samsung Galaxy."],
     "We've finally got her onto an iPhone SE, and she loves the camera.",
     "My mum has an old Nokia."),
    (["My son Ethan plays for Lymm Juniors.", "My daughter Grace plays for Sale Netball."],
     "Ethan's been scouted by the regional team, Cheshire Hawks.",
     "My son Ethan plays for Lymm Juniors."),
    (["Our eldest, Mia, is at Brook Lane Primary.",
      "Our youngest, Leo, is at Little Oaks Nursery."],
     "Mia moved over to Fernhill Academy in September.",
     "Our eldest, Mia, is at Brook Lane Primary."),
    (["My uncle is a bus driver.", "My aunt is a nurse."],
     "My uncle's left the buses and now does removals for a local firm.",
     "My uncle is a bus driver."),
    (["My friend Nadia lives in Leeds.", "My friend Ben lives in York."],
     "Nadia's headed off to Madrid to study Spanish for a year.",
     "My friend Nadia lives in Leeds."),
    (["My grandad lives in Hull.", "My nan lives in Beverley."],
     "Grandad sold his house and got a bungalow in Bridlington.", "My grandad lives in Hull."),
    (["Our eldest goes to Kings Academy.", "Our youngest goes to Elm Tree Primary."],
     "The youngest has moved up to Kings Academy too.", "Our youngest goes to Elm Tree Primary."),
    (["My friend Tariq is an architect.", "My friend Holly is a vet."],
     "Tariq quit architecture and is now a science teacher.", "My friend Tariq is an architect."),
    (["I drive a Ford Focus.", "My wife drives a Toyota Yaris."],
     "I traded my old runaround in for a Mini Countryman.", "I drive a Ford Focus."),
    (["My daughter Ava is at Hollins Primary.", "My son Jack is at Bridge School."],
     "We moved Ava to Bridge School in January.", "My daughter Ava is at Hollins Primary."),
    (["My friend Kieran is a web developer.", "My friend Marta is a pilot."],
     "Kieran went freelance as a graphic designer.", "My friend Kieran is a web developer."),
    (["My sister Ella is a nurse.", "My sister Kim is a barber."],
     "Ella left nursing and she's a driving instructor now.", "My sister Ella is a nurse."),
    (["My grandma lives in York.", "My grandad lives in Selby."],
     "Grandma's downsized to a bungalow in Filey.", "My grandma lives in York."),
    (["My uncle works for Rolls-Royce.", "My aunt works for Boots."],
     "My uncle took early retirement from Rolls-Royce and now volunteers at the Oxfam shop.",
     "My uncle works for Rolls-Royce."),
    (["My cousin Ryan is a labourer.", "My cousin Dean is a plasterer."],
     "Ryan packed in labouring and joined the army.", "My cousin Ryan is a labourer."),
    (["My neighbour Gail works at Morrisons.", "My neighbour Ann works at the library."],
     "Gail's the deputy manager at Aldi now.", "My neighbour Gail works at Morrisons."),
    (["My friend Sean works at the Nissan plant.", "My friend Matt works at Asda."],
     "Sean's moved on from Nissan, he's a forklift driver for Tesco now.",
     "My friend Sean works at the Nissan plant."),
    (["My son Alfie is at Acorn Nursery.", "My daughter Isla is at Oakwood Primary."],
     "Alfie's started in Reception at Oakwood Primary.", "My son Alfie is at Acorn Nursery."),
    (["My niece Sophie is at Leeds Uni.", "My nephew Jake is at York Uni."],
     "Sophie's graduated and started at KPMG in September.", "My niece Sophie is at Leeds Uni."),
    (["My husband works for Barclays.", "I work for Lloyds."],
     "My husband's moved across to HSBC.", "My husband works for Barclays."),
    (["My dad drives a Ford Fiesta.", "My mum drives a Mini Cooper."],
     "Dad's Fiesta failed its MOT so he's bought a Skoda Fabia.", "My dad drives a Ford Fiesta."),
    (["My auntie Jan is a carer.", "My auntie Sue is a cook."],
     "Auntie Jan's packed in caring and works as a receptionist now.",
     "My auntie Jan is a carer."),
]

NEAR_MISSES = [
    (["My son Ethan plays for Lymm Juniors.", "My daughter Grace plays for Sale Netball."],
     "Ethan's been invited to a trial with Cheshire Hawks."),
    (["My uncle is a bus driver.", "My aunt is a nurse."],
     "My uncle now does the school run for my aunt on Fridays."),
    (["Our eldest, Mia, is at Brook Lane Primary.",
      "Our youngest, Leo, is at Little Oaks Nursery."],
     "Mia went over to Fernhill Academy for a netball match."),
    (["My grandad lives in Hull.", "My nan lives in Beverley."],
     "Grandad's gone off to Tenerife for a fortnight."),
    (["My dad uses a Nokia flip phone.", "My mum has an iPhone 13."],
     "We got him onto the bus into town in the end."),
    (["I drive a Ford Focus.", "My wife drives a Toyota Yaris."],
     "My wife traded her Yaris in for a Mini Cooper."),
    (["My son Max is at Park Primary.", "My daughter Ruby is at Hill School."],
     "We moved Max into the box room so Ruby has more space."),
    (["My neighbour Gail works at Morrisons.", "My neighbour Ann works at the library."],
     "Gail joined the choir at St Mark's."),
    (["My niece Sophie is at Leeds Uni.", "My nephew Jake is at York Uni."],
     "Sophie's graduation is at Leeds Town Hall in July."),
    (["My mum is a teacher.", "My dad is a plumber."],
     "Mum's stepped down from the PTA committee and now helps at the charity shop on Saturdays."),
]


@pytest.mark.parametrize(("held", "new", "replaced"), CORRECTIONS)
def test_the_right_persons_fact_is_replaced(held: list[str], new: str, replaced: str) -> None:
    assert {t for v, t in message_verdicts(new, held) if v == SUPERSEDES} == {replaced}


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_near_misses_leave_the_held_facts(held: list[str], new: str) -> None:
    replaced = {t for v, t in message_verdicts(new, held) if v == SUPERSEDES}
    # (the wife's own car traded in is hers to replace, never the speaker's)
    assert replaced <= {"My wife drives a Toyota Yaris."}
