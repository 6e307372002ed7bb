/* A format's details (include/ganim.h: a tree of typed, named values) as lines for
 * people: "label: value (meaning)". Groups and lists of plain values fit on one line;
 * others are indented under their label. Nothing here knows a format. */
#include "cli.h"

#include <string.h>

/* Short lists and byte strings are shown whole, longer ones by their size. */
enum { MAX_INLINE_ITEMS = 12, MAX_INLINE_BYTES = 16 };

static int is_plain(const ganim_detail *d) { return d->type != GANIM_DETAIL_LIST && d->type != GANIM_DETAIL_GROUP; }

static void label(cli_str *b, const ganim_detail *d)
{
    const char *l = d->label ? d->label : d->key ? d->key : "";
    for (const char *p = l; *p; p++) cli_str_append(b, *p == '_' ? " " : p, 1);
}

static void plain_value(cli_str *b, const ganim_detail *d)
{
    switch (d->type) {
    case GANIM_DETAIL_NULL: cli_str_puts(b, "none"); break;
    case GANIM_DETAIL_BOOL: cli_str_puts(b, d->value.b ? "yes" : "no"); break;
    case GANIM_DETAIL_INT: cli_str_printf(b, "%lld", (long long)d->value.i); break;
    case GANIM_DETAIL_UINT: cli_str_printf(b, "%llu", (unsigned long long)d->value.u); break;
    case GANIM_DETAIL_FLOAT: cli_str_printf(b, "%g", (double)d->value.f); break;
    case GANIM_DETAIL_DOUBLE: cli_str_printf(b, "%.4g", d->value.d); break;
    case GANIM_DETAIL_STRING: cli_str_printable(b, d->value.s ? d->value.s : ""); break;
    case GANIM_DETAIL_BYTES:
        if (d->value.bytes.size == 0) {
            cli_str_puts(b, "0 bytes");
        } else if (d->value.bytes.size <= MAX_INLINE_BYTES) {
            for (size_t i = 0; i < d->value.bytes.size; i++) cli_str_printf(b, "%02x", d->value.bytes.data[i]);
        } else {
            cli_str_printf(b, "%zu bytes", d->value.bytes.size);
        }
        break;
    case GANIM_DETAIL_INTS:
        if (d->value.ints.count <= MAX_INLINE_ITEMS) {
            for (size_t i = 0; i < d->value.ints.count; i++)
                cli_str_printf(b, "%s%d", i ? " " : "", (int)d->value.ints.data[i]);
        } else {
            cli_str_printf(b, "%zu integers", d->value.ints.count);
        }
        break;
    default: break;
    }
}

/* A group or list whose items are all plain and few enough: "k v, k v" / "v, v". */
static int inline_container(const ganim_detail *d)
{
    if (is_plain(d) || d->count > MAX_INLINE_ITEMS) return 0;
    for (uint32_t i = 0; i < d->count; i++)
        if (!is_plain(&d->items[i])) return 0;
    return 1;
}

static void value_text(cli_str *b, const ganim_detail *d)
{
    if (is_plain(d)) {
        plain_value(b, d);
    } else if (d->count == 0) {
        cli_str_puts(b, "none");
    } else {
        for (uint32_t i = 0; i < d->count; i++) {
            if (i) cli_str_puts(b, ", ");
            if (d->type == GANIM_DETAIL_GROUP) {
                label(b, &d->items[i]);
                cli_str_puts(b, " ");
            }
            plain_value(b, &d->items[i]);
        }
    }
    if (d->meaning) {
        cli_str_puts(b, " (");
        cli_str_puts(b, d->meaning);
        cli_str_puts(b, ")");
    }
}

static void line(cli_str *b, const ganim_detail *d, const char *indent, int depth)
{
    cli_str_puts(b, indent);
    for (int i = 0; i < depth; i++) cli_str_puts(b, "  ");
    label(b, d);
    if (is_plain(d) || inline_container(d)) {
        cli_str_puts(b, ": ");
        value_text(b, d);
        cli_str_puts(b, "\n");
        return;
    }
    if (d->type == GANIM_DETAIL_LIST && d->count > MAX_INLINE_ITEMS * 4 && d->count && !is_plain(&d->items[0])) {
        cli_str_printf(b, ": %u entries\n", d->count);
        return;
    }
    cli_str_puts(b, d->meaning ? ": " : ":");
    if (d->meaning) cli_str_puts(b, d->meaning);
    cli_str_puts(b, "\n");
    for (uint32_t i = 0; i < d->count; i++) {
        ganim_detail item = d->items[i];
        char index[32];
        if (d->type == GANIM_DETAIL_LIST) { /* list items have no key: "0", "1", ... */
            snprintf(index, sizeof index, "%u", i);
            item.key = index;
            item.label = NULL;
        }
        line(b, &item, indent, depth + 1);
    }
}

void cli_details_text(cli_str *b, const ganim_detail *root, const ganim_detail *except, const char *indent)
{
    if (!root || root->type != GANIM_DETAIL_GROUP) return;
    for (uint32_t i = 0; i < root->count; i++) {
        cli_str one = { 0 };
        line(&one, &root->items[i], indent, 0);
        int repeated = 0;
        /* A clip's details that say what the document's already said are not repeated. */
        for (uint32_t k = 0; except && k < except->count && !repeated; k++) {
            cli_str other = { 0 };
            line(&other, &except->items[k], indent, 0);
            repeated = strcmp(other.s, one.s) == 0;
            cli_str_free(&other);
        }
        if (!repeated) cli_str_append(b, one.s, one.len);
        cli_str_free(&one);
    }
}
