"""``tf.compat``: TF's compatibility helpers, and ``tf.compat.v1`` for the TF-2
programs that import it (TF's migration guides among them).

- ``tf.compat.v2`` is ``eagertape.tf`` itself;
- ``tf.compat.as_bytes``, ``as_str``, ``as_text``, ``as_str_any``, ``path_to_str``,
  ``dimension_value``, ``dimension_at_index``, ``forward_compatible``,
  ``forward_compatibility_horizon`` and the type tuples (``integral_types``, ...)
  are TF's;
- ``tf.compat.v1`` has the names that behave in eager TF 2 as TF 2's own: those TF
  itself exports as the same object (``_SAME``, ``_ALIAS``: ``tf.compat.v1.log`` is
  ``tf.math.log``), and the TF 1 spellings whose eager run is a TF-2 function's
  (``_OWN``: ``reduce_sum(..., keep_dims=True)``, ``set_random_seed``,
  ``to_float``, the ``enable_*`` switches that TF 2 has on already, ...);
- TF 1's graph mode as TF's migration guides use it (``Graph().as_default()``,
  ``placeholder``, ``get_variable``/``variable_scope``, ``Session.run`` with
  ``feed_dict``, the initializers, collections, ``train.Saver``,
  ``train.init_from_checkpoint``) is ``_v1_graph``'s, its SavedModels
  (``saved_model.Builder``, ``simple_save``, ``load``) ``_v1_saved_model``'s; the
  rest of it (``disable_eager_execution``, MetaGraphs, hooks, queues, the
  Estimator) is left out: looking it up raises an AttributeError that names TF 2's
  way (TF's migration guide's mapping); the import of ``tf.compat.v1`` itself works.

>>> import eagertape.tf as tf
>>> tf1 = tf.compat.v1
>>> tf1.reduce_sum([[1.0, 2.0], [3.0, 4.0]], reduction_indices=1, keep_dims=True).numpy()
array([[3.],
       [7.]], dtype=float32)
>>> tf.compat.v2 is tf, tf1.log is tf.math.log, tf.compat.as_bytes("é")
(True, True, b'\\xc3\\xa9')
>>> tf1.disable_eager_execution
Traceback (most recent call last):
AttributeError: tf.compat.v1.disable_eager_execution is left out of eagertape's TensorFlow facade: ...
"""
import codecs as _codecs
import contextlib as _contextlib
import datetime as _datetime
import logging as _logging
import numbers as _numbers
import os as _os
import sys as _sys
import types as _types

import numpy as _np

from .. import extend as _extend

_LEFT_OUT = "is left out of eagertape's TensorFlow facade: "
_NOT_YET = "is not supported by eagertape's TensorFlow facade yet; "


def _facade():
    return _sys.modules[__package__]


# -- TF's utilities (tensorflow/python/util/compat.py, framework/tensor_shape.py) -------
integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)
complex_types = (_numbers.Complex, _np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes_or_text`` as bytes (str encoded with ``encoding``), as TF's.

    >>> import eagertape.tf as tf
    >>> tf.compat.as_bytes("abc"), tf.compat.as_bytes(bytearray(b"x"))
    (b'abc', b'x')
    """
    encoding = _codecs.lookup(encoding).name
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """``bytes_or_text`` as str (bytes decoded with ``encoding``), as TF's.

    >>> import eagertape.tf as tf
    >>> tf.compat.as_text(b"caf\\xc3\\xa9"), tf.compat.as_str("x")
    ('café', 'x')
    """
    encoding = _codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """``str(value)``, bytes decoded with ``encoding``.

    >>> import eagertape.tf as tf
    >>> tf.compat.as_str_any(b"a"), tf.compat.as_str_any(3)
    ('a', '3')
    """
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """A path-like object's path as str (others as they are), as TF's.

    >>> import pathlib
    >>> import eagertape.tf as tf
    >>> tf.compat.path_to_str(pathlib.Path("./corpus"))
    'corpus'
    """
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


# tf.compat.v1.Dimension is what TensorShape.dims holds (the core's class, as in TF).
_Dimension = _extend.Dimension


def _as_dimension(value):
    """``value`` as a Dimension (a Dimension as it is)."""
    return value if isinstance(value, _Dimension) else _Dimension(value)


def dimension_value(dimension):
    """The int (or None) of a dimension, a Dimension's value or an int as it is.

    >>> import eagertape.tf as tf
    >>> tf.compat.dimension_value(tf.TensorShape([3, None])[0])
    3
    """
    return dimension.value if isinstance(dimension, _Dimension) else dimension


def dimension_at_index(shape, index):
    """Dimension ``index`` of ``shape`` as a Dimension (unknown for an unknown rank).

    >>> import eagertape.tf as tf
    >>> tf.compat.dimension_at_index(tf.TensorShape([3, None]), 1)
    Dimension(None)
    """
    shape = _facade().TensorShape(shape)
    if shape.rank is None:
        return _Dimension(None)
    return _Dimension(shape[index])


# TF 2.21's horizon (tensorflow/python/compat/compat.py), moved on by
# TF_FORWARD_COMPATIBILITY_DELTA_DAYS as TF's.
_HORIZON = _datetime.date(2026, 1, 16)
_forward = {"date": None}


def _date_number(year, month, day):
    return (year << 9) | (month << 5) | day


def _set_forward_date(date=None):
    if date is None:
        date = _HORIZON
        delta = _os.getenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS")
        if delta:
            date += _datetime.timedelta(days=int(delta))
    if date < _HORIZON:
        _logging.getLogger("tensorflow").warning(
            "Trying to set the forward compatibility date to the past date %s. This will be "
            "ignored by TensorFlow.", date)
        return
    _forward["date"] = _date_number(date.year, date.month, date.day)


_set_forward_date()


def forward_compatible(year, month, day):
    """Whether TF's forward-compatibility window (TF 2.21's horizon, 2026-01-16) has
    passed the date given, as TF's.

    >>> import eagertape.tf as tf
    >>> tf.compat.forward_compatible(2020, 1, 1), tf.compat.forward_compatible(2100, 1, 1)
    (True, False)
    """
    return _forward["date"] > _date_number(year, month, day)


@_contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Within it, ``forward_compatible`` answers as if the horizon were the date
    given (a date before TF's own is ignored with a warning, as TF's).

    >>> import eagertape.tf as tf
    >>> with tf.compat.forward_compatibility_horizon(2100, 1, 2):
    ...     tf.compat.forward_compatible(2100, 1, 1)
    True
    """
    try:
        _set_forward_date(_datetime.date(year, month, day))
        yield
    finally:
        _set_forward_date()


# -- tf.compat.v1: TF 1 spellings whose eager run is a TF-2 function's ------------------
def _one(new, old, new_name, old_name):
    # TF 1's deprecated argument names: either spelling, not both (TF's
    # deprecated_argument_lookup).
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old
    return new


def _reduction(op):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
        axis = _one(axis, reduction_indices, "axis", "reduction_indices")
        keepdims = _one(keepdims, keep_dims, "keepdims", "keep_dims")
        return getattr(_facade(), op)(input_tensor, axis=axis, keepdims=bool(keepdims))
    reduce.__name__ = reduce.__qualname__ = op
    reduce.__doc__ = (f"TF 1's ``{op}``: ``tf.{op}``, with TF 1's argument names "
                      "``reduction_indices`` (for ``axis``) and ``keep_dims``.")
    return reduce


