# iotape - record, analyze and replay the I/O of deep-learning jobs.
#
#   make            build ./iotape (and the BPF objects and skeletons)
#   make deps       install the Debian 12 packages we build and test with
#   make check      deps + build + every test (SANITIZE=1: ASan + UBSan)
#   make demo       record, analyze and replay a bundled workload
#   make bench      benchmarks, printed as ratios against peer tools
#   make man        check the man pages render
#   make install    PREFIX=/usr/local DESTDIR= (iotape, man pages, libtape.so,
#                   tape.h, iotape.pc, the python package)
#   make clean
#
# Quiet unless V=1.  MPI=0 builds without MPI (replay --mpi then fails:
# replay/rp_mpi.c's stubs).
.DELETE_ON_ERROR:
.SUFFIXES:

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
PREFIX   ?= /usr/local
MANDIR   ?= $(PREFIX)/share/man
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
VERSION  := 0.1.0

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

ifeq ($(SANITIZE),1)
OUT      := .output-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
OUT      := .output
SANFLAGS :=
endif

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
ALL_CFLAGS := $(CFLAGS) $(WARN) $(SANFLAGS) -std=gnu11 -D_GNU_SOURCE \
	-DIOTAPE_VERSION='"$(VERSION)"'
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

# Debian 12 packages: build, test, bench, demo.
DEB_PKGS := build-essential pkg-config clang llvm libbpf-dev bpftool libelf-dev python3-pil \
	zlib1g-dev libzstd-dev liburing-dev libxxhash-dev libinih-dev libyaml-dev \
	libjansson-dev libcmocka-dev zstd fio strace blktrace man-db groff-base \
	python3-torch python3-torchvision python3-numpy bpftrace openmpi-bin libopenmpi-dev \
	libmicrohttpd-dev chromium prometheus python3-pandas libsodium-dev python3-h5py time

# MPI (replay --mpi, replay/rp_mpi.c): Open MPI's flags go to that one
# file and to the final links (iotape, tests/helpers/mpi_gather); MPI=0
# builds rp_mpi.c's stubs instead; MPI=1 without Open MPI stops the build.
MPI ?= 1
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null || mpicc --showme:link 2>/dev/null)
ifeq ($(strip $(MPI_LIBS)),)
MPI_MISSING := 1
endif
CFLAGS_replay/rp_mpi.c := $(MPI_CFLAGS) -DIOTAPE_MPI=1
endif

