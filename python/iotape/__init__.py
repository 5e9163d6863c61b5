# SPDX-License-Identifier: MIT
"""iotape - read iotape traces (iotape-format(5)) into numpy and pandas.

    import iotape
    df = iotape.read("job.iotape")                      # syscall table, a DataFrame
    blk = iotape.read("job.iotape", layer="block")
    a = iotape.read_arrays("job.iotape", columns=["ts_ns", "op", "size"])
    for df in iotape.chunks("big.iotape", n=1 << 20):   # bounded memory
        ...
    iotape.merge(["node0.iotape", "node1.iotape"], "job.iotape")  # iotape merge
    iotape.split("job.iotape", "part", by="host")       # iotape split

The columns, their names and order are those of `iotape dump --format csv
--table LAYER`.  read() gives the values that dump prints: enumerations
(op, kind, metric, rwbs) and strings (path, comm, ...) as categoricals of
their names, numbers as integers (flags and fstype too, which the CSV
writes in hex).  read_arrays() gives numpy arrays of the stored values:
enumerations as their numbers, strings as uint32 ids into .strings.

Decoding is libtape's own (ctypes over libtape.so, tape_cursor_read_columns:
one call per batch of events, into the numpy arrays): every block's
checksum is verified and a damaged or hostile file raises TraceError
after the events before the damage, never crashes.  numpy is needed;
pandas only for read() and chunks() without arrays=True.
"""
import ctypes
import os

import numpy as np

from . import _lib as L

__all__ = ["LAYERS", "TraceError", "Arrays", "columns", "read", "read_arrays", "chunks",
           "merge", "split"]
__version__ = "0.1.0"

LAYERS = ("syscall", "block", "cache", "process", "file", "sample", "sched")

_U64 = np.uint64
_ENUMS = (L.TXT_OP, L.TXT_BLKFLAGS, L.TXT_CACHEKIND, L.TXT_METRIC, L.TXT_WAKE, L.TXT_WAITCALL)


class TraceError(OSError):
    """A trace that cannot be read: missing, not a trace, damaged.

    errno is the library's error (errno.EBADMSG for damage), filename the
    trace, and the message says where (tape_error_detail()).
    """


def _fail(err, path, what=None):
    lib = L.lib()
    msg = lib.tape_strerror(err).decode(errors="replace")
    detail = (lib.tape_error_detail() or b"").decode(errors="replace")
    if what:
        msg = "%s: %s" % (what, msg)
    if detail:
        msg = "%s: %s" % (msg, detail)
    return TraceError(-err, msg, path)


def _table(layer):
    lib = L.lib()
    t = lib.tape_table_from_name(str(layer).encode()) if isinstance(layer, str) else -1
    if t < 0:
        raise ValueError("iotape: unknown layer %r (one of %s)" % (layer, ", ".join(LAYERS)))
    n = ctypes.c_size_t()
    cols = lib.tape_table_columns(t, ctypes.byref(n))
    return t, [cols[i] for i in range(n.value)]


def columns(layer="syscall"):
    """Names of a layer's columns, in dump --format csv's order."""
    return [c.name.decode() for c in _table(layer)[1]]


def _dtype(c):
    if c.type == L.COL_STR or c.width == 4:
        return np.dtype(np.uint32 if c.type != L.COL_I64 else np.int32)
    return np.dtype(np.int64 if c.type == L.COL_I64 else np.uint64)


class _Strings:
    """The string table of a read: libtape's own (tape_strings), kept by
    the Arrays that use it and freed with the last of them, decoded to str
    on first use (most of a large read's time otherwise, and not needed to
    count or group by the ids)."""

    def __init__(self, lib):
        self.lib = lib
        self.s = ctypes.c_void_p()
        self.list = []          # strings 0..len-1, decoded
        self.arr = None
        err = lib.tape_strings_new(ctypes.byref(self.s))
        if err < 0:
            raise MemoryError("iotape: no memory for a string table")

    def __del__(self):
        if self.s:
            self.lib.tape_strings_free(self.s)
            self.s = None

    def __getstate__(self):
        """Pickled (multiprocessing, ...) as the decoded strings."""
        n = self.count()
        self.array(n)
        return {"list": self.list[:n]}

    def __setstate__(self, state):
        self.lib = self.s = self.arr = None
        self.list = state["list"]

    def count(self):
        return self.lib.tape_strings_count(self.s) if self.s else len(self.list)

    def array(self, n):
        """Strings 0..n-1 as a numpy array of str."""
        have = len(self.list)
        if n > have:
            off = ctypes.POINTER(ctypes.c_uint64)()
            data = self.lib.tape_strings_data(self.s, ctypes.byref(off))
            o = np.ctypeslib.as_array(off, shape=(n + 1,))[have:]
            lo = int(o[0])
            blob = ctypes.string_at(data + lo, int(o[-1]) - lo)
            o = (o - lo).tolist()
            self.list += [blob[o[i]:o[i + 1] - 1].decode("utf-8", "surrogateescape")
                          for i in range(len(o) - 1)]
        if self.arr is None or len(self.arr) != n:
            self.arr = np.array(self.list[:n], dtype=object)
        return self.arr


