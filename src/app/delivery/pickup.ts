import { type ConnectionRow, listPollableConnections } from '../../db/repositories/connections.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { decodeBytes } from '../../domain/inbound/index.ts';
import type { AppContext } from '../context.ts';
import { ingestForCompany } from '../journal/ingest.ts';

/**
 * The bank pickup job: for every active connection with a channel of its own, fetch what the bank
 * wrote for us (pain.002, statements), ingest each file through the same path as POST /journal/ingest,
 * and only then acknowledge it at the bank. A crash before the acknowledgement fetches the file
 * again next time, and ingest's content digest makes that a no-op: nothing lost, nothing twice.
 */
export async function pickUpBankFiles(ctx: AppContext): Promise<{ files: number; failed: number }> {
  let files = 0;
  let failed = 0;
  for (const connection of await listPollableConnections(ctx.db)) {
    const result = await pickUpFrom(ctx, connection);
    files += result.files;
    failed += result.failed;
  }
  return { files, failed };
}

export async function pickUpFrom(
  ctx: AppContext,
  connection: ConnectionRow,
): Promise<{ files: number; failed: number }> {
  const profile = getProfile(connection.bankKey);
  const channel = ctx.channels.open({
    bankKey: connection.bankKey,
    channel: profile?.channel ?? 'unknown',
    config: connection.channelSealed
      ? (JSON.parse(ctx.encryptor.decrypt(connection.channelSealed)) as Record<string, unknown>)
      : null,
  });
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  let files = 0;
  let failed = 0;
  try {
    for (const file of await channel.fetchInbound()) {
      try {
        await ingestForCompany(ctx, scope, {
          companyId: connection.companyId,
          content: textOf(file.content),
          bankKey: connection.bankKey,
          environment: connection.environment === 'test' ? 'test' : 'production',
          importSource: 'channel',
        });
        await channel.acknowledge(file);
        files++;
      } catch (error) {
        // A file we cannot take stays at the bank (not acknowledged) and is reported; the rest go on.
        failed++;
        ctx.logger.warn({ err: error, connectionId: connection.id, file: file.name }, 'bank file not ingested');
      }
    }
  } finally {
    await channel.close();
  }
  return { files, failed };
}

/** Bank files come in their own encodings (UTF-8, Windows-1250/1252, ISO-8859-2 ...): decode as the parser would. */
function textOf(bytes: Uint8Array): string {
  const decoded = decodeBytes(bytes);
  if ('error' in decoded) throw new Error(decoded.error);
  return decoded.text;
}
