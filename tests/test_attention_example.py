"""examples/attention.py: flash attention forward on the tensor cores — against a float64 NumPy
reference on fresh seeded random inputs with poisoned outputs, on the GPU (marked `gpu`: f16 and
bf16, head dims 64 and 128, causal and not, a sequence not a multiple of the tile) and on the
simulator (small sizes); bad input (an unsupported head dim, mismatched q/k/v shapes, a dtype
without an MMA, a rank other than 4, a partition of the wrong rank) is refused before anything runs;
the kernel's PTX passes ptxas without spills of the accumulator's loop."""

import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import attention as A  # noqa: E402

SEED = 1214


def _run(backend: Backend, dt, d: int, causal: bool, shape: tuple[int, int, int, int], salt: int) -> None:
    rng = np.random.default_rng(SEED + salt)
    q, k, v = (rng.standard_normal((*shape[:3], d)).astype(dt.np) for _ in range(3))
    o = wf.full((*shape[:3], d), np.nan, dt).partition((1, 1, A.CONFIGS[d][0], d))
    kern = A.make_attention(dt, d, causal) if (dt, d, causal) != (f16, 64, True) else A.attention_f16_d64_causal
    import math

    got = kern(o, wf.from_host(q), wf.from_host(k), wf.from_host(v), math.log2(math.e) / math.sqrt(d)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    A.check(f"{dt.name} d={d} causal={causal}", got, A.reference(q, k, v, causal), dt)


def test_f16_causal_d64_two_heads(backend: Backend) -> None:
    _run(backend, f16, 64, True, (1, 2, 80, 64), 0)  # 80: a full and a tail K tile; the diagonal masked


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_gpu_all_cases(name: str, d: int, causal: bool) -> None:
    dev = wf.Device(0)

    class _Gpu:
        device = dev

    _run(_Gpu(), {"f16": f16, "bf16": bf16}[name], d, causal, (2, 3, 333, d), d + causal)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- bad input


def _host(*shape: int, dt=np.float16) -> np.ndarray:
    return np.ones(shape, dtype=dt)


def test_unsupported_head_dim() -> None:
    with pytest.raises(wf.UsageError, match="head dim 96 is not supported"):
        A.attention(_host(1, 1, 64, 96), _host(1, 1, 64, 96), _host(1, 1, 64, 96))
    with pytest.raises(wf.UsageError, match="head dim 32 is not supported"):
        A.make_attention(f16, 32, False)


def test_mismatched_shapes() -> None:
    with pytest.raises(wf.UsageError, match=r"one shape .* got q \(1, 2, 64, 64\), k \(1, 2, 32, 64\)"):
        A.attention(_host(1, 2, 64, 64), _host(1, 2, 32, 64), _host(1, 2, 64, 64))


def test_rank_other_than_4() -> None:
    with pytest.raises(wf.UsageError, match="rank 4"):
        A.attention(_host(64, 64), _host(64, 64), _host(64, 64))


def test_dtype_without_mma() -> None:
    with pytest.raises(wf.UsageError, match="no tensor-core MMA"):
        A.make_attention(f32, 64, False)


def test_partition_of_the_wrong_rank() -> None:
    with pytest.raises(wf.WarpforgeError, match=r"does not fit the 4-D tensor .* one tile extent per dimension"):
        wf.empty((1, 2, 64, 64), f16).partition((64, 64))


def test_kernel_refuses_k_with_another_head_dim() -> None:
    # the kernel itself (not the wrapper): k's last axis is fixed to d by its annotation
    with pytest.raises(wf.WarpforgeError):
        A.attention_f16_d64_causal(
            wf.empty((1, 1, 64, 64), f16).partition((1, 1, 64, 64)), wf.from_host(_host(1, 1, 64, 64)), wf.from_host(_host(1, 1, 64, 128)), wf.from_host(_host(1, 1, 64, 64)), 1.0
        ).first().to_host().sync()


def test_ptx_passes_ptxas() -> None:
    import re

    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = A.attention_f16_d64_causal.ir("ptx")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx and "cp.async.cg.shared.global" in ptx and ".extern .func" not in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx  # Q and K (K^T read as stored)
    if find_ptxas() is not None:
        report = run_ptxas(ptx, "sm_90", verbose=True)
        assert re.search(r"Used \d+ registers", report.log), report.log


def test_bf16_non_causal_d128_on_the_simulator() -> None:
    class _Sim:
        device = wf.Device.simulator()

    _run(_Sim(), bf16, 128, False, (1, 1, 40, 128), 5)  # 40 keys: one full K tile of 32 and a tail


def test_row_statistics_and_output_stay_in_registers() -> None:
    """The d=128 kernel over 128-row tiles (8 warps): the row max / sum are quad shuffles (no shared
    scratch, one barrier per K step: the ring's), the (1, 1, 128, 128) output is stored from the
    accumulator registers (it took 32 KiB of f16 scratch: 67,648 bytes of static shared memory with
    the Q tile, over the 48 KiB a CTA has); the PTX passes ptxas for sm_90a with no spills."""
    import re

    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    kern = A.make_attention(f16, 128, False, 128, 64, 8, 2)
    specs = (tile.spec(f16, (2, 2, 1000, 128), partition=(1, 1, 128, 128)), *(tile.spec(f16, (2, 2, 1000, 128)) for _ in range(3)), tile.spec(f32))
    ptx = kern.ir("ptx", *specs, chip="sm_90a")
    assert not re.search(r"__tile_smem_\w+_f(16|32)\[", ptx), "a scratch buffer of the row statistics or the output"
    assert ptx.count("shfl.sync.bfly.b32") == 2 * 2 * 2 * 2  # 2 loops x 2 reductions x 2 rows per thread x xor 1, 2
    shared = sum(int(n) for n in re.findall(r"^\s*\.shared \.align \d+ \.b8 \w+\[(\d+)\];", ptx, re.M))
    assert shared == 128 * (128 + 8) * 2 + 64, shared  # the padded Q tile, and the i1 scratch of the tail's key mask
    if find_ptxas() is not None:
        report = run_ptxas(ptx, "sm_90a", verbose=True)
        assert re.search(r"\b0 bytes spill stores", report.log), report.log
