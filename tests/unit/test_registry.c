/* The format registry and the option tables: every descriptor is consistent (flags
 * against its entry points, names, families, options), lookups work, and option
 * settings are checked as documented (unknown names, values outside the choices,
 * writer options of another format). */
#include <ctype.h>
#include <stdlib.h>

#include "core/internal.h"
#include "formats/format.h"
#include "test.h"

TEST(descriptors_are_consistent)
{
    size_t n;
    const ganim_format *const *all = ganim_formats(&n);
    CHECK(n >= 6);
    for (size_t i = 0; i < n; i++) {
        const ganim_format *f = all[i];
        CHECK_MSG(f->name && f->description && f->family && f->extensions && f->impl, "format %zu", i);
        if (!f->impl) continue;
        CHECK_MSG(((f->flags & GANIM_FORMAT_READ) != 0) == (f->impl->read != NULL), "%s: read flag", f->name);
        CHECK_MSG(((f->flags & GANIM_FORMAT_WRITE) != 0) == (f->impl->write != NULL), "%s: write flag", f->name);
        CHECK_MSG(((f->flags & GANIM_FORMAT_RESAMPLE) != 0) == (f->impl->resample != NULL), "%s: resample flag",
                  f->name);
        CHECK_MSG(f->impl->probe != NULL, "%s: no probe", f->name);
        CHECK_MSG(ganim_format_find(f->name) == f, "%s: find", f->name);
        for (size_t k = 0; k < i; k++) CHECK_MSG(strcmp(all[k]->name, f->name) != 0, "%s twice", f->name);
        /* options: "<family>.<name>" (or "<format>.<name>" for a format that shares its family:
         * civ7.version), choices, help */
        for (uint32_t o = 0; o < f->option_count; o++) {
            const ganim_option *op = &f->options[o];
            size_t fl = strlen(f->family), nl = strlen(f->name);
            CHECK_MSG((strncmp(op->name, f->family, fl) == 0 && op->name[fl] == '.') ||
                          (strncmp(op->name, f->name, nl) == 0 && op->name[nl] == '.'),
                      "%s: option %s", f->name, op->name);
            CHECK_MSG(op->values && *op->values && op->help && op->when_unset, "%s: option %s", f->name, op->name);
            CHECK_MSG(op->flags & (GANIM_OPTION_READ | GANIM_OPTION_WRITE), "%s: option %s applies to nothing", f->name,
                      op->name);
            const ganim_format *owner = NULL;
            CHECK(ganim_option_find(op->name, &owner) == op && owner == f);
            CHECK(ganim_format_takes_option(f, op, op->flags));
        }
        /* a writer that takes another format's options takes them from its own family */
        const ganim_format *lender = f->impl->writer_options_of;
        if (lender)
            CHECK_MSG(lender != f && strcmp(lender->family, f->family) == 0, "%s lends to %s", lender->name, f->name);
    }
    CHECK(ganim_format_find("no-such-format") == NULL);
    CHECK(ganim_option_find("no.such", NULL) == NULL);
}

/* A spelling the tool accepts as --NAME: lower-case letters, digits and inner dashes. */
static int option_word(const char *s)
{
    if (!*s || *s == '-') return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) return 0;
    return s[strlen(s) - 1] != '-';
}

/* The tool's --ALIAS options share one namespace with its own options: every alias is
 * "<family>-<option>" (the option's name with the dot a dash, so it says whose it is),
 * no two options share a spelling, and a deprecated spelling is none of them either.
 * (The tool itself refuses an alias equal to one of its own options: tests/cli/run.sh.) */
