import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { CompactSign, exportJWK } from 'jose';
import { describe, expect, it } from 'vitest';
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
async function packet(key: Awaited<ReturnType<typeof signer>>) {
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
      proplens: { version: '0.1.0', host: 'proplens.example' },
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

describe('/verify', () => {
  it('verifies a packet against this server’s keys without signing in, names a changed byte, never uploads it', async () => {
    const key = await signer();
    const { calls } = fakeApi({ [`GET ${EVIDENCE_KEYS_PATH}`]: () => json(key.jwks) });
    renderRoutes(<Route path="*" element={<AppRoutes />} />, '/verify');
    const user = userEvent.setup();
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
    // Only the keys were fetched: nothing carried the packet, and no sign-in was asked for.
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect([call.method, call.url.pathname]).toEqual(['GET', EVIDENCE_KEYS_PATH]);
    expect(screen.getByRole('link', { name: 'Verify' })).toHaveAttribute('href', '/verify');
  });

  it('checks against a JWKS file chosen instead, and refuses a packet its keys did not sign', async () => {
    const { calls } = fakeApi({});
    const ours = await signer();
    const theirs = await signer();
    renderRoutes(<Route path="*" element={<AppRoutes />} />, '/verify');
    const user = userEvent.setup();
    await user.upload(
      await screen.findByLabelText(/A JWKS file/),
      new File([JSON.stringify(ours.jwks)], 'keys.json', { type: 'application/json' }),
    );
    await waitFor(() => expect(screen.getByText(/A JWKS file: keys.json/)).toBeInTheDocument());
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(theirs)));
    expect(await screen.findByText('Not verified: signed by a key not in the JWKS.')).toBeInTheDocument();
    await user.upload(screen.getByLabelText(/Evidence packet/), zipFile(await packet(ours)));
    expect(await screen.findByText(/^Verified: signed by PropLens at proplens.example/)).toBeInTheDocument();
    expect(calls).toEqual([]);
  });
});
