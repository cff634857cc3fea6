# One image for every app of the monorepo.
#
#   docker build -t support-agent:latest .
#   docker run -e APP=gateway  -e DATABASE_URL=postgres://sa_gateway:...@db/... -e NATS_URL=... -p 3000:3000 support-agent:latest
#   docker run -e APP=chat     -e DATABASE_URL=postgres://sa_chat:...@db/...    -e NATS_URL=...              support-agent:latest
#   docker run                 -e DATABASE_URL=<administrator> -e <APP>_DATABASE_URL=... support-agent:latest node dist/tools/migrate/main.js
#   docker run -it             -e GATEWAY_DATABASE_URL=... support-agent:latest node dist/tools/admin/main.js --help
#
# APP is one of: gateway bots knowledge chat leads bookings mcp webhook-dispatcher console evaluations channels.
# It can also be baked in at build time (docker build --build-arg APP=gateway ...).
# Configuration is environment only: see deploy/README.md for every variable.
#
# Every app serves its ops endpoint on OPS_PORT (9464): GET /healthz, GET /readyz (NATS and
# PostgreSQL answer), GET /metrics (Prometheus). No HEALTHCHECK here: the compose file and the
# Kubernetes manifests probe /readyz and /healthz there, each with its own timings.

# Node.js 24, the current LTS line (the test suite runs under it in CI too, see .ci/run), on
# Debian 12: the major line is pinned, its patch releases come with a rebuild.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# build: every dependency, tsc + tsc-alias into dist/, Vite for the console's web application
# (dist/apps/console/web) and the visitor widget (dist/apps/widget/embed.js, served by the gateway)
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV CI=true \
    NX_DAEMON=false \
    NX_NO_CLOUD=true
COPY package.json package-lock.json ./
# npm install, not npm ci: the npm of Node 24 (11.x) refuses `npm ci` with this lockfile (it lacks
# other platforms' optional binaries, e.g. @swc/core-darwin-arm64, which npm 11 itself leaves out
# when it writes the lockfile on Linux). With a lockfile in sync with package.json (exact versions
# here), npm install installs exactly the locked tree, as .ci/run does. See docs/decisions.md.
# --ignore-scripts: the root package's `prepare` script builds, and the sources are not here yet
# (the build runs below, on its own layer). tsc and tsc-alias need no install scripts.
RUN npm install --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps
RUN node tools/build.js

# ---------------------------------------------------------------------------------------------
# runtime: production dependencies and the compiled output only, as the unprivileged node user
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production
# Node keeps the V8 code of the modules it compiles here and reuses it when a container restarts
# (a quarter of an app's start time; /tmp is an emptyDir under Kubernetes' read-only root).
ENV NODE_COMPILE_CACHE=/tmp/node-compile-cache

COPY package.json package-lock.json ./
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# Only what runs: the apps (with the console's web files and the widget's embed.js), the libs they
# require, and the migrate/admin tools.
# (Not dist/.tsbuildinfo or the build stamp.) Files stay owned by root: the app cannot modify
# its own code, and the container runs with a read-only root filesystem in Kubernetes.
COPY --from=build /src/dist/apps ./dist/apps
COPY --from=build /src/dist/libs ./dist/libs
COPY --from=build /src/dist/tools ./dist/tools
COPY --chmod=0755 deploy/docker/entrypoint.sh /usr/local/bin/support-agent

ARG APP=""
# GATEWAY_HOST, CONSOLE_HOST, OPS_HOST: the apps' default (127.0.0.1) is unreachable from outside a container.
ENV APP=${APP} \
    GATEWAY_HOST=0.0.0.0 \
    GATEWAY_PORT=3000 \
    MCP_PORT=3001 \
    CONSOLE_HOST=0.0.0.0 \
    CONSOLE_PORT=3002 \
    OPS_HOST=0.0.0.0 \
    OPS_PORT=9464

LABEL org.opencontainers.image.title="support-agent" \
      org.opencontainers.image.description="Self-hostable support-agent service (all apps; choose one with APP)" \
      org.opencontainers.image.licenses="Apache-2.0"

# gateway: 3000 (/v1, /healthz, /readyz); mcp: 3001 (/mcp, /healthz); console: 3002 (/, /api); every app: 9464 (ops)
EXPOSE 3000 3001 3002 9464

# Uploaded knowledge files (BLOB_STORE=filesystem): a directory the console and the knowledge
# service share through a volume. It exists in the image owned by the app's user, so a fresh Compose
# volume mounted here starts writable.
RUN mkdir -p /var/lib/support-agent/blobs && chown 1000:1000 /var/lib/support-agent/blobs
ENV BLOB_DIR=/var/lib/support-agent/blobs

# The image's `node` user, given numerically so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000

ENTRYPOINT ["/usr/local/bin/support-agent"]
