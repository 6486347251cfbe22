// libsndfile as jcap's Swift code sees it.
#ifndef JCAP_CSNDFILE_SHIM_H
#define JCAP_CSNDFILE_SHIM_H

#include <sndfile.h>

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

#endif
