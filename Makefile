# ganim — the two commands of the README:
#   make demo    install build dependencies, build, convert examples/ to out/*.glb
#   make check   install test dependencies, build with ASan+UBSan, run every test
# and for Windows (docs/windows.md):
#   make windows        cross-compile ganim.exe, ganim.dll and the release zip (MinGW-w64)
#   make windows-check  test that build under Wine (make check runs it with
#                       GANIM_WINDOWS=1 or CI=true)
# and for the browser viewer (docs/viewer.md): make web, make check-web (make check runs it)
# and for Python and Blender (docs/python.md, docs/blender.md):
#   make python         the native library beside the binding: PYTHONPATH=python works
#   make blender-addon  dist/ganim_blender.zip, the add-on with the binding and the library
#   make check-blender  the add-on in Debian's Blender, headless (make check runs it too)
.PHONY: all demo check build deps test-deps python blender-addon check-blender clean fuzz fuzz-build fuzz-campaign fuzz-smoke valgrind bench format format-check tidy windows windows-check

JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# The builds run make inside make: no "Entering/Leaving directory" lines.
MAKEFLAGS += --no-print-directory
BUILD     ?= build
CHECK     ?= build-check
# command:package pairs; a package is installed only when its command is missing, so a
# node/npm that came from elsewhere (NodeSource, nvm) is left alone.
APT_BUILD := cmake:cmake cc:gcc make:make
APT_TEST  := node:nodejs npm:npm clang:clang pkg-config:pkg-config clang-format:clang-format clang-tidy:clang-tidy
APT_WINDOWS := x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 zip:zip
APT_WINE  := wine:wine wine:wine64
WINDOWS_BUILD ?= build-windows
WINDOWS_TESTS ?= OFF
WINDOWS_WERROR ?= OFF

all: build

