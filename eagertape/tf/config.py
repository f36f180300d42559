"""``tf.config``: JAX's devices in TF's form, and TF's runtime switches.

JAX fixes its devices when it starts: which are visible is set before the
process starts (``CUDA_VISIBLE_DEVICES``, ``JAX_PLATFORMS``), so the setters that
would change them raise TF's RuntimeError for an initialised runtime. Switches
that tune TF's own runtime (threads, soft placement, Grappler options, memory
growth) are stored and read back, and change nothing in JAX.
"""
import builtins
import collections
import types

import jax

from ..extend import config as _config
from ._util import _Unsupported, left_out as _left_out

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = """A device as ``list_physical_devices`` names it.

>>> import eagertape.tf as tf
>>> tf.config.list_physical_devices("CPU")[0].device_type
'CPU'
"""
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
LogicalDevice.__doc__ = """A device as ``list_logical_devices`` names it (what
``tf.device`` takes).

>>> import eagertape.tf as tf
>>> tf.config.list_logical_devices("CPU")[0].name
'/device:CPU:0'
"""


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """TF's description of a virtual device. JAX cannot split a device after it
    started, so ``set_logical_device_configuration`` refuses it (as TF does once
    its runtime is initialised).

    >>> import eagertape.tf as tf
    >>> tf.config.LogicalDeviceConfiguration(memory_limit=1024).memory_limit
    1024
    """

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


def run_functions_eagerly(run_eagerly):
    """Run every ``tf.function`` as plain Python (True), or compiled (False).

    >>> import eagertape.tf as tf
    >>> tf.config.run_functions_eagerly(False); tf.config.functions_run_eagerly()
    False
    """
    _config.run_functions_eagerly = builtins.bool(run_eagerly)


def functions_run_eagerly():
    """Whether ``run_functions_eagerly(True)`` is in effect.

    >>> import eagertape.tf as tf
    >>> tf.config.functions_run_eagerly()
    False
    """
    return _config.run_functions_eagerly


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


def _jax_devices():
    out = []
    for platform in ("cpu", "gpu", "tpu"):
        try:
            out += [(platform.upper(), i) for i in builtins.range(len(jax.devices(platform)))]
        except RuntimeError:
            continue
    return out


def _wanted(device_type):
    return lambda kind: device_type is None or kind == str(device_type).upper()


def list_physical_devices(device_type=None):
    """JAX's devices in TF's form (``CPU``, ``GPU``; a TPU is ``TPU``).

    >>> import eagertape.tf as tf
    >>> tf.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    want = _wanted(device_type)
    if device_type is not None and str(device_type).upper() == "CPU":
        # TF's one physical CPU, however many CPU devices it is split into; asked
        # without starting JAX, so that set_logical_device_configuration may follow.
        return [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    return [PhysicalDevice(f"/physical_device:{k}:{i}", k) for k, i in _jax_devices()
            if want(k) and (k != "CPU" or i == 0)]


def list_logical_devices(device_type=None):
    """JAX's devices as TF's logical devices (one per physical device).

    >>> import eagertape.tf as tf
    >>> tf.config.list_logical_devices("CPU")
    [LogicalDevice(name='/device:CPU:0', device_type='CPU')]
    """
    want = _wanted(device_type)
    return [LogicalDevice(f"/device:{k}:{i}", k) for k, i in _jax_devices() if want(k)]


def get_visible_devices(device_type=None):
    """The physical devices JAX uses: all it has.

    >>> import eagertape.tf as tf
    >>> tf.config.get_visible_devices("CPU") == tf.config.list_physical_devices("CPU")
    True
    """
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Keeping the visible devices as they are is accepted; changing them raises
    RuntimeError (as TF does once its runtime is initialised): JAX fixes its
    devices when it starts, so set ``CUDA_VISIBLE_DEVICES`` / ``JAX_PLATFORMS``
    before starting Python.

    >>> import eagertape.tf as tf
    >>> tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"), "CPU")
    """
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    want = _wanted(device_type)
    current = [d for d in list_physical_devices() if want(d.device_type)]
    if sorted(PhysicalDevice(*d) for d in devices) != sorted(current):
        raise RuntimeError("Visible devices cannot be modified after being initialized (JAX "
                           "fixes its devices when it starts: set CUDA_VISIBLE_DEVICES or "
                           "JAX_PLATFORMS before starting Python)")


def get_logical_device_configuration(device):
    """None: JAX's devices are not split into virtual devices.

    >>> import eagertape.tf as tf
    >>> print(tf.config.get_logical_device_configuration(tf.config.list_physical_devices()[0]))
    None
    """
    return None


