"""The chip table (`warpforge.backend.chips`): it matches LLVM 22's NVPTX backend, every chip compiles
and (where the installed ptxas knows it) assembles, and unknown chips, malformed features and PTX
versions too old for the chip are refused with a `TargetError` from every entry point, never an abort."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import warpforge as wf
from warpforge import f32, simt, tile
from warpforge.backend.chips import (
    CHIPS,
    PTX_VERSIONS,
    cuda_max_ptx,
    ptxas_chips,
    ptxas_version,
    resolve_target,
)
from warpforge.backend.toolkit import find_ptxas, run_ptxas

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@simt.kernel
def scale(alpha: f32, x: simt.Slice[f32], out: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    if idx.get() < len(x):
        out[idx] = alpha * x[idx.get()]


@tile.kernel
def add_one(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + 1.0)


add_one.ahead_of_time(tile.spec(f32, (512,), partition=(128,)), tile.spec(f32, (512,)))

_PROBE = r"""
import json, sys
import llvmlite.binding as llvm
llvm.initialize_all_targets(); llvm.initialize_all_asmprinters()
target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
module = 'target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() { ret void }\n'
out = {}
for cpu, features in json.loads(sys.argv[1]):
    ptx = target.create_target_machine(cpu=cpu, features=features, opt=0).emit_assembly(llvm.parse_assembly(module))
    out[cpu + features] = [l.split()[1] for l in ptx.splitlines() if l.startswith(".version")][0]
print(json.dumps(out))
"""


def _probe(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """What LLVM's NVPTX backend writes as `.version` for each (cpu, features), in a child process."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(pairs)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_minimum_ptx_versions_are_llvms() -> None:
    # without features LLVM picks the chip's minimum PTX version: the table must say the same
    got = _probe([(name, "") for name in CHIPS])
    for name, row in CHIPS.items():
        assert got[name] == f"{row.min_ptx // 10}.{row.min_ptx % 10}", name


def test_known_ptx_versions_are_llvms() -> None:
    # LLVM ignores an unknown +ptxNN (with a warning) and falls back to sm_50's PTX 4.0
    versions = range(41, 100)
    got = _probe([("sm_50", f"+ptx{v}") for v in versions])
    recognized = {v for v in versions if got[f"sm_50+ptx{v}"] == f"{v // 10}.{v % 10}"}
    assert recognized == {v for v in PTX_VERSIONS if v >= 41}


def test_default_ptx_follows_the_chip() -> None:
    assert resolve_target("sm_90").features == "+ptx80"
    assert resolve_target("sm_90a").features == "+ptx80"
    assert resolve_target("sm_80").features == "+ptx80"  # at least PTX 8.0
    assert resolve_target("sm_100").features == "+ptx86"
    assert resolve_target("sm_100f").features == "+ptx88"
    assert resolve_target("sm_120").features == "+ptx87"
    assert resolve_target("sm_88").features == "+ptx90"
    assert resolve_target("sm_100", "+ptx90").features == "+ptx90"
    assert resolve_target("sm_52", "+ptx41").features == "+ptx41"
    assert resolve_target("sm_90a").chip.suffix == "a" and resolve_target("sm_90a").chip.name == "sm_90a"


def test_cuda_release_to_ptx_version() -> None:
    assert cuda_max_ptx(13, 0) == 90
    assert cuda_max_ptx(12, 8) == 87
    assert cuda_max_ptx(12, 0) == 80
    assert cuda_max_ptx(11, 8) == 78
    assert cuda_max_ptx(14, 2) == 90  # newer than the table: at least the newest known
    assert cuda_max_ptx(8, 0) == 0


def test_ptxas_chips_are_read_from_ptxas() -> None:
    if find_ptxas() is None:
        pytest.skip("ptxas not installed")
    chips = ptxas_chips()
    assert "sm_90" in chips and "sm_90a" in chips
    assert set(chips) <= set(CHIPS)
    release = ptxas_version()
    assert release is not None
    if release >= (13, 0):  # CUDA 13 dropped Maxwell, Pascal and Volta
        assert "sm_70" not in chips and "sm_75" in chips and "sm_100" in chips


@pytest.mark.parametrize("name", list(CHIPS))
def test_every_chip_compiles_and_ptxas_assembles_it(name: str) -> None:
    row = CHIPS[name]
    ptx = scale.compile(name).ptx
    assert f"\n.target {name}\n" in ptx
    assert f"\n.version {row.default_ptx // 10}.{row.default_ptx % 10}\n" in ptx
    assert ".visible .entry" in ptx and ".extern .func" not in ptx
    if name in ptxas_chips():
        run_ptxas(ptx, name, verbose=False)


