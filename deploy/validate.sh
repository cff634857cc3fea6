#!/usr/bin/env bash
# Offline checks of the container and Kubernetes files: no Docker engine and no cluster needed.
#
#   bash deploy/validate.sh
#
# What it checks, in order (each step prints what it verified):
#   1. YAML: docker-compose.yml and every deploy/**/*.yaml parse (duplicate keys are errors)
#   2. Dockerfile: lint (dockerfile-utils), the image's required shape, .dockerignore vs COPY
#   3. Entrypoint: deploy/docker/entrypoint.sh under sh -n, and its APP handling against stubs
#   4. Compose: `docker compose config` (or docker-compose v1) when a Compose CLI is installed;
#      always the Compose Specification JSON schema plus the stack's required shape
#   5. Kustomize: base, overlays/dev and overlays/prod render (`kubectl kustomize`, or `kustomize`)
#   6. Kubernetes: every rendered object against the Kubernetes schema (kubernetes-models),
#      unknown fields through TypeScript's excess-property check, and the project's rules
#      (security context, probes, network policies, HPAs, PDBs, ...)
#
# Its Node tools (deploy/validate/package.json, pinned by its package-lock.json) are installed
# with npm into $DEPLOY_TOOLS_DIR (default: a directory under ${TMPDIR:-/tmp}), never into the
# repository. Exits non-zero when any check fails, or when no kustomize renderer is found.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPLOY="$ROOT/deploy"
TOOLS_DIR="${DEPLOY_TOOLS_DIR:-${TMPDIR:-/tmp}/support-agent-deploy-tools}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
skipped=0
failures=()

step() { printf '\n== %s\n' "$*"; }
pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$*"; }
fail() { failed=$((failed + 1)); failures+=("$*"); printf 'FAIL %s\n' "$*"; }
skip() { skipped=$((skipped + 1)); printf 'SKIP %s\n' "$*"; }
# run NAME CMD...: runs a check, its output indented, and records the result.
run() {
  local name="$1"
  shift
  if "$@" >"$WORK/out" 2>&1; then
    sed 's/^/  /' "$WORK/out"
    pass "$name"
  else
    sed 's/^/  /' "$WORK/out"
    fail "$name"
  fi
}

# ------------------------------------------------------------------------------------------
step "tools"
if ! command -v node >/dev/null 2>&1; then
  echo "node is required" >&2
  exit 2
fi
echo "node $(node --version), npm $(npm --version 2>/dev/null)"
mkdir -p "$TOOLS_DIR"
if ! cmp -s "$DEPLOY/validate/package-lock.json" "$TOOLS_DIR/package-lock.json" || [ ! -d "$TOOLS_DIR/node_modules" ]; then
  cp "$DEPLOY/validate/package.json" "$DEPLOY/validate/package-lock.json" "$TOOLS_DIR/"
  echo "installing validation tools into $TOOLS_DIR"
  if ! npm ci --prefix "$TOOLS_DIR" --no-audit --no-fund --ignore-scripts --loglevel=error >"$WORK/npm.log" 2>&1; then
    cat "$WORK/npm.log"
    echo "could not install the validation tools" >&2
    exit 2
  fi
