# syntax=docker/dockerfile:1
#
# The Syncline runtime image: `syncline serve` by default (API, webhooks, queue daemon), or any
# other command as arguments (`daemon --http-port 9090`, `migrate`, `validate /definitions`).
#
#   docker build -t syncline .
#   docker run --read-only -v "$PWD/definitions:/definitions:ro" -v syncline-data:/data -p 3000:3000 syncline
#
# Definitions are mounted read-only at /definitions; the runtime database is SYNCLINE_DB (an SQLite
# file on the /data volume by default, or postgres://… for several replicas). The root file
# system may be read-only: the runtime writes nothing outside /data (and /tmp, which it does not
# need). test/integration/package/packed-install.test.ts replays this file's ENV, USER and command
# from the packed package, and builds and runs the image itself where Docker is present.

# Node.js 22 is the supported LTS line (20 has reached its end of life).
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY package.json package-lock.json ./
# Scripts are skipped here (they would build the test servers' native modules too); the one native
# module the runtime needs, sqlite3, is built on its own below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm rebuild sqlite3 \
  && node bin/build.js --clean \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -f dist/.tsbuildinfo

FROM ${NODE_IMAGE}
ENV NODE_ENV=production SYNCLINE_HOST=0.0.0.0 SYNCLINE_PORT=3000 SYNCLINE_DEFINITIONS=/definitions SYNCLINE_DB=/data/syncline.db
WORKDIR /app
COPY --from=build /build/package.json ./package.json
COPY --from=build /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY --from=build /build/bin/syncline.js ./bin/syncline.js
COPY --from=build /build/definitions/syncline.schema.json ./definitions/syncline.schema.json
RUN mkdir -p /data /definitions && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.SYNCLINE_PORT||3000}/healthz`).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: stop taking requests and claims, let running items finish (SYNCLINE_DRAIN_TIME), exit.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/bin/syncline.js"]
CMD ["serve"]