def set_logical_device_configuration(device, logical_devices):
    """Split the CPU into ``len(logical_devices)`` CPU devices, as TF's virtual
    devices (what a program does to try a ``tf.distribute`` strategy with several
    replicas on one machine): JAX's ``jax_num_cpu_devices``, which takes effect only
    before JAX's first operation, as TF's only before its runtime is initialised;
    after it, or for a GPU (JAX cannot split one: ``XLA_PYTHON_CLIENT_MEM_FRACTION``
    caps its memory), this raises TF's RuntimeError.

    >>> import eagertape.tf as tf
    >>> _ = tf.constant(1.0)        # JAX's runtime has started
    >>> tf.config.set_logical_device_configuration(
    ...     tf.config.list_physical_devices()[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    RuntimeError: Virtual devices cannot be modified after being initialized ...
    """
    n = builtins.len(logical_devices)
    kind = getattr(device, "device_type", None)
    if kind == "CPU" and n >= 1 and all(getattr(c, "memory_limit", None) is None
                                        for c in logical_devices):
        try:
            jax.config.update("jax_num_cpu_devices", n)
            return
        except RuntimeError:    # started: the split it has is kept, another refused
            if builtins.len(jax.devices("cpu")) == n:
                return
    raise RuntimeError("Virtual devices cannot be modified after being initialized (JAX cannot "
                       "split its devices once it has started: call this before any TF "
                       "operation, or set XLA_FLAGS=--xla_force_host_platform_device_count=N "
                       "for CPU devices, XLA_PYTHON_CLIENT_MEM_FRACTION for GPU memory, before "
                       "starting Python)")


_soft_placement = [True]


def get_soft_device_placement():
    """Whether soft placement is on (TF's default True; stored only).

    >>> import eagertape.tf as tf
    >>> tf.config.get_soft_device_placement()
    True
    """
    return _soft_placement[0]


def set_soft_device_placement(enabled):
    """Stored for ``get_soft_device_placement``: JAX places an op where its
    operands are (``tf.device`` moves values onto a device), so there is no
    kernel-less device to fall back from.

    >>> import eagertape.tf as tf
    >>> tf.config.set_soft_device_placement(True)
    """
    _soft_placement[0] = builtins.bool(enabled)


# -- submodules ------------------------------------------------------------------
_memory_growth = {}


def _set_memory_growth(device, enable):
    """Accepted for a GPU and a no-op (TF's ValueError for a CPU): JAX's memory
    preallocation is set by ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` (or
    ``XLA_PYTHON_CLIENT_MEM_FRACTION``) before JAX starts.

    >>> import eagertape.tf as tf
    >>> for gpu in tf.config.list_physical_devices("GPU"):
    ...     tf.config.experimental.set_memory_growth(gpu, True)
    """
    device = PhysicalDevice(*device)
    if device.device_type not in ("GPU", "TPU"):
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    _memory_growth[device] = builtins.bool(enable)


def _get_memory_growth(device):
    """What ``set_memory_growth`` stored (False if nothing; KeyError for a CPU, as TF)."""
    device = PhysicalDevice(*device)
    if device.device_type not in ("GPU", "TPU"):
        raise KeyError(device)
    return _memory_growth.get(device, False)


def _module(name, doc, left_out=None, **attrs):
    mod = types.ModuleType(name, doc)
    mod.__dict__.update(attrs)
    mod.__getattr__ = _Unsupported(name, left_out)
    return mod


_determinism = {"enabled": False}

# XLA's GPU flags for deterministic ops (read by XLA when its GPU backend starts).
_GPU_DETERMINISM_FLAGS = ("--xla_gpu_deterministic_ops=true",)


