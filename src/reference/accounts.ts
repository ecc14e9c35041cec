import { createHash } from 'node:crypto';
import type { Plan } from '../contract/index.ts';

export interface Account {
  id: string;
  name: string;
  plan: Plan;
}

export interface DemoKey {
  key: string;
  plan: Plan;
  label: string;
}

/** Public demo keys of the embedded reference service. They open demo data only; they are not secrets. */
export const DEMO_KEYS: readonly DemoKey[] = [
  { key: 'pi_demo_professional', plan: 'professional', label: 'Professional plan (API access)' },
  {
    key: 'pi_demo_professional_2',
    plan: 'professional',
    label: 'Professional plan, a colleague (same account)',
  },
  { key: 'pi_demo_enterprise', plan: 'enterprise', label: 'Enterprise plan (API access)' },
  { key: 'pi_demo_starter', plan: 'starter', label: 'Starter plan (no API access)' },
];

const DEMO_ACCOUNTS: Record<string, Account> = {
  pi_demo_professional: { id: 'acct_demo_pro', name: 'Harbor & Vale Realty', plan: 'professional' },
  // A colleague at the same firm: another key of the same account, so shared reviews show in a demo.
  pi_demo_professional_2: { id: 'acct_demo_pro', name: 'Harbor & Vale Realty', plan: 'professional' },
  pi_demo_enterprise: { id: 'acct_demo_ent', name: 'Meridian Title Group', plan: 'enterprise' },
  pi_demo_starter: { id: 'acct_demo_start', name: 'Sunrise Home Finders', plan: 'starter' },
};

export const SALES_CONTACT = 'sales@property-intelligence.example';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Accounts by the hash of their key: the service never keeps a key in the clear. */
export class AccountDirectory {
  readonly #byKeyHash = new Map<string, Account>();

  constructor(entries: Record<string, Account> = DEMO_ACCOUNTS) {
    for (const [key, account] of Object.entries(entries)) this.add(key, account);
  }

  add(key: string, account: Account): void {
    this.#byKeyHash.set(hashKey(key), account);
  }

  /** Revokes a key: from now on it is unknown. */
  revoke(key: string): void {
    this.#byKeyHash.delete(hashKey(key));
  }

  find(key: string): Account | undefined {
    return this.findByHash(hashKey(key));
  }

  /** For callers that already hold the key's hash (the rate limiter buckets by it too). */
  findByHash(keyHash: string): Account | undefined {
    return this.#byKeyHash.get(keyHash);
  }
}
