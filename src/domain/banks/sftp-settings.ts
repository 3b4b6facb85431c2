/**
 * The fields of an SFTP connection's settings: one definition for the body of
 * `PUT /connections/{id}/settings` (`sftp`) and for the SFTP set-up wizard of
 * `GET /connectivity/profiles`, so the wizard asks for exactly what the route takes. Secrets are
 * write-only (never answered, kept when omitted); one of `privateKey` or `password` is needed.
 */
export type SettingsField = {
  name: string;
  label: string;
  required: boolean;
  /** Write-only: never answered, kept when a later save omits it. */
  secret: boolean;
  type: 'string' | 'integer';
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
};

const text = (
  name: string,
  label: string,
  required: boolean,
  maxLength: number,
  extra: Partial<SettingsField> = {},
): SettingsField => ({ name, label, required, secret: false, type: 'string', minLength: 1, maxLength, ...extra });

export const SFTP_SETTINGS_FIELDS: readonly SettingsField[] = [
  text('host', 'SFTP host name given by the bank', true, 255),
  {
    name: 'port',
    label: 'SFTP port (22 when omitted)',
    required: false,
    secret: false,
    type: 'integer',
    minimum: 1,
    maximum: 65535,
  },
  text('username', 'SFTP user name given by the bank', true, 128),
  text('hostKeySha256', "The bank's SSH host key fingerprint: SHA256:<base64> or 64 hex digits", true, 128),
  text('inboundDir', "The bank's folder our payment files are uploaded to", true, 512),
  text('outboundDir', "The bank's folder its status reports and statements are fetched from", true, 512),
  text('archiveDir', 'Where fetched files are moved (deleted when omitted)', false, 512),
  text('privateKey', 'Our SSH private key (OpenSSH or PEM); its public key is registered at the bank', false, 16384, {
    secret: true,
  }),
  text('passphrase', "The private key's passphrase, when it has one", false, 1024, { secret: true, minLength: 0 }),
  text('password', 'SFTP password, when the bank uses one instead of a key', false, 1024, { secret: true }),
];