TEST(aliases_are_prefixed_and_unique)
{
    size_t n;
    const ganim_format *const *all = ganim_formats(&n);
    const char *seen[256];
    size_t nseen = 0, aliases = 0, deprecated = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t o = 0; o < all[i]->option_count; o++) {
            const ganim_option *op = &all[i]->options[o];
            if (op->alias) {
                aliases++;
                char want[128];
                snprintf(want, sizeof want, "%s", op->name);
                for (char *p = want; *p; p++)
                    if (*p == '.') *p = '-';
                CHECK_MSG(strcmp(op->alias, want) == 0, "%s: alias --%s, want --%s", op->name, op->alias, want);
            }
            CHECK_MSG(!op->deprecated_alias || op->alias, "%s: a deprecated alias without a new one", op->name);
            const char *spellings[2] = { op->alias, op->deprecated_alias };
            for (int k = 0; k < 2; k++) {
                if (!spellings[k]) continue;
                deprecated += k;
                CHECK_MSG(option_word(spellings[k]), "%s: --%s is no option word", op->name, spellings[k]);
                for (size_t j = 0; j < nseen; j++)
                    CHECK_MSG(strcmp(seen[j], spellings[k]) != 0, "%s: --%s is taken twice", op->name, spellings[k]);
                if (nseen < sizeof seen / sizeof seen[0]) seen[nseen++] = spellings[k];
            }
        }
    CHECK(aliases >= 10);
    CHECK_EQ_INT(deprecated, 3); /* Argonaut's --variant, --convention, --model */
    const ganim_option *model = ganim_option_find("argonaut.model", NULL);
    CHECK(model && model->alias && strcmp(model->alias, "argonaut-model") == 0 &&
          strcmp(model->deprecated_alias, "model") == 0);
}

TEST(extensions_and_probe)
{
    const ganim_format *ala = ganim_format_find("alamo-ala");
    CHECK(ala != NULL);
    CHECK(ganim_format_for_path("dir.x/MODEL_DIE_00.ALA") == ala);
    CHECK(ganim_format_for_path("dir.ala/model") == NULL);
    CHECK(ganim_format_has_extension(ala, ".Ala"));
    CHECK(!ganim_format_has_extension(ala, ".al"));
    static const uint8_t junk[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int score = -1;
    CHECK(ganim_probe(junk, sizeof junk, &score) == NULL && score == 0);
    CHECK_EQ_INT(ganim_format_probe(ala, junk, sizeof junk), 0);
    CHECK_EQ_INT(ganim_format_probe(ala, NULL, 0), 0);
}

TEST(option_values_are_checked)
{
    const ganim_option *bkey = ganim_option_find("ff7.bkey", NULL);
    CHECK(bkey != NULL);
    if (!bkey) return;
    ganim_error e = { 0 };
    CHECK(ganim_option_check(bkey, "2", &e) == GANIM_OK);
    CHECK(ganim_option_check(bkey, "3", &e) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "ff7.bkey") && strstr(e.message, "0|2|4"), "%s", e.message);
    CHECK(ganim_option_check(bkey, "", &e) == GANIM_ERR_INVALID_ARG);
    CHECK(ganim_option_check(bkey, "02", &e) == GANIM_ERR_INVALID_ARG);
}

TEST(integer_options)
{
    /* an option of no format: ganim_option_check works on any table entry */
    const ganim_option n = { .name = "test.n",
                             .type = GANIM_OPTION_INT,
                             .flags = GANIM_OPTION_READ,
                             .values = "0..65535",
                             .help = "a number",
                             .when_unset = "none" };
    ganim_error e = { 0 };
    CHECK(ganim_option_check(&n, "0", &e) == GANIM_OK);
    CHECK(ganim_option_check(&n, "65535", &e) == GANIM_OK);
    CHECK(ganim_option_check(&n, "65536", &e) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "test.n") && strstr(e.message, "0..65535"), "%s", e.message);
    CHECK(ganim_option_check(&n, "-1", &e) == GANIM_ERR_INVALID_ARG);
    CHECK(ganim_option_check(&n, "", &e) == GANIM_ERR_INVALID_ARG);
    CHECK(ganim_option_check(&n, "1x", &e) == GANIM_ERR_INVALID_ARG);
    CHECK(ganim_option_check(&n, " 1", &e) == GANIM_ERR_INVALID_ARG);
    CHECK(ganim_option_check(&n, "99999999999999999999999", &e) == GANIM_ERR_INVALID_ARG);
    const ganim_setting s[2] = { { "test.n", "7" }, { "test.n", "12" } };
    int64_t v = -1;
    CHECK(ganim_setting_int(s, 2, &n, &v) == 1 && v == 12); /* the last wins */
    CHECK(ganim_setting_int(s, 0, &n, &v) == 0);
    CHECK_EQ_INT(ganim_setting_choice(s, 2, &n), -1);
    const ganim_option m = { .name = "test.m",
                             .type = GANIM_OPTION_INT,
                             .flags = GANIM_OPTION_READ,
                             .values = "-5..5",
                             .help = "a number",
                             .when_unset = "none" };
    CHECK(ganim_option_check(&m, "-5", &e) == GANIM_OK);
    CHECK(ganim_option_check(&m, "-6", &e) == GANIM_ERR_INVALID_ARG);
    const ganim_option bad = { .name = "test.b",
                               .type = GANIM_OPTION_INT,
                               .flags = GANIM_OPTION_READ,
                               .values = "5",
                               .help = "a number",
                               .when_unset = "none" };
    CHECK(ganim_option_check(&bad, "5", &e) == GANIM_ERR_INVALID_ARG);
}

