# syntax=docker/dockerfile:1
# ledger-fleet-exporter: build with the dev toolchain, ship only the compiled code and runtime deps.
#   docker build -t ledger-fleet-exporter:local .          (scripts/containers/build-images.sh: the same tag)
#   docker run --rm -p 9715:9715 -p 9716:9716 ledger-fleet-exporter:local   # the demo (9716: simulator API)
#   docker run --rm -p 9715:9715 -v $PWD/fleet.yaml:/config/fleet.yaml:ro \
#     ledger-fleet-exporter:local --config /config/fleet.yaml --listen 0.0.0.0:9715
# The base is a build argument: the public Node image by default (Node.js 26, the current LTS line;
# slim = Debian without extras). Where no registry is reachable (CI), scripts/containers/
# build-images.sh builds a local one from this machine's node and passes
#   --build-arg NODE_IMAGE=lfe-local/node:local
# Any base works that has node, npm, /bin/sh and a `node` user (uid 1000).
ARG NODE_IMAGE=node:26-slim

FROM ${NODE_IMAGE} AS build
# Names the stage's image, so a builder that keeps it (the classic one) can find and remove it.
LABEL org.ledger-fleet-exporter.stage=build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The source revision for ledger_exporter_build_info and --version (no .git in the build context):
#   docker build --build-arg REVISION=$(git rev-parse HEAD) ...
ARG REVISION=unknown
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# glibc's malloc returns large freed buffers to the system instead of keeping them in its heap
# (src/mallocPolicy.ts: ~13 MB less RSS at 1,000 nodes). Read when the process starts.
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# Files stay owned by root: the unprivileged process can read but not modify its own code.
COPY LICENSE ./LICENSE
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY config ./config
COPY alerts ./alerts
COPY grafana ./grafana
# Writable place for evidence records (mount a volume here and point evidence.dir at it).
RUN mkdir -p /data/evidence && chown -R node:node /data
USER node
# 9715: /metrics and the status page; 9716: the demo's simulator control API (demo only).
EXPOSE 9715 9716
# The slim image has no curl: probe /healthz with node itself. HEALTHCHECK_URL overrides the
# address when the exporter listens elsewhere.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL||'http://127.0.0.1:9715/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/cli.js"]
# Inside a container the exporter and the simulator API listen on all interfaces to be reachable
# through the published ports; both are fixed, so the URLs the demo prints are the published ones.
CMD ["demo", "--listen", "0.0.0.0:9715", "--simulator-listen", "0.0.0.0:9716"]
