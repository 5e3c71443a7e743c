# Recur's image: the static binary on scratch and the little it needs
# besides (a user, its folders). CA roots and time zones are inside the
# binary, so nothing else is installed and no base image is pulled.
#
# Build the binary first, then the image:
#   CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o recur .
#   docker build -t recur .
# and run it with a volume for the journal:
#   docker run -d --name recur -p 127.0.0.1:8080:8080 -v recur-data:/data recur
# (or use compose.yaml, which starts Ollama beside it).
FROM scratch

LABEL org.opencontainers.image.title="Recur" \
      org.opencontainers.image.description="A private journal that notices what keeps coming back" \
      org.opencontainers.image.licenses="Apache-2.0"

# The user Recur runs as, and the folders it owns: /data for the journal
# (a volume: a new named volume starts out owned by that user) and /tmp
# for uploads being read.
COPY deploy/container/etc/passwd deploy/container/etc/group /etc/
COPY --chown=65532:65532 deploy/container/empty/ /data/
COPY --chown=65532:65532 deploy/container/empty/ /tmp/
COPY recur /usr/local/bin/recur

# The journal lives in a folder of the volume that Recur makes itself,
# private to its user (0700); the volume's root may hold other things,
# such as backups.
ENV PATH=/usr/local/bin \
    RECUR_SERVER_ADDR=0.0.0.0:8080 \
    RECUR_STORAGE_DATA_DIR=/data/recur

USER 65532:65532
VOLUME /data
EXPOSE 8080

# recur health asks the server on the loopback address; a degraded server
# (Ollama away: entries are kept and wait) is still healthy.
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 CMD ["recur", "health"]

ENTRYPOINT ["recur"]
CMD ["serve"]
