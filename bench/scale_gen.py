#!/usr/bin/env python3
"""Writes summarised dump trees of N tensor pairs for compare's scale bench (bench/scale_compare.sh)
straight from the documented formats: summary stores (docs/store.md, version 2) or JSON summaries
(docs/formats/summary.md), graph texts (docs/formats/graph-text.md), names and directories as
docs/formats/ge-dump.md and fx-npy.md describe them. Shares no code with msit-compact.

  scale_gen.py --flow gefx|fxfx|msprobe --pairs N --out DIR [--format store|json] [--ops 2400] [--ranks 1]
               [--my-tokens K] [--steps S]

gefx: DIR/msit_ge_dump (my, GE ops of 2 inputs and 1 output, 3 pairs per op) and DIR/msit_fx_dump
(golden, the FX nodes the graph text names); fxfx: DIR/my/msit_fx_dump and DIR/golden/msit_fx_dump;
msprobe: DIR/npu and DIR/bench, compacted msProbe dumps (docs/formats/msprobe.md: dump.json and the
rank folder's store), one API of 2 inputs and 1 output per op; atb: DIR/atb (my) and DIR/torch
(golden), compacted ATB and torch-hook dumps of a model of 80 blocks (docs/formats/atb-torch.md),
compared at --cl api (3 rows per block and token).
Store trees of several ranks: rank 0 is written row by row, the other ranks are SQL copies of it.
A token holds --ops ops (80 layers x 30 ops by default); tokens follow each other in time.
One op in every 16 tokens carries an injected error (RED ~0.05), the rest only noise (~1e-3).
--my-tokens K writes only the first K tokens of each rank on the watched (my) side and every token
on the golden's: the golden of `watch --golden` far ahead of the dump (bench/scale_golden.sh).
"""
import argparse
import json
import math
import os
import random
import sqlite3
import struct
import sys
import zlib

SKETCH_W = 128
SKETCH_SEED = 0x6D7369742D636D70  # docs/formats/summary.md §4, the default seed
COUNT = 4096                      # elements per tensor (> the sketch width: a sketch, not values)
SHAPE = "[1,4096]"
CREATED_BY = "scale_gen 1"
OP_TYPES = [("Add", "aten.add.Tensor"), ("Mul", "aten.mul.Tensor"), ("Sub", "aten.sub.Tensor"),
            ("Div", "aten.div.Tensor")]

# docs/store.md "Tables" (version 2): the schema must be exactly the store's, or readers refuse it.
TENSOR_COLS = [
    ("role", "TEXT NOT NULL"), ("idx", "INTEGER NOT NULL"), ("sub_index", "INTEGER"), ("dtype", "TEXT NOT NULL"),
    ("shape", "TEXT NOT NULL"), ("format", "TEXT NOT NULL"), ("original_shape", "TEXT NOT NULL"),
    ("count", "INTEGER NOT NULL"), ("padding_included", "INTEGER NOT NULL"), ("stats_available", "INTEGER NOT NULL"),
    ("l2norm_available", "INTEGER NOT NULL"), ("note", "TEXT"), ("min", "REAL"), ("max", "REAL"),
    ("min_int", "INTEGER"), ("max_int", "INTEGER"), ("min_uint", "TEXT"), ("max_uint", "TEXT"), ("mean", "REAL"),
    ("std", "REAL"), ("abs_max", "REAL"), ("l2norm", "REAL NOT NULL"), ("sum", "REAL NOT NULL"),
    ("finite_count", "INTEGER NOT NULL"), ("nan_count", "INTEGER NOT NULL"), ("posinf_count", "INTEGER NOT NULL"),
    ("neginf_count", "INTEGER NOT NULL"), ("zero_count", "INTEGER NOT NULL"), ("elements", "BLOB"),
    ("sketch_width", "INTEGER"), ("sketch_seed", "INTEGER"), ("sketch", "BLOB"), ("xxh3_64", "TEXT NOT NULL")]
