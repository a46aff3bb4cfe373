/*
 * ragprep.extract._core: the compiled content-stream interpreter.
 *
 * It tokenizes decoded content bytes itself (ISO 32000-1 §7.2, §7.3, §7.8.2)
 * and runs the text and graphics state machine of interpreter.py (the
 * reference implementation): q/Q with the whole text state (§8.4.2), cm,
 * BT/ET, Tf Tc Tw Tz TL Ts Tr (§9.3), Td TD Tm T* (§9.4.2), Tj TJ ' " (§9.4.3),
 * BDC/BMC/EMC (§14.6), Do through the host, inline images skipped (§8.9.7).
 * It writes the show frames, the bytes of single-byte fonts and the TJ
 * adjustments into flat buffers that interpreter._GlyphAccumulator.finish
 * turns into the glyph table, so both paths share the per-glyph geometry.
 *
 * Everything that needs the document's objects goes back to the host (a
 * Python object): font selection (Tf), strings of fonts that are not
 * single-byte tables, form and image XObjects (Do), named /Properties, and
 * /ActualText decoding. Forms re-enter `run_form` from the host.
 *
 * Hostile input: every read is bounds-checked against the buffer end;
 * nesting (strings, arrays, dictionaries) is counted, never recursed into;
 * operands beyond the first few are counted, not stored; counters are 64-bit
 * and checked against the operator limit as each operator is read.
 *
 * Floating point follows interpreter.py operation by operation, so the two
 * paths give the same doubles; build with -ffp-contract=off (no fused
 * multiply-add) so the compiler keeps them apart.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
/* structmember.h's member kinds under names of our own (walk_slots): its
 * T_* macros clash with the token kinds below, so those are undefined here. */
enum { MEMBER_OBJECT_EX = T_OBJECT_EX, MEMBER_READONLY = READONLY };
#undef T_NONE
#undef T_INT
#undef T_BOOL
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- frames: the same columns as interpreter._record ------------------- */
enum {
    F_OX, F_OY, F_AX, F_AY, F_BX, F_BY, F_LO, F_HI,
    F_WMODE, F_MCID, F_MCID_STREAM, F_STREAM, F_TOKEN, F_RENDER, F_ARTIFACT,
    F_CX0, F_CY0, F_CX1, F_CY1, F_FONT, F_COUNT,
    F_SIZE, F_CHAR_SPACING, F_WORD_SPACING, F_SCALE, F_BY_CODE,
    F_FIELDS
};

#define NO_MCID (-1)
#define PAGE_STREAM 0
/* Operands kept per operator: no handler reads past the sixth (cm, Tm). */
#define KEPT_OPERANDS 8

typedef struct { double a, b, c, d, e, f; } Mat;
static const Mat IDENTITY = {1.0, 0.0, 0.0, 1.0, 0.0, 0.0};

static Mat mat_mul(Mat m, Mat n) { /* m x n, interpreter.multiply */
    Mat r;
    r.a = m.a * n.a + m.b * n.c;
    r.b = m.a * n.b + m.b * n.d;
    r.c = m.c * n.a + m.d * n.c;
    r.d = m.c * n.b + m.d * n.d;
    r.e = m.e * n.a + m.f * n.c + n.e;
    r.f = m.e * n.b + m.f * n.d + n.f;
    return r;
}

static Mat translate(double tx, double ty, Mat m) { /* interpreter._translate */
    Mat r = m;
    r.e = tx * m.a + ty * m.c + m.e;
    r.f = tx * m.b + ty * m.d + m.f;
    return r;
}

typedef struct {
    Mat ctm;
    long font; /* index into the core's fonts, -1 before any Tf */
    double size, char_spacing, word_spacing, scale, leading, rise;
    long long render_mode;
} GState;

typedef struct {
    long long mcid, mcid_stream;
    int artifact;
    PyObject *actual_text; /* owned, or NULL */
    Py_ssize_t first_glyph;
} Marked;

typedef struct {
    long long stream_id;
    double clip[4];
    size_t marked_depth;
} Context;

typedef struct {
    int defined;
    int by_code; /* 1: single-byte font, widths and waits tables below */
    int wmode;
    double ascent, descent;
    double widths[256];
    unsigned char waits[256]; /* 1: the code's text waits for the font program */
    int any_waits;
    /* Composite fonts whose codes are all two bytes (Identity-H/V style
     * codespace, §9.7.6.2): w0 and w1 per code, asked of the host once per
     * code (65,536 entries). In the font's own buffer when set_font is given
     * one (CompositeFont.core_tables: kept across the document's pages, so a
     * code is asked once per document), else allocated here for the page. */
    int two_byte;
    double *w0s, *w1s;
    unsigned char *known;
    Py_buffer shared;
    int has_shared;
} FontInfo;

#define TWO_BYTE_CODES 65536
#define TWO_BYTE_TABLES (TWO_BYTE_CODES * (2 * sizeof(double) + 1))

/* Frames per chunk: 34 MB, past glibc's largest mmap threshold (32 MB), so
 * each chunk is its own mapping that goes back to the system when freed
 * (smaller chunks come from the heap, which keeps what a page freed); its
 * pages are only touched as frames fill them. */
#define FRAME_CHUNK 163840

/* ---- growable buffers -------------------------------------------------- */
typedef struct { char *data; size_t len, cap; } Buf;

/* buf_reserve's growth, out of line: most reservations fit. */
static __attribute__((noinline)) int buf_grow(Buf *b, size_t extra) {
    if (extra > SIZE_MAX - b->len) { PyErr_NoMemory(); return -1; }
    size_t need = b->len + extra;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) { cap = need; break; }
        cap *= 2;
    }
    char *p = PyMem_Realloc(b->data, cap);
    if (!p) { PyErr_NoMemory(); return -1; }
    b->data = p;
    b->cap = cap;
    return 0;
}

/* Room for `extra` more bytes; inline, as the parsers and the
 * interpreter reserve a few bytes per token. */
static inline int buf_reserve(Buf *b, size_t extra) {
    if (b->len <= b->cap && extra <= b->cap - b->len) return 0;
    return buf_grow(b, extra);
}

static inline int buf_append(Buf *b, const void *src, size_t n) {
    if (buf_reserve(b, n) < 0) return -1;
    if (n) memcpy(b->data + b->len, src, n);
    b->len += n;
    return 0;
}

static void buf_free(Buf *b) { PyMem_Free(b->data); b->data = NULL; b->len = b->cap = 0; }

/* ---- the core object --------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    PyObject *host;
    GState gs;
    Buf stack;  /* GState[] */
    Mat tm, tlm;
    Buf marked; /* Marked[] */
    Context ctx;
    FontInfo **fonts;
    size_t nfonts;
    /* double[F_FIELDS] per show operator, in chunks of FRAME_CHUNK frames:
     * geometry() frees each chunk once it has read it, so a page's frames
     * and its glyph table are not both whole in memory at once. */
    double **chunks;
    size_t nchunks, chunks_cap, nframes;
    Buf glyph_kinds; /* uint8 frame _BY_CODE per glyph (interpreter._decode's kind) */
    Buf glyph_fonts; /* int32 font index per glyph */
    Buf codes;       /* bytes of single-byte-font strings, one per glyph */
    Buf codes2;      /* uint16 codes of two-byte composite fonts, one per glyph */
    Buf adj_index;   /* int64 glyph index of each TJ adjustment */
    Buf adj_offset;  /* double along-offset of each TJ adjustment */
    PyObject *spans; /* list of (first, end, text) /ActualText spans */
    Py_ssize_t count; /* glyphs so far */
    long long operators, max_operators;
    int limit_reached;
    /* Paths (extract/paths.py): the current path's pieces, unmapped, and the
     * painted rows in user space. Not part of the graphics state: q/Q and
     * forms leave them alone, as PathRecorder is apart from the state. */
    Buf path;        /* PathPiece[] */
    int has_current, has_start;
    double cur_x, cur_y, start_x, start_y;
    Buf path_rows;   /* double[4] (x0, y0, x1, y1) per row */
    Buf path_kinds;  /* uint8 LINE / RECT per row */
    Buf path_paints; /* uint8 STROKE | FILL per row */
    long long max_path_pieces;
    int path_overflow;
    /* Tf operand -> font index within the stream being run (run_stream owns
     * it): one content stream has one set of resources, so a name always
     * selects the same font there, and the host is asked once per name. */
    PyObject *font_names;
} Core;

/* ---- tokens ------------------------------------------------------------ */
enum { T_NONE, T_INT, T_REAL, T_BOOL, T_NULL, T_STR, T_NAME, T_ARRAY, T_DICT, T_BAD };

typedef struct {
    int type;
    double num;       /* INT, REAL, BOOL */
    size_t off, len;  /* STR, NAME: bytes in the slot's bytes buffer */
    size_t n;         /* ARRAY: items in the slot's items buffer */
    /* DICT: what BDC reads (§14.6.2): /MCID and /ActualText */
    int has_mcid, mcid_ok;
    long long mcid;
    int has_text;
    size_t text_off, text_len;
} Operand;

/* One operand kept for a handler: the bytes of its string or name and, for
 * an array, its direct items (whose string bytes follow in `bytes`). Each
 * slot owns its buffers, so what a page's operands hold at once is bounded
 * by the slots, not by how many operands precede an operator. */
typedef struct {
    Operand o;
    Buf bytes;
    Buf items; /* Operand[] of an array */
} Slot;

/* The first KEPT_OPERANDS operands of an operator are kept, and the last
 * KEPT_OPERANDS in a ring: a handler reads its first operands, and a failed
 * one is retried on its last (interpreter._recover). */
#define SLOTS (2 * KEPT_OPERANDS)

typedef struct {
    const unsigned char *p, *end;
    Slot slots[SLOTS];
    size_t nops;        /* operands since the last operator (saturating) */
    size_t non_numbers; /* of them, how many are not numbers */
} Lexer;

static Slot *slot_for(Lexer *lx, size_t i) {
    return i < KEPT_OPERANDS ? &lx->slots[i] : &lx->slots[KEPT_OPERANDS + (i - KEPT_OPERANDS) % KEPT_OPERANDS];
}

/* The operands a handler sees: at[i] for i < min(n, KEPT_OPERANDS). */
typedef struct {
    const Slot *at[KEPT_OPERANDS];
    size_t n;
    int numbers; /* every operand is a number (paths' float() of them all) */
} Args;

static inline const Operand *arg(const Args *a, size_t i) { return &a->at[i]->o; }
static inline const char *arg_bytes(const Args *a, size_t i) { return a->at[i]->bytes.data + a->at[i]->o.off; }

/* Character classes (§7.2.2): one table lookup per byte on the tokenizer's
 * hot loops instead of a chain of comparisons. */
enum { C_WHITE = 1, C_DELIM = 2 };
static const unsigned char CHAR_CLASS[256] = {
    [0] = C_WHITE, [9] = C_WHITE, [10] = C_WHITE, [12] = C_WHITE, [13] = C_WHITE, [32] = C_WHITE,
    ['('] = C_DELIM, [')'] = C_DELIM, ['<'] = C_DELIM, ['>'] = C_DELIM, ['['] = C_DELIM, [']'] = C_DELIM,
    ['{'] = C_DELIM, ['}'] = C_DELIM, ['/'] = C_DELIM, ['%'] = C_DELIM,
};
static inline int is_white(unsigned char c) { return CHAR_CLASS[c] & C_WHITE; }
static inline int is_delim(unsigned char c) { return CHAR_CLASS[c] & C_DELIM; }
static inline int hexval(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A regular-character token as a number, when it is one: [+-]digits[.digits]
 * with at least one digit, as qpdf reads them. 0: not a number. */
static const double EXACT_POWERS_OF_TEN[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
#define EXACT_MANTISSA (1ULL << 53)

static int parse_number(const unsigned char *s, size_t n, Operand *out) {
    size_t i = 0, digits = 0, dots = 0, decimals = 0;
    unsigned long long mantissa = 0; /* the digits as one integer, while it stays exact in a double */
    int exact = 1;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            digits++;
            decimals += dots;
            if (exact && (mantissa = mantissa * 10 + (unsigned)(s[i] - '0')) > EXACT_MANTISSA) exact = 0;
        } else if (s[i] == '.') {
            if (++dots > 1) return 0;
        } else {
            return 0;
        }
    }
    if (!digits) return 0;
    if (dots && exact && decimals < sizeof EXACT_POWERS_OF_TEN / sizeof *EXACT_POWERS_OF_TEN) {
        /* Both operands exact, so the one division is the correctly rounded
         * value (Clinger's fast path): the double strtod gives, without it. */
        double v = (double)mantissa / EXACT_POWERS_OF_TEN[decimals];
        out->type = T_REAL;
        out->num = s[0] == '-' ? -v : v;
        return 1;
    }
    char small[64];
    char *text = n < sizeof small ? small : PyMem_Malloc(n + 1);
    if (!text) return -1;
    memcpy(text, s, n);
    text[n] = 0;
    if (!dots) {
        /* Integers beyond 64 bits are null in qpdf. */
        const char *q = text;
        int neg = 0;
        if (*q == '+' || *q == '-') neg = *q++ == '-';
        unsigned long long v = 0;
        int overflow = 0;
        for (; *q; q++) {
            unsigned d = (unsigned)(*q - '0');
            if (v > (ULLONG_MAX - d) / 10) { overflow = 1; break; }
            v = v * 10 + d;
        }
        if (overflow || v > (neg ? (unsigned long long)LLONG_MAX + 1ULL : (unsigned long long)LLONG_MAX)) {
            out->type = T_NULL;
        } else {
            long long iv = neg ? (long long)(0ULL - v) : (long long)v;
            out->type = T_INT;
            out->num = (double)iv; /* float(int): correctly rounded */
        }
    } else {
        /* Python's own correctly rounded, locale-free parser: the same double
         * as float(Decimal(text)) on the reference path. */
        double v = PyOS_string_to_double(text, NULL, NULL);
        if (v == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            out->type = T_NULL;
        } else {
            out->type = T_REAL;
            out->num = v;
        }
    }
    if (text != small) PyMem_Free(text);
    return 1;
}

/* A literal string (§7.3.4.2) from just after '(' ; nesting is counted.
 * Returns 0 at the end of data without the closing parenthesis. */
static int lex_literal(Lexer *lx, Buf *dst) {
    const unsigned char *p = lx->p, *end = lx->end;
    size_t depth = 1;
    while (p < end) {
        unsigned char c = *p++;
        if (c == '\\') {
            if (p >= end) break;
            unsigned char e = *p++;
            unsigned char out;
            switch (e) {
            case 'n': out = '\n'; break;
            case 'r': out = '\r'; break;
            case 't': out = '\t'; break;
            case 'b': out = '\b'; break;
            case 'f': out = '\f'; break;
            case '\r': /* line continuation */
                if (p < end && *p == '\n') p++;
                continue;
            case '\n': continue;
            default:
                if (e >= '0' && e <= '7') {
                    unsigned v = (unsigned)(e - '0');
                    for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; k++) v = v * 8 + (unsigned)(*p++ - '0');
                    out = (unsigned char)(v & 0xff);
                } else {
                    out = e;
                }
            }
            if (dst && buf_append(dst, &out, 1) < 0) return -1;
            continue;
        }
        if (c == '(') depth++;
        else if (c == ')') {
            if (--depth == 0) { lx->p = p; return 1; }
        } else if (c == '\r') { /* an unescaped end of line is a newline */
            if (p < end && *p == '\n') p++;
            c = '\n';
        }
        if (dst && buf_append(dst, &c, 1) < 0) return -1;
    }
    lx->p = end;
    return 0;
}

/* A hexadecimal string from just after '<' (§7.3.4.3). 1: string, 2: bad
 * character (the token is null), 0: end of data. */
static int lex_hex(Lexer *lx, Buf *dst) {
    const unsigned char *p = lx->p, *end = lx->end;
    int high = -1;
    while (p < end) {
        unsigned char c = *p++;
        if (c == '>') {
            if (high >= 0) {
                unsigned char out = (unsigned char)(high << 4);
                if (dst && buf_append(dst, &out, 1) < 0) return -1;
            }
            lx->p = p;
            return 1;
        }
        if (is_white(c)) continue;
        int v = hexval(c);
        if (v < 0) { lx->p = p; return 2; }
        if (high < 0) high = v;
        else {
            unsigned char out = (unsigned char)(high << 4 | v);
            if (dst && buf_append(dst, &out, 1) < 0) return -1;
            high = -1;
        }
    }
    lx->p = end;
    return 0;
}

/* A name from just after '/', with #xx escapes (§7.3.5). */
static int lex_name(Lexer *lx, Buf *dst) {
    const unsigned char *p = lx->p, *end = lx->end;
    while (p < end && !is_white(*p) && !is_delim(*p)) {
        unsigned char c = *p++;
        if (c == '#' && end - p >= 2 && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
            c = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
            p += 2;
        }
        if (dst && buf_append(dst, &c, 1) < 0) return -1;
    }
    lx->p = p;
    return 1;
}

/* Kinds of token the lexer returns. */
enum { K_EOF, K_OBJECT, K_KEYWORD, K_ARRAY_OPEN, K_ARRAY_CLOSE, K_DICT_OPEN, K_DICT_CLOSE, K_ERROR };

typedef struct {
    int kind;
    Operand obj;                  /* K_OBJECT */
    const unsigned char *word;    /* K_KEYWORD */
    size_t word_len;
} Token;

static void skip_white_and_comments(Lexer *lx) {
    const unsigned char *p = lx->p, *end = lx->end;
    while (p < end) {
        if (is_white(*p)) p++;
        else if (*p == '%') {
            while (p < end && *p != '\n' && *p != '\r') p++;
        } else break;
    }
    lx->p = p;
}

/* The next token. Strings and names are written into `dst` when it is not
 * NULL (a kept operand), else only skipped. Unterminated strings end the
 * stream (K_EOF), as qpdf drops an object cut by the end of data. */
static int next_token(Lexer *lx, Token *t, Buf *dst) {
    skip_white_and_comments(lx);
    memset(&t->obj, 0, sizeof t->obj);
    if (lx->p >= lx->end) return t->kind = K_EOF;
    const unsigned char *start = lx->p;
    unsigned char c = *lx->p++;
    size_t off = dst ? dst->len : 0;
    int r;
    switch (c) {
    case '(':
        r = lex_literal(lx, dst);
        if (r < 0) return t->kind = K_ERROR;
        if (r == 0) return t->kind = K_EOF;
        t->obj.type = T_STR; t->obj.off = off; t->obj.len = dst ? dst->len - off : 0;
        return t->kind = K_OBJECT;
    case '<':
        if (lx->p < lx->end && *lx->p == '<') { lx->p++; return t->kind = K_DICT_OPEN; }
        r = lex_hex(lx, dst);
        if (r < 0) return t->kind = K_ERROR;
        if (r == 0) return t->kind = K_EOF;
        if (r == 2) { if (dst) dst->len = off; t->obj.type = T_NULL; return t->kind = K_OBJECT; }
        t->obj.type = T_STR; t->obj.off = off; t->obj.len = dst ? dst->len - off : 0;
        return t->kind = K_OBJECT;
    case '>':
        if (lx->p < lx->end && *lx->p == '>') { lx->p++; return t->kind = K_DICT_CLOSE; }
        t->obj.type = T_NULL; /* a stray '>' */
        return t->kind = K_OBJECT;
    case '[': return t->kind = K_ARRAY_OPEN;
    case ']': return t->kind = K_ARRAY_CLOSE;
    case ')': case '{': case '}':
        t->obj.type = T_NULL; /* stray delimiters read as null, as in qpdf */
        return t->kind = K_OBJECT;
    case '/':
        if (lex_name(lx, dst) < 0) return t->kind = K_ERROR;
        t->obj.type = T_NAME; t->obj.off = off; t->obj.len = dst ? dst->len - off : 0;
        return t->kind = K_OBJECT;
    default:
        break;
    }
    while (lx->p < lx->end && !CHAR_CLASS[*lx->p]) lx->p++; /* neither white nor a delimiter */
    size_t n = (size_t)(lx->p - start);
    r = parse_number(start, n, &t->obj);
    if (r < 0) return t->kind = K_ERROR;
    if (r) return t->kind = K_OBJECT;
    if (n == 4 && !memcmp(start, "true", 4)) { t->obj.type = T_BOOL; t->obj.num = 1.0; return t->kind = K_OBJECT; }
    if (n == 5 && !memcmp(start, "false", 5)) { t->obj.type = T_BOOL; t->obj.num = 0.0; return t->kind = K_OBJECT; }
    if (n == 4 && !memcmp(start, "null", 4)) { t->obj.type = T_NULL; return t->kind = K_OBJECT; }
    t->word = start;
    t->word_len = n;
    return t->kind = K_KEYWORD;
}

/* ---- operators --------------------------------------------------------- */
enum {
    OP_OTHER, OP_BT, OP_ET, OP_Tf, OP_Tc, OP_Tw, OP_Tz, OP_TL, OP_Ts, OP_Tr, OP_Td, OP_TD, OP_Tm,
    OP_Tstar, OP_Tj, OP_TJ, OP_quote, OP_dquote, OP_cm, OP_q, OP_Q, OP_Do, OP_BDC, OP_BMC, OP_EMC, OP_ID,
    /* path construction and painting (§8.5.2-3): no token index */
    OP_m, OP_l, OP_c, OP_v, OP_y, OP_h, OP_re, OP_S, OP_s, OP_f, OP_F, OP_fstar, OP_B, OP_Bstar, OP_b, OP_bstar,
    OP_n
};
/* Text operators take a token index (interpreter._interpret counts them). */
static inline int is_text_operator(int op) { return op > OP_OTHER && op < OP_ID; }

static const char *OP_NAMES[] = {
    "?", "BT", "ET", "Tf", "Tc", "Tw", "Tz", "TL", "Ts", "Tr", "Td", "TD", "Tm",
    "T*", "Tj", "TJ", "'", "\"", "cm", "q", "Q", "Do", "BDC", "BMC", "EMC", "ID",
    "m", "l", "c", "v", "y", "h", "re", "S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n"
};

static int operator_code(const unsigned char *w, size_t n) {
    if (n == 1) {
        switch (w[0]) {
        case 'q': return OP_q;
        case 'Q': return OP_Q;
        case '\'': return OP_quote;
        case '"': return OP_dquote;
        case 'm': return OP_m; case 'l': return OP_l; case 'c': return OP_c; case 'v': return OP_v;
        case 'y': return OP_y; case 'h': return OP_h; case 'S': return OP_S; case 's': return OP_s;
        case 'f': return OP_f; case 'F': return OP_F; case 'B': return OP_B; case 'b': return OP_b;
        case 'n': return OP_n;
        }
        return OP_OTHER;
    }
    if (n == 2) {
        unsigned char a = w[0], b = w[1];
        if (a == 'T') {
            switch (b) {
            case 'f': return OP_Tf; case 'c': return OP_Tc; case 'w': return OP_Tw; case 'z': return OP_Tz;
            case 'L': return OP_TL; case 's': return OP_Ts; case 'r': return OP_Tr; case 'd': return OP_Td;
            case 'D': return OP_TD; case 'm': return OP_Tm; case '*': return OP_Tstar; case 'j': return OP_Tj;
            case 'J': return OP_TJ;
            }
            return OP_OTHER;
        }
        if (a == 'B' && b == 'T') return OP_BT;
        if (a == 'E' && b == 'T') return OP_ET;
        if (a == 'c' && b == 'm') return OP_cm;
        if (a == 'D' && b == 'o') return OP_Do;
        if (a == 'I' && b == 'D') return OP_ID;
        if (a == 'r' && b == 'e') return OP_re;
        if (b == '*') {
            switch (a) { case 'f': return OP_fstar; case 'B': return OP_Bstar; case 'b': return OP_bstar; }
        }
        return OP_OTHER;
    }
    if (n == 3) {
        if (!memcmp(w, "BDC", 3)) return OP_BDC;
        if (!memcmp(w, "BMC", 3)) return OP_BMC;
        if (!memcmp(w, "EMC", 3)) return OP_EMC;
    }
    return OP_OTHER;
}

/* ---- errors and warnings through the host ------------------------------ */
static int host_warn(Core *self, const char *message) {
    PyObject *r = PyObject_CallMethod(self->host, "warn", "s", message);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* A handler's failure: a Python exception from the host becomes a warning
 * (one operator must not lose the page) unless it is one that stops the
 * page: MemoryError, RecursionError, or the host's own stop signal. */
static int operator_failed(Core *self, int op) {
    if (!PyErr_Occurred()) return 0;
    if (PyErr_ExceptionMatches(PyExc_MemoryError) || PyErr_ExceptionMatches(PyExc_RecursionError) ||
        !PyErr_ExceptionMatches(PyExc_Exception))
        return -1;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *r = PyObject_CallMethod(self->host, "operator_failed", "sO", OP_NAMES[op], value ? value : Py_None);
    Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* A handler's result when its operands do not fit it: dispatch retries it
 * or warns (no Python exception is set). */
#define BAD_OPERANDS 1
static int bad_operands(Core *self, int op) { (void)self; (void)op; return BAD_OPERANDS; }

/* ---- state helpers ----------------------------------------------------- */
static inline int is_number(const Operand *o) { return o->type == T_INT || o->type == T_REAL || o->type == T_BOOL; }

static int number_at(const Args *a, size_t i, double *out) {
    if (i >= a->n || i >= KEPT_OPERANDS || !is_number(arg(a, i))) return 0;
    *out = arg(a, i)->num;
    return 1;
}

static Marked *marked_top(Core *self) {
    size_t n = self->marked.len / sizeof(Marked);
    return n ? (Marked *)self->marked.data + n - 1 : NULL;
}

static size_t marked_count(Core *self) { return self->marked.len / sizeof(Marked); }

static FontInfo *font_info(Core *self, long index) {
    if (index < 0 || (size_t)index >= self->nfonts) return NULL;
    FontInfo *f = self->fonts[index];
    return f && f->defined ? f : NULL;
}

/* Room for the next frame, in the last chunk or a new one. */
static double *new_frame(Core *self) {
    size_t at = self->nframes % FRAME_CHUNK;
    if (at == 0) {
        if (self->nchunks == self->chunks_cap) {
            size_t cap = self->chunks_cap ? 2 * self->chunks_cap : 16;
            double **p = PyMem_Realloc(self->chunks, cap * sizeof *p);
            if (!p) { PyErr_NoMemory(); return NULL; }
            self->chunks = p;
            self->chunks_cap = cap;
        }
        double *chunk = PyMem_Malloc(FRAME_CHUNK * F_FIELDS * sizeof(double));
        if (!chunk) { PyErr_NoMemory(); return NULL; }
        self->chunks[self->nchunks++] = chunk;
    }
    return self->chunks[self->nchunks - 1] + at * F_FIELDS;
}

static void free_chunks(Core *self) {
    for (size_t i = 0; i < self->nchunks; i++) PyMem_Free(self->chunks[i]);
    PyMem_Free(self->chunks);
    self->chunks = NULL;
    self->nchunks = self->chunks_cap = 0;
}

static int record(Core *self, const FontInfo *font, int vertical, Py_ssize_t count, double by_code, long long token) {
    GState *gs = &self->gs;
    Mat m = mat_mul(self->tm, gs->ctm);
    double size = gs->size;
    double ox, oy, ax, ay, bx, by, lo, hi;
    if (vertical) {
        ox = m.e; oy = m.f;
        ax = -m.c; ay = -m.d; bx = m.a; by = m.b;
        lo = -0.5 * size; hi = 0.5 * size;
    } else {
        double rise = gs->rise;
        ox = rise * m.c + m.e; oy = rise * m.d + m.f;
        ax = m.a; ay = m.b; bx = m.c; by = m.d;
        lo = font->descent * size; hi = font->ascent * size;
    }
    Marked *mk = marked_top(self);
    double *f = new_frame(self);
    if (!f) return -1;
    unsigned char kind = (unsigned char)by_code;
    int32_t font_index = (int32_t)gs->font;
    if (buf_reserve(&self->glyph_kinds, (size_t)count) < 0 || buf_reserve(&self->glyph_fonts, (size_t)count * 4) < 0)
        return -1;
    memset(self->glyph_kinds.data + self->glyph_kinds.len, kind, (size_t)count);
    self->glyph_kinds.len += (size_t)count;
    int32_t *fonts_out = (int32_t *)(self->glyph_fonts.data + self->glyph_fonts.len);
    for (Py_ssize_t i = 0; i < count; i++) fonts_out[i] = font_index;
    self->glyph_fonts.len += (size_t)count * 4;
    f[F_OX] = ox; f[F_OY] = oy; f[F_AX] = ax; f[F_AY] = ay; f[F_BX] = bx; f[F_BY] = by; f[F_LO] = lo; f[F_HI] = hi;
    f[F_WMODE] = vertical ? 1.0 : 0.0;
    f[F_MCID] = mk ? (double)mk->mcid : (double)NO_MCID;
    f[F_MCID_STREAM] = mk ? (double)mk->mcid_stream : (double)PAGE_STREAM;
    f[F_STREAM] = (double)self->ctx.stream_id;
    f[F_TOKEN] = self->ctx.stream_id == PAGE_STREAM ? (double)token : -1.0;
    f[F_RENDER] = (double)gs->render_mode;
    f[F_ARTIFACT] = mk && mk->artifact ? 1.0 : 0.0;
    f[F_CX0] = self->ctx.clip[0]; f[F_CY0] = self->ctx.clip[1]; f[F_CX1] = self->ctx.clip[2]; f[F_CY1] = self->ctx.clip[3];
    f[F_FONT] = (double)gs->font;
    f[F_COUNT] = (double)count;
    f[F_SIZE] = size; f[F_CHAR_SPACING] = gs->char_spacing; f[F_WORD_SPACING] = gs->word_spacing; f[F_SCALE] = gs->scale;
    f[F_BY_CODE] = by_code;
    self->nframes++;
    self->count += count;
    return 0;
}

static int add_adjustment(Core *self, Py_ssize_t index, double offset) {
    int64_t i = (int64_t)index;
    if (buf_append(&self->adj_index, &i, sizeof i) < 0) return -1;
    return buf_append(&self->adj_offset, &offset, sizeof offset);
}

static double adjustment(Core *self, double number, double size, int vertical) {
    if (vertical) return number / 1000.0 * size;
    return -number / 1000.0 * size * self->gs.scale;
}

static void advance_along(Core *self, double along, int vertical) {
    self->tm = vertical ? translate(0.0, -along, self->tm) : translate(along, 0.0, self->tm);
}

static void next_line(Core *self) {
    self->tlm = translate(0.0, -self->gs.leading, self->tlm);
    self->tm = self->tlm;
}

/* One piece of a show operator: a string (bytes) or a TJ number. */
typedef struct { int is_string; const unsigned char *bytes; size_t len; double number; } Piece;

static Py_ssize_t count_spaces(const unsigned char *s, size_t n) {
    Py_ssize_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == 32;
    return k;
}

/* Sum of w0 over the codes, left to right (SingleByteFont.advance). */
static double byte_advance(const FontInfo *font, const unsigned char *s, size_t n) {
    double total = 0.0;
    for (size_t i = 0; i < n; i++) total += font->widths[s[i]];
    return total;
}

static int waits(const FontInfo *font, const Piece *pieces, size_t n) {
    if (!font->any_waits) return 0;
    for (size_t k = 0; k < n; k++)
        if (pieces[k].is_string)
            for (size_t i = 0; i < pieces[k].len; i++)
                if (font->waits[pieces[k].bytes[i]]) return 1;
    return 0;
}

/* _show_bytes: strings of a single-byte font, decoded at the end of the page. */
static int show_bytes(Core *self, const FontInfo *font, const Piece *pieces, size_t n, int single, long long token) {
    GState *gs = &self->gs;
    double size = gs->size, scale = gs->scale;
    if (single) {
        size_t count = pieces[0].len;
        if (count) {
            double widths = byte_advance(font, pieces[0].bytes, count);
            if (buf_append(&self->codes, pieces[0].bytes, count) < 0) return -1;
            double spacing = gs->char_spacing * (double)count + gs->word_spacing * (double)count_spaces(pieces[0].bytes, count);
            if (record(self, font, 0, (Py_ssize_t)count, 1.0, token) < 0) return -1;
            self->tm = translate((widths * size + spacing) * scale, 0.0, self->tm);
        }
        return 0;
    }
    Py_ssize_t first = self->count, count = 0, word_spaces = 0;
    double widths = 0.0, along = 0.0, pending = 0.0;
    for (size_t k = 0; k < n; k++) {
        const Piece *pc = &pieces[k];
        if (pc->is_string) {
            if (!pc->len) continue;
            double w = byte_advance(font, pc->bytes, pc->len);
            if (pending != 0.0) {
                double offset = -pending / 1000.0 * size * scale;
                if (add_adjustment(self, first + count, offset) < 0) return -1;
                along += offset;
                pending = 0.0;
            }
            if (buf_append(&self->codes, pc->bytes, pc->len) < 0) return -1;
            widths += w;
            word_spaces += count_spaces(pc->bytes, pc->len);
            count += (Py_ssize_t)pc->len;
        } else {
            pending += pc->number;
        }
    }
    if (count) {
        double spacing = gs->char_spacing * (double)count + gs->word_spacing * (double)word_spaces;
        along += (widths * size + spacing) * scale;
        if (record(self, font, 0, count, 1.0, token) < 0) return -1;
    }
    if (pending != 0.0) along += adjustment(self, pending, size, 0);
    if (along != 0.0) advance_along(self, along, 0);
    return 0;
}

/* Font.decode through the host: (glyphs, sum w0, sum w1, word spaces).
 * The host keeps the DecodedString when it has glyphs. */
static int host_decode(Core *self, long font, const Piece *pc, Py_ssize_t *n, double *w, double *vw, Py_ssize_t *ws) {
    PyObject *r = PyObject_CallMethod(self->host, "decode", "ly#", font, (const char *)pc->bytes, (Py_ssize_t)pc->len);
    if (!r) return -1;
    int ok = PyArg_ParseTuple(r, "nddn", n, w, vw, ws);
    Py_DECREF(r);
    return ok ? 0 : -1;
}

static int two_byte_piece(Core *self, const FontInfo *font, const Piece *pc, Py_ssize_t *n, double *w, double *vw, Py_ssize_t *ws);

/* One piece decoded: by the core's two-byte tables (by_code 2) or by the host. */
static int decode_piece(Core *self, const FontInfo *font, double by_code, const Piece *pc, Py_ssize_t *n, double *w,
                        double *vw, Py_ssize_t *ws) {
    if (by_code == 2.0) return two_byte_piece(self, font, pc, n, w, vw, ws);
    return host_decode(self, self->gs.font, pc, n, w, vw, ws);
}

/* _show_decoded: strings of any font through Font.decode (by_code 0), or
 * of a two-byte composite font through the core's tables (by_code 2). */
static int show_decoded(Core *self, const FontInfo *font, const Piece *pieces, size_t n, int single, long long token,
                        double by_code) {
    GState *gs = &self->gs;
    int vertical = font->wmode == 1;
    Py_ssize_t count = 0, word_spaces = 0, m, ws;
    double w, vw;
    if (single && !vertical) {
        if (decode_piece(self, font, by_code, &pieces[0], &count, &w, &vw, &ws) < 0) return -1;
        if (count) {
            /* Tc, Tw and the size as they are after the host's call (it runs no operators). */
            double spacing = gs->char_spacing * (double)count + gs->word_spacing * (double)ws;
            if (record(self, font, 0, count, by_code, token) < 0) return -1;
            self->tm = translate((w * gs->size + spacing) * gs->scale, 0.0, self->tm);
        }
        return 0;
    }
    double size = gs->size;
    Py_ssize_t first = self->count;
    double widths = 0.0, vertical_widths = 0.0, along = 0.0, pending = 0.0;
    for (size_t k = 0; k < n; k++) {
        const Piece *pc = &pieces[k];
        if (pc->is_string) {
            if (decode_piece(self, font, by_code, pc, &m, &w, &vw, &ws) < 0) return -1;
            if (!m) continue;
            if (pending != 0.0) {
                double offset = adjustment(self, pending, size, vertical);
                if (add_adjustment(self, first + count, offset) < 0) return -1;
                along += offset;
                pending = 0.0;
            }
            widths += w;
            vertical_widths += vw;
            word_spaces += ws;
            count += m;
        } else {
            pending += pc->number;
        }
    }
    if (count) {
        double spacing = gs->char_spacing * (double)count + gs->word_spacing * (double)word_spaces;
        if (vertical) along += -vertical_widths * size - spacing;
        else along += (widths * size + spacing) * gs->scale;
        if (record(self, font, vertical, count, by_code, token) < 0) return -1;
    }
    if (pending != 0.0) along += adjustment(self, pending, size, vertical);
    if (along != 0.0) advance_along(self, along, vertical);
    return 0;
}

static int refresh_font(Core *self, long index);

/* The widths of every code of the pieces known to the core (asking the host
 * for new codes). 1: all known, 0: the reference path must decode them (an
 * odd byte, or the host could not say), -1: a stopping error. */
static int two_byte_known(Core *self, FontInfo *font, const Piece *pieces, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (pieces[k].is_string && pieces[k].len % 2) return 0;
    if (!font->known) {
        font->w0s = PyMem_Calloc(TWO_BYTE_CODES, sizeof(double));
        font->w1s = PyMem_Calloc(TWO_BYTE_CODES, sizeof(double));
        font->known = PyMem_Calloc(TWO_BYTE_CODES, 1);
        if (!font->w0s || !font->w1s || !font->known) { PyErr_NoMemory(); return -1; }
    }
    for (size_t k = 0; k < n; k++) {
        if (!pieces[k].is_string) continue;
        for (size_t i = 0; i + 1 < pieces[k].len; i += 2) {
            unsigned code = (unsigned)pieces[k].bytes[i] << 8 | pieces[k].bytes[i + 1];
            if (font->known[code]) continue;
            PyObject *r = PyObject_CallMethod(self->host, "code_widths", "lI", self->gs.font, code);
            double w0, w1;
            if (!r || !PyArg_ParseTuple(r, "dd", &w0, &w1)) {
                Py_XDECREF(r);
                if (PyErr_ExceptionMatches(PyExc_MemoryError) || !PyErr_ExceptionMatches(PyExc_Exception)) return -1;
                PyErr_Clear(); /* Font.decode turns the same failure into its replacement string */
                return 0;
            }
            Py_DECREF(r);
            font->w0s[code] = w0;
            font->w1s[code] = w1;
            font->known[code] = 1;
        }
    }
    return 1;
}

/* A piece of a two-byte font: its glyph count and advance sums, its codes kept. */
static int two_byte_piece(Core *self, const FontInfo *font, const Piece *pc, Py_ssize_t *n, double *w, double *vw, Py_ssize_t *ws) {
    size_t m = pc->len / 2;
    double a = 0.0, b = 0.0;
    if (buf_reserve(&self->codes2, m * sizeof(uint16_t)) < 0) return -1;
    uint16_t *out = (uint16_t *)(self->codes2.data + self->codes2.len);
    for (size_t i = 0; i < m; i++) {
        unsigned code = (unsigned)pc->bytes[2 * i] << 8 | pc->bytes[2 * i + 1];
        out[i] = (uint16_t)code;
        a += font->w0s[code];
        b += font->w1s[code];
    }
    self->codes2.len += m * sizeof(uint16_t);
    *n = (Py_ssize_t)m; *w = a; *vw = b; *ws = 0; /* Tw applies to single-byte code 32 only (§9.3.3) */
    return 0;
}

static int show(Core *self, const Piece *pieces, size_t n, int single, long long token) {
    FontInfo *font = font_info(self, self->gs.font);
    if (!font) {
        PyObject *r = PyObject_CallMethod(self->host, "fallback_font", NULL);
        if (!r) return -1;
        long index = PyLong_AsLong(r);
        Py_DECREF(r);
        if (index == -1 && PyErr_Occurred()) return -1;
        self->gs.font = index;
        font = font_info(self, index);
        if (!font) { PyErr_SetString(PyExc_RuntimeError, "host gave an undefined font"); return -1; }
    }
    if (font->by_code && !waits(font, pieces, n)) return show_bytes(self, font, pieces, n, single, token);
    if (font->two_byte) {
        int known = two_byte_known(self, font, pieces, n);
        if (known < 0) return -1;
        if (known) return show_decoded(self, font, pieces, n, single, token, 2.0);
    }
    int r = show_decoded(self, font, pieces, n, single, token, 0.0);
    if (font->by_code) {
        /* Decoding may have read the font program: its codes stop waiting. */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (refresh_font(self, self->gs.font) < 0) {
            if (type) PyErr_Clear();
            else return -1;
        }
        PyErr_Restore(type, value, tb);
    }
    return r;
}

static int refresh_font(Core *self, long index) {
    PyObject *r = PyObject_CallMethod(self->host, "refresh_font", "l", index);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* ---- marked content ---------------------------------------------------- */
static int open_marked(Core *self, int artifact_tag, int has_mcid, long long mcid, PyObject *actual_text) {
    Marked *outer = marked_top(self);
    Marked m;
    m.mcid = outer ? outer->mcid : NO_MCID;
    m.mcid_stream = outer ? outer->mcid_stream : PAGE_STREAM;
    if (has_mcid) { m.mcid = mcid; m.mcid_stream = self->ctx.stream_id; }
    m.artifact = artifact_tag || (outer && outer->artifact);
    Py_XINCREF(actual_text);
    m.actual_text = actual_text;
    m.first_glyph = self->count;
    if (buf_append(&self->marked, &m, sizeof m) < 0) { Py_XDECREF(actual_text); return -1; }
    return 0;
}

static int close_marked(Core *self) {
    Marked m = *marked_top(self);
    self->marked.len -= sizeof(Marked);
    int rc = 0;
    if (m.actual_text && self->count > m.first_glyph) {
        PyObject *span = Py_BuildValue("(nnO)", m.first_glyph, self->count, m.actual_text);
        if (!span || PyList_Append(self->spans, span) < 0) rc = -1;
        Py_XDECREF(span);
    }
    Py_XDECREF(m.actual_text);
    return rc;
}

/* BMC / BDC (§14.6): operands[0] is the tag, operands[1] the properties. */
static int op_marked(Core *self, const Args *a, int op) {
    if (a->n < 1) return bad_operands(self, op);
    const Operand *tag = arg(a, 0);
    int artifact = tag->type == T_NAME && tag->len == 8 && !memcmp(arg_bytes(a, 0), "Artifact", 8);
    if (op == OP_BMC || a->n < 2) return open_marked(self, artifact, 0, 0, NULL);
    const Operand *props = arg(a, 1);
    if (props->type == T_NAME) {
        /* Named properties live in the resources: the host looks them up. */
        PyObject *r = PyObject_CallMethod(self->host, "properties", "y#", arg_bytes(a, 1), (Py_ssize_t)props->len);
        if (!r) return -1;
        PyObject *mcid_obj, *text;
        if (!PyArg_ParseTuple(r, "OO", &mcid_obj, &text)) { Py_DECREF(r); return -1; }
        long long mcid = 0;
        int has = mcid_obj != Py_None;
        if (has) { mcid = PyLong_AsLongLong(mcid_obj); if (mcid == -1 && PyErr_Occurred()) { Py_DECREF(r); return -1; } }
        int rc = open_marked(self, artifact, has, mcid, text == Py_None ? NULL : text);
        Py_DECREF(r);
        return rc;
    }
    if (props->type != T_DICT) return open_marked(self, artifact, 0, 0, NULL);
    if (props->has_mcid && !props->mcid_ok) {
        if (host_warn(self, "ignored a non-integer /MCID") < 0) return -1;
    }
    PyObject *text = NULL;
    if (props->has_text) {
        text = PyObject_CallMethod(self->host, "text", "y#", a->at[1]->bytes.data + props->text_off, (Py_ssize_t)props->text_len);
        if (!text) return -1;
    }
    int rc = open_marked(self, artifact, props->has_mcid && props->mcid_ok, props->mcid, text);
    Py_XDECREF(text);
    return rc;
}

/* ---- operators --------------------------------------------------------- */
/* ---- paths (§8.5): the straight pieces extract/paths.py records -------- */
enum { PIECE_LINE = 0, PIECE_RECT = 1 };
enum { PAINT_STROKE = 1, PAINT_FILL = 2 };

typedef struct { int kind; double x0, y0, x1, y1; } PathPiece; /* unmapped, as PathRecorder._path */

static void path_discard(Core *self) {
    self->path.len = 0;
    self->has_current = self->has_start = 0;
}

static int path_piece(Core *self, int kind, double x0, double y0, double x1, double y1) {
    PathPiece p = {kind, x0, y0, x1, y1};
    return buf_append(&self->path, &p, sizeof p);
}

static int path_move(Core *self, double x, double y) {
    self->cur_x = self->start_x = x; self->cur_y = self->start_y = y;
    self->has_current = self->has_start = 1;
    return 0;
}

static int path_line(Core *self, double x, double y) {
    if (self->has_current && path_piece(self, PIECE_LINE, self->cur_x, self->cur_y, x, y) < 0) return -1;
    self->cur_x = x; self->cur_y = y; self->has_current = 1;
    return 0;
}

static int path_curve(Core *self, double x, double y) {
    self->cur_x = x; self->cur_y = y; self->has_current = 1;
    return 0;
}

static int path_close(Core *self) {
    if (self->has_current && self->has_start && (self->cur_x != self->start_x || self->cur_y != self->start_y))
        if (path_piece(self, PIECE_LINE, self->cur_x, self->cur_y, self->start_x, self->start_y) < 0) return -1;
    self->has_current = self->has_start;
    self->cur_x = self->start_x; self->cur_y = self->start_y;
    return 0;
}

static int path_rect(Core *self, double x, double y, double w, double h) {
    if (path_piece(self, PIECE_RECT, x, y, x + w, y + h) < 0) return -1;
    return path_move(self, x, y);
}

/* One painted row (PathRecorder._add): past the page's maximum, none. */
static int path_row(Core *self, double x0, double y0, double x1, double y1, int kind, int paint) {
    if ((long long)(self->path_kinds.len) >= self->max_path_pieces) { self->path_overflow = 1; return 0; }
    double xy[4] = {x0, y0, x1, y1};
    unsigned char k = (unsigned char)kind, p = (unsigned char)paint;
    if (buf_append(&self->path_rows, xy, sizeof xy) < 0) return -1;
    if (buf_append(&self->path_kinds, &k, 1) < 0) return -1;
    return buf_append(&self->path_paints, &p, 1);
}

static inline void apply(Mat m, double x, double y, double *ox, double *oy) { /* paths._apply */
    *ox = x * m.a + y * m.c + m.e;
    *oy = x * m.b + y * m.d + m.f;
}

/* PathRecorder.paint: the current path's pieces in user space, then a new path. */
static int path_paint(Core *self, int paint, int close) {
    if (close && path_close(self) < 0) return -1;
    Mat m = self->gs.ctm;
    int upright = m.b == 0 && m.c == 0;
    const PathPiece *pieces = (const PathPiece *)self->path.data;
    size_t n = self->path.len / sizeof(PathPiece);
    for (size_t i = 0; i < n; i++) {
        const PathPiece *p = &pieces[i];
        double ax, ay, bx, by;
        if (p->kind == PIECE_LINE) {
            apply(m, p->x0, p->y0, &ax, &ay);
            apply(m, p->x1, p->y1, &bx, &by);
            if (path_row(self, ax, ay, bx, by, PIECE_LINE, paint) < 0) return -1;
        } else if (upright) {
            apply(m, p->x0, p->y0, &ax, &ay);
            apply(m, p->x1, p->y1, &bx, &by);
            /* min()/max() of two: the first unless the second is beyond it */
            if (path_row(self, bx < ax ? bx : ax, by < ay ? by : ay, bx > ax ? bx : ax, by > ay ? by : ay,
                         PIECE_RECT, paint) < 0)
                return -1;
        } else {
            double xs[4], ys[4];
            apply(m, p->x0, p->y0, &xs[0], &ys[0]);
            apply(m, p->x1, p->y0, &xs[1], &ys[1]);
            apply(m, p->x1, p->y1, &xs[2], &ys[2]);
            apply(m, p->x0, p->y1, &xs[3], &ys[3]);
            for (int k = 0; k < 4; k++)
                if (path_row(self, xs[k], ys[k], xs[(k + 1) % 4], ys[(k + 1) % 4], PIECE_LINE, paint) < 0) return -1;
        }
    }
    path_discard(self);
    return 0;
}

/* ---- show operators ------------------------------------------------------ */
static int op_show(Core *self, const Args *a, int op, long long token) {
    Piece one;
    if (op == OP_Tj || op == OP_quote || op == OP_dquote) {
        size_t at = op == OP_dquote ? 2 : 0;
        if (op == OP_dquote) {
            double aw, ac;
            if (!number_at(a, 0, &aw)) return bad_operands(self, op);
            self->gs.word_spacing = aw;
            if (!number_at(a, 1, &ac)) return bad_operands(self, op);
            self->gs.char_spacing = ac;
        }
        if (op != OP_Tj) next_line(self);
        if (at >= a->n || arg(a, at)->type != T_STR) return bad_operands(self, op);
        one.is_string = 1;
        one.bytes = (const unsigned char *)arg_bytes(a, at);
        one.len = arg(a, at)->len;
        return show(self, &one, 1, 1, token);
    }
    /* TJ */
    if (a->n < 1 || arg(a, 0)->type != T_ARRAY) return bad_operands(self, op);
    const Operand *items = (const Operand *)a->at[0]->items.data;
    size_t n = arg(a, 0)->n;
    Piece *pieces = PyMem_Malloc((n ? n : 1) * sizeof(Piece));
    if (!pieces) { PyErr_NoMemory(); return -1; }
    for (size_t k = 0; k < n; k++) {
        const Operand *it = &items[k];
        if (it->type == T_STR) {
            pieces[k].is_string = 1;
            pieces[k].bytes = (const unsigned char *)a->at[0]->bytes.data + it->off;
            pieces[k].len = it->len;
        } else if (it->type == T_INT || it->type == T_REAL) {
            pieces[k].is_string = 0;
            pieces[k].number = it->num;
        } else {
            PyMem_Free(pieces);
            return bad_operands(self, op);
        }
    }
    int single = n == 1 && pieces[0].is_string;
    int rc = show(self, pieces, n, single, token);
    PyMem_Free(pieces);
    return rc;
}

static int op_matrix(const Args *a, Mat *m) {
    double v[6];
    for (size_t i = 0; i < 6; i++)
        if (!number_at(a, i, &v[i])) return 0;
    m->a = v[0]; m->b = v[1]; m->c = v[2]; m->d = v[3]; m->e = v[4]; m->f = v[5];
    return 1;
}

static int op_Tf(Core *self, const Args *a) {
    double size;
    if (a->n < 2 || arg(a, 0)->type != T_NAME || !number_at(a, 1, &size)) return bad_operands(self, OP_Tf);
    PyObject *name = PyBytes_FromStringAndSize(arg_bytes(a, 0), (Py_ssize_t)arg(a, 0)->len);
    if (!name) return -1;
    if (!self->font_names && !(self->font_names = PyDict_New())) { Py_DECREF(name); return -1; }
    PyObject *r = PyDict_GetItemWithError(self->font_names, name); /* borrowed */
    if (r) {
        Py_INCREF(r);
    } else if (PyErr_Occurred()) {
        Py_DECREF(name);
        return -1;
    } else {
        r = PyObject_CallMethod(self->host, "font", "O", name);
        if (r && PyDict_SetItem(self->font_names, name, r) < 0) Py_CLEAR(r);
    }
    Py_DECREF(name);
    if (!r) return -1;
    long index = PyLong_AsLong(r);
    Py_DECREF(r);
    if (index == -1 && PyErr_Occurred()) return -1;
    if (!font_info(self, index)) { PyErr_SetString(PyExc_RuntimeError, "host gave an undefined font"); return -1; }
    self->gs.font = index;
    self->gs.size = size;
    return 0;
}

static int op_Do(Core *self, const Args *a) {
    if (a->n < 1 || arg(a, 0)->type != T_NAME) return bad_operands(self, OP_Do);
    PyObject *r = PyObject_CallMethod(self->host, "do", "y#", arg_bytes(a, 0), (Py_ssize_t)arg(a, 0)->len);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* Run one handled operator. 0: done, BAD_OPERANDS: its operands do not fit
 * (nothing warned yet), -1: a Python exception. */
static int execute(Core *self, const Args *a, int op, long long token) {
    GState *gs = &self->gs;
    double v, w;
    Mat m;
    switch (op) {
    case OP_Tj: case OP_TJ: case OP_quote: case OP_dquote: return op_show(self, a, op, token);
    case OP_BT: self->tm = self->tlm = IDENTITY; return 0;
    case OP_ET: return 0;
    case OP_Td:
        if (a->n < 2 || !number_at(a, 0, &v) || !number_at(a, 1, &w)) return bad_operands(self, op);
        self->tlm = translate(v, w, self->tlm);
        self->tm = self->tlm;
        return 0;
    case OP_TD:
        /* The reference sets TL from operands[1] before reading operands[0]. */
        if (a->n < 2 || !number_at(a, 1, &w)) return bad_operands(self, op);
        gs->leading = -w;
        if (!number_at(a, 0, &v)) return bad_operands(self, op);
        self->tlm = translate(v, w, self->tlm);
        self->tm = self->tlm;
        return 0;
    case OP_Tm:
        if (!op_matrix(a, &m)) return bad_operands(self, op);
        self->tm = self->tlm = m;
        return 0;
    case OP_Tstar: next_line(self); return 0;
    case OP_Tf: return op_Tf(self, a);
    case OP_Tc: if (!number_at(a, 0, &v)) return bad_operands(self, op); gs->char_spacing = v; return 0;
    case OP_Tw: if (!number_at(a, 0, &v)) return bad_operands(self, op); gs->word_spacing = v; return 0;
    case OP_Tz: if (!number_at(a, 0, &v)) return bad_operands(self, op); gs->scale = v / 100.0; return 0;
    case OP_TL: if (!number_at(a, 0, &v)) return bad_operands(self, op); gs->leading = v; return 0;
    case OP_Ts: if (!number_at(a, 0, &v)) return bad_operands(self, op); gs->rise = v; return 0;
    case OP_Tr:
        if (!number_at(a, 0, &v) || !(fabs(v) < 9.2e18)) return bad_operands(self, op);
        gs->render_mode = (long long)v; /* int(): toward zero */
        return 0;
    case OP_cm:
        if (!op_matrix(a, &m)) return bad_operands(self, op);
        gs->ctm = mat_mul(m, gs->ctm);
        return 0;
    case OP_q: return buf_append(&self->stack, gs, sizeof *gs);
    case OP_Q:
        /* An unbalanced Q (common in damaged files) leaves the state alone. */
        if (self->stack.len) {
            self->stack.len -= sizeof(GState);
            memcpy(gs, self->stack.data + self->stack.len, sizeof *gs);
        }
        return 0;
    case OP_Do: return op_Do(self, a);
    case OP_BDC: case OP_BMC: return op_marked(self, a, op);
    case OP_EMC:
        if (marked_count(self) > self->ctx.marked_depth) return close_marked(self);
        return 0;
    /* Paths: the reference converts every operand with float() (paths.py's handlers). */
    case OP_m: case OP_l:
        if (!a->numbers || !number_at(a, 0, &v) || !number_at(a, 1, &w)) return bad_operands(self, op);
        return op == OP_m ? path_move(self, v, w) : path_line(self, v, w);
    case OP_c: case OP_v: case OP_y: {
        size_t at = op == OP_c ? 4 : 2; /* the curve's end point */
        if (!a->numbers || !number_at(a, at, &v) || !number_at(a, at + 1, &w)) return bad_operands(self, op);
        return path_curve(self, v, w);
    }
    case OP_re: {
        double x, y;
        if (!a->numbers || !number_at(a, 0, &x) || !number_at(a, 1, &y) || !number_at(a, 2, &v) || !number_at(a, 3, &w))
            return bad_operands(self, op);
        return path_rect(self, x, y, v, w);
    }
    case OP_h: return path_close(self);
    case OP_S: return path_paint(self, PAINT_STROKE, 0);
    case OP_s: return path_paint(self, PAINT_STROKE, 1);
    case OP_f: case OP_F: case OP_fstar: return path_paint(self, PAINT_FILL, 0);
    case OP_B: case OP_Bstar: return path_paint(self, PAINT_STROKE | PAINT_FILL, 0);
    case OP_b: case OP_bstar: return path_paint(self, PAINT_STROKE | PAINT_FILL, 1);
    case OP_n: path_discard(self); return 0;
    }
    return 0;
}

/* ---- operands ------------------------------------------------------------ */

/* Read the rest of an array or dictionary opened by `open_kind`, without
 * recursion: `depth` counts the containers open. Only the outermost
 * container's direct members are looked at; into `keep` (when not NULL) an
 * array keeps its strings and numbers as items, a dictionary /MCID and
 * /ActualText. Returns 1 when the container closed, 0 at the end of data,
 * -2 at a keyword inside it (the lexer just past the keyword), -1 on error. */
static int read_container(Lexer *lx, int open_kind, Operand *out, Slot *keep) {
    size_t depth = 1;
    Token t;
    /* Dictionary state: the key awaiting its value (0 none, 1 /MCID, 2 /ActualText, 3 other). */
    int key = 0, expect_key = 1;
    if (open_kind == K_ARRAY_OPEN) { out->type = T_ARRAY; out->n = 0; }
    else out->type = T_DICT;
    while (1) {
        Buf *dst = keep && depth == 1 ? &keep->bytes : NULL;
        size_t mark = dst ? dst->len : 0;
        int kind = next_token(lx, &t, dst);
        if (kind == K_ERROR) return -1;
        if (kind == K_EOF) return 0;
        if (kind == K_KEYWORD) {
            /* An operator, or the R of a reference, inside a container: not
             * a direct object (§7.8.2); pikepdf refuses the operator it is in. */
            return -2;
        }
        if (kind == K_ARRAY_OPEN || kind == K_DICT_OPEN) {
            if (depth == 1) {
                if (open_kind == K_ARRAY_OPEN && keep) {
                    Operand other; memset(&other, 0, sizeof other); other.type = T_BAD;
                    if (buf_append(&keep->items, &other, sizeof other) < 0) return -1;
                    out->n++;
                } else if (open_kind == K_DICT_OPEN) {
                    if (expect_key) { /* a container as a key: qpdf drops the pair */ }
                    else { key = 0; }
                    expect_key = !expect_key;
                }
            }
            if (depth == SIZE_MAX) return -1;
            depth++;
            continue;
        }
        if (kind == K_ARRAY_CLOSE || kind == K_DICT_CLOSE) {
            if (--depth == 0) return 1;
            continue;
        }
        if (depth != 1) continue;
        if (open_kind == K_ARRAY_OPEN) {
            if (keep && buf_append(&keep->items, &t.obj, sizeof t.obj) < 0) return -1;
            out->n++;
            continue;
        }
        if (expect_key) {
            const char *name = t.obj.type == T_NAME && dst ? dst->data + t.obj.off : NULL;
            key = 3;
            if (name && t.obj.len == 4 && !memcmp(name, "MCID", 4)) key = 1;
            else if (name && t.obj.len == 10 && !memcmp(name, "ActualText", 10)) key = 2;
            if (dst) dst->len = mark; /* keys are not kept */
            expect_key = 0;
        } else if (t.obj.type == T_NULL) {
            key = 0; /* a null value is an absent key (§7.3.7) */
            expect_key = 1;
        } else {
            if (key == 1) {
                out->has_mcid = 1;
                out->mcid_ok = is_number(&t.obj) && fabs(t.obj.num) < 9.2e18;
                out->mcid = out->mcid_ok ? (long long)t.obj.num : 0;
            } else if (key == 2) {
                /* Only a string is ActualText; the last one wins. */
                out->has_text = t.obj.type == T_STR;
                out->text_off = t.obj.off;
                out->text_len = t.obj.len;
            }
            key = 0;
            expect_key = 1;
        }
    }
}

/* Skip an inline image's data after ID (§8.9.7) through the first EI that
 * white space precedes and no regular character follows (the rule of
 * operators._INLINE_DATA_END, so both paths resume at the same byte); the
 * white space that ends ID may be the one before EI. */
static void skip_inline_image(Lexer *lx) {
    const unsigned char *p = lx->p, *end = lx->end;
    while (end - p >= 3) {
        if (is_white(p[0]) && p[1] == 'E' && p[2] == 'I' && (end - p == 3 || is_white(p[3]) || is_delim(p[3]))) {
            lx->p = p + 3;
            return;
        }
        p++;
    }
    lx->p = end;
}

/* Operands each handled operator takes (interpreter._ARITY; §8.2 Table 50). */
static size_t arity(int op) {
    switch (op) {
    case OP_Tf: case OP_Td: case OP_TD: case OP_BDC: case OP_m: case OP_l: return 2;
    case OP_Tm: case OP_cm: case OP_c: return 6;
    case OP_v: case OP_y: case OP_re: return 4;
    case OP_dquote: return 3;
    case OP_Tc: case OP_Tw: case OP_Tz: case OP_TL: case OP_Ts: case OP_Tr: case OP_Tj: case OP_TJ:
    case OP_quote: case OP_Do: case OP_BMC: return 1;
    }
    return 0;
}

/* A Python exception that must leave the page (interpreter._interpret lets
 * these through): MemoryError, RecursionError, and whatever is not an Exception. */
static int stops_page(void) {
    return PyErr_ExceptionMatches(PyExc_MemoryError) || PyErr_ExceptionMatches(PyExc_RecursionError) ||
           !PyErr_ExceptionMatches(PyExc_Exception);
}

/* One handled operator, with interpreter._recover's rule: a handler that
 * fails on its first operands is retried on its last `arity` when it has
 * more than that (a lost ')' leaves a null operand before the real ones),
 * else skipped with a warning saying why. */
static int dispatch(Core *self, Lexer *lx, int op, long long token) {
    Args a;
    size_t kept = lx->nops < KEPT_OPERANDS ? lx->nops : KEPT_OPERANDS, want = arity(op);
    for (size_t i = 0; i < kept; i++) a.at[i] = &lx->slots[i];
    a.n = lx->nops;
    a.numbers = lx->non_numbers == 0;
    int r = execute(self, &a, op, token);
    if (r == 0) return 0;
    if (r < 0 && stops_page()) return -1;
    if (lx->nops > want) {
        if (r < 0) PyErr_Clear(); /* the retry's outcome is what is reported */
        a.numbers = 1;
        for (size_t j = 0; j < want; j++) {
            a.at[j] = slot_for(lx, lx->nops - want + j);
            a.numbers &= is_number(&a.at[j]->o);
        }
        a.n = want;
        r = execute(self, &a, op, token);
        if (r == 0) return 0;
        if (r < 0 && stops_page()) return -1;
    }
    if (r < 0) return operator_failed(self, op);
    char message[120];
    if (lx->nops < want)
        snprintf(message, sizeof message, "operator %s skipped: it needs %zu operands, got %zu", OP_NAMES[op], want,
                 lx->nops);
    else
        snprintf(message, sizeof message, "operator %s skipped: its operands are not of the kinds it takes",
                 OP_NAMES[op]);
    return host_warn(self, message);
}

/* One operator against the page's budget (extract.max_operators_per_page,
 * counted as operators.py counts: every keyword, an inline image once).
 * 1: counted, 0: the budget is spent (warned, the page stops), -1: error. */
static int count_operator(Core *self) {
    if (self->operators < self->max_operators) {
        self->operators++;
        return 1;
    }
    char message[200];
    snprintf(message, sizeof message,
             "limit: more than %lld operators on this page; text after that is skipped "
             "(extract.max_operators_per_page)", self->max_operators);
    self->limit_reached = 1;
    return host_warn(self, message) < 0 ? -1 : 0;
}

/* An operator pikepdf cannot tokenize (a keyword inside an array or a
 * dictionary among its operands): skipped with a warning naming its bytes,
 * as the reference path skips it (interpreter._interpret_damaged). */
static int skip_unit(Core *self, const unsigned char *start, const unsigned char *end) {
    PyObject *r = PyObject_CallMethod(self->host, "skipped", "y#", (const char *)start, (Py_ssize_t)(end - start));
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static void clear_operands(Lexer *lx) { lx->nops = lx->non_numbers = 0; }

/* Run one content stream with the current state. 0: done (or stopped at
 * the operator limit, self->limit_reached), -1: a Python exception. */
static int run_stream(Core *self, const unsigned char *data, size_t len) {
    Lexer lx;
    memset(&lx, 0, sizeof lx);
    lx.p = data;
    lx.end = data + len;
    long long token = -1; /* index among the interpreted (text) operators, as the reference counts them */
    const unsigned char *unit = data; /* where the current operator's operands begin */
    int rc = 0;
    Token t;
    PyObject *outer_names = self->font_names; /* a form's stream has resources of its own */
    self->font_names = NULL;
    while (!self->limit_reached) {
        Slot *slot = slot_for(&lx, lx.nops);
        slot->bytes.len = slot->items.len = 0;
        int kind = next_token(&lx, &t, &slot->bytes);
        if (kind == K_ERROR) { rc = -1; break; }
        if (kind == K_EOF) break;
        if (kind == K_KEYWORD) {
            int op = operator_code(t.word, t.word_len);
            if (op == OP_ID) {
                /* BI, already counted, stands for the whole image. */
                skip_inline_image(&lx);
            } else {
                int counted = count_operator(self);
                if (counted < 0) { rc = -1; break; }
                if (!counted) break;
                if (op != OP_OTHER) {
                    if (is_text_operator(op)) token++;
                    if (dispatch(self, &lx, op, token) < 0) { rc = -1; break; }
                }
            }
            clear_operands(&lx);
            unit = lx.p;
            continue;
        }
        if (kind == K_ARRAY_OPEN || kind == K_DICT_OPEN) {
            memset(&slot->o, 0, sizeof slot->o);
            int r = read_container(&lx, kind, &slot->o, slot);
            if (r == -1) { rc = -1; break; }
            if (r == 0) break; /* cut by the end of data */
            if (r == -2) {
                /* The keyword ends the operator, which counts and is skipped;
                 * what follows is read from there, outside any container. */
                int counted = count_operator(self);
                if (counted < 0) { rc = -1; break; }
                if (!counted) break;
                if (skip_unit(self, unit, lx.p) < 0) { rc = -1; break; }
                clear_operands(&lx);
                unit = lx.p;
                continue;
            }
        } else if (kind == K_ARRAY_CLOSE || kind == K_DICT_CLOSE) {
            memset(&slot->o, 0, sizeof slot->o);
            slot->o.type = T_NULL; /* a stray ']' or '>>' */
        } else {
            slot->o = t.obj;
        }
        if (!is_number(&slot->o)) lx.non_numbers++;
        if (lx.nops < SIZE_MAX) lx.nops++;
    }
    for (size_t i = 0; i < SLOTS; i++) {
        buf_free(&lx.slots[i].bytes);
        buf_free(&lx.slots[i].items);
    }
    Py_XSETREF(self->font_names, outer_names);
    return rc;
}

/* ---- Python methods ----------------------------------------------------- */
static void core_clear_marked(Core *self) {
    while (marked_count(self)) {
        Marked *m = marked_top(self);
        Py_XDECREF(m->actual_text);
        self->marked.len -= sizeof(Marked);
    }
}

/* The two-byte tables of a font: released to their owner, or freed. */
static void font_tables_free(FontInfo *f) {
    if (f->has_shared) {
        PyBuffer_Release(&f->shared);
        f->has_shared = 0;
    } else {
        PyMem_Free(f->w0s);
        PyMem_Free(f->w1s);
        PyMem_Free(f->known);
    }
    f->w0s = f->w1s = NULL;
    f->known = NULL;
}

/* Two-byte tables in the font's own buffer: w0 (doubles), w1 (doubles), known (bytes). */
static int font_tables_share(FontInfo *f, PyObject *tables) {
    Py_buffer view;
    if (PyObject_GetBuffer(tables, &view, PyBUF_WRITABLE) < 0) return -1;
    if (view.len != (Py_ssize_t)TWO_BYTE_TABLES || ((uintptr_t)view.buf % sizeof(double))) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "two-byte tables must be 65,536 x (w0, w1, known), aligned");
        return -1;
    }
    font_tables_free(f);
    f->shared = view;
    f->has_shared = 1;
    f->w0s = (double *)view.buf;
    f->w1s = f->w0s + TWO_BYTE_CODES;
    f->known = (unsigned char *)(f->w1s + TWO_BYTE_CODES);
    return 0;
}

static void Core_dealloc(Core *self) {
    core_clear_marked(self);
    Py_XDECREF(self->host);
    Py_XDECREF(self->spans);
    Py_XDECREF(self->font_names);
    for (size_t i = 0; i < self->nfonts; i++) {
        if (self->fonts[i]) font_tables_free(self->fonts[i]);
        PyMem_Free(self->fonts[i]);
    }
    PyMem_Free(self->fonts);
    buf_free(&self->stack); buf_free(&self->marked); free_chunks(self); buf_free(&self->codes);
    buf_free(&self->glyph_kinds); buf_free(&self->glyph_fonts);
    buf_free(&self->codes2);
    buf_free(&self->adj_index); buf_free(&self->adj_offset);
    buf_free(&self->path); buf_free(&self->path_rows); buf_free(&self->path_kinds); buf_free(&self->path_paints);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Core_init(Core *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"host", "max_operators", "max_path_pieces", NULL};
    PyObject *host;
    long long max_operators, max_path_pieces = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OL|L", kwlist, &host, &max_operators, &max_path_pieces)) return -1;
    self->max_path_pieces = max_path_pieces < 0 ? 0 : max_path_pieces;
    Py_INCREF(host);
    Py_XSETREF(self->host, host);
    Py_XSETREF(self->spans, PyList_New(0));
    if (!self->spans) return -1;
    self->gs.ctm = IDENTITY;
    self->gs.font = -1;
    self->gs.scale = 1.0;
    self->tm = self->tlm = IDENTITY;
    self->ctx.stream_id = PAGE_STREAM;
    self->ctx.clip[0] = self->ctx.clip[1] = -INFINITY;
    self->ctx.clip[2] = self->ctx.clip[3] = INFINITY;
    self->max_operators = max_operators < 0 ? 0 : max_operators;
    return 0;
}

/* set_font(index, by_code, wmode, ascent, descent, widths: bytes|None, waits: bytes|None, two_byte=False) */
static PyObject *Core_set_font(Core *self, PyObject *args) {
    long index;
    int by_code, wmode, two_byte = 0;
    double ascent, descent;
    PyObject *widths, *waits_obj, *tables = Py_None;
    if (!PyArg_ParseTuple(args, "lppddOO|pO", &index, &by_code, &wmode, &ascent, &descent, &widths, &waits_obj,
                          &two_byte, &tables))
        return NULL;
    if (index < 0 || index > 1000000) { PyErr_SetString(PyExc_ValueError, "font index out of range"); return NULL; }
    if ((size_t)index >= self->nfonts) {
        size_t n = (size_t)index + 1;
        FontInfo **p = PyMem_Realloc(self->fonts, n * sizeof *p);
        if (!p) return PyErr_NoMemory();
        for (size_t i = self->nfonts; i < n; i++) p[i] = NULL;
        self->fonts = p;
        self->nfonts = n;
    }
    FontInfo *f = self->fonts[index];
    if (!f) {
        f = PyMem_Calloc(1, sizeof *f);
        if (!f) return PyErr_NoMemory();
        self->fonts[index] = f;
    }
    if (tables != Py_None && font_tables_share(f, tables) < 0) return NULL;
    f->by_code = by_code;
    f->two_byte = two_byte && !by_code;
    f->wmode = wmode ? 1 : 0;
    f->ascent = ascent;
    f->descent = descent;
    f->any_waits = 0;
    memset(f->waits, 0, sizeof f->waits);
    if (widths != Py_None) {
        Py_buffer view;
        if (PyObject_GetBuffer(widths, &view, PyBUF_SIMPLE) < 0) return NULL;
        if (view.len != 256 * (Py_ssize_t)sizeof(double)) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "widths must be 256 doubles");
            return NULL;
        }
        memcpy(f->widths, view.buf, sizeof f->widths);
        PyBuffer_Release(&view);
    }
    if (waits_obj != Py_None) {
        Py_buffer view;
        if (PyObject_GetBuffer(waits_obj, &view, PyBUF_SIMPLE) < 0) return NULL;
        if (view.len != 256) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "waits must be 256 bytes");
            return NULL;
        }
        for (int i = 0; i < 256; i++) {
            f->waits[i] = ((const unsigned char *)view.buf)[i] != 0;
            f->any_waits |= f->waits[i];
        }
        PyBuffer_Release(&view);
    }
    f->defined = 1;
    Py_RETURN_NONE;
}

/* After results() the core has let its host go: it runs no more. */
static int has_host(Core *self) {
    if (self->host) return 1;
    PyErr_SetString(PyExc_RuntimeError, "the core's results were taken: it runs no more");
    return 0;
}

static PyObject *Core_run(Core *self, PyObject *args) {
    Py_buffer data;
    if (!has_host(self)) return NULL;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    int rc = run_stream(self, (const unsigned char *)data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static void transform_box(const double box[4], Mat m, double out[4]) {
    double xs[4], ys[4];
    int k = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double x = i ? box[2] : box[0], y = j ? box[3] : box[1];
            xs[k] = x * m.a + y * m.c + m.e;
            ys[k] = x * m.b + y * m.d + m.f;
            k++;
        }
    out[0] = xs[0]; out[1] = ys[0]; out[2] = xs[0]; out[3] = ys[0];
    for (k = 1; k < 4; k++) {
        /* min()/max() of the reference: keep the first of equals */
        if (xs[k] < out[0]) out[0] = xs[k];
        if (ys[k] < out[1]) out[1] = ys[k];
        if (xs[k] > out[2]) out[2] = xs[k];
        if (ys[k] > out[3]) out[3] = ys[k];
    }
}

/* run_form(data, matrix, bbox|None, stream_id): a form XObject at
 * /Matrix x CTM, clipped by its /BBox, in a state of its own (§8.10.1). */
static PyObject *Core_run_form(Core *self, PyObject *args) {
    Py_buffer data;
    Mat fm;
    PyObject *bbox_obj;
    long long stream_id;
    if (!has_host(self)) return NULL;
    if (!PyArg_ParseTuple(args, "y*(dddddd)OL", &data, &fm.a, &fm.b, &fm.c, &fm.d, &fm.e, &fm.f, &bbox_obj, &stream_id))
        return NULL;
    double bbox[4];
    int has_bbox = bbox_obj != Py_None;
    if (has_bbox && !PyArg_ParseTuple(bbox_obj, "dddd", &bbox[0], &bbox[1], &bbox[2], &bbox[3])) {
        PyBuffer_Release(&data);
        return NULL;
    }
    GState saved_gs = self->gs;
    size_t saved_stack = self->stack.len;
    Mat saved_tm = self->tm, saved_tlm = self->tlm;
    Context saved_ctx = self->ctx;
    self->gs.ctm = mat_mul(fm, self->gs.ctm);
    Context ctx = saved_ctx;
    if (has_bbox) {
        double box[4];
        transform_box(bbox, self->gs.ctm, box);
        /* _intersect: max of lows, min of highs (Python max/min keep the first of equals). */
        ctx.clip[0] = box[0] > saved_ctx.clip[0] ? box[0] : saved_ctx.clip[0];
        ctx.clip[1] = box[1] > saved_ctx.clip[1] ? box[1] : saved_ctx.clip[1];
        ctx.clip[2] = box[2] < saved_ctx.clip[2] ? box[2] : saved_ctx.clip[2];
        ctx.clip[3] = box[3] < saved_ctx.clip[3] ? box[3] : saved_ctx.clip[3];
    }
    ctx.stream_id = stream_id;
    ctx.marked_depth = marked_count(self);
    self->ctx = ctx;
    int rc = run_stream(self, (const unsigned char *)data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    /* Marked content balances within a stream (§14.6): close what the form left open. */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    while (marked_count(self) > self->ctx.marked_depth) {
        if (close_marked(self) < 0) { rc = -1; if (!type) PyErr_Fetch(&type, &value, &tb); else PyErr_Clear(); }
    }
    PyErr_Restore(type, value, tb);
    self->ctx = saved_ctx;
    self->gs = saved_gs;
    if (self->stack.len > saved_stack) self->stack.len = saved_stack;
    self->tm = saved_tm;
    self->tlm = saved_tlm;
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Core_ctm(Core *self, PyObject *Py_UNUSED(ignored)) {
    Mat m = self->gs.ctm;
    return Py_BuildValue("(dddddd)", m.a, m.b, m.c, m.d, m.e, m.f);
}

static PyObject *Core_marked(Core *self, PyObject *Py_UNUSED(ignored)) {
    Marked *m = marked_top(self);
    if (!m) Py_RETURN_NONE;
    return Py_BuildValue("(LL)", m->mcid, m->mcid_stream);
}

static PyObject *Core_font(Core *self, PyObject *Py_UNUSED(ignored)) { return PyLong_FromLong(self->gs.font); }

/* results() -> (frames, codes, two-byte codes, adjustment indices, adjustment offsets, spans, glyphs,
 *               operators, limit reached, glyph kinds, glyph fonts); frames is their number (the core
 *               keeps them for geometry()). The host is let go: nothing calls it after the run. */
static PyObject *Core_results(Core *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *r = Py_BuildValue("(ny#y#y#y#OnLiy#y#)", (Py_ssize_t)self->nframes,
                         self->codes.data ? self->codes.data : "", (Py_ssize_t)self->codes.len,
                         self->codes2.data ? self->codes2.data : "", (Py_ssize_t)self->codes2.len,
                         self->adj_index.data ? self->adj_index.data : "", (Py_ssize_t)self->adj_index.len,
                         self->adj_offset.data ? self->adj_offset.data : "", (Py_ssize_t)self->adj_offset.len,
                         self->spans, self->count, self->operators, self->limit_reached,
                         self->glyph_kinds.data ? self->glyph_kinds.data : "", (Py_ssize_t)self->glyph_kinds.len,
                         self->glyph_fonts.data ? self->glyph_fonts.data : "", (Py_ssize_t)self->glyph_fonts.len);
    buf_free(&self->codes); buf_free(&self->codes2); buf_free(&self->glyph_kinds); buf_free(&self->glyph_fonts);
    Py_CLEAR(self->host);
    return r;
}

/* paths() -> (rows: float64 (x0, y0, x1, y1) per row, kinds: uint8, paints: uint8, overflow) */
static PyObject *Core_paths(Core *self, PyObject *Py_UNUSED(ignored)) {
    return Py_BuildValue("(y#y#y#i)", self->path_rows.data ? self->path_rows.data : "", (Py_ssize_t)self->path_rows.len,
                         self->path_kinds.data ? self->path_kinds.data : "", (Py_ssize_t)self->path_kinds.len,
                         self->path_paints.data ? self->path_paints.data : "", (Py_ssize_t)self->path_paints.len,
                         self->path_overflow);
}

static PyObject *Core_geometry(Core *self, PyObject *args);

static PyMethodDef Core_methods[] = {
    {"geometry", (PyCFunction)Core_geometry, METH_VARARGS, "Fill the glyph table's columns from the page's frames (once)."},
    {"paths", (PyCFunction)Core_paths, METH_NOARGS, "The painted path pieces recorded so far (extract/paths.py)."},
    {"set_font", (PyCFunction)Core_set_font, METH_VARARGS, "Define or refresh font `index` for the core."},
    {"run", (PyCFunction)Core_run, METH_VARARGS, "Interpret the page's content bytes."},
    {"run_form", (PyCFunction)Core_run_form, METH_VARARGS, "Interpret a form XObject's bytes (from the host's do)."},
    {"ctm", (PyCFunction)Core_ctm, METH_NOARGS, "The current transformation matrix."},
    {"marked", (PyCFunction)Core_marked, METH_NOARGS, "(mcid, mcid_stream) of the innermost marked content, or None."},
    {"font", (PyCFunction)Core_font, METH_NOARGS, "Index of the current font, -1 before any."},
    {"results", (PyCFunction)Core_results, METH_NOARGS, "The page's frames, codes, adjustments and spans."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ragprep.extract._core.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One page's compiled content-stream interpreter (see interpreter.py for the rules).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};


/* ==== the geometric join rules of geometric.py, per glyph pair ============
 * The same formulas as geometric._pair_rules and line_break_rule, operation
 * by operation (NaN propagates as numpy's maximum does), on the glyph table's
 * columns gathered through `order`. */

/* Scripts written without spaces between words (geometric._CJK_RANGES). */
static const long long CJK_RANGES[][2] = {
    {0x2E80, 0x2FFF}, {0x3000, 0x303F}, {0x3040, 0x30FF}, {0x3100, 0x312F}, {0x31A0, 0x31FF},
    {0x3200, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xF900, 0xFAFF}, {0xFE30, 0xFE4F},
    {0xFF00, 0xFFEF}, {0x20000, 0x3FFFF},
};

static int is_cjk_cp(long long cp) {
    for (size_t i = 0; i < sizeof CJK_RANGES / sizeof CJK_RANGES[0]; i++)
        if (cp >= CJK_RANGES[i][0] && cp <= CJK_RANGES[i][1]) return 1;
    return 0;
}

/* geometric._BLANKS: code points below U+3001 for which str.isspace() holds. */
static int is_blank_cp(long long cp) { return cp >= 0 && cp < 0x3001 && Py_UNICODE_ISSPACE((Py_UCS4)cp); }

static double nan_max(double a, double b) { /* np.maximum */
    if (a != a) return a;
    if (b != b) return b;
    return a >= b ? a : b;
}

typedef struct { Py_buffer view; int ok; } View;

static int get_view(PyObject *obj, View *v, const char *format, Py_ssize_t itemsize, const char *what) {
    v->ok = 0;
    if (PyObject_GetBuffer(obj, &v->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    v->ok = 1;
    const char *f = v->view.format ? v->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int same = strcmp(f, format) == 0 || (format[0] == 'l' && f[0] == 'q' && !f[1]);
    if (v->view.itemsize != itemsize || !same) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous array of '%s' items", what, format);
        return -1;
    }
    return 0;
}

static void release(View *v) { if (v->ok) PyBuffer_Release(&v->view); v->ok = 0; }

/* Python str -> (length, first code point, last code point). */
static int text_edges_of(PyObject *text, Py_ssize_t *len, long long *first, long long *last) {
    if (!PyUnicode_Check(text)) { PyErr_SetString(PyExc_TypeError, "glyph texts must be str"); return -1; }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    *len = n;
    *first = n ? (long long)PyUnicode_READ_CHAR(text, 0) : -1;
    *last = n ? (long long)PyUnicode_READ_CHAR(text, n - 1) : -1;
    return 0;
}

/* text_edges(texts: list[str] or a contiguous object array of str) -> (lengths, first code points,
 * last code points), int64 bytearrays. The glyph table's text column is read in place through the
 * buffer protocol (format "O": its PyObject pointers), so callers make no list of it first. The
 * loop calls back into nothing, so the borrowed items stay alive while it reads them. */
static PyObject *core_text_edges(PyObject *mod, PyObject *texts) {
    View v = {0};
    PyObject *const *items;
    Py_ssize_t n;
    if (PyList_Check(texts)) {
        items = PySequence_Fast_ITEMS(texts);
        n = PyList_GET_SIZE(texts);
    } else {
        if (get_view(texts, &v, "O", (Py_ssize_t)sizeof(PyObject *), "texts") < 0) { release(&v); return NULL; }
        items = (PyObject *const *)v.view.buf;
        n = v.view.len / (Py_ssize_t)sizeof(PyObject *);
    }
    PyObject *lengths = PyByteArray_FromStringAndSize(NULL, n * 8);
    PyObject *firsts = PyByteArray_FromStringAndSize(NULL, n * 8);
    PyObject *lasts = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!lengths || !firsts || !lasts) goto fail;
    int64_t *L = (int64_t *)PyByteArray_AS_STRING(lengths), *F = (int64_t *)PyByteArray_AS_STRING(firsts),
            *E = (int64_t *)PyByteArray_AS_STRING(lasts);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        long long first, last;
        if (!items[i]) { PyErr_SetString(PyExc_TypeError, "glyph texts must be str"); goto fail; }
        if (text_edges_of(items[i], &len, &first, &last) < 0) goto fail;
        L[i] = len; F[i] = first; E[i] = last;
    }
    release(&v);
    return Py_BuildValue("(NNN)", lengths, firsts, lasts);
fail:
    release(&v);
    Py_XDECREF(lengths); Py_XDECREF(firsts); Py_XDECREF(lasts);
    return NULL;
}

/* pair_rules(origin, own_end, direction, height, order, texts, word_space_ratio, line_break_ratio,
 *            same_direction, backward_jump)
 * -> (separator int8, gap, space_threshold, move_across, line_threshold) as bytearrays of n entries. */
static PyObject *core_pair_rules(PyObject *mod, PyObject *args) {
    PyObject *origin_obj, *own_end_obj, *direction_obj, *height_obj, *order_obj, *texts;
    double ws_ratio, lb_ratio, same_direction, backward;
    if (!PyArg_ParseTuple(args, "OOOOOO!dddd", &origin_obj, &own_end_obj, &direction_obj, &height_obj, &order_obj,
                          &PyList_Type, &texts, &ws_ratio, &lb_ratio, &same_direction, &backward))
        return NULL;
    View vo = {0}, ve = {0}, vd = {0}, vh = {0}, vi = {0};
    PyObject *sep = NULL, *gap = NULL, *sth = NULL, *mov = NULL, *lth = NULL;
    if (get_view(origin_obj, &vo, "d", 8, "origin") < 0 || get_view(own_end_obj, &ve, "d", 8, "own_end") < 0 ||
        get_view(direction_obj, &vd, "d", 8, "direction") < 0 || get_view(height_obj, &vh, "d", 8, "height") < 0 ||
        get_view(order_obj, &vi, "l", 8, "order") < 0)
        goto fail;
    Py_ssize_t rows = vh.view.len / 8;
    if (vo.view.len != rows * 16 || ve.view.len != rows * 16 || vd.view.len != rows * 16) {
        PyErr_SetString(PyExc_ValueError, "columns of different lengths");
        goto fail;
    }
    Py_ssize_t n = vi.view.len / 8;
    if (PyList_GET_SIZE(texts) != n) { PyErr_SetString(PyExc_ValueError, "texts and order differ in length"); goto fail; }
    const double *O = vo.view.buf, *E = ve.view.buf, *D = vd.view.buf, *H = vh.view.buf;
    const int64_t *idx = vi.view.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= rows) { PyErr_SetString(PyExc_IndexError, "order index out of range"); goto fail; }
    sep = PyByteArray_FromStringAndSize(NULL, n);
    gap = PyByteArray_FromStringAndSize(NULL, n * 8);
    sth = PyByteArray_FromStringAndSize(NULL, n * 8);
    mov = PyByteArray_FromStringAndSize(NULL, n * 8);
    lth = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!sep || !gap || !sth || !mov || !lth) goto fail;
    int8_t *S = (int8_t *)PyByteArray_AS_STRING(sep);
    double *G = (double *)PyByteArray_AS_STRING(gap), *ST = (double *)PyByteArray_AS_STRING(sth);
    double *M = (double *)PyByteArray_AS_STRING(mov), *LT = (double *)PyByteArray_AS_STRING(lth);
    if (n) { S[0] = 0; G[0] = ST[0] = M[0] = LT[0] = NAN; }
    long long prev_last = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t len;
        long long first, last;
        if (text_edges_of(PyList_GET_ITEM(texts, k), &len, &first, &last) < 0) goto fail;
        if (k > 0) {
            Py_ssize_t p = (Py_ssize_t)idx[k - 1], c = (Py_ssize_t)idx[k];
            double dx = D[2 * p], dy = D[2 * p + 1];
            double nx = -dy, ny = dx;
            double across = (O[2 * c] - O[2 * p]) * nx + (O[2 * c + 1] - O[2 * p + 1]) * ny;
            double hc = H[c];
            double line_limit = lb_ratio * nan_max(H[p], hc);
            int turned = dx * D[2 * c] + dy * D[2 * c + 1] < same_direction;
            int line_break = fabs(across) > line_limit || turned;
            double along_gap = (O[2 * c] - E[2 * p]) * dx + (O[2 * c + 1] - E[2 * p + 1]) * dy;
            double space_limit = ws_ratio * hc;
            int blank_next_to = is_blank_cp(prev_last) || is_blank_cp(first);
            int cjk_pair = is_cjk_cp(prev_last) && is_cjk_cp(first);
            int word_break = along_gap > space_limit || along_gap < -backward * hc;
            int space = word_break && !blank_next_to && !cjk_pair && !line_break;
            S[k] = line_break ? 2 : (space ? 1 : 0);
            G[k] = along_gap; ST[k] = space_limit; M[k] = across; LT[k] = line_limit;
        }
        prev_last = last;
    }
    release(&vo); release(&ve); release(&vd); release(&vh); release(&vi);
    return Py_BuildValue("(NNNNN)", sep, gap, sth, mov, lth);
fail:
    release(&vo); release(&ve); release(&vd); release(&vh); release(&vi);
    Py_XDECREF(sep); Py_XDECREF(gap); Py_XDECREF(sth); Py_XDECREF(mov); Py_XDECREF(lth);
    return NULL;
}

/* join_text(texts: list[str], separator: int8 buffer) -> (text, char_start, char_end)
 * The separators ("", " ", "\n") and texts interleaved, and each text's span. */
static PyObject *core_join_text(PyObject *mod, PyObject *args) {
    PyObject *texts, *sep_obj;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &texts, &sep_obj)) return NULL;
    View vs = {0};
    if (get_view(sep_obj, &vs, "b", 1, "separator") < 0) { release(&vs); return NULL; }
    Py_ssize_t n = PyList_GET_SIZE(texts);
    if (vs.view.len != n) { release(&vs); PyErr_SetString(PyExc_ValueError, "texts and separators differ"); return NULL; }
    const int8_t *S = vs.view.buf;
    Py_ssize_t total = 0;
    Py_UCS4 maxchar = 127;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = PyList_GET_ITEM(texts, k);
        if (!PyUnicode_Check(t)) { release(&vs); PyErr_SetString(PyExc_TypeError, "glyph texts must be str"); return NULL; }
        Py_UCS4 m = PyUnicode_MAX_CHAR_VALUE(t);
        if (m > maxchar) maxchar = m;
        total += PyUnicode_GET_LENGTH(t) + (S[k] != 0);
    }
    PyObject *out = PyUnicode_New(total, maxchar);
    PyObject *starts = PyByteArray_FromStringAndSize(NULL, n * 8);
    PyObject *ends = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!out || !starts || !ends) goto fail;
    int64_t *A = (int64_t *)PyByteArray_AS_STRING(starts), *B = (int64_t *)PyByteArray_AS_STRING(ends);
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (S[k] == 1) PyUnicode_WRITE(PyUnicode_KIND(out), PyUnicode_DATA(out), at++, ' ');
        else if (S[k] == 2) PyUnicode_WRITE(PyUnicode_KIND(out), PyUnicode_DATA(out), at++, '\n');
        PyObject *t = PyList_GET_ITEM(texts, k);
        Py_ssize_t len = PyUnicode_GET_LENGTH(t);
        A[k] = at;
        if (len && PyUnicode_CopyCharacters(out, at, t, 0, len) < 0) goto fail;
        at += len;
        B[k] = at;
    }
    release(&vs);
    return Py_BuildValue("(NNN)", out, starts, ends);
fail:
    release(&vs);
    Py_XDECREF(out); Py_XDECREF(starts); Py_XDECREF(ends);
    return NULL;
}


/* ==== glyph geometry: interpreter._GlyphAccumulator.finish, per glyph =====
 * Core.geometry(widths, vertical_widths, word_space, adj_index, adj_offset,
 *               span_first, span_end, visible_box, outputs...) fills the glyph
 * table's columns (allocated by the caller) from the page's show frames, with the
 * same operations in the same order as the numpy reference: one running sum
 * of pen advances over the page (§9.4.4), /ActualText spans stretched to
 * their last glyph, box corners, direction, visibility. */

static double nan_min(double a, double b) { /* np.minimum */
    if (a != a) return a;
    if (b != b) return b;
    return a <= b ? a : b;
}

enum { G_WIDTHS, G_VWIDTHS, G_WORDSPACE, G_ADJ_INDEX, G_ADJ_OFFSET, G_SPAN_FIRST, G_SPAN_END,
       G_ORIGIN, G_OWN_END, G_PEN_END, G_DIRECTION, G_QUAD, G_HEIGHT, G_FONT_SIZE, G_VISIBLE,
       G_MCID, G_MCID_STREAM, G_STREAM, G_TOKEN, G_RENDER, G_WMODE, G_ARTIFACT, G_FONT, G_COUNT };

static const char *G_FORMATS[G_COUNT] = {"d", "d", "?", "l", "d", "l", "l",
                                         "d", "d", "d", "d", "d", "d", "d", "?",
                                         "l", "l", "l", "l", "b", "b", "?", "i"};
static const Py_ssize_t G_SIZES[G_COUNT] = {8, 8, 1, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 1, 8, 8, 8, 8, 1, 1, 1, 4};
/* Elements per glyph of each per-glyph column (0: not per glyph). */
static const Py_ssize_t G_WIDTH[G_COUNT] = {1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

/* What a glyph's box and visibility need from its frame: kept for the
 * first glyph of each /ActualText span, whose box is drawn again once the
 * span has stretched it (its frame is freed by then). */
typedef struct { double lo_x, lo_y, hi_x, hi_y, vx0, vx1, vy0, vy1; } BoxFrame;

static void glyph_box(double *quad, unsigned char *visible, Py_ssize_t g, const double *origin, const double *own_end,
                      const BoxFrame *b) {
    double ox = origin[2 * g], oy = origin[2 * g + 1], ex = own_end[2 * g], ey = own_end[2 * g + 1];
    double *q = quad + 8 * g;
    q[0] = ox + b->lo_x; q[1] = oy + b->lo_y;
    q[2] = ex + b->lo_x; q[3] = ey + b->lo_y;
    q[4] = ex + b->hi_x; q[5] = ey + b->hi_y;
    q[6] = ox + b->hi_x; q[7] = oy + b->hi_y;
    double cx = (((q[0] + q[2]) + q[4]) + q[6]) / 4.0, cy = (((q[1] + q[3]) + q[5]) + q[7]) / 4.0;
    visible[g] = cx >= b->vx0 && cx <= b->vx1 && cy >= b->vy0 && cy <= b->vy1;
}

static int compare_int64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Core.geometry(...): the arguments of the module docs above, without the
 * frames (the core's own). One pass over the frames, each chunk freed once
 * read; the boxes of /ActualText spans' first glyphs are drawn again after
 * the spans stretch them, as the reference draws all boxes after. */
static PyObject *Core_geometry(Core *self, PyObject *args) {
    if (PyTuple_GET_SIZE(args) != G_COUNT + 1) {
        PyErr_SetString(PyExc_TypeError, "geometry() takes the inputs, visible box and output columns");
        return NULL;
    }
    View v[G_COUNT];
    memset(v, 0, sizeof v);
    double box[4];
    PyObject *result = NULL;
    int64_t *firsts = NULL;
    BoxFrame *kept = NULL;
    for (int i = 0; i < G_COUNT; i++) {
        PyObject *obj = PyTuple_GET_ITEM(args, i < G_ORIGIN ? i : i + 1);
        if (get_view(obj, &v[i], G_FORMATS[i], G_SIZES[i], "geometry column") < 0) goto done;
        if (i >= G_ORIGIN && v[i].view.readonly) { PyErr_SetString(PyExc_ValueError, "output columns must be writable"); goto done; }
    }
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(args, G_ORIGIN), "dddd", &box[0], &box[1], &box[2], &box[3])) goto done;
    if (self->nchunks * FRAME_CHUNK < self->nframes || (!self->nchunks && self->nframes)) {
        PyErr_SetString(PyExc_RuntimeError, "the page's frames were already read");
        goto done;
    }
    Py_ssize_t n = self->count;
    for (int i = 0; i < G_COUNT; i++)
        if (G_WIDTH[i] && v[i].view.len != n * G_WIDTH[i] * G_SIZES[i]) {
            PyErr_Format(PyExc_ValueError, "geometry column %d does not have one row per glyph", i);
            goto done;
        }
    Py_ssize_t nadj = v[G_ADJ_INDEX].view.len / 8, nspans = v[G_SPAN_FIRST].view.len / 8;
    if (v[G_ADJ_OFFSET].view.len != nadj * 8 || v[G_SPAN_END].view.len != nspans * 8) {
        PyErr_SetString(PyExc_ValueError, "adjustment or span columns differ in length");
        goto done;
    }
    const double *W = v[G_WIDTHS].view.buf, *VW = v[G_VWIDTHS].view.buf;
    const unsigned char *WS = v[G_WORDSPACE].view.buf;
    const int64_t *AI = v[G_ADJ_INDEX].view.buf, *SF = v[G_SPAN_FIRST].view.buf, *SE = v[G_SPAN_END].view.buf;
    const double *AO = v[G_ADJ_OFFSET].view.buf;
    double *origin = v[G_ORIGIN].view.buf, *own_end = v[G_OWN_END].view.buf, *pen_end = v[G_PEN_END].view.buf;
    double *direction = v[G_DIRECTION].view.buf, *quad = v[G_QUAD].view.buf;
    double *height = v[G_HEIGHT].view.buf, *font_size = v[G_FONT_SIZE].view.buf;
    unsigned char *visible = v[G_VISIBLE].view.buf, *artifact = v[G_ARTIFACT].view.buf;
    int64_t *mcid = v[G_MCID].view.buf, *mcid_stream = v[G_MCID_STREAM].view.buf;
    int64_t *stream = v[G_STREAM].view.buf, *token = v[G_TOKEN].view.buf;
    int8_t *render = v[G_RENDER].view.buf, *wmode = v[G_WMODE].view.buf;
    int32_t *font = v[G_FONT].view.buf;
    for (Py_ssize_t k = 0; k < nadj; k++)
        if (AI[k] < 0 || AI[k] >= n || (k && AI[k] < AI[k - 1])) {
            PyErr_SetString(PyExc_IndexError, "adjustment index out of range or order");
            goto done;
        }
    for (Py_ssize_t k = 0; k < nspans; k++)
        if (SF[k] < 0 || SE[k] <= SF[k] || SE[k] > n) { PyErr_SetString(PyExc_IndexError, "span out of range"); goto done; }
    /* The spans' first glyphs, sorted and unique, and their box inputs. */
    Py_ssize_t nfirst = 0;
    if (nspans) {
        firsts = PyMem_Malloc(nspans * sizeof *firsts);
        kept = PyMem_Malloc(nspans * sizeof *kept);
        if (!firsts || !kept) { PyErr_NoMemory(); goto done; }
        memcpy(firsts, SF, nspans * sizeof *firsts);
        qsort(firsts, (size_t)nspans, sizeof *firsts, compare_int64);
        for (Py_ssize_t k = 0; k < nspans; k++)
            if (!nfirst || firsts[nfirst - 1] != firsts[k]) firsts[nfirst++] = firsts[k];
    }

    double run = 0.0;
    Py_ssize_t g = 0, a = 0, next_first = 0, total = 0;
    for (size_t f = 0; f < self->nframes; f++) {
        const double *fr = self->chunks[f / FRAME_CHUNK] + (f % FRAME_CHUNK) * F_FIELDS;
        Py_ssize_t count = (Py_ssize_t)fr[F_COUNT];
        total += count;
        if (count < 0 || total > n) { PyErr_SetString(PyExc_ValueError, "frames hold more glyphs than the page"); goto done; }
        /* Positions along each text line: one running sum over the page (§9.4.4). */
        double run_before_op = g > 0 ? run : 0.0;
        int vertical = fr[F_WMODE] == 1;
        double size = fr[F_SIZE], scale = fr[F_SCALE], tc = fr[F_CHAR_SPACING], tw = fr[F_WORD_SPACING];
        double ox = fr[F_OX], oy = fr[F_OY], ax = fr[F_AX], ay = fr[F_AY];
        /* Box, direction, visibility and the frame's own columns. */
        double bx = fr[F_BX], by = fr[F_BY], lo = fr[F_LO], hi = fr[F_HI];
        BoxFrame b = {lo * bx, lo * by, hi * bx, hi * by, 0, 0, 0, 0};
        double a_len = hypot(ax, ay), b_len = hypot(bx, by);
        double a_safe = nan_max(a_len, 1e-300);
        double dir_x = a_len > 0 ? ax / a_safe : 1.0, dir_y = a_len > 0 ? ay / a_safe : 0.0;
        double h = fabs(hi - lo) * b_len, fs = fabs(fr[F_SIZE]) * b_len;
        b.vx0 = nan_max(box[0], fr[F_CX0]); b.vx1 = nan_min(box[2], fr[F_CX1]);
        b.vy0 = nan_max(box[1], fr[F_CY0]); b.vy1 = nan_min(box[3], fr[F_CY1]);
        int64_t m = (int64_t)fr[F_MCID], ms = (int64_t)fr[F_MCID_STREAM], st = (int64_t)fr[F_STREAM];
        int64_t tk = (int64_t)fr[F_TOKEN];
        int8_t rm = (int8_t)(int64_t)fr[F_RENDER], wm = (int8_t)(int64_t)fr[F_WMODE];
        unsigned char art = fr[F_ARTIFACT] != 0;
        int32_t fi = (int32_t)(int64_t)fr[F_FONT];
        for (Py_ssize_t j = 0; j < count; j++, g++) {
            double spacing = tc + tw * (WS[g] ? 1.0 : 0.0);
            double own_length = vertical ? -VW[g] * size : W[g] * size * scale;
            double advance = vertical ? own_length - spacing : (W[g] * size + spacing) * scale;
            double before = 0.0;
            while (a < nadj && AI[a] < g) a++;
            for (Py_ssize_t k = a; k < nadj && AI[k] == g; k++) before += AO[k];
            double step = before + advance;
            run = g == 0 ? step : run + step;
            double start = run - advance - run_before_op;
            double own_along = start + own_length, pen_along = start + advance;
            origin[2 * g] = ox + start * ax; origin[2 * g + 1] = oy + start * ay;
            own_end[2 * g] = ox + own_along * ax; own_end[2 * g + 1] = oy + own_along * ay;
            pen_end[2 * g] = ox + pen_along * ax; pen_end[2 * g + 1] = oy + pen_along * ay;
            glyph_box(quad, visible, g, origin, own_end, &b);
            if (next_first < nfirst && firsts[next_first] == g) kept[next_first++] = b;
            direction[2 * g] = dir_x; direction[2 * g + 1] = dir_y;
            height[g] = h; font_size[g] = fs;
            mcid[g] = m; mcid_stream[g] = ms; stream[g] = st; token[g] = tk;
            render[g] = rm; wmode[g] = wm; artifact[g] = art; font[g] = fi;
        }
        if (f % FRAME_CHUNK == FRAME_CHUNK - 1 || f + 1 == self->nframes) {
            PyMem_Free(self->chunks[f / FRAME_CHUNK]);
            self->chunks[f / FRAME_CHUNK] = NULL;
        }
    }
    if (total != n) { PyErr_SetString(PyExc_ValueError, "frames hold fewer glyphs than the page"); goto done; }
    /* /ActualText: the span's first glyph stretches to the span's end (inner spans first). */
    for (Py_ssize_t k = 0; k < nspans; k++) {
        Py_ssize_t first = (Py_ssize_t)SF[k], last = (Py_ssize_t)SE[k] - 1;
        own_end[2 * first] = own_end[2 * last]; own_end[2 * first + 1] = own_end[2 * last + 1];
        pen_end[2 * first] = pen_end[2 * last]; pen_end[2 * first + 1] = pen_end[2 * last + 1];
    }
    for (Py_ssize_t k = 0; k < nfirst; k++) glyph_box(quad, visible, (Py_ssize_t)firsts[k], origin, own_end, &kept[k]);
    result = Py_None;
    Py_INCREF(result);
done:
    /* Read once: what is left of the frames goes too. */
    free_chunks(self);
    self->nframes = 0;
    PyMem_Free(firsts);
    PyMem_Free(kept);
    for (int i = 0; i < G_COUNT; i++) release(&v[i]);
    return result;
}


/* The box of the glyphs at O[start:end] (start < end; rows of the quads Q,
 * 8 doubles each), unrounded, into box (x0, y0, x1, y1), and whether a NaN
 * is on either axis. np.minimum / np.maximum over the corners (nan_min,
 * nan_max): plain comparisons keep the earlier value on ties, as they do,
 * and a NaN anywhere on an axis makes both of its bounds NaN (box_tuple), as
 * it does. */
static void runs_box(const double *Q, const int64_t *O, Py_ssize_t start, Py_ssize_t end, double box[4], int nan[2]) {
    const double *first = Q + 8 * O[start];
    box[0] = box[2] = first[0];
    box[1] = box[3] = first[1];
    nan[0] = first[0] != first[0];
    nan[1] = first[1] != first[1];
    for (Py_ssize_t k = start; k < end; k++) {
        const double *q = Q + 8 * O[k];
        for (int c = k == start ? 1 : 0; c < 4; c++) {
            double x = q[2 * c], y = q[2 * c + 1];
            nan[0] |= x != x;
            nan[1] |= y != y;
            box[0] = x < box[0] ? x : box[0];
            box[1] = y < box[1] ? y : box[1];
            box[2] = x > box[2] ? x : box[2];
            box[3] = y > box[3] ? y : box[3];
        }
    }
}

/* An unrounded box (runs_box) as the tuple (x0, y0, x1, y1), rounded as
 * np.round(v, 3) rounds (rint(v * 1000) / 1000); NULL with an exception set. */
static PyObject *box_tuple(double box[4], const int nan[2]) {
    if (nan[0]) box[0] = box[2] = NAN;
    if (nan[1]) box[1] = box[3] = NAN;
    PyObject *item = PyTuple_New(4);
    for (int c = 0; item && c < 4; c++) {
        PyObject *v = PyFloat_FromDouble(rint(box[c] * 1000.0) / 1000.0);
        if (!v) Py_CLEAR(item);
        else PyTuple_SET_ITEM(item, c, v);
    }
    return item;
}

/* The box of the glyphs at O[start:end] as a tuple (runs_box, box_tuple). */
static PyObject *run_box(const double *Q, const int64_t *O, Py_ssize_t start, Py_ssize_t end) {
    double box[4];
    int nan[2];
    runs_box(Q, O, start, end, box, nan);
    return box_tuple(box, nan);
}

/* The views of run_boxes' arguments checked: every order index a row of the
 * quads, the starts strictly increasing positions of order. 0, or -1 with an
 * exception set. */
static int run_views_check(const View *vq, const View *vo, const View *const *starts, int sets) {
    Py_ssize_t rows = vq->view.len / 64, n = vo->view.len / 8;
    const int64_t *O = vo->view.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (O[k] < 0 || O[k] >= rows) { PyErr_SetString(PyExc_IndexError, "order index out of range"); return -1; }
    for (int s = 0; s < sets; s++) {
        const int64_t *S = starts[s]->view.buf;
        for (Py_ssize_t r = 0, runs = starts[s]->view.len / 8; r < runs; r++)
            if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) { PyErr_SetString(PyExc_ValueError, "bad run starts"); return -1; }
    }
    return 0;
}

/* run_boxes(quad, order, starts) -> list of [x0, y0, x1, y1]: the bounding
 * box of each run of emitted glyphs (blocks._run_boxes), rounded as
 * np.round(v, 3) rounds (rint(v * 1000) / 1000). */
static PyObject *core_run_boxes(PyObject *mod, PyObject *args) {
    PyObject *quad_obj, *order_obj, *starts_obj;
    if (!PyArg_ParseTuple(args, "OOO", &quad_obj, &order_obj, &starts_obj)) return NULL;
    View vq = {0}, vo = {0}, vs = {0};
    const View *sets[1] = {&vs};
    PyObject *out = NULL;
    if (get_view(quad_obj, &vq, "d", 8, "quad") < 0 || get_view(order_obj, &vo, "l", 8, "order") < 0 ||
        get_view(starts_obj, &vs, "l", 8, "starts") < 0 || run_views_check(&vq, &vo, sets, 1) < 0)
        goto done;
    Py_ssize_t n = vo.view.len / 8, runs = vs.view.len / 8;
    const double *Q = vq.view.buf;
    const int64_t *O = vo.view.buf, *S = vs.view.buf;
    out = PyList_New(runs);
    if (!out) goto done;
    for (Py_ssize_t r = 0; r < runs; r++) {
        PyObject *item = run_box(Q, O, (Py_ssize_t)S[r], r + 1 < runs ? (Py_ssize_t)S[r + 1] : n);
        if (!item) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, r, item);
    }
done:
    release(&vq); release(&vo); release(&vs);
    return out;
}

/* Boxes made already (boxes_of_pieces), of the runs starting at S (`runs`
 * of them over n glyphs): a run of another set that is one of them (the same
 * first and last glyph: the same pieces, the same box) takes its tuple, not
 * an equal one of its own. A page's one-line blocks and their lines: a
 * structure reading's blocks are mostly one line each. */
typedef struct { const int64_t *S; Py_ssize_t runs, n; PyObject *boxes; } SameRuns;

/* The position of run [start, end) among `same`'s runs (from *at on, the
 * runs asked for in ascending order), -1 when none is it. */
static Py_ssize_t same_run(const SameRuns *same, Py_ssize_t *at, int64_t start, int64_t end) {
    while (*at < same->runs && same->S[*at] < start) (*at)++;
    if (*at >= same->runs || same->S[*at] != start) return -1;
    int64_t its_end = *at + 1 < same->runs ? same->S[*at + 1] : (int64_t)same->n;
    return its_end == end ? *at : -1;
}

/* The boxes of one set of runs (starts S, `runs` of them) from the pieces'
 * unrounded boxes (piece p begins at P[p]; `pieces` of them, every start of S
 * among P): a run's box is the least and greatest of its pieces' bounds in
 * order, an earlier bound kept on ties (the glyphs' own order, as runs_box
 * keeps it), a NaN on an axis of any piece a NaN on that axis of the run.
 * A run that is one of `same`'s (NULL: none) takes its tuple. */
static PyObject *boxes_of_pieces(const int64_t *S, Py_ssize_t runs, const int64_t *P, Py_ssize_t pieces,
                                 const double *box, const unsigned char *nan, const SameRuns *same) {
    PyObject *out = PyList_New(runs);
    Py_ssize_t at = 0;
    for (Py_ssize_t r = 0, p = 0; out && r < runs; r++) {
        while (P[p] < S[r]) p++;
        Py_ssize_t k = same ? same_run(same, &at, S[r], r + 1 < runs ? S[r + 1] : (int64_t)same->n) : -1;
        if (k >= 0) {
            PyList_SET_ITEM(out, r, Py_NewRef(PyList_GET_ITEM(same->boxes, k)));
            continue;
        }
        double b[4] = {box[4 * p], box[4 * p + 1], box[4 * p + 2], box[4 * p + 3]};
        int flags[2] = {nan[2 * p], nan[2 * p + 1]};
        for (p++; p < pieces && (r + 1 == runs || P[p] < S[r + 1]); p++) {
            const double *q = box + 4 * p;
            b[0] = q[0] < b[0] ? q[0] : b[0];
            b[1] = q[1] < b[1] ? q[1] : b[1];
            b[2] = q[2] > b[2] ? q[2] : b[2];
            b[3] = q[3] > b[3] ? q[3] : b[3];
            flags[0] |= nan[2 * p];
            flags[1] |= nan[2 * p + 1];
        }
        PyObject *item = box_tuple(b, flags);
        if (!item) Py_CLEAR(out);
        else PyList_SET_ITEM(out, r, item);
    }
    return out;
}

/* run_boxes_two(quad, order, starts, other_starts) -> (boxes, other_boxes):
 * run_boxes of both sets of runs over the same emitted glyphs (a page's
 * blocks and its lines), each glyph's corners read once: the glyphs are cut
 * at the starts of either set into pieces, each piece's box taken unrounded
 * (runs_box), and each run's box made from its pieces' (boxes_of_pieces).
 * Rounding is monotone, so the least of the rounded bounds is the rounding
 * of the least: the boxes are run_boxes' own. Both sets begin at 0. */
static PyObject *core_run_boxes_two(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *quad_obj, *order_obj, *starts_obj, *other_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &quad_obj, &order_obj, &starts_obj, &other_obj)) return NULL;
    View vq = {0}, vo = {0}, va = {0}, vb = {0};
    const View *sets[2] = {&va, &vb};
    PyObject *a = NULL, *b = NULL, *out = NULL;
    int64_t *P = NULL;
    double *box = NULL;
    unsigned char *nan = NULL;
    if (get_view(quad_obj, &vq, "d", 8, "quad") < 0 || get_view(order_obj, &vo, "l", 8, "order") < 0 ||
        get_view(starts_obj, &va, "l", 8, "starts") < 0 || get_view(other_obj, &vb, "l", 8, "other_starts") < 0 ||
        run_views_check(&vq, &vo, sets, 2) < 0)
        goto done;
    Py_ssize_t n = vo.view.len / 8, na = va.view.len / 8, nb = vb.view.len / 8;
    const int64_t *SA = va.view.buf, *SB = vb.view.buf;
    if ((na && SA[0] != 0) || (nb && SB[0] != 0) || (!na != !nb) || (!n && na)) {
        PyErr_SetString(PyExc_ValueError, "bad run starts");
        goto done;
    }
    P = PyMem_Malloc(sizeof(int64_t) * (size_t)(na + nb + 1));
    box = PyMem_Malloc(sizeof(double) * 4 * (size_t)(na + nb + 1));
    nan = PyMem_Malloc(2 * (size_t)(na + nb + 1));
    if (!P || !box || !nan) { PyErr_NoMemory(); goto done; }
    Py_ssize_t pieces = 0;
    for (Py_ssize_t i = 0, j = 0; i < na || j < nb;) { /* the union of both sets' starts, ascending */
        int64_t next = j >= nb || (i < na && SA[i] <= SB[j]) ? SA[i] : SB[j];
        i += i < na && SA[i] == next;
        j += j < nb && SB[j] == next;
        P[pieces++] = next;
    }
    const double *Q = vq.view.buf;
    const int64_t *O = vo.view.buf;
    for (Py_ssize_t p = 0; p < pieces; p++) {
        int flags[2];
        runs_box(Q, O, (Py_ssize_t)P[p], p + 1 < pieces ? (Py_ssize_t)P[p + 1] : n, box + 4 * p, flags);
        nan[2 * p] = (unsigned char)flags[0];
        nan[2 * p + 1] = (unsigned char)flags[1];
    }
    if ((a = boxes_of_pieces(SA, na, P, pieces, box, nan, NULL))) {
        SameRuns same = {SA, na, n, a};
        if ((b = boxes_of_pieces(SB, nb, P, pieces, box, nan, &same))) out = PyTuple_Pack(2, a, b);
    }
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    PyMem_Free(P);
    PyMem_Free(box);
    PyMem_Free(nan);
    release(&vq); release(&vo); release(&va); release(&vb);
    return out;
}


/* text[start:end] for a str, by the slice's own rules (bounds clamped, an
 * end before the start empty, a negative bound from the end). New reference
 * or NULL. */
static PyObject *str_slice(PyObject *text, int64_t start, int64_t end) {
    if (start >= 0 && end >= 0) /* PyUnicode_Substring clamps as a slice does */
        return PyUnicode_Substring(text, (Py_ssize_t)Py_MIN(start, PY_SSIZE_T_MAX), (Py_ssize_t)Py_MIN(end, PY_SSIZE_T_MAX));
    PyObject *a = PyLong_FromLongLong(start), *b = a ? PyLong_FromLongLong(end) : NULL;
    PyObject *slice = b ? PySlice_New(a, b, NULL) : NULL, *out = slice ? PyObject_GetItem(text, slice) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(slice);
    return out;
}

/* The end (one past the last position) of run r of the `runs` starting at S over n positions. */
static int64_t run_end(const int64_t *S, Py_ssize_t runs, Py_ssize_t n, Py_ssize_t r) {
    return r + 1 < runs ? S[r + 1] : (int64_t)n;
}

/* run_spans_two's runs of `starts` (A): per run its text, text[CS[first]:CE[last]], and those two ints. */
static int spans_of_runs(PyObject *text, const int64_t *CS, const int64_t *CE, Py_ssize_t n, const int64_t *S,
                         Py_ssize_t runs, PyObject *texts, PyObject *firsts, PyObject *lasts) {
    for (Py_ssize_t r = 0; r < runs; r++) {
        int64_t first = CS[S[r]], last = CE[run_end(S, runs, n, r) - 1];
        PyObject *t = str_slice(text, first, last), *a = PyLong_FromLongLong(first), *b = PyLong_FromLongLong(last);
        if (t) PyList_SET_ITEM(texts, r, t);
        if (a) PyList_SET_ITEM(firsts, r, a);
        if (b) PyList_SET_ITEM(lasts, r, b);
        if (!t || !a || !b) return -1;
    }
    return 0;
}

/* run_spans_two's runs of `other_starts` (B): per run its two ints, those
 * of a run of A that starts (ends) at the same position taken: the same value. */
static int spans_sharing(const int64_t *CS, const int64_t *CE, Py_ssize_t n, const int64_t *SA, Py_ssize_t na,
                         PyObject *a_firsts, PyObject *a_lasts, const int64_t *SB, Py_ssize_t nb, PyObject *firsts,
                         PyObject *lasts) {
    for (Py_ssize_t r = 0, i = 0, j = 0; r < nb; r++) {
        int64_t start = SB[r], end = run_end(SB, nb, n, r);
        while (i < na && SA[i] < start) i++;
        while (j < na && run_end(SA, na, n, j) < end) j++;
        PyObject *a = i < na && SA[i] == start ? Py_NewRef(PyList_GET_ITEM(a_firsts, i)) : PyLong_FromLongLong(CS[start]);
        PyObject *b = j < na && run_end(SA, na, n, j) == end ? Py_NewRef(PyList_GET_ITEM(a_lasts, j))
                                                              : PyLong_FromLongLong(CE[end - 1]);
        if (a) PyList_SET_ITEM(firsts, r, a);
        if (b) PyList_SET_ITEM(lasts, r, b);
        if (!a || !b) return -1;
    }
    return 0;
}

/* run_spans_two(text, char_start, char_end, starts, other_starts) ->
 * (texts, firsts, lasts, other_firsts, other_lasts): blocks.run_spans_two,
 * the spans of two sets of runs of one joined text (a page's blocks and its
 * lines). Run r of a set covers positions S[r] up to the next start (the
 * last up to n, the arrays' length); its span is char_start at its first
 * position to char_end at its last. Per run of `starts` its text (the slice)
 * and span; per run of `other_starts` its span, the ints of a run of
 * `starts` that begins (ends) at its position taken rather than equal ones
 * made again: a page's one-line blocks and their lines share them. Each set
 * strictly increasing positions of the arrays. */
static PyObject *core_run_spans_two(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *text, *o[4];
    if (!PyArg_ParseTuple(args, "UOOOO", &text, &o[0], &o[1], &o[2], &o[3])) return NULL;
    View v[4] = {{0}};
    static const char *const names[4] = {"char_start", "char_end", "starts", "other_starts"};
    PyObject *lists[5] = {NULL}, *out = NULL;
    for (int i = 0; i < 4; i++)
        if (get_view(o[i], &v[i], "l", 8, names[i]) < 0) goto done;
    Py_ssize_t n = v[0].view.len / 8, na = v[2].view.len / 8, nb = v[3].view.len / 8;
    if (v[1].view.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "run_spans_two: char_start and char_end of different lengths");
        goto done;
    }
    const int64_t *CS = v[0].view.buf, *CE = v[1].view.buf, *SA = v[2].view.buf, *SB = v[3].view.buf;
    for (int set = 2; set < 4; set++) {
        const int64_t *S = v[set].view.buf;
        for (Py_ssize_t r = 0, runs = v[set].view.len / 8; r < runs; r++)
            if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) {
                PyErr_SetString(PyExc_ValueError, "bad run starts");
                goto done;
            }
    }
    for (int i = 0; i < 5; i++)
        if (!(lists[i] = PyList_New(i < 3 ? na : nb))) goto done;
    if (spans_of_runs(text, CS, CE, n, SA, na, lists[0], lists[1], lists[2]) < 0 ||
        spans_sharing(CS, CE, n, SA, na, lists[1], lists[2], SB, nb, lists[3], lists[4]) < 0)
        goto done;
    out = PyTuple_Pack(5, lists[0], lists[1], lists[2], lists[3], lists[4]);
done:
    for (int i = 0; i < 5; i++) Py_XDECREF(lists[i]);
    for (int i = 0; i < 4; i++) release(&v[i]);
    return out;
}

/* run_mcids(mcids, starts) -> list of tuples: blocks.run_mcids in one pass.
 * `mcids` are the emitted glyphs' MCIDs in order, `starts` the strictly
 * increasing positions where runs begin (each run ends where the next
 * begins, the last at the end). Per run: its distinct MCIDs other than
 * NO_MCID (-1), in the order they first occur. A run's MCIDs seen so far
 * are kept in an open-addressing set sized to the run and cleared over
 * that size only: time linear in the glyphs and runs, whatever the MCIDs. */
#define RUN_NO_MCID ((int64_t)-1)

static size_t run_set_size(Py_ssize_t length, int *bits) {
    size_t size = 8;
    *bits = 3;
    while (size < 2 * (size_t)length) { size <<= 1; (*bits)++; }
    return size;
}

/* The distinct MCIDs of M[start:end] in first-occurrence order into `found`; their count. */
static Py_ssize_t run_distinct(const int64_t *M, Py_ssize_t start, Py_ssize_t end, int64_t *set, int64_t *found) {
    int bits;
    size_t size = run_set_size(end - start, &bits);
    for (size_t i = 0; i < size; i++) set[i] = RUN_NO_MCID;
    Py_ssize_t count = 0;
    int64_t last = RUN_NO_MCID;
    for (Py_ssize_t k = start; k < end; k++) {
        int64_t m = M[k];
        if (m == RUN_NO_MCID || m == last) continue; /* a sequence's glyphs come one after another */
        last = m;
        size_t h = (size_t)(((uint64_t)m * 0x9E3779B97F4A7C15ull) >> (64 - bits));
        while (set[h] != RUN_NO_MCID && set[h] != m) h = (h + 1) & (size - 1);
        if (set[h] == m) continue;
        set[h] = m;
        found[count++] = m;
    }
    return count;
}

/* found[0:count] as a tuple of ints; NULL with an exception set. */
static PyObject *int_tuple(const int64_t *found, Py_ssize_t count) {
    PyObject *item = PyTuple_New(count);
    for (Py_ssize_t k = 0; item && k < count; k++) {
        PyObject *v = PyLong_FromLongLong((long long)found[k]);
        if (!v) Py_CLEAR(item);
        else PyTuple_SET_ITEM(item, k, v);
    }
    return item;
}

static PyObject *core_run_mcids(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *mcids_obj, *starts_obj;
    if (!PyArg_ParseTuple(args, "OO", &mcids_obj, &starts_obj)) return NULL;
    View vm = {0}, vs = {0};
    int64_t *set = NULL, *found = NULL;
    PyObject *out = NULL;
    if (get_view(mcids_obj, &vm, "l", 8, "mcids") < 0 || get_view(starts_obj, &vs, "l", 8, "starts") < 0) goto done;
    Py_ssize_t n = vm.view.len / 8, runs = vs.view.len / 8, longest = 0;
    const int64_t *M = vm.view.buf, *S = vs.view.buf;
    for (Py_ssize_t r = 0; r < runs; r++)
        if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) { PyErr_SetString(PyExc_ValueError, "run_mcids: bad run starts"); goto done; }
    for (Py_ssize_t r = 0; r < runs; r++) {
        Py_ssize_t length = (r + 1 < runs ? (Py_ssize_t)S[r + 1] : n) - (Py_ssize_t)S[r];
        longest = length > longest ? length : longest;
    }
    int bits;
    set = PyMem_Malloc(run_set_size(longest, &bits) * sizeof(int64_t));
    found = PyMem_Malloc(((size_t)longest + 1) * sizeof(int64_t));
    if (!set || !found) { PyErr_NoMemory(); goto done; }
    out = PyList_New(runs);
    if (!out) goto done;
    for (Py_ssize_t r = 0; r < runs; r++) {
        Py_ssize_t count = run_distinct(M, (Py_ssize_t)S[r], r + 1 < runs ? (Py_ssize_t)S[r + 1] : n, set, found);
        PyObject *item = int_tuple(found, count);
        if (!item) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, r, item);
    }
done:
    PyMem_Free(set);
    PyMem_Free(found);
    release(&vm); release(&vs);
    return out;
}


/* A value that can hold no reference cycle: None, bool, int, float, str, or
 * a tuple of those (CPython untracks such tuples and dicts itself). */
static int acyclic_value(PyObject *v) {
    if (v == Py_None || PyLong_CheckExact(v) || PyFloat_CheckExact(v) || PyUnicode_CheckExact(v) || PyBool_Check(v))
        return 1;
    if (!PyTuple_CheckExact(v)) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++) {
        PyObject *item = PyTuple_GET_ITEM(v, i);
        if (!(item == Py_None || PyLong_CheckExact(item) || PyFloat_CheckExact(item) || PyUnicode_CheckExact(item)))
            return 0;
    }
    return 1;
}

/* The cyclic collector leaves alone a tuple of plain values (acyclic_value):
 * CPython untracks such a tuple itself, but only when a collection has
 * walked it once. The tuples a document's results hold by the ten thousand
 * (struct paths, object references, page keys) are untracked when they are
 * made, so that the first collection after a page does not walk them all. */
static void untrack_tuple(PyObject *v) {
    if (PyTuple_CheckExact(v) && PyObject_GC_IsTracked(v)) PyObject_GC_UnTrack(v);
}

/* A frozen row of acyclic values and the tuples among its values, untracked. */
static void untrack_row(PyObject *row, PyObject *columns, Py_ssize_t k) {
    PyObject_GC_UnTrack(row);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(columns); i++)
        untrack_tuple(PyList_GET_ITEM(PyTuple_GET_ITEM(columns, i), k));
}

static void member_offsets(PyTypeObject *type, PyObject *const *names, Py_ssize_t n, Py_ssize_t *out);

/* A frozen row of `cls`, a class whose n fields are slots (their offsets
 * `slots`, member_offsets), holding `values` (borrowed), made as the
 * dataclass's own __init__ would set them (object.__setattr__ stores each in
 * its slot); a row of acyclic values, and the tuples among them, untracked
 * (untrack_tuple). `empty`: the empty tuple tp_new takes. New reference or NULL. */
static PyObject *slotted_row(PyTypeObject *cls, PyObject *empty, const Py_ssize_t *slots, PyObject *const *values,
                             Py_ssize_t n) {
    PyObject *row = PyBaseObject_Type.tp_new(cls, empty, NULL);
    if (!row) return NULL;
    int acyclic = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        acyclic = acyclic && acyclic_value(values[i]);
        PyObject **slot = (PyObject **)((char *)row + slots[i]);
        Py_XSETREF(*slot, Py_NewRef(values[i]));
    }
    /* A frozen row of such values can never be part of a cycle: the cyclic
     * collector need not walk a page's lines, blocks and cells again at
     * every collection while the document's results are held. */
    if (acyclic) {
        PyObject_GC_UnTrack(row);
        for (Py_ssize_t i = 0; i < n; i++) untrack_tuple(values[i]);
    }
    return row;
}

/* What a column of frozen_rows holds (column_kind): every value acyclic
 * (acyclic_value), and some a tuple. */
enum { COLUMN_ACYCLIC = 1, COLUMN_TUPLES = 2 };

/* None, int, float or str: what acyclic_value takes inside a tuple. */
static inline int plain_atom(PyObject *v) {
    PyTypeObject *type = Py_TYPE(v);
    return type == &PyUnicode_Type || type == &PyLong_Type || type == &PyFloat_Type || v == Py_None;
}

/* column_kind's flags of a list of values: acyclic_value of each, in one
 * tight loop (a value repeated from the one before checked once: a label
 * column holds a few values many times), not a call per field of every row. */
static int column_kind(PyObject *column) {
    PyObject *const *items = ((PyListObject *)column)->ob_item, *previous = NULL;
    int kind = COLUMN_ACYCLIC;
    for (Py_ssize_t k = 0, n = PyList_GET_SIZE(column); k < n; k++) {
        PyObject *v = items[k];
        if (v == previous || plain_atom(v)) continue;
        previous = v;
        if (PyTuple_CheckExact(v)) {
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++)
                if (!plain_atom(PyTuple_GET_ITEM(v, i))) return 0;
            kind |= COLUMN_TUPLES;
        } else if (!PyBool_Check(v)) {
            return 0;
        }
    }
    return kind;
}

/* The columns of a frozen_rows call all acyclic (column_kind): the tuples
 * among their values untracked, column by column, and 1; else 0 (each row is
 * then checked as slotted_row checks it). */
static int untracked_columns(PyObject *columns) {
    Py_ssize_t nfields = PyTuple_GET_SIZE(columns);
    int kinds[64];
    if (nfields > 64) return 0;
    for (Py_ssize_t i = 0; i < nfields; i++)
        if (!((kinds[i] = column_kind(PyTuple_GET_ITEM(columns, i))) & COLUMN_ACYCLIC)) return 0;
    for (Py_ssize_t i = 0; i < nfields; i++) {
        PyObject *column = PyTuple_GET_ITEM(columns, i);
        if (kinds[i] & COLUMN_TUPLES)
            for (Py_ssize_t k = 0; k < PyList_GET_SIZE(column); k++) untrack_tuple(PyList_GET_ITEM(column, k));
    }
    return 1;
}

/* A frozen row of `cls` (slots at `slots`) holding `values`, known acyclic
 * with its tuples untracked (untracked_columns): slotted_row with no check. */
static PyObject *plain_slotted_row(PyTypeObject *cls, PyObject *empty, const Py_ssize_t *slots,
                                   PyObject *const *values, Py_ssize_t n) {
    PyObject *row = PyBaseObject_Type.tp_new(cls, empty, NULL);
    if (!row) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject **slot = (PyObject **)((char *)row + slots[i]);
        Py_XSETREF(*slot, Py_NewRef(values[i]));
    }
    PyObject_GC_UnTrack(row);
    return row;
}

/* frozen_rows(cls, fields, columns): rows.frozen_instance for every row of
 * the columns (one list per field, all of one length), as a tuple: row k is
 * an instance of `cls` whose __dict__ is {fields[i]: columns[i][k]}, in field
 * order. The lines and blocks of every page are built so, without a Python
 * call and a dict per row. */
static PyObject *core_frozen_rows(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *cls, *fields, *columns;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &cls, &PyTuple_Type, &fields, &PyTuple_Type, &columns))
        return NULL;
    Py_ssize_t nfields = PyTuple_GET_SIZE(fields), n = 0;
    if (PyTuple_GET_SIZE(columns) != nfields) {
        PyErr_SetString(PyExc_ValueError, "frozen_rows: one column per field");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nfields; i++) {
        PyObject *column = PyTuple_GET_ITEM(columns, i);
        if (!PyUnicode_Check(PyTuple_GET_ITEM(fields, i)) || !PyList_Check(column) ||
            (i && PyList_GET_SIZE(column) != n)) {
            PyErr_SetString(PyExc_ValueError, "frozen_rows: fields are names, columns lists of one length");
            return NULL;
        }
        n = PyList_GET_SIZE(column);
    }
    Py_ssize_t *slots = PyMem_Malloc((size_t)(nfields ? nfields : 1) * sizeof(Py_ssize_t));
    PyObject **values = PyMem_Malloc((size_t)(nfields ? nfields : 1) * sizeof(PyObject *));
    if (!slots || !values) {
        PyMem_Free(slots);
        PyMem_Free(values);
        return PyErr_NoMemory();
    }
    slots[0] = -1;
    if (nfields) member_offsets((PyTypeObject *)cls, &PyTuple_GET_ITEM(fields, 0), nfields, slots);
    PyObject *empty = PyTuple_New(0), *out = empty ? PyTuple_New(n) : NULL;
    /* A class with slots whose columns are all acyclic: checked column by column, not row by row. */
    int plain = slots[0] > 0 && untracked_columns(columns);
    for (Py_ssize_t k = 0; out && k < n; k++) {
        PyObject *row;
        if (slots[0] > 0) { /* a class with slots: each field stored in its slot (slotted_row) */
            for (Py_ssize_t i = 0; i < nfields; i++) values[i] = PyList_GET_ITEM(PyTuple_GET_ITEM(columns, i), k);
            row = (plain ? plain_slotted_row : slotted_row)((PyTypeObject *)cls, empty, slots, values, nfields);
        } else {
            row = PyBaseObject_Type.tp_new((PyTypeObject *)cls, empty, NULL);
            int failed = !row, acyclic = 1;
            /* object.__setattr__, as a frozen dataclass's own __init__ sets its
             * fields: the instance keeps the class's shared keys, no dict per row. */
            for (Py_ssize_t i = 0; !failed && i < nfields; i++) {
                PyObject *value = PyList_GET_ITEM(PyTuple_GET_ITEM(columns, i), k);
                acyclic = acyclic && acyclic_value(value);
                failed = PyObject_GenericSetAttr(row, PyTuple_GET_ITEM(fields, i), value) < 0;
            }
            /* as slotted_row: a row of acyclic values left alone by the collector */
            if (!failed && acyclic) untrack_row(row, columns, k);
            if (failed) Py_CLEAR(row);
        }
        if (!row) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, k, row);
    }
    PyMem_Free(slots);
    PyMem_Free(values);
    Py_XDECREF(empty);
    return out;
}

/* ---- plain objects: what the structure tree walker reads --------------- */

/* parse_object(data) -> one PDF object (§7.3) as qpdf unparses it, in plain
 * Python values: dict (keys are names as "/Key"; a null value is an absent
 * key, §7.3.7), list, int, float, bool, None, str for a name ("/Name", as
 * pikepdf spells it), bytes for a string, and (number, generation) for an
 * indirect reference "N G R" (§7.3.10). extract/structure_objects.py reads
 * the structure tree (§14.7) through it: one unparse per object instead of
 * one pikepdf object per key and value. Containers nest through an explicit
 * stack (no recursion on input depth); anything that is not exactly one
 * well-formed object raises ValueError.
 *
 * parse_object(data, known, check): the same for bytes read from the file
 * (an object stream, §7.5.7) rather than unparsed by qpdf. A reference to a
 * missing object is null (§7.3.10): its dictionary key is absent (§7.3.7),
 * an array item None, as in qpdf's unparse. An object exists when `known`
 * (a set of (number, generation)) holds it or `check(ref)` is true. */
typedef struct { PyObject *container, *key; } ParseFrame;

/* Names met before, by their bytes: a structure tree spells the same few
 * dozen names (/S, /K, /Pg, /P, /TD...) hundreds of thousands of times. A
 * direct-mapped cache of interned str: a name is decoded once, and a dict
 * keyed by it matches the walker's own interned keys by identity. */
#define NAME_SLOTS 1024
#define NAME_MAX_CACHED 32
static struct { Py_ssize_t len; unsigned char bytes[NAME_MAX_CACHED]; PyObject *str; } name_cache[NAME_SLOTS];

static size_t name_slot(const unsigned char *p, Py_ssize_t len) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < len; i++) h = (h ^ p[i]) * 16777619u;
    return h % NAME_SLOTS;
}

/* A name with its slash: core_parse_object writes the slash just before
 * the bytes of every token. */
static PyObject *plain_name(const Buf *b, const Operand *o) {
    const unsigned char *p = (const unsigned char *)b->data + o->off - 1;
    Py_ssize_t len = (Py_ssize_t)o->len + 1;
    if (len > NAME_MAX_CACHED) return PyUnicode_DecodeUTF8((const char *)p, len, "surrogateescape");
    size_t slot = name_slot(p, len);
    if (name_cache[slot].str && name_cache[slot].len == len && memcmp(name_cache[slot].bytes, p, (size_t)len) == 0)
        return Py_NewRef(name_cache[slot].str);
    PyObject *name = PyUnicode_DecodeUTF8((const char *)p, len, "surrogateescape");
    if (!name) return NULL;
    PyUnicode_InternInPlace(&name);
    Py_XSETREF(name_cache[slot].str, Py_NewRef(name));
    name_cache[slot].len = len;
    memcpy(name_cache[slot].bytes, p, (size_t)len);
    return name;
}

/* An integer token's exact value: parse_number has checked that it is
 * [+-]digits within 64 bits (it only keeps the double). */
static inline __attribute__((always_inline)) long long token_int(const unsigned char *s, const unsigned char *end) {
    int neg = 0;
    if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
    unsigned long long v = 0;
    for (; s < end; s++) v = v * 10 + (unsigned)(*s - '0');
    if (!neg) return (long long)v;
    return v > (unsigned long long)LLONG_MAX ? LLONG_MIN : -(long long)v;
}

/* After an integer token: "G R" makes it a reference, and the lexer is left
 * after the R; otherwise it stays where it was. 1: a reference. */
static int reference_follows(Lexer *lx, long long *gen) {
    const unsigned char *saved = lx->p;
    Token t;
    if (next_token(lx, &t, NULL) == K_OBJECT && t.obj.type == T_INT && t.obj.num >= 0 && t.obj.num <= 65535.0) {
        *gen = (long long)t.obj.num;
        if (next_token(lx, &t, NULL) == K_KEYWORD && t.word_len == 1 && t.word[0] == 'R') return 1;
    }
    lx->p = saved;
    return 0;
}

/* (number, generation), a tuple of two ints: no cycle through it, so it is
 * untracked (see untrack_tuple). Built without Py_BuildValue's format
 * parsing: a structure tree holds references by the ten thousand. */
static PyObject *plain_ref(long long number, long long gen) {
    PyObject *n = PyLong_FromLongLong(number), *g = n ? PyLong_FromLongLong(gen) : NULL;
    PyObject *ref = g ? PyTuple_New(2) : NULL;
    if (!ref) {
        Py_XDECREF(n);
        Py_XDECREF(g);
        return NULL;
    }
    PyTuple_SET_ITEM(ref, 0, n);
    PyTuple_SET_ITEM(ref, 1, g);
    untrack_tuple(ref);
    return ref;
}

/* Reference (number, gen), item `number` of `cache` (parse_objects' refs:
 * a list of None and of the references it put there) for generation 0 when
 * the list reaches that far: one tuple per object referred to, however often
 * (the /P of siblings, the /Pg of a page's elements), made once a document. */
static PyObject *cached_ref(PyObject *cache, long long number, long long gen) {
    if (!cache || gen != 0 || number >= (long long)PyList_GET_SIZE(cache)) return plain_ref(number, gen);
    PyObject *held = PyList_GET_ITEM(cache, (Py_ssize_t)number);
    if (PyTuple_CheckExact(held)) return Py_NewRef(held);
    PyObject *ref = plain_ref(number, gen);
    /* Allocating may have run a finalizer: the list's length is read again. */
    if (ref && number < (long long)PyList_GET_SIZE(cache)) PyList_SetItem(cache, (Py_ssize_t)number, Py_NewRef(ref));
    return ref;
}

/* The value of an object token that ran from `start` to `end`; references
 * come from `cache` (cached_ref, NULL for none). */
static PyObject *plain_value(Lexer *lx, const Token *t, const Buf *bytes, const unsigned char *start,
                             const unsigned char *end, PyObject *cache) {
    long long number, gen = 0;
    switch (t->obj.type) {
    case T_INT:
        number = token_int(start, end);
        if (number >= 0 && reference_follows(lx, &gen)) return cached_ref(cache, number, gen);
        return PyLong_FromLongLong(number);
    case T_REAL: return PyFloat_FromDouble(t->obj.num);
    case T_BOOL: return PyBool_FromLong(t->obj.num != 0.0);
    case T_STR: return PyBytes_FromStringAndSize(bytes->data + t->obj.off, (Py_ssize_t)t->obj.len);
    case T_NAME: return plain_name(bytes, &t->obj);
    default: Py_RETURN_NONE;
    }
}

static int malformed(const char *why) {
    PyErr_Format(PyExc_ValueError, "not one well-formed PDF object: %s", why);
    return -1;
}

/* Put `value` (a new reference, stolen) where the innermost open container
 * wants it, or make it the result at the top level. */
/* Which objects exist, for references (parse_object's known and check). */
typedef struct {
    PyObject *known, *check; /* NULL known: every reference stands */
    int unchecked;           /* set when a reference was neither known nor checked (check NULL) */
    /* Objects (n, 0) known to exist as a bitmap, bit n of byte n / 8 (least
     * significant first), a subset of `known` looked up without hashing a
     * tuple; NULL when not given. */
    const unsigned char *present;
    Py_ssize_t present_bytes;
} Existing;

/* Is reference `ref` (a tuple of two ints) marked in the bitmap? */
static int marked_present(PyObject *ref, const Existing *refs) {
    if (!refs->present || PyTuple_GET_SIZE(ref) != 2) return 0;
    PyObject *number = PyTuple_GET_ITEM(ref, 0), *gen = PyTuple_GET_ITEM(ref, 1);
    if (!PyLong_CheckExact(number) || !PyLong_CheckExact(gen)) return 0;
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(number, &overflow), g = overflow ? -1 : PyLong_AsLongLongAndOverflow(gen, &overflow);
    if (overflow || n < 0 || g != 0 || n / 8 >= (long long)refs->present_bytes) return 0;
    return (refs->present[n / 8] >> (n % 8)) & 1;
}

/* Is `value` a reference "N G R" to a missing object? Not when `known` (a
 * set) holds it; otherwise `check(ref)` says whether it exists, and a ref
 * that does joins `known`, so each is asked once. -1 on error. */
static int dangling(PyObject *value, Existing *refs) {
    if (!refs->known || !PyTuple_CheckExact(value)) return 0;
    if (marked_present(value, refs)) return 0;
    int found = PySet_Contains(refs->known, value);
    if (found) return found < 0 ? -1 : 0;
    if (!refs->check) {
        refs->unchecked = 1;
        return 1;
    }
    PyObject *answer = PyObject_CallOneArg(refs->check, value);
    if (!answer) return -1;
    int exists = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    if (exists < 0 || (exists && PySet_Add(refs->known, value) < 0)) return -1;
    return !exists;
}

static int place_value(Buf *stack, PyObject **result, PyObject *value, Existing *refs) {
    size_t depth = stack->len / sizeof(ParseFrame);
    if (!depth) {
        if (*result) { Py_DECREF(value); return malformed("more than one object"); }
        *result = value;
        return 0;
    }
    ParseFrame *top = (ParseFrame *)stack->data + depth - 1;
    int ok;
    if (PyList_Check(top->container)) {
        int absent = dangling(value, refs);
        ok = absent < 0 ? -1 : PyList_Append(top->container, absent ? Py_None : value);
    } else if (!top->key) {
        if (!PyUnicode_Check(value)) { Py_DECREF(value); return malformed("a dictionary key is not a name"); }
        top->key = value;
        return 0;
    } else {
        int absent = value == Py_None ? 1 : dangling(value, refs);
        ok = absent < 0 ? -1 : absent ? 0 : PyDict_SetItem(top->container, top->key, value);
        Py_CLEAR(top->key);
    }
    Py_DECREF(value);
    return ok;
}

static int open_container(Buf *stack, int kind) {
    ParseFrame frame = {kind == K_ARRAY_OPEN ? PyList_New(0) : PyDict_New(), NULL};
    if (!frame.container) return -1;
    if (buf_append(stack, &frame, sizeof frame) < 0) { Py_DECREF(frame.container); return -1; }
    return 0;
}

static int close_container(Buf *stack, PyObject **result, int kind, Existing *refs) {
    size_t depth = stack->len / sizeof(ParseFrame);
    if (!depth) return malformed("a closing delimiter without its opening one");
    ParseFrame *top = (ParseFrame *)stack->data + depth - 1;
    if ((kind == K_ARRAY_CLOSE) != (PyList_Check(top->container) != 0)) return malformed("mismatched delimiters");
    if (top->key) return malformed("a dictionary key without its value");
    PyObject *value = top->container;
    stack->len -= sizeof(ParseFrame);
    return place_value(stack, result, value, refs);
}

/* A parse's scratch buffers (a token's bytes, the open containers), kept
 * from one object of a stream to the next: parse_objects reads thousands;
 * and its references' cache (cached_ref; NULL for none, borrowed). */
typedef struct { Buf bytes, stack; PyObject *refs; } ParseBufs;

static void parse_bufs_free(ParseBufs *b) {
    buf_free(&b->bytes);
    buf_free(&b->stack);
}

/* One object from the bytes p..end (exactly one, else ValueError). */
static PyObject *parse_span(const unsigned char *p, const unsigned char *end, Existing *refs, ParseBufs *bufs) {
    Lexer lx; /* only the cursor: the operand slots are the content streams' (left unset) */
    lx.p = p;
    lx.end = end;
    lx.nops = lx.non_numbers = 0;
    Buf bytes = bufs->bytes, stack = bufs->stack;
    bytes.len = stack.len = 0;
    PyObject *result = NULL;
    int failed = 0;
    while (!failed) {
        Token t;
        bytes.len = 0;
        if (buf_append(&bytes, "/", 1) < 0) { failed = 1; break; }
        skip_white_and_comments(&lx);
        const unsigned char *start = lx.p;
        int kind = next_token(&lx, &t, &bytes);
        const unsigned char *stop = lx.p;
        if (kind == K_EOF) {
            /* A cut string ends the data too: one more unfinished object. */
            if (stack.len || !result || start < lx.end) failed = malformed("the data ends inside an object");
            break;
        }
        switch (kind) {
        case K_ERROR: failed = 1; break;
        case K_KEYWORD: failed = malformed("a keyword where an object belongs"); break;
        case K_ARRAY_OPEN: case K_DICT_OPEN: failed = open_container(&stack, kind) < 0; break;
        case K_ARRAY_CLOSE: case K_DICT_CLOSE: failed = close_container(&stack, &result, kind, refs) < 0; break;
        default: {
            PyObject *value = plain_value(&lx, &t, &bytes, start, stop, bufs->refs);
            failed = !value || place_value(&stack, &result, value, refs) < 0;
        }
        }
    }
    for (ParseFrame *f = (ParseFrame *)stack.data, *last = f + stack.len / sizeof(ParseFrame); f < last; f++) {
        Py_DECREF(f->container);
        Py_XDECREF(f->key);
    }
    bufs->bytes = bytes; /* grown buffers go back to the caller, who frees them */
    bufs->stack = stack;
    if (failed) Py_CLEAR(result);
    return result;
}

static PyObject *core_parse_object(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *arg, *known = NULL, *check = NULL;
    if (!PyArg_ParseTuple(args, "O|O!O", &arg, &PySet_Type, &known, &check)) return NULL;
    if (check == Py_None) check = NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *p = view.buf;
    Existing refs = {known, check, 0, NULL, 0};
    ParseBufs bufs = {{0}, {0}, NULL};
    PyObject *result = parse_span(p, p + view.len, &refs, &bufs);
    parse_bufs_free(&bufs);
    PyBuffer_Release(&view);
    return result;
}

/* A page tree node (§7.7.3): qpdf rewrites those in memory (inherited
 * attributes pushed down to the pages), so they are read through qpdf.
 * The names it looks for, made once per parse_objects call. */
enum { PT_PARENT, PT_KIDS, PT_TYPE, PT_PAGE, PT_PAGES, PT_COUNT };
static const char *const PT_NAMES[PT_COUNT] = {"/Parent", "/Kids", "/Type", "/Page", "/Pages"};

static int page_tree_node(PyObject *value, PyObject *const names[PT_COUNT]) {
    if (!PyDict_CheckExact(value)) return 0;
    if (PyDict_GetItem(value, names[PT_PARENT]) || PyDict_GetItem(value, names[PT_KIDS])) return 1;
    PyObject *type = PyDict_GetItem(value, names[PT_TYPE]);
    return type && PyUnicode_Check(type) &&
           (PyUnicode_Compare(type, names[PT_PAGE]) == 0 || PyUnicode_Compare(type, names[PT_PAGES]) == 0);
}

/* A span (number, start, end) of parse_objects, checked against the data's length. */
static int object_span(PyObject *span, Py_ssize_t len, long long out[3]) {
    /* object_stream_spans' (number, start, end, present) too: its present is not read here. */
    if (!PyTuple_Check(span) || PyTuple_GET_SIZE(span) < 3 || PyTuple_GET_SIZE(span) > 4) {
        PyErr_SetString(PyExc_TypeError, "a span is (number, start, end[, present])");
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(span, i));
        if (out[i] == -1 && PyErr_Occurred()) return -1;
    }
    if (out[1] < 0 || out[2] < out[1] || out[2] > (long long)len) {
        PyErr_SetString(PyExc_ValueError, "a span outside the data");
        return -1;
    }
    return 0;
}

/* One object of a stream: its value, or NULL with no exception when it is
 * left to qpdf (not one well-formed object alone, or a page tree node). */
static PyObject *stream_object(const unsigned char *p, const unsigned char *end, Existing known,
                               ParseBufs *bufs, PyObject *const names[PT_COUNT]) {
    /* Unchecked first: a page tree node is dropped without asking
     * whether its references exist; others are parsed again, checked. */
    PyObject *check = known.check;
    Existing refs = known;
    refs.check = NULL;
    PyObject *value = parse_span(p, end, &refs, bufs);
    if (value && refs.unchecked && check && !page_tree_node(value, names)) {
        Py_DECREF(value);
        refs.check = check;
        value = parse_span(p, end, &refs, bufs);
    }
    if (!value) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) PyErr_Clear();
        return NULL;
    }
    if (page_tree_node(value, names)) Py_CLEAR(value);
    return value;
}

/* parse_objects(data, spans, known, check[, present[, refs[, into]]]) -> [(number, value)]:
 * the objects of a decoded object stream (§7.5.7), each (number, start, end)
 * of `spans` parsed from data[start:end] as parse_object(data, known, check)
 * does. An object that is not one well-formed object alone, or is a page
 * tree node, is left out: qpdf reads it. `present`, a bytes-like bitmap
 * (Existing.present), marks objects of `known`, found without a set lookup.
 * `refs`, a list of None, caches references across calls (cached_ref): the
 * values are equal with it or without it, it only shares their tuples.
 * With `into`, a dict, each object goes there instead, as
 * into.setdefault((number, 0), value) would put it (its key shared through
 * `refs`), and the answer is None: a tree's tens of thousands of objects
 * without a pair and a key built for each, nor a Python loop over them. */
static int parsed_object(PyObject *out, PyObject *into, PyObject *refs, long long number, PyObject *value) {
    if (into) {
        PyObject *key = number >= 0 ? cached_ref(refs, number, 0) : plain_ref(number, 0);
        int failed = !key || !PyDict_SetDefault(into, key, value);
        Py_XDECREF(key);
        Py_DECREF(value);
        return failed ? -1 : 0;
    }
    PyObject *item = PyTuple_New(2), *n = item ? PyLong_FromLongLong(number) : NULL;
    if (!n) {
        Py_XDECREF(item);
        Py_DECREF(value);
        return -1;
    }
    PyTuple_SET_ITEM(item, 0, n);
    PyTuple_SET_ITEM(item, 1, value);
    int failed = PyList_Append(out, item);
    Py_DECREF(item);
    return failed;
}

static PyObject *core_parse_objects(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *data, *spans, *known, *check, *refs = NULL, *into = NULL;
    Py_buffer present = {0};
    if (!PyArg_ParseTuple(args, "OO!O!O|y*O!O!", &data, &PyList_Type, &spans, &PySet_Type, &known, &check, &present,
                          &PyList_Type, &refs, &PyDict_Type, &into))
        return NULL;
    if (check == Py_None) check = NULL;
    Existing existing = {known, check, 0, present.buf, present.buf ? present.len : 0};
    PyObject *names[PT_COUNT] = {NULL};
    Py_buffer view;
    for (int i = 0; i < PT_COUNT; i++)
        if (!(names[i] = PyUnicode_InternFromString(PT_NAMES[i]))) goto names_failed;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) goto names_failed;
    const unsigned char *base = view.buf;
    ParseBufs bufs = {{0}, {0}, refs};
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(spans); i++) {
        long long span[3];
        if (object_span(PyList_GET_ITEM(spans, i), view.len, span) < 0) { Py_CLEAR(out); break; }
        PyObject *value = stream_object(base + span[1], base + span[2], existing, &bufs, names);
        if (!value) {
            if (PyErr_Occurred()) Py_CLEAR(out);
            continue;
        }
        if (parsed_object(out, into, refs, span[0], value) < 0) Py_CLEAR(out);
    }
    if (out && into) Py_SETREF(out, Py_NewRef(Py_None));
    parse_bufs_free(&bufs);
    PyBuffer_Release(&view);
    for (int i = 0; i < PT_COUNT; i++) Py_XDECREF(names[i]);
    if (present.buf) PyBuffer_Release(&present);
    return out;
names_failed:
    for (int i = 0; i < PT_COUNT; i++) Py_XDECREF(names[i]);
    if (present.buf) PyBuffer_Release(&present);
    return NULL;
}

/* ---- object stream headers (§7.5.7) ------------------------------------
 *
 * object_stream_spans(data, first, count, members) reads the header of a
 * decoded object stream as structure_objects._header_spans does (its
 * reference, which this must equal: tests/extract/test_structure_objects.py
 * and fuzz/core_fuzz.py --target ostreams compare the two): the first
 * 2 x count of the whitespace-separated integers before `first`, pairs of
 * object number and offset from `first`. It returns
 *   [(number, start, end, present)] for each number in `members` whose
 *     start lies in [first, len(data)): the object runs to the next start
 *     (or the end of the data), and present is 0 when it is the null object;
 *   None when the header is damaged (an odd number of integers, a number
 *     listed twice);
 *   NotImplemented for what only the reference reads (a negative count, a
 *     token other than [+-] and 1 to 18 digits): it decides then.
 * Every read stays inside data[0:len]; the header is scanned once, with no
 * recursion, into arrays sized by it. */

/* Python's bytes.split() and bytes.strip() whitespace (not PDF's: \0 is none). */
static int ascii_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

enum { HEADER_INTS, HEADER_REFERENCE };

/* The value of the eight decimal digits a little-endian word holds, one per
 * byte, the first at its lowest byte (the low nibble of each byte is taken:
 * ASCII digits or 0 to 9 alike): pairs, fours, then the eight, each step one
 * multiplication (a header's and a classic table's digits read as words). */
static inline uint64_t word_digits_value(uint64_t w) {
    w = (w & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;          /* pairs of digits */
    w = (w & 0x00FF00FF00FF00FFull) * 6553601 >> 16;      /* fours */
    return (w & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32; /* the eight */
}

/* The digits of a token of at most 7 read as one word where 8 bytes are
 * there (a header is most of a stream's pairs, and reading it digit by
 * digit was half of building the nodes): their count (0 to 7) with their
 * value, or 8 where the word holds digits only (or, without the 8 bytes or
 * on a big-endian machine, -1): the caller reads those digit by digit. */
static inline int header_word_digits(const unsigned char *p, const unsigned char *end, long long *value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p < 8) return -1;
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t t = w ^ 0x3030303030303030ull; /* a digit's byte is 0 to 9 now */
    /* A byte is no digit where its high nibble is set or adding 6 carries into it.
     * A carry out of one byte reaches only the bytes after it: the first flagged byte is the first non-digit. */
    uint64_t other = (t | (t + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
    if (!other) return 8;
    int count = __builtin_ctzll(other) / 8;
    if (!count) { *value = 0; return 0; }
    t <<= 8 * (8 - count); /* the digits at the top, zeros (leading zero digits) below */
    *value = (long long)word_digits_value(t);
    return count;
#else
    (void)p; (void)end; (void)value;
    return -1;
#endif
}

/* The header's first `limit` integers into out[] (*n of them). */
static int header_ints(const unsigned char *p, const unsigned char *end, Py_ssize_t limit, long long *out, Py_ssize_t *n) {
    *n = 0;
    while (*n < limit) {
        while (p < end && ascii_space(*p)) p++;
        if (p >= end) break;
        int negative = *p == '-';
        if (*p == '+' || *p == '-') p++;
        const unsigned char *digits = p;
        long long v = 0;
        int word = header_word_digits(p, end, &v);
        if (word >= 0 && word < 8) {
            p += word;
        } else {
            v = 0;
            while (p < end && *p >= '0' && *p <= '9' && p - digits < 18) v = v * 10 + (*p++ - '0');
        }
        /* A token of other than [+-] and 1 to 18 digits: int() takes more
         * ("1_0", 40 digits) and refuses the rest, so the reference decides. */
        if (p == digits || (p < end && !ascii_space(*p))) return HEADER_REFERENCE;
        out[(*n)++] = negative ? -v : v;
    }
    return HEADER_INTS;
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Is data[start:end], stripped of ASCII whitespace, other than "null" (§7.3.9)? */
static int not_null(const unsigned char *data, Py_ssize_t start, Py_ssize_t end) {
    while (start < end && ascii_space(data[start])) start++;
    while (end > start && ascii_space(data[end - 1])) end--;
    return !(end - start == 4 && memcmp(data + start, "null", 4) == 0);
}

/* The index of the smallest of the sorted bounds[0:n] above `start` (one
 * always is: the data's length). `at`, the last start's, is tried first and
 * the few after it: in a header written in order each object's bound is
 * the next one, and a search per object was most of the header's read. */
static Py_ssize_t bound_after(const long long *bounds, Py_ssize_t n, long long start, Py_ssize_t at) {
    if (at >= 0 && at < n && (at == 0 || bounds[at - 1] <= start))
        for (Py_ssize_t last = at + 4 < n ? at + 4 : n; at < last; at++)
            if (bounds[at] > start) return at;
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (bounds[mid] <= start) lo = mid + 1;
        else hi = mid;
    }
    return lo < n ? lo : n - 1;
}

/* A header's span of an object of `members`: its number, where it runs, and whether it is other than null. */
typedef struct { long long number, start, end; int present; } HeaderSpan;

/* `members` (a set) as bits over [lo, lo + 8 * len(bits)): a header's
 * number is looked up without a Python int made and hashed for it (a
 * tree's streams hold tens of thousands of objects). Only where every
 * member is an int from 0 to 2^62 and they lie close enough together;
 * else bits is NULL and the set is asked, as before (a bool or a float in
 * it equals an int: the set decides then). */
typedef struct {
    unsigned char *bits;
    long long lo, hi;
    PyObject *set;
    /* Or the cross-reference table's columns (xref_table's): the members of
     * object stream `stream` are the entries of type 2 naming it, so no set
     * is made for them (kinds NULL when a set or bits decide). */
    const unsigned char *kinds;
    const int64_t *second;
    Py_ssize_t columns;
    long long stream;
} Members;

/* The members of object stream `stream` by the table's columns (kinds,
 * second: xref_table's, `columns` entries long). */
static Members members_by_columns(const unsigned char *kinds, const int64_t *second, Py_ssize_t columns, long long stream) {
    Members m = {NULL, 0, 0, NULL, kinds, second, columns, stream};
    return m;
}

/* Members' span of numbers, where the bits are worth it: a few bits per member. */
#define MEMBERS_SPREAD(n) (64 * (long long)(n) + 65536)

static void members_free(Members *m) { PyMem_Free(m->bits); m->bits = NULL; }

/* The objects written in the file where the columns put them (written_spans, below). */
typedef struct { long long number; Py_ssize_t start, end; int dictionary; } WrittenSpan;
static int written_spans_of(const unsigned char *d, Py_ssize_t len, const unsigned char *kinds, const int64_t *offsets,
                            const int64_t *generations, Py_ssize_t columns, WrittenSpan **out, Py_ssize_t *n);

/* The bits of set `members` (none for an odd one: see Members). -1 on error. */
static int members_read(PyObject *members, Members *m) {
    *m = members_by_columns(NULL, NULL, 0, 0);
    m->set = members;
    Py_ssize_t size = PySet_GET_SIZE(members), pos = 0;
    PyObject *key;
    Py_hash_t hash;
    long long lo = 0, hi = -1;
    while (_PySet_NextEntry(members, &pos, &key, &hash)) {
        if (!PyLong_CheckExact(key)) return 0;
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(key, &overflow);
        if (overflow || n < 0 || n > (1LL << 62)) return 0;
        if (hi < lo) lo = hi = n;
        else if (n < lo) lo = n;
        else if (n > hi) hi = n;
    }
    if (hi < lo || hi - lo >= MEMBERS_SPREAD(size)) return 0; /* empty, or spread out: the set */
    m->bits = PyMem_Calloc((size_t)((hi - lo) / 8 + 1), 1);
    if (!m->bits) { PyErr_NoMemory(); return -1; }
    for (pos = 0; _PySet_NextEntry(members, &pos, &key, &hash);) {
        long long n = PyLong_AsLongLong(key) - lo;
        m->bits[n / 8] |= (unsigned char)(1u << (n % 8));
    }
    m->lo = lo;
    m->hi = hi;
    return 0;
}

/* Is `number` a member? 1, 0, -1 on error. */
static int members_has(const Members *m, long long number) {
    if (m->kinds) return number >= 0 && number < m->columns && m->kinds[number] == 2 && m->second[number] == m->stream;
    if (m->bits) return number >= m->lo && number <= m->hi && (m->bits[(number - m->lo) / 8] >> ((number - m->lo) % 8) & 1);
    PyObject *n = PyLong_FromLongLong(number);
    int member = n ? PySet_Contains(m->set, n) : -1;
    Py_XDECREF(n);
    return member;
}

/* a[0:n] in ascending order; a header written in order (as writers write
 * them) is only checked. */
static void sort_ll(long long *a, Py_ssize_t n) {
    for (Py_ssize_t i = 1; i < n; i++)
        if (a[i] < a[i - 1]) { qsort(a, (size_t)n, sizeof(long long), cmp_ll); return; }
}

enum { HEADER_DAMAGED = 2 };

/* Whether the header's object numbers (ints[0], ints[2], ... : `pairs` of
 * them) name one object twice: 1, 0, -1 on error. Marked in a bitmap over
 * their range where it is a few bits a number (writers number a stream's
 * objects closely, though not always in order: a sort of them was a
 * quarter of reading a header), else sorted. */
static int numbers_twice(const long long *ints, Py_ssize_t pairs) {
    if (pairs < 2) return 0;
    long long lo = ints[0], hi = ints[0];
    for (Py_ssize_t i = 1; i < pairs; i++) {
        if (ints[2 * i] < lo) lo = ints[2 * i];
        if (ints[2 * i] > hi) hi = ints[2 * i];
    }
    int twice = 0;
    /* header_ints' numbers have at most 18 digits: hi - lo does not overflow. */
    if (hi - lo < MEMBERS_SPREAD(pairs)) {
        unsigned char *bits = PyMem_Calloc((size_t)((hi - lo) / 8 + 1), 1);
        if (!bits) { PyErr_NoMemory(); return -1; }
        for (Py_ssize_t i = 0; i < pairs && !twice; i++) {
            long long k = ints[2 * i] - lo;
            unsigned char bit = (unsigned char)(1u << (k % 8));
            twice = (bits[k / 8] & bit) != 0;
            bits[k / 8] |= bit;
        }
        PyMem_Free(bits);
        return twice;
    }
    long long *sorted = PyMem_Malloc(sizeof(long long) * (size_t)pairs);
    if (!sorted) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < pairs; i++) sorted[i] = ints[2 * i];
    sort_ll(sorted, pairs);
    for (Py_ssize_t i = 1; i < pairs && !twice; i++) twice = sorted[i] == sorted[i - 1];
    PyMem_Free(sorted);
    return twice;
}

/* The spans of the header's pairs, in header order (see above), into
 * out[0:*n] (out has room for every pair). HEADER_INTS, HEADER_DAMAGED (a
 * number listed twice), -1 on error. */
static int stream_spans(const unsigned char *data, Py_ssize_t len, long long first, const long long *ints,
                        Py_ssize_t pairs, const Members *m, HeaderSpan *out, Py_ssize_t *n) {
    int twice = numbers_twice(ints, pairs);
    if (twice) return twice < 0 ? -1 : HEADER_DAMAGED;
    long long *bounds = PyMem_Malloc(sizeof(long long) * (size_t)(pairs + 1));
    if (!bounds) { PyErr_NoMemory(); return -1; }
    int status = HEADER_INTS;
    *n = 0;
    for (Py_ssize_t i = 0; i < pairs; i++) bounds[i] = first + ints[2 * i + 1];
    bounds[pairs] = (long long)len;
    sort_ll(bounds, pairs + 1);
    Py_ssize_t at = 0; /* the last start's bound */
    for (Py_ssize_t i = 0; status == HEADER_INTS && i < pairs; i++) {
        long long start = first + ints[2 * i + 1];
        if (start < first || start >= (long long)len) continue;
        int member = members_has(m, ints[2 * i]);
        if (member < 0) status = -1;
        else if (member) {
            at = bound_after(bounds, pairs + 1, start, at);
            long long end = bounds[at];
            out[(*n)++] = (HeaderSpan){ints[2 * i], start, end, not_null(data, (Py_ssize_t)start, (Py_ssize_t)end)};
        }
    }
    PyMem_Free(bounds);
    return status;
}

/* The spans of an object stream's header (see above) into *out (PyMem,
 * the caller frees it; NULL when there are none) and *n: HEADER_INTS,
 * HEADER_DAMAGED, HEADER_REFERENCE, or -1 with an exception set (ValueError
 * when `first` lies outside the data). */
static int header_spans(const unsigned char *data, Py_ssize_t len, long long first, long long count, const Members *members,
                        HeaderSpan **out, Py_ssize_t *n) {
    *out = NULL;
    *n = 0;
    if (first < 0 || first > (long long)len) {
        PyErr_SetString(PyExc_ValueError, "/First outside the data");
        return -1;
    }
    if (count < 0) return HEADER_REFERENCE;
    /* At most one integer per two header bytes, and 2 x count wanted. */
    Py_ssize_t room = (Py_ssize_t)(first / 2 + 1), limit = count < room / 2 + 1 ? (Py_ssize_t)(2 * count) : room;
    long long *ints = PyMem_Malloc(sizeof(long long) * (size_t)(limit + 1));
    if (!ints) { PyErr_NoMemory(); return -1; }
    Py_ssize_t read_ints = 0;
    int status = header_ints(data, data + first, limit, ints, &read_ints);
    if (status == HEADER_INTS && read_ints % 2) status = HEADER_DAMAGED;
    if (status == HEADER_INTS && read_ints) {
        *out = PyMem_Malloc(sizeof(HeaderSpan) * (size_t)(read_ints / 2));
        status = *out ? stream_spans(data, len, first, ints, read_ints / 2, members, *out, n) : (PyErr_NoMemory(), -1);
        if (status != HEADER_INTS) { PyMem_Free(*out); *out = NULL; *n = 0; }
    }
    PyMem_Free(ints);
    return status;
}

/* (number, start, end, present), built directly (Py_BuildValue parses its
 * format string for each of a tree's tens of thousands of objects). New reference. */
static PyObject *span_item(long long number, long long start, long long end, int present) {
    PyObject *item = PyTuple_New(4), *n = item ? PyLong_FromLongLong(number) : NULL,
             *from = n ? PyLong_FromLongLong(start) : NULL, *to = from ? PyLong_FromLongLong(end) : NULL;
    if (!to) {
        Py_XDECREF(item);
        Py_XDECREF(n);
        Py_XDECREF(from);
        return NULL;
    }
    PyTuple_SET_ITEM(item, 0, n);
    PyTuple_SET_ITEM(item, 1, from);
    PyTuple_SET_ITEM(item, 2, to);
    PyTuple_SET_ITEM(item, 3, PyBool_FromLong(present));
    return item;
}

static PyObject *core_object_stream_spans(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *data, *members;
    long long first, count;
    if (!PyArg_ParseTuple(args, "OLLO!", &data, &first, &count, &PySet_Type, &members)) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    HeaderSpan *spans = NULL;
    Py_ssize_t n = 0;
    Members m;
    int status = members_read(members, &m) < 0 ? -1 : header_spans(view.buf, view.len, first, count, &m, &spans, &n);
    members_free(&m);
    PyObject *out = status < 0 ? NULL
                    : status == HEADER_REFERENCE ? Py_NewRef(Py_NotImplemented)
                    : status == HEADER_DAMAGED ? Py_NewRef(Py_None) : PyList_New(n);
    for (Py_ssize_t i = 0; status == HEADER_INTS && out && i < n; i++) {
        PyObject *item = span_item(spans[i].number, spans[i].start, spans[i].end, spans[i].present);
        if (!item) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, item);
    }
    PyMem_Free(spans);
    PyBuffer_Release(&view);
    return out;
}

/* ---- the structure tree walk ---------------------------------------------
 *
 * walk_struct(stack, env) runs extract/structure.py's _Walker loop over its
 * stack of plain values (structure_objects.py) until the stack is empty:
 * the same visits, kid classification, page rules, records and warnings in
 * the same order, so the Python walker (the reference, RAGPREP_PURE=1) and
 * this one give equal trees (tests/extract/test_structure_tree.py runs on
 * both, test_compiled_core.py compares them on the corpus). What is rare
 * stays in Python, called back through `env`: resolving an object not read
 * yet, decoding a text string met for the first time, a type the role map
 * has not resolved yet or one in a namespace, table cell attributes, MCRs
 * with /Stm, OBJRs, content with no page, kids of unexpected kinds. An
 * exception (a damaged object qpdf cannot read) leaves the walk where
 * Python's would be; the driver warns and calls again with what is left. */

/* env's items, in _Walker._walk_env's order. */
enum {
    E_ELEMENTS, E_CONTENT, E_CLAIMED, E_SEEN, E_ON_PATH, E_PAGE_SET, E_HAS_PAGES, E_CACHE, E_RESOLVE, E_WARN,
    E_RESOLVED, E_ELEMENT_TYPE, E_TEXTS, E_TEXT_STRING, E_CELL, E_NO_CELL, E_MCR, E_OBJR, E_PARENT_TREE, E_UNEXPECTED,
    E_CTX_TYPE, E_ELEMENT_CLS, E_REF_CLS, E_NONSTRUCT, E_PAGE_STREAM, E_NO_OBJGEN, E_MESSAGES, E_MAX_DEPTH, E_PAGES, E_COUNT
};
/* _MESSAGES' fields, in order. */
enum {
    M_CYCLE, M_TWICE, M_DEEP, M_PG_ELEMENT, M_PG_MCR, M_LANG, M_ACTUAL_TEXT, M_ALT, M_UNDER_ROOT, M_NEGATIVE,
    M_NO_S, M_NEITHER, M_NULL_KID, M_ARRAY_TWICE, M_MCR_TWICE, M_MCR_MCID, M_NOT_PAGE, M_ASSIGNED_TWICE,
    M_ORPHAN_PARENT_TREE, M_ORPHAN_ONE_PAGE, M_ORPHAN_DROPPED, M_COUNT
};
/* Dictionary keys, type names and the instances' fields. */
static const char *const WALK_NAMES[] = {
    "/K", "/Pg", "/Lang", "/ActualText", "/Alt", "/S", "/NS", "/Type", "/MCID", "/Obj", "/Stm",
    "H", "TH", "TD", "/MCR", "/OBJR", "/StructElem", "", "NonStruct",
    "index", "type", "raw_type", "parent", "path", "heading_level", "block", "actual_text", "alt", "lang",
    "header_cell", "ref", "page", "actual_text_owner", "row_span", "col_span", "scope", "headers", "element_id",
    "mcid", "stream", "element", "/A", "/C", "/ID",
};
enum {
    N_K, N_PG, N_LANG, N_ACTUAL_TEXT, N_ALT, N_S, N_NS, N_TYPE, N_MCID, N_OBJ, N_STM,
    N_H, N_TH, N_TD, N_T_MCR, N_T_OBJR, N_T_STRUCT_ELEM, N_EMPTY, N_NONSTRUCT,
    N_F_INDEX, /* ...19 element fields... */
    N_F_MCID = N_F_INDEX + 19, N_F_STREAM, N_F_ELEMENT, N_A, N_C, N_ID, N_COUNT
};
enum { N_F_REF = N_F_INDEX + 11 }; /* StructElement.ref */
/* Stack items' tags (structure.py: _ELEMENT, _CONTENT, _EXIT) and _Ctx's fields. */
enum { TAG_ELEMENT, TAG_CONTENT, TAG_EXIT };
enum { C_INDEX, C_PAGE, C_LANG, C_PATH, C_DEPTH, C_HEADED_INCL, C_HEADED_EXCL, C_OWNER, C_COUNT };

typedef struct {
    PyObject *stack, *e[E_COUNT], *msg[M_COUNT], *name[N_COUNT], *tag[3], *empty, *zero;
    PyObject *parent_pages; /* _Walker._parent_tree_pages, asked for at the first content with no /Pg */
    /* Where StructElement's and MarkedContentRef's fields live when the
     * classes keep them in slots (walk_slots); -1 at [0]: set generically. */
    Py_ssize_t element_slots[19], ref_slots[3];
    long max_depth;
    /* Per message: handed to the host yet, and the repeats counted since. */
    unsigned char warned[M_COUNT];
    Py_ssize_t pending[M_COUNT];
} Walk;

/* A warning of the walk. The first of each message goes to the host at once,
 * which keeps the counter's first-seen order; its repeats are counted here and
 * handed over as one count when the call ends (walk_flush): a tree whose
 * content has no /Pg warns once per piece of content, thousands of times. */
static int walk_warn(Walk *w, int m) {
    if (w->warned[m]) {
        w->pending[m]++;
        return 0;
    }
    PyObject *r = PyObject_CallOneArg(w->e[E_WARN], w->msg[m]);
    Py_XDECREF(r);
    if (!r) return -1;
    w->warned[m] = 1;
    return 0;
}

static PyObject *walk_call(PyObject *fn, PyObject *a, PyObject *b, PyObject *c, int n);

/* The repeats walk_warn counted, to the host (_Warnings.add(message, count)).
 * An exception already set stays the one the call raises. */
static int walk_flush(Walk *w) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    int failed = 0;
    for (int m = 0; m < M_COUNT && !failed; m++) {
        if (!w->pending[m]) continue;
        PyObject *count = PyLong_FromSsize_t(w->pending[m]);
        PyObject *r = count ? walk_call(w->e[E_WARN], w->msg[m], count, NULL, 2) : NULL;
        failed = !r;
        Py_XDECREF(r);
        Py_XDECREF(count);
        w->pending[m] = 0;
    }
    if (type) {
        if (failed) PyErr_Clear();
        PyErr_Restore(type, value, traceback);
        return -1;
    }
    return failed ? -1 : 0;
}

static PyObject *walk_call(PyObject *fn, PyObject *a, PyObject *b, PyObject *c, int n) {
    PyObject *args[3] = {a, b, c};
    return PyObject_Vectorcall(fn, args, (size_t)n, NULL);
}

/* PlainObjects.resolve: the cache first. New reference. */
static PyObject *walk_resolve(Walk *w, PyObject *ref) {
    PyObject *v = PyDict_GetItemWithError(w->e[E_CACHE], ref);
    if (v) return Py_NewRef(v);
    if (PyErr_Occurred()) return NULL;
    return PyObject_CallOneArg(w->e[E_RESOLVE], ref);
}

/* PlainObjects.value: a reference replaced by its object. New reference. */
static PyObject *walk_value(Walk *w, PyObject *v) {
    return PyTuple_CheckExact(v) ? walk_resolve(w, v) : Py_NewRef(v);
}

static PyObject *walk_get(PyObject *dict, PyObject *key) { return PyDict_GetItemWithError(dict, key); }

static int is_direct(Walk *w, PyObject *objgen) {
    return PyObject_RichCompareBool(objgen, w->e[E_NO_OBJGEN], Py_EQ);
}

static long ctx_long(PyObject *ctx, int field) { return PyLong_AsLong(PyTuple_GET_ITEM(ctx, field)); }

/* A _Ctx (a NamedTuple: a tuple of its type) from its fields, stolen. */
static PyObject *walk_ctx(Walk *w, PyObject *items[C_COUNT]) {
    PyTypeObject *type = (PyTypeObject *)w->e[E_CTX_TYPE];
    PyObject *ctx = type->tp_alloc(type, C_COUNT);
    for (int i = 0; i < C_COUNT; i++) {
        if (!items[i] || !ctx) { for (int j = i; j < C_COUNT; j++) Py_XDECREF(items[j]); Py_XDECREF(ctx); return NULL; }
        PyTuple_SET_ITEM(ctx, i, items[i]);
    }
    return ctx;
}

/* rows.frozen_instance: an instance of `cls` with its fields set. Values stolen.
 * object.__setattr__, as frozen_rows: the instance keeps the class's shared
 * keys and its values inline, with no dict object of its own to make and free
 * (tens of thousands of elements and marked-content refs per tree). */
static PyObject *walk_instance(Walk *w, PyObject *cls, int first_name, PyObject **values, int n, const Py_ssize_t *slots) {
    PyObject *obj = NULL;
    for (int i = 0; i < n; i++) if (!values[i]) goto done;
    obj = PyBaseObject_Type.tp_new((PyTypeObject *)cls, w->empty, NULL);
    if (!obj) goto done;
    int acyclic = 1;
    for (int i = 0; i < n; i++) {
        if (slots[0] > 0) {
            /* A new instance's slots are empty (NULL): the store is the
             * member descriptor's own, without looking it up per field. */
            PyObject **slot = (PyObject **)((char *)obj + slots[i]);
            Py_XSETREF(*slot, Py_NewRef(values[i]));
        } else if (PyObject_GenericSetAttr(obj, w->name[first_name + i], values[i]) < 0) {
            Py_CLEAR(obj);
            goto done;
        }
        acyclic = acyclic && acyclic_value(values[i]);
    }
    /* As frozen_rows: an element or marked-content ref of plain values is in
     * no cycle, so the collector need not walk the whole tree at every
     * collection while the document is read. */
    if (acyclic) {
        PyObject_GC_UnTrack(obj);
        for (int i = 0; i < n; i++) untrack_tuple(values[i]);
    }
done:
    for (int i = 0; i < n; i++) Py_XDECREF(values[i]);
    return obj;
}

/* The offsets of the slots that hold the fields names[0:n] of `type` (a
 * dataclass with slots=True: one member descriptor per field, an object slot
 * inside the instance); out[0] = -1 when any field is held otherwise (a
 * class with a __dict__), and the caller sets it generically. A new
 * instance's slots are empty (NULL): a store is the member descriptor's own
 * without looking it up per field. */
static void member_offsets(PyTypeObject *type, PyObject *const *names, Py_ssize_t n, Py_ssize_t *out) {
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *descr = PyUnicode_Check(names[i]) ? _PyType_Lookup(type, names[i]) : NULL; /* borrowed */
        PyMemberDef *member = descr && Py_IS_TYPE(descr, &PyMemberDescr_Type) ? ((PyMemberDescrObject *)descr)->d_member : NULL;
        if (!member || member->type != MEMBER_OBJECT_EX || (member->flags & MEMBER_READONLY) || member->offset < (Py_ssize_t)sizeof(PyObject) ||
            member->offset > type->tp_basicsize - (Py_ssize_t)sizeof(PyObject *)) {
            out[0] = -1;
            return;
        }
        out[i] = member->offset;
    }
}

/* member_offsets of StructElement's or MarkedContentRef's fields names[first:first + n]. */
static void walk_slots(Walk *w, PyObject *cls, int first, int n, Py_ssize_t *out) {
    member_offsets((PyTypeObject *)cls, w->name + first, n, out);
}

/* _Walker._text: a text string decoded once per document, else `fallback`. New reference. */
static PyObject *walk_text(Walk *w, PyObject *raw, int complaint, PyObject *fallback) {
    PyObject *v = walk_value(w, raw);
    if (!v) return NULL;
    if (PyBytes_CheckExact(v)) {
        PyObject *text = PyDict_GetItemWithError(w->e[E_TEXTS], v);
        if (text) { Py_DECREF(v); return Py_NewRef(text); }
        if (PyErr_Occurred() || !(text = PyObject_CallOneArg(w->e[E_TEXT_STRING], v))) { Py_DECREF(v); return NULL; }
        int bad = PyDict_SetItem(w->e[E_TEXTS], v, text);
        Py_DECREF(v);
        if (bad < 0) Py_CLEAR(text);
        return text;
    }
    int absent = v == Py_None;
    Py_DECREF(v);
    if (!absent && walk_warn(w, complaint) < 0) return NULL;
    return Py_NewRef(fallback);
}

/* _Walker._page_of. New reference. */
static PyObject *walk_page_of(Walk *w, PyObject *pg, PyObject *inherited, int complaint) {
    if (PyTuple_CheckExact(pg)) {
        int known = PySet_Contains(w->e[E_PAGE_SET], pg);
        if (known) return known < 0 ? NULL : Py_NewRef(pg);
        PyObject *target = walk_resolve(w, pg);
        if (!target) return NULL;
        int is_dict = PyDict_CheckExact(target), is_none = target == Py_None;
        Py_DECREF(target);
        if (is_dict) return Py_NewRef(pg);
        if (is_none) return Py_NewRef(inherited);
    } else if (PyDict_CheckExact(pg)) {
        return Py_NewRef(w->e[E_NO_OBJGEN]);
    }
    if (complaint >= 0 && walk_warn(w, complaint) < 0) return NULL;
    return Py_NewRef(inherited);
}

static int walk_push(PyObject *list, PyObject *item) {
    if (!item) return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

static int walk_expand(Walk *w, PyObject *k, PyObject *ctx, int sectioning);

/* Does a TH/TD carry what _table_cell_attributes reads (/A, /C, /ID)? A
 * cell with none of them has the default attributes (_NO_CELL): most cells
 * of a tagged table, read without a call into Python. -1 on error. */
static int walk_has_cell_attributes(Walk *w, PyObject *obj) {
    for (int n = N_A; n <= N_ID; n++) {
        int has = PyDict_Contains(obj, w->name[n]);
        if (has) return has;
    }
    return 0;
}

/* _Walker._visit. */
static int walk_visit(Walk *w, PyObject *item) {
    PyObject *objgen = PyTuple_GET_ITEM(item, 1), *obj = PyTuple_GET_ITEM(item, 2);
    PyObject *raw = PyTuple_GET_ITEM(item, 3), *std = PyTuple_GET_ITEM(item, 4);
    PyObject *info = PyTuple_GET_ITEM(item, 5), *ctx = PyTuple_GET_ITEM(item, 6);
    int direct = is_direct(w, objgen);
    if (direct < 0) return -1;
    if (!direct) {
        int r = PySet_Contains(w->e[E_ON_PATH], objgen);
        if (r) return r < 0 ? -1 : walk_warn(w, M_CYCLE);
        if ((r = PySet_Contains(w->e[E_SEEN], objgen))) return r < 0 ? -1 : walk_warn(w, M_TWICE);
        if (PySet_Add(w->e[E_SEEN], objgen) < 0) return -1;
    }
    long depth = ctx_long(ctx, C_DEPTH) + 1;
    if (depth > w->max_depth) return walk_warn(w, M_DEEP);
    PyObject *page = NULL, *lang = NULL, *actual_text = NULL, *alt = NULL, *cell = NULL, *v;
    int failed = -1;
    if ((v = walk_get(obj, w->name[N_PG]))) page = walk_page_of(w, v, PyTuple_GET_ITEM(ctx, C_PAGE), M_PG_ELEMENT);
    else if (!PyErr_Occurred()) page = Py_NewRef(PyTuple_GET_ITEM(ctx, C_PAGE));
    if (!page) goto done;
    if ((v = walk_get(obj, w->name[N_LANG]))) lang = walk_text(w, v, M_LANG, PyTuple_GET_ITEM(ctx, C_LANG));
    else if (!PyErr_Occurred()) lang = Py_NewRef(PyTuple_GET_ITEM(ctx, C_LANG));
    if (!lang) goto done;
    if ((v = walk_get(obj, w->name[N_ACTUAL_TEXT]))) actual_text = walk_text(w, v, M_ACTUAL_TEXT, Py_None);
    else if (!PyErr_Occurred()) actual_text = Py_NewRef(Py_None);
    if (!actual_text) goto done;
    if ((v = walk_get(obj, w->name[N_ALT]))) alt = walk_text(w, v, M_ALT, Py_None);
    else if (!PyErr_Occurred()) alt = Py_NewRef(Py_None);
    if (!alt) goto done;
    int th = PyUnicode_Compare(std, w->name[N_TH]) == 0, td = !th && PyUnicode_Compare(std, w->name[N_TD]) == 0;
    int attributed = (th || td) ? walk_has_cell_attributes(w, obj) : 0;
    if (attributed < 0) goto done;
    cell = attributed ? PyObject_CallOneArg(w->e[E_CELL], obj) : Py_NewRef(w->e[E_NO_CELL]);
    if (!cell) goto done;
    if (!PyTuple_Check(cell) || PyTuple_GET_SIZE(cell) != 5) { PyErr_SetString(PyExc_TypeError, "cell attributes"); goto done; }
    Py_ssize_t index = PyList_GET_SIZE(w->e[E_ELEMENTS]);
    long owner = ctx_long(ctx, C_OWNER);
    if (owner < 0 && actual_text != Py_None) owner = (long)index;
    PyObject *level = PyUnicode_Compare(std, w->name[N_H]) == 0
                          ? PyLong_FromLong(1 + ctx_long(ctx, C_HEADED_EXCL))
                          : Py_NewRef(PyTuple_GET_ITEM(info, 2));
    PyObject *parent_path = PyTuple_GET_ITEM(ctx, C_PATH);
    Py_ssize_t depth_of_path = PyTuple_GET_SIZE(parent_path);
    PyObject *path = PyTuple_New(depth_of_path + 1);
    if (path) {
        for (Py_ssize_t i = 0; i < depth_of_path; i++) PyTuple_SET_ITEM(path, i, Py_NewRef(PyTuple_GET_ITEM(parent_path, i)));
        PyTuple_SET_ITEM(path, depth_of_path, Py_NewRef(std));
    }
    int lang_set = PyObject_IsTrue(lang);
    if (lang_set < 0) { Py_XDECREF(level); Py_XDECREF(path); goto done; }
    PyObject *fields[19] = {
        PyLong_FromSsize_t(index), Py_NewRef(std), Py_NewRef(raw), Py_NewRef(PyTuple_GET_ITEM(ctx, C_INDEX)),
        Py_XNewRef(path), level, Py_NewRef(PyTuple_GET_ITEM(info, 0)), Py_NewRef(actual_text), Py_NewRef(alt),
        Py_NewRef(lang_set ? lang : Py_None), PyBool_FromLong(th), Py_NewRef(direct ? Py_None : objgen),
        Py_NewRef(page), PyLong_FromLong(owner), Py_NewRef(PyTuple_GET_ITEM(cell, 0)),
        Py_NewRef(PyTuple_GET_ITEM(cell, 1)), Py_NewRef(PyTuple_GET_ITEM(cell, 2)),
        Py_NewRef(PyTuple_GET_ITEM(cell, 3)), Py_NewRef(PyTuple_GET_ITEM(cell, 4)),
    };
    if (walk_push(w->e[E_ELEMENTS], walk_instance(w, w->e[E_ELEMENT_CLS], N_F_INDEX, fields, 19, w->element_slots)) < 0) {
        Py_XDECREF(path);
        goto done;
    }
    PyObject *k = walk_get(obj, w->name[N_K]);
    if (!k) { Py_XDECREF(path); failed = PyErr_Occurred() ? -1 : 0; goto done; }
    Py_INCREF(k);
    if (!direct) {
        if (PySet_Add(w->e[E_ON_PATH], objgen) < 0 ||
            walk_push(w->stack, PyTuple_Pack(2, w->tag[TAG_EXIT], objgen)) < 0) {
            Py_DECREF(k); Py_XDECREF(path); goto done;
        }
    }
    PyObject *incl = PyTuple_GET_ITEM(ctx, C_HEADED_INCL);
    PyObject *kid_items[C_COUNT] = {
        PyLong_FromSsize_t(index), Py_NewRef(page), Py_NewRef(lang), path, PyLong_FromLong(depth),
        Py_NewRef(incl), Py_NewRef(incl), PyLong_FromLong(owner),
    };
    PyObject *kid_ctx = walk_ctx(w, kid_items);
    int sectioning = kid_ctx ? PyObject_IsTrue(PyTuple_GET_ITEM(info, 3)) : -1;
    failed = sectioning < 0 ? -1 : walk_expand(w, k, kid_ctx, sectioning);
    Py_DECREF(k);
    Py_XDECREF(kid_ctx);
done:
    Py_XDECREF(page); Py_XDECREF(lang); Py_XDECREF(actual_text); Py_XDECREF(alt); Py_XDECREF(cell);
    return failed;
}

/* _Walker._first_visit: 1 on a first visit, 0 when seen before, -1 on error. */
static int walk_first_visit(Walk *w, PyObject *objgen) {
    int direct = is_direct(w, objgen);
    if (direct) return direct < 0 ? -1 : 1;
    int seen = PySet_Contains(w->e[E_SEEN], objgen);
    if (seen) return seen < 0 ? -1 : 0;
    return PySet_Add(w->e[E_SEEN], objgen) < 0 ? -1 : 1;
}

/* _Walker._array_items: a copy of the array, [] for an indirect one met before. New reference. */
static PyObject *walk_array_items(Walk *w, PyObject *array, PyObject *objgen) {
    int first = walk_first_visit(w, objgen);
    if (first < 0) return NULL;
    if (!first) return walk_warn(w, M_ARRAY_TWICE) < 0 ? NULL : PyList_New(0);
    return PyList_GetSlice(array, 0, PyList_GET_SIZE(array));
}

/* _Walker._element_type: (raw, standard, info) of a kid element, from the
 * role map's cache where it has the answer. New reference. */
static PyObject *walk_element_type(Walk *w, PyObject *kid) {
    PyObject *ns = walk_get(kid, w->name[N_NS]);
    if (!ns && PyErr_Occurred()) return NULL;
    /* The cache is keyed by (/S, namespace key): None without /NS; for an
     * indirect namespace its reference (_Roles.namespace), which no other
     * kind of namespace key equals. A direct /NS is left to Python. */
    int cached = !ns || PyTuple_CheckExact(ns);
    PyObject *s = cached ? walk_value(w, PyDict_GetItem(kid, w->name[N_S])) : NULL;
    if (cached && !s) return NULL;
    PyObject *hit = NULL;
    if (s && PyUnicode_CheckExact(s)) {
        PyObject *key = PyTuple_Pack(2, s, ns ? ns : Py_None);
        hit = key ? PyDict_GetItemWithError(w->e[E_RESOLVED], key) : NULL;
        Py_XDECREF(key);
        if (!hit && PyErr_Occurred()) { Py_DECREF(s); return NULL; }
    }
    Py_XDECREF(s);
    if (!hit || !PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 4) return PyObject_CallOneArg(w->e[E_ELEMENT_TYPE], kid);
    PyObject *problem = PyTuple_GET_ITEM(hit, 3);
    if (problem != Py_None) {
        PyObject *r = PyObject_CallOneArg(w->e[E_WARN], problem);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    return PyTuple_GetSlice(hit, 0, 3);
}

/* _Walker._mcr: a content item, or None. New reference. */
static PyObject *walk_mcr(Walk *w, PyObject *objgen, PyObject *kid, PyObject *ctx) {
    PyObject *stm = walk_get(kid, w->name[N_STM]);
    if (stm) return walk_call(w->e[E_MCR], objgen, kid, ctx, 3); /* forms: rare, Python's */
    if (PyErr_Occurred()) return NULL;
    int first = walk_first_visit(w, objgen);
    if (first <= 0) return first < 0 || walk_warn(w, M_MCR_TWICE) < 0 ? NULL : Py_NewRef(Py_None);
    if (ctx_long(ctx, C_INDEX) < 0) return walk_warn(w, M_UNDER_ROOT) < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *m = walk_get(kid, w->name[N_MCID]);
    if (!m && PyErr_Occurred()) return NULL;
    PyObject *mcid = m ? walk_value(w, m) : Py_NewRef(Py_None);
    if (!mcid) return NULL;
    int negative = PyLong_CheckExact(mcid) ? PyObject_RichCompareBool(mcid, w->zero, Py_LT) : 1;
    if (negative) {
        Py_DECREF(mcid);
        return negative < 0 || walk_warn(w, M_MCR_MCID) < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *pg = walk_get(kid, w->name[N_PG]), *page;
    if (pg) page = walk_page_of(w, pg, PyTuple_GET_ITEM(ctx, C_PAGE), M_PG_MCR);
    else page = PyErr_Occurred() ? NULL : Py_NewRef(PyTuple_GET_ITEM(ctx, C_PAGE));
    if (!page) { Py_DECREF(mcid); return NULL; }
    PyObject *item = PyTuple_Pack(5, w->tag[TAG_CONTENT], mcid, w->e[E_PAGE_STREAM], page, PyTuple_GET_ITEM(ctx, C_INDEX));
    Py_DECREF(mcid);
    Py_DECREF(page);
    return item;
}

/* One kid dictionary with no /S (an MCR, an OBJR, /Type /StructElem or junk). */
static int walk_kid_dict(Walk *w, PyObject *kid, PyObject *objgen, PyObject *ctx, PyObject *items, int *elements) {
    PyObject *t = walk_get(kid, w->name[N_TYPE]), *kind = NULL;
    if (!t && PyErr_Occurred()) return -1;
    if (t && !(kind = walk_value(w, t))) return -1;
    if (kind && !PyUnicode_CheckExact(kind)) Py_CLEAR(kind); /* _name: not a name */
    int is_mcr = kind ? PyUnicode_Compare(kind, w->name[N_T_MCR]) == 0 : PyDict_Contains(kid, w->name[N_MCID]);
    int is_objr = !is_mcr && (kind ? PyUnicode_Compare(kind, w->name[N_T_OBJR]) == 0 : PyDict_Contains(kid, w->name[N_OBJ]));
    int is_elem = !is_mcr && !is_objr && kind && PyUnicode_Compare(kind, w->name[N_T_STRUCT_ELEM]) == 0;
    Py_XDECREF(kind);
    if (is_mcr < 0 || is_objr < 0) return -1;
    if (is_mcr) {
        PyObject *content = walk_mcr(w, objgen, kid, ctx);
        if (!content) return -1;
        if (content == Py_None) { Py_DECREF(content); return 0; }
        return walk_push(items, content);
    }
    if (is_objr) {
        PyObject *r = walk_call(w->e[E_OBJR], objgen, kid, ctx, 3);
        Py_XDECREF(r);
        return r ? 0 : -1;
    }
    if (is_elem) {
        if (walk_warn(w, M_NO_S) < 0) return -1;
        *elements = 1;
        PyObject *ns = w->e[E_NONSTRUCT];
        return walk_push(items, PyTuple_Pack(7, w->tag[TAG_ELEMENT], objgen, kid, w->name[N_EMPTY],
                                                 w->name[N_NONSTRUCT], ns, ctx));
    }
    int on_path = PySet_Contains(w->e[E_ON_PATH], objgen);
    return on_path < 0 ? -1 : walk_warn(w, on_path ? M_CYCLE : M_NEITHER);
}

/* One kid of /K, resolved (objgen: its reference, or the direct marker). */
static int walk_kid(Walk *w, PyObject *kid, PyObject *objgen, PyObject *ctx, PyObject *kids, Py_ssize_t at,
                    PyObject *items, int *elements, int *headed) {
    if (PyLong_CheckExact(kid)) { /* an MCID on the page in effect (§14.7.4.2) */
        if (ctx_long(ctx, C_INDEX) < 0) return walk_warn(w, M_UNDER_ROOT);
        int negative = PyObject_RichCompareBool(kid, w->zero, Py_LT);
        if (negative) return negative < 0 ? -1 : walk_warn(w, M_NEGATIVE);
        return walk_push(items, PyTuple_Pack(5, w->tag[TAG_CONTENT], kid, w->e[E_PAGE_STREAM],
                                                PyTuple_GET_ITEM(ctx, C_PAGE), PyTuple_GET_ITEM(ctx, C_INDEX)));
    }
    if (PyDict_CheckExact(kid)) {
        int has_s = PyDict_Contains(kid, w->name[N_S]);
        if (has_s <= 0) return has_s < 0 ? -1 : walk_kid_dict(w, kid, objgen, ctx, items, elements);
        PyObject *typed = walk_element_type(w, kid);
        if (!typed) return -1;
        if (!PyTuple_Check(typed) || PyTuple_GET_SIZE(typed) != 3) {
            Py_DECREF(typed);
            PyErr_SetString(PyExc_TypeError, "an element type is (raw, standard, info)");
            return -1;
        }
        *elements = 1;
        int heading = PyObject_IsTrue(PyTuple_GET_ITEM(PyTuple_GET_ITEM(typed, 2), 1));
        if (heading < 0) { Py_DECREF(typed); return -1; }
        *headed |= heading;
        PyObject *item = PyTuple_Pack(7, w->tag[TAG_ELEMENT], objgen, kid, PyTuple_GET_ITEM(typed, 0),
                                      PyTuple_GET_ITEM(typed, 1), PyTuple_GET_ITEM(typed, 2), ctx);
        Py_DECREF(typed);
        return walk_push(items, item);
    }
    if (PyList_CheckExact(kid)) { /* arrays inside /K are not in the spec but occur: inline them */
        PyObject *more = walk_array_items(w, kid, objgen);
        if (!more) return -1;
        int r = PyList_SetSlice(kids, at, at, more);
        Py_DECREF(more);
        return r;
    }
    if (kid == Py_None) return walk_warn(w, M_NULL_KID);
    PyObject *r = PyObject_CallOneArg(w->e[E_UNEXPECTED], kid);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static int walk_record(Walk *w, PyObject *item);

/* The items of an element that heads a level of the outline see one more headed ancestor. */
static int walk_headed(Walk *w, PyObject *items, PyObject *ctx) {
    PyObject *fields[C_COUNT];
    for (int i = 0; i < C_COUNT; i++) fields[i] = Py_NewRef(PyTuple_GET_ITEM(ctx, i));
    Py_DECREF(fields[C_HEADED_INCL]);
    fields[C_HEADED_INCL] = PyLong_FromLong(ctx_long(ctx, C_HEADED_INCL) + 1);
    PyObject *headed = walk_ctx(w, fields);
    if (!headed) return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *it = PyList_GET_ITEM(items, i);
        if (PyTuple_GET_ITEM(it, 0) != w->tag[TAG_ELEMENT]) continue;
        PyObject *copy = PyTuple_New(7);
        if (!copy) { Py_DECREF(headed); return -1; }
        for (int j = 0; j < 6; j++) PyTuple_SET_ITEM(copy, j, Py_NewRef(PyTuple_GET_ITEM(it, j)));
        PyTuple_SET_ITEM(copy, 6, Py_NewRef(headed));
        PyList_SetItem(items, i, copy);
    }
    Py_DECREF(headed);
    return 0;
}

/* _Walker._expand. */
static int walk_expand(Walk *w, PyObject *k, PyObject *ctx, int sectioning) {
    PyObject *value = walk_value(w, k), *kids;
    if (!value) return -1;
    if (PyList_CheckExact(value)) {
        kids = walk_array_items(w, value, PyTuple_CheckExact(k) ? k : w->e[E_NO_OBJGEN]);
    } else if ((kids = PyList_New(1))) { /* /K: one kid (Table 323) */
        PyList_SET_ITEM(kids, 0, Py_NewRef(k));
    }
    Py_DECREF(value);
    PyObject *items = kids ? PyList_New(0) : NULL;
    int elements = 0, headed = 0, failed = items ? 0 : -1;
    for (Py_ssize_t i = 0; !failed && i < PyList_GET_SIZE(kids);) {
        PyObject *kid = Py_NewRef(PyList_GET_ITEM(kids, i)), *objgen = w->e[E_NO_OBJGEN];
        i++;
        if (PyTuple_CheckExact(kid)) {
            objgen = kid;
            kid = walk_resolve(w, objgen);
            if (!kid) { Py_DECREF(objgen); failed = -1; break; }
        } else {
            Py_INCREF(objgen);
        }
        failed = walk_kid(w, kid, objgen, ctx, kids, i, items, &elements, &headed);
        Py_DECREF(kid);
        Py_DECREF(objgen);
    }
    if (!failed && !elements) {
        for (Py_ssize_t i = 0; !failed && i < PyList_GET_SIZE(items); i++) failed = walk_record(w, PyList_GET_ITEM(items, i));
    } else if (!failed) {
        if (sectioning && headed) failed = walk_headed(w, items, ctx);
        if (!failed) failed = PyList_Reverse(items);
        Py_ssize_t n = PyList_GET_SIZE(w->stack);
        if (!failed) failed = PyList_SetSlice(w->stack, n, n, items);
    }
    Py_XDECREF(kids);
    Py_XDECREF(items);
    return failed;
}

/* _Walker._record. */
/* _Walker._page_of_orphan: the page of content with no /Pg on its MCR,
 * element or ancestors, through /ParentTree (read once, by the host), else
 * the only page of a one-page document; None when neither places it. New reference. */
static PyObject *walk_orphan_page(Walk *w, PyObject *mcid, PyObject *stream, PyObject *element) {
    if (!w->parent_pages) {
        if (!(w->parent_pages = PyObject_CallNoArgs(w->e[E_PARENT_TREE]))) return NULL;
        if (!PyDict_CheckExact(w->parent_pages)) {
            Py_CLEAR(w->parent_pages);
            PyErr_SetString(PyExc_TypeError, "walk_struct: /ParentTree pages are a dict");
            return NULL;
        }
    }
    PyObject *elements = w->e[E_ELEMENTS];
    Py_ssize_t index = PyLong_AsSsize_t(element);
    if (index == -1 && PyErr_Occurred()) return NULL;
    if (index < 0 || index >= PyList_GET_SIZE(elements)) {
        PyErr_SetString(PyExc_IndexError, "walk_struct: content of an unknown element");
        return NULL;
    }
    PyObject *ref = PyObject_GetAttr(PyList_GET_ITEM(elements, index), w->name[N_F_REF]);
    if (!ref) return NULL;
    PyObject *pages = w->e[E_PAGES], *page = NULL;
    int found = 0;
    if (PyDict_GET_SIZE(w->parent_pages)) {
        int on_page = PyObject_RichCompareBool(stream, w->e[E_PAGE_STREAM], Py_EQ);
        PyObject *key = on_page > 0 && ref != Py_None ? PyTuple_Pack(2, ref, mcid) : NULL;
        if (on_page < 0 || (on_page > 0 && ref != Py_None && !key)) { Py_DECREF(ref); return NULL; }
        page = key ? PyDict_GetItemWithError(w->parent_pages, key) : NULL;
        Py_XDECREF(key);
        if (!page && PyErr_Occurred()) { Py_DECREF(ref); return NULL; }
        found = page != NULL;
        if (found && walk_warn(w, M_ORPHAN_PARENT_TREE) < 0) page = NULL;
    } else if (PyTuple_CheckExact(pages) && PyTuple_GET_SIZE(pages) == 1) {
        found = 1;
        page = walk_warn(w, M_ORPHAN_ONE_PAGE) < 0 ? NULL : PyTuple_GET_ITEM(pages, 0);
    }
    Py_DECREF(ref);
    if (found) return Py_XNewRef(page);
    return walk_warn(w, M_ORPHAN_DROPPED) < 0 ? NULL : Py_NewRef(Py_None);
}

static int walk_record(Walk *w, PyObject *item) {
    PyObject *mcid = PyTuple_GET_ITEM(item, 1), *stream = PyTuple_GET_ITEM(item, 2);
    PyObject *page = PyTuple_GET_ITEM(item, 3), *element = PyTuple_GET_ITEM(item, 4);
    if (page == Py_None) {
        page = walk_orphan_page(w, mcid, stream, element);
        if (!page) return -1;
        if (page == Py_None) { Py_DECREF(page); return 0; }
    } else {
        if (w->e[E_HAS_PAGES] == Py_True) {
            int known = PySet_Contains(w->e[E_PAGE_SET], page);
            if (known <= 0) return known < 0 ? -1 : walk_warn(w, M_NOT_PAGE);
        }
        Py_INCREF(page);
    }
    int failed = -1;
    PyObject *claimed = PyDict_GetItemWithError(w->e[E_CLAIMED], page), *key = NULL, *refs = NULL;
    if (!claimed) {
        if (PyErr_Occurred()) goto done;
        PyObject *fresh = PySet_New(NULL), *list = fresh ? PyList_New(0) : NULL;
        int bad = !list || PyDict_SetItem(w->e[E_CLAIMED], page, fresh) < 0 || PyDict_SetItem(w->e[E_CONTENT], page, list) < 0;
        Py_XDECREF(fresh);
        Py_XDECREF(list);
        if (bad) goto done;
        claimed = fresh; /* the dictionary holds it */
    }
    if (!(key = PyTuple_Pack(2, stream, mcid))) goto done;
    int twice = PySet_Contains(claimed, key);
    if (twice) { failed = twice < 0 ? -1 : walk_warn(w, M_ASSIGNED_TWICE); goto done; }
    if (PySet_Add(claimed, key) < 0 || !(refs = PyDict_GetItemWithError(w->e[E_CONTENT], page))) goto done;
    PyObject *fields[3] = {Py_NewRef(mcid), Py_NewRef(stream), Py_NewRef(element)};
    failed = walk_push(refs, walk_instance(w, w->e[E_REF_CLS], N_F_MCID, fields, 3, w->ref_slots));
done:
    Py_DECREF(page);
    Py_XDECREF(key);
    if (failed < 0 && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "structure walk failed");
    return failed;
}

static void walk_free(Walk *w) {
    Py_CLEAR(w->parent_pages);
    for (int i = 0; i < N_COUNT; i++) Py_CLEAR(w->name[i]);
    for (int i = 0; i < 3; i++) Py_CLEAR(w->tag[i]);
    Py_CLEAR(w->empty);
    Py_CLEAR(w->zero);
}

static PyObject *core_walk_struct(PyObject *mod, PyObject *args) {
    (void)mod;
    Walk w;
    memset(&w, 0, sizeof w);
    PyObject *env;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &w.stack, &PyTuple_Type, &env)) return NULL;
    if (PyTuple_GET_SIZE(env) != E_COUNT) { PyErr_SetString(PyExc_ValueError, "walk_struct: env has the wrong size"); return NULL; }
    for (int i = 0; i < E_COUNT; i++) w.e[i] = PyTuple_GET_ITEM(env, i);
    PyObject *msgs = w.e[E_MESSAGES];
    if (!PyTuple_Check(msgs) || PyTuple_GET_SIZE(msgs) != M_COUNT || !PyDict_Check(w.e[E_CACHE]) ||
        !PyDict_Check(w.e[E_RESOLVED]) || !PyDict_Check(w.e[E_TEXTS]) || !PyDict_Check(w.e[E_CLAIMED]) ||
        !PyDict_Check(w.e[E_CONTENT]) || !PyList_Check(w.e[E_ELEMENTS]) || !PyAnySet_Check(w.e[E_SEEN]) ||
        !PyAnySet_Check(w.e[E_ON_PATH]) || !PyAnySet_Check(w.e[E_PAGE_SET]) || !PyType_Check(w.e[E_CTX_TYPE]) ||
        !PyType_IsSubtype((PyTypeObject *)w.e[E_CTX_TYPE], &PyTuple_Type) || !PyType_Check(w.e[E_ELEMENT_CLS]) ||
        !PyType_Check(w.e[E_REF_CLS]) || !PyTuple_Check(w.e[E_NO_OBJGEN]) || PyTuple_GET_SIZE(w.e[E_NO_OBJGEN]) != 2) {
        PyErr_SetString(PyExc_TypeError, "walk_struct: env is not the walker's");
        return NULL;
    }
    for (int i = 0; i < M_COUNT; i++) w.msg[i] = PyTuple_GET_ITEM(msgs, i);
    w.max_depth = PyLong_AsLong(w.e[E_MAX_DEPTH]);
    if (w.max_depth == -1 && PyErr_Occurred()) return NULL;
    for (int i = 0; i < N_COUNT; i++)
        if (!(w.name[i] = PyUnicode_InternFromString(WALK_NAMES[i]))) { walk_free(&w); return NULL; }
    for (int i = 0; i < 3; i++) w.tag[i] = PyLong_FromLong(i);
    w.zero = PyLong_FromLong(0);
    if (!(w.empty = PyTuple_New(0)) || !w.zero) { walk_free(&w); return NULL; }
    walk_slots(&w, w.e[E_ELEMENT_CLS], N_F_INDEX, 19, w.element_slots);
    walk_slots(&w, w.e[E_REF_CLS], N_F_MCID, 3, w.ref_slots);
    int failed = 0;
    while (!failed && PyList_GET_SIZE(w.stack)) {
        Py_ssize_t n = PyList_GET_SIZE(w.stack);
        PyObject *item = Py_NewRef(PyList_GET_ITEM(w.stack, n - 1));
        failed = PyList_SetSlice(w.stack, n - 1, n, NULL);
        if (!failed && (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 2)) {
            PyErr_SetString(PyExc_TypeError, "walk_struct: a stack item is a tuple");
            failed = -1;
        }
        if (!failed) {
            long tag = PyLong_AsLong(PyTuple_GET_ITEM(item, 0));
            if (tag == TAG_ELEMENT && PyTuple_GET_SIZE(item) == 7) failed = walk_visit(&w, item);
            else if (tag == TAG_CONTENT && PyTuple_GET_SIZE(item) == 5) failed = walk_record(&w, item);
            else failed = PySet_Discard(w.e[E_ON_PATH], PyTuple_GET_ITEM(item, 1)) < 0 ? -1 : 0;
        }
        Py_DECREF(item);
    }
    failed = walk_flush(&w) < 0 || failed;
    walk_free(&w);
    if (failed) return NULL;
    Py_RETURN_NONE;
}


/* ---- the structure tree read over the object streams' bytes -------------
 *
 * TreeObjects(streams, present, known, exists, refs) parses every object of
 * a document's object streams (§7.5.7; `streams` a list of (data, spans) as
 * parse_objects takes them) once, into a C arena of nodes: no Python dict,
 * list, str or tuple per object, key, value or item. Two readers use it:
 *
 * value(number): the object as parse_objects would have put it in
 *   PlainObjects' cache (the same parse, stream_object, of the same bytes,
 *   the first of its spans that parses), NotImplemented when no span holds
 *   it: PlainObjects reads only what Python asks for (the root, the role map,
 *   a cell's attributes, the /ParentTree) instead of every object.
 *
 * walk(env): _Walker's walk (structure.py, and walk_struct above) over the
 *   nodes, writing the elements and marked-content references straight
 *   into the walker's lists. It walks what a tagged document usually holds
 *   and answers NotImplemented at the first thing it leaves to the walkers
 *   above (a namespace, an /Stm, a /Pg that is not a page, a reference to an
 *   object outside the streams or to a generation other than 0, a kid of an
 *   unexpected kind, an exception out of Python): the caller then reads the
 *   whole tree again through them, from a fresh walker.
 *
 * A value reads as parse_object reads it: the last entry of a key whose
 * value is neither null nor a reference to a missing object (§7.3.7,
 * §7.3.10; `present`, `known` and `exists` say which objects exist, as for
 * parse_objects). The parse is parse_span's (the same tokens, the same
 * malformed objects), through an explicit stack: no recursion on the
 * input's nesting; every index is checked against its buffer; object
 * numbers are held up to a bound tied to the number of spans. */

enum { NK_NULL, NK_BOOL, NK_INT, NK_REAL, NK_NAME, NK_STRING, NK_ARRAY, NK_DICT, NK_REF, NK_OTHER };

/* ARRAY: items[a, a + count); DICT: entries[a, a + count); STRING:
 * strs[a, a + count); NAME: a, its id; BOOL, INT: a; REF: a number, b generation.
 * keys (a DICT's): bit k set when a key of name id k < 32 may be among its
 * entries (the walk's names, TREE_KEYS, are ids 0 to TK_COUNT - 1): a clear
 * bit answers "absent" without a look at the entries. All set where unknown. */
typedef struct { int kind; unsigned keys; Py_ssize_t count; long long a, b; } TNode;
typedef struct { Py_ssize_t key, value; } TEntry;
typedef struct { size_t off, len; uint64_t w0, w1; uint32_t hash; } TName; /* w0, w1, hash: tree_intern's key */
typedef struct { Py_ssize_t stream, start, end, next; } TSpan;
typedef struct { int is_dict, has_key; unsigned keys; Py_ssize_t start, key; } TFrame;
#define TREE_ALL_KEYS 0xFFFFFFFFu
static inline unsigned tree_key_bit(Py_ssize_t name) { return name >= 0 && name < 32 ? 1u << name : 0u; }
/* May dictionary node `d` have an entry of key `name`? (0: it has none.) */
#define TREE_MAY_HAVE(d, name) ((size_t)(name) >= 32 || ((d)->keys >> (name) & 1u)) /* tree_key_bit's test, in one shift */

#define TREE_MAX_NUMBERS (1 << 24)
enum { EXIST_UNKNOWN, EXIST_YES, EXIST_NO };
#define TREE_UNPARSED (-3) /* root[]: held by one span, parsed when the walk first reads it */
/* root[]: TREE_KIDS_BASE - node: a dictionary not held for its /Kids alone
 * (tree_maybe_page_node's PAGE_KIDS), kept for the walk (tree_kids_node). */
#define TREE_KIDS_BASE (-4)

/* The names the walk reads. */
static const char *const TREE_KEYS[] = {
    "/K", "/Pg", "/Lang", "/ActualText", "/Alt", "/S", "/NS", "/Type", "/MCID", "/Obj", "/Stm", "/A", "/C", "/ID",
    "/Parent", "/Kids", "/MCR", "/OBJR", "/StructElem", "/Page", "/Pages",
    "/O", "/RowSpan", "/ColSpan", "/Scope", "/Headers", "/Table", "/Row", "/Column", "/Both", "/Nums",
};
enum {
    TK_K, TK_PG, TK_LANG, TK_ACTUAL_TEXT, TK_ALT, TK_S, TK_NS, TK_TYPE, TK_MCID, TK_OBJ, TK_STM, TK_A, TK_C, TK_ID,
    TK_PARENT, TK_KIDS, TK_MCR, TK_OBJR, TK_STRUCT_ELEM, TK_PAGE, TK_PAGES,
    TK_O, TK_ROW_SPAN, TK_COL_SPAN, TK_SCOPE, TK_HEADERS, TK_TABLE, TK_ROW, TK_COLUMN, TK_BOTH, TK_NUMS, TK_COUNT
};

/* A name the parse met lately, by its key words (tree_name_words): its id
 * without a look in the name table. A slot of length 0 is empty. */
typedef struct { uint64_t w0, w1; size_t len; Py_ssize_t id; } TNameSeen;
#define TREE_SEEN_NAMES 256

typedef struct {
    PyObject_HEAD
    Buf nodes, items, entries, strs, names, name_bytes, spans, views;
    Py_ssize_t *name_table; /* name id + 1 per slot, 0 when empty */
    Py_ssize_t name_slots, nnames;
    Py_ssize_t nnumbers;    /* numbers below this are held */
    Py_ssize_t *root;       /* per number: its node, -1 when not held, TREE_UNPARSED */
    Buf scratch[3];         /* tree_parse's token bytes, open containers and pending items */
    Py_ssize_t *first_span; /* per number: its first span, -1 for none */
    unsigned char *exist;   /* per number: EXIST_* */
    PyObject *streams, *known, *check, *refs;
    Py_buffer present;
    Py_ssize_t key[TK_COUNT];
    Py_ssize_t null_node;   /* tree_flat's one node for every null it reads (-1: none yet) */
    int complete; /* every span's number is held (value() answers for each) */
    TNameSeen seen_names[TREE_SEEN_NAMES]; /* the parse's names, by their key words (tree_seen_name) */
} TreeObjects;

static void tree_views_release(TreeObjects *t) {
    Py_buffer *v = (Py_buffer *)t->views.data;
    for (size_t i = 0; i < t->views.len / sizeof(Py_buffer); i++) PyBuffer_Release(&v[i]);
    buf_free(&t->views);
}

static void TreeObjects_dealloc(TreeObjects *t) {
    buf_free(&t->nodes); buf_free(&t->items); buf_free(&t->entries); buf_free(&t->strs);
    buf_free(&t->names); buf_free(&t->name_bytes); buf_free(&t->spans);
    for (int i = 0; i < 3; i++) buf_free(&t->scratch[i]);
    tree_views_release(t);
    PyMem_Free(t->name_table); PyMem_Free(t->root); PyMem_Free(t->first_span); PyMem_Free(t->exist);
    if (t->present.buf) PyBuffer_Release(&t->present);
    Py_XDECREF(t->streams); Py_XDECREF(t->known); Py_XDECREF(t->check); Py_XDECREF(t->refs);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static TNode *tnode(const TreeObjects *t, Py_ssize_t id) { return (TNode *)t->nodes.data + id; }
static Py_ssize_t tnode_count(const TreeObjects *t) { return (Py_ssize_t)(t->nodes.len / sizeof(TNode)); }


/* ---- names interned by their first 16 bytes ------------------------------
 * A name's key is its length and its first 16 bytes as two little-endian
 * words (zero past its end); longer names also compare their tail. The
 * parse loads the words straight from the bytes where 16 of them are
 * there, the hash is a few multiplications of them, and the probe compares
 * words, not bytes: interning costs the same whatever the name's length up
 * to 16 (most are shorter: /K, /Pg, /StructElem). */
#define TREE_HASH_SEED 2166136261u

static inline uint64_t tree_low_bytes(uint64_t w, size_t n) { return n >= 8 ? w : n ? w & (~0ull >> (64 - 8 * n)) : 0; }

/* The key words of name p[0, len); `limit`: how far p may be read (16 bytes loaded at once when it allows). */
static inline void tree_name_words(const unsigned char *p, size_t len, const unsigned char *limit, uint64_t *w0, uint64_t *w1) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (limit - p >= 16) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        *w0 = tree_low_bytes(a, len);
        *w1 = len > 8 ? tree_low_bytes(b, len - 8) : 0;
        return;
    }
#else
    (void)limit;
#endif
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i < len && i < 8; i++) a |= (uint64_t)p[i] << (8 * i);
    for (size_t i = 8; i < len && i < 16; i++) b |= (uint64_t)p[i] << (8 * (i - 8));
    *w0 = a;
    *w1 = b;
}

/* The hash of a name of key words w0, w1 and length len (its tail past 16 bytes hashed too: long names differ there). */
static inline uint32_t tree_name_hash(uint64_t w0, uint64_t w1, const unsigned char *p, size_t len) {
    uint64_t h = (w0 ^ ((uint64_t)len * 0x9E3779B97F4A7C15ull)) * 0xC2B2AE3D27D4EB4Full;
    h ^= (w1 + (h >> 31)) * 0x165667B19E3779F9ull;
    uint32_t out = (uint32_t)(h ^ (h >> 32));
    for (size_t i = 16; i < len; i++) out = (out ^ p[i]) * 16777619u; /* FNV-1a over the tail */
    return out;
}

/* The id of name p[0, len) (with its slash) of key words w0, w1, interned in the arena. */
static Py_ssize_t tree_intern_words(TreeObjects *t, const unsigned char *p, size_t len, uint64_t w0, uint64_t w1) {
    uint32_t hash = tree_name_hash(w0, w1, p, len);
    if (2 * (t->nnames + 1) > t->name_slots) {
        Py_ssize_t slots = t->name_slots ? 2 * t->name_slots : 64;
        Py_ssize_t *table = PyMem_Calloc((size_t)slots, sizeof(Py_ssize_t));
        if (!table) { PyErr_NoMemory(); return -1; }
        const TName *names = (const TName *)t->names.data;
        for (Py_ssize_t id = 0; id < t->nnames; id++) {
            size_t s = names[id].hash & (size_t)(slots - 1);
            while (table[s]) s = (s + 1) & (size_t)(slots - 1);
            table[s] = id + 1;
        }
        PyMem_Free(t->name_table);
        t->name_table = table;
        t->name_slots = slots;
    }
    size_t s = hash & (size_t)(t->name_slots - 1);
    for (; t->name_table[s]; s = (s + 1) & (size_t)(t->name_slots - 1)) {
        const TName *n = (const TName *)t->names.data + (t->name_table[s] - 1);
        if (n->w0 == w0 && n->w1 == w1 && n->len == len &&
            (len <= 16 || !memcmp(t->name_bytes.data + n->off + 16, p + 16, len - 16)))
            return t->name_table[s] - 1;
    }
    TName n = {t->name_bytes.len, len, w0, w1, hash};
    if (buf_append(&t->name_bytes, p, len) < 0 || buf_append(&t->names, &n, sizeof n) < 0) return -1;
    t->name_table[s] = t->nnames + 1;
    return t->nnames++;
}

/* The id of name p[0, len) (with its slash), interned in the arena; `limit` as tree_name_words. */
static Py_ssize_t tree_intern(TreeObjects *t, const unsigned char *p, size_t len, const unsigned char *limit) {
    uint64_t w0, w1;
    tree_name_words(p, len, limit, &w0, &w1);
    return tree_intern_words(t, p, len, w0, w1);
}

static Py_ssize_t tree_name(TreeObjects *t, const unsigned char *p, size_t len) { return tree_intern(t, p, len, p + len); }

/* tree_intern through the names met lately: a document writes the same few
 * names over and over (/K, /P, /Pg, /S, /StructElem), and one of at most 16
 * bytes is found by its words in one slot, with no hash of its bytes. */
static inline __attribute__((always_inline)) Py_ssize_t tree_seen_name(TreeObjects *t, const unsigned char *p, size_t len,
                                                                      const unsigned char *limit) {
    if (len > 16) return tree_intern(t, p, len, limit);
    uint64_t w0, w1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len <= 8 && limit - p >= 8) { /* most names: one word, w1 0 (tree_name_words' words, fewer branches) */
        memcpy(&w0, p, 8);
        w0 &= ~0ull >> (64 - 8 * len); /* len >= 1: the slash */
        TNameSeen *slot = &t->seen_names[((w0 ^ len) * 0x9E3779B97F4A7C15ull) >> 56];
        if (slot->w0 == w0 && slot->len == len) return slot->id; /* a name of len <= 8 bytes: its w1 is 0 */
        w1 = 0;
    } else
#endif
        tree_name_words(p, len, limit, &w0, &w1);
    TNameSeen *slot = &t->seen_names[((w0 ^ (w1 << 1) ^ len) * 0x9E3779B97F4A7C15ull) >> 56];
    if (slot->w0 == w0 && slot->w1 == w1 && slot->len == len) return slot->id;
    Py_ssize_t id = tree_intern_words(t, p, len, w0, w1);
    if (id >= 0) *slot = (TNameSeen){w0, w1, len, id};
    return id;
}

static int tree_malformed(void) { return 1; } /* not one well-formed object: not held */

/* ---- the parse: one object's bytes into nodes ----------------------------
 * tree_parse reads parse_span's grammar with next_token's tokens, through
 * an explicit stack. The tokens a tree is mostly made of are read here
 * straight from the bytes: the delimiters of dictionaries and arrays, a
 * name without '#' escapes (lex_name would copy it unchanged), an integer
 * or a reference "N G R" written with white space only between its tokens,
 * null, true and false; anything else (a string, a real, a sign, a
 * comment inside a reference, an escape) is read by next_token, as before.
 * The arena, the open containers and the pending items are reserved a
 * batch of steps at a time (each step makes at most one node, one frame
 * and one pending item), so a step writes them without a check. */
#define TREE_BATCH 256

static int tree_batch(TreeObjects *t, Buf *frames, Buf *pending) {
    return buf_reserve(&t->nodes, TREE_BATCH * sizeof(TNode)) < 0 || buf_reserve(frames, TREE_BATCH * sizeof(TFrame)) < 0 ||
                   buf_reserve(pending, TREE_BATCH * sizeof(TEntry)) < 0
               ? -1 : 0;
}

/* A node where the batch reserved room. */
static inline __attribute__((always_inline)) Py_ssize_t tree_push_node(TreeObjects *t, int kind, Py_ssize_t count, long long a,
                                                                      long long b) {
    TNode *n = (TNode *)(t->nodes.data + t->nodes.len);
    n->kind = kind;
    n->keys = TREE_ALL_KEYS;
    n->count = count;
    n->a = a;
    n->b = b;
    t->nodes.len += sizeof(TNode);
    return (Py_ssize_t)(t->nodes.len / sizeof(TNode)) - 1;
}

/* Inline: the few node makers below the parse (tree_value, tw_node_of) check for room. */
static inline __attribute__((always_inline)) Py_ssize_t tree_add_node(TreeObjects *t, int kind, Py_ssize_t count, long long a,
                                                                     long long b) {
    if (buf_reserve(&t->nodes, sizeof(TNode)) < 0) return -1;
    return tree_push_node(t, kind, count, a, b);
}

/* Put node `id` (of kind `kind`; a name's id `name`) where the innermost
 * open container wants it (parse_span's place_value), in room the batch
 * reserved. 0, 1 when malformed. */
static inline __attribute__((always_inline)) int tree_place(Buf *frames, Buf *pending, Py_ssize_t *result, Py_ssize_t id, int kind,
                                                            Py_ssize_t name) {
    if (!frames->len) {
        if (*result >= 0) return tree_malformed();
        *result = id;
        return 0;
    }
    TFrame *top = (TFrame *)(frames->data + frames->len) - 1;
    if (top->is_dict && !top->has_key) {
        if (kind != NK_NAME) return tree_malformed();
        top->has_key = 1;
        top->key = name;
        top->keys |= tree_key_bit(name);
        return 0;
    }
    if (top->is_dict) {
        TEntry *e = (TEntry *)(pending->data + pending->len);
        e->key = top->key;
        e->value = id;
        top->has_key = 0;
        pending->len += sizeof(TEntry);
        return 0;
    }
    *(Py_ssize_t *)(pending->data + pending->len) = id;
    pending->len += sizeof(Py_ssize_t);
    return 0;
}

static inline void tree_open(Buf *frames, const Buf *pending, int is_dict) {
    TFrame *f = (TFrame *)(frames->data + frames->len);
    *f = (TFrame){is_dict, 0, 0, (Py_ssize_t)pending->len, 0};
    frames->len += sizeof(TFrame);
}

static int tree_close(TreeObjects *t, Buf *frames, Buf *pending, Py_ssize_t *result, int is_dict) {
    size_t depth = frames->len / sizeof(TFrame);
    if (!depth) return tree_malformed();
    TFrame top = ((TFrame *)frames->data)[depth - 1];
    if (top.is_dict != is_dict || top.has_key) return tree_malformed();
    size_t size = is_dict ? sizeof(TEntry) : sizeof(Py_ssize_t);
    Buf *into = is_dict ? &t->entries : &t->items;
    size_t count = (pending->len - (size_t)top.start) / size;
    Py_ssize_t first = (Py_ssize_t)(into->len / size);
    if (buf_append(into, pending->data + top.start, pending->len - (size_t)top.start) < 0) return -1;
    pending->len = (size_t)top.start;
    frames->len -= sizeof(TFrame);
    Py_ssize_t id = tree_push_node(t, is_dict ? NK_DICT : NK_ARRAY, (Py_ssize_t)count, first, 0);
    if (is_dict) tnode(t, id)->keys = top.keys;
    return tree_place(frames, pending, result, id, is_dict ? NK_DICT : NK_ARRAY, 0);
}

/* A value token (parse_span's plain_value) as a node. -1 on error. */
static Py_ssize_t tree_value(TreeObjects *t, Lexer *lx, const Token *tok, const Buf *bytes, const unsigned char *start,
                             const unsigned char *stop) {
    long long number, gen = 0;
    switch (tok->obj.type) {
    case T_INT:
        number = token_int(start, stop);
        if (number >= 0 && reference_follows(lx, &gen)) return tree_add_node(t, NK_REF, 0, number, gen);
        return tree_add_node(t, NK_INT, 0, number, 0);
    case T_REAL: return tree_add_node(t, NK_REAL, 0, 0, 0);
    case T_BOOL: return tree_add_node(t, NK_BOOL, 0, tok->obj.num != 0.0, 0);
    case T_STR: {
        long long off = (long long)t->strs.len;
        if (buf_append(&t->strs, bytes->data + tok->obj.off, tok->obj.len) < 0) return -1;
        return tree_add_node(t, NK_STRING, (Py_ssize_t)tok->obj.len, off, 0);
    }
    case T_NAME: {
        Py_ssize_t name = tree_name(t, (const unsigned char *)bytes->data + tok->obj.off - 1, tok->obj.len + 1);
        return name < 0 ? -1 : tree_add_node(t, NK_NAME, 0, name, 0);
    }
    default: return tree_add_node(t, NK_NULL, 0, 0, 0);
    }
}

static inline int tree_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* What ends a name's plain bytes: white space, a delimiter (CHAR_CLASS), or a '#' escape. */
static const unsigned char NAME_STOP[256] = {
    [0] = 1, [9] = 1, [10] = 1, [12] = 1, [13] = 1, [32] = 1, ['('] = 1, [')'] = 1, ['<'] = 1, ['>'] = 1,
    ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1, ['/'] = 1, ['%'] = 1, ['#'] = 1,
};

/* A plain name at p (no '#' escape): its id and *after past it; -2 where
 * next_token reads it, -1 on error. The bytes may be read up to `limit`
 * (the stream's end, past the object's: tree_name_words loads 16 at once). */
static inline __attribute__((always_inline)) Py_ssize_t tree_fast_name(TreeObjects *t, const unsigned char *p,
                                                                      const unsigned char *end, const unsigned char *limit,
                                                                      const unsigned char **after) {
    const unsigned char *q = p + 1;
    while (q < end && !NAME_STOP[*q]) q++;
    if (q < end && *q == '#') return -2;
    *after = q;
    return tree_seen_name(t, p, (size_t)(q - p), limit);
}

/* An integer or a reference at p (a digit), as next_token and
 * reference_follows read it: the node, p moved past it; -2 where next_token
 * reads it (19 digits or more, a sign, a real, a comment between the
 * reference's tokens, a generation of more than 5 digits). */
static inline __attribute__((always_inline)) Py_ssize_t tree_fast_number(TreeObjects *t, const unsigned char **at,
                                                                        const unsigned char *end) {
    const unsigned char *p = *at, *q = p;
    unsigned long long number = 0;
    while (q < end && tree_digit(*q)) number = number * 10 + (unsigned)(*q++ - '0');
    if (q - p > 18 || (q < end && !CHAR_CLASS[*q])) return -2;
    if (end - q >= 4 && q[0] == ' ' && q[1] == '0' && q[2] == ' ' && q[3] == 'R' && (end - q == 4 || CHAR_CLASS[q[4]])) {
        *at = q + 4; /* "N 0 R", as most references are written: what the reading below gives, without its loops */
        return tree_push_node(t, NK_REF, 0, (long long)number, 0);
    }
    const unsigned char *r = q;
    while (r < end && is_white(*r)) r++;
    if (r < end && (tree_digit(*r) || *r == '%' || *r == '+' || *r == '-' || *r == '.')) {
        /* "N G R"? G: 1 to 5 digits (at most 65535) ending a token, then "R" ending one */
        const unsigned char *g = r;
        unsigned long long gen = 0; /* unsigned: a long run of digits wraps (it is refused below), no overflow */
        while (r < end && tree_digit(*r)) gen = gen * 10 + (unsigned)(*r++ - '0');
        if (r - g < 1 || r - g > 5 || gen > 65535 || (r < end && !CHAR_CLASS[*r])) return -2;
        const unsigned char *rr = r;
        while (rr < end && is_white(*rr)) rr++;
        if (rr < end && *rr == 'R' && (rr + 1 == end || CHAR_CLASS[rr[1]])) {
            *at = rr + 1; /* rr > r: the R is not the generation's own byte */
            return tree_push_node(t, NK_REF, 0, (long long)number, (long long)gen);
        }
        if (rr < end && (*rr == 'R' || *rr == '%')) return -2; /* "RG", a comment: next_token's to read */
        /* N G and no R: N is an integer (reference_follows reads G and finds no R) */
    }
    *at = q;
    return tree_push_node(t, NK_INT, 0, (long long)number, 0);
}

/* "null", "true" or "false" whole at p (next_token's keywords that are objects): the node, p past it; else -2. */
static inline __attribute__((always_inline)) Py_ssize_t tree_fast_word(TreeObjects *t, const unsigned char **at, const unsigned char *end, int *kind) {
    const unsigned char *p = *at;
    size_t room = (size_t)(end - p), n = *p == 'f' ? 5 : 4;
    if (room < n || (room > n && !CHAR_CLASS[p[n]])) return -2;
    *at = p + n;
    if (n == 4 && !memcmp(p, "null", 4)) { *kind = NK_NULL; return tree_push_node(t, NK_NULL, 0, 0, 0); }
    if (n == 4 && !memcmp(p, "true", 4)) { *kind = NK_BOOL; return tree_push_node(t, NK_BOOL, 0, 1, 0); }
    if (n == 5 && !memcmp(p, "false", 5)) { *kind = NK_BOOL; return tree_push_node(t, NK_BOOL, 0, 0, 0); }
    *at = p;
    return -2;
}

/* One token next_token reads (the parse's slow path): 0 to go on, 1 when
 * malformed or at the end (*done), -1 on error. */
static int tree_slow_token(TreeObjects *t, Lexer *lx, Buf *bytes, Buf *frames, Buf *pending, Py_ssize_t *result, int *done) {
    Token tok;
    bytes->len = 0;
    if (buf_append(bytes, "/", 1) < 0) return -1;
    const unsigned char *start = lx->p;
    int kind = next_token(lx, &tok, bytes);
    const unsigned char *stop = lx->p;
    switch (kind) {
    case K_EOF:
        *done = 1;
        return frames->len || *result < 0 || start < lx->end;
    case K_ERROR: case K_KEYWORD: return 1;
    case K_ARRAY_OPEN: case K_DICT_OPEN: tree_open(frames, pending, kind == K_DICT_OPEN); return 0;
    case K_ARRAY_CLOSE: case K_DICT_CLOSE: return tree_close(t, frames, pending, result, kind == K_DICT_CLOSE);
    default: {
        Py_ssize_t id = tree_value(t, lx, &tok, bytes, start, stop);
        if (id < 0) return -1;
        const TNode *n = tnode(t, id);
        return tree_place(frames, pending, result, id, n->kind, (Py_ssize_t)n->a);
    }
    }
}

/* The value after a dictionary's key at p (frame `top` holds the key), in
 * the same step, where it is what the next steps would read fast (white
 * space, then a plain name, an integer or a reference): its node and the
 * entry, as tree_place puts them; the bytes past it. Else p, untouched, for
 * the next step to read. A step makes one node and one pending item at most,
 * as the batch reserved: the key made none. *status -1 on error. */
static inline __attribute__((always_inline)) const unsigned char *tree_entry_value(TreeObjects *t, TFrame *top, Buf *pending,
                                                                                  const unsigned char *p, const unsigned char *end,
                                                                                  const unsigned char *limit, Py_ssize_t *status) {
    const unsigned char *v = p, *after = p;
    while (v < end && is_white(*v)) v++;
    Py_ssize_t id = -2;
    *status = 0;
    if (v >= end) return p;
    if (*v == '/') {
        Py_ssize_t name = tree_fast_name(t, v, end, limit, &after);
        if (name == -1) { *status = -1; return p; }
        if (name >= 0) id = tree_push_node(t, NK_NAME, 0, name, 0);
    } else if (tree_digit(*v)) {
        after = v;
        id = tree_fast_number(t, &after, end);
    }
    if (id < 0) return p;
    TEntry *e = (TEntry *)(pending->data + pending->len);
    e->key = top->key;
    e->value = id;
    top->has_key = 0;
    pending->len += sizeof(TEntry);
    return after;
}

/* An array's items after its '[' at p, each in a step of its own while
 * they are integers or references (a /K array's kids, a /ParentTree
 * entry's owners) and the batch has steps left (*budget): each a node and a
 * pending item, as tree_place puts them; the bytes past the last. */
static inline __attribute__((always_inline)) const unsigned char *tree_array_numbers(TreeObjects *t, Buf *pending,
                                                                                    const unsigned char *p,
                                                                                    const unsigned char *end, int *budget) {
    while (*budget > 0) {
        const unsigned char *v = p;
        while (v < end && is_white(*v)) v++;
        if (v >= end || !tree_digit(*v)) break;
        Py_ssize_t id = tree_fast_number(t, &v, end);
        if (id < 0) break;
        *(Py_ssize_t *)(pending->data + pending->len) = id;
        pending->len += sizeof(Py_ssize_t);
        (*budget)--;
        p = v;
    }
    return p;
}

/* One object from p..end as nodes (parse_span's grammar): its node, -2 when
 * it is not one well-formed object, -1 on error. What a malformed object
 * left in the arena stays there, unreferenced. */
static Py_ssize_t tree_parse(TreeObjects *t, const unsigned char *p, const unsigned char *end, const unsigned char *limit,
                             Buf *bytes, Buf *frames, Buf *pending) {
    frames->len = pending->len = 0;
    Py_ssize_t result = -1;
    int status = 0, done = 0, budget = 0;
    while (!status && !done) {
        if (!budget--) {
            if (tree_batch(t, frames, pending) < 0) return -1;
            budget = TREE_BATCH - 1;
        }
        while (p < end && is_white(*p)) p++;
        if (p >= end) {
            status = frames->len || result < 0;
            break;
        }
        unsigned char c = *p;
        Py_ssize_t id = -2, name = 0;
        int kind = NK_NULL;
        switch (c) {
        case '[':
            tree_open(frames, pending, 0);
            p = tree_array_numbers(t, pending, p + 1, end, &budget);
            continue;
        case ']': p++; status = tree_close(t, frames, pending, &result, 0); continue;
        case '<':
            if (p + 1 < end && p[1] == '<') { p += 2; tree_open(frames, pending, 1); continue; }
            break;
        case '>':
            if (p + 1 < end && p[1] == '>') { p += 2; status = tree_close(t, frames, pending, &result, 1); continue; }
            break;
        case '%': {
            Lexer lx = {.p = p, .end = end};
            skip_white_and_comments(&lx);
            p = lx.p;
            continue;
        }
        case '/': {
            const unsigned char *after = p;
            name = tree_fast_name(t, p, end, limit, &after);
            if (name == -1) return -1;
            if (name == -2) break;
            p = after;
            TFrame *top = frames->len ? (TFrame *)(frames->data + frames->len) - 1 : NULL;
            if (top && top->is_dict && !top->has_key) { /* a dictionary's key: its id straight into the frame, no node */
                top->has_key = 1;
                top->key = name;
                top->keys |= tree_key_bit(name);
                p = tree_entry_value(t, top, pending, p, end, limit, &name);
                if (name == -1) return -1;
                continue;
            }
            kind = NK_NAME;
            id = tree_push_node(t, NK_NAME, 0, name, 0);
            break;
        }
        case 'n': case 't': case 'f': id = tree_fast_word(t, &p, end, &kind); break;
        default:
            if (tree_digit(c)) {
                id = tree_fast_number(t, &p, end);
                if (id >= 0) kind = tnode(t, id)->kind;
            }
        }
        if (id >= 0) {
            status = tree_place(frames, pending, &result, id, kind, name);
            continue;
        }
        Lexer lx;
        lx.p = p;
        lx.end = end;
        lx.nops = lx.non_numbers = 0;
        status = tree_slow_token(t, &lx, bytes, frames, pending, &result, &done);
        p = lx.p;
    }
    if (status < 0) return -1;
    return status ? -2 : result;
}

/* ---- the flat parse: most objects, straight into the arena ---------------
 * Most objects of a tagged tree are nearly flat: a dictionary whose values
 * are names, numbers, references, strings, null, true, false, arrays of
 * those, or dictionaries of those (an element: /S, /P, /Pg, /K [...], an
 * MCR or OBJR dictionary among its kids, an /A attribute dictionary), or
 * one such array (a /ParentTree entry). tree_flat reads those with no stack
 * of open containers: the outer dictionary's entries wait in a local array
 * (at most TREE_FLAT_ENTRIES), an inner dictionary's and an array's go
 * straight to their places in the arena (no container of the same kind is
 * open inside them), so no pending items are copied at each close.
 * Anything else (an array in an array, an array in an inner dictionary, a
 * comment, a '#' escape, a sign or a real, bytes after the object, an
 * object over TREE_FLAT_MAX bytes) gives the object back to tree_parse
 * with the arena as it was: the tokens are read as tree_parse reads them
 * (tree_fast_name, tree_fast_number, tree_fast_word, next_token), so where
 * tree_flat answers, its nodes say what tree_parse's would. */
#define TREE_FLAT_MAX 65536
#define TREE_FLAT_ENTRIES 48
#define TREE_FLAT_BACK (-2)

static inline __attribute__((always_inline)) const unsigned char *tree_skip_white(const unsigned char *p, const unsigned char *end) {
    while (p < end && is_white(*p)) p++;
    return p;
}

/* A string token at p ('(' or '<' not followed by '<') as next_token reads it: its node, *at past it; TREE_FLAT_BACK else. */
static Py_ssize_t tree_flat_string(TreeObjects *t, const unsigned char **at, const unsigned char *end, Buf *bytes) {
    Token tok;
    Lexer lx;
    lx.p = *at;
    lx.end = end;
    lx.nops = lx.non_numbers = 0;
    bytes->len = 0;
    if (buf_append(bytes, "/", 1) < 0) return -1;
    if (next_token(&lx, &tok, bytes) != K_OBJECT || tok.obj.type != T_STR) return TREE_FLAT_BACK;
    long long off = (long long)t->strs.len;
    if (buf_append(&t->strs, bytes->data + tok.obj.off, tok.obj.len) < 0) return -1;
    *at = lx.p;
    return tree_push_node(t, NK_STRING, (Py_ssize_t)tok.obj.len, off, 0);
}

/* One value at p that is no container: its node, *at past it; TREE_FLAT_BACK where tree_parse reads it, -1 on error. */
static inline __attribute__((always_inline)) Py_ssize_t tree_flat_scalar(TreeObjects *t, const unsigned char **at,
                                                                        const unsigned char *end, const unsigned char *limit,
                                                                        Buf *bytes) {
    const unsigned char *p = *at;
    unsigned char c = *p;
    if (c == '/') {
        Py_ssize_t name = tree_fast_name(t, p, end, limit, at);
        return name < 0 ? (name == -1 ? -1 : TREE_FLAT_BACK) : tree_push_node(t, NK_NAME, 0, name, 0);
    }
    if (tree_digit(c)) return tree_fast_number(t, at, end); /* -2: TREE_FLAT_BACK */
    if (c == 'n' && end - p >= 4 && !memcmp(p, "null", 4) && (end - p == 4 || CHAR_CLASS[p[4]])) {
        *at = p + 4; /* tree_fast_word's null (a /ParentTree entry holds thousands): one node for all, never changed */
        return t->null_node;
    }
    if (c == 'n' || c == 't' || c == 'f') {
        int kind;
        return tree_fast_word(t, at, end, &kind);
    }
    if (c == '(' || (c == '<' && (p + 1 >= end || p[1] != '<'))) return tree_flat_string(t, at, end, bytes);
    return TREE_FLAT_BACK;
}

/* A dictionary at p (its "<<"): its node, *at past its ">>". Inner (a
 * value or an item of the outer container): its values scalars, its entries
 * straight into the arena's. Outer: its values scalars, arrays (tree_flat_array)
 * or inner dictionaries, its entries in `local` until its end. */
static Py_ssize_t tree_flat_array(TreeObjects *t, const unsigned char **at, const unsigned char *end, const unsigned char *limit,
                                  Buf *bytes);
static Py_ssize_t tree_flat_dict(TreeObjects *t, const unsigned char **at, const unsigned char *end, const unsigned char *limit,
                                 Buf *bytes, int inner) {
    TEntry local[TREE_FLAT_ENTRIES];
    const unsigned char *p = *at + 2;
    TEntry *out = inner ? (TEntry *)(t->entries.data + t->entries.len) : local; /* tree_flat reserved an entry per two bytes */
    Py_ssize_t count = 0;
    unsigned keys = 0;
    for (;;) {
        p = tree_skip_white(p, end);
        if (p >= end) return TREE_FLAT_BACK;
        if (*p == '>') {
            if (p + 1 < end && p[1] == '>') break;
            return TREE_FLAT_BACK;
        }
        if (*p != '/' || (!inner && count == TREE_FLAT_ENTRIES)) return TREE_FLAT_BACK;
        Py_ssize_t key = tree_fast_name(t, p, end, limit, &p);
        if (key < 0) return key == -1 ? -1 : TREE_FLAT_BACK;
        p = tree_skip_white(p, end);
        if (p >= end) return TREE_FLAT_BACK;
        Py_ssize_t value;
        if (*p == '[') value = inner ? TREE_FLAT_BACK : tree_flat_array(t, &p, end, limit, bytes);
        else if (*p == '<' && p + 1 < end && p[1] == '<') value = inner ? TREE_FLAT_BACK : tree_flat_dict(t, &p, end, limit, bytes, 1);
        else value = tree_flat_scalar(t, &p, end, limit, bytes);
        if (value < 0) return value;
        out[count].key = key;
        out[count].value = value;
        count++;
        keys |= tree_key_bit(key);
    }
    *at = p + 2;
    Py_ssize_t first = (Py_ssize_t)(t->entries.len / sizeof(TEntry)); /* an inner one's: where it wrote them */
    TEntry *into = (TEntry *)(t->entries.data + t->entries.len);
    for (Py_ssize_t i = 0; !inner && i < count; i++) { /* a few entries: a loop, not a call of memcpy */
        into[i] = local[i];
        __asm__ volatile("" ::: "memory");
    }
    t->entries.len += (size_t)count * sizeof(TEntry);
    Py_ssize_t id = tree_push_node(t, NK_DICT, count, first, 0);
    tnode(t, id)->keys = keys;
    return id;
}

/* An array at p (its '['), its items scalars or inner dictionaries, straight into the arena's: its node, *at past its ']'. */
static Py_ssize_t tree_flat_array(TreeObjects *t, const unsigned char **at, const unsigned char *end, const unsigned char *limit,
                                  Buf *bytes) {
    const unsigned char *p = *at + 1;
    Py_ssize_t first = (Py_ssize_t)(t->items.len / sizeof(Py_ssize_t)), count = 0;
    for (;;) {
        p = tree_skip_white(p, end);
        if (end - p > 4 && !memcmp(p, "null ", 5)) { /* a /ParentTree entry's runs of nulls: tree_flat_scalar's null each */
            do {
                ((Py_ssize_t *)t->items.data)[first + count++] = t->null_node;
                t->items.len += sizeof(Py_ssize_t);
                p += 5;
            } while (end - p > 4 && !memcmp(p, "null ", 5));
            continue;
        }
        if (p >= end) return TREE_FLAT_BACK;
        if (*p == ']') break;
        Py_ssize_t id = *p == '<' && p + 1 < end && p[1] == '<' ? tree_flat_dict(t, &p, end, limit, bytes, 1)
                                                                 : tree_flat_scalar(t, &p, end, limit, bytes);
        if (id < 0) return id;
        ((Py_ssize_t *)t->items.data)[first + count++] = id; /* tree_flat reserved an item per byte */
        t->items.len += sizeof(Py_ssize_t);
    }
    *at = p + 1;
    return tree_push_node(t, NK_ARRAY, count, first, 0);
}

/* Object p..end read flat (see above): its node; TREE_FLAT_BACK, the arena as it was, where tree_parse reads it; -1 on error. */
static Py_ssize_t tree_flat(TreeObjects *t, const unsigned char *p, const unsigned char *end, const unsigned char *limit, Buf *bytes) {
    size_t len = (size_t)(end - p);
    if (len > TREE_FLAT_MAX) return TREE_FLAT_BACK;
    /* Room for the most a flat object makes: a node and an item per byte (each token takes one at least), an entry per two. */
    if (buf_reserve(&t->nodes, (len + 1) * sizeof(TNode)) < 0 || buf_reserve(&t->items, (len + 1) * sizeof(Py_ssize_t)) < 0 ||
        buf_reserve(&t->entries, (len / 2 + 1) * sizeof(TEntry)) < 0)
        return -1;
    if (t->null_node < 0) t->null_node = tree_push_node(t, NK_NULL, 0, 0, 0); /* before the arena's marks: kept */
    size_t nodes = t->nodes.len, items = t->items.len, entries = t->entries.len, strs = t->strs.len;
    p = tree_skip_white(p, end);
    Py_ssize_t id = TREE_FLAT_BACK;
    if (end - p >= 2 && p[0] == '<' && p[1] == '<') id = tree_flat_dict(t, &p, end, limit, bytes, 0);
    else if (p < end && p[0] == '[') id = tree_flat_array(t, &p, end, limit, bytes);
    if (id >= 0 && tree_skip_white(p, end) == end) return id;
    if (id == -1) return -1;
    t->nodes.len = nodes;
    t->items.len = items;
    t->entries.len = entries;
    t->strs.len = strs;
    return TREE_FLAT_BACK;
}

/* Does dictionary node `d` have an entry of key `key` at all (whatever its value)? */
static int tree_has_entry(const TreeObjects *t, const TNode *d, Py_ssize_t key) {
    if (!TREE_MAY_HAVE(d, key)) return 0;
    const TEntry *e = (const TEntry *)t->entries.data + d->a;
    for (Py_ssize_t i = 0; i < d->count; i++) if (e[i].key == key) return 1;
    return 0;
}

/* A page tree node (§7.7.3) is read through qpdf (page_tree_node): an
 * object that has, or may have, /Parent, /Kids or /Type /Page(s) is not
 * held, and the walk leaves any tree reaching it to the walkers above.
 * PAGE_KIDS: only its /Kids say so, as a number tree's node (§7.9.7, a
 * /ParentTree's) has them too: the walk reads such a one from its node when
 * it is no node of the document's page tree (tw_kids_node). */
enum { PAGE_NOT, PAGE_MAYBE, PAGE_KIDS };
static int tree_maybe_page_node(const TreeObjects *t, Py_ssize_t id) {
    const TNode *d = tnode(t, id);
    if (d->kind != NK_DICT) return PAGE_NOT;
    if (tree_has_entry(t, d, t->key[TK_PARENT])) return PAGE_MAYBE;
    int kids = tree_has_entry(t, d, t->key[TK_KIDS]) ? PAGE_KIDS : PAGE_NOT;
    if (!TREE_MAY_HAVE(d, t->key[TK_TYPE])) return kids;
    const TEntry *e = (const TEntry *)t->entries.data + d->a;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        if (e[i].key != t->key[TK_TYPE]) continue;
        const TNode *v = tnode(t, e[i].value);
        if (v->kind == NK_REF || (v->kind == NK_NAME && (v->a == t->key[TK_PAGE] || v->a == t->key[TK_PAGES]))) return PAGE_MAYBE;
    }
    return kids;
}

/* Spans of one stream: (number, start, end[, present]) each, checked. */
static int tree_read_spans(TreeObjects *t, PyObject *spans, Py_ssize_t stream, Py_ssize_t len, long long *top) {
    if (!PyList_Check(spans)) { PyErr_SetString(PyExc_TypeError, "TreeObjects: spans are a list"); return -1; }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(spans); i++) {
        long long span[3];
        if (object_span(PyList_GET_ITEM(spans, i), len, span) < 0) return -1;
        TSpan s = {stream, (Py_ssize_t)span[1], (Py_ssize_t)span[2], (Py_ssize_t)span[0]}; /* next: the number, for now */
        if (buf_append(&t->spans, &s, sizeof s) < 0) return -1;
        if (span[0] > *top) *top = span[0];
    }
    return 0;
}

/* The per-number tables, sized by the spans: a damaged header's one huge number does not make them huge. */
static int tree_number_tables(TreeObjects *t, long long top) {
    Py_ssize_t nspans = (Py_ssize_t)(t->spans.len / sizeof(TSpan));
    long long cap = 4 * (long long)nspans + 1024, n = top + 1 < cap ? top + 1 : cap;
    if (n < (long long)PyList_GET_SIZE(t->refs)) n = PyList_GET_SIZE(t->refs); /* the table's numbers (_reference_slots) */
    if (n > TREE_MAX_NUMBERS) n = TREE_MAX_NUMBERS;
    t->nnumbers = n < 1 ? 1 : (Py_ssize_t)n;
    t->root = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)t->nnumbers);
    t->first_span = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)t->nnumbers);
    t->exist = PyMem_Calloc((size_t)t->nnumbers, 1);
    if (!t->root || !t->first_span || !t->exist) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t n = 0; n < t->nnumbers; n++) t->root[n] = t->first_span[n] = -1;
    /* Link each number's spans in order; the walk holds a number only when one span has it. */
    TSpan *spans = (TSpan *)t->spans.data;
    Py_ssize_t *last = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)t->nnumbers);
    if (!last) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < nspans; i++) {
        Py_ssize_t n = spans[i].next;
        spans[i].next = -1;
        if (n < 0 || n >= t->nnumbers) { /* value() would not hold it: PlainObjects reads every object as before */
            t->complete = 0;
            continue;
        }
        if (t->first_span[n] < 0) t->first_span[n] = i;
        else spans[last[n]].next = i;
        last[n] = i;
    }
    PyMem_Free(last);
    return 0;
}

/* ==== object stream headers read into the nodes (struct2) ================
 * A stream given as (data, first, count, members) instead of (data, spans):
 * its header is read here as object_stream_spans reads it (header_spans),
 * with no Python tuple per object; a damaged header holds nothing (the
 * stream is left out, as PlainObjects leaves it), one that only the
 * reference reads makes the nodes incomplete (PlainObjects then reads every
 * stream as before). The objects found not null join `present`
 * (tree_headers_present), as PlainObjects marks them.
 *
 * With the cross-reference table's columns (TreeObjects' `columns`,
 * xref_table's kinds, second, third), `members` may be the stream's number
 * instead of a set: its members are the entries of type 2 naming it
 * (members_by_columns), and a stream given as (data,) alone is the file's
 * bytes: its objects are those the columns put there (type 1, generation
 * 0), spans as written_spans reads them, present those written as a
 * dictionary (as PlainObjects' _WrittenObjects marks them). No Python
 * object per stream member or written object. */
typedef struct { Py_buffer kinds, second, third; int given; } TreeColumns;

/* TreeObjects' optional `columns` (None, or xref_table's three columns) into *c: 0, -1 with an exception. */
static int tree_columns_get(PyObject *columns, TreeColumns *c) {
    c->given = 0;
    if (columns == Py_None) return 0;
    if (!PyTuple_Check(columns) || PyTuple_GET_SIZE(columns) != 3) {
        PyErr_SetString(PyExc_TypeError, "TreeObjects: columns are None or (kinds, second, third)");
        return -1;
    }
    Py_buffer *views[3] = {&c->kinds, &c->second, &c->third};
    for (int k = 0; k < 3; k++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(columns, k), views[k], PyBUF_SIMPLE) == 0) continue;
        while (k--) PyBuffer_Release(views[k]);
        return -1;
    }
    c->given = 1;
    if (c->second.len >= c->kinds.len * 8 && c->third.len >= c->kinds.len * 8) return 0;
    PyErr_SetString(PyExc_ValueError, "TreeObjects: short columns");
    return -1;
}

static void tree_columns_release(TreeColumns *c) {
    if (!c->given) return;
    PyBuffer_Release(&c->kinds);
    PyBuffer_Release(&c->second);
    PyBuffer_Release(&c->third);
    c->given = 0;
}

/* The objects written in the file (a stream given as (data,)) as spans of stream `stream`. */
static int tree_read_written(TreeObjects *t, const TreeColumns *c, Py_ssize_t stream, const Py_buffer *view, long long *top,
                             Buf *presents) {
    if (!c->given) { PyErr_SetString(PyExc_TypeError, "TreeObjects: a stream (data,) needs the columns"); return -1; }
    WrittenSpan *spans;
    Py_ssize_t n;
    if (written_spans_of(view->buf, view->len, c->kinds.buf, c->second.buf, c->third.buf, c->kinds.len, &spans, &n) < 0)
        return -1;
    int status = 0;
    for (Py_ssize_t i = 0; !status && i < n; i++) {
        TSpan span = {stream, spans[i].start, spans[i].end, (Py_ssize_t)spans[i].number};
        if (buf_append(&t->spans, &span, sizeof span) < 0) status = -1;
        else if (spans[i].dictionary && buf_append(presents, &spans[i].number, sizeof(long long)) < 0) status = -1;
        if (spans[i].number > *top) *top = spans[i].number;
    }
    PyMem_Free(spans);
    return status;
}

/* A stream's members: its set, or its number read over the columns. -1 with an exception. */
static int tree_members(PyObject *members, const TreeColumns *c, Members *m) {
    if (PySet_Check(members)) return members_read(members, m);
    if (!c->given || !PyLong_Check(members)) {
        PyErr_SetString(PyExc_TypeError, "TreeObjects: members are a set, or a stream's number with the columns");
        return -1;
    }
    long long stream = PyLong_AsLongLong(members);
    if (stream == -1 && PyErr_Occurred()) return -1;
    *m = members_by_columns(c->kinds.buf, c->second.buf, c->kinds.len, stream);
    return 0;
}

static int tree_read_header(TreeObjects *t, PyObject *item, const TreeColumns *c, Py_ssize_t stream, const Py_buffer *view,
                            long long *top, Buf *presents) {
    long long first = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 1));
    if (first == -1 && PyErr_Occurred()) return -1;
    long long count = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 2));
    if (count == -1 && PyErr_Occurred()) return -1;
    Members members;
    if (tree_members(PyTuple_GET_ITEM(item, 3), c, &members) < 0) return -1;
    HeaderSpan *spans;
    Py_ssize_t n;
    int status = header_spans(view->buf, view->len, first, count, &members, &spans, &n);
    members_free(&members);
    if (status == HEADER_REFERENCE) t->complete = 0;
    for (Py_ssize_t i = 0; status == HEADER_INTS && i < n; i++) {
        TSpan span = {stream, (Py_ssize_t)spans[i].start, (Py_ssize_t)spans[i].end, (Py_ssize_t)spans[i].number};
        if (buf_append(&t->spans, &span, sizeof span) < 0) status = -1;
        else if (spans[i].present && buf_append(presents, &spans[i].number, sizeof(long long)) < 0) status = -1;
        if (spans[i].number > *top) *top = spans[i].number;
    }
    PyMem_Free(spans);
    return status < 0 ? -1 : 0;
}

/* `present` with the numbers of `presents` marked, as PlainObjects'
 * _bitmap marks them (below TREE_MAX_NUMBERS; (number, 0) into `known`
 * for the others). */
static int tree_headers_present(TreeObjects *t, const Buf *presents) {
    const long long *numbers = (const long long *)presents->data;
    Py_ssize_t count = (Py_ssize_t)(presents->len / sizeof(long long)), bytes = t->present.buf ? t->present.len : 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (numbers[i] >= 0 && numbers[i] < TREE_MAX_NUMBERS) {
            if (numbers[i] / 8 + 1 > bytes) bytes = (Py_ssize_t)(numbers[i] / 8 + 1);
            continue;
        }
        PyObject *ref = plain_ref(numbers[i], 0);
        int added = ref ? PySet_Add(t->known, ref) : -1;
        Py_XDECREF(ref);
        if (added < 0) return -1;
    }
    PyObject *bitmap = PyBytes_FromStringAndSize(NULL, bytes);
    if (!bitmap) return -1;
    unsigned char *bits = (unsigned char *)PyBytes_AS_STRING(bitmap);
    memset(bits, 0, (size_t)bytes);
    if (t->present.buf) memcpy(bits, t->present.buf, (size_t)t->present.len);
    for (Py_ssize_t i = 0; i < count; i++)
        if (numbers[i] >= 0 && numbers[i] < TREE_MAX_NUMBERS) bits[numbers[i] / 8] |= (unsigned char)(1u << (numbers[i] % 8));
    if (t->present.buf) PyBuffer_Release(&t->present);
    int got = PyObject_GetBuffer(bitmap, &t->present, PyBUF_SIMPLE);
    Py_DECREF(bitmap);
    if (got < 0) { t->present.buf = NULL; return -1; }
    return 0;
}
/* ==== end of struct2's header section ===================================== */

/* Room in the arena for what the spans' objects make (the walk parses
 * most of them): a node per 8 bytes of object, an entry per 16, an item
 * per 32, as a tagged tree's elements are written. The arena then grows
 * without copying itself at each doubling. Spans of more than 4 KiB (a
 * file's streams, among its objects) are not counted, nor bytes past
 * 4 MiB (21 MiB reserved at most). Only a hint: where the memory is not
 * there, the arena grows as it is filled, as before. */
static void tree_reserve(TreeObjects *t) {
    size_t bytes = 0;
    const TSpan *spans = (const TSpan *)t->spans.data;
    for (size_t i = 0; i < t->spans.len / sizeof(TSpan); i++) {
        size_t len = spans[i].end > spans[i].start ? (size_t)(spans[i].end - spans[i].start) : 0;
        if (len <= 4096) bytes += len;
    }
    if (bytes > ((size_t)1 << 22)) bytes = (size_t)1 << 22;
    if (buf_reserve(&t->nodes, bytes / 8 * sizeof(TNode)) < 0 || buf_reserve(&t->entries, bytes / 16 * sizeof(TEntry)) < 0 ||
        buf_reserve(&t->items, bytes / 32 * sizeof(Py_ssize_t)) < 0)
        PyErr_Clear();
}

static int TreeObjects_init(TreeObjects *t, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *streams, *known, *check, *refs, *columns = Py_None;
    Py_buffer present = {0};
    if (!PyArg_ParseTuple(args, "O!y*O!OO!|O", &PyList_Type, &streams, &present, &PySet_Type, &known, &check,
                          &PyList_Type, &refs, &columns))
        return -1;
    if (t->streams) { PyBuffer_Release(&present); PyErr_SetString(PyExc_TypeError, "TreeObjects: built once"); return -1; }
    t->present = present;
    t->streams = Py_NewRef(streams);
    t->known = Py_NewRef(known);
    t->check = check == Py_None ? NULL : Py_NewRef(check);
    t->refs = Py_NewRef(refs);
    t->complete = 1;
    t->null_node = -1;
    for (int k = 0; k < TK_COUNT; k++)
        if ((t->key[k] = tree_name(t, (const unsigned char *)TREE_KEYS[k], strlen(TREE_KEYS[k]))) < 0) return -1;
    long long top = 0;
    Buf presents = {0}; /* the numbers of the objects the headers read here hold, null ones left out */
    TreeColumns c;
    int headers = 0, failed = tree_columns_get(columns, &c) < 0;
    for (Py_ssize_t s = 0; !failed && s < PyList_GET_SIZE(streams); s++) {
        PyObject *pair = PyList_GET_ITEM(streams, s);
        Py_ssize_t size = PyTuple_Check(pair) ? PyTuple_GET_SIZE(pair) : 0;
        if (size != 1 && size != 2 && size != 4) {
            PyErr_SetString(PyExc_TypeError, "TreeObjects: a stream is (data, spans), (data, first, count, members) or (data,)");
            failed = 1;
            break;
        }
        Py_buffer view;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(pair, 0), &view, PyBUF_SIMPLE) < 0) { failed = 1; break; }
        if (buf_append(&t->views, &view, sizeof view) < 0) { PyBuffer_Release(&view); failed = 1; break; }
        headers |= size != 2;
        failed = (size == 2   ? tree_read_spans(t, PyTuple_GET_ITEM(pair, 1), s, view.len, &top)
                  : size == 4 ? tree_read_header(t, pair, &c, s, &view, &top, &presents)
                              : tree_read_written(t, &c, s, &view, &top, &presents)) < 0;
    }
    tree_columns_release(&c);
    if (!failed && headers) failed = tree_headers_present(t, &presents) < 0;
    buf_free(&presents);
    if (failed || tree_number_tables(t, top) < 0) return -1;
    tree_reserve(t);
    for (Py_ssize_t n = 0; n < t->nnumbers; n++) {
        Py_ssize_t i = t->first_span[n];
        /* listed twice: left to the walkers above */
        if (i >= 0 && ((const TSpan *)t->spans.data)[i].next < 0) t->root[n] = TREE_UNPARSED;
    }
    return 0;
}

/* The node of held object `n` (0 < n < nnumbers), parsed on first use; -1 when it is not held, -2 on error. */
static Py_ssize_t tree_held(TreeObjects *t, Py_ssize_t n) {
    if (t->root[n] != TREE_UNPARSED) return t->root[n] <= TREE_KIDS_BASE ? -1 : t->root[n];
    const TSpan *s = (const TSpan *)t->spans.data + t->first_span[n];
    const Py_buffer *view = (const Py_buffer *)t->views.data + s->stream;
    const unsigned char *base = view->buf;
    Py_ssize_t id = tree_flat(t, base + s->start, base + s->end, base + view->len, &t->scratch[0]);
    if (id == TREE_FLAT_BACK)
        id = tree_parse(t, base + s->start, base + s->end, base + view->len, &t->scratch[0], &t->scratch[1], &t->scratch[2]);
    if (id == -1) return -2;
    int page = id >= 0 ? tree_maybe_page_node(t, id) : PAGE_MAYBE;
    t->root[n] = page == PAGE_NOT ? id : page == PAGE_KIDS ? TREE_KIDS_BASE - id : -1;
    return page == PAGE_NOT ? id : -1;
}

/* The node of object `n` that tree_held (called first) declined for its /Kids alone (PAGE_KIDS); -1 for any other. */
static Py_ssize_t tree_kids_node(const TreeObjects *t, Py_ssize_t n) {
    return t->root[n] <= TREE_KIDS_BASE ? TREE_KIDS_BASE - t->root[n] : -1;
}

/* value(number): parse_objects' value of object (number, 0), NotImplemented when no span of it parses. */
static PyObject *TreeObjects_value(TreeObjects *t, PyObject *arg) {
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n >= t->nnumbers || !t->streams) Py_RETURN_NOTIMPLEMENTED;
    PyObject *names[PT_COUNT] = {NULL};
    for (int i = 0; i < PT_COUNT; i++)
        if (!(names[i] = PyUnicode_InternFromString(PT_NAMES[i]))) { for (int j = 0; j < i; j++) Py_DECREF(names[j]); return NULL; }
    Existing existing = {t->known, t->check, 0, t->present.buf, t->present.buf ? t->present.len : 0};
    ParseBufs bufs = {{0}, {0}, t->refs};
    const Py_buffer *views = (const Py_buffer *)t->views.data;
    PyObject *value = NULL;
    for (Py_ssize_t i = t->first_span[n]; i >= 0 && !value;) {
        const TSpan *s = (const TSpan *)t->spans.data + i;
        const unsigned char *base = views[s->stream].buf;
        value = stream_object(base + s->start, base + s->end, existing, &bufs, names);
        if (!value && PyErr_Occurred()) break;
        i = s->next;
    }
    parse_bufs_free(&bufs);
    for (int i = 0; i < PT_COUNT; i++) Py_DECREF(names[i]);
    if (!value && !PyErr_Occurred()) Py_RETURN_NOTIMPLEMENTED;
    return value;
}

/* ==== is_dict(number) (struct2) ==========================================
 * True when object (number, 0) is held and its node is a dictionary: then
 * value(number) is a dict (the same parse of the same span), and nothing
 * is built to say so (the /ParentTree's owners, structure.py, are checked
 * thousands at a time). NotImplemented for anything else (not held, not a
 * dictionary, a number out of range): the caller resolves the object. */
static PyObject *TreeObjects_is_dict(TreeObjects *t, PyObject *arg) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (overflow || n <= 0 || !t->streams || !t->root || n >= (long long)t->nnumbers) Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t id = tree_held(t, (Py_ssize_t)n);
    if (id == -2) return NULL;
    if (id >= 0 && tnode(t, id)->kind == NK_DICT) Py_RETURN_TRUE;
    Py_RETURN_NOTIMPLEMENTED;
}
/* ==== end of struct2's is_dict ============================================ */

/* ==== /ParentTree owners placed from the nodes (struct2) ==================
 * place_owners(number, page, out): object (number, 0) held as an array, a
 * page's entry in /ParentTree (§14.7.4.4: its marked content's owners,
 * indexed by MCID), read as structure.py's _read_parent_tree_pages reads its
 * value: each item that is a reference to a held dictionary (is_dict's
 * answer) sets out[(reference, MCID)] = page unless it is set. No plain
 * value of the array nor a Python call per owner. NotImplemented, out
 * untouched, when the object is not a held array or one of its references
 * is not to a held dictionary (the caller then reads the value itself:
 * such a reference may name a missing object, null in the value). */
static PyObject *TreeObjects_place_owners(TreeObjects *t, PyObject *args) {
    PyObject *number, *page, *out;
    if (!PyArg_ParseTuple(args, "OOO!:place_owners", &number, &page, &PyDict_Type, &out)) return NULL;
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (overflow || n <= 0 || !t->streams || !t->root || n >= (long long)t->nnumbers) Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t id = tree_held(t, (Py_ssize_t)n);
    if (id == -2) return NULL;
    if (id < 0 || tnode(t, id)->kind != NK_ARRAY) Py_RETURN_NOTIMPLEMENTED;
    /* tree_held may parse more objects (the node and item arrays grow and
     * move): the array's place is copied and every node fetched anew. */
    Py_ssize_t first = (Py_ssize_t)tnode(t, id)->a, count = tnode(t, id)->count;
    for (Py_ssize_t i = 0; i < count; i++) {
        const TNode *item = tnode(t, ((const Py_ssize_t *)t->items.data)[first + i]);
        if (item->kind != NK_REF) continue;
        long long num = item->a, gen = item->b;
        if (gen != 0 || num <= 0 || num >= (long long)t->nnumbers) Py_RETURN_NOTIMPLEMENTED;
        Py_ssize_t target = tree_held(t, (Py_ssize_t)num);
        if (target == -2) return NULL;
        if (target < 0 || tnode(t, target)->kind != NK_DICT) Py_RETURN_NOTIMPLEMENTED;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const TNode *item = tnode(t, ((const Py_ssize_t *)t->items.data)[first + i]);
        if (item->kind != NK_REF) continue;
        PyObject *ref = cached_ref(t->refs, item->a, 0), *mcid = ref ? PyLong_FromSsize_t(i) : NULL;
        PyObject *key = mcid ? PyTuple_Pack(2, ref, mcid) : NULL;
        Py_XDECREF(ref);
        Py_XDECREF(mcid);
        PyObject *set = key ? PyDict_SetDefault(out, key, page) : NULL; /* borrowed */
        Py_XDECREF(key);
        if (!set) return NULL;
    }
    Py_RETURN_NONE;
}
/* ==== end of struct2's place_owners ======================================= */

/* ---- walk(env): the walk over the nodes ----------------------------------- */

/* env's items, in _Walker._tree_env's order. */
enum {
    W_OBJECT_REFS, W_PAGES, W_ROOT, W_ROOT_K, W_LANG, W_TYPE_OF, W_NONSTRUCT, W_TEXTS, W_TEXT_STRING, W_CELL,
    W_NO_CELL, W_RESOLVE, W_PARENT_TREE, W_WARN, W_MESSAGES, W_MAX_DEPTH, W_TYPE_IN, W_STREAM_CLS, W_CLASS_MAP,
    W_SPAN_COMPLAINTS, W_CELL_NODES, W_PARENT_TREE_ROOT, W_STRUCT_PARENTS, W_PAGE_TREE, W_STANDARD_TYPES, W_COUNT
};
#define TW_BAIL 1
enum { LOOK_ABSENT = -1, LOOK_UNSURE = -2, LOOK_ERROR = -3, LOOK_NULL = -4 };
/* Plain values converted to nodes (tw_node_of) nest at most this deep: deeper, the walk leaves the tree above. */
#define TW_MAX_NESTING 32

typedef struct {
    Py_ssize_t index, page; /* the element (-1: the root) and the page in effect (-1: none) */
    PyObject *lang;         /* owned */
    long depth, headed_incl, headed_excl, owner;
} TCtx;

/* What a /S name means (_Walker._resolved's entry), asked of Python once per name. */
/* column: its row in the tree's type table plus one (0: not used by an element yet); numbered: n of Hn, 0 else. */
typedef struct { PyObject *entry; PyObject *raw, *std, *block, *level, *problem; int ready, heading, sectioning, th, td, h; Py_ssize_t column; long numbered; } TType;

/* A stack item: an element to visit (TAG_ELEMENT; TAG_EXIT reads num alone)
 * or content to record (TAG_CONTENT), the one's fields over the other's:
 * 48 bytes, copied in a few moves as items are pushed and popped. */
typedef struct {
    int tag;
    union {
        struct { Py_ssize_t node, type, ctx; long long num, gen; };  /* TAG_ELEMENT, TAG_EXIT */
        struct { Py_ssize_t element, page; long long mcid, stream; }; /* TAG_CONTENT */
    };
} TItem;
typedef struct { Py_ssize_t name; long long num, gen; TType type; } TNsType;
typedef struct { Py_ssize_t first, count, pos, single, standing; } TIter;

/* A map of int64 pairs to indices, as a dict with (a, b) keys: open
 * addressing over mask + 1 slots (a power of two), half full at most. */
typedef struct { long long *a, *b; Py_ssize_t *v; unsigned char *used; size_t mask; Py_ssize_t count; } TPairs;

static void tpairs_free(TPairs *m) {
    PyMem_Free(m->a); PyMem_Free(m->b); PyMem_Free(m->v); PyMem_Free(m->used);
    memset(m, 0, sizeof *m);
}

static size_t tpairs_slot(const TPairs *m, long long a, long long b) {
    size_t s = (((size_t)a * 0x9E3779B97F4A7C15u) ^ ((size_t)b * 0xC2B2AE3D27D4EB4Fu)) >> 7 & m->mask;
    while (m->used[s] && (m->a[s] != a || m->b[s] != b)) s = (s + 1) & m->mask;
    return s;
}

/* m[(a, b)]; -1 when it is not set. */
static Py_ssize_t tpairs_get(const TPairs *m, long long a, long long b) {
    if (!m->used) return -1;
    size_t s = tpairs_slot(m, a, b);
    return m->used[s] ? m->v[s] : -1;
}

/* m.setdefault((a, b), v). 0, -1 on error. */
static int tpairs_setdefault(TPairs *m, long long a, long long b, Py_ssize_t v) {
    if (!m->used || 2 * (size_t)(m->count + 1) > m->mask + 1) {
        size_t slots = m->used ? 2 * (m->mask + 1) : 64;
        TPairs bigger = {PyMem_Malloc(slots * sizeof(long long)), PyMem_Malloc(slots * sizeof(long long)),
                         PyMem_Malloc(slots * sizeof(Py_ssize_t)), PyMem_Calloc(slots, 1), slots - 1, m->count};
        if (!bigger.a || !bigger.b || !bigger.v || !bigger.used) { tpairs_free(&bigger); PyErr_NoMemory(); return -1; }
        for (size_t i = 0; m->used && i <= m->mask; i++) {
            if (!m->used[i]) continue;
            size_t s = tpairs_slot(&bigger, m->a[i], m->b[i]);
            bigger.used[s] = 1; bigger.a[s] = m->a[i]; bigger.b[s] = m->b[i]; bigger.v[s] = m->v[i];
        }
        tpairs_free(m);
        *m = bigger;
    }
    size_t s = tpairs_slot(m, a, b);
    if (m->used[s]) return 0;
    m->used[s] = 1; m->a[s] = a; m->b[s] = b; m->v[s] = v;
    m->count++;
    return 0;
}

/* How the walk places content with no /Pg (tw_orphan_page): not decided
 * yet, through the owners read from the nodes, or through Python's dict. */
enum { PT_UNREAD, PT_NODES, PT_DICT };

/* The walk's output, structure.py's ElementColumns and ContentColumns: one
 * row of COL_COUNT int64 per element in `rows` (COL_* order: an element's
 * values written at once, one buffer to grow; tw_columns hands them over
 * as columns), one
 * (page, stream, MCID, element) row per piece of content recorded; the
 * element's /Lang in effect per element; /ActualText, /Alt and a cell's
 * attributes only where an element has them (index -> value); the
 * (raw, standard) types in the order elements first use them. COL_PATH is
 * the element's path step: steps are (the parent's step or -1, type row)
 * pairs numbered by first use (`steps`, int64 pairs), so elements with the
 * same types from the top share one (structure_columns.walked_columns makes
 * them paths); `step_slots` finds a pair's number (open addressing). */
enum { COL_PARENT, COL_TYPE, COL_LEVEL, COL_OWNER, COL_NUM, COL_GEN, COL_PAGE, COL_PATH, COL_COUNT };
typedef struct { long long parent, type, step; } TStepSlot; /* step -1: empty */
typedef long long TRow[COL_COUNT]; /* an element's row of the columns */
typedef struct {
    Buf rows, content, steps;
    Buf owns; /* per type row: 1 when its elements make a block of their own (structure._owns_block) */
    Py_ssize_t count;
    TStepSlot *step_slots;
    size_t step_mask; /* slots - 1, a power of two minus one; 0 before the first step */
    PyObject *lang, *actual_text, *alt, *cells, *types; /* list, dict, dict, dict, dict (owned) */
} TColumns;

/* Element `i`'s row (0 <= i < count). */
static inline long long *tw_row(const TColumns *cols, Py_ssize_t i) { return ((TRow *)cols->rows.data)[i]; }

typedef struct {
    TreeObjects *t;
    Walk base; /* the warnings, instance slots and field names of walk_struct */
    PyObject *env[W_COUNT];
    Buf stack, items, iters, ctxs, types, order;
    TType nonstruct;
    unsigned char *seen, *on_path;
    Py_ssize_t *page_of_number, *objr_counts, npages;
    long long root_num, root_gen, max_depth;
    Py_ssize_t *resolved;  /* per number: the node of an object read through Python, -1 not yet, LOOK_NULL for null */
    Buf ns_types;          /* TNsType: types in a namespace */
    /* (page, MCID) pairs claimed: open addressing, 2^bits slots */
    long long *claimed_page, *claimed_mcid;
    Py_ssize_t claimed_slots, claimed_count;
    Py_ssize_t class_map; /* the role map's /ClassMap as a node: -1 not yet converted, LOOK_NULL none, LOOK_UNSURE none readable */
    PyObject *scopes[3];  /* "Row", "Column", "Both" (owned) */
    TColumns cols;        /* what the walk hands back (StructTree's columns) */
    PyObject *parent_tree; /* _Walker._parent_tree()'s dict, where the nodes leave /ParentTree to it (owned) */
    int parent_state;      /* PT_*: how content with no /Pg is placed, decided at the first of it */
    TPairs owners;         /* PT_NODES: (owner's object number, MCID) -> page index, from /ParentTree */
    PyObject *page_tree;   /* W_PAGE_TREE's answer, asked at the first object held back for its /Kids (owned) */
} TWalk;

static TCtx *tw_ctx(TWalk *w, Py_ssize_t id) { return (TCtx *)w->ctxs.data + id; }

/* A new context, its objects stolen. Its id, -1 on error. */
static Py_ssize_t tw_new_ctx(TWalk *w, TCtx c) {
    Py_ssize_t id = (Py_ssize_t)(w->ctxs.len / sizeof(TCtx));
    if (!c.lang || buf_append(&w->ctxs, &c, sizeof c) < 0) {
        Py_XDECREF(c.lang);
        return -1;
    }
    return id;
}

/* tw_exists where the answer is not at hand: asked of Python once per number. */
static __attribute__((noinline)) int tw_exists_asked(TWalk *w, long long num, long long gen) {
    TreeObjects *t = w->t;
    if (gen != 0 || num <= 0 || num >= t->nnumbers) return LOOK_UNSURE;
    if (t->present.buf && num / 8 < (long long)t->present.len && ((const unsigned char *)t->present.buf)[num / 8] >> (num % 8) & 1)
        return 1;
    if (t->exist[num] != EXIST_UNKNOWN) return t->exist[num] == EXIST_YES;
    if (!t->check) return LOOK_UNSURE;
    PyObject *ref = cached_ref(t->refs, num, 0);
    if (!ref) return LOOK_ERROR;
    int found = PySet_Contains(t->known, ref);
    if (!found) {
        PyObject *answer = PyObject_CallOneArg(t->check, ref);
        found = answer ? PyObject_IsTrue(answer) : -1;
        Py_XDECREF(answer);
        if (found > 0 && PySet_Add(t->known, ref) < 0) found = -1;
    }
    Py_DECREF(ref);
    if (found < 0) return LOOK_ERROR;
    t->exist[num] = found ? EXIST_YES : EXIST_NO;
    return found;
}

/* Does object (num, gen) exist (parse_object's dangling, remembered per
 * number)? 1, 0, or LOOK_UNSURE / LOOK_ERROR. Inline where the answer is at
 * hand (an object of the streams, or one asked before): the walk asks it of
 * nearly every reference it reads. */
static inline __attribute__((always_inline)) int tw_exists(TWalk *w, long long num, long long gen) {
    const TreeObjects *t = w->t;
    if (gen == 0 && num > 0 && num < t->nnumbers) {
        if (t->present.buf && num / 8 < (long long)t->present.len && ((const unsigned char *)t->present.buf)[num / 8] >> (num % 8) & 1)
            return 1;
        if (t->exist[num] != EXIST_UNKNOWN) return t->exist[num] == EXIST_YES;
    }
    return tw_exists_asked(w, num, gen);
}

/* The value of key `key` of dictionary node `d`: the last entry that is not
 * null nor a reference to a missing object; LOOK_ABSENT when none is. */
static inline __attribute__((always_inline)) Py_ssize_t tw_get_name(TWalk *w, Py_ssize_t d, Py_ssize_t name) {
    const TNode *dict = tnode(w->t, d);
    if (!TREE_MAY_HAVE(dict, name)) return LOOK_ABSENT; /* no entry of that key at all */
    const TEntry *e = (const TEntry *)w->t->entries.data + dict->a;
    for (Py_ssize_t i = dict->count - 1; i >= 0; i--) {
        if (e[i].key != name) continue;
        const TNode *v = tnode(w->t, e[i].value);
        if (v->kind == NK_NULL) continue;
        if (v->kind == NK_REF && !dict->b) { /* a plain value's reference stands (b: converted, tw_node_of) */
            int exists = tw_exists(w, v->a, v->b);
            if (exists < 0) return exists;
            if (!exists) continue;
        }
        return e[i].value;
    }
    return LOOK_ABSENT;
}

/* Inline, as tw_get_name: the walk reads a handful of keys of each element. */
static inline __attribute__((always_inline)) Py_ssize_t tw_get(TWalk *w, Py_ssize_t d, int key) {
    return tw_get_name(w, d, w->t->key[key]);
}

static Py_ssize_t tw_node_of(TWalk *w, PyObject *v, int depth);

/* The node of object `num` (held back by tree_held for its /Kids alone)
 * when it is no node of the document's page tree: qpdf changes those in
 * memory, not the others, so its own parse is its value (resolving it
 * would make qpdf parse the whole object stream that holds it). The page
 * tree's object numbers are asked of Python once (_Walker._page_tree_numbers:
 * a frozenset, None when it cannot say). -1 when not so, -2 on error. */
static Py_ssize_t tw_kids_node(TWalk *w, long long num) {
    Py_ssize_t kids = tree_kids_node(w->t, (Py_ssize_t)num);
    if (kids < 0) return -1;
    if (!w->page_tree && !(w->page_tree = PyObject_CallNoArgs(w->env[W_PAGE_TREE]))) return -2;
    if (!PyFrozenSet_CheckExact(w->page_tree)) return -1;
    PyObject *key = PyLong_FromLongLong(num);
    int paged = key ? PySet_Contains(w->page_tree, key) : -1;
    Py_XDECREF(key);
    return paged < 0 ? -2 : paged ? -1 : kids;
}

/* The node of object (num, gen): the streams' own, else its plain value
 * (PlainObjects.resolve: qpdf's, or a span that parses only later)
 * converted; LOOK_NULL when it is null, LOOK_UNSURE when the walk leaves it
 * to the walkers above. */
static Py_ssize_t tw_resolve(TWalk *w, long long num, long long gen) {
    if (gen != 0 || num <= 0 || num >= w->t->nnumbers) return LOOK_UNSURE;
    Py_ssize_t held = tree_held(w->t, (Py_ssize_t)num);
    if (held >= 0 || held == -2) return held >= 0 ? held : LOOK_ERROR;
    if (w->resolved[num] != -1) return w->resolved[num];
    Py_ssize_t kids = tw_kids_node(w, num);
    if (kids != -1) return kids == -2 ? LOOK_ERROR : (w->resolved[num] = kids);
    PyObject *ref = cached_ref(w->t->refs, num, gen);
    PyObject *value = ref ? PyObject_CallOneArg(w->env[W_RESOLVE], ref) : NULL;
    Py_XDECREF(ref);
    if (!value) return LOOK_ERROR;
    Py_ssize_t node = value == Py_None ? LOOK_NULL : tw_node_of(w, value, 0);
    Py_DECREF(value);
    if (node == -1) return PyErr_Occurred() ? LOOK_ERROR : LOOK_UNSURE;
    return w->resolved[num] = node;
}

static int tw_status(Py_ssize_t look) { return look == LOOK_ERROR ? -1 : TW_BAIL; } /* of a look-up below 0 other than absent */ /* of a look-up below 0 other than absent */

static int tw_warn(TWalk *w, int m) { return walk_warn(&w->base, m); }

/* The page a /Pg value names: a page of the document; anything else is left above. */
static int tw_page_of(TWalk *w, Py_ssize_t pg, Py_ssize_t *page) {
    const TNode *v = tnode(w->t, pg);
    if (v->kind != NK_REF || v->b != 0 || v->a <= 0 || v->a >= w->t->nnumbers || w->page_of_number[v->a] < 0) return TW_BAIL;
    *page = w->page_of_number[v->a];
    return 0;
}

static int tw_on_path(TWalk *w, long long num, long long gen) {
    return (num == w->root_num && gen == w->root_gen) || (gen == 0 && num > 0 && num < w->t->nnumbers && w->on_path[num]);
}

/* _Walker._first_visit of an indirect object (num > 0). */
static int tw_first_visit(TWalk *w, long long num) {
    if (w->seen[num]) return 0;
    w->seen[num] = 1;
    return 1;
}

static TType *tw_type_entry(TType *type, PyObject *entry);

/* Name `name` as Python spells it ("/Name"). New reference. */
static PyObject *tw_name_str(TWalk *w, Py_ssize_t name) {
    const TName *n = (const TName *)w->t->names.data + name;
    return PyUnicode_DecodeUTF8(w->t->name_bytes.data + n->off, (Py_ssize_t)n->len, "surrogateescape");
}

/* The meaning of /S name `name` (a name id). */
static TType *tw_type(TWalk *w, Py_ssize_t name) {
    size_t need = (size_t)(name + 1) * sizeof(TType);
    if (w->types.len < need) {
        size_t old = w->types.len;
        if (buf_reserve(&w->types, need - old) < 0) return NULL;
        memset(w->types.data + old, 0, need - old);
        w->types.len = need;
    }
    TType *type = (TType *)w->types.data + name;
    if (type->ready) return type;
    PyObject *s = tw_name_str(w, name);
    PyObject *entry = s ? PyObject_CallOneArg(w->env[W_TYPE_OF], s) : NULL;
    Py_XDECREF(s);
    return tw_type_entry(type, entry);
}

/* The meaning of /S name `name` in namespace `ns` (a reference), asked of Python once per pair;
 * *id: its index in the stack items' types (after the names). */
static TType *tw_ns_type(TWalk *w, Py_ssize_t name, const TNode *ns, Py_ssize_t *id) {
    TNsType *types = (TNsType *)w->ns_types.data;
    size_t n = w->ns_types.len / sizeof(TNsType);
    for (size_t i = 0; i < n; i++)
        if (types[i].name == name && types[i].num == ns->a && types[i].gen == ns->b) {
            *id = -2 - (Py_ssize_t)i;
            return &types[i].type;
        }
    TNsType fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.name = name;
    fresh.num = ns->a;
    fresh.gen = ns->b;
    PyObject *s = tw_name_str(w, name), *ref = s ? plain_ref(ns->a, ns->b) : NULL;
    PyObject *entry = ref ? walk_call(w->env[W_TYPE_IN], s, ref, NULL, 2) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(ref);
    if (!tw_type_entry(&fresh.type, entry) || buf_append(&w->ns_types, &fresh, sizeof fresh) < 0) {
        Py_XDECREF(fresh.type.entry);
        return NULL;
    }
    *id = -2 - (Py_ssize_t)n;
    return &((TNsType *)w->ns_types.data)[n].type;
}

/* A stack item's type: a name's (its id), NonStruct (-1), or one in a namespace (-2 - its index). */
static TType *tw_item_type(TWalk *w, Py_ssize_t id) {
    if (id == -1) return &w->nonstruct;
    if (id >= 0) return (TType *)w->types.data + id;
    return &((TNsType *)w->ns_types.data)[-2 - id].type;
}

/* A type from Python's (raw, standard, info, problem), `entry` stolen. */
static TType *tw_type_entry(TType *type, PyObject *entry) {
    if (!entry) return NULL;
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 4 || !PyTuple_Check(PyTuple_GET_ITEM(entry, 2)) ||
        PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 2)) != 4) {
        Py_DECREF(entry);
        PyErr_SetString(PyExc_TypeError, "TreeObjects.walk: a type is (raw, standard, info, problem)");
        return NULL;
    }
    PyObject *info = PyTuple_GET_ITEM(entry, 2);
    type->entry = entry;
    type->raw = PyTuple_GET_ITEM(entry, 0);
    type->std = PyTuple_GET_ITEM(entry, 1);
    type->problem = PyTuple_GET_ITEM(entry, 3);
    type->block = PyTuple_GET_ITEM(info, 0);
    type->level = PyTuple_GET_ITEM(info, 2);
    type->heading = PyObject_IsTrue(PyTuple_GET_ITEM(info, 1));
    type->sectioning = PyObject_IsTrue(PyTuple_GET_ITEM(info, 3));
    if (type->heading < 0 || type->sectioning < 0 || !PyUnicode_Check(type->std)) return NULL;
    type->th = PyUnicode_CompareWithASCIIString(type->std, "TH") == 0;
    type->td = PyUnicode_CompareWithASCIIString(type->std, "TD") == 0;
    type->h = PyUnicode_CompareWithASCIIString(type->std, "H") == 0;
    type->numbered = type->level == Py_None ? 0 : PyLong_AsLong(type->level);
    if (type->numbered == -1 && PyErr_Occurred()) return NULL;
    type->ready = 1;
    return type;
}

/* *dst = *src word by word: a struct copy or memcpy of it is compiled
 * here to `rep movs`, whose start costs more than the copy. */
static inline void tw_item_copy(TItem *dst, const TItem *src) {
    _Static_assert(sizeof(TItem) == 6 * sizeof(uint64_t), "TItem is six words");
    const uint64_t *s = (const uint64_t *)src;
    uint64_t *d = (uint64_t *)dst;
    d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3]; d[4] = s[4]; d[5] = s[5];
}

static int tw_push_item(Buf *b, TItem item) {
    if (buf_reserve(b, sizeof item) < 0) return -1;
    tw_item_copy((TItem *)(b->data + b->len), &item);
    b->len += sizeof item;
    return 0;
}

/* An MCR's /Stm (a reference found present): the number of the form XObject
 * it names; null reads as absent (§7.3.9); anything else is left above. */
static int tw_stream(TWalk *w, const TNode *v, long long *stream) {
    if (v->kind != NK_REF) return TW_BAIL;
    PyObject *ref = plain_ref(v->a, v->b), *value = ref ? PyObject_CallOneArg(w->env[W_RESOLVE], ref) : NULL;
    Py_XDECREF(ref);
    if (!value) return -1;
    int status = TW_BAIL;
    if (value == Py_None) {
        status = 0;
    } else if (Py_IS_TYPE(value, (PyTypeObject *)w->env[W_STREAM_CLS])) {
        PyObject *objgen = PyObject_GetAttrString(value, "objgen");
        long long n = objgen && PyTuple_CheckExact(objgen) && PyTuple_GET_SIZE(objgen) == 2
                          ? PyLong_AsLongLong(PyTuple_GET_ITEM(objgen, 0)) : -1;
        Py_XDECREF(objgen);
        PyErr_Clear();
        if (n > 0 && n < TREE_MAX_NUMBERS) {
            *stream = n;
            status = 0;
        }
    }
    Py_DECREF(value);
    return status;
}

/* _Walker._mcr. */
static int tw_mcr(TWalk *w, Py_ssize_t kid, long long num, Py_ssize_t ctx) {
    if (num > 0 && !tw_first_visit(w, num)) return tw_warn(w, M_MCR_TWICE);
    TCtx c = *tw_ctx(w, ctx);
    if (c.index < 0) return tw_warn(w, M_UNDER_ROOT);
    Py_ssize_t m = tw_get(w, kid, TK_MCID);
    if (m < LOOK_ABSENT) return tw_status(m);
    if (m >= 0 && tnode(w->t, m)->kind == NK_REF) return TW_BAIL;
    if (m < 0 || tnode(w->t, m)->kind != NK_INT || tnode(w->t, m)->a < 0) return tw_warn(w, M_MCR_MCID);
    long long mcid = tnode(w->t, m)->a;
    Py_ssize_t page = c.page, pg = tw_get(w, kid, TK_PG);
    if (pg < LOOK_ABSENT) return tw_status(pg);
    if (pg >= 0 && tw_page_of(w, pg, &page)) return TW_BAIL;
    long long stream = 0; /* PAGE_STREAM */
    Py_ssize_t stm = tw_get(w, kid, TK_STM);
    if (stm < LOOK_ABSENT) return tw_status(stm);
    if (stm >= 0) {
        int status = tw_stream(w, tnode(w->t, stm), &stream);
        if (status) return status;
    }
    TItem item = {.tag = TAG_CONTENT, .element = c.index, .page = page, .mcid = mcid, .stream = stream};
    return tw_push_item(&w->items, item);
}

/* _Walker._objr: counted on its page. */
static int tw_objr(TWalk *w, Py_ssize_t kid, long long num, Py_ssize_t ctx) {
    if (num > 0 && !tw_first_visit(w, num)) return 0;
    Py_ssize_t page = tw_ctx(w, ctx)->page, pg = tw_get(w, kid, TK_PG);
    if (pg < LOOK_ABSENT) return tw_status(pg);
    if (pg >= 0 && tw_page_of(w, pg, &page)) return TW_BAIL;
    if (page < 0 && w->npages == 1) page = 0;
    if (page < 0) return TW_BAIL; /* "not counted": said by the walkers above */
    if (!w->objr_counts[page]++ && buf_append(&w->order, &page, sizeof page) < 0) return -1;
    return 0;
}

/* _Walker._kid_dict: a kid dictionary with no /S. */
static int tw_kid_dict(TWalk *w, Py_ssize_t kid, long long num, long long gen, Py_ssize_t ctx, int *elements) {
    Py_ssize_t type = tw_get(w, kid, TK_TYPE), kind = -1;
    if (type < LOOK_ABSENT) return tw_status(type);
    if (type >= 0 && tnode(w->t, type)->kind == NK_REF) return TW_BAIL;
    if (type >= 0 && tnode(w->t, type)->kind == NK_NAME) kind = (Py_ssize_t)tnode(w->t, type)->a;
    Py_ssize_t mcid = tw_get(w, kid, TK_MCID), obj = tw_get(w, kid, TK_OBJ);
    if (mcid < LOOK_ABSENT) return tw_status(mcid);
    if (obj < LOOK_ABSENT) return tw_status(obj);
    int is_mcr = kind >= 0 ? kind == w->t->key[TK_MCR] : mcid >= 0;
    int is_objr = !is_mcr && (kind >= 0 ? kind == w->t->key[TK_OBJR] : obj >= 0);
    if (is_mcr) return tw_mcr(w, kid, num, ctx);
    if (is_objr) return tw_objr(w, kid, num, ctx);
    if (kind >= 0 && kind == w->t->key[TK_STRUCT_ELEM]) {
        if (tw_warn(w, M_NO_S) < 0) return -1;
        *elements = 1;
        TItem item = {.tag = TAG_ELEMENT, .node = kid, .type = -1, .ctx = ctx, .num = num, .gen = gen};
        return tw_push_item(&w->items, item);
    }
    return tw_warn(w, tw_on_path(w, num, gen) ? M_CYCLE : M_NEITHER); /* a direct kid and root: (0, 0) both */
}

/* _Walker._kid: one kid of /K, resolved, not an array. */
static int tw_kid(TWalk *w, Py_ssize_t kid, long long num, long long gen, Py_ssize_t ctx, int *elements, int *headed) {
    const TNode *k = tnode(w->t, kid);
    if (k->kind == NK_INT) {
        TCtx c = *tw_ctx(w, ctx);
        if (c.index < 0) return tw_warn(w, M_UNDER_ROOT);
        if (k->a < 0) return tw_warn(w, M_NEGATIVE);
        TItem item = {.tag = TAG_CONTENT, .element = c.index, .page = c.page, .mcid = k->a, .stream = 0};
        return tw_push_item(&w->items, item);
    }
    if (k->kind == NK_NULL) return tw_warn(w, M_NULL_KID);
    if (k->kind != NK_DICT) return TW_BAIL; /* "of unexpected kind": said above */
    Py_ssize_t s = tw_get(w, kid, TK_S);
    if (s < LOOK_ABSENT) return tw_status(s);
    if (s == LOOK_ABSENT) return tw_kid_dict(w, kid, num, gen, ctx, elements);
    Py_ssize_t ns = tw_get(w, kid, TK_NS);
    if (ns < LOOK_ABSENT) return tw_status(ns);
    if (tnode(w->t, s)->kind != NK_NAME || (ns >= 0 && tnode(w->t, ns)->kind != NK_REF)) return TW_BAIL;
    Py_ssize_t name = (Py_ssize_t)tnode(w->t, s)->a, type_id = name;
    TType *type = ns >= 0 ? tw_ns_type(w, name, tnode(w->t, ns), &type_id) : tw_type(w, name);
    if (!type) return -1;
    if (type->problem != Py_None) {
        PyObject *r = PyObject_CallOneArg(w->env[W_WARN], type->problem);
        if (!r) return -1;
        Py_DECREF(r);
    }
    *elements = 1;
    *headed |= type->heading;
    TItem item = {.tag = TAG_ELEMENT, .node = kid, .type = type_id, .ctx = ctx, .num = num, .gen = gen};
    return tw_push_item(&w->items, item);
}

static int tw_push_iter(TWalk *w, Py_ssize_t first, Py_ssize_t count, Py_ssize_t single, Py_ssize_t standing) {
    TIter it = {first, count, 0, single, standing};
    return buf_append(&w->iters, &it, sizeof it);
}

/* An array kid's items next (_Walker._array_items): an indirect array once. */
static int tw_array(TWalk *w, Py_ssize_t array, long long num) {
    if (num > 0 && !tw_first_visit(w, num)) return tw_warn(w, M_ARRAY_TWICE);
    const TNode *a = tnode(w->t, array);
    return tw_push_iter(w, a->a, a->count, -1, a->b);
}

static int tw_record(TWalk *w, const TItem *item);

/* The items of an element heading a level of the outline see one more headed ancestor. */
static int tw_headed(TWalk *w, Py_ssize_t ctx) {
    TCtx c = *tw_ctx(w, ctx);
    c.headed_incl++;
    Py_INCREF(c.lang);
    Py_ssize_t headed = tw_new_ctx(w, c);
    if (headed < 0) return -1;
    TItem *items = (TItem *)w->items.data;
    for (size_t i = 0; i < w->items.len / sizeof(TItem); i++)
        if (items[i].tag == TAG_ELEMENT) items[i].ctx = headed;
    return 0;
}

/* _Walker._expand: the kids of /K value `k` classified, then recorded or stacked. */
static int tw_expand(TWalk *w, Py_ssize_t k, Py_ssize_t ctx, int sectioning) {
    w->items.len = w->iters.len = 0;
    const TNode *kn = tnode(w->t, k);
    Py_ssize_t value = k;
    long long num = 0;
    if (kn->kind == NK_REF) {
        num = kn->a;
        if ((value = tw_resolve(w, kn->a, kn->b)) < 0 && value != LOOK_NULL) return tw_status(value);
    }
    /* /K itself was found present: its reference stands */
    int status = value >= 0 && tnode(w->t, value)->kind == NK_ARRAY ? tw_array(w, value, num) : tw_push_iter(w, k, 1, k, 1);
    int elements = 0, headed = 0;
    while (!status && w->iters.len) {
        TIter *it = (TIter *)(w->iters.data + w->iters.len) - 1;
        if (it->pos >= it->count) {
            w->iters.len -= sizeof(TIter);
            continue;
        }
        Py_ssize_t kid = it->single >= 0 ? it->single : ((const Py_ssize_t *)w->t->items.data)[it->first + it->pos];
        int standing = (int)it->standing;
        it->pos++;
        long long knum = 0, kgen = 0;
        const TNode *kk = tnode(w->t, kid);
        if (kk->kind == NK_REF) {
            int exists = standing ? 1 : tw_exists(w, kk->a, kk->b);
            if (exists < 0) { status = tw_status(exists); break; }
            if (!exists) { status = tw_warn(w, M_NULL_KID); continue; } /* a reference to a missing object is null */
            knum = kk->a;
            kgen = kk->b;
            kid = tw_resolve(w, knum, kgen);
            if (kid == LOOK_NULL) { status = tw_warn(w, M_NULL_KID); continue; }
            if (kid < 0) { status = tw_status(kid); break; }
        }
        if (tnode(w->t, kid)->kind == NK_ARRAY) status = tw_array(w, kid, knum);
        else status = tw_kid(w, kid, knum, kgen, ctx, &elements, &headed);
    }
    if (status) return status;
    size_t n = w->items.len / sizeof(TItem);
    if (!elements) {
        for (size_t i = 0; i < n && !status; i++) status = tw_record(w, (const TItem *)w->items.data + i);
        return status;
    }
    if (sectioning && headed && tw_headed(w, ctx) < 0) return -1;
    for (size_t i = n; i-- > 0 && !status;) status = tw_push_item(&w->stack, ((const TItem *)w->items.data)[i]);
    return status;
}

/* (page, MCID) claimed before? Claims it when not. 1, 0, -1 on error. */
static int tw_claimed(TWalk *w, long long page, long long mcid) {
    if (2 * (w->claimed_count + 1) > w->claimed_slots) {
        Py_ssize_t slots = w->claimed_slots ? 2 * w->claimed_slots : 256;
        long long *pages = PyMem_Malloc(sizeof(long long) * (size_t)slots), *mcids = PyMem_Malloc(sizeof(long long) * (size_t)slots);
        if (!pages || !mcids) { PyMem_Free(pages); PyMem_Free(mcids); PyErr_NoMemory(); return -1; }
        for (Py_ssize_t i = 0; i < slots; i++) pages[i] = -1;
        for (Py_ssize_t i = 0; i < w->claimed_slots; i++) {
            if (w->claimed_page[i] < 0) continue;
            size_t h = ((size_t)w->claimed_page[i] * 0x9E3779B97F4A7C15u ^ (size_t)w->claimed_mcid[i] * 0xC2B2AE3D27D4EB4Fu) >> 7;
            size_t s = h & (size_t)(slots - 1);
            while (pages[s] >= 0) s = (s + 1) & (size_t)(slots - 1);
            pages[s] = w->claimed_page[i];
            mcids[s] = w->claimed_mcid[i];
        }
        PyMem_Free(w->claimed_page);
        PyMem_Free(w->claimed_mcid);
        w->claimed_page = pages;
        w->claimed_mcid = mcids;
        w->claimed_slots = slots;
    }
    size_t h = ((size_t)page * 0x9E3779B97F4A7C15u ^ (size_t)mcid * 0xC2B2AE3D27D4EB4Fu) >> 7;
    size_t s = h & (size_t)(w->claimed_slots - 1);
    for (; w->claimed_page[s] >= 0; s = (s + 1) & (size_t)(w->claimed_slots - 1))
        if (w->claimed_page[s] == page && w->claimed_mcid[s] == mcid) return 1;
    w->claimed_page[s] = page;
    w->claimed_mcid[s] = mcid;
    w->claimed_count++;
    return 0;
}

/* The page (index) of a page key (number, 0) from Python: TW_BAIL when it is no page of the document. */
static int tw_page_key(TWalk *w, PyObject *key, Py_ssize_t *page) {
    long long n = -1, g = -1;
    if (PyTuple_CheckExact(key) && PyTuple_GET_SIZE(key) == 2) {
        n = PyLong_AsLongLong(PyTuple_GET_ITEM(key, 0));
        g = PyLong_AsLongLong(PyTuple_GET_ITEM(key, 1));
        if (PyErr_Occurred()) PyErr_Clear();
    }
    if (g != 0 || n <= 0 || n >= w->t->nnumbers || w->page_of_number[n] < 0) return TW_BAIL;
    *page = w->page_of_number[n];
    return 0;
}

/* ==== /ParentTree read over the nodes (struct2) ===========================
 * structure.py's _read_parent_tree_pages (the reference, which the walks of
 * plain values use) inside the walk: the number tree (§7.9.7) under
 * /ParentTree read from the nodes, then each page's entry (§14.7.4.4: an
 * array, by MCID, of the elements owning its marked content) placed into
 * TWalk.owners, (owner's object number, MCID) -> the page's index, the
 * first placement kept: no Python dict, tuple or int per owner. Where the
 * reference would warn (a node of the number tree reached twice, or nested
 * too deep), or cannot be matched here (a reference of another generation,
 * an exception out of Python), the reading is left to _Walker._parent_tree
 * as before: TW_BAIL, and no trace of this reading is kept. */

/* Value node `v` with a reference resolved (PlainObjects.value): LOOK_NULL
 * for null or a missing object, below 0 as tw_resolve else. */
static Py_ssize_t tw_deref(TWalk *w, Py_ssize_t v) {
    const TNode *n = tnode(w->t, v);
    return n->kind == NK_REF ? tw_resolve(w, n->a, n->b) : v;
}

/* Dictionary node `d`'s entry `key` resolved, when it is an array: its first
 * item and count (the item list may move as objects are parsed: the caller
 * reads it anew). 1 when it is an array, 0 when not, below 0 as tw_resolve. */
static int tw_array_entry(TWalk *w, Py_ssize_t d, int key, Py_ssize_t *first, Py_ssize_t *count) {
    Py_ssize_t v = tw_get(w, d, key);
    if (v == LOOK_ABSENT) return 0;
    if (v >= 0) v = tw_deref(w, v);
    if (v == LOOK_NULL) return 0;
    if (v < 0) return (int)v;
    const TNode *a = tnode(w->t, v);
    if (a->kind != NK_ARRAY) return 0;
    *first = (Py_ssize_t)a->a;
    *count = a->count;
    return 1;
}

static Py_ssize_t tw_item(const TWalk *w, Py_ssize_t first, Py_ssize_t i) {
    return ((const Py_ssize_t *)w->t->items.data)[first + i];
}

/* One node of the number tree (_number_tree's loop body): its /Nums pairs
 * into `numbers` (key -> the entry's node, unresolved; the first kept), its
 * /Kids onto `stack`. 0, TW_BAIL, -1 on error. */
static int tw_number_node(TWalk *w, Py_ssize_t d, long depth, TPairs *numbers, Buf *stack) {
    Py_ssize_t first = 0, count = 0;
    int found = tw_array_entry(w, d, TK_NUMS, &first, &count);
    if (found < 0) return tw_status(found);
    for (Py_ssize_t i = 0; found && i + 1 < count; i += 2) { /* an odd last item pairs with nothing */
        Py_ssize_t key = tw_deref(w, tw_item(w, first, i));
        if (key == LOOK_NULL) continue;
        if (key < 0) return tw_status(key);
        if (tnode(w->t, key)->kind == NK_INT && tpairs_setdefault(numbers, tnode(w->t, key)->a, 0, tw_item(w, first, i + 1)) < 0)
            return -1;
    }
    found = tw_array_entry(w, d, TK_KIDS, &first, &count);
    if (found < 0) return tw_status(found);
    for (Py_ssize_t i = count; found && i-- > 0;) { /* the first kid on top */
        Py_ssize_t frame[2] = {tw_item(w, first, i), (Py_ssize_t)depth + 1};
        if (buf_append(stack, frame, sizeof frame) < 0) return -1;
    }
    return 0;
}

/* _number_tree: every entry of the number tree at value node `top`. */
static int tw_number_tree(TWalk *w, Py_ssize_t top, TPairs *numbers) {
    Buf stack = {0};
    unsigned char *seen = PyMem_Calloc((size_t)w->t->nnumbers, 1);
    Py_ssize_t frame[2] = {top, 0};
    int status = seen ? buf_append(&stack, frame, sizeof frame) : (PyErr_NoMemory(), -1);
    while (!status && stack.len) {
        stack.len -= sizeof frame;
        memcpy(frame, stack.data + stack.len, sizeof frame);
        const TNode *n = tnode(w->t, frame[0]);
        long long num = n->kind == NK_REF ? n->a : 0;
        Py_ssize_t d = tw_deref(w, frame[0]);
        if (d == LOOK_NULL) continue;
        if (d < 0) { status = tw_status(d); break; }
        if (tnode(w->t, d)->kind != NK_DICT) continue;
        if (num > 0 && seen[num]) status = TW_BAIL; /* "reached twice": the reference says it */
        else if (frame[1] > w->max_depth) status = TW_BAIL; /* "nested too deep": likewise */
        else {
            if (num > 0) seen[num] = 1; /* tw_deref held it: 0 < num < nnumbers */
            status = tw_number_node(w, d, (long)frame[1], numbers, &stack);
        }
    }
    PyMem_Free(seen);
    buf_free(&stack);
    return status;
}

/* Page `page`'s entry of the number tree (node `entry`): each item that is
 * a reference to a dictionary placed as its owner at its index. */
static int tw_place_page(TWalk *w, Py_ssize_t entry, Py_ssize_t page) {
    Py_ssize_t owners = tw_deref(w, entry);
    if (owners == LOOK_NULL) return 0;
    if (owners < 0) return tw_status(owners);
    if (tnode(w->t, owners)->kind != NK_ARRAY) return 0;
    Py_ssize_t first = (Py_ssize_t)tnode(w->t, owners)->a, count = tnode(w->t, owners)->count;
    for (Py_ssize_t mcid = 0; mcid < count; mcid++) {
        const TNode *item = tnode(w->t, tw_item(w, first, mcid));
        if (item->kind != NK_REF) continue;
        long long num = item->a;
        Py_ssize_t target = tw_resolve(w, num, item->b); /* a missing object is null: not placed */
        if (target == LOOK_NULL) continue;
        if (target < 0) return tw_status(target);
        if (tnode(w->t, target)->kind == NK_DICT && tpairs_setdefault(&w->owners, num, mcid, page) < 0) return -1;
    }
    return 0;
}

/* _read_parent_tree_pages into w->owners: the number tree, then each page's
 * entry, pages in order (their /StructParents from Python, as the reference
 * reads them). 0, TW_BAIL, -1 on error. */
static int tw_read_parent_tree(TWalk *w) {
    Py_ssize_t top = tw_node_of(w, w->env[W_PARENT_TREE_ROOT], 0);
    if (top < 0) return PyErr_Occurred() ? -1 : TW_BAIL;
    TPairs numbers = {0};
    int status = tw_number_tree(w, top, &numbers);
    PyObject *keys = !status && numbers.count ? PyObject_CallNoArgs(w->env[W_STRUCT_PARENTS]) : NULL;
    if (!status && numbers.count && !keys) status = -1;
    if (keys && (!PyTuple_CheckExact(keys) || PyTuple_GET_SIZE(keys) != w->npages)) status = TW_BAIL;
    for (Py_ssize_t i = 0; keys && !status && i < w->npages; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        if (key == Py_None) continue;
        long long k = PyLong_AsLongLong(key);
        if (k == -1 && PyErr_Occurred()) { status = -1; break; }
        Py_ssize_t entry = tpairs_get(&numbers, k, 0);
        if (entry >= 0) status = tw_place_page(w, entry, i);
    }
    Py_XDECREF(keys);
    tpairs_free(&numbers);
    return status;
}

/* How content with no /Pg is placed: decided at the first of it (w->parent_state). */
static int tw_parent_state(TWalk *w) {
    if (w->parent_state != PT_UNREAD) return 0;
    int status = tw_read_parent_tree(w);
    if (!status) {
        w->parent_state = PT_NODES;
        return 0;
    }
    PyErr_Clear(); /* _Walker._parent_tree meets the same and says it */
    tpairs_free(&w->owners);
    if (!(w->parent_tree = PyObject_CallNoArgs(w->env[W_PARENT_TREE]))) return -1;
    w->parent_state = PT_DICT;
    return 0;
}
/* ==== end of struct2's /ParentTree ======================================== */

/* _Walker._orphan_page_of_ref of content with no /Pg whose element is object
 * (num, gen) (num 0: a direct one): through /ParentTree (read once, over
 * the nodes or by _Walker._parent_tree), else the only page of the
 * document. 0 with *page set, 2 when the content is dropped, TW_BAIL, -1 on error. */
static int tw_orphan_page(TWalk *w, long long num, long long gen, long long mcid, long long stream, Py_ssize_t *page) {
    if (tw_parent_state(w) < 0) return -1;
    if (w->parent_state == PT_NODES) {
        Py_ssize_t placed = stream == 0 && num > 0 && gen == 0 ? tpairs_get(&w->owners, num, mcid) : -1;
        if (placed >= 0) {
            int status = tw_page_key(w, PyTuple_GET_ITEM(w->env[W_PAGES], placed), page);
            return status ? status : tw_warn(w, M_ORPHAN_PARENT_TREE);
        }
        if (!w->owners.count && w->npages == 1) {
            int status = tw_page_key(w, PyTuple_GET_ITEM(w->env[W_PAGES], 0), page);
            return status ? status : tw_warn(w, M_ORPHAN_ONE_PAGE);
        }
        int status = tw_warn(w, M_ORPHAN_DROPPED);
        return status ? status : 2;
    }
    if (!PyDict_CheckExact(w->parent_tree)) return TW_BAIL;
    if (PyDict_GET_SIZE(w->parent_tree)) {
        if (stream == 0 && num > 0) { /* PAGE_STREAM content of an indirect element */
            PyObject *ref = cached_ref(w->t->refs, num, gen), *m = ref ? PyLong_FromLongLong(mcid) : NULL;
            PyObject *key = m ? PyTuple_Pack(2, ref, m) : NULL;
            Py_XDECREF(ref);
            Py_XDECREF(m);
            if (!key) return -1;
            PyObject *found = PyDict_GetItemWithError(w->parent_tree, key); /* borrowed */
            Py_DECREF(key);
            if (found) {
                int status = tw_page_key(w, found, page);
                return status ? status : tw_warn(w, M_ORPHAN_PARENT_TREE);
            }
            if (PyErr_Occurred()) return -1;
        }
    } else if (w->npages == 1) {
        int status = tw_page_key(w, PyTuple_GET_ITEM(w->env[W_PAGES], 0), page);
        return status ? status : tw_warn(w, M_ORPHAN_ONE_PAGE);
    }
    int status = tw_warn(w, M_ORPHAN_DROPPED);
    return status ? status : 2;
}

/* _Walker._record: a (page, stream, MCID, element) row of the content columns. */
static int tw_record(TWalk *w, const TItem *item) {
    Py_ssize_t page = item->page;
    if (page < 0) { /* no /Pg: through /ParentTree, or the only page (_page_of_orphan) */
        if (item->element < 0 || item->element >= w->cols.count) return TW_BAIL;
        const long long *row = tw_row(&w->cols, item->element);
        long long n = row[COL_NUM] > 0 ? row[COL_NUM] : 0;
        int status = tw_orphan_page(w, n, row[COL_GEN], item->mcid, item->stream, &page);
        if (status) return status == 2 ? 0 : status;
    }
    /* page and stream in one key: a page index below 2^31, a stream number below 2^24 */
    int twice = tw_claimed(w, (long long)page << 25 | item->stream, item->mcid);
    if (twice) return twice < 0 ? -1 : tw_warn(w, M_ASSIGNED_TWICE);
    long long row[4] = {(long long)page, item->stream, item->mcid, (long long)item->element};
    return buf_append(&w->cols.content, row, sizeof row);
}

/* _Walker._text of node `v` (not absent): a text string decoded once per document; else `fallback`, with the complaint. New reference. */
static PyObject *tw_text(TWalk *w, Py_ssize_t v, int complaint, PyObject *fallback, int *status) {
    const TNode *n = tnode(w->t, v);
    if (n->kind == NK_REF) { *status = TW_BAIL; return NULL; }
    if (n->kind != NK_STRING) {
        if (tw_warn(w, complaint) < 0) { *status = -1; return NULL; }
        return Py_NewRef(fallback);
    }
    PyObject *raw = PyBytes_FromStringAndSize(w->t->strs.data + n->a, n->count);
    if (!raw) { *status = -1; return NULL; }
    PyObject *text = PyDict_GetItemWithError(w->env[W_TEXTS], raw);
    if (text) {
        Py_INCREF(text);
    } else if (!PyErr_Occurred() && (text = PyObject_CallOneArg(w->env[W_TEXT_STRING], raw)) &&
               PyDict_SetItem(w->env[W_TEXTS], raw, text) < 0) {
        Py_CLEAR(text);
    }
    Py_DECREF(raw);
    if (!text) *status = -1;
    return text;
}

/* tw_text_key where dictionary `obj` may have the key. */
static PyObject *tw_text_entry(TWalk *w, Py_ssize_t obj, int key, int complaint, PyObject *fallback, int *status) {
    Py_ssize_t v = tw_get(w, obj, key);
    if (v == LOOK_ABSENT) return Py_NewRef(fallback);
    if (v < 0) { *status = tw_status(v); return NULL; }
    return tw_text(w, v, complaint, fallback, status);
}

/* The element's text (/Lang, /ActualText, /Alt) in effect; inline where
 * the dictionary has no entry of the key (most elements have none of the
 * three). New reference; NULL with *status set. */
static inline __attribute__((always_inline)) PyObject *tw_text_key(TWalk *w, Py_ssize_t obj, int key, int complaint,
                                                                  PyObject *fallback, int *status) {
    if (!TREE_MAY_HAVE(tnode(w->t, obj), w->t->key[key])) return Py_NewRef(fallback);
    return tw_text_entry(w, obj, key, complaint, fallback, status);
}

/* ---- a TH/TD's attributes over the nodes (_table_cell_attributes) ----
 * The same reads in the same order: a look-up below LOOK_ABSENT other than
 * LOOK_NULL (a reference the walk cannot follow) or a resolved object that is
 * itself a reference (Python would resolve it once more) gives the cell up
 * to Python's _table_cell_attributes (TW_BAIL); warnings are held until the
 * cell is read, so a cell given up says none twice. */

/* PlainObjects.value of node `v`: a reference's object, LOOK_NULL for null
 * (or a missing object), else LOOK_UNSURE / LOOK_ERROR. */
static Py_ssize_t tw_value(TWalk *w, Py_ssize_t v) {
    if (v < 0) return v == LOOK_ABSENT ? LOOK_NULL : v;
    const TNode *n = tnode(w->t, v);
    if (n->kind == NK_NULL) return LOOK_NULL;
    if (n->kind != NK_REF) return v;
    Py_ssize_t r = tw_resolve(w, n->a, n->b); /* may grow the arena: n is not read after */
    if (r >= 0 && tnode(w->t, r)->kind == NK_NULL) return LOOK_NULL;
    return r >= 0 && tnode(w->t, r)->kind == NK_REF ? LOOK_UNSURE : r;
}

static int tw_kind(TWalk *w, Py_ssize_t v) { return v >= 0 ? tnode(w->t, v)->kind : NK_NULL; }

/* Node `v` (a value already read) into `found` when a dictionary; an
 * array's items each read and kept when dictionaries (_attribute_objects'
 * extend and map(value)). 0, TW_BAIL or -1. */
static int tw_attribute_dicts(TWalk *w, Py_ssize_t v, Buf *found) {
    if (v < LOOK_ABSENT && v != LOOK_NULL) return tw_status(v);
    if (tw_kind(w, v) == NK_DICT) return buf_append(found, &v, sizeof v);
    if (tw_kind(w, v) != NK_ARRAY) return 0;
    Py_ssize_t first = (Py_ssize_t)tnode(w->t, v)->a, count = tnode(w->t, v)->count;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t item = tw_value(w, ((const Py_ssize_t *)w->t->items.data)[first + i]);
        if (item < LOOK_ABSENT && item != LOOK_NULL) return tw_status(item);
        if (tw_kind(w, item) == NK_DICT && buf_append(found, &item, sizeof item) < 0) return -1;
    }
    return 0;
}

/* The /ClassMap entries of the classes of /C value `classes` (read), into `found`.
 * The role map's /ClassMap comes as the root writes it (env[W_CLASS_MAP]: a
 * reference unresolved, a direct value, None when absent): it is read the
 * first time a cell's /C asks, as _Walker._class_map reads it (a value that
 * is not a dictionary: no class map), so a tree no cell of which names a
 * class never reads it. */
static int tw_class_dicts(TWalk *w, Py_ssize_t classes, Buf *found) {
    if (w->class_map == -1) {
        PyObject *map = w->env[W_CLASS_MAP];
        Py_ssize_t node = map == Py_None ? LOOK_NULL : tw_node_of(w, map, 0);
        if (node == -1) {
            if (PyErr_Occurred()) return -1;
            node = LOOK_UNSURE;
        } else if (node >= 0) {
            node = tw_value(w, node);
            if (node == LOOK_ERROR) return -1; /* resolving it raised: the walk stops with that, as _class_map would */
            if (node >= 0 && tw_kind(w, node) != NK_DICT) node = LOOK_NULL;
        }
        w->class_map = node;
    }
    if (w->class_map == LOOK_NULL) return 0;
    if (w->class_map < 0) return TW_BAIL;
    if (classes < LOOK_ABSENT && classes != LOOK_NULL) return tw_status(classes);
    int listed = tw_kind(w, classes) == NK_ARRAY;
    Py_ssize_t first = listed ? (Py_ssize_t)tnode(w->t, classes)->a : 0, count = listed ? tnode(w->t, classes)->count : 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t name = listed ? tw_value(w, ((const Py_ssize_t *)w->t->items.data)[first + i]) : classes;
        if (name < LOOK_ABSENT && name != LOOK_NULL) return tw_status(name);
        if (tw_kind(w, name) != NK_NAME) continue;
        Py_ssize_t entry = tw_value(w, tw_get_name(w, w->class_map, (Py_ssize_t)tnode(w->t, name)->a));
        int status = tw_attribute_dicts(w, entry, found);
        if (status) return status;
    }
    return 0;
}

/* The read value of key `key` of dictionary `d`: LOOK_NULL when absent. */
static Py_ssize_t tw_entry(TWalk *w, Py_ssize_t d, int key) {
    Py_ssize_t v = tw_get(w, d, key);
    return v == LOOK_ABSENT ? LOOK_NULL : v < 0 ? v : tw_value(w, v);
}

/* _string_key of read value `v`: a string's bytes as latin-1 text; None otherwise. New reference. */
static PyObject *tw_string_key(TWalk *w, Py_ssize_t v) {
    if (tw_kind(w, v) != NK_STRING) return Py_NewRef(Py_None);
    const TNode *n = tnode(w->t, v);
    return PyUnicode_DecodeLatin1(w->t->strs.data + n->a, n->count, NULL);
}

/* /Headers' string keys (read array `v`), a new tuple. */
static PyObject *tw_headers(TWalk *w, Py_ssize_t v, int *status) {
    Py_ssize_t first = (Py_ssize_t)tnode(w->t, v)->a, count = tnode(w->t, v)->count;
    PyObject *keys = PyList_New(0), *out = NULL;
    for (Py_ssize_t i = 0; keys && i < count && !*status; i++) {
        Py_ssize_t item = tw_value(w, ((const Py_ssize_t *)w->t->items.data)[first + i]);
        if (item < LOOK_ABSENT && item != LOOK_NULL) { *status = tw_status(item); break; }
        if (tw_kind(w, item) != NK_STRING) continue;
        PyObject *key = tw_string_key(w, item);
        if (!key || PyList_Append(keys, key) < 0) *status = -1;
        Py_XDECREF(key);
    }
    if (!keys) *status = -1;
    if (!*status && !(out = PyList_AsTuple(keys))) *status = -1;
    Py_XDECREF(keys);
    return out;
}

typedef struct { long long row_span, col_span; int scope; PyObject *headers; Buf complaints; } TCell;

/* One attribute object's /Table entries (the loop body of _table_cell_attributes). */
static int tw_table_attributes(TWalk *w, Py_ssize_t attrs, TCell *cell) {
    Py_ssize_t o = tw_entry(w, attrs, TK_O);
    if (o < LOOK_ABSENT && o != LOOK_NULL) return tw_status(o);
    if (tw_kind(w, o) != NK_NAME || tnode(w->t, o)->a != w->t->key[TK_TABLE]) return 0;
    for (int k = TK_ROW_SPAN; k <= TK_COL_SPAN; k++) {
        Py_ssize_t v = tw_get(w, attrs, k);
        if (v == LOOK_ABSENT) continue;
        if (v >= 0) v = tw_value(w, v);
        if (v < LOOK_ABSENT && v != LOOK_NULL) return tw_status(v);
        long long span = tw_kind(w, v) == NK_INT ? tnode(w->t, v)->a : 0;
        int which = k - TK_ROW_SPAN;
        if (span >= 1) *(which ? &cell->col_span : &cell->row_span) = span;
        else if (buf_append(&cell->complaints, &which, sizeof which) < 0) return -1;
    }
    Py_ssize_t scope = tw_entry(w, attrs, TK_SCOPE);
    if (scope < LOOK_ABSENT && scope != LOOK_NULL) return tw_status(scope);
    for (int s = 0; s < 3 && tw_kind(w, scope) == NK_NAME; s++)
        if (tnode(w->t, scope)->a == w->t->key[TK_ROW + s]) cell->scope = s;
    Py_ssize_t listed = tw_entry(w, attrs, TK_HEADERS);
    if (listed < LOOK_ABSENT && listed != LOOK_NULL) return tw_status(listed);
    if (tw_kind(w, listed) != NK_ARRAY) return 0;
    int status = 0;
    PyObject *headers = tw_headers(w, listed, &status);
    if (headers) Py_XSETREF(cell->headers, headers);
    return status;
}

/* _table_cell_attributes over the element's node; its warnings said once the whole cell is read. New reference. */
static PyObject *tw_cell_nodes(TWalk *w, Py_ssize_t obj, int *status) {
    TCell cell = {1, 1, -1, NULL, {0}};
    Buf found = {0};
    PyObject *out = NULL;
    int s = 0;
    if (tw_get(w, obj, TK_C) != LOOK_ABSENT && w->env[W_CLASS_MAP] != Py_None) s = tw_class_dicts(w, tw_entry(w, obj, TK_C), &found);
    if (!s && tw_get(w, obj, TK_A) != LOOK_ABSENT) s = tw_attribute_dicts(w, tw_entry(w, obj, TK_A), &found);
    for (size_t i = 0; !s && i < found.len / sizeof(Py_ssize_t); i++) s = tw_table_attributes(w, ((const Py_ssize_t *)found.data)[i], &cell);
    Py_ssize_t id = s ? LOOK_NULL : tw_entry(w, obj, TK_ID);
    if (!s && id < LOOK_ABSENT && id != LOOK_NULL) s = tw_status(id);
    PyObject *element_id = s ? NULL : tw_string_key(w, id);
    if (!s && !element_id) s = -1;
    for (size_t i = 0; !s && i < cell.complaints.len / sizeof(int); i++) {
        PyObject *r = PyObject_CallOneArg(w->env[W_WARN], PyTuple_GET_ITEM(w->env[W_SPAN_COMPLAINTS], ((const int *)cell.complaints.data)[i]));
        if (!r) s = -1;
        Py_XDECREF(r);
    }
    if (!s) {
        out = Py_BuildValue("(LLOOO)", cell.row_span, cell.col_span, cell.scope >= 0 ? w->scopes[cell.scope] : Py_None,
                            cell.headers ? cell.headers : w->base.empty, element_id);
        if (!out) s = -1;
    }
    Py_XDECREF(element_id);
    Py_XDECREF(cell.headers);
    buf_free(&cell.complaints);
    buf_free(&found);
    *status = s;
    return out;
}

/* A TH/TD's attributes (_Walker._cell_attributes): read over the nodes,
 * else by Python from the element's plain value. New reference. */
static PyObject *tw_cell(TWalk *w, const TItem *item, const TType *type, int *status) {
    if (!type->th && !type->td) return Py_NewRef(w->env[W_NO_CELL]);
    int attributed = 0;
    for (int k = TK_A; k <= TK_ID; k++) {
        Py_ssize_t v = tw_get(w, item->node, k);
        if (v < LOOK_ABSENT) { *status = tw_status(v); return NULL; }
        attributed |= v >= 0;
    }
    if (!attributed) return Py_NewRef(w->env[W_NO_CELL]);
    if (w->env[W_CELL_NODES] == Py_True) {
        PyObject *cell = tw_cell_nodes(w, item->node, status);
        if (cell || *status != TW_BAIL) return cell;
        *status = 0;
    }
    if (item->num <= 0) { *status = TW_BAIL; return NULL; } /* a direct cell: no plain value to hand over */
    PyObject *ref = cached_ref(w->t->refs, item->num, item->gen);
    PyObject *obj = ref ? PyObject_CallOneArg(w->env[W_RESOLVE], ref) : NULL;
    Py_XDECREF(ref);
    PyObject *cell = obj && PyDict_CheckExact(obj) ? PyObject_CallOneArg(w->env[W_CELL], obj) : NULL;
    if (obj && !PyDict_CheckExact(obj)) *status = TW_BAIL;
    else if (!cell) *status = -1;
    else if (!PyTuple_Check(cell) || PyTuple_GET_SIZE(cell) != 5) { Py_CLEAR(cell); *status = TW_BAIL; }
    Py_XDECREF(obj);
    return cell;
}

/* The row of the tree's type table of `type`, numbered as elements first use it; -1 on error. */
static Py_ssize_t tw_type_column(TWalk *w, TType *type) {
    if (type->column) return type->column - 1;
    PyObject *key = PyTuple_Pack(2, type->raw, type->std); /* one row per (raw, standard) pair, whichever name gave it */
    if (!key) return -1;
    PyObject *known = PyDict_GetItemWithError(w->cols.types, key);
    Py_ssize_t row = known ? PyLong_AsSsize_t(known) : PyErr_Occurred() ? -1 : PyDict_GET_SIZE(w->cols.types);
    if (!known && row >= 0) {
        PyObject *value = PyLong_FromSsize_t(row);
        if (!value || PyDict_SetItem(w->cols.types, key, value) < 0) row = -1;
        Py_XDECREF(value);
        /* structure._owns_block: a block type, or a type that is no standard one */
        int block = row >= 0 ? PyObject_IsTrue(type->block) : -1;
        int standard = block == 0 ? PySet_Contains(w->env[W_STANDARD_TYPES], type->std) : 1;
        unsigned char owns = block > 0 || standard == 0;
        if (block < 0 || standard < 0 || buf_append(&w->cols.owns, &owns, 1) < 0) row = -1;
    }
    Py_DECREF(key);
    if (row >= 0) type->column = row + 1;
    return row;
}

/* The slot of step (parent, type): its own, or the empty one where it goes. */
static TStepSlot *tw_step_slot(TColumns *cols, long long parent, long long type) {
    uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)type * 0xC2B2AE3D27D4EB4Full);
    size_t at = (size_t)(h ^ (h >> 29)) & cols->step_mask;
    while (cols->step_slots[at].step >= 0 && (cols->step_slots[at].parent != parent || cols->step_slots[at].type != type))
        at = (at + 1) & cols->step_mask; /* at most half the slots are full: an empty one comes */
    return &cols->step_slots[at];
}

/* Twice the slots, the steps placed again; -1 on error. */
static int tw_step_grow(TColumns *cols) {
    size_t old = cols->step_mask ? cols->step_mask + 1 : 0, slots = old ? old * 2 : 64;
    if (slots > PY_SSIZE_T_MAX / sizeof(TStepSlot)) { PyErr_NoMemory(); return -1; }
    TStepSlot *fresh = PyMem_Malloc(slots * sizeof(TStepSlot)), *before = cols->step_slots;
    if (!fresh) { PyErr_NoMemory(); return -1; }
    for (size_t i = 0; i < slots; i++) fresh[i].step = -1;
    cols->step_slots = fresh;
    cols->step_mask = slots - 1;
    for (size_t i = 0; i < old; i++)
        if (before[i].step >= 0) *tw_step_slot(cols, before[i].parent, before[i].type) = before[i];
    PyMem_Free(before);
    return 0;
}

/* The path step of an element of `type_row` under `parent` (-1: the root): numbered at first use; -1 on error. */
static long long tw_path_step(TColumns *cols, Py_ssize_t parent, long long type_row) {
    long long up = -1;
    if (parent >= 0) {
        if (parent >= cols->count) { PyErr_SetString(PyExc_IndexError, "TreeObjects.walk: a parent after its kid"); return -1; }
        up = tw_row(cols, parent)[COL_PATH];
    }
    long long known = (long long)(cols->steps.len / (2 * sizeof(long long)));
    if ((size_t)known * 2 >= cols->step_mask && tw_step_grow(cols) < 0) return -1; /* keep half the slots empty */
    TStepSlot *slot = tw_step_slot(cols, up, type_row);
    if (slot->step >= 0) return slot->step;
    long long pair[2] = {up, type_row};
    if (buf_append(&cols->steps, pair, sizeof pair) < 0) return -1;
    *slot = (TStepSlot){up, type_row, known};
    return known;
}

/* `value` at element `index` of a sparse column, unless it is None. */
static int tw_sparse(PyObject *column, Py_ssize_t index, PyObject *value) {
    if (value == Py_None) return 0;
    PyObject *key = PyLong_FromSsize_t(index);
    int r = key ? PyDict_SetItem(column, key, value) : -1;
    Py_XDECREF(key);
    return r;
}

/* A visited element's row of the columns. */
static int tw_element(TWalk *w, const TItem *item, TType *type, const TCtx *c, PyObject *texts[3], Py_ssize_t page,
                      long owner, PyObject *cell) {
    Py_ssize_t index = w->cols.count;
    PyObject *lang = texts[0]; /* None or a str (text_string's), mostly: their truth without a call */
    int lang_set = lang == Py_None ? 0 : PyUnicode_CheckExact(lang) ? PyUnicode_GET_LENGTH(lang) != 0 : PyObject_IsTrue(lang);
    Py_ssize_t type_row = lang_set < 0 ? -1 : tw_type_column(w, type);
    long long step = type_row < 0 ? -1 : tw_path_step(&w->cols, c->index, type_row);
    if (step < 0) return -1;
    if (buf_reserve(&w->cols.rows, sizeof(TRow)) < 0) return -1;
    long long *row = tw_row(&w->cols, index);
    row[COL_PARENT] = c->index;
    row[COL_TYPE] = type_row;
    row[COL_LEVEL] = type->h ? 1 + c->headed_excl : type->numbered;
    row[COL_OWNER] = owner;
    row[COL_NUM] = item->num > 0 ? item->num : 0;
    row[COL_GEN] = item->num > 0 ? item->gen : 0;
    row[COL_PAGE] = page;
    row[COL_PATH] = step;
    w->cols.rows.len += sizeof(TRow);
    w->cols.count++;
    if (PyList_Append(w->cols.lang, lang_set ? texts[0] : Py_None) < 0 || tw_sparse(w->cols.actual_text, index, texts[1]) < 0 ||
        tw_sparse(w->cols.alt, index, texts[2]) < 0)
        return -1;
    if (cell == w->env[W_NO_CELL]) return 0;
    int plain = PyObject_RichCompareBool(cell, w->env[W_NO_CELL], Py_EQ); /* a cell whose attributes say nothing */
    return plain < 0 ? -1 : plain ? 0 : tw_sparse(w->cols.cells, index, cell);
}

/* _Walker._visit. */
static int tw_visit(TWalk *w, const TItem *item) {
    if (item->num > 0) {
        if (tw_on_path(w, item->num, item->gen)) return tw_warn(w, M_CYCLE);
        if (!tw_first_visit(w, item->num)) return tw_warn(w, M_TWICE);
    }
    TCtx c = *tw_ctx(w, item->ctx);
    long depth = c.depth + 1;
    if (depth > w->max_depth) return tw_warn(w, M_DEEP);
    TType *type = tw_item_type(w, item->type);
    Py_ssize_t page = c.page, pg = tw_get(w, item->node, TK_PG);
    if (pg < LOOK_ABSENT) return tw_status(pg);
    if (pg >= 0 && tw_page_of(w, pg, &page)) return TW_BAIL;
    int status = 0;
    PyObject *texts[3] = {NULL, NULL, NULL}, *cell = NULL;
    texts[0] = tw_text_key(w, item->node, TK_LANG, M_LANG, c.lang, &status);
    if (texts[0]) texts[1] = tw_text_key(w, item->node, TK_ACTUAL_TEXT, M_ACTUAL_TEXT, Py_None, &status);
    if (texts[1]) texts[2] = tw_text_key(w, item->node, TK_ALT, M_ALT, Py_None, &status);
    if (texts[2]) cell = tw_cell(w, item, type, &status);
    Py_ssize_t index = w->cols.count;
    long owner = c.owner < 0 && texts[1] && texts[1] != Py_None ? (long)index : c.owner;
    if (cell) status = tw_element(w, item, type, &c, texts, page, owner, cell);
    Py_ssize_t k = status ? LOOK_ABSENT : tw_get(w, item->node, TK_K);
    if (k < LOOK_ABSENT) status = tw_status(k);
    if (!status && k >= 0) {
        TItem exit = {.tag = TAG_EXIT, .node = -1, .type = -1, .ctx = -1, .num = item->num, .gen = item->gen};
        if (item->num > 0) {
            if (item->gen != 0 || item->num >= w->t->nnumbers) status = TW_BAIL;
            else w->on_path[item->num] = 1;
            if (!status) status = tw_push_item(&w->stack, exit);
        }
        TCtx kid = {index, page, Py_NewRef(texts[0]), depth, c.headed_incl, c.headed_incl, owner};
        Py_ssize_t id = status ? -1 : tw_new_ctx(w, kid);
        if (status) Py_DECREF(kid.lang);
        else status = id < 0 ? -1 : tw_expand(w, k, id, type->sectioning);
    }
    for (int i = 0; i < 3; i++) Py_XDECREF(texts[i]);
    Py_XDECREF(cell);
    return status;
}

/* Items or entries gathered in `ids`, appended to the arena as one standing container (b = 1). */
static Py_ssize_t tw_container(TreeObjects *t, int kind, Buf *ids, size_t size) {
    Buf *into = kind == NK_DICT ? &t->entries : &t->items;
    Py_ssize_t first = (Py_ssize_t)(into->len / size), id = -1;
    if (buf_append(into, ids->data, ids->len) == 0) id = tree_add_node(t, kind, (Py_ssize_t)(ids->len / size), first, 1);
    buf_free(ids);
    return id;
}

/* A plain value (structure_objects.py) as nodes; its containers standing:
 * their references are read as they are, not checked again. -1 (an
 * exception set or not) for what has no node (a Stream, an integer beyond
 * 64 bits, nesting deeper than TW_MAX_NESTING). */
static Py_ssize_t tw_node_of(TWalk *w, PyObject *v, int depth) {
    TreeObjects *t = w->t;
    if (depth > TW_MAX_NESTING) return -1;
    if (v == Py_None) return tree_add_node(t, NK_NULL, 0, 0, 0);
    if (PyBool_Check(v)) return tree_add_node(t, NK_BOOL, 0, v == Py_True, 0);
    if (PyFloat_CheckExact(v)) return tree_add_node(t, NK_REAL, 0, 0, 0);
    if (PyLong_CheckExact(v)) {
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(v, &overflow);
        return overflow || (n == -1 && PyErr_Occurred()) ? -1 : tree_add_node(t, NK_INT, 0, n, 0);
    }
    if (PyTuple_CheckExact(v)) {
        if (PyTuple_GET_SIZE(v) != 2 || !PyLong_CheckExact(PyTuple_GET_ITEM(v, 0)) || !PyLong_CheckExact(PyTuple_GET_ITEM(v, 1))) return -1;
        int o1 = 0, o2 = 0;
        long long n = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(v, 0), &o1), g = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(v, 1), &o2);
        return o1 || o2 || PyErr_Occurred() ? -1 : tree_add_node(t, NK_REF, 0, n, g);
    }
    if (PyUnicode_CheckExact(v) || PyBytes_CheckExact(v)) {
        PyObject *raw = PyUnicode_CheckExact(v) ? PyUnicode_AsEncodedString(v, "utf-8", "surrogateescape") : Py_NewRef(v);
        if (!raw) return -1;
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(raw);
        size_t len = (size_t)PyBytes_GET_SIZE(raw);
        long long off = (long long)t->strs.len;
        Py_ssize_t id = -1;
        if (PyUnicode_CheckExact(v)) {
            Py_ssize_t name = tree_name(t, p, len);
            id = name < 0 ? -1 : tree_add_node(t, NK_NAME, 0, name, 0);
        } else if (buf_append(&t->strs, p, len) == 0) {
            id = tree_add_node(t, NK_STRING, (Py_ssize_t)len, off, 0);
        }
        Py_DECREF(raw);
        return id;
    }
    Buf ids = {0};
    if (PyList_CheckExact(v)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++) {
            Py_ssize_t item = tw_node_of(w, PyList_GET_ITEM(v, i), depth + 1);
            if (item < 0 || buf_append(&ids, &item, sizeof item) < 0) { buf_free(&ids); return -1; }
        }
        return tw_container(t, NK_ARRAY, &ids, sizeof(Py_ssize_t));
    }
    if (!PyDict_CheckExact(v)) return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(v, &pos, &key, &value)) {
        Py_ssize_t k = PyUnicode_CheckExact(key) ? tw_node_of(w, key, depth + 1) : -1;
        TEntry e = {k >= 0 ? (Py_ssize_t)tnode(t, k)->a : -1, k >= 0 ? tw_node_of(w, value, depth + 1) : -1};
        if (e.value < 0 || buf_append(&ids, &e, sizeof e) < 0) { buf_free(&ids); return -1; }
    }
    return tw_container(t, NK_DICT, &ids, sizeof(TEntry));
}

/* Room in the columns for a row per object of the streams (a tagged
 * tree's objects are mostly its elements), up to TW_RESERVE_ROWS: the
 * columns then grow without copying themselves at each doubling. Only a
 * hint: where the memory is not there, they grow as they are filled. */
#define TW_RESERVE_ROWS ((size_t)1 << 18)
static void tw_reserve(TWalk *w) {
    size_t rows = w->t->spans.len / sizeof(TSpan);
    if (rows > TW_RESERVE_ROWS) rows = TW_RESERVE_ROWS;
    int failed = buf_reserve(&w->cols.content, rows * 4 * sizeof(long long)) < 0 || buf_reserve(&w->ctxs, rows * sizeof(TCtx)) < 0;
    if (!failed) failed = buf_reserve(&w->cols.rows, rows * sizeof(TRow)) < 0;
    if (failed) PyErr_Clear();
}

/* The walker's tables and its first context; 0, TW_BAIL or -1. */
static int tw_open(TWalk *w) {
    Py_ssize_t n = w->t->nnumbers, pages = PyTuple_GET_SIZE(w->env[W_PAGES]);
    w->npages = pages;
    w->seen = PyMem_Calloc((size_t)n, 1);
    w->on_path = PyMem_Calloc((size_t)n, 1);
    w->page_of_number = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)n);
    w->objr_counts = PyMem_Calloc((size_t)pages + 1, sizeof(Py_ssize_t));
    w->resolved = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)n);
    if (!w->seen || !w->on_path || !w->page_of_number || !w->objr_counts || !w->resolved) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) w->page_of_number[i] = w->resolved[i] = -1;
    for (Py_ssize_t i = pages - 1; i >= 0; i--) { /* the first of a page listed twice */
        PyObject *p = PyTuple_GET_ITEM(w->env[W_PAGES], i);
        if (!PyTuple_CheckExact(p) || PyTuple_GET_SIZE(p) != 2) return TW_BAIL;
        long long num = PyLong_AsLongLong(PyTuple_GET_ITEM(p, 0)), gen = PyLong_AsLongLong(PyTuple_GET_ITEM(p, 1));
        if (PyErr_Occurred()) return -1;
        if (gen == 0 && num > 0 && num < n) w->page_of_number[num] = i;
    }
    PyObject *root = w->env[W_ROOT];
    w->root_num = PyLong_AsLongLong(PyTuple_GET_ITEM(root, 0));
    w->root_gen = PyLong_AsLongLong(PyTuple_GET_ITEM(root, 1));
    w->max_depth = PyLong_AsLongLong(w->env[W_MAX_DEPTH]);
    if (PyErr_Occurred()) return -1;
    PyObject *ns = w->env[W_NONSTRUCT];
    w->nonstruct.raw = PyTuple_GET_ITEM(ns, 0);
    w->nonstruct.std = PyTuple_GET_ITEM(ns, 1);
    w->nonstruct.block = PyTuple_GET_ITEM(PyTuple_GET_ITEM(ns, 2), 0);
    w->nonstruct.level = PyTuple_GET_ITEM(PyTuple_GET_ITEM(ns, 2), 2);
    w->nonstruct.problem = Py_None;
    tw_reserve(w);
    TCtx root_ctx = {-1, -1, Py_NewRef(w->env[W_LANG]), 0, 0, 0, -1};
    return tw_new_ctx(w, root_ctx) < 0 ? -1 : 0;
}

/* The walk from the root's /K to an empty stack. */
static int tw_run(TWalk *w) {
    int status = tw_open(w);
    if (status || !PyTuple_GET_SIZE(w->env[W_ROOT_K])) return status;
    Py_ssize_t k = tw_node_of(w, PyTuple_GET_ITEM(w->env[W_ROOT_K], 0), 0);
    if (k < 0) return PyErr_Occurred() ? -1 : TW_BAIL;
    status = tw_expand(w, k, 0, 0);
    while (!status && w->stack.len) {
        w->stack.len -= sizeof(TItem);
        TItem item;
        tw_item_copy(&item, (const TItem *)(w->stack.data + w->stack.len));
        if (item.tag == TAG_ELEMENT) status = tw_visit(w, &item);
        else if (item.tag == TAG_CONTENT) status = tw_record(w, &item);
        else if (item.num > 0 && item.num < w->t->nnumbers) w->on_path[item.num] = 0;
    }
    return status;
}

/* The OBJR counts into the walker's Counter, pages in the order first counted. */
static int tw_object_refs(TWalk *w) {
    const Py_ssize_t *order = (const Py_ssize_t *)w->order.data;
    for (size_t i = 0; i < w->order.len / sizeof(Py_ssize_t); i++) {
        PyObject *count = PyLong_FromSsize_t(w->objr_counts[order[i]]);
        int failed = !count || PyObject_SetItem(w->env[W_OBJECT_REFS], PyTuple_GET_ITEM(w->env[W_PAGES], order[i]), count) < 0;
        Py_XDECREF(count);
        if (failed) return -1;
    }
    return 0;
}

static void tw_free(TWalk *w) {
    for (size_t i = 0; i < w->ctxs.len / sizeof(TCtx); i++) {
        Py_XDECREF(tw_ctx(w, (Py_ssize_t)i)->lang);
    }
    buf_free(&w->cols.rows);
    buf_free(&w->cols.content); buf_free(&w->cols.steps); buf_free(&w->cols.owns); PyMem_Free(w->cols.step_slots);
    Py_XDECREF(w->cols.lang); Py_XDECREF(w->cols.actual_text); Py_XDECREF(w->cols.alt); Py_XDECREF(w->cols.cells); Py_XDECREF(w->cols.types);
    for (size_t i = 0; i < w->types.len / sizeof(TType); i++) Py_XDECREF(((TType *)w->types.data)[i].entry);
    for (size_t i = 0; i < w->ns_types.len / sizeof(TNsType); i++) Py_XDECREF(((TNsType *)w->ns_types.data)[i].type.entry);
    buf_free(&w->ns_types);
    PyMem_Free(w->resolved);
    buf_free(&w->stack); buf_free(&w->items); buf_free(&w->iters); buf_free(&w->ctxs); buf_free(&w->types); buf_free(&w->order);
    PyMem_Free(w->seen); PyMem_Free(w->on_path); PyMem_Free(w->page_of_number); PyMem_Free(w->objr_counts);
    PyMem_Free(w->claimed_page); PyMem_Free(w->claimed_mcid);
    Py_XDECREF(w->parent_tree);
    Py_XDECREF(w->page_tree);
    tpairs_free(&w->owners);
    for (int i = 0; i < 3; i++) Py_XDECREF(w->scopes[i]);
    walk_free(&w->base);
}

/* ==== the walk's columns finished in C (struct2) =========================
 * What structure_columns.walked_columns did in Python over the walk's
 * output: the path steps made paths, and the content rows grouped by page. */

/* The paths of the path steps (see TColumns): each step's row of the
 * paths (written over the steps in the element column COL_PATH) and the
 * paths as tuples of standard types, in the order steps first reach them
 * (element_columns' order: a step's first element comes before those of
 * later steps). Two steps share a path when their parents' paths and their
 * standard types are the same. New reference, NULL on error. */
static PyObject *tw_paths(TWalk *w, PyObject *types) {
    const long long *steps = (const long long *)w->cols.steps.data;
    Py_ssize_t nsteps = (Py_ssize_t)(w->cols.steps.len / (2 * sizeof(long long))), ntypes = PyList_GET_SIZE(types);
    Py_ssize_t *path_of = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(nsteps + 1)), *std_id = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(ntypes + 1));
    PyObject *ids = PyDict_New(), *paths = PyList_New(0);
    TPairs rows = {0};
    int failed = !path_of || !std_id || !ids || !paths;
    if (!path_of || !std_id) PyErr_NoMemory();
    for (Py_ssize_t i = 0; !failed && i < ntypes; i++) { /* one id per standard type, whichever raw type gave it */
        PyObject *std = PyTuple_GET_ITEM(PyList_GET_ITEM(types, i), 1), *n = PyLong_FromSsize_t(PyDict_GET_SIZE(ids));
        PyObject *id = n ? PyDict_SetDefault(ids, std, n) : NULL; /* borrowed */
        std_id[i] = id ? PyLong_AsSsize_t(id) : -1;
        Py_XDECREF(n);
        failed = !id;
    }
    for (Py_ssize_t s = 0; !failed && s < nsteps; s++) {
        long long up = steps[2 * s], type = steps[2 * s + 1];
        if (up >= s || type < 0 || type >= ntypes) { PyErr_SetString(PyExc_IndexError, "TreeObjects.walk: a step out of order"); failed = 1; break; }
        Py_ssize_t parent = up >= 0 ? path_of[up] : -1, known = tpairs_get(&rows, parent, std_id[type]);
        if (known >= 0) { path_of[s] = known; continue; }
        path_of[s] = PyList_GET_SIZE(paths);
        PyObject *above = parent >= 0 ? PyList_GET_ITEM(paths, parent) : NULL;
        Py_ssize_t depth = above ? PyTuple_GET_SIZE(above) : 0;
        PyObject *path = PyTuple_New(depth + 1);
        failed = !path || tpairs_setdefault(&rows, parent, std_id[type], path_of[s]) < 0;
        for (Py_ssize_t k = 0; path && k < depth; k++) PyTuple_SET_ITEM(path, k, Py_NewRef(PyTuple_GET_ITEM(above, k)));
        if (path) PyTuple_SET_ITEM(path, depth, Py_NewRef(PyTuple_GET_ITEM(PyList_GET_ITEM(types, type), 1)));
        if (path && !failed) failed = PyList_Append(paths, path) < 0;
        Py_XDECREF(path);
    }
    for (Py_ssize_t i = 0; !failed && i < w->cols.count; i++) {
        long long *step = &tw_row(&w->cols, i)[COL_PATH];
        if (*step < 0 || *step >= nsteps) { PyErr_SetString(PyExc_IndexError, "TreeObjects.walk: no such step"); failed = 1; }
        else *step = path_of[*step];
    }
    PyObject *out = failed ? NULL : PyList_AsTuple(paths);
    PyMem_Free(path_of);
    PyMem_Free(std_id);
    tpairs_free(&rows);
    Py_XDECREF(ids);
    Py_XDECREF(paths);
    return out;
}

/* The content rows (page, stream, MCID, element) grouped by page, in
 * author order within a page (a stable sort by page: a count per page,
 * then each row to its place), as four columns of int64 bytes. New reference. */
static PyObject *tw_content_columns(TWalk *w) {
    const long long *rows = (const long long *)w->cols.content.data;
    Py_ssize_t n = (Py_ssize_t)(w->cols.content.len / (4 * sizeof(long long))), pages = w->npages;
    Py_ssize_t *start = PyMem_Calloc((size_t)pages + 1, sizeof(Py_ssize_t));
    PyObject *out = start ? PyTuple_New(4) : PyErr_NoMemory();
    long long *column[4] = {NULL, NULL, NULL, NULL};
    for (int c = 0; out && c < 4; c++) {
        PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * (Py_ssize_t)sizeof(long long)));
        if (!b) { Py_CLEAR(out); break; }
        PyTuple_SET_ITEM(out, c, b);
        column[c] = (long long *)PyBytes_AS_STRING(b);
    }
    for (Py_ssize_t i = 0; out && i < n; i++) {
        if (rows[4 * i] < 0 || rows[4 * i] >= pages) { PyErr_SetString(PyExc_IndexError, "TreeObjects.walk: no such page"); Py_CLEAR(out); }
        else start[rows[4 * i] + 1]++;
    }
    for (Py_ssize_t p = 0; out && p < pages; p++) start[p + 1] += start[p];
    for (Py_ssize_t i = 0; out && i < n; i++) {
        Py_ssize_t at = start[rows[4 * i]]++;
        for (int c = 0; c < 4; c++) column[c][at] = rows[4 * i + c];
    }
    PyMem_Free(start);
    return out;
}

/* StructTree's whole-tree tables (structure._TreeTables; core_tree_tables
 * reads them from the columns where another walk made them): per element
 * its block owner, the nearest element at or above it whose type row owns
 * a block, itself when none does (parents come before their kids); per
 * content row its key, stream << 32 | MCID; per page row the first of its
 * content rows, and the count of them last (`content`: tw_content_columns',
 * grouped by page). (owners as int64 bytes, keys as int64 bytes, offsets as
 * a list.) New reference. */
static PyObject *tw_whole_tables(TWalk *w, PyObject *content) {
    Py_ssize_t n = w->cols.count, rows = PyBytes_GET_SIZE(PyTuple_GET_ITEM(content, 0)) / (Py_ssize_t)sizeof(long long);
    const long long *page = (const long long *)PyBytes_AS_STRING(PyTuple_GET_ITEM(content, 0));
    const long long *stream = (const long long *)PyBytes_AS_STRING(PyTuple_GET_ITEM(content, 1));
    const long long *mcid = (const long long *)PyBytes_AS_STRING(PyTuple_GET_ITEM(content, 2));
    const unsigned char *owns = (const unsigned char *)w->cols.owns.data;
    Py_ssize_t types = (Py_ssize_t)w->cols.owns.len;
    PyObject *owners = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(long long));
    PyObject *keys = owners ? PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(long long)) : NULL;
    PyObject *offsets = keys ? PyList_New(w->npages + 1) : NULL;
    PyObject *out = offsets ? PyTuple_New(3) : NULL;
    if (!out) {
        Py_XDECREF(owners); Py_XDECREF(keys); Py_XDECREF(offsets);
        return NULL;
    }
    PyTuple_SET_ITEM(out, 0, owners);
    PyTuple_SET_ITEM(out, 1, keys);
    PyTuple_SET_ITEM(out, 2, offsets);
    long long *owner = (long long *)PyBytes_AS_STRING(owners), *key = (long long *)PyBytes_AS_STRING(keys);
    for (Py_ssize_t i = 0; i < n; i++) { /* -1 while no element at or above i owns a block: i at the end */
        const long long *row = tw_row(&w->cols, i);
        long long p = row[COL_PARENT], t = row[COL_TYPE];
        if (t < 0 || t >= types || p < -1 || p >= i) {
            PyErr_SetString(PyExc_IndexError, "TreeObjects.walk: a type row or parent out of order");
            Py_DECREF(out);
            return NULL;
        }
        owner[i] = owns[t] ? (long long)i : p == -1 ? -1 : owner[p];
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (owner[i] < 0) owner[i] = (long long)i;
    for (Py_ssize_t j = 0; j < rows; j++) key[j] = (long long)(((uint64_t)stream[j] << 32) | (uint64_t)mcid[j]);
    Py_ssize_t r = 0; /* offsets[0:r] are set: the page rows up to page[j - 1] */
    for (Py_ssize_t j = 0; j <= rows; j++) {
        Py_ssize_t upto = j < rows ? (Py_ssize_t)page[j] : w->npages; /* tw_content_columns checked 0 <= page < npages */
        for (; r <= upto; r++) {
            PyObject *at = PyLong_FromSsize_t(j);
            if (!at) { Py_DECREF(out); return NULL; }
            PyList_SET_ITEM(offsets, r, at);
        }
    }
    return out;
}

/* The walk's columns as walk() hands them over: (the element columns as
 * bytes of int64, COL_* order, COL_PATH a row of the paths; the content
 * columns (page, stream, MCID, element) as bytes of int64, grouped by
 * page; /Lang per element; /ActualText, /Alt and cells by element; the
 * type table's (raw, standard) pairs; the paths; the whole-tree tables,
 * tw_whole_tables'). New reference. */
static PyObject *tw_columns(TWalk *w) {
    PyObject *types = PyDict_Keys(w->cols.types); /* in the order rows were given */
    PyObject *paths = types ? tw_paths(w, types) : NULL;
    PyObject *element = paths ? PyTuple_New(COL_COUNT) : NULL;
    long long *column[COL_COUNT];
    for (int i = 0; element && i < COL_COUNT; i++) {
        PyObject *b = PyBytes_FromStringAndSize(NULL, w->cols.count * (Py_ssize_t)sizeof(long long));
        if (!b) { Py_CLEAR(element); break; }
        column[i] = (long long *)PyBytes_AS_STRING(b);
        PyTuple_SET_ITEM(element, i, b);
    }
    for (Py_ssize_t e = 0; element && e < w->cols.count; e++) { /* the rows made columns, a row at a time */
        const long long *row = tw_row(&w->cols, e);
        _Static_assert(COL_COUNT == 8, "a row is eight columns");
        long long a0 = row[0], a1 = row[1], a2 = row[2], a3 = row[3], a4 = row[4], a5 = row[5], a6 = row[6], a7 = row[7];
        column[0][e] = a0; column[1][e] = a1; column[2][e] = a2; column[3][e] = a3; /* loaded first: no reload of row */
        column[4][e] = a4; column[5][e] = a5; column[6][e] = a6; column[7][e] = a7;
    }
    PyObject *content = element ? tw_content_columns(w) : NULL;
    PyObject *whole = content ? tw_whole_tables(w, content) : NULL;
    PyObject *names = whole ? PyList_AsTuple(types) : NULL;
    PyObject *out = names ? PyTuple_Pack(9, element, content, w->cols.lang, w->cols.actual_text, w->cols.alt, w->cols.cells, names, paths, whole)
                          : NULL;
    Py_XDECREF(names);
    Py_XDECREF(whole);
    Py_XDECREF(element);
    Py_XDECREF(content);
    Py_XDECREF(paths);
    Py_XDECREF(types);
    return out;
}
/* ==== end of struct2's columns ============================================ */

/* walk(env) -> the tree's columns (tw_columns), or NotImplemented when the tree is left to the walkers above. */
static PyObject *TreeObjects_walk(TreeObjects *t, PyObject *env) {
    if (!PyTuple_Check(env) || PyTuple_GET_SIZE(env) != W_COUNT) {
        PyErr_SetString(PyExc_TypeError, "TreeObjects.walk: env is not the walker's");
        return NULL;
    }
    TWalk w;
    memset(&w, 0, sizeof w);
    w.t = t;
    for (int i = 0; i < W_COUNT; i++) w.env[i] = PyTuple_GET_ITEM(env, i);
    PyObject *msgs = w.env[W_MESSAGES], *ns = w.env[W_NONSTRUCT], *root = w.env[W_ROOT];
    if (!t->streams || !PyDict_Check(w.env[W_OBJECT_REFS]) || !PyTuple_CheckExact(w.env[W_PAGES]) || !PyTuple_CheckExact(root) ||
        PyTuple_GET_SIZE(root) != 2 || !PyTuple_CheckExact(w.env[W_ROOT_K]) || PyTuple_GET_SIZE(w.env[W_ROOT_K]) > 1 ||
        !PyTuple_Check(ns) || PyTuple_GET_SIZE(ns) != 4 || !PyTuple_Check(PyTuple_GET_ITEM(ns, 2)) ||
        PyTuple_GET_SIZE(PyTuple_GET_ITEM(ns, 2)) != 4 || !PyDict_Check(w.env[W_TEXTS]) || !PyTuple_Check(w.env[W_NO_CELL]) ||
        PyTuple_GET_SIZE(w.env[W_NO_CELL]) != 5 || !PyTuple_Check(msgs) || PyTuple_GET_SIZE(msgs) != M_COUNT ||
        !PyTuple_Check(w.env[W_SPAN_COMPLAINTS]) || PyTuple_GET_SIZE(w.env[W_SPAN_COMPLAINTS]) != 2 ||
        !PyAnySet_Check(w.env[W_STANDARD_TYPES])) {
        PyErr_SetString(PyExc_TypeError, "TreeObjects.walk: env is not the walker's");
        return NULL;
    }
    w.base.e[E_WARN] = w.env[W_WARN];
    for (int i = 0; i < M_COUNT; i++) w.base.msg[i] = PyTuple_GET_ITEM(msgs, i);
    int status = 0; /* w.base.name, walk_struct's field names, are not used here: left NULL */
    if (!(w.base.empty = PyTuple_New(0))) status = -1;
    static const char *const scopes[3] = {"Row", "Column", "Both"}; /* _SCOPES, as TK_ROW.. name them */
    for (int i = 0; i < 3 && !status; i++)
        if (!(w.scopes[i] = PyUnicode_InternFromString(scopes[i]))) status = -1;
    w.class_map = -1;
    if (!status && (!(w.cols.lang = PyList_New(0)) || !(w.cols.actual_text = PyDict_New()) || !(w.cols.alt = PyDict_New()) ||
                    !(w.cols.cells = PyDict_New()) || !(w.cols.types = PyDict_New())))
        status = -1;
    if (!status) status = tw_run(&w);
    if (!status) status = walk_flush(&w.base) < 0 ? -1 : tw_object_refs(&w);
    PyObject *columns = status ? NULL : tw_columns(&w);
    if (!status && !columns) status = -1;
    tw_free(&w);
    if (status < 0) PyErr_Clear(); /* the walkers above meet the same failure and say it */
    if (status) Py_RETURN_NOTIMPLEMENTED;
    return columns;
}

static PyObject *TreeObjects_complete(TreeObjects *t, void *closure) {
    (void)closure;
    return PyBool_FromLong(t->complete);
}

static PyGetSetDef TreeObjects_getset[] = {
    {"complete", (getter)TreeObjects_complete, NULL, "Every object of the streams is held (value() answers for each).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef TreeObjects_methods[] = {
    {"value", (PyCFunction)TreeObjects_value, METH_O, "Object (number, 0) as parse_objects reads it; NotImplemented when not held."},
    {"walk", (PyCFunction)TreeObjects_walk, METH_O, "The structure tree walk over the nodes; NotImplemented when left to the walkers."},
    {"is_dict", (PyCFunction)TreeObjects_is_dict, METH_O, "True when held object (number, 0) is a dictionary; NotImplemented otherwise."},
    {"place_owners", (PyCFunction)TreeObjects_place_owners, METH_VARARGS,
     "place_owners(number, page, out): a held /ParentTree array's owners into out; NotImplemented when not all held dictionaries."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TreeObjectsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ragprep.extract._core.TreeObjects",
    .tp_basicsize = sizeof(TreeObjects),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The objects of a document's object streams, parsed once into nodes (structure_objects.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)TreeObjects_init,
    .tp_dealloc = (destructor)TreeObjects_dealloc,
    .tp_methods = TreeObjects_methods,
    .tp_getset = TreeObjects_getset,
};


/* ---- CMap section bodies (fonts/cmap.py) -----------------------------------
 * The fast path of cmap._run: one section body (the bytes between, say,
 * beginbfchar and endbfchar) tokenized and applied to the CMap's tables in
 * one call, instead of one Python object per token and per entry. It takes a
 * body only when cmap.py's builder would apply every entry of it without a
 * warning: hex strings (whitespace inside and a missing final digit read as
 * _hex_bytes reads them, §7.3.4.3), unsigned integers, and in bfrange one
 * array level of hex strings (§9.10.3). Anything else (a comment, a name, a
 * literal string, a dangling operand, bounds out of order, a destination that
 * overflows its length, codes longer than the integers here) is answered None
 * before anything changed, and the builder reads the section as before,
 * warnings and all: cmap.py stays the reference (RAGPREP_PURE=1). */
/* In the order of cmap._SECTIONS (cmap._SECTION_KINDS). */
enum { CS_CODESPACE, CS_BFCHAR, CS_BFRANGE, CS_CIDCHAR, CS_CIDRANGE, CS_NOTDEFCHAR, CS_NOTDEFRANGE, CS_COUNT };
enum { CT_HEX, CT_INT, CT_ARRAY };
#define CMAP_UNHANDLED 1
/* Bounds and range destinations up to 7 bytes: a range's count and its last
 * destination stay below 2^56, so no sum here overflows. */
#define CMAP_RANGE_BYTES 7
#define CMAP_CODE_BYTES 8
#define CMAP_MAX_DIGITS 18

typedef struct {
    int kind;
    size_t off, len;          /* CT_HEX: its bytes in the decoded buffer; CT_ARRAY: first item, item count */
    unsigned long long value; /* CT_HEX up to 8 bytes: the big-endian value; CT_INT: the integer */
} CTok;

typedef struct {
    Buf bytes, ops, items;
    int in_array;
    CTok array;
} CLex;

static inline int cmap_space(unsigned char c) { return c == ' ' || (c >= 9 && c <= 13); } /* bytes regex \s */

static const CTok *ctok(const Buf *b, size_t i) { return (const CTok *)b->data + i; }
static size_t ctok_count(const Buf *b) { return b->len / sizeof(CTok); }
static const unsigned char *ctok_bytes(const CLex *lx, const CTok *t) {
    return (const unsigned char *)lx->bytes.data + t->off;
}

/* <hex>, from after its '<': whitespace skipped, a missing final digit 0.
 * Returns the index after its '>', 0 when it is not a clean hex string, -1 on error. */
static Py_ssize_t cmap_hex(CLex *lx, const unsigned char *p, size_t i, size_t n, CTok *t) {
    size_t start = lx->bytes.len;
    int high = -1;
    for (;; i++) {
        if (i >= n) return 0;
        unsigned char c = p[i];
        if (c == '>') break;
        if (cmap_space(c)) continue;
        int v = hexval(c);
        if (v < 0) return 0;
        if (high < 0) { high = v; continue; }
        unsigned char b = (unsigned char)(high << 4 | v);
        if (buf_append(&lx->bytes, &b, 1) < 0) return -1;
        high = -1;
    }
    if (high >= 0) {
        unsigned char b = (unsigned char)(high << 4);
        if (buf_append(&lx->bytes, &b, 1) < 0) return -1;
    }
    t->kind = CT_HEX;
    t->off = start;
    t->len = lx->bytes.len - start;
    t->value = 0;
    for (size_t k = 0; k < t->len && k < CMAP_CODE_BYTES; k++) t->value = t->value << 8 | ctok_bytes(lx, t)[k];
    return (Py_ssize_t)(i + 1);
}

static int cmap_push(CLex *lx, const CTok *t) {
    if (lx->in_array) {
        if (t->kind != CT_HEX) return CMAP_UNHANDLED;
        return buf_append(&lx->items, t, sizeof *t);
    }
    return buf_append(&lx->ops, t, sizeof *t);
}

/* The body's operands: 0, CMAP_UNHANDLED, or -1 with an exception set. */
static int cmap_tokens(CLex *lx, const unsigned char *p, size_t n, int arrays) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        CTok t = {0};
        if (cmap_space(c)) {
            i++;
            continue;
        }
        if (c == '<') {
            Py_ssize_t next = cmap_hex(lx, p, i + 1, n, &t);
            if (next <= 0) return next < 0 ? -1 : CMAP_UNHANDLED;
            i = (size_t)next;
        } else if (c >= '0' && c <= '9') {
            size_t digits = 0;
            t.kind = CT_INT;
            for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
                if (++digits > CMAP_MAX_DIGITS) return CMAP_UNHANDLED;
                t.value = t.value * 10 + (unsigned)(p[i] - '0');
            }
            if (i < n && !cmap_space(p[i]) && p[i] != '<' && p[i] != '[' && p[i] != ']') return CMAP_UNHANDLED;
        } else if (c == '[' && arrays && !lx->in_array) {
            lx->in_array = 1;
            lx->array = (CTok){CT_ARRAY, ctok_count(&lx->items), 0, 0};
            i++;
            continue;
        } else if (c == ']' && lx->in_array) {
            lx->in_array = 0;
            t = lx->array;
            t.len = ctok_count(&lx->items) - t.off;
            i++;
        } else {
            return CMAP_UNHANDLED;
        }
        int pushed = cmap_push(lx, &t);
        if (pushed) return pushed;
    }
    return lx->in_array ? CMAP_UNHANDLED : 0;
}

static int hex_of(const CTok *t, size_t max_len) { return t->kind == CT_HEX && t->len >= 1 && t->len <= max_len; }

/* Whether the builder applies group `g` (its first token) without a warning. */
static int cmap_group_ok(int kind, const CTok *g) {
    switch (kind) {
    case CS_CODESPACE:
        return g[0].kind == CT_HEX && g[1].kind == CT_HEX && g[0].len == g[1].len && g[0].len >= 1 && g[0].len <= 4;
    case CS_BFCHAR:
        return hex_of(&g[0], CMAP_CODE_BYTES) && g[1].kind == CT_HEX;
    case CS_CIDCHAR:
    case CS_NOTDEFCHAR:
        return hex_of(&g[0], CMAP_CODE_BYTES) && g[1].kind == CT_INT;
    default:
        break;
    }
    if (!hex_of(&g[0], CMAP_RANGE_BYTES) || !hex_of(&g[1], CMAP_RANGE_BYTES) || g[0].value > g[1].value) return 0;
    if (kind != CS_BFRANGE) return g[2].kind == CT_INT;
    if (g[2].kind == CT_ARRAY) return 1;
    if (!hex_of(&g[2], CMAP_RANGE_BYTES)) return 0;
    /* cmap._Builder.destination_range cuts a range overflowing its destination's length (with a warning). */
    unsigned long long room = (1ULL << (8 * g[2].len)) - g[2].value;
    return g[1].value - g[0].value + 1 <= room;
}

/* cmap._destination_text: a UTF-16BE destination (§9.10.3) as text, None for U+0000. */
static PyObject *destination_text(const unsigned char *d, size_t n) {
    if (n == 2) {
        unsigned v = (unsigned)d[0] << 8 | d[1];
        if (!v) Py_RETURN_NONE;
        return PyUnicode_FromOrdinal(v >= 0xD800 && v <= 0xDFFF ? 0xFFFD : (int)v);
    }
    if (n == 1) {
        if (!d[0]) Py_RETURN_NONE;
        return PyUnicode_FromOrdinal(d[0]); /* a one-byte destination: Latin-1 */
    }
    if (!n) return PyUnicode_New(0, 0); /* <>: the code shows no text */
    int order = 1;                      /* big-endian, a byte order mark kept as text (utf-16-be) */
    PyObject *text = PyUnicode_DecodeUTF16((const char *)d, (Py_ssize_t)(n & ~(size_t)1), "replace", &order);
    if (!text) return NULL;
    if (PyUnicode_FindChar(text, 0, 0, PyUnicode_GET_LENGTH(text), 1) >= 0) {
        PyObject *nul = PyUnicode_FromOrdinal(0), *empty = PyUnicode_New(0, 0);
        PyObject *kept = nul && empty ? PyUnicode_Replace(text, nul, empty, -1) : NULL;
        Py_XDECREF(nul);
        Py_XDECREF(empty);
        Py_DECREF(text);
        if (!(text = kept)) return NULL;
    }
    if (!PyUnicode_GET_LENGTH(text)) {
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    return text;
}

/* The CMap's tables (cmap.CMap's fields) and the builder's expansion budget. */
typedef struct {
    PyObject *unicode, *unicode_ranges, *cids, *cid_ranges, *notdef_ranges, *code_lengths, *codespace, *range_type;
    long long expanded, expand_range, expand_total;
} CTarget;

static const char *const CTARGET_FIELDS[] = {
    "unicode", "unicode_ranges", "cids", "cid_ranges", "notdef_ranges", "code_lengths", "codespace",
};

static int ctarget_open(CTarget *t, PyObject *cmap) {
    PyObject **slots[] = {&t->unicode, &t->unicode_ranges, &t->cids, &t->cid_ranges,
                          &t->notdef_ranges, &t->code_lengths, &t->codespace};
    for (int i = 0; i < 7; i++)
        if (!(*slots[i] = PyObject_GetAttrString(cmap, CTARGET_FIELDS[i]))) return -1;
    if (!PyDict_Check(t->unicode) || !PyDict_Check(t->cids) || !PyList_Check(t->unicode_ranges) ||
        !PyList_Check(t->cid_ranges) || !PyList_Check(t->notdef_ranges) || !PyList_Check(t->codespace) ||
        !PySet_Check(t->code_lengths)) {
        PyErr_SetString(PyExc_TypeError, "cmap_section: not a cmap.CMap");
        return -1;
    }
    return 0;
}

static void ctarget_close(CTarget *t) {
    PyObject *slots[] = {t->unicode, t->unicode_ranges, t->cids, t->cid_ranges,
                         t->notdef_ranges, t->code_lengths, t->codespace};
    for (int i = 0; i < 7; i++) Py_XDECREF(slots[i]);
}

static int set_code(PyObject *dict, unsigned long long code, PyObject *value /* stolen */) {
    if (!value) return -1;
    PyObject *key = PyLong_FromUnsignedLongLong(code);
    int failed = key ? PyDict_SetItem(dict, key, value) : -1;
    Py_XDECREF(key);
    Py_DECREF(value);
    return failed;
}

static int append_new(PyObject *list, PyObject *item /* stolen */) {
    if (!item) return -1;
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

static int add_length(CTarget *t, size_t len) {
    PyObject *n = PyLong_FromSize_t(len);
    int failed = n ? PySet_Add(t->code_lengths, n) : -1;
    Py_XDECREF(n);
    return failed;
}

static int budget(CTarget *t, unsigned long long count) { /* the builder's _EXPAND_RANGE and _EXPAND_TOTAL */
    if (count > (unsigned long long)t->expand_range || (unsigned long long)t->expanded + count > (unsigned long long)t->expand_total)
        return 0;
    t->expanded += (long long)count;
    return 1;
}

/* _Builder.bfrange on one valid group: the array form, or destination_range. */
static int cmap_bfrange(CTarget *t, const CLex *lx, const CTok *g, unsigned long long first, unsigned long long count) {
    if (g[2].kind == CT_ARRAY) {
        size_t n = g[2].len < count ? g[2].len : (size_t)count;
        for (size_t k = 0; k < n; k++) {
            const CTok *item = ctok(&lx->items, g[2].off + k);
            if (set_code(t->unicode, first + k, destination_text(ctok_bytes(lx, item), item->len)) < 0) return -1;
        }
        return 0;
    }
    unsigned long long start = g[2].value;
    size_t nbytes = g[2].len;
    if (!budget(t, count))
        return append_new(t->unicode_ranges, Py_BuildValue("(KKKn)", first, first + count - 1, start, (Py_ssize_t)nbytes));
    unsigned char dst[CMAP_RANGE_BYTES];
    for (unsigned long long k = 0; k < count; k++) {
        unsigned long long value = start + k;
        for (size_t j = 0; j < nbytes; j++) dst[nbytes - 1 - j] = (unsigned char)(value >> (8 * j));
        if (set_code(t->unicode, first + k, destination_text(dst, nbytes)) < 0) return -1;
    }
    return 0;
}

/* One valid group (cmap_group_ok) applied as _Builder applies it. */
static int cmap_apply(CTarget *t, const CLex *lx, int kind, const CTok *g) {
    if (kind == CS_CODESPACE) {
        const unsigned char *low = ctok_bytes(lx, &g[0]), *high = ctok_bytes(lx, &g[1]);
        Py_ssize_t n = (Py_ssize_t)g[0].len;
        return append_new(t->codespace, PyObject_CallFunction(t->range_type, "y#y#", low, n, high, n));
    }
    if (add_length(t, g[0].len) < 0) return -1;
    unsigned long long first = g[0].value;
    if (kind == CS_BFCHAR) return set_code(t->unicode, first, destination_text(ctok_bytes(lx, &g[1]), g[1].len));
    if (kind == CS_CIDCHAR) return set_code(t->cids, first, PyLong_FromUnsignedLongLong(g[1].value));
    if (kind == CS_NOTDEFCHAR) return append_new(t->notdef_ranges, Py_BuildValue("(KKK)", first, first, g[1].value));
    unsigned long long last = g[1].value, count = last - first + 1;
    if (kind == CS_BFRANGE) return cmap_bfrange(t, lx, g, first, count);
    if (kind == CS_NOTDEFRANGE || !budget(t, count)) {
        PyObject *list = kind == CS_NOTDEFRANGE ? t->notdef_ranges : t->cid_ranges;
        return append_new(list, Py_BuildValue("(KKK)", first, last, g[2].value));
    }
    for (unsigned long long k = 0; k < count; k++)
        if (set_code(t->cids, first + k, PyLong_FromUnsignedLongLong(g[2].value + k)) < 0) return -1;
    return 0;
}

/* cmap_section(kind, body, cmap, expanded, expand_range, expand_total, CodespaceRange):
 * the builder's expansion count after applying the body, or None (not taken). */
static PyObject *core_cmap_section(PyObject *mod, PyObject *args) {
    (void)mod;
    int kind;
    Py_buffer body;
    PyObject *cmap;
    CTarget t = {0};
    if (!PyArg_ParseTuple(args, "iy*OLLLO", &kind, &body, &cmap, &t.expanded, &t.expand_range, &t.expand_total,
                          &t.range_type))
        return NULL;
    CLex lx = {0};
    int status = kind < 0 || kind >= CS_COUNT ? CMAP_UNHANDLED
                                              : cmap_tokens(&lx, body.buf, (size_t)body.len, kind == CS_BFRANGE);
    size_t size = kind == CS_CODESPACE || kind == CS_BFCHAR || kind == CS_CIDCHAR || kind == CS_NOTDEFCHAR ? 2 : 3;
    size_t n = ctok_count(&lx.ops);
    if (!status && n % size) status = CMAP_UNHANDLED; /* the builder warns of a dangling operand */
    for (size_t i = 0; !status && i < n; i += size)
        if (!cmap_group_ok(kind, ctok(&lx.ops, i))) status = CMAP_UNHANDLED;
    if (!status) status = ctarget_open(&t, cmap);
    for (size_t i = 0; !status && i < n; i += size) status = cmap_apply(&t, &lx, kind, ctok(&lx.ops, i));
    ctarget_close(&t);
    buf_free(&lx.bytes);
    buf_free(&lx.ops);
    buf_free(&lx.items);
    PyBuffer_Release(&body);
    if (status < 0) return NULL;
    if (status == CMAP_UNHANDLED) Py_RETURN_NONE;
    return PyLong_FromLongLong(t.expanded);
}


/* ==== structure mode after the tree is read (structure.py's whole-tree
 * tables, reading.py's page reading) =====================================
 * Kernels over column arrays; each keeps its numpy reference in Python
 * (RAGPREP_PURE=1) and a differential test. They read no PDF bytes. */

/* nearest_marked(parents, marked, up) -> bool: StructTree.nearest in one
 * pass. up[i] = i where marked[i], else up[parents[i]] (-1 for a root kid,
 * parents[i] == -1). Elements are in depth-first order, so a parent comes
 * before its kids and its answer is known; an element whose parent does not
 * (an index >= i, or below -1) stops the pass: False, `up` unspecified, the
 * caller runs the reference. */
static PyObject *core_nearest_marked(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *o[3];
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2])) return NULL;
    View v[3] = {{0}};
    static const char *const formats[3] = {"l", "?", "l"};
    static const char *const names[3] = {"parents", "marked", "up"};
    PyObject *result = NULL;
    for (int i = 0; i < 3; i++)
        if (get_view(o[i], &v[i], formats[i], i == 1 ? 1 : 8, names[i]) < 0) goto done;
    Py_ssize_t n = v[0].view.len / 8;
    if (v[1].view.len != n || v[2].view.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "nearest_marked: arrays of different lengths");
        goto done;
    }
    if (v[2].view.readonly) { PyErr_SetString(PyExc_ValueError, "nearest_marked: up must be writable"); goto done; }
    const int64_t *parent = v[0].view.buf;
    const unsigned char *marked = v[1].view.buf;
    int64_t *up = v[2].view.buf;
    int ok = 1;
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        int64_t p = parent[i];
        if (marked[i]) up[i] = (int64_t)i;
        else if (p == -1) up[i] = -1;
        else if (p >= 0 && p < (int64_t)i) up[i] = up[p];
        else ok = 0;
    }
    result = PyBool_FromLong(ok);
done:
    for (int i = 0; i < 3; i++) release(&v[i]);
    return result;
}

/* tree_tables(parents, type, owns, page, stream, mcid, block_owners, keys, offsets) -> bool:
 * StructTree's whole-tree columns (structure._tree_tables) in one pass over
 * the elements and one over the content. Per element i (parents before
 * kids, as in nearest_marked): block_owners[i] = the nearest element at or
 * above i whose type row owns a block (owns[type[j]]), i itself when none
 * does. Per content row j: keys[j] = stream[j] << 32 | mcid[j] (two's
 * complement bits, as numpy's shift and or make them). offsets (as long as
 * the page rows, plus one): offsets[r] = the first content row whose page row
 * is r or more (len(page) when none); content is grouped by page row,
 * ascending. False, the outputs unspecified, where the input breaks these
 * (a parent out of order, a type or page row out of range, pages not
 * ascending): the caller runs the reference. */
static PyObject *core_tree_tables(PyObject *mod, PyObject *args) {
    (void)mod;
    enum { PARENT, TYPE, OWNS, PAGE, STREAM, MCID, OWNERS, KEYS, OFFSETS, NV };
    PyObject *o[NV];
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8]))
        return NULL;
    View v[NV] = {{0}};
    static const char *const formats[NV] = {"l", "l", "?", "l", "l", "l", "l", "l", "l"};
    static const char *const names[NV] = {"parents", "type", "owns", "page", "stream", "mcid", "block_owners", "keys",
                                          "offsets"};
    PyObject *result = NULL;
    for (int i = 0; i < NV; i++)
        if (get_view(o[i], &v[i], formats[i], formats[i][0] == '?' ? 1 : 8, names[i]) < 0) goto done;
    Py_ssize_t n = v[PARENT].view.len / 8, types = v[OWNS].view.len, rows = v[PAGE].view.len / 8;
    Py_ssize_t pages = v[OFFSETS].view.len / 8 - 1;
    if (v[TYPE].view.len / 8 != n || v[OWNERS].view.len / 8 != n || v[STREAM].view.len / 8 != rows ||
        v[MCID].view.len / 8 != rows || v[KEYS].view.len / 8 != rows || pages < 0) {
        PyErr_SetString(PyExc_ValueError, "tree_tables: arrays of different lengths");
        goto done;
    }
    if (v[OWNERS].view.readonly || v[KEYS].view.readonly || v[OFFSETS].view.readonly) {
        PyErr_SetString(PyExc_ValueError, "tree_tables: the outputs must be writable");
        goto done;
    }
    const int64_t *parent = v[PARENT].view.buf, *type = v[TYPE].view.buf, *page = v[PAGE].view.buf;
    const int64_t *stream = v[STREAM].view.buf, *mcid = v[MCID].view.buf;
    const unsigned char *owns = v[OWNS].view.buf;
    int64_t *owner = v[OWNERS].view.buf, *keys = v[KEYS].view.buf, *offsets = v[OFFSETS].view.buf;
    int ok = 1;
    /* owner[i] is -1 while no element at or above i owns a block; made i at the end. */
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        int64_t p = parent[i], t = type[i];
        if (t < 0 || t >= types) ok = 0;
        else if (owns[t]) owner[i] = (int64_t)i;
        else if (p == -1) owner[i] = -1;
        else if (p >= 0 && p < (int64_t)i) owner[i] = owner[p];
        else ok = 0;
    }
    for (Py_ssize_t i = 0; i < n && ok; i++)
        if (owner[i] < 0) owner[i] = (int64_t)i;
    Py_ssize_t r = 0; /* offsets[0:r] are written: the page rows below page[j] */
    for (Py_ssize_t j = 0; j < rows && ok; j++) {
        keys[j] = (int64_t)(((uint64_t)stream[j] << 32) | (uint64_t)mcid[j]);
        int64_t at = page[j];
        if (at < (j ? page[j - 1] : 0) || at >= pages) ok = 0;
        else
            while (r <= at) offsets[r++] = (int64_t)j;
    }
    while (ok && r <= pages) offsets[r++] = (int64_t)rows;
    result = PyBool_FromLong(ok);
done:
    for (int i = 0; i < NV; i++) release(&v[i]);
    return result;
}

/* run_labels' pieces (struct2's section below), which structure_order shares. */
static int run_label_item(PyObject *list, Py_ssize_t i, PyObject *value /* borrowed */) {
    PyList_SET_ITEM(list, i, Py_NewRef(value));
    return 0;
}

/* What run_labels reads labels from (StructTree.label_columns, and the
 * tail's six values): the per-element columns as views, the rest borrowed. */
typedef struct {
    View v[3]; /* type, path, level */
    PyObject *std_names, *header, *path_names, *lang, *alt, *tail;
    Py_ssize_t nel;
} LabelColumns;

static void label_columns_release(LabelColumns *c) {
    for (int i = 0; i < 3; i++) release(&c->v[i]);
}

/* The label columns `columns` = (type, std_names, header, path, path_names,
 * level, lang, alt, tail) read into `c`. 0, or -1 with an exception set (the
 * caller releases `c` either way). */
static int label_columns_get(PyObject *columns, LabelColumns *c) {
    PyObject *o[3];
    memset(c, 0, sizeof *c);
    if (!PyTuple_Check(columns)) {
        PyErr_SetString(PyExc_TypeError, "run_labels: the label columns are a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(columns, "OO!O!OO!OO!O!O!", &o[0], &PyTuple_Type, &c->std_names, &PyTuple_Type, &c->header,
                          &o[1], &PyTuple_Type, &c->path_names, &o[2], &PyList_Type, &c->lang, &PyDict_Type, &c->alt,
                          &PyTuple_Type, &c->tail))
        return -1;
    static const char *const names[3] = {"type", "path", "level"};
    for (int i = 0; i < 3; i++)
        if (get_view(o[i], &c->v[i], "l", 8, names[i]) < 0) return -1;
    c->nel = c->v[0].view.len / 8;
    if (c->v[1].view.len / 8 != c->nel || c->v[2].view.len / 8 != c->nel || PyList_GET_SIZE(c->lang) != c->nel ||
        PyTuple_GET_SIZE(c->header) != PyTuple_GET_SIZE(c->std_names) || PyTuple_GET_SIZE(c->tail) != 6) {
        PyErr_SetString(PyExc_ValueError, "run_labels: columns of different lengths");
        return -1;
    }
    return 0;
}

/* The six label lists of the runs owned by R[0:n] (below 0: the tail's). NULL with an exception set. */
static PyObject *run_label_lists(const int64_t *R, Py_ssize_t n, const LabelColumns *c) {
    const int64_t *T = c->v[0].view.buf, *P = c->v[1].view.buf, *L = c->v[2].view.buf;
    Py_ssize_t ntypes = PyTuple_GET_SIZE(c->std_names), npaths = PyTuple_GET_SIZE(c->path_names);
    PyObject *result = NULL, *lists[6] = {NULL};
    for (int f = 0; f < 6; f++)
        if (!(lists[f] = PyList_New(n))) goto done;
    int alts = PyDict_GET_SIZE(c->alt) > 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t r = R[i];
        if (r < 0) {
            for (int f = 0; f < 6; f++) run_label_item(lists[f], i, PyTuple_GET_ITEM(c->tail, f));
            continue;
        }
        if (r >= c->nel || T[r] < 0 || T[r] >= ntypes || P[r] < 0 || P[r] >= npaths) {
            PyErr_SetString(PyExc_IndexError, "run_labels: a row, type or path out of range");
            goto done;
        }
        run_label_item(lists[0], i, PyTuple_GET_ITEM(c->std_names, T[r]));
        run_label_item(lists[1], i, PyTuple_GET_ITEM(c->path_names, P[r]));
        PyObject *level = L[r] ? PyLong_FromLongLong((long long)L[r]) : Py_NewRef(Py_None);
        if (!level) goto done;
        PyList_SET_ITEM(lists[2], i, level);
        run_label_item(lists[3], i, PyList_GET_ITEM(c->lang, r));
        run_label_item(lists[4], i, PyTuple_GET_ITEM(c->header, T[r]));
        PyObject *text = Py_None;
        if (alts) {
            PyObject *key = PyLong_FromLongLong((long long)r);
            text = key ? PyDict_GetItemWithError(c->alt, key) : NULL; /* borrowed */
            Py_XDECREF(key);
            if (!text && PyErr_Occurred()) goto done;
            if (!text) text = Py_None;
        }
        run_label_item(lists[5], i, text);
    }
    result = PyTuple_Pack(6, lists[0], lists[1], lists[2], lists[3], lists[4], lists[5]);
done:
    /* Lists left with empty items on an error are freed unread (PyList_New's NULL items are allowed in dealloc). */
    for (int f = 0; f < 6; f++) Py_XDECREF(lists[f]);
    return result;
}

/* structure_order(candidates, stream, mcid, artifact, keep_artifacts, no_mcid,
 *                 content_keys, content_element, lo, hi, block_owner, actual_owner,
 *                 actual_text, order, starts, run_starts, run_owners[, labels])
 *   -> (kept, tagged, untagged, replaced, runs, run_labels):
 * a page's structure reading up to the join (reading._placement; its
 * reference, reading._reference_placement, then _run_labels), in one pass
 * over the page's candidate glyphs (rows of its table). The page's refs are
 * the document's content rows lo:hi (StructTree's content, grouped by page):
 * ref j has the key content_keys[lo + j] and the element content_element[lo + j].
 * A candidate is kept unless it is an artifact and
 * artifacts are not kept. A kept candidate c whose mcid[c] != no_mcid has the
 * key (stream[c] << 32) | mcid[c] (two's complement bits, as numpy's int64
 * shift and or make them); its rank is the smallest j with ref j's key equal
 * to it (the first of equal keys in a stable argsort), -1 when none.
 * order[0:tagged] receives the ranked candidates by rank, candidates of one
 * rank in their order (each owned by its ref's element); order[tagged:kept]
 * the other kept candidates in their order. untagged counts the
 * non-artifacts among the others.
 * replaced: None unless some placed glyph's element has an /ActualText
 * owner (actual_owner[element] >= 0, §14.9.4); then the first placed glyph of
 * each owner carries the owner's text (actual_text.get(owner) or "") and
 * stays placed if that text is not empty, the owner's other glyphs drop out
 * of order (kept and tagged count what stays), and replaced is
 * (rows, texts): each carrier's row and its text, for the caller to write
 * (reading._apply_actual_text's steps). starts[i] (i < kept) says whether
 * order[i]'s owner (block_owner[element] for a placed glyph, -1 for the
 * tail's) differs from order[i-1]'s (starts[0] is 0). runs: the block runs
 * of the placed glyphs order[0:tagged] (reading._placed_runs), where each
 * begins (0, then each i < tagged with starts[i]) into run_starts[0:runs]
 * and its owner into run_owners[0:runs] (int64, hi - lo long: a ref's placed
 * glyphs are one stretch of order, of one element, so no more runs begin
 * than there are refs). run_labels: None, or with `labels` (run_labels'
 * columns and tail, StructTree.label_columns + the tail's values) and no
 * tail on the page (kept == tagged), the runs' six label lists as run_labels
 * gives them. Every index read is checked against its array's length. */

/* The page's refs by key: an open-addressing table of (key, first index);
 * index -1 marks an empty slot. A page has tens to thousands of refs in any
 * order (sorting them cost more than the pass over the glyphs). */
typedef struct { uint64_t key; int64_t index; } RefSlot;

static size_t ref_slot(uint64_t key, size_t mask) { return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask; }

/* The first index of a ref whose key is `key`, -1 when none. */
static int64_t ref_rank(const RefSlot *slots, size_t mask, uint64_t key) {
    for (size_t h = ref_slot(key, mask); slots[h].index >= 0; h = (h + 1) & mask)
        if (slots[h].key == key) return slots[h].index;
    return -1;
}

/* /ActualText over the placed glyphs order[0:tagged] (element: their
 * elements, whose owners AO holds, each -1 or below nel): each owner's first
 * glyph carries actual_text.get(owner) or "" and stays if that is not empty;
 * its other glyphs drop out. order[tagged:kept] (the tail) moves up behind
 * what stays; tagged and kept are updated. (rows, texts) of the carriers, or
 * NULL with an exception set. */
static PyObject *actual_text_applied(const int64_t *AO, Py_ssize_t nel, PyObject *actual_text, int64_t *order,
                                     int64_t *element, Py_ssize_t *tagged, Py_ssize_t *kept) {
    if (!PyDict_Check(actual_text)) {
        PyErr_SetString(PyExc_TypeError, "structure_order: actual_text must be a dict");
        return NULL;
    }
    unsigned char *seen = PyMem_Calloc((size_t)nel + 1, 1);
    PyObject *rows = PyList_New(0), *texts = PyList_New(0), *empty = PyUnicode_New(0, 0), *result = NULL;
    if (!seen) { PyErr_NoMemory(); goto done; }
    if (!rows || !texts || !empty) goto done;
    Py_ssize_t stay = 0;
    for (Py_ssize_t i = 0; i < *tagged; i++) {
        int64_t owner = AO[element[i]];
        if (owner < -1 || owner >= nel) {
            PyErr_SetString(PyExc_IndexError, "structure_order: /ActualText owner out of range");
            goto done;
        }
        int keep = owner < 0;
        if (owner >= 0 && !seen[owner]) {
            seen[owner] = 1;
            PyObject *key = PyLong_FromLongLong((long long)owner);
            PyObject *text = key ? PyDict_GetItemWithError(actual_text, key) : NULL; /* borrowed */
            Py_XDECREF(key);
            if (!text && PyErr_Occurred()) goto done;
            keep = text ? PyObject_IsTrue(text) : 0;
            if (keep < 0) goto done;
            PyObject *row = PyLong_FromLongLong((long long)order[i]);
            int failed = !row || PyList_Append(rows, row) < 0 || PyList_Append(texts, keep ? text : empty) < 0;
            Py_XDECREF(row);
            if (failed) goto done;
        }
        if (keep) { order[stay] = order[i]; element[stay] = element[i]; stay++; }
    }
    for (Py_ssize_t i = *tagged; i < *kept; i++) order[stay + i - *tagged] = order[i];
    *kept = stay + (*kept - *tagged);
    *tagged = stay;
    result = PyTuple_Pack(2, rows, texts);
done:
    PyMem_Free(seen);
    Py_XDECREF(rows);
    Py_XDECREF(texts);
    Py_XDECREF(empty);
    return result;
}

/* A run of kept candidates of one rank: candidates[start:end], all kept,
 * and its rank (-1: the tail's). */
typedef struct { Py_ssize_t start, end; int64_t rank; } RankRun;

/* structure_order's pass over the candidates: the kept ones cut into runs of
 * one rank (`runs`, their count in *n_runs); a run ends at a left-out
 * artifact. A marked-content sequence's glyphs come one after another: its
 * key is searched once, at its first glyph. The count of kept candidates, -1
 * with an exception set. */
static Py_ssize_t ranked_runs(const int64_t *restrict C, Py_ssize_t n, Py_ssize_t rows, const int64_t *restrict S,
                              const int64_t *restrict M, const unsigned char *restrict artifact, int keep_artifacts,
                              int64_t no_mcid, const RefSlot *slots, size_t mask, RankRun *restrict runs,
                              Py_ssize_t *n_runs) {
    Py_ssize_t left_out = 0, count = 0;
    const unsigned char skip = !keep_artifacts;
    int64_t last_mcid = no_mcid, last_stream = 0, rank = -1; /* an unmarked glyph's rank is -1 */
    int open = 0;                                             /* runs[count - 1] takes the next kept candidate */
    for (Py_ssize_t i = 0; i < n;) {
        int64_t c = C[i];
        if ((uint64_t)c >= (uint64_t)rows) { /* checked as read: the outputs are scratch until the end */
            PyErr_SetString(PyExc_IndexError, "structure_order: candidate out of range");
            return -1;
        }
        if (skip & artifact[c]) {
            if (open) runs[count - 1].end = i;
            open = 0;
            left_out++;
            i++;
            continue;
        }
        int64_t mcid = M[c], stream = S[c];
        if (mcid != last_mcid || stream != last_stream) {
            last_mcid = mcid, last_stream = stream;
            int64_t found = mcid == no_mcid ? -1 : ref_rank(slots, mask, ((uint64_t)stream << 32) | (uint64_t)mcid);
            if (found != rank && open) runs[count - 1].end = i;
            open &= found == rank;
            rank = found;
        }
        if (!open) { runs[count].start = i; runs[count++].rank = rank; open = 1; }
        /* The rest of the sequence: kept glyphs of the same key stay in the open run. */
        for (i++; i < n; i++) {
            c = C[i];
            if ((uint64_t)c >= (uint64_t)rows || (skip & artifact[c]) || M[c] != mcid || S[c] != stream) break;
        }
    }
    if (open) runs[count - 1].end = n;
    *n_runs = count;
    return n - left_out;
}

/* The runs' candidates into `order`: ranked runs by rank (counts[r]: where
 * rank r starts, left where it ends), runs of one rank in their order; then
 * from `tagged` on the tail's runs in their order. The tail's non-artifacts. */
static Py_ssize_t runs_placed(const RankRun *runs, Py_ssize_t n_runs, const int64_t *C, int64_t *counts,
                              Py_ssize_t tagged, const unsigned char *artifact, int keep_artifacts, int64_t *order) {
    Py_ssize_t rest = tagged, untagged = 0;
    for (Py_ssize_t k = 0; k < n_runs; k++) {
        Py_ssize_t length = runs[k].end - runs[k].start;
        const int64_t *from = C + runs[k].start;
        if (runs[k].rank >= 0) {
            memcpy(order + counts[runs[k].rank], from, (size_t)length * sizeof(int64_t));
            counts[runs[k].rank] += length;
            continue;
        }
        memcpy(order + rest, from, (size_t)length * sizeof(int64_t));
        rest += length;
        if (!keep_artifacts) { untagged += length; continue; } /* no artifact was kept */
        for (Py_ssize_t i = 0; i < length; i++) untagged += !artifact[from[i]];
    }
    return untagged;
}

/* The tail's starts (its owner is -1): its first glyph starts a run after an
 * owned one (`previous`: the last placed glyph's owner), the others none. */
static void tail_starts(Py_ssize_t tagged, Py_ssize_t kept, int64_t previous, unsigned char *starts) {
    if (kept > tagged) {
        starts[tagged] = tagged > 0 && previous != -1;
        memset(starts + tagged + 1, 0, (size_t)(kept - tagged - 1));
    }
}

/* The block runs of the placed glyphs (RunsOut): where each begins in order
 * (starts[0:count]) and its block owner; NULL arrays when not asked for. */
typedef struct { int64_t *starts, *owners; Py_ssize_t count; } RunsOut;

/* A block run begins at position `at` with owner `owner`. */
static void run_begins(RunsOut *out, Py_ssize_t at, int64_t owner) {
    if (!out->starts) return;
    out->starts[out->count] = at;
    out->owners[out->count++] = owner;
}

/* starts of the placed glyphs (elements element[0:tagged]; a glyph's owner is
 * BO[its element]) and of the tail, a stretch of one element at a time; the
 * placed glyphs' block runs into `out`. */
static void placed_starts(const int64_t *restrict element, Py_ssize_t tagged, Py_ssize_t kept, const int64_t *BO,
                          unsigned char *restrict starts, RunsOut *out) {
    int64_t previous = -1;
    for (Py_ssize_t i = 0; i < tagged;) {
        Py_ssize_t end = i + 1;
        while (end < tagged && element[end] == element[i]) end++;
        int64_t current = BO[element[i]];
        starts[i] = i > 0 && current != previous;
        if (i == 0 || current != previous) run_begins(out, i, current);
        if (end - i > 1) memset(starts + i + 1, 0, (size_t)(end - i - 1));
        previous = current;
        i = end;
    }
    tail_starts(tagged, kept, previous, starts);
}

/* values[0:count] = value. */
static void fill(int64_t *restrict values, Py_ssize_t count, int64_t value) {
    for (Py_ssize_t i = 0; i < count; i++) values[i] = value;
}

/* placed_starts where no /ActualText dropped a glyph: ref j's glyphs are
 * order[counts[j-1]:counts[j]] (counts[-1] = 0), all owned by element RE[j],
 * so the starts are filled a ref at a time. */
static void ref_starts(const int64_t *RE, Py_ssize_t nrefs, const int64_t *counts, const int64_t *BO,
                       Py_ssize_t tagged, Py_ssize_t kept, unsigned char *restrict starts, RunsOut *out) {
    int64_t previous = -1;
    for (Py_ssize_t j = 0, at = 0; j < nrefs; at = counts[j++]) {
        Py_ssize_t end = counts[j];
        if (end == at) continue;
        int64_t current = BO[RE[j]];
        starts[at] = at > 0 && current != previous;
        if (at == 0 || current != previous) run_begins(out, at, current);
        memset(starts + at + 1, 0, (size_t)(end - at - 1));
        previous = current;
    }
    tail_starts(tagged, kept, previous, starts);
}

/* The refs by key (RefSlot): `capacity` slots, a power of two at least
 * twice the refs; the first ref of a key keeps it. NULL when out of memory. */
static RefSlot *ref_slots(const int64_t *K, Py_ssize_t nrefs, size_t *mask) {
    size_t capacity = 16; /* probes stay short */
    while (capacity < 2 * (size_t)nrefs) capacity <<= 1;
    RefSlot *slots = PyMem_Malloc(sizeof(RefSlot) * capacity);
    if (!slots) return NULL;
    *mask = capacity - 1;
    for (size_t h = 0; h < capacity; h++) slots[h].index = -1;
    for (Py_ssize_t j = 0; j < nrefs; j++) { /* in order: the first ref of a key keeps it */
        uint64_t key = (uint64_t)K[j];
        size_t h = ref_slot(key, *mask);
        while (slots[h].index >= 0 && slots[h].key != key) h = (h + 1) & *mask;
        if (slots[h].index < 0) { slots[h].key = key; slots[h].index = (int64_t)j; }
    }
    return slots;
}

/* The placed glyphs' starts and block runs where some placed glyph's element
 * has an /ActualText owner: each placed glyph's element (ref j's glyphs are
 * order[counts[j-1]:counts[j]]) into scratch, /ActualText applied (its
 * glyphs dropped: tagged and kept updated), then placed_starts. The
 * replacements (actual_text_applied), NULL with an exception set. */
static PyObject *actual_starts(const int64_t *RE, Py_ssize_t nrefs, const int64_t *counts, const int64_t *BO,
                               const int64_t *AO, Py_ssize_t nel, PyObject *actual_text, int64_t *order,
                               Py_ssize_t *tagged, Py_ssize_t *kept, unsigned char *starts, RunsOut *out) {
    int64_t *element = PyMem_Malloc(sizeof(int64_t) * (size_t)(*tagged + 1));
    if (!element) return PyErr_NoMemory();
    for (Py_ssize_t j = 0, at = 0; j < nrefs; at = counts[j++]) fill(element + at, counts[j] - at, RE[j]);
    PyObject *replaced = actual_text_applied(AO, nel, actual_text, order, element, tagged, kept);
    if (replaced) placed_starts(element, *tagged, *kept, BO, starts, out);
    PyMem_Free(element);
    return replaced;
}

/* The placement's items after the pass (the run labels with `labels`, a
 * page with no tail): structure_order's result tuple, NULL on error. */
static PyObject *placement_result(Py_ssize_t kept, Py_ssize_t tagged, Py_ssize_t untagged, PyObject *replaced,
                                  const RunsOut *out, PyObject *labels) {
    PyObject *lists = Py_NewRef(Py_None);
    if (labels != Py_None && kept == tagged) {
        LabelColumns c;
        Py_SETREF(lists, label_columns_get(labels, &c) < 0 ? NULL : run_label_lists(out->owners, out->count, &c));
        label_columns_release(&c);
        if (!lists) return NULL;
    }
    return Py_BuildValue("nnnOnN", kept, tagged, untagged, replaced, out->count, lists);
}

static PyObject *core_structure_order(PyObject *mod, PyObject *args) {
    (void)mod;
    enum { CAND, STREAM, MCID, ARTIFACT, KEYS, CONTENT_ELEMENT, BLOCK, ACTUAL, ORDER, STARTS, RUN_STARTS, RUN_OWNERS,
           NV };
    PyObject *o[NV] = {NULL}, *actual_text, *labels = Py_None;
    int keep_artifacts;
    long long no_mcid;
    Py_ssize_t lo, hi;
    if (!PyArg_ParseTuple(args, "OOOOpLOOnnOOOOOOO|O", &o[CAND], &o[STREAM], &o[MCID], &o[ARTIFACT], &keep_artifacts,
                          &no_mcid, &o[KEYS], &o[CONTENT_ELEMENT], &lo, &hi, &o[BLOCK], &o[ACTUAL], &actual_text,
                          &o[ORDER], &o[STARTS], &o[RUN_STARTS], &o[RUN_OWNERS], &labels))
        return NULL;
    View v[NV] = {{0}};
    static const char *const formats[NV] = {"l", "l", "l", "?", "l", "l", "l", "l", "l", "?", "l", "l"};
    static const char *const names[NV] = {"candidates", "stream", "mcid", "artifact", "content_keys", "content_element",
                                          "block_owner", "actual_owner", "order", "starts", "run_starts", "run_owners"};
    RefSlot *slots = NULL;
    RankRun *runs = NULL;
    int64_t *counts = NULL;
    PyObject *result = NULL, *replaced = NULL;
    for (int i = 0; i < NV; i++)
        if (get_view(o[i], &v[i], formats[i], formats[i][0] == '?' ? 1 : 8, names[i]) < 0) goto done;
    Py_ssize_t n = v[CAND].view.len / 8, rows = v[STREAM].view.len / 8, nrefs = hi - lo;
    Py_ssize_t nel = v[BLOCK].view.len / 8;
    if (lo < 0 || hi < lo || hi > v[KEYS].view.len / 8) {
        PyErr_SetString(PyExc_IndexError, "structure_order: the page's content rows out of range");
        goto done;
    }
    if (v[MCID].view.len / 8 != rows || v[ARTIFACT].view.len != rows || v[CONTENT_ELEMENT].view.len != v[KEYS].view.len ||
        v[ACTUAL].view.len / 8 != nel || v[ORDER].view.len / 8 != n || v[STARTS].view.len != n ||
        v[RUN_STARTS].view.len / 8 != nrefs || v[RUN_OWNERS].view.len / 8 != nrefs) {
        PyErr_SetString(PyExc_ValueError, "structure_order: arrays of different lengths");
        goto done;
    }
    if (v[ORDER].view.readonly || v[STARTS].view.readonly || v[RUN_STARTS].view.readonly || v[RUN_OWNERS].view.readonly) {
        PyErr_SetString(PyExc_ValueError, "structure_order: the outputs must be writable");
        goto done;
    }
    RunsOut runs_out = {v[RUN_STARTS].view.buf, v[RUN_OWNERS].view.buf, 0};
    const int64_t *K = (const int64_t *)v[KEYS].view.buf + lo, *RE = (const int64_t *)v[CONTENT_ELEMENT].view.buf + lo;
    const int64_t *AO = v[ACTUAL].view.buf, *BO = v[BLOCK].view.buf;
    const unsigned char *artifact = v[ARTIFACT].view.buf;
    int64_t *order = v[ORDER].view.buf;
    size_t mask = 0;
    slots = ref_slots(K, nrefs, &mask);
    runs = PyMem_Malloc(sizeof(RankRun) * (size_t)(n + 1));
    counts = PyMem_Calloc((size_t)nrefs + 2, sizeof(int64_t));
    if (!slots || !runs || !counts) { PyErr_NoMemory(); goto done; }
    Py_ssize_t n_runs = 0, tagged = 0;
    Py_ssize_t kept = ranked_runs(v[CAND].view.buf, n, rows, v[STREAM].view.buf, v[MCID].view.buf, artifact,
                                  keep_artifacts, (int64_t)no_mcid, slots, mask, runs, &n_runs);
    if (kept < 0) goto done;
    for (Py_ssize_t j = 0; j < nrefs; j++)
        if (RE[j] < 0 || RE[j] >= nel) {
            PyErr_SetString(PyExc_IndexError, "structure_order: ref element out of range");
            goto done;
        }
    for (Py_ssize_t k = 0; k < n_runs; k++) /* per rank its glyphs' count; then where each rank starts */
        if (runs[k].rank >= 0) {
            counts[runs[k].rank + 1] += runs[k].end - runs[k].start;
            tagged += runs[k].end - runs[k].start;
        }
    for (Py_ssize_t j = 0; j < nrefs; j++) counts[j + 1] += counts[j];
    Py_ssize_t untagged = runs_placed(runs, n_runs, v[CAND].view.buf, counts, tagged, artifact, keep_artifacts, order);
    /* The ranks in placed order: a rank's glyphs fill counts[rank-1]..counts[rank] (shifted by the pass above).
     * An /ActualText owner among the elements of placed glyphs: checked once per ref that placed some. */
    int actual = 0;
    for (Py_ssize_t j = 0, at = 0; j < nrefs && !actual; at = counts[j++])
        actual = at < counts[j] && AO[RE[j]] >= 0;
    if (actual) {
        replaced = actual_starts(RE, nrefs, counts, BO, AO, nel, actual_text, order, &tagged, &kept, v[STARTS].view.buf,
                                 &runs_out);
        if (!replaced) goto done;
    } else {
        replaced = Py_NewRef(Py_None);
        ref_starts(RE, nrefs, counts, BO, tagged, kept, v[STARTS].view.buf, &runs_out);
    }
    result = placement_result(kept, tagged, untagged, replaced, &runs_out, labels);
done:
    Py_XDECREF(replaced);
    PyMem_Free(slots);
    PyMem_Free(runs);
    PyMem_Free(counts);
    for (int i = 0; i < NV; i++) release(&v[i]);
    return result;
}

/* owner_runs(owner_of_glyph, order, starts, owners) -> (runs, tail):
 * reading._owned_blocks' runs of one block owner over the emitted glyphs
 * (reading._reference_owner_runs, its reference). The owner at position p is
 * owner_of_glyph[order[p]]; a run starts at 0 and wherever the owner changes.
 * starts[0:runs] receive the runs' first positions, owners[0:runs] their
 * owners; tail says whether some owner is -1 (content outside the structure,
 * whose runs the caller splits by geometry as well). Every order index is
 * checked against owner_of_glyph's length. */
static PyObject *core_owner_runs(PyObject *mod, PyObject *args) {
    (void)mod;
    enum { OWNER, ORDER, STARTS, OWNERS, NV };
    PyObject *o[NV];
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3])) return NULL;
    View v[NV] = {{0}};
    static const char *const names[NV] = {"owner_of_glyph", "order", "starts", "owners"};
    PyObject *result = NULL;
    for (int i = 0; i < NV; i++)
        if (get_view(o[i], &v[i], "l", 8, names[i]) < 0) goto done;
    Py_ssize_t rows = v[OWNER].view.len / 8, n = v[ORDER].view.len / 8;
    if (v[STARTS].view.len / 8 != n || v[OWNERS].view.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "owner_runs: arrays of different lengths");
        goto done;
    }
    if (v[STARTS].view.readonly || v[OWNERS].view.readonly) {
        PyErr_SetString(PyExc_ValueError, "owner_runs: the outputs must be writable");
        goto done;
    }
    const int64_t *restrict owner = v[OWNER].view.buf, *restrict order = v[ORDER].view.buf;
    int64_t *restrict starts = v[STARTS].view.buf, *restrict owners = v[OWNERS].view.buf;
    Py_ssize_t runs = 0;
    int tail = 0;
    for (Py_ssize_t p = 0; p < n; p++) {
        if ((uint64_t)order[p] >= (uint64_t)rows) {
            PyErr_SetString(PyExc_IndexError, "owner_runs: order index out of range");
            goto done;
        }
        int64_t current = owner[order[p]];
        if (runs && current == owners[runs - 1]) continue;
        tail |= current == -1;
        starts[runs] = p;
        owners[runs++] = current;
    }
    result = Py_BuildValue("nO", runs, tail ? Py_True : Py_False);
done:
    for (int i = 0; i < NV; i++) release(&v[i]);
    return result;
}

/* ==== the cross-reference table's object streams (struct2) ================
 *
 * object_stream_members(table) -> (members, top): qpdf's cross-reference
 * table (pikepdf's get_xref_table(), a dict of (number, generation) to
 * XrefEntry, §7.5.4, §7.5.8) read in one pass, as
 * structure_objects._stream_members, its reference, reads it:
 *   members: {stream number: {object number, ...}}, the objects each object
 *     stream holds by the table (entries of type 2: obj_stream_number is
 *     None for the others), streams in the table's order;
 *   top: the largest key's object number (max(table)[0]), None when the
 *     table is empty.
 * No PDF bytes are read here: only Python objects, through their protocols. */
/* members[number], created empty when missing. New reference, NULL on error. */
static PyObject *members_of(PyObject *members, PyObject *number) {
    PyObject *held = PyDict_GetItemWithError(members, number);
    if (held) return Py_NewRef(held);
    if (PyErr_Occurred() || !(held = PySet_New(NULL))) return NULL;
    if (PyDict_SetItem(members, number, held) < 0) Py_CLEAR(held);
    return held;
}

/* Add `key`'s object number (key[0]) to members[number]. 0, -1 on error. */
static int add_member(PyObject *members, PyObject *number, PyObject *key) {
    PyObject *held = members_of(members, number), *object = held ? PySequence_GetItem(key, 0) : NULL;
    int added = object ? PySet_Add(held, object) : -1;
    Py_XDECREF(held);
    Py_XDECREF(object);
    return added;
}

static PyObject *core_object_stream_members(PyObject *mod, PyObject *table) {
    (void)mod;
    if (!PyDict_Check(table)) { PyErr_SetString(PyExc_TypeError, "object_stream_members: the table is a dict"); return NULL; }
    static PyObject *attr = NULL;
    if (!attr && !(attr = PyUnicode_InternFromString("obj_stream_number"))) return NULL;
    PyObject *members = PyDict_New(), *top = NULL, *key, *entry;
    Py_ssize_t pos = 0;
    int failed = !members;
    while (!failed && PyDict_Next(table, &pos, &key, &entry)) {
        int greater = top ? PyObject_RichCompareBool(key, top, Py_GT) : 1;
        if (greater < 0) { failed = 1; break; }
        if (greater) top = key; /* borrowed: the table holds it */
        PyObject *number = PyObject_GetAttr(entry, attr);
        if (!number) { failed = 1; break; }
        if (number != Py_None) failed = add_member(members, number, key) < 0;
        Py_DECREF(number);
    }
    PyObject *top_number = failed ? NULL : top ? PySequence_GetItem(top, 0) : Py_NewRef(Py_None);
    if (!top_number) { Py_XDECREF(members); return NULL; }
    return Py_BuildValue("(NN)", members, top_number);
}
/* ==== end of struct2's section ============================================ */

/* ==== tables' section: a page's tagged cells (reading._cell_contents) =====
 * Kernels over column arrays; each keeps its numpy reference in Python
 * (RAGPREP_PURE=1) and a differential test (tests/extract/test_cell_contents.py).
 * They read no PDF bytes. */

typedef struct { int64_t cell, position; } CellPosition;

static int cell_position_order(const void *a, const void *b) {
    const CellPosition *x = a, *y = b;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* A block's member `name` (bbox, mcids, char_start, char_end), new
 * reference: its slot read at `offset` where the block is of `type` and
 * `type` holds it so (member_offsets; -1: it does not), else by attribute. */
static PyObject *block_member(PyObject *block, PyTypeObject *type, Py_ssize_t offset, PyObject *name) {
    if (offset >= 0 && Py_IS_TYPE(block, type)) {
        PyObject *value = *(PyObject **)((char *)block + offset);
        if (value) return Py_NewRef(value);
    }
    return PyObject_GetAttr(block, name);
}

/* The blocks that lie in a cell as (cell, block) pairs sorted by cell then
 * block: a block's cell is its owner's, cell_of[owner] (the tail's owner -1
 * has none). Their count, -1 with an exception set. */
static Py_ssize_t block_cell_pairs(const int64_t *cell_of, Py_ssize_t n_cells, const int64_t *owners, Py_ssize_t blocks,
                                   CellPosition *pairs) {
    Py_ssize_t count = 0;
    int sorted = 1;
    for (Py_ssize_t b = 0; b < blocks; b++) {
        if (owners[b] < 0) continue;
        if (owners[b] >= n_cells) {
            PyErr_SetString(PyExc_IndexError, "block_cells: owner out of range");
            return -1;
        }
        int64_t cell = cell_of[owners[b]];
        if (cell < 0) continue;
        sorted &= !count || pairs[count - 1].cell <= cell;
        pairs[count].cell = cell;
        pairs[count++].position = (int64_t)b;
    }
    if (!sorted) qsort(pairs, (size_t)count, sizeof(CellPosition), cell_position_order);
    return count;
}

/* What block_cells reads of a page: the blocks' starts S (positions of
 * order, strictly increasing), the emitted rows, their spans, the quads and
 * MCIDs of the rows; scratch room for a cell's glyphs. */
typedef struct {
    const int64_t *S, *order, *CS, *CE, *mcid;
    const double *Q;
    Py_ssize_t blocks, n_order, rows;
    int64_t *emitted, *marks, *set, *found;
} BlockPage;

static Py_ssize_t block_end(const BlockPage *p, Py_ssize_t b) { return b + 1 < p->blocks ? (Py_ssize_t)p->S[b + 1] : p->n_order; }

/* The box and distinct MCIDs of a cell of several blocks (pairs[k:end]),
 * from their glyphs in emitted order: the one-run definition (runs_box,
 * run_distinct) over the cell's positions, as one run. 0, or -1 with an
 * exception set (an emitted row out of range). */
static int blocks_box_and_mcids(const BlockPage *p, const CellPosition *pairs, Py_ssize_t k, Py_ssize_t end,
                                PyObject **box, PyObject **mcids) {
    Py_ssize_t m = 0;
    for (Py_ssize_t i = k; i < end; i++)
        for (Py_ssize_t q = (Py_ssize_t)p->S[pairs[i].position], stop = block_end(p, (Py_ssize_t)pairs[i].position); q < stop; q++) {
            if (p->order[q] < 0 || p->order[q] >= p->rows) {
                PyErr_SetString(PyExc_IndexError, "block_cells: order index out of range");
                return -1;
            }
            p->emitted[m] = p->order[q];
            p->marks[m++] = p->mcid[p->order[q]];
        }
    if (!(*box = run_box(p->Q, p->emitted, 0, m))) return -1;
    *mcids = int_tuple(p->found, run_distinct(p->marks, 0, m, p->set, p->found));
    return *mcids ? 0 : -1;
}

/* A cell's span end `value` (its start or end) as an int: the block's own
 * member at `offset` (char_start, char_end; -1: not a slot of `type`) where
 * it holds that int, so a cell of one block holds its block's ints rather
 * than copies (no int made per cell, none freed with the page's tables);
 * else a new one. New reference. */
static PyObject *block_span_int(PyObject *block, PyTypeObject *type, Py_ssize_t offset, int64_t value) {
    PyObject *member = block && offset >= 0 && Py_IS_TYPE(block, type) ? *(PyObject **)((char *)block + offset) : NULL;
    if (member && PyLong_CheckExact(member)) {
        int overflow = 0;
        long long held = PyLong_AsLongLongAndOverflow(member, &overflow);
        if (!overflow && held == (long long)value) return Py_NewRef(member);
        if (PyErr_Occurred()) return NULL;
    }
    return PyLong_FromLongLong((long long)value);
}

/* One cell's six items (key, start, end, box, MCIDs, text) from its blocks
 * pairs[k:end] into the columns at `cell`: a cell of one block takes that
 * block's box and MCIDs (the same glyphs), its span's ints where they are
 * its (block_span_int) and its text (the same slice of the page text, which
 * page_tables takes as the cell's where cell_text keeps the slice), else
 * blocks_box_and_mcids and no text (None). The spans of the
 * emitted glyphs increase (join_text), so a block's least start is its
 * first glyph's and its greatest end its last's. 0, or -1. */
static int block_cell_items(const BlockPage *p, const CellPosition *pairs, Py_ssize_t k, Py_ssize_t end,
                            PyObject *blocks, PyTypeObject *type, const Py_ssize_t *offsets, PyObject *names,
                            PyObject **columns, Py_ssize_t cell) {
    int64_t start = INT64_MAX, stop = INT64_MIN;
    for (Py_ssize_t i = k; i < end; i++) {
        Py_ssize_t b = (Py_ssize_t)pairs[i].position;
        start = p->CS[p->S[b]] < start ? p->CS[p->S[b]] : start;
        stop = p->CE[block_end(p, b) - 1] > stop ? p->CE[block_end(p, b) - 1] : stop;
    }
    PyObject *block = end == k + 1 ? PySequence_Fast_GET_ITEM(blocks, (Py_ssize_t)pairs[k].position) : NULL;
    PyObject *items[6] = {PyLong_FromLongLong((long long)pairs[k].cell), NULL, NULL, NULL, NULL, NULL};
    int failed = !items[0] || !(items[1] = block_span_int(block, type, offsets[2], start)) ||
                 !(items[2] = block_span_int(block, type, offsets[3], stop));
    if (!failed && block) {
        failed = !(items[3] = block_member(block, type, offsets[0], PyTuple_GET_ITEM(names, 0))) ||
                 !(items[4] = block_member(block, type, offsets[1], PyTuple_GET_ITEM(names, 1))) ||
                 !(items[5] = block_member(block, type, offsets[4], PyTuple_GET_ITEM(names, 4)));
    } else if (!failed) {
        failed = blocks_box_and_mcids(p, pairs, k, end, &items[3], &items[4]) < 0;
        items[5] = Py_NewRef(Py_None);
    }
    for (int c = 0; c < 6; c++) {
        if (failed) Py_XDECREF(items[c]);
        else PyList_SET_ITEM(columns[c], cell, items[c]);
    }
    return failed ? -1 : 0;
}

/* The six CellContents columns of the sorted pairs (count of them): per cell, block_cell_items. */
static PyObject *block_cell_columns(const BlockPage *p, const CellPosition *pairs, Py_ssize_t count, PyObject *blocks,
                                    PyObject *names) {
    Py_ssize_t cells = 0;
    for (Py_ssize_t k = 0; k < count; k++) cells += !k || pairs[k].cell != pairs[k - 1].cell;
    PyTypeObject *type = Py_TYPE(PySequence_Fast_GET_ITEM(blocks, (Py_ssize_t)pairs[0].position));
    Py_ssize_t offsets[5] = {-1, -1, -1, -1, -1};
    member_offsets(type, &PyTuple_GET_ITEM(names, 0), 5, offsets);
    if (offsets[0] < 0) offsets[1] = offsets[2] = offsets[3] = offsets[4] = -1;
    PyObject *columns[6] = {NULL}, *result = NULL;
    for (int c = 0; c < 6; c++)
        if (!(columns[c] = PyList_New(cells))) goto done;
    for (Py_ssize_t k = 0, cell = 0; k < count; cell++) {
        Py_ssize_t end = k + 1;
        while (end < count && pairs[end].cell == pairs[k].cell) end++;
        if (block_cell_items(p, pairs, k, end, blocks, type, offsets, names, columns, cell) < 0) goto done;
        k = end;
    }
    result = PyTuple_Pack(6, columns[0], columns[1], columns[2], columns[3], columns[4], columns[5]);
done:
    for (int c = 0; c < 6; c++) Py_XDECREF(columns[c]);
    return result;
}

/* block_cells(cell_of, owners, starts, order, char_start, char_end, quad, mcid, blocks, names)
 *   -> None or (keys, starts, ends, boxes, mcids, texts): reading._reference_cell_contents
 * read off the page's blocks, in one call. Block b (blocks[b]; `names`: the
 * names of its box, MCIDs, span and text, ("bbox", "mcids", "char_start",
 * "char_end", "text")) holds the emitted positions
 * starts[b] up to the next start (the last: to the end of order), all owned
 * by owners[b] (-1: the tail). Every TH/TD and Table is a block type, so a
 * block's glyphs lie in one cell, its owner's (cell_of[owner], -1: none), and
 * a cell's glyphs are its blocks'. Per cell with a block, by ascending cell:
 * the cell, the least start and greatest end of its glyphs' spans
 * (char_start, char_end per position), their box and distinct MCIDs (a cell
 * of one block: that block's own, its span's ints where they hold the span
 * and its text (texts: None for a cell of several blocks; the reference
 * reads none); else from the quads, 8 doubles a row, and the MCIDs of the
 * rows, as the one-run definition takes them). None when no
 * block is in a cell. Every index read is checked against its array's length. */
static PyObject *core_block_cells(PyObject *mod, PyObject *args) {
    (void)mod;
    enum { CELL_OF, OWNERS, STARTS, ORDER, START, END, QUAD, MCID, NV };
    PyObject *o[NV], *blocks_obj, *names, *blocks = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO!", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &blocks_obj,
                          &PyTuple_Type, &names))
        return NULL;
    View v[NV] = {{0}};
    static const char *const view_names[NV] = {"cell_of", "owners", "starts", "order", "char_start", "char_end", "quad", "mcid"};
    CellPosition *pairs = NULL;
    BlockPage p = {0};
    for (int i = 0; i < NV; i++)
        if (get_view(o[i], &v[i], i == QUAD ? "d" : "l", 8, view_names[i]) < 0) goto done;
    if (PyTuple_GET_SIZE(names) != 5 || !(blocks = PySequence_Fast(blocks_obj, "block_cells: blocks are a sequence"))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "block_cells: five member names");
        goto done;
    }
    p.blocks = v[OWNERS].view.len / 8, p.n_order = v[ORDER].view.len / 8, p.rows = v[MCID].view.len / 8;
    if (v[STARTS].view.len / 8 != p.blocks || PySequence_Fast_GET_SIZE(blocks) != p.blocks ||
        v[START].view.len / 8 != p.n_order || v[END].view.len / 8 != p.n_order || v[QUAD].view.len != p.rows * 64) {
        PyErr_SetString(PyExc_ValueError, "block_cells: arrays of different lengths");
        goto done;
    }
    p.S = v[STARTS].view.buf, p.order = v[ORDER].view.buf, p.CS = v[START].view.buf, p.CE = v[END].view.buf;
    p.mcid = v[MCID].view.buf, p.Q = v[QUAD].view.buf;
    for (Py_ssize_t b = 0; b < p.blocks; b++)
        if (p.S[b] < 0 || p.S[b] >= p.n_order || (b && p.S[b] <= p.S[b - 1])) {
            PyErr_SetString(PyExc_ValueError, "block_cells: bad block starts");
            goto done;
        }
    pairs = PyMem_Malloc(sizeof(CellPosition) * (size_t)(p.blocks + 1));
    if (!pairs) { PyErr_NoMemory(); goto done; }
    Py_ssize_t count = block_cell_pairs(v[CELL_OF].view.buf, v[CELL_OF].view.len / 8, v[OWNERS].view.buf, p.blocks, pairs);
    if (count < 0) goto done;
    if (!count) { result = Py_NewRef(Py_None); goto done; }
    int bits;
    p.emitted = PyMem_Malloc(sizeof(int64_t) * (size_t)(p.n_order + 1));
    p.marks = PyMem_Malloc(sizeof(int64_t) * (size_t)(p.n_order + 1));
    p.found = PyMem_Malloc(sizeof(int64_t) * (size_t)(p.n_order + 1));
    p.set = PyMem_Malloc(sizeof(int64_t) * run_set_size(p.n_order, &bits));
    if (!p.emitted || !p.marks || !p.found || !p.set) { PyErr_NoMemory(); goto done; }
    result = block_cell_columns(&p, pairs, count, blocks, names);
done:
    Py_XDECREF(blocks);
    PyMem_Free(pairs);
    PyMem_Free(p.emitted);
    PyMem_Free(p.marks);
    PyMem_Free(p.found);
    PyMem_Free(p.set);
    for (int i = 0; i < NV; i++) release(&v[i]);
    return result;
}

/* What one pass over a cell's slice finds (cell_text_scan): its
 * non-whitespace characters, its whitespace-free pieces, the widest
 * character, and whether the slice is its own cell text (no whitespace but
 * single spaces between pieces). */
typedef struct { Py_ssize_t length, pieces; Py_UCS4 widest; int as_is; } CellTextScan;

/* cell_text_scan for one kind of str (a constant where it is inlined: the
 * loop reads each character with no switch on the kind). The slice keeps
 * itself when each whitespace character is one ' ' with a piece either side:
 * after a piece, and followed by one (a space before a space, or last, is not). */
static inline __attribute__((always_inline)) CellTextScan cell_text_scan_kind(int kind, const void *data, Py_ssize_t start,
                                                                              Py_ssize_t end) {
    CellTextScan s = {0, 0, 0, 1};
    int in_piece = 0, spaced = 0; /* spaced: the character before is a kept ' ' */
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISSPACE(c)) {
            s.as_is &= c == ' ' && in_piece;
            spaced = 1;
            in_piece = 0;
            continue;
        }
        s.pieces += !in_piece;
        in_piece = 1;
        spaced = 0;
        s.length++;
        s.widest = c > s.widest ? c : s.widest;
    }
    s.as_is &= !spaced; /* no whitespace last */
    return s;
}

static CellTextScan cell_text_scan(int kind, const void *data, Py_ssize_t start, Py_ssize_t end) {
    switch (kind) {
    case PyUnicode_1BYTE_KIND: return cell_text_scan_kind(PyUnicode_1BYTE_KIND, data, start, end);
    case PyUnicode_2BYTE_KIND: return cell_text_scan_kind(PyUnicode_2BYTE_KIND, data, start, end);
    default: return cell_text_scan_kind(PyUnicode_4BYTE_KIND, data, start, end);
    }
}

/* A cell's text (tables.cell_text): the page text's slice [start:end] (Python's
 * slice bounds) with its whitespace-free pieces joined by one space
 * (str.split(), " ".join; Py_UNICODE_ISSPACE is str.split's whitespace).
 * One pass over the slice counts what that keeps (cell_text_scan): where it
 * keeps the slice as it is (no whitespace but single spaces inside), the
 * slice itself; else the pieces are written out, in the narrowest kind that
 * holds them (a str is stored so), in a second pass. No list of pieces, no
 * str per piece. `known`: a str that may be the slice already (the text of
 * the cell's one block, block_cells), or NULL: where it equals the slice it
 * is the result, no second str of the same text made (and freed). */
static PyObject *table_cell_text(PyObject *page_text, Py_ssize_t start, Py_ssize_t end, PyObject *known) {
    PySlice_AdjustIndices(PyUnicode_GET_LENGTH(page_text), &start, &end, 1);
    if (end < start) end = start;
    int kind = PyUnicode_KIND(page_text);
    const void *data = PyUnicode_DATA(page_text);
    CellTextScan s = cell_text_scan(kind, data, start, end);
    if (s.as_is && known && PyUnicode_CheckExact(known) && PyUnicode_GET_LENGTH(known) == end - start) {
        Py_ssize_t same = PyUnicode_Tailmatch(page_text, known, start, end, -1); /* known == the slice */
        if (same < 0) return NULL;
        if (same) return Py_NewRef(known);
    }
    if (s.as_is) return PyUnicode_Substring(page_text, start, end);
    Py_UCS4 widest = s.widest;
    PyObject *text = PyUnicode_New(s.length + (s.pieces ? s.pieces - 1 : 0), widest > ' ' || !s.pieces ? widest : ' ');
    if (!text) return NULL;
    int out_kind = PyUnicode_KIND(text);
    void *out = PyUnicode_DATA(text);
    Py_ssize_t at = 0;
    int in_piece = 0;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISSPACE(c)) { in_piece = 0; continue; }
        if (!in_piece && at) PyUnicode_WRITE(out_kind, out, at++, ' ');
        in_piece = 1;
        PyUnicode_WRITE(out_kind, out, at++, c);
    }
    return text;
}

/* A table's cells among a page's shown cells: `start`..`end` of the shown
 * cells sorted by (table, position), its first position and least char_start. */
typedef struct { Py_ssize_t start, end; int64_t first, least; } CellGroup;

static int cell_group_order(const void *a, const void *b) {
    const CellGroup *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The shown cells (position k of the page's columns, table t) grouped by
 * table, the tables in the order each first comes, a cell's order kept in its
 * table: `pairs` (t, k) sorted so, `groups` their bounds. The count of groups. */
static Py_ssize_t group_cells(CellPosition *pairs, Py_ssize_t shown, const int64_t *starts, CellGroup *groups) {
    int one_table = 1;
    for (Py_ssize_t i = 1; i < shown; i++) one_table &= pairs[i].cell == pairs[0].cell;
    if (!one_table) qsort(pairs, (size_t)shown, sizeof(CellPosition), cell_position_order);
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < shown; i++) {
        if (!i || pairs[i].cell != pairs[i - 1].cell) {
            groups[count].start = i;
            groups[count].first = pairs[i].position;
            groups[count++].least = starts[pairs[i].position];
        }
        CellGroup *g = &groups[count - 1];
        g->end = i + 1;
        g->least = starts[pairs[i].position] < g->least ? starts[pairs[i].position] : g->least;
    }
    if (count > 1) qsort(groups, (size_t)count, sizeof(CellGroup), cell_group_order);
    return count;
}

enum { CELL_FIELDS = 12, PLACES = 5 };

/* Frozen rows of `cls` (TableCell, `fields` its twelve fields) from the
 * twelve columns (lists of one length): core_frozen_rows. NULL with an
 * exception set. */
static PyObject *cell_rows(PyObject *mod, PyObject *cls, PyObject *fields, PyObject *const *columns) {
    PyObject *column_tuple = PyTuple_New(CELL_FIELDS);
    for (int c = 0; column_tuple && c < CELL_FIELDS; c++) PyTuple_SET_ITEM(column_tuple, c, Py_NewRef(columns[c]));
    PyObject *row_args = column_tuple ? Py_BuildValue("(OON)", cls, fields, column_tuple) : NULL;
    PyObject *rows = row_args ? core_frozen_rows(mod, row_args) : NULL;
    Py_XDECREF(row_args);
    return rows;
}

/* The TableCells' columns (TableCell's field order) of the grouped cells:
 * places (row, col, row_span, col_span, header) from their slots, no header
 * labels, the text of their span, `page`, and the page's box, MCIDs and span. */
static int table_cell_columns(PyObject **columns, const CellPosition *pairs, const CellGroup *groups,
                              Py_ssize_t n_groups, const int64_t *slot, const int64_t *starts, const int64_t *ends,
                              PyObject *const *page_columns, PyObject *const *places, PyObject *page_text,
                              PyObject *page) {
    PyObject *empty = PyTuple_New(0);
    int failed = !empty;
    Py_ssize_t at = 0;
    for (Py_ssize_t g = 0; !failed && g < n_groups; g++)
        for (Py_ssize_t i = groups[g].start; !failed && i < groups[g].end; i++, at++) {
            Py_ssize_t k = (Py_ssize_t)pairs[i].position, s = (Py_ssize_t)slot[k];
            PyObject *text = table_cell_text(page_text, (Py_ssize_t)starts[k], (Py_ssize_t)ends[k], NULL);
            if (!text) { failed = 1; break; }
            for (int c = 0; c < PLACES; c++) PyList_SET_ITEM(columns[c], at, Py_NewRef(PyList_GET_ITEM(places[c], s)));
            PyList_SET_ITEM(columns[5], at, Py_NewRef(empty));
            PyList_SET_ITEM(columns[6], at, text);
            PyList_SET_ITEM(columns[7], at, Py_NewRef(page));
            PyList_SET_ITEM(columns[8], at, Py_NewRef(PySequence_Fast_GET_ITEM(page_columns[3], k)));
            PyList_SET_ITEM(columns[9], at, Py_NewRef(PySequence_Fast_GET_ITEM(page_columns[4], k)));
            PyList_SET_ITEM(columns[10], at, Py_NewRef(PySequence_Fast_GET_ITEM(page_columns[1], k)));
            PyList_SET_ITEM(columns[11], at, Py_NewRef(PySequence_Fast_GET_ITEM(page_columns[2], k)));
        }
    Py_XDECREF(empty);
    return failed ? -1 : 0;
}

/* The page's shown cells as (table position, position k) pairs, each k's
 * slot, start and end read: their count, -1 with an exception set. */
static Py_ssize_t shown_cells(PyObject *const *page_columns, Py_ssize_t n, const int64_t *slot_of,
                              Py_ssize_t elements, const int64_t *slot_table, Py_ssize_t slots, Py_ssize_t tables,
                              CellPosition *pairs, int64_t *slot, int64_t *starts, int64_t *ends) {
    Py_ssize_t shown = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        long long key = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(page_columns[0], k));
        starts[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(page_columns[1], k));
        ends[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(page_columns[2], k));
        if (PyErr_Occurred()) return -1;
        slot[k] = key >= 0 && key < elements ? slot_of[key] : -1;
        if (slot[k] < 0) continue; /* not a cell of a grid: the reference's missing slot */
        if (slot[k] >= slots || slot_table[slot[k]] < 0 || slot_table[slot[k]] >= tables) {
            PyErr_SetString(PyExc_IndexError, "page_cells: slot or table out of range");
            return -1;
        }
        pairs[shown].cell = slot_table[slot[k]];
        pairs[shown++].position = k;
    }
    return shown;
}

/* A page's shown cells grouped by table (page_cells, page_tables): the
 * page's five content columns and its cells' known texts (NULL: none), the five place columns (one item per slot),
 * the shown cells as (table position, position) pairs grouped so, the
 * groups, and per position its slot, start and end. */
typedef struct {
    View v[2];
    PyObject *columns[6], *places[PLACES];
    Py_ssize_t n, shown, n_groups;
    CellPosition *pairs;
    CellGroup *groups;
    int64_t *slot, *starts, *ends;
} PageGroups;

static void page_groups_free(PageGroups *g) {
    for (int c = 0; c < 6; c++) Py_CLEAR(g->columns[c]);
    PyMem_Free(g->pairs);
    PyMem_Free(g->groups);
    PyMem_Free(g->slot);
    PyMem_Free(g->starts);
    PyMem_Free(g->ends);
    release(&g->v[0]);
    release(&g->v[1]);
}

/* The page's shown cells grouped (PageGroups; `g` zeroed, freed by the
 * caller either way): contents, slot_of, slot_table and places as
 * page_cells takes them, n_tables the tables' count. 0, or -1 with an
 * exception set; g->shown 0 when no cell has a slot. */
static int page_groups(PageGroups *g, PyObject *contents, PyObject *slot_of_obj, PyObject *slot_table_obj,
                       PyObject *places_obj, Py_ssize_t n_tables) {
    Py_ssize_t n_columns = PyTuple_GET_SIZE(contents);
    if ((n_columns != 5 && n_columns != 6) || PyTuple_GET_SIZE(places_obj) != PLACES) {
        PyErr_SetString(PyExc_ValueError, "page_cells: five content columns (and the known texts) and five place columns");
        return -1;
    }
    if (get_view(slot_of_obj, &g->v[0], "l", 8, "slot_of") < 0 || get_view(slot_table_obj, &g->v[1], "l", 8, "slot_table") < 0)
        return -1;
    Py_ssize_t slots = g->v[1].view.len / 8;
    g->n = -1;
    for (int c = 0; c < 5; c++) {
        if (!(g->columns[c] = PySequence_Fast(PyTuple_GET_ITEM(contents, c), "page_cells: contents are columns")))
            return -1;
        if (g->n >= 0 && PySequence_Fast_GET_SIZE(g->columns[c]) != g->n) {
            PyErr_SetString(PyExc_ValueError, "page_cells: content columns of different lengths");
            return -1;
        }
        g->n = PySequence_Fast_GET_SIZE(g->columns[c]);
    }
    /* The known texts: one per cell, or none (empty) */
    if (n_columns == 6 && !(g->columns[5] = PySequence_Fast(PyTuple_GET_ITEM(contents, 5), "page_cells: texts are a column")))
        return -1;
    if (g->columns[5] && PySequence_Fast_GET_SIZE(g->columns[5]) != g->n) {
        if (PySequence_Fast_GET_SIZE(g->columns[5])) {
            PyErr_SetString(PyExc_ValueError, "page_cells: a known text per cell, or none");
            return -1;
        }
        Py_CLEAR(g->columns[5]);
    }
    for (int c = 0; c < PLACES; c++) {
        g->places[c] = PyTuple_GET_ITEM(places_obj, c);
        if (!PyList_Check(g->places[c]) || PyList_GET_SIZE(g->places[c]) != slots) {
            PyErr_SetString(PyExc_ValueError, "page_cells: a place per slot");
            return -1;
        }
    }
    size_t room = (size_t)(g->n + 1);
    g->pairs = PyMem_Malloc(sizeof(CellPosition) * room);
    g->groups = PyMem_Malloc(sizeof(CellGroup) * room);
    g->slot = PyMem_Malloc(sizeof(int64_t) * room);
    g->starts = PyMem_Malloc(sizeof(int64_t) * room);
    g->ends = PyMem_Malloc(sizeof(int64_t) * room);
    if (!g->pairs || !g->groups || !g->slot || !g->starts || !g->ends) { PyErr_NoMemory(); return -1; }
    g->shown = shown_cells(g->columns, g->n, g->v[0].view.buf, g->v[0].view.len / 8, g->v[1].view.buf, slots, n_tables,
                           g->pairs, g->slot, g->starts, g->ends);
    if (g->shown < 0) return -1;
    g->n_groups = g->shown ? group_cells(g->pairs, g->shown, g->starts, g->groups) : 0;
    return 0;
}

/* page_cells(cls, fields, contents, slot_of, slot_table, tables, places, page_text, page)
 *   -> None or (tables, firsts, bounds, cells): tables._reference_page_cells
 * in one call. contents: the page's CellContents columns (key, char_start,
 * char_end, bbox, mcids; one item per cell). slot_of: per element, its slot
 * in the document's grids (-1: none); slot_table: per slot, its table's
 * position in `tables` (the Tables' elements); places: per slot its row,
 * col, row_span, col_span and header flag (five lists). The cells whose key
 * has a slot, grouped by table in the order each table first comes (a cell's
 * order kept in its table): per group its table element, the least
 * char_start of its cells and where it starts in `cells` (then the end);
 * cells: frozen rows of `cls` (TableCell, `fields` its twelve fields in
 * order), unlabelled, their text cell_text of their span. None when no cell
 * has a slot. Every index read is checked against its array's length. */
static PyObject *core_page_cells(PyObject *mod, PyObject *args) {
    PyObject *cls, *fields, *contents, *slot_of_obj, *slot_table_obj, *tables, *places_obj, *page_text, *page;
    if (!PyArg_ParseTuple(args, "O!O!O!OOO!O!UO", &PyType_Type, &cls, &PyTuple_Type, &fields, &PyTuple_Type,
                          &contents, &slot_of_obj, &slot_table_obj, &PyList_Type, &tables, &PyTuple_Type,
                          &places_obj, &page_text, &page))
        return NULL;
    if (PyTuple_GET_SIZE(fields) != CELL_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "page_cells: twelve fields, five content and five place columns");
        return NULL;
    }
    PageGroups g = {0};
    PyObject *columns[CELL_FIELDS] = {NULL}, *result = NULL;
    if (page_groups(&g, contents, slot_of_obj, slot_table_obj, places_obj, PyList_GET_SIZE(tables)) < 0) goto done;
    if (!g.shown) { result = Py_NewRef(Py_None); goto done; }
    Py_ssize_t n_groups = g.n_groups;
    for (int c = 0; c < CELL_FIELDS; c++)
        if (!(columns[c] = PyList_New(g.shown))) goto done;
    if (table_cell_columns(columns, g.pairs, g.groups, n_groups, g.slot, g.starts, g.ends, g.columns, g.places,
                           page_text, page) < 0)
        goto done;
    PyObject *cells = cell_rows(mod, cls, fields, columns);
    PyObject *table_list = cells ? PyList_New(n_groups) : NULL, *firsts = table_list ? PyList_New(n_groups) : NULL;
    PyObject *bounds = firsts ? PyList_New(n_groups + 1) : NULL;
    int failed = !bounds;
    for (Py_ssize_t k = 0, at = 0; !failed && k <= n_groups; k++) {
        PyObject *bound = PyLong_FromSsize_t(at);
        if (!bound) { failed = 1; break; }
        PyList_SET_ITEM(bounds, k, bound);
        if (k == n_groups) break;
        PyObject *least = PyLong_FromLongLong((long long)g.groups[k].least);
        if (!least) { failed = 1; break; }
        PyList_SET_ITEM(firsts, k, least);
        int64_t table = g.pairs[g.groups[k].start].cell;
        PyList_SET_ITEM(table_list, k, Py_NewRef(PyList_GET_ITEM(tables, table)));
        at += g.groups[k].end - g.groups[k].start;
    }
    result = failed ? NULL : PyTuple_Pack(4, table_list, firsts, bounds, cells);
    Py_XDECREF(cells);
    Py_XDECREF(table_list);
    Py_XDECREF(firsts);
    Py_XDECREF(bounds);
done:
    for (int c = 0; c < CELL_FIELDS; c++) Py_XDECREF(columns[c]);
    page_groups_free(&g);
    return result;
}

/* ---- a table's cells finished: sorted, repeats joined, header rows counted,
 * header labels attached (tables._finished_cells) */

/* One cell of a table being finished: its place read once, its position in
 * the cells handed in (the sort is stable on it), the cell (NULL where it is
 * yet to be built: page_tables), its text (a new reference), its new header
 * labels and its row and col as the ints they are (borrowed: the keys of the
 * heads and named maps). */
typedef struct {
    long long row, col, row_span, col_span;
    Py_ssize_t at;
    int header, named;
    PyObject *cell, *text, *labels, *place[2];
} FinishCell;

static int finish_cell_order(const void *a, const void *b) {
    const FinishCell *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* A TableCell's field (member_offsets' offsets; offsets[i] of field i). */
#define CELL_FIELD(cell, offsets, i) (*(PyObject **)((char *)(cell) + (offsets)[i]))

enum { FC_ROW, FC_COL, FC_ROW_SPAN, FC_COL_SPAN, FC_HEADER, FC_LABELS, FC_TEXT, FC_PAGE };

/* Places past this magnitude are left to the reference (its sums of Python
 * ints never overflow; these sums in C stay far inside int64). */
static const long long FINISH_LIMIT = 1LL << 40;

/* The place of each cell read (1: every field an int within FINISH_LIMIT and
 * every cell exactly `cls`; 0: the reference must finish; -1: error). */
static int finish_read(PyObject *cells, PyTypeObject *cls, const Py_ssize_t *offsets, FinishCell *out) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(cells);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *cell = PySequence_Fast_GET_ITEM(cells, k);
        if (!Py_IS_TYPE(cell, cls)) return 0;
        long long v[4];
        for (int i = 0; i < 4; i++) {
            PyObject *value = CELL_FIELD(cell, offsets, i);
            int overflow = 0;
            if (!value || !PyLong_CheckExact(value)) return 0;
            v[i] = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (v[i] == -1 && PyErr_Occurred()) return -1;
            if (overflow || v[i] > FINISH_LIMIT || v[i] < -FINISH_LIMIT) return 0;
        }
        PyObject *header = CELL_FIELD(cell, offsets, FC_HEADER), *text = CELL_FIELD(cell, offsets, FC_TEXT);
        if (!header || !text || !CELL_FIELD(cell, offsets, FC_LABELS) || !CELL_FIELD(cell, offsets, FC_PAGE)) return 0;
        int is_header = PyObject_IsTrue(header);
        if (is_header < 0) return -1;
        out[k] = (FinishCell){v[0], v[1], v[2], v[3], k, is_header, 0, cell, Py_NewRef(text), NULL,
                              {CELL_FIELD(cell, offsets, FC_ROW), CELL_FIELD(cell, offsets, FC_COL)}};
    }
    return 1;
}

/* Cells of one slot shown on two pages joined (tables._joined_cells): the
 * first kept, its text that of both, one space between, stripped. The count
 * of cells left; -1 with an exception set. */
static Py_ssize_t finish_join(FinishCell *cells, Py_ssize_t n) {
    Py_ssize_t out = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        FinishCell *last = out ? &cells[out - 1] : NULL;
        if (!last || last->row != cells[k].row || last->col != cells[k].col) {
            /* [out, k) hold no text (moved or joined): the move leaves k none either */
            cells[out] = cells[k];
            if (out++ != k) cells[k].text = NULL;
            continue;
        }
        PyObject *both = PyUnicode_FromFormat("%S %S", last->text, cells[k].text);
        PyObject *stripped = both ? PyObject_CallMethod(both, "strip", NULL) : NULL;
        Py_XDECREF(both);
        Py_CLEAR(cells[k].text);
        if (!stripped) return -1;
        Py_SETREF(last->text, stripped);
    }
    return out;
}

/* tables._header_rows of the sorted cells. */
static long long finish_header_rows(const FinishCell *cells, Py_ssize_t n) {
    Py_ssize_t plain = 0;
    int any = 0;
    for (Py_ssize_t k = 0; k < n; k++) any |= cells[k].header;
    if (!any) return 0;
    while (plain < n && cells[plain].header) plain++;
    long long limit = plain < n ? cells[plain].row : (long long)n, leading = 0;
    Py_ssize_t j = 0;
    while (leading < limit) {
        while (j < plain && cells[j].row < leading) j++;
        if (j == plain || cells[j].row != leading) break;
        leading++;
    }
    return leading;
}

/* `by_place`'s entry for the cell's (row, col) (heads and named are keyed
 * so), borrowed, in *found: NULL when it has none. 0, or -1 with an
 * exception set. */
static int finish_at_place(const FinishCell *c, PyObject *by_place, PyObject **found) {
    *found = NULL;
    if (!PyDict_GET_SIZE(by_place)) return 0;
    PyObject *key = PyTuple_Pack(2, c->place[0], c->place[1]);
    if (!key) return -1;
    *found = PyDict_GetItemWithError(by_place, key); /* borrowed */
    Py_DECREF(key);
    return !*found && PyErr_Occurred() ? -1 : 0;
}

/* A header cell's scope: `heads`' (/Scope, in a THead) for its place, else
 * by position (tables._labels' rule). 1 Column, 2 Row, 3 Both, 0 neither;
 * -1 with an exception set. */
static int finish_scope(const FinishCell *c, PyObject *heads, long long header_rows) {
    PyObject *scope = Py_None, *in_thead = Py_False, *found;
    if (finish_at_place(c, heads, &found) < 0) return -1;
    if (found) {
        if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 2) {
            PyErr_SetString(PyExc_ValueError, "table_finish: heads hold (scope, in_thead)");
            return -1;
        }
        scope = PyTuple_GET_ITEM(found, 0);
        in_thead = PyTuple_GET_ITEM(found, 1);
    }
    if (scope == Py_None) {
        int thead = PyObject_IsTrue(in_thead);
        if (thead < 0) return -1;
        int in_head = c->row < header_rows || c->row == 0 || thead;
        return in_head && !(c->col == 0 && c->row >= header_rows) ? 1 : 2;
    }
    if (!PyUnicode_Check(scope)) return 0;
    if (!PyUnicode_CompareWithASCIIString(scope, "Column")) return 1;
    if (!PyUnicode_CompareWithASCIIString(scope, "Row")) return 2;
    if (!PyUnicode_CompareWithASCIIString(scope, "Both")) return 3;
    return 0;
}

/* The text of the cell at (row, col) among the sorted cells (the last of
 * equal places, as a dict of them keeps), or NULL. */
static PyObject *finish_text_at(const FinishCell *cells, Py_ssize_t n, long long row, long long col) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) { /* the first cell past (row, col) */
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (cells[mid].row < row || (cells[mid].row == row && cells[mid].col <= col)) lo = mid + 1;
        else hi = mid;
    }
    return lo && cells[lo - 1].row == row && cells[lo - 1].col == col ? cells[lo - 1].text : NULL;
}

/* The labels of a cell whose place /Headers names its heads (`named` the
 * /IDs): the non-empty texts of the cells `ids` places them at. */
static PyObject *finish_named(const FinishCell *cells, Py_ssize_t n, PyObject *named, PyObject *ids) {
    PyObject *list = PyList_New(0), *seq = list ? PySequence_Fast(named, "table_finish: /Headers") : NULL;
    int failed = !seq;
    for (Py_ssize_t i = 0; !failed && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *at = PyDict_GetItemWithError(ids, PySequence_Fast_GET_ITEM(seq, i)); /* borrowed */
        if (!at) { failed = PyErr_Occurred() != NULL; continue; }
        long long place[2];
        if (!PyTuple_Check(at) || PyTuple_GET_SIZE(at) != 2) { failed = 1; PyErr_SetString(PyExc_ValueError, "table_finish: ids hold places"); break; }
        for (int j = 0; j < 2; j++) {
            int overflow = 0;
            place[j] = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(at, j), &overflow);
            if (overflow) place[j] = LLONG_MAX;
        }
        if (PyErr_Occurred()) { failed = 1; break; }
        PyObject *text = finish_text_at(cells, n, place[0], place[1]);
        int keep = text ? PyObject_IsTrue(text) : 0;
        if (keep < 0 || (keep && PyList_Append(list, text) < 0)) failed = 1;
    }
    Py_XDECREF(seq);
    PyObject *labels = failed ? NULL : PyList_AsTuple(list);
    Py_XDECREF(list);
    return labels;
}

/* Each cell's labels (tables._labels): the column heads whose columns
 * overlap its own above it, then the row heads whose rows overlap its own
 * before it, each in the heads' order; /Headers in their place. `heads`
 * holds the positions of the heads in `cells`, column heads from 0,
 * row heads from `n_column` to `n_heads`. 0, or -1 with an exception set. */
static int finish_labels(FinishCell *cells, Py_ssize_t n, const Py_ssize_t *heads, Py_ssize_t n_column,
                         Py_ssize_t n_heads, PyObject *named, PyObject *ids) {
    for (Py_ssize_t k = 0; k < n; k++) {
        FinishCell *c = &cells[k];
        PyObject *named_ids;
        if (finish_at_place(c, named, &named_ids) < 0) return -1;
        if (named_ids) {
            if (!(c->labels = finish_named(cells, n, named_ids, ids))) return -1;
            continue;
        }
        Py_ssize_t count = 0, h;
        for (int pass = 0; pass < 2; pass++) {
            for (h = 0; h < n_heads; h++) {
                const FinishCell *head = &cells[heads[h]];
                int over = h < n_column
                    ? head->col < c->col + c->col_span && c->col < head->col + head->col_span && head->row < c->row
                    : head->row < c->row + c->row_span && c->row < head->row + head->row_span && head->col < c->col;
                if (!over) continue;
                if (pass) PyTuple_SET_ITEM(c->labels, count, Py_NewRef(head->text));
                count++;
            }
            if (!pass && !(c->labels = PyTuple_New(count))) return -1;
            count = 0;
        }
    }
    return 0;
}

/* The header cells with text that label others, column heads first (their
 * positions in `heads`, the count of column heads in *n_column): the
 * count, -1 with an exception set. A cell scoped Both heads its column and
 * its row: `heads` holds room for 2n. */
static Py_ssize_t finish_heads(const FinishCell *cells, Py_ssize_t n, PyObject *scopes, long long header_rows,
                               Py_ssize_t *heads, Py_ssize_t *n_column) {
    Py_ssize_t count = 0;
    unsigned char *scope = PyMem_Malloc((size_t)n + 1);
    if (!scope) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t k = 0; k < n; k++) {
        scope[k] = 0;
        if (!cells[k].header) continue;
        int text = PyObject_IsTrue(cells[k].text), s = text > 0 ? finish_scope(&cells[k], scopes, header_rows) : text;
        if (s < 0) { PyMem_Free(scope); return -1; }
        scope[k] = (unsigned char)s;
    }
    for (int axis = 1; axis <= 2; axis++) {
        for (Py_ssize_t k = 0; k < n; k++)
            if (scope[k] & axis) heads[count++] = k;
        if (axis == 1) *n_column = count;
    }
    PyMem_Free(scope);
    return count;
}

/* The finished cells: each rebuilt (a frozen row of `cls`) where its text
 * was joined or its labels change, else itself. A new tuple or NULL. */
static PyObject *finish_rows(PyObject *mod, PyObject *cls, PyObject *fields, const FinishCell *cells, Py_ssize_t n,
                             const Py_ssize_t *offsets) {
    PyObject *out = PyTuple_New(n), *columns[CELL_FIELDS] = {NULL};
    Py_ssize_t *changed = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 1)), count = 0;
    int failed = !out || !changed;
    if (!changed && out) PyErr_NoMemory();
    for (Py_ssize_t k = 0; !failed && k < n; k++) {
        int differs = cells[k].text != CELL_FIELD(cells[k].cell, offsets, FC_TEXT);
        if (!differs && cells[k].labels) {
            differs = PyObject_RichCompareBool(CELL_FIELD(cells[k].cell, offsets, FC_LABELS), cells[k].labels, Py_NE);
            if (differs < 0) failed = 1;
        }
        if (differs > 0) changed[count++] = k;
        else if (!failed) PyTuple_SET_ITEM(out, k, Py_NewRef(cells[k].cell));
    }
    for (int c = 0; !failed && c < CELL_FIELDS; c++)
        if (!(columns[c] = PyList_New(count))) failed = 1;
    for (Py_ssize_t i = 0; !failed && i < count; i++) {
        const FinishCell *f = &cells[changed[i]];
        for (int c = 0; c < CELL_FIELDS; c++) {
            PyObject *value = c == FC_TEXT ? f->text : c == FC_LABELS && f->labels ? f->labels : CELL_FIELD(f->cell, offsets, c);
            if (!value) { failed = 1; PyErr_SetString(PyExc_AttributeError, "table_finish: a cell field unset"); break; }
            PyList_SET_ITEM(columns[c], i, Py_NewRef(value));
        }
    }
    PyObject *rows = failed ? NULL : cell_rows(mod, cls, fields, columns);
    for (Py_ssize_t i = 0; rows && i < count; i++) PyTuple_SET_ITEM(out, changed[i], Py_NewRef(PyTuple_GET_ITEM(rows, i)));
    if (!rows) Py_CLEAR(out);
    Py_XDECREF(rows);
    for (int c = 0; c < CELL_FIELDS; c++) Py_XDECREF(columns[c]);
    PyMem_Free(changed);
    return out;
}

/* The distinct pages of the cells, ascending, as a tuple. */
static PyObject *finish_pages(const FinishCell *cells, Py_ssize_t n, const Py_ssize_t *offsets) {
    PyObject *set = PySet_New(NULL);
    for (Py_ssize_t k = 0; set && k < n; k++)
        if (PySet_Add(set, CELL_FIELD(cells[k].cell, offsets, FC_PAGE)) < 0) Py_CLEAR(set);
    PyObject *list = set ? PySequence_List(set) : NULL;
    Py_XDECREF(set);
    if (!list || PyList_Sort(list) < 0) { Py_XDECREF(list); return NULL; }
    PyObject *pages = PyList_AsTuple(list);
    Py_DECREF(list);
    return pages;
}

/* table_finish(cls, fields, cells, join, heads, named, ids, has_slots, relabel)
 *   -> None or (cells, header_rows, pages): tables._reference_finished_cells
 * in one call. cells: TableCells (`cls`, `fields` its twelve fields in order);
 * join: cells of one place joined (tables._joined_cells); heads, named, ids:
 * TableGrids.heads_of, named_of and ids_of of the table (empty dicts without
 * grids); has_slots: TableGrids.has_slots; relabel: labels attached. The
 * cells sorted by (row, col) (stable), header rows counted, labels attached
 * (a cell rebuilt only where its text or labels change), and the distinct
 * pages ascending. None where the reference must finish: a cell not exactly
 * `cls` with its fields in slots, or a place not an int within 2**40. */
static PyObject *core_table_finish(PyObject *mod, PyObject *args) {
    PyObject *cls, *fields, *cells_obj, *heads, *named, *ids;
    int join, has_slots, relabel;
    if (!PyArg_ParseTuple(args, "O!O!OpO!O!O!pp", &PyType_Type, &cls, &PyTuple_Type, &fields, &cells_obj, &join,
                          &PyDict_Type, &heads, &PyDict_Type, &named, &PyDict_Type, &ids, &has_slots, &relabel))
        return NULL;
    if (PyTuple_GET_SIZE(fields) != CELL_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "table_finish: twelve fields");
        return NULL;
    }
    Py_ssize_t offsets[CELL_FIELDS];
    member_offsets((PyTypeObject *)cls, &PyTuple_GET_ITEM(fields, 0), CELL_FIELDS, offsets);
    if (offsets[0] <= 0) Py_RETURN_NONE;
    PyObject *cells = PySequence_Fast(cells_obj, "table_finish: cells are a sequence"), *result = NULL;
    if (!cells) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(cells), *head_at = NULL;
    FinishCell *f = PyMem_Calloc((size_t)n + 1, sizeof(FinishCell));
    head_at = PyMem_Malloc(sizeof(Py_ssize_t) * (2 * (size_t)n + 1)); /* a Both head is listed twice */
    if (!f || !head_at) { PyErr_NoMemory(); goto done; }
    int ok = finish_read(cells, (PyTypeObject *)cls, offsets, f);
    if (ok <= 0) { result = ok < 0 ? NULL : Py_NewRef(Py_None); goto done; }
    /* Cells come row by row (a tagged piece in tree order, a merged table
     * page by page): sorted already, they are not sorted again. */
    int sorted = 1;
    for (Py_ssize_t k = 1; sorted && k < n; k++) sorted = finish_cell_order(&f[k - 1], &f[k]) < 0;
    if (!sorted) qsort(f, (size_t)n, sizeof(FinishCell), finish_cell_order);
    Py_ssize_t kept = join ? finish_join(f, n) : n;
    if (kept < 0) goto done;
    long long header_rows = finish_header_rows(f, kept);
    if (relabel) {
        Py_ssize_t n_column = 0, n_heads = finish_heads(f, kept, heads, header_rows, head_at, &n_column);
        if (n_heads < 0) goto done;
        if ((n_heads || has_slots) && finish_labels(f, kept, head_at, n_column, n_heads, named, ids) < 0) goto done;
        if (!n_heads && !has_slots) {
            PyObject *none = PyTuple_New(0);
            if (!none) goto done;
            for (Py_ssize_t k = 0; k < kept; k++) f[k].labels = Py_NewRef(none);
            Py_DECREF(none);
        }
    }
    PyObject *rows = finish_rows(mod, cls, fields, f, kept, offsets), *pages = rows ? finish_pages(f, kept, offsets) : NULL;
    result = pages ? Py_BuildValue("(NLN)", rows, header_rows, pages) : NULL;
    if (!pages) Py_XDECREF(rows);
done:
    for (Py_ssize_t k = 0; f && k < n; k++) {
        Py_XDECREF(f[k].text);
        Py_XDECREF(f[k].labels);
    }
    PyMem_Free(f);
    PyMem_Free(head_at);
    Py_DECREF(cells);
    return result;
}

/* ---- a page's tagged tables in one call (tables.structure_tables) */

enum { TABLE_FIELDS = 8, TABLE_INFO = 7 };

/* A table of a page (page_tables): its group, where its cells start in the
 * page's cell columns, and its header rows. */
typedef struct { Py_ssize_t group, lo; long long header_rows; int64_t least, first; } PageTable;

static int page_table_order(const void *a, const void *b) {
    const PageTable *x = a, *y = b;
    if (x->least != y->least) return x->least < y->least ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The cells of one group finished as tables._finish finishes a piece (no
 * join: a page's piece holds each slot once): read as FinishCells (`texts`
 * theirs, borrowed), sorted by place (stable), header rows counted and
 * labels attached by `info`'s heads, named and /ID maps (the table has
 * slots). 1; 0 when a place is no int within FINISH_LIMIT (the reference
 * finishes); -1 with an exception set. */
static int page_finish(const PageGroups *g, const CellGroup *group, PyObject *const *texts, PyObject *info,
                       FinishCell *f, Py_ssize_t *head_at, long long *header_rows) {
    Py_ssize_t n = group->end - group->start;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t s = (Py_ssize_t)g->slot[g->pairs[group->start + j].position];
        long long v[4];
        for (int c = 0; c < 4; c++) {
            PyObject *value = PyList_GET_ITEM(g->places[c], s);
            int overflow = 0;
            if (!PyLong_CheckExact(value)) return 0;
            v[c] = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (v[c] == -1 && PyErr_Occurred()) return -1;
            if (overflow || v[c] > FINISH_LIMIT || v[c] < -FINISH_LIMIT) return 0;
        }
        int header = PyObject_IsTrue(PyList_GET_ITEM(g->places[4], s));
        if (header < 0) return -1;
        f[j] = (FinishCell){v[0], v[1], v[2], v[3], j, header, 0, NULL, texts[group->start + j], NULL,
                            {PyList_GET_ITEM(g->places[0], s), PyList_GET_ITEM(g->places[1], s)}};
    }
    int sorted = 1;
    for (Py_ssize_t k = 1; sorted && k < n; k++) sorted = finish_cell_order(&f[k - 1], &f[k]) < 0;
    if (!sorted) qsort(f, (size_t)n, sizeof(FinishCell), finish_cell_order);
    *header_rows = finish_header_rows(f, n);
    PyObject *heads = PyTuple_GET_ITEM(info, 4), *named = PyTuple_GET_ITEM(info, 5), *ids = PyTuple_GET_ITEM(info, 6);
    if (!PyDict_Check(heads) || !PyDict_Check(named) || !PyDict_Check(ids)) {
        PyErr_SetString(PyExc_TypeError, "page_tables: heads, named and ids are dicts");
        return -1;
    }
    Py_ssize_t n_column = 0, n_heads = finish_heads(f, n, heads, *header_rows, head_at, &n_column);
    if (n_heads < 0 || finish_labels(f, n, head_at, n_column, n_heads, named, ids) < 0) return -1;
    return 1;
}

/* What a page's TableCells are made with: their class, its twelve fields'
 * slots (member_offsets) and the empty tuple tp_new takes. */
typedef struct { PyTypeObject *cls; Py_ssize_t slots[CELL_FIELDS]; PyObject *empty; } CellMaker;

/* Cell `at` of the page's cells (a tuple): a frozen row (slotted_row) of
 * position k's place (slot s), `labels` (stolen), `text`, `page`, and its
 * box, MCIDs and span, in TableCell's field order. 0, or -1 with an
 * exception set. */
static int page_table_cell(PyObject *cells, Py_ssize_t at, const CellMaker *m, const PageGroups *g, Py_ssize_t k,
                           PyObject *labels, PyObject *text, PyObject *page) {
    Py_ssize_t s = (Py_ssize_t)g->slot[k];
    PyObject *values[CELL_FIELDS] = {
        PyList_GET_ITEM(g->places[0], s), PyList_GET_ITEM(g->places[1], s), PyList_GET_ITEM(g->places[2], s),
        PyList_GET_ITEM(g->places[3], s), PyList_GET_ITEM(g->places[4], s), labels, text, page,
        PySequence_Fast_GET_ITEM(g->columns[3], k), PySequence_Fast_GET_ITEM(g->columns[4], k),
        PySequence_Fast_GET_ITEM(g->columns[1], k), PySequence_Fast_GET_ITEM(g->columns[2], k),
    };
    PyObject *row = slotted_row(m->cls, m->empty, m->slots, values, CELL_FIELDS);
    Py_DECREF(labels);
    if (!row) return -1;
    PyTuple_SET_ITEM(cells, at, row);
    return 0;
}

/* The page's cells (a tuple), table after table (`order`'s tables, in group
 * order): a table finished here (`labels`, or only one page shows it: its
 * info's flag) in page_finish's order with its labels, else its cells in
 * page order, unlabelled. 1, 0 (the reference finishes), or -1. */
static int page_table_cells(PyObject *cells, const CellMaker *m, const PageGroups *g, PyObject *const *texts,
                            PyObject *info, int labels, PyObject *page, PageTable *order, FinishCell *f,
                            Py_ssize_t *head_at) {
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < g->n_groups; k++) {
        const CellGroup *group = &g->groups[k];
        PyObject *table = PyList_GET_ITEM(info, (Py_ssize_t)g->pairs[group->start].cell);
        if (!PyTuple_Check(table) || PyTuple_GET_SIZE(table) != TABLE_INFO) return table == Py_None ? 0 : -1;
        int whole = labels ? 1 : PyObject_IsTrue(PyTuple_GET_ITEM(table, 3));
        if (whole < 0) return -1;
        order[k] = (PageTable){k, at, 0, group->least, group->first};
        Py_ssize_t n = group->end - group->start;
        if (whole) {
            int ok = page_finish(g, group, texts, table, f, head_at, &order[k].header_rows);
            for (Py_ssize_t j = 0; ok > 0 && j < n; j++, at++) {
                Py_ssize_t i = group->start + f[j].at;
                PyObject *cell_labels = f[j].labels;
                f[j].labels = NULL;
                if (page_table_cell(cells, at, m, g, (Py_ssize_t)g->pairs[i].position, cell_labels, texts[i], page) < 0)
                    ok = -1;
            }
            for (Py_ssize_t j = 0; ok <= 0 && j < n; j++) Py_CLEAR(f[j].labels);
            if (ok <= 0) return ok;
        } else {
            for (Py_ssize_t i = group->start; i < group->end; i++, at++)
                if (page_table_cell(cells, at, m, g, (Py_ssize_t)g->pairs[i].position, Py_NewRef(m->empty), texts[i],
                                    page) < 0)
                    return -1;
        }
    }
    return 1;
}

/* The page's Tables in `order` (sorted): frozen rows of `table_cls`
 * (`table_fields` its eight fields): each its info's table_id, `source`,
 * its info's rows and columns, its header rows, (page,), its cells (a slice
 * of `cells`) and no repeats. A new tuple or NULL. */
static PyObject *page_table_rows(PyObject *mod, PyObject *table_cls, PyObject *table_fields, PyObject *source,
                                 PyObject *info, const PageGroups *g, const PageTable *order, PyObject *cells,
                                 PyObject *page) {
    Py_ssize_t count = g->n_groups;
    PyObject *columns = PyTuple_New(TABLE_FIELDS), *pages = PyTuple_Pack(1, page), *empty = PyTuple_New(0);
    int failed = !columns || !pages || !empty;
    for (int c = 0; !failed && c < TABLE_FIELDS; c++) {
        PyObject *column = PyList_New(count);
        if (!column) { failed = 1; break; }
        PyTuple_SET_ITEM(columns, c, column);
    }
    for (Py_ssize_t k = 0; !failed && k < count; k++) {
        const PageTable *t = &order[k];
        const CellGroup *group = &g->groups[t->group];
        PyObject *table = PyList_GET_ITEM(info, (Py_ssize_t)g->pairs[group->start].cell);
        PyObject *rows = PyLong_FromLongLong(t->header_rows);
        PyObject *mine = rows ? PyTuple_GetSlice(cells, t->lo, t->lo + group->end - group->start) : NULL;
        if (!mine) { Py_XDECREF(rows); failed = 1; break; }
        PyObject *values[TABLE_FIELDS] = {Py_NewRef(PyTuple_GET_ITEM(table, 0)), Py_NewRef(source),
                                          Py_NewRef(PyTuple_GET_ITEM(table, 1)), Py_NewRef(PyTuple_GET_ITEM(table, 2)),
                                          rows, Py_NewRef(pages), mine, Py_NewRef(empty)};
        for (int c = 0; c < TABLE_FIELDS; c++) PyList_SET_ITEM(PyTuple_GET_ITEM(columns, c), k, values[c]);
    }
    Py_XDECREF(pages);
    Py_XDECREF(empty);
    PyObject *row_args = failed ? NULL : Py_BuildValue("(OOO)", table_cls, table_fields, columns);
    Py_XDECREF(columns);
    PyObject *tables = row_args ? core_frozen_rows(mod, row_args) : NULL;
    Py_XDECREF(row_args);
    return tables;
}

/* page_tables(cell_cls, cell_fields, table_cls, table_fields, source, contents, slot_of, slot_table, info,
 *             places, page_text, page, labels) -> None or a tuple of Tables:
 * tables._reference_structure_tables in one call. contents, slot_of,
 * slot_table and places as page_cells takes them; info: per table position
 * (TableGrids.page_tables), None or (table_id, rows, columns, only one page
 * shows it, heads, named, ids: TableGrids' maps of the table, dicts). The
 * pieces of the tables the page shows, in the order their cells' least
 * char_start comes (then the order each first comes): Tables (`table_cls`,
 * `table_fields` its eight fields) of `source` whose cells are TableCells
 * (`cell_cls`, `cell_fields`) with the text of their span; a table finished
 * here (`labels`, or only one page shows it) has its cells sorted by place,
 * its header rows counted and its cells labelled, else its cells come in
 * page order, unlabelled. The cells are made one by one as frozen rows
 * (slotted_row), no column of each field first. () when no cell has a
 * slot; None where the reference must build them (`cell_cls` without its
 * fields in slots, a shown table's info None, a place no int within
 * 2**40). Every index read is checked against its array's length. */
static PyObject *core_page_tables(PyObject *mod, PyObject *args) {
    PyObject *cell_cls, *cell_fields, *table_cls, *table_fields, *source, *contents, *slot_of_obj, *slot_table_obj;
    PyObject *info, *places_obj, *page_text, *page;
    int labels;
    if (!PyArg_ParseTuple(args, "O!O!O!O!UO!OOO!O!UOp", &PyType_Type, &cell_cls, &PyTuple_Type, &cell_fields,
                          &PyType_Type, &table_cls, &PyTuple_Type, &table_fields, &source, &PyTuple_Type, &contents,
                          &slot_of_obj, &slot_table_obj, &PyList_Type, &info, &PyTuple_Type, &places_obj, &page_text,
                          &page, &labels))
        return NULL;
    if (PyTuple_GET_SIZE(cell_fields) != CELL_FIELDS || PyTuple_GET_SIZE(table_fields) != TABLE_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "page_tables: twelve cell fields and eight table fields");
        return NULL;
    }
    CellMaker m = {(PyTypeObject *)cell_cls, {-1}, NULL};
    member_offsets(m.cls, &PyTuple_GET_ITEM(cell_fields, 0), CELL_FIELDS, m.slots);
    if (m.slots[0] <= 0) Py_RETURN_NONE;
    PageGroups g = {0};
    PyObject **texts = NULL, *result = NULL, *cells = NULL;
    PageTable *order = NULL;
    FinishCell *f = NULL;
    Py_ssize_t *head_at = NULL;
    if (page_groups(&g, contents, slot_of_obj, slot_table_obj, places_obj, PyList_GET_SIZE(info)) < 0) goto done;
    if (!g.shown) { result = PyTuple_New(0); goto done; }
    texts = PyMem_Calloc((size_t)g.shown, sizeof(PyObject *));
    order = PyMem_Malloc(sizeof(PageTable) * (size_t)g.n_groups);
    f = PyMem_Calloc((size_t)g.shown, sizeof(FinishCell));
    head_at = PyMem_Malloc(sizeof(Py_ssize_t) * (2 * (size_t)g.shown + 1)); /* a Both head is listed twice */
    if (!texts || !order || !f || !head_at) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < g.shown; i++) {
        Py_ssize_t k = (Py_ssize_t)g.pairs[i].position;
        PyObject *known = g.columns[5] ? PySequence_Fast_GET_ITEM(g.columns[5], k) : NULL;
        if (!(texts[i] = table_cell_text(page_text, (Py_ssize_t)g.starts[k], (Py_ssize_t)g.ends[k], known))) goto done;
    }
    if (!(m.empty = PyTuple_New(0)) || !(cells = PyTuple_New(g.shown))) goto done;
    int ok = page_table_cells(cells, &m, &g, texts, info, labels, page, order, f, head_at);
    if (ok <= 0) {
        if (!ok) result = Py_NewRef(Py_None);
        else if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "page_tables: a table's info is None or a 7-tuple");
        goto done;
    }
    qsort(order, (size_t)g.n_groups, sizeof(PageTable), page_table_order);
    result = page_table_rows(mod, table_cls, table_fields, source, info, &g, order, cells, page);
done:
    Py_XDECREF(cells);
    Py_XDECREF(m.empty);
    for (Py_ssize_t i = 0; texts && i < g.shown; i++) Py_XDECREF(texts[i]);
    PyMem_Free(texts);
    PyMem_Free(order);
    PyMem_Free(f);
    PyMem_Free(head_at);
    page_groups_free(&g);
    return result;
}

/* cells_by_page(cls, cells) -> None or {page: cells}: tables._reference_by_page
 * in one call. cells: TableCells (`cls`, its fields in slots); per page, in
 * the order each first comes, its cells in their order (a tuple; `cells`
 * itself when all lie on one page and it is a tuple). None when a cell is
 * not exactly `cls` (the reference groups them). */
static PyObject *core_cells_by_page(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *cls, *cells_obj;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &cls, &cells_obj)) return NULL;
    PyObject *name = PyUnicode_InternFromString("page");
    if (!name) return NULL;
    Py_ssize_t offset[1];
    member_offsets((PyTypeObject *)cls, &name, 1, offset);
    Py_DECREF(name);
    if (offset[0] <= 0) Py_RETURN_NONE;
    PyObject *cells = PySequence_Fast(cells_obj, "cells_by_page: cells are a sequence");
    if (!cells) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(cells);
    PyObject *groups = PyDict_New(), *result = NULL;
    int same = 1;
    for (Py_ssize_t k = 0; groups && k < n; k++) {
        PyObject *cell = PySequence_Fast_GET_ITEM(cells, k), *page = NULL;
        if (!Py_IS_TYPE(cell, (PyTypeObject *)cls) || !(page = CELL_FIELD(cell, offset, 0))) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        if (same && k) {
            int equal = PyObject_RichCompareBool(page, CELL_FIELD(PySequence_Fast_GET_ITEM(cells, 0), offset, 0), Py_EQ);
            if (equal < 0) goto done;
            same = equal;
            if (same) continue;
            /* the first page's cells so far, as one list */
            PyObject *first = PyList_New(k);
            for (Py_ssize_t i = 0; first && i < k; i++) PyList_SET_ITEM(first, i, Py_NewRef(PySequence_Fast_GET_ITEM(cells, i)));
            int stored = first ? PyDict_SetItem(groups, CELL_FIELD(PySequence_Fast_GET_ITEM(cells, 0), offset, 0), first) : -1;
            Py_XDECREF(first);
            if (stored < 0) goto done;
        }
        if (same) continue;
        PyObject *list = PyDict_GetItemWithError(groups, page); /* borrowed */
        if (!list) {
            if (PyErr_Occurred() || !(list = PyList_New(0))) goto done;
            int stored = PyDict_SetItem(groups, page, list);
            Py_DECREF(list);
            if (stored < 0) goto done;
        }
        if (PyList_Append(list, cell) < 0) goto done;
    }
    if (!groups) goto done;
    if (same && n) {
        PyObject *all = PyTuple_Check(cells_obj) ? Py_NewRef(cells_obj) : PyList_AsTuple(cells);
        int stored = all ? PyDict_SetItem(groups, CELL_FIELD(PySequence_Fast_GET_ITEM(cells, 0), offset, 0), all) : -1;
        Py_XDECREF(all);
        if (stored < 0) goto done;
    } else {
        PyObject *page, *list;
        Py_ssize_t at = 0;
        while (PyDict_Next(groups, &at, &page, &list)) {
            PyObject *tuple = PyList_AsTuple(list);
            if (!tuple || PyDict_SetItem(groups, page, tuple) < 0) { Py_XDECREF(tuple); goto done; }
            Py_DECREF(tuple);
        }
    }
    result = Py_NewRef(groups);
done:
    Py_XDECREF(groups);
    Py_DECREF(cells);
    return result;
}

/* An index into an array of n items as numpy takes it (a negative one counts
 * from the end); -1 with IndexError set past either end. */
static Py_ssize_t numpy_index(int64_t k, Py_ssize_t n, const char *what) {
    if (k < 0) k += n;
    if (k < 0 || k >= (int64_t)n) {
        PyErr_Format(PyExc_IndexError, "on_one_page: %s index out of range", what);
        return -1;
    }
    return (Py_ssize_t)k;
}

/* on_one_page(cell_of, slot_of, slot_table, element, page, n_tables) -> (list, list):
 * tables._reference_cell_placement in one pass. Per piece of the tree's marked
 * content (element, page: its element and its row of the page keys), the
 * cell at or above its element (cell_of), that cell's slot (slot_of) and the
 * slot's table (slot_table, a position below n_tables). The positions,
 * ascending, of the tables all of whose content in a cell lies on one page
 * (a page >= 0); and the pages of the content in a cell (each at least once,
 * a page not repeated next to itself). Indices are taken as numpy takes them
 * (negative from the end), IndexError past either end. */
static PyObject *core_on_one_page(PyObject *mod, PyObject *args) {
    (void)mod;
    enum { CELL_OF, SLOT_OF, SLOT_TABLE, ELEMENT, PAGE, NV };
    PyObject *o[NV];
    Py_ssize_t n_tables;
    if (!PyArg_ParseTuple(args, "OOOOOn", &o[0], &o[1], &o[2], &o[3], &o[4], &n_tables)) return NULL;
    static const char *const names[NV] = {"cell_of", "slot_of", "slot_table", "element", "page"};
    View v[NV] = {{0}};
    int64_t *first = NULL;
    unsigned char *mixed = NULL;
    PyObject *result = NULL, *pages = NULL, *tables = NULL;
    for (int i = 0; i < NV; i++)
        if (get_view(o[i], &v[i], "l", 8, names[i]) < 0) goto done;
    Py_ssize_t n = v[ELEMENT].view.len / 8;
    if (v[PAGE].view.len / 8 != n || n_tables < 0) {
        PyErr_SetString(PyExc_ValueError, "on_one_page: an element and a page per piece of content");
        goto done;
    }
    /* A count no buffer holds: n_tables + 1 would overflow, or its bytes wrap to a few. */
    if ((size_t)n_tables >= PY_SSIZE_T_MAX / sizeof(int64_t)) { PyErr_NoMemory(); goto done; }
    first = PyMem_Malloc(sizeof(int64_t) * (size_t)(n_tables + 1));
    mixed = PyMem_Calloc((size_t)n_tables + 1, 1);
    if (!first || !mixed) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t t = 0; t < n_tables; t++) first[t] = -1;
    const int64_t *cell_of = v[CELL_OF].view.buf, *slot_of = v[SLOT_OF].view.buf, *slot_table = v[SLOT_TABLE].view.buf;
    const int64_t *element = v[ELEMENT].view.buf, *page = v[PAGE].view.buf;
    unsigned char *seen = mixed; /* bit 1: a first page taken; bit 2: mixed */
    if (!(pages = PyList_New(0))) goto done;
    int64_t last_page = 0; /* the page last listed (pages not empty) */
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t e = numpy_index(element[k], v[CELL_OF].view.len / 8, "element");
        if (e < 0) goto done;
        if (cell_of[e] < 0) continue; /* content outside every cell */
        Py_ssize_t c = numpy_index(cell_of[e], v[SLOT_OF].view.len / 8, "cell");
        Py_ssize_t s = c < 0 ? -1 : numpy_index(slot_of[c], v[SLOT_TABLE].view.len / 8, "slot");
        Py_ssize_t t = s < 0 ? -1 : numpy_index(slot_table[s], n_tables, "table");
        if (t < 0) goto done;
        if (!(seen[t] & 1)) { seen[t] |= 1; first[t] = page[k]; }
        else if (page[k] != first[t]) seen[t] |= 2;
        if (!PyList_GET_SIZE(pages) || page[k] != last_page) {
            PyObject *row = PyLong_FromLongLong((long long)page[k]);
            int failed = !row || PyList_Append(pages, row) < 0;
            Py_XDECREF(row);
            if (failed) goto done;
            last_page = page[k];
        }
    }
    tables = PyList_New(0);
    for (Py_ssize_t t = 0; tables && t < n_tables; t++) {
        if ((seen[t] & 2) || !(seen[t] & 1) || first[t] < 0) continue;
        PyObject *position = PyLong_FromSsize_t(t);
        if (!position || PyList_Append(tables, position) < 0) Py_CLEAR(tables);
        Py_XDECREF(position);
    }
    if (tables) result = PyTuple_Pack(2, tables, pages);
done:
    Py_XDECREF(tables);
    Py_XDECREF(pages);
    PyMem_Free(first);
    PyMem_Free(mixed);
    for (int i = 0; i < NV; i++) release(&v[i]);
    return result;
}

/* ---- the tagged tables' grids, laid out once per document (tables.table_grids)
 *
 * The table parts of §14.8.4.3.4 as numbers: tables._TABLE_PARTS (the row
 * groups last, THead first among them). */
enum { GL_TABLE = 1, GL_TR = 2, GL_TH = 3, GL_TD = 4, GL_THEAD = 5 };

/* Where grid_parts puts what it finds: per element its nearest Table at or
 * above (table_of), the TR that starts its row and the TH/TD that starts its
 * cell (-1 when a Table comes first: a table begins with no row or cell
 * open), whether the nearest Table or row group at or above is a THead, and
 * its table part; rank[] -1 at each Table; the row starts (a TR inside a
 * table) and cell starts (a TH/TD inside a row), each in tree order. */
typedef struct {
    int64_t *table_of, *row_of, *cell_of, *rank, *rows, *cells;
    unsigned char *in_thead, *part;
    Py_ssize_t n_rows, n_cells;
} GridParts;

/* Element i, a Table or under one (its parent `q` seen): its GridParts
 * entries, from its parent's. */
static inline __attribute__((always_inline)) void grid_part(GridParts *gp, Py_ssize_t i, int64_t q) {
    int p = gp->part[i];
    if (p == GL_TABLE) {
        gp->table_of[i] = (int64_t)i;
        gp->row_of[i] = gp->cell_of[i] = -1;
        gp->in_thead[i] = 0;
        gp->rank[i] = -1;
        return;
    }
    int64_t up_table = gp->table_of[q], up_row = gp->row_of[q], up_cell = gp->cell_of[q];
    gp->table_of[i] = up_table;
    gp->row_of[i] = p == GL_TR && up_table >= 0 ? (int64_t)i : up_row;
    gp->cell_of[i] = (p == GL_TH || p == GL_TD) && gp->row_of[i] >= 0 ? (int64_t)i : up_cell;
    gp->in_thead[i] = p >= GL_THEAD ? p == GL_THEAD : gp->in_thead[q];
    if (p == GL_TR && gp->row_of[i] == (int64_t)i) gp->rows[gp->n_rows++] = (int64_t)i;
    else if (gp->cell_of[i] == (int64_t)i) gp->cells[gp->n_cells++] = (int64_t)i;
}

/* GridParts of every element, one pass down the tree (a parent comes
 * before its kids). An element under no Table (its parent under none, and
 * itself no Table) has none above it: -1 in table_of, row_of and cell_of (a
 * row or cell starts only inside a table), nothing more to read. -1 when a
 * parent does not come before its kid or a type has no part (the caller
 * runs the reference), else the Tables seen. */
static Py_ssize_t grid_parts(Py_ssize_t n, const int64_t *parent, const int64_t *type, const unsigned char *parts,
                             Py_ssize_t n_types, GridParts *gp) {
    Py_ssize_t tables = 0;
    gp->n_rows = gp->n_cells = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t q = parent[i], t = type[i];
        if (q < -1 || q >= (int64_t)i || t < 0 || t >= (int64_t)n_types) return -1;
        int p = gp->part[i] = parts[t];
        if (p != GL_TABLE && (q < 0 || gp->table_of[q] < 0)) {
            gp->table_of[i] = gp->row_of[i] = gp->cell_of[i] = -1;
            continue;
        }
        tables += p == GL_TABLE;
        grid_part(gp, i, q);
    }
    return tables;
}

/* The grids' order (tables._tables_by_rows): the tables that have a row, in
 * the order their first row comes (rank, per Table element; table_el, per
 * rank), each row's index in its table (row_index, per TR), and the cells
 * (TH/TD elements that start a cell) sorted stably by their row's place
 * among all rows grouped by table: cells[], cell_row[] (their row in their
 * table), bounds[] (per table where its cells start, then the end). Read
 * off grid_parts' row and cell starts (no pass over the other elements).
 * 0; -1 out of memory. */
typedef struct {
    Py_ssize_t n_tables, n_cells;
    int64_t *table_el, *n_rows, *bounds, *cells, *cell_row;
} GridOrder;

static int grid_order(const GridParts *gp, int64_t *row_index, GridOrder *g) {
    const int64_t *table_of = gp->table_of, *row_of = gp->row_of;
    int64_t *rank = gp->rank;
    Py_ssize_t rows = gp->n_rows, cells = gp->n_cells;
    g->n_tables = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        int64_t i = gp->rows[r], t = table_of[i];
        if (rank[t] < 0) { g->table_el[g->n_tables] = t; g->n_rows[g->n_tables] = 0; rank[t] = g->n_tables++; }
        row_index[i] = g->n_rows[rank[t]]++;
    }
    /* Counting sort of the cells by (table rank, row index): a row's place among all rows. */
    int64_t *start = PyMem_Calloc((size_t)rows + 2, sizeof(int64_t)), *table_start = PyMem_Malloc(((size_t)g->n_tables + 1) * sizeof(int64_t));
    if (!start || !table_start) { PyMem_Free(start); PyMem_Free(table_start); PyErr_NoMemory(); return -1; }
    table_start[0] = 0;
    for (Py_ssize_t k = 0; k < g->n_tables; k++) table_start[k + 1] = table_start[k] + g->n_rows[k];
    for (Py_ssize_t c = 0; c < cells; c++) {
        int64_t i = gp->cells[c];
        start[table_start[rank[table_of[i]]] + row_index[row_of[i]] + 1]++;
    }
    for (Py_ssize_t r = 0; r < rows; r++) start[r + 1] += start[r];
    for (Py_ssize_t k = 0; k <= g->n_tables; k++) g->bounds[k] = start[table_start[k]];
    for (Py_ssize_t c = 0; c < cells; c++) {
        int64_t i = gp->cells[c], at = start[table_start[rank[table_of[i]]] + row_index[row_of[i]]]++;
        g->cells[at] = i;
        g->cell_row[at] = row_index[row_of[i]];
    }
    g->n_cells = cells;
    PyMem_Free(start);
    PyMem_Free(table_start);
    return 0;
}

/* A cell's /RowSpan, /ColSpan, /Scope, /Headers, /ID: its entry of the
 * tree's cells mapping, else (1, 1, None, (), None). 1 when read, 0 when a
 * span is no int64 (the caller runs the reference), -1 on an error. */
static int grid_attributes(PyObject *attributes, int64_t element, PyObject *no_cell, int64_t *row_span,
                           int64_t *col_span, PyObject **rest) {
    PyObject *cell = NULL;
    if (PyDict_GET_SIZE(attributes)) { /* most trees give no cell an attribute: no key made per cell */
        PyObject *key = PyLong_FromLongLong((long long)element);
        if (!key) return -1;
        cell = PyDict_GetItemWithError(attributes, key);
        Py_DECREF(key);
        if (!cell && PyErr_Occurred()) return -1;
    }
    cell = cell ? cell : no_cell;
    if (!PyTuple_Check(cell) || PyTuple_GET_SIZE(cell) != 5) {
        PyErr_SetString(PyExc_TypeError, "grid_layout: a cell's attributes are five items");
        return -1;
    }
    int overflow[2] = {0, 0};
    *row_span = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(cell, 0), &overflow[0]);
    if (PyErr_Occurred()) return -1;
    *col_span = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(cell, 1), &overflow[1]);
    if (PyErr_Occurred()) return -1;
    for (int c = 0; c < 3; c++) rest[c] = PyTuple_GET_ITEM(cell, 2 + c);
    /* Spans the reader gives (positive) that the placement adds without
     * overflow; the reference's Python ints take any other. */
    int64_t limit = (int64_t)1 << 40;
    return !overflow[0] && !overflow[1] && *row_span >= 1 && *row_span < limit && *col_span >= 1 && *col_span < limit;
}

/* Slots spanned down into from rows above, in one table: rows [from, to),
 * columns [left, right). */
typedef struct { int64_t from, to, left, right; } GridSpan;

/* The cells of one table, row by row (tables._spanned_slots): each takes
 * the first column of its row no cell above spans down into; its row span
 * is cut at the table's last row. cols[]/row_spans[] receive them; *width
 * the greatest col + col_span (0 for no cell). 1 when placed, 0 when a
 * column passes int64 (the caller runs the reference), -1 out of memory. */
static int grid_place(Py_ssize_t lo, Py_ssize_t hi, int64_t n_rows, const int64_t *cell_row, const int64_t *spans_down,
                      const int64_t *spans_across, int64_t *cols, int64_t *row_spans, int64_t *width) {
    GridSpan *open = NULL;
    Py_ssize_t n_open = 0, cap = 0;
    int64_t col = 0, row = -1;
    *width = 0;
    for (Py_ssize_t k = lo; k < hi; k++) {
        int64_t r = cell_row[k], across = spans_across[k];
        if (r != row) {
            col = 0, row = r;
            Py_ssize_t kept = 0; /* spans that end above this row go */
            for (Py_ssize_t s = 0; s < n_open; s++)
                if (open[s].to > r) open[kept++] = open[s];
            n_open = kept;
        }
        for (int moved = 1; moved;) {
            moved = 0;
            for (Py_ssize_t s = 0; s < n_open; s++)
                if (open[s].from <= r && open[s].left <= col && col < open[s].right) { col = open[s].right; moved = 1; }
        }
        int64_t down = spans_down[k] < n_rows - r ? spans_down[k] : n_rows - r, right;
        if (__builtin_add_overflow(col, across, &right)) { PyMem_Free(open); return 0; }
        if (down > 1) {
            if (n_open == cap) {
                cap = cap ? 2 * cap : 8;
                GridSpan *grown = PyMem_Realloc(open, (size_t)cap * sizeof(GridSpan));
                if (!grown) { PyMem_Free(open); PyErr_NoMemory(); return -1; }
                open = grown;
            }
            open[n_open++] = (GridSpan){r + 1, r + down, col, right};
        }
        cols[k] = col, row_spans[k] = down;
        *width = right > *width ? right : *width;
        col = right;
    }
    PyMem_Free(open);
    return 1;
}

/* Python ints of values[0:count] as a list; NULL on an error. */
static PyObject *int64_list(const int64_t *values, Py_ssize_t count) {
    PyObject *list = PyList_New(count);
    for (Py_ssize_t k = 0; list && k < count; k++) {
        PyObject *item = PyLong_FromLongLong((long long)values[k]);
        if (!item) { Py_CLEAR(list); break; }
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

enum { GL_FIELDS = 9 }; /* row, col, row_span, col_span, header, in_thead, scope, headers, element_id */

/* The slots' columns (GridSlot's fields after `table`) of the placed cells:
 * NULL on an error. */
static PyObject *grid_slot_columns(const GridOrder *g, const int64_t *cols, const int64_t *row_spans,
                                   const int64_t *spans_across, const unsigned char *part,
                                   const unsigned char *in_thead, PyObject *const *rest) {
    Py_ssize_t n = g->n_cells;
    PyObject *columns = PyTuple_New(GL_FIELDS);
    if (!columns) return NULL;
    const int64_t *numbers[4] = {g->cell_row, cols, row_spans, spans_across};
    for (int c = 0; c < 4; c++) {
        PyObject *list = int64_list(numbers[c], n);
        if (!list) { Py_DECREF(columns); return NULL; }
        PyTuple_SET_ITEM(columns, c, list);
    }
    for (int c = 4; c < GL_FIELDS; c++) {
        PyObject *list = PyList_New(n);
        if (!list) { Py_DECREF(columns); return NULL; }
        PyTuple_SET_ITEM(columns, c, list);
        for (Py_ssize_t k = 0; k < n; k++) {
            int64_t e = g->cells[k];
            PyObject *item = c == 4 ? (part[e] == GL_TH ? Py_True : Py_False)
                             : c == 5 ? (in_thead[e] ? Py_True : Py_False)
                                      : rest[3 * k + (c - 6)];
            PyList_SET_ITEM(list, k, Py_NewRef(item));
        }
    }
    return columns;
}

/* The layout's lists (ints, bools, None, str and tuples of str: no cycle
 * through them) are left alone by the cyclic collector: a document's grids
 * live while its pages are read, and every collection would walk their
 * thousands of items again. TableGrids never changes them. */
static void grid_untrack(PyObject *const *parts, int n_parts, PyObject *columns) {
    for (int i = 0; i < n_parts; i++) PyObject_GC_UnTrack(parts[i]);
    for (int c = 0; c < GL_FIELDS; c++) PyObject_GC_UnTrack(PyTuple_GET_ITEM(columns, c));
}

/* Every table's cells placed: per cell its spans read (grid_attributes) and
 * its slot (grid_place), cols[]/row_spans[]/spans_across[] filled, rest[]
 * the /Scope, /Headers and /ID of each; widths[] per table. 1 when placed, 0
 * when the reference must (a span or column past int64), -1 on an error. */
static int grid_cells(const GridOrder *g, PyObject *attributes, PyObject *no_cell, int64_t *spans_down,
                      int64_t *spans_across, int64_t *cols, int64_t *row_spans, int64_t *widths, PyObject **rest) {
    for (Py_ssize_t k = 0; k < g->n_cells; k++) {
        int64_t down, across;
        int read = grid_attributes(attributes, g->cells[k], no_cell, &down, &across, &rest[3 * k]);
        if (read <= 0) return read;
        spans_down[k] = down, spans_across[k] = across;
    }
    for (Py_ssize_t t = 0; t < g->n_tables; t++) {
        int placed = grid_place(g->bounds[t], g->bounds[t + 1], g->n_rows[t], g->cell_row, spans_down, spans_across,
                                cols, row_spans, &widths[t]);
        if (placed <= 0) return placed;
    }
    return 1;
}

/* grid_layout(parent, type, parts, attributes, no_cell, cell_of, slot_of, slot_table)
 *   -> None or (tables, n_rows, n_cols, bounds, cells, columns): the
 * reference tables._reference_grid_layout in one pass down the tree and one
 * over the cells. parent/type: the tree's element columns (depth first);
 * parts: per type row its table part (tables._TABLE_PARTS, 0: none);
 * attributes: ElementColumns.cells ({element: (row_span, col_span, scope,
 * headers, id)}), no_cell the entry of an element it lacks. Fills cell_of
 * (per element, the TH/TD starting the cell at or above it, -1: none),
 * slot_of (per element, its slot, -1: none) and slot_table[0:len(cells)]
 * (per slot, its table's position in `tables`). Returns the tables that have
 * a row, in the order their first row comes, their row and column counts,
 * where each one's slots start (then the end), each slot's TH/TD element,
 * and the slots' columns: row, col, row_span (cut at the last row),
 * col_span, header (TH), in_thead, scope, headers, element_id (lists). None
 * when a parent does not come before its kid or a span or column passes what
 * int64 holds safely: the reference lays those out. */
static PyObject *core_grid_layout(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *o[3], *parts, *attributes, *no_cell, *out[3];
    if (!PyArg_ParseTuple(args, "OOO!O!O!OOO", &o[0], &o[1], &PyBytes_Type, &parts, &PyDict_Type, &attributes,
                          &PyTuple_Type, &no_cell, &out[0], &out[1], &out[2]))
        return NULL;
    enum { PARENT, TYPE, CELL_OF, SLOT_OF, SLOT_TABLE, NV };
    View v[NV] = {{0}};
    static const char *const names[NV] = {"parent", "type", "cell_of", "slot_of", "slot_table"};
    PyObject *objects[NV] = {o[0], o[1], out[0], out[1], out[2]}, *result = NULL, **rest = NULL;
    enum { TABLE_OF, ROW_OF, RANK, ROW_INDEX, ROW_STARTS, CELL_STARTS, TABLE_EL, N_ROWS, BOUNDS, CELLS, CELL_ROW, DOWN,
           ACROSS, COLS, SPANS, WIDTHS, NT };
    int64_t *t[NT] = {NULL};
    unsigned char *flags = NULL;
    for (int i = 0; i < NV; i++)
        if (get_view(objects[i], &v[i], "l", 8, names[i]) < 0) goto done;
    Py_ssize_t n = v[PARENT].view.len / 8;
    for (int i = TYPE; i < NV; i++)
        if (v[i].view.len / 8 != n || (i >= CELL_OF && v[i].view.readonly)) {
            PyErr_SetString(PyExc_ValueError, "grid_layout: writable columns of one length per element");
            goto done;
        }
    for (int i = 0; i < NT; i++)
        if (!(t[i] = PyMem_Malloc(((size_t)n + 1) * sizeof(int64_t)))) { PyErr_NoMemory(); goto done; }
    if (!(flags = PyMem_Malloc(2 * ((size_t)n + 1)))) { PyErr_NoMemory(); goto done; }
    int64_t *cell_of = v[CELL_OF].view.buf, *slot_of = v[SLOT_OF].view.buf, *slot_table = v[SLOT_TABLE].view.buf;
    GridParts gp = {t[TABLE_OF], t[ROW_OF], cell_of, t[RANK], t[ROW_STARTS], t[CELL_STARTS], flags, flags + n + 1, 0, 0};
    Py_ssize_t tables = grid_parts(n, v[PARENT].view.buf, v[TYPE].view.buf, (const unsigned char *)PyBytes_AS_STRING(parts),
                                   PyBytes_GET_SIZE(parts), &gp);
    if (tables < 0) { result = Py_NewRef(Py_None); goto done; }
    GridOrder g = {0, 0, t[TABLE_EL], t[N_ROWS], t[BOUNDS], t[CELLS], t[CELL_ROW]};
    if (tables && grid_order(&gp, t[ROW_INDEX], &g) < 0) goto done;
    if (!tables) g.bounds[0] = 0;
    if (!(rest = PyMem_Malloc((3 * (size_t)g.n_cells + 1) * sizeof(PyObject *)))) { PyErr_NoMemory(); goto done; }
    int placed = grid_cells(&g, attributes, no_cell, t[DOWN], t[ACROSS], t[COLS], t[SPANS], t[WIDTHS], rest);
    if (placed <= 0) { result = placed ? NULL : Py_NewRef(Py_None); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) slot_of[i] = -1;
    for (Py_ssize_t k = 0; k < g.n_tables; k++)
        for (int64_t s = g.bounds[k]; s < g.bounds[k + 1]; s++) slot_table[s] = (int64_t)k, slot_of[g.cells[s]] = s;
    PyObject *parts_out[5] = {int64_list(g.table_el, g.n_tables), int64_list(g.n_rows, g.n_tables),
                              int64_list(t[WIDTHS], g.n_tables), int64_list(g.bounds, g.n_tables + 1),
                              int64_list(g.cells, g.n_cells)};
    PyObject *columns = grid_slot_columns(&g, t[COLS], t[SPANS], t[ACROSS], flags + n + 1, flags, rest);
    if (columns && parts_out[0] && parts_out[1] && parts_out[2] && parts_out[3] && parts_out[4]) {
        grid_untrack(parts_out, 5, columns);
        result = PyTuple_Pack(6, parts_out[0], parts_out[1], parts_out[2], parts_out[3], parts_out[4], columns);
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(parts_out[i]);
    Py_XDECREF(columns);
done:
    for (int i = 0; i < NV; i++) release(&v[i]);
    for (int i = 0; i < NT; i++) PyMem_Free(t[i]);
    PyMem_Free(flags);
    PyMem_Free(rest);
    return result;
}

/* ==== end of tables' section ============================================== */

/* ==== struct's section: the cross-reference table read from the file =====
 *
 * xref_table(data) -> None | (kinds, second, third, streams, top, count):
 * the cross-reference table (§7.5.4 classic sections, §7.5.8 cross-reference
 * streams, hybrid files' /XRefStm, the /Prev chain newest first) read from
 * the file's bytes by qpdf's rules (qpdf 12, QPDF_objects.cc: read_xref,
 * read_xrefTable, read_xrefEntry, processXRefStream, insertXrefEntry,
 * insertFreeXrefEntry), as pikepdf's get_xref_table() gives it:
 *   kinds: bytes, per object number 0 (no entry), 1 (in the file) or 2 (in
 *     an object stream); second, third: int64 columns (native order) of the
 *     offset and generation (type 1) or the stream's number and the index in
 *     it (type 2);
 *   streams: the object streams the entries of type 2 name, a tuple of
 *     their numbers in order of their first member (the table's key order;
 *     a stream's members are those entries: xref.XrefColumns.members);
 *   top: the largest object number listed (None when none); count: entries.
 * None wherever qpdf's reading may differ from this one: anything qpdf warns
 * about or repairs (a damaged or cut section, a stream whose /Length is not
 * where "endstream" is, a filter other than FlateDecode with a PNG
 * predictor, an object listed under two generations, a header not at offset
 * 0, ...), and any entry of type 1 whose offset does not hold "N G obj" of
 * its own number (qpdf rebuilds the whole table when it resolves one). Only
 * bytes that surely read alike are accepted: the reference is
 * extract/xref.py's _reference_table; tests/extract/test_xref.py holds both
 * equal to qpdf's table on every corpus file and fixture. */
#include <zlib.h>

#define XR_INT_MAX 2147483647LL
#define XR_SECTIONS 64 /* longer /Prev chains are left to qpdf */
#define XR_TAIL 1054   /* qpdf looks for "startxref" in the last 1,054 bytes */

typedef struct {
    const unsigned char *d;
    Py_ssize_t n;
    long long max_id;     /* qpdf's xref_table_max_id: larger numbers are skipped */
    unsigned char *kind, *deleted;
    int64_t *second, *third;
    Py_ssize_t cap;       /* slots allocated (numbers 0 .. cap-1) */
    PyObject *trailer;    /* the newest section's dictionary (qpdf's trailer) */
    /* The cross-reference streams qpdf holds as objects of their own
     * (xr_stream_cached): number, generation and offset of each. */
    long long streams[2 * XR_SECTIONS][3];
    int nstreams;
} XrefRead;

/* White space both qpdf's is_space and §7.2.2 call so: NUL and VT are
 * declined where they would matter. */
static inline int xr_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'; }

/* Whether a token ends at i (end of data, white space or a delimiter). */
static int xr_token_end(const XrefRead *x, Py_ssize_t i) {
    return i >= x->n || xr_ws(x->d[i]) || (CHAR_CLASS[x->d[i]] & C_DELIM);
}

static Py_ssize_t xr_skip_ws(const XrefRead *x, Py_ssize_t i) {
    while (i < x->n && xr_ws(x->d[i])) i++;
    return i;
}

/* Digits at *i (at most 18) into *v; 0 when there are none or too many. */
static int xr_digits(const XrefRead *x, Py_ssize_t *i, long long *v) {
    Py_ssize_t j = *i;
    long long value = 0;
    while (j < x->n && x->d[j] >= '0' && x->d[j] <= '9') {
        if (j - *i >= 18) return 0;
        value = value * 10 + (x->d[j++] - '0');
    }
    if (j == *i) return 0;
    *i = j;
    *v = value;
    return 1;
}

static int xr_word(const XrefRead *x, Py_ssize_t i, const char *word) {
    size_t len = strlen(word);
    return i >= 0 && (size_t)(x->n - i) >= len && memcmp(x->d + i, word, len) == 0 && xr_token_end(x, i + (Py_ssize_t)len);
}

/* "N G obj" at `at` exactly (§7.3.10): 1 with the numbers and the offset
 * after "obj", else 0. */
static int xr_object_header(const XrefRead *x, Py_ssize_t at, long long *num, long long *gen, Py_ssize_t *after) {
    Py_ssize_t i = at, j;
    if (at < 0 || !xr_digits(x, &i, num)) return 0;
    j = xr_skip_ws(x, i);
    if (j == i || !xr_digits(x, &j, gen)) return 0;
    i = xr_skip_ws(x, j);
    if (i == j || !xr_word(x, i, "obj")) return 0;
    *after = i + 3;
    return 1;
}

/* Slots for numbers up to `number`; -1 with MemoryError. From 64 slots,
 * not more: a small file's table is a few dozen objects, and each slot costs
 * 18 bytes cleared (four columns), per document. */
static int xr_grow(XrefRead *x, long long number) {
    if (number < x->cap) return 0;
    Py_ssize_t cap = x->cap ? x->cap : 64;
    while (cap <= number) cap *= 2;
    unsigned char *kind = PyMem_Realloc(x->kind, (size_t)cap), *deleted = kind ? PyMem_Realloc(x->deleted, (size_t)cap) : NULL;
    if (kind) x->kind = kind;
    if (deleted) x->deleted = deleted;
    int64_t *second = deleted ? PyMem_Realloc(x->second, (size_t)cap * sizeof(int64_t)) : NULL;
    if (second) x->second = second;
    int64_t *third = second ? PyMem_Realloc(x->third, (size_t)cap * sizeof(int64_t)) : NULL;
    if (!third) { PyErr_NoMemory(); return -1; }
    x->third = third;
    size_t old = (size_t)x->cap, more = (size_t)(cap - x->cap);
    memset(x->kind + old, 0, more);
    memset(x->deleted + old, 0, more);
    memset(x->second + old, 0, more * sizeof(int64_t));
    memset(x->third + old, 0, more * sizeof(int64_t));
    x->cap = cap;
    return 0;
}

/* qpdf's insertXrefEntry: the first entry read for an object wins (newest
 * section first). 0, 1 declined (an object under two generations: qpdf
 * keeps the higher by rules not read here), -1 error. */
static int xr_insert(XrefRead *x, long long obj, long long f0, long long f1, long long f2) {
    long long gen = f0 == 2 ? 0 : f2;
    if (!(f0 == 1 || f0 == 2)) return 0;
    if (!(obj > 0 && obj <= x->max_id && f2 >= 0 && gen < 65535)) return 0;
    if (obj < x->cap && x->deleted[obj]) return 0;
    if (f0 == 2 && (f1 == obj || f1 > x->max_id)) return 0; /* qpdf warns and skips it */
    if (obj >= x->cap && xr_grow(x, obj) < 0) return -1;
    if (x->kind[obj]) {
        long long held = x->kind[obj] == 2 ? 0 : x->third[obj];
        return held == gen ? 0 : 1;
    }
    x->kind[obj] = (unsigned char)f0;
    x->second[obj] = f1;
    x->third[obj] = f2;
    return 0;
}

/* qpdf's insertFreeXrefEntry: an object freed here is not read from older sections. */
static int xr_free(XrefRead *x, long long obj, long long gen) {
    if (obj > x->max_id) return 0;
    if (obj < x->cap && x->kind[obj] && (x->kind[obj] == 2 ? 0 : x->third[obj]) == gen) return 0;
    if (obj >= x->cap && xr_grow(x, obj) < 0) return -1;
    x->deleted[obj] = 1;
    return 0;
}

/* Whether the token at p is one qpdf reads without a warning where
 * next_token reads it too: not a stray delimiter (a lone '>', ')', '{',
 * '}', which both read as null, qpdf warning), and a hexadecimal string
 * holds only hexadecimal digits and white space (next_token stops at a bad
 * character and reads on from there). */
static int xr_token_clean(const unsigned char *p, const unsigned char *end) {
    if (p >= end) return 1;
    if (*p == ')' || *p == '{' || *p == '}') return 0;
    if (*p == '>') return end - p >= 2 && p[1] == '>';
    if (*p != '<' || (end - p >= 2 && p[1] == '<')) return 1;
    for (p++; p < end && *p != '>'; p++)
        if (!is_white(*p) && hexval(*p) < 0) return 0;
    return 1;
}

/* The dictionary at `at` ("<<" there), parsed by parse_span, and the offset
 * after it; NULL without an exception when it is not one well-formed
 * dictionary of direct objects and references. */
static PyObject *xr_dict(const XrefRead *x, Py_ssize_t at, Py_ssize_t *after) {
    if (at + 1 >= x->n || x->d[at] != '<' || x->d[at + 1] != '<') return NULL;
    Lexer lx;
    lx.p = x->d + at;
    lx.end = x->d + x->n;
    lx.nops = lx.non_numbers = 0;
    /* Each open container's items so far and its identity, for the keys:
     * qpdf warns of a key given twice (and gives up on a cross-reference
     * stream), parse_span keeps the last. */
    enum { XR_DEPTH = 32, XR_KEYS = 128 };
    long long items[XR_DEPTH];
    int frame[XR_DEPTH], frames = 0, depth = 0, nkeys = 0;
    struct { const unsigned char *p; size_t len; int frame; } keys[XR_KEYS];
    do {
        Token t;
        skip_white_and_comments(&lx);
        if (!xr_token_clean(lx.p, lx.end)) return NULL;
        const unsigned char *start = lx.p;
        int kind = next_token(&lx, &t, NULL);
        if (kind == K_EOF || kind == K_ERROR) return NULL;
        if (kind == K_KEYWORD && !(t.word_len == 1 && t.word[0] == 'R')) return NULL;
        if (kind == K_KEYWORD) { /* "N G R": the two integers were one item */
            if (depth) items[depth - 1]--;
            continue;
        }
        if (kind == K_DICT_CLOSE || kind == K_ARRAY_CLOSE) {
            depth--;
            if (depth) items[depth - 1]++;
            continue;
        }
        if (kind == K_OBJECT && t.obj.type == T_NAME) {
            size_t len = (size_t)(lx.p - start);
            if (memchr(start, '#', len)) return NULL; /* escapes: keys compared as written */
            if (depth && (frame[depth - 1] & 1) && items[depth - 1] % 2 == 0) { /* a dictionary's key */
                for (int k = 0; k < nkeys; k++)
                    if (keys[k].frame == frame[depth - 1] && keys[k].len == len && !memcmp(keys[k].p, start, len)) return NULL;
                if (nkeys == XR_KEYS) return NULL;
                keys[nkeys].p = start;
                keys[nkeys].len = len;
                keys[nkeys++].frame = frame[depth - 1];
            }
        }
        if (kind == K_DICT_OPEN || kind == K_ARRAY_OPEN) {
            if (depth == XR_DEPTH) return NULL;
            items[depth] = 0;
            frame[depth++] = 2 * frames++ + (kind == K_DICT_OPEN); /* odd: a dictionary */
            continue;
        }
        if (depth) items[depth - 1]++;
    } while (depth > 0);
    Existing refs = {NULL, NULL, 0, NULL, 0};
    ParseBufs bufs = {{0}, {0}, NULL};
    PyObject *dict = parse_span(x->d + at, lx.p, &refs, &bufs);
    parse_bufs_free(&bufs);
    if (!dict) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
        PyErr_Clear();
        return NULL;
    }
    if (!PyDict_CheckExact(dict)) { Py_DECREF(dict); return NULL; }
    *after = lx.p - x->d;
    return dict;
}

/* dict[key] as an integer: 1 with *v, 0 when absent, -1 when anything else. */
static int xr_int(PyObject *dict, const char *key, long long *v) {
    PyObject *value = PyDict_GetItemString(dict, key);
    if (!value) return 0;
    if (!PyLong_CheckExact(value)) return -1;
    int overflow = 0;
    *v = PyLong_AsLongLongAndOverflow(value, &overflow);
    return overflow ? -1 : 1;
}

static int xr_name_is(PyObject *value, const char *name) {
    return value && PyUnicode_CheckExact(value) && PyUnicode_CompareWithASCIIString(value, name) == 0;
}

/* A section's /Prev (0 when none) into *prev; 0 ok, 1 declined. */
static int xr_prev(const XrefRead *x, PyObject *dict, long long *prev) {
    *prev = 0;
    int has = xr_int(dict, "/Prev", prev);
    return has < 0 || *prev < 0 || *prev >= x->n;
}

/* The first `want` bytes inflated (§7.4.4, zlib) from data..data+len into
 * out, exactly `want` and then the stream's end: 0, 1 declined, -1 error. */
static int xr_inflate(const unsigned char *data, Py_ssize_t len, unsigned char *out, size_t want) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return 1;
    unsigned char spare;
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)(len > (Py_ssize_t)0x7fffffff ? 0x7fffffff : len);
    z.next_out = want ? out : &spare;
    z.avail_out = want ? (uInt)want : 1;
    int r = inflate(&z, Z_FINISH);
    int ok = r == Z_STREAM_END && z.total_out == want;
    inflateEnd(&z);
    return ok ? 0 : 1;
}

/* PNG row filters (§7.4.4.4) over rows of `columns` bytes each led by its
 * filter byte, one byte per pixel, in place into `out` as qpdf's
 * Pl_PNGFilter undoes them (an unknown filter leaves the row as written). */
static void xr_unpredict(const unsigned char *rows, size_t count, size_t columns, unsigned char *out) {
    const unsigned char *above = NULL;
    for (size_t r = 0; r < count; r++) {
        const unsigned char *in = rows + r * (columns + 1) + 1;
        unsigned char *row = out + r * columns, filter = in[-1];
        if (filter == 0 || filter == 2) { /* None and Up (what writers use): the sums below, made alone */
            if (filter == 2 && above)
                for (size_t i = 0; i < columns; i++) row[i] = (unsigned char)(in[i] + above[i]);
            else
                memcpy(row, in, columns);
            above = row;
            continue;
        }
        for (size_t i = 0; i < columns; i++) {
            int left = i ? row[i - 1] : 0, up = above ? above[i] : 0, corner = i && above ? above[i - 1] : 0, add = 0;
            if (filter == 1) add = left;
            else if (filter == 2) add = up;
            else if (filter == 3) add = (left + up) / 2;
            else if (filter == 4) {
                int p = left + up - corner, pa = abs(p - left), pb = abs(p - up), pc = abs(p - corner);
                add = pa <= pb && pa <= pc ? left : pb <= pc ? up : corner;
            }
            row[i] = (unsigned char)(in[i] + add);
        }
        above = row;
    }
}

/* /W's three widths (qpdf's processXRefW): 0, 1 declined. */
static int xr_widths(PyObject *dict, int w[3]) {
    PyObject *widths = PyDict_GetItemString(dict, "/W");
    if (!widths || !PyList_CheckExact(widths) || PyList_GET_SIZE(widths) < 3) return 1;
    int total = 0;
    for (int k = 0; k < 3; k++) {
        PyObject *item = PyList_GET_ITEM(widths, k);
        if (!PyLong_CheckExact(item)) return 1;
        long v = PyLong_AsLong(item);
        if (v < 0 || v > 8) { PyErr_Clear(); return 1; }
        w[k] = (int)v;
        total += w[k];
    }
    return total == 0;
}

/* /Index as (first, count) pairs, [0, /Size] when absent (processXRefSize,
 * processXRefIndex); their count, -2 declined, -1 error. */
static Py_ssize_t xr_index(PyObject *dict, int entry_size, long long **pairs, long long *entries) {
    long long size, max_entries = XR_INT_MAX;
    if (max_entries > INT64_MAX / entry_size) max_entries = INT64_MAX / entry_size;
    if (xr_int(dict, "/Size", &size) != 1 || size < 0 || size >= max_entries) return -2;
    PyObject *index = PyDict_GetItemString(dict, "/Index");
    Py_ssize_t n = index ? (PyList_CheckExact(index) ? PyList_GET_SIZE(index) : -1) : 2;
    if (n < 2 || n % 2) return -2;
    long long *out = PyMem_Malloc((size_t)n * sizeof(long long));
    if (!out) { PyErr_NoMemory(); return -1; }
    long long total = 0;
    for (Py_ssize_t k = 0; k < n; k += 2) {
        long long first = 0, count = size;
        if (index) {
            PyObject *a = PyList_GET_ITEM(index, k), *b = PyList_GET_ITEM(index, k + 1);
            int of1 = 0, of2 = 0;
            if (!PyLong_CheckExact(a) || !PyLong_CheckExact(b)) { PyMem_Free(out); return -2; }
            first = PyLong_AsLongLongAndOverflow(a, &of1);
            count = PyLong_AsLongLongAndOverflow(b, &of2);
            if (of1 || of2 || first < 0 || first > max_entries || count <= 0 || first > max_entries - count ||
                count > max_entries - total) { PyMem_Free(out); return -2; }
        }
        out[k] = first;
        out[k + 1] = count;
        total += count;
    }
    *pairs = out;
    *entries = total;
    return n / 2;
}

/* The data of the stream whose dictionary ended at `after`: "stream", an
 * end of line, /Length bytes, "endstream", "endobj" (qpdf's readStream and
 * readObject where they read without warning). 0 with the span, 1 declined. */
static int xr_stream_span_of(const XrefRead *x, int has_length, long long length, Py_ssize_t after, Py_ssize_t *start,
                             Py_ssize_t *len);

static int xr_stream_span(const XrefRead *x, PyObject *dict, Py_ssize_t after, Py_ssize_t *start, Py_ssize_t *len) {
    long long length = 0;
    int has_length = xr_int(dict, "/Length", &length);
    return xr_stream_span_of(x, has_length, length, after, start, len);
}

/* xr_stream_span with /Length read already (`has_length` as xr_int answers). */
static int xr_stream_span_of(const XrefRead *x, int has_length, long long length, Py_ssize_t after, Py_ssize_t *start,
                             Py_ssize_t *len) {
    Py_ssize_t i = xr_skip_ws(x, after);
    if (!xr_word(x, i, "stream") || has_length != 1 || length < 0) return 1;
    i += 6;
    if (i < x->n && x->d[i] == '\r') i++;
    if (i >= x->n || x->d[i] != '\n') return 1;
    i++;
    if (length > x->n - i) return 1;
    Py_ssize_t end = xr_skip_ws(x, i + (Py_ssize_t)length);
    if (!xr_word(x, end, "endstream")) return 1;
    /* qpdf gives up on a cross-reference stream not followed by "endobj" (and rebuilds the table) */
    if (!xr_word(x, xr_skip_ws(x, end + 9), "endobj")) return 1;
    *start = i;
    *len = (Py_ssize_t)length;
    return 0;
}

/* The stream's data decoded into `out` (`want` bytes): no filter, or
 * FlateDecode with no predictor or a PNG predictor over `columns` bytes of
 * one 8-bit colour. 0, 1 declined, -1 error. */
static int xr_decode(const XrefRead *x, PyObject *dict, Py_ssize_t start, Py_ssize_t len, unsigned char *out, size_t want) {
    PyObject *filter = PyDict_GetItemString(dict, "/Filter"), *parms = PyDict_GetItemString(dict, "/DecodeParms");
    if (filter && PyList_CheckExact(filter) && PyList_GET_SIZE(filter) == 1) filter = PyList_GET_ITEM(filter, 0);
    if (parms && PyList_CheckExact(parms) && PyList_GET_SIZE(parms) == 1) parms = PyList_GET_ITEM(parms, 0);
    if (!filter) {
        if (parms || (size_t)len != want) return 1;
        memcpy(out, x->d + start, want);
        return 0;
    }
    if (!xr_name_is(filter, "/FlateDecode")) return 1;
    long long predictor = 1, columns = 0, colors = 1, bits = 8;
    if (parms && parms != Py_None) {
        if (!PyDict_CheckExact(parms) || xr_int(parms, "/Predictor", &predictor) < 0 || xr_int(parms, "/Columns", &columns) < 0 ||
            xr_int(parms, "/Colors", &colors) < 0 || xr_int(parms, "/BitsPerComponent", &bits) < 0) return 1;
    }
    if (predictor == 1) return xr_inflate(x->d + start, len, out, want);
    if (predictor < 10 || predictor > 15 || colors != 1 || bits != 8 || columns < 1 || want % (size_t)columns) return 1;
    size_t rows = want / (size_t)columns, raw_len = rows * ((size_t)columns + 1);
    unsigned char *raw = PyMem_Malloc(raw_len ? raw_len : 1);
    if (!raw) { PyErr_NoMemory(); return -1; }
    int r = xr_inflate(x->d + start, len, raw, raw_len);
    if (!r) xr_unpredict(raw, rows, (size_t)columns, out);
    PyMem_Free(raw);
    return r;
}

/* A field of `width` bytes (0 to 8), most significant first (§7.5.8.2). */
static inline uint64_t xr_field(const unsigned char *p, int width) {
    if (!width) return 0;
    /* One word read (the data is padded with XR_FIELD_PAD bytes), its first `width` bytes kept. */
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v >> (64 - 8 * width);
}

/* A stream's decoded entries are followed by this many zero bytes: xr_field reads a word at each field. */
#define XR_FIELD_PAD 8

/* Slots for the numbers up to `top` (clamped to max_id) at once, where a
 * section lists them: one allocation, not a doubling per power of two. */
static int xr_reserve(XrefRead *x, long long top) {
    if (top > x->max_id) top = x->max_id;
    return top < x->cap ? 0 : xr_grow(x, top);
}

/* The entries of a cross-reference stream's data into the table
 * (processXRefStream): 0, 1 declined, -1 error. */
static int xr_stream_entries(XrefRead *x, const unsigned char *data, const int w[3], const long long *pairs, Py_ssize_t npairs) {
    const unsigned char *p = data;
    const int w0 = w[0], w1 = w[1], w2 = w[2];
    for (Py_ssize_t k = 0; k < npairs; k++) {
        long long obj = pairs[2 * k];
        for (long long e = 0; e < pairs[2 * k + 1]; e++, obj++) {
            uint64_t f[3] = {w0 ? xr_field(p, w0) : 1, xr_field(p + w0, w1), xr_field(p + w0 + w1, w2)};
            p += w0 + w1 + w2;
            if (obj == 0) continue;
            if (f[0] == 0) {
                if (xr_free(x, obj, 0) < 0) return -1;
                continue;
            }
            /* qpdf's toI of the type and third field, and its offsets: signed */
            if (f[0] > XR_INT_MAX || f[2] > XR_INT_MAX || f[1] > INT64_MAX) return 1;
            int r = xr_insert(x, obj, (long long)f[0], (long long)f[1], (long long)f[2]);
            if (r) return r;
        }
    }
    return 0;
}

/* The cross-reference stream at `at` (qpdf's read_xrefStream): 0 with its
 * /Prev, 1 declined, -1 error. */
/* qpdf reads a cross-reference stream into its object cache as object
 * (num, gen) of its "N G obj", unless a newer section listed (num, gen)
 * already or a newer cross-reference stream was it (QPDF::readObjectAtOffset,
 * skip_cache_if_in_xref): that object is then this stream, whatever an
 * older section lists for it. Recorded here, checked against the table
 * once read (xr_streams_in_place). 0, 1 declined (too many). */
static int xr_stream_cached(XrefRead *x, long long num, long long gen, Py_ssize_t at) {
    if (num < x->cap && x->kind[num] && (x->kind[num] == 2 ? 0 : x->third[num]) == gen) return 0;
    for (int k = 0; k < x->nstreams; k++)
        if (x->streams[k][0] == num && x->streams[k][1] == gen) return 0;
    if (x->nstreams == 2 * XR_SECTIONS) return 1;
    x->streams[x->nstreams][0] = num;
    x->streams[x->nstreams][1] = gen;
    x->streams[x->nstreams++][2] = at;
    return 0;
}

/* Whether no cross-reference stream qpdf holds as an object is listed in
 * the file at another offset under its number and generation: qpdf answers
 * the stream for that object (get_object), where a reader of the bytes
 * would read what lies at the offset (an object stream, say), and the
 * tree read asks qpdf for some objects the table lists in the file. One
 * the table does not list, lists in an object stream or at offset 0 (read
 * as null from the bytes, left to qpdf) reads alike from this table and
 * from qpdf's, which lists the same. */
static int xr_streams_in_place(const XrefRead *x) {
    for (int k = 0; k < x->nstreams; k++) {
        long long num = x->streams[k][0];
        if (num < x->cap && x->kind[num] == 1 && x->third[num] == x->streams[k][1] && x->second[num] != 0 &&
            x->second[num] != x->streams[k][2])
            return 0;
    }
    return 1;
}

static int xr_stream_section(XrefRead *x, Py_ssize_t at, long long *prev) {
    long long num, gen;
    Py_ssize_t after, start, len;
    if (!xr_object_header(x, at, &num, &gen, &after) || num == 0 || xr_stream_cached(x, num, gen, at)) return 1;
    PyObject *dict = xr_dict(x, xr_skip_ws(x, after), &after);
    if (!dict) return PyErr_Occurred() ? -1 : 1;
    int w[3], result = 1;
    long long *pairs = NULL, entries = 0;
    Py_ssize_t npairs = -2;
    unsigned char *data = NULL;
    if (!xr_name_is(PyDict_GetItemString(dict, "/Type"), "/XRef") || xr_widths(dict, w) ||
        xr_stream_span(x, dict, after, &start, &len) || xr_prev(x, dict, prev)) goto done;
    npairs = xr_index(dict, w[0] + w[1] + w[2], &pairs, &entries);
    if (npairs < 0) { result = npairs == -1 ? -1 : 1; goto done; }
    size_t want = (size_t)(w[0] + w[1] + w[2]) * (size_t)entries;
    /* No more than deflate can give of the stream's bytes (1,032 to 1). */
    if (want > (size_t)len * 1032 + 1024 || want > ((size_t)1 << 30)) goto done;
    if (!(data = PyMem_Malloc(want + XR_FIELD_PAD))) { PyErr_NoMemory(); result = -1; goto done; }
    memset(data + want, 0, XR_FIELD_PAD);
    result = xr_decode(x, dict, start, len, data, want);
    long long top = 0;
    for (Py_ssize_t k = 0; k < npairs; k++)
        if (pairs[2 * k] + pairs[2 * k + 1] - 1 > top) top = pairs[2 * k] + pairs[2 * k + 1] - 1;
    if (!result && xr_reserve(x, top) < 0) result = -1;
    if (!result) result = xr_stream_entries(x, data, w, pairs, npairs);
    if (!result && !x->trailer) x->trailer = Py_NewRef(dict);
done:
    PyMem_Free(pairs);
    PyMem_Free(data);
    Py_DECREF(dict);
    return result;
}

/* Whether p[0, 8) are eight ASCII digits: 1 with their value, else 0. On a
 * little-endian machine the eight are checked and summed as one word (a
 * classic table is 20 bytes an entry, and a hybrid file's lists every
 * object freed: most of reading it went to these digits one by one). */
static inline int xr_eight_digits(const unsigned char *p, uint64_t *value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    /* Each byte 0x30-0x39: high nibble 3, and adding 6 does not carry into it. */
    if (((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
        return 0;
    *value = word_digits_value(v);
    return 1;
#else
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) {
        if (p[k] < '0' || p[k] > '9') return 0;
        v = v * 10 + (uint64_t)(p[k] - '0');
    }
    *value = v;
    return 1;
#endif
}

/* One classic entry (read_xrefEntry's well-formed case): "oooooooooo ggggg
 * n" and a two-byte end of line, 20 bytes. 1 with its fields, else 0. */
static int xr_classic_entry(const XrefRead *x, Py_ssize_t at, long long *f1, long long *f2, unsigned char *type) {
    if (x->n - at < 20) return 0;
    const unsigned char *p = x->d + at;
    long long a = 0, b = 0;
    uint64_t head;
    if (!xr_eight_digits(p, &head) || p[8] < '0' || p[8] > '9' || p[9] < '0' || p[9] > '9') return 0;
    a = (long long)head * 100 + (p[8] - '0') * 10 + (p[9] - '0');
    for (int k = 11; k < 16; k++) {
        if (p[k] < '0' || p[k] > '9') return 0;
        b = b * 10 + (p[k] - '0');
    }
    if (p[10] != ' ' || p[16] != ' ' || (p[17] != 'n' && p[17] != 'f')) return 0;
    if (!(p[18] == ' ' || p[18] == '\r' || p[18] == '\n') || !(p[19] == '\r' || p[19] == '\n')) return 0;
    *f1 = a;
    *f2 = b;
    *type = p[17];
    return 1;
}

/* A classic section from `at` (just after "xref" and its white space;
 * read_xrefTable): subsections, "trailer", its dictionary, a hybrid file's
 * /XRefStm. 0 with /Prev, 1 declined, -1 error. */
static int xr_classic_section(XrefRead *x, Py_ssize_t at, long long *prev) {
    Py_ssize_t i = at;
    for (;;) {
        long long first, count;
        Py_ssize_t j = i;
        if (!xr_digits(x, &j, &first) || j >= x->n || !xr_ws(x->d[j])) return 1;
        j = xr_skip_ws(x, j);
        if (!xr_digits(x, &j, &count)) return 1;
        j = xr_skip_ws(x, j);
        if (j - i > 40 || first > XR_INT_MAX || count > XR_INT_MAX || first + count > XR_INT_MAX) return 1;
        if (count && count <= (x->n - j) / 20 && xr_reserve(x, first + count - 1) < 0) return -1;
        for (long long k = 0; k < count; k++, j += 20) {
            long long f1, f2;
            unsigned char type;
            if (!xr_classic_entry(x, j, &f1, &f2, &type)) return 1;
            int r = type == 'f' ? xr_free(x, first + k, f2) : xr_insert(x, first + k, 1, f1, f2);
            if (r) return r;
        }
        i = xr_skip_ws(x, j);
        if (xr_word(x, i, "trailer")) break;
        if (i >= x->n || x->d[i] < '0' || x->d[i] > '9') return 1;
    }
    Py_ssize_t after;
    PyObject *dict = xr_dict(x, xr_skip_ws(x, i + 7), &after);
    if (!dict) return PyErr_Occurred() ? -1 : 1;
    long long size, stream_at;
    int result = 1;
    if (!x->trailer) {
        if (xr_int(dict, "/Size", &size) != 1) goto done;
        x->trailer = Py_NewRef(dict);
    }
    int hybrid = xr_int(dict, "/XRefStm", &stream_at);
    if (hybrid < 0 || xr_prev(x, dict, prev)) goto done;
    if (hybrid) {
        long long ignored;
        result = stream_at >= 0 && stream_at < x->n ? xr_stream_section(x, (Py_ssize_t)stream_at, &ignored) : 1;
    } else {
        result = 0;
    }
done:
    Py_DECREF(dict);
    return result;
}

/* Where the newest section starts: the offset after the file's last
 * "startxref" (qpdf's findLast in the last 1,054 bytes); 0 when not read. */
static long long xr_startxref(const XrefRead *x) {
    Py_ssize_t from = x->n > XR_TAIL ? x->n - XR_TAIL : 0;
    for (Py_ssize_t at = x->n - 9; at >= from; at--) {
        if (memcmp(x->d + at, "startxref", 9) != 0) continue;
        Py_ssize_t i = xr_skip_ws(x, at + 9);
        long long offset;
        if (i == at + 9 || !xr_digits(x, &i, &offset) || !xr_token_end(x, i)) return 0;
        return offset;
    }
    return 0;
}

/* Every section along /Prev (read_xref): 0, 1 declined, -1 error. */
static int xr_sections(XrefRead *x) {
    long long offset = xr_startxref(x), visited[XR_SECTIONS];
    int sections = 0;
    if (offset <= 0 || offset >= x->n) return 1;
    while (offset) {
        for (int k = 0; k < sections; k++)
            if (visited[k] == offset) return 1; /* a loop qpdf reports */
        if (sections == XR_SECTIONS) return 1;
        visited[sections++] = offset;
        Py_ssize_t at = (Py_ssize_t)offset;
        int r;
        if (xr_word(x, at, "xref")) r = xr_classic_section(x, xr_skip_ws(x, at + 4), &offset);
        else r = xr_stream_section(x, at, &offset);
        if (r) return r;
    }
    return x->trailer ? 0 : 1;
}

/* Whether every object of type 1 is where its entry puts it ("N G obj" of
 * its number and generation at the offset; offset 0 is read as null by
 * qpdf, without repair). */
static int xr_objects_in_place(const XrefRead *x) {
    for (Py_ssize_t k = 0; k < x->cap; k++) {
        if (x->kind[k] != 1 || x->second[k] == 0) continue;
        long long num, gen;
        Py_ssize_t after;
        if (x->second[k] >= x->n || !xr_object_header(x, (Py_ssize_t)x->second[k], &num, &gen, &after) || num != k ||
            gen != x->third[k]) return 0;
    }
    return 1;
}

/* The object streams the entries of type 2 name, in order of their first
 * member (the table's key order), as a tuple of ints; NULL on error. Each
 * stream's members are not gathered here: whoever needs them reads the
 * columns (a header's members, TreeObjects; XrefColumns.members, else). */
static PyObject *xr_streams(const XrefRead *x, Py_ssize_t used) {
    long long top = -1;
    Py_ssize_t count = 0;
    for (Py_ssize_t k = 0; k < used; k++)
        if (x->kind[k] == 2 && x->second[k] > top) top = x->second[k];
    unsigned char *seen = top >= 0 ? PyMem_Calloc((size_t)(top / 8 + 1), 1) : NULL;
    if (top >= 0 && !seen) return PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < used; k++) { /* first the count, then the tuple */
        if (x->kind[k] != 2) continue;
        long long s = x->second[k];
        if (!(seen[s / 8] >> (s % 8) & 1)) { seen[s / 8] |= (unsigned char)(1u << (s % 8)); count++; }
    }
    PyObject *streams = PyTuple_New(count);
    if (streams && top >= 0) memset(seen, 0, (size_t)(top / 8 + 1));
    for (Py_ssize_t k = 0, i = 0; streams && k < used && i < count; k++) {
        long long s = x->second[k];
        if (x->kind[k] != 2 || seen[s / 8] >> (s % 8) & 1) continue;
        seen[s / 8] |= (unsigned char)(1u << (s % 8));
        PyObject *number = PyLong_FromLongLong(s);
        if (!number) Py_CLEAR(streams);
        else PyTuple_SET_ITEM(streams, i++, number);
    }
    PyMem_Free(seen);
    return streams;
}

/* The result tuple from a table read whole. */
static PyObject *xr_result(const XrefRead *x) {
    Py_ssize_t used = x->cap, count = 0;
    while (used > 0 && !x->kind[used - 1]) used--;
    if (!used) return Py_NewRef(Py_None); /* an empty table: qpdf's answer costs nothing */
    for (Py_ssize_t k = 0; k < used; k++) count += x->kind[k] != 0;
    PyObject *streams = xr_streams(x, used);
    if (!streams) return NULL;
    return Py_BuildValue("(y#y#y#Nnn)", (const char *)x->kind, used, (const char *)x->second, used * 8, (const char *)x->third,
                         used * 8, streams, used - 1, count);
}

static PyObject *core_xref_table(PyObject *mod, PyObject *arg) {
    (void)mod;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    XrefRead x = {view.buf, view.len, XR_INT_MAX - 1, NULL, NULL, NULL, NULL, 0, NULL};
    if (x.max_id > x.n / 3) x.max_id = x.n / 3;
    PyObject *result = NULL;
    /* The header at offset 0 (qpdf counts offsets from where it finds it). */
    Py_ssize_t i = 5;
    long long ignored;
    int r = x.n >= 8 && memcmp(x.d, "%PDF-", 5) == 0 && xr_digits(&x, &i, &ignored) && i + 1 < x.n && x.d[i] == '.' &&
            x.d[i + 1] >= '0' && x.d[i + 1] <= '9' ? xr_sections(&x) : 1;
    if (r == 0 && (!xr_objects_in_place(&x) || !xr_streams_in_place(&x))) r = 1;
    if (r == 0) result = xr_result(&x);
    else if (r == 1) result = Py_NewRef(Py_None);
    Py_XDECREF(x.trailer);
    PyMem_Free(x.kind);
    PyMem_Free(x.deleted);
    PyMem_Free(x.second);
    PyMem_Free(x.third);
    PyBuffer_Release(&view);
    return result;
}
/* written_spans(data, kinds, second, third) -> (spans, present): the
 * objects of generation 0 the table (xref_table's columns) puts in the file
 * (type 1), as structure_objects._WrittenObjects._spans reads them (its
 * reference): in order of offset (then number), each where "N 0 obj" of
 * its own number starts at its offset, before the next greater offset (or
 * the end), and runs to the first "endobj" after it there, unless the
 * keyword "stream" comes first: a stream is left out (find_object_end);
 * spans (number, start, end, True), and present, the numbers of those
 * written as a dictionary ("<<" first, ">>" last before "endobj"). */
typedef struct { int64_t offset, number; } Placed;

static int placed_order(const void *a, const void *b) {
    const Placed *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* Digits at *i before `bound` as a number (saturating past 2^62: no object
 * number that large); 0 when there are none. */
static int ws_digits(const unsigned char *d, Py_ssize_t bound, Py_ssize_t *i, long long *v) {
    Py_ssize_t j = *i;
    long long value = 0;
    while (j < bound && d[j] >= '0' && d[j] <= '9') {
        value = value > (1LL << 62) / 10 ? (1LL << 62) : value * 10 + (d[j] - '0');
        j++;
    }
    if (j == *i) return 0;
    *i = j;
    *v = value;
    return 1;
}

/* "N G obj" at `at` within [at, bound) (_OBJECT_HEADER's match): the offset after it, or -1. */
static Py_ssize_t written_header(const unsigned char *d, Py_ssize_t at, Py_ssize_t bound, long long *num, long long *gen) {
    Py_ssize_t i = at, j;
    if (!ws_digits(d, bound, &i, num)) return -1;
    for (j = i; j < bound && is_white(d[j]); j++) {}
    if (j == i || !ws_digits(d, bound, &j, gen)) return -1;
    for (i = j; i < bound && is_white(d[i]); i++) {}
    if (i == j || bound - i < 3 || memcmp(d + i, "obj", 3) != 0) return -1;
    i += 3;
    if (i < bound && !CHAR_CLASS[d[i]]) return -1; /* a regular character goes on the keyword */
    return i;
}

/* Whether the object's bytes start with "<<" (after white space) and end
 * with ">>" (before the white space Python's bytes.rstrip() strips, within
 * the last 64 bytes). */
static int written_dictionary(const unsigned char *d, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t i = start;
    while (i < end && is_white(d[i])) i++;
    if (end - i < 2 || d[i] != '<' || d[i + 1] != '<') return 0;
    Py_ssize_t low = end - 64 > start ? end - 64 : start, k = end;
    while (k > low && (d[k - 1] == ' ' || (d[k - 1] >= '\t' && d[k - 1] <= '\r'))) k--;
    return k - low >= 2 && d[k - 1] == '>' && d[k - 2] == '>';
}

/* Whether the keyword "stream" (§7.3.8.1) starts at d[at]: after a white
 * space or delimiter byte, before an end of line inside [.., bound). */
static inline int stream_keyword_at(const unsigned char *d, Py_ssize_t at, Py_ssize_t bound) {
    return at > 0 && bound - at > 6 && CHAR_CLASS[d[at - 1]] && memcmp(d + at, "stream", 6) == 0 &&
           (d[at + 6] == '\r' || d[at + 6] == '\n');
}

/* Where the object from d[from] ends, in [from, bound): the first "endobj",
 * or the keyword "stream" where it comes first (*stream set): a stream,
 * whose span never parsed alone (the keyword ends the object the parsers
 * read), is left to qpdf, and its data (nineteen twentieths of a tagged
 * file's written objects' bytes: images, fonts, pages' contents, the
 * object streams) is not scanned to its "endobj". -1 when neither is
 * there. 16 starts at a time are tested for an 'e' there and a 'j' five
 * bytes on, or an 's' and an 'm' (in binary data one start in 32,768
 * passes), the rest compared at those only; the last starts (and all
 * without SSE2) one by one. */
static Py_ssize_t find_object_end(const unsigned char *d, Py_ssize_t from, Py_ssize_t bound, int *stream) {
    Py_ssize_t i = from;
    *stream = 0;
#ifdef __SSE2__
    const __m128i e = _mm_set1_epi8('e'), j = _mm_set1_epi8('j'), s = _mm_set1_epi8('s'), m = _mm_set1_epi8('m');
    for (; bound - i >= 21; i += 16) { /* starts i .. i + 15, their 'j' or 'm' at most at i + 20 < bound */
        __m128i first = _mm_loadu_si128((const __m128i *)(d + i)), last = _mm_loadu_si128((const __m128i *)(d + i + 5));
        __m128i ends = _mm_and_si128(_mm_cmpeq_epi8(first, e), _mm_cmpeq_epi8(last, j));
        __m128i streams = _mm_and_si128(_mm_cmpeq_epi8(first, s), _mm_cmpeq_epi8(last, m));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(ends, streams));
        for (; mask; mask &= mask - 1) {
            Py_ssize_t at = i + __builtin_ctz(mask);
            if (d[at] == 'e' && memcmp(d + at + 1, "ndob", 4) == 0) return at;
            if (stream_keyword_at(d, at, bound)) { *stream = 1; return at; }
        }
    }
#endif
    for (; bound - i >= 6; i++) { /* "endobj" may start at i .. bound - 6 */
        if (d[i] == 'e' && memcmp(d + i + 1, "ndobj", 5) == 0) return i;
        if (d[i] == 's' && stream_keyword_at(d, i, bound)) { *stream = 1; return i; }
    }
    return -1;
}

/* One placed object's span into *out: 1, or 0 when it is not there. */
static int written_one(const unsigned char *d, const Placed *p, Py_ssize_t bound, WrittenSpan *out) {
    long long num, gen;
    Py_ssize_t start = written_header(d, (Py_ssize_t)p->offset, bound, &num, &gen);
    if (start < 0 || num != p->number || gen != 0) return 0;
    int stream;
    Py_ssize_t end = find_object_end(d, start, bound, &stream);
    if (end < 0 || stream) return 0;
    *out = (WrittenSpan){p->number, start, end, written_dictionary(d, start, end)};
    return 1;
}

/* The spans of the objects written in d[0:len] where the columns (kinds,
 * offsets, generations: xref_table's, `columns` entries long) put them, in
 * order of offset (then number), into *out (PyMem, the caller frees it;
 * NULL when there are none) and *n: 0, -1 with an exception set. */
static int written_spans_of(const unsigned char *d, Py_ssize_t len, const unsigned char *kinds, const int64_t *offsets,
                            const int64_t *generations, Py_ssize_t columns, WrittenSpan **out, Py_ssize_t *n) {
    *out = NULL;
    *n = 0;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < columns; i++) count += kinds[i] == 1 && generations[i] == 0;
    if (!count) return 0;
    Placed *placed = PyMem_Malloc((size_t)count * sizeof(Placed));
    *out = PyMem_Malloc((size_t)count * sizeof(WrittenSpan));
    if (!placed || !*out) {
        PyMem_Free(placed);
        PyMem_Free(*out);
        *out = NULL;
        PyErr_NoMemory();
        return -1;
    }
    count = 0;
    for (Py_ssize_t i = 0; i < columns; i++)
        if (kinds[i] == 1 && generations[i] == 0) placed[count++] = (Placed){offsets[i], i};
    /* Offsets as xref_table reads them rise with the numbers in most files: sorted already, only checked. */
    Py_ssize_t k = 1;
    while (k < count && placed_order(&placed[k - 1], &placed[k]) <= 0) k++;
    if (k < count) qsort(placed, (size_t)count, sizeof(Placed), placed_order);
    Py_ssize_t next = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (placed[i].offset < 0 || placed[i].offset >= len) continue;
        if (next <= i) for (next = i + 1; next < count && placed[next].offset == placed[i].offset; next++) {}
        Py_ssize_t bound = next < count && placed[next].offset < len ? (Py_ssize_t)placed[next].offset : len;
        *n += written_one(d, &placed[i], bound, *out + *n);
    }
    PyMem_Free(placed);
    return 0;
}

/* The file's bytes and xref_table's columns (the first four arguments of
 * written_spans and object_streams) as buffers. */
typedef struct { Py_buffer data, kinds, second, third; } XrColumns;

/* args' first four objects into *c, the columns checked to be as long as
 * kinds: 0, or -1 with an exception and nothing held. */
static int xr_columns_get(PyObject *const objs[4], const char *who, XrColumns *c) {
    Py_buffer *views[4] = {&c->data, &c->kinds, &c->second, &c->third};
    for (int k = 0; k < 4; k++) {
        if (PyObject_GetBuffer(objs[k], views[k], PyBUF_SIMPLE) == 0) continue;
        while (k--) PyBuffer_Release(views[k]);
        return -1;
    }
    Py_ssize_t n = c->kinds.len;
    if (c->second.len >= n * 8 && c->third.len >= n * 8) return 0;
    PyErr_Format(PyExc_ValueError, "%s: short columns", who);
    for (int k = 0; k < 4; k++) PyBuffer_Release(views[k]);
    return -1;
}

static void xr_columns_release(XrColumns *c) {
    PyBuffer_Release(&c->data);
    PyBuffer_Release(&c->kinds);
    PyBuffer_Release(&c->second);
    PyBuffer_Release(&c->third);
}

static PyObject *core_written_spans(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[4];
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    XrColumns c;
    if (xr_columns_get(objs, "written_spans", &c) < 0) return NULL;
    PyObject *result = NULL, *spans = NULL, *present = NULL;
    WrittenSpan *found;
    Py_ssize_t n;
    if (written_spans_of(c.data.buf, c.data.len, c.kinds.buf, c.second.buf, c.third.buf, c.kinds.len, &found, &n) < 0) goto done;
    if (!(spans = PyList_New(n)) || !(present = PyList_New(0))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *span = Py_BuildValue("(LnnO)", found[i].number, found[i].start, found[i].end, Py_True);
        if (!span) goto done;
        PyList_SET_ITEM(spans, i, span);
        if (!found[i].dictionary) continue;
        PyObject *number = PyLong_FromLongLong(found[i].number);
        int failed = !number || PyList_Append(present, number) < 0;
        Py_XDECREF(number);
        if (failed) goto done;
    }
    result = Py_BuildValue("(OO)", spans, present);
done:
    Py_XDECREF(spans);
    Py_XDECREF(present);
    PyMem_Free(found);
    xr_columns_release(&c);
    return result;
}
/* object_streams(data, kinds, second, third, numbers, inflate) -> [None |
 * (decoded, first, count), ...]: each object stream of `numbers` (§7.5.7)
 * read from the file's bytes where xref_table's columns put it (type 1,
 * generation 0), as qpdf reads it without warning: "N 0 obj", a dictionary
 * of direct objects (/Type /ObjStm, /N, /First and /Length integers),
 * "stream", an end of line, /Length bytes, "endstream", "endobj"; its data
 * as written or FlateDecode'd whole (no /DecodeParms) by `inflate`. None
 * wherever the reading may differ from qpdf's (anything else: an indirect
 * /Length, another filter, or what `inflate` declines): qpdf reads that one,
 * as before. One call for every stream in place of a pikepdf object and a
 * pipeline each. The reference is xref._reference_object_stream;
 * tests/extract/test_xref.py holds both equal to qpdf's read_bytes on the
 * corpus.
 *
 * `inflate` (xref._inflated_whole) takes the stream's data (a memoryview
 * of the file's bytes) and answers its decoded bytes or None: the one
 * definition of what a FlateDecode'd object stream holds (one complete zlib
 * stream ending with the data, its check value not compared, at most a
 * limit of decoded bytes, counted while inflating), shared with the
 * reference. It inflates with zlib-ng (a fork of zlib's inflater, 1.5x as
 * fast as the zlib this module links, which inflated here before). */

/* What inflates a call's streams: `inflate`, and the file's bytes as one
 * memoryview whose slices it is handed (each holds the bytes it views). */
typedef struct { PyObject *inflate, *view; } OsInflater;

/* An object stream's dictionary written plainly: names for keys, each
 * value a name or an unsigned integer, as most writers write it ("<<
 * /Type /ObjStm /N 100 /First 812 /Length 4406 /Filter /FlateDecode >>").
 * Read here without a Python object (xr_dict, its lexing twice and a dict
 * of Python values, was most of reading a stream but inflating it); any
 * other byte, and a key given twice, leaves the dictionary to xr_dict. The
 * entries read are exactly what xr_dict's dict holds then: a name (no
 * escape) and an integer of at most 18 digits end at white space or a
 * delimiter both read alike. */
enum { OS_PLAIN_KEYS = 16 };
typedef struct {
    struct { const unsigned char *key, *name; int key_len, name_len; long long value; } e[OS_PLAIN_KEYS];
    int n;
} OsPlain;

static inline int os_plain_space(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
static inline int os_plain_letter(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
/* Where a name or an integer may end: white space, a name, the dictionary's end. */
static inline int os_plain_end(const unsigned char *p, const unsigned char *end) {
    return p < end && (os_plain_space(*p) || *p == '/' || *p == '>');
}

/* The name whose '/' is at *p (letters and digits only): its length, *p past it; 0 where not one. */
static int os_plain_name(const unsigned char **p, const unsigned char *end) {
    const unsigned char *q = *p + 1;
    while (q < end && os_plain_letter(*q)) q++;
    int len = (int)(q - *p - 1);
    if (!len || len > 64 || !os_plain_end(q, end)) return 0;
    *p = q;
    return len;
}

/* The dictionary at `at` as OsPlain: 1 with *after set past ">>", 0 where it is not written plainly. */
static int os_plain_dict(const XrefRead *x, Py_ssize_t at, OsPlain *d, Py_ssize_t *after) {
    const unsigned char *p = x->d + at, *end = x->d + x->n;
    if (end - p < 2 || p[0] != '<' || p[1] != '<') return 0;
    p += 2;
    d->n = 0;
    for (;;) {
        while (p < end && os_plain_space(*p)) p++;
        if (end - p >= 2 && p[0] == '>' && p[1] == '>') {
            *after = p + 2 - x->d;
            return 1;
        }
        if (p >= end || *p != '/' || d->n == OS_PLAIN_KEYS) return 0;
        const unsigned char *key = p + 1;
        int key_len = os_plain_name(&p, end);
        if (!key_len) return 0;
        for (int k = 0; k < d->n; k++)
            if (d->e[k].key_len == key_len && !memcmp(d->e[k].key, key, (size_t)key_len)) return 0; /* xr_dict declines it */
        while (p < end && os_plain_space(*p)) p++;
        int n = d->n;
        d->e[n].key = key;
        d->e[n].key_len = key_len;
        d->e[n].name = NULL;
        d->e[n].name_len = 0;
        d->e[n].value = 0;
        if (p < end && *p == '/') {
            d->e[n].name = p + 1;
            if (!(d->e[n].name_len = os_plain_name(&p, end))) return 0;
        } else {
            const unsigned char *digits = p;
            while (p < end && *p >= '0' && *p <= '9' && p - digits < 18) d->e[n].value = d->e[n].value * 10 + (*p++ - '0');
            if (p == digits || !os_plain_end(p, end)) return 0; /* no integer, or more (a reference, a real, 19 digits) */
        }
        d->n++;
    }
}

/* The entry `key` (no slash) of d, NULL when absent. */
static const void *os_plain_get(const OsPlain *d, const char *key, int *index) {
    int len = (int)strlen(key);
    for (int k = 0; k < d->n; k++)
        if (d->e[k].key_len == len && !memcmp(d->e[k].key, key, (size_t)len)) { *index = k; return d; }
    return NULL;
}

/* As xr_int reads the entry: 1 with *v, 0 when absent, -1 when a name. */
static int os_plain_int(const OsPlain *d, const char *key, long long *v) {
    int k;
    if (!os_plain_get(d, key, &k)) return 0;
    if (d->e[k].name) return -1;
    *v = d->e[k].value;
    return 1;
}

/* Whether the entry is the name `name` (no slash). */
static int os_plain_name_is(const OsPlain *d, const char *key, const char *name) {
    int k, len = (int)strlen(name);
    return os_plain_get(d, key, &k) && d->e[k].name && d->e[k].name_len == len && !memcmp(d->e[k].name, name, (size_t)len);
}

/* The data inflated by `inflate`, a slice of the file's bytes: Py_None, bytes, NULL on error. */
static PyObject *os_inflated(const OsInflater *f, Py_ssize_t start, Py_ssize_t len) {
    PyObject *raw = PySequence_GetSlice(f->view, start, start + len);
    if (!raw) return NULL;
    PyObject *decoded = PyObject_CallOneArg(f->inflate, raw);
    Py_DECREF(raw);
    if (decoded && decoded != Py_None && !PyBytes_CheckExact(decoded)) {
        PyErr_SetString(PyExc_TypeError, "object_streams: inflate must answer bytes or None");
        Py_CLEAR(decoded);
    }
    return decoded;
}

/* The stream's data decoded: as written (no filter) or inflated
 * (FlateDecode alone); Py_None when anything else, NULL on error. */
static PyObject *os_decoded(const XrefRead *x, const OsInflater *f, PyObject *dict, Py_ssize_t start, Py_ssize_t len) {
    PyObject *filter = PyDict_GetItemString(dict, "/Filter");
    if (PyDict_GetItemString(dict, "/DecodeParms")) return Py_NewRef(Py_None);
    if (filter && PyList_CheckExact(filter) && PyList_GET_SIZE(filter) == 1) filter = PyList_GET_ITEM(filter, 0);
    if (!filter) return PyBytes_FromStringAndSize((const char *)x->d + start, len);
    if (!xr_name_is(filter, "/FlateDecode")) return Py_NewRef(Py_None);
    return os_inflated(f, start, len);
}

/* os_read's answer for a stream whose dictionary is written plainly
 * (os_plain_dict; `after` past it): the same tests as on xr_dict's dict. */
static PyObject *os_read_plain(const XrefRead *x, const OsInflater *f, const OsPlain *d, Py_ssize_t after) {
    long long first, count, length = 0;
    Py_ssize_t start, len;
    int k, has_length = os_plain_int(d, "Length", &length);
    if (!os_plain_name_is(d, "Type", "ObjStm") || os_plain_int(d, "N", &count) != 1 || os_plain_int(d, "First", &first) != 1 ||
        xr_stream_span_of(x, has_length, length, after, &start, &len) || os_plain_get(d, "DecodeParms", &k))
        return Py_NewRef(Py_None);
    PyObject *decoded;
    if (!os_plain_get(d, "Filter", &k)) decoded = PyBytes_FromStringAndSize((const char *)x->d + start, len);
    else if (!os_plain_name_is(d, "Filter", "FlateDecode")) return Py_NewRef(Py_None);
    else decoded = os_inflated(f, start, len);
    if (!decoded || decoded == Py_None) return decoded;
    PyObject *result = Py_BuildValue("(OLL)", decoded, first, count);
    Py_DECREF(decoded);
    return result;
}

/* The object stream `number` at `offset`: (decoded, first, count), Py_None
 * where declined, NULL on error. */
static PyObject *os_read(const XrefRead *x, const OsInflater *f, long long number, long long offset) {
    long long num, gen, first, count;
    Py_ssize_t after, start, len;
    if (offset <= 0 || offset >= x->n || !xr_object_header(x, (Py_ssize_t)offset, &num, &gen, &after) || num != number || gen != 0)
        return Py_NewRef(Py_None);
    OsPlain plain;
    Py_ssize_t at = xr_skip_ws(x, after);
    if (os_plain_dict(x, at, &plain, &after)) return os_read_plain(x, f, &plain, after);
    PyObject *dict = xr_dict(x, at, &after);
    if (!dict) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    PyObject *result = NULL, *decoded = NULL;
    if (!xr_name_is(PyDict_GetItemString(dict, "/Type"), "/ObjStm") || xr_int(dict, "/N", &count) != 1 ||
        xr_int(dict, "/First", &first) != 1 || xr_stream_span(x, dict, after, &start, &len)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (!(decoded = os_decoded(x, f, dict, start, len))) goto done;
    result = decoded == Py_None ? Py_NewRef(Py_None) : Py_BuildValue("(OLL)", decoded, first, count);
done:
    Py_XDECREF(decoded);
    Py_DECREF(dict);
    return result;
}

static PyObject *core_object_streams(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[4], *numbers, *inflate;
    if (!PyArg_ParseTuple(args, "OOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &numbers, &inflate)) return NULL;
    if (!PyCallable_Check(inflate)) {
        PyErr_SetString(PyExc_TypeError, "object_streams: inflate must be callable");
        return NULL;
    }
    XrColumns c;
    if (xr_columns_get(objs, "object_streams", &c) < 0) return NULL;
    PyObject *result = NULL, *iter = NULL, *item;
    Py_ssize_t n = c.kinds.len;
    XrefRead x = {c.data.buf, c.data.len, 0, NULL, NULL, NULL, NULL, 0, NULL};
    OsInflater f = {inflate, NULL};
    if (!(f.view = PyMemoryView_FromObject(objs[0])) || !(result = PyList_New(0)) || !(iter = PyObject_GetIter(numbers)))
        goto failed;
    const unsigned char *k = c.kinds.buf;
    const int64_t *offsets = c.second.buf, *generations = c.third.buf;
    while ((item = PyIter_Next(iter))) {
        int overflow = 0;
        long long number = PyLong_Check(item) ? PyLong_AsLongLongAndOverflow(item, &overflow) : -1;
        Py_DECREF(item);
        if (number == -1 && PyErr_Occurred()) goto failed;
        PyObject *read = number >= 0 && !overflow && number < n && k[number] == 1 && generations[number] == 0
                             ? os_read(&x, &f, number, offsets[number]) : Py_NewRef(Py_None);
        int failed = !read || PyList_Append(result, read) < 0;
        Py_XDECREF(read);
        if (failed) goto failed;
    }
    if (!PyErr_Occurred()) goto done;
failed:
    Py_CLEAR(result);
done:
    Py_XDECREF(iter);
    Py_XDECREF(f.view);
    xr_columns_release(&c);
    return result;
}
/* ==== end of struct's section ============================================= */

/* ==== struct2's section: run_labels, a page's block labels from the element columns =====
 * run_labels(rows, type, std_names, header, path, path_names, level, lang,
 * alt, tail) -> six lists, reading._run_labels' (its reference) fields per
 * run: for each row r of `rows` (a run's owning element; below 0 for the
 * tail's runs) its standard type std_names[type[r]], path
 * path_names[path[r]], heading level (level[r], None for 0), /Lang lang[r],
 * header_cell[type[r]] and /Alt alt.get(r); a tail run takes tail's six
 * values. One call per page in place of a numpy gather and a list per field.
 * No PDF bytes are read here: the walk's columns only. */
static PyObject *core_run_labels(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_ssize_t size = PyTuple_GET_SIZE(args);
    if (size != 10) {
        PyErr_Format(PyExc_TypeError, "run_labels takes 10 arguments (%zd given)", size);
        return NULL;
    }
    PyObject *columns = PyTuple_GetSlice(args, 1, size), *result = NULL;
    if (!columns) return NULL;
    View rows = {0};
    LabelColumns c;
    if (label_columns_get(columns, &c) == 0 && get_view(PyTuple_GET_ITEM(args, 0), &rows, "l", 8, "rows") == 0)
        result = run_label_lists(rows.view.buf, rows.view.len / 8, &c);
    release(&rows);
    label_columns_release(&c);
    Py_DECREF(columns);
    return result;
}
/* ==== end of struct2's section ========================================== */

static PyMethodDef module_methods[] = {
    {"text_edges", (PyCFunction)core_text_edges, METH_O,
     "Per text (a list or an object array of str): length, first and last code point (int64)."},
    {"pair_rules", (PyCFunction)core_pair_rules, METH_VARARGS, "geometric._pair_rules over an ordered glyph run."},
    {"join_text", (PyCFunction)core_join_text, METH_VARARGS, "Texts joined with their separators, and their spans."},
    {"run_boxes", (PyCFunction)core_run_boxes, METH_VARARGS, "Bounding boxes of runs of emitted glyphs."},
    {"run_boxes_two", (PyCFunction)core_run_boxes_two, METH_VARARGS, "Bounding boxes of two sets of runs of the same emitted glyphs, in one pass."},
    {"run_spans_two", (PyCFunction)core_run_spans_two, METH_VARARGS, "Texts and spans of two sets of runs of one joined text (blocks.run_spans_two)."},
    {"run_mcids", (PyCFunction)core_run_mcids, METH_VARARGS, "Distinct MCIDs of runs of emitted glyphs (blocks.run_mcids)."},
    {"frozen_rows", (PyCFunction)core_frozen_rows, METH_VARARGS, "Frozen dataclass rows from columns (rows.frozen_rows)."},
    {"parse_object", (PyCFunction)core_parse_object, METH_VARARGS, "One PDF object's bytes as plain Python values."},
    {"parse_objects", (PyCFunction)core_parse_objects, METH_VARARGS, "The objects of an object stream as plain values."},
    {"object_stream_spans", (PyCFunction)core_object_stream_spans, METH_VARARGS, "An object stream header's spans."},
    {"object_stream_members", (PyCFunction)core_object_stream_members, METH_O,
     "The objects each object stream holds by the cross-reference table, and its top number."},
    {"xref_table", (PyCFunction)core_xref_table, METH_O,
     "The cross-reference table read from the file's bytes as qpdf reads it, as columns; None where unsure."},
    {"written_spans", (PyCFunction)core_written_spans, METH_VARARGS,
     "The spans of the objects written in the file where xref_table's columns put them (_WrittenObjects._spans)."},
    {"object_streams", (PyCFunction)core_object_streams, METH_VARARGS,
     "Object streams read from the file's bytes where xref_table's columns put them, as qpdf reads them; None where unsure."},
    {"walk_struct", (PyCFunction)core_walk_struct, METH_VARARGS, "The structure tree walk over its stack."},
    {"cmap_section", (PyCFunction)core_cmap_section, METH_VARARGS, "One CMap section body applied to a cmap.CMap."},
    {"nearest_marked", (PyCFunction)core_nearest_marked, METH_VARARGS, "StructTree.nearest in one pass (parents before kids)."},
    {"tree_tables", (PyCFunction)core_tree_tables, METH_VARARGS, "StructTree's block owners, content keys and page offsets in one pass (structure._tree_tables)."},
    {"structure_order", (PyCFunction)core_structure_order, METH_VARARGS, "A page's placement by the structure tree (reading._placement)."},
    {"owner_runs", (PyCFunction)core_owner_runs, METH_VARARGS, "A page's runs of one block owner over its emitted glyphs (reading._owned_blocks)."},
    {"block_cells", (PyCFunction)core_block_cells, METH_VARARGS, "A page's tagged cells as columns, read off its blocks (reading._cell_contents)."},
    {"page_cells", (PyCFunction)core_page_cells, METH_VARARGS, "A page's tagged table cells, grouped by table (tables._page_cells)."},
    {"table_finish", (PyCFunction)core_table_finish, METH_VARARGS, "A table's cells sorted, joined and labelled (tables._finished_cells)."},
    {"page_tables", (PyCFunction)core_page_tables, METH_VARARGS, "A page's tagged tables, finished where the page labels them (tables.structure_tables)."},
    {"cells_by_page", (PyCFunction)core_cells_by_page, METH_VARARGS, "Table cells grouped by page (tables.pieces_by_page)."},
    {"on_one_page", (PyCFunction)core_on_one_page, METH_VARARGS, "The tables whose cells' content lies on one page, and the pages with content in a cell (tables._cell_placement)."},
    {"grid_layout", (PyCFunction)core_grid_layout, METH_VARARGS, "The tagged tables' grids of a tree (tables.table_grids)."},
    {"run_labels", (PyCFunction)core_run_labels, METH_VARARGS, "A page's block labels from the element columns (reading._run_labels)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "Compiled content-stream interpreter of ragprep.extract.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) { Py_DECREF(&CoreType); Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "FIELDS", F_FIELDS) < 0) { Py_DECREF(m); return NULL; }
    if (PyType_Ready(&TreeObjectsType) < 0) { Py_DECREF(m); return NULL; }
    Py_INCREF(&TreeObjectsType);
    if (PyModule_AddObject(m, "TreeObjects", (PyObject *)&TreeObjectsType) < 0) { Py_DECREF(&TreeObjectsType); Py_DECREF(m); return NULL; }
    return m;
}
