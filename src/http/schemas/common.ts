import { Type } from 'typebox';

/** The contract's error envelope: every non-2xx answer of the API has this shape. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Standard error envelope' },
);

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorEnvelope')]));

export const Ok = Type.Object({ ok: Type.Boolean() });

export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

export const NextCursor = Type.Union([Type.String(), Type.Null()]);

/** platformId and companyId of a control-plane request (query or body). */
export const scopeFields = { platformId: Type.String({ maxLength: 64 }), companyId: Type.String({ maxLength: 64 }) };
export const CompanyScopeQuery = Type.Object(scopeFields);
