import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { CompactSign, exportJWK } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../../../evidence-verify/packet.ts';
import { fakeApi, json, Route, renderRoutes } from '../../test/utils.tsx';
import { AppRoutes } from '../router.tsx';
import { EVIDENCE_KEYS_PATH } from './verify.tsx';

/*
 * /verify as anyone uses it, signed in or not: a packet is checked in the browser against this server's keys or a
 * JWKS file; a changed byte is named, another key is refused, and the packet itself is never sent anywhere.
 */

async function signer() {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: `k${Math.random()}`, alg: 'EdDSA' };
  return { pair, jwks: { keys: [jwk] } };
}

/** A packet as the BFF makes one (evidence/packet.ts): three files, their hashes in a manifest, the manifest signed. */
async function packet(key: Awaited<ReturnType<typeof signer>>, host = 'proplens.example') {
  const files: Record<string, Uint8Array> = {
    'results.csv': strToU8('input,outcome\r\n1 Main St,matched\r\n'),
    'results.json': strToU8('{"rows":[]}\n'),
    'runs.json': strToU8('{"runs":[]}\n'),
  };
  const manifest = strToU8(
    JSON.stringify({
      type: 'proplens-evidence-packet',
      v: 1,
      exportedAt: '2026-11-02T09:30:00.000Z',
      proplens: { version: '0.1.0', host },
      review: { id: 'r1', name: 'Collateral', rows: 1, account: { id: 'a', name: 'Harbor & Vale Realty' } },
      signOff: {
        by: 'f2d66925',
        byName: 'Dana Ortiz',
        at: '2026-11-02T09:00:00.000Z',
        run: 2,
        reason: null,
        approved: { by: '0c1d2e3f', byName: null, at: '2026-11-02T09:10:00.000Z' },
      },
      files: await Promise.all(
        Object.entries(files).map(async ([name, bytes]) => ({
          name,
          bytes: bytes.length,
          sha256: await sha256Hex(bytes),
        })),
      ),
    }),
  );
  // Copied into this realm's Uint8Array: jsdom's TextEncoder gives another one, which jose refuses.
  const jws = await new CompactSign(Uint8Array.from(manifest))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.jwks.keys[0]?.kid })
    .sign(key.pair.privateKey);
  return zipSync({ ...files, 'manifest.json': manifest, 'manifest.jws': strToU8(jws) });
}

const zipFile = (bytes: Uint8Array, name = 'Collateral.evidence.zip') =>
  new File([bytes as Uint8Array<ArrayBuffer>], name, { type: 'application/zip' });
const jwksFile = (jwks: unknown, name = 'keys.json') =>
  new File([JSON.stringify(jwks)], name, { type: 'application/json' });

/** Nobody signed in (a first visit: 204), as the page asks to draw its header. */
const signedOut = () => new Response(null, { status: 204 });
const SESSION = 'GET /api/session';

const openVerify = async () => {
  renderRoutes(<Route path="*" element={<AppRoutes />} />, '/verify');
  await screen.findByRole('heading', { name: 'Verify an evidence packet' });
  return userEvent.setup();
};
const keysGroup = () => screen.getByRole('group', { name: 'Check the signature against' });
const serverOption = () => within(keysGroup()).getByRole('radio', { name: /^This server’s keys/ });
const fileOption = () => within(keysGroup()).getByRole('radio', { name: 'A JWKS file' });

afterEach(() => vi.unstubAllGlobals());

