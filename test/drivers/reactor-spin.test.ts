import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { connectTransport } from '../../src/drivers/transport/connect.js';
import { loadReactor, spinWanted, type ReactorAddon, type SpinState } from '../../src/drivers/transport/native-transport.js';
import { allowedCpus } from '../helpers/cpus.js';
import { within } from '../helpers/fake-server.js';
import { skipOrFail } from '../helpers/skip-or-fail.js';

/**
 * The reactor's waits between batches poll a little before they sleep (native/spin.c), and only
 * where that pays: the window opens where answers come within microseconds, closes where they take
 * milliseconds, stays shut with HEADROOM_SPIN=off, never keeps an idle client busy or alive, and in
 * auto (the default) the reactor's trials keep it from polling where polling costs more CPU.
 */
/** The addon, with this thread's reactor made (by one exchange): spin() needs it. */
async function reactor(t: TestContext): Promise<ReactorAddon | undefined> {
  const addon = loadReactor();
  if (!addon && skipOrFail(t, 'the native reactor is not built: npm run build:native (Linux, python3, make, a C compiler)')) return undefined;
  assert.ok(addon?.spin, 'this build of the reactor has spin()');
  const before = process.env['HEADROOM_TRANSPORT'];
  process.env['HEADROOM_TRANSPORT'] = 'native';
  t.after(() => {
    if (before === undefined) delete process.env['HEADROOM_TRANSPORT'];
    else process.env['HEADROOM_TRANSPORT'] = before;
  });
  await exchanges(await echoServer(t, 0), 1);
  t.after(() => void addon!.spin!(spinWanted()));
  return addon!;
}

