"""bench/_harness.py's TFLOP/s rows (TorchPeers.tflops_timer, shared by bench/matmul.py and
bench/attention.py), with fakes for the stream, the event timer and torch's tensors: the printed line,
the kept row, a run that fails, a wrong result. No GPU, no torch."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from _harness import TorchPeers  # noqa: E402


class _Tensor:
    """The few torch.Tensor methods the check uses, on a NumPy array."""

    def __init__(self, a: np.ndarray):
        self.a = np.asarray(a, dtype=np.float64)

    def float(self) -> _Tensor:
        return self

    def __sub__(self, other: _Tensor) -> _Tensor:
        return _Tensor(self.a - other.a)

    def abs(self) -> _Tensor:
        return _Tensor(np.abs(self.a))

    def max(self) -> float:
        return float(self.a.max())


class _Stream:
    def __init__(self) -> None:
        self.syncs = 0

    def sync(self) -> None:
        self.syncs += 1


class _Timer:
    def __init__(self, ms: float) -> None:
        self.ms, self.calls = ms, []

    def median_ms(self, fn, warmup: int = 5, runs: int = 25) -> float:
        self.calls.append((warmup, runs))
        return self.ms


def _peers(ms: float) -> TorchPeers:
    peers = object.__new__(TorchPeers)  # no torch, no device: only what tflops_timer reads
    peers.stream, peers.timer = _Stream(), _Timer(ms)
    return peers


def test_row_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(7)
    ref = rng.standard_normal((4, 5))
    peers = _peers(2.5)
    row: dict[str, dict[str, float]] = {}
    key = "d=64 S=1024 causal"
    timed = peers.tflops_timer(row, f"{key:22}", key, 5e12, _Tensor(ref), 0.01, name_width=34, ms_width=9, warmup=2, runs=7)
    runs: list[int] = []
    timed("ours", lambda: runs.append(1), lambda: _Tensor(ref + 0.005))
    assert runs == [1] and peers.stream.syncs == 1 and peers.timer.calls == [(2, 7)]
    assert row["ours"]["ms"] == 2.5 and row["ours"]["TFLOP/s"] == pytest.approx(2000.0)
    assert row["ours"]["max_abs_err_vs_torch"] == pytest.approx(0.005)
    # the line bench/attention.py printed before the helper: f"  {key:22} {name:34} {ms:9.3f} ms {tflops:7.1f} TFLOP/s"
    assert capsys.readouterr().out == f"  {key:22} {'ours':34} {2.5:9.3f} ms {2000.0:7.1f} TFLOP/s\n"


def test_failed_run_is_printed_and_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    peers = _peers(1.0)
    row: dict[str, dict[str, float]] = {}
    dname, shape = "bf16", "512,512,512"
    timed = peers.tflops_timer(row, f"{dname} {shape:18}", f"{dname} {shape}", 1e9, _Tensor(np.ones(3)), 0.1, name_width=44, ms_width=8, warmup=3)

    def boom() -> None:
        raise RuntimeError("no kernel")

    timed("Tile mma 64x64", boom, lambda: _Tensor(np.ones(3)))
    assert row == {} and peers.timer.calls == []
    assert capsys.readouterr().out == f"  {dname} {shape:18} {'Tile mma 64x64':44} FAILED to run: RuntimeError: no kernel\n"


def test_wrong_result_exits() -> None:
    peers = _peers(1.0)
    timed = peers.tflops_timer({}, "x", "f16 64,64,64", 1e9, _Tensor(np.zeros(3)), 0.1, name_width=10, ms_width=8, warmup=3)
    with pytest.raises(SystemExit, match=r"ours: WRONG RESULT at f16 64,64,64: max \|ours - torch\| = 0.5 \(allowed 0.1\)"):
        timed("ours", lambda: None, lambda: _Tensor(np.array([0.0, 0.5, 0.0])))
