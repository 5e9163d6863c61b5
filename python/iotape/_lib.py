# SPDX-License-Identifier: MIT
"""ctypes declarations of libtape.so (format/tape.h), and how it is found.

Only the functions the reader needs are declared, each with its argument
and result types, so a wrong call fails in Python instead of in C.  The
library is looked for, in this order, at $IOTAPE_LIBTAPE (a path); next to
this package (a copy of libtape.so.0 put there); in the lib directory
`make install` put this package under (PREFIX/lib, for
PREFIX/lib/python3/dist-packages/iotape); and by
ctypes.util.find_library("tape") (what ldconfig knows).
"""
import ctypes
import ctypes.util
import os

SOVERSION = 0


class Column(ctypes.Structure):
    """struct tape_column (tape.h): the public column description."""
    _fields_ = [("name", ctypes.c_char_p), ("id", ctypes.c_uint16),
                ("type", ctypes.c_uint8), ("width", ctypes.c_uint8),
                ("text", ctypes.c_uint8), ("offset", ctypes.c_uint16)]


class TableStats(ctypes.Structure):
    """struct tape_table_stats (tape.h)."""
    _fields_ = [("events", ctypes.c_uint64), ("blocks", ctypes.c_uint64),
                ("bytes", ctypes.c_uint64), ("t_min", ctypes.c_uint64),
                ("t_max", ctypes.c_uint64)]


class XformError(ctypes.Structure):
    """struct tape_xform_error (tape.h): what a merge or a split said."""
    _fields_ = [("err", ctypes.c_int), ("what", ctypes.c_char_p),
                ("msg", ctypes.c_char * 8192)]


class SplitOpts(ctypes.Structure):
    """struct tape_split_opts (tape.h)."""
    _fields_ = [("prefix", ctypes.c_char_p), ("by", ctypes.c_int),
                ("every", ctypes.c_uint64), ("parts", ctypes.c_uint)]


class SplitStats(ctypes.Structure):
    """struct tape_split_stats (tape.h)."""
    _fields_ = [("parts", ctypes.c_size_t), ("events", ctypes.c_uint64)]


# enum of tape_split_opts.by (tape.h)
SPLIT_HOST, SPLIT_PROCESS, SPLIT_TIME = range(3)

# enum tape_col_type and enum tape_col_text (tape.h)
COL_U64, COL_I64, COL_STR = 1, 2, 3
TXT_NUM, TXT_OP, TXT_BLKFLAGS, TXT_CACHEKIND, TXT_METRIC, TXT_HEX, TXT_FSTYPE, TXT_WAKE, \
    TXT_WAITCALL = range(9)

_P = ctypes.c_void_p
_SIGS = {
    "tape_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "tape_error_detail": (ctypes.c_char_p, []),
    "tape_table_from_name": (ctypes.c_int, [ctypes.c_char_p]),
    "tape_table_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tape_table_columns": (ctypes.POINTER(Column), [ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]),
    "tape_op_name": (ctypes.c_char_p, [ctypes.c_uint]),
    "tape_cache_kind_name": (ctypes.c_char_p, [ctypes.c_uint]),
    "tape_metric_name": (ctypes.c_char_p, [ctypes.c_uint]),
    "tape_wake_kind_name": (ctypes.c_char_p, [ctypes.c_uint]),
    "tape_wait_call_name": (ctypes.c_char_p, [ctypes.c_uint]),
    "tape_blk_flags_format": (None, [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]),
    "tape_reader_open": (ctypes.c_int, [ctypes.POINTER(_P), ctypes.c_char_p]),
    "tape_reader_free": (None, [_P]),
    "tape_reader_recovered": (ctypes.c_char_p, [_P]),
    "tape_reader_table_stats": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(TableStats)]),
    "tape_cursor_open": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64,
                                        ctypes.POINTER(_P)]),
    "tape_cursor_free": (None, [_P]),
    "tape_cursor_read_columns": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_uint), ctypes.c_size_t,
                                                ctypes.POINTER(_P), ctypes.c_size_t, _P,
                                                ctypes.POINTER(ctypes.c_size_t)]),
    "tape_cursor_set_threads": (ctypes.c_int, [_P, ctypes.c_uint]),
    "tape_strings_new": (ctypes.c_int, [ctypes.POINTER(_P)]),
    "tape_strings_free": (None, [_P]),
    "tape_strings_count": (ctypes.c_size_t, [_P]),
    # returns const char *, taken as an address: the strings hold NULs between them
    "tape_strings_data": (_P, [_P, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint64))]),
    # the trace transforms (merge.c, split.c) and the writer they write with
    "tape_writer_open": (ctypes.c_int, [ctypes.POINTER(_P), ctypes.c_char_p, _P]),
    "tape_writer_close": (ctypes.c_int, [_P]),
    "tape_writer_free": (None, [_P]),
    "tape_merge_new": (ctypes.c_int, [ctypes.POINTER(_P), ctypes.c_char_p,
                                      ctypes.POINTER(XformError)]),
    "tape_merge_add": (ctypes.c_int, [_P, _P, ctypes.c_char_p, ctypes.POINTER(XformError)]),
    "tape_merge_clock": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.POINTER(XformError)]),
    "tape_merge_write": (ctypes.c_int, [_P, _P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64),
                                        ctypes.POINTER(XformError)]),
    "tape_merge_free": (None, [_P]),
    "tape_split": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(SplitOpts),
                                  ctypes.POINTER(SplitStats), ctypes.POINTER(XformError)]),
}

_lib = None


def _candidates():
    env = os.environ.get("IOTAPE_LIBTAPE")
    if env:
        return [env], "$IOTAPE_LIBTAPE=" + env
    pkg = os.path.dirname(os.path.abspath(__file__))
    name = "libtape.so.%d" % SOVERSION
    here = os.path.join(pkg, name)
    # make install: PREFIX/lib/python3/dist-packages/iotape -> PREFIX/lib
    libdir = os.path.normpath(os.path.join(pkg, "..", "..", "..", name))
    found = ctypes.util.find_library("tape")
    cands = [p for p in (here, libdir) if os.path.exists(p)]
    cands += [found] if found else []
    return cands, "%s, %s, ctypes.util.find_library('tape') (%s)" % (here, libdir, found or "not found")


def lib():
    """The loaded libtape.so with its functions declared (loaded once)."""
    global _lib
    if _lib is not None:
        return _lib
    cands, tried = _candidates()
    errors = []
    for c in cands:
        try:
            so = ctypes.CDLL(c)
        except OSError as e:
            errors.append(str(e))
            continue
        try:
            for name, (res, args) in _SIGS.items():
                f = getattr(so, name)
                f.restype, f.argtypes = res, args
        except AttributeError as e:
            errors.append("%s: %s (a libtape older than this package?)" % (c, e))
            continue
        _lib = so
        return so
    raise ImportError("iotape: cannot load libtape.so.%d (looked at %s)%s; build it with "
                      "`make` (.output/libtape.so.%d) and set IOTAPE_LIBTAPE, or `make install`"
                      % (SOVERSION, tried, ": " + "; ".join(errors) if errors else "", SOVERSION))
