import { describe, expect, it } from 'vitest';
import { checkTarget, privateRange, RefusedTarget, type Resolve } from './ssrf.ts';

/*
 * Where a webhook may not go: every spelling of this machine, the cloud metadata address, private networks, and
 * a public-looking name that DNS points at one. The resolver is injected, as an attacker controls their own DNS.
 */

const dns =
  (table: Record<string, string[]>): Resolve =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
const resolve = dns({
  'hooks.example.com': ['93.184.216.34'],
  'internal.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'ula.example.com': ['fd12:3456::1'],
});
const refused = (url: string) =>
  checkTarget(url, { allowPrivate: false, resolve }).then(
    () => 'allowed',
    (err) => (err instanceof RefusedTarget ? err.message : `threw ${String(err)}`),
  );

describe('checkTarget', () => {
  it.each([
    ['http://127.0.0.1/hook', '127.0.0.1', 'this machine'],
    ['https://[::1]:8443/hook', '::1', 'this machine'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'metadata'],
    ['http://0.0.0.0/', '0.0.0.0', 'unspecified'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'this machine'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1', 'this machine'],
    ['http://2130706433/', '127.0.0.1', 'this machine'],
    ['http://0177.0.0.1/', '127.0.0.1', 'this machine'],
    ['http://0x7f.1/', '127.0.0.1', 'this machine'],
    ['https://internal.example.com/hook', '10.1.2.3', 'private network'],
    ['https://mixed.example.com/hook', '192.168.1.10', 'private network'],
    ['https://ula.example.com/', 'fd12:3456::1', 'private network'],
    ['http://100.64.0.1/', '100.64.0.1', 'carrier-grade NAT'],
    ['http://[fe80::1]/', 'fe80::1', 'link-local'],
    ['http://224.0.0.1/', '224.0.0.1', 'multicast'],
    // IPv4-compatible IPv6 (::/96, deprecated): ::127.0.0.1 and ::10.0.0.1 by another spelling.
    ['http://[::7f00:1]/', '::7f00:1', 'this machine'],
    ['http://[::a00:1]:8080/', '::a00:1', 'private network'],
    ['http://[::ffff:0:7f00:1]/', '::ffff:0:7f00:1', 'rfc6145'],
    ['http://[::808:808]/', '::808:808', 'IPv4-compatible'],
  ])('refuses %s (%s) in words', async (url, address, words) => {
    const message = await refused(url);
    expect(message).toContain(address);
    expect(message).toContain(words);
    expect(message).toContain('public internet addresses');
  });

  it('refuses ports below 1024 other than 80 and 443, whatever the network', async () => {
    for (const port of [22, 25, 53, 1023])
      expect(await refused(`https://hooks.example.com:${port}/`), String(port)).toMatch(
        new RegExp(`port ${port} is refused.*80, 443 and 1024 and above`),
      );
    await expect(checkTarget('http://127.0.0.1:25/', { allowPrivate: true, resolve })).rejects.toThrow(
      /port 25 is refused/,
    );
    for (const url of [
      'https://hooks.example.com/',
      'http://hooks.example.com:80/',
      'https://hooks.example.com:443/',
      'http://hooks.example.com:443/',
      'https://hooks.example.com:1024/',
      'https://hooks.example.com:65535/',
    ])
      expect(await refused(url), url).toBe('allowed');
  });

  it('waits for DNS no longer than the signal allows', async () => {
    const deadline = new AbortController();
    const never: Resolve = () => new Promise(() => {});
    const checking = checkTarget('https://slow.example/', {
      allowPrivate: false,
      resolve: never,
      signal: deadline.signal,
    });
    deadline.abort(new Error('deadline'));
    await expect(checking).rejects.toThrow('deadline');
  });

  it('refuses what is not an http(s) URL, and credentials in it', async () => {
    expect(await refused('ftp://hooks.example.com/')).toMatch(/must start with https:\/\//);
    expect(await refused('file:///etc/passwd')).toMatch(/must start with https:\/\//);
    expect(await refused('not a url')).toMatch(/not a URL/);
    expect(await refused('https://user:pw@hooks.example.com/')).toMatch(/user name or password/);
    expect(await refused('https://nowhere.example.com/')).toMatch(/could not be found/);
  });

  it('allows public addresses, over https and http, and answers the address the attempt connects to', async () => {
    await expect(
      checkTarget('https://hooks.example.com/x', { allowPrivate: false, resolve }),
    ).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(
      checkTarget('http://v6.example.com/', { allowPrivate: false, resolve }),
    ).resolves.toMatchObject({
      family: 6,
    });
    await expect(
      checkTarget('http://93.184.216.34:8080/', { allowPrivate: false, resolve }),
    ).resolves.toMatchObject({
      address: '93.184.216.34',
    });
  });

  it('allows private networks only with WEBHOOK_ALLOW_PRIVATE_NETWORKS', async () => {
    await expect(
      checkTarget('https://internal.example.com/', { allowPrivate: true, resolve }),
    ).resolves.toMatchObject({ address: '10.1.2.3' });
    await expect(
      checkTarget('http://127.0.0.1:9999/', { allowPrivate: true, resolve }),
    ).resolves.toMatchObject({
      address: '127.0.0.1',
    });
  });

  it('asks DNS on every check: a name rebound to a private address is refused the next time', async () => {
    let answer = '93.184.216.34';
    const rebinding: Resolve = async () => [{ address: answer, family: 4 }];
    await expect(
      checkTarget('https://rebind.example/', { allowPrivate: false, resolve: rebinding }),
    ).resolves.toBeDefined();
    answer = '127.0.0.1';
    await expect(
      checkTarget('https://rebind.example/', { allowPrivate: false, resolve: rebinding }),
    ).rejects.toThrow(RefusedTarget);
  });
});

describe('privateRange', () => {
  it('lets only global unicast through', () => {
    expect(privateRange('8.8.8.8')).toBeNull();
    expect(privateRange('2001:4860:4860::8888')).toBeNull();
    for (const a of [
      '10.0.0.1',
      '172.16.0.1',
      '192.168.0.1',
      '127.0.0.2',
      '255.255.255.255',
      '192.0.2.1',
      '::',
      'ff02::1',
      '2002:7f00:1::1',
      '64:ff9b::7f00:1',
      '::7f00:1',
      '::ffff:0:a00:1',
      '100::1',
      '4000::1',
    ])
      expect(privateRange(a), a).not.toBeNull();
  });
});
