import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/net/free-port.js';

const RSYSLOGD = ['/usr/sbin/rsyslogd', '/sbin/rsyslogd'].find((file) => existsSync(file));

/**
 * Debian's rsyslogd as a real receiver: our own non-daemon instance with its own config, a TCP
 * listener (imtcp) on a free loopback port — TLS (RFC 5425, gtls) with a CA made here when asked
 * — writing each message's structured data and text to a file the test reads. A missing rsyslogd
 * fails the test, never skips it.
 */
export async function startRsyslog(options: { readonly tls: boolean }) {
  if (!RSYSLOGD) {
    throw new Error(
      'rsyslogd is not installed: apt-get install -y rsyslog rsyslog-gnutls (.ci/run does this)',
    );
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'rsyslog-'));
  const port = await freePort();
  const out = path.join(dir, 'received.log');
  let ca: string | undefined;
  let tlsConfig = '';
  if (options.tls) {
    const openssl = (...args: string[]) =>
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=test CA',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
    );
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    );
    await writeFile(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      'san.ext',
      '-out',
      'server.pem',
    );
    ca = await readFile(path.join(dir, 'ca.pem'), 'utf8');
    tlsConfig = `global(DefaultNetstreamDriver="gtls"
  DefaultNetstreamDriverCAFile="${dir}/ca.pem"
  DefaultNetstreamDriverCertFile="${dir}/server.pem"
  DefaultNetstreamDriverKeyFile="${dir}/server.key")
module(load="imtcp" StreamDriver.Name="gtls" StreamDriver.Mode="1" StreamDriver.AuthMode="anon" MaxSessions="50")`;
  } else {
    tlsConfig = 'module(load="imtcp" MaxSessions="50")';
  }
  const config = path.join(dir, 'rsyslog.conf');
  await writeFile(
    config,
    `global(workDirectory="${dir}" maxMessageSize="64k")
${tlsConfig}
input(type="imtcp" address="127.0.0.1" port="${port}" ruleset="audit")
template(name="audit" type="string" string="%structured-data% %msg%\\n")
ruleset(name="audit") {
  action(type="omfile" file="${out}" template="audit" asyncWriting="off" flushOnTXEnd="on")
}
`,
  );
  const child: ChildProcess = spawn(RSYSLOGD, ['-n', '-f', config, '-i', path.join(dir, 'pid')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Listening once a connection is accepted.
  for (let attempt = 0; ; attempt++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) break;
    if (attempt > 200 || child.exitCode !== null)
      throw new Error(`rsyslogd did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    ca,
    /** The event ids received, in the order rsyslog wrote them. */
    async eventIds(): Promise<string[]> {
      const text = existsSync(out) ? await readFile(out, 'utf8') : '';
      return [...text.matchAll(/event_id="([^"]+)"/g)].map((match) => match[1]!);
    },
    async lines(): Promise<string[]> {
      const text = existsSync(out) ? await readFile(out, 'utf8') : '';
      return text.split('\n').filter(Boolean);
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) =>
        child.exitCode === null ? child.once('exit', resolve) : resolve(null),
      );
      await rm(dir, { recursive: true, force: true });
    },
  };
}
