"""The plug-in contract: a Workload that leaves out an abstract method cannot be instantiated."""

import pytest

from autograder.workload import Work, Workload


class _NoWork(Workload):
    variants = ("a", "b")
    params = ("n",)

    def inputs(self, params, device):
        return ()

    def build(self, variant, params):
        return lambda: None


def test_a_workload_missing_work_cannot_be_instantiated():
    with pytest.raises(TypeError, match="abstract method.*work"):
        _NoWork()


def test_a_complete_workload_can():
    class Full(_NoWork):
        def work(self, variant, params):
            return Work(flops=1, bytes_read=1, bytes_written=1, launches=1)

    assert Full().work("a", {"n": 1}).launches == 1
