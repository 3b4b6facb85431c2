import type { BankChannel, InboundFile } from '../../channels/channel.ts';
import {
  type ConnectionRow,
  knownFileReferences,
  listPollableConnections,
  recordConnectionFile,
  updateConnection,
} from '../../db/repositories/connections.ts';
import { deliveriesUnderWay } from '../../db/repositories/journal-documents.ts';
import { webServicesProfile } from '../../domain/banks/connectivity.ts';
import { decodeBytes } from '../../domain/inbound/index.ts';
import { recordEvent } from '../audit/record.ts';
import { type IncomingBankFile, receiveBankFile, receiveBankFiles } from '../bank-files/receive.ts';
import { channelFailureOf, reportSignatureRefusal } from '../connections/bank-refusal.ts';
import { openConnectionChannel } from '../connections/channel-health.ts';
import { isEbicsStateRefusal, noteEbicsRefusal } from '../connections/ebics.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';

/** What a pickup took, failed to take, and left at the bank for later (statements while a delivery is under way). */
type PickupResult = { files: number; failed: number; deferred: number };

/**
 * The bank pickup job: for every active connection with a channel of its own that is due (web services
 * on the bank profile's schedule, SFTP every run), take what the bank wrote for us (pain.002,
 * statements) and ingest each file through the same path as POST /journal/ingest.
 *
 * - SFTP: fetch, ingest, then acknowledge at the bank; a crash before the acknowledgement fetches the
 *   file again and ingest's content digest makes that a no-op.
 * - Web services: list the bank's files by reference, skip the references this connection has taken
 *   (connection_files), download and ingest the rest one at a time, then record the reference. A crash
 *   between ingest and record downloads the file once more and ingest dedupes it: nothing lost, nothing
 *   twice, whatever the bank's NEW/DOWNLOADED flag says.
 * A connection that fails is reported and the others go on.
 */
export async function pickUpBankFiles(ctx: AppContext): Promise<PickupResult> {
  const total: PickupResult = { files: 0, failed: 0, deferred: 0 };
  for (const connection of await listPollableConnections(ctx.db)) {
    if (!(await claimPoll(ctx, connection))) continue;
    const result = await pickUpConnection(ctx, connection);
    total.files += result.files;
    total.failed += result.failed;
    total.deferred += result.deferred;
  }
  return total;
}

/**
 * One connection's pickup with its failure handled: a refused signature is reported, an EBICS key
 * change or lock takes the connection out of service (src/app/connections/ebics.ts), anything else
 * is logged; the failure counts as one.
 */
export async function pickUpConnection(ctx: AppContext, connection: ConnectionRow): Promise<PickupResult> {
  try {
    return await pickUpFrom(ctx, connection);
  } catch (error) {
    const failure = channelFailureOf(error);
    if (failure.code === 'signature_invalid') await reportSignatureRefusal(ctx, connection, 'file list', failure);
    else if (isEbicsStateRefusal(failure)) await noteEbicsRefusal(ctx, connection, failure);
    else ctx.logger.warn({ err: error, connectionId: connection.id }, 'bank pickup failed');
    return { files: 0, failed: 1, deferred: 0 };
  }
}

/** Marks the connection polled now when its schedule says it is due (pg-boss fires the job once across workers). */
async function claimPoll(ctx: AppContext, connection: ConnectionRow): Promise<boolean> {
  const ws = webServicesProfile(connection.bankKey);
  const now = ctx.clock.now();
  if (ws && connection.polledAt) {
    const minutes =
      connection.environment === 'production' ? ws.download.productionEveryMinutes : ws.download.testEveryMinutes;
    // A little slack so a once-a-minute job does not skip a beat on timer jitter.
    if (now.getTime() - connection.polledAt.getTime() < minutes * 60_000 - 5_000) return false;
  }
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  const updated = await updateConnection(ctx.db, scope, connection.id, { polledAt: now });
  return updated !== undefined;
}

export async function pickUpFrom(ctx: AppContext, connection: ConnectionRow): Promise<PickupResult> {
  const channel = openConnectionChannel(ctx, connection);
  try {
    return channel.listInbound && channel.download
      ? await pickUpByReference(ctx, connection, channel)
      : await pickUpAndAcknowledge(ctx, connection, channel);
  } finally {
    await channel.close();
  }
}

/** A fetched file as the bank-files entry point takes it; the demo bank's files say they are its own. */
function incoming(connection: ConnectionRow, channel: BankChannel, file: InboundFile): IncomingBankFile {
  return {
    content: textOf(file.content),
    bankKey: connection.bankKey,
    environment: connection.environment === 'test' ? 'test' : 'production',
    source: channel.kind === 'demo' ? 'demo-bank' : 'channel',
  };
}

async function ingestFile(ctx: AppContext, connection: ConnectionRow, channel: BankChannel, file: InboundFile) {
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  return (await receiveBankFile(ctx, scope, incoming(connection, channel, file))).result;
}

/** Files journaled together, one transaction each (docs/adr/0051, 0054). */
const PICKUP_BATCH = 100;

