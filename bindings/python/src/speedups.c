/* hashtrace_speedups: the Python tracepoint's hot path in C.
 *
 * The pure-Python path encodes values with struct and calls libhashtrace
 * through ctypes, whose argument conversion alone costs about a microsecond.
 * This module encodes the same canonical bytes (checked against the golden
 * vectors and the Python encoder) and calls the C API directly. It also holds
 * the objects a call makes on the way (the sized numbers u8()..f64(), the
 * inp()/out()/inout() specs, the one-call tracepoint() and the defined
 * Tracepoint's methods), since a Python-level constructor or frame costs more
 * than the hash itself. `pip install bindings/python` builds it into the
 * package beside libhashtrace; CMake builds it beside the package; without it
 * the package falls back to ctypes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <hashtrace.h>

#if PY_VERSION_HEX < 0x030B0000
#define PyFloat_Pack4 _PyFloat_Pack4 /* public from Python 3.11 */
#endif

#include <limits.h>
#include <stdint.h>
#include <string.h>

static PyObject* g_typed;        /* hashtrace._canonical.Typed (the pure-Python one): its .data is canonical */
static PyObject* g_not_recorded; /* hashtrace._not_recorded(rc, stacklevel): warns or raises for a status != 0 */
static PyObject* g_define;       /* hashtrace._define(name, in, out, deferred, function) -> handle (an int) */
static PyObject* g_cache;        /* the one-call form's tracepoints: (name, in label, out label[, deferred, function]) -> handle */
/* Samples the Python tracepoints queued since the session started: stats() reports
 * them inside the session, before the writer's first flush counts anything written.
 * Every caller holds the GIL, so a plain counter is exact. */
static unsigned long long g_recorded;

/* ---- sized numbers: hashtrace.u8(..)..f64(..) --------------------------------------- */

/* A number with the width it is hashed at: its canonical bytes made once, here. */
typedef struct {
    PyObject_HEAD
    unsigned char data[8];
    unsigned char size;
    unsigned char kind; /* index into KINDS */
    PyObject* value;    /* what repr() and .value show: the int, or the float */
} TypedObject;

static PyTypeObject TypedType;

