/** Lifetimes of the contract's Limits table (OAuth rows). */
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60 * 1000;
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 180 * 24 * 60 * 60 * 1000;