/**
 * Fetched files are journaled a batch at a time through the bank-files entry point (one transaction
 * per batch, the batch's pain.002 files set-wise); each file journaled is acknowledged at the bank,
 * a batch's at once where the channel takes them together.
 */
async function pickUpAndAcknowledge(
  ctx: AppContext,
  connection: ConnectionRow,
  channel: BankChannel,
): Promise<PickupResult> {
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  const fetched = await channel.fetchInbound();
  // Read after the download: a booking in what was fetched is of an upload made before it, so when no
  // delivery is under way now, every such upload is recorded (docs/adr/0074). The demo bank holds its
  // own answers back (demo-bank-answers.ts).
  const deferStatements =
    channel.kind !== 'demo' &&
    fetched.length > 0 &&
    (await deliveriesUnderWay(ctx.db, scope, connection.bankKey, connection.environment));
  let files = 0;
  let failed = 0;
  let deferred = 0;
  for (let from = 0; from < fetched.length; from += PICKUP_BATCH) {
    const batch = fetched.slice(from, from + PICKUP_BATCH);
    const readable: { file: InboundFile; incoming: IncomingBankFile }[] = [];
    for (const file of batch) {
      try {
        readable.push({ file, incoming: incoming(connection, channel, file) });
      } catch (error) {
        failed++;
        ctx.logger.warn({ err: error, connectionId: connection.id, file: file.name }, 'bank file not ingested');
      }
    }
    const received = await receiveBankFiles(
      ctx,
      scope,
      readable.map((r) => r.incoming),
      { deferStatements },
    );
    const taken: InboundFile[] = [];
    for (const [i, r] of received.entries()) {
      const file = readable[i]!.file;
      if (r.ok) taken.push(file);
      else if (r.error instanceof AppError && r.error.code === 'delivery_unrecorded') deferred++;
      else {
        // A file we cannot take stays at the bank (not acknowledged) and is reported; the rest go on.
        failed++;
        ctx.logger.warn({ err: r.error, connectionId: connection.id, file: file.name }, 'bank file not ingested');
      }
    }
    if (channel.acknowledgeMany) await channel.acknowledgeMany(taken);
    else for (const file of taken) await channel.acknowledge(file);
    files += taken.length;
  }
  return { files, failed, deferred };
}

async function pickUpByReference(
  ctx: AppContext,
  connection: ConnectionRow,
  channel: BankChannel,
): Promise<PickupResult> {
  const scope = { platformId: connection.platformId, companyId: connection.companyId };
  const listed = await channel.listInbound!();
  const known = await knownFileReferences(
    ctx.db,
    scope,
    connection.id,
    listed.map((r) => r.reference),
  );
  let files = 0;
  let failed = 0;
  for (const ref of listed.filter((r) => !known.has(r.reference))) {
    let file: InboundFile;
    try {
      file = await channel.download!(ref);
    } catch (error) {
      failed++;
      const failure = channelFailureOf(error);
      if (failure.code === 'signature_invalid') {
        await reportSignatureRefusal(ctx, connection, 'downloadFile', failure, { fileReference: ref.reference });
      } else {
        ctx.logger.warn(
          { err: error, connectionId: connection.id, fileReference: ref.reference },
          'bank file not downloaded',
        );
      }
      continue;
    }
    let documentId: string | null = null;
    try {
      documentId = (await ingestFile(ctx, connection, channel, file)).body.id;
    } catch (error) {
      failed++;
      // The bank's file itself is unusable (unparseable, unrecognised): recorded as taken and reported,
      // so it is not downloaded again every poll. Anything else (the database) tries again next time.
      if (!(error instanceof AppError) || error.status >= 500) {
        ctx.logger.warn(
          { err: error, connectionId: connection.id, fileReference: ref.reference },
          'bank file not ingested',
        );
        continue;
      }
      await recordUnreadable(ctx, connection, ref.reference, error.message);
    }
    await recordConnectionFile(ctx.db, {
      connectionId: connection.id,
      fileReference: ref.reference,
      platformId: connection.platformId,
      companyId: connection.companyId,
      fileType: ref.fileType,
      documentId,
      ingestedAt: ctx.clock.now(),
    });
    if (documentId) files++;
  }
  return { files, failed, deferred: 0 };
}

async function recordUnreadable(ctx: AppContext, connection: ConnectionRow, fileReference: string, reason: string) {
  ctx.logger.warn({ connectionId: connection.id, fileReference, reason }, 'bank file could not be ingested');
  await ctx.db.transaction((tx) =>
    recordEvent(ctx, tx, {
      platformId: connection.platformId,
      companyId: connection.companyId,
      type: 'bank.file_unreadable',
      message: `bank file ${fileReference} from ${connection.bankKey} could not be ingested: ${reason}`,
      metadata: { connectionId: connection.id, fileReference, reason },
      bankKey: connection.bankKey,
      environment: connection.environment,
      connectionId: connection.id,
    }),
  );
}

/** Bank files come in their own encodings (UTF-8, Windows-1250/1252, ISO-8859-2 ...): decode as the parser would. */
function textOf(bytes: Uint8Array): string {
  const decoded = decodeBytes(bytes);
  if ('error' in decoded) throw new AppError('unparseable_file', decoded.error);
  return decoded.text;
}
