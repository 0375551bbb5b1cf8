/* The fast path of ir_pref_measures.parsing.compiled: lines of single-space-separated ASCII fields split into
 * columns in one pass over the bytes, with the global interpreter lock released (see compiled.py for the rules). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FIELDS 16

static const double POWERS[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A decimal number -?D+(.D+)?([eE][-+]?D+)? with at most 15 significant digits and a power of ten within 10^+-22,
 * as the correctly rounded double (Clinger's fast path: one exact integer, one exact power, one rounding); 0 for
 * any other text, which the caller leaves to Arrow's parser. */
static int parse_number(const char *s, const char *end, double *out) {
    int negative = 0, digits = 0, scale = 0, exponent = 0;
    uint64_t mantissa = 0;
    if (s < end && *s == '-') {
        negative = 1;
        s++;
    }
    const char *start = s;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (mantissa || *s != '0') {
            if (++digits > 15) return 0;
            mantissa = mantissa * 10 + (uint64_t)(*s - '0');
        }
    }
    if (s == start) return 0;
    if (s < end && *s == '.') {
        const char *fraction = ++s;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
            if (mantissa || *s != '0') {
                if (++digits > 15) return 0;
                mantissa = mantissa * 10 + (uint64_t)(*s - '0');
            }
            scale++;
        }
        if (s == fraction) return 0;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        int minus = 0;
        s++;
        if (s < end && (*s == '-' || *s == '+')) minus = *s++ == '-';
        const char *first = s;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
            if (exponent > 1000) return 0;
            exponent = exponent * 10 + (*s - '0');
        }
        if (s == first) return 0;
        if (minus) exponent = -exponent;
    }
    if (s != end) return 0;
    int power = exponent - scale;
    double value = (double)mantissa;
    if (mantissa == 0)
        value = 0.0;
    else if (power >= 0 && power <= 22)
        value *= POWERS[power];
    else if (power < 0 && power >= -22)
        value /= POWERS[-power];
    else
        return 0;
    *out = negative ? -value : value;
    return 1;
}

typedef struct {
    int kind[MAX_FIELDS]; /* 0: unused, 1: text, 2: number */
    int slot[MAX_FIELDS]; /* the index among the text or number fields */
    int n_fields;
    char *text_data[MAX_FIELDS];
    int32_t *text_offsets[MAX_FIELDS];
    int64_t text_used[MAX_FIELDS];
    double *numbers[MAX_FIELDS];
    uint64_t *hashes[MAX_FIELDS]; /* per text field: NULL, or the hash of each id */
    const char *text_limit; /* the end of the text */
} Layout;

/* The bits of a 64-byte block: which bytes separate fields (a space or a line feed), which end lines, and which no
 * field may hold (a control character, DEL, '#', a byte from 0x80). */
typedef struct {
    uint64_t separator, newline, bad;
} Masks;

#if defined(__SSE2__)
#include <emmintrin.h>

static Masks block_masks(const char *p) {
    Masks m = {0, 0, 0};
    for (int i = 0; i < 4; i++) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        __m128i space = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(' '));
        __m128i newline = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\n'));
        __m128i low = _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x21)); /* signed: 0x00-0x20 and 0x80-0xff */
        __m128i other = _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x7f)), _mm_cmpeq_epi8(bytes, _mm_set1_epi8('#')));
        __m128i separator = _mm_or_si128(space, newline);
        __m128i bad = _mm_or_si128(_mm_andnot_si128(separator, low), other);
        m.separator |= (uint64_t)(uint16_t)_mm_movemask_epi8(separator) << (16 * i);
        m.newline |= (uint64_t)(uint16_t)_mm_movemask_epi8(newline) << (16 * i);
        m.bad |= (uint64_t)(uint16_t)_mm_movemask_epi8(bad) << (16 * i);
    }
    return m;
}
#else
static Masks block_masks(const char *p) {
    Masks m = {0, 0, 0};
    for (int i = 0; i < 64; i++) {
        unsigned char c = (unsigned char)p[i];
        uint64_t bit = (uint64_t)1 << i;
        if (c == ' ' || c == '\n') m.separator |= bit;
        if (c == '\n') m.newline |= bit;
        if (!(c == ' ' || c == '\n') && (c < 0x21 || c >= 0x7f || c == '#')) m.bad |= bit;
    }
    return m;
}
#endif

/* The bytes [start, end) to ``to``: 16 at a time while whole words can be read before ``limit`` (the end of the text)
 * and written (the column's buffer is as long as the text, and holds less), the bytes past ``end`` overwritten later. */
static inline void copy_text(char *to, const char *start, const char *end, const char *limit) {
#if defined(__SSE2__)
    if (limit - start >= 16 + (end - start)) {
        for (; start < end; start += 16, to += 16) _mm_storeu_si128((__m128i *)to, _mm_loadu_si128((const __m128i *)start));
        return;
    }
#else
    (void)limit;
#endif
    memcpy(to, start, (size_t)(end - start));
}

