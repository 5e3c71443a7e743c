# Recur's image: the static binary on scratch and the little it needs
# besides (a user, its folders). CA roots and time zones are inside the
# binary, so nothing else is installed at run time.
#
# From a clone, with only Docker (or Podman):
#   docker build -t recur .
#   docker run -d --name recur -p 127.0.0.1:8080:8080 -v recur-data:/data recur
# (or `docker compose up -d`, which starts Ollama beside it). The stage
# named build compiles the binary; a release build (GoReleaser) and CI
# instead hand in binaries built outside, in a folder holding
# <os>/<arch>[/<variant>]/recur, and pull nothing:
#   podman build --build-context build=DIR -t recur .
# Set VERSION and COMMIT (--build-arg) to stamp them into the binary.

# The Go release that builds Recur: the toolchain line of go.mod.
ARG GO_VERSION=1.27.3

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
ARG TARGETPLATFORM TARGETOS TARGETARCH TARGETVARIANT
ARG VERSION=""
ARG COMMIT=""
# The toolchain is the image's own (no download), the modules and the
# build cache are kept between builds.
ENV GOTOOLCHAIN=local CGO_ENABLED=0
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=bind,source=go.mod,target=/src/go.mod \
    --mount=type=bind,source=go.sum,target=/src/go.sum \
    go mod download
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=bind,target=/src \
    mkdir -p "/$TARGETPLATFORM" && \
    GOOS="$TARGETOS" GOARCH="$TARGETARCH" GOARM="${TARGETVARIANT#v}" \
    go build -trimpath -buildvcs=false \
      -ldflags="-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o "/$TARGETPLATFORM/recur" .

FROM scratch

LABEL org.opencontainers.image.title="Recur" \
      org.opencontainers.image.description="A private journal that notices what keeps coming back" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/recur-journal/recur"

# The user Recur runs as, and the folders it owns: /data for the journal
# (a volume: a new named volume starts out owned by that user) and /tmp
# for uploads being read.
COPY deploy/container/etc/passwd deploy/container/etc/group /etc/
COPY --chown=65532:65532 deploy/container/empty/ /data/
COPY --chown=65532:65532 deploy/container/empty/ /tmp/
ARG TARGETPLATFORM
# --chmod: a binary built under a private umask still runs as that user.
COPY --from=build --chmod=0755 /$TARGETPLATFORM/recur /usr/local/bin/recur
# /bin/sh is a link to recur, which, started as sh, runs recur's own
# commands and nothing else: no shell is in the image, but tools that run
# a health check only through sh -c (podman-compose) still can.
COPY deploy/container/bin/ /bin/

# The journal lives in a folder of the volume that Recur makes itself,
# private to its user (0700); the volume's root may hold other things,
# such as backups.
# SQLite's temporary files (a migration that rebuilds the search index
# makes some) go there too: the root is read-only, and a container engine
# may give /tmp a tmpfs that SQLite's check of the folder refuses.
ENV PATH=/usr/local/bin \
    RECUR_SERVER_ADDR=0.0.0.0:8080 \
    RECUR_STORAGE_DATA_DIR=/data/recur \
    SQLITE_TMPDIR=/data/recur

USER 65532:65532
VOLUME /data
EXPOSE 8080

# recur health asks the server on the loopback address; a degraded server
# (Ollama away: entries are kept and wait) is still healthy. Podman's own
# image format drops this line: compose.yaml repeats it.
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 CMD ["recur", "health"]

ENTRYPOINT ["recur"]
CMD ["serve"]
