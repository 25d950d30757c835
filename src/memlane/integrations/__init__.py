"""Adapters for the frameworks agents are built with. Each module imports its framework and says
which extra to install when it is missing:

- `memlane.integrations.openai_agents`: `MemlaneSession`, a `Session` for the OpenAI Agents SDK,
  and `memlane_tools()` (`memlane[openai-agents]`);
- `memlane.integrations.pydantic_ai`: `history_processor()` and `memlane_toolset()`
  (`memlane[pydantic-ai]`);
- `memlane.integrations.langgraph`: `MemlaneStore`, a LangGraph `BaseStore`, and
  `pre_model_hook()` (`memlane[langgraph]`).

They share `_transcript`: how a framework's tool calls are kept in memlane's message log (as text,
the log holds conversation, not wire format) and how an assembled context is turned back into
text turns and paired tool calls.
"""