def _arg(op):
    def arg(input, axis=None, name=None, dimension=None, output_type="int64"):  # noqa: A002
        axis = _one(axis, dimension, "axis", "dimension")
        return getattr(_facade(), op)(input, 0 if axis is None else axis,
                                      output_type=output_type)
    arg.__name__ = arg.__qualname__ = op
    arg.__doc__ = f"TF 1's ``{op}``: ``tf.{op}``, ``dimension`` for ``axis``."
    return arg


def _cast_to(dtype, name):
    def to(x, name=None):
        return _facade().cast(x, dtype)
    to.__name__ = to.__qualname__ = name
    to.__doc__ = f"TF 1's ``{name}``: ``tf.cast(x, tf.{dtype})``."
    return to


def _no_op_switch(name, what):
    def switch(*args, **kwargs):
        return None
    switch.__name__ = switch.__qualname__ = name
    switch.__doc__ = (f"TF 1's ``{name}``: {what} is TF 2's behaviour, eagertape's only "
                      "one, so this does nothing (as in TF 2).")
    return switch


def _enable_tensor_equality():
    """TF's ``tf.compat.v1.enable_tensor_equality``: TF 2's ``==`` (elementwise) and
    unhashable Tensors and Variables again, after ``disable_tensor_equality``.

    >>> import eagertape.tf as tf
    >>> tf.compat.v1.enable_tensor_equality()
    >>> x = tf.Variable(0.0)
    >>> bool(x == tf.Variable(0.0))
    True
    """
    _extend.TensorLike._USE_EQUALITY = True


def _disable_tensor_equality():
    """TF's ``tf.compat.v1.disable_tensor_equality``: TF 1's ``==`` and ``!=`` on Tensors
    and Variables, object identity (a Python bool), and Variables hashable (by id),
    for the whole process until ``enable_tensor_equality``. An eager Tensor stays
    unhashable, as in TF; ``tf.equal`` stays elementwise.

    >>> import eagertape.tf as tf
    >>> tf.compat.v1.disable_tensor_equality()
    >>> x, y = tf.Variable(0.0), tf.Variable(0.0)
    >>> x == y, x == x, len({x, y})
    (False, True, 2)
    >>> tf.compat.v1.enable_tensor_equality()
    """
    _extend.TensorLike._USE_EQUALITY = False


def _true(name, what):
    def on(*args, **kwargs):
        return True
    on.__name__ = on.__qualname__ = name
    on.__doc__ = f"``{name}``: True, as in TF 2 ({what})."
    return on


def _constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """TF 1's ``constant``: ``tf.constant``; ``verify_shape=True`` refuses a value
    whose shape is not ``shape``."""
    tf = _facade()
    if verify_shape and shape is not None:
        have = tuple(_np.shape(value))
        want = tuple(int(d) for d in shape)
        if have != want:
            raise TypeError(f"Expected Tensor's shape: {want}, but got {have}.")
    return tf.constant(value, dtype=dtype, shape=shape)


def _convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """TF 1's ``convert_to_tensor``: ``tf.convert_to_tensor``, ``preferred_dtype``
    for ``dtype_hint``."""
    hint = _one(dtype_hint, preferred_dtype, "dtype_hint", "preferred_dtype")
    return _facade().convert_to_tensor(value, dtype=dtype, dtype_hint=hint)


def _expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """TF 1's ``expand_dims``: ``tf.expand_dims``, ``dim`` for ``axis``."""
    axis = _one(axis, dim, "axis", "dim")
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return _facade().expand_dims(input, axis)


def _squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """TF 1's ``squeeze``: ``tf.squeeze``, ``squeeze_dims`` for ``axis``."""
    return _facade().squeeze(input, _one(axis, squeeze_dims, "axis", "squeeze_dims"))


def _conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
            data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """TF 1's ``nn.conv2d``: ``tf.nn.conv2d``, ``filter`` for ``filters``."""
    filters = _one(filters, filter, "filters", "filter")
    return _facade().nn.conv2d(input, filters, strides, padding, data_format=data_format,
                               dilations=list(dilations))


def _relu6(features, name=None):
    """TF 1's ``nn.relu6``: ``tf.nn.relu6``."""
    return _facade().nn.relu6(features)


def _softmax(logits, axis=None, name=None, dim=None):
    """TF 1's ``nn.softmax``: ``tf.nn.softmax``, ``dim`` for ``axis``."""
    axis = _one(axis, dim, "axis", "dim")
    return _facade().nn.softmax(logits, axis=-1 if axis is None else axis)


def _transpose(a, perm=None, name="transpose", conjugate=False):
    """TF 1's ``transpose`` (``name`` before ``conjugate``): ``tf.transpose``."""
    return _facade().transpose(a, perm, conjugate=conjugate)


def _zeros_like(tensor, dtype=None, name=None, optimize=True):
    """TF 1's ``zeros_like``: ``tf.zeros_like``."""
    return _facade().zeros_like(tensor, dtype=dtype)


def _ones_like(tensor, dtype=None, name=None, optimize=True):
    """TF 1's ``ones_like``: ``tf.ones_like``."""
    return _facade().ones_like(tensor, dtype=dtype)


def _gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """TF 1's ``gather`` (``name`` before ``axis``): ``tf.gather``."""
    return _facade().gather(params, indices, axis=axis, batch_dims=batch_dims)


def _shape(input, name=None, out_type=None):  # noqa: A002
    """TF 1's ``shape`` (``name`` before ``out_type``): ``tf.shape``."""
    return _facade().shape(input, out_type="int32" if out_type is None else out_type)


def _size(input, name=None, out_type=None):  # noqa: A002
    """TF 1's ``size`` (``name`` before ``out_type``): ``tf.size``."""
    return _facade().size(input, out_type="int32" if out_type is None else out_type)


def _set_random_seed(seed):
    """TF 1's ``set_random_seed``: in eager TF 2 the global seed, as
    ``tf.random.set_seed``."""
    return _facade().random.set_seed(seed)


def _assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """TF 1's ``assign``: ``ref.assign(value)`` (a Variable)."""
    return ref.assign(value)


def _assign_add(ref, value, use_locking=None, name=None):
    """TF 1's ``assign_add``: ``ref.assign_add(value)`` (a Variable)."""
    return ref.assign_add(value)


def _assign_sub(ref, value, use_locking=None, name=None):
    """TF 1's ``assign_sub``: ``ref.assign_sub(value)`` (a Variable)."""
    return ref.assign_sub(value)


def _name_scope(name, default_name=None, values=None):
    """TF 1's ``name_scope(name, default_name, values)``: ``tf.name_scope`` of
    ``name``, else ``default_name``."""
    return _facade().name_scope(name if name is not None else default_name)


class _Variable:
    """TF 1's ``Variable`` (``VariableV1``): in eager TF 2 a resource variable,
    ``tf.Variable``; its TF 1 arguments (``collections``, ``use_resource``,
    ``expected_shape``, ...) are accepted as TF 2 takes them (no collections in
    eager mode). As in TF, what it makes is a ``tf.Variable``, not an instance of
    this class."""

    def __new__(cls, initial_value=None, trainable=None, collections=None,
                validate_shape=True, caching_device=None, name=None, variable_def=None,
                dtype=None, expected_shape=None, import_scope=None, constraint=None,
                use_resource=None, synchronization=None, aggregation=None, shape=None):
        from . import _v1_graph
        if _v1_graph._building() is not None:      # in a TF 1 graph: the graph's
            return _v1_graph.make_graph_variable(initial_value, name, dtype,
                                                 True if trainable is None else trainable)
        kwargs = {k: v for k, v in (("constraint", constraint), ("shape", shape),
                                    ("synchronization", synchronization),
                                    ("aggregation", aggregation)) if v is not None}
        return _facade().Variable(initial_value, trainable=True if trainable is None
                                  else trainable, name=name, dtype=dtype,
                                  validate_shape=validate_shape, **kwargs)


