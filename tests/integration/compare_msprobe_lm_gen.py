# Writes a MindSpore target / PyTorch golden msProbe statistics pair whose layer and API names
# differ (docs/formats/msprobe-compare.md §3.1), for -lm: dump.json, stack.json and construct.json
# on each side, the layer_mapping.yaml that relates them, and expected.json, the golden entry each
# target entry must be compared with ("N/A": none). The target's layers are numbered from 2 (a
# later pipeline stage), the golden's from 0; one API (layer 1's softmax) carries an injected error
# on the target. Written from the format doc, not from msit-compact's readers.
# Usage: python3 compare_msprobe_lm_gen.py OUT_DIR [--layers N]
import argparse
import json
import os
import random

MAPPING = """TopLayer:
  network_with_loss: module
ParallelTransformerLayer:
  attention: self_attention
ParallelAttention:
  flash_attention_score: core_attention_flash.npu_fusion_attention
RMSNorm:
  RmsNorm: npu_rms_norm
"""


def stats(key, scale, framework):
    r = random.Random(key)
    vals = [r.uniform(-2, 2) for _ in range(16)]
    mx, mn, mean = max(vals) * scale, min(vals) * scale, sum(vals) / len(vals) * scale
    norm = sum(v * v for v in vals) ** 0.5 * scale
    if framework == "mindspore":
        return {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [4, 4],
                "Max": mx, "Min": mn, "Mean": mean, "Norm": norm}
    return {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 4],
            "Max": mx, "Min": mn, "Mean": mean, "Norm": norm, "requires_grad": False}


class Side:
    def __init__(self, framework):
        self.fw = framework
        self.data, self.stack, self.construct = {}, {}, {}

    def add(self, entry, parent, key, scale=1.0, out_scale=None, frames=None):
        inputs, output = [stats(key + ".in", scale, self.fw)], [stats(key + ".out", out_scale or scale, self.fw)]
        if entry.endswith(".backward"):  # backward entries hold the gradients as input / output
            self.data[entry] = {"input": inputs, "output": output}
        else:
            self.data[entry] = {"input_args": inputs, "input_kwargs": {}, "output": output}
        self.construct[entry] = parent
        self.stack[entry] = frames if frames is not None else []

    def write(self, d):
        os.makedirs(d, exist_ok=True)
        dump = {"task": "statistics", "level": "mix", "framework": self.fw, "dump_data_dir": None, "data": self.data}
        for name, obj in (("dump.json", dump), ("stack.json", self.stack), ("construct.json", self.construct)):
            with open(os.path.join(d, name), "w") as f:
                json.dump(obj, f, indent=1)


def ms_frames(line):
    return ["File /env/site-packages/mindspore/nn/cell.py, line 494, in _run_construct, \n output = self.construct()",
            "File /env/site-packages/mindspore/nn/cell.py, line 733, in __call__, \n return self._run_construct()",
            "File /net/ms_model.py, line %d, in construct, \n y = op(x)" % line]


def pt_frames(line):
    return ["File /env/site-packages/msprobe/pytorch/hook_module/wrap_functional.py, line 1, in functional_op_template,"
            " \n return FunctionalOPTemplate(op)",
            "File /net/pt_model.py, line %d, in forward, \n y = op(x)" % line,
            "File /env/site-packages/torch/nn/modules/module.py, line 1568, in _call_impl, \n return forward_call()"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    a = ap.parse_args()
    ms, pt = Side("mindspore"), Side("pytorch")
    expected = {}
    tgt = 1.0001  # the target's small difference everywhere

    def pair(ms_entry, ms_parent, pt_entry, pt_parent, key, line, inject=False):
        ms.add(ms_entry, ms_parent, key, tgt, tgt * 3 if inject else None, ms_frames(line))
        if pt_entry:
            pt.add(pt_entry, pt_parent, key, 1.0, None, pt_frames(line))
        expected[ms_entry] = pt_entry or "N/A"

    ms_model = "Cell.network_with_loss.model.GPTModel.forward.0"
    pt_model = "Module.module.model.GPTModel.forward.0"
    ms_enc = "Cell.network_with_loss.model.encoder.ParallelTransformer.forward.0"
    pt_enc = "Module.module.model.encoder.ParallelTransformer.forward.0"
    backward = []
    for i in range(a.layers):
        ms_layer = "Cell.network_with_loss.model.encoder.layers.%d" % (i + 2)
        pt_layer = "Module.module.model.encoder.layers.%d" % i
        ms_norm, pt_norm = ms_layer + ".input_norm.RMSNorm.forward.0", pt_layer + ".input_norm.RMSNorm.forward.0"
        pair("Primitive.norm.RmsNorm.%d.forward" % i, ms_norm, "NPU.npu_rms_norm.%d.forward" % i, pt_norm,
             "norm%d" % i, 10)
        pair(ms_norm, ms_layer + ".ParallelTransformerLayer.forward.0", pt_norm,
             pt_layer + ".ParallelTransformerLayer.forward.0", "normcell%d" % i, 11)
        ms_att = ms_layer + ".attention.ParallelAttention.forward.0"
        pt_att = pt_layer + ".self_attention.ParallelAttention.forward.0"
        pt_flash = pt_layer + ".self_attention.core_attention_flash.FlashSelfAttention.forward.0"
        pair("Mint.matmul.%d.forward" % (2 * i), ms_att, "Tensor.matmul.%d.forward" % (2 * i), pt_att, "qk%d" % i, 20)
        pair("Mint.softmax.%d.forward" % i, ms_att, "Functional.softmax.%d.forward" % i, pt_att, "sm%d" % i, 21,
             inject=(i == 1))
        pair("Mint.cast.%d.forward" % i, ms_att, None, None, "cast%d" % i, 22)  # only the target has it
        pair("Mint.matmul.%d.forward" % (2 * i + 1), ms_att, "Tensor.matmul.%d.forward" % (2 * i + 1), pt_att,
             "av%d" % i, 23)
        pair("Mint.flash_attention_score.%d.forward" % i, ms_att, "NPU.npu_fusion_attention.%d.forward" % i,
             pt_flash, "fa%d" % i, 24)
        pt.add(pt_flash, pt_att, "flashcell%d" % i, 1.0, None, [])
        pair(ms_att, ms_layer + ".ParallelTransformerLayer.forward.0", pt_att,
             pt_layer + ".ParallelTransformerLayer.forward.0", "att%d" % i, 25)
        pair(ms_layer + ".ParallelTransformerLayer.forward.0", ms_enc, pt_layer + ".ParallelTransformerLayer.forward.0",
             pt_enc, "layer%d" % i, 26)
        backward.append(i)
    pair(ms_enc, ms_model, pt_enc, pt_model, "enc", 30)
    pair(ms_model, "", pt_model, "", "model", 31)
    for i in reversed(backward):  # backward entries take their forward entry's scope
        pair("Mint.softmax.%d.backward" % i, "", "Functional.softmax.%d.backward" % i, "", "smb%d" % i, 40)
    ms.write(os.path.join(a.out, "ms"))
    pt.write(os.path.join(a.out, "pt"))
    with open(os.path.join(a.out, "layer_mapping.yaml"), "w") as f:
        f.write(MAPPING)
    with open(os.path.join(a.out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main()
