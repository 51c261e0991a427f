import { EMPTY, tapCases, tapServer, type TapCase } from './harness.js';

/**
 * 002_pgbench_no_server.pl: command lines and scripts pgbench refuses before it connects (exit
 * status 1, nothing on stdout). The patterns are the TAP test's, with pgbench 15's own words where
 * they differ from later versions' (-c/--client).
 */
const option = (name: string, args: string, stderr: RegExp[], differs?: string): TapCase => ({
  name: `option error: ${name}`,
  args,
  status: 1,
  stdout: [EMPTY],
  stderr,
  ...(differs ? { differs } : {}),
});

const OPTIONS: TapCase[] = [
  option('bad option', '-h home -p 5432 -U calvin -d --bad-option', [/--help.*more information/]),
  option('no file', '-f no-such-file', [/could not open file "no-such-file":/]),
  option('no builtin', '-b no-such-builtin', [/no builtin script .* "no-such-builtin"/]),
  option('invalid weight', '--builtin=select-only@one', [/invalid weight specification: @one/]),
  option('invalid weight range', '-b select-only@-1', [/weight spec.* out of range .*: -1/]),
  option('too many scripts', '-S '.repeat(129), [/at most 128 SQL scripts/]),
  option('bad #clients', '-c three', [/invalid value "three" for option -c\/--client/]),
  option('bad #threads', '-j eleven', [/invalid value "eleven" for option -j\/--jobs/]),
  option('bad scale', '-i -s two', [/invalid value "two" for option -s\/--scale/]),
  option('invalid #transactions', '-t zil', [/invalid value "zil" for option -t\/--transactions/]),
  option('invalid duration', '-T ten', [/invalid value "ten" for option -T\/--time/]),
  option('-t XOR -T', '-N -l --aggregate-interval=5 --log-prefix=notused -t 1000 -T 1', [/specify either /]),
  option('-T XOR -t', '-P 1 --progress-timestamp -l --sampling-rate=0.001 -T 10 -t 1000', [/specify either /]),
  option('bad variable', '--define foobla', [/invalid variable definition/]),
  option('invalid fillfactor', '-F 1', [/-F\/--fillfactor must be in range/]),
  option('invalid query mode', '-M no-such-mode', [/invalid query mode/]),
  option('invalid progress', '--progress=0', [/-P\/--progress must be in range/]),
  option('invalid rate', '--rate=0.0', [/invalid rate limit/]),
  option('invalid latency', '--latency-limit=0.0', [/invalid latency limit/]),
  option('invalid sampling rate', '--sampling-rate=0', [/invalid sampling rate/]),
  option('invalid aggregate interval', '--aggregate-interval=-3', [/--aggregate-interval must be in range/]),
  option('weight zero', '-b se@0 -b si@0 -b tpcb@0', [/weight must not be zero/]),
  option('init vs run', '-i -S', [/cannot be used in initialization/]),
  option('run vs init', '-S -F 90', [/cannot be used in benchmarking/]),
  option('ambiguous builtin', '-b s', [/ambiguous/]),
  option('--progress-timestamp => --progress', '--progress-timestamp', [/allowed only under/]),
  option('-I without init option', '-I dtg', [/cannot be used in benchmarking mode/]),
  option('invalid init step', '-i -I dta', [/unrecognized initialization step/, /Allowed step characters are/]),
  option('bad random seed', '--random-seed=one', [
    /unrecognized random seed option "one"/,
    /Expecting an unsigned integer, "time" or "rand"/,
    /error while setting random seed from --random-seed option/,
  ]),
  option('bad partition method', '-i --partition-method=BAD', [/"range"/, /"hash"/, /"BAD"/]),
  option('bad partition number', '-i --partitions -1', [/--partitions must be in range/]),
  option('partition method without partitioning', '-i --partition-method=hash', [/partition-method requires greater than zero --partitions/]),
  option('bad maximum number of tries', '--max-tries -10', [/invalid number of maximum tries: "-10"/]),
  option('an infinite number of tries', '--max-tries 0', [/an unlimited number of transaction tries can only be used with --latency-limit or a duration/]),
  option('sampling => log', '--sampling-rate=0.01', [/log sampling .* only when/]),
  option('sampling XOR aggregate', '-l --sampling-rate=0.1 --aggregate-interval=3', [/sampling .* aggregation .* cannot be used at the same time/]),
  option('aggregate => log', '--aggregate-interval=3', [/aggregation .* only when/]),
  option('log-prefix => log', '--log-prefix=x', [/prefix .* only when/]),
  option('duration & aggregation', '-l -T 1 --aggregate-interval=3', [/aggr.* not be higher/]),
  option('duration % aggregation', '-l -T 5 --aggregate-interval=3', [/multiple/]),
];

