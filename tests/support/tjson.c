/* Strict recursive-descent JSON parser for tests. */
#include "tjson.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;
    size_t n, i;
    char *err;
    size_t err_size;
    int failed;
    int depth;
} parser;

static void fail(parser *p, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = 1;
    if (!p->err || !p->err_size) return;
    size_t line = 1, col = 1;
    for (size_t k = 0; k < p->i && k < p->n; k++) {
        if (p->s[k] == '\n') line++, col = 1;
        else col++;
    }
    int w = snprintf(p->err, p->err_size, "line %zu col %zu: ", line, col);
    if (w < 0 || (size_t)w >= p->err_size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + w, p->err_size - (size_t)w, fmt, ap);
    va_end(ap);
}

static void ws(parser *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) p->i++;
}

static int lit(parser *p, const char *word)
{
    size_t l = strlen(word);
    if (p->n - p->i < l || memcmp(p->s + p->i, word, l) != 0) return 0;
    p->i += l;
    return 1;
}

static void value(parser *p, tjson *v);

static int hex4(parser *p, unsigned *out)
{
    if (p->n - p->i < 4) return 0;
    unsigned u = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->i++];
        u <<= 4;
        if (c >= '0' && c <= '9') u |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') u |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') u |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = u;
    return 1;
}

static char *string(parser *p, size_t *len)
{
    p->i++; /* opening quote */
    size_t cap = 16, n = 0;
    char *b = malloc(cap);
    if (!b) {
        fail(p, "out of memory");
        return NULL;
    }
    for (;;) {
        if (p->i >= p->n) {
            fail(p, "unterminated string");
            free(b);
            return NULL;
        }
        unsigned char c = (unsigned char)p->s[p->i++];
        char tmp[4];
        size_t tl = 0;
        if (c == '"') break;
        if (c < 0x20) {
            fail(p, "control character in string");
            free(b);
            return NULL;
        }
        if (c != '\\') {
            tmp[tl++] = (char)c;
        } else {
            if (p->i >= p->n) {
                fail(p, "bad escape");
                free(b);
                return NULL;
            }
            char e = p->s[p->i++];
            unsigned u;
            switch (e) {
            case '"': tmp[tl++] = '"'; break;
            case '\\': tmp[tl++] = '\\'; break;
            case '/': tmp[tl++] = '/'; break;
            case 'b': tmp[tl++] = '\b'; break;
            case 'f': tmp[tl++] = '\f'; break;
            case 'n': tmp[tl++] = '\n'; break;
            case 'r': tmp[tl++] = '\r'; break;
            case 't': tmp[tl++] = '\t'; break;
            case 'u':
                if (!hex4(p, &u)) {
                    fail(p, "bad \\u escape");
                    free(b);
                    return NULL;
                }
                if (u >= 0xD800 && u < 0xDC00) {
                    unsigned lo;
                    if (!lit(p, "\\u") || !hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                        fail(p, "unpaired surrogate");
                        free(b);
                        return NULL;
                    }
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                } else if (u >= 0xDC00 && u < 0xE000) {
                    fail(p, "unpaired surrogate");
                    free(b);
                    return NULL;
                }
                if (u < 0x80) tmp[tl++] = (char)u;
                else if (u < 0x800) {
                    tmp[tl++] = (char)(0xC0 | (u >> 6));
                    tmp[tl++] = (char)(0x80 | (u & 63));
                } else if (u < 0x10000) {
                    tmp[tl++] = (char)(0xE0 | (u >> 12));
                    tmp[tl++] = (char)(0x80 | ((u >> 6) & 63));
                    tmp[tl++] = (char)(0x80 | (u & 63));
                } else {
                    tmp[tl++] = (char)(0xF0 | (u >> 18));
                    tmp[tl++] = (char)(0x80 | ((u >> 12) & 63));
                    tmp[tl++] = (char)(0x80 | ((u >> 6) & 63));
                    tmp[tl++] = (char)(0x80 | (u & 63));
                }
                break;
            default:
                fail(p, "bad escape \\%c", e);
                free(b);
                return NULL;
            }
        }
        if (n + tl + 1 > cap) {
            cap = cap * 2 + tl;
            char *nb = realloc(b, cap);
            if (!nb) {
                fail(p, "out of memory");
                free(b);
                return NULL;
            }
            b = nb;
        }
        memcpy(b + n, tmp, tl);
        n += tl;
    }
    b[n] = 0;
    *len = n;
    return b;
}

