// A self-signed certificate for TLS test servers and clients, made once per process with openssl.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onProcessExit } from './process-cleanup.js';

/** Absolute paths (redis-server rejects relative ones once `dir` is set, PROTOCOL.md §0) and PEM text. */
export interface TlsCertificate {
  /** Directory holding the files; removed when the process exits. */
  readonly dir: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate is its own CA: pass `ca` to `tls.connect` to trust it. */
  readonly caFile: string;
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

let pending: Promise<TlsCertificate> | undefined;

/**
 * The process-wide test certificate: CN `localhost`, SANs `IP:127.0.0.1` and `DNS:localhost`, valid
 * for two days, EC P-256 (fast to make). The same pair serves as a client certificate for servers
 * started with `tls: { authClients: true }`.
 */
export function testCertificate(): Promise<TlsCertificate> {
  pending ??= makeCertificate();
  return pending;
}

async function makeCertificate(): Promise<TlsCertificate> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'respire-tls-'));
  onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
  const cert = readFileSync(certFile, 'utf8');
  return { dir, certFile, keyFile, caFile: certFile, cert, key: readFileSync(keyFile, 'utf8'), ca: cert };
}

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 20_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args[0]} failed: ${stderr || error.message}`, { cause: error }));
      else resolve();
    });
  });
}