FILE_COLS = [
    ("kind", "TEXT NOT NULL"), ("size_bytes", "INTEGER NOT NULL"), ("mtime_ns", "INTEGER NOT NULL"),
    ("dev", "INTEGER NOT NULL"), ("ino", "INTEGER NOT NULL"), ("op_type", "TEXT"), ("op_name", "TEXT"),
    ("task_id", "TEXT"), ("stream_id", "TEXT"), ("op_timestamp", "TEXT"), ("dump_op_name", "TEXT"),
    ("created_by", "TEXT NOT NULL"), ("stored_at_ns", "INTEGER NOT NULL"), ("extra_block_count", "INTEGER NOT NULL")]
BLOCK_COLS = [("role", "TEXT NOT NULL"), ("idx", "INTEGER NOT NULL"), ("size_bytes", "INTEGER NOT NULL"),
              ("xxh3_64", "TEXT NOT NULL")]


def cols(c):
    return ",".join(f"\n  {n} {t}" for n, t in c)


SCHEMA = f"""
CREATE TABLE meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE dirs(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE
);
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  dir_id INTEGER NOT NULL REFERENCES dirs(id),
  name TEXT NOT NULL,{cols(FILE_COLS)},
  UNIQUE(dir_id, name)
);
CREATE TABLE tensors(
  key INTEGER PRIMARY KEY,{cols(TENSOR_COLS)}
);
CREATE TABLE extra_blocks(
  file_id INTEGER NOT NULL REFERENCES files(id),
  ord INTEGER NOT NULL,{cols(BLOCK_COLS)},
  PRIMARY KEY(file_id, ord)
) WITHOUT ROWID;
CREATE VIEW tensor_stats AS
  SELECT iif(d.path = '', f.name, d.path || '/' || f.name) AS path, f.op_type, f.op_name, t.role, t.idx,
         t.sub_index, t.dtype, t.shape, t.count, coalesce(t.min_int, t.min) AS min,
         coalesce(t.max_int, t.max) AS max, t.mean, t.std, t.abs_max, t.l2norm, t.nan_count, t.posinf_count,
         t.neginf_count, t.zero_count, t.xxh3_64
  FROM tensors t JOIN files f ON f.id = t.key >> 20 JOIN dirs d ON d.id = f.dir_id;
"""
APP_ID = 0x6D736974


class Tensors:
    """A pool of golden sketches and noisy copies of them: a tensor's summary is drawn from it."""

    def __init__(self, rng, pool=257):
        self.pool = []
        for _ in range(pool):
            g = [rng.gauss(0.0, 1.0) for _ in range(SKETCH_W)]
            noise = [v + rng.gauss(0.0, 1e-3) for v in g]
            bad = [v + rng.gauss(0.0, 0.05) for v in g]
            self.pool.append(tuple(self.pack(x) for x in (g, noise, bad)))

    @staticmethod
    def pack(v):
        norm = math.sqrt(sum(x * x for x in v))
        mean = sum(v) / len(v) / 8.0
        std = math.sqrt(max(0.0, norm * norm / COUNT - mean * mean))
        lo, hi = min(v) * 3.0, max(v) * 3.0
        return dict(sketch=struct.pack(f"<{SKETCH_W}f", *v), l2norm=norm, mean=mean, std=std, min=lo, max=hi,
                    abs_max=max(-lo, hi), sum=mean * COUNT, values=v)

    def get(self, i, variant):
        return self.pool[i % len(self.pool)][variant]


def tensor_row(key, role, idx, s, seq, salt):
    return (key, role, idx, None, "float16", SHAPE, "ND", SHAPE, COUNT, 0, 1, 1, None, s["min"], s["max"], None, None,
            None, None, s["mean"], s["std"], s["abs_max"], s["l2norm"], s["sum"], COUNT, 0, 0, 0, 0, None, SKETCH_W,
            SKETCH_SEED, s["sketch"], f"{(seq * 0x9E3779B97F4A7C15 + salt) & 0xFFFFFFFFFFFFFFFF:016x}")


