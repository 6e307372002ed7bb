/* FF7 battle animations: the frame stream's bit code, both directions (the stream and its
 * delta codes: docs/formats/ff7-battle.md, "What the decoder relies on").
 * Every delta the encoder writes gets its shortest code (unique per value), so
 * re-encoding a stream the game or its tools coded optimally gives back its bytes. */
#include <string.h>

#include "formats/ff7/ff7.h"
#if FF7_HAVE_AVX
#include <cpuid.h> /* __get_cpuid: MOVBE (cpu_has_movbe) */
#endif

/* ---- decoding ---------------------------------------------------------------------- */

/* Types 1..6 hold v in [2^(n-1), 2^n - 1] or [-2^n, -2^(n-1) - 1], i.e. n is the bit
 * length of v, or of -v - 1 (= ~v) below zero; from 64 (or below -64) the raw code. */
unsigned ff7_rot_code_bits(int32_t v, unsigned bkey)
{
    static const uint8_t bit_length[64] = { 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5,
                                            5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
                                            6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };
    if (v == 0) return 1;
    if (v == -1) return 4;
    uint32_t m = v > 0 ? (uint32_t)v : ~(uint32_t)v;
    return m < 64 ? 4u + bit_length[m] : 4 + 12 - bkey;
}

/* One rotation delta in units of 2^bkey from the stream bits at the top of w (bits past
 * the end of the stream read as zero); returns the code's length in bits. The code is 1
 * bit (0: delta 0), or a 1 and a 3-bit type t: 0 is -1, 1..6 a t-bit value v (stored as
 * v - 2^(t-1), or v + 2^(t-1) below zero), 7 a raw `kraw` = (12 - bkey)-bit value (kraw in
 * 1..12). Only a type-7 code can be longer than the delta's shortest (every other code is
 * the only one of its length for its values), so *best is cleared only there. */
unsigned ff7_rot_delta(uint64_t w, unsigned kraw, unsigned bkey, int32_t *v, bool *best)
{
    if (!(w >> 63)) {
        *v = 0;
        return 1;
    }
    unsigned t = (unsigned)(w >> 60) & 7u;
    if (t == 0) {
        *v = -1;
        return 4;
    }
    unsigned k = t == 7 ? kraw : t;
    int32_t u = (int32_t)((w << 4) >> (64u - k)), neg = (int32_t)(u >> (k - 1)); /* k-bit two's complement */
    if (t == 7) {
        *v = u - (neg << k);
        if (ff7_rot_code_bits(*v, bkey) != 4 + k) *best = false;
    } else { /* s = u - neg * 2^t; v = s + 2^(t-1), or s - 2^(t-1) below zero */
        *v = u + ((int32_t)1 << (t - 1)) - (neg << (t + 1));
    }
    return 4 + k;
}

/* The codes of at most 10 bits (every type but 7), by the first 10 stream bits: the
 * delta and the code's length (0: a type-7 code, decoded by ff7_rot_delta; its entry is
 * FF7_RAW_ENTRY, length 0 and bit 16 set, which the AVX2 pair loop's slots count). Built by the
 * compiler from the rules above; test_ff7_angles compares it with ff7_rot_delta. */
#define FF7_CT(i) (((i) >> 6) & 7)
#define FF7_CU(i) (((i) >> ((6 - FF7_CT(i)) & 7)) & ((1 << FF7_CT(i)) - 1))
#define FF7_CV(i)          \
    (!((i) >> 9)      ? 0  \
     : FF7_CT(i) == 0 ? -1 \
     : FF7_CT(i) == 7      \
         ? 0               \
         : FF7_CU(i) + (1 << ((FF7_CT(i) + 7) & 7)) - ((FF7_CU(i) >> ((FF7_CT(i) + 7) & 7)) << (FF7_CT(i) + 1)))
#define FF7_CL(i) (!((i) >> 9) ? 1 : FF7_CT(i) == 0 ? 4 : FF7_CT(i) == 7 ? 0 : 4 + FF7_CT(i))
#define FF7_C1(i) (FF7_CL(i) ? (uint32_t)FF7_CL(i) | (uint32_t)FF7_CV(i) << 20 : FF7_RAW_ENTRY)
#define FF7_C4(i) FF7_C1(i), FF7_C1((i) + 1), FF7_C1((i) + 2), FF7_C1((i) + 3)
#define FF7_C16(i) FF7_C4(i), FF7_C4((i) + 4), FF7_C4((i) + 8), FF7_C4((i) + 12)
#define FF7_C64(i) FF7_C16(i), FF7_C16((i) + 16), FF7_C16((i) + 32), FF7_C16((i) + 48)
#define FF7_C256(i) FF7_C64(i), FF7_C64((i) + 64), FF7_C64((i) + 128), FF7_C64((i) + 192)
const uint32_t ff7_short_codes[1024] = { FF7_C256(0), FF7_C256(256), FF7_C256(512), FF7_C256(768) };

/* A test that is rarely true (the compiler lays the hot path straight and keeps its
 * registers for it). A function here is kept out of line (GANIM_OUT_OF_LINE) so that its
 * loop gets the registers to itself, not those left over by its caller's. */
#if defined(__GNUC__)
#define FF7_RARE(c) __builtin_expect(!!(c), 0)
#else
#define FF7_RARE(c) (c)
#endif
/* The pair loop's BMI2 form (frame_codes_inside2_bmi2), chosen at run time as the AVX
 * quaternions are (ff7.h: FF7_HAVE_AVX). */
#define FF7_HAVE_BMI2 FF7_HAVE_AVX

/* One rotation code from the top of X (a window of the stream, left-aligned): the delta
 * times 2^bKey added to the previous frame's angle PREV and stored at OUT, X shifted past
 * the code, the whole table entry subtracted from LEFT (whose low 16 bits count the bits
 * left: the entry's length is its low bits, its delta lies above bit 19). SH is 20 - bKey.
 * The table gives the codes of at most 10 bits; a type-7 code (its entry 0 in the table) is
 * decoded in line into an entry of the same form, as ff7_rot_delta does (no call: a
 * call's clobbered registers cost the decoding loops theirs, and the state was spilled
 * around it). */
#define FF7_ENTRY(X, FB, KRAW, TOP, E)                                                              \
    do {                                                                                            \
        (E) = ff7_short_codes[(X) >> (TOP)];                                                        \
        if (FF7_RARE(!((E)&63u))) { /* type 7 (length 0): a KRAW-bit two's complement value */      \
            int32_t u = (int32_t)(((X) << 4) >> (64u - (KRAW))), neg = (int32_t)(u >> ((KRAW)-1u)); \
            int32_t v = u - (neg << (KRAW));                                                        \
            if (!ff7_raw_is_shortest(v)) (FB) = false;                                              \
            (E) = (4u + (KRAW)) | (uint32_t)v << 20;                                                \
        }                                                                                           \
        (X) <<= (E)&63u;                                                                            \
    } while (0)
#define FF7_CODE(X, LEFT, FB, KRAW, SH, PREV, OUT)                     \
    do {                                                               \
        uint32_t e;                                                    \
        FF7_ENTRY(X, FB, KRAW, 54, e);                                 \
        (LEFT) -= e;                                                   \
        (OUT) = (uint16_t)(((uint32_t)(PREV) + (e >> (SH))) & 0xFFFu); \
    } while (0)
/* The same code with its entry stored whole at T (apply_deltas_avx2 makes it an angle). */
#define FF7_CODE_E(X, LEFT, FB, KRAW, TOP, T) \
    do {                                      \
        uint32_t e;                           \
        FF7_ENTRY(X, FB, KRAW, TOP, e);       \
        (LEFT) -= e;                          \
        (T) = e;                              \
    } while (0)

/* One stream's decoding between frames: frame n is next; its rotation codes start at
 * bit `at`, after its position deltas (dec_positions). */
typedef struct ff7_dec {
    const uint8_t *stream;
    size_t size, per; /* per: rotation codes a frame (3 x slots) */
    uint64_t proven;  /* gb_msb_proven_limit(size) */
    size_t at, good;  /* the next bit; the bits of the frames decoded */
    int32_t *pos;
    uint16_t *rot;
    uint32_t n, max, step;   /* frames decoded, wanted; 2^bKey */
    unsigned kraw, bkey, sh; /* sh: 20 - bKey (FF7_CODE) */
    unsigned top;            /* 54: the shift that gives a code's table index (see codes_inside2_avx2) */
    bool best, live;         /* every frame so far used shortest codes; frame n is to be read */
    bool slotwise;           /* the AVX2 forms take this stream a slot at a time (see FF7_PAIR_E) */
    /* The stream's tail (dec_to_tail): from bit tail_at on, the frames come from a copy of
     * the stream's last bytes followed by zero bytes, so that every frame runs through the
     * unchecked loops. off: the bits of the stream before stream (0, or where the copy
     * starts); lim: the stream's real end, relative to stream (a frame ending past it does
     * not fit); tbuf: FF7_TAIL_MAX bytes for the copy, NULL when there is none. */
    uint64_t tail_at, lim;
    size_t off;
    uint8_t *tbuf;
} ff7_dec;

/* The codes of a frame decoded while every window of it lies inside the stream
 * (frame_codes_inside): x holds the stream from the position on, left-aligned, `valid`
 * bits of it (56 or more at a slot's start; a slot's three codes take 48 at most, each
 * subtracting its table entry from `valid`: the count is valid's low 6 bits, bits 6..15
 * stay zero as the count never goes below 8, the bits above are the deltas' and never
 * read), up to the byte at np. After a slot the 8 bytes at np fill it again: the whole
 * bytes that bring the count to 56..63 (valid | 56). Bits below the count are stream bits too (the
 * bytes of a load that did not fit), so the next fill ORs them with themselves. np is
 * known when the slot starts (the slot before set it), so the load issues while the
 * slot's codes are decoded, and the next slot's bits wait on a shift and an OR, not on a
 * load whose address depends on the slot's codes (a chain of loads that held the decoder
 * to ~30 cycles a slot); the loaded window is not kept in a register across the slot.
 * Every load lies inside: np stays within 8 bytes of the position. */
typedef struct ff7_run {
    uint64_t x;
    const uint8_t *np;
    uint32_t valid; /* the count of valid bits in the low 6 bits (see above) */
    bool best;
    uint32_t fixes; /* the AVX2 forms' rare paths taken this frame (FF7_SLOT_E, pair_fix) */
    size_t i;
    const uint16_t *pr;
    uint16_t *cr;
} ff7_run;

static inline ff7_run run_start(const ff7_dec *d)
{
    ff7_run r;
    r.np = d->stream + (d->at >> 3) + 8u;
    r.valid = 64u - (unsigned)(d->at & 7u);
    r.x = gb_msb_window64_proven(d->stream, d->at);
    r.best = true;
    r.fixes = 0;
    r.i = 0;
    r.cr = d->rot + (size_t)d->n * d->per;
    r.pr = r.cr - d->per;
    return r;
}

#if FF7_HAVE_BMI2
/* run_start with x holding 64 stream bits (its count unchanged): the bits of the byte at
 * np below the window's, as a refill leaves them; FF7_PAIR_E's six codes may read past the
 * counted bits. The byte lies inside: a frame that runs through the unchecked loops has
 * more than 64 bits of its stream after its codes' start (codes_inside). */
