# Entry points for people and CI. Every target that builds first makes sure
# the Debian packages it needs are installed (`make deps`).

BUILD_DIR   ?= build
BUILD_TYPE  ?= Release
JOBS        ?= $(shell nproc)
DEMO_DIR    ?= $(BUILD_DIR)/demo-data
CLI         := $(BUILD_DIR)/client/wasserwarp
DEMO_ARGS   ?= --scale reference-std --lambda 0.3

DEB_PACKAGES := g++ cmake ninja-build make clang-format \
  libabsl-dev libtbb-dev liblemon-dev nlohmann-json3-dev \
  libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev \
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libspdlog-dev \
  python3-grpcio python3-protobuf

CPP_SOURCES = $(shell git ls-files '*.h' '*.cc' 2>/dev/null)

.PHONY: all deps configure build demo test bench bench-e2e format check-format lint clean

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: every Debian package is installed"; exit 0; fi; \
	echo "deps: installing missing Debian packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo"; \
	else echo "deps: not root and no password-less sudo; run as root:"; \
	     echo "  apt-get update && apt-get install -y$$missing"; exit 1; fi; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BUILD_DIR)/examples/wasserwarp-example-data --out $(DEMO_DIR)
	@echo; echo "== Variant A (nominal model) against the measured references"
	$(CLI) validate --sim $(DEMO_DIR)/sim_a --ref $(DEMO_DIR)/ref $(DEMO_ARGS) --json $(BUILD_DIR)/demo-a.json
	@echo; echo "== Variant B (front cornering stiffness 40% low) against the same references"
	$(CLI) validate --sim $(DEMO_DIR)/sim_b --ref $(DEMO_DIR)/ref $(DEMO_ARGS) --json $(BUILD_DIR)/demo-b.json
	@echo; echo "JSON reports: $(BUILD_DIR)/demo-a.json $(BUILD_DIR)/demo-b.json"

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: build
	$(BUILD_DIR)/bench/twed_bench
	$(BUILD_DIR)/bench/transport_bench
	$(BUILD_DIR)/bench/validate_bench
	$(BUILD_DIR)/bench/service_bench

# The 100 x 100 runs of 2000 samples through `wasserwarp validate`, as generated
# by bench/e2e_workload.h (the same files every time): cells/s, seconds, peak memory.
E2E_DIR  ?= $(BUILD_DIR)/e2e
E2E_ARGS ?= --runs 100 --samples 2000 --channels 1
bench-e2e: build
	$(BUILD_DIR)/bench/e2e_bench --cli $(CLI) --dir $(E2E_DIR) $(E2E_ARGS)

# buf lint on the wire contract, when the @bufbuild/buf npm package is at hand
# (npx finds a local or global install; nothing is downloaded).
lint:
	@if npx --no-install buf --version >/dev/null 2>&1; then \
	  cd proto && npx --no-install buf lint && echo "buf lint: clean"; \
	else echo "lint: @bufbuild/buf is not installed (npm install -g @bufbuild/buf); skipped"; fi

format:
	clang-format -i $(CPP_SOURCES)

check-format:
	clang-format --dry-run --Werror $(CPP_SOURCES)

clean:
	rm -rf $(BUILD_DIR)
