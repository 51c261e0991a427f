// Shared by the side-by-side benchmarks: runs a command under bash and returns its output and its
// children's CPU seconds from bash's `times` (user + system, and each apart), so each tool pays for
// its own start-up.
import { spawn } from 'node:child_process';

/**
 * Node.js reads the file NODE_EXTRA_CA_CERTS names at every start, before any of headroom's code
 * runs: on a machine that sets it to the system's CA bundle that is tens of milliseconds of CPU
 * (65-85 ms measured), for certificates headroom does not use (sslmode=require checks none). The
 * timed commands run without it, as on a machine that does not set it; printTimingNote() says so.
 */
const UNSET = { NODE_EXTRA_CA_CERTS: '' };

/** For a bench's header: a line saying so when the environment had what the timed commands run without. */
export function printTimingNote() {
  if (process.env.NODE_EXTRA_CA_CERTS)
    console.log('timed without NODE_EXTRA_CA_CERTS (Node would parse that CA bundle at every start; headroom checks no certificate in these runs)');
}

export function timed(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const quoted = [command, ...args].map((a) => `'${String(a).replace(/'/g, "'\\''")}'`).join(' ');
    const child = spawn('bash', ['-c', `${quoted}; status=$?; echo "@@times"; times; exit $status`], { env: { ...process.env, ...UNSET, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${command} exited ${code}: ${(err || out).trim().split('\n').slice(-3).join(' | ')}`));
      const [output, times] = out.split('@@times');
      const [, children] = times.trim().split('\n');
      const seconds = children
        .trim()
        .split(/\s+/)
        .map((t) => {
          const m = /(\d+)m([\d.]+)s/.exec(t);
          return Number(m[1]) * 60 + Number(m[2]);
        });
      resolve({ output, stderr: err, cpuSeconds: seconds[0] + seconds[1], userSeconds: seconds[0], systemSeconds: seconds[1] });
    });
  });
}
