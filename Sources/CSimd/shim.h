// The disk writer's transpose and the process callback's measured copy in AVX2, chosen at run
// time where the processor has it: Swift builds for the baseline x86-64 (SSE2), where its
// 4 × 4 tiles and eight-sample steps are the widest it can use.
#ifndef JCAP_CSIMD_SHIM_H
#define JCAP_CSIMD_SHIM_H

#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>

/// Whether this processor runs AVX2 (`jcap_interleave_avx2`).
static inline int jcap_has_avx2(void) { return __builtin_cpu_supports("avx2"); }

/// Folds eight samples into eight lanes of peaks (highest |sample|) and clips (samples at or
/// beyond full scale): a frame of a tile's eight channels after the transpose (lane k is channel
/// k, so a tile is measured with no shuffle), or eight samples of a mono file's run. A NaN is
/// neither: `max` returns its second operand, the peak, when the first is a NaN, and an ordered
/// compare is false.
__attribute__((target("avx2"))) static inline void
jcap_measure_frame8(__m256 samples, __m256 *peak, __m256i *clip) {
    const __m256 magnitudes = _mm256_and_ps(samples, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)));
    *peak = _mm256_max_ps(magnitudes, *peak);
    // An all-ones lane is -1: subtracting it counts one.
    *clip = _mm256_sub_epi32(*clip, _mm256_castps_si256(_mm256_cmp_ps(magnitudes, _mm256_set1_ps(1.0f), _CMP_GE_OQ)));
}

/// One sample into its channel's peak and clip count.
static inline void jcap_measure1(float sample, float *peak, int32_t *clips) {
    const float magnitude = sample < 0 ? -sample : sample;
    if (magnitude > *peak) *peak = magnitude;
    if (magnitude >= 1.0f) *clips += 1;
}