enum { K_U8, K_U16, K_U32, K_U64, K_I8, K_I16, K_I32, K_I64, K_F32, K_F64 };
static const char* const KINDS[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"};
static const unsigned char WIDTHS[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};

static PyObject* out_of_range(int kind, PyObject* value) {
    PyErr_Format(PyExc_OverflowError, "hashtrace.%s(%R): out of range", KINDS[kind], value);
    return NULL;
}

/* The rules of _canonical.Typed, in C: the same errors for the same arguments. */
static PyObject* make_typed(int kind, PyObject* value) {
    if (PyBool_Check(value) || !(PyLong_Check(value) || PyFloat_Check(value))) {
        PyErr_Format(PyExc_TypeError, "hashtrace.%s() takes a number, not %.200s", KINDS[kind], Py_TYPE(value)->tp_name);
        return NULL;
    }
    TypedObject* t = PyObject_New(TypedObject, &TypedType);
    if (!t) return NULL;
    t->kind = (unsigned char)kind;
    t->size = WIDTHS[kind];
    t->value = NULL;
    uint64_t bits = 0;
    if (kind == K_F32 || kind == K_F64) {
        double d = PyFloat_AsDouble(value); /* an int too large for a double raises OverflowError */
        if (d == -1.0 && PyErr_Occurred()) goto fail;
        t->value = PyFloat_FromDouble(d);
        if (!t->value) goto fail;
        if (kind == K_F32) {
            if (PyFloat_Pack4(d, (char*)t->data, 1)) { /* finite but beyond a float's range */
                PyErr_Clear();
                out_of_range(kind, t->value);
                goto fail;
            }
            return (PyObject*)t;
        }
        memcpy(&bits, &d, 8);
    } else {
        if (!PyLong_Check(value)) {
            PyErr_Format(PyExc_TypeError, "hashtrace.%s() takes an int, not %.200s", KINDS[kind], Py_TYPE(value)->tp_name);
            goto fail;
        }
        int overflow = 0;
        if (kind <= K_U64) {
            long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (x == -1 && PyErr_Occurred()) goto fail;
            if (overflow > 0) { /* beyond int64: still a uint64 if it fits */
                bits = PyLong_AsUnsignedLongLong(value);
                if (bits == (uint64_t)-1 && PyErr_Occurred()) {
                    PyErr_Clear();
                    out_of_range(kind, value);
                    goto fail;
                }
                if (kind != K_U64) overflow = 1; else overflow = 0;
            } else if (overflow < 0 || x < 0) {
                overflow = 1;
            } else {
                bits = (uint64_t)x;
                if (kind != K_U64 && bits >> (8 * t->size)) overflow = 1;
            }
        } else {
            long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (x == -1 && PyErr_Occurred()) goto fail;
            if (!overflow && kind != K_I64) {
                long long limit = 1LL << (8 * t->size - 1);
                if (x < -limit || x >= limit) overflow = 1;
            }
            bits = (uint64_t)x;
        }
        if (overflow) {
            out_of_range(kind, value);
            goto fail;
        }
        Py_INCREF(value);
        t->value = value;
    }
    for (int i = 0; i < t->size; ++i) t->data[i] = (unsigned char)(bits >> (8 * i));
    return (PyObject*)t;
fail:
    Py_DECREF(t);
    return NULL;
}

static void typed_dealloc(PyObject* self) {
    Py_XDECREF(((TypedObject*)self)->value);
    Py_TYPE(self)->tp_free(self);
}

static PyObject* typed_repr(PyObject* self) {
    TypedObject* t = (TypedObject*)self;
    return PyUnicode_FromFormat("hashtrace.%s(%R)", KINDS[t->kind], t->value);
}

static PyObject* typed_data(PyObject* self, void* closure) {
    (void)closure;
    TypedObject* t = (TypedObject*)self;
    return PyBytes_FromStringAndSize((const char*)t->data, t->size);
}

static PyObject* typed_name(PyObject* self, void* closure) {
    (void)closure;
    return PyUnicode_FromString(KINDS[((TypedObject*)self)->kind]);
}

static PyObject* typed_value(PyObject* self, void* closure) {
    (void)closure;
    PyObject* v = ((TypedObject*)self)->value;
    Py_INCREF(v);
    return v;
}

static PyGetSetDef typed_getset[] = {
    {"data", typed_data, NULL, "the canonical bytes", NULL},
    {"name", typed_name, NULL, "u8 .. f64", NULL},
    {"value", typed_value, NULL, "the number", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TypedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "hashtrace.Typed",
    .tp_basicsize = sizeof(TypedObject),
    .tp_dealloc = typed_dealloc,
    .tp_repr = typed_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A value with the width it is hashed at (made by u32(42), f32(1.5), ...).",
    .tp_getset = typed_getset,
};

#define TYPED_MAKER(kind, name)                                      \
    static PyObject* make_##name(PyObject* self, PyObject* value) { \
        (void)self;                                                  \
        return make_typed(kind, value);                              \
    }
TYPED_MAKER(K_U8, u8)
TYPED_MAKER(K_U16, u16)
TYPED_MAKER(K_U32, u32)
TYPED_MAKER(K_U64, u64)
TYPED_MAKER(K_I8, i8)
TYPED_MAKER(K_I16, i16)
TYPED_MAKER(K_I32, i32)
TYPED_MAKER(K_I64, i64)
TYPED_MAKER(K_F32, f32)
TYPED_MAKER(K_F64, f64)

/* ---- canonical bytes -------------------------------------------------------------- */

typedef struct {
    unsigned char* data;
    size_t size, capacity;
    unsigned char stack[512];
} Buffer;

static int room(Buffer* b, size_t n) {
    if (b->size + n <= b->capacity) return 0;
    size_t cap = b->capacity * 2;
    while (cap < b->size + n) cap *= 2;
    unsigned char* bigger = PyMem_Malloc(cap);
    if (!bigger) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(bigger, b->data, b->size);
    if (b->data != b->stack) PyMem_Free(b->data);
    b->data = bigger;
    b->capacity = cap;
    return 0;
}

static int put(Buffer* b, const void* p, size_t n) {
    if (room(b, n)) return -1;
    if (n) memcpy(b->data + b->size, p, n);
    b->size += n;
    return 0;
}

static int put_le(Buffer* b, uint64_t v, int width) {
    unsigned char le[8];
    for (int i = 0; i < width; ++i) le[i] = (unsigned char)(v >> (8 * i));
    return put(b, le, (size_t)width);
}

static int put_span(Buffer* b, const void* p, Py_ssize_t n) {
    if ((uint64_t)n > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "hashtrace: a string or bytes value is longer than 4 GiB");
        return -1;
    }
    if (put_le(b, (uint64_t)n, 4)) return -1;
    return put(b, p, (size_t)n);
}

