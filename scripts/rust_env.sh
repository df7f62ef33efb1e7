# Sourced by setup.sh and test.sh: put cargo on PATH (rustup's ~/.cargo/bin when the shell
# did not add it), or stop with what to install.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "sitesift: installing needs a Rust toolchain (cargo and rustc 1.85 or newer) to build" >&2
    echo "its native core (native/); none was found on PATH or in ~/.cargo/bin." >&2
    echo "Install one with rustup (https://rustup.rs) and run this again." >&2
    exit 1
fi
