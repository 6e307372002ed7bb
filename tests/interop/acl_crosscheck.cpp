// Cross-check of ganim's ACL writer against ACL 2.1 itself. Built only by
// tests/interop/acl_crosscheck.sh, against the headers of an ACL source tree named by
// GANIM_ACL_SRC (nfrechette/acl v2.1.0 with its rtm); nothing of ACL is kept in ganim.
//
//   acl_crosscheck INPUT.txt RATE BUFFER.acl [RUNS [LEVEL]]
//
// INPUT.txt is a clip in the shared samples' input format ("parents ..." then
// "frame track qx qy qz qw tx ty tz sx sy sz" lines). The program prints, one per line:
//   valid <0|1> <ACL's message>        initialize() and is_valid(true) on BUFFER
//   error <float>                      ACL's calculate_compression_error, qvvf metric
//   key <frame> <track> <10 values>    ACL's decode at every frame (rounding none)
// and with RUNS > 0 also compresses INPUT with ACL's default settings RUNS times (LEVEL:
// medium, high or highest instead of ACL's automatic choice):
//   acl_size <bytes>  acl_error <float>  acl_seconds <best of RUNS>
#include <acl/compression/compress.h>
#include <acl/compression/track_array.h>
#include <acl/compression/track_error.h>
#include <acl/compression/transform_error_metrics.h>
#include <acl/core/ansi_allocator.h>
#include <acl/decompression/decompress.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct clip {
    std::vector<int> parents;
    std::vector<float> v; // frame-major, 10 floats a track
    unsigned frames = 0;
};

bool load(const char *path, clip &c)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::istringstream s(line);
        if (line.compare(0, 7, "parents") == 0) {
            std::string w;
            s >> w;
            int p;
            while (s >> p) c.parents.push_back(p);
            continue;
        }
        unsigned f, t;
        s >> f >> t;
        for (int i = 0; i < 10; i++) {
            float x;
            s >> x;
            c.v.push_back(x);
        }
        if (f + 1 > c.frames) c.frames = f + 1;
    }
    return !c.parents.empty() && c.v.size() == size_t(c.frames) * c.parents.size() * 10;
}

struct pose_writer final : public acl::track_writer {
    std::vector<float> *out;
    void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 q)
    {
        float *p = out->data() + size_t(i) * 10;
        p[0] = rtm::quat_get_x(q);
        p[1] = rtm::quat_get_y(q);
        p[2] = rtm::quat_get_z(q);
        p[3] = rtm::quat_get_w(q);
    }
    void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 t)
    {
        float *p = out->data() + size_t(i) * 10 + 4;
        p[0] = rtm::vector_get_x(t);
        p[1] = rtm::vector_get_y(t);
        p[2] = rtm::vector_get_z(t);
    }
    void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 s)
    {
        float *p = out->data() + size_t(i) * 10 + 7;
        p[0] = rtm::vector_get_x(s);
        p[1] = rtm::vector_get_y(s);
        p[2] = rtm::vector_get_z(s);
    }
};

} // namespace

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: acl_crosscheck INPUT.txt RATE BUFFER.acl [RUNS [LEVEL]]\n");
        return 2;
    }
    clip c;
    if (!load(argv[1], c)) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    float rate = float(std::atof(argv[2]));
    int runs = argc > 4 ? std::atoi(argv[4]) : 0;
    unsigned nt = unsigned(c.parents.size());
    acl::ansi_allocator alloc;
    acl::track_array_qvvf raw(alloc, nt);
    for (unsigned t = 0; t < nt; t++) {
        acl::track_desc_transformf desc;
        desc.output_index = t;
        desc.parent_index = c.parents[t] < 0 ? acl::k_invalid_track_index : uint32_t(c.parents[t]);
        desc.precision = 0.01F;
        desc.shell_distance = 3.0F;
        acl::track_qvvf track = acl::track_qvvf::make_reserve(desc, alloc, c.frames, rate);
        for (unsigned f = 0; f < c.frames; f++) {
            const float *x = c.v.data() + (size_t(f) * nt + t) * 10;
            track[f] = rtm::qvv_set(rtm::quat_set(x[0], x[1], x[2], x[3]), rtm::vector_set(x[4], x[5], x[6]),
                                    rtm::vector_set(x[7], x[8], x[9]));
        }
        raw[t] = std::move(track);
    }
    acl::qvvf_transform_error_metric metric;

    std::ifstream bf(argv[3], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(bf)), std::istreambuf_iterator<char>());
    void *buf = alloc.allocate(bytes.size() + 16, 16);
    std::memcpy(buf, bytes.data(), bytes.size());
    acl::error_result why;
    const acl::compressed_tracks *ct = acl::make_compressed_tracks(buf, &why);
    int ok = ct != nullptr;
    if (ok) {
        why = ct->is_valid(true);
        ok = why.empty();
    }
    // The pose buffer holds the input's tracks: a buffer with another count would be
    // written past it, so it is refused here, before any decode.
    const char *count_why = nullptr;
    if (ok && ct->get_num_tracks() != nt) {
        ok = 0;
        count_why = "track count differs from the input";
    }
    acl::decompression_context<acl::default_transform_decompression_settings> plain;
    acl::decompression_context<acl::debug_transform_decompression_settings> debug;
    if (ok) ok = plain.initialize(*ct) && debug.initialize(*ct);
    std::printf("valid %d %s\n", ok, count_why ? count_why : why.empty() ? "ok" : why.c_str());
    if (ok) {
        acl::track_error err = acl::calculate_compression_error(alloc, raw, debug, metric);
        std::printf("error %.9g\n", double(err.error));
        std::vector<float> pose(size_t(nt) * 10);
        pose_writer w;
        w.out = &pose;
        for (unsigned f = 0; f < c.frames; f++) {
            plain.seek(float(f) / rate, acl::sample_rounding_policy::none);
            plain.decompress_tracks(w);
            for (unsigned t = 0; t < nt; t++) {
                std::printf("key %u %u", f, t);
                for (int i = 0; i < 10; i++) std::printf(" %.9g", double(pose[size_t(t) * 10 + i]));
                std::printf("\n");
            }
        }
    }
    alloc.deallocate(buf, bytes.size() + 16);

    if (runs > 0) {
        acl::compression_settings settings = acl::get_default_compression_settings();
        settings.error_metric = &metric;
        if (argc > 5) {
            std::string level = argv[5];
            settings.level = level == "medium" ? acl::compression_level8::medium
                             : level == "high" ? acl::compression_level8::high
                                               : acl::compression_level8::highest;
        }
        double best = 1e30;
        uint32_t size = 0;
        float aerr = 0;
        for (int r = 0; r < runs; r++) {
            acl::output_stats stats;
            acl::compressed_tracks *out = nullptr;
            auto t0 = std::chrono::steady_clock::now();
            acl::error_result res = acl::compress_track_list(alloc, raw, settings, out, stats);
            auto t1 = std::chrono::steady_clock::now();
            if (!res.empty()) {
                std::fprintf(stderr, "compress_track_list: %s\n", res.c_str());
                return 1;
            }
            double s = std::chrono::duration<double>(t1 - t0).count();
            if (s < best) best = s;
            size = out->get_size();
            if (r == 0) {
                acl::decompression_context<acl::debug_transform_decompression_settings> ctx;
                ctx.initialize(*out);
                aerr = acl::calculate_compression_error(alloc, raw, ctx, metric).error;
            }
            alloc.deallocate(out, out->get_size());
        }
        std::printf("acl_size %u\nacl_error %.9g\nacl_seconds %.6f\n", size, double(aerr), best);
    }
    return ok ? 0 : 1;
}
