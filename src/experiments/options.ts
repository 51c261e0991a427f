import { defineOption, type OptionValuesOf } from '../config/options.js';
import type { DB_OPTION, SERVER_SETTINGS_OPTIONS } from '../session/options.js';

/** -o of an experiment: its file, named after it by default. */
export function experimentOutOption<const Name extends string>(name: Name) {
  return defineOption({ long: 'out', short: 'o', type: 'string', value: 'FILE', help: `experiment file (default headroom-results/${name}-DBMS-TIME.json)` });
}

/** What runExperiment reads of every experiment's options: the target, --set and its consent, -o. */
export type ExperimentFrameValues = OptionValuesOf<[typeof DB_OPTION, ...typeof SERVER_SETTINGS_OPTIONS, ReturnType<typeof experimentOutOption>]>;