static inline ff7_run run_start64(const ff7_dec *d)
{
    ff7_run r = run_start(d);
    r.x |= (uint64_t)r.np[0] >> (8u - (unsigned)(d->at & 7u));
    return r;
}
#endif

/* Run R's refill after a slot: the 8 bytes at np ORed in below its valid bits, as many
 * whole bytes as fit (valid: 8 to 63). */
#define FF7_REFILL(R, C56)                                                                           \
    do {                                                                                             \
        (R).x |= gb_msb_window64_proven((R).np, 0) >> ((R).valid & 63u);                             \
        (R).np += (~(R).valid & (C56)) >> 3; /* the whole bytes that fit: valid | 56 - valid bits */ \
        (R).valid |= (C56);                                                                          \
    } while (0)

/* One slot's three codes of run R (a local ff7_run) of stream D, the previous frame's
 * angles at PR[K], the slot's at CR[K], and the refill. */
#define FF7_SLOT_AT(R, D, PR, CR, K)                                                            \
    do {                                                                                        \
        FF7_CODE((R).x, (R).valid, (R).best, (D)->kraw, (D)->sh, (PR)[K], (CR)[K]);             \
        FF7_CODE((R).x, (R).valid, (R).best, (D)->kraw, (D)->sh, (PR)[(K) + 1], (CR)[(K) + 1]); \
        FF7_CODE((R).x, (R).valid, (R).best, (D)->kraw, (D)->sh, (PR)[(K) + 2], (CR)[(K) + 2]); \
        FF7_REFILL(R, 56u);                                                                     \
    } while (0)

/* Run R's next slot. */
#define FF7_RUN_SLOT(R, D)                                   \
    do {                                                     \
        FF7_SLOT_AT(R, D, (R).pr, (R).cr, (ptrdiff_t)(R).i); \
        (R).i += 3;                                          \
    } while (0)

/* The bit after run r. */
static inline size_t run_end(const ff7_dec *d, const ff7_run *r)
{
    return (size_t)(r->np - d->stream) * 8u - (r->valid & 63u);
}

/* Whether frame n's rotation codes, from d->at, may run with no bound check: its codes
 * take at most per * 16 bits, and a window at the end of them plus 64 lies inside. */
static inline bool codes_inside(const ff7_dec *d)
{
    return d->at < d->proven && d->proven - d->at > d->per * 16u + 64u;
}

/* The rotation codes of frame n when codes_inside (per is a multiple of 3). */
static inline void frame_codes_inside(ff7_dec *d, bool *frame_best)
{
    ff7_run r = run_start(d);
    do FF7_RUN_SLOT(r, d);
    while (r.i < d->per);
    d->at = run_end(d, &r);
    *frame_best = *frame_best && r.best;
}

/* Frame n of two streams when both are codes_inside: the two chains of table look-ups
 * and shifts are independent, so the core runs them side by side (one stream's slot
 * waits ~25 cycles on its own chain). Each stream's slots are decoded in the order and
 * with the operations of frame_codes_inside. */
static GANIM_ALWAYS_INLINE void codes_inside2(ff7_dec *a, bool *best_a, ff7_dec *b, bool *best_b)
{
    ff7_run ra = run_start(a), rb = run_start(b);
    size_t both = a->per < b->per ? a->per : b->per;
    /* the common slots by one index from -both up to 0 (no bound to keep) */
    const uint16_t *pa = ra.pr + both, *pb = rb.pr + both;
    uint16_t *ca = ra.cr + both, *cb = rb.cr + both;
    ptrdiff_t k = -(ptrdiff_t)both;
    do {
        FF7_SLOT_AT(ra, a, pa, ca, k);
        FF7_SLOT_AT(rb, b, pb, cb, k);
        k += 3;
    } while (k);
    ra.i = rb.i = both;
    while (ra.i < a->per) FF7_RUN_SLOT(ra, a);
    while (rb.i < b->per) FF7_RUN_SLOT(rb, b);
    a->at = run_end(a, &ra);
    b->at = run_end(b, &rb);
    *best_a = *best_a && ra.best;
    *best_b = *best_b && rb.best;
}

static GANIM_OUT_OF_LINE void frame_codes_inside2(ff7_dec *a, bool *best_a, ff7_dec *b, bool *best_b)
{
    codes_inside2(a, best_a, b, best_b);
}

#if FF7_HAVE_BMI2
/* The same loop where the CPU has BMI2: shifts by a register with no count in cl (shlx,
 * shrx), so a code's table index and its shift by the entry take no copies into cl (two
 * instructions fewer a code, the refill's shift likewise); the same operations on the
 * same values, so the same results. */
__attribute__((target("bmi2"))) static GANIM_OUT_OF_LINE void frame_codes_inside2_bmi2(ff7_dec *a, bool *best_a,
                                                                                       ff7_dec *b, bool *best_b)
{
    codes_inside2(a, best_a, b, best_b);
}
/* The same on the AVX2 path (two streams of 1 to 5 slots), whose CPUs have MOVBE: each
 * refill's load and byte swap one movbe. */
__attribute__((target("bmi2,movbe"))) static GANIM_OUT_OF_LINE void frame_codes_inside2_movbe(ff7_dec *a, bool *best_a,
                                                                                              ff7_dec *b, bool *best_b)
{
    codes_inside2(a, best_a, b, best_b);
}
#endif

#if FF7_HAVE_BMI2
/* The pair loop where the CPU has BMI2, BMI1 and AVX2: each code's table entry is stored
 * whole (FF7_CODE_E: no scaled delta, add, mask or previous angle in the loop, so fewer
 * instructions a code and no register spilled), and after the frame's codes
 * apply_deltas_avx2 makes them angles, 16 at a time: (prev + (e >> sh)) & 0xFFF,
 * FF7_CODE's operations on the same values, so the same angles. The entries of a frame
 * wait on the stack: frames of up to FF7_DELTA_MAX codes in each stream (256 slots), 16 or
 * more in one of them, take this loop (a stream of 1 to 5 slots beside one of 6 or more
 * makes its angles one at a time); two streams of 1 to 5 slots the BMI2 loop (whose frame
 * costs less there), as one stream of 1 to 5 slots alone. */
#define FF7_DELTA_MAX 768u

/* A code's entry from the table alone, with no test for a type-7 code: its entry
 * (FF7_RAW_ENTRY) shifts X by 0 and takes 1 << 16 from LEFT, whose bits 16..19 (zero at a
 * slot's start: the count's low 16 bits never go below 8, so no borrow reaches them, and
 * the deltas' bits lie above 19) then count the slot's type-7 entries. The codes after it
 * in the slot read the same bits, so they are type 7 too, and X and LEFT stay as they
 * were before the first of them. */
#define FF7_CODE_F(X, LEFT, TOP, T)                 \
    do {                                            \
        uint32_t e = ff7_short_codes[(X) >> (TOP)]; \
        (X) <<= e & 63u;                            \
        FF7_SUB_E(LEFT, e);                         \
        FF7_STORE_E(T, e);                          \
    } while (0)
/* T = E as one 32-bit store: gcc's SLP vectoriser would join a slot's first two stores
 * into vmovd, vpinsrd and vmovq (three instructions for two stores). */
/* LEFT -= E as one subtraction a code: gcc would sum FF7_PAIR_E's six entries first, in
 * a register the loop has not got to spare (two streams' state: it spilled three). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define FF7_STORE_E(T, E) __asm__("movl %1, %0" : "=m"(T) : "r"(E))
#define FF7_SUB_E(LEFT, E) __asm__("subl %1, %0" : "+r"(LEFT) : "r"(E) : "cc")
#else
#define FF7_STORE_E(T, E) ((T) = (E))
#define FF7_SUB_E(LEFT, E) ((LEFT) -= (E))
#endif
/* A slot's three codes by FF7_CODE_F, one test a slot for a type-7 code (rare): then the
 * slot's codes from the first type-7 entry on again by FF7_CODE_E (the state is the one
 * before it, see FF7_CODE_F), the count's bits 16..19 cleared; so the same entries, the
 * same state and the same `best` as FF7_CODE_E three times. */
#define FF7_SLOT_E(R, D, TOP, C56, T, K)                                                                           \
    do {                                                                                                           \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[K]);                                                                 \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 1]);                                                           \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 2]);                                                           \
        if (FF7_RARE((R).valid & 0xF0000u)) {                                                                      \
            ptrdiff_t j_ = 0;                                                                                      \
            while ((T)[(ptrdiff_t)(K) + j_] & 63u) j_++;                                                           \
            (R).valid &= ~0xF0000u;                                                                                \
            (R).fixes++;                                                                                           \
            for (; j_ < 3; j_++) FF7_CODE_E((R).x, (R).valid, (R).best, (D)->kraw, TOP, (T)[(ptrdiff_t)(K) + j_]); \
        }                                                                                                          \
        FF7_REFILL(R, C56);                                                                                        \
    } while (0)

/* Two slots' six codes by FF7_CODE_F with one refill and one test: after a refill x holds
 * 64 stream bits (the bits below the counted ones are stream bits too), and six codes of
 * the table take 60 at most (10 bits a code; a type-7 entry takes none), each code's
 * 10-bit index inside them; only the count (valid: 56 to 63 at the start) can run out,
 * past 56 bits (several 10-bit codes), and then it borrows into bits 16..19 as a type-7
 * entry does (no type-7 entry can follow: five codes take 50 bits at most). The rare
 * path (pair_fix, out of line: the loop keeps its registers): with a type-7 entry (the first of them at j: the state is the one
 * before it, as in FF7_SLOT_E), codes j to 5 again by FF7_CODE_E, each after a refill
 * (a raw code takes up to 16 bits); without one (the count ran out), the state again from
 * the bit reached (as run_start), the entries being right. So the same entries, state
 * and `best` as FF7_SLOT_E twice. */
typedef struct ff7_fix_state { /* a run's state through pair_fix */
    uint64_t x;
    const uint8_t *np;
    uint32_t valid, fixes;
    bool best;
} ff7_fix_state;

__attribute__((target("bmi,bmi2,movbe"))) static GANIM_OUT_OF_LINE void
pair_fix(ff7_fix_state *f, const ff7_dec *d, unsigned top, unsigned c56, uint32_t *t)
{
    ff7_fix_state s = *f;
    ptrdiff_t j = 0;
    s.fixes++;
    while (j < 6 && (t[j] & 63u)) j++;
    if (j == 6) { /* the count ran out: its low 16 bits are minus the bits it owes */
        size_t p = (size_t)(s.np - d->stream) * 8u + (uint16_t)(0u - s.valid);
        s.x = gb_msb_window64_proven(d->stream, p); /* 7 whole bytes counted (49 to 56) */
        s.np = d->stream + (p >> 3) + 7u;
        s.valid = 56u - (unsigned)(p & 7u);
    } else { /* slot 1's codes from j on (48 bits left at least), a refill, slot 2's */
        s.valid &= ~0xF0000u;
        for (; j < 3; j++) FF7_CODE_E(s.x, s.valid, s.best, d->kraw, top, t[j]);
        FF7_REFILL(s, c56);
        for (; j < 6; j++) FF7_CODE_E(s.x, s.valid, s.best, d->kraw, top, t[j]);
    }
    *f = s;
}
/* pair_fix on run R (a copy of its state: R itself stays in registers) */
#define FF7_PAIR_FIX(R, D, TOP, C56, T)                                           \
    do {                                                                          \
        ff7_fix_state f_ = { (R).x, (R).np, (R).valid, (R).fixes, (R).best };     \
        pair_fix(&f_, D, TOP, C56, T);                                            \
        (R).x = f_.x, (R).np = f_.np, (R).valid = f_.valid, (R).fixes = f_.fixes; \
        (R).best = f_.best;                                                       \
    } while (0)
