"""``tf.version``: the TensorFlow API version the facade follows, and what runs it.

Programs print ``tf.__version__`` or compare it (``tf.__version__.startswith("2")``);
the facade follows TensorFlow 2.21's API (its tests compare with TF 2.21), so that
is the version it gives. ``GIT_VERSION`` names eagertape, as TF's names its build,
so a printed report says which library ran.

>>> import eagertape.tf as tf
>>> tf.__version__ == tf.version.VERSION
True
>>> tf.version.VERSION.split(".")[0]
'2'
>>> tf.version.GIT_VERSION.startswith("eagertape-")
True
"""
from .. import __version__ as _eagertape_version

VERSION = "2.21.0"
GIT_VERSION = f"eagertape-{_eagertape_version}"
# TF's compiler field names the toolchain that built its kernels; eagertape's are XLA's.
COMPILER_VERSION = "XLA (through JAX)"
# TF 2.21's GraphDef versions (the SavedModels eagertape writes are written by
# TensorFlow itself, through jax2tf, with the installed TF's).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
