// The disk writer's transpose in AVX2, chosen at run time where the processor has it: Swift
// builds for the baseline x86-64 (SSE2), where its 4 × 4 tiles are the widest it can use.
#ifndef JCAP_CSIMD_SHIM_H
#define JCAP_CSIMD_SHIM_H

#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>

/// Whether this processor runs AVX2 (`jcap_interleave_avx2`).
static inline int jcap_has_avx2(void) { return __builtin_cpu_supports("avx2"); }

/// Folds eight samples of one channel into its four lanes of peaks (highest |sample|) and of
/// clips (samples at or beyond full scale). A NaN is neither: `max` returns its second operand,
/// the peak, when the first is a NaN, and an ordered compare is false.
__attribute__((target("avx2"))) static inline void
jcap_measure8(__m256 samples, float *peaks, int32_t *clips) {
    const __m256 magnitudes = _mm256_and_ps(samples, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)));
    const __m256 atFullScale = _mm256_cmp_ps(magnitudes, _mm256_set1_ps(1.0f), _CMP_GE_OQ);
    __m128 peak = _mm_loadu_ps(peaks);
    peak = _mm_max_ps(_mm256_castps256_ps128(magnitudes), peak);
    peak = _mm_max_ps(_mm256_extractf128_ps(magnitudes, 1), peak);
    _mm_storeu_ps(peaks, peak);
    // An all-ones lane is -1: subtracting it counts one.
    const __m128i count = _mm_add_epi32(_mm_castps_si128(_mm256_castps256_ps128(atFullScale)),
                                        _mm_castps_si128(_mm256_extractf128_ps(atFullScale, 1)));
    _mm_storeu_si128((__m128i *)clips, _mm_sub_epi32(_mm_loadu_si128((const __m128i *)clips), count));
}

/// One sample into lane 0 of its channel's levels.
static inline void jcap_measure1(float sample, float *peaks, int32_t *clips) {
    const float magnitude = sample < 0 ? -sample : sample;
    if (magnitude > peaks[0]) peaks[0] = magnitude;
    if (magnitude >= 1.0f) clips[0] += 1;
}

/// Writes `frames` frames, frame `first` on, of the channels `sources[0..<width]` to
/// `destination`, interleaved; with `peaks` and `clips` (four lanes a channel, or both NULL),
/// measures every sample too. As FrameGather's Swift loop, in 8 × 8 tiles: across a group of at
/// most 64 channels at a time (their source lines stay in the first-level cache), destination
/// rows written front to back; the channels left over from a group's tiles and the frames left
/// over from its eights one sample at a time.
__attribute__((target("avx2"))) static inline void
jcap_interleave_avx2(const float *const *sources, long width, long first, long frames, float *destination,
                     float *peaks, int32_t *clips) {
    for (long group = 0; group < width; group += 64) {
        const long groupEnd = group + 64 < width ? group + 64 : width;
        const long tileEnd = group + (groupEnd - group) / 8 * 8;
        long frame = 0;
        for (; frame + 8 <= frames; frame += 8) {
            long channel = group;
            for (; channel < tileEnd; channel += 8) {
                __m256 r[8];
                for (int row = 0; row < 8; row++) {
                    // 64 streams at once are more than the hardware prefetcher follows: each
                    // channel's line 256 bytes on is asked for now (a prefetch never faults).
                    _mm_prefetch((const char *)(sources[channel + row] + first + frame + 64), _MM_HINT_T0);
                    r[row] = _mm256_loadu_ps(sources[channel + row] + first + frame);
                    if (peaks) jcap_measure8(r[row], peaks + 4 * (channel + row), clips + 4 * (channel + row));
                }
                const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
                const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
                const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
                const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
                const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
                const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
                const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
                const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
                float *out = destination + frame * width + channel;
                _mm256_storeu_ps(out, _mm256_permute2f128_ps(s0, s4, 0x20));
                _mm256_storeu_ps(out + width, _mm256_permute2f128_ps(s1, s5, 0x20));
                _mm256_storeu_ps(out + 2 * width, _mm256_permute2f128_ps(s2, s6, 0x20));
                _mm256_storeu_ps(out + 3 * width, _mm256_permute2f128_ps(s3, s7, 0x20));
                _mm256_storeu_ps(out + 4 * width, _mm256_permute2f128_ps(s0, s4, 0x31));
                _mm256_storeu_ps(out + 5 * width, _mm256_permute2f128_ps(s1, s5, 0x31));
                _mm256_storeu_ps(out + 6 * width, _mm256_permute2f128_ps(s2, s6, 0x31));
                _mm256_storeu_ps(out + 7 * width, _mm256_permute2f128_ps(s3, s7, 0x31));
            }
            for (; channel < groupEnd; channel++) {
                const float *source = sources[channel] + first + frame;
                _mm_prefetch((const char *)(source + 64), _MM_HINT_T0);
                for (int step = 0; step < 8; step++) destination[(frame + step) * width + channel] = source[step];
                if (peaks) jcap_measure8(_mm256_loadu_ps(source), peaks + 4 * channel, clips + 4 * channel);
            }
        }
        for (; frame < frames; frame++) {
            for (long channel = group; channel < groupEnd; channel++) {
                const float sample = sources[channel][first + frame];
                destination[frame * width + channel] = sample;
                if (peaks) jcap_measure1(sample, peaks + 4 * channel, clips + 4 * channel);
            }
        }
    }
}

