"""One fp32 Add op as the compare benchmarks dump it: the GE graph text that maps Add_0 to the FX
node add_0, and the header of its GE dump file (input and output of n elements, ND)."""
import struct

GRAPH_TEXT = ('op {\n  name: "Add_0"\n  type: "Add"\n  input: "x:0"\n  output_desc {\n    attr {\n'
              '      key: "_fx_tensor_name"\n      value {\n        s: "add_0-aten.add.Tensor.OUTPUT.0"\n'
              '      }\n    }\n  }\n}\n')
GE_FILE_NAME = "Add.Add_0.1.1.1700000000000000"


def _varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def _ld(field, b):
    return _varint(field << 3 | 2) + _varint(len(b)) + b


def _u(field, v):
    return _varint(field << 3) + _varint(v)


def ge_header(n):
    """uint64 LE length + DumpData (docs/formats/ge-dump.md §3); the 2 * n float32 payloads follow it."""
    shape = _ld(1, _varint(n))
    inp = _u(1, 1) + _u(2, 2) + _ld(3, shape) + _u(5, n * 4) + _ld(6, shape)
    out = _u(1, 1) + _u(2, 2) + _ld(3, shape) + _u(6, n * 4) + _ld(7, shape)
    hdr = _ld(1, b"2.0") + _ld(3, out) + _ld(4, inp) + _ld(6, b"Add_0")
    return struct.pack("<Q", len(hdr)) + hdr