/* The rules of _canonical._encode_one, in C. */
static int encode_one(Buffer* b, PyObject* v) {
    PyTypeObject* t = Py_TYPE(v);
    if (t == &PyLong_Type) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "hashtrace: %R does not fit an int64; say its width, e.g. hashtrace.u64(%R)", v, v);
            return -1;
        }
        return put_le(b, (uint64_t)x, 8);
    }
    if (t == &TypedType) {
        TypedObject* typed = (TypedObject*)v;
        return put(b, typed->data, typed->size);
    }
    if (t == &PyUnicode_Type) {
        Py_ssize_t n;
        const char* s = PyUnicode_AsUTF8AndSize(v, &n); /* a lone surrogate: UnicodeEncodeError */
        return s ? put_span(b, s, n) : -1;
    }
    if ((PyObject*)t == g_typed) {
        PyObject* data = PyObject_GetAttrString(v, "data");
        if (!data) return -1;
        int rc = PyBytes_Check(data) ? put(b, PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data)) : -1;
        if (rc && !PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "hashtrace: a Typed value without bytes");
        Py_DECREF(data);
        return rc;
    }
    if (t == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(v);
        uint64_t bits;
        memcpy(&bits, &d, 8);
        return put_le(b, bits, 8);
    }
    if (t == &PyBool_Type) {
        unsigned char one = v == Py_True;
        return put(b, &one, 1);
    }
    if (t == &PyBytes_Type) return put_span(b, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v));
    if (t == &PyByteArray_Type || t == &PyMemoryView_Type) {
        Py_buffer view;
        if (PyObject_GetBuffer(v, &view, PyBUF_SIMPLE)) return -1;
        int rc = put_span(b, view.buf, view.len);
        PyBuffer_Release(&view);
        return rc;
    }
    PyErr_Format(PyExc_TypeError,
                 "hashtrace cannot hash a %s: pass int, float, bool, str, bytes or a sized number "
                 "(hashtrace.u32(...), hashtrace.f32(...))", t->tp_name);
    return -1;
}

static void release(Buffer* b) {
    if (b->data != b->stack) PyMem_Free(b->data);
}

static void init(Buffer* b) {
    b->data = b->stack;
    b->size = 0;
    b->capacity = sizeof b->stack;
}


static int encode_array(Buffer* b, PyObject* const* items, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; ++i)
        if (encode_one(b, items[i])) return -1;
    return 0;
}

/* values: a tuple (or list) of values, or None (no hash). 1: encoded, 0: None, -1: error. */
static int encode(Buffer* b, PyObject* values) {
    if (values == Py_None) return 0;
    if (PyTuple_CheckExact(values)) /* the common case, without PySequence_Fast's new reference */
        return encode_array(b, &PyTuple_GET_ITEM(values, 0), PyTuple_GET_SIZE(values)) ? -1 : 1;
    PyObject* seq = PySequence_Fast(values, "hashtrace: the state is a tuple of values (or None for no hash)");
    if (!seq) return -1;
    int rc = encode_array(b, PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq));
    Py_DECREF(seq);
    return rc ? -1 : 1;
}

/* ---- recording -------------------------------------------------------------------- */

