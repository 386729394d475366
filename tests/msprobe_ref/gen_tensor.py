# Writes a small msProbe-format dump pair (docs/formats/msprobe.md) for checking our compare
# against msProbe's own (docs/formats/msprobe-compare.md "Checking against msProbe").
# Usage: python3 gen_tensor.py OUT_DIR
import json, os, sys, torch
torch.manual_seed(0)
def rec(name, x):
    d = {"type": "torch.Tensor", "dtype": str(x.dtype), "shape": list(x.shape), "requires_grad": False}
    xf = x.float()
    d.update({"Max": xf.max().item(), "Min": xf.min().item(), "Mean": xf.mean().item(), "Norm": xf.norm().item()})
    d["data_name"] = name + ".pt"
    return d
def build(side, tensors):
    side = os.path.join(sys.argv[1], side)
    os.makedirs(f"{side}/dump_tensor_data", exist_ok=True)
    data = {}
    for entry, parts in tensors.items():
        e = {"input_args": [], "input_kwargs": {}, "output": []}
        for cat, i, x in parts:
            name = f"{entry}.{cat}.{i}"
            torch.save(x, f"{side}/dump_tensor_data/{name}.pt")
            (e["input_args"] if cat == "input" else e["output"]).append(rec(name, x))
        data[entry] = e
    json.dump({"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": "dump_tensor_data", "data": data}, open(f"{side}/dump.json", "w"), indent=1)
a = torch.randn(64, 32)
w = torch.randn(32, 16)
y = a @ w
nan_a = torch.randn(8); nan_a[3] = float('nan'); nan_b = nan_a.clone(); nan_b[0] += 1e-3
mis_a = torch.randn(8); mis_b = mis_a.clone(); mis_a[2] = float('inf')
npu = {
 "Functional.linear.0.forward": [("input", 0, a), ("input", 1, w), ("output", 0, y + 0.3 * torch.randn_like(y))],
 "Torch.bf.0.forward": [("input", 0, a.bfloat16()), ("output", 0, (a * 2).bfloat16())],
 "Torch.one.0.forward": [("input", 0, torch.tensor([2.5])), ("output", 0, torch.zeros(3, 4))],
 "Torch.nan.0.forward": [("input", 0, nan_a), ("output", 0, mis_a)],
 "Torch.shape.0.forward": [("input", 0, torch.randn(4, 4)), ("output", 0, torch.arange(6, dtype=torch.int64))],
 "Torch.half.0.forward": [("input", 0, a.half()), ("output", 0, torch.randn(1, 5))],
}
bench = {
 "Functional.linear.0.forward": [("input", 0, a), ("input", 1, w), ("output", 0, y)],
 "Torch.bf.0.forward": [("input", 0, a.bfloat16()), ("output", 0, (a * 2.01).bfloat16())],
 "Torch.one.0.forward": [("input", 0, torch.tensor([2.0])), ("output", 0, torch.ones(3, 4))],
 "Torch.nan.0.forward": [("input", 0, nan_b), ("output", 0, mis_b)],
 "Torch.shape.0.forward": [("input", 0, torch.randn(2, 8)), ("output", 0, torch.arange(6, dtype=torch.int64) * 2)],
 "Torch.half.0.forward": [("input", 0, (a * 1.001).half()), ("output", 0, torch.randn(5))],
}
build("npu_t", npu); build("bench_t", bench)
