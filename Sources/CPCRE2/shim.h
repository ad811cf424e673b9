// PCRE2 with 8-bit code units (UTF-8), the width PQL uses for MATCHES and LIKE.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