#define FF7_PAIR_E(R, D, TOP, C56, T, K)                                             \
    do {                                                                             \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[K]);                                   \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 1]);                             \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 2]);                             \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 3]);                             \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 4]);                             \
        FF7_CODE_F((R).x, (R).valid, TOP, (T)[(K) + 5]);                             \
        if (FF7_RARE((R).valid & 0xF0000u)) FF7_PAIR_FIX(R, D, TOP, C56, (T) + (K)); \
        FF7_REFILL(R, C56);                                                          \
    } while (0)

/* Whether a stream's next frame goes a slot at a time: a frame of two-slot groups whose
 * rare paths ran in more than a quarter of its groups (each costs more than the group
 * saves), until a frame a slot at a time has them in under a tenth of its slots. A
 * choice of speed only: both forms give the same entries, state and `best`. */
static inline bool next_slotwise(bool slotwise, uint32_t fixes, size_t per)
{
    return slotwise ? (size_t)fixes * 30u >= per : (size_t)fixes * 24u > per;
}

/* cr[i] = (pr[i] + (t[i] >> sh)) & 0xFFF for i < per: from 16 on, 16 at a time, the
 * last 16 ending at per (those before it again: the same values, as t and pr are not
 * written); under 16 one at a time. */
__attribute__((target("avx2"))) static inline void apply_deltas_avx2(const uint32_t *t, const uint16_t *pr,
                                                                     uint16_t *cr, size_t per, unsigned sh)
{
    if (per < 16) { /* a frame of 1 to 5 slots: one at a time (FF7_CODE's operations) */
        /* t[0..per) all written by the frame's slots (clang's analyzer loses them on the
         * pair loop's negative index and FF7_STORE_E's asm store) */
        for (size_t i = 0; i < per; i++) {
            uint32_t d = t[i] >> sh; /* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
            cr[i] = (uint16_t)(((uint32_t)pr[i] + d) & 0xFFFu);
        }
        return;
    }
    const __m128i n = _mm_cvtsi32_si128((int)sh);
    const __m256i m32 = _mm256_set1_epi32(0xFFF), m16 = _mm256_set1_epi16(0xFFF);
    for (size_t i = 0;; i += 16) {
        if (i + 16 > per) i = per - 16;
        __m256i lo =
            _mm256_and_si256(_mm256_srl_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(t + i)), n), m32);
        __m256i hi =
            _mm256_and_si256(_mm256_srl_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(t + i + 8)), n), m32);
        /* the 16 deltas in order (the pack interleaves the 128-bit lanes) */
        __m256i d = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
        __m256i p = _mm256_loadu_si256((const __m256i *)(const void *)(pr + i));
        _mm256_storeu_si256((__m256i *)(void *)(cr + i), _mm256_and_si256(_mm256_add_epi16(p, d), m16));
        if (i + 16 == per) break;
    }
}

__attribute__((target("bmi,bmi2,avx2,movbe"))) static GANIM_ALWAYS_INLINE void
codes_inside2_avx2(ff7_dec *a, bool *best_a, ff7_dec *b, bool *best_b)
{
    uint32_t tbuf[6 + 2 * FF7_DELTA_MAX];
    uint32_t *t = tbuf + 6; /* a's entries, then b's (one base register for both) */
    uint32_t *ta = t, *tb = t + FF7_DELTA_MAX;
    /* 54 and 56 from memory, not constants the compiler folds: the index's shift is then
     * one shrx (not a copy and a shift), ~valid & 56 one andn (not a copy, a not, an and) */
    const unsigned top = a->top, c56 = a->top + 2u;
    ff7_run ra = run_start64(a), rb = run_start64(b);
    size_t both = a->per < b->per ? a->per : b->per;
    if (FF7_RARE(a->slotwise || b->slotwise)) { /* a slot at a time (many type-7 codes) */
        uint32_t *ea = t + both;                /* the common slots by one index from -both up to 0 */
        ptrdiff_t k = -(ptrdiff_t)both;
        do {
            FF7_SLOT_E(ra, a, top, c56, ea, k);
            FF7_SLOT_E(rb, b, top, c56, ea + FF7_DELTA_MAX, k);
            k += 3;
        } while (k);
        for (size_t i = both; i < a->per; i += 3) FF7_SLOT_E(ra, a, top, c56, ta, i);
        for (size_t i = both; i < b->per; i += 3) FF7_SLOT_E(rb, b, top, c56, tb, i);
    } else {
        /* the common slots two of each stream a turn (FF7_PAIR_E), by one pointer; an odd
         * last one alone */
        uint32_t *ep = t;
        const uint32_t *const end = t + both, *const last = end - 6; /* tbuf's first 6: last stays inside */
        for (; ep <= last; ep += 6) {
            FF7_PAIR_E(ra, a, top, c56, ep, 0);
            FF7_PAIR_E(rb, b, top, c56, ep + FF7_DELTA_MAX, 0);
        }
        /* the slots' redo reads their entries just stored (FF7_STORE_E's asm store, which
         * clang's analyzer does not see) */
        if (ep != end) {
            /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
            FF7_SLOT_E(ra, a, top, c56, ep, 0);
            /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
            FF7_SLOT_E(rb, b, top, c56, ep + FF7_DELTA_MAX, 0);
        }
        size_t i = both;
        for (; i + 6 <= a->per; i += 6) FF7_PAIR_E(ra, a, top, c56, ta, i);
        /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
        if (i < a->per) FF7_SLOT_E(ra, a, top, c56, ta, i);
        for (i = both; i + 6 <= b->per; i += 6) FF7_PAIR_E(rb, b, top, c56, tb, i);
        /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
        if (i < b->per) FF7_SLOT_E(rb, b, top, c56, tb, i);
    }
    a->slotwise = next_slotwise(a->slotwise, ra.fixes, a->per);
    b->slotwise = next_slotwise(b->slotwise, rb.fixes, b->per);
    a->at = run_end(a, &ra);
    b->at = run_end(b, &rb);
    apply_deltas_avx2(ta, ra.pr, ra.cr, a->per, a->sh);
    apply_deltas_avx2(tb, rb.pr, rb.cr, b->per, b->sh);
    *best_a = *best_a && ra.best;
    *best_b = *best_b && rb.best;
}

/* One stream's frame in the same form (a stream whose partner has ended, or a stream
 * read alone): its codes' entries stored, made angles after the frame. */
__attribute__((target("bmi,bmi2,avx2,movbe"))) static GANIM_OUT_OF_LINE void frame_codes_inside_avx2(ff7_dec *d,
                                                                                                     bool *best)
{
    uint32_t t[FF7_DELTA_MAX];
    const unsigned top = d->top, c56 = d->top + 2u;
    ff7_run r = run_start64(d);
    /* the redo of a slot with a type-7 code reads its entries just stored (FF7_STORE_E's
     * asm store, which clang's analyzer does not see) */
    size_t i = 0;
    if (FF7_RARE(d->slotwise))
        for (; i < d->per; i += 3)
            FF7_SLOT_E(r, d, top, c56, t, i); /* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
    for (; i + 6 <= d->per; i += 6)
        FF7_PAIR_E(r, d, top, c56, t, i);             /* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
    if (i < d->per) FF7_SLOT_E(r, d, top, c56, t, i); /* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
    d->slotwise = next_slotwise(d->slotwise, r.fixes, d->per);
    d->at = run_end(d, &r);
    apply_deltas_avx2(t, r.pr, r.cr, d->per, d->sh);
    *best = *best && r.best;
}
#endif

/* The stream's tail: streams of up to FF7_TAIL_PER codes a frame take their last frames
 * from a copy of their last bytes, FF7_TAIL_MAX bytes at most with the zeros after them
 * (dec_to_tail). */
#define FF7_TAIL_PER 768u
#define FF7_TAIL_MAX (FF7_TAIL_PER * 4u + 48u)

/* A frame that starts before bit proven - (per * 16 + 115) runs through the unchecked
 * loops: its positions take 51 bits at most, and its codes then start before
 * proven - (per * 16 + 64) (codes_inside). */
static inline uint64_t tail_start(uint64_t proven, size_t per)
{
    uint64_t need = (uint64_t)per * 16u + 115u;
    return proven > need ? proven - need : 0;
}

/* From frame n on (d->at at or past d->tail_at, at most the stream's end), the stream's
 * bytes from the one holding bit d->at, R of them, copied to d->tbuf and followed by
 * per * 2 + 22 zero bytes; the decoder's positions then count from the copy's start
 * (d->off the bits before it). R is at most per * 2 + 22 (d->at is at least
 * proven - (per * 16 + 115) with proven = (size - 7) * 8, or the stream is at most
 * per * 2 + 21 bytes long), so the copy fits FF7_TAIL_MAX. A frame starting at or before
 * the stream's end (a frame ending past it is the last one read) starts before the
 * copy's tail_start: (R + per * 2 + 22 - 7) * 8 - (per * 16 + 115) = R * 8 + 5. Such
 * a frame reads the bits the stream has and zeros past its end, as the checked decoder
 * does (gb_msb_window64), and it fits exactly when it ends at or before d->lim: the
 * checked decoder fails a frame exactly when one of its fields runs past the end, that
 * is when the frame's last field does. */
static GANIM_OUT_OF_LINE void dec_to_tail(ff7_dec *d)
{
    size_t a0 = d->at >> 3, r = d->size - a0, pad = d->per * 2u + 22u;
    memcpy(d->tbuf, d->stream + a0, r);
    memset(d->tbuf + r, 0, pad);
    d->stream = d->tbuf;
    d->size = r + pad;
    d->proven = gb_msb_proven_limit(d->size);
    d->off += a0 * 8u;
    d->at -= a0 * 8u;
    d->good = d->at;
    d->lim = (uint64_t)r * 8u;
    d->tail_at = UINT64_MAX;
}

/* The decoder's state for a stream before its frame 0 (nothing read); false when no
 * frame 0 can be read. tbuf: FF7_TAIL_MAX bytes for the stream's tail (dec_to_tail). */
static inline bool dec_setup(ff7_dec *d, const uint8_t *stream, size_t size, unsigned bkey, uint32_t slots,
                             uint32_t max_frames, int32_t *pos, uint16_t *rot, uint8_t *tbuf)
{
    d->stream = stream;
    d->size = size;
    d->per = (size_t)slots * 3u;
    d->off = 0;
    d->lim = (uint64_t)size * 8u;
    d->tbuf = tbuf;
    d->tail_at = UINT64_MAX;
    d->pos = pos;
    d->rot = rot;
    d->n = 0;
    d->max = max_frames;
    d->good = 0;
    d->best = true;
    d->live = false;
    d->slotwise = false;
    if (max_frames == 0 || bkey >= 12) return false; /* bkey 12 and up: no first frame can be read */
    d->kraw = 12u - bkey;
    d->bkey = bkey;
    d->step = 1u << bkey;
    d->sh = 20u - bkey;
    d->top = 54u;
    d->proven = gb_msb_proven_limit(size);
    return true;
}

/* The decoder at frame N (N >= 1 frames decoded, the next one at bit AT, BEST the
 * shortest flag so far): d->live when frame N is to be read. */
static inline void dec_resume(ff7_dec *d, uint32_t n, size_t at, bool best)
{
    d->n = n;
    d->at = d->good = at;
    d->best = best;
    d->live = d->n < d->max;
    if (d->per <= FF7_TAIL_PER) d->tail_at = tail_start(d->proven, d->per);
}

/* Frame 0 (16-bit positions, raw angles); d->live when frame 1 is to be read. False when
 * frame 0 does not fit (nothing decoded). tbuf: FF7_TAIL_MAX bytes for the stream's tail
 * (dec_to_tail). */
static GANIM_ALWAYS_INLINE bool dec_start(ff7_dec *d, const uint8_t *stream, size_t size, unsigned bkey, uint32_t slots,
                                          uint32_t max_frames, int32_t *pos, uint16_t *rot, uint8_t *tbuf)
{
    if (!dec_setup(d, stream, size, bkey, slots, max_frames, pos, rot, tbuf)) return false;
    ganim_bits b = gb_init(stream, size);
    size_t f0 = 48u + d->per * d->kraw; /* frame 0's bits */
    if (d->per <= FF7_TAIL_PER && f0 <= d->proven) {
        /* every field's window inside: each value from a window at its bit (a raw angle
         * times 2^bKey modulo 4096 is its kraw bits shifted, whatever its sign) */
        for (int i = 0; i < 3; i++)
            pos[i] = (int32_t)(int16_t)(uint16_t)(gb_msb_window64_proven(stream, (size_t)i * 16u) >> 48);
        for (size_t i = 0, at = 48; i < d->per; i++, at += d->kraw)
            rot[i] = (uint16_t)((gb_msb_window64_proven(stream, at) >> (64u - d->kraw)) << bkey);
        b.pos = f0;
    } else {
        for (int i = 0; i < 3; i++) {
            if (!gb_msb_s(&b, 16, &pos[i])) return false;
        }
        for (size_t i = 0; i < d->per; i++) {
            int32_t v;
            if (!gb_msb_s(&b, d->kraw, &v)) return false;
            rot[i] = (uint16_t)((uint32_t)v * d->step & 0xFFFu);
        }
    }
    dec_resume(d, 1, b.pos, true);
    return true;
}

/* Before frame n: to the tail's copy when the frame may reach the stream's last bytes. */
static inline void dec_frame_start(ff7_dec *d)
{
    if (FF7_RARE(d->at >= d->tail_at)) dec_to_tail(d);
}

/* A frame's three position deltas (a flag bit, then 7 or 16 bits) from one window `w` of
 * at least 51 stream bits: cp[k] = pp[k] + delta; *frame_best false for a 16-bit delta that
 * 7 bits would hold. Returns the bits taken. (dec_positions and slot1_frame.) */
static GANIM_ALWAYS_INLINE unsigned positions_window(uint64_t w, const int32_t *pp, int32_t *cp, bool *frame_best)
{
    unsigned used = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t x = w << used;
        if (x >> 63) {
            int32_t dv = (int32_t)(int16_t)(uint16_t)(x >> 47);
            cp[k] = pp[k] + dv;
            if (dv >= -64 && dv <= 63) *frame_best = false;
            used += 17;
        } else {
            uint32_t u = (uint32_t)((x << 1) >> 57); /* 7-bit two's complement */
            cp[k] = pp[k] + (int32_t)u - (int32_t)((u & 64u) << 1);
            used += 8;
        }
    }
    return used;
}

/* Frame n's three position deltas (8 or 17 bits each); false when they do not fit. */
static GANIM_ALWAYS_INLINE bool dec_positions(ff7_dec *d, bool *frame_best)
{
    const int32_t *pp = d->pos + (size_t)(d->n - 1) * 3u;
    int32_t *cp = d->pos + (size_t)d->n * 3u;
    if (d->at < d->proven) { /* 51 bits at most: one window */
        d->at += positions_window(gb_msb_window64_proven(d->stream, d->at), pp, cp, frame_best);
        return true;
    }
    ganim_bits b = gb_init(d->stream, d->size);
    b.pos = d->at;
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        uint32_t f;
        int32_t dv;
        ok = gb_msb_u(&b, 1, &f) && gb_msb_s(&b, f ? 16 : 7, &dv);
        if (ok) {
            cp[i] = pp[i] + dv;
            if (f && dv >= -64 && dv <= 63) *frame_best = false;
        }
    }
    d->at = b.pos;
    return ok;
}