@pytest.mark.parametrize("name", ["sm_75", "sm_80", "sm_90a", "sm_100", "sm_100f", "sm_120a"])
def test_tile_kernels_compile_for_each_generation(name: str) -> None:
    kernels = add_one.compile(name).kernels
    for compiled in kernels:
        assert f"\n.target {name}\n" in compiled.kernel.ptx
        if name in ptxas_chips():
            run_ptxas(compiled.kernel.ptx, name, verbose=False)


def test_an_explicit_newer_ptx_version_is_used() -> None:
    ptx = scale.compile("sm_90", features="+ptx86").ptx
    assert "\n.version 8.6\n" in ptx
    if "sm_90" in ptxas_chips():
        run_ptxas(ptx, "sm_90", verbose=False)


BAD_TARGETS = [
    ("sm_999", "", "unknown chip 'sm_999'"),
    ("gfx90a", "", "an AMD GPU"),
    ("", "", "unknown chip ''"),
    ("sm_10", "", "unknown chip 'sm_10'"),
    ("sm90", "", "did you mean 'sm_90'"),
    ("sm_90", "ptx80", "a feature starts with '+'"),
    ("sm_90", '"', "malformed features"),
    ("sm_90", "+ptx80,+ptx86", "malformed features"),
    ("sm_90", "+ptx91", "unknown PTX ISA version"),
    ("sm_90", "+ptx60", "PTX 6.0 (features '+ptx60') cannot target sm_90: it needs PTX 7.8"),
    ("sm_100", "+ptx80", "cannot target sm_100: it needs PTX 8.6"),
    ("sm_100f", "+ptx70", "cannot target sm_100f: it needs PTX 8.8"),
    ("sm_120a", "+ptx86", "cannot target sm_120a: it needs PTX 8.7"),
]


@pytest.mark.parametrize(("chip", "features", "message"), BAD_TARGETS)
def test_bad_targets_are_refused_by_the_api(chip: str, features: str, message: str) -> None:
    with pytest.raises(wf.TargetError, match=_re(message)):
        resolve_target(chip, features)
    with pytest.raises(wf.TargetError, match=_re(message)):
        scale.compile(chip, features=features)
    with pytest.raises(wf.TargetError, match=_re(message)):
        scale.ir("ptx", chip=chip, features=features)
    with pytest.raises(wf.TargetError, match=_re(message)):
        add_one.compile(chip, features=features)
    with pytest.raises(wf.TargetError, match=_re(message)):
        add_one.ir("ptx", chip=chip, features=features)
    with pytest.raises(wf.TargetError, match=_re(message)):
        add_one.ir("gpu", chip=chip, features=features)
    assert issubclass(wf.TargetError, wf.CompileError) and issubclass(wf.TargetError, wf.WarpforgeError)


def _re(text: str) -> str:
    import re

    return re.escape(text)


def _no_abort(proc: subprocess.CompletedProcess[str], message: str) -> None:
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1, f"exit status {proc.returncode}: {text}"  # not 134 (abort) or a signal
    assert message in proc.stderr, text
    assert "LLVM ERROR" not in text and "Assertion" not in text and "Traceback" not in text, text


