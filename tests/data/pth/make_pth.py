#!/usr/bin/python3
# Writes the small real .pth files of tests/data/pth with torch.save (Debian python3-torch 1.13).
# Run once by hand: /usr/bin/python3 tests/data/pth/make_pth.py tests/data/pth
# The expected values in tests/unit/pth_reader_test.cpp are derived from this script.
import sys
import torch

out = sys.argv[1]
torch.save(torch.tensor([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype=torch.float32), f"{out}/f32.pth")
torch.save(torch.tensor([1.0, -0.5, 65504.0, 2.0**-24], dtype=torch.float16), f"{out}/f16.pth")
torch.save(torch.tensor([[1.0, 2.0], [-3.0, 0.5]], dtype=torch.bfloat16), f"{out}/bf16.pth")
torch.save(torch.tensor([-(2**40), 0, 7, 2**62], dtype=torch.int64), f"{out}/i64.pth")
# A transpose: strides (1, 3) over a 2x3 storage.
torch.save(torch.arange(6, dtype=torch.float32).reshape(2, 3).t(), f"{out}/transpose.pth")
# A slice with a storage offset and a row stride: rows 1..2, columns 1..2 of a 4x4 arange.
torch.save(torch.arange(16, dtype=torch.int32).reshape(4, 4)[1:3, 1:3], f"{out}/slice.pth")
torch.save(torch.tensor(3.5, dtype=torch.float64), f"{out}/scalar.pth")
torch.save(torch.tensor([True, False, True]), f"{out}/bool.pth")
