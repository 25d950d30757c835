"""The model's memory tools over one `Memory` (`handlers.MemoryTools`), and the tool-calling
turn built on them: the one turn core of the agent and the proxy (`turn.TurnLoop`), one round of
memlane's calls (`rounds.tool_round`), the answer's ledger row (`answer.record_answer`), the
application's own tools (`apptools`) and the agent's inline memory step (`inline`). Their
schemas, which assembly counts in the budget below `Memory`, are `memlane.tool_schemas`."""
