// ACL 2.1's own decompressor on one buffer: the reference values of a fixture of ganim's
// tests (make_multiseg.sh, next to this file). Built by that script against the headers of an
// ACL source tree (nfrechette/acl v2.1.0, rtm v2.2.0); nothing of ACL is kept in ganim.
//
//   multiseg_reference BUFFER.acl KEYS.txt TIMES.txt
//
// KEYS: every key frame f (seek(f / rate, nearest)); TIMES: the times (f + j / 4) / rate,
// j = 1..3, between every two key frames (seek(t, none): ACL's interpolation, across the
// segment boundaries too). Lines "frame-or-time track qx qy qz qw tx ty tz sx sy sz" in %.9g
// (float32 round-trips), the layout of $GANIM_TESTDATA/acl's keys.txt and times.txt, with
// debug_transform_decompression_settings as that set's (its default settings round the
// interpolation differently: a few ulps).
#include <acl/core/ansi_allocator.h>
#include <acl/core/compressed_tracks.h>
#include <acl/decompression/decompress.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct pose_writer final : public acl::track_writer {
    rtm::qvvf *out = nullptr;
    void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 q) { out[i].rotation = q; }
    void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 t) { out[i].translation = t; }
    void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 s) { out[i].scale = s; }
};

template <class S> bool pose_at(const acl::compressed_tracks &ct, float t, acl::sample_rounding_policy p, rtm::qvvf *pose)
{
    acl::decompression_context<S> ctx;
    if (!ctx.initialize(ct)) return false;
    pose_writer w;
    w.out = pose;
    ctx.seek(t, p);
    ctx.decompress_tracks(w);
    return true;
}

void values(const rtm::qvvf &x, float v[10])
{
    rtm::quat_store(x.rotation, v);
    rtm::vector_store3(x.translation, v + 4);
    rtm::vector_store3(x.scale, v + 7);
}

// Decodes at t; prints the lines; false when ACL refuses.
bool emit(std::FILE *out, const acl::compressed_tracks &ct, uint32_t nt, float t, acl::sample_rounding_policy p,
          const char *label)
{
    std::vector<rtm::qvvf> a(nt);
    if (!pose_at<acl::debug_transform_decompression_settings>(ct, t, p, a.data())) return false;
    for (uint32_t i = 0; i < nt; i++) {
        float va[10];
        values(a[i], va);
        std::fprintf(out, "%s %u", label, i);
        for (float v : va) std::fprintf(out, " %.9g", double(v));
        std::fprintf(out, "\n");
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: multiseg_reference BUFFER.acl KEYS.txt TIMES.txt\n");
        return 2;
    }
    std::FILE *f = std::fopen(argv[1], "rb");
    if (!f) return 1;
    std::vector<uint8_t> bytes;
    uint8_t chunk[65536];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
    std::fclose(f);
    acl::ansi_allocator alloc;
    void *buf = alloc.allocate(bytes.size(), 16); // ACL wants its buffers 16-byte aligned
    std::memcpy(buf, bytes.data(), bytes.size());
    acl::error_result why;
    const acl::compressed_tracks *ct = acl::make_compressed_tracks(buf, &why);
    if (!ct || !ct->is_valid(true).empty()) {
        std::fprintf(stderr, "ACL refuses %s\n", argv[1]);
        return 1;
    }
    uint32_t nt = ct->get_num_tracks(), ns = ct->get_num_samples_per_track();
    float rate = ct->get_sample_rate();
    std::FILE *keys = std::fopen(argv[2], "w"), *times = std::fopen(argv[3], "w");
    if (!keys || !times) return 1;
    bool ok = true;
    char label[64];
    for (uint32_t k = 0; k < ns && ok; k++) {
        std::snprintf(label, sizeof label, "%u", k);
        ok = emit(keys, *ct, nt, float(k) / rate, acl::sample_rounding_policy::nearest, label);
    }
    for (uint32_t k = 0; k + 1 < ns && ok; k++)
        for (int j = 1; j <= 3 && ok; j++) {
            float t = (float(k) + float(j) * 0.25F) / rate;
            std::snprintf(label, sizeof label, "%.9g", double(t));
            ok = emit(times, *ct, nt, t, acl::sample_rounding_policy::none, label);
        }
    ok = std::fclose(keys) == 0 && ok;
    ok = std::fclose(times) == 0 && ok;
    alloc.deallocate(buf, bytes.size());
    std::printf("%u tracks, %u samples at %g: %s\n", nt, ns, double(rate), ok ? "written" : "FAILED");
    return ok ? 0 : 1;
}
