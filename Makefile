# SPDX-License-Identifier: GPL-2.0
#
# tracebuf top-level Makefile.
#
#   make                 module (against KDIR), client library and tool
#   make check           every test: unit, lint, builds, all guest kernels
#   make check-quick     unit tests and the x86_64 6.1 guest only
#   make check-kcsan     the data-ring and lifetime tests on an x86_64 KCSAN
#                        kernel (opt-in, not part of make check)
#   make check-acpi      only the CoreSight tests on the arm64 6.1 and 6.12
#                        guests booted with UEFI and ACPI (make check runs
#                        them too)
#   make demo            in a guest: modprobe, record; on the host: decode, a call trace
#   make bench           data ring vs BPF ringbuf/perfbuf, AUX drain, from a guest (numbers)
#   make lint            checkpatch --strict and sparse; silent when clean
#   make install         library, tool, man pages, udev rule, modprobe.d example
#   make dkms-install    register, build and install the module with DKMS
#
# Cross-build: make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=...

SHELL		:= /bin/bash
KDIR		?= /lib/modules/$(shell uname -r)/build
O		?= $(CURDIR)/build
PREFIX		?= /usr/local
DESTDIR		?=
VERSION		:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
CACHE_DIR	:= $(shell . tests/harness/lib.sh && echo $$TRACEBUF_CACHE)

ifneq ($(CROSS_COMPILE),)
USER_CC		?= $(CROSS_COMPILE)gcc
else
USER_CC		?= $(CC)
endif
KBUILD_ARGS	:= $(if $(ARCH),ARCH=$(ARCH)) $(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE))

.PHONY: all module userspace install install-config dkms-install dkms-uninstall \
	deps check check-quick demo bench lint lint-results clean

all: module userspace

module:
	@test -d "$(KDIR)" || { echo "tracebuf: no kernel headers at KDIR=$(KDIR)"; \
		echo "  install them (apt-get install linux-headers-$$(uname -r)) or pass KDIR=..."; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module $(KBUILD_ARGS) modules

userspace:
	$(MAKE) -C userspace O=$(O)/user CC=$(USER_CC) $(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE))

install: userspace install-config
	$(MAKE) -C userspace O=$(O)/user CC=$(USER_CC) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) install

# The udev rule is opt-in: it only takes effect for members of group
# 'tracebuf', which the administrator creates (groupadd --system tracebuf).
install-config:
	install -D -m 644 userspace/etc/60-tracebuf.rules $(DESTDIR)/etc/udev/rules.d/60-tracebuf.rules
	install -D -m 644 userspace/etc/tracebuf.conf $(DESTDIR)/usr/share/doc/tracebuf/examples/modprobe.d/tracebuf.conf

DKMS_SRC := $(DESTDIR)/usr/src/tracebuf-$(VERSION)
dkms-install:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	cp -a module include dkms.conf $(DKMS_SRC)/
	dkms add -m tracebuf -v $(VERSION)
	dkms build -m tracebuf -v $(VERSION)
	dkms install -m tracebuf -v $(VERSION)

dkms-uninstall:
	dkms remove -m tracebuf -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

deps:
	@bash tests/harness/deps.sh

check:
	@bash tests/harness/deps.sh
	@bash tests/run.sh

check-quick:
	@bash tests/harness/deps.sh --quick
	@bash tests/run.sh --quick

.PHONY: check-kcsan
check-kcsan:
	@bash tests/harness/deps.sh --quick
	@bash tests/run.sh --kcsan

.PHONY: check-acpi
check-acpi:
	@bash tests/harness/deps.sh --quick
	@bash tests/harness/kernels.sh arm64-6.1 arm64-6.12
	@bash tests/run.sh --acpi

demo:
	@bash tests/harness/deps.sh --quick
	@bash tests/harness/demo.sh

bench:
	@bash tests/harness/deps.sh --quick
	@bash tests/harness/bench.sh

# Lint runs against the x86_64 and arm64 6.1 headers from the private cache
# (or LINT_KDIR / LINT_KDIR_ARM64 when given).
LINT_KDIR	?= $(shell cat $(CACHE_DIR)/kernels/x86_64-6.1/KDIR 2>/dev/null)
# The CoreSight backend is arm64-only: sparse runs there too (cross).
LINT_KDIR_ARM64	?= $(shell cat $(CACHE_DIR)/kernels/arm64-6.1/KDIR 2>/dev/null)
CHECKPATCH	:= perl $(CACHE_DIR)/tools/scripts/checkpatch.pl --no-tree --strict --quiet \
		   --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG
LINT_FILES	:= $(wildcard module/*.c module/*.h include/uapi/*.h)
# compat.h is, by design, the one file that tests LINUX_VERSION_CODE.

lint:
	@test -f $(CACHE_DIR)/tools/scripts/checkpatch.pl -a -n "$(LINT_KDIR)" || \
		{ echo "lint needs the harness tools: run 'make deps'"; exit 1; }
	@rc=0; for f in $(LINT_FILES); do \
		case $$f in \
		module/compat.h) extra="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON" ;; \
		*) extra= ;; \
		esac; \
		$(CHECKPATCH) $$extra -f $$f || rc=1; \
	done; \
	rm -rf $(O)/lint && mkdir -p $(O)/lint && cp -a module include dkms.conf $(O)/lint/ && \
	$(MAKE) -s -C $(LINT_KDIR) M=$(O)/lint/module C=2 modules >$(O)/lint/sparse.log 2>&1 || rc=1; \
	if [ -n "$(LINT_KDIR_ARM64)" ]; then \
		rm -rf $(O)/lint-arm64 && mkdir -p $(O)/lint-arm64 && \
		cp -a module include dkms.conf $(O)/lint-arm64/ && \
		$(MAKE) -s -C $(LINT_KDIR_ARM64) ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			M=$(O)/lint-arm64/module C=2 modules >>$(O)/lint/sparse.log 2>&1 || rc=1; \
	fi; \
	grep -E 'warning:|error:' $(O)/lint/sparse.log && rc=1; exit $$rc

# The same, as result lines for tests/run.sh.
lint-results:
	@out=$$($(MAKE) -s lint 2>&1); \
	if [ -z "$$out" ]; then echo "PASS lint/checkpatch-sparse"; \
	else echo "$$out" | head -n 40; echo "FAIL lint/checkpatch-sparse"; fi

clean:
	rm -rf $(O)
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR)/module clean
