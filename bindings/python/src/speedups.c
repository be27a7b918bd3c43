/* hashtrace_speedups: the Python tracepoint's hot path in C (optional).
 *
 * The pure-Python path encodes values with struct and calls libhashtrace
 * through ctypes, whose argument conversion alone costs about a microsecond.
 * This module encodes the same canonical bytes (checked against the golden
 * vectors and the Python encoder) and calls the C API directly. CMake builds
 * it beside the package; without it the package falls back to ctypes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <hashtrace.h>

#include <stdint.h>
#include <string.h>

static PyObject* g_typed; /* hashtrace._canonical.Typed: its .data is already canonical */

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

/* values: a tuple (or list) of values, or None (no hash). 1: encoded, 0: None, -1: error. */
static int encode(Buffer* b, PyObject* values) {
    if (values == Py_None) return 0;
    PyObject* seq = PySequence_Fast(values, "hashtrace: the state is a tuple of values (or None for no hash)");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject** items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (encode_one(b, items[i])) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 1;
}

static const hashtrace_tracepoint* handle_of(PyObject* h) {
    void* p = PyLong_AsVoidPtr(h);
    if (!p && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "hashtrace: a NULL tracepoint handle");
    return (const hashtrace_tracepoint*)p;
}

/* record(handle, inp, out) -> status: inp and out are tuples of values or None. */
static PyObject* record(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "record(handle, inp, out)");
        return NULL;
    }
    const hashtrace_tracepoint* tp = handle_of(args[0]);
    if (!tp) return NULL;
    Buffer in, out;
    init(&in);
    init(&out);
    int has_in = encode(&in, args[1]);
    int has_out = has_in < 0 ? -1 : encode(&out, args[2]);
    int rc = 0;
    if (has_in >= 0 && has_out >= 0)
        rc = hashtrace_record_bytes(tp, has_in ? in.data : NULL, in.size, has_out ? out.data : NULL, out.size);
    release(&in);
    release(&out);
    if (has_in < 0 || has_out < 0) return NULL;
    return PyLong_FromLong(rc);
}

/* record_inout(handle, values) -> status */
static PyObject* record_inout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "record_inout(handle, values)");
        return NULL;
    }
    const hashtrace_tracepoint* tp = handle_of(args[0]);
    if (!tp) return NULL;
    Buffer b;
    init(&b);
    if (encode(&b, args[1]) < 0) {
        release(&b);
        return NULL;
    }
    int rc = hashtrace_record_bytes_inout(tp, b.data, b.size);
    release(&b);
    return PyLong_FromLong(rc);
}

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

static PyObject* set_typed(PyObject* self, PyObject* typed) {
    (void)self;
    Py_XDECREF(g_typed);
    Py_INCREF(typed);
    g_typed = typed;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"record", (PyCFunction)(void (*)(void))record, METH_FASTCALL, "record(handle, inp, out) -> status"},
    {"record_inout", (PyCFunction)(void (*)(void))record_inout, METH_FASTCALL, "record_inout(handle, values) -> status"},
    {"encode", encode_values, METH_O, "encode(values) -> canonical bytes"},
    {"set_typed", set_typed, METH_O, "set_typed(cls): the class whose .data is canonical"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hashtrace_speedups", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_hashtrace_speedups(void) { return PyModule_Create(&module); }
