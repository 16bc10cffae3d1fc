-- A skipped candidate never reaches silver.facts; keep what it said with its decision so every
-- decision (skips included) can be audited from silver.resolutions alone.
SET LOCAL ROLE medallion_owner;
ALTER TABLE silver.resolutions ADD COLUMN candidate jsonb NOT NULL DEFAULT '{}'::jsonb;
COMMENT ON COLUMN silver.resolutions.candidate IS
    'The candidate as distilled: subject, predicate, value, statement, valid_from, confidence.';
