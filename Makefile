# vpk top-level Makefile (a thin wrapper over CMake, as VPP's is).
#   make deps    install the missing Debian and Python packages (as root; the only target
#                that reaches the network, and only run, test, bench, asan, tsan, fuzz use it)
#   make build   configure and build (no package installs)
#   make run     install missing packages, build, run the main job on built-in defaults
#   make test    build, then every C test (ctest) and integration test (pytest)
#   make bench   build, then every benchmark (JSON in build/bench/), and regenerate
#                docs/benchmarks.md and its charts from that JSON
#   make install build, then install into PREFIX (default /usr/local; DESTDIR honoured)
#   make package build, then the Debian packages libvpk0, libvpk-dev and vpk in build/
#   make asan    the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan    the tests with concurrent readers and writers under ThreadSanitizer
#   make fuzz    clang + libFuzzer build of the fuzz targets (library instrumented too),
#                then each target for FUZZ_SECONDS from its seed corpus (docs/fuzzing.md)
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TSAN ?= build-tsan
BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 60
CMAKE_ARGS ?=
PYTHON     ?= python3
JOBS       ?= $(shell nproc)

.PHONY: all deps build run test bench asan tsan fuzz install package clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_ARGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

run: deps build
	./$(BUILD)/vpk info
	./$(BUILD)/vpk fwd --demo

test: deps build
	VPK_BUILD=$(BUILD) bash scripts/run-tests.sh $(BUILD)

asan: deps
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DVPK_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	VPK_BUILD=$(BUILD_ASAN) bash scripts/run-tests.sh $(BUILD_ASAN)

fuzz:
	@bash scripts/install-deps.sh fuzz
	cmake -S . -B $(BUILD_FUZZ) -G Ninja -DCMAKE_C_COMPILER=clang -DVPK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target vpk-fuzzers
	bash scripts/run-fuzz.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

tsan: deps
	cmake -S . -B $(BUILD_TSAN) -G Ninja -DVPK_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD_TSAN) -j $(JOBS) --target vpk-concurrent-tests
	bash scripts/run-tsan.sh $(BUILD_TSAN)

bench: deps build
	@bash scripts/install-deps.sh bench
	bash scripts/run-bench.sh $(BUILD)

PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

package: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN) $(BUILD_FUZZ)
