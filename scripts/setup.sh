#!/usr/bin/env bash
# Create .venv (if missing) and install sitesift into it, editable, with the given extras.
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh test,report
#
# It says what it does before each step: the Python packages come from PyPI through pip, and
# the native core (native/, Rust) is compiled by cargo through maturin, with cargo's progress
# shown, profile-guided (scripts/build_native.sh: an instrumented build, the bundled samples
# through it, the release build with the counts; 5-7 minutes the first time: the release
# profile links with full LTO). A run that finds .venv current skips both: the same
# pyproject.toml, the extras asked for already installed, and sitesift/_native*.so built
# from the native sources as they are now (their content is hashed into
# .venv/sitesift-setup.stamp; a changed Rust file is always rebuilt, never used stale).
# SITESIFT_SETUP_FORCE=1 installs again whatever the stamp says; SITESIFT_PGO=0 builds
# without the profile (one compile).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
EXTRAS="${1:-}"
STAMP=.venv/sitesift-setup.stamp
say() { echo "sitesift setup: $*" >&2; }

# The default cleaner's core is Rust (native/), compiled by maturin during the install.
source scripts/rust_env.sh

# What the install is built from: pyproject.toml (dependencies, extras, maturin settings), and
# every file of the native crate, hashed here (names and contents; native/target is the
# build's own).
native_hash() {
    find native -path native/target -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum \
        | sha256sum | cut -d' ' -f1
}
so_hash() {
    local so
    so=$(find src/sitesift -maxdepth 1 -name '_native*.so' | LC_ALL=C sort | head -1)
    if [ -n "$so" ]; then sha256sum "$so" | cut -d' ' -f1; else echo none; fi
}
stamp_field() { sed -n "s/^$1 //p" "$STAMP" 2>/dev/null || true; }
# every extra of the comma-separated $1 is among those of the comma-separated $2
extras_within() {
    local e
    for e in ${1//,/ }; do
        case ",$2," in *",$e,"*) ;; *) return 1 ;; esac
    done
}
# .venv is current: the stamp matches the sources, the built .so and the extras, and the
# installed package imports its native core
current() {
    [ -z "${SITESIFT_SETUP_FORCE:-}" ] && [ -f "$STAMP" ] && [ -x .venv/bin/sitesift ] \
        && [ "$(stamp_field pyproject)" = "$PYPROJECT" ] && [ "$(stamp_field native)" = "$NATIVE" ] \
        && [ "$(stamp_field so)" = "$(so_hash)" ] \
        && extras_within "$EXTRAS" "$(stamp_field extras)" \
        && .venv/bin/python -c "import sitesift._native" 2>/dev/null
}

PYPROJECT=$(sha256sum pyproject.toml | cut -d' ' -f1)
NATIVE=$(native_hash)
if current; then
    say ".venv is current (extras: ${EXTRAS:-none}; the native core built from the current" \
        "native/ sources): nothing to install"
    exit 0
fi
if [ ! -x .venv/bin/python ]; then
    say "creating the virtual environment .venv/ ($PYTHON -m venv)"
    "$PYTHON" -m venv .venv
fi
# extras already installed from this very pyproject.toml stay counted; a native core built
# from these very sources is only checked by cargo
KEEP=""
BUILT=""
if [ -f "$STAMP" ] && [ "$(stamp_field pyproject)" = "$PYPROJECT" ]; then
    KEEP=$(stamp_field extras)
fi
if [ -f "$STAMP" ] && [ "$(stamp_field native)" = "$NATIVE" ] \
        && [ "$(stamp_field so)" = "$(so_hash)" ]; then
    BUILT=1
fi
rm -f "$STAMP"

# The requirements: maturin (to build) and sitesift's dependencies with the extras, as
# pyproject.toml lists them.
REQS=$(.venv/bin/python - "$EXTRAS" <<'EOF'
import sys, tomllib
with open("pyproject.toml", "rb") as fh:
    meta = tomllib.load(fh)
reqs = list(meta["build-system"]["requires"]) + list(meta["project"]["dependencies"])
extras = meta["project"].get("optional-dependencies", {})
for name in filter(None, (e.strip() for e in sys.argv[1].split(","))):
    if name not in extras:
        sys.exit(f"sitesift setup: no extra {name!r} in pyproject.toml (extras: "
                 f"{', '.join(sorted(extras))})")
    reqs += extras[name]
print("\n".join(reqs))
EOF
)
mapfile -t REQUIREMENTS <<< "$REQS"
say "installing Python packages into .venv/ with pip from PyPI: maturin and sitesift's" \
    "dependencies${EXTRAS:+, with the extras $EXTRAS} (the first time: a few minutes," \
    "mostly downloads; packages already there are kept)"
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
# pip's own lines, less the "already satisfied" ones: one line per package fetched; its
# warnings and errors (stderr) pass as they are
.venv/bin/python -m pip install --progress-bar off "${REQUIREMENTS[@]}" | awk '
    function show() { if (name != "") print "  pip: collecting " name size; fflush(); name = "" }
    /^Collecting / { show(); name = $2; size = "" }
    /^ *Downloading .*\([0-9.]+ [kM]B\)$/ { match($0, /\([0-9.]+ [kM]B\)$/); size = " " substr($0, RSTART); show() }
    /^Installing collected packages: / { show(); print "  pip: installing " NF - 3 " packages" }
    /^Successfully installed / { show(); print "  pip: installed " NF - 2 " packages" }
    END { show() }' >&2

# maturin develop installs the package editable (the .pth to src/, the `sitesift` command)
# and builds with cargo in native/target/, reused by every later run; cargo's lines and
# progress (stderr) show, pip's (stdout: the dependencies just installed) do not.
if [ -n "$BUILT" ]; then
    say "installing sitesift editable with maturin; the native core (native/) is unchanged" \
        "since it was built: cargo only checks it (seconds)"
    bash scripts/build_native.sh --check-only
else
    say "compiling the native core (native/, Rust: cargo through maturin, release build) into" \
        "sitesift._native, profile-guided (scripts/build_native.sh): two compiles of ~2-3" \
        "minutes each the first time and after a change in native/ (the release build links" \
        "with full LTO; native/target/ keeps cargo's build between runs)"
    bash scripts/build_native.sh
fi

.venv/bin/python -c "import sitesift._native" || {
    say "the installed package does not import its native core (above: why)"; exit 1; }
ALL=$(echo "${KEEP},${EXTRAS}" | tr ',' '\n' | sed '/^$/d' | LC_ALL=C sort -u | paste -sd, -)
{ echo "pyproject $PYPROJECT"
  echo "native $NATIVE"
  echo "so $(so_hash)"
  echo "extras $ALL"
} > "$STAMP"
say "done: .venv is ready (source .venv/bin/activate puts sitesift on PATH); a later run" \
    "skips the install while pyproject.toml, native/ and the extras stay the same"
