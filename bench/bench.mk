# bench/bench.mk - benchmarks (make bench), included by the top Makefile.
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(OUT)/bench/%)

$(OUT)/bench/%: $(OUT)/bench/%.o $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lzstd -lxxhash -lpthread -lm

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS)
	$(Q)sh bench/run.sh $(OUT)
