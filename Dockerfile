# Pitboss: runs the Discord bot (`pitboss run`) with its SQLite database on a volume, or on PostgreSQL
# when PITBOSS_DB is a postgresql:// URL (see compose.yaml for two shards sharing one database).
FROM python:3.11-slim

# PITBOSS_LOG: where the command-line tools log a bug's details, on the volume the bot's user may write
# (the working folder /app is not theirs).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PITBOSS_DB=/data/pitboss.db \
    PITBOSS_LOG=/data/pitboss-errors.log \
    PITBOSS_HEARTBEAT=/tmp/pitboss-heartbeat.json

# The user the bot runs as, by number: an orchestrator can see it is not root (runAsNonRoot), and a bind
# mount must belong to it (chown -R 10001:10001 ./data); `pitboss run` names the id if it cannot write.
RUN groupadd --system --gid 10001 pitboss \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data pitboss \
    && mkdir -p /data && chown 10001:10001 /data

WORKDIR /app
# The dependencies in a layer of their own, read from pyproject.toml as `.ci/run`'s `pip install -e .`
# reads them (without the test extra): a code change reuses this layer. They come as wheels from PyPI,
# isal included (ISA-L, the PNG writer's deflate in images/png.py: manylinux2014 wheels for CPython 3.11
# on x86_64 and aarch64): pip compiles nothing.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# The code, then Pitboss itself on top of the dependencies above (--no-deps: nothing new is fetched).
COPY README.md LICENSE NOTICE ./
COPY bot ./bot
COPY rules ./rules
COPY images ./images
RUN pip install --no-cache-dir --no-deps .

USER 10001:10001
VOLUME ["/data"]
# Healthy while the bot is connected to Discord (its heartbeat, written every 15 s) and its database answers.
HEALTHCHECK --interval=30s --timeout=15s --start-period=60s --retries=3 CMD ["pitboss", "health"]
# DISCORD_TOKEN must be given at run time: docker run -e DISCORD_TOKEN=... -v pitboss:/data pitboss
# Any other pitboss command is named after the image: docker run --rm -v pitboss:/data pitboss verify
ENTRYPOINT ["pitboss"]
CMD ["run"]
