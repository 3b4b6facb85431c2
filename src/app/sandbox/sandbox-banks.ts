/**
 * A sandbox deployment's simulated banks (web services and EBICS) (src/simulators), as the use cases see them:
 * which banks are simulated, and the activation each issues for a new test connection (the transfer
 * key or the SMS activation code a real bank would post or text), shown in the readiness.
 */
export type SandboxActivation =
  | { family: 'A'; userId: string; pin: string }
  | { family: 'B'; holderName: string; signerId: string; country: string; activationCode: string }
  /** EBICS: the subscriber the bank set up (its letter to the customer names them). */
  | { family: 'C'; hostId: string; partnerId: string; userId: string };

export type SandboxBanks = {
  simulates(bankKey: string): boolean;
  /** Waits for the simulators to be up (they start beside the service, not before it). */
  issueActivation(bankKey: string, company: { name: string }): Promise<SandboxActivation>;
  /** EBICS: the SHA-256 hashes of the bank's keys, as the simulated bank would publish them. */
  publishedBankKeys?(bankKey: string): { authentication: string; encryption: string } | undefined;
};
