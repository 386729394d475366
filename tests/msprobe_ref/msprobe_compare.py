# Runs msProbe's own `compare` (26.x auto mode) from a checkout of its sources, beside ours: nothing of
# it is copied here. MSIT_MSPROBE_REF is the checkout's python/ directory (holding msprobe/).
# Usage: MSIT_MSPROBE_REF=DIR python3 msprobe_compare.py -tp T -gp G -o OUT [msProbe's options]
import argparse
import os
import sys
import types

ref = os.environ.get("MSIT_MSPROBE_REF", "")
if not os.path.isdir(os.path.join(ref, "msprobe")):
    sys.exit("MSIT_MSPROBE_REF=%r: not msProbe's python/ directory (no msprobe/ in it)" % ref)
sys.path.insert(0, ref)
# einops is imported by msProbe's dump-side helpers only, never by compare; Debian has none.
if "einops" not in sys.modules:
    stub = types.ModuleType("einops")
    stub.rearrange = stub.repeat = None
    sys.modules["einops"] = stub
import msprobe  # noqa: E402

# msprobe.mindspore's __init__ imports MindSpore (for dumping); its compare modules need numpy only:
# the package is registered without running that __init__.
if "msprobe.mindspore" not in sys.modules:
    pkg = types.ModuleType("msprobe.mindspore")
    pkg.__path__ = [os.path.join(os.path.dirname(msprobe.__file__), "mindspore")]
    sys.modules["msprobe.mindspore"] = pkg
# Newer snapshots import torch (and torch.distributed, ...) in msprobe.pytorch's modules, which the
# compare uses only to load .pt files. Without torch, every `torch...` import yields a stand-in
# whose attributes are further stand-ins: statistics, md5 and .npy compares run, a .pt load fails
# loudly (compare_msprobe_ref.sh checks .pt pairs only where `import torch` works).
try:
    import torch  # noqa: F401
except ImportError:
    import importlib.abc
    import importlib.machinery

    class _Absent(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _Absent(self.__name__ + "." + name)

        def __call__(self, *args, **kwargs):
            raise RuntimeError(self.__name__ + ": torch is not installed")

        def __mro_entries__(self, bases):
            return (object,)

    class _TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                return importlib.machinery.ModuleSpec(name, self, is_package=True)
            return None

        def create_module(self, spec):
            return _Absent(spec.name)

        def exec_module(self, module):
            module.__path__ = []
            module.__version__ = "0"  # version checks at import time see an old torch

    sys.meta_path.insert(0, _TorchFinder())
    # msProbe's json_writer names concurrent.futures after `import concurrent` only; torch's own
    # imports load the submodule first.
    import concurrent.futures  # noqa: F401
from msprobe.core.compare.auto_compare import compare_auto_mode  # noqa: E402
from msprobe.core.compare.utils import _compare_parser  # noqa: E402

parser = argparse.ArgumentParser()
_compare_parser(parser)
compare_auto_mode(parser.parse_args(sys.argv[1:]))
