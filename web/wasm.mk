# The library for the browser: every src/*.c and web/ganim_web.c compiled by Debian's
# clang for wasm32-wasi against Debian's wasi-libc, linked by wasm-ld (lld) with the
# wasm32 compiler-rt builtins, into one WASI reactor module (no main: the page calls the
# gw_* functions of web/ganim_web.c). Run by `make web` (the top Makefile):
#   make -f web/wasm.mk OUT=build-web
# Objects and their header dependencies live in $(OUT)/obj, so a second run rebuilds
# only what changed.
OUT     ?= build-web
CC_WASM ?= clang
SRCS    := $(shell find src -name '*.c' | LC_ALL=C sort) web/ganim_web.c
OBJS    := $(patsubst %.c,$(OUT)/obj/%.o,$(SRCS))
# The native build's flags (CMakeLists.txt): C11, the same warnings, as errors, and no
# fused multiply-add (ACL's float32 arithmetic is reproduced bit for bit). -O2 rather
# than -Os: a little larger, and sampling twice as fast.
CFLAGS_WASM := --target=wasm32-wasi -std=c11 -O2 -ffp-contract=off -fvisibility=hidden \
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror \
  -Iinclude -Isrc -MMD -MP
# The stack comes first in memory (--stack-first), so an overflow traps instead of
# running into the module's data; the page restarts the module after a trap.
LDFLAGS_WASM := --target=wasm32-wasi -mexec-model=reactor -Wl,--strip-all -Wl,--gc-sections -Wl,--stack-first \
  -Wl,-z,stack-size=1048576 -Wl,--initial-memory=16777216

$(OUT)/ganim.wasm: $(OBJS)
	@echo "ganim: linking $@ ($(words $(OBJS)) objects)"
	@$(CC_WASM) $(LDFLAGS_WASM) -o $@ $(OBJS) -lm

# One line per file would be 90 lines; a failing compile still shows its command's error.
$(OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(CC_WASM) $(CFLAGS_WASM) -c $< -o $@

-include $(OBJS:.o=.d)
