// libsamplerate as jcap's Swift code sees it: the full API (src_new, src_process, src_delete,
// src_reset, src_strerror, src_is_valid_ratio), used by the disk writer to write files at a rate
// other than the JACK server's. Nothing here runs on the JACK process thread.
#ifndef JCAP_CSAMPLERATE_SHIM_H
#define JCAP_CSAMPLERATE_SHIM_H

#include <samplerate.h>

#endif