describe('/verify', () => {
  it('verifies a packet against this server’s keys without signing in, names a changed byte, never uploads it', async () => {
    const key = await signer();
    const { calls } = fakeApi({ [SESSION]: signedOut, [`GET ${EVIDENCE_KEYS_PATH}`]: () => json(key.jwks) });
    const user = await openVerify();
    // Signed out: the plain bar, no account navigation, and nothing asks for a sign-in.
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(serverOption()).toBeChecked();
    const good = await packet(key);
    await user.upload(await screen.findByLabelText(/Evidence packet/), zipFile(good));
    expect(
      await screen.findByText(
        'Verified: signed by PropLens at proplens.example on 2026-11-02; 4 files, none changed',
      ),
    ).toBeInTheDocument();
    // The run signed off, by whom, and the approval: from the signed manifest.
    expect(
      screen.getByText(
        /Signed off on run 2 by Dana Ortiz \(f2d66925\) on 2026-11-02; approved by 0c1d2e3f on 2026-11-02\./,
      ),
    ).toBeInTheDocument();

    const files = unzipSync(good);
    const csv = new Uint8Array(files['results.csv'] as Uint8Array);
    csv[0] = 'I'.charCodeAt(0);
    await user.upload(
      screen.getByLabelText(/Evidence packet/),
      zipFile(zipSync({ ...files, 'results.csv': csv })),
    );
    expect(await screen.findByText('Not verified: results.csv was changed.')).toBeInTheDocument();
    // Only the keys were fetched (and whether someone is signed in, for the header): nothing carried the packet.
    expect(calls.map((c) => c.url.pathname)).toContain(EVIDENCE_KEYS_PATH);
    for (const call of calls) {
      expect([call.method, call.body]).toEqual(['GET', undefined]);
      expect([EVIDENCE_KEYS_PATH, '/api/session']).toContain(call.url.pathname);
    }
    expect(screen.getByRole('link', { name: 'Verify' })).toHaveAttribute('href', '/verify');
  });

  it('checks against a JWKS file chosen instead, and refuses a packet its keys did not sign', async () => {
    const { calls } = fakeApi({ [SESSION]: signedOut });
    const ours = await signer();
    const theirs = await signer();
    const user = await openVerify();
    // Choosing the file is enough: its option is chosen with it, without a click on the radio.
    await user.upload(screen.getByLabelText('Choose a JWKS file'), jwksFile(ours.jwks));
    await waitFor(() => expect(fileOption()).toBeChecked());
    expect(serverOption()).not.toBeChecked();
    expect(fileOption()).toHaveAccessibleDescription('Checking against keys.json (1 key).');
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(theirs)));
    expect(await screen.findByText('Not verified: signed by a key not in the JWKS.')).toBeInTheDocument();
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(ours)));
    expect(await screen.findByText(/^Verified: signed by PropLens at proplens.example/)).toBeInTheDocument();
    // This server's keys were never asked for.
    expect(calls.map((c) => c.url.pathname)).toEqual(['/api/session']);
  });

  it('offers two options, each with its radio: the JWKS file option asks for its file, and the choice can go back', async () => {
    const key = await signer();
    const { calls } = fakeApi({ [SESSION]: signedOut, [`GET ${EVIDENCE_KEYS_PATH}`]: () => json(key.jwks) });
    const user = await openVerify();
    expect(within(keysGroup()).getAllByRole('radio')).toHaveLength(2);
    expect(serverOption()).toBeChecked();
    expect(fileOption()).not.toBeChecked();

    await user.click(fileOption());
    expect(fileOption()).toBeChecked();
    expect(serverOption()).not.toBeChecked();
    expect(fileOption()).toHaveAccessibleDescription(
      'Choose the JWKS file (.json) with the keys to check against.',
    );
    expect(screen.getByLabelText('Choose a JWKS file')).toBeEnabled();
    // A packet before the file: asked for the file, and this server's keys are not used behind the reader's back.
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(key)));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Choose the JWKS file to check the signature against, or this server’s keys.',
    );
    expect(calls.map((c) => c.url.pathname)).not.toContain(EVIDENCE_KEYS_PATH);

    // A file that is not a JWKS is refused and chooses nothing.
    await user.upload(screen.getByLabelText('Choose a JWKS file'), jwksFile({ nope: 1 }, 'notes.json'));
    expect(
      await screen.findByText('notes.json is not a JWKS (a JSON file with "keys").'),
    ).toBeInTheDocument();

    await user.click(serverOption());
    expect(serverOption()).toBeChecked();
    expect(fileOption()).not.toBeChecked();
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(key)));
    expect(await screen.findByText(/^Verified: signed by PropLens at proplens.example/)).toBeInTheDocument();
  });

  it('shows the JWKS file’s picker only once that option is chosen: one file picker, the packet’s, otherwise', async () => {
    fakeApi({ [SESSION]: signedOut });
    const user = await openVerify();
    expect(screen.getByLabelText('Choose a JWKS file')).not.toBeVisible();
    await user.click(fileOption());
    expect(screen.getByLabelText('Choose a JWKS file')).toBeVisible();
    await user.click(serverOption());
    expect(screen.getByLabelText('Choose a JWKS file')).not.toBeVisible();
  });

  it('clears a verdict when the keys chosen change: it was not checked against them', async () => {
    const ours = await signer();
    const theirs = await signer();
    fakeApi({ [SESSION]: signedOut, [`GET ${EVIDENCE_KEYS_PATH}`]: () => json(ours.jwks) });
    const user = await openVerify();
    await user.upload(await screen.findByLabelText(/Evidence packet/), zipFile(await packet(ours)));
    expect(await screen.findByText(/^Verified: signed by PropLens/)).toBeInTheDocument();
    await user.upload(screen.getByLabelText('Choose a JWKS file'), jwksFile(theirs.jwks, 'theirs.json'));
    await waitFor(() =>
      expect(fileOption()).toHaveAccessibleDescription('Checking against theirs.json (1 key).'),
    );
    expect(screen.queryByText(/^Verified: signed by PropLens/)).toBeNull();
  });

  it('says a packet from a server with no host name configured was signed by PropLens, not "at unconfigured host"', async () => {
    const key = await signer();
    fakeApi({ [SESSION]: signedOut, [`GET ${EVIDENCE_KEYS_PATH}`]: () => json(key.jwks) });
    const user = await openVerify();
    await user.upload(
      screen.getByLabelText(/Evidence packet/),
      zipFile(await packet(key, 'unconfigured host')),
    );
    expect(
      await screen.findByText(
        'Verified: signed by PropLens (its host name was not configured) on 2026-11-02; 4 files, none changed',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/unconfigured host/)).not.toBeInTheDocument();
  });

  it('has the usual navigation when signed in, and checks packets the same way', async () => {
    const key = await signer();
    fakeApi({
      [SESSION]: () =>
        json({
          account: { name: 'Harbor & Vale Realty', plan: 'professional' },
          accountId: 'acct-a',
          demo: false,
        }),
      'GET /api/notifications': () => json({ unread: 0, notifications: [], nextCursor: null }),
      [`GET ${EVIDENCE_KEYS_PATH}`]: () => json(key.jwks),
    });
    const user = await openVerify();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    for (const name of ['Search', 'Review', 'Activity', 'Settings'])
      expect(within(nav).getByRole('link', { name })).toBeInTheDocument();
    expect(screen.getByRole('banner')).toHaveTextContent('Harbor & Vale Realty');
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeInTheDocument();
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(key)));
    expect(await screen.findByText(/^Verified: signed by PropLens at proplens.example/)).toBeInTheDocument();
  });
});
