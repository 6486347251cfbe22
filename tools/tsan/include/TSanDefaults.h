// Nothing to call: the TSan runtime looks up __tsan_default_options and
// __tsan_default_suppressions in the executable (see TSanDefaults.c).
#ifndef JCAP_TSAN_DEFAULTS_H
#define JCAP_TSAN_DEFAULTS_H
const char *__tsan_default_options(void);
const char *__tsan_default_suppressions(void);
#endif