class StoreWriter:
    def __init__(self, root, salt_key=None, listed_depth=None):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.listed_depth = listed_depth  # make only the first K components of a directory on disk
        # The two sides' payload hashes differ (equal hashes would make every pair exact).
        self.salt = zlib.crc32((salt_key or os.path.relpath(root, os.path.dirname(os.path.dirname(root)))).encode())
        path = os.path.join(root, "msit-summary.db")
        if os.path.exists(path):
            os.remove(path)
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.executescript(SCHEMA)
        self.db.execute(f"PRAGMA application_id = {APP_ID}")
        self.db.execute("PRAGMA user_version = 2")
        self.db.execute("INSERT INTO meta VALUES ('created_by', ?)", (CREATED_BY,))
        self.db.execute("BEGIN")
        self.dirs, self.new_dirs, self.made = {}, [], set()
        self.next_file = 1
        self.files, self.tensors = [], []

    def dir_id(self, rel):
        if rel not in self.dirs:
            on_disk = rel if self.listed_depth is None else "/".join(rel.split("/")[:self.listed_depth])
            if on_disk not in self.made:
                os.makedirs(os.path.join(self.root, on_disk), exist_ok=True)  # readers list it (raw files gone)
                self.made.add(on_disk)
            self.dirs[rel] = len(self.dirs) + 1
            self.new_dirs.append((self.dirs[rel], rel))
        return self.dirs[rel]

    def add(self, rel_dir, name, kind, op, tensors, seq):
        fid = self.next_file
        self.next_file += 1
        op = op or (None, None, None, None, None)
        self.files.append((fid, self.dir_id(rel_dir), name, kind, 8192 * len(tensors), 1748764800000000000 + seq, 1,
                           fid, *op, None, CREATED_BY, 1748764800000000000, 0))
        for o, (role, idx, s) in enumerate(tensors):
            self.tensors.append(tensor_row(fid * 1048576 + o, role, idx, s, seq * 4 + o, self.salt))
        if len(self.tensors) >= 50000:
            self.flush()

    def clone(self, r, rank_path):
        """Copies the rows written before the first call (rank 0's, or token 0's) as copy r, in SQL:
        Python writes ~5k pairs/s, too slow for 16 x 1M. rank_path maps a directory of the first block
        to copy r's. Keys and ids move by whole blocks, so the copy's rows keep the layout of
        docs/store.md (tensor key = file id << 20 | ordinal)."""
        if not hasattr(self, "rank0"):
            self.rank0 = (self.next_file - 1, dict(self.dirs))
        files, dirs = self.rank0
        off = r * files
        for rel, did in dirs.items():
            self.dir_id(rank_path(rel))
        self.flush()
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS dmap(old INTEGER PRIMARY KEY, new INTEGER)")
        self.db.execute("DELETE FROM dmap")
        self.db.executemany("INSERT INTO dmap VALUES (?, ?)", [(did, self.dirs[rank_path(rel)]) for rel, did in dirs.items()])
        fcols = ",".join(n for n, _ in FILE_COLS if n != "ino")
        self.db.execute(f"INSERT INTO files(id, dir_id, name, ino, {fcols}) SELECT f.id + ?, m.new, f.name, f.ino + ?, "
                        f"{','.join('f.' + c for c in fcols.split(','))} FROM files f CROSS JOIN dmap m "
                        f"WHERE f.id <= ? AND m.old = f.dir_id", (off, off, files))  # CROSS: the id range outer
        tcols = ",".join(n for n, _ in TENSOR_COLS)
        self.db.execute(f"INSERT INTO tensors(key, {tcols}) SELECT key + ?, {tcols} FROM tensors WHERE key < ?",
                        (off * 1048576, (files + 1) * 1048576))
        self.next_file = off + files + 1

    def flush(self):
        self.db.executemany("INSERT INTO dirs VALUES (?, ?)", self.new_dirs)
        self.new_dirs = []
        self.db.executemany(f"INSERT INTO files VALUES ({','.join('?' * (3 + len(FILE_COLS)))})", self.files)
        self.db.executemany(f"INSERT INTO tensors VALUES ({','.join('?' * (1 + len(TENSOR_COLS)))})", self.tensors)
        self.files, self.tensors = [], []

    def close(self):
        self.flush()
        self.db.execute("COMMIT")
        self.db.close()


