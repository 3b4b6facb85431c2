-- Per-company document counts kept as insert-only deltas by statement-level triggers (docs/adr/0035).
-- Counts as signed deltas: one row per key a statement changed, inserted (never updated), so writers
-- of the same company never wait on each other's count rows and cannot deadlock on them. Readers sum
-- a company's rows; journal-counts.ts folds them into one row per key now and then.
CREATE OR REPLACE FUNCTION journal_document_counts_added() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journal_document_counts (platform_id, company_id, direction, type, status, collected, n)
  SELECT platform_id, company_id, direction, type, status, collected, count(*)
    FROM added GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION journal_document_counts_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journal_document_counts (platform_id, company_id, direction, type, status, collected, n)
  SELECT platform_id, company_id, direction, type, status, collected, -count(*)
    FROM removed GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END;
$$;
-- An update moves a document from its old key to its new one; keys whose moves cancel out (an update
-- that changed no counted column) add nothing.
CREATE OR REPLACE FUNCTION journal_document_counts_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journal_document_counts (platform_id, company_id, direction, type, status, collected, n)
  SELECT platform_id, company_id, direction, type, status, collected, sum(d)
    FROM (SELECT platform_id, company_id, direction, type, status, collected, 1 AS d FROM added
          UNION ALL
          SELECT platform_id, company_id, direction, type, status, collected, -1 FROM removed) AS moves
   GROUP BY 1, 2, 3, 4, 5, 6
  HAVING sum(d) <> 0;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER journal_documents_counts_insert AFTER INSERT ON journal_documents
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_document_counts_added();
CREATE OR REPLACE TRIGGER journal_documents_counts_delete AFTER DELETE ON journal_documents
REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION journal_document_counts_removed();
CREATE OR REPLACE TRIGGER journal_documents_counts_update AFTER UPDATE ON journal_documents
REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_document_counts_changed();
