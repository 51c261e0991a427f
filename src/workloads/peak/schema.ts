/** Rows of the temporary table queries 5-7 join with itself (the study's 625). */
export const JOIN_ROWS = 625;

/** The small reference table of query 2: a catalog's id, code and name, as a business application keeps them. */
export const REFERENCE_TABLE = 'peak_reference';

/** Every table the peak queries make (temporary ones on DBMSs that make them per session, see dialect.ts). */
export const PEAK_TABLES: readonly string[] = [REFERENCE_TABLE, 'peak_tmp', 'peak_tmp_indexed', 'peak_join'];

/** A reference row's code is its id written in 9 digits (VARCHAR(9)). */
export const MAX_REFERENCE_ROWS = 999_999_999;

export const CREATE_REFERENCE_TABLE = `CREATE TABLE ${REFERENCE_TABLE} (id INTEGER NOT NULL PRIMARY KEY, code VARCHAR(9) NOT NULL, description VARCHAR(50) NOT NULL)`;
