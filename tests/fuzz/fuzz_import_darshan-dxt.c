/* SPDX-License-Identifier: MIT */
/* fuzz_import_darshan-dxt.c - libFuzzer target: any bytes as `iotape import -F
 * darshan-dxt` input; see fuzz_import.h. */
#define IMPORT_FORMAT "darshan-dxt"
#include "fuzz_import.h"