class Arrays(dict):
    """Column name -> numpy array, from read_arrays() and chunks(arrays=True).

    String columns hold uint32 ids into .strings (a numpy array of str,
    decoded on first use; id 0 is ""): a.strings[a["path"]] gives the
    paths.  .layer is the table.  Bytes that are not UTF-8 are decoded
    with surrogateescape, as os.fsdecode() does (os.fsencode() gives them
    back).
    """
    layer = None
    _strs = None
    _n = 0

    @property
    def strings(self):
        return self._strs.array(self._n)

    def text(self, name):
        """A string column's values as a numpy array of str."""
        return self.strings[self[name]]


class _Reader:
    """One table of one trace, read in batches: a reader, a cursor and a
    string table, freed by close()."""

    def __init__(self, path, layer, names, threads=None):
        self.lib = lib = L.lib()
        nthreads = _threads(threads)
        self.path = path
        self.table, cols = _table(layer)
        self.layer = layer
        if names is None:
            sel = list(range(len(cols)))
        else:
            if isinstance(names, str):
                names = [names]
            byname = {c.name.decode(): i for i, c in enumerate(cols)}
            bad = [n for n in names if n not in byname]
            if bad:
                raise ValueError("iotape: no column %s in layer %s (columns: %s)"
                                 % (", ".join(map(repr, bad)), layer, ", ".join(byname)))
            sel = [byname[n] for n in names]
        self.cols = [cols[i] for i in sel]
        self.names = [c.name.decode() for c in self.cols]
        self.dtypes = [_dtype(c) for c in self.cols]
        self.ids = (ctypes.c_uint * max(1, len(sel)))(*sel)
        self.out = (ctypes.c_void_p * max(1, len(sel)))()
        self.r = ctypes.c_void_p()
        self.c = ctypes.c_void_p()
        self.strs = _Strings(lib)
        self.path_b = path.encode() if isinstance(path, str) else bytes(path)
        err = lib.tape_reader_open(ctypes.byref(self.r), self.path_b)
        if err < 0:
            raise _fail(err, path)
        try:
            self.stats = L.TableStats()
            lib.tape_reader_table_stats(self.r, self.table, ctypes.byref(self.stats))
            err = lib.tape_cursor_open(self.r, self.table, 0, 2**64 - 1, ctypes.byref(self.c))
            if err == 0:
                err = lib.tape_cursor_set_threads(self.c, nthreads)
            if err < 0:
                raise _fail(err, path)
        except BaseException:
            self.close()
            raise

    def close(self):
        """Frees the reader and the cursor; the string table stays with
        the Arrays read (freed with the last of them)."""
        lib = self.lib
        lib.tape_cursor_free(self.c)
        lib.tape_reader_free(self.r)
        self.c = self.r = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def read_into(self, arrays, at, want):
        """Fill arrays[*][at:at+want] from the cursor: how many (0 at the end)."""
        for i, a in enumerate(arrays):
            self.out[i] = a.ctypes.data + at * a.itemsize
        n = ctypes.c_size_t()
        rc = self.lib.tape_cursor_read_columns(self.c, self.ids, len(self.cols), self.out,
                                               want, self.strs.s, ctypes.byref(n))
        if rc < 0:
            raise _fail(rc, self.path, "table %s" % self.layer)
        return n.value

    def batch(self, n):
        """Up to n events as an Arrays; None at the end."""
        arrays = [np.empty(n, dt) for dt in self.dtypes]
        got = self.read_into(arrays, 0, n)
        if got == 0:
            return None
        return self._arrays([a[:got] if got < n else a for a in arrays])

    def all(self):
        """Every event of the table as an Arrays (one batch, grown as needed)."""
        # The index's count is a hint (a hostile file may claim anything):
        # start there, bounded, and grow.
        cap = min(max(int(self.stats.events), 1), 1 << 24)
        arrays = [np.empty(cap, dt) for dt in self.dtypes]
        got = 0
        while True:
            n = self.read_into(arrays, got, cap - got)
            got += n
            if got < cap:
                if n == 0:
                    break
                continue
            # full: grow only when there is more (the usual case, the
            # index's count exactly, ends here without a copy)
            more = [np.empty(1 << 16, dt) for dt in self.dtypes]
            n = self.read_into(more, 0, len(more[0]))
            if n == 0:
                break
            cap *= 2
            arrays = [np.concatenate([a, m[:n], np.empty(cap - len(a) - n, a.dtype)])
                      for a, m in zip(arrays, more)]
            got += n
        return self._arrays([a[:got] if got < cap else a for a in arrays])

    def _arrays(self, arrays):
        a = Arrays(zip(self.names, arrays))
        a.layer = self.layer
        a._strs = self.strs
        a._n = self.strs.count()
        return a


