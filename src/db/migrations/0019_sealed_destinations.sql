-- Webhook destinations sealed at rest (issue 26): the sealed URL beside the masked one the API shows.
-- Existing rows are sealed and masked at the next start (app/system/seal-destinations.ts), which needs
-- the master key and so cannot run here.
ALTER TABLE "webhook_endpoints" ADD COLUMN "url_sealed" text;
