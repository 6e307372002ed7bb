/* ACL whole-clip decode into the model: one sub-track over one segment at a time
 * (record-major: the record's constants stay in registers and its mode is decided once
 * per segment), the skeleton from the metadata, and the clip's native record. */
#include "formats/acl/acl_internal.h"

/* Stored samples of `sg` whose 8-byte windows are all inside the buffer: every bit a
 * record reads in sample i lies below (i + 1) * pose_bits (parse_segment checked that
 * the widths add up to pose_bits), so sample i is safe when (i+1)*pose_bits - 1 is below
 * gb_msb_proven_limit. */
static uint32_t proven_samples(const acl_seg *sg)
{
    uint64_t lim = gb_msb_proven_limit(sg->ani_room), pb = sg->pose_bits;
    if (pb == 0) return sg->stored;
    uint64_t n = lim / pb; /* (i + 1) * pb <= lim */
    return n < sg->stored ? (uint32_t)n : sg->stored;
}

/* Record r of segment sg over its stored samples [from, to) into out (out[0]: sample
 * `from`; 4 floats a sample for rotations, 3 otherwise); samples below `proven` are
 * inside the buffer for 8-byte windows (proven <= to). Returns the count of values replaced (non-finite
 * or degenerate). The document read takes a segment whole; ganim_acl_decode_clip takes
 * it in slices of ACL_CLIP_CHUNK samples (its stack buffer): the same operations on
 * each sample either way. Inlined into each caller: the document read's, with the whole
 * segment, keeps the code it had before the range was added. */
static GANIM_ALWAYS_INLINE uint32_t decode_run(const acl_seg *sg, const acl_rec *r, uint32_t proven, uint32_t from,
                                               uint32_t to, float *out, acl_fnv *fnv, acl_var_run4_fn run4)
{
    unsigned comps = r->kind == K_ROT ? 4u : 3u;
    uint32_t i = from, bad = 0;
    size_t pb = sg->pose_bits;
    if (r->mode == M_CONST) {
        float v[4];
        memcpy(v, r->v, sizeof v);
        uint32_t b = r->kind == K_ROT ? (uint32_t)quat_normalise(v) : 0u;
        for (; i < to; i++) memcpy(out + (size_t)(i - from) * comps, v, comps * sizeof(float));
        return b * (to - from);
    }
#if defined(__SSE2__)
    if (r->mode == M_VAR && proven > from) {
        /* above 19 bits a component (three windows a sample) gcc vectorises the AVX2
         * form's window reads into slower code: those records take the SSE2 form */
        bad = (r->nb <= 19 ? run4 : acl_var_run4_sse2)(r, sg->ani, r->bit + (size_t)from * pb, pb, proven - from, out,
                                                       fnv);
        i = proven;
    } else if (proven > from) { /* raw floats: rotations four samples at a time, then one sample per vector */
        if (comps == 4 && !from) {
            i = acl_raw_rot4(r, sg->ani, pb, proven, out, fnv, &bad);
        } else if (comps == 4 && (uint64_t)from * pb + r->bit <= UINT32_MAX) { /* a slice: the record moved to it */
            acl_rec at = *r;
            at.bit = (uint32_t)(r->bit + (uint64_t)from * pb);
            i += acl_raw_rot4(&at, sg->ani, pb, proven - from, out, fnv, &bad);
        }
        const __m128 one = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
        for (; i < proven; i++) {
            __m128 v;
            if (fnv->left) acl_fnv_some(fnv);
            if (!acl_raw_vec(r, sg->ani, (size_t)i * pb, &v)) break; /* not finite: the scalar path replaces it */
            float *o = out + (size_t)(i - from) * comps;
            if (comps == 4) {
                __m128 p = _mm_mul_ps(v, v), q = _mm_add_ps(p, _mm_movehl_ps(p, p));
                float len2 = _mm_cvtss_f32(_mm_add_ss(q, _mm_shuffle_ps(q, q, _MM_SHUFFLE(1, 1, 1, 1))));
                if (len2 >= 1e-12f && len2 <= 1e30f) { /* quat_normalise: (x*x + z*z) + (y*y + w*w) */
                    _mm_storeu_ps(o, _mm_div_ps(v, _mm_set1_ps(sqrtf(len2))));
                } else {
                    _mm_storeu_ps(o, one);
                    bad++;
                }
            } else {
                _mm_storel_pi((__m64 *)(void *)o, v);
                _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
            }
        }
    }
#else
    (void)proven;
    (void)fnv;
    (void)run4;
#endif
    for (; i < to; i++) {
        float o[4] = { 0.0f, 0.0f, 0.0f, 0.0f }; /* all written below (clang-tidy cannot follow the kinds) */
        bad += (uint32_t)rec_decode(r, sg->ani, sg->ani_room, (size_t)i * pb, o);
        if (comps == 4) bad += (uint32_t)quat_normalise(o);
        memcpy(out + (size_t)(i - from) * comps, o, comps * sizeof(float));
    }
    return bad;
}

