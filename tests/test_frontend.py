"""The frontend's diagnostics: every unsupported construct or type error is a CompileError carrying
file:line:col, the source line and a caret — never a traceback from deep inside."""

from __future__ import annotations

import pytest

import warpforge as wf
from warpforge import simt


def _error(kernel) -> wf.CompileError:
    with pytest.raises(wf.CompileError) as info:
        kernel.ir("kernel")
    return info.value


def test_error_has_location_source_line_and_caret() -> None:
    @simt.kernel
    def bad(a: simt.Slice[wf.f32]):
        idx = simt.index_1d()
        a[idx] = 1.0

    err = _error(bad)
    assert err.filename == __file__
    assert err.line == bad.fn.__code__.co_firstlineno + 3
    assert err.col == 9  # inside this test function: indented by 4 more than the module level
    text = str(err).splitlines()
    assert text[0].startswith(f"{__file__}:{err.line}:9: error: Slice[f32] 'a' is read-only")
    assert text[1].strip() == "a[idx] = 1.0"
    assert text[2].index("^") == text[1].index("a[idx]")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = [1, 2]", "List expressions are not supported"),
        ("x = 'text'", "str constants are not supported"),
        ("x = sorted(1)", "the builtin 'sorted' is not supported"),
        ("for k in [1, 2]:\n        pass", "List expressions are not supported"),
        ("for k in n:\n        pass", "kernels loop only over range"),
        ("x = undefined_name", "name 'undefined_name' is not defined"),
        ("x = 1 // 0", "division by zero in the constant expression"),
        ("x = 2 ** -1 + c[0]", "can be read only at the thread's own ThreadIndex"),
        ("x = n[0]", "cannot index a value of type i32"),
        ("while True:\n        pass\n    else:\n        pass", "while … else is not supported"),
        ("x = n ** m", "an integer power needs a constant integer exponent"),
        ("x = n ** -2", "integers to negative integer powers are not allowed"),
        ("if n > 0:\n        y = 1\n    z = y", "'y' is assigned in only one branch"),
        ("for k in range(3):\n        t = k\n    z = t", "'t' is assigned only inside a loop"),
        ("for k in range(3):\n        pass\n    z = k", "it is not available after its loop"),
        ("acc = wf.i32(0)\n    for k in range(3):\n        acc = acc + 0.5", "'acc' is i32 before the loop but f64 here"),
        ("acc = 0\n    for k in range(3):\n        acc = acc + 0.5\n    c[simt.index_1d()] = acc", ""),
        ("x = range(3) + 1", "expected a number here, got range"),
        ("x = True + True", ""),
        ("x = n + m", ""),
    ],
)
def test_unsupported_constructs_are_compile_errors(tmp_path, source: str, message: str) -> None:
    path = tmp_path / "kern.py"
    path.write_text(
        "import warpforge as wf\nfrom warpforge import simt\n\n"
        "@simt.kernel\n"
        "def k(n: wf.i32, m: wf.i32, c: simt.DisjointSlice[wf.f32]):\n"
        f"    {source}\n"
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location("kern_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if message == "":
        module.k.ir("kernel")  # valid: folds or compiles
        return
    with pytest.raises(wf.CompileError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")) as info:
        module.k.ir("kernel")
    assert info.value.filename == str(path)
    assert info.value.line >= 6


def test_missing_annotation_is_a_compile_error() -> None:
    @simt.kernel
    def k(a):
        pass

    assert "needs an annotation" in str(_error(k))


def test_kernel_called_like_a_function_says_how_to_launch() -> None:
    @simt.kernel
    def k(a: simt.Slice[wf.f32]):
        pass

    with pytest.raises(TypeError, match=r"k\[grid, block\]"):
        k(1)


def test_every_stage_prints_and_reparses() -> None:
    from warpforge.context import parse_module

    @simt.kernel
    def k(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32], n: wf.i32):
        idx = simt.index_1d()
        acc = wf.f32(0)
        for j in range(n):
            acc += a[j] if j % 2 == 0 else -a[j]
        c[idx] = acc

    for stage in ("kernel", "gpu", "nvvm", "llvm"):
        text = k.ir(stage)
        assert str(parse_module(text)) == text.rstrip("\n") or parse_module(text) is not None


def test_literal_initialized_loop_variables_take_the_type_nep50_gives_them() -> None:
    @simt.kernel
    def k(a: simt.Slice[wf.i32], x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        y = 0
        s = 0
        for j in range(3):
            y = y + a[j]  # i32, as `0 + a[j]` is in straight-line code
            s += x[j]  # f32
        n = 0
        while n < 3:
            n += 1  # stays a Python int: i64
        out[simt.index_1d()] = s + y + n

    text = k.ir("kernel")
    assert "-> (si32, f32) : si64" in text
    assert "kernel.while (%n_1 = " in text and ": (si64)" in text


def test_kernel_types_with_different_parameters_are_different() -> None:
    """Regression: parameters declared only on a shared base class were not compared, so
    `!kernel.slice<f32> == !kernel.slice<si64>` held and verifiers could accept mismatched types."""
    from xdsl.dialects.builtin import f32, f64

    from warpforge.dialects import kernel

    for typ in (kernel.SliceType, kernel.DisjointSliceType, kernel.AtomicSliceType, kernel.RawSliceType):
        assert typ(f32) == typ(f32)
        assert typ(f32) != typ(f64)
    for typ in (kernel.SharedArrayType, kernel.LocalArrayType):
        a16 = typ([16], f32)
        assert a16 == typ([16], f32)
        assert a16 != typ([32], f32)
        assert a16 != typ([16], f64)