for _f in (_constant, _convert_to_tensor, _expand_dims, _squeeze, _transpose, _zeros_like,
           _ones_like, _gather, _shape, _size, _set_random_seed, _assign, _assign_add,
           _assign_sub, _name_scope, _Variable, _enable_tensor_equality,
           _disable_tensor_equality):
    _f.__name__ = _f.__qualname__ = _f.__name__[1:]


def _logging_namespace():
    logger = _facade().get_logger()

    def set_verbosity(v):
        logger.setLevel(v)

    def log(level, msg, *args, **kwargs):
        logger.log(level, msg, *args, **kwargs)

    return _types.SimpleNamespace(
        DEBUG=_logging.DEBUG, INFO=_logging.INFO, WARN=_logging.WARN, ERROR=_logging.ERROR,
        FATAL=_logging.FATAL, set_verbosity=set_verbosity,
        get_verbosity=lambda: logger.getEffectiveLevel(), log=log,
        debug=logger.debug, info=logger.info, warn=logger.warning, warning=logger.warning,
        error=logger.error, fatal=logger.critical, flush=lambda: None)


def _own():
    tf = _facade()
    own = {
        "constant": _constant, "convert_to_tensor": _convert_to_tensor, "Variable": _Variable,
        "expand_dims": _expand_dims, "squeeze": _squeeze, "transpose": _transpose,
        "zeros_like": _zeros_like, "ones_like": _ones_like, "gather": _gather,
        "shape": _shape, "size": _size, "assign": _assign, "assign_add": _assign_add,
        "assign_sub": _assign_sub, "name_scope": _name_scope,
        "set_random_seed": _set_random_seed, "random.set_random_seed": _set_random_seed,
        "Dimension": _Dimension, "dimension_value": dimension_value,
        "dimension_at_index": dimension_at_index, "executing_eagerly": tf.executing_eagerly,
        "argmax": _arg("argmax"), "argmin": _arg("argmin"),
        "arg_max": _arg("argmax"), "arg_min": _arg("argmin"),
        "data.Dataset": tf.data.Dataset, "compat": _sys.modules[__name__],
        "nn.conv2d": _conv2d, "nn.relu6": _relu6, "nn.softmax": _softmax,
    }
    for op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
               "reduce_all", "reduce_any", "reduce_logsumexp"):
        own[op] = _reduction(op)
    for dtype, name in (("float32", "to_float"), ("float64", "to_double"),
                        ("int32", "to_int32"), ("int64", "to_int64"),
                        ("bfloat16", "to_bfloat16"), ("complex64", "to_complex64"),
                        ("complex128", "to_complex128")):
        own[name] = _cast_to(dtype, name)
    for name, what in (("enable_eager_execution", "eager execution"),
                       ("enable_v2_behavior", "TF 2's behaviour"),
                       ("enable_resource_variables", "resource variables"),
                       ("enable_control_flow_v2", "control flow v2"),
                       ("enable_v2_tensorshape", "TF 2's TensorShape (ints)")):
        own[name] = _no_op_switch(name, what)
    own["enable_tensor_equality"] = _enable_tensor_equality
    own["disable_tensor_equality"] = _disable_tensor_equality
    for name, what in (("resource_variables_enabled", "resource variables"),
                       ("control_flow_v2_enabled", "control flow v2"),
                       ("executing_eagerly_outside_functions", "eager outside functions")):
        own[name] = _true(name, what)
    own.update({f"logging.{k}": v for k, v in vars(_logging_namespace()).items()})
    own.update(_graph_mode())
    return own


def _in_graph_or_eager(graph_fn, eager_fn):
    # A TF 1 name whose graph form is an op (tf.group: an Operation a Session runs),
    # TF 2's function otherwise.
    def fn(*args, **kwargs):
        from . import _v1_graph
        return (graph_fn if _v1_graph._building() is not None else eager_fn)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = eager_fn.__name__
    fn.__doc__ = eager_fn.__doc__
    return fn


def _graph_mode():
    # TF 1's graph mode (_v1_graph): graphs, placeholders, get_variable, sessions,
    # initializers, collections, Saver.
    from . import _v1_graph as g
    names = {n: getattr(g, n) for n in (
        "Graph placeholder placeholder_with_default get_variable variable_scope "
        "get_variable_scope VariableScope AUTO_REUSE Session InteractiveSession "
        "get_default_session get_default_graph reset_default_graph "
        "global_variables_initializer local_variables_initializer variables_initializer "
        "report_uninitialized_variables global_variables local_variables "
        "trainable_variables get_collection get_collection_ref add_to_collection "
        "add_to_collections GraphKeys zeros_initializer ones_initializer "
        "constant_initializer").split()}
    # (TF exports these as TF 2's own objects, which in a graph make ops; eagertape's
    # TF 2 functions are eager only, so tf.compat.v1's dispatch.)
    tf = _facade()
    for name in ("group", "no_op", "control_dependencies"):
        names[name] = _in_graph_or_eager(getattr(g, name), getattr(tf, name))
    names.update({"initialize_all_variables": g.global_variables_initializer,
                  "initialize_variables": g.variables_initializer,
                  "initialize_local_variables": g.local_variables_initializer,
                  "all_variables": g.global_variables,
                  "train.Saver": g.Saver, "train.init_from_checkpoint": g.init_from_checkpoint})
    # TF 1's SavedModels of a graph (_v1_saved_model: eagertape's SavedModel format)
    from . import _v1_saved_model as sm
    names.update({f"saved_model.{n}": getattr(sm, n) for n in (
        "Builder load loader simple_save predict_signature_def build_signature_def "
        "build_tensor_info signature_def_utils utils").split()})
    names.update({"saved_model.builder.SavedModelBuilder": sm.Builder,
                  "saved_model.tag_constants.SERVING": sm.SERVING})
    return names