/* Bytes to hash per step of the decode (four samples of a variable sub-track: chunk[0]
 * for rotations, chunk[1] for translations and scales; one sample of a raw one:
 * chunk[2]) so that what acl_open_ex left of the hash ends with the decode, each step
 * taking a share in proportion to its time (ACL_HASH_W_*): where the chain is longer than
 * the decode's work, spread by time it costs the chain's time alone (spread evenly over
 * steps of unequal length, the longer chain of the short steps comes on top; front-loaded,
 * the decode's tail would). A weight is about the bytes of chain a step's time hides, so
 * what is left beyond the decode's weight (the raw clips' many bytes, 2 KiB and more) goes
 * first through the wide form (acl_fnv_all, ~5x the chain's speed), the chain keeping
 * what the decode hides. */
static uint64_t hash_weight(const ganim_acl *h)
{
    uint64_t weight = 0;
    for (uint32_t s = 0; s < h->nseg; s++) {
        const acl_seg *sg = &h->segs[s];
        uint64_t proven = proven_samples(sg), per = (proven + 3u) / 4u;
        for (uint32_t a = 0; a < h->na; a++) {
            const acl_rec *r = &sg->recs[a];
            if (r->mode == M_VAR) weight += per * (r->kind == K_ROT ? ACL_HASH_W_ROT : ACL_HASH_W_VEC);
            else if (r->mode != M_CONST) weight += proven * ACL_HASH_W_RAW;
        }
    }
    return weight;
}

static void hash_chunks(uint64_t weight, acl_fnv *fnv, uint32_t chunk[3])
{
    uint64_t hide = weight * ACL_HASH_HIDE / 8u;
    if (fnv->left > hide && acl_fnv_wide(fnv->left - (size_t)hide)) {
        size_t n = fnv->left - (size_t)hide;
        fnv->h = acl_fnv_all(fnv->h, fnv->p, n, true);
        fnv->p += n;
        fnv->left -= n;
    }
    size_t bytes = fnv->left;
    static const uint32_t w[3] = { ACL_HASH_W_ROT, ACL_HASH_W_VEC, ACL_HASH_W_RAW };
    for (unsigned k = 0; k < 3; k++) {
        uint64_t c = weight ? (bytes * w[k] + weight - 1u) / weight : 8u; /* rounded up: never short */
        chunk[k] = c ? (uint32_t)(c < 512u ? c : 512u) : 1u;
    }
}

/* The rest of the hash; a mismatch warns where ganim_acl_open would have (after the
 * header's warnings, before those that came after it). */
static void hash_finish(ganim_doc *doc, ganim_acl *h, acl_fnv *fnv, uint64_t base)
{
    h->hash_computed = acl_fnv_bytes(fnv->h, fnv->p, fnv->left);
    if (h->hash_computed == h->hash_stored) return;
    uint32_t n = doc->warning_count, at = h->hash_warn_at;
    ganim_doc_warn(doc, GANIM_WARN_CHECKSUM, base + 4,
                   "acl: header: stored hash 0x%08X differs from the FNV-1a hash of the buffer 0x%08X; the buffer was "
                   "modified or damaged",
                   h->hash_stored, h->hash_computed);
    if (doc->warning_count != n + 1u || at >= n) return;
    ganim_warning w = doc->warnings[n];
    memmove(&doc->warnings[at + 1u], &doc->warnings[at], (size_t)(n - at) * sizeof w);
    doc->warnings[at] = w;
}

