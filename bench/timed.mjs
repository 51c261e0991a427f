// Shared by the side-by-side benchmarks: runs a command under bash and returns its output and its
// children's CPU seconds from bash's `times` (user + system, and each apart), so each tool pays for
// its own start-up.
import { spawn } from 'node:child_process';

export function timed(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const quoted = [command, ...args].map((a) => `'${String(a).replace(/'/g, "'\\''")}'`).join(' ');
    const child = spawn('bash', ['-c', `${quoted}; status=$?; echo "@@times"; times; exit $status`], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${command} exited ${code}: ${(err || out).trim().split('\n').slice(-3).join(' | ')}`));
      const [output, times] = out.split('@@times');
      const [, children] = times.trim().split('\n');
      const seconds = children.trim().split(/\s+/).map((t) => {
        const m = /(\d+)m([\d.]+)s/.exec(t);
        return Number(m[1]) * 60 + Number(m[2]);
      });
      resolve({ output, stderr: err, cpuSeconds: seconds[0] + seconds[1], userSeconds: seconds[0], systemSeconds: seconds[1] });
    });
  });
}