# tf.compat.v1's names that are TF 2's own objects under the same path (TF 2.21:
# tf.compat.v1.<ns>.<name> is tf.<ns>.<name>, or a constant of equal value), by
# namespace.
_SAME = {
    '': (
        'AggregationMethod Assert CriticalSection DType GradientTape Graph IndexedSlices '
        'IndexedSlicesSpec Module NoneTensorSpec Operation OptionalSpec RaggedTensor '
        'RaggedTensorSpec RegisterGradient SparseTensor SparseTensorSpec Tensor '
        'TensorArray TensorArraySpec TensorShape TensorSpec TypeSpec UnconnectedGradients '
        'VariableSynchronization abs acos acosh add add_n approx_top_k argsort as_dtype '
        'as_string asin asinh atan atan2 atanh bfloat16 bitcast bool '
        'broadcast_dynamic_shape broadcast_static_shape broadcast_to cast check_pinned '
        'clip_by_global_norm clip_by_norm clip_by_value complex complex128 complex64 '
        'concat conv conv2d_backprop_filter_v2 '
        'conv2d_backprop_input_v2 cos cosh cumsum custom_gradient divide double '
        'dynamic_partition dynamic_stitch edit_distance einsum ensure_shape equal exp '
        'extract_volume_patches eye fftnd fill fingerprint float16 float32 float64 floor '
        'function get_logger get_static_value grad_pass_through greater greater_equal '
        'guarantee_const half histogram_fixed_width histogram_fixed_width_bins '
        'identity identity_n ifftnd import_graph_def init_scope int16 int32 int64 int8 '
        'irfftnd is_symbolic_tensor is_tensor less less_equal linspace load_library '
        'load_op_library logical_and logical_not logical_or make_ndarray '
        'make_tensor_proto matmul matrix_square_root maximum meshgrid minimum multiply '
        'negative newaxis no_gradient nondifferentiable_batch_function not_equal '
        'numpy_function one_hot ones parallel_stack pow print py_function qint16 qint32 '
        'qint8 quint16 quint8 ragged_fill_empty_rows ragged_fill_empty_rows_grad '
        'random_index_shuffle range rank realdiv recompute_grad '
        'register_tensor_conversion_function repeat required_space_to_batch_paddings '
        'reshape resource reverse rfftnd roll round saturate_cast scatter_nd searchsorted '
        'sequence_mask shape_n sigmoid sign sin sinh slice sort space_to_batch_nd split '
        'sqrt square stack stop_gradient strided_slice string subtract switch_case tan '
        'tanh tensor_scatter_nd_add tensor_scatter_nd_max tensor_scatter_nd_min '
        'tensor_scatter_nd_sub tensor_scatter_nd_update tensordot tile timestamp truediv '
        'truncatediv truncatemod type_spec_from_value uint16 uint32 uint64 uint8 unique '
        'unique_with_counts unravel_index unstack variant vectorized_map zeros'
    ),
    'audio': (
        'decode_wav encode_wav'
    ),
    'autograph': (
        'set_verbosity trace'
    ),
    'autograph.experimental': (
        'Feature do_not_convert set_loop_options'
    ),
    'bitwise': (
        'bitwise_and bitwise_or bitwise_xor invert left_shift right_shift'
    ),
    'config': (
        'LogicalDevice LogicalDeviceConfiguration PhysicalDevice '
        'experimental_connect_to_cluster experimental_connect_to_host '
        'experimental_functions_run_eagerly experimental_run_functions_eagerly '
        'functions_run_eagerly get_logical_device_configuration get_soft_device_placement '
        'get_visible_devices list_logical_devices list_physical_devices '
        'run_functions_eagerly set_logical_device_configuration set_soft_device_placement '
        'set_visible_devices'
    ),
    'config.experimental': (
        'ClusterDeviceFilters VirtualDeviceConfiguration disable_mlir_bridge '
        'enable_mlir_bridge enable_tensor_float_32_execution get_device_details '
        'get_device_policy get_memory_growth get_memory_info get_memory_usage '
        'get_synchronous_execution get_virtual_device_configuration get_visible_devices '
        'list_logical_devices list_physical_devices reset_memory_stats set_device_policy '
        'set_memory_growth set_synchronous_execution set_virtual_device_configuration '
        'set_visible_devices tensor_float_32_execution_enabled'
    ),
    'config.optimizer': (
        'get_experimental_options get_jit set_experimental_options set_jit'
    ),
    'config.threading': (
        'get_inter_op_parallelism_threads get_intra_op_parallelism_threads '
        'set_inter_op_parallelism_threads set_intra_op_parallelism_threads'
    ),
    'data': (
        'AUTOTUNE DatasetSpec INFINITE_CARDINALITY NumpyIterator Options ThreadingOptions '
        'UNKNOWN_CARDINALITY'
    ),
    'data.experimental': (
        'AUTOTUNE AutoShardPolicy AutotuneAlgorithm AutotuneOptions DatasetInitializer '
        'DistributeOptions ExternalStatePolicy INFINITE_CARDINALITY OptimizationOptions '
        'Optional Reducer SHARD_HINT ServiceOptions TFRecordWriter ThreadingOptions '
        'UNKNOWN_CARDINALITY assert_cardinality bucket_by_sequence_length cardinality '
        'copy_to_device dense_to_ragged_batch dense_to_sparse_batch distributed_save '
        'enable_debug_mode enumerate_dataset from_list from_variant get_model_proto '
        'get_next_as_optional get_single_element get_structure group_by_reducer '
        'group_by_window ignore_errors index_table_from_dataset '
        'make_saveable_from_iterator map_and_batch pad_to_cardinality parallel_interleave '
        'parse_example_dataset prefetch_to_device rejection_resample scan '
        'shuffle_and_repeat snapshot table_from_dataset take_while to_variant unbatch '
        'unique'
    ),
    'data.experimental.service': (
        'CrossTrainerCache DispatcherConfig ShardingPolicy WorkerConfig distribute '
        'from_dataset_id register_dataset'
    ),
    'debugging': (
        'Assert assert_proper_iterable assert_same_float_dtype disable_check_numerics '
        'disable_traceback_filtering enable_check_numerics enable_traceback_filtering '
        'get_log_device_placement is_numeric_tensor is_traceback_filtering_enabled '
        'set_log_device_placement'
    ),
    'debugging.experimental': (
        'disable_dump_debug_info enable_dump_debug_info'
    ),
    'dtypes': (
        'DType QUANTIZED_DTYPES as_dtype bfloat16 bool cast complex complex128 complex64 '
        'double float16 float32 float64 half int16 int32 int64 int8 qint16 qint32 qint8 '
        'quint16 quint8 resource saturate_cast string uint16 uint32 uint64 uint8 variant'
    ),
    'dtypes.experimental': (
        'float4_e2m1fn float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 '
        'float8_e5m2fnuz int2 int4 uint2 uint4'
    ),
    'errors': (
        'ABORTED ALREADY_EXISTS AbortedError AlreadyExistsError CANCELLED CancelledError '
        'DATA_LOSS DEADLINE_EXCEEDED DataLossError DeadlineExceededError '
        'FAILED_PRECONDITION FailedPreconditionError INTERNAL INVALID_ARGUMENT '
        'InternalError InvalidArgumentError NOT_FOUND NotFoundError OK OUT_OF_RANGE '
        'OpError OutOfRangeError PERMISSION_DENIED PermissionDeniedError '
        'RESOURCE_EXHAUSTED ResourceExhaustedError UNAUTHENTICATED UNAVAILABLE '
        'UNIMPLEMENTED UNKNOWN UnauthenticatedError UnavailableError UnimplementedError '
        'UnknownError'
    ),
    'experimental': (
        'BatchableExtensionType DynamicRaggedShape ExtensionType '
        'ExtensionTypeBatchEncoder ExtensionTypeSpec Optional RowPartition '
        'StructuredTensor async_clear_error async_scope dispatch_for_api '
        'dispatch_for_binary_elementwise_apis dispatch_for_binary_elementwise_assert_apis '
        'dispatch_for_unary_elementwise_apis enable_strict_mode float4_e2m1fn '
        'float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz '
        'function_executor_type int2 int4 register_filesystem_plugin uint2 uint4 '
        'unregister_dispatch_for'
    ),
    'experimental.extension_type': (
        'as_dict'
    ),
    'feature_column': (
        'bucketized_column categorical_column_with_hash_bucket '
        'categorical_column_with_identity categorical_column_with_vocabulary_list '
        'crossed_column embedding_column indicator_column numeric_column '
        'sequence_categorical_column_with_hash_bucket '
        'sequence_categorical_column_with_identity '
        'sequence_categorical_column_with_vocabulary_file '
        'sequence_categorical_column_with_vocabulary_list sequence_numeric_column '
        'weighted_categorical_column'
    ),
    'graph_util': (
        'import_graph_def'
    ),
    'image': (
        'adjust_brightness adjust_contrast adjust_gamma adjust_hue adjust_jpeg_quality '
        'adjust_saturation central_crop combined_non_max_suppression convert_image_dtype '
        'crop_to_bounding_box decode_and_crop_jpeg decode_bmp decode_gif decode_image '
        'decode_jpeg decode_jxl decode_png decode_webp encode_jpeg encode_png '
        'extract_jpeg_shape flip_left_right flip_up_down generate_bounding_box_proposals '
        'grayscale_to_rgb hsv_to_rgb image_gradients is_jpeg non_max_suppression '
        'non_max_suppression_overlaps non_max_suppression_padded '
        'non_max_suppression_with_scores pad_to_bounding_box per_image_standardization '
        'psnr random_brightness random_contrast random_crop random_flip_left_right '
        'random_flip_up_down random_hue random_jpeg_quality random_saturation '
        'resize_with_crop_or_pad rgb_to_grayscale rgb_to_hsv rgb_to_yiq rgb_to_yuv rot90 '
        'sobel_edges ssim ssim_multiscale total_variation transpose yiq_to_rgb yuv_to_rgb'
    ),
    'io': (
        'FixedLenFeature FixedLenSequenceFeature RaggedFeature SparseFeature '
        'TFRecordOptions TFRecordWriter VarLenFeature decode_and_crop_jpeg decode_base64 '
        'decode_bmp decode_compressed decode_gif decode_image decode_jpeg '
        'decode_json_example decode_jxl decode_png decode_proto decode_webp '
        'deserialize_many_sparse encode_base64 encode_jpeg encode_png encode_proto '
        'extract_jpeg_shape is_jpeg match_filenames_once matching_files '
        'parse_sequence_example parse_single_sequence_example parse_tensor read_file '
        'serialize_tensor write_file write_graph'
    ),
    'io.gfile': (
        'GFile copy exists get_registered_schemes glob isdir join listdir makedirs mkdir '
        'remove rename rmtree stat walk'
    ),
    'linalg': (
        'LinearOperator LinearOperatorAdjoint LinearOperatorBlockDiag '
        'LinearOperatorBlockLowerTriangular LinearOperatorCirculant '
        'LinearOperatorCirculant2D LinearOperatorCirculant3D LinearOperatorComposition '
        'LinearOperatorDiag LinearOperatorFullMatrix LinearOperatorHouseholder '
        'LinearOperatorIdentity LinearOperatorInversion LinearOperatorKronecker '
        'LinearOperatorLowRankUpdate LinearOperatorLowerTriangular '
        'LinearOperatorPermutation LinearOperatorScaledIdentity LinearOperatorToeplitz '
        'LinearOperatorTridiag LinearOperatorZeros adjoint band_part cholesky '
        'cholesky_solve cross det eigh eigh_tridiagonal eigvalsh einsum expm eye '
        'global_norm inv l2_normalize logdet logm lstsq lu lu_matrix_inverse '
        'lu_reconstruct lu_solve matrix_rank matvec normalize pinv qr set_diag slogdet '
        'solve sqrtm svd tensor_diag tensordot triangular_solve tridiagonal_matmul '
        'tridiagonal_solve'
    ),
    'linalg.experimental': (
        'conjugate_gradient'
    ),
    'lookup': (
        'KeyValueTensorInitializer TextFileIndex TextFileInitializer'
    ),
    'lookup.experimental': (
        'DenseHashTable MutableHashTable'
    ),
    'math': (
        'accumulate_n add_n approx_max_k approx_min_k atan2 betainc cumprod cumsum '
        'cumulative_logsumexp equal floordiv greater greater_equal igamma igammac '
        'invert_permutation is_finite is_inf is_nan is_non_decreasing '
        'is_strictly_increasing l2_normalize lbeta less less_equal logical_and '
        'logical_not logical_or logical_xor nextafter not_equal polygamma polyval pow '
        'segment_max segment_mean segment_min segment_prod segment_sum sobol_sample '
        'softsign squared_difference subtract top_k truediv unsorted_segment_max '
        'unsorted_segment_mean unsorted_segment_min unsorted_segment_prod '
        'unsorted_segment_sqrt_n unsorted_segment_sum xdivy xlog1py xlogy zero_fraction '
        'zeta'
    ),
    'mlir.experimental': (
        'convert_function convert_graph_def convert_saved_model convert_saved_model_v1 '
        'run_pass_pipeline tflite_to_tosa_bytecode write_bytecode'
    ),
    'nest': (
        'assert_same_structure flatten is_nested map_structure pack_sequence_as'
    ),
    'nn': (
        'all_candidate_sampler approx_max_k approx_min_k atrous_conv2d '
        'atrous_conv2d_transpose avg_pool1d avg_pool3d batch_normalization bias_add '
        'collapse_repeated compute_accidental_hits compute_average_loss conv1d_transpose '
        'conv_transpose ctc_greedy_decoder ctc_unique_labels '
        'depthwise_conv2d_backprop_filter depthwise_conv2d_backprop_input elu '
        'fixed_unigram_candidate_sampler l2_loss l2_normalize '
        'learned_unigram_candidate_sampler local_response_normalization log_poisson_loss '
        'lrn max_pool1d max_pool2d max_pool3d normalize_moments relu '
        'scale_regularization_loss selu softsign top_k with_space_to_batch zero_fraction'
    ),
    'nn.experimental': (
        'general_dropout stateless_dropout'
    ),
    'quantization': (
        'dequantize fake_quant_with_min_max_args fake_quant_with_min_max_args_gradient '
        'fake_quant_with_min_max_vars fake_quant_with_min_max_vars_gradient '
        'fake_quant_with_min_max_vars_per_channel '
        'fake_quant_with_min_max_vars_per_channel_gradient quantize '
        'quantize_and_dequantize quantize_and_dequantize_v2 quantized_concat'
    ),
    'quantization.experimental': (
        'QuantizationComponentSpec QuantizationMethod QuantizationOptions '
        'TfRecordRepresentativeDatasetSaver UnitWiseQuantizationSpec quantize_saved_model'
    ),
    'queue': (
        'FIFOQueue PaddingFIFOQueue PriorityQueue QueueBase RandomShuffleQueue'
    ),
    'ragged': (
        'boolean_mask constant cross cross_hashed map_flat_values range '
        'row_splits_to_segment_ids segment_ids_to_row_splits stack '
        'stack_dynamic_partitions'
    ),
    'random': (
        'Algorithm Generator all_candidate_sampler categorical create_rng_state '
        'fixed_unigram_candidate_sampler fold_in gamma get_global_generator '
        'learned_unigram_candidate_sampler log_uniform_candidate_sampler normal '
        'set_global_generator shuffle split stateless_binomial stateless_categorical '
        'stateless_gamma stateless_normal stateless_parameterized_truncated_normal '
        'stateless_poisson stateless_truncated_normal stateless_uniform truncated_normal '
        'uniform uniform_candidate_sampler'
    ),
    'random.experimental': (
        'Algorithm Generator create_rng_state get_global_generator index_shuffle '
        'set_global_generator stateless_fold_in stateless_shuffle stateless_split'
    ),
    'saved_model': (
        'ASSETS_DIRECTORY ASSETS_KEY Asset CLASSIFY_INPUTS CLASSIFY_METHOD_NAME '
        'CLASSIFY_OUTPUT_CLASSES CLASSIFY_OUTPUT_SCORES DEBUG_DIRECTORY '
        'DEBUG_INFO_FILENAME_PB DEFAULT_SERVING_SIGNATURE_DEF_KEY GPU PREDICT_INPUTS '
        'PREDICT_METHOD_NAME PREDICT_OUTPUTS REGRESS_INPUTS REGRESS_METHOD_NAME '
        'REGRESS_OUTPUTS SAVED_MODEL_FILENAME_PB SAVED_MODEL_FILENAME_PBTXT '
        'SAVED_MODEL_SCHEMA_VERSION SERVING SaveOptions TPU TRAINING VARIABLES_DIRECTORY '
        'VARIABLES_FILENAME save'
    ),
    'saved_model.experimental': (
        'TrackableResource VariablePolicy'
    ),
    'sets': (
        'difference intersection size union'
    ),
    'signal': (
        'dct fft fft2d fft3d fftnd fftshift frame hamming_window hann_window idct ifft '
        'ifft2d ifft3d ifftnd ifftshift inverse_mdct inverse_stft inverse_stft_window_fn '
        'irfft irfft2d irfft3d irfftnd kaiser_bessel_derived_window kaiser_window '
        'linear_to_mel_weight_matrix mdct mfccs_from_log_mel_spectrograms overlap_and_add '
        'rfft rfft2d rfft3d rfftnd stft vorbis_window'
    ),
    'sparse': (
        'SparseTensor bincount cross cross_hashed expand_dims eye fill_empty_rows '
        'from_dense mask maximum minimum reorder reset_shape reshape retain slice softmax '
        'sparse_dense_matmul to_dense to_indicator transpose'
    ),
    'strings': (
        'as_string bytes_split format join lower ngrams regex_full_match regex_replace '
        'strip to_hash_bucket_fast to_hash_bucket_strong unicode_decode '
        'unicode_decode_with_offsets unicode_encode unicode_script unicode_split '
        'unicode_split_with_offsets unicode_transcode unsorted_segment_join upper'
    ),
    'sysconfig': (
        'CXX11_ABI_FLAG CXX_VERSION MONOLITHIC_BUILD get_build_info get_compile_flags '
        'get_include get_lib get_link_flags'
    ),
    'test': (
        'Benchmark TestCase benchmark_config create_local_cluster disable_with_predicate '
        'gpu_device_name is_built_with_cuda is_built_with_gpu_support is_built_with_rocm '
        'is_built_with_xla is_cpu_target_available is_gpu_available main '
        'with_eager_op_as_function'
    ),
    'test.experimental': (
        'sync_devices'
    ),
    'train': (
        'BytesList CheckpointManager CheckpointOptions ClusterDef ClusterSpec Coordinator '
        'Example ExponentialMovingAverage Feature FeatureList FeatureLists Features '
        'FloatList Int64List JobDef SequenceExample ServerDef checkpoints_iterator '
        'get_checkpoint_state latest_checkpoint list_variables load_checkpoint '
        'load_variable'
    ),
    'train.experimental': (
        'MaxShardSizePolicy PythonState ShardByTaskPolicy ShardableTensor '
        'ShardingCallback'
    ),
    'types.experimental': (
        'FunctionType TensorLike'
    ),
    'version': (
        'COMPILER_VERSION GIT_VERSION GRAPH_DEF_VERSION GRAPH_DEF_VERSION_MIN_CONSUMER '
        'GRAPH_DEF_VERSION_MIN_PRODUCER VERSION'
    ),
    'xla.experimental': (
        'compile jit_scope'
    ),
}
# tf.compat.v1's names that are TF 2's objects under another name (TF 2.21:
# tf.compat.v1.log is tf.math.log): v1 path -> TF 2 path.
_ALIAS = dict(pair.split('=') for pair in (
    'FIFOQueue=queue.FIFOQueue FixedLenFeature=io.FixedLenFeature '
    'FixedLenSequenceFeature=io.FixedLenSequenceFeature NoGradient=no_gradient '
    'NotDifferentiable=no_gradient OpError=errors.OpError '
    'PaddingFIFOQueue=queue.PaddingFIFOQueue PriorityQueue=queue.PriorityQueue '
    'QUANTIZED_DTYPES=dtypes.QUANTIZED_DTYPES QueueBase=queue.QueueBase '
    'RandomShuffleQueue=queue.RandomShuffleQueue SparseFeature=io.SparseFeature '
    'VarLenFeature=io.VarLenFeature accumulate_n=math.accumulate_n angle=math.angle '
    'assert_proper_iterable=debugging.assert_proper_iterable '
    'assert_same_float_dtype=debugging.assert_same_float_dtype betainc=math.betainc '
    'ceil=math.ceil check_numerics=debugging.check_numerics cholesky=linalg.cholesky '
    'cholesky_solve=linalg.cholesky_solve conj=math.conj cross=linalg.cross '
    'cumprod=math.cumprod data.experimental.DatasetStructure=data.DatasetSpec '
    'data.experimental.OptionalStructure=OptionalSpec '
    'data.experimental.Structure=TypeSpec debugging.is_finite=math.is_finite '
    'debugging.is_inf=math.is_inf debugging.is_nan=math.is_nan '
    'debugging.is_non_decreasing=math.is_non_decreasing '
    'debugging.is_strictly_increasing=math.is_strictly_increasing '
    'decode_base64=io.decode_base64 decode_compressed=io.decode_compressed '
    'decode_json_example=io.decode_json_example dequantize=quantization.dequantize '
    'deserialize_many_sparse=io.deserialize_many_sparse diag=linalg.tensor_diag '
    'diag_part=linalg.tensor_diag_part digamma=math.digamma div_no_nan=math.divide_no_nan '
    'dtypes.as_string=as_string encode_base64=io.encode_base64 erf=math.erf '
    'erfc=math.erfc expm1=math.expm1 '
    'fake_quant_with_min_max_args=quantization.fake_quant_with_min_max_args '
    'fake_quant_with_min_max_args_gradient=quantization.fake_quant_with_min_max_args_gradient '
    'fake_quant_with_min_max_vars=quantization.fake_quant_with_min_max_vars '
    'fake_quant_with_min_max_vars_gradient=quantization.fake_quant_with_min_max_vars_gradient '
    'fake_quant_with_min_max_vars_per_channel=quantization.fake_quant_with_min_max_vars_per_channel '
    'fake_quant_with_min_max_vars_per_channel_gradient=quantization.fake_quant_with_min_max_vars_per_channel_gradient '
    'fft=signal.fft fft2d=signal.fft2d fft3d=signal.fft3d floordiv=math.floordiv '
    'floormod=math.floormod gfile.GFile=io.gfile.GFile gfile.Open=io.gfile.GFile '
    'global_norm=linalg.global_norm ifft=signal.ifft ifft2d=signal.ifft2d '
    'ifft3d=signal.ifft3d igamma=math.igamma igammac=math.igammac imag=math.imag '
    'image.resize_image_with_crop_or_pad=image.resize_with_crop_or_pad '
    'image.transpose_image=image.transpose invert_permutation=math.invert_permutation '
    'io.PaddingFIFOQueue=queue.PaddingFIFOQueue io.PriorityQueue=queue.PriorityQueue '
    'io.QueueBase=queue.QueueBase io.RandomShuffleQueue=queue.RandomShuffleQueue '
    'is_finite=math.is_finite is_inf=math.is_inf is_nan=math.is_nan '
    'is_non_decreasing=math.is_non_decreasing '
    'is_numeric_tensor=debugging.is_numeric_tensor '
    'is_strictly_increasing=math.is_strictly_increasing lbeta=math.lbeta '
    'lgamma=math.lgamma lin_space=linspace log=math.log log1p=math.log1p '
    'log_sigmoid=math.log_sigmoid logical_xor=math.logical_xor manip.reverse=reverse '
    'manip.roll=roll manip.scatter_nd=scatter_nd '
    'manip.space_to_batch_nd=space_to_batch_nd manip.tile=tile '
    'matching_files=io.matching_files matrix_band_part=linalg.band_part '
    'matrix_determinant=linalg.det matrix_diag=linalg.diag '
    'matrix_diag_part=linalg.diag_part matrix_inverse=linalg.inv '
    'matrix_set_diag=linalg.set_diag matrix_solve=linalg.solve '
    'matrix_solve_ls=linalg.lstsq matrix_transpose=linalg.matrix_transpose '
    'matrix_triangular_solve=linalg.triangular_solve mod=math.floormod '
    'nn.avg_pool_v2=nn.avg_pool nn.ctc_beam_search_decoder_v2=nn.ctc_beam_search_decoder '
    'nn.depthwise_conv2d_native_backprop_filter=nn.depthwise_conv2d_backprop_filter '
    'nn.depthwise_conv2d_native_backprop_input=nn.depthwise_conv2d_backprop_input '
    'nn.log_uniform_candidate_sampler=random.log_uniform_candidate_sampler '
    'nn.max_pool_v2=nn.max_pool '
    'nn.uniform_candidate_sampler=random.uniform_candidate_sampler '
    'parse_single_sequence_example=io.parse_single_sequence_example '
    'parse_tensor=io.parse_tensor polygamma=math.polygamma '
    'python_io.TFRecordOptions=io.TFRecordOptions '
    'python_io.TFRecordWriter=io.TFRecordWriter qr=linalg.qr '
    'quantize=quantization.quantize quantized_concat=quantization.quantized_concat '
    'random_crop=image.random_crop random_gamma=random.gamma random_normal=random.normal '
    'random_shuffle=random.shuffle random_uniform=random.uniform read_file=io.read_file '
    'real=math.real reciprocal=math.reciprocal regex_replace=strings.regex_replace '
    'reverse_v2=reverse rint=math.rint rsqrt=math.rsqrt '
    'saved_model.experimental.save=saved_model.save saved_model.load_v2=saved_model.load '
    'segment_max=math.segment_max segment_mean=math.segment_mean '
    'segment_min=math.segment_min segment_prod=math.segment_prod '
    'segment_sum=math.segment_sum self_adjoint_eig=linalg.eigh '
    'self_adjoint_eigvals=linalg.eigvalsh serialize_tensor=io.serialize_tensor '
    'sets.set_difference=sets.difference sets.set_intersection=sets.intersection '
    'sets.set_size=sets.size sets.set_union=sets.union '
    'sparse.matmul=sparse.sparse_dense_matmul '
    'sparse_fill_empty_rows=sparse.fill_empty_rows sparse_mask=sparse.mask '
    'sparse_maximum=sparse.maximum sparse_minimum=sparse.minimum '
    'sparse_reorder=sparse.reorder sparse_reset_shape=sparse.reset_shape '
    'sparse_reshape=sparse.reshape sparse_retain=sparse.retain sparse_slice=sparse.slice '
    'sparse_softmax=sparse.softmax sparse_tensor_dense_matmul=sparse.sparse_dense_matmul '
    'sparse_tensor_to_dense=sparse.to_dense sparse_to_indicator=sparse.to_indicator '
    'sparse_transpose=sparse.transpose spectral.dct=signal.dct spectral.fft=signal.fft '
    'spectral.fft2d=signal.fft2d spectral.fft3d=signal.fft3d spectral.idct=signal.idct '
    'spectral.ifft=signal.ifft spectral.ifft2d=signal.ifft2d '
    'spectral.ifft3d=signal.ifft3d spectral.irfft=signal.irfft '
    'spectral.irfft2d=signal.irfft2d spectral.irfft3d=signal.irfft3d '
    'spectral.rfft=signal.rfft spectral.rfft2d=signal.rfft2d '
    'spectral.rfft3d=signal.rfft3d squared_difference=math.squared_difference '
    'string_join=strings.join string_strip=strings.strip '
    'string_to_hash_bucket_fast=strings.to_hash_bucket_fast '
    'string_to_hash_bucket_strong=strings.to_hash_bucket_strong svd=linalg.svd '
    'tensor_scatter_add=tensor_scatter_nd_add tensor_scatter_sub=tensor_scatter_nd_sub '
    'tensor_scatter_update=tensor_scatter_nd_update trace=linalg.trace '
    'train.Server=distribute.Server train.match_filenames_once=io.match_filenames_once '
    'train.write_graph=io.write_graph truncated_normal=random.truncated_normal '
    'unsorted_segment_max=math.unsorted_segment_max '
    'unsorted_segment_mean=math.unsorted_segment_mean '
    'unsorted_segment_min=math.unsorted_segment_min '
    'unsorted_segment_prod=math.unsorted_segment_prod '
    'unsorted_segment_sqrt_n=math.unsorted_segment_sqrt_n '
    'unsorted_segment_sum=math.unsorted_segment_sum where_v2=where '
    'write_file=io.write_file zeta=math.zeta '
).split())


