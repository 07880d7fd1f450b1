"""`@tile.kernel` function → `kernel`-dialect module (with `tile` values), for one specialization.

`TileFunctionCompiler` is the SIMT `FunctionCompiler` with the tile mixins in front: expressions on
tiles (NumPy broadcasting, NEP 50 types), the `tile.*` functions and tensor methods. Tiles are
`Scalar`s whose dtype is a `TileDType`, so assignments, `if` merges and loop-carried variables (the
SIMT statement code) handle them unchanged.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DictionaryAttr, DenseArrayBase, FunctionType, IntegerAttr, ModuleOp, UnitAttr, i1, i32, i64
from xdsl.ir import Attribute, Block, Region

from warpforge.dialects import kernel
from warpforge.dialects.kernel_tile import PartitionType, TensorType
from warpforge.errors import CompileError
from warpforge.frontend.builder import SourceInfo
from warpforge.frontend.device import Unit
from warpforge.frontend.compiler import FunctionCompiler, _globals_of, get_source, symbol_name
from warpforge.frontend.tile.calls import TileCallMixin
from warpforge.frontend.tile.device import TileDeviceMixin
from warpforge.frontend.tile.dot import TileDotMixin
from warpforge.frontend.tile.expressions import TileExpressionMixin
from warpforge.frontend.tile.scans import TileScanMixin
from warpforge.frontend.tile.values import TensorValue
from warpforge.frontend.values import Literal, Scalar


class TileFunctionCompiler(TileDeviceMixin, TileScanMixin, TileDotMixin, TileCallMixin, TileExpressionMixin, FunctionCompiler):
    """Walks a tile kernel's AST and builds its `kernel.func` (tile mixins first, then the SIMT ones)."""


@dataclass(frozen=True)
class TileKernelIR:
    """The frontend's output for one specialization: the module (one `kernel.func`), the symbol, the
    launch parameters (constants excluded), `load_tile_like` pairs (input name, partition name) whose
    shapes must line up, and the largest tile's number of elements."""

    module: ModuleOp
    symbol: str
    params: tuple[Any, ...]
    like_pairs: tuple[tuple[str, str], ...]
    max_tile: int
    source: SourceInfo


def compile_tile_kernel(fn: Any, spec: Any, *, num_warps: int | None = None, checks: bool = True, symbol: str | None = None, num_stages: int | None = None, min_blocks_per_sm: int | None = None) -> TileKernelIR:
    """Compile `fn` for `spec` (a `warpforge.tile_compile.Specialization`) into a `kernel` module.

    Raises `CompileError` (file:line:col, source line, caret) for anything unsupported.
    """
    fdef, source = get_source(fn)
    compiler = TileFunctionCompiler(source=source, globals=_globals_of(fn))
    compiler.like_pairs = []
    compiler.max_tile = 1
    compiler.unit = Unit()  # the @simt.device functions it calls, compiled once per signature
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        compiler.error(fdef, "kernel parameters must be plain positional parameters (no defaults, *args, **kwargs)")
    if len(args.args) != len(spec.params):
        compiler.error(fdef, f"the kernel takes {len(args.args)} parameters, got {len(spec.params)} arguments")
    if fdef.returns is not None and not (isinstance(fdef.returns, ast.Constant) and fdef.returns.value is None):
        compiler.error(fdef.returns, "a tile kernel returns nothing; store results into a partitioned tensor (z.store(t))")

    launch_params = [p for p in spec.params if p.kind != "constant"]
    input_types = [_param_type(p) for p in launch_params]
    block = Block(arg_types=input_types)
    block_args = iter(block.args)
    arg_info: list[DictionaryAttr] = []
    for a, p in zip(args.args, spec.params):
        if p.kind == "constant":
            compiler.vars[a.arg] = Literal(p.value)
            continue
        arg = next(block_args)
        arg.name_hint = a.arg
        if p.kind == "scalar":
            compiler.vars[a.arg] = Scalar(arg, p.dtype)
            arg_info.append(DictionaryAttr({}))
            continue
        compiler.vars[a.arg] = TensorValue(arg, p.dtype, p.kind, a.arg, p.dims, p.tile)
        info: dict[str, Attribute] = {
            "align": IntegerAttr(p.align, i64),
            "divisibility": DenseArrayBase.from_list(i64, list(p.divisible)),
        }
        if getattr(p, "strided", False):
            info["stride_divisibility"] = DenseArrayBase.from_list(i64, list(p.stride_divisible))
        arg_info.append(DictionaryAttr(info))
    grid = next((i for i, p in enumerate(launch_params) if p.kind == "partition"), None)
    if grid is None:
        compiler.error(fdef, "a tile kernel needs a partitioned tensor argument: its tiles are the grid (x.partition(tile_shape))")
    compiler.grid_param = launch_params[grid]

    with compiler.in_block(block):
        compiler.visit_body(fdef.body)
        if not compiler.terminated:
            compiler.emit(kernel.ReturnOp(), fdef.body[-1] if fdef.body else fdef)

    attributes: dict[str, Any] = {
        "kernel": UnitAttr(),
        "tile": UnitAttr(),
        "tile.grid": IntegerAttr(grid, i64),
        "tile.arg_info": ArrayAttr(arg_info),
    }
    if num_warps is not None:
        attributes["tile.num_warps"] = IntegerAttr(num_warps, i32)
    if num_stages is not None:
        attributes["tile.num_stages"] = IntegerAttr(num_stages, i32)
    if min_blocks_per_sm is not None:
        attributes["min_blocks_per_sm"] = IntegerAttr(min_blocks_per_sm, i32)
    if not checks:
        attributes["checks"] = IntegerAttr(0, i1)
    name = symbol or symbol_name(fn)
    func = kernel.FuncOp(name, FunctionType.from_lists(input_types, []), Region(block), attributes)
    func.location = compiler.loc(fdef)
    module = ModuleOp([func, *compiler.unit.functions])
    try:
        module.verify()
    except CompileError:
        raise
    except Exception as e:  # a frontend bug, not a user error: say so, with the location
        raise CompileError(f"internal error: the tile frontend built invalid IR: {e}", filename=source.filename, line=source.first_line) from e
    return TileKernelIR(module, name, tuple(launch_params), tuple(dict.fromkeys(compiler.like_pairs)), compiler.max_tile, source)


def _param_type(p: Any):
    if p.kind == "scalar":
        return p.dtype.mlir
    strides = [DYNAMIC_INDEX] * (len(p.dims) - 1) + [1] if getattr(p, "strided", False) else None
    tensor = TensorType([DYNAMIC_INDEX if d is None else d for d in p.dims], p.dtype.mlir, strides)
    if p.kind == "partition":
        return PartitionType(p.tile, tensor)
    return tensor