/* Records inp and out (tuples of values, or None). 0 with *status set, -1 on a Python error
 * (nothing recorded: the values are all encoded before the call). */
static int record_values(const hashtrace_tracepoint* tp, PyObject* inp, PyObject* out, int* status) {
    Buffer in, o;
    init(&in);
    init(&o);
    int has_in = encode(&in, inp);
    int has_out = has_in < 0 ? -1 : encode(&o, out);
    if (has_in >= 0 && has_out >= 0)
        *status = hashtrace_record_bytes(tp, has_in ? in.data : NULL, in.size, has_out ? o.data : NULL, o.size);
    release(&in);
    release(&o);
    return has_in < 0 || has_out < 0 ? -1 : 0;
}

static int record_inout_array(const hashtrace_tracepoint* tp, PyObject* const* items, Py_ssize_t n, int* status) {
    Buffer b;
    init(&b);
    int rc = encode_array(&b, items, n);
    if (!rc) *status = hashtrace_record_bytes_inout(tp, b.data, b.size);
    release(&b);
    return rc;
}

/* True for a queued sample; else what hashtrace._not_recorded says (False and a warning
 * without a session, an exception otherwise). stacklevel 2: the warning names the
 * caller's line, as no Python frame lies between it and this call. */
static PyObject* outcome(int status) {
    if (status == 0) {
        if (hashtrace_enabled()) ++g_recorded; /* switched off: accepted, not recorded */
        Py_RETURN_TRUE;
    }
    if (!g_not_recorded) {
        PyErr_SetString(PyExc_RuntimeError, "hashtrace_speedups: set_hooks() was not called");
        return NULL;
    }
    return PyObject_CallFunction(g_not_recorded, "ii", status, 2);
}

/* ---- inp(), out(), inout(), none ---------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject* label;  /* str */
    PyObject* values; /* a tuple, or None for no hash */
    int inout;        /* made by inout(): one state, in and out */
} SpecObject;

static PyTypeObject SpecType;

static PyObject* make_spec(PyObject* const* args, Py_ssize_t nargs, int inout, const char* what) {
    if (nargs < 1) {
        PyErr_Format(PyExc_TypeError, "hashtrace.%s(label, *values)", what);
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "hashtrace: a hash label is a str, not %.200s", Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    PyObject* values = PyTuple_New(nargs - 1);
    if (!values) return NULL;
    for (Py_ssize_t i = 1; i < nargs; ++i) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(values, i - 1, args[i]);
    }
    SpecObject* s = PyObject_GC_New(SpecObject, &SpecType);
    if (!s) {
        Py_DECREF(values);
        return NULL;
    }
    Py_INCREF(args[0]);
    s->label = args[0];
    s->values = values;
    s->inout = inout;
    PyObject_GC_Track(s);
    return (PyObject*)s;
}

static PyObject* spec_inp(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    return make_spec(args, nargs, 0, "inp");
}

static PyObject* spec_out(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    return make_spec(args, nargs, 0, "out");
}

static PyObject* spec_inout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    return make_spec(args, nargs, 1, "inout");
}

static int spec_traverse(PyObject* self, visitproc visit, void* arg) {
    Py_VISIT(((SpecObject*)self)->values);
    return 0;
}

static int spec_clear(PyObject* self) {
    Py_CLEAR(((SpecObject*)self)->values);
    return 0;
}

static void spec_dealloc(PyObject* self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((SpecObject*)self)->label);
    spec_clear(self);
    PyObject_GC_Del(self);
}

static PyObject* spec_repr(PyObject* self) {
    SpecObject* s = (SpecObject*)self;
    return PyUnicode_FromFormat("hashtrace.%s(%R, values=%R)", s->inout ? "inout" : "spec", s->label, s->values);
}

static PyObject* spec_label(PyObject* self, void* closure) {
    (void)closure;
    PyObject* v = ((SpecObject*)self)->label;
    Py_INCREF(v);
    return v;
}

static PyObject* spec_values(PyObject* self, void* closure) {
    (void)closure;
    PyObject* v = ((SpecObject*)self)->values;
    if (!v) v = Py_None;
    Py_INCREF(v);
    return v;
}