# -- tf.compat.v1: TF 1's graph-mode API, left out with TF 2's way (TF's migration guide) --
_PLACEHOLDER = ("TF 1's graph inputs: in TF 2 they are a function's arguments; pass the values "
                "to a tf.function (input_signature=[tf.TensorSpec(shape, dtype)] for a "
                "placeholder's shape)")
_GET_VARIABLE = ("TF 1's variable scopes and get_variable: in TF 2 make a tf.Variable, held by "
                 "a tf.Module or a Keras layer (the object tracks it and names it; "
                 "tf.train.Checkpoint saves it)")
_INITIALIZER = ("TF 1's initializer ops: an eager tf.Variable holds its value when it is "
                "made, so there is nothing to run; drop the call")
_COLLECTION = ("TF 1's graph collections: in TF 2 a tf.Module's (or Keras model's) "
               ".variables and .trainable_variables list them")
_EAGER_OFF = ("it turns TF 1's graph mode on; eagertape runs TF 2's eager mode only: drop "
              "the call and write TF 2 code (tf.function for graphs)")
_SWITCH = ("it brings back a TF 1 behaviour; eagertape has TF 2's only: drop the call and "
           "write the code for TF 2's behaviour")
_CONFIG = ("TF 1's session config protos: in TF 2 use tf.config "
           "(tf.config.experimental.set_memory_growth, tf.config.set_visible_devices, "
           "tf.config.threading)")