# Install what is missing (as root: apt-get; otherwise print the exact command).
define need_apt
	@missing=""; for pair in $(1); do cmd=$${pair%%:*}; pkg=$${pair#*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "ganim: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "ganim: missing packages:$$missing"; \
	    echo "       run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
endef

deps:
	$(call need_apt,$(APT_BUILD))

test-deps: deps
	$(call need_apt,$(APT_TEST))
	@# Blender (tests/interop/blender_roundtrip.sh) runs Debian's system Python, which needs
	@# numpy for its glTF importer: installed when root, else the test says it skipped.
	@if ! command -v blender >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then echo "ganim: installing blender python3-numpy (the Blender round-trip test)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq blender python3-numpy >/dev/null; \
	  else echo "ganim: no Blender: the Blender round-trip test will skip (sudo apt-get install -y blender python3-numpy)"; fi; \
	fi
	@cd tests/interop && if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then \
	  echo "ganim: npm ci (tests/interop)"; npm ci --no-audit --no-fund --loglevel=error; fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGANIM_TESTS=OFF >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@rm -rf out && mkdir -p out
	@for f in examples/*.ala examples/*.ALA; do [ -e "$$f" ] || continue; \
	  echo "== $$f"; ./$(BUILD)/ganim info "$$f" || exit 1; done
	./$(BUILD)/ganim convert examples -o out --to glb
	@ls -l out

# Real samples are optional for a user who cloned ganim alone: the tests that need them
# skip, and the last lines say which did not run and how to run them. Under CI=true or
# with GANIM_TESTDATA set they are required.
# The check build is optimised a little (-O1, as the sanitizers' authors advise): the
# sanitizers see the same bugs and the sweeps run twice as fast.
check: test-deps
	@mkdir -p $(CHECK) && date +%s > $(CHECK)/check-started
	@if [ "$$CI" = true ] || [ "$$GANIM_FULL" = 1 ]; then echo "ganim: full check: every case of every sweep"; \
	else echo "ganim: quick check: the exhaustive sweeps run a fixed sample of their cases (CI=true or GANIM_FULL=1: all)"; fi
	cmake -S . -B $(CHECK) -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DGANIM_SANITIZE=ON -DGANIM_WERROR=ON >/dev/null
	cmake --build $(CHECK) -j $(JOBS)
	@$(MAKE) --no-print-directory format-check
	@$(MAKE) --no-print-directory tidy
	@rm -f $(CHECK)/skipped.txt
	cd $(CHECK) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)
	GANIM_SKIP_LOG=$(abspath $(CHECK))/skipped.txt $(MAKE) --no-print-directory fuzz-smoke
	GANIM_SKIP_LOG=$(abspath $(CHECK))/skipped.txt $(MAKE) --no-print-directory check-web WEB_NATIVE=$(CHECK) WEB_OPTIONAL=1
	@if [ "$$GANIM_WINDOWS" = 1 ] || [ "$$CI" = true ]; then \
	  full=$${GANIM_FULL:-}; if [ "$$CI" = true ] && [ "$$full" != 1 ]; then full=0; fi; \
	  GANIM_FULL=$$full GANIM_SKIP_LOG=$(abspath $(CHECK))/skipped.txt $(MAKE) --no-print-directory windows-check \
	    WINDOWS_LINUX_GANIM=$(CHECK)/ganim || exit 1; \
	elif command -v x86_64-w64-mingw32-gcc >/dev/null && command -v wine >/dev/null; then \
	  echo "ganim: the Windows tests did not run (about 2 minutes more): GANIM_WINDOWS=1 make check"; \
	else \
	  echo "ganim: the Windows tests did not run (no MinGW-w64 or Wine here): GANIM_WINDOWS=1 make check"; \
	  echo "       installs them (gcc-mingw-w64-x86-64, wine64) and runs them"; \
	fi
	@if [ -s $(CHECK)/skipped.txt ]; then \
	  echo; echo "ganim: $$(sort -u $(CHECK)/skipped.txt | wc -l) real-sample tests did not run (no test data):"; \
	  sort -u $(CHECK)/skipped.txt | sed 's/^/  - /'; \
	  echo "  To run them: GANIM_TESTDATA=/path/to/testdata make check (default ../shared/testdata)."; \
		else echo; echo "ganim: every test ran, the real samples included."; fi
	@echo "ganim: make check took $$(( $$(date +%s) - $$(cat $(CHECK)/check-started) )) s"

# The Python binding (python/ganim, ctypes: docs/python.md) loads the shared library
# from its own folder: the Release build's libganim.so copied there (git-ignored).
python: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGANIM_TESTS=OFF >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target ganim_shared
	cp -L $(BUILD)/libganim.so python/ganim/libganim.so
	@echo "ganim: python/ganim/libganim.so (PYTHONPATH=python python3 -c 'import ganim', or pip install ./python)"

# The Blender add-on (blender/ganim_blender, docs/blender.md) with the binding and the
# native library inside: Linux x86_64, and Windows x86_64 when `make windows` built
# ganim.dll. One zip installs in Blender 3.4 (bl_info) and 4.2+ (blender_manifest.toml).
blender-addon: python
	@mkdir -p dist
	@if [ -f $(WINDOWS_BUILD)/ganim.dll ]; then echo "ganim: with $(WINDOWS_BUILD)/ganim.dll"; \
	else echo "ganim: Linux only (make windows first for the Windows DLL)"; fi
	bash blender/package.sh python/ganim/libganim.so dist/ganim_blender.zip $(wildcard $(WINDOWS_BUILD)/ganim.dll)
	@echo "ganim: dist/ganim_blender.zip"

# The add-on in Debian's Blender 3.4, headless, on one sample of every writable family
# (tests/interop/blender_addon.sh; about ten seconds). make check runs it too, when Blender
# is installed (ctest blender_addon, on a plain build of the library: Blender cannot load
# a sanitized one).
check-blender: blender-addon
	cmake --build $(BUILD) -j $(JOBS) --target ganim
	@GANIM_TESTDATA_DEFAULT=$(abspath ../shared/testdata) bash tests/interop/blender_addon.sh dist/ganim_blender.zip $(BUILD)/ganim; \
	  rc=$$?; [ $$rc = 77 ] || exit $$rc

# Windows (docs/windows.md): ganim.exe linked statically (it needs no DLL beside it),
# ganim.dll with its import library libganim.dll.a, libganim.a, cross-compiled with
# MinGW-w64 in $(WINDOWS_BUILD)/, and the release zip ganim-VERSION-windows-x86_64.zip
# there: the programs, the header, the libraries and the documents a user needs.
windows: deps
	$(call need_apt,$(APT_WINDOWS))
	cmake -S . -B $(WINDOWS_BUILD) -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/mingw-w64-x86_64.cmake \
	  -DCMAKE_BUILD_TYPE=Release -DGANIM_TESTS=$(WINDOWS_TESTS) -DGANIM_WERROR=$(WINDOWS_WERROR) >/dev/null
	cmake --build $(WINDOWS_BUILD) -j $(JOBS)
	@v=$$(sed -n 's/^#define GANIM_VERSION_STRING "\(.*\)"/\1/p' include/ganim.h); \
	  name=ganim-$$v-windows-x86_64; d=$(WINDOWS_BUILD)/$$name; \
	  rm -rf $$d $$d.zip && mkdir -p $$d/include $$d/lib $$d/docs && \
	  cp $(WINDOWS_BUILD)/ganim.exe $(WINDOWS_BUILD)/ganim.dll $$d/ && \
	  x86_64-w64-mingw32-strip $$d/ganim.exe $$d/ganim.dll && \
	  cp include/ganim.h $$d/include/ && cp $(WINDOWS_BUILD)/libganim.a $(WINDOWS_BUILD)/libganim.dll.a $$d/lib/ && \
	  cp README.md $$d/ && cp docs/windows.md docs/cli.md docs/dump-format.md $$d/docs/ && \
	  (cd $(WINDOWS_BUILD) && zip -qrX $$name.zip $$name) && \
	  echo "ganim: $(WINDOWS_BUILD)/$$name.zip" && (cd $(WINDOWS_BUILD) && unzip -l $$name.zip)

# The Windows build under Wine: its ctest (unit, format, CLI tests on the .exe and the
# .dll), then ganim.exe against the Linux build on every sample (tests/windows/run.sh).
WINDOWS_LINUX_GANIM ?= $(BUILD)/ganim
windows-check: deps
	$(call need_apt,$(APT_WINDOWS) $(APT_WINE))
	WINDOWS_BUILD=$(WINDOWS_BUILD) WINDOWS_WERROR=ON JOBS=$(JOBS) bash tests/windows/run.sh $(WINDOWS_LINUX_GANIM)

# libFuzzer (clang). The harnesses: tests/fuzz/fuzz_format.c (a reader), fuzz_roundtrip.c
# (a writer: read, write, read, compare), fuzz_resample_export.c, and each family's own
# (tests/formats/FAMILY/fuzz_*.c); tests/fuzz/fuzz.sh runs them (docs/robustness.md).
#   make fuzz-build                     build them in build-fuzz/
#   make fuzz [FUZZ_SECONDS=60]         run every target that long, corpora kept in build-fuzz/corpus
#   make fuzz-campaign [FUZZ_RUNS=1e7] [FUZZ_SECONDS=N]
#                                       run every target for that many executions (a tenth for
#                                       the round trips; at most N s each), one core, nice 19,
#                                       seeded with the project's files only; report in
#                                       build-fuzz/campaign.md, minimised corpora kept in
#                                       tests/fuzz/corpus/TARGET (make check replays them)
#   make fuzz-smoke                     the short run of make check
FUZZ_TARGETS := fuzz_format fuzz_roundtrip fuzz_resample_export $(basename $(notdir $(wildcard tests/formats/*/fuzz_*.c)))
FUZZ_RUNS ?= 10000000
fuzz-build:
	CC=clang cmake -S . -B build-fuzz -DGANIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target ganim $(FUZZ_TARGETS)