/* ---- whole clip into the model -------------------------------------------------------- */

static ganim_code build_native(ganim_doc *doc, ganim_clip *clip, const ganim_acl *h, ganim_error *err)
{
    uint32_t v[NF_COUNT];
    memset(v, 0, sizeof v);
    v[NF_VERSION] = h->version;
    v[NF_MISC] = h->misc;
    v[NF_TRACKS] = h->nt;
    v[NF_SAMPLES] = h->ns;
    memcpy(&v[NF_RATE_BITS], &h->rate, 4);
    v[NF_SEGMENTS] = h->nseg;
    v[NF_SIZE] = (uint32_t)h->size;
    v[NF_HASH_STORED] = h->hash_stored;
    v[NF_HASH_COMPUTED] = h->hash_computed;
    for (unsigned k = 0; k < 3; k++)
        for (unsigned t = 0; t < 3; t++) v[NF_COUNTS + 3 * k + t] = h->counts[k][t];
    v[NF_KEYS] = h->stripped ? h->nkeys : h->ns;
    memcpy(&v[NF_HIST], h->hist, sizeof h->hist);
    for (unsigned i = 0; i < 5; i++) v[NF_META + i] = h->has_meta ? h->meta_off[i] : ACL_NONE;
    v[NF_SEGHDR] = h->stripped ? 20u : 16u;
    uint8_t *p = ganim_doc_alloc(doc, sizeof v);
    if (!p) return GANIM_NOMEM(err);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, v, sizeof v); /* already little-endian: the same bytes as below */
#else
    for (unsigned i = 0; i < NF_COUNT; i++) {
        p[4 * i] = (uint8_t)v[i];
        p[4 * i + 1] = (uint8_t)(v[i] >> 8);
        p[4 * i + 2] = (uint8_t)(v[i] >> 16);
        p[4 * i + 3] = (uint8_t)(v[i] >> 24);
    }
#endif
    clip->native_format = ACL_NATIVE;
    clip->native = p;
    clip->native_size = sizeof v;
    return GANIM_OK;
}

static ganim_code build_skeleton(ganim_doc *doc, const ganim_acl *h, const ganim_read_opts *opts, ganim_error *err)
{
    if (opts && opts->skeleton) {
        doc->skeleton = ganim_skeleton_copy(doc, opts->skeleton);
        return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
    }
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    /* not zeroed: every field of a bone and every name's NUL are written below */
    ganim_bone *bones = ganim_doc_alloc_array_raw(doc, h->nt, sizeof *bones);
    /* "track_<i>" names in one block (printf per bone cost ~10 instructions per sample) */
    enum { SYN = 18 }; /* "track_4294967295" + NUL, rounded */
    char *syn = h->names ? NULL : ganim_doc_alloc_array_raw(doc, h->nt, SYN);
    if (!sk || !bones || (!h->names && !syn)) return GANIM_NOMEM(err);
    sk->name = ganim_doc_strdup(doc, h->list_name ? h->list_name : "");
    sk->bone_count = h->nt;
    sk->bones = bones;
    /* the next synthetic name, "track_<i>" and its NUL, counted up in decimal a track at a
     * time (the digits of i each time cost a division a digit) */
    char next[SYN] = "track_0";
    unsigned end = 7; /* where its NUL is */
    /* the handle's fields in locals: the stores below could alias them, which would reload
     * each one a track */
    const char *const *names = (const char *const *)h->names;
    const int32_t *parents = h->parents;
    const ganim_transform *bind = h->bind;
    uint32_t flags = h->has_meta && names && parents ? 0u : GANIM_BONE_SYNTH, nt = h->nt;
    for (uint32_t i = 0; i < nt; i++) {
        ganim_bone *b = &bones[i];
        if (names) {
            b->name = ganim_doc_strdup(doc, names[i]);
            if (!b->name) return GANIM_NOMEM(err);
        } else {
            char *n = syn + (size_t)SYN * i;
            memcpy(n, next, SYN);
            b->name = n;
            unsigned d = end - 1u;
            while (d > 6u && next[d] == '9') next[d--] = '0';
            if (next[d] == '9') { /* 9...9 -> 10...0: one digit more */
                next[d] = '1';
                next[end++] = '0';
                next[end] = '\0';
            } else {
                next[d]++;
            }
        }
        b->parent = parents ? parents[i] : -1;
        b->rest = bind ? bind[i] : acl_identity();
        b->flags = flags;
    }
    if (!sk->name) return GANIM_NOMEM(err);
    doc->skeleton = sk;
    return GANIM_OK;
}