@pytest.mark.parametrize(("chip", "features", "message"), BAD_TARGETS)
def test_bad_targets_never_abort_warpforge_compile(chip: str, features: str, message: str) -> None:
    proc = subprocess.run(
        [str(BIN / "warpforge"), "compile", "examples/vecadd.py", "--chip", chip, "--features", features],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    _no_abort(proc, message)


@pytest.fixture(scope="module")
def llvm_dialect_ir() -> str:
    return scale.ir("llvm")


@pytest.mark.parametrize(("chip", "features", "message"), [t for t in BAD_TARGETS if t[0] and '"' not in t[1]])
def test_bad_targets_never_abort_warpforge_opt(llvm_dialect_ir: str, chip: str, features: str, message: str) -> None:
    spec = f'ptx{{chip={chip} features="{features}"}}' if features else f"ptx{{chip={chip}}}"
    proc = subprocess.run([str(BIN / "warpforge-opt"), "-t", spec], input=llvm_dialect_ir, capture_output=True, text=True, timeout=300)
    _no_abort(proc, message)
    kernel_ir = scale.ir("kernel")
    spec = f'kernel-to-gpu{{chip={chip} features="{features}"}}' if features else f"kernel-to-gpu{{chip={chip}}}"
    proc = subprocess.run(
        [str(BIN / "warpforge-opt"), "-p", f"lower-kernel-control-flow,{spec}"], input=kernel_ir, capture_output=True, text=True, timeout=300
    )
    _no_abort(proc, message)


@simt.kernel
def _warp_total(a: simt.Slice[wf.i32], c: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    c[idx] = simt.warp_sum(a[idx.get()])


@simt.kernel
def _one_mma(c: simt.DisjointSlice[f32]):
    a = simt.mma_fragment("a", wf.f16, fill=1)
    b = simt.mma_fragment("b", wf.f16, fill=1)
    acc = simt.mma_sync(a, b, simt.mma_fragment("c", f32))
    c[simt.index_1d()] = acc[0]


@pytest.mark.parametrize(
    ("kernel", "chip", "message"),
    [
        (_warp_total, "sm_75", "'nvvm.redux.sync.add' (llvm.nvvm.redux.sync.add) needs sm_80 and PTX 7.0, but the code is being compiled for sm_75"),
        (_one_mma, "sm_75", "needs sm_80"),
        (_warp_total, "sm_80", None),
    ],
)
def test_llvm_ir_for_a_newer_chip_is_refused_not_aborted(kernel: simt.SimtKernel, chip: str, message: str | None) -> None:
    # LLVM IR built for sm_90 (redux.sync, mma.sync) emitted for an older chip with -t ptx{chip=...}: the
    # NVPTX backend aborts the process ("LLVM ERROR: Cannot select: intrinsic") unless it is refused first
    ir = kernel.ir("llvm")
    proc = subprocess.run([str(BIN / "warpforge-opt"), "-t", f"ptx{{chip={chip}}}"], input=ir, capture_output=True, text=True, timeout=300)
    if message is None:
        assert proc.returncode == 0, proc.stderr
        run_ptxas(proc.stdout, chip, verbose=False)
    else:
        _no_abort(proc, message)
        assert "'gpu.module' op cannot emit" in proc.stderr, proc.stderr


@pytest.mark.parametrize(("chip", "features", "message"), [t for t in BAD_TARGETS if t[0] in CHIPS and t[1].startswith("+ptx") and "," not in t[1]])
def test_bad_module_targets_are_refused_at_the_gpu_module(llvm_dialect_ir: str, chip: str, features: str, message: str) -> None:
    # the chip/PTX pair read back from the module's #nvvm.target (not given on the command line): refused
    # before LLVM, located at the gpu.module that carries it
    import re

    text = re.sub(r"#nvvm\.target<[^>]*>", f'#nvvm.target<chip = "{chip}", features = "{features}">', llvm_dialect_ir)
    assert f'chip = "{chip}"' in text
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "gpu.module" in t)
    proc = subprocess.run([str(BIN / "warpforge-opt"), "-t", "ptx"], input=text, capture_output=True, text=True, timeout=300)
    _no_abort(proc, message)
    assert re.match(rf"<stdin>:{line}:\d+: error: 'gpu.module' op cannot emit -t ptx: ", proc.stderr), proc.stderr


@pytest.mark.parametrize(("chip", "features"), [("sm_100f", "+ptx70"), ("sm_10", ""), ("sm_90", "+ptx60")])
def test_bad_target_options_are_refused_at_the_option(llvm_dialect_ir: str, chip: str, features: str) -> None:
    # -t 'ptx{chip=... features=...}': a diagnostic in the target spec (column of the option), as for pipelines
    spec = f'ptx{{chip={chip} features="{features}"}}' if features else f"ptx{{chip={chip}}}"
    proc = subprocess.run([str(BIN / "warpforge-opt"), "-t", spec], input=llvm_dialect_ir, capture_output=True, text=True, timeout=300)
    option = "features" if features else "chip"
    _no_abort(proc, "error:")
    assert proc.stderr.startswith(f"target:1:{spec.index(option + '=') + 1}: error: "), proc.stderr


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("compile_ptx(ll, NVPTXOptions('sm_100', '+ptx80'))", "cannot target sm_100"),
        ("compile_ptx(ll, NVPTXOptions('sm_90', 'ptx80'))", "a feature starts with '+'"),
        ("target_machine('sm_100f', '+ptx70', 3)", "cannot target sm_100f"),
        ("target_machine('sm_90', '\"', 3)", "malformed features"),
        ("compile_ptx(ll, NVPTXOptions('sm_90', '', opt_level=7))", "optimization level"),
    ],
)
def test_the_backend_refuses_what_llvm_would_abort_on(code: str, message: str) -> None:
    # the last line of defence: the NVPTX backend's own entry points, in a child process so an abort shows
    script = (
        "from warpforge.backend.nvptx import NVPTXOptions, compile_ptx, target_machine\n"
        "from warpforge.errors import TargetError\n"
        "ll = 'target triple = \"nvptx64-nvidia-cuda\"\\ndefine ptx_kernel void @k() { ret void }\\n'\n"
        f"try:\n    {code}\nexcept TargetError as e:\n    print(e)\n    raise SystemExit(3)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert message in proc.stdout


def test_explicit_chip_without_features_takes_that_chips_default(llvm_dialect_ir: str) -> None:
    # the module says sm_90/+ptx80; -t 'ptx{chip=sm_100}' must not combine sm_100 with PTX 8.0
    assert 'features = "+ptx80"' in llvm_dialect_ir or "nvvm.target" not in llvm_dialect_ir
    proc = subprocess.run([str(BIN / "warpforge-opt"), "-t", "ptx{chip=sm_100}"], input=llvm_dialect_ir, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "\n.target sm_100\n" in proc.stdout and "\n.version 8.6\n" in proc.stdout
    if "sm_100" in ptxas_chips():
        run_ptxas(proc.stdout, "sm_100", verbose=False)


def test_a_driver_too_old_for_the_ptx_version_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge.backend import chips
    from warpforge.runtime import module

    monkeypatch.setattr(chips, "driver_version", lambda: (12, 4))
    monkeypatch.setattr(chips, "driver_max_ptx", lambda: 84)
    hint = module._ptx_version_hint(".version 8.6\n.target sm_100\n")
    assert "the PTX is version 8.6" in hint and "(CUDA 12.4) accepts PTX up to 8.4" in hint and "'+ptx84'" in hint


@pytest.mark.gpu
def test_doctor_on_a_gpu_lists_what_the_driver_accepts() -> None:
    from warpforge.runtime import Device

    chip = Device(0).chip
    proc = subprocess.run([str(BIN / "warpforge"), "doctor"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "JIT-compiles PTX up to" in proc.stdout and f"({chip})" in proc.stdout
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line.startswith("  sm_")}
    assert rows[chip][-1] == "driver", rows[chip]


@pytest.mark.gpu
def test_the_devices_chip_compiles_and_runs_with_its_default_ptx_version() -> None:
    import numpy as np

    from warpforge.runtime import Device, DeviceBuffer

    dev = Device(0)
    stream = dev.create_stream()
    compiled = scale.compile(dev.chip)
    assert f"\n.target {dev.chip}\n" in compiled.ptx
    rng = np.random.default_rng(8)
    host = rng.standard_normal(1000).astype(np.float32)
    x = DeviceBuffer.from_host(stream, host)
    out = DeviceBuffer.from_host(stream, np.full(1000, np.nan, np.float32))
    scale[4, 256, stream](np.float32(1.5), x, out)
    np.testing.assert_array_equal(out.to_host(stream), np.float32(1.5) * host)


def test_every_accepted_pair_is_one_llvm_accepts() -> None:
    # the refusal boundary is exactly LLVM's: every (chip, PTX version) the table accepts compiles in
    # one child process (an abort there would fail it) with that .version and .target
    pairs = [(name, f"+ptx{v}") for name in CHIPS for v in PTX_VERSIONS if v >= CHIPS[name].min_ptx]
    got = _probe(pairs)
    assert all(got[c + f] == f"{f[4]}.{f[5]}" for c, f in pairs)


@pytest.mark.parametrize("name", sorted({row.min_ptx: name for name, row in CHIPS.items() if row.min_ptx > 32}.values()))
def test_every_refused_pair_is_one_llvm_would_abort_on(name: str) -> None:
    # the refusal is needed, not over-cautious: one version below the minimum ends an LLVM process
    below = max(v for v in PTX_VERSIONS if v < CHIPS[name].min_ptx)
    with pytest.raises(wf.TargetError, match="cannot target"):
        resolve_target(name, f"+ptx{below}")
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps([(name, f"+ptx{below}")])], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "LLVM ERROR" in proc.stderr and "does not support target" in proc.stderr, proc.stderr


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.one_of(st.sampled_from(list(CHIPS)), st.text(max_size=12)),
    st.one_of(st.sampled_from(["", *(f"+ptx{v}" for v in range(10, 100))]), st.text(max_size=12)),
)
def test_any_chip_and_feature_text_is_a_target_or_a_target_error(chip: str, features: str) -> None:
    try:
        target = resolve_target(chip, features)
    except wf.TargetError as e:
        assert str(e)
        return
    assert target.chip.name == chip and target.ptx in PTX_VERSIONS and target.ptx >= target.chip.min_ptx


def test_sm_90a_llvm_ir_for_plain_sm_90_is_refused_not_aborted() -> None:
    # wgmma.fence/commit/wait exist only on sm_90a: LLVM aborts on them for sm_90 ("Cannot select")
    proc = subprocess.run(
        [str(BIN / "warpforge-opt"), str(ROOT / "tests" / "hopper_wgmma_kernel.mlir"), "-p", "gpu-to-llvm", "-t", "ptx{chip=sm_90}"],
        capture_output=True, text=True, timeout=300,
    )
    _no_abort(proc, "needs sm_90a and PTX 8.0, but the code is being compiled for sm_90")