/* A tiny valid clip to write: one bone, two frames. */
static ganim_doc *small_doc(void)
{
    ganim_read_opts ro = { 0 };
    ro.format = "civ7";
    uint8_t v0[0x60 + 2 * 40];
    memset(v0, 0, sizeof v0);
    const uint32_t hdr[5] = { 0x6AB06AB0u, sizeof v0, 0x41F00000u /* 30.0f */, 2, 1 };
    for (int i = 0; i < 5; i++) memcpy(v0 + 4 * i, &hdr[i], 4);
    memset(v0 + 0x48, 0xFF, 4);
    for (int f = 0; f < 2; f++) { /* identity rotation, unit scale */
        float q[10] = { 1, 0, 0, 0, (float)f, 0, 0, 1, 1, 1 };
        memcpy(v0 + 0x60 + 40 * f, q, sizeof q);
    }
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(v0, sizeof v0, &ro, &doc, &e) == GANIM_OK, "%s", e.message);
    return doc;
}

TEST(settings_for_writes_and_reads)
{
    ganim_doc *doc = small_doc();
    if (!doc) return;
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    ganim_setting s;
    ganim_write_opts wo = test_write_setting(&s, "alamo.version", "1");
    CHECK(ganim_write(doc, "alamo-ala", &wo, &out, &e) == GANIM_OK);
    CHECK(out.size > 0);
    ganim_buffer_free(&out);
    /* another format's writer option */
    CHECK(ganim_write(doc, "civ7", &wo, &out, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "alamo.version") && strstr(e.message, "civ7"), "%s", e.message);
    /* a value outside the choices, an unknown name */
    wo = test_write_setting(&s, "alamo.version", "3");
    CHECK(ganim_write(doc, "alamo-ala", &wo, &out, &e) == GANIM_ERR_INVALID_ARG);
    wo = test_write_setting(&s, "alamo.nothing", "1");
    CHECK(ganim_write(doc, "alamo-ala", &wo, &out, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "unknown option"), "%s", e.message);
    CHECK_EQ_INT(out.size, 0);
    /* reads ignore other formats' options but refuse unknown names and bad values */
    ganim_read_opts ro = { 0 };
    ganim_setting rs = { "ff7.bkey", "2" };
    ro.settings = &rs;
    ro.setting_count = 1;
    ganim_doc *back = NULL;
    CHECK(ganim_write(doc, "civ7", NULL, &out, &e) == GANIM_OK);
    CHECK(ganim_read_memory(out.data, out.size, &ro, &back, &e) == GANIM_OK);
    ganim_doc_free(back);
    rs.value = "5";
    CHECK(ganim_read_memory(out.data, out.size, &ro, &back, &e) == GANIM_ERR_INVALID_ARG && back == NULL);
    rs.name = "no.such";
    CHECK(ganim_read_memory(out.data, out.size, &ro, &back, &e) == GANIM_ERR_INVALID_ARG && back == NULL);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* The civ7 writer takes the acl writer's options (for its V1 body), nothing else does,
 * and no reader takes a writer option. */
TEST(borrowed_writer_options)
{
    const ganim_format *acl = ganim_format_find("acl"), *civ7 = ganim_format_find("civ7"),
                       *ala = ganim_format_find("alamo-ala");
    const ganim_option *prec = ganim_option_find("acl.precision", NULL), *ver = ganim_option_find("civ7.version", NULL);
    CHECK(acl && civ7 && ala && prec && ver);
    if (!acl || !civ7 || !ala || !prec || !ver) return;
    CHECK_EQ_INT(ganim_format_takes_option(acl, prec, GANIM_OPTION_WRITE), 1);
    CHECK_EQ_INT(ganim_format_takes_option(civ7, prec, GANIM_OPTION_WRITE), 1);
    CHECK_EQ_INT(ganim_format_takes_option(civ7, prec, GANIM_OPTION_READ), 0);
    CHECK_EQ_INT(ganim_format_takes_option(acl, ver, GANIM_OPTION_WRITE), 0);
    CHECK_EQ_INT(ganim_format_takes_option(ala, prec, GANIM_OPTION_WRITE), 0);
    CHECK_EQ_INT(ganim_format_takes_option(NULL, prec, GANIM_OPTION_WRITE), 0);
    CHECK_EQ_INT(ganim_format_takes_option(civ7, NULL, GANIM_OPTION_WRITE), 0);
    size_t n, lent = 0;
    const ganim_format *const *all = ganim_formats(&n);
    for (size_t i = 0; i < n; i++) lent += ganim_format_takes_option(all[i], prec, GANIM_OPTION_WRITE);
    CHECK_EQ_INT(lent, 2);
}

/* ganim_strcasecmp as it was before it compared same bytes without tolower. */
static int strcasecmp_reference(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca != cb || !ca) return ca - cb;
    }
}