class JsonWriter:
    """One NAME.summary.json per raw file (docs/formats/summary.md)."""

    def __init__(self, root):
        self.root = root
        self.salt = zlib.crc32(os.path.relpath(root, os.path.dirname(os.path.dirname(root))).encode())

    def add(self, rel_dir, name, kind, op, tensors, seq):
        d = os.path.join(self.root, rel_dir)
        os.makedirs(d, exist_ok=True)
        doc = {"schema": "msit-compact/summary", "version": 1,
               "source": {"name": name, "kind": kind, "size_bytes": 8192 * len(tensors),
                          "mtime_ns": 1748764800000000000 + seq}}
        if op:
            doc["op"] = dict(zip(("type", "name", "task_id", "stream_id", "timestamp"), op))
        doc["tensors"] = [{
            "role": role, "index": idx, "dtype": "float16", "shape": [1, COUNT], "format": "ND",
            "original_shape": [1, COUNT], "count": COUNT, "padding_included": False, "min": s["min"], "max": s["max"],
            "mean": s["mean"], "l2norm": s["l2norm"], "std": s["std"], "abs_max": s["abs_max"], "nan_count": 0,
            "posinf_count": 0, "neginf_count": 0, "zero_count": 0,
            "xxh3_64": f"{((seq * 4 + o) * 0x9E3779B97F4A7C15 + self.salt) & 0xFFFFFFFFFFFFFFFF:016x}",
            "sketch": {"kind": "countsketch-rot-v1", "width": SKETCH_W, "seed": f"{SKETCH_SEED:016x}",
                       "values": s["values"]}} for o, (role, idx, s) in enumerate(tensors)]
        doc["created_by"] = CREATED_BY
        with open(os.path.join(d, name + ".summary.json"), "w") as f:
            json.dump(doc, f)

    def clone(self, r, rank_path):
        raise NotImplementedError

    def close(self):
        pass


def graph_text(ops):
    """docs/formats/graph-text.md §2: one op block per GE op, its output tagged with the FX node."""
    out = []
    for k in range(ops):
        ge_type, target = OP_TYPES[k % len(OP_TYPES)]
        out.append(f'op {{\n  name: "{ge_type}_{k}"\n  type: "{ge_type}"\n  input: "x:0"\n  input: "y:0"\n'
                   f'  output_desc {{\n    name: "y"\n    dtype: DT_FLOAT16\n    layout: "ND"\n    attr {{\n'
                   f'      key: "_fx_tensor_name"\n      value {{\n'
                   f'        s: "{ge_type.lower()}_{k}-{target}.OUTPUT.0"\n      }}\n    }}\n  }}\n}}\n')
    return "".join(out)


def variant(token, k, ops, side_is_golden, output):
    """Golden is the clean tensor; mine carries noise, and in every 16th token an error injected
    into the output of op ops/2 (carried on by every op after it)."""
    if side_is_golden:
        return 0
    k0 = ops // 2
    return 2 if token % 16 == 5 and (k > k0 or (k == k0 and output)) else 1


def make(kind, root, salt_key=None):
    return StoreWriter(root, salt_key) if kind == "store" else JsonWriter(root)


def gen_ranks(a):
    """The ranks the generator writes row by row: all of them for JSON summaries, rank 0 of a store
    (the others are copied from it, StoreWriter.clone_rank)."""
    return range(a.ranks if a.format == "json" else 1)


