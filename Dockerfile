# syntax=docker/dockerfile:1
#
# One recipe, one small image per app. Pick the app with the APP build argument:
#   docker build --build-arg APP=edge -t chat-gateway/edge:1.0.0 .
# APP is a folder of apps/ with a src/main.ts: edge, auth-service, quota-service,
# billing-service, provider-sim, console, notifier or ctl.
#
# The runtime image is distroless Node.js 22 on Debian 12 (the same Debian as the build stages):
# no shell, no package manager, only node, the app's own production dependencies and its bundle,
# run as uid 65532. It works with a read-only root file system.

ARG BUILD_IMAGE=node:22-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs22-debian12:nonroot

# build: every dependency, then the app's esbuild bundle (node_modules stay outside it), made by
# the same command as its Nx build target, with the package.json and package-lock.json of exactly
# the packages the bundle requires.
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY tools/bundle-project.mjs tools/pruned-lock.mjs ./tools/
COPY libs ./libs
COPY apps ./apps
ARG APP
RUN test -n "${APP}" || { echo "build argument APP is required" >&2; exit 1; }; \
    test -f "apps/${APP}/src/main.ts" || { echo "no app ${APP} (no apps/${APP}/src/main.ts)" >&2; exit 1; }; \
    node tools/bundle-project.mjs "apps/${APP}" && \
    mkdir /out /tls && cp "dist/apps/${APP}/main.js" "dist/apps/${APP}/main.js.map" /out/ && \
    mkdir /deps && cp "dist/apps/${APP}/package.json" "dist/apps/${APP}/package-lock.json" /deps/

# prod-deps: the app's own runtime dependencies, at the versions the tests ran with: only the edge
# has the tokenizer, only the apps with a database have pg, and no image has PGlite (it serves
# local runs without DATABASE_URL). Plain JavaScript and WebAssembly, nothing compiled for the
# build machine, and no install script is needed.
FROM ${BUILD_IMAGE} AS prod-deps
WORKDIR /src
COPY --from=build /deps/ ./
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
