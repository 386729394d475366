# Writes a small msProbe-format dump pair (docs/formats/msprobe.md) for checking our compare
# against msProbe's own (docs/formats/msprobe-compare.md "Checking against msProbe").
# Usage: python3 gen_statistics.py OUT_DIR
import json, os, sys
def t(dt, shape, mx, mn, mean, norm, rg=True):
    d = {"type": "torch.Tensor", "dtype": dt, "shape": shape, "Max": mx, "Min": mn, "Mean": mean, "Norm": norm}
    if rg is not None: d["requires_grad"] = rg
    return d
f32 = "torch.float32"
npu = {
 "Functional.linear.0.forward": {"input_args": [t(f32,[2,3],1.0,-1.0,0.1,10.0), t(f32,[3],0.5,-0.5,0.0,1.0,False)],
    "input_kwargs": {"bias": None}, "output": [t(f32,[2],2.0,-2.0,0.5,20.0)]},
 "Torch.add.0.forward": {"input_args": [t(f32,[4],float('nan'),-1.0,0.2,3.0), {"type":"int","value":3}],
    "input_kwargs": {"alpha": {"type":"float","value":1.5}}, "output": [t(f32,[4],5.0,1.0,2.0,8.0)]},
 "Tensor.__or__.0.forward": {"input_args": [{"type":"torch.Tensor","dtype":"torch.bool","shape":[4],"Max":True,"Min":False,"Mean":None,"Norm":None,"requires_grad":False}],
    "input_kwargs": {}, "output": [{"type":"torch.Tensor","dtype":"torch.bool","shape":[4],"Max":True,"Min":False,"Mean":None,"Norm":None,"requires_grad":False}]},
 "Functional.gelu.0.forward": {"input_args": [t(f32,[2],1.0,0.0,0.5,1.0)], "input_kwargs": {}, "output": [t(f32,[2],1.0,0.0,0.5,1.0)]},
 "Functional.relu.0.forward": {"input_args": [t("torch.float16",[2],1.0,0.0,0.5,1.0)], "input_kwargs": {}, "output": [t("torch.float16",[2],1.0,0.0,0.5,1.0)]},
 "Functional.relu.1.backward": {"input": [t(f32,[2],1.0,0.0,0.5,1.0)], "output": [t(f32,[2],1.0,0.0,0.5,1.1)]},
 "Torch.empty.0.forward": {"input_args": [{"type":"torch.Size","value":[2,2]}], "input_kwargs": {"device": {"type":"torch.device","value":"npu:0"}}, "output": [t(f32,[2,2],float('inf'),0.0,0.0,0.0)]},
 "Torch.mul.0.forward": {"input_args": [t(f32,[2],float('inf'),0.0,1.0,2.0), {"type":"str","value":"SBH"}, {"type":"slice","value":[0,2,None]}],
    "input_kwargs": {}, "output": [t(f32,[2],1.0,-1.0,0.0,0.0), t("torch.int64",[2],3,1,2,4)]},
}
bench = json.loads(json.dumps(npu))
b = bench
b["Functional.linear.0.forward"]["output"][0]["Norm"] = 35.0
b["Torch.add.0.forward"]["input_args"][0]["Max"] = 1.0
b["Torch.add.0.forward"]["input_args"][1]["value"] = 4
b["Torch.add.0.forward"]["output"][0]["Norm"] = 0.0
b["Torch.add.0.forward"]["output"][0]["Mean"] = 2.5
b["Tensor.__or__.0.forward"]["input_args"][0]["requires_grad"] = True
del b["Functional.gelu.0.forward"]
b["Functional.relu.0.forward"]["input_args"][0]["dtype"] = f32
b["Functional.relu.0.forward"]["output"][0]["dtype"] = "torch.bfloat16"
b["Functional.relu.0.backward"] = b.pop("Functional.relu.1.backward")
b["Torch.empty.0.forward"]["output"][0]["Max"] = 1.0
b["Torch.mul.0.forward"]["input_args"][0]["Max"] = float('inf')
b["Torch.mul.0.forward"]["output"][0]["Min"] = -2.0
b["Torch.mul.0.forward"]["output"][1]["Max"] = 5
for name, data in (("npu", npu), ("bench", bench)):
    os.makedirs(os.path.join(sys.argv[1], name), exist_ok=True)
    json.dump({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": None, "data": data},
              open(os.path.join(sys.argv[1], name, "dump.json"), "w"), indent=1)