static PyGetSetDef spec_getset[] = {
    {"label", spec_label, NULL, "the hash type", NULL},
    {"values", spec_values, NULL, "the values hashed (a tuple), or None for no hash", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SpecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "hashtrace.Spec",
    .tp_basicsize = sizeof(SpecObject),
    .tp_dealloc = spec_dealloc,
    .tp_repr = spec_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "What a tracepoint hashes on one side: made by inp(), out(), inout(); hashtrace.none hashes nothing.",
    .tp_traverse = spec_traverse,
    .tp_clear = spec_clear,
    .tp_getset = spec_getset,
};

/* ---- hashtrace.tracepoint(name, inp, out=None, *, deferred=False, hash_function="md5") ---- */

static PyObject* g_str_md5;

static PyObject* tracepoint_fn(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    (void)self;
    PyObject *in, *out = Py_None, *deferred = NULL, *function = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs < 2 || nargs > 3) goto usage;
    in = args[1];
    if (nargs == 3) out = args[2];
    for (Py_ssize_t i = 0; i < nkw; ++i) {
        PyObject* key = PyTuple_GET_ITEM(kwnames, i);
        if (PyUnicode_CompareWithASCIIString(key, "deferred") == 0) deferred = args[nargs + i];
        else if (PyUnicode_CompareWithASCIIString(key, "hash_function") == 0) function = args[nargs + i];
        else if (nargs == 2 && PyUnicode_CompareWithASCIIString(key, "out") == 0) out = args[nargs + i];
        else goto usage;
    }
    if (out == Py_None) {
        if (Py_TYPE(in) != &SpecType || !((SpecObject*)in)->inout) {
            PyErr_SetString(PyExc_TypeError, "hashtrace.tracepoint(name, spec): a single spec must be hashtrace.inout(...); "
                                             "else pass inp(...) and out(...) (or hashtrace.none)");
            return NULL;
        }
        out = in;
    } else if (Py_TYPE(in) != &SpecType || Py_TYPE(out) != &SpecType || ((SpecObject*)in)->inout ||
               ((SpecObject*)out)->inout) {
        PyErr_SetString(PyExc_TypeError,
                        "hashtrace.tracepoint(name, inp, out): pass hashtrace.inp(...), hashtrace.out(...) or hashtrace.none");
        return NULL;
    }
    SpecObject* si = (SpecObject*)in;
    SpecObject* so = (SpecObject*)out;
    /* The definitions made so far, by what defines them; the defaults have the short key. */
    PyObject* key = deferred || function
                        ? PyTuple_Pack(5, args[0], si->label, so->label, deferred ? deferred : Py_False,
                                       function ? function : g_str_md5)
                        : PyTuple_Pack(3, args[0], si->label, so->label);
    if (!key) return NULL;
    PyObject* handle = PyDict_GetItemWithError(g_cache, key); /* borrowed */
    if (!handle) {
        if (PyErr_Occurred() || !g_define) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "hashtrace_speedups: set_hooks() was not called");
            Py_DECREF(key);
            return NULL;
        }
        handle = PyObject_CallFunctionObjArgs(g_define, args[0], si->label, so->label, deferred ? deferred : Py_False,
                                              function ? function : g_str_md5, NULL);
        if (!handle || PyDict_SetItem(g_cache, key, handle)) {
            Py_XDECREF(handle);
            Py_DECREF(key);
            return NULL;
        }
        Py_DECREF(handle); /* the cache holds it */
    }
    Py_DECREF(key);
    const hashtrace_tracepoint* tp = (const hashtrace_tracepoint*)PyLong_AsVoidPtr(handle);
    if (!tp) return NULL;
    int status = 0;
    int rc = so == si ? record_inout_array(tp, &PyTuple_GET_ITEM(si->values, 0), PyTuple_GET_SIZE(si->values), &status)
                      : record_values(tp, si->values, so->values, &status);
    return rc ? NULL : outcome(status);