/* ganim_skeleton_rest_from_frame0 for this model, without its general evaluation: track
 * i animates bone i, and each channel is constant (one value), per frame, or keyed at
 * whole frames >= 0 (a stripped clip's retained keys), so its value at frame 0 is its
 * first, which ganim_channel_eval copies there. */
static void rest_from_frame0(ganim_skeleton *sk, const ganim_clip *clip)
{
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ganim_track *t = &clip->tracks[i];
        ganim_transform *r = &sk->bones[t->bone].rest;
        memcpy(&r->rotation.x, t->rotation.values, 4 * sizeof(float));
        memcpy(&r->translation.x, t->translation.values, 3 * sizeof(float));
        memcpy(&r->scale.x, t->scale.values, 3 * sizeof(float));
    }
}

/* Every allocation of the model ganim_acl_read_doc makes (each rounded to 16 bytes as the
 * arena does), so ganim_doc_reserve makes it one block: a document freed after each
 * decode then goes back to the allocator as one region, which it hands out again whole
 * (many 64 KiB blocks made glibc trim and refault its heap at every decode). */
static size_t doc_bytes(const ganim_acl *h, int given)
{
    size_t nt = h->nt, na = h->na, ns = (size_t)h->ns + (size_t)h->wrap;
    size_t nvals = h->stripped ? (size_t)h->nkeys + (size_t)h->wrap : ns;
    size_t per_rot = (nvals * 4u + 3u) & ~(size_t)3u, per_vec = (nvals * 3u + 3u) & ~(size_t)3u;
    size_t floats = per_rot * h->nanim[0] + per_vec * ((size_t)h->nanim[1] + h->nanim[2]) + 4u * (3u * nt - na);
    size_t names = 0, list = h->list_name ? strlen(h->list_name) : 0;
    if (!given) {
        if (h->names)
            for (uint32_t i = 0; i < h->nt; i++) names += strlen(h->names[i]) + 16u;
        else names = 18u * nt + 16u;
    }
    return 16u * 16u + sizeof(ganim_skeleton) + (given ? 0u : nt * sizeof(ganim_bone)) + names + 2u * (list + 16u) +
           sizeof(ganim_clip) + nt * sizeof(ganim_track) + (h->stripped ? nvals * 4u : 0u) + 8u * na + 4u * floats +
           4u * NF_COUNT + 1024u; /* + a few warnings */
}

/* The size of the model's block (ganim_doc_reserve) beside the parse's block (`scratch`
 * bytes, freed at the end of the read). glibc's malloc maps a block of M_MMAP_THRESHOLD
 * (128 KiB) or more on its own; when such a block is freed it raises that threshold to
 * the block's size and its trim threshold (M_TRIM_THRESHOLD, 128 KiB) to twice that, and
 * a trim keeps M_TOP_PAD (128 KiB) (mallopt(3): the dynamic mmap threshold). Two blocks
 * each under 128 KiB but together near it were freed into the heap's top at every
 * ganim_doc_free, which glibc gave back to the system and faulted in again at the next
 * read (acl20_walk: 2 faults, some 15 % of its time). So then the model's block is made
 * ACL_MODEL_PAD larger than the parse's (at least 192 KiB): the first such read maps it,
 * and from then on glibc keeps both on its heap, its trim threshold (twice the block)
 * above what the read frees on top of the pad. The block's tail beyond the model is
 * never touched (no resident memory: convert's peak is unchanged); it is taken only with
 * glibc and the default allocator, and within half the document's memory limit (as the
 * FF7 pack's reserve). */
