# syntax=docker/dockerfile:1
#
# One image recipe for every app in the monorepo. Pick the app with the APP build arg:
#   docker build --build-arg APP=edge -t chat-gateway/edge .
# APP is one of: edge, auth-service, quota-service, billing-service, provider-sim, ctl.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------
# build: full install (dev deps included) and esbuild bundle of every app
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src

COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund

COPY tsconfig*.json ./
COPY tools/ ./tools/
COPY apps/ ./apps/
COPY libs/ ./libs/
COPY proto/ ./proto/

# Bundles every app (shared layer for all APP values), then checks the chosen one exists.
RUN npm run build

ARG APP
RUN test -n "${APP}" || { echo "build arg APP is required" >&2; exit 1; }; \
    test -f "dist/apps/${APP}/main.js" || { echo "no bundle for APP=${APP} (expected dist/apps/${APP}/main.js)" >&2; exit 1; }

# ---------------------------------------------------------------------------
# prod-deps: runtime node_modules only (bundles keep node_modules external)
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /src

COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund

# ---------------------------------------------------------------------------
# runtime: production deps + the one selected bundle, run as non-root `node`
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG APP
ENV APP=${APP} \
    NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps

WORKDIR /app
COPY --from=prod-deps /src/node_modules ./node_modules
COPY --from=build /src/dist/apps/${APP} ./dist/apps/${APP}

# The image's built-in `node` user (uid/gid 1000). Files stay root-owned and
# read-only to it, so the container also works with readOnlyRootFilesystem.
USER 1000:1000

# `exec` replaces the shell with node, so node is PID 1 and receives SIGTERM
# directly. Extra arguments (e.g. for ctl) are passed through to the app.
ENTRYPOINT ["/bin/sh", "-c", "exec node \"dist/apps/${APP}/main.js\" \"$@\"", "--"]
CMD []
