/**
 * A connection's prepared statements by SQL text: a transaction type prepares its statements once
 * per terminal, and a second prepare() of the same text on the same connection (another type)
 * reuses them. A reconnect opens a new connection, whose cache starts empty.
 */
export class StatementCache<S> {
  private readonly byText = new Map<string, S>();

  async get(sql: string, prepare: () => Promise<S>): Promise<S> {
    let statement = this.byText.get(sql);
    if (statement === undefined) {
      statement = await prepare();
      this.byText.set(sql, statement);
    }
    return statement;
  }
}