fi
# The checks import their packages relative to their own location: run them from TOOLS_DIR.
cp "$DEPLOY"/validate/*.mjs "$TOOLS_DIR/"
echo "tools in $TOOLS_DIR: $(cd "$TOOLS_DIR" && node -e 'const d=require("./package.json").dependencies;console.log(Object.entries(d).map(([k,v])=>k+"@"+v).join(" "))')"

# ------------------------------------------------------------------------------------------
step "1. YAML syntax"
mapfile -t yaml_files < <(cd "$ROOT" && { echo docker-compose.yml; find deploy -name '*.yaml' -o -name '*.yml' | grep -v '/node_modules/' | sort; })
yaml_check() { (cd "$ROOT" && node "$TOOLS_DIR/yaml-parse.mjs" "${yaml_files[@]}"); }
run "YAML parses (${#yaml_files[@]} files)" yaml_check

# ------------------------------------------------------------------------------------------
step "2. Dockerfile"
run "Dockerfile lint and shape" node "$TOOLS_DIR/dockerfile.mjs" "$ROOT"

# ------------------------------------------------------------------------------------------
step "3. Container entry point"
entrypoint_check() {
  local ep="$DEPLOY/docker/entrypoint.sh" dir="$WORK/ep" out code
  sh -n "$ep" || { echo "sh -n: syntax error"; return 1; }
  echo "sh -n: ok"
  [ -x "$ep" ] || { echo "not executable (git mode 100755 expected)"; return 1; }
  mkdir -p "$dir/dist/tools/migrate" "$dir/dist/tools/admin"
  for app in gateway bots knowledge chat leads bookings mcp webhook-dispatcher console evaluations channels; do
    mkdir -p "$dir/dist/apps/$app/src"
    echo "console.log('started ' + process.env.APP)" >"$dir/dist/apps/$app/src/main.js"
  done
  rm "$dir/dist/apps/leads/src/main.js"
  echo "console.log('migrate ' + process.argv.slice(2).join(' '))" >"$dir/dist/tools/migrate/main.js"
  echo "console.log('admin ' + process.argv.slice(2).join(' '))" >"$dir/dist/tools/admin/main.js"
  # expect CODE OUTPUT_PATTERN [env...] -- [args...]
  expect() {
    local want="$1" pattern="$2" envs=() args=()
    shift 2
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    args=("$@")
    out="$(cd "$dir" && env -u APP "${envs[@]}" sh "$ep" "${args[@]}" 2>&1)"
    code=$?
    if [ "$code" = "$want" ] && printf '%s' "$out" | grep -q -- "$pattern"; then
      echo "ok: ${envs[*]:-APP unset} ${args[*]:-} -> exit $code"
    else
      echo "FAIL: ${envs[*]:-APP unset} ${args[*]:-} -> exit $code (wanted $want, /$pattern/): $out"
      return 1
    fi
  }
  local rc=0
  expect 0 "started gateway" APP=gateway -- || rc=1
  expect 0 "started webhook-dispatcher" APP=webhook-dispatcher -- || rc=1
  expect 0 "started console" APP=console -- || rc=1
  expect 0 "started channels" APP=channels -- || rc=1
  expect 64 "APP is not set" -- || rc=1
  expect 64 "unknown APP" APP=nope -- || rc=1
  expect 64 "unknown APP" "APP=../../tools/migrate" -- || rc=1
  expect 70 "missing" APP=leads -- || rc=1
  expect 0 "migrate --dry" -- migrate --dry || rc=1
  expect 0 "migrate" APP=gateway -- node dist/tools/migrate/main.js || rc=1
  expect 0 "admin tokens list" -- admin tokens list || rc=1
  return $rc
}
run "entrypoint.sh selects the app and validates APP" entrypoint_check

# ------------------------------------------------------------------------------------------
step "4. docker-compose.yml"
# WEBHOOK_SECRET_KEY is required (${WEBHOOK_SECRET_KEY:?…}): a placeholder key lets Compose render the file.
compose_env=(env "WEBHOOK_SECRET_KEY=${WEBHOOK_SECRET_KEY:-$(printf '%064d' 0)}")
if docker compose version >/dev/null 2>&1; then
  run "docker compose config ($(docker compose version --short 2>/dev/null))" "${compose_env[@]}" docker compose -f "$ROOT/docker-compose.yml" config -q
elif command -v docker-compose >/dev/null 2>&1; then
  run "docker-compose config ($(docker-compose version --short 2>/dev/null), Compose v1)" "${compose_env[@]}" docker-compose -f "$ROOT/docker-compose.yml" config -q
else
  skip "docker compose config: no Compose CLI here (the schema check below still runs)"
fi
run "Compose schema and stack shape" node "$TOOLS_DIR/compose.mjs" "$ROOT/docker-compose.yml"

# ------------------------------------------------------------------------------------------
step "5. kustomize render"
renderer=()
if command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then
  renderer=(kubectl kustomize)
  echo "renderer: kubectl kustomize ($(kubectl version --client 2>/dev/null | tr '\n' ' '))"
elif command -v kustomize >/dev/null 2>&1; then
  renderer=(kustomize build)
  echo "renderer: kustomize build ($(kustomize version 2>/dev/null))"
fi
targets=("base:" "overlays/dev:support-agent-dev" "overlays/prod:support-agent")
if [ "${#renderer[@]}" -eq 0 ]; then
  fail "no kustomize renderer (install kubectl >= 1.21 or kustomize); Kubernetes checks not run"
else
  render() { "${renderer[@]}" "$DEPLOY/$1" >"$WORK/$(basename "$1").yaml"; }
  for t in "${targets[@]}"; do
    dir="${t%%:*}"
    run "render deploy/$dir" render "$dir"
  done

  # ----------------------------------------------------------------------------------------
  step "6. Kubernetes objects"
  for t in "${targets[@]}"; do
    dir="${t%%:*}"
    ns="${t#*:}"
    rendered="$WORK/$(basename "$dir").yaml"
    [ -s "$rendered" ] || { fail "deploy/$dir: nothing rendered"; continue; }
    if [ -n "$ns" ]; then
      run "deploy/$dir: schema, strict fields, rules" node "$TOOLS_DIR/k8s.mjs" "$rendered" "$dir" --namespace "$ns"
    else
      run "deploy/$dir: schema, strict fields, rules" node "$TOOLS_DIR/k8s.mjs" "$rendered" "$dir"
    fi
  done
fi

# ------------------------------------------------------------------------------------------
printf '\n'
if [ "$failed" -gt 0 ]; then
  printf 'failed:\n'
  printf '  %s\n' "${failures[@]}"
fi
printf 'deploy/validate: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ]
