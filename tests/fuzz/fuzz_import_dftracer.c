/* SPDX-License-Identifier: MIT */
/* fuzz_import_dftracer.c - libFuzzer target: any bytes as `iotape import -F
 * dftracer` input; see fuzz_import.h. */
#define IMPORT_FORMAT "dftracer"
#include "fuzz_import.h"
