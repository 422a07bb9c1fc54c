# wasserwarp-server, built by the repository's own `make build` (the same
# steps CI runs) on Debian 12 and run on debian:bookworm-slim with only the
# shared libraries the server links.
#
#   docker build -t wasserwarp-server:0.1.0 .
#   docker run --rm -p 50051:50051 -p 9464:9464 wasserwarp-server:0.1.0
#
# Flags after the image name go to the server (--help lists them all); the
# listen addresses and the data directory are set here. deploy/README.md
# covers Kubernetes, Helm and Compose.

ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE} AS build
# `make build` runs `make deps`, which installs the Makefile's DEB_PACKAGES.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make build BUILD_DIR=/build
# docker build --build-arg RUN_TESTS=true . also runs every test, as `make test` does.
ARG RUN_TESTS=false
RUN if [ "$RUN_TESTS" = true ]; then make test BUILD_DIR=/build; fi
RUN install -D -m 0755 -s /build/server/wasserwarp-server /out/usr/local/bin/wasserwarp-server

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
# The runtime packages of what the server links (tests/deploy_manifests_test.py
# checks this list against `ldd` of the built server).
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
 && rm -rf /var/lib/apt/lists/*
# The web view's HTTPS: civetweb loads OpenSSL with dlopen("libssl.so") and dlopen("libcrypto.so"),
# names only libssl-dev's links provide; these two links stand in for that package's headers.
RUN dir="/usr/lib/$(uname -m)-linux-gnu" \
 && ln -s libssl.so.3 "$dir/libssl.so" && ln -s libcrypto.so.3 "$dir/libcrypto.so"
RUN groupadd --system --gid 10001 wasserwarp \
 && useradd --system --uid 10001 --gid wasserwarp --home-dir /var/lib/wasserwarp \
      --shell /usr/sbin/nologin wasserwarp \
 && install -d -o wasserwarp -g wasserwarp -m 0750 /var/lib/wasserwarp
COPY --from=build /out/ /
USER 10001:10001
WORKDIR /var/lib/wasserwarp
VOLUME ["/var/lib/wasserwarp"]
# gRPC (ValidationService, grpc.health.v1.Health, reflection) and Prometheus /metrics. The web
# view stays off, as --http_listen defaults; give it (and publish its port) to serve it.
EXPOSE 50051 9464
ENTRYPOINT ["/usr/local/bin/wasserwarp-server", "--listen=0.0.0.0:50051", "--metrics_listen=0.0.0.0:9464", "--data_dir=/var/lib/wasserwarp"]
CMD ["--log_format=json"]
