#include "CImageCodecs.h"
int omk_codecs_version(void) { return 1; }