/// One channel's `frames` samples copied to `destination` and measured into its four lanes of
/// `peaks` and `clips`: a session's mono file, gathered. Sixteen samples a step, the levels in
/// registers until the end (`max` and an ordered compare, as `jcap_measure8`).
__attribute__((target("avx2"))) static inline void
jcap_copy_measure_avx2(const float *source, long frames, float *destination, float *peaks, int32_t *clips) {
    const __m256 signless = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)), one = _mm256_set1_ps(1.0f);
    __m256 peakA = _mm256_setzero_ps(), peakB = _mm256_setzero_ps();
    __m256i clipA = _mm256_setzero_si256(), clipB = _mm256_setzero_si256();
    long index = 0;
    for (; index + 16 <= frames; index += 16) {
        const __m256 a = _mm256_loadu_ps(source + index), b = _mm256_loadu_ps(source + index + 8);
        _mm256_storeu_ps(destination + index, a);
        _mm256_storeu_ps(destination + index + 8, b);
        const __m256 magnitudeA = _mm256_and_ps(a, signless), magnitudeB = _mm256_and_ps(b, signless);
        peakA = _mm256_max_ps(magnitudeA, peakA);
        peakB = _mm256_max_ps(magnitudeB, peakB);
        // An all-ones lane is -1: subtracting it counts one.
        clipA = _mm256_sub_epi32(clipA, _mm256_castps_si256(_mm256_cmp_ps(magnitudeA, one, _CMP_GE_OQ)));
        clipB = _mm256_sub_epi32(clipB, _mm256_castps_si256(_mm256_cmp_ps(magnitudeB, one, _CMP_GE_OQ)));
    }
    const __m256 peak = _mm256_max_ps(peakA, peakB);
    const __m256i clip = _mm256_add_epi32(clipA, clipB);
    __m128 lanes = _mm_max_ps(_mm256_castps256_ps128(peak), _mm256_extractf128_ps(peak, 1));
    _mm_storeu_ps(peaks, _mm_max_ps(lanes, _mm_loadu_ps(peaks)));
    const __m128i counts = _mm_add_epi32(_mm256_castsi256_si128(clip), _mm256_extracti128_si256(clip, 1));
    _mm_storeu_si128((__m128i *)clips, _mm_add_epi32(counts, _mm_loadu_si128((const __m128i *)clips)));
    for (; index < frames; index++) {
        destination[index] = source[index];
        jcap_measure1(source[index], peaks, clips);
    }
}

#else
static inline int jcap_has_avx2(void) { return 0; }
static inline void jcap_copy_measure_avx2(const float *source, long frames, float *destination, float *peaks,
                                          int32_t *clips) {}
static inline void jcap_interleave_avx2(const float *const *sources, long width, long first, long frames,
                                        float *destination, float *peaks, int32_t *clips) {}
#endif

/// Asks for the `bytes` at `start` to be brought into the cache, a line at a time: prefetch
/// instructions alone, neither a lock nor an allocation, so the process callback may call it.
static inline void jcap_prefetch(const void *start, long bytes) __attribute__((swift_attr("@_noLocks")));
static inline void jcap_prefetch(const void *start, long bytes) {
    for (long offset = 0; offset < bytes; offset += 64) __builtin_prefetch((const char *)start + offset, 0, 3);
}

#endif
