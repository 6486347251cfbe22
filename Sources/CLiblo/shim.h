// liblo (OSC over UDP) as jcap's Swift code sees it: the OSC remote and the NSM client.
#ifndef JCAP_CLIBLO_SHIM_H
#define JCAP_CLIBLO_SHIM_H

#include <lo/lo.h>

#endif
