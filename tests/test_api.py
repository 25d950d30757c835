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
