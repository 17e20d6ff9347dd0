# Herald: `make run` starts the server on embedded defaults; `make test` runs every test.
SWIFT ?= swift

.PHONY: deps build run run-release test faults faults-smoke bench bench-cluster bench-smoke clean

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

PURE_SUITES = ^(HeraldCoreTests|HeraldCryptoTests|HeraldStorageTests|HeraldSchedulerTests)\.

# Builds once, then runs every suite: the pure and storage suites in parallel; the suites that
# start servers and child processes and check deadlines one at a time, since on a small machine
# they would otherwise starve each other of CPU.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(PURE_SUITES)'
	$(SWIFT) test --skip-build --no-parallel --skip '$(PURE_SUITES)'

# The fault harness (scripts/faults, docs/faults.md): real nodes on a real PostgreSQL, every
# scenario over 20 seeds. faults-smoke is the short run CI makes: every scenario once, small.
faults: build
	python3 scripts/faults/run.py --scenario all --seeds 1-20

faults-smoke: build
	python3 scripts/faults/run.py --scenario all --seeds 1 --quick

# Release-mode benchmarks; prints one table.
bench: deps
	bash Benchmarks/run.sh

# Several nodes: 1, 2 and 3 herald serve nodes on one PostgreSQL beside one on SQLite (release).
bench-cluster: deps
	bash Benchmarks/run.sh --cluster

# The same benchmark code paths on tiny sizes in debug mode (CI runs this).
bench-smoke: deps
	bash Benchmarks/run.sh --smoke

clean:
	rm -rf .build .build-release data
