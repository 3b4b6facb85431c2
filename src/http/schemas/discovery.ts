import { Type } from 'typebox';

/**
 * Response schemas of the discovery routes (src/http/routes/discovery.ts): the fields a client can
 * rely on are named; the catalogue entries may carry more (additionalProperties), which the
 * serialiser keeps.
 */
const open = { additionalProperties: true } as const;

export const PaymentType = Type.Object(
  {
    code: Type.String(),
    label: Type.String(),
    description: Type.String(),
    requires: Type.Array(Type.String()),
    channel: Type.String(),
  },
  { ...open, $id: 'PaymentType' },
);

export const BankProfile = Type.Object(
  {
    key: Type.String(),
    bankName: Type.String(),
    countryCode: Type.String(),
    bic: Type.String(),
    painVersion: Type.String(),
    painVersions: Type.Array(Type.String()),
    deliveryMode: Type.String(),
    channel: Type.Union([Type.String(), Type.Null()]),
    batchBooking: Type.Object(
      {
        choice: Type.Boolean({
          description:
            'true: a payment may set payments[].batchBooking (PmtInf/BtchBookg); false: the bank books as agreed with the account holder and a payment that sets it is refused (batch_booking_not_allowed)',
        }),
        default: Type.Union([Type.Boolean(), Type.Null()], {
          description: 'BtchBookg written when the payment does not set batchBooking; null: none is written',
        }),
      },
      { description: "The bank's batch booking (one debit per payment block, or one per transaction)" },
    ),
    unsupported: Type.Optional(Type.Object({ reason: Type.String() })),
    paymentTypes: Type.Array(Type.Ref('PaymentType')),
  },
  { ...open, $id: 'BankProfile' },
);

export const ProfileList = Type.Object({
  items: Type.Array(Type.Ref('BankProfile')),
  profiles: Type.Array(Type.Ref('BankProfile')),
});

export const PaymentTypeList = Type.Object({
  items: Type.Array(Type.Ref('PaymentType')),
  paymentTypes: Type.Array(Type.Ref('PaymentType')),
});

export const BankPaymentTypeList = Type.Object({
  items: Type.Array(Type.Ref('PaymentType')),
  bankKey: Type.String(),
  bankName: Type.String(),
  countryCode: Type.String(),
});

export const ConnectivityProfileList = Type.Object({
  items: Type.Array(
    Type.Object(
      {
        bankKey: Type.String(),
        bankName: Type.String(),
        channel: Type.String(),
        environments: Type.Array(Type.Union([Type.Literal('test'), Type.Literal('production')])),
      },
      open,
    ),
  ),
});