def _threads(n):
    """The decoding threads: n, or by default one per CPU this process may
    run on (at most 8: past that the copies to memory bound the read)."""
    if n is None:
        try:
            n = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            n = os.cpu_count() or 1
        return max(1, min(n, 8))
    n = int(n)
    if not 1 <= n <= 64:
        raise ValueError("iotape: threads must be 1 to 64, not %d" % n)
    return n


def _open(path, layer, columns, threads=None):
    return _Reader(path, layer, columns, threads)


def read_arrays(path, columns=None, layer="syscall", threads=None):
    """Every event of a layer (table) of the trace at path, as numpy arrays.

    columns: names (default all, in dump's order); layer: one of LAYERS;
    threads: how many threads decode (default one per CPU, at most 8; the
    result does not depend on it).
    Returns an Arrays (a dict of column -> array): integers as uint32,
    uint64 or int64 as the column is stored, enumerations as their numbers
    (op: tape_op, ...), strings as uint32 ids into .strings.  Raises
    TraceError when the trace cannot be read or is damaged.
    """
    with _open(path, layer, columns, threads) as r:
        return r.all()


def _enum_names(lib, text, values):
    """Categories for the distinct values of an enumeration column, named as
    dump names them (a number, or hex flags, when the value has no name)."""
    out = []
    buf = ctypes.create_string_buffer(32)
    for v in values.tolist():
        name = None
        if text == L.TXT_BLKFLAGS:
            if not v & ~0xff:
                lib.tape_blk_flags_format(v, buf, len(buf))
                name = buf.value
            else:
                name = ("0x%x" % v).encode()
        elif v <= 0xffffffff:
            f = {L.TXT_OP: lib.tape_op_name, L.TXT_CACHEKIND: lib.tape_cache_kind_name,
                 L.TXT_METRIC: lib.tape_metric_name, L.TXT_WAKE: lib.tape_wake_kind_name,
                 L.TXT_WAITCALL: lib.tape_wait_call_name}[text]
            name = f(v)
        out.append(name.decode() if name is not None else str(v))
    return out


def _frame(r, a):
    import pandas as pd
    data = {}
    for c, name in zip(r.cols, r.names):
        v = a[name]
        if c.type == L.COL_STR:
            codes = v.astype(np.int64)
            data[name] = pd.Categorical.from_codes(codes, categories=pd.Index(a.strings, dtype=object))
        elif c.text in _ENUMS:
            uniq, codes = np.unique(v, return_inverse=True)
            data[name] = pd.Categorical.from_codes(codes, categories=_enum_names(r.lib, c.text, uniq))
        else:
            data[name] = v
    return pd.DataFrame(data, copy=False)


def read(path, columns=None, layer="syscall", threads=None):
    """A layer (table) of the trace at path as a pandas DataFrame.

    The values of `iotape dump --format csv --table LAYER`: op, kind,
    metric and rwbs as categoricals of their names, string columns as
    categoricals, the other columns as integers (flags and fstype, hex in
    the CSV, too).  columns: names to read (default all); threads: as
    read_arrays().  Raises TraceError when the trace cannot be read or is
    damaged.
    """
    with _open(path, layer, columns, threads) as r:
        return _frame(r, r.all())


def chunks(path, n=1 << 20, columns=None, layer="syscall", arrays=False, threads=None):
    """The layer's events in pieces of at most n rows, in file order.

    Yields DataFrames as read() makes them (or Arrays when arrays=True),
    holding one piece at a time, so a trace larger than memory can be
    streamed.  String categories grow from piece to piece (a string's code
    never changes), so pd.concat of the pieces gives object columns for
    them; iotape.read() gives one categorical.  threads: as read_arrays().
    Raises TraceError where the trace is damaged, after the pieces before
    the damage.
    """
    if n < 1:
        raise ValueError("iotape: chunk size n must be at least 1")
    with _open(path, layer, columns, threads) as r:
        while True:
            a = r.batch(n)
            if a is None:
                return
            yield a if arrays else _frame(r, a)


from .xform import merge, split  # noqa: E402 (after TraceError, which they raise)
