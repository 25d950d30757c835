"""memlane: the memory and context engine for long-running LLM agents.

Each turn's context is assembled from layered memory, every layer with an explicit lifetime; the
conversation's evicted past is stood in for by an episodic buffer, one line per filed stretch that
points at the long-term records holding its facts.
"""

from __future__ import annotations

from ._version import __version__ as __version__
from .agent import Agent, AppTool, ToolCallRecord, TurnResult
from .aio import AsyncMemory, AsyncThread
from .context.assemble import assemble
from .context.policy import Policy
from .context.tokens import BPETokenizer, Tokenizer
from .errors import (
    BudgetTooSmall,
    MemlaneError,
    MissingExtra,
    ModelError,
    NotFound,
    StepConflict,
    StepError,
    StepStalled,
    StoreError,
    UsageError,
)
from .ledger import Ledger
from .memory import Memory, Thread, open_store
from .models import get_model
from .models.base import Model, ModelReply, ToolCall
from .search.embed import Embedder, get_embedder
from .search.hybrid import Hit, SnapshotHit
from .step.extractor import Extractor, HeuristicExtractor
from .step.model import FallbackExtractor, ModelExtractor
from .step.parse import StepOutput, parse_step
from .step.runner import Cadence, StepRunner
from .step.schema import STEP_INSTRUCTIONS, STEP_SCHEMA
from .store.protocol import HistoryPolicy, Snapshot, Store
from .tools.handlers import MemoryTools
from .types import (
    BufferLine,
    ChatMessage,
    Context,
    ContextRows,
    Dropped,
    Episode,
    Message,
    Record,
    StepResult,
    ThreadInfo,
    Trace,
)

__all__ = [
    "Agent",
    "AppTool",
    "AsyncMemory",
    "AsyncThread",
    "BPETokenizer",
    "BudgetTooSmall",
    "BufferLine",
    "Cadence",
    "ChatMessage",
    "Context",
    "ContextRows",
    "Dropped",
    "Embedder",
    "Episode",
    "Extractor",
    "FallbackExtractor",
    "HeuristicExtractor",
    "HistoryPolicy",
    "Hit",
    "Ledger",
    "MemlaneError",
    "Memory",
    "MemoryTools",
    "Message",
    "MissingExtra",
    "Model",
    "ModelError",
    "ModelExtractor",
    "ModelReply",
    "NotFound",
    "Policy",
    "Record",
    "STEP_INSTRUCTIONS",
    "STEP_SCHEMA",
    "Snapshot",
    "SnapshotHit",
    "StepConflict",
    "StepError",
    "StepOutput",
    "StepResult",
    "StepRunner",
    "StepStalled",
    "Store",
    "StoreError",
    "Thread",
    "ThreadInfo",
    "Tokenizer",
    "ToolCall",
    "ToolCallRecord",
    "Trace",
    "TurnResult",
    "UsageError",
    "assemble",
    "get_embedder",
    "get_model",
    "open_store",
    "parse_step",
]
