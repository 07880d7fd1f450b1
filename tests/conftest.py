"""pytest setup: tests marked `gpu` are skipped cleanly when no CUDA driver or GPU is present, and
the on-disk kernel cache lives in a temporary directory (never the user's ~/.cache/warpforge)."""

import os
import shutil
import tempfile

import pytest

_CACHE_DIR: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    # set before any kernel compiles; subprocesses (the CLI tests) inherit it
    global _CACHE_DIR
    _CACHE_DIR = tempfile.mkdtemp(prefix="warpforge-test-cache-")
    os.environ["WARPFORGE_CACHE_DIR"] = _CACHE_DIR


def pytest_unconfigure(config: pytest.Config) -> None:
    if _CACHE_DIR is not None:
        shutil.rmtree(_CACHE_DIR, ignore_errors=True)


def _gpu_available() -> bool:
    try:
        from warpforge.runtime.device import gpu_available

        return gpu_available()
    except Exception:  # warpforge itself failed to import: the gpu tests cannot run either
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if gpu_items and not _gpu_available():
        skip = pytest.mark.skip(reason="needs an NVIDIA GPU and driver (none found)")
        for item in gpu_items:
            item.add_marker(skip)


@pytest.fixture
def wgmma_calls(monkeypatch) -> list:
    """The shared-memory operands the simulator's wgmma model read, one (mn, k, itemsize, k_major) per
    matrix descriptor (A and B per warpgroup per op; B alone for the register-A form)."""
    from warpforge.simulator import wgmma as model

    calls: list = []
    real = model.operand_addresses

    def spy(desc: int, mn: int, k: int, itemsize: int, k_major: bool):
        calls.append((mn, k, itemsize, k_major))
        return real(desc, mn, k, itemsize, k_major)

    monkeypatch.setattr(model, "operand_addresses", spy)
    return calls
