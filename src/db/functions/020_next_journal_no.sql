-- The next journal number of a company and direction (OUT-<n>, IN-<n>), usable inside the INSERT of the
-- document itself. The counter row stays locked until the caller's transaction ends, so numbers are
-- unique and gap-free for committed documents. Inbound documents take theirs here; outbound ones in
-- journal_outbound, which moves each company's counter once per batch.
CREATE OR REPLACE FUNCTION next_journal_no(p_company_id text, p_direction text) RETURNS text
LANGUAGE sql VOLATILE AS $$
  INSERT INTO journal_counters (company_id, direction, last_no) VALUES (p_company_id, p_direction, 1)
  ON CONFLICT (company_id, direction) DO UPDATE SET last_no = journal_counters.last_no + 1
  RETURNING (CASE WHEN p_direction = 'outbound' THEN 'OUT-' ELSE 'IN-' END) || last_no;
$$;
