# guardgate as a container: built in stages, run from a slim image with production dependencies
# only, as the unprivileged `node` user. See docs/deploy.md.

# Node 22, an LTS line, pinned by digest (both stages use the same image): a new digest is a
# deliberate change, checked with `docker buildx imagetools inspect node:22-bookworm-slim`. Not yet
# Node 24: better-sqlite3 12 aborts the process there when the garbage collector frees a statement
# (node::RemoveEnvironmentCleanupHook's check); better-sqlite3 13 (Node-API) does not.

# What the native modules (re2, better-sqlite3) need to build when no prebuilt binary fits.
FROM node:22.23.3-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c AS toolchain
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*

# Production dependencies. Install scripts are off (the package's own `prepare` builds with dev
# tools); the two native modules are then built or fetched on their own.
FROM toolchain AS deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm rebuild re2 better-sqlite3

# The build: every dependency, then the TypeScript compiler's output and the console in dist/.
# Every source `npm run build` reads is copied: test/deploy.test.ts runs this stage's COPY list.
# The compiler and the bundler load no native module, so none is built here: the image takes
# re2 and better-sqlite3 from the deps stage, which builds them once.
FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json index.ts ./
COPY core ./core
COPY plugins ./plugins
COPY server ./server
COPY cli ./cli
COPY scripts ./scripts
COPY templates ./templates
COPY console ./console
RUN npm run build

# The image: Node, production dependencies and the build; nothing else.
FROM node:22.23.3-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
COPY --chown=root:root templates ./templates
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8787
# Ready, not merely up: the store, Redis and the worker pool answer and the models are loaded.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/bin.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8787", "--data-dir", "/data"]
