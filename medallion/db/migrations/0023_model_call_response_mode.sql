-- The structured-output mode that answered an LLM call (json_schema, json_object or prompt), as the
-- provider negotiated it with its endpoint; null for cache hits, embeddings and calls made before it
-- was recorded. Tokens and latency already have their columns.
SET LOCAL ROLE medallion_owner;

ALTER TABLE telemetry.model_calls ADD COLUMN response_mode text
    CHECK (response_mode IN ('json_schema', 'json_object', 'prompt'));
