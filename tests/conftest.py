"""pytest setup: tests marked `gpu` are skipped cleanly when no CUDA driver or GPU is present."""

import pytest


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
