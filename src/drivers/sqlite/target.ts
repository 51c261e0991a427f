import { UserError } from '../../errors.js';
import { sortParameters } from '../../config/parameters.js';
import { URL_HINT, type TargetGrammar } from '../../config/target-grammar.js';
import { SQLITE_SYNCHRONOUS, type SqliteSynchronous, type SqliteTarget } from '../../config/target-types.js';
import { splitUrl } from '../../config/url.js';

/** SQLite's URLs, `sqlite:FILE[?synchronous=MODE]` (config/target.ts picks this by the scheme). */
export const SQLITE_TARGET: TargetGrammar<SqliteTarget> = {
  // The file must be named: a bare `sqlite` is no URL.
  bareName: false,
  resolve: (rest, text) => {
    // `?` starts parameters (synchronous only), never part of the file name; any other is refused.
    const queryAt = rest.indexOf('?');
    const { own } = sortParameters('sqlite', queryAt >= 0 ? splitUrl(rest.slice(queryAt), text, URL_HINT).params : []);
    const file = (queryAt < 0 ? rest : rest.slice(0, queryAt)).replace(/^\/\/(?=\/)/, '');
    if (file === '' || file === '//') throw new UserError('sqlite: needs a file name', 'use e.g. sqlite:./bench.db');
    const synchronous = sqliteSynchronous(own.get('synchronous'));
    return synchronous === undefined ? { dbms: 'sqlite', file } : { dbms: 'sqlite', file, synchronous };
  },
  describe: (target) => `sqlite:${target.file}${target.synchronous === undefined ? '' : `?synchronous=${target.synchronous}`}`,
};

const SQLITE_HINT = 'synchronous is full, normal or off, e.g. sqlite:./bench.db?synchronous=normal; full is the default';

function sqliteSynchronous(value: string | undefined): SqliteSynchronous | undefined {
  if (value === undefined) return undefined;
  const synchronous = SQLITE_SYNCHRONOUS.find((s) => s === value.toLowerCase());
  if (synchronous === undefined) throw new UserError(`?synchronous=${value} is not a SQLite synchronous mode`, SQLITE_HINT);
  return synchronous;
}
