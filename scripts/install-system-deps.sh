#!/usr/bin/env bash
# Debian packages the test suite needs beyond Node.js and npm. `npm test` and .ci/run call it first;
# it installs only what is missing, so a second call costs a dpkg query. Add a package here when a
# test starts a component from it (PostgreSQL, Slurm, Chromium, …), never in the tests themselves.
set -euo pipefail

PACKAGES=(
  git # the changelog gate reads revisions (git show) and diffs (git diff), as the reference does; clones llama.cpp's bundle
  cmake # configures the llama.cpp build of llama-server (scripts/llama-server.mjs) for the real-server tests
  ninja-build # the generator that cmake build uses (-G Ninja)
  g++ # compiles llama.cpp/ggml (C and C++) into llama-server
  slurm-wlm # slurmctld + slurmd + sbatch/squeue/scontrol/scancel for the throw-away cluster (test/support/slurm.ts)
  munge # the authentication daemon (munged) and mungekey that Slurm's auth/munge needs
  shellcheck # lints the generated sbatch/launch shell scripts
  util-linux # unshare, mount and flock: InferenceX scripts run with /workspace mounted, job scripts' stand-in containers (namespaces over an assembled root)
  curl # HTTP probes from shell scripts (health checks in generated launch scripts)
  postgresql # initdb + postgres for the throw-away PostgreSQL server the store tests run against (test/support/postgres.ts)
  chromium # the headless browser the dashboard tests and perf drive with playwright-core (/usr/bin/chromium)
  jq # the workflow tests run the generated steps, which filter gh api answers with jq (test/support/gh-stand-in.mjs)
  python3 # the pycompat tests take their expected text from Python's own json.dumps, repr() and format()
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system dependencies: ${PACKAGES[*]:-none needed} (all present)"
  exit 0
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "missing Debian packages: ${missing[*]}; run this script as root (or install sudo) to install them" >&2
    exit 1
  fi
  SUDO=(sudo)
fi
echo "system dependencies: installing ${missing[*]}"
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