def clone_ranks(a, writers, rank_path):
    if a.format == "store":
        for r in range(1, a.ranks):
            for w in writers:
                w.clone(r, lambda rel, r=r: rank_path(rel, r))


def gen_gefx(a, pool):
    ge_root, fx_root = os.path.join(a.out, "msit_ge_dump"), os.path.join(a.out, "msit_fx_dump")
    ge, fx = make(a.format, ge_root), make(a.format, fx_root)
    os.makedirs(ge_root, exist_ok=True)
    for r in range(a.ranks):
        with open(os.path.join(ge_root, f"dynamo_original_graph_1_rank_{r}_pid_1_ts_20250601080000000000.txt"),
                  "w") as f:
            f.write(graph_text(a.ops))
    for r in gen_ranks(a):
        rank = f"worldsize{a.ranks}_global_rank{r}"
        seq = 0
        for t in range(a.tokens):
            ge_dir = f"{rank}/20250601080000/{r}/graph_1_0/1/{t}"
            fx_dir = f"{rank}/gm_20250601080000000000_dump/{t}"
            mine = a.my_tokens is None or t < a.my_tokens
            for k in range(a.ops):
                ge_type, target = OP_TYPES[k % len(OP_TYPES)]
                ts16 = 1748764800000000 + seq * 10
                tensors = {}
                for side in (0, 1):
                    vi, vo = (variant(t, k, a.ops, side == 1, o) for o in (False, True))
                    tensors[side] = [("input", 0, pool.get(3 * k, vi)), ("input", 1, pool.get(3 * k + 1, vi)),
                                     ("output", 0, pool.get(3 * k + 2, vo))]
                if mine:
                    ge.add(ge_dir, f"{ge_type}.{ge_type}_{k}.{k}.1.{ts16}", "ge_bin",
                           (ge_type, f"{ge_type}_{k}", str(k), "1", str(ts16)), tensors[0], seq)
                node = f"{ge_type.lower()}_{k}-{target}"
                ts20 = f"{20250601080000000000 + seq * 10}"
                for o, (role, idx, s) in enumerate(tensors[1]):
                    fx.add(fx_dir, f"{node}.{role.upper()}.{idx}.{ts20}.npy", "npy", None, [(role, idx, s)], seq * 4 + o)
                seq += 1
    clone_ranks(a, (ge, fx), lambda rel, r: rel.replace("_global_rank0/", f"_global_rank{r}/", 1)
                .replace("/20250601080000/0/", f"/20250601080000/{r}/", 1))
    ge.close()
    fx.close()
    return f"-m {ge_root} -g {fx_root}"


def gen_fxfx(a, pool):
    roots = {s: os.path.join(a.out, s, "msit_fx_dump") for s in ("my", "golden")}
    w = {s: make(a.format, roots[s]) for s in roots}
    for r in gen_ranks(a):
        rank = f"worldsize{a.ranks}_global_rank{r}"
        seq = 0
        for t in range(a.tokens):
            fx_dir = f"{rank}/gm_20250601080000000000_dump/{t}"
            for k in range(a.ops):
                ge_type, target = OP_TYPES[k % len(OP_TYPES)]
                node = f"{ge_type.lower()}_{k}-{target}"
                ts20 = f"{20250601080000000000 + seq * 10}"
                for side in roots:
                    if side == "my" and a.my_tokens is not None and t >= a.my_tokens:
                        continue
                    for o, (role, idx) in enumerate((("input", 0), ("input", 1), ("output", 0))):
                        s = pool.get(3 * k + o, variant(t, k, a.ops, side == "golden", role == "output"))
                        w[side].add(fx_dir, f"{node}.{role.upper()}.{idx}.{ts20}.npy", "npy", None, [(role, idx, s)],
                                    seq * 4 + o)
                seq += 1
    clone_ranks(a, w.values(), lambda rel, r: rel.replace("_global_rank0/", f"_global_rank{r}/", 1))
    for x in w.values():
        x.close()
    return f"-m {roots['my']} -g {roots['golden']}"