#define ACL_MODEL_PAD ((size_t)192u * 1024u)
#define ACL_MODEL_NEAR ((size_t)96u * 1024u)
static size_t model_block(const ganim_doc *doc, size_t model, size_t scratch)
{
#if defined(__GLIBC__)
    if (model >= 128u * 1024u || scratch >= 128u * 1024u || model + scratch < ACL_MODEL_NEAR ||
        !ganim_allocator_is_default(ganim_doc_allocator(doc)))
        return model;
    size_t padded = scratch + ACL_MODEL_PAD;
    return padded <= ganim_doc_memory_limit(doc) / 2 ? padded : model;
#else
    (void)doc;
    (void)scratch;
    return model;
#endif
}

ganim_code ganim_acl_read_doc(ganim_doc *doc, const uint8_t *data, size_t size, uint64_t base,
                              const ganim_read_opts *opts, ganim_error *err)
{
    ganim_acl *h = NULL;
    const ganim_skeleton *given = opts ? opts->skeleton : NULL;
    ganim_code rc = acl_open_ex(data, size, base, ganim_doc_allocator(doc), given, doc, ACL_OPEN_HASH, &h, err);
    if (rc) return rc;
    rc = ganim_check_counts(doc, base + 16, "acl: the header", (uint64_t)h->ns + (uint64_t)h->wrap, h->nt, 0, err);
    if (rc) goto done;
    if (given && given->bone_count != h->nt) {
        rc = ganim_fail(err, GANIM_ERR_MISMATCH, GANIM_NO_OFFSET,
                        "acl: the skeleton has %u bones but the buffer has %u tracks", given->bone_count, h->nt);
        goto done;
    }
    /* the model in one block (doc_bytes), sized beside the parse's (model_block) */
    (void)ganim_doc_reserve(doc, model_block(doc, doc_bytes(h, given != NULL), h->alloc_size));
    rc = build_skeleton(doc, h, opts, err);
    if (rc) goto done;

    ganim_clip *clip = ganim_doc_alloc(doc, sizeof *clip);
    ganim_track *tracks = ganim_doc_alloc_array_raw(doc, h->nt, sizeof *tracks); /* each written whole below */
    if (!clip || !tracks) {
        rc = GANIM_NOMEM(err);
        goto done;
    }
    doc->clips = clip;
    doc->clip_count = 1;
    clip->name = ganim_doc_strdup(doc, h->list_name ? h->list_name : "");
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = h->rate;
    clip->frame_count = h->ns + (uint32_t)h->wrap;
    clip->track_count = h->nt;
    clip->tracks = tracks;
    clip->rotation_interp = GANIM_INTERP_NLERP;
    if (!clip->name) {
        rc = GANIM_NOMEM(err);
        goto done;
    }

    /* per-frame (or per-retained-key) storage of the animated sub-tracks */
    uint32_t nvals = h->stripped ? h->nkeys + (uint32_t)h->wrap : clip->frame_count;
    uint64_t total = (uint64_t)nvals * (4ull * h->nanim[0] + 3ull * h->nanim[1] + 3ull * h->nanim[2]);
    if (total > ACL_MAX_VALUES) {
        rc = ganim_fail(err, GANIM_ERR_LIMIT, base + 20,
                        "acl: %u samples of %u animated sub-tracks need %llu values, above the library limit of %u",
                        clip->frame_count, h->na, (unsigned long long)total, ACL_MAX_VALUES);
        goto done;
    }
    float *times = NULL;
    if (h->stripped && h->na) {
        times = ganim_doc_alloc_array_raw(doc, nvals, sizeof *times); /* filled whole below */
        if (!times) {
            rc = GANIM_NOMEM(err);
            goto done;
        }
        for (uint32_t i = 0; i < h->nkeys; i++) times[i] = (float)h->keys[i];
        if (h->wrap) times[h->nkeys] = (float)h->ns;
    }
    /* every value array in one block sized from the header (one allocation instead of one
     * per sub-track: a large clip's model is one region the allocator can hand back whole
     * and reuse); each array starts on 16 bytes. The constant channels likewise. */
    uint32_t nconst = 3u * h->nt - h->na;
    size_t per_rot = ((size_t)nvals * 4u + 3u) & ~(size_t)3u, per_vec = ((size_t)nvals * 3u + 3u) & ~(size_t)3u;
    size_t nfloats = per_rot * h->nanim[0] + per_vec * ((size_t)h->nanim[1] + h->nanim[2]) + 4u * (size_t)nconst;
    float **dst = ganim_doc_alloc_array_raw(doc, h->na ? h->na : 1, sizeof *dst);        /* dst[a] for every a below */
    float *block = ganim_doc_alloc_array_raw(doc, nfloats ? nfloats : 1, sizeof *block); /* each value written below */
    if (!dst || !block) {
        rc = GANIM_NOMEM(err);
        goto done;
    }
    float *cblock = block + (nfloats - 4u * (size_t)nconst);
    const char *const *names = (const char *const *)h->names;
    /* the constant and default translations and scales are finite (constants passed
     * in_range, the buffer's bind pose likewise, identity) unless the defaults are a given
     * skeleton's rest poses: only those are tested */
    int vec_finite = 1, test_vec = h->pose_given;
    acl_fnv fnv = h->fnv; /* begun by acl_open_ex */
    uint64_t weight = hash_weight(h);
    /* a clip without animated sub-tracks (one frame) has no decode to hide the rest of
     * the hash beside: it goes beside this loop's work instead of after it (where there is
     * a decode, moving its excess here measured slower: docs/benchmarks.md, "ACL,
     * thirteenth round") */
    size_t share = weight == 0 && h->nt ? (fnv.left + h->nt - 1u) / h->nt : 0;
    fnv.chunk = (uint32_t)(share < ACL_HASH_OPEN ? share : ACL_HASH_OPEN);
    /* the handle's and the skeleton's fields in locals (the stores below could alias them) */
    const ganim_bone *sbones = doc->skeleton->bones;
    const uint8_t *types = h->types;
    const ganim_transform *pose = h->pose;
    for (uint32_t i = 0, nt = h->nt; i < nt; i++) {
        if (fnv.chunk) acl_fnv_some(&fnv);
        const ganim_transform *p = &pose[i];
        const uint8_t *ty = types + 3u * i;
        /* each channel whole, the track written once (animated channels: zero until the
         * loop below) */
        ganim_channel c[3] = { { 0, 0, NULL, NULL }, { 0, 0, NULL, NULL }, { 0, 0, NULL, NULL } };
        if (ty[K_ROT] != T_ANIM) {
            memcpy(cblock, &p->rotation, 4 * sizeof *cblock);
            c[K_ROT] = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, cblock };
            cblock += 4;
        }
        if (ty[K_TRANS] != T_ANIM) {
            memcpy(cblock, &p->translation, 3 * sizeof *cblock);
            if (test_vec) vec_finite &= finite_f(cblock[0]) & finite_f(cblock[1]) & finite_f(cblock[2]);
            c[K_TRANS] = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, cblock };
            cblock += 4;
        }
        if (ty[K_SCALE] != T_ANIM) {
            memcpy(cblock, &p->scale, 3 * sizeof *cblock);
            if (test_vec) vec_finite &= finite_f(cblock[0]) & finite_f(cblock[1]) & finite_f(cblock[2]);
            c[K_SCALE] = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, cblock };
            cblock += 4;
        }
        tracks[i] = (ganim_track){ .bone = i,
                                   .name = names ? sbones[i].name : "",
                                   .rotation = c[K_ROT],
                                   .translation = c[K_TRANS],
                                   .scale = c[K_SCALE] }; /* the rest zero */
    }
    float *vals = block;
    for (uint32_t a = 0; a < h->na; a++) {
        const acl_rec *r = &h->recs[a];
        float *v = vals;
        vals += r->kind == K_ROT ? per_rot : per_vec;
        dst[a] = v;
        ganim_track *tr = &tracks[r->track];
        ganim_channel *c = r->kind == K_ROT ? &tr->rotation : r->kind == K_TRANS ? &tr->translation : &tr->scale;
        c->kind = times ? GANIM_CHANNEL_KEYED : GANIM_CHANNEL_PER_FRAME;
        c->count = nvals;
        c->times = times;
        c->values = v;
    }
    /* every segment, one sub-track at a time; the segments' rows tile [0, nvals - wrap)
     * (parse_segment/ganim_acl_open checked the starts and retained-key counts), so the
     * unzeroed value arrays end up written whole. Nothing to loop over without records. */
    uint32_t bad = 0, nr = h->nanim[0];
    uint32_t chunk[3];
    hash_chunks(weight, &fnv, chunk);
