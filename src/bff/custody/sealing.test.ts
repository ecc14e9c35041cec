import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBffConfig } from '../env.ts';
import { KeySealer } from './sealing.ts';
import { custodySecret, SECRET_FILE, secretFileIn } from './secret.ts';

const SECRET = 'sealing-test-secret-sealing-test-secret-1';
const KEPT = { apiKey: 'pi_live_4f9a1c2e7b', account: { name: 'Acme Lending', plan: 'enterprise' } };

describe('a kept key, sealed', () => {
  it('opens for its own account under the same secret, and holds nothing of the key in clear', () => {
    const sealed = new KeySealer(SECRET).seal('account-a', KEPT);
    expect(JSON.stringify(sealed)).not.toContain(KEPT.apiKey);
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.authTag, 'base64')).toHaveLength(16);
    // A restart: a new sealer over the same secret.
    expect(new KeySealer(SECRET).open('account-a', sealed)).toEqual(KEPT);
  });

  it('does not open for another account, under another secret, or with one byte changed', () => {
    const sealer = new KeySealer(SECRET);
    const sealed = sealer.seal('account-a', KEPT);
    expect(sealer.open('account-b', sealed)).toBeNull();
    expect(new KeySealer(`${SECRET}x`).open('account-a', sealed)).toBeNull();
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0] = (bytes[0] as number) ^ 1;
    expect(sealer.open('account-a', { ...sealed, ciphertext: bytes.toString('base64') })).toBeNull();
  });

  it('names its secret by an HMAC that is neither the secret nor the same for another', () => {
    const id = new KeySealer(SECRET).secretId;
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(SECRET).not.toContain(id);
    expect(new KeySealer(`${SECRET}x`).secretId).not.toBe(id);
  });
});

describe('KEY_ENCRYPTION_SECRET', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  it('is refused at start under 32 characters, without echoing it', () => {
    const short = 'too-short-secret-1234';
    let message = '';
    try {
      readBffConfig({ KEY_ENCRYPTION_SECRET: short });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/KEY_ENCRYPTION_SECRET: must be at least 32 characters/);
    expect(message).not.toContain(short);
    expect(readBffConfig({ KEY_ENCRYPTION_SECRET: SECRET }).keyEncryptionSecret).toBe(SECRET);
  });

  it('is generated once beside the embedded database, mode 0600, and reused at the next start', () => {
    dir = mkdtempSync(join(tmpdir(), 'proplens-custody-secret-'));
    const file = join(dir, 'proplens.db');
    const first = custodySecret({ configured: undefined, shared: false, sqliteFile: file });
    const second = custodySecret({ configured: undefined, shared: false, sqliteFile: file });
    expect(first).toEqual(second);
    const secret = (first as { secret: string }).secret;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dir, SECRET_FILE), 'utf8').trim()).toBe(secret);
    expect(statSync(join(dir, SECRET_FILE)).mode & 0o777).toBe(0o600);
  });

  it('restored from a backup is used as it is (never replaced), and made readable by its owner only', () => {
    dir = mkdtempSync(join(tmpdir(), 'proplens-custody-restored-'));
    writeFileSync(join(dir, SECRET_FILE), `${SECRET}\n`, { mode: 0o644 });
    expect(secretFileIn(dir)).toBe(SECRET);
    expect(readFileSync(join(dir, SECRET_FILE), 'utf8')).toBe(`${SECRET}\n`);
    expect(statSync(join(dir, SECRET_FILE)).mode & 0o777).toBe(0o600);
  });

  it('is required where replicas share the database: without it custody is unavailable, not generated', () => {
    dir = mkdtempSync(join(tmpdir(), 'proplens-custody-shared-'));
    const shared = custodySecret({
      configured: undefined,
      shared: true,
      sqliteFile: join(dir, 'proplens.db'),
    });
    expect(shared).toEqual({ unavailable: expect.stringMatching(/KEY_ENCRYPTION_SECRET/) });
    expect(() => statSync(join(dir, SECRET_FILE))).toThrow();
    expect(custodySecret({ configured: SECRET, shared: true, sqliteFile: undefined })).toEqual({
      secret: SECRET,
    });
  });

  it('stops the start when its file holds no secret, naming the file and not its content', () => {
    dir = mkdtempSync(join(tmpdir(), 'proplens-custody-bad-'));
    writeFileSync(join(dir, SECRET_FILE), 'tiny\n', { mode: 0o644 });
    expect(() => secretFileIn(dir)).toThrow(/key-encryption-secret holds no key encryption secret/);
  });
});
