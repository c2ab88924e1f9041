// Makes `npm test` and `npm run bench` work on a fresh machine (the README contract): installs the
// npm devDependencies when they are missing, and Debian's redis-server when it is not on the PATH
// (as root, without letting the package start a service: the test kit and the benchmark start
// their own servers on free loopback ports). Uses only Node built-ins, since it runs before npm ci.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const run = (command, args) => execFileSync(command, args, { stdio: 'inherit', cwd: root });
const onPath = (command) =>
  spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

if (!existsSync(new URL('node_modules/.bin/vitest', root))) {
  console.error('setup: installing npm devDependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

if (!onPath('redis-server')) {
  if (process.getuid?.() !== 0) {
    console.error(
      'setup: redis-server is missing; install it (Debian: sudo apt-get install -y redis-server)',
    );
    process.exit(1);
  }
  console.error('setup: installing redis-server (apt-get)');
  // A policy-rc.d that answers 101 keeps the package from starting a system service.
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'redis-server', 'openssl'], {
      stdio: 'inherit',
      env,
    });
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}