static void number(parser *p, tjson *v)
{
    size_t st = p->i;
    int integral = 1;
    if (p->s[p->i] == '-') p->i++;
    if (p->i >= p->n) {
        fail(p, "bad number");
        return;
    }
    if (p->s[p->i] == '0') p->i++;
    else if (p->s[p->i] >= '1' && p->s[p->i] <= '9')
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    else {
        fail(p, "bad number");
        return;
    }
    if (p->i < p->n && p->s[p->i] == '.') {
        integral = 0;
        p->i++;
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
            fail(p, "bad fraction");
            return;
        }
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        integral = 0;
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
            fail(p, "bad exponent");
            return;
        }
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    }
    char buf[64];
    size_t l = p->i - st;
    char *tmp = l < sizeof buf ? buf : malloc(l + 1);
    if (!tmp) {
        fail(p, "out of memory");
        return;
    }
    memcpy(tmp, p->s + st, l);
    tmp[l] = 0;
    v->type = TJSON_NUMBER;
    v->number = strtod(tmp, NULL);
    if (integral) {
        errno = 0;
        long long x = strtoll(tmp, NULL, 10);
        if (errno == 0) {
            v->is_integer = 1;
            v->integer = x;
        }
    }
    if (tmp != buf) free(tmp);
}

static void push(parser *p, tjson *v, tjson *item, char *key)
{
    tjson *ni = realloc(v->items, (v->count + 1) * sizeof *ni);
    if (!ni) {
        fail(p, "out of memory");
        free(key);
        tjson_free(item);
        return;
    }
    v->items = ni;
    if (v->type == TJSON_OBJECT) {
        char **nk = realloc(v->keys, (v->count + 1) * sizeof *nk);
        if (!nk) {
            fail(p, "out of memory");
            free(key);
            return;
        }
        v->keys = nk;
        nk[v->count] = key;
    }
    ni[v->count++] = *item;
    free(item);
}

static void value(parser *p, tjson *v)
{
    memset(v, 0, sizeof *v);
    if (++p->depth > 512) {
        fail(p, "nesting too deep");
        return;
    }
    ws(p);
    if (p->i >= p->n) {
        fail(p, "unexpected end");
        return;
    }
    char c = p->s[p->i];
    if (c == '{' || c == '[') {
        v->type = c == '{' ? TJSON_OBJECT : TJSON_ARRAY;
        char close = c == '{' ? '}' : ']';
        p->i++;
        ws(p);
        if (p->i < p->n && p->s[p->i] == close) {
            p->i++;
            p->depth--;
            return;
        }
        for (;;) {
            char *key = NULL;
            if (v->type == TJSON_OBJECT) {
                ws(p);
                size_t kl;
                if (p->i >= p->n || p->s[p->i] != '"') {
                    fail(p, "expected a key");
                    return;
                }
                key = string(p, &kl);
                if (!key) return;
                ws(p);
                if (p->i >= p->n || p->s[p->i] != ':') {
                    fail(p, "expected ':'");
                    free(key);
                    return;
                }
                p->i++;
            }
            tjson *item = calloc(1, sizeof *item);
            if (!item) {
                fail(p, "out of memory");
                free(key);
                return;
            }
            value(p, item);
            push(p, v, item, key);
            if (p->failed) return;
            ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->s[p->i] == close) {
                p->i++;
                break;
            }
            fail(p, "expected ',' or '%c'", close);
            return;
        }
    } else if (c == '"') {
        v->type = TJSON_STRING;
        v->string = string(p, &v->len);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        number(p, v);
    } else if (lit(p, "true")) {
        v->type = TJSON_BOOL, v->boolean = 1;
    } else if (lit(p, "false")) {
        v->type = TJSON_BOOL;
    } else if (lit(p, "null")) {
        v->type = TJSON_NULL;
    } else {
        fail(p, "unexpected character '%c'", c);
    }
    p->depth--;
}

static void release(tjson *v)
{
    for (size_t i = 0; i < v->count; i++) {
        release(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

void tjson_free(tjson *v)
{
    if (!v) return;
    release(v);
    free(v);
}

tjson *tjson_parse(const char *text, size_t len, char *err, size_t err_size)
{
    parser p = { text, len, 0, err, err_size, 0, 0 };
    tjson *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    value(&p, v);
    ws(&p);
    if (!p.failed && p.i != p.n) fail(&p, "trailing characters");
    if (p.failed) {
        tjson_free(v);
        return NULL;
    }
    return v;
}

tjson *tjson_parse_file(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && err_size) snprintf(err, err_size, "cannot open %s", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            } else buf = nb;
        }
    }
    fclose(f);
    if (!buf) return NULL;
    tjson *v = tjson_parse(buf, n, err, err_size);
    free(buf);
    return v;
}

const tjson *tjson_get(const tjson *v, const char *key)
{
    if (!v || v->type != TJSON_OBJECT) return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->keys[i], key) == 0) return &v->items[i];
    return NULL;
}

const tjson *tjson_at(const tjson *v, size_t i)
{
    if (!v || v->type != TJSON_ARRAY || i >= v->count) return NULL;
    return &v->items[i];
}

int64_t tjson_int(const tjson *v, int64_t fallback)
{
    return v && v->type == TJSON_NUMBER && v->is_integer ? v->integer : fallback;
}

double tjson_num(const tjson *v, double fallback) { return v && v->type == TJSON_NUMBER ? v->number : fallback; }

const char *tjson_str(const tjson *v, const char *fallback)
{
    return v && v->type == TJSON_STRING ? v->string : fallback;
}