_SAVED_MODEL_V1 = ("TF 1's MetaGraphs of a graph: eagertape's TF 1 graphs (tf.Graph, Session) "
                   "are graphs of JAX calls, not TF GraphDefs; save the graph as a SavedModel "
                   "(tf.compat.v1.saved_model.simple_save) or, in TF 2, save a tf.Module "
                   "with tf.function signatures (tf.saved_model.save) and load it with "
                   "tf.saved_model.load; a graph's variables with tf.compat.v1.train.Saver")
_HOOKS = ("TF 1's MonitoredSession and its SessionRunHooks: in TF 2 write a training loop "
          "(tf.GradientTape) or use Keras's fit with callbacks "
          "(tf.keras.callbacks.Callback)")
_QUEUES = ("TF 1's queue-based input pipelines: feed data with tf.data.Dataset")

_V1_LEFT_OUT = {
    **dict.fromkeys("sparse_placeholder".split(), _PLACEHOLDER),
    **dict.fromkeys("get_local_variable make_template variable_op_scope op_scope "
                    "create_partitioned_variables".split(), _GET_VARIABLE),
    **dict.fromkeys("tables_initializer initialize_all_tables "
                    "assert_variables_initialized is_variable_initialized".split(),
                    _INITIALIZER),
    **dict.fromkeys("model_variables moving_average_variables".split(), _COLLECTION),
    **dict.fromkeys("disable_eager_execution disable_v2_behavior".split(), _EAGER_OFF),
    **dict.fromkeys("disable_v2_tensorshape disable_resource_variables "
                    "disable_control_flow_v2".split(), _SWITCH),
    **dict.fromkeys("ConfigProto GPUOptions GraphOptions OptimizerOptions RunOptions "
                    "RunMetadata".split(), _CONFIG),
    **dict.fromkeys("train.import_meta_graph train.export_meta_graph "
                    "wrap_function".split(), _SAVED_MODEL_V1),
    **dict.fromkeys("train.MonitoredSession train.MonitoredTrainingSession "
                    "train.SingularMonitoredSession train.Scaffold train.Supervisor "
                    "train.SessionRunHook train.SessionRunArgs train.SessionRunContext "
                    "train.SessionRunValues train.LoggingTensorHook train.StopAtStepHook "
                    "train.CheckpointSaverHook train.SummarySaverHook train.StepCounterHook "
                    "train.NanTensorHook train.FinalOpsHook train.FeedFnHook "
                    "train.ProfilerHook train.GlobalStepWaiterHook".split(), _HOOKS),
    **dict.fromkeys("train.start_queue_runners train.QueueRunner train.add_queue_runner "
                    "train.batch train.shuffle_batch train.string_input_producer "
                    "train.slice_input_producer train.input_producer".split(), _QUEUES),
    # Whole namespaces.
    "estimator": ("it was removed from TensorFlow itself (2.16); write the model with "
                  "tf.keras (compile and fit) or a tf.GradientTape training loop"),
    "layers": ("TF 1's layers (tf.compat.v1.layers) were Keras 2's, gone from Keras 3; use "
               "tf.keras.layers"),
    "metrics": ("TF 1's streaming metrics return graph update ops over local variables; use "
                "tf.keras.metrics objects (update_state, result)"),
}

