-- A third granularity of a conversation turn or note: a sentence that speaks of several subjects
-- ("I drive a Tesla and my wife drives a Camry", "Rex is 4, Bella is 2 and Max is 9") is also
-- indexed as each of its coordinated clauses, so that a question about one subject finds a text
-- about that subject alone (and the fact its clause states), not one that also holds the other's
-- value. The clauses of a sentence tile it and lie inside its span; passage lists still filter on
-- unit = 'passage', so a clause, like a sentence, votes only in the lists over every chunk.
SET LOCAL ROLE medallion_owner;

ALTER TABLE silver.chunks DROP CONSTRAINT chunks_unit_check;
ALTER TABLE silver.chunks ADD CONSTRAINT chunks_unit_check CHECK (unit IN ('passage', 'sentence', 'clause'));
COMMENT ON COLUMN silver.chunks.unit IS
    'passage: a whole turn, note or document window; sentence: one sentence of a passage of several; '
    'clause: one coordinated clause, about one subject, of a sentence that speaks of several.';
