# dohyo container image: a static binary on distroless, run as non-root.
#
#   docker build -t dohyo .
#   docker run -p 9042:9042 -p 8080:8080 -v dohyo-data:/data dohyo
#
# Configure with flags after the image name, DOHYO_* environment variables
# or a YAML file (DOHYO_CONFIG=/etc/dohyo/dohyo.yaml); see
# `docker run --rm dohyo config example`. cmd/dohyo/docker_ops_test.go runs
# the build command below and checks the ports against the defaults.
ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/dohyo ./cmd/dohyo
# The data directory of the default embedded backend, owned by the
# distroless nonroot user (65532).
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dohyo /usr/local/bin/dohyo
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
# CQL native protocol; HTTP (GraphQL, playground, health, /metrics).
EXPOSE 9042 8080
# No curl in distroless: the binary probes itself.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/dohyo", "health", "--url", "http://127.0.0.1:8080/health/liveness"]
ENTRYPOINT ["/usr/local/bin/dohyo"]
CMD ["serve", "--cql-addr", "0.0.0.0:9042", "--http-addr", "0.0.0.0:8080", "--backend", "embedded:///data"]
