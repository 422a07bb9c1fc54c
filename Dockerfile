# wasserwarp-server and the wasserwarp CLI, built on Debian 12 with the Makefile's own steps and
# run on debian:bookworm-slim with only the shared libraries they link.
#
#   make image                     # podman, no registry needed (deploy/README.md)
#   docker build -t wasserwarp-server:0.1.0 .
#
# Secure by default: the entry point serves gRPC with TLS and bearer tokens only, from files
# it expects at these paths (mount them from Secrets; deploy/README.md says how to make them):
#
#   /etc/wasserwarp/tls/tls.crt    the server's certificate chain (PEM)
#   /etc/wasserwarp/tls/tls.key    its private key
#   /etc/wasserwarp/auth/tokens    principal:token lines (--auth_tokens_file)
#
# Without them the server does not start. Flags after the image name go to the server
# (--help lists them all) and replace the CMD below; the entry point's come first, so a later
# flag (e.g. --auth_tokens_file=... elsewhere) overrides its value.
#
#   docker run --rm --read-only --tmpfs /var/lib/wasserwarp -p 50051:50051 \
#     -v "$PWD/tls:/etc/wasserwarp/tls:ro" -v "$PWD/auth:/etc/wasserwarp/auth:ro" \
#     wasserwarp-server:0.1.0

ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The packages first, from the Makefile alone, so that a source change keeps this layer.
COPY Makefile ./
RUN make deps-image && rm -rf /var/lib/apt/lists/*
COPY . .
# Only the server and the CLI: no tests, benchmarks or examples.
RUN make build-image-binaries BUILD_DIR=/build
RUN install -D -m 0755 -s /build/server/wasserwarp-server /out/usr/local/bin/wasserwarp-server \
 && install -D -m 0755 -s /build/client/wasserwarp /out/usr/local/bin/wasserwarp

FROM debian:${DEBIAN_RELEASE}-slim AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="wasserwarp-server" \
      org.opencontainers.image.description="TWED and Wasserstein validation of simulated against measured time series, served over gRPC" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="docker.io/library/debian:${DEBIAN_RELEASE}-slim"
# The runtime packages of what the server and the CLI link (tests/deploy_manifests_test.py
# checks this list against `ldd` of the built binaries). libmatio11 is the CLI's alone: it
# runs in the image as the probes' client (deploy/README.md, "Probes"). libudunits2-0 brings
# libudunits2-data, the XML unit database it reads at run time (/usr/share/xml/udunits).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libabsl20220623 \
      libfmt9 \
      libgrpc++1.51 \
      libhwy1 \
      libprometheus-cpp-pull1.0 \
      libprotobuf32 \
      libspdlog1.10 \
      libpq5 \
      libsqlite3-0 \
      libtbb12 \
      libcivetweb1 \
      libssl3 \
      libmatio11 \
      libudunits2-0 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# The web view's HTTPS: civetweb loads OpenSSL with dlopen("libssl.so") and dlopen("libcrypto.so"),
# names only libssl-dev's links provide; these two links stand in for that package's headers.
RUN dir="/usr/lib/$(uname -m)-linux-gnu" \
 && ln -s libssl.so.3 "$dir/libssl.so" && ln -s libcrypto.so.3 "$dir/libcrypto.so"
RUN groupadd --system --gid 10001 wasserwarp \
 && useradd --system --uid 10001 --gid wasserwarp --home-dir /var/lib/wasserwarp \
      --shell /usr/sbin/nologin wasserwarp \
 && install -d -o wasserwarp -g wasserwarp -m 0700 /var/lib/wasserwarp \
 && install -d -m 0755 /etc/wasserwarp/tls /etc/wasserwarp/auth
COPY --from=build /out/ /
USER 10001:10001
WORKDIR /var/lib/wasserwarp
VOLUME ["/var/lib/wasserwarp"]
# gRPC (ValidationService, grpc.health.v1.Health) with TLS and tokens, and Prometheus /metrics
# on a port of its own: publish only 50051; let Prometheus reach 9464 on the private network.
# The web view stays off, as --http_listen defaults; give it (and publish its port) to serve it.
EXPOSE 50051 9464
ENTRYPOINT ["/usr/local/bin/wasserwarp-server", "--listen=0.0.0.0:50051", \
            "--tls_cert=/etc/wasserwarp/tls/tls.crt", "--tls_key=/etc/wasserwarp/tls/tls.key", \
            "--auth_tokens_file=/etc/wasserwarp/auth/tokens", \
            "--metrics_listen=0.0.0.0:9464", "--data_dir=/var/lib/wasserwarp"]
CMD ["--log_format=json"]
