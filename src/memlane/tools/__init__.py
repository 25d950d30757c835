"""The model's memory tools over one `Memory`: the handlers (`handlers.MemoryTools`) and the
tool-loop round the agent and the proxy share (`rounds.tool_round`). Their schemas, which
assembly counts in the budget below `Memory`, are `memlane.recall.schemas`."""
