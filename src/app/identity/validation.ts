import { badRequest } from '../errors.ts';
import { hasControlCharacters, plainText } from '../plain-text.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!EMAIL.test(value) || value.length > 320 || hasControlCharacters(value))
    throw badRequest('invalid email address', { field: 'email' });
  return value;
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN) {
    throw badRequest(`password must have at least ${PASSWORD_MIN} characters`, { field: 'password' });
  }
  if (password.length > PASSWORD_MAX) {
    throw badRequest(`password must have at most ${PASSWORD_MAX} characters`, { field: 'password' });
  }
}

export function checkName(name: string): string {
  return plainText(name, 'name');
}
