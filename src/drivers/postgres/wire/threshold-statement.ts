import type { DeclaredType } from '../../driver.js';
import type { BindWriter } from './bind.js';
import { MessageWriter } from './writer.js';

/** Type OIDs a Parse declares: 0 leaves the parameter's type to the server (pgJDBC's setTimestamp). */
const DECLARED_OIDS: Record<DeclaredType, number> = { integer: 23, bigint: 20, unspecified: 0 };
/** Execute("", 0 = all rows) and Sync: the tail BindWriter puts after every Bind. */
const EXECUTE_SYNC_LENGTH = 15;
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);
const DESCRIBE_PORTAL = new MessageWriter().begin(0x44).bytes('P').cstring('').end().take();

/**
 * A statement with parameters sent as pgJDBC sends a PreparedStatement under its prepareThreshold
 * (default 5), as captured from pgJDBC 42.5 (docs/chain-model.md, "What pgJDBC sends"):
 * executions 1 .. threshold-1 go through the unnamed statement, Parse, Bind, Describe portal,
 * Execute, Sync in one write, so the server parses and plans each; execution `threshold` parses
 * it under a name in the same write (Parse, Describe statement when a parameter's type is left to
 * the server, else Describe portal after the Bind, Bind, Execute, Sync); later ones send only
 * Bind, Execute, Sync. A naming execution that fails leaves the name in doubt (the Parse may have
 * succeeded), so the next execution closes the name before parsing it again.
 */
export class PgThresholdStatement {
  /** Executions sent so far through the unnamed statement or the naming one. */
  private executions = 0;
  /** Parsed under the name (or sent so): later executions only bind it. */
  named = false;
  /** The last naming execution failed: close the name before parsing it again. */
  private inDoubt = false;
  /** The result columns' type OIDs, from the naming execution's Describe. */
  types: number[] = [];
  readonly bindHeadNamed: Buffer;
  private readonly bindHeadUnnamed: Buffer;
  private readonly parseUnnamed: Buffer;
  private readonly parseNamed: Buffer;
  private readonly closeNamed: Buffer;
  private readonly describeStatement: Buffer | undefined;

  constructor(
    name: string,
    sql: string,
    private readonly threshold: number,
    types: readonly DeclaredType[] | undefined,
  ) {
    const w = new MessageWriter();
    const parse = (statement: string): Buffer => {
      w.begin(0x50)
        .cstring(statement)
        .cstring(sql)
        .int16(types?.length ?? 0);
      for (const type of types ?? []) w.int32(DECLARED_OIDS[type]);
      return w.end().take();
    };
    this.parseUnnamed = parse('');
    this.parseNamed = parse(name);
    this.closeNamed = w.begin(0x43).bytes('S').cstring(name).end().take();
    // pgJDBC asks for the statement's parameter types when one was left to the server, and then needs no Describe portal.
    this.describeStatement = types?.includes('unspecified') ? w.begin(0x44).bytes('S').cstring(name).end().take() : undefined;
    // Unnamed portal, the statement, all parameters in text (Bind's parameter format count 0).
    this.bindHeadUnnamed = w.bytes('\0').cstring('').int16(0).take();
    this.bindHeadNamed = w.bytes('\0').cstring(name).int16(0).take();
  }

  /**
   * The next execution's bytes while the statement is not named yet (it counts the execution);
   * sets `named` when these bytes name it. `binds` encodes the Bind.
   */
  nextUnnamedOrNaming(binds: BindWriter, params: Parameters<BindWriter['write']>[1]): Buffer {
    const naming = ++this.executions >= this.threshold;
    const bind = binds.buffer.subarray(0, binds.write(naming ? this.bindHeadNamed : this.bindHeadUnnamed, params) - EXECUTE_SYNC_LENGTH);
    if (!naming) return Buffer.concat([this.parseUnnamed, bind, DESCRIBE_PORTAL, EXECUTE_SYNC]);
    const close = this.inDoubt ? [this.closeNamed] : [];
    this.named = true;
    this.inDoubt = false;
    return this.describeStatement
      ? Buffer.concat([...close, this.parseNamed, this.describeStatement, bind, EXECUTE_SYNC])
      : Buffer.concat([...close, this.parseNamed, bind, DESCRIBE_PORTAL, EXECUTE_SYNC]);
  }

  /** The naming execution failed: the server may or may not hold the name. */
  namingFailed(): void {
    this.named = false;
    this.inDoubt = true;
  }
}