/* Frame n's rotation codes from code i on, each slot's window checked (one load gives 57
 * stream bits, a slot's three codes take 48 at most), and at the end of the stream one
 * code at a time, each checked against the end; false when they do not fit. */
static inline bool dec_codes_checked(ff7_dec *d, size_t i, bool *frame_best)
{
    uint16_t *cr = d->rot + (size_t)d->n * d->per;
    const uint16_t *pr = cr - d->per;
    bool fbest = *frame_best;
    while (i < d->per && d->at < d->proven) { /* per is a multiple of 3 */
        uint64_t x = gb_msb_window64_proven(d->stream, d->at);
        uint32_t left = 64; /* low 16 bits: 64 less the codes' lengths (FF7_CODE) */
        FF7_CODE(x, left, fbest, d->kraw, d->sh, pr[i], cr[i]);
        FF7_CODE(x, left, fbest, d->kraw, d->sh, pr[i + 1], cr[i + 1]);
        FF7_CODE(x, left, fbest, d->kraw, d->sh, pr[i + 2], cr[i + 2]);
        d->at += (64u - left) & 0xFFFFu;
        i += 3;
    }
    size_t nbits = d->size * 8u;
    while (i < d->per) {
        int32_t v;
        if (d->at >= nbits) {
            *frame_best = fbest;
            return false;
        }
        unsigned len = ff7_rot_delta(gb_msb_window64(d->stream, d->size, d->at), d->kraw, d->bkey, &v, &fbest);
        if (len > nbits - d->at) {
            *frame_best = fbest;
            return false;
        }
        d->at += len;
        cr[i] = (uint16_t)(((uint32_t)pr[i] + (uint32_t)v * d->step) & 0xFFFu);
        i++;
    }
    *frame_best = fbest;
    return true;
}

/* The end of frame n: kept when it fit (a frame that does not fit is not part of the
 * animation, and ends the decoding). */
static inline void dec_commit(ff7_dec *d, bool ok, bool frame_best)
{
    if (!ok || d->at > d->lim) { /* lim: a frame of the tail's copy ending past the stream */
        d->live = false;
        return;
    }
    d->best = d->best && frame_best;
    d->good = d->at;
    d->n++;
    d->live = d->n < d->max;
}

/* Whether frame n of a stream of one slot (a pack's weapon entries: per 3) lies inside
 * before its tail (tail_at below proven: not yet the tail's copy, whose lim may cut a
 * frame): its positions take 51 bits at most, its three codes 48, and a frame starting
 * before tail_at = proven - (3 * 16 + 115) has its codes' start and a window at it
 * inside, and ends before lim (the stream's end): it fits, and dec_frame_start would
 * not move to the tail. */
static inline bool slot1_inside(const ff7_dec *d) { return d->at < d->tail_at && d->tail_at < d->proven; }

/* A stream of one slot's state through its frames inside (slot1_frame): only what they
 * read and change, so that two such streams' state stays in registers. cp, cr: frame
 * n's positions and angles (the previous frame's just before them); left: the frames
 * still wanted; end: tail_at (the frames inside start before it, see slot1_inside). */
typedef struct ff7_slot1 {
    const uint8_t *stream;
    size_t at, end;
    int32_t *cp;
    uint16_t *cr;
    uint32_t left;
    unsigned kraw, sh;
    bool best;
} ff7_slot1;

static GANIM_ALWAYS_INLINE ff7_slot1 slot1_load(const ff7_dec *d)
{
    ff7_slot1 x = { d->stream,
                    d->at,
                    (size_t)d->tail_at,
                    d->pos + (size_t)d->n * 3u,
                    d->rot + (size_t)d->n * 3u,
                    d->max - d->n,
                    d->kraw,
                    d->sh,
                    d->best };
    return x;
}

/* D after the frames X decoded (dec_commit's fields: every frame of them was kept). */
static GANIM_ALWAYS_INLINE void slot1_store(ff7_dec *d, const ff7_slot1 *x)
{
    d->at = d->good = x->at;
    d->n = d->max - x->left;
    d->live = x->left != 0;
    d->best = x->best;
}

/* Frame n of a stream of one slot when slot1_inside: dec_frame's operations on the same
 * values with nothing to choose (no tail, no check: the positions by dec_positions's
 * one-window form, the three codes from one window as dec_codes_checked's slot), so the
 * same positions, angles, bits and flag; the frame is kept (dec_commit). */
static GANIM_ALWAYS_INLINE void slot1_frame(ff7_slot1 *d)
{
    bool fb = true;
    int32_t *cp = d->cp;
    d->at += positions_window(gb_msb_window64_proven(d->stream, d->at), cp - 3, cp, &fb);
    uint16_t *cr = d->cr;
    uint64_t x = gb_msb_window64_proven(d->stream, d->at);
    uint32_t left = 64; /* low 16 bits: 64 less the codes' lengths (FF7_CODE) */
    FF7_CODE(x, left, fb, d->kraw, d->sh, cr[-3], cr[0]);
    FF7_CODE(x, left, fb, d->kraw, d->sh, cr[-2], cr[1]);
    FF7_CODE(x, left, fb, d->kraw, d->sh, cr[-1], cr[2]);
    d->at += (64u - left) & 0xFFFFu;
    d->best = d->best && fb;
    d->cp += 3;
    d->cr += 3;
    d->left--;
}

/* Two streams of one slot side by side (the pair loop's lanes), frame by frame while
 * both are live and both frames lie inside: at least one frame of each (the caller
 * checked both); out of line, so that the pair loop's own registers are as they were. */
