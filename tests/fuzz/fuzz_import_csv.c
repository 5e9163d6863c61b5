/* SPDX-License-Identifier: MIT */
/* fuzz_import_csv.c - libFuzzer target: any bytes as `iotape import -F csv`
 * input (syscall table); see fuzz_import.h. */
#define IMPORT_FORMAT "csv"
#include "fuzz_import.h"
