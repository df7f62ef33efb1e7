#!/usr/bin/env bash
# Build the native core (native/, Rust) into sitesift._native and install sitesift editable
# into .venv, with profile-guided optimisation (PGO) where the toolchain has llvm-profdata.
# Usage: scripts/build_native.sh [--check-only]   (called by scripts/setup.sh)
#
# PGO, as pydantic-core builds its wheels: an instrumented build, the bundled samples run
# through it (scripts/pgo_workload.py), the counts merged, and the release build compiled
# with them, so that LLVM lays out html5ever's tokenizer and the core's branches by how
# often they are taken: about a quarter fewer instructions in the parse and the same output
# byte for byte (docs/native.md). It costs a second compile (2-3 minutes). llvm-profdata
# must match rustc's LLVM: rustup's llvm-tools component (added here when rustup is
# there); without it the build is the plain release build, and says so.
# SITESIFT_PGO=0 builds without PGO. --check-only: the sources are unchanged since the last
# build, so only reinstall (cargo finds nothing to do when the flags are the same).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "sitesift setup: $*" >&2; }
source scripts/rust_env.sh

PGO_DIR="$PWD/native/target/pgo"
PROFILE="$PGO_DIR/merged.profdata"
BASE_FLAGS="${RUSTFLAGS:-}"
develop() {  # maturin develop, its pip lines (stdout) hidden, cargo's (stderr) shown
    VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release >/dev/null
}
use_flags() { echo "$BASE_FLAGS -Cprofile-use=$PROFILE -Cllvm-args=-no-pgo-warn-mismatch"; }

if [ "${1:-}" = "--check-only" ]; then
    if [ -f "$PROFILE" ] && [ "${SITESIFT_PGO:-1}" != 0 ]; then
        RUSTFLAGS="$(use_flags)" develop
    else
        develop
    fi
    exit 0
fi

profdata() {  # the llvm-profdata of rustc's own LLVM, or nothing
    local tool
    tool="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
    if [ ! -x "$tool" ] && command -v rustup >/dev/null 2>&1; then
        say "adding rustup's llvm-tools component (llvm-profdata, for the profile-guided build)"
        rustup component add llvm-tools >&2 || true
    fi
    if [ -x "$tool" ]; then echo "$tool"; fi
}

TOOL=""
if [ "${SITESIFT_PGO:-1}" != 0 ]; then
    TOOL=$(profdata)
    if [ -z "$TOOL" ]; then
        say "no llvm-profdata for rustc's LLVM (rustup's llvm-tools component): building" \
            "without profile-guided optimisation"
    fi
fi
if [ -z "$TOOL" ]; then
    rm -f "$PROFILE"
    develop
    exit 0
fi

say "profile-guided build, step 1 of 3: the instrumented native core (its own target folder)"
rm -rf "$PGO_DIR"
mkdir -p "$PGO_DIR/raw"
RUSTFLAGS="$BASE_FLAGS -Cprofile-generate=$PGO_DIR/raw" CARGO_TARGET_DIR="$PWD/native/target/pgo-generate" \
    develop
rm -f "$PGO_DIR"/raw/*  # (counts of build scripts run during the build)
say "profile-guided build, step 2 of 3: the bundled samples through the instrumented core" \
    "(scripts/pgo_workload.py)"
if ! LLVM_PROFILE_FILE="$PGO_DIR/raw/%m_%p.profraw" OMP_NUM_THREADS=1 \
        .venv/bin/python scripts/pgo_workload.py "$PGO_DIR/workload" >"$PGO_DIR/workload.log" 2>&1; then
    cat "$PGO_DIR/workload.log" >&2
    say "the profile workload failed (above): no build"
    exit 1
fi
"$TOOL" merge -o "$PROFILE" "$PGO_DIR"/raw/*.profraw
say "profile-guided build, step 3 of 3: the release build compiled with the profile"
RUSTFLAGS="$(use_flags)" develop
