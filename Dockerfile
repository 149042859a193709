# turnpost: multi-stage image. Build:   docker build -t turnpost .
# Run against Postgres:  docker run -p 8080:8080 -e DATABASE_URL=postgres://user:pass@host/db turnpost
# Without DATABASE_URL the server keeps an SQLite file (and its JWT secret) in /var/lib/turnpost/data.

FROM rust:1.95-bookworm AS build
WORKDIR /src
# libpq (pq-sys, bundled without OpenSSL) and SQLite (libsqlite3-sys, bundled) are compiled
# from source with the C compiler the rust image already has; no -dev packages are needed.
# The whole context minus .dockerignore (target, .git, local databases and secrets): the
# build needs Cargo.toml, Cargo.lock, src, migrations (embed_migrations!) and the game data
# data/tikal, data/java, data/eternal_palace (include_str!), and cargo refuses a manifest
# whose explicit targets (e.g. a [[bench]]) have no source file, so copying a hand-picked
# list would break as soon as one is added.
COPY . .
RUN cargo build --release --locked \
    && install -m 0755 target/release/turnpost /usr/local/bin/turnpost

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --user-group --uid 10001 --home-dir /var/lib/turnpost turnpost \
    && mkdir -p /var/lib/turnpost/data \
    && chown -R turnpost:turnpost /var/lib/turnpost
COPY --from=build /usr/local/bin/turnpost /usr/local/bin/turnpost
USER turnpost
WORKDIR /var/lib/turnpost
# mimalloc keeps clear of transparent huge pages itself on hosts where they are opt-in
# (madvise); where they are always on, this asks it to turn them off for the process.
ENV TURNPOST_BIND=0.0.0.0:8080 \
    TURNPOST_DATA_DIR=/var/lib/turnpost/data \
    MIMALLOC_ALLOW_THP=0
# Only used without DATABASE_URL (SQLite) or without TURNPOST_JWT_SECRET (generated secret).
VOLUME ["/var/lib/turnpost/data"]
EXPOSE 8080
# No HEALTHCHECK: the slim image has no HTTP client. Probe GET /healthz (process up) and
# GET /readyz (database answers) from your orchestrator instead.
# `docker run turnpost openapi` prints the OpenAPI document; flags may follow the image name.
ENTRYPOINT ["turnpost"]
