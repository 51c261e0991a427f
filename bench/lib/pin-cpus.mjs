// Pins the local database servers to some CPUs for a bench and puts their affinity back afterwards,
// also when the bench is interrupted (Ctrl-C, SIGTERM). PostgreSQL forks a backend per connection
// from the postmaster, and a forked process inherits its parent's affinity: pinning the postmaster
// pins the backends still to come, and its children (background processes, open backends) are
// pinned too. MariaDB serves connections from threads of one process: `taskset -a` pins every
// thread it has, and threads it creates later inherit the creating thread's affinity.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** The CPUs a process may run on, as taskset lists them ("0-1", "1"). */
function affinity(pid) {
  return /list: (\S+)/.exec(execFileSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' }))[1];
}

function setAffinity(pid, cpus, allThreads) {
  execFileSync('taskset', [...(allThreads ? ['-a'] : []), '-c', '-p', cpus, String(pid)], { stdio: 'ignore' });
}

/** The processes whose parent is `pid`. */
function childrenOf(pid) {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the command in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** A server process to pin: `pid`, and whether its children (PostgreSQL) or its threads (MariaDB) go with it. */
export function serverProcess(name, pid, kind) {
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no process id for ${name}`);
  try {
    process.kill(pid, 0);
  } catch {
    throw new Error(`${name}'s process ${pid} is not on this machine (--pin needs the servers here)`);
  }
  return { name, pid, kind };
}

/**
 * Pins `servers` to `cpus` and returns restore(), which puts each process back as it was: the
 * postmaster and every child that still has the pinned list (those pinned here and the backends
 * forked meanwhile), MariaDB's process with all its threads.
 */
export function pinServers(servers, cpus) {
  const before = servers.map((server) => ({ ...server, cpus: affinity(server.pid) }));
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    for (const server of before) {
      try {
        if (server.kind === 'threads') setAffinity(server.pid, server.cpus, true);
        else {
          setAffinity(server.pid, server.cpus, false);
          for (const child of childrenOf(server.pid)) {
            try {
              if (affinity(child) === cpus) setAffinity(child, server.cpus, false);
            } catch {
              // Ended meanwhile.
            }
          }
        }
      } catch (error) {
        console.error(
          `could not put ${server.name}'s CPU affinity back to ${server.cpus}: ${error.message}; run: taskset -a -c -p ${server.cpus} ${server.pid}`,
        );
      }
    }
  };
  const onSignal = (signal) => {
    restore();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', restore);
  try {
    for (const server of before) {
      if (server.kind === 'threads') setAffinity(server.pid, cpus, true);
      else {
        setAffinity(server.pid, cpus, false);
        for (const child of childrenOf(server.pid)) {
          try {
            setAffinity(child, cpus, false);
          } catch {
            // Ended meanwhile.
          }
        }
      }
    }
  } catch (error) {
    restore();
    throw error;
  }
  return {
    before: before.map((s) => `${s.name} (pid ${s.pid}) ${s.cpus}`).join(', '),
    restore() {
      restore();
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('exit', restore);
    },
  };
}