/** An echo server on loopback that answers each message after `delayMs` (0: at once). */
async function echoServer(t: TestContext, delayMs: number): Promise<{ host: string; port: number }> {
  const server = net.createServer((socket) => {
    socket.on('data', (d: Buffer) => {
      if (delayMs === 0) socket.write(d);
      else setTimeout(() => socket.write(d), delayMs);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
}

/**
 * Two CPUs apart: the client's and the busy echo server's. Both poll, so on one CPU each would
 * hold it while the other waits to answer or to read, and every answer would come after a sleep
 * however quick the server; where the kernel left them on one CPU (it did, in about half the runs
 * on a 2-core machine) polling caught almost nothing. `pinClient` pins every thread of this test
 * process to the first, until the test ends; the server pins itself to the second. Undefined, and
 * the test skipped, on a machine with one CPU, where polling cannot catch another process's answer.
 */
function twoCpus(t: TestContext): { client: number; server: number } | undefined {
  const cpus = allowedCpus();
  if (cpus.length < 2) {
    t.skip(`needs two CPUs, one for the client and one for the polling echo server; this process may use ${cpus.length}`);
    return undefined;
  }
  return { client: cpus[0]!, server: cpus[1]! };
}

function pinClient(t: TestContext, cpu: number): void {
  const all = allowedCpus().join(',');
  const taskset = (list: string): void => void execFileSync('taskset', ['-a', '-p', '-c', list, String(process.pid)], { stdio: 'ignore' });
  taskset(String(cpu));
  t.after(() => taskset(all));
}

/**
 * An echo server in a process of its own, on CPU `cpu`, that never sleeps (it polls its socket),
 * and spends `busyUs` of its CPU on each message before it answers: so each answer comes a set time
 * after the request, whatever the machine's wake-ups cost. One connection at a time. Python: a
 * plain loop, no event loop.
 */
async function busyEchoServer(t: TestContext, busyUs: number, cpu: number): Promise<{ host: string; port: number }> {
  const source = [
    'import os, socket, sys, time',
    `os.sched_setaffinity(0, {${cpu}})`,
    'server = socket.create_server(("127.0.0.1", 0))',
    'print(server.getsockname()[1], flush=True)',
    'while True:',
    '    connection, _ = server.accept()',
    '    connection.setblocking(False)',
    '    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)',
    '    while True:',
    '        try:',
    '            data = connection.recv(4096)',
    '        except BlockingIOError:',
    '            continue',
    '        if not data:',
    '            break',
    `        until = time.perf_counter() + ${busyUs / 1e6}`,
    '        while time.perf_counter() < until:',
    '            pass',
    '        connection.sendall(data)',
    '    connection.close()',
  ].join('\n');
  const child = spawn('python3', ['-c', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => void child.kill('SIGKILL'));
  const port = await within(
    10_000,
    'the echo server listening',
    new Promise<number>((resolve, reject) => {
      child.once('error', (error) => reject(new Error(`python3, which the busy echo server needs: ${error.message}`)));
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    }),
  );
  return { host: '127.0.0.1', port };
}

/**
 * The reactor, with this test process pinned to one CPU and a busy echo server that answers after
 * `busyUs` pinned to another (twoCpus); undefined where the test is skipped.
 */
async function pinnedReactorAndServer(t: TestContext, busyUs: number): Promise<{ addon: ReactorAddon; server: { host: string; port: number } } | undefined> {
  const cpus = twoCpus(t);
  const addon = cpus && (await reactor(t));
  if (!cpus || !addon) return undefined;
  pinClient(t, cpus.client);
  return { addon, server: await busyEchoServer(t, busyUs, cpus.server) };
}

/**
 * `rounds` request-and-answer exchanges, one at a time, on one native connection; resolves to the
 * median time from a request's write to its answer, in microseconds.
 */
async function exchanges(address: { host: string; port: number }, rounds: number): Promise<number> {
  let answered = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const request = Buffer.from('ping;');
  const roundTrips = new Float64Array(rounds);
  let sentAt = 0;
  const send = (): void => {
    sentAt = performance.now();
    transport.write(request, 0, request.length);
  };
  const transport = await connectTransport(
    address,
    {
      onData: (buffer, start, end) => {
        for (let at = start; at < end; at++) if (buffer[at] === 0x3b) roundTrips[answered++] = (performance.now() - sentAt) * 1000;
        if (answered === rounds) done();
        else send();
      },
      onClose: () => {},
    },
    5_000,
  );
  assert.equal(transport.kind, 'native');
  send();
  await finished;
  transport.close();
  return roundTrips.sort()[Math.floor(rounds / 2)]!;
}

const since = (before: SpinState, after: SpinState): string =>
  `window ${after.windowUs} us, ${after.caught - before.caught} wait(s) caught while polling, ${after.slept - before.slept} slept`;

test('answers that come at once open the window and are caught while polling; answers 5 ms apart close it', async (t) => {
  const pinned = await pinnedReactorAndServer(t, 0);
  if (!pinned) return;
  const { addon, server } = pinned;
  const start = addon.spin!('on');
  assert.equal(start.mode, 'on');
  assert.equal(start.windowUs, 0, 'turned on again, the window starts shut');

  await exchanges(server, 300);
  const quick = addon.spin!();
  t.diagnostic(`quick answers: ${since(start, quick)}`);
  assert.ok(quick.windowUs > 0, `the window opened: ${since(start, quick)}`);
  assert.ok(quick.caught - start.caught > 100, `most waits were caught while polling: ${since(start, quick)}`);

  await exchanges(await echoServer(t, 5), 20);
  const slow = addon.spin!();
  t.diagnostic(`answers 5 ms apart: ${since(quick, slow)}`);
  assert.equal(slow.windowUs, 0, `the window closed: ${since(quick, slow)}`);
  assert.ok(slow.slept - quick.slept >= 15, `the waits slept: ${since(quick, slow)}`);
  // Each wait that polled in vain halved the window: a handful at most, then it slept at once.
  assert.ok(slow.caught - quick.caught <= 2, `no 5-ms wait can be caught in a window of 50 us: ${since(quick, slow)}`);
});

test('HEADROOM_SPIN=off: every wait sleeps at once, whatever the answers', async (t) => {
  const addon = await reactor(t);
  if (!addon) return;
  const off = addon.spin!('off');
  assert.equal(off.mode, 'off');
  await exchanges(await echoServer(t, 0), 200);
  const after = addon.spin!();
  t.diagnostic(`off: ${since(off, after)}`);
  assert.equal(after.windowUs, 0);
  assert.equal(after.caught, off.caught, 'no wait polled');
});

test('HEADROOM_SPIN: auto (or unset), on or off, anything else refused in one line', () => {
  assert.equal(spinWanted({}), 'auto');
  assert.equal(spinWanted({ HEADROOM_SPIN: '' }), 'auto');
  assert.equal(spinWanted({ HEADROOM_SPIN: 'auto' }), 'auto');
  assert.equal(spinWanted({ HEADROOM_SPIN: 'on' }), 'on');
  assert.equal(spinWanted({ HEADROOM_SPIN: 'off' }), 'off');
  assert.throws(() => spinWanted({ HEADROOM_SPIN: '50' }), /^UserError: HEADROOM_SPIN=50 is not auto, on or off$/);
});

test("auto: where answers come 20 us late, polling is tried, and kept only as spin.c's rule says", async (t) => {
  const pinned = await pinnedReactorAndServer(t, 20);
  if (!pinned) return;
  const { addon, server } = pinned;
  // First, that polling does catch these answers: with the window forced open, a good share of
  // them. Up to three tries: on this virtual machine the server's answers sometimes come after a
  // median of 60-70 us instead of 30-35 for minutes at a time (its CPU not run, or shared), and
  // each answer later than the window narrows it, so that a try may catch next to none.
  let best = 0;
  let quickest = Infinity;
  for (let attempt = 1; attempt <= 3 && best <= 100; attempt++) {
    const on = addon.spin!('on');
    const medianUs = await exchanges(server, 2_000);
    const polled = addon.spin!();
    best = Math.max(best, polled.caught - on.caught);
    quickest = Math.min(quickest, medianUs);
    t.diagnostic(`on, try ${attempt}: ${since(on, polled)}; answers came after a median ${medianUs.toFixed(1)} us`);
  }
  // Where even the quickest try's answers came later than the widest window (spin.c's SPIN_MAX_NS,
  // 50 us), every wait that slept was too long to widen it, and the window rightly stayed shut (seen
  // here on a slow day: medians of 81-106 us in all three tries, all but a few waits slept).
  assert.ok(
    best > 100 || quickest >= 50,
    `polling catches some of these answers: ${best} of 2,000 at best in three tries, the quickest at a median of ${quickest.toFixed(1)} us`,
  );

  // Then auto: four epochs sleeping at the start (8,192 events), then a trial of four, each 0.1 s
  // of settling and 2,048 events counted: at 20,000 exchanges a second, about 24,500 in all.
  const auto = addon.spin!('auto');
  assert.equal(auto.mode, 'auto');
  assert.equal(auto.polls, false, 'auto sleeps until a trial says otherwise');
  await exchanges(server, 40_000);
  const after = addon.spin!();
  const figures =
    `polling ${(after.trialPollingNs / 1000).toFixed(1)} us of CPU per event at ${Math.round(after.trialPollingRate)} a second, ` +
    `sleeping ${(after.trialSleepingNs / 1000).toFixed(1)} at ${Math.round(after.trialSleepingRate)}; ${since(auto, after)}`;
  t.diagnostic(`auto: ${after.trials} trial(s), ${after.pollingWon} won by polling; ${figures}`);
  assert.equal(after.trials, 1, `one trial ended, and the hold after it began: ${figures}`);
  assert.ok(after.trialPollingNs > 0 && after.trialSleepingNs > 0, `the trial measured both ways' CPU: ${figures}`);
  assert.ok(after.trialPollingRate > 0 && after.trialSleepingRate > 0, `the trial measured both ways' rate: ${figures}`);
  // Where the polling client saw most answers well within the widest window (spin.c's SPIN_MAX_NS,
  // 50 us), the trial's polling epochs caught some. Where they came later, polling epochs opened
  // the window and the late answers shut it again, as they should (seen: 0 caught after answers
  // at a median of 67 us).
  if (quickest < 40) assert.ok(after.caught > 0, `the trial's polling epochs polled (answers at a median of ${quickest.toFixed(1)} us): ${figures}`);
  // Which way is cheaper belongs to the machine, not to the code: with settled epochs, polling
  // came to 21-31 us an event here and sleeping to 16-19 on most days; on a day when this virtual
  // machine's wake-ups were slow, sleeping came to 29-41 and polling to 30-39, either one the
  // cheaper. So the test checks the decision against the trial's own figures, whichever way they fell.
  // The hold after the first trial (64 epochs) has begun: the waits do as the decision said.
  // spin.c keeps polling where it is 10% cheaper, or 10% quicker for at most 10% more CPU.
  const cheaper = after.trialPollingNs < after.trialSleepingNs * 0.9;
  const quicker = after.trialPollingRate > after.trialSleepingRate * 1.1;
  const notDearer = after.trialPollingNs < after.trialSleepingNs * 1.1;
  assert.equal(after.polls, cheaper || (quicker && notDearer), `the waits poll as the rule says: ${figures}`);
  assert.equal(after.pollingWon, after.polls ? 1 : 0, figures);
});

test('auto: each epoch of a trial counts only after 0.1 s of its own way, so that it does not measure the way before', async (t) => {
  const pinned = await pinnedReactorAndServer(t, 0);
  if (!pinned) return;
  const { addon, server } = pinned;
  // spin.c: four epochs of 2,048 events sleeping at the start, then a trial of four epochs that
  // each count 2,048 events after settling for SETTLE_NS (0.1 s).
  const warmupEvents = 4 * 2_048;
  const countedEvents = 4 * 2_048;
  addon.spin!('auto');
  const marks: { done: number; at: number }[] = [{ done: 0, at: performance.now() }];
  let trialEnded: { done: number; at: number } | undefined;
  while (!trialEnded && marks.at(-1)!.done < 100_000) {
    await exchanges(server, 500);
    marks.push({ done: marks.at(-1)!.done + 500, at: performance.now() });
    if (addon.spin!().trials >= 1) trialEnded = marks.at(-1);
  }
  assert.ok(trialEnded, `a trial ended within 100,000 exchanges (${addon.spin!().trials} ended)`);
  // The trial began once the warm-up's events were in (this side of a 500-exchange step).
  const trialBegan = marks.find((m) => m.done >= warmupEvents)!;
  const events = trialEnded.done - trialBegan.done;
  const seconds = (trialEnded.at - trialBegan.at) / 1000;
  const uncountedSeconds = (events - countedEvents) / (events / seconds);
  t.diagnostic(`the trial took ${events} exchanges in ${seconds.toFixed(2)} s, ${uncountedSeconds.toFixed(2)} s of them not counted`);
  // Four settling periods of 0.1 s; without them the trial would end about 8,192 exchanges (under
  // 0.05 s of them uncounted, the 500-exchange steps' slack) after it began.
  assert.ok(uncountedSeconds >= 0.25, `about 0.4 s of the trial went uncounted, settling: ${uncountedSeconds.toFixed(2)} s`);
});

test('a client whose window is open still sleeps once its connection is idle, and exits when it is closed', async (t) => {
  const cpus = twoCpus(t);
  if (!cpus || !(await reactor(t))) return;
  const { port } = await busyEchoServer(t, 0, cpus.server);
  const module = new URL('../../src/drivers/transport/connect.js', import.meta.url).href;
  const addonModule = new URL('../../src/drivers/transport/native-transport.js', import.meta.url).href;
  // A child process: quick answers open the window, then the connection idles for 400 ms (the
  // CPU the process spends meanwhile is measured), then it is closed and nothing else is left.
  const source = `
    const [{ connectTransport }, { loadReactor }] = await Promise.all([import(${JSON.stringify(module)}), import(${JSON.stringify(addonModule)})]);
    let answered = 0;
    let opened;
    const request = Buffer.from('ping;');
    const transport = await connectTransport({ host: '127.0.0.1', port: ${port} }, {
      onData: () => {
        if (++answered < 300) return transport.write(request, 0, request.length);
        opened = loadReactor().spin().windowUs;
        const cpu = process.cpuUsage();
        setTimeout(() => {
          const used = process.cpuUsage(cpu);
          console.log(JSON.stringify({ opened, idleCpuMs: (used.user + used.system) / 1000 }));
          transport.close();
        }, 400);
      },
      onClose: () => {},
    }, 5000);
    transport.write(request, 0, request.length);
  `;
  const child = spawn('taskset', ['-c', String(cpus.client), process.execPath, '--input-type=module', '-e', source], {
    env: { ...process.env, HEADROOM_TRANSPORT: 'native', HEADROOM_SPIN: 'on' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  t.after(() => void child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const exit = await within(10_000, 'the child exiting once its connection was closed', exited);
  assert.equal(exit, 0, output);
  const report = JSON.parse(output.trim().split('\n').at(-1)!) as { opened: number; idleCpuMs: number };
  t.diagnostic(`window when the connection went idle: ${report.opened} us; CPU over 400 ms idle: ${report.idleCpuMs} ms`);
  assert.ok(report.opened > 0, 'the quick answers had opened the window');
  // Polling through the idle time would have cost about 400 ms of CPU; one window is 50 us.
  assert.ok(report.idleCpuMs < 100, `the idle client spent ${report.idleCpuMs} ms of CPU in 400 ms`);
});
