# syntax=docker/dockerfile:1
# The indexer image: `ponder start` on the project's own sources (indexer/, core/, contracts/artifacts).
# Built by `sst deploy` from the repository root (context ".", see stacks/indexer.ts); never built in CI.
# Configuration arrives at run time: BARDO_CHAIN_ID, BARDO_DEPLOYMENT, BARDO_START_BLOCK and
# DATABASE_SCHEMA as plain variables, BARDO_RPC_URL and DATABASE_URL from SSM SecureString parameters.

FROM node:22-bookworm-slim AS build
WORKDIR /app
# postinstall compiles contracts/src into contracts/artifacts/generated with the solc npm package.
COPY package.json package-lock.json ./
COPY contracts ./contracts
# `npm ci` refuses this lockfile (it lacks other platforms' optional binaries); install resolves them.
RUN npm install --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY core ./core
COPY indexer ./indexer

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    PONDER_TELEMETRY_DISABLED=true \
    DO_NOT_TRACK=1
WORKDIR /app
# RDS's CA bundle, so the database URL can use sslmode=verify-full (RDS_CA_PATH in stacks/indexer.ts).
ADD --chmod=644 https://truststore.pki.rds.amazonaws.com/global/global-bundle.pem /etc/ssl/certs/rds-global-bundle.pem
COPY --from=build --chown=node:node /app /app
# Ponder writes its build cache and generated types next to the app.
USER node
EXPOSE 42069
# ECS runs the health check from the task definition (stacks/indexer.ts); this one serves `docker run`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:42069/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node_modules/.bin/ponder", "start", "--root", "indexer", "--hostname", "0.0.0.0", "--port", "42069", "--log-format", "json"]
