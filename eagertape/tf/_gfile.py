"""``tf.io.gfile``: TF's file API, on local paths (Python's ``open``, ``os``,
``shutil`` and ``glob``), with TF's errors (``tf.errors.NotFoundError``, ...).

TF's file systems for ``gs://``, ``s3://`` and ``hdfs://`` paths are TF's C++
plugins; here such a path raises ``tf.errors.UnimplementedError`` saying so
(mount the bucket, or copy the files down, e.g. with ``gsutil``/``fsspec``).

>>> import os, tempfile
>>> import eagertape.tf as tf
>>> d = tempfile.mkdtemp()
>>> with tf.io.gfile.GFile(os.path.join(d, "a.txt"), "w") as f:
...     _ = f.write("one\\ntwo\\n")
>>> tf.io.gfile.GFile(os.path.join(d, "a.txt")).readlines()
['one\\n', 'two\\n']
>>> [os.path.basename(p) for p in tf.io.gfile.glob(os.path.join(d, "*.txt"))]
['a.txt']
"""
import errno
import glob as _glob
import os
import shutil

from .errors import (AlreadyExistsError, FailedPreconditionError, InvalidArgumentError,
                     NotFoundError, PermissionDeniedError, UnimplementedError, UnknownError)

__all__ = ["GFile", "Open", "FastGFile", "exists", "glob", "isdir", "listdir", "makedirs",
           "mkdir", "remove", "rename", "rmtree", "copy", "stat", "walk", "join",
           "get_registered_schemes"]


def _path(path, argname="path"):
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    elif hasattr(path, "numpy") and not isinstance(path, str):
        v = path.numpy()
        path = v.decode("utf-8") if isinstance(v, bytes) else v
    path = os.fspath(path) if not isinstance(path, str) else path
    if not isinstance(path, str):
        raise TypeError(f"argument `{argname}` must be a path (str, bytes or os.PathLike), "
                        f"got {type(path).__name__}")
    scheme, sep, _ = path.partition("://")
    if sep and scheme != "file":
        raise UnimplementedError(
            None, None, f"File system scheme '{scheme}' not implemented (file: '{path}'): "
            "eagertape's tf.io.gfile reads local paths only; mount the storage, or copy "
            "the files to a local directory first")
    return path[7:] if sep else path


def _os_error(e, path):
    """TF's error class for an OSError on ``path``."""
    msg = f"{path}; {e.strerror or e}"
    if e.errno == errno.ENOENT:
        return NotFoundError(None, None, msg)
    if e.errno == errno.EEXIST:
        return AlreadyExistsError(None, None, msg)
    if e.errno in (errno.EACCES, errno.EPERM):
        return PermissionDeniedError(None, None, msg)
    if e.errno in (errno.ENOTDIR, errno.EISDIR, errno.ENOTEMPTY):
        return FailedPreconditionError(None, None, msg)
    return UnknownError(None, None, msg)


