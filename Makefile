# Entry points for people and CI. Every target that builds first makes sure
# the Debian packages it needs are installed (`make deps`).

BUILD_DIR   ?= build
BUILD_TYPE  ?= Release
JOBS        ?= $(shell nproc)
DEMO_DIR    ?= $(BUILD_DIR)/demo-data
CLI         := $(BUILD_DIR)/client/wasserwarp
DEMO_ARGS   ?= --scale reference-std --resample 100 --lambda 0.3
VERDICT_ARGS ?= --max-ratio 1.5 --qoi lateral_acceleration:max,yaw_rate:max

# What building the server and the CLI needs, and no more: the image's build stage installs only
# these (`make deps-image`).
IMAGE_BUILD_PACKAGES := g++ cmake ninja-build make pkg-config \
  libabsl-dev libtbb-dev liblemon-dev nlohmann-json3-dev libhwy-dev \
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libspdlog-dev \
  prometheus-cpp-dev libsqlite3-dev zlib1g-dev libpq-dev libssl-dev libmatio-dev libcivetweb-dev \
  golang-github-gogo-googleapis-dev libjs-chart.js libudunits2-dev
DEB_PACKAGES := $(IMAGE_BUILD_PACKAGES) clang-format \
  libgtest-dev libgmock-dev libbenchmark-dev \
  python3-grpcio python3-protobuf python3-numpy python3-pandas python3-pytest \
  python3-setuptools python3-pip openssl python3-yaml postgresql-15 \
  chromium chromium-driver python3-selenium python3-junitparser \
  clang-14 libfuzzer-14-dev libclang-rt-14-dev

CPP_SOURCES = $(shell git ls-files '*.h' '*.cc' 2>/dev/null)

.PHONY: all deps configure build build-demo demo test bench bench-assignment bench-e2e bench-paths bench-python calibration format check-format lint clean

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

# What the image ships, the server and the CLI, without tests, benchmarks or examples: the
# Dockerfile's build stage (`make deps-image` installs only what they need).
deps-image:
	$(MAKE) deps DEB_PACKAGES="$(IMAGE_BUILD_PACKAGES)"

build-image-binaries: deps-image
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DWASSERWARP_BUILD_TESTS=OFF -DWASSERWARP_BUILD_BENCHMARKS=OFF
	cmake --build $(BUILD_DIR) -j $(JOBS) --target wasserwarp-server wasserwarp

# Only what the demo runs, the CLI and the example generator, and the libraries they link:
# a newcomer's first result should not wait for every test and benchmark (`make test` builds those).
build-demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target wasserwarp wasserwarp-example-data

demo: build-demo
	$(BUILD_DIR)/examples/wasserwarp-example-data --out $(DEMO_DIR)
	@echo; echo "== Variant A (nominal model) against the measured references"
	$(CLI) validate --sim $(DEMO_DIR)/sim_a --ref $(DEMO_DIR)/ref $(DEMO_ARGS) $(VERDICT_ARGS) \
	  --json $(BUILD_DIR)/demo-a.json --report $(BUILD_DIR)/demo-a.html
	@echo; echo "== Variant B (front cornering stiffness 40% low) against the same references"
	@echo "   (its verdict is FAIL, exit status 1: that is the point of the demo)"
	$(CLI) validate --sim $(DEMO_DIR)/sim_b --ref $(DEMO_DIR)/ref $(DEMO_ARGS) $(VERDICT_ARGS) \
	  --json $(BUILD_DIR)/demo-b.json --report $(BUILD_DIR)/demo-b.html || [ $$? -eq 1 ]
	@echo; echo "== A against B on the same references"
	$(CLI) compare --sim-a $(DEMO_DIR)/sim_a --sim-b $(DEMO_DIR)/sim_b --ref $(DEMO_DIR)/ref \
	  $(DEMO_ARGS) --json $(BUILD_DIR)/demo-compare.json
	@echo; echo "== Identification: which front cornering stiffness and yaw inertia reproduce the measurements?"
	$(CLI) identify --sim $(DEMO_DIR)/study/sim --sim-params $(DEMO_DIR)/study/sim_params.csv \
	  --ref $(DEMO_DIR)/study/ref --ref-groups $(DEMO_DIR)/study/ref_groups.csv \
	  --nominal front_cornering=75000,yaw_inertia=2600 --json $(BUILD_DIR)/demo-identify.json \
	  --report $(BUILD_DIR)/demo-identify.html
	@echo "   the generator's truth: $$(tail -n +2 $(DEMO_DIR)/study/truth.csv | tr '\n' ' ')"
	@echo; echo "JSON reports: $(BUILD_DIR)/demo-a.json $(BUILD_DIR)/demo-b.json $(BUILD_DIR)/demo-compare.json $(BUILD_DIR)/demo-identify.json"
	@echo "HTML reports: $(BUILD_DIR)/demo-a.html $(BUILD_DIR)/demo-b.html $(BUILD_DIR)/demo-identify.html"

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: build
	$(BUILD_DIR)/bench/twed_bench
	$(BUILD_DIR)/bench/transport_bench
	$(BUILD_DIR)/bench/lazy_transport_bench
	$(BUILD_DIR)/bench/validate_bench
	$(BUILD_DIR)/bench/verdict_bench
	$(BUILD_DIR)/bench/study_bench
	$(BUILD_DIR)/bench/service_bench
	$(BUILD_DIR)/bench/run_files_bench
	$(BUILD_DIR)/bench/record_list_bench

