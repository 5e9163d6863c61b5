# bench/bench.mk - benchmarks (make bench), included by the top Makefile.
# Every bench/*.c is a program, but the BPF side of bpffloor and
# zstdshare.c (a preload library that times libzstd).
BENCH_SRCS := $(filter-out %.bpf.c bench/zstdshare.c,$(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(OUT)/bench/%) $(OUT)/bench/zstdshare.so

$(OUT)/bench/%: $(OUT)/bench/%.o $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lzstd -lxxhash -lpthread -lm

# The analyze library (and what it stands on) and jansson too.
$(OUT)/bench/analyze_bench: $(OUT)/bench/analyze_bench.o $(LIBANALYZE) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -ljansson -lzstd -lxxhash -lpthread -lm

$(OUT)/bench/zstdshare.so: bench/zstdshare.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -Wextra -fPIC -shared -o $@ $< -ldl

# bpffloor (the BPF floor of a syscall recorder): its own BPF object and
# skeleton, built like the recorder's (top Makefile) but outside ./iotape.
$(OUT)/bench/bpffloor.bpf.o: bench/bpffloor.bpf.c bench/bpffloor.h bpf/record.bpf.h $(VMLINUX) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(OUT) -Ibpf -c $< -o $@
	$(Q)llvm-strip -g $@

$(OUT)/bench/bpffloor.skel.h: $(OUT)/bench/bpffloor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name bpffloor_bpf > $@

$(OUT)/bench/bpffloor.o: $(OUT)/bench/bpffloor.skel.h

$(OUT)/bench/bpffloor: $(OUT)/bench/bpffloor.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS) $(OUT)/tests/preadbench
	$(Q)sh bench/run.sh $(OUT)
