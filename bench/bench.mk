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
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_analyze) $(LDLIBS_common) $(LDLIBS_format)

# The job-file generator alone: libreplay (and what it stands on), libinih.
$(OUT)/bench/job_bench.o: INC_bench += -Ireplay
$(OUT)/bench/job_bench: $(OUT)/bench/job_bench.o $(LIBREPLAY) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_replay) $(LDLIBS_common) $(LDLIBS_format)

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

# The Parquet peer (bench/parquet_peer.mjs): Debian's nodejs and npm, and
# DuckDB's Node API from npm at the version bench/package-lock.json pins,
# into bench/node_modules (ignored by git).  Bench-only: nothing else needs
# them.  Without the npm registry the parquet section says so and the
# other benchmarks still run.
BENCH_DEB_PKGS := nodejs npm

bench-deps:
	$(Q)command -v node >/dev/null && command -v npm >/dev/null || $(MAKE) --no-print-directory bench-apt
	$(Q)if ! cmp -s bench/package-lock.json bench/node_modules/.iotape-lock; then \
		echo "  NPM     bench/node_modules (@duckdb/node-api)"; \
		if (cd bench && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then \
			cp bench/package-lock.json bench/node_modules/.iotape-lock; \
		else \
			echo "make bench: npm ci failed in bench/: the parquet section will be skipped" >&2; \
		fi; \
	fi

.PHONY: bench-deps bench-apt
bench-apt:
	$(call apt_install,$(BENCH_DEB_PKGS))

bench: deps bench-deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS) $(OUT)/tests/preadbench
	$(Q)sh bench/run.sh $(OUT)