usage:
    PyErr_SetString(PyExc_TypeError, "hashtrace.tracepoint(name, inp, out=None, *, deferred=False, hash_function='md5')");
    return NULL;
}

/* ---- the defined Tracepoint's recording methods --------------------------------------- */

typedef struct {
    PyObject_HEAD
    const hashtrace_tracepoint* tp;
} TracepointObject;

static const hashtrace_tracepoint* defined(PyObject* self) {
    const hashtrace_tracepoint* tp = ((TracepointObject*)self)->tp;
    if (!tp) PyErr_SetString(PyExc_ValueError, "hashtrace: the tracepoint is not defined");
    return tp;
}

static PyObject* tp_inout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const hashtrace_tracepoint* tp = defined(self);
    int status = 0;
    if (!tp || record_inout_array(tp, args, nargs, &status)) return NULL;
    return outcome(status);
}

static PyObject* tp_record(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    PyObject* in = nargs > 0 ? args[0] : Py_None;
    PyObject* out = nargs > 1 ? args[1] : Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs > 2) goto usage;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
        PyObject* key = PyTuple_GET_ITEM(kwnames, i);
        if (nargs < 1 && PyUnicode_CompareWithASCIIString(key, "inp") == 0) in = args[nargs + i];
        else if (nargs < 2 && PyUnicode_CompareWithASCIIString(key, "out") == 0) out = args[nargs + i];
        else goto usage;
    }
    const hashtrace_tracepoint* tp = defined(self);
    int status = 0;
    if (!tp || record_values(tp, in, out, &status)) return NULL;
    return outcome(status);
usage:
    PyErr_SetString(PyExc_TypeError, "Tracepoint.record(inp=None, out=None)");
    return NULL;
}

static PyObject* tp_get_handle(PyObject* self, void* closure) {
    (void)closure;
    return PyLong_FromVoidPtr((void*)((TracepointObject*)self)->tp);
}

static int tp_set_handle(PyObject* self, PyObject* value, void* closure) {
    (void)closure;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "a tracepoint's handle cannot be deleted");
        return -1;
    }
    void* p = PyLong_AsVoidPtr(value);
    if (!p && PyErr_Occurred()) return -1;
    ((TracepointObject*)self)->tp = (const hashtrace_tracepoint*)p;
    return 0;
}