static GANIM_ALWAYS_INLINE void slot1_frames2(ff7_dec *a, ff7_dec *b)
{
    ff7_slot1 x = slot1_load(a), y = slot1_load(b);
    do {
        slot1_frame(&x);
        slot1_frame(&y);
    } while (x.left && y.left && x.at < x.end && y.at < y.end);
    slot1_store(a, &x);
    slot1_store(b, &y);
}
/* One stream of one slot alone (the list's last), while live and inside. */
static GANIM_ALWAYS_INLINE void slot1_frames(ff7_dec *a)
{
    if (!(a->live && slot1_inside(a))) return;
    ff7_slot1 x = slot1_load(a);
    do slot1_frame(&x);
    while (x.left && x.at < x.end);
    slot1_store(a, &x);
}
static GANIM_OUT_OF_LINE void slot1_frames2_plain(ff7_dec *a, ff7_dec *b) { slot1_frames2(a, b); }
static GANIM_OUT_OF_LINE void slot1_frames_plain(ff7_dec *a) { slot1_frames(a); }
#if FF7_HAVE_BMI2
/* (shlx and shrx: the same operations on the same values) */
__attribute__((target("bmi2"))) static GANIM_OUT_OF_LINE void slot1_frames2_bmi2(ff7_dec *a, ff7_dec *b)
{
    slot1_frames2(a, b);
}
__attribute__((target("bmi2"))) static GANIM_OUT_OF_LINE void slot1_frames_bmi2(ff7_dec *a) { slot1_frames(a); }
/* The AVX2 path's (its CPUs have MOVBE: each window's load and byte swap one movbe) */
__attribute__((target("bmi2,movbe"))) static GANIM_OUT_OF_LINE void slot1_frames2_movbe(ff7_dec *a, ff7_dec *b)
{
    slot1_frames2(a, b);
}
__attribute__((target("bmi2,movbe"))) static GANIM_OUT_OF_LINE void slot1_frames_movbe(ff7_dec *a) { slot1_frames(a); }
#endif
/* The two above in path's form (FF7_PAIR_*: a constant where they are called); b NULL:
 * a alone. */
static GANIM_ALWAYS_INLINE void slot1_run(ff7_dec *a, ff7_dec *b, int path)
{
#if FF7_HAVE_BMI2
    if (path == FF7_PAIR_AVX2) {
        if (b) slot1_frames2_movbe(a, b);
        else slot1_frames_movbe(a);
        return;
    }
    if (path != FF7_PAIR_PLAIN) {
        if (b) slot1_frames2_bmi2(a, b);
        else slot1_frames_bmi2(a);
        return;
    }
#else
    (void)path;
#endif
    if (b) slot1_frames2_plain(a, b);
    else slot1_frames_plain(a);
}

/* Frame n of one stream; path: the loop's form (FF7_PAIR_*, as for two streams). */
static GANIM_ALWAYS_INLINE void dec_frame(ff7_dec *d, int path)
{
    dec_frame_start(d);
    bool frame_best = true, ok = dec_positions(d, &frame_best);
    if (ok && codes_inside(d)) {
#if FF7_HAVE_BMI2
        if (path == FF7_PAIR_AVX2 && d->per >= 16 && d->per <= FF7_DELTA_MAX) frame_codes_inside_avx2(d, &frame_best);
        else
#else
        (void)path;
#endif
            frame_codes_inside(d, &frame_best);
    } else if (ok) ok = dec_codes_checked(d, 0, &frame_best);
    dec_commit(d, ok, frame_best);
}

#if FF7_HAVE_BMI2
static bool cpu_has_bmi2(void) { return __builtin_cpu_supports("bmi2"); }
/* MOVBE (CPUID leaf 1, ECX bit 22; clang's __builtin_cpu_supports does not know it),
 * asked once: 0 not yet known, 1 no, 2 yes */
static bool cpu_has_movbe(void)
{
    static int known;
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        unsigned a = 0, b = 0, c = 0, d = 0;
        k = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 22)) ? 2 : 1;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}
/* AVX2, and BMI1 (the AVX2 form's andn; BMI2 is tested apart) */
static bool cpu_has_avx2(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && cpu_has_movbe();
}
#else
static bool cpu_has_bmi2(void) { return false; }
static bool cpu_has_avx2(void) { return false; }
#endif

/* The fastest form this CPU runs. */
static int pair_path(void)
{
    if (!cpu_has_bmi2()) return FF7_PAIR_PLAIN;
    return cpu_has_avx2() ? FF7_PAIR_AVX2 : FF7_PAIR_BMI2;
}

/* One stream, and two side by side, each compiled twice: as any CPU runs them and, where
 * the CPU has BMI2, with shlx/shrx (the same operations on the same values). */
typedef struct ff7_one_job {
    const uint8_t *stream;
    size_t size;
    unsigned bkey;
    uint32_t slots, max_frames;
    int32_t *pos;
    uint16_t *rot;
    size_t *bits;
    bool *shortest;
} ff7_one_job;

static GANIM_ALWAYS_INLINE uint32_t decode_one(const ff7_one_job *j, int path)
{
    ff7_dec d;
    uint8_t tail[FF7_TAIL_MAX];
    *j->bits = 0;
    if (!dec_start(&d, j->stream, j->size, j->bkey, j->slots, j->max_frames, j->pos, j->rot, tail)) return 0;
    while (d.live) dec_frame(&d, path);
    *j->bits = d.good + d.off;
    if (j->shortest) *j->shortest = d.best;
    return d.n;
}

static GANIM_OUT_OF_LINE uint32_t decode_one_plain(const ff7_one_job *j) { return decode_one(j, FF7_PAIR_PLAIN); }
#if FF7_HAVE_BMI2
__attribute__((target("bmi2"))) static GANIM_OUT_OF_LINE uint32_t decode_one_bmi2(const ff7_one_job *j)
{
    return decode_one(j, FF7_PAIR_BMI2);
}
__attribute__((target("bmi2,movbe"))) static GANIM_OUT_OF_LINE uint32_t decode_one_avx2(const ff7_one_job *j)
{
    return decode_one(j, FF7_PAIR_AVX2);
}
#endif

static uint32_t decode_one_on(const ff7_one_job *j, int path)
{
#if FF7_HAVE_BMI2
    if (path == FF7_PAIR_AVX2) return decode_one_avx2(j);
    if (path == FF7_PAIR_BMI2) return decode_one_bmi2(j);
#else
    (void)path;
#endif
    return decode_one_plain(j);
}

uint32_t ff7_decode_stream(const uint8_t *stream, size_t size, unsigned bkey, uint32_t slots, uint32_t max_frames,
                           int32_t *pos, uint16_t *rot, size_t *bits, bool *shortest)
{
    ff7_one_job j = { stream, size, bkey, slots, max_frames, pos, rot, bits, shortest };
    return decode_one_on(&j, pair_path());
}

#if FF7_HAVE_BMI2
/* ---- streams in vector lanes ------------------------------------------------------- */
/* Where the list holds 16 to 32 streams of the same slot count and bKey (a pack's body
 * animations, FF7_BATCH at a time), their frames are first decoded one stream a 32-bit
 * lane, 8 lanes a vector, 2 to 4 vectors side by side (one vector alone waits on its own
 * chain: gather, table, length, ~36 cycles a code): each code from a gathered 32-bit
 * window at the lane's bit, its type's length, shift and offset by vpermd from 8-entry
 * tables, its value by variable shifts (no look-up table), the angles kept a lane a
 * code and written to each stream's frame by 8 x 8 transposes. All lanes stop together
 * before a frame that might reach a lane's last 4 bytes, or the fewest frames wanted;
 * each stream's later frames are then decoded as before (lane_take resumes it). The
 * same values, bits and shortest flag as the decoder one code at a time (a type-7 code
 * sends its lane's frame through ff7_rot_delta once more for the flag). */
#define FF7_LANES 8u
#define FF7_LANE_GROUPS 4u
#define FF7_LANE_PER 96u /* 32 slots */

typedef struct ff7_lanes {
    const uint8_t *base; /* the lowest stream: lanes' bits count from it */
    size_t per, ng;      /* codes a frame; vectors (groups of FF7_LANES) */
    unsigned bkey;
    uint32_t frames; /* the fewest frames wanted */
    ff7_stream_job *job[FF7_LANE_GROUPS * FF7_LANES];
    int32_t p[FF7_LANE_GROUPS * FF7_LANES];   /* bit of the lane's next frame, from base */
    int32_t lim[FF7_LANE_GROUPS * FF7_LANES]; /* the last bit a frame may start at */
    int32_t rs[FF7_LANE_GROUPS * FF7_LANES];  /* the frame's first rotation code */
    bool best[FF7_LANE_GROUPS * FF7_LANES];
} ff7_lanes;

/* 8 int32 at P, loaded and stored unaligned */
#define FF7_LD8(P) _mm256_loadu_si256((const __m256i *)(const void *)(P))
#define FF7_ST8(P, V) _mm256_storeu_si256((__m256i *)(void *)(P), (V))

/* A frame's bits at most: three 17-bit positions, per codes of 16 bits. */
static inline size_t lane_frame_max(size_t per) { return 51u + per * 16u; }

/* The lanes' shortest flag for frame F's rotation codes of lane L (a type-7 code in it):
 * its codes again, one at a time (inside the stream: the frame fits). */
static GANIM_OUT_OF_LINE void lane_raw_best(ff7_lanes *s, size_t l)
{
    const ff7_stream_job *j = s->job[l];
    size_t at = (size_t)s->rs[l] - (size_t)(j->stream - s->base) * 8u;
    unsigned kraw = 12u - s->bkey;
    for (size_t i = 0; i < s->per; i++) {
        int32_t v;
        at += ff7_rot_delta(gb_msb_window64(j->stream, j->size, at), kraw, s->bkey, &v, &s->best[l]);
    }
}

/* lanes_run for NG vectors (a constant in each of its forms: the loops over them
 * unrolled, each vector's bit positions kept in a register) */
