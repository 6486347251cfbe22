// libsndfile as jcap's Swift code sees it.
#ifndef JCAP_CSNDFILE_SHIM_H
#define JCAP_CSNDFILE_SHIM_H

#include <sndfile.h>

/// sf_command takes `void *data` whose meaning depends on the command; these fixed-type wrappers
/// keep the casts for the boolean commands jcap uses in C, where they are checked.
static inline int jcap_sf_command_bool(SNDFILE *file, int command, int value) {
    return sf_command(file, command, NULL, value ? SF_TRUE : SF_FALSE);
}

#endif