# SolveAssignment against scipy's linear_sum_assignment on the same matrices, solve only, at
# 2000 and 5000: one table. Needs python3-scipy, which only this target uses, so it is not in
# DEB_PACKAGES: apt-get install python3-scipy.
bench-assignment: build
	@/usr/bin/python3 -c 'import scipy' 2>/dev/null || \
	  { echo "bench-assignment needs python3-scipy: apt-get install -y python3-scipy"; exit 1; }
	/usr/bin/python3 bench/assignment_vs_scipy.py --solver $(BUILD_DIR)/bench/assignment_solve

# The Python client's upload throughput against the C++ CLI's, on one real server.
bench-python: build
	ctest --test-dir $(BUILD_DIR) -R python_client_build --output-on-failure
	PYTHONPATH=$(BUILD_DIR)/tests/python-client/lib /usr/bin/python3 bench/python_upload_bench.py \
	  --server $(BUILD_DIR)/server/wasserwarp-server --cli $(CLI)

# The 100 x 100 runs of 2000 samples through `wasserwarp validate`, as generated
# by bench/e2e_workload.h (the same files every time): cells/s, seconds, peak memory; then
# through a wasserwarp-server with the cost matrix whole and in tiles: the tiling overhead; then
# the web view's time to first byte and to drawn charts in Chromium (bench/web_view_bench.py).
E2E_DIR  ?= $(BUILD_DIR)/e2e
E2E_ARGS ?= --runs 100 --samples 2000 --channels 1
# The verdict's false-FAIL and detection rates and compare's coverage on generated runs with
# known truth (bench/calibration/, deterministic): the tables of docs/verdict.md.
calibration: build
	$(BUILD_DIR)/bench/calibration $(CALIBRATION_ARGS)

bench-e2e: build
	$(BUILD_DIR)/bench/e2e_bench --cli $(CLI) --server $(BUILD_DIR)/server/wasserwarp-server \
	  --dir $(E2E_DIR) $(E2E_ARGS)
	/usr/bin/python3 bench/web_view_bench.py --server $(BUILD_DIR)/server/wasserwarp-server \
	  --cli $(CLI) --example-data $(BUILD_DIR)/examples/wasserwarp-example-data

# The default path (lazy where it pays) against --exhaustive through `wasserwarp validate`, on
# n x m runs from 10 x 10 to 5000 x 5000 of 1 to 20 000 samples, 1 and 3 channels, with and
# without a verdict (bench/path_sweep.cc; regimes over --max_cells are skipped and say so); then
# the sweep's one-sample runs of 2000 x 2000 and 2000 x 3000 through the whole CLI against scipy's
# linear_sum_assignment and POT's emd2 solve alone, where python3-scipy and python3-pot are
# installed (apt-get install -y python3-scipy python3-pot; only this target uses them).
PATHS_DIR  ?= $(BUILD_DIR)/path_sweep
PATHS_ARGS ?=
bench-paths: build
	$(BUILD_DIR)/bench/path_sweep --cli $(CLI) --dir $(PATHS_DIR) $(PATHS_ARGS)
	@/usr/bin/python3 -c 'import scipy, ot' 2>/dev/null || \
	  { echo "the comparison with scipy and POT needs apt-get install -y python3-scipy python3-pot"; exit 0; }; \
	/usr/bin/python3 bench/cli_vs_scipy_pot.py --cli $(CLI) --dir $(PATHS_DIR)

# A bounded load test: concurrent clients create sessions, upload and validate against a
# wasserwarp-server it starts on loopback, then it prints calls/s, latency and errors.
LOAD_ARGS ?= --clients 32 --seconds 60
load: build
	$(BUILD_DIR)/bench/load $(LOAD_ARGS)