__attribute__((target("avx2,bmi,bmi2"))) static GANIM_ALWAYS_INLINE void lanes_body(ff7_lanes *s, size_t ng)
{
    /* int32 arrays by unaligned loads and stores, no __m256i object in memory: MinGW's gcc
     * does not align the stack to 32 bytes (gcc bug 54412) */
    int32_t acc[FF7_LANE_GROUPS][FF7_LANE_PER][FF7_LANES], pacc[FF7_LANE_GROUPS][3][FF7_LANES];
    int32_t pv[FF7_LANE_GROUPS][FF7_LANES], nbv[FF7_LANE_GROUPS][FF7_LANES], rawv[FF7_LANE_GROUPS][FF7_LANES];
    const size_t per = s->per;
    const unsigned kraw = 12u - s->bkey;
    const __m256i bswap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4,
                                           11, 10, 9, 8, 15, 14, 13, 12);
    /* by the code's type t (bits 1..3 of it; bit 0, a 0 code, apart): its length after
     * a 1, the shift that drops the 1 and t (32 for t = 0: no bits), the shift that
     * sign-extends its k bits, and its offset (-1 for t = 0, 2^(t-1), 0 for raw) */
    const __m256i lt = _mm256_setr_epi32(4, 5, 6, 7, 8, 9, 10, (int)(4u + kraw));
    const __m256i st = _mm256_setr_epi32(32, 4, 4, 4, 4, 4, 4, 4);
    const __m256i kt = _mm256_setr_epi32(31, 31, 30, 29, 28, 27, 26, (int)(32u - kraw));
    const __m256i ht = _mm256_setr_epi32(-1, 1, 2, 4, 8, 16, 32, 0);
    const __m256i one = _mm256_set1_epi32(1), seven = _mm256_set1_epi32(7), m12 = _mm256_set1_epi32(0xFFF);
    const __m128i bk = _mm_cvtsi32_si128((int)s->bkey);
    const int *base = (const int *)(const void *)s->base;
    for (size_t g = 0; g < ng; g++) {
        FF7_ST8(pv[g], FF7_LD8(&s->p[g * FF7_LANES]));
        FF7_ST8(nbv[g], _mm256_setzero_si256());
        for (size_t l = 0; l < FF7_LANES; l++) {
            const ff7_stream_job *j = s->job[g * FF7_LANES + l];
            for (size_t k = 0; k < 3; k++) pacc[g][k][l] = j->pos[k];
            for (size_t i = 0; i < per; i++) acc[g][i][l] = j->rot[i];
        }
    }
    uint32_t f = 1;
    for (; f < s->frames; f++) {
        __m256i over = _mm256_setzero_si256();
        for (size_t g = 0; g < ng; g++)
            over = _mm256_or_si256(over, _mm256_cmpgt_epi32(FF7_LD8(pv[g]), FF7_LD8(&s->lim[g * FF7_LANES])));
        if (!_mm256_testz_si256(over, over)) break;
        for (size_t k = 0; k < 3; k++)
            for (size_t g = 0; g < ng; g++) { /* a flag, then 7 or 16 bits */
                __m256i pg = FF7_LD8(pv[g]), w = _mm256_i32gather_epi32(base, _mm256_srli_epi32(pg, 3), 1);
                w = _mm256_sllv_epi32(_mm256_shuffle_epi8(w, bswap), _mm256_and_si256(pg, seven));
                __m256i fl = _mm256_srai_epi32(w, 31);
                __m256i sh = _mm256_add_epi32(_mm256_set1_epi32(25), _mm256_and_si256(fl, _mm256_set1_epi32(-9)));
                __m256i v = _mm256_srav_epi32(_mm256_slli_epi32(w, 1), sh);
                __m256i a = _mm256_add_epi32(FF7_LD8(pacc[g][k]), v);
                FF7_ST8(pacc[g][k], a);
                /* a 17-bit code for a value of 8 bits: not the shortest */
                __m256i small = _mm256_cmpeq_epi32(_mm256_srli_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(64)), 7),
                                                   _mm256_setzero_si256());
                FF7_ST8(nbv[g], _mm256_or_si256(FF7_LD8(nbv[g]), _mm256_and_si256(fl, small)));
                FF7_ST8(pv[g], _mm256_add_epi32(pg, _mm256_sub_epi32(_mm256_set1_epi32(17),
                                                                     _mm256_andnot_si256(fl, _mm256_set1_epi32(9)))));
            }
        for (size_t g = 0; g < ng; g++) {
            FF7_ST8(&s->rs[g * FF7_LANES], FF7_LD8(pv[g]));
            FF7_ST8(rawv[g], _mm256_setzero_si256());
        }
        for (size_t i = 0; i < per; i++)
            for (size_t g = 0; g < ng; g++) {
                __m256i pg = FF7_LD8(pv[g]), w = _mm256_i32gather_epi32(base, _mm256_srli_epi32(pg, 3), 1);
                w = _mm256_sllv_epi32(_mm256_shuffle_epi8(w, bswap), _mm256_and_si256(pg, seven));
                __m256i i4 = _mm256_srli_epi32(w, 28); /* the 1 and t */
                FF7_ST8(rawv[g], _mm256_max_epu32(FF7_LD8(rawv[g]), i4));
                __m256i len = _mm256_permutevar8x32_epi32(lt, i4);
                __m256i s4 = _mm256_permutevar8x32_epi32(st, i4);
                __m256i kk = _mm256_permutevar8x32_epi32(kt, i4);
                __m256i h = _mm256_permutevar8x32_epi32(ht, i4);
                __m256i v = _mm256_srav_epi32(_mm256_sllv_epi32(w, s4), kk);
                __m256i sm = _mm256_srai_epi32(v, 31);
                v = _mm256_add_epi32(v, _mm256_sub_epi32(_mm256_xor_si256(h, sm), sm));
                __m256i b = _mm256_srai_epi32(w, 31); /* a 0 code: delta 0, 1 bit */
                v = _mm256_and_si256(v, b);
                FF7_ST8(pv[g], _mm256_add_epi32(pg, _mm256_blendv_epi8(one, len, b)));
                __m256i a = FF7_LD8(acc[g][i]);
                a = _mm256_and_si256(_mm256_add_epi32(a, _mm256_sll_epi32(v, bk)), m12);
                FF7_ST8(acc[g][i], a);
            }
        for (size_t g = 0; g < ng; g++) {
            int m =
                _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(FF7_LD8(rawv[g]), _mm256_set1_epi32(15))));
            for (size_t l = 0; m; l++, m >>= 1)
                if (m & 1) lane_raw_best(s, g * FF7_LANES + l);
            int32_t *cp[FF7_LANES];
            uint16_t *cr[FF7_LANES];
            for (size_t l = 0; l < FF7_LANES; l++) {
                const ff7_stream_job *j = s->job[g * FF7_LANES + l];
                cp[l] = j->pos + (size_t)f * 3u;
                cr[l] = j->rot + (size_t)f * per;
                for (size_t k = 0; k < 3; k++) cp[l][k] = pacc[g][k][l];
            }
            /* 8 codes of the 8 lanes a time, transposed to 8 codes of each (the last 8
             * ending at per: the codes before again, the same values) */
            for (size_t i0 = 0; i0 < per; i0 += 8) {
                size_t i = i0 + 8u <= per ? i0 : per - 8u;
                const int32_t *r = acc[g][i];
                __m256i a0 = _mm256_packus_epi32(FF7_LD8(r), FF7_LD8(r + 8));
                __m256i a1 = _mm256_packus_epi32(FF7_LD8(r + 16), FF7_LD8(r + 24));
                __m256i a2 = _mm256_packus_epi32(FF7_LD8(r + 32), FF7_LD8(r + 40));
                __m256i a3 = _mm256_packus_epi32(FF7_LD8(r + 48), FF7_LD8(r + 56));
                __m256i b0 = _mm256_unpacklo_epi16(a0, a1), b1 = _mm256_unpackhi_epi16(a0, a1);
                __m256i b2 = _mm256_unpacklo_epi16(a2, a3), b3 = _mm256_unpackhi_epi16(a2, a3);
                __m256i d0 = _mm256_unpacklo_epi16(b0, b1), d1 = _mm256_unpackhi_epi16(b0, b1);
                __m256i d2 = _mm256_unpacklo_epi16(b2, b3), d3 = _mm256_unpackhi_epi16(b2, b3);
                __m256i e[4] = { _mm256_unpacklo_epi64(d0, d2), _mm256_unpackhi_epi64(d0, d2),
                                 _mm256_unpacklo_epi64(d1, d3), _mm256_unpackhi_epi64(d1, d3) };
                for (size_t l = 0; l < 4; l++) {
                    _mm_storeu_si128((__m128i *)(void *)(cr[l] + i), _mm256_castsi256_si128(e[l]));
                    _mm_storeu_si128((__m128i *)(void *)(cr[l + 4] + i), _mm256_extracti128_si256(e[l], 1));
                }
            }
        }
    }
    for (size_t g = 0; g < ng; g++) {
        FF7_ST8(&s->p[g * FF7_LANES], FF7_LD8(pv[g]));
        int m = _mm256_movemask_ps(_mm256_castsi256_ps(FF7_LD8(nbv[g])));
        for (size_t l = 0; l < FF7_LANES; l++)
            if (m >> l & 1) s->best[g * FF7_LANES + l] = false;
    }
    s->frames = f;
}

__attribute__((target("avx2,bmi,bmi2"))) static GANIM_OUT_OF_LINE void lanes_run(ff7_lanes *s)
{
    if (s->ng == 2u) lanes_body(s, 2u);
    else if (s->ng == 3u) lanes_body(s, 3u);
    else lanes_body(s, FF7_LANE_GROUPS);
}

/* The list's streams that the lanes take: the first stream (with a frame 1) of at most
 * FF7_LANE_PER codes a frame sets the slots and bKey, and the list's streams like it are
 * taken, a multiple of FF7_LANES of them, 2 to FF7_LANE_GROUPS groups; their frame 0
 * decoded (dec_start). Each job's frames is 0 after this, or for a stream the lanes took
 * the frames they decoded (frame 0 and on), with bits and shortest as after them. */
static inline bool lane_candidate(const ff7_stream_job *j)
{
    size_t per = (size_t)j->slots * 3u;
    return per >= 8u && per <= FF7_LANE_PER && j->bkey < 12u && j->max_frames >= 2u && j->size >= 8u &&
           j->size <= ((size_t)1 << 27);
}

/* (out of line with its caller's targets, decode_list_avx2's: its frame 0s by dec_start
 * with movbe and shrx as there; in line in decode_list_avx2 the read took fewer
 * instructions but longer, and a plain call without the targets +6,300 instructions on
 * the synthetic pack) */
__attribute__((target("bmi2,movbe"))) static GANIM_OUT_OF_LINE void lanes_prepass(ff7_stream_job *const *jobs, size_t n)
{
    ff7_lanes s;
    size_t m = 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    size_t like = 0, first = n;
    for (size_t k = 0; k < n; k++) {
        const ff7_stream_job *j = jobs[k];
        jobs[k]->frames = 0;
        if (!lane_candidate(j)) continue;
        if (first == n) first = k;
        like += j->slots == jobs[first]->slots && j->bkey == jobs[first]->bkey;
    }
    if (like < 2u * FF7_LANES) return; /* before any frame 0 is read: a list of a few streams pays nothing */
    for (size_t k = first; k < n && m < FF7_LANE_GROUPS * FF7_LANES; k++) {
        ff7_stream_job *j = jobs[k];
        size_t per = (size_t)j->slots * 3u;
        if (!lane_candidate(j) || j->slots != jobs[first]->slots || j->bkey != jobs[first]->bkey) continue;
        ff7_dec d;
        if (!dec_start(&d, j->stream, j->size, j->bkey, j->slots, j->max_frames, j->pos, j->rot, NULL) || !d.live ||
            d.at + lane_frame_max(per) > (j->size - 4u) * 8u)
            continue;
        s.job[m] = j;
        s.p[m] = (int32_t)d.at; /* from the stream's start until base is known */
        m++;
    }
    s.ng = m / FF7_LANES;
    if (s.ng < 2u) return; /* one vector alone is slower than the pair loop */
    s.per = (size_t)jobs[first]->slots * 3u;
    s.bkey = jobs[first]->bkey;
    s.frames = UINT32_MAX;
    s.base = NULL;
    for (size_t l = 0; l < s.ng * FF7_LANES; l++) {
        const ff7_stream_job *j = s.job[l];
        if (j->max_frames < s.frames) s.frames = j->max_frames;
        if ((uintptr_t)j->stream < lo) lo = (uintptr_t)j->stream, s.base = j->stream;
        if ((uintptr_t)(j->stream + j->size) > hi) hi = (uintptr_t)(j->stream + j->size);
    }
    if (hi - lo > ((uintptr_t)1 << 27)) return; /* bit positions from base in 31 bits */
    for (size_t l = 0; l < s.ng * FF7_LANES; l++) {
        const ff7_stream_job *j = s.job[l];
        size_t off = (size_t)((uintptr_t)j->stream - lo) * 8u;
        s.p[l] += (int32_t)off;
        s.lim[l] = (int32_t)(off + (j->size - 4u) * 8u - lane_frame_max(s.per));
        s.best[l] = true;
    }
    lanes_run(&s);
    for (size_t l = 0; l < s.ng * FF7_LANES; l++) {
        ff7_stream_job *j = s.job[l];
        j->frames = s.frames;
        j->bits = (size_t)s.p[l] - (size_t)((uintptr_t)j->stream - lo) * 8u;
        j->shortest = s.best[l];
    }
}
#endif

