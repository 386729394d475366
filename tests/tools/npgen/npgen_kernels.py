# Numerics of npgen (docs/dumpgen.md "npgen"): rounding to a dtype, the golden side's exact math
# and the NPU side's kernel model (relative or absolute noise, reduced-precision accumulation).
import numpy as np

FLOAT_TYPES = ("float32", "float16", "bfloat16")

# How much noise each GE op type adds, relative to --noise (npgen's own table: dumpgen's has
# other types and factors on purpose). Types not listed add none (copies, selections, casts,
# comparisons, argmax: their outputs follow from their inputs exactly).
NOISE_FACTOR = {"MatMulV2": 1.0, "BatchMatMulV2": 1.3, "BatchMatMul": 1.3, "Mul": 0.3, "Muls": 0.2, "Add": 0.2, "Adds": 0.2,
                "Sub": 0.2, "SoftmaxV2": 0.6, "RmsNorm": 0.8, "ReduceMeanD": 0.4, "Rsqrt": 0.5, "Swish": 0.6,
                "HcomAllReduce": 0.2}
# Types whose noise is absolute (scaled by the output row's RMS, as an accumulation error is)
# rather than relative to each element.
ABS_NOISE = {"MatMulV2", "BatchMatMulV2", "BatchMatMul", "ReduceMeanD", "HcomAllReduce"}


def round_to(x, dtype):
    """x (float64 or integer array) rounded to the values of `dtype`, as float64 (ints as is)."""
    if dtype == "float32":
        return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)
    if dtype == "float16":
        return np.asarray(x, dtype=np.float64).astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":
        f = np.ascontiguousarray(np.asarray(x, dtype=np.float64).astype(np.float32))
        b = f.view(np.uint32).astype(np.uint64)
        b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000  # round to nearest even
        return b.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.asarray(x)


def chunked_sum(terms, acc, chunk=16):
    """Sum over the last axis as a kernel with a reduced-precision accumulator does: partial
    sums of `chunk` terms in fp32, each added to an accumulator rounded to `acc`."""
    if acc == "float32":
        return terms.sum(axis=-1)
    n = terms.shape[-1]
    s = np.zeros(terms.shape[:-1])
    for c in range(0, n, chunk):
        part = round_to(terms[..., c:c + chunk].sum(axis=-1), "float32")
        s = round_to(s + part, acc)
    return s


def matmul(a, b, acc):
    """a [.., M, K] @ b [.., K, N] with the accumulator of `acc`."""
    if acc == "float32":
        return a @ b
    terms = a[..., :, :, None] * b[..., None, :, :]  # [.., M, K, N]
    return chunked_sum(np.moveaxis(terms, -2, -1), acc)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def rms_norm(x, gamma, eps=1e-6):
    rstd = 1.0 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
    return [x * rstd * gamma, rstd]


def add_noise(y, op_type, level, rng, shape_mode):
    """The kernel's own error on a float output: relative (each element times 1 + s z) or
    absolute (s z times the RMS of the element's row)."""
    s = level * NOISE_FACTOR.get(op_type, 0.0)
    if s == 0 or y.size == 0:
        return y
    z = rng.standard_normal(y.shape)
    absolute = shape_mode == "abs" or (shape_mode == "auto" and op_type in ABS_NOISE)
    if absolute:
        rms = np.sqrt((y * y).mean(axis=-1, keepdims=True)) if y.ndim else abs(y)
        return y + s * rms * z
    return y * (1.0 + s * z)


def inject(y, red, rng):
    """An injected error of relative Euclidean distance `red` on y."""
    z = rng.standard_normal(y.shape)
    norm = np.sqrt((y * y).sum())
    zn = np.sqrt((z * z).sum())
    return y + red * norm / zn * z if zn > 0 else y
