# bench/bench.mk - benchmarks (make bench), included by the top Makefile.
# zstdshare.c is not a program: a preload library that times libzstd.
BENCH_SRCS := $(filter-out bench/zstdshare.c,$(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(OUT)/bench/%) $(OUT)/bench/zstdshare.so

$(OUT)/bench/%: $(OUT)/bench/%.o $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lzstd -lxxhash -lpthread -lm

# The analyze engines (ANALYZE_OBJS, tests/tests.mk) and jansson too.
$(OUT)/bench/analyze_bench: $(OUT)/bench/analyze_bench.o $(ANALYZE_OBJS) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -ljansson -lzstd -lxxhash -lpthread -lm

$(OUT)/bench/zstdshare.so: bench/zstdshare.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -Wextra -fPIC -shared -o $@ $< -ldl

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS) $(OUT)/tests/preadbench
	$(Q)sh bench/run.sh $(OUT)
