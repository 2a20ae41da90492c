#!/usr/bin/env bash
# Builds the images CI and test/containers use, from this machine's files and Debian's packages
# only (no image registry is reachable here):
#   lfe-local/busybox        FROM scratch + Debian's static busybox (a shell, nc, users root/node/nobody)
#   lfe-local/prometheus     + prometheus and promtool from Debian's `prometheus` package
#   lfe-local/alertmanager   + alertmanager and amtool from Debian's `prometheus-alertmanager`
#   lfe-local/node           + this machine's node binary, the shared libraries ldd lists, npm
#   ledger-fleet-exporter:local   the repository's Dockerfile built on lfe-local/node
#   ledger-fleet-exporter:build-stage   its build stage, kept as the one build cache (no dangling images)
# A base image carries a hash of its inputs as a label and is not rebuilt while they are unchanged;
# the exporter image reuses Docker's layer cache.
# Usage: scripts/containers/build-images.sh [--bases-only]
# Needs: docker (engine running), busybox-static, node; apt-get for the Prometheus packages.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DOCKER_BUILDKIT=0
here=scripts/containers
work=.tmp/containers
mkdir -p "$work/debs"

log() { printf 'build-images: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
sha() { cat "$@" | sha256sum | cut -c1-16; }

command -v docker >/dev/null || die "docker CLI missing"
docker info >/dev/null 2>&1 || die "no Docker engine answers (start dockerd first)"
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 \
  || die "a static busybox is needed: apt-get install busybox-static"

# up_to_date TAG HASH: true when TAG exists and was built from inputs hashing to HASH.
up_to_date() {
  [ "$(docker image inspect -f '{{index .Config.Labels "lfe.inputs"}}' "$1" 2>/dev/null || true)" = "$2" ]
}

# copy_elf ROOTFS FILE DEST: copies a binary and every shared library ldd lists (with the loader)
# into ROOTFS at the same paths, so it runs without the rest of Debian.
copy_elf() {
  local root=$1 src=$2 dest=$3 lib
  install -D -m 0755 "$src" "$root$dest"
  for lib in $(ldd "$src" 2>/dev/null | grep -oE '/[^ ]+' || true); do
    [ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
  done
}

# A fresh rootfs holding busybox, its applet links, users and a world-writable /tmp.
new_rootfs() {
  local root=$1
  rm -rf "$root" && mkdir -p "$root"/{bin,etc,tmp,home/node,data}
  install -m 0755 "$busybox" "$root/bin/busybox"
  local applet
  for applet in $("$busybox" --list-full); do
    [ -e "$root/$applet" ] || { mkdir -p "$root/$(dirname "$applet")"; ln -s /bin/busybox "$root/$applet"; }
  done
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
  chown 1000:1000 "$root/home/node"
}

# build_image TAG HASH ROOTFS INSTRUCTIONS...: an image of ROOTFS (owners and modes kept, which
# COPY in a Dockerfile would not) with the given CMD/ENTRYPOINT/ENV/USER/... instructions.
build_image() {
  local tag=$1 hash=$2 root=$3; shift 3
  local changes=(--change "LABEL lfe.inputs=$hash") line
  for line in "$@"; do changes+=(--change "$line"); done
  local old; old=$(docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
  tar -C "$root" --numeric-owner -cf - . | docker import "${changes[@]}" - "$tag" >/dev/null
  # The replaced image is dropped unless something still uses it (or it is the very same image).
  [ -z "$old" ] || [ "$old" = "$(docker image inspect -f '{{.Id}}' "$tag")" ] || docker rmi "$old" >/dev/null 2>&1 || true
  log "built $tag"
}

# quiet_build ARGS...: docker build, printing the builder's output only when it fails.
quiet_build() {
  docker build "$@" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; die "docker build $* failed"; }
}

# deb_dir PACKAGE: Debian's package unpacked (downloaded once into $work/debs).
deb_dir() {
  local pkg=$1 deb
  deb=$(ls "$work/debs/${pkg}"_*.deb 2>/dev/null | head -n1 || true)
  if [ -z "$deb" ]; then
    (cd "$work/debs" && { apt-get download "$pkg" >/dev/null 2>&1 || { apt-get update -qq && apt-get download "$pkg" >/dev/null; }; })
    deb=$(ls "$work/debs/${pkg}"_*.deb | head -n1)
  fi
  local out="$work/debs/$(basename "$deb" .deb)"
  [ -d "$out" ] || dpkg -x "$deb" "$out"
  echo "$out"
}

# deb_version DIR: the upstream version in an unpacked package's name (prometheus_2.42.0+ds-5_amd64).
deb_version() { basename "$1" | cut -d_ -f2 | sed 's/[+~-].*//'; }

# debian_image PACKAGE: lfe-local/NAME:local from Debian's PACKAGE (prometheus, or
# prometheus-alertmanager as alertmanager): the server and its tool with their libraries, what
# Debian's build reads from /usr/share/prometheus (Prometheus' web assets, Alertmanager's
# notification templates), and the same entrypoint, paths and user as the upstream image, so
# configs move between them.
debian_image() {
  local pkg=$1 name server tool port storage
  case "$pkg" in
    prometheus) name=prometheus server=prometheus tool=promtool port=9090 storage=--storage.tsdb.path ;;
    prometheus-alertmanager) name=alertmanager server=prometheus-alertmanager tool=amtool port=9093 storage=--storage.path ;;
    *) die "no image recipe for the Debian package $pkg" ;;
  esac
  local dir tag hash r
  dir=$(deb_dir "$pkg")
  tag=lfe-local/$name:local
  hash=$(sha "$busybox" "$dir/usr/bin/$server" "$dir/usr/bin/$tool" "$here/build-images.sh")
  up_to_date "$tag" "$hash" && return 0
  r="$work/$name/rootfs"
  new_rootfs "$r"
  copy_elf "$r" "$dir/usr/bin/$server" "/bin/$name"
  copy_elf "$r" "$dir/usr/bin/$tool" "/bin/$tool"
  mkdir -p "$r/usr/share" && cp -a "$dir/usr/share/prometheus" "$r/usr/share/"
  mkdir -p "$r/etc/$name" "$r/$name" && chown 65534:65534 "$r/$name"
  build_image "$tag" "$hash" "$r" "LABEL org.opencontainers.image.version=$(deb_version "$dir")" \
    'USER nobody' "WORKDIR /$name" "EXPOSE $port" \
    "ENTRYPOINT [\"/bin/$name\"]" \
    "CMD [\"--config.file=/etc/$name/$name.yml\", \"$storage=/$name\"]"
}

