# Writers of npgen (the second dump generator, docs/dumpgen.md "npgen"): GE binary dumps with a
# hand-encoded DumpData header, GE graph text, FX npy files, in the directory layouts of
# docs/formats-notes.md. Written from the format descriptions, sharing no code with msit-dumpgen.
import os

import numpy as np

# Dump-proto data type numbers and the format number of ND.
DT_NUM = {"float32": 1, "float16": 2, "int32": 7, "int64": 8, "bool": 11, "bfloat16": 27}
DT_NAME = {"float32": "DT_FLOAT", "float16": "DT_FLOAT16", "int32": "DT_INT32", "int64": "DT_INT64",
           "bool": "DT_BOOL", "bfloat16": "DT_BF16"}
FORMAT_ND = 2


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def vfield(field, v):
    return key(field, 0) + varint(v) if v else b""


def lfield(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def shape_msg(dims):
    packed = b"".join(varint(d) for d in dims)
    return lfield(1, packed) if dims else b""


def payload_bytes(value, dtype):
    """The bytes a GE dump holds for `value` (float64/int array already in the dtype's values)."""
    if dtype == "bfloat16":
        bits = np.ascontiguousarray(value, dtype=np.float32).view(np.uint32)
        return (bits >> 16).astype("<u2").tobytes()
    np_type = {"float32": "<f4", "float16": "<f2", "int32": "<i4", "int64": "<i8", "bool": "|b1"}[dtype]
    return np.ascontiguousarray(value).astype(np_type).tobytes()


def tensor_desc(value, dtype, output):
    """OpOutput (fields 1, 2, 3, 6, 7) or OpInput (1, 2, 3, 5, 6) without data."""
    dims = list(np.shape(value))
    size = len(payload_bytes(value, dtype))
    shape = shape_msg(dims)
    msg = vfield(1, DT_NUM[dtype]) + vfield(2, FORMAT_ND) + lfield(3, shape)
    if output:
        return msg + vfield(6, size) + lfield(7, shape)
    return msg + vfield(5, size) + lfield(6, shape)


def write_ge_file(path, op_name, dump_time, inputs, outputs):
    """inputs/outputs: lists of (value, dtype). Header: version, dump_time, outputs, inputs,
    op_name in field order; payloads: inputs first, then outputs."""
    header = lfield(1, b"2.0") + vfield(2, dump_time)
    for v, dt in outputs:
        header += lfield(3, tensor_desc(v, dt, True))
    for v, dt in inputs:
        header += lfield(4, tensor_desc(v, dt, False))
    header += lfield(6, op_name.encode())
    with open(path, "wb") as f:
        f.write(len(header).to_bytes(8, "little"))
        f.write(header)
        for v, dt in inputs + outputs:
            f.write(payload_bytes(v, dt))


def npy_value(value, dtype):
    """What torchair's FX dumper saves: bf16 as float32, the rest in its own dtype."""
    np_type = {"float32": np.float32, "bfloat16": np.float32, "float16": np.float16, "int32": np.int32,
               "int64": np.int64, "bool": np.bool_, "float64": np.float64}[dtype]
    return np.asarray(value).astype(np_type)


def graph_text(ops, graph_name="graph_1"):
    """protobuf text of a GraphDef: Data ops for the graph inputs, then every op with its inputs
    and output descs (the FX-tagged ones with _fx_tensor_name)."""
    lines = ['name: "%s"' % graph_name]
    for op in ops:
        lines += ["op {", '  name: "%s"' % op["name"], '  type: "%s"' % op["type"]]
        lines += ['  input: "%s"' % i for i in op.get("inputs", [])]
        for k, dt in enumerate(op.get("out_dtypes", [])):
            lines += ["  output_desc {", '    name: "y%d"' % k, "    dtype: %s" % DT_NAME[dt], '    layout: "ND"']
            if op.get("fx"):
                lines += ["    attr {", '      key: "_fx_tensor_name"', "      value {",
                          '        s: "%s.OUTPUT.%d"' % (op["fx"], k), "      }", "    }"]
            lines.append("  }")
        lines.append("}")
    return "\n".join(lines) + "\n"


class Layout:
    """Directory and file names of one run (rank layout of torchair > 7.1.0)."""

    def __init__(self, root, world, rank, ge_dir="msit_ge_dump", fx_dir="msit_fx_dump"):
        self.root, self.world, self.rank = root, world, rank
        self.ge_root = os.path.join(root, ge_dir)
        self.fx_root = os.path.join(root, fx_dir)
        self.rank_dir = "worldsize%d_global_rank%d" % (world, rank)

    def ge_token_dir(self, token):
        d = os.path.join(self.ge_root, self.rank_dir, "20250601080000", str(self.rank), "graph_1_0", "1", str(token))
        os.makedirs(d, exist_ok=True)
        return d

    def fx_token_dir(self, token):
        d = os.path.join(self.fx_root, self.rank_dir, "gm_20250601080000000000_dump", str(token))
        os.makedirs(d, exist_ok=True)
        return d

    def graph_path(self):
        os.makedirs(self.ge_root, exist_ok=True)
        return os.path.join(self.ge_root, "dynamo_original_graph_1_rank_%d_pid_%d_ts_20250601080000000000.txt" %
                            (self.rank, 4000 + self.rank))


def ge_file_name(op_type, op_name, index, token):
    """{OpType}.{OpName}.{TaskId}.{StreamId}.{Timestamp}: 16-digit timestamps that grow with the
    execution order (msit sorts a graph's rows by them)."""
    ts = 1748764800000000 + token * 100000 + index * 10
    return "%s.%s.%d.%d.%d" % (op_type, op_name, 10 + index, 2, ts)


def fx_file_name(fx, role, k, index, token, sub=None):
    ts = "20250601%06d%06d" % (80000 + token, index * 10 + (k if role == "OUTPUT" else 0))
    slot = "%d" % k if sub is None else "%d.%d" % (k, sub)
    return "%s.%s.%s.%s.npy" % (fx, role, slot, ts)