# TF 1 names that run eagerly in TF 2 but are not built here: what to write instead.
_OPTIMIZERS = {"GradientDescentOptimizer": "SGD", "MomentumOptimizer": "SGD(momentum=...)",
               "AdamOptimizer": "Adam", "AdagradOptimizer": "Adagrad",
               "AdadeltaOptimizer": "Adadelta", "RMSPropOptimizer": "RMSprop",
               "FtrlOptimizer": "Ftrl"}
_HINTS = {**{f"train.{k}": f"use tf.keras.optimizers.{v} (TF 2's optimizer)"
             for k, v in _OPTIMIZERS.items()},
          "losses": "use tf.keras.losses (TF 2's losses)",
          "initializers": "use tf.keras.initializers (TF 2's initializers)",
          "train.get_or_create_global_step": "count steps with a tf.Variable of your own "
                                             "(or the optimizer's .iterations)",
          "train.get_global_step": "count steps with a tf.Variable of your own (or the "
                                   "optimizer's .iterations)"}
_DEFAULT_HINT = ("tf.compat.v1 has the names that run in eager TF 2 as TF 2's own; write "
                 "this one's TF 2 name (TF's migration guide maps each)")

# tf.compat.v1's namespaces in TF 2.21 (looked up lazily, each a table of its own).
_NAMESPACES = frozenset(
    "app audio autograph bitwise compat config data debugging distribute distributions dtypes "
    "errors experimental feature_column flags gfile graph_util image initializers io keras "
    "layers linalg lite logging lookup losses manip math metrics mixed_precision mlir nest nn "
    "profiler python_io quantization queue ragged random raw_ops resource_loader saved_model "
    "sets signal sparse spectral strings summary sysconfig test tpu train types user_ops "
    "version xla".split())
