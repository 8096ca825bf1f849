# syntax=docker/dockerfile:1
#
# One recipe, one small image per app. Pick the app with the APP build argument:
#   docker build --build-arg APP=edge -t chat-gateway/edge:1.0.0 .
# APP is a folder of apps/ with a src/main.ts: edge, auth-service, quota-service,
# billing-service, provider-sim or ctl.
#
# The runtime image is distroless Node.js 20 on Debian 12 (the same Debian as the build stages):
# no shell, no package manager, only node, the production node_modules and the app's bundle,
# run as uid 65532. It works with a read-only root file system.

ARG BUILD_IMAGE=node:20-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs20-debian12:nonroot

# build: every dependency, then the esbuild bundles (node_modules stay outside them).
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY tools/build.mjs ./tools/build.mjs
COPY tools/launcher/src ./tools/launcher/src
COPY bench/src ./bench/src
COPY libs ./libs
COPY apps ./apps
RUN node tools/build.mjs --quiet
# Up to here every APP shares the layers; only the copy of its bundle differs.
ARG APP
RUN test -n "${APP}" || { echo "build argument APP is required" >&2; exit 1; }; \
    test -f "dist/apps/${APP}/main.js" || { echo "no app ${APP} (no dist/apps/${APP}/main.js)" >&2; exit 1; }; \
    mkdir /out /tls && cp "dist/apps/${APP}/main.js" "dist/apps/${APP}/main.js.map" /out/

# prod-deps: runtime dependencies only. They are plain JavaScript and WebAssembly, nothing
# compiled for the build machine, and no install script is needed.
FROM ${BUILD_IMAGE} AS prod-deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${RUNTIME_IMAGE} AS runtime
ARG APP
LABEL org.opencontainers.image.title="chat-gateway ${APP}"
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
COPY --from=prod-deps /src/node_modules ./node_modules
COPY --from=build /out/ ./
# An empty /tls owned by the app's user: a new named volume mounted there (compose's tls, where
# `ctl tls init` writes the development certificates) takes this owner.
COPY --from=build --chown=65532:65532 /tls /tls
# Root owns every file; the app only reads them. Numeric, so Kubernetes can verify runAsNonRoot.
USER 65532:65532
# node is PID 1 and gets SIGTERM itself: each app drains on it (SHUTDOWN_GRACE_MS).
# Arguments after the image name reach the app (ctl: `docker run IMAGE account show --account ID`).
ENTRYPOINT ["/nodejs/bin/node", "/app/main.js"]
