import { createRequire } from 'node:module';
import { MalformedPacket, type XdrReader } from './xdr.js';

/** One code of a status vector with the arguments its message text takes (@1, @2, ...). */
export interface StatusItem {
  gdscode: number;
  params: (string | number)[];
}

/**
 * An error the server reported: its status vector, in the shape the driver's classification
 * (../errors.ts) reads: `gdscode` (the first code) and `status` (all of them).
 */
export class FirebirdServerError extends Error {
  override readonly name = 'FirebirdServerError';
  readonly gdscode: number;
  constructor(
    readonly status: StatusItem[],
    readonly sqlState: string | undefined,
  ) {
    super(statusText(status));
    this.gdscode = status[0]!.gdscode;
  }
}

const ARG = { end: 0, gds: 1, string: 2, cstring: 3, number: 4, interpreted: 5, warning: 18, sqlState: 19 } as const;

/** Reads a status vector; returns an error when it holds one (warnings alone are not). */
export function readStatus(r: XdrReader): FirebirdServerError | undefined {
  let items: StatusItem[] | undefined;
  let current: StatusItem | undefined;
  let sqlState: string | undefined;
  let inWarning = false;
  for (;;) {
    const arg = r.int32();
    switch (arg) {
      case ARG.end:
        return items && items.length > 0 ? new FirebirdServerError(items, sqlState) : undefined;
      case ARG.gds: {
        const code = r.int32();
        inWarning = false;
        if (code === 0) break;
        current = { gdscode: code, params: [] };
        (items ??= []).push(current);
        break;
      }
      case ARG.warning:
        r.int32();
        inWarning = true;
        current = undefined;
        break;
      case ARG.string:
      case ARG.cstring:
      case ARG.interpreted: {
        const text = r.string(65_535);
        if (!inWarning) current?.params.push(text);
        break;
      }
      case ARG.sqlState:
        sqlState = r.string(64);
        break;
      case ARG.number: {
        const n = r.int32();
        if (!inWarning) current?.params.push(n);
        break;
      }
      default:
        throw new MalformedPacket(`a status vector with argument type ${arg}`);
    }
  }
}

let texts: Record<string, string> | undefined;

/** The message texts of Firebird's codes, from the copy of firebird.msg node-firebird ships; read on the first error only. */
function messageTexts(): Record<string, string> {
  if (!texts) {
    try {
      texts = createRequire(import.meta.url)('node-firebird/lib/firebird.msg.json') as Record<string, string>;
    } catch {
      texts = {};
    }
  }
  return texts;
}

function statusText(status: StatusItem[]): string {
  return status
    .map(({ gdscode, params }) => {
      const text = messageTexts()[String(gdscode)];
      if (text === undefined) return `Firebird error ${gdscode}${params.length ? ` (${params.join(', ')})` : ''}`;
      return text.replace(/@(\d+)/g, (_, n: string) => String(params[Number(n) - 1] ?? ''));
    })
    .join(', ');
}