#if FF7_HAVE_BMI2
/* Whether two streams' frames take the AVX2 pair loop (codes_inside2_avx2): frames of up
 * to FF7_DELTA_MAX codes in each stream, 16 or more in one of them. */
static inline bool pair_avx2(const ff7_dec *a, const ff7_dec *b)
{
    return (a->per >= 16 || b->per >= 16) && a->per <= FF7_DELTA_MAX && b->per <= FF7_DELTA_MAX;
}

/* decode_list_body's frames of two streams on the AVX2 path when pair_avx2, until one
 * ends: the same steps a frame (the tail, the positions, the codes, the commit) in one
 * function, so that the pair loop's constants and frame are set up once for all the
 * frames, not once a frame.
 *
 * Every frame here lies inside its stream (or its tail's copy), so the positions come
 * from one window and the codes run through the unchecked loop, with no test. Both
 * streams have at most FF7_DELTA_MAX = FF7_TAIL_PER codes a frame (pair_avx2), a tail
 * buffer (decode_list_body's) and so a tail_at (dec_resume), and are live: frame n starts
 * at a bit `at` that the last frame's commit left at or before lim. dec_frame_start then
 * leaves either at < tail_at = proven - (per * 16 + 115) (before the tail), or the tail's
 * copy, where at is at most lim = R * 8, below the copy's own proven - (per * 16 + 115) =
 * R * 8 + 5 (dec_to_tail). Either way at < proven (dec_positions' one-window form) and
 * the codes, 51 bits of positions on at most, start before proven - (per * 16 + 64):
 * codes_inside. (Until the twenty-eighth session the frame tested both and sent a frame
 * that failed to frame_codes_apart, which no stream reached: see docs/benchmarks.md,
 * "Twenty-fifth round", the planted bugs.) A frame that ends past the stream's end (the
 * copy's lim) is not kept, as before (dec_commit). */
__attribute__((target("bmi,bmi2,avx2,movbe"))) static GANIM_OUT_OF_LINE void frames2_avx2(ff7_dec *a, ff7_dec *b)
{
    do {
        dec_frame_start(a);
        dec_frame_start(b);
        bool fa = true, fb = true;
        a->at += positions_window(gb_msb_window64_proven(a->stream, a->at), a->pos + (size_t)(a->n - 1) * 3u,
                                  a->pos + (size_t)a->n * 3u, &fa);
        b->at += positions_window(gb_msb_window64_proven(b->stream, b->at), b->pos + (size_t)(b->n - 1) * 3u,
                                  b->pos + (size_t)b->n * 3u, &fb);
        codes_inside2_avx2(a, &fa, b, &fb);
        dec_commit(a, true, fa);
        dec_commit(b, true, fb);
    } while (a->live & b->live);
}
#endif

/* A lane's job done: its results as ff7_decode_stream gives them (shortest left as it
 * was when frame 0 did not fit). */
static GANIM_ALWAYS_INLINE void lane_done(const ff7_dec *d, bool started, ff7_stream_job *j)
{
    j->frames = d->n;
    j->bits = d->good + d->off;
    if (started) j->shortest = d->best;
}

/* Lane D takes the list's next job with a frame to read after frame 0 (*J, *STARTED: its
 * frame 0 fit); the jobs it passes on the way are done. False when the list is used up. */
static GANIM_ALWAYS_INLINE bool lane_take(ff7_dec *d, ff7_stream_job **j, bool *started, ff7_stream_job *const *jobs,
                                          size_t n, size_t *next, uint8_t *tbuf, bool resume)
{
    while (*next < n) {
        ff7_stream_job *x = jobs[(*next)++];
        *j = x;
        if (resume && x->frames > 1u) { /* the vector lanes decoded its frames up to x->frames (frame 0 fit) */
            *started = dec_setup(d, x->stream, x->size, x->bkey, x->slots, x->max_frames, x->pos, x->rot, tbuf);
            if (*started) dec_resume(d, x->frames, x->bits, x->shortest);
        } else *started = dec_start(d, x->stream, x->size, x->bkey, x->slots, x->max_frames, x->pos, x->rot, tbuf);
        if (d->live) return true;
        lane_done(d, *started, x);
    }
    return false;
}

/* The order in which the lanes take a list's streams: the widest first (most codes a
 * frame), and among streams of one width the longest first (most frames left: the header's
 * count less those the vector lanes decoded). Two lanes taking the next stream in this order
 * keep the wide streams side by side (their codes' chains interleaved) and leave the
 * narrow ones (a pack's 1-slot weapon entries) to run beside each other, not a 1-slot
 * stream beside a wide one whose codes then run alone. A stable insertion sort of the
 * pointers into ORD, for lists of 3 to FF7_ORDER_MAX streams (a small pack's entries);
 * longer ones keep their order (a pack's own order puts its body entries before its
 * weapon entries, and in a long list the two lanes' unequal ends weigh little; the sort
 * cost the synthetic pack's two lists of 32 and 28 streams ~2,900 instructions). A choice
 * of speed only: each stream is decoded alone, whatever runs beside it. */
#define FF7_ORDER_MAX 16u
static inline uint64_t order_key(const ff7_stream_job *j, bool resume)
{
    uint32_t left = resume && j->frames > 1u ? j->max_frames - j->frames : j->max_frames;
    return (uint64_t)j->slots << 32 | left;
}
static GANIM_OUT_OF_LINE ff7_stream_job *const *order_jobs(ff7_stream_job *const *jobs, size_t n, bool resume,
                                                           ff7_stream_job **ord)
{
    if (n < 3u || n > FF7_ORDER_MAX) return jobs; /* two streams: both lanes from the start */
    uint64_t key[FF7_ORDER_MAX];
    for (size_t k = 0; k < n; k++) {
        ff7_stream_job *j = jobs[k];
        uint64_t kj = order_key(j, resume);
        size_t m = k;
        for (; m > 0 && key[m - 1] < kj; m--) {
            key[m] = key[m - 1];
            ord[m] = ord[m - 1];
        }
        key[m] = kj;
        ord[m] = j;
    }
    return ord;
}

/* The streams of a list, two side by side: two lanes, each taking the list's next stream
 * (in order_jobs's order) when its own ends, so that the pair loop runs until the list's
 * last stream (one lane alone only then); path: the pair loop's form (FF7_PAIR_*, a
 * constant in each of the forms below). Each stream's frames are decoded in order, each
 * with the operations of one stream alone, so every result is ff7_decode_stream's. */
static GANIM_ALWAYS_INLINE void decode_list_body(ff7_stream_job *const *list, size_t n, int path)
{
    ff7_dec a, b;
    ff7_stream_job *ja = NULL, *jb = NULL;
    bool a_ok = false, b_ok = false;
    uint8_t tail[2][FF7_TAIL_MAX];
    size_t next = 0;
    const bool resume = path == FF7_PAIR_AVX2; /* lanes_prepass ran */
    ff7_stream_job *ord[FF7_ORDER_MAX];
    ff7_stream_job *const *jobs = order_jobs(list, n, resume, ord);
    bool ha = lane_take(&a, &ja, &a_ok, jobs, n, &next, tail[0], resume); /* lane a holds a live stream */
    bool hb = lane_take(&b, &jb, &b_ok, jobs, n, &next, tail[1], resume);
    bool ones = ha && hb && a.per == 3u && b.per == 3u; /* both lanes hold a stream of one slot */
    while (ha && hb) {
        if (FF7_RARE(ones) && slot1_inside(&a) && slot1_inside(&b)) {
            slot1_run(&a, &b, path); /* a pack's weapon entries, side by side */
#if FF7_HAVE_BMI2
        } else if (path == FF7_PAIR_AVX2 && pair_avx2(&a, &b)) {
            frames2_avx2(&a, &b); /* until a lane's stream ends */
#endif
        } else {
            /* until a lane's stream ends: no test of `ones` a frame */
            do {
                dec_frame_start(&a);
                dec_frame_start(&b);
                bool fa = true, fb = true;
                bool oka = dec_positions(&a, &fa), okb = dec_positions(&b, &fb);
                if (oka && okb && codes_inside(&a) && codes_inside(&b)) {
#if FF7_HAVE_BMI2
                    if (path == FF7_PAIR_AVX2) frame_codes_inside2_movbe(&a, &fa, &b, &fb);
                    else if (path != FF7_PAIR_PLAIN) frame_codes_inside2_bmi2(&a, &fa, &b, &fb);
                    else
#else
                    (void)path;
#endif
                        frame_codes_inside2(&a, &fa, &b, &fb);
                } else {
                    if (oka && codes_inside(&a)) frame_codes_inside(&a, &fa);
                    else if (oka) oka = dec_codes_checked(&a, 0, &fa);
                    if (okb && codes_inside(&b)) frame_codes_inside(&b, &fb);
                    else if (okb) okb = dec_codes_checked(&b, 0, &fb);
                }
                dec_commit(&a, oka, fa);
                dec_commit(&b, okb, fb);
            } while (a.live & b.live);
        }
        if (!(a.live & b.live)) {
            if (!a.live) {
                lane_done(&a, a_ok, ja);
                ha = lane_take(&a, &ja, &a_ok, jobs, n, &next, tail[0], resume);
            }
            if (!b.live) {
                lane_done(&b, b_ok, jb);
                hb = lane_take(&b, &jb, &b_ok, jobs, n, &next, tail[1], resume);
            }
            ones = ha && hb && a.per == 3u && b.per == 3u;
        }
    }
    /* the list used up: the stream left, alone */
    if (ha) {
        if (a.per == 3u) slot1_run(&a, NULL, path);
        while (a.live) dec_frame(&a, path);
        lane_done(&a, a_ok, ja);
    }
    if (hb) {
        if (b.per == 3u) slot1_run(&b, NULL, path);
        while (b.live) dec_frame(&b, path);
        lane_done(&b, b_ok, jb);
    }
}

