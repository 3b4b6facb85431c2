-- The next journal numbers of a company and direction (OUT-<n>, IN-<n>), usable inside the INSERT of
-- the document itself. The counter row stays locked until the caller's transaction ends, so numbers
-- are unique and gap-free for committed documents. Inbound documents take theirs here (a batch of
-- the demo bank's status reports takes its `p_count` numbers in one statement); outbound ones in
-- journal_outbound, which moves each company's counter once per batch.
CREATE OR REPLACE FUNCTION next_journal_nos(p_company_id text, p_direction text, p_count int) RETURNS SETOF text
LANGUAGE sql VOLATILE AS $$
  WITH moved AS (
    INSERT INTO journal_counters (company_id, direction, last_no) VALUES (p_company_id, p_direction, p_count)
    ON CONFLICT (company_id, direction) DO UPDATE SET last_no = journal_counters.last_no + p_count
    RETURNING last_no
  )
  SELECT (CASE WHEN p_direction = 'outbound' THEN 'OUT-' ELSE 'IN-' END) || n
    FROM moved, generate_series(moved.last_no - p_count + 1, moved.last_no) AS n
   ORDER BY n;
$$;

-- One number: the counter moved by one.
CREATE OR REPLACE FUNCTION next_journal_no(p_company_id text, p_direction text) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT next_journal_nos(p_company_id, p_direction, 1);
$$;