const INFORMATION: TapCase[] = [
  {
    name: 'help',
    args: '--help',
    status: 0,
    stdout: [/benchmarking tool for PostgreSQL/, /Usage/, /Initialization options:/, /Common options:/, /Report bugs to/],
    stderr: [EMPTY],
  },
  {
    name: 'version',
    args: '-V',
    status: 0,
    stdout: [/^pgbench .PostgreSQL. /],
    stderr: [EMPTY],
  },
  {
    name: 'builtin list',
    args: '-b list',
    status: 0,
    stdout: [EMPTY],
    stderr: [/Available builtin scripts:/, /tpcb-like/, /simple-update/, /select-only/],
  },
  {
    name: 'builtin listing',
    args: '--show-script se',
    status: 0,
    stdout: [EMPTY],
    stderr: [/select-only: /, /SELECT abalance FROM pgbench_accounts WHERE/, /(?!UPDATE)/, /(?!INSERT)/],
  },
];

const script = (name: string, stderr: RegExp[], file: string, text: string): TapCase => ({
  name: `script error: ${name}`,
  args: '',
  status: 1,
  stdout: [EMPTY],
  stderr,
  files: { [file]: text },
});

const SCRIPTS: TapCase[] = [
  script('missing endif', [/\\if without matching \\endif/], 'if-noendif.sql', '\\if 1'),
  script('missing if on elif', [/\\elif without matching \\if/], 'elif-noif.sql', '\\elif 1'),
  script('missing if on else', [/\\else without matching \\if/], 'else-noif.sql', '\\else'),
  script('missing if on endif', [/\\endif without matching \\if/], 'endif-noif.sql', '\\endif'),
  script('elif after else', [/\\elif after \\else/], 'else-elif.sql', '\\if 1\n\\else\n\\elif 0\n\\endif'),
  script('else after else', [/\\else after \\else/], 'else-else.sql', '\\if 1\n\\else\n\\else\n\\endif'),
  script('if syntax error', [/syntax error in command "if"/], 'if-bad.sql', '\\if\n\\endif\n'),
  script('elif syntax error', [/syntax error in command "elif"/], 'elif-bad.sql', '\\if 0\n\\elif +\n\\endif\n'),
  script('else syntax error', [/unexpected argument in command "else"/], 'else-bad.sql', '\\if 0\n\\else BAD\n\\endif\n'),
  script('endif syntax error', [/unexpected argument in command "endif"/], 'endif-bad.sql', '\\if 0\n\\endif BAD\n'),
  script('not enough arguments for least', [/at least one argument expected \(least\)/], 'bad-least.sql', '\\set i least()\n'),
  script('not enough arguments for greatest', [/at least one argument expected \(greatest\)/], 'bad-greatest.sql', '\\set i greatest()\n'),
  script('not enough arguments for hash', [/unexpected number of arguments \(hash\)/], 'bad-hash-1.sql', '\\set i hash()\n'),
  script('too many arguments for hash', [/unexpected number of arguments \(hash\)/], 'bad-hash-2.sql', '\\set i hash(1,2,3)\n'),
  script('bigint overflow 1', [/bigint constant overflow/], 'overflow-1.sql', '\\set i 100000000000000000000\n'),
  script('double overflow 2', [/double constant overflow/], 'overflow-2.sql', '\\set d 1.0E309\n'),
  script('double overflow 3', [/double constant overflow/], 'overflow-3.sql', '\\set d .1E310\n'),
  script('set i', [/set i 1 /, /\^ error found here/], 'set_i_op', '\\set i 1 +\n'),
  script('not enough arguments to permute', [/unexpected number of arguments \(permute\)/], 'bad-permute-1.sql', '\\set i permute(1)\n'),
  script('too many arguments to permute', [/unexpected number of arguments \(permute\)/], 'bad-permute-2.sql', '\\set i permute(1, 2, 3, 4)\n'),
];

const server = tapServer(false);
tapCases(server, '002_pgbench_no_server', [...OPTIONS, ...INFORMATION, ...SCRIPTS], false);