# Sanitizer builds with clang-14, -O1 -g1 (line tables for the reports), assertions on; the
# TWED kernels at -O2 under ASan (src/twed/CMakeLists.txt), the tests at -O0 (tests/).
# Debian's libraries are not instrumented: they are checked only where they touch our memory.
# One build serves test-asan and fuzz: every test and the libFuzzer harnesses under ASan+UBSan,
# with libFuzzer's coverage compiled into the libraries the harnesses reach (CMakeLists.txt).
SANITIZER_CMAKE := -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DWASSERWARP_BUILD_BENCHMARKS=OFF
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  TSAN_OPTIONS=second_deadlock_stack=1
ASAN_BUILD_DIR ?= build-asan
TSAN_BUILD_DIR ?= build-tsan
FUZZ_SECONDS   ?= 60
# The server's shared state from many threads: job slots and cancellation, the session
# store, uploads racing deletions. Tests through gRPC are left out: Debian's gRPC hands calls
# between its threads in code TSan cannot see, which makes every reactor look racy. The
# PostgreSQL connection pool too, lent from many threads (it runs a PostgreSQL of its own),
# and replicas racing for the PostgreSQL validation queue.
TSAN_TESTS := server_job_queue_test server_session_store_test server_concurrency_test \
  postgres_store_test validation_store_test validation_worker_test
FUZZERS    := csv_fuzz series_fuzz upload_fuzz mdf4_fuzz

$(ASAN_BUILD_DIR)/build.ninja:
	cmake -S . -B $(ASAN_BUILD_DIR) $(SANITIZER_CMAKE) -DWASSERWARP_SANITIZE=address,undefined \
	  -DWASSERWARP_FUZZ=ON

# Every test under AddressSanitizer and UndefinedBehaviorSanitizer but those labelled in
# tests/CMakeLists.txt as repeating covered paths for statistics, or as an uninstrumented consumer
# (Chromium, junitparser) reading our output: `make test` runs them, and here they were a sixth of
# the stage's time for no memory or UB check that other tests do not already make.
SANITIZER_SKIP_LABELS ?= statistical|consumer
test-asan: deps $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	$(SANITIZER_ENV) ctest --test-dir $(ASAN_BUILD_DIR) --output-on-failure -j $(JOBS) \
	  -LE '$(SANITIZER_SKIP_LABELS)'

$(TSAN_BUILD_DIR)/build.ninja:
	cmake -S . -B $(TSAN_BUILD_DIR) $(SANITIZER_CMAKE) -DWASSERWARP_SANITIZE=thread

# The server's concurrency tests under ThreadSanitizer.
test-tsan: deps $(TSAN_BUILD_DIR)/build.ninja
	cmake --build $(TSAN_BUILD_DIR) -j $(JOBS) --target $(TSAN_TESTS)
	@set -e; for t in $(TSAN_TESTS); do \
	  echo "== $$t"; $(SANITIZER_ENV) $(TSAN_BUILD_DIR)/tests/$$t --gtest_brief=1; done

# The libFuzzer harnesses, all at once for FUZZ_SECONDS each, from the seed corpora in
# tests/fuzz/corpus/. What they find goes to $(ASAN_BUILD_DIR)/fuzz-corpus/, each one's output
# to $(ASAN_BUILD_DIR)/<harness>.log, a failing input to $(ASAN_BUILD_DIR)/<harness>-crash-*.
fuzz: deps $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS) --target $(FUZZERS)
	@pids=; for f in $(FUZZERS); do \
	  seeds=tests/fuzz/corpus/$${f%_fuzz}; corpus=$(ASAN_BUILD_DIR)/fuzz-corpus/$$f; \
	  dict=tests/fuzz/$${f%_fuzz}.dict; [ -f $$dict ] && dict=-dict=$$dict || dict=; \
	  mkdir -p $$corpus; \
	  $(SANITIZER_ENV) $(ASAN_BUILD_DIR)/tests/fuzz/$$f $$corpus $$seeds $$dict \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -verbosity=0 \
	    -print_final_stats=1 -artifact_prefix=$(ASAN_BUILD_DIR)/$$f- \
	    > $(ASAN_BUILD_DIR)/$$f.log 2>&1 & pids="$$pids $$!"; \
	done; \
	echo "fuzz: $(FUZZERS), $(FUZZ_SECONDS) s each"; \
	failed=; set -- $$pids; for f in $(FUZZERS); do wait $$1 || failed="$$failed $$f"; shift; done; \
	for f in $(FUZZERS); do \
	  echo "== $$f"; grep -E '^stat::(number_of_executed_units|new_units_added)' \
	    $(ASAN_BUILD_DIR)/$$f.log || true; \
	done; \
	for f in $$failed; do echo "== $$f FAILED:"; tail -n 80 $(ASAN_BUILD_DIR)/$$f.log; done; \
	[ -z "$$failed" ]

