CREATE INDEX "expected_payments_due_idx" ON "expected_payments" USING btree ("date_to") WHERE status IN ('unreconciled', 'partially-reconciled');
