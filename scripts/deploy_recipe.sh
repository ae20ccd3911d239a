#!/usr/bin/env bash
# The README's deployment recipe ("Scaling out"), run as written on one machine (loopback):
#   a Chroma server + an embedding server (Infinity serving the bundled MiniLM) + N ingest workers
#   (--shard i/N over one input, each with its own --data-dir) + a UI worker, then one question through
#   the UI's HTTP API (gradio_client, /ask) and one through `paperchat ask`.
# Needs `make install embed-server`. Every process it starts is stopped at exit.
#
#   scripts/deploy_recipe.sh                      # the bundled corpus, 2 ingest workers
#   WORKERS=3 INPUT=big.jsonl.gz scripts/deploy_recipe.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
EMBED_VENV=${EMBED_VENV:-.venv-embed-server}
RUN=${RUN:-$(mktemp -d /tmp/paperchat-recipe.XXXXXX)}
mkdir -p "$RUN"  # a RUN directory that does not exist yet is made
CHROMA_PORT=${CHROMA_PORT:-8000}
EMBED_PORT=${EMBED_PORT:-7997}
UI_PORT=${UI_PORT:-7861}
WORKERS=${WORKERS:-2}
INPUT=${INPUT:-data/corpus.jsonl}
QUESTION=${QUESTION:-"How can federated learning help train large language models?"}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False GRADIO_ANALYTICS_ENABLED=False \
       DO_NOT_TRACK=1 INFINITY_ANONYMOUS_USAGE_STATS=0
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
run() { echo "+ $*" >&2; "$@"; }
start() {  # LOG COMMAND...: run in the background, output to LOG; its PID is stopped at exit
  local log=$1; shift
  echo "+ $* >$log 2>&1 &" >&2
  "$@" >"$log" 2>&1 &
  PIDS+=($!)
}
wait_for() {  # URL SECONDS
  for _ in $(seq "$2"); do curl -sf -o /dev/null "$1" && return 0; sleep 1; done
  echo "no answer from $1 after $2 s" >&2; return 1
}
echo "run directory: $RUN" >&2

# 1. The store: one Chroma server (machine A).
start "$RUN/chroma.log" "$VENV/bin/chroma" run --path "$RUN/chroma" --host 127.0.0.1 --port "$CHROMA_PORT"
# 2. The embedding server (machine B, or A): Infinity serving the bundled MiniLM from disk.
MODEL_DIR=$("$VENV/bin/python" -c "from assistant.index.embedder import minilm_path; print(minilm_path())")
start "$RUN/embed.log" "$EMBED_VENV/bin/infinity_emb" v2 --model-id "$MODEL_DIR" \
    --served-model-name all-MiniLM-L6-v2 --host 127.0.0.1 --port "$EMBED_PORT" --no-model-warmup
wait_for "http://127.0.0.1:$CHROMA_PORT/api/v2/heartbeat" 60
wait_for "http://127.0.0.1:$EMBED_PORT/models" 180

# 3. Every paperchat process (ingest workers, UI workers) gets the same four settings.
export PAPERCHAT_CHROMA_URL=http://127.0.0.1:$CHROMA_PORT
export PAPERCHAT_EMBEDDING_BACKEND=openai
export PAPERCHAT_EMBEDDING_URL=http://127.0.0.1:$EMBED_PORT
export PAPERCHAT_EMBEDDING_SERVER_MODEL=all-MiniLM-L6-v2
env | grep '^PAPERCHAT_' | sed 's/^/+ export /' >&2

# 4. N ingest workers over one input, each its own shard and its own --data-dir (any machine).
t0=$(date +%s)
for i in $(seq "$WORKERS"); do
  echo "+ $VENV/bin/paperchat --data-dir $RUN/ingest-$i ingest $INPUT --shard $i/$WORKERS --quiet &" >&2
  "$VENV/bin/paperchat" --data-dir "$RUN/ingest-$i" ingest "$INPUT" --shard "$i/$WORKERS" --quiet \
      >"$RUN/ingest-$i.out" 2>"$RUN/ingest-$i.err" &
  PIDS+=($!)
  INGEST[$i]=$!
done
for i in $(seq "$WORKERS"); do
  if ! wait "${INGEST[$i]}"; then cat "$RUN/ingest-$i.err" >&2; exit 1; fi
  echo "ingest worker $i/$WORKERS: $(cat "$RUN/ingest-$i.out")"
done
echo "ingest: $(( $(date +%s) - t0 )) s with $WORKERS workers"

# 5. UI workers (one here; more on other ports or machines behind a sticky load balancer).
start "$RUN/ui-1.log" "$VENV/bin/paperchat" --data-dir "$RUN/ui-1" ui --host 127.0.0.1 --port "$UI_PORT"
wait_for "http://127.0.0.1:$UI_PORT/" 180

# 6. One question through the UI's HTTP API, one through the CLI.
echo "--- /ask through the UI (gradio_client) ---"
run "$VENV/bin/python" -c "
import sys
from gradio_client import Client
print(Client('http://127.0.0.1:$UI_PORT/', verbose=False).predict(sys.argv[1], api_name='/ask'))
" "$QUESTION"
echo "--- paperchat ask (CLI, same servers) ---"
run "$VENV/bin/paperchat" --data-dir "$RUN/cli" ask "$QUESTION"
echo "--- paperchat stats ---"
run "$VENV/bin/paperchat" --data-dir "$RUN/cli" stats