.PHONY: load test-asan test-tsan fuzz

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
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(TSAN_BUILD_DIR)

# The container image, with podman and no registry (deploy/README.md). Podman on these machines
# needs runc (crun refuses a hybrid cgroup layout) and explicit ulimits (the defaults are refused).
# The Debian base comes from Debian's packages through mmdebstrap when podman does not have it;
# `make image-base-clean` forgets it, so that the next `make image` makes it again (updates).
IMAGE          ?= localhost/wasserwarp-server:0.1.0
PODMAN         ?= podman --runtime runc
PODMAN_LIMITS  ?= --ulimit nofile=1024:1024 --ulimit nproc=1024:1024
DEBIAN_MIRROR  ?= http://deb.debian.org/debian
DEBIAN_SECURITY_MIRROR ?= http://deb.debian.org/debian-security
DEBIAN_BASE    := docker.io/library/debian:bookworm

# What making, building and testing the image needs on the host: podman (with runc, catatonit
# for pods, and the CNI dnsname plugin for Compose's service names), mmdebstrap, podman-compose.
IMAGE_TOOL_PACKAGES := podman runc catatonit golang-github-containernetworking-plugin-dnsname \
  mmdebstrap podman-compose openssl python3-grpcio python3-yaml

deps-image-tools:
	$(MAKE) deps DEB_PACKAGES="$(IMAGE_TOOL_PACKAGES)"

image-base: deps-image-tools
	@if $(PODMAN) image exists $(DEBIAN_BASE) && $(PODMAN) image exists $(DEBIAN_BASE)-slim; then \
	  echo "image-base: $(DEBIAN_BASE) and -slim are there"; \
	else \
	  set -e; echo "image-base: making $(DEBIAN_BASE) with mmdebstrap"; \
	  mmdebstrap --variant=minbase --quiet bookworm - \
	    "deb $(DEBIAN_MIRROR) bookworm main" "deb $(DEBIAN_MIRROR) bookworm-updates main" \
	    "deb $(DEBIAN_SECURITY_MIRROR) bookworm-security main" \
	  | $(PODMAN) import --change 'CMD ["bash"]' \
	      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	      - $(DEBIAN_BASE); \
	  $(PODMAN) tag $(DEBIAN_BASE) $(DEBIAN_BASE)-slim; \
	fi

image-base-clean:
	-$(PODMAN) rmi $(DEBIAN_BASE)-slim $(DEBIAN_BASE)

# CREATED is the commit's time, not the build's, so that a rebuild of one commit is all cache hits.
image: image-base
	nice -n 10 $(PODMAN) build $(PODMAN_LIMITS) --pull=never --layers \
	  --build-arg REVISION=$$(git rev-parse HEAD 2>/dev/null || echo unknown) \
	  --build-arg CREATED=$$(git log -1 --format=%cI 2>/dev/null || echo unknown) -t $(IMAGE) .
	$(PODMAN) image ls $(IMAGE)

# The image, Compose and Kubernetes tests (tests/image/): real containers, minutes each, so not
# part of `make test` or .ci/run. They validate the demo data through the host's CLI
# (`make build-demo` builds it and the example generator).
IMAGE_TEST_ARGS = --image $(IMAGE) --cli $(CLI) \
  --example-data $(BUILD_DIR)/examples/wasserwarp-example-data \
  --validate-args "$(DEMO_ARGS) $(VERDICT_ARGS)" --podman "$(PODMAN)" --podman-limits "$(PODMAN_LIMITS)"

image-test-tools:
	@for f in $(CLI) $(BUILD_DIR)/examples/wasserwarp-example-data; do \
	  [ -x $$f ] || { echo "$$f is missing: make build-demo BUILD_DIR=$(BUILD_DIR)"; exit 1; }; \
	done

# The image run as the manifests run it: non-root, read-only, TLS and a token; SIGTERM ends it.
test-image: image image-test-tools
	/usr/bin/python3 tests/image/test_image.py $(IMAGE_TEST_ARGS)

# deploy/docker-compose.yml under podman-compose, with stand-ins for PostgreSQL and Prometheus.
test-compose: image image-test-tools
	/usr/bin/python3 tests/image/test_compose.py $(IMAGE_TEST_ARGS)

# deploy/kubernetes/ under `podman kube play`, as far as podman supports its kinds.
test-kube: image image-test-tools
	/usr/bin/python3 tests/image/test_kube.py $(IMAGE_TEST_ARGS)

.PHONY: deps-image build-image-binaries deps-image-tools image-base image-base-clean image \
  image-test-tools test-image test-compose test-kube
