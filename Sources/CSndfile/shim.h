// libsndfile as jcap's Swift code sees it.
#ifndef JCAP_CSNDFILE_SHIM_H
#define JCAP_CSNDFILE_SHIM_H

#include <sndfile.h>
#include <stdint.h>
#include <string.h>

/// sf_command takes `void *data` whose meaning depends on the command; these fixed-type wrappers
/// keep the casts for the boolean commands jcap uses in C, where they are checked.
static inline int jcap_sf_command_bool(SNDFILE *file, int command, int value) {
    return sf_command(file, command, NULL, value ? SF_TRUE : SF_FALSE);
}

/// SFC_SET_VBR_ENCODING_QUALITY with its double: 0 (smallest file) to 1 (best quality). libsndfile
/// 1.2.0 passes it on as SFC_SET_COMPRESSION_LEVEL 1 - quality. Returns SF_TRUE when the encoder
/// took it; call before the first write.
static inline int jcap_sf_set_vbr_encoding_quality(SNDFILE *file, double quality) {
    return sf_command(file, SFC_SET_VBR_ENCODING_QUALITY, &quality, sizeof quality);
}

/// SFC_SET_COMPRESSION_LEVEL with its double: 0 (least compressed) to 1 (most). For FLAC
/// libsndfile takes level * 8 as the encoder's compression level 0 to 8. Returns SF_TRUE when the
/// encoder took it; call before the first write.
static inline int jcap_sf_set_compression_level(SNDFILE *file, double level) {
    return sf_command(file, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level);
}

/// SFC_SET_BITRATE_MODE with its int: SF_BITRATE_MODE_CONSTANT, _AVERAGE or _VARIABLE (MPEG
/// only in libsndfile 1.2.0). Returns SF_TRUE when the encoder took it; call before the first write.
static inline int jcap_sf_set_bitrate_mode(SNDFILE *file, int mode) {
    return sf_command(file, SFC_SET_BITRATE_MODE, &mode, sizeof mode);
}

// Metadata. SF_BROADCAST_INFO and SF_CHUNK_INFO hold fixed-size char arrays, which Swift sees as
// tuples; these helpers fill and read them in C, so the Swift side passes strings and buffers.

/// SFC_SET_BROADCAST_INFO with an SF_BROADCAST_INFO made from C strings, each copied into its
/// fixed-size field as EBU Tech 3285 lays them out (strncpy: NUL-padded, and unterminated when it
/// fills the field; longer text is cut, so the caller cuts it first where it wants). The time
/// reference is split into its low and high 32 bits. The coding history is left empty: libsndfile
/// then writes its own line describing the format. Returns SF_TRUE when libsndfile took it: for
/// WAV and RF64 files opened for writing, before the first write.
static inline int jcap_sf_set_broadcast_info(SNDFILE *file, const char *description, const char *originator,
                                             const char *originator_reference, const char *origination_date,
                                             const char *origination_time, uint64_t time_reference,
                                             int version) {
    SF_BROADCAST_INFO info;
    memset(&info, 0, sizeof info);
    strncpy(info.description, description, sizeof info.description);
    strncpy(info.originator, originator, sizeof info.originator);
    strncpy(info.originator_reference, originator_reference, sizeof info.originator_reference);
    strncpy(info.origination_date, origination_date, sizeof info.origination_date);
    strncpy(info.origination_time, origination_time, sizeof info.origination_time);
    info.time_reference_low = (uint32_t)(time_reference & 0xFFFFFFFFu);
    info.time_reference_high = (uint32_t)(time_reference >> 32);
    info.version = (short)version;
    return sf_command(file, SFC_SET_BROADCAST_INFO, &info, sizeof info);
}

/// SFC_GET_BROADCAST_INFO into `info` (zeroed first). Returns SF_TRUE when the file has a bext chunk.
static inline int jcap_sf_get_broadcast_info(SNDFILE *file, SF_BROADCAST_INFO *info) {
    memset(info, 0, sizeof *info);
    return sf_command(file, SFC_GET_BROADCAST_INFO, info, sizeof *info);
}

/// The SF_CHUNK_INFO that names a chunk: `id` (at most 63 bytes; RIFF ids are 4) and its length.
static inline SF_CHUNK_INFO jcap_sf_chunk_info(const char *id) {
    SF_CHUNK_INFO chunk;
    memset(&chunk, 0, sizeof chunk);
    strncpy(chunk.id, id, sizeof chunk.id - 1);
    chunk.id_size = (unsigned)strlen(chunk.id);
    return chunk;
}

/// sf_set_chunk: adds a chunk `id` holding `length` bytes of `data` (copied) to a file opened for
/// writing, before the first write. Returns libsndfile's error number, 0 when it took it.
static inline int jcap_sf_set_chunk(SNDFILE *file, const char *id, const void *data, unsigned length) {
    SF_CHUNK_INFO chunk = jcap_sf_chunk_info(id);
    chunk.datalen = length;
    chunk.data = (void *)data;
    return sf_set_chunk(file, &chunk);
}

/// sf_get_chunk_iterator: the first chunk named `id` in a file opened for reading, or NULL when
/// there is none (or the container has no chunks libsndfile can list). libsndfile owns it.
static inline SF_CHUNK_ITERATOR *jcap_sf_get_chunk_iterator(SNDFILE *file, const char *id) {
    SF_CHUNK_INFO chunk = jcap_sf_chunk_info(id);
    return sf_get_chunk_iterator(file, &chunk);
}

/// sf_get_chunk_size: the chunk's length in bytes into `length`. Returns libsndfile's error number.
static inline int jcap_sf_get_chunk_size(const SF_CHUNK_ITERATOR *iterator, unsigned *length) {
    SF_CHUNK_INFO chunk;
    memset(&chunk, 0, sizeof chunk);
    int result = sf_get_chunk_size(iterator, &chunk);
    *length = chunk.datalen;
    return result;
}

/// sf_get_chunk_data: up to `length` bytes of the chunk into `data`. Returns libsndfile's error number.
static inline int jcap_sf_get_chunk_data(const SF_CHUNK_ITERATOR *iterator, void *data, unsigned length) {
    SF_CHUNK_INFO chunk;
    memset(&chunk, 0, sizeof chunk);
    chunk.datalen = length;
    chunk.data = data;
    return sf_get_chunk_data(iterator, &chunk);
}

/// The sample offsets of the file's cue points (SFC_GET_CUE), at most `capacity` of them; the
/// number of points, or -1 when the file has none or libsndfile cannot read them. SF_CUES is a
/// struct with an array of 100 points, which Swift imports as a 100-element tuple.
static inline int jcap_sf_cue_offsets(SNDFILE *file, uint32_t *offsets, int capacity) {
    SF_CUES cues;
    if (sf_command(file, SFC_GET_CUE, &cues, sizeof(cues)) == SF_FALSE) return -1;
    int count = (int)cues.cue_count;
    for (int index = 0; index < count && index < capacity && index < 100; index++) {
        offsets[index] = cues.cue_points[index].sample_offset;
    }
    return count;
}

#endif
