"""Context policy: the knobs of assembly, one frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    """How `context()` fills the budget. Defaults follow DESIGN.md section 1."""

    short_term_turns: int = 3
    """K: the last K user turns (with their replies) are replayed verbatim."""
    working_turns: int = 8
    """W: the W turns before short-term form working memory, pruned by decayed relevance."""
    buffer_lines: int = 12
    """At most this many buffer lines (the first stretch's, the ones the new message matches and
    the latest before the window; see `recent_lines`)."""
    half_life_turns: float = 6.0
    """A relevance score halves every this many turns of age."""
    prune_below: float = 0.0
    """Working-memory turns whose decayed score is under this are elided even when the budget
    has room (0: prune only at capacity, i.e. when the budget is full)."""
    default_relevance: float = 0.5
    """Score of a turn the memory step has not scored yet."""
    max_message_tokens: int = 800
    """A single message over this is replayed as head + tail with the middle marked truncated."""
    core_tokens: int = 200
    """The core layer's cap at the least (see `standing_share`): 10% of a 2k budget. 300 cost
    LoCoMo 0.4 points at 2k (docs/RESULTS.md)."""
    standing_share: float = 0.1
    """The core layer shows the namespace's standing facts (pinned records, constraints,
    decisions, who people are, stable preferences: `memlane.context.standing`) on every turn,
    within this share of the budget or `core_tokens`, whichever is more; what they take comes
    out of `notes_share` (they are the first records shown). 0 with `standing`
    off: pinned records only, within `core_tokens`."""
    standing: bool = True
    """Show the standing facts in the core layer (off: the pinned records only, the layer as
    it was before standing facts; an ablation)."""
    notes_share: float = 0.4
    """Share of the budget for notes: the namespace's records relevant to the new message, shown
    with their ids (all of the namespace's records when they fit in this share). Records reach
    more facts per token than raw turns, so they come first; working memory fills what is left.
    0 turns the layer off."""
    notes_recent: bool = True
    """Also search the notes with the user's last turn before the new message, so a follow-up by
    reference ("Any news on it?") finds what the turn it follows named; a few of those results
    go after the new message's own best ones (that turn's own search, memoised: no second
    search a turn while the store is unchanged). Off:
    the notes are what a search of the new message alone ranks (the `retrieval` baseline)."""
    index_lines: int = 3
    """At most this many buffer lines chosen from the whole thread because their words match the
    new message, shown in place of the oldest recent ones: the line index as a retrieval path
    (a message that matches a stretch's line reaches its records through the line's ids even
    when it matches none of them). 0: the first line and the latest ones only."""
    dated_lines: int = 2
    """A new message that names a day or a month ("on 16 June, 2023", "in May 2023",
    `context.when`) points at the stretches filed then, whatever its words: at most this many
    of them join the lines the line index matched (shown, their turns in reach of opening).
    0: off (the `retrieval` baselines: a word search only)."""
    dated_notes: int = 4
    """Of the records those stretches were filed into, at most this many are shown among the
    notes (the ones sharing the most terms with the new message first, then the rest: what was
    said that day need share no word with it), after the search's best `RECENT_NOTES`."""
    recent_lines: int | None = 2
    """At most this many of the latest lines before the window (None: up to `buffer_lines`).
    A line earns its tokens when it is opened; the ones the new message matches (the line
    index) are, the latest few often are, and the rest cost the turns room: measured on the
    LoCoMo dev split (docs/RESULTS.md) with sentence lines and the standing facts, 2 reached
    the most at 2k and 4k (3 did with keyword lines and no standing layer). Only when
    the evicted stretches are more than `buffer_lines`: a shorter history shows them all."""
    dedupe_lines: bool = True
    """One copy of each fact in view: an evicted turn the buffer would open is passed over when
    a shown note or standing fact was filed from it (its words are there already). The lines
    are all kept: the first stretch's line is always shown (how the conversation started)."""
    buffer_turns: int = 5
    """The buffer stands for the evicted conversation: besides its lines it opens at most this
    many evicted messages the new message matches, quoted verbatim under their stretch's line
    (`memlane.context.turns`: read from a few candidate stretches, never the whole log). About
    one LoCoMo question in six has no record citing its evidence; only a turn reaches it. 0:
    lines only."""
    buffer_turns_share: float = 0.1
    """Share of the budget the opened turns may take (200 tokens at 2k)."""
    buffer_turn_tokens: int = 80
    """An opened message over this is quoted head + tail (the store keeps it whole)."""
    buffer_lines_shown: bool = True
    """Show the buffer's lines (off, with `buffer_turns`: the block quotes opened turns only,
    each dated on its own; an ablation)."""
    use_buffer: bool = True
    """Show the episodic buffer block when the history does not fit (off: window only, neither
    lines nor opened turns)."""
    use_working: bool = True
    """Prune working memory by relevance (off: replay the window turns as they are), and let
    it reach past the window (`reach_stretches`)."""
    reach_stretches: int = 12
    """With `use_working` and `buffer_turns`: the newest this many evicted stretches (at most
    `buffer_lines`, the ones the store reads for the block) are candidates for the opened
    turns, besides the ones the best records cite and the line index matched. What was said
    just out of view is likelier what a message follows up on than the rest of the past, and
    it need be in no record the search ranks high: a turn there the new message matches is
    quoted (LoCoMo dev, docs/RESULTS.md). Bounded: `context.turns.STRETCH_READ` messages a
    stretch, read once a revision (the read cache keeps them). 0: off."""
    fill_budget: bool = True
    """Grow working memory past `working_turns` while the budget has room (the extra read is
    bounded by the budget, not by the thread). Off: the window is exactly K + W turns."""
    max_working_turns: int = 400
    """Upper bound on working memory when filling the budget."""
    use_tools: bool = True
    """Offer memlane's memory tools (counted in the budget)."""
    system_prompt: str = "You are a helpful assistant."
    memory_instructions: bool = True
    """Add memlane's short instructions on notes and memory tools to the system prompt."""

    @property
    def window_turns(self) -> int:
        return self.short_term_turns + self.working_turns
