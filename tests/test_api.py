import memlane


def test_all_is_explicit_and_importable():
    for name in memlane.__all__:
        assert hasattr(memlane, name), name
    assert sorted(memlane.__all__) == memlane.__all__


def test_error_tree():
    assert issubclass(memlane.UsageError, memlane.MemlaneError)
    assert issubclass(memlane.NotFound, memlane.UsageError)
    assert issubclass(memlane.StepError, memlane.MemlaneError)
    assert not issubclass(memlane.MemlaneError, MemoryError)


def test_return_types_are_exported():
    # What the public calls return can be named (type hints, isinstance) from `memlane` itself.
    from memlane.agent import ToolCallRecord
    from memlane.search.hybrid import Hit, SnapshotHit
    from memlane.store.protocol import Snapshot
    from memlane.types import Dropped

    for obj in (Hit, SnapshotHit, Snapshot, Dropped, ToolCallRecord):
        assert getattr(memlane, obj.__name__) is obj and obj.__name__ in memlane.__all__


def test_step_conflict_is_not_a_step_error():
    # A conflict is not malformed output: code that falls back on StepError must not retry it.
    assert issubclass(memlane.StepConflict, memlane.MemlaneError)
    assert not issubclass(memlane.StepConflict, memlane.StepError)
