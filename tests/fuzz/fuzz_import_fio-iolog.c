/* SPDX-License-Identifier: MIT */
/* fuzz_import_fio-iolog.c - libFuzzer target: any bytes as `iotape import -F fio-iolog`
 * input; see fuzz_import.h. */
#define IMPORT_FORMAT "fio-iolog"
#include "fuzz_import.h"