class GFile:
    """``tf.io.gfile.GFile(name, mode="r")``: a file, opened on first use as TF's
    is. Modes ``r``, ``rb``, ``w``, ``wb``, ``a``, ``ab`` (``+`` forms too); text
    modes read and write ``str`` (UTF-8), binary modes ``bytes``. A missing file
    raises ``tf.errors.NotFoundError`` when first read, as TF's.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "b.bin")
    >>> with tf.io.gfile.GFile(path, "wb") as f:
    ...     _ = f.write(b"abcdef")
    >>> with tf.io.gfile.GFile(path, "rb") as f:
    ...     _ = f.seek(2)
    ...     f.read(3), f.tell(), f.size()
    (b'cde', 5, 6)
    """

    def __init__(self, name, mode="r"):
        if not isinstance(mode, str) or mode.replace("+", "") not in (
                "r", "rb", "w", "wb", "a", "ab"):
            raise InvalidArgumentError(
                f"argument `mode` of GFile: {mode!r} is not one of 'r', 'rb', 'w', 'wb', "
                "'a', 'ab' (with '+' to read and write)")
        self.name = name
        self._path = _path(name, "name")
        self._mode = mode
        self._binary = "b" in mode
        self._f = None

    @property
    def mode(self):
        return self._mode

    def _file(self):
        if self._f is None:
            mode = self._mode if self._binary else self._mode + "b"
            try:
                self._f = open(self._path, mode)
            except OSError as e:
                raise _os_error(e, self._path) from None
        return self._f

    def _out(self, data):
        return data if self._binary else data.decode("utf-8")

    def read(self, n=-1):
        """Up to ``n`` bytes (all that remain with ``n=-1``); ``str`` in text mode."""
        self._readable()
        return self._out(self._file().read(-1 if n is None else n))

    def readline(self):
        """The next line, with its newline (empty at the end)."""
        self._readable()
        return self._out(self._file().readline())

    def readlines(self):
        """The remaining lines, each with its newline."""
        self._readable()
        return [self._out(line) for line in self._file().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        """Writes ``file_content`` (``str`` is written as UTF-8)."""
        if "r" in self._mode and "+" not in self._mode:
            raise PermissionDeniedError(None, None, "File isn't open for writing")
        data = file_content.encode("utf-8") if isinstance(file_content, str) else bytes(
            file_content)
        self._file().write(data)

    def _readable(self):
        if "r" not in self._mode and "+" not in self._mode:
            raise PermissionDeniedError(None, None, "File isn't open for reading")

    def seek(self, offset=None, whence=0, position=None):
        """Moves to ``offset`` (TF's older name: ``position``) from ``whence``."""
        if position is not None:
            offset = position
        return self._file().seek(offset, whence)

    def tell(self):
        """The current position, in bytes."""
        return self._file().tell()

    def size(self):
        """The file's size in bytes (what is written so far, for a file being written)."""
        if self._f is not None:
            self._f.flush()
        return os.path.getsize(self._path)

    def seekable(self):
        return True

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


Open = GFile
FastGFile = GFile


def exists(path):
    """Whether ``path`` exists (a file or a directory)."""
    return os.path.exists(_path(path))


def isdir(path):
    """Whether ``path`` is a directory."""
    return os.path.isdir(_path(path))


def glob(pattern):
    """The paths matching ``pattern`` (or each of a list of patterns), sorted."""
    patterns = pattern if isinstance(pattern, (list, tuple)) else [pattern]
    out = set()
    for p in patterns:
        out.update(_glob.glob(_path(p, "pattern")))
    return sorted(out)


def listdir(path):
    """The names of the entries of directory ``path`` (not ``.`` and ``..``), in the
    order the file system gives them, as TF's (sort them for an order of your own);
    ``tf.errors.NotFoundError`` if it is not a directory."""
    p = _path(path)
    if not os.path.isdir(p):
        raise NotFoundError(None, None, f"Could not find directory {p}")
    return os.listdir(p)


def makedirs(path):
    """Creates ``path`` and any missing parents (an existing one is fine)."""
    p = _path(path)
    try:
        os.makedirs(p, exist_ok=True)
    except OSError as e:
        raise _os_error(e, p) from None


def mkdir(path):
    """Creates directory ``path`` (an existing one is fine, as in TF); its parent
    must exist."""
    p = _path(path)
    try:
        os.mkdir(p)
    except FileExistsError:
        if not os.path.isdir(p):
            raise AlreadyExistsError(None, None, f"{p}; File exists") from None
    except OSError as e:
        raise _os_error(e, p) from None


def remove(path):
    """Deletes the file ``path``."""
    p = _path(path)
    try:
        os.remove(p)
    except OSError as e:
        raise _os_error(e, p) from None


def rmtree(path):
    """Deletes directory ``path`` and everything under it."""
    p = _path(path)
    if not os.path.exists(p):
        raise NotFoundError(None, None, f"{p} not found")
    try:
        shutil.rmtree(p)
    except OSError as e:
        raise _os_error(e, p) from None


def rename(src, dst, overwrite=False):
    """Renames ``src`` to ``dst``; ``tf.errors.AlreadyExistsError`` if ``dst`` exists
    and ``overwrite`` is False."""
    s, d = _path(src, "src"), _path(dst, "dst")
    if not overwrite and os.path.exists(d):
        raise AlreadyExistsError(None, None, f"file already exists: {d}")
    try:
        os.replace(s, d)
    except OSError as e:
        raise _os_error(e, s) from None


def copy(src, dst, overwrite=False):
    """Copies the file ``src`` to ``dst``; ``tf.errors.AlreadyExistsError`` if
    ``dst`` exists and ``overwrite`` is False."""
    s, d = _path(src, "src"), _path(dst, "dst")
    if not overwrite and os.path.exists(d):
        raise AlreadyExistsError(None, None, f"file already exists: {d}")
    try:
        shutil.copyfile(s, d)
    except OSError as e:
        raise _os_error(e, s) from None


class _FileStatistics:
    """What ``stat`` gives: ``length``, ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


def stat(path):
    """``length`` (bytes), ``mtime_nsec`` and ``is_directory`` of ``path``."""
    p = _path(path)
    try:
        st = os.stat(p)
    except OSError as e:
        raise _os_error(e, p) from None
    return _FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(p))


def walk(top, topdown=True, onerror=None):
    """``(dirname, subdirs, files)`` for each directory under ``top``, as ``os.walk``
    (names in the file system's order, as TF's)."""
    top = _path(top, "top")
    if not os.path.isdir(top):
        return
    yield from os.walk(top, topdown=topdown, onerror=onerror)


def join(path, *paths):
    """``os.path.join``, as TF's (which keeps a ``scheme://``)."""
    return os.path.join(path, *paths)


def get_registered_schemes():
    """The path schemes this gfile reads: local files only."""
    return ["", "file"]
