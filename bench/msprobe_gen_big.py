# Writes a large msProbe PyTorch tensor-mode dump pair (docs/formats/msprobe.md) for
# bench/msprobe_compare_vs.sh: a chain of APIS linear-like APIs, each tensor MIB_PER_TENSOR MiB
# of float32 (every fourth API's in bfloat16), saved with torch.save as msProbe saves them; the
# golden side differs by rounding-sized noise, one API (the middle one) by an injected error.
# Usage: python3 msprobe_gen_big.py OUT_DIR [APIS=32] [MIB_PER_TENSOR=16]
import json
import os
import sys

import torch


def main(out, apis, mib):
    n = mib * (1 << 20) // 4
    torch.manual_seed(0)
    for side in ("npu", "bench"):
        rank = os.path.join(out, side, "step0", "rank0")
        tdir = os.path.join(rank, "dump_tensor_data")
        os.makedirs(tdir, exist_ok=True)
        gen = torch.Generator().manual_seed(1)  # the same values on both sides
        noise = torch.Generator().manual_seed(2 if side == "npu" else 3)
        x = torch.randn(n, generator=gen)
        data = {}
        for i in range(apis):
            entry = "Functional.linear.%d.forward" % i
            y = torch.tanh(x * 1.1 + 0.01 * i)
            y = y * (1 + 1e-4 * torch.randn(n, generator=noise))
            if side == "npu" and i == apis // 2:
                y = y + 0.05 * torch.randn(n, generator=noise)
            recs = {}
            for kind, v in (("input", x), ("output", y)):
                t = v.reshape(1024, -1)
                if i % 4 == 3:
                    t = t.to(torch.bfloat16)
                name = "%s.%s.0" % (entry, kind)
                torch.save(t, os.path.join(tdir, name + ".pt"))
                tf = t.float()
                recs[kind] = {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape),
                              "Max": tf.max().item(), "Min": tf.min().item(), "Mean": tf.mean().item(),
                              "Norm": tf.norm().item(), "requires_grad": False, "data_name": name + ".pt"}
            data[entry] = {"input_args": [recs["input"]], "input_kwargs": {}, "output": [recs["output"]]}
            x = y
        with open(os.path.join(rank, "dump.json"), "w") as f:
            json.dump({"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": tdir,
                       "data": data}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 32, int(sys.argv[3]) if len(sys.argv) > 3 else 16)