fuzz: fuzz-build
	bash tests/fuzz/fuzz.sh build-fuzz --seconds $(or $(FUZZ_SECONDS),60) --corpus build-fuzz/corpus

fuzz-campaign: fuzz-build
	@echo "| target | executions | coverage (edges) | features | corpus | time | findings |" > build-fuzz/campaign.md
	@echo "|---|---|---|---|---|---|---|" >> build-fuzz/campaign.md
	nice -n 19 bash tests/fuzz/fuzz.sh build-fuzz --runs $(FUZZ_RUNS) $(if $(FUZZ_SECONDS),--seconds $(FUZZ_SECONDS)) --corpus build-fuzz/corpus --jobs $(or $(FUZZ_JOBS),1) --lean --max-len 16384 --fixtures-only --keep tests/fuzz/corpus --report $(abspath build-fuzz/campaign.md) $(if $(FUZZ_ONLY),--only $(FUZZ_ONLY))
	@cat build-fuzz/campaign.md

# A short libFuzzer run of every harness (part of check): FUZZ_SECONDS each (default 5,
# 10 under CI=true or GANIM_FULL=1), two at a time.
fuzz-smoke: fuzz-build
	bash tests/fuzz/fuzz.sh build-fuzz --smoke $(if $(FUZZ_SECONDS),--seconds $(FUZZ_SECONDS))

# valgrind --leak-check=full over the command line on every sample (a few minutes):
# tests/valgrind/run.sh; a plain -O1 -g build in build-valgrind (sanitizers and valgrind
# do not mix).
valgrind: deps
	$(call need_apt,valgrind:valgrind)
	cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DGANIM_TESTS=OFF -DGANIM_STATIC_CLI=OFF >/dev/null
	cmake --build build-valgrind -j $(JOBS) --target ganim
	bash tests/valgrind/run.sh build-valgrind/ganim

# The benchmark programs (bench/*.c) in a Release build, run on the real samples
# ($$GANIM_TESTDATA, default ../shared/testdata); figures and method: docs/benchmarks.md.
bench: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGANIM_TESTS=OFF >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	@for b in $(BUILD)/bench_*; do [ -x "$$b" ] || continue; echo "== $$b"; "$$b" || exit 1; done