t0=$(date +%s)

tag=lfe-local/busybox:local
hash=$(sha "$busybox" "$here/build-images.sh")
if ! up_to_date "$tag" "$hash"; then
  new_rootfs "$work/busybox/rootfs"
  build_image "$tag" "$hash" "$work/busybox/rootfs" 'CMD ["/bin/sh"]'
fi

debian_image prometheus
debian_image prometheus-alertmanager

node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
node_version=$("$node_bin" -p process.versions.node)
tag=lfe-local/node:local
hash=$(sha "$busybox" "$node_bin" "$npm_dir/package.json" /etc/ssl/certs/ca-certificates.crt "$here/build-images.sh")
if ! up_to_date "$tag" "$hash"; then
  r="$work/node/rootfs"
  new_rootfs "$r"
  copy_elf "$r" "$node_bin" /usr/local/bin/node
  mkdir -p "$r/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$r/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$r/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$r/usr/local/bin/npx"
  # This machine's trust store, so npm in a build stage reaches the registry as the host's npm does.
  local_ca=/etc/ssl/certs/ca-certificates.crt
  install -D -m 0644 "$local_ca" "$r$local_ca"
  build_image "$tag" "$hash" "$r" "LABEL org.opencontainers.image.version=$node_version" \
    "ENV NODE_VERSION=$node_version NODE_EXTRA_CA_CERTS=$local_ca" 'CMD ["node"]'
fi
log "base images ready in $(( $(date +%s) - t0 )) s"

[ "${1:-}" = "--bases-only" ] && exit 0

# replace_tagged TAG ARGS...: builds TAG and drops the image TAG named before, unless it is the
# same (a fully cached build yields the same image: removing "the old one" would remove it).
replace_tagged() {
  local tag=$1 old new; shift
  old=$(docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
  quiet_build "$@" -t "$tag" .
  new=$(docker image inspect -f '{{.Id}}' "$tag")
  [ -z "$old" ] || [ "$old" = "$new" ] || docker rmi "$old" >/dev/null 2>&1 || true
}

t1=$(date +%s)
# The classic builder keeps the build stage's image; untagged, one more was left dangling at every
# build. Tagged, it is the one build cache (docker rmi ledger-fleet-exporter:build-stage frees it),
# replaced at each build, and the full build below reuses it.
args=(--build-arg NODE_IMAGE=lfe-local/node:local --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)")
replace_tagged ledger-fleet-exporter:build-stage "${args[@]}" --target build
replace_tagged ledger-fleet-exporter:local "${args[@]}"
# Stage images an earlier version of this script left untagged.
docker image prune -f --filter label=org.ledger-fleet-exporter.stage=build >/dev/null 2>&1 || true
size=$(docker image inspect -f '{{.Size}}' ledger-fleet-exporter:local)
log "built ledger-fleet-exporter:local in $(( $(date +%s) - t1 )) s ($(( size / 1000000 )) MB)"
