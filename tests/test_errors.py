"""One home for errors: every public ragprep error is importable from
ragprep.pipeline.errors, and the pool's failure kinds are classes whose names
are the documents' error_type."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import ragprep.chunk
import ragprep.extract
import ragprep.pipeline
from ragprep.pipeline import errors
from ragprep.pipeline.config import PipelineConfig
from ragprep.pipeline.errors import POOL_FAILURES, PoolFailure, RagprepError


def _all_subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _all_subclasses(sub)
    return out


def test_every_ragprep_error_is_importable_from_the_errors_module():
    for package in (ragprep.extract, ragprep.chunk, ragprep.pipeline):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    defined = {cls for cls in _all_subclasses(RagprepError) if cls.__module__.startswith("ragprep.")}
    assert len(defined) >= 15
    missing = sorted(cls.__qualname__ for cls in defined if getattr(errors, cls.__name__, None) is not cls)
    assert missing == []
    assert sorted(errors.__all__) == sorted(n for n in vars(errors) if isinstance(getattr(errors, n), type) or n == "POOL_FAILURES")


def test_pool_failure_kinds_are_classes_named_as_their_error_type():
    assert [kind.error_type() for kind in POOL_FAILURES] == ["TimeoutError", "MemoryLimitError", "WorkerDiedError"]
    assert all(issubclass(kind, PoolFailure) for kind in POOL_FAILURES)
    # The time limit's kind is still a TimeoutError to code that catches the builtin.
    assert issubclass(errors.TimeoutError, TimeoutError)
    # The retry setting's default is those kinds, and it accepts them by name.
    assert PipelineConfig().retry_error_types == ("TimeoutError", "MemoryLimitError", "WorkerDiedError")
    assert PipelineConfig(retry_error_types=("WorkerDiedError", "EncryptedPDFError", "OSError")).retry_error_types


def test_a_retry_error_type_that_no_document_can_fail_with_is_a_config_error():
    with pytest.raises(errors.ConfigError, match="pipeline.retry_error_types.*'WorkerDied'"):
        PipelineConfig(retry_error_types=("WorkerDied",))