/* ganim_strcasecmp against the reference, the same value (not only its sign): every pair
 * of strings of up to three bytes from an alphabet of letters in both cases, the bytes
 * next to them (@ [ ` {), a digit and high bytes (0x80, 0xC9, 0xFF), 1,885 x 1,885
 * pairs; every pair of one-byte strings; random strings of up to 12 bytes sharing a
 * prefix, some of its letters in the other case. */
TEST(strcasecmp_matches_reference)
{
    static const char alpha[] = "aAzZ@[`{0\x80\xC9\xFF";
    const size_t na = sizeof alpha - 1;
    char(*all)[4] = malloc(1885 * sizeof *all);
    CHECK(all != NULL);
    if (!all) return;
    size_t n = 0;
    memset(all[n++], 0, 4);
    for (size_t len = 1; len <= 3; len++) {
        size_t total = len == 1 ? na : len == 2 ? na * na : na * na * na;
        for (size_t v = 0; v < total; v++) {
            size_t x = v;
            memset(all[n], 0, 4);
            for (size_t k = 0; k < len; k++, x /= na) all[n][k] = alpha[x % na];
            n++;
        }
    }
    CHECK_EQ_INT(n, 1885);
    long bad = 0, tried = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++, tried++)
            bad += ganim_strcasecmp(all[i], all[j]) != strcasecmp_reference(all[i], all[j]);
    free(all);
    for (int x = 0; x < 256; x++)
        for (int y = 0; y < 256; y++, tried++) {
            char a[2] = { (char)x, 0 }, b[2] = { (char)y, 0 };
            bad += ganim_strcasecmp(a, b) != strcasecmp_reference(a, b);
        }
    uint32_t seed = 12345u;
    for (int round = 0; round < 100000; round++, tried++) {
        char a[13], b[13];
        seed = seed * 1103515245u + 12345u;
        size_t la = (seed >> 16) % 13, lb = (seed >> 8) % 13, common = (seed >> 4) % 13;
        for (size_t k = 0; k < 12; k++) {
            seed = seed * 1103515245u + 12345u;
            a[k] = (char)(seed >> 24);
            seed = seed * 1103515245u + 12345u;
            b[k] = k < common ? ((seed >> 20) & 1 ? a[k] : (char)(a[k] ^ 0x20)) : (char)(seed >> 24);
        }
        a[la] = b[lb] = 0;
        a[12] = b[12] = 0;
        bad += ganim_strcasecmp(a, b) != strcasecmp_reference(a, b);
    }
    CHECK_MSG(bad == 0, "%ld of %ld comparisons differ", bad, tried);
    CHECK(tried == 1885L * 1885L + 65536L + 100000L);
    CHECK(ganim_strcasecmp("BvH", "bvh") == 0 && ganim_strcasecmp("bvh", "bvhx") == -'x' &&
          ganim_strcasecmp("b", "A") == 'b' - 'a');
}

