"""`@tile.autotune`: config validation (UsageError at the decorator), the simulator's first-config
rule, tuning with a fake timer (fastest wins, once per key, remembered in memory and on disk,
`WARPFORGE_PRINT_AUTOTUNING`), configs that fail skipped with a note, and on the GPU (`-m gpu`) real
CUDA-event timing."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, tile
from warpforge.errors import LaunchError, UsageError


def _scale_kernel():
    @tile.kernel
    def scale(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], K: wf.Constant[float]):
        z.store(tile.load_tile_like(x, z) * K)

    return scale


SCALE = _scale_kernel()
CONFIGS = [tile.Config(K=3.0, num_warps=4), tile.Config(K=5.0, num_warps=8), tile.Config(K=7.0, num_warps=2)]


@pytest.fixture
def sim(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.setenv("WARPFORGE_SIMULATE", "1")
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "cache"))
    dev = wf.Device(0)
    assert dev.simulated
    return dev.create_stream()


def _run(kernel, stream, n: int = 1000, tile_n: int = 256, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    out = kernel(wf.full((n,), np.nan, f32).partition((tile_n,)), wf.from_host(x)).first().unpartition().to_host().sync_on(stream)
    return out, x


class FakeTimer:
    """Milliseconds per config from a table; counts calls; runs the launch once (it must work)."""

    def __init__(self, ms: dict):
        self.ms, self.calls = ms, []

    def __call__(self, launch, config) -> float:
        self.calls.append(config)
        launch()
        return self.ms[config]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("configs", "key", "message"),
    [
        ([], ["x"], "configs is a non-empty list of tile.Config(...)"),
        ([{"K": 1.0}], ["x"], "configs are tile.Config(...) objects, got {'K': 1.0}"),
        ([tile.Config(Q=1)], ["x"], "tile.Config(Q=1): 'Q' is not a parameter of"),
        ([tile.Config(x=1)], ["x"], "tile.Config(x=1): 'x' is not a wf.Constant parameter of"),
        ([tile.Config(K=1.0), tile.Config(num_warps=4)], ["x"], "every config binds the same parameters"),
        ([tile.Config(K=1.0)], ["M"], "key 'M' is not an argument of the call (arguments: z, x)"),
        ([tile.Config(K=1.0)], ["K"], "key 'K' is not an argument of the call"),
        ([tile.Config(K=1.0)], "x", "key is a list of parameter names"),
    ],
)
def test_invalid_configs_are_refused_at_the_decorator(configs, key, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        tile.autotune(configs=configs, key=key)(SCALE)


def test_config_values_and_num_warps_are_checked() -> None:
    with pytest.raises(UsageError, match=re.escape("num_warps is a power of two from 1 to 32, got 3")):
        tile.Config(num_warps=3)
    with pytest.raises(UsageError, match=re.escape("BK=(16,) is not a compile-time number")):
        tile.Config(BK=(16,))
    with pytest.raises(UsageError, match="decorates a @tile.kernel"):
        tile.autotune(configs=CONFIGS, key=["x"])(lambda z: None)


def test_call_takes_the_arguments_the_configs_do_not_bind(sim) -> None:
    tuned = tile.autotune(configs=CONFIGS, key=["x"])(SCALE)
    with pytest.raises(LaunchError, match=re.escape("takes 2 argument(s) (z, x); the configs give K; got 3")):
        tuned(wf.zeros((8,), f32).partition((8,)), wf.zeros((8,), f32), 2.0)


# --------------------------------------------------------------------------- the simulator and fake timers


def test_simulator_uses_the_first_config_that_compiles(sim, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPFORGE_PRINT_AUTOTUNING", "1")
    broken = tile.Config(K=1, num_warps=4)  # K is a wf.Constant[float]: an int does not compile
    tuned = tile.autotune(configs=[broken, *CONFIGS], key=["x"])(SCALE)
    out, x = _run(tuned, sim)
    np.testing.assert_array_equal(out, x * np.float32(3.0))
    trials = next(iter(tuned.trials.values()))
    assert [t.config for t in trials] == [broken, CONFIGS[0]]
    assert trials[0].note.startswith("does not compile:") and "wf.Constant" in trials[0].note
    err = capsys.readouterr().err
    assert "autotuning " in err and "chose tile.Config(K=3.0, num_warps=4)" in err and "does not compile" in err


def test_fake_timer_picks_the_fastest_once_per_key(sim) -> None:
    timer = FakeTimer({CONFIGS[0]: 2.0, CONFIGS[1]: 0.5, CONFIGS[2]: 1.0})
    tuned = tile.autotune(configs=CONFIGS, key=["x"], timer=timer)(SCALE)
    out, x = _run(tuned, sim, seed=1)
    np.testing.assert_array_equal(out, x * np.float32(5.0))  # the fastest config ran
    assert timer.calls == CONFIGS
    out, x = _run(tuned, sim, seed=2)  # same key: no new timing
    np.testing.assert_array_equal(out, x * np.float32(5.0))
    assert len(timer.calls) == 3
    timer.ms[CONFIGS[2]] = 0.1
    out, x = _run(tuned, sim, n=2000, seed=3)  # a new shape of x: tuned again
    np.testing.assert_array_equal(out, x * np.float32(7.0))
    assert len(timer.calls) == 6
    assert len(tuned.trials) == 2


def test_the_choice_is_remembered_on_disk(sim) -> None:
    first = FakeTimer({CONFIGS[0]: 3.0, CONFIGS[1]: 2.0, CONFIGS[2]: 1.0})
    _run(tile.autotune(configs=CONFIGS, key=["x"], timer=first)(SCALE), sim)
    assert len(first.calls) == 3

    def must_not_time(launch, config):
        raise AssertionError("the disk cache should have answered")

    again = tile.autotune(configs=CONFIGS, key=["x"], timer=must_not_time)(_scale_kernel())  # a new process's objects
    out, x = _run(again, sim, seed=4)
    np.testing.assert_array_equal(out, x * np.float32(7.0))
    other = FakeTimer({c: 1.0 for c in CONFIGS})  # other configs: another entry
    _run(tile.autotune(configs=CONFIGS[:2], key=["x"], timer=other)(SCALE), sim)
    assert len(other.calls) == 2


def test_a_config_that_fails_to_run_is_skipped_and_all_failing_is_an_error(sim) -> None:
    def flaky(launch, config):
        if config.num_warps == 8:
            raise RuntimeError("too many resources requested for launch")
        return {4: 2.0, 2: 3.0}[config.num_warps]

    tuned = tile.autotune(configs=CONFIGS, key=["x"], timer=flaky)(SCALE)
    out, x = _run(tuned, sim)
    np.testing.assert_array_equal(out, x * np.float32(3.0))
    notes = [t.note for t in next(iter(tuned.trials.values()))]
    assert notes[1] == "does not run: RuntimeError: too many resources requested for launch"

    def broken(launch, config):
        raise RuntimeError("no")

    hopeless = tile.autotune(configs=CONFIGS[:2], key=["x"], timer=broken)(SCALE)
    with pytest.raises(LaunchError, match=re.escape("no autotuning config works for x: shape (1000,)")):
        _run(hopeless, sim)


# --------------------------------------------------------------------------- GPU


@pytest.mark.gpu
def test_autotune_times_every_config_with_cuda_events(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.delenv("WARPFORGE_SIMULATE", raising=False)
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "cache"))
    dev = wf.Device(0)
    stream = dev.create_stream()
    configs = [tile.Config(K=2.0, num_warps=w) for w in (1, 4, 8)]
    tuned = tile.autotune(configs=configs, key=["x"], rep=10)(SCALE)
    out, x = _run(tuned, stream, n=1 << 22, tile_n=1024, seed=9)
    np.testing.assert_array_equal(out, x * np.float32(2.0))
    trials = next(iter(tuned.trials.values()))
    assert [t.config for t in trials] == configs and all(t.ms is not None and t.ms > 0 for t in trials)
    assert tuned.best_config(wf.zeros((1 << 22,), f32).partition((1024,)), wf.zeros((1 << 22,), f32)) == min(trials, key=lambda t: t.ms).config
