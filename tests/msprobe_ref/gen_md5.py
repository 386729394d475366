# Writes a small msProbe-format dump pair (docs/formats/msprobe.md) for checking our compare
# against msProbe's own (docs/formats/msprobe-compare.md "Checking against msProbe").
# Usage: python3 gen_md5.py OUT_DIR
import json, os, sys
def t(dt, shape, crc, rg=True):
    return {"type": "torch.Tensor", "dtype": dt, "shape": shape, "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": rg, "md5": crc}
npu = {
 "Functional.linear.0.forward": {"input_args": [t("torch.float32",[2],"0badf00d"), {"type":"int","value":3}], "input_kwargs": {"bias": None}, "output": [t("torch.float32",[2],"12345678")]},
 "Functional.gelu.0.forward": {"input_args": [t("torch.float32",[2],"aaaaaaaa")], "input_kwargs": {}, "output": [t("torch.float32",[2],"bbbbbbbb")]},
}
bench = json.loads(json.dumps(npu))
bench["Functional.linear.0.forward"]["output"][0]["md5"] = "87654321"
bench["Functional.linear.0.forward"]["input_args"][1]["value"] = 4
del bench["Functional.gelu.0.forward"]
for name, data in (("npu_md5", npu), ("bench_md5", bench)):
    os.makedirs(os.path.join(sys.argv[1], name), exist_ok=True)
    json.dump({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": None, "data": data}, open(os.path.join(sys.argv[1], name, "dump.json"), "w"), indent=1)
