#!/usr/bin/env python3
"""Inputs msit-dumpgen does not write, for compare_flows.sh rows (docs/compare.md "Flows").

stats GOLDEN_TORCH_DIR SUMMARIES_DIR: a torch-hook statistics.csv in every module directory of the
  golden tree, from the JSON summaries of the same tree (msit-compact compact --summary-format json
  of a copy at SUMMARIES_DIR): the golden side of `compare --stats`.
weights OUT --layers N --diverge K --seed S: OUT/float/model.safetensors (float32 "*weight"
  tensors) and OUT/quant/quant_model_weight.safetensors (int8 weights with per-channel
  weight_offset / weight_scale that dequantise to the float ones within rounding); layer K's
  weight is perturbed by 20% of its values (-1: none). The golden and my side of `compare -w`.
"""
import json, os, random, struct, sys


def stats(golden, summaries):
    for root, _, files in os.walk(summaries):
        if "output.pth.summary.json" not in files:
            continue
        t = json.load(open(os.path.join(root, "output.pth.summary.json")))["tensors"][0]
        rel = os.path.relpath(root, summaries)
        shape = "(" + ", ".join(str(d) for d in t["original_shape"]) + ("," if len(t["original_shape"]) == 1 else "") + ")"
        name = os.path.basename(root)
        with open(os.path.join(golden, rel, "statistics.csv"), "w") as f:
            f.write("NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm\r\n")
            f.write(f'{name},Module,Output,0,torch.float32,"{shape}",{t["max"]!r},{t["min"]!r},{t["mean"]!r},{t["l2norm"]!r}\r\n')


def save(path, tensors):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head, data = {}, b""
    for name, (dt, shape, vals) in tensors.items():
        raw = struct.pack("<%d%s" % (len(vals), "b" if dt == "I8" else "f"), *vals)
        head[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(head).encode()
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)


def weights(out, layers, diverge, seed):
    rng = random.Random(seed)
    rows, cols = 8, 16
    gold, quant = {}, {}
    for k in range(layers):
        name = f"model.layers.{k}.mlp.down_proj.weight"
        scale = [rng.uniform(0.01, 0.02) for _ in range(rows)]
        q = [rng.randint(-127, 127) for _ in range(rows * cols)]
        f = [q[i] * scale[i // cols] for i in range(rows * cols)]
        if k == diverge:
            f = [v * (1.2 if i % 2 else 0.8) for i, v in enumerate(f)]
        gold[name] = ("F32", [rows, cols], f)
        quant[name] = ("I8", [rows, cols], q)
        quant[name.replace("weight", "weight_offset")] = ("F32", [rows, 1], [0.0] * rows)
        quant[name.replace("weight", "weight_scale")] = ("F32", [rows, 1], scale)
    save(os.path.join(out, "float", "model.safetensors"), gold)
    save(os.path.join(out, "quant", "quant_model_weight.safetensors"), quant)


def main(argv):
    if argv[0] == "stats":
        stats(argv[1], argv[2])
    elif argv[0] == "weights":
        opts = dict(zip(argv[2::2], argv[3::2]))
        weights(argv[1], int(opts.get("--layers", 4)), int(opts.get("--diverge", -1)), int(opts.get("--seed", 1)))
    else:
        sys.exit(f"compare_flows_prep: unknown command {argv[0]}")


main(sys.argv[1:])
