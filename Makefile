# Herald: `make run` starts the server on embedded defaults; `make test` runs every test.
SWIFT ?= swift

.PHONY: deps build run run-release test faults faults-smoke faults-selftest bench bench-cluster bench-smoke clean

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build --product herald

# The server on embedded defaults: SQLite under ./data, http://127.0.0.1:8580.
run: build
	$(SWIFT) run --skip-build herald serve --config Config/herald.dev.yaml

run-release: deps
	$(SWIFT) build -c release --product herald
	.build/release/herald serve --config Config/herald.dev.yaml

# Builds once (the tests and both executables), then runs every check in two lanes side by side
# (scripts/test-lanes.sh): the end-to-end suites in one; the pure suites, the other serial suites,
# the fault checker's self-test, the fault harness's short run and the benchmarks' smoke run in
# the other. CI runs exactly this (.ci/run).
test: deps
	$(SWIFT) build --build-tests
	bash scripts/test-lanes.sh

# The fault harness (scripts/faults, docs/faults.md): real nodes on a real PostgreSQL, every
# scenario over SEEDS (make faults SEEDS=1-20 for a longer hunt). faults-smoke is the short run
# make test includes: every scenario once, small. faults-selftest feeds the checker histories that
# must fail.
SEEDS ?= 1-5

faults: build faults-selftest
	python3 scripts/faults/run.py --scenario all --seeds $(SEEDS)

faults-smoke: build faults-selftest
	python3 scripts/faults/run.py --scenario all --seeds 1 --quick

faults-selftest:
	python3 -m unittest discover -s scripts/faults -p 'test_*.py'

# Release-mode benchmarks; prints one table.
bench: deps
	bash Benchmarks/run.sh

# Several nodes: 1, 2 and 3 herald serve nodes on one PostgreSQL beside one on SQLite (release).
bench-cluster: deps
	bash Benchmarks/run.sh --cluster

# The same benchmark code paths on tiny sizes in debug mode (make test runs this).
bench-smoke: deps
	bash Benchmarks/run.sh --smoke

clean:
	rm -rf .build .build-release data
