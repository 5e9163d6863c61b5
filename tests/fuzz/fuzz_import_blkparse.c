/* SPDX-License-Identifier: MIT */
/* fuzz_import_blkparse.c - libFuzzer target: any bytes as `iotape import -F
 * blkparse` input; see fuzz_import.h. */
#define IMPORT_FORMAT "blkparse"
#include "fuzz_import.h"
