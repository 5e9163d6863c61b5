# tests/tests.mk - test programs, included by the top Makefile.
#
# tests/unit/test_*.c   cmocka programs linked with libtape (exit 0/1/77);
#                       (test_analyze: with libanalyze and libcommon;
#                       test_svg: with libanalyze alone; test_jobkeys:
#                       with libreplay and libcommon; test_export: with
#                       libexport and the libraries below it)
# tests/fuzz/fuzz_*.c   libFuzzer targets; tests/fuzz/replay.c gives each a
#                       main() that replays tests/fuzz/corpus/<name>/
# tests/cli/*.sh        shell tests of ./iotape (run by tests/run; lib.sh and
#                       *_lib.sh are sourced helpers)
# tests/helpers/*.c     programs the tests run (.output/tests/NAME)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUT)/tests/%)
TESTLIB_SRCS := $(wildcard tests/lib/*.c)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(OUT)/%.o)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(OUT)/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(OUT)/tests/%)

.PHONY: tests fuzz
tests: $(UNIT_BINS) $(FUZZ_BINS) $(HELPER_BINS)

$(OUT)/tests/test_%: $(OUT)/tests/unit/test_%.o $(TESTLIB_OBJS) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TESTLIB_OBJS) $(LIBCOMMON) $(LIBTAPE) -lcmocka $(LDLIBS_common) $(LDLIBS_format)

# test_analyze links the analyze library (and what it stands on) instead
# of tests/lib; the explicit rule overrides the test_% pattern.
$(OUT)/tests/test_analyze: $(OUT)/tests/unit/test_analyze.o $(LIBANALYZE) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS_analyze) $(LDLIBS_common) $(LDLIBS_format)

# test_svg: the plots of analyze/ (ana_svg.c) alone.
$(OUT)/tests/test_svg: $(OUT)/tests/unit/test_svg.o $(LIBANALYZE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS_analyze)

# test_jobkeys: the job-file keys (libcommon) and the job-file source that
# reads them (libreplay).
$(OUT)/tests/test_jobkeys: $(OUT)/tests/unit/test_jobkeys.o $(LIBREPLAY) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS_replay) $(LDLIBS_common) $(LDLIBS_format)

# test_export: the exporters (libexport) and what they stand on.
$(OUT)/tests/test_export: $(OUT)/tests/unit/test_export.o $(LIBEXPORT) $(LIBREPLAY) $(LIBANALYZE) \
		$(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS_export) $(LDLIBS_replay) \
		$(LDLIBS_analyze) $(LDLIBS_common) $(LDLIBS_format)

# Plain build: the target plus a main() that replays the corpus.
$(OUT)/tests/fuzz_%: $(OUT)/tests/fuzz/fuzz_%.o $(OUT)/tests/fuzz/replay.o $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lzstd -lxxhash -lm

# An importer's target (fuzz_import_NAME.c): libimport and what it stands
# on, and the libraries the importers use (zlib: gzip'd inputs).
IMPORT_LIBS := $(LDLIBS_import) $(LDLIBS_common) $(LDLIBS_format)
$(OUT)/tests/fuzz_import_%: $(OUT)/tests/fuzz/fuzz_import_%.o $(OUT)/tests/fuzz/replay.o \
		$(LIBIMPORT) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(IMPORT_LIBS)

$(OUT)/tests/%: $(OUT)/tests/helpers/%.o $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lzstd -lxxhash -lpthread -lm

# The io_uring helper (tests/cli/record_uring.sh) is the one that needs
# liburing; the explicit rule overrides the pattern above.
$(OUT)/tests/uring: $(OUT)/tests/helpers/uring.o $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -luring -lzstd -lxxhash -lpthread -lm

# libFuzzer build for real fuzzing: make fuzz; then
#   .output/fuzz/fuzz_reader tests/fuzz/corpus/reader
fuzz: $(FUZZ_SRCS:tests/fuzz/%.c=$(OUT)/fuzz/%)
$(OUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FORMAT_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iformat -o $@ $^ -lzstd -lxxhash -lm
$(OUT)/fuzz/fuzz_import_%: tests/fuzz/fuzz_import_%.c $(FORMAT_SRCS) $(COMMON_SRCS) $(IMPORT_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE $(INC_import) -Iimport \
		-o $@ $^ $(IMPORT_LIBS)

# The MPI building blocks (tests/cli/replay_mpi.sh runs it under mpirun):
# the replay library, and Open MPI when built with it (MPI=1).
$(OUT)/tests/mpi_gather: $(OUT)/tests/helpers/mpi_gather.o $(LIBREPLAY) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread -lm $(MPI_LIBS)
