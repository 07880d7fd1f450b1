"""LLVM IR → PTX with llvmlite's NVPTX target (LLVM 22).

`compile_ptx` parses and verifies the module, links libdevice only when a `__nv_*` function is called
(then internalizes everything but the kernels, so the ~570 unused libdevice functions vanish), runs
the O3 pipeline and emits PTX. The PTX ISA version follows `features` (`+ptx80` = PTX 8.0); without it
the chip's default from `warpforge.backend.chips` (sm_90 → 8.0, sm_100 → 8.6), always passed to LLVM
explicitly. The H200's CUDA 13.0 driver accepts up to PTX 9.0.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass

import llvmlite.binding as llvm

from warpforge.backend.toolkit import find_libdevice
from warpforge.errors import WarpforgeError

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"

_lock = threading.Lock()


class LoopNotUnrolled(Exception):
    """Internal: a loop marked `llvm.loop.unroll.full` (a `simt.static_range`) is still a loop after
    O3 (LLVM's unroller declined: too big), so local arrays it indexes would stay in local memory;
    the compile driver compiles the kernel again with the frontend unrolling it."""


class CodegenError(WarpforgeError):
    """LLVM rejected the module (verifier or parser), or libdevice is needed and missing."""


@functools.cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@dataclass(frozen=True)
class NVPTXOptions:
    """Code generation options. `chip` is a chip of `warpforge.backend.chips.CHIPS` (`sm_90`,
    `sm_90a`, `sm_100` …); `features` a `+ptxNN` PTX ISA version, `""` for the chip's default.

    Checked on construction against the chip table (`TargetError` for an unknown chip, malformed
    features, a PTX version too old for the chip, an optimization level outside 0–3), and `features`
    is made explicit, so LLVM never sees an input it would abort on or quietly reinterpret.
    """

    chip: str = "sm_90"
    features: str = ""
    opt_level: int = 3
    ftz: bool = False
    """Flush f32 denormals to zero in libdevice (NVVMReflect `__CUDA_FTZ`); set by fast-math."""
    require_unrolled: bool = False
    """Raise `LoopNotUnrolled` when a loop marked `llvm.loop.unroll.full` survives O3 (the SIMT
    compile driver then has the frontend unroll it)."""

    def __post_init__(self) -> None:
        from warpforge.backend.chips import check_opt_level, resolve_target

        check_opt_level(self.opt_level)
        object.__setattr__(self, "features", resolve_target(self.chip, self.features).features)


@functools.cache
def target_machine(chip: str, features: str, opt_level: int) -> llvm.TargetMachine:
    """The NVPTX `TargetMachine` for `chip`/`features` (cached); `TargetError` for a pair the chip
    table refuses (checked here too: LLVM aborts the process on some of them)."""
    from warpforge.backend.chips import check_opt_level, resolve_target

    features = resolve_target(chip, features).features
    check_opt_level(opt_level)
    _initialize()
    target = llvm.Target.from_triple(NVPTX_TRIPLE)
    return target.create_target_machine(cpu=chip, features=features, opt=opt_level, reloc="default", codemodel="default")


@functools.cache
def _libdevice_bitcode() -> bytes:
    path = find_libdevice()
    if path is None:
        raise CodegenError(
            "libdevice (libdevice.10.bc) not found, and a kernel calls a libdevice function: "
            "install the CUDA toolkit or `pip install nvidia-nvvm==13.0.*`"
        )
    with open(path, "rb") as f:
        return f.read()


_FTZ_ATTR = '"denormal-fp-math-f32"="preserve-sign'
"""The function attribute of fast-math kernels (set by the exporter from `llvm.denormal_fp_math_f32`)."""

_NV_CALL = re.compile(r"declare [^\n]*@\"?__nv_\w+")
_DEFINE = re.compile(r'define [^\n]*?ptx_kernel[^\n]*?@"?([\w.$]+)"?\(')


def kernel_names(llvm_ir: str) -> list[str]:
    """Names of the `ptx_kernel` functions defined in `llvm_ir`."""
    return _DEFINE.findall(llvm_ir)


_UNROLL_FULL = '!"llvm.loop.unroll.full"'
"""The loop metadata `warpforge.backend.export` gives a `simt.static_range` loop's latch branch."""

_STATIC_LOOP = '!"warpforge.static_range"'
"""The property `warpforge.backend.export` adds to those loop IDs; LLVM leaves it on a loop it kept."""


DROP_UNUSED_LIBDEVICE = True
"""Run LLVM's GlobalDCE before O3 when libdevice is linked: its ~570 functions, internal by then and
nearly all unused, are dropped first instead of O3 inferring attributes of and simplifying each before
its own GlobalDCE removes them (a kernel calling `expf`: 0.12 -> 0.065 s of LLVM here). The PTX is the
same (docs/compile-time.md, round 6; `tests/test_compile_speed.py` compiles with and without it)."""


def optimize_and_link(llvm_ir: str, options: NVPTXOptions = NVPTXOptions()) -> llvm.ModuleRef:
    """Parse, verify, link libdevice if used, internalize non-kernels and run the O`opt_level` pipeline."""
    _initialize()
    with _lock:  # LLVM contexts are not safe to share across threads in llvmlite
        try:
            mod = llvm.parse_assembly(llvm_ir)
            mod.verify()
        except RuntimeError as e:
            raise CodegenError(f"LLVM rejected the generated IR:\n{e}") from None
        tm = target_machine(options.chip, options.features, options.opt_level)
        linked = _NV_CALL.search(llvm_ir) is not None
        if linked:
            libdevice = llvm.parse_bitcode(_libdevice_bitcode())
            libdevice.triple = mod.triple
            libdevice.data_layout = mod.data_layout
            mod.link_in(libdevice)
        if options.ftz or _NV_CALL.search(llvm_ir):
            _set_reflect_ftz(mod, options.ftz)
        kernels = set(kernel_names(llvm_ir))
        for fn in mod.functions:
            if not fn.is_declaration and fn.name not in kernels:
                fn.linkage = llvm.Linkage.internal
        for gv in mod.global_variables:
            if not gv.is_declaration:
                gv.linkage = llvm.Linkage.internal
        if options.opt_level > 0:
            pto = llvm.create_pipeline_tuning_options(speed_level=options.opt_level)
            pb = llvm.create_pass_builder(tm, pto)
            if linked and DROP_UNUSED_LIBDEVICE:
                dce = llvm.create_new_module_pass_manager()
                dce.add_global_dead_code_eliminate_pass()
                dce.run(mod, pb)
            if _UNROLL_FULL in llvm_ir:
                # loops marked `llvm.loop.unroll.full` (simt.static_range) are unrolled first, before
                # InstCombine rewrites `base + i` into forms (`xor`, `or`) in which the load/store
                # vectorizer no longer sees consecutive addresses once `i` is a constant
                pre = llvm.create_new_module_pass_manager()
                pre.add_loop_rotate_pass()
                pre.add_loop_unroll_pass()
                pre.run(mod, pb)
            pm = pb.getModulePassManager()
            pm.run(mod, pb)
            if options.require_unrolled and _STATIC_LOOP in llvm_ir and _STATIC_LOOP in str(mod):  # a static_range loop is left
                raise LoopNotUnrolled()
        return mod


def _set_reflect_ftz(mod: llvm.ModuleRef, ftz: bool) -> None:
    # NVVMReflect reads the module flag "nvvm-reflect-ftz"; a parsed flag module is linked in.
    flag = llvm.parse_assembly(
        f'target triple = "{mod.triple}"\ntarget datalayout = "{mod.data_layout}"\n'
        f'!llvm.module.flags = !{{!0}}\n!0 = !{{i32 4, !"nvvm-reflect-ftz", i32 {int(ftz)}}}\n'
    )
    mod.link_in(flag)


_NVVM_DECLARE = re.compile(r"declare [^\n]*@\"?(llvm\.nvvm\.[\w.]+)\"?\(")
_WGMMA_ASM = re.compile(r'asm [^\n]*"wgmma\.mma_async')


@functools.cache
def _intrinsic_specs() -> dict[str, object]:
    from warpforge.dialects.nvvm_catalog import CATALOG

    return {row.intrinsic: row for row in CATALOG.values() if row.intrinsic}


def check_intrinsics(llvm_ir: str, options: NVPTXOptions) -> None:
    """Raise `CodegenError` when `llvm_ir` calls an NVVM intrinsic (or holds `wgmma.mma_async` inline
    PTX) that `options.chip`/`features` lacks, per the `nvvm` catalog's `min_sm`/`min_ptx`/`arch_specific`.

    `check-nvvm-target` refuses such ops on the `gpu.module`'s own target; this catches LLVM IR
    compiled for another chip than it was built for (`warpforge-opt -t 'ptx{chip=sm_75}'` on an sm_90
    module), on which LLVM's NVPTX backend would abort the process (`LLVM ERROR: Cannot select`)."""
    from warpforge.backend.chips import resolve_target
    from warpforge.dialects.nvvm_catalog import WGMMA_SPEC, IntrinsicSpec

    target = resolve_target(options.chip, options.features)
    specs = _intrinsic_specs()
    needed: list[tuple[str, IntrinsicSpec]] = [(name, specs[name]) for name in _NVVM_DECLARE.findall(llvm_ir) if name in specs]  # pyright: ignore[reportAssignmentType]
    if _WGMMA_ASM.search(llvm_ir):
        needed.append(("wgmma.mma_async (inline PTX)", WGMMA_SPEC))
    for name, spec in needed:
        arch_ok = not spec.arch_specific or (target.chip.suffix == "a" and target.chip.sm == spec.min_sm)
        if spec.min_sm > target.chip.sm or spec.min_ptx > target.ptx or not arch_ok:
            raise CodegenError(
                f"'{spec.op}' ({name}) needs {spec.sm} and PTX {spec.ptx_version}, but the code is being "
                f"compiled for {target.chip.name} (PTX {target.ptx // 10}.{target.ptx % 10}); compile the module "
                f"for that chip from an earlier stage (its `#nvvm.target`, `kernel-to-gpu{{chip=...}}`)"
            )


def compile_ptx(llvm_ir: str, options: NVPTXOptions = NVPTXOptions()) -> str:
    """Compile LLVM IR text for `nvptx64-nvidia-cuda` to PTX text.

    Raises `CodegenError` when LLVM rejects the IR, libdevice is needed but not installed, or the IR
    calls an NVVM intrinsic the chip lacks (`check_intrinsics`, before LLVM could abort on it).
    """
    check_intrinsics(llvm_ir, options)
    if not options.ftz and _FTZ_ATTR in llvm_ir:  # a fast-math kernel flushes libdevice's denormals too
        options = NVPTXOptions(options.chip, options.features, options.opt_level, ftz=True, require_unrolled=options.require_unrolled)  # checked again
    mod = optimize_and_link(llvm_ir, options)
    tm = target_machine(options.chip, options.features, options.opt_level)
    with _lock:
        return tm.emit_assembly(mod)


def ptx_version(features: str) -> str | None:
    """`+ptx80` → `8.0`; None when `features` names no PTX version."""
    m = re.search(r"\+ptx(\d)(\d+)", features)
    return f"{m.group(1)}.{m.group(2)}" if m else None
