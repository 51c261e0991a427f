import type { Connection, Driver, SettingPlan } from '../drivers/driver.js';
import { UserError } from '../errors.js';
import type { Target } from '../config/target.js';
import { PendingChanges } from './pending-settings.js';
import type { ServerSettingsRecord, SettingApplied, SettingAsked } from '../result/server-settings-record.js';

/** How long a reloaded configuration may take to reach the sessions (PostgreSQL's SIGHUP is asynchronous). */
const RELOAD_WAIT_MS = 3_000;

export const ACCEPT_DATA_LOSS = 'i-accept-data-loss';

/** Where the server runs and whether the user accepted a setting that risks acknowledged data there. */
export interface SettingsContext {
  target: Target;
  serverOnThisMachine: boolean;
  acceptDataLoss: boolean;
}

/** Parses the --set values; names are checked here once, since the drivers put them into SQL. */
export function parseSettings(texts: readonly string[] | undefined): SettingAsked[] {
  return (texts ?? []).map((text) => {
    const eq = text.indexOf('=');
    const name = eq < 0 ? '' : text.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) || eq === text.length - 1) {
      throw new UserError(`--set needs NAME=VALUE with a setting's name, not "${text}"`, 'e.g. --set synchronous_commit=off');
    }
    return { name, value: text.slice(eq + 1).trim() };
  });
}

/**
 * Applies --set settings for the length of a run and puts back what it changed server-wide.
 * Every setting is planned before any is applied, so a refused one changes nothing.
 */
export class ServerSettings {
  private restoredOnce = false;
  private pending?: PendingChanges;

  private constructor(
    private readonly conn: Connection,
    private readonly plans: { asked: SettingAsked; plan: SettingPlan; applied: SettingApplied }[],
    private readonly warn: (message: string) => void,
  ) {}

  static async apply(
    driver: Driver,
    conn: Connection,
    asked: readonly SettingAsked[],
    warn: (message: string) => void,
    context: SettingsContext,
  ): Promise<ServerSettings> {
    const plans = [];
    for (const setting of asked) {
      const plan = await driver.planSetting(conn, setting.name, setting.value);
      plans.push({ asked: setting, plan, applied: { ...setting, scope: plan.scope, ...(plan.scope === 'global' ? { previous: plan.previous } : {}) } });
    }
    // Any value but the durable ones of a setting that can lose acknowledged commits (Driver.durableValues).
    const durable = driver.durableValues ?? {};
    const risksData = (asked: SettingAsked): boolean => !(durable[asked.name.toLowerCase()]?.includes(asked.value.toLowerCase()) ?? true);
    const risky = plans.filter(({ asked, plan }) => plan.scope === 'global' && risksData(asked));
    if (risky.length > 0 && !context.serverOnThisMachine && !context.acceptDataLoss) {
      const names = risky.map(({ asked }) => `${asked.name}=${asked.value}`).join(', ');
      throw new UserError(
        `--set ${names} would let the server at ${serverAddress(context.target)} lose commits it acknowledged, for every user until headroom puts it back`,
        `add --${ACCEPT_DATA_LOSS} if that server holds nothing you need`,
      );
    }
    const settings = new ServerSettings(conn, plans, warn);
    const changes = plans.flatMap(({ plan }) => (plan.scope === 'global' ? [plan.change] : []));
    // Recorded before anything changes, so a killed run leaves a record the next command finds.
    if (changes.length > 0) settings.pending = await PendingChanges.begin(driver, conn, context.target, changes, warn);
    try {
      for (const { plan } of plans) {
        if (plan.scope === 'global') await settings.applyGlobal(plan);
        // The admin connection too, so serverInfo (and its durability label) sees the session value.
        else await conn.query(plan.statement);
      }
    } catch (error) {
      await settings.restore();
      throw error;
    }
    return settings;
  }

  /** Statements every terminal runs on each connection it opens. */
  get sessionStatements(): string[] {
    return this.plans.flatMap(({ plan }) => (plan.scope === 'session' ? [plan.statement] : []));
  }

  record(): ServerSettingsRecord {
    return { asked: this.plans.map((p) => p.asked), applied: this.plans.map((p) => p.applied) };
  }

  /** What puts back the global settings still changed, for a user who quits before restore() runs. */
  unrestored(): string | undefined {
    const left = this.plans.filter((p) => p.plan.scope === 'global' && p.applied.restored === false);
    if (left.length === 0) return undefined;
    return `settings left changed on the server; the next headroom command against it puts them back, or by hand: ${left.flatMap((p) => (p.plan.scope === 'global' ? p.plan.restore : [])).join('; ')}`;
  }

  /** Puts back every global setting that was changed; once, whatever happens to the run. */
  async restore(): Promise<void> {
    if (this.restoredOnce) return;
    this.restoredOnce = true;
    let allBack = true;
    for (const { plan, applied } of [...this.plans].reverse()) {
      if (plan.scope !== 'global' || applied.restored !== false) continue;
      try {
        for (const sql of plan.restore) await this.conn.query(sql);
        applied.restored = true;
      } catch (error) {
        allBack = false;
        this.warn(`could not put ${applied.name} back to ${plan.previous} (${(error as Error).message}); do it by hand: ${plan.restore.join('; ')}`);
      }
    }
    // A change not put back keeps its record, for the next command to try again.
    if (allBack) await this.pending?.end(this.conn);
  }

  private async applyGlobal(plan: Extract<SettingPlan, { scope: 'global' }>): Promise<void> {
    const entry = this.plans.find((p) => p.plan === plan)!;
    entry.applied.restored = false;
    for (const sql of plan.apply) await this.conn.query(sql);
    if (plan.current === undefined) return;
    // Wait until the reload has reached this session, so terminals opened next see the value.
    const deadline = Date.now() + RELOAD_WAIT_MS;
    while (Date.now() < deadline) {
      const [[now]] = (await this.conn.query(plan.current)) as [[unknown]];
      if (String(now) !== plan.previous) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function serverAddress(target: Target): string {
  // An embedded DBMS's place is its file.
  return 'file' in target ? target.file : `${target.host}:${target.port}`;
}
