"""memlane: the memory and context engine for long-running LLM agents.

Each turn's context is assembled from layered memory, every layer with an explicit lifetime; the
conversation's evicted past is stood in for by an episodic buffer, one line per filed stretch that
points at the long-term records holding its facts.
"""

from __future__ import annotations

from .context.assemble import assemble
from .context.policy import Policy
from .context.tokens import BPETokenizer, Tokenizer
from .errors import (
    BudgetTooSmall,
    MemlaneError,
    MissingExtra,
    ModelError,
    NotFound,
    StepError,
    StoreError,
    UsageError,
)
from .memory import Cadence, Extractor, HeuristicExtractor, Memory, Thread, open_store
from .step.parse import StepOutput, parse_step
from .step.schema import STEP_INSTRUCTIONS, STEP_SCHEMA
from .store.base import HistoryPolicy, Store
from .types import (
    BufferLine,
    ChatMessage,
    Context,
    ContextRows,
    Episode,
    Message,
    Record,
    StepResult,
    ThreadInfo,
    Trace,
)

__version__ = "0.1.0"

__all__ = [
    "BPETokenizer",
    "BudgetTooSmall",
    "BufferLine",
    "Cadence",
    "ChatMessage",
    "Context",
    "ContextRows",
    "Episode",
    "Extractor",
    "HeuristicExtractor",
    "HistoryPolicy",
    "MemlaneError",
    "Memory",
    "Message",
    "MissingExtra",
    "ModelError",
    "NotFound",
    "Policy",
    "Record",
    "STEP_INSTRUCTIONS",
    "STEP_SCHEMA",
    "StepError",
    "StepOutput",
    "StepResult",
    "Store",
    "StoreError",
    "Thread",
    "ThreadInfo",
    "Tokenizer",
    "Trace",
    "UsageError",
    "assemble",
    "open_store",
    "parse_step",
]
