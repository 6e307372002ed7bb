// ACL 2.1's own decompressor on the same buffers and the same work as bench_acl, the
// anchor of docs/benchmarks.md ("ACL decoding, side by side with ACL 2.1"). Built only by
// bench/acl_anchor.sh, against the headers of an ACL source tree (nfrechette/acl v2.1.0
// with rtm v2.2.0) in a temporary folder; nothing of ACL is kept in ganim.
//
//   acl_anchor [--whole|--random] [--iters N] FILE.acl ...
//
// - whole clip (acl_whole_once): initialize a decompression context on the buffer, then at
//   every frame f seek(f / rate, none) and decompress_tracks into frame f of a clip-sized
//   array of qvvf transforms (kept across runs, as a game keeps its buffers);
// - random access (acl_random_once): seek(t, none) + decompress_tracks at the 1000
//   pseudo-random times bench_acl uses (same generator, same seeds).
// With default_transform_decompression_settings (variable rotation, translation and scale
// formats: ACL's recommended runtime settings), or debug_transform_decompression_settings
// for buffers the defaults cannot decode (other formats); the column "settings" says which.
// Prints ns per (track x frame) like bench_acl. For instruction counts run it under
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=acl_whole_once ...
// (or acl_random_once) with --iters 1.
#include <acl/core/ansi_allocator.h>
#include <acl/core/compressed_tracks.h>
#include <acl/decompression/decompress.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int k_random_poses = 1000;
volatile float sink;

struct pose_writer final : public acl::track_writer {
    rtm::qvvf *out = nullptr;
    void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 q) { out[i].rotation = q; }
    void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 t) { out[i].translation = t; }
    void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 s) { out[i].scale = s; }
};

template <class S> struct runner {
    acl::decompression_context<S> ctx;

    __attribute__((noinline)) int whole(const acl::compressed_tracks &ct, rtm::qvvf *clip, uint32_t nt,
                                        uint32_t frames, float rate)
    {
        if (!ctx.initialize(ct)) return -1;
        pose_writer w;
        for (uint32_t f = 0; f < frames; f++) {
            w.out = clip + size_t(f) * nt;
            ctx.seek(float(f) / rate, acl::sample_rounding_policy::none);
            ctx.decompress_tracks(w);
        }
        return int(frames);
    }

    __attribute__((noinline)) float random(rtm::qvvf *pose, uint32_t frames, float rate, uint32_t seed)
    {
        float dur = float(frames - 1u) / rate, sum = 0;
        pose_writer w;
        w.out = pose;
        for (int i = 0; i < k_random_poses; i++) {
            seed = seed * 1664525u + 1013904223u;
            ctx.seek(dur * float(seed >> 8) * (1.0F / 16777216.0F), acl::sample_rounding_policy::none);
            ctx.decompress_tracks(w);
            sum += rtm::quat_get_w(pose[0].rotation);
        }
        return sum;
    }
};

runner<acl::default_transform_decompression_settings> plain;
runner<acl::debug_transform_decompression_settings> debug;
bool use_default = true;

double now_ns()
{
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

} // namespace

// The measured functions, under names callgrind can toggle on.
extern "C" __attribute__((noinline)) int acl_whole_once(const acl::compressed_tracks *ct, rtm::qvvf *clip,
                                                        uint32_t nt, uint32_t frames, float rate)
{
    return use_default ? plain.whole(*ct, clip, nt, frames, rate) : debug.whole(*ct, clip, nt, frames, rate);
}

extern "C" __attribute__((noinline)) float acl_random_once(rtm::qvvf *pose, uint32_t frames, float rate,
                                                           uint32_t seed)
{
    return use_default ? plain.random(pose, frames, rate, seed) : debug.random(pose, frames, rate, seed);
}

int main(int argc, char **argv)
{
    bool whole = true, rnd = true;
    int iters = 0;
    std::vector<const char *> files;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--whole")) rnd = false;
        else if (!std::strcmp(argv[i], "--random")) whole = false;
        else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
        else files.push_back(argv[i]);
    }
    acl::ansi_allocator alloc;
    std::printf("%-42s %7s %6s %12s %12s %s\n", "clip", "tracks", "frames", "whole ns/tf", "random ns/t", "settings");
    for (const char *path : files) {
        std::FILE *f = std::fopen(path, "rb");
        if (!f) continue;
        std::vector<uint8_t> bytes;
        uint8_t chunk[65536];
        for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
        std::fclose(f);
        if (bytes.size() < 0x40) continue;
        void *buf = alloc.allocate(bytes.size(), 16); // ACL wants its buffers 16-byte aligned
        std::memcpy(buf, bytes.data(), bytes.size());
        acl::error_result why;
        const acl::compressed_tracks *ct = acl::make_compressed_tracks(buf, &why);
        if (!ct || !ct->is_valid(true).empty()) {
            std::fprintf(stderr, "acl_anchor: ACL refuses %s\n", path);
            alloc.deallocate(buf, bytes.size());
            continue;
        }
        // misc at 0x1C: bit 0 has scale, bit 2 scale format, bit 3 translation format,
        // bits 4-7 rotation format (docs/formats/acl.md); defaults want 1, 1, 3
        uint32_t misc;
        std::memcpy(&misc, bytes.data() + 28, 4);
        use_default = ((misc >> 4) & 15u) == 3u && ((misc >> 3) & 1u) == 1u && (!(misc & 1u) || ((misc >> 2) & 1u));
        uint32_t nt = ct->get_num_tracks(), ns = ct->get_num_samples_per_track();
        uint32_t frames = ns + (ct->get_looping_policy() == acl::sample_looping_policy::wrap ? 1u : 0u);
        float rate = ct->get_sample_rate();
        std::vector<rtm::qvvf> clip(size_t(frames) * nt), pose(nt);
        double tf = double(nt) * frames, w = 0, r = 0;
        if (whole) {
            int n = iters ? iters : int(2e7 / tf) + 1;
            if (use_default) plain.whole(*ct, clip.data(), nt, frames, rate); // warm-up, not counted
            else debug.whole(*ct, clip.data(), nt, frames, rate);
            double t0 = now_ns();
            for (int k = 0; k < n; k++) acl_whole_once(ct, clip.data(), nt, frames, rate);
            w = (now_ns() - t0) / (n * tf);
        }
        if (rnd) {
            bool ok = use_default ? plain.ctx.initialize(*ct) : debug.ctx.initialize(*ct);
            int n = iters ? iters : int(2e5 / nt) + 1;
            double t0 = now_ns();
            for (int k = 0; ok && k < n; k++) sink += acl_random_once(pose.data(), frames, rate, uint32_t(k) * 7919u + 1u);
            r = (now_ns() - t0) / (double(n) * k_random_poses * nt);
        }
        const char *b = std::strrchr(path, '/');
        std::printf("%-42s %7u %6u %12.2f %12.2f %s\n", b ? b + 1 : path, nt, frames, w, r,
                    use_default ? "default" : "debug");
        alloc.deallocate(buf, bytes.size());
    }
    return 0;
}
