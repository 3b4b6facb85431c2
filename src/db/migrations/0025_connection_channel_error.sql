-- The last permanent channel error of a connection (readiness: not ready, with the reason).
ALTER TABLE "connections" ADD COLUMN "channel_error" jsonb;