/* ganim_format_find against every name compared whole (ganim_strcasecmp, as before its
 * first-byte filter): each format's name in random cases, with its first byte replaced by
 * every byte, one byte longer or shorter, and random strings. */
static const ganim_format *find_reference(const char *name)
{
    size_t count = 0;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++)
        if (ganim_strcasecmp(all[i]->name, name) == 0) return all[i];
    return NULL;
}

TEST(format_find_matches_reference)
{
    size_t count = 0;
    const ganim_format *const *all = ganim_formats(&count);
    uint32_t seed = 12345u;
    long tried = 0, found = 0;
    for (size_t i = 0; i < count; i++) {
        const char *name = all[i]->name;
        size_t n = strlen(name);
        CHECK(n > 0 && n < 60 && name[0] >= 'a' && name[0] <= 'z'); /* the filter's premise */
        for (int round = 0; round < 600; round++) {
            char s[64];
            memcpy(s, name, n + 1);
            for (size_t k = 0; k < n; k++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) & 1 && s[k] >= 'a' && s[k] <= 'z') s[k] = (char)(s[k] - 32);
            }
            if (round < 256) s[0] = (char)round;
            else if (round % 7 == 0) s[n - 1] = 0;
            else if (round % 7 == 1) memcpy(s + n, "x", 2);
            const ganim_format *got = ganim_format_find(s), *want = find_reference(s);
            CHECK_MSG(got == want, "'%s' (byte 0x%02x first): %s, reference %s", s, (unsigned char)s[0],
                      got ? got->name : "none", want ? want->name : "none");
            tried++;
            found += got != NULL;
        }
    }
    for (int round = 0; round < 20000; round++) {
        char s[8];
        for (int k = 0; k < 7; k++) {
            seed = seed * 1103515245u + 12345u;
            s[k] = "bvhBVHacl-ACL7ffg"[(seed >> 16) % 17];
        }
        s[(seed >> 8) % 8] = 0;
        s[7] = 0;
        CHECK(ganim_format_find(s) == find_reference(s));
        tried++;
    }
    CHECK(ganim_format_find(NULL) == NULL);
    CHECK(found > (long)count * 200); /* every case of each name, its first byte in both cases */
    printf("  %ld names, %ld found\n", tried, found);
}

TEST(version)
{
    CHECK_EQ_INT(ganim_version(), GANIM_VERSION_MAJOR * 10000 + GANIM_VERSION_MINOR * 100 + GANIM_VERSION_PATCH);
    CHECK_EQ_STR(ganim_version_string(), GANIM_VERSION_STRING);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", GANIM_VERSION_MAJOR, GANIM_VERSION_MINOR, GANIM_VERSION_PATCH);
    CHECK_EQ_STR(GANIM_VERSION_STRING, want);
}

int main(void)
{
    RUN(version);
    RUN(strcasecmp_matches_reference);
    RUN(format_find_matches_reference);
    RUN(descriptors_are_consistent);
    RUN(aliases_are_prefixed_and_unique);
    RUN(integer_options);
    RUN(extensions_and_probe);
    RUN(option_values_are_checked);
    RUN(settings_for_writes_and_reads);
    RUN(borrowed_writer_options);
    return test_finish();
}
