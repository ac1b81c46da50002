# ima-slim: the 2010 IMA memory-hog fix, replayed on mainline (configs/kernel.pin)
# and on 6.12 LTS as a backport (stable/6.12/, selected with KERNEL=6.12).
# `make` builds the variants and prints a summary; `make test` runs every
# check. `make help` lists the verbs. Everything generated lands in build/
# (a backport's in build/<kernel>/).

SHELL := /bin/bash
V ?= vanilla
VARIANTS ?= vanilla baseline fixed
# The EVM suite, on Debian's LSM stack by default (CI runs it on the small
# kernels of configs/evm.config: vanilla-evm evm-lazy fixed-evm).
EVM_VARIANTS ?= vanilla-distro evm-lazy-distro fixed-distro
# The report also measures `seed`, the series up to the 2010 posting's shape,
# `rbtree`, the series up to its last rbtree step (against the hash table
# that follows), two CPUs (throughput, and IMA's locks in /proc/lock_stat
# with the rwlock, the lockless rbtree and the hash table), and Debian's LSM
# stack (noima-distro, its reference, vanilla-distro, evm-lazy-distro (the
# released kernel with EVM's patches alone), fixed-distro: kernels with
# debug info, networking and BPF, the longest builds here), and the small
# guest with Landlock, whose file blob lets a file opened for write keep its
# iint (vanilla-landlock, lookup-landlock: the series before that,
# fixed-landlock).
REPORT_VARIANTS ?= vanilla baseline seed rbtree fixed vanilla-smp fixed-smp rwlock-lockstat \
	rbtree-lockstat fixed-lockstat noima-distro vanilla-distro evm-lazy-distro fixed-distro \
	vanilla-landlock lookup-landlock fixed-landlock
export KERNEL KERNEL_SRC BUILD

.PHONY: all help deps tree src config build boot suite evm-suite kunit kunit-smp kunit-mutants kunit-smp-mutants suite-mutants bench dev export check-patches check-series lockdep \
	stress stress-short stress-demo \
	parse test selftest summary clean clean-src

all: deps
	@scripts/report.sh noima $(REPORT_VARIANTS)
	@scripts/summary.sh noima $(REPORT_VARIANTS)

# Re-render build/report/ from its results.json, without booting; then check it.
.PHONY: report
report: deps
	@/usr/bin/python3 scripts/report.py render "$${BUILD:-build}/report"
	@/usr/bin/python3 scripts/report.py check "$${BUILD:-build}/report"