# Namespaces that are TF 2's own module in tf.compat.v1 too (the facade's answers them).
_SAME_MODULES = frozenset("keras distribute lite tpu raw_ops mlir xla".split())
# TF 1 functions TF 2 keeps under the same name that behave alike in eager mode
# (tf.gradients and tf.hessians raise there in both).
_SAME_IN_EAGER = frozenset("gradients hessians".split())


class _V1(_types.ModuleType):
    """A namespace of ``tf.compat.v1``: its names resolved on first use from the
    tables (``_SAME``, ``_ALIAS``, ``_own()``, ``_V1_LEFT_OUT``), then kept."""

    def __init__(self, path):
        super().__init__("tf.compat.v1" + ("." + path if path else ""))
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = f"{self._path}.{name}" if self._path else name
        value = _resolve(full)
        setattr(self, name, value)
        return value

    def __dir__(self):
        prefix = self._path + "." if self._path else ""
        names = set(_SAME.get(self._path, "").split())
        for path in (*_ALIAS, *_own_table(), *_V1_LEFT_OUT):
            if path.startswith(prefix):
                names.add(path[len(prefix):].split(".")[0])
        if not self._path:
            names |= _NAMESPACES
        return sorted(names)


_tables = {}


def _own_table():
    if "own" not in _tables:
        _tables["own"] = _own()
    return _tables["own"]


def _lookup(v1_path, tf2_path):
    obj = _facade()
    try:
        for part in tf2_path.split("."):
            obj = getattr(obj, part)
    except AttributeError as e:
        raise AttributeError(f"tf.compat.v1.{v1_path} is TF 2's tf.{tf2_path}: {e}") from None
    return obj


def _resolve(path):
    own = _own_table()
    if path in own:
        return own[path]
    if path in _V1_LEFT_OUT:
        raise AttributeError(f"tf.compat.v1.{path} {_LEFT_OUT}{_V1_LEFT_OUT[path]}")
    ns, _, name = path.rpartition(".")
    if name in _SAME.get(ns, "").split():
        return _lookup(path, path)
    if path in _ALIAS:
        return _lookup(path, _ALIAS[path])
    if path in _SAME_MODULES or path in _SAME_IN_EAGER:
        return _lookup(path, path)
    if path in _NAMESPACES or path in _SAME or any(
            p.startswith(path + ".") for p in (*_ALIAS, *own)):
        return _V1(path)
    hint = next((h for p, h in _HINTS.items() if path == p or path.startswith(p + ".")),
                _DEFAULT_HINT)
    raise AttributeError(f"tf.compat.v1.{path} {_NOT_YET}{hint}")


v1 = _V1("")


def __getattr__(name):
    if name == "v2":
        return _facade()
    raise AttributeError(f"tf.compat.{name} is not in TensorFlow's tf.compat (its names: "
                         "v1, v2, as_bytes, as_str, as_text, as_str_any, path_to_str, "
                         "dimension_value, dimension_at_index, forward_compatible, "
                         "forward_compatibility_horizon and the *_types tuples)")


# `import eagertape.tf.compat.v1 as tf1` (and v2), as `import tensorflow.compat.v1`.
_sys.modules[__name__ + ".v1"] = v1
_sys.modules[__name__ + ".v2"] = _facade()