static GANIM_OUT_OF_LINE void decode_list_plain(ff7_stream_job *const *jobs, size_t n)
{
    decode_list_body(jobs, n, FF7_PAIR_PLAIN);
}
#if FF7_HAVE_BMI2
__attribute__((target("bmi2"))) static GANIM_OUT_OF_LINE void decode_list_bmi2(ff7_stream_job *const *jobs, size_t n)
{
    decode_list_body(jobs, n, FF7_PAIR_BMI2);
}
__attribute__((target("bmi2,movbe"))) static GANIM_OUT_OF_LINE void decode_list_avx2(ff7_stream_job *const *jobs,
                                                                                     size_t n)
{
    lanes_prepass(jobs, n);
    decode_list_body(jobs, n, FF7_PAIR_AVX2);
}
#endif

/* path: only one this CPU runs */
static void decode_list(ff7_stream_job *const *jobs, size_t n, int path)
{
#if FF7_HAVE_BMI2
    if (path == FF7_PAIR_AVX2) {
        decode_list_avx2(jobs, n);
        return;
    }
    if (path == FF7_PAIR_BMI2) {
        decode_list_bmi2(jobs, n);
        return;
    }
#else
    (void)path;
#endif
    decode_list_plain(jobs, n);
}

void ff7_decode_stream_list(ff7_stream_job *const *jobs, size_t n) { decode_list(jobs, n, pair_path()); }

bool ff7_decode_stream_list_on(int path, ff7_stream_job *const *jobs, size_t n)
{
    bool runs = path == FF7_PAIR_PLAIN || (path == FF7_PAIR_BMI2 && cpu_has_bmi2()) ||
                (path == FF7_PAIR_AVX2 && cpu_has_bmi2() && cpu_has_avx2());
    if (!runs) return false;
    decode_list(jobs, n, path);
    return true;
}

/* ---- encoding ---------------------------------------------------------------------- */

/* Difference cur - prev modulo 4096 in [-2048, 2047]. */
static int32_t wrap_delta(uint16_t cur, uint16_t prev)
{
    return (int32_t)(((uint32_t)cur - (uint32_t)prev + 2048u) & 4095u) - 2048;
}

/* Exact division of a multiple of 2^bkey (no shift of negative values). */
static int32_t units(int32_t d, unsigned bkey) { return d / (int32_t)(1u << bkey); }

/* The shortest code of each rotation delta v in -64..63 (the codes that do not depend on
 * bKey), at v + 64: its length in bits 12..15, the code in bits 0..11 (first bit at the
 * top): 0 as one 0 bit; -1 as 1 000; a v of bit length n in 1..6 (v, or ~v below zero,
 * has n bits) as 1, n in 3 bits, then v - 2^(n-1), or v + 2^(n-1) in n bits below zero.
 * put_rot_delta's codes before the twenty-seventh session (ff7_write_ref.h keeps it;
 * test_ff7_write_speed compares every delta of every bKey). */
static const uint16_t short_code[128] = {
    0xA3A0, 0xA3A1, 0xA3A2, 0xA3A3, 0xA3A4, 0xA3A5, 0xA3A6, 0xA3A7, 0xA3A8, 0xA3A9, 0xA3AA, 0xA3AB, 0xA3AC,
    0xA3AD, 0xA3AE, 0xA3AF, 0xA3B0, 0xA3B1, 0xA3B2, 0xA3B3, 0xA3B4, 0xA3B5, 0xA3B6, 0xA3B7, 0xA3B8, 0xA3B9,
    0xA3BA, 0xA3BB, 0xA3BC, 0xA3BD, 0xA3BE, 0xA3BF, 0x91B0, 0x91B1, 0x91B2, 0x91B3, 0x91B4, 0x91B5, 0x91B6,
    0x91B7, 0x91B8, 0x91B9, 0x91BA, 0x91BB, 0x91BC, 0x91BD, 0x91BE, 0x91BF, 0x80C8, 0x80C9, 0x80CA, 0x80CB,
    0x80CC, 0x80CD, 0x80CE, 0x80CF, 0x705C, 0x705D, 0x705E, 0x705F, 0x602A, 0x602B, 0x5013, 0x4008, 0x1000,
    0x5012, 0x6028, 0x6029, 0x7058, 0x7059, 0x705A, 0x705B, 0x80C0, 0x80C1, 0x80C2, 0x80C3, 0x80C4, 0x80C5,
    0x80C6, 0x80C7, 0x91A0, 0x91A1, 0x91A2, 0x91A3, 0x91A4, 0x91A5, 0x91A6, 0x91A7, 0x91A8, 0x91A9, 0x91AA,
    0x91AB, 0x91AC, 0x91AD, 0x91AE, 0x91AF, 0xA380, 0xA381, 0xA382, 0xA383, 0xA384, 0xA385, 0xA386, 0xA387,
    0xA388, 0xA389, 0xA38A, 0xA38B, 0xA38C, 0xA38D, 0xA38E, 0xA38F, 0xA390, 0xA391, 0xA392, 0xA393, 0xA394,
    0xA395, 0xA396, 0xA397, 0xA398, 0xA399, 0xA39A, 0xA39B, 0xA39C, 0xA39D, 0xA39E, 0xA39F,
};

/* The shortest code of delta v (units of 2^bkey, bkey <= 11) as length << 16 | code: a
 * short one, or 1 111 and v's low 12 - bkey bits. */
static GANIM_ALWAYS_INLINE uint32_t rot_code(int32_t v, unsigned bkey)
{
    if ((uint32_t)v + 64u < 128u) {
        uint32_t e = short_code[(uint32_t)v + 64u];
        return (e >> 12) << 16 | (e & 0xFFFu);
    }
    unsigned k = 12 - bkey;
    return (4u + k) << 16 | 15u << k | ((uint32_t)v & ((1u << k) - 1u));
}

/* ff7_rot_code_bits(units(wrap_delta(c, p), bkey), bkey), bkey <= 11 */
static GANIM_ALWAYS_INLINE unsigned delta_bits(uint16_t c, uint16_t p, unsigned bkey)
{
    int32_t v = units(wrap_delta(c, p), bkey);
    return (uint32_t)v + 64u < 128u ? (unsigned)(short_code[(uint32_t)v + 64u] >> 12) : 16u - bkey;
}

/* bKey 0 to 11 only (ff7.h): the encoder's other bKeys and their bitwise coder went in
 * the twenty-eighth session, as no caller could reach them: ff7_encode_stream's and
 * ff7_stream_bits' only callers (ff7_choose_bkey, from ff7_pack_write.c and
 * ff7_resample.c) pass a candidate of 0, 2 or 4 (the ff7.bkey option's choices 0|2|4
 * doubled, or from a clip record's bKey, which ff7_clip_info_parse takes only at 0, 2 or
 * 4 for the layouts written), and neither function is in the public API. */
size_t ff7_stream_bits(unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos, const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    if (frames == 0) return 0;
    if (bkey > 11) return SIZE_MAX; /* no stream can be coded (the reader takes 0, 2 and 4) */
    for (int i = 0; i < 3; i++)
        if (pos[i] < -32768 || pos[i] > 32767) return SIZE_MAX;
    size_t bits = 48u + per * (12u - bkey);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int64_t d = (int64_t)pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) bits += 8;
            else if (d >= -32768 && d <= 32767) bits += 17;
            else return SIZE_MAX;
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        if (bkey == 0) { /* the same sum with the division by 2^0 known */
            size_t sum = 0;
            for (size_t i = 0; i < per; i++) sum += delta_bits(c[i], p[i], 0);
            bits += sum;
        } else {
            size_t sum = 0;
            for (size_t i = 0; i < per; i++) sum += delta_bits(c[i], p[i], bkey);
            bits += sum;
        }
    }
    return bits;
}

/* Codes gathered in a 64-bit word (the newest in its low bits; bits above the pending
 * ones are left over, never read) and stored 4 bytes at a time into a small block handed
 * to the writer when full: the bytes gbw_put makes one bit at a time. */
#define FF7_PUT(len, val)                            \
    do {                                             \
        acc = acc << (len) | (val);                  \
        nacc += (len);                               \
        if (nacc >= 32) {                            \
            if (nbuf > sizeof buf - 4) {             \
                gw_bytes(bw->w, buf, nbuf);          \
                nbuf = 0;                            \
            }                                        \
            nacc -= 32;                              \
            uint32_t top_ = (uint32_t)(acc >> nacc); \
            buf[nbuf] = (uint8_t)(top_ >> 24);       \
            buf[nbuf + 1] = (uint8_t)(top_ >> 16);   \
            buf[nbuf + 2] = (uint8_t)(top_ >> 8);    \
            buf[nbuf + 3] = (uint8_t)top_;           \
            nbuf += 4;                               \
            bytes += 4;                              \
        }                                            \
    } while (0)

/* ff7_encode_stream for bkey <= 11, frames >= 1 (in line twice: bkey 0 known, and any).
 * A code is at most 17 bits and fewer than 32 are pending between codes, so at most 48
 * in the word. */
static GANIM_ALWAYS_INLINE void encode_stream_sink(ganim_bitwriter *bw, unsigned bkey, uint32_t slots, uint32_t frames,
                                                   const int32_t *pos, const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    uint32_t mask = (1u << (12 - bkey)) - 1u;
    uint8_t buf[256];
    size_t nbuf = 0, bytes = 0;
    /* the bit writer's pending bits (fewer than 8) first */
    unsigned nacc0 = bw->nacc, nacc = nacc0;
    uint64_t acc = bw->acc & ((1u << nacc) - 1u);
    for (int i = 0; i < 3; i++) FF7_PUT(16u, (uint32_t)pos[i] & 0xFFFFu);
    for (size_t i = 0; i < per; i++) FF7_PUT(12u - bkey, ((uint32_t)rot[i] >> bkey) & mask);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int32_t d = (int32_t)((uint32_t)pos[f * 3 + i] - (uint32_t)pos[(f - 1) * 3 + i]);
            if (d >= -64 && d <= 63) FF7_PUT(8u, (uint32_t)d & 0x7Fu);
            else FF7_PUT(17u, 1u << 16 | ((uint32_t)d & 0xFFFFu));
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++) {
            uint32_t e = rot_code(units(wrap_delta(c[i], p[i]), bkey), bkey);
            FF7_PUT(e >> 16, e & 0xFFFFu);
        }
    }
    /* the whole bytes left, then the last one padded with zeros (gbw_flush) */
    size_t bits = bytes * 8u + nacc - nacc0;
    if (nbuf > sizeof buf - 4) { /* room for the last 4 bytes at most (nacc < 32) */
        gw_bytes(bw->w, buf, nbuf);
        nbuf = 0;
    }
    for (; nacc >= 8; nbuf++) {
        nacc -= 8;
        buf[nbuf] = (uint8_t)(acc >> nacc);
    }
    if (nacc) buf[nbuf++] = (uint8_t)(acc << (8 - nacc));
    gw_bytes(bw->w, buf, nbuf);
    bw->acc = 0;
    bw->nacc = 0;
    bw->bits += bits;
}
#undef FF7_PUT

void ff7_encode_stream(ganim_bitwriter *bw, unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos,
                       const uint16_t *rot)
{
    if (frames == 0 || bkey > 11) return; /* bKey above 11: nothing (see ff7_stream_bits) */
    if (bkey == 0) encode_stream_sink(bw, 0, slots, frames, pos, rot);
    else encode_stream_sink(bw, bkey, slots, frames, pos, rot);
}
