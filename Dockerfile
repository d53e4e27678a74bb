# The bot in one image: `docker compose up` (compose.yaml) runs it beside PostgreSQL;
# alone, it keeps its SQLite file in the /data volume:
#   docker build -t fabletop .
#   docker run --env-file .env -v fabletop-data:/data fabletop
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Only what the package needs (see .dockerignore): a change to the tests or the
# benchmarks does not rebuild the install layer.
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY engines ./engines
COPY renderers ./renderers
COPY data ./data
# asyncpg (a dependency) is the PostgreSQL driver, for DATABASE_URL (compose.yaml sets it).
RUN pip install . \
    && useradd --system --create-home --home-dir /home/fabletop --shell /usr/sbin/nologin fabletop \
    && mkdir /data && chown fabletop:fabletop /data

# The SQLite file (when DATABASE_URL is unset) and the backups live in the volume.
ENV DATABASE_PATH=/data/fabletop.db
VOLUME ["/data"]
WORKDIR /data
USER fabletop

CMD ["fabletop", "run"]
