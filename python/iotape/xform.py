# SPDX-License-Identifier: MIT
"""merge() and split(): libtape's trace transforms (format/merge.c,
format/split.c), what `iotape merge` and `iotape split` run, from Python.
"""
import ctypes
import os

from . import _lib as L
from . import TraceError, _fail  # defined before __init__ imports this module

_BY = {"host": L.SPLIT_HOST, "process": L.SPLIT_PROCESS, "time": L.SPLIT_TIME}


def _enc(path):
    return os.fsencode(path)


def _raise(e, default):
    """The transform's error as a TraceError (its one line, or the
    libtape error of the file it names)."""
    if e.msg:
        return TraceError(-e.err, e.msg.decode(errors="replace"), default)
    what = e.what.decode(errors="replace") if e.what else default
    return _fail(e.err, what, None)


def merge(paths, out, align=None):
    """Merge the traces paths (input i is host i) into a new trace out
    (which must not exist), as `iotape merge -o OUT [--align ALIGN]` does.
    Returns {"hosts", "events", "clock"}; raises TraceError (nothing left
    at out) or ValueError (fewer than two inputs)."""
    lib = L.lib()
    if len(paths) < 2:
        raise ValueError("merge needs two traces at least")
    e = L.XformError()
    m = ctypes.c_void_p()
    readers = []
    names = []      # the merge keeps each name's pointer until it writes
    w = ctypes.c_void_p()
    made = False
    try:
        # the merge keeps align's pointer (its metadata) until it writes
        abuf = ctypes.create_string_buffer(_enc(align)) if align else None
        if lib.tape_merge_new(ctypes.byref(m), abuf, ctypes.byref(e)):
            raise _raise(e, out)
        for p in paths:
            r = ctypes.c_void_p()
            rc = lib.tape_reader_open(ctypes.byref(r), _enc(p))
            if rc < 0:
                raise _fail(rc, p)
            readers.append(r)
            names.append(ctypes.create_string_buffer(_enc(p)))
            if lib.tape_merge_add(m, r, names[-1], ctypes.byref(e)):
                raise _raise(e, p)
        clock = ctypes.c_char_p()
        if lib.tape_merge_clock(m, ctypes.byref(clock), ctypes.byref(e)):
            raise _raise(e, out)
        rc = lib.tape_writer_open(ctypes.byref(w), _enc(out), None)
        if rc < 0:
            raise _fail(rc, out)
        made = True
        events = ctypes.c_uint64()
        if lib.tape_merge_write(m, w, _enc(out), ctypes.byref(events), ctypes.byref(e)):
            raise _raise(e, out)
        rc, w = lib.tape_writer_close(w), None
        if rc < 0:
            raise _fail(rc, out)
        made = False
        return {"hosts": len(paths), "events": events.value, "clock": clock.value.decode()}
    finally:
        if w:
            lib.tape_writer_free(w)
        if made:
            try:
                os.unlink(out)
            except OSError:
                pass
        for r in readers:
            lib.tape_reader_free(r)
        lib.tape_merge_free(m)


def split(path, prefix, by="host", every_ns=0, parts=0):
    """Split the trace at path into PREFIX-hostH.iotape (by="host"),
    PREFIX-pidP.iotape ("process") or PREFIX-partK.iotape ("time", with
    every_ns or parts), as `iotape split` does.  Returns {"parts",
    "events"}; raises TraceError (no part left) or ValueError."""
    lib = L.lib()
    if by not in _BY:
        raise ValueError("by: %r is not host, process or time" % (by,))
    if (by == "time") != bool(every_ns or parts) or (every_ns and parts):
        raise ValueError("by time takes exactly one of every_ns and parts; the others neither")
    o = L.SplitOpts(_enc(prefix), _BY[by], int(every_ns), int(parts))
    st = L.SplitStats()
    e = L.XformError()
    r = ctypes.c_void_p()
    rc = lib.tape_reader_open(ctypes.byref(r), _enc(path))
    if rc < 0:
        raise _fail(rc, path)
    try:
        if lib.tape_split(r, _enc(path), ctypes.byref(o), ctypes.byref(st), ctypes.byref(e)):
            raise _raise(e, path)
        return {"parts": st.parts, "events": st.events}
    finally:
        lib.tape_reader_free(r)