MSPROBE_APIS = ["Functional.linear", "Torch.add", "Tensor.mul", "Torch.matmul"]


def gen_msprobe(a, pool):
    """docs/formats/msprobe.md: a PyTorch L1 tensor dump per side (npu = my, bench = golden),
    compacted: step{S}/rank{R}/dump.json (--steps S, the tokens spread over them; step0 only by
    default) names each tensor's data_name (§3-§7, one API of 2 inputs and
    1 output per op) and the rank folder's store holds the summaries of the dump_tensor_data/ files
    that are gone (§10)."""
    if a.format != "store":
        sys.exit("--flow msprobe writes stores only")
    roots = {}
    per_step = (a.tokens + a.steps - 1) // a.steps
    for side, s, r in ((side, s, r) for side in ("npu", "bench") for s in range(a.steps) for r in range(a.ranks)):
        rank_dir = os.path.join(a.out, side, f"step{s}", f"rank{r}")
        st = StoreWriter(rank_dir, salt_key=f"{side}/rank{r}" if s == 0 else f"{side}/step{s}/rank{r}")
        calls = dict.fromkeys(MSPROBE_APIS, 0)  # msProbe numbers each API's calls per step
        with open(os.path.join(rank_dir, "dump.json"), "w") as f:
            f.write('{"task": "tensor", "level": "L1", "framework": "pytorch", '
                    f'"dump_data_dir": {json.dumps(os.path.join(rank_dir, "dump_tensor_data"))}, "data": {{')
            seq = 0
            for t in range(s * per_step, min((s + 1) * per_step, a.tokens)):
                for k in range(a.ops):
                    api = MSPROBE_APIS[k % len(MSPROBE_APIS)]
                    entry = f"{api}.{calls[api]}.forward"
                    calls[api] += 1
                    body = {"input_args": [], "input_kwargs": {}, "output": []}
                    for o, (cat, key, idx) in enumerate((("input", "input_args", 0), ("input", "input_args", 1),
                                                         ("output", "output", 0))):
                        ts = pool.get(3 * k + o, variant(t, k, a.ops, side == "bench", cat == "output"))
                        name = f"{entry}.{cat}.{idx}.pt"
                        body[key].append({"type": "torch.Tensor", "dtype": "torch.float16", "shape": [1, COUNT],
                                          "Max": ts["max"], "Min": ts["min"], "Mean": ts["mean"],
                                          "Norm": ts["l2norm"], "requires_grad": False, "data_name": name})
                        st.add("dump_tensor_data", name, "pth", None, [("input" if cat == "input" else "output",
                                                                     idx, ts)], seq * 4 + o)
                    f.write(("" if seq == 0 else ",") + f"\n {json.dumps(entry)}: {json.dumps(body)}")
                    seq += 1
            f.write("\n}}\n")
        st.close()
        roots[side] = os.path.join(a.out, side)
    return f"-m {roots['npu']} -g {roots['bench']}"


ATB_LAYERS = 80
ATB_ROOT, TORCH_ROOT = "atb/msit_dump_20260101_000000", "torch/msit_dump_20260101_000000"


def tree_node(name, typ, children):
    """docs/formats/atb-torch.md §1.4: json.dump's default separators, one line."""
    return f'{{"name": {json.dumps(name)}, "type": {json.dumps(typ)}, "children": [' + ", ".join(children) + "]}"


def atb_layer_json(i):
    """docs/formats/atb-torch.md §2.3: the layer JSON of BlockLayer_i (a LayerNorm, then a Linear)."""
    n = f"BlockLayer_{i}"
    in0, w, b, out, ln, fc = (f"{n}_input_0", f"{n}_input_1", f"{n}_input_2", f"{n}_output_0", f"{n}_internal_0",
                              f"{n}_internal_1")
    return {"opName": n, "opType": "BlockLayer", "param": "", "inTensors": [in0, w, b], "outTensors": [out],
            "internalTensors": [ln, fc],
            "nodes": [{"opName": f"LayerNormOperation_{i}_0", "opType": "LayerNormOperation", "param": {},
                       "inTensors": [in0], "outTensors": [ln]},
                      {"opName": f"LinearOperation_{i}_1", "opType": "LinearOperation", "param": {"hasBias": True},
                       "inTensors": [ln, w, b], "outTensors": [fc]}]}