/// The tile of channels `channel` to `channel + 7`, frames `at` to `at + 7`, transposed: `frames[k]`
/// is frame `at + k`'s eight samples, a channel a lane. Each channel's next line is asked for now
/// (a prefetch never faults): without it each line was a wait on memory.
__attribute__((target("avx2"))) static inline void
jcap_transposed_tile(const float *const *sources, long channel, long at, __m256 *frames) {
    __m256 r[8];
    for (int row = 0; row < 8; row++) {
        _mm_prefetch((const char *)(sources[channel + row] + at + 16), _MM_HINT_T0);
        r[row] = _mm256_loadu_ps(sources[channel + row] + at);
    }
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    frames[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    frames[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    frames[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    frames[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    frames[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    frames[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    frames[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    frames[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/// A transposed tile's eight frames folded into its eight channels' levels, a register each:
/// measuring its rows before the transpose took two shuffles a channel to fold them, and the
/// shuffles were already what the transpose waits on (BENCHMARKS.md).
__attribute__((target("avx2"))) static inline void
jcap_measure_tile(const __m256 *frames, float *peaks, int32_t *clips) {
    __m256 peak = _mm256_loadu_ps(peaks);
    __m256i clip = _mm256_loadu_si256((const __m256i *)clips);
    for (int k = 0; k < 8; k++) jcap_measure_frame8(frames[k], &peak, &clip);
    _mm256_storeu_ps(peaks, peak);
    _mm256_storeu_si256((__m256i *)clips, clip);
}

/// Eight frames of one channel, a sample at a time: a channel left over from the tiles.
static inline void jcap_interleave_channel8(const float *source, long width, float *destination, float *peak,
                                            int32_t *clips) {
    _mm_prefetch((const char *)(source + 64), _MM_HINT_T0);
    for (int step = 0; step < 8; step++) {
        destination[step * width] = source[step];
        if (peak) jcap_measure1(source[step], peak, clips);
    }
}

/// The frames left over from the eights, a sample at a time.
static inline void jcap_interleave_rest(const float *const *sources, long width, long first, long frame,
                                        long frames, float *destination, float *peaks, int32_t *clips) {
    for (; frame < frames; frame++) {
        for (long channel = 0; channel < width; channel++) {
            const float sample = sources[channel][first + frame];
            destination[frame * width + channel] = sample;
            if (peaks) jcap_measure1(sample, peaks + channel, clips + channel);
        }
    }
}

/// Writes `frames` frames, frame `first` on, of the channels `sources[0..<width]` to
/// `destination`, interleaved; with `peaks` and `clips` (one a channel, or both NULL), measures
/// every sample too. As FrameGather's Swift loop, in 8 × 8 tiles: a group of 16 channels down
/// all the frames, then the next (sixteen streams, which the hardware prefetcher follows, with
/// each one's next line asked for: at least 40 % faster than 64 channels across, BENCHMARKS.md);
/// the channels left over from a group's tiles and the frames left over from its eights one
/// sample at a time. A tile is measured as it is stored.
__attribute__((target("avx2"))) static inline void
jcap_interleave_avx2(const float *const *sources, long width, long first, long frames, float *destination,
                     float *peaks, int32_t *clips) {
    const long eights = frames / 8 * 8;
    for (long group = 0; group < width; group += 16) {
        const long groupEnd = group + 16 < width ? group + 16 : width;
        const long tileEnd = group + (groupEnd - group) / 8 * 8;
        for (long frame = 0; frame < eights; frame += 8) {
            long channel = group;
            for (; channel < tileEnd; channel += 8) {
                __m256 o[8];
                jcap_transposed_tile(sources, channel, first + frame, o);
                float *out = destination + frame * width + channel;
                for (int k = 0; k < 8; k++) _mm256_storeu_ps(out + k * width, o[k]);
                if (peaks) jcap_measure_tile(o, peaks + channel, clips + channel);
            }
            for (; channel < groupEnd; channel++) {
                jcap_interleave_channel8(sources[channel] + first + frame, width,
                                         destination + frame * width + channel, peaks ? peaks + channel : 0,
                                         peaks ? clips + channel : 0);
            }
        }
    }
    jcap_interleave_rest(sources, width, first, eights, frames, destination, peaks, clips);
}

/// `jcap_interleave_avx2` for a destination the processor will not read again: a direct file's
/// buffer, which goes to the disk from memory. Its tiles are stored with streaming stores, which
/// skip the cache and do not read each destination line first. A line is written whole, its 64
/// bytes one store after the other (a group's two tiles side by side): a line left half written
/// while others are stored goes to memory in parts, which made an Intel processor store at
/// 0.8 GB/s, slower than through the cache (BENCHMARKS.md). So the tiles start at the
/// destination's first 64-byte boundary (every row a whole number of lines: `width` a multiple
/// of 16), and the line across two rows, the channels before that boundary and after the last
/// line, goes a sample at a time. Below 256 channels those edge samples cost more than the
/// streaming saves. Ends with a store fence, so the buffer is whole in memory before it is
/// handed to the kernel.
__attribute__((target("avx2"))) static inline void
jcap_interleave_streaming_avx2(const float *const *sources, long width, long first, long frames,
                               float *destination, float *peaks, int32_t *clips) {
    const long lead = (long)(((64 - ((uintptr_t)destination & 63)) & 63) / sizeof(float));
    const long tail = lead + (width - lead) / 16 * 16;
    const long eights = frames / 8 * 8;
    for (long channel = lead; channel < tail; channel += 16) {
        for (long frame = 0; frame < eights; frame += 8) {
            __m256 left[8], right[8];
            jcap_transposed_tile(sources, channel, first + frame, left);
            jcap_transposed_tile(sources, channel + 8, first + frame, right);
            float *out = destination + frame * width + channel;
            for (int k = 0; k < 8; k++) {
                _mm256_stream_ps(out + k * width, left[k]);
                _mm256_stream_ps(out + k * width + 8, right[k]);
            }
            if (peaks) {
                jcap_measure_tile(left, peaks + channel, clips + channel);
                jcap_measure_tile(right, peaks + channel + 8, clips + channel + 8);
            }
        }
    }
    for (long frame = 0; frame < eights; frame += 8) {
        for (long edge = 0; edge < width - (tail - lead); edge++) {
            const long channel = edge < lead ? edge : tail + edge - lead;
            jcap_interleave_channel8(sources[channel] + first + frame, width, destination + frame * width + channel,
                                     peaks ? peaks + channel : 0, peaks ? clips + channel : 0);
        }
    }
    jcap_interleave_rest(sources, width, first, eights, frames, destination, peaks, clips);
    _mm_sfence();
}

/// One channel's `frames` samples copied to `destination` and measured into its `peak` and
/// `clips`: a session's mono file, gathered. Sixteen samples a step, the levels in registers
/// until the end (`max` and an ordered compare, as `jcap_measure_frame8`; a lane is never a NaN,
/// so folding the lanes with `max` is exact).
__attribute__((target("avx2"))) static inline void
jcap_copy_measure_avx2(const float *source, long frames, float *destination, float *peak, int32_t *clips) {
    __m256 peakA = _mm256_setzero_ps(), peakB = _mm256_setzero_ps();
    __m256i clipA = _mm256_setzero_si256(), clipB = _mm256_setzero_si256();
    long index = 0;
    for (; index + 16 <= frames; index += 16) {
        const __m256 a = _mm256_loadu_ps(source + index), b = _mm256_loadu_ps(source + index + 8);
        _mm256_storeu_ps(destination + index, a);
        _mm256_storeu_ps(destination + index + 8, b);
        jcap_measure_frame8(a, &peakA, &clipA);
        jcap_measure_frame8(b, &peakB, &clipB);
    }
    const __m256 lanes8 = _mm256_max_ps(peakA, peakB);
    __m128 lanes = _mm_max_ps(_mm256_castps256_ps128(lanes8), _mm256_extractf128_ps(lanes8, 1));
    lanes = _mm_max_ps(lanes, _mm_movehl_ps(lanes, lanes));
    lanes = _mm_max_ss(lanes, _mm_shuffle_ps(lanes, lanes, 1));
    const float highest = _mm_cvtss_f32(lanes);
    if (highest > *peak) *peak = highest;
    const __m256i counts8 = _mm256_add_epi32(clipA, clipB);
    __m128i counts = _mm_add_epi32(_mm256_castsi256_si128(counts8), _mm256_extracti128_si256(counts8, 1));
    counts = _mm_add_epi32(counts, _mm_shuffle_epi32(counts, 0x4E));
    counts = _mm_add_epi32(counts, _mm_shuffle_epi32(counts, 0xB1));
    *clips += _mm_cvtsi128_si32(counts);
    for (; index < frames; index++) {
        destination[index] = source[index];
        jcap_measure1(source[index], peak, clips);
    }
}

/// The process callback's copy of one port's cycle to the ring, measured on the way for the live
/// meters: `count` samples to `destination`, their highest |sample| into `peak` and the sum of
/// their squares into `sumOfSquares` (both start at zero). MeterAccumulators.copyMeasuring's loop
/// in registers twice as wide; arithmetic only, so the real-time thread may call it.
static inline void jcap_copy_levels_avx2(const float *source, long count, void *destination, float *peak,
                                         float *sumOfSquares) __attribute__((swift_attr("@_noLocks")));
__attribute__((target("avx2"))) static inline void
jcap_copy_levels_avx2(const float *source, long count, void *destination, float *peak, float *sumOfSquares) {
    const __m256 signless = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 peakA = _mm256_setzero_ps(), peakB = _mm256_setzero_ps();
    __m256 sumA = _mm256_setzero_ps(), sumB = _mm256_setzero_ps();
    float *out = (float *)destination;
    long index = 0;
    for (; index + 16 <= count; index += 16) {
        const __m256 a = _mm256_loadu_ps(source + index), b = _mm256_loadu_ps(source + index + 8);
        _mm256_storeu_ps(out + index, a);
        _mm256_storeu_ps(out + index + 8, b);
        // `max` keeps its second operand, the peak, when the first is a NaN.
        peakA = _mm256_max_ps(_mm256_and_ps(a, signless), peakA);
        peakB = _mm256_max_ps(_mm256_and_ps(b, signless), peakB);
        sumA = _mm256_add_ps(sumA, _mm256_mul_ps(a, a));
        sumB = _mm256_add_ps(sumB, _mm256_mul_ps(b, b));
    }
    const __m256 peaks8 = _mm256_max_ps(peakA, peakB), sums8 = _mm256_add_ps(sumA, sumB);
    __m128 peaks = _mm_max_ps(_mm256_castps256_ps128(peaks8), _mm256_extractf128_ps(peaks8, 1));
    peaks = _mm_max_ps(peaks, _mm_movehl_ps(peaks, peaks));
    peaks = _mm_max_ss(peaks, _mm_shuffle_ps(peaks, peaks, 1));
    __m128 sums = _mm_add_ps(_mm256_castps256_ps128(sums8), _mm256_extractf128_ps(sums8, 1));
    sums = _mm_add_ps(sums, _mm_movehl_ps(sums, sums));
    sums = _mm_add_ss(sums, _mm_shuffle_ps(sums, sums, 1));
    float highest = _mm_cvtss_f32(peaks), sum = _mm_cvtss_f32(sums);
    for (; index < count; index++) {
        const float sample = source[index];
        out[index] = sample;
        const float magnitude = sample < 0 ? -sample : sample;
        if (magnitude > highest) highest = magnitude;
        sum += sample * sample;
    }
    *peak = highest;
    *sumOfSquares = sum;
}

#else
static inline int jcap_has_avx2(void) { return 0; }
static inline void jcap_copy_measure_avx2(const float *source, long frames, float *destination, float *peak,
                                          int32_t *clips) {}
static inline void jcap_interleave_avx2(const float *const *sources, long width, long first, long frames,
                                        float *destination, float *peaks, int32_t *clips) {}
static inline void jcap_interleave_streaming_avx2(const float *const *sources, long width, long first, long frames,
                                                  float *destination, float *peaks, int32_t *clips) {}
static inline void jcap_copy_levels_avx2(const float *source, long count, void *destination, float *peak,
                                         float *sumOfSquares) __attribute__((swift_attr("@_noLocks")));
static inline void jcap_copy_levels_avx2(const float *source, long count, void *destination, float *peak,
                                         float *sumOfSquares) {}
#endif

/// Asks for the `bytes` at `start` to be brought into the cache, a line at a time: prefetch
/// instructions alone, neither a lock nor an allocation, so the process callback may call it.
static inline void jcap_prefetch(const void *start, long bytes) __attribute__((swift_attr("@_noLocks")));
static inline void jcap_prefetch(const void *start, long bytes) {
    for (long offset = 0; offset < bytes; offset += 64) __builtin_prefetch((const char *)start + offset, 0, 3);
}

#endif
