/**
 * headroom-oltp's module API: `import { defineWorkload } from 'headroom-oltp'` in a workload module
 * run by `headroom run ./my-workload.ts`. Kept small: importing it loads no driver and no engine.
 */
export { defineWorkload, WORKLOAD_MARK } from './module/api.js';
/** The chain study's reference generator and where a terminal's generator starts (chain-model.md, "Runs"). */
export { RefGenerator, START_R, distributedStart, runStart } from './workloads/chain/generator.js';
export { Random } from './common/random.js';
export type {
  CheckResult,
  Connection,
  DbmsName,
  DefinedWorkload,
  DemandDefinition,
  LoadContext,
  OptionDefinition,
  OptionsDefinition,
  OptionValuesOf,
  Row,
  SqlValue,
  Statement,
  TableDefinition,
  TerminalContext,
  TransactionDefinition,
  WorkloadContext,
  WorkloadDefinition,
} from './module/api.js';