def atb_model_json(layers):
    """docs/formats/atb-torch.md §2.3: atb_speed's report (keys in alphabetical order) with the
    probe's level-1 rewrite merging each layer JSON."""
    nodes, weights, internals, prev = [], [], [], "Model_input_0"
    for i in range(layers):
        w, b = f"Model_weight_{2 * i}", f"Model_weight_{2 * i + 1}"
        weights += [w, b]
        out = "Model_output_0" if i + 1 == layers else f"Model_internal_{i}"
        if i + 1 < layers:
            internals.append(out)
        lj = atb_layer_json(i)
        nodes.append({"inTensors": [prev, w, b], "opName": f"BlockLayer_{i}", "outTensors": [out],
                      "opType": "BlockLayer", "internalTensors": lj["internalTensors"], "nodes": lj["nodes"]})
        prev = out
    return {"inTensors": ["Model_input_0"], "internalTensors": internals, "modelName": "Model", "nodes": nodes,
            "outTensors": ["Model_output_0"], "weightTensors": weights}


def gen_atb(a, pool):
    """docs/formats/atb-torch.md: a model of ATB_LAYERS blocks (LayerNorm, Linear) dumped by ATB
    (float16 .bin, the model and layer JSONs: my) and by msit's torch hook (float32 .pth,
    model_tree.json: golden), compacted: each dump's store holds the files' summaries, only the token
    directories stay on disk. Token 0 is written row by row, the others are SQL copies of it (each
    carries the same injected error, at block ATB_LAYERS / 2)."""
    if a.format != "store":
        sys.exit("--flow atb writes stores only")
    L = ATB_LAYERS
    atb_root, torch_root = os.path.join(a.out, ATB_ROOT), os.path.join(a.out, TORCH_ROOT)
    atb, torch = StoreWriter(atb_root, "atb", listed_depth=3), StoreWriter(torch_root, "torch", listed_depth=3)
    for d, text in ((f"model/200/Model.json", json.dumps(atb_model_json(L))),):
        os.makedirs(os.path.dirname(os.path.join(atb_root, d)), exist_ok=True)
        with open(os.path.join(atb_root, d), "w") as f:
            f.write(text)
    os.makedirs(os.path.join(atb_root, "layer/200"), exist_ok=True)
    for i in range(L):
        with open(os.path.join(atb_root, f"layer/200/BlockLayer_{i}.json"), "w") as f:
            json.dump(atb_layer_json(i), f)
    blocks = [tree_node(f"root.layers.{i}", "Block", [tree_node(f"root.layers.{i}.ln", "LayerNorm", []),
                                                      tree_node(f"root.layers.{i}.fc", "Linear", [])]) for i in range(L)]
    os.makedirs(os.path.join(torch_root, "torch_tensors/cpu_100"), exist_ok=True)
    with open(os.path.join(torch_root, "torch_tensors/cpu_100/model_tree.json"), "w") as f:
        f.write(tree_node("root", "Model", [tree_node("root.layers", "ModuleList", blocks)]))
    seq = 0

    def both(k, atb_dir, atb_name, torch_dir, torch_name, role, idx, out):
        nonlocal seq
        atb.add(f"tensors/0_200/0/{atb_dir}", atb_name, "atb_bin", None,
                [(role, idx, pool.get(k, 2 if out and k >= 3 * (L // 2) else 1))], seq)
        if torch_dir is not None:
            torch.add(f"torch_tensors/cpu_100/0/{torch_dir}", torch_name, "pth", None, [(role, idx, pool.get(k, 0))],
                      seq)
        seq += 1

    for i in range(L):
        op, m, k = f"{i}_BlockLayer", f"root.layers.{i}", 3 * i
        both(k, f"{op}/before", "intensor0.bin", m, "input_0.pth", "input", 0, False)
        both(k + 2, f"{op}/after", "outtensor0.bin", m, "output.pth", "output", 0, True)
        both(k, f"{op}/0_LayerNormOperation/before", "intensor0.bin", f"{m}.ln", "input_0.pth", "input", 0, False)
        both(k + 1, f"{op}/0_LayerNormOperation/after", "outtensor0.bin", f"{m}.ln", "output.pth", "output", 0, True)
        both(k + 1, f"{op}/1_LinearOperation/before", "intensor0.bin", f"{m}.fc", "input_0.pth", "input", 0, False)
        both(k + 3, f"{op}/1_LinearOperation/before", "intensor1.bin", None, None, "input", 1, False)
        both(k + 4, f"{op}/1_LinearOperation/before", "intensor2.bin", None, None, "input", 2, False)
        both(k + 2, f"{op}/1_LinearOperation/after", "outtensor0.bin", f"{m}.fc", "output.pth", "output", 0, True)
    torch.add("torch_tensors/cpu_100/0/root", "input_0.pth", "pth", None, [("input", 0, pool.get(0, 0))], seq)
    torch.add("torch_tensors/cpu_100/0/root", "output.pth", "pth", None, [("output", 0, pool.get(3 * L, 0))], seq + 1)
    for t in range(1, a.tokens):
        atb.clone(t, lambda rel, t=t: f"tensors/0_200/{t}/" + rel.split("/", 3)[3] if rel.count("/") >= 3
                  else f"tensors/0_200/{t}")
        torch.clone(t, lambda rel, t=t: f"torch_tensors/cpu_100/{t}/" + rel.split("/", 3)[3] if rel.count("/") >= 3
                    else f"torch_tensors/cpu_100/{t}")
    atb.close()
    torch.close()
    return f"-m {atb_root} -g {torch_root} --cl api"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--flow", choices=["gefx", "fxfx", "msprobe", "atb"], required=True)
    p.add_argument("--pairs", type=int, required=True, help="tensor pairs per rank (rounded up to whole ops)")
    p.add_argument("--out", required=True)
    p.add_argument("--format", choices=["store", "json"], default="store")
    p.add_argument("--ops", type=int, default=2400, help="ops per token (3 tensor pairs each)")
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--my-tokens", type=int, help="only the first K tokens of each rank on the my side")
    p.add_argument("--steps", type=int, default=1,
                   help="msprobe: the tokens spread over this many step folders (msProbe writes a dump.json per step)")
    a = p.parse_args()
    ops_total = (a.pairs + 2) // 3
    a.ops = min(a.ops, ops_total)
    a.tokens = (ops_total + a.ops - 1) // a.ops
    if a.flow == "atb":  # 3 api rows per block and 3 of the model's: --ops is the model's
        a.ops = ATB_LAYERS + 1
        a.tokens = (a.pairs + 3 * a.ops - 1) // (3 * a.ops)
    if os.path.exists(a.out) and os.listdir(a.out):
        sys.exit(f"{a.out}: exists and is not empty; remove it first")
    pool = Tensors(random.Random(a.seed))
    args = {"gefx": gen_gefx, "fxfx": gen_fxfx, "msprobe": gen_msprobe, "atb": gen_atb}[a.flow](a, pool)
    with open(os.path.join(a.out, "compare.args"), "w") as f:
        f.write(args + "\n")
    print(f"{a.out}: {a.flow}, {a.ranks} rank(s) x {a.tokens} tokens x {a.ops} ops = "
          f"{a.ranks * a.tokens * a.ops * 3} pairs; compare {args}")


if __name__ == "__main__":
    main()