#if defined(__SSE2__)
    acl_var_run4_fn run4 = acl_var_run4_pick(); /* once a read */
#else
    acl_var_run4_fn run4 = NULL;
#endif
    for (uint32_t s = 0; s < h->nseg && h->na; s++) {
        const acl_seg *sg = &h->segs[s];
        size_t row0 = h->stripped ? sg->first_key : sg->start;
        uint32_t proven = proven_samples(sg);
        for (uint32_t a = 0; a < h->na; a++) {
            const acl_rec *r = &sg->recs[a];
            fnv.chunk = chunk[r->mode != M_VAR ? 2u : r->kind == K_ROT ? 0u : 1u];
            bad += decode_run(sg, r, proven, 0, sg->stored, dst[a] + row0 * (a < nr ? 4u : 3u), &fnv, run4);
        }
    }
    hash_finish(doc, h, &fnv, base);
    if (h->wrap) /* the dropped last frame of a looping clip is a copy of the first */
        for (uint32_t a = 0; a < h->na; a++) {
            unsigned comps = a < nr ? 4u : 3u;
            memcpy(dst[a] + (size_t)(nvals - 1u) * comps, dst[a], comps * sizeof(float));
        }
    if (bad)
        ganim_doc_warn(
            doc, GANIM_WARN_REPAIRED, base,
            "acl: %u decoded samples were not finite or had a zero-length rotation and were replaced by the identity",
            bad);
    rc = build_native(doc, clip, h, err);
    /* No bind pose in the buffer and none given: the first frame is the best rest pose.
     * With trivial defaults (bit 9) the descriptions' defaults are all identity (ACL sets
     * the bit only then), so they are no bind pose either. */
    if (rc == GANIM_OK && (!h->bind || h->trivial) && !given) rest_from_frame0(doc->skeleton, clip);
    /* Every rotation of the model is unit length: each decoded or constant one went
     * through quat_normalise (or its vector twins, bit-identical), whose quotient by the
     * length of a finite vector with length^2 in [1e-12, 1e30] is within a few ulp of
     * unit length, or was replaced by the identity; default ones are the identity, the
     * buffer's bind pose (normalised by parse_metadata) or the given skeleton's rest pose,
     * which the validation checks on the skeleton itself. The validation after the read
     * skips their unit-length check (test_acl checks it on every sample). */
    if (rc == GANIM_OK) ganim_doc_vouch_rotations(doc);
    /* Every decoded translation and scale is finite: a variable one is at most (1 x 1 + 1)
     * x 1e18 + 1e18 in size (acl_open_ex refuses clip ranges beyond ACL_RANGE_MAX, segment
     * ranges are bytes / 255), a raw one was replaced when not finite (rec_decode), a
     * constant one passed in_range in acl_open_ex; the constant and default channels were
     * tested above. So the validation after the read skips their finiteness pass (every
     * later validation checks them again; test_acl checks it on every sample). */
    if (rc == GANIM_OK && vec_finite) ganim_doc_vouch_vectors(doc);