static PyMethodDef tp_methods[] = {
    {"inout", (PyCFunction)(void (*)(void))tp_inout, METH_FASTCALL,
     "inout(*values) -> bool: records the same state as input and output. True when queued."},
    {"record", (PyCFunction)(void (*)(void))tp_record, METH_FASTCALL | METH_KEYWORDS,
     "record(inp=None, out=None) -> bool: inp and out are tuples of values, or None for no hash."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tp_getset[] = {
    {"_handle", tp_get_handle, tp_set_handle, "the libhashtrace tracepoint (hashtrace_tracepoint*)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TracepointType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "hashtrace_speedups.TracepointBase",
    .tp_basicsize = sizeof(TracepointObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The recording half of hashtrace.Tracepoint.",
    .tp_methods = tp_methods,
    .tp_getset = tp_getset,
    .tp_new = PyType_GenericNew,
};

/* ---- module ------------------------------------------------------------------------ */

/* encode(values) -> bytes: the canonical bytes (tests compare it with the Python encoder). */
static PyObject* encode_values(PyObject* self, PyObject* values) {
    (void)self;
    Buffer b;
    init(&b);
    if (encode(&b, values) < 0) {
        release(&b);
        return NULL;
    }
    PyObject* result = PyBytes_FromStringAndSize((const char*)b.data, (Py_ssize_t)b.size);
    release(&b);
    return result;
}

static void replace(PyObject** slot, PyObject* value) {
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
}

/* set_hooks(typed, not_recorded, define): the package's pure-Python Typed class, its
 * not-recorded handler and its tracepoint factory. */
static PyObject* set_hooks(PyObject* self, PyObject* args) {
    (void)self;
    PyObject *typed, *not_recorded, *define;
    if (!PyArg_ParseTuple(args, "OOO", &typed, &not_recorded, &define)) return NULL;
    replace(&g_typed, typed);
    replace(&g_not_recorded, not_recorded);
    replace(&g_define, define);
    PyDict_Clear(g_cache);
    Py_RETURN_NONE;
}

static PyObject* recorded(PyObject* self, PyObject* unused) {
    (void)self;
    (void)unused;
    return PyLong_FromUnsignedLongLong(g_recorded);
}

static PyObject* reset_recorded(PyObject* self, PyObject* unused) {
    (void)self;
    (void)unused;
    g_recorded = 0;
    Py_RETURN_NONE;
}

/* count_recorded(): a sample queued by a path outside this module (record_canonical). */
static PyObject* count_recorded(PyObject* self, PyObject* unused) {
    (void)self;
    (void)unused;
    if (hashtrace_enabled()) ++g_recorded;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", encode_values, METH_O, "encode(values) -> canonical bytes"},
    {"tracepoint", (PyCFunction)(void (*)(void))tracepoint_fn, METH_FASTCALL | METH_KEYWORDS,
     "tracepoint(name, inp, out=None, *, deferred=False, hash_function='md5') -> bool"},
    {"inp", (PyCFunction)(void (*)(void))spec_inp, METH_FASTCALL, "inp(label, *values): the input state"},
    {"out", (PyCFunction)(void (*)(void))spec_out, METH_FASTCALL, "out(label, *values): the output state"},
    {"inout", (PyCFunction)(void (*)(void))spec_inout, METH_FASTCALL, "inout(label, *values): one state, in and out"},
    {"u8", make_u8, METH_O, "u8(value): hashed as the C++ type of that width"},
    {"u16", make_u16, METH_O, "u16(value): hashed as the C++ type of that width"},
    {"u32", make_u32, METH_O, "u32(value): hashed as the C++ type of that width"},
    {"u64", make_u64, METH_O, "u64(value): hashed as the C++ type of that width"},
    {"i8", make_i8, METH_O, "i8(value): hashed as the C++ type of that width"},
    {"i16", make_i16, METH_O, "i16(value): hashed as the C++ type of that width"},
    {"i32", make_i32, METH_O, "i32(value): hashed as the C++ type of that width"},
    {"i64", make_i64, METH_O, "i64(value): hashed as the C++ type of that width"},
    {"f32", make_f32, METH_O, "f32(value): hashed as the C++ type of that width"},
    {"f64", make_f64, METH_O, "f64(value): hashed as the C++ type of that width"},
    {"set_hooks", set_hooks, METH_VARARGS, "set_hooks(typed, not_recorded, define)"},
    {"recorded", recorded, METH_NOARGS, "recorded() -> samples queued through this module this session"},
    {"count_recorded", count_recorded, METH_NOARGS, "count_recorded(): one more sample queued"},
    {"reset_recorded", reset_recorded, METH_NOARGS, "reset_recorded(): a session starts"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hashtrace_speedups", NULL, -1, methods, NULL, NULL, NULL, NULL};

static int add_type(PyObject* m, const char* name, PyTypeObject* type) {
    if (PyType_Ready(type)) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject*)type)) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit_hashtrace_speedups(void) {
    PyObject* m = PyModule_Create(&module);
    if (!m) return NULL;
    g_cache = PyDict_New();
    g_str_md5 = PyUnicode_InternFromString("md5");
    if (!g_cache || !g_str_md5 || add_type(m, "Typed", &TypedType) || add_type(m, "Spec", &SpecType) ||
        add_type(m, "TracepointBase", &TracepointType))
        goto fail;
    /* hashtrace.none: no hash (a source with no input, a sink with no output). */
    PyObject* empty = PyUnicode_FromString("");
    PyObject* none = empty ? make_spec(&empty, 1, 0, "none") : NULL;
    Py_XDECREF(empty);
    if (!none) goto fail;
    Py_CLEAR(((SpecObject*)none)->values);
    Py_INCREF(Py_None);
    ((SpecObject*)none)->values = Py_None;
    if (PyModule_AddObject(m, "none", none)) {
        Py_DECREF(none);
        goto fail;
    }
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