# The layers, bottom up; each folder is a library but cli/, and each gets
# only the -I of what it may include (Design in README.md), so an include
# of a layer above fails the build.  tests/cli/layering.sh checks the rest
# on what the build made: nm of each module's objects (no symbol of a
# module it may not use) and the compiler's dependency files (no private
# header of another module), and proves itself on planted violations:
#   format/   libtape: the trace format          -Iformat
#   common/   libcommon: maps, paths, histograms, op vocabulary, units,
#             option values, the job-file keys
#   analyze/  libanalyze: the analysis engines   -Icommon -Iformat
#   replay/   libreplay: the replay engine and its op sources
#   import/   libimport: other tools' traces (strace, fio iologs, ...) into traces
#   export/   libexport: traces in other tools' formats (CSV, JSON lines,
#             Perfetto, fio, HTML)               + -Ianalyze -Ireplay
#   record/   librecord: the recorder            + -Ibpf and the skeletons
#   session/  libsession: replay sessions and their scenarios, over
#             analyze/ and replay/                 + -Ianalyze -Ireplay
#   cli/      the iotape front end: every module's public header
#   tests/    the test-only path: every library, and of the private headers
#             those tests/cli/layering.sh names (TEST_PRIVATE)
FORMAT_SRCS := $(wildcard format/*.c)
FORMAT_OBJS := $(FORMAT_SRCS:%.c=$(OUT)/%.o)
LIBTAPE     := $(OUT)/libtape.a
TAPE_SOVERSION := 0
LIBTAPE_SO  := $(OUT)/libtape.so.$(TAPE_SOVERSION)
LIBTAPE_SO_REAL := $(OUT)/libtape.so.$(VERSION)
FORMAT_PIC_OBJS := $(FORMAT_SRCS:%.c=$(OUT)/pic/%.o)
LIBCOMMON   := $(OUT)/libcommon.a
LIBANALYZE  := $(OUT)/libanalyze.a
LIBREPLAY   := $(OUT)/libreplay.a
LIBRECORD   := $(OUT)/librecord.a
LIBIMPORT   := $(OUT)/libimport.a
LIBEXPORT   := $(OUT)/libexport.a
LIBSESSION  := $(OUT)/libsession.a

lib_objs = $(patsubst %.c,$(OUT)/%.o,$(wildcard $(1)/*.c))
COMMON_OBJS  := $(call lib_objs,common)
ANALYZE_OBJS := $(call lib_objs,analyze)
REPLAY_OBJS  := $(call lib_objs,replay)
RECORD_OBJS  := $(call lib_objs,record)
IMPORT_OBJS  := $(call lib_objs,import)
EXPORT_OBJS  := $(call lib_objs,export)
SESSION_OBJS := $(call lib_objs,session)
COMMON_SRCS  := $(wildcard common/*.c)
IMPORT_SRCS  := $(wildcard import/*.c)
CLI_OBJS     := $(call lib_objs,cli)

INC_format  := -Iformat
INC_common  := -Icommon -Iformat
INC_analyze := -Icommon -Iformat
INC_replay  := -Icommon -Iformat
INC_import  := -Icommon -Iformat
INC_export  := -Icommon -Iformat -Ianalyze -Ireplay
INC_record  := -Icommon -Iformat -Ibpf -I$(OUT)
INC_session := -Icommon -Iformat -Ianalyze -Ireplay
INC_cli     := -Icommon -Iformat -Ianalyze -Ireplay -Isession -Irecord -Iimport -Iexport -Ibpf -I$(OUT)
INC_tests   := -Icommon -Iformat -Ianalyze -Ireplay -Iimport -Iexport
INC_bench   := -Icommon -Iformat -Ianalyze -Ibpf -I$(OUT)

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(OUT)/%.bpf.o)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(OUT)/%.skel.h)
VMLINUX   := $(OUT)/vmlinux.h
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# What each library needs from outside the tree, besides the libraries of
# the layers below it (nm -u of its objects): a program links the ones of
# the libraries it links, and nothing more.
BPF_LIBS     := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
URING_LIBS   := $(shell pkg-config --libs liburing 2>/dev/null || echo -luring)
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
INIH_LIBS    := $(shell pkg-config --libs inih 2>/dev/null || echo -linih)
LDLIBS_format  := -lzstd -lxxhash -lpthread -lm
LDLIBS_common  := $(JANSSON_LIBS) -lxxhash -lpthread -lm
LDLIBS_analyze := $(JANSSON_LIBS) -lpthread -lm
LDLIBS_replay  := $(URING_LIBS) $(JANSSON_LIBS) $(INIH_LIBS) -lpthread -lm $(MPI_LIBS)
LDLIBS_import  := $(JANSSON_LIBS) -lz -lm
LDLIBS_export  := $(JANSSON_LIBS)
LDLIBS_record  := $(BPF_LIBS) -ldl -lpthread
LDLIBS_session := $(JANSSON_LIBS) -lm

# libyaml (iotape model --from-dlio): cli/ only, linked into iotape only.
YAML_CFLAGS := $(shell pkg-config --cflags yaml-0.1 2>/dev/null)
YAML_LIBS   := $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml)
CFLAGS_cli/model_dlio.c := $(YAML_CFLAGS)

# libmicrohttpd (the --metrics endpoint, cli/metrics_http.c): cli/ only.
MHD_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS   := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
CFLAGS_cli/metrics_http.c := $(MHD_CFLAGS)

# libsodium (keyed BLAKE2b of iotape anonymize, cli/anon.c): cli/ only.
SODIUM_CFLAGS := $(shell pkg-config --cflags libsodium 2>/dev/null)
SODIUM_LIBS   := $(shell pkg-config --libs libsodium 2>/dev/null || echo -lsodium)
CFLAGS_cli/anon.c := $(SODIUM_CFLAGS)

LDLIBS_cli := $(YAML_LIBS) $(MHD_LIBS) $(SODIUM_LIBS) $(JANSSON_LIBS) -lpthread

LIBS := $(LIBRECORD) $(LIBSESSION) $(LIBEXPORT) $(LIBREPLAY) $(LIBANALYZE) $(LIBIMPORT) $(LIBCOMMON) \
	$(LIBTAPE) $(LDLIBS_cli) $(LDLIBS_record) $(LDLIBS_session) $(LDLIBS_export) $(LDLIBS_replay) \
	$(LDLIBS_analyze) $(LDLIBS_import) \
	$(LDLIBS_common) $(LDLIBS_format)

.PHONY: all deps check test demo bench man install clean FORCE
all: iotape $(LIBTAPE_SO_REAL)

# ---------------------------------------------------------------- packages
# apt_install PACKAGES: install those not installed yet (apt-get, as root).
define apt_install
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "make: missing packages:$$missing (run as root)" >&2; exit 1; fi; \
		echo "  DEPS    installing$$missing"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi
endef

deps:
	$(call apt_install,$(DEB_PKGS))

# ------------------------------------------------------------------- build
# INC_<top folder> of the source: what that layer may include.
$(OUT)/%.o: %.c $(OUT)/.flags | $(OUT)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_$(firstword $(subst /, ,$<))) $(CFLAGS_$<) -MMD -MP -c $< -o $@

# MPI=1 without Open MPI: say how to get it, rather than fail on <mpi.h>.
ifeq ($(MPI_MISSING),1)
$(OUT)/replay/rp_mpi.o: mpi-missing
.PHONY: mpi-missing
mpi-missing:
	@echo "make: MPI=1 but no Open MPI (pkg-config ompi-c, mpicc): run make deps, or make MPI=0" >&2; exit 1
endif

# The recorder includes the generated skeletons.
$(RECORD_OBJS) $(OUT)/cli/cmd_record.o: $(BPF_SKELS)

# Rebuild everything when the flags change.
$(OUT)/.flags: FORCE | $(OUT)
	@echo '$(ALL_CFLAGS) $(ALL_LDFLAGS) MPI=$(MPI) $(MPI_CFLAGS) $(MPI_LIBS)' | cmp -s - $@ || \
		echo '$(ALL_CFLAGS) $(ALL_LDFLAGS) MPI=$(MPI) $(MPI_CFLAGS) $(MPI_LIBS)' > $@

$(OUT):
	$(Q)mkdir -p $@

# libtape.so: format/ built again with -fPIC into $(OUT)/pic/ (libtape.a
# and ./iotape keep the objects without it), exporting only tape.h's API
# (format/libtape.map), soname libtape.so.$(TAPE_SOVERSION); for other
# programs and python/iotape.  iotape.pc is written by make install.
$(OUT)/pic/%.o: %.c $(OUT)/.flags | $(OUT)
	$(call msg,CC-PIC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC $(INC_$(firstword $(subst /, ,$<))) -MMD -MP -c $< -o $@

$(LIBTAPE_SO_REAL): $(FORMAT_PIC_OBJS) format/libtape.map
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,$(notdir $(LIBTAPE_SO)) \
		-Wl,--version-script=format/libtape.map -Wl,--no-undefined \
		-o $@ $(FORMAT_PIC_OBJS) -lzstd -lxxhash -lm
	$(Q)ln -sf $(notdir $@) $(LIBTAPE_SO)
	$(Q)ln -sf $(notdir $(LIBTAPE_SO)) $(OUT)/libtape.so

$(LIBTAPE): $(FORMAT_OBJS)
$(LIBCOMMON): $(COMMON_OBJS)
$(LIBANALYZE): $(ANALYZE_OBJS)
$(LIBREPLAY): $(REPLAY_OBJS)
$(LIBRECORD): $(RECORD_OBJS)
$(LIBIMPORT): $(IMPORT_OBJS)
$(LIBEXPORT): $(EXPORT_OBJS)
$(LIBSESSION): $(SESSION_OBJS)
# The folder too: a source removed or moved out of it (its object stays in
# $(OUT)) makes the archive again without it.
$(LIBTAPE): format
$(LIBCOMMON): common
$(LIBANALYZE): analyze
$(LIBREPLAY): replay
$(LIBRECORD): record
$(LIBIMPORT): import
$(LIBEXPORT): export
$(LIBSESSION): session
$(LIBTAPE) $(LIBCOMMON) $(LIBANALYZE) $(LIBREPLAY) $(LIBRECORD) $(LIBIMPORT) \
	$(LIBEXPORT) $(LIBSESSION):
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)

$(OUT)/iotape: $(CLI_OBJS) $(LIBRECORD) $(LIBSESSION) $(LIBEXPORT) $(LIBREPLAY) $(LIBANALYZE) \
		$(LIBIMPORT) $(LIBCOMMON) $(LIBTAPE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(LIBS)

iotape: $(OUT)/iotape FORCE
	$(Q)cmp -s $< $@ || cp $< $@

# BPF: vmlinux.h from the running kernel's BTF, %.bpf.c -> %.bpf.o -> %.skel.h
# (-mcpu=v3: atomic OR/AND on the traced-set bitmap, kernel 5.12+)
$(VMLINUX): | $(OUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(OUT) -Ibpf -c $< -o $@
	$(Q)llvm-strip -g $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)

# ------------------------------------------------------------------- tests
include tests/tests.mk
include bench/bench.mk

check: deps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)SANITIZE=$(SANITIZE) tests/run $(OUT)

test: all tests
	$(Q)SANITIZE=$(SANITIZE) tests/run $(OUT)

# ---------------------------------------------------------------- the rest
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/demo.sh

MANPAGES := $(wildcard man/*.1 man/*.5)
man:
	$(Q)for m in $(MANPAGES); do \
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l $$m 2>&1 >/dev/null | grep . && { echo "man: $$m has warnings" >&2; exit 1; }; \
	done; echo "  MAN     $(words $(MANPAGES)) pages render cleanly"

install: all
	$(Q)install -D -m 755 iotape $(DESTDIR)$(BINDIR)/iotape
	$(Q)for m in $(MANPAGES); do \
		s=$${m##*.}; install -D -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); \
	done
	$(Q)install -D -m 755 $(LIBTAPE_SO_REAL) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBTAPE_SO_REAL))
	$(Q)ln -sf $(notdir $(LIBTAPE_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBTAPE_SO))
	$(Q)ln -sf $(notdir $(LIBTAPE_SO)) $(DESTDIR)$(LIBDIR)/libtape.so
	$(Q)install -D -m 644 format/tape.h $(DESTDIR)$(INCLUDEDIR)/tape.h
	$(Q)mkdir -p $(DESTDIR)$(PKGCONFIGDIR)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' format/iotape.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/iotape.pc
	$(Q)for f in python/iotape/*.py; do install -D -m 644 $$f $(DESTDIR)$(PYTHONDIR)/iotape/$${f##*/}; done
	$(Q)if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig 2>/dev/null || true; fi

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf .output .output-san iotape
