/* SPDX-License-Identifier: MIT */
/* fuzz_import_strace.c - libFuzzer target: any bytes as `iotape import -F strace`
 * input; see fuzz_import.h. */
#define IMPORT_FORMAT "strace"
#include "fuzz_import.h"