done:
    ganim_acl_close(h);
    return rc;
}

/* ---- whole clip into the caller's array ----------------------------------------------- */

#ifndef ACL_CLIP_CHUNK
#define ACL_CLIP_CHUNK 64u /* samples of one record decoded into the stack at a time (a multiple of 4) */
#endif

/* n decoded values of one sub-track kind (comps floats each, from src) into the field at
 * byte `field` of the transforms rows[0..n-1] (rows NULL: row0, row0 + 1, ...) of the
 * frame-major array out (nt transforms a frame). */
static void scatter(const float *src, unsigned comps, size_t field, uint32_t n, const uint32_t *rows, size_t row0,
                    size_t nt, ganim_transform *out)
{
    char *base = (char *)out + field;
    size_t stride = nt * sizeof *out;
    if (comps == 4) {
        for (uint32_t j = 0; j < n; j++)
            memcpy(base + (rows ? rows[j] : row0 + j) * stride, src + 4u * j, 4 * sizeof(float));
    } else {
        for (uint32_t j = 0; j < n; j++)
            memcpy(base + (rows ? rows[j] : row0 + j) * stride, src + 3u * j, 3 * sizeof(float));
    }
}

/* ganim_acl_decode_clip with slices of `chunk` samples (1..ACL_CLIP_CHUNK) */
static inline void decode_clip(const ganim_acl *h, ganim_transform *out, uint32_t chunk, uint32_t short_seg)
{
    size_t nt = h->nt, row = nt * sizeof *out;
    uint32_t ns = h->ns;
    if (!h->na) { /* no animated sub-track: the defaults and constants in every frame */
        for (uint32_t f = 0; f < ns + (uint32_t)h->wrap; f++) memcpy(out + (size_t)f * nt, h->pose, row);
        return;
    }
    static const size_t field[3] = { offsetof(ganim_transform, rotation), offsetof(ganim_transform, translation),
                                     offsetof(ganim_transform, scale) };
    acl_fnv none = { NULL, 0, 0, 0 }; /* no hash here (as ganim_acl_sample_pose) */
    float tmp[4u * ACL_CLIP_CHUNK];   /* chunk samples */
#if defined(__SSE2__)
    acl_var_run4_fn run4 = acl_var_run4_pick();
#else
    acl_var_run4_fn run4 = NULL;
#endif
    for (uint32_t s = 0; s < h->nseg; s++) {
        const acl_seg *sg = &h->segs[s];
        /* the rows this segment decodes: every sample of it, or its retained ones */
        const uint32_t *keys = h->stripped ? h->keys + sg->first_key : NULL;
        for (uint32_t i = 0; i < sg->stored; i++)
            memcpy(out + (keys ? keys[i] : sg->start + (size_t)i) * nt, h->pose, row);
        if (sg->stored <= short_seg) { /* few samples: sub-tracks side by side, a pose at a time */
            for (uint32_t i = 0; i < sg->stored; i++)
                acl_pose_key(h, sg, i, out + (keys ? keys[i] : sg->start + (size_t)i) * nt);
            continue;
        }
        uint32_t proven = proven_samples(sg);
        for (uint32_t a = 0; a < h->na; a++) {
            const acl_rec *r = &sg->recs[a];
            unsigned comps = r->kind == K_ROT ? 4u : 3u;
            for (uint32_t i0 = 0; i0 < sg->stored; i0 += chunk) {
                uint32_t i1 = sg->stored - i0 > chunk ? i0 + chunk : sg->stored;
                (void)decode_run(sg, r, proven < i1 ? proven : i1, i0, i1, tmp, &none, run4);
                scatter(tmp, comps, field[r->kind], i1 - i0, keys ? keys + i0 : NULL, (size_t)sg->start + i0, nt,
                        out + r->track);
            }
        }
    }
    if (h->stripped) { /* a frame between retained keys is the key at or before it (the first key before it) */
        const ganim_transform *src = out + (size_t)h->keys[0] * nt;
        for (uint32_t f = 0, k = 0; f < ns; f++) {
            if (k < h->nkeys && h->keys[k] == f) {
                src = out + (size_t)f * nt;
                k++;
            } else {
                memcpy(out + (size_t)f * nt, src, row);
            }
        }
    }
    if (h->wrap) memcpy(out + (size_t)ns * nt, out, row); /* the looping clip's last frame is its first */
}

void ganim_acl_decode_clip(const ganim_acl *h, ganim_transform *out)
{
    decode_clip(h, out, ACL_CLIP_CHUNK, ACL_CLIP_SHORT);
}

void ganim_acl_decode_clip_chunked(const ganim_acl *h, ganim_transform *out, uint32_t chunk)
{
    decode_clip(h, out, chunk < 1u ? 1u : chunk > ACL_CLIP_CHUNK ? ACL_CLIP_CHUNK : chunk, 0);
}