static inline uint64_t mix(uint64_t z) { /* SplitMix64's finaliser */
    z ^= z >> 30;
    z *= 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 27;
    z *= 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t word_at(const char *p) { /* 8 bytes, little-endian */
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The hash of ids.string_hashes: the byte length, then the bytes in 8-byte words (the last one padded with spaces),
 * each mixed in by SplitMix64's finaliser. */
static uint64_t id_hash(const char *start, const char *end) {
    size_t length = (size_t)(end - start);
    uint64_t h = mix((uint64_t)length + 0x9E3779B97F4A7C15ULL);
    for (; end - start >= 8; start += 8) h = mix(h ^ word_at(start));
    if (end > start) {
        char last[8];
        memset(last, ' ', 8);
        memcpy(last, start, (size_t)(end - start));
        h = mix(h ^ word_at(last));
    }
    return h;
}

/* Field ``f`` of row ``row``, the bytes [start, end) (not empty), into its column; 0 when it breaks a rule. */
static int keep_field(Layout *layout, int f, Py_ssize_t row, const char *start, const char *end) {
    int slot = layout->slot[f];
    if (layout->kind[f] == 1) {
        int64_t used = layout->text_used[slot] + (end - start);
        if (used > INT32_MAX) return 0;
        copy_text(layout->text_data[slot] + layout->text_used[slot], start, end, layout->text_limit);
        layout->text_used[slot] = used;
        layout->text_offsets[slot][row + 1] = (int32_t)used;
        if (layout->hashes[slot] != NULL) layout->hashes[slot][row] = id_hash(start, end);
    } else if (layout->kind[f] == 2) {
        return parse_number(start, end, &layout->numbers[slot][row]);
    }
    return 1;
}

/* Every line of ``data`` (whole lines; the last one may lack its line feed) split into the layout's fields, 64 bytes
 * at a time, as rows ``row``, ``row + 1``, ...; the rows then held, or -1 when the text breaks a rule. */
static Py_ssize_t split_lines(const char *data, Py_ssize_t size, Layout *layout, Py_ssize_t row, Py_ssize_t rows) {
    Py_ssize_t start = 0;
    int f = 0, last = layout->n_fields - 1;
    char tail[64];
    for (Py_ssize_t block = 0; block < size; block += 64) {
        Masks m;
        if (size - block >= 64) {
            m = block_masks(data + block);
        } else { /* the last bytes, padded with a byte any field may hold; the padding's bits are dropped */
            memset(tail, 'x', sizeof(tail));
            memcpy(tail, data + block, (size_t)(size - block));
            m = block_masks(tail);
        }
        if (m.bad) return -1;
        for (uint64_t bits = m.separator; bits; bits &= bits - 1) {
            int bit = __builtin_ctzll(bits);
            Py_ssize_t at = block + bit;
            int ends_line = (m.newline >> bit) & 1;
            /* too few or too many fields on the line; an empty field (two separators meet, a blank line, a space at
             * either end of a line) */
            if (row >= rows || ends_line != (f == last) || at == start) return -1;
            if (layout->kind[f] && !keep_field(layout, f, row, data + start, data + at)) return -1;
            start = at + 1;
            if (ends_line) {
                row++;
                f = 0;
            } else {
                f++;
            }
        }
    }
    if (start < size) { /* a last line without its line feed */
        if (row >= rows || f != last || !keep_field(layout, f, row, data + start, data + size)) return -1;
        row++;
    } else if (f != 0) {
        return -1; /* the text ends with a space */
    }
    return row;
}

#define CHUNK (1 << 20) /* bytes read at a time; a line may not be longer */

/* The file at ``path`` split, read CHUNK bytes at a time (whole lines split, the rest carried to the next read); the
 * rows, or -1 when it breaks a rule, cannot be read or has a line longer than CHUNK. */
static Py_ssize_t split_file_lines(const char *path, Layout *layout, Py_ssize_t rows) {
    FILE *file = fopen(path, "rb");
    char *buffer = malloc(CHUNK);
    Py_ssize_t row = 0, held = 0;
    if (file == NULL || buffer == NULL) row = -1;
    while (row >= 0) {
        size_t got = fread(buffer + held, 1, (size_t)(CHUNK - held), file);
        held += (Py_ssize_t)got;
        if (got == 0) {
            if (ferror(file)) row = -1;
            else if (held) {
                layout->text_limit = buffer + held;
                row = split_lines(buffer, held, layout, row, rows);
            }
            break;
        }
        const char *newline = buffer + held - 1; /* the last line feed read */
        while (newline >= buffer && *newline != '\n') newline--;
        if (newline < buffer) {
            if (held == CHUNK) row = -1;
            continue;
        }
        Py_ssize_t whole = newline - buffer + 1;
        layout->text_limit = buffer + whole;
        row = split_lines(buffer, whole, layout, row, rows);
        memmove(buffer, buffer + whole, (size_t)(held - whole));
        held -= whole;
    }
    if (file != NULL) fclose(file);
    free(buffer);
    return row;
}

static PyObject *split_file(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *path_bytes, *text_fields, *number_fields, *hashed_fields;
    int n_fields;
    if (!PyArg_ParseTuple(args, "O&iO!O!O!", PyUnicode_FSConverter, &path_bytes, &n_fields, &PyTuple_Type,
                          &text_fields, &PyTuple_Type, &number_fields, &PyTuple_Type, &hashed_fields))
        return NULL;
    PyObject *result = NULL;
    PyObject *offsets[MAX_FIELDS] = {NULL}, *texts[MAX_FIELDS] = {NULL}, *values[MAX_FIELDS] = {NULL};
    PyObject *hashes[MAX_FIELDS] = {NULL};
    Py_ssize_t n_text = PyTuple_GET_SIZE(text_fields), n_number = PyTuple_GET_SIZE(number_fields);
    Layout layout;
    memset(&layout, 0, sizeof(layout));
    layout.n_fields = n_fields;
    if (n_fields < 1 || n_fields > MAX_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 16 fields");
        goto done;
    }
    for (int kind = 1; kind <= 2; kind++) {
        PyObject *fields = kind == 1 ? text_fields : number_fields;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields); i++) {
            long f = PyLong_AsLong(PyTuple_GET_ITEM(fields, i));
            if (f < 0 || f >= n_fields || layout.kind[f]) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a field index out of range or repeated");
                goto done;
            }
            layout.kind[f] = kind;
            layout.slot[f] = (int)i;
        }
    }
    const char *path = PyBytes_AS_STRING(path_bytes);
    struct stat status;
    if (stat(path, &status) != 0 || status.st_size == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* Each line holds at least one byte per field and a separator after each field but the last: at most ``rows``
     * lines. The columns are made that long and cut to the rows found (the pages never written cost nothing). */
    Py_ssize_t size = (Py_ssize_t)status.st_size, rows = size / (2 * n_fields - 1) + 1, found;
    for (Py_ssize_t i = 0; i < n_text; i++) {
        offsets[i] = PyBytes_FromStringAndSize(NULL, (rows + 1) * (Py_ssize_t)sizeof(int32_t));
        texts[i] = PyBytes_FromStringAndSize(NULL, size);
        if (offsets[i] == NULL || texts[i] == NULL) goto no_memory;
        layout.text_offsets[i] = (int32_t *)PyBytes_AS_STRING(offsets[i]);
        layout.text_offsets[i][0] = 0;
        layout.text_data[i] = PyBytes_AS_STRING(texts[i]);
        if (PySequence_Contains(hashed_fields, PyTuple_GET_ITEM(text_fields, i)) == 1) {
            /* a bytearray: its reader may make the hashes its keys in place */
            hashes[i] = PyByteArray_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(uint64_t));
            if (hashes[i] == NULL) goto no_memory;
            layout.hashes[i] = (uint64_t *)PyByteArray_AS_STRING(hashes[i]);
        }
    }
    for (Py_ssize_t i = 0; i < n_number; i++) {
        values[i] = PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(double));
        if (values[i] == NULL) goto no_memory;
        layout.numbers[i] = (double *)PyBytes_AS_STRING(values[i]);
    }
    Py_BEGIN_ALLOW_THREADS
    found = split_file_lines(path, &layout, rows);
    Py_END_ALLOW_THREADS
    if (found <= 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *text_list = PyList_New(n_text), *number_list = PyList_New(n_number);
    int cut = text_list != NULL && number_list != NULL;
    for (Py_ssize_t i = 0; cut && i < n_text; i++) {
        cut = _PyBytes_Resize(&offsets[i], (found + 1) * (Py_ssize_t)sizeof(int32_t)) == 0 &&
              _PyBytes_Resize(&texts[i], (Py_ssize_t)layout.text_used[i]) == 0 &&
              (hashes[i] == NULL || PyByteArray_Resize(hashes[i], found * (Py_ssize_t)sizeof(uint64_t)) == 0);
        PyObject *pair = cut ? PyTuple_Pack(3, offsets[i], texts[i], hashes[i] ? hashes[i] : Py_None) : NULL;
        if (pair == NULL) cut = 0;
        else PyList_SET_ITEM(text_list, i, pair);
    }
    for (Py_ssize_t i = 0; cut && i < n_number; i++) {
        cut = _PyBytes_Resize(&values[i], found * (Py_ssize_t)sizeof(double)) == 0;
        if (cut) PyList_SET_ITEM(number_list, i, Py_NewRef(values[i]));
    }
    if (cut) {
        result = Py_BuildValue("nNN", found, text_list, number_list);
    } else {
        Py_XDECREF(text_list);
        Py_XDECREF(number_list);
    }
    goto done;
no_memory: /* the columns' room could not be had at once: the file is left to Arrow's parser, which reads in blocks */
    PyErr_Clear();
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < MAX_FIELDS; i++) {
        Py_XDECREF(offsets[i]);
        Py_XDECREF(texts[i]);
        Py_XDECREF(values[i]);
        Py_XDECREF(hashes[i]);
    }
    Py_DECREF(path_bytes);
    return result;
}

static PyMethodDef methods[] = {
    {"split_file", split_file, METH_VARARGS,
     "split_file(path, n_fields, text_fields, number_fields, hashed_fields): (rows, [(offsets, text, hashes or None), "
     "...], [values, ...]), or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fields", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fields(void) {
    return PyModule_Create(&module);
}
