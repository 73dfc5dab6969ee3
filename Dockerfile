# Pitboss: runs the Discord bot (`pitboss run`) with its SQLite database on a volume, or on PostgreSQL
# when PITBOSS_DB is a postgresql:// URL (see compose.yaml for two shards sharing one database).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PITBOSS_DB=/data/pitboss.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY images ./images
# pyproject's dependencies come as wheels from PyPI, isal included (ISA-L, the PNG writer's deflate in
# images/png.py: manylinux2014 wheels for CPython 3.11 on x86_64 and aarch64): pip compiles nothing
RUN pip install --no-cache-dir . \
    && useradd --system --home-dir /data pitboss \
    && mkdir -p /data && chown pitboss /data

USER pitboss
VOLUME ["/data"]
# DISCORD_TOKEN must be given at run time: docker run -e DISCORD_TOKEN=... -v pitboss:/data pitboss
CMD ["pitboss", "run"]
