#!/usr/bin/env bash
# Debian packages the test suite needs beyond Node.js and npm. Installs only what is missing,
# so it is quick to re-run. Add a package here when a test starts a component from it
# (PostgreSQL, Slurm, Chromium, …), never in the tests themselves.
set -euo pipefail

# Nothing yet: the catalog and matrix tests need only Node.js.
PACKAGES=()

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system dependencies: ${PACKAGES[*]:-none needed} (all present)"
  exit 0
fi
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