def _enable_op_determinism():
    """TF's switch to deterministic ops, from here on in this process. As in TF, a
    random op with neither a global seed (``tf.random.set_seed``) nor an op seed
    then raises RuntimeError. eagertape's ops on the CPU are deterministic already
    (XLA's CPU kernels do not race), and so is its ``tf.data`` (it runs
    sequentially). On a GPU, XLA's deterministic kernels (scatter, reductions)
    are chosen by its flag ``--xla_gpu_deterministic_ops=true``, which XLA reads
    once, when its first backend starts: this function adds the flag to
    ``XLA_FLAGS`` (so a backend not started yet, and the processes this one
    starts, get it) and, on a GPU, warns that only a backend started after the
    call (or a process started with the flag) has it. JAX's configuration is
    not touched.

    >>> import eagertape.tf as tf
    >>> tf.random.set_seed(1)
    >>> tf.config.experimental.enable_op_determinism()
    >>> tf.random.normal([2]).shape
    TensorShape([2])
    >>> tf.config.experimental._disable_op_determinism()   # (the tests' way back; TF has none)
    """
    import os
    import warnings
    _determinism["enabled"] = True
    flags = os.environ.get("XLA_FLAGS", "").split()
    missing = [f for f in _GPU_DETERMINISM_FLAGS if f not in flags]
    if not missing:
        return
    _determinism.setdefault("xla_flags", os.environ.get("XLA_FLAGS"))
    os.environ["XLA_FLAGS"] = " ".join(flags + missing)
    if jax.default_backend() == "gpu":      # (a backend started now has the flag)
        warnings.warn(
            "tf.config.experimental.enable_op_determinism: XLA reads "
            "--xla_gpu_deterministic_ops=true (now in XLA_FLAGS) when its backend starts; "
            "if JAX computed anything before this call, its GPU kernels may not be "
            "deterministic: set XLA_FLAGS=--xla_gpu_deterministic_ops=true before the "
            "process starts to be sure.", RuntimeWarning, stacklevel=2)


def _disable_op_determinism():
    # TF has no public way back (its tests' config.disable_op_determinism is private):
    # the tests' way, which also gives XLA_FLAGS back.
    import os
    _determinism["enabled"] = False
    if "xla_flags" in _determinism:
        old = _determinism.pop("xla_flags")
        if old is None:
            os.environ.pop("XLA_FLAGS", None)
        else:
            os.environ["XLA_FLAGS"] = old


def _op_determinism_enabled():
    return _determinism["enabled"]


experimental = _module(
    "tf.config.experimental", "TF's experimental device settings, onto JAX's devices.",
    enable_op_determinism=_enable_op_determinism,
    _disable_op_determinism=_disable_op_determinism,
    left_out=_left_out("TF's distributed runtime: use jax.distributed", "ClusterDeviceFilters"),
    set_memory_growth=_set_memory_growth, get_memory_growth=_get_memory_growth,
    list_physical_devices=list_physical_devices, list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices, set_visible_devices=set_visible_devices,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    get_virtual_device_configuration=get_logical_device_configuration,
    set_virtual_device_configuration=set_logical_device_configuration)

_threads = {"inter": 0, "intra": 0}
threading = _module(
    "tf.config.threading", "TF's thread-pool sizes: stored (0: TF's default), not applied; "
    "XLA sizes its own pools (XLA_FLAGS before starting).",
    get_inter_op_parallelism_threads=lambda: _threads["inter"],
    set_inter_op_parallelism_threads=lambda num_threads: _threads.update(inter=num_threads),
    get_intra_op_parallelism_threads=lambda: _threads["intra"],
    set_intra_op_parallelism_threads=lambda num_threads: _threads.update(intra=num_threads))

_optimizer = {"jit": "", "options": {}}
optimizer = _module(
    "tf.config.optimizer", "TF's graph-optimizer switches: stored, not applied (XLA compiles "
    "every tf.function).",
    get_jit=lambda: _optimizer["jit"],
    set_jit=lambda enabled: _optimizer.update(
        jit=enabled if isinstance(enabled, str) else ("autoclustering" if enabled else "")),
    get_experimental_options=lambda: _experimental_options(),
    set_experimental_options=lambda options: _optimizer["options"].update(options))

# TF's RewriterConfig, as TF's get_experimental_options reads it: the switches set
# (in the proto's order), and the two booleans always (False where not set).
_REWRITER = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping",
             "arithmetic_optimization", "dependency_optimization", "loop_optimization",
             "function_optimization", "debug_stripper", "disable_model_pruning",
             "scoped_allocator_optimization", "pin_to_host_optimization",
             "implementation_selector", "auto_mixed_precision", "use_plugin_optimizers",
             "disable_meta_optimizer", "auto_mixed_precision_onednn_bfloat16",
             "auto_mixed_precision_mkl")
_REWRITER_BOOLS = ("disable_model_pruning", "disable_meta_optimizer")


def _experimental_options():
    got = _optimizer["options"]
    out = {k: bool(got.get(k, False)) for k in _REWRITER
           if k in got or k in _REWRITER_BOOLS}
    if got.get("min_graph_nodes"):
        out["min_graph_nodes"] = got["min_graph_nodes"]
    return out

__getattr__ = _Unsupported("tf.config", _left_out(
    "TF's distributed runtime (remote eager servers): use jax.distributed.initialize",
    "experimental_connect_to_cluster experimental_connect_to_host"))