# clang-tidy over the project's own code (src/, cli/, bench/, tools/) with .clang-tidy;
# every finding is an error. make check runs it.
TIDY_BUILD ?= build-tidy
tidy:
	$(call need_apt,clang-tidy:clang-tidy)
	@cmake -S . -B $(TIDY_BUILD) -DCMAKE_BUILD_TYPE=Release -DGANIM_TESTS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
	@echo "ganim: clang-tidy over src/ cli/ bench/ tools/ ($$(git ls-files 'src/*.c' 'cli/*.c' 'bench/*.c' 'tools/*.c' | wc -l) files)"
	@git ls-files 'src/*.c' 'cli/*.c' 'bench/*.c' 'tools/*.c' | xargs -P $(JOBS) -n 4 clang-tidy -p $(TIDY_BUILD) --quiet > $(TIDY_BUILD)/tidy.txt 2>&1; \
	if grep -qE '(warning|error):' $(TIDY_BUILD)/tidy.txt; then grep -E '(warning|error):' -A3 $(TIDY_BUILD)/tidy.txt; \
	  echo "ganim: clang-tidy found $$(grep -cE '(warning|error):' $(TIDY_BUILD)/tidy.txt) problems (.clang-tidy)"; exit 1; fi; \
	echo "ganim: clang-tidy: no findings"

# The C style (.clang-format): format rewrites every C file, format-check lists the ones
# that drift from it.
format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

format-check:
	@bad=$$(git ls-files '*.c' '*.h' | while read -r f; do clang-format "$$f" | cmp -s - "$$f" || echo "$$f"; done); \
	if [ -n "$$bad" ]; then echo "ganim: not formatted (make format):"; echo "$$bad"; exit 1; fi; \
	echo "ganim: every C file follows .clang-format"

clean:
	rm -rf $(BUILD) $(CHECK) $(TIDY_BUILD) build-fuzz build-valgrind $(WINDOWS_BUILD) out dist python/ganim/libganim.so python/ganim/ganim.dll

# The browser viewer (docs/viewer.md): the library for WebAssembly (web/wasm.mk: Debian's
# clang --target=wasm32-wasi with wasi-libc, lld and the wasm32 compiler-rt builtins) and
# the static page in web/dist (web/build.sh: the page's modules and three.js, pinned by
# web/package-lock.json, bundled by Debian's esbuild). Serve it with
#   python3 -m http.server -d web/dist
#   make web        build web/dist
#   make check-web  the page in headless Chromium (Debian's chromium, driven by
#                   playwright-core) against the native tool: tests/web/run.sh
.PHONY: web check-web check-web-run clean-web
WEB_BUILD ?= build-web
WEB_DIST  ?= web/dist
APT_WEB   := clang:clang wasm-ld:lld esbuild:esbuild node:nodejs npm:npm
# file:package pairs: what the wasm32-wasi link needs, which no command stands for.
WEB_FILES = $(shell clang --target=wasm32-wasi -print-file-name=libc.a 2>/dev/null):wasi-libc \
  $(shell clang --target=wasm32-wasi -rtlib=compiler-rt -print-libgcc-file-name 2>/dev/null):libclang-rt-dev-wasm32
define need_apt_files
	@missing=""; for pair in $(1); do f=$${pair%%:*}; pkg=$${pair#*:}; \
	  [ -f "$$f" ] || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "ganim: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "ganim: missing packages:$$missing"; \
	    echo "       run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
endef

web:
	$(call need_apt,$(APT_WEB))
	$(call need_apt_files,$(WEB_FILES))
	@cd web && if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then \
	  echo "ganim: npm ci (web)"; npm ci --no-audit --no-fund --loglevel=error; fi
	@$(MAKE) -s -f web/wasm.mk OUT=$(WEB_BUILD) -j $(JOBS) --no-print-directory
	@bash web/build.sh $(WEB_BUILD)/ganim.wasm $(WEB_DIST)

# WEB_NATIVE: the native build the page is compared with (make check passes its own);
# WEB_OPTIONAL=1 (make check): without Chromium and not root, say so and skip.
WEB_NATIVE ?= $(BUILD)
check-web:
	@if [ "$(WEB_OPTIONAL)" = 1 ] && [ "$$(id -u)" != 0 ] && ! command -v chromium >/dev/null 2>&1; then \
	  echo "ganim: no Chromium: the browser viewer's test did not run (sudo apt-get install -y chromium; make check-web)"; \
	  [ -n "$$GANIM_SKIP_LOG" ] && echo "web viewer in Chromium (no chromium)" >> "$$GANIM_SKIP_LOG"; exit 0; fi; \
	$(MAKE) --no-print-directory web && $(MAKE) --no-print-directory check-web-run
check-web-run:
	$(call need_apt,chromium:chromium)
	@[ -x $(WEB_NATIVE)/ganim ] && [ -f $(WEB_NATIVE)/libganim.a ] || $(MAKE) --no-print-directory build
	bash tests/web/run.sh $(WEB_NATIVE) $(WEB_DIST)

clean-web:
	rm -rf $(WEB_BUILD) $(WEB_DIST)