help:
	@echo 'make                 build noima $(REPORT_VARIANTS), boot each, write the report (build/report/), summarise'
	@echo 'make test            every check; last line "N passed, N failed"'
	@echo 'make deps            install the missing Debian packages (and only those)'
	@echo 'make tree            the pristine tree of the pinned kernel (KERNEL_SRC=/path: yours)'
	@echo 'make src V=variant   the variant worktree, series applied with git am'
	@echo 'make config V=...    tinyconfig + configs/ fragments, checked'
	@echo 'make build V=...     the guest bzImage in build/V/'
	@echo 'make boot V=...      boot it under QEMU + swtpm and verify the IMA log'
	@echo 'make suite           the in-guest IMA suite (KTAP) on $(VARIANTS), table case x variant'
	@echo 'make evm-suite       the in-guest EVM suite (an HMAC key, appraise_tcb) on $(EVM_VARIANTS)'
	@echo 'make kunit V=...     the KUnit suites on UML (kunit.py run; default V=fixed)'
	@echo 'make kunit-smp V=... the KUnit suites on x86_64, 2 CPUs under QEMU, KASAN (default V=fixed)'
	@echo 'make kunit-mutants   each deliberate bug in kunit/mutants/ must fail the cases it names'
	@echo 'make kunit-smp-mutants  the same, on the two-CPU KASAN build, for the mutants that name cases there'
	@echo 'make suite-mutants   four kernels with a deliberate bug each: the in-guest IMA or EVM suite must fail'
	@echo 'make report          re-render build/report/ from its results.json (no boot), and check it'
	@echo 'make bench           the report alone, no summary (REPORT_SWEEP=..., see scripts/report.sh --help)'
	@echo 'make dev             a worktree on branch ima-slim/dev to edit the series'
	@echo 'make export          regenerate patches/ and series from ima-slim/dev'
	@echo 'make check-patches   apply (git am, quilt), export round-trip, b4, checkpatch'
	@echo 'make check-series    every prefix of the series builds, passes KUnit and boots'
	@echo 'make lockdep         the debug variant (lockdep on) under concurrent opens: no splat'
	@echo 'make stress          debug variant under the stress program (~5 min; STRESS_SECONDS=N),'
	@echo '                     failslab on the iint cache, the kcsan variant, then baseline vs fixed'
	@echo 'make stress-short    the same, about a minute of stress and no KCSAN (what CI runs)'
	@echo 'make stress-demo     a deliberately broken IMA: the stress checks must catch it'
	@echo 'make parse LOG=...   re-read a KTAP log (KUnit, suite.ktap) or a guest result folder'
	@echo 'variants: noima vanilla baseline seed rbtree fixed debug kcsan, vanilla-smp fixed-smp'
	@echo '          rwlock-lockstat rbtree-lockstat fixed-lockstat, noima-distro vanilla-distro fixed-distro'
	@echo '          evm-lazy-distro (the released kernel with only the EVM patches),'
	@echo '          vanilla-evm evm-lazy fixed-evm (small kernels for the EVM suite)'
	@echo 'kernels:  mainline (default; configs/kernel.pin, patches/, series) or KERNEL=6.12 (stable/6.12/)'

deps:
	@scripts/deps.sh

tree: deps
	@scripts/tree.sh >/dev/null

src: deps
	@scripts/variant.sh $(V)

config: deps
	@scripts/build.sh $(V) config

build: deps
	@scripts/build.sh $(V) build

boot: build
	@qemu/run.sh $(V) boot

suite: deps
	@scripts/suite.sh $(VARIANTS)

evm-suite: deps
	@scripts/suite.sh --test evm $(EVM_VARIANTS)

kunit: deps
	@scripts/kunit.sh $(if $(filter command line,$(origin V)),$(V),fixed)

kunit-smp: deps
	@scripts/kunit.sh --smp $(if $(filter command line,$(origin V)),$(V),fixed)

kunit-mutants: deps
	@scripts/kunit-mutants.sh

kunit-smp-mutants: deps
	@scripts/kunit-mutants.sh --smp

suite-mutants: deps
	@scripts/suite-mutants.sh

bench: deps
	@scripts/report.sh noima $(REPORT_VARIANTS)

dev: deps
	@scripts/series.sh dev

export: deps
	@scripts/series.sh export $(BRANCH)

lockdep: deps
	@scripts/build.sh debug build
	@qemu/run.sh debug concurrency --timeout 900

stress: deps
	@scripts/stress.sh $(if $(STRESS_SECONDS),--seconds $(STRESS_SECONDS))

stress-short: deps
	@scripts/stress.sh --short

stress-demo: deps
	@scripts/stress-demo.sh

check-series: deps
	@scripts/check-series.sh

check-patches: deps
	@for s in base am standalone quilt export b4 checkpatch; do scripts/series.sh check $$s || exit 1; done

parse:
	@test -n "$(LOG)" || { echo 'usage: make parse LOG=<KTAP log file | guest result folder>' >&2; exit 2; }
	@if [ -d "$(LOG)" ]; then qemu/verify.sh "$(LOG)"; \
	 else /usr/bin/python3 "$$(scripts/tree.sh)/tools/testing/kunit/kunit.py" parse "$(LOG)"; fi

test: deps
	@scripts/test.sh $(VARIANTS)

summary:
	@scripts/summary.sh $(VARIANTS)

clean:
	@scripts/clean.sh

clean-src:
	@scripts/clean.sh --src
