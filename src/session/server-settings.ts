import type { Connection, Driver, SettingPlan } from '../drivers/driver.js';
import { UserError } from '../errors.js';
import type { Target } from '../config/target.js';
import { PendingChanges, holdSettings, sameValue, type SettingHolds } from './pending-settings.js';
import type { ServerSettingsRecord, SettingApplied, SettingAsked } from '../result/server-settings-record.js';

/** How long a reloaded configuration may take to reach the sessions (PostgreSQL's SIGHUP is asynchronous). */
const RELOAD_WAIT_MS = 3_000;

export const ACCEPT_DATA_LOSS = 'i-accept-data-loss';

/** Where the server runs, whether the user accepted a setting that risks acknowledged data there, and the verb. */
export interface SettingsContext {
  target: Target;
  serverOnThisMachine: boolean;
  acceptDataLoss: boolean;
  /** `run`, `experiment peak`: named to another command that finds the settings held. */
  command: string;
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

type GlobalPlan = Extract<SettingPlan, { scope: 'global' }>;

/**
 * Applies --set settings for the length of a run and puts back what it changed server-wide.
 * Every setting is planned before any is applied, and the server-wide ones held against other
 * headroom commands, so a refused one changes nothing. A value found changed when the run ends
 * is someone else's: it is recorded and left as it is.
 */
export class ServerSettings {
  private restoredOnce = false;
  private pending?: PendingChanges;
  private holds?: SettingHolds;
  /** The global plans whose statements all ran: a value other than theirs found later was changed by someone else. */
  private readonly inEffect = new Set<GlobalPlan>();

  private constructor(
    private readonly driver: Driver,
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
    const settings = new ServerSettings(driver, conn, plans, warn);
    const globals = plans.filter(({ plan }) => plan.scope === 'global');
    const changes = globals.flatMap(({ plan }) => (plan.scope === 'global' ? [plan.change] : []));
    if (changes.length > 0) {
      // Refuses a setting another command holds before anything changes (session settings are each connection's own).
      const holds = await holdSettings(
        driver,
        conn,
        context.target,
        globals.map(({ asked }) => asked),
      );
      settings.holds = holds;
      try {
        // Recorded before anything changes, so a killed run leaves a record the next command finds.
        settings.pending = await PendingChanges.begin(driver, conn, context.target, changes, warn, context.command);
      } catch (error) {
        await holds.release(conn);
        throw error;
      }
    }
    try {
      for (const { plan } of plans) {
        if (plan.scope === 'global') await settings.applyGlobal(plan);
        // The admin connection too, so serverInfo (and its durability label) sees the session value.
        else await conn.query(plan.statement);
      }
      await settings.recordAsSpelt();
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

  /**
   * Puts back every global setting that was changed, where the value in force is still the one
   * this command set; once, whatever happens to the run. Then lets go of the holds.
   */
  async restore(): Promise<void> {
    if (this.restoredOnce) return;
    this.restoredOnce = true;
    let allBack = true;
    for (const { plan, applied } of [...this.plans].reverse()) {
      if (plan.scope !== 'global' || applied.restored !== false) continue;
      const now = await this.inForce(plan);
      if (now.read && !sameValue(now.value, plan.change.set)) {
        this.leave(plan, applied, now.value);
        continue;
      }
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
    await this.holds?.release(this.conn);
  }

  /** A value not the one this command set: someone else's, or the old one again; either way not this command's to change. */
  private leave(plan: GlobalPlan, applied: SettingApplied, now: string | undefined): void {
    const back = sameValue(now, plan.change.restoreTo);
    applied.restored = back;
    // A change whose statements never all ran was not in force to be changed under the run.
    if (!this.inEffect.has(plan)) return;
    // No value of its own (PostgreSQL's ALTER SYSTEM RESET): the server's configuration file or default rules.
    applied.changedTo = back ? plan.previous : (now ?? 'unset');
    const changed = `was changed while this command ran, which did not run all its time at ${applied.value}`;
    if (back) {
      this.warn(`${applied.name} was already back at ${plan.previous} when this command ended, not at the ${applied.value} it set: it ${changed}`);
    } else {
      const left = now === undefined ? 'unset (the configuration file or default applies)' : `at ${now}`;
      this.warn(
        `left ${applied.name} ${left}: it is not the ${applied.value} this command set, so it ${changed}; headroom leaves the value in force (to go back to ${plan.previous} by hand: ${plan.restore.join('; ')})`,
      );
    }
  }

  /** The value in force where the record compares it; read false: it could not be read, and the change is put back as asked. */
  private async inForce(plan: GlobalPlan): Promise<{ read: boolean; value?: string }> {
    const store = this.driver.pendingStore;
    if (!store) return { read: false };
    try {
      const value = await store.inForce(this.conn, plan.change);
      return value === undefined ? { read: true } : { read: true, value };
    } catch {
      return { read: false };
    }
  }

  /**
   * The value each change set, as the DBMS spells it where it is compared (MariaDB answers OFF for
   * 0): kept in the records, so that a later look does not take headroom's own value for someone
   * else's. Read right after the change, under the hold, it is this command's.
   */
  private async recordAsSpelt(): Promise<void> {
    let respelt = false;
    for (const plan of this.inEffect) {
      const now = await this.inForce(plan);
      if (!now.read || now.value === undefined || now.value === plan.change.set) continue;
      plan.change.set = now.value;
      respelt = true;
    }
    if (respelt) await this.pending?.rewrite(this.conn);
  }

  private async applyGlobal(plan: GlobalPlan): Promise<void> {
    const entry = this.plans.find((p) => p.plan === plan)!;
    entry.applied.restored = false;
    for (const sql of plan.apply) await this.conn.query(sql);
    this.inEffect.add(plan);
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
